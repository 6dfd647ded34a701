//! A peer's answer is read under the game the node asked about, never under a game its
//! bytes could also be read as. Since protocol v2 draft 6 an envelope travels without
//! its game id (spec/PROTOCOL.md §1.6): the receiver supplies it, from the request the
//! answer is to (`Asked` in core/src/peers.rs: a pull's game, a heads round's games)
//! and from nothing else.
//!
//! A real node (real libp2p, redb, bots on) plays two Duels, A and B, against a hostile
//! peer of the test's own: a libp2p client speaking the sync protocol that holds the
//! other seat of both and plays A honestly with a bot. In B it signs its envelopes after
//! the node's acceptance (valid envelopes of B: its coin reveal and opening deal) but
//! keeps them back, and while the node's requests come in it answers them with those:
//! a heads round with `Behind` naming game A but carrying B's envelopes, and a push of
//! A's with `Envelopes` (the shape of a pull's answer) that nobody asked for. The node
//! must store none of them, and play A on to its end. Last, the same envelopes pushed
//! under B are taken: they were valid envelopes of B all along.
//!
//! A node that read an answer's envelopes under whatever game they verify for (or took
//! a pull-shaped answer to a request that was no pull) stores B's envelopes and fails
//! here.
//!
//! The node never pulls today (its repairs are heads rounds), so a pull's own answer is
//! not reached from outside: `Asked::Pull` is covered by the core's unit path only.

mod common;

use common::{now_ms, sends};
use std::collections::HashMap;
use std::time::Duration;

use futures::StreamExt;
use libp2p::request_response::{self, ProtocolSupport};
use libp2p::swarm::SwarmEvent;
use libp2p::{Multiaddr, PeerId, Swarm, noise, tcp, yamux};
use sealed_games::table::Table;
use sealed_node::NodeHandle;
use sealed_node::sync::{PROTOCOL, Request, Response, SyncCodec};
use sealed_protocol::ids::GameId;
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::Terms;

const NODE_SEED: u8 = 11;
const HOSTILE_SEED: [u8; 32] = [66; 32];

/// How the hostile peer answers the node's requests.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// As an honest seat would.
    Honest,
    /// With B's held-back envelopes under A (heads) or unasked (pushes).
    Foreign,
}

/// Envelopes a request carried, by game.
type Carried = Vec<(GameId, Vec<Vec<u8>>)>;

/// The hostile seat of both games.
struct Hostile {
    swarm: Swarm<request_response::Behaviour<SyncCodec>>,
    node: PeerId,
    tables: HashMap<GameId, Box<dyn Table>>,
    a: GameId,
    b: GameId,
    /// B's envelopes signed here and never sent under B (until the end).
    held_back: Vec<Vec<u8>>,
    mode: Mode,
    /// Foreign answers given: to heads rounds, to pushes.
    foreign: [usize; 2],
    bot: u64,
    /// Whether its bot plays A (not before the attack, so that A is still going then).
    playing: bool,
}

/// Game `n` proposed by the hostile seat to the node: its table, and its offer.
fn open(n: u8, node_key: [u8; 32]) -> (Box<dyn Table>, Request) {
    let mut nonce = [0u8; 32];
    nonce[0] = n;
    common::offer(HOSTILE_SEED, node_key, nonce, [n; 32])
}

impl Hostile {
    fn send(&mut self, req: Request) {
        self.swarm
            .behaviour_mut()
            .send_request(&self.node, req.into());
    }

    /// Handles the swarm's events for `d`.
    async fn pump(&mut self, d: Duration) {
        let end = tokio::time::Instant::now() + d;
        while let Ok(ev) = tokio::time::timeout_at(end, self.swarm.select_next_some()).await {
            if let SwarmEvent::Behaviour(request_response::Event::Message {
                message:
                    request_response::Message::Request {
                        request, channel, ..
                    },
                ..
            }) = ev
            {
                let resp = self.answer(request.into_inner());
                let _ = self
                    .swarm
                    .behaviour_mut()
                    .send_response(channel, resp.into());
            }
            self.play();
        }
        self.play();
    }

    /// The answer to one of the node's requests; what it carries is taken first.
    fn answer(&mut self, req: Request) -> Response {
        let now = now_ms();
        let (carried, heads): (Carried, bool) = match req {
            Request::Push { game, envelopes } => (vec![(game, envelopes)], false),
            Request::PushMany { games } => (games, false),
            Request::Offer {
                proposal,
                envelopes,
            } => match Terms::parse(&proposal) {
                Ok(t) => (vec![(t.game(), envelopes)], false),
                Err(_) => (vec![], false),
            },
            Request::Heads { .. } => (vec![], true),
            _ => (vec![], false),
        };
        let mut new = 0;
        for (game, envs) in &carried {
            if let Some(t) = self.tables.get_mut(game) {
                for e in envs {
                    if sealed_protocol::session::take_bytes(t.session_mut(), e, now).is_ok() {
                        new += 1;
                    }
                }
            }
        }
        match (self.mode, heads) {
            (Mode::Foreign, true) => {
                self.foreign[0] += 1;
                Response::Behind {
                    envelopes: vec![(self.a, self.held_back.clone())],
                    unknown: vec![],
                }
            }
            (Mode::Foreign, false) if !carried.is_empty() => {
                self.foreign[1] += 1;
                Response::Envelopes(self.held_back.clone())
            }
            (_, true) => Response::Behind {
                envelopes: vec![],
                unknown: vec![],
            },
            _ => Response::Ok { new },
        }
    }

