//! `sealed verify` on Secret Stallmate without a referee (spec/GAMES.md §5.15): the
//! transcript of a game the two players computed alone verifies (exit 0), and one in
//! which a player signed the hash of a message his seed does not make is a proven fault
//! against him (exit 1). Those games are played by two in-memory sessions passing the
//! computations' messages (tests/src/duo_kit.rs), where a cheat can be rigged; `sealed
//! demo stallmate --no-referee` plays one between three real nodes, two players and a
//! witness, and verifies it (exit 0); `--no-referee` with another game is refused.

mod common;

use common::{code, stdout};
use sealed_conformance::duo_kit::play;
use sealed_protocol::ids::Seat;

fn verify(bytes: &[u8], name: &str) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    let out = common::sealed(&["verify", path.to_str().unwrap()]);
    (
        code(&out),
        format!("{}{}", stdout(&out), common::stderr(&out)),
    )
}

#[test]
fn a_game_without_a_referee_verifies_and_a_cheat_in_it_is_proven() {
    let (p, _) = play(6, 31, |_| {});
    for seat in [Seat(0), Seat(1)] {
        let (c, text) = verify(&p.transcript(seat), "duo.sealed");
        assert_eq!(c, 0, "{text}");
        assert!(text.contains("stallmate-duo"), "{text}");
    }
    // White changes a row of the third computation's garbled circuit: its G1 is message
    // 2 + 4 * 2 + 1 = 11 (two base messages, then four a computation).
    let (p, _) = play(6, 31, |t| {
        t.tamper = Box::new(|i, bytes| {
            if i == 11 {
                let n = bytes.len();
                bytes[n - 40] ^= 0x10;
            }
        })
    });
    let (c, text) = verify(&p.transcript(Seat(1)), "cheat.sealed");
    assert_eq!(c, 1, "{text}");
    assert!(text.contains("message 11"), "{text}");
}

#[test]
fn the_demo_without_a_referee_plays_between_nodes_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("duo.sealed");
    let out = common::sealed(&[
        "demo",
        "stallmate",
        "--no-referee",
        "-o",
        "ply-limit=2",
        "--out",
        out_file.to_str().unwrap(),
    ]);
    let text = format!("{}{}", stdout(&out), common::stderr(&out));
    assert_eq!(code(&out), 0, "{text}");
    assert!(text.contains("stallmate-duo"), "{text}");
    assert!(text.contains("exit 0"), "{text}");
    let (c, text) = verify(&std::fs::read(&out_file).unwrap(), "again.sealed");
    assert_eq!(c, 0, "{text}");
    let refused = common::sealed(&["demo", "chex", "--no-referee"]);
    assert_eq!(code(&refused), 2);
    assert!(common::stderr(&refused).contains("--no-referee is for stallmate"));
}
