// Tempête's physical deck on the board (spec/GAMES.md §4.20): a card whose effect its
// player states is played by making that effect on the board — drag a piece to move
// it, click one to remove it, pick a piece and click an empty square to place it, two
// clicks to exchange — with a note in the player's words; the board shows the position
// after the edits while they are made, and Send posts the typed words the node reads
// (`card 37 then g1h4 remove e7 note …`). The other side sees each claim with Accept
// (nothing is sent: his next act accepts it) and Dispute (one click, `dispute ACT`),
// the disputes and continuing effects, a settlement made on the board the same way,
// and a field for the arbiter's ruling. The node judges every word; its refusal is
// shown here, in its words, with the edits kept.
import { h } from './ui.js';
import { SignedOut, NodeDown } from './session.js';

const KINDS = { p: 'pawn', n: 'knight', b: 'bishop', r: 'rook', q: 'queen', k: 'king' };
const FIGURINE = { k: 0x2654, q: 0x2655, r: 0x2656, b: 0x2657, n: 0x2658, p: 0x2659 };
const PALETTE = ['Q', 'R', 'B', 'N', 'P', 'q', 'r', 'b', 'n', 'p'];
const TOOLS = [
  ['remove', 'Remove', 'click a piece to remove it'],
  ['move', 'Move', 'click a piece, then the square it goes to'],
  ['place', 'Place', 'choose a piece below, then click an empty square'],
  ['exchange', 'Exchange', 'click two pieces that change places'],
];

// What is being stated (`mode`: a card, a move citing an effect, a settlement), the
// edits so far, the tool and what its first click picked, the fields; the claims this
// player accepted by a click (nothing is sent for that), by game and act.
export const P = {
  key: null, mode: null, card: null, answer: false, cite: null, dispute: null,
  tool: 'remove', piece: 'Q', first: null, edits: [], again: false, skip: false,
  lasting: '', note: '', error: '', why: {}, accepted: new Set(),
};

function clear() {
  Object.assign(P, { mode: null, card: null, answer: false, cite: null, dispute: null, tool: 'remove', first: null, edits: [], again: false, skip: false, lasting: '', note: '', error: '' });
}

export const claimsOf = (show) => (show.variant === 'tempete' && show.hand && show.hand.claims) || null;
export const editing = () => P.mode !== null;

// A new act of the game (or another game) ends what was being built.
export function sync(show) {
  const key = `${show.game}:${show.ply}:${show.phase}`;
  if (P.key !== key) {
    P.key = key;
    clear();
    P.why = {};
  }
}

// ---- pieces and the position after the edits ---------------------------------------------

const letterOf = (piece) => {
  const [colour, kind] = piece.name.split(' ');
  const k = Object.keys(KINDS).find((x) => KINDS[x] === kind) || '?';
  return colour === 'White' ? k.toUpperCase() : k;
};

function token(letter) {
  const black = letter === letter.toLowerCase();
  const k = letter.toLowerCase();
  return { glyph: String.fromCodePoint(FIGURINE[k] + (black ? 6 : 0)), side: black ? 1 : 0, name: `${black ? 'Black' : 'White'} ${KINDS[k]}`, red: false };
}

const pieceName = (letter) => token(letter).name;

// The pieces by square after `edits`, from the grid the node sent.
function position(show, edits) {
  const at = new Map(show.grid.cells.filter((c) => c.piece).map((c) => [c.square, letterOf(c.piece)]));
  for (const e of edits) {
    if (e.kind === 'move') {
      const p = at.get(e.from);
      at.delete(e.from);
      at.set(e.to, e.promo ? (p === 'P' ? e.promo.toUpperCase() : e.promo) : p);
    } else if (e.kind === 'remove') at.delete(e.square);
    else if (e.kind === 'place') at.set(e.square, e.piece);
    else if (e.kind === 'exchange') {
      const a = at.get(e.a);
      at.set(e.a, at.get(e.b));
      at.set(e.b, a);
    }
  }
  return at;
}

const touched = (e) => (e.kind === 'move' ? [e.from, e.to] : e.kind === 'exchange' ? [e.a, e.b] : [e.square]);

// The show document with its board as it stands after the edits: nothing to choose on
// it but edits, the squares the edits changed marked, the first click of a tool too.
export function preview(show) {
  const at = position(show, P.edits);
  const changed = new Set(P.edits.flatMap(touched));
  const cells = show.grid.cells.map((c) => ({
    ...c,
    piece: at.has(c.square) ? token(at.get(c.square)) : null,
    marks: changed.has(c.square) ? [] : c.marks,
    edited: changed.has(c.square),
    picked: P.first === c.square,
  }));
  return { ...show, choices: [], last: [], grid: { ...show.grid, cells, note: null } };
}

