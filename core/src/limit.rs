//! Rate limits: token buckets, charged by what a request costs (one token per request,
//! one per envelope it carries, more for what it makes the node read or verify), so a
//! peer cannot make the node verify and store without bound. A request is charged to
//! four buckets at once — its peer's, its address's, its network's and everyone's
//! ([`Budgets`]): keys cost a stranger nothing, addresses cost him something, networks
//! (an IPv4 /24, an IPv6 /48, `origin.rs` `group_of`) more, and the total bounds what all
//! of them together get. Pure: the caller passes the time in.
//!
//! **Everyone's bucket keeps a reserve shared by network** (issue 52): a total that a
//! few networks can spend would refuse everyone else. So the last quarter of it
//! ([`RESERVE`]) is only for a network that has spent little: less than the reserve over
//! the networks spending now (those with a bucket). A flood from a few networks drains
//! everyone's bucket down to the reserve and is refused there, each of its networks
//! having spent far more than that; a newcomer from a clean network is served from the
//! reserve — even when answers charged after the work (`charge`) have put everyone's
//! bucket into debt, which a flood's answers do. What the networks within their share
//! take past the total is at most the reserve, all of them together.
//!
//! The figures ([`Budgets`]): a peer's bucket holds 20,000 tokens and refills 1,000 a
//! second, an address's twice that, a network's four times and everyone's ten times;
//! at most [`MAX_BUCKETS`] (65,536) buckets are kept of each kind, past which strangers
//! share one. What each request costs is `sync.rs` `cost`.

use std::collections::HashMap;
use std::hash::Hash;

/// Bucket sizes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Tokens a key may spend at once (a reconnection resyncing many games spends
    /// many at once, so the burst is large).
    pub burst: f64,
    /// Tokens a key regains per second.
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

/// Buckets kept at most: past it, keys not yet seen share one bucket (an attacker who
/// makes up keys faster than they refill only drains that one).
pub const MAX_BUCKETS: usize = 65_536;

/// Token buckets by key.
#[derive(Debug)]
pub struct RateLimiter<P> {
    limits: Limits,
    buckets: HashMap<P, (f64, u64)>,
    /// The bucket every key past [`MAX_BUCKETS`] shares.
    overflow: (f64, u64),
}

impl<P: Eq + Hash + Clone> RateLimiter<P> {
    /// Empty buckets fill on first use.
    pub fn new(limits: Limits) -> Self {
        RateLimiter {
            limits,
            buckets: HashMap::new(),
            overflow: (limits.burst, 0),
        }
    }

    fn bucket(&mut self, key: &P, now_ms: u64) -> &mut (f64, u64) {
        let Limits { burst, per_second } = self.limits;
        let b = if self.buckets.contains_key(key) || self.buckets.len() < MAX_BUCKETS {
            self.buckets.entry(key.clone()).or_insert((burst, now_ms))
        } else {
            &mut self.overflow
        };
        let (tokens, last) = b;
        let elapsed = now_ms.saturating_sub(*last) as f64 / 1000.0;
        *tokens = (*tokens + elapsed * per_second).min(burst);
        *last = now_ms.max(*last);
        b
    }

    /// The tokens `key` has at `now_ms`.
    pub fn available(&mut self, key: &P, now_ms: u64) -> f64 {
        self.bucket(key, now_ms).0
    }

    /// Takes `cost` tokens of `key`, into debt if it has not got them: for what a
    /// request turns out to cost once answered.
    pub fn charge(&mut self, key: &P, cost: f64, now_ms: u64) {
        self.bucket(key, now_ms).0 -= cost;
    }

    /// Gives `tokens` back to `key`, never past its burst: what a request paid for
    /// before it was served and did not use.
    pub fn give_back(&mut self, key: &P, tokens: f64, now_ms: u64) {
        let burst = self.limits.burst;
        let b = self.bucket(key, now_ms);
        b.0 = (b.0 + tokens.max(0.0)).min(burst);
    }

