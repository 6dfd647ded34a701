//! A peer of before the sync stream — it speaks `/sealed/sync/1` request-response only
//! — still plays a whole game with the node: the node's stream to it is refused, and
//! the node then sends it every request by request-response (`shell/streams.rs`).
//!
//! The old peer is the test's own libp2p client holding one seat of a Duel it proposes
//! to the node, played by a bot on each side.

mod common;

use common::{now_ms, sends};
use std::time::Duration;

use futures::StreamExt;
use libp2p::request_response::{self, ProtocolSupport};
use libp2p::swarm::SwarmEvent;
use libp2p::{PeerId, Swarm, noise, tcp, yamux};
use sealed_games::table::Table;
use sealed_node::sync::{PROTOCOL, Request, Response, SyncCodec};
use sealed_protocol::keys::SecretKey;

const NODE_SEED: u8 = 41;
const OLD_SEED: [u8; 32] = [42; 32];

/// The old peer: request-response on `/sealed/sync/1`, nothing else.
struct Old {
    swarm: Swarm<request_response::Behaviour<SyncCodec>>,
    node: PeerId,
    table: Box<dyn Table>,
    bot: u64,
    /// Requests the node sent it.
    asked: usize,
}

impl Old {
    fn send(&mut self, req: Request) {
        self.swarm
            .behaviour_mut()
            .send_request(&self.node, req.into());
    }

    /// Handles the swarm's events for `d`, answering the node and playing.
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
                self.asked += 1;
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

    fn answer(&mut self, req: Request) -> Response {
        let game = self.table.session().terms().game();
        let envelopes = match req {
            Request::Push { game: g, envelopes } if g == game => envelopes,
            Request::PushMany { games } => games
                .into_iter()
                .filter(|(g, _)| *g == game)
                .flat_map(|(_, e)| e)
                .collect(),
            Request::Heads { .. } => {
                return Response::Behind {
                    envelopes: vec![],
                    unknown: vec![],
                };
            }
            _ => vec![],
        };
        let mut new = 0;
        for e in &envelopes {
            if sealed_protocol::session::take_bytes(self.table.session_mut(), e, now_ms()).is_ok() {
                new += 1;
            }
        }
        Response::Ok { new }
    }

    /// Plays with a bot and pushes what it signs.
    fn play(&mut self) {
        let now = now_ms();
        let t = &mut self.table;
        for _ in 0..8 {
            let cmd = t.duty(now).or_else(|| {
                if t.turn().my_turn {
                    self.bot = self.bot.wrapping_mul(6364136223846793005).wrapping_add(1);
                    t.bot_action(self.bot >> 33)
                } else {
                    None
                }
            });
            let Some(cmd) = cmd else { break };
            if t.session_mut().handle_command(cmd, now).is_err() {
                break;
            }
        }
        let out = sends(&mut **t);
        if !out.is_empty() {
            let game = self.table.session().terms().game();
            self.send(Request::Push {
                game,
                envelopes: out,
            });
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_speaking_only_request_response_plays_a_whole_game() {
    let dir = tempfile::tempdir().unwrap();
    let node = common::node(dir.path(), NODE_SEED, true).await;
    let h = &node.h;
    let addr = common::addr(h).await;
    let node_key = SecretKey::from_seed(&[NODE_SEED; 32]).public().to_bytes();

    let swarm = libp2p::SwarmBuilder::with_existing_identity(sealed_node::net::keypair(&OLD_SEED))
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
                request_response::Config::default().with_request_timeout(Duration::from_secs(30)),
            )
        })
        .unwrap()
        .with_swarm_config(|c| c.with_idle_connection_timeout(Duration::from_secs(600)))
        .build();

    let (table, offer) = common::offer(OLD_SEED, node_key, [1; 32], [1; 32]);
    let game = table.session().terms().game();
    let mut old = Old {
        swarm,
        node: common::peer_of_seed(NODE_SEED),
        table,
        bot: 3,
        asked: 0,
    };
    old.swarm.dial(addr).unwrap();
    while !old.swarm.is_connected(&old.node) {
        old.pump(Duration::from_millis(50)).await;
    }
    old.send(offer);

    // Untimed: until both seats see the game over.
    loop {
        old.pump(Duration::from_millis(100)).await;
        let Ok(view) = h.show(&game.to_string()).await else {
            continue; // the offer is not yet taken
        };
        if serde_json::to_value(view).unwrap()["phase"] == "done"
            && old.table.session().phase().name() == "done"
        {
            break;
        }
    }
    assert!(
        old.asked > 0,
        "the node sent its requests by request-response"
    );
    let c = common::sync_counts(h, 42).await.expect("connected");
    assert!(
        c.request_response > 0 && c.stream == 0,
        "the node's peer book says how the old peer synced: {c:?}"
    );
    common::verified(&h.transcript(&game.to_string()).await.unwrap());
    common::stop(node).await;
}
