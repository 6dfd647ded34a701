//! The transcript file: the signed proposal, every chain, and the evidence.
//!
//! A file is `"sealed\0\x01"` followed by the postcard encoding of [`TranscriptFile`].
//! Envelopes are stored as the exact bytes that travelled, so every signature checks
//! against what was actually sent. Evidence holds the proofs of chain faults (which
//! carry what cannot sit in a chain, such as the second envelope of an equivocation)
//! and names the envelopes that prove a fraud.

use serde::{Deserialize, Serialize};

use crate::engine::{Engine, Envelopes, InsertError, Inserted, StoreError};
use crate::envelope::Signed;
use crate::fault::FaultKind;
use crate::ids::EnvRef;
use crate::proof::Proof;
use crate::proposal::{ProposalError, Terms};
use crate::rules::{OptionError, Rules};
use crate::verdict::{Verdict, verdict};
use crate::wire::{self, MAX_TRANSCRIPT, WireError};

/// The first bytes of every transcript file.
pub const MAGIC: &[u8; 8] = b"sealed\x00\x01";

/// A signed envelope that breaks a rule, and which rule. Anyone holding the transcript
/// checks it by replaying: the replay must find that fault at that envelope.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FraudProof {
    /// The envelope's bytes (it is also in its chain).
    pub envelope: Vec<u8>,
    /// The rule it breaks.
    pub kind: FaultKind,
}

/// One piece of evidence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Evidence {
    /// A chain fault: an equivocation or a broken link.
    Chain(Proof),
    /// A fraud.
    Fraud(FraudProof),
}

/// The content of a transcript file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TranscriptFile {
    /// The signed proposal's bytes.
    pub proposal: Vec<u8>,
    /// Every envelope of every chain, as travelled, in chain order.
    pub envelopes: Vec<Vec<u8>>,
    /// Evidence.
    pub evidence: Vec<Evidence>,
}

/// Why a transcript cannot be read at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TranscriptError {
    /// Does not start with [`MAGIC`].
    #[error(
        "not a sealed transcript: the file does not begin as every transcript does; \
         a transcript is the file a game is exported to"
    )]
    Magic,
    /// Does not start with [`MAGIC`], and is text: a score, a note or mail given where
    /// the binary transcript belongs.
    #[error(
        "this is a text file, not a sealed transcript (a transcript is the binary file \
         a game is exported to; a score of moves is text, and is replayed, not verified)"
    )]
    Text,
    /// Starts as a transcript, but the file ends before its content does.
    #[error(
        "the transcript is cut short: the file ends before its content does (a copy or \
         download that stopped early?); get the whole file again"
    )]
    Truncated,
    /// The container does not decode.
    #[error("the transcript is damaged: its content does not decode ({0})")]
    Wire(WireError),
    /// The proposal is not acceptable.
    #[error("proposal: {0}")]
    Proposal(#[from] ProposalError),
    /// The options do not make a game of the variant.
    #[error("options: {0}")]
    Options(#[from] OptionError),
}

impl TranscriptFile {
    /// The file bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend(wire::encode(self));
        out
    }

    /// Reads file bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, TranscriptError> {
        let Some(body) = bytes.strip_prefix(MAGIC.as_slice()) else {
            return Err(if looks_like_text(bytes) {
                TranscriptError::Text
            } else {
                TranscriptError::Magic
            });
        };
        wire::decode(body, MAX_TRANSCRIPT).map_err(|e| match e {
            WireError::Truncated => TranscriptError::Truncated,
            e => TranscriptError::Wire(e),
        })
    }

    /// Everything an engine holds, as a file.
    pub fn from_engine<R: Rules>(engine: &Engine<R>) -> Self {
        engine.envelopes_view().transcript()
    }
}

