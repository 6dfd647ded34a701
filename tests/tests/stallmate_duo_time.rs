//! Time in Secret Stallmate without a referee (spec/GAMES.md §5.15 "Time"; PROTOCOL.md
//! §5.4 and §17.7, from draft 10): a chess move has the time of one move however many
//! attempts it takes. Under draft 9 every attempt was a wait of its own with the whole
//! time per move, so a mover whose attempts were refused could take an hour for each,
//! up to 1,024 of them, on one move; the first test's forfeit did not stand then.

use sealed_conformance::duo_kit::*;
use sealed_conformance::forfeit_kit::{game, known, receipts, signed, view, witness};
use sealed_conformance::pair::{DecideAt, Pace, Pair};
use sealed_games::chess::Color;
use sealed_games::stallmate::duo::{Duo, Owed};
use sealed_games::stallmate::peer::seat;
use sealed_protocol::body::Forfeit;
use sealed_protocol::ids::Seat;
use sealed_protocol::outcome::SeatResult::Score;
use sealed_protocol::session::{AnySession, Command, Session};

const MINUTE: u64 = 60_000;

/// The game's state in `s`, if the mover owes an attempt after `failed` refused ones in
/// the move under way: his color.
fn owes_another(s: &Session<Duo>, failed: u32) -> Option<Color> {
    let st = s.engine().state()?;
    match st.owed()? {
        Owed::Attempt(c) if st.tries >= failed => Some(c),
        _ => None,
    }
}

/// A game of `seed` (every act of the computations made at once) in which each attempt
/// is made `think` ms after it is owed, played until the mover has had `failed` attempts
/// of one move refused and owes another, both seats holding everything: the seats, the
/// deciders and the mover. `None` when the game of this seed ends first.
fn slow_mover(seed: u64, failed: u32, think: u64) -> Option<(Pair<Duo>, Vec<DecideAt<Duo>>, Seat)> {
    let terms = duo_terms(&[("ply-limit", "8")], seed as u8);
    let mut p = Pair::<Duo>::new(terms, seed);
    let table = Table::new(seed);
    let mut d = deciders(&table);
    // When each seat was first seen owing the attempt it owes now, by computation.
    let mut owed: [Option<(u64, u64)>; 2] = [None; 2];
    let reached = |p: &Pair<Duo>| {
        let movers: Vec<Option<Color>> =
            p.sessions.iter().map(|s| owes_another(s, failed)).collect();
        movers[0].is_some()
            && movers[0] == movers[1]
            && acts_made(&p.sessions[0]) == acts_made(&p.sessions[1])
    };
    let ran = p.rounds(
        2,
        |i, s, now| {
            let st = s.engine().state();
            if let Some(st) = st.filter(|st| st.owed() == Some(Owed::Attempt(color(s.seat())))) {
                let since = match owed[i] {
                    Some((k, t)) if k == st.computations => t,
                    _ => {
                        owed[i] = Some((st.computations, now));
                        now
                    }
                };
                if now < since + think {
                    return None;
                }
            }
            d.get_mut(i).and_then(|d| d(s, now))
        },
        Pace::Clocked(MINUTE),
        |p| reached(p) || p.sessions.iter().any(|s| s.engine().is_over()),
    );
    if !ran || !reached(&p) {
        return None;
    }
    let mover = seat(owes_another(&p.sessions[0], failed)?);
    Some((p, d, mover))
}

/// The color of `s` (White 0, Black 1).
fn color(s: Seat) -> Color {
    if s == seat(Color::White) {
        Color::White
    } else {
        Color::Black
    }
}

/// The first seed from 1 whose game reaches a mover with `failed` attempts refused.
fn first_slow_mover(failed: u32, think: u64) -> (Pair<Duo>, Vec<DecideAt<Duo>>, Seat) {
    (1..=40)
        .find_map(|seed| slow_mover(seed, failed, think))
        .expect("a seed whose mover has attempts refused")
}

/// The mover walks away; the other posts a forfeit with the witness's ledger dating
/// every envelope at its signer's clock and a silent ledger `after` ms after the last.
/// Whether it stands.
fn forfeit_after(p: &mut Pair<Duo>, mover: Seat, after: u64) -> bool {
    let other = Seat(1 - mover.0);
    p.silence(mover);
    if !p.withhold.contains(&mover) {
        p.withhold.push(mover);
    }
    let dated = receipts(p, other, |s| s.env.unsigned.clock);
    let sealed_protocol::witness::Statement::Ledger(l) = &dated else {
        unreachable!("receipts gives a ledger")
    };
    let silent = view(game(p), l.at + after, known(p, other));
    let statements = signed(&[dated.clone(), silent], &witness());
    p.sessions[other.index()]
        .handle_command(
            Command::Forfeit(Forfeit {
                against: mover,
                statements,
            }),
            p.now,
        )
        .is_ok()
}

/// Two attempts refused after 54 minutes each, with an hour a move and no leave: the
/// move has used its hour, so the mover is out of time as soon as he owes the third —
/// his loss, −10 to 0, verified at the other's seat.
#[test]
fn a_move_of_many_attempts_has_the_time_of_one_move() {
    let (mut p, mut d, mover) = first_slow_mover(2, 54 * MINUTE);
    let other = Seat(1 - mover.0);
    assert!(
        forfeit_after(&mut p, mover, 1_000),
        "the move's hour is spent by its attempts"
    );
    p.run_clocked(&mut d, 50, |p| {
        p.sessions[other.index()].engine().is_over() && all_done_for(p, other)
    });
    let v = p.sessions[other.index()].verdict();
    let o = v.outcome.as_ref().expect("a result");
    assert_eq!(o.results[mover.index()], Score(-10), "{v:#?}");
    assert_eq!(o.results[other.index()], Score(0), "{v:#?}");
    assert!(v.verified && v.faults.is_empty(), "{v:#?}");
}

/// Two attempts after 15 minutes each: the move has 30 minutes of its hour left (to
/// within the minute the test's clock steps by), and a forfeit stands only past them.
#[test]
fn a_move_keeps_what_its_attempts_left_of_its_time() {
    let (mut p, _, mover) = first_slow_mover(2, 15 * MINUTE);
    assert!(!forfeit_after(&mut p, mover, 1_000), "30 minutes are left");
    assert!(
        !forfeit_after(&mut p, mover, 25 * MINUTE),
        "still 3 to 5 left"
    );
    assert!(
        forfeit_after(&mut p, mover, 31 * MINUTE),
        "the hour is spent"
    );
}

/// The players' own clock (`sealed_protocol::session::Timeline`, read by the nodes'
/// clocks) counts the same moves: every act of the game comes with the moves made
/// before it, and the move under way is the mover's however many attempts it took.
#[test]
fn the_players_clock_counts_chess_moves_not_acts() {
    let (p, _, mover) = first_slow_mover(2, 15 * MINUTE);
    for s in &p.sessions {
        let line = s.timeline();
        assert_eq!(
            line.moves.len(),
            line.acts.len(),
            "one count of moves an act"
        );
        let now = line.moves_now.expect("the game counts its moves");
        assert_eq!(now.mover, Some(mover));
        // The two refused attempts were acts of the mover's, in the move under way.
        let made = now.made[mover.index()];
        let in_move = line
            .acts
            .iter()
            .zip(&line.moves)
            .filter(|((seat, _), m)| *seat == mover && m.made[mover.index()] == made)
            .count();
        assert!(in_move >= 2, "{in_move} acts of the move under way");
    }
}
