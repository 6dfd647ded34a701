//! What goes into a core and what comes out.

use sealed_games::table::Generic;

use super::{GameId, NodeError, PeerKey};
use crate::message::{Request, Response};
pub use crate::origin::Origin;
use crate::record::{GameRecord, GameStatus, Usage};
use crate::views::{GameSummary, GameView, PeersView};

/// A number that names one thing of one kind; the kinds are told apart by the compiler
/// (a command's number is no peer request's). Printed as the bare number, as the
/// simulation's records have always shown it.
macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u64);

        impl $name {
            /// This number, and `self` moved on to the next: what a counter hands out.
            pub fn take_next(&mut self) -> $name {
                let id = *self;
                self.0 += 1;
                id
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(&self.0, f)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(&self.0, f)
            }
        }
    };
}

id!(
    /// A command, numbered by the shell so it can route the reply.
    CmdId
);
id!(
    /// A request from a peer, numbered by the shell, answered by [`Output::Respond`].
    InId
);
id!(
    /// A request to a peer, numbered by the core, answered by [`Input::Response`].
    OutId
);
id!(
    /// A store write, numbered by the core, answered by [`Input::Written`].
    WriteId
);

/// Something that happened, for the core to take.
#[derive(Debug)]
pub enum Input {
    /// A person's (or the control socket's) command.
    Command {
        /// Its number, echoed in [`Output::Reply`].
        id: CmdId,
        /// The command.
        cmd: Cmd,
    },
    /// A store write finished: durable, or not at all.
    Written {
        /// Which write.
        write: WriteId,
        /// Envelopes new to the store, or why nothing was written.
        result: Result<usize, crate::WriteFailed>,
    },
    /// A connection to a peer is up (its first); `addr` is where we reached it, when we
    /// dialled.
    Connected {
        /// The peer.
        peer: PeerKey,
        /// The address we dialled, ending in `/p2p/<peer id>`.
        addr: Option<String>,
        /// Where the connection comes from, for the budgets kept per address (`None`:
        /// not known, counted with the peer alone).
        origin: Option<Origin>,
    },
    /// The last connection to a peer closed.
    Disconnected {
        /// The peer.
        peer: PeerKey,
    },
    /// Addresses of a peer, from the transport's discovery (identify, mDNS).
    Learned {
        /// The peer.
        peer: PeerKey,
        /// Its addresses, each ending in `/p2p/<peer id>`.
        addrs: Vec<String>,
    },
    /// Addresses of a peer a lookup point returned, in the record it signed at `seen`
    /// (ms since the Unix epoch): an old record's addresses are as old as it.
    Found {
        /// The peer.
        peer: PeerKey,
        /// Its addresses, each ending in `/p2p/<peer id>`.
        addrs: Vec<String>,
        /// When its record was signed.
        seen: u64,
    },
    /// The lookup points connected now (mailboxes and relays that serve lookups), after
    /// any change (`lookups.rs`).
    LookupPoints {
        /// Their keys.
        points: Vec<PeerKey>,
        /// A point just said what it serves (identify, on connecting and whenever its
        /// addresses change): the points are asked for every peer still wanted whose
        /// wait is over.
        ask: bool,
    },
    /// A dial to a peer opened no connection.
    DialFailed {
        /// The peer.
        peer: PeerKey,
        /// The addresses tried that failed, each ending in `/p2p/<peer id>`.
        addrs: Vec<String>,
        /// Why, for a person to read.
        why: String,
    },
    /// A peer's request; answer it with [`Output::Respond`] and this `id`.
    Request {
        /// The peer.
        peer: PeerKey,
        /// Its number.
        id: InId,
        /// The request.
        req: Request,
    },
    /// A peer's introduction of a game's other seats (its `Introduce` request, its
    /// addresses read by the shell); answer it with [`Output::Respond`] and this `id`.
    Introduced {
        /// The peer.
        peer: PeerKey,
        /// Its number.
        id: InId,
        /// The game.
        game: GameId,
        /// Each address with the key of the peer it ends in (`None`: it names none).
        addrs: Vec<Option<(PeerKey, String)>>,
    },
    /// The answer to one of our requests.
    Response {
        /// Which request.
        id: OutId,
        /// The answer.
        resp: Response,
    },
    /// One of our requests got no answer (lost, refused by the transport, timed out).
    RequestFailed {
        /// Which request.
        id: OutId,
    },
    /// A message of a game's computations (Secret Stallmate without a referee,
    /// spec/GAMES.md §5.15) a peer sent on its own stream, beside the transcript: taken
    /// only from the game's other player, only if it is the next one and the one whose
    /// hash he signed, and stored before anything this node does next can depend on it.
    Message {
        /// The peer.
        peer: PeerKey,
        /// The game.
        game: GameId,
        /// Its position among the game's messages.
        index: u64,
        /// The message.
        bytes: Vec<u8>,
    },
    /// A message this node sent ([`Output::Message`]) did not arrive whole: its stream
    /// ended without the receiver's answer byte (spec/PROTOCOL.md §16.7) — the receiver
    /// dropped it (busy, or past a cap), the connection broke, or it took too long. The
    /// core sends it again sooner than its periodic wait if it is still unanswered.
    MessageLost {
        /// The peer it went to.
        peer: PeerKey,
        /// The game.
        game: GameId,
        /// Its position among the game's messages.
        index: u64,
    },
    /// The moment [`super::Core::poll_timeout`] gave has come: a game's duty or an
    /// opponent's clock came due with time alone, or the repair round is due. Early or
    /// repeated, it does no harm: only what is due is done.
    Timeout,
}

