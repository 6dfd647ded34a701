//! A property of time forfeits (protocol version 2, spec/PROTOCOL.md §17.6): an
//! envelope that discharges nothing, inserted anywhere in the accused's chain, never
//! changes a forfeit's verdict. The generator draws an envelope of every item kind; the
//! ones the engine judges without fault, that end nothing and discharge nothing the
//! accused owed (by the `awaited` list before and after, and no act accepted) are kept:
//! for those the forfeit must stand or fail exactly as without it, with the same
//! deadline. `SEALED_PROP_CASES` sets how many (48 by default).

use proptest::prelude::*;
use sealed_conformance::forfeit_kit::{HOUR, game, known, pair, proposal, signed, view, witness};
use sealed_conformance::pair::Pair;
use sealed_conformance::scenarios::{A, B, until_turn};
use sealed_games::duel::Duel;
use sealed_protocol::body::{
    Claim, ClaimKind, Commit, Deal, DrawOpen, Forfeit, Item, Open, Purpose,
};
use sealed_protocol::envelope::Signed;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, EnvRef, Name};
use sealed_protocol::lateness::Late;
use sealed_protocol::session::Command;
use sealed_protocol::verdict::awaited;
use sealed_protocol::witness::{Held, Ledger, Statement};

const MINUTE: u64 = 60_000;

fn cases() -> u32 {
    std::env::var("SEALED_PROP_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(48)
}

/// An item of every kind the protocol has, with arbitrary contents.
fn any_item() -> impl Strategy<Value = Item> {
    let name = || Name::new("v").expect("a name");
    prop_oneof![
        Just(Item::Accept),
        Just(Item::Decline),
        any::<[u8; 32]>().prop_map(move |h| Item::Commit(Commit {
            purpose: Purpose::Value(name()),
            first: 0,
            hashes: vec![Hash(h)],
        })),
        any::<u8>().prop_map(|v| Item::Open(Open {
            purpose: Purpose::Coin,
            index: 0,
            nonce: [v; 32],
            value: vec![v; 32],
        })),
        any::<u32>().prop_map(|s| Item::Deal(Deal {
            owner: A,
            deck: Name::new("cards").expect("a name"),
            slots: vec![s % 16],
        })),
        proptest::collection::vec(any::<u8>(), 0..8).prop_map(Item::Act),
        Just(Item::Resign),
        Just(Item::OfferDraw),
        Just(Item::AcceptDraw),
        (any::<bool>(), any::<bool>()).prop_map(|(a, t)| Item::Claim(Claim {
            against: if a { A } else { B },
            kind: if t {
                ClaimKind::Timeout
            } else {
                ClaimKind::Abandoned
            },
        })),
        Just(Item::Close),
        any::<u8>().prop_map(|v| Item::DrawOpen(DrawOpen {
            pool: Name::new("p").expect("a name"),
            index: 1,
            value: [v; 32],
        })),
        Just(Item::Forfeit(Forfeit {
            against: A,
            statements: vec![],
        })),
        Just(Item::Statements(vec![])),
        proptest::collection::vec(any::<u8>(), 0..40).prop_map(|b| Item::Statements(vec![b])),
    ]
}

/// Plays a Duel with `time-per-move=1h` until Black's turn in round `stall`, Black then
/// silent; at Black's turn in round `at`, first his envelope of `noop` (if any), which
/// must be judged without fault, end nothing and discharge nothing (else `None`).
fn play(noop: Option<&Item>, at: u32, stall: u32) -> Option<(Pair<Duel>, Option<Signed>)> {
    let mut p = pair(proposal(&[("time-per-move", "1h")]));
    until_turn(&mut p, B, at);
    p.deliver_all();
    let mut inserted = None;
    if let Some(item) = noop {
        let before = awaited(p.sessions[0].engine());
        let faults = p.sessions[0].engine().faults().len();
        let main = p.sessions[0].engine().main_line().len();
        let env = p.forge(B, vec![item.clone()]);
        p.inject(&env);
        p.deliver_all();
        let e = p.sessions[0].engine();
        let changed = e.faults().len() != faults
            || e.is_over()
            || e.main_line().len() != main
            || awaited(e) != before;
        if changed {
            return None;
        }
        inserted = Some(env);
    }
    until_turn(&mut p, B, stall);
    p.deliver_all();
    p.silence(B);
    Some((p, inserted))
}

/// The forfeit White's honest session judges: a ledger dating every public envelope
/// White holds (each at a minute per envelope of the game before it, the no-op left out
/// of the count and given its predecessor's time and a millisecond), and one `after` ms
/// past the last time, holding the same.
fn forfeit(p: &Pair<Duel>, noop: Option<&Signed>, after: u64) -> Result<Late, String> {
    forfeit_dated(p, noop, after).0
}

/// As [`forfeit`], with the time of the last envelope the ledger dates.
fn forfeit_dated(p: &Pair<Duel>, noop: Option<&Signed>, after: u64) -> (Result<Late, String>, u64) {
    let e = p.sessions[0].engine();
    let k = known(p, A);
    // A causal order of the public envelopes: by vector-clock size, then place.
    let mut order: Vec<(u64, EnvRef)> = vec![];
    for h in &k {
        for seq in 0..h.count {
            let at = EnvRef {
                chain: h.chain,
                seq,
            };
            let clock = e
                .terms()
                .seats()
                .map(|s| {
                    let c = ChainId::public(s);
                    if c == at.chain {
                        seq + 1
                    } else {
                        // What this envelope acknowledged of the other chain.
                        e.envelope(at)
                            .and_then(|x| {
                                x.unsigned()
                                    .acks
                                    .iter()
                                    .find(|a| a.chain == c)
                                    .map(|a| a.seq + 1)
                            })
                            .unwrap_or(0)
                    }
                })
                .sum::<u64>();
            order.push((clock, at));
        }
    }
    order.sort();
    let mut times = std::collections::BTreeMap::new();
    let mut n = 0u64;
    let mut last = 0;
    for (_, at) in &order {
        let is_noop = noop.is_some_and(|x| x.at() == *at);
        let t = if is_noop {
            last + 1
        } else {
            n += 1;
            n * MINUTE
        };
        last = t;
        times.insert(*at, t);
    }
    let at = times.values().copied().max().unwrap_or(0);
    let dated = Statement::Ledger(Ledger {
        game: game(p),
        at,
        chains: k
            .iter()
            .map(|h| Held {
                chain: h.chain,
                count: h.count,
                head: h.head,
                first: 0,
                times: (0..h.count)
                    .map(|seq| {
                        times[&EnvRef {
                            chain: h.chain,
                            seq,
                        }]
                    })
                    .collect(),
            })
            .collect(),
    });
    let st = [dated, view(game(p), at + after, k)];
    let mut s = sealed_protocol::session::Session::<Duel>::restore(
        e.terms().clone(),
        sealed_conformance::sim::test_key(0),
        p.sessions[0].secrets().clone(),
        &e.stored()
            .0
            .iter()
            .map(|x| x.bytes.clone())
            .collect::<Vec<_>>(),
        p.now,
    )
    .expect("White's session");
    let posted = s
        .handle_command(
            Command::Forfeit(Forfeit {
                against: B,
                statements: signed(&st, &witness()),
            }),
            p.now,
        )
        .map_err(|e| e.to_string());
    let late = posted.and_then(|()| {
        s.engine()
            .forfeits()
            .first()
            .map(|f| f.2)
            .ok_or_else(|| "no forfeit".into())
    });
    (late, at)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_global_rejects: 100_000, ..ProptestConfig::default() })]

    #[test]
    fn an_envelope_that_discharges_nothing_never_changes_a_forfeit(
        item in any_item(),
        at in 1u32..3,
        after in prop_oneof![Just(HOUR - 1), Just(HOUR), Just(HOUR + 1), 0..3 * HOUR],
    ) {
        let stall = 3;
        let with = play(Some(&item), at, stall);
        prop_assume!(with.is_some());
        let (with, noop) = with.expect("kept");
        let (plain, _) = play(None, at, stall).expect("a plain game");
        let a = forfeit(&plain, None, after);
        let b = forfeit(&with, noop.as_ref(), after);
        prop_assert_eq!(a.is_ok(), b.is_ok(), "{:?}: {:?} against {:?}", item, a, b);
        if let (Ok(a), Ok(b)) = (a, b) {
            prop_assert_eq!((a.since, a.deadline), (b.since, b.deadline), "{:?}", item);
        }
    }
}

