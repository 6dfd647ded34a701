//! One seat's game as every face shows it: the typed document behind `sealed show
//! --json` and the web board. Its keys are listed in `mod.rs` (`# show_json`); the node
//! adds its own beside them (`sealed_core`'s `GameView`).

use serde::{Deserialize, Serialize};

use sealed_protocol::session::Stage;
use sealed_protocol::verdict::Verdict;

use super::{Choice, Grid, Hand, Steps};

/// One seat's game, whatever the variant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableView {
    /// The variant's name.
    pub variant: String,
    /// The game id, 64 lower-case hex digits.
    pub game: String,
    /// This seat's number.
    pub seat: u8,
    /// This seat's side in the game (`White`, `Forehand`), if the game has sides.
    pub side: Option<String>,
    /// The session's phase (in JSON, its words).
    pub phase: Stage,
    /// Accepted acts.
    pub ply: usize,
    /// The seat whose act is awaited, if any.
    pub to_act: Option<u8>,
    /// Whether this seat must decide something now.
    pub my_turn: bool,
    /// What the game waits for and from whom.
    pub waiting_for: String,
    /// What this seat may type now, one hint per entry.
    pub actions: Vec<String>,
    /// Every act this seat may make now.
    pub choices: Vec<Choice>,
    /// Whether the opponent's draw offer stands for this seat.
    pub draw_offered: bool,
    /// The board as text.
    pub board: String,
    /// This seat's hand, in the game's own shape.
    pub hand: Hand,
    /// The board as cells seen from this seat's side.
    pub grid: Option<Grid>,
    /// The squares of the last act that moved or placed something.
    pub last: Vec<String>,
    /// The positions after each act, where the page cannot replay the score (Chex,
    /// Cardmate).
    pub steps: Option<Steps>,
    /// The result in one line.
    pub result: Option<String>,
    /// The accepted acts in the game's score format.
    pub score: Option<String>,
    /// The verdict, as in `sealed verify --json`.
    pub verdict: Verdict,
}
