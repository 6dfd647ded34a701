//! A game of Secret Stallmate computed by the two players: White garbles, Black
//! evaluates. Once, the 128 base OTs (Black's `A`, White's reply). Then the start
//! computation (the two back ranks to the first state), and one computation per attempt
//! (the chain of the circuit files composed into one, `circuits.rs`), each the four
//! messages of `run.rs`.
//!
//! The state between computations is labels: the evaluator holds one per wire, the
//! garbler its zero label. What goes where next is public (`Public::after`): `Fixed`
//! always from the kept outputs; the position's key into the mover's window when a move
//! is made, after emptying both windows if it captured; the attempt's own input labels
//! onto the period's earlier attempts when no move is made, which a move clears.
//!
//! Every random choice comes from a player's seed: White's labels, `Δ` and OT secret,
//! Black's base-OT scalar, each player's pads (`Stream::pad`, run by run). So the audit
//! (`audit.rs`) can play both sides again.

mod checkpoint;

use super::circuits::layout;
pub use super::circuits::{Circuits, MAX_EARLIER, MAX_WINDOW, PlayError};
pub use super::public::{Options, Public};
use super::run::{Answered, Asking, Evaluated, Garbled, Layout, Source};
use super::{Fault, Party};
use crate::chain::bits::{fresh_bits, read_attempt, setup_bits};
use crate::chain::{ANSWER_BITS, ChainError};
use crate::gc::seed::{Seed, Stream};
use crate::gc::{Block, Garbling};
use crate::inputs::Answer;
use crate::kept::{ITEM_BITS, KEY_BITS};
use crate::ot::{base, extension};

/// A player's pad for a run, as the answer's fields.
fn pad(stream: &Stream, run: u64) -> Answer {
    let b = stream.pad(run).to_le_bytes();
    Answer::from_bytes(std::array::from_fn(|i| b[i]))
}

/// A side's fresh bits for the next computation: his back rank and his share of the
/// fingerprints' key for the start, else his attempt (0 when he does not move) and his
/// pad.
fn fresh(started: bool, rank: &[u8; 8], stream: &Stream, attempt: u16, pad: &Answer) -> Vec<bool> {
    if started {
        fresh_bits(attempt, pad)
    } else {
        setup_bits(rank, &stream.hash_share())
    }
}

/// What a computation told this side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The start: whether each back rank is a Chess960 one.
    Started {
        /// White's.
        white: bool,
        /// Black's.
        black: bool,
    },
    /// An attempt.
    Attempt {
        /// Whether a move was made.
        made: bool,
        /// The mover's answer, if this side moved; what he hears, if not.
        answer: Answer,
    },
}

/// Reads the returned bits of a computation: for the start, whether each back rank is a
/// Chess960 one; for an attempt, whether a move was made and the two answers under their
/// pads, of which this side unmasks its own.
fn read(
    started: bool,
    bits: &[bool],
    side: usize,
    mover: usize,
    pads: &Answer,
) -> Result<(Outcome, bool), PlayError> {
    if !started {
        let yes = |i: usize| bits.get(i) == Some(&true);
        return Ok((
            Outcome::Started {
                white: yes(0),
                black: yes(1),
            },
            false,
        ));
    }
    // The returned bits are as many as the layout says, checked where they were read:
    // fewer would be a bug of ours.
    let (made, mover_masked, other_masked) =
        read_attempt(bits).ok_or(PlayError::Chain(ChainError::Size {
            what: "the returned bits",
            expected: 1 + 2 * ANSWER_BITS,
            found: bits.len(),
        }))?;
    let answer = if side == mover {
        mover_masked.unmask(pads)
    } else {
        other_masked.unmask(pads)
    };
    // A capture is announced to both: the mover reads it in his answer, the other in
    // what he hears.
    let capture = made && answer.capture;
    Ok((Outcome::Attempt { made, answer }, capture))
}

/// The labels the state is made of, as one side holds them (the garbler: zero labels).
#[derive(Clone, Debug, Default)]
struct State {
    fixed: Vec<Block>,
    windows: [Vec<Vec<Block>>; 2],
    earlier: Vec<Vec<Block>>,
}

impl State {
    /// The carried inputs of the next attempt: `Fixed`, the mover's window, the
    /// period's earlier attempts.
    fn carried(&self, public: &Public) -> Vec<Block> {
        let m = public.mover();
        let mut out = self.fixed.clone();
        out.extend(self.windows[m].iter().flatten());
        out.extend(self.earlier.iter().flatten());
        out
    }

