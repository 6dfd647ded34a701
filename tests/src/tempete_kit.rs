//! Tempête terms and the random-legal bot for tests.

use sealed_games::tempete::rules::Tempete;
use sealed_protocol::ids::Seat;
use sealed_protocol::proposal::{Role, Terms};
use sealed_protocol::session::{Command, Phase, Session};

use crate::pair::{Decide, Pair};
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

/// Seats that accept the proposal and otherwise only do the automatic steps.
pub fn accepting() -> [Decide<Tempete>; 2] {
    let d = || -> Decide<Tempete> {
        Box::new(|s: &Session<Tempete>| {
            matches!(s.phase(), Phase::Decide(_)).then_some(Command::Accept)
        })
    };
    [d(), d()]
}

/// `seat` types `text`, read and checked as `sealed move` reads it; it is signed, sent
/// and delivered until nothing moves.
pub fn typed(pair: &mut Pair<Tempete>, seat: Seat, text: &str) {
    let cmd = sealed_games::tempete::table::typed(&pair.sessions[seat.index()], text)
        .unwrap_or_else(|e| panic!("seat {} types {text:?}: {e}", seat.0));
    let now = pair.now;
    pair.sessions[seat.index()]
        .handle_command(cmd, now)
        .unwrap_or_else(|e| panic!("seat {} types {text:?}: {e}", seat.0));
    pair.collect();
    pair.run(&mut accepting());
}
