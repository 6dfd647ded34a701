//! spec/vectors/witness.json: a witness's statements about the game of
//! duel-game.sealed (spec/PROTOCOL.md §17), each signed statement's bytes, the ones a
//! reader must refuse and why, sets of statements with the contradiction each proves
//! (or none), and lateness proofs against an accuser's knowledge (§17, lateness) with
//! what each finds. The generator writes it; tests/tests/vectors.rs recomputes every value.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use sealed_protocol::envelope::Signed;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, GameId, Seat};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::lateness::late;
use sealed_protocol::proposal::Terms;
use sealed_protocol::transcript::TranscriptFile;
use sealed_protocol::witness::{Chains, Head, Held, Ledger, Stamp, Statement, contradiction};

/// The witness's secret seed in the vectors.
pub const WITNESS_SEED: [u8; 32] = [0x57; 32];

/// The envelopes of a transcript by place, with the public causal past of each (its
/// vector clock over the public chains): what statements are checked against.
pub struct FileChains {
    /// The game.
    pub game: GameId,
    by_place: BTreeMap<(ChainId, u64), Hash>,
    pasts: BTreeMap<(ChainId, u64), Vec<(ChainId, u64)>>,
    /// The exact bytes of each envelope, by place.
    pub bytes: BTreeMap<(ChainId, u64), Vec<u8>>,
}

impl FileChains {
    /// Reads a transcript's validly signed envelopes.
    pub fn of(bytes: &[u8]) -> FileChains {
        let file = TranscriptFile::from_bytes(bytes).expect("a transcript");
        let terms = Terms::parse(&file.proposal).expect("its terms");
        let signed: Vec<Signed> = file
            .envelopes
            .iter()
            .filter_map(|b| Signed::parse(&terms, b).ok())
            .filter(|s| s.at().chain.log.is_public())
            .collect();
        let by_place = signed
            .iter()
            .map(|s| ((s.at().chain, s.at().seq), s.hash))
            .collect();
        let bytes = signed
            .iter()
            .map(|s| ((s.at().chain, s.at().seq), s.bytes.clone()))
            .collect();
        let acks: BTreeMap<(ChainId, u64), Vec<(ChainId, u64)>> = signed
            .iter()
            .map(|s| {
                let a = s
                    .unsigned()
                    .acks
                    .iter()
                    .filter(|a| a.chain.log.is_public())
                    .map(|a| (a.chain, a.seq))
                    .collect();
                ((s.at().chain, s.at().seq), a)
            })
            .collect();
        let chains: Vec<ChainId> = terms.seats().map(ChainId::public).collect();
        // Each envelope's clock: the join of its predecessor's and of everything it
        // acknowledges, itself counted; computed until nothing changes.
        let mut pasts: BTreeMap<(ChainId, u64), Vec<(ChainId, u64)>> = BTreeMap::new();
        loop {
            let mut progress = false;
            for place in acks.keys() {
                if pasts.contains_key(place) {
                    continue;
                }
                let mut deps: Vec<(ChainId, u64)> = acks[place].clone();
                if place.1 > 0 {
                    deps.push((place.0, place.1 - 1));
                }
                if deps.iter().all(|d| pasts.contains_key(d)) {
                    let mut clock: Vec<(ChainId, u64)> = chains.iter().map(|c| (*c, 0)).collect();
                    for d in &deps {
                        for (c, n) in &pasts[d] {
                            let e = clock.iter_mut().find(|x| x.0 == *c).expect("a chain");
                            e.1 = e.1.max(*n);
                        }
                    }
                    let own = clock.iter_mut().find(|x| x.0 == place.0).expect("a chain");
                    own.1 = own.1.max(place.1 + 1);
                    pasts.insert(*place, clock);
                    progress = true;
                }
            }
            if !progress {
                break;
            }
        }
        FileChains {
            game: terms.game(),
            by_place,
            pasts,
            bytes,
        }
    }

