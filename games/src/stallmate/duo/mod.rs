//! Secret Stallmate between the two players alone (spec/GAMES.md §5.15): no referee
//! seat; each attempt is judged by a computation the two players run together
//! (`sealed_mpc::play`: White garbles, Black evaluates), and the transcript keeps the
//! hash of every message of it, signed by its sender, and each attempt's commitment.
//! At the end both reveal their setups — the army and the seed every message was made
//! from — and the audit makes every message again ([`audit`]).
//!
//! Live, only the order is judged ([`State::owed`]): who owes the next message, and the
//! mover's commitment before each attempt's computation. Whoever owes the next act and
//! lets the time pass loses on time (spec/PROTOCOL.md §17.7): an abort is never free.
//!
//! # Files
//!
//! - [`acts`] — the public acts and their encoding;
//! - [`circuits`] — the process's circuits, read once from the files of this build;
//! - [`item`] — an attempt as the computation's item, the answer's ending, the options;
//! - [`posted`] — what the public acts hold of the computations, for the audit and a
//!   player's table alike;
//! - [`audit`] — the audit: every message's hash, every commitment, every `Done`;
//! - [`clear`] — the game in the clear once both have opened: the attempts from their
//!   commitments, the referee's rules replayed (for the audit and a finished board);
//! - [`told`] — what a computation told a side, in the game's words;
//! - [`player`] — one player's side of the computations at his own table: his messages
//!   made, the other's taken, his view kept;
//! - [`table`] — the table a node holds: the session, the player beside it, the face.

pub mod acts;
pub mod audit;
pub mod circuits;
pub mod clear;
pub mod errors;
pub mod item;
pub mod kept;
pub mod player;
pub mod posted;
pub mod table;
pub mod told;

pub use circuits::{CircuitsError, circuits};
pub use errors::{MessageRefused, ResumeError, StepError};
pub use table::DESCRIPTOR;

use sealed_protocol::hash::Hash;
use sealed_protocol::hidden::{Audit, Revealed};
use sealed_protocol::ids::{GameId, Name, Seat};
use sealed_protocol::keys::PublicKey;
use sealed_protocol::outcome::{Outcome, SeatResult};
use sealed_protocol::proposal::{Terms, is_version_2};
use sealed_protocol::rules::{ActCtx, Applied, Moves, OptionError, Rules, SetupSpec, Violation};
use sealed_protocol::time::TimeControl;
use sealed_protocol::witness::{SignedStatement, Statement};

use sealed_mpc::chain::files::MANIFEST_SHA256;
use sealed_mpc::play::game::{MAX_EARLIER, MAX_WINDOW};

use self::acts::{Act, Done};
use super::ending::{self, Ending};
use super::options::Options;
use super::peer::{seat, setup_name};
use crate::chess::Color;

/// The variant's name in proposals.
pub const VARIANT: &str = "stallmate-duo";

/// The name of each player's private setup whose value seeds his side of every
/// computation.
pub fn engine_name() -> Name {
    Name::new("engine").expect("a valid name")
}

/// The most plies a game may last, and its ply limit when the terms name none: a mover's
/// window then holds at most 501 positions, so that with [`MAX_TRIES`] every
/// computation's circuit stays within what one message carries (about 221,000 AND gates,
/// 7.1 MB of rows against [`player::MAX_MESSAGE`]'s 7 MiB: spec/GAMES.md §5.15).
pub const MAX_PLIES: u32 = 1000;
/// The most attempts one period may hold: far more than the moves a side can try, so
/// only a flood is refused, and a computation's earlier attempts stay within
/// `sealed_mpc::play::game::MAX_EARLIER`.
pub const MAX_TRIES: usize = MAX_EARLIER + 1;
const _: () = assert!((MAX_PLIES as usize).div_ceil(2) < MAX_WINDOW);

/// The option naming the circuits the computations garble: the SHA-256 of
/// spec/circuits/MANIFEST, in hex. The terms must name the files this build holds, so a
/// game on other circuits is another game, refused before anything is committed.
pub const CIRCUITS: &str = "circuits";

/// Messages before the first computation: the base oblivious transfers' two.
pub const BASE_MESSAGES: u64 = 2;
/// Messages of one computation: E1, G1, E2, G2.
pub const COMPUTATION_MESSAGES: u64 = 4;

