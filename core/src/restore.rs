//! Rebuilding games from what is durable (spec/PROTOCOL.md §11.2): at start (`load`),
//! when a dormant game is asked for (`wake`), after a failed write or `sealed resume`
//! (`durable.rs` `take_up`). A game whose record, secrets or envelopes do not read, or
//! whose own envelopes lack their secrets, is set aside so that it is never signed anew.
//! The write path that stores what these games then do is `durable.rs`.

use sealed_games::table::{self, Given};
use sealed_protocol::envelope::Signed;
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::Terms;
use sealed_protocol::session::{Action, Secrets};

use super::game::Life;
use super::game::queue::drain;
use super::game::{Dormant, Played, Relayed, SetAside};
use super::{Core, Durable, GameId, Halt, NodeError};
use crate::record::{GameRecord, GameStatus};

/// A game rebuilt from the store.
pub(super) enum Loaded {
    /// Played, with the actions its session produced on the way (new envelopes due now,
    /// which are not durable yet).
    Played(Played, Vec<Action>),
    /// Relayed as a mailbox.
    Relayed(Relayed),
    /// Finished: stays in the store until asked for.
    Dormant(Dormant),
}

impl Core {
    /// Rebuilds every game from the store: unfinished ones in memory, finished ones
    /// dormant, unreadable ones set aside with a warning, and those the node stopped
    /// restoring at an earlier start set aside as they are (`crashed.rs`). `restoring`
    /// is told each game's id before its restore starts (the shell's start journal).
    pub(super) fn load(
        &mut self,
        store: &dyn Durable,
        restoring: &mut dyn FnMut(&GameId),
    ) -> Result<(), NodeError> {
        let rows = store
            .game_rows()
            .map_err(|e| NodeError::Store(format!("reading the store's games: {e}")))?;
        let crashed = super::crashed::marked(store);
        for (id, row) in rows {
            let variant = row.as_ref().ok().map(|r| r.variant.clone());
            if let Some(why) = crashed.get(&id) {
                tracing::warn!(game = %hex::encode(id), "set aside: the node stopped restoring it");
                self.set_aside(id, variant, Halt::Crashed(why.clone()));
                continue;
            }
            restoring(&id);
            match row
                .map_err(|e| Halt::Unreadable(e.to_string()))
                .and_then(|record| self.restore_game(record, false, store))
            {
                Ok(loaded) => {
                    self.install(id, loaded, store);
                    self.sleep_unjoined(&id);
                }
                Err(halt) => {
                    tracing::warn!(game = %hex::encode(id), "set aside: {halt}");
                    self.set_aside(id, variant, halt);
                }
            }
        }
        Ok(())
    }

    pub(super) fn set_aside(&mut self, id: GameId, variant: Option<String>, halt: Halt) {
        self.games.put(
            id,
            Life::Aside(Box::new(SetAside {
                variant,
                halt,
                said: vec![],
            })),
        );
    }

    /// Puts a rebuilt game to work; what its session produced on the way is staged like
    /// any step: durable before any of it is sent.
    pub(super) fn install(&mut self, id: GameId, loaded: Loaded, store: &dyn Durable) {
        match loaded {
            Loaded::Relayed(r) => {
                self.games.put(id, Life::Relayed(Box::new(r)));
            }
            Loaded::Dormant(d) => {
                self.games.put(id, Life::Dormant(Box::new(d)));
            }
            Loaded::Played(p, actions) => {
                // A referee node decides nothing but to accept; that holds after a
                // restart too (an invitation stored, not yet accepted).
                if self.cfg.referee
                    && p.table().session().terms().role(p.table().session().seat())
                        == Some(sealed_protocol::proposal::Role::Referee)
                {
                    self.games.put(id, Life::Played(Box::new(p)));
                    self.bot_on(id, true);
                } else {
                    self.games.put(id, Life::Played(Box::new(p)));
                }
                let step = self.step_of(id, actions);
                self.stage(id, step, store);
                self.bot_dirty(id);
            }
        }
    }

