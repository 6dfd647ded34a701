//! One computation between the garbler and the evaluator, sans IO: four messages, each
//! side a type per state.
//!
//! ```text
//! evaluator                                   garbler
//! Asking ── E1: u (his input bits' OT) ──────▶ Garbled
//!        ◀── G1: y ‖ the garbler's labels ‖ public labels ‖ rows ──
//! Evaluated ── E2: the returned outputs' labels ─▶
//!        ◀── G2: those outputs' bits, one byte each ── (Ended)
//! ```
//!
//! The circuit's input wires are of three sources, in runs a `Layout` lists: carried
//! (labels kept from earlier computations: the evaluator holds one label of each, the
//! garbler its zero label), the garbler's fresh bits, and the evaluator's fresh bits (by
//! oblivious transfer). G1 carries the transfers, then the labels of the garbler's bits
//! in wire order, then the rows. Its outputs are, in order, the returned ones (decoded by
//! the garbler, told to both) and the kept ones (left as labels for later computations).

use super::{Fault, Party};
use crate::gc::garble::{Garbling, Row, rows_from_bytes};
use crate::gc::known::evaluate_known;
use crate::gc::seed::Stream;
use crate::gc::{
    Block, Circuit, DecodeError, EvalError, blocks_from_bytes as blocks,
    blocks_to_bytes as to_bytes, evaluate, garble,
};
use crate::ot::{OtError, extension};

/// Where an input wire's label comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Kept from an earlier computation.
    Carried,
    /// The garbler's fresh bit.
    Garbler,
    /// The evaluator's fresh bit.
    Evaluator,
}

/// How a computation's inputs and outputs divide: the input wires as runs of one
/// source each, in wire order, and how many outputs come first to be returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Runs of input wires: the source and how many.
    pub inputs: Vec<(Source, usize)>,
    /// Outputs returned and decoded, first; the rest are kept as labels.
    pub returned: usize,
}

impl Layout {
    /// The wires of one source, in order.
    pub fn wires(&self, source: Source) -> Vec<usize> {
        let mut at = 0;
        let mut out = vec![];
        for &(s, n) in &self.inputs {
            if s == source {
                out.extend(at..at + n);
            }
            at += n;
        }
        out
    }

    /// How many wires of one source.
    pub fn count(&self, source: Source) -> usize {
        self.inputs
            .iter()
            .filter(|(s, _)| *s == source)
            .map(|(_, n)| n)
            .sum()
    }
}

fn ot_fault(by: Party, e: OtError) -> Fault {
    Fault::Malformed {
        by,
        what: match e {
            OtError::Length { .. } => "an oblivious transfer message of the wrong length",
            OtError::NotAPoint { .. } => "an oblivious transfer message with no point",
            OtError::Inconsistent => "an oblivious transfer request that fails its check",
        },
    }
}

/// The garbler's side once he has garbled (before the evaluator's request).
pub struct Garbled {
    garbling: Garbling,
    run: u64,
    layout: Layout,
    own: Vec<bool>,
    outputs: usize,
}

impl Garbled {
    /// Garbles `c` for run `run`: the carried wires' zero labels are `carried` (one per
    /// carried wire, in order), the garbler's fresh bits `own`.
    pub fn new(
        c: &Circuit,
        stream: &Stream,
        run: u64,
        layout: Layout,
        carried: &[Block],
        own: Vec<bool>,
    ) -> Garbled {
        let pinned: Vec<(usize, Block)> = layout
            .wires(Source::Carried)
            .into_iter()
            .zip(carried.iter().copied())
            .collect();
        Garbled {
            garbling: garble(c, stream, run, &pinned),
            run,
            layout,
            own,
            outputs: c.output_gates.len(),
        }
    }

