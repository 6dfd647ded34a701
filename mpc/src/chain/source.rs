//! The Garble source of each circuit of the chain: the library as the kept attempt
//! compiles it (`kept::source`, cut before its own `main`), the parts of
//! `src/garble/chain.garble.rs`, and one `main` per circuit, fixed: nothing in it varies
//! with the game, so each compiles to one circuit for good. Who moves is compiled into
//! the two circuits that read him (a mover read from a bit costs 9 % more in the attempt:
//! docs/design/circuits-as-data.md); the four flags are one public input of four bits.

use super::{ChainError, Part, eval::check_layout, panic_bits};
use crate::gc::Circuit;
use crate::kept::{self, KeptShape};

/// The parts of the attempt the chain runs, in Garble.
const PARTS: &str = include_str!("../garble/chain.garble.rs");

/// A player's fresh input, as `kept.rs` declares it: his attempt (0 when he does not move)
/// and his pad. The same declaration, so the same bits feed both.
const FRESH: &str = "
struct Fresh {
    attempt: u16,
    pad: Answer,
}
";

/// The library every circuit of the chain is compiled with: what `kept::source` writes
/// before its `main` (the Garble library, `Fixed`, `Key`, the fingerprint), then the
/// chain's parts and `Fresh`. Unused items are pruned at compile time.
fn library() -> Result<String, ChainError> {
    let shape = KeptShape {
        mover_white: true,
        window: 8,
        earlier: 4,
        first_turn: false,
        must_try: false,
        name_capturer: false,
        limit: false,
    };
    let src = kept::source(&shape);
    let cut = src.find("\nstruct Fresh").ok_or(ChainError::Source {
        what: "kept::source no longer declares `Fresh` after its library",
    })?;
    let mut s = src[..cut].to_owned();
    s.push_str(PARTS);
    s.push_str(FRESH);
    Ok(s)
}

/// Who moves, as the source writes it, and the index of his king's first square in
/// `Fixed::homes`.
fn mover(white: bool) -> (&'static str, &'static str) {
    if white {
        ("true", "0usize")
    } else {
        ("false", "1usize")
    }
}

/// The `main` of one circuit. The flags are `[first_turn, must_try, name_capturer,
/// limit]`.
fn main(part: Part) -> String {
    match part {
        Part::Earlier4 { white } => {
            let (w, home) = mover(white);
            format!(
                "
pub fn main(fold: Fold, fixed: Fixed, earlier: [u16; 4], flags: [bool; 4], mover: Fresh) -> Fold {{
    fold_earlier(fold, fixed.pos, mover.attempt, earlier, {w}, fixed.homes[{home}], flags[1usize])
}}
"
            )
        }
        Part::Attempt { white } => {
            let (w, home) = mover(white);
            format!(
                "
pub fn main(fixed: Fixed, fold: Fold, flags: [bool; 4], mover: Fresh) -> (bool, Answer, Key, bool, Fixed) {{
    let p = fixed.pos;
    let (yes, answer, made, ka, ep_chance) = judge_attempt(p, mover.attempt, fold, {w}, fixed.homes[{home}], flags[0usize], flags[1usize], flags[2usize], fixed.hk, fixed.ep_last);
    let after = made.pos;
    let next = Fixed {{
        pos: if yes {{ after }} else {{ p }},
        ep_last: if yes & made.irreversible {{ after.ep }} else {{ fixed.ep_last }},
        homes: fixed.homes,
        hk: fixed.hk,
    }};
    (yes, answer, ka, ep_chance, next)
}}
"
            )
        }
        Part::Window8 => "
pub fn main(pair: [bool; 2], key: Key, ep_chance: bool, window: [Key; 8]) -> [bool; 2] {
    fold_window(pair, key, ep_chance, window)
}
"
        .to_owned(),
        Part::Finish => "
pub fn main(judged: (bool, Answer, Key, bool, Fixed), pair: [bool; 2], flags: [bool; 4], mover: Fresh, other: Fresh) -> (bool, Answer, Answer, Key, Fixed) {
    let (yes, partial, ka, _ep_chance, next) = judged;
    let answer = finish_answer(yes, partial, pair[1usize], flags[3usize]);
    (yes, mask_answer(answer, mover.pad), mask_answer(heard(answer), other.pad), ka, next)
}
"
        .to_owned(),
    }
}

/// The whole Garble source of one circuit of the chain.
pub fn source(part: Part) -> Result<String, ChainError> {
    let mut s = library()?;
    s.push_str(&main(part));
    Ok(s)
}

/// One circuit of the chain compiled (unused library items pruned, duplicate gates
/// merged, as `kept::compile_source` compiles the one-shot attempt).
pub fn compile(part: Part) -> Result<garble_lang::GarbleProgram, ChainError> {
    kept::compile_source(&source(part)?).map_err(|message| ChainError::Compile {
        circuit: part.name(),
        message,
    })
}

/// One circuit of the chain as the chain runs it and its file holds it: compiled, its
/// panic bits taken off once proven constant (`panic_bits.rs`), its layout checked.
pub fn circuit(part: Part) -> Result<Circuit, ChainError> {
    let c = compile(part)?.circuit.unwrap_ssa_ref().clone();
    let c = panic_bits::strip(c, part.name())?;
    check_layout(part, &c)?;
    Ok(c)
}

/// The start's circuit (`kept::start_source`) as its file holds it: compiled, its panic
/// bits taken off once proven constant.
pub fn start() -> Result<Circuit, ChainError> {
    let prg =
        kept::compile_source(&kept::start_source()).map_err(|message| ChainError::Compile {
            circuit: START,
            message,
        })?;
    panic_bits::strip(prg.circuit.unwrap_ssa_ref().clone(), START)
}

/// The start's name, as its file is named.
pub const START: &str = "start";
