//! One player's side of the computations at his own table (spec/GAMES.md §5.15): it
//! makes his messages from his engine seed, his back rank, his attempts and the other's
//! messages; takes the other's messages once their hashes are signed; and keeps his view
//! of the game (his army, his answers, what he heard) from what each computation told
//! him. Sans-IO like the session beside it: messages in ([`Player::take`]), acts and
//! messages out ([`Player::duty`], [`Player::outgoing`]).
//!
//! Everything it holds comes again from the public acts, its own setups and the other's
//! messages: after a restart the node gives it the messages it stored and it makes its
//! own again ([`Player::follow`]), checking each against the hash it signed. So only the
//! other's messages are stored, never its own, and its own attempts are opened from
//! their commitments under its seed rather than kept. Once a computation is finished
//! and the act that ends it signed, the side's state takes the place of every message
//! before it ([`Player::kept`], [`Player::resume`]; `kept.rs`): the node forgets
//! those, so that what it keeps of a game does not grow with its attempts. Why it refuses
//! a message or a kept state, or halts: `errors.rs`.

use sealed_mpc::play::game::{Black, Outcome, White};
use sealed_mpc::play::record::{open, step_hash};
use sealed_protocol::hash::Hash;
use sealed_protocol::session::{Command, Session};

use super::acts::{self, Act, Done};
use super::errors::{MessageRefused, ResumeError, StepError};
use super::item::{ending, from_item, mpc_options, rank};
use super::kept::Kept;
use super::posted::Posted;
use super::told;
use super::{BASE_MESSAGES, COMPUTATION_MESSAGES, Duo, Owed, engine_name, sender};
use crate::chess::Color;
use crate::stallmate::announce::Heard;
use crate::stallmate::peer::{color, setup_name};
use crate::stallmate::setup::Setup;
use crate::stallmate::view::MoverView;

/// Whether the seat of `s` owes the next act.
fn owes(s: &Session<Duo>, state: &super::State) -> bool {
    sealed_protocol::rules::Rules::to_act(s.engine().rules(), state) == Some(s.seat())
}

/// The largest message a side takes: the garbled tables of the largest computation
/// (about 85,000 AND gates at 32 bytes, spec/GAMES.md §5.15) with room to spare.
pub const MAX_MESSAGE: usize = 7 << 20;

/// The most bytes of a message's deposit with the witness: the message and the 32 bytes
/// of the ephemeral key (spec/PROTOCOL.md §17.10). With its request's framing it fits
/// one sync message of 8 MiB (spec/PROTOCOL.md §16.2), so a message of any size the game
/// takes can be left with the witness.
pub const MAX_DEPOSIT: usize = MAX_MESSAGE + 32;

/// How long a seat that owes the next act waits for the other's last message before it
/// says it lacks it ([`Act::Lacking`]): the bytes go out once the act that signs them is
/// durable, so an honest sender's message is long there by then, even relayed.
pub const LACK_AFTER_MS: u64 = 60_000;

/// The side of the computations this player runs.
enum Party {
    White(Box<White>),
    Black(Box<Black>),
}

/// A message this side made, with the act that signs its hash.
struct Made {
    index: u64,
    bytes: Vec<u8>,
    /// `None` for White's last message taken back from his kept state: its act is
    /// signed already (it is kept only once it is), and an act is read only while owed.
    act: Option<Act>,
    /// Whether the node has had it to send since it was made.
    handed: bool,
}

/// What [`Player::take`] did with a message.
#[derive(Debug, PartialEq, Eq)]
pub enum Taken {
    /// Kept: the node stores it (before this side acts on it), then asks for duties.
    New,
    /// Held already, or no longer needed: nothing to store.
    Known,
}

