//! The peer book: for each peer, where it was last seen and where it was last reached,
//! freshest first, bounded, so that a node dials the address that works now and not the
//! fifty it saw over a month of restarts. Pure: the time comes with each call, and the
//! core writes what changed (one setting per peer, `book/<key hex>`).
//!
//! An address is *seen* when the peer announces it (identify), the LAN shows it (mDNS), a
//! rendezvous point returns it, a person gives it, or a game's terms name it; it *worked*
//! when a dial to it opened a connection; it *failed* when a dial to it did not. An
//! address that failed since it was last seen or reached goes behind every one that did
//! not; one that failed [`DROP_AFTER`] times in a row while another is known is
//! forgotten, and so is one neither seen nor reached for [`STALE_MS`].
//!
//! A mailbox or rendezvous point a game or the home names is *standing*
//! ([`Entry::standing`]): kept whatever the bounds, and dialled by every repair round until
//! connected (`auto.rs` `repair`), so an invitation through a mailbox reaches this node
//! with no step by the invitee.

use std::collections::BTreeMap;

use super::PeerKey;

/// Addresses kept per peer.
pub const MAX_ADDRS: usize = 8;
/// Peers kept; past it the one seen longest ago goes (not a mailbox kept connected, nor
/// a peer this node shares a game with).
pub const MAX_PEERS: usize = 512;
/// Failures in a row after which an address goes, when the peer has another.
pub const DROP_AFTER: u32 = 3;
/// An address neither seen nor reached for this long (30 days, in ms) goes.
pub const STALE_MS: u64 = 30 * 24 * 3600 * 1000;
/// The longest address line read back from the store.
const MAX_LINE: usize = 1024;
/// Times written again only when they moved by more than this (ms): a connection's
/// every identify would otherwise be a write.
const WRITE_SLACK_MS: u64 = 60_000;

/// One address of a peer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Addr {
    /// The address, ending in `/p2p/<peer id>`.
    pub text: String,
    /// When it was last seen (ms since the Unix epoch; 0: never).
    pub seen: u64,
    /// When a dial to it last worked (0: never).
    pub worked: u64,
    /// Dials to it that failed since it last worked or was seen.
    pub failures: u32,
}

impl Addr {
    /// The latest evidence that the peer is there.
    fn fresh(&self) -> u64 {
        self.seen.max(self.worked)
    }

    /// The order of the book: addresses that have not failed since their last evidence
    /// first, then the freshest, then those that worked.
    fn rank(&self) -> (bool, std::cmp::Reverse<u64>, std::cmp::Reverse<u64>) {
        (
            self.failures > 0,
            std::cmp::Reverse(self.fresh()),
            std::cmp::Reverse(self.worked),
        )
    }
}

/// What the book knows of one peer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// Its addresses, best first.
    pub addrs: Vec<Addr>,
    /// Kept connected: a mailbox or rendezvous point a game or the home names.
    pub standing: bool,
    /// A peer this node shares a game with (its invitations are never rate-limited).
    pub friend: bool,
}

impl Entry {
    fn sort(&mut self) {
        self.addrs.sort_by_key(Addr::rank);
    }

    /// The latest evidence of any address.
    fn fresh(&self) -> u64 {
        self.addrs.iter().map(Addr::fresh).max().unwrap_or(0)
    }

    /// The entry as stored: a header line, then one line per address.
    pub fn encode(&self) -> Vec<u8> {
        let mut s = format!(
            "sealed-book 1 standing={} friend={}\n",
            u8::from(self.standing),
            u8::from(self.friend)
        );
        for a in &self.addrs {
            s.push_str(&format!(
                "{} {} {} {}\n",
                a.seen, a.worked, a.failures, a.text
            ));
        }
        s.into_bytes()
    }

