//! The board's door, from outside, over real sockets: a real node's board on 127.0.0.1
//! asked by hand-written HTTP requests, so that every header is exactly what a hostile
//! page or program could send. Each refusal must change nothing: a refused proposal
//! makes no game.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use sealed_node::{Home, NodeConfig};

/// One HTTP/1.1 request; the status and the whole answer.
fn request(
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
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, answer)
}

fn cookie_of(answer: &str) -> String {
    answer
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .and_then(|c| c.split(';').next())
        .expect("a session cookie")
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_board_lets_in_only_a_session_its_own_host_and_origin() {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::at(dir.path());
    home.init_with(&[3; 32], "carol").unwrap();
    let mut cfg = NodeConfig::default();
    cfg.net.mdns = false;
    cfg.listen = vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()];
    let (node, _task) = sealed_node::start(&home, cfg).await.unwrap();
    let board = sealed_web::serve(node.clone(), "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let addr = board.addr();
    let host = format!("127.0.0.1:{}", addr.port());
    let origin = format!("http://{host}");
    let url = board.login_url().unwrap();
    let login = url.split_once(&host).unwrap().1.to_owned();
    tokio::task::spawn_blocking(move || {
        let ours = [("Host", host.as_str())];
        // No cookie: refused, for the page and for the API.
        for path in ["/", "/api/games", "/api/events", "/app.js"] {
            let (status, text) = request(addr, "GET", path, &ours, "");
            assert_eq!(status, 401, "{path}: {text}");
            assert!(text.contains("sealed ui"), "{text}");
        }
        // A foreign Host (a DNS name rebound to 127.0.0.1) is refused even at the login,
        // and the token is not spent by it.
        let (status, _) = request(addr, "GET", &login, &[("Host", "evil.example:80")], "");
        assert_eq!(status, 403);
        // The login: a session cookie, HttpOnly and SameSite=Strict, and the games.
        let (status, text) = request(addr, "GET", &login, &ours, "");
        assert_eq!(status, 303, "{text}");
        let set = text
            .lines()
            .find(|l| l.starts_with("set-cookie: "))
            .unwrap()
            .to_owned();
        assert!(
            set.contains("HttpOnly") && set.contains("SameSite=Strict"),
            "{set}"
        );
        assert!(
            text.contains("content-security-policy: default-src 'none'"),
            "{text}"
        );
        let cookie = cookie_of(&text);
        // The same login address again: refused, and no second session.
        let (status, text) = request(addr, "GET", &login, &ours, "");
        assert_eq!(status, 403);
        assert!(text.contains("already used"), "{text}");
        assert!(!text.contains("set-cookie"), "{text}");
        let (h, c) = (host.as_str(), cookie.as_str());
        let send = |method: &str, path: &str, headers: &[(&str, &str)], body: &str| {
            request(addr, method, path, headers, body)
        };
        let (status, text) = send("GET", "/api/games", &[("Host", h), ("Cookie", c)], "");
        assert_eq!(status, 200, "{text}");
        assert!(text.ends_with("[]"), "{text}");
        // The cookie with a foreign Host: refused.
        let (status, _) = send(
            "GET",
            "/api/games",
            &[("Host", "localhost.evil:1"), ("Cookie", c)],
            "",
        );
        assert_eq!(status, 403);
        // A proposal from another site's page, or with no Origin at all: refused, and
        // no game is made.
        let body =
            r#"{"variant":"duel","peer":"12D3KooWEutTzaYDKwhCScp3nJcFnZbUA1ouLQMUZTBZyuLvp3Nq"}"#;
        let evil = [
            ("Host", h),
            ("Cookie", c),
            ("Origin", "http://evil.example"),
        ];
        assert_eq!(send("POST", "/api/new", &evil, body).0, 403);
        assert_eq!(
            send("POST", "/api/new", &[("Host", h), ("Cookie", c)], body).0,
            403
        );
        // A cross-site read of the games with the cookie (were it sent): refused.
        assert_eq!(send("GET", "/api/games", &evil, "").0, 403);
        let (_, text) = send("GET", "/api/games", &[("Host", h), ("Cookie", c)], "");
        assert!(text.ends_with("[]"), "nothing was proposed: {text}");
        // From the board's own page, the same proposal is taken to the node (which
        // refuses it for its own reason: nobody answers at that peer id).
        let own = [("Host", h), ("Cookie", c), ("Origin", origin.as_str())];
        let (status, text) = send("POST", "/api/new", &own, body);
        assert_ne!(status, 403, "{text}");
        // A body over the cap is refused before it is read.
        let big = format!(r#"{{"text":"{}"}}"#, "a".repeat(100_000));
        assert_eq!(send("POST", "/api/games/00/act", &own, &big).0, 413);
        // A made-up session: refused.
        let forged = format!("sealed_session={}", "ab".repeat(32));
        assert_eq!(
            send("GET", "/api/games", &[("Host", h), ("Cookie", &forged)], "").0,
            401
        );
    })
    .await
    .unwrap();
    node.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_board_refuses_to_listen_beyond_this_machine() {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::at(dir.path());
    home.init_with(&[4; 32], "dan").unwrap();
    let mut cfg = NodeConfig::default();
    cfg.net.mdns = false;
    cfg.listen = vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()];
    let (node, _task) = sealed_node::start(&home, cfg).await.unwrap();
    let e = sealed_web::serve(node.clone(), "0.0.0.0:0".parse().unwrap())
        .await
        .err()
        .expect("refused");
    assert!(e.to_string().contains("127.0.0.1 only"), "{e}");
    node.shutdown().await.unwrap();
}
