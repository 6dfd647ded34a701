//! The referee's function with the game's state kept between computations (issue 35):
//! one attempt judged on a position the computation is given as state, not replayed
//! from the moves, and no commitment hashed: the state never leaves the two parties'
//! garbled wires, so nothing needs binding again.
//!
//! The computation's inputs are five groups, each one "party" of the compiled circuit,
//! in this order:
//!
//! 0. `Fixed`: the position, the en passant square just after the last irreversible
//!    move (what repetition needs of en passant, spec/GAMES.md §5.13.1), both kings'
//!    first squares, and the fingerprints' key (`fingerprint.rs`);
//! 1. the mover's window: every position after one of his moves so far (and, for Black,
//!    the start), the positions a move now may repeat, each as a `Key` (its
//!    fingerprint, a flag that it is a position's and not padding, and its en passant
//!    flag);
//! 2. the attempts the mover made before this one in the period, as items;
//! 3. White's fresh input; 4. Black's: the mover's attempt and his pad, the other's pad.
//!
//! Groups 0–2 are state: under garbling they are labels the evaluator kept from earlier
//! computations, never decoded (`play/game.rs` carries them from one computation's
//! outputs to the next one's inputs). The outputs are a tuple (a Garble struct lays its
//! fields out in the order of their names, a tuple in its own): whether a move was
//! made, the mover's answer and what the other hears (each under its owner's pad), the
//! key of the position the attempt would make, and the next `Fixed`. The last two are
//! state: the key joins the mover's window when a move is made, and a capture empties
//! both windows first. Whether a move was made and whether it captured are announced
//! anyway, so which labels go where next is public too.
//!
//! The start takes each player's back rank and his share of the fingerprints' key (a
//! block of his seed's stream): the key is their XOR, made inside the computation, so
//! neither player knows it until the seeds are opened.
//!
//! The shape is public: who moves, how many positions each window holds, how many
//! attempts came before this one, whether it is the mover's first turn, the options, and
//! whether a move now reaches the ply limit.

use std::fmt::Write as _;

use crate::inputs::Answer;

/// A key that stands for no position (`real` is false): it repeats nothing. A window
/// may be padded with it so that fewer shapes are compiled.
pub const NEVER_KEY: &str = "Key { h: 0u64, real: false, ep: false }";

/// An item no attempt is (a1 to a1 promoting to code 7: promotions stop at 6): padding
/// the earlier attempts with it changes no answer (`play` pads so).
pub const NEVER_ITEM: u16 = 0x7000;

/// Bits of a `Key`: the fingerprint, whether it is a position's, and the en passant
/// flag.
pub const KEY_BITS: usize = 64 + 2;

/// Bits of `Fixed`: the position's ten words, the en passant square after the last
/// irreversible move, the two kings' first squares and the fingerprints' key.
pub const FIXED_BITS: usize = 11 * 64 + 2 * 8 + 5 * 64;

/// The state every computation passes on, and the key of a position as the window holds
/// it: its fingerprint under `hk` (`fingerprint.rs`), `real` (padding is not), and
/// whether en passant was possible.
const STATE: &str = "
struct Fixed {
    pos: Pos,
    ep_last: u64,
    homes: [u8; 2],
    hk: [u64; 5],
}

struct Key {
    h: u64,
    real: bool,
    ep: bool,
}

fn key(p: Pos, hk: [u64; 5]) -> Key {
    Key { h: fingerprint(exact(p), hk), real: true, ep: nz(p.ep) }
}

fn same_key(s: Key, k: Key) -> bool {
    s.real & (s.h == k.h)
}
";

/// Bits of an item (a move or attempt).
pub const ITEM_BITS: usize = 16;

/// The public shape of one attempt's computation with the state kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KeptShape {
    /// Whether White is to move.
    pub mover_white: bool,
    /// Positions in the mover's window, padding included.
    pub window: usize,
    /// Attempts the mover made before this one this period, padding included.
    pub earlier: usize,
    /// Whether this is the mover's first turn ("Any?" is too early then).
    pub first_turn: bool,
    /// Option `must-try`.
    pub must_try: bool,
    /// Option `name-capturer`.
    pub name_capturer: bool,
    /// Whether a move made now reaches the ply limit.
    pub limit: bool,
}

