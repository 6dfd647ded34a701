//! Secret Stallmate at a table: what each seat's node knows and does.
//!
//! A player's node rebuilds his [`MoverView`] (his own army, the answers he got, what
//! he heard) from his own engine; it never holds the opponent's army. The referee's
//! node rebuilds the whole game ([`Referee`]) from the setups shown to it and the
//! period logs, and does its duties: start the clock, answer each attempt at once, and
//! at each period's fixed end seal the log, then post the close.

use sealed_protocol::engine::Engine;
use sealed_protocol::hash::Hash;
use sealed_protocol::hidden::digest;
use sealed_protocol::ids::{ChainId, EnvRef, LogId, Seat};
use sealed_protocol::session::{Command, Session};

use crate::chess::{Color, Position, Square};
use crate::table::hand as shape;
use crate::table::{Automation, Choice, Face, Game, Grid, Hand};

use super::VARIANT;
use super::acts::{self, PeriodEnd, Private, Public};
use super::announce::heard;
use super::attempt::{Attempt, AttemptRefused};
use super::bot;
use super::peer::{Stallmate, State, color, mover, period_log, seat, setup_log, setup_name};
use super::referee::Referee;
use super::setup::Setup;
use super::timing::live::{self, Attempted};
use super::view::MoverView;

/// The acts of a period's log that its seal covers (all of them while it is open).
fn covered(e: &Engine<Stallmate>, n: u32) -> Vec<Private> {
    let log = period_log(n);
    let referee = e.rules().referee;
    let moving = seat(mover(n));
    let (mover_count, referee_count) = seal_counts(e, log, moving).unwrap_or((u64::MAX, u64::MAX));
    e.private_acts(log)
        .iter()
        .filter(|p| {
            let limit = if p.seat == referee {
                referee_count
            } else {
                mover_count
            };
            p.at.seq < limit
        })
        .filter_map(|p| acts::decode(&p.bytes).ok())
        .collect()
}

/// What the referee's seal of a period log covers: (mover's envelopes, referee's).
fn seal_counts(e: &Engine<Stallmate>, log: LogId, moving: Seat) -> Option<(u64, u64)> {
    let referee = e.rules().referee;
    let seal = e.seal(ChainId { log, seat: referee })?;
    let env = e.envelope(seal)?;
    let mover_count = env
        .unsigned()
        .acks
        .iter()
        .find(|a| a.chain == ChainId { log, seat: moving })
        .map_or(0, |a| a.seq + 1);
    Some((mover_count, seal.seq))
}

/// The digest of a sealed period log (spec/PROTOCOL.md §2.3).
fn sealed_digest(e: &Engine<Stallmate>, n: u32) -> Option<Hash> {
    let log = period_log(n);
    let referee = e.rules().referee;
    let moving = seat(mover(n));
    let (m, r) = seal_counts(e, log, moving)?;
    let head = |s: Seat, count: u64| -> Option<Hash> {
        if count == 0 {
            return Some(Hash::ZERO);
        }
        e.envelope(EnvRef {
            chain: ChainId { log, seat: s },
            seq: count - 1,
        })
        .map(|env| env.hash)
    };
    let mut heads = vec![
        (moving, m, head(moving, m)?),
        (referee, r, head(referee, r)?),
    ];
    heads.sort_by_key(|h| h.0);
    Some(digest(e.terms().game(), log, &heads))
}

/// A setup as this engine knows it (shown to it, or public after the game).
fn army(e: &Engine<Stallmate>, side: Color) -> Option<Setup> {
    e.setup_value(seat(side), &setup_name())
        .map(|h| Setup::from_seed(&h.0))
}

/// The whole game as the referee knows it: both armies shown to him, every closed
/// period as sealed, and the running period's answered attempts.
pub fn hidden_game(e: &Engine<Stallmate>) -> Option<Referee> {
    let state = e.state()?;
    let mut r = Referee::new(
        army(e, Color::White)?,
        army(e, Color::Black)?,
        e.rules().options,
    );
    state.begun?;
    for n in 0..=state.period {
        let mut waiting = None;
        for act in covered(e, n) {
            match act {
                Private::Attempt(a) => waiting = Some(a),
                Private::Answer(_) => {
                    if let Some(a) = waiting.take() {
                        let _ = r.attempt(a);
                    }
                }
            }
        }
        if n < state.period {
            let _ = r.end_period();
        }
    }
    Some(r)
}

