//! One attempt's computation as a fixed chain of a few circuits instead of one circuit
//! per shape (docs/design/circuits-as-data.md, step 2): each circuit compiles once for
//! good, whatever the window's or the period's length, and the chain's length follows
//! from public facts. This module lists the circuits an attempt runs (`plan`), writes and
//! compiles them (`source.rs`), and evaluates the chain in the clear over bits, each
//! circuit's outputs threaded into the next one's inputs as labels will be under
//! garbling (`eval.rs`). It answers as `kept.rs`'s one-shot circuit does, bit for bit
//! (`mpc/tests/chain.rs`).
//!
//! The circuits and their inputs, each input one party of the compiled circuit, in order
//! (C: carried, labels of an earlier circuit's outputs, never decoded; P: public bits; F:
//! a player's fresh input, `Fresh` of `kept.rs`, the same bits each circuit reads):
//!
//! | circuit | inputs | outputs (bits) |
//! |---|---|---|
//! | `earlier4-white`, `earlier4-black` | C fold (4, zeros before the first block), C `Fixed`, C 4 earlier items (padding P, `kept::NEVER_ITEM`), P flags (4), F the mover's | the fold (4) |
//! | `attempt-white`, `attempt-black` | C `Fixed`, C fold (zeros when no earlier attempt), P flags, F the mover's | [`JUDGED_BITS`]: made (1), the answer so far (83), the key after (66), its en passant chance (1), the next `Fixed` |
//! | `window8` | C pair (2: once, twice; zeros before the first block), C the key after and its chance (67 bits from [`KEY_AT`] of the attempt's outputs), C 8 window keys (padding P, never-keys: all zeros) | the pair (2) |
//! | `finish` | C the attempt's outputs (all), C pair, P flags, F the mover's, F the other's | what `kept`'s circuit gives, same layout: made, the mover's answer and what the other hears under their pads, the key after, the next `Fixed` |
//!
//! The flags are `[first_turn, must_try, name_capturer, limit]`, each one bit. The fold
//! (`Fold` in `chain.garble.rs`) and the pair stay inside the chain: nothing outside reads
//! them. The answer so far lacks only the endings the window decides (repetition, the ply
//! limit). Bits are garble_lang's: numbers most significant bit first, arrays and tuples
//! in order; every circuit's outputs start with garble_lang's 161 bits that say whether
//! it panicked, always false (`kept`'s too), which the chain does not pass on.
//!
//! `earlier4` reads who moves (the form of a pawn capture, the mover's pawns): two files,
//! as the attempt's circuit; `window8` and `finish` do not (the mover's and the other's
//! fresh inputs are wired by who moves, no gate picks them): one file each.

pub mod bits;
pub mod compose;
mod eval;
pub mod files;
mod panic_bits;
pub mod source;
pub mod vector;
mod walk;

pub use eval::Chain;
pub use files::FileError;
pub use walk::Inputs;

use crate::kept::{FIXED_BITS, ITEM_BITS, KEY_BITS, NEVER_ITEM};

/// One circuit of the chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    /// Four earlier attempts of the period folded on.
    Earlier4 {
        /// Whether White moves.
        white: bool,
    },
    /// The attempt judged and the move made.
    Attempt {
        /// Whether White moves.
        white: bool,
    },
    /// Eight keys of the mover's window folded on.
    Window8,
    /// The answers masked, the state passed on.
    Finish,
}

impl Part {
    /// Every circuit of the chain, each once.
    pub const ALL: [Part; 6] = [
        Part::Earlier4 { white: true },
        Part::Earlier4 { white: false },
        Part::Attempt { white: true },
        Part::Attempt { white: false },
        Part::Window8,
        Part::Finish,
    ];

