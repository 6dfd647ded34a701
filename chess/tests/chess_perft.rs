//! Our move generator against cozy-chess (the oracle) and the published perft counts:
//! the standard suite, Chess960 starting positions, and starting positions where White's
//! and Black's back ranks differ (Secret Stallmate), by perft and by comparing the legal
//! moves position by position along seeded random games.

mod chess_support;

use chess_support::{Rng, SUITE, both, capped, cozy_moves, our_moves, to_cozy};
use sealed_chess::{Position, perft};

fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    board.generate_moves(|pm| {
        for mv in pm {
            if depth == 1 {
                total += 1;
            } else {
                let mut next = board.clone();
                next.play_unchecked(mv);
                total += cozy_perft(&next, depth - 1);
            }
        }
        false
    });
    total
}

#[test]
fn standard_suite_matches_published_counts_and_cozy_chess() {
    for (name, fen, counts) in SUITE {
        let (pos, board) = both(fen);
        for (i, &expected) in counts.iter().enumerate() {
            let depth = i as u32 + 1;
            let got = perft(&pos, depth);
            assert_eq!(got, expected, "{name} perft({depth})");
            assert_eq!(
                cozy_perft(&board, depth),
                expected,
                "cozy-chess {name} perft({depth})"
            );
        }
    }
}

/// Scharnagl numbers spread over the range, 518 being the standard setup.
const CHESS960: [u16; 8] = [0, 1, 95, 226, 518, 705, 863, 959];

#[test]
fn chess960_starting_positions_match_cozy_chess() {
    for n in CHESS960 {
        let pos = Position::chess960(n).expect("n < 960");
        let board = cozy_chess::Board::chess960_startpos(u32::from(n));
        assert_eq!(pos.shredder_fen(), format!("{board:#}"), "setup {n}");
        for depth in 1..=4 {
            assert_eq!(
                perft(&pos, depth),
                cozy_perft(&board, depth),
                "setup {n} perft({depth})"
            );
        }
    }
}

/// (White's number, Black's number): each side its own Chess960 back rank.
const PAIRS: [(u16, u16); 6] = [
    (518, 0),
    (518, 959),
    (0, 959),
    (226, 705),
    (863, 95),
    (1, 518),
];

#[test]
fn differing_back_ranks_match_cozy_chess() {
    for (w, b) in PAIRS {
        let pos = Position::chess960_pair(w, b).expect("both < 960");
        let board = cozy_chess::Board::double_chess960_startpos(u32::from(w), u32::from(b));
        let fen = pos.shredder_fen();
        assert_eq!(fen, format!("{board:#}"), "setup {w}/{b}");
        // cozy-chess reads our Shredder-FEN back to the same board, and we read it too.
        let (ours, theirs) = both(&fen);
        assert_eq!(ours, pos);
        assert_eq!(theirs, board);
        for depth in 1..=4 {
            assert_eq!(
                perft(&pos, depth),
                cozy_perft(&board, depth),
                "setup {w}/{b} perft({depth})"
            );
        }
    }
}

/// Positions where both sides can castle soon, from different back ranks: the king
/// already on its target, king and rook swapping squares, the rook's target held by the
/// other rook, paths crossed by enemy bishops and queens.
const CASTLING_FENS: [&str; 6] = [
    "5rkr/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w HAhf - 0 1",
    "rk4r1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w GBga - 0 1",
    "1rk3r1/pppp1ppp/8/4p3/2B5/8/PPPPP1PP/1R3KR1 b GBgb - 0 1",
    "r5kr/ppp1pppp/8/3p4/6q1/1b6/PP1PPPPP/1RK3R1 w GBha - 0 1",
    "2r1k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/1R2K1R1 w GBhc - 0 1",
    "rk5r/8/8/8/8/8/8/RK5R w HAha - 0 1",
];