/// One player's side of the computations.
pub struct Player {
    color: Color,
    game: [u8; 32],
    seed: [u8; 32],
    options: crate::stallmate::options::Options,
    party: Party,
    view: MoverView,
    /// The position of the next message to take or make.
    next: u64,
    /// The other's last message taken, the input of this side's next.
    received: Option<(u64, Vec<u8>)>,
    /// The other's next message, come before its hash was signed.
    early: Option<(u64, Vec<u8>)>,
    /// This side's last message.
    made: Option<Made>,
    /// What this side heard of the other's attempts in the running period.
    hearing: Vec<Heard>,
    /// Why this side stops the game: a message of the other's that does not serve, a
    /// `Done` that says what the computation did not tell, or a deposit that is not the
    /// message lacked.
    broken: Option<String>,
    /// Since when this side has owed the next act without the other's last message.
    lack_since: Option<u64>,
    /// The witness's stamp of the deposit this side owes, once it came.
    stamp: Option<Vec<u8>>,
    /// The public acts read so far, read on at each call ([`Player::posted`]).
    posted: Posted,
    /// What each computation told this side, in order: its view is made again from
    /// them after a restart ([`Player::resume`]).
    outcomes: Vec<Outcome>,
    /// The other side's base-OT message, which this side's OT keys come from.
    other_base: Option<Vec<u8>>,
    /// The position up to which the state was last handed out ([`Player::kept`]).
    kept_at: u64,
}

/// Whether a message at `index` of `len` bytes may come to the side playing `me`: one the
/// other side sends, within [`MAX_MESSAGE`]. The first checks of every message taken,
/// whether the player is made yet or not (`table.rs`).
pub(crate) fn from_the_other(me: Color, index: u64, len: usize) -> Result<(), MessageRefused> {
    if sender(index) == me {
        return Err(MessageRefused::OwnToSend(index));
    }
    if len > MAX_MESSAGE {
        return Err(MessageRefused::TooLarge { index, len });
    }
    Ok(())
}

impl Player {
    /// The player of `s`'s seat, once its own setups are known (after the coin).
    pub fn new(s: &Session<Duo>) -> Option<Player> {
        let army = s.own_setup_value(&setup_name())?.0;
        let seed = s.own_setup_value(&engine_name())?.0;
        let color = color(s.seat());
        let duo = s.engine().rules();
        let setup = Setup::from_seed(&army);
        let (rank, options) = (rank(setup), mpc_options(&duo.options));
        let party = match color {
            Color::White => Party::White(Box::new(White::new(seed, rank, options))),
            Color::Black => Party::Black(Box::new(Black::new(seed, rank, options))),
        };
        Some(Player {
            color,
            game: s.engine().terms().game().0.0,
            seed,
            options: duo.options,
            party,
            view: MoverView::new(color, setup, duo.options),
            next: 0,
            received: None,
            early: None,
            made: None,
            hearing: vec![],
            broken: None,
            lack_since: None,
            stamp: None,
            posted: Posted::default(),
            outcomes: vec![],
            other_base: None,
            kept_at: 0,
        })
    }

    /// This side's state once a computation is finished here and the act that ends it
    /// is signed (in the session: the node writes the state with that act or after it),
    /// if newer than the one last handed out: the position of the first message it does
    /// not cover, and its bytes (`kept.rs`). Every message before that position is then
    /// needed by nobody here: the node forgets them once the state is stored.
    pub fn kept(&mut self, s: &Session<Duo>) -> Option<(u64, Vec<u8>)> {
        let posted = self.posted(s);
        self.follow_posted(&posted);
        let n = self.next;
        let first = BASE_MESSAGES + COMPUTATION_MESSAGES;
        let between = n >= first && (n - BASE_MESSAGES).is_multiple_of(COMPUTATION_MESSAGES);
        if !between || n <= self.kept_at || self.broken.is_some() {
            return None;
        }
        let side = match &self.party {
            Party::White(w) => w.kept(),
            Party::Black(b) => b.kept(),
        }?;
        let base = self.other_base.clone()?;
        // White's G2, which he may still owe Black (again, or to the witness).
        let made = self
            .made
            .as_ref()
            .filter(|m| m.index + 1 == n && sender(m.index) == self.color)
            .map(|m| (m.index, m.bytes.clone()));
        self.kept_at = n;
        let kept = Kept {
            next: n,
            base,
            made,
            outcomes: self.outcomes.clone(),
            side,
        };
        Some((n, kept.encode()))
    }

