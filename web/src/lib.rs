//! The board in the browser: a web app that a running node serves on 127.0.0.1 — the
//! games, invitations, a new game's terms, and each game's board to click, updated live
//! as the opponent moves.
//!
//! It is one more front end of the node, beside the control socket: every request that
//! reads or changes a game is a [`ControlRequest`](sealed_node::control::ControlRequest)
//! answered by the same function the socket uses, so the page can do nothing `sealed`
//! cannot, and shows this seat exactly what `sealed show` shows it. The board, the
//! legal moves and the prompts come from the games' engines (`grid` and `choices` of
//! the show document); the page's script draws them and sends the text of the act
//! clicked, never deciding a rule itself.
//!
//! Files: the door — tokens, sessions, Host and Origin — without IO `gate.rs`, and as
//! axum middleware with the security headers `guard.rs`; the JSON API and the live
//! stream `api.rs`; the page, its script and style, all inside the binary, `assets.rs`
//! (from `assets/`).

mod api;
mod assets;
pub mod gate;
mod guard;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

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

/// A board being served.
#[derive(Clone)]
pub struct Board {
    addr: SocketAddr,
    gate: Arc<Mutex<Gate>>,
}

/// The time, ms since the Unix epoch (for tokens' lives).
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

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
}

/// Serves the board of `node` at `listen` (a loopback address; port 0 takes any) until
/// the runtime stops.
pub async fn serve(node: NodeHandle, listen: SocketAddr) -> Result<Board, BoardError> {
    if !listen.ip().is_loopback() {
        return Err(BoardError::NotLoopback(listen));
    }
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|why| BoardError::Listen { addr: listen, why })?;
    let addr = listener
        .local_addr()
        .map_err(|why| BoardError::Listen { addr: listen, why })?;
    let gate = Arc::new(Mutex::new(Gate::new(addr.port())));
    let app = api::router(api::App {
        node,
        gate: gate.clone(),
    });
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::warn!("the board stopped: {e}");
        }
    });
    Ok(Board { addr, gate })
}
