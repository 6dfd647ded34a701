//! Game clocks: how long each player has taken, charged to whoever owes the next act.
//!
//! Cryptography cannot prove when something was *not* sent (spec/PROTOCOL.md §10.2), so
//! a clock here never decides a game: an overdue player only earns a `Timeout` claim,
//! which the verdict shows as open until he moves again. The clock is therefore computed
//! the same way on both nodes, from what both hold — the signers' own clock readings on
//! the accepted acts — plus, for the wait in progress, this node's `now`. Nothing is
//! stored: after a restart the envelopes give the same clocks back.
//!
//! The time control is agreed in the proposal through the `time-` options, which the
//! rules never see (`Proposal::rule_options`):
//!
//! | option | value | meaning |
//! |---|---|---|
//! | `time-per-move` | a duration (`30s`, `10m`, `12h`, `3d`) | how long each act may take at no cost |
//! | `time-moves`, `time-period` | a number N, a duration D (protocol version 2) | N moves in every D, accumulating, as correspondence players play: every wait is charged |
//! | `time-leave` | a duration, default `0s` | each player's leave for the whole game: a wait beyond the pace is charged to it (a postal player's leave, or a live player's bank) |
//!
//! A player is **overdue** when the wait in progress exceeds what the pace allows him
//! now, leave included (`TimeControl::allowance`). With a witness the clock that decides
//! is the witness's (spec/PROTOCOL.md §17); this one says how things stand.

use std::collections::BTreeMap;

use sealed_games::table::Timeline;
use sealed_protocol::ids::Seat;

pub use sealed_protocol::time::{Pace, TimeControl, parse_duration};

/// Writes milliseconds back in the largest whole unit that fits, e.g. `2d 3h`.
pub fn show_duration(ms: u64) -> String {
    let s = ms / 1000;
    let (d, h, m, sec) = (s / 86_400, s / 3600 % 24, s / 60 % 60, s % 60);
    let parts: Vec<String> = [(d, "d"), (h, "h"), (m, "m"), (sec, "s")]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .take(2)
        .map(|(n, u)| format!("{n}{u}"))
        .collect();
    if parts.is_empty() {
        "0s".into()
    } else {
        parts.join(" ")
    }
}

/// One player's clock.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SeatClock {
    /// The seat.
    pub seat: u8,
    /// What his finished waits (and the wait in progress, if his) were charged, ms:
    /// beyond the per-move time, or all of it under N moves in D.
    pub charged_ms: u64,
    /// Moves made.
    pub moves: u64,
    /// Leave left, ms: what is left of it once the pace's own time is counted.
    pub leave_left_ms: u64,
}

/// The clocks of a game at one moment.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Clocks {
    /// Every player's clock.
    pub seats: Vec<SeatClock>,
    /// The seat whose act is awaited, if the game is on.
    pub owing: Option<u8>,
    /// How long it has been waited for, ms.
    pub waited_ms: u64,
    /// Time left before it is overdue (0 when it is).
    pub left_ms: u64,
    /// The awaited seat has let its time pass: the others may claim a timeout.
    pub overdue: bool,
    /// The first moment the awaited seat is overdue, ms since the Unix epoch, whether
    /// it has come or not: the same at every reading, so a deadline computed from it
    /// (`game/states.rs` `Played::runs_out`) does not move with the clock of whoever asks. None before
    /// the wait has a start. Not shown: faces read `left_ms` and `overdue`.
    #[serde(skip)]
    pub out_at: Option<u64>,
    /// Whether the time control gives a reserve (`time-leave`) at all.
    pub reserve: bool,
    /// Whether the wait in progress is counted by the witness's times (the ones a
    /// forfeit uses) rather than the players' readings.
    pub by_witness: bool,
}

