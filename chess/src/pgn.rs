//! What every PGN export on our chess board shares: the seven-tag roster, tag and
//! comment escaping, and movetext wrapped for reading.

use std::fmt::Write as _;

/// The roster's tags with their defaults, in order.
pub const ROSTER: [(&str, &str); 7] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
];

/// A tag value with `\` and `"` escaped and line breaks made spaces.
pub fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace(['\n', '\r'], " ")
}

/// A `{…}` comment; braces inside become parentheses, as PGN comments cannot nest.
pub fn comment(t: &str) -> String {
    format!("{{{}}}", t.replace('}', ")").replace('{', "("))
}

/// Writes one tag pair line.
pub fn tag(out: &mut String, key: &str, value: &str) {
    let _ = writeln!(out, "[{key} \"{}\"]", escape(value));
}

/// Writes the seven-tag roster: the caller's value of each tag where it gives one, the
/// default otherwise, and `result` for `Result` whatever the caller says.
pub fn roster(out: &mut String, given: impl Fn(&str) -> Option<String>, result: &str) {
    for (k, default) in ROSTER {
        let v = if k == "Result" {
            result.to_owned()
        } else {
            given(k).unwrap_or_else(|| default.to_owned())
        };
        tag(out, k, &v);
    }
}

/// Joins words into lines of at most 79 characters where the words allow (PGN's
/// export limit is 255).
pub fn wrap<'a>(words: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    let mut width = 0usize;
    for word in words {
        let len = word.chars().count();
        if width > 0 && width + 1 + len > 79 {
            out.push('\n');
            width = 0;
        } else if width > 0 {
            out.push(' ');
            width += 1;
        }
        out.push_str(word);
        width += len;
    }
    out
}
