//! A random-legal Tempête bot, for demos and tests: it plays cards from its real hand
//! (its session knows its dealt slots), intercepts and answers, seals trap squares and
//! springs them when an enemy piece lands there. Never an illegal act: every choice is
//! taken from what the board and the flow allow.

use sealed_protocol::session::{Command, Session};

use crate::chess::Color;

use super::act::{Act, Answer, CardRef, CardUse, Claim, StartCard, WireMove};
use super::board::Board;
use super::card::{Card, Effect, FlowEffect, Moment};
use super::effects::Params;
use super::holding::{answer_plays, command, hand, opens, sprung, traps_to_open};
use super::physical::Edit;
use super::rules::{Tempete, deck_name, trap_name};
use super::state::{Pending, color};

/// In the physical deck the bot states what it plays plainly: a card's effect is the
/// move it makes with it. Bots never dispute: they accept every claim (the demo).
const BOT_NOTE: &str = "the bot states: the moves as written";

/// An answer playing the intercepted turn's card again with `moves`: in the physical
/// deck a claim of those moves, in the open deck the card with its moves.
fn again_with(physical: bool, moves: Vec<WireMove>) -> Act {
    if physical {
        return Act::Answer(Answer::Claimed(Claim {
            card: Some(CardRef::Again),
            edits: moves.iter().map(edit_of).collect(),
            note: BOT_NOTE.into(),
            ..Claim::default()
        }));
    }
    Act::Answer(Answer::Replay {
        card: Some(CardUse::new(CardRef::Again, &Params::none())),
        moves,
    })
}

fn edit_of(m: &WireMove) -> Edit {
    Edit::Move {
        from: m.from,
        to: m.to,
        promotion: m.promotion,
    }
}

/// A small deterministic chooser.
struct Pick(u64);

impl Pick {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n.max(1) as u64) as usize
    }
}

/// What the random bot does now, with the hand it owes shown (a show-hand card was
/// played against it).
pub fn choice(s: &Session<Tempete>, pick: u64) -> Option<Command> {
    let mut cmd = decide(s, pick)?;
    super::holding::add_shows(s, &mut cmd);
    Some(cmd)
}

fn decide(s: &Session<Tempete>, pick: u64) -> Option<Command> {
    if s.engine().to_act() != Some(s.seat()) {
        return None;
    }
    let st = s.engine().state()?;
    let side = color(s.seat());
    let mut rng = Pick(pick);
    let my_hand = hand(s);
    if let Some(cmd) = intercept_or_answer(s, &my_hand, &mut rng) {
        return Some(cmd);
    }
    // A turn: this seat's traps that an enemy piece landed on spring first.
    let mut springs = traps_to_open(s, &st.board);
    let board = match sprung(s, &st.board, &springs) {
        Some(b) => b,
        None => {
            springs.clear();
            st.board.clone()
        }
    };
    let mut cmd = turn(s, &board, side, &my_hand, &mut rng, &springs)?;
    if is_yield(&cmd) {
        // Only a turn springs traps, and a yield is judged on the board as it stands:
        // when the springs alone leave no move, the turn is made without them (a
        // yield would be refused while a plain move exists), else the yield goes bare.
        // Found by the node soak: a yield carrying springs was refused, and the bot
        // offered it again for ever.
        return turn(s, &st.board, side, &my_hand, &mut rng, &[]);
    }
    if let Command::Act { open_values, .. } = &mut cmd {
        *open_values = springs;
    }
    Some(cmd)
}

fn is_yield(cmd: &Command) -> bool {
    matches!(cmd, Command::Act { act, .. }
        if matches!(sealed_protocol::wire::decode::<Act>(act, 256), Ok(Act::Yield)))
}

