// Plain chess in the page, for what the node's view does not spell out: whether a king
// stands attacked (check), the position after each move of a score (stepping back),
// and the material each side has lost. It reads only what this seat is shown — the
// grid's pieces and the score's moves — and is used only where every piece on the
// board is shown to both sides (Tempête); nothing it computes is sent anywhere.

const KINDS = { pawn: 'p', knight: 'n', bishop: 'b', rook: 'r', queen: 'q', king: 'k' };
export const WORDS = { p: 'pawn', n: 'knight', b: 'bishop', r: 'rook', q: 'queen', k: 'king' };
const FIGURINE = { k: 0x2654, q: 0x2655, r: 0x2656, b: 0x2657, n: 0x2658, p: 0x2659 };
export const VALUE = { p: 1, n: 3, b: 3, r: 5, q: 9, k: 0 };
const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR';

const sq = (f, r) => String.fromCharCode(97 + f) + String(r + 1);
const fileOf = (s) => s.charCodeAt(0) - 97;
const rankOf = (s) => Number(s.slice(1)) - 1;
const on = (f, r) => f >= 0 && f < 8 && r >= 0 && r < 8;
const isWhite = (p) => p === p.toUpperCase();

// A piece as the grid shows it (`White knight`), as a letter (`N`); null for anything
// that is not a chess piece (a card).
export function letter(piece) {
  const [colour, kind] = (piece.name || '').split(' ');
  const k = KINDS[kind];
  if (!k || (colour !== 'White' && colour !== 'Black')) return null;
  return colour === 'White' ? k.toUpperCase() : k;
}

// The grid's token for a letter, as the node draws it.
export function token(l) {
  const black = !isWhite(l);
  const k = l.toLowerCase();
  return { glyph: String.fromCodePoint(FIGURINE[k] + (black ? 6 : 0)), side: black ? 1 : 0, name: `${black ? 'Black' : 'White'} ${WORDS[k]}`, red: false };
}

export const glyph = (l) => token(l).glyph;

// The pieces of an 8×8 chess grid by square; null when the grid is not one.
export function fromGrid(grid) {
  if (!grid || grid.files.length !== 8 || grid.ranks.length !== 8) return null;
  const at = new Map();
  for (const c of grid.cells) {
    if (!/^[a-h][1-8]$/.test(c.square)) return null;
    if (!c.piece) continue;
    const l = letter(c.piece);
    if (!l) return null;
    at.set(c.square, l);
  }
  return at;
}

function startPosition() {
  const at = new Map();
  START.split('/').forEach((row, i) => {
    let f = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) f += Number(ch);
      else at.set(sq(f++, 7 - i), ch);
    }
  });
  return at;
}

const KNIGHT = [[1, 2], [2, 1], [-1, 2], [-2, 1], [1, -2], [2, -1], [-1, -2], [-2, -1]];
const KING = [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [1, -1], [-1, 1], [-1, -1]];
const ROOK = [[1, 0], [-1, 0], [0, 1], [0, -1]];
const BISHOP = [[1, 1], [1, -1], [-1, 1], [-1, -1]];

// Whether `s` is attacked by a piece of the side `white`.
export function attacked(at, s, white) {
  const f = fileOf(s);
  const r = rankOf(s);
  const mine = (p, k) => p && isWhite(p) === white && p.toLowerCase() === k;
  const dir = white ? -1 : 1; // an attacking pawn stands one rank behind, seen from it
  if ([-1, 1].some((df) => on(f + df, r + dir) && mine(at.get(sq(f + df, r + dir)), 'p'))) return true;
  if (KNIGHT.some(([df, dr]) => on(f + df, r + dr) && mine(at.get(sq(f + df, r + dr)), 'n'))) return true;
  if (KING.some(([df, dr]) => on(f + df, r + dr) && mine(at.get(sq(f + df, r + dr)), 'k'))) return true;
  const ray = (dirs, kinds) => dirs.some(([df, dr]) => {
    for (let x = f + df, y = r + dr; on(x, y); x += df, y += dr) {
      const p = at.get(sq(x, y));
      if (p) return isWhite(p) === white && kinds.includes(p.toLowerCase());
    }
    return false;
  });
  return ray(ROOK, 'rq') || ray(BISHOP, 'bq');
}

// The squares of the kings that stand attacked.
export function checks(at) {
  const out = [];
  for (const [s, p] of at) if (p.toLowerCase() === 'k' && attacked(at, s, !isWhite(p))) out.push(s);
  return out;
}

// ---- replaying a score's moves ---------------------------------------------------------------

