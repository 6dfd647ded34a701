// The board and the act being built on it. The board is the engine's cells (`grid`)
// drawn as buttons, each named for a screen reader, walked with the arrow keys; an act
// is built from the engine's choices one question at a time, as the terminal asks:
// the piece, where it goes, then — only among the acts left — which of the acts on
// those squares (their words differ), then each thing they name that still differs
// (`names`: the enemy piece a card freezes, what a pawn becomes), asked on the board
// when it is a square. No two answers offered ever read the same.

import { h } from './ui.js';

// The act being built: the square selected, the acts still possible and the question
// they raise, a chosen act that still asks something (a trap's square, cards), a start
// card waiting for the play that follows it, the cards picked, where the keyboard is.
export const Q = { sel: null, cands: null, chosen: null, then: null, cards: [], focus: null };

export function resetAct() {
  Q.sel = null; Q.cands = null; Q.chosen = null; Q.then = null; Q.cards = [];
}

// The game's own acts (not accept, resign and the like); after a start card, only
// those that can follow it.
export function gameChoices(show) {
  return (show.choices || []).filter((c) => !c.generic)
    .filter((c) => !Q.then || !c.ask);
}

const distinct = (xs) => [...new Set(xs)];
const named = (c, i) => (c.names && c.names[i] ? c.names[i].words : '');

// The question the acts still possible raise, or none when one act is left.
export function question(cands) {
  if (!cands || !cands.length) return null;
  const words = distinct(cands.map((c) => c.words));
  if (words.length > 1) {
    return { kind: 'words', what: 'which act?', options: words.map((w) => ({ label: w, key: w, pick: cands.filter((c) => c.words === w) })) };
  }
  const depth = Math.max(0, ...cands.map((c) => (c.names || []).length));
  for (let i = 0; i < depth; i++) {
    const values = distinct(cands.map((c) => named(c, i)));
    if (values.length < 2) continue;
    const asked = cands.find((c) => c.names && c.names[i]).names[i];
    const squares = cands.every((c) => c.names && c.names[i] && c.names[i].square);
    return {
      kind: squares ? 'square' : 'word',
      what: asked.what,
      options: values.map((v) => ({ label: v || 'nothing', key: v, square: squares ? v : null, pick: cands.filter((c) => named(c, i) === v) })),
    };
  }
  if (cands.length > 1) {
    return { kind: 'words', what: 'which act?', options: cands.map((c) => ({ label: c.text, key: c.text, pick: [c] })) };
  }
  return null;
}

// ---- the board -----------------------------------------------------------------------

// Every square the board should mark now: where the selected piece may go (or where
// a piece may be placed), and the squares that answer the open question.
// A target that only a card's play reaches (Tempête: `card` on every act that plays
// one) is marked apart from a plain move's, so the dots do not promise a move the
// player can make without a card.
function marked(show, q) {
  const choices = gameChoices(show);
  const here = choices.filter((c) => (Q.sel ? c.from === Q.sel : c.from === null) && c.to);
  const targets = new Set(here.map((c) => c.to));
  const plain = new Set(here.filter((c) => c.card === undefined || c.card === null).map((c) => c.to));
  const answers = new Set(q && q.kind === 'square' ? q.options.map((o) => o.square) : []);
  const anySquare = !!(Q.chosen && Q.chosen.ask && Q.chosen.ask.kind === 'square');
  const shown = (q || anySquare) ? new Set() : targets;
  const cardOnly = new Set([...shown].filter((sq) => !plain.has(sq)));
  return { choices, targets: shown, cardOnly, answers, anySquare, froms: new Set(choices.map((c) => c.from).filter(Boolean)) };
}

function squareName(c, m, last, check) {
  const parts = [c.square, c.piece ? c.piece.name : 'empty', ...c.marks.map((x) => x.words)];
  if (check.has(c.square)) parts.push('check');
  if (last.has(c.square)) parts.push('last move');
  if (Q.sel === c.square || c.picked) parts.push('selected');
  if (c.edited) parts.push('changed by your edits');
  if (m.targets.has(c.square)) parts.push(m.cardOnly.has(c.square) ? 'you can move here with a card' : 'you can move here');
  if (m.answers.has(c.square)) parts.push('an answer to the question');
  return parts.join(', ');
}

