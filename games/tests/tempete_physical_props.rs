//! The physical deck never panics on what an opponent sends (spec/GAMES.md §4.20): any
//! bytes decoded as an act and judged on a game in play, and any stated edits carried
//! out on any board the edits themselves build. A refusal is an answer; a panic would
//! be a way to stop the other's node.

use proptest::prelude::*;
use sealed_games::chess::Color;
use sealed_games::tempete::Board;
use sealed_games::tempete::act::{Act, CardRef, Claim};
use sealed_games::tempete::physical::Edit;
use sealed_games::tempete::rules::Tempete;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, EnvRef, Name, Seat};
use sealed_protocol::rules::{ActCtx, OpenedSlot, Rules};

fn physical() -> Tempete {
    let options = [(Name::new("deck").unwrap(), "physical".to_owned())];
    Tempete::from_options(&options).expect("valid")
}

/// Judges `act` by `who` on `state`, with slot 0 of the card `card` opened.
fn judge(
    rules: &Tempete,
    state: &sealed_games::tempete::State,
    who: Seat,
    act: &Act,
    card: u32,
) -> Result<sealed_games::tempete::State, String> {
    let coin = Hash([7; 32]);
    let opened = [OpenedSlot {
        deck: sealed_games::tempete::rules::deck_name(),
        slot: 0,
        card,
    }];
    let ctx = ActCtx {
        at: EnvRef {
            chain: ChainId::public(who),
            seq: 0,
        },
        clock: 0,
        coin: &coin,
        opened_slots: &opened,
        opened_values: &[],
        opened_setups: &[],
        committed_values: &[],
        draws: &[],
        shown_slots: &[],
        held_slots: &[],
    };
    rules
        .apply(state, who, act, &ctx)
        .map(|a| a.state)
        .map_err(|v| v.0)
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0u8..70, 0u8..70, proptest::option::of(0u8..7)).prop_map(|(from, to, promotion)| {
            Edit::Move {
                from,
                to,
                promotion,
            }
        }),
        (0u8..70).prop_map(|square| Edit::Remove { square }),
        (0u8..70, any::<bool>(), 0u8..7).prop_map(|(square, black, kind)| Edit::Place {
            square,
            black,
            kind
        }),
        (0u8..70, 0u8..70).prop_map(|(a, b)| Edit::Exchange { a, b }),
        Just(Edit::ExtraMove),
        Just(Edit::SkipTurn),
        Just(Edit::ShowHand),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_bytes_as_a_physical_act_are_judged_without_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..300),
        card in 1u32..80,
        who in 0u8..2,
    ) {
        let rules = physical();
        let start = rules.start(&Hash([1; 32]));
        if let Ok(act) = rules.decode_act(&bytes) {
            let _ = judge(&rules, &start, Seat(who), &act, card);
        }
    }

    #[test]
    fn any_stated_edits_keep_a_board_every_rule_can_read(
        turns in proptest::collection::vec(proptest::collection::vec(edit(), 0..6), 1..12),
    ) {
        let rules = physical();
        let mut state = rules.start(&Hash([1; 32]));
        let mut board = Board::default();
        for edits in turns {
            let side = board.turn();
            if let Ok(c) = board.claim(side, &edits) {
                board = c.board;
                // What later rules read of the board must hold: one king a side, and
                // the legal moves computable.
                for color in [Color::White, Color::Black] {
                    prop_assert_eq!(board.position().kings(color).count(), 1);
                }
                let _ = board.legal_plays(None);
                let _ = board.is_mated(board.turn());
            }
            let _ = board.correct(&edits);
            // The same edits as a claim in a game: judged, never a panic.
            let who = sealed_games::tempete::state::seat(state.to_act);
            let act = Act::Claim(Claim {
                card: Some(CardRef::Slot(0)),
                edits: edits.clone(),
                ..Claim::default()
            });
            if let Ok(next) = judge(&rules, &state, who, &act, 37) {
                state = next;
            }
        }
    }
}