    /// G1, the answer to the evaluator's E1.
    pub fn answer(self, ot: &extension::Sender, e1: &[u8]) -> Result<(Vec<u8>, Answered), Fault> {
        let l = &self.layout;
        let g = &self.garbling;
        let pairs: Vec<(Block, Block)> = l
            .wires(Source::Evaluator)
            .into_iter()
            .map(|w| {
                let z = g.input(w, false).unwrap_or_default();
                (z, g.input(w, true).unwrap_or_default())
            })
            .collect();
        let y = ot
            .respond(self.run, e1, &pairs)
            .map_err(|e| ot_fault(Party::Evaluator, e))?;
        let label = |(w, &b): (usize, &bool)| g.input(w, b).unwrap_or_default();
        let own: Vec<Block> = l
            .wires(Source::Garbler)
            .into_iter()
            .zip(&self.own)
            .map(label)
            .collect();
        let mut g1 = y;
        g1.extend(to_bytes(&own));
        g1.extend(g.wire_bytes());
        Ok((g1, Answered { garbled: self }))
    }
}

/// The garbler's side once G1 is sent.
pub struct Answered {
    garbled: Garbled,
}

impl Answered {
    /// What was garbled: the audit's replay evaluates knowing it.
    pub fn garbling(&self) -> &Garbling {
        &self.garbled.garbling
    }
}

/// What a side has once a computation ends: the returned outputs' bits, and the labels
/// it carries on — the kept outputs' and the fresh inputs' (the garbler's first, then
/// the evaluator's; an attempt is carried on as the period's earlier attempts). The
/// garbler holds zero labels, the evaluator the labels he computed or received.
pub struct Ended {
    /// The returned outputs' bits.
    pub bits: Vec<bool>,
    /// The kept outputs' labels, in order.
    pub kept: Vec<Block>,
    /// The fresh input wires' labels.
    pub fresh: Vec<Block>,
}

impl Answered {
    /// Reads E2, the returned outputs' labels: each must be one of its wire's two
    /// labels, else the evaluator is at fault. Gives G2 and what the garbler keeps.
    pub fn decode(self, e2: &[u8]) -> Result<(Vec<u8>, Ended), Fault> {
        let g = &self.garbled;
        let r = g.layout.returned.min(g.outputs);
        if e2.len() != r * 16 {
            return Err(Fault::Malformed {
                by: Party::Evaluator,
                what: "returned labels of the wrong length",
            });
        }
        // `decode` reads every output: the kept ones as their zero labels, which says
        // nothing of them.
        let mut labels = blocks(e2);
        let kept: Vec<Block> = (r..g.outputs)
            .map(|k| g.garbling.output_zero(k).unwrap_or_default())
            .collect();
        labels.extend(&kept);
        let bits = match g.garbling.decode(&labels) {
            Ok(mut b) => {
                b.truncate(r);
                b
            }
            Err(DecodeError::NotALabel { output }) => {
                return Err(Fault::NotALabel {
                    by: Party::Evaluator,
                    output,
                });
            }
            Err(DecodeError::Count { .. }) => {
                return Err(Fault::Malformed {
                    by: Party::Evaluator,
                    what: "returned labels of the wrong length",
                });
            }
        };
        let g2 = bits.iter().map(|&b| u8::from(b)).collect();
        let l = &g.layout;
        let fresh = l
            .wires(Source::Garbler)
            .into_iter()
            .chain(l.wires(Source::Evaluator))
            .map(|w| g.garbling.input(w, false).unwrap_or_default())
            .collect();
        Ok((g2, Ended { bits, kept, fresh }))
    }
}

/// The evaluator's side once he asked for his input labels.
pub struct Asking {
    pending: extension::Pending,
    run: u64,
    layout: Layout,
    carried: Vec<Block>,
}

impl Asking {
    /// E1: the OT request for his fresh bits `own`, holding the carried wires' labels.
    pub fn new(
        ot: &extension::Receiver,
        run: u64,
        layout: Layout,
        carried: Vec<Block>,
        own: &[bool],
    ) -> (Vec<u8>, Asking) {
        let (u, pending) = ot.request(run, own);
        (
            u,
            Asking {
                pending,
                run,
                layout,
                carried,
            },
        )
    }

