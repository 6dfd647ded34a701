//! One player of the load: a libp2p client of its own key and connection (a node's
//! sync protocol, as `hostile_kit::client` speaks it), seated in a few Duel games that
//! name the public node as mailbox and witness. It plays them with the games' own
//! tables and bots, one move at a time at its pace, pushes each move to the public node,
//! asks the witness for its ledgers after each move (as a seat's node does,
//! `core/src/accuse.rs`), sends the node its heads every repair round (as a seat's node
//! does, `core/src/auto.rs`; `SEALED_LOAD_REPAIR_MS`, 5,000 by default, 0 for never), and
//! takes what the node relays from the other seat.
//!
//! It speaks the sync protocol as real nodes do since 2026-11-27, on one long-lived
//! stream each way (`/sealed/sync-stream/1`): its requests on a stream it opens, the
//! node's relays on streams the node opens and it accepts. `SEALED_LOAD_TRANSPORT=rr`
//! makes it speak request-response instead (`/sealed/sync/1`, a substream and its
//! negotiation per request), as the first figures were measured.
//!
//! It is honest: every envelope is one its table signed, every answer is read. What it
//! measures goes to the shared [`Tally`].
//!
//! About 660 lines, over the ~600 of the style: one player's two transports, its games
//! and its measurements are one event loop over one connection, and split apart each
//! would need the others' state.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{Barrier, mpsc, oneshot};

use futures::{AsyncReadExt as _, StreamExt};
use libp2p::PeerId;
use libp2p::request_response::{self, OutboundRequestId};
use libp2p::swarm::SwarmEvent;
use sealed_games::table::{self, Table};
use sealed_node::sync::{
    Frame, Request, Response, STREAM_PROTOCOL, SyncCodec, read_frame, write_request, write_response,
};
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::GameId;
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::Terms;
use sealed_protocol::session::{Action, Command};

use crate::hostile_kit::client::{Event, Stranger};

/// What every player adds to, read each second by the sampler.
#[derive(Default)]
pub struct Tally {
    /// Envelopes pushed to the public node (moves, and the first envelopes of games).
    pub pushed: AtomicU64,
    /// Envelopes of the other seat the public node relayed to a player, first arrivals.
    pub relayed: AtomicU64,
    /// Signed statements (ledgers) in the witness's answers.
    pub ledgers: AtomicU64,
    /// Answers that refused a request for good, by why.
    pub refused: Mutex<HashMap<String, u64>>,
    /// Pushes refused for a moment (the node busy, a budget spent) and sent again, as a
    /// seat's node does: the node sheds load this way rather than queue without bound.
    pub retried: Mutex<HashMap<String, u64>>,
    /// Requests that failed (no answer, a connection lost).
    pub failed: AtomicU64,
    /// Connections to the node and the players' own streams that ended while the run
    /// was on (not at its stop), by cause: an honest player should see none, and one
    /// that does is reached again (a new connection or stream) but waited for it.
    pub ended: Mutex<HashMap<String, u64>>,
    /// Relay latencies of this second, in µs: from the push of an envelope by one seat
    /// to its arrival at the other.
    pub latencies: Mutex<Vec<u32>>,
    /// When each envelope in flight was pushed, by its hash.
    pub in_flight: Mutex<HashMap<Hash, Instant>>,
    /// Games that ended (their table says so), counted once by each seat.
    pub over: AtomicU64,
    /// Players connected to the public node.
    pub connected: AtomicU64,
    /// Heads the players sent the node (their repair rounds).
    pub heads: AtomicU64,
}

impl Tally {
    fn refuse(&self, why: &str) {
        count(&self.refused, why);
    }
}

/// Counts a refusal by its reason without its figures, so that a table of reasons stays
/// short.
fn count(by_why: &Mutex<HashMap<String, u64>>, why: &str) {
    let key: String = why.chars().take_while(|c| !c.is_ascii_digit()).collect();
    *by_why.lock().expect("not poisoned").entry(key).or_default() += 1;
}

/// One game at this player's seat.
pub struct Seated {
    pub terms: Terms,
    /// This player proposes it (seat 0) rather than accepts it (seat 1).
    pub proposer: bool,
}

/// A seat's table and what the player knows of it.
struct Game {
    table: Box<dyn Table>,
    /// Moves made, for the bot's choices.
    moves: u64,
    done: bool,
}

