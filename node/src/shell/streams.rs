//! The sync protocol on one long-lived stream per peer and direction
//! (`/sealed/sync-stream/1`, libp2p's `libp2p-stream` behaviour): a request costs one
//! frame on a stream already open, not a new substream and its protocol negotiation
//! (about half the latency, docs/PERFORMANCE.md). The core sees what request-response
//! gave it: `Output::Send` and `Output::Respond` go out, `Input::Request`, `Response`
//! and `RequestFailed` come in.
//!
//! What request-response did, done here, with the same figures:
//! - per peer, one stream of ours, opened at the first request and reused for all; its
//!   requests carry ids of ours, and a response is taken only on that stream, only for
//!   an id outstanding there, once. A response to an id never given closes the stream; a
//!   late or second one is dropped. Neither reaches the core;
//! - per peer, at most [`MAX_INBOUND_SYNC_STREAMS`] streams of theirs (more are
//!   refused: dropped at once), carrying their requests and our responses, never the
//!   reverse (a frame of the wrong kind closes the stream);
//! - at most [`MAX_SYNC_STREAMS`] requests in flight each way per peer: ours past it
//!   fail at once, theirs past it close the stream they came on;
//! - `NetConfig::request_timeout` per request: ours then fail, theirs are forgotten
//!   (a response after that is not sent);
//! - a stream that ends or errors fails every request of ours outstanding on it, and
//!   the next request opens a new one; a stream idle (nothing outstanding) for
//!   `NetConfig::idle_timeout` is closed, since an open stream keeps its connection
//!   alive: an idle connection then closes one `idle_timeout` after its streams (with
//!   request-response it closed one `idle_timeout` after its last request);
//! - what a frame holds is read under the same budget as request-response's messages
//!   (`sync/codec.rs`), each peer's streams sharing one per-connection share, until the
//!   core has handled it;
//! - our answers, once the core has made them, hold their bytes of the answers' budget
//!   (`sync/owed.rs`) until written, per peer on its streams and request-response
//!   substreams together ([`Streams::owe`]): an answer past the peer's share or
//!   everyone's is replaced by a "busy" refusal, a peer's stream is not read while its
//!   answers leave no room, and an answer not written by its request's deadline is
//!   dropped (`link.rs`).
//!
//! Compatibility: every node still answers `/sealed/sync/1` requests (older nodes send
//! nothing else). If a peer refuses our stream's protocol, it is an older node: it is
//! sent requests by request-response until it disconnects (it may come back upgraded).
//! The choice is made per peer on the first stream opened, so an older peer costs one
//! failed negotiation per connection, and nothing changes for a newer one.
//!
//! A fresh stream of ours that ends before any answer (the peer's libp2p may have
//! dropped it as it came in) sends its requests once more on a new one (`fresh.rs`).
//!
//! About 760 lines: both directions of every peer's streams are kept in one
//! [`Streams`], whose state (the streams, their deadlines, the answers' shares, the
//! requests sent again) all its methods share.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt as _;
use libp2p::{PeerId, Stream};
use libp2p_stream::{Control, OpenStreamError};
use tokio::sync::mpsc;

use super::fresh::Fresh;
use super::link::{self, Event, LinkId, Out};
use crate::core::{InId, OutId};
use crate::net::{
    FREE_OWED_PER_PEER, MAX_INBOUND_SYNC_STREAMS, MAX_OWED, MAX_OWED_PER_PEER, MAX_SYNC_STREAMS,
};
use crate::sync::owed::{Debt, Owed, Share, owe};
use crate::sync::{
    Budget, Budgeted, FRAME_HEAD, Frame, Request, Response, STREAM_PROTOCOL, StreamRequestId,
    SyncCodec, request_frame, response_frame,
};

/// Frames (and stream events) waiting for the shell. Each frame holds its bytes of the
/// budget; past this many, the streams' tasks wait.
const EVENTS: usize = 64;

/// Inbound streams waiting for the shell to take them; more at once are refused.
const ACCEPTS: usize = 32;

/// What a frame read gives the core.
pub(super) enum Delivered {
    /// A request of the peer's, numbered for the core.
    Request {
        /// The peer.
        peer: PeerId,
        /// Its number for `Output::Respond`.
        id: InId,
        /// The request.
        req: Budgeted<Request>,
    },
    /// The response to one of ours.
    Response {
        /// The peer that answered.
        peer: PeerId,
        /// The core's number of the request.
        id: OutId,
        /// The response.
        resp: Budgeted<Response>,
    },
}

