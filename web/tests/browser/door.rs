//! The session in a real browser: what another page or another local server can get
//! with whatever the browser gives it (nothing), two boards in one browser, and a node
//! that stops and starts again under an open page.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sealed_node::Home;

use crate::common::request;
use crate::{board_cfg, cfg, invite, node, seat, sign_in, start_in, with_driver};

/// Serves one page of HTML to every request, on a port of its own — another site, as
/// far as the browser can tell (another origin on this machine) — and keeps the head
/// of every request it gets.
fn another_site(html: String) -> (SocketAddr, Arc<Mutex<Vec<String>>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let heads = Arc::new(Mutex::new(vec![]));
    let kept = heads.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut buf = [0u8; 8192];
            let n = s.read(&mut buf).unwrap_or(0);
            kept.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&buf[..n]).into_owned());
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{html}",
                html.len()
            );
        }
    });
    (addr, heads)
}

/// The routes the board serves, as `web/src/api.rs` declares them: the test below
/// fails when one is added there and not tried here.
fn declared_routes() -> BTreeSet<String> {
    include_str!("../../src/api.rs")
        .split(".route(\"")
        .skip(1)
        .filter_map(|r| r.split('"').next())
        .map(str::to_owned)
        .collect()
}

/// What an answer shows once its date is set aside (two answers to the same request
/// differ in nothing else).
fn undated(text: &str) -> String {
    text.lines()
        .filter(|l| !l.to_ascii_lowercase().starts_with("date:"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A page on another local port that has whatever the browser sends it — every cookie
/// of 127.0.0.1 — gets nothing from any route of the board, the live stream included:
/// each API route refuses it as not signed in, and every other answers exactly what it
/// answers anyone. Even the session's secret, sent as a cookie, opens nothing.
#[test]
fn a_page_on_another_local_port_gets_nothing_with_what_the_browser_sends_it() {
    with_driver(|d| async move {
        let a = seat(&d, "alice", 21).await;
        let (bob, baddr, _bdir) = node("bob", 22, cfg()).await;
        let game = invite(&a.node, "tempete", &[], &baddr, None).await;
        let board = a.board.addr();
        a.b.goto(&format!("http://{board}/#/game/{game}")).await;
        assert!(
            a.b.until(
                "return !!document.getElementById('game')",
                Duration::from_secs(20)
            )
            .await
        );
        // What the page keeps of its session, if it keeps one where a script can read it.
        let secret =
            a.b.js("return localStorage.getItem('sealed.session') || ''")
                .await
                .as_str()
                .unwrap_or_default()
                .to_owned();
        // The player follows a link to a page served on another port of this machine.
        let (evil, heads) = another_site("<!doctype html><title>elsewhere</title><p>hello".into());
        a.b.goto(&format!("http://{evil}/")).await;
        let head = heads
            .lock()
            .unwrap()
            .first()
            .cloned()
            .expect("the browser came");
        let cookies: Vec<String> = head
            .lines()
            .filter_map(|l| {
                l.strip_prefix("Cookie: ")
                    .or_else(|| l.strip_prefix("cookie: "))
            })
            .map(str::to_owned)
            .collect();
        let leaked =
            head.contains("sealed_session") || (!secret.is_empty() && head.contains(&secret));
        // That server tries every route with what it got, the board's own Host and
        // Origin, and — as if it had it — the session's secret as a cookie.
        let host = format!("127.0.0.1:{}", board.port());
        let origin = format!("http://{host}");
        let mut sent = cookies.join("; ");
        for c in [
            format!("sealed_session={secret}"),
            format!("session={secret}"),
        ] {
            if !sent.is_empty() {
                sent.push_str("; ");
            }
            sent.push_str(&c);
        }
        let routes: Vec<(&str, &str)> = vec![
            ("GET", "/login"),
            ("GET", "/"),
            ("GET", "/{file}"),
            ("GET", "/api/me"),
            ("POST", "/api/signout"),
            ("GET", "/api/games"),
            ("GET", "/api/games/{game}"),
            ("POST", "/api/games/{game}/move"),
            ("POST", "/api/games/{game}/generic"),
            ("POST", "/api/games/{game}/accept"),
            ("POST", "/api/games/{game}/decline"),
            ("POST", "/api/games/{game}/withdraw"),
            ("GET", "/api/games/{game}/verify"),
            ("GET", "/api/games/{game}/download/{what}"),
            ("GET", "/api/variants"),
            ("GET", "/api/cards"),
            ("GET", "/api/peers"),
            ("POST", "/api/new"),
            ("GET", "/api/events"),
        ];
        let tried: BTreeSet<String> = routes.iter().map(|(_, p)| (*p).to_owned()).collect();
        assert_eq!(
            tried,
            declared_routes(),
            "every route of the board is tried"
        );
        let game2 = game.clone();
        let kept = secret.clone();
        tokio::task::spawn_blocking(move || {
            let stolen = [
                ("Host", host.as_str()),
                ("Origin", origin.as_str()),
                ("Cookie", sent.as_str()),
            ];
            let plain = [("Host", host.as_str()), ("Origin", origin.as_str())];
            for (method, route) in routes {
                let mut paths = vec![];
                for what in ["transcript", "score", "pgn", "svg"] {
                    for file in ["app.js", "session.js", "app.css", "signin.js"] {
                        paths.push(
                            route
                                .replace("{game}", &game2)
                                .replace("{what}", what)
                                .replace("{file}", file),
                        );
                    }
                }
                paths.sort();
                paths.dedup();
                for path in paths {
                    let body = if method == "POST" { "{}" } else { "" };
                    let (status, text) = request(board, method, &path, &stolen, body);
                    if path.starts_with("/api/") {
                        assert_eq!(status, 401, "{method} {path}: {text}");
                        assert!(
                            !text.contains(&game2) && !text.contains("event-stream"),
                            "{method} {path}: {text}"
                        );
                    } else {
                        // The page and its files: the same answer as to anyone.
                        let (s2, t2) = request(board, method, &path, &plain, body);
                        assert_eq!((status, undated(&text)), (s2, undated(&t2)), "{path}");
                        assert!(kept.is_empty() || !text.contains(&kept), "{path}: {text}");
                    }
                }
            }
        })
        .await
        .unwrap();
        // Nor did it get anything of the board's to begin with; the page keeps its
        // session in its own origin's storage.
        assert!(
            !leaked,
            "the browser gave another server the board's session: {head}"
        );
        assert_eq!(
            secret.len(),
            64,
            "the page keeps its session in its origin's storage"
        );
        // And the player's own page still works.
        a.b.goto(&format!("http://{board}/#/game/{game}")).await;
        assert!(
            a.b.until(
                "return !!document.getElementById('game')",
                Duration::from_secs(20)
            )
            .await
        );
        bob.shutdown().await.unwrap();
    });
}

/// In a real browser: a signed-in player who visits a hostile page on this machine has
/// it post to his board, by script and by form — both refused, no game made; a used
/// login address, opened again, signs nobody in; a browser that never signed in sees
/// no games.
#[test]
fn the_browser_cannot_be_made_to_act_by_another_page_nor_sign_in_twice() {
    with_driver(|d| async move {
        let a = seat(&d, "alice", 13).await;
        let board = a.board.addr();
        let body =
            r#"{"variant":"duel","peer":"12D3KooWEutTzaYDKwhCScp3nJcFnZbUA1ouLQMUZTBZyuLvp3Nq"}"#;
        // A script's post (a "simple" request: no preflight, cookies go along), then,
        // once that fails, a form's.
        let page = format!(
            r#"<!doctype html><title>evil</title>
<form id="f" method="POST" action="http://{board}/api/new" enctype="text/plain"><input type="hidden" name='{body}' value=""></form>
<script>
fetch("http://{board}/api/new", {{ method: "POST", credentials: "include", body: '{body}' }})
  .then(r => {{ document.title = "fetch " + r.status; }})
  .catch(() => {{ document.title = "fetch failed"; document.getElementById("f").submit(); }});
</script>"#
        );
        let (evil, _) = another_site(page);
        a.b.goto(&format!("http://{evil}/")).await;
        assert!(
            a.b.until(
                "return document.body && document.body.textContent.includes('requests from other sites are refused')",
                Duration::from_secs(20)
            )
            .await,
            "the form's post was answered: {}",
            a.b.js("return document.title + ' ' + document.body.textContent").await
        );
        let games = a.node.games().await.unwrap();
        assert!(games.is_empty(), "no game was made: {games:?}");

        // The login address alice used, opened again.
        let used = {
            let url = a.board.login_url().unwrap();
            a.b.goto(&url).await;
            url
        };
        let other = d.browser("mallory").await;
        other.goto(&used).await;
        let text = other.js("return document.body.textContent").await;
        assert!(text.as_str().unwrap().contains("already used"), "{text}");
        // Never signed in, the board shows nothing, and the page says what to run.
        other.goto(&format!("http://{board}/api/games")).await;
        let text = other.js("return document.body.textContent").await;
        assert!(text.as_str().unwrap().contains("not signed in"), "{text}");
        other.goto(&format!("http://{board}/#/")).await;
        assert!(
            other
                .until(
                    "return !!document.getElementById('signed-out')",
                    Duration::from_secs(20)
                )
                .await
        );
        // Alice is still signed in, on her own page.
        a.b.goto(&format!("http://{board}/#/")).await;
        assert!(
            a.b.until("return !!document.querySelector('h1') && document.querySelector('h1').textContent === 'Games'", Duration::from_secs(20))
                .await
        );
    });
}

/// The README's one-machine game in one browser: alice's board in one tab, bob's in
/// another (two ports of 127.0.0.1). Signing in to bob's signs nobody out: alice's tab,
/// reloaded, is still hers, and each tab reads its own node.
#[test]
fn two_boards_in_one_browser_both_stay_signed_in() {
    with_driver(|d| async move {
        let (alice, _, adir) = node("alice", 23, cfg()).await;
        let (bob, _, bdir) = node("bob", 24, cfg()).await;
        let at = "127.0.0.1:0".parse().unwrap();
        let ab = sealed_web::serve(alice.clone(), board_cfg(adir.path(), at))
            .await
            .unwrap();
        let bb = sealed_web::serve(bob.clone(), board_cfg(bdir.path(), at))
            .await
            .unwrap();
        let b = d.browser("both").await;
        sign_in(&b, &ab, "alice").await;
        let first = b.c.window().await.unwrap();
        let second = b.c.new_window(true).await.unwrap().handle;
        b.c.switch_to_window(second).await.unwrap();
        sign_in(&b, &bb, "bob").await;
        let me = "return document.getElementById('me').textContent";
        let bob_id = bob.info().await.unwrap().peer;
        let alice_id = alice.info().await.unwrap().peer;
        assert!(b.js(me).await.as_str().unwrap().contains(&bob_id[..12]));
        // Back to alice's tab: reloaded, it is still signed in, as alice.
        b.c.switch_to_window(first).await.unwrap();
        b.js("location.reload(); return true;").await;
        assert!(
            b.until(
                &format!(
                    "return document.getElementById('me').textContent.includes('{}')",
                    &alice_id[..12]
                ),
                Duration::from_secs(20)
            )
            .await,
            "alice's tab: {}",
            b.js("return document.body.textContent").await
        );
        assert!(
            b.until("return document.querySelector('h1') && document.querySelector('h1').textContent === 'Games'", Duration::from_secs(10))
                .await
        );
        // Both tabs read their own node: alice's live stream stays open.
        assert!(
            b.until(
                "return document.getElementById('live-words').textContent === 'live'",
                Duration::from_secs(10)
            )
            .await
        );
        alice.shutdown().await.unwrap();
        bob.shutdown().await.unwrap();
    });
}

/// A node stops under an open game page: the page says its node does not answer and
/// what to run, and turns its moves off. The node starts again, its board at the same
/// port with the sessions it kept: the page comes back by itself, and a move is made.
/// Started again with no session kept (a board that keeps none), the page says exactly
/// what to run to sign in again.
#[test]
fn after_a_node_restart_the_page_recovers_or_says_exactly_what_to_run() {
    with_driver(|d| async move {
        let a = seat(&d, "alice", 25).await;
        let b = seat(&d, "bob", 26).await;
        let game = crate::propose(&a, &b, "tempete", &[("ply-limit", "4")], None).await;
        let board = a.board.addr();
        let home = Home::at(a.dir.path());
        let again = format!("sealed --home {} ui", a.dir.path().display());
        // Alice's page, on her move.
        a.b.goto(&format!("http://{board}/#/game/{game}")).await;
        assert!(
            a.b.until(
                "const g = document.getElementById('game'); return !!g && g.dataset.myTurn === 'yes' && !!document.querySelector('.sq.movable')",
                Duration::from_secs(30)
            )
            .await
        );
        // The node stops, its board with it.
        a.board.stop();
        a.node.shutdown().await.unwrap();
        assert!(
            a.b.until(
                "const g = document.getElementById('game'); return !!g && g.dataset.node === 'down' && !document.getElementById('node-down').hidden",
                Duration::from_secs(30)
            )
            .await,
            "the page did not see its node go"
        );
        let said =
            a.b.js("return document.getElementById('node-down').textContent")
                .await;
        assert!(said.as_str().unwrap().contains(&again), "{said}");
        let live = a
            .b
            // Turning the board and stepping through its moves ask nothing of the node.
            .js("return [...document.querySelectorAll('#game button:not(.step):not(.act)')].filter(b => !b.disabled).map(b => b.textContent)")
            .await;
        assert_eq!(
            live,
            serde_json::json!([]),
            "moves are off while the node is down"
        );
        // Started again: same home, same port, the sessions it kept.
        let (node2, _) = start_in(&home, cfg()).await;
        let board2 = serve_again(&node2, board_cfg(a.dir.path(), board)).await;
        assert!(
            a.b.until(
                "const g = document.getElementById('game'); return !!g && g.dataset.node === 'up' && document.getElementById('node-down').hidden && !!document.querySelector('.sq.movable:not([disabled])')",
                Duration::from_secs(30)
            )
            .await,
            "the page did not come back: {}",
            a.b.js("return document.body.textContent").await
        );
        // A move, by clicks, goes through.
        assert!(a.b.click("#game .sq.movable", Duration::from_secs(5)).await);
        assert!(a.b.click("#game .sq.target", Duration::from_secs(5)).await);
        if a.b.count("#question").await > 0 {
            a.b.click("#question button.answer", Duration::from_secs(5))
                .await;
        }
        assert!(
            a.b.until(
                "return document.getElementById('game').dataset.ply !== '0'",
                Duration::from_secs(30)
            )
            .await,
            "the move after the restart"
        );
        // Once more, with a board that kept no session: the page says what to run.
        board2.stop();
        node2.shutdown().await.unwrap();
        let (node3, _) = start_in(&home, cfg()).await;
        let _board3 = serve_again(
            &node3,
            sealed_web::Config {
                sessions: None,
                ..board_cfg(a.dir.path(), board)
            },
        )
        .await;
        assert!(
            a.b.until(
                "return !!document.getElementById('signed-out')",
                Duration::from_secs(30)
            )
            .await,
            "{}",
            a.b.js("return document.body.textContent").await
        );
        let said =
            a.b.js("return document.getElementById('signed-out').textContent")
                .await;
        assert!(
            said.as_str().unwrap().contains(&format!("run `{again}`")),
            "{said}"
        );
        node3.shutdown().await.unwrap();
    });
}

/// Serves a board at the port it had (retrying while the old one lets it go).
async fn serve_again(node: &sealed_node::NodeHandle, cfg: sealed_web::Config) -> sealed_web::Board {
    for _ in 0..100 {
        if let Ok(b) = sealed_web::serve(node.clone(), cfg.clone()).await {
            return b;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the board's port did not come free");
}
