//! Judging one envelope against its causal past.
//!
//! Over 800 lines on purpose: one judge per item kind, all reading and writing the same
//! causal past and ledger in one order; the reading order is the rule (the first item
//! that breaks one stops the envelope), so it stays in one place. What stands apart by
//! its job is in files of its own: the first envelope (`first.rs`), draws from public
//! pools (`draws.rs`), time forfeits (`forfeit.rs`) and shown slots (`show.rs`).
//!
//! Items are read in order. The first item that breaks a rule makes the envelope a
//! proof against its signer and stops the reading: items before it stand (they are
//! signed facts, such as a revealed value), nothing after it takes effect.

use std::collections::BTreeSet;

use super::{ClaimRecord, Engine, store::Clock};
use crate::body::{Claim, Commit, Deal, Item, Open, Purpose, check_limits};
use crate::commit::{CommitKey, card_from_value, card_value, commitment, seed_from_value};
use crate::derive;
use crate::envelope::Signed;
use crate::fault::FaultKind;
use crate::ids::{EnvRef, Name, Seat};
use crate::outcome::Outcome;
use crate::rules::{ActCtx, DrawResult, OpenedSlot, Rules, ShownSlot};

/// A rule broken: the kind and a sentence.
pub(super) type Broken = (FaultKind, String);

pub(super) fn broken(kind: FaultKind, detail: impl Into<String>) -> Broken {
    (kind, detail.into())
}

/// What the items of one envelope have opened and committed so far, for the act.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) opened_slots: Vec<OpenedSlot>,
    pub(super) shown_slots: Vec<ShownSlot>,
    pub(super) opened_values: Vec<(Name, u32, Vec<u8>)>,
    pub(super) opened_setups: Vec<Name>,
    pub(super) committed_values: Vec<(Name, u32)>,
    pub(super) draws: Vec<DrawResult>,
}

impl<R: Rules> Engine<R> {
    pub(super) fn judge(
        &mut self,
        env: &Signed,
        clock: &Clock,
        malformed_acks: Option<&'static str>,
    ) {
        let at = env.at();
        if let Err(b) = self.judge_inner(env, clock, malformed_acks) {
            self.fault(at.chain.seat, at, b.0, b.1);
        }
    }

    fn judge_inner(
        &mut self,
        env: &Signed,
        clock: &Clock,
        malformed_acks: Option<&'static str>,
    ) -> Result<(), Broken> {
        let u = env.unsigned();
        let at = env.at();
        let seat = u.seat;
        if u.seq == 0 && u.log.is_public() {
            // The seat has spoken, even if what it said breaks a rule: the others must
            // not wait for it, nor be blamed for revealing after it.
            self.seats[seat.index()].first = Some(at);
        }
        if let Some(why) = malformed_acks {
            return Err(broken(FaultKind::MalformedAck, why));
        }
        check_limits(&u.body).map_err(|why| broken(FaultKind::OverLimits, why))?;
        if !u.log.is_public()
            && !self
                .rules
                .audience(u.log)
                .is_some_and(|a| a.contains(&seat))
        {
            return Err(broken(
                FaultKind::NotInAudience,
                format!("{seat} may not post to log {}", u.log.0),
            ));
        }
        if u.seq > 0 {
            let prev = self.store.chains[&at.chain]
                .get(u.seq - 1)
                .map(|p| p.unsigned().acks.clone())
                .unwrap_or_default();
            for p in &prev {
                let now = u.acks.iter().find(|a| a.chain == p.chain);
                if now.is_none_or(|a| a.seq < p.seq) {
                    return Err(broken(
                        FaultKind::BackwardAck,
                        format!("acknowledgement of {} went back", p.chain),
                    ));
                }
            }
        }
        let closed_before = self.seats[seat.index()]
            .close
            .is_some_and(|c| self.store.seen(clock, c));
        if closed_before && u.body.iter().any(|i| !matches!(i, Item::Close)) {
            return Err(broken(
                FaultKind::AfterClose,
                "only closes may follow a close",
            ));
        }
        if !u.log.is_public() {
            return self.judge_private(env, clock);
        }
        // The first envelope's acceptance and start commitments come first in its body.
        let skip = if u.seq == 0 {
            self.judge_first(env, clock)?
        } else {
            0
        };
        let mut scratch = Scratch::default();
        for item in &u.body[skip..] {
            self.judge_item(item, at, seat, u.clock, clock, &mut scratch)?;
        }
        Ok(())
    }

