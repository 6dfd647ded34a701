//! Plays a PGN read by `pgn_read.rs` on its variant's own rules, and compares its moves
//! with the acts of the game (issue 55: every PGN reads back with every move).
//!
//! What is replayed, and how:
//!
//! - **Secret Stallmate** (with a referee or without): as chess from the `FEN` tag
//!   (`SetUp "1"`, `Variant "Chess960"`, castling by X-FEN letters), every SAN exactly as
//!   our chess writes it for the position (its check sign, its disambiguation); the
//!   moves must be the moves of the periods of the game's record (`stallmate::record`),
//!   every one, in order; each move's announcements (`{capture at d5, check on file}`) and
//!   its period's other attempts (`{tried first: …}`) must follow that move and no
//!   other.
//! - **Tempête**: a card may change the board in a way no chess viewer sees, so the PGN
//!   cannot be replayed as chess from the start. What its writer documents is read
//!   instead: one ply per play that stood (a turn not intercepted; the turn an
//!   interception's cancel let stand; an answer's play; a stated play of the physical
//!   deck, `--`), each move read on the game's own board before it (the board the rules
//!   give, `tempete::score::boards`): SAN when chess allows the move there, long algebraic
//!   when only the card does, `--` for a card with no move; it must be the play's first
//!   move. A card played with a turn must be named in a comment after that turn's move,
//!   and not after the next ply's.
//! - **Duel, Cardmate, Chex** write no PGN (`Table::pgn` is `None`): their scores are
//!   read in the reader's score dialect and replayed in `pgn_scores.rs`.

use sealed_games::chess::wire::WireMove;
use sealed_games::chess::{MoveText, Position};
use sealed_games::stallmate::referee::Referee;
use sealed_games::tempete::Tempete;
use sealed_games::tempete::act::{Act, Answer, CardRef, CardUse};
use sealed_games::tempete::board::Board;
use sealed_games::tempete::score::ScoredAct;
use sealed_protocol::hash::Hash;

use crate::pgn_read::{Pgn, Ply};

/// Plays `moves` as chess from `pos`, each SAN exactly as written for its position, and
/// each variation from the position before the move it replaces; the positions before
/// each main-line move and the moves.
pub(crate) fn chess_line(
    mut pos: Position,
    moves: &[Ply],
) -> Result<Vec<(Position, WireMove)>, String> {
    let mut out = vec![];
    for (i, ply) in moves.iter().enumerate() {
        let mv = pos
            .parse_san(&ply.san)
            .map_err(|e| format!("ply {} {}: not a legal move: {e}", i + 1, ply.san))?;
        let written = pos.san(&mv).map_err(|e| format!("ply {}: {e:?}", i + 1))?;
        if written != ply.san {
            return Err(format!(
                "ply {} is written {} where SAN is {written}",
                i + 1,
                ply.san
            ));
        }
        for v in &ply.variations {
            chess_line(pos.clone(), v).map_err(|e| format!("a variation of ply {}: {e}", i + 1))?;
        }
        let next = pos.play(&mv).map_err(|e| format!("ply {}: {e:?}", i + 1))?;
        out.push((pos, WireMove::of(&mv)));
        pos = next;
    }
    Ok(out)
}

/// A Secret Stallmate PGN against the game's record.
pub(crate) fn check_stallmate(pgn: &Pgn, record: &Referee) -> Result<(), String> {
    let start = record.start_position();
    if pgn.tag("Variant") != Some("Chess960") || pgn.tag("FEN") != Some(&start.fen()) {
        return Err(format!(
            "the setup tags are not the game's start {}: {:?}",
            start.fen(),
            pgn.tags
        ));
    }
    let fen = pgn.tag("FEN").unwrap_or_default();
    let pos = Position::from_fen(fen).map_err(|e| format!("FEN {fen:?}: {e:?}"))?;
    let played = chess_line(pos, &pgn.moves)?;
    // A period that ended without a move ends the game (a forfeit, on time or by
    // resignation): only the last may.
    let history = record.history();
    let turns: Vec<_> = history.iter().filter(|t| t.moved().is_some()).collect();
    if let Some(at) = history.iter().position(|t| t.moved().is_none())
        && at + 1 != history.len()
    {
        return Err(format!(
            "period {} moved nothing and the game went on",
            at + 1
        ));
    }
    if played.len() != turns.len() {
        return Err(format!(
            "{} moves in the PGN, {} periods of the game with a move",
            played.len(),
            turns.len()
        ));
    }
    for (i, ((_, mv), turn)) in played.iter().zip(turns.iter()).enumerate() {
        let ply = &pgn.moves[i];
        let Some(moved) = turn.moved().and_then(|a| a.squares()) else {
            return Err(format!(
                "ply {} {}: its period moved nothing",
                i + 1,
                ply.san
            ));
        };
        if *mv != WireMove::new(moved.0, moved.1, moved.2) {
            return Err(format!(
                "ply {} {} is not its period's move {}-{}",
                i + 1,
                ply.san,
                moved.0,
                moved.1
            ));
        }
        // What the move's announcements and attempts say belongs to it: first after it.
        let announced = turn
            .report()
            .map(|r| r.to_string())
            .and_then(|t| t.strip_prefix("yes, ").map(str::to_owned));
        let mut own: Vec<&str> = announced.iter().map(String::as_str).collect();
        let tried = turn.entries.len() > 1;
        if tried {
            own.push("tried first: ");
        }
        for (k, words) in own.iter().enumerate() {
            let ok = ply.comments.get(k).is_some_and(|c| c.starts_with(words));
            if !ok {
                return Err(format!(
                    "ply {} {}: {words:?} is not among its comments {:?}",
                    i + 1,
                    ply.san,
                    ply.comments
                ));
            }
        }
    }
    Ok(())
}

