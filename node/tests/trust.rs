//! What a node refuses and what it survives: an outsider posting to a game, garbage and
//! duplicates on the wire from a seat, a node crashed and restarted mid-game. Real
//! nodes on loopback; the misbehaving peer is a bare swarm speaking the sync protocol.

mod common;

use std::time::Duration;

use common::{addr, ask, cfg, done, node, node_with, raw, stop, summary, verified, wait};
use sealed_node::ProposeArgs;
use sealed_node::sync::{Request, Response};

fn game_bytes(game: &str) -> [u8; 32] {
    hex::decode(game).unwrap().try_into().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outsider_is_refused_and_a_seats_garbage_and_duplicates_change_nothing() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = node(da.path(), 1, false).await;
    let b = node(db.path(), 2, false).await;
    let aaddr = addr(&a.h).await;
    let game =
        a.h.propose(ProposeArgs {
            variant: "cardmate".into(),
            options: vec![],
            peer: addr(&b.h).await,
            mailbox: None,
            referee: None,
            witness: None,
        })
        .await
        .unwrap();
    wait(&b.h, &game, 20, |v| v["my_turn"] == true).await;
    b.h.accept(&game).await.unwrap();
    wait(&a.h, &game, 20, |v| {
        v["phase"] == "play" && v["my_turn"] == true
    })
    .await;
    a.h.act(&game, "4Ci3", Some(0)).await.unwrap();
    wait(&b.h, &game, 20, |v| v["ply"] == 1).await;
    let id = game_bytes(&game);
    let held = summary(&a.h, &game).await.unwrap().held;
    let before = a.h.transcript(&game).await.unwrap();
    let real = sealed_node::mail::dearmor(&a.h.mail_export(&game).await.unwrap()).unwrap()[0]
        .envelopes
        .clone();

    // An outsider: pushing the game's own, validly signed envelopes, or bytes of its
    // own, is refused; so is reading the game.
    let (mut c, pa) = raw(3, &aaddr).await;
    for envelopes in [real.clone(), vec![vec![0u8; 40]]] {
        match ask(
            &mut c,
            pa,
            Request::Push {
                game: id.into(),
                envelopes,
            },
        )
        .await
        {
            Response::Refused(why) => assert!(why.contains("seats"), "{why}"),
            other => panic!("an outsider's push was taken: {other:?}"),
        }
    }
    match ask(
        &mut c,
        pa,
        Request::Pull {
            game: id.into(),
            have: vec![],
        },
    )
    .await
    {
        Response::Refused(_) => {}
        other => panic!("an outsider read the game: {other:?}"),
    }
    // A game nobody knows.
    match ask(
        &mut c,
        pa,
        Request::Pull {
            game: [7; 32].into(),
            have: vec![],
        },
    )
    .await
    {
        Response::Refused(why) => assert!(why.contains("unknown"), "{why}"),
        other => panic!("{other:?}"),
    }
    drop(c);

    // The seat B itself, over the wire: garbage, truncated envelopes, everything twice
    // and backwards. Nothing new, nothing changed.
    stop(b).await;
    let (mut s, pa) = raw(2, &aaddr).await;
    let mut messy: Vec<Vec<u8>> = real.iter().rev().cloned().collect();
    messy.extend(real.iter().cloned());
    messy.push(vec![0xff; 3]);
    messy.push(real[0][..real[0].len() / 2].to_vec());
    let mut flipped = real[real.len() - 1].clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    messy.push(flipped);
    match ask(
        &mut s,
        pa,
        Request::Push {
            game: id.into(),
            envelopes: messy,
        },
    )
    .await
    {
        Response::Ok { new } => assert_eq!(new, 0),
        other => panic!("{other:?}"),
    }
    match ask(
        &mut s,
        pa,
        Request::Propose {
            proposal: vec![1, 2, 3],
        },
    )
    .await
    {
        Response::Refused(why) => assert!(why.contains("proposal"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(summary(&a.h, &game).await.unwrap().held, held);
    assert_eq!(a.h.transcript(&game).await.unwrap(), before);
    drop(s);

    // The real B comes back and the game goes on.
    let b = node(db.path(), 2, false).await;
    b.h.dial(aaddr).await.unwrap();
    wait(&b.h, &game, 20, |v| v["my_turn"] == true).await;
    b.h.act(&game, "4Db6", Some(1)).await.unwrap();
    wait(&a.h, &game, 20, |v| v["ply"] == 2).await;
    b.h.act(&game, "resign", None).await.unwrap();
    done(&a.h, &game).await;
    verified(&a.h.transcript(&game).await.unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_crashed_mid_game_restarts_from_its_store_and_finishes() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // Each node comes back on its own port. Two nodes that both restart on new random
    // ports with nobody to look them up at can never find each other again (that is
    // what rendezvous points are for, node/tests/discovery.rs); a crash right after the
    // other's restart, before the new port is learned and stored, would leave this test
    // waiting for ever.
    let at_port = |port: u16| {
        let mut c = cfg(true);
        c.listen = vec![format!("/ip4/127.0.0.1/tcp/{port}").parse().unwrap()];
        c
    };
    let free = || {
        std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    };
    let (pa, pb) = (free(), free());
    let a = node_with(da.path(), 1, at_port(pa)).await;
    let b = node_with(db.path(), 2, at_port(pb)).await;
    let game =
        a.h.propose(ProposeArgs {
            variant: "chex".into(),
            options: vec![("ply-limit".into(), "120".into())],
            peer: addr(&b.h).await,
            mailbox: None,
            referee: None,
            witness: None,
        })
        .await
        .unwrap();
    // Twice: crash A (its task dropped between two events, no goodbye), then B.
    let mut a = Some(a);
    let mut b = Some(b);
    for (round, at) in [(0usize, 12u64), (1, 30)] {
        let victim = if round == 0 { &mut a } else { &mut b };
        let seed = if round == 0 { 1 } else { 2 };
        let dir = if round == 0 { da.path() } else { db.path() };
        let port = if round == 0 { pa } else { pb };
        let r = victim.take().unwrap();
        // Bots may end the game early (a King taken at once): then the crash hits a
        // finished game, which must come back finished.
        wait(&r.h, &game, 60, |v| {
            v["ply"].as_u64().unwrap() >= at || v["phase"] == "done"
        })
        .await;
        r.task.abort();
        let _ = r.task.await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        *victim = Some(node_with(dir, seed, at_port(port)).await);
    }
    let (a, b) = (a.unwrap(), b.unwrap());
    done(&a.h, &game).await;
    done(&b.h, &game).await;
    let ta = a.h.transcript(&game).await.unwrap();
    assert_eq!(ta, b.h.transcript(&game).await.unwrap());
    verified(&ta);
    let (sa, sb) = (
        summary(&a.h, &game).await.unwrap(),
        summary(&b.h, &game).await.unwrap(),
    );
    assert_eq!(
        sa.held, sb.held,
        "nothing lost or duplicated on either side"
    );
}