    /// Its name, as its file will be named.
    pub fn name(self) -> &'static str {
        match self {
            Part::Earlier4 { white: true } => "earlier4-white",
            Part::Earlier4 { white: false } => "earlier4-black",
            Part::Attempt { white: true } => "attempt-white",
            Part::Attempt { white: false } => "attempt-black",
            Part::Window8 => "window8",
            Part::Finish => "finish",
        }
    }

    /// Its place in [`Part::ALL`].
    fn index(self) -> usize {
        match self {
            Part::Earlier4 { white } => usize::from(!white),
            Part::Attempt { white } => 2 + usize::from(!white),
            Part::Window8 => 4,
            Part::Finish => 5,
        }
    }
}

/// Earlier attempts one `earlier4` folds.
pub const EARLIER_BLOCK: usize = 4;
/// Window keys one `window8` folds.
pub const WINDOW_BLOCK: usize = 8;
/// Bits of the carried fold over the earlier attempts.
pub const FOLD_BITS: usize = 4;
/// Bits of the carried pair (once, twice) over the window.
pub const PAIR_BITS: usize = 2;
/// Bits of the public flags.
pub const FLAG_BITS: usize = 4;
/// Bits of an answer (ten `u8` and three `bool`).
pub const ANSWER_BITS: usize = 10 * 8 + 3;
/// Bits of a player's fresh input: his attempt and his pad.
pub const FRESH_BITS: usize = ITEM_BITS + ANSWER_BITS;
/// Bits of a player's input to the start: his back rank (eight `u8`) and his share of
/// the fingerprints' key (five `u64`).
pub const SETUP_BITS: usize = 8 * 8 + 5 * 64;
/// Where the key after the move starts in the attempt's outputs (after made and the
/// answer); its en passant chance follows it.
pub const KEY_AT: usize = 1 + ANSWER_BITS;
/// Bits of the attempt's outputs.
pub const JUDGED_BITS: usize = KEY_AT + KEY_BITS + 1 + FIXED_BITS;
/// Bits of the chain's outputs, as `kept`'s: made, two answers, the key, `Fixed`.
pub const OUT_BITS: usize = 1 + 2 * ANSWER_BITS + KEY_BITS + FIXED_BITS;

/// The public flags of an attempt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags {
    /// Whether this is the mover's first turn.
    pub first_turn: bool,
    /// Option `must-try`.
    pub must_try: bool,
    /// Option `name-capturer`.
    pub name_capturer: bool,
    /// Whether a move made now reaches the ply limit.
    pub limit: bool,
}

impl Flags {
    /// As the circuits read them.
    pub fn bits(self) -> Vec<bool> {
        vec![
            self.first_turn,
            self.must_try,
            self.name_capturer,
            self.limit,
        ]
    }
}

/// The public facts of an attempt that decide its chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Facts {
    /// Whether White moves.
    pub mover_white: bool,
    /// Positions in the mover's window (no padding).
    pub window: usize,
    /// Attempts the mover made before this one this period (no padding).
    pub earlier: usize,
}

/// The circuits an attempt runs, in order: ⌈earlier / 4⌉ earlier blocks, the attempt,
/// ⌈window / 8⌉ window blocks, the finish.
pub fn plan(facts: Facts) -> Vec<Part> {
    let white = facts.mover_white;
    let mut out = vec![Part::Earlier4 { white }; facts.earlier.div_ceil(EARLIER_BLOCK)];
    out.push(Part::Attempt { white });
    out.extend(std::iter::repeat_n(
        Part::Window8,
        facts.window.div_ceil(WINDOW_BLOCK),
    ));
    out.push(Part::Finish);
    out
}

/// An item's bits as the circuits read it (garble_lang's: most significant first).
pub fn item_bits(item: u16) -> Vec<bool> {
    (0..ITEM_BITS)
        .map(|i| (item >> (ITEM_BITS - 1 - i)) & 1 == 1)
        .collect()
}

/// The bits of an item no attempt is, that pads a block of earlier attempts.
fn never_item() -> Vec<bool> {
    item_bits(NEVER_ITEM)
}

