//! The referee: the one party who sees both armies, judges every attempt and keeps the
//! record. In sealed v1 an accountable referee peer runs this; a verifier runs it again
//! on the revealed game to check every answer the peer signed.
//!
//! # A turn
//!
//! The mover makes attempts ([`Referee::attempt`]) and hears each answer at once. A
//! "yes" makes the move and is final: anything attempted after it in the same period is
//! refused ([`Refusal::AfterYes`]) — the mover's fault, not an answer, and not part of
//! the record. When the period ends ([`Referee::end_period`]) the turn goes into the
//! history and its [`heard`](super::announce::heard) list is what the opponent is told;
//! a period that ends without a "yes" is a forfeit by the mover (he ran out of time).
//!
//! # `must-try`
//!
//! With option `must-try` on (the default), a "try" obliges the mover to attempt a pawn
//! capture ([`is_pawn_capture`]: his pawn, one square diagonally forward, promotion
//! named exactly on the last rank) before any other move. *Interpretation:* a move that
//! is not a pawn capture while the obligation stands is not judged at all: it is
//! answered [`Answer::PawnCaptureFirst`], nothing is made, and the opponent hears
//! nothing of it. One pawn capture attempt, legal or not, meets the obligation; each
//! later "try" obliges again. "Any?" itself may be asked while obliged.
//!
//! # Endings after a "yes"
//!
//! Checked on the new position, first match wins: checkmate, stalemate, bare kings,
//! threefold repetition ([`super::repetition`]), then the ply limit (option). The
//! ending is part of the move's announcements, and the game is over.

use crate::chess::{Color, Kind, Move, MoveKind, Position, Square};

use super::answer::{Answer, Capture, Capturer, Report};
use super::attempt::Attempt;
use super::checks::check_kind;
use super::ending::{BoardEnd, Ending};
use super::options::Options;
use super::repetition::Repetitions;
use super::setup::Setup;
use super::suppress::{any_silence, is_pawn_capture, move_silence};
use super::turn::{Entry, Turn};

/// Something the referee will not answer: a fault of whoever sent it, not part of the
/// game's record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// The mover already got a "yes" this period; his move is made.
    #[error("the move of this turn is already made")]
    AfterYes,
}

/// The referee of one game: both setups, the full position, the turn in progress and
/// the history.
#[derive(Clone, Debug)]
pub struct Referee {
    options: Options,
    setups: [Setup; 2],
    position: Position,
    history: Vec<Turn>,
    /// The open period; `None` once the game is over and its last turn closed.
    current: Option<Turn>,
    repetitions: Repetitions,
    plies: u32,
    ending: Option<Ending>,
}

