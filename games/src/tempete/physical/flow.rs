//! The physical deck's acts in the flow of spec/GAMES.md §4.6: a claimed turn or
//! answer, a dispute, a settlement, a ruling.

use sealed_protocol::hidden::Gap;
use sealed_protocol::rules::{ActCtx, Violation};

use crate::chess::Color;

use super::super::act::{Act, Answer, Claim};
use super::super::effects::Params;
use super::super::rules::{AppliedParts, Opened, Tempete};
use super::super::state::{Pending, State, TurnMade, seat};
use super::claims::Lasting;
use super::edit::{Edit, check_note};
use super::ruling::ruling_is_signed;

/// The longest act the open deck decodes.
const OPEN_CAP: usize = 256;

/// The longest act the physical deck decodes: sixteen edits, a note of 280 bytes and
/// a signature fit well inside.
const PHYSICAL_CAP: usize = 1024;

/// The longest continuing effect a claim may state, in turns and answers.
const MAX_LASTING: u32 = 1000;

fn fault(e: impl ToString) -> Violation {
    Violation(e.to_string())
}

impl Tempete {
    /// The longest act this game decodes.
    pub fn act_cap(&self) -> usize {
        match self.physical {
            Some(_) => PHYSICAL_CAP,
            None => OPEN_CAP,
        }
    }

    /// Refuses an act of the other deck: the open deck's cards carry their parameters,
    /// the physical deck's their stated edits.
    pub(in super::super) fn fits_deck(&self, act: &Act) -> Result<(), Violation> {
        let physical_only = matches!(
            act,
            Act::Claim(_)
                | Act::Dispute { .. }
                | Act::Settle { .. }
                | Act::Ruling { .. }
                | Act::Answer(Answer::Claimed(_))
        );
        let card_with_params = matches!(act, Act::Turn { card: Some(_), .. })
            || matches!(act, Act::Answer(Answer::Replay { card: Some(_), .. }));
        match self.physical {
            None if physical_only => {
                Err("claims and disputes are acts of the physical deck (deck=physical)".into())
            }
            Some(_) if card_with_params => Err(
                "in the physical deck a card is played with a claim of its effect on the board"
                    .into(),
            ),
            _ => Ok(()),
        }
    }

    /// A claimed turn: a start card, then a card with its stated effect, a move citing a
    /// continuing effect, or what a trap the envelope springs did.
    pub(in super::super) fn claim_turn(
        &self,
        s: &mut State,
        side: Color,
        c: &Claim,
        opened: &mut Opened,
        ctx: &ActCtx<'_>,
        parts: &mut AppliedParts,
    ) -> Result<(), Violation> {
        if let Pending::Answer { .. } = s.pending {
            return Err("an interception must be answered first".into());
        }
        self.turn_start(s, side, c.start.as_ref(), opened, parts)?;
        let before = s.board.clone();
        let number = self.claimed_card(s, side, c, opened, None)?;
        let procedure = number.and_then(|n| self.card(n));
        if let Some(card) = procedure
            && !card.timing().is_own_move()
        {
            return Err(format!(
                "card {} is not played with one's own move: its procedure is an act of its own",
                card.number()
            )
            .into());
        }
        if c.card.is_none() && c.cite.is_none() && ctx.opened_values.is_empty() {
            return Err(
                "a claim states a card's effect, cites a continuing effect, \
                        or says what a trap sprung in this envelope did"
                    .into(),
            );
        }
        // The procedure's own part (a trap card seals its square); no card of the
        // physical deck redraws or shows through the flow.
        self.flow_with_move(s, side, procedure, &[], opened, ctx, parts)?;
        if c.edits.contains(&Edit::ShowHand) {
            // A card of the player's that makes the opponent show his hand: the
            // procedure of the open deck's show-hand (spec/GAMES.md §4.6.2 step 5).
            if !self.version_2 {
                return Err("a hand is shown only under protocol version 2".into());
            }
            s.owes_show = Some(!side);
        }
        let claimed = s.board.claim(side, &c.edits).map_err(fault)?;
        s.board = claimed.board;
        s.pending = Pending::Turn(Some(TurnMade {
            before,
            card: number,
            params: Params::none(),
            moves: c.moves(),
            edits: c.edits.clone(),
        }));
        self.end_of_turn(s, side, parts);
        if claimed.again && s.end.is_none() {
            // Another move: the opponent cannot intercept a turn that has not ended.
            s.to_act = side;
            s.pending = Pending::Turn(None);
        }
        Ok(())
    }

    /// A claimed answer to an interception (its checks against the intercepted turn are
    /// made by the caller, as for any answer).
    pub(in super::super) fn claim_answer(
        &self,
        s: &mut State,
        side: Color,
        c: &Claim,
        opened: &mut Opened,
        again: Option<u32>,
    ) -> Result<(), Violation> {
        if c.start.is_some() {
            return Err("a start card is played only in a turn".into());
        }
        let number = self.claimed_card(s, side, c, opened, again)?;
        if let Some(card) = number.and_then(|n| self.card(n))
            && card.effect().flow().is_some()
        {
            return Err(format!(
                "card {} does more than move: it cannot be played in an answer",
                card.number()
            )
            .into());
        }
        if number.is_none() && c.cite.is_none() {
            return Err("a claimed answer plays a card or cites a continuing effect".into());
        }
        let claimed = s.board.claim(side, &c.edits).map_err(fault)?;
        if claimed.again || c.edits.contains(&Edit::ShowHand) {
            return Err("an answer gives no extra move and asks for no hand".into());
        }
        s.board = claimed.board;
        Ok(())
    }

