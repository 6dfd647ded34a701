//! Secret Stallmate between the two players alone (spec/GAMES.md §5.15) for tests: two
//! sessions, version 2 terms naming the test witness, and a table both seats' deciders
//! share that passes the computations' messages between them (as the nodes' stream
//! would) and chooses each mover's attempt. A hook may change any message before its
//! sender hashes and sends it, or the claims of any `Done`: the cheats.

use std::cell::RefCell;
use std::rc::Rc;

use sealed_games::chess::{Color, Square};
use sealed_games::stallmate::Attempt;
use sealed_games::stallmate::answer::Answer;
use sealed_games::stallmate::duo::acts::{self, Act, Done};
use sealed_games::stallmate::duo::item::{ending, to_item};
use sealed_games::stallmate::duo::{Duo, Owed, VARIANT, engine_name, sender};
use sealed_games::stallmate::peer::setup_name;
use sealed_games::stallmate::referee::Referee;
use sealed_games::stallmate::setup::Setup;
use sealed_mpc::play::game::{Black, Circuits, Outcome, White};
use sealed_mpc::play::record::{commitment, step_hash};
use sealed_protocol::hash::Hash;
use sealed_protocol::proposal::{Role, Terms, VERSION_2, WitnessSpec};
use sealed_protocol::session::{Command, Session};

use crate::forfeit_kit::witness;
use crate::pair::{DecideAt, Pair};
use crate::sim::{test_key, test_proposal};

/// Version 2 terms of a game between the test keys (White 0, Black 1), naming the test
/// witness, with an hour a move.
pub fn duo_terms(options: &[(&str, &str)], nonce: u8) -> Terms {
    let mut opts = options.to_vec();
    opts.push(("time-per-move", "1h"));
    let mut p = test_proposal(VARIANT, &opts, &[Role::Player, Role::Player], nonce);
    p.version = VERSION_2;
    p.witness = Some(WitnessSpec {
        key: witness().public().to_bytes(),
        addrs: vec![],
    });
    Terms::from_signed(p.sign(&test_key(0))).expect("valid terms")
}

/// A change to the message at a position, before its sender hashes it.
pub type Tamper = Box<dyn FnMut(u64, &mut Vec<u8>)>;
/// A change to a `Done`'s claims.
pub type Lie = Box<dyn FnMut(u64, &mut Done)>;
/// What a mover commits to in place of his attempt's commitment, by computation.
pub type Commit = Box<dyn FnMut(u64) -> Option<[u8; 32]>>;

/// What both seats' deciders share.
pub struct Table {
    /// Every message sent, by position.
    pub messages: Vec<Vec<u8>>,
    circuits: Circuits,
    /// The game in the clear, to choose attempts that make progress (the test's eye).
    referee: Option<Referee>,
    armies: [Option<Setup>; 2],
    white: Option<White>,
    black: Option<Black>,
    /// The committed attempt of the running computation.
    attempt: u16,
    /// A mover's commitment, as a cheat may make it: `None` commits honestly.
    pub commit_to: Option<Commit>,
    tries: u32,
    rng: u64,
    /// The cheats.
    pub tamper: Tamper,
    /// See [`Lie`].
    pub lie: Lie,
    /// Computations finished (each `Done` posted).
    pub computations: u64,
}

impl Table {
    /// A table whose attempts are drawn from `seed`.
    pub fn new(seed: u64) -> Rc<RefCell<Table>> {
        Rc::new(RefCell::new(Table {
            messages: vec![],
            circuits: Circuits::default(),
            referee: None,
            armies: [None, None],
            white: None,
            black: None,
            attempt: 0,
            commit_to: None,
            tries: 0,
            rng: seed | 1,
            tamper: Box::new(|_, _| {}),
            lie: Box::new(|_, _| {}),
            computations: 0,
        }))
    }

    fn below(&mut self, n: usize) -> usize {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        (self.rng % n as u64) as usize
    }

    /// The next attempt: often a legal move, sometimes "Any?" or two random squares.
    fn choose(&mut self) -> Attempt {
        let legal = self
            .referee
            .as_ref()
            .expect("set up")
            .position()
            .legal_moves();
        let roll = self.below(100);
        if self.tries >= 3 || roll < 60 {
            let m = &legal[self.below(legal.len())];
            Attempt::Move {
                from: m.from,
                to: m.to,
                promotion: m.promotion,
            }
        } else if roll < 70 {
            Attempt::Any
        } else {
            let mut sq = || Square::from_index(self.below(64) as u8).expect("a square");
            Attempt::Move {
                from: sq(),
                to: sq(),
                promotion: None,
            }
        }
    }

