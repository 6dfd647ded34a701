//! Everything about a seat's live game that is the same for every game, written once
//! over the adapter: turn-taking, the generic words (`resign`, draws) and how they are
//! refused, the words of the result and of what is awaited. The session itself (sync,
//! the verdict, the transcript, the witness) is the protocol's, handed out whole.

use std::cell::RefCell;
use std::fmt::Write as _;

use sealed_protocol::body::Item;
use sealed_protocol::ids::Seat;
use sealed_protocol::session::{AnySession, Command, NotNow, Phase, Session};
use sealed_protocol::verdict::{Awaited, ClaimAbout, awaited};

use super::{
    Asked, Choice, Document, Game, Generic, GenericRefused, Refusal, Steps, Table, TableFace,
    TableView, Turn, words,
};

/// The table of a game `R`: its session with everything generic about a table.
pub(crate) struct TableOf<R: Game> {
    session: Session<R>,
    /// Rulings from outside the seats waiting to be posted, as act bytes (in memory
    /// only: whoever ruled sends them again at every connection, `Table::offer_ruling`).
    rulings: Vec<Vec<u8>>,
    /// The score and the last move as of the engine's revision: both replay the whole
    /// game, and a board asks for them at every look, so a look between two insertions
    /// reuses them (everything they read comes from the engine).
    drawn: RefCell<Option<Drawn>>,
}

/// What a view rebuilds from the whole game, as of the engine's `revision`.
struct Drawn {
    revision: u64,
    score: Option<String>,
    last: Vec<String>,
    last_words: Option<String>,
    steps: Option<Steps>,
}

/// Most rulings kept waiting at once: a ruling is about an open dispute, and a game has
/// few of those open; an older one goes first.
const MAX_RULINGS: usize = 16;

impl<R: Game> TableOf<R> {
    /// The seat this table plays.
    pub(crate) fn seat(&self) -> Seat {
        self.session.seat()
    }

    /// The validated terms.
    pub(crate) fn terms(&self) -> &sealed_protocol::proposal::Terms {
        self.session.terms()
    }

    pub(super) fn boxed(session: Session<R>) -> Box<dyn Table> {
        Box::new(TableOf::new(session))
    }

    /// The table of `session`, for a game whose table wraps this one.
    pub(crate) fn new(session: Session<R>) -> TableOf<R> {
        TableOf {
            session,
            rulings: vec![],
            drawn: RefCell::new(None),
        }
    }

    /// The session, with its rules' type.
    pub(crate) fn typed(&self) -> &Session<R> {
        &self.session
    }

    /// What a kept ruling is now: refused (no longer open), kept, or to post.
    fn ruling_now(&self, bytes: &[u8]) -> Result<Option<Command>, Refusal> {
        let state = self.state().ok_or(Refusal::Unstarted)?;
        let act = self
            .session
            .engine()
            .rules()
            .decode_act(bytes)
            .map_err(Refusal::UnreadableAct)?;
        let post = R::ruling(&self.session, state, &act)?;
        // Posted only as this seat's own act in play, never for another seat.
        Ok(post.filter(|_| self.to_act_here()))
    }

    fn state(&self) -> Option<&R::State> {
        self.session.engine().state()
    }

    /// `read` of the score and last move, rebuilt only when the engine took something
    /// since they were last.
    fn drawn<T>(&self, read: impl Fn(&Drawn) -> T) -> T {
        let revision = self.session.engine().revision();
        let mut kept = self.drawn.borrow_mut();
        if let Some(d) = kept.as_ref().filter(|d| d.revision == revision) {
            return read(d);
        }
        let (score, last, last_words, steps) = match self.state() {
            Some(state) => {
                let acts = self.acts();
                let boards = R::boards(&self.session, &acts);
                let sides = (0..2).filter_map(|s| R::side(Seat(s))).collect();
                (
                    R::score(&self.session, state, &acts),
                    R::last(&self.session, state, &acts),
                    R::last_words(&self.session, state, &acts),
                    (!boards.is_empty())
                        .then(|| super::steps::encode(sides, boards))
                        .flatten(),
                )
            }
            None => (None, vec![], None, None),
        };
        read(kept.insert(Drawn {
            revision,
            score,
            last,
            last_words,
            steps,
        }))
    }

