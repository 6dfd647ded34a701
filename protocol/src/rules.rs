//! The trait a game implements to run on the protocol.
//!
//! The core owns everything cryptographic and everything about order: signatures,
//! chains, acknowledgements, commitments, the coin, deals and the entitlement ledger.
//! A game owns what a move means. The contract that makes verdicts independent of
//! arrival order is one sentence: **in any state, at most one seat may make a game act**
//! ([`Rules::to_act`]). Then the accepted acts form a single chain through the
//! acknowledgement graph, and an act that did not see the latest accepted act was, in
//! its sender's own view, made out of turn.

use core::fmt::Debug;

use crate::hash::Hash;
use crate::hidden::{Audit, Posted, Revealed};
use crate::ids::{EnvRef, LogId, Name, Seat};
use crate::outcome::{Outcome, SeatResult};
use crate::proposal::Terms;

/// A secret deck one seat owns and another seat deals from blindly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeckSpec {
    /// Who owns (commits to) the deck.
    pub owner: Seat,
    /// Its name, unique per owner.
    pub name: Name,
    /// The agreed list of card numbers; the deck has one slot per entry.
    pub cards: Vec<u32>,
    /// Who deals slot indices from it.
    pub dealer: Seat,
}

/// A private seeded setup one seat receives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupSpec {
    /// Whose setup it is.
    pub owner: Seat,
    /// Its name, unique per owner.
    pub name: Name,
    /// Whose coin seed is the contribution mixed into it.
    pub contributor: Seat,
}

/// A public pool one seat draws from blindly (Chex's stack): its content is the game's
/// public state; what the protocol provides is a fair pick for each draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolSpec {
    /// Who draws (and publishes the chain head).
    pub owner: Seat,
    /// The pool's name, unique per owner.
    pub name: Name,
    /// The most draws the pool allows (the length of the owner's chain).
    pub draws: u32,
    /// Who sends the fresh value of each draw.
    pub contributor: Seat,
}

/// A draw opened in the envelope being judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawResult {
    /// Which of the sender's pools.
    pub pool: Name,
    /// Which draw, from 1.
    pub index: u32,
    /// The pick: key a [`crate::random::Stream`] with it to choose among what remains.
    pub pick: Hash,
}

/// Slots a dealer owes an owner: created by the game's start or by an accepted act.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owe {
    /// Who must deal.
    pub dealer: Seat,
    /// Whose deck.
    pub owner: Seat,
    /// Which deck.
    pub deck: Name,
    /// How many more slots.
    pub count: u32,
}

/// A slot given to its owner other than by a deal (Tempête's card 57).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    /// Whose deck, and who receives the slot.
    pub owner: Seat,
    /// Which deck.
    pub deck: Name,
    /// The slot.
    pub slot: u32,
}

/// A deck slot opened in the envelope being judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenedSlot {
    /// Which deck (the sender's own).
    pub deck: Name,
    /// The slot.
    pub slot: u32,
    /// The card it held.
    pub card: u32,
}

/// A deck slot shown earlier in the envelope being judged, and kept (version 2, the
/// `Show` item, spec/PROTOCOL.md §17.16).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShownSlot {
    /// Which deck (the sender's own).
    pub deck: Name,
    /// The slot.
    pub slot: u32,
    /// The card it holds.
    pub card: u32,
    /// Whom the game counts it shown to (`None`: every seat). The envelope is public:
    /// every seat reads the card whatever this says.
    pub to: Option<Seat>,
}

/// A deck slot the sender holds: dealt or granted to it in the envelope's view and not
/// used before this envelope (its own openings before the act still count as held).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct HeldSlot {
    /// Which deck (the sender's own).
    pub deck: Name,
    /// The slot.
    pub slot: u32,
}

