//! Reaching peers: who is connected and from where, where each can be reached, and the
//! per-peer queue of requests with its in-flight limit. A little over 600 lines: each
//! change to the book (met, reached, failed, an invitation taken back) is written here,
//! beside the one write path the book's rows take. The peer book's changes are
//! written in one transaction at a time, whatever the number of peers that changed
//! (a flood of new peers is not a flood of fsyncs), and the rows of peers it forgets
//! are removed with them: the book is as bounded on disk as in memory.
//!
//! Invitations from strangers (peers the node shares no game with) are bounded by
//! `may_invite` — 8 waiting per stranger, 16 per address (the one a relaying mailbox
//! says), 64 in all, the network holding most yielding when full (`held.rs`), across
//! restarts — and refused altogether when the node takes none (`sealed node --only-known`).
//! Friends are recorded when a game is accepted or proposed (`accepted_game`), never
//! inferred at start (stores of before migrated once, `migrate_friends`). A proposal's
//! mailboxes are stood — kept connected, registered at — only once its game is accepted
//! or proposed, at addresses ending in the mailbox's own id (`mailbox_addrs`), never
//! for a referee's games. The book is read back bounded (`recall`: a store of before is
//! trimmed at start, a forgotten peer's row removed).
//!
//! Memory per peer: peers met (the latest [`MAX_MET`], 1024), unreachable ones only
//! while in the book, what connected peers run and where they are (dropped when they
//! leave). `pump` keeps at most 8 requests in flight per peer and merges queued pushes
//! into one `PushMany` (`merge_pushes`); the requests in flight are one map, [`Asked`]
//! by request. A peer that connects (`connected`) gets a round of `Heads` (`sync.rs`
//! `heads_for`).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use super::book::{self, Book};
use super::held::{Counted, Crowd, Holder, Room};
use super::io::{OutId, Output, Writes};
use super::seats::game_peers;
use super::views::{AddrView, PeerView, PeersView};
use super::{Core, Durable, GameId, PeerKey, WriteId};
use crate::message::{MAX_ITEMS, MAX_SYNC_MESSAGE, Request};
use crate::origin::Origin;
use crate::record::GameStatus;
use crate::refusal::PeerRefusal;
use sealed_protocol::ids::{ChainId, LogId};

/// Requests to one peer that may await an answer at once.
const MAX_IN_FLIGHT: usize = 8;

/// Peers kept as met since the start (the latest).
pub const MAX_MET: usize = 1024;

/// Invitations all strangers who came from one address may have waiting here.
const STRANGERS_PER_ORIGIN: usize = 16;

/// The setting that says the friends of a store of before were recorded.
const FRIENDS_MIGRATED: &str = "migrated/friends";

/// Envelopes a request carries, as (chain, seq) places.
pub(super) type Places = Vec<(ChainId, u64)>;

/// What the core knows of its peers.
#[derive(Default)]
pub(super) struct Peers {
    /// Where each peer was seen and reached (`book.rs`).
    pub(super) book: Book,
    /// Peers whose last dial failed, with why, until a connection opens.
    pub(super) unreachable: BTreeMap<PeerKey, String>,
    pub(super) connected: HashSet<PeerKey>,
    /// Peers met since the start, the latest [`MAX_MET`], in the order met.
    pub(super) met: BTreeSet<PeerKey>,
    met_order: VecDeque<PeerKey>,
    /// Where each connected peer's connection comes from.
    pub(super) origins: HashMap<PeerKey, Origin>,
    /// Book entries changed since last written; rows to remove.
    dirty: BTreeSet<PeerKey>,
    gone: BTreeSet<PeerKey>,
    /// The book's write in flight, with what it carries.
    book_write: Option<(WriteId, Vec<PeerKey>, Vec<PeerKey>)>,
    /// Requests waiting for room, per peer.
    queue: HashMap<PeerKey, VecDeque<Request>>,
    /// Requests awaiting an answer, per peer.
    in_flight: HashMap<PeerKey, usize>,
    /// Requests awaiting an answer: to whom, and what the answer settles. One map, so
    /// an answer or a failure clears all that was kept for its request at once.
    pending: HashMap<OutId, (PeerKey, Asked)>,
    next_out: OutId,
    /// Connected peers that did not take an offer saying where its proposal came from
    /// (nodes of before it): they are sent plain offers until they disconnect.
    pub(super) plain_offers: HashSet<PeerKey>,
}

