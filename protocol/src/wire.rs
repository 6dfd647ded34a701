//! Canonical postcard encoding with a size cap.
//!
//! postcard accepts over-long varints (`80 00` decodes as `0`), so two byte strings can
//! carry one value. Everything we hash or sign must have exactly one encoding, so a
//! decode is only accepted when re-encoding the value gives back the very same bytes.

use serde::{Serialize, de::DeserializeOwned};
use thiserror::Error;

/// Largest envelope, proposal or evidence item accepted from anyone, in bytes.
pub const MAX_MESSAGE: usize = 64 * 1024;

/// Largest transcript file accepted, in bytes.
pub const MAX_TRANSCRIPT: usize = 64 * 1024 * 1024;

/// Why bytes were not accepted as a message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WireError {
    /// More bytes than the cap allows.
    #[error("{len} bytes exceed the {cap}-byte cap")]
    TooLarge {
        /// Length received.
        len: usize,
        /// Cap in force.
        cap: usize,
    },
    /// The bytes end before the value does: cut short in a copy or on the way.
    #[error("the bytes end before the message does (cut short)")]
    Truncated,
    /// Not a postcard encoding of the expected type.
    #[error("malformed encoding: {0}")]
    Malformed(String),
    /// A valid value followed by extra bytes.
    #[error("{0} trailing bytes after the message")]
    Trailing(usize),
    /// A valid value, but not in its one canonical encoding (e.g. an over-long varint).
    #[error("non-canonical encoding")]
    NonCanonical,
}

/// Encodes a value. Encoding our own types into a `Vec` cannot fail.
pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    postcard::to_allocvec(value).expect("postcard encoding into a Vec is infallible")
}

/// Calls `f` with the encoding of a value, the same bytes as [`encode`]'s, written on the
/// stack when it is short (a purpose in a commitment, hashed for every slot of a deck)
/// and in a `Vec` only when it is not.
pub fn with_encoded<T: Serialize, R>(value: &T, f: impl FnOnce(&[u8]) -> R) -> R {
    let mut buf = [0u8; 64];
    match postcard::to_slice(value, &mut buf) {
        Ok(bytes) => f(bytes),
        Err(_) => f(&encode(value)),
    }
}

/// Decodes exactly one canonical value from `bytes`, refusing anything larger than `cap`.
pub fn decode<T: Serialize + DeserializeOwned>(bytes: &[u8], cap: usize) -> Result<T, WireError> {
    if bytes.len() > cap {
        return Err(WireError::TooLarge {
            len: bytes.len(),
            cap,
        });
    }
    let (value, rest) = postcard::take_from_bytes::<T>(bytes).map_err(|e| match e {
        postcard::Error::DeserializeUnexpectedEnd => WireError::Truncated,
        e => WireError::Malformed(e.to_string()),
    })?;
    if !rest.is_empty() {
        return Err(WireError::Trailing(rest.len()));
    }
    if encode(&value) != bytes {
        return Err(WireError::NonCanonical);
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_encoded_on_the_stack_is_encoded_as_in_a_vec() {
        for len in [0, 1, 20, 61, 62, 63, 64, 65, 200] {
            let v: (u8, String) = (3, "x".repeat(len));
            assert_eq!(with_encoded(&v, <[u8]>::to_vec), encode(&v), "{len}");
        }
    }

    #[test]
    fn overlong_varint_is_refused() {
        // 0u32 as a one-byte varint is canonical; `80 00` is the same value over-long.
        assert_eq!(decode::<u32>(&[0], 16), Ok(0));
        assert_eq!(
            decode::<u32>(&[0x80, 0x00], 16),
            Err(WireError::NonCanonical)
        );
    }

    #[test]
    fn trailing_bytes_are_refused() {
        assert_eq!(decode::<u8>(&[1, 2], 16), Err(WireError::Trailing(1)));
    }

    #[test]
    fn cap_is_enforced_before_parsing() {
        assert!(matches!(
            decode::<Vec<u8>>(&[0; 20], 16),
            Err(WireError::TooLarge { .. })
        ));
    }
}
