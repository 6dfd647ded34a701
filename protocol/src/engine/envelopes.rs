//! What a seat holds, read without the rules: [`Envelopes`], a borrowed view of the
//! engine's chains that answers every question sync, the store and the names ask —
//! counts per chain, an envelope at a place, the bytes another seat lacks, who may see a
//! chain, the names signed, where a chain breaks, and the transcript file of it all
//! (written in `transcript.rs`). It is one concrete type, not methods forwarded through
//! every game: a node asks the seat once (`AnySession::envelopes`) and reads the rest
//! here (ARCHITECTURE.md, "Names").

use std::collections::BTreeMap;

use super::store::Store;
use super::{Engine, SeatTrack};
use crate::envelope::{EnvelopeError, Signed};
use crate::fault::{Fault, FaultKind};
use crate::hash::Hash;
use crate::ids::{ChainId, EnvRef, LogId, Seat};
use crate::proof::Proof;
use crate::proposal::Terms;
use crate::rules::Rules;

/// Who is in a private log's audience: the one thing of the rules the view needs.
trait Audience {
    fn audience(&self, log: LogId) -> Option<Vec<Seat>>;
}

impl<R: Rules> Audience for R {
    fn audience(&self, log: LogId) -> Option<Vec<Seat>> {
        Rules::audience(self, log)
    }
}

/// The envelopes one seat holds, and what they say without the game's rules.
#[derive(Clone, Copy)]
pub struct Envelopes<'a> {
    store: &'a Store,
    terms: &'a Terms,
    seats: &'a [SeatTrack],
    rules: &'a dyn Audience,
    faults: &'a [Fault],
    over: bool,
    withdrawn: bool,
}

impl<R: Rules> Engine<R> {
    /// The envelopes held, as a view that needs no rules.
    pub fn envelopes_view(&self) -> Envelopes<'_> {
        Envelopes {
            store: &self.store,
            terms: &self.terms,
            seats: &self.seats,
            rules: &self.rules,
            faults: &self.faults,
            over: self.is_over(),
            withdrawn: self.withdrawn(),
        }
    }
}

impl<'a> Envelopes<'a> {
    /// Processed envelopes per chain that has any, in chain order: what this seat tells
    /// the other side it holds.
    pub fn counts(&self) -> Vec<(ChainId, u64)> {
        self.store
            .chains
            .iter()
            .filter(|(_, c)| c.processed > 0)
            .map(|(id, c)| (*id, c.processed))
            .collect()
    }

    /// How many envelopes are held: in the chains' slots, and beside them as evidence.
    pub fn len(&self) -> usize {
        let slots: usize = self
            .store
            .chains
            .values()
            .map(|c| c.envs.iter().flatten().count())
            .sum();
        slots + self.store.others.len()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The processed envelope at `at`, if there is one.
    pub fn processed(&self, at: EnvRef) -> Option<&'a Signed> {
        let c = self.store.chains.get(&at.chain)?;
        (at.seq < c.processed).then(|| c.get(at.seq)).flatten()
    }

    /// Reads bytes as an envelope of this game, its signature verified unless these
    /// exact bytes are held already: the node parses what a peer sends once.
    pub fn parse(&self, bytes: &[u8]) -> Result<Signed, EnvelopeError> {
        let signed = Signed::parse_kept(self.terms, bytes)?;
        if !self.store.holds_exact(&signed) {
            signed.verify(self.terms)?;
        }
        Ok(signed)
    }

    /// Every envelope held, exact bytes: the chains in chain order, then the envelopes
    /// kept beside them as evidence. Restoring from them rebuilds the session.
    pub fn all(&self) -> Vec<Vec<u8>> {
        let mut all = self.chained();
        all.extend(self.store.others.iter().map(|e| e.bytes.clone()));
        all
    }

    /// The envelopes in the chains' slots, exact bytes, in chain order: a transcript's
    /// envelopes (the others held are evidence).
    pub fn chained(&self) -> Vec<Vec<u8>> {
        let chains = self.store.chains.values();
        chains
            .flat_map(|c| c.envs.iter().flatten())
            .map(|e| e.bytes.clone())
            .collect()
    }

