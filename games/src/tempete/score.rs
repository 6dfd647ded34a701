//! Tempête's score format, read by `sealed replay tempete` and written by `export`.
//!
//! Over 600 lines, for now: issue 16 gives chess one SAN reader and writer and splits
//! what remains here into tokens and grammar, resolution, replay and writer; doing it
//! before that would split code that is about to be replaced.
//!
//! A score is PGN-like text. A game in which no card was played is exactly a chess game
//! in SAN, so ordinary PGN movetext replays as it is; everything a card adds is written
//! inside angle brackets `<…>`, which PGN reserves and no chess score uses.
//!
//! ```text
//! [Event "a sample"]
//! [Cards "1-10,12-21,23-70"]
//! [Hand "5"]
//!
//! 1. e4 e5 2. <18 Ng1-f3 Nf3-g5> <intercept 32> <answer Nf3> {the card is cancelled}
//! 2... Nc6 3. <12 Bc4> {trap 0 sealed} 3... <17@c4 Nf6> 4. <sprung 0 f6 d3>
//! 4... <34 takes 12 a6> 5. <again …> … *
//! ```
//!
//! # Grammar
//!
//! ```text
//! score    = { tag } movetext
//! tag      = "[" KEY " " '"' VALUE '"' "]"          one per line, before the movetext
//! movetext = { number | comment | act } [ result ]
//! number   = DIGITS "." | DIGITS "..."               "12." before White's turn, "12..." Black's
//! comment  = "{" TEXT "}" | ";" TEXT end-of-line     ignored (so are "(…)" side lines, "$n")
//! result   = "1-0" | "0-1" | "1/2-1/2" | "*"
//! act      = MOVE                                    a turn with no card: one move
//!          | "<" { sprung } body ">"
//! sprung   = "sprung" INDEX SQUARE                   the actor opens his sealed trap INDEX
//!                                                    (0 = his first trap card) on SQUARE,
//!                                                    where an enemy piece just landed
//! body     = "yield"                                 no legal move: mated or stalemated
//!          | "intercept" card                        intercept the turn just made
//!          | "intercept" "second" card               intercept the second move of its
//!                                                    double move (cards 18, 50)
//!          | "answer" "cancel" card                  cancel the interceptor's card
//!          | "answer" "keep" MOVE                    one plain move; the double-move card
//!                                                    goes back to the hand, shown
//!          | "answer" [ card ] { MOVE }              make another play instead
//!          | [ start ] [ card ] { MOVE } [ "discard" NUMBER { NUMBER } ]    a turn
//! start    = card "takes" NUMBER                     card 34's kind takes that played card
//!          | card "picks" "slot" NUMBER              card 57's kind picks that deck slot
//! card     = ref [ "@" SQUARE { "," SQUARE } ] [ "=" KIND ]     the card and its parameters
//! ref      = NUMBER                                  a card of one's own deck, by number
//!          | "t" NUMBER                              a card taken from the opponent (card 34)
//!                                                    or kept in an answer
//!          | "again"                                 the card of the turn just intercepted
//! MOVE     = SAN                                     "Nf3", "exd6", "O-O", "e8=N+"
//!          | LAN                                     "Ng1-f3", "Bc1xh6", "e7-e8=Q", "g1f3"
//! KIND     = "P" | "N" | "B" | "R" | "Q" | "K"
//! ```
//!
//! Examples: `<18 Ng1-f3 Nf3-g5>` (a double knight move); `<5@d4,e5>` (a swap with an
//! adjacent enemy piece, no move); `<8@b7=N>` (an early promotion to a knight);
//! `<19 e2-e4 discard 23 40>` (a move, then two cards discarded and redrawn);
//! `<57 picks slot 12 Nc3>`; `<34 takes 18 t18 Nb1-c3 Nc3-d5>`; `<intercept 66>`;
//! `<answer cancel 42>`; `<answer again Ng1-h3 Nh3-g5>`; `<intercept second 66>`;
//! `<answer keep e4>`; `<sprung 0 f6 yield>`.
//!
//! # Meaning
//!
//! - A card is written by its number, never by the deck slot it came from; the replay
//!   gives every card a slot of its own, so a score cannot check hands or entitlements
//!   (the transcript does that). A trap card's sealed square needs no writing: a turn
//!   with a trap card seals the next trap of its player.
//! - A SAN move is resolved against the plain legal moves of the board as it stands
//!   before the act (after the traps the act opens), under the continuing effects
//!   (frozen pieces, forbidden squares, the truce, gained patterns): every move of a
//!   play without a card, and the first move of a card play (the writer uses SAN there
//!   only for flow cards and `after` cards, whose first move is a plain one). Any
//!   later move of a card play is not chess, so it names both squares (LAN): the piece
//!   letter and `x` are for the reader, the squares decide (SAN there is unreadable).
//!   The move of `answer keep` is a play without a card.
//!   `e1g1` for castling is read in a play without a card. Trailing `+ # ! ?` and
//!   `e.p.` are ignored; no match or several is an illegal ply.
//! - Move numbers are optional; when given they must be right: the n-th turn of White is
//!   `n.`, Black's `n...`, counting turns (an answer replaces the intercepted turn and may
//!   carry its number; an interception carries none).
//! - Every act is one ply of the score (`ReplayError::Illegal` counts acts from 1).
//! - Tags read: `Cards`, `Hand`, `PlyLimit` (the options `cards`, `hand`, `ply-limit`);
//!   `SetUp "1"` is refused (Tempête starts from the standard position); others are
//!   kept out of the play.
//! - The writer adds comments a reader wants and the replay ignores: `{trap 0 sealed}`
//!   after a trap card, `{Black draws 2}` for a refill or a redraw it makes due.
//!
//! Replaying runs the protocol's own judge, [`Rules::apply`] of [`Tempete`], act by act,
//! so a score and a transcript are judged by one code path.

