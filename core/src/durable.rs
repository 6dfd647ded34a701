//! Durable before visible (spec/PROTOCOL.md §11.2): the write path, and rebuilding games
//! from what is durable — at start, after a failed write, when a dormant game is asked
//! for.
//!
//! A session's actions become a [`Step`]: what to write, and what to send, answer and
//! reply once the write is durable. [`Core::stage`] is the only way to anything visible
//! that comes from a session: the step's write leaves as [`Output::Write`] and the rest
//! waits in the core until [`Input::Written`](super::Input::Written). A game has one write
//! in flight at most; steps made meanwhile are merged and wait for it. A failed write sets
//! the game aside and drops its table, which is ahead of the store; nothing it held beyond
//! the store is ever sent.
//!
//! In code: a step's sends, pushes and replies wait in the [`Step`] until
//! [`Input::Written`](super::Input::Written) says it committed (`written`, `release`);
//! the next step merges behind the one in flight (`stage`). This holds by construction,
//! and the simulation (`core/sim/tests/simulation.rs`) checks it: it reopens each window a
//! node of before had through the core's `Windows` switches, to show it would be found.
//! A failed write halts the game (`halt`); `recover_if_halted` asks the shell to reopen
//! the store (redb latches a failure) and `resume_halted` rebuilds the game from it
//! once writes work. `restore.rs` `restore_game` sets aside a game whose record, secrets or
//! envelopes do not read, or whose own envelopes lack their secrets, so it is never
//! signed anew.
//!
//! Start-up is proportional to unfinished games: at start (`restore.rs` `load`) a finished game
//! stays dormant, its record only, and is replayed when something asks for it (`wake`);
//! a finished game idle for `idle_unload_ms` (5 minutes by default) leaves memory again
//! (`sleep.rs` `unload_idle`, beside unfinished games' sleep); the store's index still
//! knows every id.
//!
//! A little over 600 lines: staging a step, its write and what the write releases (or
//! halts) are one path, and kept in one file.

use std::collections::HashMap;

use sealed_protocol::session::Action;

use super::game::Life;
use super::game::SetAside;
use super::game::queue::{Step, Waiter};
use super::io::{Answer, Output, Writes};
use super::{Core, Durable, GameId, Halt, NodeError, PeerKey, WriteId};
use crate::message::{Request, Response};
use crate::record::GameStatus;

/// Whether the store takes writes. A failed write leaves redb refusing everything until
/// it is reopened; a reopen is also asked while a game a failed write halted waits, the
/// store working or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Health {
    /// Writes work.
    Working,
    /// A write failed since the store was last (re)opened.
    Failed,
    /// The shell reopens the store (its answer comes as this write's result); `failed`
    /// whether a write had failed, when asked or since.
    Reopening { write: WriteId, failed: bool },
}

impl Health {
    /// Whether a write failed since the store was last (re)opened: nothing but a reopen
    /// is written meanwhile.
    pub(super) fn failed(self) -> bool {
        matches!(
            self,
            Health::Failed | Health::Reopening { failed: true, .. }
        )
    }

    /// A write failed.
    fn fail(&mut self) {
        *self = match *self {
            Health::Reopening { write, .. } => Health::Reopening {
                write,
                failed: true,
            },
            _ => Health::Failed,
        };
    }
}

/// What a write in flight is for.
pub(super) enum Written {
    /// A game's: its step waits in the game's slot (`game/mod.rs` `Queue`).
    Game(GameId),
    /// Node settings, which no game waits for (boxed: a game's write, the most
    /// frequent, carries only its id).
    Settings(Box<Writes>),
}

/// How far a [`Waiter`] is.
#[derive(Debug)]
pub(super) struct Waiting {
    /// Steps still to be durable.
    pub(super) left: usize,
    /// Envelopes new to the store so far.
    pub(super) new: u32,
    /// A command's answer, once every step is durable.
    pub(super) answer: Option<Answer>,
    /// Why it failed, if a step did.
    pub(super) failed: Option<NodeError>,
    /// A peer's answer other than `Ok`, once every step is durable (a witness's stamps).
    pub(super) resp: Option<Response>,
    /// Still gathering: steps may still be staged for it, so it is not answered yet
    /// even with none left ([`Core::hold`], [`Core::let_go`]).
    open: bool,
}

