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
use sealed_protocol::witness::{Chains, Head, Receipt, Statement, View, contradiction};

/// The witness's secret seed in the vectors.
pub const WITNESS_SEED: [u8; 32] = [0x57; 32];

/// The envelopes of a transcript by hash, with their places: what statements are
/// checked against.
pub struct FileChains {
    /// The game.
    pub game: GameId,
    by_hash: BTreeMap<Hash, (ChainId, u64)>,
}

impl FileChains {
    /// Reads a transcript's validly signed envelopes.
    pub fn of(bytes: &[u8]) -> FileChains {
        let file = TranscriptFile::from_bytes(bytes).expect("a transcript");
        let terms = Terms::parse(&file.proposal).expect("its terms");
        let by_hash = file
            .envelopes
            .iter()
            .filter_map(|b| Signed::parse(&terms, b).ok())
            .map(|s| (s.hash, (s.at().chain, s.at().seq)))
            .collect();
        FileChains {
            game: terms.game(),
            by_hash,
        }
    }

    /// The hash of the envelope at `seq` of `chain` (it must exist).
    fn at(&self, chain: ChainId, seq: u64) -> Hash {
        self.hash_at(chain, seq).expect("the file holds it")
    }

    /// How many envelopes of `chain` the file holds.
    fn count(&self, chain: ChainId) -> u64 {
        self.by_hash.values().filter(|(c, _)| *c == chain).count() as u64
    }
}

