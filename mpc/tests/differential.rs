//! The circuit against the referee: random games of Secret Stallmate (random Chess960
//! setups, random options, attempts of every kind — legal moves, castling, promotions,
//! "Any?", moves a piece never makes, empty squares, repeats), and at every attempt the
//! circuit, evaluated in the clear on the two players' inputs, must give the mover
//! exactly the referee's answer (`Referee::attempt`), the opponent exactly what he hears
//! (`announce::heard`), and say a move was made exactly when it was. Scripted games add
//! checkmate, stalemate and threefold repetition.
//!
//! `SEALED_MPC_GAMES` sets how many random games (8 by default; the long run of
//! docs/RELIABILITY.md uses 200); `SEALED_MPC_PLIES` their length (24; 40 there). Most attempts
//! run the chess alone; every attempt of the first game also checks the commitments
//! (SHA-256 in the circuit against the `sha2` crate).
//!
//! The one-shot program (`program.rs`: no state kept, every move in its shape, so a new
//! shape at every ply) is what the benches measure, not what a node plays; it is compared
//! in the first random game, and in every game, scripted ones included, when
//! `SEALED_MPC_SHOT=all` (the long run): compiling its shapes was two thirds of this
//! test's time.
//!
//! Every attempt also runs through the two players' garbled computation with the state
//! kept (`sealed_mpc::play`): White garbles, Black evaluates, the messages pass as bytes,
//! the state stays labels from one computation to the next. The mover's answer, what the
//! other hears and whether a move was made must be the referee's there too.
//!
//! Over 600 lines: one harness drives the random and the scripted games through the
//! referee and both computations, and the translations of the referee's answers into the
//! circuit's fields live beside the comparisons that use them.

mod common;

use std::collections::HashMap;

use common::answers::{expected, expected_heard};
use common::{Rng, attempt_item, from_item};

use garble_lang::GarbleProgram;
use sealed_games::chess::{Kind, Move, Position, Square};
use sealed_games::stallmate::{Answer as RefAnswer, Attempt, Options, Referee, Setup, heard};
use sealed_mpc::circuit::{compile_shape, evaluate};
use sealed_mpc::inputs::{
    ANY, Answer, Attempting, Rules, Secrets, commitments, digest, mover_literal, other_literal,
};
use sealed_mpc::play::game::{Black, Circuits, Options as PlayOptions, Outcome, White};
use sealed_mpc::program::Shape;

fn kind_code(k: Kind) -> u8 {
    // The circuit's kind codes are the chess crate's indices (mpc/src/inputs.rs).
    k.idx() as u8
}

/// How much of the referee's work the games exercised: answers by code, silences, and
/// what the moves made announced.
#[derive(Default, Debug)]
struct Seen {
    codes: [usize; 5],
    silences: [usize; 7],
    captures: usize,
    en_passant: usize,
    checks: [usize; 5],
    ends: [usize; 6],
    castles: usize,
    promotions: usize,
}

impl Seen {
    fn note(&mut self, a: &Answer, attempt: &Attempt, pos: &Position) {
        self.codes[usize::from(a.code.min(4))] += 1;
        self.silences[usize::from(a.silence.min(6))] += 1;
        if a.code != 1 {
            return;
        }
        self.captures += usize::from(a.capture);
        self.en_passant += usize::from(a.en_passant);
        for (i, n) in [a.rank, a.file, a.long, a.short, a.knight]
            .into_iter()
            .enumerate()
        {
            self.checks[i] += usize::from(n);
        }
        self.ends[usize::from(a.end.min(5))] += 1;
        if let Attempt::Move {
            from,
            to,
            promotion,
        } = attempt
        {
            let own = |sq: &Square| {
                pos.piece_at(*sq)
                    .filter(|p| p.color == pos.turn())
                    .map(|p| p.kind)
            };
            self.castles +=
                usize::from(own(from) == Some(Kind::King) && own(to) == Some(Kind::Rook));
            self.promotions += usize::from(promotion.is_some());
        }
    }
}