/// How the players speak the sync protocol to the public node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// One long-lived stream each way (`/sealed/sync-stream/1`), as real nodes do.
    Stream,
    /// A substream and its negotiation per request (`/sealed/sync/1`).
    RequestResponse,
}

/// What every player of one load shares.
#[derive(Clone)]
pub struct Load {
    /// The public node's address.
    pub node: String,
    pub transport: Transport,
    /// How often a player moves.
    pub every: Duration,
    /// How often a player sends the node its heads, as a seat's node does each repair
    /// round (`core/src/auto.rs`); `None` for never.
    pub repair: Option<Duration>,
    /// Passed by every player once its proposals are taken.
    pub proposed: Arc<Barrier>,
    pub tally: Arc<Tally>,
    /// Set when the load is over.
    pub stop: Arc<AtomicBool>,
}

/// Runs one player until `stop`: connects from its own address, proposes or accepts its
/// games, then moves once every `every` in the game whose turn it is, round robin.
pub async fn run(mut s: Stranger, seed: [u8; 32], seated: Vec<Seated>, load: Load) {
    let Load {
        node,
        transport,
        every,
        repair,
        proposed,
        tally,
        stop,
    } = load;
    // The node's streams are accepted from the start: a node whose first stream to a
    // peer is refused speaks request-response to it for the whole connection.
    let (to_player, mut from_streams) = mpsc::unbounded_channel();
    let mut control = s.swarm.behaviour().stream.new_control();
    if transport == Transport::Stream {
        let incoming = control
            .accept(STREAM_PROTOCOL)
            .expect("one accept a player");
        tokio::spawn(serve(incoming, to_player.clone()));
    }
    let node = match connect(&mut s, &node).await {
        Ok(p) => p,
        Err(e) => {
            eprintln!("a player did not connect: {e}");
            tally.failed.fetch_add(1, Ordering::Relaxed);
            proposed.wait().await;
            return;
        }
    };
    tally.connected.fetch_add(1, Ordering::Relaxed);
    let mut p = Player {
        s,
        node,
        games: HashMap::new(),
        asked: HashMap::new(),
        tally,
        turn: 0,
        again: vec![],
        ours: None,
        control: None,
        to_player: to_player.clone(),
        next_id: 0,
        queued: Default::default(),
        reopen: false,
        stop: stop.clone(),
    };
    // The proposals first, each answered before its game's first envelopes are pushed
    // (a mailbox takes envelopes only of a game it holds).
    for g in &seated {
        if g.proposer {
            let bytes = g.terms.bytes().to_vec();
            p.ask_until_taken(Request::Propose { proposal: bytes })
                .await;
        }
    }
    proposed.wait().await;
    if transport == Transport::Stream {
        // Opened in a task: the swarm it needs is polled by the loop below.
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(ours(control.clone(), p.node, rx, to_player.clone()));
        p.ours = Some(tx);
        p.control = Some(control);
    }
    let now = sealed_node::shell::now_ms();
    for (i, g) in seated.into_iter().enumerate() {
        let mut entropy = [0u8; 32];
        entropy[..8].copy_from_slice(&(i as u64).to_le_bytes());
        entropy[8..16].copy_from_slice(&now.to_le_bytes());
        entropy[16..].copy_from_slice(&seed[..16]);
        let Ok(mut t) = table::open(
            g.terms.clone(),
            SecretKey::from_seed(&seed),
            "",
            entropy,
            now,
        ) else {
            eprintln!("a table did not open");
            continue;
        };
        if !g.proposer {
            // The invitee knows the terms from the harness, as it would from the
            // mailbox's offer: it accepts at once.
            let _ = t.session_mut().handle_command(Command::Accept, now);
        }
        let id = g.terms.game();
        p.games.insert(
            id,
            Game {
                table: t,
                moves: 0,
                done: false,
            },
        );
        p.flush(id);
    }
    let mut next = tokio::time::Instant::now() + every;
    // Each player's round begins at a moment of its own, as nodes started apart do.
    let round = repair.unwrap_or(Duration::MAX);
    let mut repair_at = tokio::time::Instant::now()
        + round
            .mul_f64(f64::from(seed[0]) / 256.0)
            .min(Duration::from_secs(3600));
    while !stop.load(Ordering::Relaxed) {
        tokio::select! {
            () = tokio::time::sleep_until(repair_at), if repair.is_some() => {
                repair_at += round;
                p.heads();
            }
            ev = p.s.swarm.select_next_some() => p.event(ev),
            Some(m) = from_streams.recv() => p.streamed(m),
            () = tokio::time::sleep_until(next) => {
                next += every;
                p.reopen();
                for req in std::mem::take(&mut p.again) {
                    p.send(req);
                }
                p.move_once();
            }
        }
    }
}

