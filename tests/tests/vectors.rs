//! Checks the implementation against spec/vectors/. These files are written only by
//! the explicit generator (`cargo run -p sealed-conformance --bin gen-vectors`); this
//! test reads them, recomputes every value from its inputs, and never writes.

use serde_json::Value;

use sealed_conformance::vectors::cofactored_accepts;
use sealed_protocol::body::Purpose;
use sealed_protocol::commit::{CommitKey, commitment};
use sealed_protocol::derive::{self, DealStream};
use sealed_protocol::envelope::Signed;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{GameId, Name, Seat};
use sealed_protocol::keys::{PublicKey, SecretKey, Signature};
use sealed_protocol::proposal::Terms;
use sealed_protocol::random::Stream;
use sealed_protocol::wire;

fn load(name: &str) -> Value {
    let path = format!("{}/../spec/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).expect("vector file")).expect("json")
}

fn bytes(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().expect("hex string")).expect("hex")
}

fn b32(v: &Value) -> [u8; 32] {
    bytes(v).try_into().expect("32 bytes")
}

fn hash(v: &Value) -> Hash {
    Hash(b32(v))
}

fn num(v: &Value) -> u64 {
    v.as_u64().expect("number")
}

fn nums(v: &Value) -> Vec<u32> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| num(x) as u32)
        .collect()
}

#[test]
fn commitments() {
    for c in load("commitments.json")["cases"].as_array().unwrap() {
        let purpose: Purpose = wire::decode(&bytes(&c["purpose_bytes"]), 64).expect("purpose");
        let key = CommitKey {
            seat: Seat(num(&c["seat"]) as u8),
            purpose,
            index: num(&c["index"]) as u32,
        };
        let got = commitment(
            GameId(hash(&c["game"])),
            &key,
            &b32(&c["nonce"]),
            &bytes(&c["value"]),
        );
        assert_eq!(got, hash(&c["commitment"]), "{c}");
    }
}

#[test]
fn random_streams() {
    let v = load("random.json");
    for s in v["streams"].as_array().unwrap() {
        let mut st = Stream::new(&hash(&s["key"]));
        let want = nums(&s["words"]);
        let got: Vec<u32> = want.iter().map(|_| st.next_u32()).collect();
        assert_eq!(got, want);
    }
    for b in v["below"].as_array().unwrap() {
        let mut st = Stream::new(&hash(&b["key"]));
        let n = num(&b["n"]) as u32;
        let want = nums(&b["values"]);
        let got: Vec<u32> = want.iter().map(|_| st.below(n)).collect();
        assert_eq!(got, want, "below({n})");
    }
    for p in v["permutations"].as_array().unwrap() {
        let got = Stream::new(&hash(&p["key"])).permutation(num(&p["n"]) as u32);
        assert_eq!(got, nums(&p["result"]));
    }
}

