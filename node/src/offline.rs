//! The game commands with the node stopped. `games`, `show`, `export`, `mail`, `move`,
//! `accept` and the rest that only read or change this node's own games need no network:
//! the command line opens the store itself and runs one core over it, with no socket
//! (mail is for players with no network at all). A write is committed before the answer,
//! exactly as in a running node; nothing leaves the machine, and what was written goes
//! out when `sealed node` next starts, whose sync offers peers what they lack
//! (spec/PROTOCOL.md §16.3).
//!
//! The store is one redb file that only one process may hold: while a node runs, its
//! control socket answers instead. A command that finds the store held with no node
//! answering (a node starting, or another command) waits for whichever comes first —
//! the node answering, then it is asked, or the store freeing, then the command runs
//! on it — saying once what it waits for, for up to [`crate::handover::STORE_WAIT`]
//! (the hand-over, `handover.rs`).

use crate::control::{Answered, CallError, ControlRequest, FromAnswer, call, core_command};
use crate::core::{CmdId, Core, CoreConfig, Input, NodeError, Output, WriteFailed};
use crate::handover::{HandoverError, StoreWait, Taken, Taker};
use crate::home::{Home, HomeError};
use crate::store::Store;
use sealed_protocol::keys::SecretKey;

/// Why a command could not run with the node stopped.
#[derive(Debug, thiserror::Error)]
pub enum OfflineError {
    /// The command needs a running node (dialling, proposing, the peer book).
    #[error("this command needs a running node: start one with `sealed node`")]
    NeedsNode,
    /// The home has no key, or the operating system gave no randomness.
    #[error(transparent)]
    Home(#[from] HomeError),
    /// The store could not be taken (held for the whole wait, or damaged).
    #[error(transparent)]
    Store(#[from] HandoverError),
    /// A node that started while the command waited was asked, and refused or stopped.
    #[error(transparent)]
    Asked(#[from] CallError),
    /// The core refused the command (the same refusal a running node gives).
    #[error(transparent)]
    Node(#[from] NodeError),
    /// The core gave no answer: a bug.
    #[error("no answer from the store's games")]
    NoAnswer,
    /// The core's answer is of another kind than the one the request asks for: a bug
    /// of the face's, which named the wrong type.
    #[error("the answer from the store's games is not of the kind asked for")]
    Unexpected,
}

/// Who answered a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answerer {
    /// The home's node, which started while the command waited for the store.
    Node,
    /// The store, with the node stopped: what was written goes out when it starts.
    Store,
}

/// Answers one control request from the home's store, with the node stopped (or, when a
/// node starts while the store is held, from that node); the value is the one a running
/// node's control socket would give, as the type the face asks for.
pub fn answer<T: FromAnswer>(
    home: &Home,
    req: &ControlRequest,
    wait: StoreWait,
) -> Result<(T, Answerer), OfflineError> {
    let cmd = core_command(req).ok_or(OfflineError::NeedsNode)?;
    let key = home.key()?;
    let store = match crate::handover::take(home, Taker::Command, wait)? {
        Taken::Store(store) => store,
        Taken::Node => return Ok((call(&home.socket_path(), req)?, Answerer::Node)),
    };
    let name = home.name();
    let name = if crate::home::check_name(&name).is_ok() {
        name
    } else {
        String::new()
    };
    let answer = run(key, name, cmd, &store)?;
    let answer = T::from_answer(answer).ok_or(OfflineError::Unexpected)?;
    Ok((answer, Answerer::Store))
}

/// Runs one command on one core over the store, with no socket; an acceptance signs
/// `name` (empty: none).
fn run(
    key: SecretKey,
    name: String,
    cmd: crate::core::Cmd,
    store: &Store,
) -> Result<Answered, OfflineError> {
    let seed = crate::home::random32()?;
    let now = crate::shell::now_ms();
    // An acceptance made here signs the home's name, as a running node's does.
    let cfg = CoreConfig {
        name,
        ..CoreConfig::default()
    };
    let mut core = Core::start(key, cfg, seed, now, store)?;
    const ONE: CmdId = CmdId(0);
    core.handle(now, Input::Command { id: ONE, cmd }, store);
    let mut answer = None;
    while let Some(out) = core.poll_output() {
        match out {
            Output::Write { write, writes } => {
                let result = crate::shell::commit(store, &writes).map_err(WriteFailed::from);
                core.handle(now, Input::Written { write, result }, store);
            }
            Output::Recover { write } => {
                let result = store.recover().map(|_| 0).map_err(WriteFailed::from);
                core.handle(now, Input::Written { write, result }, store);
            }
            Output::Reply { id: ONE, result } => answer = Some(result),
            // Nothing leaves with the node stopped: no socket. What the store holds is
            // offered to the peers when the node starts.
            Output::Reply { .. }
            | Output::Send { .. }
            | Output::Message { .. }
            | Output::Respond { .. }
            | Output::Dial { .. }
            | Output::LookUp { .. } => {}
        }
    }
    Ok(Answered::from(answer.ok_or(OfflineError::NoAnswer)??))
}