#[test]
fn castling_from_different_back_ranks_matches_cozy_chess() {
    let mut castles = 0;
    for fen in CASTLING_FENS {
        let (pos, board) = both(fen);
        assert_eq!(pos.shredder_fen(), format!("{board:#}"));
        castles += pos
            .legal_moves()
            .iter()
            .filter(|m| m.castle_side().is_some())
            .count();
        for depth in 1..=4 {
            assert_eq!(
                perft(&pos, depth),
                cozy_perft(&board, depth),
                "{fen} perft({depth})"
            );
        }
    } // The positions do exercise castling at the root, not only deeper down.
    assert!(castles >= 8, "{castles} castling moves at the roots");
}

/// Plays `games` seeded random games from `start`, comparing at every ply the legal
/// move sets, the FEN, and check/mate/stalemate with cozy-chess. Returns the positions
/// seen (for later perft) and the number of plies compared.
fn random_games(start: &str, games: usize, max_plies: usize, seed: u64) -> (Vec<Position>, usize) {
    let mut rng = Rng::new(seed);
    let mut seen = Vec::new();
    let mut plies = 0;
    for game in 0..games {
        let (mut pos, mut board) = both(start);
        for ply in 0..max_plies {
            let ours = our_moves(&pos);
            let theirs = cozy_moves(&board);
            assert_eq!(
                ours,
                theirs,
                "game {game} ply {ply}: {}",
                pos.shredder_fen()
            );
            assert_eq!(
                capped(&pos.shredder_fen()),
                format!("{board:#}"),
                "game {game} ply {ply}"
            );
            assert_eq!(
                Position::from_fen(&pos.fen()).as_ref(),
                Ok(&pos),
                "X-FEN round trip"
            );
            assert_eq!(
                Position::from_fen(&pos.shredder_fen()).as_ref(),
                Ok(&pos),
                "Shredder-FEN round trip"
            );
            assert_eq!(pos.is_check(), !board.checkers().is_empty());
            let status = board.status();
            assert_eq!(pos.is_checkmate(), status == cozy_chess::GameStatus::Won);
            assert_eq!(
                pos.is_stalemate(),
                status == cozy_chess::GameStatus::Drawn && theirs.is_empty()
            );
            plies += 1;
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            if rng.below(20) == 0 {
                seen.push(pos.clone());
            }
            let mv = moves[rng.below(moves.len())];
            pos = pos.play(&mv).expect("a generated move is legal");
            board.play(to_cozy(&mv));
        }
    }
    (seen, plies)
}

fn starts() -> Vec<String> {
    let mut fens: Vec<String> = SUITE.iter().map(|(_, fen, _)| (*fen).to_owned()).collect();
    for n in [0, 359, 959] {
        fens.push(Position::chess960(n).expect("< 960").shredder_fen());
    }
    for (w, b) in PAIRS {
        fens.push(Position::chess960_pair(w, b).expect("< 960").shredder_fen());
    }
    fens
}

#[test]
fn random_games_agree_with_cozy_chess_ply_by_ply() {
    let mut total_games = 0;
    let mut total_plies = 0;
    let mut sampled = Vec::new();
    for (i, fen) in starts().iter().enumerate() {
        let games = 25;
        let (seen, plies) = random_games(fen, games, 160, 0x5eed_0000 + i as u64);
        total_games += games;
        total_plies += plies;
        sampled.extend(seen);
    }
    // Perft a little way down from positions the random games reached, where castling
    // rights, en passant and promotions are in odd states.
    let mut rng = Rng::new(7);
    for _ in 0..40 {
        let pos = &sampled[rng.below(sampled.len())];
        let board: cozy_chess::Board = capped(&pos.shredder_fen()).parse().expect("cozy reads it");
        assert_eq!(
            perft(pos, 3),
            cozy_perft(&board, 3),
            "{}",
            pos.shredder_fen()
        );
    }
    assert!(total_games >= 300, "{total_games} games");
    eprintln!("{total_games} random games, {total_plies} plies compared");
}