impl Chains for FileChains {
    fn place(&self, envelope: &Hash) -> Option<(ChainId, u64)> {
        self.by_hash.get(envelope).copied()
    }
    fn hash_at(&self, chain: ChainId, seq: u64) -> Option<Hash> {
        self.by_hash
            .iter()
            .find(|(_, p)| **p == (chain, seq))
            .map(|(h, _)| *h)
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
    let receipt = |chain: ChainId, seq: u64, at: u64| {
        Statement::Receipt(Receipt {
            game: f.game,
            envelope: f.at(chain, seq),
            at,
        })
    };
    let view = |at: u64, counts: [u64; 2]| {
        Statement::View(View {
            game: f.game,
            at,
            heads: [c0, c1]
                .into_iter()
                .zip(counts)
                .map(|(chain, count)| Head {
                    chain,
                    count,
                    head: if count == 0 {
                        Hash::ZERO
                    } else {
                        f.at(chain, count - 1)
                    },
                })
                .collect(),
        })
    };
    let all = [f.count(c0), f.count(c1)];
    let named: Vec<(&str, Statement)> = vec![
        ("r0-0", receipt(c0, 0, 1_000)),
        ("r1-0", receipt(c1, 0, 2_000)),
        ("v-early", view(1_500, [1, 0])),
        ("v-both", view(2_500, [1, 1])),
        ("v-all", view(90_000, all)),
        ("r0-0-again", receipt(c0, 0, 1_001)),
        ("v-lacks", view(3_000, [0, 1])),
        ("v-before", view(500, [1, 0])),
        ("v-less", view(95_000, [1, 1])),
        ("v-silent", view(50_000, [1, 1])),
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
        (vec!["r0-0", "r1-0", "v-early", "v-both", "v-all"], None),
        (vec!["r0-0", "r0-0-again"], Some("two-receipts")),
        (vec!["r0-0", "v-lacks"], Some("view-lacks-receipted")),
        (vec!["r0-0", "v-before"], Some("backwards")),
        (vec!["r1-0", "v-early", "v-all"], None),
        (vec!["r1-0", "v-both"], None),
        (vec!["v-all", "v-less"], Some("shrank")),
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
    let cases = [
        (
            vec!["r0-0", "r1-0", "v-silent", "v-all"],
            [1, 1],
            [1, 1],
            10_000,
            None,
        ),
        (
            vec!["r0-0", "r1-0", "v-silent", "v-all"],
            [1, 1],
            [1, 1],
            60_000,
            Some("answered"),
        ),
        (
            vec!["r0-0", "v-silent"],
            [1, 1],
            [1, 1],
            10_000,
            Some("too-early"),
        ),
        (
            vec!["r0-0", "r1-0", "v-silent"],
            [2, 1],
            [2, 1],
            10_000,
            Some("no-start"),
        ),
        (
            vec!["r0-0", "r0-0-again", "v-silent"],
            [1, 1],
            [1, 1],
            10_000,
            Some("witness"),
        ),
        (vec!["r0-0", "v-silent"], [1, 1], [1, 0], 10_000, None),
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
                Ok(l) => json!({ "since": l.since, "deadline": l.deadline, "view": l.view }),
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
    // A receipt signed by another key; another game's view; a view naming a chain twice.
    let forged = receipt(c0, 1, 4_000)
        .sign(&SecretKey::from_seed(&[0x58; 32]))
        .to_bytes();
    let other = Statement::View(View {
        game: GameId(Hash([0xaa; 32])),
        at: 1,
        heads: vec![],
    })
    .sign(&key)
    .to_bytes();
    let mut twice = view(5_000, [1, 1]);
    if let Statement::View(v) = &mut twice {
        v.heads[1] = v.heads[0];
    }
    let rejects = [
        ("forged-receipt", forged, "bad-signature"),
        ("other-game", other, "other-game"),
        ("chain-twice", twice.sign(&key).to_bytes(), "unordered"),
    ];
    json!({
        "description": "a witness's statements about the game of duel-game.sealed (spec/PROTOCOL.md §17): each statement as its signed bytes; statements a reader refuses, with why; sets of statements with the contradiction they prove, or null; lateness cases: statements, what the accuser had seen of each public chain, the accused seat and the allowance, and the proof's since/deadline/view or the reason it fails",
        "transcript": "duel-game.sealed",
        "witness_secret_seed": hex(&WITNESS_SEED),
        "witness_public": hex(&key.public().to_bytes()),
        "statements": statements,
        "rejects": rejects.iter().map(|(n, b, why)| json!({ "name": n, "bytes": hex(b), "reason": why })).collect::<Vec<_>>(),
        "sets": sets,
        "lateness": lateness,
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
    let rejects: Vec<Value> = [
        ("at-the-deadline", twin(HOUR, &witness())),
        (
            "signed-by-the-accuser",
            twin(2 * HOUR, &crate::sim::test_key(0)),
        ),
    ]
    .into_iter()
    .map(|(name, b)| {
        let r = reject(name, &b);
        assert_eq!(r["faults"], json!([{ "seat": 0, "kind": "false-forfeit" }]));
        r
    })
    .collect();
    let value = json!({
        "description": "version 2 (spec/PROTOCOL.md §17): a Duel with time-per-move=1h naming the witness of witness.json; Black stops at his second turn and White posts the witness's two views (1 s, and 1 h + 1 ms later, holding the same) as a forfeit; White reveals and closes, Black never does. The same bytes as forfeit-game.sealed. Rejects: the same forfeit at the deadline exactly, and with views White signed itself: each White's false-forfeit",
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
/// himself (his `false-stamp`).
pub fn stallmate_forfeit_transcript() -> (Value, Vec<u8>) {
    use crate::stallmate_witness::{
        careless_referee, contradicting, forged_stamp, late_attempts, left_out, walk_away,
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
    ]
    .into_iter()
    .map(|(name, p)| reject(name, &p.transcript(Seat(0))))
    .collect();
    let value = json!({
        "description": "version 2 (spec/PROTOCOL.md §17, stamps; spec/GAMES.md §5.14): a Secret Stallmate (period 1s, ply-limit 30) between the test keys (White 0, Black 1, referee 2) naming the witness of witness.json; Black makes no attempt after his third, his period passes, the referee calls it his forfeit, and every seat posts the witness's stamps before it closes: Black lost on time, -10 / 0, verified. The same bytes as stallmate-forfeit-game.sealed. Rejects (each White's transcript): a yes to an attempt stamped after its period (the referee's game-rule fault), an attempt stamped in time that the referee's seal left out (no result), a witness giving the close two times (no result), a stamp White signed himself (White's false-stamp)",
        "file": "stallmate-forfeit-game.sealed",
        "bytes": hex(&bytes),
        "verdict": crate::vectors::verdict_json(&checked, &o),
        "rejects": rejects,
    });
    (value, bytes)
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
