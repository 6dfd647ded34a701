//! PGN export of a revealed Stallmate game, for any chess viewer.
//!
//! The seven-tag roster first (`?`, `????.??.??` and the result where the caller gives
//! nothing), then the caller's other tags, then `Variant "Chess960"`, `SetUp "1"` and
//! `FEN` with the combined start position (both hidden armies, X-FEN castling letters),
//! then `WhiteSetup`, `BlackSetup`, the options (`MustTry`, `NameCapturer`, `Period`,
//! `PlyLimit`) and, once the game is over, `Termination` and the points (`WhiteScore`,
//! `BlackScore`).
//!
//! The movetext has one SAN move per period that ended with a "yes". What is not chess
//! goes into `{…}` comments, each after the move it belongs to (a PGN reader gives a
//! comment to the move before it): the move's announcements (`{capture at d5, check on
//! file}`), then the period's other attempts with their answers (`{tried first: any?
//! try; d4-e5 illegal; g1-g3 illegal (not heard)}`, where "not heard" marks what the
//! opponent was not told); a period still open, with no move yet, has its attempts after
//! its number; at the end, the ending and the points.
//!
//! *Interpretation:* the `Result` tag and token. The seed scores instead of winning, and
//! everything but a forfeit scores alike for both, so a board ending is `1/2-1/2`; a
//! forfeit is a loss for the forfeiter (`0-1` if White forfeited); a game in progress
//! is `*`. The points are in the tags and the closing comment.

use crate::chess::Color;
use crate::chess::pgn::{ROSTER, comment, roster, tag, wrap};

use super::answer::Answer;
use super::ending::{Ending, scores};
use super::referee::Referee;
use super::turn::Turn;

const OPTION_TAGS: [(&str, &str); 4] = [
    ("MustTry", "must-try"),
    ("NameCapturer", "name-capturer"),
    ("Period", "period"),
    ("PlyLimit", "ply-limit"),
];

/// The PGN result token of a game.
pub fn result_token(ending: Option<&Ending>) -> &'static str {
    match ending {
        None => "*",
        Some(Ending::Forfeit { by: Color::White }) => "0-1",
        Some(Ending::Forfeit { by: Color::Black }) => "1-0",
        Some(Ending::Board(_)) => "1/2-1/2",
    }
}

/// The PGN of a game of these terms, with the tags every sealed game's PGN carries
/// (`table/pgn_tags.rs`: the event, the site, the date it started, the players' names).
/// A game that ended off the board (a resignation, an agreed draw, a loss on time) has
/// the seats' `outcome` as its result and termination, which the board cannot give. A
/// game without a referee has no period, whatever its options say.
pub fn of_game(
    referee: &Referee,
    terms: &sealed_protocol::proposal::Terms,
    started: Option<u64>,
    outcome: Option<&sealed_protocol::outcome::Outcome>,
) -> String {
    let mut tags = crate::table::pgn_tags::game_tags(terms, started);
    let off_board = outcome.filter(|_| referee.ending().is_none());
    if let Some(o) = off_board {
        tags.push(("Result", crate::table::pgn_tags::result(o).to_owned()));
        tags.push(("Termination", o.reason.clone()));
    }
    let tags: Vec<(&str, &str)> = tags.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let skip: &[&str] = if terms.referee().is_none() {
        &["Period"]
    } else {
        &[]
    };
    write(referee, &tags, skip)
}

/// The PGN of the game so far; `tags` are the caller's (`Event`, `White`, …), which
/// replace the roster's defaults and come before the game's own tags.
pub fn to_pgn(referee: &Referee, tags: &[(&str, &str)]) -> String {
    write(referee, tags, &[])
}

/// [`to_pgn`], leaving out the option tags named in `skip`; a `Result` among `tags`
/// stands where the board has no ending.
fn write(referee: &Referee, tags: &[(&str, &str)], skip: &[&str]) -> String {
    let given = tags.iter().find(|(k, _)| *k == "Result").map(|(_, v)| *v);
    let result = match referee.ending() {
        Some(e) => result_token(Some(e)),
        None => given.unwrap_or("*"),
    };
    let mut out = String::new();
    roster(
        &mut out,
        |k| {
            tags.iter()
                .find(|(t, _)| *t == k)
                .map(|(_, v)| (*v).to_owned())
        },
        result,
    );
    let mut line = |k: &str, v: &str| tag(&mut out, k, v);
    for (k, v) in tags {
        if !ROSTER.iter().any(|(r, _)| r == k) {
            line(k, v);
        }
    }
    line("Variant", "Chess960");
    line("SetUp", "1");
    line("FEN", &referee.start_position().fen());
    line("WhiteSetup", &referee.setup(Color::White).to_string());
    line("BlackSetup", &referee.setup(Color::Black).to_string());
    let pairs = referee.options().to_pairs();
    for (name, key) in OPTION_TAGS.into_iter().filter(|(n, _)| !skip.contains(n)) {
        if let Some((_, v)) = pairs.iter().find(|(k, _)| *k == key) {
            line(name, v);
        }
    }
    if let Some(ending) = referee.ending() {
        let [w, b] = scores(ending);
        line("Termination", &ending.to_string());
        line("WhiteScore", &w.to_string());
        line("BlackScore", &b.to_string());
    }
    out.push('\n');
    let tokens = movetext(referee, result);
    out.push_str(&wrap(tokens.iter().flat_map(|t| t.split(' '))));
    out.push('\n');
    out
}

/// The attempts of a period other than its "yes", as comment text.
fn tries(turn: &Turn) -> Option<String> {
    let parts: Vec<String> = turn
        .entries
        .iter()
        .filter(|e| !matches!(e.answer, Answer::Yes(_)))
        .map(|e| {
            let quiet = match (&e.answer, e.silence) {
                (Answer::PawnCaptureFirst, _) | (_, Some(_)) => " (not heard)",
                _ => "",
            };
            format!("{} {}{quiet}", e.attempt, e.answer)
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

fn movetext(referee: &Referee, result: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut pos = referee.start_position();
    let open = referee.current().filter(|t| !t.entries.is_empty());
    for turn in referee.history().iter().chain(open) {
        let number = match turn.mover {
            Color::White => format!("{}.", turn.number),
            Color::Black => format!("{}...", turn.number),
        };
        tokens.push(number);
        let Some((from, to, promotion)) = turn.moved().and_then(|a| a.squares()) else {
            // A period still open: its attempts so far, after its number.
            tokens.extend(tries(turn).map(|t| comment(&t)));
            continue;
        };
        let tried = tries(turn).map(|t| comment(&format!("tried first: {t}")));
        let Some(mv) = pos.find_legal(from, to, promotion) else {
            tokens.push(comment(&format!("{from}-{to} (not legal here)")));
            tokens.extend(tried);
            continue;
        };
        tokens.push(pos.san(&mv).unwrap_or_else(|_| mv.uci()));
        if let Some(report) = turn.report() {
            let text = report.to_string();
            if let Some(announced) = text.strip_prefix("yes, ") {
                tokens.push(comment(announced));
            }
        }
        tokens.extend(tried);
        pos = pos.play_unchecked(&mv);
    }
    if let Some(ending) = referee.ending() {
        let [w, b] = scores(ending);
        tokens.push(comment(&format!("{ending}: White {w:+}, Black {b:+}")));
    }
    tokens.push(result.to_owned());
    tokens
}