/// One open stream.
struct Link {
    peer: PeerId,
    /// We opened it: it carries our requests and their responses.
    ours: bool,
    out: mpsc::UnboundedSender<Out>,
    task: tokio::task::JoinHandle<()>,
    /// Ours: our requests outstanding on it.
    sent: HashSet<StreamRequestId>,
    /// Theirs: their requests not yet answered.
    asked: HashSet<InId>,
    /// When a frame last went either way.
    used: Instant,
    /// Ours, before its first answer: the frames written on it, sent again once on a
    /// new stream if it ends first (`fresh.rs`). `None` once answered, for theirs, and
    /// for a stream that is itself the second try.
    fresh: Option<Fresh>,
}

/// Our stream to a peer.
#[derive(Default)]
enum Ours {
    /// None yet.
    #[default]
    None,
    /// Being opened, with the requests waiting for it.
    Opening(Vec<StreamRequestId>),
    /// Open.
    Open(LinkId),
}

/// What is kept of one peer.
#[derive(Default)]
struct PeerLinks {
    ours: Ours,
    /// Its streams to us.
    theirs: usize,
    /// Its requests not yet answered, on all its streams.
    asked: usize,
    /// Our requests outstanding or waiting for our stream.
    sent: usize,
    /// It does not speak the stream protocol (until it disconnects).
    legacy: bool,
    /// Our stream being opened is the second try of a fresh one (`fresh.rs`).
    again: bool,
    /// One count of held bytes for all its streams.
    codec: Option<SyncCodec>,
    /// Our answers to it waiting to be written, on its streams and substreams.
    owed: Arc<Share>,
}

impl PeerLinks {
    fn idle(&self) -> bool {
        matches!(self.ours, Ours::None)
            && self.theirs == 0
            && self.asked == 0
            && self.sent == 0
            && self.owed.is_empty()
    }
}

/// One of our requests.
struct Outbound {
    peer: PeerId,
    id: OutId,
    deadline: Instant,
    /// Where it is.
    on: On,
}

/// Where one of our requests is.
enum On {
    /// Written on this stream.
    Link(LinkId),
    /// Waiting for our stream to open.
    Waiting(Request),
    /// Waiting for our stream to open again, after a fresh one ended unanswered: its
    /// frame as written then (`fresh.rs`).
    Again(Arc<[u8]>),
}

/// One of a peer's requests, until answered.
struct Inbound {
    link: LinkId,
    rid: StreamRequestId,
    deadline: Instant,
}

/// Every sync stream of the node.
pub(super) struct Streams {
    control: Control,
    incoming: Option<libp2p_stream::IncomingStreams>,
    /// Inbound streams, from the task that takes them from libp2p.
    pub(super) accepted: mpsc::Receiver<(PeerId, Stream)>,
    accepted_tx: mpsc::Sender<(PeerId, Stream)>,
    /// What the streams' tasks say.
    pub(super) events: mpsc::Receiver<Event>,
    events_tx: mpsc::Sender<Event>,
    budget: Arc<Budget>,
    /// What our answers waiting to be written hold, both protocols together.
    owed: Arc<Owed>,
    timeout: Duration,
    idle: Duration,
    peers: HashMap<PeerId, PeerLinks>,
    links: HashMap<LinkId, Link>,
    next_link: LinkId,
    next_rid: StreamRequestId,
    outbound: HashMap<StreamRequestId, Outbound>,
    out_deadlines: BTreeSet<(Instant, StreamRequestId)>,
    inbound: HashMap<InId, Inbound>,
    in_deadlines: BTreeSet<(Instant, InId)>,
    /// Our requests that failed, for the core.
    pub(super) failed: Vec<OutId>,
    /// Our requests to send by request-response (the peer is an older node).
    pub(super) legacy: Vec<(PeerId, OutId, Request)>,
}

impl Streams {
    /// The streams of a swarm's stream behaviour; requests time out after `timeout`,
    /// streams idle for `idle` close.
    pub(super) fn new(
        mut control: Control,
        budget: Arc<Budget>,
        timeout: Duration,
        idle: Duration,
    ) -> Streams {
        let incoming = control.accept(STREAM_PROTOCOL).ok();
        let (accepted_tx, accepted) = mpsc::channel(ACCEPTS);
        let (events_tx, events) = mpsc::channel(EVENTS);
        Streams {
            control,
            incoming,
            accepted,
            accepted_tx,
            events,
            events_tx,
            budget,
            owed: Owed::new(MAX_OWED, MAX_OWED_PER_PEER, FREE_OWED_PER_PEER),
            timeout,
            idle,
            peers: HashMap::new(),
            links: HashMap::new(),
            next_link: 0,
            next_rid: 0,
            outbound: HashMap::new(),
            out_deadlines: BTreeSet::new(),
            inbound: HashMap::new(),
            in_deadlines: BTreeSet::new(),
            failed: vec![],
            legacy: vec![],
        }
    }

