//! Secret Stallmate between the two players alone (spec/GAMES.md §5.15) for tests: two
//! sessions, version 2 terms naming the test witness, and a table both seats' deciders
//! share that passes the computations' messages between them (as the nodes' stream
//! would) and chooses each mover's attempt. A hook may change any message before its
//! sender hashes and sends it, or the claims of any `Done`: the cheats.
//!
//! A little over 600 lines on purpose: every cheat (a message changed, a `Done` that
//! lies, a commitment, a withheld message and its deposit) is a hook on the one honest
//! table that makes both sides' messages, so that each cheat differs from the honest
//! game in exactly one place.

use std::cell::RefCell;
use std::rc::Rc;

use sealed_games::chess::{Color, Square};
use sealed_games::stallmate::Attempt;
use sealed_games::stallmate::answer::Answer;
use sealed_games::stallmate::duo::acts::{self, Act, Done};
use sealed_games::stallmate::duo::item::to_item;
use sealed_games::stallmate::duo::player::{self, claims};
use sealed_games::stallmate::duo::posted::Posted;
use sealed_games::stallmate::duo::{CIRCUITS, Duo, Owed, VARIANT, engine_name, sender};
use sealed_games::stallmate::peer::setup_name;
use sealed_games::stallmate::referee::Referee;
use sealed_games::stallmate::setup::Setup;
use sealed_mpc::chain::files::MANIFEST_SHA256;
use sealed_mpc::play::game::{Black, White};
use sealed_mpc::play::record::{commitment, step_hash};
use sealed_protocol::deposit::{open_within, seal};
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::Seat;
use sealed_protocol::proposal::{Role, Terms, VERSION_2, WitnessSpec};
use sealed_protocol::rules::Rules;
use sealed_protocol::session::{Command, Session};
use sealed_protocol::witness::{Stamp, Statement};

use crate::forfeit_kit::{HOUR, proof, signed, witness};
use crate::pair::{DecideAt, Pace, Pair};
use crate::sim::{test_key, test_proposal};

/// Version 2 terms of a game between the test keys (White 0, Black 1), naming the test
/// witness and this build's circuit files, with an hour a move.
pub fn duo_terms(options: &[(&str, &str)], nonce: u8) -> Terms {
    let mut opts = options.to_vec();
    opts.push((CIRCUITS, MANIFEST_SHA256));
    duo_terms_as_given(&opts, nonce)
}

/// [`duo_terms`] with no circuit files named but those `options` name.
pub fn duo_terms_as_given(options: &[(&str, &str)], nonce: u8) -> Terms {
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

/// What the sender of a withheld message leaves with the witness once its receiver says
/// he lacks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deposit {
    /// The message, sealed to the receiver.
    Honest,
    /// Other bytes, sealed to the receiver.
    Other,
    /// The message, sealed to the sender himself: the receiver cannot open it.
    ToHimself,
    /// Nothing: the sender lets his time pass.
    Never,
}

/// What both seats' deciders share.
pub struct Table {
    /// Every message sent, by position.
    pub messages: Vec<Vec<u8>>,
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
    /// Every attempt committed to, in order, as its item.
    pub attempts: Vec<u16>,
    /// The position of a message whose sender halts instead of sending it, for no
    /// reason: a halt of an honest game.
    pub halt_at: Option<u64>,
    /// The last `Done` White posted, as Black reads it from the public acts.
    last_done: Option<Done>,
    /// Computations whose G2 Black has read.
    black_read: u64,
    /// Whether Black found a `Done` that says what his G2 did not: he halts.
    black_halts: bool,
    /// The position of a message whose sender signs its hash but never sends the bytes:
    /// its receiver has it only from the witness.
    pub withhold: Option<u64>,
    /// What that sender leaves with the witness.
    pub deposit: Deposit,
    /// The deposit the witness holds, if one was left.
    held: Option<Vec<u8>>,
    /// Whether the receiver has the withheld message (opened from the witness).
    fetched: bool,
}

