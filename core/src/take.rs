//! What a core takes from peers (spec/PROTOCOL.md §16.4): proposals and envelopes,
//! each stored before anything that depends on it is visible (`durable.rs`), and each
//! within what this node keeps for whom (`quota.rs`):
//!
//! - an invitation from a stranger within the bounds of `peers.rs` `may_invite`; a
//!   game to referee or relay within the proposer's quota of open and stored games;
//!   nothing in the proposal (its mailboxes) is dialled or kept connected until the
//!   game is accepted (`peers.rs` `accepted_game`);
//! - of envelopes, only what the game takes: the first envelope at each position, and
//!   one more as evidence of an equivocation — a third at a position is dropped — and
//!   for a game held for a stranger, only within his quota.
//!
//! At one position a game keeps 2 envelopes: the first, and one of evidence
//! (`game/states.rs` `Played::take_envelope`, `take_envelopes`; a relayed game's `game/states.rs` `Relayed::keep_signed`).
//! A mailbox sends the kept one back to whoever pushes its twin, who then proves the
//! equivocation. A private log's envelope from outside this seat's audience is taken
//! only once the game is over in this seat's own view (§16.4). `take_proposal` asks the
//! store whether it knows a game (`Durable::knows`), so a known game is never a new
//! invitation.
//!
//! About 700 lines, over the ~600 of the style: taking a proposal and taking envelopes
//! share their bounds (whose the game is, its size, the shares, a seat's places), kept in
//! one place.

use std::collections::BTreeMap;

use sealed_games::table;
use sealed_protocol::envelope::Signed;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, Seat};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::{Role, Terms};

use super::game::Life;
use super::game::queue::{Step, Waiter};
use super::game::{Kept, Played, Relayed};
use super::held::{Holder, Room};
use super::seats::{game_peers, is_mailbox, seat_of};
use super::{Core, Durable, GameId, PeerKey};
use crate::message::{Request, Response};
use crate::places::Places;
use crate::record::{GameRecord, GameStatus, Usage};
use crate::refusal::PeerRefusal;
use crate::reserve::Reply;
use crate::resident::admits;

/// One game's worth of the ledger.
const ONE_GAME: Usage = Usage {
    games: 1,
    envelopes: 0,
    bytes: 0,
};

/// What a set of envelopes uses of a quota.
fn usage<'a>(envs: impl IntoIterator<Item = &'a Vec<u8>>) -> Usage {
    let mut u = Usage::default();
    for e in envs {
        u.envelopes += 1;
        u.bytes += e.len() as u64;
    }
    u
}

impl Core {
    /// A push of `peer`'s: taken if `peer` holds a seat of the game or is its mailbox.
    pub(super) fn take_push(
        &mut self,
        peer: PeerKey,
        game: GameId,
        envelopes: Vec<Vec<u8>>,
        w: Waiter,
        store: &dyn Durable,
    ) -> Result<(), PeerRefusal> {
        // Only from a peer of the game does a push wake it (`sleep.rs`).
        if let Some(a) = self.games.asleep(&game) {
            if a.reader(&peer).is_none() {
                return Err(PeerRefusal::NotPoster);
            }
            // Set aside if its store does not read: nothing is taken then.
            self.rouse(&game, store)
                .map_err(|_| PeerRefusal::NotPlayedHere)?;
        }
        let terms = self.games.terms(&game).ok_or(PeerRefusal::UnknownGame)?;
        if seat_of(terms, &peer).is_none() && !is_mailbox(terms, &peer) {
            tracing::debug!("refused a push from a peer that holds no seat of the game");
            return Err(PeerRefusal::NotPoster);
        }
        self.take_envelopes(peer, Some(game), envelopes, Some(w), store);
        Ok(())
    }

