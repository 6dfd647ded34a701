//! `sealed completions <shell>` and `sealed man`: shell completions and a man page,
//! generated from the same clap grammar the program parses (args.rs), so they can
//! never disagree with it.

use std::io::Write as _;

use clap::CommandFactory;

use crate::args::Cli;
use crate::output;

/// Writes the completion script for `shell` on stdout.
pub fn completions(shell: clap_complete::Shell) -> i32 {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "sealed", &mut out);
    write(&out)
}

/// Writes the man page (roff, section 1) on stdout: `sealed man > sealed.1`.
pub fn man() -> i32 {
    let mut out = Vec::new();
    if let Err(e) = clap_mangen::Man::new(Cli::command()).render(&mut out) {
        output::error(&format!("cannot write the man page: {e}"));
        return 2;
    }
    write(&out)
}

fn write(bytes: &[u8]) -> i32 {
    match std::io::stdout().lock().write_all(bytes) {
        Ok(()) => 0,
        Err(e) => {
            output::error(&format!("cannot write to stdout: {e}"));
            2
        }
    }
}
