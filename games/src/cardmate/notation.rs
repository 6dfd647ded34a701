//! The seed's move notation: card, `:` for a capture, square; then `=A` for a promoting
//! One (our addition: the seed names no mark for it), `+` for a first King taken, `×`
//! (or `x`) for the second, `#` for a conquered palace; `!` and `?` annotations ignored.
//! Every card is unique, so the card alone says which piece moves. Why a token does
//! not read or names no legal move: [`NotationError`].

use super::board::Square;
use super::card::Card;
use super::moves::Move;
use super::options::Options;
use super::position::{Mark, Position};

/// A move as written, before it is matched against the position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// The card.
    pub card: Card,
    /// `:` was written.
    pub capture: bool,
    /// The destination; `None` for `~` ("some move of this card", used in notes).
    pub to: Option<Square>,
    /// `=A` was written.
    pub promote: bool,
    /// The mark written after the move, if any.
    pub mark: Option<Mark>,
}

/// Why a move as written does not read, or names no one legal move of the position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotationError {
    /// The token does not start with a card.
    #[error("{0:?} does not start with a card")]
    NoCard(String),
    /// What follows the card is no square.
    #[error("{token:?}: {square:?} is not a square")]
    NoSquare {
        /// The token.
        token: String,
        /// The words where its square should be.
        square: String,
    },
    /// `XY~` names some move of a card, not one.
    #[error("{0}~ names no single move")]
    NoSingleMove(Card),
    /// Several legal moves fit.
    #[error("{card}{to} names more than one legal move")]
    Ambiguous {
        /// The card.
        card: Card,
        /// Where it goes.
        to: Square,
    },
    /// Written with `:`, but the move takes nothing.
    #[error("{card}:{to} is written as a capture but takes nothing")]
    TakesNothing {
        /// The card.
        card: Card,
        /// Where it goes.
        to: Square,
    },
    /// The move takes a card but is written without `:`.
    #[error("{card}{to} takes {taken} and must be written with ':'")]
    UnwrittenCapture {
        /// The card.
        card: Card,
        /// Where it goes.
        to: Square,
        /// The card it takes.
        taken: Card,
    },
    /// The mark written is not what the move does.
    #[error("{card} is marked {marked:?} but does {does:?}")]
    WrongMark {
        /// The card.
        card: Card,
        /// The mark written.
        marked: Mark,
        /// What the move does.
        does: Mark,
    },
    /// The game is over.
    #[error("the game is already over")]
    Over,
    /// The card is not one of the side to move on the board.
    #[error("{0} is not a card of the side to move on the board")]
    NotOnBoard(Card),
    /// `=A` written on a move that cannot promote.
    #[error("{card}{to} does not enter the opponent's half: it cannot promote")]
    CannotPromote {
        /// The card.
        card: Card,
        /// Where it goes.
        to: Square,
    },
    /// A move into the opponent's half written with no promotion mark where one must
    /// say whether it promotes.
    #[error("{card}{to} enters the opponent's half: write =A to promote, or nothing")]
    PromotionUnsaid {
        /// The card.
        card: Card,
        /// Where it goes.
        to: Square,
    },
    /// A same-suit capture is compulsory and this is none.
    #[error("{card} to {to} is not a same-suit capture, and one is compulsory")]
    CaptureCompulsory {
        /// The card.
        card: Card,
        /// Where it goes.
        to: Square,
    },
    /// The card does not move so.
    #[error("{card} cannot go from {from} to {to}")]
    CannotGo {
        /// The card.
        card: Card,
        /// Where it stands.
        from: Square,
        /// Where it was to go.
        to: Square,
    },
}

/// Reads one move token.
pub fn parse(token: &str) -> Result<Written, NotationError> {
    let t = token.trim_end_matches(['!', '?']);
    let (t, mark) = if let Some(r) = t.strip_suffix('+') {
        (r, Some(Mark::FirstKing))
    } else if let Some(r) = t.strip_suffix('×').or_else(|| t.strip_suffix('x')) {
        (r, Some(Mark::SecondKing))
    } else if let Some(r) = t.strip_suffix('#') {
        (r, Some(Mark::Palace))
    } else {
        (t, None)
    };
    let (t, promote) = match t.strip_suffix("=A") {
        Some(r) => (r, true),
        None => (t, false),
    };
    let card = t
        .get(..2)
        .and_then(Card::parse)
        .ok_or_else(|| NotationError::NoCard(token.to_owned()))?;
    let rest = &t[2..];
    if rest == "~" {
        return Ok(Written {
            card,
            capture: false,
            to: None,
            promote,
            mark,
        });
    }
    let (capture, sq) = match rest.strip_prefix(':') {
        Some(s) => (true, s),
        None => (false, rest),
    };
    let to = Square::parse(sq).ok_or_else(|| NotationError::NoSquare {
        token: token.to_owned(),
        square: sq.to_owned(),
    })?;
    Ok(Written {
        card,
        capture,
        to: Some(to),
        promote,
        mark,
    })
}

/// The one legal move a written move names, checked against its marks.
pub fn resolve(pos: &Position, w: &Written, opts: &Options) -> Result<Move, NotationError> {
    let card = w.card;
    let Some(to) = w.to else {
        return Err(NotationError::NoSingleMove(card));
    };
    let candidates: Vec<Move> = pos
        .legal_moves(opts)
        .into_iter()
        .filter(|m| m.card == w.card && m.to == to && m.promote == w.promote)
        .collect();
    let m = match candidates.as_slice() {
        [m] => *m,
        [] => return Err(why_not(pos, w, to, opts)),
        _ => return Err(NotationError::Ambiguous { card, to }),
    };
    match (w.capture, m.capture) {
        (true, None) => return Err(NotationError::TakesNothing { card, to }),
        (false, Some(taken)) => {
            return Err(NotationError::UnwrittenCapture { card, to, taken });
        }
        _ => {}
    }
    if let Some(marked) = w.mark {
        let mut next = pos.clone();
        let does = next.play_unchecked(&m, opts);
        if does != marked {
            return Err(NotationError::WrongMark { card, marked, does });
        }
    }
    Ok(m)
}

/// Why a written move is not legal.
fn why_not(pos: &Position, w: &Written, to: Square, opts: &Options) -> NotationError {
    let card = w.card;
    if pos.end.is_some() {
        return NotationError::Over;
    }
    let Some(from) = pos.find_own(card) else {
        return NotationError::NotOnBoard(card);
    };
    if pos
        .legal_moves(opts)
        .iter()
        .any(|m| m.card == card && m.to == to)
    {
        // Only the promotion mark is wrong.
        return if w.promote {
            NotationError::CannotPromote { card, to }
        } else {
            NotationError::PromotionUnsaid { card, to }
        };
    }
    if super::moves::pseudo_moves(&pos.board, pos.to_move, opts)
        .iter()
        .any(|m| m.card == card && m.to == to)
    {
        NotationError::CaptureCompulsory { card, to }
    } else {
        NotationError::CannotGo { card, from, to }
    }
}

/// Writes a move with its mark.
pub fn write(m: &Move, mark: Mark) -> String {
    let mut s = m.card.to_string();
    if m.capture.is_some() {
        s.push(':');
    }
    s.push_str(&m.to.to_string());
    if m.promote {
        s.push_str("=A");
    }
    match mark {
        Mark::None => {}
        Mark::FirstKing => s.push('+'),
        Mark::SecondKing => s.push('×'),
        Mark::Palace => s.push('#'),
    }
    s
}
