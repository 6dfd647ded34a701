//! A core driven with any sequence of inputs a stranger, a seat or the network could
//! make (`sealed_drive`): proposals of every variant, chained and equivocating
//! envelopes, heads of any size, introductions of any address, connections, failed
//! writes, restarts. Every input is followed by the driver's checks: nothing dialled at
//! an address an introduction may not give, every quota held in memory and in the
//! store, at most two envelopes at a position, writes waiting bounded. The fuzz target
//! `core_sync` (fuzz/) runs the same driver on libFuzzer's inputs; more cases here with
//! `SEALED_DRIVE_CASES=5000 cargo test --release -p sealed-drive --test drive`.

use proptest::prelude::*;
use sealed_protocol::random::Stream;

fn cases() -> u32 {
    std::env::var("SEALED_DRIVE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn any_inputs_keep_every_bound(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        sealed_drive::run(&bytes);
    }
}

/// Long runs from seeded bytes, as a mailbox, a referee and a player each: the bounds
/// are reached (requests refused), and held.
#[test]
fn long_runs_reach_the_quotas_and_hold_them() {
    let mut refused = 0;
    let mut taken = 0;
    for (flags, seed) in [(1u8, 1u64), (2, 2), (0, 3), (1 | 4, 4), (8, 5)] {
        let mut s = Stream::new(&sealed_protocol::hash::Hash([seed as u8; 32]));
        let mut bytes = vec![flags];
        bytes.extend((0..60_000).map(|_| s.next_u32() as u8));
        let r = sealed_drive::run(&bytes);
        eprintln!("flags {flags:05b}: {r:?}");
        refused += r.refused;
        taken += r.taken;
    }
    assert!(taken > 0 && refused > 0, "taken {taken}, refused {refused}");
}