    /// Starts taking inbound streams (on the runtime): libp2p holds one waiting at a
    /// time and drops the next, so they are taken at once into a queue of our own.
    pub(super) fn start(&mut self) {
        let Some(mut incoming) = self.incoming.take() else {
            return;
        };
        let tx = self.accepted_tx.clone();
        tokio::spawn(async move {
            while let Some(s) = incoming.next().await {
                if tx.is_closed() {
                    return;
                }
                // Full: refused (dropped), as libp2p would.
                let _ = tx.try_send(s);
            }
        });
    }

    /// One of the core's requests to `peer`.
    pub(super) fn send(&mut self, peer: PeerId, id: OutId, req: Request) {
        let p = self.peers.entry(peer).or_default();
        // An offer that says where its proposal came from goes on a substream of its
        // own: a node of before that cannot read it ends that substream only, and the
        // core sends it a plain offer (spec/PROTOCOL.md §16.3).
        if p.legacy || matches!(req, Request::OfferFrom { .. }) {
            self.legacy.push((peer, id, req));
            return;
        }
        if p.sent >= MAX_SYNC_STREAMS {
            self.failed.push(id);
            return;
        }
        p.sent += 1;
        let rid = self.next_rid;
        self.next_rid += 1;
        let now = Instant::now();
        let deadline = now + self.timeout;
        self.out_deadlines.insert((deadline, rid));
        let on = match &mut p.ours {
            Ours::Open(l) => match self.links.get_mut(l) {
                Some(link) => {
                    link.used = now;
                    match request_frame(rid, &req) {
                        Ok(frame) => {
                            write(link, rid, frame.into());
                            On::Link(*l)
                        }
                        Err(e) => {
                            tracing::debug!(%peer, "a request not framed: {e}");
                            p.sent -= 1;
                            self.out_deadlines.remove(&(deadline, rid));
                            self.failed.push(id);
                            return;
                        }
                    }
                }
                None => On::Waiting(req),
            },
            Ours::Opening(waiting) => {
                waiting.push(rid);
                On::Waiting(req)
            }
            Ours::None => {
                p.ours = Ours::Opening(vec![rid]);
                self.open(peer);
                On::Waiting(req)
            }
        };
        self.outbound.insert(
            rid,
            Outbound {
                peer,
                id,
                deadline,
                on,
            },
        );
    }

    /// Opens our stream to `peer`, in a task (libp2p dials the peer if need be).
    fn open(&self, peer: PeerId) {
        let mut control = self.control.clone();
        let events = self.events_tx.clone();
        let timeout = self.timeout;
        tokio::spawn(async move {
            let result = tokio::time::timeout(timeout, control.open_stream(peer, STREAM_PROTOCOL))
                .await
                .unwrap_or_else(|_| Err(io::Error::from(io::ErrorKind::TimedOut).into()));
            let _ = events.send(Event::Opened { peer, result }).await;
        });
    }

    /// Our stream to `peer` opened, or did not.
    pub(super) fn opened(&mut self, peer: PeerId, result: Result<Stream, OpenStreamError>) {
        let Some(p) = self.peers.get_mut(&peer) else {
            return;
        };
        let Ours::Opening(waiting) = std::mem::take(&mut p.ours) else {
            return;
        };
        match result {
            Ok(stream) => {
                let link = self.spawn(peer, stream, true);
                self.peers.get_mut(&peer).expect("kept").ours = Ours::Open(link);
                let l = self.links.get_mut(&link).expect("just made");
                let mut unframed = vec![];
                for rid in waiting {
                    let Some(o) = self.outbound.get_mut(&rid) else {
                        continue; // timed out
                    };
                    let frame = match std::mem::replace(&mut o.on, On::Link(link)) {
                        On::Waiting(req) => request_frame(rid, &req).map(Arc::from),
                        On::Again(frame) => Ok(frame),
                        On::Link(_) => continue,
                    };
                    match frame {
                        Ok(frame) => write(l, rid, frame),
                        Err(e) => {
                            tracing::debug!(%peer, "a request not framed: {e}");
                            unframed.push(rid);
                        }
                    }
                }
                for rid in unframed {
                    self.fail(rid);
                }
            }
            Err(e) => {
                let unsupported = matches!(e, OpenStreamError::UnsupportedProtocol(_));
                tracing::debug!(%peer, "sync stream not opened: {e}");
                p.legacy = unsupported;
                // A second try that did not open is over: the next stream is fresh.
                p.again = false;
                for rid in waiting {
                    let Some(o) = self.outbound.remove(&rid) else {
                        continue;
                    };
                    self.out_deadlines.remove(&(o.deadline, rid));
                    p.sent -= 1;
                    match o.on {
                        On::Waiting(req) if unsupported => self.legacy.push((peer, o.id, req)),
                        _ => self.failed.push(o.id),
                    }
                }
                self.forget_if_idle(peer);
            }
        }
    }