/// An answer when one is due; now and then an interception when one is possible.
fn intercept_or_answer(
    s: &Session<Tempete>,
    my_hand: &[(CardRef, Card)],
    rng: &mut Pick,
) -> Option<Command> {
    let st = s.engine().state()?;
    let find = |f: &dyn Fn(&Card) -> bool| my_hand.iter().find(|(_, c)| f(c)).cloned();
    match &st.pending {
        Pending::Answer { turn, by, second } => {
            if let Some((r, _)) = find(&|c| c.effect() == Effect::Cancel)
                && rng.below(2) == 0
            {
                let act = Act::Answer(Answer::Cancel {
                    card: CardUse::new(r, &Params::none()),
                });
                return Some(command(&act, opens(r)));
            }
            let rules = s.engine().rules();
            let physical = rules.physical.is_some();
            // The second move hit: the first stands, another second move is due (the
            // rules let any answer through only when there is none).
            let others = if *second {
                rules.other_second_moves(turn)
            } else {
                vec![]
            };
            if let (Some(first), Some(other)) =
                (turn.moves.first(), others.get(rng.below(others.len())))
            {
                let act = again_with(physical, vec![WireMove::of(first), WireMove::of(other)]);
                return Some(command(&act, vec![]));
            }
            let made: Vec<WireMove> = turn.moves.iter().map(WireMove::of).collect();
            let plays = answer_plays(&st.board, turn, *by);
            let Some(play) = plays.get(rng.below(plays.len())) else {
                // The intercepted move was the only one: nothing is left but to yield.
                return Some(command(&Act::Yield, vec![]));
            };
            let moves: Vec<WireMove> = play.moves.iter().map(WireMove::of).collect();
            // A double move replaced whole: now and then keep the card, or play it
            // again starting with another move (the seed's card 18 options).
            let double = rules
                .double_move_card(turn)
                .filter(|_| *by == FlowEffect::ReplaceMove);
            if let Some(card) = double {
                match rng.below(3) {
                    0 => {
                        let act = Act::Answer(Answer::Keep { moves });
                        return Some(command(&act, vec![]));
                    }
                    1 => {
                        let replays: Vec<_> = st
                            .board
                            .legal_plays(Some(card))
                            .into_iter()
                            .filter(|p| p.moves.first().map(WireMove::of).as_ref() != made.first())
                            .collect();
                        if let Some(p) = replays.get(rng.below(replays.len())) {
                            let act =
                                again_with(physical, p.moves.iter().map(WireMove::of).collect());
                            return Some(command(&act, vec![]));
                        }
                    }
                    _ => {}
                }
            }
            let act = Act::Answer(Answer::Replay { card: None, moves });
            Some(command(&act, vec![]))
        }
        Pending::Turn(Some(turn)) => {
            let cancel = turn.card.is_some();
            // A double move is a target of choice: a replace-move card goes first, since
            // it may hit the second move alone, and it is intercepted more often.
            let double = s.engine().rules().double_move_card(turn).is_some();
            let (r, c) = find(&|c| c.effect() == Effect::ReplaceMove)
                .filter(|_| double)
                .or_else(|| {
                    find(&|c| {
                        c.effect() == Effect::ReplaceMove
                            || (cancel && c.effect() == Effect::Cancel)
                    })
                })?;
            (rng.below(if double { 2 } else { 4 }) == 0).then(|| {
                let card = CardUse::new(r, &Params::none());
                let second = c.effect() == Effect::ReplaceMove && double && rng.below(2) == 0;
                let act = if second {
                    Act::InterceptSecond { card }
                } else {
                    Act::Intercept { card }
                };
                command(&act, opens(r))
            })
        }
        Pending::Turn(None) => None,
    }
}

