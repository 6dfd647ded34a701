//! The score of a revealed Stallmate game: both setups, the options, every attempt of
//! every period with the referee's answer, and the ending. [`write`] writes it from a
//! [`Referee`]; [`read`] reads it by replaying every attempt through a new referee, so a
//! score whose answers are not the ones the rules give is refused, with the line.
//!
//! ```text
//! score    = { tag | blank } { turn | blank } [ end [ points ] ] { blank }
//! tag      = "[" KEY " " '"' VALUE '"' "]"            one per line
//! turn     = NUMBER ( "." | "..." ) [ entry { ";" entry } ]
//! entry    = attempt answer
//! attempt  = "any?" | SQUARE [ "-" ] SQUARE [ [ "=" ] KIND ]
//! answer   = "illegal" | "no" | "try" | "pawn capture first"
//!          | "yes" [ "," capture ] { "," check } [ "," board-end ]
//! capture  = "capture at" SQUARE [ "en passant" ] [ "by pawn" | "by piece" ]
//! check    = "check on rank" | "check on file" | "check on long diagonal"
//!          | "check on short diagonal" | "check by knight"
//! board-end = "checkmate" | "stalemate with" NUMBER "pieces" | "threefold repetition"
//!          | "bare kings" | "ply limit"
//! end      = "end" ( board-end | "forfeit by" ( "white" | "black" ) )
//! points   = "score" INTEGER INTEGER                    White's, then Black's
//! blank    = empty line | "#" comment to end of line
//! ```
//!
//! Tags: `WhiteSetup` and `BlackSetup` (the Chess960 numbers, required), `MustTry`,
//! `NameCapturer`, `Period`, `PlyLimit` (the options, with their option values; left
//! out means the default), `FEN` (the combined start position; checked if given).
//! Other tags (`Event`, `White`, …) are ignored; a tag given twice is refused. `n.` is
//! White's n-th period, `n...` Black's, and each must come in its turn. Words are
//! separated by single or several spaces. A turn line with a "yes" closes its period;
//! a line without one is the period in progress or the one the game was lost in by
//! forfeit, so it must be the last turn. The `end` line, when present, must be what the
//! replay finds (or a forfeit, which the replay cannot find), and `score` must be its
//! points.

use std::fmt::Write as _;

use crate::chess::{Color, Position};
use crate::replay::{ReplayError, Replayed};

use super::answer::Answer;
use super::attempt::Attempt;
use super::ending::{Ending, scores};
use super::options::Options;
use super::referee::Referee;
use super::setup::Setup;
use super::turn::Turn;

/// `line N: reason`, or the reason alone when it is about the score as a whole (line 0).
fn at_line(line: usize, reason: &str) -> String {
    if line == 0 {
        reason.to_owned()
    } else {
        format!("line {line}: {reason}")
    }
}

/// Why a score cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScoreError {
    /// The text does not follow the grammar, or a tag is missing or wrong.
    #[error("{}", at_line(*line, reason))]
    Unreadable {
        /// Line number, from 1 (0: the score as a whole).
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// The text reads, but the game it records is not what the rules give: an answer
    /// the referee would not give, a turn out of order, a wrong ending or score.
    #[error("line {line} (move {ply}): {reason}")]
    Wrong {
        /// Line number, from 1.
        line: usize,
        /// The move (ply, from 1) the game had reached: moves made before, plus one.
        ply: usize,
        /// What the rules say instead.
        reason: String,
    },
}

/// Tag names of the options, in the order they are written.
const OPTION_TAGS: [(&str, &str); 4] = [
    ("MustTry", "must-try"),
    ("NameCapturer", "name-capturer"),
    ("Period", "period"),
    ("PlyLimit", "ply-limit"),
];

/// The score of a game, as far as it has gone.
pub fn write(referee: &Referee) -> String {
    let mut out = String::new();
    let tag = |out: &mut String, k: &str, v: &str| {
        let _ = writeln!(out, "[{k} \"{v}\"]");
    };
    tag(&mut out, "Variant", "stallmate");
    tag(
        &mut out,
        "WhiteSetup",
        &referee.setup(Color::White).to_string(),
    );
    tag(
        &mut out,
        "BlackSetup",
        &referee.setup(Color::Black).to_string(),
    );
    tag(&mut out, "FEN", &referee.start_position().fen());
    let pairs = referee.options().to_pairs();
    for (name, key) in OPTION_TAGS {
        if let Some((_, v)) = pairs.iter().find(|(k, _)| *k == key) {
            tag(&mut out, name, v);
        }
    }
    out.push('\n');
    let open = referee.current().filter(|t| !t.entries.is_empty());
    for turn in referee.history().iter().chain(open) {
        out.push_str(&turn_line(turn));
        out.push('\n');
    }
    if let Some(ending) = referee.ending() {
        let [w, b] = scores(ending);
        let _ = writeln!(out, "end {ending}");
        let _ = writeln!(out, "score {w} {b}");
    }
    out
}

