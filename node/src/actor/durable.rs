//! Durable before visible (spec/PROTOCOL.md §11.2): every game's state is rebuilt from
//! the store alone, and what a seat signs is in the store before it is sent, served,
//! acknowledged or mailed.
//!
//! The one path from a session to the network is [`Actor::commit_actions`]: persist
//! first, and only when the store says the batch is durable, send. When a write fails
//! the game's table is dropped at once — it holds envelopes that exist nowhere else, and
//! nothing may ever see them — and the game is set aside until the store works again;
//! then it is rebuilt from what was durable, like after a crash.

use super::*;

/// Why a game the node knows is set aside: nothing is signed, sent or served for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Halt {
    /// A store write failed; the game is rebuilt from the store once writes work again.
    Write(String),
    /// Its record, terms, secrets or envelopes could not be read or restored when the
    /// node started. Its id stays known, so nothing is ever signed for it anew.
    Unreadable(String),
}

impl Halt {
    /// The status `sealed games` shows.
    pub(super) fn status(&self) -> &'static str {
        match self {
            Halt::Write(_) => "halted",
            Halt::Unreadable(_) => "unreadable",
        }
    }

    /// Why, for a person.
    pub(super) fn why(&self) -> String {
        match self {
            Halt::Write(e) => format!(
                "a store write failed ({e}): nothing was sent; the game goes on once the \
                 store works again"
            ),
            Halt::Unreadable(e) => format!(
                "this game could not be read from the store ({e}): it is set aside, and \
                 nothing is signed for it"
            ),
        }
    }
}

/// A game the node knows but does not run now.
pub(super) struct SetAside {
    /// Its variant, when its record could be read.
    pub(super) variant: Option<String>,
    /// Why.
    pub(super) halt: Halt,
}

/// A game rebuilt from the store.
enum Loaded {
    /// Played, with the actions its session produced on the way (new envelopes due
    /// now, which are not durable yet).
    Played(Played, Vec<Action>),
    /// Relayed as a mailbox.
    Relayed(Relayed),
}

impl Actor {
    /// Rebuilds every game from the store. A game that cannot be read or restored is set
    /// aside with a warning; the node goes on with the others.
    pub(super) fn load(&mut self) -> Result<(), String> {
        let rows = self
            .store
            .game_rows()
            .map_err(|e| format!("reading the store's games: {e}"))?;
        for (id, row) in rows {
            let variant = row.as_ref().ok().map(|r| r.variant.clone());
            match row
                .map_err(|e| e.to_string())
                .and_then(|record| self.restore_game(record))
            {
                Ok(loaded) => self.install(id, loaded),
                Err(why) => {
                    tracing::warn!(game = %hex::encode(id), "set aside: {why}");
                    self.aside.insert(
                        id,
                        SetAside {
                            variant,
                            halt: Halt::Unreadable(why),
                        },
                    );
                }
            }
        }
        Ok(())
    }

    /// Puts a rebuilt game to work; what its session produced on the way is made
    /// durable before any of it is sent.
    fn install(&mut self, id: [u8; 32], loaded: Loaded) {
        match loaded {
            Loaded::Relayed(r) => {
                self.relayed.insert(id, r);
            }
            Loaded::Played(p, actions) => {
                self.played.insert(id, p);
                // Only the store decides: a halt here leaves the game set aside again.
                let _ = self.commit_actions(id, actions);
            }
        }
    }

    /// A game from its record, its secrets and every envelope the store holds.
    fn restore_game(&self, record: GameRecord) -> Result<Loaded, String> {
        let id = record.id;
        let terms = Terms::parse(&record.terms).map_err(|e| format!("its terms: {e}"))?;
        let envelopes = self
            .store
            .envelopes(&id)
            .map_err(|e| format!("its envelopes: {e}"))?;
        if record.seat.is_none() {
            let mut r = Relayed {
                terms,
                held: BTreeMap::new(),
            };
            for e in &envelopes {
                relay_keep(&mut r, e);
            }
            return Ok(Loaded::Relayed(r));
        }
        let secrets: Option<Secrets> = match self
            .store
            .secrets(&id)
            .map_err(|e| format!("its secrets: {e}"))?
        {
            Some(b) => Some(
                sealed_protocol::wire::decode(&b, sealed_protocol::wire::MAX_MESSAGE)
                    .map_err(|e| format!("its secrets do not decode: {e}"))?,
            ),
            None => None,
        };
        let key = SecretKey::from_seed(&self.key.seed());
        let me = key.public().to_bytes();
        let seat = terms
            .seat_of(&me)
            .ok_or("its terms give this node no seat")?;
        let table = match secrets {
            Some(s) => table::restore(terms, key, s, &envelopes, now_ms())
                .map_err(|e| format!("restoring it: {e}"))?,
            None => {
                // Without secrets a seat has committed to nothing, so fresh entropy is
                // safe — unless something it signed is stored: then its secrets are
                // lost, and signing anew would contradict what others may hold.
                if terms.proposal().proposer == seat {
                    return Err("the proposer's secrets are missing".into());
                }
                let signed_by_us = envelopes
                    .iter()
                    .any(|b| Signed::parse(&terms, b).is_ok_and(|s| s.at().chain.seat == seat));
                if signed_by_us {
                    return Err("its envelopes are stored but not the secrets they bind".into());
                }
                let entropy = crate::home::random32().map_err(|e| e.to_string())?;
                let mut t = table::open(terms, key, entropy, now_ms())
                    .map_err(|e| format!("opening it: {e}"))?;
                for e in &envelopes {
                    let _ = t.handle_envelope(e, now_ms());
                }
                t
            }
        };
        let mut table = table;
        let actions = drain(&mut *table);
        Ok(Loaded::Played(Played { table, record }, actions))
    }