    /// Whether the session takes `cmd` in its phase now.
    fn taken(&self, cmd: &Command) -> bool {
        self.session.allowed(cmd).is_ok()
    }

    /// Whether this seat has the proposal to decide on.
    fn deciding(&self) -> bool {
        self.taken(&Command::Accept)
    }

    /// Whether the game is on: the session takes game acts.
    fn playing(&self) -> bool {
        self.taken(&Command::act(vec![]))
    }

    /// It is this seat's act, whether or not it has what the act needs yet.
    fn to_act_here(&self) -> bool {
        self.acts_here(self.to_act())
    }

    /// [`Self::to_act_here`], `to_act` known.
    fn acts_here(&self, to_act: Option<Seat>) -> bool {
        self.playing() && to_act == Some(self.seat())
    }

    /// Whether a draw offer of this seat's stands for another player.
    fn my_offer_stands(&self) -> bool {
        let (me, e) = (self.seat(), self.session.engine());
        self.playing()
            && self
                .terms()
                .player_seats()
                .any(|p| p != me && e.draw_offered_to(p))
    }

    fn draw_offered(&self) -> bool {
        self.playing() && self.session.engine().draw_offered_to(self.seat())
    }

    /// The accepted acts, decoded: the main line is what every verifier replays, so a
    /// score rebuilt from it is the game the transcript proves.
    fn acts(&self) -> Vec<R::Act> {
        let e = self.session.engine();
        e.main_line()
            .iter()
            .filter_map(|(at, _)| {
                e.envelope(*at)?
                    .unsigned()
                    .body
                    .iter()
                    .find_map(|i| match i {
                        Item::Act(bytes) => e.rules().decode_act(bytes).ok(),
                        _ => None,
                    })
            })
            .collect()
    }

    /// The generic commands open now (see [`TableOf::actions`]), for buttons: those
    /// [`TableOf::generic`] takes as a command.
    fn open_generics(&self) -> Vec<Generic> {
        // Before anyone accepted, the proposer's way out is "withdraw" (a "resign" then
        // does the same, so only the one is offered).
        let withdraw = self.session.may_withdraw().is_ok();
        Generic::ALL
            .into_iter()
            .filter(|g| !(withdraw && *g == Generic::Resign))
            .filter(|g| self.generic(*g).is_ok())
            .collect()
    }

    /// Whether the game's own acts are open to this seat now: a player's, on its turn
    /// in play (a referee acts by duties alone).
    fn own_acts(&self) -> Option<&R::State> {
        let open = self.playing() && self.terms().is_player(self.seat()) && self.my_turn();
        self.state().filter(|_| open)
    }

    fn actions(&self) -> Vec<String> {
        let mut v = vec![];
        if let Some(state) = self.own_acts() {
            v.extend(R::hints(&self.session, state));
        }
        v.extend(
            self.open_generics()
                .into_iter()
                .map(|g| g.words().to_owned()),
        );
        v
    }

