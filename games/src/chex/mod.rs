//! Chex (seed 003): chess on a board that grows with the pieces, each side's 16 pieces
//! drawn at random from its own stack. The old play-by-mail server drew the pieces;
//! here the protocol's public pool with fair blind draws does it (spec/PROTOCOL.md
//! §4.7, §8.17): the stack's content is public, the drawer declares the draw, the
//! opponent then sends a fresh value, and the drawer opens its next chain value with
//! the placement, so nobody sees a draw before choosing to draw and nobody can bias it.
//!
//! The pure rules live in [`engine`]; this module is how they run on the protocol.

pub mod engine;
mod grid;
mod table;

pub use table::ChexError;

use serde::{Deserialize, Serialize};

use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{Name, Seat};
use sealed_protocol::outcome::Outcome;
use sealed_protocol::proposal::Terms;
use sealed_protocol::random::Stream;
use sealed_protocol::rules::{ActCtx, Applied, OptionError, PoolSpec, Rules, Violation};

use engine::{Color, End, Kind, Move, Position, Square};

/// The variant name.
pub const VARIANT: &str = "chex";

/// The game, as the registry lists it.
pub const DESCRIPTOR: crate::table::Descriptor = crate::table::Descriptor::of::<Chex>(
    "chess with no board: every piece is drawn blindly from a stack and placed next to the others",
    &[crate::table::Setting {
        key: "ply-limit",
        values: &[],
        default: "0",
        example: "300",
        about: "after this many plies the game is drawn; 0: no limit",
    }],
    &[("ply-limit", "300")],
    engine::replay,
);

/// The name of each player's pool: its stack of pieces.
pub fn stack() -> Name {
    Name::new("stack").expect("static name is valid")
}

/// The seat of a colour: White is seat 0.
pub fn seat(c: Color) -> Seat {
    Seat(c.index() as u8)
}

/// The colour of a seat.
pub fn color(s: Seat) -> Color {
    if s.0 == 0 { Color::White } else { Color::Black }
}

/// Chex with its options.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Chex {
    /// `ply-limit`: after this many plies the game is drawn; 0 (default) for none.
    pub ply_limit: u32,
}

/// A Chex act. Squares are absolute coordinates (the origin is White's first piece);
/// display letters and numbers are only for people.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Act {
    /// Declare a draw from one's stack (the turn's choice).
    Draw,
    /// Place the drawn piece; the envelope opens the draw (`DrawOpen`) before this act.
    /// The piece is named so that the transcript reads plainly; it must be the one the
    /// draw's pick selects.
    Place {
        /// The piece's kind: 0 King, 1 Queen, 2 Rook, 3 Bishop, 4 Knight, 5 Pawn.
        kind: u8,
        /// Column.
        x: i32,
        /// Row.
        y: i32,
    },
    /// A chess move.
    Move {
        /// From (x, y).
        from: (i32, i32),
        /// To (x, y).
        to: (i32, i32),
    },
}

impl Act {
    /// Its bytes.
    pub fn bytes(&self) -> Vec<u8> {
        sealed_protocol::wire::encode(self)
    }

    /// The act of a chess move.
    pub fn of_move(m: &Move) -> Self {
        Act::Move {
            from: (m.from.x, m.from.y),
            to: (m.to.x, m.to.y),
        }
    }
}

/// The piece a draw's pick selects from what remains of a stack: `pool[below(len)]` of
/// a stream keyed by the pick, the pool in the fixed order K, Q, R, B, N, P.
pub fn picked(pos: &Position, who: Color, pick: &Hash) -> Option<Kind> {
    let pool = pos.draw_pool(who);
    let n = u32::try_from(pool.len()).ok().filter(|n| *n > 0)?;
    pool.get(Stream::new(pick).below(n) as usize).copied()
}

impl Chex {
    /// The outcome of an ended position.
    pub fn outcome(end: End) -> Outcome {
        match end.winner() {
            Some(c) => Outcome::win(2, seat(c), end.reason()),
            None => Outcome::draw(2, end.reason()),
        }
    }
}

impl Rules for Chex {
    type State = Position;
    type Act = Act;

    fn from_terms(terms: &Terms) -> Result<Self, OptionError> {
        if terms.players() != 2 {
            return Err(OptionError("chex is for two players".into()));
        }
        let mut chex = Chex::default();
        for (k, v) in &terms.proposal().rule_options() {
            match k.as_str() {
                "ply-limit" => {
                    chex.ply_limit = v
                        .parse()
                        .map_err(|_| OptionError(format!("chex: ply-limit cannot be {v:?}")))?;
                }
                other => return Err(OptionError(format!("chex has no option {other}"))),
            }
        }
        Ok(chex)
    }

    fn pools(&self) -> Vec<PoolSpec> {
        Color::BOTH
            .into_iter()
            .map(|c| PoolSpec {
                owner: seat(c),
                name: stack(),
                draws: 16,
                contributor: seat(c.other()),
            })
            .collect()
    }

    fn start(&self, _coin: &Hash) -> Position {
        Position::new(self.ply_limit)
    }

    fn decode_act(&self, bytes: &[u8]) -> Result<Act, Violation> {
        sealed_protocol::wire::decode(bytes, 32).map_err(|e| Violation(format!("chex act: {e}")))
    }

    fn to_act(&self, pos: &Position) -> Option<Seat> {
        pos.end.is_none().then(|| seat(pos.to_move))
    }

    fn apply(
        &self,
        pos: &Position,
        who: Seat,
        act: &Act,
        ctx: &ActCtx<'_>,
    ) -> Result<Applied<Position>, Violation> {
        if !ctx.opened_slots.is_empty()
            || !ctx.opened_values.is_empty()
            || !ctx.committed_values.is_empty()
        {
            return Err("a chex act opens and commits nothing but its draw".into());
        }
        let mut next = pos.clone();
        let mut declare = vec![];
        match *act {
            Act::Draw => {
                if !ctx.draws.is_empty() {
                    return Err("a draw is declared before it is opened".into());
                }
                next.declare_draw(color(who)).map_err(ruled)?;
                declare.push(stack());
            }
            Act::Place { kind, x, y } => {
                // The piece is the one the two values pick, whatever the placer says.
                let [draw] = ctx.draws else {
                    return Err("a placement opens exactly one draw".into());
                };
                let drawn = picked(pos, color(who), &draw.pick).ok_or("nothing left to draw")?;
                if Kind::from_index(usize::from(kind)) != Some(drawn) {
                    return Err(Violation(format!(
                        "the draw picked a {}, not the piece placed",
                        drawn.name()
                    )));
                }
                next.place(drawn, Square::new(x, y)).map_err(ruled)?;
            }
            Act::Move { from, to } => {
                if !ctx.draws.is_empty() {
                    return Err("a chess move opens no draw".into());
                }
                next.play_move(&Move::new(
                    Square::new(from.0, from.1),
                    Square::new(to.0, to.1),
                ))
                .map_err(ruled)?;
            }
        }
        let mut applied = Applied::state(next);
        applied.declare = declare;
        applied.outcome = applied.state.end.map(Chex::outcome);
        Ok(applied)
    }
}

/// The position's refusal as the protocol's rules word one: a sentence naming the rule.
fn ruled(e: engine::PlayError) -> Violation {
    Violation(e.to_string())
}
