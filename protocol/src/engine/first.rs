//! Judging a seat's first public envelope (spec/PROTOCOL.md §8.3): its acceptance
//! (unless it proposed) and exactly the start commitments the game requires.

use super::judge::{Broken, broken};
use super::{Engine, store::Clock};
use crate::body::{Item, Purpose};
use crate::commit::CommitKey;
use crate::envelope::Signed;
use crate::fault::FaultKind;
use crate::ids::Seat;
use crate::rules::Rules;

impl<R: Rules> Engine<R> {
    /// The first public envelope: acceptance (unless proposer) and start commitments.
    /// Returns how many leading items it consumed.
    pub(super) fn judge_first(&mut self, env: &Signed, clock: &Clock) -> Result<usize, Broken> {
        let u = env.unsigned();
        let seat = u.seat;
        let at = env.at();
        self.seats[seat.index()].first = Some(at);
        let proposer = self.terms.proposal().proposer == seat;
        let mut items = u.body.iter().peekable();
        let mut consumed = 0;
        if !proposer {
            consumed = 1;
            match items.next() {
                Some(Item::Accept) => {}
                Some(Item::Decline) => {
                    self.game.declined.get_or_insert(at);
                    if !self.game.terminal.contains(&at) {
                        self.game.terminal.push(at);
                    }
                    if u.body.len() > 1 {
                        return Err(broken(
                            FaultKind::OutOfPhase,
                            "a decline carries nothing else",
                        ));
                    }
                    return Ok(consumed);
                }
                _ => {
                    return Err(broken(
                        FaultKind::OutOfPhase,
                        "the first envelope must accept or decline",
                    ));
                }
            }
        }
        let mut got: Vec<(CommitKey, crate::hash::Hash)> = vec![];
        while let Some(Item::Commit(c)) = items.peek() {
            for (i, h) in c.hashes.iter().enumerate() {
                got.push((
                    CommitKey {
                        seat,
                        purpose: c.purpose.clone(),
                        index: c.first + i as u32,
                    },
                    *h,
                ));
            }
            items.next();
            consumed += 1;
        }
        // The commitments are void if the sender had already seen another player's
        // coin seed: its setup contribution or coin could then be chosen to suit. A seat
        // that is not a player commits nothing, so it may join whenever it likes.
        if let Some((other, _)) = self
            .ledger
            .coin_public
            .iter()
            .filter(|_| self.terms.is_player(seat))
            .find(|(s, r)| *s != seat && self.store.seen(clock, *r))
        {
            return Err(broken(
                FaultKind::CommitmentAfterDependent,
                format!("commitments made after seeing {other}'s coin seed"),
            ));
        }
        let mut want = self.required_commitments(seat);
        want.sort();
        // Compared by reference: a deck's first envelope commits every slot.
        let mut have: Vec<&CommitKey> = got.iter().map(|(k, _)| k).collect();
        have.sort();
        let dup = have.windows(2).any(|w| w[0] == w[1]);
        let (exact, have) = (have.iter().copied().eq(&want), have.len());
        for (k, h) in got {
            if let (Purpose::DrawChain(name), 0) = (&k.purpose, k.index)
                && let Some(p) = self.ledger.pool_index(seat, name)
            {
                self.ledger.pools[p].head.get_or_insert(h.0);
            }
            self.ledger.commit(k, (h, at));
        }
        if dup {
            return Err(broken(
                FaultKind::DuplicateCommitment,
                "a start commitment is repeated",
            ));
        }
        if !exact {
            return Err(broken(
                FaultKind::WrongStartCommitments,
                format!("expected {} start commitments, got {have}", want.len()),
            ));
        }
        Ok(consumed)
    }

    /// Exactly what a seat commits in its first envelope.
    pub(crate) fn required_commitments(&self, seat: Seat) -> Vec<CommitKey> {
        let mut want = vec![];
        if !self.terms.is_player(seat) {
            return want;
        }
        want.push(CommitKey {
            seat,
            purpose: Purpose::Coin,
            index: 0,
        });
        for d in &self.ledger.decks {
            if d.spec.owner == seat {
                for i in 0..d.slots() {
                    want.push(CommitKey {
                        seat,
                        purpose: Purpose::Deck(d.spec.name.clone()),
                        index: i,
                    });
                }
            }
            if d.spec.dealer == seat {
                want.push(CommitKey {
                    seat,
                    purpose: Purpose::DealSeed(d.spec.name.clone()),
                    index: u32::from(d.spec.owner.0),
                });
            }
        }
        for s in &self.setups {
            if s.owner == seat {
                want.push(CommitKey {
                    seat,
                    purpose: Purpose::Setup(s.name.clone()),
                    index: 0,
                });
            }
        }
        for p in &self.ledger.pools {
            if p.spec.owner == seat {
                want.push(CommitKey {
                    seat,
                    purpose: Purpose::DrawChain(p.spec.name.clone()),
                    index: 0,
                });
            }
        }
        want
    }
}
