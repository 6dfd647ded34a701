//! Cardmate's score format, read by `sealed replay cardmate`.
//!
//! Tag lines `[Key "value"]` first, then the moves in the seed's notation with move
//! numbers (`1.`, `7. ...`), comments in `{…}`, side lines in `(…)` (each replaces the
//! move just before it, as in PGN), and a result token last. In a side line a move may
//! be written `QS~`: some move of that card after which the rest of the line is legal.
//! The grammar is in spec/GAMES.md.

use sealed_protocol::hash::{Hash, from_hex};
use sealed_protocol::ids::Name;

use super::board::{Board, Side};
use super::notation::{self, Written};
use super::options::{Options, Setup};
use super::position::{End, Position};
use crate::replay::{ReplayError, Replayed};

/// A line of play: moves and the side lines branching from them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// A move number: `7.` before Forehand's seventh move, `7. ...` (or `7...`) before
    /// Rearhand's.
    Number(u32, bool),
    /// A move token.
    Move(String),
    /// A side line replacing the move before it.
    Variation(Vec<Node>),
}

/// A parsed score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Score {
    /// Tags in order.
    pub tags: Vec<(String, String)>,
    /// The main line.
    pub line: Vec<Node>,
    /// The result token, if any: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: Option<String>,
}

fn unreadable(s: impl Into<String>) -> ReplayError {
    ReplayError::Unreadable(s.into())
}

/// Reads score text.
pub fn parse(text: &str) -> Result<Score, ReplayError> {
    let mut tags = vec![];
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
            let v = v.trim();
            let v = v
                .strip_prefix('"')
                .and_then(|x| x.strip_suffix('"'))
                .ok_or_else(|| unreadable(format!("tag {k}: value must be quoted")))?;
            tags.push((k.to_owned(), v.to_owned()));
        } else {
            body.push_str(line);
            body.push('\n');
        }
    }
    // Tokens: comments dropped, parentheses split out.
    let mut tokens: Vec<String> = vec![];
    let mut depth = 0usize;
    let mut cur = String::new();
    let flush = |cur: &mut String, tokens: &mut Vec<String>| {
        if !cur.is_empty() {
            tokens.push(std::mem::take(cur));
        }
    };
    for c in body.chars() {
        match c {
            '{' => {
                flush(&mut cur, &mut tokens);
                depth += 1;
            }
            '}' if depth == 0 => return Err(unreadable("unmatched '}'")),
            '}' => depth -= 1,
            _ if depth > 0 => {}
            '(' | ')' => {
                flush(&mut cur, &mut tokens);
                tokens.push(c.to_string());
            }
            c if c.is_whitespace() => flush(&mut cur, &mut tokens),
            c => cur.push(c),
        }
    }
    if depth > 0 {
        return Err(unreadable("unclosed '{'"));
    }
    flush(&mut cur, &mut tokens);
    let mut stack: Vec<Vec<Node>> = vec![vec![]];
    let mut result = None;
    for tok in tokens {
        if result.is_some() {
            return Err(unreadable(format!("{tok:?} after the result")));
        }
        match tok.as_str() {
            "(" => {
                if stack
                    .last()
                    .is_none_or(|l| !l.iter().any(|n| matches!(n, Node::Move(_))))
                {
                    return Err(unreadable("a side line must follow a move"));
                }
                stack.push(vec![]);
            }
            ")" => {
                let line = stack
                    .pop()
                    .filter(|_| !stack.is_empty())
                    .ok_or_else(|| unreadable("unmatched ')'"))?;
                stack
                    .last_mut()
                    .expect("checked")
                    .push(Node::Variation(line));
            }
            "1-0" | "0-1" | "1/2-1/2" | "*" if stack.len() == 1 => result = Some(tok),
            "1-0" | "0-1" | "1/2-1/2" | "*" => {
                return Err(unreadable("a result token inside a side line"));
            }
            "..." => match stack.last_mut().expect("never empty").last_mut() {
                Some(Node::Number(_, black)) if !*black => *black = true,
                _ => return Err(unreadable("'...' must follow a move number")),
            },
            t => {
                let node = move_number(t).unwrap_or_else(|| Node::Move(t.to_owned()));
                stack.last_mut().expect("never empty").push(node);
            }
        }
    }
    if stack.len() != 1 {
        return Err(unreadable("unclosed '('"));
    }
    Ok(Score {
        tags,
        line: stack.pop().expect("one"),
        result,
    })
}

