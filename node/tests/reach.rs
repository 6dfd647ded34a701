//! Reaching a friend: a mailbox node between two players who are never online at the
//! same time, a relay between players who know only the relay's address, and mail
//! with no network at all. Real nodes, real sockets, real stores.

mod common;

use sealed_protocol::session::Stage;
use std::path::Path;
use std::time::Duration;

use common::{addr, cfg, done, node, node_with, peer_of_seed, stop, summary, verified, wait, who};
use libp2p::Multiaddr;
use sealed_node::{NodeHandle, ProposeArgs};

/// Waits until the player has handed the mailbox everything it made and taken
/// everything the mailbox held: both hold the same number of envelopes (every
/// envelope of these games is public) and the player has nothing left to decide.
async fn settle(player: &NodeHandle, mailbox: &NodeHandle, game: &str) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let p = summary(player, game).await;
        let m = summary(mailbox, game).await;
        if let (Some(p), Some(m)) = (&p, &m)
            && p.held == m.held
            && !p.my_turn
        {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never settled: player {p:?}, mailbox {m:?}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

async fn online(dir: &Path, seed: u8, mailbox: &Multiaddr) -> common::Running {
    let r = node(dir, seed, true).await;
    // The one address a player needs: the mailbox's (once; the game's terms carry it
    // after that, and the store remembers it).
    r.h.dial(mailbox.clone()).await.unwrap();
    r
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_game_through_a_mailbox_between_players_never_online_together() {
    let (da, db, dm) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let mut mc = cfg(false);
    mc.core.mailbox = true;
    let m = node_with(dm.path(), 9, mc).await;
    let maddr = addr(&m.h).await;
    let (pa, pb) = (peer_of_seed(1), peer_of_seed(2));

    // A proposes to B knowing only who B is — no address: B is never reachable.
    let a = node(da.path(), 1, true).await;
    let game =
        a.h.propose(ProposeArgs {
            variant: "cardmate".into(),
            options: vec![
                ("setup".into(), "random".into()),
                ("ply-limit".into(), "16".into()),
            ],
            peer: format!("/p2p/{pb}").parse().unwrap(),
            mailbox: Some(maddr.clone()),
            referee: None,
            witness: None,
        })
        .await
        .unwrap();
    settle(&a.h, &m.h, &game).await;
    stop(a).await;

    // Then they take turns being online, never together, until both hold the end.
    let mut finished = [false, false];
    let mut periods = 0;
    while !(finished[0] && finished[1]) {
        periods += 1;
        assert!(periods < 200, "the game does not progress");
        for (i, (dir, seed)) in [(db.path(), 2u8), (da.path(), 1u8)].into_iter().enumerate() {
            let p = online(dir, seed, &maddr).await;
            settle(&p.h, &m.h, &game).await;
            let v = p.h.show(&game).await.unwrap();
            finished[i] = v.table.phase == Stage::Done;
            let info = p.h.info().await.unwrap();
            let other = if seed == 1 { pb } else { pa };
            assert!(
                !info.met.contains(&other.to_string()),
                "the players met directly"
            );
            if finished == [true, true] {
                // Keep the last one's transcript before it goes offline.
                let t = p.h.transcript(&game).await.unwrap();
                verified(&t);
            }
            stop(p).await;
        }
    }
    // Both finished with the same transcript, each from its own store.
    let a = node(da.path(), 1, false).await;
    let b = node(db.path(), 2, false).await;
    let (ta, tb) = (
        a.h.transcript(&game).await.unwrap(),
        b.h.transcript(&game).await.unwrap(),
    );
    assert_eq!(ta, tb);
    verified(&ta);
    // The mailbox relayed and could not play: it holds no seat.
    let ms = summary(&m.h, &game).await.unwrap();
    assert_eq!(ms.seat, None);
    assert_eq!(ms.status, sealed_node::core::GameState::Relayed);
    eprintln!("mailbox game finished after {periods} online periods each");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_who_know_only_the_relay_play_through_it() {
    let (da, db, dr) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let mut rc = cfg(false);
    rc.net.relay_server = true;
    let r = node_with(dr.path(), 7, rc).await;
    let raddr = addr(&r.h).await;
    // B listens only through the relay: it has no address of its own.
    let mut bc = cfg(true);
    bc.listen = vec![format!("{raddr}/p2p-circuit").parse().unwrap()];
    let b = node_with(db.path(), 2, bc).await;
    let pb = peer_of_seed(2);
    // Wait for B's reservation at the relay.
    let circuit = format!("{raddr}/p2p-circuit/p2p/{pb}");
    for _ in 0..300 {
        if b.h
            .info()
            .await
            .unwrap()
            .addrs
            .iter()
            .any(|a| a == &circuit)
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        b.h.info().await.unwrap().addrs.contains(&circuit),
        "no reservation at the relay"
    );
    let a = node(da.path(), 1, true).await;
    let game =
        a.h.propose(ProposeArgs {
            variant: "chex".into(),
            options: vec![("ply-limit".into(), "60".into())],
            peer: circuit.parse().unwrap(),
            mailbox: None,
            referee: None,
            witness: None,
        })
        .await
        .unwrap();
    done(&a.h, &game).await;
    done(&b.h, &game).await;
    let ta = a.h.transcript(&game).await.unwrap();
    assert_eq!(ta, b.h.transcript(&game).await.unwrap());
    verified(&ta);
    let _ = who;
}

/// Mail carried by hand: each side exports, the text is duplicated and its envelopes
/// reversed on the way, the other imports. No connection ever exists between them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mail_alone_finishes_a_game_despite_duplicates_and_reordering() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = node(da.path(), 1, true).await;
    let b = node(db.path(), 2, true).await;
    let (pa, pb) = (peer_of_seed(1), peer_of_seed(2));
    let game =
        a.h.propose(ProposeArgs {
            variant: "duel".into(),
            options: vec![],
            peer: format!("/p2p/{pb}").parse().unwrap(),
            mailbox: None,
            referee: None,
            witness: None,
        })
        .await
        .unwrap();
    let mut rounds = 0;
    loop {
        rounds += 1;
        assert!(rounds < 400, "mail does not finish the game");
        for (from, to) in [(&a.h, &b.h), (&b.h, &a.h)] {
            let text = from.mail_export(&game).await.unwrap();
            let mut mails = sealed_node::mail::dearmor(&text).unwrap();
            for m in &mut mails {
                m.envelopes.reverse();
            }
            let id = sealed_node::core::GameId::from(
                <[u8; 32]>::try_from(hex::decode(&game).unwrap()).unwrap(),
            );
            let shuffled = sealed_node::mail::armor(&id, &mails[0]);
            // Quoted, reversed, and sent twice.
            let quoted: String = shuffled.lines().map(|l| format!("> {l}\n")).collect();
            let imported = to.mail_import(&format!("{quoted}\n{text}")).await.unwrap();
            assert!(imported.games.iter().all(|g| g == &game));
            assert!(imported.refused.is_empty(), "{:?}", imported.refused);
        }
        let (va, vb) = (
            a.h.show(&game).await.unwrap(),
            b.h.show(&game).await.unwrap(),
        );
        if va.table.phase == Stage::Done && vb.table.phase == Stage::Done {
            break;
        }
    }
    let ta = a.h.transcript(&game).await.unwrap();
    assert_eq!(ta, b.h.transcript(&game).await.unwrap());
    verified(&ta);
    for (h, other) in [(&a.h, pb), (&b.h, pa)] {
        let met = h.info().await.unwrap().met;
        assert!(!met.contains(&other.to_string()), "the nodes met");
    }
    // Garbage mail is refused and changes nothing.
    let before = a.h.transcript(&game).await.unwrap();
    assert!(a.h.mail_import("hello").await.is_err());
    assert!(
        a.h.mail_import("-----BEGIN SEALED MAIL-----\n!!!\n-----END SEALED MAIL-----")
            .await
            .is_err()
    );
    assert_eq!(a.h.transcript(&game).await.unwrap(), before);
    // One byte changed inside an envelope: the mail is taken, that envelope is said not
    // taken (its signature fails), and nothing changes.
    let text = a.h.mail_export(&game).await.unwrap();
    let mut mail = sealed_node::mail::dearmor(&text).unwrap().remove(0);
    let n = mail.envelopes.len();
    let last = mail.envelopes[n - 1].len();
    mail.envelopes[n - 1][last / 2] ^= 1;
    let id =
        sealed_node::core::GameId::from(<[u8; 32]>::try_from(hex::decode(&game).unwrap()).unwrap());
    let imported =
        a.h.mail_import(&sealed_node::mail::armor(&id, &mail))
            .await
            .unwrap();
    assert_eq!(imported.refused.len(), 1, "{:?}", imported.refused);
    assert!(
        imported.refused[0].contains(&format!("envelope {n} of {n} not taken")),
        "{:?}",
        imported.refused
    );
    assert_eq!(a.h.transcript(&game).await.unwrap(), before);
    wait(&a.h, &game, 5, |v| v["phase"] == "done").await;
}
