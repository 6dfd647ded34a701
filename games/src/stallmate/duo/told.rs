//! What a computation told a side, in the game's words: the mover's answer to his
//! attempt, or what the other hears of it (`sealed_mpc::inputs::Answer`, the fields the
//! circuit returns; spec/GAMES.md §5.15), for the player's view of the game
//! (`MoverView`), his bot and his board.

use sealed_mpc::inputs::Answer as Bits;

use super::item::ending;
use crate::chess::Square;
use crate::stallmate::announce::Heard;
use crate::stallmate::answer::{Answer, Capture, Capturer, CheckKind, Report};
use crate::stallmate::options::Options;

/// The capture a "yes" announces, if it captured (`by` only with `name-capturer`).
fn capture(bits: &Bits, options: &Options) -> Option<Capture> {
    if !bits.capture {
        return None;
    }
    Some(Capture {
        at: Square::from_index(bits.at & 63)?,
        en_passant: bits.en_passant,
        by: options.name_capturer.then_some(if bits.by_pawn {
            Capturer::Pawn
        } else {
            Capturer::Piece
        }),
    })
}

/// The checks a "yes" announces, one per checking piece, in [`CheckKind`] order.
fn checks(bits: &Bits) -> Vec<CheckKind> {
    [
        (bits.rank, CheckKind::Rank),
        (bits.file, CheckKind::File),
        (bits.long, CheckKind::LongDiagonal),
        (bits.short, CheckKind::ShortDiagonal),
        (bits.knight, CheckKind::Knight),
    ]
    .into_iter()
    .flat_map(|(n, kind)| std::iter::repeat_n(kind, usize::from(n.min(2))))
    .collect()
}

/// The mover's answer to his own attempt.
pub fn answer(bits: &Bits, options: &Options) -> Answer {
    match bits.code {
        1 => Answer::Yes(Report {
            capture: capture(bits, options),
            checks: checks(bits),
            end: ending(bits),
        }),
        2 => Answer::No,
        3 => Answer::Try,
        4 => Answer::PawnCaptureFirst,
        _ => Answer::Illegal,
    }
}

/// What the other side hears of one attempt (code 4: nothing; a move made with nothing
/// to announce is heard as no words).
pub fn heard(bits: &Bits, options: &Options) -> Vec<Heard> {
    match bits.code {
        0 => vec![Heard::Illegal],
        2 => vec![Heard::AnyNo],
        3 => vec![Heard::AnyTry],
        1 => {
            let mut out: Vec<Heard> = capture(bits, options)
                .map(Heard::Capture)
                .into_iter()
                .collect();
            out.extend(checks(bits).into_iter().map(Heard::Check));
            out.extend(ending(bits).map(Heard::End));
            out
        }
        _ => vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_yes_with_a_capture_two_checks_and_mate_reads_back() {
        let bits = Bits {
            code: 1,
            capture: true,
            at: 36,
            en_passant: false,
            by_pawn: true,
            rank: 1,
            knight: 1,
            end: 1,
            ..Bits::default()
        };
        let named = Options {
            name_capturer: true,
            ..Options::default()
        };
        let Answer::Yes(r) = answer(&bits, &named) else {
            panic!("a yes");
        };
        let at = Square::from_index(36).expect("e5");
        assert_eq!(
            r.capture.map(|c| (c.at, c.by)),
            Some((at, Some(Capturer::Pawn)))
        );
        assert_eq!(r.checks, vec![CheckKind::Rank, CheckKind::Knight]);
        assert!(r.end.is_some());
        let plain = answer(&bits, &Options::default());
        assert!(matches!(
            plain,
            Answer::Yes(Report {
                capture: Some(Capture { by: None, .. }),
                ..
            })
        ));
        assert_eq!(
            heard(&bits, &named).len(),
            4,
            "capture, two checks, the end"
        );
    }

    #[test]
    fn each_code_is_its_answer_and_nothing_is_heard_of_a_silence() {
        let with = |code| Bits {
            code,
            ..Bits::default()
        };
        let o = Options::default();
        assert_eq!(answer(&with(0), &o), Answer::Illegal);
        assert_eq!(answer(&with(2), &o), Answer::No);
        assert_eq!(answer(&with(3), &o), Answer::Try);
        assert_eq!(answer(&with(4), &o), Answer::PawnCaptureFirst);
        assert_eq!(heard(&with(4), &o), vec![]);
        assert_eq!(heard(&with(0), &o), vec![Heard::Illegal]);
        assert_eq!(heard(&with(1), &o), vec![], "a quiet move: no words");
    }
}
