//! The chain of circuits against today's one-shot circuit and the referee
//! (docs/design/circuits-as-data.md, step 2): random games of Secret Stallmate, and at
//! every attempt the chain (`sealed_mpc::chain`) as the files under `spec/circuits/` hold
//! it (`Chain::from_files`), evaluated in the clear circuit by circuit and composed into
//! one circuit (`chain::compose`, what play garbles), on the same bits
//! as `kept`'s circuit of the attempt's shape, must give exactly its output bits, and
//! those must tell the mover the referee's answer and the other what he hears. The
//! state (`Fixed`, the windows' keys) is carried from one attempt's outputs to the next
//! as the players carry it, the start computed by the start's circuit.
//!
//! Random games seldom reach the sizes where a block of the chain ends, so a second pass
//! puts the chain on made-up states of the edge sizes (earlier attempts 0, 4, 5, 8 with
//! windows 0, 8, 9, 16; each flag on and off, both movers) on positions of a real game:
//! windows holding the position after the move once, twice or not at all, in one block
//! or across two, with and without its en passant flag; earlier attempts mixing "Any?",
//! pawn captures, repeats of the attempt. There only the two circuits are compared.
//!
//! `SEALED_MPC_GAMES` sets how many random games (2 by default), `SEALED_MPC_PLIES`
//! their length (16): the long run of the design is `SEALED_MPC_GAMES=1000
//! SEALED_MPC_PLIES=60`. Compiling the one-shot circuit's shapes is most of the time (two
//! seconds a shape, 17 shapes by default: games of 24 plies would meet 32 and take more
//! than the minute a default test may).
//!
//! Over 600 lines: one harness drives the games through the referee and both circuits,
//! and the edge pass's made-up states are built beside it from the same game.

mod common;

use std::collections::HashMap;

use common::answers::{expected, expected_heard};
use common::{Rng, attempt_item, from_item};
use garble_lang::GarbleProgram;
use garble_lang::circuit::PANIC_RESULT_SIZE_IN_BITS as PANIC;
use sealed_games::chess::{Kind, Move, Position, Square};
use sealed_games::stallmate::{Answer as RefAnswer, Attempt, Options, Referee, Setup, heard};
use sealed_mpc::chain::compose::compose;
use sealed_mpc::chain::{ANSWER_BITS, Chain, Flags, Inputs, item_bits};
use sealed_mpc::inputs::{ANY, Answer, fresh_literal, items_literal};
use sealed_mpc::kept::{self, ITEM_BITS, KEY_BITS, KeptShape, NEVER_ITEM};

/// Where the key after the move starts in the one-shot circuit's outputs, then `Fixed`.
const KEY_AT: usize = PANIC + 1 + 2 * ANSWER_BITS;
const FIXED_AT: usize = KEY_AT + KEY_BITS;
/// One-shot shapes kept compiled at once: a long run meets hundreds, of a few MB each.
const KEEP: usize = 128;

/// The one-shot circuits: the start, and attempts by shape, the least recently used
/// dropped beyond [`KEEP`].
struct Programs {
    start: GarbleProgram,
    shapes: HashMap<KeptShape, (GarbleProgram, u64)>,
    clock: u64,
    compiled: usize,
    compiling: std::time::Duration,
}

impl Programs {
    fn new() -> Programs {
        let start = kept::compile_source(&kept::start_source()).expect("the start compiles");
        Programs {
            start,
            shapes: HashMap::new(),
            clock: 0,
            compiled: 0,
            compiling: std::time::Duration::ZERO,
        }
    }

