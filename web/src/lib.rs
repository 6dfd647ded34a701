//! The board in the browser: a web app that a running node serves on 127.0.0.1 — the
//! games, invitations, a new game's terms, and each game's board to click or type on,
//! updated live as the opponent moves.
//!
//! It is one more front end of the node, beside the control socket: every request that
//! reads or changes a game is a [`ControlRequest`](sealed_node::control::ControlRequest)
//! answered by the same function the socket uses, so the page can do nothing `sealed`
//! cannot, and shows this seat exactly what `sealed show` shows it. The board, the
//! legal moves and the prompts come from the games' engines (`grid` and `choices` of
//! the show document); the page's script draws them and sends the text of the act
//! chosen, never deciding a rule itself.
//!
//! Files: the door — tokens, sessions, Host and Origin — without IO `gate.rs`, and as
//! axum middleware with the security headers and the body's deadline `guard.rs`; the
//! sessions kept across restarts `keep.rs`; the connections, their cap and their header
//! deadline `serve.rs`; the JSON API and the live stream `api.rs`, with what the node
//! knows now of the people a game names `people.rs`; the pages, scripts and style, all
//! inside the binary, `assets.rs` (from `assets/`: `session.js` the session, the API and
//! the live stream, `board.js` the board and the act built one question at a time,
//! `game.js`, `lists.js`, `ui.js`, `app.js`). The scripts draw the show document's
//! `grid`, `choices` (with what each names) and `last`, and send the text of the act
//! chosen: no rule lives in them. When the node does not answer, `session.js` tells that
//! apart from a refused session, turns moves off and says exactly what to run
//! (`sealed --home … ui`).
//!
//! Loopback only: [`serve`] refuses any other address. The browser tests
//! (`tests/browser/`: Debian's Chromium over WebDriver) play every variant by clicks and
//! one by keyboard, attack the session from other pages and other local servers, and run
//! axe-core on every page.
#![forbid(unsafe_code)]

mod api;
mod assets;
pub mod gate;
mod guard;
pub mod keep;
mod people;
mod period;
mod serve;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sealed_node::NodeHandle;

use gate::Gate;

/// Why the board did not start.
#[derive(Debug, thiserror::Error)]
pub enum BoardError {
    /// The address is not a loopback one: the board is served to this machine only
    /// (serving a network needs TLS, which it does not have).
    #[error("the board listens on 127.0.0.1 only, not {0}")]
    NotLoopback(SocketAddr),
    /// The port could not be bound.
    #[error("cannot listen on {addr}: {why}")]
    Listen {
        /// Where.
        addr: SocketAddr,
        /// Why.
        why: std::io::Error,
    },
    /// The operating system gave no randomness for a token.
    #[error("randomness: {0}")]
    Random(String),
}

/// What the server holds for whom, at most: a connection that does not finish its
/// headers, or its body, in time is closed; past the cap a new connection takes the
/// slot of the oldest one nobody uses (no live session came on it and nothing is being
/// answered), or is closed at once when there is none (`serve.rs`). The defaults fit
/// one person's browser tabs (a tab holds its live stream and at most five other
/// connections, as browsers do per origin).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The time a request's head may take to arrive; also how long an idle kept-alive
    /// connection is held.
    pub header: Duration,
    /// The time a request's body may take to arrive once its head did.
    pub body: Duration,
    /// Connections held at once.
    pub connections: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header: Duration::from_secs(10),
            body: Duration::from_secs(10),
            connections: 64,
        }
    }
}

/// How a board is served.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where: a loopback address; port 0 takes any.
    pub listen: SocketAddr,
    /// Where the sessions are kept across restarts (a file in the node's home); none:
    /// in memory only.
    pub sessions: Option<PathBuf>,
    /// What a person runs for a new login address, as the page and every refusal say
    /// it (`sealed --home /home/alice/.sealed ui`).
    pub again: String,
    /// What the server holds at most.
    pub limits: Limits,
}

impl Config {
    /// A board at `listen`, sessions in memory, the default limits.
    pub fn at(listen: SocketAddr) -> Config {
        Config {
            listen,
            sessions: None,
            again: "sealed ui".into(),
            limits: Limits::default(),
        }
    }
}

/// A board being served.
#[derive(Clone)]
pub struct Board {
    addr: SocketAddr,
    gate: Arc<Mutex<Gate>>,
    stop: Arc<tokio::sync::watch::Sender<bool>>,
}

/// The time, ms since the Unix epoch (for tokens' and sessions' lives): the node's.
pub(crate) use sealed_node::shell::now_ms;

fn random() -> Result<[u8; 32], BoardError> {
    sealed_node::home::random32().map_err(|e| BoardError::Random(e.to_string()))
}

impl Board {
    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// A new login address: opening it once in a browser signs that browser in.
    pub fn login_url(&self) -> Result<String, BoardError> {
        let r = random()?;
        let token = self
            .gate
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .mint(now_ms(), r);
        Ok(format!("http://{}/login?token={token}", self.addr))
    }

    /// Stops serving: the port is closed and every connection dropped (a node that
    /// stops takes its board with it).
    pub fn stop(&self) {
        let _ = self.stop.send(true);
    }
}

/// Serves the board of `node` as `cfg` says until the runtime stops or
/// [`Board::stop`].
pub async fn serve(node: NodeHandle, cfg: Config) -> Result<Board, BoardError> {
    let listen = cfg.listen;
    if !listen.ip().is_loopback() {
        return Err(BoardError::NotLoopback(listen));
    }
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|why| BoardError::Listen { addr: listen, why })?;
    let addr = listener
        .local_addr()
        .map_err(|why| BoardError::Listen { addr: listen, why })?;
    let mut gate = Gate::new(addr.port());
    if let Some(path) = &cfg.sessions {
        gate.restore(keep::load(path), now_ms());
    }
    let gate = Arc::new(Mutex::new(gate));
    let app = api::router(api::App {
        node,
        gate: gate.clone(),
        sessions: cfg.sessions.map(Arc::new),
        again: Arc::new(cfg.again),
        limits: cfg.limits,
    });
    let (stop, stopped) = tokio::sync::watch::channel(false);
    tokio::spawn(serve::connections(listener, app, cfg.limits, stopped));
    Ok(Board {
        addr,
        gate,
        stop: Arc::new(stop),
    })
}
