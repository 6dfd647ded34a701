//! What a seat's session does, whatever the game's rules: [`AnySession`], the
//! object-safe interface of [`Session`], which a node holds behind a game's table and
//! calls directly. What the seat holds (counts, what another seat lacks, what it may
//! see: one concrete view, [`Envelopes`], of which the transcript is made), the timeline, and what the
//! witness said and is owed are the
//! protocol's, so they are written here once: a protocol feature reaches the node
//! without passing through every game's table.

use super::witness::WitnessDue;
use super::{Action, Command, Phase, Session, SessionError};
use crate::body::ClaimKind;
use crate::engine::{Envelopes, Inserted, WitnessWait};
use crate::envelope::Signed;
use crate::ids::{ChainId, EnvRef, Seat};
use crate::proposal::Terms;
use crate::rules::{Moves, Rules};
use crate::verdict::Verdict;

/// What a transcript says about time: the signers' own clock readings, so every holder
/// of the same envelopes reads the same timeline (spec/PROTOCOL.md §5.4).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timeline {
    /// When the last player joined: the latest clock of the players' first envelopes,
    /// once every player has joined.
    pub started: Option<u64>,
    /// Each accepted act in main-line order: who, and its envelope's clock.
    pub acts: Vec<(Seat, u64)>,
    /// In a game that counts its own moves (§17.7, from draft 10), the game's moves
    /// before each act of `acts`, one for each; empty in any other game.
    pub moves: Vec<Moves>,
    /// The game's moves now, in a game that counts them.
    pub moves_now: Option<Moves>,
    /// This seat's timeout claims: against whom, and the claim envelope's clock.
    pub timeout_claims: Vec<(Seat, u64)>,
}

/// One seat's session, whatever the rules: inputs, outputs, the verdict, sync and the
/// witness. Object safe.
pub trait AnySession {
    /// The seat this session plays.
    fn seat(&self) -> Seat;
    /// The validated terms.
    fn terms(&self) -> &Terms;
    /// The current phase.
    fn phase(&self) -> &Phase;
    /// Takes an envelope received from the network, a mailbox or a file, already
    /// parsed and its signature verified ([`Envelopes::parse`]): the node parses what a
    /// peer sends once.
    fn handle_signed(&mut self, signed: Signed, now: u64) -> Result<Inserted, SessionError>;
    /// Takes a decision of this seat; nothing changes when it is refused.
    fn handle_command(&mut self, cmd: Command, now: u64) -> Result<(), SessionError>;
    /// The next thing the caller must do (persist, send, report).
    fn poll_action(&mut self) -> Option<Action>;
    /// The verdict on everything this seat holds.
    fn verdict(&self) -> Verdict;
    /// What the held envelopes say about time, for the nodes' clocks.
    fn timeline(&self) -> Timeline;
    /// The envelopes held, and what they say without the rules: counts, bytes another
    /// seat lacks, who may see a chain, the names signed, a withdrawal.
    fn envelopes(&self) -> Envelopes<'_>;

    /// `seat`'s wait in progress by the witness's signed statements, counted as a
    /// forfeit would count it (spec/PROTOCOL.md §17), if they say.
    fn witness_wait(&self, statements: &[Vec<u8>], seat: Seat) -> Option<WitnessWait>;
    /// Players lost on time in this seat's view (version 2): nothing is owed to them.
    fn lost_on_time(&self) -> Vec<Seat>;
    /// The witness's statements arrived at `now` ([`Session::note_witness`]); returns
    /// how many times were new.
    fn note_witness(&mut self, statements: &[Vec<u8>], now: u64) -> usize;
    /// What this seat owes with its witness now ([`Session::witness_due`]).
    fn witness_due(&mut self) -> Option<WitnessDue>;
    /// Everything the witness said to this seat that it keeps ([`Session::witness_said`]).
    fn witness_said(&self) -> Vec<Vec<u8>>;
}

/// Takes envelope bytes as a node takes them: parsed and verified once
/// ([`Envelopes::parse`]), then handed to the session ([`AnySession::handle_signed`]).
pub fn take_bytes(
    session: &mut dyn AnySession,
    bytes: &[u8],
    now: u64,
) -> Result<Inserted, SessionError> {
    let signed = session
        .envelopes()
        .parse(bytes)
        .map_err(|e| SessionError::Insert(e.into()))?;
    session.handle_signed(signed, now)
}

impl<R: Rules> AnySession for Session<R> {
    fn seat(&self) -> Seat {
        self.seat
    }

    fn terms(&self) -> &Terms {
        self.engine.terms()
    }

    fn phase(&self) -> &Phase {
        &self.phase
    }

    fn handle_signed(&mut self, signed: Signed, now: u64) -> Result<Inserted, SessionError> {
        Session::handle_signed(self, signed, now)
    }

    fn handle_command(&mut self, cmd: Command, now: u64) -> Result<(), SessionError> {
        Session::handle_command(self, cmd, now)
    }

    fn poll_action(&mut self) -> Option<Action> {
        Session::poll_action(self)
    }

    fn verdict(&self) -> Verdict {
        Session::verdict(self)
    }

    fn timeline(&self) -> Timeline {
        let e = &self.engine;
        let clock_of = |at| e.envelope(at).map(|env| env.unsigned().clock);
        let started = e
            .terms()
            .player_seats()
            .map(|p| {
                clock_of(EnvRef {
                    chain: ChainId::public(p),
                    seq: 0,
                })
                .filter(|_| e.has_joined(p))
            })
            .collect::<Option<Vec<u64>>>()
            .and_then(|c| c.into_iter().max());
        let moves_now = e.moves_now();
        let acts: Vec<((Seat, u64), Option<Moves>)> = e
            .main_line()
            .iter()
            .filter_map(|(at, seat)| {
                let moves = moves_now.as_ref().and_then(|_| e.moves_before(*at));
                Some(((*seat, clock_of(*at)?), moves))
            })
            .collect();
        // Every act's moves, or none: a clock that had some would group by half a game.
        let moves = acts
            .iter()
            .map(|(_, m)| m.clone())
            .collect::<Option<Vec<Moves>>>()
            .unwrap_or_default();
        Timeline {
            started,
            acts: acts.into_iter().map(|(a, _)| a).collect(),
            moves,
            moves_now,
            timeout_claims: e
                .claims()
                .iter()
                .filter(|c| c.by == self.seat && c.kind == ClaimKind::Timeout)
                .map(|c| (c.against, c.clock))
                .collect(),
        }
    }

    fn envelopes(&self) -> Envelopes<'_> {
        self.engine.envelopes_view()
    }

    fn witness_wait(&self, statements: &[Vec<u8>], seat: Seat) -> Option<WitnessWait> {
        self.engine.witness_wait(statements, seat)
    }

    fn lost_on_time(&self) -> Vec<Seat> {
        self.engine.lost_on_time()
    }

    fn note_witness(&mut self, statements: &[Vec<u8>], now: u64) -> usize {
        Session::note_witness(self, statements, now)
    }

    fn witness_said(&self) -> Vec<Vec<u8>> {
        Session::witness_said(self)
    }

    fn witness_due(&mut self) -> Option<WitnessDue> {
        Session::witness_due(self)
    }
}
