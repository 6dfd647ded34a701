// Small helpers every page uses: building elements (text always as text, never as
// markup: names and words come from other people), the passing notice, the players as
// people read them, and keeping the keyboard's place across a redraw.

export function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k.startsWith('data-')) el.dataset[k.slice(5).replace(/-(.)/g, (_, c) => c.toUpperCase())] = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

export const main = () => document.getElementById('main');

let toastTimer = null;
export function toast(text, error) {
  const t = document.getElementById('toast');
  t.textContent = text;
  t.className = 'show' + (error ? ' error' : '');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.className = ''; }, error ? 6000 : 2500);
}

export const short = (id) => (id || '').slice(0, 12);

// A peer id as a person compares two of them: its start and its end.
export const peerShort = (id) => (id && id.length > 16 ? `${id.slice(0, 8)}…${id.slice(-6)}` : id || '');

// One seat: its name as text (however it is spelt: a stranger may call himself
// "alice (you)"), a "you" badge that no name can forge, the role when not a player,
// and beside any seat but one's own its peer id, which no name can forge either.
export function person(p) {
  const name = p.name || `seat ${p.seat}`;
  return h('span', { class: 'person', 'data-seat': p.seat },
    h('span', { class: 'name', text: name }),
    p.role && p.role !== 'player' ? h('span', { class: 'role', text: p.role }) : null,
    p.you ? h('span', { class: 'you', text: 'you' })
      : h('code', { class: 'peer', title: p.peer, text: peerShort(p.peer) }),
    p.connected === true ? h('span', { class: 'online', title: 'connected to your node', text: 'online' }) : null);
}

// The players, then the referee, as elements: `alice you vs bob 12D3KooW…x`.
export function people(players) {
  const sides = (players || []).filter((p) => p.role === 'player');
  const others = (players || []).filter((p) => p.role !== 'player');
  const out = [];
  sides.forEach((p, i) => { if (i) out.push(h('span', { class: 'vs', text: ' vs ' })); out.push(person(p)); });
  for (const p of others) out.push(h('span', { class: 'vs', text: ', ' }), person(p));
  return h('span', { class: 'people' }, out);
}

// Words of the verdict that name seats as the spec writes them, `seat 0 lost on time`
// (protocol/src/rules.rs), with each seat said by its player's name instead, as the
// node's result line says it (games/src/table/words.rs): a nameless referee is "the
// referee", a seat with no name stays "seat N".
export function seatsNamed(text, players) {
  return String(text).replace(/\bseat (\d)\b/g, (all, n) => {
    const p = (players || []).find((x) => x.seat === Number(n));
    if (p && p.name) return p.name;
    return p && p.role === 'referee' ? 'the referee' : all;
  });
}

// The same in one line of text (for a notification's body).
export function peopleText(players) {
  return (players || []).filter((p) => p.role === 'player')
    .map((p) => `${p.name || short(p.peer)}${p.you ? ' (you)' : ''}`).join(' vs ');
}

// Redraws `main` with `page`, keeping the keyboard where it was: the element that had
// the focus is found again by its `data-focus` key (a square, a button), or `focus`
// names where it should go now (a question just asked).
//
// `fallback` names where the keyboard goes when what had it is gone (the question a
// move answered, the typing field once the turn has passed): never the page's body,
// where a keyboard player would have to start again from the top.
export function replaceMain(page, focus, fallback) {
  const active = document.activeElement;
  const inside = !!active && main().contains(active);
  const had = inside ? active.dataset.focus : null;
  main().replaceChildren(page);
  const find = (k) => (k ? main().querySelector(`[data-focus="${CSS.escape(k)}"]`) : null);
  const el = find(focus || had) || (inside || focus ? find(fallback) : null);
  if (el) el.focus({ preventScroll: !focus });
}

// A button that asks once more before it acts (resign, decline): the first press
// arms it, the second acts.
export function confirmButton(attrs, words, confirmWords, act) {
  return h('button', {
    ...attrs,
    type: 'button',
    onclick: (ev) => {
      const b = ev.currentTarget;
      if (b.dataset.armed !== 'yes') {
        b.dataset.armed = 'yes';
        b.textContent = confirmWords;
        return;
      }
      act();
    },
  }, words);
}