/// What the answer to a request in flight settles.
pub(super) enum Asked {
    /// Nothing but room for the next request.
    Nothing,
    /// An offer: its game and the places of what it carries, which an answer
    /// acknowledges (`delivery.rs`).
    Offer(GameId, Places),
    /// An offer saying where its proposal came from (a mailbox's to a seat): as
    /// `Offer`, and if it fails the peer gets a plain one.
    OfferFrom(GameId, Places),
    /// A push: the places it carries per game; once the peer says they are durable
    /// there, `sealed move` can say the move was delivered.
    Push(Vec<(GameId, Places)>),
    /// A heads round, with the games it named: a game the answer does not call unknown
    /// is one the peer holds, however it came to it (from another seat's offer, say),
    /// which is all `sealed new` needs to call an invitation delivered.
    Heads(Vec<GameId>),
    /// A game's witness asked for its ledgers (`accuse.rs`).
    Ledgers(GameId),
    /// Deposits left with a game's witness (`stamps.rs`).
    Deposit(GameId),
    /// Deposits fetched from a game's witness (`stamps.rs`).
    Deposits(GameId),
    /// A pull: the game whose envelopes the answer carries (a version 2 envelope does
    /// not name its game, spec/PROTOCOL.md §1.6).
    Pull(GameId),
}

impl Core {
    /// Queues a request to a connected peer (otherwise dials it: the heads exchanged on
    /// connection catch up) and sends what the in-flight limit allows.
    pub(super) fn request(&mut self, peer: PeerKey, req: Request) {
        if self.peers.connected.contains(&peer) {
            self.peers.queue.entry(peer).or_default().push_back(req);
            self.pump(peer);
        } else {
            self.dial(peer);
        }
    }

    /// Sends queued requests to `peer` while fewer than [`MAX_IN_FLIGHT`] await an
    /// answer. Every push waiting in the queue leaves in one `PushMany`: a node playing
    /// hundreds of games at once would otherwise open a stream per move and hit the
    /// muxer's stream limit, which drops requests.
    fn pump(&mut self, peer: PeerKey) {
        loop {
            let in_flight = self.peers.in_flight.get(&peer).copied().unwrap_or(0);
            if in_flight >= MAX_IN_FLIGHT {
                return;
            }
            let Some(queue) = self.peers.queue.get_mut(&peer) else {
                return;
            };
            let Some(first) = queue.pop_front() else {
                self.peers.queue.remove(&peer);
                return;
            };
            let req = match first {
                Request::Push { game, envelopes } => merge_pushes(queue, game, envelopes),
                other => other,
            };
            let id = self.peers.next_out.take_next();
            let places = crate::message::places;
            let asked = match &req {
                Request::Offer {
                    proposal,
                    envelopes,
                } => match crate::message::proposal_game(proposal) {
                    Some(game) => Asked::Offer(game, places(envelopes)),
                    None => Asked::Nothing,
                },
                Request::OfferFrom {
                    proposal,
                    envelopes,
                    ..
                } => match crate::message::proposal_game(proposal) {
                    Some(game) => Asked::OfferFrom(game, places(envelopes)),
                    None => Asked::Nothing,
                },
                Request::Pull { game, .. } => Asked::Pull(*game),
                Request::Push { game, envelopes } => Asked::Push(vec![(*game, places(envelopes))]),
                Request::PushMany { games } => {
                    Asked::Push(games.iter().map(|(g, e)| (*g, places(e))).collect())
                }
                Request::Witness { game } => Asked::Ledgers(*game),
                Request::Deposit { game, .. } => Asked::Deposit(*game),
                Request::Deposits { game, .. } => Asked::Deposits(*game),
                Request::Heads { games } => Asked::Heads(games.iter().map(|(g, _)| *g).collect()),
                _ => Asked::Nothing,
            };
            self.peers.pending.insert(id, (peer, asked));
            *self.peers.in_flight.entry(peer).or_default() += 1;
            self.out.push_back(Output::Send { peer, id, req });
        }
    }

