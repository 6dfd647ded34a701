//! The chain evaluated in the clear: each circuit compiled once and kept, the attempt's
//! inputs checked for size before anything runs, then the circuits of `plan` run in
//! order over bits, each one's outputs passed into the next one's inputs as the garbled
//! chain will pass labels. What the two players compute together, computed by one: the
//! test of the chain against the one-shot circuit and the referee, and the measure of its
//! cost.

use super::files::{self, FileError};
use super::walk::{Inputs, Wires, walk};
use super::{
    ChainError, EARLIER_BLOCK, FLAG_BITS, FOLD_BITS, FRESH_BITS, JUDGED_BITS, OUT_BITS, PAIR_BITS,
    Part, WINDOW_BLOCK, source,
};
use crate::gc::Circuit;
use crate::kept::{FIXED_BITS, ITEM_BITS, KEY_BITS};

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

/// Whether the inputs given to `part` are its layout's, party by party: garble_lang's
/// evaluation panics on any other, and a composed circuit would be the wrong function.
pub(super) fn check_parties<W>(part: Part, parties: &[Vec<W>]) -> Result<(), ChainError> {
    let found: Vec<usize> = parties.iter().map(Vec::len).collect();
    sizes(part, "the list of inputs given", "an input given", &found)
}

/// Whether a circuit has `part`'s layout.
pub(super) fn check_layout(part: Part, c: &Circuit) -> Result<(), ChainError> {
    sizes(part, "its list of inputs", "an input", &c.input_gates)?;
    let (_, outputs) = layout(part);
    if c.output_gates.len() != outputs {
        return Err(ChainError::Layout {
            circuit: part.name(),
            what: "its output",
            expected: outputs,
            found: c.output_gates.len(),
        });
    }
    Ok(())
}

/// Whether `found`, input sizes party by party, are `part`'s: the first that differs is
/// `one`, a count of parties that differs is `list`.
fn sizes(
    part: Part,
    list: &'static str,
    one: &'static str,
    found: &[usize],
) -> Result<(), ChainError> {
    let (inputs, _) = layout(part);
    let wrong = |what, expected, found| ChainError::Layout {
        circuit: part.name(),
        what,
        expected,
        found,
    };
    if inputs.len() != found.len() {
        return Err(wrong(list, inputs.len(), found.len()));
    }
    match inputs.iter().zip(found).find(|(e, f)| e != f) {
        Some((&e, &f)) => Err(wrong(one, e, f)),
        None => Ok(()),
    }
}

/// The chain's circuits: read from the files under `spec/circuits/` ([`Chain::from_files`],
/// what play is to garble), or each compiled from its source the first time it is needed
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

    /// `part`'s circuit if it is read or compiled already.
    pub fn loaded(&self, part: Part) -> Result<&Circuit, ChainError> {
        self.circuits[part.index()]
            .as_ref()
            .ok_or(ChainError::NotLoaded {
                circuit: part.name(),
            })
    }

    /// Runs `part` on its inputs, party by party, their sizes checked first.
    fn run(&mut self, part: Part, parties: Vec<Vec<bool>>) -> Result<Vec<bool>, ChainError> {
        check_parties(part, &parties)?;
        Ok(self.circuit(part)?.eval(&parties))
    }

    /// The attempt's outputs, as `kept`'s circuit of its shape gives them after
    /// garble_lang's panic bits ([`OUT_BITS`]): made, the mover's answer and what the
    /// other hears (under their pads), the key of the position after, the next `Fixed`.
    pub fn evaluate(&mut self, inputs: &Inputs) -> Result<Vec<bool>, ChainError> {
        walk(&mut Clear(self), inputs)
    }
}

/// The chain run in the clear: a wire is its bit.
struct Clear<'c>(&'c mut Chain);

impl Wires for Clear<'_> {
    type W = bool;

    fn public(&mut self, bits: &[bool]) -> Result<Vec<bool>, ChainError> {
        Ok(bits.to_vec())
    }

    fn run(&mut self, part: Part, parties: Vec<Vec<bool>>) -> Result<Vec<bool>, ChainError> {
        self.0.run(part, parties)
    }
}