    /// A stream of the peer's, opened to us.
    pub(super) fn accept(&mut self, peer: PeerId, stream: Stream) {
        if super::addr::key_of(&peer).is_none() {
            return;
        }
        let p = self.peers.entry(peer).or_default();
        if p.theirs >= MAX_INBOUND_SYNC_STREAMS {
            tracing::debug!(%peer, "sync stream refused: {} open", p.theirs);
            return;
        }
        p.theirs += 1;
        self.spawn(peer, stream, false);
    }

    fn spawn(&mut self, peer: PeerId, stream: Stream, ours: bool) -> LinkId {
        let link = self.next_link;
        self.next_link += 1;
        let budget = &self.budget;
        let p = self.peers.entry(peer).or_default();
        let codec = p
            .codec
            .get_or_insert_with(|| SyncCodec::new(budget.clone()).clone())
            .clone();
        // Its streams to us carry our answers: read only while they leave room.
        let owed = (!ours).then(|| p.owed.clone());
        // Ours is fresh until answered, unless it is already the second try.
        let fresh = (ours && !std::mem::take(&mut p.again)).then(Fresh::default);
        let (out, rx) = mpsc::unbounded_channel();
        let task = link::spawn(link, stream, codec, self.events_tx.clone(), rx, owed);
        self.links.insert(
            link,
            Link {
                peer,
                ours,
                out,
                task,
                sent: HashSet::new(),
                asked: HashSet::new(),
                used: Instant::now(),
                fresh,
            },
        );
        link
    }

    /// A frame read on `link`: what it gives the core, if anything. `next_in` numbers
    /// the peers' requests (shared with request-response's).
    pub(super) fn frame(
        &mut self,
        link: LinkId,
        frame: Frame,
        next_in: &mut InId,
    ) -> Option<Delivered> {
        let l = self.links.get_mut(&link)?;
        let peer = l.peer;
        let now = Instant::now();
        match (l.ours, frame) {
            (false, Frame::Request(rid, req)) => {
                let p = self.peers.get_mut(&peer)?;
                if p.asked >= MAX_SYNC_STREAMS {
                    tracing::debug!(%peer, "sync stream closed: past {MAX_SYNC_STREAMS} requests");
                    self.close(link);
                    return None;
                }
                p.asked += 1;
                l.used = now;
                let id = next_in.take_next();
                l.asked.insert(id);
                let deadline = now + self.timeout;
                self.in_deadlines.insert((deadline, id));
                self.inbound.insert(
                    id,
                    Inbound {
                        link,
                        rid,
                        deadline,
                    },
                );
                Some(Delivered::Request { peer, id, req })
            }
            (true, Frame::Response(rid, resp)) => {
                if l.sent.remove(&rid) {
                    l.used = now;
                    l.fresh = None;
                    let o = self.outbound.remove(&rid).expect("sent on the link");
                    self.out_deadlines.remove(&(o.deadline, rid));
                    if let Some(p) = self.peers.get_mut(&peer) {
                        p.sent -= 1;
                    }
                    return Some(Delivered::Response {
                        peer,
                        id: o.id,
                        resp,
                    });
                }
                if rid >= self.next_rid {
                    tracing::debug!(%peer, "sync stream closed: a response to id {rid}, never asked");
                    self.close(link);
                }
                // Late (timed out) or a second one: dropped.
                None
            }
            (ours, _) => {
                tracing::debug!(%peer, ours, "sync stream closed: a frame of the wrong kind");
                self.close(link);
                None
            }
        }
    }

