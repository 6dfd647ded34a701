//! The transcript file: the signed proposal, every chain, and the evidence.
//!
//! A file is `"sealed\0\x01"` followed by the postcard encoding of [`TranscriptFile`].
//! Envelopes are stored as the exact bytes that travelled, so every signature checks
//! against what was actually sent. Evidence holds the proofs of chain faults (which
//! carry what cannot sit in a chain, such as the second envelope of an equivocation)
//! and names the envelopes that prove a fraud.

use serde::{Deserialize, Serialize};

use crate::engine::Engine;
use crate::envelope::Signed;
use crate::fault::FaultKind;
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
    #[error("not a sealed transcript (bad magic)")]
    Magic,
    /// The container does not decode.
    #[error("transcript container: {0}")]
    Wire(#[from] WireError),
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
        let body = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or(TranscriptError::Magic)?;
        Ok(wire::decode(body, MAX_TRANSCRIPT)?)
    }

    /// Everything an engine holds, as a file.
    pub fn from_engine<R: Rules>(engine: &Engine<R>) -> Self {
        let (chains, _) = engine.stored();
        let mut evidence: Vec<Evidence> = engine
            .chain_faults()
            .into_iter()
            .map(|(_, p)| Evidence::Chain(p))
            .collect();
        for f in engine.faults() {
            if let Some(env) = engine.envelope(f.at) {
                evidence.push(Evidence::Fraud(FraudProof {
                    envelope: env.bytes.clone(),
                    kind: f.kind.clone(),
                }));
            }
        }
        TranscriptFile {
            proposal: engine.terms().bytes().to_vec(),
            envelopes: chains.into_iter().map(|e| e.bytes.clone()).collect(),
            evidence,
        }
    }
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

/// Parses and inserts one envelope, recording why if it is not a validly signed
/// envelope of this game.
fn take<R: Rules>(engine: &mut Engine<R>, unsigned: &mut Vec<String>, what: String, bytes: &[u8]) {
    match Signed::parse(engine.terms(), bytes) {
        Ok(s) => {
            if let Err(e) = engine.insert_signed(s) {
                unsigned.push(format!("{what}: {e}"));
            }
        }
        Err(e) => unsigned.push(format!("{what}: {e}")),
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
    // Each envelope is parsed (and its signature checked) once; they go in by sequence
    // number across chains, so each chain's processing keeps up with the others'.
    let mut parsed: Vec<(u64, usize, Signed)> = vec![];
    for (i, bytes) in file.envelopes.iter().enumerate() {
        match Signed::parse(engine.terms(), bytes) {
            Ok(s) => parsed.push((s.unsigned().seq, i, s)),
            Err(e) => unsigned.push(format!("envelope {i}: {e}")),
        }
    }
    parsed.sort_unstable_by_key(|(seq, i, _)| (*seq, *i));
    for (_, i, s) in parsed {
        if let Err(e) = engine.insert_signed(s) {
            unsigned.push(format!("envelope {i}: {e}"));
        }
    }
    let mut unconfirmed = vec![];
    for (i, ev) in file.evidence.iter().enumerate() {
        match ev {
            Evidence::Chain(p) => match p.check(engine.terms()) {
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
                take(
                    &mut engine,
                    &mut unsigned,
                    format!("evidence {i}"),
                    &p.envelope,
                );
                let at = Signed::parse(engine.terms(), &p.envelope).map(|s| s.at());
                let found = at.as_ref().is_ok_and(|at| {
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
