//! The chain evaluated in the clear: each circuit compiled once and kept, the attempt's
//! inputs checked for size before anything runs, then the circuits of `plan` run in
//! order over bits, each one's outputs passed into the next one's inputs as the garbled
//! chain will pass labels. What the two players compute together, computed by one: the
//! test of the chain against the one-shot circuit and the referee, and the measure of its
//! cost.

use super::files::{self, FileError};
use super::{
    ChainError, EARLIER_BLOCK, FLAG_BITS, FOLD_BITS, FRESH_BITS, Flags, JUDGED_BITS, KEY_AT,
    OUT_BITS, PAIR_BITS, Part, WINDOW_BLOCK, never_item, plan, source,
};
use crate::gc::Circuit;
use crate::kept::{FIXED_BITS, ITEM_BITS, KEY_BITS};

/// An attempt's inputs, as `kept`'s circuit takes them but unpadded: the state (bits of
/// `Fixed`, the mover's window's keys, the period's earlier items), and each player's
/// fresh input (`Fresh`: his attempt, 0 when he does not move, and his pad).
#[derive(Clone, Copy, Debug)]
pub struct Inputs<'a> {
    /// Whether White moves.
    pub mover_white: bool,
    /// The public flags.
    pub flags: Flags,
    /// `Fixed`.
    pub fixed: &'a [bool],
    /// The keys of the mover's window, each [`KEY_BITS`].
    pub window: &'a [Vec<bool>],
    /// The mover's earlier attempts this period, each [`ITEM_BITS`].
    pub earlier: &'a [Vec<bool>],
    /// White's fresh input.
    pub white: &'a [bool],
    /// Black's.
    pub black: &'a [bool],
}

impl Inputs<'_> {
    /// Whether every input is of its size.
    fn check(&self) -> Result<(), ChainError> {
        let sized = |what, expected, found| {
            if expected == found {
                Ok(())
            } else {
                Err(ChainError::Size {
                    what,
                    expected,
                    found,
                })
            }
        };
        sized("Fixed", FIXED_BITS, self.fixed.len())?;
        sized("White's fresh input", FRESH_BITS, self.white.len())?;
        sized("Black's fresh input", FRESH_BITS, self.black.len())?;
        for k in self.window {
            sized("a window key", KEY_BITS, k.len())?;
        }
        for i in self.earlier {
            sized("an earlier item", ITEM_BITS, i.len())?;
        }
        Ok(())
    }

    /// The mover's fresh input, then the other's.
    fn fresh(&self) -> (&[bool], &[bool]) {
        if self.mover_white {
            (self.white, self.black)
        } else {
            (self.black, self.white)
        }
    }
}

/// The sizes of a circuit's inputs, party by party, and of its output (garble_lang's panic
/// bits taken off: `panic_bits.rs`).
pub(super) fn layout(part: Part) -> (Vec<usize>, usize) {
    match part {
        Part::Earlier4 { .. } => (
            vec![
                FOLD_BITS,
                FIXED_BITS,
                EARLIER_BLOCK * ITEM_BITS,
                FLAG_BITS,
                FRESH_BITS,
            ],
            FOLD_BITS,
        ),
        Part::Attempt { .. } => (
            vec![FIXED_BITS, FOLD_BITS, FLAG_BITS, FRESH_BITS],
            JUDGED_BITS,
        ),
        Part::Window8 => (
            vec![PAIR_BITS, KEY_BITS, 1, WINDOW_BLOCK * KEY_BITS],
            PAIR_BITS,
        ),
        Part::Finish => (
            vec![JUDGED_BITS, PAIR_BITS, FLAG_BITS, FRESH_BITS, FRESH_BITS],
            OUT_BITS,
        ),
    }
}

/// Whether a circuit has `part`'s layout.
pub(super) fn check_layout(part: Part, c: &Circuit) -> Result<(), ChainError> {
    let (inputs, outputs) = layout(part);
    let wrong = |what, expected, found| ChainError::Layout {
        circuit: part.name(),
        what,
        expected,
        found,
    };
    if c.input_gates.len() != inputs.len() {
        return Err(wrong(
            "its list of inputs",
            inputs.len(),
            c.input_gates.len(),
        ));
    }
    if let Some((&e, &f)) = inputs.iter().zip(&c.input_gates).find(|(e, f)| e != f) {
        return Err(wrong("an input", e, f));
    }
    if c.output_gates.len() != outputs {
        return Err(wrong("its output", outputs, c.output_gates.len()));
    }
    Ok(())
}

/// The chain's circuits: read from the files under `spec/circuits/` ([`Chain::from_files`],
/// what the game runs), or each compiled from its source the first time it is needed
/// ([`Chain::new`], what the files are checked against).
#[derive(Default)]
pub struct Chain {
    circuits: [Option<Circuit>; Part::ALL.len()],
}

impl Chain {
    /// No circuit yet: each is compiled when first needed.
    pub fn new() -> Chain {
        Chain::default()
    }

    /// Every circuit read from the files embedded in this build, their hashes checked
    /// against the manifest and the manifest's against the one spec/GAMES.md names.
    pub fn from_files() -> Result<Chain, FileError> {
        let mut chain = Chain::new();
        for part in Part::ALL {
            chain.circuits[part.index()] = Some(files::part(part)?);
        }
        Ok(chain)
    }

