//! Statements and their contradictions, on a made-up file of two chains.

use std::collections::BTreeMap;

use super::*;

/// A file of one public chain per seat, envelope `i` of seat `s` hashed `[s*16+i]`;
/// envelope `i` of seat 1 acknowledges the first `i + 1` of seat 0 (it answers them).
pub(crate) struct File(BTreeMap<(ChainId, u64), Hash>);

pub(crate) fn h(seat: u8, seq: u64) -> Hash {
    Hash([seat * 16 + seq as u8 + 1; 32])
}

pub(crate) fn file() -> File {
    let mut m = BTreeMap::new();
    for s in 0..2u8 {
        for i in 0..4 {
            m.insert((ChainId::public(Seat(s)), i), h(s, i));
        }
    }
    File(m)
}

impl Chains for File {
    fn hash_at(&self, chain: ChainId, seq: u64) -> Option<Hash> {
        self.0.get(&(chain, seq)).copied()
    }
    fn past(&self, chain: ChainId, seq: u64) -> Option<Vec<(ChainId, u64)>> {
        self.0.get(&(chain, seq))?;
        let (c0, c1) = (ChainId::public(Seat(0)), ChainId::public(Seat(1)));
        Some(if chain == c1 {
            vec![(c0, seq + 1), (c1, seq + 1)]
        } else {
            vec![(c0, seq + 1)]
        })
    }
}

pub(crate) fn game() -> GameId {
    GameId(Hash([7; 32]))
}

/// A ledger at `at` holding `counts` of seats 0 and 1, with the times `times` as
/// `(seat, seq, time)`, which must be consecutive per seat.
pub(crate) fn ledger(at: u64, counts: [u64; 2], times: &[(u8, u64, u64)]) -> Statement {
    Statement::Ledger(Ledger {
        game: game(),
        at,
        chains: (0..2u8)
            .map(|s| {
                let mine: Vec<&(u8, u64, u64)> = times.iter().filter(|t| t.0 == s).collect();
                let count = counts[usize::from(s)];
                Held {
                    chain: ChainId::public(Seat(s)),
                    count,
                    head: if count == 0 {
                        Hash::ZERO
                    } else {
                        h(s, count - 1)
                    },
                    first: mine.first().map_or(count, |t| t.1),
                    times: mine.iter().map(|t| t.2).collect(),
                }
            })
            .collect(),
    })
}

pub(crate) fn stamp(deposit: u8, at: u64) -> Statement {
    Statement::Stamp(Stamp {
        game: game(),
        deposit: Hash([deposit; 32]),
        at,
    })
}

#[test]
fn consistent_statements_prove_nothing_against_the_witness() {
    let s = [
        ledger(25, [1, 1], &[(0, 0, 10), (1, 0, 20)]),
        ledger(40, [2, 1], &[(0, 0, 10), (0, 1, 30), (1, 0, 20)]),
        ledger(40, [2, 1], &[]),
        stamp(1, 5),
        stamp(1, 5),
    ];
    assert_eq!(contradiction(&s, &file()), None);
    assert_eq!(time_of(&s, ChainId::public(Seat(0)), 1), Some(30));
    assert_eq!(time_of(&s, ChainId::public(Seat(1)), 1), None);
}

