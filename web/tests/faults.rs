//! The board answers a refusal with the HTTP status of whose fault it is (issue 54): 400
//! only for the request's own (words the game refuses), 404 for a game the node does not
//! know, 409 for a game not where the request took it (moved past the ply the page saw),
//! each with the node's words. Before, every refusal was 400, a failed store included.

mod common;

use common::Board;

#[tokio::test(flavor = "multi_thread")]
async fn each_refusal_has_the_status_of_whose_fault_it_is() {
    let (node, _dir) = common::node("erin", 6).await;
    let game = common::proposed_to_nobody(&node, 7).await;
    let (board, _served) = Board::open(&node).await;

    // No such game: 404.
    let (status, v) = board.call("GET", "/api/games/0123456789ab", "").await;
    assert_eq!(status, 404, "{v}");
    assert!(
        v["error"].as_str().unwrap_or_default().contains("no game"),
        "{v}"
    );

    // The page saw another ply: 409, and nothing was sent.
    let path = format!("/api/games/{game}/move");
    let (status, v) = board
        .call("POST", &path, r#"{"text":"resign","expect":7}"#)
        .await;
    assert_eq!(status, 409, "{v}");
    assert!(
        v["error"].as_str().unwrap_or_default().contains("ply 0"),
        "{v}"
    );

    // Words the game does not take: the request's own fault, 400.
    let (status, v) = board
        .call("POST", &path, r#"{"text":"fly to the moon","expect":0}"#)
        .await;
    assert_eq!(status, 400, "{v}");
    assert!(v["error"].is_string(), "{v}");

    // What was refused changed nothing: the game is still proposed, at ply 0.
    let (status, v) = board.call("GET", &format!("/api/games/{game}"), "").await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["ply"], 0, "{v}");
    // Its buttons carry their generic command as a value: here, withdraw alone.
    let generics: Vec<&str> = v["choices"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["generic"].as_str())
        .collect();
    assert_eq!(generics, ["withdraw"], "{v}");

    // A generic command is sent as that value: a draw offer before anyone accepted is
    // refused in the game's words (the request's fault), a withdrawal is taken.
    let generic = format!("/api/games/{game}/generic");
    let (status, v) = board
        .call("POST", &generic, r#"{"generic":"offer-draw","expect":0}"#)
        .await;
    assert_eq!(status, 400, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap_or_default()
            .starts_with("offer draw:"),
        "{v}"
    );
    let (status, v) = board
        .call("POST", &generic, r#"{"generic":"withdraw","expect":0}"#)
        .await;
    assert_eq!(status, 200, "{v}");
    let (_, v) = board.call("GET", "/api/games", "").await;
    assert_eq!(v[0]["status"], "withdrawn", "{v}");
}
