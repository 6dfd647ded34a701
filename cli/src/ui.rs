//! `sealed ui` and `sealed node --ui`: the web board (sealed-web) of a running node, on
//! 127.0.0.1, with a login address printed (and opened in a browser where one can be).
//!
//! A node starts its board on the first `sealed ui` if `--ui` did not start it, so the
//! command works against any running node; with no node running, `sealed ui` runs one
//! (as `sealed node --ui` would) in the foreground. The board keeps its port in the
//! home (`ports`, as the node's own ports), so a browser finds it at the same address
//! after a restart — where it signs in again: sessions live in the node's memory only.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use sealed_node::control::{BoardHook, ControlRequest};
use sealed_node::{Home, NodeHandle};

use crate::output;

/// The board of one node: started on the first login asked for.
struct Slot {
    node: NodeHandle,
    home: Home,
    board: tokio::sync::Mutex<Option<sealed_web::Board>>,
}

impl Slot {
    async fn login(&self) -> Result<String, String> {
        let mut board = self.board.lock().await;
        if board.is_none() {
            let kept = self.home.ports();
            let port = kept.get("ui").copied().filter(|p| free(*p)).unwrap_or(0);
            let at = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
            let b = sealed_web::serve(self.node.clone(), at)
                .await
                .map_err(|e| e.to_string())?;
            let mut now = self.home.ports();
            if now.insert("ui".into(), b.addr().port()) != Some(b.addr().port())
                && let Err(e) = self.home.save_ports(&now)
            {
                output::error(&format!(
                    "the board's port is not kept for the next start: {e}"
                ));
            }
            *board = Some(b);
        }
        match board.as_ref() {
            Some(b) => b.login_url().map_err(|e| e.to_string()),
            None => Err("the board did not start".into()),
        }
    }
}

/// Whether a port of 127.0.0.1 is free now.
fn free(port: u16) -> bool {
    std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, port)).is_ok()
}

/// The hook the control socket answers `sealed ui` with.
pub fn hook(node: NodeHandle, home: Home) -> BoardHook {
    let slot = Arc::new(Slot {
        node,
        home,
        board: tokio::sync::Mutex::new(None),
    });
    Arc::new(move || {
        let slot = slot.clone();
        Box::pin(async move { slot.login().await })
    })
}

/// Prints a login address, and opens it in the desktop's browser when asked and one
/// answers (`xdg-open`, `open`): a failure to open is no error, the address is printed.
pub fn announce(url: &str, open: bool) {
    output::stdout(&format!("ui        {url}\n"));
    if open {
        for opener in ["xdg-open", "open"] {
            let spawned = std::process::Command::new(opener)
                .arg(url)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn();
            if spawned.is_ok() {
                break;
            }
        }
    }
}

/// `sealed ui`: a login address of the running node's board; `None` when no node runs
/// for this home (the caller then runs one).
pub fn ask_running(home: &Home, open: bool) -> Option<i32> {
    let socket = home.socket_path();
    if !sealed_node::control::answers(&socket) {
        return None;
    }
    Some(
        match sealed_node::control::call(&socket, &ControlRequest::Ui) {
            Ok(v) => match v.as_str() {
                Some(url) => {
                    announce(url, open);
                    0
                }
                None => {
                    output::error(&format!("the node answered {v}"));
                    2
                }
            },
            Err(e) => {
                output::error(&e.to_string());
                2
            }
        },
    )
}
