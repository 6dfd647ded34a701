//! Games held for strangers, end to end in one core on a store in memory, with time
//! given by the test (`held.rs`): owners by origin and network, eviction of the network
//! holding most, lifetimes, and an invitation a mailbox relays counted at its sender.

use crate::held::DAY_MS;
use crate::io::Input;
use crate::message::{Request, Response};
use crate::test_kit::*;
use crate::{Core, CoreConfig, Durable, GameId};

#[test]
fn fresh_keys_from_one_network_yield_to_a_newcomer_from_another() {
    let mut n = mailbox(8);
    let me = n.me();
    let opponent = peer_key(&key(999));
    // 8 fresh keys from 1.1.1/24 fill the mailbox's open games.
    let mut theirs = vec![];
    for i in 0..8u64 {
        let k = key(100 + i);
        let p = peer_key(&k);
        n.connect(p, &format!("1.1.1.{}", 1 + i % 2));
        let t = duel(&k, opponent, Some(me), i);
        assert_eq!(n.ask(p, propose(&t)), Response::Ok { new: 0 });
        theirs.push(t.game());
    }
    // A ninth from the same network is refused: it holds most.
    let k = key(200);
    n.connect(peer_key(&k), "1.1.1.9");
    let t = duel(&k, opponent, Some(me), 50);
    assert!(matches!(
        n.ask(peer_key(&k), propose(&t)),
        Response::Refused(_)
    ));
    // A newcomer from a clean network takes the place of one game of the busiest
    // address of 1.1.1/24 (1.1.1.1 and .2 hold four each, all as old: which one goes
    // follows the game ids, which the protocol's draft changes).
    let honest = key(300);
    n.connect(peer_key(&honest), "2.2.2.2");
    let t = duel(&honest, opponent, Some(me), 60);
    assert_eq!(
        n.ask(peer_key(&honest), propose(&t)),
        Response::Ok { new: 0 }
    );
    assert!(n.knows(&t.game()));
    let gone: Vec<usize> = (0..theirs.len())
        .filter(|i| !n.knows(&theirs[*i]))
        .collect();
    assert_eq!(
        gone.len(),
        1,
        "one of the crowd's games is dropped: {gone:?}"
    );
    // Offered again, the evicted game is refused as such, not taken anew.
    let i = gone[0] as u64;
    let k0 = peer_key(&key(100 + i));
    let again = duel(&key(100 + i), opponent, Some(me), i);
    assert_eq!(
        n.ask(k0, propose(&again)),
        Response::Refused(
            crate::refusal::PeerRefusal::Gone(crate::held::Gone::Evicted).to_string()
        )
    );
}

#[test]
fn owners_are_kept_across_a_restart() {
    let mut n = mailbox(4);
    let me = n.me();
    let opponent = peer_key(&key(999));
    for i in 0..4u64 {
        let k = key(100 + i);
        n.connect(peer_key(&k), "1.1.1.1");
        let t = duel(&k, opponent, Some(me), i);
        assert_eq!(n.ask(peer_key(&k), propose(&t)), Response::Ok { new: 0 });
    }
    let cfg = CoreConfig {
        mailbox: true,
        quotas: crate::Quotas {
            open_total: 4,
            ..crate::Quotas::default()
        },
        ..CoreConfig::default()
    };
    n.core = Core::start(key(1), cfg, [4; 32], n.now, &n.store).unwrap();
    n.drain();
    // After the restart the games are still 1.1.1/24's: a newcomer from elsewhere
    // evicts one, where an unknown owner would have made them a group of their own.
    let k = key(300);
    n.connect(peer_key(&k), "1.1.1.7");
    let t = duel(&k, opponent, Some(me), 70);
    assert!(matches!(
        n.ask(peer_key(&k), propose(&t)),
        Response::Refused(_)
    ));
    let k = key(301);
    n.connect(peer_key(&k), "3.3.3.3");
    let t = duel(&k, opponent, Some(me), 71);
    assert_eq!(n.ask(peer_key(&k), propose(&t)), Response::Ok { new: 0 });
}

