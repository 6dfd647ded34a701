//! Dispatch from a variant's name to its rules.

use sealed_protocol::proposal::Terms;
use sealed_protocol::transcript::{Checked, TranscriptError, TranscriptFile, check_with_terms};

use crate::cardmate::{self, Cardmate};
use crate::chex::{self, Chex};
use crate::duel::{self, Duel};
use crate::replay::{ReplayError, Replayed};
use crate::stallmate::peer::Stallmate;
use crate::stallmate::{self};
use crate::tempete::{self, Tempete};

/// Every variant this build knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The conformance game.
    Duel,
    /// Cardmate (seed 002).
    Cardmate,
    /// Chex (seed 003).
    Chex,
    /// Tempête sur l'Echiquier by mail (seed 000).
    Tempete,
    /// Secret Stallmate (seed 001), with a referee peer.
    Stallmate,
}

impl Variant {
    /// All variants.
    pub const ALL: &'static [Variant] = &[
        Variant::Duel,
        Variant::Cardmate,
        Variant::Chex,
        Variant::Tempete,
        Variant::Stallmate,
    ];

    /// By name.
    pub fn parse(name: &str) -> Option<Variant> {
        Variant::ALL.iter().copied().find(|v| v.name() == name)
    }

    /// The name used in proposals and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Duel => duel::VARIANT,
            Variant::Cardmate => cardmate::VARIANT,
            Variant::Chex => chex::VARIANT,
            Variant::Tempete => tempete::VARIANT,
            Variant::Stallmate => stallmate::peer::VARIANT,
        }
    }

    /// Replays a score file of this variant.
    pub fn replay(self, text: &str) -> Result<Replayed, ReplayError> {
        match self {
            Variant::Duel => duel::replay(text),
            Variant::Cardmate => cardmate::replay(text),
            Variant::Chex => chex::engine::replay(text),
            Variant::Tempete => tempete::score::replay(text),
            Variant::Stallmate => stallmate::record::replay(text),
        }
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
    match Variant::parse(terms.variant()) {
        Some(Variant::Duel) => Ok(check_with_terms::<Duel>(&file, terms)?.1),
        Some(Variant::Cardmate) => Ok(check_with_terms::<Cardmate>(&file, terms)?.1),
        Some(Variant::Chex) => Ok(check_with_terms::<Chex>(&file, terms)?.1),
        Some(Variant::Tempete) => Ok(check_with_terms::<Tempete>(&file, terms)?.1),
        Some(Variant::Stallmate) => Ok(check_with_terms::<Stallmate>(&file, terms)?.1),
        None => Err(CheckError::UnknownVariant(terms.variant().to_owned())),
    }
}
