//! Playing a turn on the board: an optional card with its parameters and the chess
//! move(s), checked against the card, the continuing effects and the rules of chess, then
//! carried out ([`Board::apply`]); and the plays a card allows ([`Board::legal_plays`]).
//!
//! Over 900 lines on purpose: each card effect is written here three times side by side —
//! what a play of it may do (`card_moves`, `edit`), how a play is checked (`card_play`),
//! and which plays exist (`edit_plays`, `edit_candidates`) — and the bot, the clickable
//! choices and the verifier rely on the three agreeing; apart, an effect changed in one
//! place would silently disagree with the others.
//!
//! Nothing in a play is trusted: the card's timing must allow a board play, its
//! parameters must name what its effect needs, every move must be one the card (or
//! chess) allows under the continuing effects, and at the end no king of the mover may be
//! attacked.
//!
//! The order of a play: `before` cards edit the board, then one move; `after` cards make
//! one move, then edit; `instead` cards either are the move(s) (double moves, pawn
//! rushes, jumps) or edit the board with no move at all. Then the ply ends
//! ([`Board::apply`] documents the steps).

use crate::chess::{Color, Kind, Move, MoveKind, Piece, Square};

use super::board::{Board, Refusal, Trap, pawn_edge, with_promotions};
use super::card::{Card, Effect, Moment, Pattern, Timing, TrapEffect};

/// What a card needs named besides its moves: squares and a piece kind. Which of these
/// an effect uses is in the module docs of [`crate::tempete`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Params {
    /// The squares the effect names, in the effect's order.
    pub squares: Vec<Square>,
    /// The piece kind the effect names (a promotion, a returning piece).
    pub kind: Option<Kind>,
}

impl Params {
    /// No parameter.
    pub fn none() -> Params {
        Params::default()
    }

    /// These squares and no kind.
    pub fn squares(squares: &[Square]) -> Params {
        Params {
            squares: squares.to_vec(),
            kind: None,
        }
    }

    /// One square and a kind.
    pub fn square_kind(square: Square, kind: Kind) -> Params {
        Params {
            squares: vec![square],
            kind: Some(kind),
        }
    }
}

/// A card play as the flow sends it: the card's list number and its parameters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CardPlay {
    /// The card's number in the deck.
    pub number: u32,
    /// What it names.
    pub params: Params,
}

/// One legal way to play a turn with a given card (or none): its parameters and moves.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Play {
    /// The card's parameters (empty without a card).
    pub params: Params,
    /// The chess moves, in order.
    pub moves: Vec<Move>,
}

/// Why a play is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlayError {
    /// The side is not the one to move.
    #[error("it is {turn}'s turn, not {side}'s")]
    NotYourTurn {
        /// Who tried to play.
        side: Color,
        /// Who is to move.
        turn: Color,
    },
    /// The card's timing does not allow it here.
    #[error("card {number} is played {timing}, not {moment}")]
    WrongTiming {
        /// The card.
        number: u32,
        /// Its timing.
        timing: Timing,
        /// Where it was tried.
        moment: Moment,
    },
    /// An after-loss card, but the player lost no piece other than a pawn last ply.
    #[error("card {number} needs a piece other than a pawn lost to a move in the last ply")]
    NoLoss {
        /// The card.
        number: u32,
    },
    /// The wrong number of chess moves for this play.
    #[error("{what} takes {expected} move(s), got {got}")]
    MoveCount {
        /// The play ("a move without a card", "card 18 (extra-move knight)").
        what: String,
        /// How many it takes.
        expected: usize,
        /// How many were given.
        got: usize,
    },
    /// The card's parameters are wrong.
    #[error("card {number} ({effect}): {reason}")]
    BadParams {
        /// The card.
        number: u32,
        /// Its effect, written out.
        effect: String,
        /// What is wrong.
        reason: String,
    },
    /// The move is not one this play allows at all.
    #[error("{mv} is not {rule}")]
    NotAllowed {
        /// The move, in UCI.
        mv: String,
        /// What it should have been.
        rule: String,
    },
    /// The move would do, but a continuing effect or king safety refuses it.
    #[error("{mv} is refused: {reason}")]
    Refused {
        /// The move, in UCI.
        mv: String,
        /// Why.
        reason: Refusal,
    },
    /// After the whole play, a king of the mover is attacked.
    #[error("the play leaves a king of {0} attacked")]
    KingLeftAttacked(Color),
    /// No enemy piece ended its move on the trap square in the last ply.
    #[error("no piece of {victim} ended its move on {square} in the last ply")]
    NoTrapVictim {
        /// The trap square.
        square: Square,
        /// The side the trap is against.
        victim: Color,
    },
    /// The piece that ended its move on the trap square is the King, which no trap takes.
    #[error("the King of {victim} ended its move on {square}, and a trap never takes a King")]
    TrapOnKing {
        /// The trap square.
        square: Square,
        /// The side the trap is against.
        victim: Color,
    },
}

