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
