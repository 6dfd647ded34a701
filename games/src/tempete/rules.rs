//! Tempête on the protocol: the seed's flow with the referee replaced.
//!
//! Over 800 lines on purpose: it is one `Rules` implementation (the seed's whole turn
//! flow: deals, openings, traps, interceptions, answers), whose phases hand state to one
//! another; the pure parts (board, effects, acts, state), the options and the physical
//! deck's acts (`options.rs`, `physical/`) already live in their own files.
//!
//! Each player owns a secret deck of the agreed card list; the *other* player deals its
//! slots blindly (opening hands, then refills at the end of each of his turns), so the
//! owner learns his cards and nobody else does. A card is played by opening its slot in
//! the very envelope that plays it: the engine's ledger refuses a slot never dealt, a
//! slot used twice, a number opened from two slots and a number off the list, so an
//! unentitled card is a proven fault at once and its player loses (the default
//! adjudication of `Rules`). Secret squares (cards 12 and 28) are sealed values, opened
//! by their owner in his act right after an enemy piece lands on them; opening a square
//! nobody landed on breaks a rule, so a wrong square loses too.
//!
//! The seed's reply rules: after a turn the opponent either intercepts it or makes his
//! own turn (which lets the first stand); after an interception the intercepted player
//! answers; after an answer the interceptor makes a turn. Every rule reads only the
//! public state, so the acts form one chain (`Rules::to_act`).

use std::sync::Arc;

use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{Name, Seat};
use sealed_protocol::outcome::Outcome;
use sealed_protocol::proposal::Terms;
use sealed_protocol::rules::{
    ActCtx, Applied, DeckSpec, Grant, OptionError, Owe, Rules, Violation,
};

use crate::chess::{Color, Move, Position, Square};

use super::act::{Act, Answer, CardRef, CardUse, StartCard, moves};
use super::board::{Board, Trap};
use super::card::{Card, Effect, FlowEffect, Moment};
use super::deck::Deck;
use super::effects::Params;
use super::physical::{self, Physical};
use super::state::{Hand, Pending, State, TurnMade, color, seat};

/// The variant name.
pub const VARIANT: &str = "tempete";

/// The name of every player's deck.
pub fn deck_name() -> Name {
    Name::new("cards").expect("static name is valid")
}

/// The name of the sealed trap squares.
pub fn trap_name() -> Name {
    Name::new("trap").expect("static name is valid")
}

/// Tempête with its options.
#[derive(Clone, Debug)]
pub struct Tempete {
    /// The card definitions (the built-in open deck).
    pub deck: Arc<Deck>,
    /// The agreed list of card numbers (`cards`): N is its length.
    pub list: Vec<u32>,
    /// Cards in a full hand (`hand`, default 5).
    pub hand: u32,
    /// Turns and answers after which the game is drawn (`ply-limit`, 0 = none).
    pub ply_limit: u32,
    /// The physical deck's terms (`deck=physical`); `None`: the open deck.
    pub physical: Option<Physical>,
    /// Protocol version 2: a card can be shown without being played, so only then is a
    /// `show-hand` card playable (super::show); and in the physical deck an act posting
    /// the arbiter's ruling accepts nothing (draft 5), so a player's node may post it.
    pub version_2: bool,
}

impl Default for Tempete {
    fn default() -> Self {
        let deck = Deck::open_shared();
        Tempete {
            // The seed's numbers: a card of ours numbered past them (73) is played
            // only when `cards` lists it, so the default list never changes.
            list: deck.numbers().into_iter().filter(|n| *n <= 72).collect(),
            deck,
            hand: 5,
            ply_limit: 0,
            physical: None,
            version_2: false,
        }
    }
}

impl Tempete {
    /// The card with this number, if it is on the agreed list.
    pub fn card(&self, number: u32) -> Option<&Card> {
        self.list
            .contains(&number)
            .then(|| self.deck.card(number))
            .flatten()
    }

    /// N: the number of cards on the list.
    pub fn n(&self) -> u32 {
        self.list.len() as u32
    }
}

/// The slots an envelope opens, as the act names them: each must be named exactly once.
pub(super) struct Opened {
    slots: Vec<(u32, u32)>,
}

