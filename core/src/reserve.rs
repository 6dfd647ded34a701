//! The owed step's reserve (issue 53): at a mailbox or witness, what a game held for a
//! stranger stores is charged to the seat that signed or deposited it (`quota.rs`), and
//! a seat past the day's quotas is refused. Those quotas are shared: the proposer's by
//! his games, a network's by its players, the total by everyone, and keys and networks
//! can be had for the asking. If they alone decided, a seat would depend for its time on
//! what others spent: a witness that refuses an envelope never dates it, so the seat
//! whose reply it was loses on time although it answered in time.
//!
//! So each seat of such a game has a reserve that no day's quota refuses, for the step
//! it owes: an envelope the quotas refuse is still taken when it is the seat's **reply**
//! — it extends the seat's public chain, and it acknowledges an envelope held here of
//! another seat's public chain later than any this seat's envelopes held here
//! acknowledged (not only the latest: the other seat may have pushed more since) — within
//! [`RESERVE_ENVELOPE`] bytes, and the seat's reserve of
//! [`RESERVE_PER_SEAT`] bytes in the game. A deposit the quotas refuse is taken from the
//! same reserve, each at most [`RESERVE_ENVELOPE`] bytes (a deposit is sealed: the
//! witness cannot tell which step it belongs to). The per-game bounds still hold (places
//! per seat, deposits per seat: `take.rs`, `witness.rs`).
//!
//! What the reserve stores is charged to the game's proposer and his network (he chose
//! this node): it counts against his day's quotas like anything else he stores, and may
//! take them past their bounds, so that his network opens no more games here that day.
//!
//! Attacks, and what happens:
//! - *The other seat spends the quotas* (of the honest seat's network with fresh keys, or
//!   everyone's total from many networks): the honest seat's replies come from its own
//!   reserve, which only its own envelopes spend; a game of 80 to 200 KiB in all
//!   (docs/PERFORMANCE.md) needs less than one seat's reserve for its replies.
//! - *A stranger holds both seats* and replies to himself without end: each reply needs a
//!   new envelope of the other seat, so both reserves run out after [`RESERVE_PER_SEAT`]
//!   bytes each; the node stores at most twice that per game past the quotas, and the
//!   games held for strangers at once are bounded (`held.rs`), each charged to its
//!   proposer's network. Refused afterwards, he loses what a seat past its share loses.
//! - *A seat replies to an envelope twice* (twins, or an old one): only an envelope of
//!   the other chain held here (its hash), later than the last one replied to, qualifies.
//! - *The other seat keeps pushing no-ops* so that a reply never acknowledges his latest:
//!   any of his envelopes not replied to yet qualifies.
//! - *A seat sends junk in its reply*: it is bounded by [`RESERVE_ENVELOPE`]; junk past
//!   it is refused as before.
//! - Lifetime: the reserve's spending, and what each seat acknowledged, are kept in
//!   memory with the game, and start anew when the node restarts or the game wakes from
//!   the store; a restart is the node's own, and gives each seat at most one more
//!   reserve per game.

use std::collections::BTreeMap;

use sealed_protocol::envelope::Signed;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, Seat};

/// The largest envelope or deposit the reserve takes: a move's envelope is a few hundred
/// bytes, and a card game's private envelopes about as much.
pub const RESERVE_ENVELOPE: u64 = 16 << 10;

/// A seat's reserve in one game, in bytes: more than one seat's share of an honest
/// whole game.
pub const RESERVE_PER_SEAT: u64 = 128 << 10;

/// What each seat spent of its reserve in one game.
#[derive(Debug, Default)]
pub(super) struct Reserve {
    by_seat: BTreeMap<Seat, Spent>,
}

#[derive(Debug, Default)]
struct Spent {
    bytes: u64,
    /// Per other seat's public chain, the latest position an envelope of this seat
    /// held here acknowledged (since the game was loaded).
    replied: BTreeMap<ChainId, u64>,
}

/// A reply taken from a seat's reserve: what it spends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Reply {
    pub(super) seat: Seat,
    pub(super) hash: Hash,
    pub(super) bytes: u64,
    /// The other seat's envelope it replies to.
    to: (ChainId, u64),
}

impl Reserve {
    /// Whether `s`, refused by the day's quotas, is taken from its seat's reserve as the
    /// step it owes, with `held` the public chains held here (each position's hash) and
    /// `pending` the replies taken from this push already.
    pub(super) fn reply(
        &self,
        held: &BTreeMap<ChainId, BTreeMap<u64, Hash>>,
        pending: &[Reply],
        s: &Signed,
    ) -> Option<Reply> {
        let at = s.at();
        let seat = at.chain.seat;
        let bytes = s.bytes.len() as u64;
        let spent = self.by_seat.get(&seat);
        let spent_bytes = spent.map_or(0, |x| x.bytes)
            + pending
                .iter()
                .filter(|r| r.seat == seat)
                .map(|r| r.bytes)
                .sum::<u64>();
        if !at.chain.log.is_public()
            || bytes > RESERVE_ENVELOPE
            || spent_bytes + bytes > RESERVE_PER_SEAT
        {
            return None;
        }
        // It extends the seat's chain as held here.
        let next = held
            .get(&at.chain)
            .and_then(|m| m.keys().next_back())
            .map_or(0, |q| q + 1);
        if at.seq != next {
            return None;
        }
        // The latest position of `chain` this seat's envelopes held here acknowledged,
        // or a reply of this push did.
        let replied = |chain: ChainId| {
            let before = spent.and_then(|x| x.replied.get(&chain)).copied();
            let now = pending
                .iter()
                .filter(|r| r.seat == seat && r.to.0 == chain)
                .map(|r| r.to.1)
                .max();
            before.max(now)
        };
        let unsigned = s.unsigned();
        let to = unsigned.acks.iter().find_map(|a| {
            let fresh = a.chain.seat != seat
                && a.chain.log.is_public()
                && held.get(&a.chain)?.get(&a.seq) == Some(&a.hash)
                && replied(a.chain).is_none_or(|q| q < a.seq);
            fresh.then_some((a.chain, a.seq))
        })?;
        Some(Reply {
            seat,
            hash: s.hash,
            bytes,
            to,
        })
    }

    /// Spends a reply taken.
    pub(super) fn spend(&mut self, r: &Reply) {
        self.by_seat.entry(r.seat).or_default().bytes += r.bytes;
    }

    /// Notes what an envelope taken here acknowledges of the other seats' public
    /// chains: a later reply to them is no reply.
    pub(super) fn saw(&mut self, s: &Signed) {
        let seat = s.at().chain.seat;
        let spent = self.by_seat.entry(seat).or_default();
        for a in &s.unsigned().acks {
            if a.chain.seat != seat && a.chain.log.is_public() {
                let q = spent.replied.entry(a.chain).or_insert(a.seq);
                *q = (*q).max(a.seq);
            }
        }
    }

    /// Spends `bytes` of `seat`'s reserve on deposits the quotas refused, if each is
    /// small enough and the reserve has room for all; whether it did.
    pub(super) fn deposits(&mut self, seat: Seat, each: &[u64]) -> bool {
        let spent = self.by_seat.entry(seat).or_default();
        let total: u64 = each.iter().sum();
        let fits =
            each.iter().all(|b| *b <= RESERVE_ENVELOPE) && spent.bytes + total <= RESERVE_PER_SEAT;
        if fits {
            spent.bytes += total;
        }
        fits
    }
}
