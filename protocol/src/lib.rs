//! # sealed-protocol
//!
//! The sans-IO core of sealed: everything two players who do not trust each other need
//! to play a hidden-information game with no referee, and everything anyone needs to
//! check the result afterwards. No sockets, no files, no clock, no randomness: time and
//! entropy are arguments, bytes go in and come out.
//!
//! - [`commit`]: salted commitments bound to game, seat, purpose and index;
//! - [`derive`] and [`random`]: the joint coin, private seeded setups, blind deals, all
//!   drawn from one named ChaCha20 stream;
//! - [`envelope`] and [`body`]: signed links of per-seat hash chains;
//! - [`engine`]: the deterministic replay that judges every envelope against exactly
//!   what it acknowledged, used live and offline;
//! - [`verdict`]: proofs, claims and results;
//! - [`transcript`]: the file anyone can verify;
//! - [`session`]: one seat's live state machine;
//! - [`rules`]: the trait a game implements;
//! - [`hidden`]: private logs and the end-of-game audit of what no seat could judge live;
//! - [`text`]: names and moves from others, escaped before they are shown;
//! - [`witness`]: the statements a witness signs about time (version 2, in progress).
//!
//! The byte-level specification is `spec/PROTOCOL.md` in the repository.

pub mod body;
pub mod commit;
pub mod deposit;
pub mod derive;
pub mod engine;
pub mod envelope;
pub mod fault;
pub mod hash;
pub mod hidden;
pub mod ids;
pub mod keys;
pub mod lateness;
pub mod outcome;
pub mod proof;
pub mod proposal;
pub mod random;
pub mod rules;
pub mod session;
pub mod text;
pub mod time;
pub mod transcript;
pub mod verdict;
pub mod wire;
pub mod witness;
