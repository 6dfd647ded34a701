//! Two real nodes on loopback — real libp2p sockets, real stores — play whole games
//! through the same calls the CLI makes.

mod common;

use common::{addr, cfg, done, node, node_with, propose, sync_counts, verified, wait};
use sealed_node::ProposeArgs;

async fn play(variant: &str, options: Vec<(String, String)>) {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = node(da.path(), 1, true).await;
    let b = node(db.path(), 2, true).await;
    let peer = addr(&b.h).await;
    let game =
        a.h.propose(ProposeArgs {
            variant: variant.into(),
            options,
            peer,
            mailbox: None,
            referee: None,
            witness: None,
        })
        .await
        .unwrap();
    done(&a.h, &game).await;
    done(&b.h, &game).await;
    let ta = a.h.transcript(&game).await.unwrap();
    assert_eq!(
        ta,
        b.h.transcript(&game).await.unwrap(),
        "both nodes hold the same transcript"
    );
    verified(&ta);
    // Two nodes of today sync on the stream; request-response is for nodes of before.
    for (h, other) in [(&a.h, 2), (&b.h, 1)] {
        let c = sync_counts(h, other).await.expect("connected, and synced");
        assert!(
            c.stream > 0 && c.request_response == 0,
            "{variant}: the sync went by {c:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_duel_between_two_nodes() {
    play("duel", vec![]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_cardmate_between_two_nodes() {
    play(
        "cardmate",
        vec![
            ("setup".into(), "random".into()),
            ("ply-limit".into(), "200".into()),
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_chex_between_two_nodes() {
    play("chex", vec![("ply-limit".into(), "150".into())]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_tempete_between_two_nodes() {
    play("tempete", vec![("ply-limit".into(), "160".into())]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn people_play_with_typed_moves_and_bad_input_changes_nothing() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = node(da.path(), 1, false).await;
    let b = node(db.path(), 2, false).await;
    let peer = addr(&b.h).await;
    let game = propose(&a.h, "cardmate", &[], peer).await.unwrap();
    wait(&b.h, &game, 20, |v| v["my_turn"] == true).await;
    b.h.accept(&game).await.unwrap();
    wait(&a.h, &game, 20, |v| {
        v["my_turn"] == true && v["phase"] == "play"
    })
    .await;
    // Unknown game, bad notation, an illegal move, a stale --expect, the wrong seat:
    // each refused with a reason, and nothing changes.
    use sealed_node::core::NodeError;
    let refused = |r: Result<(), NodeError>| matches!(r, Err(NodeError::Refused(_)));
    assert_eq!(
        a.h.act("ffff", "4Ci3", None).await,
        Err(NodeError::NoGame("ffff".into()))
    );
    assert!(refused(a.h.act(&game, "banana", None).await));
    assert!(refused(a.h.act(&game, "4Ci5", None).await));
    assert_eq!(
        a.h.act(&game, "4Ci3", Some(7)).await,
        Err(NodeError::Moved { at: 0, expected: 7 })
    );
    assert!(refused(b.h.act(&game, "4Db6", None).await));
    assert_eq!(a.h.show(&game).await.unwrap().table.ply, 0);
    a.h.act(&game, "4Ci3", Some(0)).await.unwrap();
    wait(&b.h, &game, 20, |v| v["ply"] == 1 && v["my_turn"] == true).await;
    b.h.act(&game, "4Db6", Some(1)).await.unwrap();
    wait(&a.h, &game, 20, |v| v["ply"] == 2).await;
    a.h.act(&game, "resign", None).await.unwrap();
    let v = done(&b.h, &game).await;
    assert!(
        v["verdict"]["outcome"]["reason"]
            .as_str()
            .unwrap()
            .contains("resigned"),
        "{v}"
    );
    verified(&b.h.transcript(&game).await.unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_game_over_quic() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let quic = || {
        let mut c = cfg(true);
        c.listen = vec!["/ip4/127.0.0.1/udp/0/quic-v1".parse().unwrap()];
        c
    };
    let a = node_with(da.path(), 1, quic()).await;
    let b = node_with(db.path(), 2, quic()).await;
    let peer = addr(&b.h).await;
    assert!(peer.to_string().contains("/quic-v1/"), "{peer}");
    let game = propose(&a.h, "duel", &[], peer).await.unwrap();
    done(&a.h, &game).await;
    done(&b.h, &game).await;
    verified(&a.h.transcript(&game).await.unwrap());
}
