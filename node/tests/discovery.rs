//! Finding peers again: by peer id alone through a mailbox both keep (rendezvous), after
//! both restart on new ports, an invitation through the home's mailbox with no dial, a
//! wrong peer id said as such, and what identify says a node runs. Real nodes, real
//! sockets, real stores, on loopback (the network namespaces are cli/tests/netns.rs).

mod common;

use std::path::Path;
use std::time::Duration;

use common::{addr, cfg, node_with, peer_of_seed, stop, summary};
use libp2p::Multiaddr;
use sealed_node::{NodeHandle, ProposeArgs};

/// A mailbox node (which is also a rendezvous point).
async fn mailbox(dir: &Path) -> (common::Running, Multiaddr) {
    let mut c = cfg(false);
    c.core.mailbox = true;
    let m = node_with(dir, 9, c).await;
    let a = addr(&m.h).await;
    (m, a)
}

/// A player's node on a new random port that keeps `mailbox` as its home's mailbox.
async fn player(dir: &Path, seed: u8, mailbox: &Multiaddr) -> common::Running {
    let r = node_with(dir, seed, cfg(false)).await;
    r.h.stand(mailbox.clone()).await.unwrap();
    r
}

fn who(seed: u8) -> Multiaddr {
    format!("/p2p/{}", peer_of_seed(seed)).parse().unwrap()
}

async fn propose(h: &NodeHandle, peer: Multiaddr, mailbox: Option<Multiaddr>) -> String {
    h.propose(ProposeArgs {
        variant: "duel".into(),
        options: vec![],
        peer,
        mailbox,
        referee: None,
        witness: None,
    })
    .await
    .unwrap()
}

