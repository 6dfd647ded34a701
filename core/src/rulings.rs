//! Rulings from outside the seats: Tempête's arbiter (spec/GAMES.md §4.20) runs a node
//! that the players name as their game's mailbox, so it holds the public envelopes he
//! rules from. His ruling, signed by the command line with his home's key, is kept by his
//! node as a setting (`ruling/<game>/<dispute>`) and sent to every seat of the game at
//! once and at each of their connections while the game is on; a ruling is the same
//! bytes each time, so sending it again changes nothing. A seat's node hands it to its
//! table, which checks it as the rules will and posts it with its seat's next act
//! (`Table::offer_ruling`, a duty): either player's node may post it, and the first
//! to act does. The core reads neither the act nor its signature: the game does.

use sealed_protocol::ids::GameId;

use super::game::queue::Step;
use super::io::{Answer, CmdId, GameRef};
use super::refusal::PeerRefusal;
use super::seats::{is_mailbox, seat_of};
use super::{Core, Durable, NodeError, PeerKey};
use crate::message::{MAX_RULING, Request, Response};

/// Where the arbiter's node keeps a ruling: one per game and dispute (a second ruling
/// on the same dispute, before either was posted, replaces the first).
fn key(game: &GameId, dispute: u32) -> String {
    format!("{}{dispute}", prefix(game))
}

fn prefix(game: &GameId) -> String {
    format!("ruling/{}/", hex::encode(game))
}

impl Core {
    /// At the arbiter's node: keeps his ruling on `dispute` of a game this node relays,
    /// and sends it to the game's seats once it is durable.
    pub(super) fn keep_ruling(
        &mut self,
        cmd: CmdId,
        g: &GameRef,
        dispute: u32,
        act: Vec<u8>,
        store: &dyn Durable,
    ) -> Result<(), NodeError> {
        let id = self.games.find(g)?;
        self.wake(&id, store)?;
        let Some(r) = self.games.relayed(&id) else {
            return Err(NodeError::NotRelayed);
        };
        if act.len() > MAX_RULING {
            return Err(NodeError::RulingTooLarge(MAX_RULING));
        }
        let seats: Vec<PeerKey> = crate::seats::seat_keys(r.terms()).collect();
        let connected = seats
            .iter()
            .filter(|k| self.peers.connected.contains(*k))
            .count();
        let mut step = Step::default();
        step.writes.meta.push((key(&id, dispute), act.clone()));
        step.sends = seats
            .iter()
            .map(|k| {
                (
                    *k,
                    Request::Ruling {
                        game: id,
                        act: act.clone(),
                    },
                )
            })
            .collect();
        let said = format!(
            "kept by this node and sent to the players' nodes ({connected} of {} connected now; the others get it when they connect)",
            seats.len()
        );
        step.replies.push((cmd, Ok(Answer::Text(said))));
        self.stage(id, step, store);
        Ok(())
    }

    /// At the arbiter's node, as a seat connects: the rulings kept for the games it
    /// plays that this node relays and that are still on.
    pub(super) fn send_rulings(&mut self, peer: &PeerKey, store: &dyn Durable) {
        let games: Vec<GameId> = self
            .games
            .all_relayed()
            .filter(|(_, r)| !r.over() && seat_of(r.terms(), peer).is_some())
            .map(|(id, _)| *id)
            .collect();
        for id in games {
            let Ok(kept) = store.metas(&prefix(&id)) else {
                continue;
            };
            for (_, act) in kept {
                self.request(*peer, Request::Ruling { game: id, act });
            }
        }
    }

    /// At a seat's node: a ruling from one of the game's mailboxes or seats, handed to
    /// the table, which keeps it or says why not.
    pub(super) fn take_ruling(
        &mut self,
        peer: &PeerKey,
        game: GameId,
        act: &[u8],
        store: &dyn Durable,
    ) -> Response {
        if act.len() > MAX_RULING {
            return PeerRefusal::RulingTooLarge.into();
        }
        // A ruling from the game's mailbox or other seat wakes a game asleep; nobody
        // else's does (`sleep.rs`).
        if let Some(a) = self.games.asleep(&game) {
            if a.reader(peer).is_none() {
                return PeerRefusal::NotPoster.into();
            }
            if self.rouse(&game, store).is_err() {
                return PeerRefusal::NotPlayedHere.into();
            }
        }
        let Some(p) = self.games.played_mut(&game) else {
            return PeerRefusal::NotPlayedHere.into();
        };
        let terms = p.table().session().terms();
        if !is_mailbox(terms, peer) && seat_of(terms, peer).is_none() {
            return PeerRefusal::NotPoster.into();
        }
        let offered = p.table_mut().offer_ruling(act);
        match offered {
            Ok(()) => {
                // Posted at once if this seat is to act.
                self.run_duties(vec![game], store);
                self.run_bots(store);
                Response::Ok { new: 0 }
            }
            Err(why) => PeerRefusal::Ruling(why).into(),
        }
    }
}
