//! The sync protocol (spec/PROTOCOL.md §16): what a core answers to peers — always read
//! from the store — and what it asks of them; what it takes is `take.rs`. Every request
//! is charged by what it costs (`crate::limit`): one token, one more per envelope or
//! per 4 KiB it carries, per 64 heads entries, per 16 envelopes and per 4 KiB of them an
//! answer reads from the store, and a dormant or sleeping game's waking by its size.
//!
//! Up to 800 lines, over the ~600 of the style: what each request kind costs and how it
//! is answered are kept side by side, so that a new kind cannot be answered without
//! being priced; the answers that grew their own rules live in their own files
//! (`take.rs`, `witness.rs`, `rulings.rs`, `lookups.rs`).
//!
//! Also charged: each introduced address (`introduced`), an answer by the envelopes
//! it reads (`charge_answer`), and a witness's answer to `Deposits` by its bytes, a
//! token per KiB ([`answer_cost`]), paid before anything is read (`witness.rs`
//! `serve_deposits`). Answers and requests are split to stay under a message's
//! item cap (`heads_for`, `served`, `behind`; pushes are merged under it, `peers.rs`
//! `merge_pushes`). At most [`MAX_QUEUED_WRITES`] (256) writes wait: past it, requests
//! that would write are refused ("busy"). `Heads` claims are noted only from a seat or
//! a mailbox, and only of chains the game has (`behind`).
//!
//! What is served is read from the store's chain index (`Durable::chain_envelopes`), each
//! chain only to its audience (the session's `visible`; `served`). On every connect and
//! repair round a peer gets one `Heads` request of what this node holds of every unfinished
//! game they share (`heads_for`): the answer is what it lacks, and a game the peer never
//! heard of is offered with its proposal, so a mailbox offers a player his invitations as
//! soon as he connects. Only a game's seats and its mailboxes post to it (`lacking`,
//! `take.rs` `take_push`).
//!
//! Introductions: the proposer's `offer` and `introduce` send `Introduce` with the
//! other seats' addresses; `introduced` keeps and dials them only for a game accepted
//! or proposed and unsettled, from its seats or mailboxes, at a seat's own `/p2p` id, 4
//! per seat, and non-global addresses only from a peer on one; `reintroduce` sends them
//! again on every connect and repair round until the seats have met.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use sealed_protocol::ids::{ChainId, LogId, Seat};
use sealed_protocol::proposal::Terms;

use super::durable::Written;
use super::game::queue::Waiter;
use super::io::{InId, OutId, Output};
use super::peers::{Asked, Places};
use super::seats::{game_peers, is_mailbox, seat_of};
use super::{Core, Durable, GameId, PeerKey};
use crate::message::{GameHeads, MAX_INTRODUCED, MAX_ITEMS, MAX_SYNC_MESSAGE, Request, Response};
use crate::refusal::PeerRefusal;

/// Writes waiting for the store past which a request that would write is refused
/// ("busy"): the writer's queue is bounded by what the core lets into it.
pub const MAX_QUEUED_WRITES: usize = 256;
/// Bytes of writes waiting for the store (in flight, and the steps merged behind them)
/// past which a request that would write is refused ("busy"): 256 writes of deposits
/// of megabytes each would otherwise hold gigabytes until the disk caught up. A write
/// is held twice meanwhile (the core's step, the store's copy), so this is half of what
/// it costs at most, plus the one request that passes it (`node/src/memory.rs`).
pub const MAX_QUEUED_BYTES: u64 = 24 << 20;

/// Addresses of one seat an introduction may make this node keep and dial.
const MAX_INTRODUCED_PER_SEAT: usize = 4;

/// Most characters of a seat's refusal a mailbox keeps for the game's proposer.
const MAX_REFUSAL: usize = 256;

