//! A referee's games that no other player has joined (issue 52's `Propose` row): out of
//! memory as soon as the referee's acceptance is durable, still counted against the
//! games held for strangers and against their proposer, dropped when their lifetime
//! runs out, and woken by the other player's acceptance, after which the game is played.

use sealed_games::table::{self, Invitees};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::Terms;
use sealed_protocol::session::{Action, Command};

use crate::message::{Request, Response};
use crate::test_kit::*;
use crate::{CoreConfig, Durable, PeerKey};

/// Secret Stallmate that `from` proposes to `to`, refereed by `referee`.
fn refereed(from: &SecretKey, to: &SecretKey, referee: PeerKey, nonce: u64) -> Terms {
    let invitees = Invitees {
        opponent: to.public().to_bytes(),
        referee: Some(referee.to_bytes()),
        ..Invitees::default()
    };
    proposed("stallmate", from, invitees, nonce)
}

/// The envelopes `key`, at seat `seat`'s table, signs to accept `t`.
fn acceptance(t: &Terms, key: &SecretKey) -> Vec<Vec<u8>> {
    let mut table = table::open(
        t.clone(),
        SecretKey::from_seed(&key.seed()),
        "",
        [9; 32],
        NOW,
    )
    .unwrap();
    let s = table.session_mut();
    s.handle_command(Command::Accept, NOW).unwrap();
    let mut out = vec![];
    while let Some(a) = s.poll_action() {
        if let Action::Send { env, .. } = a {
            out.push(env.bytes.clone());
        }
    }
    out
}

/// A referee node's configuration.
fn referee_cfg() -> CoreConfig {
    CoreConfig {
        referee: true,
        ..CoreConfig::default()
    }
}

fn referee() -> Node {
    Node::new(referee_cfg())
}

/// The games the node holds open for strangers, by `sealed peers`' count.
fn held_open(n: &Node) -> usize {
    n.core.strangers_view().iter().map(|v| v.open).sum()
}

#[test]
fn a_refereed_game_nobody_joined_leaves_memory_at_once_and_stays_counted() {
    let mut n = referee();
    let me = n.me();
    let games: Vec<(SecretKey, Terms)> = (0..4u64)
        .map(|i| {
            let (white, black) = (key(200 + i), key(300 + i));
            let pw = peer_key(&white);
            n.connect(pw, &format!("7.7.{i}.1"));
            let t = refereed(&white, &black, me, i);
            assert_eq!(n.ask(pw, propose(&t)), Response::Ok { new: 0 });
            (black, t)
        })
        .collect();
    // The referee accepted each, durably, and each sleeps as its acceptance is
    // durable, with no repair round between: a flood of proposals never holds the tables of
    // the games taken since the last repair round.
    assert_eq!(n.core.residency().asleep, 4, "{:?}", n.core.awake_counts());
    assert_eq!(n.core.residency().in_memory, 0);
    n.tick_at(NOW + 1_000);
    assert_eq!(n.core.residency().asleep, 4, "{:?}", n.core.awake_counts());
    for (_, t) in &games {
        assert!(
            n.store.envelope_count(&t.game()).unwrap() >= 1,
            "its acceptance stored"
        );
    }
    // Still held for their proposers, one each, each from his network.
    let view = n.core.strangers_view();
    assert_eq!(view.iter().map(|v| v.open).sum::<usize>(), 4, "{view:?}");
    // `sealed games` lists them, as the referee's, not finished.
    let lines = n.core.summaries();
    assert_eq!(lines.len(), 4);
    assert!(
        lines
            .iter()
            .all(|l| l.seat == Some(2) && l.expires_ms.is_some())
    );

    // A heads round from a proposer is answered from what the game kept, unwoken.
    let (_, t0) = &games[0];
    let pw0 = peer_key(&key(200));
    let heads = Request::Heads {
        games: vec![(t0.game(), vec![])],
    };
    assert!(matches!(n.ask(pw0, heads), Response::Behind { .. }));
    assert_eq!(n.core.residency().asleep, 4);

    // The other player's acceptance wakes the game, which is then played: the referee
    // keeps it in memory (its clocks and duties run from now on).
    let (black, t) = &games[1];
    let pb = peer_key(black);
    n.connect(pb, "8.8.8.8");
    let accepted = acceptance(t, black);
    assert_eq!(
        n.ask(pb, push(t, accepted)),
        Response::Ok { new: 1 },
        "taken"
    );
    n.tick_at(NOW + 2_000);
    assert!(n.core.games.played(&t.game()).is_some(), "awake");
    assert_eq!(n.core.residency().asleep, 3);
    assert_eq!(n.core.residency().woken, 1);
    // A stranger's push of a game asleep wakes nothing.
    let outsider = key(999);
    let po = peer_key(&outsider);
    n.connect(po, "9.9.9.9");
    let (_, t2) = &games[2];
    let junk = envelope(t2, &outsider, 1, 0);
    assert!(!matches!(
        n.ask(po, push(t2, vec![junk])),
        Response::Ok { .. }
    ));
    assert_eq!(n.core.residency().asleep, 3);
}

