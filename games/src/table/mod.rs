//! One seat's live game, whatever the variant: its table, in two parts — what the
//! session does ([`Table`], which hands out the protocol's [`AnySession`] for sync, the
//! verdict and the witness, and, for a game whose players compute together, its
//! [`Computing`] side) and what a face shows ([`TableFace`]); and the layer every
//! game implements to get one: the adapter trait [`Game`] (`game.rs`), the generic
//! table over it, `TableOf` (`table_of.rs`), and the [`Descriptor`] each game folder
//! exports (`descriptor.rs`), which the registry above lists (`crate::registry`); and
//! why a table refuses, [`Refusal`] (`refusal.rs`), which carries a game's own typed
//! error without naming the game. A game imports from here, never from the registry;
//! the node comes in here too, and finds the registry's functions re-exported.
//!
//! The node drives sessions, stores envelopes and talks to a person or a bot; it should
//! have no code path per game, or every new game would touch the node. So everything
//! that is the same for every game (the session, sync, the verdict, the transcript,
//! turn-taking, the generic words such as `resign`) is written once, in `TableOf<R>`,
//! and only what a game alone knows (its notation, its bot, how it draws its board and
//! writes its score) sits behind a small adapter trait, `Game`, with one impl per
//! game. `crate::registry::open` and `restore` pick the impl from the proposal's variant.
//!
//! # The view (`show --json`)
//!
//! [`TableFace::view`] ([`TableView`], whose JSON is its serialization) is one object, the
//! same keys for every variant:
//!
//! | key | value |
//! |---|---|
//! | `variant` | the variant name |
//! | `game` | the game id, 64 lower-case hex digits |
//! | `seat` | this seat's number |
//! | `side` | this seat's side in the game (`White`, `Forehand`), or `null` (Duel) |
//! | `phase` | the session's phase, as [`sealed_protocol::session::Phase::name`] words it |
//! | `ply` | [`Turn::ply`] |
//! | `to_act` | the seat number whose act is awaited, or `null` |
//! | `my_turn` | [`Turn::my_turn`] |
//! | `waiting_for` | [`TableFace::waiting_for`] |
//! | `actions` | what this seat may type now, one hint per entry |
//! | `choices` | every act this seat may make now, as [`Choice`]s (`from`, `to`, `words`, `text`, `ask`, `names` [{`what`, `square`, `words`}], `generic`, and `card`: the number of the card the act plays, Tempête, absent otherwise): the game's acts, then the generic commands open now as buttons, each with its `generic` value (`resign`, `offer-draw`, …) that a face sends as such |
//! | `draw_offered` | whether the opponent's draw offer stands for this seat |
//! | `board` | the board as text (a line saying so before the game starts) |
//! | `grid` | the board as cells seen from this seat's side ([`Grid`]: `files`, `ranks`, `cells` with `square`, `shade`, `piece` {`glyph`, `side`, `name`, `red`}, `marks` [{`kind`, `words`}], `divides`, and `note`: words a player needs to read the board, or `null`), or `null` (Duel, or before the game starts) |
//! | `last` | the squares of the last act that moved or placed something, as `grid` names them (from, to; each move of a double move), empty when none or unseen |
//! | `steps` | the start and the position after each act of the score, for a page that cannot replay the score (Chex, Cardmate, Tempête; Secret Stallmate: the whole game's after each move to whoever sees both armies, else the player's own army after each period, his own moves marking their squares; `null` otherwise, or when the score ends on an act the rules refuse): [`Steps`] (`sides`, `tokens` as in `grid`, `positions` each with `pieces`, and `files`, `ranks`, `shades`, `took`, `last` where they apply; `steps.rs` says the encoding) |
//! | `result` | the result in one line ([`result_line`]), or `null` |
//! | `score` | the accepted acts in the game's score format ([`Document::Score`]), or `null` |
//! | `hand` | Duel `{"cards": [{"slot", "card"}]}`; Chex `{"stacks": {"white", "black"}` (each `{"text", "counts"}`, counts in K Q R B N P order)`, "drawn"}` (the drawn piece's name or `null`); Cardmate `null`; Tempête `{"cards": [{"card", "slot", "taken", "name", "timing", "effect", "text"}], "sizes", "claims"}` (`claims`: the physical deck's claims, disputes, continuing effects and one's own claims' standing, `null` in the open deck: `tempete::physical::view::claims`); Secret Stallmate `{"army", "attempts": [{"attempt", "answer"}], "heard": [{"period", "words"}], "period_ends_ms"}` (the mover's attempts this period, what was heard after each period, when the period closes; without a referee no `period_ends_ms`; the web board adds `node_now_ms` beside it). Each shape is a type of `hand.rs`, gathered in [`Hand`] |
//! | `verdict` | the verdict, as in `sealed verify --json` |