#[test]
fn a_game_nobody_accepted_expires_at_its_time_and_an_envelope_renews_it() {
    let mut n = mailbox(16);
    let me = n.me();
    let opponent = peer_key(&key(999));
    let k = key(100);
    let p = peer_key(&k);
    n.connect(p, "1.1.1.1");
    let (a, b) = (
        duel(&k, opponent, Some(me), 1),
        duel(&k, opponent, Some(me), 2),
    );
    n.ask(p, propose(&a));
    n.ask(p, propose(&b));
    let open = crate::held::Lifetime::default().open_ms;
    // Half way, an envelope of `b` (its proposer's first) renews it.
    n.now = NOW + open / 2;
    let env = sealed_protocol::envelope::Unsigned {
        version: b.version(),
        game: b.game(),
        log: sealed_protocol::ids::LogId::PUBLIC,
        seat: sealed_protocol::ids::Seat(0),
        seq: 0,
        prev: sealed_protocol::hash::Hash([0; 32]),
        acks: vec![],
        clock: 0,
        body: vec![],
    }
    .sign(&k);
    assert_eq!(
        n.ask(
            p,
            Request::Push {
                game: b.game(),
                envelopes: vec![env.bytes]
            }
        ),
        Response::Ok { new: 1 }
    );
    // A moment before its time `a` is held; at it, it is gone, with its envelopes.
    n.tick_at(NOW + open - 1);
    assert!(n.knows(&a.game()));
    n.tick_at(NOW + open + 60_000);
    assert!(!n.knows(&a.game()), "expired");
    assert!(n.knows(&b.game()), "renewed half way");
    assert_eq!(
        n.ask(p, propose(&a)),
        Response::Refused(
            crate::refusal::PeerRefusal::Gone(crate::held::Gone::Expired).to_string()
        )
    );
    n.tick_at(NOW + open / 2 + open + 60_000);
    assert!(!n.knows(&b.game()));
    assert!(
        n.store.envelopes(&b.game()).unwrap().is_empty(),
        "its bytes go"
    );
    // The tombstones go after 30 days: the game could be taken anew then.
    n.tick_at(NOW + 60 * DAY_MS);
    assert_eq!(n.store.settings(crate::held::GONE), 0);
}

#[test]
fn a_friends_invitation_never_expires_and_a_strangers_is_declined() {
    let mut n = Node::new(CoreConfig::default());
    let me = n.me();
    let friend = key(7);
    let f = peer_key(&friend);
    n.connect(f, "4.4.4.4");
    // His first invitation, accepted: he is a friend now.
    let theirs = duel(&friend, me, None, 2);
    assert_eq!(n.ask(f, propose(&theirs)), Response::Ok { new: 0 });
    n.input(Input::Command {
        id: crate::CmdId(1),
        cmd: crate::Cmd::Accept(theirs.game().into()),
    });
    let again = duel(&friend, me, None, 3);
    assert_eq!(n.ask(f, propose(&again)), Response::Ok { new: 0 });
    let stranger = key(8);
    let s = peer_key(&stranger);
    n.connect(s, "5.5.5.5");
    let spam = duel(&stranger, me, None, 4);
    assert_eq!(n.ask(s, propose(&spam)), Response::Ok { new: 0 });
    n.tick_at(NOW + 365 * DAY_MS);
    let status = |n: &Node, g: &GameId| n.store.game(g).unwrap().map(|r| r.status);
    assert_eq!(
        status(&n, &again.game()),
        Some(crate::record::GameStatus::Invited),
        "a friend's invitation waits"
    );
    // A stranger's is declined once its week is over, and dropped in the same write:
    // only its tombstone stays, with the decline (the next test).
    assert_eq!(status(&n, &spam.game()), None);
    assert!(!n.knows(&spam.game()));
    assert!(n.core.games.slot(&spam.game()).is_none(), "not in memory");
    assert_eq!(n.store.settings(crate::held::GONE), 1);
}