    /// Compiles every circuit not compiled yet.
    pub fn compile_all(&mut self) -> Result<(), ChainError> {
        for part in Part::ALL {
            self.circuit(part)?;
        }
        Ok(())
    }

    /// Takes `part`'s circuit from elsewhere (read from a file, or broken on purpose by a
    /// test), in place of compiling it, if it has the chain's layout.
    pub fn put(&mut self, part: Part, c: Circuit) -> Result<(), ChainError> {
        check_layout(part, &c)?;
        self.circuits[part.index()] = Some(c);
        Ok(())
    }

    /// `part`'s circuit, compiled now if it was not.
    pub fn circuit(&mut self, part: Part) -> Result<&Circuit, ChainError> {
        let slot = &mut self.circuits[part.index()];
        if slot.is_none() {
            *slot = Some(source::circuit(part)?);
        }
        slot.as_ref().ok_or(ChainError::Source {
            what: "a circuit just compiled",
        })
    }

    /// Runs `part` on its inputs, party by party. Their sizes are checked against the
    /// layout, as `circuit` checked the compiled side: garble_lang's evaluation panics on
    /// any other.
    fn run(&mut self, part: Part, parties: Vec<Vec<bool>>) -> Result<Vec<bool>, ChainError> {
        let c = self.circuit(part)?;
        let (sizes, _) = layout(part);
        if sizes.len() != parties.len() {
            return Err(ChainError::Layout {
                circuit: part.name(),
                what: "the list of inputs given",
                expected: sizes.len(),
                found: parties.len(),
            });
        }
        if let Some((e, f)) = sizes
            .iter()
            .zip(&parties)
            .map(|(e, p)| (*e, p.len()))
            .find(|(e, f)| e != f)
        {
            return Err(ChainError::Layout {
                circuit: part.name(),
                what: "an input given",
                expected: e,
                found: f,
            });
        }
        Ok(c.eval(&parties))
    }

    /// The attempt's outputs, as `kept`'s circuit of its shape gives them after
    /// garble_lang's panic bits ([`OUT_BITS`]): made, the mover's answer and what the
    /// other hears (under their pads), the key of the position after, the next `Fixed`.
    pub fn evaluate(&mut self, inputs: &Inputs) -> Result<Vec<bool>, ChainError> {
        inputs.check()?;
        let flags = inputs.flags.bits();
        let (mover, other) = inputs.fresh();
        let facts = super::Facts {
            mover_white: inputs.mover_white,
            window: inputs.window.len(),
            earlier: inputs.earlier.len(),
        };
        let mut earlier = inputs.earlier.chunks(EARLIER_BLOCK);
        let mut window = inputs.window.chunks(WINDOW_BLOCK);
        let mut fold = vec![false; FOLD_BITS];
        let mut judged = vec![];
        let mut pair = vec![false; PAIR_BITS];
        let mut out = vec![];
        for part in plan(facts) {
            match part {
                Part::Earlier4 { .. } => {
                    let items = padded(earlier.next(), EARLIER_BLOCK, &never_item());
                    let parties = vec![
                        fold,
                        inputs.fixed.to_vec(),
                        items,
                        flags.clone(),
                        mover.to_vec(),
                    ];
                    fold = self.run(part, parties)?;
                }
                Part::Attempt { .. } => {
                    let parties = vec![
                        inputs.fixed.to_vec(),
                        fold.clone(),
                        flags.clone(),
                        mover.to_vec(),
                    ];
                    judged = self.run(part, parties)?;
                }
                Part::Window8 => {
                    let keys = padded(window.next(), WINDOW_BLOCK, &[false; KEY_BITS]);
                    let parties = vec![
                        pair,
                        slice(&judged, KEY_AT, KEY_BITS)?,
                        slice(&judged, KEY_AT + KEY_BITS, 1)?,
                        keys,
                    ];
                    pair = self.run(part, parties)?;
                }
                Part::Finish => {
                    let parties = vec![
                        judged.clone(),
                        pair.clone(),
                        flags.clone(),
                        mover.to_vec(),
                        other.to_vec(),
                    ];
                    out = self.run(part, parties)?;
                }
            }
        }
        Ok(out)
    }
}

/// A block's entries, one after another, padded to `n` entries with `pad`.
fn padded(block: Option<&[Vec<bool>]>, n: usize, pad: &[bool]) -> Vec<bool> {
    let block = block.unwrap_or_default();
    let mut out: Vec<bool> = block.iter().flatten().copied().collect();
    for _ in block.len()..n {
        out.extend_from_slice(pad);
    }
    out
}

/// `n` bits of the attempt's outputs from `at` (there: `circuit` checked their count).
fn slice(judged: &[bool], at: usize, n: usize) -> Result<Vec<bool>, ChainError> {
    judged
        .get(at..at + n)
        .map(<[bool]>::to_vec)
        .ok_or(ChainError::Layout {
            circuit: Part::Attempt { white: true }.name(),
            what: "its output",
            expected: JUDGED_BITS,
            found: judged.len(),
        })
}
