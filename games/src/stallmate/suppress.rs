//! Which of a turn's announcements the opponent does not hear (seed rule 5).
//!
//! The seed suppresses announcements of "obviously impossible" attempts. Every rule
//! below is decided from the mover's own knowledge alone — his own pieces, his setup,
//! the turn so far and the turn count — never from the hidden army, so a suppressed
//! attempt tells the opponent nothing he could not be told, and hearing the rest
//! tells him only about attempts that could have been legal as far as the mover knew.
//!
//! A move attempt is silent when ([`Silence`], first match wins):
//!
//! 1. **[`Silence::NotOwnPiece`]** — its from-square holds no piece of the mover (empty,
//!    or an enemy piece). *Interpretation:* the seed names "a piece that cannot make
//!    that kind of move"; with no piece of his there, the mover knows the attempt
//!    impossible just as surely.
//! 2. **[`Silence::NeverMovesSo`]** — the piece could make this move on no board at all
//!    ([`never_moves_so`]): a rook off its lines, a bishop off its diagonals, a queen
//!    off both, a knight not an L, a king more than one square except along its back
//!    rank from its home square (the only place it may castle from, castling being
//!    written king-takes-rook), a pawn backwards, sideways, diagonally more than one
//!    square, forward more than two or two from off its start rank; a promotion by a
//!    non-pawn, to a pawn or a king, or short of the last rank; a pawn reaching the
//!    last rank without naming its promotion; from and to the same square.
//! 3. **[`Silence::Repeated`]** — the same attempt (squares and promotion) was already
//!    answered "illegal" in this turn.
//!
//! *Interpretation:* only these. A move onto one of the mover's own pieces, or through
//! them, is heard, though the mover could know it impossible: the seed lists the kind of
//! move a piece makes, not the board.
//!
//! An "Any?" is silent when:
//!
//! 1. **[`Silence::NoPawns`]** — the mover has no pawn;
//! 2. **[`Silence::AskedAgain`]** — it was already asked this turn;
//! 3. **[`Silence::TooEarly`]** — it is the mover's first turn ([`FIRST_POSSIBLE_TURN`]).
//!
//! The mover himself always gets the answer; silence only concerns the opponent. An
//! answer [`Answer::PawnCaptureFirst`](super::answer::Answer::PawnCaptureFirst) is never
//! heard at all (the attempt was not judged) and needs no silence.

use serde::{Deserialize, Serialize};

use crate::chess::{Color, Kind, Square};

use super::answer::Answer;
use super::attempt::Attempt;
use super::turn::Entry;

/// Why an announcement is not passed on to the opponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Silence {
    /// The from-square holds no piece of the mover.
    NotOwnPiece,
    /// The piece could never move so, whatever the board.
    NeverMovesSo,
    /// The same attempt was already judged illegal this turn.
    Repeated,
    /// "Any?" with no pawn of the mover's on the board.
    NoPawns,
    /// "Any?" already asked this turn.
    AskedAgain,
    /// "Any?" before any pawn capture can be possible.
    TooEarly,
}

/// The first turn of a player (counting his own turns from 1) on which a pawn capture
/// can be possible, whatever the two setups: his **second**. Before that, "Any?" is
/// silent.
///
/// Why, for any pair of Chess960 setups (pawns always start on ranks 2 and 7, all eight
/// back-rank pieces behind them):
///
/// - **White's first turn**: Black has not moved, so every black piece stands on rank 7
///   or 8, while a white pawn on rank 2 captures only on rank 3 (and no en passant
///   chance exists before any black move). No capture.
/// - **Black's first turn**: White has made one move. The only white pieces that can
///   move first are the pawns (to rank 3 or 4), the knights (from rank 1 to rank 3 at
///   most, wherever the setup put them) and, in some setups, a castling (king and rook
///   stay on rank 1); every other piece is shut in by its own pawns. So no white piece
///   stands beyond rank 4, while a black pawn on rank 7 captures only on rank 6, and
///   en passant needs a black pawn on rank 4. No capture.
/// - **White's second turn**: 1. e2-e4 d7-d5 and the e-pawn takes on d5, whatever the
///   back ranks: pawns start alike in every setup.
/// - **Black's second turn**: 1. e2-e4 d7-d5 2. a2-a3 and the d-pawn takes on e4.
///
/// So the bound is the same for both players and does not depend on the setups.
pub const FIRST_POSSIBLE_TURN: u32 = 2;

