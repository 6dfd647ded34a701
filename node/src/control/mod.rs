//! The control path from `sealed` commands to a running node: a Unix socket in the home
//! folder (owner-only, like the folder), one JSON request per line, one JSON answer.
//!
//! ```text
//! → {"cmd":"move","game":"3f2a","text":"4Ci3","expect":12}
//! → {"cmd":"generic","game":"3f2a","generic":"offer-draw","expect":null}
//! ← {"ok":null}            or   {"error":"the game is at ply 13, not 12: nothing sent","fault":"conflict"}
//! ```
//!
//! An answer is a [`Reply`]: its typed value ([`Answered`], written as the value alone),
//! or the refusal's words and whose fault it is ([`Fault`]), which the web board turns
//! into its HTTP status. A face decodes the value as the type its request asks for
//! ([`call`], [`FromAnswer`]). Every object on the socket has its keys in order
//! ([`json_text`]), as the golden records fix them.
//!
//! Here the requests, the node's end and the proposal; `answered.rs` the answers' types;
//! `client.rs` the face's end.

mod answered;
mod client;

use std::path::Path;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

pub use answered::{Answered, FromAnswer, Transcript};
pub use client::{CallError, answers, call, decode};

use sealed_games::table::Generic;

use crate::core::{Cmd, Fault, NodeError, ShowFormat};
use crate::handle::NodeHandle;
use crate::shell::{ProposeArgs, read_peer, read_point};

/// One answer of the control path: `{"ok": …}`, or `{"error": "…", "fault": "…"}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Reply {
    /// What was asked for.
    Ok {
        /// Its value (`null` for a command that answers nothing).
        ok: Answered,
    },
    /// Refused: nothing was signed or sent.
    Refused {
        /// Why, in words for the person.
        error: String,
        /// Whose fault.
        fault: Fault,
    },
}

impl Reply {
    /// A node's refusal.
    pub fn refused(e: &NodeError) -> Reply {
        Reply::Refused {
            error: e.to_string(),
            fault: e.fault(),
        }
    }

    /// The answer, or the refusal as the error it was.
    pub fn of(r: Result<Answered, NodeError>) -> Reply {
        match r {
            Ok(ok) => Reply::Ok { ok },
            Err(e) => Reply::refused(&e),
        }
    }

    /// As one line of the socket, without its newline ([`json_text`]; a value serde
    /// cannot write, which a reply never holds, is answered as the node's own fault, in
    /// fixed words that are valid JSON).
    pub fn line(&self) -> String {
        json_text(self).unwrap_or_else(|_| {
            r#"{"error":"the answer could not be written","fault":"node"}"#.to_owned()
        })
    }
}

/// A value as JSON text with every object's keys in order, as the control socket and
/// the web board have always written them (the golden records fix the bytes): the
/// typed value goes through serde_json's map, which keeps its keys sorted.
pub fn json_text<T: Serialize>(value: &T) -> Result<String, serde_json::Error> {
    serde_json::to_value(value).map(|v| v.to_string())
}