    fn shape(&mut self, s: KeptShape) -> &GarbleProgram {
        self.clock += 1;
        if !self.shapes.contains_key(&s) {
            if self.shapes.len() >= KEEP {
                let oldest = self.shapes.iter().min_by_key(|(_, (_, t))| *t);
                if let Some(k) = oldest.map(|(k, _)| *k) {
                    self.shapes.remove(&k);
                }
            }
            let t = std::time::Instant::now();
            let prg = kept::compile(&s).unwrap_or_else(|e| panic!("{s:?}: {e}"));
            self.compiling += t.elapsed();
            self.compiled += 1;
            self.shapes.insert(s, (prg, 0));
        }
        let entry = self.shapes.get_mut(&s).expect("inserted above");
        entry.1 = self.clock;
        &entry.0
    }
}

/// What was compared, and how often the chain or the circuit disagreed.
#[derive(Default, Debug)]
struct Tally {
    attempts: usize,
    made: usize,
    edges: usize,
    chain_differs: usize,
    referee_differs: usize,
}

/// The state both players carry, in the clear.
struct State {
    fixed: Vec<bool>,
    windows: [Vec<Vec<bool>>; 2],
    earlier: Vec<u16>,
    moves: [u32; 2],
}

struct Game {
    referee: Referee,
    state: State,
}

/// An attempt's inputs to both computations.
struct Bits {
    shape: KeptShape,
    window: Vec<Vec<bool>>,
    earlier: Vec<u16>,
    white: Vec<bool>,
    black: Vec<bool>,
}

fn random_pad(rng: &mut Rng) -> Answer {
    Answer::from_bytes(rng.bytes())
}

fn new_game(progs: &Programs, rng: &mut Rng, white: u16, black: u16, options: Options) -> Game {
    let (ws, bs) = (Setup::new(white).unwrap(), Setup::new(black).unwrap());
    let rank = |s: Setup| -> [u8; 8] { s.back_rank().map(|k| k.idx() as u8) };
    let setup = |arg: usize, r: [u8; 8], rng: &mut Rng| {
        let share: [u64; 5] = std::array::from_fn(|_| rng.next());
        let lit = kept::setup_literal(&r, &share);
        progs.start.parse_arg(arg, &lit).unwrap().as_bits()
    };
    let inputs = [setup(0, rank(ws), rng), setup(1, rank(bs), rng)];
    let out = progs.start.circuit.eval(&inputs);
    assert!(out[PANIC] && out[PANIC + 1], "both ranks are Chess960 ones");
    let key = out[PANIC + 2..PANIC + 2 + KEY_BITS].to_vec();
    Game {
        referee: Referee::new(ws, bs, options),
        state: State {
            fixed: out[PANIC + 2 + KEY_BITS..].to_vec(),
            windows: [vec![], vec![key]],
            earlier: vec![],
            moves: [0, 0],
        },
    }
}

/// The shape and flags of the next attempt, as the players name them (`play::public`).
fn shape(g: &Game, m: usize) -> KeptShape {
    let o = g.referee.options();
    let s = &g.state;
    KeptShape {
        mover_white: m == 0,
        window: s.windows[m].len().div_ceil(8) * 8,
        earlier: s.earlier.len().div_ceil(4) * 4,
        first_turn: s.moves[m] == 0,
        must_try: o.must_try,
        name_capturer: o.name_capturer,
        limit: o.ply_limit.is_some_and(|l| g.referee.plies() + 1 >= l),
    }
}