/// One turn as a line of the score.
pub fn turn_line(turn: &Turn) -> String {
    let dots = match turn.mover {
        Color::White => ".",
        Color::Black => "...",
    };
    let entries: Vec<String> = turn
        .entries
        .iter()
        .map(|e| format!("{} {}", e.attempt, e.answer))
        .collect();
    if entries.is_empty() {
        format!("{}{dots}", turn.number)
    } else {
        format!("{}{dots} {}", turn.number, entries.join("; "))
    }
}

fn unreadable(line: usize, reason: impl Into<String>) -> ScoreError {
    ScoreError::Unreadable {
        line,
        reason: reason.into(),
    }
}

fn wrong(referee: &Referee, line: usize, reason: impl Into<String>) -> ScoreError {
    ScoreError::Wrong {
        line,
        ply: referee.plies() as usize + 1,
        reason: reason.into(),
    }
}

/// A tag line's key and value, or `None` if the line is not a tag.
fn tag_line(line: &str) -> Option<(&str, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    let (key, rest) = inner.split_once(' ')?;
    let quoted = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => value.push(chars.next()?),
            '"' => return None,
            c => value.push(c),
        }
    }
    (!key.is_empty()).then_some((key, value))
}

/// Reads a score by replaying it; the referee returned holds the whole game.
pub fn read(text: &str) -> Result<Referee, ScoreError> {
    if text.len() > MAX_SCORE {
        return Err(unreadable(0, "longer than a score can be"));
    }
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let body_at = lines
        .iter()
        .position(|(_, l)| !l.starts_with('['))
        .unwrap_or(lines.len());
    let (tag_lines, body) = lines.split_at(body_at);
    let mut tags: Vec<(&str, String)> = Vec::new();
    for &(n, l) in tag_lines {
        let (k, v) = tag_line(l).ok_or_else(|| unreadable(n, "not a tag [Key \"value\"]"))?;
        if tags.iter().any(|(t, _)| *t == k) {
            return Err(unreadable(n, format!("tag {k} given twice")));
        }
        tags.push((k, v));
    }
    let tag = |k: &str| tags.iter().find(|(t, _)| *t == k).map(|(_, v)| v.as_str());
    let setup = |k: &str| -> Result<Setup, ScoreError> {
        let v = tag(k).ok_or_else(|| unreadable(0, format!("tag {k} is required")))?;
        v.parse::<u16>()
            .ok()
            .and_then(Setup::new)
            .ok_or_else(|| unreadable(0, format!("{k}: {v:?} is not a number 0 to 959")))
    };
    if let Some(v) = tag("Variant")
        && v != "stallmate"
    {
        return Err(unreadable(0, format!("variant {v:?} is not stallmate")));
    }
    let (white, black) = (setup("WhiteSetup")?, setup("BlackSetup")?);
    let options = Options::parse(
        OPTION_TAGS
            .iter()
            .filter_map(|(name, key)| Some((*key, tag(name)?))),
    )
    .map_err(|e| unreadable(0, e.0))?;
    if let Some(fen) = tag("FEN") {
        let start = Setup::start(white, black);
        if Position::from_fen(fen).ok().as_ref() != Some(&start) {
            return Err(unreadable(
                0,
                format!("FEN {fen:?} is not the start position of setups {white} and {black}"),
            ));
        }
    }
    let mut referee = Referee::new(white, black, options);
    let mut rest = body.iter().peekable();
    while let Some(&&(n, line)) = rest.peek() {
        if line.starts_with("end") || line.starts_with("score") {
            break;
        }
        rest.next();
        replay_turn(&mut referee, n, line)?;
        let moved = referee.current().is_some_and(|t| t.moved().is_some());
        if moved {
            if let Err(e) = referee.end_period() {
                return Err(wrong(&referee, n, e.to_string()));
            }
        } else if let Some(&&(next, l)) = rest.peek()
            && !l.starts_with("end")
        {
            return Err(wrong(
                &referee,
                next,
                "a turn follows a period that ended without a move",
            ));
        }
    }
    if let Some(&(n, line)) = rest.next() {
        let words = line
            .strip_prefix("end ")
            .ok_or_else(|| unreadable(n, "expected a turn or the end"))?;
        let ending: Ending = words.parse().map_err(|e| unreadable(n, format!("{e}")))?;
        match ending {
            Ending::Forfeit { by } => {
                if let Err(e) = referee.forfeit(by) {
                    return Err(wrong(&referee, n, format!("forfeit: {e}")));
                }
            }
            Ending::Board(_) => {
                if referee.ending() != Some(&ending) {
                    return Err(wrong(
                        &referee,
                        n,
                        format!("the game did not end by {ending}"),
                    ));
                }
            }
        }
        if let Some(&(n, line)) = rest.next() {
            let points: Vec<&str> = line
                .strip_prefix("score ")
                .ok_or_else(|| unreadable(n, "expected the score line"))?
                .split_whitespace()
                .collect();
            let want = scores(&ending).map(|s| s.to_string());
            if points != want {
                return Err(wrong(
                    &referee,
                    n,
                    format!("the score of {ending} is {} {}", want[0], want[1]),
                ));
            }
        }
        if let Some(&(n, _)) = rest.next() {
            return Err(unreadable(n, "nothing may follow the score"));
        }
    }
    Ok(referee)
}

