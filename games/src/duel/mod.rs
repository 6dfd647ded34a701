//! Duel: the smallest game that uses every primitive of the protocol, kept as the
//! conformance game of the spec and as the model for real games.
//!
//! Each player owns a secret deck of the cards `1..=cards`, dealt blindly by the other
//! player; the joint coin picks who leads first. A round: the leader plays a card from
//! hand, the follower answers with one; the higher card takes the round and leads the
//! next (a tie keeps the leader). After each round both hands are refilled by one blind
//! deal while cards remain. After `cards` rounds the player who took more rounds wins.

mod score;
mod table;

use serde::{Deserialize, Serialize};

use sealed_protocol::derive;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{Name, Seat};
use sealed_protocol::outcome::Outcome;
use sealed_protocol::proposal::Terms;
use sealed_protocol::rules::{ActCtx, Applied, DeckSpec, OptionError, Owe, Rules, Violation};

pub use score::{replay, score_text};
pub use table::DuelError;

/// The variant name.
pub const VARIANT: &str = "duel";

/// The game, as the registry lists it.
pub const DESCRIPTOR: crate::table::Descriptor = crate::table::Descriptor::of::<Duel>(
    "a card duel: each round both play a card from a secret hand; the higher card takes the round",
    &[
        crate::table::Setting {
            key: "cards",
            values: &[],
            default: "9",
            example: "9",
            about: "cards per deck (numbered 1 to cards), and the number of rounds; 2 to 64",
        },
        crate::table::Setting {
            key: "hand",
            values: &[],
            default: "3",
            example: "3",
            about: "opening hand size, 1 to cards",
        },
    ],
    &[],
    replay,
);

/// The deck name every player uses.
pub fn deck() -> Name {
    Name::new("cards").expect("static name is valid")
}

/// Duel with its options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Duel {
    /// Cards per deck (2..=64), also the number of rounds.
    pub cards: u32,
    /// Opening hand size (1..=cards).
    pub hand: u32,
}

impl Default for Duel {
    fn default() -> Self {
        Duel { cards: 9, hand: 3 }
    }
}

/// The public state of a game of Duel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// Who leads the current round.
    pub leader: Seat,
    /// Rounds completed.
    pub round: u32,
    /// The card led in the current round, once led.
    pub led: Option<u32>,
    /// Rounds taken by each player.
    pub taken: [u32; 2],
    /// Every round so far: (leader, leader's card, follower's card).
    pub history: Vec<(Seat, u32, u32)>,
}

/// A Duel act.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Act {
    /// Play the card in this slot of one's own deck (opened in the same envelope).
    Play {
        /// The slot.
        slot: u32,
    },
}

/// The other player.
pub fn other(seat: Seat) -> Seat {
    Seat(1 - seat.0)
}

impl Duel {
    /// Reads the options: `cards` and `hand`, both optional.
    pub fn from_options(options: &[(Name, String)]) -> Result<Self, OptionError> {
        let mut d = Duel::default();
        for (k, v) in options {
            // The key first: an unknown option is named as such whatever its value.
            let field = match k.as_str() {
                "cards" => &mut d.cards,
                "hand" => &mut d.hand,
                _ => return Err(OptionError(format!("duel has no option {k}"))),
            };
            *field = v
                .parse()
                .map_err(|_| OptionError(format!("option {k}: {v:?} is not a number")))?;
        }
        if !(2..=64).contains(&d.cards) {
            return Err(OptionError("cards must be 2 to 64".into()));
        }
        if d.hand == 0 || d.hand > d.cards {
            return Err(OptionError("hand must be 1 to cards".into()));
        }
        Ok(d)
    }

    /// The options as proposal text.
    pub fn options(&self) -> Vec<(Name, String)> {
        vec![
            (Name::new("cards").expect("valid"), self.cards.to_string()),
            (Name::new("hand").expect("valid"), self.hand.to_string()),
        ]
    }

    /// The first leader, from the coin.
    pub fn first_leader(coin: &Hash) -> Seat {
        Seat(derive::stream(coin, "duel/leader").below(2) as u8)
    }