impl Referee {
    /// A new game: White's army from `white`, Black's from `black`, White to move.
    pub fn new(white: Setup, black: Setup, options: Options) -> Referee {
        let position = Setup::start(white, black);
        let mut repetitions = Repetitions::default();
        repetitions.record(&position);
        Referee {
            options,
            setups: [white, black],
            position,
            history: Vec::new(),
            current: Some(Turn::new(Color::White, 1)),
            repetitions,
            plies: 0,
            ending: None,
        }
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The setup of one side.
    pub fn setup(&self, color: Color) -> Setup {
        self.setups[color.idx()]
    }

    /// The start position of this game.
    pub fn start_position(&self) -> Position {
        Setup::start(self.setups[0], self.setups[1])
    }

    /// The position now (after the current turn's "yes", if there was one).
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The closed turns, oldest first.
    pub fn history(&self) -> &[Turn] {
        &self.history
    }

    /// The open period, if the game goes on (or its last turn is not yet closed).
    pub fn current(&self) -> Option<&Turn> {
        self.current.as_ref()
    }

    /// Whose period is open.
    pub fn mover(&self) -> Option<Color> {
        self.current.as_ref().map(|t| t.mover)
    }

    /// Moves (plies) made so far.
    pub fn plies(&self) -> u32 {
        self.plies
    }

    /// How the game ended, if it has.
    pub fn ending(&self) -> Option<&Ending> {
        self.ending.as_ref()
    }

    /// Judges one attempt of the mover and records it.
    pub fn attempt(&mut self, attempt: Attempt) -> Result<Answer, Refusal> {
        let Some(turn) = &self.current else {
            return Err(Refusal::GameOver);
        };
        if turn.moved().is_some() {
            return Err(Refusal::AfterYes);
        }
        if self.ending.is_some() {
            return Err(Refusal::GameOver);
        }
        let mover = turn.mover;
        let (number, earlier) = (turn.number, turn.entries.as_slice());
        let king_home = self.setups[mover.idx()].king_home(mover);
        let (answer, silence) = match attempt {
            Attempt::Any => {
                let has_pawns = !self.position.pieces(mover, Kind::Pawn).is_empty();
                let answer = if self.has_pawn_capture() {
                    Answer::Try
                } else {
                    Answer::No
                };
                (answer, any_silence(has_pawns, number, earlier))
            }
            Attempt::Move {
                from,
                to,
                promotion,
            } => {
                let kind = self
                    .position
                    .piece_at(from)
                    .filter(|p| p.color == mover)
                    .map(|p| p.kind);
                if self.options.must_try
                    && self.try_pending(earlier, king_home)
                    && !is_pawn_capture(kind, mover, &attempt, king_home)
                {
                    (Answer::PawnCaptureFirst, None)
                } else {
                    match self.position.find_legal(from, to, promotion) {
                        None => (
                            Answer::Illegal,
                            move_silence(kind, mover, &attempt, king_home, earlier),
                        ),
                        Some(mv) => {
                            let (mut report, after) = self.judge(&mv);
                            report.end = self.make(after);
                            (Answer::Yes(report), None)
                        }
                    }
                }
            }
        };
        if let Some(turn) = &mut self.current {
            turn.entries.push(Entry {
                attempt,
                answer: answer.clone(),
                silence,
            });
        }
        Ok(answer)
    }

    /// Ends the open period and returns the closed turn, whose
    /// [`heard`](super::announce::heard) list the opponent is told. Without a "yes" the
    /// mover forfeits.
    pub fn end_period(&mut self) -> Result<Turn, Refusal> {
        let turn = self.current.take().ok_or(Refusal::GameOver)?;
        if turn.moved().is_none() && self.ending.is_none() {
            self.ending = Some(Ending::Forfeit { by: turn.mover });
        }
        if self.ending.is_none() {
            let number = match turn.mover {
                Color::White => turn.number,
                Color::Black => turn.number.saturating_add(1),
            };
            self.current = Some(Turn::new(!turn.mover, number));
        }
        self.history.push(turn.clone());
        Ok(turn)
    }

    /// `by` forfeits (resigns, or is out of time): the game ends, the open period is
    /// closed (kept in the history if anything was attempted in it).
    pub fn forfeit(&mut self, by: Color) -> Result<(), Refusal> {
        if self.ending.is_some() {
            return Err(Refusal::GameOver);
        }
        self.ending = Some(Ending::Forfeit { by });
        if let Some(turn) = self.current.take()
            && !turn.entries.is_empty()
        {
            self.history.push(turn);
        }
        Ok(())
    }

    /// Whether the side to move has a legal pawn capture, en passant included.
    fn has_pawn_capture(&self) -> bool {
        let pawns = self.position.pieces(self.position.turn(), Kind::Pawn);
        self.position
            .legal_moves()
            .iter()
            .any(|m| pawns.has(m.from) && m.from.file() != m.to.file())
    }

    /// Whether a "try" of this turn still obliges a pawn capture attempt.
    fn try_pending(&self, earlier: &[Entry], king_home: Square) -> bool {
        let mover = self.position.turn();
        let mut pending = false;
        for e in earlier {
            if e.answer == Answer::Try {
                pending = true;
            } else if e.answer != Answer::PawnCaptureFirst {
                let kind = e
                    .attempt
                    .squares()
                    .and_then(|(from, _, _)| self.position.piece_at(from))
                    .filter(|p| p.color == mover)
                    .map(|p| p.kind);
                if is_pawn_capture(kind, mover, &e.attempt, king_home) {
                    pending = false;
                }
            }
        }
        pending
    }

    /// The announcements of a legal move and the position after it.
    fn judge(&self, mv: &Move) -> (Report, Position) {
        let before = &self.position;
        let mover = before.turn();
        let by = before.piece_at(mv.from).map(|p| {
            if p.kind == Kind::Pawn {
                Capturer::Pawn
            } else {
                Capturer::Piece
            }
        });
        let by = by.filter(|_| self.options.name_capturer);
        let capture = match mv.kind {
            MoveKind::EnPassant => Some(Capture {
                at: mv.to,
                en_passant: true,
                by,
            }),
            MoveKind::Castle(_) => None,
            MoveKind::Normal | MoveKind::DoubleStep => before
                .piece_at(mv.to)
                .filter(|p| p.color != mover)
                .map(|_| Capture {
                    at: mv.to,
                    en_passant: false,
                    by,
                }),
        };
        let after = before.play_unchecked(mv);
        let mut checks = Vec::new();
        for king in after.kings(!mover) {
            for checker in after.attackers(king, mover) {
                if let Some(p) = after.piece_at(checker) {
                    checks.push(check_kind(king, checker, p.kind));
                }
            }
        }
        checks.sort();
        let report = Report {
            capture,
            checks,
            end: None,
        };
        (report, after)
    }

    /// Makes a judged move (`after` is the position it leads to) and returns the ending
    /// it brings, if any.
    fn make(&mut self, after: Position) -> Option<BoardEnd> {
        self.plies = self.plies.saturating_add(1);
        let seen = self.repetitions.record(&after);
        let end = if after.is_checkmate() {
            Some(BoardEnd::Checkmate)
        } else if after.is_stalemate() {
            Some(BoardEnd::Stalemate {
                pieces: after.occupied().len() as u8,
            })
        } else if after.occupied() == after.kind_squares(Kind::King) {
            Some(BoardEnd::BareKings)
        } else if seen >= 3 {
            Some(BoardEnd::Repetition)
        } else if self.options.ply_limit.is_some_and(|l| self.plies >= l) {
            Some(BoardEnd::PlyLimit)
        } else {
            None
        };
        self.position = after;
        self.ending = end.map(Ending::Board);
        end
    }
}