impl Opened {
    pub(super) fn new(ctx: &ActCtx<'_>) -> Result<Opened, Violation> {
        let deck = deck_name();
        if let Some(o) = ctx.opened_slots.iter().find(|o| o.deck != deck) {
            return Err(format!("tempete has no deck {}", o.deck).into());
        }
        Ok(Opened {
            slots: ctx.opened_slots.iter().map(|o| (o.slot, o.card)).collect(),
        })
    }

    /// The card in `slot`, which this envelope opens; each slot is taken once.
    pub(super) fn take(&mut self, slot: u32) -> Result<u32, Violation> {
        let i = self
            .slots
            .iter()
            .position(|(s, _)| *s == slot)
            .ok_or_else(|| Violation(format!("slot {slot} is played but not opened")))?;
        Ok(self.slots.swap_remove(i).1)
    }

    pub(super) fn done(self) -> Result<(), Violation> {
        match self.slots.first() {
            Some((s, _)) => Err(format!("slot {s} is opened but not played").into()),
            None => Ok(()),
        }
    }
}

impl Tempete {
    /// Resolves a played card to its definition, taking it out of the hand.
    fn play_card(
        &self,
        s: &mut State,
        side: Color,
        r: CardRef,
        opened: &mut Opened,
        again: Option<u32>,
    ) -> Result<&Card, Violation> {
        let number = self.play_number(s, side, r, opened, again)?;
        self.card(number)
            .ok_or_else(|| Violation(format!("card {number} is not on the list")))
    }

    /// Takes a played card out of the hand: its number, on the agreed list.
    pub(super) fn play_number(
        &self,
        s: &mut State,
        side: Color,
        r: CardRef,
        opened: &mut Opened,
        again: Option<u32>,
    ) -> Result<u32, Violation> {
        let number = match r {
            CardRef::Slot(slot) => opened.take(slot)?,
            CardRef::Taken(n) => {
                let taken = &mut s.hand_mut(side).taken;
                let i = taken
                    .iter()
                    .position(|t| *t == n)
                    .ok_or_else(|| Violation(format!("card {n} was never taken")))?;
                taken.swap_remove(i);
                n
            }
            CardRef::Again => again.ok_or("no card of an intercepted turn to play again")?,
        };
        if r != CardRef::Again {
            let hand = s.hand_mut(side);
            hand.size = hand
                .size
                .checked_sub(1)
                .ok_or("a card played from an empty hand")?;
            s.hand_mut(!side).takeable.push(number);
        }
        if !self.list.contains(&number) {
            return Err(format!("card {number} is not on the list").into());
        }
        Ok(number)
    }

    /// Springs the traps `side` opens in this envelope (on the ply just made).
    fn spring_traps(&self, s: &mut State, side: Color, ctx: &ActCtx<'_>) -> Result<(), Violation> {
        for (name, index, value) in ctx.opened_values {
            if *name != trap_name() {
                return Err(format!("tempete seals no value {name}").into());
            }
            let effect = *s
                .hand(side)
                .traps
                .get(*index as usize)
                .ok_or_else(|| Violation(format!("no trap {index} was sealed")))?;
            let square = match value.as_slice() {
                [i] => Square::from_index(*i),
                _ => None,
            }
            .ok_or("a trap square is one byte, a1 = 0 to h8 = 63")?;
            let trap = Trap {
                owner: side,
                square,
                effect,
            };
            // In the physical deck the engine checks the landing only: what the trap
            // does is the owner's to state in the act's edits.
            let sprung = match self.physical {
                Some(_) => s.board.trap_lands(&trap).map(|()| s.board.clone()),
                None => s.board.spring_trap(trap),
            };
            s.board = sprung.map_err(|e| Violation(format!("trap {index}: {e}")))?;
            s.hand_mut(side).sprung += 1;
        }
        Ok(())
    }

    /// Refills the opponent's hand at the end of `side`'s turn or answer.
    fn refill(&self, s: &mut State, side: Color, owe: &mut Vec<Owe>) {
        let n = self.n();
        let hand = s.hand_mut(!side);
        let count = self
            .hand
            .saturating_sub(hand.size)
            .min(n.saturating_sub(hand.given));
        if count > 0 {
            hand.size += count;
            hand.given += count;
            owe.push(Owe {
                dealer: seat(side),
                owner: seat(!side),
                deck: deck_name(),
                count,
            });
        }
    }

