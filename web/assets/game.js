// One game's page: who plays, the result on top once there is one, the board with the
// last move marked, the act being built (board.js), the buttons, typing a move, the
// hand, the moves as a list, and the verdict `sealed verify` gives.
import { api, download, node } from './session.js';
import { h, people, replaceMain, seatsNamed } from './ui.js';
import { Q, resetAct, gameChoices, question, drawBoard, boardNote, drawQuestion, drawButtons, drawTyping } from './board.js';
import { invitationFacts, loadVariants } from './lists.js';
import * as phys from './physical.js';
import * as chess from './chess.js';
import * as mv from './moves.js';
import * as st from './steps.js';
import * as clk from './clocks.js';

// ---- building an act -------------------------------------------------------------------

function acts(show, redraw, send) {
  // Acts possible now: one left is chosen, else the question they raise is drawn.
  const start = (cands) => {
    Q.cands = cands;
    if (!question(Q.cands)) return choose(Q.cands[0]);
    return redraw('first-answer');
  };
  const choose = (c) => {
    if (Q.then) return send(Q.then.text.replace('{}', c.text));
    if (c.generic) return send({ generic: c.generic });
    if (!c.ask) return send(c.text);
    resetAct();
    if (c.ask.kind === 'play') Q.then = c;
    else Q.chosen = c;
    return redraw('first-answer');
  };
  return {
    start,
    answer: (o) => start(o.pick),
    cancel: () => { resetAct(); redraw(Q.focus ? `sq-${Q.focus}` : null); },
    toggleCard: (card, need) => {
      const i = Q.cards.indexOf(card);
      if (i >= 0) Q.cards.splice(i, 1); else if (Q.cards.length < need) Q.cards.push(card);
      redraw(Q.cards.length === need ? 'send-cards' : `card-${card}`);
    },
    square: (sq) => {
      const q = question(Q.cands);
      if (Q.chosen && Q.chosen.ask && Q.chosen.ask.kind === 'square') return send(Q.chosen.text.replace('{}', sq));
      if (q && q.kind === 'square') {
        const o = q.options.find((x) => x.square === sq);
        if (o) return start(o.pick);
        return undefined;
      }
      const choices = gameChoices(show);
      if (Q.sel) {
        const here = choices.filter((c) => c.from === Q.sel && c.to === sq);
        if (here.length) return start(here);
      }
      if (choices.some((c) => c.from === sq)) {
        Q.sel = Q.sel === sq ? null : sq;
        Q.cands = null;
        return redraw();
      }
      const onto = choices.filter((c) => c.from === null && c.to === sq);
      if (onto.length) return start(onto);
      Q.sel = null; Q.cands = null;
      return redraw();
    },
    // A piece dragged: the two clicks it stands for, from a piece that can move.
    drag: (from, to) => {
      if (Q.chosen || !gameChoices(show).some((c) => c.from === from)) return undefined;
      Q.sel = from;
      Q.cands = null;
      const here = gameChoices(show).filter((c) => c.from === from && c.to === to);
      if (here.length) return start(here);
      return redraw(`sq-${from}`);
    },
    send,
    down: !node.up,
  };
}

// ---- the parts of the page -------------------------------------------------------------

// The result, at the top of the page once the game is over.
function resultBanner(show, verdict) {
  if (!(show.phase === 'done' || show.result)) return null;
  const status = verdict ? verdict.status : null;
  return h('section', { class: 'result-banner' + (status && status !== 'verified' ? ' bad' : ''), id: 'result', role: 'status', 'aria-labelledby': 'result-title' },
    h('h2', { id: 'result-title', text: 'Game over' }),
    h('p', { class: 'result', text: show.result || clk.noResultWords(show) || 'no result: the game ended without one' }),
    status ? h('p', { class: 'muted', text: status === 'verified' ? 'verified: every envelope checks, as `sealed verify` finds' : `sealed verify finds: ${status}` }) : null);
}

