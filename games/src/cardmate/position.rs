//! A Cardmate position: the board, who moves, and how the game stands; why a move is
//! refused ([`IllegalMove`]).

use super::board::{Board, Piece, Side, Square};
use super::card::{Card, Rank};
use super::moves::{Move, legal_moves};
use super::options::{NoMove, Options};

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum End {
    /// `winner` took the second enemy King (`×`).
    Kings {
        /// The winner.
        winner: Side,
    },
    /// `winner`'s cards stand on both squares of the enemy palace (`#`).
    Palace {
        /// The winner.
        winner: Side,
    },
    /// `side` had no legal move and lost (or drew, by option).
    NoMove {
        /// The player who could not move.
        side: Side,
        /// Whether that is a draw (option `no-move = draw`) rather than a loss.
        draw: bool,
    },
    /// The agreed ply limit was reached: a draw.
    PlyLimit,
}

impl End {
    /// The winner, if anybody won.
    pub fn winner(self) -> Option<Side> {
        match self {
            End::Kings { winner } | End::Palace { winner } => Some(winner),
            End::NoMove { side, draw: false } => Some(side.other()),
            End::NoMove { draw: true, .. } | End::PlyLimit => None,
        }
    }

    /// A few words.
    pub fn reason(self) -> String {
        match self {
            End::Kings { winner } => format!("{winner:?} took both Kings"),
            End::Palace { winner } => format!("{winner:?} conquered the palace"),
            End::NoMove { side, .. } => format!("{side:?} had no legal move"),
            End::PlyLimit => "ply limit reached".into(),
        }
    }
}

/// A position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The cards on the board.
    pub board: Board,
    /// Who moves.
    pub to_move: Side,
    /// Kings each side has lost.
    pub kings_lost: [u8; 2],
    /// Moves played.
    pub ply: u32,
    /// Set once the game is over.
    pub end: Option<End>,
}

/// What a move did, for notation: the marks `+`, `×`, `#`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Nothing special.
    None,
    /// The opponent's first King was taken.
    FirstKing,
    /// The opponent's second King was taken: the game is won.
    SecondKing,
    /// The enemy palace was conquered: the game is won.
    Palace,
}

/// Why [`Position::play`] refuses a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IllegalMove {
    /// The game is over.
    #[error("the game is over")]
    Over,
    /// The move is not among the legal moves.
    #[error("{card} to {to} is not legal here")]
    NotLegal {
        /// The card moved.
        card: Card,
        /// Where to.
        to: Square,
    },
}

impl Position {
    /// The start position on a board, Forehand to move.
    pub fn start(board: Board) -> Self {
        Position {
            board,
            to_move: Side::Forehand,
            kings_lost: [0, 0],
            ply: 0,
            end: None,
        }
    }

    /// The legal moves of the side to move (none once the game is over).
    pub fn legal_moves(&self, opts: &Options) -> Vec<Move> {
        if self.end.is_some() {
            vec![]
        } else {
            legal_moves(&self.board, self.to_move, opts)
        }
    }

    /// Plays a move the caller knows to be legal.
    pub fn play_unchecked(&mut self, m: &Move, opts: &Options) -> Mark {
        let side = self.to_move;
        let card = if m.promote {
            Card::new(Rank::Ace, m.card.suit)
        } else {
            m.card
        };
        self.board.set(m.from, None);
        self.board.set(m.to, Some(Piece { card, side }));
        self.ply += 1;
        self.to_move = side.other();
        let mut mark = Mark::None;
        if m.capture.is_some_and(|c| c.rank == Rank::King) {
            let lost = &mut self.kings_lost[side.other().index()];
            *lost += 1;
            mark = if *lost >= 2 {
                Mark::SecondKing
            } else {
                Mark::FirstKing
            };
        }
        if mark == Mark::SecondKing {
            self.end = Some(End::Kings { winner: side });
        } else if opts.palace
            && side
                .other()
                .palace()
                .iter()
                .all(|s| self.board.get(*s).is_some_and(|p| p.side == side))
        {
            self.end = Some(End::Palace { winner: side });
            mark = Mark::Palace;
        } else if legal_moves(&self.board, self.to_move, opts).is_empty() {
            self.end = Some(End::NoMove {
                side: self.to_move,
                draw: opts.no_move == NoMove::Draw,
            });
        } else if opts.ply_limit > 0 && self.ply >= opts.ply_limit {
            self.end = Some(End::PlyLimit);
        }
        mark
    }

    /// Plays a move if it is legal.
    pub fn play(&mut self, m: &Move, opts: &Options) -> Result<Mark, IllegalMove> {
        if self.end.is_some() {
            return Err(IllegalMove::Over);
        }
        if !self.legal_moves(opts).contains(m) {
            return Err(IllegalMove::NotLegal {
                card: m.card,
                to: m.to,
            });
        }
        Ok(self.play_unchecked(m, opts))
    }

    /// The square of a card of the side to move, if on the board.
    pub fn find_own(&self, card: Card) -> Option<Square> {
        self.board
            .find(card)
            .filter(|s| self.board.get(*s).is_some_and(|p| p.side == self.to_move))
    }

    /// Counts the move paths of the given depth (perft): a check on the move generator.
    pub fn perft(&self, depth: u32, opts: &Options) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal_moves(opts);
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .iter()
            .map(|m| {
                let mut next = self.clone();
                next.play_unchecked(m, opts);
                next.perft(depth - 1, opts)
            })
            .sum()
    }
}
