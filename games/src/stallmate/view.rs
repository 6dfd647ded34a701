//! What one player knows: his own army (never the opponent's), the answers he got in
//! his own periods and what he heard at the end of the opponent's.
//!
//! A player's own pieces are known exactly: he moves them himself (a "yes" makes the
//! move he attempted), and he loses one only by a capture, which is announced with its
//! square. So the view keeps a board holding only his pieces, with his castling
//! rights, and updates it from his own answers ([`MoverView::record`]) and from what he
//! hears ([`MoverView::hear`]). It never needs the referee's position, which is what
//! makes it usable by a player's own node, a bot or a user interface.

use crate::chess::{CastleSide, Color, Kind, Move, MoveKind, Piece, Position, Square};

use super::announce::Heard;
use super::answer::Answer;
use super::attempt::Attempt;
use super::options::Options;
use super::setup::Setup;
use super::suppress::{FIRST_POSSIBLE_TURN, is_pawn_capture};

/// One player's knowledge of the game.
#[derive(Clone, Debug)]
pub struct MoverView {
    color: Color,
    setup: Setup,
    options: Options,
    /// His own pieces only; always his turn on it, so it lists his moves.
    board: Position,
    /// His own turn number (from 1) of the period in progress or last played.
    number: u32,
    my_turn: bool,
    over: bool,
    /// This period's attempts and answers.
    entries: Vec<(Attempt, Answer)>,
    /// What he heard after each of the opponent's periods, oldest first.
    heard: Vec<Vec<Heard>>,
    /// What changed his board, period by period: for stepping back through his game
    /// ([`MoverView::boards`]), a few bytes a move.
    changes: Vec<Change>,
}

/// One period's change to a player's board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Change {
    /// His own move, made by a "yes".
    Own {
        from: Square,
        to: Square,
        promotion: Option<Kind>,
    },
    /// The opponent's period: the square where he lost a piece to its move, if he did.
    Theirs { lost: Option<Square> },
}

impl MoverView {
    /// The view of the player of `color` whose army is `setup`, at the start.
    pub fn new(color: Color, setup: Setup, options: Options) -> MoverView {
        let mut board = Setup::start(setup, setup);
        for sq in board.color_squares(!color) {
            board.set_piece(sq, None);
        }
        board.set_turn(color);
        MoverView {
            color,
            setup,
            options,
            board,
            number: u32::from(color == Color::White),
            my_turn: color == Color::White,
            over: false,
            entries: Vec::new(),
            heard: Vec::new(),
            changes: Vec::new(),
        }
    }

    /// His colour.
    pub fn color(&self) -> Color {
        self.color
    }

    /// His setup.
    pub fn setup(&self) -> Setup {
        self.setup
    }

    /// A board with his pieces only.
    pub fn board(&self) -> &Position {
        &self.board
    }

    /// Whether his period is open and his move not yet made.
    pub fn my_turn(&self) -> bool {
        self.my_turn && !self.over
    }

    /// Whether he knows the game has ended on the board.
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// His own turn number.
    pub fn number(&self) -> u32 {
        self.number
    }

    /// This period's attempts and answers.
    pub fn entries(&self) -> &[(Attempt, Answer)] {
        &self.entries
    }

    /// What he heard after each of the opponent's periods.
    pub fn heard(&self) -> &[Vec<Heard>] {
        &self.heard
    }

    /// The kind of his own piece on `sq`, if any.
    pub fn own_kind(&self, sq: Square) -> Option<Kind> {
        self.board
            .piece_at(sq)
            .filter(|p| p.color == self.color)
            .map(|p| p.kind)
    }

    /// Whether he has a pawn left.
    pub fn has_pawns(&self) -> bool {
        !self.board.pieces(self.color, Kind::Pawn).is_empty()
    }

    /// Whether `attempt` is a pawn capture of his (what meets a "try").
    pub fn is_pawn_capture(&self, attempt: &Attempt) -> bool {
        let kind = attempt
            .squares()
            .and_then(|(from, _, _)| self.own_kind(from));
        is_pawn_capture(kind, self.color, attempt, self.setup.king_home(self.color))
    }

    /// Whether a "try" of this period still obliges a pawn capture attempt (option
    /// `must-try`).
    pub fn try_pending(&self) -> bool {
        if !self.options.must_try {
            return false;
        }
        let mut pending = false;
        for (attempt, answer) in &self.entries {
            if *answer == Answer::Try {
                pending = true;
            } else if *answer != Answer::PawnCaptureFirst && self.is_pawn_capture(attempt) {
                pending = false;
            }
        }
        pending
    }

    /// Whether "Any?" now would be heard by the opponent (he has pawns, has not asked
    /// this period, and it is not his first turn).
    pub fn any_is_heard(&self) -> bool {
        self.has_pawns()
            && self.number >= FIRST_POSSIBLE_TURN
            && !self.entries.iter().any(|(a, _)| *a == Attempt::Any)
    }