// ---- the edits -----------------------------------------------------------------------------

function words(e) {
  if (e.kind === 'move') return `${e.from} to ${e.to}${e.promo ? `, becoming a ${KINDS[e.promo.toLowerCase()]}` : ''}`;
  if (e.kind === 'remove') return `remove ${e.square}`;
  if (e.kind === 'place') return `place a ${pieceName(e.piece)} on ${e.square}`;
  return `exchange ${e.a} and ${e.b}`;
}

function typed(e) {
  if (e.kind === 'move') return `then ${e.from}${e.to}${e.promo ? e.promo.toLowerCase() : ''}`;
  if (e.kind === 'remove') return `remove ${e.square}`;
  if (e.kind === 'place') return `place ${e.piece} ${e.square}`;
  return `exchange ${e.a} ${e.b}`;
}

// The words the node reads for what is being stated.
export function text() {
  const head = P.mode === 'card' ? `${P.answer ? 'answer ' : ''}card ${P.card}` : P.mode === 'cite' ? `cite ${P.cite}` : `settle ${P.dispute}`;
  const parts = [head, ...P.edits.map(typed)];
  if (P.mode === 'card') {
    if (P.again) parts.push('again');
    if (P.skip) parts.push('skip');
    const n = parseInt(P.lasting, 10);
    if (n > 0) parts.push(`for ${n}`);
  }
  const note = P.note.trim();
  if (note) parts.push(`note ${note}`);
  return parts.join(' ');
}

const lastRank = (sq) => sq[1] === '8' || sq[1] === '1';

function addMove(show, from, to) {
  const at = position(show, P.edits);
  const p = at.get(from);
  if (!p) return;
  if (at.get(to) && at.get(to).toLowerCase() === 'k') {
    P.error = 'kings are never taken, removed or placed';
    return;
  }
  // A pawn that reaches the last rank becomes a queen, as the list says.
  const promo = p.toLowerCase() === 'p' && lastRank(to) ? (p === 'P' ? 'Q' : 'q') : null;
  P.edits.push({ kind: 'move', from, to, promo });
}

// A click on a square of the edit board, by the tool chosen.
function click(show, sq) {
  const at = position(show, P.edits);
  const here = at.get(sq);
  P.error = '';
  if (P.tool === 'remove') {
    if (!here) P.error = `no piece on ${sq} to remove`;
    else if (here.toLowerCase() === 'k') P.error = 'kings are never taken, removed or placed';
    else P.edits.push({ kind: 'remove', square: sq });
  } else if (P.tool === 'place') {
    if (here) P.error = `${sq} is not empty: a piece is placed on an empty square`;
    else P.edits.push({ kind: 'place', piece: P.piece, square: sq });
  } else if (P.first === null) {
    if (here) P.first = sq;
    else P.error = `no piece on ${sq}`;
  } else if (P.first === sq) {
    P.first = null;
  } else {
    const from = P.first;
    P.first = null;
    if (P.tool === 'move') addMove(show, from, sq);
    else if (!here) P.error = `no piece on ${sq} to exchange with`;
    else P.edits.push({ kind: 'exchange', a: from, b: sq });
  }
}

// What the board does while an effect is being stated.
export function boardCtx(show, redraw, down) {
  return {
    down,
    square: (sq) => { click(show, sq); redraw(`sq-${sq}`); },
    drag: (from, to) => { P.error = ''; P.first = null; addMove(show, from, to); redraw(`sq-${to}`); },
  };
}

// ---- sending -------------------------------------------------------------------------------

async function post(ctx, textToSend, redraw) {
  P.error = '';
  try {
    await ctx.post(textToSend);
    return true;
  } catch (e) {
    if (e instanceof SignedOut || e instanceof NodeDown) ctx.fail(e);
    else P.error = e.message;
    redraw('phys-error');
    return false;
  }
}

const field = (id, label, input, help) => h('div', { class: 'field' },
  h('label', { for: id, text: label }), ' ', input, help ? h('div', { class: 'about', id: `${id}-help`, text: help }) : null);

