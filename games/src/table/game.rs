//! What only a game knows: the adapter each game implements in its own folder, in
//! three parts — turns ([`Game`]), what a person sees and types ([`Face`]), and what is
//! done without one ([`Automation`]).

use sealed_protocol::ids::Seat;
use sealed_protocol::rules::Rules;
use sealed_protocol::session::{Command, Session};

use super::choice::Choice;
use super::grid::Grid;
use super::hand::Hand;

/// What only a game knows about turns: its name, whether the seat to act can act, and
/// whose act is awaited. A game is also a [`Face`] (how it is shown and written) and an
/// [`Automation`] (what a bot or a duty does for a seat). Every function is called with
/// the session it concerns; those taking a state are called only once the game has
/// started.
pub(crate) trait Game: Face + Automation + Rules<State: Send> + Send + 'static {
    /// The variant name.
    const VARIANT: &'static str;

    /// Whether the seat to act has what its act needs.
    fn ready(s: &Session<Self>, state: &Self::State) -> bool;

    /// The seat whose act a person or bot is awaited for. Default: the one the rules
    /// name. A game whose moves are made in private logs (Secret Stallmate) names the
    /// mover, though in public only the referee acts.
    fn acting(s: &Session<Self>, _state: &Self::State) -> Option<Seat> {
        s.engine().to_act()
    }

    /// What the game waits for in its own words, when "the seat `to_act` names" would
    /// mislead (Secret Stallmate: in public only the referee acts, but it is the mover's
    /// period). Default: the protocol's words.
    fn awaiting(_s: &Session<Self>, _state: &Self::State) -> Option<String> {
        None
    }

    /// The table a node holds for a session of this game. Default: the generic table;
    /// a game that keeps more beside its session (Secret Stallmate without a referee:
    /// the player's side of the computations) wraps it.
    fn table(session: Session<Self>) -> Box<dyn super::Table> {
        super::TableOf::boxed(session)
    }
}

/// How a game is shown to a person and written down: its sides, prompts, notation,
/// hints, board (text, SVG and cells), hand, score and PGN. Everything a board in any front
/// end draws comes from here, never re-implemented there.
pub(crate) trait Face: Rules {
    /// Why the game refuses a person's words ([`Face::parse`]): its notation's error, or
    /// its rules' as the face checks them. The table carries it to the node as
    /// [`Refusal::Game`](super::Refusal::Game), its type erased.
    type Error: std::error::Error + Clone + PartialEq + Eq + Send + Sync + 'static;

    /// The seat's side in the game's own words, if it has sides.
    fn side(seat: Seat) -> Option<String>;

    /// What the seat to act is asked, after `you: `.
    fn prompt(s: &Session<Self>, state: &Self::State) -> String;

    /// A game act in the game's notation, for the seat to act once ready.
    fn parse(s: &Session<Self>, state: &Self::State, text: &str) -> Result<Command, Self::Error>;

    /// Hints of the game acts open to the seat to act once ready.
    fn hints(s: &Session<Self>, state: &Self::State) -> Vec<String>;

    /// Every game act open to the seat to act once ready, for a board that is clicked
    /// (see [`Choice`]): each one's text is read back by [`Face::parse`] as that act.
    fn choices(s: &Session<Self>, state: &Self::State) -> Vec<Choice>;

    /// The board as text.
    fn board(s: &Session<Self>, state: &Self::State) -> String;

    /// What the seat holds besides the board, as text lines and as JSON.
    fn hand(s: &Session<Self>) -> (Option<String>, Hand);

    /// The board as SVG.
    fn svg(state: &Self::State) -> Option<String>;

    /// The board as cells seen from this seat's side, for a page that draws it and is
    /// clicked on it ([`Grid`]); `None` for a game without a board (Duel).
    fn grid(_s: &Session<Self>, _state: &Self::State) -> Option<Grid> {
        None
    }

    /// The squares of the last act that moved or placed something, as the grid names
    /// them (from, to; both moves of a double move), for a board to mark; empty when
    /// none, or when this seat does not see it (Secret Stallmate's opponent).
    fn last(_s: &Session<Self>, _state: &Self::State, _acts: &[Self::Act]) -> Vec<String> {
        vec![]
    }

    /// The last act in the game's own words, and whose it was, for `show` to say what
    /// the opponent just did where the board alone does not (a card's effect, a ruling
    /// applied); `None` for a game whose board says it (or that has no act yet).
    fn last_words(_s: &Session<Self>, _state: &Self::State, _acts: &[Self::Act]) -> Option<String> {
        None
    }

    /// The board at the start and after each act of the score (one per act the score
    /// writes, not per protocol act: Chex's draw is written with its placement), each
    /// with the squares its act moved or placed, for a page that steps back through a
    /// game it cannot replay itself ([`Steps`](super::steps::Steps)); empty when the
    /// page needs none or this seat may not see them.
    fn boards(_s: &Session<Self>, _acts: &[Self::Act]) -> Vec<(Grid, Vec<String>)> {
        vec![]
    }

    /// Score text of the accepted acts, in order.
    fn score(s: &Session<Self>, state: &Self::State, acts: &[Self::Act]) -> Option<String>;

    /// The game as PGN, for games on a chess board.
    fn pgn(_s: &Session<Self>, _state: &Self::State) -> Option<String> {
        None
    }
}

/// What is done for a seat without a person: a bot's pick, and the duties a seat owes
/// whoever decides its moves.
pub(crate) trait Automation: Rules {
    /// A random bot's act, for the seat to act once ready.
    fn bot(s: &Session<Self>, state: &Self::State, pick: u64) -> Option<Command>;

    /// When a duty of this seat comes due with time alone, if one will. Default: never.
    fn due_at(_s: &Session<Self>, _state: &Self::State) -> Option<u64> {
        None
    }

    /// What the seat must do now whatever a person or bot decides, at time `now`
    /// (Secret Stallmate: show one's setup to the referee; the referee's answers and
    /// period closes). Default: no duties.
    fn duty(_s: &Session<Self>, _now: u64) -> Option<Command> {
        None
    }

    /// A ruling from outside the seats, by the one the terms name to rule (Tempête's
    /// arbiter, spec/GAMES.md §4.20), which either player posts as his act: `Err`
    /// refuses it (not a ruling, not signed by him, or about nothing open any more: the
    /// game's own reason as [`Refusal::game`](super::Refusal::game));
    /// `Ok(None)` keeps it for later; `Ok(Some)` is the command that posts it now. Posting
    /// it is a duty, not a choice: it carries the arbiter's word and accepts nothing.
    /// Default: the game takes no ruling.
    fn ruling(
        _s: &Session<Self>,
        _state: &Self::State,
        _act: &Self::Act,
    ) -> Result<Option<Command>, super::Refusal> {
        Err(super::Refusal::NoRulings)
    }
}
