//! Chex over the protocol: seeded bot games where every piece comes from a fair blind
//! draw, each ending in a verdict the offline check reproduces, and every way to cheat
//! a draw or break the board.

use sealed_conformance::chex_kit::{self, ChexCheat, chex_bot, chex_deciders, chex_terms};
use sealed_conformance::pair::{Decide, Pair};
use sealed_conformance::sim::{NetConfig, Sim};
use sealed_games::chex::{self, Act, Chex, engine::Phase};
use sealed_protocol::body::Item;
use sealed_protocol::fault::FaultKind;
use sealed_protocol::ids::Seat;
use sealed_protocol::outcome::SeatResult;
use sealed_protocol::verdict::{Status, Verdict};

fn converged(sim: &Sim<Chex>) -> Verdict {
    assert!(sim.quiet(), "not finished by t={}", sim.now);
    let files = sim.transcripts();
    assert_eq!(
        Sim::<Chex>::digest(&files[0]),
        Sim::<Chex>::digest(&files[1]),
        "transcripts differ"
    );
    let live = sim.sessions[0].verdict();
    assert_eq!(live, sim.sessions[1].verdict(), "verdicts differ");
    let offline = sealed_games::variant::check_transcript(&files[0]).expect("readable");
    assert_eq!(
        offline.verdict, live,
        "the offline check does not reproduce the live verdict"
    );
    assert_eq!(offline.exit_code(), 0);
    live
}

#[test]
fn bot_games_end_in_verdicts_the_offline_check_reproduces() {
    let mut endings = std::collections::BTreeMap::new();
    for seed in 0..12 {
        let net = if seed % 3 == 0 {
            NetConfig::hostile()
        } else {
            NetConfig::perfect()
        };
        let mut sim = Sim::new(
            chex_terms(200, seed as u8),
            vec![chex_bot(), chex_bot()],
            net,
            seed,
        );
        sim.run(100_000_000);
        let v = converged(&sim);
        assert_eq!(v.status, Status::Verified, "seed {seed}: {v:#?}");
        assert!(sim.refused.is_empty(), "{:?}", sim.refused);
        *endings.entry(v.outcome.expect("ended").reason).or_insert(0) += 1;
    }
    eprintln!("endings: {endings:?}");
}

/// Two bots whose choices vary from call to call, deterministically.
fn bots() -> [Decide<Chex>; 2] {
    chex_deciders()
}

/// The honest seat's verdict (checked offline too): only the cheater is at fault, with
/// its kind, and loses.
fn assert_caught(c: &ChexCheat) {
    let honest = Seat(1 - c.cheater.0);
    let v = c.pair.sessions[honest.index()].verdict();
    assert_eq!(
        sealed_games::variant::check_transcript(&c.pair.transcript(honest))
            .unwrap()
            .verdict,
        v
    );
    assert_eq!(v.status, Status::ProvenFault, "{v:#?}");
    assert!(
        v.faults
            .iter()
            .any(|f| f.seat == c.cheater && f.kind == c.kind),
        "no {}: {v:#?}",
        c.kind
    );
    assert!(v.faults.iter().all(|f| f.seat == c.cheater), "{v:#?}");
    assert_eq!(v.outcome.unwrap().results[honest.index()], SeatResult::Win);
}

#[test]
fn placing_a_piece_other_than_the_one_drawn_loses() {
    assert_caught(&chex_kit::wrong_piece_placed());
}

#[test]
fn a_draw_chain_value_that_does_not_hash_to_the_one_before_loses() {
    assert_caught(&chex_kit::draw_chain_broken());
}

#[test]
fn a_draw_value_sent_before_the_declaration_loses() {
    assert_caught(&chex_kit::draw_value_early());
}

#[test]
fn opening_a_draw_before_its_value_came_loses() {
    let mut p = Pair::<Chex>::new(chex_terms(0, 4), 73);
    let mut d = bots();
    // White's very first turn: declare, and open at once without waiting for Black.
    p.run_until(&mut d, |p| p.sessions[0].engine().state().is_some());
    let declare = p.forge(Seat(0), vec![Item::Act(Act::Draw.bytes())]);
    p.inject(&declare);
    p.pending.retain(|(to, _)| *to != Seat(0));
    let open = chex_kit::open_next_draw(&p, Seat(0)).expect("open");
    let env = p.forge(
        Seat(0),
        vec![
            Item::DrawOpen(open),
            Item::Act(
                Act::Place {
                    kind: 0,
                    x: 0,
                    y: 0,
                }
                .bytes(),
            ),
        ],
    );
    p.inject(&env);
    let mut d = bots();
    p.run(&mut d);
    assert_caught(&ChexCheat {
        pair: p,
        cheater: Seat(0),
        kind: FaultKind::PrematureReveal,
    });
}

