//! `sealed verify` through the conformance runner (spec/PROTOCOL.md §13.3), like any other
//! verifier: every case of spec/vectors/ agrees on its exit code, its faults and its
//! results. And the runner can fail: a "verifier" that says 0 to everything disagrees
//! wherever a case expects another code.

use sealed_conformance::conformance::{CASE_TIMEOUT, cases, run_all, vectors_dir};

fn scratch(tag: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("sealed-conformance-{tag}-{}", std::process::id()))
}

#[test]
fn sealed_verify_agrees_with_every_case_of_the_suite() {
    let dir = scratch("sealed");
    let command = vec![
        env!("CARGO_BIN_EXE_sealed").to_owned(),
        "verify".into(),
        "--json".into(),
    ];
    let rows =
        run_all(&vectors_dir(), &command, true, &dir, CASE_TIMEOUT).expect("the runner runs");
    let _ = std::fs::remove_dir_all(&dir);
    let differ: Vec<String> = rows
        .iter()
        .filter_map(|r| Some(format!("{}: {}", r.name, r.differs.as_ref()?)))
        .collect();
    assert!(differ.is_empty(), "{differ:#?}");
    // Every complete game, every twin and every reject vector is a case.
    assert!(rows.len() >= 71, "{} cases", rows.len());
}

#[test]
fn a_verifier_that_accepts_everything_disagrees() {
    let dir = scratch("true");
    let rows = run_all(
        &vectors_dir(),
        &["true".to_owned()],
        false,
        &dir,
        CASE_TIMEOUT,
    )
    .expect("runs");
    let _ = std::fs::remove_dir_all(&dir);
    let expect_nonzero = cases(&vectors_dir())
        .expect("the cases")
        .iter()
        .filter(|c| c.exit != 0)
        .count();
    let differ = rows.iter().filter(|r| r.differs.is_some()).count();
    assert!(expect_nonzero > 40, "{expect_nonzero}");
    assert_eq!(differ, expect_nonzero);
}