/// One player's knowledge, from his own engine: his army (shown to the referee by his
/// own node), the answers in his periods, and what he heard after the opponent's.
pub fn mover_view(e: &Engine<Stallmate>, me: Seat) -> Option<MoverView> {
    let state = e.state()?;
    let side = color(me);
    let mut view = MoverView::new(side, army(e, side)?, e.rules().options);
    for n in 0..=state.period {
        if mover(n) == side {
            let mut waiting = None;
            for act in covered(e, n) {
                match act {
                    Private::Attempt(a) => waiting = Some(a),
                    Private::Answer(answer) => {
                        if let Some(a) = waiting.take() {
                            view.record(a, answer);
                        }
                    }
                }
            }
        } else if let Some(end) = state.heard.get(n as usize) {
            view.hear(&end.heard);
        }
    }
    Some(view)
}

/// The attempt this seat made in the running period that still waits for its answer.
fn unanswered(e: &Engine<Stallmate>, n: u32) -> Option<Attempt> {
    unanswered_at(e, n).map(|(a, _)| a)
}

/// The same, with the envelope that made it.
fn unanswered_at(e: &Engine<Stallmate>, n: u32) -> Option<(Attempt, EnvRef)> {
    let last = e.private_acts(period_log(n)).last()?;
    match acts::decode::<Private>(&last.bytes).ok()? {
        Private::Attempt(a) => Some((a, last.at)),
        Private::Answer(_) => None,
    }
}

fn sealed(e: &Engine<Stallmate>, n: u32) -> bool {
    e.seal(ChainId {
        log: period_log(n),
        seat: e.rules().referee,
    })
    .is_some()
}

/// Whether the mover sealed his own period log: he says no more, and an answer after
/// it would be ignored (spec/PROTOCOL.md §8.11.3), so none is given.
fn mover_sealed(e: &Engine<Stallmate>, n: u32) -> bool {
    e.seal(ChainId {
        log: period_log(n),
        seat: seat(mover(n)),
    })
    .is_some()
}

/// The referee's duties at time `now`.
fn referee_duty(s: &Session<Stallmate>, now: u64) -> Option<Command> {
    let e = s.engine();
    let state = e.state()?;
    if e.is_over() {
        return None;
    }
    let Some(ends_at) = state.ends_at else {
        // Start the clock once both armies are shown: every answer needs both.
        let ready = army(e, Color::White).is_some() && army(e, Color::Black).is_some();
        return ready.then(|| Command::act(acts::encode(&Public::Begin)));
    };
    let n = state.period;
    let log = period_log(n);
    // With a witness the period runs in its time (§5.14): an attempt counts only once
    // stamped inside it, and the seal waits until the witness's clock is past its end.
    let witnessed = e.terms().witness().is_some();
    if !sealed(e, n) {
        if let Some((a, at)) = unanswered_at(e, n).filter(|_| !mover_sealed(e, n)) {
            let late = match witnessed.then(|| live::attempted(s, at)) {
                None | Some(Attempted::InTime) => false,
                Some(Attempted::Late) => true,
                Some(Attempted::Unknown) => return None,
            };
            if late {
                let over = now >= ends_at && live::ended(s, now);
                return over.then_some(Command::Seal { log });
            }
            let mut r = hidden_game(e)?;
            let answer = r.attempt(a).ok()?;
            return Some(Command::PrivateAct {
                log,
                act: acts::encode(&Private::Answer(answer)),
            });
        }
        // The period ends at its fixed time whatever happened in it, so the opponent
        // learns nothing from when the close comes.
        let over = now >= ends_at && (!witnessed || live::ended(s, now));
        return over.then_some(Command::Seal { log });
    }
    if now < ends_at {
        return None;
    }
    let mut r = hidden_game(e)?;
    let turn = r.end_period().ok()?;
    let end = PeriodEnd {
        period: n,
        digest: sealed_digest(e, n)?,
        heard: heard(&turn),
        ending: r.ending().copied(),
    };
    Some(Command::act(acts::encode(&Public::Period(end))))
}

