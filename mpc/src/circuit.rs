//! The Garble source and its compilation.

use garble_lang::GarbleProgram;

/// The library every program is compiled with: the files of `src/garble/` in order.
pub const LIBRARY: &[&str] = &[
    include_str!("garble/board.garble.rs"),
    include_str!("garble/position.garble.rs"),
    include_str!("garble/legal.garble.rs"),
    include_str!("garble/judge.garble.rs"),
    include_str!("garble/sha256.garble.rs"),
    include_str!("garble/referee.garble.rs"),
];

/// The exact repetition key, which the one-shot program (`program.rs`) compares; the
/// computation with the state kept compares fingerprints instead (`fingerprint.rs`).
/// The library's `HASH_KEY` is what `key` takes besides the position.
pub const EXACT_KEY: &str = include_str!("garble/exact_key.garble.rs");

/// Compiles the computation of one attempt of this shape. `dedup` merges gates that
/// compute the same thing: about 10 % fewer AND gates, the circuit to run and count; the
/// tests that only evaluate it leave it off (it changes no output, and costs memory).
pub fn compile_shape(shape: &crate::program::Shape, dedup: bool) -> Result<GarbleProgram, String> {
    let src = crate::program::source(shape);
    let opts = garble_lang::CompileOptions {
        optimize_duplicate_gates: dedup,
        ..Default::default()
    };
    garble_lang::compile_with_options(&src, opts).map_err(|e| e.prettify(&src))
}

/// Evaluates a compiled attempt in the clear (what the two parties compute together
/// under MPC), White's input literal first.
pub fn evaluate(
    prg: &GarbleProgram,
    white: &str,
    black: &str,
) -> Result<crate::outputs::Out, String> {
    let w = prg
        .parse_arg(0, white)
        .map_err(|e| format!("white's input: {e:?}"))?;
    let b = prg
        .parse_arg(1, black)
        .map_err(|e| format!("black's input: {e:?}"))?;
    let bits = prg.circuit.eval(&[w.as_bits(), b.as_bits()]);
    let out = prg
        .parse_output(&bits)
        .map_err(|e| format!("the output: {e:?}"))?;
    crate::outputs::read(&out)
}
