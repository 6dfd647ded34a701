//! One computation between the garbler and the evaluator, sans IO: four messages, each
//! side a type per state.
//!
//! ```text
//! evaluator                                   garbler
//! Asking ── E1: u (his input bits' OT) ──────▶ Garbled
//!        ◀── G1: y ‖ the garbler's own labels ‖ rows ──
//! Evaluated ── E2: the returned outputs' labels ─▶
//!        ◀── G2: those outputs' bits, one byte each ── (Decoded)
//! ```
//!
//! The circuit's inputs are, in order, carried wires (labels kept from earlier
//! computations: the evaluator holds one label of each, the garbler its zero label), the
//! garbler's fresh bits, then the evaluator's fresh bits. Its outputs are, in order, the
//! returned ones (decoded by the garbler, told to both) and the kept ones (left as labels
//! for later computations).

use super::{Fault, Party};
use crate::gc::garble::{Garbling, Row, rows_from_bytes};
use crate::gc::seed::Stream;
use crate::gc::{Block, Circuit, DecodeError, EvalError, evaluate, garble};
use crate::ot::{OtError, extension};

/// How a computation's inputs and outputs divide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Carried input wires, first.
    pub carried: usize,
    /// The garbler's fresh input bits, next.
    pub garbler: usize,
    /// The evaluator's fresh input bits, last.
    pub evaluator: usize,
    /// Outputs returned and decoded, first; the rest are kept as labels.
    pub returned: usize,
}

fn blocks(bytes: &[u8]) -> Vec<Block> {
    bytes
        .chunks_exact(16)
        .map(|c| {
            let mut b = [0u8; 16];
            b.copy_from_slice(c);
            Block::from_le_bytes(b)
        })
        .collect()
}

fn to_bytes(b: &[Block]) -> Vec<u8> {
    b.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn ot_fault(by: Party, e: OtError) -> Fault {
    Fault::Malformed {
        by,
        what: match e {
            OtError::Length { .. } => "an oblivious transfer message of the wrong length",
            OtError::NotAPoint { .. } => "an oblivious transfer message with no point",
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
        let pinned: Vec<(usize, Block)> = carried.iter().copied().enumerate().collect();
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
        let l = self.layout;
        let g = &self.garbling;
        let their = l.carried + l.garbler;
        let pairs: Vec<(Block, Block)> = (0..l.evaluator)
            .map(|k| {
                let z = g.input(their + k, false).unwrap_or_default();
                (z, g.input(their + k, true).unwrap_or_default())
            })
            .collect();
        let y = ot
            .respond(self.run, e1, &pairs)
            .map_err(|e| ot_fault(Party::Evaluator, e))?;
        let own: Vec<Block> = self
            .own
            .iter()
            .enumerate()
            .map(|(k, &b)| g.input(l.carried + k, b).unwrap_or_default())
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

/// The garbler's side once the returned outputs are decoded: their bits, the zero labels
/// of the kept outputs, and those of the fresh inputs (an attempt is carried on as the
/// period's earlier attempts).
pub struct Decoded {
    /// The returned outputs' bits.
    pub bits: Vec<bool>,
    /// The kept outputs' zero labels, in order.
    pub kept: Vec<Block>,
    /// The fresh input wires' zero labels: the garbler's, then the evaluator's.
    pub fresh: Vec<Block>,
}

impl Answered {
    /// Reads E2, the returned outputs' labels: each must be one of its wire's two
    /// labels, else the evaluator is at fault. Gives G2 and what the garbler keeps.
    pub fn decode(self, e2: &[u8]) -> Result<(Vec<u8>, Decoded), Fault> {
        let g = &self.garbled;
        let r = g.layout.returned;
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
        let l = g.layout;
        let fresh = (l.carried..l.carried + l.garbler + l.evaluator)
            .map(|w| g.garbling.input(w, false).unwrap_or_default())
            .collect();
        Ok((g2, Decoded { bits, kept, fresh }))
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
        let l = self.layout;
        let malformed = Fault::Malformed {
            by: Party::Garbler,
            what: "garbled rows and labels of the wrong length",
        };
        let y_len = l.evaluator * 32;
        let own_len = l.garbler * 16;
        if g1.len() < y_len + own_len {
            return Err(malformed);
        }
        let (y, rest) = g1.split_at(y_len);
        let (own, rows) = rest.split_at(own_len);
        let theirs = ot
            .finish(&self.pending, y)
            .map_err(|e| ot_fault(Party::Garbler, e))?;
        let rows: Vec<Row> = rows_from_bytes(rows).ok_or(malformed)?;
        let mut labels = self.carried;
        let fresh_at = labels.len();
        labels.extend(blocks(own));
        labels.extend(theirs);
        let out = evaluate(c, &rows, self.run, &labels).map_err(|e| match e {
            EvalError::Rows { .. } | EvalError::Inputs { .. } => Fault::Malformed {
                by: Party::Garbler,
                what: "garbled rows and labels of the wrong length",
            },
        })?;
        let e2 = to_bytes(&out[..l.returned]);
        Ok((
            e2,
            Evaluated {
                kept: out[l.returned..].to_vec(),
                returned: l.returned,
                fresh: labels[fresh_at..].to_vec(),
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

/// What the evaluator has once a computation ends.
pub struct Finished {
    /// The returned outputs' bits, as the garbler decoded them.
    pub bits: Vec<bool>,
    /// The kept outputs' labels, in order.
    pub kept: Vec<Block>,
    /// The fresh input wires' labels: the garbler's, then his own.
    pub fresh: Vec<Block>,
}

impl Evaluated {
    /// Reads G2.
    pub fn finish(self, g2: &[u8]) -> Result<Finished, Fault> {
        if g2.len() != self.returned || g2.iter().any(|&b| b > 1) {
            return Err(Fault::Malformed {
                by: Party::Garbler,
                what: "decoded bits of the wrong length or not bits",
            });
        }
        Ok(Finished {
            bits: g2.iter().map(|&b| b == 1).collect(),
            kept: self.kept,
            fresh: self.fresh,
        })
    }
}
