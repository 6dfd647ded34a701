//! The game commands with the node stopped. `games`, `show`, `export`, `mail`, `move`,
//! `accept` and the rest that only read or change this node's own games need no network:
//! the command line opens the store itself and runs one core over it, with no socket
//! (mail is for players with no network at all). A write is committed before the answer,
//! exactly as in a running node; nothing leaves the machine, and what was written goes
//! out when `sealed node` next starts, whose sync offers peers what they lack
//! (spec/PROTOCOL.md §16.3).
//!
//! The store is one redb file that only one process may hold: while a node runs, its
//! control socket answers instead; while a node is starting, opening the store fails
//! and says so.

use serde_json::Value;

use crate::control::{ControlRequest, core_command, value_of};
use crate::core::{Core, CoreConfig, Input, NodeError, Output, WriteFailed};
use crate::home::{Home, HomeError};
use crate::store::{Store, StoreError};

/// Why a command could not run with the node stopped.
#[derive(Debug, thiserror::Error)]
pub enum OfflineError {
    /// The command needs a running node (dialling, proposing, the peer book).
    #[error("this command needs a running node: start one with `sealed node`")]
    NeedsNode,
    /// The home has no key, or the operating system gave no randomness.
    #[error(transparent)]
    Home(#[from] HomeError),
    /// The store could not be opened (in use by a node that is starting, or damaged).
    #[error("the store {path}: {error}")]
    Store {
        /// The file.
        path: String,
        /// What went wrong.
        error: StoreError,
    },
    /// The core refused the command (the same refusal a running node gives).
    #[error(transparent)]
    Node(#[from] NodeError),
    /// The core gave no answer: a bug.
    #[error("no answer from the store's games")]
    NoAnswer,
}

/// Answers one control request from the home's store, with the node stopped; the
/// value is the one a running node's control socket would give.
pub fn answer(home: &Home, req: &ControlRequest) -> Result<Value, OfflineError> {
    let cmd = core_command(req).ok_or(OfflineError::NeedsNode)?;
    let key = home.key()?;
    let path = home.store_path();
    let store = Store::open(&path).map_err(|error| OfflineError::Store {
        path: path.display().to_string(),
        error,
    })?;
    let seed = crate::home::random32()?;
    let now = crate::shell::now_ms();
    let mut core = Core::start(key, CoreConfig::default(), seed, now, &store)?;
    core.handle(now, Input::Command { id: 0, cmd }, &store);
    let mut answer = None;
    while let Some(out) = core.poll_output() {
        match out {
            Output::Write { write, writes } => {
                let result = crate::shell::commit(&store, &writes).map_err(WriteFailed::from);
                core.handle(now, Input::Written { write, result }, &store);
            }
            Output::Recover { write } => {
                let result = store.recover().map(|_| 0).map_err(WriteFailed::from);
                core.handle(now, Input::Written { write, result }, &store);
            }
            Output::Reply { id: 0, result } => answer = Some(result),
            // Nothing leaves with the node stopped: no socket. What the store holds is
            // offered to the peers when the node starts.
            Output::Reply { .. }
            | Output::Send { .. }
            | Output::Respond { .. }
            | Output::Dial { .. }
            | Output::LookUp { .. } => {}
        }
    }
    Ok(value_of(answer.ok_or(OfflineError::NoAnswer)??))
}