use core::fmt::Write as _;

use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, EnvRef, Name, Seat};
use sealed_protocol::outcome::{Outcome, SeatResult};
use sealed_protocol::rules::{ActCtx, Applied, OpenedSlot, Rules};

use crate::chess::{CastleSide, Color, Kind, Move, MoveText, PieceText, Square};
use crate::replay::{ReplayError, Replayed};

use super::act::{Act, Answer, CardRef, CardUse, StartCard, WireMove};
use super::board::{Board, Trap};
use super::card::FlowEffect;
use super::rules::{Tempete, deck_name, trap_name};
use super::state::{Pending, State, color, seat};

/// One accepted act as the protocol side knows it: who made it, the act, the slots its
/// envelope opened with the cards they held, whether it sealed a trap square, and which
/// trap squares it opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScoredAct {
    /// Who acted.
    pub seat: Seat,
    /// The act.
    pub act: Act,
    /// The slots the envelope opened: (slot, card number).
    pub cards: Vec<(u32, u32)>,
    /// Whether the envelope sealed a trap square.
    pub sealed_trap: bool,
    /// Trap squares the envelope opened: (trap index, square index).
    pub sprung: Vec<(u32, u8)>,
}

fn unreadable(s: impl Into<String>) -> ReplayError {
    ReplayError::Unreadable(s.into())
}

fn illegal(ply: usize, reason: impl Into<String>) -> ReplayError {
    ReplayError::Illegal {
        ply,
        reason: reason.into(),
    }
}

// ---- reading: text to tokens -------------------------------------------------------

/// A token of the movetext.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    /// A move number and the side it announces.
    Number(u32, Color),
    /// A bare word: a move.
    Word(String),
    /// The words of a `<…>` group.
    Group(Vec<String>),
}

struct Parsed {
    tags: Vec<(String, String)>,
    toks: Vec<Tok>,
    result: Option<String>,
}

/// Longest score text read: far more than any game, small enough to keep garbage cheap.
const MAX_TEXT: usize = 4 << 20;

