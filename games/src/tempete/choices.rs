//! Every act open to a Tempête seat, for a board that is clicked (see
//! `crate::table::Choice`): the same acts the random bot picks among (`bot.rs`), all of
//! them, each written in the typed notation (`command.rs`) that reads it back.
//!
//! A turn: every plain move; every card played with one's own move, with each legal
//! play of it (a trap card asks for the square it seals, a redraw for the cards it
//! discards); a start card (34's take, 57's pick), asking for the play that follows;
//! yielding when no move is left. After the opponent's turn, the interceptions one's
//! hand allows as well. When one's turn was intercepted: the answers the rules take.

use sealed_protocol::session::Session;

use crate::chess::Move;
use crate::table::{Ask, Choice, Named};

use super::act::{Act, Answer, CardRef, CardUse, StartCard, WireMove};
use super::board::Board;
use super::card::{Card, Effect, FlowEffect, Moment, kind_word};
use super::command::write;
use super::effects::{Params, Play};
use super::holding;
use super::rules::{Tempete, deck_name};
use super::state::{Pending, State, color};

/// What a card is, in words: `card 18 Twin Leap`.
fn card_words(c: &Card) -> String {
    format!("card {} {}", c.number(), c.name())
}

/// The moves of a play as a person reads them.
fn moves_words(moves: &[Move]) -> String {
    let m: Vec<String> = moves
        .iter()
        .map(|m| format!("{}-{}", m.from, m.to))
        .collect();
    m.join(" then ")
}

/// A choice for a play: clicked on its first move's squares, or a button if it moves
/// nothing (a card that only edits the board).
fn play_choice(p: &Play, words: String, text: String) -> Choice {
    match p.moves.first() {
        Some(m) => Choice::shift(m.from, m.to, words, text),
        None => Choice::button(words, text),
    }
}

/// What the pawns of these moves become, as questions: a promotion is asked after its
/// squares are clicked, as a board does, not spelt out in four look-alike choices.
fn promotions(moves: &[Move]) -> Vec<Named> {
    moves
        .iter()
        .filter_map(|m| {
            let k = m.promotion?;
            Some(Named::word(
                format!("what the pawn on {} becomes", m.to),
                kind_word(k),
            ))
        })
        .collect()
}

/// What a card's parameters name, as the questions a person is asked after choosing
/// the card and its move: each square or piece kind, with what it is for. Plays of one
/// card on the same squares differ only in these (Hoarfrost with g1-f3: which of the
/// enemy pieces it freezes), so a board asks them one at a time.
fn names(effect: Effect, params: &Params) -> Vec<Named> {
    let squares: &[&str] = match effect {
        Effect::Freeze { .. } => &["the enemy piece it freezes"],
        Effect::Augment { .. } => &["your piece that gains the move for good"],
        Effect::SacrificePawn => &["your pawn it removes"],
        Effect::ForbidSquare { .. } => &["the square no piece may end a move on"],
        Effect::SwapOwn => &["one of your two pieces that change places", "the other one"],
        Effect::SwapEnemy => &[
            "your piece that changes places",
            "the enemy piece beside it",
        ],
        Effect::EarlyPromote { .. } => &["the pawn that promotes"],
        Effect::Revive => &["the starting square it returns to"],
        _ => &[],
    };
    let kind = params.kind.map(|k| kind_word(k).to_owned());
    let mut out = vec![];
    // A piece that returns is chosen before its square; a pawn before what it becomes.
    if let (Effect::Revive, Some(k)) = (effect, &kind) {
        out.push(Named::word("which of your taken pieces returns", k.clone()));
    }
    for (i, sq) in params.squares.iter().enumerate() {
        let what = squares.get(i).copied().unwrap_or("a square the card names");
        out.push(Named::square(what, sq));
    }
    if let (Effect::EarlyPromote { .. }, Some(k)) = (effect, &kind) {
        out.push(Named::word("what it promotes to", k.clone()));
    }
    out
}

/// `text` with ` <word> {}` put right after the card's part (before ` discard` or
/// ` then `), where the typed notation expects a trap square or the discards.
fn with_blank(text: &str, word: &str) -> String {
    let at = [" discard", " then "]
        .iter()
        .filter_map(|w| text.find(w))
        .min()
        .unwrap_or(text.len());
    format!("{} {word} {{}}{}", &text[..at], &text[at..])
}

