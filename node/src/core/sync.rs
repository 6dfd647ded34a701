//! The sync protocol's two sides (spec/PROTOCOL.md §16): what a core answers to peers —
//! always read from the store — and what it takes from them.

use std::collections::BTreeMap;

use sealed_games::table;
use sealed_protocol::envelope::Signed;
use sealed_protocol::ids::{ChainId, LogId, Seat};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::{Role, Terms};

use super::durable::{Step, Waiter};
use super::games::{Played, Relayed, game_peers, is_mailbox, seat_of};
use super::io::{InId, OutId, Output};
use super::{Core, Durable, GameId, PeerKey};
use crate::store::{GameRecord, GameStatus};
use crate::sync::{GameHeads, MAX_INTRODUCED, MAX_SYNC_MESSAGE, Request, Response};

impl Core {
    /// What we hold of every unfinished game `peer` holds a seat of or relays, and of
    /// every game we relay that it plays.
    pub(super) fn heads_for(&self, peer: &PeerKey) -> Vec<GameHeads> {
        let mut games = vec![];
        for (id, p) in &self.games.played {
            if p.settled && p.record.status != GameStatus::Proposed {
                continue;
            }
            let terms = p.table.terms();
            if seat_of(terms, peer).is_some() || is_mailbox(terms, peer) {
                games.push((*id, p.table.chain_counts()));
            }
        }
        for (id, r) in &self.games.relayed {
            if seat_of(&r.terms, peer).is_some() {
                games.push((*id, r.heads()));
            }
        }
        // A stable order: the simulation replays from its seed.
        games.sort_by_key(|g| g.0);
        games
    }

    /// Answers a request from `peer` (or stages the answer behind the writes it makes).
    pub(super) fn serve(&mut self, peer: PeerKey, id: InId, req: Request, store: &dyn Durable) {
        let cost = 1.0
            + match &req {
                Request::Push { envelopes, .. } | Request::Offer { envelopes, .. } => {
                    envelopes.len() as f64
                }
                Request::PushMany { games } => games.iter().map(|(_, e)| e.len() as f64).sum(),
                Request::Heads { games } => games.len() as f64 / 64.0,
                Request::Deposit { deposits, .. } => deposits.len() as f64 / 4.0,
                Request::Witness { .. } | Request::Deposits { .. } => 1.0,
                _ => 0.0,
            };
        if !self.limiter.spend(&peer, cost, self.now) {
            tracing::warn!(peer = %hex::encode(&peer[..4]), "refused a request over the peer's rate limit");
            return self.respond(id, Response::Refused("rate limit: slow down".into()));
        }
        match req {
            Request::Propose { proposal } => {
                let w = Waiter::Peer(id);
                self.wait_for(w, 1, None);
                if let Some(r) = self.take_proposal(peer, &proposal, Some(w), store) {
                    self.waiting.remove(&w);
                    self.respond(id, r);
                }
            }
            Request::Witness { game } => {
                let r = self.statements(&peer, game, store);
                self.respond(id, r);
            }
            Request::Deposit { game, deposits } => {
                self.serve_deposit(&peer, id, game, deposits, store)
            }
            Request::Deposits { game, from } => {
                let r = self.serve_deposits(&peer, game, from, store);
                self.respond(id, r);
            }
            // The shell reads the addresses and hands them in as `Input::Introduced`.
            Request::Introduce { .. } => self.respond(
                id,
                Response::Refused("introductions go through the shell".into()),
            ),
            Request::Push { game, envelopes } => {
                self.wait_for(Waiter::Peer(id), 1, None);
                if let Err(why) = self.take_push(peer, game, envelopes, Waiter::Peer(id), store) {
                    self.waiting.remove(&Waiter::Peer(id));
                    self.respond(id, Response::Refused(why));
                }
            }
            Request::PushMany { games } => {
                let w = Waiter::Peer(id);
                // Hold the answer until every game's step is durable.
                self.wait_for(w, 1, None);
                for (game, envelopes) in games {
                    self.wait_for(w, 1, None);
                    // One game refused (an outsider's) does not stop the others.
                    if self.take_push(peer, game, envelopes, w, store).is_err() {
                        self.step_done(w, 0, None);
                    }
                }
                self.step_done(w, 0, None);
            }
            Request::Pull { game, have } => {
                let resp = match self.lacking(&peer, &game, &have, store) {
                    Ok(envs) => Response::Envelopes(envs),
                    Err(why) => Response::Refused(why),
                };
                self.respond(id, resp);
            }
            Request::Heads { games } => {
                let resp = self.behind(&peer, games, store);
                self.respond(id, resp);
            }
            Request::Offer {
                proposal,
                envelopes,
            } => {
                let w = Waiter::Peer(id);
                // One step for the envelopes, and one more for a new game's record.
                self.wait_for(w, 1, None);
                match self.take_proposal(peer, &proposal, Some(w), store) {
                    Some(Response::Refused(why)) => {
                        self.waiting.remove(&w);
                        return self.respond(id, Response::Refused(why));
                    }
                    Some(_) => {}
                    None => self.wait_for(w, 1, None),
                }
                let game = Terms::parse(&proposal).map(|t| t.game().0.0).ok();
                self.take_envelopes(peer, game, envelopes, Some(w), store);
            }
        }
    }

