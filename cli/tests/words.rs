//! What a person reads when a command meets bad input from the opponent or the disk:
//! mail that is too large is refused at once, before the node sees a byte of it, and
//! says why. (More of issue 17's words are tested where their commands are: play.rs for
//! export and verify of a folder.)

mod common;

use common::{TempDir, at_home, code, stderr};

#[test]
fn mail_larger_than_any_game_is_refused_at_once() {
    let dir = TempDir::new("mail-bomb");
    let home = dir.path().join("h");
    assert_eq!(code(&at_home(&home, &["init", "--name", "h"])), 0);
    // No node runs: the refusal comes before the node is asked anything.

    // 40 MiB of text without a line break and without mail.
    let junk = dir.path().join("junk.txt");
    std::fs::write(&junk, vec![b'x'; 40 << 20]).unwrap();
    let out = at_home(&home, &["mail", "import", junk.to_str().unwrap()]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("more than 32 MiB of text"), "{}", stderr(&out));

    // One block whose base64 would decode to more than 8 MiB.
    let mut block = String::from("-----BEGIN SEALED MAIL-----\n");
    let line = "A".repeat(76) + "\n";
    while block.len() < 12 << 20 {
        block.push_str(&line);
    }
    block.push_str("-----END SEALED MAIL-----\n");
    let big = dir.path().join("big.txt");
    std::fs::write(&big, block).unwrap();
    let out = at_home(&home, &["mail", "import", big.to_str().unwrap()]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("more than 8 MiB"), "{}", stderr(&out));

    // A block left open, and text with no mail, say so.
    let open = dir.path().join("open.txt");
    std::fs::write(&open, "-----BEGIN SEALED MAIL-----\nAAAA\n").unwrap();
    let out = at_home(&home, &["mail", "import", open.to_str().unwrap()]);
    assert!(stderr(&out).contains("not closed"), "{}", stderr(&out));
    let none = dir.path().join("none.txt");
    std::fs::write(&none, "Dear opponent, my move is e4.\n").unwrap();
    let out = at_home(&home, &["mail", "import", none.to_str().unwrap()]);
    assert!(stderr(&out).contains("no sealed mail"), "{}", stderr(&out));
}
