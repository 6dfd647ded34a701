//! Secret Stallmate (seed 001): each player gets his own Chess960 army, which the other
//! never sees, and a referee who sees both answers attempts as in Kriegspiel. The
//! scoring is the seed's: apart from a forfeit, both players always score the same.
//!
//! This folder is the pure rules engine; the protocol (the referee peer, the private
//! sub-logs, the wire acts) calls it.
//!
//! # Files
//!
//! - [`setup`] — [`Setup`], a Chess960 number, and [`Setup::from_seed`];
//! - [`options`], [`period`] — [`Options`] and their defaults;
//! - [`attempt`] — [`Attempt`]: a move by squares, or "Any?";
//! - [`answer`] — [`Answer`], [`Report`], [`Capture`], [`CheckKind`]: what the mover is told;
//! - [`checks`] — which check announcement a checking piece makes (long/short diagonal);
//! - [`referee`] — [`Referee`]: judges attempts, keeps the record, finds endings;
//! - [`turn`] — [`Turn`], [`Entry`]: the record of a period;
//! - [`suppress`] — [`Silence`]: which announcements the opponent does not hear, and the
//!   argument for [`FIRST_POSSIBLE_TURN`];
//! - [`announce`] — [`Heard`], [`heard`]: what the opponent hears;
//! - [`repetition`] — when positions are the same;
//! - [`ending`] — [`Ending`], [`scores`]: how a game ends and scores;
//! - [`timing`] — a period in the witness's time, for the audit (version 2);
//! - [`view`] — [`MoverView`]: what one player knows (his own army only);
//! - [`bot`] — a random player that uses only a [`MoverView`];
//! - [`record`] — the score format (writer and reader), [`pgn`] — PGN export;
//! - `steps` — a game's periods with the move each made, and the positions a page steps
//!   through (the whole game's, or one player's own army's);
//! - [`duo`] — the game without a referee: the two players compute each answer together
//!   (`stallmate-duo`, spec/GAMES.md §5.15; not yet a mode of the node);
//!
//! Every rule the seed does not state is marked *Interpretation* where it is made.

/// The game, as the registry lists it.
pub const DESCRIPTOR: crate::table::Descriptor = crate::table::Descriptor::of::<peer::Stallmate>(
    "Secret Stallmate: each player sees only his own army; a referee node answers every attempt",
    SETTINGS,
    &[("period", "1s"), ("ply-limit", "40")],
    record::replay,
);

/// The options of the game on the board, with or without a referee (spec/GAMES.md
/// §5.1).
const BOARD_SETTINGS: [crate::table::Setting; 3] = [
    crate::table::Setting {
        key: "must-try",
        values: &["on", "off"],
        default: "on",
        example: "off",
        about: "after a \"try\" the mover must attempt a pawn capture before any other move",
    },
    crate::table::Setting {
        key: "name-capturer",
        values: &["off", "on"],
        default: "off",
        example: "on",
        about: "a capture announcement also says whether a pawn or a piece took",
    },
    crate::table::Setting {
        key: "ply-limit",
        values: &[],
        default: "none",
        example: "80",
        about: "the game ends after that many moves with 0 points each; none: no limit",
    },
];

/// The options of a game without a referee (spec/GAMES.md §5.15): the board's, with a
/// ply limit always, at most [`duo::MAX_PLIES`] (its default), so that every computation
/// fits one message.
const DUO_SETTINGS: [crate::table::Setting; 3] = [
    BOARD_SETTINGS[0],
    BOARD_SETTINGS[1],
    crate::table::Setting {
        key: "ply-limit",
        values: &[],
        default: "1000",
        example: "80",
        about: "the game ends after that many moves with 0 points each; at most 1000",
    },
];

/// The options, as spec/GAMES.md §5.1 lists them: the board's, and the referee's period.
const SETTINGS: &[crate::table::Setting] = &[
    BOARD_SETTINGS[0],
    BOARD_SETTINGS[1],
    BOARD_SETTINGS[2],
    crate::table::Setting {
        key: "period",
        values: &[],
        default: "24h",
        example: "24h",
        about: "the length of a move period (ms, s, m, h, d); the referee closes each at its end",
    },
];

pub mod acts;
pub mod announce;
pub mod answer;
pub mod attempt;
pub mod audit;
pub mod bot;
pub mod checks;
pub mod duo;
pub mod ending;
pub mod options;
pub mod peer;
pub mod period;
pub mod pgn;
pub mod record;
pub mod referee;
pub mod repetition;
pub mod setup;
mod steps;
pub mod suppress;
pub mod table;
pub mod timing;
pub mod turn;
pub mod view;

pub use announce::{Heard, heard};
pub use answer::{Answer, BadAnswer, Capture, Capturer, CheckKind, Report};
pub use attempt::{Attempt, AttemptRefused, BadAttempt};
pub use ending::{BadEnding, BoardEnd, Ending, outcome, scores, seat_results};
pub use options::{OPTION_KEYS, Options};
pub use period::{BadPeriod, Period};
pub use referee::{Referee, Refusal};
pub use setup::{BadSetup, SETUPS, Setup};
pub use suppress::{FIRST_POSSIBLE_TURN, Silence};
pub use turn::{Entry, Turn};
pub use view::MoverView;

/// The variant's name in proposals.
pub const VARIANT: &str = "stallmate";
