//! Rule engines of the games sealed plays, and how each uses the protocol.
//!
//! A game is one folder: a struct implementing [`sealed_protocol::rules::Rules`], its
//! adapter ([`table::Game`]) and the [`table::Descriptor`] it exports. The one line outside
//! its folder is its name in the `games!` list below, which declares the folder and puts
//! the descriptor in the [`registry`]; every dispatch on a variant's name reads that.

/// The chess board our chess games share (the sealed-chess crate).
pub use sealed_chess as chess;
pub mod registry;
pub mod replay;
pub mod table;
pub mod variant;

/// Declares each game's folder and lists its descriptor, in this order, as the
/// registry's [`registry::GAMES`].
macro_rules! games {
    ($($game:ident),* $(,)?) => {
        $(pub mod $game;)*

        /// Every game's descriptor, in the order of the `games!` list.
        const GAMES: &[&table::Descriptor] = &[$(&$game::DESCRIPTOR),*];
    };
}

games! {
    duel,
    cardmate,
    chex,
    tempete,
    stallmate,
}