impl Core {
    /// Opens `w` for several steps: those staged for it from now on are counted
    /// ([`Core::stage`]), and it is answered once [`Core::let_go`] closed it and none is
    /// left (with `answer`, for a command).
    pub(super) fn hold(&mut self, w: Waiter, answer: Option<Answer>) {
        self.waiter(w, true, answer);
    }

    /// Opens `w` for one step at most: it is answered as soon as the step staged for it
    /// is durable (where the step is released, as the request's own answer), or by
    /// [`Core::let_go`] if none was staged.
    pub(super) fn watch(&mut self, w: Waiter) {
        self.waiter(w, false, None);
    }

    fn waiter(&mut self, w: Waiter, open: bool, answer: Option<Answer>) {
        let e = self.waiting.entry(w).or_insert(Waiting {
            left: 0,
            new: 0,
            answer: None,
            failed: None,
            resp: None,
            open,
        });
        e.open = open;
        if answer.is_some() {
            e.answer = answer;
        }
    }

    /// Closes `w`: no more steps come for it; answered at once if none is left.
    pub(super) fn let_go(&mut self, w: Waiter) {
        if let Some(e) = self.waiting.get_mut(&w) {
            e.open = false;
        }
        self.settle(w);
    }

    /// Drops `w` unanswered (its request is answered otherwise, at once).
    pub(super) fn abandon(&mut self, w: Waiter) {
        self.waiting.remove(&w);
    }

    /// `w` failed (it is answered with why once nothing is left to wait for).
    pub(super) fn fail_waiter(&mut self, w: Waiter, why: NodeError) {
        if let Some(e) = self.waiting.get_mut(&w)
            && e.failed.is_none()
        {
            e.failed = Some(why);
        }
    }

    /// One step `w` waited for is durable (or failed).
    pub(super) fn step_done(&mut self, w: Waiter, new: u32, failed: Option<NodeError>) {
        if let Some(e) = self.waiting.get_mut(&w) {
            e.left = e.left.saturating_sub(1);
            e.new += new;
            if e.failed.is_none() {
                e.failed = failed;
            }
        }
        self.settle(w);
    }

    /// Answers `w` once it is closed and nothing is left to wait for.
    fn settle(&mut self, w: Waiter) {
        if self.waiting.get(&w).is_none_or(|e| e.open || e.left > 0) {
            return;
        }
        let Some(e) = self.waiting.remove(&w) else {
            return;
        };
        match w {
            Waiter::Peer(id) => {
                let resp = match (e.resp, e.failed) {
                    (Some(_), Some(_)) => Response::Refused("the store failed".into()),
                    (Some(r), None) => r,
                    (None, _) => Response::Ok { new: e.new },
                };
                self.respond(id, resp);
            }
            Waiter::Command(id) => self.out.push_back(Output::Reply {
                id,
                result: match e.failed {
                    Some(err) => Err(err),
                    None => Ok(e.answer.unwrap_or(Answer::Done)),
                },
            }),
        }
    }

