// The games list (with the invitations and their terms) and the new game form.
import { api } from './session.js';
import { h, people, short, person, peerShort, confirmButton, replaceMain } from './ui.js';

let variants = null;
export async function loadVariants() {
  if (!variants) variants = await api('/api/variants');
  return variants;
}

// Every term of a game, agreed or by default, as a person reads them before accepting:
// the variant's settings and the time control, each with its value and whether it is
// the default.
export function terms(variant, options) {
  const agreed = new Map((options || []).map((o) => {
    const at = o.indexOf('=');
    return [o.slice(0, at), o.slice(at + 1)];
  }));
  const g = variants && variants.variants.find((x) => x.name === variant);
  const settings = [...(g ? g.settings : []), ...(variants ? variants.time : [])];
  const rows = settings.map((s) => {
    const set = agreed.has(s.key);
    const value = set ? agreed.get(s.key) : (s.default || 'none');
    agreed.delete(s.key);
    return h('li', { title: s.about },
      h('span', { class: 'term', text: s.key }), ' ', h('span', { text: value }),
      set ? null : h('span', { class: 'muted', text: ' (default)' }));
  });
  // A term this board does not list (a newer node's): shown as it came.
  for (const [k, v] of agreed) rows.push(h('li', {}, h('span', { class: 'term', text: k }), ' ', v));
  return h('ul', { class: 'terms' }, rows);
}

// The nodes a game names besides the players: the referee is a seat; the witness and
// the mailboxes are named by the node (`helpers`).
export function helpers(game) {
  const list = (game.helpers || []).map((x) => h('li', { 'data-role': x.role }, h('span', { class: 'term', text: x.role }), ' ',
    h('span', { class: 'person' }, x.name ? h('span', { class: 'name', text: x.name }) : null,
      h('code', { class: 'peer', title: x.peer, text: peerShort(x.peer) }),
      x.connected ? h('span', { class: 'online', text: 'online' }) : null)));
  return list.length ? h('ul', { class: 'helpers' }, list) : null;
}

// What an invitee is told before deciding: who invites him, his side, every term,
// and every other node the game names.
export function invitationFacts(g) {
  const from = (g.players || []).find((p) => !p.you && p.role === 'player');
  const referee = (g.players || []).find((p) => p.role === 'referee');
  return h('div', { class: 'invitation' },
    h('p', {}, 'Invitation from ', from ? person(from) : 'a player', g.side ? [': you would play ', h('strong', { text: g.side })] : null),
    h('details', { class: 'terms-box' }, h('summary', { text: 'Terms' }), terms(g.variant, g.options)),
    referee ? h('p', {}, 'Referee: ', person(referee)) : null,
    helpers(g) ? h('div', {}, h('span', { text: 'Also named: ' }), helpers(g)) : h('p', { class: 'muted', text: 'No witness and no mailbox: the game goes directly between your nodes.' }));
}

export function drawGames(games, ctx) {
  const rows = games.map((g) => {
    const invited = g.status === 'invited' && g.my_turn;
    const decide = invited ? h('span', { class: 'actions' },
      h('button', { type: 'button', class: 'primary', 'data-act': 'accept', 'data-focus': `accept-${g.game}`, onclick: () => ctx.decide(g.game, 'accept') }, 'Accept'),
      confirmButton({ 'data-act': 'decline', class: 'danger', 'data-focus': `decline-${g.game}` }, 'Decline', 'Decline: press again to confirm',
        () => ctx.decide(g.game, 'decline'))) : g.status === 'proposed' ? h('span', { class: 'actions' },
      // The proposer's way back, until someone accepts.
      confirmButton({ 'data-act': 'withdraw', class: 'danger', 'data-focus': `withdraw-${g.game}` }, 'Withdraw', 'Withdraw: press again to confirm',
        () => ctx.decide(g.game, 'withdraw'))) : null;
    return h('tr', { class: g.my_turn ? 'turn' : '', 'data-game': g.game },
      h('td', { 'data-label': 'game' }, h('a', { href: `#/game/${g.game}`, 'aria-label': `game ${short(g.game)}, ${g.variant}` }, short(g.game))),
      h('td', { 'data-label': 'variant', text: g.variant }),
      h('td', { 'data-label': 'players' }, people(g.players)),
      h('td', { 'data-label': 'status' }, g.status, g.invitation ? h('div', { class: 'muted', text: g.invitation }) : null,
        invited ? invitationFacts(g) : null),
      h('td', { 'data-label': 'ply', text: String(g.ply) }),
      h('td', { 'data-label': 'now' }, g.result ? h('span', { class: 'result', text: g.result }) : g.waiting_for,
        g.clock ? h('div', { class: 'muted', text: g.clock }) : null, decide),
    );
  });
  replaceMain(h('div', {},
    h('h1', { text: 'Games' }),
    games.length ? h('table', { class: 'games' },
      h('caption', { class: 'sr-only', text: 'Your games, the ones waiting for you highlighted' }),
      h('thead', {}, h('tr', {}, ['game', 'variant', 'players', 'status', 'ply', 'now'].map((t) => h('th', { scope: 'col', text: t })))),
      h('tbody', {}, rows)) : h('p', { class: 'muted', text: 'No games yet: propose one under New game.' })));
}

