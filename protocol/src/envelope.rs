//! Envelopes: one signed link of a seat's hash chain.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::body::Item;
use crate::hash::{Framed, Hash, tag};
use crate::ids::{ChainId, EnvRef, GameId, LogId, Seat};
use crate::keys::{SecretKey, Signature};
use crate::proposal::{Terms, signing_input};
use crate::wire::{self, MAX_MESSAGE, WireError};

/// Acknowledgement of a gap-free prefix of another chain: its last envelope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Ack {
    /// The acknowledged chain.
    pub chain: ChainId,
    /// The last envelope of the prefix.
    pub seq: u64,
    /// Its hash.
    pub hash: Hash,
}

impl Ack {
    /// The acknowledged envelope's position.
    pub fn target(&self) -> EnvRef {
        EnvRef {
            chain: self.chain,
            seq: self.seq,
        }
    }
}

/// Everything an envelope says; its canonical bytes are hashed and signed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unsigned {
    /// The version of the game's terms (`Terms::version`): 1, or 2 (spec/PROTOCOL.md §17).
    pub version: u8,
    /// The game.
    pub game: GameId,
    /// The log of the sender's chain.
    pub log: LogId,
    /// The sender.
    pub seat: Seat,
    /// Position in the sender's chain, from 0.
    pub seq: u64,
    /// Hash of the sender's previous envelope in this chain; zero at seq 0.
    pub prev: Hash,
    /// Acknowledgements, strictly ascending by chain, never of the sender's own chain.
    pub acks: Vec<Ack>,
    /// The sender's clock, milliseconds since the Unix epoch.
    pub clock: u64,
    /// What the envelope carries.
    pub body: Vec<Item>,
}

/// An envelope: the unsigned part followed by 64 signature bytes. Its encoding is what
/// travels in version 1; a version 2 envelope travels without the game id
/// ([`travelling`], spec/PROTOCOL.md §1.6), which every receiver knows from the terms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope {
    /// The signed content.
    pub unsigned: Unsigned,
    /// Signature over `"sealed/v1/sign/envelope" ‖ 0x00 ‖ unsigned bytes`.
    pub sig: Signature,
}

/// Why bytes are not an envelope of this game that we can place.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum EnvelopeError {
    /// Not a canonical envelope encoding.
    #[error("envelope bytes: {0}")]
    Wire(#[from] WireError),
    /// Unsupported protocol version.
    #[error("envelope version {0} is not supported")]
    Version(u8),
    /// A version 1 envelope carrying an item only version 2 has.
    #[error("a version 1 envelope carries an item only version 2 has")]
    Version2Item,
    /// Names another game.
    #[error("envelope belongs to game {0}")]
    OtherGame(GameId),
    /// Signed by a seat the game does not have.
    #[error("no {0} in this game")]
    NoSuchSeat(Seat),
    /// The signature does not verify under the seat's key (strict rules).
    #[error("signature of {0} does not verify")]
    BadSignature(EnvRef),
}

/// A parsed envelope whose signature verified under its seat's key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signed {
    /// The decoded envelope.
    pub env: Envelope,
    /// Hash of the unsigned part; what `prev` and acknowledgements name.
    pub hash: Hash,
    /// The exact travelling bytes.
    pub bytes: Vec<u8>,
}

/// Where the game id sits in `enc(Unsigned)`: right after the one `version` byte.
const GAME_AT: usize = 1;

/// Whether envelopes of this `version` byte travel without their game id: version 2's
/// (spec/PROTOCOL.md §1.6, §17).
fn game_implied(version: u8) -> bool {
    crate::proposal::is_version_2(version)
}

/// The travelling form of an envelope's encoding `full` (`enc(Envelope)`): in version 2
/// the 32 bytes of the game id are left out (every receiver knows them from the terms,
/// and the signature and hash still cover them); in version 1 `full` itself.
pub fn travelling(full: &[u8]) -> Vec<u8> {
    match full.first() {
        Some(v) if game_implied(*v) && full.len() >= GAME_AT + 32 => {
            let mut out = Vec::with_capacity(full.len() - 32);
            out.extend_from_slice(&full[..GAME_AT]);
            out.extend_from_slice(&full[GAME_AT + 32..]);
            out
        }
        _ => full.to_vec(),
    }
}

/// `enc(Envelope)` of travelling bytes of the game `game`: the game id put back in a
/// version 2 envelope (the inverse of [`travelling`]).
pub fn full_form(bytes: &[u8], game: GameId) -> std::borrow::Cow<'_, [u8]> {
    match bytes.first() {
        Some(v) if game_implied(*v) => {
            let mut out = Vec::with_capacity(bytes.len() + 32);
            out.extend_from_slice(&bytes[..GAME_AT]);
            out.extend_from_slice(game.0.as_bytes());
            out.extend_from_slice(&bytes[GAME_AT..]);
            std::borrow::Cow::Owned(out)
        }
        _ => std::borrow::Cow::Borrowed(bytes),
    }
}

