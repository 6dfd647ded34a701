//! One seat's live game behind one interface, whatever the variant: [`Table`]; and the
//! layer every game implements to get one: the adapter trait [`Game`] (`game.rs`), the
//! generic table over it (`seated.rs`), and the [`Descriptor`] each game folder exports
//! (`descriptor.rs`), which the registry above lists (`crate::registry`). A game imports
//! from here, never from the registry.
//!
//! The node drives sessions, stores envelopes and talks to a person or a bot; it should
//! have no code path per game, or every new game would touch the node. So everything
//! that is the same for every game (the session, sync, the verdict, the transcript,
//! turn-taking, the generic words such as `resign`) is written once, in `Seated<R>`,
//! and only what a game alone knows (its notation, its bot, how it draws its board and
//! writes its score) sits behind a small adapter trait, `Game`, with one impl per
//! game. `crate::registry::open` and `restore` pick the impl from the proposal's variant.
//!
//! # `show_json`
//!
//! [`Table::show_json`] returns one object, the same keys for every variant:
//!
//! | key | value |
//! |---|---|
//! | `variant` | the variant name |
//! | `game` | the game id, 64 lower-case hex digits |
//! | `seat` | this seat's number |
//! | `side` | this seat's side in the game (`White`, `Forehand`), or `null` (Duel) |
//! | `phase` | [`Table::phase`] |
//! | `ply` | [`Table::ply`] |
//! | `to_act` | the seat number whose act is awaited, or `null` |
//! | `my_turn` | [`Table::my_turn`] |
//! | `waiting_for` | [`Table::waiting_for`] |
//! | `actions` | what this seat may type now, one hint per entry |
//! | `choices` | every act this seat may make now, as [`Choice`]s (`from`, `to`, `words`, `text`, `ask`, `names` [{`what`, `square`, `words`}]): the game's acts, then the generic words as buttons |
//! | `draw_offered` | whether the opponent's draw offer stands for this seat |
//! | `board` | the board as text (a line saying so before the game starts) |
//! | `grid` | the board as cells seen from this seat's side ([`Grid`]: `files`, `ranks`, `cells` with `square`, `shade`, `piece` {`glyph`, `side`, `name`, `red`}, `marks` [{`kind`, `words`}], `divides`, and `note`: words a player needs to read the board, or `null`), or `null` (Duel, or before the game starts) |
//! | `last` | the squares of the last act that moved or placed something, as `grid` names them (from, to; each move of a double move), empty when none or unseen |
//! | `result` | the result in one line ([`Table::result`]), or `null`
//! | `score` | the accepted acts in the game's score format ([`Table::score`]), or `null` |
//! | `hand` | Duel `{"cards": [{"slot", "card"}]}`; Chex `{"stacks": {"white", "black"}` (each `{"text", "counts"}`, counts in K Q R B N P order)`, "drawn"}` (the drawn piece's name or `null`); Cardmate `null`; Tempête `{"cards": [{"card", "slot", "taken", "name", "timing", "effect", "text"}], "sizes"}`; Secret Stallmate `{"army", "attempts": [{"attempt", "answer"}], "heard": [{"period", "words"}]}` (the mover's attempts this period, what was heard after each period) |
//! | `verdict` | the verdict, as in `sealed verify --json` |

mod choice;
mod descriptor;
mod game;
pub mod grid;
mod seated;
pub(crate) mod words;

use serde_json::Value;

use sealed_protocol::engine::Inserted;
use sealed_protocol::ids::{ChainId, GameId, Seat};
use sealed_protocol::proposal::Terms;
use sealed_protocol::session::{Action, Command, Secrets, SessionError};
use sealed_protocol::verdict::Verdict;

pub use choice::{Ask, Choice, Named};
pub use descriptor::{Descriptor, Setting};
pub(crate) use game::{Automation, Face, Game};
pub use grid::Grid;
pub(crate) use seated::nth;

