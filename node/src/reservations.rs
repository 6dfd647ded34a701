//! A relay's reservations, shared between networks. libp2p's relay takes at most
//! [`MAX`] reservations in all and 2 per peer, but peer ids are free: before this, 32
//! addresses of one network registered at the lookup (16 records each) could hold
//! every reservation, renewing them for ever. Here each reservation also belongs to its
//! address (an IPv4 address, an IPv6 /64) and its network (an IPv4 /24, an IPv6 /48),
//! and a new one is refused when its address holds [`PER_ADDRESS`], or its network
//! holds [`PER_NETWORK`] while at least half the places are taken. Below half, one
//! network may take more (a campus, a carrier-grade NAT); past it, filling the relay
//! takes [`MAX`] / [`PER_NETWORK`] networks.
//!
//! libp2p's relay does not tell its limiters when a reservation ends, so each one is
//! counted for its whole lifetime from its last request ([`LIFETIME`], the relay's own
//! reservation duration): a renewal by the same peer refreshes its place and is never
//! refused here; a reservation dropped early still counts until then, so the counts are
//! an upper bound and whoever they refuse holds at least that much or did an hour ago.
//! Owner: the address and network; size: one entry per peer; lifetime: [`LIFETIME`].

use std::collections::HashMap;
use std::time::{Duration, Instant};

use libp2p::{Multiaddr, PeerId};

/// Reservations the relay grants at once (libp2p's `max_reservations`).
pub const MAX: usize = 512;
/// A network's share once half the places are taken.
pub const PER_NETWORK: usize = 64;
/// One address's share.
pub const PER_ADDRESS: usize = 16;
/// How long a reservation lasts without renewal (libp2p's `reservation_duration`).
pub const LIFETIME: Duration = Duration::from_secs(3600);

/// One reservation granted: where its holder came from, and until when.
struct Granted {
    address: String,
    network: String,
    until: Instant,
}

/// The reservations granted, as counted here.
#[derive(Default)]
pub struct Reservations {
    held: HashMap<PeerId, Granted>,
    /// Refused so far.
    pub refused: u64,
}

impl Reservations {
    /// Whether `peer`, reserving from `addr` at `now`, may have a place.
    pub fn admit(&mut self, peer: PeerId, addr: &Multiaddr, now: Instant) -> bool {
        self.held.retain(|_, h| h.until > now);
        let origin = crate::origin::of(addr);
        let network = origin.group();
        let until = now + LIFETIME;
        if let Some(h) = self.held.get_mut(&peer)
            && h.address == origin.key
        {
            h.until = until;
            return true;
        }
        let address = self
            .held
            .values()
            .filter(|h| h.address == origin.key)
            .count();
        let ours = self.held.values().filter(|h| h.network == network).count();
        let taken = self.held.len();
        if taken >= MAX || address >= PER_ADDRESS || (ours >= PER_NETWORK && taken >= MAX / 2) {
            self.refused += 1;
            return false;
        }
        self.held.insert(
            peer,
            Granted {
                address: origin.key,
                network,
                until,
            },
        );
        true
    }

    /// Reservations counted now.
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// Whether none is counted.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ip: &str) -> Multiaddr {
        format!("/ip4/{ip}/tcp/4001").parse().expect("an address")
    }

    #[test]
    fn one_network_takes_at_most_its_share_once_half_the_relay_is_taken() {
        let mut r = Reservations::default();
        let now = Instant::now();
        // One /24, 16 a address: alone it may take half the relay, then no more.
        let mut granted = 0;
        for a in 1..=40 {
            for _ in 0..PER_ADDRESS + 2 {
                granted += r.admit(PeerId::random(), &at(&format!("10.0.0.{a}")), now) as usize;
            }
        }
        assert_eq!(granted, MAX / 2);
        // Other networks fill the rest, each to its share.
        let mut others = 0;
        for net in 1..=20 {
            for a in 1..=8 {
                for _ in 0..PER_ADDRESS {
                    others +=
                        r.admit(PeerId::random(), &at(&format!("10.{net}.0.{a}")), now) as usize;
                }
            }
        }
        assert_eq!(others, MAX / 2, "four networks of 64 fill the other half");
        assert_eq!(r.len(), MAX);
        assert!(r.refused > 0);
    }

    #[test]
    fn a_renewal_keeps_its_place_and_a_lapsed_reservation_frees_it() {
        let mut r = Reservations::default();
        let now = Instant::now();
        let first = PeerId::random();
        assert!(r.admit(first, &at("10.0.0.1"), now));
        for _ in 1..PER_ADDRESS {
            assert!(r.admit(PeerId::random(), &at("10.0.0.1"), now));
        }
        assert!(
            !r.admit(PeerId::random(), &at("10.0.0.1"), now),
            "the address's share"
        );
        let later = now + LIFETIME / 2;
        assert!(
            r.admit(first, &at("10.0.0.1"), later),
            "a renewal is never refused"
        );
        // An hour after the others' last request, only the renewed one still counts.
        let gone = now + LIFETIME + Duration::from_secs(1);
        assert!(r.admit(PeerId::random(), &at("10.0.0.1"), gone));
        assert_eq!(r.len(), 2);
    }
}
