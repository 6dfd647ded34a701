//! A core's budgets against a stranger, one rule at a time (spec/PROTOCOL.md §16.4,
//! ARCHITECTURE.md *Budgets*): a core on the node's in-memory store, every write
//! committed at once, the stranger's requests handed in as the shell would. The
//! hostile-peer harness (cli/tests/hostile.rs) tries the same against real processes.

use sealed_games::table::{self, Invitees};
use sealed_node::core::{
    Cmd, CmdId, Core, CoreConfig, Durable, GameId, InId, Input, Output, PeerKey,
};
use sealed_node::origin::Origin;
use sealed_node::store::{GameStatus, MemoryStore};
use sealed_node::sync::{Request, Response};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::{MailboxSpec, Terms};

const NOW: u64 = 1_700_000_000_000;

/// One core, its store, and what it did.
struct Node {
    core: Core,
    store: MemoryStore,
    key: SecretKey,
    cfg: CoreConfig,
    now: u64,
    next: u64,
    dials: Vec<(PeerKey, Vec<String>)>,
    answers: Vec<Response>,
    sends: Vec<(PeerKey, Request)>,
}

fn key(n: u8) -> SecretKey {
    SecretKey::from_seed(&[n; 32])
}

/// The peer key of a secret key.
fn pk(k: &SecretKey) -> PeerKey {
    PeerKey::from(k.public())
}

impl Node {
    fn new(cfg: CoreConfig) -> Node {
        let store = MemoryStore::default();
        let core = Core::start(key(1), cfg.clone(), [3; 32], NOW, &store).unwrap();
        let mut n = Node {
            core,
            store,
            key: key(1),
            cfg,
            now: NOW,
            next: 0,
            dials: vec![],
            answers: vec![],
            sends: vec![],
        };
        n.drain();
        n
    }

    fn me(&self) -> PeerKey {
        pk(&self.key)
    }

    /// Carries out the core's outputs: writes commit at once.
    fn drain(&mut self) {
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
                Output::Dial { peer, addrs } => self.dials.push((peer, addrs)),
                Output::Respond { resp, .. } => self.answers.push(resp),
                Output::Send { peer, req, .. } => self.sends.push((peer, req)),
                _ => {}
            }
        }
    }

    fn input(&mut self, input: Input) {
        self.core.handle(self.now, input, &self.store);
        self.drain();
    }

    fn connect(&mut self, peer: PeerKey, ip: &str) {
        let global = !ip.starts_with("10.") && !ip.starts_with("127.");
        self.input(Input::Connected {
            peer,
            addr: None,
            origin: Some(Origin {
                key: format!("ip4/{ip}"),
                global,
            }),
        });
    }

    fn ask(&mut self, peer: PeerKey, req: Request) -> Response {
        let id = InId(self.next);
        self.next += 1;
        self.input(Input::Request { peer, id, req });
        self.answers.pop().expect("an answer")
    }

    fn restart(&mut self) {
        self.core = Core::start(key(1), self.cfg.clone(), [4; 32], self.now, &self.store).unwrap();
        self.drain();
    }

    fn command(&mut self, cmd: Cmd) {
        self.input(Input::Command { id: CmdId(0), cmd });
    }
}

fn duel(from: &SecretKey, to: PeerKey, mailboxes: Vec<MailboxSpec>, nonce: u8) -> Terms {
    let signed = table::propose(
        "duel",
        &[],
        from,
        Invitees {
            opponent: to.to_bytes(),
            mailboxes,
            ..Invitees::default()
        },
        NOW,
        [nonce; 32],
    )
    .unwrap();
    Terms::from_signed(signed).unwrap()
}

fn addr(ip: &str, port: u16, of: &PeerKey) -> String {
    format!(
        "/ip4/{ip}/tcp/{port}/p2p/{}",
        sealed_node::net::peer_id(of.as_bytes()).unwrap()
    )
}

fn introduce(n: &mut Node, from: PeerKey, game: GameId, addrs: &[String]) -> Response {
    let id = InId(n.next);
    n.next += 1;
    let addrs = addrs
        .iter()
        .map(|a| {
            let m: sealed_node::Multiaddr = a.parse().ok()?;
            let k = sealed_node::shell::key_of(&sealed_node::shell::peer_of(&m)?)?;
            Some((k, a.clone()))
        })
        .collect();
    n.input(Input::Introduced {
        peer: from,
        id,
        game,
        addrs,
    });
    n.answers.pop().expect("an answer")
}