    /// Our response to a peer's request read on a stream, framed and queued on it with
    /// its debt (or a refusal in its place, [`Streams::owe`]); given back if the
    /// request came by request-response.
    pub(super) fn respond(&mut self, id: InId, resp: Response) -> Result<(), Response> {
        let Some(i) = self.inbound.remove(&id) else {
            return Err(resp);
        };
        self.in_deadlines.remove(&(i.deadline, id));
        let Some(l) = self.links.get_mut(&i.link) else {
            return Ok(());
        };
        l.asked.remove(&id);
        l.used = Instant::now();
        let peer = l.peer;
        if let Some(p) = self.peers.get_mut(&peer) {
            p.asked -= 1;
        }
        let (resp, debt) = self.owe(peer, resp, FRAME_HEAD);
        // The core cuts its answers to a message's size: always framed.
        let Ok(bytes) = response_frame(i.rid, &resp) else {
            return Ok(());
        };
        drop(resp);
        if let Some(l) = self.links.get(&i.link) {
            // A task that ended drops it, and its debt with it.
            let _ = l.out.send(Out::Response {
                bytes,
                debt,
                deadline: i.deadline,
            });
        }
        Ok(())
    }

    /// Our response to a peer's request that came by request-response, holding its
    /// debt until libp2p has written it (or dropped it at its substream's timeout).
    pub(super) fn owe_held(&mut self, peer: PeerId, resp: Response) -> Budgeted<Response> {
        let (resp, debt) = self.owe(peer, resp, 4);
        Budgeted::owing(resp, debt)
    }

    /// An answer to `peer`, with what it holds of the answers' budget, or a refusal in
    /// its place (`owed.rs` `owe`).
    fn owe(&mut self, peer: PeerId, resp: Response, framing: usize) -> (Response, Debt) {
        let share = self.peers.entry(peer).or_default().owed.clone();
        owe(&self.owed, &share, resp, framing)
    }

    /// A stream is gone: ended on its own, or closed here. Our requests on it fail,
    /// but for those of a fresh stream, which go once more on a new one (`fresh.rs`);
    /// the peer's are forgotten.
    pub(super) fn close(&mut self, link: LinkId) {
        let Some(mut l) = self.links.remove(&link) else {
            return;
        };
        l.task.abort();
        let p = self.peers.get_mut(&l.peer).expect("a link's peer is kept");
        if l.ours {
            if matches!(p.ours, Ours::Open(x) if x == link) {
                p.ours = Ours::None;
            }
            let again = l.fresh.take().map(Fresh::into_frames).unwrap_or_default();
            let again: Vec<(StreamRequestId, Arc<[u8]>)> = again
                .into_iter()
                .filter(|(rid, _)| l.sent.remove(rid) && self.outbound.contains_key(rid))
                .collect();
            if !again.is_empty() {
                tracing::debug!(peer = %l.peer, n = again.len(), "sync stream ended unanswered: its requests go again");
                self.send_again(l.peer, again);
            }
            let p = self.peers.get_mut(&l.peer).expect("a link's peer is kept");
            for rid in l.sent {
                if let Some(o) = self.outbound.remove(&rid) {
                    self.out_deadlines.remove(&(o.deadline, rid));
                    p.sent -= 1;
                    self.failed.push(o.id);
                }
            }
        } else {
            p.theirs -= 1;
            for id in l.asked {
                if let Some(i) = self.inbound.remove(&id) {
                    self.in_deadlines.remove(&(i.deadline, id));
                    p.asked -= 1;
                }
            }
        }
        self.forget_if_idle(l.peer);
    }

    /// Requests of a fresh stream that ended unanswered, sent once more: on our stream
    /// to `peer` if one is open or being opened, else on a new one, which is not fresh.
    fn send_again(&mut self, peer: PeerId, again: Vec<(StreamRequestId, Arc<[u8]>)>) {
        let p = self.peers.get_mut(&peer).expect("a link's peer is kept");
        match &mut p.ours {
            Ours::Open(link) => {
                let link = *link;
                let Some(l) = self.links.get_mut(&link) else {
                    // Not kept: nothing to write on; they fail as before.
                    for (rid, _) in again {
                        self.fail(rid);
                    }
                    return;
                };
                for (rid, frame) in again {
                    if let Some(o) = self.outbound.get_mut(&rid) {
                        o.on = On::Link(link);
                        write(l, rid, frame);
                    }
                }
            }
            Ours::Opening(waiting) => {
                for (rid, frame) in again {
                    if let Some(o) = self.outbound.get_mut(&rid) {
                        o.on = On::Again(frame);
                        waiting.push(rid);
                    }
                }
            }
            Ours::None => {
                let mut waiting = vec![];
                for (rid, frame) in again {
                    if let Some(o) = self.outbound.get_mut(&rid) {
                        o.on = On::Again(frame);
                        waiting.push(rid);
                    }
                }
                p.ours = Ours::Opening(waiting);
                p.again = true;
                self.open(peer);
            }
        }
    }