// Arrow keys move the keyboard between squares as they are shown (up is up on the
// screen, whichever side the board is seen from); Enter or Space presses one.
function walk(ev, files, count) {
  const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -files, ArrowDown: files, Home: 'home', End: 'end' };
  const step = moves[ev.key];
  if (step === undefined) return;
  const cells = [...ev.currentTarget.querySelectorAll('button.sq')];
  const at = cells.indexOf(document.activeElement);
  if (at < 0) return;
  let to = step === 'home' ? at - (at % files) : step === 'end' ? at - (at % files) + files - 1 : at + step;
  if (step === -1 && at % files === 0) to = at;
  if (step === 1 && at % files === files - 1) to = at;
  if (to < 0 || to >= count) return;
  ev.preventDefault();
  cells[at].tabIndex = -1;
  cells[to].tabIndex = 0;
  cells[to].focus();
  Q.focus = cells[to].dataset.square;
}

// Where a drag started (a redraw between the press and the release keeps it).
let dragFrom = null;

// `look`: the board turned (`flip`: the other side at the bottom) and the kings in
// check (`check`, their squares).
export function drawBoard(show, q, ctx, look = {}) {
  const g = show.grid;
  if (!g) return null;
  const m = marked(show, q);
  const last = new Set(show.last || []);
  const check = look.check || new Set();
  const files = g.files.length;
  const rows = g.ranks.length;
  // Turned, the board is read from the other corner: the last cell first.
  const at = (row, col) => (look.flip ? g.cells[(rows - 1 - row) * files + (files - 1 - col)] : g.cells[row * files + col]);
  const ranks = look.flip ? g.ranks.slice().reverse() : g.ranks;
  const fileLabels = look.flip ? g.files.slice().reverse() : g.files;
  const divideBelow = (row) => g.divides.includes(look.flip ? rows - 2 - row : row);
  // The one square the Tab key reaches: where the keyboard was, else the selection,
  // else the first piece that can move, else the first square.
  const home = [Q.focus, Q.sel, [...m.answers][0], [...m.froms][0], g.cells[0] && g.cells[0].square]
    .find((s) => s && g.cells.some((c) => c.square === s));
  const other = { White: 'Black', Black: 'White' }[show.side];
  const side = look.flip ? (other ? `, as ${other} sees it` : ', turned around') : show.side ? `, as ${show.side} sees it` : '';
  const board = h('div', {
    class: 'board', id: 'board', role: 'group', 'data-files': files, 'data-flipped': look.flip ? 'yes' : 'no',
    'aria-label': `Board${side}. Arrow keys move between squares; Enter picks one.`,
    onkeydown: (ev) => walk(ev, files, g.cells.length),
    onpointerdown: (ev) => {
      const cell = ev.target.closest && ev.target.closest('button.sq');
      dragFrom = cell && !cell.disabled && ev.button === 0 && ctx.drag ? cell.dataset.square : null;
    },
    // A press on one square let go on another is a drag: the board's own drag (a move,
    // or in a physical card's edits a stated move). On the same square it is a click.
    onpointerup: (ev) => {
      const from = dragFrom;
      dragFrom = null;
      const at = document.elementFromPoint(ev.clientX, ev.clientY);
      const cell = at && at.closest && at.closest('button.sq');
      if (!from || !cell || cell.dataset.square === from || cell.disabled) return;
      ev.preventDefault();
      Q.focus = cell.dataset.square;
      ctx.drag(from, cell.dataset.square);
    },
  });
  board.style.setProperty('--files', String(files));
  board.style.gridTemplateColumns = `1.4em repeat(${files}, var(--cell))`;
  ranks.forEach((rank, row) => {
    board.append(h('div', { class: 'label', 'aria-hidden': 'true', text: rank }));
    for (let col = 0; col < files; col++) {
      const c = at(row, col);
      const cls = ['sq', c.shade];
      if (m.froms.has(c.square)) cls.push('movable');
      // The piece chosen, and where it goes once a question about the act is open.
      if (Q.sel === c.square || c.picked || (q && Q.cands && Q.cands[0].to === c.square)) cls.push('selected');
      if (c.edited) cls.push('edited');
      if (m.targets.has(c.square)) cls.push('target');
      if (m.cardOnly.has(c.square)) cls.push('card-only');
      if (m.answers.has(c.square)) cls.push('answer');
      if (m.anySquare) cls.push('asking');
      if (last.has(c.square)) cls.push('last');
      if (c.piece) cls.push('occupied');
      if (check.has(c.square)) cls.push('check');
      if (divideBelow(row)) cls.push('divide-below');
      const cell = h('button', {
        type: 'button', class: cls.join(' '), 'data-square': c.square, 'data-focus': `sq-${c.square}`,
        tabindex: c.square === home ? '0' : '-1', 'aria-label': squareName(c, m, last, check),
        'aria-pressed': Q.sel === c.square || c.picked ? 'true' : null,
        title: [c.square, c.piece && c.piece.name, ...c.marks.map((x) => x.words)].filter(Boolean).join(' · '),
        disabled: ctx.down,
        onclick: () => { Q.focus = c.square; ctx.square(c.square); },
      },
      c.piece ? h('span', { class: `piece side${c.piece.side}${c.piece.red ? ' red' : ''}${show.variant === 'cardmate' ? ' card' : ''}`, 'aria-hidden': 'true', text: c.piece.glyph }) : null,
      c.marks.map((x) => h('span', { class: `mark ${x.kind}`, 'aria-hidden': 'true', text: x.kind === 'own-trap' ? 'T' : x.kind[0].toUpperCase() })));
      board.append(cell);
    }
  });
  board.append(h('div', { class: 'label', 'aria-hidden': 'true' }), ...fileLabels.map((f) => h('div', { class: 'label', 'aria-hidden': 'true', text: f })));
  // The grid's note is drawn here unless the page puts it below what goes under the
  // board (the pieces lost, a clock): `look.note === false`, and boardNote draws it.
  return h('div', { class: 'board-box' }, board, look.note === false ? null : boardNote(g));
}

