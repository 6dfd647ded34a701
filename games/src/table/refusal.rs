//! Why a seat's table refuses what it is given: [`Refusal`], the one error of the seat
//! interface (`TableFace::command`, `Table::offer_ruling`, `Computing::handle`), and [`GameError`], a game's own reason as that interface carries it.
//!
//! Why this shape: the table module names no game (the game folders import `table/`,
//! never the reverse), and the node holds a `Box<dyn Table>`, so the boundary's error
//! can be neither generic over the game nor an enum with a variant per game. What every
//! game shares, and what the node and the faces tell apart, is therefore a variant of
//! its own, with its data: no words given, a generic command refused and why, the
//! proposal undecided, the game not started or over, another seat's turn, an act not
//! ready yet, the session's own refusal. What only a game knows (its notation, its
//! rules as its face checks them, its computations' messages) is the game's typed
//! error, each game's `Face::Error`, carried as a [`GameError`]: behind an `Arc`, so it
//! stays `Clone`; compared by value, so the refusal stays `PartialEq` and `Eq` (the
//! core's `NodeError` derives both); and downcast back to its type by whoever knows the
//! game ([`GameError::downcast_ref`], as the games' tests do).
//!
//! Every Display is the sentence a person reads, word for word what the table said
//! before its refusals were typed: the node's and the web board's golden records hold
//! them.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use sealed_protocol::ids::Seat;
use sealed_protocol::rules::Violation;
use sealed_protocol::session::SessionError;

use super::Generic;

/// Why the table refuses words, a generic command, a ruling, a message or a kept state:
/// nothing changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// The words were empty.
    #[error("no action given")]
    NoAction,
    /// A generic command (`resign`, `offer draw`, …) is not open now.
    #[error("{}: {why}", generic.words())]
    Generic {
        /// The command refused.
        generic: Generic,
        /// Why.
        why: GenericRefused,
    },
    /// This seat has the proposal to accept or decline before anything else.
    #[error("accept or decline the proposal first")]
    Undecided,
    /// The game is over: no act is taken any more.
    #[error("the game is over")]
    GameOver,
    /// The game has not started: its commitments or coin are still under way.
    #[error(
        "the game has not started yet{}; nothing was played, move once it has",
        awaited(.awaiting)
    )]
    BeforeStart {
        /// What the game waits for first, as the table words it (`waiting_for` after
        /// "waiting for "), when it names something.
        awaiting: Option<String>,
    },
    /// The session takes acts, but the game holds no position yet.
    #[error("the game has not started yet")]
    NoPosition,
    /// Another seat is to act.
    #[error("not your turn: {who} is to move")]
    NotYourTurn {
        /// The seat to act.
        seat: Seat,
        /// That seat as this seat's player reads it ("the opponent (Bob)").
        who: String,
    },
    /// It is this seat's act, but the game has not handed it what the act needs yet
    /// (Duel: a card dealt; Chex: the opponent's share of a draw).
    #[error("not yet: {waiting}")]
    NotReady {
        /// What the game waits for, as `TableFace::waiting_for` says it.
        waiting: String,
    },
    /// A ruling came before the game started.
    #[error("the game has not started")]
    Unstarted,
    /// A ruling's bytes are no act of this game.
    #[error("{}", .0.0)]
    UnreadableAct(Violation),
    /// This game takes no ruling from outside its seats.
    #[error("this game takes no ruling from outside its seats")]
    NoRulings,
    /// This game sends no messages beside its transcript.
    #[error("this game sends no messages beside its transcript")]
    NoMessages,
    /// This game keeps no state of computations.
    #[error("this game keeps no state of computations")]
    NoComputations,
    /// The session refused the command the table read (its phase, or a rule the
    /// protocol checks).
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The game's own reason: its notation, its rules, its computations.
    #[error(transparent)]
    Game(GameError),
}

impl Refusal {
    /// The game's own error `e` as a refusal.
    pub fn game<E: Reason>(e: E) -> Refusal {
        Refusal::Game(GameError::new(e))
    }

    /// The game's own error, if this is one of type `E`.
    pub fn game_error<E: Reason>(&self) -> Option<&E> {
        match self {
            Refusal::Game(g) => g.downcast_ref(),
            _ => None,
        }
    }
}

