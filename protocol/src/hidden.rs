//! What a game with hidden duties (Secret Stallmate's referee) sees of its private logs,
//! live and at the end.
//!
//! A private log is an exchange between a few seats (its audience) that the others do
//! not receive while the game is on. Live, the engine judges each private act only by
//! what every member of the log knows: the log's earlier acts ([`Rules::private_act`]).
//! Whether the acts were *true* (a referee's answer against two armies nobody else saw)
//! can only be judged once every secret is revealed: then the engine hands the game
//! everything at once ([`Revealed`]) and the game returns its findings
//! ([`Rules::audit`]), each a signed act proven false.
//!
//! [`Rules::private_act`]: crate::rules::Rules::private_act
//! [`Rules::audit`]: crate::rules::Rules::audit

use std::collections::BTreeMap;

use crate::hash::{Framed, Hash, tag};
use crate::ids::{ChainId, EnvRef, GameId, LogId, Name, Seat};
use crate::rules::SetupSpec;

/// An accepted act and where it was posted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Posted {
    /// Its envelope.
    pub at: EnvRef,
    /// The signer.
    pub seat: Seat,
    /// The signer's clock reading, milliseconds since the Unix epoch.
    pub clock: u64,
    /// The act bytes, as the game encoded them.
    pub bytes: Vec<u8>,
}

/// A private setup seed opened inside a private log, to that log's audience only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    /// The envelope that opened it.
    pub at: EnvRef,
    /// Whose setup.
    pub owner: Seat,
    /// Which setup.
    pub name: Name,
    /// The owner's seed, checked against the public commitment.
    pub seed: [u8; 32],
}

/// Everything the end-of-game audit reads: built by the engine once the game is over
/// and every setup seed is open.
#[derive(Clone, Debug)]
pub struct Revealed<'a> {
    /// The game.
    pub game: GameId,
    /// Every private setup with its derived value (§4.5 of the spec).
    pub setups: Vec<(SetupSpec, Hash)>,
    /// Accepted public acts, in order.
    pub public: Vec<Posted>,
    /// Accepted private acts, per log, in order.
    pub private: &'a BTreeMap<LogId, Vec<Posted>>,
    /// Where each member of a private log closed it (sealed it), if it did.
    pub sealed: &'a BTreeMap<ChainId, EnvRef>,
    /// How far a seal saw the log's other chains: for each seal, the acknowledged
    /// sequence number (exclusive count) of every other chain of its log.
    pub seal_saw: BTreeMap<ChainId, BTreeMap<ChainId, u64>>,
    /// The hash of every processed envelope of every private chain, in order.
    pub chains: BTreeMap<ChainId, Vec<Hash>>,
    /// For every processed private envelope, how many envelopes of each seat's public
    /// chain its causal past holds (by seat number).
    pub saw_public: BTreeMap<EnvRef, Vec<u64>>,
    /// The hash of the envelope of every accepted public act.
    pub public_hashes: BTreeMap<EnvRef, Hash>,
    /// Version 2: the witness's time of every envelope the posted statements date, by
    /// hash — public ones by ledgers, private ones by the stamps of their deposits
    /// (PROTOCOL §17); `None` without a witness or when its statements contradict.
    pub stamps: Option<BTreeMap<Hash, u64>>,
}

impl Revealed<'_> {
    /// The derived value of a setup.
    pub fn setup(&self, owner: Seat, name: &str) -> Option<&Hash> {
        self.setups
            .iter()
            .find(|(s, _)| s.owner == owner && s.name.as_str() == name)
            .map(|(_, h)| h)
    }

    /// The hash of the envelope at `at`, public (holding an act) or private.
    pub fn hash_of(&self, at: EnvRef) -> Option<Hash> {
        if let Some(h) = self.public_hashes.get(&at) {
            return Some(*h);
        }
        let k = usize::try_from(at.seq).ok()?;
        self.chains.get(&at.chain)?.get(k).copied()
    }

    /// The witness's time of the envelope at `at`, if the posted statements give one.
    pub fn stamp_of(&self, at: EnvRef) -> Option<u64> {
        self.stamps.as_ref()?.get(&self.hash_of(at)?).copied()
    }

    /// Whether the private envelope at `at` had `target`, a public envelope, in its
    /// causal past (it acknowledged it, directly or through what it acknowledged).
    pub fn saw(&self, at: EnvRef, target: EnvRef) -> bool {
        self.saw_public
            .get(&at)
            .and_then(|c| c.get(target.chain.seat.index()))
            .is_some_and(|n| *n > target.seq)
    }

    /// The digest of a private log's chains cut at the given lengths (see [`digest`]);
    /// `None` if a chain is shorter than its length.
    pub fn digest_of(&self, log: LogId, lengths: &[(Seat, u64)]) -> Option<Hash> {
        let mut heads = vec![];
        for (seat, n) in lengths {
            let chain = ChainId { log, seat: *seat };
            let hashes = self.chains.get(&chain).map(Vec::as_slice).unwrap_or(&[]);
            let head = match usize::try_from(*n).ok()? {
                0 => Hash::ZERO,
                k => *hashes.get(k - 1)?,
            };
            heads.push((*seat, *n, head));
        }
        Some(digest(self.game, log, &heads))
    }
}

/// A signed act the audit proves false or not allowed, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Whose act.
    pub seat: Seat,
    /// Its envelope.
    pub at: EnvRef,
    /// The rule, in a sentence.
    pub detail: String,
}

/// Part of the game the audit could not check, and who holds what it lacks (a seal
/// never posted, a log never published). A gap is a claim, never a proof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gap {
    /// The seat that should have posted or published what is missing.
    pub against: Seat,
    /// What is missing.
    pub what: String,
}

/// The audit's result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Audit {
    /// Signed acts proven false or not allowed.
    pub findings: Vec<Finding>,
    /// What could not be checked.
    pub gaps: Vec<Gap>,
    /// Version 2: a player the witness's stamps prove out of time (Secret Stallmate's
    /// period that passed without a move in witness time); he loses on time.
    pub out_of_time: Option<OutOfTime>,
}

/// A player proven out of time by the audit, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutOfTime {
    /// The player.
    pub seat: Seat,
    /// The proof, in a sentence.
    pub why: String,
}

/// The digest that stands for a private log in public without telling its length:
/// `H("sealed/v1/sublog"; game, le32(log), then for each chain in the order given:
/// [seat], le64(count), head)`, where `head` is the hash of the chain's envelope at
/// `count - 1` (zero for an empty chain).
pub fn digest(game: GameId, log: LogId, heads: &[(Seat, u64, Hash)]) -> Hash {
    let mut h = Framed::new(tag::SUBLOG)
        .field(game.0.as_bytes())
        .field(&log.0.to_le_bytes());
    for (seat, count, head) in heads {
        h = h
            .field(&[seat.0])
            .field(&count.to_le_bytes())
            .field(head.as_bytes());
    }
    h.finish()
}