// What the game waits for, a king in check, the clock, where one's last move is, a
// draw offer.
function statusBox(show, checked) {
  const over = show.phase === 'done';
  const waiting = over ? 'The game is over.' : show.waiting_for;
  return h('div', { class: 'status' + (show.my_turn ? ' turn' : ''), id: 'status' }, waiting,
    checked.length ? h('div', { class: 'check-words', id: 'check-status', text: checked.map((c) => `${c.side === show.side ? 'You are' : `${c.side} is`} in check (king on ${c.square})`).join('; ') }) : null,
    // The node's own line (whose time runs, by whose clock, the leave): the figures of
    // its last answer, which the clocks by the board count on from.
    show.clock && show.clock.text ? h('div', { class: 'muted', id: 'clock', text: `${show.clock.text} (your node, at ${clk.takenAt(show)})` }) : null,
    over ? null : clk.drawPeriod(show),
    // Before the first act, what went out is the setup, which the node confirms by
    // itself. The delivery is of this seat's last envelope, which is no move of his
    // while he has not moved (Black after White's first): said as what he sent.
    show.delivery && show.ply > 0 && !over ? h('div', { class: 'muted', id: 'delivery', text: `what you last sent: ${show.delivery}` }) : null,
    // What the witness has not dated can lose the player his game on time.
    show.witness_refused && !over ? h('div', { role: 'alert', id: 'witness-refused', text: `The witness refused your last envelopes (${show.witness_refused}): it has not dated them, so a wait they end is not over in its record.` }) : null,
    show.draw_offered ? h('div', { text: 'Your opponent offers a draw.' }) : null);
}

function drawHand(show, then) {
  const hand = show.hand;
  if (!hand) return null;
  const out = [];
  if (show.variant === 'tempete') {
    const cards = hand.cards || [];
    if (cards.length) {
      out.push(h('h2', { text: 'Your hand' }), h('div', { class: 'hand' }, cards.map((c) =>
        h('div', { class: 'card-face', 'data-card': c.card },
          h('div', {}, h('span', { class: 'num', text: `${c.card} ` }), c.name, c.taken ? ' (taken)' : ''),
          h('div', { class: 'meta', text: `${c.timing} · ${c.effect}` }), h('div', { text: c.text })))));
    } else if (show.phase === 'terms' || show.phase === 'commit') {
      out.push(h('p', { class: 'muted', text: 'Your cards are dealt once the game starts.' }));
    }
    if (hand.sizes) out.push(h('p', { class: 'muted', text: `cards in hand: White ${hand.sizes[0]}, Black ${hand.sizes[1]}` }));
  } else if (show.variant === 'chex' && hand.stacks) {
    // While an earlier position is shown, the stacks as they stood then.
    const s = then || { white: hand.stacks.white.text, black: hand.stacks.black.text };
    out.push(h('h2', { text: then ? 'Stacks at the position shown' : 'Stacks' }), h('p', { id: 'stacks' }, `White: ${s.white}`, h('br'), `Black: ${s.black}`));
    if (hand.drawn && !then) out.push(h('p', { class: 'status turn', text: `You drew a ${hand.drawn}: choose a highlighted square to place it` }));
  } else if (show.variant === 'stallmate' || show.variant === 'stallmate-duo') {
    if (hand.army) out.push(h('p', { text: `Your army: ${hand.army}` }));
    if (hand.attempts && hand.attempts.length) {
      out.push(h('h2', { text: 'Your attempts this period' }), h('ul', { id: 'attempts' }, hand.attempts.map((a) => h('li', { text: `${a.attempt}: ${a.answer}` }))));
    }
    if (hand.heard && hand.heard.length) {
      out.push(h('h2', { text: 'Heard' }), h('ul', { id: 'heard' }, hand.heard.slice().reverse().map((p) =>
        h('li', { text: `period ${p.period}: ${p.words.length ? p.words.join(', ') : 'nothing'}` }))));
    }
  } else if (show.variant === 'duel' && hand.cards && hand.cards.length) {
    out.push(h('h2', { text: 'Your hand' }), h('p', { text: hand.cards.map((c) => c.card).join(' ') }));
  }
  return out;
}