    /// This side as it was when it handed out `kept` ([`Player::kept`]), its view made
    /// again from what each computation told it; the messages from that position on
    /// are then taken as they come. Refused, with why, when the bytes do not read.
    pub fn resume(&mut self, s: &Session<Duo>, kept: &[u8]) -> Result<(), ResumeError> {
        let k = Kept::decode(kept).ok_or(ResumeError::Unreadable)?;
        let mut fresh = Player::new(s).ok_or(ResumeError::NotStarted)?;
        match &mut fresh.party {
            Party::White(w) => w.resume(&k.base, &k.side),
            Party::Black(b) => b.resume(&k.base, &k.side),
        }
        .map_err(ResumeError::Side)?;
        let posted = fresh.posted(s);
        for (run, o) in k.outcomes.iter().enumerate() {
            fresh.told(run as u64, o, &posted);
        }
        fresh.outcomes = k.outcomes;
        fresh.next = k.next;
        fresh.kept_at = k.next;
        fresh.other_base = Some(k.base);
        fresh.made = k.made.map(|(index, bytes)| Made {
            index,
            bytes,
            act: None,
            handed: false,
        });
        *self = fresh;
        Ok(())
    }

    /// The public acts of `s`'s main line, read on from where the last call stopped.
    fn posted(&mut self, s: &Session<Duo>) -> Posted {
        self.posted.follow(s.engine());
        self.posted.clone()
    }

    /// This player's view of the game: his army, his answers, what he heard.
    pub fn view(&self) -> &MoverView {
        &self.view
    }

    /// Why this side halts, if it does.
    pub fn broken(&self) -> Option<&str> {
        self.broken.as_deref()
    }

    /// The position of the next message this side takes or makes.
    pub fn next(&self) -> u64 {
        self.next
    }

    /// Takes the other's message at `index`. Only the next one is kept, and only if
    /// its hash, once signed, is the message's: anything else is refused and changes
    /// nothing.
    pub fn take(
        &mut self,
        s: &Session<Duo>,
        index: u64,
        bytes: Vec<u8>,
    ) -> Result<Taken, MessageRefused> {
        from_the_other(self.color, index, bytes.len())?;
        // Its own messages signed before (after a restart) are made again first.
        let posted = self.posted(s);
        self.follow_posted(&posted);
        if index < self.next
            || self
                .early
                .as_ref()
                .is_some_and(|e| e.0 == index && e.1 == bytes)
        {
            return Ok(Taken::Known);
        }
        if index != self.next {
            return Err(MessageRefused::NotNext {
                index,
                next: self.next,
            });
        }
        if let Some(h) = posted.hash(index)
            && step_hash(&self.game, index, &bytes) != h
        {
            return Err(MessageRefused::NotSigned(index));
        }
        self.early = Some((index, bytes));
        self.follow_posted(&posted);
        Ok(Taken::New)
    }

    /// Follows the public acts: makes again each own message whose hash is signed (after
    /// a restart), and takes each of the other's once its hash is.
    pub fn follow(&mut self, s: &Session<Duo>) {
        let posted = self.posted(s);
        self.follow_posted(&posted);
    }

