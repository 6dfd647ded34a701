//! Garbled circuits: half-gates garbling with free XOR over fixed-key AES, the engine
//! issue 35 asks for in place of polytune's authenticated garbling (spec/GAMES.md §5.13).
//!
//! Plain half-gates (Zahur, Rosulek and Evans, "Two Halves Make a Whole", Eurocrypt 2015)
//! is secure against a party that follows the protocol. What makes it enough here is the
//! audit: every random choice of the garbler comes from one seed (`seed.rs`) he commits to
//! before the first computation and opens at the end, so anyone can garble again and
//! compare, row by row, with what was sent (`Garbling::wire_bytes`). A
//! garbler who garbled another function is then proven at fault.
//!
//! Sans-IO and deterministic: no socket, clock or randomness inside. [`garble`] turns a
//! circuit and a seed into the rows to send and keeps the zero labels; an evaluator
//! (`evaluate.rs`) turns the rows and one label per input wire into one label per
//! output wire; the garbler reads those labels back (`Garbling::decode`), and a label
//! that is neither of a wire's two is the evaluator's fault.
//!
//! Files: the 128-bit label `Block` here; the hash of the half gates (`hash.rs`); the
//! labels drawn from the seed (`seed.rs`); garbling (`garble.rs`); evaluation
//! (`evaluate.rs`), and the same outputs found knowing the garbling, as the audit does
//! (`known.rs`).

pub mod evaluate;
pub mod garble;
pub mod hash;
pub mod known;
pub mod seed;

pub use evaluate::{EvalError, evaluate};
pub use garble::{DecodeError, Garbling, garble};

/// A wire label: 128 bits. Its least significant bit is the point-and-permute bit: the
/// two labels of a wire differ in it (the global offset `Δ` has it set), so the evaluator
/// knows which row of a gate to use without learning the wire's value.
pub type Block = u128;

/// The point-and-permute bit of a label.
#[inline]
pub fn lsb(b: Block) -> bool {
    b & 1 == 1
}

/// Blocks as bytes: each its 16 little-endian bytes, in order (every message of `ot` and
/// `play` that carries labels).
pub fn blocks_to_bytes(blocks: &[Block]) -> Vec<u8> {
    let mut out = Vec::with_capacity(blocks.len() * 16);
    for b in blocks {
        out.extend_from_slice(&b.to_le_bytes());
    }
    out
}

/// Blocks read back from bytes; a trailing part shorter than a block is ignored (the
/// callers check lengths first).
pub fn blocks_from_bytes(bytes: &[u8]) -> Vec<Block> {
    bytes.chunks_exact(16).map(block_at).collect()
}

/// The block of the first 16 bytes of `bytes` (which has at least 16).
#[inline]
pub(crate) fn block_at(bytes: &[u8]) -> Block {
    let mut b = [0u8; 16];
    b.copy_from_slice(&bytes[..16]);
    Block::from_le_bytes(b)
}

/// The circuit format: garble_lang's, inputs first (every party's in order), then the
/// gates, each one wire.
pub use garble_lang::circuit::{Circuit, Gate};

/// How many input wires a circuit has, all parties together.
pub fn input_count(c: &Circuit) -> usize {
    c.input_gates.iter().sum()
}
