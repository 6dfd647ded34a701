//! A ruling that reaches a player's node from outside the seats (the arbiter's node,
//! spec/GAMES.md §4.20.7; `Table::offer_ruling`): the table takes only a ruling the
//! rules will take — one signed by the arbiter the terms name, about a dispute still
//! open, in a version 2 game — keeps it, and posts it as its seat's act when the seat is
//! to act (a duty), never for the other seat. Anything else is refused with its reason.

use sealed_conformance::peer::Read as _;
use sealed_conformance::physical_kit::{Physical, arbiter_key, impostor_key};
use sealed_conformance::sim::test_key;
use sealed_games::table::{self, Table};
use sealed_games::tempete::act::Act;
use sealed_games::tempete::physical::ruling::sign_ruling;
use sealed_protocol::ids::Seat;
use sealed_protocol::session::Command;

const WHITE: Seat = Seat(0);
const BLACK: Seat = Seat(1);

/// Seat `seat`'s table, as its node holds it: restored from its secrets and envelopes.
fn table_of(g: &Physical, seat: Seat) -> Box<dyn Table> {
    let s = g.session(seat);
    let envelopes = sealed_protocol::transcript::TranscriptFile::from_engine(s.engine()).envelopes;
    table::restore(
        s.engine().terms().clone(),
        test_key(seat.0),
        "",
        s.secrets().clone(),
        &envelopes,
        g.pair.now,
    )
    .expect("restored")
}

fn ruling(g: &Physical, key: &sealed_protocol::keys::SecretKey, dispute: u32) -> Vec<u8> {
    let coin = *g.session(WHITE).engine().coin().expect("started");
    sealed_protocol::wire::encode(&Act::Ruling {
        dispute,
        edits: vec![],
        note: "the card stands".into(),
        signature: sign_ruling(key, &coin, dispute, &[], "the card stands"),
    })
}

#[test]
fn the_arbiters_ruling_is_kept_and_posted_by_the_seat_to_act_only() {
    let mut g = Physical::new_v2(true, 5);
    g.claim_disputed();
    let good = ruling(&g, &arbiter_key(), 0);
    // Black is not to act: his table keeps the ruling and posts nothing.
    let mut black = table_of(&g, BLACK);
    black.offer_ruling(&good).expect("kept");
    assert_eq!(black.turn().rulings_waiting, 1);
    assert!(
        black.duty(g.pair.now).is_none(),
        "posted for the seat not to act"
    );
    assert!(black.text().contains("1 ruling(s) from outside the seats"));
    // White is: his table posts it, as an act of his that the rules take.
    let mut white = table_of(&g, WHITE);
    white.offer_ruling(&good).expect("kept");
    let Some(Command::Act { act, .. }) = white.duty(g.pair.now) else {
        panic!("no duty: {}", white.text());
    };
    assert_eq!(act, good);
    let now = g.pair.now + 1;
    g.pair.sessions[WHITE.index()]
        .handle_command(white.duty(now).unwrap(), now)
        .expect("the ruling is taken");
    g.pair.collect();
    g.settle();
    let v = g.verdict(BLACK);
    assert!(v.faults.is_empty(), "{v:#?}");
    // Once ruled, the same ruling is about nothing open: refused, and dropped.
    let mut black = table_of(&g, BLACK);
    let err = black.offer_ruling(&good).unwrap_err().to_string();
    assert!(err.contains("dispute 0 is not open"), "{err}");
    assert_eq!(black.turn().rulings_waiting, 0);
}

#[test]
fn a_forged_garbled_or_misplaced_ruling_is_refused() {
    let mut g = Physical::new_v2(true, 6);
    g.claim_disputed();
    let mut white = table_of(&g, WHITE);
    let forged = ruling(&g, &impostor_key(), 0);
    let err = white.offer_ruling(&forged).unwrap_err().to_string();
    assert!(err.contains("not signed by the game's arbiter"), "{err}");
    let err = white
        .offer_ruling(&ruling(&g, &arbiter_key(), 3))
        .unwrap_err()
        .to_string();
    assert!(err.contains("dispute 3 is not open"), "{err}");
    assert!(white.offer_ruling(&[0xff; 40]).is_err());
    let not_a_ruling = sealed_protocol::wire::encode(&Act::Dispute {
        act: 0,
        note: String::new(),
    });
    let err = white.offer_ruling(&not_a_ruling).unwrap_err().to_string();
    assert!(err.contains("only the arbiter's ruling"), "{err}");
    assert_eq!(white.turn().rulings_waiting, 0);
    assert!(white.duty(g.pair.now).is_none());
    // A ruling of another game (another coin) is not this arbiter's word here.
    let mut other = Physical::new_v2(true, 7);
    other.claim_disputed();
    let err = white
        .offer_ruling(&ruling(&other, &arbiter_key(), 0))
        .unwrap_err()
        .to_string();
    assert!(err.contains("not signed by the game's arbiter"), "{err}");
}

#[test]
fn in_a_version_1_game_no_node_posts_a_ruling() {
    let mut g = Physical::new(true, 8);
    g.claim_disputed();
    let mut white = table_of(&g, WHITE);
    let err = white
        .offer_ruling(&ruling(&g, &arbiter_key(), 0))
        .unwrap_err()
        .to_string();
    assert!(err.contains("protocol version 2"), "{err}");
}