    /// A withdrawal (spec/PROTOCOL.md §17.14): the proposer's, before it has seen any
    /// other seat's first envelope. One that has seen an acceptance is a fault: from
    /// then on the proposer is bound, and only resigning ends the game. An acceptance
    /// that crossed it (that the withdrawal had not seen) does not undo it: its past
    /// alone decides, so no later envelope of anyone can revive a game taken back.
    fn judge_withdraw(&mut self, at: EnvRef, seat: Seat, clock: &Clock) -> Result<(), Broken> {
        if self.terms.proposal().proposer != seat {
            return Err(broken(FaultKind::OutOfPhase, "only the proposer withdraws"));
        }
        if self.over_in(clock) {
            self.note(
                at,
                "withdrawal after the game had ended in the sender's view",
            );
            return Ok(());
        }
        if let Some(s) = self.terms.seats().find(|s| {
            *s != seat
                && self.seats[s.index()]
                    .first
                    .is_some_and(|f| self.store.seen(clock, f))
        }) {
            return Err(broken(
                FaultKind::OutOfPhase,
                format!("withdrawn after seeing {s} accept: only resigning ends it now"),
            ));
        }
        self.game.withdrawn.get_or_insert(at);
        if !self.game.terminal.contains(&at) {
            self.game.terminal.push(at);
        }
        Ok(())
    }

    pub(super) fn over_in(&self, clock: &Clock) -> bool {
        self.game
            .terminal
            .iter()
            .any(|t| self.store.seen(clock, *t))
    }

    fn started_in(&self, clock: &Clock) -> bool {
        self.game.coin.is_some()
            && self
                .ledger
                .coin_seeds
                .values()
                .all(|(_, r)| self.store.seen(clock, *r))
    }

