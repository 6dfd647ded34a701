//! The phases of a session, one type each.
//!
//! `advance` runs the automatic steps a phase calls for and says whether it did
//! anything; `handle` takes a person's decision. Both consume the phase and return the
//! next one, so a phase can only hold what that phase needs.

use super::{Action, Command, Session, SessionError};
use crate::body::{Commit, Item, Purpose};
use crate::commit::{CommitKey, commitment};
use crate::engine::Engine;
use crate::ids::{LogId, Seat};
use crate::rules::Rules;

/// Waiting for this seat to accept or decline (the proposer never waits here).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AwaitDecision;

/// This seat's commitments are out; waiting for every other player's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AwaitCommitments;

/// This seat's coin seed is out; waiting for everyone's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AwaitCoin;

/// The game is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Playing;

/// The game is over; opening every commitment, then closing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Revealing {
    /// Openings this seat's own engine refused (it will not sign them): skipped, so
    /// that one bad opening can never keep the seat from closing.
    refused: Vec<CommitKey>,
}

/// Closed, and every seat closed after seeing the others: the transcript is complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finished;

/// Where a session stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Before this seat's first envelope.
    Terms,
    /// Waiting for this seat's decision.
    Decide(AwaitDecision),
    /// Waiting for the other players' commitments.
    Commit(AwaitCommitments),
    /// Waiting for the coin.
    Coin(AwaitCoin),
    /// Playing.
    Play(Playing),
    /// Revealing and closing.
    End(Revealing),
    /// Complete.
    Done(Finished),
}

impl Phase {
    /// The phase the replay shows for a seat (used after a restart).
    pub fn from_engine<R: Rules>(engine: &Engine<R>, seat: Seat) -> Phase {
        if !engine.has_joined(seat) {
            Phase::Decide(AwaitDecision)
        } else if engine.is_over() {
            Phase::End(Revealing::default())
        } else if engine.coin().is_some() {
            Phase::Play(Playing)
        } else if engine.coin_revealed(seat) {
            Phase::Coin(AwaitCoin)
        } else {
            Phase::Commit(AwaitCommitments)
        }
    }

    /// A short name.
    pub fn name(&self) -> &'static str {
        match self {
            Phase::Terms | Phase::Decide(_) => "terms",
            Phase::Commit(_) => "commit",
            Phase::Coin(_) => "coin reveal",
            Phase::Play(_) => "play",
            Phase::End(_) => "reveal",
            Phase::Done(_) => "done",
        }
    }

    pub(super) fn advance<R: Rules>(self, s: &mut Session<R>, now: u64) -> (Phase, bool) {
        match self {
            Phase::Terms => (Phase::from_engine(&s.engine, s.seat), true),
            Phase::Decide(p) => p.advance(s),
            Phase::Commit(p) => p.advance(s, now),
            Phase::Coin(p) => p.advance(s, now),
            Phase::Play(p) => p.advance(s, now),
            Phase::End(p) => p.advance(s, now),
            Phase::Done(p) => p.advance(s, now),
        }
    }

    pub(super) fn handle<R: Rules>(
        self,
        s: &mut Session<R>,
        cmd: Command,
        now: u64,
    ) -> Result<Phase, SessionError> {
        match (self, cmd) {
            (Phase::Decide(_), Command::Accept) => {
                let entropy = s
                    .secrets
                    .as_ref()
                    .map(|x| x.entropy)
                    .ok_or(SessionError::WrongPhase("no entropy"))?;
                s.join(entropy, false, now)?;
                Ok(Phase::Commit(AwaitCommitments))
            }
            (Phase::Decide(_), Command::Decline) => {
                s.send(LogId::PUBLIC, vec![Item::Decline], now)?;
                Ok(Phase::Done(Finished))
            }
            (Phase::Decide(_), _) => Err(SessionError::WrongPhase("accept or decline first")),
            (p @ (Phase::Commit(_) | Phase::Coin(_) | Phase::Play(_)), Command::Resign) => {
                single(s, Item::Resign, now)?;
                Ok(p)
            }
            (Phase::Play(p), cmd @ Command::Act { .. }) => {
                p.act(s, cmd, now)?;
                Ok(Phase::Play(Playing))
            }
            (Phase::Play(_), Command::PrivateAct { log, act }) => {
                s.send(log, vec![Item::Act(act)], now)?;
                Ok(Phase::Play(Playing))
            }
            (
                p @ (Phase::Commit(_) | Phase::Coin(_) | Phase::Play(_)),
                Command::ShowSetup { log, setup },
            ) => {
                if log.is_public() {
                    return Err(SessionError::Refused(
                        "a setup is shown in a private log only".into(),
                    ));
                }
                let item = s
                    .open_item(Purpose::Setup(setup.clone()), 0)
                    .ok_or_else(|| {
                        SessionError::Refused(format!("this seat has no setup {setup}"))
                    })?;
                s.send(log, vec![item], now)?;
                Ok(p)
            }
            (
                p @ (Phase::Commit(_) | Phase::Coin(_) | Phase::Play(_) | Phase::End(_)),
                Command::Seal { log },
            ) => {
                if log.is_public() {
                    return Err(SessionError::Refused("only a private log is sealed".into()));
                }
                s.send(log, vec![Item::Close], now)?;
                Ok(p)
            }
            (Phase::Play(p), Command::OfferDraw) => {
                single(s, Item::OfferDraw, now)?;
                Ok(Phase::Play(p))
            }
            (Phase::Play(p), Command::AcceptDraw) => {
                single(s, Item::AcceptDraw, now)?;
                Ok(Phase::Play(p))
            }
            (p, Command::Claim(c)) => {
                single(s, Item::Claim(c), now)?;
                Ok(p)
            }
            (p @ (Phase::Commit(_) | Phase::Coin(_) | Phase::Play(_)), Command::Forfeit(f)) => {
                s.post_forfeit(f, now)?;
                Ok(p)
            }
            (
                p @ (Phase::Commit(_) | Phase::Coin(_) | Phase::Play(_) | Phase::End(_)),
                Command::Statements(statements),
            ) => {
                s.post_statements(statements, now)?;
                Ok(p)
            }
            (Phase::Play(_), _) => Err(SessionError::WrongPhase("the game is on")),
            (Phase::End(_) | Phase::Done(_), _) => {
                Err(SessionError::WrongPhase("the game is over"))
            }
            _ => Err(SessionError::WrongPhase("the game has not started")),
        }
    }
}