    /// The hash of the envelope at `seq` of `chain` (it must exist).
    fn at(&self, chain: ChainId, seq: u64) -> Hash {
        self.hash_at(chain, seq).expect("the file holds it")
    }

    /// How many envelopes of `chain` the file holds.
    fn count(&self, chain: ChainId) -> u64 {
        self.by_place.keys().filter(|(c, _)| *c == chain).count() as u64
    }

    /// The envelopes in a causal order: by the size of their public causal past, then
    /// place. The first `k` of them hold each one's past, so they are what a witness
    /// holds after the `k`-th arrived.
    fn order(&self) -> Vec<(ChainId, u64)> {
        let mut all: Vec<(u64, ChainId, u64)> = self
            .pasts
            .iter()
            .map(|(p, clock)| (clock.iter().map(|(_, n)| n).sum(), p.0, p.1))
            .collect();
        all.sort();
        all.into_iter().map(|(_, c, q)| (c, q)).collect()
    }

    /// The time the vectors give an envelope: a second for each place in the causal
    /// order, so nothing is dated before what it had seen.
    fn time(&self, chain: ChainId, seq: u64) -> u64 {
        let rank = self
            .order()
            .iter()
            .position(|p| *p == (chain, seq))
            .expect("held");
        1_000 * (rank as u64 + 1)
    }

    /// How many envelopes of seats 0 and 1 the first `k` in the causal order hold.
    fn prefix(&self, k: usize) -> [u64; 2] {
        let mut out = [0, 0];
        for (c, _) in self.order().into_iter().take(k) {
            out[c.seat.index()] += 1;
        }
        out
    }
}

impl Chains for FileChains {
    fn hash_at(&self, chain: ChainId, seq: u64) -> Option<Hash> {
        self.by_place.get(&(chain, seq)).copied()
    }
    fn past(&self, chain: ChainId, seq: u64) -> Option<Vec<(ChainId, u64)>> {
        self.pasts.get(&(chain, seq)).cloned()
    }
}

fn hex(b: &[u8]) -> String {
    hex::encode(b)
}