impl Board {
    /// Whether `side` may play `card` at `moment`: its timing fits, and an after-loss
    /// card follows a ply in which `side` lost a piece other than a pawn.
    pub fn check_timing(&self, side: Color, card: &Card, moment: Moment) -> Result<(), PlayError> {
        if !card.timing().fits(moment) {
            return Err(PlayError::WrongTiming {
                number: card.number(),
                timing: card.timing(),
                moment,
            });
        }
        if moment == Moment::AfterLoss && !self.lost_non_pawn(side) {
            return Err(PlayError::NoLoss {
                number: card.number(),
            });
        }
        Ok(())
    }

    /// Plays `side`'s turn: an optional card with its parameters, and the chess moves.
    ///
    /// Checked, in order: `side` is to move; the card's timing is one played with one's
    /// own move; its parameters and moves fit its effect; every move is allowed under the
    /// continuing effects (not frozen, not onto a forbidden square, no capture in a
    /// truce, never capturing a king, no king of the mover attacked afterwards). Then the
    /// ply ends: the turn passes, no king of `side` may be attacked, the truce ends if a
    /// king is attacked, the ply count grows and expired effects go, and traps spring on
    /// the squares `side`'s pieces ended moves on.
    ///
    /// Without a card, exactly one move, which must be a legal chess move under the
    /// continuing effects. Flow cards with an own-move timing (redraw, show-hand) and
    /// trap cards are a plain move here; the flow does the rest.
    pub fn apply(
        &self,
        side: Color,
        card: Option<(&Card, &Params)>,
        moves: &[Move],
    ) -> Result<Board, PlayError> {
        let turn = self.pos.turn();
        if side != turn {
            return Err(PlayError::NotYourTurn { side, turn });
        }
        let mut next = self.clone();
        next.lost = [Vec::new(), Vec::new()];
        next.landed.clear();
        match card {
            None => next.plain_move(moves, "a move without a card")?,
            Some((card, params)) => {
                self.check_timing(side, card, Moment::OwnMove)?;
                next.card_play(side, card, params, moves)?;
            }
        }
        next.finish_ply(side)?;
        Ok(next)
    }

    /// The trap `trap` springing after the fact: the flow calls this when the trap's
    /// owner opens a square an enemy piece ended its move on in the last ply (the
    /// owner's own board sprang it inside [`Board::apply`]; both end equal).
    pub fn spring_trap(&self, trap: Trap) -> Result<Board, PlayError> {
        self.trap_lands(&trap)?;
        let mut next = self.clone();
        next.traps.retain(|t| *t != trap);
        next.trigger(trap);
        Ok(next)
    }

