//! What the referee tells the mover, at once, about each attempt.
//!
//! The words are the common Kriegspiel ones:
//!
//! | answer | to |
//! |---|---|
//! | `illegal` | a move that is not legal (no reason is given) |
//! | `yes`, then the move's announcements | a legal move; it is made and final |
//! | `no` | "Any?" when the mover has no legal pawn capture |
//! | `try` | "Any?" when he has at least one (en passant included) |
//! | `pawn capture first` | a move that is not a pawn capture while a "try" still obliges one (option `must-try`) |
//!
//! Announcements of a move: `capture at e5` (the square the capturing piece lands on;
//! for an en passant capture that is the empty square behind the taken pawn, and
//! ` en passant` follows), with option `name-capturer` ` by pawn` or ` by piece`; one
//! check announcement per checking piece — `check on rank`, `check on file`,
//! `check on long diagonal`, `check on short diagonal`, `check by knight` (a pawn gives
//! a diagonal check; a double check is two announcements); and an ending found on the
//! board ([`BoardEnd`]).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::chess::Square;

use super::ending::BoardEnd;
use crate::chess::wire;

/// The kind of a check, as announced: the line from the checked king to the checker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum CheckKind {
    /// Along the king's rank.
    Rank,
    /// Along the king's file.
    File,
    /// Along the longer of the two diagonals through the king's square.
    LongDiagonal,
    /// Along the shorter of the two diagonals through the king's square.
    ShortDiagonal,
    /// By a knight.
    Knight,
}

/// Who took, when option `name-capturer` is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Capturer {
    /// A pawn took.
    Pawn,
    /// A piece (anything but a pawn) took.
    Piece,
}

/// A capture announcement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Capture {
    /// The square the capturing piece landed on.
    #[serde(with = "wire::square")]
    pub at: Square,
    /// Whether it was en passant (the taken pawn stood beside the capturer, not on `at`).
    pub en_passant: bool,
    /// Pawn or piece, only with option `name-capturer`.
    pub by: Option<Capturer>,
}

/// Everything a "yes" announces.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Report {
    /// The capture the move made, if any.
    pub capture: Option<Capture>,
    /// One check announcement per piece giving check, in [`CheckKind`] order.
    pub checks: Vec<CheckKind>,
    /// The ending the move brought about, if any.
    pub end: Option<BoardEnd>,
}

/// The referee's answer to one attempt.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Answer {
    /// Not a legal move.
    Illegal,
    /// A legal move, now made; the turn's move is final.
    Yes(Report),
    /// "Any?": no legal pawn capture.
    No,
    /// "Any?": at least one legal pawn capture.
    Try,
    /// Not judged: a "try" obliges a pawn capture attempt first (option `must-try`).
    PawnCaptureFirst,
}

impl fmt::Display for CheckKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CheckKind::Rank => "check on rank",
            CheckKind::File => "check on file",
            CheckKind::LongDiagonal => "check on long diagonal",
            CheckKind::ShortDiagonal => "check on short diagonal",
            CheckKind::Knight => "check by knight",
        })
    }
}

impl fmt::Display for Capture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "capture at {}", self.at)?;
        if self.en_passant {
            f.write_str(" en passant")?;
        }
        match self.by {
            Some(Capturer::Pawn) => f.write_str(" by pawn"),
            Some(Capturer::Piece) => f.write_str(" by piece"),
            None => Ok(()),
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("yes")?;
        if let Some(c) = &self.capture {
            write!(f, ", {c}")?;
        }
        for c in &self.checks {
            write!(f, ", {c}")?;
        }
        if let Some(e) = &self.end {
            write!(f, ", {e}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Illegal => f.write_str("illegal"),
            Answer::Yes(report) => report.fmt(f),
            Answer::No => f.write_str("no"),
            Answer::Try => f.write_str("try"),
            Answer::PawnCaptureFirst => f.write_str("pawn capture first"),
        }
    }
}

/// Words that are not an answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an answer (illegal, yes…, no, try, pawn capture first)")]
pub struct BadAnswer(pub String);

/// One announcement of a "yes", read from its words.
enum Announced {
    Capture(Capture),
    Check(CheckKind),
    End(BoardEnd),
}

fn announcement(words: &[&str]) -> Option<Announced> {
    let check = |k| Some(Announced::Check(k));
    match words {
        ["check", "on", "rank"] => check(CheckKind::Rank),
        ["check", "on", "file"] => check(CheckKind::File),
        ["check", "on", "long", "diagonal"] => check(CheckKind::LongDiagonal),
        ["check", "on", "short", "diagonal"] => check(CheckKind::ShortDiagonal),
        ["check", "by", "knight"] => check(CheckKind::Knight),
        ["capture", "at", sq, rest @ ..] => {
            let at: Square = sq.parse().ok()?;
            let (en_passant, rest) = match rest {
                ["en", "passant", rest @ ..] => (true, rest),
                _ => (false, rest),
            };
            let by = match rest {
                [] => None,
                ["by", "pawn"] => Some(Capturer::Pawn),
                ["by", "piece"] => Some(Capturer::Piece),
                _ => return None,
            };
            Some(Announced::Capture(Capture { at, en_passant, by }))
        }
        _ => words.join(" ").parse().ok().map(Announced::End),
    }
}

impl FromStr for Answer {
    type Err = BadAnswer;

    /// Reads an answer. A "yes" lists its announcements after commas, in the order the
    /// writer puts them: the capture, the checks, the ending.
    fn from_str(s: &str) -> Result<Answer, BadAnswer> {
        let bad = || BadAnswer(s.to_owned());
        let mut parts = s
            .split(',')
            .map(|p| p.split_whitespace().collect::<Vec<_>>());
        let head = parts.next().unwrap_or_default();
        let answer = match head.as_slice() {
            ["illegal"] => Answer::Illegal,
            ["no"] => Answer::No,
            ["try"] => Answer::Try,
            ["pawn", "capture", "first"] => Answer::PawnCaptureFirst,
            ["yes"] => {
                let mut report = Report::default();
                // A capture, then checks, then an ending: each part must come after
                // everything of an earlier kind, so one text means one report.
                let mut stage = 0;
                for words in parts {
                    match announcement(&words).ok_or_else(bad)? {
                        Announced::Capture(c) if stage == 0 => {
                            report.capture = Some(c);
                            stage = 1;
                        }
                        Announced::Check(k) if stage <= 2 => {
                            if report.checks.last().is_some_and(|last| *last > k) {
                                return Err(bad());
                            }
                            report.checks.push(k);
                            stage = 2;
                        }
                        Announced::End(e) if stage <= 2 => {
                            report.end = Some(e);
                            stage = 3;
                        }
                        _ => return Err(bad()),
                    }
                }
                return Ok(Answer::Yes(report));
            }
            _ => return Err(bad()),
        };
        match parts.next() {
            None => Ok(answer),
            Some(_) => Err(bad()),
        }
    }
}