struct Game {
    referee: Referee,
    secrets: [Secrets; 2],
    game: [u8; 32],
    earlier: Vec<u16>,
    period_salt: [u8; 15],
    ply_limit: Option<u32>,
    two: (White, Black),
}

struct Compiled {
    shot: HashMap<Shape, GarbleProgram>,
    play: Circuits,
}

impl Compiled {
    fn new() -> Compiled {
        Compiled {
            shot: HashMap::new(),
            play: Circuits::from_files().expect("the embedded circuit files"),
        }
    }

    fn get(&mut self, shape: Shape) -> &GarbleProgram {
        self.shot.entry(shape).or_insert_with(|| {
            compile_shape(&shape, false).unwrap_or_else(|e| panic!("{shape:?}: {e}"))
        })
    }
}

/// The two players of the garbled computation, their base OTs made and the start
/// computed (both back ranks must be Chess960 ones).
fn two_players(
    compiled: &mut Compiled,
    rng: &mut Rng,
    secrets: &[Secrets; 2],
    options: &Options,
) -> (White, Black) {
    let o = PlayOptions {
        must_try: options.must_try,
        name_capturer: options.name_capturer,
        ply_limit: options.ply_limit,
    };
    let mut w = White::new(rng.bytes(), secrets[0].rank, o);
    let mut b = Black::new(rng.bytes(), secrets[1].rank, o);
    let g0 = w.base(&b.base_message()).unwrap();
    b.base_keys(&g0).unwrap();
    let c = &mut compiled.play;
    let e1 = b.ask(0).unwrap();
    let g1 = w.answer(c, &e1, 0).unwrap();
    let e2 = b.evaluate(c, &g1).unwrap();
    let (g2, out) = w.decode(&e2).unwrap();
    let started = Outcome::Started {
        white: true,
        black: true,
    };
    assert_eq!(out, started);
    assert_eq!(b.finish(&g2).unwrap(), started);
    (w, b)
}

fn new_game(
    rng: &mut Rng,
    compiled: &mut Compiled,
    white: u16,
    black: u16,
    options: Options,
) -> Game {
    let (ws, bs) = (Setup::new(white).unwrap(), Setup::new(black).unwrap());
    let rank = |s: Setup| -> [u8; 8] { s.back_rank().map(kind_code) };
    let secrets = [
        Secrets {
            rank: rank(ws),
            setup_salt: rng.bytes(),
            moves: vec![],
            log_salt: rng.bytes(),
        },
        Secrets {
            rank: rank(bs),
            setup_salt: rng.bytes(),
            moves: vec![],
            log_salt: rng.bytes(),
        },
    ];
    let two = two_players(compiled, rng, &secrets, &options);
    Game {
        two,
        ply_limit: options.ply_limit,
        referee: Referee::new(ws, bs, options),
        secrets,
        game: rng.bytes(),
        earlier: vec![],
        period_salt: rng.bytes(),
    }
}