    /// Whether `trap` springs on the board as it stands: an enemy piece other than a
    /// king ended a move of the last ply, the enemy's, on its square and stands there.
    pub fn trap_lands(&self, trap: &Trap) -> Result<(), PlayError> {
        let victim = !trap.owner;
        let landed = self.last_mover == Some(victim) && self.landed.contains(&trap.square);
        let piece = self.pos.piece_at(trap.square).filter(|p| p.color == victim);
        // Said apart from an empty square: the King did land there, and the player
        // needs to know why that does not count.
        if landed && piece.is_some_and(|p| p.kind == Kind::King) {
            return Err(PlayError::TrapOnKing {
                square: trap.square,
                victim,
            });
        }
        if !(landed && piece.is_some()) {
            return Err(PlayError::NoTrapVictim {
                square: trap.square,
                victim,
            });
        }
        Ok(())
    }

    /// Every legal play of the side to move with `card` (or a plain move with `None`):
    /// exhaustive, for bots and tests. A card that is not played with one's own move
    /// gives none.
    pub fn legal_plays(&self, card: Option<&Card>) -> Vec<Play> {
        let side = self.pos.turn();
        let Some(card) = card else {
            return self
                .plain_moves()
                .into_iter()
                .map(|m| Play {
                    params: Params::none(),
                    moves: vec![m],
                })
                .collect();
        };
        if !card.timing().is_own_move() {
            return Vec::new();
        }
        let mut out = Vec::new();
        match card.effect() {
            Effect::ExtraMove { kind } => {
                for first in self.plain_moves_of(kind) {
                    let mut mid = self.clone();
                    mid.do_move(&first, false);
                    for second in mid.plain_moves_of(kind) {
                        out.push(Play {
                            params: Params::none(),
                            moves: vec![first, second],
                        });
                    }
                }
            }
            Effect::SecondMove => {
                for first in self.plain_moves() {
                    let mut mid = self.clone();
                    mid.do_move(&first, false);
                    let moved = landing_squares(&first);
                    for second in mid.plain_moves() {
                        if !moved.contains(&second.from) && !mid.is_capture(&second) {
                            out.push(Play {
                                params: Params::none(),
                                moves: vec![first, second],
                            });
                        }
                    }
                }
            }
            effect @ (Effect::PawnRush { .. }
            | Effect::PawnBack
            | Effect::KingLeap
            | Effect::JumpColor
            | Effect::MoveAs { .. }) => {
                for from in self.pos.color_squares(side) {
                    for mv in self.card_moves(effect, from) {
                        if self.refusal(&mv).is_none() {
                            out.push(Play {
                                params: Params::none(),
                                moves: vec![mv],
                            });
                        }
                    }
                }
            }
            _ => self.edit_plays(side, card, &mut out),
        }
        out
    }

    // ---- the parts of a play -------------------------------------------------------

    fn plain_move(&mut self, moves: &[Move], what: &str) -> Result<(), PlayError> {
        let [mv] = moves else {
            return Err(PlayError::MoveCount {
                what: what.to_owned(),
                expected: 1,
                got: moves.len(),
            });
        };
        let mv = self.check_move(mv, self.piece_moves(mv.from), "a legal move here")?;
        self.do_move(&mv, true);
        Ok(())
    }

