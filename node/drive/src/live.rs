//! The driver's live opponents: for a game a peer proposes to the driven node, a real
//! table of the proposer's seat (the protocol session behind the game's bot), so that
//! the node plays a real game while it crashes, loses writes and takes whatever else
//! the driver sends. It takes what the node sends it and signs what its bot (or any
//! text) decides; the driver pushes that to the node when the bytes say.
//!
//! Checked: the node's seat is never at fault in the opponent's view, unless the driver
//! itself signed with the node's key in that game (playing a thief).

use sealed_games::table::{self, Asked, Table};
use sealed_protocol::ids::{ChainId, GameId, Seat};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::Terms;
use sealed_protocol::session::Action;

use super::{Bytes, World};
use sealed_node::core::{OutId, PeerKey};
use sealed_node::sync::{Request, Response};

/// A peer's seat in a game it proposed to the node, played for real.
pub(super) struct Live {
    pub(super) game: GameId,
    /// The proposer's index among the driver's peers.
    pub(super) peer: usize,
    /// The node's seat.
    pub(super) node: Seat,
    table: Box<dyn Table>,
    /// Envelopes it signed, not yet pushed to the node.
    pub(super) outbox: Vec<Vec<u8>>,
    /// The driver signed with the node's key in this game: the node is not honest here.
    pub(super) thief: bool,
}

impl Live {
    /// The proposer's table, its first envelopes waiting to go; `None` for a game the
    /// node holds no seat in (or proposed itself).
    pub(super) fn open(
        terms: &Terms,
        peer: usize,
        key: SecretKey,
        node: &[u8; 32],
        now: u64,
    ) -> Option<Live> {
        let node = terms.seat_of(node)?;
        let mut entropy = [0x5A; 32];
        entropy[..8].copy_from_slice(&now.to_le_bytes());
        let table = table::open(terms.clone(), key, "", entropy, now).ok()?;
        if table.session().seat() == node {
            return None;
        }
        let mut l = Live {
            game: terms.game(),
            peer,
            node,
            table,
            outbox: vec![],
            thief: false,
        };
        l.collect();
        Some(l)
    }

    fn collect(&mut self) {
        while let Some(a) = self.table.session_mut().poll_action() {
            if let Action::Send { env, .. } = a {
                self.outbox.push(env.bytes.clone());
            }
        }
    }

    /// An envelope the node sent it.
    pub(super) fn take(&mut self, bytes: &[u8], now: u64) {
        let _ = sealed_protocol::session::take_bytes(self.table.session_mut(), bytes, now);
        self.collect();
    }

    /// A decision at its seat: the bot's (a legal act, accepting, answering), or a
    /// command read from any text.
    pub(super) fn act(&mut self, pick: u8, text: &str, now: u64) {
        let cmd = if pick.is_multiple_of(4) {
            self.table.command(Asked::Words(text)).ok()
        } else {
            self.table
                .duty(now)
                .or_else(|| self.table.bot_action(u64::from(pick)))
        };
        if let Some(cmd) = cmd {
            let _ = self.table.session_mut().handle_command(cmd, now);
        }
        self.collect();
    }

    /// What it holds that the node, holding `have`, lacks and may see.
    pub(super) fn behind(&self, have: &[(ChainId, u64)]) -> Vec<Vec<u8>> {
        self.table.session().envelopes().after(have, self.node)
    }

    /// Panics if it finds the node's seat at fault and the node is honest here.
    pub(super) fn check(&self) {
        if self.thief {
            return;
        }
        for f in self.table.session().verdict().faults {
            assert!(
                f.seat != self.node,
                "a live opponent finds the node's seat at fault: {:?} {}",
                f.kind,
                f.detail
            );
        }
    }
}

