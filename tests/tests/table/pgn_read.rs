//! A strict reader of PGN's export format, for the tests (issue 55: every PGN a game
//! writes reads back in a PGN reader, with every move).
//!
//! It reads what the standard (PGN spec §8) and python-chess's reader read: tag pairs
//! (`[Key "value"]`, with `\"` and `\\` the only escapes), the seven-tag roster first and
//! in order, then movetext of move numbers (`12.` before White's move, `12...` before
//! Black's), SAN symbols (and `--`, the null move ChessBase and python-chess read),
//! `{…}` and `;` comments, NAGs (`$n`), `( … )` variations, and the game termination
//! marker, which must be the last token and equal the `Result` tag.
//!
//! It is stricter than python-chess where the export format is: a move number must be
//! the number of the move it stands before (python-chess skips numbers, so a missing move
//! shifts every move after it to the other side without a word), and Black's move after a
//! comment, a NAG or a variation carries its number (`3...`). It does not play the moves:
//! `pgn_replay.rs` does, on each variant's own rules.
//!
//! Its score dialect ([`read_score`]) reads the score files of the games that write no
//! PGN by the same movetext rules, with each game's own move symbols, their option tags
//! instead of the roster, and a `Result` tag only where they write one.

/// One move of the main line or of a variation, as written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Ply {
    /// The SAN symbol (`Nf3`, `O-O`, `e8=Q+`, `--`), without its `!`/`?` suffixes.
    pub san: String,
    /// The comments after the move, up to the next move: a reader gives them to it.
    pub comments: Vec<String>,
    /// Its numeric annotation glyphs.
    pub nags: Vec<u32>,
    /// Variations that replace this move.
    pub variations: Vec<Vec<Ply>>,
}

/// A game as read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pgn {
    /// The tag pairs, in order.
    pub tags: Vec<(String, String)>,
    /// Comments before the first move (the game's, not a move's).
    pub before: Vec<String>,
    /// The main line.
    pub moves: Vec<Ply>,
    /// The game termination marker.
    pub result: String,
}

impl Pgn {
    /// A tag's value.
    pub(crate) fn tag(&self, key: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// The roster, in the order the export format writes it.
const ROSTER: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Number(u32, bool),
    Symbol(String),
    Comment(String),
    Nag(u32),
    Open,
    Close,
    Result(String),
}

/// How strictly to read: the export format, or a game's score file, which is PGN's
/// movetext with its own move symbols (Chex's drops `N@a1`, Cardmate's cards `4Ci3`,
/// `9H:c5`, `QS:f0×`), its option tags instead of the roster, and `7. ...` for Black.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    Export,
    Score,
}

/// Reads one game in PGN's export format; an error says what is not PGN and where.
pub(crate) fn read(text: &str) -> Result<Pgn, String> {
    read_as(text, Dialect::Export)
}

/// Reads one game's score file (see [`Dialect::Score`]): the same movetext rules, no
/// roster, and a `Result` tag only if the score has one.
pub(crate) fn read_score(text: &str) -> Result<Pgn, String> {
    read_as(text, Dialect::Score)
}

fn read_as(text: &str, dialect: Dialect) -> Result<Pgn, String> {
    let mut pgn = Pgn::default();
    let mut lines = text.lines().enumerate().peekable();
    while let Some((n, line)) = lines.next_if(|(_, l)| l.starts_with('[')) {
        let (k, v) = tag_pair(line).map_err(|e| format!("line {}: {e}: {line:?}", n + 1))?;
        if pgn.tags.iter().any(|(t, _)| *t == k) {
            return Err(format!("line {}: tag {k} given twice", n + 1));
        }
        pgn.tags.push((k, v));
    }
    let keys: Vec<&str> = pgn.tags.iter().take(7).map(|(k, _)| k.as_str()).collect();
    if dialect == Dialect::Export && keys != ROSTER {
        return Err(format!(
            "the seven-tag roster is not first and in order: {keys:?}"
        ));
    }
    // A score's movetext may follow its tags at once (Duel's does).
    if dialect == Dialect::Export {
        match lines.next() {
            Some((_, "")) => {}
            Some((n, l)) => {
                return Err(format!(
                    "line {}: no blank line after the tags: {l:?}",
                    n + 1
                ));
            }
            None => return Err("no movetext".into()),
        }
    }
    let rest: Vec<&str> = lines.map(|(_, l)| l).collect();
    if let Some(l) = rest.iter().find(|l| l.chars().count() > 255) {
        return Err(format!("a movetext line is over 255 characters: {l:?}"));
    }
    let toks = tokens(&rest.join("\n"), dialect)?;
    if let Some(at) = toks.iter().position(|t| matches!(t, Tok::Result(_)))
        && at + 1 != toks.len()
    {
        return Err(format!(
            "the result {:?} before the movetext ends",
            toks[at]
        ));
    }
    let Some((Tok::Result(end), body)) = toks.split_last() else {
        return Err("the movetext does not end with a game termination marker".into());
    };
    pgn.result = end.clone();
    let tagged = pgn.tag("Result").unwrap_or(match dialect {
        Dialect::Export => "",
        Dialect::Score => end,
    });
    if tagged != end {
        return Err(format!(
            "the Result tag {tagged:?} is not the termination marker {end:?}"
        ));
    }
    let (white, number) = first_move(&pgn)?;
    let mut at = 0;
    let (before, moves) = line(body, &mut at, white, number, 0)?;
    if at != body.len() {
        return Err(format!("unbalanced `)` at token {at}: {:?}", body[at]));
    }
    pgn.before = before;
    pgn.moves = moves;
    Ok(pgn)
}