    fn judge_item(
        &mut self,
        item: &Item,
        at: EnvRef,
        seat: Seat,
        sender_clock: u64,
        clock: &Clock,
        scratch: &mut Scratch,
    ) -> Result<(), Broken> {
        let player = self.terms.is_player(seat);
        match item {
            Item::Accept | Item::Decline => Err(broken(
                FaultKind::OutOfPhase,
                "accept and decline belong to the first envelope",
            )),
            Item::Commit(c) => self.judge_commit(c, at, seat, scratch),
            Item::Open(o) => self.judge_open(o, at, seat, clock, scratch),
            Item::Deal(d) => self.judge_deal(d, at, seat, clock),
            Item::Act(bytes) => self.judge_act(bytes, at, seat, sender_clock, clock, scratch),
            Item::Resign => {
                if !player {
                    return Err(broken(FaultKind::OutOfPhase, "only players resign"));
                }
                if self.over_in(clock) {
                    self.note(
                        at,
                        "resignation after the game had ended in the sender's view",
                    );
                } else {
                    let players = self.terms.players();
                    self.end(at, Outcome::loss(players, seat, format!("{seat} resigned")));
                }
                Ok(())
            }
            Item::OfferDraw => {
                if !player || !self.started_in(clock) || self.over_in(clock) {
                    self.note(at, "draw offer outside play ignored");
                } else {
                    self.game.offers.push((seat, at));
                }
                Ok(())
            }
            Item::AcceptDraw => {
                if !player || self.over_in(clock) {
                    self.note(at, "draw acceptance outside play ignored");
                    return Ok(());
                }
                if self.standing_offer(seat, clock) {
                    let players = self.terms.players();
                    self.end(at, Outcome::draw(players, "draw agreed"));
                } else {
                    self.note(
                        at,
                        "draw acceptance with no standing offer in the sender's view ignored",
                    );
                }
                Ok(())
            }
            Item::Claim(Claim { against, kind }) => {
                if *against == seat || self.terms.key(*against).is_none() {
                    return Err(broken(
                        FaultKind::OutOfPhase,
                        "a claim names another seat of the game",
                    ));
                }
                let seen = self
                    .store
                    .seen_count(clock, crate::ids::ChainId::public(*against));
                self.game.claims.push(ClaimRecord {
                    by: seat,
                    against: *against,
                    kind: *kind,
                    at,
                    clock: sender_clock,
                    seen_of_accused: seen,
                });
                Ok(())
            }
            Item::DrawContribute(c) => self.judge_contribute(c, at, seat, clock),
            Item::DrawOpen(o) => self.judge_draw_open(o, at, seat, clock, scratch),
            Item::Forfeit(f) => self.judge_forfeit(f, at, seat, clock),
            Item::Statements(st) => self.judge_statements(st, at),
            Item::Withdraw => self.judge_withdraw(at, seat, clock),
            Item::Show(sh) => self.judge_show(sh, at, seat, clock, scratch),
            Item::OpenDeck(od) => self.judge_open_deck(od, at, seat, clock, scratch),
            Item::Named(name) => {
                // Only in the first envelope of a seat that did not propose (the
                // proposer's name is in the proposal it signed), and once.
                let proposer = self.terms.proposal().proposer == seat;
                let track = &mut self.seats[seat.index()];
                if proposer || at.seq != 0 || track.name.is_some() {
                    return Err(broken(
                        FaultKind::OutOfPhase,
                        "a name belongs once to the first envelope of a seat that did not propose",
                    ));
                }
                track.name = Some(name.clone());
                Ok(())
            }
            Item::Evidence(proof) => {
                let store = &self.store;
                let proven = proof
                    .check_with(&self.terms, |s| store.holds_exact(s))
                    .map_err(|why| broken(FaultKind::FalseEvidence, why))?;
                // The accused's fault is a chain fault (found from the envelopes held);
                // make sure they are held, and end the game for whoever sees this.
                // Kept beside the chains, never in a slot: a proof must not change which
                // branch of a chain is followed.
                let by = self
                    .store
                    .chains
                    .get(&at.chain)
                    .and_then(|c| c.get(at.seq))
                    .map_or(crate::hash::Hash::ZERO, |e| e.hash);
                for e in proven.envelopes {
                    self.store.insert_beside(e, by);
                }
                let f = self.chain_fault(proven.at, proven.kind.clone());
                if !self.faults.contains(&f) {
                    self.faults.push(f);
                }
                self.game.posted.push((proven.at, proven.kind));
                if !self.game.terminal.contains(&at) {
                    self.game.terminal.push(at);
                }
                Ok(())
            }
            Item::Close => {
                if !self.over_in(clock) {
                    return Err(broken(
                        FaultKind::CloseBeforeEnd,
                        "closed while the game was on in the sender's view",
                    ));
                }
                let t = &mut self.seats[seat.index()];
                t.close.get_or_insert(at);
                t.last_close = Some(at);
                Ok(())
            }
        }
    }

    pub(super) fn end(&mut self, at: EnvRef, outcome: Outcome) {
        self.game.endings.push((at, outcome));
        if !self.game.terminal.contains(&at) {
            self.game.terminal.push(at);
        }
    }

    /// An offer by another player stands for `seat` while `seat` has made no act that
    /// saw it (making a move declines it).
    pub(super) fn standing_offer(&self, seat: Seat, clock: &Clock) -> bool {
        self.game.offers.iter().any(|(by, o)| {
            *by != seat
                && self.store.seen(clock, *o)
                && !self.game.main.iter().any(|(m, s)| {
                    *s == seat
                        && self
                            .store
                            .clock_of(*m)
                            .is_some_and(|c| self.store.seen(c, *o))
                })
        })
    }

    fn judge_commit(
        &mut self,
        c: &Commit,
        at: EnvRef,
        seat: Seat,
        scratch: &mut Scratch,
    ) -> Result<(), Broken> {
        let Purpose::Value(name) = &c.purpose else {
            return Err(broken(
                FaultKind::OutOfPhase,
                "only sealed values are committed after the first envelope",
            ));
        };
        for (i, h) in c.hashes.iter().enumerate() {
            let key = CommitKey {
                seat,
                purpose: c.purpose.clone(),
                index: c.first + i as u32,
            };
            if self.ledger.commits().contains_key(&key) {
                return Err(broken(
                    FaultKind::DuplicateCommitment,
                    format!("{name}[{}] committed twice", key.index),
                ));
            }
            scratch.committed_values.push((name.clone(), key.index));
            self.ledger.commit(key, (*h, at));
        }
        Ok(())
    }