/// The vector document for the transcript `bytes` (duel-game.sealed).
pub fn witness(bytes: &[u8]) -> Value {
    let f = FileChains::of(bytes);
    let key = SecretKey::from_seed(&WITNESS_SEED);
    let (c0, c1) = (ChainId::public(Seat(0)), ChainId::public(Seat(1)));
    // A ledger at `at` holding `counts`, dating the places `dated` lists as (chain,
    // from, to) runs at the vectors' times, or at the time given.
    let ledger = |at: u64, counts: [u64; 2], dated: &[(ChainId, u64, u64)], time: Option<u64>| {
        Statement::Ledger(Ledger {
            game: f.game,
            at,
            chains: [c0, c1]
                .into_iter()
                .zip(counts)
                .map(|(chain, count)| {
                    let run = dated.iter().find(|d| d.0 == chain);
                    Held {
                        chain,
                        count,
                        head: if count == 0 {
                            Hash::ZERO
                        } else {
                            f.at(chain, count - 1)
                        },
                        first: run.map_or(count, |r| r.1),
                        times: run.map_or(vec![], |r| {
                            (r.1..r.2)
                                .map(|q| time.unwrap_or_else(|| f.time(chain, q)))
                                .collect()
                        }),
                    }
                })
                .collect(),
        })
    };
    let all = [f.count(c0), f.count(c1)];
    let (p1, p2) = (f.prefix(1), f.prefix(2));
    let runs = |counts: [u64; 2]| [(c0, 0, counts[0]), (c1, 0, counts[1])];
    let t1 = f.time(f.order()[0].0, f.order()[0].1);
    let t2 = f.time(f.order()[1].0, f.order()[1].1);
    // The first envelope whose past holds an envelope of the other chain, and the last
    // envelope of that other chain in its past.
    let (answer, answered) = f
        .order()
        .into_iter()
        .find_map(|(c, q)| {
            let other = if c == c0 { c1 } else { c0 };
            let n = f.pasts[&(c, q)].iter().find(|x| x.0 == other)?.1;
            (n > 0).then(|| ((c, q), (other, n - 1)))
        })
        .expect("an envelope that answers another");
    let alone = {
        let mut counts = [0, 0];
        counts[answer.0.seat.index()] = answer.1 + 1;
        counts
    };
    let mut early = ledger(90_000, all, &runs(all), None);
    if let Statement::Ledger(l) = &mut early {
        let ta = f.time(answered.0, answered.1);
        l.chains[answer.0.seat.index()].times[answer.1 as usize] = ta - 1;
    }
    let stamp = |d: u8, at: u64| {
        Statement::Stamp(Stamp {
            game: f.game,
            deposit: Hash([d; 32]),
            at,
        })
    };
    let named: Vec<(&str, Statement)> = vec![
        ("l-1", ledger(t1, p1, &runs(p1), None)),
        ("l-2", ledger(t2 + 500, p2, &runs(p2), None)),
        ("l-all", ledger(90_000, all, &runs(all), None)),
        ("l-again", ledger(t1 + 1, p1, &runs(p1), Some(t1 + 1))),
        ("l-none-yet", ledger(t1 + 500, [0, 0], &[], None)),
        ("l-before", ledger(t1 - 500, p1, &[], None)),
        ("l-less", ledger(95_000, p2, &[], None)),
        ("l-same-moment", ledger(90_000, p2, &[], None)),
        ("l-answer-alone", ledger(90_000, alone, &[], None)),
        ("l-dated-early", early),
        ("l-silent", ledger(50_000, p2, &[], None)),
        ("s-a", stamp(0xd1, 3_000)),
        ("s-a-again", stamp(0xd1, 3_001)),
        ("s-b", stamp(0xd2, 3_000)),
    ];
    let signed: BTreeMap<&str, (Statement, Vec<u8>)> = named
        .iter()
        .map(|(n, s)| (*n, (s.clone(), s.clone().sign(&key).to_bytes())))
        .collect();
    let statements: Vec<Value> = named
        .iter()
        .map(|(n, _)| json!({ "name": n, "bytes": hex(&signed[n].1) }))
        .collect();
    let sets = [
        (vec!["l-1", "l-2", "l-all", "s-a", "s-b", "s-a"], None),
        (vec!["s-a", "s-a-again"], Some("two-stamps")),
        (vec!["l-1", "l-again"], Some("two-times")),
        (vec!["l-all", "l-less"], Some("shrank")),
        (vec!["l-all", "l-same-moment"], Some("shrank")),
        (vec!["l-none-yet", "l-2"], Some("lacks-held")),
        (vec!["l-before", "l-1"], Some("held-early")),
        (vec!["l-answer-alone"], Some("past-not-held")),
        (vec!["l-dated-early"], Some("before-its-past")),
        (vec!["l-2", "l-silent"], None),
        (vec!["l-all", "l-silent"], Some("lacks-held")),
    ];
    let sets: Vec<Value> = sets
        .iter()
        .map(|(names, expect)| {
            let st: Vec<Statement> = names.iter().map(|n| signed[n].0.clone()).collect();
            let got = contradiction(&st, &f).map(|c| c.name());
            assert_eq!(got, *expect, "{names:?}");
            json!({ "statements": names, "contradiction": got })
        })
        .collect();
    // Lateness: seat 1 accused by seat 0, which had seen `known` envelopes of each chain
    // and whose wait started with `starts` of them (the accused's chain may be cut back
    // past its idle envelopes).
    let more = [p2[0], p2[1] + 1];
    let cases = [
        (vec!["l-2", "l-silent"], p2, p2, 10_000, None),
        (vec!["l-2", "l-all"], p2, p2, 10_000, Some("answered")),
        (vec!["l-2", "l-silent"], p2, p2, 60_000, Some("too-early")),
        (vec!["l-1", "l-silent"], p2, p2, 10_000, Some("no-start")),
        (
            vec!["l-1", "l-again", "l-silent"],
            p2,
            p2,
            10_000,
            Some("witness"),
        ),
        (vec!["l-1", "l-silent"], p2, p1, 10_000, None),
        (vec!["l-2", "l-silent"], more, p2, 10_000, None),
    ];
    let lateness: Vec<Value> = cases
        .iter()
        .map(|(names, known, starts, allowance, expect)| {
            let st: Vec<Statement> = names.iter().map(|n| signed[n].0.clone()).collect();
            let heads_of = |counts: [u64; 2]| -> Vec<Head> {
                [c0, c1]
                    .into_iter()
                    .zip(counts)
                    .map(|(chain, count)| Head {
                        chain,
                        count,
                        head: count.checked_sub(1).map_or(Hash::ZERO, |q| f.at(chain, q)),
                    })
                    .collect()
            };
            let (heads, starts) = (heads_of(*known), heads_of(*starts));
            let got = late(&st, &starts, &heads, Seat(1), *allowance, &f);
            assert_eq!(got.as_ref().err().map(|e| e.name()), *expect, "{names:?}");
            let result = match got {
                Ok(l) => json!({ "since": l.since, "deadline": l.deadline, "ledger": l.ledger }),
                Err(e) => json!({ "error": e.name() }),
            };
            json!({
                "statements": names,
                "known": heads.iter().map(|h| json!({ "seat": h.chain.seat.0, "log": h.chain.log.0, "count": h.count, "head": hex(&h.head.0) })).collect::<Vec<_>>(),
                "starts": starts.iter().map(|h| json!({ "seat": h.chain.seat.0, "log": h.chain.log.0, "count": h.count, "head": hex(&h.head.0) })).collect::<Vec<_>>(),
                "accused": 1,
                "allowance_ms": allowance,
                "result": result,
            })
        })
        .collect();
    // Statements a reader refuses: signed by another key; another game's; a ledger
    // naming a chain twice; a head that does not fit its count; times beyond the count.
    let shaped = |f: &dyn Fn(&mut Ledger)| {
        let mut s = ledger(5_000, [1, 1], &[], None);
        if let Statement::Ledger(l) = &mut s {
            f(l);
        }
        s.sign(&key).to_bytes()
    };
    let forged = ledger(4_000, [1, 0], &[(c0, 0, 1)], None)
        .sign(&SecretKey::from_seed(&[0x58; 32]))
        .to_bytes();
    let other = Statement::Stamp(Stamp {
        game: GameId(Hash([0xaa; 32])),
        deposit: Hash([1; 32]),
        at: 1,
    })
    .sign(&key)
    .to_bytes();
    let rejects = [
        ("forged-ledger", forged, "bad-signature"),
        ("other-game", other, "other-game"),
        (
            "chain-twice",
            shaped(&|l| l.chains[1] = l.chains[0].clone()),
            "chains",
        ),
        (
            "zero-head",
            shaped(&|l| l.chains[0].head = Hash::ZERO),
            "bad-head",
        ),
        (
            "times-beyond",
            shaped(&|l| {
                l.chains[0].first = 0;
                l.chains[0].times = vec![1, 2];
            }),
            "times-beyond",
        ),
    ];
    // A deposit: seat 1's first envelope sealed to seat 0 (spec/PROTOCOL.md §17,
    // deposits), with the recipient's secret seed so its opening can be checked.
    let recipient = SecretKey::from_seed(&[0x44; 32]);
    let envelope = f.bytes[&(c1, 0)].clone();
    let d = sealed_protocol::deposit::seal(f.game, &envelope, &recipient.public());
    assert_eq!(
        sealed_protocol::deposit::open(f.game, &d.bytes, &recipient),
        Some(envelope.clone())
    );
    // The same of a version 2 envelope, whose travelling bytes lack the game id (§1.6):
    // what is sealed is those bytes, not the encoding with the game id, and the game id
    // is given beside them (§17.10).
    let v2 = crate::forfeit_kit::stalled();
    let v2_game = v2.sessions[0].engine().terms().game();
    let v2_envelope = v2.sessions[1]
        .engine()
        .envelope(sealed_protocol::ids::EnvRef {
            chain: sealed_protocol::ids::ChainId::public(sealed_protocol::ids::Seat(1)),
            seq: 0,
        })
        .expect("seat 1's first envelope")
        .bytes
        .clone();
    let d2 = sealed_protocol::deposit::seal(v2_game, &v2_envelope, &recipient.public());
    assert_eq!(
        sealed_protocol::deposit::open(v2_game, &d2.bytes, &recipient),
        Some(v2_envelope.clone())
    );
    json!({
        "description": "a witness's statements about the game of duel-game.sealed (spec/PROTOCOL.md §17): each statement as its signed bytes (ledgers date an envelope one second per envelope of its public causal past); statements a reader refuses, with why; sets of statements with the contradiction they prove, or null; lateness cases: statements, what the accuser had seen of each public chain and where the wait started, the accused seat and the allowance, and the proof's since/deadline/ledger or the reason it fails; a deposit of seat 1's first envelope sealed to a recipient, with the recipient's secret seed; deposit-v2, the same of a version 2 envelope (its travelling bytes, without the game id, which is given beside them)",
        "transcript": "duel-game.sealed",
        "witness_secret_seed": hex(&WITNESS_SEED),
        "witness_public": hex(&key.public().to_bytes()),
        "seats": 2,
        "statements": statements,
        "rejects": rejects.iter().map(|(n, b, why)| json!({ "name": n, "bytes": hex(b), "reason": why })).collect::<Vec<_>>(),
        "sets": sets,
        "lateness": lateness,
        "deposit": {
            "envelope": hex(&envelope),
            "recipient_secret_seed": hex(&[0x44; 32]),
            "recipient_public": hex(&recipient.public().to_bytes()),
            "bytes": hex(&d.bytes),
            "hash": hex(&d.hash.0),
        },
        "deposit-v2": {
            "game": hex(&v2_game.0.0),
            "envelope": hex(&v2_envelope),
            "recipient_secret_seed": hex(&[0x44; 32]),
            "recipient_public": hex(&recipient.public().to_bytes()),
            "bytes": hex(&d2.bytes),
            "hash": hex(&d2.hash.0),
        },
    })
}

