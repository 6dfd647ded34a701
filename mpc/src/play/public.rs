//! What both players know of a referee-less game: the options, whose move it is, how
//! many positions each window holds and how many attempts came before in the period —
//! enough to compose the next computation's circuit (`circuits.rs`) and to say where its
//! labels go after it.

use crate::chain::Flags;

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

/// What both players know of the game: enough to compose the next computation's circuit
/// and to say where its labels go.
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

    /// The public flags of the next attempt: whether this is the mover's first turn,
    /// the options, and whether a move made now reaches the ply limit.
    pub fn flags(&self) -> Flags {
        Flags {
            first_turn: self.moves[self.mover()] == 0,
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