/// A player's duty: show his army to the referee, once, as soon as he has joined.
fn player_duty(s: &Session<Stallmate>) -> Option<Command> {
    let e = s.engine();
    let me = s.seat();
    if e.is_over() || !e.has_joined(me) || e.shown().iter().any(|x| x.owner == me) {
        return None;
    }
    Some(Command::ShowSetup {
        log: setup_log(color(me)),
        setup: setup_name(),
    })
}

/// Whether the player at `s` may attempt now.
fn can_attempt(s: &Session<Stallmate>, state: &State) -> bool {
    let e = s.engine();
    state.begun.is_some()
        && mover(state.period) == color(s.seat())
        && !sealed(e, state.period)
        && unanswered(e, state.period).is_none()
        && mover_view(e, s.seat()).is_some_and(|v| v.my_turn())
}

fn attempt_command(state: &State, attempt: Attempt) -> Command {
    Command::PrivateAct {
        log: period_log(state.period),
        act: acts::encode(&Private::Attempt(attempt)),
    }
}

/// What the node of the seat at `s` does by itself at time `now`: a player shows his
/// army to the referee; the referee starts the clock, answers, seals and closes.
pub fn duty(s: &Session<Stallmate>, now: u64) -> Option<Command> {
    <Stallmate as Automation>::duty(s, now)
}

/// A random player's next attempt (the bot of [`super::bot`] on this seat's own view);
/// `None` when the seat may not attempt now.
pub fn bot_attempt(s: &Session<Stallmate>, pick: u64) -> Option<Command> {
    let state = s.engine().state()?;
    if s.seat() == s.engine().rules().referee || s.engine().is_over() {
        return None;
    }
    <Stallmate as Automation>::bot(s, state, pick)
}

/// How the player at `seat` types an attempt, whoever answers it (a referee, or the
/// computation of the two players: `duo`): the examples are his own side's moves.
pub(crate) fn hints(seat: Seat) -> Vec<String> {
    let example = match super::peer::color(seat) {
        crate::chess::Color::White => {
            "e.g. e2-e4 (castling: the king onto its own rook, e.g. e1-h1; promotion e7-e8=Q)"
        }
        crate::chess::Color::Black => {
            "e.g. e7-e5 (castling: the king onto its own rook, e.g. e8-h8; promotion e2-e1=Q)"
        }
    };
    vec![
        format!("<from>-<to>, {example}"),
        "any? (is there a pawn capture?)".to_owned(),
    ]
}

/// The attempts a player may click, from his own view: every candidate move, and "Any?".
pub(crate) fn view_choices(view: &MoverView) -> Vec<Choice> {
    let mut v: Vec<Choice> = view
        .candidates()
        .into_iter()
        .filter_map(|a| {
            let (from, to, _) = a.squares()?;
            Some(Choice::shift(from, to, a.to_string(), a.to_string()))
        })
        .collect();
    v.push(Choice::button("Any? (is there a pawn capture?)", "any?"));
    v
}

/// A player's own army as text, with this period's attempts and their answers.
pub(crate) fn view_board(view: &MoverView) -> String {
    let mut out = String::from("your army (the opponent's is hidden):\n");
    out.push_str(&diagram(view.board()));
    for (a, answer) in view.entries() {
        out.push_str(&format!("{a}: {answer}\n"));
    }
    out
}

/// This period's attempts and answers, for a page that lists them.
pub(crate) fn view_attempts(view: &MoverView) -> Vec<shape::Attempt> {
    view.entries()
        .iter()
        .map(|(a, answer)| shape::Attempt {
            attempt: a.to_string(),
            answer: answer.to_string(),
        })
        .collect()
}

/// A board as eight lines of text, White's side at the bottom; `.` for an empty square.
pub fn diagram(pos: &Position) -> String {
    let mut out = String::new();
    for rank in (0..8u8).rev() {
        out.push(char::from(b'1' + rank));
        out.push(' ');
        for file in 0..8u8 {
            let c = Square::from_index(rank * 8 + file)
                .and_then(|sq| pos.piece_at(sq))
                .map_or('.', |p| p.fen_char());
            out.push(c);
            out.push(' ');
        }
        out.pop();
        out.push('\n');
    }
    out.push_str("  a b c d e f g h\n");
    out
}

/// What this seat sees of the board: the whole game (the referee, and everyone once
/// the game is over and both armies are open), turned to `Color`'s side; else this
/// player's own army.
enum Seen {
    Whole(Referee, Color),
    Own(MoverView),
}

