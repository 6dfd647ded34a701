//! Secret Stallmate without a referee through the table a node holds (`table::open`,
//! spec/GAMES.md §5.15): two tables in the lock-step harness whose seats do their duties
//! (every message of the computations, made and signed as soon as it is owed) while
//! bots choose the attempts, and between rounds each table's outgoing message is given
//! to the other, as the nodes' stream does. The game ends verified; a table restored
//! mid-computation from its secrets, its envelopes and the messages it took finishes it
//! exactly as the original would; a message that is not the next one, or not the one
//! signed, or too large, is refused and changes nothing.

// The table tests' PGN reader (tests/tests/table/pgn_read.rs and pgn_replay.rs); this
// test uses one variant's part of it.
#[path = "table/pgn_read.rs"]
mod pgn_read;
#[allow(dead_code)]
#[path = "table/pgn_replay.rs"]
mod pgn_replay;

use sealed_conformance::pair::{Lockstep, Pace};
use sealed_conformance::peer::Peer as _;
use sealed_conformance::peer::Read as _;
use sealed_conformance::view_json::ViewJson as _;
use sealed_games::stallmate::duo::VARIANT;
use sealed_games::stallmate::duo::player::MAX_MESSAGE;
use sealed_games::table::{self, Computing, Document, Given, Table};
use sealed_games::variant::check_transcript;
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::{Terms, WitnessSpec};
use sealed_protocol::session::Command;

fn key(seat: usize) -> SecretKey {
    SecretKey::from_seed(&[seat as u8 + 1; 32])
}

fn terms(plies: u32, nonce: u8) -> Terms {
    let options = [
        ("ply-limit".to_owned(), plies.to_string()),
        ("time-per-move".to_owned(), "1h".to_owned()),
    ];
    let signed = table::propose(
        VARIANT,
        &options,
        &key(0),
        table::Invitees {
            opponent: key(1).public().to_bytes(),
            witness: Some(WitnessSpec {
                key: key(7).public().to_bytes(),
                addrs: vec![],
            }),
            ..Default::default()
        },
        1_000,
        [nonce; 32],
    )
    .expect("a valid proposal");
    Terms::from_signed(signed).expect("valid terms")
}

/// The two tables, and every message each has taken (what its node stores).
struct Duo {
    terms: Terms,
    net: Lockstep<Box<dyn Table>>,
    taken: [Vec<(u64, Vec<u8>)>; 2],
    rounds: u64,
    /// A message its sender's node never passes on (it signed the hash).
    withhold: Option<u64>,
}

impl Duo {
    fn new(plies: u32, nonce: u8) -> Duo {
        let terms = terms(plies, nonce);
        let tables = (0..2)
            .map(|i| {
                let mut e = [nonce; 32];
                e[0] = 0xE0 + i as u8;
                table::open(terms.clone(), key(i), "", e, 0).expect("open")
            })
            .collect();
        let mut net = Lockstep::from_peers(tables);
        net.deliver_all();
        Duo {
            terms,
            net,
            taken: [vec![], vec![]],
            rounds: 0,
            withhold: None,
        }
    }

    /// Each table's outgoing message, to the other.
    fn pass(&mut self) -> bool {
        let mut moved = false;
        for from in 0..2 {
            let Some((index, bytes)) = duo(&mut self.net.sessions[from]).message_out(false) else {
                continue;
            };
            if self.withhold == Some(index) {
                continue;
            }
            let to = 1 - from;
            let new = duo(&mut self.net.sessions[to])
                .handle(Given::Message {
                    index,
                    bytes: bytes.clone(),
                })
                .expect("an honest message is taken");
            if new {
                self.taken[to].push((index, bytes));
                moved = true;
            }
        }
        moved
    }

