// Plain chess in the page, for what the node's view does not spell out: whether a king
// stands attacked (check) and the material each side has lost (the positions to step
// back through come from the node, steps.js). It reads only what this seat is shown — the
// grid's pieces and the score's moves — and is used only where every piece on the
// board is shown to both sides (Tempête); nothing it computes is sent anywhere.

const KINDS = { pawn: 'p', knight: 'n', bishop: 'b', rook: 'r', queen: 'q', king: 'k' };
export const WORDS = { p: 'pawn', n: 'knight', b: 'bishop', r: 'rook', q: 'queen', k: 'king' };
const FIGURINE = { k: 0x2654, q: 0x2655, r: 0x2656, b: 0x2657, n: 0x2658, p: 0x2659 };
export const VALUE = { p: 1, n: 3, b: 3, r: 5, q: 9, k: 0 };

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
