//! A hostile mailbox (attack 8): it stores and forwards a game's public envelopes as a
//! mailbox does, so that two seats with no direct path play through it, but it answers
//! `Ok` to one seat's last close and drops it.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use futures::StreamExt;
use libp2p::request_response;
use libp2p::swarm::SwarmEvent;
use sealed_node::sync::{Request, Response};
use sealed_protocol::body::Item;
use sealed_protocol::envelope::Envelope;
use sealed_protocol::ids::ChainId;
use sealed_protocol::proposal::Terms;

use super::client::{Event, Stranger};

use sealed_node::core::GameId;

/// One game as the mailbox holds it.
struct Held {
    proposal: Vec<u8>,
    seats: Vec<[u8; 32]>,
    envelopes: BTreeMap<(ChainId, u64), Vec<u8>>,
    /// A last close was dropped already (one is enough to leave a seat short).
    dropped: bool,
    /// Seats offered the game (once each: a mailbox offers a game to a seat that
    /// lacks it, and would not wake one that holds it).
    offered: std::collections::BTreeSet<[u8; 32]>,
}

/// What the hostile mailbox did, for the test to read.
#[derive(Debug, Default)]
pub struct Seen {
    /// Last closes answered `Ok` and dropped: the seat and seq of each.
    pub dropped: Vec<(u8, u64)>,
    /// Envelopes stored.
    pub stored: usize,
}

/// Runs the mailbox on `s` until aborted.
pub fn run(mut s: Stranger) -> (tokio::task::JoinHandle<()>, Arc<Mutex<Seen>>) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let out = seen.clone();
    let task = tokio::spawn(async move {
        let mut games: HashMap<GameId, Held> = HashMap::new();
        loop {
            let ev = s.swarm.select_next_some().await;
            // As a mailbox does, it offers a seat that connects the games seating it.
            if let SwarmEvent::ConnectionEstablished { peer_id, .. } = &ev {
                offer_all(&mut s, &mut games, Some(*peer_id));
                continue;
            }
            let SwarmEvent::Behaviour(Event::Sync(request_response::Event::Message {
                peer,
                message:
                    request_response::Message::Request {
                        request, channel, ..
                    },
                ..
            })) = ev
            else {
                continue;
            };
            let mut forward = vec![];
            let mut offered = false;
            let resp = match request.into_inner() {
                Request::Propose { proposal } => {
                    if let Some(g) = know(&mut games, &proposal) {
                        given_by(&mut games, g, peer);
                    }
                    offered = true;
                    Response::Ok { new: 0 }
                }
                Request::Offer {
                    proposal,
                    envelopes,
                } => {
                    let game = know(&mut games, &proposal);
                    if let Some(g) = game {
                        given_by(&mut games, g, peer);
                    }
                    offered = true;
                    let new = take(&mut games, game, envelopes, &seen, &mut forward);
                    Response::Ok { new }
                }
                Request::Push { game, envelopes } => {
                    let new = take(&mut games, Some(game), envelopes, &seen, &mut forward);
                    Response::Ok { new }
                }
                Request::PushMany { games: many } => {
                    let mut new = 0;
                    for (game, envelopes) in many {
                        new += take(&mut games, Some(game), envelopes, &seen, &mut forward);
                    }
                    Response::Ok { new }
                }
                Request::Pull { game, have } => Response::Envelopes(lacking(&games, &game, &have)),
                Request::Heads { games: heads } => {
                    let mut envelopes = vec![];
                    let mut unknown = vec![];
                    for (game, have) in heads {
                        if games.contains_key(&game) {
                            let lack = lacking(&games, &game, &have);
                            if !lack.is_empty() {
                                envelopes.push((game, lack));
                            }
                        } else {
                            unknown.push(game);
                        }
                    }
                    Response::Behind { envelopes, unknown }
                }
                _ => Response::Ok { new: 0 },
            };
            let _ = s
                .swarm
                .behaviour_mut()
                .sync
                .send_response(channel, resp.into());
            if offered {
                offer_all(&mut s, &mut games, None);
            }
            // What one seat posted goes on to the other seats that are connected.
            for (game, env) in forward {
                let Some(h) = games.get(&game) else { continue };
                for key in &h.seats {
                    let Some(p) = sealed_node::net::peer_id(key) else {
                        continue;
                    };
                    if p != peer && s.swarm.is_connected(&p) {
                        s.swarm.behaviour_mut().sync.send_request(
                            &p,
                            Request::Push {
                                game,
                                envelopes: vec![env.clone()],
                            }
                            .into(),
                        );
                    }
                }
            }
        }
    });
    (task, out)
}

