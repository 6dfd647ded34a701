// The positions the node gives for a game this page cannot replay itself (Chex, whose
// board grows and renames its squares; Cardmate, whose pieces are cards; Tempête, whose
// cards move pieces as the rules of no chess program do, a physical card's effect stated
// in words): the view's
// `steps`, written by the game's own rules (games/src/table/steps.rs says the
// encoding), read back here into grids the board draws, with the pieces each side has
// lost by then. Nothing is computed from the rules here.
// The letters that name a piece, as steps.rs lists them; digits count empty cells.
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&*+-=?@^_~';
const SHADES = { l: 'light', d: 'dark', p: 'palace' };

// A chequer (`d~`, `l~`: the top left cell's shade) as a letter a cell.
function chequer(shades, w, rows) {
  const m = shades.match(/^([dl])~$/);
  if (!m) return shades;
  const other = m[1] === 'd' ? 'l' : 'd';
  return Array.from({ length: w * rows }, (_, i) => ((Math.floor(i / w) + (i % w)) % 2 === 0 ? m[1] : other)).join('');
}

const token = (steps, ch) => steps.tokens[ALPHABET.indexOf(ch)] || null;

// The start and the position after each of `count` acts, each as a grid (the current
// grid's divides and note kept), the squares its act moved and what each seat had lost
// by then; null when the steps do not read as one position an act.
export function read(show, count) {
  const st = show.steps;
  if (!st || !show.grid || !Array.isArray(st.positions) || st.positions.length !== count + 1) return null;
  let files = null;
  let ranks = null;
  let shades = null;
  let raw = null;
  const lost = [[], []];
  const out = [];
  for (const p of st.positions) {
    files = p.files || files;
    ranks = p.ranks || ranks;
    // A chequer is kept as written: it is the same however many cells the box has.
    raw = p.shades || raw;
    shades = raw && files && ranks ? chequer(raw, files.length, ranks.length) : null;
    if (!files || !ranks || !shades || shades.length !== files.length * ranks.length) return null;
    let pieces = [];
    if (typeof p.pieces === 'string') {
      for (const m of p.pieces.matchAll(/(\d+)|(\D)/g)) {
        if (m[1]) pieces.push(...Array(Number(m[1])).fill(null));
        else {
          const t = token(st, m[2]);
          if (!t) return null;
          pieces.push(t);
        }
      }
    } else {
      // The cells the act changed, on the board before.
      if (!out.length) return null;
      pieces = out[out.length - 1].grid.cells.map((c) => c.piece);
      for (const m of (p.changed || '').matchAll(/(\d+)(\D)/g)) {
        const i = Number(m[1]);
        const t = m[2] === '.' ? null : token(st, m[2]);
        if (i >= pieces.length || (m[2] !== '.' && !t)) return null;
        pieces[i] = t;
      }
    }
    if (pieces.length !== shades.length) return null;
    for (const ch of p.took || '') {
      const t = token(st, ch);
      if (t && lost[t.side]) lost[t.side].push(t);
    }
    const w = files.length;
    const cells = pieces.map((piece, i) => ({
      square: files[i % w] + ranks[Math.floor(i / w)], shade: SHADES[shades[i]] || 'light', piece, marks: [],
    }));
    out.push({ grid: { ...show.grid, files, ranks, cells }, squares: p.last || [], lost: [lost[0].slice(), lost[1].slice()] });
  }
  return out;
}

// Whether two grids hold the same pieces on the same squares.
export function samePieces(a, b) {
  if (!a || !b || a.cells.length !== b.cells.length) return false;
  return a.cells.every((c, i) => {
    const d = b.cells[i];
    return c.square === d.square && (c.piece ? c.piece.name : null) === (d.piece ? d.piece.name : null);
  });
}

// Chex's stacks at a step: today's counts (K Q R B N P) with the pieces placed since
// put back, a piece in play being one on the board or lost.
const KINDS = ['king', 'queen', 'rook', 'bishop', 'knight', 'pawn'];
const LETTERS = ['K', 'Q', 'R', 'B', 'N', 'P'];

export function stacksAt(show, now, then) {
  const stacks = show.hand && show.hand.stacks;
  if (!stacks) return null;
  const inPlay = (s, colour) => {
    const n = KINDS.map(() => 0);
    const count = (t) => {
      const [c, kind] = t.name.split(' ');
      const k = KINDS.indexOf((kind || '').toLowerCase());
      if (c === colour && k >= 0) n[k] += 1;
    };
    s.grid.cells.forEach((c) => c.piece && count(c.piece));
    s.lost.flat().forEach(count);
    return n;
  };
  const text = (colour) => {
    const today = (stacks[colour.toLowerCase()] || {}).counts || [];
    const a = inPlay(now, colour);
    const b = inPlay(then, colour);
    const left = KINDS.map((_, k) => (today[k] || 0) + a[k] - b[k]);
    const parts = left.map((n, k) => (n > 0 ? `${LETTERS[k]}${n > 1 ? n : ''}` : null)).filter(Boolean);
    return parts.length ? parts.join(' ') : 'empty';
  };
  return { white: text('White'), black: text('Black') };
}
