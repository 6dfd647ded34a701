//! Secret Stallmate without a referee at a table: the session, and beside it the
//! player's side of the computations ([`Player`]), which a node drives like a referee's
//! duties — every message made and its hash signed as soon as it is owed, the other's
//! messages taken as they come, the setups opened once the game has ended. A person or
//! a bot chooses only the attempts, from the player's own view.
//!
//! The generic table ([`TableOf`]) asks the game's face with the session alone, but what
//! this player knows of the board (his answers, what he heard) is in the computations'
//! outcomes, which only the [`Player`] holds. So [`DuoTable`] wraps the generic table
//! and lends the face the player's view for the length of each call it forwards
//! ([`DuoTable::shown`]): a thread-local set and restored around the call, never read
//! outside one.

use std::cell::{RefCell, RefMut};

use sealed_mpc::play::record::commitment;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::Seat;
use sealed_protocol::session::{AnySession, Command, Session};

use super::acts::{self, Act};
use super::clear;
use super::errors::{MessageRefused, ResumeError};
use super::item::to_item;
use super::player::{Player, Taken, from_the_other};
use super::{Duo, Owed, State, VARIANT, engine_name, sender};
use crate::stallmate::attempt::{Attempt, AttemptRefused};
use crate::stallmate::bot;
use crate::stallmate::peer::color;
use sealed_mpc::chain::files::MANIFEST_SHA256;

use crate::stallmate::table::{diagram, hints, view_attempts, view_board, view_choices};
use crate::stallmate::view::MoverView;
use crate::table::hand as shape;
use crate::table::{
    Asked, Automation, Choice, Computations, Computing, Deposits, Descriptor, Document, Face, Game,
    Given, Grid, Hand, Refusal, Table, TableFace, TableOf, TableView, Turn,
};

/// The game as the registry lists it.
pub const DESCRIPTOR: Descriptor = Descriptor::of::<Duo>(
    "Secret Stallmate without a referee: the two players' nodes answer every attempt together, garbled, and prove it at the end",
    &crate::stallmate::DUO_SETTINGS,
    &[("ply-limit", "6"), ("time-per-move", "1h")],
    crate::stallmate::record::replay,
)
.computing(Computations {
    max_message: super::player::MAX_MESSAGE,
})
.writing(&[(super::CIRCUITS, MANIFEST_SHA256)]);

thread_local! {
    /// The player's view lent to the face for one forwarded call ([`DuoTable::shown`]).
    static VIEW: RefCell<Option<MoverView>> = const { RefCell::new(None) };
}

/// The view lent for the call in progress, if the player has one yet.
fn lent() -> Option<MoverView> {
    VIEW.with(|v| v.borrow().clone())
}

/// One seat's table: the generic table and the player beside its session.
pub(crate) struct DuoTable {
    inner: TableOf<Duo>,
    /// Made once the seat's own setups are known; in a cell because duties are asked
    /// through `&self` (making a message is filling a cache: asked twice, the same act).
    player: RefCell<Option<Player>>,
    /// The other side's first message if it came before the player was made (it goes
    /// as soon as the other side's game starts, and may outrun the envelopes that start
    /// this side's): given to the player when it is made, as spec/PROTOCOL.md §16.7
    /// holds a message that comes before its act. Only the other side's first index,
    /// so that what is kept, and stored, is one message (7 MiB at most) whatever the
    /// other player sends. Dropped, it waited for the sender's 30 s resend.
    before_player: RefCell<Option<(u64, Vec<u8>)>>,
}

impl DuoTable {
    fn new(session: Session<Duo>) -> DuoTable {
        DuoTable {
            inner: TableOf::new(session),
            player: RefCell::new(None),
            before_player: RefCell::new(None),
        }
    }

    fn session(&self) -> &Session<Duo> {
        self.inner.typed()
    }

