//! Real nodes on loopback for tests: separate homes and stores, real libp2p.
#![allow(dead_code)]

pub mod duo;

use std::path::Path;
use std::time::Duration;

use libp2p::Multiaddr;
use sealed_node::{Home, NodeConfig, NodeHandle, start};

/// A node's configuration for tests: loopback TCP on a free port, no mDNS, quick polls.
pub fn cfg(bots: bool) -> NodeConfig {
    let mut c = NodeConfig::default();
    c.net.mdns = false;
    c.listen = vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()];
    c.core.repair_every_ms = 150;
    c.core.bots = bots;
    c
}

/// A running node and its task.
pub struct Running {
    /// The handle.
    pub h: NodeHandle,
    /// The actor task (abort it to crash the node).
    pub task: tokio::task::JoinHandle<()>,
}

/// Starts (or restarts) the node of `dir` with the key seed `[seed; 32]`.
pub async fn node_with(dir: &Path, seed: u8, cfg: NodeConfig) -> Running {
    // `SEALED_LOG=debug cargo test …` shows what the nodes do.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SEALED_LOG")
                .unwrap_or_else(|_| "off".into()),
        )
        .with_test_writer()
        .try_init();
    let home = Home::at(dir);
    if home.key().is_err() {
        home.init_with(&[seed; 32], &format!("p{seed}")).unwrap();
    }
    let (h, task) = start(&home, cfg).await.unwrap();
    Running { h, task }
}

/// Starts a node with the test configuration.
pub async fn node(dir: &Path, seed: u8, bots: bool) -> Running {
    node_with(dir, seed, cfg(bots)).await
}