/// `7.` or `7...` as a move number.
fn move_number(t: &str) -> Option<Node> {
    let digits = t.trim_end_matches('.');
    let dots = t.len() - digits.len();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || !(dots == 1 || dots == 3)
    {
        return None;
    }
    Some(Node::Number(digits.parse().ok()?, dots == 3))
}

/// The options and start position the tags describe.
pub fn setup(tags: &[(String, String)]) -> Result<(Options, Position), ReplayError> {
    let mut opts = vec![];
    let mut coin = None;
    for (i, (k, _)) in tags.iter().enumerate() {
        if tags[..i].iter().any(|(j, _)| j == k) {
            return Err(unreadable(format!("tag {k} given twice")));
        }
    }
    for (k, v) in tags {
        let key = match k.as_str() {
            "Setup" => "setup",
            "RandomKings" => "random-kings",
            "Palace" => "palace",
            "NineRetreat" => "nine-retreat",
            "NoMove" => "no-move",
            "PlyLimit" => "ply-limit",
            "Coin" => {
                let bytes = from_hex(v)
                    .and_then(|b| <[u8; 32]>::try_from(b).ok())
                    .ok_or_else(|| unreadable("Coin is 64 hex digits"))?;
                coin = Some(Hash(bytes));
                continue;
            }
            _ => continue,
        };
        opts.push((Name::new(key).expect("static"), v.clone()));
    }
    opts.sort();
    let options = Options::parse(&opts).map_err(|e| unreadable(e.0))?;
    let board = match (options.setup, coin) {
        (Setup::Predefined, _) => Board::predefined(),
        (Setup::Random, Some(coin)) => super::random_board(&coin, options.random_kings),
        (Setup::Random, None) => return Err(unreadable("a random setup needs its Coin tag")),
    };
    Ok((options, Position::start(board)))
}

/// Replays a line from `pos`; returns the final position and the plies played.
fn replay_line(
    mut pos: Position,
    line: &[Node],
    opts: &Options,
    side_line: bool,
    mut before: Option<Position>,
) -> Result<(Position, usize), ReplayError> {
    let mut plies = 0;
    for (i, node) in line.iter().enumerate() {
        match node {
            Node::Number(n, black) => {
                let want = (pos.ply / 2 + 1, pos.to_move == Side::Rearhand);
                if (*n, *black) != want {
                    let dots = |b: bool| if b { "..." } else { "." };
                    return Err(unreadable(format!(
                        "move number {n}{} out of place: the next move is {}{}",
                        dots(*black),
                        want.0,
                        dots(want.1)
                    )));
                }
            }
            Node::Move(tok) => {
                let w: Written = notation::parse(tok).map_err(|e| unreadable(e.to_string()))?;
                let ply = pos.ply as usize + 1;
                if w.to.is_none() {
                    if !side_line {
                        return Err(unreadable(format!(
                            "{tok:?}: a move written with '~' belongs in a side line"
                        )));
                    }
                    if w.mark.is_some() {
                        return Err(unreadable(format!("{tok:?}: a '~' move carries no mark")));
                    }
                    return some_move(&pos, &w, &line[i + 1..], opts).map(|(p, n)| (p, plies + n));
                }
                let m = notation::resolve(&pos, &w, opts).map_err(|e| ReplayError::Illegal {
                    ply,
                    reason: e.to_string(),
                })?;
                before = Some(pos.clone());
                pos.play_unchecked(&m, opts);
                plies += 1;
            }
            Node::Variation(side) => {
                let start = before
                    .clone()
                    .ok_or_else(|| unreadable("a side line must follow a move"))?;
                replay_line(start, side, opts, true, None).map_err(|e| match e {
                    ReplayError::Illegal { ply, reason } => ReplayError::Illegal {
                        ply,
                        reason: format!("in a side line: {reason}"),
                    },
                    other => other,
                })?;
            }
        }
    }
    Ok((pos, plies))
}

/// `XY~`: some legal move of that card after which the rest of the line replays.
fn some_move(
    pos: &Position,
    w: &Written,
    rest: &[Node],
    opts: &Options,
) -> Result<(Position, usize), ReplayError> {
    let ply = pos.ply as usize + 1;
    let mut last = format!("{} has no legal move", w.card);
    for m in pos
        .legal_moves(opts)
        .into_iter()
        .filter(|m| m.card == w.card && m.promote == w.promote)
    {
        let mut next = pos.clone();
        next.play_unchecked(&m, opts);
        // A side line right after the `~` move replaces it: it starts from `pos`.
        match replay_line(next, rest, opts, true, Some(pos.clone())) {
            Ok((p, n)) => return Ok((p, n + 1)),
            Err(ReplayError::Illegal { reason, .. }) => last = reason,
            Err(e) => return Err(e),
        }
    }
    Err(ReplayError::Illegal {
        ply,
        reason: format!("no move of {} lets the line go on ({last})", w.card),
    })
}

