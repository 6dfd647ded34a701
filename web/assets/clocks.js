// The players' clocks beside the board, Secret Stallmate's period closing, and the
// words of a game that ended on time with no proven result.
//
// The node's view carries the clocks (`clock`: core/src/clock.rs `Clocks`) as they
// stand when it answered: what each seat was charged, its moves, its leave left, and
// for the seat awaited the time left before it is overdue. The node never pushes a
// change while a player thinks, so the page counts down the awaited seat's time itself,
// from those figures and its own clock, and takes the node's figures again at each
// refresh. The other seat's time does not run: it is what he will have at his turn,
// from the terms (`time-per-move` and `time-leave`, or `time-moves` in `time-period`).
import { h } from './ui.js';

const UNITS = { ms: 1, s: 1000, m: 60000, h: 3600000, d: 86400000 };

// `30s`, `10m`, `24h`, `3d` (and Stallmate's `500ms`) in milliseconds, or null.
export function duration(text) {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text || '');
  return m ? Number(m[1]) * UNITS[m[2]] : null;
}

const option = (show, key) => {
  const o = (show.options || []).find((x) => x.startsWith(`${key}=`));
  return o ? o.slice(key.length + 1) : null;
};

// The time control the terms agree, as protocol/src/time.rs reads it.
function control(show) {
  const leave = duration(option(show, 'time-leave')) || 0;
  const perMove = duration(option(show, 'time-per-move'));
  if (perMove) return { perMove, leave, full: perMove + leave };
  const moves = Number(option(show, 'time-moves'));
  const period = duration(option(show, 'time-period'));
  if (moves > 0 && period) return { moves, period, leave, full: period + leave };
  return null;
}

// What a seat not awaited will have when his turn comes (`TimeControl::allowance`).
function allowance(tc, seat) {
  if (tc.perMove) return tc.perMove + seat.leave_left_ms;
  return Math.max(0, (Math.floor(seat.moves / tc.moves) + 1) * tc.period + tc.leave - seat.charged_ms);
}

const pad = (n) => String(n).padStart(2, '0');

// A clock's face: mm:ss, h:mm:ss from an hour, days and hh:mm from a day (a
// correspondence control's seconds say nothing).
export function face(ms) {
  const s = Math.ceil(Math.max(0, ms) / 1000);
  const d = Math.floor(s / 86400);
  const hr = Math.floor(s / 3600) % 24;
  const min = Math.floor(s / 60) % 60;
  if (d > 0) return `${d}d ${pad(hr)}:${pad(min)}`;
  if (hr > 0) return `${hr}:${pad(min)}:${pad(s % 60)}`;
  return `${pad(min)}:${pad(s % 60)}`;
}

// The same in words, for a screen reader: the two largest units.
export function words(ms) {
  const s = Math.ceil(Math.max(0, ms) / 1000);
  const parts = [[Math.floor(s / 86400), 'day'], [Math.floor(s / 3600) % 24, 'hour'], [Math.floor(s / 60) % 60, 'minute'], [s % 60, 'second']];
  const first = parts.findIndex(([n]) => n > 0);
  if (first < 0) return '0 seconds';
  return parts.slice(first, first + 2).filter(([n]) => n > 0).map(([n, u]) => `${n} ${u}${n === 1 ? '' : 's'}`).join(' ');
}

// ---- counting down -------------------------------------------------------------------------

// When the page took each view from the node (its own clock, which no change of the
// computer's time moves): a redraw of the same view (a click, the flip) counts on
// from then, a new view starts again from the node's figures.
const taken = new WeakMap();
export function took(show) {
  if (!taken.has(show)) taken.set(show, performance.now());
  return taken.get(show);
}

