//! The circuit's words in the game's: an attempt as the 16-bit item the computation
//! takes (`sealed_mpc::inputs::item`), the answer's ending code, the options.

use sealed_mpc::inputs::{ANY, Answer as Bits, item};
use sealed_mpc::play::public::Options as MpcOptions;

use super::super::attempt::Attempt;
use super::super::ending::BoardEnd;
use super::super::options::Options;
use super::super::setup::Setup;
use crate::chess::{Kind, Square};

/// A promotion's code in an item: the kind's index, a pawn 6 (never legal, judged as the
/// referee judges it, not read as no promotion), 0 for none.
fn promotion_code(k: Option<Kind>) -> u8 {
    match k {
        None => 0,
        Some(Kind::Pawn) => 6,
        Some(k) => k.idx() as u8,
    }
}

/// An attempt as an item.
pub fn to_item(a: &Attempt) -> u16 {
    match a {
        Attempt::Any => ANY,
        Attempt::Move {
            from,
            to,
            promotion,
        } => item(from.index(), to.index(), promotion_code(*promotion)),
    }
}

/// The attempt an item stands for; none for the items no attempt makes (a promotion
/// code of 7, or the top bit set but not "Any").
pub fn from_item(i: u16) -> Option<Attempt> {
    if i == ANY {
        return Some(Attempt::Any);
    }
    if i & 0x8000 != 0 {
        return None;
    }
    let square = |n: u16| Square::from_index((n & 63) as u8);
    let promotion = match (i >> 12) & 7 {
        0 => None,
        6 => Some(Kind::Pawn),
        7 => return None,
        k => Some(Kind::ALL[usize::from(k)]),
    };
    Some(Attempt::Move {
        from: square(i)?,
        to: square(i >> 6)?,
        promotion,
    })
}

/// The ending an answer's bits report (`end`, and `pieces` for a stalemate).
pub fn ending(bits: &Bits) -> Option<BoardEnd> {
    match bits.end {
        1 => Some(BoardEnd::Checkmate),
        2 => Some(BoardEnd::Stalemate {
            pieces: bits.pieces,
        }),
        3 => Some(BoardEnd::BareKings),
        4 => Some(BoardEnd::Repetition),
        5 => Some(BoardEnd::PlyLimit),
        _ => None,
    }
}

/// A back rank as the computation takes it: each kind's index.
pub fn rank(s: Setup) -> [u8; 8] {
    s.back_rank().map(|k| k.idx() as u8)
}

/// The options the computation reads.
pub fn mpc_options(o: &Options) -> MpcOptions {
    MpcOptions {
        must_try: o.must_try,
        name_capturer: o.name_capturer,
        ply_limit: o.ply_limit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_that_is_an_attempt_comes_back_as_itself() {
        let mut attempts = 0;
        for i in 0..=u16::MAX {
            if let Some(a) = from_item(i) {
                attempts += 1;
                assert_eq!(to_item(&a), i, "{a:?}");
            }
        }
        // 64 × 64 squares × 7 promotion codes, and "Any".
        assert_eq!(attempts, 64 * 64 * 7 + 1);
    }
}
