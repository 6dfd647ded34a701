//! The game-agnostic table, for every variant: the tables of every seat (two, or three
//! with Secret Stallmate's referee) wired directly play whole games by bot and by typed
//! notation; bad input is refused with a reason and changes nothing; a table restored
//! from its secrets and envelopes finishes the game exactly as the original would; sync
//! sends exactly what the other side lacks and may see; every view works in every
//! phase; and the score each table writes replays to its final board.

use std::collections::BTreeSet;

use sealed_conformance::pair::{Lockstep, Pace};
use sealed_conformance::peer::Peer;

use sealed_games::cardmate::{self, Cardmate};
use sealed_games::chex::{self, engine as chex_engine};
use sealed_games::stallmate::acts::{self as stallmate_acts, Private};
use sealed_games::stallmate::peer::Stallmate;
use sealed_games::table::{self, Ask, Table, TableError};
use sealed_games::variant::{Variant, check_transcript};
use sealed_protocol::envelope::Signed;
use sealed_protocol::ids::{ChainId, LogId, Name, Seat};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::outcome::SeatResult;
use sealed_protocol::proposal::{Proposal, Role, SeatSpec, Terms, VERSION};
use sealed_protocol::rules::Rules;
use sealed_protocol::session::{Action, Command, SessionError};
use sealed_protocol::verdict::Status;
use sealed_protocol::wire;

fn key(seat: usize) -> SecretKey {
    SecretKey::from_seed(&[seat as u8 + 1; 32])
}

/// The variant played with a referee seat, whose move periods end by time.
const STALLMATE: &str = "stallmate";