#[test]
fn a_refereed_game_asleep_expires_and_frees_its_place() {
    let mut cfg = referee_cfg();
    cfg.lifetime.open_ms = 3_600_000;
    let mut n = Node::new(cfg);
    let me = n.me();
    let (white, black) = (key(200), key(300));
    let pw = peer_key(&white);
    n.connect(pw, "7.7.7.1");
    let t = refereed(&white, &black, me, 0);
    assert_eq!(n.ask(pw, propose(&t)), Response::Ok { new: 0 });
    n.tick_at(NOW + 1_000);
    assert_eq!(n.core.residency().asleep, 1);
    // Not before its time.
    n.tick_at(NOW + 3_000_000);
    assert!(n.knows(&t.game()));
    // Then dropped, from memory and from the store, with its tombstone: no operator
    // action.
    n.tick_at(NOW + 3_700_000);
    assert!(!n.knows(&t.game()), "dropped from the store");
    assert!(n.core.games.slot(&t.game()).is_none(), "and from memory");
    assert_eq!(held_open(&n), 0);
    assert!(matches!(n.ask(pw, propose(&t)), Response::Refused(_)));
}

#[test]
fn a_proposer_cannot_hold_more_refereed_games_asleep_than_awake() {
    let mut n = referee();
    let me = n.me();
    let white = key(200);
    let pw = peer_key(&white);
    n.connect(pw, "7.7.7.1");
    let per_key = n.core.cfg.quotas.open_per_proposer as u64;
    let mut took = 0;
    for i in 0..per_key + 4 {
        let t = refereed(&white, &key(300 + i), me, i);
        if n.ask(pw, propose(&t)) == (Response::Ok { new: 0 }) {
            took += 1;
        }
        // Each goes to sleep before the next comes.
        n.tick_at(n.now + 1_000);
    }
    assert_eq!(n.core.residency().asleep, took as usize);
    assert!(took <= per_key, "{took} taken of a share of {per_key}");
    assert!(took >= 1);
}

#[test]
fn a_full_referee_evicts_a_game_asleep_for_a_newcomer_and_a_restart_keeps_the_counts() {
    let mut cfg = referee_cfg();
    cfg.quotas.open_total = 8;
    let mut n = Node::new(cfg.clone());
    let me = n.me();
    // One network fills the referee's places, each game asleep once taken.
    let mut first = vec![];
    for i in 0..8u64 {
        let white = key(200 + i);
        let pw = peer_key(&white);
        n.connect(pw, "7.7.7.1");
        let t = refereed(&white, &key(300 + i), me, i);
        assert_eq!(n.ask(pw, propose(&t)), Response::Ok { new: 0 }, "{i}");
        n.tick_at(n.now + 1_000);
        first.push(t);
    }
    assert_eq!(n.core.residency().asleep, 8);
    // A restart rebuilds them, and each sleeps as it is rebuilt, before the next is
    // read: a restart never holds all their tables at once. Counted as before.
    let now = n.now;
    n.core = crate::Core::start(key(1), cfg, [3; 32], now, &n.store).unwrap();
    assert_eq!(n.core.residency().asleep, 8, "{:?}", n.core.awake_counts());
    assert_eq!(n.core.residency().in_memory, 0);
    n.drain();
    n.tick_at(now + 1_000);
    n.tick_at(now + 2_000);
    assert_eq!(
        n.core.residency().asleep,
        8,
        "{:?} {:?} {:?}",
        n.core.awake_counts(),
        n.core.residency(),
        n.core
            .summaries()
            .iter()
            .map(|s| s.status)
            .collect::<Vec<_>>()
    );
    assert_eq!(held_open(&n), 8);
    // A newcomer from another network takes the place of one of them.
    let newcomer = key(500);
    let pn = peer_key(&newcomer);
    n.connect(pn, "6.6.6.6");
    let t = refereed(&newcomer, &key(600), me, 99);
    assert_eq!(n.ask(pn, propose(&t)), Response::Ok { new: 0 });
    let gone = first.iter().filter(|t| !n.knows(&t.game())).count();
    assert_eq!(gone, 1, "one evicted");
    assert!(n.knows(&t.game()));
}
