//! When to look a peer up at the lookup points — the mailboxes and relays this node keeps
//! connected, where every node registers its signed record of where it is. The shell
//! asks the points (`sealed_node::shell::reach`) and tells the core which points are
//! connected; the timing is the core's, on the core's clock, so the simulation runs it.
//!
//! A peer is wanted when a dial to it fails or there is no address to dial; a wanted
//! peer is looked up at once, then no sooner than 1 s later, the wait doubling each time
//! up to once a minute ([`LOOKUP_FIRST_MS`], [`LOOKUP_MAX_MS`]); a point that connects
//! later, or says again what it serves, is asked for every wanted peer whose wait is
//! over. A peer found is dialled at
//! the addresses its record gives; a peer reached is wanted no more. At most
//! [`MAX_WANTED`] peers are wanted at once (each is a peer of one of this node's games,
//! or one it keeps connected: far above any real need).

use std::collections::{BTreeMap, BTreeSet};

use super::io::Output;
use super::{Core, PeerKey};

/// The first wait between two lookups of one peer (it may register a moment later).
pub const LOOKUP_FIRST_MS: u64 = 1_000;
/// The longest wait between two lookups of one peer.
pub const LOOKUP_MAX_MS: u64 = 60_000;
/// Peers looked up and still wanted, at most.
pub const MAX_WANTED: usize = 4096;

/// The lookups' state.
#[derive(Default)]
pub(super) struct Lookups {
    /// Lookup points connected now (the shell says).
    points: BTreeSet<PeerKey>,
    /// Peers looked up and still to dial once found.
    wanted: BTreeSet<PeerKey>,
    /// When each peer was last looked up, and how long to wait before the next time.
    looked: BTreeMap<PeerKey, (u64, u64)>,
}

impl Core {
    /// Looks `peer` up at every connected point, unless it was looked up less than its
    /// wait ago; it stays wanted either way (a point that connects later is asked).
    pub(super) fn look_up(&mut self, peer: PeerKey) {
        let l = &mut self.lookups;
        if l.wanted.len() < MAX_WANTED {
            l.wanted.insert(peer);
        }
        let now = self.now;
        if l.looked
            .get(&peer)
            .is_some_and(|(t, wait)| now.saturating_sub(*t) < *wait)
        {
            return;
        }
        // A peer is not asked for itself.
        if !l.points.iter().any(|p| *p != peer) {
            return;
        }
        let wait = l
            .looked
            .get(&peer)
            .map_or(LOOKUP_FIRST_MS, |(_, w)| (w * 2).min(LOOKUP_MAX_MS));
        l.looked.insert(peer, (now, wait));
        self.out.push_back(Output::LookUp { peer });
    }

    /// The lookup points connected now; with `ask` (a point just said what it serves),
    /// they are asked for every peer still wanted whose wait is over.
    pub(super) fn lookup_points(&mut self, points: Vec<PeerKey>, ask: bool) {
        self.lookups.points = points.into_iter().collect();
        if ask {
            let wanted: Vec<PeerKey> = self.lookups.wanted.iter().copied().collect();
            for w in wanted {
                self.look_up(w);
            }
        }
    }

    /// A point returned `peer`'s record: dialled at its addresses if still wanted and not
    /// connected.
    pub(super) fn found(&mut self, peer: PeerKey, addrs: Vec<String>) {
        if self.lookups.wanted.remove(&peer) && !self.peers.connected.contains(&peer) {
            self.out.push_back(Output::Dial { peer, addrs });
        }
    }

    /// A peer is connected: nothing more to look up for it.
    pub(super) fn reached_peer(&mut self, peer: &PeerKey) {
        self.lookups.wanted.remove(peer);
        self.lookups.looked.remove(peer);
    }
}

#[cfg(test)]
mod tests {
    use sealed_protocol::keys::SecretKey;

    use crate::memory::MemoryStore;
    use crate::{Core, CoreConfig, Input, Output, PeerKey};

    const T0: u64 = 1_800_000_000_000;

    fn key(n: u8) -> PeerKey {
        PeerKey::from(SecretKey::from_seed(&[n; 32]).public())
    }