    pub(super) fn respond(&mut self, id: InId, resp: Response) {
        self.out.push_back(Output::Respond { id, resp });
    }

    /// Per game of a peer's heads, what it lacks, and the games we do not know.
    fn behind(&mut self, peer: &PeerKey, games: Vec<GameHeads>, store: &dyn Durable) -> Response {
        let mut envelopes = vec![];
        let mut unknown = vec![];
        let mut bytes = 0;
        for (game, have) in games {
            if self.games.aside.contains_key(&game) {
                // Known, but nothing is served until it runs again.
                continue;
            }
            let forgotten = self.cfg.windows.forget_index && self.games.dormant.contains_key(&game);
            if !self.games.knows(&game) || forgotten {
                unknown.push(game);
                continue;
            }
            if let Some(p) = self.games.played.get_mut(&game) {
                let heard = p.heard.entry(*peer).or_default();
                for (c, n) in &have {
                    let k = heard.entry(*c).or_default();
                    *k = (*k).max(*n);
                }
            }
            // Half the message cap: the rest comes in the next round.
            if bytes > MAX_SYNC_MESSAGE / 2 {
                break;
            }
            if let Ok(envs) = self.lacking(peer, &game, &have, store)
                && !envs.is_empty()
            {
                bytes += envs.iter().map(Vec::len).sum::<usize>();
                envelopes.push((game, envs));
            }
        }
        Response::Behind { envelopes, unknown }
    }