// The panel of the effect being stated: tools, palette, edits with undo, the toggles,
// the plies it lasts, the note, the words that will be sent, Send and Cancel.
export function drawEdit(show, ctx, redraw) {
  const down = ctx.down;
  const settle = P.mode === 'settle';
  const title = P.mode === 'card' ? `Card ${P.card}: make its effect on the board`
    : P.mode === 'cite' ? `A move under the effect of act ${P.cite}` : `Settle dispute ${P.dispute}: correct the board`;
  const tool = TOOLS.find(([k]) => k === P.tool);
  const noteNeeded = P.mode === 'card';
  // A card needs its note (the effect in words); a citation, the move it allows.
  const sendable = () => (P.mode === 'card' ? P.note.trim() !== '' : P.mode === 'cite' ? P.edits.length > 0 : true);
  const send = h('button', {
    type: 'button', class: 'primary', id: 'phys-send', 'data-focus': 'phys-send', disabled: down || !sendable(),
    onclick: async () => { if (await post(ctx, text(), redraw)) clear(); },
  }, 'Send');
  const shown = h('code', { id: 'phys-text', text: text() });
  const refresh = () => { shown.textContent = text(); send.disabled = down || !sendable(); };
  const note = h('input', {
    id: 'phys-note', type: 'text', maxlength: '280', autocomplete: 'off', 'data-focus': 'phys-note', value: P.note,
    'aria-describedby': 'phys-note-help', 'aria-required': noteNeeded ? 'true' : null, disabled: down,
    oninput: (ev) => { P.note = ev.currentTarget.value; refresh(); },
  });
  const lasting = h('input', {
    id: 'phys-lasting', type: 'number', min: '0', max: '1000', value: P.lasting, 'data-focus': 'phys-lasting', disabled: down,
    'aria-describedby': 'phys-lasting-help',
    oninput: (ev) => { P.lasting = ev.currentTarget.value; refresh(); },
  });
  const toggle = (id, key, label) => h('label', { class: 'toggle' },
    h('input', { type: 'checkbox', id, 'data-focus': id, checked: P[key], disabled: down, onchange: (ev) => { P[key] = ev.currentTarget.checked; refresh(); } }), ` ${label}`);
  return h('section', { class: 'question edit', id: 'phys-edit', 'aria-labelledby': 'phys-title', 'data-mode': P.mode },
    h('h2', { id: 'phys-title', tabindex: '-1', 'data-focus': 'phys-title', text: title }),
    h('p', { class: 'about', text: 'The board shows the position after your edits. Drag a piece to move it, whatever the tool.' }),
    h('div', { class: 'actions', role: 'group', 'aria-label': 'Edit tool' }, TOOLS.map(([k, label]) => h('button', {
      type: 'button', class: 'tool', 'data-tool': k, 'data-focus': `tool-${k}`, 'aria-pressed': P.tool === k ? 'true' : 'false', disabled: down,
      onclick: () => { P.tool = k; P.first = null; redraw(`tool-${k}`); },
    }, label))),
    h('p', { class: 'about', id: 'phys-tool-help', text: `${tool[1]}: ${tool[2]}${P.first ? ` (${P.first} chosen; click it again to let go)` : ''}.` }),
    P.tool === 'place' ? h('div', { class: 'actions palette', role: 'group', 'aria-label': 'Piece to place' }, PALETTE.map((l) => h('button', {
      type: 'button', class: 'piece-pick', 'data-piece': l, 'data-focus': `piece-${l}`, 'aria-pressed': P.piece === l ? 'true' : 'false',
      'aria-label': pieceName(l), title: pieceName(l), disabled: down, onclick: () => { P.piece = l; redraw(`piece-${l}`); },
    }, h('span', { class: `piece side${token(l).side}`, 'aria-hidden': 'true', text: token(l).glyph })))) : null,
    h('h3', { id: 'phys-edits-title', text: 'Your edits' }),
    P.edits.length ? h('ol', { id: 'phys-edits', 'aria-labelledby': 'phys-edits-title' }, P.edits.map((e) => h('li', { text: words(e) })))
      : h('p', { class: 'muted', id: 'phys-edits', text: 'none yet' }),
    h('div', { class: 'actions' },
      h('button', {
        type: 'button', id: 'phys-undo', 'data-focus': 'phys-undo', disabled: down || !P.edits.length,
        onclick: () => { P.edits.pop(); P.first = null; P.error = ''; redraw('phys-undo'); },
      }, P.edits.length ? `Undo “${words(P.edits[P.edits.length - 1])}”` : 'Undo')),
    settle ? null : h('div', { class: 'actions' }, toggle('phys-again', 'again', 'I move again (again)'), toggle('phys-skip', 'skip', 'my opponent skips a turn (skip)')),
    P.mode === 'card' ? field('phys-lasting', 'Lasts (plies)', lasting, 'a continuing effect that later moves may cite; 0 if none') : null,
    field('phys-note', noteNeeded ? 'What the card does, in your words (required)' : 'Note', note,
      noteNeeded ? 'your opponent reads it with the edits, and accepts or disputes them' : 'optional: why'),
    h('p', {}, 'Sends: ', shown),
    h('p', { class: 'error', id: 'phys-error', role: 'alert', 'data-focus': 'phys-error', tabindex: '-1', text: P.error }),
    h('div', { class: 'actions' }, send,
      h('button', { type: 'button', id: 'phys-cancel', 'data-focus': 'phys-cancel', disabled: down, onclick: () => { clear(); redraw('phys-open'); } }, 'Cancel')));
}

