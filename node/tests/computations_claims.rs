//! Issue 52, attack 6: on the message stream of Secret Stallmate without a referee
//! (`/sealed/computations/1`, spec/PROTOCOL.md §16.7), headers that claim the largest
//! message and then stall must hold nothing of the node's, so that the game's other
//! player is always read. Before, four such streams from two fresh peer ids took the
//! whole 28 MiB the reader shared among all peers, and a message from the real
//! opponent was dropped unread for two minutes.
//!
//! Real nodes on loopback: White and Black play a game without a referee (with the
//! witness its time control needs), no bots, so the game waits for White's first
//! attempt once the start is computed. Two strangers, peers of the test's own with keys
//! no game names, connect to Black and open two streams each, every one a header
//! claiming 7 MiB for a game (the real one, or one that does not exist) and then
//! nothing more. A message on the stream from White's key (a second connection of the
//! test's own, under White's identity) is then read whole and answered. The bots then
//! play the game to a verified end while the strangers keep opening such streams.

mod common;

use std::time::Duration;

use futures::{AsyncReadExt as _, AsyncWriteExt as _};
use libp2p::{PeerId, StreamProtocol};
use sealed_games::stallmate::duo::player::MAX_MESSAGE;
use sealed_node::ProposeArgs;

use common::duo::both_verified;
use common::{addr, cfg, node_with};

const PROTOCOL: StreamProtocol = StreamProtocol::new("/sealed/computations/1");
/// The receiver's answer once it has read a message whole (spec/PROTOCOL.md §16.7).
const READ_WHOLE: u8 = 0x01;
/// The key seeds: White, Black, the witness, the two strangers.
const WHITE: u8 = 41;
const BLACK: u8 = 42;
const WITNESS: u8 = 43;
const STRANGERS: [u8; 2] = [91, 92];

fn header(game: [u8; 32], index: u64, len: u32) -> Vec<u8> {
    [game.as_slice(), &index.to_le_bytes(), &len.to_le_bytes()].concat()
}

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

/// A stranger's stream to `node`: a header claiming the largest message for `game`,
/// then part of a body, more than the stream's first window, so that it is written only
/// if the node reads the body. Returns once the node has judged the header — it reads
/// the body (the write went through) or it closed the stream — with the stream, held
/// open by the caller; `None` if the stream could not be opened.
async fn claim(
    control: &mut libp2p_stream::Control,
    node: PeerId,
    game: [u8; 32],
) -> Option<libp2p::Stream> {
    let s = control.open_stream(node, PROTOCOL).await.ok()?;
    let (mut r, mut w) = s.split();
    let write = async {
        let _ = w.write_all(&header(game, 7, MAX_MESSAGE as u32)).await;
        let _ = w.write_all(&vec![7u8; 300 << 10]).await;
        let _ = w.flush().await;
    };
    let mut one = [0u8; 1];
    futures::future::select(Box::pin(write), r.read(&mut one)).await;
    r.reunite(w).ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_claiming_the_largest_message_hold_nothing_and_the_opponent_is_read() {
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let mut witness = cfg(false);
    witness.core.witness = true;
    let a = node_with(dirs[0].path(), WHITE, cfg(false)).await;
    let b = node_with(dirs[1].path(), BLACK, cfg(false)).await;
    let w = node_with(dirs[2].path(), WITNESS, witness).await;
    let game =
        a.h.propose(ProposeArgs {
            variant: "stallmate-duo".into(),
            options: vec![
                ("ply-limit".into(), "2".into()),
                ("time-per-move".into(), "1h".into()),
            ],
            peer: addr(&b.h).await,
            mailbox: None,
            referee: None,
            witness: Some(addr(&w.h).await),
        })
        .await
        .unwrap();
    let game_id: [u8; 32] = hex::decode(&game).unwrap().try_into().unwrap();
    until(&b.h, &game, |_| true).await;
    b.h.accept(&game).await.unwrap();
    // The base transfers and the start computed: White is to choose his first attempt,
    // and no message is under way.
    until(&a.h, &game, |v| v["my_turn"] == true).await;

    // Two strangers, two streams each (all a peer's streams the node reads at once),
    // each a header claiming 7 MiB, then stalling.
    let black = common::peer_of_seed(BLACK);
    let mut strangers = vec![];
    let mut held = vec![];
    for (i, seed) in STRANGERS.into_iter().enumerate() {
        let mut c = common::stream_peer_to([seed; 32], addr(&b.h).await).await;
        let claimed = if i == 0 { game_id } else { [0xAA; 32] };
        for _ in 0..2 {
            held.extend(claim(&mut c, black, claimed).await);
        }
        strangers.push((c, claimed));
    }

    // A message from the other player's key, for the game: read whole and answered.
    // (Not the next one signed: the core drops it after, which changes nothing.)
    let mut white = common::stream_peer_to([WHITE; 32], addr(&b.h).await).await;
    let mut s = white.open_stream(black, PROTOCOL).await.unwrap();
    s.write_all(&header(game_id, 7, 100)).await.unwrap();
    s.write_all(&[3u8; 100]).await.unwrap();
    s.close().await.unwrap();
    let mut answer = [0u8; 1];
    let answered = s.read_exact(&mut answer).await.map(|()| answer[0]);
    assert_eq!(
        answered.ok(),
        Some(READ_WHOLE),
        "the opponent's message is read whole while strangers' headers claim 7 MiB each"
    );

    // The strangers go on: each stream the node closes is opened again at once.
    let keep_on: Vec<_> = strangers
        .into_iter()
        .map(|(mut c, claimed)| {
            tokio::spawn(async move {
                loop {
                    if let Some(mut s) = claim(&mut c, black, claimed).await {
                        let mut buf = [0u8; 64];
                        while matches!(s.read(&mut buf).await, Ok(n) if n > 0) {}
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            })
        })
        .collect();
    // The real game: the bots choose the attempts, and every message goes through.
    a.h.bot(Some(&game), true).await.unwrap();
    b.h.bot(Some(&game), true).await.unwrap();
    until(&a.h, &game, |v| v["phase"] == "done").await;
    until(&b.h, &game, |v| v["phase"] == "done").await;
    both_verified(&a, &b, &game).await;
    for t in keep_on {
        t.abort();
    }
    drop((held, white));
}
