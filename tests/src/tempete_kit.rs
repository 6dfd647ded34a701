//! Tempête terms and the random-legal bot for tests.

use sealed_games::tempete::rules::Tempete;
use sealed_protocol::proposal::{Role, Terms};

use crate::sim::{Bot, FnBot, test_terms};

/// Terms of a Tempête between the fixed test keys, White (seat 0) proposing.
pub fn tempete_terms(options: &[(&str, &str)], nonce: u8) -> Terms {
    test_terms(
        sealed_games::tempete::VARIANT,
        options,
        &[Role::Player, Role::Player],
        nonce,
    )
}

/// What the random bot does now (the games crate's Tempête bot).
pub use sealed_games::tempete::bot::choice as tempete_choice;

/// A random bot.
pub fn tempete_bot() -> Box<dyn Bot<Tempete>> {
    Box::new(FnBot(tempete_choice))
}
