//! Games a node's bots accepted for strangers (issue 52). A node's peers it shares a
//! game with are its friends (`peers.rs` `accepted_game`), and a friend's invitations
//! are not bounded: a person chose to play with him. A node whose bots decide every game
//! (`sealed node --bots`, the demo) chose nobody: it accepted every invitation, made its
//! proposer a friend, and so took every later invitation of his, of any number — the
//! hostile swarm's player took 9,540 games in 20 s, each kept for good
//! (docs/RELIABILITY.md). So at such a node nobody is **vouched for** ([`Core::vouched`]):
//! a friend's invitations are bounded as a stranger's (`peers.rs` `may_invite`) and
//! expire as his (`holding.rs`).
//!
//! A game whose proposer is not vouched for and which this node plays (its seat
//! accepted; in play: not over, not resigned) is **hosted** for him, and held like a game
//! a referee takes (`held.rs`):
//!
//! - **bounded**: the bots accept such an invitation only while the hosted games
//!   number fewer than 64 ([`super::STRANGERS_OPEN`]), [`super::STRANGER_OPEN`] per
//!   proposer and 16 per address; when all are taken, one from a network holding fewer
//!   than the network holding most takes the place of that network's oldest game of its
//!   busiest address, which the bots resign. Otherwise the invitation waits, as for a
//!   person, within the invitations' own bounds, and is accepted once there is room;
//! - **with a lifetime**: as an accepted game held for a stranger, as long as its time
//!   terms let one wait last and 7 days more, or 30 days with nothing done in it
//!   without time terms ([`crate::held::Lifetime`]); then the bots resign it. A hosted
//!   game stays in memory meanwhile (it does not sleep, `sleep.rs`), so that it is
//!   counted and its lifetime is watched: at most 64 tables.
//!
//! Attacks, and what happens:
//! - *Fresh keys*: 8 games a key, 16 an address, and the network holding most yields.
//! - *A friend of an earlier game* floods invitations: at a bots' node he is bounded as
//!   anyone (a person's node still takes its friends' invitations unbounded: his choice).
//! - *Accepted, then never played*: the game ends by its time terms (a loss on time for
//!   the stranger) or after its idle lifetime (resigned by the bots), and the newcomer
//!   of a smaller network takes its place at once.
//! - *A stranger who plays slowly on purpose* holds one place for his game's length,
//!   within his key's, address's and network's shares.

use sealed_protocol::session::Command as SessionCommand;
use sealed_protocol::session::Phase;

use super::held::{Counted, Crowd, Room};
use super::{Core, Durable, GameId};
use crate::record::GameStatus;

/// Hosted games from one address at most.
const HOSTED_PER_ORIGIN: usize = 16;

impl Core {
    /// Whether `peer` is a friend whose invitations are taken unbounded: one this node
    /// shares a game with, unless its bots decide every game (see above).
    pub(super) fn vouched(&self, peer: &super::PeerKey) -> bool {
        !self.bots.all && self.peers.book.is_friend(peer)
    }

    /// Whether game `id` is hosted for a stranger (see the module documentation).
    pub(super) fn hosted(&self, id: &GameId) -> bool {
        let Some(p) = self.games.played(id) else {
            return false;
        };
        let terms = p.table().session().terms();
        let me = self.key();
        // Once resigned (or otherwise over) its place is free, whether or not the
        // stranger ever closes it.
        let playing = matches!(
            p.table().session().phase(),
            Phase::Commit(_) | Phase::Coin(_) | Phase::Play(_)
        );
        p.record().status == GameStatus::Active
            && playing
            && !super::seats::referees(terms, &me)
            && super::seats::proposer(terms).is_some_and(|from| from != me && !self.vouched(&from))
    }

    /// The hosted games summed up (in one pass over the games in memory: hosted games
    /// stay there).
    fn hosted_crowd(&self) -> Crowd {
        let ids: Vec<GameId> = self
            .games
            .all_played()
            .map(|(id, _)| *id)
            .filter(|id| self.hosted(id))
            .collect();
        Crowd::of(ids.iter().filter_map(|id| {
            let p = self.games.played(id)?;
            let counted = Counted {
                id: *id,
                holder: p.holder(),
                taken: p.record().created,
                evictable: self.games.slot(id).is_some_and(|s| s.idle()),
            };
            Some((counted, super::seats::proposer(p.table().session().terms())))
        }))
    }

    /// Whether the bots may accept invitation `id`: always a friend's; a stranger's
    /// within the hosted games' bounds, making room by resigning another if the
    /// newcomer's network holds fewer than the network holding most.
    pub(super) fn may_host(&mut self, id: &GameId, store: &dyn Durable) -> bool {
        let Some(p) = self.games.played(id) else {
            return false;
        };
        let me = self.key();
        let Some(from) = super::seats::proposer(p.table().session().terms()) else {
            return true;
        };
        if from == me || self.vouched(&from) {
            return true;
        }
        let holder = p.holder().cloned();
        let crowd = self.hosted_crowd();
        let mine = crowd.by_proposer.get(&from).copied().unwrap_or(0);
        let here = holder.as_ref().map_or(0, |h| crowd.of_key(&h.key));
        if mine >= super::STRANGER_OPEN || here >= HOSTED_PER_ORIGIN {
            return false;
        }
        let group = holder.as_ref().map_or("", |h| h.group.as_str());
        match crowd.room(super::STRANGERS_OPEN, group) {
            Room::Free => true,
            Room::Full => false,
            Room::Evict(victim) => {
                tracing::info!(game = %hex::encode(victim), "resigned: a stranger from a smaller network takes its place");
                // A place is taken only if one was freed.
                self.resign_hosted(victim, store)
            }
        }
    }

    /// The bots resign a hosted game: its place is free at once (the game is past its
    /// play). Whether it was.
    pub(super) fn resign_hosted(&mut self, id: GameId, store: &dyn Durable) -> bool {
        match self.apply(id, SessionCommand::Resign, None, store) {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(game = %hex::encode(id), "a hosted game not resigned: {e}");
                false
            }
        }
    }
}
