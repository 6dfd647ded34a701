//! What a move costs on the wire, next to its floors, all on 127.0.0.1 in one run:
//!
//! - `raw_tcp_echo`: a tokio `TcpStream` echo of 256 bytes (about one signed envelope),
//!   Nagle off: the floor of any transport;
//! - `bare_libp2p_request`: two minimal swarms (TCP, Noise, Yamux, request/response with
//!   the node's own `SyncCodec`), already connected, one `Push` of one 256-byte envelope
//!   answered by `Ok`: a fresh substream per request, as the node sent every message
//!   before its sync stream (and still does to older peers);
//! - `bare_libp2p_stream`: the same two swarms' transport with one long-lived substream
//!   (libp2p's own `stream` behaviour) opened once, on which the same `Push` goes out
//!   and the same `Ok` comes back through the same `SyncCodec` framing: what the node
//!   pays per message on its one stream per peer (`shell/streams.rs`, which adds a
//!   9-byte request id and kind to each frame) instead of a fresh substream (and its
//!   protocol negotiation) per request;
//! - `sealed_move_disk`: two real nodes (their own homes and redb stores under Cargo's
//!   target dir, so on the real disk) playing Duel: one seat's `act` until the other
//!   node shows the ply advanced. This is the move made durable at the mover, pushed,
//!   verified, made durable and applied at the receiver, with whatever the receiver
//!   does at once in answer (its own envelopes, made durable too);
//! - `sealed_move_tmpfs`: the same with both homes on /dev/shm, where fsync is free: the
//!   node's transport and processing alone (skipped when /dev/shm is not a tmpfs);
//! - `redb_commit_1_envelope`: one durable `Store::put_envelopes` of one fresh envelope
//!   on the target dir's file system, the unit of the disk's share; in the alternating
//!   rounds also the same commit on /dev/shm, which with one bare request is the floor
//!   of a move on tmpfs (the mover commits before it sends, spec/PROTOCOL.md §11.2);
//! - in the alternating rounds only: one Ed25519 signature of 300 bytes and its strict
//!   verification. With the tmpfs commit and one message on a stream they make the
//!   floor of a move by the node's own transport: the mover signs once, the other node
//!   verifies once.
//!
//! After criterion, every kind is measured again in alternation, one of each per round,
//! so that the machine's drift hits all alike, and one block of ratios of the medians is
//! printed (`transport:` lines).
//!
//! `cargo bench -p sealed-node --bench transport`. `SEALED_LOG=debug` shows what the
//! nodes do.
//!
//! Over 600 lines: the paths are measured in one run, in one alternation, against
//! one another, so their set-ups live beside the measurement that compares them.

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode};
use futures::StreamExt;
use libp2p::request_response::{self, ProtocolSupport};
use libp2p::swarm::SwarmEvent;
use libp2p::{Multiaddr, PeerId, Swarm, noise, tcp, yamux};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;

use sealed_node::net::keypair;
use sealed_node::store::Store;
use sealed_node::sync::{PROTOCOL, Request, Response, SyncCodec};
use sealed_node::{Home, NodeConfig, NodeHandle, ProposeArgs, start};

/// About the size of a signed envelope carrying one act.
const ENVELOPE: usize = 256;

/// A game that has not moved for this long (far longer than a move takes) has lost
/// an envelope.
const GIVE_UP: Duration = Duration::from_secs(5);

/// Rounds of the alternating measurement behind the ratios.
const ROUNDS: usize = 300;

// ----- raw TCP -----

/// A connected client whose peer echoes every `ENVELOPE` bytes back.
async fn tcp_echo() -> TcpStream {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        s.set_nodelay(true).unwrap();
        let mut buf = [0u8; ENVELOPE];
        while s.read_exact(&mut buf).await.is_ok() {
            if s.write_all(&buf).await.is_err() {
                break;
            }
        }
    });
    let s = TcpStream::connect(addr).await.unwrap();
    s.set_nodelay(true).unwrap();
    s
}

async fn tcp_rtt(s: &mut TcpStream) -> Duration {
    let mut buf = [0xa5u8; ENVELOPE];
    let start = Instant::now();
    s.write_all(&buf).await.unwrap();
    s.read_exact(&mut buf).await.unwrap();
    start.elapsed()
}