    /// One of our requests fails.
    fn fail(&mut self, rid: StreamRequestId) {
        let Some(o) = self.outbound.remove(&rid) else {
            return;
        };
        self.out_deadlines.remove(&(o.deadline, rid));
        if let Some(p) = self.peers.get_mut(&o.peer) {
            p.sent -= 1;
        }
        self.failed.push(o.id);
    }

    /// Whether requests failed or must go the old way since the core was last told:
    /// the shell tells it before it sleeps again.
    pub(super) fn settled_any(&self) -> bool {
        !self.failed.is_empty() || !self.legacy.is_empty()
    }

    /// When the first request runs out of time, ours or a peer's: the shell wakes
    /// then for [`Streams::expire`].
    pub(super) fn next_deadline(&self) -> Option<Instant> {
        let ours = self.out_deadlines.first().map(|(at, _)| *at);
        let theirs = self.in_deadlines.first().map(|(at, _)| *at);
        ours.into_iter().chain(theirs).min()
    }

    /// Requests past their time: ours fail, the peers' are forgotten.
    pub(super) fn expire(&mut self, now: Instant) {
        while let Some(&(at, rid)) = self.out_deadlines.first() {
            if at > now {
                break;
            }
            self.out_deadlines.pop_first();
            let Some(o) = self.outbound.remove(&rid) else {
                continue;
            };
            if let On::Link(l) = o.on
                && let Some(link) = self.links.get_mut(&l)
            {
                link.sent.remove(&rid);
            }
            if let Some(p) = self.peers.get_mut(&o.peer) {
                p.sent -= 1;
            }
            self.failed.push(o.id);
            self.forget_if_idle(o.peer);
        }
        while let Some(&(at, id)) = self.in_deadlines.first() {
            if at > now {
                break;
            }
            self.in_deadlines.pop_first();
            let Some(i) = self.inbound.remove(&id) else {
                continue;
            };
            if let Some(l) = self.links.get_mut(&i.link) {
                l.asked.remove(&id);
                if let Some(p) = self.peers.get_mut(&l.peer) {
                    p.asked -= 1;
                }
            }
        }
    }

    /// Closes the streams with nothing outstanding for `idle`.
    pub(super) fn close_idle(&mut self, now: Instant) {
        let idle: Vec<LinkId> = self
            .links
            .iter()
            .filter(|(_, l)| {
                l.sent.is_empty() && l.asked.is_empty() && now.duration_since(l.used) >= self.idle
            })
            .map(|(k, _)| *k)
            .collect();
        for link in idle {
            self.close(link);
        }
        // A peer on request-response is kept only while answers to it wait.
        self.peers.retain(|_, p| !p.idle() || p.legacy);
    }

    /// The last connection to `peer` closed: whether it speaks the stream protocol is
    /// asked again next time (its streams end with the connection).
    /// Our stream to `peer` is closed, its requests failed: it may run on a connection
    /// to a process of the peer's that is gone (`restarts.rs`); the next request opens
    /// one on a connection open now.
    pub(super) fn drop_ours(&mut self, peer: &PeerId) {
        if let Some(Ours::Open(link)) = self.peers.get(peer).map(|p| &p.ours) {
            let link = *link;
            self.close(link);
        }
    }

    pub(super) fn disconnected(&mut self, peer: &PeerId) {
        if let Some(p) = self.peers.get_mut(peer) {
            p.legacy = false;
            self.forget_if_idle(*peer);
        }
    }

    fn forget_if_idle(&mut self, peer: PeerId) {
        if self.peers.get(&peer).is_some_and(|p| p.idle() && !p.legacy) {
            self.peers.remove(&peer);
        }
    }
}

/// Writes request `rid`'s frame on our stream `l`, kept while the stream is fresh.
fn write(l: &mut Link, rid: StreamRequestId, frame: Arc<[u8]>) {
    l.sent.insert(rid);
    if let Some(fresh) = &mut l.fresh {
        fresh.keep(rid, &frame);
    }
    // A task that ended says so: its `Closed` fails the request.
    let _ = l.out.send(Out::Request(frame));
}