    fn card_play(
        &mut self,
        side: Color,
        card: &Card,
        params: &Params,
        moves: &[Move],
    ) -> Result<(), PlayError> {
        let what = format!("card {} ({})", card.number(), card.effect());
        let count = |expected: usize| -> Result<(), PlayError> {
            if moves.len() == expected {
                Ok(())
            } else {
                Err(PlayError::MoveCount {
                    what: what.clone(),
                    expected,
                    got: moves.len(),
                })
            }
        };
        match card.effect() {
            Effect::ExtraMove { kind } => {
                no_params(card, params)?;
                count(2)?;
                for (i, mv) in moves.iter().enumerate() {
                    let ok = self
                        .pos
                        .piece_at(mv.from)
                        .is_some_and(|p| p.color == side && p.kind == kind);
                    if !ok {
                        return Err(PlayError::NotAllowed {
                            mv: mv.to_string(),
                            rule: format!(
                                "a move of one of your {}s",
                                super::card::kind_word(kind)
                            ),
                        });
                    }
                    let mv = self.check_move(mv, self.piece_moves(mv.from), "a legal move here")?;
                    self.do_move(&mv, i == 1);
                }
                Ok(())
            }
            Effect::SecondMove => {
                no_params(card, params)?;
                count(2)?;
                let first = self.check_move(
                    &moves[0],
                    self.piece_moves(moves[0].from),
                    "a legal move here",
                )?;
                self.do_move(&first, false);
                let second = &moves[1];
                if landing_squares(&first).contains(&second.from) {
                    return Err(PlayError::NotAllowed {
                        mv: second.to_string(),
                        rule: "a move of another piece than the one that just moved".into(),
                    });
                }
                let second =
                    self.check_move(second, self.piece_moves(second.from), "a legal move here")?;
                if self.is_capture(&second) {
                    return Err(PlayError::Refused {
                        mv: second.to_string(),
                        reason: Refusal::NoCapture,
                    });
                }
                self.do_move(&second, true);
                Ok(())
            }
            effect @ (Effect::PawnRush { .. }
            | Effect::PawnBack
            | Effect::KingLeap
            | Effect::JumpColor
            | Effect::MoveAs { .. }) => {
                no_params(card, params)?;
                count(1)?;
                let mv = &moves[0];
                let rule = match effect {
                    Effect::PawnRush { squares } => {
                        format!("a pawn advance of up to {squares} empty squares")
                    }
                    Effect::PawnBack => "a pawn step or capture backwards".into(),
                    Effect::KingLeap => "a king's two-square leap onto an empty square".into(),
                    Effect::JumpColor => {
                        "a jump of a piece other than a king to an empty square of its colour"
                            .into()
                    }
                    _ => format!(
                        "a move of a piece other than a king as a {}",
                        effect_kind_word(effect)
                    ),
                };
                let mv = self.check_move(mv, self.card_moves(effect, mv.from), &rule)?;
                self.do_move(&mv, true);
                Ok(())
            }
            _ => match card.timing() {
                Timing::Before => {
                    self.edit(side, card, params)?;
                    self.plain_move(moves, &what)
                }
                Timing::After => {
                    self.plain_move(moves, &what)?;
                    self.edit(side, card, params)
                }
                _ => {
                    count(0)?;
                    self.edit(side, card, params)
                }
            },
        }
    }

    /// Checks that `mv` is among `allowed` and that no continuing effect refuses it,
    /// and returns the allowed move itself. Moves are matched by squares and promotion
    /// only, so a caller who wrote a double step or a card's two-square advance with
    /// another [`crate::chess::MoveKind`] is not refused for that.
    fn check_move(&self, mv: &Move, allowed: Vec<Move>, rule: &str) -> Result<Move, PlayError> {
        // Two moves may share their squares (a pawn's en passant capture, and the same
        // pawn's gained sidestep to that empty square): the first version the continuing
        // effects allow is played, the chess move before a gained one. Only when every
        // version is refused is the move, with the first version's reason.
        let versions: Vec<Move> = allowed
            .into_iter()
            .filter(|m| m.from == mv.from && m.to == mv.to && m.promotion == mv.promotion)
            .collect();
        let Some(first) = versions.first() else {
            return Err(PlayError::NotAllowed {
                mv: mv.to_string(),
                rule: rule.to_owned(),
            });
        };
        if let Some(ok) = versions.iter().find(|m| self.refusal(m).is_none()) {
            return Ok(*ok);
        }
        Err(PlayError::Refused {
            mv: mv.to_string(),
            reason: self.refusal(first).unwrap_or(Refusal::LeavesKingAttacked),
        })
    }

    /// The plain legal moves of the side to move's pieces of one kind.
    fn plain_moves_of(&self, kind: Kind) -> Vec<Move> {
        let mut moves = self.plain_moves();
        moves.retain(|m| self.pos.piece_at(m.from).is_some_and(|p| p.kind == kind));
        moves
    }

