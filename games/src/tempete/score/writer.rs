//! Writing a score: the tags, every act in the grammar of the module docs, move
//! numbers, the comments a reader wants, and the result; an act the score cannot take
//! ends it with a comment saying why ([`Refused`]).

use core::fmt::Write as _;

use sealed_protocol::hash::Hash;
use sealed_protocol::ids::Seat;
use sealed_protocol::outcome::Outcome;
use sealed_protocol::rules::{Applied, OpenedSlot, Rules, Violation};

use crate::chess::Color;

use crate::tempete::act::{Act, Answer, CardRef, CardUse, StartCard, WireMove};
use crate::tempete::board::Board;
use crate::tempete::physical::notation;
use crate::tempete::rules::{Tempete, deck_name, trap_name};
use crate::tempete::state::{Pending, State, color, seat};

use super::ScoredAct;
use super::replay::{judge, result_token};
use super::resolve::act_board;
use super::write_moves::{Naming, Unwritable, card_moves_text, san_text, sq_text};

/// Why the score stops at an act: written as a comment, `{act N is refused: …}`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum Refused {
    /// The game was over before it.
    #[error("the game is over")]
    Over,
    /// Another seat was to act.
    #[error("it is seat {}'s act, not seat {}'s", due.0, actor.0)]
    NotTheirs {
        /// The seat to act.
        due: Seat,
        /// The seat that acted.
        actor: Seat,
    },
    /// The act cannot be written.
    #[error(transparent)]
    Unwritable(Unwritable),
    /// The rules refuse it.
    #[error("{}", .0.0)]
    Rules(Violation),
}

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
    if rules.physical.is_some() {
        t.push(("Deck".to_owned(), "physical".to_owned()));
    }
    t
}