    /// An answer to one of our requests, or its failure.
    pub(super) fn answered(&mut self, id: OutId, resp: Option<Response>, store: &dyn Durable) {
        let offered = self.peers.offered.remove(&id);
        let pushed = self.peers.pushed.remove(&id).unwrap_or_default();
        let asked = self.peers.asked.remove(&id).unwrap_or_default();
        let witnessed = self.peers.witness_asked.remove(&id);
        let stamped = self.peers.stamp_asked.remove(&id);
        let fetched = self.peers.deposits_asked.remove(&id);
        let Some(peer) = self.room(id) else {
            return;
        };
        match resp {
            Some(Response::Envelopes(envs)) => {
                self.take_envelopes(peer, None, envs, None, store);
            }
            Some(Response::Behind { envelopes, unknown }) => {
                // The peer holds every game it did not call unknown: an invitation it
                // learned from another seat first is delivered all the same.
                for game in asked.iter().filter(|g| !unknown.contains(g)) {
                    if let Some(p) = self.games.played.get_mut(game) {
                        p.heard.entry(peer).or_default();
                    }
                }
                for (game, envs) in envelopes {
                    self.take_envelopes(peer, Some(game), envs, None, store);
                }
                for game in unknown {
                    self.offer(peer, game, store);
                }
            }
            Some(Response::Statements(statements)) => {
                if let Some(game) = witnessed {
                    self.witnessed(game, statements, store);
                } else if let Some(game) = stamped {
                    self.stamped(game, statements, store);
                }
            }
            Some(Response::Deposits { deposits, next }) => {
                if let Some(game) = fetched {
                    self.fetched(game, deposits, next, store);
                }
            }
            Some(Response::Refused(why)) => {
                tracing::debug!(peer = %hex::encode(&peer[..4]), "request refused: {why}");
                // Said by `sealed games` while the invitation is not delivered.
                if let Some((game, _)) = offered
                    && self.games.played.contains_key(&game)
                {
                    self.peers.refused.insert(game, why);
                }
            }
            Some(Response::Ok { .. }) => {
                if let Some((game, places)) = offered {
                    self.peers.refused.remove(&game);
                    self.acknowledged(peer, game, &places, store);
                }
                for (game, places) in pushed {
                    self.acknowledged(peer, game, &places, store);
                }
            }
            // Lost: the next heads round repairs what it carried.
            None => {}
        }
    }

    /// Addresses of a game's other seats from a peer that knows them: learned and
    /// dialled. Once the game is known only its seats' addresses are kept; before (the
    /// introduction can overtake the offer) every one, as the address book is bounded.
    pub(super) fn introduced(
        &mut self,
        from: PeerKey,
        id: InId,
        game: GameId,
        addrs: Vec<Option<(PeerKey, String)>>,
    ) {
        if addrs.len() > MAX_INTRODUCED {
            return self.respond(id, Response::Refused("too many addresses".into()));
        }
        let terms = self.games.terms(&game).cloned();
        let me = self.key();
        for (peer, addr) in addrs.into_iter().flatten() {
            if peer == me || peer == from {
                continue;
            }
            if terms.as_ref().is_some_and(|t| seat_of(t, &peer).is_none()) {
                continue;
            }
            self.learn(peer, addr);
            if !self.peers.connected.contains(&peer) {
                self.dial(peer);
            }
        }
        self.respond(id, Response::Ok { new: 0 });
    }

    /// A push of `peer`'s: taken if `peer` holds a seat of the game or is its mailbox.
    fn take_push(
        &mut self,
        peer: PeerKey,
        game: GameId,
        envelopes: Vec<Vec<u8>>,
        w: Waiter,
        store: &dyn Durable,
    ) -> Result<(), String> {
        let terms = self.games.terms(&game).ok_or("unknown game")?;
        if seat_of(terms, &peer).is_none() && !is_mailbox(terms, &peer) {
            tracing::warn!("refused a push from a peer that holds no seat of the game");
            return Err("only the game's seats and mailboxes may post to it".into());
        }
        self.take_envelopes(peer, Some(game), envelopes, Some(w), store);
        Ok(())
    }

    /// The envelopes of `game` that `peer`, holding `have`, lacks and may see; an error
    /// when the game is unknown or `peer` holds no seat of it and is not its mailbox.
    pub(super) fn lacking(
        &self,
        peer: &PeerKey,
        game: &GameId,
        have: &[(ChainId, u64)],
        store: &dyn Durable,
    ) -> Result<Vec<Vec<u8>>, String> {
        let terms = self.games.terms(game).ok_or("unknown game")?;
        let seat = seat_of(terms, peer);
        if seat.is_none() && !is_mailbox(terms, peer) {
            return Err("only the game's seats and mailboxes may read it".into());
        }
        self.served(game, seat, have, store)
    }

