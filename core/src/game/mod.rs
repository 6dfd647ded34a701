//! One game, as the core holds it: one slot per game with everything the core holds of
//! it in one place ([`Slot`], `slot/`: where it stands, its writes under way, this
//! seat's dealings with the game's witness, whether a bot decides for it, behind
//! private fields). No map keyed by game id lives outside [`Games`], so a game's state
//! cannot be half kept: changing its life (loaded, unloaded, set aside, resumed) keeps
//! the rest of its slot, and forgetting it drops all of it at once.
//!
//! The folder is the core's middle layer (ARCHITECTURE.md, "The core's layers"): it
//! imports values and questions of the terms, never the core's work above it. Files: the
//! slot and what the core asks of it `slot/` (with time alone `slot/time.rs`), the states a game is in `states.rs`, asleep `asleep.rs`, where it stands as the faces say
//! it `standing.rs`, its writes under way `queue.rs`, what it owes and what reached whom
//! `delivery.rs`, this seat's dealings with its witness `asking.rs`, what this node holds
//! of it as its witness `witnessed.rs`.

pub(crate) mod asking;
pub(crate) mod asleep;
pub(crate) mod deadlines;
pub(crate) mod delivery;
pub(crate) mod queue;
pub(crate) mod sending;
mod slot;
mod standing;
pub(crate) mod states;
pub(crate) mod witnessed;

use std::collections::{BTreeMap, BTreeSet};

use sealed_protocol::hash::Hash;
use sealed_protocol::proposal::Terms;

use crate::io::GameRef;
use crate::{GameId, NodeError};
use asleep::Asleep;
pub(crate) use slot::{Life, Slot};
pub(crate) use states::{Dormant, Evidence, Kept, Played, Relayed, SetAside};

/// Every game the core knows, one slot each.
#[derive(Default)]
pub(crate) struct Games {
    slots: BTreeMap<GameId, Slot>,
    /// The played games whose variant has computations (`Table::computing`):
    /// what `computations.rs` `computing` looks at after every input, where every game
    /// would cost a pass over thousands.
    with_computations: BTreeSet<GameId>,
    /// Moves at every access that could change a slot: what is summed up over all the
    /// games (`holding.rs` `with_crowd`) is kept while it stays.
    generation: u64,
    /// The games changed since the bots last looked (`auto.rs` `run_bots`): kept apart
    /// from the slots so that finding them costs no pass over every game.
    for_bots: BTreeSet<GameId>,
    /// The games handed out for change since [`Games::take_touched`] was last asked,
    /// whose deadlines may have moved (`deadlines.rs`); `Every` after a pass over all.
    touched: Touched,
    /// The games held for strangers summed up (`holding.rs` `with_crowd`), as of a
    /// generation.
    pub(crate) crowd: std::cell::RefCell<Option<(u64, crate::held::Crowd)>>,
    /// Strangers' invitations waiting at this player summed up (`peers.rs`
    /// `may_invite`), as of a generation.
    pub(crate) invited: std::cell::RefCell<Option<(u64, crate::held::Crowd)>>,
}

/// Which games may have changed since the core last looked.
#[derive(Default)]
pub(crate) enum Touched {
    /// None.
    #[default]
    None,
    /// These games.
    Some(BTreeSet<GameId>),
    /// Any game.
    Every,
}

impl Touched {
    fn add(&mut self, id: GameId) {
        match self {
            Touched::None => *self = Touched::Some(BTreeSet::from([id])),
            Touched::Some(ids) => {
                ids.insert(id);
            }
            Touched::Every => {}
        }
    }
}

macro_rules! state {
    ($one:ident, $all:ident, $variant:ident, $ty:ty $(, $one_mut:ident)?) => {
        /// The game, if it is in this state.
        pub(crate) fn $one(&self, id: &GameId) -> Option<&$ty> {
            match self.slots.get(id)?.life() {
                Life::$variant(g) => Some(&**g),
                _ => None,
            }
        }

        $(
            /// The game, if it is in this state.
            pub(crate) fn $one_mut(&mut self, id: &GameId) -> Option<&mut $ty> {
                self.generation += 1;
                self.touched.add(*id);
                match self.slots.get_mut(id)?.life_mut() {
                    Life::$variant(g) => Some(&mut **g),
                    _ => None,
                }
            }
        )?

        /// Every game in this state, in id order.
        pub(crate) fn $all(&self) -> impl Iterator<Item = (&GameId, &$ty)> {
            self.slots.iter().filter_map(|(id, s)| match s.life() {
                Life::$variant(g) => Some((id, &**g)),
                _ => None,
            })
        }
    };
}

