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
//!
//! Files: hashing and framing `hash.rs`; canonical postcard `wire.rs`; strict Ed25519
//! `keys.rs`; the proposal and game id `proposal.rs`; small identifiers `ids.rs`;
//! envelopes and items `envelope.rs`, `body.rs`; commitments `commit.rs`; the ChaCha20
//! stream `random.rs`; coin, setup and deal derivations `derive.rs`; the engine
//! `engine/` — the replay loop `mod.rs`, judging `judge.rs` with the first envelope
//! `first.rs` and pool draws `draws.rs`, what each seat holds `holdings.rs`, private
//! logs and the audit `private.rs`, the deck ledger `ledger.rs`, chains as received
//! `store.rs`, a posted forfeit judged against the poster's causal past `forfeit.rs`,
//! steps and idle envelopes decided by their effect and the accused's clock counted
//! from the witness's ledgers `clock.rs`, and the statements posted for the record, the
//! witness's lies and the audit's times `statements.rs`; private-log types and the
//! digest `hidden.rs`; proven faults `fault.rs` and chain-fault proofs `proof.rs`;
//! results `outcome.rs` and the verdict `verdict.rs`; transcript files `transcript.rs`;
//! one seat's live state machine `session/` (a seat's side of the witness — what it
//! said, deposits, posting and its defence — in `session/witness.rs`); the `Rules`
//! trait `rules.rs`; time controls `time.rs`; text from others (names, typed moves)
//! escaped before it is shown `text.rs`; a witness's statements — ledgers and stamps —
//! and the contradictions that prove it lied `witness.rs`; deposits of private
//! envelopes sealed to their recipient `deposit.rs`; the proof that a seat let its time
//! pass `lateness.rs`; for fuzz builds only, signatures answered once per thread for
//! the same bytes `memo.rs`. Version 2 (the witness, withdrawal, names, shown slots, decks opened whole, the stallmate-duo deposit rule and fingerprints, a loss on time that stays one, a Stallmate move timed as one whatever its attempts, the no-referee circuits as files) is final, written `0xB2`: spec/PROTOCOL.md §17,
//! docs/design/witness.md.
#![forbid(unsafe_code)]

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
// Used only by fuzz builds (the `fuzz-memo` feature); compiled always, so its tests run.
#[cfg_attr(not(feature = "fuzz-memo"), allow(dead_code))]
mod memo;
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