/// Plays one attempt through both the referee and the circuit and compares them;
/// whether the period ended with a move.
fn step(
    g: &mut Game,
    compiled: &mut Compiled,
    rng: &mut Rng,
    a: Attempt,
    hashed: bool,
    shot: bool,
    seen: &mut Seen,
) -> bool {
    let mover = g.referee.mover().expect("a period is open");
    let seat = mover.idx();
    let (wm, bm) = (g.secrets[0].moves.len(), g.secrets[1].moves.len());
    // Pad the earlier attempts to a multiple of 4 with zero items (no effect), so that
    // fewer shapes are compiled.
    let mut earlier = g.earlier.clone();
    earlier.resize(g.earlier.len().div_ceil(4) * 4, 0);
    let shape = Shape {
        white_moves: wm,
        black_moves: bm,
        earlier: earlier.len(),
        commitments: hashed,
    };
    let options = *g.referee.options();
    let rules = Rules {
        must_try: options.must_try,
        name_capturer: options.name_capturer,
        limit: g.ply_limit.is_some_and(|l| (g.referee.plies() + 1) >= l),
    };
    let attempting = Attempting {
        earlier,
        period_salt: g.period_salt,
        attempt: attempt_item(&a),
        attempt_salt: rng.bytes(),
        next_log_salt: rng.bytes(),
        next_period_salt: rng.bytes(),
    };
    let public = commitments(
        g.game,
        &g.secrets[0],
        &g.secrets[1],
        seat as u8,
        &attempting,
        rules,
    );
    let pads = [
        Answer {
            code: rng.next() as u8,
            at: rng.next() as u8,
            capture: rng.chance(50),
            silence: rng.next() as u8,
            ..Answer::default()
        },
        Answer {
            code: rng.next() as u8,
            end: rng.next() as u8,
            rank: rng.next() as u8,
            ..Answer::default()
        },
    ];
    let lit = |s: usize| {
        if s == seat {
            mover_literal(&g.secrets[s], &attempting, &pads[s], &public)
        } else {
            other_literal(&g.secrets[s], &pads[s], &public)
        }
    };
    let (wl, bl) = (lit(0), lit(1));
    let out = shot.then(|| evaluate(compiled.get(shape), &wl, &bl).unwrap());
    let (white_out, black_out) = garbled_attempt(g, compiled, attempting.attempt);

    let before = g.referee.position().clone();
    let answer = g.referee.attempt(a).expect("the referee judges it");
    let entry = g.referee.current().and_then(|t| t.entries.last().cloned());
    let entry = entry.expect("the attempt is recorded");
    let mut turn = g.referee.current().cloned().unwrap();
    turn.entries = vec![entry.clone()];
    let want = expected(&answer, entry.silence);
    let context = format!(
        "attempt {a:?} by {mover:?} at ply {} (position {}), shape {shape:?}",
        g.referee.plies(),
        g.referee.position().shredder_fen()
    );
    let heard_want = expected_heard(&heard(&turn), &want);
    let made = matches!(answer, RefAnswer::Yes(_));
    if let Some(out) = &out {
        assert!(
            out.inputs_white && out.inputs_black && out.same_public && out.mover_commitments,
            "{context}: inputs refused {out:?}"
        );
        assert_eq!(
            out.mover.unmask(&pads[seat]),
            want,
            "{context}: the mover's answer"
        );
        assert_eq!(
            out.other.unmask(&pads[1 - seat]),
            heard_want,
            "{context}: what the opponent hears ({:?})",
            heard(&turn)
        );
        assert_eq!(out.made, made, "{context}: made");
    }
    let (mine, theirs) = if seat == 0 {
        (white_out, black_out)
    } else {
        (black_out, white_out)
    };
    assert_eq!(
        mine,
        Outcome::Attempt { made, answer: want },
        "{context}: the mover's outcome, garbled"
    );
    assert_eq!(
        theirs,
        Outcome::Attempt {
            made,
            answer: heard_want
        },
        "{context}: the other's outcome, garbled"
    );
    seen.note(&want, &a, &before);
    if let Some(out) = out.as_ref().filter(|_| hashed) {
        let mut moves = g.secrets[seat].moves.clone();
        moves.push(attempting.attempt);
        let log = digest(seat as u8, &g.game, &attempting.next_log_salt, &moves);
        assert_eq!(out.next_log, log, "{context}: the next log digest");
        let mut period = attempting.earlier.clone();
        period.push(attempting.attempt);
        let p = digest(seat as u8, &g.game, &attempting.next_period_salt, &period);
        assert_eq!(out.next_period, p, "{context}: the next period digest");
    }
    if made {
        g.secrets[seat].moves.push(attempting.attempt);
        g.secrets[seat].log_salt = attempting.next_log_salt;
        g.earlier.clear();
        g.period_salt = rng.bytes();
    } else {
        g.earlier.push(attempting.attempt);
        g.period_salt = attempting.next_period_salt;
    }
    made
}