/// Runs the one-shot circuit and the chain on the same bits: the one-shot's outputs, and
/// whether the chain's are the same.
fn both(progs: &mut Programs, chain: &mut Chain, fixed: &[bool], b: &Bits) -> (Vec<bool>, bool) {
    let prg = progs.shape(b.shape);
    let s = b.shape;
    let mut window: Vec<bool> = b.window.iter().flatten().copied().collect();
    window.resize(s.window.max(1) * KEY_BITS, false);
    let mut items = b.earlier.clone();
    items.resize(s.earlier.max(1), NEVER_ITEM);
    let earlier = prg.parse_arg(2, &items_literal(&items)).unwrap().as_bits();
    let parties = [
        fixed.to_vec(),
        window,
        earlier.clone(),
        b.white.clone(),
        b.black.clone(),
    ];
    let want = prg.circuit.eval(&parties);
    let earlier: Vec<Vec<bool>> = earlier
        .chunks(ITEM_BITS)
        .take(b.earlier.len())
        .map(<[bool]>::to_vec)
        .collect();
    for (bits, item) in earlier.iter().zip(&b.earlier) {
        assert_eq!(
            *bits,
            item_bits(*item),
            "item {item:#x} read as the circuit reads it"
        );
    }
    let inputs = Inputs {
        mover_white: s.mover_white,
        flags: Flags {
            first_turn: s.first_turn,
            must_try: s.must_try,
            name_capturer: s.name_capturer,
            limit: s.limit,
        },
        fixed,
        window: &b.window,
        earlier: &earlier,
        white: &b.white,
        black: &b.black,
    };
    let got = chain.evaluate(&inputs).expect("the chain runs");
    // The same chain composed into one circuit (what play garbles): the same bits.
    let composed = compose(
        chain,
        inputs.mover_white,
        b.window.len(),
        earlier.len(),
        inputs.flags,
    )
    .expect("composes");
    let composed = composed.eval(&[
        fixed.to_vec(),
        b.window.concat(),
        earlier.concat(),
        b.white.clone(),
        b.black.clone(),
    ]);
    // garble_lang's panic bits first: whether the circuit panicked (never), then why and
    // where it would have, which differ between the two sources.
    let same = !want[0] && got == want[PANIC..] && composed == got;
    (want, same)
}

/// Each player's fresh bits: the mover's attempt and pad, the other's 0 and pad.
fn fresh(prg: &GarbleProgram, m: usize, item: u16, pads: &[Answer; 2]) -> [Vec<bool>; 2] {
    std::array::from_fn(|side| {
        let a = if side == m { item } else { 0 };
        let lit = fresh_literal(a, &pads[side]);
        prg.parse_arg(3 + side, &lit).unwrap().as_bits()
    })
}

/// One attempt through the chain, the one-shot circuit and the referee; whether it made
/// a move.
fn step(
    g: &mut Game,
    progs: &mut Programs,
    chain: &mut Chain,
    rng: &mut Rng,
    a: Attempt,
    tally: &mut Tally,
) -> bool {
    let m = g.referee.mover().expect("a period is open").idx();
    let item = attempt_item(&a);
    let pads = [random_pad(rng), random_pad(rng)];
    let shape = shape(g, m);
    let [white, black] = fresh(progs.shape(shape), m, item, &pads);
    let b = Bits {
        shape,
        window: g.state.windows[m].clone(),
        earlier: g.state.earlier.clone(),
        white,
        black,
    };
    let (out, same) = both(progs, chain, &g.state.fixed, &b);
    let context = format!(
        "attempt {a:?} at ply {} (position {}), {shape:?}",
        g.referee.plies(),
        g.referee.position().shredder_fen()
    );
    tally.attempts += 1;
    if !same {
        tally.chain_differs += 1;
        eprintln!("the chain differs from the one-shot circuit: {context}");
    }
    let lit = progs.shape(shape).parse_output(&out);
    let lit = lit.expect("the one-shot circuit's output");
    let (made, mover, other) = kept::read(&lit).expect("an attempt's output");
    let (mover, other) = (mover.unmask(&pads[m]), other.unmask(&pads[1 - m]));
    let answer = g.referee.attempt(a).expect("the referee judges it");
    let entry = g.referee.current().and_then(|t| t.entries.last().cloned());
    let entry = entry.expect("the attempt is recorded");
    let mut turn = g.referee.current().cloned().unwrap();
    turn.entries = vec![entry.clone()];
    let want = expected(&answer, entry.silence);
    let heard_want = expected_heard(&heard(&turn), &want);
    let yes = matches!(answer, RefAnswer::Yes(_));
    if (made, mover, other) != (yes, want, heard_want) {
        tally.referee_differs += 1;
        eprintln!(
            "the circuits differ from the referee: {context}: {:?} against {:?}",
            (made, mover, other),
            (yes, want, heard_want)
        );
    }
    let s = &mut g.state;
    s.fixed = out[FIXED_AT..].to_vec();
    if made {
        if mover.capture {
            s.windows = [vec![], vec![]];
        }
        s.windows[m].push(out[KEY_AT..FIXED_AT].to_vec());
        s.earlier.clear();
        s.moves[m] += 1;
        tally.made += 1;
    } else {
        s.earlier.push(item);
    }
    made
}