    /// The card and the citation of a claim: the card leaves the hand, the citation must
    /// name an effect that holds, and a continuing effect is recorded.
    fn claimed_card(
        &self,
        s: &mut State,
        side: Color,
        c: &Claim,
        opened: &mut Opened,
        again: Option<u32>,
    ) -> Result<Option<u32>, Violation> {
        check_note(&c.note).map_err(fault)?;
        if let Some(act) = c.cite {
            s.claims.cite(act, s.plies).map_err(fault)?;
        }
        let number = match c.card {
            Some(r) => Some(self.play_number(s, side, r, opened, again)?),
            None => None,
        };
        if c.lasting > 0 {
            if number.is_none() {
                return Err("only a card states a continuing effect".into());
            }
            if c.lasting > MAX_LASTING {
                return Err(format!("an effect lasts at most {MAX_LASTING} plies").into());
            }
            let act = s.claims.acts;
            s.claims.lasting.push(Lasting {
                act,
                side,
                card: number,
                until: s.plies + 1 + c.lasting,
                note: c.note.clone(),
            });
        }
        Ok(number)
    }

    /// `side` disputes the opponent's act `act`.
    pub(in super::super) fn dispute(
        &self,
        s: &mut State,
        side: Color,
        act: u32,
        note: &str,
    ) -> Result<(), Violation> {
        check_note(note).map_err(fault)?;
        s.claims.dispute(side, act, note, s.plies).map_err(fault)?;
        Ok(())
    }

    /// An offer to settle dispute `d` by these edits of the board as it stands.
    pub(in super::super) fn settle(
        &self,
        s: &mut State,
        d: u32,
        edits: &[Edit],
        note: &str,
    ) -> Result<(), Violation> {
        check_note(note).map_err(fault)?;
        s.claims.settle(d).map_err(fault)?;
        s.board = s.board.correct(edits).map_err(fault)?;
        Ok(())
    }

    /// The arbiter's ruling on dispute `d`, checked against his key and applied.
    pub(in super::super) fn ruling(
        &self,
        s: &mut State,
        ctx: &ActCtx<'_>,
        d: u32,
        edits: &[Edit],
        note: &str,
        signature: &[u8],
    ) -> Result<(), Violation> {
        let physical = self.physical.as_ref().ok_or("not the physical deck")?;
        let arbiter = physical
            .arbiter
            .as_ref()
            .ok_or("no arbiter was named: a dispute is settled by agreement only")?;
        check_note(note).map_err(fault)?;
        if !ruling_is_signed(arbiter, ctx.coin, d, edits, note, signature) {
            return Err(format!("the ruling on dispute {d} is not signed by the arbiter").into());
        }
        s.claims
            .rule(d, s.plies, physical.ruling_plies)
            .map_err(fault)?;
        s.board = s.board.correct(edits).map_err(fault)?;
        Ok(())
    }

    /// Whether dispute `d` lapsed: the terms name an arbiter and his time to rule has
    /// passed with no ruling. The claim then stands as if accepted: the claimant cannot
    /// make the arbiter rule, so his silence is held against nobody.
    pub fn lapsed(&self, s: &State, d: &super::claims::Dispute) -> bool {
        self.physical
            .as_ref()
            .is_some_and(|p| p.arbiter.is_some() && s.plies >= d.ply.saturating_add(p.ruling_plies))
    }

    /// Every dispute nothing closed, as an open claim against its claimant: the result
    /// stands but is not confirmed (spec/GAMES.md §4.20). A lapsed dispute is closed.
    pub fn open_disputes(&self, s: &State) -> Vec<Gap> {
        let Some(physical) = &self.physical else {
            return vec![];
        };
        s.claims
            .open()
            .filter(|(_, d)| !self.lapsed(s, d))
            .map(|(i, d)| {
                // While the game goes on the arbiter may still rule; once it is over,
                // no ruling came in time.
                let waiting = match (physical.arbiter.as_ref(), &s.end) {
                    (Some(_), None) => format!(
                        " (the arbiter may rule until ply {})",
                        d.ply.saturating_add(physical.ruling_plies)
                    ),
                    (Some(_), Some(_)) => " (no ruling came before the game ended)".into(),
                    (None, _) => String::new(),
                };
                Gap {
                    against: seat(d.claimant),
                    what: format!(
                        "dispute {i} of act {} is open{waiting}: {}",
                        d.act,
                        if d.note.is_empty() {
                            "no reason given"
                        } else {
                            &d.note
                        }
                    ),
                }
            })
            .collect()
    }
}