/// transcript-forfeit.json (and the bytes of forfeit-game.sealed): a version 2 Duel with
/// `time-per-move=1h` naming this file's witness, in which Black stops at his second
/// turn and White posts the witness's views as a forfeit an hour and a millisecond
/// later; White reveals and closes, Black never does. With two reject twins: the same
/// forfeit at the deadline exactly, and with views White signed itself.
pub fn forfeit_transcript() -> (Value, Vec<u8>) {
    use crate::forfeit_kit::{HOUR, proof, signed, stalled, witness};
    use crate::scenarios::{A, B, honest_pair};
    use sealed_protocol::body::{Forfeit, Item};
    use sealed_protocol::session::Command;

    let mut p = stalled();
    let statements = signed(&proof(&p, A, HOUR + 1), &witness());
    let now = p.now;
    p.sessions[0]
        .handle_command(
            Command::Forfeit(Forfeit {
                against: B,
                statements,
            }),
            now,
        )
        .expect("the forfeit stands");
    p.deliver_all();
    p.run(&mut honest_pair());
    let bytes = p.transcript(A);
    let checked = sealed_games::variant::check_transcript(&bytes).expect("readable");
    let o = checked.verdict.outcome.clone().expect("a result");
    assert_eq!(o.reason, "seat 1 lost on time");
    let twin = |after: u64, key: &SecretKey| -> Vec<u8> {
        let mut p = stalled();
        let f = Forfeit {
            against: B,
            statements: signed(&proof(&p, A, after), key),
        };
        let env = p.forge(A, vec![Item::Forfeit(f)]);
        p.inject(&env);
        p.run(&mut honest_pair());
        p.transcript(B)
    };
    use crate::time_attacks::{
        dangling_acknowledgement, future_dated_ledger, late_acceptance, noop_before_the_deadline,
        prestamped,
    };
    let mut rejects: Vec<Value> = [
        ("at-the-deadline", twin(HOUR, &witness())),
        (
            "signed-by-the-accuser",
            twin(2 * HOUR, &crate::sim::test_key(0)),
        ),
        ("pre-stamped-move", prestamped().transcript(B)),
    ]
    .into_iter()
    .map(|(name, b)| {
        let r = reject(name, &b);
        assert_eq!(r["faults"], json!([{ "seat": 0, "kind": "false-forfeit" }]));
        r
    })
    .collect();
    // The attacks that do not bend the result: the forfeit stands, verified; and a
    // witness in league with the accuser voids every time result.
    for (name, p, exit) in [
        (
            "no-op-before-the-deadline",
            noop_before_the_deadline(vec![Item::AcceptDraw]),
            0,
        ),
        ("dangling-acknowledgement", dangling_acknowledgement(), 0),
        ("late-acceptance", late_acceptance(), 0),
        ("future-dated-ledger", future_dated_ledger(), 3),
    ] {
        let mut r = reject(name, &p.transcript(A));
        assert_eq!(r["exit"], json!(exit), "{name}: {r}");
        assert_eq!(r["faults"], json!([]), "{name}");
        // The result too, where there is one: these attacks are about it.
        let c = sealed_games::variant::check_transcript(&p.transcript(A)).expect("readable");
        if let Some(o) = c.verdict.outcome.as_ref() {
            r["reason"] = json!(o.reason);
        }
        rejects.push(r);
    }
    let value = json!({
        "description": "version 2 (spec/PROTOCOL.md §17): a Duel with time-per-move=1h naming the witness of witness.json; Black (signing the name p1 into his acceptance) stops at his second turn and White posts the witness's two ledgers (1 s, dating every envelope at 1 s, and 1 h + 1 ms later, holding the same) as a forfeit; White reveals and closes, Black never does. The same bytes as forfeit-game.sealed. Twins: the same forfeit at the deadline exactly, with ledgers White signed itself, and with a stamp of White's move hash at 1 s while the ledger dates the move two hours later (each White's false-forfeit, exit 1); Black's no-op a minute before his deadline and Black's envelope acknowledging an envelope of White's that does not exist (the forfeit stands, exit 0); White's draw offer left standing, then Black, having never seen the forfeit, accepting it (the acceptance is processed, its ending left out: Black lost on time, exit 0, §8.14); a ledger dated ten hours on lacking Black's answer, against the ledger Black posts in his defence (no result, exit 3)",
        "file": "forfeit-game.sealed",
        "bytes": hex(&bytes),
        "verdict": crate::vectors::verdict_json(&checked, &o),
        "rejects": rejects,
    });
    (value, bytes)
}

