//! Commands: what a person (through `sealed`) asks of a node. A command that signs
//! something is answered once that is durable; an export waits until the game's table
//! and the store agree (no write of it in flight), so it never shows what the store does
//! not hold.
//!
//! About 630 lines, a little over the ~600 of the style: every command is dispatched in
//! one match beside the game lines and views it answers with; the view types and their
//! sentences are `views.rs`, the players' `players.rs`.

use std::collections::BTreeMap;

use sealed_games::table::{self, Asked, Document, Generic, Refusal, Table};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::{MailboxSpec, Terms, WitnessSpec};
use sealed_protocol::session::Command as SessionCommand;

use super::game::Life;
use super::game::Played;
use super::game::queue::Export;
use super::io::{Answer, Cmd, CmdId, GameRef, Output, ProposeArgs, ShowFormat};
use super::players::{helpers, namer, options_words, players, seat_names};
use super::views::{ClockView, GameState, GameSummary, GameView, Invitation};
use super::{Core, Durable, GameId, NodeError, PeerKey};
use crate::record::{GameRecord, GameStatus};
use sealed_protocol::ids::Seat;

impl Core {
    pub(super) fn command(&mut self, id: CmdId, cmd: Cmd, store: &dyn Durable) {
        // A game asleep wakes for any command that names it (`sleep.rs`): each command
        // below then finds it as it was before it slept.
        if let Some(g) = cmd.game()
            && let Ok(gid) = self.games.find(g)
            && let Err(e) = self.rouse(&gid, store)
        {
            return self.reply(id, Err(e));
        }
        let result = match cmd {
            // These answer once what they signed is durable.
            Cmd::Propose(args) => self.propose(id, *args, store),
            Cmd::Accept(g) => self.decide(id, &g, SessionCommand::Accept, store),
            Cmd::Decline(g) => self.decide(id, &g, SessionCommand::Decline, store),
            // The table's generic command, as `move withdraw` reads it: one path for both.
            Cmd::Withdraw(g) => self.act(
                id,
                &g,
                None,
                |t| t.command(Asked::Generic(Generic::Withdraw)),
                store,
            ),
            Cmd::Generic {
                game,
                generic,
                expect,
            } => self.act(
                id,
                &game,
                expect,
                |t| t.command(Asked::Generic(generic)),
                store,
            ),
            Cmd::Move { game, text, expect } => {
                self.act(id, &game, expect, |t| t.command(Asked::Words(&text)), store)
            }
            Cmd::MailImport(text) => self.mail_import(id, &text, store),
            Cmd::Ruling { game, dispute, act } => self.keep_ruling(id, &game, dispute, act, store),
            Cmd::Transcript(g) => self.export(id, &g, Export::Transcript, store),
            Cmd::Score(g) => self.export(id, &g, Export::Document(Document::Score), store),
            Cmd::Pgn(g) => self.export(id, &g, Export::Document(Document::Pgn), store),
            // These answer now.
            Cmd::Games => return self.reply(id, Ok(Answer::Summaries(self.summaries()))),
            Cmd::Show(_, ShowFormat::Other(f)) => {
                return self.reply(id, Err(NodeError::NoFormat(f)));
            }
            Cmd::Show(g, ShowFormat::Svg) => {
                let r = self
                    .table(&g, store)
                    .map(|t| Answer::MaybeText(t.document(Document::Svg)));
                return self.reply(id, r);
            }
            Cmd::Show(g, format) => {
                let r = self.table(&g, store).map(|_| ()).and_then(|()| {
                    let p = self.played_ref(&g)?;
                    Ok(match format {
                        ShowFormat::Text => Answer::Text(self.show_text(p)),
                        _ => Answer::Show(Box::new(self.view(p))),
                    })
                });
                return self.reply(id, r);
            }
            Cmd::MailExport(g) => {
                let r = self.mail_export(&g, store).map(Answer::Text);
                return self.reply(id, r);
            }
            Cmd::Bot(g, on) => {
                let r = match g {
                    None => {
                        self.bots.all = on;
                        if on {
                            self.rouse_my_turns(store);
                        }
                        Ok(Answer::Done)
                    }
                    Some(g) => self.games.find(&g).map(|gid| {
                        self.bot_on(gid, on);
                        Answer::Done
                    }),
                };
                let played: Vec<GameId> = self.games.all_played().map(|(id, _)| *id).collect();
                for gid in played {
                    self.bot_dirty(gid);
                }
                self.run_bots(store);
                return self.reply(id, r);
            }
            Cmd::Stand(peer, _) if peer == self.key() => {
                let why = "that is this node's own address".to_owned();
                return self.reply(id, Err(NodeError::Address(why)));
            }
            Cmd::Stand(peer, addr) => {
                let mut writes: BTreeMap<String, Vec<u8>> = BTreeMap::new();
                writes.extend(self.remember(peer, addr));
                writes.extend(self.stand(peer));
                for (key, value) in writes {
                    self.write_meta(key, value);
                }
                if !self.peers.connected.contains(&peer) {
                    self.dial(peer);
                }
                return self.reply(id, Ok(Answer::Done));
            }
            Cmd::Peers => return self.reply(id, Ok(Answer::Peers(self.peers_view()))),
            Cmd::Resume(g) => return self.resume_crashed(id, &g, store),
        };
        if let Err(e) = result {
            self.reply(id, Err(e));
        }
    }

