//! The Chex adapter: its notation (and why it refuses words, [`ChexError`]), bot, board
//! and score for a live table.

use sealed_protocol::ids::Seat;
use sealed_protocol::session::{Command, Phase, Session};

use super::Chex;
use super::engine::{
    self as chex_engine, Color, DisplaySquare, Kind, ParseError, Ply, Position, ReadError,
    ResolveError, Written,
};

use crate::table::hand::{ChexHand, ChexStack, ChexStacks};
use crate::table::{Automation, Choice, Face, Game, Grid, Hand, nth};

/// The piece this seat drew and must place, once the opponent's value is in.
fn chex_drawn(s: &Session<Chex>, pos: &Position) -> Option<Kind> {
    let me = super::color(s.seat());
    if pos.phase != chex_engine::Phase::Placing || pos.to_move != me {
        return None;
    }
    super::picked(pos, me, &s.pending_draw(&super::stack())?)
}

fn chex_place(kind: Kind, at: chex_engine::Square) -> Command {
    Command::Act {
        show_slots: vec![],
        act: super::Act::Place {
            kind: kind.index() as u8,
            x: at.x,
            y: at.y,
        }
        .bytes(),
        open_slots: vec![],
        commit_values: vec![],
        open_values: vec![],
        open_draw: Some(super::stack()),
    }
}

/// Why a person's Chex words are refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChexError {
    /// A piece was drawn, but the opponent's share of the draw has not come yet.
    #[error("the drawn piece is not known yet")]
    DrawUnknown,
    /// A placement `X@sq` that does not read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A placement of another piece than the one drawn.
    #[error("{text}: you drew a {}, not a {}", drew.name(), wrote.name())]
    WrongPiece {
        /// The words.
        text: String,
        /// The piece drawn.
        drew: Kind,
        /// The piece written.
        wrote: Kind,
    },
    /// Words that are no placement while a drawn piece waits.
    #[error("{0:?} is not a placement")]
    NotAPlacement(String),
    /// No square where the drawn piece is to go.
    #[error("{text:?} is not a square: place the drawn {} with place <square>", drawn.name())]
    NotASquare {
        /// The words.
        text: String,
        /// The piece drawn.
        drawn: Kind,
    },
    /// The placement is not legal.
    #[error("{text}: {why}")]
    Illegal {
        /// The words.
        text: String,
        /// Why.
        why: ResolveError,
    },
    /// `draw` with an empty stack.
    #[error("draw: {0}'s stack is empty, so you must move")]
    StackEmpty(Color),
    /// `place` before a draw.
    #[error("{0}: nothing is drawn yet; write draw, then place the piece drawn")]
    NothingDrawn(String),
    /// A move that does not read or names no legal move.
    #[error(transparent)]
    Move(#[from] ParseError),
    /// A placement written without a draw.
    #[error("{0}: a placement needs a draw first; write draw, then place the piece drawn")]
    DrawFirst(String),
}

impl Game for Chex {
    const VARIANT: &'static str = super::VARIANT;

    fn ready(s: &Session<Self>, pos: &Self::State) -> bool {
        pos.phase == chex_engine::Phase::Turn || chex_drawn(s, pos).is_some()
    }
}

impl Face for Chex {
    fn side(seat: Seat) -> Option<String> {
        Some(super::color(seat).to_string())
    }

    fn prompt(s: &Session<Self>, pos: &Self::State) -> String {
        if let Some(kind) = chex_drawn(s, pos) {
            format!("your move: place the drawn {}", kind.name())
        } else if pos.must_draw() {
            "your move: no piece of yours can move, so you draw a piece from your stack".into()
        } else if !pos.can_draw() {
            "your move: your stack is empty, move".into()
        } else {
            "your move: draw or move".into()
        }
    }

    type Error = ChexError;