impl Clocks {
    /// Charges every wait of `timeline` to the seat that made it, and the wait in
    /// progress to `owing`. A clock reading earlier than the one before (a skewed or
    /// lying clock) counts as no wait, never as negative time. In a game that counts
    /// its own moves (Secret Stallmate without a referee), the waits of one move of the
    /// mover's are charged as one and the wait in progress continues the move under
    /// way, as the witness's clock counts them (spec/PROTOCOL.md §17.7).
    pub fn compute(
        tc: &TimeControl,
        players: u8,
        timeline: &Timeline,
        owing: Option<Seat>,
        now: u64,
    ) -> Clocks {
        let n = usize::from(players);
        let (mut charged, mut moves) = (vec![0u64; n], vec![0u64; n]);
        // A game that counts its moves: each seat's waits as the mover, by move number.
        let counted = timeline
            .moves_now
            .as_ref()
            .filter(|_| timeline.moves.len() == timeline.acts.len());
        let mut own: Vec<BTreeMap<u64, u64>> = vec![BTreeMap::new(); n];
        let mut last = timeline.started;
        for (k, &(seat, clock)) in timeline.acts.iter().enumerate() {
            let Some(i) = Some(usize::from(seat.0)).filter(|i| *i < n) else {
                continue;
            };
            let wait = last.map(|prev| clock.saturating_sub(prev));
            let mover = counted
                .and_then(|_| timeline.moves.get(k))
                .filter(|m| m.mover == Some(seat));
            match (wait, mover) {
                (Some(w), Some(m)) => {
                    let spent = own[i].entry(m.made_by(seat)).or_default();
                    *spent = spent.saturating_add(w);
                }
                (Some(w), None) => charged[i] = charged[i].saturating_add(tc.charge(w)),
                (None, _) => {}
            }
            moves[i] += 1;
            last = Some(last.map_or(clock, |p| p.max(clock)));
        }
        let waited = match (owing, last) {
            (Some(_), Some(prev)) => now.saturating_sub(prev),
            _ => 0,
        };
        let owing_i = owing.map(|s| usize::from(s.0)).filter(|i| *i < n);
        // The move under way: what the owing seat spent on it before this wait.
        let mut spent = 0;
        if let Some(m) = counted {
            for (i, waits) in own.iter_mut().enumerate() {
                let seat = Seat(i as u8);
                moves[i] = m.made_by(seat);
                if m.mover == Some(seat) && owing_i == Some(i) {
                    spent = waits.remove(&moves[i]).unwrap_or(0);
                }
                for w in waits.values() {
                    charged[i] = charged[i].saturating_add(tc.charge(*w));
                }
            }
        }
        let (left_ms, overdue, out_at) = match owing_i {
            Some(i) => {
                let allowed = tc.allowance_within(moves[i], charged[i], spent);
                // Overdue once the wait is longer than allowed: from `allowed + 1` on.
                let out_at = last.map(|prev| prev.saturating_add(allowed).saturating_add(1));
                (allowed.saturating_sub(waited), waited > allowed, out_at)
            }
            None => (0, false, None),
        };
        if let Some(i) = owing_i {
            // The move's earlier waits and this one, charged as one.
            charged[i] = charged[i].saturating_add(tc.charge(spent.saturating_add(waited)));
        }
        // The leave left is what the pace allows beyond its own time, at most the leave.
        let pace_only = TimeControl { leave_ms: 0, ..*tc };
        let leave_left = |i: usize| {
            let own = match tc.pace {
                Pace::PerMove(_) => 0,
                Pace::Period { .. } => pace_only.allowance(moves[i], 0),
            };
            (own.saturating_add(tc.leave_ms))
                .saturating_sub(charged[i])
                .min(tc.leave_ms)
        };
        Clocks {
            seats: (0..players)
                .map(|p| SeatClock {
                    seat: p,
                    charged_ms: charged[usize::from(p)],
                    moves: moves[usize::from(p)],
                    leave_left_ms: leave_left(usize::from(p)),
                })
                .collect(),
            owing: owing.map(|s| s.0),
            waited_ms: waited,
            left_ms,
            overdue,
            out_at,
            reserve: tc.leave_ms > 0,
            by_witness: false,
        }
    }

    /// The wait in progress as the witness counts it: started at `since`, out of time
    /// after `deadline` (its clock, which `now` stands for). The seats' leave stays as
    /// the readings give it.
    pub fn by_witness(mut self, since: u64, deadline: u64, now: u64) -> Clocks {
        self.waited_ms = now.saturating_sub(since);
        self.left_ms = deadline.saturating_sub(now);
        self.overdue = now > deadline;
        self.out_at = Some(deadline.saturating_add(1));
        self.by_witness = true;
        self
    }