    /// An entry read back from the store. Lines that do not read are skipped (a later
    /// version's, or damage): the book is a hint, never a reason to refuse to start.
    /// The old form — one address per line, oldest first — reads as seen in that order.
    pub fn decode(bytes: &[u8]) -> Entry {
        let text = String::from_utf8_lossy(bytes);
        let mut lines = text.lines();
        let mut entry = Entry::default();
        let Some(first) = lines.next() else {
            return entry;
        };
        if let Some(rest) = first.strip_prefix("sealed-book 1 ") {
            entry.standing = rest.split_whitespace().any(|w| w == "standing=1");
            entry.friend = rest.split_whitespace().any(|w| w == "friend=1");
            for line in lines.take(MAX_ADDRS).filter(|l| l.len() <= MAX_LINE) {
                let mut w = line.splitn(4, ' ');
                let (Some(seen), Some(worked), Some(failures), Some(addr)) =
                    (w.next(), w.next(), w.next(), w.next())
                else {
                    continue;
                };
                let (Ok(seen), Ok(worked), Ok(failures)) =
                    (seen.parse(), worked.parse(), failures.parse())
                else {
                    continue;
                };
                entry.addrs.push(Addr {
                    text: addr.to_owned(),
                    seen,
                    worked,
                    failures,
                });
            }
        } else {
            // Layout of before the book: newest last, no times.
            let old: Vec<&str> = std::iter::once(first)
                .chain(lines)
                .filter(|l| !l.is_empty() && l.len() <= MAX_LINE)
                .collect();
            for (i, a) in old.iter().rev().take(MAX_ADDRS).enumerate() {
                entry.addrs.push(Addr {
                    text: (*a).to_owned(),
                    seen: (MAX_ADDRS - i) as u64,
                    worked: 0,
                    failures: 0,
                });
            }
        }
        entry.sort();
        entry
    }
}

/// The book.
#[derive(Debug, Default)]
pub struct Book {
    peers: BTreeMap<PeerKey, Entry>,
    /// Peers forgotten since the core last asked: their rows go from the store too.
    evicted: Vec<PeerKey>,
}

/// Whether a change is worth a write.
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Changed {
    /// Nothing to write.
    No,
    /// Write this peer's entry.
    Yes,
}

impl Book {
    /// A peer's entry, if any.
    pub fn get(&self, peer: &PeerKey) -> Option<&Entry> {
        self.peers.get(peer)
    }

