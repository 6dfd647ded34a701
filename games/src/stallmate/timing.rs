//! A move period in the witness's time (protocol version 2 with a witness;
//! spec/GAMES.md §5.14): what the end-of-game audit reads from the receipts the seats
//! posted (`Revealed::stamps`).
//!
//! Period n runs from the witness's receipt of the envelope that started it (the
//! referee's `Begin`, or his close of period n − 1) for `period` milliseconds. An
//! attempt counts only when stamped, and only when its stamp is inside its period:
//! the stamp is the one thing about a private attempt that the opponent's side can
//! check, and the witness gave it to whoever asked first, the mover or the referee.
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
    /// receipt says when the witness held it.
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
}

/// The envelopes of a chain from `from` on whose stamps fall inside `window`: attempts
/// a mover made in time that the referee's seal left out.
pub fn stamped_in_time(
    r: &Revealed<'_>,
    chain: sealed_protocol::ids::ChainId,
    from: u64,
    window: Window,
) -> Vec<EnvRef> {
    let count = r.chains.get(&chain).map_or(0, Vec::len) as u64;
    (from..count)
        .map(|seq| EnvRef { chain, seq })
        .filter(|at| r.stamp_of(*at).is_some_and(|t| window.holds(t)))
        .collect()
}

/// The referee's view, live, of the running period in the witness's time: what his
/// node has been told so far. His duty answers an attempt only once he knows its stamp
/// is inside the window, and seals only once the witness's clock is past the window's
/// end; until the witness has said enough, he waits (the witness is trusted for
/// liveness, spec/GAMES.md §5.14).
pub mod live {
    use sealed_protocol::engine::Engine;
    use sealed_protocol::ids::EnvRef;
    use sealed_protocol::session::Session;

    use super::super::peer::Stallmate;
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

    fn hash(e: &Engine<Stallmate>, at: EnvRef) -> Option<sealed_protocol::hash::Hash> {
        e.envelope(at).map(|s| s.hash)
    }

    /// The running period's window, once the witness has stamped the envelope that
    /// started it (the last public act: `Begin` or the previous close).
    pub fn window(s: &Session<Stallmate>) -> Option<Window> {
        let e = s.engine();
        let (start, _) = e.main_line().last()?;
        let t = s.stamp(&hash(e, *start)?)?;
        Some(Window {
            start: t,
            end: t.saturating_add(e.rules().options.period.millis()),
        })
    }

    /// Where the attempt at `at` stands.
    pub fn attempted(s: &Session<Stallmate>, at: EnvRef) -> Attempted {
        let (Some(w), Some(t)) = (window(s), hash(s.engine(), at).and_then(|h| s.stamp(&h)))
        else {
            return Attempted::Unknown;
        };
        if w.holds(t) {
            Attempted::InTime
        } else {
            Attempted::Late
        }
    }

    /// Whether the witness's clock is surely past the running period's end.
    pub fn ended(s: &Session<Stallmate>, now: u64) -> bool {
        match (window(s), s.witness_now(now)) {
            (Some(w), Some(t)) => t > w.end,
            _ => false,
        }
    }
}