    /// The moves a single-move card allows the piece on `from` (before the continuing
    /// effects are asked).
    fn card_moves(&self, effect: Effect, from: Square) -> Vec<Move> {
        let us = self.pos.turn();
        let Some(piece) = self.pos.piece_at(from).filter(|p| p.color == us) else {
            return Vec::new();
        };
        let empty = |sq: Square| self.pos.piece_at(sq).is_none();
        let mut out = Vec::new();
        match effect {
            Effect::PawnRush { squares } if piece.kind == Kind::Pawn => {
                let mut at = from;
                for _ in 0..squares {
                    match at.offset(0, us.forward()) {
                        Some(next) if empty(next) => {
                            // Two squares from the start is the ordinary double step,
                            // en passant included.
                            let kind = if from.rank() == us.double_step_rank()
                                && next.rank().index().abs_diff(from.rank().index()) == 2
                            {
                                MoveKind::DoubleStep
                            } else {
                                MoveKind::Normal
                            };
                            out.push(Move {
                                kind,
                                ..Move::normal(from, next)
                            });
                            at = next;
                        }
                        _ => break,
                    }
                }
                out = with_promotions(piece, out);
            }
            Effect::PawnBack if piece.kind == Kind::Pawn => {
                let back = -us.forward();
                if let Some(to) = from.offset(0, back).filter(|s| empty(*s)) {
                    out.push(Move::normal(from, to));
                }
                for df in [-1, 1] {
                    if let Some(to) = from.offset(df, back)
                        && self.pos.piece_at(to).is_some_and(|p| p.color != us)
                    {
                        out.push(Move::normal(from, to));
                    }
                }
            }
            Effect::KingLeap if piece.kind == Kind::King => {
                for (df, dr) in DIRECTIONS {
                    if let (Some(mid), Some(to)) =
                        (from.offset(df, dr), from.offset(2 * df, 2 * dr))
                        && empty(mid)
                        && empty(to)
                    {
                        out.push(Move::normal(from, to));
                    }
                }
            }
            Effect::JumpColor if piece.kind != Kind::King => {
                for to in Square::all() {
                    if to != from
                        && empty(to)
                        && square_shade(to) == square_shade(from)
                        && !(piece.kind == Kind::Pawn && pawn_edge(to))
                    {
                        out.push(Move::normal(from, to));
                    }
                }
            }
            Effect::MoveAs { kind } if piece.kind != Kind::King => {
                out = self.pattern_moves(from, Pattern::As(kind));
            }
            _ => {}
        }
        out
    }

