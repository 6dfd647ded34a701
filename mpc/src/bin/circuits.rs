//! Writes the no-referee circuits' files under `spec/circuits/` from their Garble source
//! (`sealed_mpc::chain::files::generate`): `cargo run -p sealed-mpc --bin circuits`. With
//! `--check` it writes nothing and exits 1 if a committed file differs from what it would
//! write. It writes spec/vectors/garbling.json too (`chain::vector`: `window8` garbled
//! from a stated seed), from the committed files. It prints the manifest's SHA-256, which `chain::files::MANIFEST_SHA256` and
//! spec/GAMES.md §5.15 must name.

use std::path::PathBuf;
use std::process::ExitCode;

use sealed_mpc::chain::files::{self, MANIFEST_SHA256, generate, sha256_hex};
use sealed_mpc::chain::{Part, vector};

fn main() -> ExitCode {
    let check = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--check") => true,
        Some(other) => {
            eprintln!("usage: circuits [--check] (not {other:?})");
            return ExitCode::from(2);
        }
    };
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/circuits"));
    let files = match generate() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("the circuits do not compile: {e}");
            return ExitCode::FAILURE;
        }
    };
    let window8 = match files::part(Part::Window8) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("the committed window8 cannot be read: {e}");
            return ExitCode::FAILURE;
        }
    };
    let vector = match vector::garbling(&window8) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("the garbling vector cannot be written: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut differ = 0;
    let vectors = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/vectors"));
    let written = files
        .iter()
        .map(|(name, text)| (dir.join(name), text))
        .chain([(vectors.join("garbling.json"), &vector)]);
    for (path, text) in written {
        if check {
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                eprintln!(
                    "{} differs from what the source compiles to",
                    path.display()
                );
                differ += 1;
            }
        } else if let Err(e) =
            std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, text.as_bytes()))
        {
            eprintln!("cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        } else {
            println!("{:>10} bytes  {}", text.len(), path.display());
        }
    }
    let manifest = files
        .last()
        .map(|(_, t)| sha256_hex(t.as_bytes()))
        .unwrap_or_default();
    println!("MANIFEST sha256 {manifest}");
    if manifest != MANIFEST_SHA256 {
        eprintln!(
            "chain::files::MANIFEST_SHA256 names {MANIFEST_SHA256}: write the one above there and in spec/GAMES.md §5.15"
        );
        differ += 1;
    }
    if check && differ > 0 {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