/// Options that make every bot game end: Duel ends after its cards, the others by a
/// ply limit. Cardmate's are given out of order on purpose: `propose` sorts them.
/// Stallmate's periods are short, so a game's virtual time stays small.
fn options(variant: &str) -> Vec<(String, String)> {
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

fn terms(variant: &str, nonce: u8) -> Terms {
    terms_with(variant, &options(variant), nonce)
}

fn terms_with(variant: &str, options: &[(String, String)], nonce: u8) -> Terms {
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

fn entropy(seat: usize, nonce: u8) -> [u8; 32] {
    let mut e = [nonce; 32];
    e[0] = 0xE0 + seat as u8;
    e
}

/// A deterministic pick for a step and a seat (splitmix64).
fn pick(step: u64, seat: usize) -> u64 {
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
enum Mode {
    /// The bot's command as it is.
    Bot,
    /// The bot's command written in the game's notation and parsed back, with bad
    /// input tried first at every step.
    Typed,
}

/// Stallmate's move period in the tests.
const PERIOD: &str = "50ms";

/// How rounds advance: for games that only messages move on, until nothing moves; for
/// Stallmate, whose referee closes each period at its fixed end, an idle round lets a
/// fifth of a period pass, so a period ends within a few idle rounds.
fn pace(variant: &str) -> Pace {
    if variant == STALLMATE {
        Pace::Clocked(10)
    } else {
        Pace::Once
    }
}

/// One seat's table in the lock-step harness, with the checks every delivery gets:
/// whom each envelope goes to, that an honest envelope is never refused.
struct Checked {
    table: Box<dyn Table>,
    terms: Terms,
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
        self.table.handle_command(cmd, now)
    }

    fn poll_action(&mut self) -> Option<Action> {
        let a = self.table.poll_action();
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
    fn check_recipients(&self, bytes: &[u8], to: &[Seat]) {
        let me = self.table.seat();
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
        } else if ["terms", "commit", "coin reveal", "play"].contains(&self.table.phase()) {
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
struct Net {
    variant: &'static str,
    terms: Terms,
    net: Lockstep<Checked>,
    step: u64,
    pace: Pace,
    phases: BTreeSet<&'static str>,
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
    fn new(variant: &'static str, nonce: u8) -> Net {
        Net::with_terms(variant, terms(variant, nonce), nonce)
    }

    fn with_terms(variant: &'static str, terms: Terms, nonce: u8) -> Net {
        let tables: Vec<Checked> = terms
            .seats()
            .map(|s| {
                let i = s.index();
                Checked {
                    table: table::open(terms.clone(), key(i), entropy(i, nonce), 0).expect("open"),
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
    fn command(&mut self, i: usize, cmd: Command) -> Result<(), SessionError> {
        let now = self.now;
        self.sessions[i].table.handle_command(cmd, now)
    }

    /// An envelope for seat `i`, now.
    fn envelope(&mut self, i: usize, bytes: &[u8]) -> Result<(), SessionError> {
        let now = self.now;
        Peer::handle_envelope(&mut self.sessions[i], bytes, now)
    }

    fn all_done(&self) -> bool {
        self.sessions.iter().all(|t| t.is_done())
    }

    /// Delivers every envelope sent until nothing more is sent.
    fn pump(&mut self) {
        self.deliver_all();
    }

    /// One round of the harness (see [`Net`]), after the checks every round gets: every
    /// view of every table, and in typed mode bad input refused and the others
    /// refusing what a seat may play now. Returns whether anything moved.
    fn step(&mut self, mode: Mode) -> bool {
        self.step += 1;
        let step = self.step;
        for t in &self.net.sessions {
            check_views(t.as_ref(), self.variant);
            self.phases.insert(t.phase());
            let bot = t.bot_action(pick(step, t.seat().index()));
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
                assert!(duties[i] < 64, "endless duties:\n{}", t.show_text());
                assert!(
                    cmd != Command::Accept,
                    "accepting is a decision, not a duty"
                );
                return Some(cmd);
            }
            let cmd = t.bot_action(pick(step, i))?;
            assert!(t.my_turn(), "the bot acts only on its turn");
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
    fn run(&mut self, mode: Mode) {
        for _ in 0..20_000 {
            if !self.step(mode) && (self.pace == Pace::Once || self.all_done()) {
                break;
            }
        }
        for t in &self.sessions {
            assert!(t.is_done(), "not done:\n{}", t.show_text());
            check_views(t.as_ref(), self.variant);
        }
    }

    fn run_until(&mut self, mode: Mode, stop: impl Fn(&Net) -> bool) {
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

/// Every choice a board would offer is an act the table takes: its text parses (a
/// choice that asks one more thing has its blank), the generic words are among them,
/// and what the bot would do is one of them (unless it needs an answer the list leaves
/// to the player: a Tempête trap square, discards, a start card's play).
fn check_choices(t: &dyn Table, bot: Option<&Command>) {
    let choices = t.choices();
    assert_eq!(
        serde_json::to_value(&choices).unwrap(),
        t.show_json()["choices"]
    );
    let mut parsed = vec![];
    // A plain move, to follow a start card.
    let play = choices
        .iter()
        .find(|c| c.ask.is_none() && c.from.is_some() && !c.words.contains("card"))
        .map(|c| c.text.clone());
    for c in &choices {
        if let Some(ask) = &c.ask {
            assert!(c.text.contains("{}"), "{c:?}");
            let answer = match ask {
                Ask::Square { .. } => Some("e4".to_owned()),
                Ask::Play => play.clone(),
                Ask::Cards { count, .. } => {
                    // Other cards of the hand than the one played (`card N …`).
                    let played = c.text.split_whitespace().nth(1).unwrap_or_default();
                    let hand = t.show_json()["hand"]["cards"].clone();
                    let others: Vec<String> = hand
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|c| c["card"].to_string())
                        .filter(|n| n != played)
                        .take(usize::from(*count))
                        .collect();
                    Some(others.join(" "))
                }
            };
            if let Some(a) = answer {
                let text = c.text.replace("{}", &a);
                if let Err(e) = t.parse_action(&text) {
                    panic!("{text:?} ({c:?}) is refused: {e}\n{}", t.show_text());
                }
            }
            continue;
        }
        match t.parse_action(&c.text) {
            Ok(cmd) => parsed.push(cmd),
            Err(e) => panic!("{c:?} is refused: {e}\n{}", t.show_text()),
        }
    }
    let actions = t.show_json()["actions"].clone();
    for word in ["resign", "offer draw", "accept draw", "accept", "decline"] {
        if actions.as_array().unwrap().iter().any(|a| a == word) {
            assert!(choices.iter().any(|c| c.text == word), "{word}");
        }
    }
    let Some(cmd) = bot else { return };
    let asks = match cmd {
        Command::Act {
            act,
            open_slots,
            commit_values,
            ..
        } if t.variant() == "tempete" => {
            use sealed_games::tempete::act::{Act, CardRef};
            let act: Act = wire::decode(act, 256).expect("the bot's act");
            // The typed notation names a card by its number: a card taken from the
            // opponent that one also holds is written as the one held.
            let taken = matches!(&act, Act::Turn { card: Some(u), .. } if matches!(u.card, CardRef::Taken(_)));
            let asked = matches!(&act, Act::Turn { discard, start, .. } if !discard.is_empty() || start.is_some());
            taken || asked || !commit_values.is_empty() || open_slots.len() > 1
        }
        _ => false,
    };
    if !asks {
        assert!(
            parsed.contains(cmd),
            "the bot's {cmd:?} is not among the choices {choices:?}\n{}",
            t.show_text()
        );
    }
}

/// What seat `t` may play now is out of turn for the others (for a referee too: he
/// acts in public, but the move is the mover's).
fn refused_by_the_others(tables: &[Checked], t: &dyn Table, cmd: &Command) {
    if *cmd == Command::Accept {
        return;
    }
    for other in tables.iter().filter(|o| o.seat() != t.seat()) {
        if other.phase() == "play" && other.to_act() == Some(t.seat()) {
            for text in written(t, cmd) {
                let err = refused(other.as_ref(), &text);
                assert!(err.contains("not your turn"), "{text}: {err}");
            }
        }
    }
}

/// Writes the bot's command in the game's notation, checks every way of writing it
/// parses back to it, and takes the first.
fn typed(t: &dyn Table, cmd: Command) -> Command {
    let texts = if cmd == Command::Accept {
        vec!["accept".to_owned(), "  ACCEPT ".to_owned()]
    } else {
        written(t, &cmd)
    };
    for text in &texts {
        assert_eq!(
            t.parse_action(text).as_ref(),
            Ok(&cmd),
            "{text:?} in\n{}",
            t.show_text()
        );
    }
    t.parse_action(&texts[0]).expect("parsed")
}

/// Who sees a Stallmate log while the game is on.
fn audience(terms: &Terms, log: LogId) -> Vec<Seat> {
    Stallmate::from_terms(terms)
        .expect("stallmate terms")
        .audience(log)
        .unwrap_or_default()
}

/// Stallmate's referee seat.
fn is_referee(t: &dyn Table) -> bool {
    t.variant() == STALLMATE && t.seat() == Seat(2)
}

/// Every view works, agrees with the accessors and keeps its documented shape.
fn check_views(t: &dyn Table, variant: &str) {
    let text = t.show_text();
    assert!(text.starts_with(variant), "{text}");
    assert!(text.contains(&t.waiting_for()), "{text}");
    let j = t.show_json();
    assert_eq!(j["variant"], variant);
    assert_eq!(j["game"], t.game().0.to_hex());
    assert_eq!(j["seat"], t.seat().0);
    assert_eq!(j["phase"], t.phase());
    assert_eq!(j["ply"], t.ply());
    assert_eq!(j["to_act"], serde_json::json!(t.to_act().map(|s| s.0)));
    assert_eq!(j["my_turn"], t.my_turn());
    assert_eq!(j["waiting_for"], t.waiting_for());
    assert!(j["actions"].is_array());
    assert!(j["draw_offered"].is_boolean());
    assert!(j["board"].is_string());
    assert!(j["verdict"]["status"].is_string(), "{j}");
    match variant {
        "duel" => {
            assert!(j["side"].is_null());
            assert!(j["hand"]["cards"].is_array());
            assert_eq!(t.svg(), None);
        }
        "cardmate" => {
            assert_eq!(j["side"], ["Forehand", "Rearhand"][t.seat().index()]);
            assert!(j["hand"].is_null());
        }
        STALLMATE => check_stallmate_views(t, &j),
        _ => {
            assert_eq!(j["side"], ["White", "Black"][t.seat().index()]);
        }
    }
    if variant != "duel" && variant != STALLMATE && t.score().is_some() {
        assert!(t.svg().expect("a board once started").starts_with("<svg"));
        if variant == "chex" {
            assert!(j["hand"]["stacks"]["white"]["text"].is_string(), "{j}");
        }
    }
    // A bot acts exactly when the seat must decide.
    assert_eq!(t.my_turn(), t.bot_action(3).is_some(), "{text}");
    if t.my_turn() {
        assert!(t.waiting_for().starts_with("you:"), "{}", t.waiting_for());
    } else if t.phase() == "play"
        && let Some(other) = t.to_act().filter(|s| *s != t.seat())
    {
        let w = t.waiting_for();
        if variant == STALLMATE {
            // Not checked for Stallmate: its waiting line names the public actor, the
            // referee ("seat 2 is to act"), even on a player's table while the other
            // player's period runs and on the referee's own, where `to_act` and the
            // header name the mover (reported as a view inconsistency).
            assert!(w.starts_with("waiting: "), "{w}");
        } else {
            assert!(w.contains(&format!("{other} is to act")), "{w}");
        }
    }
    if let Some(score) = t.score() {
        Variant::parse(variant)
            .unwrap()
            .replay(&score)
            .unwrap_or_else(|e| panic!("{e}\n{score}"));
    }
}

/// What only Stallmate's views promise: the referee never has a turn; a player's
/// `to_act` is the mover of the open period; only a seat that knows both armies (the
/// referee, or anyone once the game is over and everything is published) writes a
/// score or PGN; there is no SVG.
fn check_stallmate_views(t: &dyn Table, j: &serde_json::Value) {
    let text = t.show_text();
    assert_eq!(j["side"], ["White", "Black", "Referee"][t.seat().index()]);
    assert_eq!(t.svg(), None);
    assert_eq!(t.pgn().is_some(), t.score().is_some(), "{text}");
    if let Some(pgn) = t.pgn() {
        assert!(pgn.starts_with("[Event \"sealed game\"]"), "{pgn}");
    }
    let army = &j["hand"]["army"];
    if t.phase() == "play" {
        // The referee starts the clock (the first public act); from then on the
        // mover of the open period is to act, though in public only the referee acts.
        let mover = if t.ply() == 0 { 2 } else { (t.ply() - 1) % 2 };
        assert_eq!(t.to_act(), Some(Seat(mover as u8)), "{text}");
        // The opponent's army is hidden from a player until the game is over.
        if is_referee(t) {
            assert!(army.is_null(), "{j}");
            assert_eq!(t.score().is_some(), t.ply() > 0, "{text}");
        } else {
            assert_eq!(t.score(), None, "{text}");
            if t.my_turn() {
                assert!(army.is_string(), "{j}");
            }
        }
    }
    if is_referee(t) && t.phase() != "terms" {
        assert!(!t.my_turn(), "{text}");
    }
    if t.is_done() && !t.verdict().declined {
        assert!(t.score().is_some(), "{text}");
    }
}

/// Every way the game's own writers put the command `cmd` of table `t`.
fn written(t: &dyn Table, cmd: &Command) -> Vec<String> {
    if t.variant() == STALLMATE {
        // An attempt goes to the period's private log, written as `Attempt` shows it
        // (`e2-e4`, `e7-e8=Q`, `e1-h1`, `any?`), or in the reader's looser forms.
        let Command::PrivateAct { act, .. } = cmd else {
            panic!("not an attempt: {cmd:?}");
        };
        let Ok(Private::Attempt(attempt)) = stallmate_acts::decode::<Private>(act) else {
            panic!("not an attempt: {cmd:?}");
        };
        let text = attempt.to_string();
        let squeezed = text.replace(['-', '='], "").replace('?', "");
        return vec![text.clone(), text.to_uppercase(), format!("  {squeezed} ")];
    }
    let Command::Act {
        act,
        open_slots,
        commit_values,
        ..
    } = cmd
    else {
        panic!("not an act: {cmd:?}");
    };
    let score = t.score().expect("started");
    match t.variant() {
        "tempete" => {
            use sealed_games::tempete::act::{Act, CardRef};
            let hand = t.show_json()["hand"]["cards"].clone();
            let number = |r: CardRef| match r {
                CardRef::Slot(slot) => hand.as_array()?.iter().find(|c| c["slot"] == slot)?["card"]
                    .as_u64()
                    .map(|n| n as u32),
                CardRef::Taken(n) => Some(n),
                CardRef::Again => None,
            };
            let trap = commit_values
                .first()
                .and_then(|(_, _, v)| sealed_games::chess::Square::from_index(v[0]));
            let act: Act = wire::decode(act, 256).unwrap();
            let text = sealed_games::tempete::command::write(&act, &number, trap)
                .unwrap_or_else(|| panic!("{act:?} cannot be written"));
            vec![text.clone(), format!("  {text} ")]
        }
        "duel" => {
            let slot = open_slots[0].1;
            let j = t.show_json();
            let card = j["hand"]["cards"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["slot"] == slot)
                .expect("the slot is in hand")["card"]
                .clone();
            vec![
                format!("play {card}"),
                card.to_string(),
                format!("PLAY  {card} "),
            ]
        }
        "cardmate" => {
            let opts = Cardmate::from_terms(t.terms()).unwrap().options;
            let (pos, _) = cardmate::replay_score(&score).unwrap();
            let act: cardmate::Act = wire::decode(act, 16).unwrap();
            let m = pos
                .legal_moves(&opts)
                .into_iter()
                .find(|m| cardmate::Act::of(m) == act)
                .expect("a legal move");
            let mut next = pos.clone();
            let mark = next.play_unchecked(&m, &opts);
            let text = cardmate::write_move(&m, mark);
            // As a player reading Rearhand's lower-case cards off the board may type it.
            vec![text.clone(), text.to_lowercase()]
        }
        _ => {
            // The score replays the whole plies: a drawn piece is not on it yet, so
            // its frame is the one the placement is written in.
            let (pos, _) = chex_engine::replay_score(&score).unwrap();
            let frame = chex_engine::Frame::of(&pos.board);
            match wire::decode::<chex::Act>(act, 32).unwrap() {
                chex::Act::Draw => vec!["draw".into(), " Draw ".into()],
                chex::Act::Move { from, to } => {
                    let m = chex_engine::Move::new(
                        chex_engine::Square::new(from.0, from.1),
                        chex_engine::Square::new(to.0, to.1),
                    );
                    let name = |s| frame.name(s).unwrap();
                    vec![
                        chex_engine::write_move(&pos, &m),
                        format!("{}-{}", name(m.from), name(m.to)),
                    ]
                }
                chex::Act::Place { kind, x, y } => {
                    let at = chex_engine::Square::new(x, y);
                    let kind = chex_engine::Kind::from_index(kind.into()).unwrap();
                    let name = frame.name(at).unwrap();
                    vec![
                        format!("place {name}"),
                        name.to_uppercase(),
                        chex_engine::write_place(&pos, kind, at),
                    ]
                }
            }
        }
    }
}

/// Parses `text` expecting a refusal; checks nothing changed and returns the reason.
fn refused(t: &dyn Table, text: &str) -> String {
    let (ply, envelopes, counts) = (t.ply(), t.envelopes(), t.chain_counts());
    let err = match t.parse_action(text) {
        Ok(cmd) => panic!("{text:?} was taken as {cmd:?}\n{}", t.show_text()),
        Err(e) => e,
    };
    assert!(!err.is_empty());
    assert_eq!(t.ply(), ply);
    assert_eq!(t.envelopes(), envelopes);
    assert_eq!(t.chain_counts(), counts);
    err
}

/// Garbage, illegal moves and words out of place are refused, each with a reason.
fn refuses_bad_input(t: &dyn Table) {
    for text in [
        "", "   ", "xyzzy", "@@", "play", "9Z:q", "a1-", "-", "=A", "place", "♞",
    ] {
        refused(t, text);
    }
    match t.phase() {
        "terms" => {
            for text in [
                "resign",
                "offer draw",
                "accept draw",
                "4Ci3",
                "play 1",
                "Nf3",
            ] {
                refused(t, text);
            }
        }
        "play" if !t.terms().is_player(t.seat()) => {
            // A referee neither resigns nor draws; he is offered none of it.
            for text in ["resign", "offer draw", "accept draw"] {
                assert!(refused(t, text).contains("only players"), "{text}");
            }
            assert!(!t.show_json()["draw_offered"].as_bool().unwrap());
        }
        "play" => {
            assert!(refused(t, "accept").contains("no proposal"));
            assert!(refused(t, "decline").contains("no proposal"));
            if !t.show_json()["draw_offered"].as_bool().unwrap() {
                assert!(refused(t, "accept draw").contains("no draw offer"));
            }
            assert_eq!(t.parse_action("resign"), Ok(Command::Resign));
            assert_eq!(t.parse_action("offer   draw"), Ok(Command::OfferDraw));
            assert_eq!(t.parse_action("Draw Offer"), Ok(Command::OfferDraw));
        }
        _ => {}
    }
    if t.variant() == STALLMATE {
        refuses_bad_attempts(t);
    } else if t.phase() == "play" && t.my_turn() {
        for text in illegal_moves(t) {
            refused(t, &text);
        }
    }
}

/// Stallmate has no illegal moves to refuse: trying one is what Kriegspiel is played
/// by, and the referee answers it. Only malformed text is refused, and any attempt
/// outside this seat's own open period.
fn refuses_bad_attempts(t: &dyn Table) {
    for text in [
        "e2-e9", "i2-i4", "e2--e4", "e2-e4=", "e7-e8=X", "e2-e4-e6", "any??", "e2",
    ] {
        let err = refused(t, text);
        if t.phase() == "play" && t.my_turn() {
            assert!(err.contains("not an attempt"), "{text}: {err}");
        }
    }
    if t.phase() != "play" {
        return;
    }
    for text in ["e2-e4", "any?", "b1-c3", "e1-h1"] {
        if t.my_turn() {
            let cmd = t
                .parse_action(text)
                .expect("any well-formed attempt may be tried");
            assert!(matches!(cmd, Command::PrivateAct { .. }), "{cmd:?}");
            continue;
        }
        let err = refused(t, text);
        if t.to_act() == Some(t.seat()) {
            // The mover's attempt waits for its answer, or his move is made.
            assert!(err.starts_with("not yet"), "{text}: {err}");
        } else {
            assert!(err.contains("not your turn"), "{text}: {err}");
        }
    }
}

/// Well-formed acts the rules refuse in the current position.
fn illegal_moves(t: &dyn Table) -> Vec<String> {
    let score = t.score().expect("started");
    match t.variant() {
        "duel" => {
            let j = t.show_json();
            let hand: Vec<u64> = j["hand"]["cards"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["card"].as_u64().unwrap())
                .collect();
            let mut v: Vec<String> = (1..=6u64)
                .filter(|c| !hand.contains(c))
                .map(|c| format!("play {c}"))
                .collect();
            v.extend(["play 0".into(), "99".into(), "play -1".into()]);
            for text in &v {
                let err = t.parse_action(text).unwrap_err();
                assert!(err.contains("hand") || err.contains("not a card"), "{err}");
            }
            v
        }
        "cardmate" => {
            let opts = Cardmate::from_terms(t.terms()).unwrap().options;
            let (pos, _) = cardmate::replay_score(&score).unwrap();
            let legal = pos.legal_moves(&opts);
            let mut v = vec![];
            for (_, piece) in pos.board.pieces().filter(|(_, p)| p.side == pos.to_move) {
                if let Some(to) = cardmate::Square::all()
                    .find(|sq| !legal.iter().any(|m| m.card == piece.card && m.to == *sq))
                {
                    v.push(format!("{}{to}", piece.card));
                }
                if v.len() >= 3 {
                    break;
                }
            }
            // A card of the opponent.
            if let Some((sq, p)) = pos.board.pieces().find(|(_, p)| p.side != pos.to_move) {
                v.push(format!("{}{sq}", p.card));
            }
            v
        }
        "tempete" => {
            let (_, state, _) = sealed_games::tempete::score::replay_state(&score).unwrap();
            let pos = state.board.position();
            // A piece of the side to move sent to its own king's square, a move of the
            // opponent's piece, a card not in hand, a square that is not one.
            let own = pos
                .color_squares(pos.turn())
                .into_iter()
                .find(|sq| {
                    pos.piece_at(*sq)
                        .is_some_and(|p| p.kind != sealed_games::chess::Kind::King)
                })
                .unwrap();
            let king = pos.kings(pos.turn()).into_iter().next().unwrap();
            let theirs = pos.color_squares(!pos.turn()).into_iter().next().unwrap();
            let hand: Vec<u64> = t.show_json()["hand"]["cards"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["card"].as_u64().unwrap())
                .collect();
            let missing = (1..=70).find(|n| !hand.contains(n)).unwrap();
            vec![
                format!("{own}{king}"),
                format!("{theirs}{own}"),
                format!("card {missing} then e2e4"),
                "card 999".into(),
                "intercept x".into(),
                "e9e4".into(),
            ]
        }
        _ => {
            let (pos, _) = chex_engine::replay_score(&score).unwrap();
            let frame = chex_engine::Frame::of(&pos.board);
            let far = format!("{}{}", chex_engine::file_name(frame.files + 5), 1);
            let json = t.show_json();
            if let Some(drawn) = json["hand"]["drawn"].as_str() {
                let other = ["King", "Queen", "Rook", "Bishop", "Knight", "Pawn"]
                    .into_iter()
                    .position(|k| k != drawn)
                    .unwrap();
                let letter = chex_engine::Kind::from_index(other).unwrap().letter();
                let near = frame.name(pos.placement_squares()[0]).unwrap();
                let err = t.parse_action(&format!("{letter}@{near}")).unwrap_err();
                assert!(err.contains("you drew"), "{err}");
                return vec![
                    format!("place {far}"),
                    far,
                    format!("{letter}@{near}"),
                    "draw".into(),
                    "Nf3".into(),
                ];
            }
            // Each own piece to a square in the frame it cannot reach.
            let legal = pos.legal_moves();
            let mut v = vec![format!("a1-{far}"), "place a1".into()];
            for (from, _) in pos.board.iter().filter(|(_, p)| p.color == pos.to_move) {
                let to = (1..=frame.files)
                    .flat_map(|f| (1..=frame.ranks).map(move |r| (f, r)))
                    .filter_map(|(f, r)| {
                        frame.to_absolute(chex_engine::DisplaySquare { file: f, rank: r })
                    })
                    .find(|sq| *sq != from && !legal.contains(&chex_engine::Move::new(from, *sq)));
                if let Some(to) = to {
                    v.push(format!(
                        "{}-{}",
                        frame.name(from).unwrap(),
                        frame.name(to).unwrap()
                    ));
                }
            }
            v
        }
    }
}

/// Both tables done, the same transcript, verified offline, and the score replays to
/// the board both show.
fn check_finished(net: &Net) -> Vec<u8> {
    check_ended(net, true)
}

/// [`check_finished`] for a game that may have ended off the board (a resignation,
/// an agreed draw), whose score has no result.
fn check_ended(net: &Net, played_out: bool) -> Vec<u8> {
    let a = net.sessions[0].as_ref();
    assert!(net.all_done());
    let file = a.transcript();
    for t in &net.sessions[1..] {
        assert_eq!(file, t.transcript(), "transcripts differ");
    }
    let checked = check_transcript(&file).expect("readable");
    assert_eq!(checked.exit_code(), 0, "{:#?}", checked.verdict);
    assert_eq!(checked.verdict, a.verdict());
    assert_eq!(a.verdict().status, Status::Verified);
    for t in &net.sessions {
        assert_eq!(t.waiting_for(), "nothing: the game is complete");
        assert!(t.bot_action(0).is_none());
        assert!(t.duty(u64::MAX).is_none());
        assert!(refused(t.as_ref(), "resign").contains("over"));
    }
    let score = a.score().expect("a score");
    for t in &net.sessions[1..] {
        assert_eq!(Some(&score), t.score().as_ref());
        assert_eq!(a.pgn(), t.pgn());
    }
    let replayed = Variant::parse(net.variant)
        .unwrap()
        .replay(&score)
        .unwrap_or_else(|e| panic!("{e}\n{score}"));
    let board = a.show_json()["board"].as_str().unwrap().to_owned();
    let verdict = a.verdict();
    match net.variant {
        "duel" => {
            assert_eq!(replayed.plies, a.ply());
            if played_out {
                assert_eq!(replayed.result, verdict.board.map(|o| o.to_string()));
            } else {
                assert_eq!(replayed.result, None);
            }
        }
        "cardmate" => {
            let (pos, plies) = cardmate::replay_score(&score).unwrap();
            assert_eq!(plies, a.ply());
            assert_eq!(pos.end.is_some(), played_out);
            assert_eq!(cardmate::text(&pos), board);
        }
        "tempete" => {
            let (_, state, plies) = sealed_games::tempete::score::replay_state(&score).unwrap();
            assert_eq!(plies, a.ply());
            assert_eq!(state.end.is_some(), played_out);
            // The board's first lines (a hand follows only in the seat's own view).
            let drawn: String = sealed_games::tempete::render::text(&state, None)
                .chars()
                .take(40)
                .collect();
            assert!(board.starts_with(&drawn), "{board}");
        }
        STALLMATE => {
            // In public the referee's Begin, then one close per period, each a move
            // (the bots never let a period pass without one); a game ended off the
            // board may have a move answered in the period it ended in.
            if played_out {
                assert_eq!(replayed.plies + 1, a.ply(), "{score}");
                assert!(verdict.board.is_some());
            } else {
                assert!(
                    replayed.plies + 1 == a.ply() || replayed.plies == a.ply(),
                    "{} plies, {} acts\n{score}",
                    replayed.plies,
                    a.ply()
                );
            }
            assert_eq!(replayed.result.is_some(), played_out, "{score}");
            // Only the referee's board is the whole game.
            let position = sealed_games::chess::Position::from_fen(&replayed.position).unwrap();
            let whole = net.sessions[2].show_json()["board"]
                .as_str()
                .unwrap()
                .to_owned();
            assert!(
                whole.starts_with(&sealed_games::stallmate::seat::diagram(&position)),
                "{whole}\n{score}"
            );
        }
        _ => {
            let (pos, plies) = chex_engine::replay_score(&score).unwrap();
            assert!(plies.len() <= a.ply());
            assert_eq!(pos.end.is_some(), played_out);
            if played_out {
                assert_eq!(chex_engine::text(&pos), board);
            }
        }
    }
    file
}

#[test]
fn variants_are_the_five_games() {
    assert_eq!(
        table::variants(),
        ["duel", "cardmate", "chex", "tempete", "stallmate"]
    );
    for v in table::variants() {
        assert!(Variant::parse(v).is_some());
    }
}

#[test]
fn bots_play_every_variant_to_a_verified_end() {
    for (n, &variant) in table::variants().iter().enumerate() {
        let mut net = Net::new(variant, 40 + n as u8);
        assert_eq!(net.sessions[0].phase(), "commit");
        assert_eq!(net.sessions[1].phase(), "terms");
        net.run(Mode::Bot);
        check_finished(&net);
        for phase in ["terms", "commit", "play", "done"] {
            assert!(net.phases.contains(phase), "{variant}: {:?}", net.phases);
        }
    }
}

/// The demo's games, many seeds of every variant, as the node's bots play them: every
/// game ends, and no bot ever offers a decision its own session refuses (a node whose
/// bot kept offering a refused Tempête yield once waited for ever). With seeds 105 and
/// 117 the bot of before offered a yield with a trap opened, which its session refused. `SEALED_DEMO_SEEDS=N` plays more.
#[test]
fn bots_finish_the_demo_games_of_every_variant_for_many_seeds() {
    // Up to every one-byte nonce.
    let seeds: u16 = std::env::var("SEALED_DEMO_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(4, |n: u16| n.min(256));
    for &variant in table::variants() {
        for nonce in (0..seeds).map(|n| n as u8).chain([105, 117]) {
            let terms = terms_with(variant, &table::demo_options(variant), nonce);
            let mut net = Net::with_terms(variant, terms, nonce);
            if variant == STALLMATE {
                // Periods of a second: ten idle steps of virtual time each.
                net.pace = Pace::Clocked(100);
            }
            net.run(Mode::Bot);
            check_finished(&net);
        }
    }
}

#[test]
fn games_typed_in_notation_play_to_the_end_and_bad_input_is_refused() {
    for (n, &variant) in table::variants().iter().enumerate() {
        for nonce in [1u8, 2] {
            let mut net = Net::new(variant, 10 * nonce + n as u8);
            net.run(Mode::Typed);
            check_finished(&net);
        }
    }
}

#[test]
fn a_restored_table_finishes_the_game_as_the_original_would() {
    for (n, &variant) in table::variants().iter().enumerate() {
        let nonce = 60 + n as u8;
        let mut straight = Net::new(variant, nonce);
        straight.run(Mode::Bot);
        let expected = check_finished(&straight);

        let mut net = Net::new(variant, nonce);
        // Seat 1 restarts before it has accepted: its entropy is already a secret.
        restart(&mut net, 1);
        assert_eq!(net.sessions[1].phase(), "terms");
        net.run_until(Mode::Bot, |n| {
            n.sessions[0].ply() >= 5 || n.sessions[0].is_done()
        });
        restart(&mut net, 0);
        restart(&mut net, 1);
        if variant == STALLMATE {
            // The referee too: he rebuilds the whole game and goes on with his duties.
            restart(&mut net, 2);
        }
        net.run_until(Mode::Bot, |n| {
            n.sessions[1].ply() >= 9 || n.sessions[1].is_done()
        });
        restart(&mut net, 1);
        if variant == STALLMATE {
            restart(&mut net, 2);
        }
        net.run(Mode::Bot);
        assert_eq!(check_finished(&net), expected, "{variant}");

        // A finished game restores as finished.
        restart(&mut net, 0);
        assert!(net.sessions[0].is_done());
        assert_eq!(net.sessions[0].transcript(), expected);
    }
}

/// Replaces a table by one restored from its secrets and its envelopes, fed in reverse
/// order; the restored one must hold and show exactly what the old one did.
fn restart(net: &mut Net, seat: usize) {
    let old = &net.sessions[seat];
    let secrets = old.secrets().expect("secrets from the start");
    let mut envelopes = old.envelopes();
    envelopes.reverse();
    let restored = table::restore(net.terms.clone(), key(seat), secrets, &envelopes, net.now)
        .expect("restore");
    assert_eq!(restored.chain_counts(), old.chain_counts());
    assert_eq!(restored.transcript(), old.transcript());
    assert_eq!(restored.phase(), old.phase());
    assert_eq!(restored.show_json(), old.show_json());
    assert_eq!(restored.score(), old.score());
    net.sessions[seat].table = restored;
    net.pump();
}

#[test]
fn envelopes_after_sends_exactly_what_the_other_side_lacks() {
    for (n, &variant) in table::variants().iter().enumerate() {
        let mut net = Net::new(variant, 80 + n as u8);
        // Nothing counted: every chain from its start.
        let all = net.sessions[0].envelopes();
        assert_eq!(net.sessions[0].envelopes_after(&[], Seat(1)), all);
        net.run_until(Mode::Bot, |n| {
            n.sessions[0].ply() >= 5 && n.sessions[0].my_turn()
        });
        assert!(in_sync(&net));

        // Seat 1 hears nothing while seat 0 goes on as far as it can alone: in
        // Stallmate until the referee has closed seat 0's period, at its end.
        net.deaf = vec![Seat(1)];
        while net.step(Mode::Bot) {}
        if variant == STALLMATE {
            net.run_until(Mode::Bot, |n| !n.held.is_empty());
        }
        let (a, b) = (net.sessions[0].as_ref(), net.sessions[1].as_ref());
        let theirs: BTreeSet<Vec<u8>> = b.envelopes().into_iter().collect();
        let mut lacking: Vec<Vec<u8>> = a
            .envelopes()
            .into_iter()
            .filter(|e| !theirs.contains(e))
            .collect();
        if variant == STALLMATE {
            // Seat 0's own private logs are not for seat 1 while the game is on.
            let (public, private): (Vec<_>, Vec<_>) = lacking.into_iter().partition(|e| {
                Signed::parse(&net.terms, e)
                    .unwrap()
                    .unsigned()
                    .log
                    .is_public()
            });
            assert!(!private.is_empty(), "seat 0 attempted in its period");
            for e in &private {
                let log = Signed::parse(&net.terms, e).unwrap().unsigned().log;
                assert_eq!(audience(&net.terms, log), [Seat(0), Seat(2)], "{log:?}");
            }
            lacking = public;
        }
        assert!(!lacking.is_empty());
        let got = a.envelopes_after(&b.chain_counts(), b.seat());
        assert_eq!(got, lacking);
        let held: BTreeSet<Vec<u8>> = net.held.iter().map(|(_, e)| e.clone()).collect();
        assert_eq!(got.iter().cloned().collect::<BTreeSet<_>>(), held);
        // The other way there is nothing to send.
        assert!(b.envelopes_after(&a.chain_counts(), a.seat()).is_empty());

        // Counts that undersell a chain get that chain's tail again.
        let mut less = b.chain_counts();
        less[0].1 -= 2;
        let more = a.envelopes_after(&less, b.seat());
        assert_eq!(more.len(), got.len() + 2);

        // Delivering exactly that catches seat 1 up; the game goes on to its end.
        net.deaf.clear();
        net.held.clear();
        for e in got {
            net.envelope(1, &e).expect("taken");
        }
        net.pump();
        assert!(in_sync(&net));
        net.run(Mode::Bot);
        check_finished(&net);
        assert!(in_sync(&net));
    }
}

/// No table has anything to send another that it may see, and all hold the same
/// public chains (with two seats, the same chains: there are no others).
fn in_sync(net: &Net) -> bool {
    let public = |t: &dyn Table| -> Vec<(ChainId, u64)> {
        let counts = t.chain_counts();
        if net.sessions.len() == 2 {
            return counts;
        }
        counts
            .into_iter()
            .filter(|(c, _)| c.log.is_public())
            .collect()
    };
    let a = net.sessions[0].as_ref();
    net.sessions.iter().all(|b| {
        public(a) == public(b.as_ref())
            && net.sessions.iter().all(|c| {
                b.seat() == c.seat() || b.envelopes_after(&c.chain_counts(), c.seat()).is_empty()
            })
    })
}

#[test]
fn resignation_draw_agreement_and_decline_by_the_generic_words() {
    for (n, &variant) in table::variants().iter().enumerate() {
        // Resignation.
        let mut net = Net::new(variant, 100 + n as u8);
        net.run_until(Mode::Bot, |n| n.sessions[0].ply() >= 3);
        let cmd = net.sessions[1].parse_action("Resign").unwrap();
        net.command(1, cmd).unwrap();
        net.pump();
        net.run(Mode::Bot);
        check_ended(&net, false);
        let outcome = net.sessions[0].verdict().outcome.unwrap();
        if variant == STALLMATE {
            // Stallmate scores a resignation as a forfeit: −10 to the resigner.
            assert_eq!(
                outcome.results,
                [SeatResult::Score(0), SeatResult::Score(-10)]
            );
        } else {
            assert_eq!(outcome.results, [SeatResult::Win, SeatResult::Loss]);
        }

        // A draw offered and accepted.
        let mut net = Net::new(variant, 110 + n as u8);
        net.run_until(Mode::Bot, |n| n.sessions[0].ply() >= 2);
        let cmd = net.sessions[0].parse_action("offer draw").unwrap();
        net.command(0, cmd).unwrap();
        net.pump();
        let b = net.sessions[1].as_ref();
        assert_eq!(b.show_json()["draw_offered"], true);
        assert!(b.show_text().contains("accept draw"));
        assert!(
            b.waiting_for().contains("draw offer"),
            "{}",
            b.waiting_for()
        );
        assert!(
            refused(net.sessions[0].as_ref(), "accept draw").contains("no draw offer"),
            "the offer stands for the other side only"
        );
        let cmd = b.parse_action("draw  accept").unwrap();
        assert_eq!(cmd, Command::AcceptDraw);
        net.command(1, cmd).unwrap();
        net.pump();
        net.run(Mode::Bot);
        check_ended(&net, false);
        let outcome = net.sessions[0].verdict().outcome.unwrap();
        if variant == STALLMATE {
            assert_eq!(
                outcome.results,
                [SeatResult::Score(0), SeatResult::Score(0)]
            );
        } else {
            assert_eq!(outcome.results, [SeatResult::Draw, SeatResult::Draw]);
        }

        // A declined proposal.
        let mut net = Net::new(variant, 120 + n as u8);
        assert!(net.sessions[1].my_turn());
        assert!(net.sessions[1].waiting_for().contains("accept or decline"));
        let cmd = net.sessions[1].parse_action("DECLINE").unwrap();
        assert_eq!(cmd, Command::Decline);
        net.command(1, cmd).unwrap();
        net.pump();
        net.run(Mode::Bot);
        for t in &net.sessions {
            assert!(t.is_done());
            assert!(t.verdict().declined);
            assert_eq!(t.waiting_for(), "nothing: the proposal was declined");
            assert_eq!(t.svg(), None);
            assert_eq!(t.score(), None);
            check_views(t.as_ref(), variant);
        }
        let file = net.sessions[0].transcript();
        assert_eq!(check_transcript(&file).unwrap().exit_code(), 0);
    }
}

#[test]
fn chex_draw_is_the_game_act_and_draw_offer_the_generic_word() {
    let mut net = Net::new("chex", 130);
    net.run_until(Mode::Bot, |n| {
        n.sessions[0].my_turn() && n.sessions[0].show_json()["hand"]["drawn"].is_null()
    });
    let t = net.sessions[0].as_ref();
    assert_eq!(
        t.parse_action("draw"),
        Ok(Command::act(chex::Act::Draw.bytes()))
    );
    assert_eq!(t.parse_action("offer draw"), Ok(Command::OfferDraw));
    assert!(refused(t, "place b2").contains("nothing is drawn"));

    // After the declaration, the placement waits for seat 1's value: not yet a turn.
    let cmd = t.parse_action("draw").unwrap();
    net.deaf = vec![Seat(1)];
    net.command(0, cmd).unwrap();
    net.pump();
    let t = net.sessions[0].as_ref();
    assert_eq!(t.to_act(), Some(Seat(0)));
    assert!(!t.my_turn());
    assert!(t.bot_action(0).is_none());
    assert!(refused(t, "place b2").starts_with("not yet"));
    assert!(
        t.waiting_for().contains("seat 1 owes the value"),
        "{}",
        t.waiting_for()
    );

    // Once it arrives, the drawn piece is shown and must be placed.
    net.deaf.clear();
    for (to, e) in std::mem::take(&mut net.held) {
        net.envelope(to.index(), &e).unwrap();
    }
    net.pump();
    let t = net.sessions[0].as_ref();
    assert!(t.my_turn());
    let drawn = t.show_json()["hand"]["drawn"].as_str().unwrap().to_owned();
    assert!(t.show_text().contains(&format!("you drew a {drawn}")));
    assert!(t.waiting_for().contains(&drawn));
    refused(t, "Nf3");
    refused(t, "draw");
    net.run(Mode::Typed);
    check_finished(&net);
}

#[test]
fn duel_waits_for_the_deal_before_it_is_a_turn() {
    // One card in hand: after each round the next leader waits for its refill.
    let signed = table::propose(
        "duel",
        &[("cards".into(), "4".into()), ("hand".into(), "1".into())],
        &key(0),
        table::Invitees {
            opponent: key(1).public().to_bytes(),
            ..Default::default()
        },
        0,
        [5; 32],
    )
    .unwrap();
    let mut net = Net::with_terms("duel", Terms::from_signed(signed).unwrap(), 5);
    net.run_until(Mode::Bot, |n| {
        n.sessions.iter().all(|t| t.phase() == "play")
    });
    // Envelopes now travel one at a time, so every state in between is seen.
    net.deaf = vec![Seat(0), Seat(1)];
    let mut windows = 0;
    while !net.held.is_empty() || net.step(Mode::Bot) {
        while net.step(Mode::Bot) {}
        if net.held.is_empty() {
            break;
        }
        let (to, e) = net.held.remove(0);
        net.envelope(to.index(), &e).unwrap();
        net.pump();
        for t in &net.sessions {
            if t.phase() == "play" && t.to_act() == Some(t.seat()) && !t.my_turn() {
                windows += 1;
                assert_eq!(t.show_json()["hand"]["cards"], serde_json::json!([]));
                let w = t.waiting_for();
                assert!(w.contains("owes 1 slot"), "{w}");
                assert!(refused(t.as_ref(), "play 1").starts_with("not yet"));
                assert!(t.bot_action(0).is_none());
            }
        }
    }
    assert!(windows > 0, "the leader never waited for its card");
    net.deaf.clear();
    net.run(Mode::Bot);
    check_finished(&net);
}

#[test]
fn propose_checks_the_options_with_the_games_own_words() {
    let opp = key(1).public().to_bytes();
    let propose = |variant: &str, opts: &[(&str, &str)]| {
        let opts: Vec<(String, String)> = opts
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        table::propose(
            variant,
            &opts,
            &key(0),
            table::Invitees {
                opponent: opp,
                ..Default::default()
            },
            7,
            [9; 32],
        )
    };
    let err = propose("go", &[]).unwrap_err();
    assert!(err.contains("unknown variant \"go\""), "{err}");
    assert!(err.contains("duel, cardmate, chex"), "{err}");
    assert_eq!(
        propose("duel", &[("colour", "1")]).unwrap_err(),
        "duel has no option colour"
    );
    assert_eq!(
        propose("duel", &[("cards", "1")]).unwrap_err(),
        "cards must be 2 to 64"
    );
    assert_eq!(
        propose("cardmate", &[("setup", "shuffled")]).unwrap_err(),
        "cardmate: option setup cannot be \"shuffled\""
    );
    assert_eq!(
        propose("chex", &[("ply-limit", "x")]).unwrap_err(),
        "chex: ply-limit cannot be \"x\""
    );
    assert!(propose("chex", &[("Bad Key", "1")]).is_err());
    assert!(
        propose("chex", &[("ply-limit", "3"), ("ply-limit", "4")])
            .unwrap_err()
            .contains("given twice")
    );
    let same = table::propose(
        "duel",
        &[],
        &key(0),
        table::Invitees {
            opponent: key(0).public().to_bytes(),
            ..Default::default()
        },
        7,
        [9; 32],
    );
    assert!(same.unwrap_err().contains("share a key"));

    // Secret Stallmate: a referee invited as seat 2, options in the game's words.
    let stallmate = |opts: &[(&str, &str)], referee: Option<usize>| {
        let opts: Vec<(String, String)> = opts
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        table::propose(
            STALLMATE,
            &opts,
            &key(0),
            table::Invitees {
                opponent: opp,
                referee: referee.map(|i| key(i).public().to_bytes()),
                ..Default::default()
            },
            7,
            [9; 32],
        )
    };
    assert_eq!(
        stallmate(&[], None).unwrap_err(),
        "stallmate needs a referee seat"
    );
    assert_eq!(
        stallmate(&[("colour", "1")], Some(2)).unwrap_err(),
        "stallmate has no option \"colour\""
    );
    assert!(
        stallmate(&[("period", "0s")], Some(2))
            .unwrap_err()
            .starts_with("stallmate: period: \"0s\" is not a move period"),
    );
    assert_eq!(
        stallmate(&[("ply-limit", "0")], Some(2)).unwrap_err(),
        "stallmate: ply-limit is a number of moves above 0 or none, not \"0\""
    );
    assert!(stallmate(&[], Some(1)).unwrap_err().contains("share a key"));
    let signed = stallmate(&[("ply-limit", "9"), ("period", "90s")], Some(2)).unwrap();
    let p = &signed.proposal;
    let keys: Vec<&str> = p.options.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["period", "ply-limit"]);
    let roles: Vec<Role> = p.seats.iter().map(|s| s.role).collect();
    assert_eq!(roles, [Role::Player, Role::Player, Role::Referee]);
    assert_eq!(p.seats[2].key, key(2).public().to_bytes());
    let terms = Terms::from_signed(signed).expect("it verifies");
    assert_eq!(terms.referee(), Some(Seat(2)));

    let signed = propose("cardmate", &[("setup", "random"), ("no-move", "draw")]).unwrap();
    let p = &signed.proposal;
    assert_eq!(p.variant.as_str(), "cardmate");
    let keys: Vec<&str> = p.options.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["no-move", "setup"]);
    assert_eq!(p.proposer, Seat(0));
    assert_eq!(p.clock, 7);
    assert_eq!(p.seats[0].key, key(0).public().to_bytes());
    assert_eq!(p.seats[1].key, opp);
    assert!(p.seats.iter().all(|s| s.role == Role::Player));
    Terms::from_signed(signed).expect("it verifies");
}

#[test]
fn open_refuses_unknown_variants_and_strangers() {
    let p = Proposal {
        version: VERSION,
        variant: Name::new("go").unwrap(),
        options: vec![],
        seats: (0..2)
            .map(|i| SeatSpec {
                role: Role::Player,
                key: key(i).public().to_bytes(),
                name: String::new(),
            })
            .collect(),
        mailboxes: vec![],
        proposer: Seat(0),
        clock: 0,
        nonce: [0; 32],
    };
    let terms = Terms::from_signed(p.sign(&key(0))).unwrap();
    match table::open(terms.clone(), key(0), [0; 32], 0) {
        Err(TableError::UnknownVariant(v)) => assert_eq!(v, "go"),
        other => panic!("{:?}", other.map(|t| t.phase())),
    }
    let secrets = sealed_protocol::session::Secrets::new([0; 32]);
    assert!(matches!(
        table::restore(terms, key(0), secrets, &[], 0),
        Err(TableError::UnknownVariant(_))
    ));
    let duel = self::terms("duel", 3);
    match table::open(duel.clone(), key(5), [0; 32], 0) {
        Err(TableError::Session(SessionError::NotASeat)) => {}
        other => panic!("{:?}", other.map(|t| t.phase())),
    }
    // Stallmate's referee has a table of his own; a stranger has none.
    let stallmate = self::terms(STALLMATE, 3);
    match table::open(stallmate.clone(), key(5), [0; 32], 0) {
        Err(TableError::Session(SessionError::NotASeat)) => {}
        other => panic!("{:?}", other.map(|t| t.phase())),
    }
    let referee = table::open(stallmate, key(2), [0; 32], 0).expect("the referee's table");
    assert_eq!(referee.seat(), Seat(2));
    assert_eq!(referee.show_json()["side"], "Referee");
    assert!(referee.my_turn(), "he too accepts or declines");
    // Envelopes of another game are refused on restore.
    let other = Net::new("duel", 4);
    let secrets = other.sessions[0].secrets().unwrap();
    let envelopes = other.sessions[0].envelopes();
    assert!(matches!(
        table::restore(duel, key(0), secrets, &envelopes, 0),
        Err(TableError::Session(SessionError::Insert(_)))
    ));
}

#[test]
fn chain_counts_name_each_chain_once() {
    let mut net = Net::new("duel", 140);
    net.run_until(Mode::Bot, |n| n.sessions[0].ply() >= 4);
    let counts = net.sessions[0].chain_counts();
    let chains: BTreeSet<ChainId> = counts.iter().map(|(c, _)| *c).collect();
    assert_eq!(chains.len(), counts.len());
    assert_eq!(
        chains,
        [ChainId::public(Seat(0)), ChainId::public(Seat(1))].into()
    );
    let total: u64 = counts.iter().map(|(_, n)| n).sum();
    assert_eq!(total as usize, net.sessions[0].envelopes().len());

    // With a referee: every seat's public chain, and the private chains of the logs
    // the table's seat is in the audience of (only its own, for a player).
    let mut net = Net::new(STALLMATE, 141);
    net.run_until(Mode::Bot, |n| n.sessions[0].ply() >= 4);
    for t in &net.sessions {
        let counts = t.chain_counts();
        let chains: BTreeSet<ChainId> = counts.iter().map(|(c, _)| *c).collect();
        assert_eq!(chains.len(), counts.len());
        let public: BTreeSet<ChainId> = chains
            .iter()
            .copied()
            .filter(|c| c.log.is_public())
            .collect();
        assert_eq!(public, (0..3).map(|s| ChainId::public(Seat(s))).collect());
        let private: Vec<ChainId> = chains.difference(&public).copied().collect();
        for c in &private {
            let audience = audience(&net.terms, c.log);
            assert!(
                audience.contains(&t.seat()) && audience.contains(&c.seat),
                "{c:?}"
            );
        }
        // The setup logs: a player's own, and both for the referee.
        let setups: BTreeSet<LogId> = private
            .iter()
            .map(|c| c.log)
            .filter(|l| l.0 == 1 || l.0 == 2)
            .collect();
        let expected: BTreeSet<LogId> = match t.seat().0 {
            2 => [LogId(1), LogId(2)].into(),
            s => [LogId(1 + u32::from(s))].into(),
        };
        assert_eq!(setups, expected, "{}", t.seat());
        let total: u64 = counts.iter().map(|(_, n)| n).sum();
        assert_eq!(total as usize, t.held());
    }
}

/// Typed text of any shape — the games' own words mixed with garbage — never panics a
/// table mid-game, and a refusal changes nothing.
#[test]
fn any_typed_text_is_parsed_or_refused_without_panic() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let words = prop::sample::select(vec![
        "card",
        "then",
        "at",
        "as",
        "trap",
        "discard",
        "take",
        "pick",
        "with",
        ";",
        "intercept",
        "answer",
        "cancel",
        "again",
        "yield",
        "e2e4",
        "e7e8q",
        "e1h1",
        "e2-e4",
        "e7-e8=Q",
        "any?",
        "Nf3",
        "O-O",
        "exd5",
        "18",
        "66",
        "0",
        "4294967296",
        "-1",
        "z9",
        "e9",
        "€e2e4",
        "é",
        "play",
        "draw",
        "place",
        "4Ci3",
        "=Q",
        "@",
        "",
        "  ",
    ]);
    let text = prop::collection::vec(prop_oneof![words.prop_map(str::to_owned), ".{0,8}"], 0..7)
        .prop_map(|w| w.join(" "));
    let nets: Vec<Net> = table::variants()
        .iter()
        .enumerate()
        .map(|(n, &variant)| {
            let mut net = Net::new(variant, 150 + n as u8);
            net.run_until(Mode::Bot, |n| {
                n.sessions[0].ply() >= 6 || n.sessions[0].is_done()
            });
            net
        })
        .collect();
    let mut runner = TestRunner::new(Config {
        cases: 256,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&text, |text| {
            for net in &nets {
                for t in &net.sessions {
                    let (ply, counts) = (t.ply(), t.chain_counts());
                    let _ = t.parse_action(&text);
                    prop_assert_eq!(t.ply(), ply);
                    prop_assert_eq!(t.chain_counts(), counts);
                }
            }
            Ok(())
        })
        .unwrap();
}

/// A referee may accept the proposal after both players have joined, so after they
/// have opened their coin seeds (which needs only the players): he commits nothing, so
/// nothing of his can have been chosen to suit a seed. (Found by this harness: the
/// engine once voided his first envelope as "commitments made after seeing a coin seed".)
#[test]
fn a_referee_may_accept_after_the_players_joined() {
    let mut net = Net::new(STALLMATE, 9);
    net.command(1, Command::Accept).expect("Black accepts");
    net.pump();
    assert!(net.sessions[..2].iter().all(|t| t.phase() != "commit"));
    net.command(2, Command::Accept)
        .expect("the referee accepts later");
    net.pump();
    net.run(Mode::Bot);
    check_finished(&net);
}

/// A Tempête start card is offered as a choice that asks for the play after it, and
/// that choice, completed, is taken (`check_choices` completes it every round); so are
/// interceptions and answers. A small deck with cards 34 (take), 42 (cancel) and 66
/// (replace a move) makes them come up.
#[test]
fn tempete_choices_offer_start_cards_and_their_plays() {
    let options: Vec<(String, String)> =
        [("cards", "12-20,34,42,66"), ("hand", "5"), ("ply-limit", "60")]
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
    let mut seen = BTreeSet::new();
    for nonce in 0..4 {
        let mut net = Net::with_terms("tempete", terms_with("tempete", &options, nonce), nonce);
        for _ in 0..2_000 {
            for t in &net.sessions {
                for c in t.choices() {
                    match c.ask {
                        Some(Ask::Play) => seen.insert("start card"),
                        Some(Ask::Square { .. }) => seen.insert("trap"),
                        Some(Ask::Cards { .. }) => seen.insert("redraw"),
                        None if c.words.starts_with("intercept") => seen.insert("intercept"),
                        None if c.words.starts_with("answer") => seen.insert("answer"),
                        None => seen.insert("play"),
                    };
                }
            }
            if !net.step(Mode::Bot) {
                break;
            }
        }
        check_finished(&net);
    }
    for kind in ["start card", "intercept", "answer", "play"] {
        assert!(seen.contains(kind), "no {kind} choice in {seen:?}");
    }
}
