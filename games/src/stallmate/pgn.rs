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
//! opponent was not told); a period without a move (let pass, ended by a resignation,
//! still open) has no move number, which with no move is no PGN, and its attempts in a
//! comment after the last move (`{Black's period 2... ended without a move: tried …}`,
//! or `so far` while it is open);
//! at the end, the ending and the points.
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
    for period in super::steps::periods(referee) {
        let turn = period.turn;
        let (side, number) = match turn.mover {
            Color::White => ("White", format!("{}.", turn.number)),
            Color::Black => ("Black", format!("{}...", turn.number)),
        };
        let Some(mv) = period.made else {
            // A period with no move (let pass, ended by a resignation, still open): no
            // move number, which with no move after it is no PGN and would give a
            // reader's next move to the wrong side; what was tried is a comment after
            // the last move.
            let mut words: Vec<String> = vec![];
            if let Some((from, to, _)) = turn.moved().and_then(|a| a.squares()) {
                words.push(format!("{from}-{to} (not legal here)"));
            }
            words.extend(tries(turn));
            if !words.is_empty() {
                let state = if period.closed { "ended" } else { "so far" };
                tokens.push(comment(&format!(
                    "{side}'s period {number} {state} without a move: tried {}",
                    words.join("; ")
                )));
            }
            continue;
        };
        tokens.push(number);
        let tried = tries(turn).map(|t| comment(&format!("tried first: {t}")));
        tokens.push(period.before.san(&mv).unwrap_or_else(|_| mv.uci()));
        if let Some(report) = turn.report() {
            let text = report.to_string();
            if let Some(announced) = text.strip_prefix("yes, ") {
                tokens.push(comment(announced));
            }
        }
        tokens.extend(tried);
    }
    if let Some(ending) = referee.ending() {
        let [w, b] = scores(ending);
        tokens.push(comment(&format!("{ending}: White {w:+}, Black {b:+}")));
    }
    tokens.push(result.to_owned());
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stallmate::{Attempt, Options, Setup};

    fn after_e4() -> Referee {
        let mut r = Referee::new(Setup::STANDARD, Setup::STANDARD, Options::default());
        let e4: Attempt = "e2-e4".parse().expect("an attempt");
        assert!(matches!(r.attempt(e4), Ok(Answer::Yes(_))));
        r.end_period().expect("closes");
        r
    }

    /// The movetext, on one line.
    fn moves(r: &Referee) -> String {
        let pgn = to_pgn(r, &[]);
        let text = pgn.split("\n\n").nth(1).unwrap_or_default();
        text.trim_end().replace('\n', " ")
    }

    /// Issue 55: a period with no move had its number written with no move after it,
    /// which is no PGN (a reader would give the next move to the wrong side).
    #[test]
    fn a_period_without_a_move_has_no_move_number() {
        // Let pass: a forfeit on time.
        let mut r = after_e4();
        r.end_period().expect("closes");
        assert_eq!(
            moves(&r),
            "1. e4 {forfeit by black: White +0, Black -10} 1-0"
        );
        // Resigned after an illegal attempt: the attempt is said after the last move.
        let mut r = after_e4();
        let bad: Attempt = "e7-e4".parse().expect("an attempt");
        assert_eq!(r.attempt(bad), Ok(Answer::Illegal));
        r.forfeit(Color::Black).expect("resigns");
        assert_eq!(
            moves(&r),
            "1. e4 {Black's period 1... ended without a move: tried e7-e4 illegal (not heard)} \
             {forfeit by black: White +0, Black -10} 1-0"
        );
        // Still open: the same, and the game goes on.
        let mut r = after_e4();
        let bad: Attempt = "e7-e4".parse().expect("an attempt");
        assert_eq!(r.attempt(bad), Ok(Answer::Illegal));
        assert_eq!(
            moves(&r),
            "1. e4 {Black's period 1... so far without a move: tried e7-e4 illegal (not heard)} *"
        );
    }
}
