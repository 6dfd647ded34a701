//! Secret Stallmate without a referee between real nodes, for the tests that play it:
//! two players with bots and the witness their time control needs.

use super::{Running, addr, cfg, node_with, verified};
use sealed_node::ProposeArgs;

/// White, Black (both with bots) and the witness.
pub async fn three(dirs: &[tempfile::TempDir]) -> (Running, Running, Running) {
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

pub async fn propose(a: &Running, b: &Running, w: &Running, plies: &str) -> String {
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
pub async fn both_verified(a: &Running, b: &Running, game: &str) {
    let ta = a.h.transcript(game).await.unwrap();
    let tb = b.h.transcript(game).await.unwrap();
    assert_eq!(ta, tb, "the nodes hold the same transcript");
    verified(&ta);
    let c = sealed_games::variant::check_transcript(&ta).unwrap();
    assert!(c.verdict.faults.is_empty(), "{:?}", c.verdict.faults);
}
