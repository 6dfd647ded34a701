//! The circuits of the computations, one set per process whatever it plays or audits,
//! and how they are compiled: each program once (a shape takes about a second), and
//! those a game meets first ahead of its first attempts (issue 57); why one does not
//! ([`CompileError`]).

use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, PoisonError};

use sealed_mpc::kept::KeptShape;
use sealed_mpc::play::game::{Circuits, PlayError};
use sealed_protocol::proposal::Terms;
use sealed_protocol::rules::OptionError;

use super::item;
use crate::stallmate::options::Options;

/// Why the computations' programs were not made ready.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CompileError {
    /// The terms' options do not read.
    #[error(transparent)]
    Options(#[from] OptionError),
    /// The start's program did not compile.
    #[error("{0:?}")]
    Start(PlayError),
    /// A shape's program did not compile: the compiler's own words
    /// (`sealed_mpc::kept::compile` gives its error as text).
    #[error("{0}")]
    Shape(String),
}

/// The compiled circuit shapes, one set per process, whatever it plays or audits: a
/// shape takes about a second to compile.
pub fn circuits() -> MutexGuard<'static, Circuits> {
    static CIRCUITS: OnceLock<Mutex<Circuits>> = OnceLock::new();
    CIRCUITS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

/// Compiles ahead, into the process's circuits, the start and the shapes a game under
/// `terms` meets first (`sealed_mpc::play::public::first_shapes`) that are not compiled
/// yet ([`ensure`]). A shape takes about a second: a node runs this off its event loop
/// as soon as it holds such a game, so that no player waits for a compiler on his first
/// moves (issue 57). How many programs it compiled.
pub fn warm_up(terms: &Terms) -> Result<usize, CompileError> {
    use sealed_mpc::play::public::first_shapes;
    let options = Options::from_proposal(&terms.proposal().rule_options())?;
    let mut made = usize::from(ensure(None)?);
    for shape in first_shapes(item::mpc_options(&options)) {
        made += usize::from(ensure(Some(shape))?);
    }
    Ok(made)
}

/// The programs being compiled now (`None`: the start's), and the signal that one is
/// done.
fn compiling() -> &'static (Mutex<Vec<Option<KeptShape>>>, Condvar) {
    static COMPILING: OnceLock<(Mutex<Vec<Option<KeptShape>>>, Condvar)> = OnceLock::new();
    COMPILING.get_or_init(Default::default)
}

/// Makes sure the program of `shape` (`None`: the start's) is in the process's
/// circuits. Each program is compiled once: a thread that needs one another thread is
/// compiling waits for it (a game's computation for the warm-up's, say) instead of
/// compiling it again beside it on a machine of two cores; the circuits are held only
/// to look and to put, never while compiling. Whether this call compiled it.
pub fn ensure(shape: Option<KeptShape>) -> Result<bool, CompileError> {
    let (busy, done) = compiling();
    let mut now = busy.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        let have = |c: &Circuits| shape.map_or_else(|| c.has_start(), |s| c.has(&s));
        if have(&circuits()) {
            return Ok(false);
        }
        if !now.contains(&shape) {
            break;
        }
        now = done.wait(now).unwrap_or_else(PoisonError::into_inner);
    }
    now.push(shape);
    drop(now);
    let made = match shape {
        None => sealed_mpc::play::circuits::compile_start()
            .map_err(CompileError::Start)
            .map(|p| circuits().put_start(p)),
        Some(s) => sealed_mpc::kept::compile(&s)
            .map_err(CompileError::Shape)
            .map(|p| circuits().put(s, p)),
    };
    busy.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .retain(|c| *c != shape);
    done.notify_all();
    made.map(|()| true)
}