/// Sends one item, with any deals and draw values this seat owes riding along.
fn single<R: Rules>(s: &mut Session<R>, item: Item, now: u64) -> Result<(), SessionError> {
    let mut body = s.due_items();
    body.push(item);
    s.send(LogId::PUBLIC, body, now)
}

/// Sends the deals and draw values this seat owes, if any; returns whether it sent.
fn send_due_deals<R: Rules>(s: &mut Session<R>, now: u64) -> bool {
    let deals = s.due_items();
    !deals.is_empty() && s.send(LogId::PUBLIC, deals, now).is_ok()
}

impl AwaitDecision {
    fn advance<R: Rules>(self, s: &mut Session<R>) -> (Phase, bool) {
        if s.engine.has_joined(s.seat) {
            (Phase::Commit(AwaitCommitments), true)
        } else if s.engine.is_over() {
            (Phase::Done(Finished), true)
        } else {
            (Phase::Decide(self), false)
        }
    }
}

impl AwaitCommitments {
    fn advance<R: Rules>(self, s: &mut Session<R>, now: u64) -> (Phase, bool) {
        if s.engine.is_over() {
            return (Phase::End(Revealing::default()), true);
        }
        if s.engine.coin_revealed(s.seat) {
            return (Phase::Coin(AwaitCoin), true);
        }
        // A seat that is not a player has no coin seed: it waits for the players'.
        if !s.engine.terms().is_player(s.seat) {
            if s.engine.coin().is_some() {
                return (Phase::Play(Playing), true);
            }
            return (Phase::Commit(self), false);
        }
        let everyone = s
            .engine
            .terms()
            .player_seats()
            .all(|p| s.engine.has_joined(p));
        if !everyone || !s.engine.terms().is_player(s.seat) {
            return (Phase::Commit(self), false);
        }
        // Every other player's commitments are acknowledged by this envelope, so the
        // seed can go out, with the opening deals.
        let Some(open) = s.open_item(Purpose::Coin, 0) else {
            return (Phase::Commit(self), false);
        };
        let mut body = vec![open];
        body.extend(s.due_items());
        match s.send(LogId::PUBLIC, body, now) {
            Ok(()) => (Phase::Coin(AwaitCoin), true),
            Err(_) => (Phase::Commit(self), false),
        }
    }
}

impl AwaitCoin {
    fn advance<R: Rules>(self, s: &mut Session<R>, now: u64) -> (Phase, bool) {
        if s.engine.is_over() {
            s.publish_private();
            (Phase::End(Revealing::default()), true)
        } else if s.engine.coin().is_some() {
            (Phase::Play(Playing), true)
        } else {
            let sent = send_due_deals(s, now);
            (Phase::Coin(self), sent)
        }
    }
}

impl Playing {
    fn advance<R: Rules>(self, s: &mut Session<R>, now: u64) -> (Phase, bool) {
        if s.engine.is_over() {
            s.outbox.push_back(Action::GameOver);
            s.publish_private();
            return (Phase::End(Revealing::default()), true);
        }
        let sent = send_due_deals(s, now);
        (Phase::Play(self), sent)
    }

