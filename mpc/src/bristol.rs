//! Circuits as text in **Bristol Fashion**, the netlist form MP-SPDZ, emp-toolkit and
//! SCALE-MAMBA read: the form the no-referee circuits take as files under the spec
//! (docs/design/circuits-as-data.md), so that a second implementation garbles the same
//! gates without our compiler. [`write`] turns a compiled circuit into the text, [`read`]
//! turns the text back into a circuit the garbler and the evaluator (`gc`) run.
//!
//! The form, as written here:
//!
//! ```text
//! <gates> <wires>
//! <inputs> <bits of input 1> … <bits of input n>
//! <outputs> <bits of output 1>
//!
//! 2 1 <a> <b> <c> XOR        (or AND)
//! 1 1 <a> <c> INV
//! 1 1 <a> <c> EQW            (a copy: only to put an output in the last wires)
//! ```
//!
//! Wires `0 ..` the inputs' bits, each party's in turn; every gate writes a wire not
//! written before from wires written before (topological order); the outputs are the
//! last wires, in order. The circuits of `gc` (garble_lang's form) number a gate's wire
//! by its place and may name any wire as an output, so [`write`] gives gate `i` the wire
//! `inputs + i` and ends with one `EQW` per output bit; [`read`] takes an `EQW` as the
//! same wire under a second number, never as a gate. All outputs are written as one
//! output of that many bits: how they divide into values is the manifest's to say.
//!
//! Reading is bounded before anything is allocated: at most [`MAX_WIRES`] wires, and no
//! more than the inputs and the text's lines can write (its index of wires is 4 bytes a
//! wire, for the length of the call); it refuses, with the line, anything else: a gate kind other than the
//! four above, a wire read before it is written or written twice, a count that does not
//! match. It never panics, whatever the text.

use std::fmt::Write as _;

use crate::gc::{Circuit, Gate, input_count};

/// Most wires a circuit read may have: a no-referee attempt of window 8 has 142,000 (1,830
/// input bits, 138,720 gates, 1,434 outputs; `mpc/tests/bristol.rs`); this leaves room
/// for about thirty times that and bounds what a hostile file makes the reader hold.
pub const MAX_WIRES: usize = 1 << 22;

/// A wire of [`read`]'s index not written yet.
const UNWRITTEN: u32 = u32::MAX;

/// Why a text is not a circuit, with the line (from 1) where it shows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BristolError {
    /// A header line is missing or does not read as its numbers.
    #[error("line {line}: the header does not read ({what})")]
    Header {
        /// The line.
        line: usize,
        /// What was expected.
        what: &'static str,
    },
    /// More wires than [`MAX_WIRES`].
    #[error("{wires} wires, more than the {MAX_WIRES} read")]
    TooLarge {
        /// The wires the header claims.
        wires: usize,
    },
    /// The header claims more wires than the inputs and the text's lines can write.
    #[error("{wires} wires claimed, the text can write at most {most}")]
    Unwritable {
        /// The wires the header claims.
        wires: usize,
        /// The inputs and one wire a line.
        most: usize,
    },
    /// A gate line does not read.
    #[error("line {line}: not a gate of XOR, AND, INV or EQW")]
    Gate {
        /// The line.
        line: usize,
    },
    /// A gate reads a wire not written before it.
    #[error("line {line}: wire {wire} is read before it is written")]
    Unwritten {
        /// The line.
        line: usize,
        /// The wire.
        wire: usize,
    },
    /// A gate writes a wire already written, or past the header's count.
    #[error("line {line}: wire {wire} is written twice or is out of range")]
    Rewritten {
        /// The line.
        line: usize,
        /// The wire.
        wire: usize,
    },
    /// The gates, wires or outputs are not as many as the header says.
    #[error("the text has {found} {what}, the header says {claimed}")]
    Count {
        /// What was counted.
        what: &'static str,
        /// What the header says.
        claimed: usize,
        /// What the text has.
        found: usize,
    },
}

/// The circuit in Bristol Fashion.
pub fn write(c: &Circuit) -> String {
    let inputs = input_count(c);
    let gates = c.gates.len() + c.output_gates.len();
    let wires = inputs + gates;
    let mut s = String::with_capacity(16 * gates + 64);
    let _ = writeln!(s, "{gates} {wires}");
    let _ = write!(s, "{}", c.input_gates.len());
    for n in &c.input_gates {
        let _ = write!(s, " {n}");
    }
    let _ = writeln!(s, "\n1 {}\n", c.output_gates.len());
    for (i, g) in c.gates.iter().enumerate() {
        let out = inputs + i;
        let _ = match g {
            Gate::Xor(a, b) => writeln!(s, "2 1 {a} {b} {out} XOR"),
            Gate::And(a, b) => writeln!(s, "2 1 {a} {b} {out} AND"),
            Gate::Not(a) => writeln!(s, "1 1 {a} {out} INV"),
        };
    }
    let first_out = inputs + c.gates.len();
    for (j, o) in c.output_gates.iter().enumerate() {
        let _ = writeln!(s, "1 1 {o} {} EQW", first_out + j);
    }
    s
}

