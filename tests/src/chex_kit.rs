//! Chex terms and bots for tests and vectors.

use sealed_games::chex::{self, Act, Chex, color, engine::Kind, engine::Phase, picked, stack};
use sealed_protocol::ids::{Name, Seat};
use sealed_protocol::proposal::{Proposal, Role, SeatSpec, Terms, VERSION};
use sealed_protocol::session::{Command, Session};

use crate::sim::{Bot, FnBot, test_key};

/// Terms of a Chex between the fixed test keys, White (seat 0) proposing.
pub fn chex_terms(ply_limit: u32, nonce: u8) -> Terms {
    let seats = (0..2)
        .map(|i| SeatSpec {
            role: Role::Player,
            key: test_key(i).public().to_bytes(),
            name: format!("p{i}"),
        })
        .collect();
    let p = Proposal {
        version: VERSION,
        variant: Name::new(chex::VARIANT).expect("valid"),
        options: vec![(
            Name::new("ply-limit").expect("valid"),
            ply_limit.to_string(),
        )],
        seats,
        mailboxes: vec![],
        proposer: Seat(0),
        clock: 0,
        nonce: [nonce; 32],
        witness: None,
    };
    Terms::from_signed(p.sign(&test_key(0))).expect("valid terms")
}

/// The command placing the drawn piece on the `pick`-th placement square (a safe one
/// for a King when there is one), once the draw's value is in.
pub fn place(s: &Session<Chex>, pick: u64) -> Option<Command> {
    let pos = s.engine().state()?;
    let p = s.pending_draw(&stack())?;
    let kind = picked(pos, color(s.seat()), &p)?;
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
    let at = squares.get((pick % squares.len().max(1) as u64) as usize)?;
    Some(Command::Act {
        show_slots: vec![],
        act: Act::Place {
            kind: kind.index() as u8,
            x: at.x,
            y: at.y,
        }
        .bytes(),
        open_slots: vec![],
        commit_values: vec![],
        open_values: vec![],
        open_draw: Some(stack()),
    })
}

/// What a random bot does when it is its turn: place a drawn piece, or draw (always when
/// it has no move, else one time in three), or make a random legal move.
pub fn chex_choice(s: &Session<Chex>, pick: u64) -> Option<Command> {
    if s.engine().to_act() != Some(s.seat()) {
        return None;
    }
    let pos = s.engine().state()?;
    if pos.phase == Phase::Placing {
        return place(s, pick);
    }
    let moves = pos.legal_moves();
    if pos.can_draw() && (moves.is_empty() || pick.is_multiple_of(3)) {
        return Some(Command::act(Act::Draw.bytes()));
    }
    let m = moves.get((pick / 3 % moves.len().max(1) as u64) as usize)?;
    Some(Command::act(Act::of_move(m).bytes()))
}

/// A random bot.
pub fn chex_bot() -> Box<dyn Bot<Chex>> {
    Box::new(FnBot(chex_choice))
}

/// Two bots whose choices vary from call to call, deterministically.
pub fn chex_deciders() -> [crate::pair::Decide<Chex>; 2] {
    let bot = |seed: u64| -> crate::pair::Decide<Chex> {
        let mut n = seed;
        Box::new(move |s: &Session<Chex>| {
            n = n
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            chex_choice(s, n >> 33)
        })
    };
    [bot(5), bot(8)]
}

/// The true opening of `seat`'s next draw.
pub fn open_next_draw(
    p: &crate::pair::Pair<Chex>,
    seat: Seat,
) -> Option<sealed_protocol::body::DrawOpen> {
    let s = &p.sessions[seat.index()];
    let (_, _, opened) = s.engine().pool_counts(seat, &stack())?;
    let index = opened as u32 + 1;
    let spec = s
        .engine()
        .pools()
        .into_iter()
        .find(|q| q.owner == seat)?
        .clone();
    let last = s.secrets().draw_chain_last(&stack());
    let game = s.engine().terms().game();
    let value =
        sealed_protocol::derive::draw_chain_value(game, seat, &stack(), spec.draws, &last, index);
    Some(sealed_protocol::body::DrawOpen {
        pool: stack(),
        index,
        value,
    })
}

