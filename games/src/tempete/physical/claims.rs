//! Claims and disputes: who accepted what, causally, with no clock.
//!
//! Every act a player makes in the physical deck is a claim about the game: a card's
//! stated effect, a move citing a continuing effect, an ordinary move, a settlement.
//! The opponent **accepts** it with his next act that is not a dispute — that act has
//! seen it, since the acts form one chain (spec/GAMES.md §4.4) — or **disputes** it
//! before that, with one `Dispute` act per act disputed. An envelope without an act
//! decides nothing: a node's automatic acknowledgement must never accept for a person.
//!
//! This bookkeeping reads only the sequence of acts and who made them, never the board,
//! so the rules and anyone replaying a transcript keep it the same way.

use crate::chess::Color;

/// An act of one side that the other may still dispute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The act's number (accepted acts counted from 0, both sides together).
    pub act: u32,
    /// Who made it.
    pub side: Color,
    /// The dispute it settles, if it is a settlement.
    pub settles: Option<u32>,
}

/// Where a dispute stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DisputeState {
    /// Raised; nothing settled it.
    Open,
    /// A settlement was offered by act `act`; the other side has not acted since.
    Settling {
        /// The settlement's act number.
        act: u32,
    },
    /// Settled by agreement: the settlement of act `act` was accepted.
    Settled {
        /// The settlement's act number.
        act: u32,
    },
    /// Ruled by the arbiter, in act `act`.
    Ruled {
        /// The act that posted the ruling.
        act: u32,
    },
}

/// A dispute of one act.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dispute {
    /// The act disputed.
    pub act: u32,
    /// Who made the disputed act (the claimant).
    pub claimant: Color,
    /// The act that raised the dispute.
    pub raised: u32,
    /// Turns and answers played when it was raised (a ruling's deadline counts from
    /// here).
    pub ply: u32,
    /// The disputer's words.
    pub note: String,
    /// Where it stands.
    pub state: DisputeState,
}

impl Dispute {
    /// Whether nothing has closed it yet (a settlement not yet accepted does not).
    pub fn is_open(&self) -> bool {
        matches!(
            self.state,
            DisputeState::Open | DisputeState::Settling { .. }
        )
    }
}

/// A continuing effect a card's claim stated, which later moves may cite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lasting {
    /// The act that stated it.
    pub act: u32,
    /// Who stated it.
    pub side: Color,
    /// The card.
    pub card: Option<u32>,
    /// It holds while fewer than `until` turns and answers have been played.
    pub until: u32,
    /// The claim's note (what the effect is).
    pub note: String,
}

/// Why a dispute, a settlement, a ruling or a citation is refused: its sender's fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClaimError {
    /// The act named is not one the disputer may still dispute.
    #[error(
        "act {0} cannot be disputed now: only the opponent's acts since your own last act can (a later act of yours accepted it)"
    )]
    NotDisputable(u32),
    /// The act named was disputed already.
    #[error("act {0} is disputed already")]
    DisputedTwice(u32),
    /// No open dispute has this number.
    #[error("there is no open dispute {0}")]
    NotOpen(u32),
    /// The ruling came too late.
    #[error("the ruling on dispute {dispute} came after its deadline (ply {deadline})")]
    Late {
        /// The dispute.
        dispute: u32,
        /// The ply by which it was due.
        deadline: u32,
    },
    /// The citation names no continuing effect.
    #[error("act {0} stated no continuing effect")]
    NothingToCite(u32),
    /// The citation names an effect that has ended.
    #[error("the effect stated in act {act} ended at ply {until}")]
    Ended {
        /// The act cited.
        act: u32,
        /// When it ended.
        until: u32,
    },
}

/// The claims of a game in the physical deck.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Claims {
    /// Acts accepted so far: the number the next act gets.
    pub acts: u32,
    /// Acts not yet accepted by the other side.
    pub unanswered: Vec<Record>,
    /// Every dispute, in the order raised (a dispute's number is its index).
    pub disputes: Vec<Dispute>,
    /// Every continuing effect stated, in order.
    pub lasting: Vec<Lasting>,
}

impl Claims {
    /// Before an act of `side`: unless it is a dispute or a ruling (`answers_nothing`),
    /// it accepts every act of the other side not yet accepted, and with it every
    /// settlement among them.
    pub fn begin(&mut self, side: Color, answers_nothing: bool) {
        if answers_nothing {
            return;
        }
        let (accepted, kept): (Vec<Record>, Vec<Record>) = std::mem::take(&mut self.unanswered)
            .into_iter()
            .partition(|r| r.side != side);
        self.unanswered = kept;
        for r in accepted {
            if let Some(d) = r.settles
                && let Some(dispute) = self.disputes.get_mut(d as usize)
                && dispute.state == (DisputeState::Settling { act: r.act })
            {
                dispute.state = DisputeState::Settled { act: r.act };
            }
        }
    }

    /// `side` disputes act `act`; returns the dispute's number.
    pub fn dispute(
        &mut self,
        side: Color,
        act: u32,
        note: &str,
        ply: u32,
    ) -> Result<u32, ClaimError> {
        if self.disputes.iter().any(|d| d.act == act) {
            return Err(ClaimError::DisputedTwice(act));
        }
        let i = self
            .unanswered
            .iter()
            .position(|r| r.act == act && r.side != side)
            .ok_or(ClaimError::NotDisputable(act))?;
        let record = self.unanswered.remove(i);
        // A disputed settlement settles nothing: its dispute is open again.
        if let Some(d) = record.settles
            && let Some(dispute) = self.disputes.get_mut(d as usize)
            && dispute.state == (DisputeState::Settling { act })
        {
            dispute.state = DisputeState::Open;
        }
        self.disputes.push(Dispute {
            act,
            claimant: !side,
            raised: self.acts,
            ply,
            note: note.to_owned(),
            state: DisputeState::Open,
        });
        Ok(self.disputes.len() as u32 - 1)
    }

