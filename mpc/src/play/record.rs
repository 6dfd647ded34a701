//! What a game's transcript keeps of the computations, and the audit over it.
//!
//! A transcript cannot hold the messages themselves (about 250 MB for 100 plies), and
//! need not: every message is a function of the two seeds, the two back ranks and the
//! attempts, all opened at the end. So the sender signs only each message's hash before
//! the receiver may use it (spec/GAMES.md §5.15), and the audit makes every message
//! again and compares hashes. The first that differs is a message its sender signed and
//! the protocol does not make: his fault, proven.
//!
//! The mover commits to each attempt before its computation, with a salt from his seed's
//! stream; opening the seed opens the salt, and the attempt is then the one item of the
//! 65,536 whose commitment matches, found by trying each. No act at the end is needed to
//! open the attempts: the seed's opening is owed like any reveal.

use sha2_010::{Digest as _, Sha256};

use super::Party;
use super::audit::{Finding, Opened, audit_by};
use super::game::{Circuits, PlayError};
use crate::gc::seed::{Seed, Stream};

/// A SHA-256 hash.
pub type Digest = [u8; 32];

/// The domain of a message's hash.
const STEP: &[u8] = b"sealed/v2/stallmate/step";
/// The domain of an attempt's commitment.
const ATTEMPT: &[u8] = b"sealed/v2/stallmate/attempt";

/// The hash of the message at position `index` of game `game`'s computations (the base
/// OTs' two, then four a computation): `SHA-256(STEP ‖ game ‖ index as 8 bytes LE ‖
/// bytes)`. The game and position are inside, so a hash signed for one message stands
/// for no other.
pub fn step_hash(game: &Digest, index: u64, bytes: &[u8]) -> Digest {
    let mut h = Sha256::new();
    h.update(STEP);
    h.update(game);
    h.update(index.to_le_bytes());
    h.update(bytes);
    h.finalize().into()
}

/// Who sends the message at `index`: Black (the evaluator) the even ones, White the odd
/// ones — E0, G0, then E1, G1, E2, G2 of each computation.
pub fn sender(index: u64) -> Party {
    if index.is_multiple_of(2) {
        Party::Evaluator
    } else {
        Party::Garbler
    }
}

/// The hasher with everything of an attempt's commitment but the item.
fn committing(seed: &Seed, game: &Digest, run: u64) -> Sha256 {
    let salt = Stream::new(seed).salt(run).to_le_bytes();
    let mut h = Sha256::new();
    h.update(ATTEMPT);
    h.update(game);
    h.update(run.to_le_bytes());
    h.update(salt);
    h
}

/// The commitment to the attempt `item` in run `run` under the mover's seed:
/// `SHA-256(ATTEMPT ‖ game ‖ run as 8 bytes LE ‖ salt ‖ item as 2 bytes LE)`, the salt
/// the 16 bytes (LE) of the seed stream's block `3·2¹²⁶ + run`.
pub fn commitment(seed: &Seed, game: &Digest, run: u64, item: u16) -> Digest {
    let mut h = committing(seed, game, run);
    h.update(item.to_le_bytes());
    h.finalize().into()
}

/// The attempt a commitment stands for, the seed opened: the least item whose
/// commitment it is, or none (the mover committed to nothing he can open).
pub fn open(seed: &Seed, game: &Digest, run: u64, commitment: &Digest) -> Option<u16> {
    let prefix = committing(seed, game, run);
    (0..=u16::MAX).find(|item| {
        let mut h = prefix.clone();
        h.update(item.to_le_bytes());
        h.finalize().as_slice() == commitment
    })
}

/// The audit over the hashes posted, in order, one per message: every message made
/// again from the openings, hashed, and compared.
pub fn audit_posted(
    opened: &Opened,
    circuits: &Circuits,
    game: &Digest,
    posted: &[Digest],
) -> Result<Finding, PlayError> {
    audit_by(opened, circuits, posted.len(), |at, want| {
        step_hash(game, at as u64, &want.bytes) == posted[at]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commitment_opens_to_its_item_only_under_its_seed_game_and_run() {
        let game = [7; 32];
        for item in [0u16, 1, 0x0c1c, 0x7000, u16::MAX] {
            let c = commitment(&[1; 32], &game, 3, item);
            assert_eq!(open(&[1; 32], &game, 3, &c), Some(item));
            assert_eq!(open(&[2; 32], &game, 3, &c), None, "another seed");
            assert_eq!(open(&[1; 32], &game, 4, &c), None, "another run");
            assert_eq!(open(&[1; 32], &[8; 32], 3, &c), None, "another game");
        }
    }

    #[test]
    fn a_step_hash_binds_game_position_and_bytes() {
        let h = step_hash(&[1; 32], 5, b"abc");
        assert_ne!(h, step_hash(&[2; 32], 5, b"abc"));
        assert_ne!(h, step_hash(&[1; 32], 6, b"abc"));
        assert_ne!(h, step_hash(&[1; 32], 5, b"abd"));
        assert_eq!(sender(0), Party::Evaluator);
        assert_eq!(sender(5), Party::Garbler);
    }
}