mod choice;
mod computing;
mod descriptor;
mod game;
mod generic;
pub mod grid;
pub mod hand;
pub(crate) mod pgn_tags;
mod refusal;
pub mod steps;
mod table_of;
mod view;
pub(crate) mod words;

use sealed_protocol::ids::Seat;
use sealed_protocol::session::{AnySession, Command};

pub use crate::registry::{
    Invitees, ProposeError, TableError, computations, demo_options, open, propose, restore,
    variants,
};
pub use choice::{Ask, Choice, Named};
pub use computing::{Computing, Deposits, Given};
pub use descriptor::{Computations, Descriptor, Setting};
pub(crate) use game::{Automation, Face, Game};
pub use generic::Generic;
pub use grid::Grid;
pub use hand::Hand;
pub use refusal::{GameError, GenericRefused, Reason, Refusal};
pub use sealed_protocol::session::Timeline;
pub use steps::Steps;
pub(crate) use table_of::TableOf;
pub(crate) use table_of::nth;
pub use view::TableView;
pub use words::{result_line, seat_names};

/// One seat's live game, whatever the variant — what its session does: the protocol's
/// session itself ([`Table::session`]: envelopes and commands in, actions out, the
/// verdict, sync, the transcript, the timeline, the witness), and what only the game
/// knows of turns and duties. What a face shows is the other part, [`TableFace`]. Object
/// safe, so the node holds a `Box<dyn Table>` and never names a game.
pub trait Table: TableFace + Send {
    /// The session, whatever the rules: a protocol feature is called here, on the
    /// session, never forwarded through the table.
    fn session(&self) -> &dyn AnySession;
    /// The session, to give it envelopes and commands and take its actions.
    fn session_mut(&mut self) -> &mut dyn AnySession;
    /// Where the game stands for this seat: whose act is awaited, whether this seat
    /// must decide now, how many acts, how many rulings wait, when a duty comes due.
    /// Cheap (no verdict, no words): the node reads it after every input.
    fn turn(&self) -> Turn;
    /// What this seat must do now, whatever a person or bot decides: the game's duties
    /// at time `now` (Secret Stallmate's referee answers and closes periods; its players
    /// show their setups to the referee). The node applies them as they come due.
    fn duty(&self, now: u64) -> Option<Command>;
    /// Takes a ruling from outside the seats (act bytes; Tempête's arbiter, spec/GAMES.md
    /// §4.20): kept if the game checks it — signed by the one the terms name, about a
    /// dispute still open — and posted by [`Table::duty`] as this seat's act when it
    /// comes (either player may post it; the first to act does). Refused with the reason
    /// otherwise. Kept in memory only: whoever ruled sends it again.
    fn offer_ruling(&mut self, act: &[u8]) -> Result<(), Refusal>;
    /// The game's computations between the players, to give them messages and take
    /// their own, if it has any (Secret Stallmate without a referee: always, from its
    /// opening; whether a game has them is its variant's, `registry::computations`).
    /// The node looks only at such games after each input.
    fn computing(&mut self) -> Option<&mut dyn Computing> {
        None
    }
}