impl Envelope {
    /// Decodes travelling bytes of the game `game` (no signature check: for tools that
    /// read what they already trust; a receiver uses [`Signed::parse`]).
    pub fn decode(bytes: &[u8], game: GameId) -> Result<Envelope, WireError> {
        if bytes.len() > MAX_MESSAGE {
            return Err(WireError::TooLarge {
                len: bytes.len(),
                cap: MAX_MESSAGE,
            });
        }
        wire::decode(&full_form(bytes, game), MAX_MESSAGE + 32)
    }

    /// The travelling bytes.
    pub fn to_travelling(&self) -> Vec<u8> {
        travelling(&wire::encode(self))
    }
}

impl Unsigned {
    /// Where the envelope claims to sit.
    pub fn at(&self) -> EnvRef {
        EnvRef {
            chain: ChainId {
                log: self.log,
                seat: self.seat,
            },
            seq: self.seq,
        }
    }

    /// The envelope hash: `H("sealed/v1/envelope", unsigned bytes)`.
    pub fn hash(&self) -> Hash {
        hash_unsigned_bytes(&wire::encode(self))
    }

    /// Signs with the seat's key.
    pub fn sign(self, key: &SecretKey) -> Signed {
        let unsigned_bytes = wire::encode(&self);
        let sig = key.sign(&signing_input(tag::SIGN_ENVELOPE, &unsigned_bytes));
        let hash = hash_unsigned_bytes(&unsigned_bytes);
        let env = Envelope {
            unsigned: self,
            sig,
        };
        let bytes = env.to_travelling();
        Signed { env, hash, bytes }
    }
}

fn hash_unsigned_bytes(bytes: &[u8]) -> Hash {
    Framed::new(tag::ENVELOPE).field(bytes).finish()
}

impl Signed {
    /// Parses travelling bytes and verifies the signature against the game's terms.
    /// Nothing about the chain is checked here; that is the engine's job.
    pub fn parse(terms: &Terms, bytes: &[u8]) -> Result<Signed, EnvelopeError> {
        let s = Signed::parse_kept(terms, bytes)?;
        s.verify(terms)?;
        Ok(s)
    }

    /// As [`Signed::parse`], for bytes this process verified before and kept: a seat's
    /// own store, whose every envelope passed [`Signed::parse`] before it was written
    /// (a node restoring a game, spec/PROTOCOL.md §11). Every check is made but the
    /// signature's: a signature is verified once per process, whatever path the
    /// envelope takes. Never for bytes from a peer or a file. A version 2 envelope's
    /// bytes do not name its game, so only the signature would tell another game's bytes
    /// apart: a caller keeps its bytes by game (as a node's store does) and verifies each
    /// chain's first envelope, to which its `prev` hashes tie the rest.
    pub fn parse_kept(terms: &Terms, bytes: &[u8]) -> Result<Signed, EnvelopeError> {
        let full = full_form(bytes, terms.game());
        let env = Envelope::decode(bytes, terms.game())?;
        let u = &env.unsigned;
        // Every envelope of a game carries the version its terms were proposed under.
        if u.version != terms.version() {
            return Err(EnvelopeError::Version(u.version));
        }
        if u.version == crate::proposal::VERSION && u.body.iter().any(Item::version_2_only) {
            return Err(EnvelopeError::Version2Item);
        }
        if u.game != terms.game() {
            return Err(EnvelopeError::OtherGame(u.game));
        }
        if terms.key(u.seat).is_none() {
            return Err(EnvelopeError::NoSuchSeat(u.seat));
        }
        // The unsigned part is everything but the last 64 bytes (the signature is a
        // fixed-size tuple at the end), and `decode` proved the bytes canonical.
        let hash = hash_unsigned_bytes(&full[..full.len() - 64]);
        Ok(Signed {
            env,
            hash,
            bytes: bytes.to_vec(),
        })
    }

    /// Verifies the signature of an envelope read by [`Signed::parse_kept`]: together
    /// they are [`Signed::parse`], for a caller that first looks whether it already
    /// holds these exact bytes (verified when they first came: a signature is verified
    /// once per process).
    pub fn verify(&self, terms: &Terms) -> Result<(), EnvelopeError> {
        let u = &self.env.unsigned;
        let key = terms.key(u.seat).ok_or(EnvelopeError::NoSuchSeat(u.seat))?;
        let full = full_form(&self.bytes, terms.game());
        let unsigned_bytes = &full[..full.len() - 64];
        if key.verify(
            &signing_input(tag::SIGN_ENVELOPE, unsigned_bytes),
            &self.env.sig,
        ) {
            Ok(())
        } else {
            Err(EnvelopeError::BadSignature(u.at()))
        }
    }

    /// The unsigned content.
    pub fn unsigned(&self) -> &Unsigned {
        &self.env.unsigned
    }