// What the grid says of itself (Chex: how its squares are named), under the board.
export function boardNote(g) {
  return g && g.note ? h('p', { class: 'note', id: 'board-note', text: g.note }) : null;
}

// ---- what is asked now -----------------------------------------------------------------

// The question area: the open question with its answers (each a button, squares also
// on the board), the cards a chosen act asks for, or the play a start card waits for.
export function drawQuestion(show, q, ctx) {
  const cancel = h('button', { type: 'button', id: 'cancel-act', 'data-focus': 'cancel-act', disabled: ctx.down, onclick: () => ctx.cancel() }, 'Cancel');
  const cellName = (sq) => {
    const c = show.grid && show.grid.cells.find((x) => x.square === sq);
    return c && c.piece ? `${sq} · ${c.piece.name}` : sq;
  };
  if (q) {
    const head = q.options[0].pick[0];
    const title = q.kind === 'words'
      ? `${Q.sel && head.to ? `${Q.sel} to ${head.to}` : 'These acts'}: which one?`
      : `${head.words}: choose ${q.what}${q.kind === 'square' ? ' (on the board, or here)' : ''}`;
    return h('section', { class: 'question', id: 'question', 'aria-labelledby': 'question-title', 'data-kind': q.kind },
      h('h2', { id: 'question-title', text: title }),
      h('div', { class: 'actions' }, q.options.map((o, i) => h('button', {
        type: 'button', class: 'answer', 'data-key': o.key, 'data-focus': i === 0 ? 'first-answer' : `answer-${o.key}`,
        disabled: ctx.down, onclick: () => ctx.answer(o),
      }, o.square ? cellName(o.square) : o.label))), cancel);
  }
  if (Q.chosen && Q.chosen.ask) {
    const a = Q.chosen.ask;
    if (a.kind === 'square') {
      return h('section', { class: 'question', id: 'question', 'aria-labelledby': 'question-title', 'data-kind': 'any-square' },
        h('h2', { id: 'question-title', 'data-focus': 'first-answer', tabindex: '-1', text: `${Q.chosen.words}: choose ${a.why}, on the board` }), cancel);
    }
    if (a.kind === 'cards') {
      const cards = (show.hand && show.hand.cards) || [];
      const need = a.count;
      return h('section', { class: 'question', id: 'question', 'aria-labelledby': 'question-title', 'data-kind': 'cards' },
        h('h2', { id: 'question-title', text: `${Q.chosen.words}: choose ${need} card${need > 1 ? 's' : ''}, ${a.why}` }),
        h('div', { class: 'actions' }, cards.filter((c) => !c.taken).map((c, i) => h('button', {
          type: 'button', class: 'answer card-answer', 'data-card': c.card, 'data-focus': i === 0 ? 'first-answer' : `card-${c.card}`,
          'aria-pressed': Q.cards.includes(c.card) ? 'true' : 'false', disabled: ctx.down,
          onclick: () => ctx.toggleCard(c.card, need),
        }, `${c.card} ${c.name || ''}`))),
        h('button', { type: 'button', class: 'primary send', id: 'send-cards', 'data-focus': 'send-cards', disabled: ctx.down || Q.cards.length !== need,
          onclick: () => ctx.send(Q.chosen.text.replace('{}', Q.cards.join(' '))) }, `Send (${Q.cards.length} of ${need})`), ' ', cancel);
    }
  }
  if (Q.then) {
    return h('section', { class: 'question', id: 'question', 'aria-labelledby': 'question-title', 'data-kind': 'play' },
      h('h2', { id: 'question-title', 'data-focus': 'first-answer', tabindex: '-1', text: `${Q.then.words}: now make the play that follows it` }), cancel);
  }
  return null;
}

