// The moves of a game as a player reads them: the score's acts one numbered move to a
// line (a card's act in words, not as `<62@a7 f2-f3>`), stepping back and forward
// through the positions after each act where this page can draw them, the board
// turned, the pieces each side has lost, and the words a screen reader hears when the
// opponent moves. What is shown while stepping is drawn from the positions the view
// carries (steps.js: every game's but Duel's, which has no board); the node is asked
// nothing, and no act can be made until the player returns to the game.
import { h, seatsNamed } from './ui.js';
import * as chess from './chess.js';
import * as steps from './steps.js';

// The view of the open game: the act shown (null: the game as it stands), what
// arrived while the player looked back, whether the board is turned, and what the
// keys need between two drawings (the number of acts, why stepping is off, how to
// draw again).
export const V = { game: null, at: null, arrived: null, flip: false, count: 0, off: null, redraw: null };

const flipKey = (game) => `sealed-flip:${game}`;

// A new game's page starts at the game as it stands, turned as the player left it in
// this tab.
export function enter(show) {
  if (V.game === show.game) return;
  V.game = show.game;
  V.at = null;
  V.arrived = null;
  try { V.flip = sessionStorage.getItem(flipKey(show.game)) === 'yes'; } catch (e) { V.flip = false; }
}

export function flip() {
  V.flip = !V.flip;
  try { sessionStorage.setItem(flipKey(V.game), V.flip ? 'yes' : 'no'); } catch (e) { /* a tab without storage keeps it until reload */ }
}

// ---- the score, read -------------------------------------------------------------------------

const isNumber = (t) => /^\d+\.(\.\.)?$/.test(t);
const isResult = (t) => /^(1-0|0-1|1\/2-1\/2|\*)$/.test(t);

const isTag = (l) => /^\[\w+ ".*"\]$/.test(l.trim());
const tagsOf = (lines) => lines.filter(isTag).map((t) => t.trim().match(/^\[(\w+) "(.*)"\]$/).slice(1));

// The score's tags, and its movetext as rows (a move number and what follows it: acts,
// each with its index from 1, and comments).
export function readScore(score) {
  const lines = (score || '').split('\n');
  const tags = tagsOf(lines);
  const text = lines.filter((l) => !isTag(l)).join('\n');
  const rows = [];
  const acts = [];
  for (const t of text.match(/\{[^}]*\}|<[^>]*>|;[^\n]*|\S+/g) || []) {
    if (isNumber(t)) { rows.push({ num: t, items: [] }); continue; }
    if (isResult(t)) continue;
    if (!rows.length) rows.push({ num: null, items: [] });
    const row = rows[rows.length - 1];
    if (t.startsWith('{') || t.startsWith(';')) row.items.push({ comment: t.replace(/^[{;]\s*|\s*}$/g, '') });
    else { acts.push(t); row.items.push({ act: t, ply: acts.length }); }
  }
  return { tags, rows, acts };
}

// The moves of `show` as rows and acts, by its game's grammar: Secret Stallmate's
// score has a line a period (its attempts and answers joined by `;`, the "yes" the
// move), and while the game goes on a player has no score: his moves are read from the
// positions the node gives; every other game's score is read as above.
export function readMoves(show) {
  if (!show.variant || !show.variant.startsWith('stallmate')) return readScore(show.score);
  return show.score ? readStallmate(show.score) : readOwnSteps(show);
}

// A Secret Stallmate score (GAMES §5.7): each period's move is an act, what the move
// announced and what was tried before it are comments after it, a period without a
// move is a comment alone, and the ending lines are comments.
function readStallmate(score) {
  const lines = score.split('\n');
  const tags = tagsOf(lines);
  const rows = [];
  const acts = [];
  for (const raw of lines) {
    const l = raw.trim();
    if (!l || l.startsWith('#') || isTag(l)) continue;
    const m = l.match(/^(\d+\.(?:\.\.)?)\s*(.*)$/);
    if (!m) { rows.push({ num: null, items: [{ comment: l }] }); continue; }
    const entries = m[2].split(';').map((e) => e.trim()).filter(Boolean);
    const yes = entries.findIndex((e) => /^\S+\s+yes\b/.test(e));
    const tried = entries.filter((_, i) => i !== yes);
    const row = { num: m[1], items: [] };
    if (yes >= 0) {
      const [act, ...answer] = entries[yes].split(/\s+/);
      acts.push(act);
      row.items.push({ act, ply: acts.length });
      const told = answer.join(' ').replace(/^yes,?\s*/, '');
      if (told) row.items.push({ comment: told });
      if (tried.length) row.items.push({ comment: `tried first: ${tried.join('; ')}` });
    } else if (tried.length) {
      row.items.push({ comment: `no move: tried ${tried.join('; ')}` });
    }
    rows.push(row);
  }
  return { tags, rows, acts };
}