    /// Spends `cost` tokens of `key` at `now_ms`; `false` (and nothing spent) if it
    /// has not got them.
    pub fn spend(&mut self, key: &P, cost: f64, now_ms: u64) -> bool {
        let b = self.bucket(key, now_ms);
        if b.0 < cost {
            return false;
        }
        b.0 -= cost;
        true
    }

    /// Forgets keys whose buckets are full again (they cost nothing to recreate).
    pub fn prune(&mut self, now_ms: u64) {
        let Limits { burst, per_second } = self.limits;
        self.buckets.retain(|_, (tokens, last)| {
            *tokens + now_ms.saturating_sub(*last) as f64 / 1000.0 * per_second < burst
        });
    }

    /// Keys with a bucket now.
    pub fn len(&self) -> usize {
        self.buckets.len()
    }

    /// Whether no key has one.
    pub fn is_empty(&self) -> bool {
        self.buckets.is_empty()
    }
}

/// The budgets a request is charged to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BudgetLimits {
    /// Each peer's.
    pub peer: Limits,
    /// Each address's (`crate::origin`): a few peers' worth.
    pub origin: Limits,
    /// Each network's (`crate::origin::group_of`): a few addresses' worth.
    pub network: Limits,
    /// Everyone's together, shared by network when spent.
    pub all: Limits,
}

impl Default for BudgetLimits {
    fn default() -> Self {
        BudgetLimits::from_peer(Limits::default())
    }
}

impl BudgetLimits {
    /// An address's budget twice a peer's, a network's four times, everyone's ten times.
    pub fn from_peer(peer: Limits) -> Self {
        let times = |k: f64| Limits {
            burst: k * peer.burst,
            per_second: k * peer.per_second,
        };
        BudgetLimits {
            peer,
            origin: times(2.0),
            network: times(4.0),
            all: times(10.0),
        }
    }
}

/// The share of everyone's bucket kept for networks that have spent little.
pub const RESERVE: f64 = 0.25;

/// Which budget refused a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spent {
    /// The peer's own.
    Peer,
    /// Its address's.
    Origin,
    /// Its network's.
    Network,
    /// Everyone's, down to its reserve, and the network has had its share of that.
    Share,
    /// Everyone's, all of it (and the network has had its share of the reserve).
    All,
}

impl Spent {
    /// Whose budget, as a refusal says it.
    pub fn whose(self) -> &'static str {
        match self {
            Spent::Peer => "this peer's",
            Spent::Origin => "this address's",
            Spent::Network => "this network's",
            Spent::Share => "this network's share of every peer's",
            Spent::All => "every peer's",
        }
    }
}

/// Buckets per peer, per address, per network and for all.
#[derive(Debug)]
pub struct Budgets<P> {
    peer: RateLimiter<P>,
    origin: RateLimiter<String>,
    network: RateLimiter<String>,
    all: RateLimiter<()>,
    limits: BudgetLimits,
}

impl<P: Eq + Hash + Clone> Budgets<P> {
    /// Full buckets.
    pub fn new(limits: BudgetLimits) -> Self {
        Budgets {
            peer: RateLimiter::new(limits.peer),
            origin: RateLimiter::new(limits.origin),
            network: RateLimiter::new(limits.network),
            all: RateLimiter::new(limits.all),
            limits,
        }
    }

    /// Spends `cost` from `peer`'s, `origin`'s (if known), its network's and everyone's
    /// buckets, or from none; which one refused, if one did. Everyone's last
    /// [`RESERVE`], and past it, serve only a network within its share of the reserve
    /// (see the module documentation).
    pub fn spend(
        &mut self,
        peer: &P,
        origin: Option<&str>,
        cost: f64,
        now_ms: u64,
    ) -> Result<(), Spent> {
        if self.peer.available(peer, now_ms) < cost {
            return Err(Spent::Peer);
        }
        let network = origin.map(crate::origin::group_of);
        if let Some(o) = origin
            && self.origin.available(&o.to_owned(), now_ms) < cost
        {
            return Err(Spent::Origin);
        }
        if let Some(n) = &network
            && self.network.available(n, now_ms) < cost
        {
            return Err(Spent::Network);
        }
        let all = self.all.available(&(), now_ms);
        if all - cost < self.limits.all.burst * RESERVE
            && !self.within_share(network.as_deref(), cost, now_ms)
        {
            return Err(if all < cost { Spent::All } else { Spent::Share });
        }
        self.charge(peer, origin, cost, now_ms);
        Ok(())
    }

