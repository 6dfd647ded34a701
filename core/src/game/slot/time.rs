//! What one game does with time alone: its clocks (the players' readings, or the wait
//! the witness's answer shows), the moment its awaited opponent runs out, its own next
//! deadline ([`Slot::poll_timeout`], the game's part of the core's `poll_timeout`), and
//! when this seat asks the game's witness for its times (after a move, while the clock
//! by the witness is stale; whenever another seat owes a step and looks overdue; now and
//! then whatever the readings say) and when the witness counts as silent. Each is a
//! function of the game and the time given, so computing it again gives the same answer.

use sealed_protocol::ids::Seat;
use sealed_protocol::verdict::ClaimAbout;

use super::super::asking::{ASK_EVERY_MS, ASK_STALE_MS};
use super::{Life, Slot};
use crate::clock::{Clocks, TimeControl};

impl Slot {
    /// The game's clocks at `now`: played here, with a time control, not done, and no
    /// outcome yet (a finished game's clock says nothing anyone can act on). With a
    /// witness, the wait in progress is the one a forfeit would count.
    pub(crate) fn clocks(&self, now: u64) -> Option<Clocks> {
        let clocks = self.clocks_running(now)?;
        let Life::Played(p) = &self.life else {
            return None;
        };
        p.table()
            .session()
            .verdict()
            .outcome
            .is_none()
            .then_some(clocks)
    }

    /// As [`Slot::clocks`], without asking whether the verdict has an outcome.
    fn clocks_running(&self, now: u64) -> Option<Clocks> {
        let Life::Played(p) = &self.life else {
            return None;
        };
        let clocks = p.clocks_by_players(now)?;
        Some(match self.witness_times() {
            Some(t) => clocks.by_witness(t.since(), t.deadline(), now),
            None => clocks,
        })
    }

    /// The opponent whose act is awaited and the moment his time runs out, when this
    /// seat may then claim a timeout (or have the witness prove it): unless a claim of
    /// this seat's already covers the wait. Now or past when he is overdue.
    pub(crate) fn timeout_at(&self, now: u64) -> Option<(Seat, u64)> {
        let Life::Played(p) = &self.life else {
            return None;
        };
        p.runs_out(self.clocks(now)?)
    }

    /// The moment the game next has something to do with no input, ms since the Unix
    /// epoch (its part of [`crate::Core::poll_timeout`]): the earlier of its duty's time
    /// and the moment the opponent it waits for runs out of time, with the clocks as
    /// they run. A function of the game alone, so computing it again gives the same
    /// moment (`deadlines.rs` relies on it). Only a game played here has one.
    pub(crate) fn poll_timeout(&self, now: u64) -> Option<u64> {
        let Life::Played(p) = &self.life else {
            return None;
        };
        let duty = p.table().turn().due_at;
        let clock = self
            .clocks_running(now)
            .and_then(|c| p.runs_out(c))
            .map(|(_, at)| at);
        match (duty, clock) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether this seat asks the game's witness for its times now: while its clock by
    /// the witness is stale (a move since its last answer; at most every
    /// [`ASK_STALE_MS`]), and while another seat owes a step (a move, or a deal, a draw
    /// value, a coin seed while this seat waits to move) and is past the witness's
    /// deadline or overdue by the players' readings, or was last asked about
    /// [`ASK_EVERY_MS`] ago. Only a trigger: whether the opponent is late is the
    /// witness's times against the engine's rule, which the session applies before
    /// posting.
    pub(crate) fn wants_witness(&self, now: u64) -> bool {
        let Life::Played(p) = &self.life else {
            return false;
        };
        let session = p.table().session();
        let terms = session.terms();
        if terms.witness().is_none() || session.phase().is_done() {
            return false;
        }
        let Ok(Some(tc)) = TimeControl::of(terms.proposal()) else {
            return false;
        };
        let me = session.seat();
        let asked = self.witness_asked_at();
        let times = self.witness_times();
        // The clock shown follows the witness: ask again after each move.
        if times.is_none()
            && p.table().turn().to_act.is_some()
            && now >= asked.saturating_add(ASK_STALE_MS)
        {
            return true;
        }
        let owed_by_other = session
            .verdict()
            .claims
            .iter()
            .any(|c| c.open && c.against != me && c.about == ClaimAbout::Unfinished);
        if !owed_by_other {
            return false;
        }
        // Past the deadline by the witness's own times, or overdue by the players'
        // readings: worth asking. An opponent can sign his readings late to look on
        // time, so the witness is also asked now and then whatever they say.
        let line = session.timeline();
        let overdue = terms
            .player_seats()
            .filter(|s| *s != me)
            .any(|s| Clocks::compute(&tc, terms.players(), &line, Some(s), now).overdue)
            || times.is_some_and(|t| t.seat != me && now > t.wait.deadline());
        overdue || now >= asked.saturating_add(ASK_EVERY_MS)
    }

    /// Whether the game's witness has left this seat's asks unanswered for
    /// [`ASK_EVERY_MS`] at `now`: then an overdue opponent gets a timeout claim, as in a
    /// game without a witness. A dead witness leaves the claim, never less.
    pub(crate) fn witness_silent(&self, now: u64) -> bool {
        self.witness_unanswered_since()
            .is_some_and(|since| now >= since.saturating_add(ASK_EVERY_MS))
    }
}