/// A peer's reason for refusing, as this node keeps it to show its player: at most
/// [`MAX_REFUSAL`] characters, each one a terminal would act on or that would hide or
/// reorder the line escaped (`sealed_protocol::text`): the words are the peer's.
fn kept_reason(why: &str) -> String {
    let mut out = String::new();
    for c in why.chars().take(MAX_REFUSAL) {
        if sealed_protocol::text::is_hidden(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// Heads entries one `Heads` request carries at most (the rest go in another).
pub(super) const HEADS_PER_REQUEST: usize = MAX_ITEMS / 2;

/// Bytes an answer reads from the store and sends per token, when the answer is bytes
/// the node only moves (a witness's deposits). A peer's refill (1,000 a second) then
/// makes the node read and send at most about 1 MiB a second for it, an address's 2 and
/// everyone's 10: a few percent of a core (a witness read a game's 63 MiB of deposits in
/// about 100 ms). A seat that lacks a computation's message (7 MiB, spec/GAMES.md
/// §5.15) fetches it with 7,168 tokens of its burst of 20,000.
pub(super) const ANSWER_BYTES_PER_TOKEN: f64 = 1024.0;

/// Bytes of envelopes an answer reads from the store per token (`charge_answer`): a
/// peer's refill then reads at most 4 MiB a second for it, everyone's 40; an honest
/// game's envelopes (about 1 KiB) cost a quarter of a token each this way.
pub(super) const ENVELOPE_BYTES_PER_TOKEN: f64 = 4096.0;

/// What an answer of `entries` items and `bytes` in all read from the store costs: a
/// token per [`ANSWER_BYTES_PER_TOKEN`], and one per 16 items as envelopes read are
/// (`charge_answer`).
pub(super) fn answer_cost(bytes: usize, entries: usize) -> f64 {
    bytes as f64 / ANSWER_BYTES_PER_TOKEN + entries as f64 / 16.0
}

impl Core {
    /// What a request costs in tokens, before it is served.
    fn cost(&self, req: &Request, store: &dyn Durable) -> f64 {
        let carried = |envelopes: &[Vec<u8>]| {
            envelopes.len() as f64 + envelopes.iter().map(Vec::len).sum::<usize>() as f64 / 4096.0
        };
        // Waking a game out of memory replays it: dormant, or asleep (`sleep.rs`).
        let dormant = |game: &GameId| {
            if self.games.dormant(game).is_some() || self.games.asleep(game).is_some() {
                store.envelope_count(game).unwrap_or(0) as f64 / 16.0
            } else {
                0.0
            }
        };
        1.0 + match req {
            Request::Push { game, envelopes } => carried(envelopes) + dormant(game),
            Request::Offer { envelopes, .. } | Request::OfferFrom { envelopes, .. } => {
                16.0 + carried(envelopes)
            }
            Request::PushMany { games } => games
                .iter()
                .map(|(g, e)| 1.0 + carried(e) + dormant(g))
                .sum(),
            Request::Heads { games } => games
                .iter()
                .map(|(_, h)| 1.0 / 16.0 + h.len() as f64 / 64.0)
                .sum(),
            Request::Pull { have, .. } => have.len() as f64 / 64.0,
            Request::Propose { .. } => 16.0,
            // A computation's message left alone is up to megabytes: charged by size too.
            Request::Deposit { game, deposits } => {
                let bytes: usize = deposits.iter().map(Vec::len).sum();
                deposits.len() as f64 / 4.0 + bytes as f64 / 65_536.0 + dormant(game)
            }
            // And its answer's bytes, before they are read (`witness.rs`).
            Request::Deposits { game, .. } => 1.0 + dormant(game),
            // A signature checked, as for an envelope.
            Request::Ruling { game, act } => 1.0 + act.len() as f64 / 4096.0 + dormant(game),
            Request::Witness { game } => 1.0 + dormant(game),
            Request::Introduce { addrs, .. } => addrs.len() as f64,
        }
    }

    /// Charges `peer` for what an answer read from the store: a token per 16 entries
    /// and one per [`ENVELOPE_BYTES_PER_TOKEN`] of their bytes (a `Pull` of a game of
    /// large envelopes reads megabytes for a few entries).
    pub(super) fn charge_answer(&mut self, peer: &PeerKey, entries: usize, bytes: usize) {
        let origin = self.peers.origins.get(peer).map(|o| o.key.clone());
        let cost = entries as f64 / 16.0 + bytes as f64 / ENVELOPE_BYTES_PER_TOKEN;
        self.budgets.charge(peer, origin.as_deref(), cost, self.now);
    }

    /// Gives `peer` back tokens spent on what its request did not cost after all.
    pub(super) fn give_back(&mut self, peer: &PeerKey, tokens: f64) {
        let origin = self.peers.origins.get(peer).map(|o| o.key.clone());
        self.budgets
            .give_back(peer, origin.as_deref(), tokens, self.now);
    }

    /// Spends `cost` of `peer`'s budgets; why not, if they are spent.
    pub(super) fn spend(&mut self, peer: &PeerKey, cost: f64) -> Result<(), PeerRefusal> {
        let origin = self.peers.origins.get(peer).map(|o| o.key.clone());
        self.budgets
            .spend(peer, origin.as_deref(), cost, self.now)
            .map_err(|spent| {
                let whose = spent.whose();
                tracing::debug!(peer = %peer.short(), "refused a request over {whose} rate limit");
                PeerRefusal::RateLimit(whose)
            })
    }

    /// Bytes of the writes waiting for the store: each in flight with the step merged
    /// behind it. A walk over the writes in flight (at most [`MAX_QUEUED_WRITES`]), not
    /// over the games.
    fn queued_bytes(&self) -> u64 {
        self.writes
            .values()
            .map(|w| match w {
                Written::Settings(writes) => writes.size(),
                Written::Game(id) => self.games.slot(id).map_or(0, |s| s.queued_bytes()),
            })
            .sum()
    }

    /// Answers a request from `peer` (or stages the answer behind the writes it makes).
    pub(super) fn serve(&mut self, peer: PeerKey, id: InId, req: Request, store: &dyn Durable) {
        let cost = self.cost(&req, store);
        if let Err(why) = self.spend(&peer, cost) {
            return self.respond(id, why.into());
        }
        let writes = matches!(
            req,
            Request::Propose { .. }
                | Request::Push { .. }
                | Request::PushMany { .. }
                | Request::Offer { .. }
                | Request::OfferFrom { .. }
                | Request::Deposit { .. }
        );
        if writes
            && (self.writes.len() >= MAX_QUEUED_WRITES || self.queued_bytes() >= MAX_QUEUED_BYTES)
        {
            return self.respond(id, PeerRefusal::Busy.into());
        }
        match req {
            Request::Propose { proposal } => {
                let w = Waiter::Peer(id);
                self.watch(w);
                match self.take_proposal(peer, &proposal, None, Some(w), store) {
                    Some(r) => {
                        self.abandon(w);
                        self.respond(id, r);
                    }
                    None => self.let_go(w),
                }
            }
            Request::Witness { game } => {
                // A relayed game over is dormant: woken (and charged) to be witnessed.
                let _ = self.wake(&game, store);
                let r = self.statements(&peer, game, store);
                self.respond(id, r);
            }
            Request::Deposit { game, deposits } => {
                let _ = self.wake(&game, store);
                self.serve_deposit(&peer, id, game, deposits, store)
            }
            Request::Deposits { game, from } => {
                let _ = self.wake(&game, store);
                let r = self.serve_deposits(&peer, game, from, store);
                self.respond(id, r);
            }
            Request::Ruling { game, act } => {
                let r = self.take_ruling(&peer, game, &act, store);
                self.respond(id, r);
            }
            // The shell reads the addresses and hands them in as `Input::Introduced`.
            Request::Introduce { .. } => self.respond(id, PeerRefusal::IntroductionHere.into()),
            Request::Push { game, envelopes } => {
                let w = Waiter::Peer(id);
                self.watch(w);
                match self.take_push(peer, game, envelopes, w, store) {
                    Ok(()) => self.let_go(w),
                    Err(why) => {
                        self.abandon(w);
                        self.respond(id, why.into());
                    }
                }
            }
            Request::PushMany { games } => {
                let w = Waiter::Peer(id);
                // The answer waits until every game's step is durable.
                self.hold(w, None);
                for (game, envelopes) in games {
                    // One game refused (an outsider's) does not stop the others.
                    let _ = self.take_push(peer, game, envelopes, w, store);
                }
                self.let_go(w);
            }
            Request::Pull { game, have } => {
                let resp = match self.lacking(&peer, &game, &have, store) {
                    Ok(envs) => {
                        let bytes = envs.iter().map(Vec::len).sum();
                        self.charge_answer(&peer, envs.len(), bytes);
                        Response::Envelopes(envs)
                    }
                    Err(why) => why.into(),
                };
                self.respond(id, resp);
            }
            Request::Heads { games } => {
                let resp = self.behind(&peer, games, store);
                if let Response::Behind { envelopes, .. } = &resp {
                    let n = envelopes.iter().map(|(_, e)| e.len()).sum();
                    let bytes = envelopes.iter().flat_map(|(_, e)| e).map(Vec::len).sum();
                    self.charge_answer(&peer, n, bytes);
                }
                self.respond(id, resp);
            }
            Request::Offer {
                proposal,
                envelopes,
            } => self.serve_offer(peer, id, proposal, envelopes, None, store),
            Request::OfferFrom {
                proposal,
                envelopes,
                origin,
            } => self.serve_offer(peer, id, proposal, envelopes, Some(origin), store),
        }
    }

    /// An offer: the proposal, then its envelopes; `said`, where a mailbox of the game
    /// says the proposal came from.
    fn serve_offer(
        &mut self,
        peer: PeerKey,
        id: InId,
        proposal: Vec<u8>,
        envelopes: Vec<Vec<u8>>,
        said: Option<String>,
        store: &dyn Durable,
    ) {
        let w = Waiter::Peer(id);
        // The answer waits for a new game's record and the envelopes: one step, or two
        // merged (the envelopes' wait behind the record's write).
        self.watch(w);
        if let Some(Response::Refused(why)) =
            self.take_proposal(peer, &proposal, said.as_deref(), Some(w), store)
        {
            self.abandon(w);
            return self.respond(id, Response::Refused(why));
        }
        let game = Terms::parse(&proposal).map(|t| t.game()).ok();
        self.take_envelopes(peer, game, envelopes, Some(w), store);
        self.let_go(w);
    }

    pub(super) fn respond(&mut self, id: InId, resp: Response) {
        if let Response::Refused(why) = &resp {
            self.note_refused(why);
        }
        self.out.push_back(Output::Respond { id, resp });
    }

    /// Answers `w` with a refusal once what else it waits for is done.
    pub(super) fn refuse_waiter(&mut self, w: Waiter, why: PeerRefusal) {
        if let Some(e) = self.waiting.get_mut(&w) {
            e.resp = Some(why.into());
        }
    }

    /// Per game of a peer's heads, what it lacks, and the games we do not know.
    fn behind(&mut self, peer: &PeerKey, games: Vec<GameHeads>, store: &dyn Durable) -> Response {
        let mut envelopes = vec![];
        let mut unknown = vec![];
        let mut bytes = 0;
        let mut items = 0;
        for (game, have) in games {
            if self.games.aside(&game).is_some() {
                // Known, but nothing is served until it runs again.
                continue;
            }
            let forgotten = self.cfg.windows.forget_index && self.games.dormant(&game).is_some();
            if !self.games.knows(&game) || forgotten {
                // An invitation declined here and dropped: its decline, not "unknown"
                // (its proposer would offer it again, `held.rs`).
                let declined = self.kept_decline(&game, store);
                if declined.is_empty() {
                    unknown.push(game);
                } else {
                    bytes += declined.iter().map(Vec::len).sum::<usize>();
                    items += declined.len() + 1;
                    envelopes.push((game, declined));
                }
                continue;
            }
            // A game relayed here that a seat refused: its proposer is asked to offer it
            // again, and the answer says why (`take.rs` `known_proposal`).
            if let Some(r) = self.games.relayed(&game)
                && r.refused().is_some()
                && super::seats::proposer(r.terms()).as_ref() == Some(peer)
            {
                unknown.push(game);
                continue;
            }
            // What a seat (or mailbox) says it holds, of the chains the game has: an
            // outsider's claims, or claims about chains that do not exist, are not
            // kept.
            if let Some(p) = self.games.played_mut(&game) {
                let terms = p.table().session().terms();
                if seat_of(terms, peer).is_some() || is_mailbox(terms, peer) {
                    let chains: BTreeSet<ChainId> = p
                        .table()
                        .session()
                        .envelopes()
                        .counts()
                        .into_iter()
                        .map(|(c, _)| c)
                        .collect();
                    p.hear(
                        *peer,
                        have.iter().filter(|(c, _)| chains.contains(c)).copied(),
                    );
                }
            }
            if let Some(a) = self.games.asleep_mut(&game)
                && a.reader(peer).is_some()
            {
                a.said(*peer, &have);
            }
            // Half the message's caps: the rest comes in the next round.
            if bytes > MAX_SYNC_MESSAGE / 2 || items > MAX_ITEMS / 2 {
                break;
            }
            if let Ok(envs) = self.lacking(peer, &game, &have, store)
                && !envs.is_empty()
            {
                bytes += envs.iter().map(Vec::len).sum::<usize>();
                items += envs.len() + 1;
                envelopes.push((game, envs));
            }
        }
        Response::Behind { envelopes, unknown }
    }

    /// An answer to one of our requests, or its failure.
    pub(super) fn answered(&mut self, id: OutId, resp: Option<Response>, store: &dyn Durable) {
        let Some((peer, asked)) = self.room(id) else {
            return;
        };
        // An offer that said where its proposal came from, not taken at all: a node of
        // before it, which gets plain offers from now on (and this one again now).
        if let (Asked::OfferFrom(game, _), None) = (&asked, &resp) {
            self.peers.plain_offers.insert(peer);
            return self.offer(peer, *game, store);
        }
        let asked = match asked {
            Asked::OfferFrom(game, places) => Asked::Offer(game, places),
            other => other,
        };
        if let Asked::Offer(game, _) = &asked {
            self.owed_answered(peer, *game, matches!(resp, Some(Response::Ok { .. })));
            // A mailbox keeps why a seat refused the game it relays by its bounds on
            // strangers' invitations (not a passing refusal), for its proposer.
            if let Some(r) = self.games.relayed_mut(game)
                && seat_of(r.terms(), &peer).is_some_and(|s| s != r.terms().proposal().proposer)
            {
                match &resp {
                    Some(Response::Refused(why)) if PeerRefusal::refuses_invitation(why) => {
                        r.set_refused(Some(why.chars().take(MAX_REFUSAL).collect()));
                    }
                    Some(Response::Ok { .. }) => r.set_refused(None),
                    _ => {}
                }
            }
        }
        match resp {
            // The envelopes a pull asked for: of the game it named.
            Some(Response::Envelopes(envs)) => {
                if let Asked::Pull(game) = &asked {
                    self.take_envelopes(peer, Some(*game), envs, None, store);
                }
            }
            Some(Response::Behind { envelopes, unknown }) => {
                // The peer holds every game it did not call unknown: an invitation it
                // learned from another seat first is delivered all the same.
                let named = match &asked {
                    Asked::Heads(games) => &games[..],
                    _ => &[],
                };
                for game in named.iter().filter(|g| !unknown.contains(g)) {
                    if let Some(p) = self.games.played_mut(game) {
                        p.hear(peer, []);
                    }
                }
                for (game, envs) in envelopes {
                    self.take_envelopes(peer, Some(game), envs, None, store);
                }
                for game in unknown {
                    self.offer(peer, game, store);
                }
            }
            Some(Response::Statements(statements)) => match asked {
                Asked::Ledgers(game) => self.witnessed(game, statements, store),
                Asked::Deposit(game) => self.stamped(game, statements, store),
                _ => {}
            },
            Some(Response::Deposits { deposits, next }) => {
                if let Asked::Deposits(game) = asked {
                    self.fetched(game, deposits, next, store);
                }
            }
            Some(Response::Refused(why)) => {
                tracing::debug!(peer = %peer.short(), "request refused: {why}");
                if let Asked::Push(pushed) = &asked {
                    self.witness_took(peer, pushed, Some(&why));
                }
                // Said by `sealed games` while the invitation is not delivered.
                if let Asked::Offer(game, _) = asked
                    && let Some(slot) = self.games.slot_mut(&game)
                {
                    slot.refuse_offer(kept_reason(&why));
                }
            }
            Some(Response::Ok { .. }) => match asked {
                Asked::Offer(game, places) => {
                    if let Some(slot) = self.games.slot_mut(&game) {
                        slot.offer_taken();
                    }
                    self.acknowledged(peer, game, &places, store);
                }
                Asked::Push(pushed) => {
                    self.witness_took(peer, &pushed, None);
                    for (game, places) in pushed {
                        self.acknowledged(peer, game, &places, store);
                    }
                }
                _ => {}
            },
            // Lost: the next heads round repairs what it carried.
            None => {}
        }
    }

    /// What the witness said of a push of this seat's envelopes: for each game of it
    /// that `peer` witnesses, the refusal is kept (shortened) until a push is taken.
    fn witness_took(&mut self, peer: PeerKey, pushed: &[(GameId, Places)], refused: Option<&str>) {
        for (game, _) in pushed {
            let witnessed = self
                .games
                .played(game)
                .and_then(|p| p.table().session().terms().witness())
                .is_some_and(|w| w.key == peer);
            if witnessed && let Some(slot) = self.games.slot_mut(game) {
                slot.witness_refused(refused.map(kept_reason));
            }
        }
    }

    /// Addresses of a game's other seats from a peer that knows them: charged like any
    /// request, and learned and dialled only for a game this node proposed or its
    /// player accepted and that is not settled, from one of its seats or mailboxes,
    /// only addresses that name a seat of it ([`MAX_INTRODUCED_PER_SEAT`] each), and a
    /// non-global address (a private network, loopback) only from a peer that itself
    /// came from one. An introduction of a game not accepted yet is dropped: the
    /// proposer sends it again on every round (`reintroduce`).
    pub(super) fn introduced(
        &mut self,
        from: PeerKey,
        id: InId,
        game: GameId,
        addrs: Vec<Option<(PeerKey, String)>>,
    ) {
        if let Err(why) = self.spend(&from, 1.0 + addrs.len() as f64) {
            return self.respond(id, why.into());
        }
        if addrs.len() > MAX_INTRODUCED {
            return self.respond(id, PeerRefusal::TooManyAddresses.into());
        }
        if let Some(a) = self.games.asleep(&game) {
            // Its seats met already, or (a refereed game nobody joined) the referee
            // learns of them only when they post to it (`sleep.rs`): nothing to learn.
            let r = match a.reader(&from) {
                Some(_) => Response::Ok { new: 0 },
                None => PeerRefusal::NotIntroducer.into(),
            };
            return self.respond(id, r);
        }
        let Some(p) = self.games.played(&game) else {
            return self.respond(id, PeerRefusal::UnknownGame.into());
        };
        let terms = p.table().session().terms().clone();
        if seat_of(&terms, &from).is_none() && !is_mailbox(&terms, &from) {
            return self.respond(id, PeerRefusal::NotIntroducer.into());
        }
        if !p.accepted() || p.settled() {
            return self.respond(id, Response::Ok { new: 0 });
        }
        let local = self.origin_of(&from).is_some_and(|o| !o.global);
        let me = self.key();
        let mut taken: HashMap<PeerKey, usize> = HashMap::new();
        for (peer, addr) in addrs.into_iter().flatten() {
            if peer == me || peer == from || seat_of(&terms, &peer).is_none() {
                continue;
            }
            if !local && !crate::origin::is_global_text(&addr) {
                continue;
            }
            let n = taken.entry(peer).or_default();
            if *n >= MAX_INTRODUCED_PER_SEAT {
                continue;
            }
            *n += 1;
            self.learn(peer, addr);
        }
        for peer in taken.into_keys() {
            if !self.peers.connected.contains(&peer) {
                self.dial(peer);
            }
        }
        self.respond(id, Response::Ok { new: 0 });
    }

    /// The envelopes of `game` that `peer`, holding `have`, lacks and may see; an error
    /// when the game is unknown or `peer` holds no seat of it and is not its mailbox.
    pub(super) fn lacking(
        &self,
        peer: &PeerKey,
        game: &GameId,
        have: &[(ChainId, u64)],
        store: &dyn Durable,
    ) -> Result<Vec<Vec<u8>>, PeerRefusal> {
        // A game asleep answers from what it kept, without waking (`sleep.rs`): every
        // round of every peer asks.
        let seat = match self.games.asleep(game) {
            Some(a) => a.reader(peer).ok_or(PeerRefusal::NotReader)?,
            None => {
                let terms = self.games.terms(game).ok_or(PeerRefusal::UnknownGame)?;
                let seat = seat_of(terms, peer);
                if seat.is_none() && !is_mailbox(terms, peer) {
                    return Err(PeerRefusal::NotReader);
                }
                seat
            }
        };
        self.served(game, seat, have, store)
    }

    /// What the store holds of `game` beyond `have`, chain by chain, that `audience` may
    /// see (§16.4): read from the store alone, so nothing that is not durable ever
    /// leaves. `None` for a mailbox, which sees the public chains only.
    pub(super) fn served(
        &self,
        game: &GameId,
        audience: Option<Seat>,
        have: &[(ChainId, u64)],
        store: &dyn Durable,
    ) -> Result<Vec<Vec<u8>>, PeerRefusal> {
        if self.cfg.windows.serve_from_memory
            && let (Some(p), Some(seat)) = (self.games.played(game), audience)
        {
            // Window open on purpose: served from the table, which may be ahead of the
            // store.
            return Ok(p.table().session().envelopes().after(have, seat));
        }
        let have: BTreeMap<ChainId, u64> = have.iter().copied().collect();
        let played = self.games.played(game);
        let asleep = self.games.asleep(game);
        // A dormant game is over: every log is public to its seats (§8.11.4).
        let dormant = self.games.dormant(game).is_some();
        let visible = |chain: ChainId| match (played, asleep, audience) {
            (Some(p), _, Some(seat)) => p.table().session().envelopes().visible(chain, seat),
            (None, Some(a), Some(seat)) => a.visible(chain, seat),
            (None, None, Some(_)) if dormant => true,
            _ => chain.log.is_public(),
        };
        let mut envs = store
            .chain_envelopes(game, &mut |log, seat| {
                let chain = ChainId {
                    log: LogId(log),
                    seat: Seat(seat),
                };
                visible(chain).then(|| have.get(&chain).copied().unwrap_or(0))
            })
            .map_err(PeerRefusal::StoreUnreadable)?;
        // At most half a message's caps: the rest comes in the next round.
        let mut bytes = 0;
        let fits = envs
            .iter()
            .take(MAX_ITEMS / 2)
            .take_while(|e| {
                bytes += e.len();
                bytes <= MAX_SYNC_MESSAGE / 2
            })
            .count();
        envs.truncate(fits.max(1));
        Ok(envs)
    }

    /// Offers `peer` a game it does not know, if it holds a seat of it or is its
    /// mailbox: the proposal and every envelope it may see, in one message, and the
    /// addresses of the game's other seats.
    pub(super) fn offer(&mut self, peer: PeerKey, game: GameId, store: &dyn Durable) {
        // The offer carries the proposal: a game asleep wakes for it.
        if self.rouse(&game, store).is_err() {
            return;
        }
        let Some(terms) = self.games.terms(&game).cloned() else {
            return;
        };
        let Ok(envelopes) = self.lacking(&peer, &game, &[], store) else {
            return;
        };
        let proposal = terms.bytes().to_vec();
        // A mailbox says to a seat where the game it holds for a stranger came from,
        // so that the seat counts the invitation there and not at the mailbox.
        let said = self
            .games
            .relayed(&game)
            .filter(|_| seat_of(&terms, &peer).is_some())
            .filter(|_| !self.peers.plain_offers.contains(&peer))
            .and_then(|r| r.holder())
            .map(|h| h.key.clone());
        let req = match said {
            Some(origin) => Request::OfferFrom {
                proposal,
                envelopes,
                origin,
            },
            None => Request::Offer {
                proposal,
                envelopes,
            },
        };
        self.request(peer, req);
        self.introduce(peer, game, &terms);
    }

    /// Tells `peer` where the game's other seats can be reached, as far as we know: in a
    /// game of three seats only the proposer knows every address, and the referee and
    /// the opponent must reach each other directly.
    pub(super) fn introduce(&mut self, peer: PeerKey, game: GameId, terms: &Terms) {
        let addrs: Vec<String> = game_peers(terms, &self.key())
            .into_iter()
            .filter(|p| *p != peer)
            .flat_map(|p| self.peers.book.dial_list(&p))
            .take(MAX_INTRODUCED)
            .collect();
        if !addrs.is_empty() {
            self.request(peer, Request::Introduce { game, addrs });
        }
    }

    /// Introductions again, to a connected peer, of every unsettled game of three or
    /// more seats it holds a seat of: one that was lost (or that the peer forgot in a
    /// restart) would leave two seats that never meet.
    pub(super) fn reintroduce(&mut self, peer: PeerKey) {
        let games: Vec<(GameId, Terms)> = self
            .games
            .all_played()
            .filter(|(_, p)| !p.settled() && p.table().session().terms().seat_count() > 2)
            .filter(|(_, p)| seat_of(p.table().session().terms(), &peer).is_some())
            .map(|(id, p)| (*id, p.table().session().terms().clone()))
            .collect();
        for (game, terms) in games {
            self.introduce(peer, game, &terms);
        }
    }
}
