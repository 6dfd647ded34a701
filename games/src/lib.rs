//! Rule engines of the games sealed plays, and how each uses the protocol.
//!
//! A game is one folder: a struct implementing [`sealed_protocol::rules::Rules`], its
//! adapter ([`table::Game`]) and the [`table::Descriptor`] it exports. The one line outside
//! its folder is its name in the `games!` list below, which declares the folder and puts
//! the descriptor in the [`registry`]; every dispatch on a variant's name reads that.
//!
//! # Files
//!
//! One folder per game: `duel/`; `cardmate/` (cards, board and setups, moves, position,
//! notation, score, render); `chex/` (the pure `engine/` and the protocol side in
//! `mod.rs`); `tempete/` (the card vocabulary `card.rs`, the deck format `deck.rs` and
//! `open_deck.txt`, the board with continuing effects `board.rs`, plays `effects.rs`,
//! the acts `act.rs`, the public state `state.rs`, the protocol flow `rules.rs`, typed
//! notation `command.rs`, the bot `bot.rs`, the table adapter `table.rs`, the clickable
//! choices `choices.rs`, the score format `score/` — reading: `tokens.rs` →
//! `grammar.rs` → `resolve.rs` → `replay.rs`; writing: `writer.rs` with
//! `write_moves.rs` — PGN `pgn.rs`, boards `render.rs`); `stallmate/` (the pure engine
//! — setups `setup.rs`, the referee `referee.rs` with `answer.rs`, `checks.rs`,
//! `suppress.rs`, `announce.rs`, `ending.rs`, a player's own view `view.rs`, the bot,
//! score `record.rs`, `pgn.rs` — and the protocol side: acts `acts.rs`, the `Rules`
//! with its logs `peer.rs`, the end-of-game audit `audit.rs`, a period in the witness's
//! time for the audit and the referee's duty `timing.rs`, the table adapter and duties
//! `table.rs`). Every game folder has its table adapter in `table.rs` and exports one
//! `DESCRIPTOR`.
//!
//! Below the games, `table/`: the table's interface in two parts (`mod.rs`: `Table`,
//! what the session does — the protocol's `AnySession` handed out whole, turns and
//! duties — and `TableFace`, what a face shows), with the registry's functions
//! re-exported for the node; the adapter in three traits (`game.rs`: `Game` for turns,
//! `Face` for what is shown and typed — sides, prompts, notation, hints, the acts open
//! as clickable `Choice`s (`choice.rs`: squares, words, typed text, what more an act
//! asks), board, SVG, the board as cells seen from the seat's side (`grid.rs`: square
//! names as the choices use them, shades, pieces, marks), score, PGN — and `Automation`
//! for bots and duties); the generic table over it (`table_of.rs`: `TableOf<R>`); what
//! it tells the player in the player's words — who is awaited by role and name, results
//! with names, the PGN's players (`words.rs`); and the `Descriptor` built from a `Game`
//! impl (`descriptor.rs`). A game imports from here, never from above.
//!
//! Above them, the one list: the `games!` macro below declares each folder and lists
//! its descriptor (a new game is one line; `scripts/toy-game.sh` shows it), and
//! `registry.rs` picks a game by name for opening, restoring, proposing and the demo's
//! options; `variant.rs` (transcript checks and score replays by name) reads the
//! registry. The score-replay frame is `replay.rs`.
#![forbid(unsafe_code)]

/// The chess board our chess games share (the sealed-chess crate).
pub use sealed_chess as chess;
pub mod registry;
pub mod replay;
pub mod table;
pub mod variant;

/// Declares each game's folder and lists its descriptor, in this order, as the
/// registry's [`registry::GAMES`].
macro_rules! games {
    ($($game:ident),* $(,)? ; $($within:path),* $(,)?) => {
        $(pub mod $game;)*

        /// Every game's descriptor, in the order of the `games!` list: each folder's,
        /// then those of games that live inside another's folder.
        const GAMES: &[&table::Descriptor] = &[$(&$game::DESCRIPTOR,)* $(&$within,)*];
    };
}

games! {
    duel,
    cardmate,
    chex,
    tempete,
    stallmate;
    // Secret Stallmate without a referee shares the board's rules and words.
    stallmate::duo::DESCRIPTOR,
}