    /// A turn: start card, card with the move, moves, discards.
    #[allow(clippy::too_many_arguments)]
    fn turn(
        &self,
        s: &mut State,
        side: Color,
        start: Option<&StartCard>,
        card: Option<&CardUse>,
        wire_moves: &[super::act::WireMove],
        discard: &[u32],
        opened: &mut Opened,
        ctx: &ActCtx<'_>,
        applied: &mut AppliedParts,
    ) -> Result<(), Violation> {
        if let Pending::Answer { .. } = s.pending {
            return Err("an interception must be answered first".into());
        }
        self.turn_start(s, side, start, opened, applied)?;
        let before = s.board.clone();
        let (number, params) = self.board_play(s, side, card, wire_moves, opened, None, false)?;
        let card_def = number.and_then(|n| self.card(n));
        self.flow_with_move(s, side, card_def, discard, opened, ctx, applied)?;
        s.pending = Pending::Turn(Some(TurnMade {
            before,
            card: number,
            params,
            moves: moves(wire_moves).map_err(|e| Violation(e.to_string()))?,
            edits: vec![],
        }));
        Ok(())
    }

    /// The start of a turn: what card 34 may take is fixed now, and a start card (34's
    /// or 57's kind) is played.
    pub(super) fn turn_start(
        &self,
        s: &mut State,
        side: Color,
        start: Option<&StartCard>,
        opened: &mut Opened,
        applied: &mut AppliedParts,
    ) -> Result<(), Violation> {
        let takeable = std::mem::take(&mut s.hand_mut(side).takeable);
        if let Some(st) = start {
            match st {
                StartCard::Take { card, number } => {
                    let c = self.play_card(s, side, *card, opened, None)?;
                    s.board
                        .check_timing(side, c, Moment::TurnStart)
                        .map_err(|e| Violation(e.to_string()))?;
                    if c.effect().flow() != Some(FlowEffect::TakePlayed) {
                        return Err(format!("card {} takes no card", c.number()).into());
                    }
                    if !takeable.contains(number) {
                        return Err(format!(
                            "card {number} was not played by the opponent since your last turn"
                        )
                        .into());
                    }
                    let hand = s.hand_mut(side);
                    hand.taken.push(*number);
                    hand.size += 1;
                }
                StartCard::Pick { card, slot } => {
                    let c = self.play_card(s, side, *card, opened, None)?;
                    s.board
                        .check_timing(side, c, Moment::AfterLoss)
                        .map_err(|e| Violation(e.to_string()))?;
                    if c.effect().flow() != Some(FlowEffect::PickUnplayed) {
                        return Err(format!("card {} picks no card", c.number()).into());
                    }
                    if *slot >= self.n() {
                        return Err(format!("slot {slot} is not in the deck").into());
                    }
                    let hand = s.hand_mut(side);
                    hand.size += 1;
                    hand.given += 1;
                    applied.grant.push(Grant {
                        owner: seat(side),
                        deck: deck_name(),
                        slot: *slot,
                    });
                }
            }
        }
        Ok(())
    }

    /// The board part of a play: resolves the card and applies it with the moves.
    #[allow(clippy::too_many_arguments)]
    fn board_play(
        &self,
        s: &mut State,
        side: Color,
        card: Option<&CardUse>,
        wire_moves: &[super::act::WireMove],
        opened: &mut Opened,
        again: Option<u32>,
        answer: bool,
    ) -> Result<(Option<u32>, Params), Violation> {
        let mv: Vec<Move> = moves(wire_moves).map_err(|e| Violation(e.to_string()))?;
        let (number, params) = match card {
            None => {
                s.board = s
                    .board
                    .apply(side, None, &mv)
                    .map_err(|e| Violation(e.to_string()))?;
                (None, Params::none())
            }
            Some(u) => {
                let params = u.params().map_err(|e| Violation(e.to_string()))?;
                let c = self.play_card(s, side, u.card, opened, again)?.clone();
                // In an answer only what a card does on the board counts: a card that
                // also seals, discards or shows would need what only a turn carries.
                if answer && c.effect().flow().is_some() {
                    return Err(format!(
                        "card {} does more than move: it cannot be played in an answer",
                        c.number()
                    )
                    .into());
                }
                s.board = s
                    .board
                    .apply(side, Some((&c, &params)), &mv)
                    .map_err(|e| Violation(e.to_string()))?;
                (Some(c.number()), params)
            }
        };
        Ok((number, params))
    }