    /// Whether `network` has spent less than its share of everyone's reserve, `cost`
    /// included: the reserve over the networks with a bucket (those that spent lately,
    /// this one counted; full ones are pruned on the repair round). A peer with no known
    /// address is no network's: it gets no share.
    fn within_share(&mut self, network: Option<&str>, cost: f64, now_ms: u64) -> bool {
        let Some(n) = network else {
            return false;
        };
        let spent = self.limits.network.burst - self.network.available(&n.to_owned(), now_ms);
        let share = self.limits.all.burst * RESERVE / self.network.len().max(1) as f64;
        spent + cost <= share
    }

    /// Charges `cost` to all four, into debt if need be.
    pub fn charge(&mut self, peer: &P, origin: Option<&str>, cost: f64, now_ms: u64) {
        self.peer.charge(peer, cost, now_ms);
        if let Some(o) = origin {
            self.origin.charge(&o.to_owned(), cost, now_ms);
            self.network
                .charge(&crate::origin::group_of(o), cost, now_ms);
        }
        self.all.charge(&(), cost, now_ms);
    }

    /// Gives `tokens` back to all four, never past a burst: a request charged for the
    /// most it could cost before it was served, then for what it did cost.
    pub fn give_back(&mut self, peer: &P, origin: Option<&str>, tokens: f64, now_ms: u64) {
        self.peer.give_back(peer, tokens, now_ms);
        if let Some(o) = origin {
            self.origin.give_back(&o.to_owned(), tokens, now_ms);
            self.network
                .give_back(&crate::origin::group_of(o), tokens, now_ms);
        }
        self.all.give_back(&(), tokens, now_ms);
    }

