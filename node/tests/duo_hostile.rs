//! The message stream of Secret Stallmate without a referee (`/sealed/computations/1`,
//! spec/PROTOCOL.md §16.7) against a hostile peer, in a test binary of its own: the
//! peak resident memory it reads is the process's, and no other test's game may add to
//! it.

mod common;

use std::time::Duration;

use common::duo::{both_verified, propose, three};
use common::{addr, done};

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
    use futures::{AsyncReadExt as _, AsyncWriteExt as _};
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
    let control = common::stream_peer_to([77; 32], addr(&b.h).await).await;
    let node = common::peer_of_seed(42);
    let header = |game: [u8; 32], index: u64, len: u32| {
        [game.as_slice(), &index.to_le_bytes(), &len.to_le_bytes()].concat()
    };
    let before = peak();
    // A length past the cap: the node closes the stream before reading more (or
    // libp2p-stream drops it untaken, when its acceptor is busy: the write fails).
    for len in [MAX_MESSAGE as u32 + 1, u32::MAX] {
        let mut s = control.clone().open_stream(node, PROTOCOL).await.unwrap();
        let _ = s.write_all(&header([1; 32], 2, len)).await;
        let _ = s.flush().await;
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
    eprintln!(
        "the peak grew by {} MiB under the hostile streams",
        grew >> 20
    );
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
