//! Shared by the chess tests: cozy-chess as the oracle, and a seeded random source.
//!
//! cozy-chess is a dev-dependency only: the oracle our own board is checked against on
//! the positions both accept.

#![allow(dead_code)]

use std::collections::BTreeSet;

use sealed_chess::{Kind, Move, Position};

/// A move as (from index, to index, promotion letter): the shape both libraries share.
/// Castling is king-takes-rook in both.
pub type Triple = (u8, u8, Option<char>);

/// Our move as a triple.
pub fn ours(mv: &Move) -> Triple {
    (
        mv.from.index(),
        mv.to.index(),
        mv.promotion.map(|k| k.upper().to_ascii_lowercase()),
    )
}

/// cozy-chess's move as a triple.
pub fn theirs(mv: &cozy_chess::Move) -> Triple {
    (mv.from as u8, mv.to as u8, mv.promotion.map(char::from))
}

/// Our legal moves as a set of triples.
pub fn our_moves(pos: &Position) -> BTreeSet<Triple> {
    pos.legal_moves().iter().map(ours).collect()
}

/// cozy-chess's legal moves as a set of triples.
pub fn cozy_moves(board: &cozy_chess::Board) -> BTreeSet<Triple> {
    let mut out = BTreeSet::new();
    board.generate_moves(|pm| {
        for mv in pm {
            out.insert(theirs(&mv));
        }
        false
    });
    out
}

/// cozy-chess's move for one of ours.
pub fn to_cozy(mv: &Move) -> cozy_chess::Move {
    let promotion = mv.promotion.map(|k| match k {
        Kind::Knight => cozy_chess::Piece::Knight,
        Kind::Bishop => cozy_chess::Piece::Bishop,
        Kind::Rook => cozy_chess::Piece::Rook,
        _ => cozy_chess::Piece::Queen,
    });
    cozy_chess::Move {
        from: cozy_chess::Square::index(mv.from.idx()),
        to: cozy_chess::Square::index(mv.to.idx()),
        promotion,
    }
}

/// Parses a FEN both ways (cozy-chess in Shredder mode when the castling letters need
/// it), panicking with the FEN if either refuses.
pub fn both(fen: &str) -> (Position, cozy_chess::Board) {
    let ours = Position::from_fen(fen).unwrap_or_else(|e| panic!("we refuse {fen}: {e}"));
    let theirs = fen
        .parse::<cozy_chess::Board>()
        .unwrap_or_else(|e| panic!("cozy-chess refuses {fen}: {e:?}"));
    (ours, theirs)
}

/// The FEN with the half-move clock capped at 100, as cozy-chess keeps it.
pub fn capped(fen: &str) -> String {
    let mut fields: Vec<String> = fen.split(' ').map(str::to_owned).collect();
    if let Some(h) = fields.get_mut(4)
        && let Ok(n) = h.parse::<u32>()
    {
        *h = n.min(100).to_string();
    }
    fields.join(" ")
}

/// xorshift64*: a tiny seeded generator so that every run plays the same games.
pub struct Rng(u64);

impl Rng {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// The standard perft suite (chessprogramming wiki positions 1–6) with their known counts
/// by depth from 1.
pub const SUITE: [(&str, &str, &[u64]); 6] = [
    (
        "start",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &[20, 400, 8902, 197_281, 4_865_609],
    ),
    (
        "kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        &[48, 2039, 97_862, 4_085_603],
    ),
    (
        "position 3",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        &[14, 191, 2812, 43_238, 674_624],
    ),
    (
        "position 4",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        &[6, 264, 9467, 422_333],
    ),
    (
        "position 5",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        &[44, 1486, 62_379, 2_103_487],
    ),
    (
        "position 6",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        &[46, 2079, 89_890, 3_894_594],
    ),
];
