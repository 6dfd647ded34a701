//! A peer's libp2p id, as text, from its Ed25519 key — written here without libp2p, so
//! the core can name peers the way every face and address does. The id is the base58btc
//! text of the identity multihash (code 0, length 36) of the key's protobuf encoding
//! (field 1 `KeyType` = 1, Ed25519; field 2 `Data`, 32 bytes): libp2p's peer id
//! specification for keys of 42 bytes or fewer. `sealed_node` tests it against libp2p.

/// The identity multihash's and the protobuf's bytes before the key.
const PREFIX: [u8; 6] = [0x00, 0x24, 0x08, 0x01, 0x12, 0x20];

/// The peer id of an Ed25519 public key, as text; `None` for bytes that are no key.
pub fn text(key: &[u8; 32]) -> Option<String> {
    ed25519_dalek::VerifyingKey::from_bytes(key).ok()?;
    Some(encode(key))
}

/// The peer id of a key parsed already, as text. Not checked again: checking is the
/// point's decompression, and `sealed games` names every seat of every game, each time.
/// For that reason too the texts last written are kept (base58 divides the whole number
/// for each digit): a node deals with a few peers, and a pure function's memo changes
/// no answer.
pub fn of(key: &sealed_protocol::keys::PublicKey) -> String {
    const KEPT: usize = 1024;
    thread_local! {
        static TEXTS: std::cell::RefCell<std::collections::HashMap<[u8; 32], String>> =
            Default::default();
    }
    let bytes = key.to_bytes();
    TEXTS.with_borrow_mut(|texts| {
        if let Some(t) = texts.get(&bytes) {
            return t.clone();
        }
        if texts.len() >= KEPT {
            texts.clear();
        }
        let t = encode(&bytes);
        texts.insert(bytes, t.clone());
        t
    })
}

fn encode(key: &[u8; 32]) -> String {
    let mut bytes = PREFIX.to_vec();
    bytes.extend_from_slice(key);
    bs58::encode(bytes).into_string()
}

/// The Ed25519 key a peer id names, if it is one.
pub fn key_of(text: &str) -> Option<[u8; 32]> {
    let bytes = bs58::decode(text).into_vec().ok()?;
    let key: [u8; 32] = bytes.strip_prefix(&PREFIX[..])?.try_into().ok()?;
    ed25519_dalek::VerifyingKey::from_bytes(&key).ok()?;
    Some(key)
}

/// Whether an address, as text, ends in `/p2p/<the peer id of key>`.
pub fn names(addr: &str, key: &[u8; 32]) -> bool {
    let Some(id) = text(key) else {
        return false;
    };
    addr.strip_suffix(id.as_str())
        .is_some_and(|rest| rest.ends_with("/p2p/"))
}

/// A peer's name for people: its peer id, or its key in hex when the bytes are no key.
pub fn name(key: &[u8; 32]) -> String {
    text(key).unwrap_or_else(|| hex::encode(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_and_its_id_read_back() {
        let key = sealed_protocol::keys::SecretKey::from_seed(&[7; 32])
            .public()
            .to_bytes();
        let id = text(&key).unwrap();
        assert!(id.starts_with("12D3KooW"));
        assert_eq!(key_of(&id), Some(key));
        assert!(names(&format!("/ip4/1.2.3.4/tcp/1/p2p/{id}"), &key));
        assert!(!names(
            &format!("/ip4/1.2.3.4/tcp/1/p2p/{id}/p2p-circuit"),
            &key
        ));
        assert!(!names(&format!("/ip4/1.2.3.4/tcp/1/p2p/x{id}"), &key));
        assert_eq!(key_of("not a peer id"), None);
        let parsed = sealed_protocol::keys::PublicKey::from_bytes(&key).unwrap();
        assert_eq!(of(&parsed), id);
        assert_eq!(of(&parsed), id, "kept");
    }

    /// More keys than are kept (a stranger proposing games under fresh keys): the memo
    /// starts again, and every text is still its key's.
    #[test]
    fn more_keys_than_kept_are_still_named_right() {
        let keys: Vec<_> = (0..1100u32)
            .map(|i| {
                let mut seed = [0u8; 32];
                seed[..4].copy_from_slice(&i.to_le_bytes());
                sealed_protocol::keys::SecretKey::from_seed(&seed).public()
            })
            .collect();
        for _ in 0..2 {
            for k in &keys {
                assert_eq!(Some(of(k)), text(&k.to_bytes()));
            }
        }
    }
}