function drawVerdict(show, v, fail) {
  if (!v) return null;
  const verdict = v.verdict || {};
  const outcome = verdict.outcome ? (verdict.outcome.reason ? seatsNamed(verdict.outcome.reason, show.players) : JSON.stringify(verdict.outcome)) : 'none yet';
  const lines = [['status', v.status], ['result', show.result || (verdict.outcome ? outcome : clk.noResultWords(show) || outcome)], ['complete', verdict.complete ? 'yes' : 'no'],
    ['verified', verdict.verified ? 'yes' : 'no'], ['envelopes', verdict.envelopes], ['exit', `${v.exit}`]];
  // The seats the verdict numbers, named as everywhere else on the board.
  const named = (text) => seatsNamed(text, show.players);
  const faults = (verdict.faults || []).map((f) => named(`seat ${f.seat}: ${f.kind}: ${f.detail}`));
  const claims = (verdict.claims || []).filter((c) => c.open).map((c) => named(`${c.about} against seat ${c.against}: ${c.evidence}`));
  const base = `/api/games/${show.game}/download`;
  const get = (what, label) => h('button', { type: 'button', class: 'link', onclick: () => download(`${base}/${what}`).catch(fail) }, label);
  return h('section', { 'aria-labelledby': 'verdict-title' }, h('h2', { id: 'verdict-title', text: 'Verdict (as sealed verify gives it)' }),
    h('dl', { class: 'verdict' + (v.exit === 0 ? '' : ' bad'), id: 'verdict', 'data-status': v.status },
      lines.map(([k, val]) => [h('dt', { text: k }), h('dd', { text: String(val) })]),
      faults.length ? [h('dt', { text: 'faults' }), h('dd', {}, faults.join('; '))] : null,
      claims.length ? [h('dt', { text: 'open claims' }), h('dd', {}, claims.join('; '))] : null),
    h('p', { class: 'downloads' }, 'Download: ',
      get('transcript', 'transcript'), get('score', 'score'),
      show.grid && show.variant !== 'cardmate' && show.variant !== 'chex' ? get('pgn', 'PGN') : null,
      show.variant !== 'duel' && !show.variant.startsWith('stallmate') ? get('svg', 'SVG') : null));
}

// ---- check -------------------------------------------------------------------------------

// The kings in check on the board shown, each with its side. Tempête's board shows
// every piece to both sides, so check is read from it; Secret Stallmate's shows only
// one's own army, so only the referee's words heard after the opponent's move say it
// (GAMES §5.5), and only for the game as it stands. Chex and Cardmate have no check.
function checked(show, grid, live) {
  if (!grid) return [];
  const sideAt = (s) => {
    const c = grid.cells.find((x) => x.square === s);
    return c && c.piece ? c.piece.name.split(' ')[0] : null;
  };
  if (show.variant === 'tempete') {
    const at = chess.fromGrid(grid);
    return at ? chess.checks(at).map((s) => ({ square: s, side: sideAt(s) })) : [];
  }
  if (show.variant.startsWith('stallmate') && live && show.my_turn && show.phase === 'play' && show.side) {
    const heard = (show.hand && show.hand.heard) || [];
    const last = heard.length ? heard[heard.length - 1].words : [];
    if (!last.some((w) => /^check/.test(w))) return [];
    const king = grid.cells.find((c) => c.piece && c.piece.name === `${show.side} king`);
    return king ? [{ square: king.square, side: show.side }] : [];
  }
  return [];
}

// ---- the page --------------------------------------------------------------------------

// The opponent's last act in words, for a screen reader's announcement.
export function lastActWords(show) {
  const acts = mv.readMoves(show).acts;
  return acts.length ? mv.actWords(acts[acts.length - 1]) : null;
}

