//! Fault points: places where a test makes the node's disk fail or its process die, at
//! a chosen moment, to prove that no crash and no failed write makes an honest seat
//! sign two things at one position (spec/PROTOCOL.md §11.2).
//!
//! They are [`fail`] points, compiled in only with this crate's `failpoints` feature
//! (the command line's tests turn it on; a release build has none). A process reads
//! them from the `FAILPOINTS` environment variable when it starts
//! (`FAILPOINTS="store-crash-after-commit=3*off->return"`: the fourth commit kills it),
//! and a running node takes new ones through its control socket (`failpoint`).

/// Every write, resize and fsync of the store's file fails as a full disk does while
/// this point returns.
pub const STORE_IO: &str = "store-io";
/// A store commit fails as a full disk makes it fail, and the store stays failed
/// until reopened (redb latches I/O failures): one point per commit, so
/// `1*off->return` fails exactly the second commit from now.
pub const COMMIT_ERROR: &str = "store-commit-error";
/// The process dies (abort, as `kill -9` would stop it) in a store write after the
/// transaction is built and before it commits.
pub const CRASH_BEFORE_COMMIT: &str = "store-crash-before-commit";
/// The process dies right after a store write committed, before the node does
/// anything with it (nothing it just made durable is sent).
pub const CRASH_AFTER_COMMIT: &str = "store-crash-after-commit";

/// The node signs the hash of the computation's message at the position this point
/// returns (`return(5)`) and never sends its bytes to the other player: the sender that
/// frames the receiver, for the tests of spec/GAMES.md §5.15 "A message withheld".
pub const WITHHOLD_MESSAGE: &str = "computations-withhold";

/// Whether [`WITHHOLD_MESSAGE`] says to keep the message at `index` back.
pub fn withholds(index: u64) -> bool {
    #[cfg(feature = "failpoints")]
    {
        fail::eval(WITHHOLD_MESSAGE, |arg| arg)
            .flatten()
            .is_some_and(|a| a.trim().parse::<u64>() == Ok(index))
    }
    #[cfg(not(feature = "failpoints"))]
    {
        let _ = index;
        false
    }
}

/// The process dies (abort, as a stack overflow would stop it) as the node begins to
/// restore the game whose id starts with the hex this point returns (`return(3f2a)`):
/// for the tests of the start journal (`journal.rs`).
pub const RESTORE_CRASH: &str = "restore-crash";

/// Dies if [`RESTORE_CRASH`] names `id`.
pub fn crash_restoring(id: &sealed_core::GameId) {
    #[cfg(feature = "failpoints")]
    {
        let hex = hex::encode(id);
        if fail::eval(RESTORE_CRASH, |arg| arg)
            .flatten()
            .is_some_and(|p| !p.trim().is_empty() && hex.starts_with(p.trim()))
        {
            std::process::abort();
        }
    }
    #[cfg(not(feature = "failpoints"))]
    {
        let _ = id;
    }
}

/// Whether this build has fault points.
pub fn enabled() -> bool {
    cfg!(feature = "failpoints")
}

/// Reads the fault points of `FAILPOINTS`; keep the value alive while the program runs.
/// Without the feature, nothing.
pub fn setup() -> Option<Box<dyn std::any::Any>> {
    #[cfg(feature = "failpoints")]
    {
        Some(Box::new(fail::FailScenario::setup()))
    }
    #[cfg(not(feature = "failpoints"))]
    {
        None
    }
}

/// Sets a fault point's actions (`fail`'s syntax: `off`, `return`, `3*off->return`),
/// for a running node's control socket.
pub fn configure(name: &str, actions: &str) -> Result<(), FaultError> {
    #[cfg(feature = "failpoints")]
    {
        fail::cfg(name, actions).map_err(FaultError::Actions)
    }
    #[cfg(not(feature = "failpoints"))]
    {
        let _ = (name, actions);
        Err(FaultError::NotBuilt)
    }
}

/// Why a fault point was not set.
#[derive(Debug, thiserror::Error)]
pub enum FaultError {
    /// The build's: this binary was built without fault points.
    #[error("this build has no fault points (build with the failpoints feature)")]
    NotBuilt,
    /// The caller's: actions `fail` cannot read (its own words).
    #[error("{0}")]
    Actions(String),
}

/// Stops the process at once, as a crash does: no destructor, no flush, no goodbye.
#[cfg_attr(not(feature = "failpoints"), allow(dead_code))]
pub(crate) fn crash() -> ! {
    std::process::abort()
}