/// Something the shell must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// Commit these writes in one transaction, then say so with [`Input::Written`].
    Write {
        /// Its number.
        write: WriteId,
        /// What to write.
        writes: Writes,
    },
    /// Send a request to a peer (connected: the core asked only for connected peers).
    Send {
        /// The peer.
        peer: PeerKey,
        /// Its number, for the answer.
        id: OutId,
        /// The request.
        req: Request,
    },
    /// Send a message of a game's computations to a peer on the message stream (see
    /// [`Input::Message`]); lost if the peer is not connected (it is sent again when
    /// the peer connects, and while it has not answered). The shell says when its
    /// stream ended without the receiver's answer ([`Input::MessageLost`]).
    Message {
        /// The peer.
        peer: PeerKey,
        /// The game.
        game: GameId,
        /// Its position among the game's messages.
        index: u64,
        /// The message.
        bytes: Vec<u8>,
    },
    /// Answer a peer's request.
    Respond {
        /// Which request.
        id: InId,
        /// The answer.
        resp: Response,
    },
    /// Reach a peer at these addresses (each ending in `/p2p/<peer id>`), best first,
    /// several at once. With none, the shell says so ([`Input::DialFailed`]), as for a
    /// dial that fails: the core then looks the peer up ([`Output::LookUp`]).
    Dial {
        /// The peer.
        peer: PeerKey,
        /// Where.
        addrs: Vec<String>,
    },
    /// Ask every connected lookup point for a peer's record (`lookups.rs`); what comes
    /// back is [`Input::Found`].
    LookUp {
        /// The peer.
        peer: PeerKey,
    },
    /// Reopen the store after a failed write (redb refuses everything until then), and
    /// say whether it works again with [`Input::Written`] for `write`.
    Recover {
        /// The number to answer with.
        write: WriteId,
    },
    /// The answer to a command.
    Reply {
        /// Which command.
        id: CmdId,
        /// The answer.
        result: Result<Answer, NodeError>,
    },
}

/// The position at which a game's messages hold the seat's state of its computations
/// (`Computing::kept_out`): past any message's (a game has at most about 2⁴⁰ of them), and
/// forgotten with them when the game is over.
pub const KEPT_AT: u64 = u64::MAX;

/// The node setting that holds the day of the quotas' ledger (UTC days since the Unix
/// epoch, 8 bytes little-endian), written by the store with [`Writes::quota_day`].
pub const QUOTA_DAY_KEY: &str = "quota-day";

/// Writes that commit together: one transaction, all or nothing. Owned, so that the
/// shell's store thread (or the simulated store) can take them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Writes {
    /// Game records to insert or replace.
    pub games: Vec<GameRecord>,
    /// Status changes of stored games.
    pub statuses: Vec<(GameId, GameStatus)>,
    /// Secrets to replace.
    pub secrets: Vec<(GameId, Vec<u8>)>,
    /// Envelopes to add (duplicates are skipped).
    pub envelopes: Vec<(GameId, Vec<u8>)>,
    /// Messages of a game's computations taken from the other player, by position
    /// ([`Input::Message`]).
    pub messages: Vec<(GameId, u64, Vec<u8>)>,
    /// Games whose messages are removed (after `messages`): over, none is needed again.
    pub forget_messages: Vec<GameId>,
    /// A game's messages before a position, removed (after `messages`): the seat's
    /// state of its computations, stored at [`KEPT_AT`] in the same write or before,
    /// takes their place (`Computing::kept_out`).
    pub forget_messages_before: Vec<(GameId, u64)>,
    /// Node settings.
    pub meta: Vec<(String, Vec<u8>)>,
    /// Node settings to remove (after `meta`).
    pub forget: Vec<String>,
    /// A new day of the ledger (`core/src/quota.rs`; UTC days since the Unix epoch):
    /// every count of an earlier day removed and the day noted at [`QUOTA_DAY_KEY`],
    /// before `charges`.
    pub quota_day: Option<u64>,
    /// What strangers' games used of their quotas, added to the ledger
    /// (`core/src/quota.rs`).
    pub charges: Vec<(PeerKey, Usage)>,
    /// Games removed from the store whole, after everything above: record, secrets,
    /// envelopes and messages (a game held for a stranger that expired or was evicted,
    /// `held.rs`).
    pub drop_games: Vec<GameId>,
    /// Settings removed by prefix, after `forget`: those of the games dropped.
    pub forget_under: Vec<String>,
}