    /// A game from its record, its secrets and every envelope the store holds. A
    /// finished game stays dormant unless `wake`.
    pub(super) fn restore_game(
        &mut self,
        record: GameRecord,
        wake: bool,
        store: &dyn Durable,
    ) -> Result<Loaded, Halt> {
        let id = record.id;
        let over = matches!(record.status, GameStatus::Finished | GameStatus::Declined);
        // A finished game stays in the store until asked for; so does a relayed one
        // once over (`unload_idle`), which nodes of before re-verified at every start.
        if over && !wake {
            // One key read per finished game: what `sealed games` says of it.
            let listed = super::listed::Listed::read(store, &id);
            return Ok(Loaded::Dormant(Dormant::new(record, listed)));
        }
        let unreadable = |e: String| Halt::Unreadable(e);
        let terms =
            Terms::parse(&record.terms).map_err(|e| unreadable(format!("its terms: {e}")))?;
        let envelopes = store
            .envelopes(&id)
            .map_err(|e| read_failed("its envelopes", e))?;
        let stored_bytes: u64 = envelopes.iter().map(|e| e.len() as u64).sum();
        if record.seat.is_none() {
            let mut r = Relayed::new(terms, record.created, self.now);
            for e in &envelopes {
                r.keep_stored(e);
            }
            // Whose it is and when it was last renewed, as the store kept them
            // (`held.rs`); one held for nobody in particular lives from now.
            if let Some(row) = self.held_of(&id, store) {
                r.restore_holder(row.holder, row.renewed);
            }
            return Ok(Loaded::Relayed(r));
        }
        let evidence = evidence_of(&envelopes);
        let secrets: Option<Secrets> = match store
            .secrets(&id)
            .map_err(|e| read_failed("its secrets", e))?
        {
            Some(b) => Some(
                Secrets::from_stored(&b)
                    .map_err(|e| unreadable(format!("its secrets do not decode: {e}")))?,
            ),
            None => None,
        };
        let key = SecretKey::from_seed(&self.key.seed());
        let seat = terms
            .seat_of(&key.public().to_bytes())
            .ok_or_else(|| unreadable("its terms give this node no seat".into()))?;
        let mut table = match secrets {
            Some(s) => table::restore(terms, key, &self.cfg.name, s, &envelopes, self.now)
                .map_err(|e| unreadable(format!("restoring it: {e}")))?,
            None => {
                // Without secrets a seat has committed to nothing, so fresh entropy is
                // safe — unless something it signed is stored: then its secrets are
                // lost, and signing anew would contradict what others may hold.
                if terms.proposal().proposer == seat {
                    return Err(unreadable("the proposer's secrets are missing".into()));
                }
                let ours = envelopes.iter().any(|b| {
                    Signed::parse_kept(&terms, b).is_ok_and(|s| s.at().chain.seat == seat)
                });
                if ours {
                    return Err(unreadable(
                        "its envelopes are stored but not the secrets they bind".into(),
                    ));
                }
                let entropy = self.random32();
                let mut t = table::open(terms, key, &self.cfg.name, entropy, self.now)
                    .map_err(|e| unreadable(format!("opening it: {e}")))?;
                for e in &envelopes {
                    // Stored, so verified once already.
                    if let Ok(s) = Signed::parse_kept(t.session().terms(), e) {
                        let _ = t.session_mut().handle_signed(s, self.now);
                    }
                }
                t
            }
        };
        // The other player's messages this seat took (a game without a referee): its
        // side of the computations is made again from them, after the state it kept of
        // those finished (`Computing::kept_out`), whose messages are forgotten. One stored
        // before its hash was signed may not be the one signed (the other player's
        // doing): it is passed over, and the right one asked for again as any lost
        // message is, never a reason to set this seat's game aside. A kept state that
        // does not read is: the messages it stood for are gone.
        let mut messages = store
            .messages(&id)
            .map_err(|e| read_failed("its messages", e))?;
        if let Some(at) = messages.iter().position(|(i, _)| *i == crate::io::KEPT_AT) {
            let (_, kept) = messages.remove(at);
            table
                .computing()
                .ok_or_else(|| unreadable("its computations: kept for a game without any".into()))?
                .handle(Given::Resume(&kept))
                .map_err(|e| unreadable(format!("its computations: {e}")))?;
        }
        for (index, bytes) in messages {
            let taken = match table.computing() {
                Some(c) => c.handle(Given::Message { index, bytes }),
                None => Err(sealed_games::table::Refusal::NoMessages),
            };
            if let Err(e) = taken {
                tracing::info!(game = %hex::encode(&id.bytes()[..4]), "a stored message passed over: {e}");
            }
        }
        let actions = drain(&mut *table);
        // Whose the game is, if a stranger brought it (an invitation, accepted or not; a
        // refereed game): counted where it was, for its charges and for the memory
        // strangers' games hold (`resident.rs`).
        let holder = self.held_of(&id, store).map(|row| row.holder);
        let played = Played::new(table, record, self.now)
            .brought_by(holder, false)
            .with_stored(evidence, stored_bytes);
        Ok(Loaded::Played(played, actions))
    }

    /// Loads a dormant game when something asks for it (a game asleep wakes by
    /// `sleep.rs` `rouse`, only for a peer of it or a command).
    pub(super) fn wake(&mut self, id: &GameId, store: &dyn Durable) -> Result<(), NodeError> {
        let Some(d) = self.games.dormant(id) else {
            return Ok(());
        };
        let (record, variant) = (d.record.clone(), d.record.variant.clone());
        match self.restore_game(record, true, store) {
            Ok(loaded) => {
                self.install(*id, loaded, store);
                Ok(())
            }
            Err(halt) => {
                self.set_aside(*id, Some(variant), halt.clone());
                Err(NodeError::SetAside(halt))
            }
        }
    }
}

/// The positions of which the store holds a second, different envelope.
fn evidence_of(envelopes: &[Vec<u8>]) -> super::game::Evidence {
    let mut seen = std::collections::BTreeSet::new();
    crate::message::places(envelopes)
        .into_iter()
        .filter(|at| !seen.insert(*at))
        .collect()
}

/// A read of the store that failed: a failure of the store itself (redb latched an
/// I/O error) sets the game aside only until the store is reopened, like a failed
/// write; anything else means the bytes are bad and the game stays set aside.
pub(super) fn read_failed(what: &str, e: crate::record::ReadError) -> Halt {
    if e.storage {
        Halt::Write(format!("{what}: {e}"))
    } else {
        Halt::Unreadable(format!("{what}: {e}"))
    }
}
