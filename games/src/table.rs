//! One seat's live game behind one interface, whatever the variant: [`Table`].
//!
//! Over 600 lines on purpose, for now: the Duel, Cardmate and Chex adapters still live
//! here. Issue 16 moves every adapter into its game's folder behind one descriptor;
//! splitting this file by job before that would move the same code twice.
//!
//! The node drives sessions, stores envelopes and talks to a person or a bot; it should
//! have no code path per game, or every new game would touch the node. So everything
//! that is the same for every game (the session, sync, the verdict, the transcript,
//! turn-taking, the generic words such as `resign`) is written once, in `Seated<R>`,
//! and only what a game alone knows (its notation, its bot, how it draws its board and
//! writes its score) sits behind a small adapter trait, `Game`, with one impl per
//! game. [`open`] and [`restore`] pick the impl from the proposal's variant.
//!
//! # `show_json`
//!
//! [`Table::show_json`] returns one object, the same keys for every variant:
//!
//! | key | value |
//! |---|---|
//! | `variant` | the variant name |
//! | `game` | the game id, 64 lower-case hex digits |
//! | `seat` | this seat's number |
//! | `side` | this seat's side in the game (`White`, `Forehand`), or `null` (Duel) |
//! | `phase` | [`Table::phase`] |
//! | `ply` | [`Table::ply`] |
//! | `to_act` | the seat number whose act is awaited, or `null` |
//! | `my_turn` | [`Table::my_turn`] |
//! | `waiting_for` | [`Table::waiting_for`] |
//! | `actions` | what this seat may type now, one hint per entry |
//! | `draw_offered` | whether the opponent's draw offer stands for this seat |
//! | `board` | the board as text (a line saying so before the game starts) |
//! | `hand` | Duel `{"cards": [{"slot", "card"}]}`; Chex `{"stacks": {"white", "black"}` (each `{"text", "counts"}`, counts in K Q R B N P order)`, "drawn"}` (the drawn piece's name or `null`); Cardmate `null` |
//! | `verdict` | the verdict, as in `sealed verify --json` |

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Value, json};

use sealed_protocol::body::{ClaimKind, Item};
use sealed_protocol::engine::{Engine, Inserted};
use sealed_protocol::ids::{ChainId, GameId, Name, Seat};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::{
    MailboxSpec, Proposal, Role, SeatSpec, SignedProposal, Terms, VERSION,
};
use sealed_protocol::rules::Rules;
use sealed_protocol::session::{Action, Command, Phase, Secrets, Session, SessionError};
use sealed_protocol::transcript::TranscriptFile;
use sealed_protocol::verdict::{ClaimAbout, Status, Verdict};

use crate::cardmate::{self, Cardmate};
use crate::chex::engine::{self as chex_engine, DisplaySquare, Kind, Ply, Position, Written};
use crate::chex::{self, Chex};
use crate::duel::{self, Duel};
use crate::stallmate::peer::Stallmate;
use crate::tempete::Tempete;
use crate::variant::Variant;