    /// A generic command as the session's, or refused with the reason, so that the
    /// person hears why at once rather than from the session. Which phase takes which
    /// command is the session's answer ([`Session::allowed`]); this words it, and adds
    /// what only players may do and where a draw offer stands.
    fn generic(&self, generic: Generic) -> Result<Command, Refusal> {
        let refused = |why| Refusal::Generic { generic, why };
        let cmd = match generic {
            Generic::Accept => Command::Accept,
            Generic::Decline => Command::Decline,
            Generic::Resign => Command::Resign,
            Generic::Withdraw => {
                return self
                    .session
                    .may_withdraw()
                    .map(|()| Command::Withdraw)
                    .map_err(|e| refused(GenericRefused::Withdraw(e)));
            }
            Generic::OfferDraw => Command::OfferDraw,
            Generic::AcceptDraw => Command::AcceptDraw,
        };
        let phase = self.session.phase().name();
        let player = self.terms().is_player(self.seat());
        let why = match (&cmd, self.session.allowed(&cmd)) {
            (Command::Accept | Command::Decline, Ok(())) => return Ok(cmd),
            (Command::Accept | Command::Decline, Err(_)) => GenericRefused::NoProposal { phase },
            (Command::Resign, Err(NotNow::Undecided)) => GenericRefused::Undecided,
            (Command::Resign, Err(_)) => GenericRefused::GameOver,
            (_, _) if !player => GenericRefused::OnlyPlayers,
            (Command::Resign, Ok(())) => return Ok(cmd),
            (Command::OfferDraw, Ok(())) if self.my_offer_stands() => GenericRefused::OfferStands,
            (Command::AcceptDraw, Ok(())) if !self.draw_offered() => GenericRefused::NoOffer,
            (_, Ok(())) => return Ok(cmd),
            (_, Err(_)) => GenericRefused::NotInPlay { phase },
        };
        Err(refused(why))
    }
    /// Words a person typed, read as [`TableFace::command`] says.
    fn read_words(&self, text: &str) -> Result<Command, Refusal> {
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if words.is_empty() {
            return Err(Refusal::NoAction);
        }
        if let Some(g) = Generic::from_words(&words.to_lowercase()) {
            return self.generic(g);
        }
        // Whether game acts are taken now is the session's answer; this words it.
        match self.session.allowed(&Command::act(vec![])) {
            Ok(()) => {}
            Err(NotNow::Undecided) => return Err(Refusal::Undecided),
            Err(NotNow::GameOver) => return Err(Refusal::GameOver),
            Err(NotNow::NotStarted | NotNow::GameOn) => {
                // The phase's name is the protocol's; the player reads what is awaited.
                let waiting = self.waiting_for();
                let awaiting = waiting.strip_prefix("waiting for ").map(str::to_owned);
                return Err(Refusal::BeforeStart { awaiting });
            }
        }
        let state = self.state().ok_or(Refusal::NoPosition)?;
        match self.to_act() {
            Some(s) if s == self.seat() => {}
            Some(seat) => {
                let who = words::who(self.terms(), self.seat(), seat);
                return Err(Refusal::NotYourTurn { seat, who });
            }
            None => return Err(Refusal::GameOver),
        }
        if !R::ready(&self.session, state) {
            return Err(Refusal::NotReady {
                waiting: self.waiting_for(),
            });
        }
        R::parse(&self.session, state, words.trim()).map_err(Refusal::game)
    }

    /// Number of accepted game acts ([`Turn::ply`]).
    fn ply(&self) -> usize {
        self.session.engine().main_line().len()
    }

    /// The seat whose game act is awaited ([`Turn::to_act`]).
    fn to_act(&self) -> Option<Seat> {
        let e = self.session.engine();
        match self.state() {
            Some(state) if !e.is_over() => R::acting(&self.session, state),
            _ => e.to_act(),
        }
    }

    /// Whether this seat must decide now ([`Turn::my_turn`]).
    fn my_turn(&self) -> bool {
        self.my_turn_when(self.to_act())
    }

    /// [`Self::my_turn`], `to_act` known.
    fn my_turn_when(&self, to_act: Option<Seat>) -> bool {
        self.deciding()
            || (self.acts_here(to_act)
                && self
                    .state()
                    .is_some_and(|state| R::ready(&self.session, state)))
    }

    /// Whether the game takes nothing more from outside: the session done, or the game
    /// over as far as everything processed shows.
    fn ended(&self) -> bool {
        self.session.phase().is_done() || self.session.engine().is_over()
    }

    /// When a duty comes due with time alone ([`Turn::due_at`]).
    fn due_at(&self) -> Option<u64> {
        if self.ended() {
            return None;
        }
        R::due_at(&self.session, self.state()?)
    }

    /// Rulings kept and still open ([`Turn::rulings_waiting`]).
    fn rulings_waiting(&self) -> usize {
        self.rulings
            .iter()
            .filter(|r| self.ruling_now(r).is_ok())
            .count()
    }
}

impl<R: Game> Table for TableOf<R> {
    fn session(&self) -> &dyn AnySession {
        &self.session
    }

    fn session_mut(&mut self) -> &mut dyn AnySession {
        &mut self.session
    }

    fn turn(&self) -> Turn {
        // Whose act it is, asked of the game once for both fields: the node reads a
        // seat's turn after every input it hands it.
        let to_act = self.to_act();
        Turn {
            ply: self.ply(),
            to_act,
            my_turn: self.my_turn_when(to_act),
            rulings_waiting: self.rulings_waiting(),
            due_at: self.due_at(),
        }
    }

