//! A witness's answers to `Deposits` asked and never read (issue 52, attack 4): a
//! stranger proposes games naming the witness, both seats his own keys, leaves a
//! deposit of a computation's message's size (7 MiB) in each, and then, from each seat
//! key and an address of its own, asks for the deposits again and again on the sync
//! stream and on request-response substreams, reading no answer. Before, each ask cost
//! a token and the witness held every answer until its reader read it (4 connections:
//! a peak of 1,037 MB).
//!
//! Against a real `sealed node --witness` process (`SEALED_BIN` names another build, as
//! for `hostile.rs`): its peak resident set (/proc VmHWM) stays within what its budgets
//! allow (answers waiting, `sealed_node::net::MAX_OWED`; what the tokens let be read),
//! and a fresh peer from another address is answered meanwhile, on both carriers; once
//! the stranger is gone, a seat's fetch is answered whole. Asserted: bounds and answers,
//! no time.

mod hostile_kit;

use std::net::Ipv4Addr;
use std::time::Duration;

use futures::{AsyncReadExt as _, AsyncWriteExt as _, StreamExt as _};
use hostile_kit::{Proc, init, start, status_kib};
use libp2p::{Multiaddr, PeerId, Stream, Swarm, noise, yamux};
use sealed_games::table::{self, Invitees};
use sealed_node::sync::{
    Frame, MAX_SYNC_MESSAGE, PROTOCOL, Request, Response, STREAM_PROTOCOL, SyncCodec, read_frame,
    write_request,
};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::{MailboxSpec, Terms, WitnessSpec};

/// Games the stranger proposes, each with two seat keys of his.
const GAMES: u8 = 3;
/// A deposit of the largest size a witness takes alone: a computation's message.
const DEPOSIT: usize = 7 << 20;
/// Requests each seat key asks and never reads, on each carrier.
const ASKS: u64 = 16;

/// A peer of the test's own with the key of `seed`, connected to `to` from `ip`, its
/// swarm driven in a task (aborted to disconnect): the control that opens its streams,
/// on either carrier of the sync protocol.
async fn connect(
    seed: [u8; 32],
    ip: Ipv4Addr,
    to: &Multiaddr,
) -> (libp2p_stream::Control, tokio::task::JoinHandle<()>) {
    use libp2p::core::Transport as _;
    let mut swarm: Swarm<libp2p_stream::Behaviour> =
        libp2p::SwarmBuilder::with_existing_identity(sealed_node::net::keypair(&seed))
            .with_tokio()
            .with_other_transport(|key| {
                Ok::<_, Box<dyn std::error::Error + Send + Sync>>(
                    hostile_kit::client::Bound(ip)
                        .upgrade(libp2p::core::upgrade::Version::V1)
                        .authenticate(noise::Config::new(key)?)
                        .multiplex(yamux::Config::default()),
                )
            })
            .unwrap()
            .with_behaviour(|_| libp2p_stream::Behaviour::new())
            .unwrap()
            .with_swarm_config(|c| c.with_idle_connection_timeout(Duration::from_secs(600)))
            .build();
    let control = swarm.behaviour().new_control();
    swarm.dial(to.clone()).unwrap();
    loop {
        match swarm.select_next_some().await {
            libp2p::swarm::SwarmEvent::ConnectionEstablished { .. } => break,
            libp2p::swarm::SwarmEvent::OutgoingConnectionError { error, .. } => {
                panic!("{ip} does not reach the witness: {error}")
            }
            _ => {}
        }
    }
    let task = tokio::spawn(async move {
        loop {
            swarm.select_next_some().await;
        }
    });
    (control, task)
}

/// A request as `/sealed/sync/1` frames it: its length, then its bytes.
fn framed(req: &Request) -> Vec<u8> {
    let bytes = sealed_protocol::wire::encode(req);
    [(bytes.len() as u32).to_le_bytes().as_slice(), &bytes].concat()
}

/// One request on a request-response substream of its own, written and flushed, the
/// substream held (and its answer not read).
async fn ask_unread(control: &mut libp2p_stream::Control, node: PeerId, req: &Request) -> Stream {
    let mut s = control.open_stream(node, PROTOCOL).await.unwrap();
    s.write_all(&framed(req)).await.unwrap();
    s.flush().await.unwrap();
    s
}

/// One request on a request-response substream of its own, and its answer.
async fn ask(control: &mut libp2p_stream::Control, node: PeerId, req: &Request) -> Response {
    let mut s = ask_unread(control, node, req).await;
    let mut len = [0u8; 4];
    s.read_exact(&mut len).await.unwrap();
    let mut bytes = vec![0u8; u32::from_le_bytes(len) as usize];
    s.read_exact(&mut bytes).await.unwrap();
    sealed_protocol::wire::decode(&bytes, MAX_SYNC_MESSAGE).unwrap()
}

/// The `n`th key of the stranger's.
fn key(n: u8) -> [u8; 32] {
    let mut s = [0xd7; 32];
    s[0] = n;
    s
}

