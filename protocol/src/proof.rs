//! Proofs that a seat broke its own chain: self-contained sets of signed envelopes.
//!
//! A chain fault is a fact about *which* envelopes exist, not about what any one
//! envelope says, so the engine finds it in the set of envelopes it holds whatever the
//! order they came in. To make the knowledge of it part of the causal record (so that
//! "the game is over" is judged the same everywhere), a seat that finds one posts the
//! proof in an [`crate::body::Item::Evidence`] item.

use serde::{Deserialize, Serialize};

use crate::envelope::Signed;
use crate::fault::FaultKind;
use crate::hash::Hash;
use crate::ids::{EnvRef, Seat};
use crate::proposal::Terms;

/// Signed envelopes proving a chain fault.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Proof {
    /// Two different envelopes signed at one position.
    Equivocation {
        /// One envelope's bytes.
        first: Vec<u8>,
        /// The other's.
        second: Vec<u8>,
    },
    /// An envelope whose `prev` does not name the envelope before it in the same chain
    /// (`earlier` is absent when the broken envelope is at seq 0 and `prev` is not zero).
    BrokenLink {
        /// The envelope before, signed by the same seat.
        earlier: Option<Vec<u8>>,
        /// The envelope whose `prev` is wrong.
        later: Vec<u8>,
    },
}

/// What a valid proof shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proven {
    /// The seat at fault.
    pub seat: Seat,
    /// The position it concerns.
    pub at: EnvRef,
    /// [`FaultKind::Equivocation`] or [`FaultKind::WrongPrevious`].
    pub kind: FaultKind,
    /// The envelopes, verified.
    pub envelopes: Vec<Signed>,
}

impl Proof {
    /// Checks the proof against the game's terms.
    pub fn check(&self, terms: &Terms) -> Result<Proven, &'static str> {
        self.check_with(terms, |_| false)
    }

    /// As [`Proof::check`], by one that holds envelopes already verified: an envelope
    /// of the proof whose exact bytes `held` says it holds is not verified again (the
    /// same bytes carry the same signature).
    pub fn check_with(
        &self,
        terms: &Terms,
        held: impl Fn(&Signed) -> bool,
    ) -> Result<Proven, &'static str> {
        let parse = |b: &[u8]| {
            Signed::parse_kept(terms, b)
                .and_then(|s| {
                    if held(&s) {
                        Ok(s)
                    } else {
                        s.verify(terms).map(|()| s)
                    }
                })
                .map_err(|_| "an envelope of the proof is not validly signed")
        };
        match self {
            Proof::Equivocation { first, second } => {
                let a = parse(first)?;
                let b = parse(second)?;
                if a.at() != b.at() {
                    return Err("the envelopes sit at different positions");
                }
                if a.hash == b.hash {
                    return Err("the envelopes are the same");
                }
                Ok(Proven {
                    seat: a.at().chain.seat,
                    at: a.at(),
                    kind: FaultKind::Equivocation,
                    envelopes: vec![a, b],
                })
            }
            Proof::BrokenLink { earlier, later } => {
                let l = parse(later)?;
                let mut envelopes = vec![];
                match earlier {
                    None => {
                        if l.at().seq != 0 || l.unsigned().prev == Hash::ZERO {
                            return Err("a first envelope with a zero prev is not broken");
                        }
                    }
                    Some(e) => {
                        let e = parse(e)?;
                        if e.at().chain != l.at().chain
                            || e.at().seq.checked_add(1) != Some(l.at().seq)
                        {
                            return Err("the envelopes are not consecutive in one chain");
                        }
                        if l.unsigned().prev == e.hash {
                            return Err("the link is not broken");
                        }
                        envelopes.push(e);
                    }
                }
                let at = l.at();
                envelopes.push(l);
                Ok(Proven {
                    seat: at.chain.seat,
                    at,
                    kind: FaultKind::WrongPrevious,
                    envelopes,
                })
            }
        }
    }
}