    /// A proposal, from a proposer or a mailbox: a game to play if it names us, to relay
    /// if we are a mailbox it names. `said` is the origin a mailbox of the game says the
    /// proposal came from (`Request::OfferFrom`): the invitation is counted there, not
    /// at the mailbox's own address (`held.rs`). `None` when the answer waits for the
    /// game's record to be durable (`w` gets it); else the answer now.
    pub(super) fn take_proposal(
        &mut self,
        peer: PeerKey,
        bytes: &[u8],
        said: Option<&str>,
        w: Option<Waiter>,
        store: &dyn Durable,
    ) -> Option<Response> {
        let terms = match Terms::parse(bytes) {
            Ok(t) => t,
            Err(e) => return Some(PeerRefusal::Proposal(e).into()),
        };
        let id = terms.game();
        if self.cfg.windows.forget_index {
            // Window open on purpose: only games in memory are known.
            if self.games.played(&id).is_some() || self.games.relayed(&id).is_some() {
                return Some(Response::Ok { new: 0 });
            }
            if self.games.dormant(&id).is_some() {
                self.games.forget(&id);
            }
        } else {
            if self.games.knows(&id) {
                return Some(self.known_proposal(&peer, &id));
            }
            // The store's index alone says whether a game is known: an offer of a game it
            // holds, loaded or not, is never a new invitation (that would sign a second,
            // different opening).
            match store.knows(&id) {
                Ok(false) => {}
                Ok(true) => return Some(Response::Ok { new: 0 }),
                Err(e) => {
                    return Some(PeerRefusal::StoreUnreadable(e).into());
                }
            }
        }
        // A game held here for a stranger and dropped is not taken anew for a while.
        if let Some(why) = self.tombstone(&id, store) {
            // An invitation declined here and dropped: its proposer, or a mailbox of
            // it, gets the signed decline back (`held.rs`), as it would have had it.
            let proposer = super::seats::proposer(&terms);
            if proposer == Some(peer) || is_mailbox(&terms, &peer) {
                let envelopes = self.kept_decline(&id, store);
                if !envelopes.is_empty() {
                    self.request(
                        peer,
                        Request::Push {
                            game: id,
                            envelopes,
                        },
                    );
                }
            }
            return Some(PeerRefusal::Gone(why).into());
        }
        let me = self.key();
        let proposer = super::seats::proposer(&terms);
        let from_local = self.origin_of(&peer).is_some_and(|o| !o.global);
        // Whose the game is: where the proposal came from, or where a mailbox of the
        // game says it came from (a mailbox that lies harms only its own players).
        let holder = match said.filter(|_| is_mailbox(&terms, &peer)) {
            Some(key) => Holder::said(key),
            None => self.origin_of(&peer).map(Holder::of),
        };
        let stranger = proposer.filter(|p| *p != me && !self.vouched(p));
        if let Some(seat) = terms.seat_of(me.as_bytes()) {
            // A referee node takes every game that seats it, within the proposer's
            // quota of games open and kept; anyone else's invitation from a stranger is
            // bounded as invitations are.
            let refereeing = self.cfg.referee && terms.role(seat) == Some(Role::Referee);
            let allowed = match (refereeing, proposer) {
                (true, Some(p)) => self.may_hold(&p, holder.as_ref()),
                (false, Some(p)) if p != me => {
                    self.may_invite(&p, holder.as_ref())
                        .and_then(|room| match stranger {
                            Some(s) => self
                                .ledger
                                .allows(
                                    &self.cfg.quotas,
                                    self.now,
                                    &s,
                                    holder.as_ref().map(|h| h.group.as_str()),
                                    ONE_GAME,
                                )
                                .map(|()| room),
                            None => Ok(room),
                        })
                }
                _ => Ok(Room::Free),
            };
            let room = match allowed {
                Ok(room) => room,
                Err(why) => {
                    tracing::info!(game = %hex::encode(id), "invitation refused: {why}");
                    return Some(why.into());
                }
            };
            let entropy = self.random32();
            let t = match table::open(
                terms.clone(),
                SecretKey::from_seed(&self.key.seed()),
                &self.cfg.name,
                entropy,
                self.now,
            ) {
                Ok(t) => t,
                Err(e) => return Some(PeerRefusal::Table(e).into()),
            };
            if let Room::Evict(victim) = room {
                self.evict(victim, store);
            }
            let record = GameRecord {
                id,
                terms: bytes.to_vec(),
                variant: terms.variant().to_owned(),
                seat: Some(seat.0),
                created: self.now,
                status: GameStatus::Invited,
            };
            tracing::info!(game = %hex::encode(id), peer = %peer.short(), "invited to a game");
            let mut step = Step::default();
            step.writes.games.push(record.clone());
            let charged = proposer.filter(|_| refereeing).or(stranger);
            if let Some(p) = charged {
                let network = holder.as_ref().map(|h| h.group.as_str());
                self.charge_to(&mut step.writes, p, network, ONE_GAME);
            }
            // Its owner is kept beside it, for the counts after a restart.
            if let (Some(h), Some(_)) = (&holder, charged) {
                step.writes.meta.push(self.held_row(&id, h));
            }
            step.answers.extend(w);
            let played = Played::new(t, record, self.now).brought_by(holder, from_local);
            self.games.put(id, Life::Played(Box::new(played)));
            if refereeing {
                // The only choice a referee seat makes is to accept: the bot does that.
                self.bot_on(id, true);
            }
            self.bot_dirty(id);
            self.stage(id, step, store);
            self.run_bots(store);
            return None;
        }
        if self.cfg.mailbox && terms.proposal().mailboxes.iter().any(|m| m.key == me) {
            if let Some(p) = stranger {
                match self.may_hold(&p, holder.as_ref()) {
                    Ok(Room::Evict(victim)) => self.evict(victim, store),
                    Ok(_) => {}
                    Err(why) => {
                        tracing::info!(game = %hex::encode(id), "game to relay refused: {why}");
                        return Some(why.into());
                    }
                }
            }
            let r = Relayed::new(terms, self.now, self.now);
            let mut step = Step::default();
            step.writes.games.push(r.record(id, GameStatus::Relayed));
            if let Some(p) = stranger {
                let network = holder.as_ref().map(|h| h.group.as_str());
                self.charge_to(&mut step.writes, p, network, ONE_GAME);
                if let Some(h) = &holder {
                    step.writes.meta.push(self.held_row(&id, h));
                }
            }
            let r = r.held_for(holder);
            step.answers.extend(w);
            self.games.put(id, Life::Relayed(Box::new(r)));
            self.stage(id, step, store);
            return None;
        }
        Some(PeerRefusal::NotOurs.into())
    }

