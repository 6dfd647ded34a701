//! Showing a deck slot without spending it (version 2, the `Show` item,
//! spec/PROTOCOL.md §17.16), and the slots a seat holds, which a game reads to check a
//! "show your hand".
//!
//! A show passes the checks of an `Open` of the slot — the commitment binds it to one
//! card, the slot must be in the sender's hand in its view, the card on the list and
//! from no other slot — but the slot stays held: it may be played later, and that
//! opening is judged as any other (the card is already recorded, so a later opening to
//! another card cannot exist).

use super::judge::{Broken, Scratch, broken};
use super::{Engine, store::Clock};
use crate::body::{Purpose, Show};
use crate::commit::{CommitKey, commitment};
use crate::fault::FaultKind;
use crate::ids::{EnvRef, Seat};
use crate::rules::{HeldSlot, Rules, ShownSlot};

impl<R: Rules> Engine<R> {
    pub(super) fn judge_show(
        &mut self,
        sh: &Show,
        at: EnvRef,
        seat: Seat,
        clock: &Clock,
        scratch: &mut Scratch,
    ) -> Result<(), Broken> {
        let Purpose::Deck(name) = &sh.purpose else {
            return Err(broken(
                FaultKind::OutOfPhase,
                "only a deck slot is shown without being spent",
            ));
        };
        if let Some(to) = sh.to
            && (to == seat || self.terms.key(to).is_none())
        {
            return Err(broken(
                FaultKind::OutOfPhase,
                "a slot is shown to another seat of the game, or to all",
            ));
        }
        let key = CommitKey {
            seat,
            purpose: sh.purpose.clone(),
            index: sh.index,
        };
        let Some((hash, _)) = self.ledger.commits().get(&key) else {
            return Err(broken(
                FaultKind::OpeningWithoutCommitment,
                format!("{name} slot {} was never committed", sh.index),
            ));
        };
        if commitment(self.terms.game(), &key, &sh.nonce, &sh.value) != *hash {
            return Err(broken(
                FaultKind::OpeningMismatch,
                format!("{name} slot {} does not open its commitment", sh.index),
            ));
        }
        if self.over_in(clock) {
            // After the game the reveals are openings; a show decides nothing.
            self.note(
                at,
                "show after the game had ended in the sender's view ignored",
            );
            return Ok(());
        }
        if self.ledger.opened().contains_key(&key) {
            return Err(broken(
                FaultKind::SlotUsedTwice,
                format!("{name} slot {} shown after it was used", sh.index),
            ));
        }
        let (d, card) = self.check_slot(name, sh.index, &sh.value, seat, clock, false)?;
        if self.ledger.decks[d].shown.contains_key(&sh.index) {
            // Bound to the same card: a second show records nothing new, but the acts
            // later in the envelope see it shown (a "show your hand" shows it again).
            self.note(at, format!("{name} slot {} shown again", sh.index));
        } else {
            let deck = &mut self.ledger.decks[d];
            deck.shown.insert(sh.index, (card, at, sh.to));
            deck.card_slot.insert(card, sh.index);
            deck.slot_card.insert(sh.index, card);
        }
        scratch.shown_slots.push(ShownSlot {
            deck: name.clone(),
            slot: sh.index,
            card,
            to: sh.to,
        });
        Ok(())
    }

    /// The slots of `seat`'s decks dealt or granted in `clock`'s view and not used
    /// before the envelope `at` (a slot `at` itself opened counts as held).
    pub(super) fn held_slots(&self, at: EnvRef, seat: Seat, clock: &Clock) -> Vec<HeldSlot> {
        let in_view = |r: Option<&EnvRef>| r.is_some_and(|r| self.store.seen(clock, *r));
        let mut held = vec![];
        for deck in self.ledger.decks.iter().filter(|d| d.spec.owner == seat) {
            for slot in 0..deck.slots() {
                let dealt = in_view(deck.dealt.get(&slot)) || in_view(deck.granted.get(&slot));
                let used_before = deck.used.get(&slot).is_some_and(|(_, u)| *u != at);
                if dealt && !used_before {
                    held.push(HeldSlot {
                        deck: deck.spec.name.clone(),
                        slot,
                    });
                }
            }
        }
        held.sort();
        held
    }
}
