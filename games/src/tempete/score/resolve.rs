//! Reading a score, third step: a written act resolved on the board it is played on —
//! SAN against the plain moves under the continuing effects, long algebraic by its
//! squares — and built into the act and the slots its envelope opens and seals. Why a
//! written move names none: [`ResolveError`].

use sealed_protocol::ids::Name;
use sealed_protocol::rules::OpenedSlot;

use crate::chess::{CastleSide, Color, Move, MoveText, Square};
use crate::replay::ReplayError;

use crate::tempete::act::{Act, Answer, CardRef, CardUse, StartCard, WireMove};
use crate::tempete::board::{Board, Trap};
use crate::tempete::card::FlowEffect;
use crate::tempete::rules::{Tempete, deck_name, trap_name};
use crate::tempete::state::State;

use super::grammar::{ActText, CardText, Line, RefText, StartKind, is_coord};
use super::{illegal, unreadable};

/// The board the act's moves are read on: the state's, with the traps the actor opens
/// sprung first (as `Rules::apply` does).
pub(super) fn act_board(s: &State, side: Color, sprung: &[(u32, u8)]) -> Board {
    let mut b = s.board.clone();
    for (index, sq) in sprung {
        let effect = s.hand(side).traps.get(*index as usize).copied();
        let (Some(effect), Some(square)) = (effect, Square::from_index(*sq)) else {
            return s.board.clone();
        };
        match b.spring_trap(Trap {
            owner: side,
            square,
            effect,
        }) {
            Ok(next) => b = next,
            Err(_) => return s.board.clone(),
        }
    }
    b
}

/// Resolves a written move. Without a card (`plain`), SAN is matched against the plain
/// moves of `board`; with a card, a move must name both squares (castling excepted,
/// which names the castling rook from the board's rights).
pub(super) fn resolve(board: &Board, plain: bool, m: MoveText) -> Result<WireMove, ResolveError> {
    resolve_in(board, if plain { Mode::Plain } else { Mode::CardLater }, m)
}

/// Where a move stands in its act.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// In a play without a card: resolved against the plain moves.
    Plain,
    /// The first move of a card play: SAN is read on the board before the act.
    CardFirst,
    /// A later move of a card play: both squares must be named.
    CardLater,
}

/// Why a written move names no one move on the board.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum ResolveError {
    /// A card's later move in SAN, which names no from-square.
    #[error("a card's later move names its from-square (Ng1-f3, e7-e8=Q), or is O-O")]
    LaterMoveSquares,
    /// Castling with no king on the board.
    #[error("no king to castle")]
    NoKing,
    /// Castling the side to act has no right to.
    #[error("{color} has no right to {}", side.san())]
    NoRight {
        /// The side to act.
        color: Color,
        /// The castling written.
        side: CastleSide,
    },
    /// No plain move fits.
    #[error("{0} names no legal move here")]
    NoLegalMove(MoveText),
    /// Several plain moves fit.
    #[error("{text} fits {count} legal moves")]
    Ambiguous {
        /// The move as written.
        text: MoveText,
        /// How many fit.
        count: usize,
    },
}

pub(super) fn resolve_in(board: &Board, mode: Mode, m: MoveText) -> Result<WireMove, ResolveError> {
    let pos = board.position();
    let san = !is_coord(&m) && !matches!(m, MoveText::Castle(_));
    if mode == Mode::CardFirst && san {
        return resolve_in(board, Mode::Plain, m);
    }
    if mode != Mode::Plain {
        if let Some((from, to, promotion)) = m.squares() {
            return Ok(WireMove::new(from, to, promotion));
        }
        let MoveText::Castle(side) = m else {
            return Err(ResolveError::LaterMoveSquares);
        };
        let us = board.turn();
        let king = pos.kings(us).first().ok_or(ResolveError::NoKing)?;
        let file = pos
            .castling()
            .rook(us, side)
            .ok_or(ResolveError::NoRight { color: us, side })?;
        return Ok(WireMove::new(king, Square::new(file, king.rank()), None));
    }
    let cands = board.plain_moves();
    let fits: Vec<&Move> = match m.squares() {
        Some((from, to, promotion)) => {
            let exact: Vec<&Move> = cands
                .iter()
                .filter(|c| c.from == from && c.to == to && c.promotion == promotion)
                .collect();
            if !exact.is_empty() {
                exact
            } else {
                // `e1g1` written for castling: the king's target square.
                let castle: Vec<&Move> = cands
                    .iter()
                    .filter(|c| {
                        c.from == from
                            && promotion.is_none()
                            && c.castle_side()
                                .is_some_and(|s| Square::new(s.king_target(), from.rank()) == to)
                    })
                    .collect();
                if castle.is_empty() {
                    return Ok(WireMove::new(from, to, promotion));
                }
                castle
            }
        }
        None => cands
            .iter()
            .filter(|c| m.fits(pos, c, board.is_capture(c)))
            .collect(),
    };
    match fits.as_slice() {
        [one] => Ok(WireMove::of(one)),
        [] => Err(ResolveError::NoLegalMove(m)),
        _ => Err(ResolveError::Ambiguous {
            text: m,
            count: fits.len(),
        }),
    }
}

