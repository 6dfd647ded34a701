//! Floods for the hostile swarm's table (`swarm_table.rs`): many strangers at once, each
//! keeping a window of requests in flight on its own connection until told to stop,
//! counting what came back; silent TCP connections; lookup registrations; and the
//! honest newcomer who, meanwhile, shakes hands and asks one useful thing.

use std::collections::{BTreeMap, HashSet};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use futures::StreamExt as _;
use libp2p::PeerId;
use libp2p::request_response::{self, OutboundRequestId};
use libp2p::swarm::SwarmEvent;
use sealed_node::sync::{Request, Response};
use sealed_protocol::body::{Item, MAX_ACT};
use sealed_protocol::envelope::Unsigned;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{LogId, Seat};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::{MailboxSpec, Terms, WitnessSpec};
use tokio::io::AsyncReadExt as _;
use tokio::time::Instant;

use super::client::{Event, Stranger, stranger};

/// What came back of a flood's requests.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Requests sent (for silent connections: connections opened).
    pub sent: u64,
    /// Their bytes, as encoded on the wire (postcard, without the 4-byte length).
    pub bytes: u64,
    /// Answered with anything but a refusal (`Ok`, envelopes, statements, …).
    pub answered: u64,
    /// Envelopes the `Ok` answers said were new.
    pub new: u64,
    /// Answered with a refusal.
    pub refused: u64,
    /// Not answered: the stream failed, or no answer came before the flood's end.
    pub failed: u64,
    /// Refusals and failures by their words (the first 72 characters).
    pub why: BTreeMap<String, u64>,
}

impl Tally {
    /// Adds another's counts.
    pub fn add(&mut self, o: &Tally) {
        self.sent += o.sent;
        self.bytes += o.bytes;
        self.answered += o.answered;
        self.new += o.new;
        self.refused += o.refused;
        self.failed += o.failed;
        for (w, n) in &o.why {
            *self.why.entry(w.clone()).or_default() += n;
        }
    }

    fn note(&mut self, why: &str) {
        let short: String = why.chars().take(72).collect();
        *self.why.entry(short).or_default() += 1;
    }

    /// Counts one answer.
    pub fn answer(&mut self, r: &Result<Response, String>) {
        match r {
            Ok(Response::Refused(why)) => {
                self.refused += 1;
                self.note(why);
            }
            Ok(Response::Ok { new }) => {
                self.answered += 1;
                self.new += u64::from(*new);
            }
            Ok(_) => self.answered += 1,
            Err(e) => {
                self.failed += 1;
                self.note(e);
            }
        }
    }

