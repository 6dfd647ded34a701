//! Time made provable, as a seat (protocol version 2, spec/PROTOCOL.md §17): a node whose
//! opponent has let the agreed time pass asks the game's witness for its ledger on each
//! repair round, and posts it as a forfeit. Its own session judges the forfeit exactly as
//! every verifier will (the engine's rule), so an answer that does not prove the opponent
//! late yet is simply not posted; the node asks again on the next repair round. While the
//! witness answers, a game with a witness files no timeout claim (time is proven, not
//! claimed); after 10 minutes of its silence it does, as without one. The claim is idle, so
//! it puts off no later forfeit.
//!
//! The node also asks after each move, so that the clock it shows is the wait in
//! progress as a forfeit would count it.
//!
//! A seat reads a witness's answer only if it holds at most [`READ_LEDGERS`] (64)
//! statements: an honest witness's answer never holds more (it keeps a bounded number
//! of places of a game, `places.rs`), so every answer is read whole; and
//! after each answer it gives the witness what that ledger lacks, [`MAX_GIVEN`] (256)
//! envelopes at a time.

use sealed_protocol::body::Forfeit;
use sealed_protocol::ids::Seat;
use sealed_protocol::session::Command as SessionCommand;

use super::game::Life;
use super::game::asking::ledgers;
use super::{Core, Durable, GameId};
use crate::message::Request;
use crate::places::READ_LEDGERS;

/// How often a seat asks the witness while its clock by the witness is stale (a move
/// was made since its last answer): often enough that the clock shown catches up
/// within seconds, seldom enough for a witness that does not answer.
const ASK_STALE_MS: u64 = 5_000;

/// How often a seat whose opponent owes a step asks the witness even when the
/// opponent's own clock readings say he is on time.
const ASK_EVERY_MS: u64 = 10 * 60 * 1000;

impl Core {
    /// The games worth asking the witness about: those whose clock by the witness is
    /// stale (a move since its last answer; at most every [`ASK_STALE_MS`]), and those
    /// in which another seat owes a step (a move, or a deal, a draw value, a coin seed
    /// while this seat waits to move) and is past the witness's deadline or overdue by
    /// the players' readings, or was last asked about [`ASK_EVERY_MS`] ago. Only a
    /// trigger: whether the opponent is late is the witness's times against the
    /// engine's rule, which the session applies before posting.
    pub(super) fn witness_due(&self) -> Vec<GameId> {
        let mut out = vec![];
        for (id, slot) in self.games.slots() {
            let Life::Played(p) = slot.life() else {
                continue;
            };
            let terms = p.table().session().terms();
            if terms.witness().is_none() || p.table().session().phase().is_done() {
                continue;
            }
            let Ok(Some(tc)) = sealed_protocol::time::TimeControl::of(terms.proposal()) else {
                continue;
            };
            let me = p.table().session().seat();
            let asked = slot.witness_asked_at();
            let times = slot.witness_times();
            // The clock shown follows the witness: ask again after each move.
            if times.is_none()
                && p.table().to_act().is_some()
                && self.now >= asked.saturating_add(ASK_STALE_MS)
            {
                out.push(*id);
                continue;
            }
            let owed_by_other = p.table().session().verdict().claims.iter().any(|c| {
                c.open
                    && c.against != me
                    && c.about == sealed_protocol::verdict::ClaimAbout::Unfinished
            });
            if !owed_by_other {
                continue;
            }
            // Past the deadline by the witness's own times, or overdue by the players'
            // readings: worth asking. An opponent can sign his readings late to look
            // on time, so the witness is also asked now and then whatever they say.
            let line = p.table().session().timeline();
            let overdue = terms.player_seats().filter(|s| *s != me).any(|s| {
                crate::clock::Clocks::compute(&tc, terms.players(), &line, Some(s), self.now)
                    .overdue
            }) || times.is_some_and(|t| t.seat != me && self.now > t.wait.deadline());
            if overdue || self.now >= asked.saturating_add(ASK_EVERY_MS) {
                out.push(*id);
            }
        }
        out
    }

    /// Whether the game's witness has left this seat's asks unanswered for
    /// [`ASK_EVERY_MS`]: then an overdue opponent gets a timeout claim, as in a game
    /// without a witness. A dead witness leaves the claim, never less.
    pub(super) fn witness_silent(&self, id: &GameId) -> bool {
        let since = self
            .games
            .slot(id)
            .and_then(|s| s.witness_unanswered_since());
        since.is_some_and(|since| self.now >= since.saturating_add(ASK_EVERY_MS))
    }

    /// Asks the witness of each game whose opponent is past its time for statements.
    pub(super) fn ask_witnesses(&mut self, due: &[GameId]) {
        for id in due {
            let Some(p) = self.games.played(id) else {
                continue;
            };
            let Some(w) = super::seats::witness_key(p.table().session().terms()) else {
                continue;
            };
            if let Some(slot) = self.games.slot_mut(id) {
                slot.ask_witness(self.now);
            }
            self.request(w, Request::Witness { game: *id });
        }
    }