    /// Carries out a card's board edit for `side` (whoever is to move at this point of
    /// the play), checking its parameters.
    fn edit(&mut self, side: Color, card: &Card, params: &Params) -> Result<(), PlayError> {
        let effect = card.effect();
        let bad = |reason: String| PlayError::BadParams {
            number: card.number(),
            effect: effect.to_string(),
            reason,
        };
        let want = |squares: usize, kind: bool| -> Result<(), PlayError> {
            if params.squares.len() != squares || params.kind.is_some() != kind {
                let kinds = if kind { " and a piece kind" } else { "" };
                return Err(bad(format!(
                    "needs {squares} square(s){kinds}, got {} square(s){}",
                    params.squares.len(),
                    if params.kind.is_some() {
                        " and a kind"
                    } else {
                        ""
                    }
                )));
            }
            Ok(())
        };
        let own = |sq: Square| self.pos.piece_at(sq).filter(|p| p.color == side);
        let enemy = |sq: Square| self.pos.piece_at(sq).filter(|p| p.color != side);
        match effect {
            Effect::Augment { pattern } => {
                want(1, false)?;
                let sq = params.squares[0];
                match own(sq) {
                    Some(p) if p.kind != Kind::King => {}
                    _ => {
                        return Err(bad(format!(
                            "{sq} holds no piece of yours other than a king"
                        )));
                    }
                }
                if !self.augments(sq).contains(&pattern) {
                    self.augments.push((sq, pattern));
                }
            }
            Effect::SwapOwn | Effect::SwapEnemy => {
                want(2, false)?;
                let (a, b) = (params.squares[0], params.squares[1]);
                let Some(pa) = own(a) else {
                    return Err(bad(format!("{a} holds no piece of yours")));
                };
                let pb = if effect == Effect::SwapOwn {
                    match own(b) {
                        Some(p) if a != b => p,
                        _ => return Err(bad(format!("{b} holds no other piece of yours"))),
                    }
                } else {
                    match enemy(b) {
                        Some(p) if p.kind != Kind::King && pa.kind != Kind::King => p,
                        _ => {
                            return Err(bad(format!(
                                "{a} and {b} must hold your piece and an enemy piece, neither a king"
                            )));
                        }
                    }
                };
                if effect == Effect::SwapEnemy && chebyshev(a, b) != 1 {
                    return Err(bad(format!("{a} and {b} are not adjacent")));
                }
                for sq in [a, b] {
                    if self.is_frozen(sq) {
                        return Err(bad(format!("the piece on {sq} is frozen")));
                    }
                }
                if !self.may_place(pa, b) || !self.may_place(pb, a) {
                    return Err(bad(format!(
                        "a piece may not be put there (forbidden square, or a pawn on the first or last rank): {a} <-> {b}"
                    )));
                }
                self.pos.set_piece(a, Some(pb));
                self.pos.set_piece(b, Some(pa));
                self.relocate(&[(a, b), (b, a)]);
            }
            Effect::SacrificePawn => {
                want(1, false)?;
                let sq = params.squares[0];
                if own(sq).map(|p| p.kind) != Some(Kind::Pawn) {
                    return Err(bad(format!("{sq} holds no pawn of yours")));
                }
                self.pos.set_piece(sq, None);
                self.drop_effects(sq);
            }
            Effect::EarlyPromote { rank } => {
                want(1, true)?;
                let sq = params.squares[0];
                let kind = params.kind.unwrap_or(Kind::Pawn);
                if !Kind::PROMOTIONS.contains(&kind) {
                    return Err(bad(format!(
                        "a pawn cannot promote to a {}",
                        super::card::kind_word(kind)
                    )));
                }
                let relative = match side {
                    Color::White => sq.rank().index() + 1,
                    Color::Black => 8 - sq.rank().index(),
                };
                if own(sq).map(|p| p.kind) != Some(Kind::Pawn) || relative < rank || relative >= 8 {
                    return Err(bad(format!(
                        "{sq} holds no pawn of yours on its rank {rank} or further"
                    )));
                }
                self.pos.set_piece(sq, Some(Piece::new(side, kind)));
            }
            Effect::Revive => {
                want(1, true)?;
                let sq = params.squares[0];
                let kind = params.kind.unwrap_or(Kind::King);
                let Some(at) = self.captured[side.idx()].iter().position(|&k| k == kind) else {
                    return Err(bad(format!(
                        "no {} of yours has been taken",
                        super::card::kind_word(kind)
                    )));
                };
                if !starting_squares(side, kind).contains(&sq) {
                    return Err(bad(format!(
                        "{sq} is not a starting square of a {}",
                        super::card::kind_word(kind)
                    )));
                }
                if self.pos.piece_at(sq).is_some() || self.is_forbidden(sq) {
                    return Err(bad(format!("{sq} is not empty or is forbidden")));
                }
                self.captured[side.idx()].remove(at);
                self.pos.set_piece(sq, Some(Piece::new(side, kind)));
            }
            Effect::ForbidSquare { plies } => {
                want(1, false)?;
                let until = self.ply.saturating_add(1).saturating_add(u32::from(plies));
                self.forbidden.push((params.squares[0], until));
            }
            Effect::Truce => {
                want(0, false)?;
                self.truce = true;
            }
            Effect::Freeze { turns } => {
                want(1, false)?;
                let sq = params.squares[0];
                match enemy(sq) {
                    Some(p) if p.kind != Kind::King => {}
                    _ => return Err(bad(format!("{sq} holds no enemy piece other than a king"))),
                }
                // The enemy's next `turns` turns are the plies ply+1, ply+3, …
                let until = self.ply.saturating_add(2 * u32::from(turns));
                self.frozen.push((sq, until));
            }
            Effect::Trap { .. } | Effect::Redraw { .. } | Effect::ShowHand => want(0, false)?,
            _ => {
                return Err(PlayError::WrongTiming {
                    number: card.number(),
                    timing: card.timing(),
                    moment: Moment::OwnMove,
                });
            }
        }
        Ok(())
    }