#[test]
fn introductions_dial_only_a_seat_of_an_accepted_game_and_private_addresses_only_from_a_private_peer()
 {
    let mut n = Node::new(CoreConfig::default());
    let stranger = key(20);
    let s = pk(&stranger);
    let referee = pk(&key(22));
    let other = pk(&key(21));
    n.connect(s, "9.9.9.9");
    // A game nobody knows: refused, nothing learned or dialled.
    let r = introduce(&mut n, s, [7; 32].into(), &[addr("9.8.7.6", 1, &other)]);
    assert!(matches!(r, Response::Refused(_)), "{r:?}");
    // An invitation not accepted: taken, but its introductions are not.
    let signed = table::propose(
        "stallmate",
        &[],
        &stranger,
        Invitees {
            opponent: n.me().to_bytes(),
            referee: Some(referee.to_bytes()),
            ..Invitees::default()
        },
        NOW,
        [1; 32],
    )
    .unwrap();
    let t = Terms::from_signed(signed).unwrap();
    let game = t.game();
    assert!(matches!(
        n.ask(
            s,
            Request::Propose {
                proposal: t.bytes().to_vec()
            }
        ),
        Response::Ok { .. }
    ));
    n.dials.clear();
    introduce(&mut n, s, game, &[addr("9.8.7.6", 2, &referee)]);
    assert!(n.dials.is_empty(), "{:?}", n.dials);
    // Accepted: four of a seat's global addresses are kept and dialled; a private one
    // from a peer on a global address, and an address of a peer holding no seat, not.
    n.command(Cmd::Accept(hex::encode(game).into()));
    n.dials.clear();
    let mut addrs: Vec<String> = (0..6).map(|p| addr("9.8.7.6", 10 + p, &referee)).collect();
    addrs.push(addr("10.0.0.5", 20, &referee));
    addrs.push(addr("9.8.7.7", 30, &other));
    assert!(matches!(
        introduce(&mut n, s, game, &addrs),
        Response::Ok { .. }
    ));
    let dialled = |n: &Node, who: &PeerKey| -> Vec<String> {
        n.dials
            .iter()
            .filter(|(p, _)| p == who)
            .flat_map(|(_, a)| a.clone())
            .collect()
    };
    let to_referee = dialled(&n, &referee);
    assert!(
        !to_referee.is_empty() && to_referee.len() <= 4,
        "{to_referee:?}"
    );
    assert!(
        to_referee.iter().all(|a| a.contains("/9.8.7.6/")),
        "{to_referee:?}"
    );
    assert!(dialled(&n, &other).is_empty());
    // From a peer on a private network, a private address of a seat is taken.
    n.input(Input::Disconnected { peer: s });
    n.connect(s, "10.0.0.9");
    n.dials.clear();
    introduce(&mut n, s, game, &[addr("10.0.0.5", 21, &referee)]);
    assert!(
        dialled(&n, &referee)
            .iter()
            .any(|a| a.contains("/10.0.0.5/")),
        "{:?}",
        n.dials
    );
}

#[test]
fn a_strangers_invitations_stay_capped_across_a_restart() {
    let mut n = Node::new(CoreConfig::default());
    let stranger = key(30);
    let s = pk(&stranger);
    n.connect(s, "9.9.9.9");
    let mut taken = 0;
    let t = duel(&stranger, n.me(), vec![], 0);
    if matches!(
        n.ask(
            s,
            Request::Propose {
                proposal: t.bytes().to_vec()
            }
        ),
        Response::Ok { .. }
    ) {
        taken += 1;
    }
    n.restart();
    n.connect(s, "9.9.9.9");
    for i in 1..12 {
        let t = duel(&stranger, n.me(), vec![], i);
        if matches!(
            n.ask(
                s,
                Request::Propose {
                    proposal: t.bytes().to_vec()
                }
            ),
            Response::Ok { .. }
        ) {
            taken += 1;
        }
    }
    assert_eq!(taken, 8, "eight invitations from one stranger wait at once");
    // Declining one makes room; accepting one makes a friend, whose invitations are
    // never capped.
    let ids: Vec<String> = n.store.game_ids().into_iter().map(hex::encode).collect();
    n.command(Cmd::Accept(ids[0].clone().into()));
    n.restart();
    n.connect(s, "9.9.9.9");
    for i in 20..40 {
        let t = duel(&stranger, n.me(), vec![], i);
        assert!(matches!(
            n.ask(
                s,
                Request::Propose {
                    proposal: t.bytes().to_vec()
                }
            ),
            Response::Ok { .. }
        ));
    }
}

