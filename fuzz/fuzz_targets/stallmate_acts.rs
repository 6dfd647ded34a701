//! Secret Stallmate's act bytes: decoded as a public act, and judged as a private act
//! in a log the first byte picks, by a seat it picks, after an earlier act made of the
//! first half of the rest.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sealed_games::stallmate::Options;
use sealed_games::stallmate::peer::Stallmate;
use sealed_protocol::hidden::Posted;
use sealed_protocol::ids::{ChainId, EnvRef, LogId, Seat};
use sealed_protocol::rules::Rules;

fuzz_target!(|data: &[u8]| {
    let rules = Stallmate::new(Options::default());
    let _ = rules.decode_act(data);
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let log = LogId(u32::from(head % 8));
    let seat = Seat((head >> 6) % 3);
    let (before, act) = rest.split_at(rest.len() / 2);
    let earlier = [Posted {
        at: EnvRef {
            chain: ChainId { log, seat: Seat(2) },
            seq: 0,
        },
        seat: Seat(2),
        clock: 0,
        bytes: before.to_vec(),
    }];
    let _ = rules.private_act(log, seat, act, &earlier);
    let _ = rules.private_act(log, seat, act, &[]);
});
