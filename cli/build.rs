//! The release binary keeps its line tables (Cargo.toml: `debug = "line-tables-only"`),
//! so that a panic's backtrace names files, lines and inlined frames, but stores them
//! compressed (zlib, which the standard library's backtrace reads): 162 MB becomes 63 MB
//! on Linux, in one file that `cargo install` installs whole. Stripping them instead
//! (31 MB) leaves backtraces with function names only and no inlined frames; splitting
//! them off (`split-debuginfo = "packed"`) leaves the line tables in the binary and the
//! inlined frames in a `.dwp` that `cargo install` does not install. docs/PERFORMANCE.md
//! keeps the sizes. Debug builds are left alone: compressing their full debug info would
//! slow every link.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let release = std::env::var("PROFILE").as_deref() == Ok("release");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux");
    if release && linux {
        // Both linkers Rust uses on Linux (GNU ld and lld) take it.
        println!("cargo:rustc-link-arg-bins=-Wl,--compress-debug-sections=zlib");
    }
}