/// The act a line names on this state, with the slots and values its envelope would
/// open and seal.
pub(super) struct Built {
    pub(super) act: Act,
    pub(super) opened: Vec<OpenedSlot>,
    pub(super) committed: Vec<(Name, u32)>,
}

pub(super) fn build(
    rules: &Tempete,
    s: &State,
    line: &Line,
    ply: usize,
) -> Result<Built, ReplayError> {
    let side = s.to_act;
    let board = act_board(s, side, &line.sprung);
    let mut opened: Vec<OpenedSlot> = vec![];
    let mut own = |n: u32| -> Result<CardRef, ReplayError> {
        if opened.iter().any(|o| o.card == n) {
            return Err(illegal(ply, format!("card {n} is named twice in one act")));
        }
        opened.push(OpenedSlot {
            deck: deck_name(),
            slot: n,
            card: n,
        });
        Ok(CardRef::Slot(n))
    };
    let use_of = |c: &CardText, own: &mut dyn FnMut(u32) -> Result<CardRef, ReplayError>| {
        let card = match c.card {
            RefText::Own(n) => own(n)?,
            RefText::Taken(n) => CardRef::Taken(n),
            RefText::Again => CardRef::Again,
        };
        Ok::<_, ReplayError>(CardUse {
            card,
            squares: c.squares.clone(),
            kind: c.kind,
        })
    };
    let resolve_all = |plain: bool, moves: &[MoveText]| -> Result<Vec<WireMove>, ReplayError> {
        let mode = |k: usize| match (plain, k) {
            (true, _) => Mode::Plain,
            (false, 0) => Mode::CardFirst,
            (false, _) => Mode::CardLater,
        };
        moves
            .iter()
            .enumerate()
            .map(|(k, m)| {
                let r = resolve_in(&board, mode(k), *m);
                // Writing a card's later move without its from-square is a slip of
                // notation, not an illegal play.
                match (mode(k), m) {
                    (Mode::CardLater, m) if !is_coord(m) && !matches!(m, MoveText::Castle(_)) => {
                        r.map_err(unreadable)
                    }
                    _ => r.map_err(|e| illegal(ply, e)),
                }
            })
            .collect()
    };
    let mut committed = vec![];
    let act = match &line.act {
        ActText::Yield => Act::Yield,
        ActText::Intercept(c) => Act::Intercept {
            card: use_of(c, &mut own)?,
        },
        ActText::InterceptSecond(c) => Act::InterceptSecond {
            card: use_of(c, &mut own)?,
        },
        ActText::Cancel(c) => Act::Answer(Answer::Cancel {
            card: use_of(c, &mut own)?,
        }),
        ActText::Keep(m) => Act::Answer(Answer::Keep {
            moves: resolve_all(true, &[*m])?,
        }),
        ActText::Replay { card, moves } => {
            let card = card.as_ref().map(|c| use_of(c, &mut own)).transpose()?;
            Act::Answer(Answer::Replay {
                moves: resolve_all(card.is_none(), moves)?,
                card,
            })
        }
        ActText::Turn {
            start,
            card,
            moves,
            discard,
        } => {
            let start = match start {
                None => None,
                Some((c, k)) => {
                    let card = use_of(c, &mut own)?.card;
                    Some(match k {
                        StartKind::Take(number) => StartCard::Take {
                            card,
                            number: *number,
                        },
                        StartKind::Pick(slot) => StartCard::Pick { card, slot: *slot },
                    })
                }
            };
            let card = card.as_ref().map(|c| use_of(c, &mut own)).transpose()?;
            let number = card.as_ref().and_then(|u| match u.card {
                CardRef::Slot(n) | CardRef::Taken(n) => Some(n),
                CardRef::Again => None,
            });
            let seals = number
                .and_then(|n| rules.card(n))
                .is_some_and(|c| matches!(c.effect().flow(), Some(FlowEffect::SealTrapSquare(_))));
            if seals {
                committed.push((trap_name(), s.hand(side).traps.len() as u32));
            }
            let moves = resolve_all(card.is_none(), moves)?;
            let discard = discard
                .iter()
                .map(|n| match own(*n)? {
                    CardRef::Slot(s) => Ok(s),
                    _ => Err(illegal(ply, "a discard is a card of one's own deck")),
                })
                .collect::<Result<_, _>>()?;
            Act::Turn {
                start,
                card,
                moves,
                discard,
            }
        }
    };
    Ok(Built {
        act,
        opened,
        committed,
    })
}
