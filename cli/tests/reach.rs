//! The commands of reaching peers, as a person meets them: a busy `--listen` port and a
//! `--via` that is no relay are errors with their cause; `sealed mailbox` sets, shows and
//! clears the home's mailbox; `sealed peers` shows the book and what each peer runs;
//! `sealed new` by peer id alone says where the invitation got to, and `games` shows an
//! undelivered one; an address typed to `new` is dialled at once, whatever dial is
//! under way. Real `sealed` processes on loopback (network topologies are in
//! netns.rs).

mod common;

use common::{
    Node, TempDir, at_home, code, free_port, init_peer_id, peer_of, spawn_node, start_node,
    start_node_with, stderr, stdout,
};

fn homes(dir: &TempDir, names: &[&str]) -> Vec<std::path::PathBuf> {
    names
        .iter()
        .map(|n| {
            let h = dir.path().join(n);
            assert_eq!(code(&at_home(&h, &["init", "--name", n])), 0);
            h
        })
        .collect()
}

/// The node exits by itself within a few seconds: its stderr.
fn fails_to_start(mut node: Node, home: &std::path::Path) -> String {
    assert!(node.wait_exit(20), "the node kept running");
    assert!(node.addr.is_empty(), "it printed an address: {}", node.addr);
    std::fs::read_to_string(home.with_extension("err")).unwrap_or_default()
}

#[test]
fn a_busy_port_and_a_relay_that_is_none_are_refused_with_why() {
    let dir = TempDir::new("reach-refused");
    let h = homes(&dir, &["a", "b", "c"]);
    let port = free_port();
    let listen = format!("/ip4/127.0.0.1/tcp/{port}");
    let a = start_node_with(&h[0], "node", &listen, &[], &[]);

    // A second node on the same port would take half of the first one's connections.
    let b = spawn_node(&h[1], "node", &listen, &[], &[]);
    let said = fails_to_start(b, &h[1]);
    assert!(
        said.contains(&format!("TCP port {port} is in use by another program")),
        "{said}"
    );

    // A is a node but no relay.
    let c = spawn_node(
        &h[2],
        "node",
        "/ip4/127.0.0.1/tcp/0",
        &["--via", &a.addr],
        &[],
    );
    let said = fails_to_start(c, &h[2]);
    assert!(said.contains("no relayed address through"), "{said}");
    assert!(said.contains("does not support"), "{said}");

    // Nothing listens where the relay is said to be.
    let a_id = peer_of(&a.addr);
    let dead = format!("/ip4/127.0.0.1/tcp/{}/p2p/{a_id}", free_port());
    let c = spawn_node(
        &h[2],
        "node",
        "/ip4/127.0.0.1/tcp/0",
        &["--via", &dead],
        &[],
    );
    let said = fails_to_start(c, &h[2]);
    assert!(said.contains("Connection refused"), "{said}");
}

#[test]
fn the_home_mailbox_is_set_shown_kept_connected_and_cleared() {
    let dir = TempDir::new("reach-mailbox");
    let h = homes(&dir, &["a", "m"]);
    let out = at_home(&h[0], &["mailbox"]);
    assert_eq!(stdout(&out), "no default mailbox\n");
    // Not an address: refused, nothing kept.
    let out = at_home(&h[0], &["mailbox", "not-an-address"]);
    assert_eq!(code(&out), 2);
    assert!(!stderr(&out).is_empty());
    assert_eq!(
        stdout(&at_home(&h[0], &["mailbox"])),
        "no default mailbox\n"
    );

    let m = start_node_with(&h[1], "node", "/ip4/127.0.0.1/tcp/0", &["--mailbox"], &[]);
    let _a = start_node(&h[0], "node");
    // Set while the node runs: it connects now, and keeps the mailbox.
    let out = at_home(&h[0], &["mailbox", &m.addr]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "default mailbox {}: the node keeps connected to it\n",
            m.addr
        )
    );
    assert_eq!(
        stdout(&at_home(&h[0], &["mailbox"])),
        format!("{}\n", m.addr)
    );
    let m_id = peer_of(&m.addr);
    let mut book = String::new();
    for _ in 0..100 {
        book = stdout(&at_home(&h[0], &["peers"]));
        if book.contains("connected, default mailbox, sealed/") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(book.contains(m_id), "{book}");
    assert!(
        book.contains(&format!(
            "connected, default mailbox, sealed/{}",
            env!("CARGO_PKG_VERSION")
        )),
        "{book}"
    );
    assert!(book.contains(&m.addr), "{book}");
    assert!(book.starts_with("this node: "), "{book}");

    let out = at_home(&h[0], &["mailbox", "--clear"]);
    assert_eq!(code(&out), 0);
    assert_eq!(stdout(&out), "no default mailbox now\n");
    assert_eq!(
        stdout(&at_home(&h[0], &["mailbox"])),
        "no default mailbox\n"
    );
}