pub(super) fn choices(s: &Session<Tempete>, state: &State) -> Vec<Choice> {
    let hand = holding::hand(s);
    let number = |r: CardRef| match r {
        CardRef::Taken(n) => Some(n),
        r => hand.iter().find(|(x, _)| *x == r).map(|(_, c)| c.number()),
    };
    let written = |act: &Act| write(act, &number, None);
    let mut out = vec![];
    match &state.pending {
        Pending::Answer { turn, by, second } => {
            answers(s, state, &hand, turn, *by, *second, &written, &mut out);
            return out;
        }
        Pending::Turn(Some(turn)) => {
            let double = s.engine().rules().double_move_card(turn).is_some();
            for (r, c) in &hand {
                let card = CardUse::new(*r, &Params::none());
                let replace = c.effect() == Effect::ReplaceMove;
                if replace || (turn.card.is_some() && c.effect() == Effect::Cancel) {
                    let act = Act::Intercept { card: card.clone() };
                    if let Some(t) = written(&act) {
                        out.push(Choice::button(
                            format!("intercept with {}", card_words(c)),
                            t,
                        ));
                    }
                }
                if replace && double {
                    let act = Act::InterceptSecond { card };
                    if let Some(t) = written(&act) {
                        let words = format!("intercept the second move with {}", card_words(c));
                        out.push(Choice::button(words, t));
                    }
                }
            }
        }
        Pending::Turn(None) => {}
    }
    turn_choices(s, state, &hand, &written, &mut out);
    // Two copies of a card (one's own and one taken) give the same text: one choice.
    let mut seen = std::collections::BTreeSet::new();
    out.retain(|c| seen.insert((c.text.clone(), c.ask.is_some())));
    out
}

/// The plays of a turn, the start cards and yielding.
fn turn_choices(
    s: &Session<Tempete>,
    state: &State,
    hand: &[(CardRef, Card)],
    written: &dyn Fn(&Act) -> Option<String>,
    out: &mut Vec<Choice>,
) {
    let side = color(s.seat());
    // The plays are judged on the board after the traps this turn springs.
    let springs = holding::traps_to_open(s, &state.board);
    let board: Board =
        holding::sprung(s, &state.board, &springs).unwrap_or_else(|| state.board.clone());
    let turn = |card: Option<CardUse>, moves: &[Move]| Act::Turn {
        start: None,
        card,
        moves: moves.iter().map(WireMove::of).collect(),
        discard: vec![],
    };
    let plain = board.legal_plays(None);
    for p in &plain {
        if let Some(t) = written(&turn(None, &p.moves)) {
            out.push(play_choice(p, moves_words(&p.moves), t).naming(promotions(&p.moves)));
        }
    }
    if plain.is_empty() {
        out.push(Choice::button("yield: no move is left", "yield"));
    }
    for (r, c) in hand {
        let ask = match c.effect().flow() {
            // Playable where a card can be shown without being played (version 2).
            Some(FlowEffect::ShowHand) if !s.engine().rules().version_2 => continue,
            Some(FlowEffect::SealTrapSquare(_)) => Some((
                "trap",
                Ask::Square {
                    why: "the square your trap seals".into(),
                },
            )),
            // A redraw discards other cards of one's own deck: enough must be in hand.
            Some(FlowEffect::Redraw(n))
                if hand
                    .iter()
                    .filter(|(x, _)| x != r && matches!(x, CardRef::Slot(_)))
                    .count()
                    < usize::from(n) =>
            {
                continue;
            }
            Some(FlowEffect::Redraw(n)) => Some((
                "discard",
                Ask::Cards {
                    count: n,
                    why: "the cards you discard and redraw".into(),
                },
            )),
            _ => None,
        };
        for p in board.legal_plays(Some(c)) {
            let act = turn(Some(CardUse::new(*r, &p.params)), &p.moves);
            let Some(t) = written(&act) else { continue };
            let words = match p.moves.is_empty() {
                true => card_words(c),
                false => format!("{}: {}", card_words(c), moves_words(&p.moves)),
            };
            let mut named = names(c.effect(), &p.params);
            named.extend(promotions(&p.moves));
            out.push(
                match &ask {
                    Some((word, ask)) => {
                        play_choice(&p, words, with_blank(&t, word)).asking(ask.clone())
                    }
                    None => play_choice(&p, words, t),
                }
                .naming(named)
                .playing(c.number()),
            );
        }
        // A start card comes before the play, which is asked for next.
        let st = state.hand(side);
        let start = match c.effect() {
            Effect::TakePlayed if board.check_timing(side, c, Moment::TurnStart).is_ok() => st
                .takeable
                .iter()
                .map(|n| StartCard::Take {
                    card: *r,
                    number: *n,
                })
                .collect(),
            Effect::PickUnplayed if board.check_timing(side, c, Moment::AfterLoss).is_ok() => {
                let e = s.engine();
                let known: Vec<u32> = e
                    .dealt(s.seat(), &deck_name())
                    .into_iter()
                    .chain(e.granted(s.seat(), &deck_name()))
                    .collect();
                (0..e.rules().n())
                    .filter(|x| !known.contains(x))
                    .map(|slot| StartCard::Pick { card: *r, slot })
                    .collect()
            }
            _ => vec![],
        };
        for sc in start {
            let (act_words, act) = match sc {
                StartCard::Take { number, .. } => {
                    (format!("take card {number} with {}", card_words(c)), sc)
                }
                StartCard::Pick { slot, .. } => {
                    (format!("pick deck slot {slot} with {}", card_words(c)), sc)
                }
            };
            let act = Act::Turn {
                start: Some(act),
                card: None,
                moves: vec![],
                discard: vec![],
            };
            // The play is written after `; `: the start part alone, then the blank.
            if let Some(t) = written(&act) {
                let start = t.split(';').next().unwrap_or_default();
                out.push(Choice::button(act_words, format!("{start}; {{}}")).asking(Ask::Play));
            }
        }
    }
}