    /// What a session's actions ask, as a step: their secrets and envelopes to write,
    /// the envelopes to send to each seat (and the public ones to the mailboxes), and the
    /// game's new status when it is done.
    pub(super) fn step_of(&mut self, id: GameId, actions: Vec<Action>) -> Step {
        let mut step = Step::default();
        let Some(p) = self.games.played_mut(&id) else {
            return step;
        };
        let terms = p.table().session().terms().clone();
        let mut batch: HashMap<PeerKey, Vec<Vec<u8>>> = HashMap::new();
        for a in actions {
            match a {
                Action::Persist(secrets) => {
                    step.writes
                        .secrets
                        .push((id, sealed_protocol::wire::encode(&secrets)));
                }
                Action::Send { env, to } => {
                    step.writes.envelopes.push((id, env.bytes.clone()));
                    for seat in to {
                        if let Some(k) = terms.key(seat) {
                            batch
                                .entry(PeerKey::from(k))
                                .or_default()
                                .push(env.bytes.clone());
                        }
                    }
                    if env.unsigned().log.is_public() {
                        for m in &terms.proposal().mailboxes {
                            batch
                                .entry(PeerKey::from(m.key))
                                .or_default()
                                .push(env.bytes.clone());
                        }
                    }
                }
                Action::Complete | Action::GameOver => {}
            }
        }
        // Finished in the store (dormant at the next start) only once settled: a game
        // whose last envelopes no peer acknowledged must be repaired after a restart.
        if p.settled() && p.change_status(GameStatus::Finished) {
            step.writes.statuses.push((id, GameStatus::Finished));
            // The computations' messages (a game without a referee) served it only
            // while it ran.
            step.writes.forget_messages.push(id);
            step.writes.meta.extend(self.owe(id));
        }
        let mut peers: Vec<_> = batch.into_iter().collect();
        // A stable order: the simulation replays from its seed.
        peers.sort();
        step.sends = peers
            .into_iter()
            .map(|(peer, envelopes)| {
                (
                    peer,
                    Request::Push {
                        game: id,
                        envelopes,
                    },
                )
            })
            .collect();
        // Its own message of the computations, whose hash these actions signed, leaves
        // with them once durable.
        if let Some(p) = self.games.played_mut(&id) {
            let out = p.table_mut().computing().and_then(|c| c.message_out(false));
            let to =
                super::seats::other_player(p.table().session().terms(), p.table().session().seat());
            if let (Some((index, bytes)), Some(to)) = (out, to) {
                step.messages.push((to, index, bytes));
            }
        }
        // The seat's state once a computation is finished, with the act that ends it:
        // the messages before it are forgotten in the same write.
        self.keep_state(id, &mut step.writes);
        self.bot_dirty(id);
        step
    }

    /// Sends a step on its way: its write now, the rest once the write is durable. With
    /// a write of the game in flight, it waits for it and goes with the next.
    pub(super) fn stage(&mut self, id: GameId, step: Step, store: &dyn Durable) {
        for w in &step.answers {
            if let Some(e) = self.waiting.get_mut(w) {
                e.left += 1;
            }
        }
        self.stage_counted(id, step, store);
    }

    /// [`Core::stage`] for a step whose waiters counted it already (the next step,
    /// staged once the write before it is done).
    fn stage_counted(&mut self, id: GameId, step: Step, store: &dyn Durable) {
        let mut step = step;
        if self.cfg.windows.send_before_durable {
            // Window open on purpose: what is signed leaves before it is stored.
            let early = Step {
                sends: std::mem::take(&mut step.sends),
                ..Step::default()
            };
            self.release(id, early, 0, store);
        }
        let Some(slot) = self.games.slot_mut(&id) else {
            tracing::error!(game = %hex::encode(id), "a step of a game this core does not hold");
            return;
        };
        let Some(step) = slot.wait_behind(step) else {
            return;
        };
        if step.writes.is_empty() {
            self.release(id, step, 0, store);
            return;
        }
        let write = self.next_write.take_next();
        self.out.push_back(Output::Write {
            write,
            writes: step.writes.clone(),
        });
        if let Some(s) = self.games.slot_mut(&id) {
            s.begin_write(write, step);
        }
        self.writes.insert(write, Written::Game(id));
    }

    /// Writes again the settings a failed write did not keep, once the store works.
    pub(super) fn save_settings(&mut self) {
        if self.store_health.failed() {
            return;
        }
        for (key, value) in std::mem::take(&mut self.unsaved) {
            self.write_meta(key, value);
        }
    }

    /// A write that makes nothing visible (a peer's addresses): no game waits for it.
    pub(super) fn write_meta(&mut self, key: String, value: Vec<u8>) {
        self.write_writes(Writes {
            meta: vec![(key, value)],
            ..Writes::default()
        });
    }

    /// Removes a setting; no game waits for it.
    pub(super) fn forget_meta(&mut self, key: String) {
        self.write_writes(Writes {
            forget: vec![key],
            ..Writes::default()
        });
    }

    /// Writes that no game waits for; the write's number.
    pub(super) fn write_writes(&mut self, writes: Writes) -> WriteId {
        let write = self.next_write.take_next();
        self.out.push_back(Output::Write {
            write,
            writes: writes.clone(),
        });
        self.writes
            .insert(write, Written::Settings(Box::new(writes)));
        write
    }

