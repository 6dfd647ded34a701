//! The witness's statements (protocol version 2, spec/PROTOCOL.md §17): what a node
//! both players chose signs about time. A [`Ledger`] says what the witness held of
//! every public chain of a game at one moment and when it first held each of those
//! envelopes; a [`Stamp`] says when it first held a deposit (`crate::deposit`: a
//! private-log envelope sealed for its recipient). Together they make a timeout a
//! proof; two of them that cannot both be true are a proof against the witness
//! ([`contradiction`]), and then no time result stands.
//!
//! *Held* means held together with the envelope's whole public causal past: the
//! earlier envelopes of its chain and, transitively, every public envelope it
//! acknowledges. So a ledger never counts an envelope nobody can process (one that
//! acknowledges something that does not exist), and the time of an envelope is never
//! earlier than the time of anything it had seen. A stamp is of a deposit's hash only,
//! never read as the time of a public envelope: no one can date a public envelope by
//! showing the witness its hash before sending it.
//!
//! Pure: statements in, verdicts out; no clock, the times are the witness's own.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::hash::Hash;
use crate::ids::{ChainId, GameId, Seat};
use crate::keys::{PublicKey, SecretKey, Signature};
use crate::proposal::signing_input;
use crate::wire::{self, WireError};

/// Signature context of a witness statement (spec/PROTOCOL.md §3.2).
pub const SIGN_WITNESS: &str = "sealed/v2/sign/witness";

/// Most bytes of one signed statement: a ledger of about 4,000 envelope times. A
/// witness splits a longer game's ledger into several at the same moment.
pub const MAX_STATEMENT: usize = 32 * 1024;

/// What the witness held of one public chain: `count` envelopes from seq 0, the last
/// `head`, and when it first held each from `first` on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    /// The chain (public).
    pub chain: ChainId,
    /// How many envelopes of it, from seq 0 without a gap, each with its causal past.
    pub count: u64,
    /// The hash of the last (zero exactly when `count` is 0).
    pub head: Hash,
    /// The seq of the envelope `times[0]` is of.
    pub first: u64,
    /// When the witness first held envelope `first + i` (ms since the Unix epoch, its
    /// clock); `first + times.len() <= count`.
    pub times: Vec<u64>,
}

impl Held {
    /// The chain's head as an accuser's knowledge names it.
    pub fn head(&self) -> Head {
        Head {
            chain: self.chain,
            count: self.count,
            head: self.head,
        }
    }

    /// The places this entry gives a time for, with the time.
    pub fn places(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.times
            .iter()
            .enumerate()
            .map(|(i, t)| (self.first + i as u64, *t))
    }
}

/// What the witness held of every public chain of `game` at `at`, and when it first
/// held each envelope it lists a time for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ledger {
    /// The game.
    pub game: GameId,
    /// When (ms since the Unix epoch, the witness's clock).
    pub at: u64,
    /// The public chain of every seat, in seat order.
    pub chains: Vec<Held>,
}

impl Ledger {
    /// How many envelopes of `chain` it holds (0 for a chain it does not list).
    pub fn count(&self, chain: ChainId) -> u64 {
        self.chains
            .iter()
            .find(|h| h.chain == chain)
            .map_or(0, |h| h.count)
    }
}

/// The witness first held the deposit with hash `deposit` of `game` at `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    /// The game.
    pub game: GameId,
    /// The deposit's hash (`crate::deposit::hash_of`).
    pub deposit: Hash,
    /// When.
    pub at: u64,
}

/// An accuser's knowledge of one public chain, or where a wait started: `count`
/// envelopes, the last `head` (zero for none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    /// The chain.
    pub chain: ChainId,
    /// How many envelopes of it.
    pub count: u64,
    /// The hash of the last (zero when `count` is 0).
    pub head: Hash,
}

/// A witness statement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Statement {
    /// A ledger (variant 0).
    Ledger(Ledger),
    /// A stamp of a deposit (variant 1).
    Stamp(Stamp),
}