/// ": it waits for …" when something is awaited.
fn awaited(awaiting: &Option<String>) -> String {
    awaiting
        .as_ref()
        .map(|w| format!(": it waits for {w}"))
        .unwrap_or_default()
}

/// Why a generic command is not open now.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GenericRefused {
    /// `accept` or `decline` with no proposal to decide on.
    #[error("there is no proposal to decide on (phase {phase})")]
    NoProposal {
        /// The session's phase, as the protocol names it.
        phase: &'static str,
    },
    /// The proposal is undecided: `resign` waits for a decision.
    #[error("accept or decline the proposal first")]
    Undecided,
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// This seat is no player (a referee).
    #[error("only players resign or agree draws")]
    OnlyPlayers,
    /// This seat's draw offer already stands.
    #[error("your draw offer already stands, until the other player moves or accepts it")]
    OfferStands,
    /// No draw offer stands for this seat.
    #[error("no draw offer stands for you")]
    NoOffer,
    /// Draws are offered and accepted in play only.
    #[error("draw offers are made while the game is on (phase {phase})")]
    NotInPlay {
        /// The session's phase, as the protocol names it.
        phase: &'static str,
    },
    /// The session refuses the withdrawal.
    #[error(transparent)]
    Withdraw(sealed_protocol::session::Refusal),
}

/// What a game's own error must be to cross the seat interface as a [`GameError`]:
/// typed, comparable, shareable between threads.
pub trait Reason: std::error::Error + PartialEq + Send + Sync + 'static {}

impl<E: std::error::Error + PartialEq + Send + Sync + 'static> Reason for E {}

/// A game's own error behind the interface that names no game: displayed as the game
/// words it, compared by value, downcast to its type by code that knows the game.
#[derive(Clone)]
pub struct GameError(Arc<dyn Erased>);

/// A [`Reason`] with its type erased: what [`GameError`] needs to compare two.
trait Erased: std::error::Error + Send + Sync {
    fn as_any(&self) -> &dyn Any;
    fn same(&self, other: &dyn Erased) -> bool;
}

impl<E: Reason> Erased for E {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn same(&self, other: &dyn Erased) -> bool {
        other.as_any().downcast_ref::<E>() == Some(self)
    }
}

impl GameError {
    /// The game's error `e`.
    pub fn new<E: Reason>(e: E) -> GameError {
        GameError(Arc::new(e))
    }

    /// The error as its type `E`, if it is one.
    pub fn downcast_ref<E: Reason>(&self) -> Option<&E> {
        self.0.as_any().downcast_ref()
    }
}

impl PartialEq for GameError {
    fn eq(&self, other: &GameError) -> bool {
        self.0.same(&*other.0)
    }
}

impl Eq for GameError {}

impl fmt::Debug for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl std::error::Error for GameError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
    #[error("{0} is not a card")]
    struct NotACard(u32);

    #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
    #[error("{0} is not a card")]
    struct Other(u32);

    #[test]
    fn a_game_error_compares_by_type_and_value_and_reads_as_the_game_words_it() {
        let a = Refusal::game(NotACard(7));
        assert_eq!(a, Refusal::game(NotACard(7)));
        assert_ne!(a, Refusal::game(NotACard(8)));
        // The same words from another type are another error.
        assert_ne!(a, Refusal::game(Other(7)));
        assert_eq!(a.to_string(), "7 is not a card");
        assert_eq!(a.game_error::<NotACard>(), Some(&NotACard(7)));
        assert_eq!(a.game_error::<Other>(), None);
    }

    #[test]
    fn the_kinds_say_what_the_table_said() {
        let before = Refusal::BeforeStart {
            awaiting: Some("the opponent's coin".into()),
        };
        assert_eq!(
            before.to_string(),
            "the game has not started yet: it waits for the opponent's coin; nothing was \
             played, move once it has"
        );
        assert_eq!(
            Refusal::BeforeStart { awaiting: None }.to_string(),
            "the game has not started yet; nothing was played, move once it has"
        );
        let resign = Refusal::Generic {
            generic: Generic::OfferDraw,
            why: GenericRefused::NotInPlay { phase: "commit" },
        };
        assert_eq!(
            resign.to_string(),
            "offer draw: draw offers are made while the game is on (phase commit)"
        );
    }
}