/// What a face shows of one seat's live game, and reads back from a person: the words,
/// the board, the score, the acts open now.
pub trait TableFace {
    /// One line: what the game waits for and from whom (`you: …` when it is this
    /// seat, `waiting: …` naming the seats that owe a step, `nothing: …` when done).
    fn waiting_for(&self) -> String;
    /// Reads what a face asks into the session's command; reading never changes
    /// anything. [`Asked::Generic`]: a generic command, or refused with the reason.
    /// [`Asked::Words`]: generic words, for every game (`resign`, `offer draw` /
    /// `draw offer`, `accept draw` / `draw accept`, `accept`, `decline`), otherwise a
    /// game act in the game's notation: Duel `play <card>` or just the card (it opens
    /// the slot holding that card in hand); Cardmate the seed's notation (`4Ci3`,
    /// `9H:c5`, `1Sd5=A`); Chex the seed's notation (`Nf3`, `b3-d4`, `bxc4`) or `draw`,
    /// and once a drawn piece waits `place <square>`, `<square>` or `<Piece>@<square>`
    /// (display coordinates), which opens the draw. A clear error naming why on bad
    /// notation, an illegal move, or not this seat's turn.
    fn command(&self, asked: Asked<'_>) -> Result<Command, Refusal>;
    /// What a random bot does now, `pick` choosing among its options; `None` when it
    /// has nothing to do. It accepts the proposal, and makes a random legal act when
    /// it is its turn ([`Turn::my_turn`]).
    fn bot_action(&self, pick: u64) -> Option<Command>;
    /// The game as every face shows it; the module documentation lists its keys.
    fn view(&self) -> TableView;
    /// A document of the game in a standard format, if the game has one now
    /// ([`Document`]).
    fn document(&self, kind: Document) -> Option<String>;
}

/// Where a live game stands for one seat ([`Table::turn`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    /// Number of accepted game acts: the one ply count of the node and the command line
    /// (acts played, not the board's own move count: a Chex draw and its placement are
    /// two acts), which `move --expect` and `games` take and print.
    pub ply: usize,
    /// The seat whose game act is awaited, if the game is on.
    pub to_act: Option<Seat>,
    /// Whether this seat must decide something now: accept or decline the proposal, or
    /// make its act. An act waits until the game has handed this seat what it needs
    /// (Duel: a card dealt to an empty hand; Chex: the opponent's value for a declared
    /// draw), so this is false while the other side still owes that.
    pub my_turn: bool,
    /// How many rulings taken ([`Table::offer_ruling`]) are still waiting to be posted.
    pub rulings_waiting: usize,
    /// When a duty ([`Table::duty`]) comes due with time alone, if one will (Secret
    /// Stallmate's referee: the end of the running period; a player without a referee:
    /// a minute after the other's message it lacks), in milliseconds since the Unix
    /// epoch: the node wakes for it instead of waiting for its next poll.
    pub due_at: Option<u64>,
}

/// What a face asks of a seat, before the table reads it into a command
/// ([`TableFace::command`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Asked<'a> {
    /// Words a person typed: a generic command's words or a game act in the game's
    /// notation.
    Words(&'a str),
    /// A generic command, as a value (a board's button).
    Generic(Generic),
}

/// A document a face exports of one seat's game, each in a format other programs read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Document {
    /// The game for a person, as text: header, board, hand, whose turn, what may be
    /// typed now. Every game has it at every moment.
    Text,
    /// The board as a standalone SVG document (Cardmate and Chex, once started).
    Svg,
    /// The accepted acts so far as score text in the game's own format, which the
    /// variant's `sealed replay` reads; none before the game starts.
    Score,
    /// The accepted acts as PGN, for games played on a chess board; none otherwise or
    /// before the game starts.
    Pgn,
}