/// The answers to one's intercepted turn that the rules take.
#[allow(clippy::too_many_arguments)]
fn answers(
    s: &Session<Tempete>,
    state: &State,
    hand: &[(CardRef, Card)],
    turn: &super::state::TurnMade,
    by: FlowEffect,
    second: bool,
    written: &dyn Fn(&Act) -> Option<String>,
    out: &mut Vec<Choice>,
) {
    let rules = s.engine().rules();
    for (r, c) in hand.iter().filter(|(_, c)| c.effect() == Effect::Cancel) {
        let act = Act::Answer(Answer::Cancel {
            card: CardUse::new(*r, &Params::none()),
        });
        if let Some(t) = written(&act) {
            let words = format!("cancel the interceptor's card with {}", card_words(c));
            out.push(Choice::button(words, t));
        }
    }
    let again = || Some(CardUse::new(CardRef::Again, &Params::none()));
    // The second move hit: the first stands, and another second move is due (any
    // other answer only when there is none).
    let others = if second {
        rules.other_second_moves(turn)
    } else {
        vec![]
    };
    if let (Some(first), false) = (turn.moves.first(), others.is_empty()) {
        for other in &others {
            let act = Act::Answer(Answer::Replay {
                card: again(),
                moves: vec![WireMove::of(first), WireMove::of(other)],
            });
            if let Some(t) = written(&act) {
                let words = format!("another second move: {}", moves_words(&[*first, *other]));
                out.push(
                    Choice::shift(other.from, other.to, words, t).naming(promotions(&[*other])),
                );
            }
        }
        return;
    }
    let made: Vec<WireMove> = turn.moves.iter().map(WireMove::of).collect();
    let plays = holding::answer_plays(&state.board, turn, by);
    if plays.is_empty() {
        out.push(Choice::button("yield: no other move is left", "yield"));
        return;
    }
    let double = rules
        .double_move_card(turn)
        .filter(|_| by == FlowEffect::ReplaceMove);
    for p in &plays {
        let moves: Vec<WireMove> = p.moves.iter().map(WireMove::of).collect();
        let replay = Act::Answer(Answer::Replay {
            card: None,
            moves: moves.clone(),
        });
        if let Some(t) = written(&replay) {
            let words = format!("answer {}", moves_words(&p.moves));
            out.push(play_choice(p, words, t).naming(promotions(&p.moves)));
        }
        if double.is_some()
            && let Some(t) = written(&Act::Answer(Answer::Keep { moves }))
        {
            let words = format!(
                "answer {}, the card back to your hand",
                moves_words(&p.moves)
            );
            out.push(play_choice(p, words, t).naming(promotions(&p.moves)));
        }
    }
    if let Some(card) = double {
        for p in state.board.legal_plays(Some(card)) {
            if p.moves.first().map(WireMove::of).as_ref() == made.first() {
                continue;
            }
            let act = Act::Answer(Answer::Replay {
                card: again(),
                moves: p.moves.iter().map(WireMove::of).collect(),
            });
            if let Some(t) = written(&act) {
                let words = format!(
                    "answer with {} again: {}",
                    card_words(card),
                    moves_words(&p.moves)
                );
                let mut named = names(card.effect(), &p.params);
                named.extend(promotions(&p.moves));
                out.push(play_choice(&p, words, t).naming(named));
            }
        }
    }
}
