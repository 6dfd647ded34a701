//! Chex's score format, read by `sealed replay chex` and written by `export`.
//!
//! ```text
//! [Event "a sample"]
//! [PlyLimit "40"]
//!
//! 1. N@a1 K@c2 2. Q@d3 { Black's King is attacked } 2... B@c1 3. Qxc3 1-0
//! ```
//!
//! Tag lines `[Key "value"]` come first (`PlyLimit` is read, other tags are kept out of
//! the play); then the plies, each optionally preceded by a move number (`1.` before
//! White's ply, `1...` before Black's); text in braces is a comment; a result token
//! (`1-0`, `0-1`, `1/2-1/2`, `*`) may come last. A draw and its placement is one ply,
//! written `<Piece>@<square>` with the piece drawn (a score cannot redo the random
//! pick); a chess move is written as in [`super::notation`].

use super::board::Color;
use super::notation;
use super::position::{End, PlayError, Ply, Position};
use crate::replay::{ReplayError, Replayed};

fn unreadable(s: impl Into<String>) -> ReplayError {
    ReplayError::Unreadable(s.into())
}

/// The result token of a game that ended (`1-0`, `0-1`, `1/2-1/2`), or `*`.
pub fn result_token(end: Option<End>) -> &'static str {
    match end.map(End::winner) {
        None => "*",
        Some(Some(Color::White)) => "1-0",
        Some(Some(Color::Black)) => "0-1",
        Some(None) => "1/2-1/2",
    }
}

/// A score split into its parts, before any ply is played.
struct Parsed {
    tags: Vec<(String, String)>,
    /// Move tokens and move numbers, comments removed.
    tokens: Vec<String>,
    result: Option<String>,
}

fn parse(text: &str) -> Result<Parsed, ReplayError> {
    let mut tags: Vec<(String, String)> = vec![];
    let mut body = String::new();
    for line in text.lines() {
        let t = line.trim();
        if body.trim().is_empty() && t.starts_with('[') {
            let inner = t
                .strip_prefix('[')
                .and_then(|x| x.strip_suffix(']'))
                .ok_or_else(|| unreadable(format!("bad tag line {t:?}")))?;
            let (k, v) = inner
                .split_once(' ')
                .ok_or_else(|| unreadable(format!("bad tag line {t:?}")))?;
            let v = v
                .trim()
                .strip_prefix('"')
                .and_then(|x| x.strip_suffix('"'))
                .ok_or_else(|| unreadable(format!("tag {k}: the value must be quoted")))?;
            if tags.iter().any(|(j, _)| j == k) {
                return Err(unreadable(format!("tag {k} given twice")));
            }
            tags.push((k.to_owned(), v.to_owned()));
        } else {
            body.push_str(line);
            body.push('\n');
        }
    }
    let mut tokens = vec![];
    let mut cur = String::new();
    let mut depth = 0usize;
    for c in body.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return Err(unreadable("unmatched '}'")),
            '}' => depth -= 1,
            _ if depth > 0 => continue,
            c if c.is_whitespace() => {}
            c => {
                cur.push(c);
                continue;
            }
        }
        // A comment or a space ends the token before it.
        if !cur.is_empty() {
            tokens.push(std::mem::take(&mut cur));
        }
    }
    if depth > 0 {
        return Err(unreadable("unclosed '{'"));
    }
    if !cur.is_empty() {
        tokens.push(cur);
    }
    let mut result = None;
    if let Some(last) = tokens.last()
        && is_result(last)
    {
        result = tokens.pop();
    }
    if let Some(r) = tokens.iter().find(|t| is_result(t)) {
        return Err(unreadable(format!("the result {r} must come last")));
    }
    Ok(Parsed {
        tags,
        tokens,
        result,
    })
}

fn is_result(t: &str) -> bool {
    matches!(t, "1-0" | "0-1" | "1/2-1/2" | "*")
}