// A Secret Stallmate player's own moves while the game goes on, from the positions the
// node gives: one a period, White's first; his own with the squares it moved, the
// opponent's unseen (with the square where he lost a piece to it, if he did).
function readOwnSteps(show) {
  const positions = (show.steps && show.steps.positions) || [];
  const rows = [];
  const acts = [];
  positions.slice(1).forEach((p, i) => {
    const white = i % 2 === 0;
    const mine = (show.side === 'White') === white;
    const last = p.last || [];
    const act = mine ? last.join('-') : (last.length ? `unseen, took on ${last[0]}` : 'unseen');
    acts.push(act);
    rows.push({ num: `${Math.floor(i / 2) + 1}${white ? '.' : '...'}`, items: [{ act, ply: acts.length }] });
  });
  return { tags: [], rows, acts };
}

// ---- cards in words ---------------------------------------------------------------------------

// The open deck's names by number, asked once of the board's server.
export const cardNames = new Map();

function cardWords(ref) {
  const m = ref.match(/^(again|t?\d+)(?:@([a-h][1-8](?:,[a-h][1-8])*))?(?:=([PNBRQK]))?$/);
  if (!m) return null;
  let w;
  if (m[1] === 'again') w = 'the intercepted card again';
  else {
    const n = Number(m[1].replace('t', ''));
    const name = cardNames.get(n);
    w = `${m[1].startsWith('t') ? 'the taken ' : ''}${name ? `${name} (card ${n})` : `card ${n}`}`;
  }
  if (m[2]) w += ` on ${m[2].split(',').join(' and ')}`;
  if (m[3]) w += ` as a ${chess.WORDS[m[3].toLowerCase()]}`;
  return w;
}

// A Tempête act in words (GAMES §4.16's grammar): `<62@a7 f2-f3>` reads "Tempest
// (card 62) on a7: f2-f3". What is not understood stays as written.
export function actWords(act) {
  if (!act.startsWith('<')) return act;
  const w = act.slice(1, -1).trim().split(/\s+/);
  const out = [];
  let i = 0;
  const moves = () => {
    const ms = [];
    while (i < w.length && w[i] !== 'discard') ms.push(w[i++]);
    return ms.join(' ');
  };
  while (w[i] === 'sprung') { out.push(`trap sprung on ${w[i + 2]}`); i += 3; }
  if (w[i] === 'yield') { out.push('yields: no legal move'); i += 1; }
  else if (w[i] === 'intercept') {
    i += 1;
    const second = w[i] === 'second';
    if (second) i += 1;
    out.push(`intercepts${second ? ' the second move' : ''} with ${cardWords(w[i]) || w[i]}`);
    i += 1;
  } else if (w[i] === 'answer') {
    i += 1;
    if (w[i] === 'cancel') { out.push(`answers: cancels ${cardWords(w[i + 1]) || w[i + 1]}`); i += 2; }
    else if (w[i] === 'keep') { i += 1; out.push(`answers: keeps the card, plays ${moves()}`); }
    else {
      const c = cardWords(w[i] || '');
      if (c) i += 1;
      const ms = moves();
      out.push(`answers: ${[c, ms].filter(Boolean).join(': ')}`);
    }
  } else if (i < w.length) {
    let c = cardWords(w[i] || '');
    if (c) {
      i += 1;
      if (w[i] === 'takes') { c += ` takes ${cardWords(w[i + 1]) || w[i + 1]}`; i += 2; }
      else if (w[i] === 'picks') { c += ` picks slot ${w[i + 2]}`; i += 3; }
      // A start card's own card follows it.
      const then = cardWords(w[i] || '');
      if (then && !/^[a-h][1-8]/.test(w[i])) { c += `, then ${then}`; i += 1; }
    }
    const ms = moves();
    out.push([c, ms].filter(Boolean).join(': '));
  }
  if (w[i] === 'discard') out.push(`discards ${w.slice(i + 1).join(', ')}`);
  return out.filter(Boolean).join('; ') || act;
}