function pseudo(st) {
  const out = [];
  const { at, white } = st;
  for (const [from, p] of at) {
    if (isWhite(p) !== white) continue;
    const f = fileOf(from);
    const r = rankOf(from);
    const k = p.toLowerCase();
    const add = (to) => {
      const q = at.get(to);
      // Kings are never taken (GAMES §4.3), nor one's own pieces.
      if (q && (isWhite(q) === white || q.toLowerCase() === 'k')) return false;
      if (k === 'p' && (to[1] === '8' || to[1] === '1')) for (const promo of 'qrbn') out.push({ from, to, k, promo });
      else out.push({ from, to, k });
      return !q;
    };
    if (k === 'p') {
      const d = white ? 1 : -1;
      if (on(f, r + d) && !at.has(sq(f, r + d))) {
        add(sq(f, r + d));
        if (r === (white ? 1 : 6) && !at.has(sq(f, r + 2 * d))) add(sq(f, r + 2 * d));
      }
      for (const df of [-1, 1]) {
        if (!on(f + df, r + d)) continue;
        const to = sq(f + df, r + d);
        const q = at.get(to);
        if (q && isWhite(q) !== white) add(to);
        else if (to === st.ep) out.push({ from, to, k, ep: true });
      }
    } else if (k === 'n' || k === 'k') {
      for (const [df, dr] of k === 'n' ? KNIGHT : KING) if (on(f + df, r + dr)) add(sq(f + df, r + dr));
    } else {
      const dirs = k === 'r' ? ROOK : k === 'b' ? BISHOP : ROOK.concat(BISHOP);
      for (const [df, dr] of dirs) {
        for (let x = f + df, y = r + dr; on(x, y); x += df, y += dr) if (!add(sq(x, y))) break;
      }
    }
  }
  // Castling from the standard start (Tempête starts there, GAMES §4.16).
  const home = white ? '1' : '8';
  const king = white ? 'K' : 'k';
  if (at.get(`e${home}`) === king && !attacked(at, `e${home}`, !white)) {
    for (const [side, rookAt, path, passes] of [['k', 'h', 'fg', 'fg'], ['q', 'a', 'dcb', 'dc']]) {
      if (!st.castle.has(white ? side.toUpperCase() : side) || at.get(`${rookAt}${home}`) !== (white ? 'R' : 'r')) continue;
      if ([...path].some((x) => at.has(`${x}${home}`))) continue;
      if ([...passes].some((x) => attacked(at, `${x}${home}`, !white))) continue;
      out.push({ from: `e${home}`, to: `${side === 'k' ? 'g' : 'c'}${home}`, k: 'k', castle: side });
    }
  }
  return out;
}

// Carries out a move on a copy of the state: the piece moves, what stood there goes, and
// castling, en passant and promotion do what chess says.
function play(st, m) {
  const at = new Map(st.at);
  const p = at.get(m.from);
  at.delete(m.from);
  if (m.ep) at.delete(m.to[0] + m.from[1]);
  at.set(m.to, m.promo ? (isWhite(p) ? m.promo.toUpperCase() : m.promo) : p);
  if (m.castle) {
    const home = m.from[1];
    const [rf, rt] = m.castle === 'k' ? ['h', 'f'] : ['a', 'd'];
    at.set(`${rt}${home}`, at.get(`${rf}${home}`));
    at.delete(`${rf}${home}`);
  }
  const castle = new Set([...st.castle].filter((c) => {
    const sqs = { K: ['e1', 'h1'], Q: ['e1', 'a1'], k: ['e8', 'h8'], q: ['e8', 'a8'] }[c];
    return !sqs.includes(m.from) && !sqs.includes(m.to);
  }));
  const double = p && p.toLowerCase() === 'p' && Math.abs(rankOf(m.to) - rankOf(m.from)) === 2;
  return { at, white: !st.white, castle, ep: double ? m.from[0] + String((rankOf(m.from) + rankOf(m.to)) / 2 + 1) : null };
}

function legal(st) {
  return pseudo(st).filter((m) => {
    const after = play(st, m);
    const king = [...after.at].find(([, p]) => p === (st.white ? 'K' : 'k'));
    return !king || !attacked(after.at, king[0], !st.white);
  });
}