// The time of day the page took the view, as a person reads it.
export function takenAt(show) {
  const d = new Date(Date.now() - (performance.now() - took(show)));
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

// What ticks on the page now: each a function that updates its element.
let ticking = [];
setInterval(() => { for (const t of ticking) t(); }, 250);

// ---- the clocks ------------------------------------------------------------------------------

// The players' clocks as the board shows them: `top` and `bottom`, the player's own at
// the bottom (seat 0's for a page of no player's), the other way round when the board
// is turned; null when the game has no clock now (no time control, or it is over).
export function drawClocks(show, flipped) {
  const c = show.clock;
  const tc = c && control(show);
  ticking = [];
  if (!c || !tc || !Array.isArray(c.seats)) return null;
  const players = (show.players || []).filter((p) => p.role === 'player');
  if (players.length !== 2) return null;
  const mine = players.find((p) => p.you) || players[0];
  const other = players.find((p) => p !== mine);
  const at = took(show);
  const one = (p, place) => {
    const seat = c.seats.find((s) => s.seat === p.seat);
    if (!seat) return null;
    const running = c.owing === p.seat;
    const name = p.name || `seat ${p.seat}`;
    const left = () => (running ? c.left_ms - (performance.now() - at) : allowance(tc, seat));
    const time = h('span', { class: 'clock-time', 'aria-hidden': 'true' });
    const leave = c.reserve ? h('span', { class: 'clock-leave', 'aria-hidden': 'true' }) : null;
    const el = h('div', { class: `clock ${place}`, id: `clock-${p.seat}`, role: 'timer', 'data-seat': p.seat, 'data-place': place, 'data-running': running ? 'yes' : 'no' },
      h('span', { class: 'clock-name', 'aria-hidden': 'true', text: `${name}${p.you ? ' (you)' : ''}` }), time, leave);
    const update = () => {
      const ms = Math.max(0, Math.round(left()));
      const overdue = running && (ms <= 0 || c.overdue);
      const low = !overdue && (ms < 20000 || ms < tc.full / 10);
      el.className = `clock ${place}${running ? ' running' : ''}${low ? ' low' : ''}${overdue ? ' overdue' : ''}`;
      el.dataset.left = String(ms);
      time.textContent = overdue ? 'overdue' : face(ms);
      if (leave) leave.textContent = `leave ${words(seat.leave_left_ms)}`;
      // Its name says it all at once; as a timer it is no live region (a screen reader
      // is not told every second, only when it comes to it).
      el.setAttribute('aria-label', `${name}${p.you ? ' (you)' : ''}, ${overdue ? 'overdue' : `${words(ms)} left`}`
        + `${running && !overdue ? ', running' : ''}${leave ? `; leave ${words(seat.leave_left_ms)}` : ''}`);
    };
    update();
    if (running) ticking.push(update);
    return el;
  };
  const bottom = flipped ? other : mine;
  const top = flipped ? mine : other;
  return { top: one(top, 'top'), bottom: one(bottom, 'bottom') };
}

// ---- Secret Stallmate's period -----------------------------------------------------------

const periodKey = (game, n) => `sealed-period:${game}:${n}`;

// When the running period closes. The game's view says when that is
// (`hand.period_ends_ms`: the referee's clock reading of the period's start plus its
// length) and the board's server adds its node's clock as it answered
// (`hand.node_now_ms`): the page counts down their difference from when it took the
// view, as the players' clocks do, so neither its own clock nor when it was opened
// moves it. Without them (a node of before) it counts from when it first saw the
// period, kept in the tab: the period cannot close later than that, only sooner.
function periodLeft(show, n, length) {
  const hand = show.hand || {};
  const ends = Number(hand.period_ends_ms);
  const now = Number(hand.node_now_ms);
  if (ends > 0 && now > 0) {
    const at = took(show);
    return { exact: true, left: () => ends - now - (performance.now() - at) };
  }
  let seen = Date.now();
  try {
    const kept = Number(sessionStorage.getItem(periodKey(show.game, n)));
    if (kept > 0 && kept <= seen) seen = kept;
    else sessionStorage.setItem(periodKey(show.game, n), String(seen));
  } catch (e) { /* a tab without storage counts from this drawing */ }
  return { exact: false, left: () => seen + length - Date.now() };
}

export function drawPeriod(show) {
  if (show.variant !== 'stallmate' || show.phase !== 'play') return null;
  const m = /\bperiod (\d+)/.exec(show.waiting_for || '');
  if (!m) return null;
  const n = m[1];
  const length = duration(option(show, 'period')) || 24 * 3600000;
  const { exact, left: leftNow } = periodLeft(show, n, length);
  const within = exact ? 'closes in' : 'closes in at most';
  const time = h('span', { class: 'clock-time', 'aria-hidden': 'true' });
  const el = h('div', { class: 'period', id: 'period', role: 'timer', 'data-period': n, 'data-exact': exact ? 'yes' : 'no' },
    h('span', { 'aria-hidden': 'true', text: `Period ${n} (${option(show, 'period') || '24h'}) ${within} ` }), time,
    h('div', { class: 'about', text: exact ? 'by the referee’s clock, which closes it' : 'counted from when this page saw it begin; the referee closes it by his clock' }));
  const update = () => {
    const left = Math.max(0, Math.round(leftNow()));
    el.dataset.left = String(left);
    el.classList.toggle('low', left < 20000 || left < length / 10);
    time.textContent = left > 0 ? face(left) : '00:00 — the referee closes it now';
    el.setAttribute('aria-label', left > 0 ? `period ${n} ${within} ${words(left)}` : `period ${n} is over: the referee closes it now`);
  };
  update();
  ticking.push(update);
  return el;
}

// ---- a game over with no result --------------------------------------------------------------

// What a game that ended with no result did end by, when it was time: a Secret Stallmate
// period that passed without a move (the score's `end forfeit by white`: the referee's
// word, which only a witness's times prove), or a timeout claimed and not proven.
export function noResultWords(show) {
  const players = (show.players || []).filter((p) => p.role === 'player');
  const named = (seat) => {
    const p = players.find((x) => x.seat === seat);
    return p && p.name ? p.name : `seat ${seat}`;
  };
  const witness = (show.helpers || []).some((x) => x.role === 'witness');
  const unproven = witness ? 'the witness’s times did not prove it' : 'no witness was agreed to prove it';
  const m = /\bend forfeit by (white|black)\b/i.exec(show.score || '');
  if (m) {
    const side = m[1][0].toUpperCase() + m[1].slice(1);
    const seat = side === 'White' ? 0 : 1;
    return `${side} (${named(seat)}) forfeited on time: the period ended without a move. No result is proven: it is the referee’s word, and ${unproven}.`;
  }
  const claims = ((show.verdict || {}).claims || []).filter((c) => c.open && c.about === 'timeout');
  if (claims.length) {
    const late = [...new Set(claims.map((c) => named(c.against)))].join(' and ');
    return `${late} let the time pass: a claim of time, not a proven result (${unproven}).`;
  }
  return null;
}