    /// The answer to a proposal of a game this node knows: taken already, unless it is
    /// a game relayed here that a seat refused and `peer` is its proposer, who is told
    /// why (his `sealed new` says so).
    fn known_proposal(&self, peer: &PeerKey, id: &GameId) -> Response {
        if let Some(r) = self.games.relayed(id)
            && let Some(why) = r.refused()
            && super::seats::proposer(r.terms()).as_ref() == Some(peer)
        {
            return PeerRefusal::SeatRefused(why.to_owned()).into();
        }
        Response::Ok { new: 0 }
    }

    /// Envelopes received (pushed, pulled or mailed): given to the game, then stored
    /// with everything the game does with them, before any of it is sent; `w` waits for
    /// that write. Only what the game takes is stored (see the module documentation).
    pub(super) fn take_envelopes(
        &mut self,
        from: PeerKey,
        game: Option<GameId>,
        envs: Vec<Vec<u8>>,
        w: Option<Waiter>,
        store: &dyn Durable,
    ) {
        let Some(game) = game else {
            return;
        };
        // Envelopes from a peer of a game asleep wake it; an outsider's, which an offer
        // or an answer may carry, do not: a replay costs the game's length
        // (`sleep.rs`).
        if let Some(a) = self.games.asleep(&game)
            && (a.reader(&from).is_none() || self.rouse(&game, store).is_err())
        {
            return;
        }
        let Some(terms) = self.known_terms(&game, store) else {
            return;
        };
        // Keep only validly signed envelopes of this game: a peer cannot make us store
        // anything a seat did not sign. Each is verified here, once: bytes the game's
        // table already holds, exactly, were verified when they first came (a peer
        // sends again what we have not yet acknowledged).
        let table = self.games.played(&game).map(|p| p.table());
        let valid: Vec<Signed> = envs
            .iter()
            .filter_map(|b| match table {
                Some(t) => t.session().envelopes().parse(b).ok(),
                None => Signed::parse(&terms, b).ok(),
            })
            .collect();
        self.take_signed(from, game, &terms, valid, w, store);
    }

