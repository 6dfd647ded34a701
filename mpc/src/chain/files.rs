//! The no-referee circuits as files: `spec/circuits/`, one Bristol Fashion file per
//! circuit (`bristol.rs`) and a `MANIFEST` of their SHA-256 in `sha256sum`'s form, whose
//! own SHA-256 spec/GAMES.md §5.15 names. The files are embedded in this build; reading
//! one checks the manifest's hash against [`MANIFEST_SHA256`] and the file's against the
//! manifest before its text is parsed, so a build whose files were altered refuses to run
//! them, saying so, and blames no player. garble_lang is a build tool for them: `cargo
//! run -p sealed-mpc --bin circuits` writes them from the source (`source.rs`), and
//! `mpc/tests/circuit_files.rs` fails if what it would write differs by one byte.

use sha2_010::{Digest, Sha256};

use super::{Part, eval::check_layout, source::START};
use crate::bristol::{self, BristolError};
use crate::gc::Circuit;

/// The SHA-256 of `spec/circuits/MANIFEST`, as spec/GAMES.md §5.15 writes it.
pub const MANIFEST_SHA256: &str =
    "1bbdb88fc5cbb0b4a4e1eaab1ba5dad08f11c06ea26e51452ea0cda1522abade";

/// The manifest as embedded.
pub const MANIFEST: &str = include_str!("../../../spec/circuits/MANIFEST");

/// Every file the manifest lists, by name, as embedded: the start, then the chain's
/// circuits in [`Part::ALL`]'s order.
pub const FILES: [(&str, &str); 7] = [
    (
        "start.bristol",
        include_str!("../../../spec/circuits/start.bristol"),
    ),
    (
        "earlier4-white.bristol",
        include_str!("../../../spec/circuits/earlier4-white.bristol"),
    ),
    (
        "earlier4-black.bristol",
        include_str!("../../../spec/circuits/earlier4-black.bristol"),
    ),
    (
        "attempt-white.bristol",
        include_str!("../../../spec/circuits/attempt-white.bristol"),
    ),
    (
        "attempt-black.bristol",
        include_str!("../../../spec/circuits/attempt-black.bristol"),
    ),
    (
        "window8.bristol",
        include_str!("../../../spec/circuits/window8.bristol"),
    ),
    (
        "finish.bristol",
        include_str!("../../../spec/circuits/finish.bristol"),
    ),
];

/// Why a circuit file could not be used: each a fault of this installation (its files
/// were altered, or a bug of ours), never of a player.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FileError {
    /// The manifest's hash is not the one this build names.
    #[error("spec/circuits/MANIFEST has SHA-256 {found}, this build names {expected}")]
    Manifest {
        /// The hash named.
        expected: &'static str,
        /// The manifest's.
        found: String,
    },
    /// A file's hash is not the one the manifest lists, or the manifest lists none.
    #[error("spec/circuits/{file} has SHA-256 {found}, the manifest lists {listed:?}")]
    Hash {
        /// The file.
        file: &'static str,
        /// What the manifest lists for it, if anything.
        listed: Option<String>,
        /// The file's.
        found: String,
    },
    /// No file of that name is embedded (a bug of ours).
    #[error("no file {0} is embedded")]
    Missing(String),
    /// A file does not read as a circuit.
    #[error("spec/circuits/{file}: {error}")]
    Text {
        /// The file.
        file: &'static str,
        /// Why.
        error: BristolError,
    },
    /// A file's circuit is not the layout the chain threads.
    #[error("spec/circuits/{file}: {error}")]
    Layout {
        /// The file.
        file: &'static str,
        /// Why.
        error: super::ChainError,
    },
}

/// A file's name for a circuit (`start` or a part's name).
pub fn file_name(circuit: &str) -> String {
    format!("{circuit}.bristol")
}

/// Lowercase hex of the SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lowercase hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The manifest of a set of files: one line a file, `<sha256 hex>  <name>`, in the order
/// given (`sha256sum`'s form: `cd spec/circuits && sha256sum -c MANIFEST` checks it).
pub fn manifest(files: &[(String, String)]) -> String {
    files
        .iter()
        .map(|(name, text)| format!("{}  {name}\n", sha256_hex(text.as_bytes())))
        .collect()
}

