//! What the node does by itself: bots, duties, repair rounds, timeout claims.

use super::*;

/// Picks a bot tries before it waits for the next tick.
const BOT_TRIES: usize = 8;

impl Actor {
    /// Lets the bots act in the games that changed since they last looked (a bot's
    /// own act changes its game, so a bot that can go on does, up to 64 acts a call).
    pub(super) fn run_bots(&mut self) {
        let dirty: Vec<[u8; 32]> = self.bot_dirty.iter().copied().collect();
        self.run_duties(dirty);
        for _ in 0..64 {
            let ids: Vec<[u8; 32]> = self
                .bot_dirty
                .drain()
                .filter(|id| {
                    (self.bot_all || self.bots.contains(id))
                        && self.played.get(id).is_some_and(|p| p.table.my_turn())
                })
                .collect();
            if ids.is_empty() {
                break;
            }
            for id in ids {
                self.bot_turn(id);
            }
        }
    }

    /// One act of a bot's. A choice its session refuses is logged and another pick is
    /// tried: a bot must never leave a game waiting for ever (a Tempête bot once kept
    /// offering a refused yield). The next tick tries again if none is taken.
    fn bot_turn(&mut self, id: [u8; 32]) {
        for _ in 0..BOT_TRIES {
            self.bot_counter = self
                .bot_counter
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let pick = self.bot_counter >> 33;
            let Some(cmd) = self.played.get(&id).and_then(|p| p.table.bot_action(pick)) else {
                return;
            };
            let is_accept = cmd == SessionCommand::Accept;
            match self.apply_bot(id, cmd) {
                Ok(()) => {
                    if is_accept && let Some(p) = self.played.get_mut(&id) {
                        p.record.status = GameStatus::Active;
                        let _ = self.store.set_status(&id, GameStatus::Active);
                    }
                    return;
                }
                // Halted by the store: nothing more to try until it works again.
                Err(_) if !self.played.contains_key(&id) => return,
                Err(e) => {
                    tracing::warn!(game = %hex::encode(&id[..4]), "bot's choice refused: {e}");
                }
            }
        }
    }

    /// Runs the duties of the games whose time-bound duty has come due.
    pub(super) fn due_duties(&mut self) {
        let now = now_ms();
        let ids: Vec<[u8; 32]> = self
            .played
            .iter()
            .filter(|(_, p)| p.table.due_at().is_some_and(|t| t <= now))
            .map(|(id, _)| *id)
            .collect();
        if !ids.is_empty() {
            self.run_duties(ids);
            self.run_bots();
        }
    }

    /// Applies the duties the games give this node's seats (a referee's answers and
    /// period closes, a player's setup shown to the referee), whoever decides the
    /// seat's moves: a duty is never a choice. At most 64 per game per call.
    pub(super) fn run_duties(&mut self, ids: Vec<[u8; 32]>) {
        for id in ids {
            for _ in 0..64 {
                let now = now_ms();
                let Some(cmd) = self.played.get(&id).and_then(|p| p.table.duty(now)) else {
                    break;
                };
                if let Err(e) = self.apply_bot(id, cmd) {
                    tracing::warn!(game = %hex::encode(&id[..4]), "duty refused: {e}");
                    break;
                }
                self.bot_dirty.insert(id);
            }
        }
    }

    pub(super) fn apply_bot(&mut self, id: [u8; 32], cmd: SessionCommand) -> Result<(), String> {
        let p = self.played.get_mut(&id).ok_or("no such game")?;
        p.table
            .handle_command(cmd, now_ms())
            .map_err(|e| e.to_string())?;
        let actions = drain(&mut *p.table);
        self.commit_actions(id, actions)
    }

    pub(super) fn periodic(&mut self) {
        self.limiter.prune(now_ms());
        self.resume_halted();
        // A bot whose every pick was refused looks again.
        let waiting: Vec<[u8; 32]> = self
            .played
            .iter()
            .filter(|(id, p)| (self.bot_all || self.bots.contains(*id)) && p.table.my_turn())
            .map(|(id, _)| *id)
            .collect();
        self.bot_dirty.extend(waiting);
        // Reach every peer of every unfinished game we are not connected to, and send
        // each connected one the heads of every unfinished game we share: one request
        // per peer that repairs whatever a lost or refused push left behind, and pulls
        // from mailboxes (they cannot reach us while we are offline).
        let mut want: HashSet<PeerId> = HashSet::new();
        for p in self.played.values() {
            if p.table.is_done() && p.record.status != GameStatus::Proposed {
                continue;
            }
            for peer in self.game_peers(p.table.terms()) {
                if !self.connected.contains(&peer) {
                    want.insert(peer);
                }
            }
        }
        for peer in want {
            self.dial(peer);
        }
        let peers: Vec<PeerId> = self.connected.iter().copied().collect();
        for peer in peers {
            let games = self.heads_for(peer);
            if !games.is_empty() {
                self.request(peer, Request::Heads { games });
            }
        }
        self.claim_timeouts();
        // Duties can come due with time alone (a move period ends), so every game is
        // looked at on each tick.
        let ids: Vec<[u8; 32]> = self
            .played
            .iter()
            .filter(|(_, p)| !p.table.is_done())
            .map(|(id, _)| *id)
            .collect();
        self.run_duties(ids);
        self.run_bots();
    }

    /// Files a timeout claim against each opponent whose time has passed, once per
    /// wait: a claim whose clock is later than the wait's start already covers it.
    pub(super) fn claim_timeouts(&mut self) {
        let due: Vec<([u8; 32], Seat)> = self
            .played
            .iter()
            .filter_map(|(id, p)| {
                let c = self.clocks(p).filter(|c| c.overdue)?;
                let owing = Seat(c.owing?);
                if owing == p.table.seat() {
                    return None;
                }
                let line = p.table.timeline();
                let since = line.acts.last().map(|a| a.1).or(line.started)?;
                let claimed = line
                    .timeout_claims
                    .iter()
                    .any(|&(against, at)| against == owing && at >= since);
                (!claimed).then_some((*id, owing))
            })
            .collect();
        for (id, against) in due {
            tracing::info!(game = %hex::encode(id), %against, "claiming a timeout");
            let claim = SessionCommand::Claim(sealed_protocol::body::Claim {
                against,
                kind: sealed_protocol::body::ClaimKind::Timeout,
            });
            if let Err(e) = self.apply(id, claim) {
                tracing::warn!(game = %hex::encode(id), "timeout claim refused: {e}");
            }
        }
    }
}
