//! The actor's commands: what `sealed` asks of a running node.

use super::*;

impl Actor {
    pub(super) fn command(&mut self, msg: Msg) {
        match msg {
            Msg::Info(r) => {
                let peer = *self.swarm.local_peer_id();
                let addrs = self
                    .swarm
                    .listeners()
                    .map(|a| {
                        // A relayed listen address already ends in our peer id.
                        if matches!(a.iter().last(), Some(Protocol::P2p(_))) {
                            a.to_string()
                        } else {
                            a.clone().with(Protocol::P2p(peer)).to_string()
                        }
                    })
                    .collect();
                let met = self.met.iter().map(ToString::to_string).collect();
                let _ = r.send(Ok(Info {
                    peer: peer.to_string(),
                    addrs,
                    met,
                }));
            }
            Msg::Dial(addr, r) => {
                if let Some(p) = peer_of(&addr) {
                    self.learn(p, addr.clone());
                }
                let _ = r.send(self.swarm.dial(addr).map_err(|e| e.to_string()));
            }
            Msg::Propose(args, r) => {
                let _ = r.send(self.propose(args));
            }
            Msg::Accept(g, r) => {
                let _ = r.send(self.decide(&g, SessionCommand::Accept));
            }
            Msg::Decline(g, r) => {
                let _ = r.send(self.decide(&g, SessionCommand::Decline));
            }
            Msg::Act {
                game,
                text,
                expect,
                reply,
            } => {
                let _ = reply.send(self.act(&game, &text, expect));
            }
            Msg::Games(r) => {
                let _ = r.send(Ok(self.summaries()));
            }
            Msg::Show(g, r) => {
                let _ = r.send(self.show_json(&g));
            }
            Msg::ShowText(g, r) => {
                let _ = r.send(self.show_text(&g));
            }
            Msg::Svg(g, r) => {
                let _ = r.send(self.with_table(&g, |t| t.svg()));
            }
            Msg::Transcript(g, r) => {
                let _ = r.send(self.with_table(&g, |t| t.transcript()));
            }
            Msg::Score(g, r) => {
                let _ = r.send(self.with_table(&g, |t| t.score()));
            }
            Msg::Pgn(g, r) => {
                let _ = r.send(self.with_table(&g, |t| t.pgn()));
            }
            Msg::MailExport(g, r) => {
                let _ = r.send(self.mail_export(&g));
            }
            Msg::MailImport(text, r) => {
                let _ = r.send(self.mail_import(&text));
            }
            Msg::Bot(g, on, r) => {
                let res = match g {
                    None => {
                        self.bot_all = on;
                        Ok(())
                    }
                    Some(g) => self.game_id(&g).map(|id| {
                        if on {
                            self.bots.insert(id);
                        } else {
                            self.bots.remove(&id);
                        }
                    }),
                };
                self.bot_dirty.extend(self.played.keys().copied());
                self.run_bots();
                let _ = r.send(res);
            }
            Msg::Shutdown(_) => {}
        }
    }

    pub(super) fn summaries(&self) -> Vec<GameSummary> {
        let mut out: Vec<GameSummary> = self
            .played
            .iter()
            .map(|(id, p)| GameSummary {
                game: hex::encode(id),
                variant: p.table.variant().to_owned(),
                status: status_name(p.record.status, &*p.table),
                seat: Some(p.table.seat().0),
                my_turn: p.table.my_turn(),
                ply: p.table.ply(),
                waiting_for: p.table.waiting_for(),
                held: p.table.held(),
                clock: self.clocks(p).map(|c| c.line()),
            })
            .collect();
        out.extend(self.relayed.iter().map(|(id, r)| {
            let held = r.held.values().map(BTreeSet::len).sum::<usize>();
            GameSummary {
                game: hex::encode(id),
                variant: r.terms.variant().to_owned(),
                status: "relayed".into(),
                seat: None,
                my_turn: false,
                ply: 0,
                waiting_for: format!("{held} envelopes held"),
                held,
                clock: None,
            }
        }));
        out.extend(self.aside.iter().map(|(id, a)| GameSummary {
            game: hex::encode(id),
            variant: a.variant.clone().unwrap_or_else(|| "?".into()),
            status: a.halt.status().into(),
            seat: None,
            my_turn: false,
            ply: 0,
            waiting_for: a.halt.why(),
            held: 0,
            clock: None,
        }));
        out.sort_by(|a, b| a.game.cmp(&b.game));
        out
    }

