//! Secret Stallmate without a referee (spec/GAMES.md §5.15) between two real nodes on
//! loopback and the witness their time control needs: every attempt's computation runs
//! between the two players' nodes, its messages on their own stream protocol, their
//! hashes signed in the transcript. The whole game verifies offline; a player's node
//! killed in the middle of the computations and started again from its home finishes
//! the game, verified, with no fault against anyone.

mod common;

use std::time::Duration;

use common::{Running, addr, cfg, done, node_with, verified};
use sealed_node::ProposeArgs;

/// White, Black (both with bots) and the witness.
async fn three(dirs: &[tempfile::TempDir]) -> (Running, Running, Running) {
    let mut white = cfg(true);
    white.core.bot_seed = 3;
    let mut black = cfg(true);
    black.core.bot_seed = 8;
    let mut witness = cfg(false);
    witness.core.witness = true;
    let a = node_with(dirs[0].path(), 41, white).await;
    let b = node_with(dirs[1].path(), 42, black).await;
    let w = node_with(dirs[2].path(), 43, witness).await;
    (a, b, w)
}

async fn propose(a: &Running, b: &Running, w: &Running, plies: &str) -> String {
    a.h.propose(ProposeArgs {
        variant: "stallmate-duo".into(),
        options: vec![
            ("ply-limit".into(), plies.into()),
            ("time-per-move".into(), "1h".into()),
        ],
        peer: addr(&b.h).await,
        mailbox: None,
        referee: None,
        witness: Some(addr(&w.h).await),
    })
    .await
    .unwrap()
}

/// Both players' transcripts are the same, and verify with no fault.
async fn both_verified(a: &Running, b: &Running, game: &str) {
    let ta = a.h.transcript(game).await.unwrap();
    let tb = b.h.transcript(game).await.unwrap();
    assert_eq!(ta, tb, "the nodes hold the same transcript");
    verified(&ta);
    let c = sealed_games::variant::check_transcript(&ta).unwrap();
    assert!(c.verdict.faults.is_empty(), "{:?}", c.verdict.faults);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_game_without_a_referee_between_two_nodes() {
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let (a, b, w) = three(&dirs).await;
    let game = propose(&a, &b, &w, "2").await;
    done(&a.h, &game).await;
    done(&b.h, &game).await;
    both_verified(&a, &b, &game).await;
    // Each player's board is his own army as the computations told him.
    let text = b.h.show_text(&game).await.unwrap();
    assert!(text.contains("your army"), "{text}");
    assert!(text.contains("[verified]"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_node_killed_mid_computation_finishes_the_game_after_a_restart() {
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let (a, b, w) = three(&dirs).await;
    let game = propose(&a, &b, &w, "2").await;
    // Into the first attempt's computation: the base transfers, the start and a
    // commitment are signed (7 acts), and a message of the attempt may be under way.
    common::wait(&b.h, &game, 300, |v| v["ply"].as_u64() >= Some(8)).await;
    // Killed: its task stops wherever it is, a write or a message half done.
    b.task.abort();
    let _ = b.task.await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut black = cfg(true);
    black.core.bot_seed = 8;
    let b = node_with(dirs[1].path(), 42, black).await;
    done(&a.h, &game).await;
    done(&b.h, &game).await;
    both_verified(&a, &b, &game).await;
}

/// The message stream (`/sealed/computations/1`, spec/PROTOCOL.md §16.7) against a
/// hostile peer connected to Black's node: lengths past the cap, sixteen whole messages of
/// the largest size at once, thirty-two streams claiming the largest size and sending a
/// little, and well-formed messages for a game from a key that is no player's. The
/// node's peak memory grows by less than two caps' worth (without the per-peer and
/// overall caps the sixteen whole messages alone would take twice that), and then a game
/// between the two nodes plays to its end and verifies, with the hostile peer still
/// sending a message at every position.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_peer_on_the_message_stream_is_refused_and_a_game_goes_on() {
    use futures::{AsyncReadExt as _, AsyncWriteExt as _, StreamExt as _};
    use libp2p::StreamProtocol;
    use sealed_games::stallmate::duo::player::MAX_MESSAGE;

    const PROTOCOL: StreamProtocol = StreamProtocol::new("/sealed/computations/1");
    // The process's peak resident memory (both nodes, the witness and the hostile peer).
    let peak = || -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
        line.split_whitespace()
            .nth(1)
            .unwrap()
            .parse::<u64>()
            .unwrap()
            * 1024
    };
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let (a, b, w) = three(&dirs).await;
    let mut swarm = common::stream_peer([77; 32]);
    let control = swarm.behaviour().new_control();
    swarm.dial(addr(&b.h).await).unwrap();
    loop {
        if let libp2p::swarm::SwarmEvent::ConnectionEstablished { .. } =
            swarm.select_next_some().await
        {
            break;
        }
    }
    tokio::spawn(async move {
        loop {
            swarm.select_next_some().await;
        }
    });
    let node = common::peer_of_seed(42);
    let header = |game: [u8; 32], index: u64, len: u32| {
        [game.as_slice(), &index.to_le_bytes(), &len.to_le_bytes()].concat()
    };
    let before = peak();
    // A length past the cap: the node closes the stream before reading more.
    for len in [MAX_MESSAGE as u32 + 1, u32::MAX] {
        let mut s = control.clone().open_stream(node, PROTOCOL).await.unwrap();
        s.write_all(&header([1; 32], 2, len)).await.unwrap();
        s.flush().await.unwrap();
        let mut buf = [0u8; 16];
        while matches!(s.read(&mut buf).await, Ok(n) if n > 0) {}
    }
    // Thirty-two streams claiming the largest message and sending a kilobyte of it,
    // held open; then sixteen whole messages of the largest size at once.
    let mut held = vec![];
    for _ in 0..32 {
        if let Ok(mut s) = control.clone().open_stream(node, PROTOCOL).await {
            let _ = s.write_all(&header([1; 32], 2, MAX_MESSAGE as u32)).await;
            let _ = s.write_all(&[7; 1024]).await;
            let _ = s.flush().await;
            held.push(s);
        }
    }
    let whole: Vec<_> = (0..16u64)
        .map(|i| {
            let mut c = control.clone();
            let head = header([2; 32], i, MAX_MESSAGE as u32);
            tokio::spawn(async move {
                if let Ok(mut s) = c.open_stream(node, PROTOCOL).await {
                    let _ = s.write_all(&head).await;
                    let _ = s.write_all(&vec![9u8; MAX_MESSAGE]).await;
                    let _ = s.close().await;
                }
            })
        })
        .collect();
    for t in whole {
        let _ = t.await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let grew = peak().saturating_sub(before);
    assert!(
        grew < 8 * MAX_MESSAGE as u64,
        "the peak grew by {} MiB under the hostile streams",
        grew >> 20
    );
    drop(held);

    // A game between the nodes, the hostile peer sending a message at each position.
    let game = propose(&a, &b, &w, "2").await;
    let game_id: [u8; 32] = hex::decode(&game).unwrap().try_into().unwrap();
    for index in 0..16u64 {
        if let Ok(mut s) = control.clone().open_stream(node, PROTOCOL).await {
            let _ = s.write_all(&header(game_id, index, 64)).await;
            let _ = s.write_all(&[index as u8; 64]).await;
            let _ = s.close().await;
        }
    }
    done(&a.h, &game).await;
    done(&b.h, &game).await;
    both_verified(&a, &b, &game).await;
}
