//! The board's door, from outside, over real sockets: a real node's board on 127.0.0.1
//! asked by hand-written HTTP requests, so that every header is exactly what a hostile
//! page or program could send. Each refusal must change nothing: a refused proposal
//! makes no game. The server's bounds (slow heads and bodies, the connection cap) are
//! in `bounds.rs`.

mod common;

use common::{request, session_of};

#[tokio::test(flavor = "multi_thread")]
async fn the_board_lets_in_only_a_session_its_own_host_and_origin() {
    let (node, _dir) = common::node("carol", 3).await;
    let board = sealed_web::serve(
        node.clone(),
        sealed_web::Config {
            again: "sealed --home /h/carol ui".into(),
            ..sealed_web::Config::at("127.0.0.1:0".parse().unwrap())
        },
    )
    .await
    .unwrap();
    let addr = board.addr();
    let host = format!("127.0.0.1:{}", addr.port());
    let origin = format!("http://{host}");
    let url = board.login_url().unwrap();
    let login = url.split_once(&host).unwrap().1.to_owned();
    tokio::task::spawn_blocking(move || {
        let ours = [("Host", host.as_str())];
        // No session: refused for every part of the API, saying exactly what to run.
        for path in ["/api/games", "/api/events", "/api/me", "/api/peers"] {
            let (status, text) = request(addr, "GET", path, &ours, "");
            assert_eq!(status, 401, "{path}: {text}");
            assert!(text.contains("run `sealed --home /h/carol ui`"), "{text}");
        }
        // The page and its scripts hold no secret and no game: anyone on this machine
        // may have them (they are the same bytes as in the binary).
        for path in ["/", "/app.js", "/session.js", "/app.css"] {
            assert_eq!(request(addr, "GET", path, &ours, "").0, 200, "{path}");
        }
        assert_eq!(request(addr, "GET", "/nothing.js", &ours, "").0, 404);
        // A foreign Host (a DNS name rebound to 127.0.0.1) is refused even at the login,
        // and for the page, and the token is not spent by it.
        for path in [login.as_str(), "/"] {
            let (status, _) = request(addr, "GET", path, &[("Host", "evil.example:80")], "");
            assert_eq!(status, 403, "{path}");
        }
        // The login: a page carrying the session for the board's script, no cookie.
        let (status, text) = request(addr, "GET", &login, &ours, "");
        assert_eq!(status, 200, "{text}");
        assert!(!text.to_lowercase().contains("set-cookie"), "{text}");
        assert!(text.contains("cache-control: no-store"), "{text}");
        assert!(
            text.contains("content-security-policy: default-src 'none'"),
            "{text}"
        );
        let session = session_of(&text);
        assert_eq!(session.len(), 64);
        // The same login address again: refused, and no second session.
        let (status, text) = request(addr, "GET", &login, &ours, "");
        assert_eq!(status, 403);
        assert!(text.contains("already used"), "{text}");
        assert!(!text.contains("sealed-session"), "{text}");
        let bearer = format!("Bearer {session}");
        let (h, a) = (host.as_str(), bearer.as_str());
        let send = |method: &str, path: &str, headers: &[(&str, &str)], body: &str| {
            request(addr, method, path, headers, body)
        };
        let (status, text) = send(
            "GET",
            "/api/games",
            &[("Host", h), ("Authorization", a)],
            "",
        );
        assert_eq!(status, 200, "{text}");
        assert!(text.ends_with("[]"), "{text}");
        // The secret as a cookie (what every server on 127.0.0.1 would see, were it
        // one) opens nothing.
        let cookie = format!("sealed_session={session}");
        let (status, _) = send("GET", "/api/games", &[("Host", h), ("Cookie", &cookie)], "");
        assert_eq!(status, 401);
        // Two Host headers, ours first: refused (issue 55).
        let (status, _) = send(
            "GET",
            "/api/games",
            &[
                ("Host", h),
                ("Host", "evil.example:80"),
                ("Authorization", a),
            ],
            "",
        );
        assert_eq!(status, 403);
        // The session with a foreign Host: refused.
        let (status, _) = send(
            "GET",
            "/api/games",
            &[("Host", "localhost.evil:1"), ("Authorization", a)],
            "",
        );
        assert_eq!(status, 403);
        // A proposal from another site's page, or with no Origin at all: refused, and
        // no game is made.
        let body =
            r#"{"variant":"duel","peer":"12D3KooWEutTzaYDKwhCScp3nJcFnZbUA1ouLQMUZTBZyuLvp3Nq"}"#;
        let evil = [
            ("Host", h),
            ("Authorization", a),
            ("Origin", "http://evil.example"),
        ];
        assert_eq!(send("POST", "/api/new", &evil, body).0, 403);
        assert_eq!(
            send(
                "POST",
                "/api/new",
                &[("Host", h), ("Authorization", a)],
                body
            )
            .0,
            403
        );
        // A cross-site read of the games with the session (were it sent): refused.
        assert_eq!(send("GET", "/api/games", &evil, "").0, 403);
        let (_, text) = send(
            "GET",
            "/api/games",
            &[("Host", h), ("Authorization", a)],
            "",
        );
        assert!(text.ends_with("[]"), "nothing was proposed: {text}");
        // From the board's own page, the same proposal is taken to the node (which
        // refuses it for its own reason: nobody answers at that peer id).
        let own = [
            ("Host", h),
            ("Authorization", a),
            ("Origin", origin.as_str()),
        ];
        let (status, text) = send("POST", "/api/new", &own, body);
        assert_ne!(status, 403, "{text}");
        // A body over the cap is refused before it is read.
        let big = format!(r#"{{"text":"{}"}}"#, "a".repeat(100_000));
        assert_eq!(send("POST", "/api/games/00/move", &own, &big).0, 413);
        // A made-up session: refused.
        let forged = format!("Bearer {}", "ab".repeat(32));
        assert_eq!(
            send(
                "GET",
                "/api/games",
                &[("Host", h), ("Authorization", &forged)],
                ""
            )
            .0,
            401
        );
        // Signing out ends the session.
        assert_eq!(send("POST", "/api/signout", &own, "").0, 200);
        assert_eq!(
            send(
                "GET",
                "/api/games",
                &[("Host", h), ("Authorization", a)],
                ""
            )
            .0,
            401
        );
    })
    .await
    .unwrap();
    node.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_board_refuses_to_listen_beyond_this_machine() {
    let (node, _dir) = common::node("dan", 4).await;
    let e = sealed_web::serve(
        node.clone(),
        sealed_web::Config::at("0.0.0.0:0".parse().unwrap()),
    )
    .await
    .err()
    .expect("refused");
    assert!(e.to_string().contains("127.0.0.1 only"), "{e}");
    node.shutdown().await.unwrap();
}