/// The rules of one game: its options, and what a message left with the witness is
/// checked against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Duo {
    /// The agreed options.
    pub options: Options,
    /// The game.
    pub game: GameId,
    /// The witness the terms name, whose stamp a [`Act::Deposited`] carries.
    pub witness: PublicKey,
    /// Each player's key (White, Black): a deposit is sealed to its receiver's.
    pub keys: [PublicKey; 2],
}

/// What the next act must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owed {
    /// The mover's commitment to his next attempt.
    Attempt(Color),
    /// The message at this position, by its sender: Black the even positions, White
    /// the odd ones. The last of a computation is White's `Done`.
    Step(u64),
    /// After the end on the board or a halt: this player's `Open`, with his setups.
    Open(Color),
    /// The receiver of this message said he lacks it: its sender leaves it with the
    /// witness ([`Act::Deposited`]).
    Deposit(u64),
}

/// The public state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// Messages whose hash is posted.
    pub steps: u64,
    /// Computations finished (the start is the first).
    pub computations: u64,
    /// Whether the mover has committed to the attempt of the next computation.
    pub committed: bool,
    /// Who is to move.
    pub to_move: Color,
    /// Moves made.
    pub plies: u32,
    /// The mover's attempts so far in this period (since the last move).
    pub tries: u32,
    /// Moves that captured.
    pub captures: u32,
    /// How the game ended on the board, as White's `Done` said.
    pub ending: Option<Ending>,
    /// Who halted the game, if one did.
    pub halted: Option<Color>,
    /// Which players have opened their setups (White first), once the game has ended
    /// on the board or by a halt.
    pub opened: [bool; 2],
    /// The last message its receiver said he lacked ([`Act::Lacking`]): once a message.
    pub lacked: Option<u64>,
    /// Whether that message's deposit is still owed.
    pub deposit_owed: bool,
}

impl State {
    /// What the next act must be, while the game runs.
    pub fn owed(&self) -> Option<Owed> {
        if self.ending.is_some() || self.halted.is_some() {
            return [Color::White, Color::Black]
                .into_iter()
                .find(|c| !self.opened[c.idx()])
                .map(Owed::Open);
        }
        if self.deposit_owed
            && let Some(i) = self.lacked
        {
            return Some(Owed::Deposit(i));
        }
        let in_run = self
            .steps
            .checked_sub(BASE_MESSAGES)
            .map(|n| n % COMPUTATION_MESSAGES);
        // Between computations (the start needs no commitment) the mover commits first.
        if in_run == Some(0) && self.computations > 0 && !self.committed {
            return Some(Owed::Attempt(self.to_move));
        }
        Some(Owed::Step(self.steps))
    }

    /// The message whose bytes the seat owing `owed` needs first, if the other player
    /// sent it and its receiver may still say he lacks it: the last one posted.
    pub fn lackable(&self, owed: Owed) -> Option<u64> {
        let owing = match owed {
            Owed::Step(i) => sender(i),
            Owed::Attempt(mover) => mover,
            Owed::Open(_) | Owed::Deposit(_) => return None,
        };
        let last = self.steps.checked_sub(1)?;
        (sender(last) != owing && self.lacked != Some(last)).then_some(last)
    }

    /// Whether the message at `index` ends a computation.
    fn ends_computation(index: u64) -> bool {
        index >= BASE_MESSAGES && (index - BASE_MESSAGES) % COMPUTATION_MESSAGES == 3
    }
}

/// Who sends the message at `index`.
pub fn sender(index: u64) -> Color {
    if index.is_multiple_of(2) {
        Color::Black
    } else {
        Color::White
    }
}

impl Rules for Duo {
    type State = State;
    type Act = Act;

