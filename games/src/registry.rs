//! The one list of the games this build plays ([`GAMES`]), and everything that picks a
//! game by its name: opening and restoring a seat's table, proposing, the demo's
//! options, and why a table or a proposal is refused ([`TableError`], [`ProposeError`]).
//! Adding a game is one line, in the `games!` list of lib.rs; all else lives in its
//! folder, behind the [`Descriptor`] it exports.

use std::sync::OnceLock;

use sealed_protocol::ids::{BadName, Name, Seat};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::{
    MailboxSpec, Proposal, ProposalError, Role, SeatSpec, SignedProposal, Terms, VERSION_2,
    WitnessSpec,
};
use sealed_protocol::rules::OptionError;
use sealed_protocol::session::{Secrets, SessionError};

use crate::table::{Computations, Descriptor, Setting, Table};

/// Every game this build plays: the `games!` list in lib.rs, one line per game.
pub const GAMES: &[&Descriptor] = crate::GAMES;

/// Why a table could not be opened or restored.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// The proposal names a variant this build does not play.
    #[error("unknown variant {0:?} (this build plays {list})", list = variants().join(", "))]
    UnknownVariant(String),
    /// The session refused (not a seat, bad options, an unusable envelope).
    #[error(transparent)]
    Session(#[from] SessionError),
}

/// Why a proposal cannot be made: nothing was signed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProposeError {
    /// The proposal names a variant this build does not play.
    #[error(transparent)]
    Variant(#[from] TableError),
    /// An option's key is no name.
    #[error("option {key:?}: {why}")]
    Key {
        /// The key as given.
        key: String,
        /// Why it is no name.
        why: BadName,
    },
    /// An option is given twice.
    #[error("option {0} given twice")]
    Twice(Name),
    /// `time-moves` or `time-period` without a witness to keep the time.
    #[error("time-moves and time-period need a witness to keep the time: name one with --witness")]
    NeedsWitness,
    /// The variant's own name is no name (a descriptor's fault).
    #[error(transparent)]
    VariantName(BadName),
    /// The proposal does not make valid terms.
    #[error("proposal: {0}")]
    Proposal(#[from] ProposalError),
    /// The game refuses the options: an unknown option or value, decks, pools or setups
    /// that do not fit.
    #[error(transparent)]
    Options(#[from] OptionError),
}

/// The time controls every game may be proposed with (spec/PROTOCOL.md §5.4): not rules
/// of any game, the nodes' clocks; `time-moves` and `time-period` need a witness
/// (protocol version 2). Left out, a game has no clock.
pub const TIME_SETTINGS: &[Setting] = &[
    Setting {
        key: "time-per-move",
        values: &[],
        default: "",
        example: "1d",
        about: "each move may take this long at no cost (s, m, h, d)",
    },
    Setting {
        key: "time-moves",
        values: &[],
        default: "",
        example: "10",
        about: "with time-period: N moves in D, every wait charged (needs a witness)",
    },
    Setting {
        key: "time-period",
        values: &[],
        default: "",
        example: "50d",
        about: "with time-moves: the N-th move is due within this, the 2N-th within twice it",
    },
    Setting {
        key: "time-leave",
        values: &[],
        default: "",
        example: "30d",
        about: "leave for the whole game, spent on any move beyond its time",
    },
];

/// The variants a table can be opened for.
pub fn variants() -> &'static [&'static str] {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| GAMES.iter().map(|g| g.name).collect())
}

/// The options `sealed demo` plays a variant with, between bots: every game ends (a ply
/// limit), and Secret Stallmate's move periods are short so a demo takes seconds, not
/// days (each still ends at its fixed time, whatever the players did in it).
pub fn demo_options(variant: &str) -> Vec<(String, String)> {
    find(variant)
        .map(|g| {
            g.demo
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        })
        .unwrap_or_default()
}

/// The game of this name.
pub fn find(name: &str) -> Option<&'static Descriptor> {
    GAMES.iter().copied().find(|g| g.name == name)
}

