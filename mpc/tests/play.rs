//! Secret Stallmate computed by the two players alone (src/play): whole games between a
//! garbler and an evaluator whose every message passes as bytes, checked against the
//! referee; and the audit, which finds each way a side can deviate — another function
//! garbled, a corrupted transfer watched for a failure, a wrong label returned, another
//! request, a lie about the decoded bits, a walk-away — and names the right side.

mod common;

use common::{Rng, attempt_item};
use sealed_games::chess::Square;
use sealed_games::stallmate::{
    Answer as RefAnswer, Attempt, Options as RefOptions, Referee, Setup,
};
use sealed_mpc::play::audit::{Finding, Opened, Sent, audit, audit_in_step, audit_told};
use sealed_mpc::play::game::{Black, Circuits, Options, Outcome, PlayError, White};
use sealed_mpc::play::record::{self, audit_posted, step_hash};
use sealed_mpc::play::{Fault, Party};

const WHITE_SEED: [u8; 32] = [41; 32];
const BLACK_SEED: [u8; 32] = [42; 32];

fn rank(s: Setup) -> [u8; 8] {
    s.back_rank().map(|k| k.idx() as u8)
}

fn code(a: &RefAnswer) -> u8 {
    match a {
        RefAnswer::Illegal => 0,
        RefAnswer::Yes(_) => 1,
        RefAnswer::No => 2,
        RefAnswer::Try => 3,
        RefAnswer::PawnCaptureFirst => 4,
    }
}

/// A game played by the two sides with the referee beside them; `tamper` may change any
/// message before it is delivered. Gives the messages as sent, the attempts made, and
/// the fault that stopped the game, if one did.
struct Played {
    sent: Vec<Sent>,
    attempts: Vec<u16>,
    fault: Option<Fault>,
    moves: usize,
    /// What each computation told White, the start first (a game played to its end).
    told: Vec<Outcome>,
}

fn play(
    circuits: &Circuits,
    plies: usize,
    seed: u64,
    mut tamper: impl FnMut(usize, &mut Sent),
) -> Played {
    let mut rng = Rng(seed);
    let (ws, bs) = (
        Setup::new(518).unwrap(),
        Setup::new(rng.below(960) as u16).unwrap(),
    );
    let options = Options {
        must_try: true,
        name_capturer: true,
        ply_limit: None,
    };
    let mut referee = Referee::new(ws, bs, RefOptions::default());
    let mut w = White::new(WHITE_SEED, rank(ws), options);
    let mut b = Black::new(BLACK_SEED, rank(bs), options);
    let mut sent: Vec<Sent> = vec![];
    let mut attempts = vec![];
    let mut moves = 0;
    let mut deliver = |by: Party, bytes: Vec<u8>, sent: &mut Vec<Sent>| -> Vec<u8> {
        let mut s = Sent { by, bytes };
        tamper(sent.len(), &mut s);
        sent.push(s.clone());
        s.bytes
    };
    let stop = |e: PlayError, sent: Vec<Sent>, attempts: Vec<u16>, moves| match e {
        PlayError::Fault(f) => Played {
            sent,
            attempts,
            fault: Some(f),
            moves,
            told: vec![],
        },
        other => panic!("{other:?}"),
    };
    let e0 = deliver(Party::Evaluator, b.base_message(), &mut sent);
    let g0 = match w.base(&e0) {
        Ok(g) => deliver(Party::Garbler, g, &mut sent),
        Err(e) => return stop(e, sent, attempts, moves),
    };
    if let Err(e) = b.base_keys(&g0) {
        return stop(e, sent, attempts, moves);
    }
    let mut started = false;
    let mut tries = 0;
    let mut told = vec![];
    while moves < plies && referee.ending().is_none() {
        // The attempt: the start's placeholder first, then the mover's.
        let (a, item) = if started {
            let pos = referee.position();
            let legal = pos.legal_moves();
            let a = if tries >= 4 || rng.below(100) < 60 {
                let m = &legal[rng.below(legal.len())];
                Attempt::Move {
                    from: m.from,
                    to: m.to,
                    promotion: m.promotion,
                }
            } else if rng.below(5) == 0 {
                Attempt::Any
            } else {
                Attempt::Move {
                    from: Square::from_index(rng.below(64) as u8).unwrap(),
                    to: Square::from_index(rng.below(64) as u8).unwrap(),
                    promotion: None,
                }
            };
            (Some(a), attempt_item(&a))
        } else {
            (None, 0)
        };
        // The attempt is the mover's before the computation starts (it is committed
        // first), so the audit knows it even if the computation never ends.
        if a.is_some() {
            attempts.push(item);
        }
        let step = (|| -> Result<(Outcome, Outcome), PlayError> {
            let e1 = deliver(Party::Evaluator, b.ask(item)?, &mut sent);
            let g1 = deliver(Party::Garbler, w.answer(circuits, &e1, item)?, &mut sent);
            let e2 = deliver(Party::Evaluator, b.evaluate(circuits, &g1)?, &mut sent);
            let (g2, white_out) = w.decode(&e2)?;
            let g2 = deliver(Party::Garbler, g2, &mut sent);
            Ok((white_out, b.finish(&g2)?))
        })();
        let (white_out, black_out) = match step {
            Ok(o) => o,
            Err(e) => return stop(e, sent, attempts, moves),
        };
        told.push(white_out);
        let Some(a) = a else {
            assert_eq!(
                white_out,
                Outcome::Started {
                    white: true,
                    black: true
                }
            );
            assert_eq!(black_out, white_out);
            started = true;
            continue;
        };
        let mover_white = w.public().white_to_move;
        let answer = referee.attempt(a).expect("the referee judges it");
        let (mine, theirs) = if mover_white {
            (white_out, black_out)
        } else {
            (black_out, white_out)
        };
        let made = matches!(answer, RefAnswer::Yes(_));
        let Outcome::Attempt {
            made: m,
            answer: got,
        } = mine
        else {
            panic!("an attempt's outcome");
        };
        let Outcome::Attempt { made: m2, .. } = theirs else {
            panic!("an attempt's outcome");
        };
        assert_eq!((m, m2), (made, made), "{a:?}");
        assert_eq!(got.code, code(&answer), "{a:?}: the mover's answer");
        if let RefAnswer::Yes(r) = &answer {
            assert_eq!(got.capture, r.capture.is_some(), "{a:?}: a capture");
        }
        if made {
            moves += 1;
            tries = 0;
            let _ = referee.end_period();
        } else {
            tries += 1;
        }
    }
    Played {
        sent,
        attempts,
        fault: None,
        moves,
        told,
    }
}

