//! Everything about a seat's live game that is the same for every game, written once
//! over the adapter: the session, turn-taking, the generic words (`resign`, draws), the
//! verdict, the transcript, sync.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Value, json};

use sealed_protocol::body::{ClaimKind, Item};
use sealed_protocol::engine::Inserted;
use sealed_protocol::ids::{ChainId, GameId, Seat};
use sealed_protocol::proposal::Terms;
use sealed_protocol::session::{Action, Command, Phase, Secrets, Session, SessionError};
use sealed_protocol::transcript::TranscriptFile;
use sealed_protocol::verdict::{Awaited, ClaimAbout, Status, Verdict, awaited};

use super::{Choice, Game, Table, Timeline, words};

/// A session of one game with everything generic about a table.
pub(super) struct Seated<R: Game> {
    session: Session<R>,
}

impl<R: Game> Seated<R> {
    pub(super) fn boxed(session: Session<R>) -> Box<dyn Table> {
        Box::new(Seated { session })
    }

    fn state(&self) -> Option<&R::State> {
        self.session.engine().state()
    }

    fn deciding(&self) -> bool {
        matches!(self.session.phase(), Phase::Decide(_))
    }

    fn playing(&self) -> bool {
        matches!(self.session.phase(), Phase::Play(_))
    }

    /// It is this seat's act, whether or not it has what the act needs yet.
    fn to_act_here(&self) -> bool {
        self.playing() && self.to_act() == Some(self.seat())
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

    /// The generic words open now (see [`Seated::actions`]), for buttons.
    fn generic_words(&self) -> Vec<&'static str> {
        let player = self.terms().is_player(self.seat());
        match self.session.phase() {
            Phase::Decide(_) => vec!["accept", "decline"],
            _ if !player => vec![],
            Phase::Commit(_) | Phase::Coin(_) => vec!["resign"],
            Phase::Play(_) => {
                let mut v = vec!["resign"];
                if !self.my_offer_stands() {
                    v.push("offer draw");
                }
                if self.draw_offered() {
                    v.push("accept draw");
                }
                v
            }
            _ => vec![],
        }
    }

    /// Whether the game's own acts are open to this seat now: a player's, on its turn
    /// in play (a referee acts by duties alone).
    fn own_acts(&self) -> Option<&R::State> {
        let open = matches!(self.session.phase(), Phase::Play(_))
            && self.terms().is_player(self.seat())
            && self.my_turn();
        self.state().filter(|_| open)
    }

    fn actions(&self) -> Vec<String> {
        let mut v = vec![];
        if let Some(state) = self.own_acts() {
            v.extend(R::hints(&self.session, state));
        }
        v.extend(self.generic_words().into_iter().map(String::from));
        v
    }

    /// Refuses a generic word outside the phases it belongs to, with the reason, so
    /// that the person hears why at once rather than from the session.
    fn generic(&self, word: &str) -> Option<Result<Command, String>> {
        let phase = self.session.phase();
        let decide = matches!(phase, Phase::Decide(_));
        let over = matches!(phase, Phase::End(_) | Phase::Done(_));
        let not_now = |why: &str| Err(format!("{word}: {why}"));
        let player = self.terms().is_player(self.seat());
        Some(match word {
            "accept" | "decline" if decide => Ok(if word == "accept" {
                Command::Accept
            } else {
                Command::Decline
            }),
            "accept" | "decline" => not_now(&format!(
                "there is no proposal to decide on (phase {})",
                phase.name()
            )),
            "resign" if decide => not_now("accept or decline the proposal first"),
            "resign" if over => not_now("the game is over"),
            "resign" | "offer draw" | "draw offer" | "accept draw" | "draw accept" if !player => {
                not_now("only players resign or agree draws")
            }
            "resign" => Ok(Command::Resign),
            "offer draw" | "draw offer" if self.my_offer_stands() => not_now(
                "your draw offer already stands, until the other player moves or accepts it",
            ),
            "offer draw" | "draw offer" if self.playing() => Ok(Command::OfferDraw),
            "accept draw" | "draw accept" if self.draw_offered() => Ok(Command::AcceptDraw),
            "accept draw" | "draw accept" if self.playing() => {
                not_now("no draw offer stands for you")
            }
            "offer draw" | "draw offer" | "accept draw" | "draw accept" => not_now(&format!(
                "draw offers are made while the game is on (phase {})",
                phase.name()
            )),
            _ => return None,
        })
    }
}