    /// Ends `side`'s ply (see [`Board::apply`]).
    fn finish_ply(&mut self, side: Color) -> Result<(), PlayError> {
        if self.pos.turn() == side {
            self.pos.pass_turn();
        }
        if self.pos.king_attacked(side) {
            return Err(PlayError::KingLeftAttacked(side));
        }
        if self.truce && Color::ALL.into_iter().any(|c| self.pos.king_attacked(c)) {
            self.truce = false;
        }
        self.ply = self.ply.saturating_add(1);
        let ply = self.ply;
        self.frozen.retain(|&(_, until)| until > ply);
        self.forbidden.retain(|&(_, until)| until > ply);
        self.last_mover = Some(side);
        let landed = self.landed.clone();
        for sq in landed {
            let victim = self
                .pos
                .piece_at(sq)
                .filter(|p| p.color == side && p.kind != Kind::King);
            if victim.is_none() {
                continue;
            }
            if let Some(i) = self
                .traps
                .iter()
                .position(|t| t.square == sq && t.owner != side)
            {
                let trap = self.traps.remove(i);
                self.trigger(trap);
            }
        }
        Ok(())
    }

    /// What a trap does to the piece on its square (checked by the caller).
    fn trigger(&mut self, trap: Trap) {
        let Some(victim) = self.pos.piece_at(trap.square) else {
            return;
        };
        match trap.effect {
            TrapEffect::Remove => {
                self.captured[victim.color.idx()].push(victim.kind);
                self.pos.set_piece(trap.square, None);
                self.drop_effects(trap.square);
            }
            TrapEffect::Freeze { turns } => {
                let until = self.until_turns(victim.color, turns);
                self.frozen.push((trap.square, until));
            }
        }
    }

    /// The plays of an edit card (every effect not handled as a move in
    /// [`Board::legal_plays`]).
    fn edit_plays(&self, side: Color, card: &Card, out: &mut Vec<Play>) {
        let push_checked =
            |board: &Board, params: Params, moves: Vec<Move>, out: &mut Vec<Play>| {
                if !board.pos.king_attacked(side) {
                    out.push(Play { params, moves });
                }
            };
        match card.timing() {
            Timing::Before => {
                for params in self.edit_candidates(side, card.effect()) {
                    let mut edited = self.clone();
                    if edited.edit(side, card, &params).is_ok() {
                        for mv in edited.plain_moves() {
                            out.push(Play {
                                params: params.clone(),
                                moves: vec![mv],
                            });
                        }
                    }
                }
            }
            Timing::After => {
                for mv in self.plain_moves() {
                    let mut moved = self.clone();
                    moved.do_move(&mv, true);
                    for params in moved.edit_candidates(side, card.effect()) {
                        let mut edited = moved.clone();
                        if edited.edit(side, card, &params).is_ok() {
                            push_checked(&edited, params, vec![mv], out);
                        }
                    }
                }
            }
            _ => {
                for params in self.edit_candidates(side, card.effect()) {
                    let mut edited = self.clone();
                    if edited.edit(side, card, &params).is_ok() {
                        push_checked(&edited, params, Vec::new(), out);
                    }
                }
            }
        }
    }

