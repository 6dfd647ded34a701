//! The sync protocol's server side and what the node takes from peers.

use super::*;

impl Actor {
    /// What we hold of every unfinished game `peer` holds a seat of or relays, and of
    /// every game we relay that it plays.
    pub(super) fn heads_for(&self, peer: PeerId) -> Vec<GameHeads> {
        let mut games = vec![];
        for (id, p) in &self.played {
            if p.table.is_done() && p.record.status != GameStatus::Proposed {
                continue;
            }
            let terms = p.table.terms();
            if Self::seat_of(terms, &peer).is_some() || Self::is_mailbox(terms, &peer) {
                games.push((*id, p.table.chain_counts()));
            }
        }
        for (id, r) in &self.relayed {
            if Self::seat_of(&r.terms, &peer).is_some() {
                // Held without a gap from seq 0: what we can say we have.
                let have = r
                    .held
                    .iter()
                    .map(|(c, seqs)| {
                        let prefix = seqs.iter().zip(0u64..).take_while(|(k, i)| **k == *i);
                        (*c, prefix.count() as u64)
                    })
                    .collect();
                games.push((*id, have));
            }
        }
        games
    }

    pub(super) fn sync_event(&mut self, e: request_response::Event<Request, Response>) {
        match e {
            request_response::Event::Message { peer, message, .. } => match message {
                request_response::Message::Request {
                    request, channel, ..
                } => {
                    let response = self.serve(peer, request);
                    let _ = self
                        .swarm
                        .behaviour_mut()
                        .sync
                        .send_response(channel, response);
                }
                request_response::Message::Response {
                    request_id,
                    response,
                } => {
                    self.answered(request_id);
                    match response {
                        Response::Envelopes(envs) => {
                            self.take_envelopes(peer, None, envs);
                        }
                        Response::Behind { envelopes, unknown } => {
                            for (game, envs) in envelopes {
                                self.take_envelopes(peer, Some(game), envs);
                            }
                            for game in unknown {
                                self.offer(peer, game);
                            }
                        }
                        Response::Refused(why) => {
                            tracing::debug!(%peer, "request refused: {why}");
                        }
                        Response::Ok { .. } => {}
                    }
                }
            },
            request_response::Event::OutboundFailure { request_id, .. } => {
                // Lost: the next heads round repairs what it carried.
                self.answered(request_id);
            }
            _ => {}
        }
    }

    /// Answers a request from `peer`.
    pub(super) fn serve(&mut self, peer: PeerId, req: Request) -> Response {
        let cost = 1.0
            + match &req {
                Request::Push { envelopes, .. } | Request::Offer { envelopes, .. } => {
                    envelopes.len() as f64
                }
                Request::PushMany { games } => games.iter().map(|(_, e)| e.len() as f64).sum(),
                Request::Heads { games } => games.len() as f64 / 64.0,
                _ => 0.0,
            };
        if !self.limiter.spend(&peer, cost, now_ms()) {
            tracing::warn!(%peer, "refused a request over the peer's rate limit");
            return Response::Refused("rate limit: slow down".into());
        }
        match req {
            Request::Propose { proposal } => self.take_proposal(peer, &proposal),
            Request::Introduce { game, addrs } => self.introduced(peer, game, addrs),
            Request::Push { game, envelopes } => match self.take_push(peer, game, envelopes) {
                Ok(new) => Response::Ok { new },
                Err(why) => Response::Refused(why),
            },
            Request::PushMany { games } => {
                let mut new = 0;
                for (game, envelopes) in games {
                    // One game refused (an outsider's) does not stop the others.
                    new += self.take_push(peer, game, envelopes).unwrap_or(0);
                }
                Response::Ok { new }
            }
            Request::Pull { game, have } => match self.lacking(&peer, &game, &have) {
                Ok(envs) => Response::Envelopes(envs),
                Err(why) => Response::Refused(why),
            },
            Request::Heads { games } => {
                let mut envelopes = vec![];
                let mut unknown = vec![];
                let mut bytes = 0;
                for (game, have) in games {
                    if self.aside.contains_key(&game) {
                        // Known, but nothing is served until it runs again.
                        continue;
                    }
                    if self.terms(&game).is_none() {
                        unknown.push(game);
                        continue;
                    }
                    // Half the message cap: the rest comes in the next round.
                    if bytes > MAX_SYNC_MESSAGE / 2 {
                        break;
                    }
                    if let Ok(envs) = self.lacking(&peer, &game, &have)
                        && !envs.is_empty()
                    {
                        bytes += envs.iter().map(Vec::len).sum::<usize>();
                        envelopes.push((game, envs));
                    }
                }
                Response::Behind { envelopes, unknown }
            }
            Request::Offer {
                proposal,
                envelopes,
            } => match self.take_proposal(peer, &proposal) {
                Response::Ok { .. } => {
                    let game = Terms::parse(&proposal).map(|t| t.game().0.0).ok();
                    let new = self.take_envelopes(peer, game, envelopes);
                    Response::Ok { new }
                }
                refused => refused,
            },
        }
    }