    /// The terms of a game this node holds, woken if it was dormant.
    pub(super) fn known_terms(&mut self, game: &GameId, store: &dyn Durable) -> Option<Terms> {
        if self.games.dormant(game).is_some() && self.wake(game, store).is_err() {
            return None;
        }
        self.games.terms(game).cloned()
    }

    /// [`Core::take_envelopes`] for envelopes of `game` parsed, their signatures verified.
    pub(super) fn take_signed(
        &mut self,
        from: PeerKey,
        game: GameId,
        terms: &Terms,
        valid: Vec<Signed>,
        w: Option<Waiter>,
        store: &dyn Durable,
    ) {
        let me = self.key();
        let book = &self.peers.book;
        let held_for_stranger = self
            .games
            .charged_to(&game, &me, |p| book.is_friend(p))
            .is_some();
        // A mailbox keeps the public logs only.
        let relayed = self.games.relayed(&game).is_some();
        let valid: Vec<Signed> = valid
            .into_iter()
            .filter(|s| !relayed || s.at().chain.log.is_public())
            .collect();
        // At most what each signer's quota has left: checked on what may be kept,
        // before anything of it is taken. In a game held for a stranger each seat's
        // envelopes are charged to that seat (`quota.rs`), so a seat past its share is
        // refused alone: the envelopes of the others, even pushed beside its own, are
        // taken.
        // Then a game stores at most its bound, whoever its seats are, and what strangers'
        // games hold in memory is shared by network (`resident.rs`): what would pass
        // either is left out, and a push of nothing else is refused, saying so.
        let mut replies = vec![];
        let kept = if held_for_stranger {
            self.within_shares(&from, &game, terms, valid)
                .map(|(kept, r)| {
                    replies = r;
                    kept
                })
        } else {
            Ok(valid)
        };
        let valid = match kept.and_then(|v| self.within_bounds(&game, held_for_stranger, v)) {
            Ok(valid) => valid,
            Err(why) => {
                tracing::info!(game = %hex::encode(game), "envelopes refused: {why}");
                if let Some(w) = w {
                    self.refuse_waiter(w, why);
                }
                return;
            }
        };
        let mut step = Step::default();
        step.answers.extend(w);
        if let Some(r) = self.games.relayed_mut(&game) {
            r.use_at(self.now);
            let mut keep: Vec<(Vec<u8>, Seat)> = vec![];
            // Replies taken from their seats' reserves (`reserve.rs`).
            let mut reserved: Vec<(Vec<u8>, Seat)> = vec![];
            let mut fresh: Vec<Vec<u8>> = vec![];
            // Places where the pusher holds another envelope than the one kept here:
            // the pusher gets the kept one back, and proves the equivocation (a seat
            // that holds one twin never asks for the place again, and a witness cannot
            // date what acknowledges the twin it does not follow).
            let mut twins: Vec<(ChainId, u64, Hash)> = vec![];
            for s in valid {
                let at = s.at();
                if let Some(h) = r.held().get(&at.chain).and_then(|m| m.get(&at.seq))
                    && *h != s.hash
                {
                    twins.push((at.chain, at.seq, *h));
                }
                let reply = replies.iter().find(|x| x.hash == s.hash);
                let kept = r.keep_signed(&s);
                if kept == Kept::Fresh {
                    r.reserve_mut().saw(&s);
                    fresh.push(s.bytes.clone());
                }
                match (kept, reply) {
                    (Kept::No, _) => {}
                    (_, Some(reply)) => {
                        r.reserve_mut().spend(reply);
                        reserved.push((s.bytes, at.chain.seat));
                    }
                    (_, None) => keep.push((s.bytes, at.chain.seat)),
                }
            }
            // A witness's receipts of what it first holds now, in the same write.
            let receipts = self.receipts(game, &fresh, store);
            step.writes.meta.extend(receipts);
            // Any envelope renews a game held for a stranger (`held.rs`).
            if !fresh.is_empty() {
                self.renew(&game, &mut step.writes);
            }
            // Forward what is new to the other seats that are connected, once stored.
            if !fresh.is_empty() {
                for p in game_peers(terms, &me) {
                    if p != from && self.peers.connected.contains(&p) {
                        step.sends.push((
                            p,
                            Request::Push {
                                game,
                                envelopes: fresh.clone(),
                            },
                        ));
                    }
                }
            }
            if !twins.is_empty() {
                // Read from the twins' places on only, and charged to the pusher as an
                // answer's envelopes are.
                let mut from_seq = |log: u32, seat: u8| {
                    twins
                        .iter()
                        .filter(|(c, _, _)| c.log.0 == log && c.seat.0 == seat)
                        .map(|(_, q, _)| *q)
                        .min()
                };
                let read = store
                    .chain_envelopes(&game, &mut from_seq)
                    .unwrap_or_default();
                let (n, bytes) = (read.len(), read.iter().map(Vec::len).sum());
                let kept: Vec<Vec<u8>> = read
                    .into_iter()
                    .filter(|b| {
                        // Read from the store: verified once already.
                        Signed::parse_kept(terms, b).is_ok_and(|s| {
                            twins.iter().any(|(c, q, h)| {
                                s.at().chain == *c && s.at().seq == *q && s.hash == *h
                            })
                        })
                    })
                    .collect();
                self.charge_answer(&from, n, bytes);
                if !kept.is_empty() {
                    step.sends.push((
                        from,
                        Request::Push {
                            game,
                            envelopes: kept,
                        },
                    ));
                }
            }
            // What the reserves stored is charged to the proposer; the rest to the
            // seats that signed it.
            if held_for_stranger {
                self.charge(&mut step, &from, terms, &game, &keep);
                self.charge_proposer(&mut step, terms, &game, &reserved);
            }
            keep.extend(reserved);
            step.writes.envelopes = keep.into_iter().map(|(b, _)| (game, b)).collect();
            return self.stage(game, step, store);
        }
        let Some(p) = self.games.played_mut(&game) else {
            return;
        };
        p.use_at(self.now);
        // A private log's envelope outside this seat's audience is taken only once the
        // game is over in this seat's own view (§16.4), whatever the sender thought: what
        // may be seen goes first (the ending may be among it), the rest is judged after
        // it, and what is still hidden is dropped (a later repair round brings it).
        let seat = p.table().session().seat();
        let (now_seen, later): (Vec<Signed>, Vec<Signed>) = valid
            .into_iter()
            .partition(|s| p.table().session().envelopes().visible(s.at().chain, seat));
        let mut keep: Vec<(Vec<u8>, Seat)> = vec![];
        for s in now_seen {
            p.take_envelope(s, &mut keep, self.now);
        }
        for s in later {
            if p.table().session().envelopes().visible(s.at().chain, seat) {
                p.take_envelope(s, &mut keep, self.now);
            }
        }
        let actions = super::game::queue::drain(&mut *p.table_mut());
        // What was received is stored with what it made this seat sign: one write.
        if held_for_stranger {
            self.charge(&mut step, &from, terms, &game, &keep);
        }
        step.writes.envelopes = keep.into_iter().map(|(b, _)| (game, b)).collect();
        let mine = self.step_of(game, actions);
        step.writes.extend(mine.writes);
        step.sends = mine.sends;
        self.stage(game, step, store);
        self.run_bots(store);
    }