export async function drawGame(show, ctx) {
  clk.took(show);
  const over = show.phase === 'done' || (show.verdict && show.verdict.outcome);
  let verdict = null;
  if (over) {
    try { verdict = await api(`/api/games/${show.game}/verify`); } catch (e) { verdict = null; }
  }
  const invited = show.phase === 'terms' && show.my_turn;
  if (invited) await loadVariants().catch(() => null);
  phys.sync(show);
  const redraw = (focus) => drawGame(show, { ...ctx, focus });
  const a = acts(show, redraw, ctx.send);
  // Stepping: the acts of the score, the positions after each where the page can draw
  // them, and the one shown (V.at; null is the game as it stands). A new act that
  // arrives while the player looks back is said, not shown.
  mv.enter(show);
  const read = mv.readMoves(show);
  const steps = mv.positions(show, read.acts);
  const count = read.acts.length;
  if (!steps.all || (mv.V.at !== null && mv.V.at >= count)) { mv.V.at = null; mv.V.arrived = null; }
  if (mv.V.at !== null && mv.V.count < count) mv.V.arrived = mv.actWords(read.acts[count - 1]);
  Object.assign(mv.V, { count, off: steps.all ? null : steps.off, redraw });
  const viewing = mv.V.at !== null;
  const go = (to) => {
    mv.V.at = to === null || to >= count ? null : to;
    if (mv.V.at === null) mv.V.arrived = null;
    resetAct();
    redraw();
  };
  const turn = () => { mv.flip(); redraw('flip'); };
  // Stating a physical card's effect: the board shows the position after the edits
  // and takes edits, not moves.
  const editing = phys.editing() && !viewing;
  if (editing || viewing) resetAct();
  const q = editing || viewing ? null : question(Q.cands);
  const step = viewing ? steps.all[mv.V.at] : null;
  const shown = viewing ? { ...show, grid: step.grid, last: step.squares, choices: [] } : show;
  const kings = checked(show, shown.grid, !viewing);
  // The grid's note goes below the pieces lost and the clock, which stay by the board.
  const look = { flip: mv.V.flip, check: new Set(kings.map((k) => k.square)), note: false };
  // While an earlier position is shown, a click on the board does nothing.
  const still = { square: () => {}, drag: null, down: a.down };
  const boardBox = editing ? drawBoard(phys.preview(show), null, phys.boardCtx(show, redraw, a.down), look)
    : drawBoard(shown, q, viewing ? still : a, look);
  // The pieces lost, where both sides' pieces are all on the board: Tempête's read
  // from it, Chex's and Cardmate's from the positions the node gives.
  const at = show.variant === 'tempete' && shown.grid ? chess.fromGrid(shown.grid) : null;
  const lostAt = steps.all && steps.all[0].lost ? (step || steps.all[steps.all.length - 1]) : null;
  // A referee (seat 2) sees White below, as a player of White does.
  const mine = show.seat > 1 ? 0 : show.seat;
  const below = mv.V.flip ? 1 - mine : mine;
  const taken = at ? mv.drawTaken(at, (show.side !== 'Black') !== mv.V.flip)
    : lostAt ? mv.drawLost(show, lostAt.lost, below) : null;
  // Chex's stacks as they stood at the position shown.
  const stacks = step && step.lost ? st.stacksAt(show, steps.all[steps.all.length - 1], step) : null;
  // The clocks by each side of the board, as it is turned (in a column of their own
  // when the game has no board).
  const clocks = clk.drawClocks(show, mv.V.flip);
  const board = boardBox ? h('div', { class: 'board-col' }, mv.drawControls(steps, count, go, turn),
    clocks ? clocks.top : null, taken ? taken.top : null, boardBox, taken ? taken.bottom : null, clocks ? clocks.bottom : null,
    boardNote(shown.grid)) : null;
  const pctx = { post: ctx.post, fail: ctx.fail, down: a.down };
  const head = h('div', { class: 'head' },
    h('h1', { text: `${show.variant} · game ${show.game.slice(0, 8)}` }),
    h('p', { class: 'players' }, people(show.players), show.side ? h('span', { class: 'muted', text: ` · you play ${show.side}` }) : null),
    show.options && show.options.length && !invited ? h('p', { class: 'muted', text: `options: ${show.options.join(' ')}` }) : null);
  const side = h('div', { class: 'side' },
    !boardBox && clocks ? h('div', { class: 'clocks' }, clocks.top, clocks.bottom) : null,
    statusBox(show, kings),
    mv.viewingNotice(read),
    invited ? invitationFacts(show) : null,
    // The opponent's claims come before one's own act, which accepts them.
    phys.drawClaims(show, pctx, redraw),
    viewing ? null : editing ? phys.drawEdit(show, pctx, redraw) : [drawQuestion(show, q, a), drawButtons(show, a), drawTyping(show, a)],
    drawHand(show, stacks),
    mv.drawMoves(show, read, steps, viewing ? mv.V.at : count, go),
    !board && show.board && !invited ? h('pre', { class: 'score', text: show.board }) : null,
    drawVerdict(show, verdict, ctx.fail));
  const page = h('div', {
    id: 'game', 'data-game': show.game, 'data-ply': show.ply, 'data-phase': show.phase,
    'data-my-turn': show.my_turn ? 'yes' : 'no', 'data-variant': show.variant, 'data-node': node.up ? 'up' : 'down',
    'data-viewing': viewing ? String(mv.V.at) : null,
  }, head, resultBanner(show, verdict), h('div', { class: 'game' }, board, side));
  if (!ctx.current(show.game)) return;
  // The keyboard's fallback: the square it was on, else where the last move went.
  const lastTo = (show.last || [])[(show.last || []).length - 1];
  replaceMain(page, ctx.focus, Q.focus ? `sq-${Q.focus}` : lastTo ? `sq-${lastTo}` : null);
  ctx.drawn(show);
}
