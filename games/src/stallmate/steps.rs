//! The positions a page steps back through in Secret Stallmate (the view's `steps`,
//! `games/src/table/steps.rs`): the whole game's to whoever sees both armies (the
//! referee, everyone once the game is over and revealed), one position after each move;
//! a player's own army's while the game goes on, one position after each period that
//! changed it (his own moves, and each of the opponent's periods, where he may have lost
//! a piece), as [`MoverView::boards`] keeps them.
//!
//! A game's periods with the move each made ([`periods`]) are read here once, for the
//! steps and for the PGN (`pgn.rs`), so that both count the same moves: one per period
//! that ended with a "yes" whose move is legal on the board before it.

use crate::chess::{Color, Move, Position, Square};
use crate::table::Grid;

use super::referee::Referee;
use super::turn::Turn;
use super::view::MoverView;

/// One period of a game as the referee recorded it.
pub(crate) struct Period<'a> {
    pub(crate) turn: &'a Turn,
    /// Whether the period is over (not the one still open).
    pub(crate) closed: bool,
    /// The board before it.
    pub(crate) before: Position,
    /// The move it made: its "yes", when legal on `before`.
    pub(crate) made: Option<Move>,
}

/// Every period of the game, closed ones first, then the open one if anything was
/// attempted in it.
pub(crate) fn periods(r: &Referee) -> Vec<Period<'_>> {
    let open = r.current().filter(|t| !t.entries.is_empty());
    let closed = r.history().len();
    let mut pos = r.start_position();
    let mut out = Vec::with_capacity(closed + 1);
    for (i, turn) in r.history().iter().chain(open).enumerate() {
        let squares = turn.moved().and_then(|a| a.squares());
        let made = squares.and_then(|(from, to, promotion)| pos.find_legal(from, to, promotion));
        let after = made.map(|mv| pos.play_unchecked(&mv));
        out.push(Period {
            turn,
            closed: i < closed,
            before: pos.clone(),
            made,
        });
        if let Some(after) = after {
            pos = after;
        }
    }
    out
}

/// The whole game's boards as `from`'s side sees the board: the start, then the
/// position after each move with its two squares.
pub(crate) fn of_game(r: &Referee, from: Color) -> Vec<(Grid, Vec<String>)> {
    let mut out = vec![(grid(&r.start_position(), from), vec![])];
    for p in periods(r) {
        if let Some(mv) = p.made {
            let after = p.before.play_unchecked(&mv);
            out.push((grid(&after, from), names(&[mv.from, mv.to])));
        }
    }
    out
}

/// One player's boards of his own army, as [`MoverView::boards`] keeps them.
pub(crate) fn of_player(view: &MoverView) -> Vec<(Grid, Vec<String>)> {
    view.boards()
        .iter()
        .map(|(board, squares)| (grid(board, view.color()), names(squares)))
        .collect()
}

fn grid(pos: &Position, from: Color) -> Grid {
    Grid::chess(pos, from, |_| vec![])
}

fn names(squares: &[Square]) -> Vec<String> {
    squares.iter().map(|s| s.to_string()).collect()
}
