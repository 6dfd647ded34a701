//! Oblivious transfer: how the evaluator gets the labels of his own input bits without
//! the garbler learning the bits, and without learning the other labels.
//!
//! Base OT (`base.rs`): Chou and Orlandi's "simplest OT" (Latincrypt 2015) over
//! Ristretto255, 128 of them once per game. Extension (`extension.rs`): Ishai, Kilian,
//! Nissim and Petrank (Crypto 2003), which turns those 128 into as many transfers as
//! each computation needs, for a few AES calls each, with the consistency check of
//! Keller, Orsini and Scholl (Crypto 2015), so that a receiver cannot learn the sender's
//! secret by asking with different choices in different columns.
//!
//! Roles: the garbler sends the two labels of each evaluator input wire, so he is the
//! extension's sender, which makes him the base OTs' *receiver* (his choice bits are the
//! extension's secret `s`); the evaluator is the extension's receiver and the base OTs'
//! sender. Both are secure against a party that follows the protocol. As for garbling,
//! every random choice comes from the party's seed (the same `seed::Stream` under its own
//! block numbers), so at the end, seeds and inputs opened, the audit runs both sides again
//! and compares every message with what was signed: a deviation is proven against the
//! seat that sent it.
//!
//! Sans-IO: each step takes the other side's message as bytes and gives its own.

pub mod base;
pub mod extension;
pub mod field;

/// Transfers bootstrapped by the base OTs: the security parameter of the extension.
pub const KAPPA: usize = 128;

/// Why a message of the other side was refused: its length is not what this step
/// expects, or a point in it is not a valid Ristretto encoding. The sender is at fault;
/// nothing changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OtError {
    /// The message has the wrong length.
    Length {
        /// Bytes expected.
        expected: usize,
        /// Bytes received.
        got: usize,
    },
    /// A 32-byte group element that decodes to no point.
    NotAPoint {
        /// Its index in the message.
        index: usize,
    },
    /// An extension request that fails its consistency check: not one choice vector
    /// across the columns (`extension.rs`).
    Inconsistent,
}