    /// A write finished.
    pub(super) fn written(
        &mut self,
        write: WriteId,
        result: Result<usize, crate::WriteFailed>,
        store: &dyn Durable,
    ) {
        if let Health::Reopening {
            write: asked,
            failed,
        } = self.store_health
            && asked == write
        {
            self.store_health = match (result.is_ok(), failed) {
                (true, _) | (false, false) => Health::Working,
                (false, true) => Health::Failed,
            };
            if result.is_ok() {
                tracing::info!("the store is reopened");
                self.resume_halted(store);
            }
            return;
        }
        let (game, step) = match self.writes.remove(&write) {
            Some(Written::Settings(writes)) => (
                None,
                Step {
                    writes: *writes,
                    ..Step::default()
                },
            ),
            Some(Written::Game(id)) => {
                let step = self.games.slot_mut(&id).and_then(|s| s.end_write(write));
                (Some(id), step.unwrap_or_default())
            }
            None => return,
        };
        if result.is_err() {
            // redb refuses everything after a failed write until it is reopened.
            self.store_health.fail();
        }
        if self.book_written(write, result.is_ok()) {
            return;
        }
        // Settings (a peer's addresses) a failed write did not keep are written again
        // once the store works (`save_settings`); one kept since needs no retry.
        for (key, value) in &step.writes.meta {
            // A witness's time or stamp is in the store now, or lost with the write, and
            // never written again later: another time may have been given meanwhile.
            if self.written_time(key, result.is_ok()) {
                continue;
            }
            if result.is_ok() {
                self.unsaved.remove(key);
            } else {
                self.unsaved.insert(key.clone(), value.clone());
            }
        }
        let Some(id) = game else {
            return;
        };
        match result {
            Ok(new) if step.then_forget => {
                self.release(id, step, new, store);
                self.forget_dropped(id);
            }
            Ok(new) => {
                self.release(id, step, new, store);
                if let Some(next) = self.next_step(&id) {
                    self.stage_counted(id, next, store);
                }
                self.flush_exports(id);
                // What just became durable may be stamped now (`stamps.rs`).
                self.stamp_round_for(&[id], store);
                self.sleep_unjoined(&id);
            }
            Err(_) if self.cfg.windows.serve_from_memory => {
                // Window open on purpose: the table goes on as if the write had worked.
                if let Some(next) = self.next_step(&id) {
                    self.stage_counted(id, next, store);
                }
                self.flush_exports(id);
            }
            Err(e) => {
                let mut step = step;
                if let Some(next) = self.next_step(&id) {
                    step.merge(next);
                }
                self.halt(id, step, Halt::Write(e.0));
                self.flush_exports(id);
            }
        }
    }

    /// A game whose write dropped it from the store leaves memory. What came for it
    /// while that write was in flight is not written: its waiters are told.
    fn forget_dropped(&mut self, id: GameId) {
        let Some(slot) = self.games.forget(&id) else {
            return;
        };
        let (next, exports) = slot.into_waiting();
        if let Some(next) = next {
            for (cmd, _) in next.replies {
                self.out.push_back(Output::Reply {
                    id: cmd,
                    result: Err(NodeError::NoGame(hex::encode(id))),
                });
            }
            for w in next.answers {
                self.step_done(w, 0, Some(NodeError::NoGame(hex::encode(id))));
            }
        }
        self.answer_exports(id, exports);
    }

    /// The step made while game `id`'s write was in flight, which goes next.
    fn next_step(&mut self, id: &GameId) -> Option<Step> {
        self.games.slot_mut(id).and_then(|s| s.take_next())
    }

    /// What a durable step makes visible.
    fn release(&mut self, id: GameId, step: Step, new: usize, store: &dyn Durable) {
        for (peer, req) in step.sends {
            self.request(peer, req);
        }
        for (cmd, result) in step.replies {
            self.out.push_back(Output::Reply { id: cmd, result });
        }
        for w in step.answers {
            self.step_done(w, new as u32, None);
        }
        if step.offer {
            self.offer_all(id, store);
        }
        for (peer, index, bytes) in step.messages {
            self.send_message(peer, id, index, bytes);
        }
    }