    /// The witness's statements came: posted as a forfeit against the opponent if they
    /// prove it late (the session refuses them otherwise, and nothing is sent).
    pub(super) fn witnessed(
        &mut self,
        game: GameId,
        statements: Vec<Vec<u8>>,
        store: &dyn Durable,
    ) {
        if let Some(slot) = self.games.slot_mut(&game) {
            slot.witness_replied();
        }
        // A witness answers with a ledger, split in a few for a long game; more is not
        // from an honest witness, and would only cost this node time to judge.
        if statements.len() > READ_LEDGERS {
            tracing::debug!(
                game = %hex::encode(game),
                n = statements.len(),
                "the witness's answer has too many statements: ignored"
            );
            return;
        }
        let Some(new) = self.take_statements(game, &statements, store) else {
            return;
        };
        if new > 0 {
            self.bot_dirty(game);
        }
        let Some(slot) = self.games.slot_mut(&game) else {
            return;
        };
        let answers = slot.take_witness_answer(statements);
        let Some(p) = self.games.played(&game) else {
            return;
        };
        let me = p.table().session().seat();
        let others: Vec<Seat> = p
            .table()
            .session()
            .terms()
            .player_seats()
            .filter(|s| *s != me)
            .collect();
        for against in others {
            for answer in &answers {
                let cmd = SessionCommand::Forfeit(Forfeit {
                    against,
                    statements: answer.clone(),
                });
                match self.apply(game, cmd, None, store) {
                    Ok(()) => {
                        tracing::info!(game = %hex::encode(game), %against, "posted a time forfeit");
                        if let Some(slot) = self.games.slot_mut(&game) {
                            slot.forfeit_posted();
                        }
                        self.run_bots(store);
                        return;
                    }
                    Err(e) => {
                        tracing::debug!(game = %hex::encode(game), %against, "no forfeit yet: {e}")
                    }
                }
            }
        }
    }
}

impl Core {
    /// Statements the witness gave for `game` (a ledger, stamps): whatever the ledger
    /// shows it lacks goes to it, and the session keeps what they date (a period's
    /// start, a public act's time for the statements a seat posts at the end). How many
    /// were new; `None` when this node does not play the game.
    pub(super) fn take_statements(
        &mut self,
        game: GameId,
        statements: &[Vec<u8>],
        store: &dyn Durable,
    ) -> Option<usize> {
        self.give_witness_what_it_lacks(game, statements, store);
        let now = self.now;
        let p = self.games.played_mut(&game)?;
        Some(p.table_mut().session_mut().note_witness(statements, now))
    }

    /// A witness's answer showed it holding less of a public chain than this seat's
    /// store: the seat gives it what it lacks, whoever signed it. The witness dates an
    /// envelope only once it holds its whole causal past, so a seat that holds an
    /// envelope the witness lacks (its own, the opponent's, the referee's close) is how
    /// the witness comes to hold everything a proof will need, though a push was lost or
    /// its signer has gone.
    pub(super) fn give_witness_what_it_lacks(
        &mut self,
        game: GameId,
        statements: &[Vec<u8>],
        store: &dyn Durable,
    ) {
        let Some(p) = self.games.played(&game) else {
            return;
        };
        let Some(w) = super::seats::witness_key(p.table().session().terms()) else {
            return;
        };
        // The latest ledger's counts: what the witness held last.
        let held = ledgers(p, statements).into_iter().max_by_key(|l| l.at);
        let Some(held) = held else {
            return;
        };
        let have: Vec<(sealed_protocol::ids::ChainId, u64)> =
            held.chains.iter().map(|h| (h.chain, h.count)).collect();
        // Heads are compared by hash, not only by count: where the witness's last
        // envelope of a chain is not the one this seat holds there, the signer sent
        // each a different one (twins). This seat's goes to the witness, which keeps it
        // as evidence and answers with its own (`take.rs`): both then hold the proof,
        // though the witness's one forward of its envelope was lost. Repeated at every
        // answer until it is no longer so.
        let twins: Vec<Vec<u8>> =
            held.chains
                .iter()
                .filter_map(|h| {
                    let ours = p.table().session().envelopes().processed(
                        sealed_protocol::ids::EnvRef {
                            chain: h.chain,
                            seq: h.count.checked_sub(1)?,
                        },
                    )?;
                    (ours.hash != h.head).then(|| ours.bytes.clone())
                })
                .collect();
        let Ok(mut lacking) = self.served(&game, None, &have, store) else {
            return;
        };
        lacking.splice(0..0, twins);
        if lacking.is_empty() {
            return;
        }
        lacking.truncate(MAX_GIVEN);
        tracing::debug!(game = %hex::encode(&game.bytes()[..4]), n = lacking.len(), "giving the witness what it lacks");
        self.request(
            w,
            Request::Push {
                game,
                envelopes: lacking,
            },
        );
    }
}

/// Most envelopes a seat gives the witness in one push after one answer; the next
/// answer shows what is still lacking.
const MAX_GIVEN: usize = 256;