// ----- bare libp2p -----

type Bare = Swarm<request_response::Behaviour<SyncCodec>>;

/// The node's transport stack (TCP, Noise, Yamux, Nagle off) with `behaviour` on it.
fn swarm_with<B: libp2p::swarm::NetworkBehaviour>(
    seed: u8,
    behaviour: impl FnOnce() -> B,
) -> Swarm<B> {
    libp2p::SwarmBuilder::with_existing_identity(keypair(&[seed; 32]))
        .with_tokio()
        .with_tcp(
            tcp::Config::default().nodelay(true),
            noise::Config::new,
            yamux::Config::default,
        )
        .unwrap()
        .with_behaviour(|_| behaviour())
        .unwrap()
        .with_swarm_config(|c| c.with_idle_connection_timeout(Duration::from_secs(3600)))
        .build()
}

/// The node's transport stack with nothing but the sync protocol on it.
fn bare_swarm(seed: u8) -> Bare {
    swarm_with(seed, || {
        request_response::Behaviour::with_codec(
            SyncCodec::default(),
            [(PROTOCOL, ProtocolSupport::Full)],
            request_response::Config::default(),
        )
    })
}

/// A client swarm connected to a server swarm (running in its own task) that answers
/// every request with `Ok`. The client is driven by whoever times it, as an actor
/// drives its own swarm.
struct BarePair {
    client: Bare,
    server: PeerId,
    request: Request,
}

async fn bare_pair() -> BarePair {
    let mut server = bare_swarm(11);
    server
        .listen_on("/ip4/127.0.0.1/tcp/0".parse().unwrap())
        .unwrap();
    let addr = loop {
        if let SwarmEvent::NewListenAddr { address, .. } = server.select_next_some().await {
            break address;
        }
    };
    let server_peer = *server.local_peer_id();
    tokio::spawn(async move {
        loop {
            if let SwarmEvent::Behaviour(request_response::Event::Message {
                message: request_response::Message::Request { channel, .. },
                ..
            }) = server.select_next_some().await
            {
                let _ = server
                    .behaviour_mut()
                    .send_response(channel, Response::Ok { new: 1 }.into());
            }
        }
    });
    let mut client = bare_swarm(12);
    client.dial(addr).unwrap();
    loop {
        if let SwarmEvent::ConnectionEstablished { .. } = client.select_next_some().await {
            break;
        }
    }
    BarePair {
        client,
        server: server_peer,
        request: Request::Push {
            game: [7; 32].into(),
            envelopes: vec![vec![0xa5; ENVELOPE]],
        },
    }
}

async fn bare_rtt(p: &mut BarePair) -> Duration {
    let start = Instant::now();
    let id = p
        .client
        .behaviour_mut()
        .send_request(&p.server, p.request.clone().into());
    loop {
        match p.client.select_next_some().await {
            SwarmEvent::Behaviour(request_response::Event::Message {
                message: request_response::Message::Response { request_id, .. },
                ..
            }) if request_id == id => return start.elapsed(),
            SwarmEvent::Behaviour(request_response::Event::OutboundFailure { error, .. }) => {
                panic!("bare request failed: {error}")
            }
            _ => {}
        }
    }
}

// ----- bare libp2p, one long-lived stream -----

const STREAM_PROTOCOL: libp2p::StreamProtocol =
    libp2p::StreamProtocol::new("/sealed/bench-stream/1");

fn stream_swarm(seed: u8) -> Swarm<libp2p_stream::Behaviour> {
    swarm_with(seed, libp2p_stream::Behaviour::new)
}

/// A client's end of one stream to a server (both swarms driven by tasks of their own)
/// that answers every `Push` read from the stream with `Ok`, framed by the node's codec.
struct StreamPair {
    stream: libp2p::Stream,
    codec: SyncCodec,
    request: Request,
}

