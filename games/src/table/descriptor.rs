//! What the registry knows of a game: its name, the options `sealed demo` plays it with,
//! and the functions that open, restore, validate, check and replay it — all built from
//! the game's [`Game`] impl by [`Descriptor::of`], so a game folder exports one constant.

use sealed_protocol::engine::Engine;
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::Terms;
use sealed_protocol::rules::OptionError;
use sealed_protocol::session::{Secrets, Session, SessionError};
use sealed_protocol::transcript::{Checked, TranscriptError, TranscriptFile, check_with_terms};

use super::{Game, Table};
use crate::replay::{ReplayError, Replayed};

/// A table, or why the session refused it.
type Opened = Result<Box<dyn Table>, SessionError>;

/// A rule option a proposal may set, as a form offers it (spec/GAMES.md lists each
/// game's; a test proposes every value listed here).
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Setting {
    /// The option's key.
    pub key: &'static str,
    /// The values to pick from; empty when a value is typed (in the form `example` shows).
    pub values: &'static [&'static str],
    /// The value when the option is left out; empty when leaving it out means none.
    pub default: &'static str,
    /// A value of the right form, for a typed one.
    pub example: &'static str,
    /// What it does, in a sentence.
    pub about: &'static str,
}

/// What a game whose two players compute together (spec/PROTOCOL.md §16.7, spec/GAMES.md
/// §5.15) tells the node that carries their messages, so that no node or witness names
/// the game itself.
#[derive(Clone, Copy)]
pub struct Computations {
    /// The largest message one side sends, in bytes: what a node reads of one message
    /// of the game and holds for its other player (node `computations.rs`).
    pub max_message: usize,
}

impl Computations {
    /// The largest deposit of one message with the game's witness: the message and the
    /// 32 bytes of its ephemeral key (spec/PROTOCOL.md §17.10).
    pub const fn max_deposit(&self) -> usize {
        self.max_message + 32
    }
}

/// One game, as the registry lists it.
pub struct Descriptor {
    /// The name used in proposals and on the command line.
    pub name: &'static str,
    /// One line saying what the game is.
    pub about: &'static str,
    /// Its rule options.
    pub settings: &'static [Setting],
    /// The options `sealed demo` plays it with, between bots: every game ends (a ply
    /// limit), and timed periods are short.
    pub demo: &'static [(&'static str, &'static str)],
    /// Replays a score file of the game.
    pub replay: fn(&str) -> Result<Replayed, ReplayError>,
    /// Its computations between the players, if it has any.
    pub computations: Option<Computations>,
    /// Options the proposer writes into every proposal of the game when the person left
    /// them out: what the terms must name but nobody chooses (the circuit files a game
    /// without a referee runs).
    pub written: &'static [(&'static str, &'static str)],
    pub(crate) open: Open,
    pub(crate) restore: Restore,
    pub(crate) validate: fn(Terms) -> Result<(), OptionError>,
    pub(crate) check: fn(&TranscriptFile, Terms) -> Result<Checked, TranscriptError>,
}

/// Opens a seat's table: terms, the seat's key, the name it signs, entropy, now.
type Open = fn(Terms, SecretKey, &str, [u8; 32], u64) -> Opened;

/// Restores a seat's table: as [`Open`], from its secrets and the envelopes it held.
type Restore = fn(Terms, SecretKey, &str, Secrets, &[Vec<u8>], u64) -> Opened;

impl Descriptor {
    /// The descriptor of the game `R`.
    pub(crate) const fn of<R: Game>(
        about: &'static str,
        settings: &'static [Setting],
        demo: &'static [(&'static str, &'static str)],
        replay: fn(&str) -> Result<Replayed, ReplayError>,
    ) -> Descriptor {
        Descriptor {
            name: R::VARIANT,
            about,
            settings,
            demo,
            replay,
            computations: None,
            written: &[],
            open: open::<R>,
            restore: restore::<R>,
            validate: validate::<R>,
            check: check::<R>,
        }
    }
}

impl Descriptor {
    /// The descriptor of a game whose players compute together.
    pub(crate) const fn computing(mut self, computations: Computations) -> Descriptor {
        self.computations = Some(computations);
        self
    }

    /// The descriptor of a game whose terms name `written`, which its proposer writes.
    pub(crate) const fn writing(
        mut self,
        written: &'static [(&'static str, &'static str)],
    ) -> Descriptor {
        self.written = written;
        self
    }
}

fn open<R: Game>(terms: Terms, key: SecretKey, name: &str, entropy: [u8; 32], now: u64) -> Opened {
    let mut session = Session::new(terms, key, entropy, now)?;
    session.set_name(name);
    Ok(R::table(session))
}

fn restore<R: Game>(
    terms: Terms,
    key: SecretKey,
    name: &str,
    secrets: Secrets,
    envelopes: &[Vec<u8>],
    now: u64,
) -> Opened {
    let mut session = Session::restore(terms, key, secrets, envelopes, now)?;
    session.set_name(name);
    Ok(R::table(session))
}

/// What the rules alone do not check: decks, pools and setups fit.
fn validate<R: Game>(terms: Terms) -> Result<(), OptionError> {
    Engine::<R>::new(terms).map(drop)
}

fn check<R: Game>(file: &TranscriptFile, terms: Terms) -> Result<Checked, TranscriptError> {
    Ok(check_with_terms::<R>(file, terms)?.1)
}
