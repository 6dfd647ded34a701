//! Secret Stallmate between three real nodes on loopback: two players with bots and a
//! referee node that accepts and answers by itself. The whole game is verified offline,
//! and each player's node held nothing of the other's private logs until the end.

mod common;

use sealed_protocol::session::Stage;
use std::time::Duration;

use common::{addr, cfg, node_with, summary, verified};
use sealed_node::ProposeArgs;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_stallmate_between_three_nodes() {
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let mut white_cfg = cfg(true);
    white_cfg.core.repair_every_ms = 25;
    let mut black_cfg = white_cfg.clone();
    black_cfg.core.bot_seed = 7;
    let mut referee_cfg = cfg(false);
    referee_cfg.core.repair_every_ms = 25;
    referee_cfg.core.referee = true;
    let a = node_with(dirs[0].path(), 1, white_cfg).await;
    let b = node_with(dirs[1].path(), 2, black_cfg).await;
    let r = node_with(dirs[2].path(), 3, referee_cfg).await;
    let game =
        a.h.propose(ProposeArgs {
            variant: "stallmate".into(),
            // Long enough that a bot under a loaded machine's scheduler still moves
            // in its period (a forfeit at 200 ms was seen with the load at 6 on 2
            // cores): the test is of the protocol, not of the bots' speed.
            options: vec![
                ("period".into(), "600ms".into()),
                ("ply-limit".into(), "24".into()),
            ],
            peer: addr(&b.h).await,
            mailbox: None,
            referee: Some(addr(&r.h).await),
            witness: None,
        })
        .await
        .unwrap();
    let mut finished = false;
    let mut looked = 0;
    for _ in 0..1200 {
        // While the game is on, a player's node holds nothing of the other player's
        // private logs: his setup shown to the referee, his periods' exchanges.
        for (h, me) in [(&a.h, 0u8), (&b.h, 1u8)] {
            let on = h
                .show(&game)
                .await
                .is_ok_and(|v| matches!(v.table.phase, Stage::Play | Stage::Commit));
            if !on {
                continue;
            }
            let t = h.transcript(&game).await.unwrap();
            let f = sealed_protocol::transcript::TranscriptFile::from_bytes(&t).unwrap();
            let id = sealed_protocol::proposal::Terms::parse(&f.proposal)
                .unwrap()
                .game();
            for e in &f.envelopes {
                let env = sealed_protocol::envelope::Envelope::decode(e, id).unwrap();
                let log = env.unsigned.log.0;
                let owner = match log {
                    0 => continue,
                    1 | 2 => log as u8 - 1,
                    n => ((n - 3) % 2) as u8,
                };
                if owner != me {
                    // The game may have ended between the two calls: then it is published.
                    let over = h
                        .show(&game)
                        .await
                        .is_ok_and(|v| v.table.phase != Stage::Play);
                    assert!(over, "seat {me} holds an envelope of log {log} during play");
                }
            }
            looked += 1;
        }
        let mut all = true;
        for n in [&a.h, &b.h, &r.h] {
            all &= n
                .show(&game)
                .await
                .map(|v| v.table.phase == Stage::Done)
                .unwrap_or(false);
        }
        if all {
            finished = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    if !finished {
        for n in [&a.h, &b.h, &r.h] {
            eprintln!("{:?}", summary(n, &game).await);
            let t = n.transcript(&game).await.unwrap();
            let f = sealed_protocol::transcript::TranscriptFile::from_bytes(&t).unwrap();
            let id = sealed_protocol::proposal::Terms::parse(&f.proposal)
                .unwrap()
                .game();
            for e in &f.envelopes {
                let env = sealed_protocol::envelope::Envelope::decode(e, id).unwrap();
                eprintln!(
                    "  log {} seat {} seq {} items {}",
                    env.unsigned.log.0,
                    env.unsigned.seat.0,
                    env.unsigned.seq,
                    env.unsigned.body.len()
                );
            }
            eprintln!("{}", n.show_text(&game).await.unwrap_or_default());
        }
        panic!("the game did not finish");
    }
    assert!(
        looked > 10,
        "the players' holdings were looked at during play"
    );
    let t = a.h.transcript(&game).await.unwrap();
    assert_eq!(t, b.h.transcript(&game).await.unwrap());
    assert_eq!(t, r.h.transcript(&game).await.unwrap());
    verified(&t);
}