    pub(super) fn reply(&mut self, id: CmdId, result: Result<Answer, NodeError>) {
        self.out.push_back(Output::Reply { id, result });
    }

    /// A game this node plays, by id or unique prefix, loaded if it was dormant.
    pub(super) fn table(
        &mut self,
        g: &GameRef,
        store: &dyn Durable,
    ) -> Result<&dyn Table, NodeError> {
        let id = self.games.find(g)?;
        if let Some(a) = self.games.aside(&id) {
            return Err(NodeError::SetAside(a.halt.clone()));
        }
        self.wake(&id, store)?;
        let now = self.now;
        let p = self.games.played_mut(&id).ok_or(NodeError::OnlyRelayed)?;
        p.use_at(now);
        Ok(p.table())
    }

    fn played_ref(&self, g: &GameRef) -> Result<&Played, NodeError> {
        let id = self.games.find(g)?;
        self.games.played(&id).ok_or(NodeError::OnlyRelayed)
    }

    /// A game's clocks now, if it has them ([`crate::game::Slot::clocks`]).
    fn clocks(&self, id: &GameId) -> Option<crate::clock::Clocks> {
        self.games.slot(id)?.clocks(self.now)
    }

    /// A played game's line.
    pub(super) fn summary_of(&self, id: &GameId, p: &Played) -> GameSummary {
        GameSummary {
            game: hex::encode(id),
            variant: p.table().session().terms().variant().to_owned(),
            status: p.standing(),
            seat: Some(p.table().session().seat().0),
            my_turn: p.table().turn().my_turn,
            ply: p.table().turn().ply,
            waiting_for: p.table().waiting_for(),
            result: table::result_line(p.table().session()),
            players: players(
                p.table().session().terms(),
                &self.names_shown(p),
                Some(p.table().session().seat()),
            ),
            options: options_words(p.table().session().terms()),
            delivery: p.delivery(),
            witness_refused: self.witness_refused(id),
            held: p.table().session().envelopes().len(),
            clock: self
                .clocks(id)
                .map(|c| c.line(&namer(&self.names_shown(p), p.table().session().seat()))),
            invitation: self.invitation(p),
            helpers: helpers(p.table().session().terms()),
            expires_ms: self.expires_at(id),
        }
    }

    /// One line per game: played, asleep, relayed, dormant or set aside.
    pub(super) fn summaries(&self) -> Vec<GameSummary> {
        let mut out: Vec<GameSummary> = self
            .games
            .all_played()
            .map(|(id, p)| self.summary_of(id, p))
            .collect();
        // As it was when it fell asleep: nothing that would change it has come since.
        out.extend(self.games.all_asleep().map(|(_, a)| a.summary.clone()));
        out.extend(self.games.all_relayed().map(|(id, r)| {
            let held = r.held().values().map(std::collections::BTreeMap::len).sum();
            GameSummary {
                game: hex::encode(id),
                variant: r.terms().variant().to_owned(),
                status: r.standing(),
                seat: None,
                my_turn: false,
                ply: 0,
                waiting_for: format!("{held} envelopes held"),
                result: None,
                players: players(r.terms(), &seat_names(r.terms(), |_| None), None),
                options: options_words(r.terms()),
                delivery: None,
                witness_refused: None,
                held,
                clock: None,
                invitation: None,
                helpers: helpers(r.terms()),
                expires_ms: self.expires_at(id),
            }
        }));
        out.extend(self.games.all_dormant().map(|(id, d)| {
            GameSummary {
                game: hex::encode(id),
                variant: d.record.variant.clone(),
                status: d.standing(),
                seat: d.record.seat,
                my_turn: false,
                ply: d.listed.ply.map_or(0, |p| p as usize),
                waiting_for: "nothing: the game is complete (in the store; `show` loads it)".into(),
                result: d.listed.result.clone(),
                players: d
                    .terms()
                    .map(|t| players(t, &d.names(t), d.record.seat.map(Seat)))
                    .unwrap_or_default(),
                options: d.terms().map(options_words).unwrap_or_default(),
                delivery: None,
                witness_refused: None,
                held: 0,
                clock: None,
                invitation: None,
                helpers: d.terms().map(helpers).unwrap_or_default(),
                expires_ms: None,
            }
        }));
        out.extend(self.games.all_aside().map(|(id, a)| GameSummary {
            game: hex::encode(id),
            variant: a.variant.clone().unwrap_or_else(|| "?".into()),
            status: a.standing(),
            seat: None,
            my_turn: false,
            ply: 0,
            waiting_for: a.halt.to_string(),
            result: None,
            players: vec![],
            options: vec![],
            delivery: None,
            witness_refused: None,
            held: 0,
            clock: None,
            invitation: None,
            helpers: vec![],
            expires_ms: None,
        }));
        out.sort_by(|a, b| a.game.cmp(&b.game));
        out
    }