/// What the rules see of the envelope carrying an act.
#[derive(Clone, Debug)]
pub struct ActCtx<'a> {
    /// Where the act sits.
    pub at: EnvRef,
    /// The sender's clock reading.
    pub clock: u64,
    /// The joint coin.
    pub coin: &'a Hash,
    /// Deck slots of the sender opened earlier in this envelope.
    pub opened_slots: &'a [OpenedSlot],
    /// Deck slots of the sender shown, and kept, earlier in this envelope (version 2).
    pub shown_slots: &'a [ShownSlot],
    /// The sender's deck slots held before this envelope's own openings, by deck then
    /// slot (what a rule needs to check that a "show your hand" shows all of it).
    pub held_slots: &'a [HeldSlot],
    /// Sealed values of the sender opened earlier in this envelope.
    pub opened_values: &'a [(Name, u32, Vec<u8>)],
    /// Setups of the sender opened in play earlier in this envelope (version 2, for
    /// rules whose [`Rules::setups_open_in_play`] says so).
    pub opened_setups: &'a [Name],
    /// Sealed values the sender committed earlier in this envelope.
    pub committed_values: &'a [(Name, u32)],
    /// Draws from the sender's pools opened earlier in this envelope.
    pub draws: &'a [DrawResult],
}

/// The rules' answer to an accepted act.
#[derive(Clone, Debug)]
pub struct Applied<S> {
    /// The new state.
    pub state: S,
    /// Set when this act ends the game.
    pub outcome: Option<Outcome>,
    /// Deals this act makes due.
    pub owe: Vec<Owe>,
    /// Slots this act grants.
    pub grant: Vec<Grant>,
    /// Pools of the acting seat this act declares a draw from.
    pub declare: Vec<Name>,
}

impl<S> Applied<S> {
    /// A plain state change.
    pub fn state(state: S) -> Self {
        Applied {
            state,
            outcome: None,
            owe: vec![],
            grant: vec![],
            declare: vec![],
        }
    }
}

/// Moves as a time control counts them (version 2, from draft 10, spec/PROTOCOL.md
/// §17.7), for a game in which an accepted act is not always a move: Secret Stallmate
/// without a referee, where a chess move takes attempts and computations, many acts of
/// both players.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moves {
    /// The moves each seat has made, by seat.
    pub made: Vec<u64>,
    /// The seat whose move is under way, if any: its steps until its count grows are
    /// the waits of one move.
    pub mover: Option<Seat>,
}

impl Moves {
    /// The moves `seat` has made (0 for a seat the count does not name).
    pub fn made_by(&self, seat: Seat) -> u64 {
        self.made.get(usize::from(seat.0)).copied().unwrap_or(0)
    }
}

/// Why the rules refuse an act: a sentence naming the rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation(pub String);

impl<T: Into<String>> From<T> for Violation {
    fn from(s: T) -> Self {
        Violation(s.into())
    }
}

/// Why a proposal's options do not make a game of this variant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct OptionError(pub String);

/// A game.
pub trait Rules: Sized + Clone {
    /// The public game state, replayed identically by every seat and by verifiers.
    type State: Clone + Debug;
    /// A parsed game act.
    type Act: Debug;

    /// Reads the game's options from the terms. Unknown options are an error.
    fn from_terms(terms: &Terms) -> Result<Self, OptionError>;

    /// Secret decks every seat must commit to in its first envelope.
    fn decks(&self) -> Vec<DeckSpec> {
        vec![]
    }

    /// Private seeded setups every seat must commit to in its first envelope.
    fn setups(&self) -> Vec<SetupSpec> {
        vec![]
    }

    /// Public pools with fair blind draws every seat must publish a chain head for in
    /// its first envelope.
    fn pools(&self) -> Vec<PoolSpec> {
        vec![]
    }

    /// Deals owed as soon as the decks are committed (opening hands).
    fn opening_deals(&self) -> Vec<Owe> {
        vec![]
    }

    /// The state once the coin is known.
    fn start(&self, coin: &Hash) -> Self::State;

    /// Parses act bytes.
    fn decode_act(&self, bytes: &[u8]) -> Result<Self::Act, Violation>;

    /// The one seat that may make a game act now, if any.
    fn to_act(&self, state: &Self::State) -> Option<Seat>;

    /// Judges an act by the seat [`Rules::to_act`] named.
    fn apply(
        &self,
        state: &Self::State,
        seat: Seat,
        act: &Self::Act,
        ctx: &ActCtx<'_>,
    ) -> Result<Applied<Self::State>, Violation>;

    /// Version 2: whether a seat may open its setups' seeds while the game runs, in the
    /// envelope of an act that needs them (spec/PROTOCOL.md §8.5.4): Secret Stallmate
    /// without a referee, whose players owe, on time, the seeds every computation was
    /// made from. Default: no — a setup opened before the end is an early reveal.
    fn setups_open_in_play(&self) -> bool {
        false
    }