    fn follow_posted(&mut self, posted: &Posted) {
        while self.broken.is_none() {
            let i = self.next;
            let Some(hash) = posted.hash(i) else {
                break;
            };
            if sender(i) == self.color {
                if !self.made_now(i, posted) {
                    break;
                }
                let ours = self
                    .made
                    .as_ref()
                    .map(|m| step_hash(&self.game, i, &m.bytes));
                if ours != Some(hash) {
                    // Its own signed hash is not what its seed makes: the store is not
                    // this seat's (nothing honest gets here); stop rather than sign on.
                    self.broken = Some(format!(
                        "this side's own message {i} is not the one its signed hash names"
                    ));
                    break;
                }
            } else {
                let Some((j, bytes)) = self.early.take() else {
                    break;
                };
                if j != i || step_hash(&self.game, i, &bytes) != hash {
                    // Not the message signed: the sender may send the right one again.
                    break;
                }
                if let Err(e) = self.consume(i, bytes, posted) {
                    self.broken = Some(e.to_string());
                    break;
                }
            }
            self.next += 1;
        }
    }

    /// The act this side owes now as its duty, if any: its next message's hash (made
    /// now), its `Open` once the game has ended, a `Halt` when it cannot go on, a
    /// `Lacking` when the other's last message has not come [`LACK_AFTER_MS`] after this
    /// side owes the next act, the `Deposited` of a message it owes the witness once the
    /// stamp came. Choosing an attempt is not a duty: a person or a bot does it.
    pub fn duty(&mut self, s: &Session<Duo>, now: u64) -> Option<Command> {
        let posted = self.posted(s);
        self.follow_posted(&posted);
        let state = s.engine().state()?;
        let owed = state.owed()?;
        let mine = owes(s, state);
        let act = |a: &Act| Some(Command::act(acts::encode(a)));
        match self.lacking(s) {
            Some(_) if self.broken.is_none() => {
                let since = *self.lack_since.get_or_insert(now);
                return (now >= since.saturating_add(LACK_AFTER_MS))
                    .then(|| Command::act(acts::encode(&Act::Lacking)));
            }
            _ => self.lack_since = None,
        }
        // A stamp serves the one deposit owed; the next lacked message needs its own.
        if !matches!(owed, Owed::Deposit(_)) {
            self.stamp = None;
        }
        match owed {
            Owed::Open(c) if c == self.color => return act(&Act::Open),
            Owed::Open(_) => return None,
            _ if self.broken.is_some() && mine => return act(&Act::Halt),
            Owed::Deposit(_) if mine => {
                let stamp = self.stamp.clone()?;
                return act(&Act::Deposited(stamp));
            }
            Owed::Step(i) if sender(i) == self.color && self.next == i => {}
            _ => return None,
        }
        if !self.made_now(self.next, &posted) {
            return Some(Command::act(acts::encode(&Act::Halt)));
        }
        self.made
            .as_ref()
            .and_then(|m| m.act.as_ref())
            .map(|a| Command::act(acts::encode(a)))
    }

    /// When [`Player::duty`] will say `Lacking`, if this side waits for the other's
    /// last message.
    pub fn due_at(&self) -> Option<u64> {
        self.lack_since.map(|t| t.saturating_add(LACK_AFTER_MS))
    }

    /// The other's last message, if this side owes the next act, lacks that message and
    /// may still say so.
    fn lacking(&self, s: &Session<Duo>) -> Option<u64> {
        let state = s.engine().state()?;
        let owed = state.owed()?;
        let mine = owes(s, state);
        state
            .lackable(owed)
            .filter(|&last| mine && self.next <= last)
    }

    /// This side's message the other lacks, sealed to him for the witness, while its
    /// deposit is owed and unstamped.
    pub fn deposit_out(&self, s: &Session<Duo>) -> Option<sealed_protocol::deposit::Deposit> {
        let state = s.engine().state()?;
        let Some(Owed::Deposit(i)) = state.owed() else {
            return None;
        };
        let m = self.made.as_ref().filter(|m| m.index == i)?;
        if sender(i) != self.color || self.stamp.is_some() {
            return None;
        }
        let duo = s.engine().rules();
        let to = &duo.keys[(!self.color).idx()];
        Some(sealed_protocol::deposit::seal(duo.game, &m.bytes, to))
    }

