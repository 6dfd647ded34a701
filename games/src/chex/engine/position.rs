//! A Chex position: the board, the stacks, whose turn, and how the game stands; why a
//! turn or a setup is refused ([`PlayError`], [`SetupError`]).

use super::board::{Board, Color, Kind, Piece, Square, Stack};
use super::moves::{self, Move};

/// Where the side to move is in its turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Choosing between a draw ([`Position::declare_draw`]) and a chess move.
    Turn,
    /// A draw was declared; the drawn piece must now be placed ([`Position::place`]).
    Placing,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum End {
    /// `winner` took the enemy King.
    KingCaptured {
        /// Who took it.
        winner: Color,
    },
    /// `color` drew its King and no placement square was safe from capture on the
    /// opponent's next move: a draw.
    KingUnplaceable {
        /// Who drew the King.
        color: Color,
    },
    /// `color` was to move with an empty stack and no legal move: a draw.
    NoMove {
        /// Who could not move.
        color: Color,
    },
    /// The agreed ply limit was reached: a draw.
    PlyLimit,
}

impl End {
    /// The winner; `None` for a draw.
    pub fn winner(self) -> Option<Color> {
        match self {
            End::KingCaptured { winner } => Some(winner),
            End::KingUnplaceable { .. } | End::NoMove { .. } | End::PlyLimit => None,
        }
    }

    /// Whether the game is drawn.
    pub fn is_draw(self) -> bool {
        self.winner().is_none()
    }

    /// A few words.
    pub fn reason(self) -> String {
        match self {
            End::KingCaptured { winner } => format!("{winner} captured the King"),
            End::KingUnplaceable { color } => {
                format!("{color} drew the King and could not place it safely: stalemate")
            }
            End::NoMove { color } => {
                format!("{color} had no piece to draw and no legal move: stalemate")
            }
            End::PlyLimit => "ply limit reached: draw".into(),
        }
    }
}

/// One whole turn: a draw with its placement, or a chess move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ply {
    /// A piece of `kind` was drawn and placed on `at`.
    Place {
        /// The drawn kind.
        kind: Kind,
        /// Where it went.
        at: Square,
    },
    /// A chess move.
    Move(Move),
}

/// Why a draw, a placement or a move is refused on a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlayError {
    /// The game is over.
    #[error("the game is over: {}", .0.reason())]
    Over(End),
    /// Another side is to move.
    #[error("it is {turn}'s turn, not {color}'s")]
    NotYourTurn {
        /// The side to move.
        turn: Color,
        /// The side that tried.
        color: Color,
    },
    /// The side drew already: it places that piece now.
    #[error("{0} has already drawn and must place the piece")]
    AlreadyDrawn(Color),
    /// The side drew: it places the piece, it does not move.
    #[error("{0} has drawn and must place the piece")]
    MustPlace(Color),
    /// The side's stack is empty: it cannot draw.
    #[error("{0}'s stack is empty: {0} must move")]
    StackEmpty(Color),
    /// A placement without a draw declared.
    #[error("{0} has not declared a draw")]
    NoDraw(Color),
    /// The stack holds no piece of that kind.
    #[error("{color} has no {} left to draw", kind.name())]
    NoneLeft {
        /// The side.
        color: Color,
        /// The kind asked for.
        kind: Kind,
    },
    /// The square is taken.
    #[error("{0} is occupied")]
    Occupied(Square),
    /// The first piece of the game goes on the origin.
    #[error("the first piece goes on the origin")]
    FirstOnOrigin,
    /// The square touches no piece.
    #[error("{0} touches no piece")]
    Isolated(Square),
    /// The move would split the pieces into two groups.
    #[error("{} from {from} to {to} breaks the board", kind.name())]
    BreaksBoard {
        /// The piece's kind.
        kind: Kind,
        /// Where it stands.
        from: Square,
        /// Where it was to go.
        to: Square,
    },
    /// The piece does not move so.
    #[error("a {} cannot go from {from} to {to}", kind.name())]
    CannotGo {
        /// The piece's kind.
        kind: Kind,
        /// Where it stands.
        from: Square,
        /// Where it was to go.
        to: Square,
    },
    /// No piece of the side to move stands there.
    #[error("no piece of {color} stands on {at}")]
    NoPieceOn {
        /// The side to move.
        color: Color,
        /// The square.
        at: Square,
    },
}

/// Why [`Position::setup`] refuses its pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// Two pieces are given the same square.
    #[error("two pieces on {0}")]
    TwoPieces(Square),
    /// More of a kind than the side's army holds.
    #[error("{color} has no {} left for {at}", kind.name())]
    NoneLeft {
        /// The side.
        color: Color,
        /// The kind.
        kind: Kind,
        /// Where the piece was to stand.
        at: Square,
    },
}

