//! What this node holds of one game as its witness (protocol version 2, spec/PROTOCOL.md
//! §17): every public envelope by place and the time of each held with its whole causal
//! past ([`Witnessed`]), and the deposits left with it ([`DepositCount`]). The witness's
//! answers, ledgers and stamps are `witness.rs` above.

use std::collections::{BTreeMap, HashMap};

use sealed_protocol::envelope::{Ack, Signed};
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, Seat};
use sealed_protocol::proposal::Terms;

use crate::{Durable, GameId};

/// The deposits a witness holds of one game, durable or being written: in all (they
/// are numbered by it), and by the seat that left them.
#[derive(Clone, Debug, Default)]
pub(crate) struct DepositCount {
    pub(crate) all: u64,
    pub(crate) by_seat: BTreeMap<Seat, u64>,
}

/// What a witness holds of one game, durable or being written: every public envelope by
/// place, and the time of each held with its whole causal past.
#[derive(Debug, Default)]
pub(crate) struct Witnessed {
    /// The first envelope held at each place of a public chain: its hash and what it
    /// acknowledges.
    pub(crate) places: BTreeMap<(ChainId, u64), (Hash, Vec<Ack>)>,
    /// Per public chain, the time of each envelope from seq 0 held with its causal past.
    pub(crate) times: BTreeMap<ChainId, Vec<u64>>,
}

impl Witnessed {
    /// Rebuilt from the store: its envelopes and the times written for them.
    pub(crate) fn load(terms: &Terms, game: &GameId, store: &dyn Durable) -> Witnessed {
        let mut held = Witnessed::default();
        for b in store.envelopes(game).unwrap_or_default() {
            // Stored, so verified once already.
            if let Ok(s) = Signed::parse_kept(terms, &b) {
                held.add(&s);
            }
        }
        let prefix = format!("{RECEIPT_PREFIX}{}/", hex::encode(game));
        let stored: HashMap<String, u64> = store
            .metas(&prefix)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(k, v)| Some((k, u64::from_le_bytes(v.try_into().ok()?))))
            .collect();
        // Each chain's dated prefix, as written; an envelope complete but undated (held
        // before its time was ever written) is dated by the next write.
        for seat in terms.seats() {
            let chain = ChainId::public(seat);
            let mut times = vec![];
            while let Some((h, _)) = held.places.get(&(chain, times.len() as u64)) {
                match stored.get(&receipt_key(game, h)) {
                    Some(t) => times.push(*t),
                    None => break,
                }
            }
            held.times.insert(chain, times);
        }
        held
    }

    /// Notes a public envelope as held; whether its place was new.
    pub(crate) fn add(&mut self, s: &Signed) -> bool {
        let at = s.at();
        if !at.chain.log.is_public() || self.places.contains_key(&(at.chain, at.seq)) {
            return false;
        }
        let acks = s
            .unsigned()
            .acks
            .iter()
            .filter(|a| a.chain.log.is_public())
            .copied()
            .collect();
        self.places.insert((at.chain, at.seq), (s.hash, acks));
        true
    }

    pub(crate) fn dated(&self, chain: ChainId) -> u64 {
        self.times.get(&chain).map_or(0, |t| t.len() as u64)
    }

    /// Dates at `at` every envelope now held with its whole causal past that had no
    /// time: returns their hashes.
    pub(crate) fn complete(&mut self, at: u64) -> Vec<Hash> {
        let mut out = vec![];
        loop {
            let mut progress = false;
            let chains: Vec<ChainId> = self.times.keys().copied().collect();
            for chain in chains {
                let next = self.dated(chain);
                let Some((hash, acks)) = self.places.get(&(chain, next)) else {
                    continue;
                };
                // Everything it acknowledges is held, and is what it names.
                let ready = acks.iter().all(|a| {
                    a.seq < self.dated(a.chain)
                        && self.places.get(&(a.chain, a.seq)).map(|p| p.0) == Some(a.hash)
                });
                if ready {
                    out.push(*hash);
                    self.times.entry(chain).or_default().push(at);
                    progress = true;
                }
            }
            if !progress {
                return out;
            }
        }
    }
}

/// How every envelope time's store key begins.
pub(crate) const RECEIPT_PREFIX: &str = "receipt/";

/// The store key of an envelope's time: the game and the envelope hash, both hex.
pub(crate) fn receipt_key(game: &GameId, envelope: &Hash) -> String {
    format!(
        "{RECEIPT_PREFIX}{}/{}",
        hex::encode(game),
        hex::encode(envelope.0)
    )
}
