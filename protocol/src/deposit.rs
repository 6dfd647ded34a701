//! Deposits (protocol version 2, spec/PROTOCOL.md §17, "deposits"): a private-log
//! envelope left with the witness for the one other seat of its log's audience,
//! encrypted to that seat's key, so that the witness's stamp of the deposit proves the
//! envelope was there for the recipient to fetch from that time on — while the witness
//! never reads it.
//!
//! Everything is recomputable by anyone who later holds the envelope (the private logs
//! are published after the end): the ephemeral secret is a hash of the envelope's own
//! bytes, so the deposit of an envelope to a recipient is one fixed byte string, and a
//! verifier checks a stamp against the envelope it is said to carry without any secret.
//! A deposit that does not decrypt to a well-formed one is nobody's proof: the recipient
//! drops it, and no envelope's recomputed deposit has its hash.
//!
//! The secrecy rests on X25519 between the sender's ephemeral key and the recipient's
//! Ed25519 key in Montgomery form (the same key pair for both uses, as in
//! eprint 2021/509), and on the envelope's 64 signature bytes, which nobody can guess to
//! confirm a guess of the rest.

use chacha20::ChaCha20;
use chacha20::cipher::{KeyIvInit, StreamCipher};
use curve25519_dalek::montgomery::MontgomeryPoint;

use crate::hash::{Framed, Hash};
use crate::ids::GameId;
use crate::keys::{PublicKey, SecretKey};

/// Domain tag of the ephemeral secret (spec/PROTOCOL.md §2.2).
pub const TAG_KEY: &str = "sealed/v2/deposit-key";
/// Domain tag of the stream key.
pub const TAG_STREAM: &str = "sealed/v2/deposit-stream";
/// Domain tag of a deposit's hash, the one the witness stamps.
pub const TAG_DEPOSIT: &str = "sealed/v2/deposit";

/// The largest deposit: an envelope at its cap and the 32 bytes of the ephemeral key.
pub const MAX_DEPOSIT: usize = crate::wire::MAX_MESSAGE + 32;

/// A deposit's bytes: the ephemeral X25519 public key, then the envelope's bytes under
/// the ChaCha20 stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deposit {
    /// `ephemeral ‖ ciphertext`.
    pub bytes: Vec<u8>,
    /// `H("sealed/v2/deposit"; game, bytes)`: what the witness stamps.
    pub hash: Hash,
}

/// The hash of deposit bytes of `game`.
pub fn hash_of(game: GameId, bytes: &[u8]) -> Hash {
    Framed::new(TAG_DEPOSIT)
        .field(&game.0.0)
        .field(bytes)
        .finish()
}

fn stream_key(game: GameId, shared: &[u8; 32], ephemeral: &[u8; 32]) -> Hash {
    Framed::new(TAG_STREAM)
        .field(shared)
        .field(ephemeral)
        .field(&game.0.0)
        .finish()
}

fn apply_stream(key: &Hash, data: &mut [u8]) {
    let mut c = ChaCha20::new(&key.0.into(), &[0u8; 12].into());
    c.apply_keystream(data);
}

/// The deposit of the envelope `envelope` (its exact bytes) of `game` for `recipient`.
pub fn seal(game: GameId, envelope: &[u8], recipient: &PublicKey) -> Deposit {
    let secret = Framed::new(TAG_KEY)
        .field(&game.0.0)
        .field(envelope)
        .finish()
        .0;
    let ephemeral = MontgomeryPoint::mul_base_clamped(secret).to_bytes();
    let shared = recipient.x25519(secret);
    let mut bytes = Vec::with_capacity(32 + envelope.len());
    bytes.extend_from_slice(&ephemeral);
    bytes.extend_from_slice(envelope);
    apply_stream(&stream_key(game, &shared, &ephemeral), &mut bytes[32..]);
    let hash = hash_of(game, &bytes);
    Deposit { bytes, hash }
}

