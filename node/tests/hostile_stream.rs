//! The sync stream (`/sealed/sync-stream/1`) against a hostile peer: real nodes on
//! loopback, and a libp2p client of the test's own that speaks the stream protocol
//! badly. While two honest nodes play a Duel, the hostile peer, connected to one of
//! them, opens more streams than a peer may, sends a length past the largest message,
//! garbage, a response where requests go, more requests at once than a peer may have in
//! flight, and, on the stream the node opened to it (it offers the node a game of its
//! own, so that the node has something to send it), a response to an id never asked and
//! a response twice. The node refuses each (closes the stream, or drops the frame),
//! never panics, its process grows by a bounded amount, and the honest game finishes
//! and verifies.

mod common;

use std::time::Duration;

use futures::{AsyncReadExt, AsyncWriteExt, StreamExt};
use libp2p::swarm::SwarmEvent;
use libp2p::{PeerId, Stream};
use sealed_node::net::{MAX_INBOUND_SYNC_STREAMS, MAX_SYNC_STREAMS};
use sealed_node::sync::{
    Frame, MAX_SYNC_MESSAGE, Request, Response, STREAM_PROTOCOL, SyncCodec, read_frame,
    write_request, write_response,
};
use sealed_protocol::keys::SecretKey;

const A: u8 = 31;
const B: u8 = 32;
const HOSTILE: [u8; 32] = [77; 32];

/// Resident memory of this process (both nodes and the hostile peer), in bytes.
fn rss() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

/// An empty heads round: a request any node answers.
fn harmless() -> Request {
    Request::Heads { games: vec![] }
}

/// Whether the node closed `s`: reading it ends (a frame read first is the node's
/// answer, and not an end).
async fn answered_or_closed(s: &mut Stream) -> Option<Frame> {
    read_frame(s, &SyncCodec::default()).await.ok()
}

/// Waits until the node closed `s`, reading whatever it still sends.
async fn closed(s: &mut Stream) {
    let mut buf = [0u8; 4096];
    while matches!(s.read(&mut buf).await, Ok(n) if n > 0) {}
}