/// What the stream tasks hand the player.
enum Streamed {
    /// The answer to the request of this id on the player's stream.
    Answer(u64, Response),
    /// The player's stream ended (its connection closed, a write failed): what was
    /// outstanding on it is lost, and the next request opens a new one. Why, in words.
    Ended(String),
    /// A request of the node's on a stream it opened, with where its answer goes.
    Request(Request, oneshot::Sender<Response>),
}

/// The player's own stream to the node: each request written as it comes, each answer
/// read and handed over.
async fn ours(
    mut control: libp2p_stream::Control,
    node: PeerId,
    mut requests: mpsc::UnboundedReceiver<(u64, Request)>,
    to_player: mpsc::UnboundedSender<Streamed>,
) {
    let stream = match control.open_stream(node, STREAM_PROTOCOL).await {
        Ok(s) => s,
        Err(e) => {
            let _ = to_player.send(Streamed::Ended(format!("not opened: {e}")));
            return;
        }
    };
    let (mut read, mut write) = stream.split();
    let answers = to_player.clone();
    let reader = tokio::spawn(async move {
        let codec = SyncCodec::default();
        let why = loop {
            match read_frame(&mut read, &codec).await {
                Ok(Frame::Response(id, resp)) => {
                    if answers
                        .send(Streamed::Answer(id, resp.into_inner()))
                        .is_err()
                    {
                        return;
                    }
                }
                Ok(Frame::Request(..)) => break "a request on the player's stream".to_owned(),
                Err(e) => break format!("read: {e}"),
            }
        };
        let _ = answers.send(Streamed::Ended(why));
    });
    let mut why = "closed by the player".to_owned();
    while let Some((id, req)) = requests.recv().await {
        if let Err(e) = write_request(&mut write, id, &req).await {
            why = format!("write: {e}");
            break;
        }
    }
    // Ended by a write that failed, or by the player: told once, by the reader or here.
    reader.abort();
    let _ = to_player.send(Streamed::Ended(why));
}

/// The node's streams to the player: each request handed to the player, its answer
/// written back, in order on each stream.
async fn serve(
    mut incoming: libp2p_stream::IncomingStreams,
    to_player: mpsc::UnboundedSender<Streamed>,
) {
    while let Some((_, stream)) = incoming.next().await {
        let to_player = to_player.clone();
        tokio::spawn(async move {
            let (mut read, mut write) = stream.split();
            let codec = SyncCodec::default();
            while let Ok(Frame::Request(id, req)) = read_frame(&mut read, &codec).await {
                let (reply, answer) = oneshot::channel();
                if to_player
                    .send(Streamed::Request(req.into_inner(), reply))
                    .is_err()
                {
                    return;
                }
                let Ok(resp) = answer.await else { return };
                if write_response(&mut write, id, &resp).await.is_err() {
                    return;
                }
            }
        });
    }
}

/// Connects as a node dials: again after a failure, a little later each time up to
/// [`DIAL_EVERY_MOST`], for [`DIAL_FOR`] (a public node's door turns handshakes away
/// while it is full, as it is when a thousand players come at once; a node dials again
/// at each repair round and never gives up on a game's mailbox).
async fn connect(s: &mut Stranger, node: &str) -> Result<PeerId, String> {
    let mut last = String::new();
    let until = Instant::now() + DIAL_FOR;
    for attempt in 1u64.. {
        match s.connect(node).await {
            Ok(p) => return Ok(p),
            Err(e) => last = e,
        }
        if Instant::now() >= until {
            break;
        }
        let wait = Duration::from_millis(200 * attempt).min(DIAL_EVERY_MOST);
        tokio::time::sleep(wait).await;
    }
    Err(last)
}

/// How long a player keeps dialling the node before it gives up.
const DIAL_FOR: Duration = Duration::from_secs(60);

/// The longest wait between two dials.
const DIAL_EVERY_MOST: Duration = Duration::from_secs(2);