fn seen(s: &Session<Stallmate>) -> Option<Seen> {
    let e = s.engine();
    let referee = s.seat() == e.rules().referee;
    let from = if referee {
        Color::White
    } else {
        color(s.seat())
    };
    if let Some(r) = (referee || e.is_over()).then(|| hidden_game(e)).flatten() {
        return Some(Seen::Whole(r, from));
    }
    // The referee has no army of his own: before the game begins he sees no board.
    (!referee)
        .then(|| mover_view(e, s.seat()))
        .flatten()
        .map(Seen::Own)
}

impl Game for Stallmate {
    const VARIANT: &'static str = VARIANT;

    fn acting(s: &Session<Self>, state: &State) -> Option<Seat> {
        if state.begun.is_some() {
            Some(seat(mover(state.period)))
        } else {
            s.engine().to_act()
        }
    }

    fn awaiting(s: &Session<Self>, state: &State) -> Option<String> {
        // Read after "waiting for ", with each seat named as its player reads it.
        let referee = s.engine().rules().referee;
        let who = |x: Seat| crate::table::words::who(s.engine().terms(), s.seat(), x);
        if state.begun.is_none() {
            return Some(format!(
                "{} to start the clock once both armies are shown to it",
                who(referee)
            ));
        }
        let n = state.period;
        let moving = seat(mover(n));
        Some(if s.seat() == referee {
            format!(
                "{} to move in period {n}; you answer and close it at its end",
                who(moving)
            )
        } else if s.seat() == moving && unanswered(s.engine(), n).is_some() {
            format!("{}'s answer to your attempt (period {n})", who(referee))
        } else if s.seat() == moving {
            format!(
                "{} to close period {n} at its end (your move is made)",
                who(referee)
            )
        } else {
            format!(
                "{} to move in period {n}; {} closes it at its end",
                who(moving),
                who(referee)
            )
        })
    }

    fn ready(s: &Session<Self>, state: &State) -> bool {
        s.seat() != s.engine().rules().referee && can_attempt(s, state)
    }
}

impl Face for Stallmate {
    fn side(seat: Seat) -> Option<String> {
        Some(
            match seat.0 {
                0 => "White",
                1 => "Black",
                _ => "Referee",
            }
            .to_owned(),
        )
    }

    fn prompt(s: &Session<Self>, state: &State) -> String {
        let answers = mover_view(s.engine(), s.seat())
            .map(|v| v.entries().len())
            .unwrap_or(0);
        if answers == 0 {
            format!("your move period {}: try a move or ask any?", state.period)
        } else {
            format!("still your period {}: try another move", state.period)
        }
    }

    type Error = AttemptRefused;

    fn parse(s: &Session<Self>, state: &State, text: &str) -> Result<Command, AttemptRefused> {
        let attempt: Attempt = text.trim().parse()?;
        if !can_attempt(s, state) {
            return Err(AttemptRefused::WaitForReferee);
        }
        Ok(attempt_command(state, attempt))
    }

    fn hints(s: &Session<Self>, _state: &State) -> Vec<String> {
        hints(s.seat())
    }

    fn choices(s: &Session<Self>, state: &State) -> Vec<Choice> {
        if !can_attempt(s, state) {
            return vec![];
        }
        mover_view(s.engine(), s.seat())
            .map(|view| view_choices(&view))
            .unwrap_or_default()
    }

    fn board(s: &Session<Self>, state: &State) -> String {
        let e = s.engine();
        let mut out = String::new();
        // The referee sees both armies; so does everyone once the game is over and the
        // armies and logs are published.
        let whole = (s.seat() == e.rules().referee || e.is_over())
            .then(|| hidden_game(e))
            .flatten();
        if let Some(r) = whole {
            out.push_str(&diagram(r.position()));
        } else if let Some(view) = mover_view(e, s.seat()) {
            out.push_str(&view_board(&view));
        }
        if let Some(last) = state.heard.last() {
            let words: Vec<String> = last.heard.iter().map(ToString::to_string).collect();
            out.push_str(&format!(
                "period {} heard: {}\n",
                last.period,
                if words.is_empty() {
                    "nothing".to_owned()
                } else {
                    words.join(", ")
                }
            ));
        }
        out
    }

