//! Withdrawals (protocol version 2, spec/PROTOCOL.md §17.14) for tests and vectors: a
//! version 2 Duel with no witness whose acceptance crossed the proposer's withdrawal,
//! and one whose proposer withdrew after it had seen the acceptance.

use sealed_games::duel::Duel;
use sealed_protocol::body::Item;
use sealed_protocol::proposal::{Terms, VERSION_2};
use sealed_protocol::session::Command;

use crate::duel_kit::duel_proposal;
use crate::pair::Pair;
use crate::scenarios::{A, B, honest_pair};
use crate::sim::test_key;

/// A version 2 Duel with no witness between the test keys; seat 1 signs the name `p1`
/// when it accepts.
pub fn pair(seed: u64) -> Pair<Duel> {
    let mut p = duel_proposal(&Duel::default(), 7);
    p.version = VERSION_2;
    let mut pair = Pair::new(
        Terms::from_signed(p.sign(&test_key(0))).expect("terms"),
        seed,
    );
    pair.sessions[1].set_name("p1");
    pair
}

/// Delivers and decides until nothing moves.
pub fn settle(p: &mut Pair<Duel>) {
    let mut d = honest_pair();
    p.run(&mut d);
}

/// Seat 1 accepts while seat 0 withdraws, neither having seen the other's: withdrawn,
/// no fault, verified (every seat's file the same).
pub fn crossed() -> Pair<Duel> {
    let mut p = pair(3);
    p.deliver();
    p.sessions[1]
        .handle_command(Command::Accept, 1)
        .expect("accept");
    p.sessions[0]
        .handle_command(Command::Withdraw, 1)
        .expect("withdraw");
    p.collect();
    settle(&mut p);
    p
}

/// Seat 0 signs a withdrawal that acknowledges seat 1's acceptance, in place of its
/// coin opening: its `out-of-phase` fault, and its loss.
pub fn withdrawn_after_acceptance() -> Pair<Duel> {
    let mut p = pair(5);
    p.deliver();
    p.sessions[1]
        .handle_command(Command::Accept, 1)
        .expect("accept");
    p.collect();
    let accept = p
        .pending
        .iter()
        .find(|(to, _)| *to == A)
        .expect("the acceptance")
        .1
        .clone();
    p.pending.clear();
    p.sessions[0].handle_envelope(&accept, 1).expect("held");
    let w = p.forge_after(A, B, vec![Item::Withdraw]);
    p.inject(&w);
    p
}
