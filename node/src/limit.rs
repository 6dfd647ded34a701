//! Per-peer rate limits: a token bucket per peer, charged one token per request and
//! one per envelope it carries, so a peer cannot make the node verify and store
//! without bound. Pure: the caller passes the time in.

use std::collections::HashMap;
use std::hash::Hash;

/// Bucket sizes.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Tokens a peer may spend at once (a reconnection resyncing many games spends
    /// many at once, so the burst is large).
    pub burst: f64,
    /// Tokens a peer regains per second.
    pub per_second: f64,
}

impl Default for Limits {
    fn default() -> Self {
        // A node pair with a thousand live games resyncs in one burst; a steady flood
        // above a thousand envelopes a second is refused.
        Limits {
            burst: 20_000.0,
            per_second: 1_000.0,
        }
    }
}

/// Token buckets by peer.
#[derive(Debug)]
pub struct RateLimiter<P> {
    limits: Limits,
    buckets: HashMap<P, (f64, u64)>,
}

impl<P: Eq + Hash + Clone> RateLimiter<P> {
    /// Empty buckets fill on first use.
    pub fn new(limits: Limits) -> Self {
        RateLimiter {
            limits,
            buckets: HashMap::new(),
        }
    }

    /// Spends `cost` tokens of `peer` at `now_ms`; `false` (and nothing spent) if it
    /// has not got them.
    pub fn spend(&mut self, peer: &P, cost: f64, now_ms: u64) -> bool {
        let Limits { burst, per_second } = self.limits;
        let (tokens, last) = self.buckets.entry(peer.clone()).or_insert((burst, now_ms));
        let elapsed = now_ms.saturating_sub(*last) as f64 / 1000.0;
        *tokens = (*tokens + elapsed * per_second).min(burst);
        *last = now_ms.max(*last);
        if *tokens < cost {
            return false;
        }
        *tokens -= cost;
        true
    }

    /// Forgets peers whose buckets are full again (they cost nothing to recreate).
    pub fn prune(&mut self, now_ms: u64) {
        let Limits { burst, per_second } = self.limits;
        self.buckets.retain(|_, (tokens, last)| {
            *tokens + now_ms.saturating_sub(*last) as f64 / 1000.0 * per_second < burst
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> RateLimiter<u8> {
        RateLimiter::new(Limits {
            burst: 10.0,
            per_second: 2.0,
        })
    }

    #[test]
    fn a_burst_then_refusal_then_refill() {
        let mut r = small();
        assert!(r.spend(&1, 10.0, 0));
        assert!(!r.spend(&1, 1.0, 0), "the bucket is empty");
        assert!(!r.spend(&1, 2.0, 999), "not yet two tokens");
        assert!(r.spend(&1, 2.0, 1000));
        // Refills cap at the burst.
        assert!(!r.spend(&1, 11.0, 1_000_000));
        assert!(r.spend(&1, 10.0, 1_000_000));
    }

    #[test]
    fn peers_are_independent_and_a_refusal_spends_nothing() {
        let mut r = small();
        assert!(r.spend(&1, 8.0, 0));
        assert!(!r.spend(&1, 3.0, 0));
        assert!(r.spend(&1, 2.0, 0), "the refused request cost nothing");
        assert!(r.spend(&2, 10.0, 0), "another peer has its own bucket");
    }

    #[test]
    fn a_clock_going_backwards_gives_nothing() {
        let mut r = small();
        assert!(r.spend(&1, 10.0, 5000));
        assert!(!r.spend(&1, 1.0, 0));
    }

    #[test]
    fn prune_forgets_only_full_buckets() {
        let mut r = small();
        r.spend(&1, 10.0, 0);
        r.spend(&2, 1.0, 0);
        // At 0.4 s peer 2 has 9.8 of 10 tokens: not full yet.
        r.prune(400);
        assert_eq!(r.buckets.len(), 2);
        // At 1 s peer 2 is full again, peer 1 is not.
        r.prune(1000);
        assert_eq!(r.buckets.keys().collect::<Vec<_>>(), [&1]);
        r.prune(10_000);
        assert!(r.buckets.is_empty());
    }
}
