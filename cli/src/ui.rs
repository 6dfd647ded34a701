//! `sealed ui` and `sealed node --ui`: the web board (sealed-web) of a running node, on
//! 127.0.0.1, with a login address printed (and opened in a browser where one can be).
//!
//! A node starts its board on the first `sealed ui` if `--ui` did not start it, so the
//! command works against any running node; with no node running, `sealed ui` runs one
//! (as `sealed node --ui` would) in the foreground. The board keeps its port in the
//! home (`ports`, as the node's own ports) and its sessions in `ui-sessions` (no secret:
//! the SHA-256 of each), so after a restart a browser finds it at the same address and
//! is still signed in: a node that had signed-in browsers serves its board again as it
//! starts.
//!
//! The login address never goes on a command line, where any local user could read it
//! (`/proc/<pid>/cmdline`) and sign in first: the browser is opened on a file of the
//! home, readable by its owner alone, that sends it on to the address — as notebook
//! servers do.

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sealed_node::control::{BoardFailed, BoardHook, ControlRequest};
use sealed_node::{Home, NodeHandle};
use sealed_web::BoardError;

use crate::output;

/// The board of one node: started on the first login asked for.
struct Slot {
    node: NodeHandle,
    home: Home,
    board: tokio::sync::Mutex<Option<sealed_web::Board>>,
}

/// Where the board keeps its sessions.
fn sessions_path(home: &Home) -> PathBuf {
    home.dir.join("ui-sessions")
}

/// What a person runs for a new login address of this home's board: `sealed ui` with
/// the home spelt out, so that it is right whichever way the home was chosen.
fn again(home: &Home) -> String {
    let dir = std::path::absolute(&home.dir).unwrap_or_else(|_| home.dir.clone());
    format!(
        "sealed --home {} ui",
        sealed_node::home::shell_word(&dir.display().to_string())
    )
}

impl Slot {
    /// Serves the board if it is not served yet.
    async fn start(&self) -> Result<sealed_web::Board, BoardError> {
        let mut board = self.board.lock().await;
        if let Some(b) = board.as_ref() {
            return Ok(b.clone());
        }
        let kept = self.home.ports();
        let port = kept.get("ui").copied().filter(|p| free(*p)).unwrap_or(0);
        let cfg = sealed_web::Config {
            sessions: Some(sessions_path(&self.home)),
            again: again(&self.home),
            ..sealed_web::Config::at(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
        };
        let b = sealed_web::serve(self.node.clone(), cfg).await?;
        let mut now = self.home.ports();
        if now.insert("ui".into(), b.addr().port()) != Some(b.addr().port())
            && let Err(e) = self.home.save_ports(&now)
        {
            output::error(&format!(
                "the board's port is not kept for the next start: {e}"
            ));
        }
        *board = Some(b.clone());
        Ok(b)
    }

    async fn login(&self) -> Result<String, BoardError> {
        self.start().await?.login_url()
    }
}

/// Whether a port of 127.0.0.1 is free now.
fn free(port: u16) -> bool {
    std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, port)).is_ok()
}

/// The hook the control socket answers `sealed ui` with; and, when browsers were signed
/// in to this home's board before the node stopped, the board served again now (its
/// address, to print).
pub async fn hook(node: NodeHandle, home: Home) -> (BoardHook, Option<String>) {
    let slot = Arc::new(Slot {
        node,
        home: home.clone(),
        board: tokio::sync::Mutex::new(None),
    });
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let mut back = None;
    if sealed_web::keep::live(&sessions_path(&home), now) {
        match slot.start().await {
            Ok(b) => back = Some(format!("http://{}/", b.addr())),
            Err(e) => output::error(&format!("the web board: {e}")),
        }
    }
    let hook: BoardHook = Arc::new(move || {
        let slot = slot.clone();
        Box::pin(async move { slot.login().await.map_err(BoardFailed::from) })
    });
    (hook, back)
}

/// The page the browser is opened on: it sends the browser on to the login address.
/// Written owner-only before anything reads it (a new file each time, renamed in).
fn opener_page(home: &Home, url: &str) -> std::io::Result<PathBuf> {
    let path = home.dir.join("ui-open.html");
    let tmp = home.dir.join("ui-open.html.tmp");
    let _ = std::fs::remove_file(&tmp);
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    // The address is ours (http://127.0.0.1:<port>/login?token=<hex>): nothing in it
    // needs escaping in an attribute, but it is escaped all the same.
    let safe: String = url
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || ":/.?=_-".contains(*c))
        .collect();
    let mut f = opts.open(&tmp)?;
    write!(
        f,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"refresh\" content=\"0;url={safe}\"><title>sealed</title></head>\
         <body><p>Opening your board: <a href=\"{safe}\">{safe}</a></p></body></html>\n"
    )?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}

/// Opens a file in the desktop's browser (`xdg-open`, `open`) when one answers.
fn open_in_browser(path: &Path) {
    for opener in ["xdg-open", "open"] {
        let spawned = std::process::Command::new(opener)
            .arg(path)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if spawned.is_ok() {
            break;
        }
    }
}

/// Prints a login address, and, when asked, opens the board in the desktop's browser
/// through a file that leads to it (the address itself is on no command line); a
/// failure to open is no error, the address is printed.
pub fn announce(home: &Home, url: &str, open: bool) {
    output::stdout(&format!("ui        {url}\n"));
    if open {
        match opener_page(home, url) {
            Ok(path) => open_in_browser(&path),
            Err(e) => output::error(&format!(
                "the board is not opened in a browser ({}): {e}",
                home.dir.display()
            )),
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
        match sealed_node::control::call::<String>(&socket, &ControlRequest::Ui) {
            Ok(url) => {
                announce(home, &url, open);
                0
            }
            Err(e) => {
                output::error(&e.to_string());
                2
            }
        },
    )
}