    /// The player, made as soon as the seat's setups are known.
    fn player(&self) -> RefMut<'_, Option<Player>> {
        let mut p = self.player.borrow_mut();
        if p.is_none() && self.session().engine().state().is_some() {
            *p = Player::new(self.session());
            if let (Some(player), Some((index, bytes))) =
                (p.as_mut(), self.before_player.borrow_mut().take())
            {
                // Judged now as if it had just come: refused, it changes nothing, and
                // its sender sends it again.
                let _refused_or_taken = player.take(self.session(), index, bytes);
            }
        }
        p
    }

    /// Keeps the other side's message `index` until the player is made; whether it is
    /// new (then stored, as any message taken).
    fn keep_before_player(&self, index: u64, bytes: Vec<u8>) -> Result<bool, MessageRefused> {
        let me = color(self.session().seat());
        from_the_other(me, index, bytes.len())?;
        // The other side's first message: the lowest index it sends.
        if Some(index) != (0..2).find(|i| sender(*i) != me) {
            return Err(MessageRefused::NotFirst(index));
        }
        let mut kept = self.before_player.borrow_mut();
        if kept.as_ref().is_some_and(|(_, b)| *b == bytes) {
            return Ok(false);
        }
        *kept = Some((index, bytes));
        Ok(true)
    }

    /// Runs `f` on the generic table with the player's view lent to the face.
    fn shown<T>(&self, f: impl FnOnce(&TableOf<Duo>) -> T) -> T {
        let view = {
            let mut p = self.player();
            if let Some(p) = p.as_mut() {
                p.follow(self.session());
            }
            p.as_ref().map(|p| p.view().clone())
        };
        let before = VIEW.with(|v| v.replace(view));
        let out = f(&self.inner);
        VIEW.with(|v| *v.borrow_mut() = before);
        out
    }
}

impl Table for DuoTable {
    fn session(&self) -> &dyn AnySession {
        self.inner.session()
    }
    fn session_mut(&mut self) -> &mut dyn AnySession {
        self.inner.session_mut()
    }
    fn turn(&self) -> Turn {
        // Through the lent view: whether the player is to choose an attempt is in it.
        // The player's own deadline (its `Lacking`), not the generic game's: the
        // follow the view makes moves no deadline (`Player::due_at`).
        let turn = self.shown(|t| t.turn());
        Turn {
            due_at: self.player().as_ref().and_then(Player::due_at),
            ..turn
        }
    }
    fn duty(&self, now: u64) -> Option<Command> {
        if self.inner.session().phase().is_done() {
            return None;
        }
        let own = self
            .player()
            .as_mut()
            .and_then(|p| p.duty(self.session(), now));
        own.or_else(|| self.inner.duty(now))
    }
    fn offer_ruling(&mut self, act: &[u8]) -> Result<(), Refusal> {
        self.inner.offer_ruling(act)
    }
    fn computing(&mut self) -> Option<&mut dyn Computing> {
        Some(self)
    }
}

impl Computing for DuoTable {
    fn handle(&mut self, given: Given<'_>) -> Result<bool, Refusal> {
        let session = self.inner.typed();
        let mut p = self.player();
        match (given, p.as_mut()) {
            (Given::Message { index, bytes }, Some(p)) => p
                .take(session, index, bytes)
                .map(|t| t == Taken::New)
                .map_err(Refusal::game),
            (Given::Message { index, bytes }, None) => {
                drop(p);
                self.keep_before_player(index, bytes).map_err(Refusal::game)
            }
            (Given::Resume(kept), Some(p)) => p
                .resume(session, kept)
                .map(|()| true)
                .map_err(Refusal::game),
            (Given::Resume(_), None) => Err(Refusal::game(ResumeError::NotStarted)),
            (Given::Statement(statement), p) => {
                Ok(p.is_some_and(|p| p.take_stamp(session, statement)))
            }
            (Given::DepositFalse(why), p) => Ok(p.map(|p| p.deposit_false(why)).is_some()),
        }
    }
    fn message_out(&mut self, again: bool) -> Option<(u64, Vec<u8>)> {
        self.player()
            .as_mut()
            .and_then(|p| p.outgoing(self.inner.typed(), again))
    }
    fn kept_out(&mut self) -> Option<(u64, Vec<u8>)> {
        self.player()
            .as_mut()
            .and_then(|p| p.kept(self.inner.typed()))
    }
    fn deposits(&mut self) -> Deposits {
        let p = self.player();
        let Some(p) = p.as_ref() else {
            return Deposits::default();
        };
        let session = self.inner.typed();
        Deposits {
            out: p.deposit_out(session).map(|d| d.bytes),
            wanted: p.deposit_wanted(session),
        }
    }
}