    /// An answer (or a failure) to one of our requests: room for the next one. Returns
    /// the peer it went to and what its answer settles.
    pub(super) fn room(&mut self, id: OutId) -> Option<(PeerKey, Asked)> {
        let (peer, asked) = self.peers.pending.remove(&id)?;
        if let Some(n) = self.peers.in_flight.get_mut(&peer) {
            *n = n.saturating_sub(1);
        }
        self.pump(peer);
        Some((peer, asked))
    }

    /// Learns an address of a peer (seen now), and keeps the peer book's entry.
    pub(super) fn learn(&mut self, peer: PeerKey, addr: String) {
        self.learn_at(peer, addr, self.now);
    }

    /// Learns an address of a peer seen at `at`.
    pub(super) fn learn_at(&mut self, peer: PeerKey, addr: String, at: u64) {
        if self.peers.book.saw(peer, &addr, at) == book::Changed::Yes {
            self.peers.dirty.insert(peer);
        }
    }

    /// Writes what the book changed, if no write of it is in flight: one write at a
    /// time, so a flood of changes costs one fsync per write, never one per change.
    pub(super) fn flush_book(&mut self) {
        for g in self.peers.book.take_evicted() {
            self.peers.dirty.remove(&g);
            self.peers.unreachable.remove(&g);
            self.peers.gone.insert(g);
        }
        if self.peers.book_write.is_some()
            || self.store_health.failed()
            || (self.peers.dirty.is_empty() && self.peers.gone.is_empty())
        {
            return;
        }
        let dirty: Vec<PeerKey> = std::mem::take(&mut self.peers.dirty).into_iter().collect();
        let gone: Vec<PeerKey> = std::mem::take(&mut self.peers.gone).into_iter().collect();
        let mut writes = Writes::default();
        for p in &dirty {
            match self.peers.book.get(p) {
                Some(e) => writes.meta.push((book::key_of(p), e.encode())),
                None => writes.forget.push(book::key_of(p)),
            }
        }
        writes.forget.extend(gone.iter().map(book::key_of));
        let write = self.write_writes(writes);
        self.peers.book_write = Some((write, dirty, gone));
    }

    /// A write finished: if it was the book's, the next may go; what a failed one
    /// carried is written again once the store works. Whether it was the book's.
    pub(super) fn book_written(&mut self, write: WriteId, ok: bool) -> bool {
        match self.peers.book_write.take() {
            Some((w, dirty, gone)) if w == write => {
                if !ok {
                    self.peers.dirty.extend(dirty);
                    self.peers.gone.extend(gone);
                }
                true
            }
            other => {
                self.peers.book_write = other;
                false
            }
        }
    }

    /// Learns an address in memory; the setting to store if the entry changed.
    pub(super) fn remember(&mut self, peer: PeerKey, addr: String) -> Option<(String, Vec<u8>)> {
        let changed = self.peers.book.saw(peer, &addr, self.now);
        self.entry_to_write(peer, changed)
    }

    /// Marks a mailbox or rendezvous point to stay connected to; the setting to store if
    /// that is new.
    pub(super) fn stand(&mut self, peer: PeerKey) -> Option<(String, Vec<u8>)> {
        let changed = self.peers.book.stand(peer);
        self.entry_to_write(peer, changed)
    }

    /// Marks a peer this node shares a game with; the setting to store if that is new.
    pub(super) fn befriend(&mut self, peer: PeerKey) -> Option<(String, Vec<u8>)> {
        let changed = self.peers.book.befriend(peer);
        self.entry_to_write(peer, changed)
    }

