//! The phases of a session, one type each, each holding what it needs: the seat's
//! secrets in every phase (before it joins, those it will commit to), the openings its
//! engine refused while revealing; so no phase can lack its secrets.
//!
//! [`Phase::allows`] is the one answer to "is this command taken now"; `handle` asks it
//! first and then does the command, and a face asks it too before it words a refusal.
//! `advance` runs the automatic steps a phase calls for and says whether it did
//! anything. Both consume the phase and return the next one.
//!
//! Each phase has one name in the code (variant and type alike); [`Phase::name`] gives
//! the words a person reads (`terms` for [`Decide`], `coin reveal` for [`Coin`]), which
//! faces and JSON show and so stay as they are.

use super::{Action, Command, Refusal, Secrets, Session, SessionError};
use crate::body::{Item, Purpose};
use crate::commit::{CommitKey, commitment};
use crate::engine::Engine;
use crate::ids::{LogId, Seat};
use crate::rules::Rules;

/// Waiting for this seat to accept or decline (the proposer never waits here): it has
/// committed to nothing yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decide {
    /// The secrets it commits to if it accepts (from its entropy alone).
    pub(super) secrets: Secrets,
}

/// This seat's commitments are out; waiting for every other player's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commit {
    pub(super) secrets: Secrets,
}

/// This seat's coin seed is out; waiting for everyone's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coin {
    pub(super) secrets: Secrets,
}

/// The game is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Play {
    pub(super) secrets: Secrets,
}

/// The game is over; opening every commitment, then closing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reveal {
    pub(super) secrets: Secrets,
    /// Openings this seat's own engine refused (it will not sign them): skipped, so
    /// that one bad opening can never keep the seat from closing.
    refused: Vec<CommitKey>,
}

/// Closed, and every seat closed after seeing the others (the transcript is complete),
/// or the proposal was declined before this seat joined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Done {
    /// The secrets of a seat that joined; a seat that declined holds those it would
    /// have committed to.
    pub(super) secrets: Secrets,
}

/// Where a session stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Waiting for this seat's decision.
    Decide(Decide),
    /// Waiting for the other players' commitments.
    Commit(Commit),
    /// Waiting for the coin.
    Coin(Coin),
    /// Playing.
    Play(Play),
    /// Revealing and closing.
    Reveal(Reveal),
    /// Complete, or declined.
    Done(Done),
}

/// Why a command is not taken in the current phase (nothing changed). The words are
/// those of the session's refusal; a face words each reason its own way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotNow {
    /// The seat must accept or decline the proposal first.
    #[error("accept or decline first")]
    Undecided,
    /// The game has not started: commitments or the coin are awaited.
    #[error("the game has not started")]
    NotStarted,
    /// The game is on, and the command belongs to another phase.
    #[error("the game is on")]
    GameOn,
    /// The game is over.
    #[error("the game is over")]
    GameOver,
}

impl Phase {
    /// The phase the replay shows for a seat holding `secrets` (at a start, or after a
    /// restart).
    pub(super) fn from_engine<R: Rules>(engine: &Engine<R>, seat: Seat, secrets: Secrets) -> Phase {
        if !engine.has_joined(seat) {
            Phase::Decide(Decide { secrets })
        } else if engine.is_over() {
            Phase::Reveal(Reveal::new(secrets))
        } else if engine.coin().is_some() {
            Phase::Play(Play { secrets })
        } else if engine.coin_revealed(seat) {
            Phase::Coin(Coin { secrets })
        } else {
            Phase::Commit(Commit { secrets })
        }
    }

    /// The phase without its data.
    pub fn stage(&self) -> Stage {
        match self {
            Phase::Decide(_) => Stage::Decide,
            Phase::Commit(_) => Stage::Commit,
            Phase::Coin(_) => Stage::Coin,
            Phase::Play(_) => Stage::Play,
            Phase::Reveal(_) => Stage::Reveal,
            Phase::Done(_) => Stage::Done,
        }
    }

