//! The Duel adapter: its notation (and why it refuses words, [`DuelError`]), bot, board
//! and score for a live table.

use std::fmt::Write as _;

use sealed_protocol::ids::Seat;
use sealed_protocol::session::{Command, Session};

use super::Duel;

use crate::table::hand::{DuelCard, DuelHand};
use crate::table::{Automation, Choice, Face, Game, Hand};

fn duel_play(slot: u32) -> Command {
    Command::Act {
        show_slots: vec![],
        act: super::play_bytes(slot),
        open_slots: vec![(super::deck(), slot)],
        commit_values: vec![],
        open_values: vec![],
        open_draw: None,
    }
}

/// The hand sorted by card, as a person reads it.
fn duel_hand(s: &Session<Duel>) -> Vec<(u32, u32)> {
    let mut hand = s.hand(&super::deck());
    hand.sort_by_key(|(_, card)| *card);
    hand
}

fn duel_cards(hand: &[(u32, u32)]) -> String {
    let cards: Vec<u32> = hand.iter().map(|(_, c)| *c).collect();
    card_list(&cards)
}

/// Cards in a line, "none" when there are none.
fn card_list(cards: &[u32]) -> String {
    if cards.is_empty() {
        "none".into()
    } else {
        let cards: Vec<String> = cards.iter().map(u32::to_string).collect();
        cards.join(" ")
    }
}

/// Why a Duel move does not read: not a card, or a card not in hand.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DuelError {
    /// The words name no card.
    #[error("{0:?} is not a card: write play <card> or its number")]
    NotACard(String),
    /// The card is not in this seat's hand.
    #[error("card {card} is not in your hand (your hand: {})", card_list(.hand))]
    NotInHand {
        /// The card asked for.
        card: u32,
        /// The cards in hand, in order.
        hand: Vec<u32>,
    },
}

impl Game for Duel {
    const VARIANT: &'static str = super::VARIANT;

    fn ready(s: &Session<Self>, _state: &Self::State) -> bool {
        !s.hand(&super::deck()).is_empty()
    }
}

impl Face for Duel {
    fn side(_seat: Seat) -> Option<String> {
        None
    }

    fn prompt(_s: &Session<Self>, state: &Self::State) -> String {
        match state.led {
            None => "your move: lead a card".into(),
            Some(led) => format!("your move: answer the {led}"),
        }
    }

    type Error = DuelError;

    fn parse(s: &Session<Self>, _state: &Self::State, text: &str) -> Result<Command, DuelError> {
        let lower = text.to_lowercase();
        let number = lower.strip_prefix("play").map_or(lower.as_str(), str::trim);
        let card: u32 = number
            .parse()
            .map_err(|_| DuelError::NotACard(text.to_owned()))?;
        let hand = duel_hand(s);
        hand.iter()
            .find(|(_, c)| *c == card)
            .map(|(slot, _)| duel_play(*slot))
            .ok_or_else(|| DuelError::NotInHand {
                card,
                hand: hand.iter().map(|(_, c)| *c).collect(),
            })
    }

    fn hints(s: &Session<Self>, _state: &Self::State) -> Vec<String> {
        vec![format!("play <card>: {}", duel_cards(&duel_hand(s)))]
    }

    fn choices(s: &Session<Self>, _state: &Self::State) -> Vec<Choice> {
        duel_hand(s)
            .iter()
            .map(|(_, c)| Choice::button(format!("card {c}"), format!("play {c}")))
            .collect()
    }

    fn board(s: &Session<Self>, state: &Self::State) -> String {
        let rules = s.engine().rules();
        let mut out = String::new();
        let [a, b] = state.taken;
        match rules.next(state) {
            None => {
                let _ = writeln!(
                    out,
                    "all {} rounds played · rounds taken {a}-{b}",
                    rules.cards
                );
            }
            Some(_) => {
                let _ = writeln!(
                    out,
                    "round {} of {} · rounds taken {a}-{b} · {} leads{}",
                    state.round + 1,
                    rules.cards,
                    state.leader,
                    state.led.map(|c| format!(", led {c}")).unwrap_or_default()
                );
            }
        }
        for (i, (leader, led, answer)) in state.history.iter().enumerate() {
            let _ = writeln!(
                out,
                "  round {}: {leader} led {led}, {} answered {answer}",
                i + 1,
                super::other(*leader)
            );
        }
        out
    }

    fn hand(s: &Session<Self>) -> (Option<String>, Hand) {
        let hand = duel_hand(s);
        let cards = hand
            .iter()
            .map(|&(slot, card)| DuelCard { slot, card })
            .collect();
        (
            Some(format!("your hand: {}\n", duel_cards(&hand))),
            Hand::Duel(DuelHand { cards }),
        )
    }

    fn svg(_state: &Self::State) -> Option<String> {
        None
    }

    fn score(s: &Session<Self>, state: &Self::State, _acts: &[Self::Act]) -> Option<String> {
        // The state keeps every round's cards; the acts only name slots.
        let first = Duel::first_leader(s.engine().coin()?);
        let outcome = s.verdict().outcome;
        let ending = outcome
            .as_ref()
            .map(|o| (crate::table::pgn_tags::result(o), o.reason.as_str()));
        Some(super::score::score_text_ended(
            s.engine().rules(),
            first,
            state,
            ending,
        ))
    }
}

impl Automation for Duel {
    fn bot(s: &Session<Self>, _state: &Self::State, pick: u64) -> Option<Command> {
        super::bot_choice(&s.hand(&super::deck()), pick).map(duel_play)
    }
}
