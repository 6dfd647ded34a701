//! Time made provable, as a seat (protocol version 2, spec/PROTOCOL.md §17): a node whose
//! opponent has let the agreed time pass asks the game's witness for its ledger on each
//! repair round, and posts it as a forfeit. Its own session judges the forfeit exactly as
//! every verifier will (the engine's rule), so an answer that does not prove the opponent
//! late yet is simply not posted; the node asks again on the next repair round. While the
//! witness answers, a game with a witness files no timeout claim (time is proven, not
//! claimed); after 10 minutes of its silence it does, as without one. The claim is idle, so
//! it puts off no later forfeit. Silence is any answer this seat cannot use, not only
//! none: junk, too many statements, or no ledger later than the last one it answered
//! with (`game/slot/mod.rs` `Slot::witness_replied`), so a witness in league with a
//! walker cannot hold the claim off for ever by answering.
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
use sealed_protocol::envelope::Signed;
use sealed_protocol::ids::Seat;
use sealed_protocol::session::Command as SessionCommand;

use super::game::asking::ledgers;
use super::{Core, Durable, GameId};
use crate::message::Request;
use crate::places::READ_LEDGERS;

impl Core {
    /// The games worth asking the witness about now ([`crate::game::Slot::wants_witness`]).
    pub(super) fn witness_due(&self) -> Vec<GameId> {
        self.games
            .slots()
            .filter(|(_, slot)| slot.wants_witness(self.now))
            .map(|(id, _)| *id)
            .collect()
    }

    /// Whether the game's witness is silent ([`crate::game::Slot::witness_silent`]).
    pub(super) fn witness_silent(&self, id: &GameId) -> bool {
        self.games
            .slot(id)
            .is_some_and(|s| s.witness_silent(self.now))
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
        let replied = self
            .games
            .slot_mut(&game)
            .is_some_and(|slot| slot.witness_replied(&statements));
        if !replied {
            tracing::debug!(
                game = %hex::encode(game),
                n = statements.len(),
                "the witness's answer holds no ledger later than its last: not counted as an answer"
            );
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
        // All it lacked goes now: the next answer must hold it (`Slot::witness_given`),
        // counted from what goes, not from what this seat holds (a write still in flight
        // is not served yet). Past [`MAX_GIVEN`], what it held before is all it is held
        // to.
        if lacking.len() <= MAX_GIVEN {
            let terms = p.table().session().terms();
            let mut counts = have.clone();
            for at in lacking
                .iter()
                .filter_map(|b| Signed::parse_kept(terms, b).ok())
                .map(|s| s.at())
            {
                if let Some(n) = counts.iter_mut().find(|(c, _)| *c == at.chain) {
                    n.1 = n.1.max(at.seq.saturating_add(1));
                }
            }
            if let Some(slot) = self.games.slot_mut(&game) {
                slot.witness_given(counts);
            }
        }
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
