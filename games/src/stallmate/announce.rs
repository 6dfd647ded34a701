//! What the opponent hears when the mover's period ends: the turn's announcements in
//! the order they were made, minus the silent ones ([`super::suppress`]).
//!
//! For each attempt that is not silent: an "illegal" (never the move itself), or the
//! "Any?" with its answer; then, for the move that was made, its capture, its checks and
//! the ending it brought about. The "yes" itself is not announced: that the period
//! ended with a move is what the call means (a period without one ends the game by
//! forfeit, which the protocol reports).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::answer::{Answer, Capture, CheckKind};
use super::attempt::Attempt;
use super::ending::BoardEnd;
use super::turn::Turn;

/// One announcement the opponent hears.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Heard {
    /// An illegal attempt, without the move.
    Illegal,
    /// "Any?" answered "no".
    AnyNo,
    /// "Any?" answered "try".
    AnyTry,
    /// The move made a capture.
    Capture(Capture),
    /// The move gives check (one per checking piece).
    Check(CheckKind),
    /// The move ended the game.
    End(BoardEnd),
}

/// The announcements of a finished (or unfinished) turn that its mover's opponent hears,
/// in order.
pub fn heard(turn: &Turn) -> Vec<Heard> {
    let mut out = Vec::new();
    for entry in turn.entries.iter().filter(|e| e.silence.is_none()) {
        match (&entry.attempt, &entry.answer) {
            (Attempt::Any, Answer::No) => out.push(Heard::AnyNo),
            (Attempt::Any, Answer::Try) => out.push(Heard::AnyTry),
            (Attempt::Move { .. }, Answer::Illegal) => out.push(Heard::Illegal),
            (Attempt::Move { .. }, Answer::Yes(report)) => {
                out.extend(report.capture.map(Heard::Capture));
                out.extend(report.checks.iter().copied().map(Heard::Check));
                out.extend(report.end.map(Heard::End));
            }
            // Not judged, or a combination the referee never makes.
            _ => {}
        }
    }
    out
}

impl fmt::Display for Heard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Heard::Illegal => f.write_str("illegal"),
            Heard::AnyNo => f.write_str("any? no"),
            Heard::AnyTry => f.write_str("any? try"),
            Heard::Capture(c) => c.fmt(f),
            Heard::Check(k) => k.fmt(f),
            Heard::End(e) => e.fmt(f),
        }
    }
}
