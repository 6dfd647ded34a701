//! Game clocks between two real nodes: an overdue player earns a timeout claim from the
//! other node (a claim, never a loss), and his next move answers it.

mod common;

use common::{Running, addr, cfg, node, node_with, propose, wait};
use sealed_node::NodeConfig;
use serde_json::Value;

/// The timeout claims of a verdict against `seat`: `(claimant, open)`.
fn timeouts(v: &Value, seat: u64) -> Vec<(Value, bool)> {
    v["verdict"]["claims"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["about"] == "timeout" && c["against"] == seat)
        .map(|c| (c["by"].clone(), c["open"] == true))
        .collect()
}

/// Two nodes of `cfg` in `dirs`, and a Cardmate game with `per_move` time that node A
/// proposed and B accepted, under way with A (Forehand, seat 0) to move.
async fn under_way(
    dirs: [&std::path::Path; 2],
    cfg: NodeConfig,
    per_move: &str,
) -> (Running, Running, String) {
    let a = node_with(dirs[0], 1, cfg.clone()).await;
    let b = node_with(dirs[1], 2, cfg).await;
    let peer = addr(&b.h).await;
    let game = propose(&a.h, "cardmate", &[("time-per-move", per_move)], peer)
        .await
        .unwrap();
    wait(&b.h, &game, 20, |v| v["my_turn"] == true).await;
    b.h.accept(&game).await.unwrap();
    let v = wait(&a.h, &game, 20, |v| {
        v["my_turn"] == true && v["phase"] == "play"
    })
    .await;
    assert_eq!(v["clock"]["owing"], 0, "Forehand (seat 0) moves first: {v}");
    (a, b, game)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_overdue_player_gets_a_timeout_claim_that_his_next_move_answers() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, b, game) = under_way([da.path(), db.path()], cfg(false), "1s").await;

    // Seat 0 lets its second pass: seat 1's node claims, and the claim is open on
    // both sides once it has travelled.
    let v = wait(&b.h, &game, 30, |v| !timeouts(v, 0).is_empty()).await;
    assert_eq!(timeouts(&v, 0), vec![(Value::from(1), true)], "{v}");
    assert_eq!(v["clock"]["overdue"], true, "{v}");
    assert!(
        v["clock"]["text"].as_str().unwrap().contains("overdue"),
        "{v}"
    );
    wait(&a.h, &game, 20, |v| !timeouts(v, 0).is_empty()).await;
    // A claim decides nothing: the game goes on.
    assert_eq!(v["verdict"]["outcome"], Value::Null, "{v}");

    // Seat 0 moves late; seat 1 receives it and moves on: the claim is answered.
    a.h.act(&game, "4Ci3", Some(0)).await.unwrap();
    wait(&b.h, &game, 20, |v| v["ply"] == 1).await;
    b.h.act(&game, "4Db6", Some(1)).await.unwrap();
    let v = wait(&b.h, &game, 20, |v| {
        v["ply"] == 2 && timeouts(v, 0).iter().all(|(_, open)| !open)
    })
    .await;
    assert_eq!(timeouts(&v, 0).len(), 1, "one claim for one wait: {v}");
    // Seat 0's overrun of its first move was charged to nobody's reserve but its own.
    let seats = v["clock"]["seats"].as_array().unwrap();
    assert_eq!(seats[0]["leave_left_ms"], 0, "{v}");
}

/// The claim comes when the opponent's time runs out, from the core's own deadline
/// (core/src/timeout.rs), not at a repair round: here the nodes' rounds are ten minutes
/// apart, so a claim seen at all came from the deadline. With the claims made by a
/// periodic tick instead, none came before the next one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_claim_comes_when_the_time_runs_out_not_at_a_repair_round() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut slow = cfg(false);
    slow.core.repair_every_ms = 10 * 60 * 1000;
    let (_a, b, game) = under_way([da.path(), db.path()], slow, "2s").await;
    let v = wait(&b.h, &game, 20, |v| !timeouts(v, 0).is_empty()).await;
    assert_eq!(timeouts(&v, 0), vec![(Value::from(1), true)], "{v}");
    // It was filed once the time had run out, by the claimant's own clock reading.
    assert_eq!(v["clock"]["overdue"], true, "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_time_control_is_refused_before_anything_is_sent() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = node(da.path(), 1, false).await;
    let b = node(db.path(), 2, false).await;
    let peer = addr(&b.h).await;
    for (k, v, why) in [
        ("time-per-move", "3w", "unit"),
        ("time-per-move", "0s", "more than 0s"),
        ("time-leave", "3d", "needs time-per-move"),
        ("time-bank", "3d", "no time option"),
    ] {
        let err = propose(&a.h, "duel", &[(k, v)], peer.clone())
            .await
            .unwrap_err();
        assert!(
            matches!(&err, sealed_node::core::NodeError::Proposal(e) if e.contains(why)),
            "{k}={v}: {err:?}"
        );
    }
    assert!(a.h.games().await.unwrap().is_empty());
    assert!(b.h.games().await.unwrap().is_empty());
}
