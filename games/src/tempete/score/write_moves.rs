//! Writing a score: the chess moves of an act — SAN for a plain move (the chess crate's
//! one writer, told apart among Tempête's plain moves), long algebraic for a card's
//! later moves, each checked to read back as the move it names. Why an act cannot be
//! written: [`Unwritable`].

use crate::chess::{CastleSide, Kind, MoveText, PieceText, Square};

use crate::tempete::act::{CardRef, CardUse, WireMove};
use crate::tempete::board::Board;
use crate::tempete::rules::Tempete;

use super::grammar::read_move;
use super::resolve::{Mode, resolve, resolve_in};

pub(super) fn kind_of(i: u8) -> Option<Kind> {
    Kind::ALL.get(usize::from(i)).copied()
}

pub(super) fn sq_text(i: u8) -> String {
    Square::from_index(i).map_or_else(|| format!("?{i}"), |s| s.to_string())
}

/// How an act's cards are named in text: a slot is shown by the card it held.
pub(super) struct Naming<'a> {
    pub(super) cards: &'a [(u32, u32)],
}

/// Why an act cannot be written as score text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum Unwritable {
    /// A slot played whose card the envelope did not open.
    #[error("slot {0} is played but its card is not given")]
    SlotUnknown(u32),
    /// A kind index that is no kind.
    #[error("{0} is not a kind")]
    NotAKind(u8),
    /// A kept card's answer of other than one move.
    #[error("a kept card's answer has {0} moves, not one")]
    KeepMoves(usize),
}

impl Naming<'_> {
    pub(super) fn number(&self, slot: u32) -> Result<u32, Unwritable> {
        self.cards
            .iter()
            .find(|(s, _)| *s == slot)
            .map(|(_, n)| *n)
            .ok_or(Unwritable::SlotUnknown(slot))
    }

    pub(super) fn card(&self, u: &CardUse) -> Result<String, Unwritable> {
        let mut t = match u.card {
            CardRef::Slot(s) => self.number(s)?.to_string(),
            CardRef::Taken(n) => format!("t{n}"),
            CardRef::Again => "again".into(),
        };
        if !u.squares.is_empty() {
            t.push('@');
            let sq: Vec<String> = u.squares.iter().map(|s| sq_text(*s)).collect();
            t.push_str(&sq.join(","));
        }
        if let Some(k) = u.kind {
            let k = kind_of(k).ok_or(Unwritable::NotAKind(k))?;
            t.push('=');
            t.push(k.upper());
        }
        Ok(t)
    }

    pub(super) fn card_ref(&self, r: CardRef) -> Result<String, Unwritable> {
        self.card(&CardUse {
            card: r,
            squares: vec![],
            kind: None,
        })
    }
}

/// A wire move's squares, if its indices are squares.
fn move_parts(m: WireMove) -> Option<(Square, Square)> {
    Square::from_index(m.from).zip(Square::from_index(m.to))
}

/// The text written for a wire move whose indices are not both squares.
fn raw_text(m: WireMove) -> String {
    format!("{}{}", sq_text(m.from), sq_text(m.to))
}

/// A plain move in SAN, disambiguated against the plain moves of `board` so that
/// [`resolve`] reads it back; if it would not, both squares.
pub(super) fn san_text(board: &Board, m: WireMove) -> String {
    let Some((from, to)) = move_parts(m) else {
        return raw_text(m);
    };
    let pos = board.position();
    let plain = board.plain_moves();
    let letter = pos.piece_at(from).map(|p| p.kind);
    // Both squares without a `-`, the form read back whatever the board allows.
    let squares = |capture: bool, promotion: Option<Kind>| {
        let long = MoveText::long(letter, from, to, capture, promotion);
        match long {
            MoveText::Piece(p) => MoveText::Piece(PieceText { dash: false, ..p }),
            castle => castle,
        }
    };
    let Some(cand) = plain.iter().find(|c| WireMove::of(c) == m) else {
        // Not a plain move (a score of an act the judge refused).
        return squares(false, m.promotion.and_then(kind_of)).to_string();
    };
    let text = pos.san_among(cand, &plain, |c| board.is_capture(c));
    if resolve(board, true, text) == Ok(m) {
        text.to_string()
    } else {
        squares(board.is_capture(cand), cand.promotion).to_string()
    }
}