    /// Addresses of a game's other seats from a peer that knows them: learned and
    /// dialled. Once the game is known only its seats' addresses are kept; before (the
    /// introduction can overtake the offer) every one, as the address book is bounded.
    pub(super) fn introduced(
        &mut self,
        from: PeerId,
        game: [u8; 32],
        addrs: Vec<String>,
    ) -> Response {
        if addrs.len() > crate::sync::MAX_INTRODUCED {
            return Response::Refused("too many addresses".into());
        }
        let terms = self.terms(&game);
        let me = *self.swarm.local_peer_id();
        for text in addrs {
            let Ok(addr) = text.parse::<Multiaddr>() else {
                continue;
            };
            let Some(peer) = peer_of(&addr) else { continue };
            if peer == me || peer == from {
                continue;
            }
            if terms
                .as_ref()
                .is_some_and(|t| Self::seat_of(t, &peer).is_none())
            {
                continue;
            }
            self.learn(peer, addr);
            if !self.connected.contains(&peer) {
                self.dial(peer);
            }
        }
        Response::Ok { new: 0 }
    }

    /// A push of `peer`'s: taken if `peer` holds a seat of the game or is its mailbox.
    pub(super) fn take_push(
        &mut self,
        peer: PeerId,
        game: [u8; 32],
        envelopes: Vec<Vec<u8>>,
    ) -> Result<u32, String> {
        let terms = self.terms(&game).ok_or("unknown game")?;
        if Self::seat_of(&terms, &peer).is_none() && !Self::is_mailbox(&terms, &peer) {
            tracing::warn!(%peer, "refused a push from a peer that holds no seat of the game");
            return Err("only the game's seats and mailboxes may post to it".into());
        }
        Ok(self.take_envelopes(peer, Some(game), envelopes))
    }

    /// The envelopes of `game` that `peer`, holding `have`, lacks and may see; an error
    /// when the game is unknown or `peer` holds no seat of it and is not its mailbox.
    pub(super) fn lacking(
        &self,
        peer: &PeerId,
        game: &[u8; 32],
        have: &[(ChainId, u64)],
    ) -> Result<Vec<Vec<u8>>, String> {
        let terms = self.terms(game).ok_or("unknown game")?;
        let seat = Self::seat_of(&terms, peer);
        if seat.is_none() && !Self::is_mailbox(&terms, peer) {
            return Err("only the game's seats and mailboxes may read it".into());
        }
        self.served(game, seat, have)
    }

    /// What the store holds of `game` beyond `have`, chain by chain, that `audience` may
    /// see (§16.4): served from the store alone, so nothing that is not durable ever
    /// leaves. `None` for a mailbox, which sees the public chains only.
    pub(super) fn served(
        &self,
        game: &[u8; 32],
        audience: Option<Seat>,
        have: &[(ChainId, u64)],
    ) -> Result<Vec<Vec<u8>>, String> {
        let have: BTreeMap<ChainId, u64> = have.iter().copied().collect();
        let played = self.played.get(game);
        let visible = |chain: ChainId| match (played, audience) {
            (Some(p), Some(seat)) => p.table.visible(chain, seat),
            // A mailbox, or a game this node only relays: public chains only.
            _ => chain.log.is_public(),
        };
        self.store
            .chain_envelopes(game, |log, seat| {
                let chain = ChainId {
                    log: LogId(log),
                    seat: Seat(seat),
                };
                visible(chain).then(|| have.get(&chain).copied().unwrap_or(0))
            })
            .map_err(|e| format!("the store cannot be read: {e}"))
    }

