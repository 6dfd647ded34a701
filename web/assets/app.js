// sealed's board in the browser. It knows no game's rules: the node sends each game's
// board as cells (`grid`) and every act open now as choices (`choices`: the squares a
// click starts from and goes to, the words, the text the node reads back); this script
// draws them, turns clicks into one of those texts, and sends it. What it shows is the
// document `sealed show --json` prints for this seat (cli/JSON.md).
'use strict';

// ---- small helpers -------------------------------------------------------------------

function h(tag, attrs, ...kids) {
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

const main = () => document.getElementById('main');
let toastTimer = null;
function toast(text, error) {
  const t = document.getElementById('toast');
  t.textContent = text;
  t.className = 'show' + (error ? ' error' : '');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.className = ''; }, error ? 6000 : 2500);
}

class SignedOut extends Error {}

async function api(path, body) {
  const opts = { credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    opts.method = 'POST';
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  const res = await fetch(path, opts);
  const text = await res.text();
  if (res.status === 401 || res.status === 403) throw new SignedOut(text);
  let value = null;
  try { value = text ? JSON.parse(text) : null; } catch (_) { value = text; }
  if (!res.ok) throw new Error((value && value.error) || text || res.statusText);
  return value;
}

function signedOut(why) {
  main().replaceChildren(h('h1', { text: 'Not signed in' }),
    h('p', { text: why || 'Run `sealed ui` in a terminal for a new login address.' }));
  document.title = 'sealed';
}

const short = (id) => (id || '').slice(0, 12);
const GENERIC = new Set(['accept', 'decline', 'resign', 'offer draw', 'accept draw']);

function playerLine(players) {
  return (players || []).map((p) => {
    const name = p.name || short(p.peer);
    return `${name}${p.you ? ' (you)' : ''}${p.role && p.role !== 'player' ? ' — ' + p.role : ''}`;
  }).join(' vs ');
}

// ---- state ---------------------------------------------------------------------------

const S = {
  games: [],          // the last games list
  myTurn: new Map(),  // game id → whether it was this seat's move, for notifications
  show: null,         // the open game's show document
  sel: null,          // the square selected on the board
  pick: null,         // choices on the same squares, waiting for the player to pick one
  ask: null,          // a choice waiting for its answer: {choice, kind, cards: []}
  variants: null,
  lastPly: null,      // the ply last drawn, and when (for the latency figure)
};
// The game drawn last: its ply, when that ply was first drawn and what asked for it.
window.sealedBoard = { drawnAt: 0, ply: -1, game: null, via: null };

function route() {
  const hash = location.hash || '#/';
  const m = hash.match(/^#\/game\/([0-9a-f]{6,64})$/);
  if (m) return { page: 'game', id: m[1] };
  if (hash === '#/new') return { page: 'new' };
  return { page: 'games' };
}

// ---- refreshing ----------------------------------------------------------------------

let refreshing = false;
let again = false;
// `why` says what asked (an event from the node, the timer, an act, a navigation): the
// board records it with each new ply it draws, so a test can tell a live update.
async function refresh(why) {
  S.why = why || 'other';
  if (refreshing) { again = true; return; }
  refreshing = true;
  try {
    do {
      again = false;
      await refreshOnce();
    } while (again);
  } catch (e) {
    if (e instanceof SignedOut) signedOut(e.message);
    else toast(e.message, true);
  } finally {
    refreshing = false;
  }
}

async function refreshOnce() {
  const r = route();
  const games = await api('/api/games');
  S.games = games;
  notifyTurns(games);
  titleFor(games);
  if (r.page === 'games') drawGames(games);
  else if (r.page === 'new') { if (!document.querySelector('form.new')) await drawNew(); }
  else {
    const show = await api(`/api/games/${r.id}`);
    if (!S.show || S.show.game !== show.game || S.show.ply !== show.ply || S.show.phase !== show.phase) {
      S.sel = null; S.pick = null; S.ask = null;
    }
    S.show = show;
    await drawGame(show);
  }
}

function titleFor(games) {
  const n = games.filter((g) => g.my_turn).length;
  document.title = n ? `(${n}) Your move — sealed` : 'sealed';
}

function notifyTurns(games) {
  for (const g of games) {
    const before = S.myTurn.get(g.game);
    if (before === false && g.my_turn && 'Notification' in window && Notification.permission === 'granted') {
      const here = route().page === 'game' && S.show && S.show.game === g.game;
      if (document.hidden || !here) {
        const n = new Notification(`sealed: your move (${g.variant})`, { body: playerLine(g.players), tag: g.game });
        n.onclick = () => { window.focus(); location.hash = `#/game/${g.game}`; };
      }
    }
    S.myTurn.set(g.game, g.my_turn);
  }
}

// ---- the games list ------------------------------------------------------------------

function drawGames(games) {
  const rows = games.map((g) => {
    const invited = g.status === 'invited' && g.my_turn;
    const decide = invited ? h('span', { class: 'actions' },
      h('button', { class: 'primary', 'data-act': 'accept', onclick: () => decideOn(g.game, 'accept') }, 'Accept'),
      h('button', { 'data-act': 'decline', onclick: () => decideOn(g.game, 'decline') }, 'Decline')) : null;
    return h('tr', { class: g.my_turn ? 'turn' : '', 'data-game': g.game },
      h('td', {}, h('a', { href: `#/game/${g.game}` }, short(g.game))),
      h('td', { text: g.variant }),
      h('td', { text: playerLine(g.players) }),
      h('td', {}, g.status, g.invitation ? h('div', { class: 'muted', text: g.invitation }) : null,
        invited && g.options.length ? h('div', { class: 'muted', text: `terms: ${g.options.join(' ')}` }) : null),
      h('td', { text: String(g.ply) }),
      h('td', {}, g.result ? h('span', { class: 'result', text: g.result }) : g.waiting_for,
        g.clock ? h('div', { class: 'muted', text: g.clock }) : null, decide),
    );
  });
  main().replaceChildren(
    h('h1', { text: 'Games' }),
    games.length ? h('table', { class: 'games' },
      h('thead', {}, h('tr', {}, ['game', 'variant', 'players', 'status', 'ply', 'now'].map((t) => h('th', { text: t })))),
      h('tbody', {}, rows)) : h('p', { class: 'muted', text: 'No games yet: propose one under New game.' }));
}

async function decideOn(id, what) {
  try {
    await api(`/api/games/${id}/${what}`, {});
    toast(what === 'accept' ? 'accepted' : 'declined');
    refresh('act');
  } catch (e) { e instanceof SignedOut ? signedOut(e.message) : toast(e.message, true); }
}

// ---- a new game ----------------------------------------------------------------------

function settingInput(s) {
  const id = `opt-${s.key}`;
  const input = s.values.length
    ? h('select', { id, name: s.key, 'data-default': s.default }, s.values.map((v) => h('option', { value: v, selected: v === s.default, text: v })))
    : h('input', { id, name: s.key, type: 'text', value: s.default, placeholder: s.example, 'data-default': s.default });
  return h('div', {}, h('label', { for: id, text: s.key }), input, h('div', { class: 'about', text: s.about }));
}

async function drawNew() {
  if (!S.variants) S.variants = await api('/api/variants');
  let peers = [];
  try { peers = (await api('/api/peers')).peers || []; } catch (_) { /* the list is a help only */ }
  const form = h('form', { class: 'new' });
  const variant = h('select', { id: 'variant', name: 'variant' }, S.variants.games.map((g) => h('option', { value: g.name, text: g.name })));
  const about = h('p', { class: 'about' });
  const rules = h('fieldset', {}, h('legend', { text: 'Rules' }));
  const time = h('fieldset', {}, h('legend', { text: 'Time control (optional)' }), S.variants.time.map(settingInput));
  // The peers the node knows, by their best address (else their peer id), named as
  // their nodes announce themselves.
  const known = h('datalist', { id: 'known-peers' }, peers.filter((p) => p.peer).map((p) => {
    const best = (p.addrs || []).map((a) => a.addr).find((a) => a && a.endsWith(`/p2p/${p.peer}`));
    return h('option', { value: best || p.peer, text: `${p.name || short(p.peer)}${p.connected ? ' (connected)' : ''}` });
  }));
  const field = (id, label, help) => h('div', {}, h('label', { for: id, text: label }),
    h('input', { id, name: id, type: 'text', list: 'known-peers', autocomplete: 'off' }), h('div', { class: 'about', text: help }));
  const referee = field('referee', 'Referee', 'a referee node both of you trust (address ending in /p2p/<peer id>); Secret Stallmate needs one');
  const pick = () => {
    const g = S.variants.games.find((x) => x.name === variant.value);
    about.textContent = g.about;
    rules.replaceChildren(h('legend', { text: 'Rules' }), ...g.settings.map(settingInput));
    referee.hidden = g.name !== 'stallmate';
  };
  variant.addEventListener('change', pick);
  form.append(
    h('label', { for: 'variant', text: 'Variant' }), variant, about, rules, time, known,
    field('peer', 'Opponent', 'their peer id, or an address ending in /p2p/<peer id>'),
    referee,
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
    try {
      const id = await api('/api/new', { variant: variant.value, options, peer: val('peer') || '', mailbox: val('mailbox'), referee: val('referee'), witness: val('witness') });
      toast('proposed');
      location.hash = `#/game/${id}`;
    } catch (e) { e instanceof SignedOut ? signedOut(e.message) : toast(e.message, true); }
  });
  main().replaceChildren(h('h1', { text: 'New game' }), form);
}

// ---- a game --------------------------------------------------------------------------

function gameChoices(show) {
  return (show.choices || []).filter((c) => !(c.from === null && c.to === null && GENERIC.has(c.text)));
}

async function send(text) {
  const show = S.show;
  S.sel = null; S.pick = null; S.ask = null;
  try {
    await api(`/api/games/${show.game}/act`, { text, expect: show.ply });
  } catch (e) {
    if (e instanceof SignedOut) return signedOut(e.message);
    toast(e.message, true);
  }
  refresh('act');
}

function choose(choice) {
  if (!choice.ask) return send(choice.text);
  S.pick = null;
  S.ask = { choice, kind: choice.ask.kind, cards: [] };
  drawGame(S.show);
}

function clickSquare(sq) {
  const show = S.show;
  const choices = gameChoices(show);
  if (S.ask && S.ask.kind === 'square') return send(S.ask.choice.text.replace('{}', sq));
  if (S.sel) {
    const here = choices.filter((c) => c.from === S.sel && c.to === sq);
    if (here.length === 1) return choose(here[0]);
    if (here.length > 1) { S.pick = here; return drawGame(show); }
  }
  if (choices.some((c) => c.from === sq)) {
    S.sel = S.sel === sq ? null : sq;
    S.pick = null;
    return drawGame(show);
  }
  const onto = choices.filter((c) => c.from === null && c.to === sq);
  if (onto.length === 1) return choose(onto[0]);
  if (onto.length > 1) { S.pick = onto; return drawGame(show); }
  S.sel = null; S.pick = null;
  drawGame(show);
}

function drawBoard(show) {
  const g = show.grid;
  if (!g) return null;
  const choices = gameChoices(show);
  const asking = S.ask && S.ask.kind === 'square';
  const froms = new Set(choices.map((c) => c.from).filter(Boolean));
  const targets = new Set(choices.filter((c) => S.sel ? c.from === S.sel : c.from === null).map((c) => c.to).filter(Boolean));
  const board = h('div', { class: 'board', 'data-files': g.files.length });
  board.style.gridTemplateColumns = `1.4em repeat(${g.files.length}, var(--cell))`;
  g.ranks.forEach((rank, row) => {
    board.append(h('div', { class: 'label', text: rank }));
    for (let col = 0; col < g.files.length; col++) {
      const c = g.cells[row * g.files.length + col];
      const cls = ['sq', c.shade];
      if (froms.has(c.square)) cls.push('movable');
      if (S.sel === c.square) cls.push('selected');
      if (targets.has(c.square)) cls.push('target');
      if (c.piece) cls.push('occupied');
      if (asking) cls.push('asking');
      if (g.divides.includes(row)) cls.push('divide-below');
      const title = [c.square, c.piece && c.piece.name, ...c.marks.map((m) => m.words)].filter(Boolean).join(' · ');
      const cell = h('button', { type: 'button', class: cls.join(' '), 'data-square': c.square, title, onclick: () => clickSquare(c.square) },
        c.piece ? h('span', { class: `piece side${c.piece.side}${c.piece.red ? ' red' : ''}${show.variant === 'cardmate' ? ' card' : ''}`, text: c.piece.glyph }) : null,
        c.marks.map((m) => h('span', { class: `mark ${m.kind}`, text: m.kind === 'own-trap' ? 'T' : m.kind[0].toUpperCase() })));
      if (g.divides.includes(row)) cell.style.borderBottom = '3px solid #333';
      board.append(cell);
    }
  });
  board.append(h('div', {}));
  for (const f of g.files) board.append(h('div', { class: 'label', text: f }));
  return board;
}

function drawAsk(show) {
  if (S.pick) {
    return h('div', { class: 'ask', id: 'pick' }, h('div', { text: 'Which one?' }),
      h('div', { class: 'actions' }, S.pick.map((c) => h('button', { type: 'button', class: 'choice', 'data-text': c.text, onclick: () => choose(c) }, c.words))),
      h('button', { type: 'button', onclick: () => { S.pick = null; drawGame(show); } }, 'Cancel'));
  }
  if (!S.ask) return null;
  const a = S.ask;
  const cancel = h('button', { type: 'button', id: 'cancel-ask', onclick: () => { S.ask = null; drawGame(show); } }, 'Cancel');
  if (a.kind === 'square') {
    return h('div', { class: 'ask', id: 'ask' }, h('div', { text: `${a.choice.words}: click a square — ${a.choice.ask.why}` }), cancel);
  }
  if (a.kind === 'cards') {
    const cards = (show.hand && show.hand.cards) || [];
    const need = a.choice.ask.count;
    const done = h('button', { type: 'button', class: 'primary', id: 'ask-done', disabled: a.cards.length !== need,
      onclick: () => send(a.choice.text.replace('{}', a.cards.join(' '))) }, `Send (${a.cards.length}/${need})`);
    return h('div', { class: 'ask', id: 'ask' }, h('div', { text: `${a.choice.words}: pick ${need} card(s) — ${a.choice.ask.why}` }),
      h('div', { class: 'actions' }, cards.map((c) => h('button', { type: 'button', class: 'ask-card' + (a.cards.includes(c.card) ? ' primary' : ''), 'data-card': c.card,
        onclick: () => {
          const i = a.cards.indexOf(c.card);
          if (i >= 0) a.cards.splice(i, 1); else if (a.cards.length < need) a.cards.push(c.card);
          drawGame(show);
        } }, `${c.card} ${c.name || ''}`))), done, ' ', cancel);
  }
  // A start card is followed by the turn's play: one of the other game choices.
  const plays = gameChoices(show).filter((c) => !c.ask && c.text !== a.choice.text);
  return h('div', { class: 'ask', id: 'ask' }, h('div', { text: `${a.choice.words}: then which play?` }),
    h('div', { class: 'actions' }, plays.map((c) => h('button', { type: 'button', class: 'choice', 'data-text': c.text,
      onclick: () => send(a.choice.text.replace('{}', c.text)) }, c.words))), cancel);
}

function drawButtons(show) {
  const buttons = (show.choices || []).filter((c) => c.from === null && c.to === null);
  if (!buttons.length) return null;
  return h('div', { class: 'actions', id: 'buttons' }, buttons.map((c) => {
    const danger = c.text === 'resign' || c.text === 'decline';
    return h('button', { type: 'button', class: 'choice' + (danger ? ' danger' : '') + (c.text === 'accept' ? ' primary' : ''), 'data-text': c.text,
      onclick: (ev) => {
        // A resignation asks once more, in place.
        if (danger && ev.currentTarget.dataset.armed !== 'yes') {
          ev.currentTarget.dataset.armed = 'yes';
          ev.currentTarget.textContent = `${c.words}: click again to confirm`;
          return;
        }
        choose(c);
      } }, c.words);
  }));
}

function drawHand(show) {
  const hand = show.hand;
  if (!hand) return null;
  const out = [];
  if (show.variant === 'tempete') {
    out.push(h('h2', { text: 'Your hand' }), h('div', { class: 'hand' }, (hand.cards || []).map((c) =>
      h('div', { class: 'card-face', 'data-card': c.card },
        h('div', {}, h('span', { class: 'num', text: `${c.card} ` }), c.name, c.taken ? ' (taken)' : ''),
        h('div', { class: 'meta', text: `${c.timing} · ${c.effect}` }), h('div', { text: c.text })))));
    if (hand.sizes) out.push(h('p', { class: 'muted', text: `cards in hand: White ${hand.sizes[0]}, Black ${hand.sizes[1]}` }));
  } else if (show.variant === 'chex' && hand.stacks) {
    out.push(h('h2', { text: 'Stacks' }), h('p', {}, `White: ${hand.stacks.white.text}`, h('br'), `Black: ${hand.stacks.black.text}`));
    if (hand.drawn) out.push(h('p', { class: 'status turn', text: `You drew a ${hand.drawn}: click a highlighted square to place it` }));
  } else if (show.variant === 'stallmate') {
    if (hand.army) out.push(h('p', { text: `Your army: ${hand.army}` }));
    if (hand.attempts && hand.attempts.length) {
      out.push(h('h2', { text: 'Your attempts this period' }), h('ul', { id: 'attempts' }, hand.attempts.map((a) => h('li', { text: `${a.attempt}: ${a.answer}` }))));
    }
    if (hand.heard && hand.heard.length) {
      out.push(h('h2', { text: 'Heard' }), h('ul', { id: 'heard' }, hand.heard.slice().reverse().map((p) =>
        h('li', { text: `period ${p.period}: ${p.words.length ? p.words.join(', ') : 'nothing'}` }))));
    }
  } else if (show.variant === 'duel' && hand.cards) {
    out.push(h('h2', { text: 'Your hand' }), h('p', { text: hand.cards.map((c) => c.card).join(' ') || '—' }));
  }
  return out;
}

async function drawVerdict(show) {
  const done = show.phase === 'done' || (show.verdict && show.verdict.outcome);
  if (!done) return null;
  let v;
  try { v = await api(`/api/games/${show.game}/verify`); } catch (e) { return h('p', { class: 'muted', text: e.message }); }
  const verdict = v.verdict || {};
  const outcome = verdict.outcome ? (verdict.outcome.text || JSON.stringify(verdict.outcome)) : 'none yet';
  const lines = [['status', v.status], ['result', show.result || outcome], ['complete', verdict.complete ? 'yes' : 'no'],
    ['verified', verdict.verified ? 'yes' : 'no'], ['envelopes', verdict.envelopes], ['exit', `${v.exit}`]];
  const faults = (verdict.faults || []).map((f) => `${f.seat}: ${f.kind}: ${f.detail}`);
  const claims = (verdict.claims || []).filter((c) => c.open).map((c) => `${c.about} against ${c.against}: ${c.evidence}`);
  const base = `/api/games/${show.game}/download`;
  return h('div', {}, h('h2', { text: 'Verdict (as sealed verify gives it)' }),
    h('dl', { class: 'verdict' + (v.exit === 0 ? '' : ' bad'), id: 'verdict', 'data-status': v.status },
      lines.map(([k, val]) => [h('dt', { text: k }), h('dd', { text: String(val) })]),
      faults.length ? [h('dt', { text: 'faults' }), h('dd', {}, faults.join('; '))] : null,
      claims.length ? [h('dt', { text: 'open claims' }), h('dd', {}, claims.join('; '))] : null),
    h('p', { class: 'downloads' },
      h('a', { href: `${base}/transcript`, download: '' }, 'transcript'),
      h('a', { href: `${base}/score`, download: '' }, 'score'),
      show.grid && show.variant !== 'cardmate' && show.variant !== 'chex' ? h('a', { href: `${base}/pgn`, download: '' }, 'PGN') : null,
      show.variant !== 'duel' && show.variant !== 'stallmate' ? h('a', { href: `${base}/svg`, download: '' }, 'SVG') : null));
}

async function drawGame(show) {
  const you = (show.players || []).find((p) => p.you);
  const head = h('div', {},
    h('h1', { text: `${show.variant} · game ${show.game.slice(0, 8)}` }),
    h('div', { class: 'muted' }, `${playerLine(show.players)}${show.side ? ' · you play ' + show.side : ''}${you ? '' : ''}`),
    show.options && show.options.length ? h('div', { class: 'muted', text: `options: ${show.options.join(' ')}` }) : null);
  const status = h('div', { class: 'status' + (show.my_turn ? ' turn' : ''), id: 'status' }, show.waiting_for,
    show.clock && show.clock.text ? h('div', { class: 'muted', id: 'clock', text: show.clock.text }) : null,
    show.delivery ? h('div', { class: 'muted', text: `what you sent last: ${show.delivery}` }) : null,
    show.draw_offered ? h('div', { text: 'Your opponent offers a draw.' }) : null);
  const board = drawBoard(show);
  const side = h('div', { class: 'side' }, status, drawAsk(show), drawButtons(show), drawHand(show),
    show.score ? [h('h2', { text: 'Moves' }), h('pre', { class: 'score', id: 'score', text: show.score })] : null,
    !board && show.board ? h('pre', { class: 'score', text: show.board }) : null,
    await drawVerdict(show));
  const page = h('div', { id: 'game', 'data-game': show.game, 'data-ply': show.ply, 'data-phase': show.phase,
    'data-my-turn': show.my_turn ? 'yes' : 'no', 'data-variant': show.variant },
  head, h('div', { class: 'game' }, board ? h('div', {}, board) : null, side));
  if (route().page !== 'game' || route().id !== show.game.slice(0, route().id.length)) return;
  main().replaceChildren(page);
  const b = window.sealedBoard;
  if (b.game !== show.game || b.ply !== show.ply) {
    b.game = show.game; b.ply = show.ply; b.drawnAt = Date.now(); b.via = S.why;
  }
}

// ---- start ---------------------------------------------------------------------------

// When the node last pushed a change: the timer reads the games again only when it has
// been quiet that long (the clocks move without any change in the store).
let lastEvent = 0;

function live() {
  const dot = document.getElementById('live');
  const es = new EventSource('/api/events');
  es.addEventListener('change', () => { lastEvent = Date.now(); dot.className = ''; refresh('event'); });
  es.onerror = () => { dot.className = 'off'; dot.title = 'reconnecting to your node…'; };
  es.onopen = () => { dot.className = ''; dot.title = 'live updates from your node'; };
}

async function start() {
  try {
    const me = await api('/api/me');
    document.getElementById('me').textContent = `you: ${short(me.peer)}…`;
  } catch (e) {
    return e instanceof SignedOut ? signedOut(e.message) : toast(e.message, true);
  }
  const notify = document.getElementById('notify');
  if ('Notification' in window && Notification.permission === 'default') {
    notify.hidden = false;
    notify.addEventListener('click', async () => { await Notification.requestPermission(); notify.hidden = true; });
  }
  window.addEventListener('hashchange', () => { S.sel = null; S.pick = null; S.ask = null; S.show = null; refresh('nav'); });
  live();
  setInterval(() => {
    if (!document.hidden && Date.now() - lastEvent > 9000) refresh('timer');
  }, 10000);
  refresh('start');
}

start();
