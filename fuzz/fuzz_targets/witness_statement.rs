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
    Chains, Head, Held, Ledger, SignedStatement, Stamp, Statement, contradiction,
};

/// Two chains of four envelopes each, hashes `[seat * 16 + seq + 1; 32]`; envelope `q`
/// of seat 1 has seen the first `q + 1` of seat 0.
struct File;

impl Chains for File {
    fn hash_at(&self, chain: ChainId, seq: u64) -> Option<Hash> {
        (chain.seat.0 < 2 && chain.log.is_public() && seq < 4)
            .then(|| Hash([chain.seat.0 * 16 + seq as u8 + 1; 32]))
    }

    fn past(&self, chain: ChainId, seq: u64) -> Option<Vec<(ChainId, u64)>> {
        self.hash_at(chain, seq)?;
        let (c0, c1) = (ChainId::public(Seat(0)), ChainId::public(Seat(1)));
        Some(if chain == c1 {
            vec![(c0, seq + 1), (c1, seq + 1)]
        } else {
            vec![(c0, seq + 1), (c1, 0)]
        })
    }
}

/// The envelope at `seq` of seat `seat`'s public chain in [`File`].
fn h(seat: u8, seq: u64) -> Hash {
    Hash([seat * 16 + seq as u8 + 1; 32])
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
    let _ = SignedStatement::from_bytes(data, game, &witness, 2);
    // The bytes as statements the witness signed (their signatures are not what is
    // tested here): after 5 header bytes (the accuser's knowledge, its starts, the
    // allowance), records of 8 bytes — kind, two counts, the first dated seq of each
    // chain, a time (2 bytes), a spread between the times of one chain.
    let Some((head, rest)) = data.split_first_chunk::<5>() else {
        return;
    };
    let statements: Vec<Statement> = rest
        .chunks_exact(8)
        .map(|r| {
            let at = u64::from(u16::from_le_bytes([r[5], r[6]]));
            if r[0] % 5 == 0 {
                return Statement::Stamp(Stamp {
                    game,
                    deposit: Hash([r[1] % 3; 32]),
                    at,
                });
            }
            Statement::Ledger(Ledger {
                game,
                at,
                chains: heads([r[1], r[2]])
                    .into_iter()
                    .zip([r[3], r[4]])
                    .map(|(x, first)| {
                        let first = u64::from(first % 5).min(x.count);
                        // Now and then a head that is not the file's.
                        let head = if r[0] % 7 == 0 && x.count > 0 {
                            Hash([r[0]; 32])
                        } else {
                            x.head
                        };
                        Held {
                            chain: x.chain,
                            count: x.count,
                            head,
                            first,
                            times: (first..x.count)
                                .map(|q| at.saturating_sub(u64::from(r[7]) * (x.count - q)))
                                .collect(),
                        }
                    })
                    .collect(),
            })
        })
        .collect();
    let known = heads([head[0], head[1]]);
    let starts = heads([head[0], head[2]]);
    let allowance = u64::from(head[3]) * 100 + u64::from(head[4]);
    let _ = contradiction(&statements, &File);
    if let Ok(l) = late(&statements, &starts, &known, Seat(1), allowance, &File) {
        // A proof found is one by the rule's own terms.
        assert!(l.ledger > l.deadline && l.deadline >= l.since);
        assert!(contradiction(&statements, &File).is_none());
    }
});