/// A position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The pieces in play.
    pub board: Board,
    /// Whose turn it is.
    pub to_move: Color,
    /// Where that player is in the turn.
    pub phase: Phase,
    /// The undrawn pieces, indexed by [`Color::index`].
    pub stacks: [Stack; 2],
    /// Whole turns played.
    pub ply: u32,
    /// The game is drawn once `ply` reaches this; 0 means no limit.
    pub ply_limit: u32,
    /// Set once the game is over.
    pub end: Option<End>,
}

impl Position {
    /// The start: empty board, full stacks, White to move.
    pub fn new(ply_limit: u32) -> Position {
        Position {
            board: Board::new(),
            to_move: Color::White,
            phase: Phase::Turn,
            stacks: [Stack::army(), Stack::army()],
            ply: 0,
            ply_limit,
            end: None,
        }
    }

    /// A position with these pieces on the board, `to_move` to move, each stack holding
    /// the army minus that side's pieces on the board (as if nothing had been taken),
    /// ply 0 and no limit. Connectivity is not required. Fails if a square is given
    /// twice or a side has more of a kind than its army.
    pub fn setup(to_move: Color, pieces: &[(Color, Kind, Square)]) -> Result<Position, SetupError> {
        let mut pos = Position::new(0);
        pos.to_move = to_move;
        for &(color, kind, at) in pieces {
            if pos.board.put(at, Piece::new(color, kind)).is_some() {
                return Err(SetupError::TwoPieces(at));
            }
            if !pos.stacks[color.index()].take(kind) {
                return Err(SetupError::NoneLeft { color, kind, at });
            }
        }
        Ok(pos)
    }

    /// The stack of `color`.
    pub fn stack(&self, color: Color) -> &Stack {
        &self.stacks[color.index()]
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }

    /// The legal chess moves of the side to move; none once the game is over or while
    /// a drawn piece waits to be placed.
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.end.is_some() || self.phase != Phase::Turn {
            return vec![];
        }
        moves::legal_moves(&self.board, self.to_move)
    }

    /// The moves of the side to move by movement alone, before the connectivity rule.
    pub fn pseudo_moves(&self) -> Vec<Move> {
        if self.end.is_some() || self.phase != Phase::Turn {
            return vec![];
        }
        moves::pseudo_moves(&self.board, self.to_move)
    }

    /// Whether the side to move may declare a draw: the game is on, no draw is pending
    /// and its stack is not empty.
    pub fn can_draw(&self) -> bool {
        self.end.is_none() && self.phase == Phase::Turn && !self.stack(self.to_move).is_empty()
    }

    /// Whether the side to move has no legal move and so must draw.
    pub fn must_draw(&self) -> bool {
        self.can_draw() && self.legal_moves().is_empty()
    }

    /// Declares that `color`, the side to move, draws instead of moving. The protocol
    /// then picks the piece from [`Position::draw_pool`] and calls [`Position::place`].
    pub fn declare_draw(&mut self, color: Color) -> Result<(), PlayError> {
        if let Some(end) = self.end {
            return Err(PlayError::Over(end));
        }
        if color != self.to_move {
            return Err(PlayError::NotYourTurn {
                turn: self.to_move,
                color,
            });
        }
        if self.phase == Phase::Placing {
            return Err(PlayError::AlreadyDrawn(color));
        }
        if self.stack(color).is_empty() {
            return Err(PlayError::StackEmpty(color));
        }
        self.phase = Phase::Placing;
        Ok(())
    }

    /// The undrawn pieces of `color`, sorted K, Q, R, B, N, P with repeats: the draw is
    /// `pool[i]` for a uniformly random `i`.
    pub fn draw_pool(&self, color: Color) -> Vec<Kind> {
        self.stack(color).pool()
    }

    /// Where a drawn piece may go now: the origin on an empty board, otherwise every
    /// empty square touching any piece.
    pub fn placement_squares(&self) -> Vec<Square> {
        self.board.placement_squares()
    }

    /// The placement squares where a King of the side to move could not be taken by a
    /// legal move of the opponent's very next turn.
    pub fn safe_king_squares(&self) -> Vec<Square> {
        let color = self.to_move;
        self.placement_squares()
            .into_iter()
            .filter(|&at| {
                let mut b = self.board.clone();
                b.put(at, Piece::new(color, Kind::King));
                !moves::can_capture(&b, color.other(), at)
            })
            .collect()
    }

    /// Places the drawn piece, after [`Position::declare_draw`]. Placing a King when
    /// [`Position::safe_king_squares`] is empty ends the game as a draw
    /// ([`End::KingUnplaceable`]); the King still goes where asked.
    pub fn place(&mut self, kind: Kind, at: Square) -> Result<(), PlayError> {
        if let Some(end) = self.end {
            return Err(PlayError::Over(end));
        }
        let color = self.to_move;
        if self.phase != Phase::Placing {
            return Err(PlayError::NoDraw(color));
        }
        if !self.stack(color).contains(kind) {
            return Err(PlayError::NoneLeft { color, kind });
        }
        if !self.placement_squares().contains(&at) {
            return Err(if self.board.get(at).is_some() {
                PlayError::Occupied(at)
            } else if self.board.is_empty() {
                PlayError::FirstOnOrigin
            } else {
                PlayError::Isolated(at)
            });
        }
        self.place_unchecked(kind, at);
        Ok(())
    }

    /// Places a drawn piece the caller knows may go there.
    pub fn place_unchecked(&mut self, kind: Kind, at: Square) {
        let color = self.to_move;
        let stalemate = kind == Kind::King && self.safe_king_squares().is_empty();
        self.stacks[color.index()].take(kind);
        self.board.put(at, Piece::new(color, kind));
        self.finish_turn(if stalemate {
            Some(End::KingUnplaceable { color })
        } else {
            None
        });
    }

    /// Plays a chess move if it is legal.
    pub fn play_move(&mut self, m: &Move) -> Result<(), PlayError> {
        if let Some(end) = self.end {
            return Err(PlayError::Over(end));
        }
        if self.phase == Phase::Placing {
            return Err(PlayError::MustPlace(self.to_move));
        }
        if !moves::is_legal(&self.board, self.to_move, m) {
            let (from, to) = (m.from, m.to);
            return Err(match self.board.get(m.from) {
                Some(p) if p.color == self.to_move => {
                    let kind = p.kind;
                    if moves::pseudo_moves_from(&self.board, m.from).contains(m) {
                        PlayError::BreaksBoard { kind, from, to }
                    } else {
                        PlayError::CannotGo { kind, from, to }
                    }
                }
                _ => PlayError::NoPieceOn {
                    color: self.to_move,
                    at: from,
                },
            });
        }
        self.play_unchecked(m);
        Ok(())
    }

    /// Plays a chess move the caller knows to be legal.
    pub fn play_unchecked(&mut self, m: &Move) {
        let color = self.to_move;
        let Some(piece) = self.board.remove(m.from) else {
            return;
        };
        let taken = self.board.put(m.to, piece);
        self.finish_turn(
            taken
                .filter(|t| t.kind == Kind::King)
                .map(|_| End::KingCaptured { winner: color }),
        );
    }

    /// Plays a whole turn, all or nothing.
    pub fn play_ply(&mut self, ply: &Ply) -> Result<(), PlayError> {
        match *ply {
            Ply::Move(m) => self.play_move(&m),
            Ply::Place { kind, at } => {
                let mut next = self.clone();
                next.declare_draw(self.to_move)?;
                next.place(kind, at)?;
                *self = next;
                Ok(())
            }
        }
    }

    /// Whether, after the move, the opponent could take the mover's King with a legal
    /// move: a warning, since leaving the King en prise is allowed.
    pub fn leaves_king_capturable(&self, m: &Move) -> bool {
        let color = self.to_move;
        let mut next = self.clone();
        next.end = None;
        next.phase = Phase::Turn;
        next.play_unchecked(m);
        next.end.is_none() && next.king_capturable(color)
    }

    /// Whether the opponent of `color` has a legal move taking `color`'s King now,
    /// whoever is to move.
    pub fn king_capturable(&self, color: Color) -> bool {
        self.board
            .king(color)
            .is_some_and(|k| moves::can_capture(&self.board, color.other(), k))
    }

    /// Hands the turn over and settles how the game stands. `end` is an end the turn
    /// itself caused; it outranks the next player's stalemate and the ply limit.
    fn finish_turn(&mut self, end: Option<End>) {
        self.ply = self.ply.saturating_add(1);
        self.phase = Phase::Turn;
        self.to_move = self.to_move.other();
        self.end = end.or_else(|| {
            let next = self.to_move;
            if self.stack(next).is_empty() && !moves::has_legal_move(&self.board, next) {
                Some(End::NoMove { color: next })
            } else if self.ply_limit > 0 && self.ply >= self.ply_limit {
                Some(End::PlyLimit)
            } else {
                None
            }
        });
    }
}