/// The witness's peak resident set so far, in KiB.
fn peak(w: &Proc) -> u64 {
    status_kib(w.pid(), "VmHWM")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deposits_asked_and_never_read_hold_a_bounded_memory_and_others_are_answered() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("witness");
    let w_key = init(&home, "witness").public().to_bytes();
    let witness = start(&home, "node", "/ip4/127.0.0.1/tcp/0", &["--witness"]);
    let at: Multiaddr = witness.addr.parse().unwrap();
    let node = at
        .iter()
        .find_map(|p| match p {
            libp2p::multiaddr::Protocol::P2p(id) => Some(id),
            _ => None,
        })
        .unwrap();

    // The stranger's games, each with a deposit of 7 MiB left by its proposer.
    let spec = vec![witness.addr.clone()];
    let mut games = vec![];
    for g in 0..GAMES {
        let (proposer, opponent) = (key(2 * g), key(2 * g + 1));
        let invitees = Invitees {
            opponent: SecretKey::from_seed(&opponent).public().to_bytes(),
            mailboxes: vec![MailboxSpec {
                key: w_key,
                addrs: spec.clone(),
            }],
            witness: Some(WitnessSpec {
                key: w_key,
                addrs: spec.clone(),
            }),
            ..Default::default()
        };
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        // A game whose players compute, where a deposit alone may be one of their
        // messages (7 MiB); in any other game it is an envelope's at most.
        let options = [("time-per-move".to_owned(), "1d".to_owned())];
        let signed = table::propose(
            "stallmate-duo",
            &options,
            &SecretKey::from_seed(&proposer),
            invitees,
            now,
            [g; 32],
        )
        .unwrap();
        let terms = Terms::from_signed(signed).unwrap();
        let game = terms.game();
        let (mut c, task) = connect(proposer, Ipv4Addr::new(127, 0, 1, g), &at).await;
        let proposal = terms.bytes().to_vec();
        let r = ask(&mut c, node, &Request::Propose { proposal }).await;
        assert!(matches!(r, Response::Ok { .. }), "{r:?}");
        let deposits = vec![vec![g; DEPOSIT]];
        let r = ask(&mut c, node, &Request::Deposit { game, deposits }).await;
        assert!(matches!(r, Response::Statements(_)), "{r:?}");
        task.abort();
        games.push(game);
    }
    let before = status_kib(witness.pid(), "VmRSS");
    let peak_before = peak(&witness);
    eprintln!(
        "witness: {} MiB resident, a peak of {} MiB, before the asks",
        before >> 10,
        peak_before >> 10
    );

    // Each seat key, from an address of its own, asks for its game's deposits again
    // and again on the sync stream and on substreams of its own, and reads nothing.
    let (mut held, mut strangers) = (vec![], vec![]);
    for (g, game) in games.iter().enumerate() {
        for seat in 0..2u8 {
            let n = 2 * g as u8 + seat;
            let (mut c, task) = connect(key(n), Ipv4Addr::new(127, 0, 2, n), &at).await;
            let ask = Request::Deposits {
                game: *game,
                from: 0,
            };
            let mut s = c.open_stream(node, STREAM_PROTOCOL).await.unwrap();
            for id in 0..ASKS {
                write_request(&mut s, id, &ask).await.unwrap();
            }
            held.push(s);
            for _ in 0..ASKS {
                held.push(ask_unread(&mut c, node, &ask).await);
            }
            strangers.push(task);
        }
    }
    // The witness answers what it will meanwhile (the answers wait for a reader that
    // never comes, until their requests' deadline).
    tokio::time::sleep(Duration::from_secs(10)).await;

    // A fresh peer, from another address, is answered on both carriers.
    let (mut c, task) = connect([0x5a; 32], Ipv4Addr::new(127, 0, 3, 1), &at).await;
    let heads = Request::Heads { games: vec![] };
    let r = ask(&mut c, node, &heads).await;
    assert!(matches!(r, Response::Behind { .. }), "{r:?}");
    let mut s = c.open_stream(node, STREAM_PROTOCOL).await.unwrap();
    write_request(&mut s, 7, &heads).await.unwrap();
    let Ok(Frame::Response(7, r)) = read_frame(&mut s, &SyncCodec::default()).await else {
        panic!("no answer on the sync stream")
    };
    assert!(matches!(r.get(), Response::Behind { .. }), "{:?}", r.get());
    task.abort();

    let peak_during = peak(&witness);
    let grew = peak_during.saturating_sub(before) << 10;
    eprintln!(
        "witness: a peak of {} MiB under the asks, {} MiB over its resident set before",
        peak_during >> 10,
        grew >> 20
    );
    // Answers waiting, in all (the peers' free shares are a few KiB here), and the
    // answers being made at once (an answer read from the store and its frame, about
    // twice its size, on the node's thread and a stream's task), with room for the
    // allocator's own (pages of answers freed, not given back at once). Measured: 81 and
    // 91 MiB; before the budgets, 2,073 MiB.
    let bound = sealed_node::net::MAX_OWED + 4 * 2 * DEPOSIT + (64 << 20);
    assert!(
        (grew as usize) < bound,
        "the witness grew by {} MiB under asks it never had read (bound {} MiB)",
        grew >> 20,
        bound >> 20
    );
    // The bar for a node's peak under attack (`hostile.rs`).
    assert!(
        peak_during < 256 * 1024,
        "the witness's peak: {} MiB",
        peak_during >> 10
    );

    // The stranger leaves: a seat's fetch on a fresh connection is answered whole (once
    // the witness has seen its streams end, and dropped the answers they held).
    drop(held);
    for t in strangers {
        t.abort();
    }
    let (mut c, task) = connect(key(0), Ipv4Addr::new(127, 0, 3, 2), &at).await;
    let fetch = Request::Deposits {
        game: games[0],
        from: 0,
    };
    let mut answered = None;
    for _ in 0..50 {
        match ask(&mut c, node, &fetch).await {
            Response::Deposits { deposits, next } => {
                answered = Some((deposits, next));
                break;
            }
            // Busy (answers of before not dropped yet), or its rate spent.
            Response::Refused(_) => tokio::time::sleep(Duration::from_millis(500)).await,
            r => panic!("{r:?}"),
        }
    }
    let (deposits, next) = answered.expect("a seat's fetch answered once the stranger left");
    assert_eq!(next, 1);
    assert!(deposits == vec![vec![0u8; DEPOSIT]], "the deposit left");
    task.abort();
}
