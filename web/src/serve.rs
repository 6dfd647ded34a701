//! The connections: accepted one by one, each served by hyper's HTTP/1.1 with a
//! deadline on every request head (which also ends an idle kept-alive connection), at
//! most [`Limits::connections`] at once. `axum::serve` sets no deadline at all: a
//! thousand connections that never finish their headers were all still held minutes
//! later. The body's deadline is a middleware (`guard::body`), since hyper reads a body
//! only as the handler asks for it.
//!
//! **Who yields when all are taken.** A connection on which a request with a live
//! session came is the player's ([`Conn::trust`], from `guard::door`); any other holds
//! its slot only while it is being answered. A newcomer past the cap ends the oldest
//! connection that is neither trusted nor being answered — a head that never finishes,
//! an idle kept-alive one — and takes its slot; only when every slot is trusted or busy
//! is the newcomer closed at once. So any local process can hold the board's slots for
//! at most the time it takes newcomers to arrive, never shut them out (issue 55: 200
//! connections sending their heads a byte every 5 s made 30 of 31 page loads fail).
//! Attacks on it:
//! - *slow heads, reopened as they are closed*: each newcomer ends the oldest of them;
//!   a real request's head arrives at once, after which it is answered, not evicted;
//! - *complete requests without a session, then idle*: evictable as soon as answered;
//! - *a process that holds sessions*: it has the login address, so it is the player.
//!
//! `web/tests/bounds.rs` sends slow heads, a body that never finishes, newcomers past
//! the cap, and fills the cap with trusted connections.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Notify, Semaphore, watch};

use crate::Limits;

/// How long the loop rests after `accept` fails (out of file descriptors, say), so as
/// not to spin.
const ACCEPT_PAUSE: Duration = Duration::from_millis(50);

/// How long a newcomer waits for the slot of the connection it ended (which lets go at
/// its next poll).
const EVICT_WAIT: Duration = Duration::from_millis(200);

/// One connection held, as the cap sees it; requests carry it (an extension), so that
/// the door can trust it.
#[derive(Clone, Default)]
pub(crate) struct Conn(Arc<ConnState>);

#[derive(Default)]
struct ConnState {
    /// A request with a live session came on it.
    trusted: AtomicBool,
    /// Requests being answered.
    busy: AtomicUsize,
    /// Told to end, to make room.
    end: Notify,
    /// Told already: not chosen twice.
    ending: AtomicBool,
}

impl Conn {
    /// A request with a live session came on it: it is the player's.
    pub(crate) fn trust(&self) {
        self.0.trusted.store(true, Ordering::Relaxed);
    }

    fn evictable(&self) -> bool {
        !self.0.trusted.load(Ordering::Relaxed)
            && !self.0.ending.load(Ordering::Relaxed)
            && self.0.busy.load(Ordering::Relaxed) == 0
    }
}

/// The app, counting the requests of one connection and giving them its [`Conn`].
#[derive(Clone)]
struct Counted {
    inner: TowerToHyperService<Router>,
    conn: Conn,
}

type Inner = TowerToHyperService<Router>;
type Answer = <Inner as hyper::service::Service<hyper::Request<Incoming>>>::Response;
type Failure = <Inner as hyper::service::Service<hyper::Request<Incoming>>>::Error;

impl hyper::service::Service<hyper::Request<Incoming>> for Counted {
    type Response = Answer;
    type Error = Failure;
    type Future = Pin<Box<dyn Future<Output = Result<Answer, Failure>> + Send>>;

    fn call(&self, mut req: hyper::Request<Incoming>) -> Self::Future {
        req.extensions_mut().insert(self.conn.clone());
        self.conn.0.busy.fetch_add(1, Ordering::Relaxed);
        let answer = self.inner.call(req);
        let conn = self.conn.clone();
        Box::pin(async move {
            let r = answer.await;
            conn.0.busy.fetch_sub(1, Ordering::Relaxed);
            r
        })
    }
}

/// The connections held, by when they opened.
type Held = Arc<Mutex<BTreeMap<(Instant, u64), Conn>>>;

/// Ends the oldest connection that is neither trusted nor busy, if any.
fn evict_one(held: &Held) -> bool {
    let held = held.lock().unwrap_or_else(|p| p.into_inner());
    match held.values().find(|c| c.evictable()) {
        Some(c) => {
            c.0.ending.store(true, Ordering::Relaxed);
            c.0.end.notify_one();
            true
        }
        None => false,
    }
}

/// Serves every connection of `listener` until `stop` says so.
pub(crate) async fn connections(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    mut stop: watch::Receiver<bool>,
) {
    let slots = Arc::new(Semaphore::new(limits.connections));
    let held: Held = Arc::default();
    let mut next = 0u64;
    loop {
        let accepted = tokio::select! {
            _ = stop.wait_for(|s| *s) => return,
            a = listener.accept() => a,
        };
        let socket = match accepted {
            Ok((socket, _)) => socket,
            Err(e) => {
                tracing::warn!("the board could not accept a connection: {e}");
                tokio::time::sleep(ACCEPT_PAUSE).await;
                continue;
            }
        };
        // Past the cap, the newcomer takes the slot of the oldest connection nobody
        // is using; with none, it is closed at once rather than left waiting in the
        // kernel's queue, which would hold it without bound.
        let slot = match slots.clone().try_acquire_owned() {
            Ok(slot) => Some(slot),
            Err(_) if evict_one(&held) => {
                tokio::time::timeout(EVICT_WAIT, slots.clone().acquire_owned())
                    .await
                    .ok()
                    .and_then(Result::ok)
            }
            Err(_) => None,
        };
        let Some(slot) = slot else {
            tracing::warn!(
                "the board holds {} connections, all in use: one more is closed",
                limits.connections
            );
            drop(socket);
            continue;
        };
        next += 1;
        let key = (Instant::now(), next);
        let conn = Conn::default();
        held.lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, conn.clone());
        let service = Counted {
            inner: TowerToHyperService::new(app.clone()),
            conn: conn.clone(),
        };
        let mut stop = stop.clone();
        let held = held.clone();
        tokio::spawn(async move {
            let served = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header)
                .serve_connection(TokioIo::new(socket), service);
            tokio::select! {
                r = served => {
                    if let Err(e) = r {
                        tracing::debug!("a board connection ended: {e}");
                    }
                }
                _ = stop.wait_for(|s| *s) => {}
                _ = conn.0.end.notified() => {
                    tracing::debug!("a board connection nobody used made room for a newcomer");
                }
            }
            held.lock().unwrap_or_else(|p| p.into_inner()).remove(&key);
            drop(slot);
        });
    }
}
