//! What the board's tests over raw sockets share: a node on loopback in a home of its
//! own, one hand-written HTTP request, and the session a login's page carries.

// Each test file is its own crate and uses only part of this module.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use sealed_node::{Home, NodeConfig, NodeHandle};

/// A node named `name` listening on loopback TCP (no mDNS), in a new home.
pub async fn node(name: &str, seed: u8) -> (NodeHandle, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::at(dir.path());
    home.init_with(&[seed; 32], name).unwrap();
    let mut cfg = NodeConfig::default();
    cfg.net.mdns = false;
    cfg.listen = vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()];
    let (node, _task) = sealed_node::start(&home, cfg).await.unwrap();
    (node, dir)
}

/// A Duel `node` proposes to a peer nobody runs (its node made, asked its id and
/// stopped): the game stays proposed, at ply 0. Its id.
pub async fn proposed_to_nobody(node: &NodeHandle, seed: u8) -> String {
    let (other, _other_dir) = self::node("nobody", seed).await;
    let id = other.info().await.unwrap().peer;
    drop(other);
    node.propose(sealed_node::ProposeArgs {
        variant: "duel".into(),
        options: vec![],
        peer: format!("/ip4/127.0.0.1/tcp/1/p2p/{id}").parse().unwrap(),
        mailbox: None,
        referee: None,
        witness: None,
    })
    .await
    .unwrap()
}

/// The status of an HTTP answer (0 when there is none).
pub fn status(answer: &str) -> u16 {
    answer
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

/// One HTTP/1.1 request, exactly these headers (and a JSON body's when there is one);
/// the status and the whole answer, or what came of it within 10 s.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if !body.is_empty() {
        req.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut bytes = vec![];
    let _ = s.read_to_end(&mut bytes);
    let answer = String::from_utf8_lossy(&bytes).into_owned();
    (status(&answer), answer)
}

/// The session a login's page carries for the board's script to keep.
pub fn session_of(answer: &str) -> String {
    let key = r#"name="sealed-session" content=""#;
    let at = answer.find(key).expect("a session in the sign-in page") + key.len();
    answer[at..at + 64].to_owned()
}

/// One player's board, signed in (served for the node, its login taken).
pub struct Board {
    addr: SocketAddr,
    host: String,
    bearer: String,
    origin: String,
}

impl Board {
    pub async fn open(node: &sealed_node::NodeHandle) -> (Board, sealed_web::Board) {
        let board = sealed_web::serve(
            node.clone(),
            sealed_web::Config::at("127.0.0.1:0".parse().unwrap()),
        )
        .await
        .unwrap();
        let addr = board.addr();
        let host = format!("127.0.0.1:{}", addr.port());
        let url = board.login_url().unwrap();
        let login = url.split_once(&host).unwrap().1.to_owned();
        let h = host.clone();
        let page =
            tokio::task::spawn_blocking(move || request(addr, "GET", &login, &[("Host", &h)], ""))
                .await
                .unwrap()
                .1;
        let b = Board {
            addr,
            origin: format!("http://{host}"),
            host,
            bearer: format!("Bearer {}", session_of(&page)),
        };
        (b, board)
    }

    /// A request to the API: the status and the JSON body.
    pub async fn call(&self, method: &str, path: &str, body: &str) -> (u16, serde_json::Value) {
        let (addr, host, bearer, origin) = (
            self.addr,
            self.host.clone(),
            self.bearer.clone(),
            self.origin.clone(),
        );
        let (method, at, body) = (method.to_owned(), path.to_owned(), body.to_owned());
        let (status, text) = tokio::task::spawn_blocking(move || {
            let headers = [
                ("Host", host.as_str()),
                ("Authorization", bearer.as_str()),
                ("Origin", origin.as_str()),
            ];
            request(addr, &method, &at, &headers, &body)
        })
        .await
        .unwrap();
        let json = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        let v = serde_json::from_str(json).unwrap_or_else(|e| panic!("{path}: {e}: {text}"));
        (status, v)
    }
}
