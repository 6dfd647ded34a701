//! What the core's tests of games held for strangers share (`held_tests.rs`,
//! `strangers_tests.rs`, `resident_tests.rs`): one core on a store in memory, with time
//! given by the test, and the proposals and envelopes strangers send it.

use sealed_games::table::{self, Invitees};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::{MailboxSpec, Terms};

use crate::io::{InId, Input, Output};
use crate::memory::MemoryStore;
use crate::message::{Request, Response};
use crate::origin::Origin;
use crate::{Core, CoreConfig, Durable, GameId, PeerKey};

pub(crate) const NOW: u64 = 1_700_000_000_000;

pub(crate) fn key(n: u64) -> SecretKey {
    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&n.to_le_bytes());
    seed[8] = 0x5e;
    SecretKey::from_seed(&seed)
}

/// The peer key of a secret key.
pub(crate) fn peer_key(k: &SecretKey) -> PeerKey {
    PeerKey::from(k.public())
}

/// One core, its store, and what it said.
pub(crate) struct Node {
    pub(crate) core: Core,
    pub(crate) store: MemoryStore,
    pub(crate) now: u64,
    pub(crate) next: u64,
    pub(crate) answers: Vec<Response>,
    pub(crate) sends: Vec<(PeerKey, Request)>,
}

impl Node {
    pub(crate) fn new(cfg: CoreConfig) -> Node {
        let store = MemoryStore::default();
        let core = Core::start(key(1), cfg, [3; 32], NOW, &store).unwrap();
        let mut n = Node {
            core,
            store,
            now: NOW,
            next: 0,
            answers: vec![],
            sends: vec![],
        };
        n.drain();
        n
    }

    pub(crate) fn me(&self) -> PeerKey {
        self.core.key()
    }

    pub(crate) fn drain(&mut self) {
        while let Some(out) = self.core.poll_output() {
            match out {
                Output::Write { write, writes } => {
                    let new = self.store.commit(&writes);
                    self.core.handle(
                        self.now,
                        Input::Written {
                            write,
                            result: Ok(new),
                        },
                        &self.store,
                    );
                }
                Output::Respond { resp, .. } => self.answers.push(resp),
                Output::Send { peer, req, .. } => self.sends.push((peer, req)),
                _ => {}
            }
        }
    }

    pub(crate) fn input(&mut self, input: Input) {
        self.core.handle(self.now, input, &self.store);
        self.drain();
    }

    pub(crate) fn connect(&mut self, peer: PeerKey, ip: &str) {
        self.input(Input::Connected {
            peer,
            addr: None,
            origin: Some(Origin {
                key: format!("ip4/{ip}"),
                global: true,
            }),
        });
    }

    pub(crate) fn ask(&mut self, peer: PeerKey, req: Request) -> Response {
        let id = InId(self.next);
        self.next += 1;
        self.input(Input::Request { peer, id, req });
        self.answers.pop().expect("an answer")
    }

    /// Time alone at `now`, the repair round included however lately one ran: these
    /// tests step time by hand in strides of their own.
    pub(crate) fn tick_at(&mut self, now: u64) {
        self.now = now;
        self.core.repair_at = self.core.repair_at.min(now);
        self.input(Input::Timeout);
    }

    pub(crate) fn knows(&self, game: &GameId) -> bool {
        self.store.knows(game).unwrap()
    }
}

/// The terms of a game of `variant` that `from` proposes to `invitees`, made unique by
/// `nonce`.
pub(crate) fn proposed(variant: &str, from: &SecretKey, invitees: Invitees, nonce: u64) -> Terms {
    let mut n = [0u8; 32];
    n[..8].copy_from_slice(&nonce.to_le_bytes());
    let signed = table::propose(variant, &[], from, invitees, NOW, n).unwrap();
    Terms::from_signed(signed).unwrap()
}

/// A duel `from` proposes to `to`, through `mailbox` if any.
pub(crate) fn duel(from: &SecretKey, to: PeerKey, mailbox: Option<PeerKey>, nonce: u64) -> Terms {
    let invitees = Invitees {
        opponent: to.to_bytes(),
        mailboxes: mailbox
            .map(|key| MailboxSpec {
                key: key.to_bytes(),
                addrs: vec![],
            })
            .into_iter()
            .collect(),
        ..Invitees::default()
    };
    proposed("duel", from, invitees, nonce)
}

pub(crate) fn propose(t: &Terms) -> Request {
    Request::Propose {
        proposal: t.bytes().to_vec(),
    }
}

pub(crate) fn mailbox(open_total: usize) -> Node {
    let mut cfg = CoreConfig {
        mailbox: true,
        ..CoreConfig::default()
    };
    cfg.quotas.open_total = open_total;
    Node::new(cfg)
}

/// An envelope of `seat`'s public chain of `t`, signed by `key`, at `seq`.
pub(crate) fn envelope(t: &Terms, key: &SecretKey, seat: u8, seq: u64) -> Vec<u8> {
    padded(t, key, seat, seq, 100)
}

/// As [`envelope`], its act `pad` bytes long.
pub(crate) fn padded(t: &Terms, key: &SecretKey, seat: u8, seq: u64, pad: usize) -> Vec<u8> {
    reply(t, key, seat, seq, &[], pad)
}

/// As [`padded`], acknowledging `acked` (other seats' envelopes of `t`).
pub(crate) fn reply(
    t: &Terms,
    key: &SecretKey,
    seat: u8,
    seq: u64,
    acked: &[&Vec<u8>],
    pad: usize,
) -> Vec<u8> {
    use sealed_protocol::body::Item;
    use sealed_protocol::envelope::{Ack, Signed, Unsigned};
    use sealed_protocol::hash::Hash;
    use sealed_protocol::ids::{LogId, Seat};
    let mut acks: Vec<Ack> = acked
        .iter()
        .map(|b| {
            let s = Signed::parse(t, b).expect("an envelope of the game");
            Ack {
                chain: s.at().chain,
                seq: s.at().seq,
                hash: s.hash,
            }
        })
        .collect();
    acks.sort_by_key(|a| a.chain);
    Unsigned {
        version: t.version(),
        game: t.game(),
        log: LogId::PUBLIC,
        seat: Seat(seat),
        seq,
        prev: Hash([0; 32]),
        acks,
        clock: 1,
        body: vec![Item::Act(vec![7; pad])],
    }
    .sign(key)
    .bytes
}

/// A mailbox that keeps, a day, 16 games and `envelopes` envelopes of `bytes` bytes per
/// proposer, with Alice (key 100, from 1.1.1.1) and Bob (key 101, from 2.2.2.2)
/// connected: the node and their keys.
pub(crate) fn mailbox_for_two(envelopes: u64, bytes: u64) -> (Node, SecretKey, SecretKey) {
    let mut cfg = CoreConfig {
        mailbox: true,
        ..CoreConfig::default()
    };
    cfg.quotas.per_proposer = crate::record::Usage {
        games: 16,
        envelopes,
        bytes,
    };
    let mut n = Node::new(cfg);
    let (alice, bob) = (key(100), key(101));
    n.connect(peer_key(&alice), "1.1.1.1");
    n.connect(peer_key(&bob), "2.2.2.2");
    (n, alice, bob)
}

/// A push of `envelopes` of game `t`.
pub(crate) fn push(t: &Terms, envelopes: Vec<Vec<u8>>) -> Request {
    Request::Push {
        game: t.game(),
        envelopes,
    }
}
