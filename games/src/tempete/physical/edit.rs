//! Board edits: how a player states what a physical card did on the board.
//!
//! The engine carries edits out as stated, without asking whether the card allows them
//! (it does not know the card's text): that is the opponent's to accept or dispute. It
//! checks only what keeps the board a chess board every later rule can read — squares
//! and kinds in range, a piece where one is moved or removed, an empty square where one
//! is placed, pawns never on the first or last rank — and that kings are never taken,
//! removed or placed (§4.3: the game ends by mate, never by a captured king).

use serde::{Deserialize, Serialize};

use crate::chess::wire::{kind_at, square_at};
use crate::chess::{Color, Kind, Piece, Square};

use super::super::board::{Board, pawn_edge};

/// At most this many edits in one act: enough for any card (a double move with its
/// captures and a placement is four), small enough to keep every act short.
pub const MAX_EDITS: usize = 16;

/// At most this many bytes of UTF-8 in a note.
pub const MAX_NOTE: usize = 280;

/// One change to the board, as a player states it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Edit {
    /// A piece (of either colour) goes from one square to another, taking what stands
    /// there; a pawn may become `promotion` (a kind index, knight to queen).
    Move {
        /// From square index.
        from: u8,
        /// To square index.
        to: u8,
        /// The kind a pawn becomes.
        promotion: Option<u8>,
    },
    /// The piece on a square leaves the board.
    Remove {
        /// The square.
        square: u8,
    },
    /// A piece appears on an empty square.
    Place {
        /// The square.
        square: u8,
        /// Whose piece: `false` White, `true` Black.
        black: bool,
        /// Its kind index (not a king).
        kind: u8,
    },
    /// Two pieces change places.
    Exchange {
        /// One square.
        a: u8,
        /// The other.
        b: u8,
    },
    /// The player moves again after this act: the turn does not pass.
    ExtraMove,
    /// The opponent's next turn is skipped: the turn does not pass either (in a game of
    /// two, the same on the board as [`Edit::ExtraMove`]; kept apart for the reader).
    SkipTurn,
    /// The opponent shows his whole hand with his next act (protocol version 2; the
    /// open deck's `show-hand`): nothing on the board.
    ShowHand,
}

/// Why stated edits cannot be carried out: the stating player's fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// More edits than [`MAX_EDITS`].
    #[error("at most {MAX_EDITS} edits in one act")]
    TooMany,
    /// A square index is not 0 to 63, or a kind index not 0 to 5.
    #[error("edit {index}: {why}")]
    Unreadable {
        /// Which edit (from 1).
        index: usize,
        /// What is wrong.
        why: String,
    },
    /// No piece stands where one is moved, removed or exchanged.
    #[error("edit {index}: no piece on {square}")]
    Empty {
        /// Which edit (from 1).
        index: usize,
        /// The square.
        square: Square,
    },
    /// A piece is placed on an occupied square.
    #[error("edit {index}: {square} is not empty")]
    Occupied {
        /// Which edit (from 1).
        index: usize,
        /// The square.
        square: Square,
    },
    /// A king would be taken, removed or placed.
    #[error("edit {index}: kings are never taken, removed or placed")]
    King {
        /// Which edit (from 1).
        index: usize,
    },
    /// A move or exchange names one square twice.
    #[error("edit {index}: {square} to itself")]
    SameSquare {
        /// Which edit (from 1).
        index: usize,
        /// The square.
        square: Square,
    },
    /// A pawn would stand on the first or last rank.
    #[error("edit {index}: a pawn never stands on the first or last rank ({square})")]
    PawnOnEdge {
        /// Which edit (from 1).
        index: usize,
        /// The square.
        square: Square,
    },
    /// A promotion names a pawn or a king, or the moving piece is not a pawn.
    #[error("edit {index}: only a pawn is promoted, to a knight, bishop, rook or queen")]
    BadPromotion {
        /// Which edit (from 1).
        index: usize,
    },
    /// A correction (a settlement or a ruling) cannot hand out extra moves or ask for a
    /// hand.
    #[error("a correction changes the board only: no extra move, skipped turn or shown hand")]
    TurnInCorrection,
    /// The note is longer than [`MAX_NOTE`] bytes.
    #[error("a note is at most {MAX_NOTE} bytes")]
    NoteTooLong,
    /// The note holds a control, direction or invisible formatting character.
    #[error("a note is plain text: no control, direction or invisible character")]
    HiddenInNote,
}

/// Checks a note: at most [`MAX_NOTE`] bytes of plain text (no character a terminal acts
/// on or that reorders text: the opponent reads it).
pub fn check_note(note: &str) -> Result<(), EditError> {
    if note.len() > MAX_NOTE {
        return Err(EditError::NoteTooLong);
    }
    if note.chars().any(sealed_protocol::text::is_hidden) {
        return Err(EditError::HiddenInNote);
    }
    Ok(())
}