impl Statement {
    /// The game it is about.
    pub fn game(&self) -> GameId {
        match self {
            Statement::Ledger(l) => l.game,
            Statement::Stamp(s) => s.game,
        }
    }

    /// Signs it with the witness's key.
    pub fn sign(self, key: &SecretKey) -> SignedStatement {
        let body = wire::encode(&self);
        let sig = key.sign(&signing_input(SIGN_WITNESS, &body));
        SignedStatement {
            statement: self,
            sig,
        }
    }
}

/// A statement with the witness's signature over `SIGN_WITNESS ‖ 0x00 ‖ enc(statement)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedStatement {
    /// What is stated.
    pub statement: Statement,
    /// The witness's signature.
    pub sig: Signature,
}

/// Why bytes are not a statement of this game's witness.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StatementError {
    /// Not a canonical encoding, or too large.
    #[error("not a witness statement: {0}")]
    Wire(#[from] WireError),
    /// Another game's.
    #[error("a witness statement of another game")]
    OtherGame,
    /// Not signed by the witness the proposal names.
    #[error("a witness statement not signed by the game's witness")]
    BadSignature,
    /// A ledger that does not list the public chain of every seat once, in seat order.
    #[error("a witness ledger must list the public chain of every seat once, in order")]
    Chains,
    /// A head that is zero for a chain with envelopes, or not zero for one without.
    #[error("a witness ledger names a head that does not fit its count")]
    BadHead,
    /// Times for envelopes beyond the count.
    #[error("a witness ledger gives times for envelopes it does not hold")]
    TimesBeyond,
}

impl SignedStatement {
    /// The bytes that travel and go in a transcript.
    pub fn to_bytes(&self) -> Vec<u8> {
        wire::encode(self)
    }

    /// Reads a statement about `game`, a game of `seats` seats, signed by `witness`,
    /// refusing anything else. The checks in order: size and canonical encoding, the
    /// game, the signature, then a ledger's shape.
    pub fn from_bytes(
        bytes: &[u8],
        game: GameId,
        witness: &PublicKey,
        seats: usize,
    ) -> Result<SignedStatement, StatementError> {
        let s: SignedStatement = wire::decode(bytes, MAX_STATEMENT)?;
        if s.statement.game() != game {
            return Err(StatementError::OtherGame);
        }
        let body = wire::encode(&s.statement);
        if !witness.verify(&signing_input(SIGN_WITNESS, &body), &s.sig) {
            return Err(StatementError::BadSignature);
        }
        if let Statement::Ledger(l) = &s.statement {
            let listed = l.chains.iter().map(|h| h.chain);
            let want = (0..seats).map(|i| ChainId::public(Seat(i as u8)));
            if seats > usize::from(u8::MAX) + 1 || !listed.eq(want) {
                return Err(StatementError::Chains);
            }
            for h in &l.chains {
                if (h.count == 0) != (h.head == Hash::ZERO) {
                    return Err(StatementError::BadHead);
                }
                if h.first.saturating_add(h.times.len() as u64) > h.count {
                    return Err(StatementError::TimesBeyond);
                }
            }
        }
        Ok(s)
    }
}

impl StatementError {
    /// Its name in spec/vectors/witness.json.
    pub fn name(&self) -> &'static str {
        match self {
            StatementError::Wire(WireError::TooLarge { .. }) => "too-large",
            StatementError::Wire(_) => "malformed",
            StatementError::OtherGame => "other-game",
            StatementError::BadSignature => "bad-signature",
            StatementError::Chains => "chains",
            StatementError::BadHead => "bad-head",
            StatementError::TimesBeyond => "times-beyond",
        }
    }
}

/// The envelopes statements are checked against: a transcript, or one envelope's
/// causal past.
pub trait Chains {
    /// The hash of the envelope at `seq` of `chain`, if held.
    fn hash_at(&self, chain: ChainId, seq: u64) -> Option<Hash>;
    /// The public causal past of the envelope at `seq` of `chain`, if held: how many
    /// envelopes of each public chain it covers, itself included (its vector clock).
    fn past(&self, chain: ChainId, seq: u64) -> Option<Vec<(ChainId, u64)>>;
}

