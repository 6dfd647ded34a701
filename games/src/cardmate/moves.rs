//! How each rank moves and captures, and which moves are legal.
//!
//! Ranks One to Seven step to an adjacent square in their directions; every one of them,
//! and the Eight and Nine, may also step straight back without capturing (the seed's
//! "right of quiet retreat", read from its diagrams and its second sample game). Ten to
//! Ace move alike forwards and backwards. A capture is legal against a card of another
//! suit whatever the ranks, or against a card of the same suit of lower rank; and when a
//! same-suit capture exists, the player must make one.

use super::board::{Board, Side, Square};
use super::card::{Card, Rank};
use super::options::{NineRetreat, Options};

/// A move: which card goes where, what it takes, and whether a One becomes an Ace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The card that moves (before any promotion).
    pub card: Card,
    /// From.
    pub from: Square,
    /// To.
    pub to: Square,
    /// The enemy card taken, if any.
    pub capture: Option<Card>,
    /// A One entering the opponent's half becomes the Ace of its suit.
    pub promote: bool,
}

impl Move {
    /// Whether this captures a card of its own suit (the compulsory kind).
    pub fn same_suit_capture(&self) -> bool {
        self.capture.is_some_and(|c| c.suit == self.card.suit)
    }
}

const KNIGHT: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const ORTHOGONAL: [(i8, i8); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];
const DIAGONAL: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, -1), (-1, 1)];

/// Whether `card` may take `target` (an enemy card).
pub fn may_capture(card: Card, target: Card) -> bool {
    card.suit != target.suit || card.rank > target.rank
}

/// The directions, relative to the owner's forwards, a One..Seven steps in to move and
/// capture: F forwards, DF diagonally forwards, S sideways, DB diagonally backwards.
fn step_dirs(rank: Rank) -> &'static [(i8, i8)] {
    const F: (i8, i8) = (0, 1);
    const DFL: (i8, i8) = (-1, 1);
    const DFR: (i8, i8) = (1, 1);
    const SL: (i8, i8) = (-1, 0);
    const SR: (i8, i8) = (1, 0);
    const DBL: (i8, i8) = (-1, -1);
    const DBR: (i8, i8) = (1, -1);
    match rank {
        Rank::One => &[F],
        Rank::Two => &[DFL, DFR],
        Rank::Three => &[DFL, DFR, F],
        Rank::Four => &[DFL, DFR, SL, SR],
        Rank::Five => &[DFL, DFR, SL, SR, F],
        Rank::Six => &[DFL, DFR, SL, SR, DBL, DBR],
        Rank::Seven => &[DFL, DFR, SL, SR, DBL, DBR, F],
        _ => &[],
    }
}

/// Pseudo-legal moves of one piece (everything its rank allows, before compulsion).
fn piece_moves(
    board: &Board,
    from: Square,
    card: Card,
    side: Side,
    opts: &Options,
    out: &mut Vec<Move>,
) {
    let fwd = side.forward();
    // A target the card may step or land on: empty (move) or enemy it may take.
    let land = |to: Square, capture_ok: bool, out: &mut Vec<Move>| -> bool {
        match board.get(to) {
            None => {
                push(out, card, from, to, None, side);
                true
            }
            Some(p) if p.side != side && capture_ok && may_capture(card, p.card) => {
                push(out, card, from, to, Some(p.card), side);
                false
            }
            Some(_) => false,
        }
    };
    let step = |df: i8, dr: i8| from.offset(df, dr * fwd);
    let quiet_back = |out: &mut Vec<Move>| {
        if let Some(to) = step(0, -1)
            && board.get(to).is_none()
        {
            push(out, card, from, to, None, side);
        }
    };
    match card.rank {
        Rank::One | Rank::Two | Rank::Three | Rank::Four | Rank::Five | Rank::Six | Rank::Seven => {
            for &(df, dr) in step_dirs(card.rank) {
                if let Some(to) = step(df, dr) {
                    land(to, true, out);
                }
            }
            quiet_back(out);
        }
        Rank::Eight => {
            for (df, dr) in KNIGHT {
                if let Some(to) = from.offset(df, dr) {
                    land(to, true, out);
                }
            }
            quiet_back(out);
        }
        Rank::Nine => {
            slides(from, &DIAGONAL, 9, &mut |to| land(to, true, out));
            match opts.nine_retreat {
                NineRetreat::One => quiet_back(out),
                NineRetreat::Any => {
                    let mut to = step(0, -1);
                    while let Some(t) = to {
                        if board.get(t).is_some() {
                            break;
                        }
                        push(out, card, from, t, None, side);
                        to = t.offset(0, -fwd);
                    }
                }
            }
        }
        Rank::Ten => slides(from, &ORTHOGONAL, 9, &mut |to| land(to, true, out)),
        Rank::Jack => {
            for (df, dr) in KNIGHT {
                if let Some(to) = from.offset(df, dr) {
                    land(to, true, out);
                }
            }
            slides(from, &ORTHOGONAL, 2, &mut |to| land(to, true, out));
            slides(from, &DIAGONAL, 2, &mut |to| land(to, true, out));
        }
        Rank::Queen | Rank::Ace => {
            if card.rank == Rank::Ace {
                for (df, dr) in KNIGHT {
                    if let Some(to) = from.offset(df, dr) {
                        land(to, true, out);
                    }
                }
            }
            slides(from, &ORTHOGONAL, 9, &mut |to| land(to, true, out));
            slides(from, &DIAGONAL, 9, &mut |to| land(to, true, out));
        }
        Rank::King => {
            slides(from, &ORTHOGONAL, 1, &mut |to| land(to, true, out));
            slides(from, &DIAGONAL, 1, &mut |to| land(to, true, out));
        }
    }
}

/// Walks each direction up to `max` squares; `visit` says whether to go on.
fn slides(from: Square, dirs: &[(i8, i8)], max: i8, visit: &mut dyn FnMut(Square) -> bool) {
    for &(df, dr) in dirs {
        let mut at = from;
        for _ in 0..max {
            let Some(next) = at.offset(df, dr) else { break };
            if !visit(next) {
                break;
            }
            at = next;
        }
    }
}

/// Adds a move, and its promoting twin when a One enters the opponent's half.
fn push(
    out: &mut Vec<Move>,
    card: Card,
    from: Square,
    to: Square,
    capture: Option<Card>,
    side: Side,
) {
    out.push(Move {
        card,
        from,
        to,
        capture,
        promote: false,
    });
    if card.rank == Rank::One && side.own_half(from.rank()) && !side.own_half(to.rank()) {
        out.push(Move {
            card,
            from,
            to,
            capture,
            promote: true,
        });
    }
}

/// Every move `side`'s cards allow, before the same-suit compulsion.
pub fn pseudo_moves(board: &Board, side: Side, opts: &Options) -> Vec<Move> {
    let mut all = Vec::with_capacity(64);
    for (from, p) in board.pieces() {
        if p.side == side {
            piece_moves(board, from, p.card, side, opts, &mut all);
        }
    }
    all
}

/// Every legal move of `side`: all pseudo-legal moves, or only the same-suit captures
/// when there is one (the compulsion outranks everything, capturing a King included).
pub fn legal_moves(board: &Board, side: Side, opts: &Options) -> Vec<Move> {
    let mut all = pseudo_moves(board, side, opts);
    if all.iter().any(Move::same_suit_capture) {
        all.retain(Move::same_suit_capture);
    }
    all
}