// ---- positions ---------------------------------------------------------------------------------

// The positions after each act, and why there are none where there are none. Only a
// board every piece of which both sides see can be drawn from the score; and only when
// the replay ends on the very board the node shows is it trusted.
export function positions(show, acts) {
  // Chex, Cardmate and Tempête: the positions the node gives (it runs every card's
  // effect, a physical card's stated one too), trusted only when they end on the board
  // it shows.
  if (show.steps) {
    const all = steps.read(show, acts.length);
    if (!all || !steps.samePieces(all[all.length - 1].grid, show.grid)) return { off: 'Stepping is off: the positions the node gave do not end on its board' };
    return { all };
  }
  return { off: 'Stepping is off: the node gave no earlier positions for this game' };
}

// ---- drawing -----------------------------------------------------------------------------------

// The move list; with positions, each act a button that shows its position, the one
// shown marked. A comment or tag that names a seat (a loss on time's `{seat 0 lost on
// time}`) names its player.
export function drawMoves(show, read, steps, shown, go) {
  if (!show.score && !read.rows.length) return null;
  const rows = read.rows.filter((r) => r.items.length || r.num);
  const item = (x) => {
    if (x.comment !== undefined) return h('span', { class: 'comment', text: ` {${seatsNamed(x.comment, show.players)}}` });
    const words = actWords(x.act);
    const current = shown === x.ply;
    const attrs = { class: 'act' + (current ? ' current' : ''), 'data-ply': x.ply, 'aria-current': current ? 'true' : null };
    return [' ', steps.all
      ? h('button', { ...attrs, type: 'button', 'data-focus': `act-${x.ply}`, title: `show the position after ${words}`, onclick: () => go(x.ply) }, words)
      : h('span', { ...attrs, text: words })];
  };
  return h('section', { class: 'moves', 'aria-labelledby': 'moves-title' },
    h('h2', { id: 'moves-title', text: 'Moves' }),
    rows.length ? h('ol', { class: 'movelist', id: 'score' }, rows.map((r) =>
      h('li', {}, r.num ? h('span', { class: 'num', text: r.num }) : null, r.items.map(item))))
      : h('p', { class: 'muted', id: 'score', text: 'no move yet' }),
    read.tags.length ? h('details', { class: 'tags' }, h('summary', { text: 'Game tags' }),
      h('dl', {}, read.tags.map(([k, v]) => [h('dt', { text: k }), h('dd', { text: seatsNamed(v, show.players) })]))) : null);
}

// The stepping buttons and the flip, above the board.
export function drawControls(steps, count, go, turn) {
  const off = steps.all ? null : steps.off;
  const at = V.at === null ? count : V.at;
  const b = (id, label, glyph, to, can) => h('button', {
    type: 'button', id, class: 'step', 'data-focus': id, 'aria-label': label, title: off || label,
    disabled: !steps.all || !can, onclick: () => go(to),
  }, h('span', { 'aria-hidden': 'true', text: glyph }));
  return h('div', { class: 'controls', role: 'group', 'aria-label': 'Moves and board' },
    // ⏮ and ⏭ are missing from DejaVu Sans (empty boxes): drawn from the arrows it has.
    b('step-first', 'First position', '|◀', 0, at > 0),
    b('step-back', 'Previous move', '◀', Math.max(0, at - 1), at > 0),
    b('step-next', 'Next move', '▶', Math.min(count, at + 1), at < count),
    b('step-last', 'Last move: the game as it stands', '▶|', null, at < count),
    h('button', { type: 'button', id: 'flip', class: 'step', 'data-focus': 'flip', 'aria-pressed': V.flip ? 'true' : 'false', title: 'Turn the board (key f)', onclick: turn }, 'Flip board'),
    off ? h('span', { class: 'muted step-off', id: 'step-off', text: off }) : null);
}

