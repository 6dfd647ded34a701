//! What the node knows now of the people and nodes a game names, added to the game
//! documents the page reads: whether each seat's node is connected to this one, and
//! the name the witness and each mailbox announce (a proposal names its seats only).
//! An announced name is the peer's own word, shown as text beside its peer id, which
//! no name can forge.

use std::collections::HashMap;

use sealed_node::NodeHandle;
use sealed_node::core::PlayerView;
use sealed_node::core::players::{HelperView, Seen};

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

/// Says `connected` of each of a document's `players` but this seat, and `name` and
/// `connected` of each of its `helpers`.
pub(crate) fn enrich(players: &mut [PlayerView], helpers: &mut [HelperView], facts: &Facts) {
    for p in players.iter_mut().filter(|p| !p.you) {
        let known = facts.get(&p.peer);
        p.connected = Some(known.is_some_and(|(_, c)| *c));
    }
    for h in helpers.iter_mut() {
        let known = facts.get(&h.peer);
        h.seen = Some(Seen {
            name: known.and_then(|(n, _)| n.clone()),
            connected: known.is_some_and(|(_, c)| *c),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(peer: &str, you: bool, name: &str) -> PlayerView {
        PlayerView {
            seat: 0,
            role: "player".into(),
            name: name.into(),
            peer: peer.into(),
            you,
            connected: None,
        }
    }

    fn helper(role: &str, peer: &str) -> HelperView {
        HelperView {
            role: role.into(),
            peer: peer.into(),
            seen: None,
        }
    }

    #[test]
    fn seats_and_helpers_get_what_the_node_knows_of_them() {
        let facts: Facts = [
            ("P1".to_owned(), (Some("bob".to_owned()), true)),
            ("W".to_owned(), (Some("clock tower".to_owned()), false)),
        ]
        .into_iter()
        .collect();
        let mut players = vec![
            player("P0", true, "alice"),
            player("P1", false, "bob"),
            player("P2", false, "carol"),
        ];
        let mut helpers = vec![helper("witness", "W"), helper("mailbox", "M")];
        enrich(&mut players, &mut helpers, &facts);
        assert_eq!(players[0].connected, None, "this seat is this node");
        assert_eq!(players[1].connected, Some(true));
        assert_eq!(players[2].connected, Some(false));
        assert_eq!(players[1].name, "bob", "a seat keeps its proposal's name");
        let seen = |h: &HelperView| h.seen.clone().expect("said");
        assert_eq!(seen(&helpers[0]).name.as_deref(), Some("clock tower"));
        assert!(!seen(&helpers[0]).connected);
        assert_eq!(seen(&helpers[1]).name, None);
        // In JSON, as the page reads it: `connected` beside a seat, `name` (null when
        // none is known) and `connected` beside a helper.
        let json = serde_json::to_string(&helpers[1]).unwrap();
        assert_eq!(
            json,
            r#"{"role":"mailbox","peer":"M","name":null,"connected":false}"#
        );
        let json = serde_json::to_string(&players[0]).unwrap();
        assert!(!json.contains("connected"), "{json}");
    }
}
