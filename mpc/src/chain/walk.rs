//! The walk of one attempt's chain, once for every kind of wire: the circuits of `plan`
//! in order, each one's inputs gathered party by party from the attempt's state, the
//! carried fold and pair, the public flags and padding, and the two players' fresh
//! inputs, each one's outputs threaded into the next. In the clear a wire is a bit
//! (`eval.rs`); in the composed circuit it is a wire of that circuit (`compose.rs`). One
//! walk, so the two cannot thread the chain differently.

use super::{
    ChainError, EARLIER_BLOCK, FOLD_BITS, FRESH_BITS, Facts, Flags, JUDGED_BITS, KEY_AT, PAIR_BITS,
    Part, WINDOW_BLOCK, never_item, plan,
};
use crate::kept::{FIXED_BITS, ITEM_BITS, KEY_BITS};

/// What a wire is, and how a circuit runs on such wires.
pub(super) trait Wires {
    /// A wire: a bit, or a wire of the composed circuit.
    type W: Clone;
    /// Wires for bits everyone knows (the flags, the padding, the first fold and pair).
    fn public(&mut self, bits: &[bool]) -> Result<Vec<Self::W>, ChainError>;
    /// Runs `part` on its inputs, party by party.
    fn run(&mut self, part: Part, parties: Vec<Vec<Self::W>>) -> Result<Vec<Self::W>, ChainError>;
}

/// An attempt's inputs, as `kept`'s circuit takes them but unpadded: the state (`Fixed`,
/// the mover's window's keys, the period's earlier items), and each player's fresh input
/// (`Fresh`: his attempt, 0 when he does not move, and his pad). A wire `W` is a bit in
/// the clear, a wire's index when composing.
#[derive(Clone, Copy, Debug)]
pub struct Inputs<'a, W = bool> {
    /// Whether White moves.
    pub mover_white: bool,
    /// The public flags.
    pub flags: Flags,
    /// `Fixed`.
    pub fixed: &'a [W],
    /// The keys of the mover's window, each [`KEY_BITS`].
    pub window: &'a [Vec<W>],
    /// The mover's earlier attempts this period, each [`ITEM_BITS`].
    pub earlier: &'a [Vec<W>],
    /// White's fresh input.
    pub white: &'a [W],
    /// Black's.
    pub black: &'a [W],
}

impl<W> Inputs<'_, W> {
    /// Whether every input is of its size.
    pub(super) fn check(&self) -> Result<(), ChainError> {
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

    /// The public facts that decide the chain's plan.
    pub fn facts(&self) -> Facts {
        Facts {
            mover_white: self.mover_white,
            window: self.window.len(),
            earlier: self.earlier.len(),
        }
    }

    /// The mover's fresh input, then the other's.
    fn fresh(&self) -> (&[W], &[W]) {
        if self.mover_white {
            (self.white, self.black)
        } else {
            (self.black, self.white)
        }
    }
}

/// Walks the chain of `inputs`, their sizes checked first, giving the last circuit's
/// outputs.
pub(super) fn walk<X: Wires>(x: &mut X, inputs: &Inputs<X::W>) -> Result<Vec<X::W>, ChainError> {
    inputs.check()?;
    let (mover, other) = inputs.fresh();
    let facts = inputs.facts();
    let flags = x.public(&inputs.flags.bits())?;
    let mut earlier = inputs.earlier.chunks(EARLIER_BLOCK);
    let mut window = inputs.window.chunks(WINDOW_BLOCK);
    let mut fold = x.public(&[false; FOLD_BITS])?;
    let mut judged = vec![];
    let mut pair = x.public(&[false; PAIR_BITS])?;
    let mut out = vec![];
    for part in plan(facts) {
        match part {
            Part::Earlier4 { .. } => {
                let block = earlier.next().unwrap_or_default();
                let mut items: Vec<X::W> = block.iter().flatten().cloned().collect();
                for _ in block.len()..EARLIER_BLOCK {
                    items.extend(x.public(&never_item())?);
                }
                let parties = vec![
                    fold,
                    inputs.fixed.to_vec(),
                    items,
                    flags.clone(),
                    mover.to_vec(),
                ];
                fold = x.run(part, parties)?;
            }
            Part::Attempt { .. } => {
                let parties = vec![
                    inputs.fixed.to_vec(),
                    fold.clone(),
                    flags.clone(),
                    mover.to_vec(),
                ];
                judged = x.run(part, parties)?;
            }
            Part::Window8 => {
                let block = window.next().unwrap_or_default();
                let mut keys: Vec<X::W> = block.iter().flatten().cloned().collect();
                for _ in block.len()..WINDOW_BLOCK {
                    keys.extend(x.public(&[false; KEY_BITS])?);
                }
                let parties = vec![
                    pair,
                    slice(&judged, KEY_AT, KEY_BITS)?,
                    slice(&judged, KEY_AT + KEY_BITS, 1)?,
                    keys,
                ];
                pair = x.run(part, parties)?;
            }
            Part::Finish => {
                let parties = vec![
                    judged.clone(),
                    pair.clone(),
                    flags.clone(),
                    mover.to_vec(),
                    other.to_vec(),
                ];
                out = x.run(part, parties)?;
            }
        }
    }
    Ok(out)
}

/// `n` wires of the attempt's outputs from `at` (there: each run checks its layout).
fn slice<W: Clone>(judged: &[W], at: usize, n: usize) -> Result<Vec<W>, ChainError> {
    judged
        .get(at..at + n)
        .map(<[W]>::to_vec)
        .ok_or(ChainError::Layout {
            circuit: Part::Attempt { white: true }.name(),
            what: "its output",
            expected: JUDGED_BITS,
            found: judged.len(),
        })
}