// What the page says while an earlier position is shown.
export function viewingNotice(read) {
  if (V.at === null) return null;
  const where = (() => {
    for (const r of read.rows) {
      const acts = r.items.filter((i) => i.act !== undefined);
      const k = acts.findIndex((i) => i.ply === V.at);
      // The row's number is White's; a later act of the row is written as Black's.
      const num = r.num && k > 0 && !r.num.endsWith('...') ? r.num.replace(/\.$/, '...') : r.num;
      if (k >= 0) return `${num ? `${num} ` : ''}${actWords(acts[k].act)}`;
    }
    return 'the start';
  })();
  return h('div', { class: 'viewing', id: 'viewing', role: 'status' },
    V.at === 0 ? 'viewing the start position — press End to return' : `viewing move ${where} — press End to return`,
    V.arrived ? h('div', { id: 'arrived', text: `A new move arrived: ${V.arrived}` }) : null);
}

// One side's row beside the board: the pieces it has taken (tokens as a grid gives
// them, `words` what a screen reader hears of each) and its lead in material where the
// game counts one. Every variant's row is drawn here, whatever found its pieces.
function takenRow(side, took, words, lead, card) {
  const said = took.length ? took.map(words).join(', ') : 'nothing';
  return h('div', { class: 'taken', id: `taken-${side.toLowerCase()}`, 'data-count': String(took.length), 'data-lead': String(Math.max(0, lead)) },
    h('span', { class: 'sr-only', text: `${side} has taken: ${said}${lead > 0 ? `; ${side} leads by ${lead}` : ''}` }),
    h('span', { 'aria-hidden': 'true' }, took.map((t) => h('span', {
      class: `piece-small side${t.side}${t.red ? ' red' : ''}${card ? ' card' : ''}`, title: t.name, text: t.glyph,
    })), lead > 0 ? h('span', { class: 'lead', text: ` +${lead}` }) : null));
}

// The pieces each side has lost, beside the board: the top side's row above it, the
// bottom side's below. Tempête's are read from the board shown, with the lead in
// material on the side that has it.
export function drawTaken(at, whiteBelow) {
  const m = chess.material(at);
  const row = (white) => takenRow(white ? 'White' : 'Black', (white ? m.black : m.white).map(chess.token),
    (t) => t.name.split(' ')[1], white ? m.lead : -m.lead, false);
  return { top: row(!whiteBelow), bottom: row(whiteBelow) };
}

// The same from the positions the node gives (Chex, Cardmate: steps.js), `lost` each
// seat's pieces lost by the position shown, `below` the seat whose side is below.
export function drawLost(show, lost, below) {
  const sides = (show.steps && show.steps.sides) || ['seat 0', 'seat 1'];
  const row = (seat) => takenRow(sides[seat] || `seat ${seat}`, lost[1 - seat] || [], (t) => t.name, 0, show.variant === 'cardmate');
  return { top: row(1 - below), bottom: row(below) };
}

// ---- keys ---------------------------------------------------------------------------------------

const typing = (t) => !!(t && t.closest && t.closest('input, textarea, select, [contenteditable]'));

// The page's keys, outside text fields: f turns the board; Left, Right, Home and End
// step through the moves — except on the board, where they walk its squares, but for
// End while an earlier position is shown (the page says "press End to return").
export function onKey(ev) {
  if (ev.altKey || ev.ctrlKey || ev.metaKey || typing(ev.target) || !V.redraw) return;
  const onBoard = !!(ev.target && ev.target.closest && ev.target.closest('#board'));
  let to;
  if (ev.key === 'f' || ev.key === 'F') {
    flip();
  } else if (ev.key === 'End' && V.at !== null) {
    to = null;
  } else if (onBoard || V.off !== null || !['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(ev.key)) {
    return;
  } else {
    const at = V.at === null ? V.count : V.at;
    to = { ArrowLeft: Math.max(0, at - 1), ArrowRight: at + 1, Home: 0, End: null }[ev.key];
    if (to !== null && to >= V.count) to = null;
  }
  ev.preventDefault();
  ev.stopPropagation();
  if (ev.key !== 'f' && ev.key !== 'F') {
    V.at = to;
    if (to === null) V.arrived = null;
  }
  V.redraw();
}
