//! When two positions are "the same" for threefold repetition.
//!
//! Same placement of every piece, same side to move, same castling rights and the same
//! en passant chance — where an en passant chance only counts if an en passant capture
//! is actually legal, as FIDE counts it (a double step past no enemy pawn changes
//! nothing a player could do). The move counters do not count.
//!
//! *Interpretation:* the third occurrence ends the game at once, with no claim: nobody
//! but the referee sees the board, so nobody else could claim it.

use std::collections::HashMap;

use crate::chess::{MoveKind, Position};

/// A position reduced to what repetition compares.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RepetitionKey(String);

impl RepetitionKey {
    /// The key of a position.
    pub fn of(pos: &Position) -> RepetitionKey {
        let fen = pos.shredder_fen();
        let mut fields = fen.split(' ');
        let placement = fields.next().unwrap_or_default();
        let turn = fields.next().unwrap_or_default();
        let castling = fields.next().unwrap_or_default();
        let en_passant = match pos.en_passant() {
            Some(sq)
                if pos
                    .legal_moves()
                    .iter()
                    .any(|m| m.kind == MoveKind::EnPassant) =>
            {
                sq.to_string()
            }
            _ => "-".to_owned(),
        };
        RepetitionKey(format!("{placement} {turn} {castling} {en_passant}"))
    }
}

/// How many times each position has stood in a game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Repetitions(HashMap<RepetitionKey, u8>);

impl Repetitions {
    /// Counts one more occurrence of `pos`; returns how often it has now stood.
    pub fn record(&mut self, pos: &Position) -> u8 {
        let n = self.0.entry(RepetitionKey::of(pos)).or_insert(0);
        *n = n.saturating_add(1);
        *n
    }
}