/// A Chex cheat played out: the pair after the game ran out, the cheater, the fault.
pub struct ChexCheat {
    /// The sessions.
    pub pair: crate::pair::Pair<Chex>,
    /// Who cheated.
    pub cheater: Seat,
    /// The fault the verdict must name.
    pub kind: sealed_protocol::fault::FaultKind,
}

fn run_out(
    mut pair: crate::pair::Pair<Chex>,
    cheater: Seat,
    kind: sealed_protocol::fault::FaultKind,
) -> ChexCheat {
    let mut d = chex_deciders();
    pair.run(&mut d);
    ChexCheat {
        pair,
        cheater,
        kind,
    }
}

/// White opens its draw with a value that does not hash to the chain's head.
pub fn draw_chain_broken() -> ChexCheat {
    use sealed_protocol::body::Item;
    let mut p = crate::pair::Pair::<Chex>::new(chex_terms(0, 2), 71);
    let mut d = chex_deciders();
    p.run_until(&mut d, |p| p.sessions[0].pending_draw(&stack()).is_some());
    let mut open = open_next_draw(&p, Seat(0)).expect("a draw to open");
    open.value[0] ^= 1;
    let at = p.sessions[0]
        .engine()
        .state()
        .expect("started")
        .placement_squares()[0];
    let act = Act::Place {
        kind: 5,
        x: at.x,
        y: at.y,
    };
    let env = p.forge(Seat(0), vec![Item::DrawOpen(open), Item::Act(act.bytes())]);
    p.inject(&env);
    run_out(
        p,
        Seat(0),
        sealed_protocol::fault::FaultKind::DrawChainBroken,
    )
}

/// Black sends its value for White's next draw before White declared it.
pub fn draw_value_early() -> ChexCheat {
    use sealed_protocol::body::{DrawContribute, Item};
    let mut p = crate::pair::Pair::<Chex>::new(chex_terms(0, 3), 72);
    let mut d = chex_deciders();
    p.run_until(&mut d, |p| {
        p.sessions[1]
            .engine()
            .state()
            .is_some_and(|s| s.ply >= 4 && s.phase == Phase::Turn && s.to_move == color(Seat(0)))
    });
    let (_, contributed, _) = p.sessions[1]
        .engine()
        .pool_counts(Seat(0), &stack())
        .expect("pool");
    let early = DrawContribute {
        owner: Seat(0),
        pool: stack(),
        index: contributed as u32 + 1,
        value: [7; 32],
    };
    let env = p.forge(Seat(1), vec![Item::DrawContribute(early)]);
    p.inject(&env);
    run_out(
        p,
        Seat(1),
        sealed_protocol::fault::FaultKind::DrawValueEarly,
    )
}

/// Black places a piece other than the one its draw picked.
pub fn wrong_piece_placed() -> ChexCheat {
    use sealed_protocol::body::Item;
    let mut p = crate::pair::Pair::<Chex>::new(chex_terms(0, 1), 70);
    let mut d = chex_deciders();
    p.run_until(&mut d, |p| {
        p.sessions[1].engine().state().is_some_and(|s| s.ply >= 4)
            && p.sessions[1].pending_draw(&stack()).is_some()
    });
    let s = &p.sessions[1];
    let pos = s.engine().state().expect("started").clone();
    let drawn = picked(
        &pos,
        color(Seat(1)),
        &s.pending_draw(&stack()).expect("pending"),
    )
    .expect("a piece");
    let other = pos
        .draw_pool(color(Seat(1)))
        .into_iter()
        .find(|k| *k != drawn)
        .expect("another kind left");
    let at = pos.placement_squares()[0];
    let open = open_next_draw(&p, Seat(1)).expect("open");
    let act = Act::Place {
        kind: other.index() as u8,
        x: at.x,
        y: at.y,
    };
    let env = p.forge(Seat(1), vec![Item::DrawOpen(open), Item::Act(act.bytes())]);
    p.inject(&env);
    run_out(p, Seat(1), sealed_protocol::fault::FaultKind::IllegalAct)
}
