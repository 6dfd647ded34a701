//! `sealed demo VARIANT` keeps its transcript, as the README's first game says: a file in
//! the current folder named for the variant, named on the demo's last line with the
//! command that checks it; `sealed verify` on that file exits 0; and a file of that name
//! already there is left alone (the demo takes the next free name). The Duel is the
//! demo's fastest game.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{TempDir, code, stderr, stdout};

/// `sealed ARGS` run in `dir`.
fn sealed_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sealed"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

/// The file the demo's last line names, after checking that line's command.
fn saved(out: &Output) -> String {
    let text = stdout(out);
    let last = text.lines().last().unwrap_or_default();
    let rest = last
        .strip_prefix("saved     ")
        .unwrap_or_else(|| panic!("the last line names no file: {text}"));
    let (file, command) = rest
        .split_once("; check it with: ")
        .unwrap_or_else(|| panic!("no command to check it: {last}"));
    assert_eq!(command, format!("sealed verify {file}"), "{last}");
    file.to_owned()
}

#[test]
fn the_demo_writes_its_transcript_where_it_says_and_never_over_a_file() {
    let dir = TempDir::new("demo-out");
    let out = sealed_in(dir.path(), &["demo", "duel"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let file = saved(&out);
    assert_eq!(file, "sealed-demo-duel.sealed");
    let first = std::fs::read(dir.path().join(&file)).expect("the file it names");
    let verified = sealed_in(dir.path(), &["verify", &file]);
    assert_eq!(code(&verified), 0, "{}", stdout(&verified));

    // Again: the first file stays as it was, the second game goes to the next name.
    let out = sealed_in(dir.path(), &["demo", "duel"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let second = saved(&out);
    assert_eq!(second, "sealed-demo-duel-2.sealed");
    assert_eq!(std::fs::read(dir.path().join(&file)).unwrap(), first);
    let verified = sealed_in(dir.path(), &["verify", &second]);
    assert_eq!(code(&verified), 0, "{}", stdout(&verified));
}