/// Waits (untimed) until the node shows the game over.
async fn finished(h: &sealed_node::NodeHandle, game: &str) {
    while serde_json::to_value(h.show(game).await.unwrap()).unwrap()["phase"] != "done" {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A Duel proposed by the hostile key to the node of `node_key`: the offer.
fn offer(node_key: [u8; 32]) -> Request {
    common::offer(HOSTILE, node_key, [5; 32], [5; 32]).1
}

/// A new stream of the hostile peer's to the node (libp2p gives it before the node has
/// seen it: one the node refuses ends at once).
async fn open(control: &mut libp2p_stream::Control, node: PeerId) -> Stream {
    control.open_stream(node, STREAM_PROTOCOL).await.unwrap()
}

/// A stream that the node answers on, opening again while it refuses (it refuses
/// until it has seen earlier streams of the peer's end).
async fn open_answered(control: &mut libp2p_stream::Control, node: PeerId) -> Stream {
    loop {
        let mut s = open(control, node).await;
        // A refused stream may be closed before the request is written: open again.
        if write_request(&mut s, 1, &harmless()).await.is_ok()
            && let Some(Frame::Response(1, _)) = answered_or_closed(&mut s).await
        {
            return s;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_peer_on_the_sync_stream_is_refused_and_a_game_goes_on() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = common::node(da.path(), A, true).await;
    let b = common::node(db.path(), B, true).await;
    let a_addr = common::addr(&a.h).await;
    let node = common::peer_of_seed(A);
    let node_key = SecretKey::from_seed(&[A; 32]).public().to_bytes();

    // The honest game, played by the two nodes' bots while the attack goes on.
    let game = common::propose(&a.h, "duel", &[], common::addr(&b.h).await)
        .await
        .unwrap();

    // The hostile peer: the node's transport, and nothing but the stream behaviour.
    let mut swarm = common::stream_peer(HOSTILE);
    let mut control = swarm.behaviour().new_control();
    let mut incoming = control.accept(STREAM_PROTOCOL).unwrap();
    swarm.dial(a_addr).unwrap();
    loop {
        if let SwarmEvent::ConnectionEstablished { .. } = swarm.select_next_some().await {
            break;
        }
    }
    tokio::spawn(async move {
        loop {
            swarm.select_next_some().await;
        }
    });
    let before = rss();

    // More streams than a peer may open: each asks once; the node answers on at most
    // its cap, and closes the others.
    let mut streams = vec![];
    for _ in 0..3 * MAX_INBOUND_SYNC_STREAMS {
        streams.push(open(&mut control, node).await);
    }
    let mut answered = 0;
    for s in &mut streams {
        write_request(s, 1, &harmless()).await.ok();
        if let Some(Frame::Response(1, _)) = answered_or_closed(s).await {
            answered += 1;
        }
    }
    assert!(answered >= 1, "the node answers a peer's stream");
    assert!(
        answered <= MAX_INBOUND_SYNC_STREAMS,
        "{answered} streams answered, past the cap of {MAX_INBOUND_SYNC_STREAMS}"
    );
    drop(streams);

    // A length past the largest message: the stream is closed before its bytes come.
    let mut s = open_answered(&mut control, node).await;
    let mut head = 2u64.to_le_bytes().to_vec();
    head.push(0);
    head.extend(((MAX_SYNC_MESSAGE as u32) * 8).to_le_bytes());
    s.write_all(&head).await.unwrap();
    s.flush().await.unwrap();
    closed(&mut s).await;
    drop(s);

    // Garbage: a frame of no kind; then a request whose bytes are no message.
    for junk in [
        [3u64.to_le_bytes().as_slice(), &[9], &[0xff; 64]].concat(),
        [
            3u64.to_le_bytes().as_slice(),
            &[0],
            &16u32.to_le_bytes(),
            &[0xff; 16],
        ]
        .concat(),
    ] {
        let mut s = open_answered(&mut control, node).await;
        s.write_all(&junk).await.unwrap();
        s.flush().await.unwrap();
        closed(&mut s).await;
    }

    // A response on a stream that carries requests to the node: closed.
    let mut s = open_answered(&mut control, node).await;
    write_response(&mut s, 1, &Response::Ok { new: 0 })
        .await
        .unwrap();
    closed(&mut s).await;
    drop(s);

    // Far more requests at once than a peer may have in flight, none read until all
    // are written: the node answers them or closes the stream, and holds no more.
    let s = open_answered(&mut control, node).await;
    let (mut r, mut w) = s.split();
    let writer = async {
        for id in 10..10 + 20 * MAX_SYNC_STREAMS as u64 {
            if write_request(&mut w, id, &harmless()).await.is_err() {
                break;
            }
        }
    };
    let reader = async {
        let mut n = 0;
        while let Ok(Frame::Response(..)) = read_frame(&mut r, &SyncCodec::default()).await {
            n += 1;
            if n == 20 * MAX_SYNC_STREAMS {
                break;
            }
        }
        n
    };
    let ((), n) = futures::join!(writer, reader);
    assert!(n <= 20 * MAX_SYNC_STREAMS);
    drop((r, w));

    // The node's own stream to this peer: offered a game, the node (its bot accepts)
    // has envelopes to send to it, and heads rounds after.
    let mut s = open_answered(&mut control, node).await;
    write_request(&mut s, 2, &offer(node_key)).await.unwrap();
    let (_, mut ours) = incoming.next().await.unwrap();
    // A response to an id the node never gave: its stream is closed.
    let Ok(Frame::Request(id, _)) = read_frame(&mut ours, &SyncCodec::default()).await else {
        panic!("the node's stream carries its requests")
    };
    write_response(&mut ours, id + (1 << 40), &Response::Ok { new: 0 })
        .await
        .unwrap();
    closed(&mut ours).await;
    // It opens a new one for its next request. A response given twice: the second is
    // dropped, and the stream goes on carrying the node's requests.
    let (_, mut ours) = incoming.next().await.unwrap();
    let Ok(Frame::Request(id, req)) = read_frame(&mut ours, &SyncCodec::default()).await else {
        panic!("the node's new stream carries its requests")
    };
    let answer = match req.get() {
        Request::Heads { .. } => Response::Behind {
            envelopes: vec![],
            unknown: vec![],
        },
        _ => Response::Ok { new: 0 },
    };
    write_response(&mut ours, id, &answer).await.unwrap();
    write_response(&mut ours, id, &answer).await.unwrap();
    let Ok(Frame::Request(next, _)) = read_frame(&mut ours, &SyncCodec::default()).await else {
        panic!("the node closed its stream for a second response")
    };
    assert!(next > id);
    drop((s, ours));

    let grown = rss().saturating_sub(before);
    assert!(
        grown < 64 << 20,
        "the process grew by {} MiB during the attack",
        grown >> 20
    );

    // The honest game finishes, and verifies.
    finished(&a.h, &game).await;
    finished(&b.h, &game).await;
    common::verified(&a.h.transcript(&game).await.unwrap());
    common::stop(a).await;
    common::stop(b).await;
}
