//! One owner of the store at a time, and the hand-over between them.
//!
//! The store is one redb file that only one process may hold ([`StoreError::AlreadyOpen`]):
//! a running node, or a game command run with the node stopped ([`crate::offline`]). A
//! player's day starts both at once — a `watch sealed games`, a prompt that shows whose
//! move it is, the web board's first load, while `sealed node` starts — so neither may
//! fail because the other holds the file for a moment:
//!
//! - a node that starts while a command holds the store waits for it to finish (a
//!   command holds it for well under a second), and is refused at once only when another
//!   node already answers on the home's control socket;
//! - a command that finds no node answering and the store held waits for whichever comes
//!   first: a node answering on the control socket (a node was starting: ask it), or the
//!   store freeing (another command: run on the store).
//!
//! Both waits are this one loop, [`take`], bounded by [`StoreWait::limit`]. It is the
//! shell's business and the command line's, not the core's: the core never sees a file.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::home::Home;
use crate::store::{Store, StoreError};

/// How long a node or a command waits for the store by default. A command holds the
/// store for the time of one core over it (tens of milliseconds; a second for a store
/// of thousands of games), and a node takes it once, then binds its socket within a
/// second or so: 30 s covers a machine under heavy load many times over, and is short
/// enough that a store held for good (a command stopped in a debugger, another program)
/// is reported while its player is still looking.
pub const STORE_WAIT: Duration = Duration::from_secs(30);

/// How long to wait for the store, and where to say (once) that we wait.
#[derive(Clone, Copy, Debug)]
pub struct StoreWait {
    /// Give up after this long.
    pub limit: Duration,
    /// Told once, when the store is found held, what we wait for (a line for stderr).
    pub say: fn(&str),
}

impl Default for StoreWait {
    fn default() -> Self {
        StoreWait {
            limit: STORE_WAIT,
            say: |m| tracing::warn!("{m}"),
        }
    }
}

/// Who is taking the store: it decides what a node answering on the socket means, and
/// the words of the one line said while waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taker {
    /// `sealed node` starting: another node answering means this one must not start.
    Node,
    /// A game command with no node answering: a node answering is one that started
    /// meanwhile, to be asked instead.
    Command,
}

/// What [`take`] got.
#[derive(Debug)]
pub enum Taken {
    /// The store, this process's alone until dropped.
    Store(Store),
    /// A node answers on the home's control socket (and so holds the store).
    Node,
}

/// Why the store could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum HandoverError {
    /// Someone held the store for the whole wait and no node answered: a command that
    /// does not finish, or another program with the file open.
    #[error(
        "the store {} is still in use after {} s, and no node answers for this home: a node \
         still starting, a `sealed` command that does not finish (stopped?), or another program \
         holds it; try again when it is done",
        path.display(),
        waited.as_secs()
    )]
    Held {
        /// The file.
        path: PathBuf,
        /// How long we waited.
        waited: Duration,
    },
    /// The store could not be opened for another reason (damaged, another layout, the
    /// disk).
    #[error("the store {}: {error}", path.display())]
    Store {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        error: StoreError,
    },
}

/// Takes the home's store, or finds a node answering for it; while neither (the store
/// held by another process and no node answering), says once what it waits for and
/// tries again until `wait.limit` has passed. Blocks the thread (an async caller runs it
/// with `spawn_blocking`).
pub fn take(home: &Home, taker: Taker, wait: StoreWait) -> Result<Taken, HandoverError> {
    take_at(
        &home.store_path(),
        &home.socket_path(),
        taker,
        wait,
        Instant::now(),
    )
}