    /// What the store holds of `game` beyond `have`, chain by chain, that `audience` may
    /// see (§16.4): read from the store alone, so nothing that is not durable ever
    /// leaves. `None` for a mailbox, which sees the public chains only.
    pub(super) fn served(
        &self,
        game: &GameId,
        audience: Option<Seat>,
        have: &[(ChainId, u64)],
        store: &dyn Durable,
    ) -> Result<Vec<Vec<u8>>, String> {
        if self.cfg.windows.serve_from_memory
            && let (Some(p), Some(seat)) = (self.games.played.get(game), audience)
        {
            // Window open on purpose: served from the table, which may be ahead of the
            // store.
            return Ok(p.table.envelopes_after(have, seat));
        }
        let have: BTreeMap<ChainId, u64> = have.iter().copied().collect();
        let played = self.games.played.get(game);
        // A dormant game is over: every log is public to its seats (§8.11.4).
        let dormant = self.games.dormant.contains_key(game);
        let visible = |chain: ChainId| match (played, audience) {
            (Some(p), Some(seat)) => p.table.visible(chain, seat),
            (None, Some(_)) if dormant => true,
            _ => chain.log.is_public(),
        };
        store
            .chain_envelopes(game, &mut |log, seat| {
                let chain = ChainId {
                    log: LogId(log),
                    seat: Seat(seat),
                };
                visible(chain).then(|| have.get(&chain).copied().unwrap_or(0))
            })
            .map_err(|e| format!("the store cannot be read: {e}"))
    }

    /// A proposal, from a proposer or a mailbox: a game to play if it names us, to relay
    /// if we are a mailbox it names. `None` when the answer waits for the game's record
    /// to be durable (`w` gets it); else the answer now.
    pub(super) fn take_proposal(
        &mut self,
        peer: PeerKey,
        bytes: &[u8],
        w: Option<Waiter>,
        store: &dyn Durable,
    ) -> Option<Response> {
        let terms = match Terms::parse(bytes) {
            Ok(t) => t,
            Err(e) => return Some(Response::Refused(format!("proposal: {e}"))),
        };
        let id = terms.game().0.0;
        if self.cfg.windows.forget_index {
            // Window open on purpose: only games in memory are known.
            if self.games.played.contains_key(&id) || self.games.relayed.contains_key(&id) {
                return Some(Response::Ok { new: 0 });
            }
            self.games.dormant.remove(&id);
        } else {
            if self.games.knows(&id) {
                return Some(Response::Ok { new: 0 });
            }
            // The store's index alone says whether a game is known: an offer of a game it
            // holds, loaded or not, is never a new invitation (that would sign a second,
            // different opening).
            match store.knows(&id) {
                Ok(false) => {}
                Ok(true) => return Some(Response::Ok { new: 0 }),
                Err(e) => {
                    return Some(Response::Refused(format!("the store cannot be read: {e}")));
                }
            }
        }
        let me = self.key();
        if let Some(seat) = terms.seat_of(&me) {
            // A referee node takes every game that seats it: it is its job.
            let proposer = terms.key(terms.proposal().proposer).map(|k| k.to_bytes());
            if !(self.cfg.referee && terms.role(seat) == Some(Role::Referee))
                && let Some(p) = proposer
                && let Err(why) = self.may_invite(&p)
            {
                tracing::info!(game = %hex::encode(id), "invitation refused: {why}");
                return Some(Response::Refused(why));
            }
            let entropy = self.random32();
            let t = match table::open(
                terms.clone(),
                SecretKey::from_seed(&self.key.seed()),
                entropy,
                self.now,
            ) {
                Ok(t) => t,
                Err(e) => return Some(Response::Refused(e.to_string())),
            };
            let record = GameRecord {
                id,
                terms: bytes.to_vec(),
                variant: terms.variant().to_owned(),
                seat: Some(seat.0),
                created: self.now,
                status: GameStatus::Invited,
            };
            tracing::info!(game = %hex::encode(id), peer = %hex::encode(&peer[..4]), "invited to a game");
            let mut step = Step::default();
            step.writes
                .meta
                .extend(self.mailbox_addrs(&terms, self.now));
            step.writes.games.push(record.clone());
            step.answers.extend(w);
            self.games
                .played
                .insert(id, Played::new(t, record, self.now));
            if self.cfg.referee && terms.role(seat) == Some(Role::Referee) {
                // The only choice a referee seat makes is to accept: the bot does that.
                self.bots.on.insert(id);
            }
            self.bots.dirty.insert(id);
            self.stage(id, step, store);
            self.run_bots(store);
            return None;
        }
        if self.cfg.mailbox && terms.proposal().mailboxes.iter().any(|m| m.key == me) {
            let record = GameRecord {
                id,
                terms: bytes.to_vec(),
                variant: terms.variant().to_owned(),
                seat: None,
                created: self.now,
                status: GameStatus::Relayed,
            };
            let mut step = Step::default();
            step.writes.games.push(record);
            step.answers.extend(w);
            self.games.relayed.insert(
                id,
                Relayed {
                    terms,
                    held: BTreeMap::new(),
                    witness: None,
                },
            );
            self.stage(id, step, store);
            return None;
        }
        Some(Response::Refused(
            "this node holds no seat of that game and is not its mailbox".into(),
        ))
    }

