//! Talking to a running node: a cloneable handle whose methods send a command to the
//! shell and await its answer.

use libp2p::Multiaddr;
use tokio::sync::{mpsc, oneshot, watch};

use crate::core::{Answer, Cmd, GameSummary, GameView, Imported, NodeError, PeersView, ShowFormat};
use crate::handover::{self, Taken, Taker};
use crate::home::Home;
use crate::shell::{Info, Msg, NodeConfig, ProposeArgs, Reply, Shell, StartError};

/// A running node.
#[derive(Clone)]
pub struct NodeHandle {
    tx: mpsc::Sender<Msg>,
    changes: watch::Receiver<u64>,
}

/// Starts a node from a home folder: its key, its store (every game rebuilt from it).
pub async fn start(
    home: &Home,
    mut cfg: NodeConfig,
) -> Result<(NodeHandle, tokio::task::JoinHandle<()>), StartError> {
    let key = home.key().map_err(StartError::Key)?;
    // The home's name goes into this player's proposals and is announced to peers: only
    // a name `sealed init` would take (the file may have been edited since).
    let name = home.name();
    match crate::home::check_name(&name) {
        Ok(()) => {
            // Signed into the games this player accepts, too (version 2).
            cfg.core.name = name.clone();
            cfg.net.name = name;
        }
        Err(e) => tracing::warn!("not announced, nor put in proposals: {e}"),
    }
    // A command of this home may hold the store for a moment: wait for it (bounded),
    // on a thread of its own, as the wait sleeps.
    let (h, wait) = (home.clone(), cfg.store_wait);
    let taken = tokio::task::spawn_blocking(move || handover::take(&h, Taker::Node, wait))
        .await
        .unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()));
    let store = match taken.map_err(StartError::Store)? {
        Taken::Store(store) => store,
        Taken::Node => return Err(StartError::Running(home.socket_path())),
    };
    let (changed, changes) = watch::channel(0);
    cfg.journal = Some(home.journal_path());
    let shell = Shell::new(key, store, cfg, changed)?;
    // Bounded: a flood of commands waits instead of growing memory.
    let (tx, rx) = mpsc::channel(64);
    let task = tokio::spawn(shell.run(rx));
    Ok((NodeHandle { tx, changes }, task))
}

/// An answer that is not the one a command gives: a bug between handle and core.
fn unexpected(a: Answer) -> NodeError {
    NodeError::Unexpected(format!("{a:?}"))
}

impl NodeHandle {
    async fn ask<T>(&self, make: impl FnOnce(Reply<T>) -> Msg) -> Result<T, NodeError> {
        let (tx, rx) = oneshot::channel();
        self.tx
            .send(make(tx))
            .await
            .map_err(|_| NodeError::Stopped)?;
        rx.await.map_err(|_| NodeError::Stopped)?
    }

    /// Runs one core command and returns its answer as is (the control socket turns it
    /// into the control path's typed answer with [`crate::control::Answered::from`]).
    pub async fn command(&self, cmd: Cmd) -> Result<Answer, NodeError> {
        self.ask(|r| Msg::Core(cmd, r)).await
    }

    async fn done(&self, cmd: Cmd) -> Result<(), NodeError> {
        match self.command(cmd).await? {
            Answer::Done => Ok(()),
            a => Err(unexpected(a)),
        }
    }

    async fn maybe_text(&self, cmd: Cmd) -> Result<Option<String>, NodeError> {
        match self.command(cmd).await? {
            Answer::MaybeText(t) => Ok(t),
            a => Err(unexpected(a)),
        }
    }

    async fn text(&self, cmd: Cmd) -> Result<String, NodeError> {
        match self.command(cmd).await? {
            Answer::Text(t) => Ok(t),
            a => Err(unexpected(a)),
        }
    }

