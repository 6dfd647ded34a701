//! Cardmate terms and bots for tests and vectors.

use sealed_games::cardmate::{self, Act, Cardmate, Options};
use sealed_protocol::ids::{Name, Seat};
use sealed_protocol::proposal::{Proposal, Role, SeatSpec, Terms, VERSION};
use sealed_protocol::session::{Command, Session};

use crate::sim::{Bot, FnBot, test_key};

/// Terms of a Cardmate between the fixed test keys, signed by seat 0 (Forehand).
pub fn cardmate_terms(options: &Options, nonce: u8) -> Terms {
    cardmate_terms_of(options, nonce, VERSION)
}

/// As [`cardmate_terms`], under protocol `version`.
pub fn cardmate_terms_of(options: &Options, nonce: u8, version: u8) -> Terms {
    let seats = (0..2)
        .map(|i| SeatSpec {
            role: Role::Player,
            key: test_key(i).public().to_bytes(),
            name: format!("p{i}"),
        })
        .collect();
    let p = Proposal {
        version,
        variant: Name::new(cardmate::VARIANT).expect("valid"),
        options: options.to_proposal(),
        seats,
        mailboxes: vec![],
        proposer: Seat(0),
        clock: 0,
        nonce: [nonce; 32],
        witness: None,
    };
    Terms::from_signed(p.sign(&test_key(0))).expect("valid terms")
}

/// The random setup with a ply limit, so that random bots always finish.
pub fn random_setup(ply_limit: u32) -> Options {
    Options {
        setup: cardmate::Setup::Random,
        ply_limit,
        ..Options::default()
    }
}

/// The command that plays the `pick`-th legal move (modulo their number), if it is this
/// seat's turn.
pub fn pick_move(s: &Session<Cardmate>, pick: u64) -> Option<Command> {
    if s.engine().to_act() != Some(s.seat()) {
        return None;
    }
    let pos = s.engine().state()?;
    let moves = pos.legal_moves(&s.engine().rules().options);
    let m = moves.get((pick % moves.len().max(1) as u64) as usize)?;
    Some(Command::act(Act::of(m).bytes()))
}

/// A bot playing uniformly random legal moves.
pub fn cardmate_bot() -> Box<dyn Bot<Cardmate>> {
    Box::new(FnBot(pick_move))
}