// ---- what the other side sees, and what starts an edit -----------------------------------

const sideName = (show, side) => {
  const seat = side === 'White' ? 0 : 1;
  const p = (show.players || []).find((x) => x.seat === seat && x.role === 'player');
  return p ? `${p.name || side} (${side})` : side;
};

function begin(mode, value, focus, redraw, answer) {
  clear();
  P.mode = mode;
  if (mode === 'card') P.card = value;
  if (mode === 'cite') P.cite = value;
  if (mode === 'settle') P.dispute = value;
  P.answer = !!answer;
  redraw(focus);
}

// An act's typed words as a claim is read: what is played (`card 37`, `cite 0`), the
// edits, and the note (everything after the word `note`, as the node reads it).
function spoken(words) {
  const at = ` ${words} `.indexOf(' note ');
  const body = (at < 0 ? words : words.slice(0, Math.max(0, at - 1))).trim();
  const note = at < 0 ? '' : words.slice(at + 5).trim();
  const m = body.match(/^((?:answer )?(?:card \d+|cite \d+|sprung|again)|dispute \d+|settle \d+|ruling \d+)\s*(.*)$/);
  return m ? { head: m[1], rest: m[2], note } : { head: body, rest: '', note };
}

// One claim of the opponent's: what he states, Accept and Dispute.
function claimPanel(show, a, ctx, redraw) {
  const key = `${show.game}:${a.act}`;
  const who = sideName(show, a.by);
  if (P.accepted.has(key)) {
    return h('div', { class: 'claim accepted', 'data-act': a.act, 'data-state': 'accepted' },
      h('p', {}, `You accept act ${a.act} (${who}: ${a.words}). Your next move sends the acceptance. `,
        h('button', { type: 'button', class: 'link', 'data-focus': `reopen-${a.act}`, onclick: () => { P.accepted.delete(key); redraw(`accept-${a.act}`); } }, 'Reconsider')));
  }
  const why = h('input', {
    id: `why-${a.act}`, type: 'text', maxlength: '280', autocomplete: 'off', 'data-focus': `why-${a.act}`, value: P.why[a.act] || '',
    oninput: (ev) => { P.why[a.act] = ev.currentTarget.value; },
  });
  const canDispute = show.my_turn && !ctx.down;
  const said = spoken(a.words);
  return h('div', { class: 'claim', role: 'group', 'aria-labelledby': `claim-${a.act}`, 'data-act': a.act, 'data-state': 'answerable' },
    h('p', { id: `claim-${a.act}`, class: 'claim-words', text: `${who} plays ${said.head}${said.rest ? `: ${said.rest}` : ''}` }),
    said.note ? h('p', { class: 'claim-note' }, 'Note: ', h('q', { text: said.note })) : null,
    h('p', { class: 'about', text: canDispute ? 'Your next move accepts it. To dispute it, do so before you move.' : 'Your next act accepts it; you can dispute it when it is your turn, before you move.' }),
    field(`why-${a.act}`, 'Why you dispute it (optional)', why),
    h('div', { class: 'actions' },
      h('button', {
        type: 'button', class: 'primary', 'data-claim-act': 'accept', 'data-focus': `accept-${a.act}`, disabled: ctx.down,
        onclick: () => { P.accepted.add(key); redraw(`reopen-${a.act}`); },
      }, 'Accept'),
      h('button', {
        type: 'button', class: 'danger', 'data-claim-act': 'dispute', 'data-focus': `dispute-${a.act}`, disabled: !canDispute,
        onclick: () => {
          const note = (P.why[a.act] || '').trim();
          post(ctx, `dispute ${a.act}${note ? ` note ${note}` : ''}`, redraw);
        },
      }, 'Dispute')));
}

