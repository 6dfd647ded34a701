//! sealed-conformance: the spec's vectors checked against the implementation,
//! adversarial peers, and deterministic simulations.

pub mod cardmate_kit;
pub mod chex_kit;
pub mod duel_kit;
pub mod forfeit_kit;
pub mod pair;
pub mod peer;
pub mod race;
pub mod scenarios;
pub mod sim;
pub mod stallmate_kit;
pub mod stallmate_witness;
pub mod tempete_kit;
pub mod time_attacks;
pub mod vectors;
pub mod witness_vectors;