    /// Carries the kept outputs (the key, then `Fixed`) and the mover's attempt labels
    /// on, as `Public::after` says.
    fn after(
        &mut self,
        started: bool,
        public: &Public,
        kept: &[Block],
        attempt: &[Block],
        made: bool,
        capture: bool,
    ) {
        let (key, fixed) = kept.split_at(KEY_BITS.min(kept.len()));
        self.fixed = fixed.to_vec();
        if !started {
            self.windows = [vec![], vec![key.to_vec()]];
            return;
        }
        let m = public.mover();
        if made {
            if capture {
                self.windows = [vec![], vec![]];
            }
            self.windows[m].push(key.to_vec());
            self.earlier.clear();
        } else {
            self.earlier.push(attempt.to_vec());
        }
    }
}

/// What each side keeps of the game, whichever it is: its seed's stream and back rank,
/// what both know, and the state's labels as it holds them.
struct Side {
    /// 0 for White, 1 for Black.
    index: usize,
    stream: Stream,
    rank: [u8; 8],
    public: Public,
    started: bool,
    state: State,
}

/// A side's inputs to the next computation.
struct Inputs {
    run: u64,
    layout: Layout,
    own: Vec<bool>,
    carried: Vec<Block>,
}

impl Side {
    fn new(index: usize, seed: &Seed, rank: [u8; 8], options: Options) -> Side {
        Side {
            index,
            stream: Stream::new(seed),
            rank,
            public: Public::new(options),
            started: false,
            state: State::default(),
        }
    }

    /// The next computation's layout, this side's fresh bits (with `attempt` if it is
    /// to move) and carried labels.
    fn inputs(&self, attempt: u16) -> Inputs {
        let run = self.public.run;
        let moving = self.started && self.public.mover() == self.index;
        let mine = if moving { attempt } else { 0 };
        let own = fresh(
            self.started,
            &self.rank,
            &self.stream,
            mine,
            &pad(&self.stream, run),
        );
        let carried = if self.started {
            self.state.carried(&self.public)
        } else {
            vec![]
        };
        Inputs {
            run,
            layout: layout(&self.public, self.started),
            own,
            carried,
        }
    }

    /// After a computation: what it told this side, and the state carried on.
    fn conclude(
        &mut self,
        bits: &[bool],
        kept: &[Block],
        fresh: &[Block],
        l: &Layout,
    ) -> Result<Outcome, PlayError> {
        let pads = pad(&self.stream, self.public.run);
        let (outcome, capture) = read(self.started, bits, self.index, self.public.mover(), &pads)?;
        let made = matches!(outcome, Outcome::Attempt { made: true, .. });
        let attempt = mover_attempt(fresh, l, self.public.white_to_move);
        self.state
            .after(self.started, &self.public, kept, &attempt, made, capture);
        if self.started {
            self.public.after(made, capture);
        } else {
            self.public.started();
            self.started = true;
        }
        Ok(outcome)
    }
}

/// The mover's attempt's labels among the fresh inputs (the garbler's first, then the
/// evaluator's; a fresh input starts with its attempt).
fn mover_attempt(fresh: &[Block], l: &Layout, white_moves: bool) -> Vec<Block> {
    let at = if white_moves {
        0
    } else {
        l.count(Source::Garbler)
    };
    fresh
        .get(at..at + ITEM_BITS)
        .map(<[Block]>::to_vec)
        .unwrap_or_default()
}

/// White, who garbles.
pub struct White {
    seed: Seed,
    side: Side,
    ot: Option<extension::Sender>,
    answered: Option<(Answered, Layout)>,
}

impl White {
    /// White with his seed and back rank.
    pub fn new(seed: Seed, rank: [u8; 8], options: Options) -> White {
        White {
            seed,
            side: Side::new(0, &seed, rank, options),
            ot: None,
            answered: None,
        }
    }

    /// What both know.
    pub fn public(&self) -> &Public {
        &self.side.public
    }

    /// His reply to Black's base-OT message.
    pub fn base(&mut self, a: &[u8]) -> Result<Vec<u8>, PlayError> {
        let s = self.side.stream.ot_secret();
        let r = base::Receiver::new(&self.seed, extension::Sender::choices(s));
        let (reply, keys) = r.reply(a).map_err(|_| {
            PlayError::Fault(Fault::Malformed {
                by: Party::Evaluator,
                what: "a base OT message that is no point",
            })
        })?;
        self.ot = Some(extension::Sender::new(s, keys));
        Ok(reply)
    }