impl Writes {
    /// Whether nothing is written.
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
            && self.statuses.is_empty()
            && self.secrets.is_empty()
            && self.envelopes.is_empty()
            && self.messages.is_empty()
            && self.forget_messages.is_empty()
            && self.forget_messages_before.is_empty()
            && self.meta.is_empty()
            && self.forget.is_empty()
            && self.quota_day.is_none()
            && self.charges.is_empty()
            && self.drop_games.is_empty()
            && self.forget_under.is_empty()
    }

    /// The bytes it carries (envelopes, messages, secrets, settings, game records'
    /// terms): what it holds of memory until it is written.
    pub fn size(&self) -> u64 {
        let lens = self
            .envelopes
            .iter()
            .map(|(_, b)| b.len())
            .chain(self.messages.iter().map(|(_, _, b)| b.len()))
            .chain(self.secrets.iter().map(|(_, b)| b.len()))
            .chain(self.meta.iter().map(|(k, v)| k.len() + v.len()))
            .chain(self.games.iter().map(|g| g.terms.len()));
        lens.map(|n| n as u64).sum()
    }

    /// Appends `other`, in order.
    pub fn extend(&mut self, other: Writes) {
        self.games.extend(other.games);
        self.statuses.extend(other.statuses);
        self.secrets.extend(other.secrets);
        self.envelopes.extend(other.envelopes);
        self.messages.extend(other.messages);
        self.forget_messages.extend(other.forget_messages);
        self.forget_messages_before
            .extend(other.forget_messages_before);
        self.meta.extend(other.meta);
        self.forget.extend(other.forget);
        self.quota_day = other.quota_day.max(self.quota_day);
        self.charges.extend(other.charges);
        self.drop_games.extend(other.drop_games);
        self.forget_under.extend(other.forget_under);
    }
}

/// A game as a person names it: its id, or a unique prefix of the id's hex (`sealed
/// show 3f2a`), read trimmed and in lower case; the core finds the game it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRef(String);

impl GameRef {
    /// The prefix, as read.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for GameRef {
    fn from(text: &str) -> GameRef {
        GameRef(text.trim().to_lowercase())
    }
}

impl From<String> for GameRef {
    fn from(text: String) -> GameRef {
        GameRef::from(text.as_str())
    }
}

impl From<GameId> for GameRef {
    fn from(id: GameId) -> GameRef {
        GameRef(hex::encode(id))
    }
}

impl From<&GameId> for GameRef {
    fn from(id: &GameId) -> GameRef {
        GameRef(hex::encode(id))
    }
}

/// A command a core takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cmd {
    /// Propose a game.
    Propose(Box<ProposeArgs>),
    /// Accept an invitation.
    Accept(GameRef),
    /// Decline an invitation.
    Decline(GameRef),
    /// Take back a game this node proposed, before any other seat accepted it
    /// (protocol version 2; a `resign` then does the same).
    Withdraw(GameRef),
    /// A generic command (resign, offer or accept a draw, …) as a value, refused unless
    /// the game is at ply `expect`.
    Generic {
        /// The game.
        game: GameRef,
        /// The command.
        generic: Generic,
        /// The ply the person saw.
        expect: Option<usize>,
    },
    /// A move in the game's notation (any act a player makes: a card, a claim; the
    /// generic words read too), refused unless the game is at ply `expect`.
    Move {
        /// The game.
        game: GameRef,
        /// The action.
        text: String,
        /// The ply the person saw.
        expect: Option<usize>,
    },
    /// Every game, one line each.
    Games,
    /// One game, in a format.
    Show(GameRef, ShowFormat),
    /// A game's transcript file, from the store.
    Transcript(GameRef),
    /// A game's score text.
    Score(GameRef),
    /// A game as PGN.
    Pgn(GameRef),
    /// A game as armored mail.
    MailExport(GameRef),
    /// Armored mail to take.
    MailImport(String),
    /// Bots on or off, for one game or all.
    Bot(Option<GameRef>, bool),
    /// Keep connected to this mailbox or rendezvous point from now on (the home's
    /// default mailbox): its key and where it is.
    Stand(PeerKey, String),
    /// Where each peer in the book can be reached, best first.
    Peers,
    /// Take up again a game set aside because the node stopped while restoring it
    /// (`crashed.rs`).
    Resume(GameRef),
    /// As the arbiter of a game this node relays: keep his ruling on a dispute (the
    /// game act's bytes, signed inside) and send it to the seats (`rulings.rs`).
    Ruling {
        /// The game.
        game: GameRef,
        /// The dispute ruled on.
        dispute: u32,
        /// The act.
        act: Vec<u8>,
    },
}

