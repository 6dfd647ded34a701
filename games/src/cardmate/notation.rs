//! The seed's move notation: card, `:` for a capture, square; then `=A` for a promoting
//! One (our addition: the seed names no mark for it), `+` for a first King taken, `×`
//! (or `x`) for the second, `#` for a conquered palace; `!` and `?` annotations ignored.
//! Every card is unique, so the card alone says which piece moves.

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

/// Reads one move token.
pub fn parse(token: &str) -> Result<Written, String> {
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
        .ok_or_else(|| format!("{token:?} does not start with a card"))?;
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
    let to = Square::parse(sq).ok_or_else(|| format!("{token:?}: {sq:?} is not a square"))?;
    Ok(Written {
        card,
        capture,
        to: Some(to),
        promote,
        mark,
    })
}

/// The one legal move a written move names, checked against its marks.
pub fn resolve(pos: &Position, w: &Written, opts: &Options) -> Result<Move, String> {
    let Some(to) = w.to else {
        return Err(format!("{}~ names no single move", w.card));
    };
    let candidates: Vec<Move> = pos
        .legal_moves(opts)
        .into_iter()
        .filter(|m| m.card == w.card && m.to == to && m.promote == w.promote)
        .collect();
    let m = match candidates.as_slice() {
        [m] => *m,
        [] => return Err(why_not(pos, w, to, opts)),
        _ => return Err(format!("{}{to} names more than one legal move", w.card)),
    };
    if w.capture != m.capture.is_some() {
        return Err(if w.capture {
            format!("{}:{to} is written as a capture but takes nothing", w.card)
        } else {
            format!(
                "{}{to} takes {} and must be written with ':'",
                w.card,
                m.capture.map(|c| c.to_string()).unwrap_or_default()
            )
        });
    }
    if let Some(mark) = w.mark {
        let mut next = pos.clone();
        let got = next.play_unchecked(&m, opts);
        if got != mark {
            return Err(format!(
                "{} is marked {:?} but does {:?}",
                w.card, mark, got
            ));
        }
    }
    Ok(m)
}

/// Why a written move is not legal, in words.
fn why_not(pos: &Position, w: &Written, to: Square, opts: &Options) -> String {
    if pos.end.is_some() {
        return "the game is already over".into();
    }
    let Some(from) = pos.find_own(w.card) else {
        return format!("{} is not a card of the side to move on the board", w.card);
    };
    if pos
        .legal_moves(opts)
        .iter()
        .any(|m| m.card == w.card && m.to == to)
    {
        // Only the promotion mark is wrong.
        return if w.promote {
            format!(
                "{}{to} does not enter the opponent's half: it cannot promote",
                w.card
            )
        } else {
            format!(
                "{}{to} enters the opponent's half: write =A to promote, or nothing",
                w.card
            )
        };
    }
    if super::moves::pseudo_moves(&pos.board, pos.to_move, opts)
        .iter()
        .any(|m| m.card == w.card && m.to == to)
    {
        format!(
            "{} to {to} is not a same-suit capture, and one is compulsory",
            w.card
        )
    } else {
        format!("{} cannot go from {from} to {to}", w.card)
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
