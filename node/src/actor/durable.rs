//! Durable before visible: every game's state is rebuilt from the store, and what a
//! seat signs is in the store before it is sent, served or acknowledged.

use super::*;

impl Actor {
    /// Rebuilds games from the store (after a restart, nothing lost or duplicated: the
    /// sessions replay exactly the envelopes that were durable).
    pub(super) fn load(&mut self) -> Result<(), String> {
        for record in self.store.games().map_err(|e| e.to_string())? {
            let terms = Terms::parse(&record.terms).map_err(|e| e.to_string())?;
            let envelopes = self
                .store
                .envelopes(&record.id)
                .map_err(|e| e.to_string())?;
            if record.seat.is_none() {
                let mut r = Relayed {
                    terms,
                    chains: BTreeMap::new(),
                };
                for e in envelopes {
                    relay_keep(&mut r, e);
                }
                self.relayed.insert(record.id, r);
                continue;
            }
            let secrets: Option<Secrets> = self
                .store
                .secrets(&record.id)
                .map_err(|e| e.to_string())?
                .and_then(|b| {
                    sealed_protocol::wire::decode(&b, sealed_protocol::wire::MAX_MESSAGE).ok()
                });
            let key = SecretKey::from_seed(&self.key.seed());
            let mut table = match secrets {
                Some(s) => table::restore(terms, key, s, &envelopes, now_ms())
                    .map_err(|e| e.to_string())?,
                None => {
                    // Nothing was committed yet (an invitation not accepted): fresh
                    // entropy is safe.
                    let entropy = crate::home::random32().map_err(|e| e.to_string())?;
                    let mut t =
                        table::open(terms, key, entropy, now_ms()).map_err(|e| e.to_string())?;
                    for e in &envelopes {
                        let _ = t.handle_envelope(e, now_ms());
                    }
                    t
                }
            };
            let id = record.id;
            // Actions a restore produces are envelopes already stored or due now.
            let actions = drain(&mut *table);
            self.played.insert(id, Played { table, record });
            self.perform(id, actions);
        }
        Ok(())
    }

    /// Hands a decision to a game's session and carries out what it asks.
    pub(super) fn apply(&mut self, id: [u8; 32], cmd: SessionCommand) -> Result<(), String> {
        let p = self.played.get_mut(&id).ok_or("no such game")?;
        p.table
            .handle_command(cmd, now_ms())
            .map_err(|e| e.to_string())?;
        let actions = drain(&mut *p.table);
        self.persist(id, &actions)?;
        self.perform(id, actions);
        self.run_bots();
        Ok(())
    }

    /// Makes every secret and envelope of `actions` durable, in order: the envelopes
    /// between two secrets in one transaction (one fsync), a secret before anything
    /// that follows it.
    pub(super) fn persist(&mut self, id: [u8; 32], actions: &[Action]) -> Result<(), String> {
        let mut batch: Vec<&[u8]> = vec![];
        for a in actions {
            match a {
                Action::Persist(secrets) => {
                    self.flush(id, &mut batch)?;
                    self.store
                        .put_secrets(&id, &sealed_protocol::wire::encode(secrets))
                        .map_err(|e| e.to_string())?;
                }
                Action::Send { env, .. } => batch.push(&env.bytes),
                _ => {}
            }
        }
        self.flush(id, &mut batch)
    }

    pub(super) fn flush(&self, id: [u8; 32], batch: &mut Vec<&[u8]>) -> Result<(), String> {
        if !batch.is_empty() {
            self.store
                .put_envelopes(&id, batch)
                .map_err(|e| e.to_string())?;
            batch.clear();
        }
        Ok(())
    }

    /// Sends what `actions` ask (after `persist`), and notes a finished game.
    pub(super) fn perform(&mut self, id: [u8; 32], actions: Vec<Action>) {
        self.bot_dirty.insert(id);
        let Some(terms) = self.terms(&id) else { return };
        let mut batch: HashMap<PeerId, Vec<Vec<u8>>> = HashMap::new();
        for a in actions {
            match a {
                Action::Send { env, to } => {
                    for seat in to {
                        if let Some(peer) =
                            terms.key(seat).and_then(|k| net::peer_id(&k.to_bytes()))
                        {
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
                Action::Complete | Action::GameOver => {
                    if let Some(p) = self.played.get_mut(&id)
                        && p.record.status != GameStatus::Finished
                        && p.table.is_done()
                    {
                        p.record.status = GameStatus::Finished;
                        let _ = self.store.set_status(&id, GameStatus::Finished);
                    }
                }
                Action::Persist(_) => {}
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
            p.record.status = GameStatus::Finished;
            let _ = self.store.set_status(&id, GameStatus::Finished);
        }
    }
}