    fn duty(&self, now: u64) -> Option<Command> {
        if self.session.phase().is_done() {
            return None;
        }
        R::duty(&self.session, now).or_else(|| {
            self.rulings
                .iter()
                .find_map(|r| self.ruling_now(r).ok().flatten())
        })
    }

    fn offer_ruling(&mut self, act: &[u8]) -> Result<(), Refusal> {
        if self.ended() {
            return Err(Refusal::GameOver);
        }
        self.ruling_now(act)?;
        // Those no longer open go; a copy of one kept is not kept twice.
        let kept = std::mem::take(&mut self.rulings);
        self.rulings = kept
            .into_iter()
            .filter(|r| r.as_slice() != act && self.ruling_now(r).is_ok())
            .collect();
        if self.rulings.len() >= MAX_RULINGS {
            self.rulings.remove(0);
        }
        self.rulings.push(act.to_vec());
        Ok(())
    }
}

impl<R: Game> TableFace for TableOf<R> {
    fn waiting_for(&self) -> String {
        let e = self.session.engine();
        if e.withdrawn() {
            return "nothing: the proposal was withdrawn".into();
        }
        match self.session.phase() {
            Phase::Decide(_) => return "you: accept or decline the proposal".into(),
            Phase::Done(_) if e.declined() => return "nothing: the proposal was declined".into(),
            Phase::Done(_) => return "nothing: the game is complete".into(),
            Phase::Commit(_) | Phase::Coin(_) | Phase::Play(_) | Phase::Reveal(_) => {}
        }
        let offer = "a draw offer stands for you (accept draw)";
        if self.my_turn()
            && let Some(state) = self.state()
        {
            let prompt = R::prompt(&self.session, state);
            return if self.draw_offered() {
                format!("you: {prompt}; {offer}")
            } else {
                format!("you: {prompt}")
            };
        }
        // Said in the player's words (words.rs): who is awaited, by role and name. The
        // steps other seats' nodes owe come before the act they make possible: while the
        // opponent owes a draw's share, the seat to act can only wait for it.
        let own = self
            .state()
            .filter(|_| self.playing())
            .and_then(|state| R::awaiting(&self.session, state));
        let (me, terms) = (self.seat(), self.terms());
        let v = self.session.verdict();
        let mut parts: Vec<String> = vec![];
        if v.claims.iter().any(|c| c.about == ClaimAbout::Unfinished) {
            let steps = awaited(self.session.engine());
            let owed = steps.iter().any(|(_, a)| *a != Awaited::Act);
            parts.extend(
                steps
                    .iter()
                    .filter(|(_, a)| *a != Awaited::Act || !(owed || own.is_some()))
                    .map(|(s, a)| words::step(&words::who(terms, me, *s), a)),
            );
        }
        parts.extend(
            v.claims
                .iter()
                .filter(|c| c.open)
                .filter_map(|c| words::after_the_end(&words::who(terms, me, c.against), c)),
        );
        parts.extend(own);
        if self.draw_offered() {
            parts.push(offer.into());
        }
        if parts.is_empty() {
            "nothing".into()
        } else {
            format!("waiting for {}", parts.join("; "))
        }
    }

    fn command(&self, asked: Asked<'_>) -> Result<Command, Refusal> {
        match asked {
            Asked::Generic(generic) => self.generic(generic),
            Asked::Words(text) => self.read_words(text),
        }
    }

    fn bot_action(&self, pick: u64) -> Option<Command> {
        if self.deciding() {
            return Some(Command::Accept);
        }
        if !self.my_turn() {
            return None;
        }
        R::bot(&self.session, self.state()?, pick)
    }

    fn view(&self) -> TableView {
        let seat = self.seat();
        TableView {
            variant: R::VARIANT.to_owned(),
            game: self.terms().game().0.to_hex(),
            seat: seat.0,
            side: R::side(seat),
            phase: self.session.phase().stage(),
            ply: self.ply(),
            to_act: self.to_act().map(|s| s.0),
            my_turn: self.my_turn(),
            waiting_for: self.waiting_for(),
            actions: self.actions(),
            choices: self.choices(),
            draw_offered: self.draw_offered(),
            board: match self.state() {
                Some(state) => R::board(&self.session, state),
                None => "the game has not started\n".to_owned(),
            },
            hand: R::hand(&self.session).1,
            grid: self.state().and_then(|state| R::grid(&self.session, state)),
            last: self.drawn(|d| d.last.clone()),
            steps: self.drawn(|d| d.steps.clone()),
            result: words::result_line(&self.session),
            score: self.document(Document::Score),
            verdict: self.session.verdict(),
        }
    }