    /// Where this node's invitation is, for a game it proposed that is not yet accepted:
    /// acknowledged by the opponent, by a mailbox, or not yet (with the last dial's
    /// error).
    fn invitation(&self, p: &Played) -> Option<Invitation> {
        if p.standing() != GameState::Proposed {
            return None;
        }
        let terms = p.table().session().terms();
        let me = self.key();
        let seats: Vec<PeerKey> = crate::seats::seat_keys(terms)
            .filter(|k| *k != me)
            .collect();
        let mailboxes: Vec<PeerKey> = crate::seats::mailbox_keys(terms).collect();
        // A seat holds the game once it acknowledged an offer or push of it, or named it
        // in (or answered) a heads round, whoever offered it first.
        let holds = |k: &PeerKey| p.acked().contains_key(k) || p.heard().contains_key(k);
        let refused = self
            .games
            .slot(&terms.game())
            .and_then(|s| s.offer_refused());
        // A refusal comes before a mailbox's word: a mailbox that holds the game says
        // so when the seat it relayed it to refused it.
        let state = if seats.iter().all(holds) {
            Invitation::Peer
        } else if let Some(why) = refused {
            Invitation::Refused(why.to_owned())
        } else if mailboxes.iter().any(holds) {
            Invitation::Mailbox
        } else {
            let why = seats
                .iter()
                .chain(&mailboxes)
                .filter_map(|k| self.peers.unreachable.get(k))
                .next()
                .cloned()
                .unwrap_or_else(|| "the peer has not answered yet".into());
            Invitation::NotYet(why)
        };
        Some(state)
    }

