//! The first message after a peer's restart (issue 57): node B is killed and started
//! again on the same addresses; one second later A invites B at its QUIC address,
//! and B declines each invitation once it lists it. A's QUIC connection to B's old
//! process stays "up" until its idle timeout (nothing tells A the process is gone), and
//! the invitation went out on it: 11 to 30 s before it arrived. A connection that
//! identifies under B's new boot now closes the old ones at once
//! (`node/src/shell/restarts.rs`).
//!
//! Real `sealed node` processes on loopback, B listening on QUIC and TCP. Five rounds
//! here; the issue's hundred, with the times' median and maximum printed:
//!
//! ```text
//! SEALED_RESTART_ROUNDS=100 cargo test --release -p sealed-cli --test restart_reach -- --nocapture
//! ```

mod common;

use std::time::{Duration, Instant};

use common::{TempDir, at_home, code, free_port, peer_of, start_node_with, stderr, stdout};

/// A UDP port free now, for B's QUIC listener to keep across its restarts.
fn free_udp_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0")
        .and_then(|s| s.local_addr())
        .expect("a free port")
        .port()
}

/// How long `new` waits: longer than any honest delivery here, shorter than the QUIC
/// idle timeout (10 s) that a message sent on a dead connection waited for.
const WAIT: &str = "8";

#[test]
fn an_invitation_right_after_the_peers_restart_arrives_at_once() {
    let rounds: usize = std::env::var("SEALED_RESTART_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(5);
    let dir = TempDir::new("restart-reach");
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for (home, name) in [(&a, "a"), (&b, "b")] {
        assert_eq!(code(&at_home(home, &["init", "--name", name])), 0);
    }
    let quic = format!("/ip4/127.0.0.1/udp/{}/quic-v1", free_udp_port());
    let tcp = format!("/ip4/127.0.0.1/tcp/{}", free_port());
    let a_quic = format!("/ip4/127.0.0.1/udp/{}/quic-v1", free_udp_port());
    let _na = start_node_with(
        &a,
        "node",
        &a_quic,
        &["--listen", "/ip4/127.0.0.1/tcp/0"],
        &[],
    );
    let start_b = || start_node_with(&b, "node", &quic, &["--listen", &tcp], &[]);
    let mut nb = start_b();
    // B's QUIC address (the node prints its listeners in the order they come up).
    let b_addr = format!("{quic}/p2p/{}", peer_of(&nb.addr));
    // A meets B once, over QUIC: the connection its restart leaves behind.
    let out = at_home(&a, &["new", "duel", "--peer", &b_addr, "--wait", WAIT]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    decline(&b, stdout(&out).trim());

    let mut took = vec![];
    for round in 0..rounds {
        drop(nb); // SIGKILL
        nb = start_b();
        assert_eq!(peer_of(&nb.addr), peer_of(&b_addr));
        std::thread::sleep(Duration::from_secs(1));
        let t = Instant::now();
        let out = at_home(&a, &["new", "duel", "--peer", &b_addr, "--wait", WAIT]);
        let secs = t.elapsed().as_secs_f64();
        assert_eq!(
            code(&out),
            0,
            "round {round}, after {secs:.2} s: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("delivered to the peer"),
            "{}",
            stderr(&out)
        );
        println!("round {round}: delivered in {secs:.3} s");
        took.push(secs);
        decline(&b, stdout(&out).trim());
    }
    took.sort_by(f64::total_cmp);
    if let (Some(max), false) = (took.last(), took.is_empty()) {
        println!(
            "{rounds} rounds: median {:.3} s, max {max:.3} s",
            took[took.len() / 2]
        );
    }
}

/// B declines the invitation once its node lists it.
fn decline(b: &std::path::Path, game: &str) {
    for _ in 0..100 {
        if code(&at_home(b, &["decline", game])) == 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("B never listed {game}");
}
