//! Tempête terms and the random-legal bot for tests.

use sealed_games::tempete::rules::Tempete;
use sealed_protocol::ids::{Name, Seat};
use sealed_protocol::proposal::{Proposal, Role, SeatSpec, Terms, VERSION};

use crate::sim::{Bot, FnBot, test_key};

/// Terms of a Tempête between the fixed test keys, White (seat 0) proposing.
pub fn tempete_terms(options: &[(&str, &str)], nonce: u8) -> Terms {
    let seats = (0..2)
        .map(|i| SeatSpec {
            role: Role::Player,
            key: test_key(i).public().to_bytes(),
            name: format!("p{i}"),
        })
        .collect();
    let mut options: Vec<(Name, String)> = options
        .iter()
        .map(|(k, v)| (Name::new(k).expect("valid"), v.to_string()))
        .collect();
    options.sort();
    let p = Proposal {
        version: VERSION,
        variant: Name::new(sealed_games::tempete::VARIANT).expect("valid"),
        options,
        seats,
        mailboxes: vec![],
        proposer: Seat(0),
        clock: 0,
        nonce: [nonce; 32],
    };
    Terms::from_signed(p.sign(&test_key(0))).expect("valid terms")
}

/// What the random bot does now (the games crate's Tempête bot).
pub use sealed_games::tempete::bot::choice as tempete_choice;

/// A random bot.
pub fn tempete_bot() -> Box<dyn Bot<Tempete>> {
    Box::new(FnBot(tempete_choice))
}