fn as_attempt(m: &Move) -> Attempt {
    Attempt::Move {
        from: m.from,
        to: m.to,
        promotion: m.promotion,
    }
}

fn is_pawn_capture(pos: &Position, m: &Move) -> bool {
    pos.piece_at(m.from).is_some_and(|p| p.kind == Kind::Pawn) && m.from.file() != m.to.file()
}

/// A random attempt of any kind: sooner or later a legal one (a pawn capture when one
/// may be owed), now and then the undoing of the mover's last move (repetitions), "Any?",
/// a repeat, a piece's impossible or illegal move, an empty square, a promotion named.
fn random_attempt(g: &Game, rng: &mut Rng, tries: usize, last: Option<Attempt>) -> Attempt {
    let pos = g.referee.position();
    let legal = pos.legal_moves();
    let r = rng.below(100);
    if (tries >= 6 || r < 40) && !legal.is_empty() {
        let captures: Vec<&Move> = legal.iter().filter(|m| is_pawn_capture(pos, m)).collect();
        if tries >= 6 && !captures.is_empty() && rng.chance(50) {
            return as_attempt(captures[rng.below(captures.len())]);
        }
        if let Some(Attempt::Move { from, to, .. }) = last
            && let Some(m) = legal.iter().find(|m| m.from == to && m.to == from)
            && rng.chance(60)
        {
            return as_attempt(m);
        }
        return as_attempt(&legal[rng.below(legal.len())]);
    }
    if r < 52 {
        return Attempt::Any;
    }
    if r < 58
        && let Some(&i) = g.state.earlier.get(rng.below(g.state.earlier.len().max(1)))
        && i != ANY
        && let Some(a) = from_item(i)
    {
        return a;
    }
    let own: Vec<Square> = pos.color_squares(pos.turn()).into_iter().collect();
    let from = if r < 85 && !own.is_empty() {
        own[rng.below(own.len())]
    } else {
        Square::from_index(rng.below(64) as u8).unwrap()
    };
    let kinds = [
        Kind::Knight,
        Kind::Bishop,
        Kind::Rook,
        Kind::Queen,
        Kind::King,
        Kind::Pawn,
    ];
    Attempt::Move {
        from,
        to: Square::from_index(rng.below(64) as u8).unwrap(),
        promotion: rng.chance(15).then(|| kinds[rng.below(6)]),
    }
}

/// The shapes of the edge pass: (earlier attempts, window keys, whether White moves,
/// flags), the flags `first_turn`, `must_try`, `name_capturer`, `limit` from the lowest
/// bit, each on in two and off in two. Each is tried at every ply its mover is to move in
/// the first games. (Each shape is a one-shot circuit to compile, two seconds or so; the
/// evaluations are a millisecond: the default run stays under a minute.)
const EDGES: [(usize, usize, bool, u8); 4] = [
    (0, 0, true, 0b0101),
    (4, 8, false, 0b1010),
    (5, 9, true, 0b0011),
    (8, 16, false, 0b1100),
];
/// Games of the run with the edge pass.
const EDGE_GAMES: usize = 2;
/// Made-up states tried at each edge shape and ply.
const EDGE_TRIES: usize = 6;