#[test]
fn derivations() {
    let v = load("derive.json");
    for c in v["coin"].as_array().unwrap() {
        let seeds: Vec<[u8; 32]> = c["seeds"].as_array().unwrap().iter().map(b32).collect();
        assert_eq!(
            derive::coin(GameId(hash(&c["game"])), &seeds),
            hash(&c["coin"])
        );
    }
    for s in v["streams"].as_array().unwrap() {
        let mut st = derive::stream(&hash(&s["coin"]), s["label"].as_str().unwrap());
        let want = nums(&s["words"]);
        assert_eq!(want.iter().map(|_| st.next_u32()).collect::<Vec<_>>(), want);
    }
    for s in v["setup"].as_array().unwrap() {
        let got = derive::setup(
            GameId(hash(&s["game"])),
            Seat(num(&s["owner"]) as u8),
            &Name::new(s["name"].as_str().unwrap()).unwrap(),
            &b32(&s["owner_seed"]),
            &b32(&s["contribution"]),
        );
        assert_eq!(got, hash(&s["setup"]));
    }
    for d in v["draw"].as_array().unwrap() {
        let (game, owner, pool) = (
            GameId(hash(&d["game"])),
            Seat(num(&d["owner"]) as u8),
            Name::new(d["pool"].as_str().unwrap()).unwrap(),
        );
        let chain: Vec<[u8; 32]> = d["chain"].as_array().unwrap().iter().map(b32).collect();
        let n = num(&d["draws"]) as u32;
        for (i, v) in chain.iter().enumerate() {
            assert_eq!(
                derive::draw_chain_value(game, owner, &pool, n, &b32(&d["last"]), i as u32),
                *v
            );
            if i > 0 {
                assert_eq!(
                    derive::draw_chain_step(game, owner, &pool, i as u32, v).0,
                    chain[i - 1],
                    "step {i}"
                );
            }
        }
        let pick = derive::draw_pick(game, owner, &pool, 1, &chain[1], &b32(&d["contribution"]));
        assert_eq!(pick, hash(&d["pick_of_draw_1"]));
    }
    for d in v["deal"].as_array().unwrap() {
        let key = derive::deal_key(
            GameId(hash(&d["game"])),
            Seat(num(&d["dealer"]) as u8),
            Seat(num(&d["owner"]) as u8),
            &Name::new(d["deck"].as_str().unwrap()).unwrap(),
            &b32(&d["seed"]),
        );
        assert_eq!(key, hash(&d["key"]));
        let mut stream = DealStream::new(&key, num(&d["slots"]) as u32);
        for draw in d["draws"].as_array().unwrap() {
            let excluded = nums(&draw["excluded"]);
            let got = stream.next(num(&draw["count"]) as usize, |s| excluded.contains(&s));
            assert_eq!(got, nums(&draw["slots"]));
        }
    }
}

#[test]
fn keys_proposal_envelopes_and_signatures() {
    let v = load("envelopes.json");
    for k in v["keys"].as_array().unwrap() {
        assert_eq!(
            SecretKey::from_seed(&b32(&k["secret_seed"]))
                .public()
                .to_bytes(),
            b32(&k["public"])
        );
    }
    let p = &v["proposal"];
    let terms = Terms::parse(&bytes(&p["signed_bytes"])).expect("the proposal parses");
    assert_eq!(wire::encode(terms.proposal()), bytes(&p["unsigned_bytes"]));
    assert_eq!(terms.game().0, hash(&p["game_id"]));
    assert_eq!(terms.signed().sig.0.to_vec(), bytes(&p["signature"]));
    for e in v["envelopes"].as_array().unwrap() {
        let s = Signed::parse(&terms, &bytes(&e["bytes"])).expect("the envelope verifies");
        assert_eq!(s.hash, hash(&e["hash"]));
        assert_eq!(s.env.sig.0.to_vec(), bytes(&e["signature"]));
        assert_eq!(wire::encode(s.unsigned()), bytes(&e["unsigned_bytes"]));
        assert_eq!(s.unsigned().seq, num(&e["seq"]));
    }
    for s in v["signatures"].as_array().unwrap() {
        let msg = bytes(&s["message"]);
        let sig = Signature(bytes(&s["signature"]).try_into().unwrap());
        let public = b32(&s["public"]);
        let valid = PublicKey::from_bytes(&public).is_ok_and(|k| k.verify(&msg, &sig));
        assert_eq!(valid, s["valid"].as_bool().unwrap(), "{}", s["reason"]);
        if s.get("cofactored_accepts").is_some() {
            // These are exactly the signatures a cofactored (batch) check would accept.
            assert!(cofactored_accepts(&public, &msg, &sig), "{}", s["reason"]);
            assert_eq!(s["cofactored_accepts"], Value::Bool(true));
        }
    }
}

#[test]
fn the_example_transcript_verifies() {
    check_transcript_vector("transcript-duel.json");
}

#[test]
fn the_cardmate_transcript_verifies_on_the_board_the_coin_deals() {
    let v = check_transcript_vector("transcript-cardmate.json");
    let file =
        sealed_protocol::transcript::TranscriptFile::from_bytes(&bytes(&v["bytes"])).unwrap();
    let (engine, _) =
        sealed_protocol::transcript::check::<sealed_games::cardmate::Cardmate>(&file).unwrap();
    assert_eq!(engine.coin().copied(), Some(hash(&v["coin"])));
}