    /// One round: messages passed, then each seat's duty or its bot's attempt.
    fn step(&mut self) -> bool {
        self.rounds += 1;
        let passed = self.pass();
        let round = self.rounds;
        let moved = self.net.round(
            2,
            |i, t, now| {
                // Every view works in every phase, and only a seat to choose is asked.
                let _ = (t.text(), t.view(), t.view().choices, t.waiting_for());
                t.duty(now).or_else(|| {
                    let cmd = t.bot_action(round.wrapping_mul(0x9E37_79B9) ^ i as u64)?;
                    assert!(t.turn().my_turn || cmd == Command::Accept, "{}", t.text());
                    Some(cmd)
                })
            },
            Pace::Once,
        );
        passed || moved
    }

    fn run_until(&mut self, mut stop: impl FnMut(&mut Duo) -> bool) {
        for _ in 0..5_000 {
            if stop(self) || !self.step() {
                return;
            }
        }
        panic!("the game never settled");
    }

    fn done(&self) -> bool {
        self.net
            .sessions
            .iter()
            .all(|t| t.session().phase().is_done())
    }

    /// Replaces seat `i`'s table by one restored from its secrets, its envelopes and
    /// the messages it took, as its node does after a restart.
    fn restart(&mut self, i: usize) {
        let old = &self.net.sessions[i];
        let mut envelopes = old.session().envelopes().all();
        envelopes.reverse();
        let mut t = table::restore(
            self.terms.clone(),
            key(i),
            "",
            old.session().phase().secrets().clone(),
            &envelopes,
            self.net.now,
        )
        .expect("restore");
        for (index, bytes) in &self.taken[i] {
            duo(&mut t)
                .handle(Given::Message {
                    index: *index,
                    bytes: bytes.clone(),
                })
                .expect("a stored message is taken again");
        }
        assert_eq!(t.transcript(), old.transcript());
        assert_eq!(
            t.show_json(),
            old.show_json(),
            "the same view, answers and all"
        );
        self.net.sessions[i] = t;
        self.net.deliver_all();
    }

    /// Acts accepted, as seat 0 sees them: messages signed, commitments, `Done`s.
    fn acts(&self) -> usize {
        self.net.sessions[0].turn().ply
    }
}

#[test]
fn bots_play_a_game_without_a_referee_to_a_verified_end() {
    let mut d = Duo::new(4, 3);
    // Each player's board can be stepped through while the game goes on: his own army
    // after each period, the last the board shown (tests/tests/table/steps.rs checks
    // these positions square by square on the refereed game, which shares the code).
    let mut stepped = [0usize; 2];
    d.run_until(|d| {
        for (i, t) in d.net.sessions.iter().enumerate() {
            let v = t.view();
            if let (Some(steps), Some(_)) = (&v.steps, &v.grid) {
                stepped[i] = stepped[i].max(steps.positions.len());
            }
        }
        d.done()
    });
    assert!(d.done(), "{}", d.net.sessions[0].text());
    assert!(
        stepped.iter().all(|n| *n > 1),
        "steps while playing: {stepped:?}"
    );
    // Once over, both see the whole game (each from his own side of the board): the
    // start and one position a move of its score (a line with a "yes").
    let views: Vec<_> = d.net.sessions.iter().map(|t| t.view()).collect();
    let score = views[0].score.clone().expect("a score once over");
    let moves = score.lines().filter(|l| l.contains(" yes")).count();
    for v in &views {
        let steps = v.steps.as_ref().expect("steps once over");
        assert_eq!(steps.positions.len(), moves + 1, "{score}");
    }
    for t in &d.net.sessions {
        let checked = check_transcript(&t.transcript()).expect("readable");
        assert!(
            checked.verdict.faults.is_empty(),
            "{:?}",
            checked.verdict.faults
        );
        assert!(checked.verdict.outcome.is_some());
        let result = table::result_line(t.session());
        assert!(
            result.as_ref().is_some_and(|r| r.contains("[verified]")),
            "{result:?}"
        );
    }
    // Each player saw his own army move: the moves made are on his board.
    let text = d.net.sessions[1].text();
    assert!(text.contains("your army"), "{text}");
    assert!(!d.taken[0].is_empty() && !d.taken[1].is_empty());
}

