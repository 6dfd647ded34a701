//! Secret Stallmate with a witness (protocol version 2, spec/GAMES.md §5.14) for
//! tests: version 2 terms naming the test witness, and a witness that stamps what each
//! seat holds between rounds, as a witness node answers the seats' stamp requests.

use std::collections::BTreeMap;

use sealed_games::stallmate::peer::{Stallmate, VARIANT};
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{Name, Seat};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::{Proposal, Role, SeatSpec, Terms, VERSION_2, WitnessSpec};
use sealed_protocol::session::Command;
use sealed_protocol::witness::{Receipt, Statement};

use crate::forfeit_kit::witness;
use crate::pair::{DecideAt, Pair};
use crate::sim::test_key;
use crate::stallmate_kit::all_done;

/// Version 2 Secret Stallmate terms between the test keys (White 0, Black 1, referee
/// 2), naming the test witness.
pub fn witnessed_terms(options: &[(&str, String)], nonce: u8) -> Terms {
    let roles = [Role::Player, Role::Player, Role::Referee];
    let mut options: Vec<(Name, String)> = options
        .iter()
        .map(|(k, v)| (Name::new(k).expect("a name"), v.clone()))
        .collect();
    options.sort();
    let p = Proposal {
        version: VERSION_2,
        variant: Name::new(VARIANT).expect("a name"),
        options,
        seats: roles
            .iter()
            .zip(0u8..)
            .map(|(role, i)| SeatSpec {
                role: *role,
                key: test_key(i).public().to_bytes(),
                name: format!("p{i}"),
            })
            .collect(),
        mailboxes: vec![],
        proposer: Seat(0),
        clock: 0,
        nonce: [nonce; 32],
        witness: Some(WitnessSpec {
            key: witness().public().to_bytes(),
            addrs: vec![],
        }),
    };
    Terms::from_signed(p.sign(&test_key(0))).expect("valid terms")
}

/// The witness: the first time anyone asked about each hash is its time for ever.
pub struct TestWitness {
    key: SecretKey,
    game: sealed_protocol::ids::GameId,
    times: BTreeMap<Hash, u64>,
    /// Added to the time of a hash first asked about while this returns something
    /// (a slow link from the asker, a late attempt).
    pub delay: Box<dyn FnMut(Seat, &Hash) -> u64>,
    /// Seats it does not answer.
    pub deaf_to: Vec<Seat>,
}

impl TestWitness {
    /// The witness of `p`'s game.
    pub fn of(p: &Pair<Stallmate>) -> Self {
        TestWitness {
            key: witness(),
            game: p.sessions[0].engine().terms().game(),
            times: BTreeMap::new(),
            delay: Box::new(|_, _| 0),
            deaf_to: vec![],
        }
    }

    /// A signed receipt of `h` at `at`, whatever the witness said before (a lying
    /// witness's second time, for tests).
    pub fn receipt(&self, h: Hash, at: u64) -> Vec<u8> {
        Statement::Receipt(Receipt {
            game: self.game,
            envelope: h,
            at,
        })
        .sign(&self.key)
        .to_bytes()
    }

    /// Stamps `h` now unless it has a time already; its time.
    pub fn stamp(&mut self, h: Hash, now: u64) -> u64 {
        *self.times.entry(h).or_insert(now)
    }

    /// The time it gave `h`, if asked.
    pub fn time_of(&self, h: &Hash) -> Option<u64> {
        self.times.get(h).copied()
    }

    /// Answers every seat's unstamped envelopes, and lets each seat that owes its
    /// stamps item and knows them all post it (as its node does).
    pub fn serve(&mut self, p: &mut Pair<Stallmate>) {
        let now = p.now;
        for i in 0..p.sessions.len() {
            let seat = Seat(i as u8);
            if self.deaf_to.contains(&seat) {
                continue;
            }
            let hashes = p.sessions[i].unstamped();
            let mut statements = vec![];
            for h in hashes {
                let delay = (self.delay)(seat, &h);
                let at = *self.times.entry(h).or_insert(now + delay);
                statements.push(self.receipt(h, at));
            }
            let s = &mut p.sessions[i];
            s.note_stamps(&statements, now);
            if s.stamps_wanted().is_some_and(|w| w.is_empty()) {
                let known = s.stamps_known();
                s.handle_command(Command::Stamps(known), now)
                    .expect("an honest seat posts its stamps");
            }
        }
        p.collect();
    }
}

/// Plays a witnessed game with these deciders until every seat is done (or `false`
/// after the step budget).
pub fn run_witnessed(
    p: &mut Pair<Stallmate>,
    w: &mut TestWitness,
    d: &mut [DecideAt<Stallmate>],
) -> bool {
    for _ in 0..100_000 {
        if all_done(p) {
            return true;
        }
        w.serve(p);
        p.round(
            d.len(),
            |i, s, now| d.get_mut(i).and_then(|f| f(s, now)),
            crate::pair::Pace::Clocked(50),
        );
    }
    false
}

/// A trio playing witnessed terms.
pub fn witnessed_trio(options: &[(&str, String)], seed: u64) -> Pair<Stallmate> {
    Pair::new(witnessed_terms(options, seed as u8), seed)
}