/// Two statements (or one against the envelopes) that cannot both be true: the proof
/// that the witness lied, which voids every time result of the game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Contradiction {
    /// A ledger's head is not the envelope held at that place.
    #[error("the ledger at {ledger} ms names a head of {chain} the transcript does not hold there")]
    ForeignHead {
        /// The chain.
        chain: ChainId,
        /// The ledger's time.
        ledger: u64,
    },
    /// One envelope given two times.
    #[error("envelope {seq} of {chain} first held at {0} ms and at {1} ms", .times.0, .times.1)]
    TwoTimes {
        /// Its chain.
        chain: ChainId,
        /// Its seq.
        seq: u64,
        /// The two times.
        times: (u64, u64),
    },
    /// A ledger holds an envelope before the time it was first held.
    #[error("the ledger at {ledger} ms holds envelope {seq} of {chain}, first held at {time} ms")]
    HeldEarly {
        /// Its chain.
        chain: ChainId,
        /// Its seq.
        seq: u64,
        /// Its time.
        time: u64,
        /// The ledger's time.
        ledger: u64,
    },
    /// A ledger at or after an envelope's time lacks it.
    #[error("the ledger at {ledger} ms lacks envelope {seq} of {chain}, first held at {time} ms")]
    LacksHeld {
        /// Its chain.
        chain: ChainId,
        /// Its seq.
        seq: u64,
        /// Its time.
        time: u64,
        /// The ledger's time.
        ledger: u64,
    },
    /// A ledger holds less of a chain than an earlier one (or than one at the same
    /// moment).
    #[error("the ledger at {later} ms holds less of {chain} than the ledger at {earlier} ms")]
    Shrank {
        /// The chain.
        chain: ChainId,
        /// The earlier ledger's time.
        earlier: u64,
        /// The later ledger's time.
        later: u64,
    },
    /// A ledger holds an envelope without something of its causal past.
    #[error("the ledger at {ledger} ms holds the head of {chain} without all it acknowledges")]
    PastNotHeld {
        /// The chain whose head it holds.
        chain: ChainId,
        /// The ledger's time.
        ledger: u64,
    },
    /// An envelope first held before something of its causal past.
    #[error("envelope {seq} of {chain} first held before an envelope it had seen")]
    BeforeItsPast {
        /// Its chain.
        chain: ChainId,
        /// Its seq.
        seq: u64,
    },
    /// One deposit stamped at two times.
    #[error("one deposit stamped at {0} ms and at {1} ms")]
    TwoStamps(u64, u64),
}

impl Contradiction {
    /// Its name in spec/vectors/witness.json.
    pub fn name(&self) -> &'static str {
        match self {
            Contradiction::ForeignHead { .. } => "foreign-head",
            Contradiction::TwoTimes { .. } => "two-times",
            Contradiction::HeldEarly { .. } => "held-early",
            Contradiction::LacksHeld { .. } => "lacks-held",
            Contradiction::Shrank { .. } => "shrank",
            Contradiction::PastNotHeld { .. } => "past-not-held",
            Contradiction::BeforeItsPast { .. } => "before-its-past",
            Contradiction::TwoStamps(..) => "two-stamps",
        }
    }
}

/// The time the statements give the envelope at `seq` of `chain`, if any ledger gives
/// one (they give at most one unless they contradict each other).
pub fn time_of(statements: &[Statement], chain: ChainId, seq: u64) -> Option<u64> {
    statements.iter().find_map(|s| match s {
        Statement::Ledger(l) => l
            .chains
            .iter()
            .find(|h| h.chain == chain && h.first <= seq)
            .and_then(|h| h.times.get(usize::try_from(seq - h.first).ok()?).copied()),
        Statement::Stamp(_) => None,
    })
}

/// The ledgers among statements, earliest first (in their order at equal times).
pub fn ledgers(statements: &[Statement]) -> Vec<&Ledger> {
    let mut out: Vec<&Ledger> = statements
        .iter()
        .filter_map(|s| match s {
            Statement::Ledger(l) => Some(l),
            Statement::Stamp(_) => None,
        })
        .collect();
    out.sort_by_key(|l| l.at);
    out
}