#[test]
fn a_table_restored_mid_computation_finishes_the_game_as_the_original_would() {
    let mut straight = Duo::new(4, 4);
    straight.run_until(|d| d.done());
    let expected = straight.net.sessions[0].transcript();

    let mut d = Duo::new(4, 4);
    d.run_until(|d| d.acts() >= 9);
    d.restart(1);
    d.run_until(|d| d.acts() >= 17);
    d.restart(0);
    d.restart(1);
    d.run_until(|d| d.done());
    assert_eq!(d.net.sessions[0].transcript(), expected);
}

#[test]
fn a_message_not_next_not_signed_or_too_large_is_refused_and_changes_nothing() {
    let mut d = Duo::new(4, 5);
    // Until Black's message 0 is signed (its first act), before White has it.
    d.run_until(|d| d.acts() >= 1);
    let (index, bytes) = duo(&mut d.net.sessions[1])
        .message_out(true)
        .expect("message 0");
    assert_eq!(index, 0);
    let white = &mut d.net.sessions[0];
    let before = white.show_json();
    let mut changed = bytes.clone();
    changed[0] ^= 1;
    let e = duo(white)
        .handle(Given::Message {
            index: 0,
            bytes: changed,
        })
        .expect_err("not the message signed")
        .to_string();
    assert!(e.contains("not the one whose hash"), "{e}");
    let e = duo(white)
        .handle(Given::Message {
            index: 2,
            bytes: bytes.clone(),
        })
        .expect_err("not the next")
        .to_string();
    assert!(e.contains("not the next"), "{e}");
    let e = duo(white)
        .handle(Given::Message {
            index: 1,
            bytes: bytes.clone(),
        })
        .expect_err("White's own")
        .to_string();
    assert!(e.contains("own to send"), "{e}");
    let e = duo(white)
        .handle(Given::Message {
            index: 0,
            bytes: vec![0; MAX_MESSAGE + 1],
        })
        .expect_err("too large")
        .to_string();
    assert!(e.contains("more than"), "{e}");
    assert_eq!(white.show_json(), before, "nothing changed");
    assert_eq!(
        white.duty(d.net.now),
        None,
        "nothing to make without message 0"
    );
    // The right one is taken, once.
    assert!(
        duo(white)
            .handle(Given::Message {
                index: 0,
                bytes: bytes.clone()
            })
            .expect("taken")
    );
    assert!(
        !duo(white)
            .handle(Given::Message { index: 0, bytes })
            .expect("known")
    );
    d.run_until(|d| d.done());
    assert!(d.done());
}

/// A message that outruns the envelopes that make its receiver's game start (Black signs
/// message 0 as his first act; White's node may get the message's stream before it has
/// the envelopes that start the game at its seat): kept, and taken once they come, as
/// spec/PROTOCOL.md §16.7 holds a message that comes before its act. It used to be
/// refused ("the game has not started at this seat"), and its sender, told it arrived,
/// sent it again only after 30 s (issue 57's 34-37 s first answer).
#[test]
fn a_message_that_comes_before_the_receivers_game_has_started_is_kept_until_it_has() {
    // The first round after which White, hearing nothing more, has not started while
    // Black's message 0 goes out.
    let found = (0..30).find_map(|rounds| {
        let mut d = Duo::new(4, 6);
        for _ in 0..rounds {
            d.step();
        }
        d.net.deaf.push(sealed_protocol::ids::Seat(0));
        for _ in 0..50 {
            if let Some(out) = duo(&mut d.net.sessions[1]).message_out(false) {
                let started = !d.net.sessions[0]
                    .text()
                    .contains("the game has not started");
                return (!started).then_some((d, out));
            }
            d.step();
        }
        None
    });
    let (mut d, (index, bytes)) = found.expect("a round where the message outruns the start");
    assert_eq!(index, 0);
    let white = &mut d.net.sessions[0];
    // Only the other side's first message is kept before the game starts here: what a
    // node holds, and stores, for it is one message whatever the other player sends.
    for later in [2, 4, 1_000] {
        let e = duo(white)
            .handle(Given::Message {
                index: later,
                bytes: bytes.clone(),
            })
            .expect_err("not the first")
            .to_string();
        assert!(e.contains("not the first"), "{e}");
    }
    assert!(
        duo(white)
            .handle(Given::Message {
                index: 0,
                bytes: bytes.clone()
            })
            .expect("kept, not refused"),
        "new: stored by the node"
    );
    assert!(
        !duo(white)
            .handle(Given::Message {
                index: 0,
                bytes: bytes.clone()
            })
            .expect("known")
    );
    d.taken[0].push((0, bytes));
    // White hears again: his game starts, takes the message kept, and plays to the end.
    d.net.deaf.clear();
    d.net.pending.append(&mut d.net.held);
    d.net.deliver_all();
    d.withhold = Some(0);
    d.run_until(|d| d.done());
    assert!(d.done(), "{}", d.net.sessions[0].text());
}