    /// Whether the session is done: complete, or the proposal declined.
    pub fn is_done(&self) -> bool {
        matches!(self, Phase::Done(_))
    }

    /// The phase's words, as a person reads them (in `show` and its JSON's `phase`).
    pub fn name(&self) -> &'static str {
        self.stage().name()
    }

    /// The secrets this seat's commitments bind (before it joins, those they will).
    pub fn secrets(&self) -> &Secrets {
        match self {
            Phase::Decide(Decide { secrets })
            | Phase::Commit(Commit { secrets })
            | Phase::Coin(Coin { secrets })
            | Phase::Play(Play { secrets })
            | Phase::Reveal(Reveal { secrets, .. })
            | Phase::Done(Done { secrets }) => secrets,
        }
    }

    /// Whether this phase takes `cmd` (the one place that says which command each phase
    /// takes); else why not, by phase. A command taken may still be refused by the
    /// rules when it is done.
    pub fn allows(&self, cmd: &Command) -> Result<(), NotNow> {
        use Command as C;
        let taken = match self {
            Phase::Decide(_) => matches!(cmd, C::Accept | C::Decline),
            Phase::Commit(_) | Phase::Coin(_) => matches!(
                cmd,
                C::Resign
                    | C::Withdraw
                    | C::ShowSetup { .. }
                    | C::Seal { .. }
                    | C::Claim(_)
                    | C::Forfeit(_)
                    | C::Statements(_)
            ),
            // A withdrawal is taken while the game is on only to be refused in words
            // (`Session::may_withdraw`: who accepted).
            Phase::Play(_) => !matches!(cmd, C::Accept | C::Decline),
            Phase::Reveal(_) => matches!(cmd, C::Seal { .. } | C::Claim(_) | C::Statements(_)),
            Phase::Done(_) => matches!(cmd, C::Claim(_)),
        };
        if taken { Ok(()) } else { Err(self.not_now()) }
    }

    /// Why a command this phase does not take is refused.
    fn not_now(&self) -> NotNow {
        match self {
            Phase::Decide(_) => NotNow::Undecided,
            Phase::Commit(_) | Phase::Coin(_) => NotNow::NotStarted,
            Phase::Play(_) => NotNow::GameOn,
            Phase::Reveal(_) | Phase::Done(_) => NotNow::GameOver,
        }
    }

    pub(super) fn advance<R: Rules>(self, s: &mut Session<R>, now: u64) -> (Phase, bool) {
        match self {
            Phase::Decide(p) => p.advance(s),
            Phase::Commit(p) => p.advance(s, now),
            Phase::Coin(p) => p.advance(s, now),
            Phase::Play(p) => p.advance(s, now),
            Phase::Reveal(p) => p.advance(s, now),
            Phase::Done(p) => p.advance(s, now),
        }
    }

    /// Does `cmd`, once [`Phase::allows`] takes it.
    pub(super) fn handle<R: Rules>(
        self,
        s: &mut Session<R>,
        cmd: Command,
        now: u64,
    ) -> Result<Phase, SessionError> {
        self.allows(&cmd)?;
        let p = match (self, cmd) {
            (Phase::Decide(d), Command::Accept) => {
                let secrets = s.join(d.secrets.entropy, false, now)?;
                return Ok(Phase::Commit(Commit { secrets }));
            }
            (Phase::Decide(d), Command::Decline) => {
                s.send(LogId::PUBLIC, vec![Item::Decline], now)?;
                return Ok(Phase::Done(Done { secrets: d.secrets }));
            }
            (Phase::Play(mut p), cmd @ Command::Act { .. }) => {
                p.act(s, cmd, now)?;
                return Ok(Phase::Play(p));
            }
            (p, cmd) => (p, cmd),
        };
        let (p, cmd) = p;
        let secrets = p.secrets();
        match cmd {
            // Before anyone accepted, a proposer of version 2 has no game to lose: its
            // resignation takes the proposal back.
            Command::Withdraw => withdraw(s, now)?,
            Command::Resign if s.may_withdraw().is_ok() => withdraw(s, now)?,
            Command::Resign => single(s, secrets, Item::Resign, now)?,
            Command::OfferDraw => single(s, secrets, Item::OfferDraw, now)?,
            Command::AcceptDraw => single(s, secrets, Item::AcceptDraw, now)?,
            Command::Claim(c) => single(s, secrets, Item::Claim(c), now)?,
            Command::PrivateAct { log, act } => s.send(log, vec![Item::Act(act)], now)?,
            Command::ShowSetup { log, setup } => {
                if log.is_public() {
                    return Err(Refusal::SetupInPublic.into());
                }
                let item = s
                    .open_item(secrets, Purpose::Setup(setup.clone()), 0)
                    .ok_or(Refusal::NoSetup(setup))?;
                s.send(log, vec![item], now)?;
            }
            Command::Seal { log } => {
                if log.is_public() {
                    return Err(Refusal::SealPublic.into());
                }
                s.send(log, vec![Item::Close], now)?;
            }
            Command::Forfeit(f) => s.post_forfeit(secrets, f, now)?,
            Command::Statements(statements) => s.post_statements(statements, now)?,
            // Taken by the arms above, in the only phases that allow them.
            Command::Accept | Command::Decline | Command::Act { .. } => {
                return Err(p.not_now().into());
            }
        }
        Ok(p)
    }
}

