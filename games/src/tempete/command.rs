//! What a person types to act in Tempête, turned into an act and the slots and values
//! its envelope must open and seal.
//!
//! ```text
//! action  = [start ";"] turn | "intercept" ["second"] N | "answer" reply | "yield"
//! start   = "take" N        (card 34's kind: take the opponent's card N)
//!         | "pick" SLOT     (card 57's kind: add never-dealt slot SLOT)   — both need "with" N
//! turn    = SAN | "card" N [at SQ…] [as KIND] [trap SQ] [discard N…] [then MOVE [MOVE]]
//! reply   = "cancel" N | SAN | "keep" MOVE
//!         | "card" N … | "again" [at SQ…] [as KIND] [then MOVE [MOVE]]
//! MOVE    = SAN | from-to coordinates (e2e4, e2-e4, e7e8q, e7-e8=Q)
//! ```
//!
//! A start card names the card it plays: `take 40 with 34; e4`, `pick 17 with 57; Nf3`.
//! Cards are named by their number; the hand says which slot holds it (or that it is
//! in the public `taken` list: taken from the opponent, or kept after an interception). Moves made under a card are best written as coordinates,
//! since a card's move is often no chess move SAN could name. Why words are refused:
//! [`CommandError`].

use sealed_protocol::ids::Name;
use sealed_protocol::session::Command;

use crate::chess::{Kind, Move, MoveKind, Position, Square};

use super::act::{Act, Answer, CardRef, CardUse, Claim, StartCard, WireMove};
use super::card::{Card, FlowEffect};
use super::effects::Params;
use super::holding::{command, opens};
use super::physical::notation::{self, MoveError, Numbered, WordsError};
use super::rules::trap_name;

/// What the parser needs to know of the seat: its hand, and how many traps it sealed.
pub struct Seat<'a> {
    /// The hand: where each card comes from, and the card.
    pub hand: &'a [(CardRef, Card)],
    /// The traps this seat sealed so far (the next one gets this index).
    pub traps: u32,
    /// The position moves are read on.
    pub pos: &'a Position,
    /// Whether the game uses the physical deck (cards are played with stated effects).
    pub physical: bool,
}

