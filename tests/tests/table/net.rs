//! The table tests' network: each seat's table in the conformance crate's lock-step
//! harness, the options and keys of the test games, and a round's decisions.

use std::collections::BTreeSet;

use sealed_conformance::pair::{Lockstep, Pace};
use sealed_conformance::peer::Peer;

use sealed_games::table::{self, Table};
use sealed_protocol::envelope::Signed;
use sealed_protocol::ids::Seat;
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::Terms;
use sealed_protocol::session::{Action, Command, SessionError};

use crate::checks::*;
use crate::typing::*;
use sealed_conformance::peer::Read as _;

pub(crate) fn key(seat: usize) -> SecretKey {
    SecretKey::from_seed(&[seat as u8 + 1; 32])
}

/// The variants these tests play: every one but Secret Stallmate without a referee,
/// whose seats also pass the computations' messages beside their envelopes and whose
/// table restores with them; tests/tests/duo_table.rs plays it through the same table
/// interface.
pub(crate) fn variants() -> Vec<&'static str> {
    table::variants()
        .iter()
        .copied()
        .filter(|v| *v != sealed_games::stallmate::duo::VARIANT)
        .collect()
}

/// The variant played with a referee seat, whose move periods end by time.
pub(crate) const STALLMATE: &str = "stallmate";