/// What stated edits did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claimed {
    /// The board afterwards.
    pub board: Board,
    /// Whether the player moves again ([`Edit::ExtraMove`], [`Edit::SkipTurn`]).
    pub again: bool,
}

impl Edit {
    /// The squares this edit lands a piece on (what a trap sees).
    fn lands(&self) -> Option<u8> {
        match self {
            Edit::Move { to, .. } => Some(*to),
            _ => None,
        }
    }
}

impl Board {
    /// Carries out `side`'s stated play: the edits in order, then the end of the ply —
    /// the turn passes unless an edit gives `side` another move, the ply index grows, the
    /// landing squares of the moves are recorded for traps.
    pub fn claim(&self, side: Color, edits: &[Edit]) -> Result<Claimed, EditError> {
        let mut next = self.clone();
        next.lost = [Vec::new(), Vec::new()];
        next.landed.clear();
        let again = next.apply_edits(edits, true)?;
        if !again && next.pos.turn() == side {
            next.pos.pass_turn();
        }
        next.ply = next.ply.saturating_add(1);
        let ply = next.ply;
        next.frozen.retain(|&(_, until)| until > ply);
        next.forbidden.retain(|&(_, until)| until > ply);
        next.last_mover = Some(side);
        Ok(Claimed { board: next, again })
    }

    /// Carries out a correction (a settlement or a ruling): the edits only; the turn,
    /// the ply and the landing squares stay as they are.
    pub fn correct(&self, edits: &[Edit]) -> Result<Board, EditError> {
        let mut next = self.clone();
        if next.apply_edits(edits, false)? || edits.contains(&Edit::ShowHand) {
            return Err(EditError::TurnInCorrection);
        }
        Ok(next)
    }