    /// A game this node's player accepted: its other seats become friends, and its
    /// mailboxes are kept connected at the addresses its proposal gives them — from now
    /// on, never on an invitation alone. A referee accepts every game that seats it:
    /// that makes nobody a friend and keeps no mailbox connected; it only learns where
    /// the game's witness is, whose stamps its duty waits for. Addresses from the
    /// proposal must name their node's own peer id, and be global unless the invitation
    /// came from a non-global address (as introductions, `sync.rs`).
    pub(super) fn accepted_game(&mut self, id: &GameId) {
        let Some((terms, created, local)) = self.games.played(id).map(|p| {
            (
                p.table().session().terms().clone(),
                p.record().created,
                p.came_from_local(),
            )
        }) else {
            return;
        };
        let me = self.key();
        if super::seats::referees(&terms, &me) {
            if let Some(w) = terms.witness() {
                let key = PeerKey::from(w.key);
                for a in w.addrs.iter().filter(|a| allowed(a, &key, local)) {
                    self.learn_at(key, a.clone(), created);
                }
            }
            return;
        }
        for seat in &terms.proposal().seats {
            let key = PeerKey::from(seat.key);
            if key != me && self.peers.book.befriend(key) == book::Changed::Yes {
                self.peers.dirty.insert(key);
            }
        }
        let _ = self.mailbox_addrs(&terms, created, local);
        self.peers.dirty.extend(crate::seats::mailbox_keys(&terms));
    }

    /// Whether an invitation from `proposer` may be taken now: always from a peer this
    /// node shares a game with; from anyone else only if the node takes strangers'
    /// invitations, and then only while that stranger has fewer than
    /// [`super::STRANGER_OPEN`] invitations waiting here and all strangers together fewer
    /// than [`super::STRANGERS_OPEN`]: a public mailbox must not become a spam channel,
    /// and keys cost nothing. An invitation is counted at the address it came from
    /// (`holder`: for one relayed by a mailbox, the address the mailbox says, `held.rs`),
    /// [`STRANGERS_PER_ORIGIN`] per address; when all strangers' are waiting, one from a
    /// network holding fewer than the network holding most takes the place of that
    /// network's oldest (`Room::Evict`: declined). A refused invitation is offered again
    /// by the repair round once there is room.
    pub(super) fn may_invite(
        &mut self,
        proposer: &PeerKey,
        holder: Option<&Holder>,
    ) -> Result<Room, PeerRefusal> {
        if self.vouched(proposer) {
            return Ok(Room::Free);
        }
        if !self.cfg.strangers {
            return Err(PeerRefusal::OnlyFriends);
        }
        let group = holder.map_or("", |h| h.group.as_str());
        let (mine, here, room) = self.with_invited(|c| {
            (
                c.by_proposer.get(proposer).copied().unwrap_or(0),
                holder.map_or(0, |h| c.of_key(&h.key)),
                c.room(super::STRANGERS_OPEN, group),
            )
        });
        if mine >= super::STRANGER_OPEN {
            return Err(PeerRefusal::InvitationsFromPeer(mine));
        }
        if here >= STRANGERS_PER_ORIGIN {
            return Err(PeerRefusal::InvitationsFromAddress);
        }
        match room {
            Room::Full => Err(PeerRefusal::InvitationsFromStrangers),
            room => Ok(room),
        }
    }

    /// `f` of the strangers' invitations waiting here summed up ([`Crowd`], kept while no
    /// slot changes: `game/mod.rs` `Games::kept_sum`).
    fn with_invited<T>(&self, f: impl FnOnce(&Crowd) -> T) -> T {
        let sum = || {
            let mut waiting: Vec<(Counted, Option<PeerKey>)> = vec![];
            for (id, p) in self.games.all_played() {
                if p.record().status != GameStatus::Invited {
                    continue;
                }
                let Some(from) = super::seats::proposer(p.table().session().terms()) else {
                    continue;
                };
                if self.vouched(&from) {
                    continue;
                }
                let counted = Counted {
                    id: *id,
                    holder: p.holder(),
                    taken: p.record().created,
                    // An invitation being written is declined once it is durable.
                    evictable: self.games.slot(id).is_some_and(|s| s.idle()),
                };
                waiting.push((counted, Some(from)));
            }
            Crowd::of(waiting)
        };
        self.games.kept_sum(&self.games.invited, sum, f)
    }

    /// After this node's player took back an invitation: each invited peer's addresses
    /// that never worked go from the book, with the error of the last dial to them,
    /// and it stays a friend only if another game names it.
    pub(super) fn forget_invitation(&mut self, id: &GameId) {
        let me = self.key();
        let Some(terms) = self.games.terms(id).cloned() else {
            return;
        };
        for peer in super::seats::game_peers(&terms, &me) {
            if super::seats::is_mailbox(&terms, &peer) {
                continue;
            }
            let other_game = self.games.slots().any(|(g, _)| {
                g != id
                    && self
                        .games
                        .terms(g)
                        .is_some_and(|t| t.seat_of(peer.as_bytes()).is_some())
            });
            self.peers.unreachable.remove(&peer);
            if self.peers.book.forget_unproven(peer, other_game) == book::Changed::Yes {
                self.peers.dirty.insert(peer);
            }
        }
    }

