//! What several of the crate's tests share: a small deterministic generator, and an
//! attempt written as the circuit's item. Each test binary uses part of it.
#![allow(dead_code)]

use sealed_games::chess::Kind;
use sealed_games::stallmate::Attempt;
use sealed_mpc::inputs::{ANY, item};

/// A promotion as an item names it: the kind's code (the chess crate's index), a pawn 6
/// (never legal, but judged as the referee judges it, not read as no promotion).
pub fn promotion_code(k: Kind) -> u8 {
    if k == Kind::Pawn { 6 } else { k.idx() as u8 }
}

/// An attempt as the circuit's item (mpc/src/inputs.rs).
pub fn attempt_item(a: &Attempt) -> u16 {
    match a {
        Attempt::Any => ANY,
        Attempt::Move {
            from,
            to,
            promotion,
        } => item(
            from.index(),
            to.index(),
            promotion.map_or(0, promotion_code),
        ),
    }
}

/// Xorshift64: the same games and inputs on every run.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub fn bytes<const N: usize>(&mut self) -> [u8; N] {
        std::array::from_fn(|_| self.next() as u8)
    }
}

/// `n` bits from a seed (not 0).
pub fn bits(n: usize, s: u64) -> Vec<bool> {
    let mut r = Rng(s);
    (0..n).map(|_| r.next() & 1 == 1).collect()
}