    /// The edits in order; whether one of them gives another move.
    fn apply_edits(&mut self, edits: &[Edit], landings: bool) -> Result<bool, EditError> {
        if edits.len() > MAX_EDITS {
            return Err(EditError::TooMany);
        }
        let mut again = false;
        for (i, e) in edits.iter().enumerate() {
            let index = i + 1;
            let sq = |i: u8| {
                square_at(i).map_err(|e| EditError::Unreadable {
                    index,
                    why: e.to_string(),
                })
            };
            let occupied = |b: &Board, s: Square| {
                b.pos
                    .piece_at(s)
                    .ok_or(EditError::Empty { index, square: s })
            };
            match *e {
                Edit::Move {
                    from,
                    to,
                    promotion,
                } => {
                    let (from, to) = (sq(from)?, sq(to)?);
                    if from == to {
                        return Err(EditError::SameSquare {
                            index,
                            square: from,
                        });
                    }
                    let piece = occupied(self, from)?;
                    let kind = match promotion {
                        None => piece.kind,
                        Some(k) => {
                            let k = kind_at(k).map_err(|e| EditError::Unreadable {
                                index,
                                why: e.to_string(),
                            })?;
                            if piece.kind != Kind::Pawn || matches!(k, Kind::Pawn | Kind::King) {
                                return Err(EditError::BadPromotion { index });
                            }
                            k
                        }
                    };
                    if kind == Kind::Pawn && pawn_edge(to) {
                        return Err(EditError::PawnOnEdge { index, square: to });
                    }
                    if let Some(victim) = self.pos.piece_at(to) {
                        if victim.kind == Kind::King {
                            return Err(EditError::King { index });
                        }
                        self.captured[victim.color.idx()].push(victim.kind);
                        self.lost[victim.color.idx()].push(victim.kind);
                        self.drop_effects(to);
                    }
                    self.relocate(&[(from, to)]);
                    self.pos.set_piece(from, None);
                    self.pos.set_piece(
                        to,
                        Some(Piece {
                            color: piece.color,
                            kind,
                        }),
                    );
                }
                Edit::Remove { square } => {
                    let s = sq(square)?;
                    if occupied(self, s)?.kind == Kind::King {
                        return Err(EditError::King { index });
                    }
                    self.drop_effects(s);
                    self.pos.set_piece(s, None);
                }
                Edit::Place {
                    square,
                    black,
                    kind,
                } => {
                    let s = sq(square)?;
                    let kind = kind_at(kind).map_err(|e| EditError::Unreadable {
                        index,
                        why: e.to_string(),
                    })?;
                    if kind == Kind::King {
                        return Err(EditError::King { index });
                    }
                    if self.pos.piece_at(s).is_some() {
                        return Err(EditError::Occupied { index, square: s });
                    }
                    if kind == Kind::Pawn && pawn_edge(s) {
                        return Err(EditError::PawnOnEdge { index, square: s });
                    }
                    let color = if black { Color::Black } else { Color::White };
                    self.pos.set_piece(s, Some(Piece { color, kind }));
                }
                Edit::Exchange { a, b } => {
                    let (a, b) = (sq(a)?, sq(b)?);
                    if a == b {
                        return Err(EditError::SameSquare { index, square: a });
                    }
                    let (pa, pb) = (occupied(self, a)?, occupied(self, b)?);
                    for (p, to) in [(pa, b), (pb, a)] {
                        if p.kind == Kind::Pawn && pawn_edge(to) {
                            return Err(EditError::PawnOnEdge { index, square: to });
                        }
                    }
                    self.relocate(&[(a, b), (b, a)]);
                    self.pos.set_piece(a, Some(pb));
                    self.pos.set_piece(b, Some(pa));
                }
                Edit::ExtraMove | Edit::SkipTurn => again = true,
                // Not the board's: the flow makes the opponent owe his hand.
                Edit::ShowHand => {}
            }
            if landings && let Some(to) = e.lands().and_then(Square::from_index) {
                self.landed.push(to);
            }
        }
        Ok(again)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(from: &str, to: &str) -> Edit {
        let s = |t: &str| t.parse::<Square>().unwrap().index();
        Edit::Move {
            from: s(from),
            to: s(to),
            promotion: None,
        }
    }

    #[test]
    fn a_stated_move_is_carried_out_as_stated_and_the_turn_passes() {
        let b = Board::default();
        // A knight "moving as a camel": no chess rule allows it, the claim does.
        let c = b.claim(Color::White, &[mv("g1", "h4")]).unwrap();
        assert!(!c.again);
        assert_eq!(c.board.turn(), Color::Black);
        assert_eq!(c.board.ply(), 1);
        let knight = c.board.position().piece_at("h4".parse().unwrap()).unwrap();
        assert_eq!(knight.kind, Kind::Knight);
    }

    #[test]
    fn an_extra_move_keeps_the_turn() {
        let c = Board::default()
            .claim(Color::White, &[mv("e2", "e4"), Edit::ExtraMove])
            .unwrap();
        assert!(c.again);
        assert_eq!(c.board.turn(), Color::White);
    }

    #[test]
    fn kings_are_never_taken_removed_or_placed() {
        let b = Board::default();
        let e1 = "e1".parse::<Square>().unwrap().index();
        let e8 = "e8".parse::<Square>().unwrap().index();
        assert_eq!(
            b.claim(Color::White, &[Edit::Remove { square: e1 }]),
            Err(EditError::King { index: 1 })
        );
        assert_eq!(
            b.claim(Color::White, &[mv("d1", "e8")]),
            Err(EditError::King { index: 1 })
        );
        let _ = e8;
        assert_eq!(
            b.claim(
                Color::White,
                &[Edit::Place {
                    square: 30,
                    black: false,
                    kind: 5
                }]
            ),
            Err(EditError::King { index: 1 })
        );
    }

    #[test]
    fn edits_that_do_not_fit_the_board_are_refused() {
        let b = Board::default();
        assert!(matches!(
            b.claim(
                Color::White,
                &[Edit::Move {
                    from: 64,
                    to: 1,
                    promotion: None
                }]
            ),
            Err(EditError::Unreadable { index: 1, .. })
        ));
        assert!(matches!(
            b.claim(Color::White, &[mv("e4", "e5")]),
            Err(EditError::Empty { .. })
        ));
        assert!(matches!(
            b.claim(
                Color::White,
                &[Edit::Place {
                    square: 0,
                    black: true,
                    kind: 1
                }]
            ),
            Err(EditError::Occupied { .. })
        ));
        assert!(matches!(
            b.claim(Color::White, &[mv("d1", "e1")]),
            Err(EditError::King { .. })
        ));
        assert!(matches!(
            b.claim(Color::White, &[mv("a2", "a8")]),
            Err(EditError::PawnOnEdge { .. })
        ));
        assert_eq!(
            b.claim(Color::White, &vec![Edit::ExtraMove; MAX_EDITS + 1]),
            Err(EditError::TooMany)
        );
        assert_eq!(
            b.correct(&[Edit::SkipTurn]),
            Err(EditError::TurnInCorrection)
        );
    }

    #[test]
    fn a_correction_leaves_turn_and_ply_alone() {
        let b = Board::default()
            .claim(Color::White, &[mv("e2", "e4")])
            .unwrap()
            .board;
        let fixed = b.correct(&[mv("e4", "e2")]).unwrap();
        assert_eq!(fixed.turn(), Color::Black);
        assert_eq!(fixed.ply(), 1);
        assert_eq!(
            fixed.position().piece_at("e2".parse().unwrap()),
            Board::default().position().piece_at("e2".parse().unwrap())
        );
    }
}
