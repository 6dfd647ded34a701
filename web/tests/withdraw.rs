//! The board takes back an invitation its player made, as `sealed withdraw` does
//! (spec/PROTOCOL.md §17.14): the route asks the node, the game then reads withdrawn,
//! and a second withdrawal is refused with the session's words.

mod common;

use common::Board;

#[tokio::test(flavor = "multi_thread")]
async fn the_board_withdraws_an_invitation_nobody_accepted() {
    let (node, _dir) = common::node("dana", 4).await;
    // An invitation to a peer nobody runs: it stays proposed.
    let game = common::proposed_to_nobody(&node, 5).await;
    let (board, _served) = Board::open(&node).await;
    let games = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .map(|g| g["status"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let (status, v) = board.call("GET", "/api/games", "").await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(games(&v), ["proposed"], "{v}");
    let path = format!("/api/games/{}/withdraw", &game[..12]);
    let (status, v) = board.call("POST", &path, "{}").await;
    assert_eq!(status, 200, "{v}");
    let (_, v) = board.call("GET", "/api/games", "").await;
    assert_eq!(games(&v), ["withdrawn"], "{v}");
    // Over: a second withdrawal is refused, saying why.
    let (status, v) = board.call("POST", &path, "{}").await;
    assert!(status >= 400, "{status}: {v}");
    assert!(v.to_string().contains("over"), "{v}");
}