/// One seat's live game, whatever the variant: the session plus what the game knows
/// about notation, bots, boards and scores. Object safe, so the node holds a
/// `Box<dyn Table>` and never names a game.
pub trait Table: Send {
    /// The variant name, as in the proposal.
    fn variant(&self) -> &'static str;
    /// The seat this table plays.
    fn seat(&self) -> Seat;
    /// The game id.
    fn game(&self) -> GameId;
    /// The validated terms.
    fn terms(&self) -> &Terms;
    /// Takes an envelope received from the network, a mailbox or a file.
    fn handle_envelope(&mut self, bytes: &[u8], now: u64) -> Result<Inserted, SessionError>;
    /// Takes a decision of this seat; nothing changes when it is refused.
    fn handle_command(&mut self, cmd: Command, now: u64) -> Result<(), SessionError>;
    /// The next thing the caller must do (persist, send, report).
    fn poll_action(&mut self) -> Option<Action>;
    /// The verdict on everything this seat holds.
    fn verdict(&self) -> Verdict;
    /// The session's phase, as [`Phase::name`] words it.
    fn phase(&self) -> &'static str;
    /// Whether the session is done: complete, or the proposal declined.
    fn is_done(&self) -> bool;
    /// The seat whose game act is awaited, if the game is on.
    fn to_act(&self) -> Option<Seat>;
    /// Whether this seat must decide something now: accept or decline the proposal, or
    /// make its act. An act waits until the game has handed this seat what it needs
    /// (Duel: a card dealt to an empty hand; Chex: the opponent's value for a declared
    /// draw), so this is false while the other side still owes that.
    fn my_turn(&self) -> bool;
    /// Number of accepted game acts.
    fn ply(&self) -> usize;
    /// One line: what the game waits for and from whom (`you: …` when it is this
    /// seat, `waiting: …` naming the seats that owe a step, `nothing: …` when done).
    fn waiting_for(&self) -> String;
    /// Parses one action into a command. Generic words, for every game: `resign`,
    /// `offer draw` / `draw offer`, `accept draw` / `draw accept`, `accept`,
    /// `decline`. Otherwise a game act in the game's notation: Duel `play <card>` or
    /// just the card (it opens the slot holding that card in hand); Cardmate the
    /// seed's notation (`4Ci3`, `9H:c5`, `1Sd5=A`); Chex the seed's notation (`Nf3`,
    /// `b3-d4`, `bxc4`) or `draw`, and once a drawn piece waits `place <square>`,
    /// `<square>` or `<Piece>@<square>` (display coordinates), which opens the draw.
    /// A clear error naming why on bad notation, an illegal move, or not this seat's
    /// turn; parsing never changes anything.
    fn parse_action(&self, text: &str) -> Result<Command, String>;
    /// What this seat must do now, whatever a person or bot decides: the game's duties
    /// at time `now` (Secret Stallmate's referee answers and closes periods; its players
    /// show their setups to the referee). The node applies them as they come due.
    fn duty(&self, now: u64) -> Option<Command>;
    /// When a duty comes due with time alone, if one will (Secret Stallmate's referee:
    /// the end of the running period), in milliseconds since the Unix epoch; the node
    /// wakes for it instead of waiting for its next poll.
    fn due_at(&self) -> Option<u64>;
    /// What a random bot does now, `pick` choosing among its options; `None` when it
    /// has nothing to do. It accepts the proposal, and makes a random legal act when
    /// [`Table::my_turn`].
    fn bot_action(&self, pick: u64) -> Option<Command>;
    /// The game for a person: header, board, hand, whose turn, what may be typed now.
    fn show_text(&self) -> String;
    /// The game as JSON; the module documentation lists the keys.
    fn show_json(&self) -> Value;
    /// The board as a standalone SVG document (Cardmate and Chex, once started).
    fn svg(&self) -> Option<String>;
    /// The transcript file of everything this seat holds.
    fn transcript(&self) -> Vec<u8>;
    /// The accepted acts so far as score text in the game's own format, which the
    /// variant's `sealed replay` reads; `None` before the game starts.
    fn score(&self) -> Option<String>;
    /// The accepted acts as PGN, for games played on a chess board; `None` otherwise or
    /// before the game starts.
    fn pgn(&self) -> Option<String>;
    /// Processed envelopes per chain: what this seat tells the other side it holds.
    fn chain_counts(&self) -> Vec<(ChainId, u64)>;
    /// How many envelopes this seat holds (what [`Table::envelopes`] would return,
    /// without copying them).
    fn held(&self) -> usize;
    /// Every envelope held, exact bytes: the chains in chain order, then the envelopes
    /// kept beside them as evidence. Feeding them to [`restore`] rebuilds the table.
    fn envelopes(&self) -> Vec<Vec<u8>>;
    /// The envelopes of every chain `audience` may see (public chains; a private log's
    /// chains only if the game puts `audience` in that log's audience, or once the game
    /// is over) beyond the
    /// counts `have` says the other side holds (a chain missing from `have` counts 0),
    /// in chain order.
    fn envelopes_after(&self, have: &[(ChainId, u64)], audience: Seat) -> Vec<Vec<u8>>;
    /// Whether `audience` may see the envelopes of `chain` now: a public chain always; a
    /// private log's chain if the game puts `audience` in that log's audience, or once the
    /// game is over (spec/PROTOCOL.md §8.11.4). The filter of [`Table::envelopes_after`],
    /// for a node that serves from its store.
    fn visible(&self, chain: ChainId, audience: Seat) -> bool;
    /// The secrets to persist (with the envelopes, all [`restore`] needs).
    fn secrets(&self) -> Option<Secrets>;
    /// What the held envelopes say about time, for the nodes' clocks.
    fn timeline(&self) -> Timeline;
}

/// What a transcript says about time: the signers' own clock readings, so every holder
/// of the same envelopes reads the same timeline (spec/PROTOCOL.md §5.4).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timeline {
    /// When the last player joined: the latest clock of the players' first envelopes,
    /// once every player has joined.
    pub started: Option<u64>,
    /// Each accepted act in main-line order: who, and its envelope's clock.
    pub acts: Vec<(Seat, u64)>,
    /// This seat's timeout claims: against whom, and the claim envelope's clock.
    pub timeout_claims: Vec<(Seat, u64)>,
}

/// Why a table could not be opened or restored.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The proposal names a variant this build does not play.
    #[error("unknown variant {0:?} (this build plays {list})", list = VARIANTS.join(", "))]
    UnknownVariant(String),
    /// The session refused (not a seat, bad options, an unusable envelope).
    #[error(transparent)]
    Session(#[from] SessionError),
}

const VARIANTS: &[&str] = &[
    duel::VARIANT,
    cardmate::VARIANT,
    chex::VARIANT,
    crate::tempete::VARIANT,
    crate::stallmate::peer::VARIANT,
];

/// The variants a table can be opened for.
pub fn variants() -> &'static [&'static str] {
    VARIANTS
}

/// The options `sealed demo` plays a variant with, between bots: every game ends (a ply
/// limit), and Secret Stallmate's move periods are short so a demo takes seconds, not
/// days (each still ends at its fixed time, whatever the players did in it).
pub fn demo_options(variant: &str) -> Vec<(String, String)> {
    let o = |k: &str, v: &str| (k.to_owned(), v.to_owned());
    match variant {
        "cardmate" => vec![o("setup", "random"), o("ply-limit", "400")],
        "chex" => vec![o("ply-limit", "300")],
        "tempete" => vec![o("ply-limit", "300")],
        "stallmate" => vec![o("period", "1s"), o("ply-limit", "40")],
        _ => vec![],
    }
}

fn variant_of(name: &str) -> Result<Variant, TableError> {
    Variant::parse(name).ok_or_else(|| TableError::UnknownVariant(name.to_owned()))
}

/// A new session for the seat `key` holds in `terms`, of the variant the proposal
/// names. The proposer's table sends its commitments at once; the other waits for
/// `accept`.
pub fn open(
    terms: Terms,
    key: SecretKey,
    entropy: [u8; 32],
    now: u64,
) -> Result<Box<dyn Table>, TableError> {
    Ok(match variant_of(terms.variant())? {
        Variant::Duel => Seated::<Duel>::boxed(Session::new(terms, key, entropy, now)?),
        Variant::Cardmate => Seated::<Cardmate>::boxed(Session::new(terms, key, entropy, now)?),
        Variant::Chex => Seated::<Chex>::boxed(Session::new(terms, key, entropy, now)?),
        Variant::Tempete => Seated::<Tempete>::boxed(Session::new(terms, key, entropy, now)?),
        Variant::Stallmate => Seated::<Stallmate>::boxed(Session::new(terms, key, entropy, now)?),
    })
}