impl Games {
    state!(played, all_played, Played, Played, played_mut);
    state!(relayed, all_relayed, Relayed, Relayed, relayed_mut);
    state!(dormant, all_dormant, Dormant, Dormant);
    state!(asleep, all_asleep, Asleep, Asleep, asleep_mut);
    state!(aside, all_aside, Aside, SetAside, aside_mut);

    /// `f` of a sum over the games kept in `kept` (`crowd` or `invited`), summed again
    /// by `sum` only when a slot may have changed since it was: a flood of proposals or
    /// invitations at a full node is refused without a pass over its games each time.
    pub(crate) fn kept_sum<T>(
        &self,
        kept: &std::cell::RefCell<Option<(u64, crate::held::Crowd)>>,
        sum: impl FnOnce() -> crate::held::Crowd,
        f: impl FnOnce(&crate::held::Crowd) -> T,
    ) -> T {
        let generation = self.generation;
        let mut kept = kept.borrow_mut();
        if let Some((_, c)) = kept.as_ref().filter(|(at, _)| *at == generation) {
            return f(c);
        }
        let (_, c) = kept.insert((generation, sum()));
        f(c)
    }

    /// A game's slot.
    pub(crate) fn slot(&self, id: &GameId) -> Option<&Slot> {
        self.slots.get(id)
    }

    /// A game's slot.
    pub(crate) fn slot_mut(&mut self, id: &GameId) -> Option<&mut Slot> {
        self.generation += 1;
        self.touched.add(*id);
        self.slots.get_mut(id)
    }

    /// Every slot, in id order.
    pub(crate) fn slots(&self) -> impl Iterator<Item = (&GameId, &Slot)> {
        self.slots.iter()
    }

    /// Every slot, in id order.
    pub(crate) fn slots_mut(&mut self) -> impl Iterator<Item = (&GameId, &mut Slot)> {
        self.generation += 1;
        self.touched = Touched::Every;
        self.slots.iter_mut()
    }

    /// Puts the game in `life`, keeping the rest of its slot (a new game gets a fresh
    /// one); what it was before.
    pub(crate) fn put(&mut self, id: GameId, mut life: Life) -> Option<Life> {
        self.generation += 1;
        self.touched.add(id);
        let computes = match &mut life {
            Life::Played(p) => p.table.computing().is_some(),
            _ => false,
        };
        if computes {
            self.with_computations.insert(id);
        } else {
            self.with_computations.remove(&id);
        }
        match self.slots.get_mut(&id) {
            Some(s) => Some(std::mem::replace(s.life_mut(), life)),
            None => {
                self.slots.insert(id, Slot::new(life));
                None
            }
        }
    }

    /// Forgets the game and everything held of it.
    pub(crate) fn forget(&mut self, id: &GameId) -> Option<Slot> {
        self.generation += 1;
        self.touched.add(*id);
        self.with_computations.remove(id);
        self.for_bots.remove(id);
        self.slots.remove(id)
    }

    /// Game `id` changed: the bots look at it again (a game not known: nothing).
    pub(crate) fn mark_for_bots(&mut self, id: GameId) {
        if self.slots.contains_key(&id) {
            self.for_bots.insert(id);
        }
    }

    /// Whether game `id` changed since the bots last looked.
    pub(crate) fn is_for_bots(&self, id: &GameId) -> bool {
        self.for_bots.contains(id)
    }

    /// The games changed since the bots last looked, in id order.
    pub(crate) fn for_bots(&self) -> Vec<GameId> {
        self.for_bots.iter().copied().collect()
    }

    /// [`Games::for_bots`], marked seen.
    pub(crate) fn take_for_bots(&mut self) -> Vec<GameId> {
        std::mem::take(&mut self.for_bots).into_iter().collect()
    }

    /// The games that may have changed since this was last asked.
    pub(crate) fn take_touched(&mut self) -> Touched {
        std::mem::take(&mut self.touched)
    }

    /// The played games whose variant has computations, in id order.
    pub(crate) fn with_computations(&self) -> impl Iterator<Item = (&GameId, &Played)> {
        self.with_computations
            .iter()
            .filter_map(|id| Some((id, self.played(id)?)))
    }

    /// A game by id or unique prefix (of hex), whatever its state. Every command naming
    /// a game asks this, so it reads the ids in the prefix's range of the map (ids sort
    /// as their hex does) instead of writing out every id: a node holds thousands.
    pub(crate) fn find(&self, g: &GameRef) -> Result<GameId, NodeError> {
        find_among(&self.slots, g.as_str())
    }

