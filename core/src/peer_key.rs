//! A peer, named by its Ed25519 public key: its own type, so that the compiler tells it
//! from a game id, a hash or a chain's key, all 32 bytes too (issue 54 item 7). Its
//! libp2p peer id is derived from it (`peer_id.rs`). In the store and on the wire it is
//! the 32 bytes as before (`serde(transparent)`), so no record changes.

use serde::{Deserialize, Serialize};

/// A peer's Ed25519 public key.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PeerKey([u8; 32]);

impl PeerKey {
    /// The key of these bytes (not checked to be a point: a peer's key is checked where
    /// it is first read, by its signature or by libp2p's handshake).
    pub const fn from_bytes(bytes: [u8; 32]) -> PeerKey {
        PeerKey(bytes)
    }

    /// Its 32 bytes.
    pub const fn to_bytes(self) -> [u8; 32] {
        self.0
    }

    /// Its 32 bytes, borrowed.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// Its first four bytes in hex: how a log line names a peer.
    pub fn short(&self) -> String {
        hex::encode(&self.0[..4])
    }

    /// Its libp2p peer id as text (`peer_id.rs`); `None` for bytes that are no key.
    pub fn peer_id(&self) -> Option<String> {
        crate::peer_id::text(&self.0)
    }
}

impl From<[u8; 32]> for PeerKey {
    fn from(bytes: [u8; 32]) -> PeerKey {
        PeerKey(bytes)
    }
}

impl From<PeerKey> for [u8; 32] {
    fn from(k: PeerKey) -> [u8; 32] {
        k.0
    }
}

impl From<sealed_protocol::keys::PublicKey> for PeerKey {
    fn from(k: sealed_protocol::keys::PublicKey) -> PeerKey {
        PeerKey(k.to_bytes())
    }
}

impl From<&sealed_protocol::keys::PublicKey> for PeerKey {
    fn from(k: &sealed_protocol::keys::PublicKey) -> PeerKey {
        PeerKey(k.to_bytes())
    }
}

/// The first four bytes in hex, as logs and test failures show a peer.
impl std::fmt::Debug for PeerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PeerKey({}…)", self.short())
    }
}

impl AsRef<[u8]> for PeerKey {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// Bytes read from the store or a message: a key only if they are 32.
impl TryFrom<&[u8]> for PeerKey {
    type Error = std::array::TryFromSliceError;

    fn try_from(bytes: &[u8]) -> Result<PeerKey, Self::Error> {
        <[u8; 32]>::try_from(bytes).map(PeerKey)
    }
}

/// A peer key against a key as the protocol's terms hold it (a seat's, a mailbox's, the
/// witness's): the same 32 bytes name the same peer.
impl PartialEq<[u8; 32]> for PeerKey {
    fn eq(&self, other: &[u8; 32]) -> bool {
        self.0 == *other
    }
}

impl PartialEq<PeerKey> for [u8; 32] {
    fn eq(&self, other: &PeerKey) -> bool {
        *self == other.0
    }
}

/// Bytes owned, as a store's table gives them back: a key only if they are 32.
impl TryFrom<Vec<u8>> for PeerKey {
    type Error = Vec<u8>;

    fn try_from(bytes: Vec<u8>) -> Result<PeerKey, Vec<u8>> {
        <[u8; 32]>::try_from(bytes).map(PeerKey)
    }
}
