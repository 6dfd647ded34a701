//! How much of a game's public chains a mailbox or witness keeps, and how a witness cuts
//! its answer about them into ledgers (spec/PROTOCOL.md §16.4, §17.6): one value, so that
//! the bound that keeps every answer readable is checked where it is made.
//!
//! A witness's answer dates every place it holds, a ledger's worth at a time; a seat reads
//! an answer of at most [`READ_LEDGERS`] statements (`accuse.rs`). If a witness kept places
//! without bound, a player who signs idle envelopes without end would make its answers
//! longer than any seat reads, and a game he has lost on time would never be proven so
//! (issue 53). Each seat has an equal share of the places, so that what one seat signs
//! fills its own share only and the other seats' envelopes are still taken and dated.
//!
//! The reference node keeps [`Places::REFERENCE`]; the simulation keeps fewer, with
//! fewer times a ledger, so that a cheater fills a share in seconds (the rule is the same
//! at any size, and [`Places::new`] refuses any pair whose answer a seat would not read).

use sealed_protocol::witness::MAX_STATEMENT;

/// Most statements of a witness's answer a seat reads (`accuse.rs`): an honest witness's
/// answer is whole within it.
pub const READ_LEDGERS: usize = 64;

/// Most times one ledger holds: about 6 bytes each, well inside a statement's cap.
const MOST_TIMES_PER_LEDGER: usize = (MAX_STATEMENT - 2048) / 8;

/// Places of a game's public chains kept, and times a ledger.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Places {
    held: u64,
    times_per_ledger: usize,
}

impl Places {
    /// The reference node's: 196,608 places of a game, 3,840 times a ledger, so an answer
    /// is at most 52 ledgers. An honest game of thousands of moves uses a few per cent.
    pub const REFERENCE: Places = Places {
        held: 196_608,
        times_per_ledger: MOST_TIMES_PER_LEDGER,
    };

    /// `held` places a game, `times_per_ledger` times a ledger; `None` if a ledger would
    /// not fit a statement, or a whole answer would hold more than a seat reads.
    pub const fn new(held: u64, times_per_ledger: usize) -> Option<Places> {
        if times_per_ledger == 0 || times_per_ledger > MOST_TIMES_PER_LEDGER {
            return None;
        }
        let p = Places {
            held,
            times_per_ledger,
        };
        if p.answer_ledgers() > READ_LEDGERS {
            return None;
        }
        Some(p)
    }

    /// A seat's share in a game of `seats` seats: past it, only that seat's new
    /// envelopes are refused.
    pub const fn seat_share(&self, seats: usize) -> u64 {
        let seats = if seats == 0 { 1 } else { seats as u64 };
        self.held / seats
    }

    /// Times in one ledger of an answer.
    pub const fn times_per_ledger(&self) -> usize {
        self.times_per_ledger
    }

    /// The most ledgers an answer holds: every place held, a ledger's times at a time
    /// (one ledger when none is).
    pub const fn answer_ledgers(&self) -> usize {
        let n = (self.held as usize).div_ceil(self.times_per_ledger);
        if n == 0 { 1 } else { n }
    }
}

impl Default for Places {
    fn default() -> Self {
        Places::REFERENCE
    }
}

const _: () = assert!(
    Places::REFERENCE.answer_ledgers() == 52 && Places::REFERENCE.answer_ledgers() <= READ_LEDGERS,
    "the reference witness's answer is the 52 ledgers spec/PROTOCOL.md §16.4 says, all read"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_whose_answer_a_seat_would_not_read_is_refused() {
        assert_eq!(
            Places::new(64 * 20, 20).map(|p| p.answer_ledgers()),
            Some(64)
        );
        assert_eq!(Places::new(64 * 20 + 1, 20), None);
        assert_eq!(Places::new(100, 0), None);
        assert_eq!(Places::new(100, MOST_TIMES_PER_LEDGER + 1), None);
        assert_eq!(Places::new(0, 1).map(|p| p.answer_ledgers()), Some(1));
    }

    #[test]
    fn each_seat_has_an_equal_share() {
        assert_eq!(Places::REFERENCE.seat_share(2), 98_304);
        assert_eq!(Places::REFERENCE.seat_share(3), 65_536);
        assert_eq!(Places::REFERENCE.seat_share(0), 196_608);
    }
}