fn opened(p: &Played, black_rank_seed: u64) -> Opened {
    let mut rng = Rng(black_rank_seed);
    let bs = Setup::new(rng.below(960) as u16).unwrap();
    Opened {
        white: (WHITE_SEED, rank(Setup::new(518).unwrap())),
        black: (BLACK_SEED, rank(bs)),
        options: Options {
            must_try: true,
            name_capturer: true,
            ply_limit: None,
        },
        attempts: p.attempts.clone(),
    }
}

/// The game a transcript names; any 32 bytes.
const GAME: [u8; 32] = [9; 32];

/// Whether the message made at a position is the one whose hash was posted there.
fn posted_is(hashes: &[[u8; 32]]) -> impl FnMut(usize, &Sent) -> bool + '_ {
    |at, want| step_hash(&GAME, at as u64, &want.bytes) == hashes[at]
}

/// The audit over the messages themselves, and over their hashes as a transcript keeps
/// them (`record::audit_posted`): both must find the same.
fn audited(o: &Opened, circuits: &Circuits, sent: &[Sent]) -> Finding {
    let by_bytes = audit(o, circuits, sent).expect("the audit runs");
    let hashes: Vec<_> = sent
        .iter()
        .enumerate()
        .map(|(i, s)| {
            assert_eq!(record::sender(i as u64), s.by, "message {i}'s sender");
            step_hash(&GAME, i as u64, &s.bytes)
        })
        .collect();
    let by_hash = audit_posted(o, circuits, &GAME, &hashes).expect("the audit runs");
    assert_eq!(
        by_bytes, by_hash,
        "the audit over hashes finds what it finds over bytes"
    );
    by_hash
}

/// A whole game between the two sides agrees with the referee at every attempt, and the
/// audit of its messages finds nothing.
#[test]
fn a_game_between_the_two_players_alone() {
    let circuits = Circuits::from_files().expect("the embedded circuit files");
    let p = play(&circuits, 12, 7, |_, _| {});
    assert!(p.fault.is_none(), "{:?}", p.fault);
    assert_eq!(p.moves, 12);
    println!("{} attempts, {} messages", p.attempts.len(), p.sent.len());
    assert_eq!(audited(&opened(&p, 7), &circuits, &p.sent), Finding::Honest);
    // What the audit's replay says each computation told White is what it told him in
    // play: the `Done`s of a game are held against it (not against the rules in the
    // clear, which a fingerprint collision could make differ).
    let hashes: Vec<_> = (0..p.sent.len())
        .map(|i| step_hash(&GAME, i as u64, &p.sent[i].bytes))
        .collect();
    let (finding, told) = audit_told(&opened(&p, 7), &circuits, hashes.len(), posted_is(&hashes))
        .expect("the audit runs");
    assert_eq!(finding, Finding::Honest);
    assert_eq!(told.get(..p.told.len()), Some(p.told.as_slice()));
}

