//! `sealed verify` on single files and on directories, run as the real binary.

mod common;

use common::{
    TempDir, badly_signed, code, equivocating, false_accusation, forged_evidence, sealed, stderr,
    stdout, unfinished, unknown_variant, verified,
};
use serde_json::Value;

fn json(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON document")
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v
        .as_object()
        .expect("a JSON object")
        .keys()
        .map(String::as_str)
        .collect();
    k.sort_unstable();
    k
}

const FILE_KEYS: [&str; 9] = [
    "error",
    "exit",
    "file",
    "final",
    "players",
    "status",
    "unconfirmed_evidence",
    "unsigned",
    "verdict",
];

const VERDICT_KEYS: [&str; 14] = [
    "board",
    "claims",
    "complete",
    "declined",
    "envelopes",
    "faults",
    "game",
    "missing_reveals",
    "notes",
    "outcome",
    "status",
    "variant",
    "verified",
    "withdrawn",
];

#[test]
fn json_md_documents_every_key() {
    let doc = include_str!("../JSON.md");
    let fault = [
        "seat", "role", "at", "kind", "detail", "chain", "log", "seq",
    ];
    let claim = ["by", "against", "about", "evidence", "open"];
    let outcome = ["results", "reason"];
    for key in FILE_KEYS
        .iter()
        .chain(&VERDICT_KEYS)
        .chain(&fault)
        .chain(&claim)
        .chain(&outcome)
        .chain(&["files"])
    {
        assert!(
            doc.contains(&format!("`\"{key}\"`")),
            "JSON.md lacks {key:?}"
        );
    }
    for status in [
        "verified",
        "proven-fault",
        "invalid-content",
        "unreadable",
        "unconfirmed",
    ] {
        assert!(
            doc.contains(&format!("`\"{status}\"`")),
            "JSON.md lacks {status:?}"
        );
    }
}

#[test]
fn a_verified_transcript_exits_0() {
    let dir = TempDir::new("verified");
    let f = dir.write("game.sealed", verified());
    let out = sealed(&["verify", &f]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("variant     duel"), "{text}");
    assert!(text.contains("status      verified"), "{text}");
    assert!(text.contains("rounds taken"), "{text}");
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
}

#[test]
fn json_of_a_file_has_the_documented_shape() {
    let dir = TempDir::new("json-file");
    let f = dir.write("game.sealed", verified());
    let out = sealed(&["verify", "--json", &f]);
    assert_eq!(code(&out), 0);
    let v = json(&out);
    assert_eq!(keys(&v), FILE_KEYS);
    assert_eq!(v["file"], f.as_str());
    assert_eq!(v["exit"], 0);
    assert_eq!(v["status"], "verified");
    assert_eq!(v["final"], "final");
    assert_eq!(v["error"], Value::Null);
    assert_eq!(v["unsigned"], serde_json::json!([]));
    assert_eq!(v["unconfirmed_evidence"], serde_json::json!([]));
    let verdict = &v["verdict"];
    assert_eq!(keys(verdict), VERDICT_KEYS);
    assert_eq!(verdict["status"], "verified");
    assert_eq!(verdict["variant"], "duel");
    assert_eq!(verdict["complete"], true);
    assert_eq!(verdict["verified"], true);
    assert_eq!(verdict["declined"], false);
    let game = verdict["game"].as_str().expect("hex game id");
    assert!(
        game.len() == 64 && game.bytes().all(|b| b.is_ascii_hexdigit()),
        "{game}"
    );
    let outcome = &verdict["outcome"];
    assert_eq!(keys(outcome), ["reason", "results"]);
    for r in outcome["results"].as_array().expect("results") {
        assert!(["win", "loss", "draw"].contains(&r.as_str().expect("a string")));
    }
}

#[test]
fn json_of_an_unreadable_file_has_the_same_keys_and_an_error() {
    let dir = TempDir::new("json-error");
    let f = dir.write("junk", b"not a transcript");
    let out = sealed(&["verify", &f, "--json"]);
    assert_eq!(code(&out), 2);
    let v = json(&out);
    assert_eq!(keys(&v), FILE_KEYS);
    assert_eq!(v["exit"], 2);
    assert_eq!(v["status"], "unreadable");
    assert_eq!(v["final"], Value::Null);
    assert_eq!(v["verdict"], Value::Null);
    // Text given as a transcript is named as text (issue 32).
    let said = "this is a text file, not a sealed transcript";
    assert!(v["error"].as_str().expect("a message").contains(said));
    assert!(stderr(&out).contains(said));
}

