//! The Cardmate adapter: its notation (and why it refuses a move, [`MoveRefused`]), bot,
//! board and score for a live table.

use sealed_protocol::ids::Seat;
use sealed_protocol::session::{Command, Session};

use super::Cardmate;
use super::notation::NotationError;

use crate::table::{Automation, Choice, Face, Game, Grid, Hand, nth};

/// A legal move as the seed writes it, with the mark of what it does.
fn cardmate_written(pos: &super::Position, m: &super::Move, opts: &super::Options) -> String {
    let mut next = pos.clone();
    let mark = next.play_unchecked(m, opts);
    super::write_move(m, mark)
}

impl Game for Cardmate {
    const VARIANT: &'static str = super::VARIANT;

    fn ready(_s: &Session<Self>, _state: &Self::State) -> bool {
        true
    }
}

/// Why a person's Cardmate move is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MoveRefused {
    /// More than one word: a Cardmate move is one.
    #[error("{text}: one move at a time (a Cardmate move is one word, such as {first})")]
    OneAtATime {
        /// The words.
        text: String,
        /// Their first word.
        first: String,
    },
    /// The word is no move.
    #[error(transparent)]
    Unreadable(#[from] NotationError),
    /// The move names no one legal move here.
    #[error("{text}: {why}")]
    Illegal {
        /// The words.
        text: String,
        /// Why.
        why: NotationError,
    },
}

impl Face for Cardmate {
    fn side(seat: Seat) -> Option<String> {
        Some(format!("{:?}", side_of(seat)))
    }

    fn prompt(_s: &Session<Self>, _state: &Self::State) -> String {
        "your move".into()
    }

    type Error = MoveRefused;

    fn parse(s: &Session<Self>, pos: &Self::State, text: &str) -> Result<Command, MoveRefused> {
        let opts = &s.engine().rules().options;
        // `move G 4Ci3 4Db6` reads as one action of two words: say that one move goes
        // at a time, rather than that "i3 4db6" is no square.
        if let Some((first, _)) = text.split_once(' ') {
            return Err(MoveRefused::OneAtATime {
                text: text.to_owned(),
                first: first.to_owned(),
            });
        }
        // The board shows Rearhand's cards in lower case; a card is still written in
        // upper case and a square in lower case, so a player may type either.
        let normal = match text.get(..2).filter(|_| text.is_ascii()) {
            Some(card) => card.to_uppercase() + &text[2..].to_lowercase().replace("=a", "=A"),
            None => text.to_owned(),
        };
        let w = super::parse_move(&normal)?;
        let m = super::resolve_move(pos, &w, opts).map_err(|why| MoveRefused::Illegal {
            text: text.to_owned(),
            why,
        })?;
        Ok(Command::act(super::Act::of(&m).bytes()))
    }

    fn hints(s: &Session<Self>, pos: &Self::State) -> Vec<String> {
        let opts = &s.engine().rules().options;
        let moves = pos.legal_moves(opts);
        match moves.first() {
            Some(m) => vec![format!(
                "<move>, e.g. {} ({} legal)",
                cardmate_written(pos, m, opts),
                moves.len()
            )],
            None => vec![],
        }
    }

    fn choices(s: &Session<Self>, pos: &Self::State) -> Vec<Choice> {
        let opts = &s.engine().rules().options;
        pos.legal_moves(opts)
            .iter()
            .map(|m| {
                let text = cardmate_written(pos, m, opts);
                Choice::shift(m.from, m.to, text.clone(), text)
            })
            .collect()
    }

    fn board(_s: &Session<Self>, pos: &Self::State) -> String {
        super::text(pos)
    }

    fn hand(_s: &Session<Self>) -> (Option<String>, Hand) {
        (None, Hand::None)
    }

    fn svg(pos: &Self::State) -> Option<String> {
        Some(super::svg(pos))
    }

    fn grid(s: &Session<Self>, pos: &Self::State) -> Option<Grid> {
        Some(super::grid(pos, side_of(s.seat())))
    }

    fn last(s: &Session<Self>, _state: &Self::State, acts: &[Self::Act]) -> Vec<String> {
        // An act names a card and where it goes; where it came from is found by
        // replaying, as the score does.
        let mut last = None;
        if replay(s, acts, |m, _| last = m.copied()).is_none() {
            return vec![];
        }
        last.map(|m| vec![m.from.to_string(), m.to.to_string()])
            .unwrap_or_default()
    }

    fn boards(s: &Session<Self>, acts: &[Self::Act]) -> Vec<(Grid, Vec<String>)> {
        let from = side_of(s.seat());
        let mut out = Vec::with_capacity(acts.len() + 1);
        let played = replay(s, acts, |m, pos| {
            let moved = m.map(|m| vec![m.from.to_string(), m.to.to_string()]);
            out.push((super::grid(pos, from), moved.unwrap_or_default()));
        });
        if played.is_none() {
            return vec![];
        }
        out
    }

    fn score(s: &Session<Self>, _state: &Self::State, acts: &[Self::Act]) -> Option<String> {
        // An act names a card and a square; the score needs the move (what it takes,
        // its mark), found by replaying.
        let mut moves = Vec::with_capacity(acts.len());
        replay(s, acts, |m, _| moves.extend(m.copied()))?;
        let e = s.engine();
        let outcome = s.verdict().outcome;
        let ending = outcome
            .as_ref()
            .map(|o| (crate::table::pgn_tags::result(o), o.reason.as_str()));
        super::score::write_score_ended(&e.rules().options, e.coin(), &moves, ending).ok()
    }
}

/// The side a seat plays, whose view of the board it is shown.
fn side_of(seat: Seat) -> super::Side {
    if seat.0 == 0 {
        super::Side::Forehand
    } else {
        super::Side::Rearhand
    }
}

/// Plays `acts` from the start the coin dealt, telling `seen` the start (no move) and
/// then each move with the position after it: an act names only a card and where it
/// goes, so where it came from, what it takes and its mark (the score, the last move,
/// each position stepped back to) are found so, in one place. `None` before the deal,
/// or at an act no legal move makes.
fn replay(
    s: &Session<Cardmate>,
    acts: &[super::Act],
    mut seen: impl FnMut(Option<&super::Move>, &super::Position),
) -> Option<()> {
    let e = s.engine();
    let opts = &e.rules().options;
    let mut pos = e.rules().start_position(e.coin()?);
    seen(None, &pos);
    for act in acts {
        let m = pos
            .legal_moves(opts)
            .into_iter()
            .find(|m| super::Act::of(m) == *act)?;
        pos.play_unchecked(&m, opts);
        seen(Some(&m), &pos);
    }
    Some(())
}

impl Automation for Cardmate {
    fn bot(s: &Session<Self>, pos: &Self::State, pick: u64) -> Option<Command> {
        let moves = pos.legal_moves(&s.engine().rules().options);
        nth(&moves, pick).map(|m| Command::act(super::Act::of(m).bytes()))
    }
}