#[test]
fn an_invitation_keeps_nothing_standing_until_accepted() {
    let mut n = Node::new(CoreConfig::default());
    let stranger = key(40);
    let s = pk(&stranger);
    let fake = pk(&key(41));
    n.connect(s, "9.9.9.9");
    let t = duel(
        &stranger,
        n.me(),
        vec![MailboxSpec {
            key: fake.to_bytes(),
            addrs: vec![addr("9.7.7.7", 1, &fake)],
        }],
        1,
    );
    n.ask(
        s,
        Request::Propose {
            proposal: t.bytes().to_vec(),
        },
    );
    n.now += 60_000;
    n.input(Input::Timeout);
    n.restart();
    n.now += 60_000;
    n.input(Input::Timeout);
    assert!(!n.core.is_standing(&fake));
    assert!(n.dials.iter().all(|(p, _)| *p != fake), "{:?}", n.dials);
    // A decline goes to the game's mailboxes too (the proposer may be away): looked up
    // by key at this node's own lookup points, never at the proposal's address.
    n.command(Cmd::Decline(hex::encode(t.game()).into()));
    n.restart();
    n.input(Input::Timeout);
    assert!(!n.core.is_standing(&fake));
    assert!(
        n.dials.iter().all(|(p, a)| *p != fake || a.is_empty()),
        "{:?}",
        n.dials
    );
}

#[test]
fn the_peer_book_is_bounded_on_disk_as_in_memory() {
    let mut n = Node::new(CoreConfig::default());
    for i in 0..700u32 {
        let mut seed = [9u8; 32];
        seed[..4].copy_from_slice(&i.to_le_bytes());
        let k = pk(&SecretKey::from_seed(&seed));
        n.now += 1;
        n.input(Input::Learned {
            peer: k,
            addrs: vec![addr("9.1.1.1", 1, &k)],
        });
    }
    let rows = n.store.settings("book/");
    assert!(rows <= 512, "{rows} rows");
    n.restart();
    assert!(n.store.settings("book/") <= 512);
}

#[test]
fn a_public_mailbox_holds_a_strangers_games_within_the_quota_and_one_equivocation_per_position() {
    let cfg = CoreConfig {
        mailbox: true,
        ..CoreConfig::default()
    };
    let mut n = Node::new(cfg);
    let me = n.me();
    let stranger = key(50);
    let s = pk(&stranger);
    n.connect(s, "9.9.9.9");
    let mailbox = MailboxSpec {
        key: me.to_bytes(),
        addrs: vec![addr("9.9.9.1", 1, &me)],
    };
    let open = sealed_node::core::Quotas::default().open_per_proposer;
    let mut terms = vec![];
    for i in 0..(open as u8 + 4) {
        let t = duel(&stranger, pk(&key(51)), vec![mailbox.clone()], i);
        if matches!(
            n.ask(
                s,
                Request::Propose {
                    proposal: t.bytes().to_vec()
                }
            ),
            Response::Ok { .. }
        ) {
            terms.push(t);
        }
    }
    assert_eq!(terms.len(), open);
    let (used, _) = n.core.used_by(&s);
    assert_eq!(used.games, open as u64);
    // Ten different envelopes at seat 0's first position: two are stored.
    let t = &terms[0];
    let game = t.game();
    for clock in 0..10 {
        let e = sealed_protocol::envelope::Unsigned {
            version: t.version(),
            game: t.game(),
            log: sealed_protocol::ids::LogId::PUBLIC,
            seat: sealed_protocol::ids::Seat(0),
            seq: 0,
            prev: sealed_protocol::hash::Hash([0; 32]),
            acks: vec![],
            clock,
            body: vec![],
        }
        .sign(&stranger);
        n.ask(
            s,
            Request::Push {
                game,
                envelopes: vec![e.bytes],
            },
        );
    }
    assert_eq!(n.store.envelopes(&game).unwrap().len(), 2);
    // The ledger is in the store: a restart forgets nothing.
    n.restart();
    assert_eq!(
        n.core.used_by(&s).0,
        used.plus(sealed_node::store::Usage {
            games: 0,
            envelopes: 2,
            bytes: n
                .store
                .envelopes(&game)
                .unwrap()
                .iter()
                .map(|e| e.len() as u64)
                .sum(),
        })
    );
    let t = duel(&stranger, pk(&key(51)), vec![mailbox], 99);
    assert!(matches!(
        n.ask(
            s,
            Request::Propose {
                proposal: t.bytes().to_vec()
            }
        ),
        Response::Refused(_)
    ));
    assert!(matches!(
        n.store.game(&terms[1].game()).unwrap().map(|g| g.status),
        Some(GameStatus::Relayed)
    ));
}