#[test]
fn a_move_that_breaks_the_board_loses() {
    let mut p = Pair::<Chex>::new(chex_terms(0, 5), 74);
    let mut d = bots();
    p.run_until(&mut d, |p| {
        p.sessions[0]
            .engine()
            .state()
            .is_some_and(|s| s.ply >= 10 && s.phase == Phase::Turn && s.board.len() >= 4)
    });
    let pos = p.sessions[0].engine().state().unwrap().clone();
    let mover = chex::seat(pos.to_move);
    // A pseudo-legal move the connectivity rule forbids, if any; else a far jump.
    let legal = pos.legal_moves();
    let bad = pos.pseudo_moves().into_iter().find(|m| !legal.contains(m));
    let act = match bad {
        Some(m) => Act::of_move(&m),
        None => {
            let (from, _) = pos
                .board
                .iter()
                .find(|(_, pc)| pc.color == pos.to_move)
                .expect("a piece");
            Act::Move {
                from: (from.x, from.y),
                to: (from.x + 40, from.y + 40),
            }
        }
    };
    let env = p.forge(mover, vec![Item::Act(act.bytes())]);
    p.inject(&env);
    let mut d = bots();
    p.run(&mut d);
    assert_caught(&ChexCheat {
        pair: p,
        cheater: mover,
        kind: FaultKind::IllegalAct,
    });
}

#[test]
fn a_played_game_writes_a_score_that_replays_to_the_same_position() {
    use sealed_games::chex::engine::{Kind, Ply, Square};
    let mut sim = Sim::new(
        chex_terms(200, 9),
        vec![chex_bot(), chex_bot()],
        NetConfig::perfect(),
        9,
    );
    sim.run(100_000_000);
    let e = sim.sessions[0].engine();
    let mut plies = vec![];
    for (at, _) in e.main_line() {
        let env = e.envelope(*at).unwrap();
        let Some(Item::Act(bytes)) = env
            .unsigned()
            .body
            .iter()
            .find(|i| matches!(i, Item::Act(_)))
        else {
            panic!("an act")
        };
        match sealed_protocol::wire::decode::<Act>(bytes, 32).unwrap() {
            Act::Draw => {}
            Act::Place { kind, x, y } => plies.push(Ply::Place {
                kind: Kind::from_index(kind.into()).unwrap(),
                at: Square::new(x, y),
            }),
            Act::Move { from, to } => plies.push(Ply::Move(sealed_games::chex::engine::Move::new(
                Square::new(from.0, from.1),
                Square::new(to.0, to.1),
            ))),
        }
    }
    let text = sealed_games::chex::engine::write_score(200, &plies).unwrap();
    let (pos, _) = sealed_games::chex::engine::replay_score(&text)
        .unwrap_or_else(|err| panic!("{err}\n{text}"));
    assert_eq!(pos, *e.state().unwrap());
}

#[test]
fn a_placement_away_from_the_board_loses() {
    // The right piece, on a square touching nothing: it would break the board.
    let mut p = Pair::<Chex>::new(chex_terms(0, 6), 75);
    let mut d = bots();
    p.run_until(&mut d, |p| {
        p.sessions[1].engine().state().is_some_and(|s| s.ply >= 2)
            && p.sessions[1]
                .pending_draw(&sealed_games::chex::stack())
                .is_some()
    });
    let s = &p.sessions[1];
    let pos = s.engine().state().unwrap().clone();
    let pick = s.pending_draw(&sealed_games::chex::stack()).unwrap();
    let kind = sealed_games::chex::picked(&pos, sealed_games::chex::color(Seat(1)), &pick).unwrap();
    let open = chex_kit::open_next_draw(&p, Seat(1)).unwrap();
    let act = Act::Place {
        kind: kind.index() as u8,
        x: 50,
        y: -50,
    };
    let env = p.forge(Seat(1), vec![Item::DrawOpen(open), Item::Act(act.bytes())]);
    p.inject(&env);
    let mut d = bots();
    p.run(&mut d);
    assert_caught(&ChexCheat {
        pair: p,
        cheater: Seat(1),
        kind: FaultKind::IllegalAct,
    });
}