    /// A dial reached `peer` at `addr`.
    fn reached(&mut self, peer: PeerKey, addr: &str) {
        if self.peers.book.worked(peer, addr, self.now) == book::Changed::Yes {
            self.peers.dirty.insert(peer);
        }
    }

    /// Dials to `peer` at these addresses failed (with why, for `sealed games`).
    pub(super) fn dial_failed(&mut self, peer: PeerKey, addrs: Vec<String>, why: String) {
        for a in &addrs {
            if self.peers.book.failed(peer, a, self.now) == book::Changed::Yes {
                self.peers.dirty.insert(peer);
            }
        }
        // Only for a peer the book keeps (the core dials no other): bounded as it is.
        if !self.peers.connected.contains(&peer) && self.peers.book.get(&peer).is_some() {
            self.peers.unreachable.insert(peer, why);
        }
    }

    fn entry_to_write(&self, peer: PeerKey, changed: book::Changed) -> Option<(String, Vec<u8>)> {
        if changed == book::Changed::No {
            return None;
        }
        let entry = self.peers.book.get(&peer)?;
        Some((book::key_of(&peer), entry.encode()))
    }

    /// The peer book from the store (bounded as it is in memory: rows past the bound
    /// are removed); for a peer of a game that has no entry yet, the addresses a node of
    /// before kept; the mailboxes of the games this node accepted or proposed, kept
    /// connected. Friends are read from the book, never inferred from the games (an
    /// invitation is not a friendship); a store of before is migrated once.
    pub(super) fn recall(&mut self, store: &dyn Durable) {
        if let Ok(entries) = store.metas(book::PREFIX) {
            for (key, value) in entries {
                let Some(peer) = key
                    .strip_prefix(book::PREFIX)
                    .and_then(|h| hex::decode(h).ok())
                    .and_then(|k| <PeerKey>::try_from(k).ok())
                else {
                    continue;
                };
                self.peers.book.load(peer, book::Entry::decode(&value));
            }
        }
        self.migrate_friends(store);
        self.peers.book.trim(self.now);
        let me = self.key();
        let terms: Vec<_> = self
            .games
            .all_played()
            .map(|(_, g)| g)
            .filter(|p| p.accepted() && !super::seats::referees(p.table().session().terms(), &me))
            .map(|p| (p.table().session().terms().clone(), p.record().created))
            .collect();
        for (t, created) in &terms {
            for peer in game_peers(t, &me) {
                if self.peers.book.get(&peer).is_some() {
                    continue;
                }
                if let Ok(Some(bytes)) = store.meta(&book::old_key_of(&peer)) {
                    self.peers.book.load(peer, book::Entry::decode(&bytes));
                }
            }
            // The addresses the game was accepted with are in the book already; a
            // non-global one is not taken again from the proposal alone.
            for (key, value) in self.mailbox_addrs(t, *created, false) {
                self.unsaved.insert(key, value);
            }
        }
        self.flush_book();
    }

    /// Once per store: the other seats of every game this node proposed or accepted
    /// (not as a referee, which accepts everything) are friends. Nodes of before
    /// inferred them at every start from every game, invitations included.
    fn migrate_friends(&mut self, store: &dyn Durable) {
        if !matches!(store.meta(FRIENDS_MIGRATED), Ok(None)) {
            return;
        }
        let me = self.key();
        if let Ok(rows) = store.game_rows() {
            for (_, row) in rows {
                let Ok(g) = row else { continue };
                let Some(seat) = g.seat else { continue };
                let Ok(t) = sealed_protocol::proposal::Terms::parse(&g.terms) else {
                    continue;
                };
                // Taken up as `Played::taken_up` reads it: proposed, accepted, or over
                // with an envelope of this seat's (an invitation that ended before any
                // answer, by its proposer's fault or withdrawal, was not).
                let taken_up = match g.status {
                    GameStatus::Proposed | GameStatus::Active => true,
                    GameStatus::Finished => {
                        t.proposal().proposer.0 == seat
                            || store
                                .chain_envelopes(&g.id, &mut |log, s| {
                                    (log == LogId::PUBLIC.0 && s == seat).then_some(0)
                                })
                                .is_ok_and(|e| !e.is_empty())
                    }
                    _ => false,
                };
                if !taken_up || super::seats::referees(&t, &me) {
                    continue;
                }
                for seat in &t.proposal().seats {
                    let key = PeerKey::from(seat.key);
                    if key != me && self.peers.book.befriend(key) == book::Changed::Yes {
                        self.peers.dirty.insert(key);
                    }
                }
            }
        }
        self.unsaved.insert(FRIENDS_MIGRATED.into(), b"1".to_vec());
    }