/// Why a chain could not be compiled or evaluated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChainError {
    /// The library the chain's source is cut from has changed shape (a bug of ours).
    #[error("the chain's source cannot be written: {what}")]
    Source {
        /// What was not found.
        what: &'static str,
    },
    /// A circuit did not compile (a bug of ours).
    #[error("{circuit} does not compile: {message}")]
    Compile {
        /// The circuit.
        circuit: &'static str,
        /// The compiler's message.
        message: String,
    },
    /// A compiled circuit's inputs or outputs are not the layout this module threads
    /// (a bug of ours).
    #[error("{circuit}: {what} has {found} bits, the chain's layout says {expected}")]
    Layout {
        /// The circuit.
        circuit: &'static str,
        /// Which input or output.
        what: &'static str,
        /// What the layout says.
        expected: usize,
        /// What the circuit has.
        found: usize,
    },
    /// A compiled circuit's panic bits are not proven constant: some input might make it
    /// panic (a bug of ours: nothing in them indexes out of bounds or divides).
    #[error("{circuit} might panic")]
    Panic {
        /// The circuit.
        circuit: &'static str,
    },
    /// A circuit asked of a chain that neither read nor compiled it (the caller's
    /// mistake: compose from [`Chain::from_files`], or after [`Chain::compile_all`]).
    #[error("{circuit} is neither read nor compiled")]
    NotLoaded {
        /// The circuit.
        circuit: &'static str,
    },
    /// An input given to the chain is of the wrong size (the caller's mistake).
    #[error("{what} has {found} bits, {expected} expected")]
    Size {
        /// Which input.
        what: &'static str,
        /// What it must have.
        expected: usize,
        /// What it has.
        found: usize,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(facts: Facts) -> (usize, usize) {
        let p = plan(facts);
        let n = |f: fn(&Part) -> bool| p.iter().filter(|x| f(x)).count();
        (
            n(|x| matches!(x, Part::Earlier4 { .. })),
            n(|x| matches!(x, Part::Window8)),
        )
    }

    #[test]
    fn a_block_for_every_four_earlier_attempts_and_eight_keys_begun() {
        for (earlier, window, want) in [
            (0, 0, (0, 0)),
            (4, 8, (1, 1)),
            (5, 9, (2, 2)),
            (8, 16, (2, 2)),
            (1024, 60, (256, 8)),
        ] {
            let facts = Facts {
                mover_white: false,
                window,
                earlier,
            };
            assert_eq!(blocks(facts), want, "{facts:?}");
            let p = plan(facts);
            let attempt = p.iter().position(|x| *x == Part::Attempt { white: false });
            assert_eq!(attempt, Some(want.0), "the earlier blocks come first");
            assert_eq!(p.last(), Some(&Part::Finish));
        }
    }

    #[test]
    fn items_are_read_most_significant_bit_first() {
        let bits = item_bits(NEVER_ITEM);
        assert_eq!(&bits[..4], &[false, true, true, true]);
        assert!(bits[4..].iter().all(|b| !b));
    }

    #[test]
    fn inputs_of_the_wrong_size_are_refused_before_anything_compiles() {
        let fresh = vec![false; FRESH_BITS];
        let fixed = vec![false; FIXED_BITS];
        let inputs = Inputs {
            mover_white: true,
            flags: Flags::default(),
            fixed: &fixed[1..],
            window: &[],
            earlier: &[],
            white: &fresh,
            black: &fresh,
        };
        let mut chain = Chain::new();
        assert!(matches!(
            chain.evaluate(&inputs),
            Err(ChainError::Size { what: "Fixed", .. })
        ));
        let short = vec![vec![false; ITEM_BITS - 1]];
        let inputs = Inputs {
            fixed: &fixed,
            earlier: &short,
            ..inputs
        };
        assert!(matches!(
            chain.evaluate(&inputs),
            Err(ChainError::Size {
                what: "an earlier item",
                ..
            })
        ));
        assert!(matches!(
            chain.put(
                Part::Window8,
                crate::gc::Circuit {
                    input_gates: vec![1],
                    gates: vec![],
                    output_gates: vec![0],
                }
            ),
            Err(ChainError::Layout {
                circuit: "window8",
                ..
            })
        ));
    }
}
