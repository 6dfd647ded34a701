//! `sealed dial` says whether it reached the node it named: a live address connects
//! (exit 0), and a dead one, a wrong peer id or the node itself is refused with why
//! (exit 2). Real `sealed node` processes on loopback.

mod common;

use std::net::TcpListener;

use common::{TempDir, at_home, code, init_peer_id, refused, start_node, stdout};

#[test]
fn dial_says_whether_it_reached_the_node() {
    let dir = TempDir::new("dial");
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for (home, name) in [(&a, "a"), (&b, "b")] {
        assert_eq!(code(&at_home(home, &["init", "--name", name])), 0);
    }
    let na = start_node(&a, "node");
    let nb = start_node(&b, "node");

    let out = at_home(&a, &["dial", &nb.addr]);
    assert_eq!(code(&out), 0, "{out:?}");
    assert_eq!(stdout(&out), "connected\n");

    // Nothing listens there any more.
    let dead = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let b_id = nb.addr.rsplit('/').next().expect("a peer id");
    let nowhere = format!("/ip4/127.0.0.1/tcp/{dead}/p2p/{b_id}");
    refused(&at_home(&a, &["dial", &nowhere]), &format!("tcp/{dead}"));

    // B's address with someone else's peer id: B answers as someone else.
    let c_id = init_peer_id(&dir.path().join("c"), "c");
    let (b_at, _) = nb
        .addr
        .rsplit_once("/p2p/")
        .expect("an address with a peer id");
    refused(
        &at_home(&a, &["dial", &format!("{b_at}/p2p/{c_id}")]),
        "Unexpected peer ID",
    );

    // Itself.
    refused(&at_home(&a, &["dial", &na.addr]), "this node's own address");
}