    /// Sets a game aside after a failed write: its table (ahead of the store) is dropped,
    /// its waiting step is dropped but for the replies and answers, which say why.
    fn halt(&mut self, id: GameId, step: Step, halt: Halt) {
        tracing::error!(game = %hex::encode(id), "game halted: {halt}");
        // The witness's times and stamps this step was to write are lost with it.
        for (key, _) in &step.writes.meta {
            self.written_time(key, false);
        }
        // What the game's witness said is fact, not state ahead of the store: kept for
        // the table rebuilt after the halt.
        let (said, variant) = match self.games.slot(&id).map(|s| s.life()) {
            Some(Life::Played(p)) => (
                p.table().session().witness_said(),
                Some(p.record().variant.clone()),
            ),
            Some(Life::Relayed(r)) => (vec![], Some(r.terms().variant().to_owned())),
            _ => (vec![], None),
        };
        for (cmd, _) in step.replies {
            self.out.push_back(Output::Reply {
                id: cmd,
                result: Err(NodeError::SetAside(halt.clone())),
            });
        }
        for w in step.answers {
            self.step_done(w, 0, Some(NodeError::SetAside(halt.clone())));
        }
        // A game whose very record was in the failed write was never known: forget it
        // (its peer offers it again).
        if step.writes.games.iter().any(|g| g.id == id) {
            let exports = self.games.forget(&id).map(|s| s.into_waiting().1);
            self.answer_exports(id, exports.unwrap_or_default());
        } else {
            self.games.put(
                id,
                Life::Aside(Box::new(SetAside {
                    variant,
                    halt,
                    said,
                })),
            );
        }
    }

    /// Once the store works again (after [`Output::Recover`]), rebuilds the games a
    /// failed write halted from what was durable, as after a crash.
    pub(super) fn resume_halted(&mut self, store: &dyn Durable) {
        let halted: Vec<GameId> = self
            .games
            .all_aside()
            .filter(|(_, a)| matches!(a.halt, Halt::Write(_)))
            .map(|(id, _)| *id)
            .collect();
        for id in halted {
            match self.take_up(id, Halt::Write, store) {
                Ok(()) => tracing::info!(game = %hex::encode(id), "game resumed"),
                // Still failing: tried again once the store is reopened.
                Err(Halt::Write(e) | Halt::Unreadable(e) | Halt::Crashed(e)) => {
                    if let Some(a) = self.games.aside_mut(&id) {
                        a.halt = Halt::Write(e);
                    }
                }
            }
        }
    }

    /// Rebuilds a game set aside from what the store holds and puts it to work, with
    /// what the witness said of it meanwhile; why not (in `halt`'s words) if it cannot be
    /// read. The game stays aside on an error.
    pub(super) fn take_up(
        &mut self,
        id: GameId,
        halt: fn(String) -> Halt,
        store: &dyn Durable,
    ) -> Result<(), Halt> {
        let loaded = match store.game(&id) {
            Ok(Some(record)) => self.restore_game(record, false, store)?,
            Ok(None) => return Err(halt("its record is gone".into())),
            Err(e) => return Err(halt(e.to_string())),
        };
        let said = self
            .games
            .aside_mut(&id)
            .map(|a| std::mem::take(&mut a.said));
        self.install(id, loaded, store);
        if let (Some(p), Some(said)) = (self.games.played_mut(&id), said) {
            p.table_mut().session_mut().note_witness(&said, self.now);
        }
        Ok(())
    }

    /// Asks the shell to reopen the store after a failed write, or while a game a
    /// failed write halted waits.
    pub(super) fn recover_if_halted(&mut self) {
        let halted = self
            .games
            .all_aside()
            .map(|(_, g)| g)
            .any(|a| matches!(a.halt, Halt::Write(_)));
        let failed = match self.store_health {
            Health::Working => false,
            Health::Failed => true,
            Health::Reopening { .. } => return,
        };
        if halted || failed {
            let write = self.next_write.take_next();
            self.store_health = Health::Reopening { write, failed };
            self.out.push_back(Output::Recover { write });
        }
    }
}
