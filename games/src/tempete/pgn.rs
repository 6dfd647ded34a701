//! PGN export of a Tempête game, for any chess viewer.
//!
//! The seven-tag roster comes first (`Event`, `Site`, `Date`, `Round`, `White`, `Black`,
//! `Result`; `?`, `????.??.??` and `*` where not given), then the caller's other tags,
//! then the rules' options (`Cards`, `Hand`, `PlyLimit`) when they differ from the
//! defaults. The movetext has one SAN move per turn that stood, numbered as in PGN; all
//! that is not chess is in `{…}` comments:
//!
//! - the card played with a turn, its parameters and its text, after the move (every
//!   comment of a ply follows its move: a PGN reader gives a comment to the move
//!   before it);
//! - the second move of a double move (`{… then Nf3-g5}`), after the move;
//! - a start card (34, 57), a redraw's discards, a trap sealed or sprung;
//! - a turn intercepted: the intercepted play and the interception (of the whole turn
//!   or of a double move's second move), as comments; then the answer's move (or, after
//!   a cancelled interception, the original move) as the move of that turn; a card kept
//!   in the answer is said in a comment;
//! - a card that is the whole turn (an edit with no move) is the null move `--`, which
//!   ChessBase, SCID and lichess read, with the edit in a comment;
//! - a mated or stalemated player's yield, as a comment before the result.
//!
//! What a viewer will find illegal: a move a card allows and chess does not (moving as
//! another piece, a pawn back, a jump, a king's leap, a frozen or gained pattern), written
//! in long algebraic (`Bc1-d3`); and any move after a card has changed the board in a way
//! the viewer cannot see (a second move, a swap, a removal, a return, an early promotion,
//! a trap), since the viewer's board then differs from the game's. The score format
//! ([`super::score`]) is the exact record; PGN is for looking at the chess.

use core::fmt::Write as _;

use sealed_protocol::hash::Hash;

use crate::chess::pgn::{ROSTER, comment, roster, tag, wrap};
use crate::chess::{MoveText, Square};

use super::act::{Act, Answer, CardRef, CardUse, StartCard, WireMove};
use super::board::Board;
use super::rules::Tempete;
use super::score::{ScoredAct, act_words, board_for, option_tags, result_token, states};
use super::state::{Pending, State};

/// A move in SAN when it is a legal chess move on the position, else in long algebraic.
fn chess_text(board: &Board, m: WireMove) -> String {
    let pos = board.position();
    // An accepted act names real squares; anything else is shown, not refused.
    let Ok((from, to, promotion)) = m.squares() else {
        return "?-?".into();
    };
    let legal = pos.legal_moves();
    let found = legal
        .iter()
        .find(|c| c.from == from && c.to == to && c.promotion == promotion);
    if let Some(san) = found.and_then(|mv| pos.san(mv).ok()) {
        return san;
    }
    let letter = pos.piece_at(from).map(|p| p.kind);
    let capture = pos.piece_at(to).is_some();
    MoveText::long(letter, from, to, capture, promotion).to_string()
}

/// What a card is, for a comment: `card 18 Twin Leap (extra-move knight)`.
fn card_words(rules: &Tempete, number: Option<u32>) -> String {
    match number.and_then(|n| rules.card(n)) {
        Some(c) => format!("card {} {} ({})", c.number(), c.name(), c.effect()),
        None => match number {
            Some(n) => format!("card {n}"),
            None => "a card".into(),
        },
    }
}

fn number_of(sa: &ScoredAct, s: &State, r: CardRef) -> Option<u32> {
    match r {
        CardRef::Slot(slot) => sa.cards.iter().find(|(x, _)| *x == slot).map(|(_, n)| *n),
        CardRef::Taken(n) => Some(n),
        CardRef::Again => match &s.pending {
            Pending::Answer { turn, .. } => turn.card,
            Pending::Turn(_) => None,
        },
    }
}

fn params_words(u: &CardUse) -> String {
    let mut t = String::new();
    if !u.squares.is_empty() {
        let sq: Vec<String> = u
            .squares
            .iter()
            .map(|s| Square::from_index(*s).map_or_else(|| "?".into(), |s| s.to_string()))
            .collect();
        let _ = write!(t, " on {}", sq.join(", "));
    }
    if let Some(k) = u
        .kind
        .and_then(|k| crate::chess::Kind::ALL.get(usize::from(k)))
    {
        let _ = write!(t, " as {}", super::card::kind_word(*k));
    }
    t
}

/// The movetext pieces of one play that stood: comments before, the move (or `--`), and
/// comments after.
struct Ply {
    before: Vec<String>,
    mv: String,
    after: Vec<String>,
}