    fn outputs(c: &mut Core) -> Vec<Output> {
        std::iter::from_fn(|| c.poll_output()).collect()
    }

    fn looked_up(out: &[Output], peer: PeerKey) -> bool {
        out.iter()
            .any(|o| matches!(o, Output::LookUp { peer: p } if *p == peer))
    }

    fn failed(c: &mut Core, s: &MemoryStore, now: u64, peer: PeerKey) -> Vec<Output> {
        let why = "refused".to_owned();
        c.handle(
            now,
            Input::DialFailed {
                peer,
                addrs: vec![],
                why,
            },
            s,
        );
        outputs(c)
    }

    #[test]
    fn a_peer_is_looked_up_at_once_then_after_a_doubling_wait_and_no_more_once_reached() {
        let s = MemoryStore::default();
        let mut c = Core::start(
            SecretKey::from_seed(&[1; 32]),
            CoreConfig::default(),
            [0; 32],
            T0,
            &s,
        )
        .unwrap();
        outputs(&mut c);
        let (point, peer) = (key(2), key(3));
        // No point connected: wanted, but nobody to ask.
        assert!(!looked_up(&failed(&mut c, &s, T0, peer), peer));
        // A point connects: the wanted peer is asked for at once.
        c.handle(
            T0 + 10,
            Input::LookupPoints {
                points: vec![point],
                ask: true,
            },
            &s,
        );
        assert!(looked_up(&outputs(&mut c), peer));
        // Not again within the first wait, then after it; the wait doubles.
        assert!(!looked_up(&failed(&mut c, &s, T0 + 500, peer), peer));
        assert!(looked_up(&failed(&mut c, &s, T0 + 1_010, peer), peer));
        assert!(!looked_up(&failed(&mut c, &s, T0 + 2_900, peer), peer));
        assert!(looked_up(&failed(&mut c, &s, T0 + 3_010, peer), peer));
        // The point says again what it serves: asked again once the wait is over only.
        let again = |c: &mut Core, now| {
            let points = vec![point];
            c.handle(now, Input::LookupPoints { points, ask: true }, &s);
            outputs(c)
        };
        assert!(!looked_up(&again(&mut c, T0 + 3_015), peer));
        // A point is not asked for itself.
        assert!(!looked_up(&failed(&mut c, &s, T0 + 3_020, point), point));
        // A lookup point that answers for a peer nobody wants here makes no dial: a
        // point cannot make this node dial addresses of its choosing.
        let stranger = key(9);
        let elsewhere = format!(
            "/ip4/6.6.6.6/tcp/1/p2p/{}",
            crate::peer_id::text(stranger.as_bytes()).unwrap()
        );
        let found = |peer| Input::Found {
            peer,
            addrs: vec![elsewhere.clone()],
            seen: T0,
        };
        c.handle(T0 + 3_050, found(stranger), &s);
        assert!(
            !outputs(&mut c)
                .iter()
                .any(|o| matches!(o, Output::Dial { .. }))
        );
        // Found: dialled where its record says.
        let at = format!(
            "/ip4/1.2.3.4/tcp/1/p2p/{}",
            crate::peer_id::text(peer.as_bytes()).unwrap()
        );
        c.handle(
            T0 + 3_100,
            Input::Found {
                peer,
                addrs: vec![at.clone()],
                seen: T0,
            },
            &s,
        );
        let out = outputs(&mut c);
        assert!(out.iter().any(
            |o| matches!(o, Output::Dial { addrs, .. } if addrs == std::slice::from_ref(&at))
        ));
        // Reached: the next failure looks it up at once again (a fresh start).
        let origin = None;
        c.handle(
            T0 + 3_200,
            Input::Connected {
                peer,
                addr: None,
                origin,
            },
            &s,
        );
        outputs(&mut c);
        // Found again while connected: no dial.
        c.handle(T0 + 3_250, found(peer), &s);
        assert!(
            !outputs(&mut c)
                .iter()
                .any(|o| matches!(o, Output::Dial { .. }))
        );
        c.handle(T0 + 3_300, Input::Disconnected { peer }, &s);
        outputs(&mut c);
        assert!(looked_up(&failed(&mut c, &s, T0 + 3_400, peer), peer));
    }
}
