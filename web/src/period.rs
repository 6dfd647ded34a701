//! Secret Stallmate's running period, exact on the board: the game's view says when the
//! period closes (`hand.period_ends_ms`, by the referee's clock); the page counts down
//! from that less the node's clock as it answered, added here, so that what the page's
//! own clock says, and when the page was opened, do not matter.

use serde_json::{Value, json};

/// Adds `node_now_ms` (this node's clock now, ms since the Unix epoch) to a view whose
/// `hand` names a period's close; anything else is left as it is.
pub(crate) fn stamp_now(doc: &mut Value) {
    let Some(hand) = doc.get_mut("hand").and_then(Value::as_object_mut) else {
        return;
    };
    if hand.get("period_ends_ms").is_some_and(Value::is_u64) {
        hand.insert("node_now_ms".into(), json!(crate::now_ms()));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn only_a_view_with_a_period_close_gets_the_nodes_time() {
        let mut with = json!({"hand": {"period_ends_ms": 5}});
        super::stamp_now(&mut with);
        assert!(with["hand"]["node_now_ms"].is_u64(), "{with}");
        for mut v in [
            json!({"hand": {"period_ends_ms": null}}),
            json!({"hand": {}}),
            json!({"hand": []}),
            json!({}),
        ] {
            let before = v.clone();
            super::stamp_now(&mut v);
            assert_eq!(v, before);
        }
    }
}
