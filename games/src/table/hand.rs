//! A seat's hand as the view carries it ([`TableView::hand`](super::TableView)): one
//! typed shape per game, gathered in [`Hand`]. The shapes live here, below the games,
//! because the view names them and every game's `Game::hand` builds one: the games
//! import the table, never the other way. In JSON a hand is its shape alone
//! (`#[serde(untagged)]`), as `mod.rs`'s `# show_json` table lists it; each shape
//! refuses keys it does not have, so that reading a hand back finds the shape that
//! wrote it.

use serde::{Deserialize, Serialize};

/// This seat's hand, in the game's own shape.
///
/// The variants are tried in this order when a hand is read back: the ones whose keys
/// are a subset of a later one's come first (Duel before Tempête, Duo before Secret
/// Stallmate), and each refuses unknown keys.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Hand {
    /// No hand (Cardmate, or a game not started): `null`.
    #[default]
    None,
    /// Duel's cards by slot.
    Duel(DuelHand),
    /// Tempête's cards, the hands' sizes and the physical deck's claims.
    Tempete(TempeteHand),
    /// Chex's stacks and the piece drawn.
    Chex(ChexHand),
    /// Secret Stallmate with two players and no referee: the army, attempts, heard.
    Duo(DuoHand),
    /// Secret Stallmate with a referee: as Duo, and when the period closes.
    Stallmate(StallmateHand),
}

/// Duel: `{"cards": [{"slot", "card"}]}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DuelHand {
    /// The cards, lowest first.
    pub cards: Vec<DuelCard>,
}

/// One of Duel's cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DuelCard {
    /// Its slot in the deck.
    pub slot: u32,
    /// Its value.
    pub card: u32,
}

/// Chex: `{"stacks": {"white", "black"}, "drawn"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChexHand {
    /// Both sides' stacks.
    pub stacks: ChexStacks,
    /// The name of the piece this seat drew and has not placed, if any.
    pub drawn: Option<String>,
}

/// Chex's two stacks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChexStacks {
    /// White's.
    pub white: ChexStack,
    /// Black's.
    pub black: ChexStack,
}

/// One Chex stack.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChexStack {
    /// In words.
    pub text: String,
    /// Pieces left, in K Q R B N P order.
    pub counts: [u8; 6],
}

/// Tempête: `{"cards", "sizes", "claims"}`, and `opponent_shown` when the opponent's
/// cards were shown to this seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TempeteHand {
    /// This seat's cards.
    pub cards: Vec<TempeteCard>,
    /// Both hands' sizes, once the game has a state.
    pub sizes: Option<[u32; 2]>,
    /// The physical deck's claims; `null` in the open deck.
    pub claims: Option<Claims>,
    /// The opponent's cards shown to this seat and still in his hand.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opponent_shown: Vec<ShownCard>,
}

/// One of this seat's Tempête cards.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TempeteCard {
    /// Its number.
    pub card: u32,
    /// Its slot in the deck, when it was dealt from one (not taken).
    pub slot: Option<u32>,
    /// Taken from the opponent.
    pub taken: bool,
    /// Its name.
    pub name: String,
    /// When it is played (its keyword).
    pub timing: String,
    /// What it does, as the rules name it.
    pub effect: String,
    /// Its text.
    pub text: String,
}

/// An opponent's card shown to this seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShownCard {
    /// Its number.
    pub card: u32,
    /// Its name.
    pub name: String,
    /// Its text.
    pub text: String,
}

/// What a player sees of a physical-deck game's claims (`tempete::physical::view`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claims {
    /// The opponent's claims this seat has not accepted yet.
    pub answerable: Vec<Answerable>,
    /// Every dispute, with where it stands.
    pub disputes: Vec<Dispute>,
    /// The continuing effects still running.
    pub lasting: Vec<Lasting>,
    /// This seat's latest claims, with where each stands.
    pub mine: Vec<MyClaim>,
    /// Whether the game has an arbiter.
    pub arbiter: bool,
}

/// A claim of the opponent's, waiting for this seat's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answerable {
    /// The claiming act's number.
    pub act: u32,
    /// Its side (`White`, `Black`).
    pub by: String,
    /// Who made it, as people know him.
    pub who: String,
    /// The act's words, escaped.
    pub words: String,
}

/// A dispute.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dispute {
    /// Its number.
    pub dispute: usize,
    /// The disputed act's number.
    pub act: u32,
    /// The claimant's side.
    pub claimant: String,
    /// The claimant, as people know him.
    pub who: String,
    /// The disputed act's words, escaped.
    pub words: String,
    /// Why it is disputed, escaped.
    pub note: String,
    /// `open`, `offered`, `settled`, `ruled` or `lapsed`.
    pub state: String,
    /// The last ply the arbiter may rule at, when there is one.
    pub until: Option<u32>,
}

/// A continuing effect still running.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lasting {
    /// The act that started it.
    pub act: u32,
    /// Its side.
    pub by: String,
    /// Its player, as people know him.
    pub who: String,
    /// The card, when one was named.
    pub card: Option<u32>,
    /// The ply it runs until.
    pub until: u32,
    /// What it does, escaped.
    pub note: String,
}

/// One of this seat's own claims.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MyClaim {
    /// The act's number.
    pub act: u32,
    /// Its words, escaped.
    pub words: String,
    /// `waiting`, `disputed` or `accepted`.
    pub state: String,
}

/// One attempt of the mover's this period, with the referee's answer (Secret
/// Stallmate).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attempt {
    /// The attempt.
    pub attempt: String,
    /// The answer.
    pub answer: String,
}

/// What every seat heard at the end of one period (Secret Stallmate).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Heard {
    /// The period, from 1.
    pub period: u32,
    /// What was announced.
    pub words: Vec<String>,
}

/// Secret Stallmate without a referee: `{"army", "attempts", "heard"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DuoHand {
    /// This player's army, in letters.
    pub army: String,
    /// This period's attempts.
    pub attempts: Vec<Attempt>,
    /// What was heard after each period.
    pub heard: Vec<Heard>,
}

/// Secret Stallmate with a referee: `{"army", "attempts", "heard", "period_ends_ms"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StallmateHand {
    /// This player's army in letters; `null` for the referee.
    pub army: Option<String>,
    /// This period's attempts, the mover's own.
    pub attempts: Vec<Attempt>,
    /// What was heard after each period.
    pub heard: Vec<Heard>,
    /// When the running period closes by the referee's clock, ms since the Unix epoch.
    pub period_ends_ms: Option<u64>,
    /// The node's clock when it answered, ms since the Unix epoch: the web board adds
    /// it beside `period_ends_ms`, so that the page counts down by the node's clock and
    /// not its own (`web/src/period.rs`); absent elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_now_ms: Option<u64>,
}