fn take_at(
    path: &Path,
    socket: &Path,
    taker: Taker,
    wait: StoreWait,
    start: Instant,
) -> Result<Taken, HandoverError> {
    // Short at first: most holds are one command's tens of milliseconds.
    let mut pause = Duration::from_millis(5);
    let mut told = false;
    loop {
        // The socket first: a node that answers holds the store, and trying to open the
        // file would only fail.
        if crate::control::answers(socket) {
            return Ok(Taken::Node);
        }
        match Store::open(path) {
            Ok(store) => return Ok(Taken::Store(store)),
            Err(StoreError::AlreadyOpen(_)) => {}
            Err(error) => {
                return Err(HandoverError::Store {
                    path: path.to_path_buf(),
                    error,
                });
            }
        }
        let waited = start.elapsed();
        if waited >= wait.limit {
            return Err(HandoverError::Held {
                path: path.to_path_buf(),
                waited,
            });
        }
        if !told {
            told = true;
            (wait.say)(&waiting(taker, wait.limit));
        }
        std::thread::sleep(pause.min(wait.limit - waited));
        pause = (pause * 2).min(Duration::from_millis(100));
    }
}

/// The one line said while waiting.
fn waiting(taker: Taker, limit: Duration) -> String {
    let s = limit.as_secs();
    match taker {
        Taker::Node => format!(
            "the store is in use by a command of this home: waiting for it to finish (up to {s} s)"
        ),
        Taker::Command => format!(
            "the store is in use (a node starting, or another command): waiting for the node \
             to answer or the store to be free (up to {s} s)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static SAID: AtomicUsize = AtomicUsize::new(0);

    fn dir(label: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("sealed-handover-{}-{label}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("temporary folder");
        d
    }

    fn quiet(limit: Duration) -> StoreWait {
        StoreWait {
            limit,
            say: |_| {
                SAID.fetch_add(1, Ordering::SeqCst);
            },
        }
    }

    #[test]
    fn a_free_store_is_taken_without_a_word() {
        let d = dir("free");
        let said = SAID.load(Ordering::SeqCst);
        let got = take_at(
            &d.join("store.redb"),
            &d.join("node.sock"),
            Taker::Command,
            quiet(Duration::ZERO),
            Instant::now(),
        );
        assert!(matches!(got, Ok(Taken::Store(_))), "{got:?}");
        assert_eq!(SAID.load(Ordering::SeqCst), said);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_held_store_is_waited_for_then_taken() {
        let d = dir("held");
        let path = d.join("store.redb");
        let held = Store::open(&path).expect("the store opens");
        static TOLD: AtomicUsize = AtomicUsize::new(0);
        let wait = StoreWait {
            limit: Duration::from_secs(30),
            say: |_| {
                TOLD.fetch_add(1, Ordering::SeqCst);
            },
        };
        let freed = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            drop(held);
        });
        let got = take_at(
            &path,
            &d.join("node.sock"),
            Taker::Node,
            wait,
            Instant::now(),
        );
        freed.join().expect("the holder ends");
        assert!(matches!(got, Ok(Taken::Store(_))), "{got:?}");
        assert_eq!(
            TOLD.load(Ordering::SeqCst),
            1,
            "said once, however many tries"
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_store_held_for_good_is_reported_after_the_wait() {
        let d = dir("stuck");
        let path = d.join("store.redb");
        let _held = Store::open(&path).expect("the store opens");
        let got = take_at(
            &path,
            &d.join("node.sock"),
            Taker::Command,
            quiet(Duration::from_millis(200)),
            Instant::now(),
        );
        match got {
            Err(HandoverError::Held { waited, .. }) => {
                assert!(waited >= Duration::from_millis(200))
            }
            other => panic!("{other:?}"),
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_node_answering_is_found_though_the_store_is_held() {
        let d = dir("node");
        let path = d.join("store.redb");
        let _held = Store::open(&path).expect("the store opens");
        let socket = d.join("node.sock");
        let _listening = std::os::unix::net::UnixListener::bind(&socket).expect("bind");
        let got = take_at(
            &path,
            &socket,
            Taker::Command,
            quiet(Duration::from_secs(30)),
            Instant::now(),
        );
        assert!(matches!(got, Ok(Taken::Node)), "{got:?}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