    /// Keeps the witness's stamp if it is of the deposit this side owes.
    pub fn take_stamp(&mut self, s: &Session<Duo>, statement: &[u8]) -> bool {
        let Some(d) = self.deposit_out(s) else {
            return false;
        };
        let ok = s.engine().rules().stamp(statement) == Ok(d.hash);
        if ok {
            self.stamp = Some(statement.to_vec());
        }
        ok
    }

    /// The deposit this side waits for: a message it lacks, said so, whose sender has
    /// posted the stamp of its deposit. Its position and the deposit's hash.
    pub fn deposit_wanted(&self, s: &Session<Duo>) -> Option<(u64, Hash)> {
        let state = s.engine().state()?;
        let owed = state.owed()?;
        let mine = owes(s, state);
        let last = state.steps.checked_sub(1)?;
        if !mine
            || !matches!(owed, Owed::Attempt(_) | Owed::Step(_))
            || state.lacked != Some(last)
            || self.next > last
        {
            return None;
        }
        let posted = Posted::of_engine(s.engine());
        posted
            .deposits
            .iter()
            .rev()
            .find(|d| d.0 == last)
            .map(|d| (last, Hash(d.1)))
    }

    /// The deposit waited for does not serve: this side halts.
    pub fn deposit_false(&mut self, why: String) {
        self.broken.get_or_insert(why);
    }

    /// This side's last message for the node to send, once its hash is signed and while
    /// the other has not answered it: only if not handed out yet, or `again` (the other
    /// reconnected, or has waited long).
    pub fn outgoing(&mut self, s: &Session<Duo>, again: bool) -> Option<(u64, Vec<u8>)> {
        let posted = self.posted(s);
        self.follow_posted(&posted);
        let m = self.made.as_mut()?;
        let signed = posted.hash(m.index).is_some();
        let answered = posted.steps.len() as u64 > m.index + 1;
        if !signed || answered || (m.handed && !again) || s.engine().is_over() {
            return None;
        }
        m.handed = true;
        Some((m.index, m.bytes.clone()))
    }

    /// Makes this side's message `i` unless it is the one made last (making is a step
    /// of the computation: never twice); whether it is made. A failure breaks this side.
    fn made_now(&mut self, i: u64, posted: &Posted) -> bool {
        if self.made.as_ref().is_some_and(|m| m.index == i) {
            return true;
        }
        match self.make(i, posted) {
            Ok((bytes, act)) => {
                self.made = Some(Made {
                    index: i,
                    bytes,
                    act: Some(act),
                    handed: false,
                });
                true
            }
            Err(e) => {
                self.broken = Some(e.to_string());
                false
            }
        }
    }

    /// The attempt of computation `run` as this side puts it in: its own, opened from its
    /// commitment, when it moves; 0 when it does not, and for the start.
    fn attempt(&self, run: u64, posted: &Posted) -> Result<u16, StepError> {
        if run == 0 {
            return Ok(0);
        }
        let (mover, c) = posted.commitment(run).ok_or(StepError::NoCommitment(run))?;
        if mover != self.color {
            return Ok(0);
        }
        open(&self.seed, &self.game, run, &c).ok_or(StepError::OpensToNothing(run))
    }