/// Why a person's Tempête words do not read as an act.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CommandError {
    /// A card's number that is no number.
    #[error("{0:?} is not a card number")]
    NotACardNumber(String),
    /// A card not in hand (or named twice in one action).
    #[error("card {0} is not in your hand")]
    NotInHand(u32),
    /// `answer keep` without exactly one move.
    #[error("answer keep MOVE: one plain move, the card back to the hand")]
    KeepUsage,
    /// A start card not written `take N with CARD` or `pick SLOT with CARD`.
    #[error("{0:?}: a start card is `take N with CARD` or `pick SLOT with CARD`")]
    StartUsage(String),
    /// The card or slot a start card names is no number.
    #[error("{0:?} is not a number")]
    NotANumber(String),
    /// A start card's verb other than take or pick.
    #[error("{0:?}: say take or pick")]
    StartVerb(String),
    /// A dispute that states edits or a continuing effect.
    #[error("dispute ACT [note WHY]: a dispute changes nothing itself")]
    DisputeChanges,
    /// A ruling without the arbiter's signature.
    #[error("a ruling carries the arbiter's sig HEX")]
    RulingUnsigned,
    /// A signature on anything but a ruling.
    #[error("only a ruling carries a signature")]
    SignedNotRuling,
    /// No words where a play goes.
    #[error("no move given")]
    NoMove,
    /// Words that are neither a move nor a card play.
    #[error("{0:?}: write a move (e4, Nf3), or card N [at SQ…] [as KIND] [then MOVE…]")]
    PlayUsage(String),
    /// A square that does not read.
    #[error("bad square")]
    BadSquare,
    /// `as` without one piece letter.
    #[error("as KIND: one letter, e.g. as N")]
    KindUsage,
    /// A card taken from the opponent named as a discard.
    #[error("card {0} was taken: only dealt cards are discarded")]
    DiscardTaken(String),
    /// A word of a card play that begins no part of it.
    #[error("{0:?}: expected at, as, trap, discard or then")]
    UnknownWord(String),
    /// A trap card without its square.
    #[error("a trap card needs its secret square: trap SQUARE")]
    TrapNeeded,
    /// A square sealed with a card that is no trap.
    #[error("only a trap card seals a square")]
    NotATrap,
    /// A move that does not read.
    #[error(transparent)]
    Move(#[from] MoveError),
    /// The physical deck's words that do not read.
    #[error(transparent)]
    Words(#[from] WordsError),
}

/// Parses an action into the session command.
pub fn parse(me: &Seat<'_>, text: &str) -> Result<Command, CommandError> {
    let text = text.trim();
    let mut used: Vec<CardRef> = vec![];
    if me.physical
        && let Some(cmd) = physical(me, text, &mut used)?
    {
        return Ok(cmd);
    }
    if let Some(rest) = text.strip_prefix("intercept") {
        // `intercept second N` hits the second move of a double move (the seed's card
        // 18); `intercept N` the whole turn.
        let (second, n) = match rest.split_whitespace().collect::<Vec<_>>().as_slice() {
            ["second", n] => (true, *n),
            _ => (false, rest.trim()),
        };
        let (r, _) = card(me, n, &mut used)?;
        let card = CardUse::new(r, &Params::none());
        let act = if second {
            Act::InterceptSecond { card }
        } else {
            Act::Intercept { card }
        };
        return Ok(command(&act, opens(r)));
    }
    if text == "yield" {
        return Ok(command(&Act::Yield, vec![]));
    }
    if let Some(rest) = text.strip_prefix("answer") {
        let rest = rest.trim();
        if let Some(n) = rest.strip_prefix("cancel") {
            let (r, _) = card(me, n.trim(), &mut used)?;
            let act = Act::Answer(Answer::Cancel {
                card: CardUse::new(r, &Params::none()),
            });
            return Ok(command(&act, opens(r)));
        }
        if let Some(m) = rest.strip_prefix("keep") {
            let mv = match m.split_whitespace().collect::<Vec<_>>().as_slice() {
                [m] => read_move(me.pos, m)?,
                _ => {
                    return Err(CommandError::KeepUsage);
                }
            };
            let act = Act::Answer(Answer::Keep {
                moves: vec![WireMove::of(&mv)],
            });
            return Ok(command(&act, vec![]));
        }
        let play = play(me, rest, &mut used, true)?;
        let act = Act::Answer(Answer::Replay {
            card: play.card,
            moves: play.moves,
        });
        return Ok(command(&act, play.opens));
    }
    let (start, turn) = match split_start(text) {
        Some((s, t)) => (Some(start_card(me, s, &mut used)?), t),
        None => (None, text),
    };
    let play = play(me, turn, &mut used, false)?;
    let mut open_slots = start.as_ref().map(|(_, o)| o.clone()).unwrap_or_default();
    open_slots.extend(play.opens);
    let act = Act::Turn {
        start: start.map(|(s, _)| s),
        card: play.card,
        moves: play.moves,
        discard: play.discard,
    };
    let mut cmd = command(&act, open_slots);
    if let (Command::Act { commit_values, .. }, Some(sq)) = (&mut cmd, play.trap) {
        commit_values.push((trap_name(), me.traps, vec![sq.index()]));
    }
    Ok(cmd)
}

/// The physical deck's forms (`physical::notation`): a claim, a claimed answer, a
/// dispute, a settlement, a ruling. `None`: a form both decks share.
fn physical(
    me: &Seat<'_>,
    text: &str,
    used: &mut Vec<CardRef>,
) -> Result<Option<Command>, CommandError> {
    let (first, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let (head, tail) = rest
        .trim()
        .split_once(char::is_whitespace)
        .unwrap_or((rest.trim(), ""));
    match first {
        "dispute" => {
            let words = notation::read(me.pos, tail)?;
            if !words.edits.is_empty() || words.lasting > 0 {
                return Err(CommandError::DisputeChanges);
            }
            let act = Act::Dispute {
                act: notation::number(head, Numbered::Dispute)?,
                note: words.note,
            };
            return Ok(Some(command(&act, vec![])));
        }
        "settle" | "ruling" => {
            let dispute = notation::number(head, Numbered::Settle)?;
            let words = notation::read(me.pos, tail)?;
            let act = match (first, words.signature) {
                ("settle", None) => Act::Settle {
                    dispute,
                    edits: words.edits,
                    note: words.note,
                },
                ("ruling", Some(signature)) => Act::Ruling {
                    dispute,
                    edits: words.edits,
                    note: words.note,
                    signature,
                },
                ("ruling", None) => return Err(CommandError::RulingUnsigned),
                _ => return Err(CommandError::SignedNotRuling),
            };
            return Ok(Some(command(&act, vec![])));
        }
        "answer" => {
            let (r, words_text) = match head {
                "card" => {
                    let (n, t) = tail
                        .trim()
                        .split_once(char::is_whitespace)
                        .unwrap_or((tail.trim(), ""));
                    let (r, _) = card(me, n, used)?;
                    (Some(r), t)
                }
                "again" => (Some(CardRef::Again), tail),
                "cite" => (None, rest.trim()),
                _ => return Ok(None),
            };
            let w = notation::read(me.pos, words_text)?;
            let claim = claim_of(r, w)?;
            let opens = r.map(opens).unwrap_or_default();
            return Ok(Some(command(&Act::Answer(Answer::Claimed(claim)), opens)));
        }
        _ => {}
    }
    let (start, turn) = match split_start(text) {
        Some((s, t)) => (Some(start_card(me, s, used)?), t),
        None => (None, text),
    };
    let (first, rest) = turn.split_once(char::is_whitespace).unwrap_or((turn, ""));
    let (r, words_text) = match first {
        "card" => {
            let (n, t) = rest
                .trim()
                .split_once(char::is_whitespace)
                .unwrap_or((rest.trim(), ""));
            let (r, _) = card(me, n, used)?;
            (Some(r), t)
        }
        "cite" => (None, turn),
        "sprung" => (None, rest),
        _ => return Ok(None),
    };
    let w = notation::read(me.pos, words_text)?;
    let trap = w.trap;
    let mut claim = claim_of(r, w)?;
    let mut open_slots = start.as_ref().map(|(_, o)| o.clone()).unwrap_or_default();
    open_slots.extend(r.map(opens).unwrap_or_default());
    claim.start = start.map(|(s, _)| s);
    let mut cmd = command(&Act::Claim(claim), open_slots);
    if let (Command::Act { commit_values, .. }, Some(sq)) = (&mut cmd, trap) {
        commit_values.push((trap_name(), me.traps, vec![sq.index()]));
    }
    Ok(Some(cmd))
}

/// A start card and the turn after it (`take 40 with 34; e4`): only when the words
/// before the first `;` begin a start card, so that a `;` in a note stays in the note.
fn split_start(text: &str) -> Option<(&str, &str)> {
    let (start, turn) = text.split_once(';')?;
    let first = start.split_whitespace().next()?;
    matches!(first, "take" | "pick").then(|| (start.trim(), turn.trim()))
}

/// A claim from its card and words.
fn claim_of(card: Option<CardRef>, w: notation::Words) -> Result<Claim, CommandError> {
    if w.signature.is_some() {
        return Err(CommandError::SignedNotRuling);
    }
    Ok(Claim {
        start: None,
        card,
        cite: w.cite,
        edits: w.edits,
        lasting: w.lasting,
        note: w.note,
    })
}

/// A card in hand by number, not already used in this action.
fn card(
    me: &Seat<'_>,
    text: &str,
    used: &mut Vec<CardRef>,
) -> Result<(CardRef, Card), CommandError> {
    let n: u32 = text
        .parse()
        .map_err(|_| CommandError::NotACardNumber(text.to_owned()))?;
    let (r, c) = me
        .hand
        .iter()
        .find(|(r, c)| c.number() == n && !used.contains(r))
        .cloned()
        .ok_or(CommandError::NotInHand(n))?;
    used.push(r);
    Ok((r, c))
}

fn start_card(
    me: &Seat<'_>,
    text: &str,
    used: &mut Vec<CardRef>,
) -> Result<(StartCard, Vec<(Name, u32)>), CommandError> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let [verb, what, "with", n] = words.as_slice() else {
        return Err(CommandError::StartUsage(text.to_owned()));
    };
    let (r, _) = card(me, n, used)?;
    let x: u32 = what
        .parse()
        .map_err(|_| CommandError::NotANumber((*what).to_owned()))?;
    let start = match *verb {
        "take" => StartCard::Take { card: r, number: x },
        "pick" => StartCard::Pick { card: r, slot: x },
        other => return Err(CommandError::StartVerb(other.to_owned())),
    };
    Ok((start, opens(r)))
}

/// A play: a card with its parameters and moves, or a plain move.
struct Parsed {
    card: Option<CardUse>,
    moves: Vec<WireMove>,
    discard: Vec<u32>,
    opens: Vec<(Name, u32)>,
    trap: Option<Square>,
}

fn play(
    me: &Seat<'_>,
    text: &str,
    used: &mut Vec<CardRef>,
    answer: bool,
) -> Result<Parsed, CommandError> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let (r, card_def, rest) = match words.as_slice() {
        ["card", n, rest @ ..] => {
            let (r, c) = card(me, n, used)?;
            (Some(r), Some(c), rest)
        }
        ["again", rest @ ..] if answer => (Some(CardRef::Again), None, rest),
        [san] => {
            let mv = read_move(me.pos, san)?;
            return Ok(Parsed {
                card: None,
                moves: vec![WireMove::of(&mv)],
                discard: vec![],
                opens: vec![],
                trap: None,
            });
        }
        [] => return Err(CommandError::NoMove),
        _ => return Err(CommandError::PlayUsage(text.to_owned())),
    };
    let mut params = Params::none();
    let mut moves = vec![];
    let mut discard = vec![];
    let mut open_slots = r.map(opens).unwrap_or_default();
    let mut trap = None;
    let mut i = 0;
    while i < rest.len() {
        let word = rest[i];
        i += 1;
        let mut take_while = |f: &dyn Fn(&str) -> bool| {
            let start = i;
            while i < rest.len() && f(rest[i]) {
                i += 1;
            }
            rest[start..i].to_vec()
        };
        match word {
            "at" => {
                for sq in take_while(&|w| w.parse::<Square>().is_ok()) {
                    params
                        .squares
                        .push(sq.parse().map_err(|_| CommandError::BadSquare)?);
                }
            }
            "as" => {
                let k = take_while(&|w| w.len() == 1);
                let [k] = k.as_slice() else {
                    return Err(CommandError::KindUsage);
                };
                params.kind = Some(
                    k.chars()
                        .next()
                        .and_then(Kind::from_char)
                        .ok_or_else(|| WordsError::NotAPiece((*k).to_owned()))?,
                );
            }
            "trap" => {
                let sq = take_while(&|w| w.parse::<Square>().is_ok());
                let [sq] = sq.as_slice() else {
                    return Err(WordsError::TrapUsage.into());
                };
                trap = Some(sq.parse().map_err(|_| CommandError::BadSquare)?);
            }
            "discard" => {
                for n in take_while(&|w| w.parse::<u32>().is_ok()) {
                    let (d, _) = card(me, n, used)?;
                    match d {
                        CardRef::Slot(s) => {
                            discard.push(s);
                            open_slots.extend(opens(d));
                        }
                        _ => {
                            return Err(CommandError::DiscardTaken(n.to_owned()));
                        }
                    }
                }
            }
            "then" => {
                for m in take_while(&|w| !matches!(w, "at" | "as" | "trap" | "discard")) {
                    moves.push(WireMove::of(&read_move(me.pos, m)?));
                }
            }
            other => return Err(CommandError::UnknownWord(other.to_owned())),
        }
    }
    let sealing = matches!(
        card_def.as_ref().and_then(|c| c.effect().flow()),
        Some(FlowEffect::SealTrapSquare(_))
    );
    if sealing != trap.is_some() {
        return Err(if sealing {
            CommandError::TrapNeeded
        } else {
            CommandError::NotATrap
        });
    }
    Ok(Parsed {
        card: r.map(|r| CardUse::new(r, &params)),
        moves,
        discard,
        opens: open_slots,
        trap,
    })
}

