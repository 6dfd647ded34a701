//! One player of the load: a libp2p client of its own key and connection (a node's
//! sync protocol, as `hostile_kit::client` speaks it), seated in a few Duel games that
//! name the public node as mailbox and witness. It plays them with the games' own
//! tables and bots, one move at a time at its pace, pushes each move to the public node,
//! asks the witness for its ledgers after each move (as a seat's node does,
//! `core/src/accuse.rs`), and takes what the node relays from the other seat.
//!
//! It is honest: every envelope is one its table signed, every answer is read. What it
//! measures goes to the shared [`Tally`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Barrier;

use futures::StreamExt;
use libp2p::PeerId;
use libp2p::request_response::{self, OutboundRequestId};
use libp2p::swarm::SwarmEvent;
use sealed_games::table::{self, Table};
use sealed_node::sync::{Request, Response};
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
    /// Relay latencies of this second, in µs: from the push of an envelope by one seat
    /// to its arrival at the other.
    pub latencies: Mutex<Vec<u32>>,
    /// When each envelope in flight was pushed, by its hash.
    pub in_flight: Mutex<HashMap<Hash, Instant>>,
    /// Games that ended (their table says so), counted once by each seat.
    pub over: AtomicU64,
    /// Players connected to the public node.
    pub connected: AtomicU64,
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

/// What every player of one load shares.
#[derive(Clone)]
pub struct Load {
    /// The public node's address.
    pub node: String,
    /// How often a player moves.
    pub every: Duration,
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
        every,
        proposed,
        tally,
        stop,
    } = load;
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
    let now = sealed_node::shell::now_ms();
    for (i, g) in seated.into_iter().enumerate() {
        let mut entropy = [0u8; 32];
        entropy[..8].copy_from_slice(&(i as u64).to_le_bytes());
        entropy[8..16].copy_from_slice(&now.to_le_bytes());
        entropy[16..].copy_from_slice(&seed[..16]);
        let Ok(mut t) = table::open(g.terms.clone(), SecretKey::from_seed(&seed), entropy, now)
        else {
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
    while !stop.load(Ordering::Relaxed) {
        match tokio::time::timeout_at(next, p.s.swarm.select_next_some()).await {
            Ok(ev) => p.event(ev),
            Err(_) => {
                next += every;
                for req in std::mem::take(&mut p.again) {
                    p.send(req);
                }
                p.move_once();
            }
        }
    }
}

/// Connects as a node dials: again after a failure, up to five times, a little later
/// each time (a public node's door may turn a handshake away while it is full).
async fn connect(s: &mut Stranger, node: &str) -> Result<PeerId, String> {
    let mut last = String::new();
    for attempt in 1..=5u64 {
        match s.connect(node).await {
            Ok(p) => return Ok(p),
            Err(e) => last = e,
        }
        tokio::time::sleep(Duration::from_millis(200 * attempt)).await;
    }
    Err(last)
}

struct Player {
    s: Stranger,
    node: PeerId,
    games: HashMap<GameId, Game>,
    /// Requests in flight, by what they asked.
    asked: HashMap<OutboundRequestId, Asked>,
    tally: Arc<Tally>,
    /// Where the round robin of moves stands.
    turn: usize,
    /// Pushes refused for a moment, sent again at the next tick.
    again: Vec<Request>,
}

/// What a request in flight asked, to read its answer.
enum Asked {
    /// A push, kept to be sent again if it is refused for a moment.
    Push(Request),
    Witness,
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
                    .my_turn()
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
                let r = self
                    .s
                    .swarm
                    .behaviour_mut()
                    .sync
                    .send_request(&self.node, Request::Witness { game: id }.into());
                self.asked.insert(r, Asked::Witness);
            }
            return;
        }
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
        let r = self
            .s
            .swarm
            .behaviour_mut()
            .sync
            .send_request(&self.node, req.clone().into());
        self.asked.insert(r, Asked::Push(req));
    }

    fn event(&mut self, ev: SwarmEvent<Event>) {
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
            } => {
                let asked = self.asked.remove(&request_id);
                match response.into_inner() {
                    Response::Refused(why) => match asked {
                        Some(Asked::Push(req)) if crate::hostile_kit::flood::passing(&why) => {
                            count(&self.tally.retried, &why);
                            self.again.push(req);
                        }
                        _ => self.tally.refuse(&why),
                    },
                    Response::Statements(st) if matches!(asked, Some(Asked::Witness)) => {
                        self.tally
                            .ledgers
                            .fetch_add(st.len() as u64, Ordering::Relaxed);
                    }
                    _ => {}
                }
            }
            request_response::Event::OutboundFailure { request_id, .. }
                if self.asked.remove(&request_id).is_some() =>
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
                if g.table.session_mut().handle_envelope(&b, now).is_ok() {
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