/// A card move in LAN (`Ng1-f3`, `e7xd8=Q`, `O-O`), checked to read back.
pub(super) fn lan_text(board: &Board, pieces: &[(Square, Kind)], m: WireMove) -> String {
    let Some((from, to)) = move_parts(m) else {
        return raw_text(m);
    };
    let pos = board.position();
    let kind = pieces
        .iter()
        .rev()
        .find(|(s, _)| *s == from)
        .map(|(_, k)| *k)
        .or_else(|| pos.piece_at(from).map(|p| p.kind));
    let us = board.turn();
    let own_rook = pos
        .piece_at(to)
        .is_some_and(|p| p.color == us && p.kind == Kind::Rook);
    if kind == Some(Kind::King) && own_rook && m.promotion.is_none() {
        for side in CastleSide::ALL {
            if resolve(board, false, MoveText::Castle(side)).ok() == Some(m) {
                return side.san().to_owned();
            }
        }
    }
    let capture = pos.piece_at(to).is_some_and(|p| p.color != us);
    let promotion = m.promotion.and_then(kind_of);
    MoveText::long(kind, from, to, capture, promotion).to_string()
}

/// Where the pieces a card play moves stand after its edit (for the letters of LAN):
/// a `before` swap exchanges two squares, a `before` return puts a kind on one.
pub(super) fn edited_pieces(
    rules: &Tempete,
    board: &Board,
    number: Option<u32>,
    u: &CardUse,
) -> Vec<(Square, Kind)> {
    use crate::tempete::card::{Effect, Timing};
    let Some(card) = number.and_then(|n| rules.card(n)) else {
        return vec![];
    };
    if card.timing() != Timing::Before {
        return vec![];
    }
    let sq: Vec<Square> = u
        .squares
        .iter()
        .filter_map(|s| Square::from_index(*s))
        .collect();
    let at = |s: Square| board.position().piece_at(s).map(|p| p.kind);
    match (card.effect(), sq.as_slice()) {
        (Effect::SwapOwn, [a, b]) => [(a, b), (b, a)]
            .into_iter()
            .filter_map(|(x, y)| at(*y).map(|k| (*x, k)))
            .collect(),
        (Effect::Revive, [a]) => u
            .kind
            .and_then(kind_of)
            .map(|k| vec![(*a, k)])
            .unwrap_or_default(),
        _ => vec![],
    }
}

/// The moves of a card play in LAN, each letter from where the piece stands then.
pub(super) fn card_moves_text(
    rules: &Tempete,
    board: &Board,
    number: Option<u32>,
    u: &CardUse,
    moves: &[WireMove],
) -> Vec<String> {
    use crate::tempete::card::Timing;
    let plain_first = number
        .and_then(|n| rules.card(n))
        .is_some_and(|c| c.effect().flow().is_some() || c.timing() == Timing::After);
    let mut pieces = edited_pieces(rules, board, number, u);
    let mut out = vec![];
    for (k, m) in moves.iter().enumerate() {
        let san = (k == 0 && plain_first)
            .then(|| san_text(board, *m))
            .filter(|t| {
                read_move(t)
                    .ok()
                    .and_then(|mt| resolve_in(board, Mode::CardFirst, mt).ok())
                    == Some(*m)
            });
        out.push(san.unwrap_or_else(|| lan_text(board, &pieces, *m)));
        if let (Some(from), Some(to)) = (Square::from_index(m.from), Square::from_index(m.to)) {
            let k = pieces
                .iter()
                .rev()
                .find(|(s, _)| *s == from)
                .map(|(_, k)| *k)
                .or_else(|| board.position().piece_at(from).map(|p| p.kind));
            if let Some(k) = k {
                pieces.push((to, k));
            }
        }
    }
    out
}
