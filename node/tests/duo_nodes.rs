//! Secret Stallmate without a referee (spec/GAMES.md §5.15) between two real nodes on
//! loopback and the witness their time control needs: every attempt's computation runs
//! between the two players' nodes, its messages on their own stream protocol, their
//! hashes signed in the transcript. The whole game verifies offline; a player's node
//! killed in the middle of the computations and started again from its home finishes
//! the game, verified, with no fault against anyone.

mod common;

use std::time::Duration;

use common::duo::{both_verified, propose, three};
use common::{cfg, done, node_with};

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