/// One request.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "cmd", rename_all = "kebab-case")]
pub enum ControlRequest {
    /// Peer id and addresses.
    Info,
    /// Dial an address.
    Dial {
        /// Multiaddr.
        addr: String,
    },
    /// Propose a game.
    New(Proposal),
    /// Accept.
    Accept {
        /// Game id or prefix.
        game: String,
    },
    /// Decline.
    Decline {
        /// Game id or prefix.
        game: String,
    },
    /// Take up again a game set aside after a crash.
    Resume {
        /// Game id or prefix.
        game: String,
    },
    /// Withdraw a proposal not yet accepted.
    Withdraw {
        /// Game id or prefix.
        game: String,
    },
    /// A generic command (resign, offer or accept a draw, …) as a value, never as words.
    Generic {
        /// Game id or prefix.
        game: String,
        /// The command.
        generic: Generic,
        /// Refuse unless the game is at this ply.
        expect: Option<usize>,
    },
    /// An action in the game's notation.
    Move {
        /// Game id or prefix.
        game: String,
        /// The action.
        text: String,
        /// Refuse unless the game is at this ply.
        expect: Option<usize>,
    },
    /// Every game.
    Games,
    /// One game: `json`, `text` or `svg`.
    Show {
        /// Game id or prefix.
        game: String,
        /// Which form.
        format: ShowFormat,
    },
    /// The transcript file (base64).
    Transcript {
        /// Game id or prefix.
        game: String,
    },
    /// The score text.
    Score {
        /// Game id or prefix.
        game: String,
    },
    /// The game as PGN (chess games).
    Pgn {
        /// Game id or prefix.
        game: String,
    },
    /// Armored mail of a game.
    MailExport {
        /// Game id or prefix.
        game: String,
    },
    /// Import armored mail.
    MailImport {
        /// The text.
        text: String,
    },
    /// Bot on or off for a game (or all).
    Bot {
        /// Game id or prefix; none for every game.
        game: Option<String>,
        /// On or off.
        on: bool,
    },
    /// The peer book: where each peer was seen and reached.
    Peers,
    /// Keep connected to this mailbox (or rendezvous point) from now on.
    Mailbox {
        /// Its address with `/p2p/<id>`.
        addr: String,
    },
    /// A new login address of the web board this node serves, started now if it was
    /// not (`sealed ui`).
    Ui,
    /// As the arbiter of a game this node relays (`sealed rule GAME DISPUTE …`): keep
    /// the ruling and send it to the players' nodes.
    Ruling {
        /// Game id or prefix.
        game: String,
        /// The dispute ruled on.
        dispute: u32,
        /// The ruling as the game's act bytes, signed inside.
        act: Vec<u8>,
    },
    /// Stop the node.
    Shutdown,
    /// Set a fault point's actions (tests only: a build with the `failpoints` feature;
    /// `crate::faults` lists the points).
    Failpoint {
        /// The point.
        name: String,
        /// Its actions, in the `fail` crate's syntax (`return`, `off`, `2*off->return`).
        actions: String,
    },
}

/// A proposal as every face makes it (`sealed new`, the board's New game form, a
/// control request): the variant, its options and the other nodes by address, each
/// ending in `/p2p/<peer id>` (the opponent may be named by its peer id alone).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    /// Variant.
    pub variant: String,
    /// Options `(key, value)`.
    #[serde(default)]
    pub options: Vec<(String, String)>,
    /// The opponent's address with `/p2p/<id>`, or its peer id.
    pub peer: String,
    /// A mailbox's address with `/p2p/<id>`.
    #[serde(default)]
    pub mailbox: Option<String>,
    /// The referee's address with `/p2p/<id>` (Secret Stallmate).
    #[serde(default)]
    pub referee: Option<String>,
    /// A witness's address with `/p2p/<id>` (protocol version 2).
    #[serde(default)]
    pub witness: Option<String>,
    /// The arbiter's node, with `/p2p/<id>` (Tempête's physical deck): named in the
    /// terms (`arbiter`) and made the game's mailbox, so it holds what he rules from.
    #[serde(default)]
    pub arbiter: Option<String>,
}

impl Proposal {
    /// As a form fills it: the peer trimmed, a blank helper's address none.
    pub fn tidy(self) -> Proposal {
        let blank = |s: Option<String>| s.filter(|s| !s.trim().is_empty());
        Proposal {
            peer: self.peer.trim().to_owned(),
            mailbox: blank(self.mailbox),
            referee: blank(self.referee),
            witness: blank(self.witness),
            arbiter: blank(self.arbiter),
            ..self
        }
    }

    /// The arbiter's node as what the terms hold (spec/GAMES.md §4.20): his peer id as
    /// the `arbiter` option, his address as the game's mailbox. One mailbox is named per
    /// proposal here, so the arbiter's node is it; an `arbiter` option naming someone
    /// else is refused, as two names for one part.
    fn arbiter_named(self) -> Result<Proposal, NodeError> {
        let Some(text) = self.arbiter.clone() else {
            return Ok(self);
        };
        let bad = |why: String| Err(NodeError::Proposal(why));
        let addr = read_peer("arbiter", &text)?;
        let Some(id) = crate::shell::peer_of(&addr) else {
            return bad(format!(
                "the arbiter's address {text:?} does not end in /p2p/<peer id>"
            ));
        };
        if self.mailbox.as_ref().is_some_and(|m| *m != text) {
            return bad("the arbiter's node is the game's mailbox: name the arbiter or another mailbox, not both".into());
        }
        let mut options = self.options;
        match options.iter().find(|(k, _)| k == "arbiter") {
            Some((_, v)) if *v != id.to_string() => {
                return bad(format!(
                    "-o arbiter={v} and --arbiter {text} name two arbiters"
                ));
            }
            Some(_) => {}
            None => options.push(("arbiter".into(), id.to_string())),
        }
        Ok(Proposal {
            options,
            mailbox: Some(text),
            arbiter: None,
            ..self
        })
    }
}

