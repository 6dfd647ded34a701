//! What one seat holds and may open, read from its session: its hand (own slots and
//! cards taken), the slots an act opens, its sealed traps that an enemy piece landed on
//! and the board once they spring, and the plays that may answer an intercepted turn.
//! The face (typed words, hints, choices) and the bot both read the game through these.
//! A slot the hand does not hold: [`NotInHand`].

use sealed_protocol::body::Purpose;
use sealed_protocol::commit::CommitKey;
use sealed_protocol::ids::{Name, Seat};
use sealed_protocol::rules::{HeldSlot, ShownSlot};
use sealed_protocol::session::{Command, Session};

use crate::chess::Square;

use super::act::{Act, CardRef, WireMove};
use super::board::{Board, Trap};
use super::card::{Card, FlowEffect};
use super::effects::Play;
use super::rules::{Tempete, deck_name, trap_name};
use super::state::{TurnMade, color, seat};

fn card_of(rules: &Tempete, n: u32) -> Option<&Card> {
    rules.card(n)
}

/// This seat's hand: where each card comes from, and the card.
pub fn hand(s: &Session<Tempete>) -> Vec<(CardRef, Card)> {
    let rules = s.engine().rules();
    let mut out: Vec<(CardRef, Card)> = s
        .hand(&deck_name())
        .into_iter()
        .filter_map(|(slot, n)| Some((CardRef::Slot(slot), card_of(rules, n)?.clone())))
        .collect();
    if let Some(st) = s.engine().state() {
        for n in &st.hand(color(s.seat())).taken {
            if let Some(c) = card_of(rules, *n) {
                out.push((CardRef::Taken(*n), c.clone()));
            }
        }
    }
    out
}

/// The deck slots an envelope must open to play the card `r`.
pub fn opens(r: CardRef) -> Vec<(Name, u32)> {
    match r {
        CardRef::Slot(s) => vec![(deck_name(), s)],
        _ => vec![],
    }
}

/// The session command for an act that opens these slots.
pub fn command(act: &Act, open_slots: Vec<(Name, u32)>) -> Command {
    Command::Act {
        show_slots: vec![],
        act: sealed_protocol::wire::encode(act),
        open_slots,
        commit_values: vec![],
        open_values: vec![],
        open_draw: None,
    }
}

/// Fills in the shows this seat owes (a `show-hand` card was played against it, version
/// 2): every slot of the hand the envelope does not open, shown to the opponent, with
/// whatever act it makes next. A seat that owes nothing is left as it is.
pub fn add_shows(s: &Session<Tempete>, cmd: &mut Command) {
    let Command::Act {
        act,
        show_slots,
        open_slots,
        ..
    } = cmd
    else {
        return;
    };
    let me = color(s.seat());
    let owed = s
        .engine()
        .state()
        .is_some_and(|st| st.owes_show == Some(me));
    if !owed || act.is_empty() {
        return;
    }
    let to = Some(seat(!me));
    *show_slots = s
        .hand(&deck_name())
        .into_iter()
        .filter(|(slot, _)| !open_slots.iter().any(|(_, o)| o == slot))
        .map(|(slot, _)| (deck_name(), slot, to))
        .collect();
}

/// A slot a command shows or opens that this seat's hand does not hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("slot {0} is not in your hand")]
pub struct NotInHand(pub u32);

/// What the rules see of a command's shows and of the hand before it, read from this
/// seat's hand (slot, card): to judge the command as its envelope would be judged.
pub fn shown_and_held(
    hand: &[(u32, u32)],
    show_slots: &[(Name, u32, Option<Seat>)],
) -> Result<(Vec<ShownSlot>, Vec<HeldSlot>), NotInHand> {
    let shown = show_slots
        .iter()
        .map(|(deck, slot, to)| {
            let card = hand
                .iter()
                .find(|(x, _)| x == slot)
                .map(|(_, c)| *c)
                .ok_or(NotInHand(*slot))?;
            Ok(ShownSlot {
                deck: deck.clone(),
                slot: *slot,
                card,
                to: *to,
            })
        })
        .collect::<Result<_, NotInHand>>()?;
    let mut held: Vec<HeldSlot> = hand
        .iter()
        .map(|(slot, _)| HeldSlot {
            deck: deck_name(),
            slot: *slot,
        })
        .collect();
    held.sort();
    Ok((shown, held))
}

