//! `sealed verify`: check one transcript file, or every transcript in a directory.

use std::fs;
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use sealed_node::checked::{FileReport, Unreadable};
use sealed_protocol::transcript::MAGIC;
use sealed_protocol::wire::MAX_TRANSCRIPT;

use crate::exit;
use crate::input::read_capped;
use crate::{json, output, report};

/// Runs the command; returns the exit code.
pub fn run(path: &Path, json: bool) -> i32 {
    let (code, text) = match list_dir(path) {
        Some(Ok(listed)) => {
            // A folder an export wrote into holds scores and PGN beside the transcripts:
            // those are passed over, each said.
            let (files, others): (Vec<PathBuf>, Vec<PathBuf>) =
                listed.into_iter().partition(|p| !is_other_document(p));
            for o in &others {
                output::error(&format!(
                    "{}: skipped, a document beside the transcripts",
                    o.display()
                ));
            }
            if files.is_empty() {
                // Exit 0 here would read as "all verified" to a script: nothing was.
                output::error(&nothing_to_check(path, others.len()));
                let text = if json {
                    json::dir(exit::UNREADABLE, &[])
                } else {
                    String::new()
                };
                return finish(exit::UNREADABLE, &text);
            }
            let reports = check_all(&files);
            for r in &reports {
                if let Err(e) = &r.checked {
                    output::error(&format!("{}: {e}", r.file));
                }
            }
            let code = exit::worst(reports.iter().map(|r| r.exit));
            let text = if json {
                json::dir(code, &reports)
            } else {
                report::table(code, &reports)
            };
            (code, text)
        }
        listed => {
            let r = match listed {
                Some(Err(e)) => FileReport {
                    file: path.display().to_string(),
                    exit: exit::UNREADABLE,
                    checked: Err(Unreadable::File(e)),
                    players: vec![],
                    witness: None,
                },
                _ => check_file(path),
            };
            let text = if json {
                json::file(&r)
            } else {
                match &r.checked {
                    Ok(_) => report::file(&r),
                    // The reason goes to stderr below; an empty report says no more.
                    Err(_) => String::new(),
                }
            };
            if let Err(e) = &r.checked {
                output::error(&format!("{}: {e}", r.file));
            }
            (r.exit, text)
        }
    };
    finish(code, &text)
}

/// Prints the report and returns the exit code, or 2 if stdout cannot take it.
fn finish(code: i32, text: &str) -> i32 {
    if output::stdout(text) {
        code
    } else {
        output::error("cannot write to stdout");
        exit::UNREADABLE
    }
}

/// Why a folder gave nothing to check, and where transcripts come from.
fn nothing_to_check(dir: &Path, passed_over: usize) -> String {
    let holds = match passed_over {
        0 => "no transcript".to_owned(),
        1 => "no transcript, only the document passed over above".to_owned(),
        n => format!("no transcript, only the {n} documents passed over above"),
    };
    format!(
        "{}: nothing to check: the folder holds {holds}. A transcript is the file \
         `sealed export GAME --transcript FILE` or `sealed demo VARIANT --out FILE` writes",
        dir.display()
    )
}

/// Whether a file in a folder is one of the documents the export and mail commands
/// write beside transcripts (a score, PGN, SVG, JSON or mail, by its name) and does not
/// begin with the transcript magic: it is passed over. Every other file is checked, so a
/// damaged transcript is reported whatever its name.
fn is_other_document(p: &Path) -> bool {
    let named = p.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["txt", "pgn", "svg", "json", "mail", "asc"].contains(&e.to_ascii_lowercase().as_str())
    });
    let mut head = [0u8; 8];
    let magic = fs::File::open(p)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| head[..] == MAGIC[..]);
    named && !magic
}

/// The files to check when `path` is a directory: every regular file directly in it,
/// hidden ones excepted, sorted by name so the output is stable. `None` when `path` is
/// not a directory; an error when it is one that cannot be listed.
fn list_dir(path: &Path) -> Option<Result<Vec<PathBuf>, String>> {
    if !fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return None;
    }
    let entries = match fs::read_dir(path) {
        Ok(entries) => entries,
        Err(e) => return Some(Err(format!("cannot list directory: {e}"))),
    };
    let mut files = vec![];
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => return Some(Err(format!("cannot list directory: {e}"))),
        };
        if entry.file_name().as_encoded_bytes().starts_with(b".") {
            continue;
        }
        let p = entry.path();
        // Follows symbolic links; a link that leads nowhere is kept, so that its
        // failure to open is reported rather than silently passed over.
        match fs::metadata(&p) {
            Ok(m) if !m.is_file() => continue,
            _ => files.push(p),
        }
    }
    files.sort();
    Some(Ok(files))
}

/// Checks files in parallel, in their given order, with a progress bar on stderr
/// (indicatif hides it when stderr is not a terminal).
fn check_all(files: &[PathBuf]) -> Vec<FileReport> {
    let bar = ProgressBar::new(files.len() as u64);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {pos}/{len} transcripts checked ({eta} left)")
    {
        bar.set_style(style);
    }
    let reports = files
        .par_iter()
        .map(|f| {
            let r = check_file(f);
            bar.inc(1);
            r
        })
        .collect();
    bar.finish_and_clear();
    reports
}

/// Checks one transcript file.
pub fn check_file(path: &Path) -> FileReport {
    let bytes = read_capped(path, MAGIC.len() + MAX_TRANSCRIPT).map_err(Unreadable::File);
    FileReport::of_bytes(path.display().to_string(), bytes)
}