    /// The envelopes of every chain `audience` may see ([`Envelopes::visible`]) beyond
    /// the counts `have` says the other side holds (a chain missing from `have` counts
    /// 0), in chain order.
    pub fn after(&self, have: &[(ChainId, u64)], audience: Seat) -> Vec<Vec<u8>> {
        let have: BTreeMap<ChainId, u64> = have.iter().copied().collect();
        let mut out = vec![];
        for (id, c) in &self.store.chains {
            if !self.visible(*id, audience) {
                continue;
            }
            let from = have.get(id).copied().unwrap_or(0);
            let from = usize::try_from(from).unwrap_or(usize::MAX);
            let held = c.envs.iter().skip(from).flatten();
            out.extend(held.map(|e| e.bytes.clone()));
        }
        out
    }

    /// Whether `audience` may see the envelopes of `chain` now: a public chain always; a
    /// private log's chain if the game puts `audience` in that log's audience, or once the
    /// game is over (spec/PROTOCOL.md §8.11.4).
    pub fn visible(&self, chain: ChainId, audience: Seat) -> bool {
        chain.log.is_public()
            || self.over
            || self
                .rules
                .audience(chain.log)
                .is_some_and(|a| a.contains(&audience))
    }

    /// The name a seat signed for itself (version 2): the proposer's in the proposal,
    /// another seat's in its first envelope.
    pub fn signed_name(&self, seat: Seat) -> Option<&'a str> {
        let p = self.terms.proposal();
        if p.proposer == seat {
            return p.seats.get(seat.index()).map(|s| s.name.as_str());
        }
        self.seats.get(seat.index())?.name.as_deref()
    }

    /// Whether the proposer withdrew the proposal.
    pub fn withdrawn(&self) -> bool {
        self.withdrawn
    }

    /// The validated terms the envelopes are of.
    pub(crate) fn terms(&self) -> &'a Terms {
        self.terms
    }

    /// The faults found judging the envelopes held, in the order found (the chain
    /// faults are apart: [`Envelopes::chain_breaks`]).
    pub(crate) fn faults(&self) -> &'a [Fault] {
        self.faults
    }

    /// Where the envelopes held break a chain, each with its proof: two different
    /// envelopes at one position, or an envelope whose `prev` does not name its
    /// chain's envelope before it.
    ///
    /// Only two kinds of position can hold one, so only they are looked at and the cost
    /// does not grow with the game: a position where an envelope is kept beside the
    /// chains (a second envelope there, or one that does not link), and a chain's first
    /// unprocessed position (its envelope may not name the processed one before it).
    /// Every processed slot links to the one before it: processing chose it so.
    pub(crate) fn chain_breaks(&self) -> Vec<(EnvRef, FaultKind, Proof)> {
        let mut out = vec![];
        for (id, c) in &self.store.chains {
            let held = c.envs.len() as u64;
            let mut positions: std::collections::BTreeSet<u64> = self
                .store
                .others
                .iter()
                .map(Signed::at)
                .filter(|at| at.chain == *id && at.seq < held)
                .map(|at| at.seq)
                .collect();
            if c.processed < held {
                positions.insert(c.processed);
            }
            for seq in positions {
                let at = EnvRef { chain: *id, seq };
                let all = self.store.all_at(at);
                if let [first, second, ..] = all.as_slice() {
                    out.push((
                        at,
                        FaultKind::Equivocation,
                        Proof::Equivocation {
                            first: first.bytes.clone(),
                            second: second.bytes.clone(),
                        },
                    ));
                }
                let earlier = if seq == 0 {
                    None
                } else {
                    self.processed(EnvRef {
                        chain: *id,
                        seq: seq - 1,
                    })
                };
                let expected = match (seq, earlier) {
                    (0, _) => Hash::ZERO,
                    (_, Some(e)) => e.hash,
                    (_, None) => continue,
                };
                if let Some(bad) = all.iter().find(|e| e.unsigned().prev != expected) {
                    let proof = Proof::BrokenLink {
                        earlier: earlier.map(|e| e.bytes.clone()),
                        later: bad.bytes.clone(),
                    };
                    out.push((at, FaultKind::WrongPrevious, proof));
                }
            }
        }
        out
    }
}