/// The opponent's cards this seat was shown (`show-hand`, version 2) that he still
/// keeps: slot and card, by slot.
pub fn shown_to_me(s: &Session<Tempete>) -> Vec<(u32, Card)> {
    let e = s.engine();
    let other = seat(!color(s.seat()));
    let used = e.used(other, &deck_name());
    e.shown_slots(other, &deck_name())
        .into_iter()
        .filter(|(slot, (_, to))| !used.contains_key(slot) && to.is_none_or(|t| t == s.seat()))
        .filter_map(|(slot, (n, _))| Some((slot, card_of(e.rules(), n)?.clone())))
        .collect()
}

/// This seat's traps still sealed: each one's index among its trap values, and the trap
/// (known to this seat alone until it opens it).
pub fn sealed_traps(s: &Session<Tempete>) -> Vec<(u32, Trap)> {
    let secrets = s.secrets();
    let Some(st) = s.engine().state() else {
        return vec![];
    };
    let me = s.seat();
    let decks = s.engine().decks();
    st.hand(color(me))
        .traps
        .iter()
        .enumerate()
        .filter_map(|(i, effect)| {
            let i = i as u32;
            if s.engine()
                .opened_value(me, Purpose::Value(trap_name()), i)
                .is_some()
            {
                return None;
            }
            let key = CommitKey {
                seat: me,
                purpose: Purpose::Value(trap_name()),
                index: i,
            };
            let square = secrets.value(&key, &decks)?;
            let square = Square::from_index(*square.first()?)?;
            Some((
                i,
                Trap {
                    owner: color(me),
                    square,
                    effect: *effect,
                },
            ))
        })
        .collect()
}

/// This seat's sealed trap squares that spring on the ply just made, each on the board
/// the ones before it left (the rules spring them in turn, spec/GAMES.md §4.10). Two
/// traps may seal one square: after a `remove` the second finds no piece, and opening it
/// would be refused; it stays sealed for the next piece. Found by the physical-deck
/// demo, whose bot opened both and was refused for ever.
pub fn traps_to_open(s: &Session<Tempete>, board: &Board) -> Vec<(Name, u32)> {
    let mut board = board.clone();
    sealed_traps(s)
        .into_iter()
        .filter(|(_, trap)| match board.spring_trap(*trap) {
            Ok(after) => {
                board = after;
                true
            }
            Err(_) => false,
        })
        .map(|(i, _)| (trap_name(), i))
        .collect()
}

/// The board once the traps `springs` names have sprung.
pub fn sprung(s: &Session<Tempete>, board: &Board, springs: &[(Name, u32)]) -> Option<Board> {
    let traps = sealed_traps(s);
    let physical = s.engine().rules().physical.is_some();
    let mut board = board.clone();
    for (_, i) in springs {
        let (_, trap) = traps.iter().find(|(j, _)| j == i)?;
        // In the physical deck a trap's effect is stated in the act, not carried out.
        if physical {
            board.trap_lands(trap).ok()?;
        } else {
            board = board.spring_trap(*trap).ok()?;
        }
    }
    Some(board)
}

/// The plain plays that may answer an intercepted turn: any but the move intercepted,
/// unless the interceptor cancelled the card (then the same move may be made again).
pub(super) fn answer_plays(board: &Board, turn: &TurnMade, by: FlowEffect) -> Vec<Play> {
    // Compared on the wire: the board's moves carry their kind (a double step,
    // castling), the turn's as read from the wire do not.
    let made: Vec<WireMove> = turn.moves.iter().map(WireMove::of).collect();
    board
        .legal_plays(None)
        .into_iter()
        .filter(|p| {
            by == FlowEffect::CancelCard
                || p.moves.iter().map(WireMove::of).collect::<Vec<_>>() != made
        })
        .collect()
}
