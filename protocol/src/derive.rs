//! Joint randomness: the coin every game starts with, named streams drawn from it, and
//! private seeded setups.

use crate::hash::{Framed, Hash, tag};
use crate::ids::{GameId, Name, Seat};
use crate::random::Stream;

/// The joint coin: `H("sealed/v1/coin", game id, seed of player 0, seed of player 1, …)`.
///
/// Each player committed to its seed before seeing anyone else's, and revealed it only
/// after acknowledging every other commitment, so no one player controls the value.
/// The last to reveal does see it first and may walk away; two-party coin tossing cannot
/// prevent that, so the game counts as started at acceptance and that is a claim.
pub fn coin(game: GameId, seeds: &[[u8; 32]]) -> Hash {
    let mut h = Framed::new(tag::COIN).field(game.0.as_bytes());
    for s in seeds {
        h = h.field(s);
    }
    h.finish()
}

/// A named random stream drawn from the coin: key `H("sealed/v1/stream", coin, label)`.
pub fn stream(coin: &Hash, label: &str) -> Stream {
    Stream::new(
        &Framed::new(tag::STREAM)
            .field(coin.as_bytes())
            .field(label.as_bytes())
            .finish(),
    )
}

/// A private seeded setup: `H("sealed/v1/setup", game id, owner, name, owner's seed,
/// contribution)`, where the contribution is the opponent's coin seed (fixed before the
/// owner's commitment was seen, revealed after it was acknowledged). The owner cannot
/// choose the result and the opponent cannot see it.
pub fn setup(
    game: GameId,
    owner: Seat,
    name: &Name,
    owner_seed: &[u8; 32],
    contribution: &[u8; 32],
) -> Hash {
    Framed::new(tag::SETUP)
        .field(game.0.as_bytes())
        .field(&[owner.0])
        .field(name.as_str().as_bytes())
        .field(owner_seed)
        .field(contribution)
        .finish()
}

/// The key of a dealer's index stream for an owner's deck:
/// `H("sealed/v1/deal", game id, dealer, owner, deck name, dealer's seed)`.
pub fn deal_key(game: GameId, dealer: Seat, owner: Seat, deck: &Name, seed: &[u8; 32]) -> Hash {
    Framed::new(tag::DEAL)
        .field(game.0.as_bytes())
        .field(&[dealer.0])
        .field(&[owner.0])
        .field(deck.as_str().as_bytes())
        .field(seed)
        .finish()
}

/// One step down a draw chain: `v(i−1) = H("sealed/v1/draw-chain", game id, owner,
/// pool, i as u32 LE, v(i))`. The owner keeps `v(n)` secret, publishes the head `v(0)`
/// at the start, and opens `v(1)`, `v(2)`, … one per draw: each is fixed by the head
/// (nobody can find another value that hashes to it) and unpredictable until opened.
pub fn draw_chain_step(
    game: GameId,
    owner: Seat,
    pool: &Name,
    index: u32,
    value: &[u8; 32],
) -> Hash {
    Framed::new(tag::DRAW_CHAIN)
        .field(game.0.as_bytes())
        .field(&[owner.0])
        .field(pool.as_str().as_bytes())
        .field(&index.to_le_bytes())
        .field(value)
        .finish()
}

/// The chain value `v(i)` for `i` in `0..=n`, from the secret last value `v(n)`.
pub fn draw_chain_value(
    game: GameId,
    owner: Seat,
    pool: &Name,
    n: u32,
    last: &[u8; 32],
    i: u32,
) -> [u8; 32] {
    let mut v = *last;
    for step in (i + 1..=n).rev() {
        v = draw_chain_step(game, owner, pool, step, &v).0;
    }
    v
}