    fn act<R: Rules>(self, s: &mut Session<R>, cmd: Command, now: u64) -> Result<(), SessionError> {
        let Command::Act {
            act,
            open_slots,
            commit_values,
            open_values,
            open_draw,
        } = cmd
        else {
            return Err(SessionError::WrongPhase("not an act"));
        };
        if s.engine.to_act() != Some(s.seat) {
            return Err(SessionError::Refused("it is not this seat's turn".into()));
        }
        let mut body = s.due_items();
        if let Some(pool) = &open_draw {
            body.push(
                s.draw_open_item(pool)
                    .ok_or_else(|| SessionError::Refused(format!("no draw to open from {pool}")))?,
            );
        }
        for (deck, slot) in open_slots {
            body.push(
                s.open_item(Purpose::Deck(deck.clone()), slot)
                    .ok_or_else(|| {
                        SessionError::Refused(format!("no slot {slot} in deck {deck}"))
                    })?,
            );
        }
        // A sealed value chosen now must be durable before its commitment is sent.
        let mut secrets = s
            .secrets
            .clone()
            .ok_or(SessionError::WrongPhase("no secrets"))?;
        let game = s.engine.terms().game();
        for (name, index, value) in &commit_values {
            let key = CommitKey {
                seat: s.seat,
                purpose: Purpose::Value(name.clone()),
                index: *index,
            };
            let hash = commitment(game, &key, &secrets.nonce(&key), value);
            secrets.values.push((name.clone(), *index, value.clone()));
            body.push(Item::Commit(Commit {
                purpose: key.purpose,
                first: *index,
                hashes: vec![hash],
            }));
        }
        let old = s.secrets.replace(secrets.clone());
        for (name, index) in open_values {
            match s.open_item(Purpose::Value(name.clone()), index) {
                Some(item) => body.push(item),
                None => {
                    s.secrets = old;
                    return Err(SessionError::Refused(format!(
                        "no sealed value {name}[{index}]"
                    )));
                }
            }
        }
        body.push(Item::Act(act));
        let outbox_len = s.outbox.len();
        if !commit_values.is_empty() {
            s.outbox.push_back(Action::Persist(secrets));
        }
        if let Err(e) = s.send(LogId::PUBLIC, body, now) {
            s.secrets = old;
            s.outbox.truncate(outbox_len);
            return Err(e);
        }
        Ok(())
    }
}

impl Revealing {
    /// Envelopes of openings stay well under the message cap.
    const BATCH_BYTES: usize = 48 * 1024;

    fn advance<R: Rules>(mut self, s: &mut Session<R>, now: u64) -> (Phase, bool) {
        let reveals: Vec<(CommitKey, Item)> = s
            .reveal_items()
            .into_iter()
            .filter(|(k, _)| !self.refused.contains(k))
            .collect();
        // A forfeit against this seat that the witness's own word to it contradicts:
        // shown before anything else (no time result then stands).
        if let Some(defence) = s.defence()
            && s.post_statements(defence, now).is_ok()
        {
            return (Phase::End(self), true);
        }
        if !reveals.is_empty() {
            let mut batch = vec![];
            let mut size = 0;
            for (key, item) in reveals {
                let len = crate::wire::encode(&item).len();
                if !batch.is_empty()
                    && (batch.len() == crate::body::MAX_ITEMS || size + len > Self::BATCH_BYTES)
                {
                    break;
                }
                size += len;
                batch.push((key, item));
            }
            let items: Vec<Item> = batch.iter().map(|(_, i)| i.clone()).collect();
            if s.send(LogId::PUBLIC, items, now).is_err() {
                // Find the opening that is refused and send the others one by one.
                for (key, item) in batch {
                    if s.send(LogId::PUBLIC, vec![item], now).is_err() {
                        self.refused.push(key);
                    }
                }
            }
            return (Phase::End(self), true);
        }
        if s.owes_stamps() {
            // The node asks the witness and answers with Command::Statements (§17).
            return (Phase::End(self), false);
        }
        if !s.engine.has_closed(s.seat) || s.engine.close_due(s.seat) {
            let sent = s.send(LogId::PUBLIC, vec![Item::Close], now).is_ok();
            return (Phase::End(self), sent);
        }
        if s.verdict().complete {
            s.outbox.push_back(Action::Complete);
            return (Phase::Done(Finished), true);
        }
        (Phase::End(self), false)
    }
}

impl Finished {
    fn advance<R: Rules>(self, s: &mut Session<R>, now: u64) -> (Phase, bool) {
        if s.engine.has_closed(s.seat) && s.engine.close_due(s.seat) {
            let sent = s.send(LogId::PUBLIC, vec![Item::Close], now).is_ok();
            return (Phase::Done(self), sent);
        }
        (Phase::Done(self), false)
    }
}
