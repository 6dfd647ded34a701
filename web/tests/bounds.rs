//! What the board's server holds, at most, over real sockets: connections that never
//! finish their request heads are closed once the head's deadline passes, a body that
//! trickles in is answered 408 once the body's deadline passes, and past the cap a
//! newcomer takes the slot of the oldest connection nobody uses (a slow head), so that
//! slow clients cannot shut the player out; only when every slot is the player's (a
//! live session came on it) or busy is a newcomer closed at once. The board runs with
//! its default limits, as `sealed ui` serves it. `SEALED_SLOW=1000` sends a thousand
//! newcomers past the cap instead of three.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use sealed_web::Limits;

mod common;

/// Reads until the server closes the connection (or `wait` passes): what it sent, and
/// whether it closed.
fn until_closed(s: &mut TcpStream, wait: Duration) -> (String, bool) {
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let start = Instant::now();
    let mut got = vec![];
    let mut buf = [0u8; 4096];
    while start.elapsed() < wait {
        match s.read(&mut buf) {
            Ok(0) => return (String::from_utf8_lossy(&got).into_owned(), true),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return (String::from_utf8_lossy(&got).into_owned(), true),
        }
    }
    (String::from_utf8_lossy(&got).into_owned(), false)
}

fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
        addr.port()
    )
    .unwrap();
    let (text, _) = until_closed(&mut s, Duration::from_secs(10));
    (common::status(&text), text)
}

/// A node's board, as `sealed ui` serves it, and its login address.
async fn served(
    name: &str,
) -> (
    sealed_node::NodeHandle,
    tempfile::TempDir,
    sealed_web::Board,
) {
    let (node, dir) = common::node(name, 5).await;
    let board = sealed_web::serve(
        node.clone(),
        sealed_web::Config::at("127.0.0.1:0".parse().unwrap()),
    )
    .await
    .unwrap();
    (node, dir, board)
}

/// Signs in at `login` (the board's login address): the `Host` header's value and the
/// session's bearer.
fn sign_in(addr: SocketAddr, login: &str) -> (String, String) {
    let host = format!("127.0.0.1:{}", addr.port());
    let (status, page) = get(addr, login.split_once(&host).unwrap().1);
    assert_eq!(status, 200, "{page}");
    (host, common::session_of(&page))
}

