//! Secret Stallmate's running period, exact on the board: the game's view says when the
//! period closes (`hand.period_ends_ms`, by the referee's clock); the page counts down
//! from that less the node's clock as it answered, added here, so that what the page's
//! own clock says, and when the page was opened, do not matter.

use sealed_games::table::Hand;

/// Sets `node_now_ms` (this node's clock now, ms since the Unix epoch) in a hand that
/// names a period's close; any other hand is left as it is.
pub(crate) fn stamp_now(hand: &mut Hand) {
    stamp(hand, crate::now_ms());
}

fn stamp(hand: &mut Hand, now: u64) {
    if let Hand::Stallmate(h) = hand
        && h.period_ends_ms.is_some()
    {
        h.node_now_ms = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use sealed_games::table::hand::StallmateHand;

    use super::*;

    fn stallmate(ends: Option<u64>) -> Hand {
        Hand::Stallmate(StallmateHand {
            army: None,
            attempts: vec![],
            heard: vec![],
            period_ends_ms: ends,
            node_now_ms: None,
        })
    }

    #[test]
    fn only_a_hand_with_a_period_close_gets_the_nodes_time() {
        let mut with = stallmate(Some(5));
        stamp(&mut with, 7);
        let Hand::Stallmate(h) = &with else {
            panic!("a Stallmate hand stays one: {with:?}")
        };
        assert_eq!(h.node_now_ms, Some(7));
        for mut hand in [stallmate(None), Hand::None] {
            let before = hand.clone();
            stamp(&mut hand, 7);
            assert_eq!(hand, before);
        }
    }
}
