//! A move period in the witness's time (protocol version 2 with a witness;
//! spec/GAMES.md §5.14): what the end-of-game audit reads from the witness's times the
//! seats posted (`Revealed::stamps`: ledgers' times of public envelopes, stamps of deposits).
//!
//! Period n runs from the witness's time of the envelope that started it (the
//! referee's `Begin`, or his close of period n − 1) for `period` milliseconds of the
//! mover's own time: every wait for the referee's answer (from the attempt's stamp to
//! the answer's) pushes the end back by as much, so a slow referee — crashed, or in
//! league with the opponent — can never run a mover out of time.
//!
//! A private envelope's time is the stamp of its *deposit*: the envelope sealed to the
//! other seat of its log and left with the witness, which serves it to that seat. So an
//! attempt's time is when the referee could have had it, and an answer's when the mover
//! could: neither side can date an envelope it kept back. An attempt counts in its
//! period only when its deposit is stamped inside the window as extended by the waits
//! before it, and only when it acknowledged the call that started the period (it was
//! made for this period, not signed ahead for a period to come). No lower bound on the
//! stamp is needed: an attempt that saw the call cannot be older than it.
//!
//! Pure: the times come in the transcript; nothing here reads a clock.

use sealed_protocol::hidden::Revealed;
use sealed_protocol::ids::EnvRef;

use super::period::Period;

/// One period's span in the witness's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// When the witness first held the envelope that started the period.
    pub start: u64,
    /// The start plus the period's length: the last instant an attempt counts.
    pub end: u64,
}

impl Window {
    /// The window of the period started by the envelope at `started`, if a posted
    /// ledger says when the witness held it.
    pub fn of(r: &Revealed<'_>, started: EnvRef, period: Period) -> Option<Window> {
        let start = r.stamp_of(started)?;
        Some(Window {
            start,
            end: start.saturating_add(period.millis()),
        })
    }

    /// Whether a stamp at `at` is inside the window.
    pub fn holds(&self, at: u64) -> bool {
        at <= self.end
    }

    /// The window once the mover has waited from `asked` to `answered` for an answer.
    pub fn after_wait(self, asked: u64, answered: u64) -> Window {
        Window {
            start: self.start,
            end: self.end.saturating_add(answered.saturating_sub(asked)),
        }
    }
}

/// The envelopes of a chain from `from` on that saw the period's `call` and whose
/// deposits were stamped inside `window`: attempts the referee could have had in time
/// that his seal left out.
pub fn stamped_in_time(
    r: &Revealed<'_>,
    chain: sealed_protocol::ids::ChainId,
    from: u64,
    window: Window,
    call: EnvRef,
) -> Vec<EnvRef> {
    let count = r.chains.get(&chain).map_or(0, Vec::len) as u64;
    (from..count)
        .map(|seq| EnvRef { chain, seq })
        .filter(|at| r.saw(*at, call) && r.stamp_of(*at).is_some_and(|t| window.holds(t)))
        .collect()
}

/// The referee's view, live, of the running period in the witness's time: what his
/// node has been told so far. His duty answers an attempt only once he knows its stamp
/// is inside the window, and seals only once the witness's clock is past the window's
/// end; until the witness has said enough, he waits (the witness is trusted for
/// liveness, spec/GAMES.md §5.14).
pub mod live {
    use sealed_protocol::ids::EnvRef;
    use sealed_protocol::session::Session;

    use super::super::acts::{self, Private};
    use super::super::peer::{Stallmate, period_log};
    use super::Window;

    /// What the referee may do with an attempt, by the witness's time.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Attempted {
        /// Stamped inside the period: answer it.
        InTime,
        /// Stamped after the period's end: it does not count; leave it unanswered.
        Late,
        /// Its stamp (or the period's start) is not known yet: wait.
        Unknown,
    }

    /// The running period's window as the referee knows it now: from the witness's
    /// time of the envelope that started it (the last public act: `Begin` or the
    /// previous close), pushed back by every answered wait; and whether every stamp
    /// that needs is known (else the end may be later still).
    pub fn window(s: &Session<Stallmate>) -> Option<(Window, bool)> {
        let e = s.engine();
        let (start, _) = e.main_line().last()?;
        let t = s.witness_time(*start)?;
        let mut w = Window {
            start: t,
            end: t.saturating_add(e.rules().options.period.millis()),
        };
        let state = e.state()?;
        let mut known = true;
        let mut asked: Option<Option<u64>> = None;
        for p in e.private_acts(period_log(state.period)) {
            let stamp = s.witness_time(p.at);
            match acts::decode::<Private>(&p.bytes) {
                Ok(Private::Attempt(_)) => asked = Some(stamp),
                Ok(Private::Answer(_)) => match (asked.take(), stamp) {
                    (Some(Some(a)), Some(b)) => w = w.after_wait(a, b),
                    _ => known = false,
                },
                Err(_) => {}
            }
        }
        Some((w, known))
    }

    /// Where the attempt at `at` (the last act of the running period's log) stands.
    pub fn attempted(s: &Session<Stallmate>, at: EnvRef) -> Attempted {
        let (Some((w, true)), Some(t)) = (window(s), s.witness_time(at)) else {
            return Attempted::Unknown;
        };
        if w.holds(t) {
            Attempted::InTime
        } else {
            Attempted::Late
        }
    }

    /// When, by the referee's clock, the witness's clock will surely be past the running
    /// period's end as known now; `None` while a stamp it needs is unknown (its arrival
    /// wakes the referee's duty anyway).
    pub fn ends_by_own_clock(s: &Session<Stallmate>) -> Option<u64> {
        match window(s)? {
            (w, true) => s.witness_past(w.end),
            _ => None,
        }
    }

    /// Whether the witness's clock is surely past the running period's end, every wait
    /// counted.
    pub fn ended(s: &Session<Stallmate>, now: u64) -> bool {
        match (window(s), s.witness_now(now)) {
            (Some((w, true)), Some(t)) => t > w.end,
            _ => false,
        }
    }
}