    /// One line for people, each seat named by `who` (`you`, a name, `seat 1`), e.g.
    /// `bob to move: waited 2h, 22h left; leave: you 3d, bob 2d 4h`. The leave is
    /// said only when the time control has one; a finished game has no clock line at all
    /// (the node shows none).
    pub fn line(&self, who: &dyn Fn(u8) -> String) -> String {
        let reserves: Vec<String> = self
            .seats
            .iter()
            .map(|s| format!("{} {}", who(s.seat), show_duration(s.leave_left_ms)))
            .collect();
        let reserve = if self.reserve {
            format!("; leave: {}", reserves.join(", "))
        } else {
            String::new()
        };
        let by = if self.by_witness {
            " by the witness's times"
        } else {
            ""
        };
        match self.owing {
            Some(s) if self.overdue => format!(
                "{} is overdue{by}: waited {}{reserve}",
                who(s),
                show_duration(self.waited_ms),
            ),
            Some(s) => format!(
                "{} to move: waited {}, {} left{by}{reserve}",
                who(s),
                show_duration(self.waited_ms),
                show_duration(self.left_ms),
            ),
            // Never an empty line: whose time runs, or why nobody's does.
            None if self.seats.iter().all(|s| s.moves == 0) => {
                format!("not running yet: it starts with the game's first move{reserve}")
            }
            None => format!("nobody's time runs now{reserve}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sealed_protocol::rules::Moves;

    const DAY: u64 = 86_400_000;

    fn tc(per_move: u64, leave: u64) -> TimeControl {
        TimeControl {
            pace: Pace::PerMove(per_move),
            leave_ms: leave,
        }
    }

    #[test]
    fn durations_parse_and_print() {
        assert_eq!(parse_duration("3d"), Ok(3 * DAY));
        assert_eq!(parse_duration("12h"), Ok(12 * 3_600_000));
        assert_eq!(parse_duration("10m"), Ok(600_000));
        assert_eq!(parse_duration("30s"), Ok(30_000));
        // The terms' text is read as written (spec/PROTOCOL.md §5.4): no spaces.
        for bad in [
            " 30s ",
            "",
            "3",
            "d",
            "3w",
            "-1d",
            "1.5d",
            "99999999999999999999d",
            "400d",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad:?}");
        }
        assert_eq!(show_duration(0), "0s");
        assert_eq!(show_duration(2 * DAY + 3 * 3_600_000 + 5_000), "2d 3h");
        assert_eq!(show_duration(61_000), "1m 1s");
    }

    #[test]
    fn waits_within_the_move_time_cost_nothing() {
        let t = Timeline {
            started: Some(0),
            acts: vec![(Seat(0), DAY), (Seat(1), 3 * DAY), (Seat(0), 4 * DAY)],
            ..Timeline::default()
        };
        let c = Clocks::compute(&tc(3 * DAY, 10 * DAY), 2, &t, Some(Seat(1)), 5 * DAY);
        assert_eq!(c.seats[0].charged_ms, 0);
        assert_eq!(c.seats[1].charged_ms, 0);
        assert_eq!(c.waited_ms, DAY);
        assert_eq!(c.left_ms, 12 * DAY);
        assert!(!c.overdue);
    }

    #[test]
    fn the_moment_out_of_time_is_the_same_at_every_reading() {
        let t = Timeline {
            started: Some(0),
            acts: vec![(Seat(0), DAY), (Seat(1), 3 * DAY), (Seat(0), 4 * DAY)],
            ..Timeline::default()
        };
        let tc = tc(3 * DAY, 10 * DAY);
        let at = |now| Clocks::compute(&tc, 2, &t, Some(Seat(1)), now);
        // Seat 1 owes from day 4 with 13 days allowed: overdue from 17 days and 1 ms.
        let out = 17 * DAY + 1;
        for now in [5 * DAY, 17 * DAY, out, out + 1, 30 * DAY] {
            let c = at(now);
            assert_eq!(c.out_at, Some(out), "read at {now}");
            assert_eq!(c.overdue, now >= out, "read at {now}");
            if !c.overdue {
                assert_eq!(now + c.left_ms + 1, out);
            }
        }
        // By the witness's times: from its deadline on, at every reading.
        for now in [DAY, 40 * DAY] {
            let c = at(now).by_witness(4 * DAY, 20 * DAY, now);
            assert_eq!(c.out_at, Some(20 * DAY + 1));
        }
    }

    #[test]
    fn a_long_wait_is_charged_to_the_one_who_owed_the_act() {
        // Seat 1 took 5 days with 3 per move: 2 days of reserve gone.
        let t = Timeline {
            started: Some(0),
            acts: vec![(Seat(0), DAY), (Seat(1), 6 * DAY)],
            ..Timeline::default()
        };
        let c = Clocks::compute(&tc(3 * DAY, 10 * DAY), 2, &t, Some(Seat(0)), 6 * DAY);
        assert_eq!(c.seats[0].charged_ms, 0);
        assert_eq!(c.seats[1].charged_ms, 2 * DAY);
        assert_eq!(c.seats[1].leave_left_ms, 8 * DAY);
    }

    #[test]
    fn overdue_only_past_the_move_time_and_the_reserve_left() {
        let t = Timeline {
            started: Some(0),
            acts: vec![(Seat(0), 0), (Seat(1), 5 * DAY)],
            ..Timeline::default()
        };
        // Seat 1 has 1 day of reserve left (3 used of 4); seat 0 owes now.
        let control = tc(2 * DAY, 4 * DAY);
        let at = |now| Clocks::compute(&control, 2, &t, Some(Seat(0)), now);
        assert!(!at(5 * DAY + 6 * DAY).overdue, "2 days + 4 days reserve");
        assert!(at(5 * DAY + 6 * DAY + 1).overdue);
        assert_eq!(at(5 * DAY + 6 * DAY + 1).left_ms, 0);
        // The wait in progress is charged to the seat that owes it.
        assert_eq!(at(5 * DAY + 3 * DAY).seats[0].charged_ms, DAY);
    }

    #[test]
    fn n_moves_in_d_days_charges_every_wait_and_grants_d_again_after_n_moves() {
        // Two moves in 10 days, 4 days of leave. Seat 1 moved at day 3 and day 9.
        let control = TimeControl {
            pace: Pace::Period {
                moves: 2,
                period_ms: 10 * DAY,
            },
            leave_ms: 4 * DAY,
        };
        let t = Timeline {
            started: Some(0),
            acts: vec![
                (Seat(0), 0),
                (Seat(1), 3 * DAY),
                (Seat(0), 4 * DAY),
                (Seat(1), 9 * DAY),
                (Seat(0), 10 * DAY),
            ],
            ..Timeline::default()
        };
        let at = |now| Clocks::compute(&control, 2, &t, Some(Seat(1)), now);
        // Seat 1 spent 3 + 5 days on its first two moves; its next two have until 20
        // days in all, and the 4 of leave: 16 left, the leave untouched.
        let c = at(10 * DAY);
        assert_eq!((c.seats[1].moves, c.seats[1].charged_ms), (2, 8 * DAY));
        assert_eq!(c.left_ms, 16 * DAY);
        assert_eq!(c.seats[1].leave_left_ms, 4 * DAY);
        // 13 days into the wait the pace's own time is gone and the leave is drawn on.
        assert_eq!(at(23 * DAY).seats[1].leave_left_ms, 3 * DAY);
        assert!(!at(26 * DAY).overdue);
        assert!(at(26 * DAY + 1).overdue);
    }

    #[test]
    fn a_clock_going_backwards_counts_as_no_wait() {
        let t = Timeline {
            started: Some(10 * DAY),
            acts: vec![(Seat(0), 0), (Seat(1), DAY)],
            ..Timeline::default()
        };
        let c = Clocks::compute(&tc(1000, 0), 2, &t, Some(Seat(0)), 0);
        assert_eq!(c.seats[0].charged_ms, 0);
        assert_eq!(c.seats[1].charged_ms, 0);
        assert_eq!(c.waited_ms, 0);
        assert!(!c.overdue);
    }

    #[test]
    fn nobody_owes_before_the_start_or_after_the_end() {
        let c = Clocks::compute(&tc(1000, 0), 2, &Timeline::default(), Some(Seat(1)), 50_000);
        assert!(!c.overdue, "no start time: nothing to measure from");
        let t = Timeline {
            started: Some(0),
            ..Timeline::default()
        };
        let c = Clocks::compute(&tc(1000, 0), 2, &t, None, 50_000);
        assert!(!c.overdue);
        assert_eq!(c.owing, None);
    }

    /// Secret Stallmate without a referee: seat 0's move under way, `made` moves made.
    fn moving(made: [u64; 2], mover: u8) -> Moves {
        Moves {
            made: made.to_vec(),
            mover: Some(Seat(mover)),
        }
    }

    #[test]
    fn a_move_of_many_attempts_has_the_time_of_one_move() {
        const MIN: u64 = 60_000;
        // An hour a move, no leave. Seat 0 attempts after 40 minutes and again after 15,
        // seat 1 answering each within a second: one chess move, still under way.
        let t = Timeline {
            started: Some(0),
            acts: vec![
                (Seat(0), 40 * MIN),
                (Seat(1), 40 * MIN + 1000),
                (Seat(0), 55 * MIN + 1000),
                (Seat(1), 55 * MIN + 2000),
            ],
            moves: vec![moving([0, 0], 0); 4],
            moves_now: Some(moving([0, 0], 0)),
            ..Timeline::default()
        };
        let hour = tc(60 * MIN, 0);
        let at = |now| Clocks::compute(&hour, 2, &t, Some(Seat(0)), now);
        // 55 minutes spent on the move: 5 are left, not the hour a new act would have.
        let c = at(55 * MIN + 2000 + 4 * MIN);
        assert_eq!((c.left_ms, c.overdue), (MIN, false));
        assert!(at(55 * MIN + 2000 + 6 * MIN).overdue);
        // Counted as acts, the same waits were each a move's own.
        let acts = Timeline {
            moves: vec![],
            moves_now: None,
            ..t.clone()
        };
        assert!(
            !Clocks::compute(&hour, 2, &acts, Some(Seat(0)), 55 * MIN + 2000 + 6 * MIN).overdue
        );
        // Seat 1's answers are its own waits, each charged on its own; its moves are
        // the chess moves made, none yet.
        assert_eq!((c.seats[1].moves, c.seats[1].charged_ms), (0, 0));
    }

    #[test]
    fn a_finished_move_is_charged_once_and_the_next_starts_afresh() {
        const MIN: u64 = 60_000;
        // Ten minutes a move and an hour of leave: seat 0's move took 8 + 7 minutes.
        let t = Timeline {
            started: Some(0),
            acts: vec![(Seat(0), 8 * MIN), (Seat(1), 8 * MIN), (Seat(0), 15 * MIN)],
            moves: vec![moving([0, 0], 0), moving([0, 0], 0), moving([0, 0], 0)],
            moves_now: Some(moving([1, 0], 1)),
            ..Timeline::default()
        };
        let c = Clocks::compute(&tc(10 * MIN, 60 * MIN), 2, &t, Some(Seat(1)), 15 * MIN);
        assert_eq!((c.seats[0].moves, c.seats[0].charged_ms), (1, 5 * MIN));
        assert_eq!(c.seats[0].leave_left_ms, 55 * MIN);
        // Seat 1's first move: the whole per-move time and its leave.
        assert_eq!(c.left_ms, 70 * MIN);
    }

    #[test]
    fn a_seat_outside_the_players_is_ignored() {
        let t = Timeline {
            started: Some(0),
            acts: vec![(Seat(7), 10 * DAY)],
            ..Timeline::default()
        };
        let c = Clocks::compute(&tc(1000, 0), 2, &t, None, 0);
        assert_eq!(c.seats.len(), 2);
    }

    #[test]
    fn the_line_names_the_seats_and_says_the_leave_only_when_there_is_one() {
        let who = |s: u8| {
            if s == 0 {
                "you".to_owned()
            } else {
                "bob".to_owned()
            }
        };
        let timeline = Timeline {
            started: Some(0),
            acts: vec![(Seat(0), DAY)],
            ..Timeline::default()
        };
        let none = Clocks::compute(&tc(DAY, 0), 2, &timeline, Some(Seat(1)), 2 * DAY);
        assert_eq!(none.line(&who), "bob to move: waited 1d, 0s left");
        let some = Clocks::compute(
            &tc(DAY, 3 * DAY),
            2,
            &timeline,
            Some(Seat(1)),
            DAY + 3_600_000,
        );
        assert_eq!(
            some.line(&who),
            "bob to move: waited 1h, 3d 23h left; leave: you 3d, bob 3d"
        );
        let idle = Clocks::compute(&tc(DAY, 3 * DAY), 2, &timeline, None, 2 * DAY);
        assert_eq!(
            idle.line(&who),
            "nobody's time runs now; leave: you 3d, bob 3d"
        );
        // Never an empty line (issue 32): before the first move, and without a leave.
        let unstarted = Clocks::compute(&tc(DAY, 0), 2, &Timeline::default(), None, DAY);
        assert_eq!(
            unstarted.line(&who),
            "not running yet: it starts with the game's first move"
        );
        let between = Clocks::compute(&tc(DAY, 0), 2, &timeline, None, 2 * DAY);
        assert_eq!(between.line(&who), "nobody's time runs now");
        let overdue = Clocks::compute(&tc(DAY, 0), 2, &timeline, Some(Seat(1)), 3 * DAY);
        assert_eq!(overdue.line(&who), "bob is overdue: waited 2d");
        // By the witness's times: its start and deadline, not the readings'.
        let witnessed = Clocks::compute(&tc(DAY, 0), 2, &timeline, Some(Seat(1)), 3 * DAY)
            .by_witness(3 * DAY - 3_600_000, 4 * DAY, 3 * DAY);
        assert_eq!(
            witnessed.line(&who),
            "bob to move: waited 1h, 1d left by the witness's times"
        );
        let late = witnessed.by_witness(0, DAY, 3 * DAY);
        assert_eq!(
            late.line(&who),
            "bob is overdue by the witness's times: waited 3d"
        );
    }
}