    /// The envelopes of a played game that fit its bound ([`GAME_BYTES`], or
    /// [`INVITATION_BYTES`] for a stranger's invitation not taken up) and its owner's
    /// share of memory (`resident.rs`), in order; only when none fits is the push refused,
    /// with why. This seat's own envelopes (sent back by a peer) are stored already and
    /// cost nothing.
    fn within_bounds(
        &self,
        game: &GameId,
        held_for_stranger: bool,
        valid: Vec<Signed>,
    ) -> Result<Vec<Signed>, PeerRefusal> {
        if let Some(r) = self.games.relayed(game) {
            return within_places(r, &self.cfg.places, valid);
        }
        let Some(p) = self.games.played(game) else {
            return Ok(valid);
        };
        let cap = if held_for_stranger && !p.taken_up() {
            INVITATION_BYTES
        } else {
            GAME_BYTES
        };
        let me = p.table().session().seat();
        // Strangers' bytes in memory by network, when this game is a stranger's.
        let owner = p.holder().map(|h| h.group.as_str());
        let resident = owner.map(|_| self.resident_by_network());
        let mut room = cap.saturating_sub(p.stored_bytes());
        let total = valid.len();
        let mut why = PeerRefusal::GameFull(cap);
        let mut taken = 0u64;
        let mut fits = Vec::with_capacity(total);
        for s in valid {
            let n = s.bytes.len() as u64;
            if s.at().chain.seat == me {
                fits.push(s);
                continue;
            }
            if n > room {
                continue;
            }
            if let (Some(network), Some(held)) = (owner, &resident)
                && !admits(held, network, taken + n, self.cfg.resident_for_strangers)
            {
                why = PeerRefusal::MemoryShare;
                continue;
            }
            room -= n;
            taken += n;
            fits.push(s);
        }
        if fits.is_empty() && total > 0 {
            return Err(why);
        }
        Ok(fits)
    }