    /// What a card played with one's move does off the board: seal a trap square,
    /// discard and redraw.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn flow_with_move(
        &self,
        s: &mut State,
        side: Color,
        card: Option<&Card>,
        discard: &[u32],
        opened: &mut Opened,
        ctx: &ActCtx<'_>,
        applied: &mut AppliedParts,
    ) -> Result<(), Violation> {
        let flow = card.and_then(|c| c.effect().flow());
        let trap = trap_name();
        match flow {
            Some(FlowEffect::SealTrapSquare(effect)) => {
                let index = s.hand(side).traps.len() as u32;
                if ctx.committed_values != [(trap.clone(), index)] {
                    return Err(format!("a trap card seals exactly the square trap {index}").into());
                }
                s.hand_mut(side).traps.push(effect);
            }
            _ if !ctx.committed_values.is_empty() => {
                return Err("only a trap card seals a square".into());
            }
            _ => {}
        }
        match flow {
            Some(FlowEffect::Redraw(n)) => {
                if discard.len() != usize::from(n) {
                    return Err(format!("this card discards exactly {n} cards").into());
                }
                for slot in discard {
                    opened.take(*slot)?;
                }
                let hand = s.hand_mut(side);
                hand.size = hand
                    .size
                    .checked_sub(u32::from(n))
                    .ok_or("more cards discarded than held")?;
                let count = u32::from(n).min(self.n().saturating_sub(hand.given));
                hand.size += count;
                hand.given += count;
                if count > 0 {
                    applied.owe.push(Owe {
                        dealer: seat(!side),
                        owner: seat(side),
                        deck: deck_name(),
                        count,
                    });
                }
            }
            // Showing a hand shows slots without playing them, which protocol version 1
            // cannot express; there the card is refused before it is signed.
            Some(FlowEffect::ShowHand) if !self.version_2 => {
                return Err("show-hand cards cannot be played under protocol version 1".into());
            }
            // The opponent owes his hand, shown in his next act (`show`).
            Some(FlowEffect::ShowHand) => s.owes_show = Some(!side),
            _ if !discard.is_empty() => return Err("only a redraw card discards".into()),
            _ => {}
        }
        Ok(())
    }

    /// An interception of the opponent's turn just made: of the whole turn, or
    /// (`second`) of the second move of its double move.
    fn intercept(
        &self,
        s: &mut State,
        side: Color,
        card: &CardUse,
        second: bool,
        opened: &mut Opened,
    ) -> Result<(), Violation> {
        let Pending::Turn(Some(turn)) = s.pending.clone() else {
            return Err("there is no turn to intercept".into());
        };
        let c = self.play_card(s, side, card.card, opened, None)?.clone();
        let by = match c.effect().flow() {
            Some(FlowEffect::ReplaceMove) => {
                s.board
                    .check_timing(side, &c, Moment::OpponentMove)
                    .map_err(|e| Violation(e.to_string()))?;
                FlowEffect::ReplaceMove
            }
            Some(FlowEffect::CancelCard) => {
                s.board
                    .check_timing(side, &c, Moment::OpponentCard)
                    .map_err(|e| Violation(e.to_string()))?;
                if turn.card.is_none() {
                    return Err("the turn played no card to cancel".into());
                }
                FlowEffect::CancelCard
            }
            _ => return Err(format!("card {} cannot intercept", c.number()).into()),
        };
        if second {
            // The seed's choice of part is for a card that tells one to move again
            // (66) against a double move (18, 50); a cancel voids the card whole.
            if by != FlowEffect::ReplaceMove {
                return Err("only a replace-move card intercepts a second move".into());
            }
            if self.double_move_card(&turn).is_none() {
                return Err(
                    "the turn made no double move whose second move could be intercepted".into(),
                );
            }
        }
        if !card.squares.is_empty() || card.kind.is_some() {
            return Err("an interception names nothing".into());
        }
        s.board = turn.before.clone();
        s.pending = Pending::Answer { turn, by, second };
        s.to_act = !side;
        Ok(())
    }

    /// The answer to an interception of `side`'s turn.
    fn answer(
        &self,
        s: &mut State,
        side: Color,
        answer: &Answer,
        opened: &mut Opened,
    ) -> Result<(), Violation> {
        let Pending::Answer { turn, by, second } = s.pending.clone() else {
            return Err("there is no interception to answer".into());
        };
        // An interception of the second move binds the answer only while another second
        // move exists; without one it counts as an interception of the first part, so
        // the player is never left without an answer.
        let second =
            second && (self.physical.is_some() || !self.other_second_moves(&turn).is_empty());
        let double = self.double_move_card(&turn).is_some();
        match answer {
            Answer::Cancel { card } => {
                if !card.squares.is_empty() || card.kind.is_some() {
                    return Err("a cancelling card names nothing".into());
                }
                let c = self.play_card(s, side, card.card, opened, None)?;
                if c.effect() != Effect::Cancel {
                    return Err(format!("card {} cancels nothing", c.number()).into());
                }
                // The interception is void: the turn stands as it was made.
                s.board = if turn.edits.is_empty() {
                    turn.before
                        .apply(
                            side,
                            turn.card
                                .and_then(|n| self.card(n))
                                .map(|c| (c, &turn.params)),
                            &turn.moves,
                        )
                        .map_err(|e| Violation(e.to_string()))?
                } else {
                    turn.before
                        .claim(side, &turn.edits)
                        .map_err(|e| Violation(e.to_string()))?
                        .board
                };
            }
            Answer::Replay { .. } | Answer::Claimed(_) => {
                let (wanted, again, card_given) = match answer {
                    Answer::Replay { card, moves: mv } => (
                        moves(mv).map_err(|e| Violation(e.to_string()))?,
                        card.as_ref().is_some_and(|u| u.card == CardRef::Again),
                        card.is_some(),
                    ),
                    // A claimed answer is never a plain move.
                    Answer::Claimed(c) => (c.moves(), c.card == Some(CardRef::Again), true),
                    _ => unreachable!("matched above"),
                };
                let first_kept = match (wanted.first(), turn.moves.first()) {
                    (Some(a), Some(b)) => same_move(a, b),
                    _ => false,
                };
                if second {
                    let other = match (wanted.get(1), turn.moves.get(1)) {
                        (Some(a), Some(b)) => !same_move(a, b),
                        _ => false,
                    };
                    if !again || wanted.len() != 2 || !first_kept || !other {
                        return Err("the second move was intercepted: play the card again \
                                    with the same first move and another second move"
                            .into());
                    }
                } else if by == FlowEffect::CancelCard && card_given {
                    return Err("after a cancelled card the answer is a plain move".into());
                } else if by == FlowEffect::ReplaceMove && wanted == turn.moves {
                    return Err("the intercepted move must be replaced".into());
                } else if by == FlowEffect::ReplaceMove && double && again && first_kept {
                    // The seed: "two knight moves, the first one different from your
                    // original move"; keeping the first is the second part's answer.
                    return Err(
                        "the first move was intercepted: a double move played again \
                         starts with another move"
                            .into(),
                    );
                }
                match answer {
                    Answer::Replay { card, moves: mv } => {
                        self.board_play(s, side, card.as_ref(), mv, opened, turn.card, true)?;
                    }
                    Answer::Claimed(c) => self.claim_answer(s, side, c, opened, turn.card)?,
                    _ => unreachable!("matched above"),
                }
            }
            Answer::Keep { moves: mv } => {
                if by != FlowEffect::ReplaceMove {
                    return Err("a card is kept only after a replace-move interception".into());
                }
                if second {
                    return Err("the second move was intercepted: play the card again \
                                with the same first move and another second move"
                        .into());
                }
                let number = self
                    .double_move_card(&turn)
                    .map(Card::number)
                    .ok_or("only a double-move card is kept after an interception")?;
                s.board = s
                    .board
                    .apply(
                        side,
                        None,
                        &moves(mv).map_err(|e| Violation(e.to_string()))?,
                    )
                    .map_err(|e| Violation(e.to_string()))?;
                // Back to the hand, publicly: it is played later by number, like a
                // card taken with card 34 (its slot was spent when it was opened).
                let hand = s.hand_mut(side);
                hand.taken.push(number);
                hand.size += 1;
                // Kept, it was not played after all: card 34 cannot take it.
                let takeable = &mut s.hand_mut(!side).takeable;
                if let Some(i) = takeable.iter().position(|n| *n == number) {
                    takeable.remove(i);
                }
            }
        }
        Ok(())
    }

    /// The card of `turn` if it was a double move (`extra-move`, the seed's 18 and 50):
    /// the turn whose interception offers the seed's card 18 options.
    pub fn double_move_card(&self, turn: &TurnMade) -> Option<&Card> {
        turn.card
            .and_then(|n| self.card(n))
            .filter(|c| matches!(c.effect(), Effect::ExtraMove { .. }) && turn.moves.len() == 2)
    }

    /// The second moves an answer to an interception of `turn`'s second move may make:
    /// after the turn's first move, every move its double-move card allows other than
    /// the second one made, with the whole play accepted. Empty for any other turn.
    pub fn other_second_moves(&self, turn: &TurnMade) -> Vec<Move> {
        let Some(card) = self.double_move_card(turn) else {
            return vec![];
        };
        let [first, made] = turn.moves.as_slice() else {
            return vec![];
        };
        let side = turn.before.turn();
        let params = Params::none();
        turn.before
            .legal_plays(Some(card))
            .into_iter()
            .filter_map(|p| match p.moves.as_slice() {
                [a, b] if same_move(a, first) && !same_move(b, made) => {
                    let ok = turn.before.apply(side, Some((card, &params)), &p.moves);
                    ok.is_ok().then_some(*b)
                }
                _ => None,
            })
            .collect()
    }

    /// The end of a turn or answer: refill the opponent, count the ply, end the game at
    /// the ply limit.
    pub(super) fn end_of_turn(&self, s: &mut State, side: Color, applied: &mut AppliedParts) {
        self.refill(s, side, &mut applied.owe);
        s.plies += 1;
        s.to_act = !side;
        if self.ply_limit > 0 && s.plies >= self.ply_limit {
            s.end = Some(Outcome::draw(
                2,
                format!("the ply limit of {} was reached", self.ply_limit),
            ));
        }
    }
}