#[test]
fn an_invitation_a_mailbox_relays_counts_at_the_origin_it_says() {
    let mut n = Node::new(CoreConfig::default());
    let me = n.me();
    let mb = key(5);
    let m = peer_key(&mb);
    n.connect(m, "6.6.6.6");
    // 16 invitations relayed from one sender's address fill that address's share.
    for i in 0..16u64 {
        let k = key(400 + i / 8 * 100 + i);
        let t = duel(&k, me, Some(m), i);
        let r = n.ask(
            m,
            Request::OfferFrom {
                proposal: t.bytes().to_vec(),
                envelopes: vec![],
                origin: "ip4/7.7.7.7".into(),
            },
        );
        assert_eq!(r, Response::Ok { new: 0 }, "{i}");
    }
    let k = key(900);
    let t = duel(&k, me, Some(m), 90);
    assert!(matches!(
        n.ask(
            m,
            Request::OfferFrom {
                proposal: t.bytes().to_vec(),
                envelopes: vec![],
                origin: "ip4/7.7.7.7".into(),
            },
        ),
        Response::Refused(_)
    ));
    // Another sender through the same mailbox is still taken: it is his address that
    // counts, not the mailbox's.
    let k = key(901);
    let t = duel(&k, me, Some(m), 91);
    assert_eq!(
        n.ask(
            m,
            Request::OfferFrom {
                proposal: t.bytes().to_vec(),
                envelopes: vec![],
                origin: "ip4/8.8.8.8".into(),
            },
        ),
        Response::Ok { new: 0 }
    );
}

#[test]
fn a_days_quotas_hold_across_a_restart_and_come_back_the_next_day() {
    use crate::record::Usage;
    use crate::refusal::PeerRefusal;
    let games = |games| Usage {
        games,
        envelopes: 1 << 20,
        bytes: 1 << 30,
    };
    let cfg = CoreConfig {
        mailbox: true,
        quotas: crate::Quotas {
            per_proposer: games(2),
            per_network: games(3),
            // Six of them anyone's, the last quarter shared by network (`quota.rs`).
            total: games(8),
            ..crate::Quotas::default()
        },
        ..CoreConfig::default()
    };
    let mut n = Node::new(cfg.clone());
    let me = n.me();
    let opponent = peer_key(&key(999));
    let mut nonce = 0;
    let mut offer = |n: &mut Node, who: u64, ip: &str| {
        let k = key(who);
        n.connect(peer_key(&k), ip);
        nonce += 1;
        let t = duel(&k, opponent, Some(me), nonce);
        n.ask(peer_key(&k), propose(&t))
    };
    let ok = Response::Ok { new: 0 };
    // Fresh keys from one network: its share is three games a day.
    assert_eq!(offer(&mut n, 100, "1.1.1.1"), ok);
    assert_eq!(offer(&mut n, 100, "1.1.1.1"), ok);
    assert_eq!(offer(&mut n, 101, "1.1.1.2"), ok);
    let network = Response::Refused(PeerRefusal::NetworkQuota(games(3)).to_string());
    assert_eq!(offer(&mut n, 102, "1.1.1.3"), network);
    // Others have theirs, up to everyone's six; a fifth network's share of the
    // reserve (two games over five networks) is none.
    assert_eq!(offer(&mut n, 200, "2.2.2.2"), ok);
    assert_eq!(offer(&mut n, 300, "3.3.3.3"), ok);
    assert_eq!(offer(&mut n, 400, "4.4.4.4"), ok);
    let all = Response::Refused(PeerRefusal::StrangersQuota.to_string());
    assert_eq!(offer(&mut n, 500, "5.5.5.5"), all);
    // The operator sees who holds what, and what was refused and why.
    let view = n.core.peers_view();
    let first = &view.strangers[0];
    assert_eq!(
        (first.network.as_str(), first.open, first.today.games),
        ("ip4/1.1.1/24", 3, 3)
    );
    assert_eq!(view.strangers.len(), 4);
    let reasons: Vec<&str> = view.refused.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(
        reasons,
        [
            "quota: this node keeps at most N games, N envelopes and N bytes a day for one network",
            "quota: this node keeps no more for strangers today",
        ]
    );
    // A restart forgets nothing of today's total. It forgets what each network stored
    // (kept in memory only), so the reserve is shared anew among the networks that come
    // after it; the total is still the bound.
    n.core = Core::start(key(1), cfg, [4; 32], n.now, &n.store).unwrap();
    n.drain();
    assert_eq!(offer(&mut n, 501, "5.5.5.6"), ok);
    assert_eq!(offer(&mut n, 600, "6.6.6.6"), ok);
    assert_eq!(offer(&mut n, 700, "7.7.7.7"), all);
    // The next day the shares are whole again, and the store keeps today's only.
    n.tick_at(NOW + DAY_MS);
    assert_eq!(offer(&mut n, 102, "1.1.1.3"), ok);
    let kept = n.store.quotas().unwrap();
    assert_eq!(kept.len(), 1, "yesterday's counts left the store");
    assert_eq!(kept[0].1.games, 1);
}