/// A move as coordinates (`e2e4`, `e2-e4`, `e7e8q`, `e7-e8=Q`) or SAN on `pos`: the
/// squares of coordinates are taken as written (the rules judge them), SAN is resolved
/// among the legal moves.
fn read_move(pos: &Position, text: &str) -> Result<Move, MoveError> {
    let written = notation::move_text(text)?;
    if let (None, Some((from, to, promotion))) = (written.letter(), written.squares()) {
        return Ok(Move {
            from,
            to,
            promotion,
            kind: MoveKind::Normal,
        });
    }
    notation::san(pos, text)
}

/// Writes an act as a person would type it: the inverse of [`parse`]. `number` names
/// the card each reference holds; `trap` is the square a trap card seals. Moves are
/// written as coordinates, which read back on any board.
pub fn write(
    act: &Act,
    number: &dyn Fn(CardRef) -> Option<u32>,
    trap: Option<Square>,
) -> Option<String> {
    let card = |u: &CardUse| -> Option<String> {
        let mut w = match u.card {
            CardRef::Again => "again".to_owned(),
            r => format!("card {}", number(r)?),
        };
        if !u.squares.is_empty() {
            w.push_str(" at");
            for s in &u.squares {
                w.push_str(&format!(" {}", Square::from_index(*s)?));
            }
        }
        if let Some(k) = u.kind {
            w.push_str(&format!(" as {}", Kind::ALL.get(usize::from(k))?.upper()));
        }
        Some(w)
    };
    let moves = |m: &[WireMove]| -> Option<String> {
        m.iter()
            .map(|w| w.to_move().ok().map(|m| m.to_string()))
            .collect::<Option<Vec<_>>>()
            .map(|v| v.join(" "))
    };
    let play = |u: Option<&CardUse>, m: &[WireMove], discard: &[u32]| -> Option<String> {
        let Some(u) = u else {
            return moves(m);
        };
        let mut w = card(u)?;
        if let Some(sq) = trap {
            w.push_str(&format!(" trap {sq}"));
        }
        if !discard.is_empty() {
            w.push_str(" discard");
            for d in discard {
                w.push_str(&format!(" {}", number(CardRef::Slot(*d))?));
            }
        }
        if !m.is_empty() {
            w.push_str(&format!(" then {}", moves(m)?));
        }
        Some(w)
    };
    if let Some(w) = notation::write(act, number, trap) {
        return Some(w);
    }
    Some(match act {
        Act::Yield => "yield".into(),
        Act::Intercept { card: u } => format!("intercept {}", number(u.card)?),
        Act::InterceptSecond { card: u } => format!("intercept second {}", number(u.card)?),
        Act::Answer(Answer::Cancel { card: u }) => format!("answer cancel {}", number(u.card)?),
        Act::Answer(Answer::Replay { card: u, moves: m }) => {
            format!("answer {}", play(u.as_ref(), m, &[])?)
        }
        Act::Answer(Answer::Keep { moves: m }) => format!("answer keep {}", moves(m)?),
        Act::Turn {
            start,
            card: u,
            moves: m,
            discard,
        } => {
            let start = match start {
                None => String::new(),
                Some(StartCard::Take { card, number: n }) => {
                    format!("take {n} with {}; ", number(*card)?)
                }
                Some(StartCard::Pick { card, slot }) => {
                    format!("pick {slot} with {}; ", number(*card)?)
                }
            };
            format!("{start}{}", play(u.as_ref(), m, discard)?)
        }
        Act::Claim(_)
        | Act::Answer(Answer::Claimed(_))
        | Act::Dispute { .. }
        | Act::Settle { .. }
        | Act::Ruling { .. } => return None,
    })
}