/// The computations between the players of the game of this name, if it has any: the
/// node and a witness take their limits from here, never from the game's folder.
pub fn computations(name: &str) -> Option<Computations> {
    find(name).and_then(|g| g.computations)
}

fn variant_of(name: &str) -> Result<&'static Descriptor, TableError> {
    find(name).ok_or_else(|| TableError::UnknownVariant(name.to_owned()))
}

/// A new session for the seat `key` holds in `terms`, of the variant the proposal
/// names. The proposer's table sends its commitments at once; the other waits for
/// `accept`, and signs `name` into its acceptance (version 2; an empty name, or one
/// over `MAX_NAME` bytes, signs none: `Session::set_name`).
pub fn open(
    terms: Terms,
    key: SecretKey,
    name: &str,
    entropy: [u8; 32],
    now: u64,
) -> Result<Box<dyn Table>, TableError> {
    let g = variant_of(terms.variant())?;
    Ok((g.open)(terms, key, name, entropy, now)?)
}

/// Rebuilds a table after a restart from its persisted secrets and every envelope it
/// held, in any order.
pub fn restore(
    terms: Terms,
    key: SecretKey,
    name: &str,
    secrets: Secrets,
    envelopes: &[Vec<u8>],
    now: u64,
) -> Result<Box<dyn Table>, TableError> {
    let g = variant_of(terms.variant())?;
    Ok((g.restore)(terms, key, name, secrets, envelopes, now)?)
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
    /// A witness both players trust for time (protocol version 2, spec/PROTOCOL.md
    /// §17). Every new proposal is of version 2, with or without one.
    pub witness: Option<WitnessSpec>,
    /// The display names the proposal gives seat 0 (the proposer) and seat 1: each at
    /// most 64 bytes, empty when not known. No rule depends on them.
    pub names: [String; 2],
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
) -> Result<SignedProposal, ProposeError> {
    let v = variant_of(variant)?;
    let mut opts = options
        .iter()
        .map(|(k, val)| {
            Name::new(k)
                .map(|n| (n, val.clone()))
                .map_err(|why| ProposeError::Key {
                    key: k.clone(),
                    why,
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    for (k, val) in v.written {
        if !opts.iter().any(|(n, _)| n.as_str() == *k) {
            let n = Name::new(k).map_err(|why| ProposeError::Key {
                key: (*k).to_owned(),
                why,
            })?;
            opts.push((n, (*val).to_owned()));
        }
    }
    opts.sort();
    if let Some(w) = opts.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(ProposeError::Twice(w[0].0.clone()));
    }
    let seat = |key: [u8; 32], name: String| SeatSpec {
        role: Role::Player,
        key,
        name,
    };
    // "N moves in D" charges every wait, which only a witness's ledgers can prove;
    // without one the time control would be words (spec/PROTOCOL.md §5.4, §17).
    if invitees.witness.is_none()
        && opts
            .iter()
            .any(|(k, _)| k.as_str() == "time-moves" || k.as_str() == "time-period")
    {
        return Err(ProposeError::NeedsWitness);
    }
    let Invitees {
        opponent,
        referee,
        mailboxes,
        witness,
        names: [mine, theirs],
    } = invitees;
    let mut seats = vec![seat(me.public().to_bytes(), mine), seat(opponent, theirs)];
    seats.extend(referee.map(|key| SeatSpec {
        role: Role::Referee,
        key,
        name: String::new(),
    }));
    let proposal = Proposal {
        // Every new game is version 2, with or without a witness: only it can be
        // withdrawn and carries each seat's own name (spec/PROTOCOL.md §17).
        version: VERSION_2,
        variant: Name::new(v.name).map_err(ProposeError::VariantName)?,
        options: opts,
        seats,
        mailboxes,
        proposer: Seat(0),
        clock: now,
        nonce,
        witness,
    };
    let signed = proposal.sign(me);
    let terms = Terms::from_signed(signed.clone())?;
    // The engine checks what the rules alone do not: decks, pools and setups fit.
    (v.validate)(terms)?;
    Ok(signed)
}