/// Waits until `cond` holds of the node's line for the game.
async fn until(
    h: &NodeHandle,
    game: &str,
    secs: u64,
    what: &str,
    cond: impl Fn(&sealed_node::GameSummary) -> bool,
) -> Duration {
    let start = tokio::time::Instant::now();
    loop {
        let s = summary(h, game).await;
        if s.as_ref().is_some_and(&cond) {
            return start.elapsed();
        }
        assert!(
            start.elapsed() < Duration::from_secs(secs),
            "{what}: not after {secs} s; the game: {s:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The node's peer-book entry for the node of key seed `seed`.
async fn entry_of(h: &NodeHandle, seed: u8) -> Option<serde_json::Value> {
    let book = serde_json::to_value(h.peers().await.unwrap()).unwrap();
    let id = peer_of_seed(seed).to_string();
    book["peers"]
        .as_array()?
        .iter()
        .find(|p| p["peer"] == id.as_str())
        .cloned()
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_known_by_its_peer_id_alone_is_found_at_the_mailbox() {
    let (dm, da, db) = (tmp(), tmp(), tmp());
    let (m, maddr) = mailbox(dm.path()).await;
    let a = player(da.path(), 1, &maddr).await;
    let b = player(db.path(), 2, &maddr).await;
    // No mailbox in the game and no address: only who B is.
    let game = propose(&a.h, who(2), None).await;
    until(&b.h, &game, 20, "the invitation at B", |s| {
        s.status == sealed_node::core::GameState::Invited
    })
    .await;
    // B's answer (sent once the invitation is durable there) reaches A.
    until(&a.h, &game, 20, "delivery said at A", |s| {
        s.invitation == Some(sealed_node::core::Invitation::Peer)
    })
    .await;
    // A reached B itself, not through the mailbox.
    let met = a.h.info().await.unwrap().met;
    assert!(met.contains(&peer_of_seed(2).to_string()), "{met:?}");
    for r in [a, b, m] {
        stop(r).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_restarted_on_new_ports_find_each_other_and_a_move_gets_through() {
    let (dm, da, db) = (tmp(), tmp(), tmp());
    let (m, maddr) = mailbox(dm.path()).await;
    let a = player(da.path(), 1, &maddr).await;
    let b = player(db.path(), 2, &maddr).await;
    let baddr = addr(&b.h).await;
    let game = propose(&a.h, baddr, None).await;
    until(&b.h, &game, 20, "the invitation", |s| {
        s.status == sealed_node::core::GameState::Invited
    })
    .await;
    b.h.accept(&game).await.unwrap();
    // The coin picks who leads: whoever is to act once the deals are done.
    let start = tokio::time::Instant::now();
    let a_leads = loop {
        if summary(&a.h, &game).await.is_some_and(|s| s.my_turn) {
            break true;
        }
        if summary(&b.h, &game).await.is_some_and(|s| s.my_turn) {
            break false;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "nobody to act");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    // Both go away; both come back on ports neither has seen (the test's nodes take a
    // new random port each start), and neither is told where the other is.
    stop(a).await;
    stop(b).await;
    let b = node_with(db.path(), 2, cfg(false)).await;
    let a = node_with(da.path(), 1, cfg(false)).await;
    let (mover, other) = if a_leads { (&a, &b) } else { (&b, &a) };
    let ply = summary(&mover.h, &game).await.unwrap().ply;
    // One act of the leader's (its bot picks it), then the other must see it.
    mover.h.bot(Some(&game), true).await.unwrap();
    until(&mover.h, &game, 10, "the act", |s| s.ply > ply).await;
    mover.h.bot(Some(&game), false).await.unwrap();
    let took = until(&other.h, &game, 30, "the act at the other", |s| s.ply > ply).await;
    eprintln!("the move reached the other side {took:?} after it was made");
    // The book now knows where B is, and that the address worked.
    let entry = entry_of(&a.h, 2).await.expect("B is in A's book");
    let baddr = addr(&b.h).await.to_string();
    assert_eq!(entry["addrs"][0]["addr"], baddr.as_str(), "{entry}");
    for r in [a, b, m] {
        stop(r).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invitation_through_the_home_mailbox_arrives_with_no_dial() {
    let (dm, da, db) = (tmp(), tmp(), tmp());
    let (m, maddr) = mailbox(dm.path()).await;
    // B sets its home's mailbox once, and goes offline.
    let b = player(db.path(), 2, &maddr).await;
    stop(b).await;
    // A proposes through the mailbox while B is offline, and goes offline too.
    let a = node_with(da.path(), 1, cfg(false)).await;
    let game = propose(&a.h, who(2), Some(maddr.clone())).await;
    until(&a.h, &game, 20, "delivery to the mailbox", |s| {
        s.invitation == Some(sealed_node::core::Invitation::Mailbox)
    })
    .await;
    stop(a).await;
    // B starts and is told nothing: the book keeps the mailbox.
    let b = node_with(db.path(), 2, cfg(false)).await;
    let took = until(&b.h, &game, 20, "the invitation at B", |s| {
        s.status == sealed_node::core::GameState::Invited
    })
    .await;
    eprintln!("the invitation reached B {took:?} after it started");
    for r in [b, m] {
        stop(r).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_peer_id_is_said_and_the_invitation_waits() {
    let (da, db) = (tmp(), tmp());
    let a = node_with(da.path(), 1, cfg(false)).await;
    let b = node_with(db.path(), 2, cfg(false)).await;
    // B's address with the peer id of someone else (seed 3).
    let baddr = addr(&b.h).await;
    let mut wrong: Multiaddr = baddr
        .iter()
        .filter(|p| !matches!(p, libp2p::multiaddr::Protocol::P2p(_)))
        .collect();
    wrong.push(libp2p::multiaddr::Protocol::P2p(peer_of_seed(3)));
    let game = propose(&a.h, wrong, None).await;
    let not_c = format!("not {}", peer_of_seed(3));
    until(&a.h, &game, 20, "the failure said", |s| {
        s.invitation
            .as_ref()
            .map(ToString::to_string)
            .as_deref()
            .is_some_and(|i| i.starts_with("not delivered") && i.contains(&not_c))
    })
    .await;
    assert_eq!(
        summary(&a.h, &game).await.unwrap().status,
        sealed_node::core::GameState::Proposed
    );
    assert!(summary(&b.h, &game).await.is_none());
    for r in [a, b] {
        stop(r).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn identify_says_sealed_and_its_version_and_the_book_outlives_a_restart() {
    let (da, db) = (tmp(), tmp());
    let a = node_with(da.path(), 1, cfg(false)).await;
    let b = node_with(db.path(), 2, cfg(false)).await;
    let baddr = addr(&b.h).await;
    a.h.dial(baddr.clone()).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let entry = loop {
        let e = entry_of(&a.h, 2).await;
        if let Some(e) = e.filter(|e| e["agent"].is_string()) {
            break e;
        }
        assert!(tokio::time::Instant::now() < deadline, "no agent yet");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    // The release, and the player's name from the home (spec/PROTOCOL.md §16.5).
    assert_eq!(
        entry["agent"],
        format!("sealed/{}; name=p2", env!("CARGO_PKG_VERSION")).as_str()
    );
    assert_eq!(entry["addrs"][0]["addr"], baddr.to_string().as_str());
    assert!(entry["addrs"][0]["worked_ms"].as_u64().unwrap() > 0);
    stop(a).await;
    let a = node_with(da.path(), 1, cfg(false)).await;
    let kept = entry_of(&a.h, 2).await.expect("the book kept B");
    assert_eq!(kept["addrs"][0]["addr"], baddr.to_string().as_str());
    for r in [a, b] {
        stop(r).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strangers_invitations_are_bounded_and_can_be_refused() {
    let (da, db, dc) = (tmp(), tmp(), tmp());
    let a = node_with(da.path(), 1, cfg(false)).await;
    let mut only_known = cfg(false);
    only_known.core.strangers = false;
    let c = node_with(dc.path(), 3, only_known).await;
    let b = node_with(db.path(), 2, cfg(false)).await;
    let (baddr, caddr) = (addr(&b.h).await, addr(&c.h).await);

    // C takes invitations only from peers it has played: A's is refused, and A says so.
    let refused = propose(&a.h, caddr, None).await;
    until(&a.h, &refused, 20, "the refusal said", |s| {
        s.invitation
            .as_ref()
            .map(ToString::to_string)
            .as_deref()
            .is_some_and(|i| i.contains("only from peers it has played"))
    })
    .await;
    assert!(summary(&c.h, &refused).await.is_none());

    // B takes a stranger's invitations, 8 at a time.
    let mut games = vec![];
    for _ in 0..9 {
        games.push(propose(&a.h, baddr.clone(), None).await);
    }
    let count = |b: &NodeHandle| {
        let b = b.clone();
        async move {
            b.games()
                .await
                .unwrap()
                .into_iter()
                .filter(|g| g.status == sealed_node::core::GameState::Invited)
                .count()
        }
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while count(&b.h).await < 8 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the first 8 never came"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Several repair rounds later the ninth still waits at A, refused.
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(count(&b.h).await, 8);
    let waiting: Vec<_> = {
        let mut w = vec![];
        for g in &games {
            if summary(&b.h, g).await.is_none() {
                w.push(g.clone());
            }
        }
        w
    };
    assert_eq!(waiting.len(), 1);
    let ninth = &waiting[0];
    let line = summary(&a.h, ninth).await.unwrap();
    assert!(
        line.invitation
            .as_ref()
            .map(ToString::to_string)
            .as_deref()
            .is_some_and(|i| i.contains("already wait here")),
        "{line:?}"
    );
    // B accepts one: A is now a peer B has played, and the ninth comes in.
    let first = games.iter().find(|g| *g != ninth).unwrap();
    b.h.accept(first).await.unwrap();
    until(&b.h, ninth, 20, "the ninth at B", |s| {
        s.status == sealed_node::core::GameState::Invited
    })
    .await;
    for r in [a, b, c] {
        stop(r).await;
    }
}