impl TableFace for DuoTable {
    fn waiting_for(&self) -> String {
        self.shown(|t| t.waiting_for())
    }
    fn command(&self, asked: Asked<'_>) -> Result<Command, Refusal> {
        self.shown(|t| t.command(asked))
    }
    fn bot_action(&self, pick: u64) -> Option<Command> {
        self.shown(|t| t.bot_action(pick))
    }
    fn view(&self) -> TableView {
        self.shown(|t| t.view())
    }
    fn document(&self, kind: Document) -> Option<String> {
        match kind {
            Document::Svg => None,
            // Through the lent view: the board and the score are drawn with the steps,
            // which need it.
            Document::Text | Document::Score => self.shown(|t| t.document(kind)),
            Document::Pgn => self.inner.document(kind),
        }
    }
}

/// Whether the seat of `s` is to choose its next attempt, its view up to date.
fn attempting(s: &Session<Duo>, state: &State) -> Option<MoverView> {
    let view = lent()?;
    let mine = state.owed() == Some(Owed::Attempt(color(s.seat())));
    (mine && view.my_turn()).then_some(view)
}

/// The commitment to `attempt` as the act that posts it: under this seat's engine seed,
/// for the computation that comes next.
fn attempt_command(s: &Session<Duo>, state: &State, attempt: &Attempt) -> Option<Command> {
    let seed = s.own_setup_value(&engine_name())?.0;
    let game = s.engine().terms().game().0.0;
    let c = commitment(&seed, &game, state.computations, to_item(attempt));
    Some(Command::act(acts::encode(&Act::Attempt(Hash(c)))))
}

impl Game for Duo {
    const VARIANT: &'static str = VARIANT;

    fn ready(s: &Session<Self>, state: &State) -> bool {
        attempting(s, state).is_some()
    }

    fn table(session: Session<Self>) -> Box<dyn Table> {
        Box::new(DuoTable::new(session))
    }

    fn awaiting(s: &Session<Self>, state: &State) -> Option<String> {
        let who = |c| crate::table::words::who(s.engine().terms(), s.seat(), seat_of(c));
        Some(match state.owed()? {
            Owed::Attempt(c) => format!("{} to choose an attempt", who(c)),
            Owed::Step(i) => format!("{} to send {}", who(sender(i)), step_words(i)),
            Owed::Open(c) => format!("{} to open his setups", who(c)),
            Owed::Deposit(i) => format!(
                "{} to leave {} with the witness",
                who(sender(i)),
                step_words(i)
            ),
        })
    }
}

/// Message `i` of the computations as a player reads it (issue 57: "message 19 of the
/// computations" told him nothing): the computation it belongs to — the set-up, the
/// one that sets the board, or the one that judges an attempt — and which of its steps.
fn step_words(i: u64) -> String {
    use super::{BASE_MESSAGES, COMPUTATION_MESSAGES};
    match i.checked_sub(BASE_MESSAGES) {
        None => format!(
            "step {} of {BASE_MESSAGES} of the computations' set-up",
            i + 1
        ),
        Some(j) => {
            let (run, step) = (j / COMPUTATION_MESSAGES, j % COMPUTATION_MESSAGES + 1);
            let what = match run {
                0 => "the computation that sets up the board".to_owned(),
                n => format!("the computation that judges the game's attempt {n}"),
            };
            format!("step {step} of {COMPUTATION_MESSAGES} of {what}")
        }
    }
}

fn seat_of(c: crate::chess::Color) -> Seat {
    crate::stallmate::peer::seat(c)
}

impl Face for Duo {
    fn side(seat: Seat) -> Option<String> {
        Some(color(seat).to_string())
    }

    fn prompt(_s: &Session<Self>, _state: &State) -> String {
        match lent().map_or(0, |v| v.entries().len()) {
            0 => "your move: try a move or ask any?".into(),
            _ => "still your move: try another".into(),
        }
    }

    type Error = AttemptRefused;

    fn parse(s: &Session<Self>, state: &State, text: &str) -> Result<Command, AttemptRefused> {
        let attempt: Attempt = text.trim().parse()?;
        if attempting(s, state).is_none() {
            return Err(AttemptRefused::ComputationRunning);
        }
        attempt_command(s, state, &attempt).ok_or(AttemptRefused::SeedUnknown)
    }