/// Who moves first and the number of the first move: from the FEN tag when `SetUp` is
/// "1", else White's move 1.
fn first_move(pgn: &Pgn) -> Result<(bool, u32), String> {
    if pgn.tag("SetUp") != Some("1") {
        if pgn.tag("FEN").is_some() {
            return Err("a FEN tag without SetUp \"1\"".into());
        }
        return Ok((true, 1));
    }
    let fen = pgn.tag("FEN").ok_or("SetUp \"1\" without a FEN tag")?;
    let fields: Vec<&str> = fen.split(' ').collect();
    let (Some(side), Some(number)) = (fields.get(1), fields.get(5)) else {
        return Err(format!("the FEN {fen:?} has not six fields"));
    };
    let number = number
        .parse()
        .map_err(|_| format!("FEN move number in {fen:?}"))?;
    match *side {
        "w" => Ok((true, number)),
        "b" => Ok((false, number)),
        _ => Err(format!("the FEN {fen:?} has no side to move")),
    }
}

/// `[Key "value"]`: a key of letters, digits and `_` starting with a letter; a value
/// whose only escapes are `\\` and `\"`.
fn tag_pair(line: &str) -> Result<(String, String), String> {
    let inner = line
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .ok_or("not a tag pair")?;
    let (key, value) = inner.split_once(' ').ok_or("no value")?;
    let key_ok = key.starts_with(|c: char| c.is_ascii_alphabetic())
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !key_ok {
        return Err(format!("bad tag name {key:?}"));
    }
    let quoted = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .ok_or("the value is not one quoted string")?;
    let mut out = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('\\' | '"')) => out.push(e),
                other => return Err(format!("bad escape \\{other:?}")),
            },
            '"' => return Err("an unescaped quote in the value".into()),
            c if c.is_control() => return Err("a control character in the value".into()),
            c => out.push(c),
        }
    }
    Ok((key.to_owned(), out))
}

fn tokens(text: &str, dialect: Dialect) -> Result<Vec<Tok>, String> {
    let mut out = vec![];
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            c if c.is_whitespace() => {}
            '{' => {
                let mut t = String::new();
                loop {
                    match chars.next() {
                        Some((_, '}')) => break,
                        Some((_, '{')) => return Err(format!("a `{{` inside a comment at {i}")),
                        Some((_, c)) => t.push(c),
                        None => return Err(format!("a comment opened at {i} is not closed")),
                    }
                }
                out.push(Tok::Comment(
                    t.split_whitespace().collect::<Vec<_>>().join(" "),
                ));
            }
            '}' => return Err(format!("a `}}` that closes no comment at {i}")),
            ';' => {
                let mut t = String::new();
                while let Some((_, c)) = chars.next_if(|(_, c)| *c != '\n') {
                    t.push(c);
                }
                out.push(Tok::Comment(t.trim().to_owned()));
            }
            '(' => out.push(Tok::Open),
            ')' => out.push(Tok::Close),
            '$' => {
                let mut d = String::new();
                while let Some((_, c)) = chars.next_if(|(_, c)| c.is_ascii_digit()) {
                    d.push(c);
                }
                let n = d
                    .parse()
                    .map_err(|_| format!("a `$` with no number at {i}"))?;
                out.push(Tok::Nag(n));
            }
            '<' | '>' => return Err(format!("`{c}` is reserved, not movetext, at {i}")),
            _ => {
                let mut w = String::from(c);
                while let Some((_, c)) = chars.next_if(|(_, c)| {
                    !c.is_whitespace() && !matches!(c, '{' | '}' | '(' | ')' | ';' | '$')
                }) {
                    w.push(c);
                }
                let tok = word(&w, dialect).map_err(|e| format!("{e} at {i}"))?;
                // A score's `7. ...`: Black's move 7.
                if let (Tok::Symbol(d), Some(Tok::Number(n, true))) = (&tok, out.last())
                    && d == "..."
                {
                    let n = *n;
                    out.pop();
                    out.push(Tok::Number(n, false));
                    continue;
                }
                out.push(tok);
            }
        }
    }
    Ok(out)
}

