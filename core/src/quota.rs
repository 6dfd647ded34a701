//! What a stranger may make this node keep. A public mailbox, witness or referee takes
//! games from anyone (that is its job), and a player's node takes invitations from
//! strangers; keys cost nothing, so each stranger has a share and all strangers
//! together a total, kept in the store (`store/quota.rs`) so that a restart forgets
//! nothing:
//!
//! - games held open at once for one proposer and for all ([`Quotas::open_per_proposer`],
//!   [`Quotas::open_total`]): relayed games not over, refereed games not settled;
//! - everything ever stored on their behalf, per proposer and in total: games,
//!   envelopes, bytes ([`Quotas::per_proposer`], [`Quotas::total`]).
//!
//! A game is charged to its proposer when this node holds it for someone else: it
//! relays it, referees it, or it is an invitation from a stranger not accepted yet.
//! Games this node proposed or its player accepted are its own. Only what is stored is
//! charged: fresh envelopes, and one envelope of evidence per position (`sync.rs`).
//! A witness's deposits are charged the same way, as envelopes (`witness.rs`
//! `serve_deposit`).

use std::collections::HashMap;

use sealed_protocol::proposal::{Role, Terms};

use super::slot::Games;
use super::{GameId, PeerKey};
use crate::record::{GameStatus, Usage};
use crate::refusal::PeerRefusal;

/// The quotas; see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quotas {
    /// Stored for one proposer, ever.
    pub per_proposer: Usage,
    /// Stored for all strangers together, ever.
    pub total: Usage,
    /// Games held open at once for one proposer (relayed or refereed).
    pub open_per_proposer: usize,
    /// Games held open at once for all strangers together.
    pub open_total: usize,
}

impl Default for Quotas {
    fn default() -> Self {
        // A game of any variant is a few hundred envelopes of a few hundred bytes: a
        // proposer's share holds hundreds of games, the total a busy public mailbox's
        // year, and a disk of a few GiB holds it.
        Quotas {
            per_proposer: Usage {
                games: 1024,
                envelopes: 262_144,
                bytes: 64 << 20,
            },
            total: Usage {
                games: 262_144,
                envelopes: 16 << 20,
                bytes: 4 << 30,
            },
            open_per_proposer: 16,
            open_total: 4096,
        }
    }
}

/// What strangers have stored here, per proposer and in all.
#[derive(Debug, Default)]
pub(super) struct Ledger {
    by: HashMap<PeerKey, Usage>,
    all: Usage,
}

impl Ledger {
    /// The ledger as the store holds it.
    pub(super) fn load(rows: Vec<(PeerKey, Usage)>) -> Ledger {
        let mut l = Ledger::default();
        for (who, u) in rows {
            l.add(who, u);
        }
        l
    }

    /// Whether `who` may store `more` now; why not, if not.
    pub(super) fn allows(&self, q: &Quotas, who: &PeerKey, more: Usage) -> Result<(), PeerRefusal> {
        let mine = self.by.get(who).copied().unwrap_or_default().plus(more);
        if !mine.within(q.per_proposer) {
            return Err(PeerRefusal::ProposerQuota(q.per_proposer));
        }
        if !self.all.plus(more).within(q.total) {
            return Err(PeerRefusal::StrangersQuota);
        }
        Ok(())
    }

    /// Notes what `who` stored.
    pub(super) fn add(&mut self, who: PeerKey, more: Usage) {
        let e = self.by.entry(who).or_default();
        *e = e.plus(more);
        self.all = self.all.plus(more);
    }

    /// What `who` has stored.
    pub(super) fn of(&self, who: &PeerKey) -> Usage {
        self.by.get(who).copied().unwrap_or_default()
    }

    /// What all have.
    pub(super) fn all(&self) -> Usage {
        self.all
    }
}

/// The proposer of a game with these terms.
pub(super) fn proposer(terms: &Terms) -> Option<PeerKey> {
    terms.key(terms.proposal().proposer).map(|k| k.to_bytes())
}

/// Whether this node's seat of these terms is the referee's.
pub(super) fn referees(terms: &Terms, me: &PeerKey) -> bool {
    terms
        .seat_of(me)
        .is_some_and(|s| terms.role(s) == Some(Role::Referee))
}

impl Games {
    /// The proposer a known game's storage is charged to, if this node holds it for
    /// someone else (see the module documentation); `friend` says who is not a stranger.
    pub(super) fn charged_to(
        &self,
        id: &GameId,
        me: &PeerKey,
        friend: impl Fn(&PeerKey) -> bool,
    ) -> Option<PeerKey> {
        if let Some(r) = self.relayed(id) {
            return proposer(&r.terms).filter(|p| !friend(p));
        }
        let p = self.played(id)?;
        let terms = p.table.terms();
        let who = proposer(terms)?;
        if who == *me {
            return None;
        }
        if referees(terms, me) || (p.record.status == GameStatus::Invited && !friend(&who)) {
            return Some(who);
        }
        None
    }
}

/// Why a game may not be opened for `who` now, if it may not: his share of games open
/// here (`mine`), and what he stored. The total open for all is [`crate::held::room`]'s
/// to decide: when full, the network holding most yields.
pub(super) fn may_open(
    q: &Quotas,
    ledger: &Ledger,
    mine: usize,
    who: &PeerKey,
) -> Result<(), PeerRefusal> {
    if mine >= q.open_per_proposer {
        return Err(PeerRefusal::OpenForProposer(mine));
    }
    ledger.allows(
        q,
        who,
        Usage {
            games: 1,
            ..Usage::default()
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proposer_and_all_strangers_have_their_shares() {
        let q = Quotas {
            per_proposer: Usage {
                games: 2,
                envelopes: 10,
                bytes: 1000,
            },
            total: Usage {
                games: 3,
                envelopes: 15,
                bytes: 1500,
            },
            open_per_proposer: 1,
            open_total: 2,
        };
        let mut l = Ledger::default();
        let (a, b, c) = ([1; 32], [2; 32], [3; 32]);
        let game = Usage {
            games: 1,
            ..Usage::default()
        };
        assert!(may_open(&q, &l, 0, &a).is_ok());
        assert!(may_open(&q, &l, 1, &a).is_err(), "one open game each");
        l.add(a, game);
        l.add(a, game);
        assert!(may_open(&q, &l, 0, &a).is_err(), "two games ever");
        assert!(may_open(&q, &l, 0, &b).is_ok());
        l.add(b, game);
        assert!(may_open(&q, &l, 0, &c).is_err(), "three games in all");
        let env = |n| Usage {
            games: 0,
            envelopes: n,
            bytes: n * 100,
        };
        assert!(l.allows(&q, &b, env(10)).is_ok());
        assert!(l.allows(&q, &b, env(11)).is_err());
        l.add(b, env(10));
        assert!(
            l.allows(&q, &a, env(6)).is_err(),
            "fifteen envelopes in all"
        );
        assert_eq!(
            l.of(&b),
            Usage {
                games: 1,
                envelopes: 10,
                bytes: 1000
            }
        );
        assert_eq!(l.all().games, 3);
        let back = Ledger::load(vec![(a, l.of(&a)), (b, l.of(&b))]);
        assert_eq!(back.all(), l.all());
    }
}