    /// The acting seat's setups an act must open in its own envelope, before it (then in
    /// [`ActCtx::opened_setups`]); a session adds their openings itself. Default: none.
    fn setups_to_open(&self, state: &Self::State, seat: Seat, act: &Self::Act) -> Vec<Name> {
        let _ = (state, seat, act);
        vec![]
    }

    /// The audience of a private log, or `None` if the game has no such log.
    fn audience(&self, log: LogId) -> Option<Vec<Seat>> {
        let _ = log;
        None
    }

    /// Judges an act posted to a private log by a member of its audience, from what
    /// every member knows: the log's earlier accepted acts (in order, each seen by the
    /// next). Whether it is *true* waits for [`Rules::audit`]. Default: a game has no
    /// private acts.
    fn private_act(
        &self,
        log: LogId,
        seat: Seat,
        act: &[u8],
        earlier: &[Posted],
    ) -> Result<(), Violation> {
        let _ = (log, seat, act, earlier);
        Err(Violation("this game has no private acts".into()))
    }

    /// Re-judges, once the game is over and every setup is open, what no seat could judge
    /// live: every signed act proven false, and what could not be checked. Default:
    /// nothing to audit.
    fn audit(&self, revealed: &Revealed<'_>) -> Audit {
        let _ = revealed;
        Audit::default()
    }

    /// Claims the game itself leaves open in `state`, each against the seat that made
    /// the claim (Tempête's physical deck: a stated card effect disputed and never
    /// settled). They leave the result unconfirmed and never change it. Default: none.
    fn open_claims(&self, state: &Self::State) -> Vec<crate::hidden::Gap> {
        let _ = state;
        vec![]
    }

    /// The moves made in `state`, when the game counts them by its own rules rather
    /// than an accepted act each (spec/PROTOCOL.md §17.7, from draft 10). Default:
    /// `None`, every accepted act is a move.
    fn moves(&self, state: &Self::State) -> Option<Moves> {
        let _ = state;
        None
    }

    /// Combines endings made concurrently (none saw another), e.g. two resignations.
    /// Default: their common result when they agree, otherwise a draw for all.
    fn combine(&self, players: u8, endings: &[Outcome]) -> Outcome {
        agreeing(endings).unwrap_or_else(|| Outcome::draw(players, "concurrent endings disagree"))
    }

    /// The result when `late` is proven out of time (version 2, spec/PROTOCOL.md §17)
    /// and the game had no other ending. Default: `late` loses, every other player wins.
    fn on_time(&self, players: u8, late: Seat) -> Outcome {
        Outcome::loss(players, late, format!("{late} lost on time"))
    }

    /// The result once proven faults are known. Default (Tempête's rule): a player at
    /// fault loses whatever happened on the board; every player at fault → a draw.
    fn adjudicate(
        &self,
        players: u8,
        outcome: Option<&Outcome>,
        faulty: &[Seat],
    ) -> Option<Outcome> {
        let faulty: Vec<Seat> = faulty.iter().copied().filter(|s| s.0 < players).collect();
        match faulty.as_slice() {
            [] => outcome.cloned(),
            [one] => Some(Outcome::loss(
                players,
                *one,
                format!("proven fault by {one}"),
            )),
            _ if faulty.len() == usize::from(players) => {
                Some(Outcome::draw(players, "proven faults by every player"))
            }
            many => {
                let results = (0..players)
                    .map(|p| {
                        if many.contains(&Seat(p)) {
                            SeatResult::Loss
                        } else {
                            SeatResult::Win
                        }
                    })
                    .collect();
                Some(Outcome {
                    results,
                    reason: "proven faults".into(),
                })
            }
        }
    }
}

/// The common result of endings made concurrently, if they agree: the first of them
/// (one ending agrees with itself); `None` when there are none or they differ. What
/// [`Rules::combine`] does by default before it falls back to a draw.
pub fn agreeing(endings: &[Outcome]) -> Option<Outcome> {
    let (first, rest) = endings.split_first()?;
    rest.iter()
        .all(|o| o.same_results(first))
        .then(|| first.clone())
}