/// One act in score text (without its move number): a bare SAN move for a turn with no
/// card, else a `<…>` group.
pub(super) fn act_text(rules: &Tempete, s: &State, sa: &ScoredAct) -> Result<String, Unwritable> {
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
    let again = match &s.pending {
        Pending::Answer { turn, .. } => turn.card,
        Pending::Turn(_) => None,
    };
    let physical_number = |r: CardRef| match r {
        CardRef::Slot(sl) => naming.number(sl).ok(),
        CardRef::Taken(n) => Some(n),
        CardRef::Again => again,
    };
    if let Some(w) = notation::write(&sa.act, &physical_number, None) {
        // A note is free text: what the score's reader takes for brackets, comments or
        // side lines is written as square brackets and commas (a physical act's score is
        // for reading, spec/GAMES.md §4.20.6; the transcript keeps the note whole).
        words.push(
            w.replace(['<', '{', '('], "[")
                .replace(['>', '}', ')'], "]")
                .replace(';', ","),
        );
        return Ok(format!("<{}>", words.join(" ")));
    }
    match &sa.act {
        Act::Yield => words.push("yield".into()),
        Act::Intercept { card } => words.push(format!("intercept {}", naming.card(card)?)),
        Act::InterceptSecond { card } => {
            words.push(format!("intercept second {}", naming.card(card)?));
        }
        Act::Answer(Answer::Keep { moves }) => {
            // Only one move reads back; anything else the rules refuse anyway.
            let [m] = moves.as_slice() else {
                return Err(Unwritable::KeepMoves(moves.len()));
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
        Act::Claim(_)
        | Act::Answer(Answer::Claimed(_))
        | Act::Dispute { .. }
        | Act::Settle { .. }
        | Act::Ruling { .. } => unreachable!("written by the physical notation above"),
    }
    Ok(format!("<{}>", words.join(" ")))
}

/// The check mark after an act: `#` if the side to act is now mated, `+` if checked.
pub(super) fn check_mark(s: &State) -> &'static str {
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
pub(super) fn with_mark(text: String, mark: &str, act: &Act) -> String {
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

pub(super) fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// Builds the synthetic envelope of a scored act and judges it.
pub(super) fn judge_scored(
    rules: &Tempete,
    coin: &Hash,
    s: &State,
    sa: &ScoredAct,
    seq: u64,
) -> Result<Applied<State>, Violation> {
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
        rules, coin, s, sa.seat, &sa.act, &opened, &committed, &sa.sprung, seq,
    )
}

/// A writer of lines no longer than 79 characters where it can.
pub(super) struct Lines {
    pub(super) out: String,
    pub(super) width: usize,
}

impl Lines {
    pub(super) fn push(&mut self, item: &str) {
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
    score_text_ending(rules, &Hash([0; 32]), acts, None)
}

/// [`score_text`], for a game that ended off the board (a resignation, a draw agreed,
/// an adjudication): when the acts leave the game on, `ending`'s reason is written as a
/// comment and its result as the result token. `coin` is the game's (spec/PROTOCOL.md
/// §4.3): an arbiter's ruling is signed over it, so a game of the physical deck is
/// written with its own coin or its rulings read as unsigned. [`score_text`] writes with
/// a zero coin, for games without an arbiter.
pub fn score_text_ending(
    rules: &Tempete,
    coin: &Hash,
    acts: &[ScoredAct],
    ending: Option<&Outcome>,
) -> String {
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
            Err(Refused::Over)
        } else if sa.seat != who {
            Err(Refused::NotTheirs {
                due: who,
                actor: sa.seat,
            })
        } else {
            act_text(rules, &s, sa).map_err(Refused::Unwritable)
        };
        let applied = written.and_then(|t| {
            judge_scored(rules, coin, &s, sa, i as u64)
                .map(|a| (t, a))
                .map_err(Refused::Rules)
        });
        let (text, applied) = match applied {
            Ok(x) => x,
            Err(e) => {
                lines.push(&format!(
                    "{{act {} is refused: {}}}",
                    i + 1,
                    e.to_string().replace('}', ")")
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
/// to the first act refused (for the PGN writer; `coin` as for [`score_text_ending`]).
pub(crate) fn states(
    rules: &Tempete,
    coin: &Hash,
    acts: &[ScoredAct],
) -> Vec<(State, Applied<State>)> {
    let mut s = rules.start(&Hash([0; 32]));
    let mut out = vec![];
    for (i, sa) in acts.iter().enumerate() {
        if s.end.is_some() || sa.seat != seat(s.to_act) {
            break;
        }
        match judge_scored(rules, coin, &s, sa, i as u64) {
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

/// The board each act's moves are read on, up to the first act the rules refuse: for a
/// reader of the PGN, whose SAN is written on these boards (a card may have changed the
/// board in a way no chess viewer sees); `coin` as for [`score_text_ending`].
pub fn boards(rules: &Tempete, coin: &Hash, acts: &[ScoredAct]) -> Vec<Board> {
    states(rules, coin, acts)
        .iter()
        .zip(acts)
        .map(|((s, _), sa)| board_for(s, sa))
        .collect()
}

/// One act in score text on the state before it (for the PGN writer's comments).
pub(crate) fn act_words(rules: &Tempete, s: &State, sa: &ScoredAct) -> String {
    act_text(rules, s, sa).unwrap_or_else(|e| format!("<unwritable: {e}>"))
}

/// The last of `acts` and who made it, in score text on the state before it (for
/// `show`'s "last act" line), replayed on the game's `coin` as the score is; a
/// ruling's signature (128 hex digits, for the verifier) left out.
pub(crate) fn last_act(rules: &Tempete, coin: &Hash, acts: &[ScoredAct]) -> Option<(Seat, String)> {
    let last = acts.last()?;
    let states = states(rules, coin, acts);
    let (before, _) = states.get(acts.len() - 1)?;
    let text = act_words(rules, before, last);
    let words: Vec<&str> = text.split(' ').collect();
    let signature = |w: &&str| w.len() == 128 && w.bytes().all(|b| b.is_ascii_hexdigit());
    let mut said = vec![];
    let mut i = 0;
    while i < words.len() {
        if words[i] == "sig" && words.get(i + 1).is_some_and(signature) {
            i += 2;
        } else {
            said.push(words[i]);
            i += 1;
        }
    }
    Some((last.seat, said.join(" ")))
}

/// The board an act's moves are read on (for the PGN writer).
pub(crate) fn board_for(s: &State, sa: &ScoredAct) -> Board {
    act_board(s, s.to_act, &sa.sprung)
}