    fn document(&self, kind: Document) -> Option<String> {
        match kind {
            Document::Text => Some(self.text()),
            Document::Svg => R::svg(self.state()?),
            Document::Score => self.drawn(|d| d.score.clone()),
            Document::Pgn => R::pgn(&self.session, self.state()?),
        }
    }
}

impl<R: Game> TableOf<R> {
    /// [`Document::Text`].
    fn text(&self) -> String {
        let seat = self.seat();
        let mut s = String::new();
        let side = R::side(seat).map(|x| format!(" ({x})")).unwrap_or_default();
        let _ = writeln!(
            s,
            "{} · game {} · you are {seat}{side}",
            R::VARIANT,
            self.terms().game().0.short()
        );
        // The stage in a player's words (the protocol's phase names, "terms" or
        // "commit", are in the JSON's `phase`), and who moves: before the game starts
        // and after it ends nobody does, and the line says why rather than "nobody".
        let phase = self.session.phase();
        let stage = match phase {
            Phase::Decide(_) => "invitation",
            Phase::Commit(_) | Phase::Coin(_) => "not started",
            Phase::Play(_) => "playing",
            Phase::Reveal(_) | Phase::Done(_) => "over",
        };
        let turn = match (self.to_act(), phase) {
            (Some(t), _) if t == seat => "you are to act".to_owned(),
            (Some(t), _) => format!("{} is to act", words::who(self.terms(), seat, t)),
            (None, Phase::Decide(_)) => "you are to accept or decline".to_owned(),
            (None, Phase::Commit(_) | Phase::Coin(_)) => "no moves until it starts".to_owned(),
            (None, Phase::Play(_)) => "nobody is to move now".to_owned(),
            (None, Phase::Reveal(_) | Phase::Done(_)) => "no more moves".to_owned(),
        };
        // The one ply count of the node and the command line: acts played, not the
        // board's own move count (a Chex draw and its placement are two acts). It is what
        // `move --expect` and `games` take and print; the board speaks of moves.
        let _ = writeln!(s, "{stage} · ply {} · {turn}", self.ply());
        s.push('\n');
        match self.state() {
            Some(state) => s.push_str(&R::board(&self.session, state)),
            None => s.push_str("the game has not started\n"),
        }
        if let Some(words) = self.drawn(|d| d.last_words.clone()) {
            let _ = writeln!(s, "{words}");
        }
        if let Some(hand) = R::hand(&self.session).0 {
            s.push_str(&hand);
        }
        s.push('\n');
        match self.rulings_waiting() {
            0 => {}
            n => {
                let _ = writeln!(
                    s,
                    "{n} ruling(s) from outside the seats came to this node: each is posted as the next act of whichever player acts first"
                );
            }
        }
        if let Some(r) = words::result_line(&self.session) {
            let _ = writeln!(s, "result: {r}");
        }
        for f in &self.session.verdict().faults {
            let _ = writeln!(s, "fault: {f}");
        }
        let _ = writeln!(s, "{}", self.waiting_for());
        let actions = self.actions();
        if !actions.is_empty() {
            let _ = writeln!(s, "actions: {}", actions.join(" | "));
        }
        s
    }

    /// Every act this seat may make now, for a board that is clicked (the view's
    /// `choices`): the game's own (see [`Choice`]), each text read back by
    /// [`TableFace::command`] as words, then the generic commands open now as buttons, each
    /// carrying its [`Generic`] value, which a face sends as such
    /// ([`Asked::Generic`]).
    pub(crate) fn choices(&self) -> Vec<Choice> {
        let mut v = vec![];
        if let Some(state) = self.own_acts() {
            v = R::choices(&self.session, state);
        }
        v.extend(self.open_generics().into_iter().map(Choice::generic));
        v
    }
}

/// `pick`-th of `items`, wrapping.
pub(crate) fn nth<T>(items: &[T], pick: u64) -> Option<&T> {
    let n = u64::try_from(items.len()).ok().filter(|n| *n > 0)?;
    items.get(usize::try_from(pick % n).ok()?)
}