    pub(super) fn propose(&mut self, args: ProposeArgs) -> Result<String, String> {
        let peer = peer_of(&args.peer).ok_or("the peer address must end in /p2p/<peer id>")?;
        let opponent = key_of(&peer).ok_or("the peer id does not hold an Ed25519 key")?;
        let mut mailboxes = vec![];
        if let Some(m) = &args.mailbox {
            let mp = peer_of(m).ok_or("the mailbox address must end in /p2p/<peer id>")?;
            let key = key_of(&mp).ok_or("the mailbox peer id does not hold an Ed25519 key")?;
            mailboxes.push(sealed_protocol::proposal::MailboxSpec {
                key,
                addrs: vec![m.to_string()],
            });
            self.learn(mp, m.clone());
        }
        // An address that is only `/p2p/<id>` says who, not where: the game then goes
        // through the mailbox alone.
        if args.peer.iter().any(|p| !matches!(p, Protocol::P2p(_))) {
            self.learn(peer, args.peer.clone());
        }
        let referee = match &args.referee {
            Some(r) => {
                let rp = peer_of(r).ok_or("the referee address must end in /p2p/<peer id>")?;
                let key = key_of(&rp).ok_or("the referee peer id does not hold an Ed25519 key")?;
                if r.iter().any(|p| !matches!(p, Protocol::P2p(_))) {
                    self.learn(rp, r.clone());
                }
                Some(key)
            }
            None => None,
        };
        let nonce = crate::home::random32().map_err(|e| e.to_string())?;
        let signed = table::propose(
            &args.variant,
            &args.options,
            &self.key,
            table::Invitees {
                opponent,
                referee,
                mailboxes,
            },
            now_ms(),
            nonce,
        )?;
        TimeControl::of(&signed.proposal)?;
        let terms = Terms::from_signed(signed).map_err(|e| e.to_string())?;
        let entropy = crate::home::random32().map_err(|e| e.to_string())?;
        let mut t = table::open(
            terms.clone(),
            SecretKey::from_seed(&self.key.seed()),
            entropy,
            now_ms(),
        )
        .map_err(|e| e.to_string())?;
        let id = terms.game().0.0;
        let record = GameRecord {
            id,
            terms: terms.bytes().to_vec(),
            variant: args.variant.clone(),
            seat: Some(t.seat().0),
            created: now_ms(),
            status: GameStatus::Proposed,
        };
        // The record, the secrets and our first envelope in one transaction, before
        // anything is offered: a crash before it leaves a game nobody has heard of.
        let actions = drain(&mut *t);
        self.persist(id, &actions, Some(&record))
            .map_err(|e| format!("the store cannot write ({e}): nothing was sent"))?;
        self.played.insert(id, Played { table: t, record });
        // The proposal and our first envelope travel in one message: sent apart, the
        // envelope could arrive first and be refused as a stranger's.
        self.bot_dirty.insert(id);
        for peer in self.game_peers(&terms) {
            self.offer(peer, id);
        }
        self.run_bots();
        Ok(hex::encode(id))
    }

    pub(super) fn decide(&mut self, g: &str, cmd: SessionCommand) -> Result<(), String> {
        let id = self.game_id(g)?;
        let decline = cmd == SessionCommand::Decline;
        self.apply(id, cmd)?;
        if let Some(p) = self.played.get_mut(&id) {
            p.record.status = if decline {
                GameStatus::Declined
            } else {
                GameStatus::Active
            };
            self.store
                .set_status(&id, p.record.status)
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    pub(super) fn act(&mut self, g: &str, text: &str, expect: Option<usize>) -> Result<(), String> {
        let id = self.game_id(g)?;
        let p = self.played(g)?;
        if let Some(want) = expect
            && p.table.ply() != want
        {
            return Err(format!(
                "the game is at ply {}, not {want}: nothing sent",
                p.table.ply()
            ));
        }
        let cmd = p.table.parse_action(text)?;
        self.apply(id, cmd)
    }

    /// A game as JSON, with its clocks when it has a time control.
    pub(super) fn show_json(&self, g: &str) -> Result<serde_json::Value, String> {
        let p = self.played(g)?;
        let mut v = p.table.show_json();
        if let serde_json::Value::Object(m) = &mut v {
            let clocks = self.clocks(p).map(|c| {
                let mut j = serde_json::to_value(&c).unwrap_or_default();
                if let serde_json::Value::Object(o) = &mut j {
                    o.insert("text".into(), c.line().into());
                }
                j
            });
            m.insert("clock".into(), clocks.unwrap_or_default());
        }
        Ok(v)
    }

    /// A game as text, with a clock line when it has a time control.
    pub(super) fn show_text(&self, g: &str) -> Result<String, String> {
        let p = self.played(g)?;
        let mut text = p.table.show_text();
        if let Some(c) = self.clocks(p) {
            text.push_str(&format!("clock: {}\n", c.line()));
        }
        Ok(text)
    }

    /// The clocks of a game with a time control, now.
    pub(super) fn clocks(&self, p: &Played) -> Option<Clocks> {
        let terms = p.table.terms();
        let tc = TimeControl::of(terms.proposal()).ok()??;
        let owing = if p.table.is_done() {
            None
        } else {
            p.table.to_act()
        };
        Some(Clocks::compute(
            &tc,
            terms.players(),
            &p.table.timeline(),
            owing,
            now_ms(),
        ))
    }
}