    /// What seat `color` does next in `s`, if it owes anything.
    fn decide(&mut self, color: Color, s: &Session<Duo>) -> Option<Command> {
        let state = s.engine().state()?;
        let owed = state.owed()?;
        let own = |name| s.own_setup_value(&name).map(|h| h.0);
        let options = sealed_games::stallmate::duo::item::mpc_options(&duo(s).options);
        // Each side starts from its own setups, once the coin seeds are known.
        let (Some(my_army), Some(my_seed)) = (own(setup_name()), own(engine_name())) else {
            return None;
        };
        let rank = Setup::from_seed(&my_army)
            .back_rank()
            .map(|k| k.idx() as u8);
        match color {
            Color::White if self.white.is_none() => {
                self.white = Some(White::new(my_seed, rank, options));
            }
            Color::Black if self.black.is_none() => {
                self.black = Some(Black::new(my_seed, rank, options));
            }
            _ => {}
        }
        let setup = Setup::from_seed(&my_army);
        self.armies[color.idx()] = Some(setup);
        if let (None, [Some(w), Some(b)]) = (&self.referee, self.armies) {
            self.referee = Some(Referee::new(w, b, duo(s).options));
        }
        let game = s.engine().terms().game().0.0;
        match owed {
            Owed::Attempt(mover) if mover == color => {
                self.referee.as_ref()?;
                let a = self.choose();
                self.attempt = to_item(&a);
                let honest = commitment(&my_seed, &game, state.computations, self.attempt);
                let c = match self.commit_to.as_mut() {
                    Some(f) => f(state.computations).unwrap_or(honest),
                    None => honest,
                };
                Some(Command::act(acts::encode(&Act::Attempt(Hash(c)))))
            }
            Owed::Step(i) if sender(i) == color => {
                if self.messages.len() as u64 != i {
                    return None;
                }
                // A message received that cannot be used: this side halts.
                let Some((mut bytes, done)) = self.message(color, i, state.to_move) else {
                    return Some(Command::act(acts::encode(&Act::Halt)));
                };
                (self.tamper)(i, &mut bytes);
                let hash = Hash(step_hash(&game, i, &bytes));
                self.messages.push(bytes);
                let act = match done {
                    Some(mut d) => {
                        d.hash = hash;
                        (self.lie)(self.computations, &mut d);
                        self.computations += 1;
                        Act::Done(d)
                    }
                    None => Act::Step(hash),
                };
                Some(Command::act(acts::encode(&act)))
            }
            _ => None,
        }
    }

    /// Message `i`, as side `color` makes it from what it has received; with what the
    /// computation told, for White's last message of one.
    fn message(&mut self, color: Color, i: u64, to_move: Color) -> Option<(Vec<u8>, Option<Done>)> {
        let prev = |t: &Table| t.messages.get(i as usize - 1).cloned().unwrap_or_default();
        let mine = |t: &Table| if to_move == color { t.attempt } else { 0 };
        if i == 0 {
            return Some((self.black.as_ref()?.base_message(), None));
        }
        if i == 1 {
            let e0 = prev(self);
            return Some((self.white.as_mut()?.base(&e0).ok()?, None));
        }
        let (k, p) = ((i - 2) / 4, (i - 2) % 4);
        let attempt = mine(self);
        let received = prev(self);
        let Table {
            circuits,
            white,
            black,
            ..
        } = self;
        match p {
            0 => {
                let b = black.as_mut()?;
                if k == 0 {
                    b.base_keys(&self.messages[1]).ok()?;
                } else {
                    b.finish(circuits, &received).ok()?;
                }
                Some((b.ask(circuits, attempt).ok()?, None))
            }
            1 => Some((
                white.as_mut()?.answer(circuits, &received, attempt).ok()?,
                None,
            )),
            2 => Some((black.as_mut()?.evaluate(circuits, &received).ok()?, None)),
            _ => {
                let (g2, outcome) = white.as_mut()?.decode(circuits, &received).ok()?;
                let done = match outcome {
                    Outcome::Started { .. } => Done {
                        hash: Hash::ZERO,
                        made: false,
                        capture: false,
                        ending: None,
                    },
                    Outcome::Attempt { made, answer } => Done {
                        hash: Hash::ZERO,
                        made,
                        capture: made && answer.capture,
                        ending: if made { ending(&answer) } else { None },
                    },
                };
                self.after(k);
                Some((g2, Some(done)))
            }
        }
    }

    /// The test's eye follows the game in the clear.
    fn after(&mut self, k: u64) {
        if k == 0 {
            return;
        }
        let a = sealed_games::stallmate::duo::item::from_item(self.attempt).expect("an attempt");
        let r = self.referee.as_mut().expect("set up");
        // After a lie the game in the clear may have ended: the eye stops following.
        let Ok(answer) = r.attempt(a) else {
            return;
        };
        if matches!(answer, Answer::Yes(_)) {
            let _ = r.end_period();
            self.tries = 0;
        } else {
            self.tries += 1;
        }
    }
}

fn duo(s: &Session<Duo>) -> &Duo {
    s.engine().rules()
}

/// The two seats' deciders over one table.
pub fn deciders(table: &Rc<RefCell<Table>>) -> Vec<DecideAt<Duo>> {
    [Color::White, Color::Black]
        .into_iter()
        .map(|c| {
            let t = table.clone();
            Box::new(move |s: &Session<Duo>, _now| {
                let mut t = t.borrow_mut();
                t.decide(c, s)
            }) as DecideAt<Duo>
        })
        .collect()
}

/// Whether both seats are done.
pub fn all_done(p: &Pair<Duo>) -> bool {
    p.sessions
        .iter()
        .all(|s| matches!(s.phase(), sealed_protocol::session::Phase::Done(_)))
}

/// Plays a game of at most `plies` moves with the table `rig` prepares (cheats), until
/// both seats are done or nothing more happens; gives the seats and the table.
pub fn play(
    plies: u32,
    seed: u64,
    rig: impl FnOnce(&mut Table),
) -> (Pair<Duo>, Rc<RefCell<Table>>) {
    let limit = plies.to_string();
    let terms = duo_terms(&[("ply-limit", limit.as_str())], seed as u8);
    let mut p = Pair::<Duo>::new(terms, seed);
    let table = Table::new(seed);
    rig(&mut table.borrow_mut());
    let mut d = deciders(&table);
    p.run_clocked(&mut d, 50, all_done);
    (p, table)
}
