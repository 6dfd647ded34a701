//! Tempête's physical deck (spec/GAMES.md §4.20): any bytes decoded as an act and judged
//! at the start of a game by the seat the first byte picks, with one slot opened to the
//! card the second byte names; and any bytes read as a claim's typed words.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sealed_games::tempete::rules::{Tempete, deck_name};
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, EnvRef, Name, Seat};
use sealed_protocol::rules::{ActCtx, OpenedSlot, Rules};

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let Some((&card, act)) = rest.split_first() else {
        return;
    };
    let options = [(Name::new("deck").expect("valid"), "physical".to_owned())];
    let rules = Tempete::from_options(&options).expect("valid");
    if let Ok(text) = std::str::from_utf8(act) {
        let pos = sealed_games::chess::Position::startpos();
        let _ = sealed_games::tempete::physical::notation::read(&pos, text);
    }
    let Ok(act) = rules.decode_act(act) else {
        return;
    };
    let who = Seat(head % 2);
    let coin = Hash([3; 32]);
    let opened = [OpenedSlot {
        deck: deck_name(),
        slot: 0,
        card: u32::from(card),
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
    let start = rules.start(&coin);
    let _ = rules.apply(&start, who, &act, &ctx);
});
