//! Secret Stallmate's referee as a boolean circuit, for secure two-party computation:
//! the study of issue 20 (spec/GAMES.md §5.13). Not a game mode: the figures decide
//! whether one follows.
//!
//! The circuit is written in Garble (garble_lang), in `src/garble/`: bitboards and
//! attacks (`board`), a position and a move made on it (`position`), the legal moves
//! that exist — pins, checks, en passant and Chess960 castling (`legal`), one attempt
//! judged with its announcements and the ending it brings (`judge`), SHA-256 for the
//! commitments each input is checked against (`sha256`), and the referee's function
//! itself, its inputs and outputs (`referee`). This crate compiles it for a given ply
//! and turn, encodes the two players' inputs and decodes the answer; the differential
//! test checks it against the referee of sealed-games, and `mpc/bench` runs it under
//! polytune between two processes.
//!
//! Files: the Garble source and its compilation `circuit.rs`; circuits as Bristol Fashion
//! text, written and read `bristol.rs`; the program written out per shape `program.rs`;
//! inputs and commitments `inputs.rs`; the output read back `outputs.rs`. The differential
//! test runs it against `Referee::attempt`; `mpc/bench` is outside the workspace. Issue
//! 35's second attempt: `gc`, half-gates garbling with free XOR over fixed-key AES, every
//! random choice from a seed the audit can open; `ot`, the oblivious transfers that give
//! the evaluator his input labels; `kept`, the referee's attempt with the game's state kept
//! between computations. The crate imports nothing of sealed but in its tests.
#![forbid(unsafe_code)]

pub mod bristol;
pub mod chain;
pub mod circuit;
pub mod fingerprint;
pub mod gc;
pub mod inputs;
pub mod kept;
pub mod ot;
pub mod outputs;
pub mod play;
pub mod program;
