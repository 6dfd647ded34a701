//! This seat's dealings with its game's witness, in memory only (a restart asks again:
//! the witness repeats what it said), kept while the game is unloaded or set aside: when
//! it last asked for ledgers and the wait they show ([`WitnessTimes`]), the first answer
//! past another seat's deadline ([`PastDeadline`]), the deposits and stamps of its
//! private logs ([`Asking`]) and a computation's message lacked ([`Lacked`]). What an
//! answer means for the game is read in `slot/mod.rs` (`Slot::take_witness_answer`); when
//! to ask and what to post is the core's: `accuse.rs`, `stamps.rs`, `lacked.rs`.

use std::collections::BTreeMap;

use sealed_protocol::engine::WitnessWait;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::Seat;
use sealed_protocol::keys::PublicKey;
use sealed_protocol::witness::{Ledger, SignedStatement, Statement};

use super::states::Played;

/// How often a seat asks the witness while its clock by the witness is stale (a move
/// was made since its last answer): often enough that the clock shown catches up
/// within seconds, seldom enough for a witness that does not answer.
pub(crate) const ASK_STALE_MS: u64 = 5_000;

/// How often a seat whose opponent owes a step asks the witness even when the
/// opponent's own clock readings say he is on time.
pub(crate) const ASK_EVERY_MS: u64 = 10 * 60 * 1000;

/// This seat's dealings with its game's witness, in memory only (a restart asks again:
/// the witness repeats what it said). Kept while the game is unloaded or set aside.
#[derive(Default)]
pub(crate) struct WithWitness {
    /// This seat's asks of the witness for its ledgers, and whether they are answered
    /// (`accuse.rs`).
    pub(super) asked: Asked,
    /// The moment of the latest ledger in an answer that counted as one (`slot/mod.rs`
    /// `Slot::witness_replied`): an answer no later than it is no sign of life.
    pub(super) answered_at: Option<u64>,
    /// How many envelopes of each public chain this seat gave the witness after its
    /// last answer, all it lacked then (`accuse.rs` `give_witness_what_it_lacks`): a
    /// later answer that still lacks them is no sign of a witness at work.
    pub(super) given: Vec<(sealed_protocol::ids::ChainId, u64)>,
    /// The wait in progress by the witness's last answer (`accuse.rs`).
    pub(super) times: Option<WitnessTimes>,
    /// The first answer signed past the deadline of the wait in progress (`accuse.rs`).
    pub(super) past_deadline: Option<PastDeadline>,
    /// Deposits and stamps of this seat's private logs (`stamps.rs`).
    pub(super) stamps: Option<Asking>,
    /// A computation's message lacked, left with the witness or fetched (`lacked.rs`).
    pub(super) lacked: Option<Lacked>,
    /// Why the witness refused this seat's last push of the game, until it takes one
    /// (`sync.rs`): what it refused it has not dated, so `show` and `games` say it.
    pub(super) refused: Option<String>,
}

/// Where this seat's asks of the witness for its ledgers stand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Asked {
    /// Never asked since the game came into memory.
    #[default]
    Never,
    /// Last asked at `last`, and the witness answered since.
    Answered {
        /// When.
        last: u64,
    },
    /// Last asked at `last`, and the witness has answered none of the asks since `since`.
    Unanswered {
        /// When it was last asked.
        last: u64,
        /// The first ask it left unanswered.
        since: u64,
    },
}

impl Asked {
    /// When it was last asked (0 if never).
    pub(crate) fn last(self) -> u64 {
        match self {
            Asked::Never => 0,
            Asked::Answered { last } | Asked::Unanswered { last, .. } => last,
        }
    }

    /// Asked again at `now`: unanswered since the first ask it has not answered.
    pub(crate) fn ask(self, now: u64) -> Asked {
        let since = match self {
            Asked::Unanswered { since, .. } => since,
            Asked::Never | Asked::Answered { .. } => now,
        };
        Asked::Unanswered { last: now, since }
    }

    /// The witness answered.
    pub(crate) fn answered(self) -> Asked {
        match self {
            Asked::Never => Asked::Never,
            Asked::Answered { last } | Asked::Unanswered { last, .. } => Asked::Answered { last },
        }
    }

