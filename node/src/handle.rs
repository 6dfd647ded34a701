//! Talking to a running node: a cloneable handle whose methods send a command to the
//! actor and await its answer.

use libp2p::Multiaddr;
use tokio::sync::{mpsc, oneshot};

use crate::actor::{Actor, ActorConfig, GameSummary, Info, Msg, ProposeArgs, Reply};
use crate::home::Home;
use crate::store::Store;

/// A running node.
#[derive(Clone)]
pub struct NodeHandle {
    tx: mpsc::Sender<Msg>,
}

/// Starts a node from a home folder: its key, its store (every game rebuilt from it).
pub async fn start(
    home: &Home,
    cfg: ActorConfig,
) -> Result<(NodeHandle, tokio::task::JoinHandle<()>), String> {
    let key = home.key().map_err(|e| e.to_string())?;
    let store = Store::open(&home.store_path()).map_err(|e| e.to_string())?;
    let actor = Actor::new(key, store, cfg)?;
    // Bounded: a flood of commands waits instead of growing memory.
    let (tx, rx) = mpsc::channel(64);
    let task = tokio::spawn(actor.run(rx));
    Ok((NodeHandle { tx }, task))
}

impl NodeHandle {
    async fn ask<T>(&self, make: impl FnOnce(Reply<T>) -> Msg) -> Result<T, String> {
        let (tx, rx) = oneshot::channel();
        self.tx
            .send(make(tx))
            .await
            .map_err(|_| "the node has stopped".to_string())?;
        rx.await.map_err(|_| "the node has stopped".to_string())?
    }

    /// Peer id and addresses.
    pub async fn info(&self) -> Result<Info, String> {
        self.ask(Msg::Info).await
    }

    /// Dials an address.
    pub async fn dial(&self, addr: Multiaddr) -> Result<(), String> {
        self.ask(|r| Msg::Dial(addr, r)).await
    }

    /// Proposes a game; returns its id (hex).
    pub async fn propose(&self, args: ProposeArgs) -> Result<String, String> {
        self.ask(|r| Msg::Propose(args, r)).await
    }

    /// Accepts an invitation.
    pub async fn accept(&self, game: &str) -> Result<(), String> {
        let g = game.to_owned();
        self.ask(|r| Msg::Accept(g, r)).await
    }

    /// Declines an invitation.
    pub async fn decline(&self, game: &str) -> Result<(), String> {
        let g = game.to_owned();
        self.ask(|r| Msg::Decline(g, r)).await
    }

    /// Makes an action in the game's notation.
    pub async fn act(&self, game: &str, text: &str, expect: Option<usize>) -> Result<(), String> {
        let (game, text) = (game.to_owned(), text.to_owned());
        self.ask(|reply| Msg::Act {
            game,
            text,
            expect,
            reply,
        })
        .await
    }

    /// Every game.
    pub async fn games(&self) -> Result<Vec<GameSummary>, String> {
        self.ask(Msg::Games).await
    }

    /// A game as JSON.
    pub async fn show(&self, game: &str) -> Result<serde_json::Value, String> {
        let g = game.to_owned();
        self.ask(|r| Msg::Show(g, r)).await
    }

    /// A game as text.
    pub async fn show_text(&self, game: &str) -> Result<String, String> {
        let g = game.to_owned();
        self.ask(|r| Msg::ShowText(g, r)).await
    }

    /// A game's board as SVG.
    pub async fn svg(&self, game: &str) -> Result<Option<String>, String> {
        let g = game.to_owned();
        self.ask(|r| Msg::Svg(g, r)).await
    }

    /// A game's transcript file.
    pub async fn transcript(&self, game: &str) -> Result<Vec<u8>, String> {
        let g = game.to_owned();
        self.ask(|r| Msg::Transcript(g, r)).await
    }

    /// A game's score text.
    pub async fn score(&self, game: &str) -> Result<Option<String>, String> {
        let g = game.to_owned();
        self.ask(|r| Msg::Score(g, r)).await
    }

    /// A game as PGN, for the games played on a chess board.
    pub async fn pgn(&self, game: &str) -> Result<Option<String>, String> {
        let g = game.to_owned();
        self.ask(|r| Msg::Pgn(g, r)).await
    }

    /// A game as armored mail.
    pub async fn mail_export(&self, game: &str) -> Result<String, String> {
        let g = game.to_owned();
        self.ask(|r| Msg::MailExport(g, r)).await
    }

    /// Imports armored mail.
    pub async fn mail_import(&self, text: &str) -> Result<Vec<String>, String> {
        let t = text.to_owned();
        self.ask(|r| Msg::MailImport(t, r)).await
    }

    /// Lets a bot decide in one game, or in all.
    pub async fn bot(&self, game: Option<&str>, on: bool) -> Result<(), String> {
        let g = game.map(str::to_owned);
        self.ask(|r| Msg::Bot(g, on, r)).await
    }

    /// Stops the node.
    pub async fn shutdown(&self) -> Result<(), String> {
        self.ask(Msg::Shutdown).await
    }
}