    /// Makes this side's message `i`, with its act.
    fn make(&mut self, i: u64, posted: &Posted) -> Result<(Vec<u8>, Act), StepError> {
        // A computation's first message (Black's E1) reads nothing of the other's: after
        // a restart from the kept state, there is no message before it to hold.
        let opens_run =
            i >= BASE_MESSAGES && (i - BASE_MESSAGES).is_multiple_of(COMPUTATION_MESSAGES);
        let received = match &self.received {
            Some((j, b)) if *j + 1 == i => b.as_slice(),
            _ if i == 0 || (opens_run && i > BASE_MESSAGES) => &[],
            _ => return Err(StepError::NeedsOther(i)),
        };
        let err = |why| StepError::Computation { index: i, why };
        if i < BASE_MESSAGES {
            let bytes = match &mut self.party {
                Party::Black(b) => b.base_message(),
                Party::White(w) => {
                    self.other_base = Some(received.to_vec());
                    w.base(received).map_err(err)?
                }
            };
            let act = Act::Step(Hash(step_hash(&self.game, i, &bytes)));
            return Ok((bytes, act));
        }
        let (run, p) = (
            (i - BASE_MESSAGES) / COMPUTATION_MESSAGES,
            (i - BASE_MESSAGES) % COMPUTATION_MESSAGES,
        );
        let attempt = self.attempt(run, posted)?;
        let circuits = super::circuits()?;
        let (bytes, outcome) = match (&mut self.party, p) {
            (Party::Black(b), 0) => {
                if run == 0 {
                    self.other_base = Some(received.to_vec());
                    b.base_keys(received).map_err(err)?;
                }
                (b.ask(attempt).map_err(err)?, None)
            }
            (Party::White(w), 1) => (w.answer(circuits, received, attempt).map_err(err)?, None),
            (Party::Black(b), 2) => (b.evaluate(circuits, received).map_err(err)?, None),
            (Party::White(w), 3) => {
                let (g2, outcome) = w.decode(received).map_err(err)?;
                (g2, Some(outcome))
            }
            _ => return Err(StepError::OthersMessage(i)),
        };
        let hash = Hash(step_hash(&self.game, i, &bytes));
        let act = match outcome {
            Some(o) => {
                let (made, capture, ending) = claims(&o);
                self.told(run, &o, posted);
                self.outcomes.push(o);
                Act::Done(Done {
                    hash,
                    made,
                    capture,
                    ending,
                })
            }
            None => Act::Step(hash),
        };
        Ok((bytes, act))
    }

    /// Takes the other's message `i`, its hash checked: Black reads each G2 at once and
    /// holds White's `Done` against what it told him.
    fn consume(&mut self, i: u64, bytes: Vec<u8>, posted: &Posted) -> Result<(), StepError> {
        let ends_run = i >= BASE_MESSAGES && (i - BASE_MESSAGES) % COMPUTATION_MESSAGES == 3;
        if let (Party::Black(b), true) = (&mut self.party, ends_run) {
            let run = (i - BASE_MESSAGES) / COMPUTATION_MESSAGES;
            let outcome = b
                .finish(&bytes)
                .map_err(|why| StepError::Computation { index: i, why })?;
            let said = posted.done(run).map(|d| (d.made, d.capture, d.ending));
            if said != Some(claims(&outcome)) {
                return Err(StepError::FalseDone(run));
            }
            self.told(run, &outcome, posted);
            self.outcomes.push(outcome);
        }
        self.received = Some((i, bytes));
        Ok(())
    }

    /// What computation `run` told this side, into its view.
    fn told(&mut self, run: u64, outcome: &Outcome, posted: &Posted) {
        let Outcome::Attempt { made, answer } = outcome else {
            return;
        };
        let Some((mover, _)) = posted.commitment(run) else {
            return;
        };
        if mover == self.color {
            let attempt = self.attempt(run, posted).ok().and_then(from_item);
            if let Some(a) = attempt {
                self.view.record(a, told::answer(answer, &self.options));
            }
        } else {
            self.hearing.extend(told::heard(answer, &self.options));
            if *made {
                let heard = std::mem::take(&mut self.hearing);
                self.view.hear(&heard);
            }
        }
    }
}

/// What a computation told, as a `Done` says it: a move made, a capture, an ending.
pub fn claims(outcome: &Outcome) -> (bool, bool, Option<crate::stallmate::BoardEnd>) {
    match outcome {
        Outcome::Started { .. } => (false, false, None),
        Outcome::Attempt { made, answer } => (
            *made,
            *made && answer.capture,
            if *made { ending(answer) } else { None },
        ),
    }
}
