//! sealed-conformance: the spec's vectors checked against the implementation,
//! adversarial peers, and deterministic simulations.
//!
//! Files: the in-memory simulation `sim.rs`; seats in lock-step rounds with a hand on
//! every envelope `pair.rs` (`Lockstep` over any `Peer` of `peer.rs`: a protocol
//! session, as `Pair`, or a game's table, as the table tests in `tests/table/` drive
//! it); cheat scenarios `scenarios.rs`; the vector generator `vectors.rs` with
//! `bin/gen-vectors.rs` (the vectors in spec/vectors are written only by it); where a
//! transcript's bytes go `transcript_size.rs`, printed by `bin/transcript-size.rs`; a kit
//! per game (`*_kit.rs`); a table's view as JSON for tests that read it by key
//! `view_json.rs`; benches in `benches/`.
#![forbid(unsafe_code)]

pub mod cardmate_kit;
pub mod chex_kit;
pub mod conformance;
pub mod duel_kit;
pub mod duo_kit;
pub mod forfeit_kit;
pub mod pair;
pub mod peer;
pub mod physical_kit;
pub mod race;
pub mod scenarios;
pub mod show_kit;
pub mod sim;
pub mod stallmate_kit;
pub mod stallmate_witness;
pub mod tempete_kit;
pub mod time_attacks;
pub mod transcript_size;
pub mod twin_kit;
pub mod vectors;
pub mod view_json;
pub mod withdraw_kit;
pub mod witness_vectors;
