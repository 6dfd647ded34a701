//! Reading a score, second step: the words of one act to what they name (moves, cards,
//! the act's shape), still without a board; moves are read by the chess crate's one
//! grammar of move text.

use crate::chess::{Kind, MoveText, Square};
use crate::replay::ReplayError;
use crate::tempete::physical::notation::{self, MoveError};

use super::unreadable;

/// A move as written, read by the chess crate's one grammar of move text.
pub(super) fn read_move(w: &str) -> Result<MoveText, MoveError> {
    notation::move_text(w)
}

/// Whether the text names the from-square in full (long algebraic, coordinates):
/// then the squares decide, not the letter or the `x`.
pub(super) fn is_coord(m: &MoveText) -> bool {
    m.squares().is_some()
}

/// A card as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct CardText {
    pub(super) card: RefText,
    pub(super) squares: Vec<u8>,
    pub(super) kind: Option<u8>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RefText {
    Own(u32),
    Taken(u32),
    Again,
}

/// Why a card as written does not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum CardTextError {
    /// A card number past `u32`.
    #[error("{0:?}: card number too large")]
    TooLarge(String),
    /// A square after `@` that is none.
    #[error("card {0:?}: bad square")]
    BadSquare(String),
    /// A kind after `=` that is none.
    #[error("card {0:?}: the kind is one of P N B R Q K")]
    BadKind(String),
}

pub(super) fn read_card(w: &str) -> Option<Result<CardText, CardTextError>> {
    let (head, kind) = match w.split_once('=') {
        Some((h, k)) => (h, Some(k)),
        None => (w, None),
    };
    let (r, squares) = match head.split_once('@') {
        Some((r, s)) => (r, Some(s)),
        None => (head, None),
    };
    let card = if r == "again" {
        RefText::Again
    } else if let Some(n) = r.strip_prefix('t').filter(|n| is_number(n)) {
        RefText::Taken(n.parse().ok()?)
    } else if is_number(r) {
        match r.parse() {
            Ok(n) => RefText::Own(n),
            Err(_) => return Some(Err(CardTextError::TooLarge(r.to_owned()))),
        }
    } else {
        return None;
    };
    let mut out = CardText {
        card,
        squares: vec![],
        kind: None,
    };
    if let Some(list) = squares {
        for s in list.split(',') {
            match s.parse::<Square>() {
                Ok(sq) => out.squares.push(sq.index()),
                Err(_) => return Some(Err(CardTextError::BadSquare(w.to_owned()))),
            }
        }
    }
    if let Some(k) = kind {
        let mut c = k.chars();
        match (c.next().and_then(Kind::from_char), c.next()) {
            (Some(k), None) => out.kind = Some(k.idx() as u8),
            _ => return Some(Err(CardTextError::BadKind(w.to_owned()))),
        }
    }
    Some(Ok(out))
}

pub(super) fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

pub(super) fn number(w: Option<&String>, what: &str) -> Result<u32, ReplayError> {
    w.filter(|w| is_number(w))
        .and_then(|w| w.parse().ok())
        .ok_or_else(|| unreadable(format!("expected {what}, got {w:?}")))
}

/// An act as written, before the board resolves its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum ActText {
    Turn {
        start: Option<(CardText, StartKind)>,
        card: Option<CardText>,
        moves: Vec<MoveText>,
        discard: Vec<u32>,
    },
    Intercept(CardText),
    InterceptSecond(CardText),
    Cancel(CardText),
    Keep(MoveText),
    Replay {
        card: Option<CardText>,
        moves: Vec<MoveText>,
    },
    Yield,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StartKind {
    Take(u32),
    Pick(u32),
}

/// An act with the traps its actor opens first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Line {
    pub(super) sprung: Vec<(u32, u8)>,
    pub(super) act: ActText,
}

