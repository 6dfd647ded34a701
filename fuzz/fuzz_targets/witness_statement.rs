//! A witness's statements, as a hostile witness or accuser could make them
//! (spec/PROTOCOL.md §17): the bytes decoded as one signed statement under the game's
//! id and key; and the bytes read as statements about a small file of two chains, put
//! through the contradiction check and the lateness proof.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, GameId, Seat};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::lateness::late;
use sealed_protocol::witness::{
    Chains, Head, Receipt, SignedStatement, Statement, View, contradiction,
};

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

/// The envelope at `seq` of seat `seat`'s public chain in [`File`].
fn h(seat: u8, seq: u64) -> Hash {
    Hash([seat * 16 + seq as u8; 32])
}

/// The heads of the first `counts` envelopes of each chain.
fn heads(counts: [u8; 2]) -> Vec<Head> {
    (0..2u8)
        .map(|s| {
            let count = u64::from(counts[usize::from(s)] % 5);
            Head {
                chain: ChainId::public(Seat(s)),
                count,
                head: count.checked_sub(1).map_or(Hash::ZERO, |q| h(s, q)),
            }
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let game = GameId(Hash([7; 32]));
    let witness = SecretKey::from_seed(&[0x57; 32]).public();
    // The bytes as one signed statement from a stranger: refused or read, never a panic.
    let _ = SignedStatement::from_bytes(data, game, &witness);
    // The bytes as statements the witness signed (their signatures are not what is
    // tested here): after 5 header bytes (the accuser's knowledge, its starts, the
    // allowance), records of 6 bytes — kind, seat, seq or count, count, time (2 bytes).
    let Some((head, rest)) = data.split_first_chunk::<5>() else {
        return;
    };
    let statements: Vec<Statement> = rest
        .chunks_exact(6)
        .map(|r| {
            let at = u64::from(u16::from_le_bytes([r[4], r[5]]));
            if r[0] % 2 == 0 {
                Statement::Receipt(Receipt {
                    game,
                    envelope: h(r[1] % 3, u64::from(r[2] % 5)),
                    at,
                })
            } else {
                Statement::View(View {
                    game,
                    at,
                    heads: heads([r[2], r[3]])
                        .into_iter()
                        .map(|mut x| {
                            // Now and then a head that is not the file's.
                            if r[1] % 7 == 0 {
                                x.head = Hash([r[1]; 32]);
                            }
                            x
                        })
                        .collect(),
                })
            }
        })
        .collect();
    let known = heads([head[0], head[1]]);
    let starts = heads([head[0], head[2]]);
    let allowance = u64::from(head[3]) * 100 + u64::from(head[4]);
    if let Ok(l) = late(&statements, &starts, &known, Seat(1), allowance, &File) {
        // A proof found is one by the rule's own terms.
        assert!(l.view > l.deadline && l.deadline >= l.since);
        assert!(contradiction(&statements, &File).is_none());
    }
});
