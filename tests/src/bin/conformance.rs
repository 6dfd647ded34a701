//! The conformance runner's command line (spec/PROTOCOL.md §13.3): every transcript case
//! of spec/vectors/ put to any verifier, and the agreement table printed.
//!
//! ```text
//! cargo run -p sealed-conformance --bin conformance -- [--vectors DIR] [--sealed-json] [--keep DIR] [--timeout SECS] -- COMMAND [ARG…]
//! ```
//!
//! What a case is and how it is compared: `src/conformance.rs`. Exits 0 when every case
//! agrees, 1 when one does not, 2 when it could not run.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use sealed_conformance::conformance::{CASE_TIMEOUT, run_all, vectors_dir};

struct Args {
    vectors: PathBuf,
    sealed_json: bool,
    keep: Option<PathBuf>,
    timeout: Duration,
    command: Vec<String>,
}

fn usage() -> String {
    "usage: conformance [--vectors DIR] [--sealed-json] [--keep DIR] [--timeout SECS] -- COMMAND [ARG...]\n\
     the case's file replaces an argument {} or follows the last argument"
        .into()
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let mut a = Args {
        vectors: vectors_dir(),
        sealed_json: false,
        keep: None,
        timeout: CASE_TIMEOUT,
        command: vec![],
    };
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--vectors" => a.vectors = it.next().ok_or_else(usage)?.into(),
            "--keep" => a.keep = Some(it.next().ok_or_else(usage)?.into()),
            "--sealed-json" => a.sealed_json = true,
            "--timeout" => {
                let secs = it.next().and_then(|s| s.parse().ok()).ok_or_else(usage)?;
                a.timeout = Duration::from_secs(secs);
            }
            "--" => {
                a.command = it.by_ref().collect();
                break;
            }
            _ => return Err(usage()),
        }
    }
    if a.command.is_empty() {
        return Err(usage());
    }
    Ok(a)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let scratch = args.keep.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("sealed-conformance-{}", std::process::id()))
    });
    let rows = run_all(
        &args.vectors,
        &args.command,
        args.sealed_json,
        &scratch,
        args.timeout,
    );
    if args.keep.is_none() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    let rows = match rows {
        Ok(r) => r,
        Err(e) => {
            eprintln!("conformance: {e}");
            return ExitCode::from(2);
        }
    };
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(4).max(4);
    println!("{:width$} | expected | said | agrees", "case");
    println!("{}", "-".repeat(width + 27));
    for r in &rows {
        let exit = r.said.exit.map_or("-".into(), |e| e.to_string());
        match &r.differs {
            None => println!("{:width$} | {:>8} | {exit:>4} | yes", r.name, r.expected),
            Some(why) => println!(
                "{:width$} | {:>8} | {exit:>4} | NO: {why}",
                r.name, r.expected
            ),
        }
    }
    let differ = rows.iter().filter(|r| r.differs.is_some()).count();
    println!(
        "\n{} of {} cases agree{}",
        rows.len() - differ,
        rows.len(),
        if args.sealed_json {
            " (exit codes, faults and results)"
        } else {
            " (exit codes)"
        }
    );
    if differ == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