function settingInput(s) {
  const id = `opt-${s.key}`;
  const about = `${id}-about`;
  const input = s.values.length
    ? h('select', { id, name: s.key, 'data-default': s.default, 'aria-describedby': about }, s.values.map((v) => h('option', { value: v, selected: v === s.default, text: v })))
    : h('input', { id, name: s.key, type: 'text', value: s.default, placeholder: s.example, 'data-default': s.default, 'aria-describedby': about });
  return h('div', {}, h('label', { for: id, text: s.key }), input, h('div', { class: 'about', id: about, text: s.about }));
}

export async function drawNew(ctx) {
  const V = await loadVariants();
  let peers = [];
  try { peers = (await api('/api/peers')).peers || []; } catch (_) { /* the list is a help only */ }
  const form = h('form', { class: 'new' });
  const variant = h('select', { id: 'variant', name: 'variant', 'aria-describedby': 'variant-about' }, V.variants.map((g) => h('option', { value: g.name, text: g.name })));
  const about = h('p', { class: 'about', id: 'variant-about' });
  const rules = h('fieldset', {}, h('legend', { text: 'Rules' }));
  const time = h('fieldset', {}, h('legend', { text: 'Time control (optional)' }), V.time.map(settingInput));
  // The peers the node knows, by their best address (else their peer id), named as
  // their nodes announce themselves.
  const known = h('datalist', { id: 'known-peers' }, peers.filter((p) => p.peer).map((p) => {
    const best = (p.addrs || []).map((a) => a.addr).find((a) => a && a.endsWith(`/p2p/${p.peer}`));
    return h('option', { value: best || p.peer, text: `${p.name || short(p.peer)}${p.connected ? ' (connected)' : ''}` });
  }));
  const field = (id, label, help) => h('div', {}, h('label', { for: id, text: label }),
    h('input', { id, name: id, type: 'text', list: 'known-peers', autocomplete: 'off', 'aria-describedby': `${id}-about` }),
    h('div', { class: 'about', id: `${id}-about`, text: help }));
  const referee = field('referee', 'Referee', 'a referee node both of you trust (address ending in /p2p/<peer id>); Secret Stallmate needs one');
  const arbiter = field('arbiter', 'Arbiter (optional)', "with Tempête's physical deck: the arbiter's node (a mailbox node, address ending in /p2p/<peer id>), whose signed ruling settles a dispute; it becomes the game's mailbox");
  const pick = () => {
    const g = V.variants.find((x) => x.name === variant.value);
    about.textContent = g.about;
    // The arbiter has his own field (by address or peer id, as every helper), not the
    // rule's hex key as well: one question, asked once.
    rules.replaceChildren(h('legend', { text: 'Rules' }), ...g.settings.filter((st) => st.key !== 'arbiter').map(settingInput));
    referee.hidden = g.name !== 'stallmate';
    arbiter.hidden = g.name !== 'tempete';
  };
  variant.addEventListener('change', pick);
  form.append(
    h('label', { for: 'variant', text: 'Variant' }), variant, about, rules, time, known,
    field('peer', 'Opponent', 'their peer id, or an address ending in /p2p/<peer id>'),
    referee,
    arbiter,
    field('mailbox', 'Mailbox (optional)', 'a mailbox node both of you use, for play while one of you is offline'),
    field('witness', 'Witness (optional)', 'a witness node both of you trust for time: a player who lets the time pass then loses on time'),
    h('p', {}, h('button', { class: 'primary', type: 'submit', id: 'propose' }, 'Propose')));
  pick();
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const options = [];
    for (const el of form.querySelectorAll('fieldset select, fieldset input')) {
      const v = el.value.trim();
      if (v && v !== el.dataset.default) options.push([el.name, v]);
    }
    const val = (id) => form.querySelector(`#${id}`).value.trim() || null;
    await ctx.propose({ variant: variant.value, options, peer: val('peer') || '', mailbox: val('mailbox'), referee: val('referee'), witness: val('witness'), arbiter: val('arbiter') });
  });
  replaceMain(h('div', {}, h('h1', { text: 'New game' }), form));
}