async fn stream_pair() -> StreamPair {
    use libp2p::request_response::Codec;
    let mut server = stream_swarm(13);
    let mut incoming = server
        .behaviour()
        .new_control()
        .accept(STREAM_PROTOCOL)
        .unwrap();
    server
        .listen_on("/ip4/127.0.0.1/tcp/0".parse().unwrap())
        .unwrap();
    let addr = loop {
        if let SwarmEvent::NewListenAddr { address, .. } = server.select_next_some().await {
            break address;
        }
    };
    let server_peer = *server.local_peer_id();
    tokio::spawn(async move {
        loop {
            server.select_next_some().await;
        }
    });
    tokio::spawn(async move {
        while let Some((_, mut s)) = incoming.next().await {
            tokio::spawn(async move {
                let mut codec = SyncCodec::default();
                while codec.read_request(&STREAM_PROTOCOL, &mut s).await.is_ok() {
                    let ok = Response::Ok { new: 1 }.into();
                    if codec
                        .write_response(&STREAM_PROTOCOL, &mut s, ok)
                        .await
                        .is_err()
                    {
                        break;
                    }
                    use futures::AsyncWriteExt;
                    if s.flush().await.is_err() {
                        break;
                    }
                }
            });
        }
    });
    let mut client = stream_swarm(14);
    let mut control = client.behaviour().new_control();
    client.dial(addr).unwrap();
    loop {
        if let SwarmEvent::ConnectionEstablished { .. } = client.select_next_some().await {
            break;
        }
    }
    tokio::spawn(async move {
        loop {
            client.select_next_some().await;
        }
    });
    let stream = control
        .open_stream(server_peer, STREAM_PROTOCOL)
        .await
        .unwrap();
    StreamPair {
        stream,
        codec: SyncCodec::default(),
        request: Request::Push {
            game: [7; 32].into(),
            envelopes: vec![vec![0xa5; ENVELOPE]],
        },
    }
}

async fn stream_rtt(p: &mut StreamPair) -> Duration {
    use futures::AsyncWriteExt;
    use libp2p::request_response::Codec;
    let start = Instant::now();
    p.codec
        .write_request(&STREAM_PROTOCOL, &mut p.stream, p.request.clone().into())
        .await
        .unwrap();
    p.stream.flush().await.unwrap();
    p.codec
        .read_response(&STREAM_PROTOCOL, &mut p.stream)
        .await
        .unwrap();
    start.elapsed()
}

// ----- sealed nodes -----

/// Two real nodes with bots off, and the Duel they are playing. Each pair has keys of
/// its own, so that two pairs in one process never take each other for a peer.
struct Sealed {
    a: NodeHandle,
    b: NodeHandle,
    b_addr: Multiaddr,
    game: Option<String>,
    /// Games given up because the node lost a proposal or an envelope (it never sends
    /// one again while connected), so that the run goes on and says so.
    abandoned: usize,
    // Kept for their `Drop`: the homes live as long as the nodes.
    _homes: [tempfile::TempDir; 2],
}

fn node_cfg() -> NodeConfig {
    let mut c = NodeConfig::default();
    c.net.mdns = false;
    c.listen = vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()];
    c.core.bots = false;
    c
}