    /// G1, his answer to Black's E1 for the next computation; `attempt` is his own when
    /// he is to move.
    pub fn answer(
        &mut self,
        circuits: &Circuits,
        e1: &[u8],
        attempt: u16,
    ) -> Result<Vec<u8>, PlayError> {
        let ot = self
            .ot
            .as_ref()
            .ok_or(PlayError::OutOfTurn("no base OTs yet"))?;
        let i = self.side.inputs(attempt);
        let c = circuits.next(&self.side.public, self.side.started)?;
        let g = Garbled::new(
            &c,
            &self.side.stream,
            i.run,
            i.layout.clone(),
            &i.carried,
            i.own,
        );
        let (g1, answered) = g.answer(ot, e1)?;
        self.answered = Some((answered, i.layout));
        Ok(g1)
    }

    /// Reads E2: G2 for Black, and what the computation told White.
    pub fn decode(&mut self, e2: &[u8]) -> Result<(Vec<u8>, Outcome), PlayError> {
        let (answered, l) = self
            .answered
            .take()
            .ok_or(PlayError::OutOfTurn("nothing garbled"))?;
        let (g2, d) = answered.decode(e2)?;
        let outcome = self.side.conclude(&d.bits, &d.kept, &d.fresh, &l)?;
        Ok((g2, outcome))
    }
}

/// Black, who evaluates.
pub struct Black {
    side: Side,
    base: base::Sender,
    ot: Option<extension::Receiver>,
    asking: Option<(Asking, Layout)>,
    evaluated: Option<(Evaluated, Layout)>,
}

impl Black {
    /// Black with his seed and back rank.
    pub fn new(seed: Seed, rank: [u8; 8], options: Options) -> Black {
        Black {
            side: Side::new(1, &seed, rank, options),
            base: base::Sender::new(&seed),
            ot: None,
            asking: None,
            evaluated: None,
        }
    }

    /// What both know.
    pub fn public(&self) -> &Public {
        &self.side.public
    }

    /// His base-OT message.
    pub fn base_message(&self) -> Vec<u8> {
        self.base.message().to_vec()
    }

    /// Reads White's base-OT reply.
    pub fn base_keys(&mut self, reply: &[u8]) -> Result<(), PlayError> {
        let keys = self.base.keys(reply).map_err(|_| {
            PlayError::Fault(Fault::Malformed {
                by: Party::Garbler,
                what: "a base OT reply of the wrong length or with no point",
            })
        })?;
        self.ot = Some(extension::Receiver::new(keys));
        Ok(())
    }

    /// E1 for the next computation; `attempt` is his own when he is to move.
    pub fn ask(&mut self, attempt: u16) -> Result<Vec<u8>, PlayError> {
        let ot = self
            .ot
            .as_ref()
            .ok_or(PlayError::OutOfTurn("no base OTs yet"))?;
        let i = self.side.inputs(attempt);
        let (e1, asking) = Asking::new(ot, i.run, i.layout.clone(), i.carried, &i.own);
        self.asking = Some((asking, i.layout));
        Ok(e1)
    }

    /// Reads G1, evaluates: E2.
    pub fn evaluate(&mut self, circuits: &Circuits, g1: &[u8]) -> Result<Vec<u8>, PlayError> {
        self.evaluate_by(circuits, g1, None)
    }

    /// [`Black::evaluate`] with White's side at hand, as the audit's replay has it: the
    /// same E2 found from his garbling without hashing (`gc::known`).
    pub(super) fn evaluate_knowing(
        &mut self,
        circuits: &Circuits,
        g1: &[u8],
        white: &White,
    ) -> Result<Vec<u8>, PlayError> {
        let garbling = white.answered.as_ref().map(|(a, _)| a.garbling());
        self.evaluate_by(circuits, g1, garbling)
    }

    fn evaluate_by(
        &mut self,
        circuits: &Circuits,
        g1: &[u8],
        known: Option<&Garbling>,
    ) -> Result<Vec<u8>, PlayError> {
        let ot = self
            .ot
            .as_ref()
            .ok_or(PlayError::OutOfTurn("no base OTs yet"))?;
        let (asking, l) = self
            .asking
            .take()
            .ok_or(PlayError::OutOfTurn("nothing asked"))?;
        let c = circuits.next(&self.side.public, self.side.started)?;
        let (e2, evaluated) = match known {
            Some(g) => asking.evaluate_knowing(ot, &c, g1, g)?,
            None => asking.evaluate(ot, &c, g1)?,
        };
        self.evaluated = Some((evaluated, l));
        Ok(e2)
    }

    /// Reads G2: what the computation told Black.
    pub fn finish(&mut self, g2: &[u8]) -> Result<Outcome, PlayError> {
        let (evaluated, l) = self
            .evaluated
            .take()
            .ok_or(PlayError::OutOfTurn("nothing evaluated"))?;
        let f = evaluated.finish(g2)?;
        self.side.conclude(&f.bits, &f.kept, &f.fresh, &l)
    }
}