    /// Plays one card on the public state (shared by the rules and the score replay).
    pub fn play(&self, state: &State, seat: Seat, card: u32) -> Result<(State, bool), Violation> {
        if !(1..=self.cards).contains(&card) {
            return Err(format!("card {card} is not in 1..={}", self.cards).into());
        }
        let mut s = state.clone();
        match s.led {
            None => {
                s.led = Some(card);
                Ok((s, false))
            }
            Some(led) => {
                let leader = s.leader;
                if card > led {
                    s.taken[seat.index()] += 1;
                    s.leader = seat;
                } else if card < led {
                    s.taken[leader.index()] += 1;
                }
                s.history.push((leader, led, card));
                s.led = None;
                s.round += 1;
                Ok((s, true))
            }
        }
    }

    /// The result once every round is played.
    pub fn result(&self, state: &State) -> Option<Outcome> {
        if state.round < self.cards {
            return None;
        }
        let [a, b] = state.taken;
        let why = format!("rounds taken {a}-{b}");
        Some(match a.cmp(&b) {
            std::cmp::Ordering::Greater => Outcome::win(2, Seat(0), why),
            std::cmp::Ordering::Less => Outcome::win(2, Seat(1), why),
            std::cmp::Ordering::Equal => Outcome::draw(2, why),
        })
    }

    /// Who plays next.
    pub fn next(&self, state: &State) -> Option<Seat> {
        if state.round >= self.cards {
            None
        } else if state.led.is_none() {
            Some(state.leader)
        } else {
            Some(other(state.leader))
        }
    }
}

impl Rules for Duel {
    type State = State;
    type Act = Act;

    fn from_terms(terms: &Terms) -> Result<Self, OptionError> {
        if terms.players() != 2 {
            return Err(OptionError("duel is for two players".into()));
        }
        Duel::from_options(&terms.proposal().rule_options())
    }

    fn decks(&self) -> Vec<DeckSpec> {
        (0..2)
            .map(|p| DeckSpec {
                owner: Seat(p),
                name: deck(),
                cards: (1..=self.cards).collect(),
                dealer: other(Seat(p)),
            })
            .collect()
    }

    fn opening_deals(&self) -> Vec<Owe> {
        (0..2)
            .map(|p| Owe {
                dealer: other(Seat(p)),
                owner: Seat(p),
                deck: deck(),
                count: self.hand,
            })
            .collect()
    }

    fn start(&self, coin: &Hash) -> State {
        State {
            leader: Duel::first_leader(coin),
            round: 0,
            led: None,
            taken: [0, 0],
            history: vec![],
        }
    }

    fn decode_act(&self, bytes: &[u8]) -> Result<Act, Violation> {
        sealed_protocol::wire::decode(bytes, 64).map_err(|e| Violation(format!("duel act: {e}")))
    }

    fn to_act(&self, state: &State) -> Option<Seat> {
        self.next(state)
    }

    fn apply(
        &self,
        state: &State,
        seat: Seat,
        act: &Act,
        ctx: &ActCtx<'_>,
    ) -> Result<Applied<State>, Violation> {
        let Act::Play { slot } = act;
        // The card must be shown in the very envelope that plays it, and nothing else:
        // that is what lets the other player check the entitlement at once.
        let card = match ctx.opened_slots {
            [o] if o.slot == *slot && o.deck == deck() => o.card,
            _ => return Err("a play opens exactly the slot it plays".into()),
        };
        let (next, round_done) = self.play(state, seat, card)?;
        let mut applied = Applied::state(next);
        if round_done && self.hand + applied.state.round <= self.cards {
            applied.owe = (0..2)
                .map(|p| Owe {
                    dealer: other(Seat(p)),
                    owner: Seat(p),
                    deck: deck(),
                    count: 1,
                })
                .collect();
        }
        applied.outcome = self.result(&applied.state);
        Ok(applied)
    }
}

/// A bot: plays a uniformly chosen card from hand, using `pick` (a number from the
/// caller's seeded random source) to choose.
pub fn bot_choice(hand: &[(u32, u32)], pick: u64) -> Option<u32> {
    if hand.is_empty() {
        return None;
    }
    Some(hand[(pick % hand.len() as u64) as usize].0)
}

/// The act bytes of playing a slot.
pub fn play_bytes(slot: u32) -> Vec<u8> {
    sealed_protocol::wire::encode(&Act::Play { slot })
}
