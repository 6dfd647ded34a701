//! Cardmate (seed 002): a Whist-influenced chess game on 10×10 with the 56 cards as
//! pieces. The seed's capture and victory rules are cut off; the reconstruction we
//! play (spec/GAMES.md §2) is the one rule set under which both of the seed's sample
//! games replay move by move to their stated results.
//!
//! On the protocol, Cardmate needs no secret at all: the random (suit-shuffled) setup
//! is drawn from the joint coin, so neither player deals.

mod board;
mod card;
mod moves;
mod notation;
mod options;
mod position;
mod render;
mod score;
mod table;

use serde::{Deserialize, Serialize};

pub use board::{Board, Piece, Side, Square};
pub use card::{Card, Rank, Suit};
pub use moves::{Move, legal_moves, may_capture, pseudo_moves};
pub use notation::{
    NotationError, Written, parse as parse_move, resolve as resolve_move, write as write_move,
};
pub use options::{NineRetreat, NoMove, Options, Setup};
pub use position::{End, IllegalMove, Mark, Position};
pub use render::{grid, svg, text};
pub use score::{WriteError, replay, replay_score, write_score};
pub use table::MoveRefused;

use sealed_protocol::derive;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::Seat;
use sealed_protocol::outcome::Outcome;
use sealed_protocol::proposal::Terms;
use sealed_protocol::rules::{ActCtx, Applied, OptionError, Rules, Violation};

/// The variant name.
pub const VARIANT: &str = "cardmate";

/// The game, as the registry lists it.
pub const DESCRIPTOR: crate::table::Descriptor = crate::table::Descriptor::of::<Cardmate>(
    "chess on a 10×10 board with a pack of cards as pieces; a random setup dealt by the joint coin",
    SETTINGS,
    &[("setup", "random"), ("ply-limit", "400")],
    replay,
);

/// The options, as spec/GAMES.md §2.1 lists them.
const SETTINGS: &[crate::table::Setting] = &[
    crate::table::Setting {
        key: "setup",
        values: &["predefined", "random"],
        default: "predefined",
        example: "random",
        about: "the seed's diagram, or the suit-shuffled setup dealt by the joint coin",
    },
    crate::table::Setting {
        key: "random-kings",
        values: &["no", "yes"],
        default: "no",
        example: "yes",
        about: "with a random setup: whether the four Kings' suits are shuffled too",
    },
    crate::table::Setting {
        key: "palace",
        values: &["both-squares", "off"],
        default: "both-squares",
        example: "off",
        about: "palace conquest: your cards on both enemy palace squares after your move win",
    },
    crate::table::Setting {
        key: "nine-retreat",
        values: &["one", "any"],
        default: "one",
        example: "any",
        about: "the Nine's quiet retreat: one square straight back, or any distance",
    },
    crate::table::Setting {
        key: "no-move",
        values: &["loses", "draw"],
        default: "loses",
        example: "draw",
        about: "the player to move who has no legal move loses, or the game is drawn",
    },
    crate::table::Setting {
        key: "ply-limit",
        values: &[],
        default: "0",
        example: "200",
        about: "after this many plies the game is drawn; 0: no limit",
    },
];

/// The label of the named stream the random setup is drawn from.
pub const SETUP_STREAM: &str = "cardmate/setup";

/// The suit-shuffled board the coin deals.
pub fn random_board(coin: &Hash, kings: bool) -> Board {
    let mut stream = derive::stream(coin, SETUP_STREAM);
    Board::suit_shuffled(kings, |suits| stream.shuffle(suits))
}

/// Cardmate with its options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cardmate {
    /// The options.
    pub options: Options,
}

/// A Cardmate act: the card, its destination, and whether a One promotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Act {
    /// The card's number, 0–55 (`(rank − 1) · 4 + suit`).
    pub card: u8,
    /// The destination, 0–99 (`rank · 10 + file`).
    pub to: u8,
    /// A One entering the enemy half becomes the Ace of its suit.
    pub promote: bool,
}

impl Act {
    /// The act of a move.
    pub fn of(m: &Move) -> Self {
        Act {
            card: m.card.index(),
            to: m.to.index(),
            promote: m.promote,
        }
    }

    /// Its bytes.
    pub fn bytes(&self) -> Vec<u8> {
        sealed_protocol::wire::encode(self)
    }
}

/// The seat of a side: Forehand is seat 0.
pub fn seat(side: Side) -> Seat {
    Seat(side as u8)
}

impl Cardmate {
    /// The start position these options and this coin give.
    pub fn start_position(&self, coin: &Hash) -> Position {
        Position::start(match self.options.setup {
            Setup::Predefined => Board::predefined(),
            Setup::Random => random_board(coin, self.options.random_kings),
        })
    }

    /// The outcome of an ended position.
    pub fn outcome(end: End) -> Outcome {
        match end {
            End::Kings { winner } | End::Palace { winner } => {
                Outcome::win(2, seat(winner), end.reason())
            }
            End::NoMove { side, draw: false } => Outcome::loss(2, seat(side), end.reason()),
            End::NoMove { draw: true, .. } | End::PlyLimit => Outcome::draw(2, end.reason()),
        }
    }
}

impl Rules for Cardmate {
    type State = Position;
    type Act = Act;

    fn from_terms(terms: &Terms) -> Result<Self, OptionError> {
        if terms.players() != 2 {
            return Err(OptionError("cardmate is for two players".into()));
        }
        Ok(Cardmate {
            options: Options::parse(&terms.proposal().rule_options())?,
        })
    }

    fn start(&self, coin: &Hash) -> Position {
        self.start_position(coin)
    }

    fn decode_act(&self, bytes: &[u8]) -> Result<Act, Violation> {
        sealed_protocol::wire::decode(bytes, 16)
            .map_err(|e| Violation(format!("cardmate act: {e}")))
    }

    fn to_act(&self, pos: &Position) -> Option<Seat> {
        pos.end.is_none().then(|| seat(pos.to_move))
    }

    fn apply(
        &self,
        pos: &Position,
        _seat: Seat,
        act: &Act,
        ctx: &ActCtx<'_>,
    ) -> Result<Applied<Position>, Violation> {
        if !ctx.opened_slots.is_empty()
            || !ctx.opened_values.is_empty()
            || !ctx.committed_values.is_empty()
        {
            return Err("a cardmate move opens and commits nothing".into());
        }
        let card = Card::from_index(act.card).ok_or("no such card")?;
        let to = Square::from_index(act.to).ok_or("no such square")?;
        let m = pos
            .legal_moves(&self.options)
            .into_iter()
            .find(|m| m.card == card && m.to == to && m.promote == act.promote)
            .ok_or_else(|| Violation(format!("{card} to {to} is not a legal move")))?;
        let mut next = pos.clone();
        next.play_unchecked(&m, &self.options);
        let mut applied = Applied::state(next);
        applied.outcome = applied.state.end.map(Cardmate::outcome);
        Ok(applied)
    }
}