#[test]
fn each_seat_pays_for_its_own_envelopes_and_one_past_its_share_is_refused_alone() {
    let (mut n, alice, bob) = mailbox_for_two(4, 1 << 20);
    let me = n.me();
    let (a, b) = (peer_key(&alice), peer_key(&bob));
    let t = duel(&alice, b, Some(me), 1);
    let push = |envelopes| push(&t, envelopes);
    assert_eq!(n.ask(a, propose(&t)), Response::Ok { new: 0 });
    let bobs: Vec<Vec<u8>> = (0..6).map(|q| envelope(&t, &bob, 1, q)).collect();
    // Bob, who did not propose, spends his own share, not Alice's.
    assert_eq!(n.ask(b, push(bobs[..4].to_vec())), Response::Ok { new: 4 });
    assert!(matches!(
        n.ask(b, push(vec![bobs[4].clone()])),
        Response::Refused(_)
    ));
    // Alice's envelopes are taken, even beside one of Bob's past his share.
    let mut mixed: Vec<Vec<u8>> = (0..2).map(|q| envelope(&t, &alice, 0, q)).collect();
    mixed.push(bobs[5].clone());
    assert_eq!(n.ask(a, push(mixed)), Response::Ok { new: 2 });
    assert_eq!(n.store.envelopes(&t.game()).unwrap().len(), 6);
    assert_eq!(n.core.used_by(&b).0.envelopes, 4);
    assert_eq!(n.core.used_by(&a).0.envelopes, 2);
}

#[test]
fn an_invitation_holds_a_bounded_size_whatever_its_proposer_pushes() {
    let mut n = Node::new(CoreConfig::default());
    let me = n.me();
    let stranger = key(100);
    let s = peer_key(&stranger);
    n.connect(s, "1.1.1.1");
    let t = duel(&stranger, me, None, 1);
    assert_eq!(n.ask(s, propose(&t)), Response::Ok { new: 0 });
    let junk: Vec<Vec<u8>> = (0..40)
        .map(|q| padded(&t, &stranger, 0, q, 60_000))
        .collect();
    let push = |envelopes: &[Vec<u8>]| Request::Push {
        game: t.game(),
        envelopes: envelopes.to_vec(),
    };
    let Response::Ok { new } = n.ask(s, push(&junk[..20])) else {
        panic!("a first push within the bound is taken");
    };
    let stored = n.store.envelopes(&t.game()).unwrap();
    let bytes: u64 = stored.iter().map(|e| e.len() as u64).sum();
    assert!(new > 0 && new < 20, "{new} of 20 taken, {bytes} bytes");
    assert!(
        bytes <= crate::take::INVITATION_BYTES,
        "{bytes} bytes stored"
    );
    assert_eq!(
        n.ask(s, push(&junk[20..])),
        Response::Refused(
            crate::refusal::PeerRefusal::GameFull(crate::take::INVITATION_BYTES).to_string()
        )
    );
    // After a restart the bound still counts what is stored (and the invitation,
    // though it ended before any answer, made its proposer no friend).
    n.tick_at(n.now + 1_000);
    n.core = Core::start(key(1), CoreConfig::default(), [4; 32], n.now, &n.store).unwrap();
    n.drain();
    n.connect(s, "1.1.1.1");
    let after = n.ask(s, push(&junk[30..]));
    assert!(matches!(after, Response::Refused(_)), "{after:?}");
    assert_eq!(n.store.envelopes(&t.game()).unwrap().len(), stored.len());
}

