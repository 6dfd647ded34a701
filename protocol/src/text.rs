//! Text from others, made safe to show: a name or a move typed by the opponent, or read
//! from a transcript anyone may have written, goes to a terminal only escaped and
//! shortened, so it can neither act on the terminal (ESC, BEL) nor hide or reorder what
//! is around it (U+202E and the other direction marks), nor flood the screen.

/// Whether a character is one a terminal acts on or that reorders or hides text: the
/// control characters, and Unicode's direction and invisible formatting marks.
pub fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{200B}'..='\u{200F}'   // zero-width spaces and joiners, LRM, RLM
            | '\u{202A}'..='\u{202E}' // embeddings and overrides
            | '\u{2060}'..='\u{2064}' // word joiner, invisible operators
            | '\u{2066}'..='\u{2069}' // isolates
            | '\u{FEFF}') // byte order mark
}

/// `text` as it may be shown: each hidden character as its `\u{…}` escape, and at
/// most `max` characters of it, then `…` and how many bytes were left out.
pub fn shown(text: &str, max: usize) -> String {
    let mut out = String::from('"');
    for (n, (i, c)) in text.char_indices().enumerate() {
        if n == max {
            out.push_str(&format!("\"… ({} more bytes)", text.len() - i));
            return out;
        }
        if is_hidden(c) {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    out.push('"');
    out
}

/// A display name from a proposal or a transcript, as it may stand in a line: hidden
/// characters escaped, no quotes, at most 64 characters (the most a proposal allows in
/// bytes, spec/PROTOCOL.md §5.1 step 6) and `…` beyond.
pub fn name(text: &str) -> String {
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == 64 {
            out.push('…');
            break;
        }
        if is_hidden(c) {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_are_escaped_and_long_text_cut() {
        assert_eq!(shown("alice", 40), "\"alice\"");
        assert!(!shown("a\u{1b}[2Jb", 40).contains('\u{1b}'));
        assert!(shown("a\u{202E}b", 40).contains("\\u{202e}"));
        let long = "x".repeat(100_000);
        let s = shown(&long, 40);
        assert!(s.len() < 80, "{s}");
        assert!(s.contains("99960 more bytes"), "{s}");
        assert!(!is_hidden('é') && !is_hidden(' '));
        assert_eq!(name("bob"), "bob");
        assert_eq!(name("b\u{7}ob"), "b\\u{7}ob");
        assert!(name(&"n".repeat(500)).ends_with('…'));
    }
}
