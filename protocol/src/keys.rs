//! Ed25519 keys and signatures with one acceptance rule for every verifier.
//!
//! We accept a signature exactly when ed25519-dalek's `verify_strict` does *and* the
//! public key is the canonical encoding of its point. Signatures are checked one at a
//! time: batch verification multiplies each equation by a random scalar, so a torsion
//! component in `R` vanishes whenever that scalar is a multiple of its order, and the
//! batch can accept a signature the single strict check rejects. Two honest verifiers
//! must never disagree about which bytes are signed.

use core::fmt;

use ed25519_dalek::{Signer as _, SigningKey, VerifyingKey};
use serde::de::{self, SeqAccess, Visitor};
use serde::ser::SerializeTuple;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use thiserror::Error;

use crate::hash::to_hex;

/// Why 32 bytes are not accepted as a seat's public key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum KeyError {
    /// Not the encoding of a curve point.
    #[error("public key is not a curve point")]
    NotAPoint,
    /// A point, but not in its canonical encoding.
    #[error("public key is not canonically encoded")]
    NonCanonical,
    /// A point of order 1, 2, 4 or 8: it would verify signatures anyone can forge.
    #[error("public key has small order")]
    SmallOrder,
}

/// A validated Ed25519 public key: canonical encoding, not of small order.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PublicKey {
    bytes: [u8; 32],
    key: VerifyingKey,
}

impl PublicKey {
    /// Parses and validates a public key.
    pub fn from_bytes(bytes: &[u8; 32]) -> Result<Self, KeyError> {
        let key = VerifyingKey::from_bytes(bytes).map_err(|_| KeyError::NotAPoint)?;
        if !canonical(bytes) {
            return Err(KeyError::NonCanonical);
        }
        if key.is_weak() {
            return Err(KeyError::SmallOrder);
        }
        Ok(PublicKey { bytes: *bytes, key })
    }

    /// The 32 encoded bytes.
    pub fn to_bytes(&self) -> [u8; 32] {
        self.bytes
    }

    /// The same point in Montgomery form: the X25519 public key of this key pair, for a
    /// deposit sealed to this seat (`crate::deposit`).
    pub fn to_montgomery(&self) -> curve25519_dalek::montgomery::MontgomeryPoint {
        self.key.to_montgomery()
    }

    /// X25519 with this key in Montgomery form: the u-coordinate of `[clamp(secret)]`
    /// times this key's point, as `to_montgomery().mul_clamped(secret)` computes it by
    /// the Montgomery ladder, but multiplied on the Edwards point the key already holds
    /// (constant time, on the vector backend where the ladder has none) and with no
    /// conversion of the key first: a verifier computes one per private envelope
    /// (`crate::deposit::seal`). Both give the same bytes for every key
    /// (`deposit::tests::x25519_on_the_edwards_point_is_the_ladders`).
    pub(crate) fn x25519(&self, secret: [u8; 32]) -> [u8; 32] {
        self.key
            .to_edwards()
            .mul_clamped(secret)
            .to_montgomery()
            .to_bytes()
    }

    /// Strict single verification of `sig` over `message` (see the module docs).
    pub fn verify(&self, message: &[u8], sig: &Signature) -> bool {
        let check = || {
            let s = ed25519_dalek::Signature::from_bytes(&sig.0);
            self.key.verify_strict(message, &s).is_ok()
        };
        #[cfg(feature = "fuzz-memo")]
        return crate::memo::verified(self.key.as_bytes(), &sig.0, message, check);
        #[cfg(not(feature = "fuzz-memo"))]
        check()
    }
}

/// Whether the encoding of a point that decompresses is the one its point compresses
/// to, read from the bytes: `y` below p = 2^255 − 19 (decompression reduces a larger one
/// mod p), and no sign bit on x = 0 (the points y = ±1, whose x has no sign). This is
/// what `decompress(bytes).compress() == bytes` decides without the field inversion of
/// `compress` — each seat's key is checked whenever terms are read — and the test
/// `canonical_is_the_round_trip` compares the two on every non-canonical encoding
/// there is and on random ones.
fn canonical(bytes: &[u8; 32]) -> bool {
    const P: [u8; 32] = {
        let mut p = [0xff; 32];
        p[0] = 0xed;
        p[31] = 0x7f;
        p
    };
    let mut y = *bytes;
    y[31] &= 0x7f;
    let sign = bytes[31] >> 7 == 1;
    // Little-endian: the most significant byte last.
    let below_p = y.iter().rev().lt(P.iter().rev());
    let mut one = [0; 32];
    one[0] = 1;
    let mut minus_one = P;
    minus_one[0] = 0xec;
    below_p && !(sign && (y == one || y == minus_one))
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({})", to_hex(&self.bytes[..4]))
    }
}

/// A seat's signing key. Holds the 32-byte Ed25519 secret seed.
pub struct SecretKey(SigningKey);

impl SecretKey {
    /// Wraps a 32-byte secret seed (RFC 8032 private key).
    pub fn from_seed(seed: &[u8; 32]) -> Self {
        SecretKey(SigningKey::from_bytes(seed))
    }

    /// The secret seed, for storage with owner-only permissions.
    pub fn seed(&self) -> [u8; 32] {
        self.0.to_bytes()
    }

