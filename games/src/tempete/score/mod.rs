//! Tempête's score format, read by `sealed replay tempete` and written by `export`.
//!
//! A score is PGN-like text. A game in which no card was played is exactly a chess game
//! in SAN, so ordinary PGN movetext replays as it is; everything a card adds is written
//! inside angle brackets `<…>`, which PGN reserves and no chess score uses.
//!
//! ```text
//! [Event "a sample"]
//! [Cards "1-10,12-21,23-70"]
//! [Hand "5"]
//!
//! 1. e4 e5 2. <18 Ng1-f3 Nf3-g5> <intercept 32> <answer Nf3> {the card is cancelled}
//! 2... Nc6 3. <12 Bc4> {trap 0 sealed} 3... <34 takes 12 Nf6> 4. <sprung 0 f6 d3>
//! 4... <17@c4 a6> *
//! ```
//!
//! # Grammar
//!
//! ```text
//! score    = { tag } movetext
//! tag      = "[" KEY " " '"' VALUE '"' "]"          one per line, before the movetext
//! movetext = { number | comment | act } [ result ]
//! number   = DIGITS "." | DIGITS "..."               "12." before White's turn, "12..." Black's
//! comment  = "{" TEXT "}" | ";" TEXT end-of-line     ignored (so are "(…)" side lines, "$n")
//! result   = "1-0" | "0-1" | "1/2-1/2" | "*"
//! act      = MOVE                                    a turn with no card: one move
//!          | "<" { sprung } body ">"
//! sprung   = "sprung" INDEX SQUARE                   the actor opens his sealed trap INDEX
//!                                                    (0 = his first trap card) on SQUARE,
//!                                                    where an enemy piece just landed
//! body     = "yield"                                 no legal move: mated or stalemated
//!          | "intercept" card                        intercept the turn just made
//!          | "intercept" "second" card               intercept the second move of its
//!                                                    double move (cards 18, 50)
//!          | "answer" "cancel" card                  cancel the interceptor's card
//!          | "answer" "keep" MOVE                    one plain move; the double-move card
//!                                                    goes back to the hand, shown
//!          | "answer" [ card ] { MOVE }              make another play instead
//!          | [ start ] [ card ] { MOVE } [ "discard" NUMBER { NUMBER } ]    a turn
//! start    = card "takes" NUMBER                     card 34's kind takes that played card
//!          | card "picks" "slot" NUMBER              card 57's kind picks that deck slot
//! card     = ref [ "@" SQUARE { "," SQUARE } ] [ "=" KIND ]     the card and its parameters
//! ref      = NUMBER                                  a card of one's own deck, by number
//!          | "t" NUMBER                              a card taken from the opponent (card 34)
//!                                                    or kept in an answer
//!          | "again"                                 the card of the turn just intercepted
//! MOVE     = SAN                                     "Nf3", "exd6", "O-O", "e8=N+"
//!          | LAN                                     "Ng1-f3", "Bc1xh6", "e7-e8=Q", "g1f3"
//! KIND     = "P" | "N" | "B" | "R" | "Q" | "K"
//! ```
//!
//! Examples: `<18 Ng1-f3 Nf3-g5>` (a double knight move); `<5@d4,e5>` (a swap with an
//! adjacent enemy piece, no move); `<8@b7=N>` (an early promotion to a knight);
//! `<19 e2-e4 discard 23 40>` (a move, then two cards discarded and redrawn);
//! `<57 picks slot 12 Nc3>`; `<34 takes 18 t18 Nb1-c3 Nc3-d5>`; `<intercept 66>`;
//! `<answer cancel 42>`; `<answer again Ng1-h3 Nh3-g5>`; `<intercept second 66>`;
//! `<answer keep e4>`; `<sprung 0 f6 yield>`.
//!
//! # Meaning
//!
//! - A card is written by its number, never by the deck slot it came from; the replay
//!   gives every card a slot of its own, so a score cannot check hands or entitlements
//!   (the transcript does that). A trap card's sealed square needs no writing: a turn
//!   with a trap card seals the next trap of its player.
//! - A SAN move is resolved against the plain legal moves of the board as it stands
//!   before the act (after the traps the act opens), under the continuing effects
//!   (frozen pieces, forbidden squares, the truce, gained patterns): every move of a
//!   play without a card, and the first move of a card play (the writer uses SAN there
//!   only for flow cards and `after` cards, whose first move is a plain one). Any
//!   later move of a card play is not chess, so it names both squares (LAN): the piece
//!   letter and `x` are for the reader, the squares decide (SAN there is unreadable).
//!   The move of `answer keep` is a play without a card.
//!   `e1g1` for castling is read in a play without a card. Trailing `+ # ! ?` and
//!   `e.p.` are ignored; no match or several is an illegal ply.
//! - Move numbers are optional; when given they must be right: the n-th turn of White is
//!   `n.`, Black's `n...`, counting turns (an answer replaces the intercepted turn and may
//!   carry its number; an interception carries none).
//! - Every act is one ply of the score (`ReplayError::Illegal` counts acts from 1).
//! - Tags read: `Cards`, `Hand`, `PlyLimit` (the options `cards`, `hand`, `ply-limit`);
//!   `SetUp "1"` is refused (Tempête starts from the standard position); others are
//!   kept out of the play.
//! - The writer adds comments a reader wants and the replay ignores: `{trap 0 sealed}`
//!   after a trap card, `{Black draws 2}` for a refill or a redraw it makes due.
//!
//! Replaying runs the protocol's own judge, `Rules::apply` of `Tempete`, act by act,
//! so a score and a transcript are judged by one code path.
//!
//! # Files
//!
//! Reading goes `tokens.rs` (text to tokens) → `grammar.rs` (words to what they name) →
//! `resolve.rs` (on a board, to acts) → `replay.rs` (judged, act by act). Writing is
//! `writer.rs` (acts to lines) with `write_moves.rs` (chess moves to text).

mod grammar;
mod replay;
mod resolve;
mod tokens;
mod write_moves;
mod writer;

use sealed_protocol::ids::Seat;

use crate::replay::ReplayError;

use super::act::Act;

pub use replay::{replay, replay_acts, replay_state, result_token};
pub(crate) use writer::{act_words, board_for, last_act, states};
pub use writer::{boards, list_text, option_tags, score_text, score_text_ending};

/// One accepted act as the protocol side knows it: who made it, the act, the slots its
/// envelope opened with the cards they held, whether it sealed a trap square, and which
/// trap squares it opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScoredAct {
    /// Who acted.
    pub seat: Seat,
    /// The act.
    pub act: Act,
    /// The slots the envelope opened: (slot, card number).
    pub cards: Vec<(u32, u32)>,
    /// Whether the envelope sealed a trap square.
    pub sealed_trap: bool,
    /// Trap squares the envelope opened: (trap index, square index).
    pub sprung: Vec<(u32, u8)>,
}

/// An unreadable score, in the words of `why` (a sentence, or a typed error).
pub(super) fn unreadable(why: impl std::fmt::Display) -> ReplayError {
    ReplayError::Unreadable(why.to_string())
}

/// An illegal act `ply`, in the words of `reason`.
pub(super) fn illegal(ply: usize, reason: impl std::fmt::Display) -> ReplayError {
    ReplayError::Illegal {
        ply,
        reason: reason.to_string(),
    }
}