/// Rebuilds a table after a restart from its persisted secrets and every envelope it
/// held, in any order.
pub fn restore(
    terms: Terms,
    key: SecretKey,
    secrets: Secrets,
    envelopes: &[Vec<u8>],
    now: u64,
) -> Result<Box<dyn Table>, TableError> {
    Ok(match variant_of(terms.variant())? {
        Variant::Duel => {
            Seated::<Duel>::boxed(Session::restore(terms, key, secrets, envelopes, now)?)
        }
        Variant::Cardmate => {
            Seated::<Cardmate>::boxed(Session::restore(terms, key, secrets, envelopes, now)?)
        }
        Variant::Chex => {
            Seated::<Chex>::boxed(Session::restore(terms, key, secrets, envelopes, now)?)
        }
        Variant::Tempete => {
            Seated::<Tempete>::boxed(Session::restore(terms, key, secrets, envelopes, now)?)
        }
        Variant::Stallmate => {
            Seated::<Stallmate>::boxed(Session::restore(terms, key, secrets, envelopes, now)?)
        }
    })
}

/// Whom a proposal invites besides its proposer.
#[derive(Clone, Debug, Default)]
pub struct Invitees {
    /// The opponent's key: seat 1.
    pub opponent: [u8; 32],
    /// The referee's key, when the game has one (Secret Stallmate): seat 2.
    pub referee: Option<[u8; 32]>,
    /// Mailbox nodes both players trust.
    pub mailboxes: Vec<MailboxSpec>,
}