    /// The envelopes of a game held for a stranger that their signers' shares allow
    /// (each seat's envelopes charged to that seat, and to the network of the peer that
    /// brought them, `quota.rs`): those of a seat past its share are left out, and only
    /// when none is left is the push refused, with why.
    fn within_shares(
        &self,
        from: &PeerKey,
        game: &GameId,
        terms: &Terms,
        valid: Vec<Signed>,
    ) -> Result<(Vec<Signed>, Vec<Reply>), PeerRefusal> {
        let network = self.network_for(from, game);
        let mut by_seat: BTreeMap<Seat, Usage> = BTreeMap::new();
        for s in &valid {
            let u = by_seat.entry(s.at().chain.seat).or_default();
            *u = u.plus(usage([&s.bytes]));
        }
        let mut refused: BTreeMap<Seat, PeerRefusal> = BTreeMap::new();
        for (seat, used) in by_seat {
            let Some(key) = terms.key(seat).map(PeerKey::from) else {
                continue;
            };
            if let Err(why) =
                self.ledger
                    .allows(&self.cfg.quotas, self.now, &key, network.as_deref(), used)
            {
                refused.insert(seat, why);
            }
        }
        let total = valid.len();
        // A refused seat's reply, at a mailbox or witness, comes from its reserve.
        let relayed = self.games.relayed(game);
        let mut replies: Vec<Reply> = vec![];
        let mut kept = Vec::with_capacity(total);
        for s in valid {
            if !refused.contains_key(&s.at().chain.seat) {
                kept.push(s);
            } else if let Some(reply) =
                relayed.and_then(|r| r.reserve().reply(r.held(), &replies, &s))
            {
                replies.push(reply);
                kept.push(s);
            }
        }
        match refused.into_values().next() {
            Some(why) if kept.is_empty() && total > 0 => Err(why),
            _ => Ok((kept, replies)),
        }
    }