#[test]
fn each_kind_of_lie_is_caught() {
    let f = file();
    let c0 = ChainId::public(Seat(0));
    let name = |s: &[Statement]| contradiction(s, &f).map(|c| c.name());
    assert_eq!(name(&[stamp(1, 5), stamp(1, 6)]), Some("two-stamps"));
    let mut foreign = ledger(50, [2, 0], &[]);
    if let Statement::Ledger(l) = &mut foreign {
        l.chains[0].head = Hash([0xee; 32]);
    }
    assert_eq!(name(&[foreign]), Some("foreign-head"));
    assert_eq!(
        contradiction(
            &[
                ledger(40, [2, 0], &[(0, 1, 30)]),
                ledger(50, [2, 0], &[(0, 1, 31)])
            ],
            &f
        ),
        Some(Contradiction::TwoTimes {
            chain: c0,
            seq: 1,
            times: (30, 31)
        })
    );
    assert_eq!(
        name(&[ledger(20, [2, 1], &[]), ledger(30, [1, 1], &[])]),
        Some("shrank")
    );
    // Two ledgers at one moment that hold different counts.
    assert_eq!(
        name(&[ledger(20, [2, 0], &[]), ledger(20, [1, 0], &[])]),
        Some("shrank")
    );
    assert_eq!(
        name(&[ledger(20, [1, 0], &[]), ledger(20, [2, 0], &[])]),
        Some("shrank")
    );
    // A ledger that holds an envelope before its own time for it.
    assert_eq!(
        name(&[ledger(20, [2, 0], &[(0, 1, 30)])]),
        Some("held-early")
    );
    // A ledger after an envelope's time that lacks it.
    assert_eq!(
        contradiction(
            &[ledger(25, [2, 0], &[(0, 1, 20)]), ledger(30, [1, 0], &[])],
            &f
        )
        .map(|c| c.name()),
        Some("shrank")
    );
    assert_eq!(
        name(&[ledger(25, [1, 0], &[]), ledger(40, [2, 0], &[(0, 1, 20)])]),
        Some("lacks-held")
    );
    // Seat 1's envelope 1 answers seat 0's first two: a ledger holding it must hold them.
    assert_eq!(name(&[ledger(40, [1, 2], &[])]), Some("past-not-held"));
    // ... and cannot have been held before them.
    assert_eq!(
        name(&[ledger(
            40,
            [2, 2],
            &[(0, 0, 5), (0, 1, 30), (1, 0, 6), (1, 1, 20)]
        )]),
        Some("before-its-past")
    );
    // Within one chain the file need not tell: the envelope before comes first.
    assert_eq!(
        name(&[ledger(40, [3, 0], &[(0, 1, 30), (0, 2, 25)])]),
        Some("before-its-past")
    );
}

#[test]
fn statements_read_back_only_for_their_game_and_witness_and_in_shape() {
    let key = SecretKey::from_seed(&[3; 32]);
    let other = SecretKey::from_seed(&[4; 32]);
    let signed = ledger(25, [1, 1], &[(0, 0, 10)]).sign(&key);
    let bytes = signed.to_bytes();
    let read = |b: &[u8], seats| SignedStatement::from_bytes(b, game(), &key.public(), seats);
    assert_eq!(read(&bytes, 2), Ok(signed));
    assert_eq!(
        SignedStatement::from_bytes(&bytes, game(), &other.public(), 2),
        Err(StatementError::BadSignature)
    );
    assert_eq!(
        SignedStatement::from_bytes(&bytes, GameId(Hash([8; 32])), &key.public(), 2),
        Err(StatementError::OtherGame)
    );
    // The chains are every seat's public one: a ledger of two chains is no ledger of a
    // three-seat game.
    assert_eq!(read(&bytes, 3), Err(StatementError::Chains));
    // Every flipped byte is refused, never accepted as another statement.
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 1;
        assert!(read(&b, 2).is_err(), "byte {i}");
    }
    let big = vec![0u8; MAX_STATEMENT + 1];
    assert!(matches!(
        read(&big, 2),
        Err(StatementError::Wire(WireError::TooLarge { .. }))
    ));
    let shaped = |f: &dyn Fn(&mut Ledger)| {
        let mut s = ledger(25, [1, 1], &[]);
        if let Statement::Ledger(l) = &mut s {
            f(l);
        }
        read(&s.sign(&key).to_bytes(), 2)
    };
    assert_eq!(
        shaped(&|l| l.chains.swap(0, 1)),
        Err(StatementError::Chains)
    );
    assert_eq!(
        shaped(&|l| l.chains[1].chain = ChainId {
            log: crate::ids::LogId(1),
            seat: Seat(1)
        }),
        Err(StatementError::Chains)
    );
    assert_eq!(
        shaped(&|l| l.chains[0].head = Hash::ZERO),
        Err(StatementError::BadHead)
    );
    assert_eq!(
        shaped(&|l| {
            l.chains[0].count = 0;
            l.chains[0].first = 0;
        }),
        Err(StatementError::BadHead)
    );
    assert_eq!(
        shaped(&|l| {
            l.chains[0].first = 0;
            l.chains[0].times = vec![1, 2];
        }),
        Err(StatementError::TimesBeyond)
    );
    assert!(read(&stamp(1, 5).sign(&key).to_bytes(), 2).is_ok());
}
