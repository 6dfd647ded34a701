//! Unfinished games that leave memory while idle (core `sleep.rs`), between two real
//! nodes: a game asleep on both sides is woken by the move that comes to it, by a
//! command that names it, by the bots turned on, and by a restart of both nodes; its
//! line in `games` is right while it sleeps; what it exports does not change by
//! sleeping; and the game ends verified on both sides.

mod common;

use std::path::Path;
use std::time::Duration;

use common::*;
use sealed_node::NodeHandle;

/// A node whose idle unfinished games sleep after 300 ms.
async fn sleepy(dir: &Path, seed: u8) -> Running {
    let mut c = cfg(false);
    c.core.sleep_ms = 300;
    node_with(dir, seed, c).await
}

/// A Cardmate proposed by `a` and accepted by `b`, `a` to move first.
async fn cardmate(a: &NodeHandle, b: &NodeHandle) -> String {
    let game = propose(a, "cardmate", &[], addr(b).await).await.unwrap();
    wait(b, &game, 20, |v| v["my_turn"] == true).await;
    b.accept(&game).await.unwrap();
    wait(a, &game, 20, |v| {
        v["my_turn"] == true && v["phase"] == "play"
    })
    .await;
    game
}

/// Games asleep on the node, by its info (which wakes nothing).
async fn asleep(h: &NodeHandle) -> usize {
    h.info().await.unwrap().games_asleep
}