/// A signed two-player proposal: `me` is seat 0 (the proposer; White, Forehand, …),
/// the invitees the other seats. The options are sorted by key, as the proposal requires,
/// and checked by building the variant's rules from the terms, so an unknown option
/// or value is refused now with the game's own message rather than by the opponent.
pub fn propose(
    variant: &str,
    options: &[(String, String)],
    me: &SecretKey,
    invitees: Invitees,
    now: u64,
    nonce: [u8; 32],
) -> Result<SignedProposal, String> {
    let v = variant_of(variant).map_err(|e| e.to_string())?;
    let mut opts = options
        .iter()
        .map(|(k, val)| {
            Name::new(k)
                .map(|n| (n, val.clone()))
                .map_err(|e| format!("option {k:?}: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    opts.sort();
    if let Some(w) = opts.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(format!("option {} given twice", w[0].0));
    }
    let seat = |key: [u8; 32]| SeatSpec {
        role: Role::Player,
        key,
        name: String::new(),
    };
    let Invitees {
        opponent,
        referee,
        mailboxes,
    } = invitees;
    let mut seats = vec![seat(me.public().to_bytes()), seat(opponent)];
    seats.extend(referee.map(|key| SeatSpec {
        role: Role::Referee,
        key,
        name: String::new(),
    }));
    let proposal = Proposal {
        version: VERSION,
        variant: Name::new(v.name()).map_err(|e| e.to_string())?,
        options: opts,
        seats,
        mailboxes,
        proposer: Seat(0),
        clock: now,
        nonce,
    };
    let signed = proposal.sign(me);
    let terms = Terms::from_signed(signed.clone()).map_err(|e| format!("proposal: {e}"))?;
    // The engine checks what the rules alone do not: decks, pools and setups fit.
    let checked = match v {
        Variant::Duel => Engine::<Duel>::new(terms).map(drop),
        Variant::Cardmate => Engine::<Cardmate>::new(terms).map(drop),
        Variant::Chex => Engine::<Chex>::new(terms).map(drop),
        Variant::Tempete => Engine::<Tempete>::new(terms).map(drop),
        Variant::Stallmate => Engine::<Stallmate>::new(terms).map(drop),
    };
    checked.map_err(|e| e.0)?;
    Ok(signed)
}

/// What only a game knows. Every function is called with the session it concerns;
/// those taking a state are called only once the game has started.
pub(crate) trait Game: Rules<State: Send> + Send + 'static {
    /// The variant name.
    const VARIANT: &'static str;

    /// The seat's side in the game's own words, if it has sides.
    fn side(seat: Seat) -> Option<String>;

    /// Whether the seat to act has what its act needs.
    fn ready(s: &Session<Self>, state: &Self::State) -> bool;

    /// What the seat to act is asked, after `you: `.
    fn prompt(s: &Session<Self>, state: &Self::State) -> String;

    /// A game act in the game's notation, for the seat to act once ready.
    fn parse(s: &Session<Self>, state: &Self::State, text: &str) -> Result<Command, String>;

    /// A random bot's act, for the seat to act once ready.
    fn bot(s: &Session<Self>, state: &Self::State, pick: u64) -> Option<Command>;

    /// Hints of the game acts open to the seat to act once ready.
    fn hints(s: &Session<Self>, state: &Self::State) -> Vec<String>;

    /// The board as text.
    fn board(s: &Session<Self>, state: &Self::State) -> String;

    /// What the seat holds besides the board, as text lines and as JSON.
    fn hand(s: &Session<Self>) -> (Option<String>, Value);

    /// The board as SVG.
    fn svg(state: &Self::State) -> Option<String>;

    /// Score text of the accepted acts, in order.
    fn score(s: &Session<Self>, state: &Self::State, acts: &[Self::Act]) -> Option<String>;

    /// The game as PGN, for games on a chess board.
    fn pgn(_s: &Session<Self>, _state: &Self::State) -> Option<String> {
        None
    }

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
}

/// A session of one game with everything generic about a table.
struct Seated<R: Game> {
    session: Session<R>,
}

impl<R: Game> Seated<R> {
    fn boxed(session: Session<R>) -> Box<dyn Table> {
        Box::new(Seated { session })
    }

    fn state(&self) -> Option<&R::State> {
        self.session.engine().state()
    }

    fn deciding(&self) -> bool {
        matches!(self.session.phase(), Phase::Decide(_))
    }

    fn playing(&self) -> bool {
        matches!(self.session.phase(), Phase::Play(_))
    }

    /// It is this seat's act, whether or not it has what the act needs yet.
    fn to_act_here(&self) -> bool {
        self.playing() && self.to_act() == Some(self.seat())
    }

    fn draw_offered(&self) -> bool {
        self.playing() && self.session.engine().draw_offered_to(self.seat())
    }

    /// The accepted acts, decoded: the main line is what every verifier replays, so a
    /// score rebuilt from it is the game the transcript proves.
    fn acts(&self) -> Vec<R::Act> {
        let e = self.session.engine();
        e.main_line()
            .iter()
            .filter_map(|(at, _)| {
                e.envelope(*at)?
                    .unsigned()
                    .body
                    .iter()
                    .find_map(|i| match i {
                        Item::Act(bytes) => e.rules().decode_act(bytes).ok(),
                        _ => None,
                    })
            })
            .collect()
    }

    fn actions(&self) -> Vec<String> {
        let words = |w: &[&str]| w.iter().map(|s| (*s).to_owned()).collect();
        // A referee or witness neither resigns nor draws: it only accepts or declines.
        let player = self.terms().is_player(self.seat());
        match self.session.phase() {
            Phase::Decide(_) => words(&["accept", "decline"]),
            _ if !player => vec![],
            Phase::Commit(_) | Phase::Coin(_) => words(&["resign"]),
            Phase::Play(_) => {
                let mut v = vec![];
                if self.my_turn()
                    && let Some(state) = self.state()
                {
                    v.extend(R::hints(&self.session, state));
                }
                v.push("resign".into());
                v.push("offer draw".into());
                if self.draw_offered() {
                    v.push("accept draw".into());
                }
                v
            }
            _ => vec![],
        }
    }

    /// Refuses a generic word outside the phases it belongs to, with the reason, so
    /// that the person hears why at once rather than from the session.
    fn generic(&self, word: &str) -> Option<Result<Command, String>> {
        let phase = self.session.phase();
        let decide = matches!(phase, Phase::Decide(_));
        let over = matches!(phase, Phase::End(_) | Phase::Done(_));
        let not_now = |why: &str| Err(format!("{word}: {why}"));
        let player = self.terms().is_player(self.seat());
        Some(match word {
            "accept" | "decline" if decide => Ok(if word == "accept" {
                Command::Accept
            } else {
                Command::Decline
            }),
            "accept" | "decline" => not_now(&format!(
                "there is no proposal to decide on (phase {})",
                phase.name()
            )),
            "resign" if decide => not_now("accept or decline the proposal first"),
            "resign" if over => not_now("the game is over"),
            "resign" | "offer draw" | "draw offer" | "accept draw" | "draw accept" if !player => {
                not_now("only players resign or agree draws")
            }
            "resign" => Ok(Command::Resign),
            "offer draw" | "draw offer" if self.playing() => Ok(Command::OfferDraw),
            "accept draw" | "draw accept" if self.draw_offered() => Ok(Command::AcceptDraw),
            "accept draw" | "draw accept" if self.playing() => {
                not_now("no draw offer stands for you")
            }
            "offer draw" | "draw offer" | "accept draw" | "draw accept" => not_now(&format!(
                "draw offers are made while the game is on (phase {})",
                phase.name()
            )),
            _ => return None,
        })
    }
}

impl<R: Game> Table for Seated<R> {
    fn variant(&self) -> &'static str {
        R::VARIANT
    }

    fn seat(&self) -> Seat {
        self.session.seat()
    }

    fn game(&self) -> GameId {
        self.terms().game()
    }

    fn terms(&self) -> &Terms {
        self.session.engine().terms()
    }

    fn handle_envelope(&mut self, bytes: &[u8], now: u64) -> Result<Inserted, SessionError> {
        self.session.handle_envelope(bytes, now)
    }

    fn handle_command(&mut self, cmd: Command, now: u64) -> Result<(), SessionError> {
        self.session.handle_command(cmd, now)
    }

    fn poll_action(&mut self) -> Option<Action> {
        self.session.poll_action()
    }

    fn verdict(&self) -> Verdict {
        self.session.verdict()
    }

    fn phase(&self) -> &'static str {
        self.session.phase().name()
    }

    fn is_done(&self) -> bool {
        matches!(self.session.phase(), Phase::Done(_))
    }

    fn to_act(&self) -> Option<Seat> {
        let e = self.session.engine();
        match self.state() {
            Some(state) if !e.is_over() => R::acting(&self.session, state),
            _ => e.to_act(),
        }
    }

    fn duty(&self, now: u64) -> Option<Command> {
        if self.is_done() {
            return None;
        }
        R::duty(&self.session, now)
    }

    fn due_at(&self) -> Option<u64> {
        if self.is_done() || self.session.engine().is_over() {
            return None;
        }
        R::due_at(&self.session, self.state()?)
    }

    fn my_turn(&self) -> bool {
        self.deciding()
            || (self.to_act_here()
                && self
                    .state()
                    .is_some_and(|state| R::ready(&self.session, state)))
    }

    fn ply(&self) -> usize {
        self.session.engine().main_line().len()
    }

    fn waiting_for(&self) -> String {
        let e = self.session.engine();
        match self.session.phase() {
            Phase::Decide(_) => return "you: accept or decline the proposal".into(),
            Phase::Done(_) if e.declined() => return "nothing: the proposal was declined".into(),
            Phase::Done(_) => return "nothing: the game is complete".into(),
            _ => {}
        }
        let offer = "a draw offer stands for you (accept draw)";
        if self.my_turn()
            && let Some(state) = self.state()
        {
            let prompt = R::prompt(&self.session, state);
            return if self.draw_offered() {
                format!("you: {prompt}; {offer}")
            } else {
                format!("you: {prompt}")
            };
        }
        // The verdict's derived claims already name who owes what; explicit claims
        // (timeouts) are accusations, not steps anyone awaits.
        let own = self
            .state()
            .filter(|_| self.playing())
            .and_then(|state| R::awaiting(&self.session, state));
        let mut parts: Vec<String> = self
            .verdict()
            .claims
            .iter()
            .filter(|c| c.open && c.by.is_none())
            .filter(|c| own.is_none() || !c.evidence.ends_with(" is to act"))
            .map(|c| match c.about {
                ClaimAbout::Unfinished => c.evidence.clone(),
                _ => format!("{}: {}", c.against, c.evidence),
            })
            .collect();
        parts.extend(own);
        if self.draw_offered() {
            parts.push(offer.into());
        }
        if parts.is_empty() {
            "nothing".into()
        } else {
            format!("waiting: {}", parts.join("; "))
        }
    }

    fn parse_action(&self, text: &str) -> Result<Command, String> {
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if words.is_empty() {
            return Err("no action given".into());
        }
        if let Some(r) = self.generic(&words.to_lowercase()) {
            return r;
        }
        match self.session.phase() {
            Phase::Decide(_) => return Err("accept or decline the proposal first".into()),
            Phase::End(_) | Phase::Done(_) => return Err("the game is over".into()),
            Phase::Play(_) => {}
            p => return Err(format!("the game has not started yet (phase {})", p.name())),
        }
        let state = self.state().ok_or("the game has not started yet")?;
        match self.to_act() {
            Some(s) if s == self.seat() => {}
            Some(s) => return Err(format!("not your turn: {s} is to act")),
            None => return Err("the game is over".into()),
        }
        if !R::ready(&self.session, state) {
            return Err(format!("not yet: {}", self.waiting_for()));
        }
        R::parse(&self.session, state, words.trim())
    }

    fn bot_action(&self, pick: u64) -> Option<Command> {
        if self.deciding() {
            return Some(Command::Accept);
        }
        if !self.my_turn() {
            return None;
        }
        R::bot(&self.session, self.state()?, pick)
    }

    fn show_text(&self) -> String {
        let seat = self.seat();
        let mut s = String::new();
        let side = R::side(seat).map(|x| format!(" ({x})")).unwrap_or_default();
        let _ = writeln!(
            s,
            "{} · game {} · you are {seat}{side}",
            R::VARIANT,
            self.game().0.short()
        );
        let turn = match self.to_act() {
            Some(t) if t == seat => "you are to act".to_owned(),
            Some(t) => format!("{t} is to act"),
            None => "nobody is to act".to_owned(),
        };
        // Acts, not the game's own move count: a Chex draw and its placement are two.
        let _ = writeln!(s, "phase {} · {} acts · {turn}", self.phase(), self.ply());
        s.push('\n');
        match self.state() {
            Some(state) => s.push_str(&R::board(&self.session, state)),
            None => s.push_str("the game has not started\n"),
        }
        if let Some(hand) = R::hand(&self.session).0 {
            s.push_str(&hand);
        }
        s.push('\n');
        let v = self.verdict();
        if let Some(o) = &v.outcome {
            let status = match v.status {
                Status::Verified => "verified",
                Status::Unconfirmed => "unconfirmed",
                Status::ProvenFault => "proven fault",
            };
            let _ = writeln!(s, "result: {o} [{status}]");
        }
        for f in &v.faults {
            let _ = writeln!(s, "fault: {f}");
        }
        let _ = writeln!(s, "{}", self.waiting_for());
        let actions = self.actions();
        if !actions.is_empty() {
            let _ = writeln!(s, "actions: {}", actions.join(" | "));
        }
        s
    }

    fn show_json(&self) -> Value {
        let seat = self.seat();
        json!({
            "variant": R::VARIANT,
            "game": self.game().0.to_hex(),
            "seat": seat.0,
            "side": R::side(seat),
            "phase": self.phase(),
            "ply": self.ply(),
            "to_act": self.to_act().map(|s| s.0),
            "my_turn": self.my_turn(),
            "waiting_for": self.waiting_for(),
            "actions": self.actions(),
            "draw_offered": self.draw_offered(),
            "board": match self.state() {
                Some(state) => R::board(&self.session, state),
                None => "the game has not started\n".to_owned(),
            },
            "hand": R::hand(&self.session).1,
            "verdict": serde_json::to_value(self.verdict()).unwrap_or(Value::Null),
        })
    }

    fn svg(&self) -> Option<String> {
        R::svg(self.state()?)
    }

    fn transcript(&self) -> Vec<u8> {
        TranscriptFile::from_engine(self.session.engine()).to_bytes()
    }

    fn score(&self) -> Option<String> {
        R::score(&self.session, self.state()?, &self.acts())
    }

    fn pgn(&self) -> Option<String> {
        R::pgn(&self.session, self.state()?)
    }

    fn chain_counts(&self) -> Vec<(ChainId, u64)> {
        let e = self.session.engine();
        e.chains().map(|c| (c, e.processed(c))).collect()
    }

    fn held(&self) -> usize {
        let (chains, others) = self.session.engine().stored();
        chains.len() + others.len()
    }

    fn envelopes(&self) -> Vec<Vec<u8>> {
        let (chains, others) = self.session.engine().stored();
        chains
            .into_iter()
            .chain(others)
            .map(|e| e.bytes.clone())
            .collect()
    }

    fn envelopes_after(&self, have: &[(ChainId, u64)], audience: Seat) -> Vec<Vec<u8>> {
        let have: BTreeMap<ChainId, u64> = have.iter().copied().collect();
        self.session
            .engine()
            .stored()
            .0
            .into_iter()
            .filter(|env| {
                let at = env.at();
                self.visible(at.chain, audience)
                    && at.seq >= have.get(&at.chain).copied().unwrap_or(0)
            })
            .map(|env| env.bytes.clone())
            .collect()
    }

    fn visible(&self, chain: ChainId, audience: Seat) -> bool {
        let e = self.session.engine();
        // Once the game is over every private log is public (spec/PROTOCOL.md §8.11.4).
        chain.log.is_public()
            || e.is_over()
            || e.rules()
                .audience(chain.log)
                .is_some_and(|a| a.contains(&audience))
    }

    fn secrets(&self) -> Option<Secrets> {
        self.session.secrets().cloned()
    }

    fn timeline(&self) -> Timeline {
        let e = self.session.engine();
        let clock_of = |at| e.envelope(at).map(|env| env.unsigned().clock);
        let started = e
            .terms()
            .player_seats()
            .map(|p| {
                clock_of(sealed_protocol::ids::EnvRef {
                    chain: ChainId::public(p),
                    seq: 0,
                })
                .filter(|_| e.has_joined(p))
            })
            .collect::<Option<Vec<u64>>>()
            .and_then(|c| c.into_iter().max());
        Timeline {
            started,
            acts: e
                .main_line()
                .iter()
                .filter_map(|(at, seat)| Some((*seat, clock_of(*at)?)))
                .collect(),
            timeout_claims: e
                .claims()
                .iter()
                .filter(|c| c.by == self.seat() && c.kind == ClaimKind::Timeout)
                .map(|c| (c.against, c.clock))
                .collect(),
        }
    }
}