    /// Every move attempt that could be legal as far as he knows, except those already
    /// answered "illegal" this period: his pieces' moves on a board where only his own
    /// pieces block, plus every diagonal step of his pawns (there may be something to
    /// take, or an en passant chance), with each promotion on the last rank. Every
    /// legal move of the real position is among them.
    pub fn candidates(&self) -> Vec<Attempt> {
        if !self.my_turn() {
            return Vec::new();
        }
        let mut out: Vec<Attempt> = self
            .board
            .pseudo_legal_moves()
            .iter()
            .map(|m| Attempt::Move {
                from: m.from,
                to: m.to,
                promotion: m.promotion,
            })
            .collect();
        let own = self.board.color_squares(self.color);
        for from in self.board.pieces(self.color, Kind::Pawn) {
            for df in [-1, 1] {
                let Some(to) = from.offset(df, self.color.forward()) else {
                    continue;
                };
                if own.has(to) {
                    continue;
                }
                if to.rank() == self.color.promotion_rank() {
                    for k in Kind::PROMOTIONS {
                        out.push(Attempt::Move {
                            from,
                            to,
                            promotion: Some(k),
                        });
                    }
                } else {
                    out.push(Attempt::go(from, to));
                }
            }
        }
        out.retain(|a| {
            !self
                .entries
                .iter()
                .any(|(b, answer)| a == b && *answer == Answer::Illegal)
        });
        out
    }

    /// Records the answer to one of his own attempts; a "yes" makes the move on his board
    /// and ends his period.
    pub fn record(&mut self, attempt: Attempt, answer: Answer) {
        if !self.my_turn() {
            return;
        }
        if let (Answer::Yes(report), Some((from, to, promotion))) = (&answer, attempt.squares()) {
            let change = Change::Own {
                from,
                to,
                promotion,
            };
            self.board = change.applied(&self.board, self.color);
            self.changes.push(change);
            self.my_turn = false;
            if report.end.is_some() {
                self.over = true;
            }
        }
        self.entries.push((attempt, answer));
    }

    /// Takes in what he heard at the end of the opponent's period: his pieces captured
    /// are removed, and his own period begins.
    pub fn hear(&mut self, heard: &[Heard]) {
        let mut lost = None;
        for h in heard {
            match h {
                Heard::Capture(c) => {
                    let victim = if c.en_passant {
                        // The taken pawn is the one that stepped two squares over `at`.
                        c.at.offset(0, self.color.forward())
                    } else {
                        Some(c.at)
                    };
                    lost = lost.or(victim.filter(|sq| self.own_kind(*sq).is_some()));
                }
                Heard::End(_) => self.over = true,
                _ => {}
            }
        }
        let change = Change::Theirs { lost };
        self.board = change.applied(&self.board, self.color);
        self.changes.push(change);
        self.heard.push(heard.to_vec());
        self.my_turn = true;
        self.number = self.number.saturating_add(1);
        self.entries.clear();
    }

    /// His board at the start and after each period that changed it (each of his own
    /// moves and each of the opponent's periods), with the squares the period moved (his
    /// move's two) or where he lost a piece: what the page steps through while the game
    /// goes on. The last is [`MoverView::board`].
    pub fn boards(&self) -> Vec<(Position, Vec<Square>)> {
        let start = MoverView::new(self.color, self.setup, self.options).board;
        let mut out = Vec::with_capacity(self.changes.len() + 1);
        out.push((start, vec![]));
        for change in &self.changes {
            let board = change.applied(&out[out.len() - 1].0, self.color);
            let squares = match *change {
                Change::Own { from, to, .. } => vec![from, to],
                Change::Theirs { lost } => lost.into_iter().collect(),
            };
            out.push((board, squares));
        }
        out
    }
}

impl Change {
    /// `board` (the pieces of `color` alone) after this change.
    fn applied(&self, board: &Position, color: Color) -> Position {
        match *self {
            Change::Own {
                from,
                to,
                promotion,
            } => own_move(board, color, from, to, promotion),
            Change::Theirs { lost } => {
                let mut b = board.clone();
                if let Some(sq) = lost {
                    b.set_piece(sq, None);
                }
                b
            }
        }
    }
}

/// `board` (the pieces of `color` alone) after his own move `from`-`to`: a king onto his
/// own rook castles, as the attempt's notation writes it.
fn own_move(
    board: &Position,
    color: Color,
    from: Square,
    to: Square,
    promotion: Option<Kind>,
) -> Position {
    let Some(piece) = board.piece_at(from) else {
        return board.clone();
    };
    let castling =
        piece.kind == Kind::King && board.piece_at(to) == Some(Piece::new(color, Kind::Rook));
    let kind = if castling {
        if to.file() > from.file() {
            MoveKind::Castle(CastleSide::Short)
        } else {
            MoveKind::Castle(CastleSide::Long)
        }
    } else {
        MoveKind::Normal
    };
    let mv = Move {
        from,
        to,
        promotion,
        kind,
    };
    board.play_unchecked_keep_turn(&mv)
}