/// The version 2 references: each deck opened whole after the game (§17.17), so no
/// deck slot is opened one by one then.
#[test]
fn the_version_2_references_verify_with_their_decks_opened_whole() {
    for name in ["transcript-tempete-v2.json", "transcript-cardmate-v2.json"] {
        let v = check_transcript_vector(name);
        let file =
            sealed_protocol::transcript::TranscriptFile::from_bytes(&bytes(&v["bytes"])).unwrap();
        let game = sealed_protocol::proposal::Terms::parse(&file.proposal)
            .unwrap()
            .game();
        let items: Vec<sealed_protocol::body::Item> = file
            .envelopes
            .iter()
            .flat_map(|e| {
                sealed_protocol::envelope::Envelope::decode(e, game)
                    .unwrap()
                    .unsigned
                    .body
            })
            .collect();
        let whole = items
            .iter()
            .filter(|i| matches!(i, sealed_protocol::body::Item::OpenDeck(_)))
            .count();
        if name.contains("tempete") {
            assert_eq!(whole, 2, "{name}: one per player's deck");
        }
    }
}

#[test]
fn the_chex_transcript_verifies() {
    check_transcript_vector("transcript-chex.json");
}

#[test]
fn the_tempete_transcript_verifies_with_cards_played() {
    let v = check_transcript_vector("transcript-tempete.json");
    assert!(
        v["cards_played"].as_u64().unwrap() > 10,
        "{}",
        v["cards_played"]
    );
}

/// The physical-deck Tempête verifies, with its disputes (one ruled, one lapsed) closed.
#[test]
fn the_tempete_physical_transcript_verifies_with_its_disputes_closed() {
    let v = check_transcript_vector("transcript-tempete-physical.json");
    assert_eq!(v["disputes"].as_u64(), Some(2), "{v}");
    assert!(v["acts"].as_u64().unwrap() > 10, "{v}");
}

/// The version 2 Tempête with card 73 verifies, and its envelopes show slots.
#[test]
fn the_tempete_show_transcript_verifies_with_a_hand_shown() {
    let v = check_transcript_vector("transcript-tempete-show.json");
    assert!(v["shows"].as_u64().unwrap() > 0, "{}", v["shows"]);
    let file =
        sealed_protocol::transcript::TranscriptFile::from_bytes(&bytes(&v["bytes"])).unwrap();
    let game = sealed_protocol::proposal::Terms::parse(&file.proposal)
        .unwrap()
        .game();
    let shows = file
        .envelopes
        .iter()
        .filter_map(|b| sealed_protocol::envelope::Envelope::decode(b, game).ok())
        .flat_map(|e| e.unsigned.body)
        .filter(|i| matches!(i, sealed_protocol::body::Item::Show(_)))
        .count();
    assert_eq!(shows as u64, v["shows"].as_u64().unwrap());
}

/// The Stallmate vector verifies; its first period's digest is the one posted in public
/// and is computed from the inputs given; its score replays.
#[test]
fn the_stallmate_transcript_verifies_and_its_digest_and_score_agree() {
    let v = check_transcript_vector("transcript-stallmate.json");
    let d = &v["first_period_digest"];
    let heads: Vec<(sealed_protocol::ids::Seat, u64, sealed_protocol::hash::Hash)> = d["heads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                sealed_protocol::ids::Seat(h["seat"].as_u64().unwrap() as u8),
                h["count"].as_u64().unwrap(),
                hash(&h["head"]),
            )
        })
        .collect();
    let game = sealed_protocol::ids::GameId(hash(&d["game"]));
    let log = sealed_protocol::ids::LogId(d["log"].as_u64().unwrap() as u32);
    assert_eq!(
        sealed_protocol::hidden::digest(game, log, &heads),
        hash(&d["digest"])
    );
    // The same digest is the one the referee posted for period 0.
    let file =
        sealed_protocol::transcript::TranscriptFile::from_bytes(&bytes(&v["bytes"])).unwrap();
    let (engine, _) =
        sealed_protocol::transcript::check::<sealed_games::stallmate::peer::Stallmate>(&file)
            .unwrap();
    let posted = engine.state().unwrap().heard[0].digest;
    assert_eq!(posted, hash(&d["digest"]));
    let replayed =
        sealed_games::stallmate::record::replay(v["score"].as_str().unwrap()).expect("replays");
    assert!(replayed.plies > 0);
}