/// Items an edge state is made of, of the mover on the position: his legal moves, his
/// pawn captures, and attempts in a pawn capture's form (his pawn, one square
/// diagonally forward, the promotion named on the last rank), legal or not.
struct Pool {
    legal: Vec<u16>,
    captures: Vec<u16>,
    forms: Vec<u16>,
}

impl Pool {
    fn new(pos: &Position) -> Pool {
        let moves = pos.legal_moves();
        let item = |m: &Move| attempt_item(&as_attempt(m));
        let white = pos.turn().idx() == 0;
        let mut forms = vec![];
        for sq in pos.color_squares(pos.turn()) {
            if pos.piece_at(sq).is_none_or(|p| p.kind != Kind::Pawn) {
                continue;
            }
            let (file, rank) = (sq.index() % 8, sq.index() / 8);
            let to_rank = if white {
                rank + 1
            } else {
                rank.wrapping_sub(1)
            };
            for to_file in [file.wrapping_sub(1), file + 1] {
                if to_file < 8 && to_rank < 8 {
                    let promo = if to_rank == 0 || to_rank == 7 { 4 } else { 0 };
                    forms.push(sealed_mpc::inputs::item(
                        sq.index(),
                        to_rank * 8 + to_file,
                        promo,
                    ));
                }
            }
        }
        Pool {
            legal: moves.iter().map(item).collect(),
            captures: moves
                .iter()
                .filter(|m| is_pawn_capture(pos, m))
                .map(item)
                .collect(),
            forms,
        }
    }

    /// One item: "Any?", `item` again, a pawn capture, one's form, a legal move, or any.
    fn pick(&self, rng: &mut Rng, item: u16) -> u16 {
        let from = |v: &[u16], rng: &mut Rng| (!v.is_empty()).then(|| v[rng.below(v.len())]);
        let chosen = match rng.below(10) {
            0 | 1 => Some(ANY),
            2 | 3 => Some(item),
            4 => from(&self.captures, rng),
            5 => from(&self.forms, rng),
            6 | 7 => from(&self.legal, rng),
            _ => None,
        };
        chosen.unwrap_or_else(|| (rng.next() as u16) & 0x6fff)
    }
}

/// The edge pass at the game's current state: the chain against the one-shot circuit on
/// made-up windows and earlier attempts of the sizes of `edge`, with its flags.
fn edges(
    g: &Game,
    progs: &mut Programs,
    chain: &mut Chain,
    rng: &mut Rng,
    (e, w, mover_white, flags): (usize, usize, bool, u8),
    tally: &mut Tally,
) {
    let m = usize::from(!mover_white);
    let shape = KeptShape {
        mover_white,
        window: w.div_ceil(8) * 8,
        earlier: e.div_ceil(4) * 4,
        first_turn: flags & 1 != 0,
        must_try: flags & 2 != 0,
        name_capturer: flags & 4 != 0,
        limit: flags & 8 != 0,
    };
    let (ep_bit, real_bit) = key_flag_bits(progs.shape(shape));
    let pool = Pool::new(g.referee.position());
    for _ in 0..EDGE_TRIES {
        // The attempt: a legal move half the time, so that the window's endings show.
        let item = if rng.chance(50) {
            pool.pick(rng, ANY)
        } else {
            pool.legal
                .get(rng.below(pool.legal.len().max(1)))
                .copied()
                .unwrap_or(ANY)
        };
        let earlier: Vec<u16> = (0..e).map(|_| pool.pick(rng, item)).collect();
        let pads = [random_pad(rng), random_pad(rng)];
        let [white, black] = fresh(progs.shape(shape), m, item, &pads);
        let mut b = Bits {
            shape,
            window: (0..w).map(|_| random_key(rng, real_bit)).collect(),
            earlier,
            white,
            black,
        };
        // The key after the move, from a first run, put back into the window up to three
        // times, its en passant flag as it is or flipped.
        let (out, _) = both(progs, chain, &g.state.fixed, &b);
        let after = out[KEY_AT..FIXED_AT].to_vec();
        let copies = if w == 0 { 0 } else { rng.below(4) };
        for _ in 0..copies {
            let mut k = after.clone();
            k[ep_bit] ^= rng.chance(30);
            let at = rng.below(w);
            b.window[at] = k;
        }
        let (_, same) = both(progs, chain, &g.state.fixed, &b);
        tally.edges += 2;
        if !same {
            tally.chain_differs += 1;
            eprintln!(
                "the chain differs from the one-shot circuit on a made-up state: {shape:?}, item {item:#x}, earlier {:x?}",
                b.earlier
            );
        }
    }
}