/// The envelope bytes a deposit of `game` carries for the holder of `key`, if it is
/// well formed: it decrypts, and sealing what it decrypts to gives the same bytes back
/// (so its ephemeral key is the one the envelope fixes). `None` otherwise.
pub fn open(game: GameId, bytes: &[u8], key: &SecretKey) -> Option<Vec<u8>> {
    open_within(game, bytes, key, MAX_DEPOSIT)
}

/// As [`open`], for a deposit of at most `max` bytes: a game whose own messages are
/// left with the witness (Secret Stallmate without a referee, spec/GAMES.md §5.15) seals
/// them the same way, and they are larger than an envelope.
pub fn open_within(game: GameId, bytes: &[u8], key: &SecretKey, max: usize) -> Option<Vec<u8>> {
    if bytes.len() <= 32 || bytes.len() > max {
        return None;
    }
    let ephemeral: [u8; 32] = bytes[..32].try_into().ok()?;
    let shared = MontgomeryPoint(ephemeral)
        .mul_clamped(key.scalar_bytes())
        .to_bytes();
    let mut envelope = bytes[32..].to_vec();
    apply_stream(&stream_key(game, &shared, &ephemeral), &mut envelope);
    let again = seal(game, &envelope, &key.public());
    (again.bytes == bytes).then_some(envelope)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> GameId {
        GameId(Hash([9; 32]))
    }

    #[test]
    fn the_recipient_opens_what_was_sealed_for_it_and_no_one_else_does() {
        let to = SecretKey::from_seed(&[1; 32]);
        let other = SecretKey::from_seed(&[2; 32]);
        let env = b"an envelope's bytes, signature and all".to_vec();
        let d = seal(game(), &env, &to.public());
        assert_eq!(d.bytes.len(), 32 + env.len());
        assert_ne!(&d.bytes[32..], &env[..], "the witness reads ciphertext");
        assert_eq!(open(game(), &d.bytes, &to), Some(env.clone()));
        assert_eq!(open(game(), &d.bytes, &other), None);
        assert_eq!(open(GameId(Hash([8; 32])), &d.bytes, &to), None);
        // One envelope, one deposit: anyone holding it recomputes the same bytes.
        assert_eq!(seal(game(), &env, &to.public()), d.clone());
        assert_eq!(d.hash, hash_of(game(), &d.bytes));
    }

    /// The shared secret of [`seal`] as the ladder computes it, on any recipient key:
    /// prime-order ones, and ones with a torsion component (a key need only be canonical
    /// and not of small order, `PublicKey::from_bytes`).
    #[test]
    fn x25519_on_the_edwards_point_is_the_ladders() {
        use curve25519_dalek::constants::EIGHT_TORSION;
        use curve25519_dalek::edwards::EdwardsPoint;
        let mut n = 0;
        for i in 0u8..64 {
            let base = EdwardsPoint::mul_base_clamped(Framed::new("k").field(&[i]).finish().0);
            for t in EIGHT_TORSION {
                let point = base + t;
                let Ok(key) = PublicKey::from_bytes(&point.compress().to_bytes()) else {
                    continue;
                };
                for j in 0u8..4 {
                    let secret = Framed::new("s").field(&[i, j]).finish().0;
                    let ladder = key.to_montgomery().mul_clamped(secret).to_bytes();
                    assert_eq!(key.x25519(secret), ladder, "key {i}+{t:?}, secret {j}");
                    n += 1;
                }
            }
        }
        assert_eq!(n, 64 * 8 * 4, "every key accepted");
    }

    #[test]
    fn a_deposit_changed_anywhere_opens_to_nothing() {
        let to = SecretKey::from_seed(&[1; 32]);
        let d = seal(game(), b"the envelope", &to.public());
        for i in 0..d.bytes.len() {
            let mut b = d.bytes.clone();
            b[i] ^= 0x40;
            assert_eq!(open(game(), &b, &to), None, "byte {i}");
        }
        assert_eq!(open(game(), &d.bytes[..32], &to), None);
        assert_eq!(open(game(), &[], &to), None);
    }
}