    /// The mailboxes a proposal names: their addresses seen when the game was made, and
    /// each kept connected from now on (a second game through it needs no `dial`). The
    /// settings to store.
    pub(super) fn mailbox_addrs(
        &mut self,
        terms: &sealed_protocol::proposal::Terms,
        at: u64,
        local: bool,
    ) -> Vec<(String, Vec<u8>)> {
        let mut out = BTreeMap::new();
        for m in &terms.proposal().mailboxes {
            let key = PeerKey::from(m.key);
            if self.peers.book.get(&key).is_none_or(|e| e.addrs.is_empty()) {
                // Only an address that names the mailbox itself: a proposal cannot make
                // this node dial someone else under a mailbox's name.
                for a in m.addrs.iter().filter(|a| allowed(a, &key, local)) {
                    let changed = self.peers.book.saw(key, a, at);
                    out.extend(self.entry_to_write(key, changed));
                }
            }
            out.extend(self.stand(key));
        }
        out.into_iter().collect()
    }

    /// What each peer is to this node's games in memory or asleep: its witness or a
    /// mailbox (a witness is a mailbox of its game too: named once, as the witness).
    pub(super) fn helper_roles(&self) -> BTreeMap<PeerKey, BTreeSet<&'static str>> {
        let mut roles: BTreeMap<PeerKey, BTreeSet<&'static str>> = BTreeMap::new();
        let mut note = |mailboxes: &mut dyn Iterator<Item = PeerKey>, witness: Option<PeerKey>| {
            for m in mailboxes {
                let role = if Some(m) == witness {
                    "witness"
                } else {
                    "mailbox"
                };
                roles.entry(m).or_default().insert(role);
            }
            if let Some(w) = witness {
                roles.entry(w).or_default().insert("witness");
            }
        };
        for (_, p) in self.games.all_played() {
            let proposal = p.table().session().terms().proposal();
            let witness = proposal.witness.as_ref().map(|w| PeerKey::from(w.key));
            note(
                &mut proposal.mailboxes.iter().map(|m| PeerKey::from(m.key)),
                witness,
            );
        }
        for (_, a) in self.games.all_asleep() {
            note(&mut a.mailboxes.iter().copied(), a.witness);
        }
        roles
    }

    /// The peer book as `sealed peers` shows it.
    pub(super) fn peers_view(&self) -> PeersView {
        let mut roles = self.helper_roles();
        let peers = self.peers.book.iter().map(|(key, e)| PeerView {
            key: hex::encode(key),
            peer: None,
            connected: self.peers.connected.contains(key),
            standing: e.standing,
            roles: roles
                .remove(key)
                .into_iter()
                .flatten()
                .map(str::to_owned)
                .collect(),
            unreachable: self.peers.unreachable.get(key).cloned(),
            addrs: e
                .addrs
                .iter()
                .map(|a| AddrView {
                    addr: a.text.clone(),
                    seen_ms: a.seen,
                    worked_ms: a.worked,
                    failures: a.failures,
                })
                .collect(),
            agent: None,
            name: None,
            sync: None,
        });
        PeersView {
            now_ms: self.now,
            held: Some(self.cfg.lifetime),
            strangers: self.strangers_view(),
            refused: {
                let mut r: Vec<(String, u64)> =
                    self.refused.iter().map(|(k, n)| (k.clone(), *n)).collect();
                r.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                r
            },
            peers: peers.collect(),
        }
    }

    /// Asks the shell to reach a peer at every address the book holds, best first; with
    /// none, the shell looks the peer up at its rendezvous points.
    pub(super) fn dial(&mut self, peer: PeerKey) {
        let addrs = self.peers.book.dial_list(&peer);
        self.out.push_back(Output::Dial { peer, addrs });
    }

    /// A first connection to a peer: what we hold of every game we share, so that each
    /// side learns at once what it lacks (the peer does the same from its side).
    pub(super) fn connected(
        &mut self,
        peer: PeerKey,
        addr: Option<String>,
        origin: Option<Origin>,
        store: &dyn Durable,
    ) {
        self.reached_peer(&peer);
        if let Some(a) = addr {
            self.reached(peer, &a);
        }
        if let Some(o) = origin {
            self.peers.origins.insert(peer, o);
        }
        self.peers.unreachable.remove(&peer);
        if self.peers.met.insert(peer) {
            self.peers.met_order.push_back(peer);
            while self.peers.met_order.len() > MAX_MET {
                if let Some(old) = self.peers.met_order.pop_front() {
                    self.peers.met.remove(&old);
                }
            }
        }
        if self.peers.connected.insert(peer) {
            for games in self.heads_for(&peer) {
                self.request(peer, Request::Heads { games });
            }
            self.reintroduce(peer);
            // A finished game's last envelopes this peer never acknowledged itself.
            self.offer_owed(Some(peer), store);
            // As an arbiter's node: the rulings for the games it plays.
            self.send_rulings(&peer, store);
            // The last message of each computation it has not answered.
            self.resend_messages(Some(peer));
        }
    }

    /// The last connection to a peer closed: requests in flight fail on their own, and
    /// what is queued is repaired by the heads of the next connection.
    pub(super) fn disconnected(&mut self, peer: PeerKey) {
        self.peers.connected.remove(&peer);
        self.peers.queue.remove(&peer);
        self.peers.origins.remove(&peer);
        self.peers.plain_offers.remove(&peer);
    }

    /// Where a connected peer comes from, as the budgets count it.
    pub(super) fn origin_of(&self, peer: &PeerKey) -> Option<&Origin> {
        self.peers.origins.get(peer)
    }

    /// Offers a game to every peer of it (a new proposal, once durable).
    pub(super) fn offer_all(&mut self, id: GameId, store: &dyn Durable) {
        let Some(terms) = self.games.terms(&id).cloned() else {
            return;
        };
        for peer in game_peers(&terms, &self.key()) {
            self.offer(peer, id, store);
        }
    }
}