/// One seat's live game, whatever the variant: the session plus what the game knows
/// about notation, bots, boards and scores. Object safe, so the node holds a
/// `Box<dyn Table>` and never names a game.
pub trait Table: Send {
    /// The variant name, as in the proposal.
    fn variant(&self) -> &'static str;
    /// The seat this table plays.
    fn seat(&self) -> Seat;
    /// The game id.
    fn game(&self) -> GameId;
    /// The validated terms.
    fn terms(&self) -> &Terms;
    /// Takes an envelope received from the network, a mailbox or a file.
    fn handle_envelope(&mut self, bytes: &[u8], now: u64) -> Result<Inserted, SessionError>;
    /// Takes a decision of this seat; nothing changes when it is refused.
    fn handle_command(&mut self, cmd: Command, now: u64) -> Result<(), SessionError>;
    /// The next thing the caller must do (persist, send, report).
    fn poll_action(&mut self) -> Option<Action>;
    /// The verdict on everything this seat holds.
    fn verdict(&self) -> Verdict;
    /// The result in one line (`White wins: checkmate [verified]`), once there is one.
    fn result(&self) -> Option<String>;
    /// The session's phase, as [`Phase::name`] words it.
    fn phase(&self) -> &'static str;
    /// Whether the session is done: complete, or the proposal declined.
    fn is_done(&self) -> bool;
    /// The seat whose game act is awaited, if the game is on.
    fn to_act(&self) -> Option<Seat>;
    /// Whether this seat must decide something now: accept or decline the proposal, or
    /// make its act. An act waits until the game has handed this seat what it needs
    /// (Duel: a card dealt to an empty hand; Chex: the opponent's value for a declared
    /// draw), so this is false while the other side still owes that.
    fn my_turn(&self) -> bool;
    /// Number of accepted game acts.
    fn ply(&self) -> usize;
    /// One line: what the game waits for and from whom (`you: …` when it is this
    /// seat, `waiting: …` naming the seats that owe a step, `nothing: …` when done).
    fn waiting_for(&self) -> String;
    /// Parses one action into a command. Generic words, for every game: `resign`,
    /// `offer draw` / `draw offer`, `accept draw` / `draw accept`, `accept`,
    /// `decline`. Otherwise a game act in the game's notation: Duel `play <card>` or
    /// just the card (it opens the slot holding that card in hand); Cardmate the
    /// seed's notation (`4Ci3`, `9H:c5`, `1Sd5=A`); Chex the seed's notation (`Nf3`,
    /// `b3-d4`, `bxc4`) or `draw`, and once a drawn piece waits `place <square>`,
    /// `<square>` or `<Piece>@<square>` (display coordinates), which opens the draw.
    /// A clear error naming why on bad notation, an illegal move, or not this seat's
    /// turn; parsing never changes anything.
    fn parse_action(&self, text: &str) -> Result<Command, String>;
    /// What this seat must do now, whatever a person or bot decides: the game's duties
    /// at time `now` (Secret Stallmate's referee answers and closes periods; its players
    /// show their setups to the referee). The node applies them as they come due.
    fn duty(&self, now: u64) -> Option<Command>;
    /// When a duty comes due with time alone, if one will (Secret Stallmate's referee:
    /// the end of the running period), in milliseconds since the Unix epoch; the node
    /// wakes for it instead of waiting for its next poll.
    fn due_at(&self) -> Option<u64>;
    /// What a random bot does now, `pick` choosing among its options; `None` when it
    /// has nothing to do. It accepts the proposal, and makes a random legal act when
    /// [`Table::my_turn`].
    fn bot_action(&self, pick: u64) -> Option<Command>;
    /// The game for a person: header, board, hand, whose turn, what may be typed now.
    fn show_text(&self) -> String;
    /// The game as JSON; the module documentation lists the keys.
    fn show_json(&self) -> Value;
    /// Every act this seat may make now, for a board that is clicked: the game's own
    /// (see [`Choice`]), then the generic words (accept, decline, resign, offer draw,
    /// accept draw) as buttons. Each text is read back by [`Table::parse_action`].
    fn choices(&self) -> Vec<Choice>;
    /// The board as a standalone SVG document (Cardmate and Chex, once started).
    fn svg(&self) -> Option<String>;
    /// The transcript file of everything this seat holds.
    fn transcript(&self) -> Vec<u8>;
    /// The accepted acts so far as score text in the game's own format, which the
    /// variant's `sealed replay` reads; `None` before the game starts.
    fn score(&self) -> Option<String>;
    /// The accepted acts as PGN, for games played on a chess board; `None` otherwise or
    /// before the game starts.
    fn pgn(&self) -> Option<String>;
    /// Processed envelopes per chain: what this seat tells the other side it holds.
    fn chain_counts(&self) -> Vec<(ChainId, u64)>;
    /// How many envelopes this seat holds (what [`Table::envelopes`] would return,
    /// without copying them).
    fn held(&self) -> usize;
    /// Every envelope held, exact bytes: the chains in chain order, then the envelopes
    /// kept beside them as evidence. Feeding them to [`restore`] rebuilds the table.
    fn envelopes(&self) -> Vec<Vec<u8>>;
    /// The envelopes of every chain `audience` may see (public chains; a private log's
    /// chains only if the game puts `audience` in that log's audience, or once the game
    /// is over) beyond the
    /// counts `have` says the other side holds (a chain missing from `have` counts 0),
    /// in chain order.
    fn envelopes_after(&self, have: &[(ChainId, u64)], audience: Seat) -> Vec<Vec<u8>>;
    /// Whether `audience` may see the envelopes of `chain` now: a public chain always; a
    /// private log's chain if the game puts `audience` in that log's audience, or once the
    /// game is over (spec/PROTOCOL.md §8.11.4). The filter of [`Table::envelopes_after`],
    /// for a node that serves from its store.
    fn visible(&self, chain: ChainId, audience: Seat) -> bool;
    /// The secrets to persist (with the envelopes, all [`restore`] needs).
    fn secrets(&self) -> Option<Secrets>;
    /// What the held envelopes say about time, for the nodes' clocks.
    fn timeline(&self) -> Timeline;
    /// `seat`'s wait in progress by the witness's signed statements, counted as a
    /// forfeit would count it (spec/PROTOCOL.md §17), if they say.
    fn witness_wait(
        &self,
        statements: &[Vec<u8>],
        seat: Seat,
    ) -> Option<sealed_protocol::engine::WitnessWait>;
    /// Whether the game times private logs with its witness (spec/PROTOCOL.md §17).
    fn times_private(&self) -> bool;
    /// Deposits of the private envelopes held that the witness has not stamped yet (a
    /// game with a witness and private logs, spec/PROTOCOL.md §17).
    fn undeposited(&mut self) -> Vec<sealed_protocol::deposit::Deposit>;
    /// Whether a public act held has no time from the witness yet.
    fn wants_ledger(&self) -> bool;
    /// The witness's signed statements arrived at `now`; returns how many times were new.
    fn note_witness(&mut self, statements: &[Vec<u8>], now: u64) -> usize;
    /// Everything the witness said to this seat that it keeps (signed statements).
    fn witness_said(&self) -> Vec<Vec<u8>>;
    /// Whether this seat still owes its statements item before it closes.
    fn owes_stamps(&self) -> bool;
    /// Once it owes them and holds the whole game: whether it knows every time.
    fn stamps_ready(&mut self) -> Option<bool>;
    /// What it posts: the latest ledgers and the stamps of its private envelopes.
    fn stamps_known(&mut self) -> Vec<Vec<u8>>;
    /// Players lost on time in this seat's view (version 2): nothing is owed to them.
    fn lost_on_time(&self) -> Vec<Seat>;
}

/// What a transcript says about time: the signers' own clock readings, so every holder
/// of the same envelopes reads the same timeline (spec/PROTOCOL.md §5.4).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timeline {
    /// When the last player joined: the latest clock of the players' first envelopes,
    /// once every player has joined.
    pub started: Option<u64>,
    /// Each accepted act in main-line order: who, and its envelope's clock.
    pub acts: Vec<(Seat, u64)>,
    /// This seat's timeout claims: against whom, and the claim envelope's clock.
    pub timeout_claims: Vec<(Seat, u64)>,
}