    /// Plays A with a bot and pushes what it signs; keeps B's envelopes back.
    fn play(&mut self) {
        let now = now_ms();
        let a = self.tables.get_mut(&self.a).expect("A");
        for _ in 0..8 {
            if !self.playing {
                break;
            }
            let cmd = a.duty(now).or_else(|| {
                if a.turn().my_turn {
                    self.bot = self.bot.wrapping_mul(6364136223846793005).wrapping_add(1);
                    a.bot_action(self.bot >> 33)
                } else {
                    None
                }
            });
            let Some(cmd) = cmd else { break };
            if a.session_mut().handle_command(cmd, now).is_err() {
                break;
            }
        }
        let out = sends(&mut **a);
        if !out.is_empty() {
            let game = self.a;
            self.send(Request::Push {
                game,
                envelopes: out,
            });
        }
        let b = self.tables.get_mut(&self.b).expect("B");
        let kept = sends(&mut **b);
        self.held_back.extend(kept);
    }
}

async fn held(h: &NodeHandle, game: &GameId) -> usize {
    common::summary(h, &game.to_string())
        .await
        .map_or(0, |s| s.held)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_are_read_under_the_game_asked_about() {
    let dir = tempfile::tempdir().unwrap();
    let node = common::node(dir.path(), NODE_SEED, true).await;
    let h = &node.h;
    let addr: Multiaddr = common::addr(h).await;
    let node_peer = common::peer_of_seed(NODE_SEED);
    let node_key = SecretKey::from_seed(&[NODE_SEED; 32]).public().to_bytes();

    let swarm =
        libp2p::SwarmBuilder::with_existing_identity(sealed_node::net::keypair(&HOSTILE_SEED))
            .with_tokio()
            .with_tcp(
                tcp::Config::default().nodelay(true),
                noise::Config::new,
                yamux::Config::default,
            )
            .unwrap()
            .with_behaviour(|_| {
                request_response::Behaviour::with_codec(
                    SyncCodec::default(),
                    [(PROTOCOL, ProtocolSupport::Full)],
                    request_response::Config::default()
                        .with_request_timeout(Duration::from_secs(30)),
                )
            })
            .unwrap()
            .with_swarm_config(|c| c.with_idle_connection_timeout(Duration::from_secs(600)))
            .build();
    let (table_a, offer_a) = open(1, node_key);
    let (table_b, offer_b) = open(2, node_key);
    let (a, b) = (
        table_a.session().terms().game(),
        table_b.session().terms().game(),
    );
    let mut x = Hostile {
        swarm,
        node: node_peer,
        tables: HashMap::from([(a, table_a), (b, table_b)]),
        a,
        b,
        held_back: vec![],
        mode: Mode::Honest,
        foreign: [0, 0],
        bot: 7,
        playing: false,
    };
    x.swarm.dial(addr).unwrap();
    // Connected, then both games offered; the node's bot accepts them.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !x.swarm.is_connected(&node_peer) {
        assert!(tokio::time::Instant::now() < deadline, "no connection");
        x.pump(Duration::from_millis(50)).await;
    }
    x.send(offer_a);
    x.send(offer_b);

    // Until B's envelopes of after the acceptance are signed here and A waits for this
    // seat's move, and the node's B has stood still for a moment.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        x.pump(Duration::from_millis(200)).await;
        if !x.held_back.is_empty() && x.tables[&a].turn().my_turn {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "set-up stalled: {} held back, A at ply {}",
            x.held_back.len(),
            x.tables[&a].turn().ply
        );
    }
    x.pump(Duration::from_secs(1)).await;
    let b_before = held(h, &b).await;
    let a_ply_before = x.tables[&a].turn().ply;
    assert!(b_before > 0, "the node holds B");
    assert!(!x.held_back.is_empty());

    // The attack: every heads round and every push answered with B's envelopes, until
    // both kinds were answered a few times.
    x.mode = Mode::Foreign;
    x.playing = true;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while x.foreign[0] < 3 || x.foreign[1] < 3 {
        x.pump(Duration::from_millis(200)).await;
        assert!(
            tokio::time::Instant::now() < deadline,
            "the node sent too few requests: {:?} foreign answers",
            x.foreign
        );
    }
    x.pump(Duration::from_secs(1)).await;
    assert_eq!(
        held(h, &b).await,
        b_before,
        "the node stored B's envelopes from answers about A ({} held back)",
        x.held_back.len()
    );
    let view: serde_json::Value =
        serde_json::to_value(h.show(&b.to_string()).await.unwrap()).unwrap();
    assert_ne!(view["phase"], "done", "B moved on: {view}");

    // A is played on to its end, through the same peer, now honest again.
    x.mode = Mode::Honest;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        x.pump(Duration::from_millis(200)).await;
        let v = serde_json::to_value(h.show(&a.to_string()).await.unwrap()).unwrap();
        if v["phase"] == "done" {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "A stopped at the node: {v}"
        );
    }
    assert!(x.tables[&a].turn().ply > a_ply_before, "A went on");
    common::verified(&h.transcript(&a.to_string()).await.unwrap());
    assert_eq!(held(h, &b).await, b_before, "B untouched while A ended");

    // The envelopes held back were B's, and valid: pushed under B they are taken.
    let envelopes = x.held_back.clone();
    let n = envelopes.len();
    x.send(Request::Push { game: b, envelopes });
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while held(h, &b).await < b_before + n {
        x.pump(Duration::from_millis(200)).await;
        assert!(
            tokio::time::Instant::now() < deadline,
            "B's own envelopes were not taken under B"
        );
    }
    common::stop(node).await;
}