/// A key's `ep` and `real` bits, found by reading literals that set one each.
fn key_flag_bits(prg: &GarbleProgram) -> (usize, usize) {
    let w = prg.circuit.unwrap_ssa_ref().input_gates[1] / KEY_BITS;
    let one = |k: &str| -> usize {
        let keys = vec![k; w].join(", ");
        let bits = prg.parse_arg(1, &format!("[{keys}]")).unwrap().as_bits();
        bits.iter().position(|b| *b).expect("one bit set")
    };
    (
        one("Key { h: 0u64, real: false, ep: true }"),
        one("Key { h: 0u64, real: true, ep: false }"),
    )
}

/// A key of some position: random bits, its `real` bit set.
fn random_key(rng: &mut Rng, real_bit: usize) -> Vec<bool> {
    let mut k = common::bits(KEY_BITS, rng.next() | 1);
    k[real_bit] = true;
    k
}

fn count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn the_chain_answers_as_the_one_shot_circuit_and_the_referee() {
    let games = count("SEALED_MPC_GAMES", 2);
    let plies = count("SEALED_MPC_PLIES", 16);
    let started = std::time::Instant::now();
    let mut progs = Programs::new();
    let mut chain = Chain::from_files().expect("the embedded circuit files");
    let mut rng = Rng(0x5eed_c4a1_0002);
    let mut tally = Tally::default();
    for n in 0..games {
        let options = Options {
            must_try: rng.chance(70),
            name_capturer: rng.chance(50),
            ply_limit: rng.chance(30).then(|| 2 + rng.below(plies) as u32),
            ..Options::default()
        };
        let (w, b) = (rng.below(960) as u16, rng.below(960) as u16);
        let mut g = new_game(&progs, &mut rng, w, b, options);
        let mut last: [Option<Attempt>; 2] = [None, None];
        while g.referee.ending().is_none() && g.referee.plies() < plies as u32 {
            let Some(mover) = g.referee.mover() else {
                break;
            };
            if n < EDGE_GAMES {
                for edge in EDGES.iter().filter(|e| e.2 == (mover.idx() == 0)) {
                    edges(&g, &mut progs, &mut chain, &mut rng, *edge, &mut tally);
                }
            }
            let mut tries = 0;
            loop {
                let a = random_attempt(&g, &mut rng, tries, last[mover.idx()]);
                if step(&mut g, &mut progs, &mut chain, &mut rng, a, &mut tally) {
                    last[mover.idx()] = Some(a);
                    break;
                }
                tries += 1;
                if tries > 40 {
                    break;
                }
            }
            let _ = g.referee.end_period();
        }
        // A long run says how far it got now and then.
        if (n + 1) % 100 == 0 {
            eprintln!("{} games: {tally:?}, {:.0?}", n + 1, started.elapsed());
        }
    }
    println!(
        "{games} games of up to {plies} plies: {tally:?}, {} one-shot shapes compiled in {:.1?}, all in {:.1?}",
        progs.compiled,
        progs.compiling,
        started.elapsed()
    );
    assert_eq!(
        tally.chain_differs, 0,
        "the chain against the one-shot circuit"
    );
    assert_eq!(tally.referee_differs, 0, "the circuits against the referee");
    assert!(tally.attempts > 0 && tally.made > 0 && tally.edges > 0);
}
