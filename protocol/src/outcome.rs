//! Game results.

use core::fmt;

use serde::{Deserialize, Serialize};

use crate::ids::Seat;

/// One player's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SeatResult {
    /// Won.
    Win,
    /// Lost.
    Loss,
    /// Drew.
    Draw,
    /// A score, for games that score (Secret Stallmate).
    Score(i32),
}

impl fmt::Display for SeatResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SeatResult::Win => f.write_str("win"),
            SeatResult::Loss => f.write_str("loss"),
            SeatResult::Draw => f.write_str("draw"),
            SeatResult::Score(s) => write!(f, "{s:+}"),
        }
    }
}

/// How a game ended: a result for every player, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// Result of each player, by seat.
    pub results: Vec<SeatResult>,
    /// Why, in a few words (e.g. "seat 1 resigned", "both Kings captured").
    pub reason: String,
}

impl Outcome {
    /// `winner` wins, every other player loses.
    pub fn win(players: u8, winner: Seat, reason: impl Into<String>) -> Self {
        let results = (0..players)
            .map(|p| {
                if p == winner.0 {
                    SeatResult::Win
                } else {
                    SeatResult::Loss
                }
            })
            .collect();
        Outcome {
            results,
            reason: reason.into(),
        }
    }

    /// `loser` loses, every other player wins.
    pub fn loss(players: u8, loser: Seat, reason: impl Into<String>) -> Self {
        let results = (0..players)
            .map(|p| {
                if p == loser.0 {
                    SeatResult::Loss
                } else {
                    SeatResult::Win
                }
            })
            .collect();
        Outcome {
            results,
            reason: reason.into(),
        }
    }

    /// Everyone draws.
    pub fn draw(players: u8, reason: impl Into<String>) -> Self {
        Outcome {
            results: vec![SeatResult::Draw; usize::from(players)],
            reason: reason.into(),
        }
    }

    /// Same results, whatever the reasons.
    pub fn same_results(&self, other: &Outcome) -> bool {
        self.results == other.results
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.results.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "seat {i} {r}")?;
        }
        write!(f, " ({})", self.reason)
    }
}
