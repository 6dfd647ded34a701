//! Issue 52, attack 7: what a seat of Secret Stallmate without a referee keeps of a game
//! is bounded whatever the opponent does (spec/GAMES.md §5.15, "What a seat keeps").
//! Black stores White's messages, about 2 MB a computation (White's G1), and White makes
//! a computation of every attempt of either player: before, Black kept every message of
//! the game until it was over, so an opponent who kept attempting filled his disk. Now a
//! seat keeps its state after the last computation finished and the messages of the one
//! under way, at most two of the other's.
//!
//! Real nodes on loopback, bots on both sides (a bot's attempts are often refused, so it
//! attempts again and again): once Black has seen several computations, his node is
//! killed, his store opened and what it holds of the game weighed against the bound;
//! then he is started again from that store — his side made again from the state kept,
//! not from the messages — and the game plays to a verified end.

mod common;

use std::time::Duration;

use common::duo::{both_verified, propose, three};
use common::{cfg, node_with};
use sealed_games::stallmate::duo::player::MAX_MESSAGE;

/// Where a seat keeps its state of the computations among a game's messages
/// (`sealed_core::io::KEPT_AT`).
const KEPT_AT: u64 = u64::MAX;

/// Waits, untimed, until `cond` holds of the game's view at `h`.
async fn until(h: &sealed_node::NodeHandle, game: &str, cond: impl Fn(&serde_json::Value) -> bool) {
    loop {
        if let Ok(v) = h.show(game).await.map(|v| serde_json::to_value(v).unwrap())
            && cond(&v)
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_keeps_its_state_and_one_computations_messages_not_the_games() {
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let (a, b, w) = three(&dirs).await;
    let game = propose(&a, &b, &w, "6").await;
    let id = sealed_node::core::GameId(sealed_protocol::hash::Hash(
        hex::decode(&game).unwrap().try_into().unwrap(),
    ));
    // Six acts for the base transfers and the start, then five a computation (the
    // commitment, three steps and the Done): 36 acts are seven computations, the game
    // not over (six plies take six computations that make a move, and every refused
    // attempt one more).
    until(&b.h, &game, |v| v["ply"].as_u64() >= Some(36)).await;
    b.task.abort();
    let _ = b.task.await;
    tokio::time::sleep(Duration::from_millis(300)).await;

    let path = sealed_node::Home::at(dirs[1].path()).store_path();
    let file = std::fs::metadata(&path).unwrap().len();
    let store = sealed_node::store::Store::open(&path).unwrap();
    let stored = store.messages(&id).unwrap();
    drop(store);
    let kept: Vec<_> = stored.iter().filter(|(i, _)| *i == KEPT_AT).collect();
    let messages: Vec<_> = stored.iter().filter(|(i, _)| *i != KEPT_AT).collect();
    let bytes: usize = messages.iter().map(|(_, m)| m.len()).sum();
    let state = kept.first().map_or(0, |(_, k)| k.len());
    eprintln!(
        "Black's store at {file} bytes: {} of White's messages kept ({bytes} bytes, at {:?}), \
         and a state of {state} bytes",
        messages.len(),
        messages.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
    );
    assert_eq!(
        kept.len(),
        1,
        "the state after the last computation is kept"
    );
    // Messages of the computation under way only: at most White's two of it (G1, G2),
    // from the position the state stops at.
    let next = u64::from_le_bytes(kept[0].1[..8].try_into().unwrap());
    assert!(
        messages.len() <= 2 && messages.iter().all(|(i, _)| *i >= next),
        "only the computation under way's messages: {:?} with the state at {next}",
        messages.iter().map(|(i, _)| *i).collect::<Vec<_>>()
    );
    assert!(bytes <= 2 * MAX_MESSAGE);
    // The state: about 4 KiB of base transfer, the labels carried (a few KiB here, at
    // most 1 KiB a position of a window and 256 bytes an earlier attempt of the period)
    // and 15 bytes a computation.
    assert!(state < 256 << 10, "a state of {state} bytes");

    // Black again, from that store: his side made again from the state kept.
    let mut black = cfg(true);
    black.core.bot_seed = 8;
    let b = node_with(dirs[1].path(), 42, black).await;
    until(&a.h, &game, |v| v["phase"] == "done").await;
    until(&b.h, &game, |v| v["phase"] == "done").await;
    both_verified(&a, &b, &game).await;
}
