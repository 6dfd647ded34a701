//! A witness's signed statements, as a hostile witness or accuser could send them:
//! decoding under the game's id and key, then the contradiction check and the lateness
//! proof over whatever decoded (spec/PROTOCOL.md §17). The input is split into
//! statements at every `0xff` byte, so one run can hold several.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, GameId, Seat};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::lateness::late;
use sealed_protocol::witness::{Chains, Head, SignedStatement};

/// Two chains of four envelopes each, hashes `[seat * 16 + seq; 32]`.
struct File;

impl Chains for File {
    fn place(&self, envelope: &Hash) -> Option<(ChainId, u64)> {
        let b = envelope.0[0];
        (envelope.0.iter().all(|x| *x == b) && b % 16 < 4 && b / 16 < 2)
            .then(|| (ChainId::public(Seat(b / 16)), u64::from(b % 16)))
    }

    fn hash_at(&self, chain: ChainId, seq: u64) -> Option<Hash> {
        (chain.seat.0 < 2 && seq < 4).then(|| Hash([chain.seat.0 * 16 + seq as u8; 32]))
    }
}

fuzz_target!(|data: &[u8]| {
    let game = GameId(Hash([7; 32]));
    let witness = SecretKey::from_seed(&[0x57; 32]).public();
    let statements: Vec<_> = data
        .split(|b| *b == 0xff)
        .filter_map(|part| SignedStatement::from_bytes(part, game, &witness).ok())
        .map(|s| s.statement)
        .collect();
    let known: Vec<Head> = (0..2u8)
        .map(|s| Head {
            chain: ChainId::public(Seat(s)),
            count: 2,
            head: Hash([s * 16 + 1; 32]),
        })
        .collect();
    let _ = late(&statements, &known, &known, Seat(1), 10_000, &File);
});