    fn parse(s: &Session<Self>, pos: &Self::State, text: &str) -> Result<Command, ChexError> {
        let lower = text.to_ascii_lowercase();
        if pos.phase == chex_engine::Phase::Placing {
            let kind = chex_drawn(s, pos).ok_or(ChexError::DrawUnknown)?;
            let square = lower
                .strip_prefix("place")
                .map_or(lower.as_str(), str::trim);
            let at = if square.contains('@') {
                match chex_engine::read(square)? {
                    Written::Place { kind: k, at } if k == kind => at,
                    Written::Place { kind: wrote, .. } => {
                        return Err(ChexError::WrongPiece {
                            text: text.to_owned(),
                            drew: kind,
                            wrote,
                        });
                    }
                    _ => return Err(ChexError::NotAPlacement(text.to_owned())),
                }
            } else {
                DisplaySquare::parse(square).ok_or_else(|| ChexError::NotASquare {
                    text: text.to_owned(),
                    drawn: kind,
                })?
            };
            return match chex_engine::resolve(pos, &Written::Place { kind, at }) {
                Ok(Ply::Place { kind, at }) => Ok(chex_place(kind, at)),
                Ok(Ply::Move(_)) => Err(ChexError::NotAPlacement(text.to_owned())),
                Err(why) => Err(ChexError::Illegal {
                    text: text.to_owned(),
                    why,
                }),
            };
        }
        if lower == "draw" {
            return if pos.can_draw() {
                Ok(Command::act(super::Act::Draw.bytes()))
            } else {
                Err(ChexError::StackEmpty(pos.to_move))
            };
        }
        if lower.starts_with("place") {
            return Err(ChexError::NothingDrawn(text.to_owned()));
        }
        match chex_engine::parse_ply(pos, text)? {
            Ply::Move(m) => Ok(Command::act(super::Act::of_move(&m).bytes())),
            Ply::Place { .. } => Err(ChexError::DrawFirst(text.to_owned())),
        }
    }

    fn hints(s: &Session<Self>, pos: &Self::State) -> Vec<String> {
        if let Some(kind) = chex_drawn(s, pos) {
            let frame = chex_engine::Frame::of(&pos.board);
            let example = pos
                .placement_squares()
                .first()
                .and_then(|sq| frame.name(*sq))
                .map(|name| format!(", e.g. place {name}"))
                .unwrap_or_default();
            return vec![format!(
                "place <square>: the drawn {}{example}",
                kind.name()
            )];
        }
        let mut v = vec![];
        if pos.can_draw() {
            v.push("draw".to_owned());
        }
        let moves = pos.legal_moves();
        if let Some(m) = moves.first() {
            v.push(format!(
                "<move>, e.g. {} ({} legal)",
                chex_engine::write_move(pos, m),
                moves.len()
            ));
        }
        v
    }

    fn choices(s: &Session<Self>, pos: &Self::State) -> Vec<Choice> {
        let frame = chex_engine::Frame::of(&pos.board);
        if let Some(kind) = chex_drawn(s, pos) {
            return pos
                .placement_squares()
                .into_iter()
                .filter_map(|sq| frame.name(sq))
                .map(|name| {
                    let words = format!("place the drawn {} on {name}", kind.name());
                    Choice::onto(&name, words, format!("place {name}"))
                })
                .collect();
        }
        let mut v = vec![];
        if pos.can_draw() {
            v.push(Choice::button("draw a piece from your stack", "draw"));
        }
        for m in pos.legal_moves() {
            if let (Some(from), Some(to)) = (frame.name(m.from), frame.name(m.to)) {
                let text = chex_engine::write_move(pos, &m);
                v.push(Choice::shift(from, to, text.clone(), text));
            }
        }
        v
    }

    fn board(s: &Session<Self>, pos: &Self::State) -> String {
        // A game ended by the protocol (a resignation, an agreed draw) leaves the
        // position mid-turn: "White has drawn and must place" would be an order nobody
        // can follow. The verdict below the board says how it ended.
        if matches!(s.phase(), Phase::Play(_)) || pos.end.is_some() {
            chex_engine::text(pos)
        } else {
            chex_engine::diagram(pos)
        }
    }

    fn hand(s: &Session<Self>) -> (Option<String>, Hand) {
        let Some(pos) = s.engine().state() else {
            return (None, Hand::None);
        };
        let stack = |c: chex_engine::Color| ChexStack {
            text: pos.stack(c).to_string(),
            counts: pos.stack(c).counts(),
        };
        let drawn = chex_drawn(s, pos);
        (
            drawn
                .filter(|_| matches!(s.phase(), Phase::Play(_)))
                .map(|k| format!("you drew a {}: place it\n", k.name())),
            Hand::Chex(ChexHand {
                stacks: ChexStacks {
                    white: stack(chex_engine::Color::White),
                    black: stack(chex_engine::Color::Black),
                },
                drawn: drawn.map(|k| k.name().to_owned()),
            }),
        )
    }