/// The Garble source of one attempt's computation of `shape`.
pub fn source(shape: &KeptShape) -> String {
    let mut s = library(shape.earlier, shape.window);
    let w = shape.window.max(1);
    let e = shape.earlier.max(1);
    let (m, o) = if shape.mover_white {
        ("white", "black")
    } else {
        ("black", "white")
    };
    let keys = if shape.window == 0 {
        format!("[{NEVER_KEY}]")
    } else {
        "window".to_owned()
    };
    let earlier = if shape.earlier == 0 {
        format!("[{NEVER_ITEM}u16]")
    } else {
        "earlier".to_owned()
    };
    let _ = write!(
        s,
        "
struct Fresh {{
    attempt: u16,
    pad: Answer,
}}

pub fn main(fixed: Fixed, window: [Key; {w}], earlier: [u16; {e}], white: Fresh, black: Fresh) -> (bool, Answer, Answer, Key, Fixed) {{
    let p = fixed.pos;
    let (answer, made, ka) = attempt(p, {m}.attempt, {earlier}, {mw}, fixed.homes[{mi}usize], {first}, {must_try}, {name_capturer}, {limit}, {keys}, fixed.hk, fixed.ep_last);
    let yes = answer.code == 1u8;
    let after = made.pos;
    let next = Fixed {{
        pos: if yes {{ after }} else {{ p }},
        ep_last: if yes & made.irreversible {{ after.ep }} else {{ fixed.ep_last }},
        homes: fixed.homes,
        hk: fixed.hk,
    }};
    (yes, mask_answer(answer, {m}.pad), mask_answer(heard(answer), {o}.pad), ka, next)
}}
",
        mw = shape.mover_white,
        mi = usize::from(!shape.mover_white),
        first = shape.first_turn,
        must_try = shape.must_try,
        name_capturer = shape.name_capturer,
        limit = shape.limit,
    );
    s
}

/// The Garble source of the start: from the two players' setups (White's input, then
/// Black's: the back rank and the share of the fingerprints' key), whether each rank is
/// a Chess960 one, the start position's key (the first of Black's window: after Black's
/// first move White is to move again) and the first `Fixed`. Its outputs end as an
/// attempt's do, with the key and then `Fixed` (a tuple: a Garble struct lays its fields
/// out in the order of their names, a tuple in its own).
pub fn start_source() -> String {
    let mut s = library(0, 0);
    s.push_str(
        "
struct Setup {
    rank: [u8; 8],
    share: [u64; 5],
}

pub fn main(white: Setup, black: Setup) -> (bool, bool, Key, Fixed) {
    let p = start(white.rank, black.rank);
    let homes = [king_home(white.rank, true), king_home(black.rank, false)];
    let mut hk = [0u64; 5];
    let mut i = 0usize;
    for _share in 0u8..5u8 {
        hk[i] = white.share[i] ^ black.share[i];
        i = i + 1usize;
    }
    (valid_rank(white.rank), valid_rank(black.rank), key(p, hk), Fixed { pos: p, ep_last: 0u64, homes: homes, hk: hk })
}
",
    );
    s
}

/// One player's input to the start, as a Garble literal: his back rank and his share of
/// the fingerprints' key.
pub fn setup_literal(rank: &[u8; 8], share: &[u64; 5]) -> String {
    let share: Vec<String> = share.iter().map(|x| format!("{x}u64")).collect();
    format!(
        "Setup {{ rank: {}, share: [{}] }}",
        crate::inputs::rank_literal(rank),
        share.join(", ")
    )
}

/// The library with the sizes of a shape written in, the state and the fingerprint.
fn library(earlier: usize, window: usize) -> String {
    let mut s = crate::circuit::LIBRARY
        .iter()
        .filter(|part| !part.contains("fn compress("))
        .copied()
        .collect::<Vec<_>>()
        .join("\n")
        .replace("EARLIER", &earlier.max(1).to_string())
        .replace("SEEN", &window.max(1).to_string())
        .replace("HASH_KEY", "[u64; 5]");
    s.push_str(STATE);
    s.push_str(&crate::fingerprint::garble_source());
    s
}

