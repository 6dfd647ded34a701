//! Chess board and move generator built for rule changes: the ground that Tempête sur
//! l'Echiquier (chess with cards) and Secret Stallmate (a Chess960 setup per side) stand
//! on. It implements no card; it gives card effects the operations they need.
//!
//! # Why our own board
//!
//! Standard chess libraries, cozy-chess among them, refuse positions that card effects
//! make: after the first move of a "move twice" card the side *not* to move may be in
//! check; an effect may leave a side with no king or two; a pawn may step backwards onto
//! its own back rank. [`Position`] accepts all of these and defines what legality means
//! on them: **a move is legal if afterwards no king of the mover is attacked** (all of
//! them if there are several; with none, every pseudo-legal move is legal). On ordinary
//! positions that is exactly chess, and the tests check it against cozy-chess by perft
//! and by comparing legal-move sets along random games.
//!
//! # Castling by rook file
//!
//! Castling rights are stored per side as the file of the rook that may castle
//! ([`CastlingRights`]), as X-FEN and Shredder-FEN write them. Secret Stallmate gives
//! White and Black independent Chess960 back ranks, so their king and rook files differ;
//! a "king side / queen side" flag could not say which rook is meant. Castling follows
//! the Chess960 rule: king and rook end on g/f (short) or c/d (long).
//!
//! # Hooks for cards
//!
//! - one piece's moves: [`Position::legal_moves_from`];
//! - a piece moving as another kind: [`Position::legal_moves_as`];
//! - a move that keeps the turn (a second move follows): [`Position::play_keep_turn`];
//! - giving up the turn: [`Position::pass_turn`], [`Position::set_turn`];
//! - safety of a move generated outside the rules: [`Position::is_safe`];
//! - board edits that keep rights consistent: [`Position::set_piece`].
//!
//! # Example
//!
//! ```
//! use sealed_chess::{Color, Position, perft};
//!
//! // Secret Stallmate: White's back rank is Chess960 number 518, Black's number 0.
//! let pos = Position::chess960_pair(518, 0).unwrap();
//! assert_eq!(pos.shredder_fen(), "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAhf - 0 1");
//! assert_eq!(perft(&pos, 2), 400);
//!
//! // A card lets White's knight move twice. After the first move, which checks, the
//! // turn is still White's with Black's king attacked: a position cozy-chess refuses.
//! let pos = Position::from_fen("4k3/8/8/7N/8/8/8/4K3 w - - 0 1").unwrap();
//! let pos = pos.play_keep_turn(&pos.parse_san("Nf6+").unwrap()).unwrap();
//! assert!(pos.turn() == Color::White && pos.king_attacked(Color::Black));
//! let pos = pos.play(&pos.parse_san("Nd7").unwrap()).unwrap();
//! assert_eq!(pos.fen(), "4k3/3N4/8/8/8/8/8/4K3 b - - 2 1");
//! ```
//!
//! # Files
//!
//! `square.rs`, `piece.rs`, `bitboard.rs`: the vocabulary. `attacks.rs`: what each piece
//! attacks. `castling.rs`: the rights. `position.rs`: the position, attacks on it, edits.
//! `fen.rs`: FEN in and out. `movegen.rs`: move generation and legality. `play.rs`:
//! making moves. `moves.rs`: a move. `wire.rs` (feature `serde`): the one wire form of a
//! move, so Tempête and Stallmate send moves byte for byte alike. `text.rs`: move text
//! (SAN, long algebraic, coordinates) read and printed by one reader and one writer,
//! which chess's SAN, Tempête's score and typed moves and Stallmate's attempts all use.
//! `san.rs`: SAN in and out on a position; the writer takes the candidate moves, so
//! Tempête's moves under continuing effects are written by it too. `pgn.rs`: what every
//! PGN export shares. `perft.rs`: perft.
//!
//! Cross-checked against cozy-chess in its tests and its benchmark. The crate imports
//! nothing of sealed: the games crate re-exports it as `sealed_games::chess`.
#![forbid(unsafe_code)]

mod attacks;
mod bitboard;
mod castling;
mod fen;
mod movegen;
mod moves;
mod perft;
pub mod pgn;
mod piece;
mod play;
mod position;
mod san;
mod square;
mod text;
#[cfg(feature = "serde")]
pub mod wire;

pub use bitboard::Bitboard;
pub use castling::{CastleSide, CastlingRights};
pub use fen::FenError;
pub use moves::{Move, MoveKind};
pub use perft::{divide, perft};
pub use piece::{Color, Kind, Piece};
pub use play::IllegalMove;
pub use position::{Position, SetupError, chess960_back_rank};
pub use san::SanError;
pub use square::{File, Rank, Square, SquareParseError};
pub use text::{MAX_MOVE_TEXT, Malformed, MoveText, PieceText};
