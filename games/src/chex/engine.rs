//! The pure rules of Chex (seed 003): chess on an unbounded board that the pieces
//! build as they are drawn from each side's stack. No protocol here: the random pick of
//! a draw is made outside and handed to [`Position::place`].
//!
//! - The board is sparse and unbounded, in absolute coordinates; White's first piece
//!   goes on the origin. Each side's stack is a standard army (K, Q, R×2, B×2, N×2,
//!   P×8), its content public.
//! - A turn is a draw and placement ([`Position::declare_draw`], then
//!   [`Position::place`] on an empty square touching any piece), or a chess move
//!   without castling, en passant, promotion or a pawn's double step, after which all
//!   pieces must still form one 8-connected group. There is no check.
//! - A player with no legal move must draw; one with an empty stack must move.
//! - Taking the King wins. Drawing a King that has no square safe from capture on the
//!   opponent's next turn is a stalemate, as is having an empty stack and no legal move;
//!   an optional ply limit draws.
//!
//! Moves are written in display coordinates relative to the current bounding box
//! ([`Frame`]); see [`notation`] for the notation and [`score`] for the score format.
//! spec/GAMES.md (Chex) states every rule and interpretation.

mod board;
mod moves;
pub mod notation;
mod notation_error;
mod position;
mod render;
pub mod score;

pub use board::{ARMY, Board, Color, Kind, Piece, Square, Stack};
pub use moves::{Move, can_capture, keeps_connected, legal_moves, pseudo_moves, pseudo_moves_from};
pub use notation::{
    DisplaySquare, Frame, Reading, Written, file_name, parse_file, parse_move, parse_ply, read,
    resolve, write_move, write_place, write_ply,
};
pub use notation_error::{ParseError, ReadError, ResolveError};
pub use position::{End, Phase, PlayError, Ply, Position, SetupError};
pub use render::{diagram, status, svg, text};
pub use score::{WriteError, replay, replay_score, result_token, write_score, write_score_ended};