pub(super) fn read_group(words: &[String]) -> Result<Line, ReplayError> {
    // The physical deck's words (spec/GAMES.md §4.20.6), none of which an open-deck act
    // uses: such a score is for reading, and says so rather than fail on a word.
    const PHYSICAL: [&str; 14] = [
        "card", "cite", "dispute", "settle", "ruling", "then", "note", "remove", "place",
        "exchange", "skip", "for", "sig", "with",
    ];
    if words.iter().any(|w| PHYSICAL.contains(&w.as_str())) {
        return Err(unreadable(
            "an act of the physical deck: its score is for reading, not replayed (spec/GAMES.md §4.20.6)",
        ));
    }
    let mut i = 0;
    let mut sprung = vec![];
    while words.get(i).map(String::as_str) == Some("sprung") {
        let index = number(words.get(i + 1), "a trap index")?;
        let sq = words
            .get(i + 2)
            .and_then(|s| s.parse::<Square>().ok())
            .ok_or_else(|| unreadable("sprung: expected a square after the trap index"))?;
        sprung.push((index, sq.index()));
        i += 3;
    }
    let rest = &words[i..];
    let card_at = |w: &String| -> Result<CardText, ReplayError> {
        match read_card(w) {
            Some(r) => r.map_err(unreadable),
            None => Err(unreadable(format!("expected a card, got {w:?}"))),
        }
    };
    let act = match rest.first().map(String::as_str) {
        Some("yield") if rest.len() == 1 => ActText::Yield,
        Some("intercept") => match &rest[1..] {
            [c] => ActText::Intercept(card_at(c)?),
            [s, c] if s == "second" => ActText::InterceptSecond(card_at(c)?),
            _ => {
                return Err(unreadable(
                    "intercept takes one card, after `second` or not",
                ));
            }
        },
        Some("answer") => match &rest[1..] {
            [c, d] if c == "cancel" => ActText::Cancel(card_at(d)?),
            [k, rest @ ..] if k == "keep" => match rest {
                [m] => ActText::Keep(read_move(m).map_err(unreadable)?),
                _ => return Err(unreadable("answer keep takes one move")),
            },
            more => {
                let (card, moves, discard, start) = read_play(more)?;
                if start.is_some() || !discard.is_empty() {
                    return Err(unreadable("an answer takes no start card and no discard"));
                }
                ActText::Replay { card, moves }
            }
        },
        _ => {
            let (card, moves, discard, start) = read_play(rest)?;
            ActText::Turn {
                start,
                card,
                moves,
                discard,
            }
        }
    };
    Ok(Line { sprung, act })
}

type Play = (
    Option<CardText>,
    Vec<MoveText>,
    Vec<u32>,
    Option<(CardText, StartKind)>,
);

pub(super) fn read_play(words: &[String]) -> Result<Play, ReplayError> {
    let mut i = 0;
    let mut start = None;
    let mut card = None;
    let card_at = |i: usize| words.get(i).and_then(|w| read_card(w));
    if let Some(c) = card_at(0) {
        let c = c.map_err(unreadable)?;
        match words.get(1).map(String::as_str) {
            Some("takes") => {
                start = Some((c, StartKind::Take(number(words.get(2), "a card number")?)));
                i = 3;
            }
            Some("picks") => {
                if words.get(2).map(String::as_str) != Some("slot") {
                    return Err(unreadable("write `picks slot N`"));
                }
                start = Some((c, StartKind::Pick(number(words.get(3), "a slot")?)));
                i = 4;
            }
            _ => {
                card = Some(c);
                i = 1;
            }
        }
    }
    if start.is_some()
        && let Some(c) = card_at(i)
    {
        card = Some(c.map_err(unreadable)?);
        i += 1;
    }
    let mut moves = vec![];
    let mut discard = vec![];
    while let Some(w) = words.get(i) {
        i += 1;
        if w == "discard" {
            if words.len() == i {
                return Err(unreadable("discard names at least one card"));
            }
            for d in &words[i..] {
                discard.push(number(Some(d), "a card number to discard")?);
            }
            break;
        }
        moves.push(read_move(w).map_err(unreadable)?);
    }
    Ok((card, moves, discard, start))
}
