//! The game in the clear (spec/GAMES.md §5.15): once both players have opened their
//! setups — each army and each engine seed — every attempt opens from its commitment,
//! and the referee's rules replay the game. The audit holds each `Done` against that
//! replay; a finished game's board, score file and PGN are drawn from it, the same for
//! both seats and for anyone who reads the transcript, with no message of the
//! computations needed.

use sealed_mpc::play::record;
use sealed_protocol::engine::Engine;
use sealed_protocol::hidden::Revealed;
use sealed_protocol::ids::EnvRef;

use super::item::from_item;
use super::posted::Posted;
use super::{Duo, engine_name};
use crate::chess::Color;
use crate::stallmate::BoardEnd;
use crate::stallmate::answer::Answer;
use crate::stallmate::peer::{seat, setup_name};
use crate::stallmate::referee::Referee;
use crate::stallmate::setup::Setup;

/// What both players opened: their armies and their engine seeds (White, Black).
#[derive(Clone, Copy)]
pub struct Open {
    /// Each army.
    pub setups: [Setup; 2],
    /// Each engine seed.
    pub seeds: [[u8; 32]; 2],
}

impl Open {
    /// The four setups of a revealed game, if all four are open.
    pub fn of(r: &Revealed<'_>) -> Option<Open> {
        let (army, engine) = (setup_name(), engine_name());
        let value = |c: Color, name: &str| r.setup(seat(c), name).map(|h| h.0);
        Some(Open {
            setups: [
                Setup::from_seed(&value(Color::White, army.as_str())?),
                Setup::from_seed(&value(Color::Black, army.as_str())?),
            ],
            seeds: [
                value(Color::White, engine.as_str())?,
                value(Color::Black, engine.as_str())?,
            ],
        })
    }
}

/// A commitment that opens to no attempt under its mover's seed: its computation, its
/// mover and its act.
pub struct Unopened {
    /// The computation it was made before.
    pub run: u64,
    /// Its mover.
    pub mover: Color,
    /// Its act.
    pub at: EnvRef,
}

/// Each attempt, as its item, opened from its commitment in order (the run of a
/// commitment is the number of computations finished before it), up to the first that
/// opens to none.
pub fn attempts(open: &Open, game: &[u8; 32], acts: &Posted) -> (Vec<u16>, Option<Unopened>) {
    let mut out = vec![];
    for &(run, mover, c, at) in &acts.commitments {
        let item = record::open(&open.seeds[mover.idx()], game, run, &c);
        match item.filter(|i| from_item(*i).is_some()) {
            Some(item) => out.push(item),
            None => return (out, Some(Unopened { run, mover, at })),
        }
    }
    (out, None)
}

/// What computation `run` told by the rules, the game in the clear at `referee` before it:
/// whether a move was made, whether it captured, the ending. The start tells no move;
/// `None` when its attempt is not known or the rules refuse it (the game has already
/// ended in the clear).
pub fn told(
    referee: &mut Referee,
    run: u64,
    attempts: &[u16],
) -> Option<(bool, bool, Option<BoardEnd>)> {
    if run == 0 {
        return Some((false, false, None));
    }
    let item = *attempts.get(usize::try_from(run - 1).ok()?)?;
    let answer = referee.attempt(from_item(item)?).ok()?;
    Some(match answer {
        Answer::Yes(report) => {
            let _ = referee.end_period();
            (true, report.capture.is_some(), report.end)
        }
        _ => (false, false, None),
    })
}

/// The game replayed in the clear once it is over and all four setups are open: every
/// computation that finished, by the rules. `None` before.
pub fn game(e: &Engine<Duo>) -> Option<Referee> {
    let r = e.revealed()?;
    let open = Open::of(&r)?;
    let acts = Posted::of_revealed(&r);
    let attempts = super::audit::attempts(e.rules(), &r);
    let mut referee = Referee::new(open.setups[0], open.setups[1], e.rules().options);
    for (run, _, _) in &acts.dones {
        if told(&mut referee, *run, &attempts).is_none() {
            break;
        }
    }
    Some(referee)
}