    /// Charges what a game's seats stored from their reserves (`reserve.rs`) to its
    /// proposer, and to the network the game came from.
    fn charge_proposer(
        &mut self,
        step: &mut Step,
        terms: &Terms,
        game: &GameId,
        reserved: &[(Vec<u8>, Seat)],
    ) {
        let used = usage(reserved.iter().map(|(b, _)| b));
        let Some(proposer) = super::seats::proposer(terms) else {
            return;
        };
        if !used.is_zero() {
            let network = self.network_of(game);
            self.charge_to(&mut step.writes, proposer, network.as_deref(), used);
        }
    }

    /// Charges what `keep` stores of a game held for a stranger, each envelope to the
    /// seat that signed it and to the network of `from`, who brought it, in the step.
    fn charge(
        &mut self,
        step: &mut Step,
        from: &PeerKey,
        terms: &Terms,
        game: &GameId,
        keep: &[(Vec<u8>, Seat)],
    ) {
        let mut by_seat: BTreeMap<Seat, Usage> = BTreeMap::new();
        for (b, seat) in keep {
            let u = by_seat.entry(*seat).or_default();
            *u = u.plus(usage([b]));
        }
        let network = self.network_for(from, game);
        for (seat, used) in by_seat {
            if let Some(key) = terms.key(seat).map(PeerKey::from)
                && !used.is_zero()
            {
                self.charge_to(&mut step.writes, key, network.as_deref(), used);
            }
        }
    }
}

/// The most an invitation nobody accepted may store here, in envelopes' bytes: what its
/// proposer sets up before an answer (honest ones are a few KiB).
pub const INVITATION_BYTES: u64 = 1 << 20;
/// The most any other game may store at this seat in envelopes' bytes, whatever its
/// other seats send: an honest whole game is 80 to 200 KiB (docs/PERFORMANCE.md), so
/// only a seat that signs junk reaches it, and what it signs past it is refused
/// (`GameFull`), so that whatever an opponent, or a stranger whose game this node
/// referees, sends, one game costs this node at most this much (its bytes in memory
/// while the game is, and on disk). The seat that reaches it cannot move on: its own
/// envelopes stay unheard, and a game with time terms is lost by it on time.
pub const GAME_BYTES: u64 = 16 << 20;

/// The envelopes of a relayed game whose signers have room among their places (each
/// seat its share of `places`, `places.rs`), in order; only when none has is the push
/// refused. Per seat, so that a seat that signs without end fills its own share only,
/// and what the other seats send is still taken and dated (issue 53: no seat spends
/// another's share). The seat that fills its share cannot move on: its envelopes past it
/// are never dated, and a game with time terms is lost by it on time.
fn within_places(
    r: &Relayed,
    places: &Places,
    valid: Vec<Signed>,
) -> Result<Vec<Signed>, PeerRefusal> {
    let share = places.seat_share(r.terms().seat_count());
    let mut held: BTreeMap<Seat, u64> = BTreeMap::new();
    for (chain, places) in r.held() {
        *held.entry(chain.seat).or_default() += places.len() as u64;
    }
    let total = valid.len();
    let mut fits = Vec::with_capacity(total);
    for s in valid {
        let at = s.at();
        // A place held already (the same envelope, or its twin kept as evidence) and a
        // private log's envelope (kept by a witness as a deposit, not here) take none.
        let new = at.chain.log.is_public()
            && !r
                .held()
                .get(&at.chain)
                .is_some_and(|m| m.contains_key(&at.seq));
        if new {
            let n = held.entry(at.chain.seat).or_default();
            if *n >= share {
                continue;
            }
            *n += 1;
        }
        fits.push(s);
    }
    if fits.is_empty() && total > 0 {
        return Err(PeerRefusal::SeatFull(share));
    }
    Ok(fits)
}

#[cfg(test)]
#[path = "take_tests.rs"]
mod tests;