impl World {
    /// Nothing this node signed leaves it before it is in the store (a thief's
    /// envelopes, signed by the driver with its key, aside).
    pub(super) fn durable(&self, game: Option<GameId>, envelopes: &[Vec<u8>]) {
        let me = self.me.public().to_bytes();
        for e in envelopes {
            // A version 2 envelope does not name its game: the message does, or else the
            // one game under whose terms its signature verifies.
            let found = self
                .games
                .iter()
                .filter(|t| game.is_none_or(|g| t.game() == g))
                .find_map(|t| {
                    sealed_protocol::envelope::Signed::parse(t, e)
                        .ok()
                        .map(|s| (t, s))
                });
            let Some((terms, env)) = found else {
                continue;
            };
            let game = terms.game();
            let mine = terms
                .key(env.unsigned().seat)
                .is_some_and(|k| k.to_bytes() == me);
            if mine && !self.stolen.contains(e) {
                assert!(
                    self.store.all_envelopes(&game).contains(e),
                    "the node sent an envelope it signed before storing it"
                );
            }
        }
    }

    /// A request the core sends a peer: what it carries is durable first; a live
    /// opponent takes its envelopes, and answers its heads.
    pub(super) fn sent(&mut self, peer: PeerKey, id: OutId, req: &Request) {
        let games: Vec<(GameId, &Vec<Vec<u8>>)> = match req {
            Request::Push { game, envelopes } => vec![(*game, envelopes)],
            Request::PushMany { games } => games.iter().map(|(g, e)| (*g, e)).collect(),
            Request::Offer {
                proposal,
                envelopes,
            } => match Terms::parse(proposal) {
                Ok(t) => vec![(t.game(), envelopes)],
                Err(_) => vec![],
            },
            Request::Pull { game, have } => {
                if let Some(l) = self.live_of(peer, game) {
                    let envelopes = self.live[l].behind(have);
                    self.answers.insert(
                        id,
                        Response::Behind {
                            envelopes: vec![(*game, envelopes)],
                            unknown: vec![],
                        },
                    );
                }
                vec![]
            }
            Request::Heads { games } => {
                let envelopes: Vec<_> = games
                    .iter()
                    .filter_map(|(g, have)| {
                        Some((*g, self.live[self.live_of(peer, g)?].behind(have)))
                    })
                    .collect();
                if !envelopes.is_empty() {
                    self.answers.insert(
                        id,
                        Response::Behind {
                            envelopes,
                            unknown: vec![],
                        },
                    );
                }
                vec![]
            }
            _ => vec![],
        };
        for (game, envelopes) in games {
            self.durable(Some(game), envelopes);
            if let Some(l) = self.live_of(peer, &game) {
                for e in envelopes {
                    self.live[l].take(e, self.now);
                }
            }
        }
    }

    fn live_of(&self, peer: PeerKey, game: &GameId) -> Option<usize> {
        self.live
            .iter()
            .position(|l| l.game == *game && self.peer(l.peer) == peer)
    }

    /// A live opponent decides (its bot, or any text), and what it signed goes to the
    /// node.
    pub(super) fn live_act(&mut self, b: &mut Bytes<'_>) {
        if self.live.is_empty() {
            return;
        }
        let l = b.below(self.live.len());
        let pick = b.u8();
        let text: String = (0..b.below(8))
            .map(|_| char::from(b'a' + b.below(26) as u8))
            .collect();
        self.live[l].act(pick, &text, self.now);
        self.live_push_one(l, usize::MAX);
    }

    /// A live opponent pushes what it has waiting (all of it, or its first few).
    pub(super) fn live_push(&mut self, b: &mut Bytes<'_>) {
        if self.live.is_empty() {
            return;
        }
        let l = b.below(self.live.len());
        let n = if b.below(2) == 0 {
            usize::MAX
        } else {
            b.below(3)
        };
        self.live_push_one(l, n);
    }

    fn live_push_one(&mut self, l: usize, n: usize) {
        let n = n.min(self.live[l].outbox.len());
        if n == 0 {
            return;
        }
        let envelopes: Vec<Vec<u8>> = self.live[l].outbox.drain(..n).collect();
        let game = self.live[l].game;
        let from = self.live[l].peer;
        let req = match self.games.iter().find(|t| t.game() == game) {
            Some(t) if envelopes.len().is_multiple_of(2) => Request::Offer {
                proposal: t.bytes().to_vec(),
                envelopes,
            },
            _ => Request::Push { game, envelopes },
        };
        self.request(from, req);
    }
}