    /// Envelopes received (pushed, pulled or mailed): given to the game, then stored
    /// with everything the game does with them, before any of it is sent; `w` waits for
    /// that write.
    pub(super) fn take_envelopes(
        &mut self,
        from: PeerKey,
        game: Option<GameId>,
        envs: Vec<Vec<u8>>,
        w: Option<Waiter>,
        store: &dyn Durable,
    ) {
        let done = |core: &mut Core| {
            if let Some(w) = w {
                core.step_done(w, 0, None);
            }
        };
        let Some(game) = game.or_else(|| game_of(&envs)) else {
            return done(self);
        };
        if self.games.dormant.contains_key(&game) && self.wake(&game, store).is_err() {
            return done(self);
        }
        let Some(terms) = self.games.terms(&game).cloned() else {
            return done(self);
        };
        // Keep only validly signed envelopes of this game: a peer cannot make us store
        // anything a seat did not sign. A mailbox keeps the public logs only.
        let relayed = self.games.relayed.contains_key(&game);
        let valid: Vec<Vec<u8>> = envs
            .into_iter()
            .filter(|b| {
                Signed::parse(&terms, b).is_ok_and(|s| !relayed || s.at().chain.log.is_public())
            })
            .collect();
        let mut step = Step::default();
        step.answers.extend(w);
        if let Some(r) = self.games.relayed.get_mut(&game) {
            let fresh: Vec<Vec<u8>> = valid.iter().filter(|b| r.keep(b)).cloned().collect();
            // A witness's receipts of what it first holds now, in the same write.
            let receipts = self.receipts(game, &fresh, store);
            step.writes.meta.extend(receipts);
            // Forward what is new to the other seats that are connected, once stored.
            if !fresh.is_empty() {
                for p in game_peers(&terms, &self.key()) {
                    if p != from && self.peers.connected.contains(&p) {
                        step.sends.push((
                            p,
                            Request::Push {
                                game,
                                envelopes: fresh.clone(),
                            },
                        ));
                    }
                }
            }
            step.writes.envelopes = valid.into_iter().map(|b| (game, b)).collect();
            return self.stage(game, step, store);
        }
        let Some(p) = self.games.played.get_mut(&game) else {
            return done(self);
        };
        p.used = self.now;
        // A private log's envelope outside this seat's audience is taken only once the
        // game is over in this seat's own view (§16.4), whatever the sender thought: what
        // may be seen goes first (the ending may be among it), the rest is judged after
        // it, and what is still hidden is dropped (a later repair round brings it).
        let seat = p.table.seat();
        let (now_seen, later): (Vec<Vec<u8>>, Vec<Vec<u8>>) = valid
            .into_iter()
            .partition(|b| chain_of(b).is_some_and(|c| p.table.visible(c, seat)));
        for b in &now_seen {
            let _ = p.table.handle_envelope(b, self.now);
        }
        let later: Vec<Vec<u8>> = later
            .into_iter()
            .filter(|b| chain_of(b).is_some_and(|c| p.table.visible(c, seat)))
            .collect();
        for b in &later {
            let _ = p.table.handle_envelope(b, self.now);
        }
        let valid: Vec<Vec<u8>> = now_seen.into_iter().chain(later).collect();
        let actions = super::durable::drain(&mut *p.table);
        // What was received is stored with what it made this seat sign: one write.
        step.writes.envelopes = valid.into_iter().map(|b| (game, b)).collect();
        let mine = self.step_of(game, actions);
        step.writes.extend(mine.writes);
        step.sends = mine.sends;
        self.stage(game, step, store);
        self.run_bots(store);
    }

