//! The record of one move period: who moved, and every attempt with its answer and
//! whether the opponent hears it.

use serde::{Deserialize, Serialize};

use crate::chess::Color;

use super::answer::{Answer, Report};
use super::attempt::Attempt;
use super::suppress::Silence;
use crate::chess::wire;

/// One attempt of a turn and what came of it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Entry {
    /// What the mover said.
    pub attempt: Attempt,
    /// What the referee answered him.
    pub answer: Answer,
    /// Why the opponent does not hear it, if he does not.
    pub silence: Option<Silence>,
}

/// One move period of one player.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Turn {
    /// Whose period it is.
    #[serde(with = "wire::color")]
    pub mover: Color,
    /// The mover's own turn number, from 1 (White's n-th turn and Black's n-th turn
    /// both have number n, as move numbers go).
    pub number: u32,
    /// The attempts in order. Only the last can be a "yes".
    pub entries: Vec<Entry>,
}

impl Turn {
    /// An empty period.
    pub fn new(mover: Color, number: u32) -> Turn {
        Turn {
            mover,
            number,
            entries: Vec::new(),
        }
    }

    /// What the move announced, once a "yes" has been given.
    pub fn report(&self) -> Option<&Report> {
        self.entries.iter().find_map(|e| match &e.answer {
            Answer::Yes(r) => Some(r),
            _ => None,
        })
    }

    /// The move made, once a "yes" has been given.
    pub fn moved(&self) -> Option<Attempt> {
        self.entries
            .iter()
            .find(|e| matches!(e.answer, Answer::Yes(_)))
            .map(|e| e.attempt)
    }
}
