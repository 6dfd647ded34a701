//! Race: test-only scaffolding rules (not a game sealed ships). Players take turns adding
//! 1, 2 or 3 to a shared counter; whoever reaches the target wins. What Duel does not
//! exercise, Race does: every act seals a note (a sealed value committed in play) and
//! opens the note of the player's previous act, and each player holds a private seeded
//! setup revealed at the end.

use serde::{Deserialize, Serialize};

use sealed_protocol::derive;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{Name, Seat};
use sealed_protocol::outcome::Outcome;
use sealed_protocol::proposal::{Proposal, Role, SeatSpec, Terms, VERSION};
use sealed_protocol::rules::{ActCtx, Applied, OptionError, Rules, SetupSpec, Violation};
use sealed_protocol::session::{Command, Session};

use crate::sim::{Bot, FnBot, test_key};

/// The rules, with the target.
#[derive(Clone, Debug)]
pub struct Race {
    /// The count that wins.
    pub target: u32,
}

/// Race's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// The counter.
    pub count: u32,
    /// Who moves.
    pub to_move: Seat,
    /// Acts so far.
    pub plies: u32,
    /// Each player's last sealed note index, if any.
    pub last_note: [Option<u32>; 2],
}

/// A Race act.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Add(pub u8);

fn note() -> Name {
    Name::new("note").expect("valid")
}

impl Rules for Race {
    type State = State;
    type Act = Add;

    fn from_terms(terms: &Terms) -> Result<Self, OptionError> {
        let mut target = 21;
        for (k, v) in &terms.proposal().options {
            match k.as_str() {
                "target" => {
                    target = v
                        .parse()
                        .map_err(|_| OptionError("target is a number".into()))?
                }
                other => return Err(OptionError(format!("race has no option {other}"))),
            }
        }
        if terms.players() != 2 || target == 0 {
            return Err(OptionError("race: two players, target at least 1".into()));
        }
        Ok(Race { target })
    }

    /// Two private logs, only so that tests can exercise private-log rules: log 1 for
    /// both players, log 2 for seat 0 alone.
    fn audience(&self, log: sealed_protocol::ids::LogId) -> Option<Vec<Seat>> {
        match log.0 {
            1 => Some(vec![Seat(0), Seat(1)]),
            2 => Some(vec![Seat(0)]),
            _ => None,
        }
    }

    fn setups(&self) -> Vec<SetupSpec> {
        (0..2)
            .map(|p| SetupSpec {
                owner: Seat(p),
                name: Name::new("secret").expect("valid"),
                contributor: Seat(1 - p),
            })
            .collect()
    }

    fn start(&self, coin: &Hash) -> State {
        let first = Seat(derive::stream(coin, "race/first").below(2) as u8);
        State {
            count: 0,
            to_move: first,
            plies: 0,
            last_note: [None, None],
        }
    }

    fn decode_act(&self, bytes: &[u8]) -> Result<Add, Violation> {
        sealed_protocol::wire::decode(bytes, 8).map_err(|e| Violation(format!("race act: {e}")))
    }

    fn to_act(&self, state: &State) -> Option<Seat> {
        (state.count < self.target).then_some(state.to_move)
    }

    fn apply(
        &self,
        state: &State,
        seat: Seat,
        act: &Add,
        ctx: &ActCtx<'_>,
    ) -> Result<Applied<State>, Violation> {
        if !(1..=3).contains(&act.0) {
            return Err("add 1, 2 or 3".into());
        }
        if ctx.committed_values != [(note(), state.plies)] {
            return Err("each act seals exactly one note, indexed by the ply".into());
        }
        let opened: Vec<(Name, u32)> = ctx
            .opened_values
            .iter()
            .map(|(n, i, _)| (n.clone(), *i))
            .collect();
        let want: Vec<(Name, u32)> = state.last_note[seat.index()]
            .map(|i| (note(), i))
            .into_iter()
            .collect();
        if opened != want {
            return Err("each act opens the player's previous note, and nothing else".into());
        }
        let mut s = state.clone();
        s.count += u32::from(act.0);
        s.last_note[seat.index()] = Some(state.plies);
        s.plies += 1;
        s.to_move = Seat(1 - seat.0);
        let mut applied = Applied::state(s);
        if applied.state.count >= self.target {
            applied.outcome = Some(Outcome::win(2, seat, format!("reached {}", self.target)));
        }
        Ok(applied)
    }
}

/// Terms of a Race between the test keys.
pub fn race_terms(target: u32, nonce: u8) -> Terms {
    let seats = (0..2)
        .map(|i| SeatSpec {
            role: Role::Player,
            key: test_key(i).public().to_bytes(),
            name: String::new(),
        })
        .collect();
    let p = Proposal {
        version: VERSION,
        variant: Name::new("race").expect("valid"),
        options: vec![(Name::new("target").expect("valid"), target.to_string())],
        seats,
        mailboxes: vec![],
        proposer: Seat(0),
        clock: 0,
        nonce: [nonce; 32],
        witness: None,
    };
    Terms::from_signed(p.sign(&test_key(0))).expect("valid terms")
}

/// The command adding `n`, sealing a note and opening the previous one.
pub fn add(session: &Session<Race>, n: u8, note_value: Vec<u8>) -> Option<Command> {
    let state = session.engine().state()?;
    let me = session.seat();
    Some(Command::Act {
        show_slots: vec![],
        act: sealed_protocol::wire::encode(&Add(n)),
        open_slots: vec![],
        commit_values: vec![(note(), state.plies, note_value)],
        open_values: state.last_note[me.index()]
            .map(|i| (note(), i))
            .into_iter()
            .collect(),
        open_draw: None,
    })
}

/// A bot that adds a random 1..=3 when it is its turn; after `resign_at` plies it
/// resigns once instead (whoever's turn it is), if given.
pub fn race_bot(resign_at: Option<u32>) -> Box<dyn Bot<Race>> {
    let mut resigned = false;
    Box::new(FnBot(move |s: &Session<Race>, pick: u64| {
        let state = s.engine().state()?;
        if let Some(at) = resign_at
            && state.plies >= at
            && !resigned
        {
            resigned = true;
            return Some(Command::Resign);
        }
        if s.engine().to_act() != Some(s.seat()) {
            return None;
        }
        add(s, (pick % 3) as u8 + 1, pick.to_le_bytes().to_vec())
    }))
}
