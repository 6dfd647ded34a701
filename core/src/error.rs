//! Why a command was refused, saying whose fault it is: the person's (a game that does
//! not exist, a move the rules refuse), the store's (a write failed), the game's state
//! (set aside), an address's, or the node's own (stopped, or a bug).

use sealed_games::table::Refusal;

/// Why a game the node knows is set aside: nothing is signed, sent or served for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Halt {
    /// A store write (or a read, the store itself failing) failed; the game is rebuilt
    /// from the store once it works again.
    Write(String),
    /// Its record, terms, secrets or envelopes could not be read or restored. Its id stays
    /// known, so nothing is ever signed for it anew.
    Unreadable(String),
    /// The node stopped (a crash, an abort) while it was restoring this game at a start:
    /// set aside at the next start, so that the node starts without it
    /// (`sealed_node`'s start journal). Kept whole in the store, taken up again by
    /// `sealed resume`.
    Crashed(String),
}

impl Halt {
    /// The status `sealed games` shows.
    pub fn status(&self) -> crate::views::GameState {
        match self {
            Halt::Write(_) => crate::views::GameState::Halted,
            Halt::Unreadable(_) => crate::views::GameState::Unreadable,
            Halt::Crashed(_) => crate::views::GameState::Crashed,
        }
    }
}

impl std::fmt::Display for Halt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Halt::Write(e) => write!(
                f,
                "the store failed ({e}): nothing was sent; the game goes on once the \
                 store works again"
            ),
            Halt::Unreadable(e) => write!(
                f,
                "this game could not be read from the store ({e}): it is set aside, and \
                 nothing is signed for it"
            ),
            Halt::Crashed(e) => write!(
                f,
                "the node stopped while it was restoring this game ({e}): it is set aside, \
                 whole, so that the node starts without it; `sealed resume <game>` takes it \
                 up again"
            ),
        }
    }
}

/// Why a store write, or reopening the store, failed: the machine's fault (its disk, its
/// file system, the store's file), never a peer's nor the player's. It keeps the store's
/// own words: the core knows no store, and the shell (`sealed_node`'s store) says which
/// of its failures this was.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct WriteFailed(pub String);

/// Why a command was refused; nothing was signed or sent.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NodeError {
    /// No game has this id or prefix (the person's).
    #[error("no game {0:?}")]
    NoGame(String),
    /// The prefix names several games (the person's).
    #[error("{0:?} names more than one game")]
    Ambiguous(String),
    /// This node only relays the game, as a mailbox.
    #[error("this node only relays that game")]
    OnlyRelayed,
    /// The game is set aside.
    #[error("{0}")]
    SetAside(Halt),
    /// The game moved past the ply the person saw.
    #[error("the game is at ply {at}, not {expected}: nothing sent")]
    Moved {
        /// Where it is.
        at: usize,
        /// Where the person thought it was.
        expected: usize,
    },
    /// The game, its notation or its session refused the command (the person's): the
    /// table's refusal, typed (not this seat's turn, the game over, words the game does
    /// not read, …).
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// `show` in a format the node does not know (the person's).
    #[error("no format {0:?}")]
    NoFormat(String),
    /// `accept` or `decline` by the seat that proposed the game (the person's).
    #[error("you proposed this game: the other player accepts or declines it")]
    OwnProposal,
    /// `resume` of a game not set aside after a crash (the person's).
    #[error("that game was not set aside after a crash: nothing to resume")]
    NotCrashed,
    /// A ruling sent to a node that does not relay the game (the person's).
    #[error(
        "this node does not relay that game: an arbiter's node is the game's mailbox (the players name it with --arbiter)"
    )]
    NotRelayed,
    /// A ruling longer than any game act, in bytes at most (the person's).
    #[error("a ruling of more than {0} bytes")]
    RulingTooLarge(usize),
    /// The web board asked of a control socket opened without one (the person's).
    #[error("this node serves no web board (its control socket was opened without one)")]
    NoBoard,
    /// A fault point that was not set (the person's, or a build without them): the
    /// node's words for it (its fault points live in the shell, not here).
    #[error("{0}")]
    Failpoint(String),
    /// The proposal cannot be made (bad variant, options, addresses).
    #[error("{0}")]
    Proposal(String),
    /// Mail that cannot be read (the sender's).
    #[error("{0}")]
    Mail(String),
    /// The store failed (the disk's): nothing was sent.
    #[error("the store cannot be used ({0}): nothing was sent")]
    Store(String),
    /// An address that cannot be used as given (the person's).
    #[error("{0}")]
    Address(String),
    /// The node stopped before it answered (the node's: shut down or crashed).
    #[error("the node has stopped")]
    Stopped,
    /// The node answered with what another command gives: a bug between the handle
    /// and the core.
    #[error("the node answered {0}")]
    Unexpected(String),
}

/// Whose fault a refusal is, as the faces need to know it: the web board answers each
/// with its own HTTP status (`web/src/api.rs`), the request's own fault alone with 400.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fault {
    /// The request's own: an id that names several games, words the game refuses, a
    /// proposal or an address that cannot be used, mail that does not read.
    Request,
    /// No game has the id or prefix asked for.
    NoGame,
    /// The game is not where the request took it to be: it moved past the ply seen, this
    /// node only relays it, or it is set aside (unreadable, or its restore crashed).
    Conflict,
    /// The store failed (the disk's): nothing was sent; the game goes on once it works.
    Store,
    /// The node stopped before it answered.
    Stopped,
    /// The node's own: one of its parts answered another what it did not ask.
    Node,
}

impl NodeError {
    /// Whose fault this refusal is.
    pub fn fault(&self) -> Fault {
        match self {
            NodeError::NoGame(_) => Fault::NoGame,
            NodeError::Ambiguous(_)
            | NodeError::Refused(_)
            | NodeError::NoFormat(_)
            | NodeError::OwnProposal
            | NodeError::NotCrashed
            | NodeError::NotRelayed
            | NodeError::RulingTooLarge(_)
            | NodeError::NoBoard
            | NodeError::Failpoint(_)
            | NodeError::Proposal(_)
            | NodeError::Mail(_)
            | NodeError::Address(_) => Fault::Request,
            NodeError::SetAside(Halt::Write(_)) | NodeError::Store(_) => Fault::Store,
            NodeError::OnlyRelayed | NodeError::SetAside(_) | NodeError::Moved { .. } => {
                Fault::Conflict
            }
            NodeError::Stopped => Fault::Stopped,
            NodeError::Unexpected(_) => Fault::Node,
        }
    }
}