/// The audit garbles the circuit files and nothing else: an honest game audited with the
/// chain of the files is honest; audited with one AND gate of `window8` turned XOR (a
/// chain no longer the files'), it is not, the first message made differently being the
/// first G1 of an attempt whose mover has a window.
#[test]
fn the_audit_garbles_the_circuits_it_is_given() {
    use sealed_mpc::chain::{Chain, Part};
    use sealed_mpc::gc::Gate;
    let circuits = Circuits::from_files().expect("the embedded circuit files");
    let p = play(&circuits, 6, 7, |_, _| {});
    assert!(p.fault.is_none(), "{:?}", p.fault);
    let o = opened(&p, 7);
    let files = Circuits::with_chain(Chain::from_files().expect("files")).expect("the start");
    assert_eq!(audited(&o, &files, &p.sent), Finding::Honest);
    let mut chain = Chain::from_files().expect("files");
    let mut w8 = chain.loaded(Part::Window8).expect("read").clone();
    let at = w8
        .gates
        .iter()
        .position(|g| matches!(g, Gate::And(..)))
        .expect("an AND gate");
    let Gate::And(a, b) = w8.gates[at] else {
        unreachable!("found above")
    };
    w8.gates[at] = Gate::Xor(a, b);
    chain.put(Part::Window8, w8).expect("the same layout");
    let changed = Circuits::with_chain(chain).expect("the start");
    match audited(&o, &changed, &p.sent) {
        Finding::Deviated {
            by: Party::Garbler,
            at,
        } => assert_eq!((at - 2) % 4, 1, "a G1"),
        f => panic!("{f:?}"),
    }
}

/// A change made to a message's bytes.
type Change = Box<dyn Fn(&mut Vec<u8>)>;

/// Each deviation, at a message of the third attempt's computation: what stops the game
/// at once (if anything), and what the audit proves.
#[test]
fn the_audit_names_whoever_deviated() {
    let circuits = Circuits::from_files().expect("the embedded circuit files");
    // Messages: 2 base OT, then 4 per computation (the start first). The third
    // attempt's computation starts at 2 + 4 * 3.
    let at = 2 + 4 * 3;
    let cases: Vec<(&str, usize, Change, Party)> = vec![
        // A row of the garbled circuit changed: another function garbled.
        (
            "another function",
            at + 1,
            Box::new(|b: &mut Vec<u8>| {
                let n = b.len();
                b[n - 40] ^= 0x10;
            }),
            Party::Garbler,
        ),
        // The label of one transfer corrupted, to watch whether the evaluation fails:
        // a selective failure.
        (
            "a corrupted transfer",
            at + 1,
            Box::new(|b: &mut Vec<u8>| b[3 * 32 + 16] ^= 1),
            Party::Garbler,
        ),
        // The evaluator's request made for other choices.
        (
            "another request",
            at,
            Box::new(|b: &mut Vec<u8>| b[0] ^= 1),
            Party::Evaluator,
        ),
        // A returned label that is not the one he computed.
        (
            "a wrong label",
            at + 2,
            Box::new(|b: &mut Vec<u8>| b[20] ^= 4),
            Party::Evaluator,
        ),
        // The garbler tells the evaluator another bit than he decoded.
        (
            "a lie about the bits",
            at + 3,
            Box::new(|b: &mut Vec<u8>| {
                let n = b.len();
                b[n - 1] ^= 1;
            }),
            Party::Garbler,
        ),
    ];
    for (what, index, change, culprit) in cases {
        let p = play(&circuits, 6, 11, |i, s| {
            if i == index {
                change(&mut s.bytes);
            }
        });
        let finding = audited(&opened(&p, 11), &circuits, &p.sent);
        println!("{what}: stopped by {:?}, audit {finding:?}", p.fault);
        match finding {
            Finding::Deviated { by, at } => {
                assert_eq!(by, culprit, "{what}");
                assert_eq!(at, index, "{what}");
            }
            other => panic!("{what}: {other:?}"),
        }
        if what == "a wrong label" {
            // Refused at once, by the garbler's decoding.
            assert!(matches!(
                p.fault,
                Some(Fault::NotALabel {
                    by: Party::Evaluator,
                    ..
                })
            ));
        }
    }
}

/// A side that stops sending, at every message of a game: the audit names who owed the
/// next one (Black opens the base OTs and each computation, so the even positions are
/// his).
#[test]
fn a_walk_away_is_owed_by_whoever_stopped() {
    let circuits = Circuits::from_files().expect("the embedded circuit files");
    let p = play(&circuits, 4, 13, |_, _| {});
    let o = opened(&p, 13);
    for cut in 0..p.sent.len() {
        let finding = audited(&o, &circuits, &p.sent[..cut]);
        let by = if cut % 2 == 0 {
            Party::Evaluator
        } else {
            Party::Garbler
        };
        assert_eq!(finding, Finding::Missing { by, at: cut }, "cut at {cut}");
    }
}

