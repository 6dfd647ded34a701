//! A game's size at a seat and what strangers' games hold in memory, whatever a stranger
//! or an opponent sends (`take.rs` `GAME_BYTES`, `resident.rs`), in one core on a store
//! in memory.

use crate::io::Input;
use crate::message::{Request, Response};
use crate::refusal::PeerRefusal;
use crate::test_kit::*;
use crate::{Core, CoreConfig, Durable};

/// Bytes of a game's envelopes in the store.
fn stored(n: &Node, game: &crate::GameId) -> u64 {
    n.store
        .envelopes(game)
        .unwrap()
        .iter()
        .map(|e| e.len() as u64)
        .sum()
}

#[test]
fn an_accepted_game_is_bounded_whatever_the_opponent_signs() {
    let mut n = Node::new(CoreConfig::default());
    let me = n.me();
    let opponent = key(100);
    let o = peer_key(&opponent);
    n.connect(o, "1.1.1.1");
    let t = duel(&opponent, me, None, 1);
    assert_eq!(n.ask(o, propose(&t)), Response::Ok { new: 0 });
    n.input(Input::Command {
        id: crate::CmdId(1),
        cmd: crate::Cmd::Accept(t.game().into()),
    });
    // The game is this seat's own now; its opponent signs junk, 60 KB an envelope, in
    // pushes of 32, far past what any honest game holds.
    let cap = crate::take::GAME_BYTES;
    let mut refused = None;
    for batch in 0..12u64 {
        let junk: Vec<Vec<u8>> = (0..32)
            .map(|q| padded(&t, &opponent, 0, batch * 32 + q, 60_000))
            .collect();
        let answer = n.ask(
            o,
            Request::Push {
                game: t.game(),
                envelopes: junk,
            },
        );
        if let Response::Refused(why) = answer {
            refused = Some(why);
            break;
        }
    }
    assert_eq!(
        refused,
        Some(PeerRefusal::GameFull(cap).to_string()),
        "a push past the bound is refused, saying why"
    );
    let bytes = stored(&n, &t.game());
    assert!(
        bytes <= cap && bytes > cap - 61_000,
        "{bytes} bytes stored, bound {cap}"
    );
    // After a restart the bound counts what is stored.
    n.core = Core::start(key(1), CoreConfig::default(), [4; 32], n.now, &n.store).unwrap();
    n.drain();
    n.connect(o, "1.1.1.1");
    let more = vec![padded(&t, &opponent, 0, 1_000, 60_000)];
    let after = n.ask(
        o,
        Request::Push {
            game: t.game(),
            envelopes: more,
        },
    );
    assert!(matches!(after, Response::Refused(_)), "{after:?}");
    assert_eq!(stored(&n, &t.game()), bytes);
}

/// A player holding at most `limit` of strangers' bytes in memory before sharing.
fn player(limit: u64) -> Node {
    Node::new(CoreConfig {
        resident_for_strangers: limit,
        ..CoreConfig::default()
    })
}

/// `who` (its key's number), from `ip`, invites `n`'s player and pushes `count`
/// envelopes of `pad` bytes; the answer to the push.
fn invite_and_push(n: &mut Node, who: u64, ip: &str, count: u64, pad: usize) -> Response {
    let me = n.me();
    let k = key(who);
    let p = peer_key(&k);
    n.connect(p, ip);
    let t = duel(&k, me, None, who);
    assert_eq!(n.ask(p, propose(&t)), Response::Ok { new: 0 });
    let envelopes = (0..count).map(|q| padded(&t, &k, 0, q, pad)).collect();
    n.ask(
        p,
        Request::Push {
            game: t.game(),
            envelopes,
        },
    )
}

#[test]
fn strangers_games_in_memory_are_shared_by_network() {
    // 2 MB of strangers' envelopes before sharing, 4 MB at most.
    let mut n = player(2_000_000);
    // One network fills it: three invitations from three of its addresses, 900 KB
    // each (each within an invitation's own bound of 1 MiB).
    assert_eq!(
        invite_and_push(&mut n, 10, "1.1.1.1", 15, 60_000),
        Response::Ok { new: 15 }
    );
    assert_eq!(
        invite_and_push(&mut n, 11, "1.1.1.2", 15, 60_000),
        Response::Ok { new: 15 }
    );
    // The third passes the total, and its network holds all of it: refused, and told
    // to ask again later (it is not a bound of the game's).
    let third = invite_and_push(&mut n, 12, "1.1.1.3", 15, 60_000);
    let Response::Ok { new } = third else {
        panic!("part of a push that passes the total is taken: {third:?}");
    };
    assert!(new < 15, "{new}");
    assert_eq!(
        invite_and_push(&mut n, 13, "1.1.1.4", 1, 60_000),
        Response::Refused(PeerRefusal::MemoryShare.to_string())
    );
    // A newcomer from another network still has its share (half of the total).
    assert_eq!(
        invite_and_push(&mut n, 20, "2.2.2.2", 15, 60_000),
        Response::Ok { new: 15 }
    );
    // What is resident stays within twice the total, whoever sends what.
    let resident: u64 = n.core.resident_by_network().values().sum();
    assert!(resident <= 4_000_000, "{resident}");
}

#[test]
fn an_owner_is_kept_across_a_restart_after_the_invitation_is_accepted() {
    let mut n = player(2_000_000);
    let me = n.me();
    let k = key(40);
    let p = peer_key(&k);
    n.connect(p, "3.3.3.3");
    let t = duel(&k, me, None, 40);
    assert_eq!(n.ask(p, propose(&t)), Response::Ok { new: 0 });
    n.input(Input::Command {
        id: crate::CmdId(1),
        cmd: crate::Cmd::Accept(t.game().into()),
    });
    let envelopes = (0..10).map(|q| padded(&t, &k, 0, q, 60_000)).collect();
    let pushed = n.ask(
        p,
        Request::Push {
            game: t.game(),
            envelopes,
        },
    );
    assert!(matches!(pushed, Response::Ok { .. }), "{pushed:?}");
    let before = n.core.resident_by_network().get("ip4/3.3.3/24").copied();
    assert!(before.is_some_and(|b| b > 600_000), "{before:?}");
    n.core = Core::start(
        key(1),
        CoreConfig {
            resident_for_strangers: 2_000_000,
            ..CoreConfig::default()
        },
        [4; 32],
        n.now,
        &n.store,
    )
    .unwrap();
    n.drain();
    // The accepted game is in memory again, counted where it came from (with this
    // seat's own acceptance, which the store holds too).
    let (before, after) = (
        before.unwrap(),
        n.core.resident_by_network().get("ip4/3.3.3/24").copied(),
    );
    assert!(
        after.is_some_and(|a| a >= before && a < before + 4096),
        "{before} then {after:?}"
    );
}
