//! What a player's node keeps for strangers, and what a seat is owed past the quotas,
//! end to end in one core on a store in memory, with time given by the test: a
//! declined invitation dropped for its signed decline (`held.rs`, `holding.rs`), the
//! games a bots' node hosts for others (`hosted.rs`), and the owed step's reserve at a
//! mailbox (`reserve.rs`). Beside `held_tests.rs`, which has grown past 800 lines.

use crate::held::DAY_MS;
use crate::message::{Request, Response};
use crate::test_kit::*;
use crate::{CoreConfig, Durable, GameId, PeerKey};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::Terms;

/// Whether `bytes` are one envelope, a decline of `t` signed by its seat 1 (`me`).
fn is_decline(t: &sealed_protocol::proposal::Terms, bytes: &[Vec<u8>]) -> bool {
    use sealed_protocol::body::Item;
    let [one] = bytes else {
        return false;
    };
    sealed_protocol::envelope::Signed::parse(t, one).is_ok_and(|s| {
        let u = s.unsigned();
        u.game == t.game() && u.seat.0 == 1 && u.body.contains(&Item::Decline)
    })
}

#[test]
fn a_strangers_invitation_declined_by_the_node_leaves_only_its_signed_decline_for_a_week() {
    let mut n = Node::new(CoreConfig::default());
    let me = n.me();
    // 64 invitations from fresh keys of one network fill a player's strangers' slots.
    let mut all = vec![];
    for i in 0..crate::STRANGERS_OPEN as u64 {
        let k = key(100 + i);
        let p = peer_key(&k);
        n.connect(p, &format!("5.5.5.{}", i / 8));
        let t = duel(&k, me, None, i);
        assert_eq!(n.ask(p, propose(&t)), Response::Ok { new: 0 }, "{i}");
        all.push((k, t));
    }
    n.sends.clear();
    // A newcomer from another network takes the place of one of them.
    let b = key(9);
    let pb = peer_key(&b);
    n.connect(pb, "6.6.6.6");
    let second = duel(&b, me, None, 99);
    assert_eq!(n.ask(pb, propose(&second)), Response::Ok { new: 0 });
    let gone: Vec<&(SecretKey, Terms)> = all.iter().filter(|(_, t)| !n.knows(&t.game())).collect();
    let [(a, first)] = &gone[..] else {
        panic!("one evicted: {}", gone.len());
    };
    let pa = peer_key(a);
    // The evicted one is declined, durably, and gone from the store and from memory.
    assert!(n.core.games.slot(&first.game()).is_none(), "not in memory");
    assert!(n.knows(&second.game()));
    // Its proposer got the signed decline once it was durable.
    let pushed: Vec<&Vec<Vec<u8>>> = n
        .sends
        .iter()
        .filter_map(|(to, r)| match r {
            Request::Push { game, envelopes } if *to == pa && *game == first.game() => {
                Some(envelopes)
            }
            _ => None,
        })
        .collect();
    assert!(
        pushed.len() == 1 && is_decline(first, pushed[0]),
        "{:?}",
        n.sends
    );
    // Asked for the game again (a heads round), the node serves the decline, not
    // "unknown", to anyone who names it (a public envelope).
    let first = first.clone();
    let heads = Request::Heads {
        games: vec![(first.game(), vec![])],
    };
    match n.ask(pa, heads.clone()) {
        Response::Behind { envelopes, unknown } => {
            assert!(unknown.is_empty());
            assert_eq!(envelopes.len(), 1);
            assert!(is_decline(&first, &envelopes[0].1));
        }
        other => panic!("{other:?}"),
    }
    // Offered again by its proposer: refused as evicted, and the decline pushed again;
    // offered by anyone else: refused, and nothing pushed.
    n.sends.clear();
    assert_eq!(
        n.ask(pb, propose(&first)),
        Response::Refused(
            crate::refusal::PeerRefusal::Gone(crate::held::Gone::Evicted).to_string()
        )
    );
    assert!(n.sends.is_empty(), "{:?}", n.sends);
    assert!(matches!(n.ask(pa, propose(&first)), Response::Refused(_)));
    assert!(
        matches!(&n.sends[..], [(to, Request::Push { envelopes, .. })] if *to == pa && is_decline(&first, envelopes))
    );
    // After a week the tombstone goes, and with it the decline.
    let week = crate::held::DECLINE_KEPT_MS;
    let tombstone = |n: &Node| {
        n.store
            .meta(&crate::held::tombstone_key(&first.game()))
            .unwrap()
    };
    n.tick_at(NOW + week - 1);
    assert!(tombstone(&n).is_some());
    n.tick_at(NOW + week + DAY_MS);
    assert!(tombstone(&n).is_none());
    match n.ask(pa, heads) {
        Response::Behind { envelopes, unknown } => {
            assert!(envelopes.is_empty());
            assert_eq!(unknown, vec![first.game()]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_seat_past_the_quotas_still_has_its_reply_taken_from_its_reserve_charged_to_the_proposer() {
    use crate::reserve::{RESERVE_ENVELOPE, RESERVE_PER_SEAT};
    // Two envelopes a day per proposer: Alice's are spent by her own first two.
    let (mut n, alice, bob) = mailbox_for_two(2, 1 << 30);
    let me = n.me();
    let (a, b) = (peer_key(&alice), peer_key(&bob));
    // Bob proposes; Alice is seat 1.
    let t = duel(&bob, a, Some(me), 1);
    let push = |envelopes: Vec<Vec<u8>>| push(&t, envelopes);
    let ok = |new| Response::Ok { new };
    assert_eq!(n.ask(b, propose(&t)), ok(0));
    let b0 = reply(&t, &bob, 0, 0, &[], 100);
    assert_eq!(n.ask(b, push(vec![b0.clone()])), ok(1));
    let a0 = reply(&t, &alice, 1, 0, &[&b0], 100);
    let a1 = reply(&t, &alice, 1, 1, &[&b0], 100);
    assert_eq!(n.ask(a, push(vec![a0.clone(), a1.clone()])), ok(2));
    // Past her share, Alice's next envelope is refused unless it is her reply.
    let b1 = reply(&t, &bob, 0, 1, &[&a1], 100);
    assert_eq!(n.ask(b, push(vec![b1.clone()])), ok(1));
    let not_a_reply = reply(&t, &alice, 1, 2, &[&b0], 100);
    assert!(matches!(
        n.ask(a, push(vec![not_a_reply])),
        Response::Refused(_)
    ));
    let too_big = reply(&t, &alice, 1, 2, &[&b1], RESERVE_ENVELOPE as usize);
    assert!(matches!(
        n.ask(a, push(vec![too_big])),
        Response::Refused(_)
    ));
    let gap = reply(&t, &alice, 1, 3, &[&b1], 100);
    assert!(matches!(n.ask(a, push(vec![gap])), Response::Refused(_)));
    let a2 = reply(&t, &alice, 1, 2, &[&b1], 100);
    let bobs_before = n.core.used_by(&b).0.envelopes;
    assert_eq!(n.ask(a, push(vec![a2.clone()])), ok(1));
    // Charged to the proposer, not to her.
    assert_eq!(n.core.used_by(&a).0.envelopes, 2);
    assert_eq!(n.core.used_by(&b).0.envelopes, bobs_before + 1);
    // One reply per envelope of the other seat: a second to `b1` is refused.
    let again = reply(&t, &alice, 1, 3, &[&b1], 100);
    assert!(matches!(n.ask(a, push(vec![again])), Response::Refused(_)));
    // Both seats past their shares, replying to each other (a stranger holding both
    // seats): each reserve runs out after its bytes, and no more is taken.
    let mut last_b = b1.clone();
    let mut last_a = a2.clone();
    let mut taken = 0u64;
    let pad = (RESERVE_ENVELOPE - 1_000) as usize;
    for q in 2..64u64 {
        let nb = reply(&t, &bob, 0, q, &[&last_a], pad);
        let rb = n.ask(b, push(vec![nb.clone()]));
        let na = reply(&t, &alice, 1, q + 1, &[&nb], pad);
        let ra = n.ask(a, push(vec![na.clone()]));
        match (rb, ra) {
            (Response::Ok { new: 1 }, Response::Ok { new: 1 }) => {
                taken += 2;
                (last_a, last_b) = (na, nb);
            }
            _ => break,
        }
    }
    let _ = last_b;
    let most = 2 * (RESERVE_PER_SEAT / (RESERVE_ENVELOPE - 1_000 + 200));
    assert!(
        taken > 0 && taken <= most,
        "{taken} taken past the quotas, {most} at most"
    );
}

/// The status of the game of `t` at `n`, if it plays it.
fn status_of(n: &Node, t: &Terms) -> Option<crate::record::GameStatus> {
    n.core.games.played(&t.game()).map(|p| p.record().status)
}

/// How many of the games of `ts` are in play at `n`.
fn active(n: &Node, ts: &[Terms]) -> usize {
    ts.iter()
        .filter(|t| status_of(n, t) == Some(crate::record::GameStatus::Active))
        .count()
}

#[test]
fn a_bots_node_hosts_a_bounded_number_of_games_for_others_friends_included() {
    use crate::record::GameStatus;
    let mut cfg = CoreConfig {
        bots: true,
        ..CoreConfig::default()
    };
    // A hosted game with no time terms lives a day with nothing done in it (30 by
    // default): before the invitations waiting meanwhile expire (7 days).
    cfg.lifetime.idle_ms = DAY_MS;
    let mut n = Node::new(cfg);
    let me = n.me();
    let status = status_of;
    // One stranger: his first 8 invitations are accepted, the rest wait.
    let k = key(500);
    let p = peer_key(&k);
    n.connect(p, "5.5.5.5");
    let his: Vec<Terms> = (0..10).map(|i| duel(&k, me, None, 1000 + i)).collect();
    for t in &his[..8] {
        assert_eq!(n.ask(p, propose(t)), Response::Ok { new: 0 });
    }
    let accepted = active;
    assert_eq!(accepted(&n, &his[..8]), 8);
    // He shares games with the node now, yet is not vouched for: its bots chose him.
    assert!(n.core.peers.book.is_friend(&p) && !n.core.vouched(&p));
    // His invitations past 8 are taken as invitations (8 waiting at most), not games.
    for t in &his[8..] {
        assert_eq!(n.ask(p, propose(t)), Response::Ok { new: 0 });
    }
    n.tick_at(NOW + 1_000);
    assert_eq!(accepted(&n, &his), 8);
    assert_eq!(status(&n, &his[9]), Some(GameStatus::Invited));
    // 56 more strangers' games from one network fill the 64 places.
    let mut theirs = vec![];
    for i in 0..56u64 {
        let k = key(600 + i);
        let p = peer_key(&k);
        n.connect(p, &format!("5.5.6.{}", i / 14));
        let t = duel(&k, me, None, 2000 + i);
        assert_eq!(n.ask(p, propose(&t)), Response::Ok { new: 0 });
        theirs.push(t);
    }
    assert_eq!(accepted(&n, &theirs), 56);
    // The next one of that network waits; one from another network takes the place of
    // the oldest game of the busiest address of the network holding most, which the
    // bots resign.
    let k = key(700);
    let p = peer_key(&k);
    n.connect(p, "5.5.6.200");
    let waits = duel(&k, me, None, 3000);
    assert_eq!(n.ask(p, propose(&waits)), Response::Ok { new: 0 });
    assert_eq!(status(&n, &waits), Some(GameStatus::Invited));
    let k = key(800);
    let p = peer_key(&k);
    n.connect(p, "9.9.9.9");
    let newcomer = duel(&k, me, None, 4000);
    assert_eq!(n.ask(p, propose(&newcomer)), Response::Ok { new: 0 });
    assert_eq!(status(&n, &newcomer), Some(GameStatus::Active));
    let hosted = |n: &Node| {
        let ids: Vec<GameId> = n.core.games.all_played().map(|(id, _)| *id).collect();
        ids.iter().filter(|id| n.core.hosted(id)).count()
    };
    assert_eq!(hosted(&n), 64);
    // Hosted games stay awake, counted; after their lifetime the bots resign them
    // all, and the invitations that waited are accepted in their place.
    n.tick_at(NOW + DAY_MS + 60_000);
    n.tick_at(NOW + DAY_MS + 120_000);
    assert!(
        [&his[..8], &theirs[..], &[newcomer]]
            .concat()
            .iter()
            .all(|t| !n.core.hosted(&t.game())),
        "resigned"
    );
    for t in [&his[8], &his[9], &waits] {
        assert!(n.core.hosted(&t.game()), "taken once there was room");
    }
    assert_eq!(hosted(&n), 3);
}

#[test]
fn a_bots_node_hosts_at_most_16_games_from_one_address() {
    use crate::record::GameStatus;
    let mut n = Node::new(CoreConfig {
        bots: true,
        ..CoreConfig::default()
    });
    let me = n.me();
    let status = status_of;
    // Fresh keys from one address, one game each: no key is past its own 8.
    let from_one: Vec<Terms> = (0..17u64)
        .map(|i| {
            let k = key(900 + i);
            n.connect(peer_key(&k), "7.7.7.7");
            let t = duel(&k, me, None, 5000 + i);
            assert_eq!(n.ask(peer_key(&k), propose(&t)), Response::Ok { new: 0 });
            t
        })
        .collect();
    n.tick_at(NOW + 1_000);
    assert_eq!(active(&n, &from_one), 16, "16 hosted from one address");
    assert_eq!(status(&n, &from_one[16]), Some(GameStatus::Invited));
    // Another address of the same network still has room of its own.
    let k = key(950);
    n.connect(peer_key(&k), "7.7.7.8");
    let next_door = duel(&k, me, None, 6000);
    assert_eq!(
        n.ask(peer_key(&k), propose(&next_door)),
        Response::Ok { new: 0 }
    );
    assert_eq!(status(&n, &next_door), Some(GameStatus::Active));
}

#[test]
fn a_reply_to_an_envelope_not_the_latest_is_still_taken_from_the_reserve() {
    // Two envelopes a day per proposer.
    let (mut n, alice, bob) = mailbox_for_two(2, 1 << 30);
    let me = n.me();
    let (a, b) = (peer_key(&alice), peer_key(&bob));
    let t = duel(&alice, b, Some(me), 7);
    assert_eq!(n.ask(a, propose(&t)), Response::Ok { new: 0 });
    let a0 = reply(&t, &alice, 0, 0, &[], 100);
    let a1 = reply(&t, &alice, 0, 1, &[], 100);
    assert_eq!(
        n.ask(a, push(&t, vec![a0, a1.clone()])),
        Response::Ok { new: 2 }
    );
    // Bob moves, then pushes a no-op ahead of Alice, within his own share.
    let b0 = reply(&t, &bob, 1, 0, &[&a1], 100);
    let b1 = reply(&t, &bob, 1, 1, &[&a1], 100);
    assert_eq!(
        n.ask(b, push(&t, vec![b0.clone(), b1])),
        Response::Ok { new: 2 }
    );
    // Alice, past her share, answers the move she saw: taken, though not his latest.
    let a2 = reply(&t, &alice, 0, 2, &[&b0], 100);
    assert_eq!(n.ask(a, push(&t, vec![a2])), Response::Ok { new: 1 });
}

/// Issue 55: invited by peer id (the proposal gives no name for this seat), the player
/// is named by his own name in his list before he accepts, not `seat 1`.
#[test]
fn an_invitation_without_my_name_shows_my_own() {
    let mut n = Node::new(CoreConfig {
        name: "bob".into(),
        ..CoreConfig::default()
    });
    let me = n.me();
    let alice = key(100);
    let pa = peer_key(&alice);
    n.connect(pa, "1.1.1.1");
    let t = duel(&alice, me, None, 0);
    assert_eq!(n.ask(pa, propose(&t)), Response::Ok { new: 0 });
    let lines = n.core.summaries();
    let mine = lines[0].players.iter().find(|p| p.you).expect("my seat");
    assert_eq!(mine.name, "bob");
    let hers = lines[0].players.iter().find(|p| !p.you).expect("hers");
    assert_eq!(hers.name, "", "no name is made up for the other seat");
}

/// `sealed peers` says what a peer is to this node's games: a game's witness as its
/// witness (a witness is its game's mailbox too, and was listed as "mailbox"), a
/// mailbox as a mailbox (issue 55 item 4; a game asleep keeps its witness for this,
/// `sleep.rs`).
#[test]
fn a_games_witness_and_mailbox_are_named_for_what_they_are_to_it() {
    use sealed_protocol::proposal::{MailboxSpec, WitnessSpec};
    let mut n = Node::new(CoreConfig::default());
    let me = n.me();
    let (w, m) = ([0x77; 32], [0x66; 32]);
    let a = key(9);
    let pa = peer_key(&a);
    n.connect(pa, "6.6.6.6");
    let invitees = sealed_games::table::Invitees {
        opponent: me.to_bytes(),
        mailboxes: [w, m]
            .map(|key| MailboxSpec { key, addrs: vec![] })
            .to_vec(),
        witness: Some(WitnessSpec {
            key: w,
            addrs: vec![],
        }),
        ..Default::default()
    };
    let t = proposed("duel", &a, invitees, 1);
    assert_eq!(n.ask(pa, propose(&t)), Response::Ok { new: 0 });
    let roles = n.core.helper_roles();
    let named = |k: [u8; 32]| {
        roles
            .get(&PeerKey::from(k))
            .map(|r| r.iter().copied().collect::<Vec<_>>())
    };
    assert_eq!(named(w), Some(vec!["witness"]));
    assert_eq!(named(m), Some(vec!["mailbox"]));
    assert_eq!(named(pa.to_bytes()), None, "a seat is no helper");
}
