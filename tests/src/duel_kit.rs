//! Duel terms and bots for tests.

use sealed_games::duel::{self, Duel};
use sealed_protocol::ids::{Name, Seat};
use sealed_protocol::proposal::{Proposal, Role, SeatSpec, Terms, VERSION};
use sealed_protocol::session::{Command, Session};

use crate::sim::{Bot, FnBot, test_key};

/// The proposal of a two-player Duel between the fixed test keys, signed by seat 0.
pub fn duel_proposal(rules: &Duel, nonce: u8) -> Proposal {
    let seats = (0..2)
        .map(|i| SeatSpec {
            role: Role::Player,
            key: test_key(i).public().to_bytes(),
            name: format!("p{i}"),
        })
        .collect();
    Proposal {
        version: VERSION,
        variant: Name::new(duel::VARIANT).expect("valid"),
        options: rules.options(),
        seats,
        mailboxes: vec![],
        proposer: Seat(0),
        clock: 0,
        nonce: [nonce; 32],
        witness: None,
    }
}

/// Validated terms of [`duel_proposal`].
pub fn duel_terms(rules: &Duel, nonce: u8) -> Terms {
    Terms::from_signed(duel_proposal(rules, nonce).sign(&test_key(0))).expect("valid terms")
}

/// The command that plays a slot.
pub fn play(slot: u32) -> Command {
    Command::Act {
        show_slots: vec![],
        act: duel::play_bytes(slot),
        open_slots: vec![(duel::deck(), slot)],
        commit_values: vec![],
        open_values: vec![],
        open_draw: None,
    }
}

/// A bot that plays a random card from hand when it is its turn.
pub fn random_bot() -> Box<dyn Bot<Duel>> {
    Box::new(FnBot(|s: &Session<Duel>, pick: u64| {
        if s.engine().to_act() != Some(s.seat()) {
            return None;
        }
        duel::bot_choice(&s.hand(&duel::deck()), pick).map(play)
    }))
}

/// A bot that plays randomly, and once `rounds` rounds are done sends `then` once
/// (whether or not it is its turn).
pub fn bot_then(rounds: u32, then: Command) -> Box<dyn Bot<Duel>> {
    let mut done = false;
    Box::new(FnBot(move |s: &Session<Duel>, pick: u64| {
        let state = s.engine().state()?;
        if state.round >= rounds && !done {
            done = true;
            return Some(then.clone());
        }
        if s.engine().to_act() != Some(s.seat()) {
            return None;
        }
        duel::bot_choice(&s.hand(&duel::deck()), pick).map(play)
    }))
}

/// A bot that plays randomly but accepts any draw offer that stands for it.
pub fn drawish_bot() -> Box<dyn Bot<Duel>> {
    Box::new(FnBot(|s: &Session<Duel>, pick: u64| {
        if s.engine().draw_offered_to(s.seat()) {
            return Some(Command::AcceptDraw);
        }
        if s.engine().to_act() != Some(s.seat()) {
            return None;
        }
        duel::bot_choice(&s.hand(&duel::deck()), pick).map(play)
    }))
}