/// Takes the proposal back, if this seat may (`Session::may_withdraw`).
fn withdraw<R: Rules>(s: &mut Session<R>, now: u64) -> Result<(), SessionError> {
    s.may_withdraw()?;
    s.send(LogId::PUBLIC, vec![Item::Withdraw], now)
}

/// Sends one item, with any deals and draw values this seat owes riding along.
fn single<R: Rules>(
    s: &mut Session<R>,
    secrets: &Secrets,
    item: Item,
    now: u64,
) -> Result<(), SessionError> {
    let mut body = s.due_items(secrets);
    body.push(item);
    s.send(LogId::PUBLIC, body, now)
}

/// Sends the deals and draw values this seat owes, if any; returns whether it sent.
fn send_due_deals<R: Rules>(s: &mut Session<R>, secrets: &Secrets, now: u64) -> bool {
    let deals = s.due_items(secrets);
    !deals.is_empty() && s.send(LogId::PUBLIC, deals, now).is_ok()
}

impl Decide {
    fn advance<R: Rules>(self, s: &mut Session<R>) -> (Phase, bool) {
        let secrets = self.secrets;
        if s.engine.has_joined(s.seat) {
            (Phase::Commit(Commit { secrets }), true)
        } else if s.engine.is_over() {
            (Phase::Done(Done { secrets }), true)
        } else {
            (Phase::Decide(Decide { secrets }), false)
        }
    }
}

impl Commit {
    fn advance<R: Rules>(self, s: &mut Session<R>, now: u64) -> (Phase, bool) {
        if s.engine.is_over() {
            return (Phase::Reveal(Reveal::new(self.secrets)), true);
        }
        if s.engine.coin_revealed(s.seat) {
            let secrets = self.secrets;
            return (Phase::Coin(Coin { secrets }), true);
        }
        // A seat that is not a player has no coin seed: it waits for the players'.
        if !s.engine.terms().is_player(s.seat) {
            if s.engine.coin().is_some() {
                let secrets = self.secrets;
                return (Phase::Play(Play { secrets }), true);
            }
            return (Phase::Commit(self), false);
        }
        let everyone = s
            .engine
            .terms()
            .player_seats()
            .all(|p| s.engine.has_joined(p));
        // And, in version 2, the proposer has acknowledged this seat's acceptance: till
        // then it may still withdraw, and must not see this seat's coin seed or deals
        // first (it could take back a game whose start it disliked).
        let v2 = crate::proposal::is_version_2(s.engine.terms().version());
        if !everyone || (v2 && !s.proposer_bound()) {
            return (Phase::Commit(self), false);
        }
        // Every other player's commitments are acknowledged by this envelope, so the
        // seed can go out, with the opening deals.
        let Some(open) = s.open_item(&self.secrets, Purpose::Coin, 0) else {
            return (Phase::Commit(self), false);
        };
        let mut body = vec![open];
        body.extend(s.due_items(&self.secrets));
        match s.send(LogId::PUBLIC, body, now) {
            Ok(()) => {
                let secrets = self.secrets;
                (Phase::Coin(Coin { secrets }), true)
            }
            Err(_) => (Phase::Commit(self), false),
        }
    }
}

