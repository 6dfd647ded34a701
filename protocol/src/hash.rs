//! SHA-256 with domain separation and length framing.
//!
//! Every hash the protocol computes goes through [`Framed`]: a domain tag first, then
//! each field preceded by its length as a little-endian `u32`. Framing every field is
//! what makes `("ab", "c")` and `("a", "bc")` hash differently; the tag is what keeps
//! a commitment from ever being mistaken for an envelope hash or a coin value.

use core::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// A SHA-256 output. On the wire (postcard) it is 32 raw bytes; in human-readable
/// formats (the JSON of `sealed verify --json`) it is lower-case hex.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Hash(pub [u8; 32]);

impl Serialize for Hash {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            s.serialize_str(&self.to_hex())
        } else {
            self.0.serialize(s)
        }
    }
}

impl<'de> Deserialize<'de> for Hash {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if d.is_human_readable() {
            let text = String::deserialize(d)?;
            from_hex(&text)
                .and_then(|v| v.try_into().ok())
                .map(Hash)
                .ok_or_else(|| serde::de::Error::custom("expected 64 hex digits"))
        } else {
            <[u8; 32]>::deserialize(d).map(Hash)
        }
    }
}

/// Parses lower- or upper-case hexadecimal.
pub fn from_hex(text: &str) -> Option<Vec<u8>> {
    // `from_str_radix` alone would take a leading '+'.
    if !text.len().is_multiple_of(2) || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

impl Hash {
    /// The all-zero value, used as the `prev` of the first envelope of a chain.
    pub const ZERO: Hash = Hash([0; 32]);

    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// Lower-case hexadecimal.
    pub fn to_hex(&self) -> String {
        to_hex(&self.0)
    }

    /// The first eight hex digits, for logs and tables.
    pub fn short(&self) -> String {
        to_hex(&self.0[..4])
    }
}

impl fmt::Debug for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hash({})", self.short())
    }
}

impl fmt::Display for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// Lower-case hexadecimal of any byte string.
pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

/// Domain tags. Each names one use of SHA-256; the spec lists them all.
pub mod tag {
    /// Commitment to a secret value.
    pub const COMMIT: &str = "sealed/v1/commit";
    /// Hash of an unsigned envelope (chain links and acknowledgements).
    pub const ENVELOPE: &str = "sealed/v1/envelope";
    /// Game id: hash of the unsigned proposal.
    pub const GAME_ID: &str = "sealed/v1/game-id";
    /// Joint coin output.
    pub const COIN: &str = "sealed/v1/coin";
    /// Key of a named random stream drawn from the coin.
    pub const STREAM: &str = "sealed/v1/stream";
    /// Key of a dealer's index stream.
    pub const DEAL: &str = "sealed/v1/deal";
    /// Private seeded setup.
    pub const SETUP: &str = "sealed/v1/setup";
    /// One step down a pool owner's chain of draw values.
    pub const DRAW_CHAIN: &str = "sealed/v1/draw-chain";
    /// The pick of a draw from a public pool.
    pub const DRAW: &str = "sealed/v1/draw";
    /// Digest of a private log's chains, posted in public (§8.11).
    pub const SUBLOG: &str = "sealed/v1/sublog";
    /// Signature context of an envelope.
    pub const SIGN_ENVELOPE: &str = "sealed/v1/sign/envelope";
    /// Signature context of a proposal.
    pub const SIGN_PROPOSAL: &str = "sealed/v1/sign/proposal";
    /// Version 2: the salt of slot `i` of a deck opened whole from its seed (§17.17).
    pub const DECK_NONCE: &str = "sealed/v2/deck-nonce";
    /// Version 2: the key of the stream that orders a deck opened whole (§17.17).
    pub const DECK_ORDER: &str = "sealed/v2/deck-order";
}

/// Incremental framed hash: `SHA-256(len(tag) ‖ tag ‖ len(f1) ‖ f1 ‖ …)`.
#[derive(Clone)]
pub struct Framed(Sha256);

impl Framed {
    /// Starts a hash under a domain tag.
    pub fn new(tag: &str) -> Self {
        let mut h = Framed(Sha256::new());
        h.push(tag.as_bytes());
        h
    }

    /// Appends one field with its length prefix.
    pub fn field(mut self, bytes: &[u8]) -> Self {
        self.push(bytes);
        self
    }

    fn push(&mut self, bytes: &[u8]) {
        // Fields are bounded by the message cap, far below 4 GiB; a longer field would be
        // a bug, so saturating keeps the function total without changing any real input.
        let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
        self.0.update(len.to_le_bytes());
        self.0.update(bytes);
    }

    /// The digest.
    pub fn finish(self) -> Hash {
        Hash(self.0.finalize().into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_separates_field_boundaries() {
        let a = Framed::new("t").field(b"ab").field(b"c").finish();
        let b = Framed::new("t").field(b"a").field(b"bc").finish();
        assert_ne!(a, b);
    }

    #[test]
    fn tag_separates_domains() {
        let a = Framed::new("x").field(b"1").finish();
        let b = Framed::new("y").field(b"1").finish();
        assert_ne!(a, b);
    }

    #[test]
    fn hex_is_lower_case() {
        assert_eq!(to_hex(&[0x0a, 0xff]), "0aff");
        assert_eq!(from_hex("0aFF"), Some(vec![0x0a, 0xff]));
        assert_eq!(from_hex("0g"), None);
        assert_eq!(from_hex("abc"), None);
        assert_eq!(from_hex("+a+b"), None);
    }

    #[test]
    fn hash_is_raw_on_the_wire_and_hex_in_json() {
        let h = Hash([0xab; 32]);
        assert_eq!(crate::wire::encode(&h), vec![0xab; 32]);
        let json = serde_json::to_string(&h).unwrap();
        assert_eq!(json, format!("\"{}\"", "ab".repeat(32)));
        assert_eq!(serde_json::from_str::<Hash>(&json).unwrap(), h);
    }
}