/// `pick`-th of `items`, wrapping.
fn nth<T>(items: &[T], pick: u64) -> Option<&T> {
    let n = u64::try_from(items.len()).ok().filter(|n| *n > 0)?;
    items.get(usize::try_from(pick % n).ok()?)
}

// ----- Duel -----

fn duel_play(slot: u32) -> Command {
    Command::Act {
        act: duel::play_bytes(slot),
        open_slots: vec![(duel::deck(), slot)],
        commit_values: vec![],
        open_values: vec![],
        open_draw: None,
    }
}

/// The hand sorted by card, as a person reads it.
fn duel_hand(s: &Session<Duel>) -> Vec<(u32, u32)> {
    let mut hand = s.hand(&duel::deck());
    hand.sort_by_key(|(_, card)| *card);
    hand
}

fn duel_cards(hand: &[(u32, u32)]) -> String {
    let cards: Vec<String> = hand.iter().map(|(_, c)| c.to_string()).collect();
    if cards.is_empty() {
        "none".into()
    } else {
        cards.join(" ")
    }
}

impl Game for Duel {
    const VARIANT: &'static str = duel::VARIANT;

    fn side(_seat: Seat) -> Option<String> {
        None
    }

    fn ready(s: &Session<Self>, _state: &Self::State) -> bool {
        !s.hand(&duel::deck()).is_empty()
    }