// One move in SAN (`Nf3`, `exd6`, `O-O`, `e8=N+`): the state after it, or null when it
// names no single legal move.
function san(st, text) {
  const t = text.replace(/[+#!?]+$/, '').replace(/e\.p\.$/, '');
  const moves = legal(st);
  if (/^(O-O|0-0)$/.test(t)) return one(st, moves.filter((m) => m.castle === 'k'));
  if (/^(O-O-O|0-0-0)$/.test(t)) return one(st, moves.filter((m) => m.castle === 'q'));
  const m = t.match(/^([KQRBN])?([a-h])?([1-8])?x?([a-h][1-8])(?:=?([QRBN]))?$/);
  if (!m) return null;
  const kind = (m[1] || 'P').toLowerCase();
  return one(st, moves.filter((x) => x.k === kind && x.to === m[4] && (!m[2] || x.from[0] === m[2])
    && (!m[3] || x.from[1] === m[3]) && (x.promo || null) === (m[5] ? m[5].toLowerCase() : null)));
}

function one(st, moves) {
  return moves.length === 1 ? { state: play(st, moves[0]), squares: [moves[0].from, moves[0].to] } : null;
}

// A move that names both squares (`Ng1-f3`, `e7-e8=Q`, `g1f3`): a card's move is not
// chess, so it is carried out as written.
function lan(st, text) {
  const m = text.replace(/[+#!?]+$/, '').match(/^[KQRBN]?([a-h][1-8])[-x]?([a-h][1-8])(?:=?([QRBNqrbn]))?$/);
  if (!m || !st.at.has(m[1])) return null;
  const p = st.at.get(m[1]);
  const king = p.toLowerCase() === 'k' && m[1][0] === 'e' && (m[2] === `g${m[1][1]}` || m[2] === `c${m[1][1]}`);
  const castle = king && st.castle.has(isWhite(p) ? (m[2][0] === 'g' ? 'K' : 'Q') : (m[2][0] === 'g' ? 'k' : 'q')) ? (m[2][0] === 'g' ? 'k' : 'q') : null;
  return { state: play(st, { from: m[1], to: m[2], promo: m[3] ? m[3].toLowerCase() : null, castle }), squares: [m[1], m[2]] };
}

// One act of a Tempête score (GAMES §4.16): a plain move, or a card whose only effect
// is the moves it makes (`<21 Nb1-c3>`, `<18 Ng1-f3 Nf3-g5>`, a discard after them).
// Anything else — a card aimed at squares, a trap sprung, an interception and its
// answer, a yield — changes the board in ways this page does not know: null.
function act(st, text) {
  if (!text.startsWith('<')) return san(st, text);
  const words = text.slice(1, -1).trim().split(/\s+/);
  if (!/^\d+$/.test(words[0] || '')) return null;
  let moves = words.slice(1);
  const d = moves.indexOf('discard');
  if (d >= 0) moves = moves.slice(0, d);
  if (!moves.length) return null;
  let cur = { ...st, white: st.white };
  const squares = [];
  for (const [i, mv] of moves.entries()) {
    // Only the first move of a card play may be written in SAN (the writer's rule).
    const r = (i === 0 ? san({ ...cur, white: st.white }, mv) : null) || lan({ ...cur, white: st.white }, mv);
    if (!r) return null;
    cur = r.state;
    squares.push(...r.squares);
  }
  return { state: { ...cur, white: !st.white }, squares };
}

// The position before and after each act of `acts` (a score's acts, in order), as maps
// of pieces with the squares each act moved; null when some act cannot be replayed here.
export function replay(acts) {
  let st = { at: startPosition(), white: true, castle: new Set(['K', 'Q', 'k', 'q']), ep: null };
  const out = [{ at: st.at, squares: [] }];
  for (const a of acts) {
    const r = act(st, a);
    if (!r) return null;
    st = r.state;
    out.push({ at: st.at, squares: r.squares });
  }
  return out;
}

export const same = (a, b) => a.size === b.size && [...a].every(([s, p]) => b.get(s) === p);

// What each side has lost against the start (kings aside), and White's lead in
// material (pawn 1, knight and bishop 3, rook 5, queen 9).
export function material(at) {
  const start = { p: 8, n: 2, b: 2, r: 2, q: 1 };
  const count = (white) => {
    const n = { p: 0, n: 0, b: 0, r: 0, q: 0 };
    for (const p of at.values()) if (isWhite(p) === white && p.toLowerCase() in n) n[p.toLowerCase()] += 1;
    return n;
  };
  const lost = (white) => Object.keys(start).flatMap((k) => Array(Math.max(0, start[k] - count(white)[k])).fill(white ? k.toUpperCase() : k));
  const worth = (n) => Object.keys(n).reduce((s, k) => s + n[k] * VALUE[k], 0);
  return { white: lost(true), black: lost(false), lead: worth(count(true)) - worth(count(false)) };
}