/// A message withheld at the table (spec/GAMES.md §5.15, "A message withheld"): the
/// receiver's duty says `Lacking` a minute after he owes the next act and not before;
/// the sender's table gives its deposit, keeps only the witness's stamp of it and posts
/// it; the receiver's table names the deposit it waits for, takes the message opened
/// from it, and the game ends verified with no fault. A receiver whose node calls an
/// honest deposit false halts, and that halt is his own fault.
#[test]
fn a_table_lacking_a_message_says_so_after_a_minute_and_takes_it_from_the_deposit() {
    use sealed_games::stallmate::duo::acts::{Act, encode};
    use sealed_games::stallmate::duo::player::{LACK_AFTER_MS, MAX_DEPOSIT};
    use sealed_protocol::deposit::{hash_of, open_within};
    use sealed_protocol::witness::{Stamp, Statement};
    for honest in [true, false] {
        let mut d = Duo::new(4, 6);
        // White's G1 of the start: megabytes of garbled tables.
        d.withhold = Some(3);
        d.run_until(|_| false);
        let game = d.terms.game();
        let black = &d.net.sessions[1];
        let due = black.turn().due_at.expect("Black waits for message 3");
        assert_eq!(black.duty(due - 1), None, "not before a minute");
        let lacking = black.duty(due).expect("Lacking, a minute on");
        assert_eq!(lacking, Command::act(encode(&Act::Lacking)));
        assert!(due >= d.net.now + LACK_AFTER_MS - 1_000);
        d.net.now = due;
        d.net.sessions[1]
            .handle_command(lacking, due)
            .expect("accepted");
        d.net.deliver_all();
        // White owes the deposit: only the witness's stamp of it is kept.
        let white = &mut d.net.sessions[0];
        let deposit = duo(white).deposits().out.expect("the deposit owed");
        let stamp = |by: usize, deposit| {
            let s = Stamp {
                game,
                deposit,
                at: due,
            };
            Statement::Stamp(s).sign(&key(by)).to_bytes()
        };
        assert!(
            !duo(white)
                .handle(Given::Statement(&stamp(6, hash_of(game, &deposit))))
                .expect("a statement is never refused"),
            "not the witness's"
        );
        assert!(
            !duo(white)
                .handle(Given::Statement(&stamp(7, hash_of(game, b"else"))))
                .expect("a statement is never refused"),
            "another deposit"
        );
        assert!(
            duo(white)
                .handle(Given::Statement(&stamp(7, hash_of(game, &deposit))))
                .expect("a statement is never refused")
        );
        d.run_until(|d| duo(&mut d.net.sessions[1]).deposits().wanted.is_some());
        let (index, hash) = duo(&mut d.net.sessions[1])
            .deposits()
            .wanted
            .expect("the deposit named");
        assert_eq!((index, hash), (3, hash_of(game, &deposit)));
        let black = &mut d.net.sessions[1];
        if honest {
            let bytes = open_within(game, &deposit, &key(1), MAX_DEPOSIT).expect("opens");
            assert!(
                duo(black)
                    .handle(Given::Message { index, bytes })
                    .expect("the message")
            );
        } else {
            assert!(
                duo(black)
                    .handle(Given::DepositFalse("called false".into()))
                    .expect("taken")
            );
        }
        d.run_until(|d| d.done());
        assert!(d.done(), "{}", d.net.sessions[1].text());
        let checked = check_transcript(&d.net.sessions[0].transcript()).expect("readable");
        let faults = &checked.verdict.faults;
        if honest {
            assert!(faults.is_empty(), "{faults:?}");
        } else {
            assert!(
                faults.iter().all(|f| f.seat.0 == 1) && !faults.is_empty(),
                "the halter's fault: {faults:?}"
            );
        }
    }
}

