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

use sealed_protocol::ids::GameId;

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
pub fn armor(game: &GameId, mail: &Mail) -> String {
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

/// Most bytes the mails of one text may decode to, together (spec/PROTOCOL.md §16.6). A
/// whole game's envelopes take a few hundred kilobytes; the cap is on the decoded bytes
/// because the armored text of a legal mail is larger than they are.
pub const MAX_MAIL: usize = 8 << 20;

/// Most bytes of text read in search of mail: the armor of [`MAX_MAIL`] bytes, quoted, with
/// room for the e-mail around it. Mail comes from the opponent; nothing beyond is read.
pub const MAX_MAIL_TEXT: u64 = 32 << 20;

/// Longest line inside a mail block (76 base64 characters, quote marks and blanks).
const MAX_BLOCK_LINE: usize = 1024;

/// Why a text gives no mail: the sender's fault, said in words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MailError {
    /// The text could not be read.
    #[error("{0}")]
    Read(String),
    /// More text than any mail needs.
    #[error("more than {} MiB of text: no mail is that long", MAX_MAIL_TEXT >> 20)]
    TextTooLong,
    /// The blocks decode to more than the cap.
    #[error("the mail decodes to more than {} MiB: no game's mail is that large", MAX_MAIL >> 20)]
    TooLarge,
    /// A line inside a block that no armor writes.
    #[error("line {0}: longer than any line of a mail block")]
    LongLine(u64),
    /// A block with no end line.
    #[error("a mail block is not closed (no {END} line)")]
    NotClosed,
    /// A block that is not base64.
    #[error("mail block ending on line {line}: not base64 ({why})")]
    Base64 {
        /// The block's last line.
        line: u64,
        /// What the decoder said.
        why: String,
    },
    /// A block whose bytes are not a mail.
    #[error("mail block ending on line {line}: not a mail ({why})")]
    Decode {
        /// The block's last line.
        line: u64,
        /// What the decoder said.
        why: String,
    },
    /// No block at all.
    #[error("no sealed mail in the text")]
    None,
}

/// Reads every armored mail in a text (an e-mail may quote several): line by line, never
/// holding more than one block's base64, and stopping at the first line past a cap.
pub fn read_mail(reader: impl std::io::Read) -> Result<Vec<Mail>, MailError> {
    use std::io::BufRead as _;
    let mut r = std::io::BufReader::new(reader.take(MAX_MAIL_TEXT + 1));
    let (mut out, mut total, mut read) = (vec![], 0usize, 0u64);
    let mut block: Option<String> = None;
    let mut line = Vec::with_capacity(256);
    let mut number = 0u64;
    loop {
        line.clear();
        // Read one line, keeping at most MAX_BLOCK_LINE bytes of it: a longer line
        // outside a block is skipped, inside one refused.
        let mut long = false;
        loop {
            let buf = r.fill_buf().map_err(|e| MailError::Read(e.to_string()))?;
            if buf.is_empty() {
                break;
            }
            let (chunk, done) = match buf.iter().position(|b| *b == b'\n') {
                Some(i) => (&buf[..=i], true),
                None => (buf, false),
            };
            let room = MAX_BLOCK_LINE.saturating_sub(line.len());
            long |= chunk.len() > room;
            line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            let n = chunk.len();
            r.consume(n);
            read += n as u64;
            if done {
                break;
            }
        }
        if read > MAX_MAIL_TEXT {
            return Err(MailError::TextTooLong);
        }
        if line.is_empty() {
            break;
        }
        number += 1;
        let text = String::from_utf8_lossy(&line);
        // Quote marks and blanks, as an e-mail client writes them, are not the mail's.
        let bare = text
            .trim()
            .trim_start_matches(|c: char| c == '>' || c.is_whitespace());
        match &mut block {
            None => {
                if bare.contains(BEGIN) {
                    block = Some(String::new());
                }
            }
            Some(b64) => {
                if long {
                    return Err(MailError::LongLine(number));
                }
                if bare.contains(END) {
                    let b64 = std::mem::take(b64);
                    block = None;
                    let bytes = base64::engine::general_purpose::STANDARD
                        .decode(b64)
                        .map_err(|e| MailError::Base64 {
                            line: number,
                            why: e.to_string(),
                        })?;
                    total += bytes.len();
                    if total > MAX_MAIL {
                        return Err(MailError::TooLarge);
                    }
                    let mail = sealed_protocol::wire::decode(&bytes, MAX_MAIL).map_err(|e| {
                        MailError::Decode {
                            line: number,
                            why: e.to_string(),
                        }
                    })?;
                    out.push(mail);
                } else if !bare.is_empty() && !bare.starts_with("game ") {
                    b64.push_str(bare);
                    // Stop as soon as the block would decode past the cap.
                    if total + b64.len() / 4 * 3 > MAX_MAIL {
                        return Err(MailError::TooLarge);
                    }
                }
            }
        }
    }
    if block.is_some() {
        return Err(MailError::NotClosed);
    }
    if out.is_empty() {
        return Err(MailError::None);
    }
    Ok(out)
}

/// [`read_mail`] of a text held in memory.
pub fn dearmor(text: &str) -> Result<Vec<Mail>, MailError> {
    read_mail(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use std::io::Read as _;

    use super::*;

    #[test]
    fn round_trip_even_when_quoted() {
        let m = Mail {
            proposal: vec![1, 2, 3],
            envelopes: vec![vec![4; 300], vec![5]],
        };
        let text = armor(&[9; 32].into(), &m);
        assert_eq!(dearmor(&text).unwrap(), vec![m.clone()]);
        let quoted: String = text.lines().map(|l| format!("> {l}\n")).collect();
        assert_eq!(dearmor(&format!("Hi,\n{quoted}\nbye")).unwrap(), vec![m]);
        assert_eq!(dearmor("nothing here"), Err(MailError::None));
        assert_eq!(dearmor(&text.replace(END, "")), Err(MailError::NotClosed));
    }

    #[test]
    fn oversize_and_hostile_text_is_refused_early() {
        // A block that would decode past the cap stops at the cap, not at its end.
        let mut big = format!("{BEGIN}\n");
        let line = "A".repeat(76) + "\n";
        while big.len() < MAX_MAIL * 2 {
            big.push_str(&line);
        }
        assert_eq!(dearmor(&big), Err(MailError::TooLarge));
        // A line no armor writes, inside a block.
        let long = format!("{BEGIN}\n{}\n{END}\n", "A".repeat(5000));
        assert_eq!(dearmor(&long), Err(MailError::LongLine(2)));
        // Text outside blocks is skipped, up to the text cap.
        let junk = std::io::repeat(b'x').take(MAX_MAIL_TEXT + 10);
        assert_eq!(read_mail(junk), Err(MailError::TextTooLong));
        // A character that is not base64 is said, with the block's last line.
        let m = Mail {
            proposal: vec![1],
            envelopes: vec![],
        };
        let text = armor(&[0; 32].into(), &m);
        let mut lines: Vec<&str> = text.lines().collect();
        let bad = format!("!{}", lines[2]);
        lines[2] = &bad;
        assert!(matches!(
            dearmor(&lines.join("\n")),
            Err(MailError::Base64 { line: 4, .. })
        ));
    }
}