/// Whether an address a proposal gives for `key`'s node may be dialled: it ends in
/// that node's own peer id, and is global unless the proposal came from a non-global
/// address.
fn allowed(addr: &str, key: &PeerKey, local: bool) -> bool {
    crate::peer_id::names(addr, key.as_bytes()) && (local || crate::origin::is_global_text(addr))
}

/// Merges every push waiting in `queue` behind a first push into one request, up to
/// half the message cap; other requests keep their order.
fn merge_pushes(queue: &mut VecDeque<Request>, game: GameId, envelopes: Vec<Vec<u8>>) -> Request {
    let mut games: Vec<(GameId, Vec<Vec<u8>>)> = vec![(game, envelopes)];
    let mut size: usize = games[0].1.iter().map(Vec::len).sum();
    let mut items = games[0].1.len() + 1;
    let mut rest = VecDeque::new();
    while let Some(r) = queue.pop_front() {
        match r {
            Request::Push { game, envelopes }
                if size < MAX_SYNC_MESSAGE / 2 && items + envelopes.len() < MAX_ITEMS / 2 =>
            {
                items += envelopes.len() + 1;
                size += envelopes.iter().map(Vec::len).sum::<usize>();
                match games.iter_mut().find(|(g, _)| *g == game) {
                    Some((_, e)) => e.extend(envelopes),
                    None => games.push((game, envelopes)),
                }
            }
            other => rest.push_back(other),
        }
    }
    *queue = rest;
    match games.len() {
        1 => {
            let (game, envelopes) = games.remove(0);
            Request::Push { game, envelopes }
        }
        _ => Request::PushMany { games },
    }
}