/// Whether a piece of `kind` and colour `mover` could ever move from `from` to `to`
/// (promoting to `promotion`) on some board, `king_home` being the square its king
/// starts on (the only one it castles from). See the module documentation.
pub fn never_moves_so(
    kind: Kind,
    mover: Color,
    from: Square,
    to: Square,
    promotion: Option<Kind>,
    king_home: Square,
) -> bool {
    if from == to {
        return true;
    }
    let df = i16::from(to.file().index()) - i16::from(from.file().index());
    let dr = i16::from(to.rank().index()) - i16::from(from.rank().index());
    let (adf, adr) = (df.abs(), dr.abs());
    if kind != Kind::Pawn {
        if promotion.is_some() {
            return true;
        }
        return match kind {
            Kind::Knight => !((adf == 1 && adr == 2) || (adf == 2 && adr == 1)),
            Kind::Bishop => adf != adr,
            Kind::Rook => adf != 0 && adr != 0,
            Kind::Queen => adf != adr && adf != 0 && adr != 0,
            Kind::King => {
                let step = adf <= 1 && adr <= 1;
                let castling = from == king_home && dr == 0;
                !(step || castling)
            }
            Kind::Pawn => false,
        };
    }
    let ahead = dr * i16::from(mover.forward());
    let shape = match (adf, ahead) {
        (0, 1) | (1, 1) => true,
        (0, 2) => from.rank() == mover.double_step_rank(),
        _ => false,
    };
    let last = to.rank() == mover.promotion_rank();
    let promotion_fits = match promotion {
        None => !last,
        Some(k) => last && Kind::PROMOTIONS.contains(&k),
    };
    !(shape && promotion_fits)
}

/// Whether `attempt` is a pawn capture in a form that could be legal: a pawn of the
/// mover's (`kind` is the kind of the mover's own piece on the from-square) one square
/// diagonally forward, promotion named exactly when it reaches the last rank. This is
/// what meets the `must-try` obligation.
pub fn is_pawn_capture(
    kind: Option<Kind>,
    mover: Color,
    attempt: &Attempt,
    king_home: Square,
) -> bool {
    let Some((from, to, promotion)) = attempt.squares() else {
        return false;
    };
    kind == Some(Kind::Pawn)
        && from.file() != to.file()
        && !never_moves_so(Kind::Pawn, mover, from, to, promotion, king_home)
}

/// The silence of a move attempt answered "illegal", given the kind of the mover's own
/// piece on its from-square (`None` if he has none there) and the turn's earlier
/// entries. A "yes" is never silent: a legal move passes every rule.
pub fn move_silence(
    kind: Option<Kind>,
    mover: Color,
    attempt: &Attempt,
    king_home: Square,
    earlier: &[Entry],
) -> Option<Silence> {
    let (from, to, promotion) = attempt.squares()?;
    let Some(kind) = kind else {
        return Some(Silence::NotOwnPiece);
    };
    if never_moves_so(kind, mover, from, to, promotion, king_home) {
        return Some(Silence::NeverMovesSo);
    }
    let repeated = earlier
        .iter()
        .any(|e| e.attempt == *attempt && e.answer == Answer::Illegal);
    repeated.then_some(Silence::Repeated)
}

/// The silence of an "Any?" asked on the mover's turn `number` (from 1), with or
/// without pawns of his, given the turn's earlier entries.
pub fn any_silence(has_pawns: bool, number: u32, earlier: &[Entry]) -> Option<Silence> {
    if !has_pawns {
        return Some(Silence::NoPawns);
    }
    let asked = earlier
        .iter()
        .any(|e| e.attempt == Attempt::Any && matches!(e.answer, Answer::No | Answer::Try));
    if asked {
        return Some(Silence::AskedAgain);
    }
    (number < FIRST_POSSIBLE_TURN).then_some(Silence::TooEarly)
}
