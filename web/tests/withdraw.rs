//! The board takes back an invitation its player made, as `sealed withdraw` does
//! (spec/PROTOCOL.md §17.14): the route asks the node, the game then reads withdrawn,
//! and a second withdrawal is refused with the session's words.

mod common;

use common::{request, session_of};
use sealed_node::ProposeArgs;

#[tokio::test(flavor = "multi_thread")]
async fn the_board_withdraws_an_invitation_nobody_accepted() {
    let (node, _dir) = common::node("dana", 4).await;
    // An invitation to a peer nobody runs: it stays proposed.
    let (other, _other_dir) = common::node("nobody", 5).await;
    let id = other.info().await.unwrap().peer;
    drop(other);
    let nobody = format!("/ip4/127.0.0.1/tcp/1/p2p/{id}");
    let game = node
        .propose(ProposeArgs {
            variant: "duel".into(),
            options: vec![],
            peer: nobody.parse().unwrap(),
            mailbox: None,
            referee: None,
            witness: None,
        })
        .await
        .unwrap();
    let board = sealed_web::serve(
        node.clone(),
        sealed_web::Config::at("127.0.0.1:0".parse().unwrap()),
    )
    .await
    .unwrap();
    let addr = board.addr();
    let host = format!("127.0.0.1:{}", addr.port());
    let origin = format!("http://{host}");
    let login = board
        .login_url()
        .unwrap()
        .split_once(&host)
        .unwrap()
        .1
        .to_owned();
    tokio::task::spawn_blocking(move || {
        let (_, page) = request(addr, "GET", &login, &[("Host", &host)], "");
        let bearer = format!("Bearer {}", session_of(&page));
        let headers = [
            ("Host", host.as_str()),
            ("Authorization", bearer.as_str()),
            ("Origin", origin.as_str()),
        ];
        let games = |want: &str| {
            let (status, text) = request(addr, "GET", "/api/games", &headers[..2], "");
            assert_eq!(status, 200, "{text}");
            assert!(text.contains(want), "{want}: {text}");
        };
        games(r#""status":"proposed""#);
        let path = format!("/api/games/{}/withdraw", &game[..12]);
        let (status, text) = request(addr, "POST", &path, &headers, "{}");
        assert_eq!(status, 200, "{text}");
        games(r#""status":"withdrawn""#);
        // Over: a second withdrawal is refused, saying why.
        let (status, text) = request(addr, "POST", &path, &headers, "{}");
        assert!(status >= 400, "{status}: {text}");
        assert!(text.contains("over"), "{text}");
    })
    .await
    .unwrap();
}