/// The play a turn or a replaying answer makes, as a PGN ply.
fn play_ply(
    rules: &Tempete,
    s: &State,
    sa: &ScoredAct,
    card: Option<&CardUse>,
    moves: &[WireMove],
) -> Ply {
    let board = board_for(s, sa);
    let mut before = vec![];
    let mut after = vec![];
    if let Some(u) = card {
        before.push(format!(
            "{}{}",
            card_words(rules, number_of(sa, s, u.card)),
            params_words(u)
        ));
    }
    let mv = match moves.first() {
        Some(m) => chess_text(&board, *m),
        None => {
            if card.is_some() {
                after.push("no chess move: the card is the whole turn".into());
            }
            "--".into()
        }
    };
    if let Some(second) = moves.get(1) {
        let first = moves[0];
        let lan = |m: WireMove| {
            let f = Square::from_index(m.from).map_or_else(|| "?".into(), |s| s.to_string());
            let t = Square::from_index(m.to).map_or_else(|| "?".into(), |s| s.to_string());
            format!("{f}-{t}")
        };
        after.push(format!(
            "then {} (the second move of the card; {} moved first)",
            lan(*second),
            lan(first)
        ));
    }
    Ply { before, mv, after }
}

/// Writes the game as PGN: the roster (with `tags` over the defaults, `result` or the
/// game's end as the result), the moves in SAN, and the cards in comments (see the
/// module docs for what a viewer makes of them).
pub fn pgn(
    rules: &Tempete,
    coin: &Hash,
    acts: &[ScoredAct],
    tags: &[(String, String)],
    result: Option<&str>,
) -> String {
    let played = states(rules, coin, acts);
    let end = played.last().and_then(|(_, a)| a.state.end.clone());
    let result = result
        .filter(|r| matches!(*r, "1-0" | "0-1" | "1/2-1/2" | "*"))
        .unwrap_or(result_token(end.as_ref()));
    let mut out = String::new();
    roster(
        &mut out,
        |k| tags.iter().find(|(t, _)| t == k).map(|(_, v)| v.clone()),
        result,
    );
    let defaults = option_tags(&Tempete::default());
    let mut seen: Vec<&str> = ROSTER.iter().map(|(k, _)| *k).collect();
    for (k, v) in tags {
        let key_ok = !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if key_ok && !seen.contains(&k.as_str()) {
            seen.push(k);
            tag(&mut out, k, v);
        }
    }
    for (k, v) in option_tags(rules) {
        if !defaults.contains(&(k.clone(), v.clone())) && !seen.contains(&k.as_str()) {
            tag(&mut out, &k, &v);
        }
    }
    out.push('\n');

    let mut items: Vec<String> = vec![];
    let mut plies = 0u32;
    // The turn waiting to see whether it is intercepted: its ply, and its score text.
    let mut pending: Option<Ply> = None;
    let mut need_number = true;
    // What an intercepted turn said before its answer: it belongs to the move that
    // turn finally makes, so it follows that move.
    let mut carry: Vec<String> = vec![];
    // A ply's comments follow its move, never precede it: a PGN reader attaches a
    // comment to the move before it (issue 55: `1. e4 e5 {card 35} 2. Nf3` gave
    // White's card to Black's e5).
    let emit = |items: &mut Vec<String>,
                plies: &mut u32,
                need_number: &mut bool,
                carry: &mut Vec<String>,
                p: Ply| {
        let n = *plies / 2 + 1;
        if (*plies).is_multiple_of(2) {
            items.push(format!("{n}."));
        } else if *need_number {
            items.push(format!("{n}..."));
        }
        items.push(p.mv);
        let notes: Vec<String> = carry.drain(..).chain(p.before).chain(p.after).collect();
        *need_number = !notes.is_empty();
        for a in &notes {
            items.push(comment(a));
        }
        *plies += 1;
    };
    // Comments of no move (an interception not answered yet, a dispute, a yield):
    // after the last move, before the next.
    let loose = |items: &mut Vec<String>, need_number: &mut bool, notes: Vec<String>| {
        *need_number |= !notes.is_empty();
        for n in notes {
            items.push(comment(&n));
        }
    };
    for (i, (s, applied)) in played.iter().enumerate() {
        let sa = &acts[i];
        let who = if s.to_act == crate::chess::Color::White {
            "White"
        } else {
            "Black"
        };
        let mut notes: Vec<String> = vec![];
        for (index, sq) in &sa.sprung {
            let sq = Square::from_index(*sq).map_or_else(|| "?".into(), |s| s.to_string());
            notes.push(format!("{who} opens trap {index} on {sq}: it springs"));
        }
        let next_is_intercept = matches!(
            played.get(i + 1).map(|_| &acts[i + 1].act),
            Some(Act::Intercept { .. } | Act::InterceptSecond { .. })
        );
        match &sa.act {
            Act::Turn {
                start,
                card,
                moves,
                discard,
            } => {
                match start {
                    Some(StartCard::Take { card, number }) => notes.push(format!(
                        "{who} plays {} and takes card {number}",
                        card_words(rules, number_of(sa, s, *card))
                    )),
                    Some(StartCard::Pick { card, slot }) => notes.push(format!(
                        "{who} plays {} and picks slot {slot}",
                        card_words(rules, number_of(sa, s, *card))
                    )),
                    None => {}
                }
                let mut p = play_ply(rules, s, sa, card.as_ref(), moves);
                p.before.splice(0..0, notes);
                if sa.sealed_trap {
                    p.after.push("a trap square is sealed".into());
                }
                if !discard.is_empty() {
                    let d: Vec<String> = discard
                        .iter()
                        .map(|slot| {
                            number_of(sa, s, CardRef::Slot(*slot))
                                .map_or_else(|| "?".into(), |n| n.to_string())
                        })
                        .collect();
                    p.after
                        .push(format!("discards {} and redraws", d.join(", ")));
                }
                if next_is_intercept {
                    carry.extend(p.before.iter().cloned());
                    carry.push(format!("{who} plays {}", act_words(rules, s, sa)));
                    pending = Some(p);
                } else {
                    emit(&mut items, &mut plies, &mut need_number, &mut carry, p);
                }
            }
            Act::Intercept { card } => {
                notes.push(format!(
                    "{who} intercepts with {}",
                    card_words(rules, number_of(sa, s, card.card))
                ));
                carry.extend(notes);
            }
            Act::InterceptSecond { card } => {
                notes.push(format!(
                    "{who} intercepts the second move with {}",
                    card_words(rules, number_of(sa, s, card.card))
                ));
                carry.extend(notes);
            }
            Act::Answer(Answer::Cancel { card }) => {
                notes.push(format!(
                    "{who} cancels the interception with {}: the turn stands",
                    card_words(rules, number_of(sa, s, card.card))
                ));
                let mut p = pending.take().unwrap_or(Ply {
                    before: vec![],
                    mv: "--".into(),
                    after: vec![],
                });
                p.before = notes;
                emit(&mut items, &mut plies, &mut need_number, &mut carry, p);
            }
            Act::Answer(Answer::Replay { card, moves }) => {
                pending = None;
                notes.push(format!("{who} answers with another play"));
                let mut p = play_ply(rules, s, sa, card.as_ref(), moves);
                p.before.splice(0..0, notes);
                emit(&mut items, &mut plies, &mut need_number, &mut carry, p);
            }
            Act::Answer(Answer::Keep { moves }) => {
                pending = None;
                notes.push(format!(
                    "{who} answers with one move and keeps {} in hand",
                    card_words(rules, number_of(sa, s, CardRef::Again))
                ));
                let mut p = play_ply(rules, s, sa, None, moves);
                p.before.splice(0..0, notes);
                emit(&mut items, &mut plies, &mut need_number, &mut carry, p);
            }
            Act::Claim(_) | Act::Answer(Answer::Claimed(_)) => {
                // A stated play is no chess move a viewer could replay: the words
                // say what was stated, the position what the board became.
                pending = None;
                notes.push(format!("{who} plays {}", act_words(rules, s, sa)));
                emit(
                    &mut items,
                    &mut plies,
                    &mut need_number,
                    &mut carry,
                    Ply {
                        before: notes,
                        mv: "--".into(),
                        after: vec![format!(
                            "the position: {}",
                            applied.state.board.position().fen()
                        )],
                    },
                );
            }
            Act::Dispute { .. } | Act::Settle { .. } | Act::Ruling { .. } => {
                notes.push(format!("{who}: {}", act_words(rules, s, sa)));
                loose(&mut items, &mut need_number, notes);
            }
            Act::Yield => {
                notes.push(match &applied.outcome {
                    Some(o) => format!("{who} has no legal move: {}", o.reason),
                    None => format!("{who} yields"),
                });
                loose(&mut items, &mut need_number, notes);
            }
        }
    }
    // An interception the game ended before its answer.
    loose(&mut items, &mut need_number, std::mem::take(&mut carry));
    if played.len() < acts.len() {
        items.push(comment(&format!(
            "act {} and after are not shown: the rules refuse it",
            played.len() + 1
        )));
    }
    items.push(result.to_owned());
    out.push_str(&wrap(items.iter().map(String::as_str)));
    out.push('\n');
    out
}