    /// Offers `peer` a game it does not know, if it holds a seat of it or is its
    /// mailbox: the proposal and every envelope it may see, in one message, and the
    /// addresses of the game's other seats.
    pub(super) fn offer(&mut self, peer: PeerKey, game: GameId, store: &dyn Durable) {
        let Some(terms) = self.games.terms(&game).cloned() else {
            return;
        };
        let Ok(envelopes) = self.lacking(&peer, &game, &[], store) else {
            return;
        };
        self.request(
            peer,
            Request::Offer {
                proposal: terms.bytes().to_vec(),
                envelopes,
            },
        );
        self.introduce(peer, game, &terms);
    }

    /// Tells `peer` where the game's other seats can be reached, as far as we know: in a
    /// game of three seats only the proposer knows every address, and the referee and
    /// the opponent must reach each other directly.
    pub(super) fn introduce(&mut self, peer: PeerKey, game: GameId, terms: &Terms) {
        let addrs: Vec<String> = game_peers(terms, &self.key())
            .into_iter()
            .filter(|p| *p != peer)
            .flat_map(|p| self.peers.book.dial_list(&p))
            .take(MAX_INTRODUCED)
            .collect();
        if !addrs.is_empty() {
            self.request(peer, Request::Introduce { game, addrs });
        }
    }

    /// Introductions again, to a connected peer, of every unsettled game of three or
    /// more seats it holds a seat of: one that was lost (or that the peer forgot in a
    /// restart) would leave two seats that never meet.
    pub(super) fn reintroduce(&mut self, peer: PeerKey) {
        let games: Vec<(GameId, Terms)> = self
            .games
            .played
            .iter()
            .filter(|(_, p)| !p.settled && p.table.terms().seat_count() > 2)
            .filter(|(_, p)| seat_of(p.table.terms(), &peer).is_some())
            .map(|(id, p)| (*id, p.table.terms().clone()))
            .collect();
        for (game, terms) in games {
            self.introduce(peer, game, &terms);
        }
    }
}

/// An envelope's header, if its bytes decode (its signature is checked elsewhere).
fn envelope(bytes: &[u8]) -> Option<sealed_protocol::envelope::Envelope> {
    sealed_protocol::wire::decode(bytes, sealed_protocol::wire::MAX_MESSAGE).ok()
}

/// The chain an envelope belongs to.
fn chain_of(bytes: &[u8]) -> Option<ChainId> {
    Some(envelope(bytes)?.unsigned.at().chain)
}

/// The (chain, seq) of every envelope of a batch that decodes.
pub(super) fn places(envelopes: &[Vec<u8>]) -> Vec<(ChainId, u64)> {
    envelopes
        .iter()
        .filter_map(|b| envelope(b))
        .map(|e| (e.unsigned.at().chain, e.unsigned.seq))
        .collect()
}

/// The game of a batch's first envelope.
pub(super) fn game_of(envelopes: &[Vec<u8>]) -> Option<GameId> {
    Some(envelope(envelopes.first()?)?.unsigned.game.0.0)
}