    fn judge_open(
        &mut self,
        o: &Open,
        at: EnvRef,
        seat: Seat,
        clock: &Clock,
        scratch: &mut Scratch,
    ) -> Result<(), Broken> {
        if matches!(o.purpose, Purpose::DrawChain(_)) {
            return Err(broken(
                FaultKind::OutOfPhase,
                "a draw chain is opened with draw-open items, one value per draw",
            ));
        }
        let key = CommitKey {
            seat,
            purpose: o.purpose.clone(),
            index: o.index,
        };
        let Some((hash, _)) = self.ledger.commits().get(&key) else {
            return Err(broken(
                FaultKind::OpeningWithoutCommitment,
                format!("{:?}[{}] was never committed", o.purpose, o.index),
            ));
        };
        if commitment(self.terms.game(), &key, &o.nonce, &o.value) != *hash {
            return Err(broken(
                FaultKind::OpeningMismatch,
                format!("{:?}[{}] does not open its commitment", o.purpose, o.index),
            ));
        }
        if self.ledger.opened().contains_key(&key) {
            // A commitment opens to one value only, so a repeat says nothing new; but a
            // deck slot opened again in play is a card used twice.
            if let Purpose::Deck(name) = &o.purpose
                && !self.over_in(clock)
            {
                return Err(broken(
                    FaultKind::SlotUsedTwice,
                    format!("{name} slot {} used twice", o.index),
                ));
            }
            return Ok(());
        }
        let over = self.over_in(clock);
        match &o.purpose {
            Purpose::Coin => self.open_coin(o, at, seat, clock)?,
            Purpose::Deck(name) => {
                let card = self.open_slot(name, o, at, seat, clock, over)?;
                if !over {
                    scratch.opened_slots.push(OpenedSlot {
                        deck: name.clone(),
                        slot: o.index,
                        card,
                    });
                }
            }
            Purpose::DealSeed(name) => {
                if !over {
                    return Err(broken(
                        FaultKind::EarlyReveal,
                        "a dealer's seed is revealed only after the game",
                    ));
                }
                let seed = seed_from_value(&o.value)
                    .ok_or_else(|| broken(FaultKind::OpeningMismatch, "a seed is 32 bytes"))?;
                self.ledger.open(key, (o.value.clone(), at));
                if let Ok(owner) = u8::try_from(o.index) {
                    self.check_deals(seat, name, Seat(owner), &seed);
                }
                return Ok(());
            }
            Purpose::Setup(name) => {
                let in_play = crate::proposal::is_version_2(self.terms.version())
                    && self.rules.setups_open_in_play();
                if !over && !in_play {
                    return Err(broken(
                        FaultKind::EarlyReveal,
                        "a setup seed is revealed only after the game",
                    ));
                }
                seed_from_value(&o.value)
                    .ok_or_else(|| broken(FaultKind::OpeningMismatch, "a seed is 32 bytes"))?;
                if !over {
                    scratch.opened_setups.push(name.clone());
                }
            }
            Purpose::DrawChain(_) => unreachable!("refused above"),
            Purpose::Value(name) => {
                scratch
                    .opened_values
                    .push((name.clone(), o.index, o.value.clone()))
            }
        }
        self.ledger.open(key, (o.value.clone(), at));
        Ok(())
    }

    /// A whole deck opened from its seed (§17.17): after the game only, then judged as
    /// the openings of every slot in ascending order, so each slot passes exactly the
    /// checks of its own `Open` (a slot opened in play opens again to the same card,
    /// which its commitment binds).
    fn judge_open_deck(
        &mut self,
        od: &crate::body::OpenDeck,
        at: EnvRef,
        seat: Seat,
        clock: &Clock,
        scratch: &mut Scratch,
    ) -> Result<(), Broken> {
        let Some(d) = self.ledger.deck_index(seat, &od.deck) else {
            return Err(broken(
                FaultKind::OpeningWithoutCommitment,
                format!("no deck {} of {seat}", od.deck),
            ));
        };
        if !self.over_in(clock) {
            return Err(broken(
                FaultKind::EarlyReveal,
                "a whole deck is opened from its seed only after the game",
            ));
        }
        let deck = crate::commit::seeded_deck(&od.seed, &self.ledger.decks[d].spec.cards);
        // One `Open` rewritten for each slot: 68 slots a deck, each otherwise a copy of
        // the deck's name and a value of its own.
        let mut open = Open {
            purpose: Purpose::Deck(od.deck.clone()),
            index: 0,
            nonce: [0; 32],
            value: vec![],
        };
        for (slot, card) in (0u32..).zip(deck.order.iter()) {
            open.index = slot;
            open.nonce = deck.nonce(slot);
            open.value.clear();
            open.value.extend_from_slice(&card_value(*card));
            self.judge_open(&open, at, seat, clock, scratch)?;
        }
        Ok(())
    }