    /// A proposal, from a proposer or a mailbox: a game to play if it names us, to relay
    /// if we are a mailbox it names.
    pub(super) fn take_proposal(&mut self, peer: PeerId, bytes: &[u8]) -> Response {
        let terms = match Terms::parse(bytes) {
            Ok(t) => t,
            Err(e) => return Response::Refused(format!("proposal: {e}")),
        };
        let id = terms.game().0.0;
        if self.played.contains_key(&id)
            || self.relayed.contains_key(&id)
            || self.aside.contains_key(&id)
        {
            return Response::Ok { new: 0 };
        }
        // The store's index alone says whether a game is known: an offer of a game it
        // holds, loaded or not, is never a new invitation (that would sign a second,
        // different opening).
        match self.store.knows(&id) {
            Ok(false) => {}
            Ok(true) => return Response::Ok { new: 0 },
            Err(e) => return Response::Refused(format!("the store cannot be read: {e}")),
        }
        let me = self.key.public().to_bytes();
        if let Some(seat) = terms.seat_of(&me) {
            if let Err(e) = TimeControl::of(terms.proposal()) {
                return Response::Refused(format!("proposal: {e}"));
            }
            let entropy = match crate::home::random32() {
                Ok(e) => e,
                Err(e) => return Response::Refused(e.to_string()),
            };
            let t = match table::open(
                terms.clone(),
                SecretKey::from_seed(&self.key.seed()),
                entropy,
                now_ms(),
            ) {
                Ok(t) => t,
                Err(e) => return Response::Refused(e.to_string()),
            };
            let record = GameRecord {
                id,
                terms: bytes.to_vec(),
                variant: terms.variant().to_owned(),
                seat: Some(seat.0),
                created: now_ms(),
                status: GameStatus::Invited,
            };
            if let Err(e) = self.store.put_game(&record) {
                return Response::Refused(e.to_string());
            }
            tracing::info!(game = %hex::encode(id), %peer, "invited to a game");
            self.mailbox_addrs(&terms);
            self.played.insert(id, Played { table: t, record });
            if self.cfg.referee
                && terms.role(seat) == Some(sealed_protocol::proposal::Role::Referee)
            {
                // The only choice a referee seat makes is to accept: the bot does that.
                self.bots.insert(id);
            }
            self.bot_dirty.insert(id);
            self.run_bots();
            return Response::Ok { new: 0 };
        }
        if self.cfg.mailbox && terms.proposal().mailboxes.iter().any(|m| m.key == me) {
            let record = GameRecord {
                id,
                terms: bytes.to_vec(),
                variant: terms.variant().to_owned(),
                seat: None,
                created: now_ms(),
                status: GameStatus::Relayed,
            };
            if let Err(e) = self.store.put_game(&record) {
                return Response::Refused(e.to_string());
            }
            self.relayed.insert(
                id,
                Relayed {
                    terms,
                    held: BTreeMap::new(),
                },
            );
            return Response::Ok { new: 0 };
        }
        Response::Refused("this node holds no seat of that game and is not its mailbox".into())
    }

    /// Envelopes received (pushed, pulled or mailed): stored before anything is
    /// acknowledged or sent, then given to the game. Returns how many were new.
    pub(super) fn take_envelopes(
        &mut self,
        from: PeerId,
        game: Option<[u8; 32]>,
        envs: Vec<Vec<u8>>,
    ) -> u32 {
        let Some(game) = game.or_else(|| self.game_of(&envs)) else {
            return 0;
        };
        let Some(terms) = self.terms(&game) else {
            return 0;
        };
        // Keep only validly signed envelopes of this game: a peer cannot make us store
        // anything a seat did not sign. A mailbox keeps the public logs only.
        let relayed = self.relayed.contains_key(&game);
        let valid: Vec<Vec<u8>> = envs
            .into_iter()
            .filter(|b| {
                Signed::parse(&terms, b).is_ok_and(|s| !relayed || s.at().chain.log.is_public())
            })
            .collect();
        let refs: Vec<&[u8]> = valid.iter().map(Vec::as_slice).collect();
        let new = match self.store.put_envelopes(&game, &refs) {
            Ok(n) => n as u32,
            Err(e) => {
                tracing::error!("store: {e}");
                return 0;
            }
        };
        if let Some(r) = self.relayed.get_mut(&game) {
            let mut fresh = vec![];
            for b in valid {
                if relay_keep(r, &b) {
                    fresh.push(b);
                }
            }
            // Forward what is new to the other seats that are connected.
            if !fresh.is_empty() {
                let peers: Vec<PeerId> = self
                    .game_peers(&terms)
                    .into_iter()
                    .filter(|p| *p != from && self.connected.contains(p))
                    .collect();
                for p in peers {
                    self.request(
                        p,
                        Request::Push {
                            game,
                            envelopes: fresh.clone(),
                        },
                    );
                }
            }
            return new;
        }
        let Some(p) = self.played.get_mut(&game) else {
            return new;
        };
        for b in &valid {
            let _ = p.table.handle_envelope(b, now_ms());
        }
        let actions = drain(&mut *p.table);
        if self.commit_actions(game, actions).is_ok() {
            self.run_bots();
        }
        new
    }

    pub(super) fn game_of(&self, envs: &[Vec<u8>]) -> Option<[u8; 32]> {
        let first = envs.first()?;
        let env: sealed_protocol::envelope::Envelope =
            sealed_protocol::wire::decode(first, sealed_protocol::wire::MAX_MESSAGE).ok()?;
        Some(env.unsigned.game.0.0)
    }
}
