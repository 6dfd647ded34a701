//! Dispatch from a variant's name to its rules, through the registry's one list.

use sealed_protocol::proposal::Terms;
use sealed_protocol::transcript::{Checked, TranscriptError, TranscriptFile};

use crate::registry::{GAMES, find};
use crate::replay::{ReplayError, Replayed};
use crate::table::Descriptor;

/// A variant this build knows.
#[derive(Clone, Copy)]
pub struct Variant(&'static Descriptor);

impl std::fmt::Debug for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Variant({})", self.0.name)
    }
}

impl PartialEq for Variant {
    fn eq(&self, other: &Variant) -> bool {
        self.0.name == other.0.name
    }
}

impl Eq for Variant {}

impl Variant {
    /// All variants, in the registry's order.
    pub fn all() -> impl Iterator<Item = Variant> {
        GAMES.iter().map(|g| Variant(g))
    }

    /// By name.
    pub fn parse(name: &str) -> Option<Variant> {
        find(name).map(Variant)
    }

    /// The name used in proposals and on the command line.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// Replays a score file of this variant.
    pub fn replay(self, text: &str) -> Result<Replayed, ReplayError> {
        (self.0.replay)(text)
    }
}

/// Why a transcript could not be checked at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// Unreadable.
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    /// A variant this build does not know.
    #[error("unknown variant {0:?}")]
    UnknownVariant(String),
}

/// Checks transcript file bytes under the rules its proposal names.
pub fn check_transcript(bytes: &[u8]) -> Result<Checked, CheckError> {
    let file = TranscriptFile::from_bytes(bytes)?;
    let terms = Terms::parse(&file.proposal).map_err(TranscriptError::from)?;
    match find(terms.variant()) {
        Some(g) => Ok((g.check)(&file, terms)?),
        None => Err(CheckError::UnknownVariant(terms.variant().to_owned())),
    }
}
