//! A node asked for any port takes the one it had last time, so that a peer who
//! remembers its address finds it after a restart; a port another program took since is
//! left alone. Real `sealed node` processes on loopback.

mod common;

use std::net::TcpListener;

use common::{TempDir, at_home, code, start_node_with};

/// The TCP port of a printed address.
fn tcp_port(addr: &str) -> u16 {
    let mut parts = addr.split('/');
    while let Some(p) = parts.next() {
        if p == "tcp" {
            return parts.next().and_then(|n| n.parse().ok()).expect("a port");
        }
    }
    panic!("no TCP port in {addr}");
}

#[test]
fn a_restarted_node_listens_where_it_was_unless_the_port_is_taken() {
    let dir = TempDir::new("ports");
    let home = dir.path().join("alice");
    assert_eq!(code(&at_home(&home, &["init", "--name", "alice"])), 0);
    let any = "/ip4/127.0.0.1/tcp/0";

    let first = tcp_port(&start_node_with(&home, "node", any, &[], &[]).addr);
    // Killed and started again: the same port.
    let again = tcp_port(&start_node_with(&home, "node", any, &[], &[]).addr);
    assert_eq!(again, first, "the port kept in the home is taken again");

    // Another program holds the port: the node starts on another and keeps that one.
    let squatter = TcpListener::bind(("127.0.0.1", first)).expect("the port is free");
    let moved = tcp_port(&start_node_with(&home, "node", any, &[], &[]).addr);
    assert_ne!(moved, first);
    drop(squatter);
    let last = tcp_port(&start_node_with(&home, "node", any, &[], &[]).addr);
    assert_eq!(last, moved, "the newest port is the one kept");

    // A port given explicitly is the person's choice, whatever is kept.
    let free = TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let given = format!("/ip4/127.0.0.1/tcp/{free}");
    assert_eq!(
        tcp_port(&start_node_with(&home, "node", &given, &[], &[]).addr),
        free
    );
}

/// An address this machine does not have (203.0.113.0/24 is for documentation only) is
/// refused at start with the system's reason, not an empty message.
#[test]
fn a_listen_address_the_machine_lacks_is_refused_with_why() {
    let dir = TempDir::new("listen");
    let home = dir.path().join("alice");
    assert_eq!(code(&at_home(&home, &["init", "--name", "alice"])), 0);
    let out = at_home(
        &home,
        &["node", "--no-mdns", "--listen", "/ip4/203.0.113.5/tcp/0"],
    );
    common::refused(&out, "cannot listen on /ip4/203.0.113.5/tcp/0: ");
    assert!(common::stderr(&out).contains("os error"), "{out:?}");
}
