//! What the node knows now of the people and nodes a game names, added to the game
//! documents the page reads: whether each seat's node is connected to this one, and
//! the name the witness and each mailbox announce (a proposal names its seats only).
//! An announced name is the peer's own word, shown as text beside its peer id, which
//! no name can forge.

use std::collections::HashMap;

use serde_json::Value;

use sealed_node::NodeHandle;

/// Per peer id: the name it announces, if any, and whether it is connected now.
pub(crate) type Facts = HashMap<String, (Option<String>, bool)>;

/// The node's peers document, by peer id (none when the node does not answer: the
/// documents then go out as the node gave them).
pub(crate) async fn facts(node: &NodeHandle) -> Facts {
    let Ok(view) = node.peers().await else {
        return Facts::new();
    };
    view.peers
        .into_iter()
        .filter_map(|p| Some((p.peer?, (p.name, p.connected))))
        .collect()
}

/// Adds `connected` to each of a document's `players` but this seat, and `name` and
/// `connected` to each of its `helpers`.
pub(crate) fn enrich(doc: &mut Value, facts: &Facts) {
    if let Some(Value::Array(players)) = doc.get_mut("players") {
        for p in players.iter_mut().filter(|p| p["you"] != true) {
            let known = p["peer"].as_str().and_then(|id| facts.get(id));
            p["connected"] = Value::Bool(known.is_some_and(|(_, c)| *c));
        }
    }
    if let Some(Value::Array(helpers)) = doc.get_mut("helpers") {
        for h in helpers.iter_mut() {
            let known = h["peer"].as_str().and_then(|id| facts.get(id));
            h["name"] = known
                .and_then(|(n, _)| n.clone())
                .map_or(Value::Null, Value::String);
            h["connected"] = Value::Bool(known.is_some_and(|(_, c)| *c));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn seats_and_helpers_get_what_the_node_knows_of_them() {
        let facts: Facts = [
            ("P1".to_owned(), (Some("bob".to_owned()), true)),
            ("W".to_owned(), (Some("clock tower".to_owned()), false)),
        ]
        .into_iter()
        .collect();
        let mut doc = json!({
            "players": [
                { "peer": "P0", "you": true, "name": "alice" },
                { "peer": "P1", "you": false, "name": "bob" },
                { "peer": "P2", "you": false, "name": "carol" },
            ],
            "helpers": [
                { "role": "witness", "peer": "W" },
                { "role": "mailbox", "peer": "M" },
            ],
        });
        enrich(&mut doc, &facts);
        assert_eq!(
            doc["players"][0].get("connected"),
            None,
            "this seat is this node"
        );
        assert_eq!(doc["players"][1]["connected"], true);
        assert_eq!(doc["players"][2]["connected"], false);
        assert_eq!(
            doc["players"][1]["name"], "bob",
            "a seat keeps its proposal's name"
        );
        assert_eq!(doc["helpers"][0]["name"], "clock tower");
        assert_eq!(doc["helpers"][0]["connected"], false);
        assert_eq!(doc["helpers"][1]["name"], Value::Null);
        // A document without them is left as it is.
        let mut other = json!({ "game": "x" });
        enrich(&mut other, &facts);
        assert_eq!(other, json!({ "game": "x" }));
    }
}