// The acts on no square, as buttons: the same words once (the question then asks what
// tells them apart); resigning, declining and withdrawing ask to be pressed twice.
export function drawButtons(show, ctx) {
  const all = (show.choices || []).filter((c) => c.from === null && c.to === null)
    .filter((c) => !Q.then || (!c.ask && !c.generic));
  if (!all.length) return null;
  const groups = new Map();
  for (const c of all) {
    if (!groups.has(c.words)) groups.set(c.words, []);
    groups.get(c.words).push(c);
  }
  return h('div', { class: 'actions', id: 'buttons' }, [...groups.entries()].map(([words, group]) => {
    const c = group[0];
    const danger = ['resign', 'decline', 'withdraw'].includes(c.generic);
    return h('button', {
      type: 'button', class: 'choice' + (danger ? ' danger' : '') + (c.generic === 'accept' ? ' primary' : ''),
      'data-text': c.text, 'data-focus': `button-${words}`, disabled: ctx.down,
      onclick: (ev) => {
        if (danger && ev.currentTarget.dataset.armed !== 'yes') {
          ev.currentTarget.dataset.armed = 'yes';
          ev.currentTarget.textContent = `${words}: press again to confirm`;
          return;
        }
        ctx.start(group);
      },
    }, words);
  }));
}

// Typing a move: any text the game reads (`sealed show` lists them); the engine's own
// texts are offered as the typing goes.
export function drawTyping(show, ctx) {
  const texts = distinct(gameChoices(show).filter((c) => !c.text.includes('{}')).map((c) => c.text)).slice(0, 500);
  if (!show.my_turn || !texts.length) return null;
  const input = h('input', { id: 'move-text', name: 'move', type: 'text', list: 'move-texts', autocomplete: 'off', spellcheck: 'false', 'data-focus': 'move-text', disabled: ctx.down, 'aria-describedby': 'move-help' });
  const form = h('form', { class: 'typing', id: 'typing' },
    h('label', { for: 'move-text', text: 'Type a move' }), ' ',
    input, ' ', h('button', { type: 'submit', class: 'primary', disabled: ctx.down }, 'Send'),
    h('datalist', { id: 'move-texts' }, texts.map((t) => h('option', { value: t }))),
    h('div', { class: 'about', id: 'move-help', text: `in the game's notation, e.g. ${texts.slice(0, 3).join(', ')}` }));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const t = input.value.trim();
    if (t) ctx.send(t);
  });
  return form;
}