fn result_token(end: Option<End>) -> &'static str {
    match end.and_then(|e| {
        if matches!(e, End::PlyLimit | End::NoMove { draw: true, .. }) {
            None
        } else {
            e.winner()
        }
    }) {
        Some(Side::Forehand) => "1-0",
        Some(Side::Rearhand) => "0-1",
        None if end.is_some() => "1/2-1/2",
        None => "*",
    }
}

/// Replays score text: every move of the main line and of every side line.
pub fn replay(text: &str) -> Result<Replayed, ReplayError> {
    let (pos, plies) = replay_score(text)?;
    Ok(Replayed {
        plies,
        position: super::render::text(&pos),
        result: pos
            .end
            .map(|e| format!("{} ({})", result_token(Some(e)), e.reason())),
        svg: Some(super::render::svg(&pos)),
    })
}

/// Replays score text to its final position.
pub fn replay_score(text: &str) -> Result<(Position, usize), ReplayError> {
    let score = parse(text)?;
    let (opts, start) = setup(&score.tags)?;
    let (pos, plies) = replay_line(start, &score.line, &opts, false, None)?;
    if let (Some(claim), Some(end)) = (&score.result, pos.end)
        && claim != "*"
        && claim != result_token(Some(end))
    {
        return Err(ReplayError::Illegal {
            ply: pos.ply as usize,
            reason: format!(
                "the score says {claim}, the position says {}",
                result_token(Some(end))
            ),
        });
    }
    Ok((pos, plies))
}

/// Why a game cannot be written as score text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The setup is random and no coin was given to draw it.
    #[error("a random setup needs its coin")]
    NoCoin,
    /// A move is not legal where it is played.
    #[error("move {number} ({card} to {to}) is not legal")]
    Illegal {
        /// The move's number, from 1.
        number: usize,
        /// Its card.
        card: super::card::Card,
        /// Where it goes.
        to: super::board::Square,
    },
}

/// Writes a game as score text: the tags its options (and, for the random setup, its
/// coin) need, then the moves in the seed's notation with their marks, then the result.
pub fn write_score(
    options: &Options,
    coin: Option<&Hash>,
    moves: &[super::moves::Move],
) -> Result<String, WriteError> {
    write_score_ended(options, coin, moves, None)
}

/// [`write_score`], for a game that may have ended off the board (a resignation, an
/// agreed draw, a loss on time): when the moves leave the game on, `ending`'s reason (a
/// result token, the words) is written as a comment and its token as the result, as a
/// PGN reader needs it (issue 55: a resigned game's score said `*`).
pub fn write_score_ended(
    options: &Options,
    coin: Option<&Hash>,
    moves: &[super::moves::Move],
    ending: Option<(&str, &str)>,
) -> Result<String, WriteError> {
    let mut s = String::new();
    let tag = |s: &mut String, k: &str, v: &str| s.push_str(&format!("[{k} \"{v}\"]\n"));
    for (k, v) in options.to_proposal() {
        let name = match k.as_str() {
            "setup" => "Setup",
            "random-kings" => "RandomKings",
            "palace" => "Palace",
            "nine-retreat" => "NineRetreat",
            "no-move" => "NoMove",
            "ply-limit" => "PlyLimit",
            _ => continue,
        };
        tag(&mut s, name, &v);
    }
    let mut pos = match (options.setup, coin) {
        (Setup::Random, Some(c)) => {
            tag(&mut s, "Coin", &c.to_hex());
            Position::start(super::random_board(c, options.random_kings))
        }
        (Setup::Random, None) => return Err(WriteError::NoCoin),
        (Setup::Predefined, _) => Position::start(Board::predefined()),
    };
    s.push('\n');
    for (i, m) in moves.iter().enumerate() {
        if !pos.legal_moves(options).contains(m) {
            return Err(WriteError::Illegal {
                number: i + 1,
                card: m.card,
                to: m.to,
            });
        }
        if i % 2 == 0 {
            s.push_str(&format!("{}. ", i / 2 + 1));
        }
        let mark = pos.play_unchecked(m, options);
        s.push_str(&notation::write(m, mark));
        s.push(if i % 12 == 11 { '\n' } else { ' ' });
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