/// The numbers of one line, or `None` if any word is not one.
fn numbers(line: &str) -> Option<Vec<usize>> {
    line.split_whitespace().map(|w| w.parse().ok()).collect()
}

/// A header line: a count, then that many numbers.
fn counted(line: Option<(usize, &str)>, what: &'static str) -> Result<Vec<usize>, BristolError> {
    // Line 0: the text ended before this header line.
    let (at, text) = line.ok_or(BristolError::Header { line: 0, what })?;
    let bad = BristolError::Header { line: at, what };
    let n = numbers(text).ok_or(bad.clone())?;
    match n.split_first() {
        Some((count, rest)) if *count == rest.len() => Ok(rest.to_vec()),
        _ => Err(bad),
    }
}

/// The circuit a Bristol Fashion text describes.
pub fn read(text: &str) -> Result<Circuit, BristolError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty());
    let (at, first) = lines.next().ok_or(BristolError::Header {
        line: 1,
        what: "gates and wires",
    })?;
    let (gates, wires) = match numbers(first).as_deref() {
        Some(&[g, w]) => (g, w),
        _ => {
            return Err(BristolError::Header {
                line: at,
                what: "gates and wires",
            });
        }
    };
    if wires > MAX_WIRES {
        return Err(BristolError::TooLarge { wires });
    }
    let input_gates = counted(lines.next(), "the inputs' sizes")?;
    let outputs = counted(lines.next(), "the outputs' sizes")?;
    let inputs = input_gates
        .iter()
        .try_fold(0usize, |a, n| a.checked_add(*n));
    let out_bits = outputs.iter().try_fold(0usize, |a, n| a.checked_add(*n));
    let (Some(inputs), Some(out_bits)) = (inputs, out_bits) else {
        return Err(BristolError::TooLarge { wires: usize::MAX });
    };
    if inputs > wires || out_bits > wires {
        return Err(BristolError::Count {
            what: "wires the inputs or the outputs need",
            claimed: wires,
            found: inputs.max(out_bits),
        });
    }
    // Every wire but an input is written by a line of its own: a header that claims
    // more is refused before the index below is made, so what it holds follows the text
    // (and the inputs the header claims, at most MAX_WIRES).
    let most = inputs.saturating_add(text.lines().count());
    if wires > most {
        return Err(BristolError::Unwritable { wires, most });
    }
    // Each Bristol wire's number in the circuit read, once written ([`UNWRITTEN`] until
    // then): 4 bytes a wire, 16 MiB for the most wires read.
    let mut index: Vec<u32> = vec![UNWRITTEN; wires];
    for (w, slot) in (0u32..).zip(index.iter_mut().take(inputs)) {
        *slot = w;
    }
    let mut c = Circuit {
        input_gates,
        gates: Vec::new(),
        output_gates: Vec::new(),
    };
    let mut seen = 0usize;
    for (at, line) in lines {
        seen += 1;
        let words: Vec<&str> = line.split_whitespace().collect();
        let wire = |w: &str| {
            w.parse::<usize>()
                .map_err(|_| BristolError::Gate { line: at })
        };
        let read_wire = |w: usize, index: &[u32]| match index.get(w) {
            Some(&i) if i != UNWRITTEN => Ok(i as usize),
            _ => Err(BristolError::Unwritten { line: at, wire: w }),
        };
        let (out, made) = match words.as_slice() {
            ["2", "1", a, b, o, kind @ ("XOR" | "AND")] => {
                let (a, b) = (read_wire(wire(a)?, &index)?, read_wire(wire(b)?, &index)?);
                let g = if *kind == "XOR" {
                    Gate::Xor(a, b)
                } else {
                    Gate::And(a, b)
                };
                (wire(o)?, Some(g))
            }
            ["1", "1", a, o, "INV"] => (wire(o)?, Some(Gate::Not(read_wire(wire(a)?, &index)?))),
            ["1", "1", a, o, "EQW"] => {
                let a = read_wire(wire(a)?, &index)?;
                let o = wire(o)?;
                match index.get_mut(o) {
                    Some(slot) if *slot == UNWRITTEN => *slot = a as u32,
                    _ => return Err(BristolError::Rewritten { line: at, wire: o }),
                }
                continue;
            }
            _ => return Err(BristolError::Gate { line: at }),
        };
        // Below `wires`, which is at most MAX_WIRES: it fits.
        let number = (inputs + c.gates.len()) as u32;
        match index.get_mut(out) {
            Some(slot) if *slot == UNWRITTEN => *slot = number,
            _ => {
                return Err(BristolError::Rewritten {
                    line: at,
                    wire: out,
                });
            }
        }
        c.gates.extend(made);
    }
    if seen != gates {
        return Err(BristolError::Count {
            what: "gates",
            claimed: gates,
            found: seen,
        });
    }
    // The outputs are the last wires, every one written.
    for &slot in &index[wires - out_bits..] {
        match slot {
            UNWRITTEN => {
                return Err(BristolError::Count {
                    what: "outputs written",
                    claimed: out_bits,
                    found: c.output_gates.len(),
                });
            }
            i => c.output_gates.push(i as usize),
        }
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A small program with every kind of gate, an output that is an input's wire, and
    /// one named twice.
    fn small() -> Circuit {
        let src = "pub fn main(a: u8, b: u8) -> (u8, bool, u8, u8) { (a + b, a < b, a, a) }";
        let prg = garble_lang::compile(src).expect("compiles");
        prg.circuit.unwrap_ssa_ref().clone()
    }

    #[test]
    fn written_and_read_back_is_the_same_circuit() {
        let c = small();
        let back = read(&write(&c)).expect("reads");
        assert_eq!(back.input_gates, c.input_gates);
        assert_eq!(back.gates, c.gates);
        assert_eq!(back.output_gates, c.output_gates);
        for (a, b) in [(0u8, 0u8), (200, 100), (7, 9), (255, 255)] {
            let bits = |x: u8| (0..8).map(|i| x >> i & 1 == 1).collect::<Vec<bool>>();
            let inputs = [bits(a), bits(b)];
            assert_eq!(back.eval(&inputs), c.eval(&inputs));
        }
    }

    #[test]
    fn the_header_counts_what_follows() {
        let c = small();
        let text = write(&c);
        let (head, rest) = text.split_once('\n').expect("a header");
        let n: Vec<usize> = numbers(head).expect("numbers");
        assert_eq!(
            n,
            vec![c.gates.len() + c.output_gates.len(), input_count(&c) + n[0]]
        );
        let gate_lines = rest
            .lines()
            .filter(|l| ["XOR", "AND", "INV", "EQW"].iter().any(|k| l.ends_with(k)))
            .count();
        assert_eq!(gate_lines, n[0]);
    }

    #[test]
    fn hostile_texts_are_refused_by_name() {
        type Expected = fn(&BristolError) -> bool;
        let cases: &[(&str, Expected)] = &[
            ("", |e| matches!(e, BristolError::Header { .. })),
            ("2 5\n2 2 2\n1 1\n2 1 0 1 4 AND\n", |e| {
                matches!(e, BristolError::Count { what: "gates", .. })
            }),
            ("1 4\n2 1 1\n1 1\n2 1 0 3 2 AND\n", |e| {
                matches!(e, BristolError::Unwritten { wire: 3, .. })
            }),
            ("1 4\n2 1 1\n1 1\n2 1 0 1 0 AND\n", |e| {
                matches!(e, BristolError::Rewritten { wire: 0, .. })
            }),
            ("1 4\n2 1 1\n1 1\n2 1 0 1 9 AND\n", |e| {
                matches!(e, BristolError::Rewritten { wire: 9, .. })
            }),
            ("1 4\n2 1 1\n1 1\n2 1 0 1 2 OR\n", |e| {
                matches!(e, BristolError::Gate { .. })
            }),
            ("1 99999999999\n2 1 1\n1 1\n", |e| {
                matches!(e, BristolError::TooLarge { .. })
            }),
            ("1 4000000\n2 1 1\n1 1\n2 1 0 1 2 AND\n", |e| {
                matches!(
                    e,
                    BristolError::Unwritable {
                        wires: 4_000_000,
                        ..
                    }
                )
            }),
            ("1 4\n2 1 1\n1 1\n2 1 0 1 2 AND\n", |e| {
                matches!(
                    e,
                    BristolError::Count {
                        what: "outputs written",
                        ..
                    }
                )
            }),
            ("0 2\n3 1 1\n1 1\n", |e| {
                matches!(e, BristolError::Header { .. })
            }),
        ];
        for (text, expected) in cases {
            let e = read(text).expect_err(text);
            assert!(expected(&e), "{text:?}: {e:?}");
        }
        // The smallest circuit that reads: one AND of two inputs, its output last.
        let c = read("1 3\n2 1 1\n1 1\n2 1 0 1 2 AND\n").expect("reads");
        assert_eq!(c.gates, vec![Gate::And(0, 1)]);
        assert_eq!(c.output_gates, vec![2]);
    }

    proptest! {
        #[test]
        fn any_text_reads_or_is_refused_without_panic(text in "[0-9 A-Z\n]{0,200}") {
            let _ = read(&text);
        }

        #[test]
        fn any_bytes_read_or_are_refused_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = read(&String::from_utf8_lossy(&bytes));
        }
    }
}
