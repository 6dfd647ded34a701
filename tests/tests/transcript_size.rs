//! The transcript-size accounting (issue 34, `transcript_size.rs`): every reference
//! transcript's bytes are attributed exactly, envelope by envelope and for the whole
//! file, and one vector's figures are pinned so that a change in the wire or in the
//! accounting shows here.

use sealed_conformance::transcript_size::{
    FileSize, Split, VECTORS, measure, split_envelope, verdict_line,
};
use sealed_protocol::ids::Seat;
use sealed_protocol::transcript::TranscriptFile;

fn vector(name: &str) -> Vec<u8> {
    let path = format!("{}/../spec/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn measured(name: &str) -> (Vec<u8>, FileSize) {
    let bytes = vector(name);
    let size = measure(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    (bytes, size)
}

#[test]
fn every_reference_transcript_adds_up_to_its_file() {
    for name in VECTORS.iter().chain(&["stallmate-forfeit-game.sealed"]) {
        let (bytes, size) = measured(name);
        assert_eq!(size.sum(), bytes.len(), "{name}");
        assert_eq!(size.total, bytes.len(), "{name}");
        let file = TranscriptFile::from_bytes(&bytes).expect("readable");
        let terms = sealed_protocol::proposal::Terms::parse(&file.proposal).expect("terms");
        // A version 2 envelope travels without its game id (spec/PROTOCOL.md §1.6).
        let game_id = if terms.version() == sealed_protocol::proposal::VERSION {
            32
        } else {
            0
        };
        let mut whole = Split::default();
        for e in &file.envelopes {
            let (_, s, items) =
                split_envelope(e, terms.game()).unwrap_or_else(|err| panic!("{name}: {err}"));
            assert_eq!(s.total(), e.len(), "{name}");
            assert_eq!(s.signatures, 64, "{name}");
            assert_eq!(s.game_id, game_id, "{name}");
            assert_eq!(s.prev_hashes, 32, "{name}");
            assert_eq!(items.values().sum::<usize>(), s.bodies, "{name}");
            whole.signatures += s.signatures;
            whole.bodies += s.bodies;
        }
        let (setup, play) = (&size.setup, &size.play);
        assert_eq!(
            setup.envelopes + play.envelopes,
            file.envelopes.len(),
            "{name}"
        );
        assert_eq!(
            setup.split.total() + play.split.total(),
            file.envelopes.iter().map(Vec::len).sum::<usize>(),
            "{name}"
        );
        assert_eq!(
            setup.split.signatures + play.split.signatures,
            whole.signatures,
            "{name}"
        );
        assert_eq!(
            setup.split.bodies + play.split.bodies,
            whole.bodies,
            "{name}"
        );
        assert_eq!(size.proposal, file.proposal.len(), "{name}");
        assert!(size.plies > 0, "{name}: a reference game has plies");
        assert!(setup.envelopes > 0, "{name}: and a set-up");
    }
}

/// The reference Duel's figures, pinned: a changed figure is a changed wire, a changed
/// vector or a changed accounting, each to be read and said.
#[test]
fn the_reference_duel_is_measured_as_before() {
    let (_, size) = measured("duel-game.sealed");
    let first = size.first_act.expect("a first act");
    assert_eq!(
        (first.chain.seat, first.chain.log.0, first.seq),
        GOLDEN_FIRST
    );
    let got = (
        size.total,
        size.magic,
        size.container,
        size.proposal,
        size.plies,
        size.setup.envelopes,
        size.play.envelopes,
    );
    assert_eq!(got, GOLDEN_FILE);
    assert_eq!(size.setup.split, GOLDEN_SETUP);
    assert_eq!(size.play.split, GOLDEN_PLAY);
    assert_eq!(verdict_line("duel-game.sealed", &size), GOLDEN_LINE);
}

/// The tool reads every reference transcript and prints one verdict line per file.
#[test]
fn the_tool_prints_every_reference_transcript() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_transcript-size"))
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in VECTORS {
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("{name}: ")) && l.contains("B per ply of play")),
            "{name} in\n{text}"
        );
    }
    assert_eq!(text.matches("goal <= 200 B/ply").count(), 4, "{text}");
    // The goal is met by both version 2 references.
    for name in ["tempete-v2-game.sealed", "cardmate-v2-game.sealed"] {
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("{name}: ")) && l.contains(": met,")),
            "{name} in\n{text}"
        );
    }
}

const GOLDEN_FIRST: (Seat, u32, u64) = (Seat(1), 0, 2);
const GOLDEN_FILE: (usize, usize, usize, usize, usize, usize, usize) =
    (8069, 8, 72, 194, 18, 4, 30);
const GOLDEN_SETUP: Split = Split {
    signatures: 256,
    prev_hashes: 128,
    ack_hashes: 64,
    commit_hashes: 704,
    acks: 6,
    bodies: 209,
    game_id: 128,
    clock: 4,
    framing: 24,
};
const GOLDEN_PLAY: Split = Split {
    signatures: 1920,
    prev_hashes: 960,
    ack_hashes: 960,
    commit_hashes: 0,
    acks: 90,
    bodies: 1172,
    game_id: 960,
    clock: 30,
    framing: 180,
};
const GOLDEN_LINE: &str = "duel-game.sealed: 348.4 B per ply of play; (the goal of 200 B/ply is set for Tempête and Cardmate only)";