#[test]
fn new_by_peer_id_says_where_the_invitation_got_to() {
    let dir = TempDir::new("reach-new");
    let h = homes(&dir, &["a", "b", "m"]);
    let m = start_node_with(&h[2], "node", "/ip4/127.0.0.1/tcp/0", &["--mailbox"], &[]);
    for home in &h[..2] {
        assert_eq!(code(&at_home(home, &["mailbox", &m.addr])), 0);
    }
    let _a = start_node(&h[0], "node");
    let b = start_node(&h[1], "node");
    let b_id = peer_of(&b.addr).to_owned();
    // Both keep the mailbox connected before A asks it for B (untimed: on a loaded
    // machine a node's first connection can take longer than `new`'s 10 s of trying).
    for home in &h[..2] {
        while !stdout(&at_home(home, &["peers"])).contains("connected, default mailbox, sealed/") {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    // B's peer id alone: A finds B at the mailbox they both keep.
    let out = at_home(&h[0], &["new", "duel", "--peer", &b_id]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("delivered to the peer"),
        "{}",
        stderr(&out)
    );
    let game = stdout(&out).trim().to_owned();
    assert_eq!(game.len(), 64);

    // A peer id nobody registered: the game is made, the invitation waits, and both
    // `new` (exit 3) and `games` say so.
    let c_id = init_peer_id(&dir.path().join("c"), "c");
    let out = at_home(&h[0], &["new", "duel", "--peer", &c_id, "--wait", "1"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("invitation not delivered: no address known for it"),
        "{}",
        stderr(&out)
    );
    let waiting = stdout(&out).trim().to_owned();
    let games = stdout(&at_home(&h[0], &["games"]));
    let line = games
        .lines()
        .skip_while(|l| !l.starts_with(&waiting[..12]))
        .take(3)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(line.contains("invitation not delivered"), "{games}");
}

/// A place that takes TCP connections and never answers (a node that hangs, a firewall
/// that holds): a dial there stays under way until its timeout. The listener's port.
fn tarpit() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = l.local_addr().expect("its address").port();
    std::thread::spawn(move || {
        let mut held = vec![];
        for s in l.incoming().flatten() {
            held.push(s);
        }
    });
    port
}

/// An address typed to `new --peer` is dialled at once, even while a dial to the same
/// peer at an address the book held is still under way, and a failure names it (issue
/// 55 item 4: `new` waited for the old dial, and named only the book's old address).
#[test]
fn an_address_typed_to_new_is_dialled_while_an_old_dial_hangs() {
    let dir = TempDir::new("reach-typed");
    let h = homes(&dir, &["a", "b"]);
    let _a = start_node(&h[0], "node");
    let b = start_node(&h[1], "node");
    let b_id = peer_of(&b.addr).to_owned();
    // A first invitation at an address that hangs: its dial stays under way.
    let hang = format!("/ip4/127.0.0.1/tcp/{}/p2p/{b_id}", tarpit());
    let out = at_home(&h[0], &["new", "duel", "--peer", &hang, "--wait", "0"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    // A dead address typed now: the failure names it, not the one that hangs.
    let dead = format!("/ip4/127.0.0.1/tcp/{}/p2p/{b_id}", free_port());
    let out = at_home(&h[0], &["new", "duel", "--peer", &dead, "--wait", "3"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let port = dead.split('/').nth(4).expect("a port");
    assert!(
        stderr(&out).contains(&format!("tcp/{port}")),
        "names the typed address: {}",
        stderr(&out)
    );
    // B's real address typed now: delivered, with the first dial still hanging.
    let out = at_home(&h[0], &["new", "duel", "--peer", &b.addr, "--wait", "5"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("delivered to the peer"),
        "{}",
        stderr(&out)
    );
}