/// A word of movetext: a move number, a result, or a SAN symbol (in a score, the game's
/// own symbol, which may start with a card's digit, and `...` after a move number).
fn word(w: &str, dialect: Dialect) -> Result<Tok, String> {
    let score = dialect == Dialect::Score;
    if score && w == "..." {
        return Ok(Tok::Symbol(w.to_owned()));
    }
    if RESULTS.contains(&w) {
        return Ok(Tok::Result(w.to_owned()));
    }
    let digits: String = w.chars().take_while(char::is_ascii_digit).collect();
    if !digits.is_empty() {
        let dots = &w[digits.len()..];
        let n = digits.parse().map_err(|_| format!("move number {w:?}"))?;
        match dots {
            "." => return Ok(Tok::Number(n, true)),
            "..." => return Ok(Tok::Number(n, false)),
            // Cardmate's card (`4Ci3`), Duel's card number (`7`).
            "" if score => return Ok(Tok::Symbol(w.to_owned())),
            _ if score && dots.starts_with(|c: char| c.is_ascii_alphabetic()) => {}
            _ => return Err(format!("{w:?} is neither a move number nor a move")),
        }
    }
    let san = w.trim_end_matches(['!', '?']);
    let extra = if score { "@~×" } else { "" };
    let symbol_ok = san == "--"
        || (san.starts_with(|c: char| c.is_ascii_alphanumeric())
            && (score || san.starts_with(|c: char| c.is_ascii_alphabetic()))
            && san
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_+#=:-".contains(c) || extra.contains(c)));
    if !symbol_ok {
        return Err(format!("{w:?} is not a SAN symbol"));
    }
    Ok(Tok::Symbol(san.to_owned()))
}

/// A line of moves from `toks[*at]` to its closing `)` (or the end): the comments before
/// its first move, and its moves. `white`/`number`: who makes its first move and which.
fn line(
    toks: &[Tok],
    at: &mut usize,
    mut white: bool,
    mut number: u32,
    depth: usize,
) -> Result<(Vec<String>, Vec<Ply>), String> {
    let mut before = vec![];
    let mut moves: Vec<Ply> = vec![];
    // The last move's side and number, for a variation of it.
    let mut last: Option<(bool, u32)> = None;
    let mut numbered = false;
    // Black's move must carry its number after anything but White's move.
    let mut needs_number = !white;
    while let Some(t) = toks.get(*at) {
        *at += 1;
        match t {
            Tok::Number(n, dot) => {
                if numbered {
                    return Err(format!("move number {number} has no move (then {n})"));
                }
                if (*n, *dot) != (number, white) {
                    let side = if white { "White" } else { "Black" };
                    return Err(format!(
                        "move number {n}{} stands before {side}'s move {number}",
                        if *dot { "." } else { "..." }
                    ));
                }
                numbered = true;
            }
            Tok::Symbol(san) => {
                if white && !numbered {
                    return Err(format!("White's move {number} {san} has no number"));
                }
                if !white && needs_number && !numbered {
                    return Err(format!("Black's move {number} {san} has no `{number}...`"));
                }
                moves.push(Ply {
                    san: san.clone(),
                    ..Ply::default()
                });
                last = Some((white, number));
                if !white {
                    number += 1;
                }
                white = !white;
                numbered = false;
                needs_number = false;
            }
            Tok::Comment(c) => {
                needs_number = true;
                match moves.last_mut() {
                    Some(m) => m.comments.push(c.clone()),
                    None => before.push(c.clone()),
                }
            }
            Tok::Nag(n) => {
                needs_number = true;
                moves
                    .last_mut()
                    .ok_or(format!("NAG ${n} before any move"))?
                    .nags
                    .push(*n);
            }
            Tok::Open => {
                needs_number = true;
                let (w, n) = last.ok_or("a variation before any move")?;
                // A comment before a variation's first move is the variation's own:
                // it is kept by no move.
                let (_, var) = line(toks, at, w, n, depth + 1)?;
                if var.is_empty() {
                    return Err("an empty variation".into());
                }
                moves.last_mut().ok_or("no move")?.variations.push(var);
            }
            Tok::Close => {
                if depth == 0 {
                    return Err("a `)` that closes no variation".into());
                }
                if numbered {
                    return Err("a move number with no move".into());
                }
                return Ok((before, moves));
            }
            Tok::Result(r) => return Err(format!("the result {r} before the movetext ends")),
        }
    }
    if depth > 0 {
        return Err("a variation is not closed".into());
    }
    if numbered {
        return Err(format!("move number {number} with no move"));
    }
    Ok((before, moves))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "[Event \"e\"]\n[Site \"s\"]\n[Date \"2026.12.01\"]\n[Round \"?\"]\n\
        [White \"a \\\"b\\\" \\\\\"]\n[Black \"?\"]\n";

    fn game(result: &str, movetext: &str) -> String {
        format!("{HEAD}[Result \"{result}\"]\n\n{movetext}\n")
    }

    #[test]
    fn a_game_with_every_kind_of_token_reads() {
        let text = game(
            "1-0",
            "{start} 1. e4 $1 {a} ; rest of line\n1... e5 (1... c5 2. Nf3) 2. Nf3!? Nc6 3. -- 1-0",
        );
        let pgn = read(&text).unwrap();
        assert_eq!(pgn.tag("White"), Some("a \"b\" \\"));
        assert_eq!(pgn.before, ["start"]);
        let sans: Vec<&str> = pgn.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(sans, ["e4", "e5", "Nf3", "Nc6", "--"]);
        assert_eq!(pgn.moves[0].comments, ["a", "rest of line"]);
        assert_eq!(pgn.moves[0].nags, [1]);
        assert_eq!(pgn.moves[1].variations[0].len(), 2);
        assert_eq!(pgn.result, "1-0");
    }

    #[test]
    fn a_result_tag_that_is_not_the_marker_is_refused() {
        let e = read(&game("1-0", "1. e4 e5 0-1")).unwrap_err();
        assert!(e.contains("is not the termination marker"), "{e}");
    }

    #[test]
    fn a_missing_termination_marker_is_refused() {
        let e = read(&game("*", "1. e4 e5")).unwrap_err();
        assert!(e.contains("termination marker"), "{e}");
        let e = read(&game("*", "1. e4 * e5")).unwrap_err();
        assert!(e.contains("before the movetext ends"), "{e}");
    }

    #[test]
    fn a_move_number_that_is_not_the_moves_is_refused() {
        // A period with no move, as the Stallmate writer once wrote it: Nf3 would be
        // read as Black's.
        let e = read(&game("*", "1. e4 1... {tried} 2. Nf3 *")).unwrap_err();
        assert!(e.contains("move number 1 has no move"), "{e}");
        let e = read(&game("*", "1. e4 2. Nf3 *")).unwrap_err();
        assert!(e.contains("stands before Black's move 1"), "{e}");
        let e = read(&game("1-0", "1. e4 e5 2. Nf3 {forfeit} 2... 1-0")).unwrap_err();
        assert!(e.contains("with no move"), "{e}");
        let e = read(&game("*", "1. e4 {a card} e5 *")).unwrap_err();
        assert!(e.contains("has no `1...`"), "{e}");
    }

    #[test]
    fn a_score_reads_without_a_roster_but_not_without_its_result() {
        let duel = "[Cards \"6\"]\n1. 1 4 2. 1 {Black resigns} 1-0\n";
        let pgn = read_score(duel).unwrap();
        assert_eq!(pgn.moves.len(), 3);
        assert_eq!(pgn.moves[2].comments, ["Black resigns"]);
        // A resigned Duel's score as it was written before issue 55's fix.
        let e = read_score("[Cards \"6\"]\n1. 1 4 2. 1\n").unwrap_err();
        assert!(e.contains("termination marker"), "{e}");
        let cardmate = "[Setup \"predefined\"]\n\n1. 4Ci3 4Db6 2. 8Dj2 ( 2. 9H:c5 ) 2. ... 8Ca7 *";
        assert_eq!(read_score(cardmate).unwrap().moves.len(), 4);
        // Not in the export format.
        assert!(read(cardmate).is_err());
    }

    #[test]
    fn bad_tags_and_tokens_are_refused() {
        let no_roster = "[Event \"e\"]\n[Result \"*\"]\n\n*\n";
        assert!(read(no_roster).unwrap_err().contains("roster"));
        let bad_escape = game("*", "*").replace("a \\\"b", "a \\n");
        assert!(read(&bad_escape).unwrap_err().contains("escape"));
        assert!(read(&game("*", "1. e4 {open *")).is_err());
        assert!(
            read(&game("*", "1. <18 e4> *"))
                .unwrap_err()
                .contains("reserved")
        );
        assert!(read(&game("*", "1. e4 ) *")).is_err());
        assert!(read(&game("*", "1. e4 (1... e5 *")).is_err());
    }
}
