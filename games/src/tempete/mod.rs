//! Tempête sur l'Echiquier by mail (seed 000): chess with cards. The card layer — the
//! vocabulary, the deck definition format with our original open deck, and the
//! board-level effects — and on it the protocol flow ([`rules`]: turns, interceptions,
//! answers, refills, sealed squares; [`act`]: the acts on the wire; [`state`]: the
//! public state).
//!
//! # Layers
//!
//! - [`card`] — [`Timing`], [`Effect`] (a keyword grammar), [`Card`];
//! - [`deck`] — the deck format, [`Deck::parse`], [`Deck::to_text`], [`Deck::open`];
//! - [`board`] — [`Board`], a chess position plus the continuing effects;
//! - [`effects`] — [`Board::apply`] (a card play and its moves, checked then carried out)
//!   and [`Board::legal_plays`].
//!
//! # Parameters of a play
//!
//! A play is a card (or none), its [`Params`] and the chess moves:
//!
//! | effect | params | moves |
//! |---|---|---|
//! | `extra-move K` | – | 2, each by a piece of kind K |
//! | `second-move` | – | 2, the second by another piece, capturing nothing |
//! | `pawn-rush N`, `pawn-back`, `king-leap`, `jump-color`, `move-as K` | – | 1, as the card allows |
//! | `augment P`, `sacrifice-pawn`, `forbid-square N` | 1 square | 1 (`before`/`after`), 0 (`instead`) |
//! | `freeze N` | the enemy piece's square | as above |
//! | `swap-own` | your 2 squares | as above |
//! | `swap-enemy` | your square, then the adjacent enemy's | 0 |
//! | `early-promote N` | the pawn's square, the new kind | 0 |
//! | `revive` | the starting square, the kind | as above |
//! | `truce`, `trap …`, `redraw N`, `show-hand` | – | as above |
//!
//! `cancel`, `take-played`, `pick-unplayed` and `replace-move` are not played on the
//! board at all ([`Effect::flow`] says what the flow does).
//!
//! NOTES.md in this folder lists every rule interpretation made here.

pub mod act;
pub mod board;
pub mod bot;
pub mod card;
mod choices;
pub mod command;
pub mod deck;
pub mod effects;
pub mod holding;
mod options;
pub use options::{ListError, parse_list};
pub mod pgn;
pub mod physical;
pub mod refused;
pub mod render;
pub mod rules;
pub mod score;
mod show;
pub mod state;
pub mod table;

pub use board::{Board, Refusal, Trap};
pub use card::{
    Card, CardError, EFFECT_KEYWORDS, Effect, EffectError, FlowEffect, MAX_NUMBER, Moment, Pattern,
    Timing, TrapEffect,
};
pub use deck::{Deck, DeckError, DeckProblem, OPEN_DECK};
pub use effects::{CardPlay, Params, Play, PlayError};
pub use rules::{Tempete, VARIANT};

/// The game, as the registry lists it.
pub const DESCRIPTOR: crate::table::Descriptor = crate::table::Descriptor::of::<Tempete>(
    "Tempête sur l'Echiquier: chess with secret hands of action cards, traps and interceptions",
    SETTINGS,
    &[("ply-limit", "300")],
    score::replay,
);

/// The options, as spec/GAMES.md §4.1 lists them.
const SETTINGS: &[crate::table::Setting] = &[
    crate::table::Setting {
        key: "cards",
        values: &[],
        default: "1-10,12-21,23-70",
        example: "1-10,12-21,23-70",
        about: "the agreed list of card numbers (ranges and single numbers): the open deck has 1-70 without 11 and 22, the physical deck 1-72",
    },
    crate::table::Setting {
        key: "hand",
        values: &[],
        default: "5",
        example: "5",
        about: "the size of a full hand, 1 to 8",
    },
    crate::table::Setting {
        key: "deck",
        values: &["open", "physical"],
        default: "open",
        example: "physical",
        about: "open: our deck's cards, enforced; physical: the cards you own, each effect stated by its player and accepted or disputed by the other",
    },
    crate::table::Setting {
        key: "arbiter",
        values: &[],
        default: "",
        example: "3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29",
        about: "physical deck: the public key (64 hex digits) of the person who rules on disputes",
    },
    crate::table::Setting {
        key: "ruling-plies",
        values: &[],
        default: "20",
        example: "20",
        about: "with an arbiter: turns and answers after a dispute within which his ruling counts; after them the claim stands",
    },
    crate::table::Setting {
        key: "ply-limit",
        values: &[],
        default: "0",
        example: "300",
        about: "after this many turns and answers the game is drawn; 0: no limit",
    },
];
pub use state::State;