/// `7.` (White's) or `7...` (Black's) as a move number and colour.
fn move_number(t: &str) -> Option<(u32, Color)> {
    let digits = t.trim_end_matches('.');
    let color = match t.len() - digits.len() {
        1 => Color::White,
        3 => Color::Black,
        _ => return None,
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((digits.parse().ok()?, color))
}

/// Replays score text to its final position; returns it with the plies played.
pub fn replay_score(text: &str) -> Result<(Position, Vec<Ply>), ReplayError> {
    let parsed = parse(text)?;
    let mut ply_limit = 0;
    for (k, v) in &parsed.tags {
        if k == "PlyLimit" {
            ply_limit = v
                .parse()
                .map_err(|_| unreadable(format!("PlyLimit must be a number, not {v:?}")))?;
        }
    }
    let mut pos = Position::new(ply_limit);
    let mut plies = vec![];
    let mut number: Option<(u32, Color)> = None;
    for tok in &parsed.tokens {
        if tok == "..." {
            match number {
                Some((n, Color::White)) => number = Some((n, Color::Black)),
                _ => return Err(unreadable("'...' must follow a move number")),
            }
            continue;
        }
        if let Some(n) = move_number(tok) {
            number = Some(n);
            continue;
        }
        // Checked here rather than at the number, so that `7. ...` can complete it.
        check_number(&pos, number.take())?;
        let index = plies.len() + 1;
        let w = notation::read(tok).map_err(|e| unreadable(e.to_string()))?;
        let ply = notation::resolve(&pos, &w).map_err(|e| ReplayError::Illegal {
            ply: index,
            reason: format!("{tok}: {e}"),
        })?;
        pos.play_ply(&ply).map_err(|e| ReplayError::Illegal {
            ply: index,
            reason: e.to_string(),
        })?;
        plies.push(ply);
    }
    if let (Some(claim), Some(end)) = (&parsed.result, pos.end)
        && claim != "*"
        && claim != result_token(Some(end))
    {
        return Err(ReplayError::Illegal {
            ply: plies.len(),
            reason: format!(
                "the score says {claim}, the position says {} ({})",
                result_token(Some(end)),
                end.reason()
            ),
        });
    }
    Ok((pos, plies))
}

fn check_number(pos: &Position, number: Option<(u32, Color)>) -> Result<(), ReplayError> {
    let Some((n, color)) = number else {
        return Ok(());
    };
    let want = (pos.ply / 2 + 1, pos.to_move);
    if (n, color) == want {
        return Ok(());
    }
    let dots = |c: Color| if c == Color::White { "." } else { "..." };
    Err(unreadable(format!(
        "move number {n}{} out of place: the next ply is {}{}",
        dots(color),
        want.0,
        dots(want.1)
    )))
}

/// Replays score text: every ply must be legal and name exactly one move.
pub fn replay(text: &str) -> Result<Replayed, ReplayError> {
    let (pos, plies) = replay_score(text)?;
    Ok(Replayed {
        plies: plies.len(),
        position: super::render::text(&pos),
        result: pos
            .end
            .map(|e| format!("{} ({})", result_token(Some(e)), e.reason())),
        svg: Some(super::render::svg(&pos)),
    })
}

/// Why a game cannot be written as score text: a ply the position refuses.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("ply {ply} ({written}): {why}")]
pub struct WriteError {
    /// The ply's number, from 1.
    pub ply: usize,
    /// The ply as the notation writes it.
    pub written: String,
    /// Why the position refuses it.
    pub why: PlayError,
}

/// Writes a game from the start as score text: a `PlyLimit` tag if there is a limit,
/// numbered plies in canonical notation, and the result token (`*` while unfinished).
/// Fails at the first illegal ply.
pub fn write_score(ply_limit: u32, plies: &[Ply]) -> Result<String, WriteError> {
    write_score_ended(ply_limit, plies, None)
}

/// [`write_score`] of a game that may have ended off the board: when the plies leave the
/// position unfinished and `ending` gives a result token and a reason (a resignation, an
/// agreed draw, a loss on time), the reason is written as a comment and the token as the
/// result (a replay takes both: only a position's own end is checked against the token).
pub fn write_score_ended(
    ply_limit: u32,
    plies: &[Ply],
    ending: Option<(&str, &str)>,
) -> Result<String, WriteError> {
    let mut s = String::new();
    if ply_limit > 0 {
        s.push_str(&format!("[PlyLimit \"{ply_limit}\"]\n\n"));
    }
    let mut pos = Position::new(ply_limit);
    for (i, ply) in plies.iter().enumerate() {
        if pos.to_move == Color::White {
            s.push_str(&format!("{}. ", pos.ply / 2 + 1));
        }
        let written = notation::write_ply(&pos, ply);
        pos.play_ply(ply).map_err(|why| WriteError {
            ply: i + 1,
            written: written.clone(),
            why,
        })?;
        s.push_str(&written);
        s.push(if i % 10 == 9 { '\n' } else { ' ' });
    }
    match ending.filter(|_| pos.end.is_none()) {
        Some((token, reason)) => {
            let reason = reason.replace('}', ")").replace('{', "(");
            s.push_str(&format!("{{{reason}}} {token}"));
        }
        None => s.push_str(result_token(pos.end)),
    }
    s.push('\n');
    Ok(s)
}