    fn propose(
        &mut self,
        cmd: CmdId,
        args: ProposeArgs,
        store: &dyn Durable,
    ) -> Result<(), NodeError> {
        let bad = NodeError::Proposal;
        if let Some(why) = args.same_party(&self.key()) {
            return Err(bad(why));
        }
        // The addresses the person gave are stored with the game, in its first write: a
        // crash or a failed write must not leave a game whose peers cannot be found.
        let mut given = vec![];
        let (opponent, at) = args.opponent;
        if let Some(a) = at {
            given.push((opponent, a));
        }
        let mut mailboxes = vec![];
        if let Some((key, addr)) = args.mailbox {
            mailboxes.push(MailboxSpec {
                key: key.to_bytes(),
                addrs: vec![addr.clone()],
            });
            given.push((key, addr));
        }
        let referee = args.referee.map(|(key, at)| {
            if let Some(a) = at {
                given.push((key, a));
            }
            key
        });
        // The witness keeps the public envelopes it dates and serves them: it is
        // the game's mailbox too (spec/PROTOCOL.md §17).
        let witness = args.witness.map(|(key, addr)| {
            if !mailboxes.iter().any(|m: &MailboxSpec| m.key == key) {
                mailboxes.push(MailboxSpec {
                    key: key.to_bytes(),
                    addrs: vec![addr.clone()],
                });
            }
            given.push((key, addr.clone()));
            WitnessSpec {
                key: key.to_bytes(),
                addrs: vec![addr],
            }
        });
        // The arbiter of a physical deck is named by his peer id, as every face names a
        // peer; the terms hold his key in hex, which is what the rules read.
        let options: Vec<(String, String)> = args
            .options
            .iter()
            .map(|(k, v)| match crate::peer_id::key_of(v) {
                Some(key) if k == super::players::ARBITER => (k.clone(), hex::encode(key)),
                _ => (k.clone(), v.clone()),
            })
            .collect();
        let nonce = self.random32();
        let signed = table::propose(
            &args.variant,
            &options,
            &self.key,
            table::Invitees {
                opponent: opponent.to_bytes(),
                referee: referee.map(PeerKey::to_bytes),
                mailboxes,
                witness,
                names: args.names,
            },
            self.now,
            nonce,
        )
        .map_err(|e| bad(e.to_string()))?;
        let terms = Terms::from_signed(signed).map_err(|e| bad(e.to_string()))?;
        let entropy = self.random32();
        let mut t = table::open(
            terms.clone(),
            SecretKey::from_seed(&self.key.seed()),
            &self.cfg.name,
            entropy,
            self.now,
        )
        .map_err(|e| bad(e.to_string()))?;
        let id = terms.game();
        let record = GameRecord {
            id,
            terms: terms.bytes().to_vec(),
            variant: args.variant,
            seat: Some(t.session().seat().0),
            created: self.now,
            status: GameStatus::Proposed,
        };
        let actions = super::game::queue::drain(&mut *t);
        let mut addrs: BTreeMap<String, Vec<u8>> = given
            .into_iter()
            .filter_map(|(peer, a)| self.remember(peer, a))
            .collect();
        // A game's mailbox is kept connected from now on; its seats are friends.
        for m in &terms.proposal().mailboxes {
            addrs.extend(self.stand(PeerKey::from(m.key)));
        }
        let me = self.key();
        for seat in &terms.proposal().seats {
            if seat.key != me {
                addrs.extend(self.befriend(PeerKey::from(seat.key)));
            }
        }
        let played = Played::new(t, record.clone(), self.now);
        self.games.put(id, Life::Played(Box::new(played)));
        // The record, the secrets and our first envelope in one write; the offer (the
        // proposal and the envelope in one message) and the reply once it is durable.
        let mut step = self.step_of(id, actions);
        step.sends.clear();
        step.writes.games.push(record);
        step.writes.meta.extend(addrs);
        step.offer = true;
        step.replies.push((cmd, Ok(Answer::Game(hex::encode(id)))));
        self.stage(id, step, store);
        self.run_bots(store);
        Ok(())
    }

    fn decide(
        &mut self,
        cmd: CmdId,
        g: &GameRef,
        decision: SessionCommand,
        store: &dyn Durable,
    ) -> Result<(), NodeError> {
        self.table(g, store)?;
        let id = self.games.find(g)?;
        // The proposer decided when it proposed: say so, rather than the session's
        // "not now" about phases.
        if let Some(p) = self.games.played(&id)
            && p.table().session().terms().proposal().proposer == p.table().session().seat()
        {
            return Err(NodeError::OwnProposal);
        }
        let status = if decision == SessionCommand::Decline {
            GameStatus::Declined
        } else {
            GameStatus::Active
        };
        let accepted = decision == SessionCommand::Accept;
        self.apply(id, decision, Some(cmd), store)?;
        self.set_status(id, status, store);
        if accepted {
            self.accepted_game(&id);
        }
        self.run_bots(store);
        Ok(())
    }

    /// A player's act, as `parse` reads it from the table (words or a generic command),
    /// refused unless the game is at ply `expect`.
    fn act(
        &mut self,
        cmd: CmdId,
        g: &GameRef,
        expect: Option<usize>,
        parse: impl FnOnce(&dyn Table) -> Result<SessionCommand, Refusal>,
        store: &dyn Durable,
    ) -> Result<(), NodeError> {
        let t = self.table(g, store)?;
        if let Some(expected) = expect
            && t.turn().ply != expected
        {
            return Err(NodeError::Moved {
                at: t.turn().ply,
                expected,
            });
        }
        let decision = parse(t)?;
        let id = self.games.find(g)?;
        self.apply(id, decision, Some(cmd), store)?;
        // Taken back (a withdrawal, or a resignation before anyone accepted): what the
        // invitation put in the peer book and never worked goes.
        if self
            .games
            .played(&id)
            .is_some_and(|p| p.table().session().envelopes().withdrawn())
        {
            self.forget_invitation(&id);
        }
        self.run_bots(store);
        Ok(())
    }

    /// An export, answered once the game has no write in flight and nothing waiting to
    /// be written: then its table holds exactly what the store does.
    fn export(
        &mut self,
        cmd: CmdId,
        g: &GameRef,
        what: Export,
        store: &dyn Durable,
    ) -> Result<(), NodeError> {
        self.table(g, store)?;
        let id = self.games.find(g)?;
        if let Some(slot) = self.games.slot_mut(&id) {
            slot.wait_export(cmd, what);
        }
        self.flush_exports(id);
        Ok(())
    }