/// The node's first listen address, with its peer id.
pub async fn addr(h: &NodeHandle) -> Multiaddr {
    for _ in 0..200 {
        if let Some(a) = h.info().await.unwrap().addrs.first() {
            return a.parse().unwrap();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("no listen address");
}

/// Proposes a game to `peer` with no mailbox; the game id, or the node's refusal.
pub async fn propose(
    h: &NodeHandle,
    variant: &str,
    options: &[(&str, &str)],
    peer: Multiaddr,
) -> Result<String, sealed_node::core::NodeError> {
    h.propose(sealed_node::ProposeArgs {
        variant: variant.into(),
        options: options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        peer,
        mailbox: None,
        referee: None,
        witness: None,
    })
    .await
}

/// `/p2p/<peer id>` only: who, not where.
pub async fn who(h: &NodeHandle) -> Multiaddr {
    format!("/p2p/{}", h.info().await.unwrap().peer)
        .parse()
        .unwrap()
}

/// Waits until `cond` holds of the game's JSON, up to `secs` seconds.
pub async fn wait(
    h: &NodeHandle,
    game: &str,
    secs: u64,
    cond: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        // As the control socket gives it.
        if let Ok(v) = h.show(game).await.map(|v| serde_json::to_value(v).unwrap())
            && cond(&v)
        {
            return v;
        }
        if tokio::time::Instant::now() > deadline {
            panic!(
                "timed out; the game: {}",
                h.show_text(game).await.unwrap_or_else(|e| e.to_string())
            );
        }
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
}

/// Waits for the game to be complete on this node.
pub async fn done(h: &NodeHandle, game: &str) -> serde_json::Value {
    wait(h, game, 120, |v| v["phase"] == "done").await
}

/// Checks a transcript offline: exit 0.
pub fn verified(bytes: &[u8]) {
    let c = sealed_games::variant::check_transcript(bytes).unwrap();
    assert_eq!(c.exit_code(), 0, "{:#?}", c.verdict);
}

/// The peer id of the node whose key seed is `[seed; 32]`, without starting it.
pub fn peer_of_seed(seed: u8) -> libp2p::PeerId {
    let key = sealed_protocol::keys::SecretKey::from_seed(&[seed; 32]);
    sealed_node::net::peer_id(&key.public().to_bytes()).unwrap()
}

/// How the sync messages of the node whose key seed is `[seed; 32]` came to `h`, by
/// `h`'s peer book (none while it is not connected).
#[allow(dead_code)]
pub async fn sync_counts(h: &NodeHandle, seed: u8) -> Option<sealed_node::core::SyncCounts> {
    let id = peer_of_seed(seed).to_string();
    h.peers()
        .await
        .unwrap()
        .peers
        .into_iter()
        .find(|p| p.peer.as_deref() == Some(id.as_str()))
        .and_then(|p| p.sync)
}

/// The node's line for a game in `games`.
pub async fn summary(h: &NodeHandle, game: &str) -> Option<sealed_node::GameSummary> {
    h.games()
        .await
        .unwrap()
        .into_iter()
        .find(|g| g.game == game)
}

/// Stops a node and waits until its store is closed.
pub async fn stop(r: Running) {
    r.h.shutdown().await.unwrap();
    r.task.await.unwrap();
}

/// Milliseconds since the Unix epoch: the clock the nodes' sessions read.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// The bytes of every envelope a table gives to send now.
pub fn sends(t: &mut dyn sealed_games::table::Table) -> Vec<Vec<u8>> {
    std::iter::from_fn(|| t.session_mut().poll_action())
        .filter_map(|a| match a {
            sealed_protocol::session::Action::Send { env, .. } => Some(env.bytes.clone()),
            _ => None,
        })
        .collect()
}

/// A Duel proposed by the key of `seed` to the node whose key is `node_key`, with this
/// nonce and the proposer's table opened with this entropy: the proposer's table, and
/// the offer a test client sends the node (the proposal and its first envelopes).
pub fn offer(
    seed: [u8; 32],
    node_key: [u8; 32],
    nonce: [u8; 32],
    entropy: [u8; 32],
) -> (
    Box<dyn sealed_games::table::Table>,
    sealed_node::sync::Request,
) {
    use sealed_games::table::{self, Invitees};
    let key = sealed_protocol::keys::SecretKey::from_seed(&seed);
    let invitees = Invitees {
        opponent: node_key,
        ..Default::default()
    };
    let signed = table::propose("duel", &[], &key, invitees, now_ms(), nonce).expect("a proposal");
    let terms = sealed_protocol::proposal::Terms::from_signed(signed).expect("terms");
    let proposal = terms.bytes().to_vec();
    let mut t = table::open(terms, key, "", entropy, now_ms()).expect("a table");
    let envelopes = sends(&mut *t);
    (
        t,
        sealed_node::sync::Request::Offer {
            proposal,
            envelopes,
        },
    )
}

/// A bare swarm with the key `[seed; 32]`, connected to `to`: a peer that speaks the
/// sync protocol by request-response, as a misbehaving one would.
pub async fn raw(
    seed: u8,
    to: &Multiaddr,
) -> (libp2p::Swarm<sealed_node::net::Behaviour>, libp2p::PeerId) {
    use futures::StreamExt;
    let c = sealed_node::net::NetConfig {
        mdns: false,
        ..sealed_node::net::NetConfig::default()
    };
    let key = sealed_node::net::keypair(&[seed; 32]);
    let mut swarm = sealed_node::net::swarm(&key, &c, Default::default()).unwrap();
    let peer = sealed_node::shell::peer_of(to).unwrap();
    swarm.dial(to.clone()).unwrap();
    loop {
        if let libp2p::swarm::SwarmEvent::ConnectionEstablished { peer_id, .. } =
            swarm.select_next_some().await
            && peer_id == peer
        {
            return (swarm, peer);
        }
    }
}

/// Sends one request from a [`raw`] swarm and waits up to 20 s for its answer
/// (answering nothing the node asks meanwhile).
pub async fn ask(
    swarm: &mut libp2p::Swarm<sealed_node::net::Behaviour>,
    peer: libp2p::PeerId,
    req: sealed_node::sync::Request,
) -> sealed_node::sync::Response {
    use futures::StreamExt;
    use libp2p::request_response::{Event, Message};
    let id = swarm.behaviour_mut().sync.send_request(&peer, req.into());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let ev = tokio::time::timeout_at(deadline, swarm.select_next_some())
            .await
            .expect("no response");
        if let libp2p::swarm::SwarmEvent::Behaviour(sealed_node::net::BehaviourEvent::Sync(
            Event::Message {
                message:
                    Message::Response {
                        request_id,
                        response,
                    },
                ..
            },
        )) = ev
            && request_id == id
        {
            return response.into_inner();
        }
    }
}

/// A bare libp2p peer with the key `[seed; 32]`: the node's transport (TCP, Noise, Yamux)
/// and nothing but the stream behaviour, for a test that speaks a stream protocol
/// itself, well or badly.
pub fn stream_peer(seed: [u8; 32]) -> libp2p::Swarm<libp2p_stream::Behaviour> {
    use libp2p::{noise, tcp, yamux};
    libp2p::SwarmBuilder::with_existing_identity(sealed_node::net::keypair(&seed))
        .with_tokio()
        .with_tcp(
            tcp::Config::default().nodelay(true),
            noise::Config::new,
            yamux::Config::default,
        )
        .unwrap()
        .with_behaviour(|_| libp2p_stream::Behaviour::new())
        .unwrap()
        .with_swarm_config(|c| c.with_idle_connection_timeout(Duration::from_secs(600)))
        .build()
}

/// A [`stream_peer`] connected to `to`, its swarm driven in a task of its own: the
/// control that opens its streams.
pub async fn stream_peer_to(seed: [u8; 32], to: libp2p::Multiaddr) -> libp2p_stream::Control {
    use futures::StreamExt as _;
    let mut swarm = stream_peer(seed);
    let control = swarm.behaviour().new_control();
    swarm.dial(to).unwrap();
    loop {
        if let libp2p::swarm::SwarmEvent::ConnectionEstablished { .. } =
            swarm.select_next_some().await
        {
            break;
        }
    }
    tokio::spawn(async move {
        loop {
            swarm.select_next_some().await;
        }
    });
    control
}