#[test]
fn truncated_or_garbage_files_exit_2() {
    let dir = TempDir::new("garbage");
    let whole = verified();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![]),
        ("magic-only", whole[..8].to_vec()),
        ("half", whole[..whole.len() / 2].to_vec()),
        ("all-but-one", whole[..whole.len() - 1].to_vec()),
        ("trailing", [whole, &[0][..]].concat()),
        ("text", b"hello, this is not a transcript\n".to_vec()),
        ("bad-magic", [&b"sealed\x00\x02"[..], &whole[8..]].concat()),
    ];
    for (name, bytes) in cases {
        let f = dir.write(name, &bytes);
        let out = sealed(&["verify", &f]);
        assert_eq!(code(&out), 2, "{name}: {}", stderr(&out));
        assert!(stderr(&out).starts_with("sealed: "), "{name}");
        assert!(stdout(&out).is_empty(), "{name}");
    }
}

#[test]
fn a_missing_file_exits_2() {
    let dir = TempDir::new("missing");
    let f = dir.path().join("nothing-here");
    let out = sealed(&["verify", f.to_str().expect("UTF-8")]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("cannot open"), "{}", stderr(&out));
}

#[test]
fn an_unknown_variant_exits_2() {
    let dir = TempDir::new("unknown");
    let f = dir.write("future.sealed", &unknown_variant());
    let out = sealed(&["verify", &f]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("unknown variant \"chess-of-the-future\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bytes_not_validly_signed_exit_2_with_a_verdict() {
    let dir = TempDir::new("unsigned");
    let f = dir.write("forged.sealed", &badly_signed());
    let out = sealed(&["verify", &f]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("not validly signed (1)"),
        "{}",
        stdout(&out)
    );
    let out = sealed(&["verify", "--json", &f]);
    let v = json(&out);
    assert_eq!(v["status"], "invalid-content");
    assert_eq!(v["unsigned"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["error"], Value::Null);
}

#[test]
fn evidence_that_does_not_check_exits_2() {
    let dir = TempDir::new("evidence");
    for (name, bytes, why) in [
        (
            "forged",
            forged_evidence(),
            "an envelope of the proof is not validly signed",
        ),
        (
            "false",
            false_accusation(),
            "the replay does not find illegal-act there",
        ),
    ] {
        let f = dir.write(name, &bytes);
        let out = sealed(&["verify", &f]);
        assert_eq!(code(&out), 2, "{name}: {}", stdout(&out));
        let text = stdout(&out);
        assert!(text.contains("status      invalid-content\n"), "{text}");
        assert!(text.contains("1 evidence entries do not check"), "{text}");
        let v = json(&sealed(&["verify", "--json", &f]));
        assert_eq!(v["exit"], 2);
        assert_eq!(v["status"], "invalid-content");
        assert_eq!(v["verdict"]["status"], "verified", "{name}");
        assert_eq!(
            v["unconfirmed_evidence"],
            serde_json::json!([format!("evidence 0: {why}")])
        );
    }
}

#[test]
fn an_equivocation_proven_in_the_evidence_section_exits_1() {
    use sealed_protocol::proof::Proof;
    use sealed_protocol::transcript::{Evidence, TranscriptFile};
    let mut f = TranscriptFile::from_bytes(&equivocating()).expect("readable");
    let twin = f.envelopes.pop().expect("the twin is last");
    let game = sealed_protocol::proposal::Terms::parse(&f.proposal)
        .expect("terms")
        .game();
    let first = f
        .envelopes
        .iter()
        .find(|e| {
            sealed_protocol::envelope::Envelope::decode(e, game)
                .is_ok_and(|e| e.unsigned.seat.0 == 0 && e.unsigned.seq == 2)
        })
        .expect("the original")
        .clone();
    f.evidence.push(Evidence::Chain(Proof::Equivocation {
        first,
        second: twin,
    }));
    let dir = TempDir::new("evidence-fault");
    let p = dir.write("proof.sealed", &f.to_bytes());
    let out = sealed(&["verify", &p]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("seq 2: equivocation"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn an_unfinished_transcript_exits_3() {
    let dir = TempDir::new("unfinished");
    let f = dir.write("cut.sealed", &unfinished());
    let out = sealed(&["verify", &f]);
    assert_eq!(code(&out), 3, "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("status      unconfirmed\n"), "{text}");
    assert!(text.contains("complete    no\n"), "{text}");
    assert!(text.contains("final       no: "), "{text}");
    assert!(text.contains("two-step close"), "{text}");
}

/// A result is final when nothing a seat can still sign changes it; a loss on time is
/// final unless the witness is shown to have contradicted itself (spec §10.5).
#[test]
fn verify_says_whether_the_result_is_final() {
    let vectors = concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/vectors/");
    for (file, word, line) in [
        ("duel-game.sealed", "final", "final       yes: "),
        (
            "forfeit-game.sealed",
            "unless-witness",
            "final       yes, unless the witness",
        ),
        (
            "stallmate-forfeit-game.sealed",
            "unless-witness",
            "final       yes, unless the witness",
        ),
    ] {
        let f = format!("{vectors}{file}");
        let out = sealed(&["verify", &f]);
        assert_eq!(code(&out), 0, "{}", stdout(&out));
        assert!(stdout(&out).contains(line), "{file}: {}", stdout(&out));
        let out = sealed(&["verify", "--json", &f]);
        let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(v["final"], word, "{file}");
    }
}

#[test]
fn an_equivocation_exits_1_and_names_the_fault() {
    let dir = TempDir::new("fault");
    let f = dir.write("fork.sealed", &equivocating());
    let out = sealed(&["verify", &f]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let text = stdout(&out);
    assert!(
        text.contains("seat 0 (player), chain seat 0 of log 0, seq 2: equivocation: "),
        "{text}"
    );
    let v = json(&sealed(&["verify", "--json", &f]));
    assert_eq!(v["status"], "proven-fault");
    let fault = &v["verdict"]["faults"][0];
    assert_eq!(keys(fault), ["at", "detail", "kind", "role", "seat"]);
    assert_eq!(fault["seat"], 0);
    assert_eq!(fault["role"], "player");
    assert_eq!(fault["at"]["seq"], 2);
    assert_eq!(fault["at"]["chain"]["seat"], 0);
    assert_eq!(fault["at"]["chain"]["log"], 0);
    assert_eq!(fault["kind"], "equivocation");
    // Forking one's own chain must not make the honest seat look guilty.
    for f in v["verdict"]["faults"].as_array().expect("faults") {
        assert_eq!(f["seat"], 0, "{f}");
    }
    assert_eq!(v["verdict"]["outcome"]["results"][1], "win");
}

#[test]
fn a_proven_fault_stands_beside_unsigned_bytes() {
    let mut f =
        sealed_protocol::transcript::TranscriptFile::from_bytes(&equivocating()).expect("readable");
    f.envelopes.push(b"certainly not an envelope".to_vec());
    let dir = TempDir::new("fault-and-junk");
    let p = dir.write("both.sealed", &f.to_bytes());
    let out = sealed(&["verify", &p]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(stdout(&out).contains("not validly signed (1)"));
}

/// Named file contents to put in a folder.
type Files<'a> = Vec<(&'a str, Vec<u8>)>;

/// Writes the named kinds of file into a fresh folder and verifies it.
fn verify_dir(label: &str, files: &[(&str, Vec<u8>)], json: bool) -> std::process::Output {
    let dir = TempDir::new(label);
    for (name, bytes) in files {
        dir.write(name, bytes);
    }
    let mut args = vec!["verify", dir.arg()];
    if json {
        args.push("--json");
    }
    sealed(&args)
}

#[test]
fn a_directory_exits_with_its_worst_file() {
    let ok = ("a-ok.sealed", verified().to_vec());
    let open = ("b-open.sealed", unfinished());
    let junk = ("c-junk.sealed", b"garbage".to_vec());
    let future = ("d-future.sealed", unknown_variant());
    let fork = ("e-fork.sealed", equivocating());
    let cases: Vec<(Files, i32)> = vec![
        (vec![ok.clone()], 0),
        (vec![ok.clone(), open.clone()], 3),
        (vec![ok.clone(), open.clone(), junk.clone()], 2),
        (vec![ok.clone(), future.clone()], 2),
        (
            vec![fork.clone(), ok.clone(), open.clone(), junk.clone()],
            1,
        ),
        (vec![open.clone(), fork.clone(), future.clone()], 1),
    ];
    for (i, (files, want)) in cases.iter().enumerate() {
        let out = verify_dir(&format!("dir{i}"), files, false);
        assert_eq!(code(&out), *want, "case {i}: {}", stdout(&out));
        let text = stdout(&out);
        let header = text.lines().next().expect("a table");
        for col in ["FILE", "VARIANT", "STATUS", "RESULT", "EXIT"] {
            assert!(header.contains(col), "{header}");
        }
        for (name, _) in files {
            assert!(text.contains(name), "case {i}: {name} missing from {text}");
        }
        assert!(
            text.contains(&format!("checked {}: ", files.len())),
            "case {i}: {text}"
        );
    }
}

#[test]
fn json_of_a_directory_has_the_documented_shape() {
    let files = vec![
        ("a.sealed", verified().to_vec()),
        ("b.sealed", unfinished()),
        ("c.sealed", b"junk".to_vec()),
    ];
    let out = verify_dir("json-dir", &files, true);
    assert_eq!(code(&out), 2);
    let v = json(&out);
    assert_eq!(keys(&v), ["exit", "files"]);
    assert_eq!(v["exit"], 2);
    let entries = v["files"].as_array().expect("files");
    assert_eq!(entries.len(), 3);
    let exits: Vec<i64> = entries
        .iter()
        .map(|e| e["exit"].as_i64().expect("exit"))
        .collect();
    assert_eq!(exits, [0, 3, 2], "sorted by name");
    let statuses: Vec<&str> = entries
        .iter()
        .map(|e| e["status"].as_str().expect("status"))
        .collect();
    assert_eq!(statuses, ["verified", "unconfirmed", "unreadable"]);
    for e in entries {
        assert_eq!(keys(e), FILE_KEYS);
    }
}

#[test]
fn hidden_files_and_subfolders_are_skipped() {
    let dir = TempDir::new("hidden");
    dir.write("game.sealed", verified());
    dir.write(".junk", b"garbage");
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    std::fs::write(dir.path().join("sub").join("junk"), b"garbage").expect("write");
    let out = sealed(&["verify", dir.arg()]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("checked 1: 1 verified"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn an_empty_directory_is_nothing_checked_exit_2() {
    // Exit 0 would be a false success: nothing was verified (issue 32).
    let dir = TempDir::new("empty");
    let out = sealed(&["verify", "--json", dir.arg()]);
    assert_eq!(code(&out), 2);
    assert_eq!(json(&out), serde_json::json!({"exit": 2, "files": []}));
    assert!(
        stderr(&out).contains("nothing to check"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_directory_reports_unreadable_files_on_stderr() {
    let files = vec![("a.sealed", verified().to_vec()), ("b", b"x".to_vec())];
    let out = verify_dir("dir-stderr", &files, false);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.contains("b: this is a text file, not a sealed transcript"),
        "{err}"
    );
    assert!(!err.contains("a.sealed"), "{err}");
}

#[test]
fn the_spec_vectors_verify_and_a_cardmate_bot_game_too() {
    for file in [
        "duel-game.sealed",
        "cardmate-game.sealed",
        "chex-game.sealed",
    ] {
        let path = format!("{}/../spec/vectors/{file}", env!("CARGO_MANIFEST_DIR"));
        let out = sealed(&["verify", &path]);
        assert_eq!(code(&out), 0, "{file}: {}", stdout(&out));
    }
    // A fresh seeded Cardmate between bots, dealt by the coin, checked by the binary.
    use sealed_conformance::cardmate_kit::{cardmate_bot, cardmate_terms, random_setup};
    use sealed_conformance::sim::{NetConfig, Sim};
    let mut sim = Sim::new(
        cardmate_terms(&random_setup(300), 42),
        vec![cardmate_bot(), cardmate_bot()],
        NetConfig::perfect(),
        42,
    );
    sim.run(100_000_000);
    let dir = TempDir::new("verify-cardmate");
    let f = dir.write("game.sealed", &sim.transcripts()[0]);
    let out = sealed(&["verify", "--json", &f]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    let v = json(&out);
    assert_eq!(v["verdict"]["variant"], "cardmate");
    assert_eq!(
        serde_json::to_value(sim.sessions[0].verdict()).unwrap(),
        v["verdict"],
        "the binary reproduces the live verdict"
    );
}