impl Cmd {
    /// The game the command names, if it names one.
    pub fn game(&self) -> Option<&GameRef> {
        match self {
            Cmd::Accept(g)
            | Cmd::Decline(g)
            | Cmd::Withdraw(g)
            | Cmd::Show(g, _)
            | Cmd::Transcript(g)
            | Cmd::Score(g)
            | Cmd::Pgn(g)
            | Cmd::MailExport(g)
            | Cmd::Bot(Some(g), _)
            | Cmd::Resume(g)
            | Cmd::Move { game: g, .. }
            | Cmd::Generic { game: g, .. }
            | Cmd::Ruling { game: g, .. } => Some(g),
            Cmd::Propose(_)
            | Cmd::Games
            | Cmd::MailImport(_)
            | Cmd::Bot(None, _)
            | Cmd::Stand(..)
            | Cmd::Peers => None,
        }
    }
}

/// A proposal to make, as the core takes it: keys and addresses already read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProposeArgs {
    /// The variant.
    pub variant: String,
    /// Options `(key, value)`.
    pub options: Vec<(String, String)>,
    /// The opponent's key, and where to reach it (if known).
    pub opponent: (PeerKey, Option<String>),
    /// A mailbox's key and address.
    pub mailbox: Option<(PeerKey, String)>,
    /// The referee's key and address, for a game that has one.
    pub referee: Option<(PeerKey, Option<String>)>,
    /// A witness's key and address (protocol version 2): also the game's mailbox.
    pub witness: Option<(PeerKey, String)>,
    /// The names the proposal gives this node's player and the opponent (empty when
    /// not known): the home's name, and the one the opponent's node announced.
    pub names: [String; 2],
}

impl ProposeArgs {
    /// Why these parties cannot make a game with `mine` as its proposer, in the
    /// player's words: one key named for two parts (the protocol refuses a game whose
    /// seats share a key, spec/PROTOCOL.md §5.1). None when each is someone else.
    pub fn same_party(&self, mine: &PeerKey) -> Option<String> {
        let opponent = &self.opponent.0;
        let referee = self.referee.as_ref().map(|r| &r.0);
        if opponent == mine {
            return Some(
                "that peer id is this node's own: you cannot invite yourself. Give your \
                 opponent's peer id or address (the one their `sealed node` prints)"
                    .into(),
            );
        }
        if referee == Some(mine) {
            return Some(
                "the referee's peer id is this node's own: a referee is a third party".into(),
            );
        }
        if referee == Some(opponent) {
            return Some(
                "the referee's peer id is your opponent's: a referee is a third party".into(),
            );
        }
        match self.witness.as_ref().map(|w| &w.0) {
            Some(w) if w == mine => {
                Some("the witness's peer id is this node's own: a witness is a third party".into())
            }
            Some(w) if w == opponent => {
                Some("the witness's peer id is your opponent's: a witness is a third party".into())
            }
            _ => None,
        }
    }
}

/// What a mail import did.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Imported {
    /// The games the mail touched (hex ids).
    pub games: Vec<String>,
    /// Each envelope of the mail that was not taken, and why (the sender's fault).
    pub refused: Vec<String>,
}

/// What a command answers.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// Done.
    Done,
    /// A game id (hex).
    Game(String),
    /// Game ids (hex).
    Games(Vec<String>),
    /// What a mail brought: its games, and the envelopes it carried that were not taken.
    Imported(Imported),
    /// The game list.
    Summaries(Vec<GameSummary>),
    /// A game as every face shows it (`Cmd::Show` as JSON).
    Show(Box<GameView>),
    /// The peer book.
    Peers(PeersView),
    /// Text.
    Text(String),
    /// Text that may not exist (a score before the game starts).
    MaybeText(Option<String>),
    /// Bytes (a transcript file).
    Bytes(Vec<u8>),
}

/// How a game is shown: its document, its text, or its board as SVG. On the control
/// socket it is the word `json`, `text` or `svg`; any other word is kept, and refused
/// with it by the core.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShowFormat {
    /// The game's view ([`Answer::Show`]).
    Json,
    /// The game as text.
    Text,
    /// The board as SVG, when the game has one.
    Svg,
    /// A format no face asks for: refused with its name.
    #[serde(untagged)]
    Other(String),
}
