//! The circuits of the computations: read once per process from the files embedded in
//! this build (spec/circuits/, every hash checked; about 90 ms, at first use) and shared
//! by every game it plays or audits. Nothing is compiled (spec/GAMES.md §5.15).

use std::sync::OnceLock;

use sealed_mpc::chain::FileError;
use sealed_mpc::play::game::Circuits;

/// Why the computations' circuits are not there: the files embedded in this build do
/// not read, a fault of this installation and never of a player.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the circuit files of this build: {0}")]
pub struct CircuitsError(#[from] pub FileError);

/// The process's circuits, read the first time they are asked for.
pub fn circuits() -> Result<&'static Circuits, CircuitsError> {
    static CIRCUITS: OnceLock<Result<Circuits, FileError>> = OnceLock::new();
    CIRCUITS
        .get_or_init(Circuits::from_files)
        .as_ref()
        .map_err(|e| CircuitsError(e.clone()))
}
