//! Secret Stallmate between three in-memory sessions: honest games end with a verdict
//! every seat and the offline verifier agree on, and each way a referee or a player
//! can lie is caught with the right verdict.

use sealed_conformance::pair::Pair;
use sealed_conformance::stallmate_kit::*;
use sealed_games::chess::Color;
use sealed_games::stallmate::acts::PeriodEnd;
use sealed_games::stallmate::answer::{Answer, Report};
use sealed_games::stallmate::peer::{Stallmate, period_log, setup_log};
use sealed_games::stallmate::record;
use sealed_games::stallmate::table::hidden_game;
use sealed_games::variant::check_transcript;
use sealed_protocol::body::{Item, Open, Purpose};
use sealed_protocol::fault::FaultKind;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{LogId, Seat};
use sealed_protocol::rules::Rules;
use sealed_protocol::verdict::{Status, Verdict};

#[test]
fn honest_games_verify_everywhere() {
    for seed in 1..=4u64 {
        let p = play(&quick(30), seed);
        let verdicts: Vec<_> = p.sessions.iter().map(|s| s.verdict()).collect();
        for v in &verdicts {
            assert_eq!(v.status, Status::Verified, "seed {seed}: {v:#?}");
            assert_eq!(v.outcome, verdicts[0].outcome);
        }
        for seat in 0..3u8 {
            let checked = check_transcript(&p.transcript(sealed_protocol::ids::Seat(seat)))
                .expect("readable");
            assert_eq!(checked.verdict.outcome, verdicts[0].outcome);
            assert_eq!(checked.verdict.status, Status::Verified);
        }
    }
}

/// Every seat and the offline verifier find the referee, and only the referee, at fault
/// with a detail saying `what`; the result is void, so neither player loses by it.
fn referee_caught(p: &Pair<Stallmate>, what: &str) {
    let mut verdicts: Vec<Verdict> = p.sessions.iter().map(|s| s.verdict()).collect();
    for seat in 0..3u8 {
        verdicts.push(
            check_transcript(&p.transcript(Seat(seat)))
                .expect("readable")
                .verdict,
        );
    }
    for v in &verdicts {
        assert_eq!(v.status, Status::ProvenFault, "{v:#?}");
        assert!(
            v.faults.iter().all(|f| f.seat == REFEREE),
            "only the referee is at fault: {:#?}",
            v.faults
        );
        let f = v.faults.first().expect("a fault");
        assert_eq!(f.kind, FaultKind::GameRule);
        assert!(f.detail.contains(what), "{} should say {what:?}", f.detail);
        assert_eq!(v.outcome, None, "a referee's lie voids the result");
    }
}

fn honest_players(
    referee: sealed_conformance::pair::DecideAt<Stallmate>,
) -> Vec<sealed_conformance::pair::DecideAt<Stallmate>> {
    let mut d = deciders(9);
    d[2] = referee;
    d
}

#[test]
fn illegal_called_legal_is_the_referees_fault() {
    let liar = lying_referee(
        |a| matches!(a, Answer::Illegal).then(|| Answer::Yes(Report::default())),
        |_| None,
    );
    let p = play_with(&quick(30), 9, honest_players(liar));
    referee_caught(&p, "the true answer is \"illegal\"");
}

#[test]
fn a_missed_check_is_the_referees_fault() {
    let liar = lying_referee(
        |a| match a {
            Answer::Yes(r) if !r.checks.is_empty() => Some(Answer::Yes(Report {
                checks: vec![],
                ..r.clone()
            })),
            _ => None,
        },
        |_| None,
    );
    let p = play_with(&quick(60), 9, honest_players(liar));
    referee_caught(&p, "check");
}

#[test]
fn a_wrong_capture_square_is_the_referees_fault() {
    let liar = lying_referee(
        |a| match a {
            Answer::Yes(r) if r.capture.is_some() => {
                let mut r = r.clone();
                if let Some(c) = &mut r.capture {
                    c.at =
                        c.at.offset(0, if c.at.rank().index() < 7 { 1 } else { -1 })
                            .expect("on the board");
                }
                Some(Answer::Yes(r))
            }
            _ => None,
        },
        |_| None,
    );
    let p = play_with(&quick(60), 9, honest_players(liar));
    referee_caught(&p, "capture at");
}