    fn hand(s: &Session<Self>) -> (Option<String>, Hand) {
        let e = s.engine();
        let army = |side| army(e, side).map(|x| x.letters());
        let mine = (s.seat() != e.rules().referee)
            .then(|| army(color(s.seat())))
            .flatten();
        // This period's attempts with the referee's answers (the mover's own), and what
        // every seat heard at the end of each period, for a page that lists them.
        let attempts = mover_view(e, s.seat())
            .map(|v| view_attempts(&v))
            .unwrap_or_default();
        let heard: Vec<shape::Heard> = e
            .state()
            .map(|st| {
                st.heard
                    .iter()
                    .map(|p| shape::Heard {
                        period: p.period,
                        words: p.heard.iter().map(ToString::to_string).collect(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        // When the running period closes, by the referee's clock (ms since the Unix
        // epoch): the board counts down to it (`web/assets/clocks.js`).
        let ends = (!e.is_over())
            .then(|| e.state().and_then(|st| st.ends_at))
            .flatten();
        (
            mine.as_ref().map(|m| format!("your army: {m}")),
            Hand::Stallmate(shape::StallmateHand {
                army: mine,
                attempts,
                heard,
                period_ends_ms: ends,
                node_now_ms: None,
            }),
        )
    }

    fn svg(_state: &State) -> Option<String> {
        None
    }

    fn grid(s: &Session<Self>, _state: &State) -> Option<Grid> {
        // What `board` shows as text: both armies to the referee and to everyone once
        // the game is over, else this player's own army alone.
        match seen(s)? {
            Seen::Whole(r, from) => Some(Grid::chess(r.position(), from, |_| vec![])),
            Seen::Own(view) => Some(Grid::chess(view.board(), view.color(), |_| vec![])),
        }
    }

    fn boards(s: &Session<Self>, _acts: &[Public]) -> Vec<(Grid, Vec<String>)> {
        match seen(s) {
            Some(Seen::Whole(r, from)) => super::steps::of_game(&r, from),
            Some(Seen::Own(view)) => super::steps::of_player(&view),
            None => vec![],
        }
    }

    fn score(s: &Session<Self>, _state: &State, _acts: &[Public]) -> Option<String> {
        // The whole game can be written only by who saw both armies: the referee, or
        // anyone once the game is over and everything is published.
        hidden_game(s.engine()).map(|r| super::record::write(&r))
    }

    fn pgn(s: &Session<Self>, _state: &State) -> Option<String> {
        let r = hidden_game(s.engine())?;
        Some(super::pgn::of_game(
            &r,
            s.engine().terms(),
            sealed_protocol::session::AnySession::timeline(s).started,
            s.verdict().outcome.as_ref(),
        ))
    }
}

impl Automation for Stallmate {
    fn due_at(s: &Session<Self>, state: &State) -> Option<u64> {
        if s.seat() != s.engine().rules().referee {
            return None;
        }
        let ends_at = state.ends_at?;
        // With a witness the seal waits for its clock too: wake when that is due, not
        // again and again before it (an arriving stamp wakes the duty by itself).
        if s.engine().terms().witness().is_some() && !sealed(s.engine(), state.period) {
            return live::ends_by_own_clock(s).map(|t| t.max(ends_at));
        }
        Some(ends_at)
    }

    fn duty(s: &Session<Self>, now: u64) -> Option<Command> {
        if s.seat() == s.engine().rules().referee {
            referee_duty(s, now)
        } else {
            player_duty(s)
        }
    }

    fn bot(s: &Session<Self>, state: &State, pick: u64) -> Option<Command> {
        if !can_attempt(s, state) {
            return None;
        }
        let view = mover_view(s.engine(), s.seat())?;
        bot::choose(&view, pick).map(|a| attempt_command(state, a))
    }
}

#[cfg(test)]
mod tests {
    use sealed_protocol::ids::Seat;

    /// Issue 55: Black is shown Black's moves as examples, not `e2-e4`.
    #[test]
    fn each_side_is_shown_its_own_moves() {
        let white = super::hints(Seat(0)).join(" ");
        let black = super::hints(Seat(1)).join(" ");
        assert!(
            white.contains("e2-e4") && white.contains("e1-h1"),
            "{white}"
        );
        assert!(
            black.contains("e7-e5") && black.contains("e8-h8"),
            "{black}"
        );
        assert!(
            !black.contains("e2-e4") && !black.contains("e1-h1"),
            "{black}"
        );
    }
}