    /// The most frequent reasons, most first.
    pub fn reasons(&self, n: usize) -> String {
        let mut v: Vec<(&String, &u64)> = self.why.iter().collect();
        v.sort_by(|a, b| b.1.cmp(a.1));
        v.iter()
            .take(n)
            .map(|(w, c)| format!("{c}× {w:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// What a stranger sends next: the `n`th request of its flood, or none (it is done).
pub type Next = Box<dyn FnMut(u64) -> Option<Request> + Send>;

/// Whether a refusal is a passing one (a budget spent, a queue full) that a peer would
/// try again after.
pub fn passing(why: &str) -> bool {
    why.starts_with("rate limit") || why.starts_with("busy")
}

/// Asks `req` until it is answered with something other than a passing refusal, or
/// `within` passes: for a flood's setup, which comes after another flood spent the
/// budget of every peer.
pub async fn settle(
    s: &mut Stranger,
    peer: PeerId,
    req: Request,
    within: Duration,
) -> Result<Response, String> {
    let end = Instant::now() + within;
    loop {
        let r = s.ask(peer, req.clone()).await;
        match &r {
            Ok(Response::Refused(why)) if passing(why) && Instant::now() < end => {
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            _ => return r,
        }
    }
}

/// Keeps `window` requests of `next` in flight on `s`'s connection to `peer` until
/// `stop` (or `next` has no more), refusing what the peer asks of it; then waits for
/// the answers still due, at most `drain`.
pub async fn pump(
    mut s: Stranger,
    peer: PeerId,
    window: usize,
    mut next: Next,
    stop: Arc<AtomicBool>,
    drain: Duration,
) -> Tally {
    let mut t = Tally::default();
    let mut flying: HashSet<OutboundRequestId> = HashSet::new();
    let (mut n, mut done) = (0u64, false);
    let mut drain_end: Option<Instant> = None;
    loop {
        let stopped = stop.load(Ordering::Relaxed);
        while !stopped && !done && flying.len() < window {
            match next(n) {
                Some(req) => {
                    n += 1;
                    t.sent += 1;
                    t.bytes += postcard::to_allocvec(&req).map_or(0, |b| b.len() as u64);
                    let id = s.swarm.behaviour_mut().sync.send_request(&peer, req.into());
                    flying.insert(id);
                }
                None => done = true,
            }
        }
        if stopped {
            let end = *drain_end.get_or_insert_with(|| Instant::now() + drain);
            if flying.is_empty() {
                break;
            }
            if Instant::now() >= end {
                for _ in 0..flying.len() {
                    t.failed += 1;
                    t.note("no answer by the flood's end");
                }
                break;
            }
        }
        let wake = Instant::now() + Duration::from_millis(50);
        let Ok(ev) = tokio::time::timeout_at(wake, s.swarm.select_next_some()).await else {
            continue;
        };
        match ev {
            SwarmEvent::Behaviour(Event::Sync(request_response::Event::Message {
                message:
                    request_response::Message::Response {
                        request_id,
                        response,
                    },
                ..
            })) if flying.remove(&request_id) => t.answer(&Ok(response.into_inner())),
            SwarmEvent::Behaviour(Event::Sync(request_response::Event::OutboundFailure {
                request_id,
                error,
                ..
            })) if flying.remove(&request_id) => t.answer(&Err(error.to_string())),
            SwarmEvent::Behaviour(Event::Sync(request_response::Event::Message {
                message: request_response::Message::Request { channel, .. },
                ..
            })) => {
                // What the victim asks of an attacker is refused, as a stranger does.
                let _ = s
                    .swarm
                    .behaviour_mut()
                    .sync
                    .send_response(channel, Response::Refused("a stranger".into()).into());
            }
            _ => {}
        }
    }
    t
}

/// Registers `s`'s record at `point`'s lookup again and again until `stop` (each a
/// fresh record, signed anew).
pub async fn register_again(mut s: Stranger, point: PeerId, stop: Arc<AtomicBool>) -> Tally {
    let mut t = Tally::default();
    while !stop.load(Ordering::Relaxed) {
        t.sent += 1;
        match s.register_lookup(point).await {
            Ok(()) => t.answered += 1,
            Err(e) if e.starts_with("Refused") => {
                t.refused += 1;
                t.note(&e);
            }
            Err(e) => {
                t.failed += 1;
                t.note(&e);
            }
        }
    }
    t
}

/// Silent connections from `from` to `to`, one at a time: each opened, never written
/// to, and held until the node hangs up; then the next, until `stop`. Counts them in
/// `opened`.
pub async fn hold_silent(
    from: Ipv4Addr,
    to: SocketAddr,
    stop: Arc<AtomicBool>,
    opened: Arc<AtomicU64>,
) {
    let connect = || async {
        let sock = tokio::net::TcpSocket::new_v4().ok()?;
        sock.bind(SocketAddr::from((from, 0))).ok()?;
        tokio::time::timeout(Duration::from_secs(1), sock.connect(to))
            .await
            .ok()?
            .ok()
    };
    while !stop.load(Ordering::Relaxed) {
        let Some(mut conn) = connect().await else {
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        opened.fetch_add(1, Ordering::Relaxed);
        let mut sink = [0u8; 512];
        // Until the node closes it (a read of 0 or an error), or the flood ends.
        while !stop.load(Ordering::Relaxed) {
            let read = tokio::time::timeout(Duration::from_millis(100), conn.read(&mut sink));
            if let Ok(Ok(0) | Err(_)) = read.await {
                break;
            }
        }
    }
}

/// How the honest newcomer fared.
#[derive(Clone, Debug)]
pub struct Newcomer {
    /// Its handshake's time, or why it failed.
    pub handshake: Result<Duration, String>,
    /// From its first dial to its request's answer, or why none came in time.
    pub request: Result<Duration, String>,
    /// Requests it sent (a passing refusal is tried again 100 ms later).
    pub tries: u32,
}

impl Newcomer {
    /// Whether it shook hands and was answered within its goal.
    pub fn ok(&self) -> bool {
        self.handshake.is_ok() && self.request.is_ok()
    }

    /// In words, for the table.
    pub fn text(&self) -> String {
        match (&self.handshake, &self.request) {
            (Err(e), _) => format!("NO handshake: {}", e.chars().take(60).collect::<String>()),
            (Ok(_), Ok(d)) => format!(
                "ok {:.2} s ({} tr{})",
                d.as_secs_f64(),
                self.tries,
                if self.tries == 1 { "y" } else { "ies" }
            ),
            (Ok(h), Err(e)) => format!(
                "NO answer (handshake {:.2} s, {} tries): {}",
                h.as_secs_f64(),
                self.tries,
                e.chars().take(60).collect::<String>()
            ),
        }
    }
}

/// An honest newcomer with the key of `seed`, from `ip`: connects to `addr` and asks
/// `req` until `good` holds of the answer; a passing refusal is asked again 100 ms
/// later, an honest node's way; all within `goal` from its dial.
pub async fn newcomer(
    seed: [u8; 32],
    ip: String,
    addr: String,
    req: Request,
    good: fn(&Response) -> bool,
    goal: Duration,
) -> Newcomer {
    let start = Instant::now();
    let end = start + goal;
    let mut s = stranger(seed, &ip);
    let peer = match tokio::time::timeout_at(end, s.connect(&addr)).await {
        Ok(Ok(p)) => p,
        Ok(Err(e)) => {
            return Newcomer {
                handshake: Err(e),
                request: Err("no handshake".into()),
                tries: 0,
            };
        }
        Err(_) => {
            return Newcomer {
                handshake: Err(format!("none within {goal:?}")),
                request: Err("no handshake".into()),
                tries: 0,
            };
        }
    };
    let handshake = Ok(start.elapsed());
    let mut tries = 0;
    let mut last = String::from("no time left");
    while Instant::now() < end {
        tries += 1;
        match tokio::time::timeout_at(end, s.ask(peer, req.clone())).await {
            Ok(Ok(r)) if good(&r) => {
                return Newcomer {
                    handshake,
                    request: Ok(start.elapsed()),
                    tries,
                };
            }
            Ok(Ok(Response::Refused(why))) if passing(&why) => last = why,
            Ok(Ok(r)) => {
                return Newcomer {
                    handshake,
                    request: Err(format!("{r:?}")),
                    tries,
                };
            }
            Ok(Err(e)) => last = e,
            Err(_) => last = format!("no answer within {goal:?}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Newcomer {
        handshake,
        request: Err(last),
        tries,
    }
}

/// Nonces for proposals: every game of a run its own.
static NONCE: AtomicU64 = AtomicU64::new(1 << 40);

/// A fresh nonce.
pub fn nonce() -> u64 {
    NONCE.fetch_add(1, Ordering::Relaxed)
}

/// A signed two-player proposal of `variant` from `me` to `opponent`: with `referee` as
/// seat 2 if given, and `helper` (a key and its address) as mailbox, and as witness too
/// if `witness`.
pub fn terms(
    variant: &str,
    me: &SecretKey,
    opponent: [u8; 32],
    referee: Option<[u8; 32]>,
    helper: Option<([u8; 32], &str)>,
    witness: bool,
) -> Terms {
    let mut n = [0xa5; 32];
    n[..8].copy_from_slice(&nonce().to_le_bytes());
    let mailboxes = helper
        .map(|(key, addr)| {
            vec![MailboxSpec {
                key,
                addrs: vec![addr.to_owned()],
            }]
        })
        .unwrap_or_default();
    let witness = helper.filter(|_| witness).map(|(key, addr)| WitnessSpec {
        key,
        addrs: vec![addr.to_owned()],
    });
    super::proposed(
        variant,
        me,
        sealed_games::table::Invitees {
            opponent,
            referee,
            mailboxes,
            witness,
            ..sealed_games::table::Invitees::default()
        },
        n,
    )
}

/// An envelope of `seat`'s public chain at `seq` of the game of `terms`, signed by
/// `key`, carrying `size` bytes in acts of at most [`MAX_ACT`].
pub fn envelope(terms: &Terms, key: &SecretKey, seat: u8, seq: u64, size: usize) -> Vec<u8> {
    envelope_at(terms, key, seat, seq, sealed_node::shell::now_ms(), size)
}

/// As [`envelope`], with the clock `clock`.
pub fn envelope_at(
    terms: &Terms,
    key: &SecretKey,
    seat: u8,
    seq: u64,
    clock: u64,
    size: usize,
) -> Vec<u8> {
    let mut body = vec![];
    let mut left = size;
    while left > 0 || body.is_empty() {
        let n = left.min(MAX_ACT);
        body.push(Item::Act(vec![(seq as u8) ^ (body.len() as u8); n]));
        left -= n;
    }
    Unsigned {
        version: terms.version(),
        game: terms.game(),
        log: LogId::PUBLIC,
        seat: Seat(seat),
        seq,
        prev: Hash([0; 32]),
        acks: vec![],
        clock,
        body,
    }
    .sign(key)
    .bytes
}

/// Resets a process's peak resident set (VmHWM) to its resident set now (Linux's
/// `clear_refs`, 5): so that each flood's peak is its own. Whether it could.
pub fn reset_peak(pid: u32) -> bool {
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").is_ok()
}
