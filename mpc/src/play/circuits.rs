//! The circuits a game garbles, read from the files of `spec/circuits/` and never
//! compiled: the start's, and for each attempt the chain of its plan composed into one
//! circuit (`chain::compose`, spec/GAMES.md §5.15); and how a computation's input wires
//! divide between carried labels and the two sides' fresh bits.
//!
//! An attempt's circuit grows with the mover's window and his earlier attempts this
//! period; [`MAX_WINDOW`] and [`MAX_EARLIER`] bound both, so that its garbled rows fit one
//! message of the game (the game's rules keep its states within them: the ply limit and
//! the attempts a period). Past them nothing is composed.

use std::sync::{Arc, Mutex};

use super::Fault;
use super::public::Public;
use super::run::{Layout, Source};
use crate::chain::{self, Chain, ChainError, FRESH_BITS, FileError, Flags, OUT_BITS, SETUP_BITS};
use crate::gc::Circuit;
use crate::kept::{FIXED_BITS, ITEM_BITS, KEY_BITS};

/// The most keys a mover's window may hold when he attempts: 64 blocks of `window8`.
pub const MAX_WINDOW: usize = 512;
/// The most attempts a mover may have made before this one in his period: 64 blocks of
/// `earlier4`.
pub const MAX_EARLIER: usize = 255;

/// Outputs of a computation kept as labels for later ones: the key of the position it
/// leaves, then the next `Fixed`. They come last; the outputs before them are returned.
const KEPT_BITS: usize = KEY_BITS + FIXED_BITS;

/// The circuits of every game of this build: the start and the chain's six, read from
/// the embedded files once (about 90 ms) and never changed, so one set serves every game
/// and audit of a process.
///
/// It also keeps the last attempt's circuit it composed: both sides of a computation
/// need the same one, and the audit plays both in one process, so the second composes
/// nothing (a long game's `sealed verify` went from 4.1 to 2.6 s with it, most of the
/// gain the page faults of a fresh circuit: docs/PERFORMANCE.md). One circuit, a few MB,
/// held until the next is composed; a game that asks for another shape only composes
/// again.
pub struct Circuits {
    chain: Chain,
    start: Arc<Circuit>,
    last: Mutex<Option<(Shape, Arc<Circuit>)>>,
}

/// What an attempt's circuit is composed from: the mover, his window's keys, his earlier
/// attempts this period, and the public flags.
type Shape = (bool, usize, usize, Flags);

/// Why a computation could not go on: a fault of the other side's, or of this
/// installation (its circuit files), or the caller's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// A message the other side sent.
    Fault(Fault),
    /// The circuit files embedded in this build do not read: the installation's fault,
    /// no player's.
    Files(FileError),
    /// An attempt's circuit could not be composed (a bug of ours).
    Chain(ChainError),
    /// A state past [`MAX_WINDOW`] or [`MAX_EARLIER`], which the game's rules never reach
    /// (the caller's mistake): nothing is composed.
    TooLarge {
        /// Keys in the mover's window.
        window: usize,
        /// His earlier attempts this period.
        earlier: usize,
    },
    /// A step asked out of turn (the caller's mistake).
    OutOfTurn(&'static str),
}

impl From<Fault> for PlayError {
    fn from(f: Fault) -> Self {
        PlayError::Fault(f)
    }
}

impl Circuits {
    /// The circuits read from the files embedded in this build, every hash checked.
    pub fn from_files() -> Result<Circuits, FileError> {
        Circuits::with_chain(Chain::from_files()?)
    }

    /// The start read from the files and the chain's circuits from `chain`: what a test
    /// gives the play or the audit to show they garble the circuits they are given (a
    /// chain with one gate changed by [`Chain::put`], say) and nothing else.
    pub fn with_chain(chain: Chain) -> Result<Circuits, FileError> {
        Ok(Circuits {
            chain,
            start: Arc::new(chain::files::start()?),
            last: Mutex::new(None),
        })
    }

    /// The next computation's circuit: the start's before it, else the attempt's
    /// composed from what both know.
    pub(super) fn next(&self, public: &Public, started: bool) -> Result<Arc<Circuit>, PlayError> {
        if !started {
            return Ok(Arc::clone(&self.start));
        }
        let m = public.mover();
        let (window, earlier) = (public.windows[m], public.earlier);
        if window > MAX_WINDOW || earlier > MAX_EARLIER {
            return Err(PlayError::TooLarge { window, earlier });
        }
        let shape = (public.white_to_move, window, earlier, public.flags());
        if let Some(c) = self.kept(&shape) {
            return Ok(c);
        }
        // Composed outside the lock: games of other threads wait for nothing.
        let (mover_white, _, _, flags) = shape;
        let c = chain::compose::compose(&self.chain, mover_white, window, earlier, flags)
            .map(Arc::new)
            .map_err(PlayError::Chain)?;
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) = Some((shape, Arc::clone(&c)));
        Ok(c)
    }

    /// The last circuit composed, if it has this shape. A lock poisoned by a thread
    /// that panicked holding it still holds a whole circuit or none: it is only ever
    /// replaced at once.
    fn kept(&self, shape: &Shape) -> Option<Arc<Circuit>> {
        let last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        last.as_ref()
            .filter(|(s, _)| s == shape)
            .map(|(_, c)| Arc::clone(c))
    }
}

/// The next computation's layout. The start: White's `Setup`, then Black's, two bits
/// returned (whether each back rank is a Chess960 one). An attempt: `Fixed`, the mover's
/// window's keys and his earlier attempts' items carried, then White's and Black's fresh
/// inputs; returned, whether a move was made and the two answers under their pads.
pub(super) fn layout(public: &Public, started: bool) -> Layout {
    if !started {
        return Layout {
            inputs: vec![
                (Source::Garbler, SETUP_BITS),
                (Source::Evaluator, SETUP_BITS),
            ],
            returned: START_BITS - KEPT_BITS,
        };
    }
    let carried =
        FIXED_BITS + public.windows[public.mover()] * KEY_BITS + public.earlier * ITEM_BITS;
    Layout {
        inputs: vec![
            (Source::Carried, carried),
            (Source::Garbler, FRESH_BITS),
            (Source::Evaluator, FRESH_BITS),
        ],
        returned: OUT_BITS - KEPT_BITS,
    }
}

/// Bits of the start's output: the two ranks' validity, the start's key, the first
/// `Fixed`.
const START_BITS: usize = 2 + KEPT_BITS;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::public::Options;

    #[test]
    fn a_state_past_the_limits_is_never_composed() {
        let circuits = Circuits::from_files().expect("the embedded circuit files");
        let options = Options {
            must_try: true,
            name_capturer: false,
            ply_limit: Some(1000),
        };
        let mut p = Public::new(options);
        p.started();
        p.windows[0] = MAX_WINDOW;
        p.earlier = MAX_EARLIER;
        assert!(
            circuits.next(&p, true).is_ok(),
            "the limits themselves compose"
        );
        p.windows[0] = MAX_WINDOW + 1;
        assert_eq!(
            circuits.next(&p, true).err(),
            Some(PlayError::TooLarge {
                window: MAX_WINDOW + 1,
                earlier: MAX_EARLIER
            })
        );
        p.windows[0] = 0;
        p.earlier = MAX_EARLIER + 1;
        assert!(matches!(
            circuits.next(&p, true),
            Err(PlayError::TooLarge { .. })
        ));
    }
}
