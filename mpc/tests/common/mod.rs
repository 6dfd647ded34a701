//! What several of the crate's tests share: a small deterministic generator, and an
//! attempt written as the circuit's item. Each test binary uses part of it.
#![allow(dead_code)]

/// An attempt as the circuit's item (mpc/src/inputs.rs): the game's own translation,
/// which `stallmate-duo` commits to.
#[allow(unused_imports)] // not every test binary uses it
pub use sealed_games::stallmate::duo::item::{from_item, to_item as attempt_item};

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

/// The referee's answers in the circuit's fields.
pub mod answers;
