//! The node's memory plan (issue 52): what each budget that strangers can fill may hold
//! at most, added up, against the 256 MiB a public node is meant to stay within under
//! any one attack (the swarm's table in docs/RELIABILITY.md measures it, row by row).
//!
//! Each part is a bound kept where its resource is (the constants below name them); this
//! file only adds them up, so that raising one is a compile error until another comes
//! down or the plan says why. What is not here is small and bounded elsewhere: per-peer
//! records (`core/src/peers.rs`, `limit.rs`), lookup records, and the connections
//! themselves (about 48 KiB each, 4096 at most, `origin.rs`: measured apart in
//! docs/RELIABILITY.md, "a crowd"). Budgets are filled by different floods; one flood
//! that filled all of them at once would still be within [`PLAN`] plus the code and the
//! runtime ([`REST`]).

use sealed_core::MAX_QUEUED_BYTES;
use sealed_core::resident::RESIDENT_FOR_STRANGERS;

use crate::net::MAX_OWED;
use crate::store::CACHE_BYTES;
use crate::sync::MAX_HELD;

const MIB: u64 = 1 << 20;

/// What an envelope in a table costs in memory per byte of it (parsed, hashed,
/// indexed), as measured by the swarm's table.
pub const ENVELOPE_COST: u64 = 3;

/// Each part of the plan: what it is, and its bound in bytes.
pub const PARTS: [(&str, u64); 5] = [
    // `resident.rs`: twice the share is the hard bound.
    (
        "strangers' games in memory",
        2 * RESIDENT_FOR_STRANGERS * ENVELOPE_COST,
    ),
    ("messages being read", MAX_HELD as u64),
    ("answers waiting to be written", MAX_OWED as u64),
    // Held twice while waiting: the core's step and the store's copy (`core/src/sync.rs`).
    ("writes waiting for the store", 2 * MAX_QUEUED_BYTES),
    ("the store's page cache", CACHE_BYTES as u64),
];

/// The plan's parts added up.
pub const PLAN: u64 = {
    let mut sum = 0;
    let mut i = 0;
    while i < PARTS.len() {
        sum += PARTS[i].1;
        i += 1;
    }
    sum
};

/// What the plan leaves for everything else: the code, the runtime and the allocator's
/// slack (a node at rest is about 21 MiB).
pub const REST: u64 = 32 * MIB;

/// The goal the plan is made for.
pub const GOAL: u64 = 256 * MIB;

const _: () = assert!(PLAN + REST <= GOAL, "the memory plan passes its goal");