struct Player {
    s: Stranger,
    node: PeerId,
    games: HashMap<GameId, Game>,
    /// Requests in flight, by what they asked.
    asked: HashMap<Sent, Asked>,
    /// The player's stream to the node, if it speaks streams.
    ours: Option<mpsc::UnboundedSender<(u64, Request)>>,
    /// What opens its streams, if it speaks streams.
    control: Option<libp2p_stream::Control>,
    /// Where its stream tasks hand what they read.
    to_player: mpsc::UnboundedSender<Streamed>,
    /// The id of the next request on it.
    next_id: u64,
    /// Requests waiting for one of the [`IN_FLIGHT`] places on it.
    queued: std::collections::VecDeque<(Request, Asked)>,
    /// Its stream ended: a new one is opened at the next tick.
    reopen: bool,
    tally: Arc<Tally>,
    /// Where the round robin of moves stands.
    turn: usize,
    /// Pushes refused for a moment, sent again at the next tick.
    again: Vec<Request>,
    /// Set when the run stops: what ends after it is not counted in `ended`.
    stop: Arc<AtomicBool>,
}

/// Requests a player keeps in flight on its stream, the rest queued, as a node keeps
/// (`core/src/peers.rs` `MAX_IN_FLIGHT`): the node closes a stream that carries more
/// than its cap (`net.rs` `MAX_SYNC_STREAMS`).
const IN_FLIGHT: usize = 8;

/// A request in flight, by its carrier's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Sent {
    Substream(OutboundRequestId),
    Stream(u64),
}

/// What a request in flight asked, to read its answer.
enum Asked {
    /// A push, kept to be sent again if it is refused for a moment.
    Push(Request),
    Witness,
    /// The player's heads of its unfinished games, as a node's repair round sends.
    Heads,
}