/// The pick of draw `index` from `owner`'s pool: `H("sealed/v1/draw", game id, owner,
/// pool, index as u32 LE, the owner's chain value, the contributor's value)`. The game
/// keys a [`Stream`] with it to choose among the pool's remaining items.
pub fn draw_pick(
    game: GameId,
    owner: Seat,
    pool: &Name,
    index: u32,
    value: &[u8; 32],
    contribution: &[u8; 32],
) -> Hash {
    Framed::new(tag::DRAW)
        .field(game.0.as_bytes())
        .field(&[owner.0])
        .field(pool.as_str().as_bytes())
        .field(&index.to_le_bytes())
        .field(value)
        .field(contribution)
        .finish()
}

/// The dealer's side of a blind deal: its seed's permutation of the slots, walked in
/// order, skipping slots that are already out (dealt earlier, or handed to the owner
/// another way as far as the dealer had acknowledged).
#[derive(Clone, Debug)]
pub struct DealStream {
    order: Vec<u32>,
    cursor: usize,
}

impl DealStream {
    /// The stream for a deck of `slots` slots.
    pub fn new(key: &Hash, slots: u32) -> Self {
        DealStream {
            order: Stream::new(key).permutation(slots),
            cursor: 0,
        }
    }

    /// The next `count` slots, skipping any for which `out` is true. Returns fewer when
    /// the deck runs out.
    pub fn next(&mut self, count: usize, mut out: impl FnMut(u32) -> bool) -> Vec<u32> {
        let mut got = Vec::with_capacity(count);
        while got.len() < count && self.cursor < self.order.len() {
            let s = self.order[self.cursor];
            self.cursor += 1;
            if !out(s) {
                got.push(s);
            }
        }
        got
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_draw_chain_opens_down_to_its_head() {
        let g = GameId(Hash([4; 32]));
        let pool = Name::new("stack").unwrap();
        let last = [9; 32];
        let head = draw_chain_value(g, Seat(0), &pool, 16, &last, 0);
        let mut prev = head;
        for i in 1..=16 {
            let v = draw_chain_value(g, Seat(0), &pool, 16, &last, i);
            assert_eq!(
                draw_chain_step(g, Seat(0), &pool, i, &v).0,
                prev,
                "step {i}"
            );
            prev = v;
        }
        assert_eq!(prev, last);
        // Bound to the seat: another owner's chain from the same secret differs.
        assert_ne!(draw_chain_value(g, Seat(1), &pool, 16, &last, 0), head);
    }

    #[test]
    fn coin_depends_on_every_seed_and_order() {
        let g = GameId(Hash([1; 32]));
        let a = coin(g, &[[1; 32], [2; 32]]);
        assert_ne!(a, coin(g, &[[2; 32], [1; 32]]));
        assert_ne!(a, coin(g, &[[1; 32], [3; 32]]));
        assert_ne!(a, coin(GameId(Hash([2; 32])), &[[1; 32], [2; 32]]));
    }

    proptest::proptest! {
        #[test]
        fn a_whole_deal_is_a_permutation_of_what_is_not_excluded(
            key in proptest::prelude::any::<[u8; 32]>(),
            n in 1u32..200,
            chunks in proptest::collection::vec(1usize..9, 1..40),
            excluded in proptest::collection::btree_set(0u32..200, 0..10),
        ) {
            let mut d = DealStream::new(&Hash(key), n);
            let mut all = vec![];
            for c in chunks {
                all.extend(d.next(c, |s| excluded.contains(&s)));
            }
            all.extend(d.next(n as usize, |s| excluded.contains(&s)));
            all.sort_unstable();
            let want: Vec<u32> = (0..n).filter(|s| !excluded.contains(s)).collect();
            proptest::prop_assert_eq!(all, want);
        }
    }

    #[test]
    fn deal_stream_never_repeats_and_skips_out_slots() {
        let mut d = DealStream::new(&Hash([3; 32]), 10);
        let first = d.next(3, |_| false);
        let rest = d.next(10, |s| s == 0);
        let mut all: Vec<u32> = first.iter().chain(&rest).copied().collect();
        assert_eq!(all.len(), if first.contains(&0) { 10 } else { 9 });
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), first.len() + rest.len());
    }
}