/// transcript-stallmate-forfeit.json (and the bytes of stallmate-forfeit-game.sealed):
/// a version 2 Secret Stallmate naming this file's witness, in which Black walks away
/// from the board in his period; every seat posts the witness's stamps, and the stamps
/// prove the period passed without a move: −10 / 0, verified. With four twins, each the
/// transcript White holds: a "yes" to an attempt stamped after its period (the
/// referee's lie), an attempt stamped in time left out of the seal (no result), a
/// witness that gives the close two times (no result), and a stamp White signed
/// himself (his `false-statement`).
pub fn stallmate_forfeit_transcript() -> (Value, Vec<u8>) {
    use crate::stallmate_witness::{
        careless_referee, contradicting, forged_stamp, late_attempts, left_out, walk_away,
        withheld_attempts,
    };
    use sealed_protocol::ids::Seat;

    let p = walk_away(3);
    let bytes = p.transcript(Seat(0));
    let checked = sealed_games::variant::check_transcript(&bytes).expect("readable");
    let o = checked.verdict.outcome.clone().expect("a result");
    assert_eq!(o.reason, "seat 1 lost on time");
    let rejects: Vec<Value> = [
        (
            "yes-to-a-late-attempt",
            late_attempts(5, Some(careless_referee())),
        ),
        ("in-time-attempt-left-out", left_out(6)),
        ("witness-contradicts-itself", contradicting(3)),
        ("stamp-signed-by-a-player", forged_stamp(7)),
        ("attempts-withheld", withheld_attempts(4)),
    ]
    .into_iter()
    .map(|(name, p)| reject(name, &p.transcript(Seat(0))))
    .chain([reject(
        "referee-closed-once",
        &without_second_close(&bytes, Seat(2)),
    )])
    .collect();
    let value = json!({
        "description": "version 2 (spec/PROTOCOL.md §17, deposits; spec/GAMES.md §5.14): a Secret Stallmate (period 1s, ply-limit 30) between the test keys (White 0, Black 1, referee 2) naming the witness of witness.json; Black makes no attempt after his third, his period passes, the referee calls it his forfeit, and every seat posts the witness's stamps before it closes: Black lost on time, -10 / 0, verified. The same bytes as stallmate-forfeit-game.sealed. Rejects (each White's transcript): a yes to an attempt stamped after its period (the referee's game-rule fault), an attempt stamped in time that the referee's seal left out (no result), a witness giving the close two times (no result), a stamp White signed himself (White's false-statement), Black's attempts neither sent to the referee nor left with the witness, something else stamped in their place (they never counted: Black lost on time, -10 / 0), the file without the referee's second close, the one that saw Black's close (Black lost on time is waited for by no close, §17.7: complete, verified, exit 0)",
        "file": "stallmate-forfeit-game.sealed",
        "bytes": hex(&bytes),
        "verdict": crate::vectors::verdict_json(&checked, &o),
        "rejects": rejects,
    });
    (value, bytes)
}