/// One attempt through the two players' garbled computation: what each side learns.
fn garbled_attempt(g: &mut Game, compiled: &mut Compiled, item: u16) -> (Outcome, Outcome) {
    let (w, b) = &mut g.two;
    let c = &mut compiled.play;
    let e1 = b.ask(item).unwrap();
    let g1 = w.answer(c, &e1, item).unwrap();
    let e2 = b.evaluate(c, &g1).unwrap();
    let (g2, white_out) = w.decode(&e2).unwrap();
    let black_out = b.finish(&g2).unwrap();
    (white_out, black_out)
}

fn as_attempt(m: &Move) -> Attempt {
    Attempt::Move {
        from: m.from,
        to: m.to,
        promotion: m.promotion,
    }
}

/// A random attempt of every kind the referee can be asked.
fn random_attempt(g: &Game, rng: &mut Rng, tries: usize, last: Option<Attempt>) -> Attempt {
    let pos: &Position = g.referee.position();
    let legal = pos.legal_moves();
    let own: Vec<Square> = pos.color_squares(pos.turn()).into_iter().collect();
    let r = rng.below(100);
    // Sooner or later a legal move, a pawn capture first when one is owed.
    if tries >= 6 || r < 40 {
        let captures: Vec<&Move> = legal
            .iter()
            .filter(|m| {
                pos.piece_at(m.from).is_some_and(|p| p.kind == Kind::Pawn)
                    && m.from.file() != m.to.file()
            })
            .collect();
        if tries >= 6 && !captures.is_empty() && rng.chance(50) {
            return as_attempt(captures[rng.below(captures.len())]);
        }
        // Undo the last move of this side now and then: repetitions.
        if let Some(Attempt::Move { from, to, .. }) = last
            && let Some(m) = legal.iter().find(|m| m.from == to && m.to == from)
            && rng.chance(60)
        {
            return as_attempt(m);
        }
        if !legal.is_empty() {
            return as_attempt(&legal[rng.below(legal.len())]);
        }
    }
    if r < 52 {
        return Attempt::Any;
    }
    if r < 58 && !g.earlier.is_empty() {
        let i = g.earlier[rng.below(g.earlier.len())];
        if i != 0
            && i != ANY
            && let Some(a) = from_item(i)
        {
            return a;
        }
    }
    let from = if r < 85 && !own.is_empty() {
        own[rng.below(own.len())]
    } else {
        Square::from_index(rng.below(64) as u8).unwrap()
    };
    let to = Square::from_index(rng.below(64) as u8).unwrap();
    let promotion = if rng.chance(15) {
        Some(
            [
                Kind::Knight,
                Kind::Bishop,
                Kind::Rook,
                Kind::Queen,
                Kind::King,
                Kind::Pawn,
            ][rng.below(6)],
        )
    } else {
        None
    };
    Attempt::Move {
        from,
        to,
        promotion,
    }
}

fn count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Whether the one-shot program is compared in every game (`SEALED_MPC_SHOT=all`).
fn shot_everywhere() -> bool {
    std::env::var("SEALED_MPC_SHOT").is_ok_and(|v| v == "all")
}