/// Written here, beside the file's format, rather than in the engine: the engine knows no
/// file.
impl Envelopes<'_> {
    /// The transcript file of the envelopes one seat holds: the proposal, every chain's
    /// envelopes in chain order, and the evidence of every fault found in them (a broken
    /// chain's proof, then each fraud's envelope).
    pub fn transcript(&self) -> TranscriptFile {
        let mut evidence: Vec<Evidence> = self
            .chain_breaks()
            .into_iter()
            .map(|(_, _, p)| Evidence::Chain(p))
            .collect();
        for f in self.faults() {
            if let Some(env) = self.processed(f.at) {
                evidence.push(Evidence::Fraud(FraudProof {
                    envelope: env.bytes.clone(),
                    kind: f.kind.clone(),
                }));
            }
        }
        TranscriptFile {
            proposal: self.terms().bytes().to_vec(),
            envelopes: self.chained(),
            evidence,
        }
    }
}

/// Whether bytes read as text a person wrote or a program printed: valid UTF-8 (a
/// character cut at the end of the first 4 KiB aside) with no control character but
/// tab, line breaks and form feed. Only the start is looked at: a transcript's is
/// binary from its magic on.
fn looks_like_text(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) if e.error_len().is_none() => {
            // A character cut by the 4 KiB window.
            std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return false,
    };
    !text.is_empty()
        && text
            .chars()
            .all(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r' | '\x0c'))
}

/// What checking a transcript found.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The verdict on every validly signed envelope.
    pub verdict: Verdict,
    /// Bytes that are not validly signed envelopes of this game, with why.
    pub unsigned: Vec<String>,
    /// Evidence entries the replay did not confirm, with why.
    pub unconfirmed_evidence: Vec<String>,
    /// Per seat, the name it signed for itself (`Engine::signed_name`), if any.
    pub names: Vec<Option<String>>,
}

impl Checked {
    /// `sealed verify`'s exit code: 1 a proven fault (signed evidence stands whatever
    /// else the file holds), else 2 bytes not validly signed or evidence the replay does
    /// not confirm (a file that asserts what it cannot show), else 3 unconfirmed, else 0.
    pub fn exit_code(&self) -> i32 {
        if !self.verdict.faults.is_empty() {
            1
        } else if !self.unsigned.is_empty() || !self.unconfirmed_evidence.is_empty() {
            2
        } else {
            self.verdict.exit_code()
        }
    }
}

/// Replays a transcript under rules `R`.
pub fn check<R: Rules>(file: &TranscriptFile) -> Result<(Engine<R>, Checked), TranscriptError> {
    check_with_terms(file, Terms::parse(&file.proposal)?)
}

/// Parses and inserts one envelope (its signature verified unless the engine holds
/// these exact bytes), recording why if it is not a validly signed envelope of this
/// game; its position, if it is one.
fn take<R: Rules>(
    engine: &mut Engine<R>,
    unsigned: &mut Vec<String>,
    what: String,
    bytes: &[u8],
) -> Option<EnvRef> {
    match engine.insert(bytes) {
        Ok(Inserted::Stored(at) | Inserted::Duplicate(at) | Inserted::Equivocation(at)) => Some(at),
        Err(e) => {
            unsigned.push(format!("{what}: {e}"));
            // Validly signed but not held: it still names its position.
            match e {
                InsertError::Store(StoreError::TooFarAhead(at)) => Some(at),
                InsertError::Envelope(_) => None,
            }
        }
    }
}

