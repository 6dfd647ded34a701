//! The score files of the games that write no PGN (Duel, Cardmate, Chex), read by the
//! PGN reader in its score dialect (`pgn_read::read_score`: the movetext rules of PGN
//! with each game's own move symbols) and replayed on the game's rules (issue 55: every
//! score reads back with every move and the verdict's result).
//!
//! - **Chex**: every ply (a drop `N@a1` or a move) read by Chex's notation on the
//!   position before it and played, from the empty board of its `PlyLimit`.
//! - **Cardmate**: its notation is private to the game; the main line as read (every
//!   move, numbered) is written again and replayed by Cardmate's own score reader on the
//!   board its tags give (the 10×10 board, the random setup by its `Coin`), which must
//!   play every move.
//! - **Duel**: a round is two card numbers, the leader's and the follower's; read as two
//!   plies a round, not replayed here (the game's own reader does in `checks.rs`).

use sealed_games::chex::engine::Position as ChexPosition;
use sealed_games::chex::engine::notation as chex_notation;

use crate::pgn_read::Pgn;

/// Plays a Chex score's plies; returns how many.
pub(crate) fn check_chex(pgn: &Pgn) -> Result<usize, String> {
    let limit = match pgn.tag("PlyLimit") {
        Some(v) => v.parse().map_err(|_| format!("PlyLimit {v:?}"))?,
        None => 0,
    };
    let mut pos = ChexPosition::new(limit);
    for (i, ply) in pgn.moves.iter().enumerate() {
        let at = format!("ply {} {}", i + 1, ply.san);
        let w = chex_notation::read(&ply.san).map_err(|e| format!("{at}: {e}"))?;
        let p = chex_notation::resolve(&pos, &w).map_err(|e| format!("{at}: {e}"))?;
        let written = chex_notation::write_ply(&pos, &p);
        if written != ply.san {
            return Err(format!("{at} is written {written} by the game"));
        }
        pos.play_ply(&p).map_err(|e| format!("{at}: {e}"))?;
    }
    Ok(pgn.moves.len())
}

/// Replays a Cardmate score's main line, as read, with Cardmate's own reader; returns
/// how many moves it played.
pub(crate) fn check_cardmate(pgn: &Pgn) -> Result<usize, String> {
    let text = cardmate_line(pgn, pgn.moves.len());
    let (_, plies) = sealed_games::cardmate::replay_score(&text).map_err(|e| format!("{e}"))?;
    if plies != pgn.moves.len() {
        return Err(format!("{} moves read, {plies} played", pgn.moves.len()));
    }
    Ok(plies)
}

/// A Cardmate score's tags and the first `upto` moves of its main line as read, numbered,
/// for Cardmate's own reader (which keeps its notation to itself).
pub(crate) fn cardmate_line(pgn: &Pgn, upto: usize) -> String {
    let mut text = String::new();
    for (k, v) in &pgn.tags {
        text.push_str(&format!("[{k} \"{v}\"]\n"));
    }
    text.push('\n');
    for (i, m) in pgn.moves.iter().take(upto).enumerate() {
        if i % 2 == 0 {
            text.push_str(&format!("{}. ", i / 2 + 1));
        }
        text.push_str(&m.san);
        text.push(' ');
    }
    text
}