/// The parts of `Applied` besides the state.
#[derive(Default)]
pub(super) struct AppliedParts {
    pub(super) owe: Vec<Owe>,
    pub(super) grant: Vec<Grant>,
}

impl Rules for Tempete {
    type State = State;
    type Act = Act;

    fn from_terms(terms: &Terms) -> Result<Self, OptionError> {
        if terms.players() != 2 {
            return Err(OptionError("tempete is for two players".into()));
        }
        let version_2 = sealed_protocol::proposal::is_version_2(terms.version());
        Tempete::from_options(&terms.proposal().rule_options()).map(|t| Tempete { version_2, ..t })
    }

    fn decks(&self) -> Vec<DeckSpec> {
        [Color::White, Color::Black]
            .into_iter()
            .map(|c| DeckSpec {
                owner: seat(c),
                name: deck_name(),
                cards: self.list.clone(),
                dealer: seat(!c),
            })
            .collect()
    }

    fn opening_deals(&self) -> Vec<Owe> {
        [Color::White, Color::Black]
            .into_iter()
            .map(|c| Owe {
                dealer: seat(!c),
                owner: seat(c),
                deck: deck_name(),
                count: self.hand,
            })
            .collect()
    }

    fn start(&self, _coin: &Hash) -> State {
        let hand = Hand {
            size: self.hand,
            given: self.hand,
            ..Hand::default()
        };
        State {
            board: Board::new(Position::startpos()),
            to_act: Color::White,
            pending: Pending::Turn(None),
            hands: [hand.clone(), hand],
            plies: 0,
            end: None,
            claims: physical::Claims::default(),
            owes_show: None,
        }
    }