    /// Where it sits.
    pub fn at(&self) -> EnvRef {
        self.env.unsigned.at()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proposal::tests::two_player;

    fn terms() -> (Terms, SecretKey, SecretKey) {
        let a = SecretKey::from_seed(&[1; 32]);
        let b = SecretKey::from_seed(&[2; 32]);
        let t = Terms::from_signed(two_player("duel", &[&a, &b]).sign(&a)).unwrap();
        (t, a, b)
    }

    fn unsigned(t: &Terms, seat: u8) -> Unsigned {
        Unsigned {
            version: crate::proposal::VERSION,
            game: t.game(),
            log: LogId::PUBLIC,
            seat: Seat(seat),
            seq: 0,
            prev: Hash::ZERO,
            acks: vec![],
            clock: 5,
            body: vec![Item::Accept],
        }
    }

    #[test]
    fn roundtrip() {
        let (t, _, b) = terms();
        let s = unsigned(&t, 1).sign(&b);
        let back = Signed::parse(&t, &s.bytes).unwrap();
        assert_eq!(back, s);
    }

    /// What a store kept reads as it was parsed, with every check but the signature's:
    /// the one check a process makes once.
    #[test]
    fn kept_bytes_read_the_same_without_the_signature_check() {
        let (t, a, b) = terms();
        let s = unsigned(&t, 1).sign(&b);
        assert_eq!(Signed::parse_kept(&t, &s.bytes).unwrap(), s);
        let forged = unsigned(&t, 1).sign(&a);
        assert!(Signed::parse(&t, &forged.bytes).is_err());
        assert!(Signed::parse_kept(&t, &forged.bytes).is_ok());
        // The other checks stand: another game's terms, trailing bytes.
        let (other, _, _) = {
            let c = SecretKey::from_seed(&[3; 32]);
            let d = SecretKey::from_seed(&[4; 32]);
            let t = Terms::from_signed(two_player("duel", &[&c, &d]).sign(&c)).unwrap();
            (t, c, d)
        };
        assert!(Signed::parse_kept(&other, &s.bytes).is_err());
        let mut long = s.bytes.clone();
        long.push(0);
        assert!(Signed::parse_kept(&t, &long).is_err());
    }

    #[test]
    fn wrong_key_is_refused() {
        let (t, a, _) = terms();
        let s = unsigned(&t, 1).sign(&a);
        assert!(matches!(
            Signed::parse(&t, &s.bytes),
            Err(EnvelopeError::BadSignature(_))
        ));
    }

    #[test]
    fn any_flipped_byte_is_refused() {
        let (t, _, b) = terms();
        let s = unsigned(&t, 1).sign(&b);
        for i in 0..s.bytes.len() {
            let mut bytes = s.bytes.clone();
            bytes[i] ^= 1;
            assert!(Signed::parse(&t, &bytes).is_err(), "byte {i}");
        }
    }

    fn terms_v2() -> (Terms, SecretKey, SecretKey) {
        let a = SecretKey::from_seed(&[1; 32]);
        let b = SecretKey::from_seed(&[2; 32]);
        let mut p = two_player("duel", &[&a, &b]);
        p.version = crate::proposal::VERSION_2;
        (Terms::from_signed(p.sign(&a)).unwrap(), a, b)
    }

    /// Version 2 travels without the game id, which the hash and signature still cover:
    /// 32 bytes fewer, read back under the terms; the whole encoding, or the travelling
    /// bytes under another game's terms, are refused.
    #[test]
    fn version_2_travels_without_its_game_id() {
        let (t, _, b) = terms_v2();
        let mut u = unsigned(&t, 1);
        u.version = crate::proposal::VERSION_2;
        let s = u.clone().sign(&b);
        let full = wire::encode(&s.env);
        assert_eq!(s.bytes.len() + 32, full.len());
        assert_eq!(s.bytes, travelling(&full));
        assert_eq!(&*full_form(&s.bytes, t.game()), &full[..]);
        assert_eq!(s.hash, u.hash(), "the hash covers the game id");
        assert_eq!(Signed::parse(&t, &s.bytes).unwrap(), s);
        assert!(Signed::parse(&t, &full).is_err(), "one form only");
        // The same seats' keys in another game (another nonce): its terms put another
        // game id in, and the signature does not verify.
        let other = {
            let a = SecretKey::from_seed(&[1; 32]);
            let mut p = two_player("duel", &[&a, &b]);
            p.version = crate::proposal::VERSION_2;
            p.nonce = [9; 32];
            Terms::from_signed(p.sign(&a)).unwrap()
        };
        assert_ne!(other.game(), t.game());
        assert!(Signed::parse(&other, &s.bytes).is_err());
        // And version 1 travels whole.
        let (t1, _, b1) = terms();
        let s1 = unsigned(&t1, 1).sign(&b1);
        assert_eq!(s1.bytes, wire::encode(&s1.env));
    }
}