    fn from_terms(terms: &Terms) -> Result<Self, OptionError> {
        if terms.players() != 2 || terms.referee().is_some() || terms.seat_count() != 2 {
            return Err(OptionError(
                "stallmate-duo is for two players and no referee".into(),
            ));
        }
        // An abort must cost whoever owes the next message: only a witness's times
        // prove who that was (spec/GAMES.md §5.15).
        let timed = matches!(TimeControl::of(terms.proposal()), Ok(Some(_)));
        if !is_version_2(terms.version()) || terms.witness().is_none() || !timed {
            return Err(OptionError(
                "stallmate-duo needs a witness (protocol version 2) and a time control".into(),
            ));
        }
        let (circuits, named): (Vec<_>, Vec<_>) = terms
            .proposal()
            .rule_options()
            .into_iter()
            .partition(|(k, _)| k.as_str() == CIRCUITS);
        match circuits.as_slice() {
            [(_, v)] if v == MANIFEST_SHA256 => {}
            [] => {
                return Err(OptionError(format!(
                    "stallmate-duo: the terms name no circuits (option {CIRCUITS}: the SHA-256 \
                     of spec/circuits/MANIFEST, {MANIFEST_SHA256})"
                )));
            }
            [(_, v), ..] => {
                return Err(OptionError(format!(
                    "stallmate-duo: the terms name the circuits {v:?}; this node holds \
                     {MANIFEST_SHA256} only"
                )));
            }
        }
        let mut options = Options::from_proposal(&named)?;
        if !named.iter().any(|(k, _)| k.as_str() == "ply-limit") {
            options.ply_limit = Some(MAX_PLIES);
        }
        if options.ply_limit.is_none_or(|n| n > MAX_PLIES) {
            return Err(OptionError(format!(
                "stallmate-duo: ply-limit is a number of moves from 1 to {MAX_PLIES}, so that \
                 every computation fits one message"
            )));
        }
        let key = |c: Color| terms.key(seat(c)).copied();
        let (Some(white), Some(black)) = (key(Color::White), key(Color::Black)) else {
            return Err(OptionError("stallmate-duo: a player without a key".into()));
        };
        // The witness's key was checked with the proposal (PROTOCOL §17.2).
        let witness = terms
            .witness()
            .and_then(|w| PublicKey::from_bytes(&w.key).ok())
            .ok_or_else(|| OptionError("stallmate-duo: the witness's key is no key".into()))?;
        Ok(Duo {
            options,
            game: terms.game(),
            witness,
            keys: [white, black],
        })
    }

    fn setups(&self) -> Vec<SetupSpec> {
        // The army as with a referee; the engine seed the same way, so that neither
        // player chooses his own alone and both open at the end.
        [Color::White, Color::Black]
            .into_iter()
            .flat_map(|c| {
                [setup_name(), engine_name()].map(|name| SetupSpec {
                    owner: seat(c),
                    name,
                    contributor: seat(!c),
                })
            })
            .collect()
    }

    fn start(&self, _coin: &Hash) -> State {
        State {
            steps: 0,
            computations: 0,
            committed: false,
            to_move: Color::White,
            plies: 0,
            tries: 0,
            captures: 0,
            ending: None,
            halted: None,
            opened: [false, false],
            lacked: None,
            deposit_owed: false,
        }
    }

    fn decode_act(&self, bytes: &[u8]) -> Result<Act, Violation> {
        acts::decode(bytes)
    }

    fn to_act(&self, state: &State) -> Option<Seat> {
        match state.owed()? {
            Owed::Attempt(mover) => Some(seat(mover)),
            Owed::Step(i) => Some(seat(sender(i))),
            Owed::Open(c) => Some(seat(c)),
            Owed::Deposit(i) => Some(seat(sender(i))),
        }
    }