    /// Since when the witness has left this seat's asks unanswered, if it has.
    pub(crate) fn unanswered_since(self) -> Option<u64> {
        match self {
            Asked::Unanswered { since, .. } => Some(since),
            Asked::Never | Asked::Answered { .. } => None,
        }
    }
}

/// The wait in progress by a witness's answer, and the state it was counted in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WitnessTimes {
    /// Envelopes processed when it was counted: stale once more are.
    pub(crate) held: u64,
    /// The seat to act then.
    pub(crate) seat: Seat,
    /// Its wait by the witness's times.
    pub(crate) wait: WitnessWait,
}

impl WitnessTimes {
    /// When the wait started, by the witness's clock.
    pub(crate) fn since(&self) -> u64 {
        self.wait.since
    }

    /// When it runs out, by the witness's clock.
    pub(crate) fn deadline(&self) -> u64 {
        self.wait.deadline()
    }
}

/// The first answer of the witness signed after the deadline of another seat's wait,
/// kept for that wait (one per game, in memory: at most [`READ_LEDGERS`](crate::places::READ_LEDGERS) statements).
#[derive(Clone, Debug)]
pub(crate) struct PastDeadline {
    /// The seat waited for.
    pub(crate) seat: Seat,
    /// When its wait started, by the witness's times: another start is another wait.
    pub(crate) since: u64,
    /// The answer, as signed bytes.
    pub(crate) statements: Vec<Vec<u8>>,
}

/// A seat's dealings with one game's witness over its private logs, in memory only (a
/// restart asks again: the witness repeats its times).
#[derive(Clone, Debug, Default)]
pub(crate) struct Asking {
    /// Each deposit left and not yet stamped, with when it was first and last left.
    pub(crate) pending: BTreeMap<Hash, (u64, u64)>,
    /// When a ledger was last asked for, while a public act has no time.
    pub(crate) ledger_asked: Option<u64>,
    /// The number of the next deposit to fetch, and when the last fetch went.
    pub(crate) fetched: (u64, u64),
    /// Since when this seat has wanted a time the witness has not given (a stamp, or a
    /// ledger dating a public act), if it does.
    pub(crate) wanting: Option<u64>,
}

/// A seat's dealings with the witness over one game's lacked messages, in memory only.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Lacked {
    /// When this seat last left its owed deposit.
    pub(crate) left: Option<u64>,
    /// The number of the next deposit to fetch, and when the last fetch went.
    pub(crate) fetched: (u64, Option<u64>),
}

/// The ledgers among a witness's `statements` for `p`'s game that read as its
/// witness's.
pub(crate) fn ledgers(p: &Played, statements: &[Vec<u8>]) -> Vec<Ledger> {
    let terms = p.table().session().terms();
    let Some(key) = terms
        .witness()
        .and_then(|w| PublicKey::from_bytes(&w.key).ok())
    else {
        return vec![];
    };
    let (id, seats) = (terms.game(), terms.seat_count());
    statements
        .iter()
        .filter_map(|b| SignedStatement::from_bytes(b, id, &key, seats).ok())
        .filter_map(|s| match s.statement {
            Statement::Ledger(l) => Some(l),
            Statement::Stamp(_) => None,
        })
        .collect()
}

/// Envelopes a seat has processed, over all its chains.
pub(super) fn processed(p: &Played) -> u64 {
    p.table()
        .session()
        .envelopes()
        .counts()
        .iter()
        .map(|(_, n)| n)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The witness is silent from the first ask it leaves unanswered, whatever asks
    /// follow; an answer ends the silence and keeps when it was last asked.
    #[test]
    fn silence_runs_from_the_first_ask_left_unanswered() {
        let a = Asked::Never;
        assert_eq!((a.last(), a.unanswered_since()), (0, None));
        let a = a.ask(10).ask(20);
        assert_eq!((a.last(), a.unanswered_since()), (20, Some(10)));
        let a = a.answered();
        assert_eq!((a.last(), a.unanswered_since()), (20, None));
        let a = a.ask(30);
        assert_eq!((a.last(), a.unanswered_since()), (30, Some(30)));
        assert_eq!(Asked::Never.answered(), Asked::Never);
    }
}