/// Offers every game to its connected seats that have not had it (`only` that one, if
/// given).
fn offer_all(s: &mut Stranger, games: &mut HashMap<GameId, Held>, only: Option<libp2p::PeerId>) {
    for h in games.values_mut() {
        for key in h.seats.clone() {
            let Some(p) = sealed_node::net::peer_id(&key) else {
                continue;
            };
            if only.is_some_and(|o| o != p) || !s.swarm.is_connected(&p) || !h.offered.insert(key) {
                continue;
            }
            s.swarm.behaviour_mut().sync.send_request(
                &p,
                Request::Offer {
                    proposal: h.proposal.clone(),
                    envelopes: h.envelopes.values().cloned().collect(),
                }
                .into(),
            );
        }
    }
}

/// The seat that gave the mailbox a game holds it: it is not offered back.
fn given_by(games: &mut HashMap<GameId, Held>, game: GameId, peer: libp2p::PeerId) {
    if let Some(h) = games.get_mut(&game) {
        let seats = h.seats.clone();
        for key in seats {
            if sealed_node::net::peer_id(&key) == Some(peer) {
                h.offered.insert(key);
            }
        }
    }
}

fn know(games: &mut HashMap<GameId, Held>, proposal: &[u8]) -> Option<GameId> {
    let terms = Terms::parse(proposal).ok()?;
    let id = terms.game();
    games.entry(id).or_insert_with(|| Held {
        proposal: proposal.to_vec(),
        dropped: false,
        offered: Default::default(),
        seats: terms.proposal().seats.iter().map(|s| s.key).collect(),
        envelopes: BTreeMap::new(),
    });
    Some(id)
}

/// Takes envelopes of a known game; returns how many were new. A close-only envelope
/// of a public chain after one with a close is acknowledged and dropped.
fn take(
    games: &mut HashMap<GameId, Held>,
    game: Option<GameId>,
    envelopes: Vec<Vec<u8>>,
    seen: &Mutex<Seen>,
    forward: &mut Vec<(GameId, Vec<u8>)>,
) -> u32 {
    let Some(game) = game else { return 0 };
    let Some(h) = games.get_mut(&game) else {
        return 0;
    };
    let mut new = 0;
    for bytes in envelopes {
        let Ok(env) = Envelope::decode(&bytes, game) else {
            continue;
        };
        let u = &env.unsigned;
        let at = (u.at().chain, u.seq);
        if !u.log.is_public() || h.envelopes.contains_key(&at) {
            continue;
        }
        let closes_only = !u.body.is_empty() && u.body.iter().all(|i| *i == Item::Close);
        let closed_before = h.envelopes.iter().any(|((c, _), b)| {
            *c == at.0
                && Envelope::decode(b, game).is_ok_and(|e| e.unsigned.body.contains(&Item::Close))
        });
        if closes_only && closed_before && !h.dropped {
            h.dropped = true;
            seen.lock()
                .expect("not poisoned")
                .dropped
                .push((u.seat.0, u.seq));
            continue;
        }
        h.envelopes.insert(at, bytes.clone());
        seen.lock().expect("not poisoned").stored += 1;
        forward.push((game, bytes));
        new += 1;
    }
    new
}

fn lacking(games: &HashMap<GameId, Held>, game: &GameId, have: &[(ChainId, u64)]) -> Vec<Vec<u8>> {
    let Some(h) = games.get(game) else {
        return vec![];
    };
    let have: BTreeMap<ChainId, u64> = have.iter().copied().collect();
    h.envelopes
        .iter()
        .filter(|((c, seq), _)| *seq >= have.get(c).copied().unwrap_or(0))
        .map(|(_, b)| b.clone())
        .collect()
}