    /// Answers the exports of a game whose table and store agree.
    pub(super) fn flush_exports(&mut self, id: GameId) {
        let waiting = self
            .games
            .slot_mut(&id)
            .map(|s| s.take_exports_if_idle())
            .unwrap_or_default();
        self.answer_exports(id, waiting);
    }

    /// Answers exports from what the game is now.
    pub(super) fn answer_exports(&mut self, id: GameId, waiting: Vec<(CmdId, Export)>) {
        for (cmd, what) in waiting {
            let r = match self.games.played(&id) {
                Some(p) => Ok(match what {
                    Export::Transcript => {
                        Answer::Bytes(p.table().session().envelopes().transcript().to_bytes())
                    }
                    Export::Document(kind) => Answer::MaybeText(p.table().document(kind)),
                }),
                None => Err(match self.games.aside(&id) {
                    Some(a) => NodeError::SetAside(a.halt.clone()),
                    None => NodeError::OnlyRelayed,
                }),
            };
            self.reply(cmd, r);
        }
    }

    /// A game as JSON: the table's document (`sealed_games::table`), with its clocks
    /// when it has a time control (`clock`), every seat (`players`), the options
    /// (`options`), where this seat's latest messages are (`delivery`), and the witness
    /// and mailboxes the proposal names (`helpers`: `role`, `peer`).
    fn view(&self, p: &Played) -> GameView {
        let terms = p.table().session().terms();
        let clock = self.clocks(&terms.game()).map(|clocks| {
            let names = self.names_shown(p);
            let who = namer(&names, p.table().session().seat());
            let text = clocks.line(&who);
            ClockView { clocks, text }
        });
        GameView {
            table: p.table().view(),
            clock,
            players: players(
                terms,
                &self.names_shown(p),
                Some(p.table().session().seat()),
            ),
            options: options_words(terms),
            delivery: p.delivery(),
            witness_refused: self.witness_refused(&p.table().session().terms().game()),
            helpers: helpers(terms),
        }
    }

    /// Why the game's witness refused this seat's last push, until it takes one; not
    /// once the game is settled, when no wait is left for its record to end.
    fn witness_refused(&self, id: &GameId) -> Option<String> {
        if self.games.played(id).is_none_or(|p| p.settled()) {
            return None;
        }
        self.games.slot(id)?.witness_refusal().map(str::to_owned)
    }

    /// A game as text, with a clock line when it has a time control.
    fn show_text(&self, p: &Played) -> String {
        // After the table's first line (variant, game, seat): who plays, on what terms.
        let table = p.table().document(Document::Text).unwrap_or_default();
        let (head, rest) = table.split_once('\n').unwrap_or((&table, ""));
        let names = self.names_shown(p);
        let seats = players(
            p.table().session().terms(),
            &names,
            Some(p.table().session().seat()),
        );
        let mut text = format!("{head}\nplayers: {}\n", super::players::line(&seats));
        let trusted = helpers(p.table().session().terms());
        if !trusted.is_empty() {
            let list: Vec<String> = trusted
                .iter()
                .map(|h| format!("{} {}", h.role, h.peer))
                .collect();
            text.push_str(&format!("trusted: {}\n", list.join(", ")));
        }
        let opts = options_words(p.table().session().terms());
        if !opts.is_empty() {
            text.push_str(&format!("options: {}\n", opts.join(" ")));
        }
        text.push_str(rest);
        if let Some(d) = p.delivery() {
            text.push_str(&format!("what you sent last: {d}\n"));
        }
        if let Some(why) = self.witness_refused(&p.table().session().terms().game()) {
            text.push_str(&format!("{}\n", crate::views::witness_refused_line(&why)));
        }
        if let Some(c) = self.clocks(&p.table().session().terms().game()) {
            let who = namer(&names, p.table().session().seat());
            text.push_str(&format!("clock: {}\n", c.line(&who)));
        }
        text
    }
}

impl Core {
    /// Each seat's name as this node shows game `p`: as [`seat_names`] gives it, and
    /// this seat's own name where neither the proposal nor a signature gives one yet (an
    /// invitation by peer id: its player is named before he accepts, issue 55).
    pub(super) fn names_shown(&self, p: &Played) -> Vec<Option<String>> {
        let mut names = p.names();
        let own = sealed_protocol::text::name(&self.cfg.name);
        if let Some(n) = names.get_mut(p.table().session().seat().index())
            && n.is_none()
            && !own.is_empty()
        {
            *n = Some(own);
        }
        names
    }
}