    /// Parameters worth trying for an edit effect (the edit itself checks them).
    fn edit_candidates(&self, side: Color, effect: Effect) -> Vec<Params> {
        let own: Vec<Square> = self.pos.color_squares(side).collect();
        let theirs: Vec<Square> = self.pos.color_squares(!side).collect();
        let one = |sqs: &[Square]| sqs.iter().map(|s| Params::squares(&[*s])).collect();
        match effect {
            Effect::Augment { .. } | Effect::SacrificePawn => one(&own),
            Effect::Freeze { .. } => one(&theirs),
            Effect::ForbidSquare { .. } => one(&Square::all().collect::<Vec<_>>()),
            Effect::SwapOwn => {
                let mut out = Vec::new();
                for (i, a) in own.iter().enumerate() {
                    for b in &own[i + 1..] {
                        out.push(Params::squares(&[*a, *b]));
                    }
                }
                out
            }
            Effect::SwapEnemy => {
                let mut out = Vec::new();
                for a in &own {
                    for b in &theirs {
                        if chebyshev(*a, *b) == 1 {
                            out.push(Params::squares(&[*a, *b]));
                        }
                    }
                }
                out
            }
            Effect::EarlyPromote { .. } => own
                .iter()
                .flat_map(|s| Kind::PROMOTIONS.map(|k| Params::square_kind(*s, k)))
                .collect(),
            Effect::Revive => {
                let mut kinds = self.captured[side.idx()].clone();
                kinds.sort_unstable_by_key(|k| k.idx());
                kinds.dedup();
                kinds
                    .into_iter()
                    .flat_map(|k| {
                        starting_squares(side, k)
                            .into_iter()
                            .map(move |s| Params::square_kind(s, k))
                    })
                    .collect()
            }
            _ => vec![Params::none()],
        }
    }
}

const DIRECTIONS: [(i8, i8); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

fn no_params(card: &Card, params: &Params) -> Result<(), PlayError> {
    if params.squares.is_empty() && params.kind.is_none() {
        Ok(())
    } else {
        Err(PlayError::BadParams {
            number: card.number(),
            effect: card.effect().to_string(),
            reason: "takes no square or kind; its moves say everything".into(),
        })
    }
}

fn effect_kind_word(effect: Effect) -> &'static str {
    match effect {
        Effect::MoveAs { kind } | Effect::ExtraMove { kind } => super::card::kind_word(kind),
        _ => "piece",
    }
}

/// The squares a piece stands on after this move (king and rook for castling).
fn landing_squares(mv: &Move) -> Vec<Square> {
    match mv.castle_side() {
        Some(side) => {
            let rank = mv.from.rank();
            vec![
                Square::new(side.king_target(), rank),
                Square::new(side.rook_target(), rank),
            ]
        }
        None => vec![mv.to],
    }
}

/// King-step distance between two squares.
fn chebyshev(a: Square, b: Square) -> u8 {
    let df = a.file().index().abs_diff(b.file().index());
    let dr = a.rank().index().abs_diff(b.rank().index());
    df.max(dr)
}

/// 0 for dark squares (a1), 1 for light ones.
fn square_shade(sq: Square) -> u8 {
    (sq.file().index() + sq.rank().index()) % 2
}

/// Where a piece of this kind and colour stands in the standard starting position
/// (nowhere for a king: a king never returns).
fn starting_squares(color: Color, kind: Kind) -> Vec<Square> {
    use crate::chess::{File, Rank};
    let back = color.back_rank();
    let pawns = match color {
        Color::White => Rank::SECOND,
        Color::Black => Rank::SEVENTH,
    };
    let files: &[File] = match kind {
        Kind::Pawn => return File::ALL.iter().map(|f| Square::new(*f, pawns)).collect(),
        Kind::Knight => &[File::B, File::G],
        Kind::Bishop => &[File::C, File::F],
        Kind::Rook => &[File::A, File::H],
        Kind::Queen => &[File::D],
        Kind::King => &[],
    };
    files.iter().map(|f| Square::new(*f, back)).collect()
}