/// Binds the control socket (replacing one a killed node left behind), owner-only.
pub fn listen(path: &Path) -> std::io::Result<tokio::net::UnixListener> {
    let _ = std::fs::remove_file(path);
    let listener = tokio::net::UnixListener::bind(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(listener)
}

/// The web board of a node (`sealed ui`), which lives above the node (sealed-web) and so
/// comes in as this: each call starts it if it is not served yet, and returns a new
/// login address, or why not.
pub type BoardHook = std::sync::Arc<
    dyn Fn() -> futures::future::BoxFuture<'static, Result<String, BoardFailed>> + Send + Sync,
>;

/// Why the web board was not served or gave no login address: the board's own error
/// (sealed-web's `BoardError`, which says whose fault it is — a port another program
/// holds, an address not on this machine, no randomness), boxed because the node lives
/// below the board and cannot name its type.
pub type BoardFailed = Box<dyn std::error::Error + Send + Sync>;

/// Serves the control socket until the node stops; `board` answers `ui` requests.
pub async fn serve(
    listener: tokio::net::UnixListener,
    node: NodeHandle,
    board: Option<BoardHook>,
) -> std::io::Result<()> {
    loop {
        let (stream, _) = listener.accept().await?;
        let node = node.clone();
        let board = board.clone();
        tokio::spawn(async move {
            let (read, mut write) = stream.into_split();
            let mut lines = BufReader::new(read).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let answer = match serde_json::from_str::<ControlRequest>(&line) {
                    Ok(req) => {
                        let stop = matches!(req, ControlRequest::Shutdown);
                        let a = match (&req, &board) {
                            (ControlRequest::Ui, Some(b)) => match b().await {
                                Ok(url) => Reply::Ok {
                                    ok: Answered::Text(url),
                                },
                                // The board could not be served: the node's side.
                                Err(e) => Reply::Refused {
                                    error: e.to_string(),
                                    fault: Fault::Node,
                                },
                            },
                            _ => answer(&node, req).await,
                        };
                        if stop {
                            let _ = write.write_all(format!("{}\n", a.line()).as_bytes()).await;
                            std::process::exit(0);
                        }
                        a
                    }
                    Err(e) => Reply::Refused {
                        error: format!("bad request: {e}"),
                        fault: Fault::Request,
                    },
                };
                if write
                    .write_all(format!("{}\n", answer.line()).as_bytes())
                    .await
                    .is_err()
                {
                    break;
                }
            }
        });
    }
}

/// The core command a request is, for the requests that only read or change this
/// node's games: a running node and [`crate::offline`] answer them alike. `None` for
/// those that need the network or the shell (dial, propose, the default mailbox,
/// shutdown, fault points).
pub fn core_command(req: &ControlRequest) -> Option<Cmd> {
    Some(match req.clone() {
        ControlRequest::Accept { game } => Cmd::Accept(game.into()),
        ControlRequest::Decline { game } => Cmd::Decline(game.into()),
        ControlRequest::Withdraw { game } => Cmd::Withdraw(game.into()),
        ControlRequest::Resume { game } => Cmd::Resume(game.into()),
        ControlRequest::Move { game, text, expect } => Cmd::Move {
            game: game.into(),
            text,
            expect,
        },
        ControlRequest::Generic {
            game,
            generic,
            expect,
        } => Cmd::Generic {
            game: game.into(),
            generic,
            expect,
        },
        ControlRequest::Games => Cmd::Games,
        ControlRequest::Show { game, format } => Cmd::Show(game.into(), format),
        ControlRequest::Transcript { game } => Cmd::Transcript(game.into()),
        ControlRequest::Score { game } => Cmd::Score(game.into()),
        ControlRequest::Pgn { game } => Cmd::Pgn(game.into()),
        ControlRequest::MailExport { game } => Cmd::MailExport(game.into()),
        ControlRequest::MailImport { text } => Cmd::MailImport(text),
        ControlRequest::Bot { game, on } => Cmd::Bot(game.map(Into::into), on),
        ControlRequest::Peers => Cmd::Peers,
        ControlRequest::Ruling { game, dispute, act } => Cmd::Ruling {
            game: game.into(),
            dispute,
            act,
        },
        ControlRequest::Info
        | ControlRequest::Dial { .. }
        | ControlRequest::New(_)
        | ControlRequest::Mailbox { .. }
        | ControlRequest::Ui
        | ControlRequest::Shutdown
        | ControlRequest::Failpoint { .. } => return None,
    })
}