/// The longest score read (a megabyte): enough for thousands of periods, and it keeps
/// garbage cheap.
const MAX_SCORE: usize = 1 << 20;

fn replay_turn(referee: &mut Referee, n: usize, line: &str) -> Result<(), ScoreError> {
    let (head, entries) = match line.split_once(char::is_whitespace) {
        Some((h, e)) => (h, e.trim()),
        None => (line, ""),
    };
    let (number, color) = if let Some(num) = head.strip_suffix("...") {
        (num, Color::Black)
    } else if let Some(num) = head.strip_suffix('.') {
        (num, Color::White)
    } else {
        return Err(unreadable(
            n,
            "a turn starts with its number, like 12. or 12...",
        ));
    };
    let number: u32 = number
        .parse()
        .map_err(|_| unreadable(n, "a turn starts with its number, like 12. or 12..."))?;
    let Some(turn) = referee.current() else {
        return Err(wrong(referee, n, "the game is over"));
    };
    if (turn.mover, turn.number) != (color, number) {
        let dots = if turn.mover == Color::White {
            "."
        } else {
            "..."
        };
        let reason = format!("this is turn {}{dots}", turn.number);
        return Err(wrong(referee, n, reason));
    }
    if entries.is_empty() {
        return Ok(());
    }
    for entry in entries.split(';') {
        let entry = entry.trim();
        let (attempt, answer) = entry
            .split_once(char::is_whitespace)
            .ok_or_else(|| unreadable(n, format!("{entry:?} is not an attempt and an answer")))?;
        let attempt: Attempt = attempt.parse().map_err(|e| unreadable(n, format!("{e}")))?;
        let answer: Answer = answer
            .trim()
            .parse()
            .map_err(|e| unreadable(n, format!("{e}")))?;
        let given = match referee.attempt(attempt) {
            Ok(given) => given,
            Err(e) => return Err(wrong(referee, n, format!("{attempt}: {e}"))),
        };
        if given != answer {
            return Err(wrong(
                referee,
                n,
                format!("{attempt}: the referee answers \"{given}\", not \"{answer}\""),
            ));
        }
    }
    Ok(())
}

/// `sealed replay stallmate`: reads a score and sums it up.
pub fn replay(text: &str) -> Result<Replayed, ReplayError> {
    let referee = read(text).map_err(|e| match e {
        ScoreError::Wrong { line, ply, reason } => ReplayError::Illegal {
            ply,
            reason: format!("line {line}: {reason}"),
        },
        other => ReplayError::Unreadable(other.to_string()),
    })?;
    Ok(Replayed {
        plies: referee.plies() as usize,
        position: referee.position().fen(),
        result: referee.ending().map(|e| {
            let [w, b] = scores(e);
            format!("{e}: White {w:+}, Black {b:+}")
        }),
        svg: None,
    })
}