impl Coin {
    fn advance<R: Rules>(self, s: &mut Session<R>, now: u64) -> (Phase, bool) {
        if s.engine.is_over() {
            s.publish_private();
            (Phase::Reveal(Reveal::new(self.secrets)), true)
        } else if s.engine.coin().is_some() {
            let secrets = self.secrets;
            (Phase::Play(Play { secrets }), true)
        } else {
            let sent = send_due_deals(s, &self.secrets, now);
            (Phase::Coin(self), sent)
        }
    }
}

impl Play {
    fn advance<R: Rules>(self, s: &mut Session<R>, now: u64) -> (Phase, bool) {
        if s.engine.is_over() {
            s.outbox.push_back(Action::GameOver);
            s.publish_private();
            return (Phase::Reveal(Reveal::new(self.secrets)), true);
        }
        let sent = send_due_deals(s, &self.secrets, now);
        (Phase::Play(self), sent)
    }

    /// Makes a game act; the secrets it adds are kept only once it is sent.
    fn act<R: Rules>(
        &mut self,
        s: &mut Session<R>,
        cmd: Command,
        now: u64,
    ) -> Result<(), SessionError> {
        let Command::Act {
            act,
            show_slots,
            open_slots,
            commit_values,
            open_values,
            open_draw,
        } = cmd
        else {
            return Err(NotNow::GameOn.into());
        };
        if s.engine.to_act() != Some(s.seat) {
            return Err(Refusal::NotYourTurn.into());
        }
        let mut body = s.due_items(&self.secrets);
        if let Some(pool) = open_draw {
            let item = s.draw_open_item(&self.secrets, &pool);
            body.push(item.ok_or(Refusal::NoDraw(pool))?);
        }
        if !show_slots.is_empty() && !crate::proposal::is_version_2(s.engine.terms().version()) {
            return Err(Refusal::NoShow.into());
        }
        for (deck, slot, to) in show_slots {
            let item = s.show_item(&self.secrets, deck.clone(), slot, to);
            body.push(item.ok_or(Refusal::NoSlot(deck, slot))?);
        }
        for (deck, slot) in open_slots {
            let item = s.open_item(&self.secrets, Purpose::Deck(deck.clone()), slot);
            body.push(item.ok_or(Refusal::NoSlot(deck, slot))?);
        }
        // A sealed value chosen now must be durable before its commitment is sent.
        let mut secrets = self.secrets.clone();
        let game = s.engine.terms().game();
        for (name, index, value) in &commit_values {
            let key = CommitKey {
                seat: s.seat,
                purpose: Purpose::Value(name.clone()),
                index: *index,
            };
            let hash = commitment(game, &key, &secrets.nonce(&key), value);
            secrets.values.push((name.clone(), *index, value.clone()));
            body.push(Item::Commit(crate::body::Commit {
                purpose: key.purpose,
                first: *index,
                hashes: vec![hash],
            }));
        }
        for (name, index) in open_values {
            let item = s.open_item(&secrets, Purpose::Value(name.clone()), index);
            body.push(item.ok_or(Refusal::NoValue(name, index))?);
        }
        // The setups this act must open in play go before it in its envelope (version
        // 2, §8.5.4): the session adds them, so no caller forgets one.
        if let (Some(state), Ok(parsed)) = (s.engine.state(), s.engine.rules().decode_act(&act)) {
            for name in s.engine.rules().setups_to_open(state, s.seat, &parsed) {
                let item = s.open_item(&secrets, Purpose::Setup(name.clone()), 0);
                body.push(item.ok_or(Refusal::NoSetup(name))?);
            }
        }
        // The deals this act makes this seat owe go after it in the same envelope, so
        // that the next mover has his card with the move (one envelope where there were
        // two). The engine judges the envelope as any other; should it refuse what the
        // preview foresaw, the act goes alone.
        let owes = s.engine.preview_owes(s.seat, &body, &act, now);
        let after = owes.map_or_else(Vec::new, |o| s.deals(&secrets, &o).1);
        body.push(Item::Act(act));
        let outbox_len = s.outbox.len();
        if !commit_values.is_empty() {
            s.outbox.push_back(Action::Persist(secrets.clone()));
        }
        let sent = if after.is_empty() {
            s.send(LogId::PUBLIC, body, now)
        } else {
            let mut with = body.clone();
            with.extend(after);
            s.send(LogId::PUBLIC, with, now)
                .or_else(|_| s.send(LogId::PUBLIC, body, now))
        };
        if let Err(e) = sent {
            s.outbox.truncate(outbox_len);
            return Err(e);
        }
        self.secrets = secrets;
        Ok(())
    }
}

