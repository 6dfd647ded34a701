//! What a seat owes without deciding anything, and sends by itself: deals from the
//! decks it deals, values for the draws of pools it contributes to, and the openings of
//! its own draws. Each is drawn from the seat's secrets (its dealing seeds, its draw
//! chains), so a restart gives the same items.

use super::Session;
use super::secrets::Secrets;
use crate::body::{Deal, Item, Purpose};
use crate::derive::{DealStream, deal_key};
use crate::ids::Name;
use crate::rules::Rules;

impl<R: Rules> Session<R> {
    /// Value `i` of this seat's draw chain for a pool.
    pub(super) fn chain_value(&self, secrets: &Secrets, pool: &Name, i: u32) -> Option<[u8; 32]> {
        let spec = self
            .engine
            .pools()
            .into_iter()
            .find(|p| p.owner == self.seat && &p.name == pool)?;
        let last = secrets.draw_chain_last(pool);
        Some(crate::derive::draw_chain_value(
            self.engine.terms().game(),
            self.seat,
            pool,
            spec.draws,
            &last,
            i,
        ))
    }

    /// The pick of this seat's pending draw from a pool: known as soon as the
    /// contributor's value is in (this seat knows its own next chain value), before
    /// the draw is opened. This is how a player sees what it drew, to place it.
    pub fn pending_draw(&self, pool: &Name) -> Option<crate::hash::Hash> {
        let (_, contributed, opened) = self.engine.pool_counts(self.seat, pool)?;
        if contributed <= opened {
            return None;
        }
        let index = opened as u32 + 1;
        let value = self.chain_value(self.phase.secrets(), pool, index)?;
        let contribution = self.engine.contribution(self.seat, pool, index)?;
        Some(crate::derive::draw_pick(
            self.engine.terms().game(),
            self.seat,
            pool,
            index,
            &value,
            &contribution,
        ))
    }

    /// The opening of this seat's next draw from a pool.
    pub(super) fn draw_open_item(&self, secrets: &Secrets, pool: &Name) -> Option<Item> {
        let (_, _, opened) = self.engine.pool_counts(self.seat, pool)?;
        let index = opened as u32 + 1;
        let value = self.chain_value(secrets, pool, index)?;
        Some(Item::DrawOpen(crate::body::DrawOpen {
            pool: pool.clone(),
            index,
            value,
        }))
    }

    /// Items this seat owes now without deciding anything: deals and draw values.
    pub(super) fn due_items(&self, secrets: &Secrets) -> Vec<Item> {
        let mut items = self.due_deals(secrets);
        for p in self.engine.pools() {
            if p.contributor != self.seat {
                continue;
            }
            let Some((declared, contributed, _)) = self.engine.pool_counts(p.owner, &p.name) else {
                continue;
            };
            for index in contributed as u32 + 1..=declared as u32 {
                let value = secrets.contribution(p.owner, &p.name, index);
                items.push(Item::DrawContribute(crate::body::DrawContribute {
                    owner: p.owner,
                    pool: p.name.clone(),
                    index,
                    value,
                }));
            }
        }
        items
    }

    /// Deal items this seat owes now, drawn from its seed's stream.
    pub(super) fn due_deals(&self, secrets: &Secrets) -> Vec<Item> {
        self.deals(secrets, &[]).0
    }

    /// The deals this seat owes now, and those that `owes` — what its own act is about
    /// to make due ([`Engine::preview_owes`]) — add after them: one walk of each dealing
    /// stream, the first slots owed now, the next ones after the act.
    pub(super) fn deals(
        &self,
        secrets: &Secrets,
        owes: &[crate::rules::Owe],
    ) -> (Vec<Item>, Vec<Item>) {
        let game = self.engine.terms().game();
        let (mut now_items, mut after_items) = (vec![], vec![]);
        for d in self.engine.decks() {
            if d.dealer != self.seat || !self.engine.has_joined(d.owner) {
                continue;
            }
            let due = self.engine.deal_due(d.owner, &d.name);
            let extra: u32 = owes
                .iter()
                .filter(|o| o.dealer == self.seat && o.owner == d.owner && o.deck == d.name)
                .map(|o| o.count)
                .sum();
            let dealt = self.engine.dealt(d.owner, &d.name);
            let granted = self.engine.deal_exclusions(d.owner, &d.name);
            let left =
                (d.cards.len() as u32).saturating_sub(dealt.len() as u32 + granted.len() as u32);
            let total = due.saturating_add(extra).min(left);
            if total == 0 {
                continue;
            }
            let seed = secrets.seed(&Purpose::DealSeed(d.name.clone()), u32::from(d.owner.0));
            let key = deal_key(game, self.seat, d.owner, &d.name, &seed);
            // Walking the whole stream again, skipping everything already out, gives the
            // same slots as continuing it: every earlier position was dealt or skipped.
            let slots = DealStream::new(&key, d.cards.len() as u32).next(total as usize, |s| {
                dealt.contains(&s) || granted.contains(&s)
            });
            let split = (due as usize).min(slots.len());
            for (part, items) in [
                (&slots[..split], &mut now_items),
                (&slots[split..], &mut after_items),
            ] {
                for chunk in part.chunks(crate::body::MAX_DEAL) {
                    items.push(Item::Deal(Deal {
                        owner: d.owner,
                        deck: d.name.clone(),
                        slots: chunk.to_vec(),
                    }));
                }
            }
        }
        (now_items, after_items)
    }
}
