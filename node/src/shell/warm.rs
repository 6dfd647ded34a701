//! Circuits compiled ahead. Secret Stallmate without a referee computes every attempt
//! with a circuit of the position's shape, and a shape takes about a second to compile
//! (more on a busy machine): compiled when first needed, the first attempts of a game
//! between fresh nodes each waited 4 to 6 s (issue 57). As soon as this node holds such
//! a game, one blocking task compiles, into the process's circuits, the start and the
//! shapes of each side's first turns (the `warm_up` of the variant's computations, in
//! the games' registry), while the players still set up; later shapes are compiled when
//! first met, as before.
//!
//! What it holds: the ids of the computing games already looked at (at most the games
//! in memory, replaced whenever one is new) and one task at a time, which ends when its
//! shapes are compiled; a game that arrives while it runs is looked at once it ends.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use sealed_games::registry;
use sealed_games::table::Computations;
use sealed_protocol::proposal::Terms;

use super::Shell;
use crate::core::GameId;

/// The computing games looked at, and whether a warm-up runs.
#[derive(Default)]
pub(super) struct Warm {
    seen: BTreeSet<GameId>,
    running: Arc<AtomicBool>,
}

impl Shell {
    /// Compiles ahead for the computing games not looked at yet, off the event loop.
    pub(super) fn warm_circuits(&mut self) {
        let new: Vec<(Terms, Computations)> = self
            .core
            .computation_terms()
            .filter(|(id, _)| !self.warm.seen.contains(*id))
            .filter_map(|(_, t)| Some((t.clone(), registry::computations(t.variant())?)))
            .collect();
        if new.is_empty() || self.warm.running.swap(true, Ordering::AcqRel) {
            return;
        }
        self.warm.seen = self.core.computation_terms().map(|(id, _)| *id).collect();
        let running = Arc::clone(&self.warm.running);
        tokio::task::spawn_blocking(move || {
            for (terms, computations) in &new {
                match (computations.warm_up)(terms) {
                    Ok(n) => tracing::debug!(compiled = n, "circuits compiled ahead"),
                    Err(e) => tracing::warn!("circuits not compiled ahead: {e}"),
                }
            }
            running.store(false, Ordering::Release);
        });
    }
}
