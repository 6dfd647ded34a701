//! Reading a score, first step: text to tags and movetext tokens (words, `<…>` groups,
//! move numbers, the result), comments and side lines dropped, every input capped.

use crate::chess::Color;
use crate::replay::ReplayError;

use super::unreadable;

/// A token of the movetext.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    /// A move number and the side it announces.
    Number(u32, Color),
    /// A bare word: a move.
    Word(String),
    /// The words of a `<…>` group.
    Group(Vec<String>),
}

pub(super) struct Parsed {
    pub(super) tags: Vec<(String, String)>,
    pub(super) toks: Vec<Tok>,
    pub(super) result: Option<String>,
}

/// Longest score text read: far more than any game, small enough to keep garbage cheap.
pub(super) const MAX_TEXT: usize = 4 << 20;

pub(super) fn parse(text: &str) -> Result<Parsed, ReplayError> {
    if text.len() > MAX_TEXT {
        return Err(unreadable("the score is longer than 4 MiB"));
    }
    let mut tags: Vec<(String, String)> = vec![];
    let mut body = String::new();
    for line in text.lines() {
        let t = line.trim();
        if body.trim().is_empty() && t.starts_with('[') {
            let (k, v) = tag_line(t)?;
            if tags.iter().any(|(j, _)| *j == k) {
                return Err(unreadable(format!("tag {k} given twice")));
            }
            tags.push((k, v));
        } else if !t.starts_with('%') {
            body.push_str(line);
            body.push('\n');
        }
    }
    let mut words: Vec<Tok> = vec![];
    let mut cur = String::new();
    let mut chars = body.chars();
    let flush = |cur: &mut String, words: &mut Vec<Tok>| -> Result<(), ReplayError> {
        if !cur.is_empty() {
            let w = std::mem::take(cur);
            split_word(&w, words)?;
        }
        Ok(())
    };
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                flush(&mut cur, &mut words)?;
                skip_comment(&mut chars)?;
            }
            ';' => {
                flush(&mut cur, &mut words)?;
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '(' => {
                flush(&mut cur, &mut words)?;
                let mut depth = 1usize;
                while depth > 0 {
                    match chars.next() {
                        None => return Err(unreadable("unclosed '('")),
                        Some('(') => depth += 1,
                        Some(')') => depth -= 1,
                        Some('{') => skip_comment(&mut chars)?,
                        Some(_) => {}
                    }
                }
            }
            '<' => {
                flush(&mut cur, &mut words)?;
                let mut inner = String::new();
                loop {
                    match chars.next() {
                        None => return Err(unreadable("unclosed '<'")),
                        Some('>') => break,
                        Some(c @ ('<' | '{' | '}' | '(' | ')' | '[' | ']')) => {
                            return Err(unreadable(format!("{c:?} inside <…>")));
                        }
                        Some(c) => inner.push(c),
                    }
                }
                words.push(Tok::Group(
                    inner.split_whitespace().map(str::to_owned).collect(),
                ));
            }
            '}' | ')' | '>' => return Err(unreadable(format!("unmatched {c:?}"))),
            c if c.is_whitespace() => flush(&mut cur, &mut words)?,
            c => cur.push(c),
        }
    }
    flush(&mut cur, &mut words)?;
    let mut result = None;
    if let Some(Tok::Word(last)) = words.last()
        && is_result(last)
    {
        result = Some(last.clone());
        words.pop();
    }
    if let Some(Tok::Word(r)) = words
        .iter()
        .find(|t| matches!(t, Tok::Word(w) if is_result(w)))
    {
        return Err(unreadable(format!("the result {r} must come last")));
    }
    Ok(Parsed {
        tags,
        toks: words,
        result,
    })
}

pub(super) fn skip_comment(chars: &mut std::str::Chars<'_>) -> Result<(), ReplayError> {
    for c in chars.by_ref() {
        if c == '}' {
            return Ok(());
        }
    }
    Err(unreadable("unclosed '{'"))
}

pub(super) fn tag_line(t: &str) -> Result<(String, String), ReplayError> {
    let bad = || unreadable(format!("bad tag line {t:?}"));
    let inner = t
        .strip_prefix('[')
        .and_then(|x| x.strip_suffix(']'))
        .ok_or_else(bad)?;
    let (k, v) = inner.split_once(' ').ok_or_else(bad)?;
    if k.is_empty() || !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(bad());
    }
    let v = v
        .trim()
        .strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .ok_or_else(|| unreadable(format!("tag {k}: the value must be quoted")))?;
    Ok((k.to_owned(), v.replace("\\\"", "\"").replace("\\\\", "\\")))
}

/// Splits a bare word: `12.` and `12...` are numbers, `12.e4` a number and a move, a
/// NAG `$1` is dropped.
pub(super) fn split_word(w: &str, out: &mut Vec<Tok>) -> Result<(), ReplayError> {
    // NAGs and a detached en passant mark name no move.
    if w.starts_with('$') || w == "e.p." || w == "ep" {
        return Ok(());
    }
    if w == "..." || w == "…" {
        return match out.last_mut() {
            Some(Tok::Number(_, c @ Color::White)) => {
                *c = Color::Black;
                Ok(())
            }
            _ => Err(unreadable("'...' must follow a move number")),
        };
    }
    if is_result(w) || !w.starts_with(|c: char| c.is_ascii_digit()) {
        out.push(Tok::Word(w.to_owned()));
        return Ok(());
    }
    let digits = w.trim_start_matches(|c: char| c.is_ascii_digit());
    let n: u32 = w[..w.len() - digits.len()]
        .parse()
        .map_err(|_| unreadable(format!("{w:?}: move number too large")))?;
    let rest = digits.trim_start_matches('.');
    let side = match digits.len() - rest.len() {
        1 => Color::White,
        2 | 3 => Color::Black,
        _ => {
            return Err(unreadable(format!(
                "{w:?} is neither a move nor a move number"
            )));
        }
    };
    out.push(Tok::Number(n, side));
    if !rest.is_empty() {
        split_word(rest, out)?;
    }
    Ok(())
}

pub(super) fn is_result(t: &str) -> bool {
    matches!(t, "1-0" | "0-1" | "1/2-1/2" | "*")
}