#[test]
fn the_circuit_answers_every_attempt_as_the_referee_does() {
    let games = count("SEALED_MPC_GAMES", 8);
    let plies = count("SEALED_MPC_PLIES", 24);
    let every = shot_everywhere();
    let mut compiled = Compiled::new();
    let mut rng = Rng(0x5eed_2b2b_0001);
    let (mut attempts, mut made, mut seen) = (0usize, 0usize, Seen::default());
    for n in 0..games {
        let options = Options {
            must_try: rng.chance(70),
            name_capturer: rng.chance(50),
            ply_limit: rng.chance(30).then(|| 2 + rng.below(plies) as u32),
            ..Options::default()
        };
        let (w, b) = (rng.below(960) as u16, rng.below(960) as u16);
        let mut g = new_game(&mut rng, &mut compiled, w, b, options);
        let mut last: [Option<Attempt>; 2] = [None, None];
        while g.referee.ending().is_none() && g.referee.plies() < plies as u32 {
            let Some(mover) = g.referee.mover() else {
                break;
            };
            let mut tries = 0;
            loop {
                let a = random_attempt(&g, &mut rng, tries, last[mover.idx()]);
                let yes = step(
                    &mut g,
                    &mut compiled,
                    &mut rng,
                    a,
                    n == 0,
                    every || n == 0,
                    &mut seen,
                );
                attempts += 1;
                if yes {
                    made += 1;
                    last[mover.idx()] = Some(a);
                    break;
                }
                tries += 1;
                if tries > 40 {
                    break;
                }
            }
            let _ = g.referee.end_period();
        }
    }
    println!(
        "{attempts} attempts in {games} games, {made} moves made, {} one-shot circuits compiled\n{seen:?}",
        compiled.shot.len()
    );
    // Every answer and every silence a random game can reach was met, and captures and
    // checks were announced: a circuit that knew less would have been caught here.
    assert!(seen.codes.iter().all(|&n| n > 0), "{seen:?}");
    assert!(seen.silences[..4].iter().all(|&n| n > 0), "{seen:?}");
    assert!(
        seen.captures > 0 && seen.checks.iter().sum::<usize>() > 0,
        "{seen:?}"
    );
}

/// Games played move by move from the standard setup (Chess960 number 518) to what random
/// games seldom reach: each scripted attempt must be answered alike, and end as said.
#[test]
fn checkmate_stalemate_repetition_en_passant_promotion_and_castling_alike() {
    let scripts: &[(&str, &str)] = &[
        ("f2-f3 e7-e5 g2-g4 d8-h4", "checkmate"),
        (
            "e2-e3 a7-a5 d1-h5 a8-a6 h5-a5 h7-h5 h2-h4 a6-h6 a5-c7 f7-f6 c7-d7 e8-f7 d7-b7 d8-d3 b7-b8 d3-h7 b8-c8 f7-g6 c8-e6",
            "stalemate",
        ),
        (
            "g1-f3 g8-f6 f3-g1 f6-g8 g1-f3 g8-f6 f3-g1 f6-g8",
            "repetition",
        ),
        ("e2-e4 a7-a6 e4-e5 d7-d5 e5-d6", "en passant"),
        (
            "h2-h4 g7-g5 h4-g5 h7-h6 g5-h6 a7-a6 h6-h7 a6-a5 h7-g8=Q",
            "promotion",
        ),
        (
            "e2-e4 e7-e5 g1-f3 b8-c6 f1-c4 g8-f6 e1-h1 f8-c5",
            "castling",
        ),
        // The bishop on a6 sees f1: castling across it is refused; the rook moves instead.
        (
            "g2-g3 b7-b6 g1-f3 c8-a6 f1-h3 e7-e6 e2-e4 h7-h6 !e1-h1 h1-g1",
            "castling refused",
        ),
    ];
    let every = shot_everywhere();
    let mut compiled = Compiled::new();
    let mut rng = Rng(7);
    let mut seen = Seen::default();
    for (moves, what) in scripts {
        let mut g = new_game(&mut rng, &mut compiled, 518, 518, Options::default());
        for m in moves.split(' ') {
            // `!e1-h1`: an attempt the referee refuses; the period goes on.
            let (refused, m) = m.strip_prefix('!').map_or((false, m), |m| (true, m));
            let a: Attempt = m.parse().unwrap();
            let made = step(&mut g, &mut compiled, &mut rng, a, false, every, &mut seen);
            assert_eq!(made, !refused, "{what}: {m}");
            if made && g.referee.ending().is_none() {
                let _ = g.referee.end_period();
            }
        }
    }
    println!("{seen:?}");
    assert_eq!(seen.ends[1], 1, "the checkmate");
    assert_eq!(seen.ends[2], 1, "the stalemate");
    assert_eq!(seen.ends[4], 1, "the repetition");
    assert_eq!(seen.en_passant, 1);
    assert_eq!(seen.promotions, 1);
    assert_eq!(seen.castles, 1);
    assert_eq!(seen.codes[0], 1, "the castling across an attacked square");
}