    /// The current act offers a settlement of dispute `d`.
    pub fn settle(&mut self, d: u32) -> Result<(), ClaimError> {
        let act = self.acts;
        let dispute = self.open_mut(d)?;
        dispute.state = DisputeState::Settling { act };
        Ok(())
    }

    /// The current act posts the arbiter's ruling on dispute `d`, at `ply` turns and
    /// answers, with `plies` allowed after the dispute.
    pub fn rule(&mut self, d: u32, ply: u32, plies: u32) -> Result<(), ClaimError> {
        let act = self.acts;
        let dispute = self.open_mut(d)?;
        let deadline = dispute.ply.saturating_add(plies);
        if ply >= deadline {
            return Err(ClaimError::Late {
                dispute: d,
                deadline,
            });
        }
        dispute.state = DisputeState::Ruled { act };
        Ok(())
    }

    fn open_mut(&mut self, d: u32) -> Result<&mut Dispute, ClaimError> {
        self.disputes
            .get_mut(d as usize)
            .filter(|x| x.is_open())
            .ok_or(ClaimError::NotOpen(d))
    }

    /// The continuing effect stated in act `act`, if it still holds at `ply`.
    pub fn cite(&self, act: u32, ply: u32) -> Result<&Lasting, ClaimError> {
        let l = self
            .lasting
            .iter()
            .find(|l| l.act == act)
            .ok_or(ClaimError::NothingToCite(act))?;
        if ply >= l.until {
            return Err(ClaimError::Ended {
                act,
                until: l.until,
            });
        }
        Ok(l)
    }

    /// After an accepted act of `side`: record it for the other side to accept or
    /// dispute (unless it is not disputable), and count it.
    pub fn finish(&mut self, side: Color, disputable: bool, settles: Option<u32>) {
        if disputable {
            self.unanswered.push(Record {
                act: self.acts,
                side,
                settles,
            });
        }
        self.acts += 1;
    }

    /// The disputes nothing has closed.
    pub fn open(&self) -> impl Iterator<Item = (u32, &Dispute)> {
        self.disputes
            .iter()
            .enumerate()
            .filter(|(_, d)| d.is_open())
            .map(|(i, d)| (i as u32, d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Color::{Black, White};

    #[test]
    fn the_next_act_accepts_and_a_later_dispute_is_refused() {
        let mut c = Claims::default();
        c.begin(White, false);
        c.finish(White, true, None); // act 0: White's claim
        c.begin(Black, false);
        c.finish(Black, true, None); // act 1: Black plays on: act 0 accepted
        assert_eq!(
            c.dispute(Black, 0, "no", 1),
            Err(ClaimError::NotDisputable(0))
        );
        // White may still dispute Black's act 1, and only once.
        assert_eq!(c.dispute(White, 1, "no", 1), Ok(0));
        assert_eq!(
            c.dispute(White, 1, "no", 1),
            Err(ClaimError::DisputedTwice(1))
        );
        // Nobody disputes his own act.
        c.finish(White, false, None);
        c.begin(White, false);
        c.finish(White, true, None); // act 3
        assert_eq!(
            c.dispute(White, 3, "", 2),
            Err(ClaimError::NotDisputable(3))
        );
    }

    #[test]
    fn a_settlement_settles_when_accepted_and_not_when_disputed() {
        let mut c = Claims::default();
        c.finish(White, true, None); // act 0
        c.begin(Black, true);
        c.dispute(Black, 0, "the card does not do that", 0).unwrap();
        c.finish(Black, false, None); // act 1: the dispute
        // Black offers a settlement (act 2), White disputes it: open again.
        c.begin(Black, false);
        c.settle(0).unwrap();
        c.finish(Black, true, Some(0));
        c.begin(White, true);
        c.dispute(White, 2, "no", 0).unwrap();
        c.finish(White, false, None);
        assert_eq!(c.disputes[0].state, DisputeState::Open);
        // White offers one (act 4), Black's next act accepts it.
        c.begin(White, false);
        c.settle(0).unwrap();
        c.finish(White, true, Some(0));
        c.begin(Black, false);
        assert_eq!(c.disputes[0].state, DisputeState::Settled { act: 4 });
        assert_eq!(c.open().count(), 1); // the dispute of the settlement stays open
    }

    #[test]
    fn a_ruling_after_its_deadline_is_refused() {
        let mut c = Claims::default();
        c.finish(White, true, None);
        c.dispute(Black, 0, "", 3).unwrap();
        c.finish(Black, false, None);
        assert_eq!(
            c.rule(0, 8, 5),
            Err(ClaimError::Late {
                dispute: 0,
                deadline: 8
            })
        );
        assert_eq!(c.rule(0, 7, 5), Ok(()));
        assert_eq!(c.rule(0, 7, 5), Err(ClaimError::NotOpen(0)));
    }

    #[test]
    fn a_citation_needs_an_effect_that_still_holds() {
        let mut c = Claims::default();
        c.lasting.push(Lasting {
            act: 4,
            side: White,
            card: Some(37),
            until: 10,
            note: String::new(),
        });
        assert!(c.cite(4, 9).is_ok());
        assert_eq!(c.cite(4, 10), Err(ClaimError::Ended { act: 4, until: 10 }));
        assert_eq!(c.cite(3, 0), Err(ClaimError::NothingToCite(3)));
    }
}