    fn prompt(_s: &Session<Self>, state: &Self::State) -> String {
        match state.led {
            None => "your move: lead a card".into(),
            Some(led) => format!("your move: answer the {led}"),
        }
    }

    fn parse(s: &Session<Self>, _state: &Self::State, text: &str) -> Result<Command, String> {
        let lower = text.to_lowercase();
        let number = lower.strip_prefix("play").map_or(lower.as_str(), str::trim);
        let card: u32 = number
            .parse()
            .map_err(|_| format!("{text:?} is not a card: write play <card> or its number"))?;
        let hand = duel_hand(s);
        hand.iter()
            .find(|(_, c)| *c == card)
            .map(|(slot, _)| duel_play(*slot))
            .ok_or_else(|| {
                format!(
                    "card {card} is not in your hand (your hand: {})",
                    duel_cards(&hand)
                )
            })
    }

    fn bot(s: &Session<Self>, _state: &Self::State, pick: u64) -> Option<Command> {
        duel::bot_choice(&s.hand(&duel::deck()), pick).map(duel_play)
    }

    fn hints(s: &Session<Self>, _state: &Self::State) -> Vec<String> {
        vec![format!("play <card>: {}", duel_cards(&duel_hand(s)))]
    }

    fn board(s: &Session<Self>, state: &Self::State) -> String {
        let rules = s.engine().rules();
        let mut out = String::new();
        let [a, b] = state.taken;
        match rules.next(state) {
            None => {
                let _ = writeln!(
                    out,
                    "all {} rounds played · rounds taken {a}-{b}",
                    rules.cards
                );
            }
            Some(_) => {
                let _ = writeln!(
                    out,
                    "round {} of {} · rounds taken {a}-{b} · {} leads{}",
                    state.round + 1,
                    rules.cards,
                    state.leader,
                    state.led.map(|c| format!(", led {c}")).unwrap_or_default()
                );
            }
        }
        for (i, (leader, led, answer)) in state.history.iter().enumerate() {
            let _ = writeln!(
                out,
                "  round {}: {leader} led {led}, {} answered {answer}",
                i + 1,
                duel::other(*leader)
            );
        }
        out
    }