    fn open_coin(&mut self, o: &Open, at: EnvRef, seat: Seat, clock: &Clock) -> Result<(), Broken> {
        let seed = seed_from_value(&o.value)
            .ok_or_else(|| broken(FaultKind::OpeningMismatch, "a coin seed is 32 bytes"))?;
        // Public from now on, whether or not this reveal comes too early.
        self.ledger.coin_public.push((seat, at));
        // Once the game is over in the sender's view the coin decides nothing, and the
        // seed is just one more commitment opened at the end.
        let over = self.over_in(clock);
        for p in self.terms.player_seats() {
            if !over
                && p != seat
                && !self.seats[p.index()]
                    .first
                    .is_some_and(|f| self.store.seen(clock, f))
            {
                return Err(broken(
                    FaultKind::PrematureReveal,
                    format!("coin seed revealed before acknowledging {p}'s commitments"),
                ));
            }
        }
        self.ledger.coin_seeds.insert(seat, (seed, at));
        if self.ledger.coin_seeds.len() == usize::from(self.terms.players()) {
            let seeds: Vec<[u8; 32]> = self.ledger.coin_seeds.values().map(|(s, _)| *s).collect();
            let coin = derive::coin(self.terms.game(), &seeds);
            self.game.state = Some(self.rules.start(&coin));
            self.game.coin = Some(coin);
        }
        Ok(())
    }

    fn open_slot(
        &mut self,
        name: &Name,
        o: &Open,
        at: EnvRef,
        seat: Seat,
        clock: &Clock,
        over: bool,
    ) -> Result<u32, Broken> {
        let (d, card) = self.check_slot(name, o.index, &o.value, seat, clock, over)?;
        let deck = &mut self.ledger.decks[d];
        deck.card_slot.insert(card, o.index);
        deck.slot_card.insert(o.index, card);
        if !over {
            deck.used.insert(o.index, (card, at));
        }
        Ok(card)
    }

    /// The checks an opening of `name` slot `slot` to `value` passes (§8.5.2 steps 1–5),
    /// shared by `Open` and `Show`: the deck's index and the card.
    pub(super) fn check_slot(
        &self,
        name: &Name,
        slot: u32,
        value: &[u8],
        seat: Seat,
        clock: &Clock,
        over: bool,
    ) -> Result<(usize, u32), Broken> {
        let Some(d) = self.ledger.deck_index(seat, name) else {
            return Err(broken(
                FaultKind::OpeningWithoutCommitment,
                format!("no deck {name} of {seat}"),
            ));
        };
        let deck = &self.ledger.decks[d];
        if !over {
            let in_view = |r: Option<&EnvRef>| r.is_some_and(|r| self.store.seen(clock, *r));
            if !in_view(deck.dealt.get(&slot)) && !in_view(deck.granted.get(&slot)) {
                return Err(broken(
                    FaultKind::SlotNeverDealt,
                    format!("{name} slot {slot} was never dealt to {seat}"),
                ));
            }
        }
        let card = card_from_value(value)
            .ok_or_else(|| broken(FaultKind::CardNotOnList, "a card is 4 bytes"))?;
        if !deck.on_list.contains(&card) {
            return Err(broken(
                FaultKind::CardNotOnList,
                format!("card {card} is not on the agreed list"),
            ));
        }
        // A slot shown earlier (version 2) holds its card already: opening it is the
        // same card from the same slot.
        if let Some(other) = deck.card_slot.get(&card)
            && *other != slot
        {
            return Err(broken(
                FaultKind::CardFromTwoSlots,
                format!("card {card} opened from slots {other} and {slot}"),
            ));
        }
        Ok((d, card))
    }