#[test]
fn an_announcement_left_out_is_the_referees_fault() {
    let liar = lying_referee(
        |_| None,
        |end: &PeriodEnd| {
            (!end.heard.is_empty()).then(|| PeriodEnd {
                heard: end.heard[1..].to_vec(),
                ..end.clone()
            })
        },
    );
    let p = play_with(&quick(30), 9, honest_players(liar));
    referee_caught(&p, "the true announcements are");
}

#[test]
fn a_digest_that_is_not_the_sealed_log_is_the_referees_fault() {
    let liar = lying_referee(
        |_| None,
        |end: &PeriodEnd| {
            (end.period == 3).then(|| PeriodEnd {
                digest: Hash([7; 32]),
                ..end.clone()
            })
        },
    );
    let p = play_with(&quick(30), 9, honest_players(liar));
    referee_caught(&p, "digest");
}

/// A player tries to choose his army: he shows the referee a setup seed other than the
/// one he committed to before the opponent's coin seed was known. His own signature
/// proves it at once, the referee starts nothing, and the player forfeits.
#[test]
fn a_shown_setup_that_does_not_open_its_commitment_is_the_players_fault() {
    let mut p = trio(&quick(30), 4);
    let mut d: Vec<_> = deciders(4);
    // Let everyone join but keep White from showing his true setup.
    d[0] = Box::new(|_s, _now| None);
    assert!(
        p.run_clocked(&mut d, 1, |p| p.sessions[0].engine().has_joined(Seat(0))
            && p.sessions[2].engine().coin().is_some())
    );
    let white = &p.sessions[0];
    let secrets = white.secrets();
    let key = sealed_protocol::commit::CommitKey {
        seat: Seat(0),
        purpose: Purpose::Setup(sealed_games::stallmate::peer::setup_name()),
        index: 0,
    };
    // Any seed but the committed one: the army it gives is one he picked, not one the
    // opponent's coin seed made for him.
    let committed = secrets.value(&key, &[]).expect("his seed");
    let chosen: Vec<u8> = committed.iter().map(|b| b ^ 0x5a).collect();
    let forged = forge_private(
        &p,
        Seat(0),
        setup_log(Color::White),
        vec![Item::Open(Open {
            purpose: key.purpose.clone(),
            index: 0,
            nonce: secrets.nonce(&key),
            value: chosen,
        })],
    );
    p.deliver_to(REFEREE, &forged);
    let v = p.sessions[2].verdict();
    assert_eq!(v.status, Status::ProvenFault);
    let f = &v.faults[0];
    assert_eq!(
        (f.seat, f.kind.clone()),
        (Seat(0), FaultKind::OpeningMismatch)
    );
    // The referee never starts a game one of whose armies is unproven.
    assert!(sealed_games::stallmate::table::duty(&p.sessions[2], u64::MAX).is_none());
    let outcome = v.outcome.expect("a result");
    assert_eq!(
        outcome.results,
        vec![
            sealed_protocol::outcome::SeatResult::Score(-10),
            sealed_protocol::outcome::SeatResult::Score(0)
        ]
    );
}

/// While the game is on, a player's node never holds a byte of the opponent's private
/// logs (his setup shown, his periods' attempts and answers); once it is over, every
/// log is published and in every transcript.
#[test]
fn the_opponent_never_receives_sub_log_bytes_during_play() {
    let mut p = trio(&quick(20), 6);
    let mut d = deciders(6);
    let mut checked = 0;
    assert!(p.run_clocked(&mut d, 50, |p| {
        let over = p.sessions[2].engine().is_over();
        if !over {
            for me in [Color::White, Color::Black] {
                let s = &p.sessions[usize::from(me == Color::Black)];
                let foreign = s.engine().stored().0.into_iter().filter(|e| {
                    let log = e.unsigned().log;
                    !log.is_public()
                        && !s
                            .engine()
                            .rules()
                            .audience(log)
                            .unwrap_or_default()
                            .contains(&s.seat())
                });
                assert_eq!(
                    foreign.count(),
                    0,
                    "{me:?} holds another's private envelope"
                );
            }
            checked += 1;
        }
        all_done(p)
    }));
    assert!(checked > 100);
    let held = |s: usize, log: LogId| {
        p.sessions[s]
            .engine()
            .stored()
            .0
            .iter()
            .filter(|e| e.unsigned().log == log)
            .count()
    };
    for log in [setup_log(Color::White), period_log(0), period_log(2)] {
        assert!(
            held(1, log) > 0,
            "Black holds White's {log:?} after the game"
        );
        assert_eq!(held(1, log), held(2, log));
    }
}

