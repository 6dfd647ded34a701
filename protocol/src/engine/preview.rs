//! What a seat's own act would make due, asked before the act is signed, so that the
//! deals it owes because of its own act ride in the act's envelope (spec/PROTOCOL.md
//! §11.1) instead of one of their own.
//!
//! The rules' `apply` is pure: the preview builds the context the judge would build for
//! the act from the items before it in the body, with this seat's whole view (its
//! envelope acknowledges everything it processed), and reads the owes off the answer.
//! Nothing is changed. A body the preview cannot read as the judge would (a draw opened
//! in it) gives `None`: the caller then sends the act alone, as before; and the judge
//! still judges whatever is sent, so a wrong preview can only cost a refusal, never a
//! fault.

use super::Engine;
use crate::body::{Item, Purpose};
use crate::commit::card_from_value;
use crate::ids::{ChainId, EnvRef, Seat};
use crate::rules::{ActCtx, OpenedSlot, Owe, Rules, ShownSlot};

impl<R: Rules> Engine<R> {
    /// The deals an act of `seat` (`act`, encoded) would make due if sent on its public
    /// chain now after the items `before`; `None` if it would not be accepted or the
    /// preview cannot tell.
    pub fn preview_owes(
        &self,
        seat: Seat,
        before: &[Item],
        act: &[u8],
        clock: u64,
    ) -> Option<Vec<Owe>> {
        let state = self.game.state.as_ref()?;
        let coin = self.game.coin?;
        let act = self.rules.decode_act(act).ok()?;
        let (mut opened_slots, mut shown_slots) = (vec![], vec![]);
        let (mut opened_values, mut committed_values) = (vec![], vec![]);
        let mut opened_setups = vec![];
        for item in before {
            match item {
                Item::Open(o) => match &o.purpose {
                    Purpose::Deck(deck) => opened_slots.push(OpenedSlot {
                        deck: deck.clone(),
                        slot: o.index,
                        card: card_from_value(&o.value)?,
                    }),
                    Purpose::Value(name) => {
                        opened_values.push((name.clone(), o.index, o.value.clone()))
                    }
                    Purpose::Setup(name) => opened_setups.push(name.clone()),
                    _ => {}
                },
                Item::Show(sh) => {
                    let Purpose::Deck(deck) = &sh.purpose else {
                        return None;
                    };
                    shown_slots.push(ShownSlot {
                        deck: deck.clone(),
                        slot: sh.index,
                        card: card_from_value(&sh.value)?,
                        to: sh.to,
                    });
                }
                Item::Commit(c) => {
                    if let Purpose::Value(name) = &c.purpose {
                        for i in 0..c.hashes.len() as u32 {
                            committed_values.push((name.clone(), c.first.checked_add(i)?));
                        }
                    }
                }
                Item::DrawOpen(_) => return None,
                _ => {}
            }
        }
        let chain = ChainId::public(seat);
        let at = EnvRef {
            chain,
            seq: self.chain_tip(chain).0,
        };
        // Everything processed is in the view of an envelope this seat signs now.
        let chains = self.store.chains.values().map(|c| c.index + 1).max()?;
        let everything = vec![u64::MAX; chains];
        let held_slots = self.held_slots(at, seat, &everything);
        let ctx = ActCtx {
            at,
            clock,
            coin: &coin,
            opened_slots: &opened_slots,
            shown_slots: &shown_slots,
            held_slots: &held_slots,
            opened_values: &opened_values,
            opened_setups: &opened_setups,
            committed_values: &committed_values,
            draws: &[],
        };
        let applied = self.rules.apply(state, seat, &act, &ctx).ok()?;
        Some(applied.owe)
    }
}