    /// Every peer's entry, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&PeerKey, &Entry)> {
        self.peers.iter()
    }

    /// Whether the peer is kept connected.
    pub fn is_standing(&self, peer: &PeerKey) -> bool {
        self.peers.get(peer).is_some_and(|e| e.standing)
    }

    /// Whether the node shares a game with the peer.
    pub fn is_friend(&self, peer: &PeerKey) -> bool {
        self.peers.get(peer).is_some_and(|e| e.friend)
    }

    /// Marks a peer this node shares a game with.
    pub fn befriend(&mut self, peer: PeerKey) -> Changed {
        let e = self.peers.entry(peer).or_default();
        if e.friend {
            return Changed::No;
        }
        e.friend = true;
        Changed::Yes
    }

    /// Puts an entry read from the store (an empty one is a row to remove).
    pub fn load(&mut self, peer: PeerKey, entry: Entry) {
        if !entry.addrs.is_empty() || entry.standing || entry.friend {
            self.peers.insert(peer, entry);
        } else {
            self.evicted.push(peer);
        }
    }

    /// Applies the bounds now (after loading: a store of before may hold more rows).
    pub fn trim(&mut self, now: u64) {
        self.prune(now);
    }

    /// The peers forgotten since last asked, whose rows must go from the store.
    pub fn take_evicted(&mut self) -> Vec<PeerKey> {
        let mut gone = std::mem::take(&mut self.evicted);
        gone.retain(|p| !self.peers.contains_key(p));
        gone.sort();
        gone.dedup();
        gone
    }

    /// Where to dial a peer, best first.
    pub fn dial_list(&self, peer: &PeerKey) -> Vec<String> {
        self.peers
            .get(peer)
            .map(|e| e.addrs.iter().map(|a| a.text.clone()).collect())
            .unwrap_or_default()
    }

    /// Peers kept connected, in key order.
    pub fn standing(&self) -> impl Iterator<Item = &PeerKey> {
        self.peers
            .iter()
            .filter(|(_, e)| e.standing)
            .map(|(k, _)| k)
    }

    /// The address was seen at `now`.
    pub fn saw(&mut self, peer: PeerKey, addr: &str, now: u64) -> Changed {
        self.touch(peer, addr, now, |a, now| {
            let moved = now.saturating_sub(a.seen) > WRITE_SLACK_MS || a.failures > 0;
            a.seen = a.seen.max(now);
            a.failures = 0;
            moved
        })
    }

    /// A dial to the address worked at `now`.
    pub fn worked(&mut self, peer: PeerKey, addr: &str, now: u64) -> Changed {
        self.touch(peer, addr, now, |a, now| {
            let moved = now.saturating_sub(a.worked) > WRITE_SLACK_MS || a.failures > 0;
            a.worked = a.worked.max(now);
            a.failures = 0;
            moved
        })
    }

    /// A dial to the address failed. An address the book does not hold is not added.
    pub fn failed(&mut self, peer: PeerKey, addr: &str, now: u64) -> Changed {
        let Some(e) = self.peers.get_mut(&peer) else {
            return Changed::No;
        };
        let others = e.addrs.len() > 1;
        let Some(a) = e.addrs.iter_mut().find(|a| a.text == addr) else {
            return Changed::No;
        };
        a.failures = a.failures.saturating_add(1);
        if others && a.failures >= DROP_AFTER {
            e.addrs.retain(|a| a.text != addr);
        }
        e.sort();
        self.prune(now);
        Changed::Yes
    }

    /// Forgets what an invitation taken back brought: the addresses of `peer` that no
    /// dial ever reached (a mistyped one would otherwise stay, and its error with it),
    /// and, when `friend` is false (no other game names the peer), that it shares a
    /// game. A peer left with nothing goes; its row goes with [`Book::take_evicted`].
    pub fn forget_unproven(&mut self, peer: PeerKey, friend: bool) -> Changed {
        let Some(e) = self.peers.get_mut(&peer) else {
            return Changed::No;
        };
        let before = e.clone();
        e.addrs.retain(|a| a.worked > 0);
        e.friend &= friend;
        if e.addrs.is_empty() && !e.standing && !e.friend {
            self.peers.remove(&peer);
            self.evicted.push(peer);
            return Changed::No;
        }
        if *e == before {
            Changed::No
        } else {
            Changed::Yes
        }
    }

    /// Marks a peer to keep connected (a mailbox or rendezvous point).
    pub fn stand(&mut self, peer: PeerKey) -> Changed {
        let e = self.peers.entry(peer).or_default();
        if e.standing {
            return Changed::No;
        }
        e.standing = true;
        Changed::Yes
    }

    fn touch(
        &mut self,
        peer: PeerKey,
        addr: &str,
        now: u64,
        update: impl FnOnce(&mut Addr, u64) -> bool,
    ) -> Changed {
        // An address a peer sent that would not read back (a line of its own each) is
        // not kept.
        if addr.is_empty() || addr.len() > MAX_LINE || addr.contains(['\n', '\r']) {
            return Changed::No;
        }
        let e = self.peers.entry(peer).or_default();
        let before: Vec<String> = e.addrs.iter().map(|a| a.text.clone()).collect();
        let moved = match e.addrs.iter_mut().find(|a| a.text == addr) {
            Some(a) => update(a, now),
            None => {
                let mut a = Addr {
                    text: addr.to_owned(),
                    seen: 0,
                    worked: 0,
                    failures: 0,
                };
                update(&mut a, now);
                e.addrs.push(a);
                true
            }
        };
        e.sort();
        e.addrs.truncate(MAX_ADDRS);
        let reordered = e.addrs.iter().map(|a| &a.text).ne(before.iter());
        self.prune(now);
        if moved || reordered {
            Changed::Yes
        } else {
            Changed::No
        }
    }

    /// Forgets stale addresses, and peers past [`MAX_PEERS`].
    fn prune(&mut self, now: u64) {
        for e in self.peers.values_mut() {
            // The last address of a peer stays however old: it is all we have.
            if e.addrs.len() > 1 {
                let keep_one = e.addrs[0].text.clone();
                e.addrs
                    .retain(|a| a.text == keep_one || now.saturating_sub(a.fresh()) < STALE_MS);
            }
        }
        while self.peers.len() > MAX_PEERS {
            let Some(oldest) = self
                .peers
                .iter()
                .filter(|(_, e)| !e.standing && !e.friend)
                .min_by_key(|(k, e)| (e.fresh(), **k))
                .map(|(k, _)| *k)
            else {
                break;
            };
            self.peers.remove(&oldest);
            self.evicted.push(oldest);
        }
    }
}