/// `text`, named `name`, checked: `manifest` against [`MANIFEST_SHA256`], the file
/// against `manifest`.
fn checked<'t>(manifest: &str, name: &'static str, text: &'t str) -> Result<&'t str, FileError> {
    let found = sha256_hex(manifest.as_bytes());
    if found != MANIFEST_SHA256 {
        return Err(FileError::Manifest {
            expected: MANIFEST_SHA256,
            found,
        });
    }
    let listed = manifest
        .lines()
        .find_map(|l| l.strip_suffix(name)?.strip_suffix("  "))
        .map(str::to_owned);
    let found = sha256_hex(text.as_bytes());
    if listed.as_deref() != Some(found.as_str()) {
        return Err(FileError::Hash {
            file: name,
            listed,
            found,
        });
    }
    Ok(text)
}

/// The embedded file of `circuit`, by its name.
fn embedded(circuit: &str) -> Result<(&'static str, &'static str), FileError> {
    let want = file_name(circuit);
    FILES
        .iter()
        .find(|(name, _)| *name == want)
        .copied()
        .ok_or(FileError::Missing(want))
}

/// Reads `text` (named `name`) as a circuit: its hashes first (the embedded manifest's,
/// then its own), then its gates.
pub fn read(name: &'static str, text: &str) -> Result<Circuit, FileError> {
    let text = checked(MANIFEST, name, text)?;
    bristol::read(text).map_err(|error| FileError::Text { file: name, error })
}

/// `part`'s circuit from its embedded file, checked as [`read`] checks and its layout
/// the chain's.
pub fn part(part: Part) -> Result<Circuit, FileError> {
    let (name, text) = embedded(part.name())?;
    let c = read(name, text)?;
    check_layout(part, &c).map_err(|error| FileError::Layout { file: name, error })?;
    Ok(c)
}

/// The start's circuit from its embedded file, checked as [`read`] checks.
pub fn start() -> Result<Circuit, FileError> {
    let (name, text) = embedded(START)?;
    read(name, text)
}

/// Every file as `cargo run -p sealed-mpc --bin circuits` writes it, from the source:
/// the start, the chain's circuits in [`Part::ALL`]'s order, then `MANIFEST`.
pub fn generate() -> Result<Vec<(String, String)>, super::ChainError> {
    let mut out = vec![(file_name(START), bristol::write(&super::source::start()?))];
    for part in Part::ALL {
        let c = super::source::circuit(part)?;
        out.push((file_name(part.name()), bristol::write(&c)));
    }
    let manifest = manifest(&out);
    out.push(("MANIFEST".to_owned(), manifest));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_file_is_listed_in_the_manifest_under_its_hash() {
        assert_eq!(sha256_hex(MANIFEST.as_bytes()), MANIFEST_SHA256);
        assert_eq!(MANIFEST.lines().count(), FILES.len());
        for (name, text) in FILES {
            checked(MANIFEST, name, text).expect(name);
        }
    }

    #[test]
    fn a_file_with_one_byte_changed_is_refused_before_it_is_read() {
        let (name, text) = FILES[5];
        let mut bytes = text.as_bytes().to_vec();
        let at = bytes.len() / 2;
        bytes[at] ^= 1;
        let changed = String::from_utf8_lossy(&bytes).into_owned();
        assert!(
            matches!(read(name, &changed), Err(FileError::Hash { file, listed: Some(_), .. }) if file == name)
        );
        let cut = &text[..text.len() - 1];
        assert!(matches!(read(name, cut), Err(FileError::Hash { .. })));
    }

    #[test]
    fn a_manifest_with_one_byte_changed_refuses_every_file() {
        let mut manifest = MANIFEST.as_bytes().to_vec();
        manifest[0] ^= 1;
        let manifest = String::from_utf8_lossy(&manifest).into_owned();
        for (name, text) in FILES {
            assert!(matches!(
                checked(&manifest, name, text),
                Err(FileError::Manifest { .. })
            ));
        }
    }

    #[test]
    fn a_name_the_manifest_does_not_list_is_refused() {
        let (_, text) = FILES[0];
        assert!(matches!(
            checked(MANIFEST, "other.bristol", text),
            Err(FileError::Hash { listed: None, .. })
        ));
        assert!(matches!(embedded("other"), Err(FileError::Missing(_))));
    }
}