    /// Hands a decision to a game's session and carries out what it asks.
    pub(super) fn apply(&mut self, id: [u8; 32], cmd: SessionCommand) -> Result<(), String> {
        let p = self.played.get_mut(&id).ok_or("no such game")?;
        p.table
            .handle_command(cmd, now_ms())
            .map_err(|e| e.to_string())?;
        let actions = drain(&mut *p.table);
        self.commit_actions(id, actions)?;
        self.run_bots();
        Ok(())
    }

    /// Makes `actions` durable, then carries them out. When the store cannot write, the
    /// game is set aside (its table, ahead of the store, is dropped) and nothing is sent.
    pub(super) fn commit_actions(
        &mut self,
        id: [u8; 32],
        actions: Vec<Action>,
    ) -> Result<(), String> {
        if let Err(e) = self.persist(id, &actions, None) {
            let halt = Halt::Write(e.to_string());
            let why = halt.why();
            self.halt(id, halt);
            return Err(why);
        }
        self.perform(id, actions);
        Ok(())
    }

    /// Every secret and envelope of `actions` (and the game's record, for a new game)
    /// in one transaction: one fsync, and a secret is never durable later than the
    /// commitments that bind it.
    pub(super) fn persist(
        &self,
        id: [u8; 32],
        actions: &[Action],
        record: Option<&GameRecord>,
    ) -> Result<(), StoreError> {
        let secrets: Vec<Vec<u8>> = actions
            .iter()
            .filter_map(|a| match a {
                Action::Persist(s) => Some(sealed_protocol::wire::encode(s)),
                _ => None,
            })
            .collect();
        let mut batch = Batch::new();
        if let Some(r) = record {
            batch.game(r);
        }
        // In order: a later secrets value replaces an earlier one.
        for s in &secrets {
            batch.secrets(id, s);
        }
        for a in actions {
            if let Action::Send { env, .. } = a {
                batch.envelope(id, &env.bytes);
            }
        }
        self.store.commit(&batch).map(drop)
    }

    /// Sets a played game aside: its table is dropped, so nothing it holds beyond the
    /// store is ever sent or served.
    pub(super) fn halt(&mut self, id: [u8; 32], halt: Halt) {
        tracing::error!(game = %hex::encode(id), "game halted: {}", halt.why());
        let variant = self.played.remove(&id).map(|p| p.record.variant);
        self.aside.insert(id, SetAside { variant, halt });
    }

    /// Once the store works again, rebuilds the games a failed write halted, from what
    /// was durable (as after a crash), and carries on with them.
    pub(super) fn resume_halted(&mut self) {
        if self.store.failure().is_some() {
            match self.store.recover() {
                Ok(_) => tracing::info!("the store is reopened"),
                Err(e) => {
                    tracing::warn!("the store is still failing: {e}");
                    return;
                }
            }
        }
        let halted: Vec<[u8; 32]> = self
            .aside
            .iter()
            .filter(|(_, a)| matches!(a.halt, Halt::Write(_)))
            .map(|(id, _)| *id)
            .collect();
        for id in halted {
            let restored = match self.store.game(&id) {
                Ok(Some(record)) => self.restore_game(record),
                Ok(None) => Err("its record is gone".into()),
                Err(e) => Err(e.to_string()),
            };
            match restored {
                Ok(loaded) => {
                    self.aside.remove(&id);
                    tracing::info!(game = %hex::encode(id), "game resumed");
                    self.install(id, loaded);
                    self.bot_dirty.insert(id);
                }
                Err(e) => {
                    if let Some(a) = self.aside.get_mut(&id) {
                        a.halt = Halt::Write(e);
                    }
                }
            }
        }
    }

    /// Sends what `actions` ask (after they are durable), and notes a finished game.
    pub(super) fn perform(&mut self, id: [u8; 32], actions: Vec<Action>) {
        self.bot_dirty.insert(id);
        let Some(terms) = self.terms(&id) else { return };
        let mut batch: HashMap<PeerId, Vec<Vec<u8>>> = HashMap::new();
        for a in actions {
            if let Action::Send { env, to } = a {
                for seat in to {
                    if let Some(peer) = terms.key(seat).and_then(|k| net::peer_id(&k.to_bytes())) {
                        batch.entry(peer).or_default().push(env.bytes.clone());
                    }
                }
                if env.unsigned().log.is_public() {
                    for m in &terms.proposal().mailboxes {
                        if let Some(peer) = net::peer_id(&m.key) {
                            batch.entry(peer).or_default().push(env.bytes.clone());
                        }
                    }
                }
            }
        }
        for (peer, envelopes) in batch {
            self.request(
                peer,
                Request::Push {
                    game: id,
                    envelopes,
                },
            );
        }
        if let Some(p) = self.played.get_mut(&id)
            && p.table.is_done()
            && p.record.status != GameStatus::Finished
        {
            // Only for `sealed games`: the table itself says whether it is done.
            p.record.status = GameStatus::Finished;
            let _ = self.store.set_status(&id, GameStatus::Finished);
        }
    }
}