// The claims section: the opponent's claims to answer, one's own and where they stand,
// the disputes, the continuing effects, the ruling field, and the stated cards to play.
export function drawClaims(show, ctx, redraw) {
  const c = claimsOf(show);
  if (!c || show.phase === 'done') return null;
  const mine = show.my_turn && !ctx.down && !editing();
  const answering = (show.choices || []).some((x) => x.text.startsWith('answer '));
  const stated = ((show.hand && show.hand.cards) || []).filter((x) => x.effect === 'stated');
  const open = (c.disputes || []).filter((d) => d.state === 'open' || d.state === 'offered');
  const out = [];
  for (const a of c.answerable || []) out.push(claimPanel(show, a, ctx, redraw));
  if (stated.length && show.my_turn && !editing()) {
    out.push(h('div', { class: 'actions', role: 'group', 'aria-label': 'Play a card by stating its effect' },
      stated.map((x, i) => h('button', {
        type: 'button', class: 'state-card', 'data-card': x.card, 'data-focus': i === 0 ? 'phys-open' : `state-${x.card}`, disabled: !mine,
        onclick: () => begin('card', x.card, 'phys-title', redraw, answering),
      }, `Play card ${x.card}: state its effect`))));
  }
  if ((c.mine || []).length) {
    const other = sideName(show, show.side === 'White' ? 'Black' : 'White');
    const said = { waiting: `waiting: ${other}'s next act accepts it, or he disputes it first`, accepted: `accepted by ${other}`, disputed: `disputed by ${other}` };
    out.push(h('h3', { text: 'Your claims' }), h('ul', { id: 'my-claims' }, c.mine.slice().reverse().map((m) =>
      h('li', { 'data-act': m.act, 'data-state': m.state }, `act ${m.act}: ${m.words} — `, h('strong', { text: said[m.state] || m.state })))));
  }
  if ((c.disputes || []).length) {
    out.push(h('h3', { text: 'Disputes' }), h('ul', { id: 'disputes' }, c.disputes.map((d) => {
      const until = d.until !== null && d.until !== undefined && (d.state === 'open' || d.state === 'offered') ? `, the arbiter may rule until ply ${d.until}` : '';
      const settleable = mine && (d.state === 'open' || d.state === 'offered');
      return h('li', { 'data-dispute': d.dispute, 'data-state': d.state },
        `dispute ${d.dispute} of act ${d.act} (${sideName(show, d.claimant)}: ${d.words}) is ${d.state}${until}`,
        d.note ? `: ${d.note}` : '', ' ',
        settleable ? h('button', { type: 'button', class: 'settle', 'data-focus': `settle-${d.dispute}`, onclick: () => begin('settle', d.dispute, 'phys-title', redraw) }, `Settle dispute ${d.dispute}…`) : null);
    })));
  }
  if ((c.lasting || []).length) {
    out.push(h('h3', { text: 'Continuing effects' }), h('ul', { id: 'lasting' }, c.lasting.map((l) => h('li', { 'data-act': l.act },
      `act ${l.act} (${sideName(show, l.by)}, card ${l.card}) until ply ${l.until}: ${l.note} `,
      mine ? h('button', { type: 'button', class: 'cite', 'data-focus': `cite-${l.act}`, onclick: () => begin('cite', l.act, 'phys-title', redraw) }, `Move under act ${l.act}’s effect…`) : null))));
  }
  if (c.arbiter && open.length && show.my_turn) {
    const input = h('input', { id: 'ruling-text', type: 'text', autocomplete: 'off', spellcheck: 'false', 'data-focus': 'ruling-text', 'aria-describedby': 'ruling-text-help', disabled: ctx.down });
    const form = h('form', { class: 'typing', id: 'ruling' },
      field('ruling-text', 'The arbiter’s ruling', input, 'paste the line he sent: ruling D sig … note …'),
      h('button', { type: 'submit', disabled: ctx.down }, 'Post the ruling'));
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const t = input.value.trim();
      if (!t.startsWith('ruling ')) { P.error = 'a ruling line starts with “ruling”'; redraw('phys-error'); return; }
      post(ctx, t, redraw);
    });
    out.push(form);
  }
  if (!editing() && P.error) out.push(h('p', { class: 'error', id: 'phys-error', role: 'alert', 'data-focus': 'phys-error', tabindex: '-1', text: P.error }));
  if (!out.length) return null;
  return h('section', { class: 'claims', id: 'claims', 'aria-labelledby': 'claims-title' },
    h('h2', { id: 'claims-title', text: 'Claims (physical deck)' }), out);
}
