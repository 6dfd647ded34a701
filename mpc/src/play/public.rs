//! What both players know of a referee-less game: the options, whose move it is, how
//! many positions each window holds and how many attempts came before in the period —
//! enough to name the next computation's shape (`kept::KeptShape`) and where its labels
//! go after it.

use crate::kept::KeptShape;

/// The options the computation reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Option `must-try`.
    pub must_try: bool,
    /// Option `name-capturer`.
    pub name_capturer: bool,
    /// Option `ply-limit`.
    pub ply_limit: Option<u32>,
}

/// A window is padded to a multiple of this many positions (`Public::shape`).
pub const WINDOW_STEP: usize = 8;
/// The earlier attempts, to a multiple of this many.
pub const EARLIER_STEP: usize = 4;

/// What both players know of the game: enough to name the next computation's shape and
/// where its labels go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Public {
    /// The options.
    pub options: Options,
    /// Moves made.
    pub plies: u32,
    /// Whether White is to move.
    pub white_to_move: bool,
    /// Positions in each side's window.
    pub windows: [usize; 2],
    /// The mover's attempts so far this period.
    pub earlier: usize,
    /// Moves made by each side.
    pub moves: [u32; 2],
    /// Computations run so far (the start is run 0).
    pub run: u64,
}

/// Turns of each side whose shapes [`first_shapes`] lists.
const FIRST_TURNS: usize = 2;

/// The shapes a game under `options` meets first, in the order it meets them: each
/// side's first turns, at their first attempt and after one that made no move. What a
/// node compiles ahead (`Circuits::put`), so that no player waits for a compiler on his
/// first moves; walked with the game's own steps, so they are the shapes it will ask.
pub fn first_shapes(options: Options) -> Vec<KeptShape> {
    let mut p = Public::new(options);
    p.started();
    let mut out: Vec<KeptShape> = vec![];
    for _ in 0..2 * FIRST_TURNS {
        for made in [false, true] {
            let s = p.shape();
            if !out.contains(&s) {
                out.push(s);
            }
            p.after(made, false);
        }
    }
    out
}

impl Public {
    pub(super) fn new(options: Options) -> Public {
        Public {
            options,
            plies: 0,
            white_to_move: true,
            windows: [0, 0],
            earlier: 0,
            moves: [0, 0],
            run: 0,
        }
    }

    pub(super) fn mover(&self) -> usize {
        usize::from(!self.white_to_move)
    }

    /// The shape of the next attempt's computation: the window padded to a multiple of
    /// 8 and the earlier attempts to one of 4 with entries that repeat nothing, so that
    /// one compiled shape serves several states (a shape takes about a second to
    /// compile; the padding, at most 7 × 68 AND gates of fingerprint comparisons).
    pub fn shape(&self) -> KeptShape {
        let m = self.mover();
        KeptShape {
            mover_white: self.white_to_move,
            window: self.windows[m].div_ceil(WINDOW_STEP) * WINDOW_STEP,
            earlier: self.earlier.div_ceil(EARLIER_STEP) * EARLIER_STEP,
            first_turn: self.moves[m] == 0,
            must_try: self.options.must_try,
            name_capturer: self.options.name_capturer,
            limit: self.options.ply_limit.is_some_and(|l| self.plies + 1 >= l),
        }
    }

    /// After the start: the start position is the first of Black's window (after his
    /// first move White is to move, as at the start).
    pub(super) fn started(&mut self) {
        self.run += 1;
        self.windows = [0, 1];
    }

    /// After an attempt's computation: whether it made a move, and whether that move
    /// captured.
    pub(super) fn after(&mut self, made: bool, capture: bool) {
        self.run += 1;
        if made {
            let m = self.mover();
            if capture {
                self.windows = [0, 0];
            }
            self.windows[m] += 1;
            self.earlier = 0;
            self.moves[m] += 1;
            self.plies += 1;
            self.white_to_move = !self.white_to_move;
        } else {
            self.earlier += 1;
        }
    }
}
