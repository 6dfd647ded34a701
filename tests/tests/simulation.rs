//! Deterministic simulations of two sessions over a hostile network: every run must
//! converge to identical transcripts and verdicts on both seats.

use sealed_conformance::duel_kit::{bot_then, drawish_bot, duel_terms, random_bot};
use sealed_conformance::sim::{NetConfig, Sim};
use sealed_games::duel::Duel;
use sealed_protocol::outcome::SeatResult;
use sealed_protocol::session::Command;
use sealed_protocol::verdict::{Status, Verdict};

fn converged(sim: &Sim<Duel>) -> Verdict {
    assert!(
        sim.quiet(),
        "not finished by t={}: phases {:?}",
        sim.now,
        sim.sessions
            .iter()
            .map(|s| s.phase().name())
            .collect::<Vec<_>>()
    );
    let files = sim.transcripts();
    assert_eq!(
        Sim::<Duel>::digest(&files[0]),
        Sim::<Duel>::digest(&files[1]),
        "transcripts differ"
    );
    let v0 = sim.sessions[0].verdict();
    let v1 = sim.sessions[1].verdict();
    assert_eq!(v0, v1, "verdicts differ");
    let offline = sealed_games::variant::check_transcript(&files[0]).expect("readable");
    assert_eq!(
        offline.verdict, v0,
        "offline verdict differs from the live one"
    );
    v0
}

#[test]
fn hostile_network_always_converges() {
    for seed in 0..40 {
        let rules = Duel { cards: 7, hand: 2 };
        let mut sim = Sim::new(
            duel_terms(&rules, seed as u8),
            vec![random_bot(), random_bot()],
            NetConfig::hostile(),
            seed,
        );
        sim.run(10_000_000);
        let v = converged(&sim);
        assert_eq!(v.status, Status::Verified, "seed {seed}: {v:#?}");
        assert!(sim.refused.is_empty(), "seed {seed}: {:?}", sim.refused);
    }
}

#[test]
fn simultaneous_resignations_are_a_draw_on_both_seats() {
    for seed in 0..20 {
        let rules = Duel::default();
        // Both bots resign as soon as they see round 3 completed: with latency both
        // resignations are in flight at once and neither acknowledges the other.
        let bots = vec![bot_then(3, Command::Resign), bot_then(3, Command::Resign)];
        let mut sim = Sim::new(duel_terms(&rules, 1), bots, NetConfig::perfect(), seed);
        sim.run(10_000_000);
        let v = converged(&sim);
        assert_eq!(v.status, Status::Verified);
        let o = v.outcome.expect("ended");
        assert_eq!(o.results, vec![SeatResult::Draw, SeatResult::Draw], "{o}");
    }
}

#[test]
fn one_resignation_under_a_hostile_network() {
    for seed in 0..20 {
        let bots = vec![random_bot(), bot_then(2, Command::Resign)];
        let mut sim = Sim::new(
            duel_terms(&Duel::default(), 2),
            bots,
            NetConfig::hostile(),
            seed,
        );
        sim.run(10_000_000);
        let v = converged(&sim);
        assert_eq!(
            v.outcome.expect("ended").results,
            vec![SeatResult::Win, SeatResult::Loss]
        );
    }
}

#[test]
fn draw_offer_accepted_under_a_hostile_network() {
    for seed in 0..10 {
        let bots = vec![bot_then(2, Command::OfferDraw), drawish_bot()];
        let mut sim = Sim::new(
            duel_terms(&Duel::default(), 3),
            bots,
            NetConfig::hostile(),
            seed,
        );
        sim.run(10_000_000);
        let v = converged(&sim);
        let o = v.outcome.expect("ended");
        assert_eq!(o.reason, "draw agreed", "seed {seed}");
    }
}

#[test]
fn a_move_declines_a_standing_offer() {
    // Seat 1 offers; seat 0 never accepts and keeps playing: the offer lapses, and a
    // late acceptance by nobody leaves the game to finish on the cards.
    let bots = vec![random_bot(), bot_then(1, Command::OfferDraw)];
    let mut sim = Sim::new(
        duel_terms(&Duel::default(), 4),
        bots,
        NetConfig::hostile(),
        9,
    );
    sim.run(10_000_000);
    let v = converged(&sim);
    assert!(v.outcome.expect("ended").reason.starts_with("rounds taken"));
}

// ----- Race: the test-only scaffolding rules (sealed values and private setups) -----

use sealed_conformance::race::{Race, race_bot, race_terms};

fn race_converged(sim: &Sim<Race>) -> Verdict {
    assert!(sim.quiet(), "not finished by t={}", sim.now);
    let files = sim.transcripts();
    assert_eq!(
        Sim::<Race>::digest(&files[0]),
        Sim::<Race>::digest(&files[1]),
        "transcripts differ"
    );
    let v0 = sim.sessions[0].verdict();
    assert_eq!(v0, sim.sessions[1].verdict(), "verdicts differ");
    // The offline check runs the same rules over the written file.
    let file = sealed_protocol::transcript::TranscriptFile::from_bytes(&files[0]).expect("file");
    let (_, offline) = sealed_protocol::transcript::check::<Race>(&file).expect("readable");
    assert_eq!(
        offline.verdict, v0,
        "offline verdict differs from the live one"
    );
    v0
}

#[test]
fn race_converges_under_a_hostile_network_with_sealed_notes_and_setups() {
    for seed in 0..30 {
        let mut sim = Sim::new(
            race_terms(15, seed as u8),
            vec![race_bot(None), race_bot(None)],
            NetConfig::hostile(),
            seed,
        );
        sim.run(10_000_000);
        let v = race_converged(&sim);
        assert_eq!(v.status, Status::Verified, "seed {seed}: {v:#?}");
        assert!(sim.refused.is_empty(), "{:?}", sim.refused);
        // Every note and both setup seeds were opened by the end.
        for s in &sim.sessions {
            assert!(s.engine().unopened(s.seat()).is_empty());
        }
    }
}

#[test]
fn race_simultaneous_resignations_are_a_draw() {
    for seed in 0..10 {
        let bots = vec![race_bot(Some(4)), race_bot(Some(4))];
        let mut sim = Sim::new(race_terms(30, 1), bots, NetConfig::perfect(), seed);
        sim.run(10_000_000);
        let v = race_converged(&sim);
        assert_eq!(
            v.outcome.expect("ended").results,
            vec![SeatResult::Draw, SeatResult::Draw]
        );
    }
}
