//! The circuit files under `spec/circuits/` are what the Garble source compiles to, byte
//! for byte (docs/design/circuits-as-data.md, step 3): garble_lang is a build tool, and a
//! change of the source, of its compiler or of the Bristol writer shows here as a file
//! that differs, to be written again on purpose (`cargo run -p sealed-mpc --bin
//! circuits`) and named in the spec's change list, never silently. The files embedded in
//! the build are the ones on disk, and reading them gives the compiled circuits.

use sealed_mpc::bristol;
use sealed_mpc::chain::files::{self, FILES, MANIFEST, MANIFEST_SHA256, generate, sha256_hex};
use sealed_mpc::chain::{Part, source, vector};

fn on_disk(name: &str) -> String {
    let path = format!("{}/../spec/circuits/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_committed_files_are_what_the_source_compiles_to() {
    let generated = generate().expect("the circuits compile");
    assert_eq!(
        generated.len(),
        FILES.len() + 1,
        "the files and the manifest"
    );
    for (name, text) in &generated {
        assert!(
            on_disk(name) == *text,
            "spec/circuits/{name} differs from what the source compiles to: \
             `cargo run -p sealed-mpc --bin circuits`, then name the change in the spec"
        );
    }
    assert_eq!(sha256_hex(MANIFEST.as_bytes()), MANIFEST_SHA256);
    let window8 = files::part(Part::Window8).expect("reads");
    assert!(
        vector::garbling(&window8).expect("garbles") == on_disk("../vectors/garbling.json"),
        "spec/vectors/garbling.json differs from what `--bin circuits` writes"
    );
    let games = on_disk("../GAMES.md");
    assert!(
        games.contains(MANIFEST_SHA256),
        "spec/GAMES.md names the manifest's SHA-256"
    );
}

#[test]
fn the_embedded_files_are_the_ones_on_disk() {
    assert_eq!(MANIFEST, on_disk("MANIFEST"));
    for (name, text) in FILES {
        assert!(text == on_disk(name), "{name} embedded differs from disk");
    }
}

#[test]
fn reading_the_files_gives_the_compiled_circuits() {
    for part in Part::ALL {
        let compiled = source::circuit(part).expect("compiles");
        let read = files::part(part).expect("reads");
        let again = bristol::read(&bristol::write(&compiled)).expect("round trip");
        assert_eq!(read.input_gates, again.input_gates, "{}", part.name());
        assert_eq!(read.gates, again.gates, "{}", part.name());
        assert_eq!(read.output_gates, again.output_gates, "{}", part.name());
    }
    let start = files::start().expect("reads");
    let compiled = source::start().expect("compiles");
    assert_eq!(start.input_gates, compiled.input_gates);
    assert_eq!(start.gates.len(), compiled.gates.len());
}
