//! The `--json` documents of `sealed verify`; cli/JSON.md describes them field by field.

use sealed_protocol::verdict::Verdict;
use serde::Serialize;

use crate::verify::FileReport;

/// One file's object.
#[derive(Serialize)]
struct FileJson<'a> {
    file: &'a str,
    exit: i32,
    status: &'a str,
    verdict: Option<&'a Verdict>,
    unsigned: &'a [String],
    unconfirmed_evidence: &'a [String],
    error: Option<&'a str>,
    players: &'a [sealed_node::core::PlayerView],
}

/// A directory's object.
#[derive(Serialize)]
struct DirJson<'a> {
    exit: i32,
    files: Vec<FileJson<'a>>,
}

fn view(r: &FileReport) -> FileJson<'_> {
    let (verdict, unsigned, unconfirmed_evidence, error) = match &r.checked {
        Ok(c) => (
            Some(&c.verdict),
            c.unsigned.as_slice(),
            c.unconfirmed_evidence.as_slice(),
            None,
        ),
        Err(e) => (None, &[][..], &[][..], Some(e.as_str())),
    };
    FileJson {
        file: &r.file,
        exit: r.exit,
        status: r.status(),
        verdict,
        unsigned,
        unconfirmed_evidence,
        error,
        players: &r.players,
    }
}

/// The document for one file, with a final newline.
pub fn file(r: &FileReport) -> String {
    render(&view(r))
}

/// The document for a directory, with a final newline.
pub fn dir(exit: i32, reports: &[FileReport]) -> String {
    render(&DirJson {
        exit,
        files: reports.iter().map(view).collect(),
    })
}

fn render(value: &impl Serialize) -> String {
    // Every type here serializes to JSON without failing (string keys, no floats), but
    // should that ever change, the document still says what went wrong.
    match serde_json::to_string_pretty(value) {
        Ok(s) => s + "\n",
        Err(e) => format!("{{\"exit\": 2, \"error\": {:?}}}\n", e.to_string()),
    }
}
