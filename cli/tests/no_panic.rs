//! Whatever bytes `sealed verify` is given, it answers with one of its exit codes and
//! never panics (a panic exits 101).

mod common;

use common::{TempDir, code, sealed, stderr, verified, verified_file};
use proptest::prelude::*;
use proptest::sample::Index;

/// Each case starts a process; 64 cases keep the suite quick.
fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 64,
        ..ProptestConfig::default()
    }
}

fn verify_bytes(bytes: &[u8]) -> (i32, String) {
    let dir = TempDir::new("fuzz");
    let f = dir.write("case", bytes);
    let out = sealed(&["verify", &f]);
    (code(&out), stderr(&out))
}

/// One byte-level change to a file.
#[derive(Clone, Debug)]
enum Edit {
    Set(Index, u8),
    Insert(Index, u8),
    Remove(Index),
    Truncate(Index),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Edit::Set(i, b)),
        (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Edit::Insert(i, b)),
        any::<Index>().prop_map(Edit::Remove),
        any::<Index>().prop_map(Edit::Truncate),
    ]
}

fn apply(bytes: &mut Vec<u8>, e: &Edit) {
    if bytes.is_empty() {
        return;
    }
    match e {
        Edit::Set(i, b) => {
            let i = i.index(bytes.len());
            bytes[i] = *b;
        }
        Edit::Insert(i, b) => bytes.insert(i.index(bytes.len() + 1), *b),
        Edit::Remove(i) => {
            bytes.remove(i.index(bytes.len()));
        }
        Edit::Truncate(i) => bytes.truncate(i.index(bytes.len())),
    }
}

/// One change to the transcript's structure: the container stays readable, so the
/// check reaches the signatures, the chains and the rules.
#[derive(Clone, Debug)]
enum Shuffle {
    Drop(Index),
    Duplicate(Index),
    Swap(Index, Index),
    EditEnvelope(Index, Edit),
}

fn shuffle() -> impl Strategy<Value = Shuffle> {
    prop_oneof![
        any::<Index>().prop_map(Shuffle::Drop),
        any::<Index>().prop_map(Shuffle::Duplicate),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Shuffle::Swap(a, b)),
        (any::<Index>(), edit()).prop_map(|(i, e)| Shuffle::EditEnvelope(i, e)),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_bytes_are_unreadable(
        bytes in prop::collection::vec(any::<u8>(), 0..2048),
        magic in any::<bool>(),
    ) {
        let bytes = if magic {
            [&b"sealed\x00\x01"[..], &bytes].concat()
        } else {
            bytes
        };
        let (c, err) = verify_bytes(&bytes);
        prop_assert_eq!(c, 2, "{}", err);
    }

    #[test]
    fn mutated_transcripts_never_panic(edits in prop::collection::vec(edit(), 1..6)) {
        let mut bytes = verified().to_vec();
        for e in &edits {
            apply(&mut bytes, e);
        }
        let (c, err) = verify_bytes(&bytes);
        prop_assert!([0, 1, 2, 3].contains(&c), "exit {}: {}", c, err);
    }

    #[test]
    fn reshuffled_transcripts_never_panic(shuffles in prop::collection::vec(shuffle(), 1..6)) {
        let mut f = verified_file();
        let mut edited = false;
        for s in &shuffles {
            let n = f.envelopes.len();
            if n == 0 {
                break;
            }
            match s {
                Shuffle::Drop(i) => {
                    f.envelopes.remove(i.index(n));
                }
                Shuffle::Duplicate(i) => {
                    let e = f.envelopes[i.index(n)].clone();
                    f.envelopes.push(e);
                }
                Shuffle::Swap(a, b) => f.envelopes.swap(a.index(n), b.index(n)),
                Shuffle::EditEnvelope(i, e) => {
                    apply(&mut f.envelopes[i.index(n)], e);
                    edited = true;
                }
            }
        }
        let (c, err) = verify_bytes(&f.to_bytes());
        prop_assert!([0, 1, 2, 3].contains(&c), "exit {}: {}", c, err);
        if !edited {
            // Honest envelopes, however reordered, repeated or thinned out, prove
            // nothing against anyone and are all validly signed.
            prop_assert!(c == 0 || c == 3, "exit {}: {}", c, err);
        }
    }
}