    /// A count that goes up each time the store commits a write (a move made or
    /// received, a game proposed or accepted, a status changed): a page that shows the
    /// games waits on it, then reads them again. Writes in a burst may count once.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.changes.clone()
    }

    /// Peer id and addresses.
    pub async fn info(&self) -> Result<Info, NodeError> {
        self.ask(Msg::Info).await
    }

    /// Dials an address.
    pub async fn dial(&self, addr: Multiaddr) -> Result<(), NodeError> {
        self.ask(|r| Msg::Dial(addr, r)).await
    }

    /// The peer book, with what each connected peer runs.
    pub async fn peers(&self) -> Result<PeersView, NodeError> {
        match self.command(Cmd::Peers).await? {
            Answer::Peers(v) => Ok(v),
            a => Err(unexpected(a)),
        }
    }

    /// Keeps connected to a mailbox or rendezvous point from now on (its address ends
    /// in `/p2p/<peer id>`).
    pub async fn stand(&self, addr: Multiaddr) -> Result<(), NodeError> {
        let key = crate::shell::point("mailbox", &addr)?;
        self.done(Cmd::Stand(key, addr.to_string())).await
    }

    /// Proposes a game; returns its id (hex) once the proposal is durable and offered.
    pub async fn propose(&self, args: ProposeArgs) -> Result<String, NodeError> {
        match self.ask(|r| Msg::Propose(args, r)).await? {
            Answer::Game(id) => Ok(id),
            a => Err(unexpected(a)),
        }
    }

    /// Accepts an invitation.
    pub async fn accept(&self, game: &str) -> Result<(), NodeError> {
        self.done(Cmd::Accept(game.to_owned().into())).await
    }

    /// Declines an invitation.
    pub async fn decline(&self, game: &str) -> Result<(), NodeError> {
        self.done(Cmd::Decline(game.to_owned().into())).await
    }

    /// Makes a move in the game's notation (any act: a card, a claim, resign).
    pub async fn act(
        &self,
        game: &str,
        text: &str,
        expect: Option<usize>,
    ) -> Result<(), NodeError> {
        self.done(Cmd::Move {
            game: game.to_owned().into(),
            text: text.to_owned(),
            expect,
        })
        .await
    }

    /// A generic command (resign, offer or accept a draw, …), as a value.
    pub async fn generic(
        &self,
        game: &str,
        generic: sealed_games::table::Generic,
        expect: Option<usize>,
    ) -> Result<(), NodeError> {
        self.done(Cmd::Generic {
            game: game.to_owned().into(),
            generic,
            expect,
        })
        .await
    }

    /// Every game.
    pub async fn games(&self) -> Result<Vec<GameSummary>, NodeError> {
        match self.command(Cmd::Games).await? {
            Answer::Summaries(g) => Ok(g),
            a => Err(unexpected(a)),
        }
    }

    /// A game as every face shows it.
    pub async fn show(&self, game: &str) -> Result<GameView, NodeError> {
        match self
            .command(Cmd::Show(game.to_owned().into(), ShowFormat::Json))
            .await?
        {
            Answer::Show(v) => Ok(*v),
            a => Err(unexpected(a)),
        }
    }

    /// A game as text.
    pub async fn show_text(&self, game: &str) -> Result<String, NodeError> {
        self.text(Cmd::Show(game.to_owned().into(), ShowFormat::Text))
            .await
    }

    /// A game's board as SVG.
    pub async fn svg(&self, game: &str) -> Result<Option<String>, NodeError> {
        self.maybe_text(Cmd::Show(game.to_owned().into(), ShowFormat::Svg))
            .await
    }

    /// A game's transcript file (what the store holds).
    pub async fn transcript(&self, game: &str) -> Result<Vec<u8>, NodeError> {
        match self
            .command(Cmd::Transcript(game.to_owned().into()))
            .await?
        {
            Answer::Bytes(b) => Ok(b),
            a => Err(unexpected(a)),
        }
    }

    /// A game's score text.
    pub async fn score(&self, game: &str) -> Result<Option<String>, NodeError> {
        self.maybe_text(Cmd::Score(game.to_owned().into())).await
    }

    /// A game as PGN, for the games played on a chess board.
    pub async fn pgn(&self, game: &str) -> Result<Option<String>, NodeError> {
        self.maybe_text(Cmd::Pgn(game.to_owned().into())).await
    }

    /// A game as armored mail.
    pub async fn mail_export(&self, game: &str) -> Result<String, NodeError> {
        self.text(Cmd::MailExport(game.to_owned().into())).await
    }

    /// Imports armored mail; the games it touched, once what it carried is durable.
    pub async fn mail_import(&self, text: &str) -> Result<Imported, NodeError> {
        match self.command(Cmd::MailImport(text.to_owned())).await? {
            Answer::Imported(i) => Ok(i),
            a => Err(unexpected(a)),
        }
    }

    /// Lets a bot decide in one game, or in all.
    pub async fn bot(&self, game: Option<&str>, on: bool) -> Result<(), NodeError> {
        self.done(Cmd::Bot(game.map(Into::into), on)).await
    }

    /// Stops the node.
    pub async fn shutdown(&self) -> Result<(), NodeError> {
        self.ask(Msg::Shutdown).await
    }
}