/// The transcript file `bytes` without the last close of `seat`'s public chain, which
/// must have closed twice: its first close saw every other seat's but that of the seat
/// lost on time, which nobody's close waits for (spec/PROTOCOL.md §17.7).
fn without_second_close(bytes: &[u8], seat: sealed_protocol::ids::Seat) -> Vec<u8> {
    use sealed_protocol::body::Item;
    use sealed_protocol::envelope::Envelope;
    use sealed_protocol::ids::LogId;
    let checked = sealed_games::variant::check_transcript(bytes).expect("readable");
    let game = checked.verdict.game;
    let mut f = sealed_protocol::transcript::TranscriptFile::from_bytes(bytes).expect("readable");
    let closes: Vec<(u64, usize)> = f
        .envelopes
        .iter()
        .enumerate()
        .filter_map(|(i, b)| {
            let e = Envelope::decode(b, game).ok()?;
            let u = &e.unsigned;
            (u.seat == seat && u.log == LogId::PUBLIC && u.body.contains(&Item::Close))
                .then_some((u.seq, i))
        })
        .collect();
    assert!(closes.len() >= 2, "{seat} closed twice: {closes:?}");
    let last = closes.iter().max().expect("a close").1;
    f.envelopes.remove(last);
    let cut = f.to_bytes();
    let c = sealed_games::variant::check_transcript(&cut).expect("readable");
    assert!(
        c.verdict.complete && c.exit_code() == 0,
        "without {seat}'s second close: {:#?}",
        c.verdict
    );
    cut
}

/// A reject twin of a transcript vector: its name, the exit code and faults its check
/// gives, and its bytes.
fn reject(name: &str, bytes: &[u8]) -> Value {
    let c = sealed_games::variant::check_transcript(bytes).expect("readable");
    let faults: Vec<Value> = c
        .verdict
        .faults
        .iter()
        .map(|f| json!({ "seat": f.seat.0, "kind": f.kind.name() }))
        .collect();
    json!({ "name": name, "exit": c.exit_code(), "faults": faults, "transcript": hex(bytes) })
}