    fn hand(s: &Session<Self>) -> (Option<String>, Value) {
        let hand = duel_hand(s);
        let cards: Vec<Value> = hand
            .iter()
            .map(|(slot, card)| json!({"slot": slot, "card": card}))
            .collect();
        (
            Some(format!("your hand: {}\n", duel_cards(&hand))),
            json!({ "cards": cards }),
        )
    }

    fn svg(_state: &Self::State) -> Option<String> {
        None
    }

    fn score(s: &Session<Self>, state: &Self::State, _acts: &[Self::Act]) -> Option<String> {
        // The state keeps every round's cards; the acts only name slots.
        let first = Duel::first_leader(s.engine().coin()?);
        Some(duel::score_text(s.engine().rules(), first, state))
    }
}

// ----- Cardmate -----

/// A legal move as the seed writes it, with the mark of what it does.
fn cardmate_written(
    pos: &cardmate::Position,
    m: &cardmate::Move,
    opts: &cardmate::Options,
) -> String {
    let mut next = pos.clone();
    let mark = next.play_unchecked(m, opts);
    cardmate::write_move(m, mark)
}

impl Game for Cardmate {
    const VARIANT: &'static str = cardmate::VARIANT;

    fn side(seat: Seat) -> Option<String> {
        Some(if seat.0 == 0 { "Forehand" } else { "Rearhand" }.into())
    }

    fn ready(_s: &Session<Self>, _state: &Self::State) -> bool {
        true
    }

    fn prompt(_s: &Session<Self>, _state: &Self::State) -> String {
        "your move".into()
    }

    fn parse(s: &Session<Self>, pos: &Self::State, text: &str) -> Result<Command, String> {
        let opts = &s.engine().rules().options;
        // The board shows Rearhand's cards in lower case; a card is still written in
        // upper case and a square in lower case, so a player may type either.
        let normal = match text.get(..2).filter(|_| text.is_ascii()) {
            Some(card) => card.to_uppercase() + &text[2..].to_lowercase().replace("=a", "=A"),
            None => text.to_owned(),
        };
        let w = cardmate::parse_move(&normal)?;
        let m = cardmate::resolve_move(pos, &w, opts).map_err(|e| format!("{text}: {e}"))?;
        Ok(Command::act(cardmate::Act::of(&m).bytes()))
    }

    fn bot(s: &Session<Self>, pos: &Self::State, pick: u64) -> Option<Command> {
        let moves = pos.legal_moves(&s.engine().rules().options);
        nth(&moves, pick).map(|m| Command::act(cardmate::Act::of(m).bytes()))
    }

    fn hints(s: &Session<Self>, pos: &Self::State) -> Vec<String> {
        let opts = &s.engine().rules().options;
        let moves = pos.legal_moves(opts);
        match moves.first() {
            Some(m) => vec![format!(
                "<move>, e.g. {} ({} legal)",
                cardmate_written(pos, m, opts),
                moves.len()
            )],
            None => vec![],
        }
    }

    fn board(_s: &Session<Self>, pos: &Self::State) -> String {
        cardmate::text(pos)
    }

    fn hand(_s: &Session<Self>) -> (Option<String>, Value) {
        (None, Value::Null)
    }

    fn svg(pos: &Self::State) -> Option<String> {
        Some(cardmate::svg(pos))
    }

    fn score(s: &Session<Self>, _state: &Self::State, acts: &[Self::Act]) -> Option<String> {
        // An act names a card and a square; the score needs the move (what it takes,
        // its mark), so the game is replayed from the start the coin dealt.
        let e = s.engine();
        let opts = &e.rules().options;
        let mut pos = e.rules().start_position(e.coin()?);
        let mut moves = Vec::with_capacity(acts.len());
        for act in acts {
            let m = pos
                .legal_moves(opts)
                .into_iter()
                .find(|m| cardmate::Act::of(m) == *act)?;
            pos.play_unchecked(&m, opts);
            moves.push(m);
        }
        cardmate::write_score(opts, e.coin(), &moves).ok()
    }
}

// ----- Chex -----

/// The piece this seat drew and must place, once the opponent's value is in.
fn chex_drawn(s: &Session<Chex>, pos: &Position) -> Option<Kind> {
    let me = chex::color(s.seat());
    if pos.phase != chex_engine::Phase::Placing || pos.to_move != me {
        return None;
    }
    chex::picked(pos, me, &s.pending_draw(&chex::stack())?)
}

fn chex_place(kind: Kind, at: chex_engine::Square) -> Command {
    Command::Act {
        act: chex::Act::Place {
            kind: kind.index() as u8,
            x: at.x,
            y: at.y,
        }
        .bytes(),
        open_slots: vec![],
        commit_values: vec![],
        open_values: vec![],
        open_draw: Some(chex::stack()),
    }
}

impl Game for Chex {
    const VARIANT: &'static str = chex::VARIANT;

    fn side(seat: Seat) -> Option<String> {
        Some(chex::color(seat).to_string())
    }

    fn ready(s: &Session<Self>, pos: &Self::State) -> bool {
        pos.phase == chex_engine::Phase::Turn || chex_drawn(s, pos).is_some()
    }

    fn prompt(s: &Session<Self>, pos: &Self::State) -> String {
        if let Some(kind) = chex_drawn(s, pos) {
            format!("your move: place the drawn {}", kind.name())
        } else if pos.must_draw() {
            "your move: you have no move, draw".into()
        } else if !pos.can_draw() {
            "your move: your stack is empty, move".into()
        } else {
            "your move: draw or move".into()
        }
    }

