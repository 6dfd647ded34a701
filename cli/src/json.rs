//! The `--json` documents: `sealed verify`'s, pretty, and the node's answers (`games`,
//! `show`, `peers`) in one line; cli/JSON.md describes them field by field.

use serde::Serialize;

use sealed_node::checked::{FileJson, FileReport};

/// A directory's object.
#[derive(Serialize)]
struct DirJson<'a> {
    exit: i32,
    files: Vec<FileJson<'a>>,
}

/// The document for one file, with a final newline.
pub fn file(r: &FileReport) -> String {
    render(&r.json())
}

/// The document for a directory, with a final newline.
pub fn dir(exit: i32, reports: &[FileReport]) -> String {
    render(&DirJson {
        exit,
        files: reports.iter().map(FileReport::json).collect(),
    })
}

/// A node's typed answer as the one line `--json` prints, with a final newline: compact,
/// every object's keys in order, as the node writes it on its socket
/// (`sealed_node::control::json_text`).
pub fn line(value: &impl Serialize) -> String {
    // As `render`: these types always serialize; should one not, the line says why.
    match sealed_node::control::json_text(value) {
        Ok(s) => s + "\n",
        Err(e) => format!("{{\"error\":{:?}}}\n", e.to_string()),
    }
}

fn render(value: &impl Serialize) -> String {
    // Every type here serializes to JSON without failing (string keys, no floats), but
    // should that ever change, the document still says what went wrong.
    match serde_json::to_string_pretty(value) {
        Ok(s) => s + "\n",
        Err(e) => format!("{{\"exit\": 2, \"error\": {:?}}}\n", e.to_string()),
    }
}
