//! Secret Stallmate's running period, exact on the board: when it closes, which the
//! game's view does not say (its words are pinned by the control socket's golden
//! replies), read from the game's transcript and added to the view the page gets.

use serde_json::{Value, json};

use sealed_node::NodeHandle;

/// Adds to a Secret Stallmate game's view in play, in its `hand`, `period_ends_ms`
/// (when the running period closes: the referee's clock reading of the period's start
/// plus its length, ms since the Unix epoch) and `node_now_ms` (this node's clock as it
/// answered), so that the page counts down from their difference whatever its own clock
/// says. Anything else, or a transcript that cannot be read, leaves the view as it is:
/// the page then counts from when it saw the period begin.
pub(crate) async fn enrich(node: &NodeHandle, doc: &mut Value) {
    if doc["variant"] != "stallmate" || doc["phase"] != "play" {
        return;
    }
    let Some(game) = doc["game"].as_str() else {
        return;
    };
    let Ok(bytes) = node.transcript(game).await else {
        return;
    };
    // The replay checks every envelope's signature: work for a blocking thread, not
    // for the one serving requests.
    let ends = tokio::task::spawn_blocking(move || {
        sealed_games::stallmate::period::running_ends_at(&bytes)
    })
    .await
    .ok()
    .flatten();
    if let (Some(ends), Some(hand)) = (ends, doc.get_mut("hand").and_then(Value::as_object_mut)) {
        hand.insert("period_ends_ms".into(), json!(ends));
        hand.insert("node_now_ms".into(), json!(crate::now_ms()));
    }
}