impl<R: Game> Table for Seated<R> {
    fn variant(&self) -> &'static str {
        R::VARIANT
    }

    fn seat(&self) -> Seat {
        self.session.seat()
    }

    fn game(&self) -> GameId {
        self.terms().game()
    }

    fn terms(&self) -> &Terms {
        self.session.engine().terms()
    }

    fn handle_envelope(&mut self, bytes: &[u8], now: u64) -> Result<Inserted, SessionError> {
        self.session.handle_envelope(bytes, now)
    }

    fn handle_command(&mut self, cmd: Command, now: u64) -> Result<(), SessionError> {
        self.session.handle_command(cmd, now)
    }

    fn poll_action(&mut self) -> Option<Action> {
        self.session.poll_action()
    }

    fn result(&self) -> Option<String> {
        let v = self.verdict();
        let status = match v.status {
            Status::Verified => "verified",
            Status::Unconfirmed => "unconfirmed",
            Status::ProvenFault => "proven fault",
        };
        v.outcome
            .map(|o| format!("{} [{status}]", words::outcome(self.terms(), &o)))
    }

    fn verdict(&self) -> Verdict {
        self.session.verdict()
    }

    fn phase(&self) -> &'static str {
        self.session.phase().name()
    }

    fn is_done(&self) -> bool {
        matches!(self.session.phase(), Phase::Done(_))
    }

    fn to_act(&self) -> Option<Seat> {
        let e = self.session.engine();
        match self.state() {
            Some(state) if !e.is_over() => R::acting(&self.session, state),
            _ => e.to_act(),
        }
    }

    fn duty(&self, now: u64) -> Option<Command> {
        if self.is_done() {
            return None;
        }
        R::duty(&self.session, now)
    }

    fn due_at(&self) -> Option<u64> {
        if self.is_done() || self.session.engine().is_over() {
            return None;
        }
        R::due_at(&self.session, self.state()?)
    }

    fn my_turn(&self) -> bool {
        self.deciding()
            || (self.to_act_here()
                && self
                    .state()
                    .is_some_and(|state| R::ready(&self.session, state)))
    }

    fn ply(&self) -> usize {
        self.session.engine().main_line().len()
    }

    fn waiting_for(&self) -> String {
        let e = self.session.engine();
        match self.session.phase() {
            Phase::Decide(_) => return "you: accept or decline the proposal".into(),
            Phase::Done(_) if e.declined() => return "nothing: the proposal was declined".into(),
            Phase::Done(_) => return "nothing: the game is complete".into(),
            _ => {}
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
        let v = self.verdict();
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

    fn parse_action(&self, text: &str) -> Result<Command, String> {
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if words.is_empty() {
            return Err("no action given".into());
        }
        if let Some(r) = self.generic(&words.to_lowercase()) {
            return r;
        }
        match self.session.phase() {
            Phase::Decide(_) => return Err("accept or decline the proposal first".into()),
            Phase::End(_) | Phase::Done(_) => return Err("the game is over".into()),
            Phase::Play(_) => {}
            p => return Err(format!("the game has not started yet (phase {})", p.name())),
        }
        let state = self.state().ok_or("the game has not started yet")?;
        match self.to_act() {
            Some(s) if s == self.seat() => {}
            Some(s) => {
                let who = words::who(self.terms(), self.seat(), s);
                return Err(format!("not your turn: {who} is to move"));
            }
            None => return Err("the game is over".into()),
        }
        if !R::ready(&self.session, state) {
            return Err(format!("not yet: {}", self.waiting_for()));
        }
        R::parse(&self.session, state, words.trim())
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

    fn show_text(&self) -> String {
        let seat = self.seat();
        let mut s = String::new();
        let side = R::side(seat).map(|x| format!(" ({x})")).unwrap_or_default();
        let _ = writeln!(
            s,
            "{} · game {} · you are {seat}{side}",
            R::VARIANT,
            self.game().0.short()
        );
        let turn = match self.to_act() {
            Some(t) if t == seat => "you are to act".to_owned(),
            Some(t) => format!("{} is to act", words::who(self.terms(), seat, t)),
            None => "nobody is to act".to_owned(),
        };
        // The one ply count of the node and the command line: acts played, not the
        // board's own move count (a Chex draw and its placement are two acts). It is what
        // `move --expect` and `games` take and print; the board speaks of moves.
        let _ = writeln!(s, "phase {} · ply {} · {turn}", self.phase(), self.ply());
        s.push('\n');
        match self.state() {
            Some(state) => s.push_str(&R::board(&self.session, state)),
            None => s.push_str("the game has not started\n"),
        }
        if let Some(hand) = R::hand(&self.session).0 {
            s.push_str(&hand);
        }
        s.push('\n');
        if let Some(r) = self.result() {
            let _ = writeln!(s, "result: {r}");
        }
        for f in &self.verdict().faults {
            let _ = writeln!(s, "fault: {f}");
        }
        let _ = writeln!(s, "{}", self.waiting_for());
        let actions = self.actions();
        if !actions.is_empty() {
            let _ = writeln!(s, "actions: {}", actions.join(" | "));
        }
        s
    }

    fn show_json(&self) -> Value {
        let seat = self.seat();
        json!({
            "variant": R::VARIANT,
            "game": self.game().0.to_hex(),
            "seat": seat.0,
            "side": R::side(seat),
            "phase": self.phase(),
            "ply": self.ply(),
            "to_act": self.to_act().map(|s| s.0),
            "my_turn": self.my_turn(),
            "waiting_for": self.waiting_for(),
            "actions": self.actions(),
            "choices": self.choices(),
            "draw_offered": self.draw_offered(),
            "board": match self.state() {
                Some(state) => R::board(&self.session, state),
                None => "the game has not started\n".to_owned(),
            },
            "hand": R::hand(&self.session).1,
            "grid": self.state().and_then(|state| R::grid(&self.session, state)),
            "last": self.state().map(|state| R::last(&self.session, state, &self.acts())).unwrap_or_default(),
            "result": self.result(),
            "score": self.score(),
            "verdict": serde_json::to_value(self.verdict()).unwrap_or(Value::Null),
        })
    }

    fn svg(&self) -> Option<String> {
        R::svg(self.state()?)
    }

    fn choices(&self) -> Vec<Choice> {
        let mut v = vec![];
        if let Some(state) = self.own_acts() {
            v = R::choices(&self.session, state);
        }
        v.extend(
            self.generic_words()
                .into_iter()
                .map(|w| Choice::button(w, w)),
        );
        v
    }

    fn transcript(&self) -> Vec<u8> {
        TranscriptFile::from_engine(self.session.engine()).to_bytes()
    }

    fn score(&self) -> Option<String> {
        R::score(&self.session, self.state()?, &self.acts())
    }

    fn pgn(&self) -> Option<String> {
        R::pgn(&self.session, self.state()?)
    }

    fn chain_counts(&self) -> Vec<(ChainId, u64)> {
        let e = self.session.engine();
        e.chains().map(|c| (c, e.processed(c))).collect()
    }

    fn held(&self) -> usize {
        let (chains, others) = self.session.engine().stored();
        chains.len() + others.len()
    }

    fn envelopes(&self) -> Vec<Vec<u8>> {
        let (chains, others) = self.session.engine().stored();
        chains
            .into_iter()
            .chain(others)
            .map(|e| e.bytes.clone())
            .collect()
    }

    fn envelopes_after(&self, have: &[(ChainId, u64)], audience: Seat) -> Vec<Vec<u8>> {
        let have: BTreeMap<ChainId, u64> = have.iter().copied().collect();
        self.session
            .engine()
            .stored()
            .0
            .into_iter()
            .filter(|env| {
                let at = env.at();
                self.visible(at.chain, audience)
                    && at.seq >= have.get(&at.chain).copied().unwrap_or(0)
            })
            .map(|env| env.bytes.clone())
            .collect()
    }

    fn visible(&self, chain: ChainId, audience: Seat) -> bool {
        let e = self.session.engine();
        // Once the game is over every private log is public (spec/PROTOCOL.md §8.11.4).
        chain.log.is_public()
            || e.is_over()
            || e.rules()
                .audience(chain.log)
                .is_some_and(|a| a.contains(&audience))
    }

    fn secrets(&self) -> Option<Secrets> {
        self.session.secrets().cloned()
    }

    fn witness_wait(
        &self,
        statements: &[Vec<u8>],
        seat: Seat,
    ) -> Option<sealed_protocol::engine::WitnessWait> {
        self.session.engine().witness_wait(statements, seat)
    }

    fn times_private(&self) -> bool {
        self.session.times_private()
    }

    fn undeposited(&mut self) -> Vec<sealed_protocol::deposit::Deposit> {
        self.session.undeposited()
    }

    fn wants_ledger(&self) -> bool {
        self.session.wants_ledger()
    }

    fn note_witness(&mut self, statements: &[Vec<u8>], now: u64) -> usize {
        self.session.note_witness(statements, now)
    }

    fn witness_said(&self) -> Vec<Vec<u8>> {
        self.session.witness_said()
    }

    fn owes_stamps(&self) -> bool {
        self.session.owes_stamps()
    }

    fn stamps_ready(&mut self) -> Option<bool> {
        self.session.stamps_ready()
    }

    fn stamps_known(&mut self) -> Vec<Vec<u8>> {
        self.session.stamps_known()
    }

    fn lost_on_time(&self) -> Vec<Seat> {
        self.session.engine().lost_on_time()
    }

    fn timeline(&self) -> Timeline {
        let e = self.session.engine();
        let clock_of = |at| e.envelope(at).map(|env| env.unsigned().clock);
        let started = e
            .terms()
            .player_seats()
            .map(|p| {
                clock_of(sealed_protocol::ids::EnvRef {
                    chain: ChainId::public(p),
                    seq: 0,
                })
                .filter(|_| e.has_joined(p))
            })
            .collect::<Option<Vec<u64>>>()
            .and_then(|c| c.into_iter().max());
        Timeline {
            started,
            acts: e
                .main_line()
                .iter()
                .filter_map(|(at, seat)| Some((*seat, clock_of(*at)?)))
                .collect(),
            timeout_claims: e
                .claims()
                .iter()
                .filter(|c| c.by == self.seat() && c.kind == ClaimKind::Timeout)
                .map(|c| (c.against, c.clock))
                .collect(),
        }
    }
}

/// `pick`-th of `items`, wrapping.
pub(crate) fn nth<T>(items: &[T], pick: u64) -> Option<&T> {
    let n = u64::try_from(items.len()).ok().filter(|n| *n > 0)?;
    items.get(usize::try_from(pick % n).ok()?)
}
