//! The node's own sync stream fails its requests as request-response did: one not
//! answered within `NetConfig::request_timeout` fails, and a stream that ends fails
//! every request outstanding on it, after which the next request opens a new stream —
//! but for a stream that ends before any answer came on it (`node/src/shell/fresh.rs`:
//! the peer's libp2p may have dropped it as it came in), whose requests go once more on
//! a new stream, the same frames.
//!
//! The core keeps at most 8 requests in flight per peer (`core/src/peers.rs`) and sends
//! a peer it shares an unfinished game with a heads round at every tick. So a peer that
//! never answers receives 8 requests and then nothing more, unless the node's failures
//! free the room: each test below waits for the node's requests past those 8 (untimed:
//! a node that never fails them leaves the test waiting).
//!
//! The peer is the test's own libp2p client that offers the node a Duel (the node's bot
//! accepts, and has then something to send it) and reads the node's stream.

mod common;

use std::time::Duration;

use futures::StreamExt;
use libp2p::swarm::SwarmEvent;
use libp2p::{PeerId, Stream};
use sealed_node::sync::{
    Frame, Request, Response, STREAM_PROTOCOL, SyncCodec, read_frame, write_request, write_response,
};
use sealed_protocol::keys::SecretKey;

/// Requests the core keeps in flight to one peer.
const CORE_IN_FLIGHT: usize = 8;

/// A Duel proposed by `key` to the node of `node_key`: the offer.
fn offer(seed: [u8; 32], node_key: [u8; 32]) -> Request {
    common::offer(seed, node_key, [9; 32], [9; 32]).1
}

/// A node (bots on) with `timeout` for its requests, and a peer connected to it that
/// offered it a game: the node's first stream to the peer, and what keeps it all alive.
struct Setup {
    node: common::Running,
    incoming: libp2p_stream::IncomingStreams,
    _asker: Stream,
    _dir: tempfile::TempDir,
}

async fn setup(node_seed: u8, peer_seed: [u8; 32], timeout: Duration) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = common::cfg(true);
    cfg.net.request_timeout = timeout;
    let node = common::node_with(dir.path(), node_seed, cfg).await;
    let addr = common::addr(&node.h).await;
    let node_peer: PeerId = common::peer_of_seed(node_seed);
    let node_key = SecretKey::from_seed(&[node_seed; 32]).public().to_bytes();
    let mut swarm = common::stream_peer(peer_seed);
    let mut control = swarm.behaviour().new_control();
    let incoming = control.accept(STREAM_PROTOCOL).unwrap();
    swarm.dial(addr).unwrap();
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
    let mut asker = control
        .open_stream(node_peer, STREAM_PROTOCOL)
        .await
        .unwrap();
    write_request(&mut asker, 1, &offer(peer_seed, node_key))
        .await
        .unwrap();
    Setup {
        node,
        incoming,
        _asker: asker,
        _dir: dir,
    }
}

/// Reads `n` requests of the node's on `s`, answering none: their ids.
async fn requests(s: &mut Stream, n: usize) -> Vec<u64> {
    let mut ids = vec![];
    for _ in 0..n {
        let Ok(Frame::Request(id, _)) = read_frame(s, &SyncCodec::default()).await else {
            panic!("the node's stream ended, or carried no request")
        };
        ids.push(id);
    }
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_not_answered_in_time_fails_and_frees_its_room() {
    let mut s = setup(51, [52; 32], Duration::from_millis(500)).await;
    let (_, mut ours) = s.incoming.next().await.unwrap();
    // Past the core's 8 in flight, on the same stream: the earlier ones timed out.
    requests(&mut ours, 3 * CORE_IN_FLIGHT).await;
    common::stop(s.node).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_ended_unanswered_sends_its_requests_again_once_then_they_fail() {
    let mut s = setup(53, [54; 32], Duration::from_secs(3600)).await;
    let (_, mut ours) = s.incoming.next().await.unwrap();
    let first = requests(&mut ours, CORE_IN_FLIGHT).await;
    // The node has 8 requests in flight and, with an hour to wait for them, sends no
    // more until the stream's end. No answer came on it: the same 8 go again.
    drop(ours);
    let (_, mut again) = s.incoming.next().await.unwrap();
    let second = requests(&mut again, CORE_IN_FLIGHT).await;
    assert_eq!(second, first, "the same requests, once more");
    // The second try is not fresh: its end fails them, and the next are new.
    drop(again);
    let (_, mut third) = s.incoming.next().await.unwrap();
    let next = requests(&mut third, CORE_IN_FLIGHT).await;
    assert!(
        next.iter().all(|id| !first.contains(id)),
        "new requests {next:?}, not again {first:?}"
    );
    common::stop(s.node).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_dropped_as_it_came_in_loses_nothing() {
    let mut s = setup(57, [58; 32], Duration::from_secs(3600)).await;
    // Dropped unread, as libp2p drops a stream its node has no room to take: the node
    // wrote its requests on a stream nobody reads, and sees it reset.
    let (_, ours) = s.incoming.next().await.unwrap();
    drop(ours);
    let (_, mut again) = s.incoming.next().await.unwrap();
    let ids = requests(&mut again, CORE_IN_FLIGHT).await;
    // The node's first requests ever on this peer's streams: what the dropped stream
    // carried, not requests made after a failure.
    assert_eq!(ids, (0..CORE_IN_FLIGHT as u64).collect::<Vec<_>>());
    common::stop(s.node).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_answered_once_fails_its_requests_when_it_ends() {
    let mut s = setup(55, [56; 32], Duration::from_secs(3600)).await;
    let (_, mut ours) = s.incoming.next().await.unwrap();
    let first = requests(&mut ours, CORE_IN_FLIGHT).await;
    write_response(&mut ours, first[0], &Response::Refused("busy".into()))
        .await
        .unwrap();
    // The answer freed a room: the node's next request on the same stream shows it
    // read the answer. Answered once, so the peer took the stream: its end fails the
    // other requests, as request-response did, and the next ones are new.
    let more = requests(&mut ours, 1).await;
    assert!(!first.contains(&more[0]), "a new request after the answer");
    drop(ours);
    let (_, mut again) = s.incoming.next().await.unwrap();
    let next = requests(&mut again, 2).await;
    assert!(
        next.iter().all(|id| !first.contains(id)),
        "new requests {next:?}, not again {first:?}"
    );
    common::stop(s.node).await;
}