/// Compiles a program of this module, unused library items pruned and duplicate gates
/// merged: the circuit to run and count.
pub fn compile_source(src: &str) -> Result<garble_lang::GarbleProgram, String> {
    let src = prune(src);
    let opts = garble_lang::CompileOptions {
        optimize_duplicate_gates: true,
        ..Default::default()
    };
    garble_lang::compile_with_options(&src, opts).map_err(|e| e.prettify(&src))
}

/// Compiles one attempt's computation of `shape`.
pub fn compile(shape: &KeptShape) -> Result<garble_lang::GarbleProgram, String> {
    compile_source(&source(shape))
}

/// What an attempt's computation gives, read from its output literal: whether a move
/// was made, the mover's answer and what the other hears (each still under its pad).
pub fn read(l: &garble_lang::literal::Literal) -> Result<(bool, Answer, Answer), String> {
    use crate::outputs::{answer, boolean};
    let garble_lang::literal::Literal::Tuple(t) = l else {
        return Err(format!("not a tuple: {l}"));
    };
    match t.as_slice() {
        [made, mover, other, _, _] => Ok((boolean(made)?, answer(mover)?, answer(other)?)),
        _ => Err(format!("not five values: {l}")),
    }
}

/// `src` without the functions and structs nothing uses: Garble refuses a program that
/// declares any, and the library serves more than one program. Comments are dropped. An
/// item is a line starting
/// `fn NAME(` or `struct NAME {` up to the next line that is `}`; a function is used
/// where its name is followed by `(` elsewhere, a struct where its name stands alone.
pub fn prune(src: &str) -> String {
    // Comments go first: a name in a sentence is no use.
    let mut text: String = src
        .lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]))
        .collect::<Vec<_>>()
        .join("\n");
    text.push('\n');
    loop {
        let items = items(&text);
        let unused: Vec<&(String, usize, usize)> = items
            .iter()
            .filter(|(name, start, end)| name != "main" && !used_outside(&text, name, *start, *end))
            .collect();
        if unused.is_empty() {
            return text;
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        let mut spans: Vec<(usize, usize)> = unused.iter().map(|(_, s, e)| (*s, *e)).collect();
        spans.sort();
        for (s, e) in spans {
            out.push_str(&text[at..s]);
            at = e;
        }
        out.push_str(&text[at..]);
        text = out;
    }
}

/// Each top-level `fn` and `struct` of `src`: its name and byte span.
fn items(src: &str) -> Vec<(String, usize, usize)> {
    let mut out = vec![];
    let mut offset = 0;
    let mut open: Option<(String, usize)> = None;
    for line in src.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        if let Some((name, s)) = &open {
            if line.trim_end() == "}" {
                out.push((name.clone(), *s, offset));
                open = None;
            }
            continue;
        }
        let head = line
            .strip_prefix("pub fn ")
            .or_else(|| line.strip_prefix("fn "))
            .or_else(|| line.strip_prefix("struct "));
        if let Some(rest) = head {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if line.trim_end().ends_with('}') {
                out.push((name, start, offset));
            } else {
                open = Some((name, start));
            }
        }
    }
    out
}

/// Whether `name` is used in `src` outside the span `start..end`.
fn used_outside(src: &str, name: &str, start: usize, end: usize) -> bool {
    let is_fn = src[start..].starts_with("fn ") || src[start..].starts_with("pub fn ");
    let outside = [&src[..start], &src[end..]];
    outside.iter().any(|part| {
        part.match_indices(name).any(|(i, _)| {
            let before = part[..i].chars().next_back();
            let after = part[i + name.len()..].chars().next();
            // A function is used where it is called; a struct (capitalised, unlike any
            // variable) wherever its name stands alone.
            let ends = if is_fn { "(" } else { "( {,);>]:" };
            !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                && after.is_some_and(|c| ends.contains(c))
        })
    })
}