/// The first contradiction among a game's statements, checked against the envelopes
/// `file` holds; `None` when they can all be true. The checks, in this order: two
/// stamps of one deposit; a foreign head; two times for one envelope; a ledger holding
/// less of a chain than an earlier one; a ledger holding an envelope before its time,
/// or lacking it at or after its time; a ledger holding an envelope without its causal
/// past; an envelope first held before something of its causal past.
pub fn contradiction(statements: &[Statement], file: &impl Chains) -> Option<Contradiction> {
    let mut stamps: BTreeMap<Hash, u64> = BTreeMap::new();
    for s in statements {
        if let Statement::Stamp(st) = s {
            let t = *stamps.entry(st.deposit).or_insert(st.at);
            if t != st.at {
                return Some(Contradiction::TwoStamps(t.min(st.at), t.max(st.at)));
            }
        }
    }
    let ledgers = ledgers(statements);
    for l in &ledgers {
        for h in l.chains.iter().filter(|h| h.count > 0) {
            if file
                .hash_at(h.chain, h.count - 1)
                .is_some_and(|held| held != h.head)
            {
                return Some(Contradiction::ForeignHead {
                    chain: h.chain,
                    ledger: l.at,
                });
            }
        }
    }
    let mut times: BTreeMap<(ChainId, u64), u64> = BTreeMap::new();
    for l in &ledgers {
        for h in &l.chains {
            for (seq, t) in h.places() {
                let was = *times.entry((h.chain, seq)).or_insert(t);
                if was != t {
                    return Some(Contradiction::TwoTimes {
                        chain: h.chain,
                        seq,
                        times: (was.min(t), was.max(t)),
                    });
                }
            }
        }
    }
    for w in ledgers.windows(2) {
        for h in &w[0].chains {
            if w[1].count(h.chain) < h.count {
                return Some(Contradiction::Shrank {
                    chain: h.chain,
                    earlier: w[0].at,
                    later: w[1].at,
                });
            }
        }
    }
    // Equal moments hold equal counts (the sort kept them adjacent, each pair checked
    // one way above; the other way here).
    for w in ledgers.windows(2).filter(|w| w[0].at == w[1].at) {
        for h in &w[1].chains {
            if w[0].count(h.chain) < h.count {
                return Some(Contradiction::Shrank {
                    chain: h.chain,
                    earlier: w[0].at,
                    later: w[1].at,
                });
            }
        }
    }
    for (&(chain, seq), &time) in &times {
        for l in &ledgers {
            let holds = l.count(chain) > seq;
            if holds && l.at < time {
                return Some(Contradiction::HeldEarly {
                    chain,
                    seq,
                    time,
                    ledger: l.at,
                });
            }
            if !holds && l.at >= time {
                return Some(Contradiction::LacksHeld {
                    chain,
                    seq,
                    time,
                    ledger: l.at,
                });
            }
        }
    }
    for l in &ledgers {
        for h in l.chains.iter().filter(|h| h.count > 0) {
            let past = file.past(h.chain, h.count - 1).unwrap_or_default();
            if past.iter().any(|(c, n)| l.count(*c) < *n) {
                return Some(Contradiction::PastNotHeld {
                    chain: h.chain,
                    ledger: l.at,
                });
            }
        }
    }
    for (&(chain, seq), &time) in &times {
        // The envelope before it in its chain is always in its past; the file tells
        // the rest.
        let mut before: Vec<(ChainId, u64)> =
            seq.checked_sub(1).map(|q| (chain, q)).into_iter().collect();
        for (c, n) in file.past(chain, seq).unwrap_or_default() {
            if c != chain && n > 0 {
                before.push((c, n - 1));
            }
        }
        if before
            .iter()
            .any(|p| times.get(p).is_some_and(|t| *t > time))
        {
            return Some(Contradiction::BeforeItsPast { chain, seq });
        }
    }
    None
}

#[cfg(test)]
pub(crate) mod tests;