/// The draws of the property above reach the kinds that discharge nothing: each one here
/// is kept by `play` (no fault, nothing ended, nothing discharged), so the property tests
/// them, not only the kinds that fault.
#[test]
fn the_idle_kinds_are_reached() {
    for item in [
        Item::AcceptDraw,
        Item::OfferDraw,
        Item::Claim(Claim {
            against: A,
            kind: ClaimKind::Timeout,
        }),
        Item::Statements(vec![]),
    ] {
        assert!(play(Some(&item), 1, 3).is_some(), "{item:?}");
        // And the verdicts agree, at the deadline and a millisecond after (the ledger
        // that dates the wait's start may date later envelopes after it).
        let (plain, _) = play(None, 1, 3).expect("plain");
        let (late, last) = forfeit_dated(&plain, None, 3 * HOUR);
        let exact = late.expect("stands long after").deadline - last;
        for after in [exact, exact + 1] {
            let (with, noop) = play(Some(&item), 1, 3).expect("kept");
            let (plain, _) = play(None, 1, 3).expect("plain");
            let a = forfeit(&plain, None, after).map(|l| (l.since, l.deadline));
            let b = forfeit(&with, noop.as_ref(), after).map(|l| (l.since, l.deadline));
            assert_eq!(a.is_ok(), b.is_ok(), "{item:?}: {a:?} {b:?}");
            // Not a vacuous agreement: a millisecond past the deadline the forfeit stands.
            assert_eq!(a.is_ok(), after > exact, "{item:?}: {a:?}");
            assert_eq!(a.ok(), b.ok(), "{item:?}");
        }
    }
}