/// The answer to one request: what the control socket sends back, and what the web
/// board turns into HTTP.
pub async fn answer(node: &NodeHandle, req: ControlRequest) -> Reply {
    if let Some(cmd) = core_command(&req) {
        return Reply::of(node.command(cmd).await.map(Answered::from));
    }
    let r: Result<Answered, NodeError> = match req {
        ControlRequest::Info => node.info().await.map(|i| Answered::Info(Box::new(i))),
        ControlRequest::Dial { addr } => match addr.parse() {
            Ok(a) => node.dial(a).await.map(|()| Answered::Done),
            Err(e) => Err(NodeError::Address(format!("{addr:?}: {e}"))),
        },
        ControlRequest::New(p) => {
            let Proposal {
                variant,
                options,
                peer,
                mailbox,
                referee,
                witness,
                arbiter: _,
            } = match p.arbiter_named() {
                Ok(p) => p,
                Err(e) => return Reply::refused(&e),
            };
            // A peer id alone names the opponent: the node finds it at a rendezvous
            // point it keeps connected, or through the mailbox.
            let peer = read_peer("peer", &peer);
            let mailbox = mailbox.map(|m| read_peer("mailbox", &m)).transpose();
            let referee = referee.map(|m| read_peer("referee", &m)).transpose();
            let witness = witness.map(|m| read_peer("witness", &m)).transpose();
            match (peer, mailbox, referee, witness) {
                (Ok(peer), Ok(mailbox), Ok(referee), Ok(witness)) => {
                    meet(node, &peer).await;
                    node.propose(ProposeArgs {
                        variant,
                        options,
                        peer,
                        mailbox,
                        referee,
                        witness,
                    })
                    .await
                    .map(Answered::Text)
                }
                (Err(e), ..) | (_, Err(e), ..) | (_, _, Err(e), _) | (.., Err(e)) => Err(e),
            }
        }
        ControlRequest::Mailbox { addr } => match read_point("mailbox", &addr) {
            Ok(a) => node.stand(a).await.map(|()| Answered::Done),
            Err(e) => Err(e),
        },
        ControlRequest::Shutdown => node.shutdown().await.map(|()| Answered::Done),
        ControlRequest::Ui => Err(NodeError::NoBoard),
        // The points live in this process, not in the core.
        ControlRequest::Failpoint { name, actions } => crate::faults::configure(&name, &actions)
            .map(|()| Answered::Done)
            .map_err(|e| NodeError::Failpoint(e.to_string())),
        // Answered above, by the core.
        _ => Err(NodeError::Unexpected("a core command".into())),
    };
    Reply::of(r)
}

/// Before a proposal to an address: connects to the peer and waits a moment for its node
/// to say who it is (identify), so that the proposal carries the opponent's name. A peer
/// that cannot be reached now is no error: the node keeps trying to deliver the
/// invitation, and the seat is then named by its peer id alone.
async fn meet(node: &NodeHandle, peer: &libp2p::Multiaddr) {
    let Some(id) = crate::shell::peer_of(peer) else {
        return;
    };
    let somewhere = peer
        .iter()
        .any(|p| !matches!(p, libp2p::multiaddr::Protocol::P2p(_)));
    if !somewhere || node.dial(peer.clone()).await.is_err() {
        return;
    }
    let id = id.to_string();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(2);
    while tokio::time::Instant::now() < deadline {
        let told = node.peers().await.is_ok_and(|view| {
            view.peers
                .iter()
                .any(|p| p.peer.as_deref() == Some(id.as_str()) && p.agent.is_some())
        });
        if told {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
