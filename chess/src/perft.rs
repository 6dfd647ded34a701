//! Perft: the number of legal move sequences of a given length, the standard way to
//! check a move generator against another one.

use super::moves::Move;
use super::position::Position;

/// The number of leaf positions `depth` plies below `pos` (1 at depth 0).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        // Counting the last ply's moves without making them is the usual shortcut.
        1 => pos.legal_moves().len() as u64,
        _ => pos
            .legal_moves()
            .iter()
            .map(|mv| perft(&pos.play_unchecked(mv), depth - 1))
            .sum(),
    }
}

/// Perft split by first move, to find where two generators disagree.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .into_iter()
        .map(|mv| (mv, perft(&pos.play_unchecked(&mv), depth - 1)))
        .collect()
}
