//! `sealed replay`: check that every move of a score file is legal.

use std::path::Path;

use sealed_games::variant::Variant;

use sealed_protocol::transcript::MAGIC;

use crate::input::read_capped;
use crate::output;

/// Scores are a few kilobytes; the cap only keeps a wrong argument (a device, a huge
/// file) from exhausting memory.
const MAX_SCORE: usize = 16 * 1024 * 1024;

/// Runs the command; returns the exit code.
pub fn run(variant: &str, file: &Path, svg: Option<&Path>) -> i32 {
    let Some(v) = Variant::parse(variant) else {
        let known: Vec<&str> = Variant::all().map(|v| v.name()).collect();
        output::error(&format!(
            "unknown variant {variant:?} (known: {})",
            known.join(", ")
        ));
        return 2;
    };
    let text = match read_capped(file, MAX_SCORE).and_then(|bytes| score_text(file, bytes)) {
        Ok(text) => text,
        Err(e) => {
            output::error(&format!("{}: {e}", file.display()));
            return 2;
        }
    };
    // An empty file is no score: more likely the wrong file than a game with no move.
    if text.trim().is_empty() {
        output::error(&format!(
            "{}: empty: a score has at least a tag or a move",
            file.display()
        ));
        return 2;
    }
    let (code, report) = match v.replay(&text) {
        Ok(r) => {
            if let Some(out) = svg {
                let Some(drawing) = &r.svg else {
                    output::error(&format!("{variant} has no board to draw"));
                    return 2;
                };
                if let Err(e) = std::fs::write(out, drawing) {
                    output::error(&format!("{}: {e}", out.display()));
                    return 2;
                }
            }
            let position = if r.position.contains('\n') {
                format!("\n{}", r.position.trim_end())
            } else {
                r.position.clone()
            };
            (
                0,
                format!(
                    "plies     {}\nposition  {position}\nresult    {}\n",
                    r.plies,
                    r.result.as_deref().unwrap_or("none (the game is not over)")
                ),
            )
        }
        Err(e) => {
            let code = e.exit_code();
            if code == 1 {
                (code, format!("illegal: {e}\n"))
            } else {
                output::error(&format!(
                    "{}: {e}{}",
                    file.display(),
                    other_variant(v, &text, file)
                ));
                (code, String::new())
            }
        }
    };
    if output::stdout(&report) { code } else { 2 }
}

/// The bytes of a score as text, or why they are not one: a transcript given here is
/// named as such, with the command that reads it.
fn score_text(file: &Path, bytes: Vec<u8>) -> Result<String, String> {
    if bytes.starts_with(MAGIC) {
        return Err(format!(
            "this is a sealed transcript, not a score: check it with `sealed verify {f}`; \
             a score is the text `sealed export GAME --score FILE` writes",
            f = file.display()
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not text (byte {} is not UTF-8): a score is a text file of moves",
            e.utf8_error().valid_up_to()
        )
    })
}

/// When a score does not read as `asked`'s but replays as another variant's, the
/// words that say so and the command to use; empty otherwise.
fn other_variant(asked: Variant, text: &str, file: &Path) -> String {
    let fits: Vec<&str> = Variant::all()
        .filter(|v| v.name() != asked.name() && v.replay(text).is_ok())
        .map(|v| v.name())
        .collect();
    match fits.as_slice() {
        [] => String::new(),
        [one, ..] => format!(
            ". It is not a {} score: it replays as a {one} score (`sealed replay {one} {}`)",
            asked.name(),
            file.display()
        ),
    }
}