/// Waits until the node holds `n` games asleep.
async fn until_asleep(h: &NodeHandle, n: usize) {
    for _ in 0..600 {
        if asleep(h).await == n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "the node never held {n} games asleep: {:?}",
        h.games().await
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_game_sleeps_on_both_sides_and_wakes_for_whatever_comes_to_it() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = sleepy(da.path(), 1).await;
    let b = sleepy(db.path(), 2).await;
    let game = cardmate(&a.h, &b.h).await;
    a.h.act(&game, "4Ci3", Some(0)).await.unwrap();
    wait(&b.h, &game, 20, |v| v["ply"] == 1).await;

    // Nothing happens for a while: the game leaves memory on both sides.
    until_asleep(&a.h, 1).await;
    until_asleep(&b.h, 1).await;
    // Its line says where it stands, and reading it wakes nothing.
    let line = summary(&b.h, &game).await.unwrap();
    assert!(line.my_turn && line.ply == 1, "{line:?}");
    let line = summary(&a.h, &game).await.unwrap();
    assert!(!line.my_turn && line.ply == 1, "{line:?}");
    assert_eq!((asleep(&a.h).await, asleep(&b.h).await), (1, 1));

    // A move: the command wakes Bob's game, his push wakes Alice's.
    b.h.act(&game, "4Db6", Some(1)).await.unwrap();
    wait(&a.h, &game, 20, |v| v["ply"] == 2 && v["my_turn"] == true).await;

    // Asleep again, an export is the same bytes before and after sleeping.
    until_asleep(&a.h, 1).await;
    let before = a.h.transcript(&game).await.unwrap();
    until_asleep(&a.h, 1).await;
    assert_eq!(a.h.transcript(&game).await.unwrap(), before);

    // Both nodes restart while the game sleeps on both: it is rebuilt, sleeps again,
    // and the next move reaches the other side.
    until_asleep(&a.h, 1).await;
    until_asleep(&b.h, 1).await;
    stop(a).await;
    stop(b).await;
    let a = sleepy(da.path(), 1).await;
    let b = sleepy(db.path(), 2).await;
    a.h.dial(addr(&b.h).await).await.unwrap();
    until_asleep(&a.h, 1).await;
    until_asleep(&b.h, 1).await;
    // One of the moves the table offers (its first).
    let choices = a.h.show(&game).await.unwrap().table.choices;
    let first = choices
        .iter()
        .find(|c| c.ask.is_none() && c.from.is_some())
        .expect("a move")
        .text
        .clone();
    until_asleep(&a.h, 1).await;
    a.h.act(&game, &first, Some(2)).await.unwrap();
    wait(&b.h, &game, 20, |v| v["ply"] == 3 && v["my_turn"] == true).await;

    // Bots turned on for every game wake the one whose turn it is, and play it out.
    until_asleep(&b.h, 1).await;
    a.h.bot(None, true).await.unwrap();
    b.h.bot(None, true).await.unwrap();
    done(&a.h, &game).await;
    done(&b.h, &game).await;
    let (ta, tb) = (
        a.h.transcript(&game).await.unwrap(),
        b.h.transcript(&game).await.unwrap(),
    );
    verified(&ta);
    verified(&tb);
    assert_eq!(ta, tb);
    stop(a).await;
    stop(b).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_with_a_time_control_stays_in_memory() {
    // Its clock is looked at on every tick: a timeout claim must not wait for a wake.
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = sleepy(da.path(), 1).await;
    let b = sleepy(db.path(), 2).await;
    let peer = addr(&b.h).await;
    let game = propose(&a.h, "duel", &[("time-per-move", "1h")], peer)
        .await
        .unwrap();
    wait(&b.h, &game, 20, |v| v["my_turn"] == true).await;
    b.h.accept(&game).await.unwrap();
    wait(&a.h, &game, 20, |v| v["phase"] == "play").await;
    // Many ticks past the sleep time.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert_eq!((asleep(&a.h).await, asleep(&b.h).await), (0, 0));
    stop(a).await;
    stop(b).await;
}

/// The envelopes a `Heads` round of someone holding nothing of `game` gets back.
async fn served(
    swarm: &mut libp2p::Swarm<sealed_node::net::Behaviour>,
    peer: libp2p::PeerId,
    game: [u8; 32],
) -> Vec<Vec<u8>> {
    use sealed_node::sync::{Request, Response};
    let req = Request::Heads {
        games: vec![(game.into(), vec![])],
    };
    match ask(swarm, peer, req).await {
        Response::Behind { envelopes, .. } => {
            let mut all: Vec<Vec<u8>> = envelopes.into_iter().flat_map(|(_, e)| e).collect();
            all.sort();
            all
        }
        other => panic!("not an answer to heads: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sleeping_game_serves_a_seat_what_it_served_awake_and_an_outsider_nothing() {
    use sealed_node::sync::{Request, Response};
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = sleepy(da.path(), 1).await;
    let b = sleepy(db.path(), 2).await;
    let a_addr = addr(&a.h).await;
    let game = propose(&a.h, "duel", &[], addr(&b.h).await).await.unwrap();
    wait(&b.h, &game, 20, |v| v["my_turn"] == true).await;
    b.h.accept(&game).await.unwrap();
    // The coin says who leads.
    wait(&a.h, &game, 20, |v| v["phase"] == "play").await;
    wait(&b.h, &game, 20, |v| v["phase"] == "play").await;
    until_asleep(&a.h, 1).await;
    stop(b).await;
    let id: [u8; 32] = hex::decode(&game).unwrap().try_into().unwrap();

    // An outsider's push of bytes, an offer of the game with its own envelopes, and
    // its reads, are refused or taken as nothing, without waking the game.
    let woken = a.h.info().await.unwrap().games_woken;
    let (mut c, pa) = raw(3, &a_addr).await;
    let mail = sealed_node::mail::dearmor(&a.h.mail_export(&game).await.unwrap()).unwrap();
    until_asleep(&a.h, 1).await;
    let woken_by_export = a.h.info().await.unwrap().games_woken;
    assert_eq!(woken_by_export, woken + 1, "a command wakes it");
    let offer = Request::Offer {
        proposal: mail[0].proposal.clone(),
        envelopes: mail[0].envelopes.clone(),
    };
    assert!(matches!(
        ask(&mut c, pa, offer).await,
        Response::Ok { new: 0 }
    ));
    let push = Request::Push {
        game: id.into(),
        envelopes: vec![vec![0u8; 40]],
    };
    match ask(&mut c, pa, push).await {
        Response::Refused(why) => assert!(why.contains("seats"), "{why}"),
        other => panic!("an outsider's push was taken: {other:?}"),
    }
    let pull = Request::Pull {
        game: id.into(),
        have: vec![],
    };
    assert!(matches!(ask(&mut c, pa, pull).await, Response::Refused(_)));
    assert!(served(&mut c, pa, id).await.is_empty());
    assert_eq!(asleep(&a.h).await, 1);
    assert_eq!(a.h.info().await.unwrap().games_woken, woken_by_export);

    // Bob's key, holding nothing: asleep, Alice serves him exactly what she would awake
    // (what his seat may see, by the session's rule, kept when the game fell asleep).
    let (mut bob, pa) = raw(2, &a_addr).await;
    let while_asleep = served(&mut bob, pa, id).await;
    assert_eq!(asleep(&a.h).await, 1, "a heads round woke the game");
    a.h.show(&game).await.unwrap();
    assert_eq!(asleep(&a.h).await, 0);
    let awake = served(&mut bob, pa, id).await;
    assert_eq!(while_asleep, awake);
    assert!(!awake.is_empty());
    stop(a).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mail_for_a_sleeping_game_wakes_it() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = sleepy(da.path(), 1).await;
    let b = sleepy(db.path(), 2).await;
    let game = cardmate(&a.h, &b.h).await;
    until_asleep(&b.h, 1).await;
    // Bob's node stops; Alice moves and mails the game, then stops too.
    stop(b).await;
    a.h.act(&game, "4Ci3", Some(0)).await.unwrap();
    let mail = a.h.mail_export(&game).await.unwrap();
    stop(a).await;
    // Bob's node starts alone, the game sleeps, and the mail wakes it.
    let b = sleepy(db.path(), 2).await;
    until_asleep(&b.h, 1).await;
    let imported = b.h.mail_import(&mail).await.unwrap();
    assert!(imported.refused.is_empty(), "{imported:?}");
    let line = summary(&b.h, &game).await.unwrap();
    assert!(line.ply == 1 && line.my_turn, "{line:?}");
    stop(b).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asleep_a_game_gives_the_other_seat_what_it_lacks_and_its_line_follows_delivery() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = sleepy(da.path(), 1).await;
    let b = sleepy(db.path(), 2).await;
    let game = cardmate(&a.h, &b.h).await;
    // Bob's node is away when Alice moves: her game sleeps with the move undelivered.
    stop(b).await;
    a.h.act(&game, "4Ci3", Some(0)).await.unwrap();
    until_asleep(&a.h, 1).await;
    let pending = |s: &sealed_node::GameSummary| s.delivery.as_ref().is_some_and(|d| d.pending());
    assert!(pending(&summary(&a.h, &game).await.unwrap()));
    let woken = a.h.info().await.unwrap().games_woken;
    // Bob comes back: his repair round gets the move from Alice's sleeping game, and
    // what he then says he holds turns her line to delivered, all without waking it.
    let b = sleepy(db.path(), 2).await;
    let mut line = summary(&b.h, &game).await.unwrap();
    for _ in 0..600 {
        if line.ply == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        line = summary(&b.h, &game).await.unwrap();
    }
    assert!(line.ply == 1 && line.my_turn, "{line:?}");
    for _ in 0..600 {
        if !pending(&summary(&a.h, &game).await.unwrap()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let line = summary(&a.h, &game).await.unwrap();
    assert!(!pending(&line), "{line:?}");
    assert_eq!(
        a.h.info().await.unwrap().games_woken,
        woken,
        "Alice's game woke"
    );
    stop(a).await;
    stop(b).await;
}

/// A message of a computation (`/sealed/computations/1`) for a game asleep, from a key
/// that is not the game's other player, wakes nothing: only the other player may make a
/// node rebuild a game out of memory (core `computations.rs`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_strangers_message_for_a_game_asleep_wakes_nothing() {
    use futures::{AsyncReadExt as _, AsyncWriteExt as _};
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = sleepy(da.path(), 1).await;
    let b = sleepy(db.path(), 2).await;
    let game = cardmate(&a.h, &b.h).await;
    until_asleep(&a.h, 1).await;
    let woken = a.h.info().await.unwrap().games_woken;

    let control = stream_peer_to([78; 32], addr(&a.h).await).await;
    let id: [u8; 32] = hex::decode(&game).unwrap().try_into().unwrap();
    // The node reads a message's body only from the game's other player: a stranger's
    // stream is closed after its header (spec/PROTOCOL.md §16.7), never answered as
    // read whole — and nothing of it reaches the core, so nothing wakes.
    for index in 0..4u64 {
        let frame = [
            id.as_slice(),
            &index.to_le_bytes(),
            &8u32.to_le_bytes(),
            &[1; 8],
        ]
        .concat();
        let mut s = control
            .clone()
            .open_stream(
                peer_of_seed(1),
                libp2p::StreamProtocol::new("/sealed/computations/1"),
            )
            .await
            .unwrap();
        let mut answer = [0u8; 1];
        let read_whole = s.write_all(&frame).await.is_ok()
            && s.close().await.is_ok()
            && s.read_exact(&mut answer).await.is_ok()
            && answer == [0x01];
        assert!(!read_whole, "a stranger's message {index} was read whole");
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let info = a.h.info().await.unwrap();
    assert_eq!(info.games_woken, woken, "woken by a stranger's message");
    assert_eq!(info.games_asleep, 1);
}