    fn svg(pos: &Self::State) -> Option<String> {
        Some(chex_engine::svg(pos))
    }

    fn grid(s: &Session<Self>, pos: &Self::State) -> Option<Grid> {
        Some(super::grid::grid(pos, super::color(s.seat())))
    }

    fn last(_s: &Session<Self>, pos: &Self::State, acts: &[Self::Act]) -> Vec<String> {
        // Named in today's display coordinates, as the grid is (a square the board
        // shrank away from has no name, and is not marked).
        let frame = chex_engine::Frame::of(&pos.board);
        let name = |(x, y): (i32, i32)| frame.name(chex_engine::Square::new(x, y));
        let squares = match acts.iter().rev().find(|a| !matches!(a, super::Act::Draw)) {
            Some(super::Act::Move { from, to }) => vec![name(*from), name(*to)],
            Some(super::Act::Place { x, y, .. }) => vec![name((*x, *y))],
            _ => vec![],
        };
        squares.into_iter().flatten().collect()
    }

    fn boards(s: &Session<Self>, acts: &[Self::Act]) -> Vec<(Grid, Vec<String>)> {
        // Each ply's board as the grid draws it, in the box of its moment: a square
        // is named as it was named then.
        let from = super::color(s.seat());
        let mut pos = Position::new(s.engine().rules().ply_limit);
        let mut out = vec![(super::grid::grid(&pos, from), vec![])];
        for ply in score_plies(acts) {
            if pos.play_ply(&ply).is_err() {
                return vec![];
            }
            let frame = chex_engine::Frame::of(&pos.board);
            let moved = match ply {
                Ply::Place { at, .. } => vec![frame.name(at)],
                Ply::Move(m) => vec![frame.name(m.from), frame.name(m.to)],
            };
            out.push((
                super::grid::grid(&pos, from),
                moved.into_iter().flatten().collect(),
            ));
        }
        out
    }

    fn score(s: &Session<Self>, _state: &Self::State, acts: &[Self::Act]) -> Option<String> {
        // A score writes a draw and its placement as one ply (`N@c4`), so the
        // declaration adds nothing and a pending draw is not written yet.
        let plies = score_plies(acts);
        let outcome = s.verdict().outcome;
        let ending = outcome
            .as_ref()
            .map(|o| (crate::table::pgn_tags::result(o), o.reason.as_str()));
        chex_engine::write_score_ended(s.engine().rules().ply_limit, &plies, ending).ok()
    }
}

impl Automation for Chex {
    fn bot(s: &Session<Self>, pos: &Self::State, pick: u64) -> Option<Command> {
        if pos.phase == chex_engine::Phase::Placing {
            let kind = chex_drawn(s, pos)?;
            // A King on an attacked square is lost at once; the bot only does that
            // when no square is safe (the stalemate the rules then call).
            let safe = if kind == Kind::King {
                pos.safe_king_squares()
            } else {
                vec![]
            };
            let squares = if safe.is_empty() {
                pos.placement_squares()
            } else {
                safe
            };
            return nth(&squares, pick).map(|at| chex_place(kind, *at));
        }
        let moves = pos.legal_moves();
        if pos.can_draw() && (moves.is_empty() || pick.is_multiple_of(3)) {
            return Some(Command::act(super::Act::Draw.bytes()));
        }
        nth(&moves, pick / 3).map(|m| Command::act(super::Act::of_move(m).bytes()))
    }
}

/// The plies a score writes of `acts`: a draw is written with its placement (`N@c4`), so
/// the declaration adds nothing and a pending draw is not written yet.
fn score_plies(acts: &[super::Act]) -> Vec<Ply> {
    acts.iter()
        .filter_map(|act| match *act {
            super::Act::Draw => None,
            super::Act::Place { kind, x, y } => Some(Ply::Place {
                kind: Kind::from_index(usize::from(kind))?,
                at: chex_engine::Square::new(x, y),
            }),
            super::Act::Move { from, to } => Some(Ply::Move(chex_engine::Move::new(
                chex_engine::Square::new(from.0, from.1),
                chex_engine::Square::new(to.0, to.1),
            ))),
        })
        .collect()
}
