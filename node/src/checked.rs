//! One transcript checked as `sealed verify` checks it: its exit code, its standing in
//! one word, who sat where, and the JSON document `sealed verify --json` prints for it
//! (cli/JSON.md). The command line and the web board both show a verdict through this,
//! so they cannot say different things of the same file.

use serde::Serialize;

use sealed_games::variant::{CheckError, check_transcript};
use sealed_protocol::proposal::Terms;
use sealed_protocol::transcript::{Checked, TranscriptFile};
use sealed_protocol::verdict::{Finality, Verdict};

use crate::core::PlayerView;

/// Complete and verified.
pub const VERIFIED: i32 = 0;
/// A proven fault.
pub const FAULT: i32 = 1;
/// Unreadable input, or bytes that are not validly signed.
pub const UNREADABLE: i32 = 2;
/// Readable, no fault, but not everything is confirmed.
pub const UNCONFIRMED: i32 = 3;

/// Why a file has no verdict, saying whose fault: the file's reader's (it could not be
/// opened, listed or fetched) or the bytes' (not a validly signed transcript — whoever
/// wrote or changed them).
#[derive(Debug, thiserror::Error)]
pub enum Unreadable {
    /// The bytes could not be had, in the reader's words (`cannot open: …`, a size
    /// over the limit, a folder that cannot be listed).
    #[error("{0}")]
    File(String),
    /// The bytes are not a transcript the protocol accepts.
    #[error(transparent)]
    Transcript(#[from] CheckError),
}

/// What checking one file found.
#[derive(Debug)]
pub struct FileReport {
    /// The path as given or found in the directory (or the name a download would have).
    pub file: String,
    /// The file's exit code.
    pub exit: i32,
    /// The check, or why there is none.
    pub checked: Result<Checked, Unreadable>,
    /// Who sat where, as the transcript's proposal says (names escaped), when it reads.
    pub players: Vec<PlayerView>,
    /// The peer id of the witness the proposal names (version 2), when it reads: the
    /// report names it where its times decided, or could have.
    pub witness: Option<String>,
}

impl FileReport {
    /// Checks a transcript's bytes (or reports why they could not be read).
    pub fn of_bytes(file: String, bytes: Result<Vec<u8>, Unreadable>) -> FileReport {
        let (checked, bytes) = match bytes {
            Ok(b) => (check_transcript(&b).map_err(Unreadable::from), Some(b)),
            Err(e) => (Err(e), None),
        };
        // The seats, from the proposal the check has just read (and verified the
        // signature of): a report says whose key was seat 0 and seat 1.
        let terms = match (&bytes, &checked) {
            (Some(b), Ok(_)) => TranscriptFile::from_bytes(b)
                .ok()
                .and_then(|f| Terms::parse(&f.proposal).ok()),
            _ => None,
        };
        // Each seat named as it signed itself (spec/PROTOCOL.md §17.15), else as the
        // proposal names it.
        let players = match (&terms, &checked) {
            (Some(t), Ok(c)) => {
                use crate::core::players::{players, seat_names};
                let names = seat_names(t, |s| c.names.get(s.index()).cloned().flatten());
                players(t, &names, None)
            }
            _ => vec![],
        };
        let witness = terms.as_ref().and_then(|t| {
            let w = t.proposal().witness.as_ref()?;
            Some(crate::core::peer_id::name(&w.key))
        });
        FileReport {
            file,
            // The protocol's own rule, so that every verifier built on it agrees.
            exit: checked.as_ref().map_or(UNREADABLE, Checked::exit_code),
            checked,
            players,
            witness,
        }
    }

    /// The file's standing in one word: the verdict's status, or why there is no
    /// verdict to trust.
    pub fn status(&self) -> &'static str {
        match (&self.checked, self.exit) {
            (Err(_), _) => "unreadable",
            (Ok(_), FAULT) => "proven-fault",
            (Ok(_), UNREADABLE) => "invalid-content",
            (Ok(_), UNCONFIRMED) => "unconfirmed",
            (Ok(_), _) => "verified",
        }
    }

    /// The file's object of the `--json` document.
    pub fn json(&self) -> FileJson<'_> {
        let (verdict, unsigned, unconfirmed_evidence, error) = match &self.checked {
            Ok(c) => (
                Some(&c.verdict),
                c.unsigned.as_slice(),
                c.unconfirmed_evidence.as_slice(),
                None,
            ),
            Err(e) => (None, &[][..], &[][..], Some(e.to_string())),
        };
        FileJson {
            file: &self.file,
            exit: self.exit,
            status: self.status(),
            r#final: verdict.map(|v| v.finality),
            verdict,
            unsigned,
            unconfirmed_evidence,
            error,
            players: &self.players,
        }
    }
}

/// One file's object of `sealed verify --json` (cli/JSON.md).
#[derive(Serialize)]
pub struct FileJson<'a> {
    file: &'a str,
    exit: i32,
    status: &'a str,
    /// Whether the result can still change (spec/PROTOCOL.md §10.5).
    r#final: Option<Finality>,
    verdict: Option<&'a Verdict>,
    unsigned: &'a [String],
    unconfirmed_evidence: &'a [String],
    error: Option<String>,
    players: &'a [PlayerView],
}
