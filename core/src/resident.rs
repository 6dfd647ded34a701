//! What strangers' games hold in memory, and who yields when it is full (issue 52).
//!
//! A game this node plays keeps its envelopes in its table while it is in memory
//! (`game/states.rs` `Played`). The day's quotas bound what strangers make the node *store*
//! (`quota.rs`: 256 MiB a network a day), and each game is bounded (`take.rs`
//! [`GAME_BYTES`](crate::take::GAME_BYTES)), but neither bounds what is *resident*: a
//! referee, or a player whose bots accept every game, holds every running game's table
//! at once, and eight networks' day of quotas is 2 GiB. So the bytes of the games in
//! memory that strangers brought — every game with an owner (`held.rs` `Holder`: an
//! invitation, an accepted stranger's invitation, a refereed game) — are counted by the
//! owner's network, against [`RESIDENT_FOR_STRANGERS`]:
//!
//! - below it, any game takes what it is sent (within its own bound);
//! - past it, up to twice it, a network holding less than its share — the total over
//!   the networks holding any — is still served, so that the networks that filled it
//!   do not shut out a newcomer; one holding its share or more is refused
//!   (`PeerRefusal::MemoryShare`, "try later": its sender's repair rounds send it
//!   again) until games leave memory (finished games when idle, `sleep.rs`; stalled
//!   ones when their lifetime ends, `held.rs`);
//! - twice the total is a hard bound: past it everyone is refused.
//!
//! A game this node proposed has no owner: it is not counted, and never refused for the
//! strangers'. (An accepted invitation keeps its owner: a bot that accepts every game
//! would otherwise let any stranger's game grow in memory unshared.)
//!
//! The figure: an envelope in a table costs about three times its bytes in memory
//! (parsed, hashed, indexed; the swarm's table, docs/RELIABILITY.md), so twice 16 MiB
//! of envelopes is about 96 MiB resident at most: the largest part of the node's memory
//! plan (`node/src/memory.rs`), under the 256 MiB a public node is meant to stay within.

use std::collections::BTreeMap;

use super::Core;

/// Bytes of strangers' envelopes the tables in memory may hold, all networks together,
/// before a network past its share is refused; twice it is the hard bound (see the
/// module documentation).
pub const RESIDENT_FOR_STRANGERS: u64 = 16 << 20;

/// Whether `network` may add `n` bytes to what `held` counts by network, within `limit`.
pub fn admits(held: &BTreeMap<&str, u64>, network: &str, n: u64, limit: u64) -> bool {
    let total: u64 = held.values().sum();
    let after = total.saturating_add(n);
    if after <= limit {
        return true;
    }
    if after > limit.saturating_mul(2) {
        return false;
    }
    let networks = held.len() + usize::from(!held.contains_key(network));
    let mine = held.get(network).copied().unwrap_or(0);
    mine.saturating_add(n) <= limit / networks.max(1) as u64
}

impl Core {
    /// Strangers' bytes in the tables in memory, by their owner's network.
    pub(super) fn resident_by_network(&self) -> BTreeMap<&str, u64> {
        let mut held: BTreeMap<&str, u64> = BTreeMap::new();
        for (_, p) in self.games.all_played() {
            if let Some(h) = p.holder() {
                *held.entry(h.group.as_str()).or_default() += p.stored_bytes();
            }
        }
        held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_the_total_anyone_is_served() {
        let held = BTreeMap::from([("a", 30), ("b", 50)]);
        assert!(admits(&held, "a", 20, 100));
        assert!(admits(&held, "c", 20, 100));
    }

    #[test]
    fn past_the_total_only_a_network_within_its_share_is() {
        // Two networks hold 100 of 100: "b" is past its share (50), "a" below it.
        let held = BTreeMap::from([("a", 20), ("b", 80)]);
        assert!(!admits(&held, "b", 1, 100));
        assert!(admits(&held, "a", 10, 100));
        assert!(!admits(&held, "a", 31, 100), "20 + 31 passes a's 50");
        // A newcomer: three networks, a share of 33.
        assert!(admits(&held, "new", 33, 100));
        assert!(!admits(&held, "new", 34, 100));
    }

    #[test]
    fn twice_the_total_is_a_hard_bound() {
        let held = BTreeMap::from([("a", 150), ("b", 45)]);
        assert!(!admits(&held, "new", 6, 100), "195 + 6 passes 200");
        assert!(
            admits(&held, "new", 5, 100),
            "within 200 and the newcomer's share"
        );
    }

    #[test]
    fn what_is_resident_stays_below_twice_the_total_whatever_the_order() {
        // Networks come one after another, each taking all it is let take, in small
        // pieces: the sum never passes twice the limit, and the first newcomers
        // after the total is reached each get their share.
        let limit = 1000;
        let names: Vec<String> = (0..50).map(|i| format!("n{i}")).collect();
        let mut held: BTreeMap<&str, u64> = BTreeMap::new();
        for n in &names {
            while admits(&held, n, 7, limit) {
                *held.entry(n.as_str()).or_default() += 7;
            }
            assert!(held.values().sum::<u64>() <= 2 * limit, "{held:?}");
        }
        for (i, n) in names.iter().enumerate().take(3) {
            assert!(
                held[n.as_str()] + 7 > limit / (i as u64 + 1),
                "{n} got its share"
            );
        }
    }
}
