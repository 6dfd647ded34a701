//! The referee's answers in the circuit's fields (`sealed_mpc::inputs::Answer`): what the
//! mover must be told and what the other must hear, for the tests that hold a circuit's
//! outputs against `sealed_games::stallmate::Referee` (`differential.rs`, `chain.rs`).

use sealed_games::stallmate::{Answer as RefAnswer, BoardEnd, Capturer, CheckKind, Heard, Silence};
use sealed_mpc::inputs::Answer;

/// A silence as the circuit's code.
pub fn silence_code(s: Option<Silence>) -> u8 {
    match s {
        None => 0,
        Some(Silence::NotOwnPiece) => 1,
        Some(Silence::NeverMovesSo) => 2,
        Some(Silence::Repeated) => 3,
        Some(Silence::NoPawns) => 4,
        Some(Silence::AskedAgain) => 5,
        Some(Silence::TooEarly) => 6,
    }
}

/// The referee's answer in the circuit's fields.
pub fn expected(a: &RefAnswer, silence: Option<Silence>) -> Answer {
    let mut out = Answer {
        silence: silence_code(silence),
        ..Answer::default()
    };
    match a {
        RefAnswer::Illegal => out.code = 0,
        RefAnswer::No => out.code = 2,
        RefAnswer::Try => out.code = 3,
        RefAnswer::PawnCaptureFirst => out.code = 4,
        RefAnswer::Yes(r) => {
            out.code = 1;
            if let Some(c) = r.capture {
                out.capture = true;
                out.at = c.at.index();
                out.en_passant = c.en_passant;
                out.by_pawn = c.by == Some(Capturer::Pawn);
            }
            for k in &r.checks {
                match k {
                    CheckKind::Rank => out.rank += 1,
                    CheckKind::File => out.file += 1,
                    CheckKind::LongDiagonal => out.long += 1,
                    CheckKind::ShortDiagonal => out.short += 1,
                    CheckKind::Knight => out.knight += 1,
                }
            }
            out.end = match r.end {
                None => 0,
                Some(BoardEnd::Checkmate) => 1,
                Some(BoardEnd::Stalemate { pieces }) => {
                    out.pieces = pieces;
                    2
                }
                Some(BoardEnd::BareKings) => 3,
                Some(BoardEnd::Repetition) => 4,
                Some(BoardEnd::PlyLimit) => 5,
            };
        }
    }
    out
}

/// What the opponent hears of one entry, in the circuit's fields (code 4: nothing).
pub fn expected_heard(h: &[Heard], answer: &Answer) -> Answer {
    let nothing = Answer {
        code: 4,
        ..Answer::default()
    };
    match h.first() {
        // A move with nothing to announce is still a move the opponent learns of.
        None if answer.code == 1 => Answer { code: 1, ..nothing },
        None => nothing,
        Some(Heard::Illegal) => Answer { code: 0, ..nothing },
        Some(Heard::AnyNo) => Answer { code: 2, ..nothing },
        Some(Heard::AnyTry) => Answer { code: 3, ..nothing },
        Some(_) => Answer {
            silence: 0,
            ..*answer
        },
    }
}
