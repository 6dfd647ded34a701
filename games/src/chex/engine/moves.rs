//! Chess moves on the unbounded board, and the rule that the board must stay one group.

use super::board::{Board, Color, Kind, NEIGHBOURS, Square, bounds_of, connected};

/// A chess move: the piece on `from` goes to `to`, taking whatever stands there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Move {
    /// Where the piece stands.
    pub from: Square,
    /// Where it goes.
    pub to: Square,
}

impl Move {
    /// A move.
    pub fn new(from: Square, to: Square) -> Move {
        Move { from, to }
    }
}

const KNIGHT: [(i32, i32); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const ORTHOGONAL: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const DIAGONAL: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// The moves of the piece on `from` by how it moves alone, before the connectivity rule,
/// with destinations kept within one square of the bounding box of the other pieces:
/// a piece landing farther out touches nothing, so such a move could never keep the
/// board in one group, and cutting there keeps a slider's move list finite. The only
/// piece on the board has no move at all: moving it would merely shift the whole board
/// (this cannot happen in play, where the opponent always has a piece on the board).
pub fn pseudo_moves_from(board: &Board, from: Square) -> Vec<Move> {
    let Some(piece) = board.get(from) else {
        return vec![];
    };
    let Some((lo, hi)) = bounds_of(board.iter().map(|(s, _)| s).filter(|&s| s != from)) else {
        return vec![];
    };
    // i64 so that a box at the edge of the i32 range cannot overflow.
    let near = |s: Square| {
        (i64::from(lo.x) - 1..=i64::from(hi.x) + 1).contains(&i64::from(s.x))
            && (i64::from(lo.y) - 1..=i64::from(hi.y) + 1).contains(&i64::from(s.y))
    };
    let own = |s: Square| board.get(s).is_some_and(|p| p.color == piece.color);
    let enemy = |s: Square| board.get(s).is_some_and(|p| p.color != piece.color);
    let mut out = vec![];
    let mut step = |dirs: &[(i32, i32)]| {
        for &(dx, dy) in dirs {
            if let Some(to) = from.offset(dx, dy)
                && near(to)
                && !own(to)
            {
                out.push(Move::new(from, to));
            }
        }
    };
    match piece.kind {
        Kind::King => step(&NEIGHBOURS),
        Kind::Knight => step(&KNIGHT),
        Kind::Pawn => {
            let f = piece.color.forward();
            if let Some(to) = from.offset(0, f)
                && near(to)
                && board.get(to).is_none()
            {
                out.push(Move::new(from, to));
            }
            for dx in [-1, 1] {
                if let Some(to) = from.offset(dx, f)
                    && enemy(to)
                {
                    out.push(Move::new(from, to));
                }
            }
        }
        Kind::Rook | Kind::Bishop | Kind::Queen => {
            let dirs: Vec<(i32, i32)> = match piece.kind {
                Kind::Rook => ORTHOGONAL.to_vec(),
                Kind::Bishop => DIAGONAL.to_vec(),
                _ => [ORTHOGONAL, DIAGONAL].concat(),
            };
            // Past this many steps a ray has left the box for good, even from a start
            // outside it (possible only in hand-built, unconnected positions).
            let reach = [
                i64::from(lo.x) - 1,
                i64::from(hi.x) + 1,
                i64::from(lo.y) - 1,
                i64::from(hi.y) + 1,
            ]
            .iter()
            .zip([from.x, from.x, from.y, from.y])
            .map(|(edge, c)| (edge - i64::from(c)).abs())
            .max()
            .unwrap_or(0);
            for (dx, dy) in dirs {
                let mut at = from;
                for _ in 0..reach {
                    let Some(next) = at.offset(dx, dy) else { break };
                    at = next;
                    match board.get(at) {
                        Some(p) => {
                            if p.color != piece.color {
                                out.push(Move::new(from, at));
                            }
                            break;
                        }
                        None if near(at) => out.push(Move::new(from, at)),
                        None => {}
                    }
                }
            }
        }
    }
    out
}

/// Every move of `color` by how the pieces move, before the connectivity rule
/// (see [`pseudo_moves_from`] for the bound on destinations).
pub fn pseudo_moves(board: &Board, color: Color) -> Vec<Move> {
    board
        .iter()
        .filter(|(_, p)| p.color == color)
        .flat_map(|(s, _)| pseudo_moves_from(board, s))
        .collect()
}

/// Whether all pieces still form one 8-connected group after the move (and the
/// removal of what it takes).
pub fn keeps_connected(board: &Board, m: &Move) -> bool {
    // The squares after the move, each once: the set `board − {from} ∪ {to}`.
    let mut squares: Vec<Square> = board
        .iter()
        .map(|(s, _)| s)
        .filter(|&s| s != m.from && s != m.to)
        .collect();
    squares.push(m.to);
    connected(&squares)
}

/// Every legal move of `color`: movement plus the connectivity rule. Being left with
/// a capturable King does not make a move illegal.
pub fn legal_moves(board: &Board, color: Color) -> Vec<Move> {
    pseudo_moves(board, color)
        .into_iter()
        .filter(|m| keeps_connected(board, m))
        .collect()
}

/// Whether `m` is one of [`legal_moves`]`(board, color)`, without computing them all:
/// every move there starts on a square of `color`'s and is one of that piece's
/// [`pseudo_moves_from`], so only that piece's moves and `m`'s connectivity are looked
/// at (the replay checks each move made, and each would otherwise cost the whole list).
pub fn is_legal(board: &Board, color: Color, m: &Move) -> bool {
    board.get(m.from).is_some_and(|p| p.color == color)
        && pseudo_moves_from(board, m.from).contains(m)
        && keeps_connected(board, m)
}

/// Whether [`legal_moves`]`(board, color)` is not empty, stopping at the first.
pub fn has_legal_move(board: &Board, color: Color) -> bool {
    board
        .iter()
        .filter(|(_, p)| p.color == color)
        .any(|(s, _)| {
            pseudo_moves_from(board, s)
                .iter()
                .any(|m| keeps_connected(board, m))
        })
}

/// Whether `color` has a legal move that takes the piece on `target`.
pub fn can_capture(board: &Board, color: Color, target: Square) -> bool {
    if board.get(target).is_none_or(|p| p.color == color) {
        return false;
    }
    board
        .iter()
        .filter(|(_, p)| p.color == color)
        .flat_map(|(s, _)| pseudo_moves_from(board, s))
        .any(|m| m.to == target && keeps_connected(board, &m))
}

#[cfg(test)]
mod tests {
    use super::super::position::Position;
    use super::*;
    use std::collections::BTreeSet;

    /// The connectivity rule as it was first written, over a set: the reference the
    /// list search of `board::connected` must agree with.
    fn connected_by_set(mut rest: BTreeSet<Square>) -> bool {
        let Some(start) = rest.pop_first() else {
            return true;
        };
        let mut frontier = vec![start];
        while let Some(s) = frontier.pop() {
            for n in s.neighbours() {
                if rest.remove(&n) {
                    frontier.push(n);
                }
            }
        }
        rest.is_empty()
    }

    /// The shortcuts the replay takes (`is_legal`, `has_legal_move`, the list search in
    /// `keeps_connected`) give what the whole list of legal moves and the set search
    /// give, for both colours, on every position of many random games, and for moves
    /// that are legal, illegal by movement, from an empty or enemy square, or that
    /// break the board.
    #[test]
    fn the_replays_shortcuts_agree_with_the_whole_move_list() {
        let mut rng: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            usize::try_from(rng % n.max(1) as u64).unwrap_or(0)
        };
        let (mut positions, mut moves_checked, mut broke) = (0, 0, 0);
        for _ in 0..40 {
            let mut pos = Position::new(0);
            for _ in 0..160 {
                if pos.is_over() {
                    break;
                }
                positions += 1;
                for color in Color::BOTH {
                    let all = legal_moves(&pos.board, color);
                    assert_eq!(has_legal_move(&pos.board, color), !all.is_empty());
                    let squares: Vec<Square> = pos.board.iter().map(|(s, _)| s).collect();
                    let mut tried: Vec<Move> = pseudo_moves(&pos.board, color);
                    for _ in 0..if squares.is_empty() { 0 } else { 12 } {
                        let from = squares[next(squares.len())];
                        let to = squares[next(squares.len())]
                            .offset(next(5) as i32 - 2, next(5) as i32 - 2)
                            .unwrap_or(from);
                        tried.push(Move::new(from, to));
                    }
                    for m in &tried {
                        assert_eq!(
                            is_legal(&pos.board, color, m),
                            all.contains(m),
                            "{color} {m:?}"
                        );
                        let mut after: BTreeSet<Square> = squares.iter().copied().collect();
                        after.remove(&m.from);
                        after.insert(m.to);
                        let by_set = connected_by_set(after);
                        assert_eq!(keeps_connected(&pos.board, m), by_set, "{m:?}");
                        broke += usize::from(!by_set);
                        moves_checked += 1;
                    }
                }
                let moves = pos.legal_moves();
                if pos.can_draw() && (moves.is_empty() || next(3) == 0) {
                    let pool = pos.draw_pool(pos.to_move);
                    let kind = pool[next(pool.len())];
                    pos.declare_draw(pos.to_move).expect("may draw");
                    let at = pos.placement_squares();
                    pos.place(kind, at[next(at.len())]).expect("placed");
                } else if !moves.is_empty() {
                    pos.play_move(&moves[next(moves.len())]).expect("legal");
                } else {
                    break;
                }
            }
        }
        assert!(positions > 2_000 && moves_checked > 100_000 && broke > 1_000);
    }
}
