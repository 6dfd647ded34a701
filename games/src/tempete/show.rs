//! The `show-hand` effect (card 73 of the open deck), protocol version 2: "the opponent
//! shows you his hand". The card's play makes the opponent owe his hand; his next act,
//! whatever it is, carries the protocol's `Show` items of every card he keeps
//! (spec/PROTOCOL.md §17.16, spec/GAMES.md §4.6.2 step 5).
//!
//! The protocol checks each shown card against the slot's commitment and the hand the
//! envelope's view holds; the rule here checks the whole hand is shown: exactly the
//! slots held before the envelope, less those it opens (a card played with the act,
//! discards), each once. A hidden card makes the act illegal, and so does a show that
//! nobody owed.

use sealed_protocol::ids::Seat;
use sealed_protocol::rules::{ActCtx, Violation};

use super::rules::deck_name;
use super::state::{State, seat};

/// Before `side`'s act: if it owes its hand, the envelope shows it whole to the opponent
/// and the debt is paid; otherwise it shows nothing.
pub(super) fn shows_owed(
    s: &mut State,
    side: crate::chess::Color,
    ctx: &ActCtx<'_>,
) -> Result<(), Violation> {
    if s.owes_show == Some(side) {
        check_whole_hand(ctx, seat(!side))?;
        s.owes_show = None;
        return Ok(());
    }
    none_shown(ctx)
}

/// Checks the envelope shows `opponent` (or every seat) the whole hand it keeps.
fn check_whole_hand(ctx: &ActCtx<'_>, opponent: Seat) -> Result<(), Violation> {
    let deck = deck_name();
    let opens = |slot: u32| {
        ctx.opened_slots
            .iter()
            .any(|o| o.deck == deck && o.slot == slot)
    };
    let kept: Vec<u32> = ctx
        .held_slots
        .iter()
        .filter(|h| h.deck == deck && !opens(h.slot))
        .map(|h| h.slot)
        .collect();
    let mut shown: Vec<u32> = vec![];
    for sh in ctx.shown_slots {
        if sh.deck != deck {
            return Err(format!("tempete has no deck {}", sh.deck).into());
        }
        if let Some(to) = sh.to
            && to != opponent
        {
            return Err(format!("slot {} is shown to {to}, not to the opponent", sh.slot).into());
        }
        if shown.contains(&sh.slot) {
            return Err(format!("slot {} is shown twice", sh.slot).into());
        }
        if opens(sh.slot) {
            return Err(format!(
                "slot {} is shown and played: show only the cards kept",
                sh.slot
            )
            .into());
        }
        if !kept.contains(&sh.slot) {
            return Err(format!("slot {} is not in the hand", sh.slot).into());
        }
        shown.push(sh.slot);
    }
    if let Some(hidden) = kept.iter().find(|s| !shown.contains(s)) {
        return Err(format!(
            "a show-hand card asked for the whole hand: slot {hidden} is kept and not shown"
        )
        .into());
    }
    Ok(())
}

/// Refuses shown slots nobody owed.
fn none_shown(ctx: &ActCtx<'_>) -> Result<(), Violation> {
    match ctx.shown_slots.first() {
        Some(sh) => Err(format!(
            "slot {} is shown: a hand is shown only when a show-hand card asked for it",
            sh.slot
        )
        .into()),
        None => Ok(()),
    }
}
