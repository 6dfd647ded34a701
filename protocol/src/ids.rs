//! Small identifiers: games, seats, logs, chains, names.

use core::fmt;

use serde::{Deserialize, Serialize};

use crate::hash::Hash;

/// A game's identity: the hash of its unsigned proposal (see [`crate::proposal`]).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct GameId(pub Hash);

impl GameId {
    /// Its 32 bytes.
    pub fn bytes(&self) -> &[u8; 32] {
        &self.0.0
    }
}

impl From<[u8; 32]> for GameId {
    fn from(b: [u8; 32]) -> GameId {
        GameId(Hash(b))
    }
}

impl AsRef<[u8]> for GameId {
    fn as_ref(&self) -> &[u8] {
        &self.0.0
    }
}

impl fmt::Debug for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GameId({})", self.0.short())
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// A seat: an index into the proposal's seat list. Players come first.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Seat(pub u8);

impl Seat {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

impl fmt::Debug for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

/// A log: log 0 is public (every seat has a chain in it and every seat sees it); any
/// other log is private, with an audience fixed by the game's rules.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct LogId(pub u32);

impl LogId {
    /// The public log.
    pub const PUBLIC: LogId = LogId(0);

    /// Whether this is the public log.
    pub fn is_public(self) -> bool {
        self == LogId::PUBLIC
    }
}

impl fmt::Debug for LogId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "log {}", self.0)
    }
}

/// One hash chain: the envelopes one seat signs into one log.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ChainId {
    /// The log the chain belongs to.
    pub log: LogId,
    /// The seat that signs it.
    pub seat: Seat,
}

impl ChainId {
    /// A seat's public chain.
    pub fn public(seat: Seat) -> Self {
        ChainId {
            log: LogId::PUBLIC,
            seat,
        }
    }
}

impl fmt::Debug for ChainId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.log.is_public() {
            write!(f, "{}", self.seat)
        } else {
            write!(f, "{} in log {}", self.seat, self.log.0)
        }
    }
}

impl fmt::Display for ChainId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// Where an envelope sits: its chain and sequence number.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
pub struct EnvRef {
    /// The chain.
    pub chain: ChainId,
    /// Position in the chain, from 0.
    pub seq: u64,
}

impl fmt::Display for EnvRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} #{}", self.chain, self.seq)
    }
}

/// A short identifier chosen by a game: a deck, a setup, a sealed value, an option key.
/// 1 to 32 bytes of `a-z 0-9 . _ -`. Parsed once; a `Name` is always valid.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Name(String);

/// The rule a [`Name`] did not meet.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("name {0:?} is not 1 to 32 characters of a-z 0-9 . _ -")]
pub struct BadName(pub String);

impl Name {
    /// Parses a name.
    pub fn new(s: &str) -> Result<Self, BadName> {
        let ok = (1..=32).contains(&s.len())
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b));
        if ok {
            Ok(Name(s.to_owned()))
        } else {
            Err(BadName(s.to_owned()))
        }
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for Name {
    type Error = BadName;
    fn try_from(s: String) -> Result<Self, BadName> {
        Name::new(&s)
    }
}

impl From<Name> for String {
    fn from(n: Name) -> String {
        n.0
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(Name::new("deck").is_ok());
        assert!(Name::new("ply_limit").is_ok());
        assert!(Name::new("").is_err());
        assert!(Name::new("Deck").is_err());
        assert!(Name::new(&"a".repeat(33)).is_err());
    }

    #[test]
    fn bad_name_does_not_decode() {
        let bytes = crate::wire::encode(&"UPPER".to_string());
        assert!(crate::wire::decode::<Name>(&bytes, 64).is_err());
    }
}