fn parse(text: &str) -> Result<Parsed, ReplayError> {
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

fn skip_comment(chars: &mut std::str::Chars<'_>) -> Result<(), ReplayError> {
    for c in chars.by_ref() {
        if c == '}' {
            return Ok(());
        }
    }
    Err(unreadable("unclosed '{'"))
}

fn tag_line(t: &str) -> Result<(String, String), ReplayError> {
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
fn split_word(w: &str, out: &mut Vec<Tok>) -> Result<(), ReplayError> {
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

fn is_result(t: &str) -> bool {
    matches!(t, "1-0" | "0-1" | "1/2-1/2" | "*")
}

// ---- reading: words to acts ----------------------------------------------------------

/// A move as written, read by the chess crate's one grammar of move text.
fn read_move(w: &str) -> Result<MoveText, String> {
    MoveText::read(w).map_err(|e| format!("{w:?} is not a move: {e}"))
}

/// Whether the text names the from-square in full (long algebraic, coordinates):
/// then the squares decide, not the letter or the `x`.
fn is_coord(m: &MoveText) -> bool {
    m.squares().is_some()
}

/// A card as written.
#[derive(Clone, Debug, PartialEq, Eq)]
struct CardText {
    card: RefText,
    squares: Vec<u8>,
    kind: Option<u8>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RefText {
    Own(u32),
    Taken(u32),
    Again,
}

fn read_card(w: &str) -> Option<Result<CardText, String>> {
    let (head, kind) = match w.split_once('=') {
        Some((h, k)) => (h, Some(k)),
        None => (w, None),
    };
    let (r, squares) = match head.split_once('@') {
        Some((r, s)) => (r, Some(s)),
        None => (head, None),
    };
    let card = if r == "again" {
        RefText::Again
    } else if let Some(n) = r.strip_prefix('t').filter(|n| is_number(n)) {
        RefText::Taken(n.parse().ok()?)
    } else if is_number(r) {
        match r.parse() {
            Ok(n) => RefText::Own(n),
            Err(_) => return Some(Err(format!("{r:?}: card number too large"))),
        }
    } else {
        return None;
    };
    let bad = |why: &str| Some(Err(format!("card {w:?}: {why}")));
    let mut out = CardText {
        card,
        squares: vec![],
        kind: None,
    };
    if let Some(list) = squares {
        for s in list.split(',') {
            match s.parse::<Square>() {
                Ok(sq) => out.squares.push(sq.index()),
                Err(_) => return bad("bad square"),
            }
        }
    }
    if let Some(k) = kind {
        let mut c = k.chars();
        match (c.next().and_then(Kind::from_char), c.next()) {
            (Some(k), None) => out.kind = Some(k.idx() as u8),
            _ => return bad("the kind is one of P N B R Q K"),
        }
    }
    Some(Ok(out))
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn number(w: Option<&String>, what: &str) -> Result<u32, ReplayError> {
    w.filter(|w| is_number(w))
        .and_then(|w| w.parse().ok())
        .ok_or_else(|| unreadable(format!("expected {what}, got {w:?}")))
}

/// An act as written, before the board resolves its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
enum ActText {
    Turn {
        start: Option<(CardText, StartKind)>,
        card: Option<CardText>,
        moves: Vec<MoveText>,
        discard: Vec<u32>,
    },
    Intercept(CardText),
    InterceptSecond(CardText),
    Cancel(CardText),
    Keep(MoveText),
    Replay {
        card: Option<CardText>,
        moves: Vec<MoveText>,
    },
    Yield,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StartKind {
    Take(u32),
    Pick(u32),
}

/// An act with the traps its actor opens first.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Line {
    sprung: Vec<(u32, u8)>,
    act: ActText,
}

fn read_group(words: &[String]) -> Result<Line, ReplayError> {
    let mut i = 0;
    let mut sprung = vec![];
    while words.get(i).map(String::as_str) == Some("sprung") {
        let index = number(words.get(i + 1), "a trap index")?;
        let sq = words
            .get(i + 2)
            .and_then(|s| s.parse::<Square>().ok())
            .ok_or_else(|| unreadable("sprung: expected a square after the trap index"))?;
        sprung.push((index, sq.index()));
        i += 3;
    }
    let rest = &words[i..];
    let card_at = |w: &String| -> Result<CardText, ReplayError> {
        match read_card(w) {
            Some(r) => r.map_err(unreadable),
            None => Err(unreadable(format!("expected a card, got {w:?}"))),
        }
    };
    let act = match rest.first().map(String::as_str) {
        Some("yield") if rest.len() == 1 => ActText::Yield,
        Some("intercept") => match &rest[1..] {
            [c] => ActText::Intercept(card_at(c)?),
            [s, c] if s == "second" => ActText::InterceptSecond(card_at(c)?),
            _ => {
                return Err(unreadable(
                    "intercept takes one card, after `second` or not",
                ));
            }
        },
        Some("answer") => match &rest[1..] {
            [c, d] if c == "cancel" => ActText::Cancel(card_at(d)?),
            [k, rest @ ..] if k == "keep" => match rest {
                [m] => ActText::Keep(read_move(m).map_err(unreadable)?),
                _ => return Err(unreadable("answer keep takes one move")),
            },
            more => {
                let (card, moves, discard, start) = read_play(more)?;
                if start.is_some() || !discard.is_empty() {
                    return Err(unreadable("an answer takes no start card and no discard"));
                }
                ActText::Replay { card, moves }
            }
        },
        _ => {
            let (card, moves, discard, start) = read_play(rest)?;
            ActText::Turn {
                start,
                card,
                moves,
                discard,
            }
        }
    };
    Ok(Line { sprung, act })
}

type Play = (
    Option<CardText>,
    Vec<MoveText>,
    Vec<u32>,
    Option<(CardText, StartKind)>,
);

fn read_play(words: &[String]) -> Result<Play, ReplayError> {
    let mut i = 0;
    let mut start = None;
    let mut card = None;
    let is_card = |w: Option<&String>| w.is_some_and(|w| read_card(w).is_some());
    if is_card(words.first()) {
        let c = read_card(&words[0]).unwrap_or_else(|| Err(String::new()));
        let c = c.map_err(unreadable)?;
        match words.get(1).map(String::as_str) {
            Some("takes") => {
                start = Some((c, StartKind::Take(number(words.get(2), "a card number")?)));
                i = 3;
            }
            Some("picks") => {
                if words.get(2).map(String::as_str) != Some("slot") {
                    return Err(unreadable("write `picks slot N`"));
                }
                start = Some((c, StartKind::Pick(number(words.get(3), "a slot")?)));
                i = 4;
            }
            _ => {
                card = Some(c);
                i = 1;
            }
        }
    }
    if start.is_some() && is_card(words.get(i)) {
        let c = read_card(&words[i]).unwrap_or_else(|| Err(String::new()));
        card = Some(c.map_err(unreadable)?);
        i += 1;
    }
    let mut moves = vec![];
    let mut discard = vec![];
    while let Some(w) = words.get(i) {
        i += 1;
        if w == "discard" {
            if words.len() == i {
                return Err(unreadable("discard names at least one card"));
            }
            for d in &words[i..] {
                discard.push(number(Some(d), "a card number to discard")?);
            }
            break;
        }
        moves.push(read_move(w).map_err(unreadable)?);
    }
    Ok((card, moves, discard, start))
}

// ---- resolving moves and building acts -----------------------------------------------

/// The board the act's moves are read on: the state's, with the traps the actor opens
/// sprung first (as [`Rules::apply`] does).
fn act_board(s: &State, side: Color, sprung: &[(u32, u8)]) -> Board {
    let mut b = s.board.clone();
    for (index, sq) in sprung {
        let effect = s.hand(side).traps.get(*index as usize).copied();
        let (Some(effect), Some(square)) = (effect, Square::from_index(*sq)) else {
            return s.board.clone();
        };
        match b.spring_trap(Trap {
            owner: side,
            square,
            effect,
        }) {
            Ok(next) => b = next,
            Err(_) => return s.board.clone(),
        }
    }
    b
}

/// Resolves a written move. Without a card (`plain`), SAN is matched against the plain
/// moves of `board`; with a card, a move must name both squares (castling excepted,
/// which names the castling rook from the board's rights).
fn resolve(board: &Board, plain: bool, m: MoveText) -> Result<WireMove, String> {
    resolve_in(board, if plain { Mode::Plain } else { Mode::CardLater }, m)
}

/// Where a move stands in its act.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// In a play without a card: resolved against the plain moves.
    Plain,
    /// The first move of a card play: SAN is read on the board before the act.
    CardFirst,
    /// A later move of a card play: both squares must be named.
    CardLater,
}

fn resolve_in(board: &Board, mode: Mode, m: MoveText) -> Result<WireMove, String> {
    let pos = board.position();
    let san = !is_coord(&m) && !matches!(m, MoveText::Castle(_));
    if mode == Mode::CardFirst && san {
        return resolve_in(board, Mode::Plain, m);
    }
    if mode != Mode::Plain {
        if let Some((from, to, promotion)) = m.squares() {
            return Ok(WireMove::new(from, to, promotion));
        }
        let MoveText::Castle(side) = m else {
            return Err(
                "a card's later move names its from-square (Ng1-f3, e7-e8=Q), or is O-O".into(),
            );
        };
        let us = board.turn();
        let king = pos.kings(us).first().ok_or("no king to castle")?;
        let file = pos
            .castling()
            .rook(us, side)
            .ok_or_else(|| format!("{} has no right to {}", us, side.san()))?;
        return Ok(WireMove::new(king, Square::new(file, king.rank()), None));
    }
    let cands = board.plain_moves();
    let fits: Vec<&Move> = match m.squares() {
        Some((from, to, promotion)) => {
            let exact: Vec<&Move> = cands
                .iter()
                .filter(|c| c.from == from && c.to == to && c.promotion == promotion)
                .collect();
            if !exact.is_empty() {
                exact
            } else {
                // `e1g1` written for castling: the king's target square.
                let castle: Vec<&Move> = cands
                    .iter()
                    .filter(|c| {
                        c.from == from
                            && promotion.is_none()
                            && c.castle_side()
                                .is_some_and(|s| Square::new(s.king_target(), from.rank()) == to)
                    })
                    .collect();
                if castle.is_empty() {
                    return Ok(WireMove::new(from, to, promotion));
                }
                castle
            }
        }
        None => cands
            .iter()
            .filter(|c| m.fits(pos, c, board.is_capture(c)))
            .collect(),
    };
    match fits.as_slice() {
        [one] => Ok(WireMove::of(one)),
        [] => Err("it names no legal move here".into()),
        _ => Err(format!("it fits {} legal moves", fits.len())),
    }
}

/// The act a line names on this state, with the slots and values its envelope would
/// open and seal.
struct Built {
    act: Act,
    opened: Vec<OpenedSlot>,
    committed: Vec<(Name, u32)>,
}

fn build(rules: &Tempete, s: &State, line: &Line, ply: usize) -> Result<Built, ReplayError> {
    let side = s.to_act;
    let board = act_board(s, side, &line.sprung);
    let mut opened: Vec<OpenedSlot> = vec![];
    let mut own = |n: u32| -> Result<CardRef, ReplayError> {
        if opened.iter().any(|o| o.card == n) {
            return Err(illegal(ply, format!("card {n} is named twice in one act")));
        }
        opened.push(OpenedSlot {
            deck: deck_name(),
            slot: n,
            card: n,
        });
        Ok(CardRef::Slot(n))
    };
    let use_of = |c: &CardText, own: &mut dyn FnMut(u32) -> Result<CardRef, ReplayError>| {
        let card = match c.card {
            RefText::Own(n) => own(n)?,
            RefText::Taken(n) => CardRef::Taken(n),
            RefText::Again => CardRef::Again,
        };
        Ok::<_, ReplayError>(CardUse {
            card,
            squares: c.squares.clone(),
            kind: c.kind,
        })
    };
    let resolve_all = |plain: bool, moves: &[MoveText]| -> Result<Vec<WireMove>, ReplayError> {
        let mode = |k: usize| match (plain, k) {
            (true, _) => Mode::Plain,
            (false, 0) => Mode::CardFirst,
            (false, _) => Mode::CardLater,
        };
        moves
            .iter()
            .enumerate()
            .map(|(k, m)| {
                let r = resolve_in(&board, mode(k), *m);
                // Writing a card's later move without its from-square is a slip of
                // notation, not an illegal play.
                match (mode(k), m) {
                    (Mode::CardLater, m) if !is_coord(m) && !matches!(m, MoveText::Castle(_)) => {
                        r.map_err(unreadable)
                    }
                    _ => r.map_err(|e| illegal(ply, e)),
                }
            })
            .collect()
    };
    let mut committed = vec![];
    let act = match &line.act {
        ActText::Yield => Act::Yield,
        ActText::Intercept(c) => Act::Intercept {
            card: use_of(c, &mut own)?,
        },
        ActText::InterceptSecond(c) => Act::InterceptSecond {
            card: use_of(c, &mut own)?,
        },
        ActText::Cancel(c) => Act::Answer(Answer::Cancel {
            card: use_of(c, &mut own)?,
        }),
        ActText::Keep(m) => Act::Answer(Answer::Keep {
            moves: resolve_all(true, &[*m])?,
        }),
        ActText::Replay { card, moves } => {
            let card = card.as_ref().map(|c| use_of(c, &mut own)).transpose()?;
            Act::Answer(Answer::Replay {
                moves: resolve_all(card.is_none(), moves)?,
                card,
            })
        }
        ActText::Turn {
            start,
            card,
            moves,
            discard,
        } => {
            let start = match start {
                None => None,
                Some((c, k)) => {
                    let card = use_of(c, &mut own)?.card;
                    Some(match k {
                        StartKind::Take(number) => StartCard::Take {
                            card,
                            number: *number,
                        },
                        StartKind::Pick(slot) => StartCard::Pick { card, slot: *slot },
                    })
                }
            };
            let card = card.as_ref().map(|c| use_of(c, &mut own)).transpose()?;
            let number = card.as_ref().and_then(|u| match u.card {
                CardRef::Slot(n) | CardRef::Taken(n) => Some(n),
                CardRef::Again => None,
            });
            let seals = number
                .and_then(|n| rules.card(n))
                .is_some_and(|c| matches!(c.effect().flow(), Some(FlowEffect::SealTrapSquare(_))));
            if seals {
                committed.push((trap_name(), s.hand(side).traps.len() as u32));
            }
            let moves = resolve_all(card.is_none(), moves)?;
            let discard = discard
                .iter()
                .map(|n| match own(*n)? {
                    CardRef::Slot(s) => Ok(s),
                    _ => Err(illegal(ply, "a discard is a card of one's own deck")),
                })
                .collect::<Result<_, _>>()?;
            Act::Turn {
                start,
                card,
                moves,
                discard,
            }
        }
    };
    Ok(Built {
        act,
        opened,
        committed,
    })
}

/// Judges one act with the protocol's own rules, on a synthetic envelope.
#[allow(clippy::too_many_arguments)]
fn judge(
    rules: &Tempete,
    s: &State,
    who: Seat,
    act: &Act,
    opened: &[OpenedSlot],
    committed: &[(Name, u32)],
    sprung: &[(u32, u8)],
    seq: u64,
) -> Result<Applied<State>, String> {
    let coin = Hash([0; 32]);
    let values: Vec<(Name, u32, Vec<u8>)> = sprung
        .iter()
        .map(|(i, sq)| (trap_name(), *i, vec![*sq]))
        .collect();
    let ctx = ActCtx {
        at: EnvRef {
            chain: ChainId::public(who),
            seq,
        },
        clock: 0,
        coin: &coin,
        opened_slots: opened,
        opened_values: &values,
        committed_values: committed,
        draws: &[],
    };
    rules.apply(s, who, act, &ctx).map_err(|v| v.0)
}

/// The rules the tags name: `Cards`, `Hand`, `PlyLimit`.
fn rules_of(tags: &[(String, String)]) -> Result<Tempete, ReplayError> {
    let mut options = vec![];
    for (k, v) in tags {
        let key = match k.as_str() {
            "Cards" => "cards",
            "Hand" => "hand",
            "PlyLimit" => "ply-limit",
            "SetUp" if v.trim() != "0" => {
                return Err(unreadable("tempete starts from the standard position"));
            }
            _ => continue,
        };
        let name = Name::new(key).map_err(|e| unreadable(e.to_string()))?;
        options.push((name, v.clone()));
    }
    Tempete::from_options(&options).map_err(|e| unreadable(e.0))
}

/// The result token of an outcome: `1-0`, `0-1`, `1/2-1/2`, or `*` while unfinished.
pub fn result_token(end: Option<&Outcome>) -> &'static str {
    match end.and_then(|o| o.results.first()) {
        None => "*",
        Some(SeatResult::Win) => "1-0",
        Some(SeatResult::Loss) => "0-1",
        Some(_) => "1/2-1/2",
    }
}

/// Replays score text with the rules its tags name; returns the rules, the final state
/// and the number of acts.
pub fn replay_state(text: &str) -> Result<(Tempete, State, usize), ReplayError> {
    let (rules, s, acts) = replay_acts(text)?;
    Ok((rules, s, acts.len()))
}

/// Replays score text and returns the rules, the final state and every act as the
/// replay built it (each card in a slot numbered like the card), ready for
/// [`score_text`].
pub fn replay_acts(text: &str) -> Result<(Tempete, State, Vec<ScoredAct>), ReplayError> {
    let parsed = parse(text)?;
    let mut scored: Vec<ScoredAct> = vec![];
    let rules = rules_of(&parsed.tags)?;
    let mut s = rules.start(&Hash([0; 32]));
    let mut acts = 0usize;
    let mut turns = 0u32;
    let mut number: Option<(u32, Color)> = None;
    for tok in parsed.toks {
        let line = match tok {
            Tok::Number(n, c) => {
                if number.is_some() {
                    return Err(unreadable(format!("move number {n} follows another")));
                }
                number = Some((n, c));
                continue;
            }
            Tok::Word(w) => Line {
                sprung: vec![],
                act: ActText::Turn {
                    start: None,
                    card: None,
                    moves: vec![read_move(&w).map_err(unreadable)?],
                    discard: vec![],
                },
            },
            Tok::Group(words) => read_group(&words)?,
        };
        acts += 1;
        if let Some(end) = &s.end {
            return Err(illegal(acts, format!("the game is over: {}", end.reason)));
        }
        let want = match &line.act {
            ActText::Turn { .. } | ActText::Yield => Some((turns / 2 + 1, s.to_act)),
            ActText::Cancel(_) | ActText::Replay { .. } | ActText::Keep(_) => {
                Some((turns.saturating_sub(1) / 2 + 1, s.to_act))
            }
            ActText::Intercept(_) | ActText::InterceptSecond(_) => None,
        };
        if let Some((n, c)) = number.take()
            && want != Some((n, c))
        {
            let dots = |c: Color| if c == Color::White { "." } else { "..." };
            return Err(unreadable(match want {
                Some((wn, wc)) => format!(
                    "move number {n}{} out of place: this is {wn}{}",
                    dots(c),
                    dots(wc)
                ),
                None => format!("move number {n}{} before an interception", dots(c)),
            }));
        }
        let built = build(&rules, &s, &line, acts)?;
        let who = seat(s.to_act);
        let applied = judge(
            &rules,
            &s,
            who,
            &built.act,
            &built.opened,
            &built.committed,
            &line.sprung,
            acts as u64,
        )
        .map_err(|e| illegal(acts, e))?;
        if matches!(built.act, Act::Turn { .. }) {
            turns += 1;
        }
        s = applied.state;
        scored.push(ScoredAct {
            seat: who,
            cards: built.opened.iter().map(|o| (o.slot, o.card)).collect(),
            sealed_trap: !built.committed.is_empty(),
            sprung: line.sprung,
            act: built.act,
        });
    }
    if number.is_some() {
        return Err(unreadable("a move number at the end names no act"));
    }
    if let (Some(claim), Some(end)) = (&parsed.result, &s.end)
        && claim != "*"
        && claim != result_token(Some(end))
    {
        return Err(illegal(
            acts,
            format!(
                "the score says {claim}, the game says {} ({})",
                result_token(Some(end)),
                end.reason
            ),
        ));
    }
    Ok((rules, s, scored))
}

/// Replays score text: every act is judged by [`Rules::apply`] of [`Tempete`].
pub fn replay(text: &str) -> Result<Replayed, ReplayError> {
    let (_, s, plies) = replay_state(text)?;
    Ok(Replayed {
        plies,
        position: super::render::text(&s, None),
        result: s
            .end
            .as_ref()
            .map(|e| format!("{} ({})", result_token(Some(e)), e.reason)),
        svg: Some(super::render::svg(&s)),
    })
}

// ---- writing ----------------------------------------------------------------------

/// The card list in the `cards` option's form, runs folded: `1-10,12-21,23-70`.
pub fn list_text(list: &[u32]) -> String {
    let mut sorted = list.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = vec![];
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            sorted[i].to_string()
        } else {
            format!("{}-{}", sorted[i], sorted[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// The tags that give the rules' options, in score form.
pub fn option_tags(rules: &Tempete) -> Vec<(String, String)> {
    let mut t = vec![
        ("Cards".to_owned(), list_text(&rules.list)),
        ("Hand".to_owned(), rules.hand.to_string()),
    ];
    if rules.ply_limit > 0 {
        t.push(("PlyLimit".to_owned(), rules.ply_limit.to_string()));
    }
    t
}

fn kind_of(i: u8) -> Option<Kind> {
    Kind::ALL.get(usize::from(i)).copied()
}

fn sq_text(i: u8) -> String {
    Square::from_index(i).map_or_else(|| format!("?{i}"), |s| s.to_string())
}

/// How an act's cards are named in text: a slot is shown by the card it held.
struct Naming<'a> {
    cards: &'a [(u32, u32)],
}

impl Naming<'_> {
    fn number(&self, slot: u32) -> Result<u32, String> {
        self.cards
            .iter()
            .find(|(s, _)| *s == slot)
            .map(|(_, n)| *n)
            .ok_or_else(|| format!("slot {slot} is played but its card is not given"))
    }

    fn card(&self, u: &CardUse) -> Result<String, String> {
        let mut t = match u.card {
            CardRef::Slot(s) => self.number(s)?.to_string(),
            CardRef::Taken(n) => format!("t{n}"),
            CardRef::Again => "again".into(),
        };
        if !u.squares.is_empty() {
            t.push('@');
            let sq: Vec<String> = u.squares.iter().map(|s| sq_text(*s)).collect();
            t.push_str(&sq.join(","));
        }
        if let Some(k) = u.kind {
            let k = kind_of(k).ok_or_else(|| format!("{k} is not a kind"))?;
            t.push('=');
            t.push(k.upper());
        }
        Ok(t)
    }

    fn card_ref(&self, r: CardRef) -> Result<String, String> {
        self.card(&CardUse {
            card: r,
            squares: vec![],
            kind: None,
        })
    }
}

/// A wire move's squares; for indices that are no squares, the text to write instead.
fn move_parts(m: WireMove) -> Result<(Square, Square), String> {
    match (Square::from_index(m.from), Square::from_index(m.to)) {
        (Some(from), Some(to)) => Ok((from, to)),
        _ => Err(format!("{}{}", sq_text(m.from), sq_text(m.to))),
    }
}

/// A plain move in SAN, disambiguated against the plain moves of `board` so that
/// [`resolve`] reads it back; if it would not, both squares.
fn san_text(board: &Board, m: WireMove) -> String {
    let (from, to) = match move_parts(m) {
        Ok(parts) => parts,
        Err(text) => return text,
    };
    let pos = board.position();
    let plain = board.plain_moves();
    let letter = pos.piece_at(from).map(|p| p.kind);
    // Both squares without a `-`, the form read back whatever the board allows.
    let squares = |capture: bool, promotion: Option<Kind>| {
        let long = MoveText::long(letter, from, to, capture, promotion);
        match long {
            MoveText::Piece(p) => MoveText::Piece(PieceText { dash: false, ..p }),
            castle => castle,
        }
    };
    let Some(cand) = plain.iter().find(|c| WireMove::of(c) == m) else {
        // Not a plain move (a score of an act the judge refused).
        return squares(false, m.promotion.and_then(kind_of)).to_string();
    };
    let text = pos.san_among(cand, &plain, |c| board.is_capture(c));
    if resolve(board, true, text) == Ok(m) {
        text.to_string()
    } else {
        squares(board.is_capture(cand), cand.promotion).to_string()
    }
}

/// A card move in LAN (`Ng1-f3`, `e7xd8=Q`, `O-O`), checked to read back.
fn lan_text(board: &Board, pieces: &[(Square, Kind)], m: WireMove) -> String {
    let (from, to) = match move_parts(m) {
        Ok(parts) => parts,
        Err(text) => return text,
    };
    let pos = board.position();
    let kind = pieces
        .iter()
        .rev()
        .find(|(s, _)| *s == from)
        .map(|(_, k)| *k)
        .or_else(|| pos.piece_at(from).map(|p| p.kind));
    let us = board.turn();
    let own_rook = pos
        .piece_at(to)
        .is_some_and(|p| p.color == us && p.kind == Kind::Rook);
    if kind == Some(Kind::King) && own_rook && m.promotion.is_none() {
        for side in CastleSide::ALL {
            if resolve(board, false, MoveText::Castle(side)).ok() == Some(m) {
                return side.san().to_owned();
            }
        }
    }
    let capture = pos.piece_at(to).is_some_and(|p| p.color != us);
    let promotion = m.promotion.and_then(kind_of);
    MoveText::long(kind, from, to, capture, promotion).to_string()
}

/// Where the pieces a card play moves stand after its edit (for the letters of LAN):
/// a `before` swap exchanges two squares, a `before` return puts a kind on one.
fn edited_pieces(
    rules: &Tempete,
    board: &Board,
    number: Option<u32>,
    u: &CardUse,
) -> Vec<(Square, Kind)> {
    use super::card::{Effect, Timing};
    let Some(card) = number.and_then(|n| rules.card(n)) else {
        return vec![];
    };
    if card.timing() != Timing::Before {
        return vec![];
    }
    let sq: Vec<Square> = u
        .squares
        .iter()
        .filter_map(|s| Square::from_index(*s))
        .collect();
    let at = |s: Square| board.position().piece_at(s).map(|p| p.kind);
    match (card.effect(), sq.as_slice()) {
        (Effect::SwapOwn, [a, b]) => [(a, b), (b, a)]
            .into_iter()
            .filter_map(|(x, y)| at(*y).map(|k| (*x, k)))
            .collect(),
        (Effect::Revive, [a]) => u
            .kind
            .and_then(kind_of)
            .map(|k| vec![(*a, k)])
            .unwrap_or_default(),
        _ => vec![],
    }
}

/// The moves of a card play in LAN, each letter from where the piece stands then.
fn card_moves_text(
    rules: &Tempete,
    board: &Board,
    number: Option<u32>,
    u: &CardUse,
    moves: &[WireMove],
) -> Vec<String> {
    use super::card::Timing;
    let plain_first = number
        .and_then(|n| rules.card(n))
        .is_some_and(|c| c.effect().flow().is_some() || c.timing() == Timing::After);
    let mut pieces = edited_pieces(rules, board, number, u);
    let mut out = vec![];
    for (k, m) in moves.iter().enumerate() {
        let san = (k == 0 && plain_first)
            .then(|| san_text(board, *m))
            .filter(|t| {
                read_move(t)
                    .ok()
                    .and_then(|mt| resolve_in(board, Mode::CardFirst, mt).ok())
                    == Some(*m)
            });
        out.push(san.unwrap_or_else(|| lan_text(board, &pieces, *m)));
        if let (Some(from), Some(to)) = (Square::from_index(m.from), Square::from_index(m.to)) {
            let k = pieces
                .iter()
                .rev()
                .find(|(s, _)| *s == from)
                .map(|(_, k)| *k)
                .or_else(|| board.position().piece_at(from).map(|p| p.kind));
            if let Some(k) = k {
                pieces.push((to, k));
            }
        }
    }
    out
}

/// One act in score text (without its move number): a bare SAN move for a turn with no
/// card, else a `<…>` group.
fn act_text(rules: &Tempete, s: &State, sa: &ScoredAct) -> Result<String, String> {
    let side = s.to_act;
    let board = act_board(s, side, &sa.sprung);
    let naming = Naming { cards: &sa.cards };
    let mut words: Vec<String> = vec![];
    for (i, sq) in &sa.sprung {
        words.push(format!("sprung {i} {}", sq_text(*sq)));
    }
    let number_of = |u: &CardUse| match u.card {
        CardRef::Slot(sl) => naming.number(sl).ok(),
        CardRef::Taken(n) => Some(n),
        CardRef::Again => match &s.pending {
            Pending::Answer { turn, .. } => turn.card,
            Pending::Turn(_) => None,
        },
    };
    let moves_of = |card: Option<&CardUse>, moves: &[WireMove]| -> Vec<String> {
        match card {
            None => moves.iter().map(|m| san_text(&board, *m)).collect(),
            Some(u) => card_moves_text(rules, &board, number_of(u), u, moves),
        }
    };
    match &sa.act {
        Act::Yield => words.push("yield".into()),
        Act::Intercept { card } => words.push(format!("intercept {}", naming.card(card)?)),
        Act::InterceptSecond { card } => {
            words.push(format!("intercept second {}", naming.card(card)?));
        }
        Act::Answer(Answer::Keep { moves }) => {
            // Only one move reads back; anything else the rules refuse anyway.
            let [m] = moves.as_slice() else {
                return Err(format!(
                    "a kept card's answer has {} moves, not one",
                    moves.len()
                ));
            };
            words.push(format!("answer keep {}", san_text(&board, *m)));
        }
        Act::Answer(Answer::Cancel { card }) => {
            words.push(format!("answer cancel {}", naming.card(card)?));
        }
        Act::Answer(Answer::Replay { card, moves }) => {
            words.push("answer".into());
            if let Some(c) = card {
                words.push(naming.card(c)?);
            }
            words.extend(moves_of(card.as_ref(), moves));
        }
        Act::Turn {
            start,
            card,
            moves,
            discard,
        } => {
            match start {
                Some(StartCard::Take { card, number }) => {
                    words.push(format!("{} takes {number}", naming.card_ref(*card)?));
                }
                Some(StartCard::Pick { card, slot }) => {
                    words.push(format!("{} picks slot {slot}", naming.card_ref(*card)?));
                }
                None => {}
            }
            if let Some(c) = card {
                words.push(naming.card(c)?);
            }
            let mv = moves_of(card.as_ref(), moves);
            if words.is_empty() && card.is_none() && discard.is_empty() && mv.len() == 1 {
                // A bare move must read back as this very move.
                return Ok(mv.into_iter().next().unwrap_or_default());
            }
            words.extend(mv);
            if !discard.is_empty() {
                words.push("discard".into());
                for d in discard {
                    words.push(naming.number(*d)?.to_string());
                }
            }
        }
    }
    Ok(format!("<{}>", words.join(" ")))
}

/// The check mark after an act: `#` if the side to act is now mated, `+` if checked.
fn check_mark(s: &State) -> &'static str {
    let b = &s.board;
    let them = b.turn();
    if s.end.is_some() || !b.position().king_attacked(them) {
        ""
    } else if b.is_mated(them) {
        "#"
    } else {
        "+"
    }
}

/// Puts the check mark on the last move of an act's text.
fn with_mark(text: String, mark: &str, act: &Act) -> String {
    let has_move = match act {
        Act::Turn { moves, .. }
        | Act::Answer(Answer::Replay { moves, .. } | Answer::Keep { moves }) => !moves.is_empty(),
        _ => false,
    };
    if mark.is_empty() || !has_move {
        return text;
    }
    match text.strip_suffix('>') {
        // The mark follows the last move, which discards come after.
        Some(inner) => match inner.find(" discard ") {
            Some(at) => format!("{}{mark}{}>", &inner[..at], &inner[at..]),
            None => format!("{inner}{mark}>"),
        },
        None => format!("{text}{mark}"),
    }
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// Builds the synthetic envelope of a scored act and judges it.
fn judge_scored(
    rules: &Tempete,
    s: &State,
    sa: &ScoredAct,
    seq: u64,
) -> Result<Applied<State>, String> {
    let opened: Vec<OpenedSlot> = sa
        .cards
        .iter()
        .map(|(slot, card)| OpenedSlot {
            deck: deck_name(),
            slot: *slot,
            card: *card,
        })
        .collect();
    let committed = if sa.sealed_trap {
        vec![(trap_name(), s.hand(color(sa.seat)).traps.len() as u32)]
    } else {
        vec![]
    };
    judge(
        rules, s, sa.seat, &sa.act, &opened, &committed, &sa.sprung, seq,
    )
}

/// A writer of lines no longer than 79 characters where it can.
struct Lines {
    out: String,
    width: usize,
}

impl Lines {
    fn push(&mut self, item: &str) {
        if self.width > 0 && self.width + 1 + item.chars().count() > 79 {
            self.out.push('\n');
            self.width = 0;
        } else if self.width > 0 {
            self.out.push(' ');
            self.width += 1;
        }
        self.out.push_str(item);
        self.width += item.chars().count();
    }
}

/// Writes a game as score text: the option tags, then every act (bare SAN when no card
/// is played, `<…>` otherwise) with move numbers, the writer's comments and the result.
/// The text replays with [`replay`] to the same state. An act the rules refuse (which
/// the protocol never hands over) ends the text with a comment saying so.
pub fn score_text(rules: &Tempete, acts: &[ScoredAct]) -> String {
    score_text_ending(rules, acts, None)
}

/// [`score_text`], for a game that ended off the board (a resignation, a draw agreed,
/// an adjudication): when the acts leave the game on, `ending`'s reason is written as a
/// comment and its result as the result token.
pub fn score_text_ending(rules: &Tempete, acts: &[ScoredAct], ending: Option<&Outcome>) -> String {
    let mut head = String::new();
    for (k, v) in option_tags(rules) {
        let _ = writeln!(head, "[{k} \"{v}\"]");
    }
    head.push('\n');
    let mut lines = Lines {
        out: head,
        width: 0,
    };
    let mut s = rules.start(&Hash([0; 32]));
    let mut turns = 0u32;
    let mut after_white_turn = false;
    for (i, sa) in acts.iter().enumerate() {
        let who = seat(s.to_act);
        let written = if s.end.is_some() {
            Err("the game is over".to_owned())
        } else if sa.seat != who {
            Err(format!(
                "it is seat {}'s act, not seat {}'s",
                who.0, sa.seat.0
            ))
        } else {
            act_text(rules, &s, sa)
        };
        let applied = written.and_then(|t| judge_scored(rules, &s, sa, i as u64).map(|a| (t, a)));
        let (text, applied) = match applied {
            Ok(x) => x,
            Err(e) => {
                lines.push(&format!(
                    "{{act {} is refused: {}}}",
                    i + 1,
                    e.replace('}', ")")
                ));
                break;
            }
        };
        let is_turn = matches!(sa.act, Act::Turn { .. } | Act::Yield);
        if is_turn {
            let n = turns / 2 + 1;
            if s.to_act == Color::White {
                lines.push(&format!("{n}."));
            } else if !after_white_turn {
                lines.push(&format!("{n}..."));
            }
        }
        let mut notes = vec![];
        if sa.sealed_trap {
            notes.push(format!("trap {} sealed", s.hand(s.to_act).traps.len()));
        }
        for owe in &applied.owe {
            notes.push(format!(
                "{} draws {}",
                side_name(color(owe.owner)),
                owe.count
            ));
        }
        if matches!(sa.act, Act::Turn { .. }) {
            turns += 1;
        }
        after_white_turn =
            s.to_act == Color::White && matches!(sa.act, Act::Turn { .. }) && notes.is_empty();
        s = applied.state;
        lines.push(&with_mark(text, check_mark(&s), &sa.act));
        if !notes.is_empty() {
            lines.push(&format!("{{{}}}", notes.join("; ")));
        }
    }
    match (&s.end, ending) {
        (None, Some(o)) => {
            lines.push(&format!("{{{}}}", o.reason.replace('}', ")")));
            lines.push(result_token(Some(o)));
        }
        _ => lines.push(result_token(s.end.as_ref())),
    }
    lines.out.push('\n');
    lines.out
}

/// Runs a scored game through the rules: the state before each act and its result, up
/// to the first act refused (for the PGN writer).
pub(super) fn states(rules: &Tempete, acts: &[ScoredAct]) -> Vec<(State, Applied<State>)> {
    let mut s = rules.start(&Hash([0; 32]));
    let mut out = vec![];
    for (i, sa) in acts.iter().enumerate() {
        if s.end.is_some() || sa.seat != seat(s.to_act) {
            break;
        }
        match judge_scored(rules, &s, sa, i as u64) {
            Ok(a) => {
                let next = a.state.clone();
                out.push((s, a));
                s = next;
            }
            Err(_) => break,
        }
    }
    out
}

/// One act in score text on the state before it (for the PGN writer's comments).
pub(super) fn act_words(rules: &Tempete, s: &State, sa: &ScoredAct) -> String {
    act_text(rules, s, sa).unwrap_or_else(|e| format!("<unwritable: {e}>"))
}

/// The board an act's moves are read on (for the PGN writer).
pub(super) fn board_for(s: &State, sa: &ScoredAct) -> Board {
    act_board(s, s.to_act, &sa.sprung)
}
