//! The arbiter's ruling: what he signs, and how anyone checks it.
//!
//! The arbiter is a person with the rule book, named in the terms by his public key
//! (`arbiter`). He sees only public envelopes. His ruling on a dispute is a list of
//! board edits (none: the claim stands) and a note, signed over the game's coin (so a
//! ruling of one game is worthless in another) and the dispute's number. Either player
//! posts it as an act; the verifier checks the signature and applies the edits. The
//! arbiter is trusted for his rulings and nothing else: he signs no envelope, holds no
//! secret and cannot touch entitlements (spec/GAMES.md §4.20).

use sealed_protocol::hash::{Framed, Hash};
use sealed_protocol::keys::{PublicKey, SecretKey, Signature};

use super::edit::Edit;

/// The domain tag of the hash an arbiter signs.
pub const RULING_TAG: &str = "sealed/v2/tempete-ruling";

/// What the arbiter signs: `H("sealed/v2/tempete-ruling"; coin, le32(dispute),
/// postcard(edits), note)`.
pub fn ruling_hash(coin: &Hash, dispute: u32, edits: &[Edit], note: &str) -> Hash {
    let edits = sealed_protocol::wire::encode(&edits);
    Framed::new(RULING_TAG)
        .field(coin.as_bytes())
        .field(&dispute.to_le_bytes())
        .field(&edits)
        .field(note.as_bytes())
        .finish()
}

/// Signs a ruling (the arbiter's node, and tests).
pub fn sign_ruling(
    key: &SecretKey,
    coin: &Hash,
    dispute: u32,
    edits: &[Edit],
    note: &str,
) -> Vec<u8> {
    key.sign(ruling_hash(coin, dispute, edits, note).as_bytes())
        .0
        .to_vec()
}

/// Whether `signature` is the arbiter's on this ruling (strict verification).
pub fn ruling_is_signed(
    arbiter: &PublicKey,
    coin: &Hash,
    dispute: u32,
    edits: &[Edit],
    note: &str,
    signature: &[u8],
) -> bool {
    let Ok(sig) = <[u8; 64]>::try_from(signature) else {
        return false;
    };
    arbiter.verify(
        ruling_hash(coin, dispute, edits, note).as_bytes(),
        &Signature(sig),
    )
}
