//! Fuzzing only — the `fuzz-memo` feature, which `fuzz/Cargo.toml` turns on and nothing
//! else does: strict verification and signing answered once per thread for the same
//! bytes.
//!
//! Why: the slow fuzz targets (`transcript`, `session`, `core_sync`) spend most of their
//! time in ed25519-dalek's arithmetic on bytes the input left as they were — a seed
//! transcript's hundreds of envelopes, which a mutation of one byte leaves signed as
//! before — and so reach a few hundred inputs a second (docs/RELIABILITY.md). Both
//! functions are pure: the same key, signature and message always give the same answer,
//! and a secret key and message always the same signature (RFC 8032 signing is
//! deterministic). Answering them from memory therefore leaves every state of sealed's
//! own code the same, for every input; bytes a mutation changed are new, and verified or
//! signed for real. What the memory holds is keyed by SHA-256 of the exact bytes, and it
//! is emptied when it reaches [`CAP`] entries, so a long run's memory stays bounded.

// The guarantee that no build verifies for real through this memory: cargo-fuzz sets
// `--cfg fuzzing`, and nothing else may turn the feature on.
#[cfg(all(feature = "fuzz-memo", not(fuzzing)))]
compile_error!("the fuzz-memo feature is for fuzz builds only (cargo fuzz sets --cfg fuzzing)");

use std::cell::RefCell;
use std::collections::HashMap;
use std::thread::LocalKey;

use sha2::{Digest as _, Sha256};

/// Entries each memory keeps before it is emptied (about 100 bytes each).
const CAP: usize = 1 << 18;

/// A memory of answers of one kind, by the key of the bytes asked.
type Memory<T> = RefCell<HashMap<[u8; 32], T>>;

thread_local! {
    static VERIFIED: Memory<bool> = RefCell::new(HashMap::new());
    static SIGNED: Memory<[u8; 64]> = RefCell::new(HashMap::new());
}

/// SHA-256 of each part with its length, so no two questions share a key.
fn key(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.finalize().into()
}

/// The answer `memory` keeps for `key`, or `work`'s, kept.
fn once<T: Copy + 'static>(
    memory: &'static LocalKey<Memory<T>>,
    key: [u8; 32],
    work: impl FnOnce() -> T,
) -> T {
    if let Some(kept) = memory.with(|m| m.borrow().get(&key).copied()) {
        return kept;
    }
    let answer = work();
    memory.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= CAP {
            m.clear();
        }
        m.insert(key, answer);
    });
    answer
}

/// Whether `sig` verifies over `message` under the key of bytes `public`, by `check`
/// the first time these bytes are asked.
pub(crate) fn verified(
    public: &[u8; 32],
    sig: &[u8; 64],
    message: &[u8],
    check: impl FnOnce() -> bool,
) -> bool {
    once(&VERIFIED, key(&[public, sig, message]), check)
}

/// The signature of `message` by the secret key of bytes `secret`, by `sign` the first
/// time these bytes are asked.
pub(crate) fn signed(
    secret: &[u8; 32],
    message: &[u8],
    sign: impl FnOnce() -> [u8; 64],
) -> [u8; 64] {
    once(&SIGNED, key(&[secret, message]), sign)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn an_answer_is_computed_once_for_the_same_bytes_and_anew_for_others() {
        let calls = Cell::new(0);
        let check = |ok| {
            calls.set(calls.get() + 1);
            ok
        };
        let (public, sig) = ([1; 32], [2; 64]);
        assert!(verified(&public, &sig, b"m", || check(true)));
        // Kept: the same bytes are not checked again, whatever the check would say.
        assert!(verified(&public, &sig, b"m", || check(false)));
        assert_eq!(calls.get(), 1);
        // A byte changed anywhere is a new question.
        let mut other = sig;
        other[63] ^= 1;
        assert!(!verified(&public, &other, b"m", || check(false)));
        assert!(!verified(&[3; 32], &sig, b"m", || check(false)));
        assert!(!verified(&public, &sig, b"n", || check(false)));
        // The empty message is a question of its own.
        assert!(!verified(&public, &sig, b"", || check(false)));
        assert_eq!(calls.get(), 5);
        // Signing and verifying never share an answer.
        assert_eq!(signed(&public, b"m", || [9; 64]), [9; 64]);
        assert_eq!(signed(&public, b"m", || [8; 64]), [9; 64]);
    }

    #[test]
    fn the_memory_is_emptied_at_its_cap() {
        for i in 0..CAP as u64 + 1 {
            verified(&[0; 32], &[0; 64], &i.to_le_bytes(), || true);
        }
        assert_eq!(VERIFIED.with(|m| m.borrow().len()), 1);
    }

    #[test]
    fn keys_verify_and_sign_as_without_it() {
        // The real functions through the memory, as a fuzz build calls them.
        let sk = ed25519_dalek::SigningKey::from_bytes(&[5; 32]);
        let pk = sk.verifying_key();
        let sign = || ed25519_dalek::Signer::sign(&sk, b"msg").to_bytes();
        let sig = signed(sk.as_bytes(), b"msg", sign);
        assert_eq!(sig, sign());
        let check = |sig: [u8; 64], m: &[u8]| {
            pk.verify_strict(m, &ed25519_dalek::Signature::from_bytes(&sig))
                .is_ok()
        };
        assert!(verified(pk.as_bytes(), &sig, b"msg", || check(sig, b"msg")));
        let mut bad = sig;
        bad[0] ^= 1;
        assert!(!verified(pk.as_bytes(), &bad, b"msg", || check(
            bad, b"msg"
        )));
        assert!(verified(pk.as_bytes(), &sig, b"msg", || check(sig, b"msg")));
    }
}
