//! The chain garbled (docs/design/circuits-as-data.md, step 3): one attempt's circuits
//! garbled one after another under one offset `Δ`, each circuit's output labels used as
//! the next one's input labels (free: nothing is sent between circuits), so what crosses
//! a circuit's edge stays a label and is never decoded. The same walk as in the clear
//! (`walk.rs`), over labels.
//!
//! Runs: an attempt garbled from run `r` takes `r` for its public labels (input wire `i`
//! of run `r` is the `i`-th public bit the walk asks for: the flags, the first fold and
//! pair, the padding) and `r + 1 + s` for the `s`-th circuit of its plan, so that no two
//! AND gates of a seed share a tweak. Every input of a circuit is a label the walk hands
//! it (the stream's own labels of a run are drawn but unused): the state's and the fresh
//! inputs' come from the caller (carried from earlier attempts, or drawn for the
//! players' attempt by the caller's transfers), the rest from earlier circuits.
//!
//! The garbler sends the rows of every circuit and the labels of the public bits; the
//! evaluator, given those and his labels of the state and of both fresh inputs, gets the
//! last circuit's output labels, which the garbler decodes ([`Garbled::decode`]). Rows or
//! public labels of the wrong count are refused with the circuit they belong to, nothing
//! evaluated past it: a fault of whoever sent them.

use super::eval::check_parties;
use super::walk::{Inputs, Wires, walk};
use super::{Chain, ChainError, Facts, Part, plan};
use crate::gc::garble::{DecodeError, Row, decode};
use crate::gc::seed::Stream;
use crate::gc::{Block, EvalError, evaluate, garble};

/// One attempt's chain garbled: what the garbler sends, and what he keeps to decode.
pub struct Garbled {
    /// The rows of each circuit of the plan, in order.
    pub rows: Vec<Vec<Row>>,
    /// The labels of the public bits, in the order the walk asks for them.
    pub public: Vec<Block>,
    /// The zero labels of the last circuit's outputs.
    outputs: Vec<Block>,
    /// The offset `Δ`.
    delta: Block,
}

impl Garbled {
    /// The bits the evaluator's output labels stand for, or the first that is neither of
    /// its wire's two labels (the evaluator's fault).
    pub fn decode(&self, labels: &[Block]) -> Result<Vec<bool>, DecodeError> {
        decode(&self.outputs, self.delta, labels)
    }

    /// The zero labels of the last circuit's outputs: carried into the next attempt as
    /// its state's (`Fixed`, the key).
    pub fn output_zeros(&self) -> &[Block] {
        &self.outputs
    }
}

/// How many runs an attempt of `facts` takes from its first: one for the public labels
/// and one a circuit.
pub fn runs(facts: Facts) -> u64 {
    1 + plan(facts).len() as u64
}

/// Garbles the chain of `inputs` (each wire the garbler's zero label) from run `run` of
/// `stream`'s seed.
pub fn garble_chain(
    chain: &mut Chain,
    stream: &Stream,
    run: u64,
    inputs: &Inputs<Block>,
) -> Result<Garbled, ChainError> {
    let mut g = Garbler {
        chain,
        stream,
        run,
        delta: stream.delta(),
        rows: vec![],
        public: vec![],
    };
    let outputs = walk(&mut g, inputs)?;
    Ok(Garbled {
        rows: g.rows,
        public: g.public,
        outputs,
        delta: g.delta,
    })
}

/// Evaluates the chain of `inputs` (each wire the evaluator's label) garbled from run
/// `run` as `rows` and `public`, giving the last circuit's output labels.
pub fn evaluate_chain(
    chain: &mut Chain,
    run: u64,
    rows: &[Vec<Row>],
    public: &[Block],
    inputs: &Inputs<Block>,
) -> Result<Vec<Block>, ChainError> {
    let steps = plan(inputs.facts()).len();
    if rows.len() != steps {
        return Err(ChainError::Circuits {
            expected: steps,
            got: rows.len(),
        });
    }
    let mut e = Evaluator {
        chain,
        run,
        rows,
        public,
        taken: 0,
    };
    let out = walk(&mut e, inputs)?;
    if e.taken != public.len() {
        return Err(ChainError::PublicLabels {
            expected: e.taken,
            got: public.len(),
        });
    }
    Ok(out)
}

/// The garbler's side of the walk: a wire is its zero label.
struct Garbler<'a> {
    chain: &'a mut Chain,
    stream: &'a Stream,
    run: u64,
    delta: Block,
    rows: Vec<Vec<Row>>,
    public: Vec<Block>,
}

impl Wires for Garbler<'_> {
    type W = Block;

    fn public(&mut self, bits: &[bool]) -> Result<Vec<Block>, ChainError> {
        let mut zeros = Vec::with_capacity(bits.len());
        for &bit in bits {
            let zero = self.stream.input_zero(self.run, self.public.len() as u64);
            self.public.push(if bit { zero ^ self.delta } else { zero });
            zeros.push(zero);
        }
        Ok(zeros)
    }

    fn run(
        &mut self,
        part: Part,
        step: usize,
        parties: Vec<Vec<Block>>,
    ) -> Result<Vec<Block>, ChainError> {
        check_parties(part, &parties)?;
        let c = self.chain.circuit(part)?;
        let carried: Vec<(usize, Block)> = parties.into_iter().flatten().enumerate().collect();
        let g = garble(c, self.stream, self.run + 1 + step as u64, &carried);
        let outputs = (0..c.output_gates.len())
            .filter_map(|k| g.output_zero(k))
            .collect();
        self.rows.push(g.rows);
        Ok(outputs)
    }
}

/// The evaluator's side of the walk: a wire is the label he holds.
struct Evaluator<'a> {
    chain: &'a mut Chain,
    run: u64,
    rows: &'a [Vec<Row>],
    public: &'a [Block],
    taken: usize,
}

impl Wires for Evaluator<'_> {
    type W = Block;

    fn public(&mut self, bits: &[bool]) -> Result<Vec<Block>, ChainError> {
        let end = self.taken + bits.len();
        let labels = self
            .public
            .get(self.taken..end)
            .ok_or(ChainError::PublicLabels {
                expected: end,
                got: self.public.len(),
            })?;
        self.taken = end;
        Ok(labels.to_vec())
    }

    fn run(
        &mut self,
        part: Part,
        step: usize,
        parties: Vec<Vec<Block>>,
    ) -> Result<Vec<Block>, ChainError> {
        check_parties(part, &parties)?;
        let c = self.chain.circuit(part)?;
        let rows = self.rows.get(step).ok_or(ChainError::Garbled {
            circuit: part.name(),
            error: EvalError::Rows {
                expected: c.and_gates(),
                got: 0,
            },
        })?;
        let labels: Vec<Block> = parties.into_iter().flatten().collect();
        evaluate(c, rows, self.run + 1 + step as u64, &labels).map_err(|error| {
            ChainError::Garbled {
                circuit: part.name(),
                error,
            }
        })
    }
}