#[test]
fn the_friends_migration_counts_an_invitation_that_ended_unanswered_as_none() {
    let mut n = Node::new(CoreConfig::default());
    let me = n.me();
    let (stranger, friend) = (key(100), key(101));
    let (s, f) = (peer_key(&stranger), peer_key(&friend));
    n.connect(s, "1.1.1.1");
    n.connect(f, "2.2.2.2");
    // A stranger's invitation that his own junk ends before any answer...
    let junk = duel(&stranger, me, None, 1);
    assert_eq!(n.ask(s, propose(&junk)), Response::Ok { new: 0 });
    let bad = vec![
        padded(&junk, &stranger, 0, 0, 60_000),
        envelope(&junk, &stranger, 0, 5),
    ];
    let _ = n.ask(
        s,
        Request::Push {
            game: junk.game(),
            envelopes: bad,
        },
    );
    let status = n.store.game(&junk.game()).unwrap().map(|r| r.status);
    assert_eq!(status, Some(crate::record::GameStatus::Finished));
    // ...and one this seat accepted.
    let real = duel(&friend, me, None, 2);
    assert_eq!(n.ask(f, propose(&real)), Response::Ok { new: 0 });
    n.input(Input::Command {
        id: crate::CmdId(1),
        cmd: crate::Cmd::Accept(real.game().into()),
    });
    // A store of before the migration: its mark removed, the friends forgotten.
    n.store.commit(&crate::Writes {
        forget: vec!["migrated/friends".into()],
        ..Default::default()
    });
    n.core = Core::start(key(1), CoreConfig::default(), [4; 32], n.now, &n.store).unwrap();
    n.drain();
    assert!(n.core.peers.book.is_friend(&f), "the accepted game's seat");
    assert!(
        !n.core.peers.book.is_friend(&s),
        "the unanswered invitation's"
    );
}

#[test]
fn a_proposer_who_spends_his_networks_share_does_not_stop_his_opponents_envelopes() {
    use crate::record::Usage;
    // Issue 53: what a game held for a stranger stores was charged to the network the
    // game came from, so the proposer, spending his network's day with his own
    // envelopes (or other games), had his opponent's envelopes refused too: the
    // opponent then could not answer in time. Each envelope is now charged to the
    // network of the peer that brings it.
    let mut cfg = CoreConfig {
        mailbox: true,
        ..CoreConfig::default()
    };
    cfg.quotas.per_network = Usage {
        games: 16,
        envelopes: 4,
        bytes: 1 << 20,
    };
    let mut n = Node::new(cfg);
    let me = n.me();
    let (alice, bob) = (key(110), key(111));
    let (a, b) = (peer_key(&alice), peer_key(&bob));
    n.connect(a, "1.1.1.1");
    n.connect(b, "2.2.2.2");
    let t = duel(&bob, a, Some(me), 2);
    let push = |envelopes| Request::Push {
        game: t.game(),
        envelopes,
    };
    assert_eq!(n.ask(b, propose(&t)), Response::Ok { new: 0 });
    let bobs: Vec<Vec<u8>> = (0..5).map(|q| envelope(&t, &bob, 0, q)).collect();
    assert_eq!(n.ask(b, push(bobs[..4].to_vec())), Response::Ok { new: 4 });
    let r = n.ask(b, push(vec![bobs[4].clone()]));
    assert!(
        matches!(&r, Response::Refused(why) if why.contains("network")),
        "Bob's network spent its day: {r:?}"
    );
    let alices: Vec<Vec<u8>> = (0..3).map(|q| envelope(&t, &alice, 1, q)).collect();
    assert_eq!(
        n.ask(a, push(alices)),
        Response::Ok { new: 3 },
        "Alice's envelopes are charged to her own network"
    );
    // What Bob forwards of Alice's is charged to Bob's network: refused with his.
    let more = vec![envelope(&t, &alice, 1, 3)];
    assert!(matches!(n.ask(b, push(more.clone())), Response::Refused(_)));
    assert_eq!(n.ask(a, push(more)), Response::Ok { new: 1 });
}