    fn decode_act(&self, bytes: &[u8]) -> Result<Act, Violation> {
        sealed_protocol::wire::decode(bytes, self.act_cap())
            .map_err(|e| Violation(format!("tempete act: {e}")))
    }

    fn open_claims(&self, s: &State) -> Vec<sealed_protocol::hidden::Gap> {
        self.open_disputes(s)
    }

    fn to_act(&self, s: &State) -> Option<Seat> {
        s.end.is_none().then(|| seat(s.to_act))
    }

    fn apply(
        &self,
        state: &State,
        who: Seat,
        act: &Act,
        ctx: &ActCtx<'_>,
    ) -> Result<Applied<State>, Violation> {
        let side = color(who);
        // The protocol hands over only acts of the seat to act; the rules say so
        // themselves too, so no caller can make one side act for the other.
        if side != state.to_act {
            return Err(format!(
                "it is {}'s act, not {}'s",
                side_name(state.to_act),
                side_name(side)
            )
            .into());
        }
        let mut s = state.clone();
        let mut opened = Opened::new(ctx)?;
        let mut parts = AppliedParts::default();
        self.fits_deck(act)?;
        if self.physical.is_some() {
            // A dispute answers nothing; under version 2 neither does a ruling, the
            // arbiter's word, which a player's node posts by itself.
            let ruling = self.version_2 && matches!(act, Act::Ruling { .. });
            s.claims
                .begin(side, ruling || matches!(act, Act::Dispute { .. }));
        }
        // Traps spring first, and only with a turn: they act on the ply the opponent
        // just made, which an interception or an answer would take back or replace.
        let turn = matches!(act, Act::Turn { .. } | Act::Claim(_));
        if turn {
            self.spring_traps(&mut s, side, ctx)?;
        } else if !ctx.opened_values.is_empty() {
            return Err("a trap square is opened only with a turn".into());
        }
        if !turn && !ctx.committed_values.is_empty() {
            return Err("only a turn with a trap card seals a square".into());
        }
        // A hand is shown only when owed, and in full (a show-hand card played against
        // this side): never otherwise.
        super::show::shows_owed(&mut s, side, ctx)?;
        let mut settles = None;
        match act {
            Act::Turn {
                start,
                card,
                moves: mv,
                discard,
            } => {
                self.turn(
                    &mut s,
                    side,
                    start.as_ref(),
                    card.as_ref(),
                    mv,
                    discard,
                    &mut opened,
                    ctx,
                    &mut parts,
                )?;
                self.end_of_turn(&mut s, side, &mut parts);
            }
            Act::Intercept { card } => self.intercept(&mut s, side, card, false, &mut opened)?,
            Act::InterceptSecond { card } => {
                self.intercept(&mut s, side, card, true, &mut opened)?;
            }
            Act::Answer(answer) => {
                self.answer(&mut s, side, answer, &mut opened)?;
                s.pending = Pending::Turn(None);
                self.end_of_turn(&mut s, side, &mut parts);
            }
            Act::Yield => {
                // After an interception that forbids the move made, that move is no
                // longer one of the player's options.
                let forbidden: Vec<Move> = match &s.pending {
                    Pending::Answer {
                        turn,
                        by: FlowEffect::ReplaceMove,
                        ..
                    } if turn.moves.len() == 1 => turn.moves.clone(),
                    _ => vec![],
                };
                let left = s
                    .board
                    .plain_moves()
                    .into_iter()
                    .filter(|m| {
                        !forbidden
                            .iter()
                            .any(|f| f.from == m.from && f.to == m.to && f.promotion == m.promotion)
                    })
                    .count();
                if left > 0 {
                    return Err("you have a legal move".into());
                }
                s.end = Some(if s.board.is_mated(side) {
                    Outcome::loss(2, who, format!("{} is mated", side_name(side)))
                } else {
                    Outcome::draw(2, format!("{} is stalemated", side_name(side)))
                });
            }
            Act::Claim(claim) => {
                self.claim_turn(&mut s, side, claim, &mut opened, ctx, &mut parts)?;
            }
            Act::Dispute { act, note } => self.dispute(&mut s, side, *act, note)?,
            Act::Settle {
                dispute,
                edits,
                note,
            } => {
                self.settle(&mut s, *dispute, edits, note)?;
                settles = Some(*dispute);
            }
            Act::Ruling {
                dispute,
                edits,
                note,
                signature,
            } => self.ruling(&mut s, ctx, *dispute, edits, note, signature)?,
        }
        opened.done()?;
        if self.physical.is_some() {
            let disputable = !matches!(act, Act::Dispute { .. } | Act::Ruling { .. });
            s.claims.finish(side, disputable, settles);
        }
        let outcome = s.end.clone();
        let mut applied = Applied::state(s);
        applied.outcome = outcome;
        applied.owe = parts.owe;
        applied.grant = parts.grant;
        Ok(applied)
    }
}

/// Whether two moves name the same move: from, to and promotion (the board decides the
/// kind, so a move read from the wire and the engine's own compare equal).
fn same_move(a: &Move, b: &Move) -> bool {
    a.from == b.from && a.to == b.to && a.promotion == b.promotion
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}