/// Options that make every bot game end: Duel ends after its cards, the others by a
/// ply limit. Cardmate's are given out of order on purpose: `propose` sorts them.
/// Stallmate's periods are short, so a game's virtual time stays small.
pub(crate) fn options(variant: &str) -> Vec<(String, String)> {
    let pairs: &[(&str, &str)] = match variant {
        "duel" => &[("hand", "2"), ("cards", "6")],
        "cardmate" => &[("setup", "random"), ("ply-limit", "60")],
        "chex" => &[("ply-limit", "40")],
        "tempete" => &[("ply-limit", "40")],
        STALLMATE => &[("ply-limit", "20"), ("period", PERIOD)],
        // A game added since (scripts/toy-game.sh): the options its descriptor gives.
        other => return table::demo_options(other),
    };
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

pub(crate) fn terms(variant: &str, nonce: u8) -> Terms {
    terms_with(variant, &options(variant), nonce)
}

pub(crate) fn terms_with(variant: &str, options: &[(String, String)], nonce: u8) -> Terms {
    let signed = table::propose(
        variant,
        options,
        &key(0),
        table::Invitees {
            opponent: key(1).public().to_bytes(),
            referee: (variant == STALLMATE).then(|| key(2).public().to_bytes()),
            ..Default::default()
        },
        1_000,
        [nonce; 32],
    )
    .expect("a valid proposal");
    Terms::from_signed(signed).expect("valid terms")
}

pub(crate) fn entropy(seat: usize, nonce: u8) -> [u8; 32] {
    let mut e = [nonce; 32];
    e[0] = 0xE0 + seat as u8;
    e
}

/// A deterministic pick for a step and a seat (splitmix64).
pub(crate) fn pick(step: u64, seat: usize) -> u64 {
    let mut z = step
        .wrapping_mul(2)
        .wrapping_add(seat as u64)
        .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// How a seat's decision reaches its table.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The bot's command as it is.
    Bot,
    /// The bot's command written in the game's notation and parsed back, with bad
    /// input tried first at every step.
    Typed,
}

/// Stallmate's move period in the tests: long enough for a bot to try every candidate
/// move of its view, one a round (about 140 at most), so that no bot game ends by a
/// period let pass. (At 50 ms a bot in check from a piece it could not see tried 25
/// illegal moves before its period ended, in more than one game: a forfeit by time,
/// unconfirmed without a witness, in tests that are not about time.)
pub(crate) const PERIOD: &str = "300ms";

/// How rounds advance: for games that only messages move on, until nothing moves; for
/// Stallmate, whose referee closes each period at its fixed end, an idle round lets a
/// fifth of a period pass, so a period ends within a few idle rounds.
pub(crate) fn pace(variant: &str) -> Pace {
    if variant == STALLMATE {
        Pace::Clocked(60)
    } else {
        Pace::Once
    }
}

/// One seat's table in the lock-step harness, with the checks every delivery gets:
/// whom each envelope goes to, that an honest envelope is never refused.
pub(crate) struct Checked {
    pub(crate) table: Box<dyn Table>,
    pub(crate) terms: Terms,
}

impl std::ops::Deref for Checked {
    type Target = Box<dyn Table>;

    fn deref(&self) -> &Box<dyn Table> {
        &self.table
    }
}

impl std::ops::DerefMut for Checked {
    fn deref_mut(&mut self) -> &mut Box<dyn Table> {
        &mut self.table
    }
}

impl Peer for Checked {
    fn handle_envelope(&mut self, bytes: &[u8], now: u64) -> Result<(), SessionError> {
        self.table
            .handle_envelope(bytes, now)
            .map(|_| ())
            .map_err(|e| panic!("an honest envelope is taken: {e}"))
    }

    fn handle_command(&mut self, cmd: Command, now: u64) -> Result<(), SessionError> {
        self.table.session_mut().handle_command(cmd, now)
    }

    fn poll_action(&mut self) -> Option<Action> {
        let a = self.table.session_mut().poll_action();
        if let Some(Action::Send { env, to }) = &a {
            self.check_recipients(&env.bytes, to);
        }
        a
    }

    fn asked_to_accept(&self) -> bool {
        false
    }
}

impl Checked {
    /// Checks whom this table sends an envelope to: in a two-seat game the other seat;
    /// with a referee every other seat for a public envelope, and while the game is on
    /// only the other seats of its log's audience for a private one.
    pub(crate) fn check_recipients(&self, bytes: &[u8], to: &[Seat]) {
        let me = self.table.session().seat();
        let seats = self.terms.seat_count();
        if seats == 2 {
            assert_eq!(to, [Seat(1 - me.0)], "a public envelope");
            return;
        }
        let env = Signed::parse(&self.terms, bytes).expect("a signed envelope");
        let log = env.unsigned().log;
        assert!(!to.is_empty() && !to.contains(&me), "{log:?} to {to:?}");
        assert!(to.iter().all(|s| s.index() < seats), "{to:?}");
        if log.is_public() {
            let others: Vec<Seat> = self.terms.seats().filter(|s| *s != me).collect();
            assert_eq!(to, others, "a public envelope goes to every other seat");
        } else if ["terms", "commit", "coin reveal", "play"]
            .contains(&self.table.session().phase().name())
        {
            let audience = audience(&self.terms, log);
            assert!(
                to.iter().all(|s| audience.contains(s)),
                "{log:?} is for {audience:?}, sent to {to:?}"
            );
        }
    }
}

/// The tables of every seat of the terms in the conformance crate's lock-step harness
/// (`sealed_conformance::pair::Lockstep`), on its virtual clock (milliseconds); each
/// round every seat does its duties due now (as its node would, whoever decides) and
/// then what its bot would, and what they send is delivered.
pub(crate) struct Net {
    pub(crate) variant: &'static str,
    pub(crate) terms: Terms,
    pub(crate) net: Lockstep<Checked>,
    pub(crate) step: u64,
    pub(crate) pace: Pace,
    pub(crate) phases: BTreeSet<&'static str>,
}

impl std::ops::Deref for Net {
    type Target = Lockstep<Checked>;

    fn deref(&self) -> &Lockstep<Checked> {
        &self.net
    }
}

impl std::ops::DerefMut for Net {
    fn deref_mut(&mut self) -> &mut Lockstep<Checked> {
        &mut self.net
    }
}

impl Net {
    pub(crate) fn new(variant: &'static str, nonce: u8) -> Net {
        Net::with_terms(variant, terms(variant, nonce), nonce)
    }

    pub(crate) fn with_terms(variant: &'static str, terms: Terms, nonce: u8) -> Net {
        let tables: Vec<Checked> = terms
            .seats()
            .map(|s| {
                let i = s.index();
                Checked {
                    table: table::open(terms.clone(), key(i), "", entropy(i, nonce), 0)
                        .expect("open"),
                    terms: terms.clone(),
                }
            })
            .collect();
        assert_eq!(tables.len(), if variant == STALLMATE { 3 } else { 2 });
        let mut net = Lockstep::from_peers(tables);
        net.settle = true;
        net.deliver_all();
        Net {
            variant,
            terms,
            net,
            step: 0,
            pace: pace(variant),
            phases: BTreeSet::new(),
        }
    }

    /// A decision of seat `i`, now.
    pub(crate) fn command(&mut self, i: usize, cmd: Command) -> Result<(), SessionError> {
        let now = self.now;
        self.sessions[i]
            .table
            .session_mut()
            .handle_command(cmd, now)
    }

    /// An envelope for seat `i`, now.
    pub(crate) fn envelope(&mut self, i: usize, bytes: &[u8]) -> Result<(), SessionError> {
        let now = self.now;
        Peer::handle_envelope(&mut self.sessions[i], bytes, now)
    }

    pub(crate) fn all_done(&self) -> bool {
        self.sessions.iter().all(|t| t.session().phase().is_done())
    }

    /// Delivers every envelope sent until nothing more is sent.
    pub(crate) fn pump(&mut self) {
        self.deliver_all();
    }

    /// One round of the harness (see [`Net`]), after the checks every round gets: every
    /// view of every table, and in typed mode bad input refused and the others
    /// refusing what a seat may play now. Returns whether anything moved.
    pub(crate) fn step(&mut self, mode: Mode) -> bool {
        self.step += 1;
        let step = self.step;
        for t in &self.net.sessions {
            check_views(t.as_ref(), self.variant);
            self.phases.insert(t.session().phase().name());
            let bot = t.bot_action(pick(step, t.session().seat().index()));
            check_choices(t.as_ref(), bot.as_ref());
            if mode == Mode::Typed {
                refuses_bad_input(t.as_ref());
                if let Some(cmd) = &bot {
                    refused_by_the_others(&self.net.sessions, t.as_ref(), cmd);
                }
            }
        }
        let count = self.sessions.len();
        let mut duties = vec![0; count];
        let decide = |i: usize, t: &Checked, now: u64| -> Option<Command> {
            if let Some(cmd) = t.duty(now) {
                duties[i] += 1;
                assert!(duties[i] < 64, "endless duties:\n{}", t.text());
                assert!(
                    cmd != Command::Accept,
                    "accepting is a decision, not a duty"
                );
                return Some(cmd);
            }
            let cmd = t.bot_action(pick(step, i))?;
            assert!(t.turn().my_turn, "the bot acts only on its turn");
            Some(match mode {
                Mode::Bot => cmd,
                Mode::Typed => typed(t.as_ref(), cmd),
            })
        };
        let pace = self.pace;
        self.net.round(count, decide, pace)
    }

    /// Steps until nothing moves any more: for a game on a clock, until every table
    /// is done as well.
    pub(crate) fn run(&mut self, mode: Mode) {
        for _ in 0..20_000 {
            if !self.step(mode) && (self.pace == Pace::Once || self.all_done()) {
                break;
            }
        }
        for t in &self.sessions {
            assert!(t.session().phase().is_done(), "not done:\n{}", t.text());
            check_views(t.as_ref(), self.variant);
        }
    }

    pub(crate) fn run_until(&mut self, mode: Mode, stop: impl Fn(&Net) -> bool) {
        for _ in 0..20_000 {
            if stop(self) {
                return;
            }
            let moved = self.step(mode);
            assert!(
                moved || (self.pace != Pace::Once && !self.all_done()),
                "settled before the condition held"
            );
        }
        panic!("the condition never held");
    }
}