/// One play that stood in a Tempête game: the board it is read on, its moves, and the
/// number of the card played with it, when the act names it.
struct Stood<'a> {
    board: &'a Board,
    moves: &'a [WireMove],
    card: Option<u32>,
    claim: bool,
}

fn card_number(sa: &ScoredAct, card: Option<&CardUse>) -> Option<u32> {
    match card?.card {
        CardRef::Slot(slot) => sa.cards.iter().find(|(s, _)| *s == slot).map(|(_, n)| *n),
        CardRef::Taken(n) => Some(n),
        CardRef::Again => None,
    }
}

/// The plays that stood, in order (see the module's docs).
fn stood<'a>(acts: &'a [ScoredAct], boards: &'a [Board]) -> Vec<Stood<'a>> {
    let mut out = vec![];
    let mut pending = None;
    for (i, (sa, board)) in acts.iter().zip(boards).enumerate() {
        let intercepted = matches!(
            acts.get(i + 1).map(|a| &a.act),
            Some(Act::Intercept { .. } | Act::InterceptSecond { .. })
        ) && i + 1 < boards.len();
        let play = |moves, card, claim| Stood {
            board,
            moves,
            card,
            claim,
        };
        match &sa.act {
            Act::Turn { card, moves, .. } => {
                let p = play(moves.as_slice(), card_number(sa, card.as_ref()), false);
                if intercepted {
                    pending = Some(p);
                } else {
                    out.push(p);
                }
            }
            Act::Answer(Answer::Cancel { .. }) => out.extend(pending.take()),
            Act::Answer(Answer::Replay { card, moves }) => {
                pending = None;
                out.push(play(
                    moves.as_slice(),
                    card_number(sa, card.as_ref()),
                    false,
                ));
            }
            Act::Answer(Answer::Keep { moves }) => {
                pending = None;
                out.push(play(moves.as_slice(), None, false));
            }
            Act::Claim(_) | Act::Answer(Answer::Claimed(_)) => {
                pending = None;
                out.push(play(&[], None, true));
            }
            _ => {}
        }
    }
    out
}

/// A Tempête PGN against the game's acts (`coin`: the game's, for a physical deck's
/// rulings).
pub(crate) fn check_tempete(
    pgn: &Pgn,
    rules: &Tempete,
    coin: &Hash,
    acts: &[ScoredAct],
) -> Result<(), String> {
    let boards = sealed_games::tempete::score::boards(rules, coin, acts);
    if boards.len() != acts.len() {
        return Err(format!(
            "the rules refuse act {} of the game",
            boards.len() + 1
        ));
    }
    let plays = stood(acts, &boards);
    if plays.len() != pgn.moves.len() {
        let sans: Vec<&str> = pgn.moves.iter().map(|m| m.san.as_str()).collect();
        return Err(format!(
            "{} plies in the PGN, {} plays stood in the game: {sans:?}",
            pgn.moves.len(),
            plays.len()
        ));
    }
    for (i, (ply, play)) in pgn.moves.iter().zip(&plays).enumerate() {
        let at = format!("ply {} {}", i + 1, ply.san);
        match play.moves.first() {
            None if ply.san == "--" => {}
            None => return Err(format!("{at}: the play moved nothing (`--`)")),
            Some(_) if play.claim => return Err(format!("{at}: a stated play is `--`")),
            Some(first) => {
                let pos = play.board.position();
                let read = match pos.parse_san(&ply.san) {
                    Ok(mv) if pos.san(&mv).as_deref() == Ok(ply.san.as_str()) => WireMove::of(&mv),
                    Ok(mv) => {
                        return Err(format!("{at}: SAN is {:?}", pos.san(&mv)));
                    }
                    Err(san) => {
                        let text = MoveText::read(&ply.san)
                            .map_err(|e| format!("{at}: neither SAN ({san}) nor a move: {e:?}"))?;
                        let (from, to, promotion) =
                            text.squares().ok_or(format!("{at}: no squares ({san})"))?;
                        if pos.find_legal(from, to, promotion).is_some() {
                            return Err(format!("{at}: a legal chess move not written in SAN"));
                        }
                        WireMove::new(from, to, promotion)
                    }
                };
                if read != *first {
                    return Err(format!("{at}: the play's move is {first:?}, not {read:?}"));
                }
            }
        }
        if let Some(n) = play.card {
            let named = |p: &Ply| {
                p.comments
                    .iter()
                    .any(|c| c.starts_with(&format!("card {n} ")) || *c == format!("card {n}"))
            };
            if !named(ply) {
                return Err(format!(
                    "{at}: card {n} is not named after it: {:?}",
                    ply.comments
                ));
            }
            if let Some((next, next_play)) = pgn.moves.get(i + 1).zip(plays.get(i + 1))
                && next_play.card != Some(n)
                && named(next)
            {
                return Err(format!(
                    "{at}: card {n} is named after the next ply {}",
                    next.san
                ));
            }
        }
    }
    Ok(())
}

/// The PGN result token of a verdict's outcome, seat 0 playing White.
pub(crate) fn token(o: Option<&sealed_protocol::outcome::Outcome>) -> &'static str {
    use sealed_protocol::outcome::SeatResult::*;
    let Some(o) = o else { return "*" };
    match (&o.results[0], &o.results[1]) {
        (Win, _) | (_, Loss) => "1-0",
        (Loss, _) | (_, Win) => "0-1",
        (Score(w), Score(b)) if w > b => "1-0",
        (Score(w), Score(b)) if w < b => "0-1",
        _ => "1/2-1/2",
    }
}