    /// Whether the core knows the game in any state.
    pub(crate) fn knows(&self, id: &GameId) -> bool {
        self.slots.contains_key(id)
    }

    /// A known game's terms (none for a game asleep or set aside).
    pub(crate) fn terms(&self, id: &GameId) -> Option<&Terms> {
        match self.slots.get(id)?.life() {
            Life::Played(p) => Some(p.table.session().terms()),
            Life::Relayed(r) => Some(&r.terms),
            Life::Dormant(d) => d.terms(),
            // Its terms are read again when it wakes (`sleep.rs` `rouse`).
            Life::Asleep(_) | Life::Aside(_) => None,
        }
    }

    /// Games with a write in flight.
    pub(crate) fn writes_in_flight(&self) -> usize {
        self.slots.values().filter(|s| s.writing()).count()
    }
}

/// The one id in `ids` whose hex starts with `text`.
fn find_among<V>(ids: &BTreeMap<GameId, V>, text: &str) -> Result<GameId, NodeError> {
    let none = || NodeError::NoGame(text.to_owned());
    if text.is_empty() {
        return Err(match ids.len() {
            0 | 1 => none(),
            _ => NodeError::Ambiguous(String::new()),
        });
    }
    let (low, high) = prefix_range(text).ok_or_else(none)?;
    let mut hits = ids.range(low..=high).map(|(id, _)| *id);
    match (hits.next(), hits.next()) {
        (Some(one), None) => Ok(one),
        (None, _) => Err(none()),
        (Some(_), Some(_)) => Err(NodeError::Ambiguous(text.to_owned())),
    }
}

/// The first and last ids whose hex starts with `text` (lowercase hex, at most 64
/// digits); `None` for anything else, which names no game.
fn prefix_range(text: &str) -> Option<(GameId, GameId)> {
    if text.len() > 64 {
        return None;
    }
    let (mut low, mut high) = ([0u8; 32], [0xffu8; 32]);
    for (i, c) in text.bytes().enumerate() {
        let digit = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => return None,
        };
        let shift = if i % 2 == 0 { 4 } else { 0 };
        let keep = !(0x0f << shift);
        low[i / 2] = (low[i / 2] & keep) | (digit << shift);
        high[i / 2] = (high[i / 2] & keep) | (digit << shift);
    }
    Some((GameId(Hash(low)), GameId(Hash(high))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What `find` answered when it wrote out every id: the ids whose hex starts with
    /// the text, one of them only if the text is not empty.
    fn by_hex(ids: &[GameId], text: &str) -> Result<GameId, &'static str> {
        let hits: Vec<GameId> = ids
            .iter()
            .filter(|id| hex::encode(id).starts_with(text))
            .copied()
            .collect();
        match hits.as_slice() {
            [one] if !text.is_empty() => Ok(*one),
            [] | [_] => Err("none"),
            _ => Err("ambiguous"),
        }
    }

    fn found(ids: &BTreeMap<GameId, ()>, text: &str) -> Result<GameId, &'static str> {
        find_among(ids, text).map_err(|e| match e {
            NodeError::NoGame(_) => "none",
            NodeError::Ambiguous(_) => "ambiguous",
            _ => "other",
        })
    }

    proptest! {
        /// Ids that share prefixes of every length, and texts cut from them at every
        /// length, changed in a digit, or not hex at all.
        #[test]
        fn find_answers_as_the_hex_of_every_id_did(
            seeds in proptest::collection::vec((0u8..4, any::<[u8; 32]>()), 0..12),
            pick in any::<usize>(),
            cut in 0usize..70,
            change in proptest::option::of((0usize..64, "[0-9a-fA-Fg-z ]")),
        ) {
            // Few distinct first bytes, so that prefixes are shared.
            let ids: Vec<GameId> = seeds.iter().map(|(first, rest)| {
                let mut b = *rest;
                b[0] = *first;
                if first % 2 == 0 { b[1] = 0x5a; }
                GameId(Hash(b))
            }).collect();
            let games: BTreeMap<GameId, ()> = ids.iter().map(|id| (*id, ())).collect();
            let mut text = ids
                .get(pick % ids.len().max(1))
                .map(hex::encode)
                .unwrap_or_default();
            text.truncate(cut);
            if let Some((at, c)) = change
                && at < text.len()
            {
                text.replace_range(at..=at, &c);
            }
            let text = GameRef::from(text.as_str()).as_str().to_owned();
            let mut unique = ids.clone();
            unique.sort();
            unique.dedup();
            prop_assert_eq!(found(&games, &text), by_hex(&unique, &text));
        }
    }
}
