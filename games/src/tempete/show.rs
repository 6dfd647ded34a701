//! The `show-hand` effect (card 73 of the open deck), protocol version 2: the player
//! shows the opponent every card he keeps, with the protocol's `Show` items in the
//! envelope that plays the card (spec/PROTOCOL.md §17.16, spec/GAMES.md §4.6.2 step 5).
//!
//! The protocol checks each shown card against the slot's commitment and the hand the
//! envelope's view holds; the rule here checks the whole hand is shown: exactly the
//! slots held before the envelope, less those it opens (the card itself, discards),
//! each once. A hidden card makes the play illegal.

use sealed_protocol::ids::Seat;
use sealed_protocol::rules::{ActCtx, Violation};

use super::rules::deck_name;

/// Checks the envelope shows `opponent` (or every seat) the whole hand it keeps.
pub(super) fn check_whole_hand(ctx: &ActCtx<'_>, opponent: Seat) -> Result<(), Violation> {
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
            return Err(format!("slot {} is shown and played: show only the cards kept", sh.slot).into());
        }
        if !kept.contains(&sh.slot) {
            return Err(format!("slot {} is not in the hand", sh.slot).into());
        }
        shown.push(sh.slot);
    }
    if let Some(hidden) = kept.iter().find(|s| !shown.contains(s)) {
        return Err(format!(
            "show-hand shows the whole hand: slot {hidden} is kept and not shown"
        )
        .into());
    }
    Ok(())
}

/// Refuses shown slots outside a show-hand play.
pub(super) fn none_shown(ctx: &ActCtx<'_>) -> Result<(), Violation> {
    match ctx.shown_slots.first() {
        Some(sh) => Err(format!("slot {} is shown: only a show-hand card shows cards", sh.slot).into()),
        None => Ok(()),
    }
}