    /// The matching public key.
    pub fn public(&self) -> PublicKey {
        let key = self.0.verifying_key();
        // A key derived from a secret scalar is a canonical prime-order point.
        PublicKey {
            bytes: key.to_bytes(),
            key,
        }
    }

    /// The X25519 secret of this key pair (the unclamped scalar bytes of RFC 8032's
    /// expansion), to open a deposit sealed to this seat (`crate::deposit`).
    pub(crate) fn scalar_bytes(&self) -> [u8; 32] {
        self.0.to_scalar_bytes()
    }

    /// Signs `message` (deterministic RFC 8032 signature).
    pub fn sign(&self, message: &[u8]) -> Signature {
        let sign = || self.0.sign(message).to_bytes();
        #[cfg(feature = "fuzz-memo")]
        return Signature(crate::memo::signed(self.0.as_bytes(), message, sign));
        #[cfg(not(feature = "fuzz-memo"))]
        Signature(sign())
    }
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SecretKey(public {:?})", self.public())
    }
}

/// A 64-byte Ed25519 signature `R ‖ S`, encoded on the wire as 64 raw bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Signature(pub [u8; 64]);

impl fmt::Debug for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Signature({}…)", to_hex(&self.0[..4]))
    }
}

impl Serialize for Signature {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return s.serialize_str(&to_hex(&self.0));
        }
        // A fixed-size tuple: postcard writes the 64 bytes with no length prefix.
        let mut t = s.serialize_tuple(64)?;
        for b in &self.0 {
            t.serialize_element(b)?;
        }
        t.end()
    }
}

impl<'de> Deserialize<'de> for Signature {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Signature;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("64 signature bytes")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Signature, A::Error> {
                let mut out = [0u8; 64];
                for (i, b) in out.iter_mut().enumerate() {
                    *b = seq
                        .next_element()?
                        .ok_or_else(|| de::Error::invalid_length(i, &self))?;
                }
                Ok(Signature(out))
            }
        }
        if d.is_human_readable() {
            let text = String::deserialize(d)?;
            let bytes = crate::hash::from_hex(&text).and_then(|v| <[u8; 64]>::try_from(v).ok());
            return bytes
                .map(Signature)
                .ok_or_else(|| de::Error::custom("expected 128 hex digits"));
        }
        d.deserialize_tuple(64, V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_then_verify() {
        let sk = SecretKey::from_seed(&[7; 32]);
        let sig = sk.sign(b"hello");
        assert!(sk.public().verify(b"hello", &sig));
        assert!(!sk.public().verify(b"hellp", &sig));
    }

    #[test]
    fn identity_key_is_refused() {
        let mut identity = [0u8; 32];
        identity[0] = 1;
        assert_eq!(PublicKey::from_bytes(&identity), Err(KeyError::SmallOrder));
    }

    #[test]
    fn non_canonical_key_is_refused() {
        // y = p + 1 encodes the identity again (y ≡ 1): not canonical.
        let mut y = [0xffu8; 32];
        y[0] = 0xee; // p + 1 = 2^255 - 18 → 0xee ff .. 7f
        y[31] = 0x7f;
        assert!(PublicKey::from_bytes(&y).is_err());
    }

    /// The byte reading of canonical encodings agrees with the round trip through the
    /// curve on every non-canonical encoding (y from p to 2^255 − 1, and y = ±1, each
    /// with both sign bits) and on many random and valid ones.
    #[test]
    fn canonical_is_the_round_trip() {
        use curve25519_dalek::edwards::CompressedEdwardsY;
        let round_trip = |b: &[u8; 32]| {
            CompressedEdwardsY(*b)
                .decompress()
                .map(|p| p.compress().to_bytes() == *b)
        };
        let mut candidates: Vec<[u8; 32]> = vec![];
        for low in 0xec..=0xffu8 {
            for sign in [0, 0x80] {
                let mut b = [0xff; 32];
                b[0] = low;
                b[31] = 0x7f | sign;
                candidates.push(b);
                let mut small = [0; 32];
                small[0] = low.wrapping_sub(0xeb); // 1 ..= 20
                small[31] |= sign;
                candidates.push(small);
            }
        }
        let mut h = [7u8; 32];
        for i in 0..4000u32 {
            h = crate::hash::Framed::new("k")
                .field(&h)
                .field(&i.to_le_bytes())
                .finish()
                .0;
            candidates.push(h);
            candidates.push(SecretKey::from_seed(&h).public().to_bytes());
        }
        let (mut points, mut refused) = (0, 0);
        for b in &candidates {
            if let Some(same) = round_trip(b) {
                assert_eq!(canonical(b), same, "{b:02x?}");
                points += 1;
                refused += usize::from(!same);
            }
        }
        assert!(
            points > 4000 && refused >= 4,
            "{points} points, {refused} refused"
        );
    }

    #[test]
    fn signature_roundtrips_as_64_raw_bytes() {
        let sig = Signature([9; 64]);
        let bytes = crate::wire::encode(&sig);
        assert_eq!(bytes.len(), 64);
        assert_eq!(crate::wire::decode::<Signature>(&bytes, 64), Ok(sig));
    }
}