impl Reveal {
    /// Envelopes of openings stay well under the message cap.
    const BATCH_BYTES: usize = 48 * 1024;

    fn new(secrets: Secrets) -> Reveal {
        Reveal {
            secrets,
            refused: vec![],
        }
    }

    fn advance<R: Rules>(mut self, s: &mut Session<R>, now: u64) -> (Phase, bool) {
        let reveals: Vec<(CommitKey, Item)> = s.reveal_items(&self.secrets, &self.refused);
        // A forfeit against this seat that the witness's own word to it contradicts:
        // shown before anything else (no time result then stands).
        if let Some(defence) = s.defence()
            && s.post_statements(defence, now).is_ok()
        {
            return (Phase::Reveal(self), true);
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
            return (Phase::Reveal(self), true);
        }
        if s.owes_stamps() {
            // The node asks the witness and answers with Command::Statements (§17).
            return (Phase::Reveal(self), false);
        }
        if !s.engine.has_closed(s.seat) || s.engine.close_due(s.seat) {
            let sent = s.send(LogId::PUBLIC, vec![Item::Close], now).is_ok();
            return (Phase::Reveal(self), sent);
        }
        if s.verdict().complete {
            s.outbox.push_back(Action::Complete);
            let secrets = self.secrets;
            return (Phase::Done(Done { secrets }), true);
        }
        (Phase::Reveal(self), false)
    }
}

impl Done {
    fn advance<R: Rules>(self, s: &mut Session<R>, now: u64) -> (Phase, bool) {
        if s.engine.has_closed(s.seat) && s.engine.close_due(s.seat) {
            let sent = s.send(LogId::PUBLIC, vec![Item::Close], now).is_ok();
            return (Phase::Done(self), sent);
        }
        (Phase::Done(self), false)
    }
}

/// A phase without its data, one variant per [`Phase`] and of the same name: what a face
/// shows and tests. In JSON (`show`'s `phase`), the phase's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Stage {
    /// [`Phase::Decide`].
    #[serde(rename = "terms")]
    Decide,
    /// [`Phase::Commit`].
    #[serde(rename = "commit")]
    Commit,
    /// [`Phase::Coin`].
    #[serde(rename = "coin reveal")]
    Coin,
    /// [`Phase::Play`].
    #[serde(rename = "play")]
    Play,
    /// [`Phase::Reveal`].
    #[serde(rename = "reveal")]
    Reveal,
    /// [`Phase::Done`].
    #[serde(rename = "done")]
    Done,
}

impl Stage {
    /// The words, as a person reads them.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Decide => "terms",
            Stage::Commit => "commit",
            Stage::Coin => "coin reveal",
            Stage::Play => "play",
            Stage::Reveal => "reveal",
            Stage::Done => "done",
        }
    }
}