/// The referee's public envelopes come at fixed times: a mover who talks much longer
/// to the referee changes nothing in when anything public is signed.
#[test]
fn public_timing_does_not_depend_on_the_exchange() {
    let clocks = |chatty: bool| {
        let mut d = deciders(12);
        if chatty {
            // White first asks "Any?" a few times each period (each answered; only the
            // first is heard), then plays as usual.
            let mut inner = d.remove(0);
            let mut asked = 0u32;
            d.insert(
                0,
                Box::new(
                    move |s: &sealed_protocol::session::Session<Stallmate>, now| {
                        let cmd = inner(s, now)?;
                        if matches!(cmd, sealed_protocol::session::Command::PrivateAct { .. })
                            && asked % 4 != 3
                        {
                            asked += 1;
                            let state = s.engine().state()?;
                            return Some(private(
                                period_log(state.period),
                                sealed_games::stallmate::acts::encode(
                                    &sealed_games::stallmate::acts::Private::Attempt(
                                        sealed_games::stallmate::attempt::Attempt::Any,
                                    ),
                                ),
                            ));
                        }
                        asked += 1;
                        Some(cmd)
                    },
                ),
            );
        }
        // Time passes one millisecond per round, so the referee closes each period at
        // the first instant it may.
        let options = [
            ("period", "200ms".to_owned()),
            ("ply-limit", "12".to_owned()),
        ];
        let mut p = trio(&options, 12);
        assert!(
            p.run_clocked(&mut d, 1, all_done),
            "the game did not finish"
        );
        let e = p.sessions[2].engine();
        let mut out: Vec<(u8, u64)> = e
            .stored()
            .0
            .iter()
            .filter(|env| env.unsigned().log.is_public() && env.unsigned().seat == REFEREE)
            .map(|env| (env.unsigned().seat.0, env.unsigned().clock))
            .collect();
        out.sort();
        let private_count = e
            .stored()
            .0
            .iter()
            .filter(|env| !env.unsigned().log.is_public())
            .count();
        (out, private_count)
    };
    let (plain, plain_private) = clocks(false);
    let (chatty, chatty_private) = clocks(true);
    assert!(chatty_private > plain_private, "the chatty mover said more");
    assert_eq!(
        plain, chatty,
        "the referee's public envelopes came at the same times"
    );
}

/// A mover who lets his period pass without a move forfeits, but only by the referee's
/// word about time: the verdict records it and confirms no result.
#[test]
fn a_forfeit_by_time_is_a_claim() {
    let mut d = deciders(3);
    let mut periods = 0u32;
    let mut black = d.remove(1);
    d.insert(
        1,
        Box::new(
            move |s: &sealed_protocol::session::Session<Stallmate>, now| {
                let cmd = black(s, now)?;
                if matches!(cmd, sealed_protocol::session::Command::PrivateAct { .. }) {
                    periods += 1;
                    if periods > 3 {
                        return None;
                    }
                }
                Some(cmd)
            },
        ),
    );
    let p = play_with(&quick(30), 3, d);
    for s in &p.sessions {
        let v = s.verdict();
        assert!(v.faults.is_empty(), "{:#?}", v.faults);
        assert_eq!(v.outcome, None);
        let board = v.board.expect("the referee's ending");
        assert!(board.reason.contains("forfeit by black"), "{board:?}");
        assert_ne!(v.status, Status::Verified);
    }
}

/// The score of a finished game, written from the revealed hidden game, replays.
#[test]
fn the_revealed_game_scores_and_replays() {
    let p = play(&quick(40), 21);
    let r = hidden_game(p.sessions[1].engine()).expect("everything revealed");
    let text = record::write(&r);
    let replayed = record::replay(&text).expect("replays");
    assert!(replayed.plies > 0);
    assert_eq!(replayed.plies, r.plies() as usize);
}

