//! Writing to the standard streams without panicking.
//!
//! `println!` panics when stdout is gone (e.g. `sealed verify dir | head -1`); these
//! return or swallow the error instead.

use std::io::Write;

/// Writes text to stdout; false when it could not be written.
pub fn stdout(text: &str) -> bool {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .is_ok()
}

/// Writes one line to stderr, prefixed with the program's name. There is nowhere left
/// to report a failure to write to stderr, so it is ignored.
pub fn error(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "sealed: {message}");
}

/// Writes one line of information to stderr (stdout keeps what scripts read).
pub fn note(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{message}");
}
