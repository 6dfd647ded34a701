//! The floor every verification bench compares with: one strict Ed25519 verification
//! per envelope of a transcript, over exactly the bytes the protocol signs.

use ed25519_dalek::{Signature, VerifyingKey};

use sealed_conformance::sim::test_key;
use sealed_protocol::envelope::Envelope;
use sealed_protocol::hash::tag;
use sealed_protocol::transcript::TranscriptFile;

/// A signature check made ready: key, signed message, signature.
pub type Check = (VerifyingKey, Vec<u8>, Signature);

/// The signature checks of every envelope of `file` (signed by the fixed test keys),
/// each verified once here so that a bench never times a failing check.
pub fn checks(file: &TranscriptFile) -> Vec<Check> {
    assert_eq!(tag::SIGN_ENVELOPE, "sealed/v1/sign/envelope");
    let game = sealed_protocol::proposal::Terms::parse(&file.proposal)
        .expect("terms")
        .game();
    file.envelopes
        .iter()
        .map(|travelling| {
            // What is signed is the whole envelope, the game id in it (version 2
            // leaves it out of the travelling bytes).
            let e = &*sealed_protocol::envelope::full_form(travelling, game);
            let env: Envelope = Envelope::decode(travelling, game).expect("envelope");
            let key = VerifyingKey::from_bytes(&test_key(env.unsigned.seat.0).public().to_bytes())
                .expect("a valid key");
            let (unsigned, sig) = e.split_at(e.len() - 64);
            let mut message = b"sealed/v1/sign/envelope\x00".to_vec();
            message.extend_from_slice(unsigned);
            let sig = Signature::from_slice(sig).expect("64 bytes");
            key.verify_strict(&message, &sig)
                .expect("a valid signature");
            (key, message, sig)
        })
        .collect()
}

/// How many distinct witness statements the envelopes of `file` post (forfeit and
/// statements items): each is one more signature a checker must verify, so with the
/// envelopes' they bound what checking the file can cost against [`checks`] alone.
#[allow(dead_code)] // not every bench that shares this module asks it
pub fn statements(file: &TranscriptFile) -> usize {
    use sealed_protocol::body::{Forfeit, Item};
    let game = sealed_protocol::proposal::Terms::parse(&file.proposal)
        .expect("terms")
        .game();
    let mut seen = std::collections::BTreeSet::new();
    for travelling in &file.envelopes {
        let env = Envelope::decode(travelling, game).expect("envelope");
        for item in &env.unsigned.body {
            if let Item::Forfeit(Forfeit { statements, .. }) | Item::Statements(statements) = item {
                seen.extend(statements.iter().cloned());
            }
        }
    }
    seen.len()
}

/// Runs every check.
pub fn verify_all(checks: &[Check]) {
    for (key, message, sig) in checks {
        key.verify_strict(std::hint::black_box(message), std::hint::black_box(sig))
            .expect("valid");
    }
}
