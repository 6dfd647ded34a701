//! The command line's grammar.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// Offline tools for sealed transcripts and score files.
#[derive(Debug, Parser)]
#[command(name = "sealed", version)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check a transcript file, or every transcript in a directory.
    ///
    /// Exit codes: 0 complete and verified; 1 a proven fault; 2 unreadable input, or
    /// content that does not check (bytes not validly signed, evidence the replay does
    /// not confirm); 3 unconfirmed (unfinished, unclosed, a reveal withheld, open
    /// claims). For a directory, the worst of its files, in the
    /// order 1, 2, 3, 0.
    Verify {
        /// A transcript file, or a directory of them (not searched recursively;
        /// hidden files are skipped).
        path: PathBuf,
        /// Print one JSON document on stdout instead of the report (see cli/JSON.md).
        #[arg(long)]
        json: bool,
    },
    /// Replay a score file and check that every move is legal.
    ///
    /// Exit codes: 0 every move legal; 1 an illegal ply; 2 unreadable input or an
    /// unknown variant.
    Replay {
        /// The variant's name (e.g. `duel`).
        variant: String,
        /// The score file.
        file: PathBuf,
        /// Also draw the final position as SVG into this file (games with a board).
        #[arg(long, value_name = "OUT")]
        svg: Option<PathBuf>,
    },
}
