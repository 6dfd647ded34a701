//! `transcript-size`: where the bytes of each reference transcript go, per ply of play,
//! with the set-up apart (issue 34; the accounting is `transcript_size.rs`'s).
//!
//! ```text
//! cargo run -p sealed-conformance --release --bin transcript-size [FILE…]
//! ```
//!
//! With no argument it reads the reference transcript of every variant in
//! spec/vectors. Exit code 1 if a file cannot be read or its bytes do not add up.

use std::path::PathBuf;
use std::process::ExitCode;

use sealed_conformance::transcript_size::{VECTORS, measure, report};

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let files = if args.is_empty() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec/vectors");
        VECTORS.iter().map(|f| dir.join(f)).collect()
    } else {
        args
    };
    println!(
        "bytes of each transcript by what they carry; every part re-encoded on its own \
         (postcard) and checked to add up to its envelope and to the file"
    );
    println!(
        "signatures: 64 B each; hashes: prev, acknowledged and commitment hashes (32 B \
         each); acks: each acknowledgement's chain and seq; bodies: the items without the \
         commitment hashes; rest: game id, clock, version, log, seat, seq, list lengths"
    );
    let mut failed = false;
    for path in files {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into(),
        );
        let measured = std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|bytes| measure(&bytes).map_err(|e| e.to_string()));
        match measured {
            Ok(size) => print!("\n{}", report(&name, &size)),
            Err(e) => {
                eprintln!("{name}: {e}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