/// The settings the book is kept in start with this, then the peer's key in hex.
pub const PREFIX: &str = "book/";

/// Where the store keeps a peer's entry.
pub fn key_of(peer: &PeerKey) -> String {
    format!("{PREFIX}{}", hex::encode(peer))
}

/// The setting the book was kept in before (read once, then written as the book).
pub fn old_key_of(peer: &PeerKey) -> String {
    format!("addrs/{}", hex::encode(peer))
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: PeerKey = PeerKey::from_bytes([1; 32]);
    const MIN: u64 = 60_000;

    #[test]
    fn the_address_seen_last_is_dialled_first() {
        let mut b = Book::default();
        let _ = b.saw(P, "/old", 1000);
        let _ = b.worked(P, "/old", 2000);
        let _ = b.saw(P, "/new", 3000);
        assert_eq!(b.dial_list(&P), ["/new", "/old"]);
    }

    #[test]
    fn a_failed_address_goes_behind_and_then_away() {
        let mut b = Book::default();
        let _ = b.worked(P, "/a", 5000);
        let _ = b.saw(P, "/b", 1000);
        assert_eq!(b.dial_list(&P), ["/a", "/b"]);
        assert_eq!(b.failed(P, "/a", 6000), Changed::Yes);
        assert_eq!(b.dial_list(&P), ["/b", "/a"]);
        let _ = b.failed(P, "/a", 6001);
        let _ = b.failed(P, "/a", 6002);
        assert_eq!(b.dial_list(&P), ["/b"]);
        // The only address left stays, however often it fails.
        for t in 0..10 {
            let _ = b.failed(P, "/b", 7000 + t);
        }
        assert_eq!(b.dial_list(&P), ["/b"]);
    }

    #[test]
    fn seen_again_after_failing_comes_back_first() {
        let mut b = Book::default();
        let _ = b.saw(P, "/a", 1000);
        let _ = b.saw(P, "/b", 2000);
        let _ = b.failed(P, "/b", 2500);
        assert_eq!(b.dial_list(&P), ["/a", "/b"]);
        let _ = b.saw(P, "/b", 3000);
        assert_eq!(b.dial_list(&P), ["/b", "/a"]);
    }

    #[test]
    fn bounded_per_peer_and_in_peers() {
        let mut b = Book::default();
        assert_eq!(b.saw(P, "/dns/a\nb/tcp/1", 1), Changed::No);
        assert_eq!(b.saw(P, &"/x".repeat(MAX_LINE), 1), Changed::No);
        assert!(b.get(&P).is_none());
        for i in 0..20u64 {
            let _ = b.saw(P, &format!("/a{i}"), 1000 + i);
        }
        assert_eq!(b.dial_list(&P).len(), MAX_ADDRS);
        assert_eq!(b.dial_list(&P)[0], "/a19");
        let _ = b.stand(PeerKey::from_bytes([0; 32]));
        for i in 0..(MAX_PEERS as u64 + 10) {
            let mut k = [9; 32];
            k[..8].copy_from_slice(&i.to_le_bytes());
            let k = PeerKey::from_bytes(k);
            let _ = b.saw(k, "/x", 10_000 + i);
        }
        assert!(b.peers.len() <= MAX_PEERS);
        assert!(
            b.get(&PeerKey::from_bytes([0; 32])).is_some(),
            "a standing peer is kept"
        );
        assert!(b.get(&P).is_none(), "the peer seen longest ago went");
        // Every peer forgotten is said once, so that its row goes too.
        let gone = b.take_evicted();
        assert_eq!(gone.len(), 12);
        assert!(gone.contains(&P));
        assert!(b.take_evicted().is_empty());
    }

    #[test]
    fn stale_addresses_are_forgotten() {
        let mut b = Book::default();
        let _ = b.saw(P, "/old", 1000);
        let _ = b.saw(P, "/new", 1000 + STALE_MS + 1);
        assert_eq!(b.dial_list(&P), ["/new"]);
    }

    #[test]
    fn a_repeat_within_a_minute_is_not_a_write() {
        let mut b = Book::default();
        assert_eq!(b.saw(P, "/a", 1000), Changed::Yes);
        assert_eq!(b.saw(P, "/a", 1000 + MIN / 2), Changed::No);
        assert_eq!(b.saw(P, "/a", 1000 + 2 * MIN), Changed::Yes);
        assert_eq!(b.worked(P, "/a", 1000 + 2 * MIN), Changed::Yes);
        assert_eq!(b.worked(P, "/a", 1000 + 2 * MIN + 1), Changed::No);
    }

    #[test]
    fn round_trips_and_reads_the_old_layout() {
        let mut b = Book::default();
        let _ = b.saw(P, "/ip4/1.2.3.4/tcp/5/p2p/x", 1000);
        let _ = b.worked(P, "/ip4/1.2.3.4/tcp/6/p2p/x", 2000);
        let _ = b.stand(P);
        let _ = b.befriend(P);
        let e = b.get(&P).unwrap().clone();
        assert_eq!(Entry::decode(&e.encode()), e);
        let old = Entry::decode(b"/first\n/second\n/third\n");
        assert_eq!(
            old.addrs
                .iter()
                .map(|a| a.text.as_str())
                .collect::<Vec<_>>(),
            ["/third", "/second", "/first"]
        );
        assert!(!old.standing);
    }

    proptest::proptest! {
        /// Whatever the store holds under a book key reads without a panic, bounded.
        #[test]
        fn any_bytes_read_as_a_bounded_entry(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..4096)) {
            let e = Entry::decode(&bytes);
            proptest::prop_assert!(e.addrs.len() <= MAX_ADDRS);
            proptest::prop_assert!(e.addrs.iter().all(|a| a.text.len() <= MAX_LINE * 3));
        }

        /// Any sequence of what a node learns keeps the book bounded and ordered, and
        /// what it writes reads back the same.
        #[test]
        fn any_history_stays_bounded_and_round_trips(
            events in proptest::collection::vec((0u8..4, 0u8..12, 0u64..100_000_000_000), 0..200)
        ) {
            let mut b = Book::default();
            for (kind, addr, t) in events {
                let a = if addr == 11 { "/dns/x\ny".to_owned() } else { format!("/a{addr}") };
                let _ = match kind {
                    0 => b.saw(P, &a, t),
                    1 => b.worked(P, &a, t),
                    2 => b.failed(P, &a, t),
                    _ => b.stand(P),
                };
            }
            if let Some(e) = b.get(&P) {
                proptest::prop_assert!(e.addrs.len() <= MAX_ADDRS);
                let ranks: Vec<_> = e.addrs.iter().map(Addr::rank).collect();
                proptest::prop_assert!(ranks.windows(2).all(|w| w[0] <= w[1]));
                proptest::prop_assert_eq!(&Entry::decode(&e.encode()), e);
            }
        }
    }

    #[test]
    fn damaged_entries_read_as_what_they_still_say() {
        let e = Entry::decode(b"sealed-book 1 standing=0\nnot a line\n5 6 x /a\n1 2 0 /b\n");
        assert_eq!(e.addrs.len(), 1);
        assert_eq!(e.addrs[0].text, "/b");
        let long = format!("sealed-book 1 standing=1\n1 1 0 /{}\n", "x".repeat(5000));
        let e = Entry::decode(long.as_bytes());
        assert!(e.addrs.is_empty() && e.standing);
        assert_eq!(Entry::decode(&[0xff, 0xfe, b'\n']).addrs.len(), 1);
    }
}
