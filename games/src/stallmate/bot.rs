//! A random player for demos and tests that knows only what a player knows: it chooses
//! from its own [`MoverView`], never from the referee's position.
//!
//! On its turn it picks, uniformly, one of the view's candidate moves not yet answered
//! "illegal"; now and then (one time in four) it asks "Any?" first when that would be
//! heard; after a "try" it attempts pawn captures until one has been tried (option
//! `must-try`). Every legal move is a candidate, so a period always ends with a "yes".

use super::attempt::Attempt;
use super::view::MoverView;

/// The bot's next attempt, with `random` as its only source of chance; `None` when it is
/// not its turn.
pub fn choose(view: &MoverView, random: u64) -> Option<Attempt> {
    if !view.my_turn() {
        return None;
    }
    let candidates = view.candidates();
    if view.try_pending() {
        let captures: Vec<Attempt> = candidates
            .iter()
            .copied()
            .filter(|a| view.is_pawn_capture(a))
            .collect();
        if !captures.is_empty() {
            return pick(&captures, random);
        }
    }
    if view.any_is_heard() && random.is_multiple_of(4) {
        return Some(Attempt::Any);
    }
    pick(&candidates, random >> 2)
}

fn pick(from: &[Attempt], random: u64) -> Option<Attempt> {
    if from.is_empty() {
        return None;
    }
    from.get((random % from.len() as u64) as usize).copied()
}