/// Hostile bytes in place of any message, of any length: no panic, the game stops or
/// goes on, and the audit proves the sender of those bytes at fault at that message.
#[test]
fn garbage_at_any_message_is_proven_against_its_sender() {
    let circuits = Circuits::from_files().expect("the embedded circuit files");
    let honest = play(&circuits, 2, 17, |_, _| {});
    let mut rng = Rng(0xdead_beef_1234_5678);
    for index in 0..honest.sent.len() {
        let len = honest.sent[index].bytes.len();
        let new_len = match rng.below(4) {
            0 => 0,
            1 => len,
            2 => rng.below(2 * len + 2),
            _ => len + 1,
        };
        let garbage: Vec<u8> = (0..new_len).map(|_| rng.next() as u8).collect();
        let p = play(&circuits, 2, 17, |i, s| {
            if i == index {
                s.bytes = garbage.clone();
            }
        });
        let by = honest.sent[index].by;
        if let Some(f) = p.fault {
            // A message that cannot be read is its sender's at once; a label that is
            // no label is the evaluator's for now (the audit decides).
            if let Fault::Malformed { by: b, .. } = f {
                assert_eq!(b, by, "message {index}: {f:?}");
            }
        }
        let finding = audited(&opened(&p, 17), &circuits, &p.sent);
        assert_eq!(
            finding,
            Finding::Deviated { by, at: index },
            "message {index} ({new_len} bytes)"
        );
    }
}

/// A mover who does not open one of his attempts at the end: the messages of its
/// computation are more than the openings explain, and the audit names him.
#[test]
fn an_attempt_not_opened_is_owed_by_its_mover() {
    let circuits = Circuits::from_files().expect("the embedded circuit files");
    let p = play(&circuits, 3, 19, |_, _| {});
    let mut o = opened(&p, 19);
    let last = o.attempts.len() - 1;
    o.attempts.truncate(last);
    // The last computation starts at 2 (base OTs) + 4 (the start) + 4 per attempt
    // before it. The game stopped at its third move, which that attempt made: White's.
    let at = 2 + 4 + 4 * last;
    assert_eq!(p.moves, 3);
    let finding = audited(&o, &circuits, &p.sent);
    assert_eq!(
        finding,
        Finding::Unopened {
            by: Party::Garbler,
            at
        }
    );
}

/// The audit's replay runs ahead of its comparisons, on another thread; what it finds,
/// and what it says each computation told White, are what an audit that compared each
/// message before making the next finds: a message changed at any of the positions
/// tried (each kind of message, the first and the last), messages missing at the end,
/// an attempt not opened, and an honest game.
#[test]
fn the_audit_ahead_finds_what_an_audit_in_step_finds() {
    let circuits = Circuits::from_files().expect("the embedded circuit files");
    let p = play(&circuits, 4, 11, |_, _| {});
    assert!(p.fault.is_none(), "{:?}", p.fault);
    let o = opened(&p, 11);
    let hashes: Vec<[u8; 32]> = (0..p.sent.len())
        .map(|i| step_hash(&GAME, i as u64, &p.sent[i].bytes))
        .collect();
    let ahead = |o: &Opened, hashes: &[[u8; 32]]| {
        audit_told(o, &circuits, hashes.len(), posted_is(hashes)).expect("the audit runs")
    };
    let last = hashes.len() - 1;
    let mut cases: Vec<(String, Opened, Vec<[u8; 32]>)> =
        vec![("honest".into(), o.clone(), hashes.clone())];
    for at in [0, 1, 2, 3, 4, 5, 9, 12, last - 1, last] {
        let mut h = hashes.clone();
        h[at][0] ^= 1;
        cases.push((format!("message {at} changed"), o.clone(), h));
    }
    for cut in [1, 4, 7] {
        cases.push((
            format!("the last {cut} missing"),
            o.clone(),
            hashes[..hashes.len() - cut].to_vec(),
        ));
    }
    let mut fewer = o.clone();
    fewer.attempts.pop();
    cases.push(("an attempt not opened".into(), fewer, hashes.clone()));
    let in_step = |o: &Opened, hashes: &[[u8; 32]]| {
        audit_in_step(o, &circuits, hashes.len(), posted_is(hashes)).expect("the audit runs")
    };
    for (what, o, h) in &cases {
        assert_eq!(ahead(o, h), in_step(o, h), "{what}");
    }
    // The cases are not all one finding.
    let kinds: std::collections::BTreeSet<String> = cases
        .iter()
        .map(|(_, o, h)| format!("{:?}", in_step(o, h).0).chars().take(6).collect())
        .collect();
    assert_eq!(kinds.len(), 4, "{kinds:?}");
}