/// The vector of Secret Stallmate without a referee verifies, and each commitment in it
/// opens, under its mover's revealed engine seed, to the attempt the vector lists.
#[test]
fn the_duo_transcript_verifies_and_its_commitments_open_to_its_attempts() {
    use sealed_games::stallmate::duo::acts::{Act, decode};
    let v = check_transcript_vector("transcript-stallmate-duo.json");
    let seeds: Vec<[u8; 32]> = v["engine_seeds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| hash(h).0)
        .collect();
    let attempts: Vec<u16> = v["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_u64().unwrap() as u16)
        .collect();
    let file =
        sealed_protocol::transcript::TranscriptFile::from_bytes(&bytes(&v["bytes"])).unwrap();
    let (engine, _) =
        sealed_protocol::transcript::check::<sealed_games::stallmate::duo::Duo>(&file).unwrap();
    let game = engine.terms().game().0.0;
    let revealed = engine.revealed().expect("over");
    let (mut runs, mut opened) = (0u64, vec![]);
    for post in &revealed.public {
        match decode(&post.bytes) {
            Ok(Act::Attempt(c)) => opened.push(
                sealed_mpc::play::record::open(&seeds[post.seat.index()], &game, runs, &c.0)
                    .expect("opens"),
            ),
            Ok(Act::Done(_)) => runs += 1,
            _ => {}
        }
    }
    assert_eq!(opened, attempts);
    assert!(!attempts.is_empty());
}

/// Checks a complete-transcript vector: the file on disk is the vector's bytes, and
/// the check gives the vector's exit code, results, reason and envelope count.
fn check_transcript_vector(name: &str) -> Value {
    let v = load(name);
    let file = bytes(&v["bytes"]);
    let path = format!(
        "{}/../spec/vectors/{}",
        env!("CARGO_MANIFEST_DIR"),
        v["file"].as_str().unwrap()
    );
    assert_eq!(
        file,
        std::fs::read(path).unwrap(),
        "{} and {name} differ",
        v["file"]
    );
    let checked = sealed_games::variant::check_transcript(&file).expect("readable");
    let want = &v["verdict"];
    assert_eq!(
        i64::from(checked.exit_code()),
        want["exit"].as_i64().unwrap()
    );
    let o = checked.verdict.outcome.expect("finished");
    let results: Vec<String> = o.results.iter().map(|r| r.to_string()).collect();
    assert_eq!(serde_json::to_value(results).unwrap(), want["results"]);
    assert_eq!(o.reason, want["reason"].as_str().unwrap());
    assert_eq!(checked.verdict.envelopes, num(&want["envelopes"]));
    v
}

#[test]
fn the_forfeited_game_verifies_and_its_false_twins_are_the_accusers_fault() {
    check_rejects(&check_transcript_vector("transcript-forfeit.json"));
}

#[test]
fn the_stallmate_forfeit_verifies_and_its_twins_give_what_the_spec_says() {
    check_rejects(&check_transcript_vector(
        "transcript-stallmate-forfeit.json",
    ));
}

/// Each reject twin of a transcript vector checks to its exit code and faults.
fn check_rejects(v: &Value) {
    for r in v["rejects"].as_array().unwrap() {
        let c =
            sealed_games::variant::check_transcript(&bytes(&r["transcript"])).expect("readable");
        assert_eq!(
            i64::from(c.exit_code()),
            r["exit"].as_i64().unwrap(),
            "{}",
            r["name"]
        );
        let faults: Vec<Value> = c
            .verdict
            .faults
            .iter()
            .map(|f| serde_json::json!({ "seat": f.seat.0, "kind": f.kind.name() }))
            .collect();
        assert_eq!(Value::from(faults), r["faults"], "{}", r["name"]);
    }
}

#[test]
fn every_reject_vector_is_refused_for_its_reason() {
    let v = load("reject.json");
    let vectors = v["vectors"].as_array().unwrap();
    for r in vectors {
        let name = r["name"].as_str().unwrap();
        let file = bytes(&r["transcript"]);
        let exit = r["exit"].as_i64().unwrap();
        match sealed_games::variant::check_transcript(&file) {
            Err(e) => {
                assert_eq!(
                    exit, 2,
                    "{name}: unreadable ({e}) but the vector expects {exit}"
                );
                if r["reason"] == "bad-time-option" {
                    assert!(e.to_string().contains("time control"), "{name}: {e}");
                }
                if r["reason"] == "earlier-draft" {
                    let draft = name.strip_prefix("version-2-draft-").unwrap_or("?");
                    assert!(
                        e.to_string()
                            .contains(&format!("draft {draft} of protocol version 2")),
                        "{name}: {e}"
                    );
                }
            }
            Ok(c) => {
                assert_eq!(i64::from(c.exit_code()), exit, "{name}: {:#?}", c.verdict);
                for f in r["faults"].as_array().unwrap() {
                    let seat = Seat(num(&f["seat"]) as u8);
                    let kind = f["kind"].as_str().unwrap();
                    assert!(
                        c.verdict
                            .faults
                            .iter()
                            .any(|x| x.seat == seat && x.kind.name() == kind),
                        "{name}: no {kind} against {seat}: {:#?}",
                        c.verdict.faults
                    );
                }
                if let Some(results) = r["results"].as_array() {
                    let got: Vec<String> = c
                        .verdict
                        .outcome
                        .as_ref()
                        .expect("adjudicated")
                        .results
                        .iter()
                        .map(|x| x.to_string())
                        .collect();
                    let want: Vec<String> = results
                        .iter()
                        .map(|x| x.as_str().unwrap().to_owned())
                        .collect();
                    assert_eq!(got, want, "{name}");
                }
            }
        }
    }
    // The reasons the foundation promises a vector for.
    let reasons: Vec<&str> = vectors
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    for needed in [
        "bad-signature",
        "non-strict-signature",
        "small-order-key",
        "wrong-previous-hash",
        "trailing-bytes",
        "oversize",
        "equivocation",
        "backward-ack",
        "slot-never-dealt",
        "card-from-two-slots",
        "card-not-on-list",
        "opening-mismatch",
        "premature-reveal",
        "commitment-after-dependent",
        "incomplete",
        "draw-chain-broken",
        "draw-value-early",
        "bad-time-option",
    ] {
        assert!(reasons.contains(&needed), "no reject vector for {needed}");
    }
    let names: Vec<&str> = vectors
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    for needed in [
        "copied-commitment",
        "small-order-key",
        "r-with-torsion",
        "cut-before-close",
    ] {
        assert!(names.contains(&needed), "no reject vector named {needed}");
    }
}

#[test]
fn cardmate_perft_counts() {
    let v = load("cardmate-perft.json");
    let opts = sealed_games::cardmate::Options::default();
    for p in v["positions"].as_array().unwrap() {
        let (pos, _) =
            sealed_games::cardmate::replay_score(p["score"].as_str().unwrap()).expect("replays");
        for (depth, want) in p["counts"].as_array().unwrap().iter().enumerate() {
            assert_eq!(
                pos.perft(depth as u32 + 1, &opts),
                num(want),
                "{} depth {}",
                p["name"],
                depth + 1
            );
        }
    }
}

#[test]
fn cardmate_start_has_the_38_moves_counted_by_hand() {
    // Counted square by square from the seed's diagram: 18 moves from rank 2, 18 from
    // rank 1 (the Jacks 5 each), 2 from rank 0 (the Nines' diagonals to b1 and i1).
    let v = load("cardmate-perft.json");
    assert_eq!(num(&v["positions"][0]["counts"][0]), 38);
}

#[test]
fn witness_statements_read_and_contradict_as_the_vectors_say() {
    use sealed_conformance::witness_vectors::FileChains;
    use sealed_protocol::witness::{SignedStatement, Statement, contradiction};

    let v = load("witness.json");
    let file = std::fs::read(format!(
        "{}/../spec/vectors/{}",
        env!("CARGO_MANIFEST_DIR"),
        v["transcript"].as_str().unwrap()
    ))
    .unwrap();
    let chains = FileChains::of(&file);
    let key = SecretKey::from_seed(&b32(&v["witness_secret_seed"]));
    let public = PublicKey::from_bytes(&b32(&v["witness_public"])).unwrap();
    assert_eq!(key.public().to_bytes(), public.to_bytes());
    let mut by_name = std::collections::BTreeMap::new();
    for s in v["statements"].as_array().unwrap() {
        let b = bytes(&s["bytes"]);
        let seats = num(&v["seats"]) as usize;
        let read = SignedStatement::from_bytes(&b, chains.game, &public, seats)
            .unwrap_or_else(|e| panic!("{}: {e}", s["name"]));
        // Canonical: the bytes are exactly the encoding of what they say.
        assert_eq!(read.to_bytes(), b);
        by_name.insert(s["name"].as_str().unwrap().to_owned(), read.statement);
    }
    for r in v["rejects"].as_array().unwrap() {
        let got = SignedStatement::from_bytes(
            &bytes(&r["bytes"]),
            chains.game,
            &public,
            num(&v["seats"]) as usize,
        )
        .map(|_| ())
        .map_err(|e| e.name());
        assert_eq!(got, Err(r["reason"].as_str().unwrap()), "{}", r["name"]);
    }
    // The statements a set or case names, by name.
    let named = |names: &Value| -> Vec<Statement> {
        names
            .as_array()
            .unwrap()
            .iter()
            .map(|n| by_name[n.as_str().unwrap()].clone())
            .collect()
    };
    for set in v["sets"].as_array().unwrap() {
        let st = named(&set["statements"]);
        let got = contradiction(&st, &chains).map(|c| c.name());
        assert_eq!(got, set["contradiction"].as_str(), "{set}");
    }
    for case in v["lateness"].as_array().unwrap() {
        use sealed_protocol::ids::{ChainId, LogId, Seat};
        use sealed_protocol::witness::Head;
        let st = named(&case["statements"]);
        let heads = |key: &str| -> Vec<Head> {
            case[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| Head {
                    chain: ChainId {
                        log: LogId(num(&k["log"]) as u32),
                        seat: Seat(num(&k["seat"]) as u8),
                    },
                    count: num(&k["count"]),
                    head: sealed_protocol::hash::Hash(b32(&k["head"])),
                })
                .collect()
        };
        let got = sealed_protocol::lateness::late(
            &st,
            &heads("starts"),
            &heads("known"),
            Seat(num(&case["accused"]) as u8),
            num(&case["allowance_ms"]),
            &chains,
        );
        let r = &case["result"];
        match got {
            Ok(l) => assert_eq!(
                (l.since, l.deadline, l.ledger),
                (num(&r["since"]), num(&r["deadline"]), num(&r["ledger"])),
                "{case}"
            ),
            Err(e) => assert_eq!(Some(e.name()), r["error"].as_str(), "{case}"),
        }
    }
    // The deposit: recomputed from the envelope and the recipient's key, and opened.
    let d = &v["deposit"];
    let recipient = SecretKey::from_seed(&b32(&d["recipient_secret_seed"]));
    assert_eq!(recipient.public().to_bytes(), b32(&d["recipient_public"]));
    let sealed =
        sealed_protocol::deposit::seal(chains.game, &bytes(&d["envelope"]), &recipient.public());
    assert_eq!(sealed.bytes, bytes(&d["bytes"]));
    assert_eq!(sealed.hash.0, b32(&d["hash"]));
    assert_eq!(
        sealed_protocol::deposit::open(chains.game, &sealed.bytes, &recipient),
        Some(bytes(&d["envelope"]))
    );
}
