//! `sealed`: the offline command line of sealed.
//!
//! `sealed verify` checks transcript files and `sealed replay` checks score files; both
//! work without a node or a network. Every outcome is an exit code a script can act on
//! (see `cli/JSON.md` for the codes and the `--json` document), and no input, however
//! malformed, makes the program panic.

#![forbid(unsafe_code)]

mod args;
mod exit;
mod input;
mod json;
mod output;
mod replay;
mod report;
mod verify;

use clap::Parser;

use crate::args::{Cli, Command};

fn main() {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Verify { path, json } => verify::run(&path, json),
        Command::Replay { variant, file, svg } => replay::run(&variant, &file, svg.as_deref()),
    };
    std::process::exit(code);
}