/// The act encodings spec/GAMES.md §5.10 gives as examples.
#[test]
fn act_encodings_are_the_specs() {
    use sealed_games::chess::Square;
    use sealed_games::stallmate::acts::{Private, Public, encode};
    use sealed_games::stallmate::attempt::Attempt;
    let e2 = Square::from_index(12).unwrap();
    let e4 = Square::from_index(28).unwrap();
    assert_eq!(
        encode(&Private::Attempt(Attempt::go(e2, e4))),
        [0x00, 0x00, 0x0c, 0x1c, 0x00]
    );
    assert_eq!(
        encode(&Private::Answer(Answer::Yes(Report::default()))),
        [0x01, 0x01, 0x00, 0x00, 0x00]
    );
    assert_eq!(encode(&Public::Begin), [0x00]);
}

/// A referee that keeps his seals back leaves periods the audit cannot check: an open
/// `unaudited` claim against him, never a proof, and no result confirmed.
#[test]
fn a_withheld_seal_is_a_claim_against_the_referee() {
    let mut p = trio(&quick(20), 8);
    p.withhold.push(REFEREE);
    let mut d = deciders(8);
    // The players finish; the referee's closes never arrive, so they stop short of done.
    assert!(
        p.run_clocked(&mut d, 50, |p| p.sessions[0].engine().is_over()
            && p.sessions[0].engine().unopened(Seat(0)).is_empty()
            && p.sessions[0].engine().unopened(Seat(1)).is_empty())
    );
    let v = p.sessions[0].verdict();
    assert!(v.faults.is_empty(), "{:#?}", v.faults);
    assert_ne!(v.status, Status::Verified);
    assert!(
        v.claims.iter().any(|c| c.against == REFEREE
            && c.about == sealed_protocol::verdict::ClaimAbout::Unaudited
            && c.open),
        "{:#?}",
        v.claims
    );
}

/// A referee who stops answering stalls the game: the verdict waits on him, and no
/// player is blamed or loses.
#[test]
fn a_silent_referee_is_never_a_players_loss() {
    let mut p = trio(&quick(30), 10);
    let mut d = deciders(10);
    // Let a few periods pass, then the referee goes silent.
    assert!(p.run_clocked(&mut d, 50, |p| {
        p.sessions[2]
            .engine()
            .state()
            .is_some_and(|s| s.period >= 3)
    }));
    p.silence(REFEREE);
    d[2] = Box::new(|_s, _now| None);
    let _ = p.run_clocked(&mut d, 50, |p| p.now > 60_000);
    for seat in 0..2 {
        let v = p.sessions[seat].verdict();
        assert!(v.faults.is_empty(), "{:#?}", v.faults);
        assert_eq!(v.outcome, None);
        assert_eq!(v.status, Status::Unconfirmed);
        assert!(
            v.claims.iter().any(|c| c.against == REFEREE && c.open),
            "the verdict waits on the referee: {:#?}",
            v.claims
        );
    }
}

/// Whatever a seat signs into a period log — random bytes, a well-formed act out of
/// turn, an act by the wrong seat — the honest seats never panic, judge it the same way,
/// and blame only its signer.
#[test]
fn any_private_act_is_judged_without_panic_and_blames_its_signer() {
    let mut rng = 0x5eed_u64;
    let mut next = move || {
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        rng >> 33
    };
    let mut blamed = 0;
    for case in 0..40u64 {
        let mut p = trio(&quick(20), 30 + case);
        let mut d = deciders(30 + case);
        assert!(p.run_clocked(&mut d, 50, |p| {
            p.sessions[2]
                .engine()
                .state()
                .is_some_and(|s| s.period >= 2)
        }));
        let state = p.sessions[2].engine().state().unwrap().clone();
        let n = state.period;
        // The signer: the mover, the referee, or the other player (not in the log).
        let signer = Seat((next() % 3) as u8);
        let act: Vec<u8> = match next() % 3 {
            0 => (0..(next() % 24)).map(|_| next() as u8).collect(),
            1 => sealed_games::stallmate::acts::encode(
                &sealed_games::stallmate::acts::Private::Answer(Answer::Illegal),
            ),
            _ => sealed_games::stallmate::acts::encode(
                &sealed_games::stallmate::acts::Private::Attempt(
                    sealed_games::stallmate::attempt::Attempt::Any,
                ),
            ),
        };
        let log = if next() % 4 == 0 {
            LogId(1 + (next() % 2) as u32)
        } else {
            period_log(n)
        };
        let forged = forge_private(&p, signer, log, vec![Item::Act(act)]);
        for s in 0..3 {
            p.deliver_to(Seat(s), &forged);
        }
        let verdicts: Vec<Verdict> = p
            .sessions
            .iter()
            .filter(|s| {
                let members = s.engine().rules().audience(log).unwrap_or_default();
                members.contains(&s.seat())
            })
            .map(|s| s.verdict())
            .collect();
        for v in &verdicts {
            assert!(
                v.faults.iter().all(|f| f.seat == signer),
                "case {case}: only the signer is blamed: {:#?}",
                v.faults
            );
            assert_eq!(
                v.faults, verdicts[0].faults,
                "case {case}: the same judgement"
            );
        }
        if verdicts.first().is_some_and(|v| !v.faults.is_empty()) {
            blamed += 1;
        }
    }
    assert!(
        blamed >= 10,
        "most forged acts break a rule: {blamed} of 40"
    );
}