    /// Replays a dealer's stream from its revealed seed against every deal it made.
    fn check_deals(&mut self, dealer: Seat, name: &Name, owner: Seat, seed: &[u8; 32]) {
        let Some(d) = self.ledger.deck_index(owner, name) else {
            return;
        };
        if self.ledger.decks[d].spec.dealer != dealer {
            return;
        }
        let game = self.terms.game();
        if let Some(bad) = self.ledger.decks[d].first_deal_not_from_seed(game, seed) {
            let at = bad.at;
            self.fault_only(
                dealer,
                at,
                FaultKind::DealNotFromSeed,
                format!("deal of {name} slots to {owner} differs from the revealed seed"),
            );
        }
    }

    fn judge_deal(
        &mut self,
        deal: &Deal,
        at: EnvRef,
        seat: Seat,
        clock: &Clock,
    ) -> Result<(), Broken> {
        let Some(d) = self.ledger.deck_index(deal.owner, &deal.deck) else {
            return Err(broken(
                FaultKind::OutOfPhase,
                format!("{} has no deck {}", deal.owner, deal.deck),
            ));
        };
        if self.ledger.decks[d].spec.dealer != seat {
            return Err(broken(
                FaultKind::OutOfPhase,
                format!("{seat} does not deal {}'s {}", deal.owner, deal.deck),
            ));
        }
        if !self.seats[deal.owner.index()]
            .first
            .is_some_and(|f| self.store.seen(clock, f))
        {
            return Err(broken(
                FaultKind::DealBeforeCommitment,
                "dealt before acknowledging the owner's deck commitment",
            ));
        }
        let deck = &self.ledger.decks[d];
        let mut fresh = BTreeSet::new();
        for s in &deal.slots {
            if *s >= deck.slots() {
                return Err(broken(
                    FaultKind::SlotOutOfRange,
                    format!("slot {s} of a {}-slot deck", deck.slots()),
                ));
            }
            if deck.dealt.contains_key(s) || !fresh.insert(*s) {
                return Err(broken(
                    FaultKind::IndexRepeated,
                    format!("slot {s} dealt twice"),
                ));
            }
        }
        let due: u32 = deck
            .owed
            .iter()
            .filter(|(r, _)| r.is_none_or(|r| self.store.seen(clock, r)))
            .map(|(_, n)| *n)
            .sum();
        let after = deck.dealt.len() + deal.slots.len();
        if after > due as usize {
            return Err(broken(
                FaultKind::OverDealt,
                format!("{after} slots dealt where {due} were due"),
            ));
        }
        let excluded: BTreeSet<u32> = deck
            .granted
            .iter()
            .filter(|(_, r)| self.store.seen(clock, **r))
            .map(|(s, _)| *s)
            .collect();
        let collisions: Vec<u32> = deal
            .slots
            .iter()
            .copied()
            .filter(|s| deck.granted.contains_key(s))
            .collect();
        let deck = &mut self.ledger.decks[d];
        for s in &deal.slots {
            deck.dealt.insert(*s, at);
        }
        deck.deals.push(super::ledger::DealRecord {
            at,
            slots: deal.slots.clone(),
            excluded,
        });
        for s in collisions {
            self.note(at, collision_note(s));
        }
        // A deal made after the seed was revealed is checked at once.
        let seed_key = CommitKey {
            seat,
            purpose: Purpose::DealSeed(deal.deck.clone()),
            index: u32::from(deal.owner.0),
        };
        if let Some(seed) = self
            .ledger
            .opened()
            .get(&seed_key)
            .and_then(|(v, _)| seed_from_value(v))
        {
            self.check_deals(seat, &deal.deck, deal.owner, &seed);
        }
        Ok(())
    }

