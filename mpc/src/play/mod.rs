//! Secret Stallmate's attempts computed by the two players alone (issue 35), sans IO:
//! White garbles, Black evaluates, every computation in four messages (`run.rs`), the
//! game's state kept between computations as labels (`game.rs`), what both know and the
//! next computation's shape (`public.rs`), the compiled circuits and how a computation's
//! inputs divide (`circuits.rs`), and the audit that,
//! seeds and inputs opened at the end, plays both sides again and names the first
//! message that differs from the one sent (`audit.rs`).
//!
//! A fault found during play (a message of the wrong length, a returned label that is
//! no label) stops the game and names who sent it; it is provisional, because a garbler
//! who sent bad rows can make an honest evaluator's labels wrong. The audit decides:
//! the earliest message that differs from the honest one is its sender's.

pub mod audit;
pub mod circuits;
pub mod game;
pub mod public;
pub mod record;
pub mod run;

/// Which side of the computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Party {
    /// White, who garbles.
    Garbler,
    /// Black, who evaluates.
    Evaluator,
}

/// What stopped a computation, and whose message it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// A message that cannot be read: wrong length, no point, not a bit.
    Malformed {
        /// Who sent it.
        by: Party,
        /// What was wrong.
        what: &'static str,
    },
    /// A returned output label that is neither of its wire's two.
    NotALabel {
        /// Who returned it.
        by: Party,
        /// The output's position.
        output: usize,
    },
}

impl Fault {
    /// Whose message it was.
    pub fn by(&self) -> Party {
        match self {
            Fault::Malformed { by, .. } | Fault::NotALabel { by, .. } => *by,
        }
    }
}