/// Once both have opened their setups the game is in the clear for both seats and for
/// any reader: the same score file (which the variant's replay reads back), the same PGN
/// and a board with both armies — also at a table restored without a single message of
/// the computations (its node deletes them at the end).
#[test]
fn a_finished_game_is_in_the_clear_at_both_tables_and_after_a_restart_without_messages() {
    let mut d = Duo::new(4, 3);
    d.run_until(|d| d.done());
    assert!(d.done());
    let score = d.net.sessions[0]
        .document(Document::Score)
        .expect("a score file");
    assert_eq!(
        d.net.sessions[1].document(Document::Score).as_deref(),
        Some(score.as_str())
    );
    let pgn = d.net.sessions[0].document(Document::Pgn).expect("a PGN");
    assert_eq!(
        d.net.sessions[1].document(Document::Pgn).as_deref(),
        Some(pgn.as_str())
    );
    assert!(pgn.contains("[Event \"sealed game\"]"), "{pgn}");
    // No referee, so no period (issue 55: it said the default 24h), and the day it began.
    assert!(!pgn.contains("[Period "), "{pgn}");
    assert!(!pgn.contains("????.??.??"), "{pgn}");
    let replayed = sealed_games::variant::Variant::parse(VARIANT)
        .expect("listed")
        .replay(&score)
        .expect("the score file reads back");
    // The moves made are in it: as many as the game's plies.
    let checked = check_transcript(&d.net.sessions[0].transcript()).expect("readable");
    assert!(checked.verdict.outcome.is_some());
    // Read back by a strict PGN reader: every move of the game's record, each comment
    // after its move, the verdict's result (issue 55).
    let read = pgn_read::read(&pgn).unwrap_or_else(|e| panic!("{e}\n{pgn}"));
    assert_eq!(
        read.result,
        pgn_replay::token(checked.verdict.outcome.as_ref()),
        "{pgn}"
    );
    let record = sealed_games::stallmate::record::read(&score).expect("the record");
    pgn_replay::check_stallmate(&read, &record).unwrap_or_else(|e| panic!("{e}\n{pgn}"));
    let before = d.net.sessions[1].text();
    let made: usize = before
        .lines()
        .find_map(|l| l.trim().strip_prefix("moves made: "))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("the board says the moves made: {before}"));
    assert!(made > 0, "{before}");
    assert_eq!(replayed.plies, made, "{score}");
    // A table restored from its secrets and envelopes alone, no message given back.
    let old = &d.net.sessions[1];
    let mut envelopes = old.session().envelopes().all();
    envelopes.reverse();
    let t = table::restore(
        d.terms.clone(),
        key(1),
        "",
        old.session().phase().secrets().clone(),
        &envelopes,
        d.net.now,
    )
    .expect("restore");
    assert_eq!(t.text(), before, "the same board without the messages");
    assert_eq!(t.document(Document::Score).as_deref(), Some(score.as_str()));
}

/// The computations of a duo table, which every duo table has.
fn duo(t: &mut Box<dyn Table>) -> &mut dyn Computing {
    t.computing().expect("a duo table computes")
}