async fn sealed_pair(root: &Path, first_seed: u8) -> Sealed {
    let homes = [
        tempfile::tempdir_in(root).unwrap(),
        tempfile::tempdir_in(root).unwrap(),
    ];
    let mut handles = vec![];
    for (i, dir) in homes.iter().enumerate() {
        let home = Home::at(dir.path());
        let seed = first_seed + i as u8;
        home.init_with(&[seed; 32], &format!("p{seed}")).unwrap();
        handles.push(start(&home, node_cfg()).await.unwrap().0);
    }
    let b = handles.pop().unwrap();
    let a = handles.pop().unwrap();
    let b_addr = loop {
        if let Some(x) = b.info().await.unwrap().addrs.first() {
            break x.parse().unwrap();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    Sealed {
        a,
        b,
        b_addr,
        game: None,
        abandoned: 0,
        _homes: homes,
    }
}

/// This node's summary of a game.
async fn line(h: &NodeHandle, game: &str) -> Option<sealed_node::GameSummary> {
    h.games()
        .await
        .unwrap()
        .into_iter()
        .find(|g| g.game == game)
}

impl Sealed {
    /// A fresh Duel, proposed by `a`, accepted by `b`. 64 cards, one in hand: 128 acts
    /// per game, each act answered by one, so the game alternates the mover.
    async fn new_game(&mut self) -> String {
        loop {
            let game = self
                .a
                .propose(ProposeArgs {
                    variant: "duel".into(),
                    options: vec![("cards".into(), "64".into()), ("hand".into(), "1".into())],
                    peer: self.b_addr.clone(),
                    mailbox: None,
                    referee: None,
                    witness: None,
                })
                .await
                .unwrap();
            let deadline = Instant::now() + GIVE_UP;
            while line(&self.b, &game).await.is_none_or(|l| !l.my_turn) {
                if Instant::now() > deadline {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            if Instant::now() > deadline {
                self.abandoned += 1;
                continue;
            }
            self.b.accept(&game).await.unwrap();
            self.game = Some(game.clone());
            return game;
        }
    }

    /// Waits (untimed) until one side may act and both agree on the ply, with the
    /// traffic of the previous move settled (the envelopes each side holds unchanged
    /// over two polls), then returns (mover, other, game, ply). Starts a new game when
    /// the current one is over.
    async fn ready(&mut self) -> (NodeHandle, NodeHandle, String, usize) {
        let mut game = match &self.game {
            Some(g) => g.clone(),
            None => self.new_game().await,
        };
        let mut last = None;
        let mut changed = Instant::now();
        loop {
            if changed.elapsed() > GIVE_UP {
                self.abandoned += 1;
                game = self.new_game().await;
                last = None;
                changed = Instant::now();
                continue;
            }
            let (la, lb) = (
                line(&self.a, &game).await.unwrap(),
                line(&self.b, &game).await.unwrap(),
            );
            if la.status == sealed_node::core::GameState::Finished
                && lb.status == sealed_node::core::GameState::Finished
            {
                game = self.new_game().await;
                last = None;
                changed = Instant::now();
                continue;
            }
            let now = (la.held, lb.held, la.ply, lb.ply, la.my_turn, lb.my_turn);
            if la.ply == lb.ply && (la.my_turn || lb.my_turn) && last == Some(now) {
                let (mover, other) = if la.my_turn {
                    (self.a.clone(), self.b.clone())
                } else {
                    (self.b.clone(), self.a.clone())
                };
                return (mover, other, game, la.ply);
            }
            if last != Some(now) {
                changed = Instant::now();
            }
            last = Some(now);
            tokio::time::sleep(Duration::from_micros(500)).await;
        }
    }

    /// One timed move: `act` at the mover until the other node shows the ply advanced.
    async fn move_rtt(&mut self) -> Duration {
        let (mover, other, game, ply) = self.ready().await;
        let shown = mover.show(&game).await.unwrap();
        let sealed_games::table::Hand::Duel(hand) = &shown.table.hand else {
            panic!("a Duel hand")
        };
        let card = hand.cards[0].card;
        let text = format!("play {card}");
        let start = Instant::now();
        mover.act(&game, &text, Some(ply)).await.unwrap();
        // Polled without sleeping, which would round the time up to the timer's grain.
        // Every poll is a command the other node's actor answers between the swarm
        // events it handles, so the poll must be cheap or it delays the very push it
        // waits for: `games()` copies every envelope of every game to count them, and
        // `show` draws the board and the verdict. The cheapest question that tells the
        // ply is an act guarded by `expect`: refused with "nothing sent" while the ply
        // is not yet `ply + 1`, and once it is, refused again because the empty text
        // is no action (parsing never changes a game).
        let elapsed = loop {
            match other.act(&game, "", Some(ply + 1)).await {
                Err(sealed_node::core::NodeError::Moved { .. }) => tokio::task::yield_now().await,
                _ => break start.elapsed(),
            }
        };
        // Untimed: the probe's answer meant what it is taken to mean.
        assert_eq!(line(&other, &game).await.unwrap().ply, ply + 1);
        elapsed
    }
}

// ----- the store's commit -----

struct Commit {
    store: Store,
    next: u64,
    _dir: tempfile::TempDir,
}

impl Commit {
    fn new(root: &Path) -> Commit {
        let dir = tempfile::tempdir_in(root).unwrap();
        let store = Store::open(&dir.path().join("commit.redb")).unwrap();
        Commit {
            store,
            next: 0,
            _dir: dir,
        }
    }

    /// One fresh envelope, one durable commit. 400 envelopes a game, as in the store
    /// bench, so that the hash index stays the size of a real game's.
    fn once(&mut self) -> Duration {
        let n = self.next;
        self.next += 1;
        let mut game = [3u8; 32];
        game[..8].copy_from_slice(&(n / 400).to_be_bytes());
        let mut e = vec![0xa5; ENVELOPE];
        e[..8].copy_from_slice(&n.to_le_bytes());
        let start = Instant::now();
        assert_eq!(self.store.put_envelopes(&game.into(), &[&e]).unwrap(), 1);
        start.elapsed()
    }
}

/// A tmpfs to put a pair of homes on, if /dev/shm is one.
fn tmpfs() -> Option<&'static Path> {
    let mounts = std::fs::read_to_string("/proc/mounts").ok()?;
    mounts
        .lines()
        .any(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.len() > 2 && f[1] == "/dev/shm" && f[2] == "tmpfs"
        })
        .then_some(Path::new("/dev/shm"))
}

struct Kit {
    tcp: TcpStream,
    bare: BarePair,
    stream: StreamPair,
    disk: Sealed,
    shm: Option<Sealed>,
    commit: Commit,
    /// The same commit with the store on the tmpfs (where fsync is free).
    commit_shm: Option<Commit>,
}

fn bench(c: &mut Criterion, rt: &Runtime, k: &mut Kit) {
    let mut g = c.benchmark_group("transport_rtt");
    g.sample_size(20);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(3));
    g.bench_function("raw_tcp_echo_256B", |b| {
        b.iter_custom(|n| rt.block_on(async { sum(n, async || tcp_rtt(&mut k.tcp).await).await }))
    });
    g.bench_function("bare_libp2p_request_256B", |b| {
        b.iter_custom(|n| rt.block_on(async { sum(n, async || bare_rtt(&mut k.bare).await).await }))
    });
    g.bench_function("bare_libp2p_stream_256B", |b| {
        b.iter_custom(|n| {
            rt.block_on(async { sum(n, async || stream_rtt(&mut k.stream).await).await })
        })
    });
    // Milliseconds each: one iteration per sample point rather than a growing count.
    g.sampling_mode(SamplingMode::Flat);
    g.bench_function("redb_commit_1_envelope", |b| {
        b.iter_custom(|n| (0..n).map(|_| k.commit.once()).sum())
    });
    g.bench_function("sealed_move_disk", |b| {
        b.iter_custom(|n| rt.block_on(async { sum(n, async || k.disk.move_rtt().await).await }))
    });
    if let Some(shm) = &mut k.shm {
        g.bench_function("sealed_move_tmpfs", |b| {
            b.iter_custom(|n| rt.block_on(async { sum(n, async || shm.move_rtt().await).await }))
        });
    }
    g.finish();
}

/// The sum of `n` timed round trips (the set-up between them is not timed).
async fn sum(n: u64, mut f: impl AsyncFnMut() -> Duration) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..n {
        total += f().await;
    }
    total
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// Every kind once per round, in the same order, `ROUNDS` times; the ratios of the
/// medians.
fn ratios(rt: &Runtime, k: &mut Kit) {
    let mut t: [Vec<Duration>; 9] = Default::default();
    // What a move signs and verifies at the least: the mover's act, once, and its check
    // at the other node, once (an envelope of a Duel is about this long).
    let key = sealed_protocol::keys::SecretKey::from_seed(&[9; 32]);
    let public = key.public();
    let message = [0x5a_u8; 300];
    let signature = key.sign(&message);
    rt.block_on(async {
        for _ in 0..ROUNDS {
            // One untimed round trip first: after the milliseconds of a sealed move the
            // threads are parked, and the floors would measure waking them up. The
            // sealed moves start warm anyway, from the polling that precedes them.
            tcp_rtt(&mut k.tcp).await;
            t[0].push(tcp_rtt(&mut k.tcp).await);
            bare_rtt(&mut k.bare).await;
            t[1].push(bare_rtt(&mut k.bare).await);
            t[2].push(k.disk.move_rtt().await);
            if let Some(shm) = &mut k.shm {
                t[3].push(shm.move_rtt().await);
            }
            t[4].push(k.commit.once());
            if let Some(c) = &mut k.commit_shm {
                t[6].push(c.once());
            }
            stream_rtt(&mut k.stream).await;
            t[5].push(stream_rtt(&mut k.stream).await);
            let start = Instant::now();
            std::hint::black_box(key.sign(std::hint::black_box(&message)));
            t[7].push(start.elapsed());
            let start = Instant::now();
            assert!(public.verify(std::hint::black_box(&message), &signature));
            t[8].push(start.elapsed());
        }
    });
    let has_shm = !t[3].is_empty();
    let [
        tcp,
        bare,
        disk,
        shm,
        commit,
        stream,
        commit_shm,
        sign,
        verify,
    ] = t.map(|v| if v.is_empty() { 0.0 } else { us(median(v)) });
    println!("transport: medians of {ROUNDS} alternating rounds on 127.0.0.1, 256-byte payloads");
    println!("transport:   raw TCP echo              {tcp:>9.1} us");
    println!("transport:   bare libp2p request       {bare:>9.1} us");
    println!("transport:   bare libp2p, one stream   {stream:>9.1} us");
    println!("transport:   sealed move (disk store)  {disk:>9.1} us");
    if has_shm {
        println!("transport:   sealed move (tmpfs store) {shm:>9.1} us");
    }
    println!("transport:   redb commit, 1 envelope   {commit:>9.1} us");
    if has_shm {
        println!("transport:   the same commit on tmpfs  {commit_shm:>9.1} us");
    }
    println!("transport:   Ed25519 sign, 300 bytes   {sign:>9.1} us");
    println!("transport:   the strict verification   {verify:>9.1} us");
    println!(
        "transport: sealed move RTT / bare libp2p RTT = {:.1}",
        disk / bare
    );
    println!(
        "transport: sealed move RTT / raw TCP RTT     = {:.1}",
        disk / tcp
    );
    println!(
        "transport: bare libp2p RTT / raw TCP RTT     = {:.1}",
        bare / tcp
    );
    println!(
        "transport: one long-lived stream / request-response (bare) = {:.2}",
        stream / bare
    );
    println!(
        "transport: redb commit / sealed move RTT     = {:.2}",
        commit / disk
    );
    if has_shm {
        println!(
            "transport: sealed move on tmpfs / bare libp2p = {:.1} (the node without the disk)",
            shm / bare
        );
        // What no node can go under while it writes before it sends (spec/PROTOCOL.md
        // §11.2): the mover's commit, then one message to the other node.
        println!(
            "transport: floor (tmpfs commit + bare request) / bare libp2p = {:.2}",
            (commit_shm + bare) / bare
        );
        // The same floor with the node's transport (one stream) and the one signature
        // made and checked that no move can do without.
        let floor = commit_shm + stream + sign + verify;
        println!(
            "transport: floor with the node's stream and one signature made and checked \
             (tmpfs commit + one-stream message + sign + verify) = {floor:.1} us, {:.2} × \
             bare libp2p; the tmpfs move is {:.2} × this floor",
            floor / bare,
            shm / floor
        );
        println!(
            "transport: disk share of a sealed move        = {:.0}% ({:.1} redb commits' worth)",
            100.0 * (disk - shm) / disk,
            (disk - shm) / commit
        );
    }
    let abandoned = k.disk.abandoned + k.shm.as_ref().map_or(0, |p| p.abandoned);
    if abandoned > 0 {
        println!("transport: {abandoned} games given up: the node lost a proposal or an envelope");
    }
}

fn main() {
    // `SEALED_LOG=debug cargo bench …` shows what the nodes do.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SEALED_LOG")
                .unwrap_or_else(|_| "off".into()),
        )
        .try_init();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // Not /tmp, which may be a tmpfs where fsync is free.
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let mut kit = rt.block_on(async {
        let mut shm = None;
        if let Some(p) = tmpfs() {
            shm = Some(sealed_pair(p, 3).await);
        }
        Kit {
            tcp: tcp_echo().await,
            bare: bare_pair().await,
            stream: stream_pair().await,
            disk: sealed_pair(root, 1).await,
            shm,
            commit: Commit::new(root),
            commit_shm: tmpfs().map(Commit::new),
        }
    });
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, &rt, &mut kit);
    c.final_summary();
    // `cargo test --benches` runs each benchmark once as a test, without `--bench`:
    // no timing then.
    if std::env::args().any(|a| a == "--bench") {
        ratios(&rt, &mut kit);
    }
}