    fn apply(
        &self,
        state: &State,
        _seat: Seat,
        act: &Act,
        ctx: &ActCtx<'_>,
    ) -> Result<Applied<State>, Violation> {
        let owed = state.owed().ok_or("the game is over")?;
        let mut next = state.clone();
        match (owed, act) {
            (Owed::Open(c), Act::Open) => {
                let army = setup_name();
                let engine = engine_name();
                if !(ctx.opened_setups.contains(&army) && ctx.opened_setups.contains(&engine)) {
                    return Err("the Open act opens the army and the engine seed in its \
                                envelope"
                        .into());
                }
                next.opened[c.idx()] = true;
                let mut applied = Applied::state(next);
                if applied.state.owed().is_none() {
                    applied.outcome = Some(self.outcome(&applied.state));
                }
                Ok(applied)
            }
            (Owed::Open(_), _) => Err("the game is over: each player opens his setups".into()),
            (_, Act::Open) => Err("the setups are opened once the game has ended".into()),
            (owed, Act::Halt) => {
                let by = match owed {
                    Owed::Attempt(mover) => mover,
                    Owed::Step(i) | Owed::Deposit(i) => sender(i),
                    Owed::Open(_) => unreachable!("matched above"),
                };
                next.halted = Some(by);
                Ok(Applied::state(next))
            }
            (owed, Act::Lacking) => {
                let Some(last) = state.lackable(owed) else {
                    return Err("nothing to lack: the last message is his own, or was \
                                lacked once already"
                        .into());
                };
                next.lacked = Some(last);
                next.deposit_owed = true;
                Ok(Applied::state(next))
            }
            (Owed::Deposit(_), Act::Deposited(stamp)) => {
                self.stamp(stamp)?;
                next.deposit_owed = false;
                Ok(Applied::state(next))
            }
            (Owed::Deposit(_), _) => Err("the lacked message is owed to the witness".into()),
            (_, Act::Deposited(_)) => Err("no message is lacked".into()),
            (Owed::Attempt(_), Act::Attempt(_)) => {
                // Far more than the moves a side can try: only a flood is refused, a
                // computation fits one message, and a hostile transcript's audit stays
                // bounded.
                if state.tries as usize >= MAX_TRIES {
                    return Err("too many attempts in one period".into());
                }
                next.committed = true;
                next.tries += 1;
                Ok(Applied::state(next))
            }
            (Owed::Attempt(_), _) => Err("the mover commits to his attempt first".into()),
            (Owed::Step(_), Act::Attempt(_)) => Err("an attempt's computation is running".into()),
            (Owed::Step(i), Act::Step(_)) => {
                if State::ends_computation(i) {
                    return Err("a computation's last message comes with what it told".into());
                }
                next.steps += 1;
                Ok(Applied::state(next))
            }
            (Owed::Step(i), Act::Done(done)) => {
                if !State::ends_computation(i) {
                    return Err("a computation ends only with its last message".into());
                }
                self.done(state, next, done)
            }
        }
    }

    fn setups_open_in_play(&self) -> bool {
        true
    }

    fn setups_to_open(&self, _state: &State, _seat: Seat, act: &Act) -> Vec<Name> {
        match act {
            Act::Open => vec![setup_name(), engine_name()],
            _ => vec![],
        }
    }

    fn audit(&self, revealed: &Revealed<'_>) -> Audit {
        audit::audit(self, revealed)
    }

    /// Endings made concurrently, and the verdict with faults, as with a referee
    /// (§5.12): a resignation is a forfeit, a player's proven fault −10 for him.
    fn combine(&self, players: u8, endings: &[Outcome]) -> Outcome {
        super::peer::Stallmate::new(self.options).combine(players, endings)
    }

    fn on_time(&self, players: u8, late: Seat) -> Outcome {
        super::peer::Stallmate::new(self.options).on_time(players, late)
    }

    /// A move is a chess move (draft 10, spec/GAMES.md §5.15 "Time"): the attempts it
    /// took, and both players' messages, are acts but not moves, so that illegal
    /// attempts and computations earn no time under "N moves in D", and the mover's
    /// waits until his move is made are one wait under a per-move pace. White moves
    /// first and the moves alternate. Once the game has ended on the board or halted,
    /// nobody's move is under way: each `Open` is a wait of its own.
    fn moves(&self, state: &State) -> Option<Moves> {
        let plies = u64::from(state.plies);
        let on = state.ending.is_none() && state.halted.is_none();
        Some(Moves {
            made: vec![plies.div_ceil(2), plies / 2],
            mover: on.then(|| seat(state.to_move)),
        })
    }

    fn adjudicate(
        &self,
        players: u8,
        outcome: Option<&Outcome>,
        faulty: &[Seat],
    ) -> Option<Outcome> {
        super::peer::Stallmate::new(self.options).adjudicate(players, outcome, faulty)
    }
}

impl Duo {
    /// The deposit a [`Act::Deposited`] says the witness holds: its stamp must be the
    /// witness's, of this game. What the deposit holds is the audit's to check.
    pub fn stamp(&self, bytes: &[u8]) -> Result<Hash, Violation> {
        let s = SignedStatement::from_bytes(bytes, self.game, &self.witness, 2)
            .map_err(|e| Violation(format!("the deposit's stamp: {e}")))?;
        match s.statement {
            Statement::Stamp(stamp) => Ok(stamp.deposit),
            Statement::Ledger(_) => Err("the deposit's stamp is a ledger".into()),
        }
    }