    /// Forgets full buckets.
    pub fn prune(&mut self, now_ms: u64) {
        self.peer.prune(now_ms);
        self.origin.prune(now_ms);
        self.network.prune(now_ms);
        self.all.prune(now_ms);
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

    #[test]
    fn made_up_keys_past_the_cap_share_one_bucket() {
        let mut r: RateLimiter<u32> = RateLimiter::new(Limits {
            burst: 10.0,
            per_second: 0.0,
        });
        for k in 0..MAX_BUCKETS as u32 {
            assert!(r.spend(&k, 1.0, 0));
        }
        assert_eq!(r.len(), MAX_BUCKETS);
        // Every new key now draws from the one overflow bucket.
        for k in 0..10 {
            assert!(r.spend(&(MAX_BUCKETS as u32 + k), 1.0, 0));
        }
        assert!(!r.spend(&(MAX_BUCKETS as u32 + 99), 1.0, 0));
        assert_eq!(r.len(), MAX_BUCKETS);
    }

    #[test]
    fn one_address_and_everyone_have_budgets_beside_each_peer() {
        let per = |b| Limits {
            burst: b,
            per_second: 0.0,
        };
        let mut b: Budgets<u8> = Budgets::new(BudgetLimits {
            peer: per(10.0),
            origin: per(15.0),
            network: per(20.0),
            all: per(40.0),
        });
        assert!(b.spend(&1, Some("ip4/1.1.1.1"), 10.0, 0).is_ok());
        // A new key at the same address: the address's budget is what is left.
        assert_eq!(
            b.spend(&2, Some("ip4/1.1.1.1"), 10.0, 0),
            Err(Spent::Origin)
        );
        assert!(b.spend(&2, Some("ip4/1.1.1.1"), 5.0, 0).is_ok());
        // Another address of the same /24: the network's budget is what is left.
        assert_eq!(
            b.spend(&5, Some("ip4/1.1.1.9"), 6.0, 0),
            Err(Spent::Network)
        );
        assert!(b.spend(&3, Some("ip4/2.2.2.2"), 10.0, 0).is_ok());
        // Everyone's has 15 of 40 left; its reserve is 10. 2.2.2/24 has spent 10, past
        // its share of the reserve (10 over two networks).
        assert_eq!(b.spend(&6, Some("ip4/2.2.2.3"), 6.0, 0), Err(Spent::Share));
        // Above the reserve anyone is served; inside it a network within its share
        // (10 over four networks).
        assert!(b.spend(&7, Some("ip4/3.3.3.3"), 3.0, 0).is_ok());
        assert_eq!(b.spend(&8, Some("ip4/4.4.4.4"), 3.0, 0), Err(Spent::Share));
        assert!(b.spend(&8, Some("ip4/4.4.4.4"), 2.0, 0).is_ok());
        // What an answer turned out to cost is charged into debt.
        b.charge(&3, Some("ip4/2.2.2.2"), 100.0, 0);
        assert_eq!(b.spend(&3, None, 0.5, 0), Err(Spent::Peer));
        // Nobody is served past everyone's whole bucket.
        let mut small: Budgets<u8> = Budgets::new(BudgetLimits {
            peer: per(10.0),
            origin: per(10.0),
            network: per(10.0),
            all: per(5.0),
        });
        assert_eq!(
            small.spend(&1, Some("ip4/1.1.1.1"), 6.0, 0),
            Err(Spent::All)
        );
    }

    #[test]
    fn a_network_that_spent_everyones_budget_leaves_a_newcomers_share() {
        let per = |b, r| Limits {
            burst: b,
            per_second: r,
        };
        let mut b: Budgets<u32> = Budgets::new(BudgetLimits {
            peer: per(100.0, 10.0),
            origin: per(200.0, 20.0),
            network: per(400.0, 40.0),
            all: per(1000.0, 100.0),
        });
        // Three networks of a flood, many keys and addresses each, spend everyone's.
        let mut key = 0;
        for net in 1..=3 {
            for host in 1..=4 {
                let o = format!("ip4/10.0.{net}.{host}");
                key += 1;
                while b.spend(&key, Some(&o), 10.0, 0).is_ok() {}
            }
        }
        // Everyone's is down to its reserve (250): nobody of the flood gets more...
        for net in 1..=3 {
            let o = format!("ip4/10.0.{net}.99");
            assert!(b.spend(&999, Some(&o), 10.0, 0).is_err(), "{o}");
        }
        // ...but a newcomer from a clean network is served from the reserve, within its
        // share of it (250 over four networks).
        assert!(b.spend(&1000, Some("ip4/192.0.2.7"), 60.0, 0).is_ok());
        assert_eq!(
            b.spend(&1001, Some("ip4/192.0.2.8"), 10.0, 0),
            Err(Spent::Share)
        );
        // And a peer with no known address is not.
        assert_eq!(b.spend(&1002, None, 1.0, 0), Err(Spent::Share));
        // The flood's answers, charged after the work, put everyone's into debt: a
        // newcomer from another clean network is still served within its share.
        b.charge(&1, Some("ip4/10.0.1.1"), 5000.0, 0);
        assert!(b.spend(&1003, Some("ip4/198.51.100.1"), 10.0, 0).is_ok());
        assert_eq!(
            b.spend(&1004, Some("ip4/10.0.3.99"), 1.0, 0),
            Err(Spent::All)
        );
        // Once everyone's has refilled, anyone may take it, the flood too.
        assert!(b.spend(&5, Some("ip4/10.0.2.1"), 10.0, 100_000).is_ok());
    }

    #[test]
    fn what_is_given_back_is_spent_again_and_never_past_the_burst() {
        let mut r = small();
        assert!(r.spend(&1, 8.0, 0));
        r.give_back(&1, 6.0, 0);
        assert!(r.spend(&1, 8.0, 0), "8 of 10 spent, 6 given back");
        r.give_back(&1, 100.0, 0);
        assert!(!r.spend(&1, 10.5, 0), "no more than the burst");
        assert!(r.spend(&1, 10.0, 0));
    }
}