    fn judge_act(
        &mut self,
        bytes: &[u8],
        at: EnvRef,
        seat: Seat,
        sender_clock: u64,
        clock: &Clock,
        scratch: &mut Scratch,
    ) -> Result<(), Broken> {
        let act = self
            .rules
            .decode_act(bytes)
            .map_err(|v| broken(FaultKind::UndecodableAct, v.0))?;
        if self.over_in(clock) {
            self.note(
                at,
                "act after the game had ended in the sender's view ignored",
            );
            return Ok(());
        }
        if !self.started_in(clock) {
            return Err(broken(
                FaultKind::OutOfTurn,
                "a game act before the coin was known",
            ));
        }
        // Accepted acts form one chain: an act that did not see the last one was made
        // when, in its sender's own view, another seat was to act.
        if let Some((last, _)) = self.game.main.last()
            && !self.store.seen(clock, *last)
        {
            return Err(broken(
                FaultKind::OutOfTurn,
                format!("{seat} was not to act in its own view"),
            ));
        }
        let Some(state) = self.game.state.as_ref() else {
            return Err(broken(
                FaultKind::OutOfTurn,
                "a game act before the coin was known",
            ));
        };
        if self.rules.to_act(state) != Some(seat) {
            // Worded as above: which of the two tests catches an act out of turn depends
            // on what was processed before it, and the verdict must not.
            return Err(broken(
                FaultKind::OutOfTurn,
                format!("{seat} was not to act in its own view"),
            ));
        }
        let coin = self.game.coin.unwrap_or_default();
        let held_slots = self.held_slots(at, seat, clock);
        let ctx = ActCtx {
            at,
            clock: sender_clock,
            coin: &coin,
            opened_slots: &scratch.opened_slots,
            shown_slots: &scratch.shown_slots,
            held_slots: &held_slots,
            opened_values: &scratch.opened_values,
            opened_setups: &scratch.opened_setups,
            committed_values: &scratch.committed_values,
            draws: &scratch.draws,
        };
        let applied = self
            .rules
            .apply(state, seat, &act, &ctx)
            .map_err(|v| broken(FaultKind::IllegalAct, v.0))?;
        // A grant gives the actor a slot of its own deck that it does not hold: not one
        // dealt or granted before in its view, and one that exists.
        for g in &applied.grant {
            let Some(d) = self.ledger.deck_index(g.owner, &g.deck) else {
                return Err(broken(
                    FaultKind::IllegalAct,
                    format!(
                        "a grant from deck {} of {}, which does not exist",
                        g.deck, g.owner
                    ),
                ));
            };
            let deck = &self.ledger.decks[d];
            let held = |r: Option<&EnvRef>| r.is_some_and(|r| self.store.seen(clock, *r));
            if g.owner != seat
                || g.slot as usize >= deck.spec.cards.len()
                || held(deck.dealt.get(&g.slot))
                || held(deck.granted.get(&g.slot))
            {
                return Err(broken(
                    FaultKind::IllegalAct,
                    format!(
                        "{} slot {} cannot be granted to {seat}: not its own, not in the deck, or already held",
                        g.deck, g.slot
                    ),
                ));
            }
        }
        self.game.state = Some(applied.state);
        self.game.main.push((at, seat));
        for owe in applied.owe {
            if let Some(d) = self.ledger.deck_index(owe.owner, &owe.deck)
                && self.ledger.decks[d].spec.dealer == owe.dealer
            {
                self.ledger.decks[d].owed.push((Some(at), owe.count));
            }
        }
        for g in applied.grant {
            if let Some(d) = self.ledger.deck_index(g.owner, &g.deck) {
                let deck = &mut self.ledger.decks[d];
                let new = !deck.granted.contains_key(&g.slot);
                deck.granted.entry(g.slot).or_insert(at);
                // The same note whichever of a deal and a grant that did not see each
                // other is judged first: a verdict never depends on arrival order.
                if let Some(dealt) = deck.dealt.get(&g.slot).copied()
                    && new
                {
                    self.note(dealt, collision_note(g.slot));
                }
            }
        }
        for pool in applied.declare {
            match self.ledger.pool_index(seat, &pool) {
                Some(p)
                    if (self.ledger.pools[p].declared.len() as u32)
                        < self.ledger.pools[p].spec.draws =>
                {
                    self.ledger.pools[p].declared.push(at);
                }
                _ => self.note(
                    at,
                    format!("the rules declared a draw from {pool}, which {seat} cannot draw from"),
                ),
            }
        }
        if let Some(outcome) = applied.outcome {
            self.end(at, outcome);
        }
        Ok(())
    }
}

/// The note on a slot both dealt and granted by envelopes that did not see each other.
fn collision_note(slot: u32) -> String {
    format!("dealt slot {slot}, which a concurrent grant gave")
}
