//! Play by mail, the seeds' own medium: a game's proposal and envelopes as armored text
//! that can travel in an e-mail body and be imported on the other side.
//!
//! ```text
//! -----BEGIN SEALED MAIL-----
//! game 3f2a…
//! <base64 lines of postcard(Mail)>
//! -----END SEALED MAIL-----
//! ```
//! Everything inside is signed by the seats, so the text needs no protection of its own:
//! a changed byte only makes an envelope invalid.

use base64::Engine as _;
use serde::{Deserialize, Serialize};

const BEGIN: &str = "-----BEGIN SEALED MAIL-----";
const END: &str = "-----END SEALED MAIL-----";

/// What a mail carries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mail {
    /// The signed proposal's bytes.
    pub proposal: Vec<u8>,
    /// Envelopes, exact bytes.
    pub envelopes: Vec<Vec<u8>>,
}

/// Armors a mail.
pub fn armor(game: &[u8; 32], mail: &Mail) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(sealed_protocol::wire::encode(mail));
    let mut s = format!("{BEGIN}\ngame {}\n", hex::encode(game));
    for chunk in b64.as_bytes().chunks(76) {
        s.push_str(std::str::from_utf8(chunk).unwrap_or_default());
        s.push('\n');
    }
    s.push_str(END);
    s.push('\n');
    s
}

/// Reads every armored mail in a text (an e-mail may quote several).
pub fn dearmor(text: &str) -> Result<Vec<Mail>, String> {
    let mut out = vec![];
    let mut rest = text;
    while let Some(start) = rest.find(BEGIN) {
        let after = &rest[start + BEGIN.len()..];
        let end = after.find(END).ok_or("a mail block is not closed")?;
        let body: String = after[..end]
            .lines()
            .map(|l| l.trim().trim_start_matches('>').trim())
            .filter(|l| !l.is_empty() && !l.starts_with("game "))
            .collect();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(body)
            .map_err(|e| format!("mail: {e}"))?;
        out.push(
            sealed_protocol::wire::decode(&bytes, sealed_protocol::wire::MAX_TRANSCRIPT)
                .map_err(|e| format!("mail: {e}"))?,
        );
        rest = &after[end + END.len()..];
    }
    if out.is_empty() {
        return Err("no sealed mail in the text".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_even_when_quoted() {
        let m = Mail {
            proposal: vec![1, 2, 3],
            envelopes: vec![vec![4; 300], vec![5]],
        };
        let text = armor(&[9; 32], &m);
        assert_eq!(dearmor(&text).unwrap(), vec![m.clone()]);
        let quoted: String = text.lines().map(|l| format!("> {l}\n")).collect();
        assert_eq!(dearmor(&format!("Hi,\n{quoted}\nbye")).unwrap(), vec![m]);
        assert!(dearmor("nothing here").is_err());
        assert!(dearmor(&text.replace(END, "")).is_err());
    }
}