impl Table {
    /// A table whose attempts are drawn from `seed`.
    pub fn new(seed: u64) -> Rc<RefCell<Table>> {
        Rc::new(RefCell::new(Table {
            messages: vec![],
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
            attempts: vec![],
            halt_at: None,
            last_done: None,
            black_read: 0,
            black_halts: false,
            withhold: None,
            deposit: Deposit::Honest,
            held: None,
            fetched: false,
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

    /// Whether `color` lacks message `i`: it was withheld from him and he has not opened
    /// it from the witness.
    fn lacks(&self, color: Color, i: u64) -> bool {
        self.withhold == Some(i) && sender(i) != color && !self.fetched
    }

    /// The receiver of a withheld message, owing the next act: says he lacks it, or once
    /// its deposit is posted, opens it from the witness — or halts if it is not the
    /// message whose hash was signed.
    fn lacking(&mut self, color: Color, s: &Session<Duo>) -> Option<Command> {
        let state = s.engine().state()?;
        let owed = state.owed()?;
        let last = state.steps.checked_sub(1)?;
        let mine = s.engine().rules().to_act(state) == Some(s.seat());
        if !mine || !matches!(owed, Owed::Attempt(_) | Owed::Step(_)) || !self.lacks(color, last) {
            return None;
        }
        if state.lackable(owed) == Some(last) {
            return Some(Command::act(acts::encode(&Act::Lacking)));
        }
        let game = s.engine().terms().game();
        let posted = Posted::of_engine(s.engine()).hash(last)?;
        let opened = self
            .held
            .as_ref()
            .and_then(|d| open_within(game, d, &test_key(s.seat().0), player::MAX_MESSAGE + 32));
        match opened {
            Some(bytes) if step_hash(&game.0.0, last, &bytes) == posted => {
                self.fetched = true;
                None
            }
            _ => Some(Command::act(acts::encode(&Act::Halt))),
        }
    }

    /// The sender of a lacked message leaves it with the witness, as the rig says.
    fn deposit(&mut self, s: &Session<Duo>, i: u64, now: u64) -> Option<Command> {
        let game = s.engine().terms().game();
        let me = s.seat();
        let to = test_key(1 - me.0).public();
        let message = self.messages.get(i as usize)?.clone();
        let d = match self.deposit {
            Deposit::Honest => seal(game, &message, &to),
            Deposit::Other => seal(game, b"not the message", &to),
            Deposit::ToHimself => seal(game, &message, &test_key(me.0).public()),
            Deposit::Never => return None,
        };
        let stamp = Statement::Stamp(Stamp {
            game,
            deposit: d.hash,
            at: now,
        })
        .sign(&witness())
        .to_bytes();
        self.held = Some(d.bytes);
        Some(Command::act(acts::encode(&Act::Deposited(stamp))))
    }

    /// What seat `color` does next in `s`, if it owes anything.
    fn decide(&mut self, color: Color, s: &Session<Duo>, now: u64) -> Option<Command> {
        if let Some(c) = self.lacking(color, s) {
            return Some(c);
        }
        let state = s.engine().state()?;
        let owed = state.owed()?;
        let own = |name| s.own_setup_value(&name).map(|h| h.0);
        let options = sealed_games::stallmate::duo::item::mpc_options(&duo(s).options);
        // Each side starts from its own setups, once the coin seeds are known.
        let (Some(my_army), Some(my_seed)) = (own(setup_name()), own(engine_name())) else {
            return None;
        };
        let rank = sealed_games::stallmate::duo::item::rank(Setup::from_seed(&my_army));
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
        if color == Color::Black {
            self.black_reads();
            let running = matches!(owed, Owed::Attempt(_) | Owed::Step(_));
            if self.black_halts && running && s.engine().rules().to_act(state) == Some(s.seat()) {
                return Some(Command::act(acts::encode(&Act::Halt)));
            }
        }
        match owed {
            Owed::Attempt(mover) if mover == color => {
                self.referee.as_ref()?;
                let a = self.choose();
                self.attempt = to_item(&a);
                self.attempts.push(self.attempt);
                let honest = commitment(&my_seed, &game, state.computations, self.attempt);
                let c = match self.commit_to.as_mut() {
                    Some(f) => f(state.computations).unwrap_or(honest),
                    None => honest,
                };
                Some(Command::act(acts::encode(&Act::Attempt(Hash(c)))))
            }
            Owed::Step(i) if sender(i) == color => {
                if self.messages.len() as u64 != i
                    || i.checked_sub(1).is_some_and(|l| self.lacks(color, l))
                {
                    return None;
                }
                if self.halt_at == Some(i) {
                    return Some(Command::act(acts::encode(&Act::Halt)));
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
                        self.last_done = Some(d);
                        self.computations += 1;
                        Act::Done(d)
                    }
                    None => Act::Step(hash),
                };
                Some(Command::act(acts::encode(&act)))
            }
            // Each player opens his setups once the game has ended; the session puts
            // them in the act's envelope.
            Owed::Open(c) if c == color => Some(Command::act(acts::encode(&Act::Open))),
            Owed::Deposit(i) if sender(i) == color => self.deposit(s, i, now),
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
        let circuits = sealed_games::stallmate::duo::circuits().ok()?;
        let Table { white, black, .. } = self;
        match p {
            0 => {
                let b = black.as_mut()?;
                if k == 0 {
                    b.base_keys(&self.messages[1]).ok()?;
                }
                Some((b.ask(attempt).ok()?, None))
            }
            1 => Some((
                white.as_mut()?.answer(circuits, &received, attempt).ok()?,
                None,
            )),
            2 => Some((black.as_mut()?.evaluate(circuits, &received).ok()?, None)),
            _ => {
                let (g2, outcome) = white.as_mut()?.decode(&received).ok()?;
                let (made, capture, ending) = claims(&outcome);
                let done = Done {
                    hash: Hash::ZERO,
                    made,
                    capture,
                    ending,
                };
                self.after(k);
                Some((g2, Some(done)))
            }
        }
    }

    /// Black reads each computation's G2 as soon as it is posted, and holds White's
    /// `Done` against it: what the computation told him must be what White said.
    fn black_reads(&mut self) {
        if self.black_halts || self.black_read >= self.computations {
            return;
        }
        let g2 = (2 + 4 * self.black_read + 3) as usize;
        if self.lacks(Color::Black, g2 as u64) {
            return;
        }
        let Some(bytes) = self.messages.get(g2).cloned() else {
            return;
        };
        self.black_read += 1;
        let Some(outcome) = self.black.as_mut().and_then(|b| b.finish(&bytes).ok()) else {
            self.black_halts = true;
            return;
        };
        let told = claims(&outcome);
        let said = self.last_done.map(|d| (d.made, d.capture, d.ending));
        if said != Some(told) {
            self.black_halts = true;
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
            Box::new(move |s: &Session<Duo>, now| {
                let mut t = t.borrow_mut();
                t.decide(c, s, now)
            }) as DecideAt<Duo>
        })
        .collect()
}

/// Whether both seats are done.
pub fn all_done(p: &Pair<Duo>) -> bool {
    p.sessions.iter().all(|s| s.phase().is_done())
}

/// Plays a game of at most `plies` moves with the table `rig` prepares (cheats), until
/// both seats are done or nothing more happens; gives the seats and the table.
pub fn play(
    plies: u32,
    seed: u64,
    rig: impl FnOnce(&mut Table),
) -> (Pair<Duo>, Rc<RefCell<Table>>) {
    play_until(plies, seed, rig, |_| {}, all_done)
}

/// As [`play`], with the pair prepared first (a seat that withholds, say), until `stop`.
pub fn play_until(
    plies: u32,
    seed: u64,
    rig: impl FnOnce(&mut Table),
    prepare: impl FnOnce(&mut Pair<Duo>),
    stop: impl FnMut(&Pair<Duo>) -> bool,
) -> (Pair<Duo>, Rc<RefCell<Table>>) {
    let limit = plies.to_string();
    let terms = duo_terms(&[("ply-limit", limit.as_str())], seed as u8);
    let mut p = Pair::<Duo>::new(terms, seed);
    prepare(&mut p);
    let table = Table::new(seed);
    rig(&mut table.borrow_mut());
    let mut d = deciders(&table);
    p.run_clocked(&mut d, 50, stop);
    (p, table)
}

/// The acts of the computations made so far in `s`'s view: messages and commitments.
pub fn acts_made(s: &Session<Duo>) -> u64 {
    s.engine().state().map_or(0, |st| {
        st.steps + st.computations.saturating_sub(1) + u64::from(st.committed)
    })
}

/// Plays until `cut` acts of the computations are made in both seats' views; then the
/// seat that owes the next one goes silent for good (its reveals too), and an hour and a
/// second later the other posts a forfeit with the witness's proof. Runs out; gives the
/// seats and who walked away.
pub fn walk_away(cut: u64, seed: u64) -> (Pair<Duo>, Seat) {
    walk_away_when(seed, 6, |s| acts_made(s) == cut)
}

/// Plays a game of at most `plies` moves until the first moment `at` holds in the view of
/// the seat that is to act, just before it acts (everything before delivered); gives the
/// seats, the deciders and that seat.
pub fn reach(
    seed: u64,
    plies: u32,
    at: impl Fn(&Session<Duo>) -> bool,
) -> (Pair<Duo>, Vec<DecideAt<Duo>>, Seat) {
    reach_rigged(seed, plies, |_| {}, at)
}

/// As [`reach`], with the table `rig` prepares (cheats).
pub fn reach_rigged(
    seed: u64,
    plies: u32,
    rig: impl FnOnce(&mut Table),
    at: impl Fn(&Session<Duo>) -> bool,
) -> (Pair<Duo>, Vec<DecideAt<Duo>>, Seat) {
    let limit = plies.to_string();
    let terms = duo_terms(&[("ply-limit", limit.as_str())], seed as u8);
    let mut p = Pair::<Duo>::new(terms, seed);
    let table = Table::new(seed);
    rig(&mut table.borrow_mut());
    let mut d = deciders(&table);
    // One act a seat a round, so that the run stops just before the seat that owes
    // the act makes it (everything before it delivered).
    let about_to = |s: &Session<Duo>| {
        s.engine()
            .state()
            .is_some_and(|st| at(s) && s.engine().rules().to_act(st) == Some(s.seat()))
    };
    let reached = p.rounds(
        2,
        |i, s, now| d.get_mut(i).and_then(|d| d(s, now)),
        Pace::Once,
        |p| p.sessions.iter().any(about_to),
    );
    assert!(reached, "the game reached the act asked for");
    let walker = p
        .sessions
        .iter()
        .find(|s| about_to(s))
        .expect("found")
        .seat();
    (p, d, walker)
}

/// As [`walk_away`], at the first moment `at` holds in the view of the seat that is to
/// act (with a game of at most `plies` moves).
pub fn walk_away_when(
    seed: u64,
    plies: u32,
    at: impl Fn(&Session<Duo>) -> bool,
) -> (Pair<Duo>, Seat) {
    walk_away_rigged(seed, plies, |_| {}, at)
}

/// As [`walk_away_when`], with the table `rig` prepares (cheats).
pub fn walk_away_rigged(
    seed: u64,
    plies: u32,
    rig: impl FnOnce(&mut Table),
    at: impl Fn(&Session<Duo>) -> bool,
) -> (Pair<Duo>, Seat) {
    let (mut p, mut d, walker) = reach_rigged(seed, plies, rig, at);
    let other = Seat(1 - walker.0);
    assert_eq!(
        acts_made(&p.sessions[other.index()]),
        acts_made(&p.sessions[walker.index()]),
        "the other holds every act before"
    );
    p.silence(walker);
    p.withhold.push(walker);
    let statements = signed(&proof(&p, other, HOUR + 1_000), &witness());
    p.sessions[other.index()]
        .handle_command(
            Command::Forfeit(sealed_protocol::body::Forfeit {
                against: walker,
                statements,
            }),
            p.now,
        )
        .expect("the forfeit stands");
    p.run_clocked(&mut d, 50, |p| {
        p.sessions[other.index()].engine().is_over() && all_done_for(p, other)
    });
    (p, walker)
}

/// Whether seat `s` is done.
pub fn all_done_for(p: &Pair<Duo>, s: Seat) -> bool {
    matches!(
        p.sessions[s.index()].phase(),
        sealed_protocol::session::Phase::Done(_)
    )
}

/// transcript-stallmate-duo.json (and the bytes of stallmate-duo-game.sealed): a whole
/// Secret Stallmate without a referee (ply limit 4) between the test keys, every attempt
/// computed by the two; with each player's revealed engine seed and the attempts their
/// commitments open to, for a second implementation's audit (spec/GAMES.md §5.15).
pub fn duo_transcript() -> (serde_json::Value, Vec<u8>) {
    let (p, table) = play(4, 5, |_| {});
    let bytes = p.transcript(Seat(0));
    let checked = sealed_games::variant::check_transcript(&bytes).expect("readable");
    let o = checked.verdict.outcome.clone().expect("finished");
    let e = p.sessions[0].engine();
    let seed = |s: u8| {
        e.setup_value(Seat(s), &engine_name())
            .expect("revealed")
            .to_hex()
    };
    let t = table.borrow();
    let value = serde_json::json!({
        "description": "a complete Secret Stallmate without a referee (stallmate-duo, ply-limit 4, time-per-move 1h, a witness named) between the test keys: White seat 0 garbles, Black seat 1 evaluates; seeded random attempts; the same bytes as stallmate-duo-game.sealed",
        "file": "stallmate-duo-game.sealed",
        "bytes": hex::encode(&bytes),
        "verdict": crate::vectors::verdict_json(&checked, &o),
        "engine_seeds": [seed(0), seed(1)],
        "attempts": t.attempts,
        "messages": t.messages.len(),
    });
    (value, bytes)
}
