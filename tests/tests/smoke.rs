//! A whole Duel between two in-memory sessions, then an offline check of the transcript.

use sealed_conformance::sim::{Bot, FnBot, NetConfig, Sim, test_key};
use sealed_games::duel::{self, Duel};
use sealed_protocol::ids::Name;
use sealed_protocol::proposal::{Proposal, Role, SeatSpec, Terms, VERSION};
use sealed_protocol::session::Command;
use sealed_protocol::verdict::Status;

fn terms() -> Terms {
    let seats = (0..2)
        .map(|i| SeatSpec {
            role: Role::Player,
            key: test_key(i).public().to_bytes(),
            name: format!("p{i}"),
        })
        .collect();
    let p = Proposal {
        version: VERSION,
        variant: Name::new("duel").unwrap(),
        options: Duel::default().options(),
        seats,
        mailboxes: vec![],
        proposer: sealed_protocol::ids::Seat(0),
        clock: 0,
        nonce: [7; 32],
    };
    Terms::from_signed(p.sign(&test_key(0))).unwrap()
}

fn bot() -> Box<dyn Bot<Duel>> {
    Box::new(FnBot(
        |s: &sealed_protocol::session::Session<Duel>, pick: u64| {
            if s.engine().to_act() != Some(s.seat()) {
                return None;
            }
            let slot = duel::bot_choice(&s.hand(&duel::deck()), pick)?;
            Some(Command::Act {
                act: duel::play_bytes(slot),
                open_slots: vec![(duel::deck(), slot)],
                commit_values: vec![],
                open_values: vec![],
            })
        },
    ))
}

#[test]
fn a_whole_duel_verifies() {
    let mut sim = Sim::new(terms(), vec![bot(), bot()], NetConfig::perfect(), 1);
    sim.run(1_000_000);
    assert!(sim.refused.is_empty(), "{:?}", sim.refused);
    for s in &sim.sessions {
        let v = s.verdict();
        assert_eq!(v.status, Status::Verified, "{v:#?}");
    }
    let files = sim.transcripts();
    let checked = sealed_games::variant::check_transcript(&files[0]).unwrap();
    assert_eq!(checked.exit_code(), 0, "{:#?}", checked.verdict);
}