    /// Reads G1, evaluates, and gives E2.
    pub fn evaluate(
        self,
        ot: &extension::Receiver,
        c: &Circuit,
        g1: &[u8],
    ) -> Result<(Vec<u8>, Evaluated), Fault> {
        self.evaluate_by(ot, c, g1, None)
    }

    /// [`Asking::evaluate`] knowing the garbling G1 was made of, as the audit's replay
    /// does (`gc::known`): the same E2, the rows counted but not hashed.
    pub fn evaluate_knowing(
        self,
        ot: &extension::Receiver,
        c: &Circuit,
        g1: &[u8],
        garbling: &Garbling,
    ) -> Result<(Vec<u8>, Evaluated), Fault> {
        self.evaluate_by(ot, c, g1, Some(garbling))
    }

    fn evaluate_by(
        self,
        ot: &extension::Receiver,
        c: &Circuit,
        g1: &[u8],
        known: Option<&Garbling>,
    ) -> Result<(Vec<u8>, Evaluated), Fault> {
        let l = &self.layout;
        let malformed = Fault::Malformed {
            by: Party::Garbler,
            what: "garbled rows and labels of the wrong length",
        };
        let y_len = l.count(Source::Evaluator) * 32;
        let own_len = l.count(Source::Garbler) * 16;
        if g1.len() < y_len + own_len {
            return Err(malformed);
        }
        let (y, rest) = g1.split_at(y_len);
        let (own, rows) = rest.split_at(own_len);
        let theirs = ot
            .finish(&self.pending, y)
            .map_err(|e| ot_fault(Party::Garbler, e))?;
        if !rows.len().is_multiple_of(size_of::<Row>()) {
            return Err(malformed);
        }
        // Every input wire's label, in wire order, from its source.
        let total: usize = l.inputs.iter().map(|(_, n)| n).sum();
        let mut labels = vec![0; total];
        let mut place = |source: Source, from: Vec<Block>| {
            for (w, b) in l.wires(source).into_iter().zip(from) {
                labels[w] = b;
            }
        };
        place(Source::Carried, self.carried);
        let own = blocks(own);
        place(Source::Garbler, own.clone());
        place(Source::Evaluator, theirs.clone());
        let fresh: Vec<Block> = own.into_iter().chain(theirs).collect();
        let shape = |e: EvalError| match e {
            EvalError::Rows { .. } | EvalError::Inputs { .. } => malformed,
        };
        let known = match known {
            Some(g) => {
                evaluate_known(g, c, rows.len() / size_of::<Row>(), &labels).map_err(shape)?
            }
            None => None,
        };
        let out = match known {
            Some(out) => out,
            None => {
                let rows: Vec<Row> = rows_from_bytes(rows).ok_or(malformed)?;
                evaluate(c, &rows, self.run, &labels).map_err(shape)?
            }
        };
        let returned = l.returned.min(out.len());
        let e2 = to_bytes(&out[..returned]);
        Ok((
            e2,
            Evaluated {
                kept: out[returned..].to_vec(),
                returned,
                fresh,
            },
        ))
    }
}

/// The evaluator's side once E2 is sent: the labels of the kept outputs and of the fresh
/// inputs.
pub struct Evaluated {
    kept: Vec<Block>,
    returned: usize,
    fresh: Vec<Block>,
}

impl Evaluated {
    /// Reads G2.
    pub fn finish(self, g2: &[u8]) -> Result<Ended, Fault> {
        if g2.len() != self.returned || g2.iter().any(|&b| b > 1) {
            return Err(Fault::Malformed {
                by: Party::Garbler,
                what: "decoded bits of the wrong length or not bits",
            });
        }
        Ok(Ended {
            bits: g2.iter().map(|&b| b == 1).collect(),
            kept: self.kept,
            fresh: self.fresh,
        })
    }
}