/// Replays a transcript under rules `R`, its proposal already parsed (callers that read
/// the terms to pick the rules need not verify the proposal twice).
pub fn check_with_terms<R: Rules>(
    file: &TranscriptFile,
    terms: Terms,
) -> Result<(Engine<R>, Checked), TranscriptError> {
    let mut engine: Engine<R> = Engine::new(terms)?;
    engine.unbounded_ahead();
    let mut unsigned = vec![];
    // Each envelope is parsed (and its signature checked) once. All are held before
    // any is processed (§10.6 step 2), in ascending (seq, place in the file): of two at
    // one position the earlier fills the slot, and an envelope a proof inside the file
    // brings is never followed where the file holds another.
    let mut parsed: Vec<(u64, usize, Signed)> = vec![];
    for (i, bytes) in file.envelopes.iter().enumerate() {
        match Signed::parse(engine.terms(), bytes) {
            Ok(s) => parsed.push((s.unsigned().seq, i, s)),
            Err(e) => unsigned.push(format!("envelope {i}: {e}")),
        }
    }
    parsed.sort_unstable_by_key(|(seq, i, _)| (*seq, *i));
    let places: Vec<usize> = parsed.iter().map(|(_, i, _)| *i).collect();
    let held = engine.insert_all_signed(parsed.into_iter().map(|(_, _, s)| s));
    for (i, r) in places.into_iter().zip(held) {
        if let Err(e) = r {
            unsigned.push(format!("envelope {i}: {e}"));
        }
    }
    let mut unconfirmed = vec![];
    for (i, ev) in file.evidence.iter().enumerate() {
        match ev {
            Evidence::Chain(p) => match p.check_with(engine.terms(), |s| engine.holds_exact(s)) {
                Ok(proven) => {
                    for e in proven.envelopes {
                        if let Err(err) = engine.insert_signed(e) {
                            unsigned.push(format!("evidence {i}: {err}"));
                        }
                    }
                }
                Err(why) => unconfirmed.push(format!("evidence {i}: {why}")),
            },
            Evidence::Fraud(p) => {
                let at = take(
                    &mut engine,
                    &mut unsigned,
                    format!("evidence {i}"),
                    &p.envelope,
                );
                let found = at.as_ref().is_some_and(|at| {
                    engine
                        .all_faults()
                        .iter()
                        .any(|f| f.at == *at && f.kind == p.kind)
                });
                if !found {
                    unconfirmed.push(format!(
                        "evidence {i}: the replay does not find {} there",
                        p.kind
                    ));
                }
            }
        }
    }
    let verdict = verdict(&engine);
    let names = engine
        .terms()
        .seats()
        .map(|s| engine.signed_name(s).map(str::to_owned))
        .collect();
    Ok((
        engine,
        Checked {
            verdict,
            unsigned,
            unconfirmed_evidence: unconfirmed,
            names,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> Vec<u8> {
        TranscriptFile {
            proposal: vec![7; 40],
            envelopes: vec![vec![1; 300], vec![2; 300]],
            evidence: vec![],
        }
        .to_bytes()
    }

    #[test]
    fn a_file_cut_short_is_said_to_be_cut_short() {
        let whole = file();
        assert!(TranscriptFile::from_bytes(&whole).is_ok());
        for len in [MAGIC.len() + 1, 100, whole.len() - 1] {
            let e = TranscriptFile::from_bytes(&whole[..len]).unwrap_err();
            assert_eq!(e, TranscriptError::Truncated, "cut at {len}");
            let said = e.to_string();
            assert!(said.contains("cut short"), "{said}");
            assert!(said.contains("get the whole file again"), "{said}");
            assert!(!said.contains("Hit the end of buffer"), "{said}");
        }
    }

    #[test]
    fn text_is_told_from_other_bytes_without_magic() {
        for text in [
            &b"1. e2-e4 e7-e5\n2. Ng1-f3\n"[..],
            "Partie d'échecs\tÉ\r\n".as_bytes(),
            b"-----BEGIN SEALED MAIL-----\n",
        ] {
            let e = TranscriptFile::from_bytes(text).unwrap_err();
            assert_eq!(e, TranscriptError::Text);
            assert!(e.to_string().contains("text file, not a sealed transcript"));
            assert!(!e.to_string().contains("magic"));
        }
        // A character cut at the window's end is still text.
        let mut long = "é".repeat(3000).into_bytes();
        long.truncate(4097);
        assert_eq!(
            TranscriptFile::from_bytes(&long).unwrap_err(),
            TranscriptError::Text
        );
        for binary in [
            &b""[..],
            b"\x00\x01\x02",
            b"PK\x03\x04zip",
            b"abc\x1b[2J",
            b"\xff\xfe",
        ] {
            let e = TranscriptFile::from_bytes(binary).unwrap_err();
            assert_eq!(e, TranscriptError::Magic, "{binary:?}");
            assert!(e.to_string().starts_with("not a sealed transcript"));
        }
    }
}