    fn hints(s: &Session<Self>, _state: &State) -> Vec<String> {
        hints(s.seat())
    }

    fn choices(s: &Session<Self>, state: &State) -> Vec<Choice> {
        attempting(s, state)
            .map(|v| view_choices(&v))
            .unwrap_or_default()
    }

    fn board(s: &Session<Self>, state: &State) -> String {
        // Once both have opened, the game in the clear: both armies, as with a referee,
        // whatever this node still holds of the computations (a restart deletes them).
        if let Some(r) = clear::game(s.engine()) {
            return format!("{}moves made: {}\n", diagram(r.position()), state.plies);
        }
        let Some(view) = lent() else {
            return "your army is not known yet\n".into();
        };
        let mut out = view_board(&view);
        if let Some(last) = view.heard().last() {
            let words: Vec<String> = last.iter().map(ToString::to_string).collect();
            let words = if words.is_empty() {
                "nothing".to_owned()
            } else {
                words.join(", ")
            };
            out.push_str(&format!("heard in the opponent's last move: {words}\n"));
        }
        out.push_str(&format!("moves made: {}\n", state.plies));
        out
    }

    fn hand(_s: &Session<Self>) -> (Option<String>, Hand) {
        let Some(view) = lent() else {
            return (None, Hand::None);
        };
        let army = view.setup().letters();
        let heard = (1u32..)
            .zip(view.heard())
            .map(|(period, h)| shape::Heard {
                period,
                words: h.iter().map(ToString::to_string).collect(),
            })
            .collect();
        (
            Some(format!("your army: {army}")),
            Hand::Duo(shape::DuoHand {
                attempts: view_attempts(&view),
                army,
                heard,
            }),
        )
    }

    fn svg(_state: &State) -> Option<String> {
        None
    }

    fn grid(s: &Session<Self>, _state: &State) -> Option<Grid> {
        if let Some(r) = clear::game(s.engine()) {
            return Some(Grid::chess(r.position(), color(s.seat()), |_| vec![]));
        }
        let view = lent()?;
        Some(Grid::chess(view.board(), color(s.seat()), |_| vec![]))
    }

    fn boards(s: &Session<Self>, _acts: &[Act]) -> Vec<(Grid, Vec<String>)> {
        // As `grid`: the whole game once it is open, else the player's own army.
        if let Some(r) = clear::game(s.engine()) {
            return crate::stallmate::steps::of_game(&r, color(s.seat()));
        }
        lent().map_or_else(Vec::new, |v| crate::stallmate::steps::of_player(&v))
    }

    fn score(s: &Session<Self>, _state: &State, _acts: &[Act]) -> Option<String> {
        // The whole game can be written once both seeds and armies are open.
        clear::game(s.engine()).map(|r| crate::stallmate::record::write(&r))
    }

    fn pgn(s: &Session<Self>, _state: &State) -> Option<String> {
        let r = clear::game(s.engine())?;
        Some(crate::stallmate::pgn::of_game(
            &r,
            s.engine().terms(),
            sealed_protocol::session::AnySession::timeline(s).started,
            s.verdict().outcome.as_ref(),
        ))
    }
}

impl Automation for Duo {
    fn bot(s: &Session<Self>, state: &State, pick: u64) -> Option<Command> {
        let view = attempting(s, state)?;
        let attempt = bot::choose(&view, pick)?;
        attempt_command(s, state, &attempt)
    }
}

#[cfg(test)]
mod tests {
    use super::step_words;

    #[test]
    fn a_message_of_the_computations_is_named_by_its_computation_and_step() {
        assert_eq!(step_words(0), "step 1 of 2 of the computations' set-up");
        assert_eq!(step_words(1), "step 2 of 2 of the computations' set-up");
        assert_eq!(
            step_words(2),
            "step 1 of 4 of the computation that sets up the board"
        );
        assert_eq!(
            step_words(5),
            "step 4 of 4 of the computation that sets up the board"
        );
        assert_eq!(
            step_words(19),
            "step 2 of 4 of the computation that judges the game's attempt 4"
        );
    }
}