/// A mover who attempts and then seals his own period log cannot make the referee look
/// silent: the referee answers nothing after the seal, and the audit does not blame him
/// for the attempt the mover cut off. The period then passed without a move.
#[test]
fn a_mover_sealing_his_own_log_frames_nobody() {
    let mut p = trio(&quick(20), 14);
    let mut d = deciders(14);
    // Let White's first period begin.
    assert!(p.run_clocked(&mut d, 50, |p| {
        p.sessions[0]
            .engine()
            .state()
            .is_some_and(|s| s.begun.is_some())
    }));
    // White attempts, and seals at once in the same instant.
    let log = period_log(0);
    let attempt =
        sealed_games::stallmate::acts::encode(&sealed_games::stallmate::acts::Private::Attempt(
            sealed_games::stallmate::attempt::Attempt::Any,
        ));
    let now = p.now;
    p.sessions[0]
        .handle_command(private(log, attempt), now)
        .expect("an attempt");
    p.sessions[0]
        .handle_command(sealed_protocol::session::Command::Seal { log }, now)
        .expect("a seal");
    // White says nothing more; the others go on to the end of the game.
    d[0] = Box::new(|_s, _now| None);
    assert!(
        p.run_clocked(&mut d, 50, all_done),
        "the game did not finish"
    );
    let v = p.sessions[2].verdict();
    assert!(
        v.faults.iter().all(|f| f.seat != REFEREE),
        "the referee is not blamed: {:#?}",
        v.faults
    );
    let board = v.board.expect("the period closed");
    assert!(board.reason.contains("forfeit by white"), "{board:?}");
}

/// A file from which one envelope of a private log was dropped still closes both ways
/// (the public closes acknowledge public chains only), so it is not caught by being
/// incomplete: the audit is, through the digest of the log posted in public, which the
/// envelopes left no longer reproduce. Nobody is blamed with a proof; nothing is
/// confirmed (spec/PROTOCOL.md §14.1).
#[test]
fn a_private_envelope_dropped_from_a_file_is_caught_by_the_audit() {
    use sealed_protocol::envelope::Signed;
    use sealed_protocol::transcript::TranscriptFile;
    let p = play(&quick(30), 3);
    let terms = p.sessions[0].engine().terms().clone();
    let mut file = TranscriptFile::from_bytes(&p.transcript(Seat(0))).expect("own file");
    let whole = check_transcript(&file.to_bytes())
        .expect("readable")
        .verdict;
    assert_eq!(whole.status, Status::Verified);
    // The last envelope of the first period's log that the mover signed.
    let private = file
        .envelopes
        .iter()
        .rposition(|b| {
            Signed::parse(&terms, b).is_ok_and(|e| {
                let u = e.unsigned();
                u.log == period_log(0) && u.seat == Seat(0)
            })
        })
        .expect("a private envelope of period 0");
    file.envelopes.remove(private);
    let v = check_transcript(&file.to_bytes())
        .expect("readable")
        .verdict;
    assert!(v.faults.is_empty(), "{:#?}", v.faults);
    assert_ne!(v.status, Status::Verified, "{v:#?}");
    assert!(
        v.claims
            .iter()
            .any(|c| c.about == sealed_protocol::verdict::ClaimAbout::Unaudited && c.open),
        "{:#?}",
        v.claims
    );
}