    /// White's `Done`: the computation is over, and what it told both moves the game on.
    fn done(
        &self,
        state: &State,
        mut next: State,
        done: &Done,
    ) -> Result<Applied<State>, Violation> {
        let start = state.computations == 0;
        if start && (done.made || done.capture || done.ending.is_some()) {
            return Err("the start makes no move".into());
        }
        if !done.made && (done.capture || done.ending.is_some()) {
            return Err("no capture and no ending without a move".into());
        }
        next.steps += 1;
        next.computations += 1;
        next.committed = false;
        if done.made {
            next.tries = 0;
            next.plies = next.plies.saturating_add(1);
            next.captures = next.captures.saturating_add(u32::from(done.capture));
            next.to_move = !state.to_move;
        }
        // An ending on the board ends the game once both have opened their setups.
        next.ending = done.ending.map(Ending::Board);
        Ok(Applied::state(next))
    }

    /// The result once both have opened: the ending's points (§5.6), or for a halt none
    /// of its own — 0 each, which the audit's findings then decide (it always has one
    /// for a halted game).
    fn outcome(&self, state: &State) -> Outcome {
        match (&state.ending, state.halted) {
            (Some(e), _) => ending::outcome(e),
            (None, by) => Outcome {
                results: vec![SeatResult::Score(0); 2],
                reason: by.map_or_else(|| "halted".into(), |c| format!("halted by {c}")),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use sealed_protocol::ids::{ChainId, EnvRef};
    use sealed_protocol::keys::SecretKey;
    use sealed_protocol::witness::{Ledger, Stamp};

    use super::*;
    use crate::stallmate::ending::BoardEnd;

    fn key(n: u8) -> SecretKey {
        SecretKey::from_seed(&[n; 32])
    }

    fn rules() -> Duo {
        Duo {
            options: Options::default(),
            game: GameId(Hash([5; 32])),
            witness: key(9).public(),
            keys: [key(1).public(), key(2).public()],
        }
    }

    /// A stamp's bytes, of `game`, signed by `by`.
    fn stamp(game: GameId, by: u8) -> Vec<u8> {
        let s = Stamp {
            game,
            deposit: Hash([3; 32]),
            at: 1_000,
        };
        Statement::Stamp(s).sign(&key(by)).to_bytes()
    }

    /// Applies `act` as `to_act`'s, as the engine would.
    fn step(state: &State, act: &Act) -> Result<Applied<State>, Violation> {
        step_opening(state, act, &[])
    }

    /// As [`step`], with these setups opened in the act's envelope.
    fn step_opening(
        state: &State,
        act: &Act,
        opened: &[Name],
    ) -> Result<Applied<State>, Violation> {
        let r = rules();
        let seat = r.to_act(state).ok_or("nobody is to act")?;
        let coin = Hash::ZERO;
        let ctx = ActCtx {
            at: EnvRef {
                chain: ChainId::public(seat),
                seq: 0,
            },
            clock: 0,
            coin: &coin,
            opened_slots: &[],
            shown_slots: &[],
            held_slots: &[],
            opened_values: &[],
            opened_setups: opened,
            committed_values: &[],
            draws: &[],
        };
        r.apply(state, seat, act, &ctx)
    }

    fn done(made: bool, capture: bool, ending: Option<BoardEnd>) -> Act {
        Act::Done(Done {
            hash: Hash::ZERO,
            made,
            capture,
            ending,
        })
    }

    #[test]
    fn the_order_is_base_start_then_commitment_and_four_messages() {
        let mut s = rules().start(&Hash::ZERO);
        let h = Act::Step(Hash::ZERO);
        // Base OTs, Black then White; the start's four messages, no commitment.
        for (i, who) in [(0, 1u8), (1, 0), (2, 1), (3, 0), (4, 1)] {
            assert_eq!(rules().to_act(&s), Some(Seat(who)), "message {i}");
            assert!(
                step(&s, &Act::Attempt(Hash::ZERO)).is_err(),
                "no commitment at {i}"
            );
            s = step(&s, &h).expect("in order").state;
        }
        assert!(step(&s, &h).is_err(), "the start's last message is a Done");
        assert!(
            step(&s, &done(true, false, None)).is_err(),
            "the start makes no move"
        );
        s = step(&s, &done(false, false, None))
            .expect("the start")
            .state;
        // White commits, then the four messages; a move made passes the turn to Black.
        assert_eq!(s.owed(), Some(Owed::Attempt(Color::White)));
        assert!(step(&s, &h).is_err(), "the commitment comes first");
        s = step(&s, &Act::Attempt(Hash::ZERO)).expect("commits").state;
        for _ in 0..3 {
            assert!(step(&s, &Act::Attempt(Hash::ZERO)).is_err());
            s = step(&s, &h).expect("in order").state;
        }
        assert!(
            step(&s, &done(false, true, None)).is_err(),
            "no capture without a move"
        );
        s = step(&s, &done(true, false, None)).expect("a move").state;
        assert_eq!(s.owed(), Some(Owed::Attempt(Color::Black)));
        assert_eq!(s.plies, 1);
        // Black halts: each player then owes his setups, White first.
        let halted = step(&s, &Act::Halt).expect("a halt");
        assert!(halted.outcome.is_none());
        assert_eq!(halted.state.halted, Some(Color::Black));
        let s = halted.state;
        assert_eq!(s.owed(), Some(Owed::Open(Color::White)));
        let end = open_both(&s);
        assert_eq!(end.outcome.expect("over").reason, "halted by black");
    }

    /// White, then Black, opens his setups; the second ends the game.
    fn open_both(s: &State) -> Applied<State> {
        let both = [setup_name(), engine_name()];
        assert!(step(s, &Act::Halt).is_err(), "no halt once it has ended");
        assert!(step(s, &Act::Step(Hash::ZERO)).is_err());
        assert!(step(s, &Act::Open).is_err(), "the setups go with the act");
        assert!(
            step_opening(s, &Act::Open, &both[..1]).is_err(),
            "both of them"
        );
        let white = step_opening(s, &Act::Open, &both).expect("White opens");
        assert!(white.outcome.is_none());
        assert_eq!(white.state.owed(), Some(Owed::Open(Color::Black)));
        let black = step_opening(&white.state, &Act::Open, &both).expect("Black opens");
        assert_eq!(rules().to_act(&black.state), None);
        black
    }

    #[test]
    fn an_ending_ends_the_game_with_its_points() {
        let mut s = rules().start(&Hash::ZERO);
        for _ in 0..5 {
            s = step(&s, &Act::Step(Hash::ZERO)).expect("in order").state;
        }
        s = step(&s, &done(false, false, None)).expect("start").state;
        s = step(&s, &Act::Attempt(Hash::ZERO)).expect("commit").state;
        for _ in 0..3 {
            s = step(&s, &Act::Step(Hash::ZERO)).expect("in order").state;
        }
        let a = step(&s, &done(true, false, Some(BoardEnd::Checkmate))).expect("mate");
        assert!(a.outcome.is_none(), "not before both have opened");
        assert!(step(&a.state, &Act::Attempt(Hash::ZERO)).is_err());
        let end = open_both(&a.state);
        assert_eq!(end.outcome.expect("over").reason, "checkmate");
    }

    #[test]
    fn a_lacked_message_is_owed_to_the_witness_once_and_only_by_its_sender() {
        let r = rules();
        let game = r.game;
        let mut s = r.start(&Hash::ZERO);
        assert!(step(&s, &Act::Lacking).is_err(), "nothing sent yet");
        s = step(&s, &Act::Step(Hash::ZERO))
            .expect("Black's message 0")
            .state;
        // White lacks message 0: Black owes its deposit, and nothing else goes first.
        let lacked = step(&s, &Act::Lacking).expect("White lacks it").state;
        assert_eq!(lacked.owed(), Some(Owed::Deposit(0)));
        assert_eq!(r.to_act(&lacked), Some(Seat(1)));
        for wrong in [
            Act::Step(Hash::ZERO),
            Act::Lacking,
            Act::Attempt(Hash::ZERO),
        ] {
            assert!(
                step(&lacked, &wrong).is_err(),
                "{wrong:?} before the deposit"
            );
        }
        // A stamp that is not the witness's, or not of this game, or not a stamp.
        let ledger = Statement::Ledger(Ledger {
            game,
            at: 1,
            chains: vec![],
        })
        .sign(&key(9))
        .to_bytes();
        for bad in [
            stamp(game, 1),
            stamp(GameId(Hash([6; 32])), 9),
            ledger,
            vec![1, 2, 3],
        ] {
            assert!(step(&lacked, &Act::Deposited(bad)).is_err());
        }
        let deposited = step(&lacked, &Act::Deposited(stamp(game, 9)))
            .expect("the witness's stamp")
            .state;
        assert_eq!(deposited.owed(), Some(Owed::Step(1)), "White's wait again");
        assert!(step(&deposited, &Act::Lacking).is_err(), "once a message");
        assert!(
            step(&deposited, &Act::Deposited(stamp(game, 9))).is_err(),
            "nothing lacked now"
        );
        // The next message may be lacked in its turn; the sender may halt instead.
        let s = step(&deposited, &Act::Step(Hash::ZERO))
            .expect("message 1")
            .state;
        let lacked = step(&s, &Act::Lacking)
            .expect("Black lacks message 1")
            .state;
        let halted = step(&lacked, &Act::Halt).expect("White halts").state;
        assert_eq!(halted.halted, Some(Color::White));
    }

    #[test]
    fn a_mover_lacks_the_last_message_only_when_the_other_sent_it() {
        let mut s = rules().start(&Hash::ZERO);
        for _ in 0..5 {
            s = step(&s, &Act::Step(Hash::ZERO)).expect("in order").state;
        }
        s = step(&s, &done(false, false, None)).expect("start").state;
        // White to move: the last message, G2, is his own.
        assert_eq!(s.owed(), Some(Owed::Attempt(Color::White)));
        assert!(step(&s, &Act::Lacking).is_err());
        s = step(&s, &Act::Attempt(Hash::ZERO)).expect("commit").state;
        for _ in 0..3 {
            s = step(&s, &Act::Step(Hash::ZERO)).expect("in order").state;
        }
        s = step(&s, &done(true, false, None)).expect("a move").state;
        // Black to move lacks White's G2.
        assert_eq!(s.owed(), Some(Owed::Attempt(Color::Black)));
        let lacked = step(&s, &Act::Lacking).expect("Black lacks G2").state;
        assert_eq!(lacked.owed(), Some(Owed::Deposit(s.steps - 1)));
        let back = step(&lacked, &Act::Deposited(stamp(rules().game, 9))).expect("deposited");
        assert_eq!(back.state.owed(), Some(Owed::Attempt(Color::Black)));
    }

    fn any_act() -> impl Strategy<Value = Act> {
        let ending = prop_oneof![
            Just(None),
            Just(Some(BoardEnd::Checkmate)),
            any::<u8>().prop_map(|pieces| Some(BoardEnd::Stalemate { pieces })),
            Just(Some(BoardEnd::PlyLimit)),
        ];
        prop_oneof![
            Just(Act::Attempt(Hash::ZERO)),
            Just(Act::Step(Hash::ZERO)),
            (any::<bool>(), any::<bool>(), ending).prop_map(|(m, c, e)| done(m, c, e)),
            Just(Act::Halt),
            Just(Act::Open),
            Just(Act::Lacking),
            Just(Act::Deposited(stamp(GameId(Hash([5; 32])), 9))),
            any::<Vec<u8>>().prop_map(Act::Deposited),
        ]
    }

    #[test]
    fn a_period_holds_at_most_the_attempts_allowed() {
        let mut s = rules().start(&Hash::ZERO);
        for _ in 0..5 {
            s = step(&s, &Act::Step(Hash::ZERO)).expect("in order").state;
        }
        s = step(&s, &done(false, false, None)).expect("start").state;
        for _ in 0..MAX_TRIES {
            s = step(&s, &Act::Attempt(Hash::ZERO)).expect("commit").state;
            for _ in 0..3 {
                s = step(&s, &Act::Step(Hash::ZERO)).expect("in order").state;
            }
            s = step(&s, &done(false, false, None)).expect("no move").state;
        }
        assert!(step(&s, &Act::Attempt(Hash::ZERO)).is_err());
        assert!(step(&s, &Act::Halt).is_ok(), "he may still halt");
    }

    proptest! {
        /// Any acts in any order, and any bytes: a clear refusal or a state that still
        /// names who owes what; never a panic; messages and computations only grow, and
        /// a game over owes nothing.
        #[test]
        fn any_acts_in_any_order_never_panic(
            acts in proptest::collection::vec(any_act(), 0..80),
            junk in proptest::collection::vec(any::<u8>(), 0..48),
        ) {
            // Bytes that are no act are refused, never a panic.
            let _ = rules().decode_act(&junk);
            let mut s = rules().start(&Hash::ZERO);
            for act in acts {
                prop_assert_eq!(rules().decode_act(&acts::encode(&act)), Ok(act.clone()));
                if let Ok(a) = step(&s, &act) {
                    prop_assert!(a.state.steps >= s.steps);
                    prop_assert!(a.state.computations >= s.computations);
                    if a.outcome.is_some() {
                        prop_assert_eq!(rules().to_act(&a.state), None);
                    }
                    s = a.state;
                }
            }
        }
    }
}