/// A seat that pushes another envelope than the one a mailbox keeps at a place gets the
/// kept one back, and so can prove the equivocation: else a seat holding one twin never
/// asks for that place again, and a witness following the other cannot date what it
/// sends (the adversarial simulation's seed 61).
#[test]
fn a_mailbox_sends_back_the_envelope_it_keeps_to_a_seat_that_pushes_its_twin() {
    let cfg = CoreConfig {
        mailbox: true,
        ..CoreConfig::default()
    };
    let mut n = Node::new(cfg);
    let me = n.me();
    let (white, black) = (key(60), key(61));
    let (w, b) = (pk(&white), pk(&black));
    n.connect(w, "9.9.9.9");
    n.connect(b, "9.9.9.8");
    let mailbox = MailboxSpec {
        key: me.to_bytes(),
        addrs: vec![addr("9.9.9.1", 1, &me)],
    };
    let t = duel(&white, b, vec![mailbox], 0);
    let game = t.game();
    let ok = n.ask(
        w,
        Request::Propose {
            proposal: t.bytes().to_vec(),
        },
    );
    assert!(matches!(ok, Response::Ok { .. }), "{ok:?}");
    // Two envelopes of White's at his first place, each pushed by one seat.
    let twin = |clock: u64| {
        sealed_protocol::envelope::Unsigned {
            version: t.version(),
            game: t.game(),
            log: sealed_protocol::ids::LogId::PUBLIC,
            seat: sealed_protocol::ids::Seat(0),
            seq: 0,
            prev: sealed_protocol::hash::Hash([0; 32]),
            acks: vec![],
            clock,
            body: vec![],
        }
        .sign(&white)
    };
    let (kept, other) = (twin(1), twin(2));
    n.ask(
        w,
        Request::Push {
            game,
            envelopes: vec![kept.bytes.clone()],
        },
    );
    n.sends.clear();
    n.ask(
        b,
        Request::Push {
            game,
            envelopes: vec![other.bytes.clone()],
        },
    );
    let back: Vec<&Vec<Vec<u8>>> = n
        .sends
        .iter()
        .filter_map(|(p, r)| match r {
            Request::Push { envelopes, .. } if *p == b => Some(envelopes),
            _ => None,
        })
        .collect();
    assert!(
        back.iter().any(|e| e.contains(&kept.bytes)),
        "Black got back {back:?}"
    );
    // And the same envelope pushed again gets nothing back.
    n.sends.clear();
    n.ask(
        w,
        Request::Push {
            game,
            envelopes: vec![kept.bytes.clone()],
        },
    );
    assert!(!n.sends.iter().any(|(p, _)| *p == w), "{:?}", n.sends);
}

/// A ruling (`Request::Ruling`, spec/PROTOCOL.md §16.3) is taken only from a mailbox or
/// seat of a game this node plays, at most 4096 bytes, and only if the game takes it:
/// a stranger, an unknown game, an oversize act and a game with no arbiter are each
/// refused with their reason, and nothing is kept.
#[test]
fn a_ruling_is_taken_only_from_a_games_mailbox_or_seat_and_only_as_the_game_allows() {
    let mut n = Node::new(CoreConfig::default());
    let proposer = key(50);
    let p = pk(&proposer);
    let mailbox = pk(&key(51));
    let stranger = pk(&key(52));
    n.connect(p, "9.9.9.9");
    n.connect(stranger, "8.8.8.8");
    let t = duel(
        &proposer,
        n.me(),
        vec![MailboxSpec {
            key: mailbox.to_bytes(),
            addrs: vec![addr("9.7.7.7", 1, &mailbox)],
        }],
        2,
    );
    n.ask(
        p,
        Request::Propose {
            proposal: t.bytes().to_vec(),
        },
    );
    let game = t.game();
    let refused = |r: Response| match r {
        Response::Refused(why) => why,
        other => panic!("taken: {other:?}"),
    };
    let why = refused(n.ask(
        stranger,
        Request::Ruling {
            game,
            act: vec![1; 40],
        },
    ));
    assert!(why.contains("only the game's seats and mailboxes"), "{why}");
    let why = refused(n.ask(
        p,
        Request::Ruling {
            game: [9; 32].into(),
            act: vec![1; 40],
        },
    ));
    assert!(why.contains("plays no such game"), "{why}");
    let why = refused(n.ask(
        mailbox,
        Request::Ruling {
            game,
            act: vec![1; 5000],
        },
    ));
    assert!(why.contains("more than 4096 bytes"), "{why}");
    // From the game's own mailbox, to a game not started: the game's refusal, and
    // nothing to post.
    let why = refused(n.ask(
        mailbox,
        Request::Ruling {
            game,
            act: vec![1; 40],
        },
    ));
    assert!(why.contains("has not started"), "{why}");
    n.command(Cmd::Accept(hex::encode(game).into()));
    assert!(
        n.sends
            .iter()
            .all(|(_, r)| !matches!(r, Request::Ruling { .. }))
    );
}
