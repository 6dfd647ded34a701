//! An unfinished game out of memory, its table in the store only (issue 34's idle memory):
//! what the core reads of it on every repair round without anything having changed — its
//! line for `sealed games`, the peers to keep reaching, the heads to send them, which of
//! its chains each other seat may see, and what the count of games held for strangers reads
//! of a refereed game asleep. When a game sleeps and what wakes it is the core's,
//! `sleep.rs` above.

use sealed_protocol::ids::{ChainId, Seat};

use super::states::Acked;
use crate::PeerKey;
use crate::views::GameSummary;

/// An unfinished game out of memory, its table in the store only.
pub(crate) struct Asleep {
    /// Its line for `sealed games`, as it was when it fell asleep.
    pub(crate) summary: GameSummary,
    /// The other seats, in seat order.
    pub(crate) others: Vec<Reader>,
    /// The game's mailboxes.
    pub(crate) mailboxes: Vec<PeerKey>,
    /// Its witness (one of the mailboxes), named as such in the line's delivery and in
    /// `sealed peers`.
    pub(crate) witness: Option<PeerKey>,
    /// What this seat holds of each chain (its heads).
    pub(crate) heads: Vec<(ChainId, u64)>,
    /// What peers acknowledged and said they hold, given back to the table when it
    /// wakes (`game/states.rs` `Played::acked`, `Played::heard`).
    pub(crate) acked: Acked,
    pub(crate) heard: Acked,
    /// A game this node referees for a stranger that no other player has joined yet:
    /// counted among the games held for strangers, and dropped when its lifetime runs
    /// out (`holding.rs`), asleep as awake.
    pub(crate) held: Option<HeldAsleep>,
}

/// Another seat of a game asleep.
pub(crate) struct Reader {
    pub(crate) key: PeerKey,
    pub(crate) seat: Seat,
    /// The chains it may see now.
    pub(crate) sees: Vec<ChainId>,
    /// This seat's chains it should hold, with their counts (`delivery.rs`
    /// `Played::owed`): what the line's delivery to it is measured against.
    pub(crate) owed: Vec<(ChainId, u64)>,
}

/// What the count of games held for strangers reads of a refereed game asleep
/// (`holding.rs` `each_open_held`, `expires_at`).
pub(crate) struct HeldAsleep {
    /// Its owner, as the game awake had it.
    pub(crate) holder: Option<crate::held::Holder>,
    /// Its proposer.
    pub(crate) proposer: Option<PeerKey>,
    /// When it was taken.
    pub(crate) taken: u64,
    /// When it expires, if it does (not for a friend's game).
    pub(crate) expires: Option<u64>,
}

impl Asleep {
    /// Whether `peer` is another seat (`Some` of it) or a mailbox (`Some(None)`).
    pub(crate) fn reader(&self, peer: &PeerKey) -> Option<Option<Seat>> {
        if let Some(r) = self.others.iter().find(|r| r.key == *peer) {
            Some(Some(r.seat))
        } else if self.mailboxes.contains(peer) {
            Some(None)
        } else {
            None
        }
    }

    /// Every peer [`Asleep::reader`] answers for: the other seats and the mailboxes.
    pub(crate) fn readers(&self) -> impl Iterator<Item = PeerKey> + '_ {
        self.others
            .iter()
            .map(|r| r.key)
            .chain(self.mailboxes.iter().copied())
    }

    /// Whether `peer` holds a seat of the game.
    pub(crate) fn is_seat(&self, peer: &PeerKey) -> bool {
        self.others.iter().any(|r| r.key == *peer)
    }

    /// Whether `audience` may see `chain` now: this seat's view, which does not change
    /// while the game sleeps.
    pub(crate) fn visible(&self, chain: ChainId, audience: Seat) -> bool {
        match self.others.iter().find(|r| r.seat == audience) {
            Some(r) => r.sees.contains(&chain),
            // This seat itself.
            None => self.heads.iter().any(|(c, _)| *c == chain),
        }
    }

    /// Notes what `peer` says it holds of each chain (its `Heads`): the line's delivery
    /// follows, as the table's would.
    pub(crate) fn said(&mut self, peer: PeerKey, have: &[(ChainId, u64)]) {
        let heard = self.heard.entry(peer).or_default();
        for (c, n) in have {
            if self.heads.iter().any(|(h, _)| h == c) {
                let k = heard.entry(*c).or_default();
                *k = (*k).max(*n);
            }
        }
        self.redeliver();
    }

    /// Notes what `peer` acknowledged holding of this seat's chains (`Played::ack`).
    pub(crate) fn acked(&mut self, peer: PeerKey, places: &[(ChainId, u64)]) {
        let me = self.summary.seat.map(Seat);
        let acked = self.acked.entry(peer).or_default();
        for (c, seq) in places.iter().filter(|(c, _)| Some(c.seat) == me) {
            let n = acked.entry(*c).or_default();
            *n = (*n).max(seq + 1);
        }
        self.redeliver();
    }

    /// The line's delivery again, from what the other seats and the mailboxes
    /// confirmed (`delivery.rs` `Played::delivery`: one part for each other seat owed
    /// something, in seat order; no seat of a game asleep has declined).
    fn redeliver(&mut self) {
        let Some(d) = self.summary.delivery.as_mut() else {
            return;
        };
        let owed = self.others.iter().filter(|r| !r.owed.is_empty());
        for (part, r) in d.0.iter_mut().zip(owed) {
            part.reached = super::delivery::reached(
                &r.owed,
                &r.key,
                &self.mailboxes,
                self.witness.as_ref(),
                &self.acked,
                &self.heard,
            );
        }
    }

    /// Every peer of the game but this node.
    pub(crate) fn peers(&self) -> impl Iterator<Item = &PeerKey> {
        self.others.iter().map(|r| &r.key).chain(&self.mailboxes)
    }
}