impl Player {
    /// Asks until the answer is not a passing refusal (a budget spent), at most 30 s.
    async fn ask_until_taken(&mut self, req: Request) {
        let end = Instant::now() + Duration::from_secs(30);
        loop {
            match self.s.ask(self.node, req.clone()).await {
                Ok(Response::Refused(why))
                    if crate::hostile_kit::flood::passing(&why) && Instant::now() < end =>
                {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Ok(Response::Refused(why)) => {
                    self.tally.refuse(&why);
                    return;
                }
                Ok(_) => return,
                Err(_) => {
                    self.tally.failed.fetch_add(1, Ordering::Relaxed);
                    return;
                }
            }
        }
    }

    /// One move in the next game where this seat is to act (or owes a duty).
    fn move_once(&mut self) {
        let now = sealed_node::shell::now_ms();
        let mut ids: Vec<GameId> = self.games.keys().copied().collect();
        ids.sort();
        for k in 0..ids.len() {
            let id = ids[(self.turn + k) % ids.len()];
            let g = self.games.get_mut(&id).expect("listed");
            if g.done {
                continue;
            }
            let cmd = g.table.duty(now).or_else(|| {
                g.table
                    .turn()
                    .my_turn
                    .then(|| g.table.bot_action(pick(g.moves, &id)))
                    .flatten()
            });
            let Some(cmd) = cmd else { continue };
            g.moves += 1;
            if g.table.session_mut().handle_command(cmd, now).is_err() {
                continue;
            }
            self.turn = (self.turn + k + 1) % ids.len();
            if self.flush(id) {
                self.request(Request::Witness { game: id }, Asked::Witness);
            }
            return;
        }
    }

    /// Sends the node what the player holds of each unfinished game, as a seat's node
    /// does each repair round: the node answers with what the player lacks.
    fn heads(&mut self) {
        let mut games: Vec<(GameId, Vec<(sealed_protocol::ids::ChainId, u64)>)> = self
            .games
            .iter()
            .filter(|(_, g)| !g.done)
            .map(|(id, g)| (*id, g.table.session().envelopes().counts()))
            .collect();
        if games.is_empty() {
            return;
        }
        games.sort_by_key(|g| g.0);
        self.tally.heads.fetch_add(1, Ordering::Relaxed);
        self.request(Request::Heads { games }, Asked::Heads);
    }

    /// Pushes what the table of `id` has to send; whether it sent anything.
    fn flush(&mut self, id: GameId) -> bool {
        let Some(g) = self.games.get_mut(&id) else {
            return false;
        };
        let mut out = vec![];
        while let Some(a) = g.table.session_mut().poll_action() {
            match a {
                Action::Send { env, .. } => out.push(*env),
                Action::GameOver | Action::Complete => {
                    if !g.done {
                        g.done = true;
                        self.tally.over.fetch_add(1, Ordering::Relaxed);
                    }
                }
                // The player keeps nothing: a crash is not what this measures.
                Action::Persist(_) => {}
            }
        }
        if out.is_empty() {
            return false;
        }
        let at = Instant::now();
        {
            let mut flying = self.tally.in_flight.lock().expect("not poisoned");
            for e in &out {
                flying.insert(e.hash, at);
            }
        }
        self.tally
            .pushed
            .fetch_add(out.len() as u64, Ordering::Relaxed);
        self.send(Request::Push {
            game: id,
            envelopes: out.into_iter().map(|e| e.bytes).collect(),
        });
        true
    }

    /// Sends a push to the public node.
    fn send(&mut self, req: Request) {
        self.request(req.clone(), Asked::Push(req));
    }

    /// Sends a request on the player's stream (queued while [`IN_FLIGHT`] await their
    /// answers), or by request-response.
    fn request(&mut self, req: Request, asked: Asked) {
        if self.ours.is_some() || self.reopen {
            self.queued.push_back((req, asked));
            self.pump();
            return;
        }
        let r = self
            .s
            .swarm
            .behaviour_mut()
            .sync
            .send_request(&self.node, req.into());
        self.asked.insert(Sent::Substream(r), asked);
    }

    /// A new stream in place of one that ended.
    fn reopen(&mut self) {
        if !std::mem::take(&mut self.reopen) {
            return;
        }
        let Some(control) = self.control.clone() else {
            return;
        };
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(ours(control, self.node, rx, self.to_player.clone()));
        self.ours = Some(tx);
        self.pump();
    }

    /// Sends queued requests on the stream while it has places.
    fn pump(&mut self) {
        let Some(ours) = &self.ours else { return };
        let mut flying = self
            .asked
            .keys()
            .filter(|s| matches!(s, Sent::Stream(_)))
            .count();
        while flying < IN_FLIGHT {
            let Some((req, asked)) = self.queued.pop_front() else {
                return;
            };
            let id = self.next_id;
            self.next_id += 1;
            if ours.send((id, req)).is_err() {
                self.tally.failed.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            self.asked.insert(Sent::Stream(id), asked);
            flying += 1;
        }
    }

    /// An answer to a request of the player's, on either carrier.
    fn answered(&mut self, sent: Sent, response: Response) {
        let asked = self.asked.remove(&sent);
        match response {
            Response::Refused(why) => match asked {
                // A node sends its heads again at its next round, not at once.
                Some(Asked::Heads) if crate::hostile_kit::flood::passing(&why) => {
                    count(&self.tally.retried, &format!("heads, next round: {why}"));
                }
                Some(Asked::Push(req)) if crate::hostile_kit::flood::passing(&why) => {
                    count(&self.tally.retried, &why);
                    self.again.push(req);
                }
                _ => self.tally.refuse(&why),
            },
            Response::Behind { envelopes, .. } if matches!(asked, Some(Asked::Heads)) => {
                // What a lost relay left behind: taken as the relay would have been.
                self.take(Request::PushMany { games: envelopes });
            }
            Response::Statements(st) if matches!(asked, Some(Asked::Witness)) => {
                self.tally
                    .ledgers
                    .fetch_add(st.len() as u64, Ordering::Relaxed);
            }
            _ => {}
        }
    }

    /// What the stream tasks hand over.
    fn streamed(&mut self, m: Streamed) {
        match m {
            Streamed::Answer(id, resp) => {
                self.answered(Sent::Stream(id), resp);
                self.pump();
            }
            Streamed::Ended(why) => {
                self.ended(&format!("the player's stream: {why}"));
                // As a node does: a new stream, and the pushes it had not answered
                // sent again (a game waits for them); a witness's answer lost is only
                // asked again after the next move.
                self.ours = None;
                let lost: Vec<Sent> = self
                    .asked
                    .keys()
                    .filter(|s| matches!(s, Sent::Stream(_)))
                    .copied()
                    .collect();
                for sent in lost {
                    if let Some(Asked::Push(req)) = self.asked.remove(&sent) {
                        count(&self.tally.retried, "stream ended");
                        self.again.push(req);
                    }
                }
                // Reopened at the next tick, not at once: the node counts the stream
                // that ended until it sees it end, and refuses a fifth.
                self.reopen = true;
            }
            Streamed::Request(req, reply) => {
                let _ = reply.send(self.take(req));
            }
        }
    }

    /// Counts something that ended while the run was on.
    fn ended(&self, what: &str) {
        if !self.stop.load(Ordering::Relaxed) {
            // By cause: an error code stays (it says which it was), a stream's id
            // goes (1,000 streams closed by one cause are one line, not 1,000).
            let mut ended = self.tally.ended.lock().expect("not poisoned");
            *ended.entry(without_stream_ids(what)).or_default() += 1;
        }
    }

    fn event(&mut self, ev: SwarmEvent<Event>) {
        if let SwarmEvent::ConnectionClosed { cause, .. } = &ev {
            let why = cause.as_ref().map_or("closed by the player".into(), |e| {
                format!("connection: {e}")
            });
            self.ended(&why);
        }
        let SwarmEvent::Behaviour(Event::Sync(ev)) = ev else {
            return;
        };
        match ev {
            request_response::Event::Message {
                message:
                    request_response::Message::Response {
                        request_id,
                        response,
                    },
                ..
            } => self.answered(Sent::Substream(request_id), response.into_inner()),
            request_response::Event::OutboundFailure { request_id, .. }
                if self.asked.remove(&Sent::Substream(request_id)).is_some() =>
            {
                self.tally.failed.fetch_add(1, Ordering::Relaxed);
            }
            request_response::Event::Message {
                message:
                    request_response::Message::Request {
                        request, channel, ..
                    },
                ..
            } => {
                let resp = self.take(request.into_inner());
                let _ = self
                    .s
                    .swarm
                    .behaviour_mut()
                    .sync
                    .send_response(channel, resp.into());
            }
            _ => {}
        }
    }

    /// What the public node sends: the other seat's envelopes, relayed.
    fn take(&mut self, req: Request) -> Response {
        let many = match req {
            Request::Push { game, envelopes } => vec![(game, envelopes)],
            // The mailbox offers a game to a seat that connects: its envelopes so far.
            Request::Offer {
                proposal,
                envelopes,
            } => match Terms::parse(&proposal) {
                Ok(t) => vec![(t.game(), envelopes)],
                Err(_) => return Response::Refused("not a proposal".into()),
            },
            Request::PushMany { games } => games,
            Request::Heads { .. } => {
                return Response::Behind {
                    envelopes: vec![],
                    unknown: vec![],
                };
            }
            _ => return Response::Ok { new: 0 },
        };
        let now = sealed_node::shell::now_ms();
        let arrived = Instant::now();
        let mut new = 0;
        for (id, envelopes) in many {
            let Some(g) = self.games.get_mut(&id) else {
                continue;
            };
            for b in envelopes {
                let Ok(env) =
                    sealed_protocol::envelope::Signed::parse(g.table.session().terms(), &b)
                else {
                    continue;
                };
                let pushed = self
                    .tally
                    .in_flight
                    .lock()
                    .expect("not poisoned")
                    .remove(&env.hash);
                if g.table.session_mut().handle_signed(env, now).is_ok() {
                    new += 1;
                }
                if let Some(at) = pushed {
                    self.tally.relayed.fetch_add(1, Ordering::Relaxed);
                    let us = arrived.duration_since(at).as_micros().min(u32::MAX as u128) as u32;
                    self.tally.latencies.lock().expect("not poisoned").push(us);
                }
            }
            self.flush(id);
        }
        Response::Ok { new }
    }
}

/// The bot's choice for a game's `n`th move: varied across games and moves.
fn pick(n: u64, game: &GameId) -> u64 {
    let mut z = n ^ u64::from_le_bytes(game.0.0[..8].try_into().expect("8 bytes"));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `what` without yamux's stream ids (`000003de/23:`, the connection's id and the
/// stream's number), so that causes can be counted.
fn without_stream_ids(what: &str) -> String {
    let id = |w: &str| {
        w.strip_suffix(':')
            .unwrap_or(w)
            .split_once('/')
            .is_some_and(|(conn, n)| {
                conn.len() == 8
                    && conn.bytes().all(|b| b.is_ascii_hexdigit())
                    && !n.is_empty()
                    && n.bytes().all(|b| b.is_ascii_digit())
            })
    };
    what.split(' ')
        .filter(|w| !id(w))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn causes_are_counted_without_stream_ids() {
    assert_eq!(
        without_stream_ids("the player's stream: write: 000003de/23: connection is closed"),
        "the player's stream: write: connection is closed"
    );
    assert_eq!(
        without_stream_ids("connection: i/o error 104/5"),
        "connection: i/o error 104/5"
    );
}