#[tokio::test(flavor = "multi_thread")]
async fn slow_requests_are_closed_and_connections_capped() {
    let (node, _dir, board) = served("erin").await;
    let addr = board.addr();
    let login = board.login_url().unwrap();
    let limits = Limits::default();
    // The deadlines are the defaults: these waits are the test's patience, well past
    // them, not a measure of speed.
    let patience = limits.header.max(limits.body) * 3;
    tokio::task::spawn_blocking(move || {
        // A session, to reach the body's deadline (without one the door answers 401
        // before reading any body).
        let (host, session) = sign_in(addr, &login);

        // As many connections as the cap: one whose body never finishes, the others
        // with half a request head.
        let mut body = TcpStream::connect(addr).unwrap();
        write!(
            body,
            "POST /api/games/00/move HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\n\
             Authorization: Bearer {session}\r\nContent-Type: application/json\r\n\
             Content-Length: 100\r\n\r\n{{\"text\":"
        )
        .unwrap();
        let mut slow: Vec<TcpStream> = (1..limits.connections)
            .map(|_| {
                let mut s = TcpStream::connect(addr).unwrap();
                write!(s, "GET /api/games HTTP/1.1\r\nHost: {host}\r\nX-Slow: ").unwrap();
                s
            })
            .collect();
        let opened = Instant::now();
        std::thread::sleep(Duration::from_millis(300));
        // More: past the cap, each newcomer ends the oldest slow head and is answered
        // (`SEALED_SLOW` of them, three by default); the slow body, whose request
        // carries a live session, is never the one ended.
        let more: usize = std::env::var("SEALED_SLOW")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(3);
        // Each newcomer keeps its connection (a page's head, kept alive), so that the
        // next one finds the cap full again.
        let mut slowest = Duration::ZERO;
        let mut newcomers = vec![];
        for i in 0..more {
            let t = Instant::now();
            let mut s = TcpStream::connect(addr).unwrap();
            write!(s, "HEAD / HTTP/1.1\r\nHost: {host}\r\n\r\n").unwrap();
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let mut head = vec![];
            let mut buf = [0u8; 1024];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match s.read(&mut buf) {
                    Ok(n) if n > 0 => head.extend_from_slice(&buf[..n]),
                    _ => break,
                }
            }
            slowest = slowest.max(t.elapsed());
            let head = String::from_utf8_lossy(&head).into_owned();
            assert!(
                head.starts_with("HTTP/1.1 200"),
                "past the cap, {i}: {head:?}"
            );
            newcomers.push(s);
        }
        // With more newcomers than slow heads, the later ones end earlier newcomers
        // (idle, untrusted): the slow heads all went first, oldest first.
        let room = more.min(slow.len());
        let mut ended = 0;
        for s in slow.iter_mut().take(room) {
            if until_closed(s, Duration::from_millis(300)).1 {
                ended += 1;
            }
        }
        assert_eq!(ended, room, "the oldest slow heads made room");
        // The body that never finishes: answered 408 and closed once its deadline
        // passes.
        let start = Instant::now();
        let (text, closed) = until_closed(&mut body, patience);
        assert!(closed, "a body that never finishes is still held: {text:?}");
        assert!(text.starts_with("HTTP/1.1 408"), "{text}");
        // Each half-sent head is closed once its deadline passes.
        for (i, s) in slow.iter_mut().enumerate() {
            let left = patience.saturating_sub(start.elapsed());
            let (_, closed) = until_closed(s, left.max(Duration::from_millis(200)));
            assert!(
                closed,
                "slow connection {i} still held after {:?}",
                start.elapsed()
            );
        }
        // The board answers again.
        assert_eq!(get(addr, "/").0, 200);
        println!(
            "bounds: {} held ({} slow heads, 1 slow body), {more} newcomers past the cap each \
             answered (the slowest in {:.3} s) in place of the oldest slow head, every held \
             one closed by {:.1} s after they were opened (deadlines {:?} and {:?})",
            limits.connections,
            limits.connections - 1,
            slowest.as_secs_f64(),
            opened.elapsed().as_secs_f64(),
            limits.header,
            limits.body
        );
    })
    .await
    .unwrap();
    node.shutdown().await.unwrap();
}

/// Every slot the player's (a request with a live session came on it, kept alive): a
/// newcomer is closed at once, and none of the player's connections is ended for it.
#[tokio::test(flavor = "multi_thread")]
async fn the_players_own_connections_are_never_ended_for_a_newcomer() {
    let (node, _dir, board) = served("fay").await;
    let addr = board.addr();
    let login = board.login_url().unwrap();
    let limits = Limits::default();
    tokio::task::spawn_blocking(move || {
        let (host, session) = sign_in(addr, &login);
        // Each slot: one answered API request with the session, the connection kept.
        let mut mine: Vec<TcpStream> = (0..limits.connections)
            .map(|i| {
                let mut s = TcpStream::connect(addr).unwrap();
                write!(
                    s,
                    "GET /api/games HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {session}\r\n\r\n"
                )
                .unwrap();
                s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
                let mut buf = [0u8; 4096];
                let n = s.read(&mut buf).unwrap();
                let head = String::from_utf8_lossy(&buf[..n]);
                assert!(head.starts_with("HTTP/1.1 200"), "{i}: {head}");
                s
            })
            .collect();
        let mut extra = TcpStream::connect(addr).unwrap();
        let _ = write!(extra, "GET / HTTP/1.1\r\nHost: {host}\r\n\r\n");
        let (text, closed) = until_closed(&mut extra, Duration::from_secs(5));
        assert!(closed && text.is_empty(), "past a full cap: {closed} {text:?}");
        // The player's connections all still answer.
        for (i, s) in mine.iter_mut().enumerate() {
            write!(
                s,
                "GET /api/games HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {session}\r\nConnection: close\r\n\r\n"
            )
            .unwrap();
            let (text, _) = until_closed(s, Duration::from_secs(10));
            assert!(text.contains("HTTP/1.1 200"), "{i}: {text:?}");
        }
    })
    .await
    .unwrap();
    node.shutdown().await.unwrap();
}