    fn parse(s: &Session<Self>, pos: &Self::State, text: &str) -> Result<Command, String> {
        let lower = text.to_ascii_lowercase();
        if pos.phase == chex_engine::Phase::Placing {
            let kind = chex_drawn(s, pos).ok_or("the drawn piece is not known yet")?;
            let square = lower
                .strip_prefix("place")
                .map_or(lower.as_str(), str::trim);
            let at = if square.contains('@') {
                match chex_engine::read(square)? {
                    Written::Place { kind: k, at } if k == kind => at,
                    Written::Place { kind: k, .. } => {
                        return Err(format!(
                            "{text}: you drew a {}, not a {}",
                            kind.name(),
                            k.name()
                        ));
                    }
                    _ => return Err(format!("{text:?} is not a placement")),
                }
            } else {
                DisplaySquare::parse(square).ok_or_else(|| {
                    format!(
                        "{text:?} is not a square: place the drawn {} with place <square>",
                        kind.name()
                    )
                })?
            };
            return match chex_engine::resolve(pos, &Written::Place { kind, at }) {
                Ok(Ply::Place { kind, at }) => Ok(chex_place(kind, at)),
                Ok(Ply::Move(_)) => Err(format!("{text:?} is not a placement")),
                Err(e) => Err(format!("{text}: {e}")),
            };
        }
        if lower == "draw" {
            return if pos.can_draw() {
                Ok(Command::act(chex::Act::Draw.bytes()))
            } else {
                Err(format!(
                    "draw: {}'s stack is empty, so you must move",
                    pos.to_move
                ))
            };
        }
        if lower.starts_with("place") {
            return Err(format!(
                "{text}: nothing is drawn yet; write draw, then place the piece drawn"
            ));
        }
        match chex_engine::parse_ply(pos, text)? {
            Ply::Move(m) => Ok(Command::act(chex::Act::of_move(&m).bytes())),
            Ply::Place { .. } => Err(format!(
                "{text}: a placement needs a draw first; write draw, then place the piece drawn"
            )),
        }
    }

    fn bot(s: &Session<Self>, pos: &Self::State, pick: u64) -> Option<Command> {
        if pos.phase == chex_engine::Phase::Placing {
            let kind = chex_drawn(s, pos)?;
            // A King on an attacked square is lost at once; the bot only does that
            // when no square is safe (the stalemate the rules then call).
            let safe = if kind == Kind::King {
                pos.safe_king_squares()
            } else {
                vec![]
            };
            let squares = if safe.is_empty() {
                pos.placement_squares()
            } else {
                safe
            };
            return nth(&squares, pick).map(|at| chex_place(kind, *at));
        }
        let moves = pos.legal_moves();
        if pos.can_draw() && (moves.is_empty() || pick.is_multiple_of(3)) {
            return Some(Command::act(chex::Act::Draw.bytes()));
        }
        nth(&moves, pick / 3).map(|m| Command::act(chex::Act::of_move(m).bytes()))
    }

    fn hints(s: &Session<Self>, pos: &Self::State) -> Vec<String> {
        if let Some(kind) = chex_drawn(s, pos) {
            let frame = chex_engine::Frame::of(&pos.board);
            let example = pos
                .placement_squares()
                .first()
                .and_then(|sq| frame.name(*sq))
                .map(|name| format!(", e.g. place {name}"))
                .unwrap_or_default();
            return vec![format!(
                "place <square>: the drawn {}{example}",
                kind.name()
            )];
        }
        let mut v = vec![];
        if pos.can_draw() {
            v.push("draw".to_owned());
        }
        let moves = pos.legal_moves();
        if let Some(m) = moves.first() {
            v.push(format!(
                "<move>, e.g. {} ({} legal)",
                chex_engine::write_move(pos, m),
                moves.len()
            ));
        }
        v
    }

    fn board(_s: &Session<Self>, pos: &Self::State) -> String {
        chex_engine::text(pos)
    }

    fn hand(s: &Session<Self>) -> (Option<String>, Value) {
        let Some(pos) = s.engine().state() else {
            return (None, Value::Null);
        };
        let stack = |c: chex_engine::Color| json!({"text": pos.stack(c).to_string(), "counts": pos.stack(c).counts()});
        let drawn = chex_drawn(s, pos);
        (
            drawn.map(|k| format!("you drew a {}: place it\n", k.name())),
            json!({
                "stacks": {
                    "white": stack(chex_engine::Color::White),
                    "black": stack(chex_engine::Color::Black),
                },
                "drawn": drawn.map(Kind::name),
            }),
        )
    }

    fn svg(pos: &Self::State) -> Option<String> {
        Some(chex_engine::svg(pos))
    }

    fn score(s: &Session<Self>, _state: &Self::State, acts: &[Self::Act]) -> Option<String> {
        // A score writes a draw and its placement as one ply (`N@c4`), so the
        // declaration adds nothing and a pending draw is not written yet.
        let plies: Vec<Ply> = acts
            .iter()
            .filter_map(|act| match *act {
                chex::Act::Draw => None,
                chex::Act::Place { kind, x, y } => Some(Ply::Place {
                    kind: Kind::from_index(usize::from(kind))?,
                    at: chex_engine::Square::new(x, y),
                }),
                chex::Act::Move { from, to } => Some(Ply::Move(chex_engine::Move::new(
                    chex_engine::Square::new(from.0, from.1),
                    chex_engine::Square::new(to.0, to.1),
                ))),
            })
            .collect();
        chex_engine::write_score(s.engine().rules().ply_limit, &plies).ok()
    }
}
