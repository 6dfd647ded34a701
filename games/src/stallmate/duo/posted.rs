//! What the public acts hold of the computations, in order: each message's hash, each
//! attempt's commitment, each `Done`, the halt. Read the same way by the audit (from the
//! revealed game) and by a player's own table while the game runs (from its main line).

use sealed_protocol::engine::Engine;
use sealed_protocol::hidden::Revealed;
use sealed_protocol::ids::{EnvRef, Seat};
use sealed_protocol::witness::{SignedStatement, Statement};

use super::Duo;
use super::acts::{self, Act, Done};
use crate::chess::Color;
use crate::stallmate::peer::color;

/// The computations' acts, in order.
#[derive(Clone, Default)]
pub struct Posted {
    /// Each message's hash, where it was signed.
    pub steps: Vec<([u8; 32], EnvRef)>,
    /// Each attempt's commitment: its run, mover and act.
    pub commitments: Vec<(u64, Color, [u8; 32], EnvRef)>,
    /// Each `Done`: its computation and act.
    pub dones: Vec<(u64, Done, EnvRef)>,
    /// The halt, if one stopped the game: by whom, where.
    pub halt: Option<(Color, EnvRef)>,
    /// Each message left with the witness: its position, the deposit's hash its stamp
    /// names, and the `Deposited` act.
    pub deposits: Vec<(u64, [u8; 32], EnvRef)>,
    /// Computations finished so far, and the message a `Lacking` named: what reading on
    /// needs.
    computations: u64,
    lacked: Option<u64>,
    /// The main line read so far ([`Posted::follow`]).
    line: Vec<(EnvRef, Seat)>,
}

impl Posted {
    /// Reads acts, each with its signer and envelope, in the order of the game.
    pub fn read<'a>(acts: impl IntoIterator<Item = (Seat, EnvRef, &'a [u8])>) -> Posted {
        let mut out = Posted::default();
        for (seat, at, bytes) in acts {
            out.push(seat, at, bytes);
        }
        out
    }

    /// Reads one more act.
    fn push(&mut self, seat: Seat, at: EnvRef, bytes: &[u8]) {
        let color = color(seat);
        match acts::decode(bytes) {
            // The run of a commitment is the count of computations finished before it.
            Ok(Act::Attempt(c)) => self.commitments.push((self.computations, color, c.0, at)),
            Ok(Act::Step(h)) => self.steps.push((h.0, at)),
            Ok(Act::Done(d)) => {
                self.steps.push((d.hash.0, at));
                self.dones.push((self.computations, d, at));
                self.computations += 1;
            }
            Ok(Act::Halt) => self.halt = Some((color, at)),
            // Lacked: the last message posted (the rules accept nothing else).
            Ok(Act::Lacking) => self.lacked = (self.steps.len() as u64).checked_sub(1),
            Ok(Act::Deposited(stamp)) => {
                // The engine accepted it: its stamp is the witness's, of this game.
                let stamp = sealed_protocol::wire::decode::<SignedStatement>(
                    &stamp,
                    sealed_protocol::witness::MAX_STATEMENT,
                );
                if let (
                    Some(i),
                    Ok(SignedStatement {
                        statement: Statement::Stamp(s),
                        ..
                    }),
                ) = (self.lacked, stamp)
                {
                    self.deposits.push((i, s.deposit.0, at));
                }
            }
            Ok(Act::Open) | Err(_) => {}
        }
    }

    /// The public acts of a revealed game.
    pub fn of_revealed(r: &Revealed<'_>) -> Posted {
        Posted::read(r.public.iter().map(|p| (p.seat, p.at, p.bytes.as_slice())))
    }

    /// The acts of a live game's main line, as one seat's engine holds them.
    pub fn of_engine(e: &Engine<Duo>) -> Posted {
        let mut out = Posted::default();
        out.follow(e);
        out
    }

    /// Brings this up to `e`'s main line: only the envelopes added since the last call
    /// are read, as long as the line still starts with what was read (else it is all
    /// read again). A player asks at every event, and decoding every act of a long game
    /// each time made an attempt's cost grow with the game (docs/PERFORMANCE.md).
    pub fn follow(&mut self, e: &Engine<Duo>) {
        let line = e.main_line();
        if !line.starts_with(&self.line) {
            *self = Posted::default();
        }
        for &(at, seat) in &line[self.line.len()..] {
            let act = e.envelope(at).and_then(|env| {
                env.unsigned().body.iter().find_map(|i| match i {
                    sealed_protocol::body::Item::Act(bytes) => Some(bytes.as_slice()),
                    _ => None,
                })
            });
            if let Some(bytes) = act {
                self.push(seat, at, bytes);
            }
            self.line.push((at, seat));
        }
    }

    /// The commitment made before computation `run` (from 1): its mover and hash.
    pub fn commitment(&self, run: u64) -> Option<(Color, [u8; 32])> {
        self.commitments
            .iter()
            .rev()
            .find(|c| c.0 == run)
            .map(|c| (c.1, c.2))
    }

    /// The hash of message `index`, once signed.
    pub fn hash(&self, index: u64) -> Option<[u8; 32]> {
        self.steps.get(usize::try_from(index).ok()?).map(|s| s.0)
    }

    /// The `Done` of computation `run`, once posted.
    pub fn done(&self, run: u64) -> Option<&Done> {
        self.dones.get(usize::try_from(run).ok()?).map(|d| &d.1)
    }
}