fn turn(
    s: &Session<Tempete>,
    board: &Board,
    side: Color,
    my_hand: &[(CardRef, Card)],
    rng: &mut Pick,
    springs: &[(sealed_protocol::ids::Name, u32)],
) -> Option<Command> {
    let st = s.engine().state()?;
    let physical = s.engine().rules().physical.is_some();
    let mut open_slots = vec![];
    let mut start = None;
    let mut used = vec![];
    // A start card now and then: take the opponent's card, or pick after a loss.
    if rng.below(3) == 0 {
        for (r, c) in my_hand {
            if c.effect() == Effect::TakePlayed
                && board.check_timing(side, c, Moment::TurnStart).is_ok()
                && let Some(n) = st.hand(side).takeable.first()
            {
                start = Some(StartCard::Take {
                    card: *r,
                    number: *n,
                });
            } else if c.effect() == Effect::PickUnplayed
                && board.check_timing(side, c, Moment::AfterLoss).is_ok()
            {
                let known: Vec<u32> = s
                    .engine()
                    .dealt(s.seat(), &deck_name())
                    .into_iter()
                    .chain(s.engine().granted(s.seat(), &deck_name()))
                    .collect();
                let n = s.engine().rules().n();
                if let Some(slot) = (0..n).find(|x| !known.contains(x)) {
                    start = Some(StartCard::Pick { card: *r, slot });
                }
            }
            if start.is_some() {
                open_slots.extend(opens(*r));
                used.push(*r);
                break;
            }
        }
    }
    let rest: Vec<&(CardRef, Card)> = my_hand.iter().filter(|(r, _)| !used.contains(r)).collect();
    let mut commit_values = vec![];
    let mut discard = vec![];
    let mut chosen: Option<(CardRef, Params, Vec<WireMove>)> = None;
    if rng.below(2) == 0 && !rest.is_empty() {
        let (r, c) = rest[rng.below(rest.len())];
        let flow = c.effect().flow();
        let slots_left: Vec<u32> = rest
            .iter()
            .filter_map(|(x, _)| match x {
                CardRef::Slot(sl) if x != r => Some(*sl),
                _ => None,
            })
            .collect();
        let ok = match flow {
            Some(FlowEffect::ShowHand) => s.engine().rules().version_2,
            Some(FlowEffect::Redraw(n)) => slots_left.len() >= usize::from(n),
            _ => c.timing().is_own_move(),
        };
        if ok {
            // A stated card's effect is the bot's to state: a plain move.
            let stated = c.effect() == Effect::Stated;
            let plays = board.legal_plays((!stated).then_some(c));
            if let Some(p) = plays.get(rng.below(plays.len())) {
                if let Some(FlowEffect::Redraw(n)) = flow {
                    discard = slots_left[..usize::from(n)].to_vec();
                }
                if let Some(FlowEffect::SealTrapSquare(_)) = flow {
                    let index = st.hand(side).traps.len() as u32;
                    commit_values.push((trap_name(), index, vec![rng.below(64) as u8]));
                }
                // The card's slot, then the discarded ones: the order the typed
                // notation gives them in.
                open_slots.extend(opens(*r));
                open_slots.extend(discard.iter().map(|d| (deck_name(), *d)));
                chosen = Some((
                    *r,
                    p.params.clone(),
                    p.moves.iter().map(WireMove::of).collect(),
                ));
            }
        }
    }
    let played = chosen.as_ref().map(|(r, _, _)| *r);
    let (card, moves) = match chosen {
        Some((r, params, moves)) => (Some(CardUse::new(r, &params)), moves),
        None => {
            let plays = board.legal_plays(None);
            if plays.is_empty() {
                return Some(command(&Act::Yield, vec![]));
            }
            let p = &plays[rng.below(plays.len())];
            (None, p.moves.iter().map(WireMove::of).collect())
        }
    };
    let act = if physical && (played.is_some() || !springs.is_empty()) {
        // The seed's trap takes the piece: the bot states that, then its move.
        let traps = super::holding::sealed_traps(s);
        // One removal a square: a `freeze` and a `remove` sealed on one square both
        // spring, and a second removal of the square would be refused.
        let mut edits: Vec<Edit> = vec![];
        for (_, t) in springs
            .iter()
            .filter_map(|(_, i)| traps.iter().find(|(j, _)| j == i))
        {
            let remove = Edit::Remove {
                square: t.square.index(),
            };
            if !edits.contains(&remove) {
                edits.push(remove);
            }
        }
        edits.extend(moves.iter().map(edit_of));
        Act::Claim(Claim {
            start,
            card: played,
            edits,
            note: BOT_NOTE.into(),
            ..Claim::default()
        })
    } else {
        Act::Turn {
            start,
            card,
            moves,
            discard,
        }
    };
    let mut cmd = command(&act, open_slots);
    if let Command::Act {
        commit_values: cv, ..
    } = &mut cmd
    {
        *cv = commit_values;
    }
    Some(cmd)
}
