//! Time controls (spec/PROTOCOL.md §5.4): the `time-` options of a proposal, read once,
//! and how a clock counts against them.
//!
//! They are not rules of any game, but they are part of the terms, so a proposal whose
//! time options a node would refuse is not a valid proposal (§5.1): a node refuses it and a
//! verifier finds its file unreadable, and both read it with this one function.
//!
//! Two paces, each with an optional pool of leave:
//!
//! - **per move** (`time-per-move`): each wait may last that long at no cost; what a wait
//!   lasts beyond it is charged to the leave;
//! - **N moves in D days** (`time-moves`, `time-period`; version 2): every wait is
//!   charged, and the player must have made his N-th move within D, his 2N-th within 2D,
//!   and so on — the correspondence players' accumulating clock;
//! - **leave** (`time-leave`): days the player may spend on any move, beyond the pace,
//!   without announcing them.

use crate::proposal::Proposal;

/// How fast a player must move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pace {
    /// Each wait may last this many milliseconds before it draws on the leave.
    PerMove(u64),
    /// `moves` moves in every `period_ms`, accumulating.
    Period {
        /// N.
        moves: u32,
        /// D, milliseconds.
        period_ms: u64,
    },
}

/// A time control as the proposal agrees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// The pace.
    pub pace: Pace,
    /// Each player's leave for the whole game, milliseconds.
    pub leave_ms: u64,
}

/// Why the time options of a proposal are refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TimeError {
    /// A duration without its unit.
    #[error("{0:?}: give a unit, e.g. 3d, 12h, 10m or 30s")]
    NoUnit(String),
    /// A duration that does not begin with a whole number.
    #[error("{0:?}: a whole number comes first, e.g. 3d")]
    NoNumber(String),
    /// A unit other than s, m, h, d.
    #[error("{0:?}: the unit is s, m, h or d")]
    Unit(String),
    /// Longer than the longest duration allowed.
    #[error("{0:?}: at most 366 days")]
    TooLong(String),
    /// A `time-` key that is no time control (in this version of the protocol).
    #[error(
        "no time option {0} (there are time-per-move and time-leave, and from protocol version 2 time-moves and time-period)"
    )]
    Unknown(String),
    /// `time-moves` that is not a whole number from 1 to 1000.
    #[error("time-moves {0:?}: a whole number of moves from 1 to 1000")]
    Moves(String),
    /// `time-moves` without `time-period`, or the other way round.
    #[error("time-moves and time-period go together")]
    PeriodAlone,
    /// `time-per-move` together with `time-moves`.
    #[error("time-per-move or time-moves, not both")]
    TwoPaces,
    /// `time-period` of zero.
    #[error("time-period must be more than 0s")]
    ZeroPeriod,
    /// `time-per-move` of zero.
    #[error("time-per-move must be more than 0s")]
    ZeroPerMove,
    /// `time-leave` without a pace.
    #[error("time-leave needs time-per-move or time-moves")]
    LeaveAlone,
}

/// Longest duration accepted in an option: 366 days, so that no sum overflows.
pub const MAX_DURATION_MS: u64 = 366 * 86_400_000;

/// Reads `30s`, `10m`, `12h`, `3d` as milliseconds: a decimal number immediately
/// followed by one unit letter, at most [`MAX_DURATION_MS`].
pub fn parse_duration(text: &str) -> Result<u64, TimeError> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| TimeError::NoUnit(text.to_owned()))?;
    let (digits, unit) = text.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| TimeError::NoNumber(text.to_owned()))?;
    let unit_ms = match unit {
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return Err(TimeError::Unit(text.to_owned())),
    };
    match n.checked_mul(unit_ms) {
        Some(ms) if ms <= MAX_DURATION_MS => Ok(ms),
        _ => Err(TimeError::TooLong(text.to_owned())),
    }
}

/// Most moves `time-moves` may name.
pub const MAX_PERIOD_MOVES: u32 = 1000;

impl TimeControl {
    /// The time control a proposal agrees, if any: `Ok(None)` when it sets no `time-`
    /// option, an error naming what is wrong when one is malformed or unknown.
    /// `time-moves` and `time-period` are version 2 options.
    pub fn of(p: &Proposal) -> Result<Option<TimeControl>, TimeError> {
        let (mut per_move, mut leave, mut moves, mut period) = (None, 0, None, None);
        for (k, v) in p.time_options() {
            match k {
                "time-per-move" => per_move = Some(parse_duration(v)?),
                "time-leave" => leave = parse_duration(v)?,
                "time-moves" if crate::proposal::is_version_2(p.version) => {
                    moves = Some(
                        v.parse::<u32>()
                            .ok()
                            .filter(|n| (1..=MAX_PERIOD_MOVES).contains(n))
                            // Only the decimal form: "+5" or "05" would be a second
                            // spelling of the same terms.
                            .filter(|n| n.to_string() == v)
                            .ok_or_else(|| TimeError::Moves(v.to_owned()))?,
                    )
                }
                "time-period" if crate::proposal::is_version_2(p.version) => {
                    period = Some(parse_duration(v)?)
                }
                other => return Err(TimeError::Unknown(other.to_owned())),
            }
        }
        let pace = match (per_move, moves, period) {
            (Some(_), Some(_), _) => return Err(TimeError::TwoPaces),
            (Some(0), ..) => return Err(TimeError::ZeroPerMove),
            (Some(ms), None, None) => Pace::PerMove(ms),
            (Some(_), None, Some(_)) | (None, Some(_), None) | (None, None, Some(_)) => {
                return Err(TimeError::PeriodAlone);
            }
            (None, Some(_), Some(0)) => return Err(TimeError::ZeroPeriod),
            (None, Some(moves), Some(period_ms)) => Pace::Period { moves, period_ms },
            (None, None, None) if leave > 0 => return Err(TimeError::LeaveAlone),
            (None, None, None) => return Ok(None),
        };
        Ok(Some(TimeControl {
            pace,
            leave_ms: leave,
        }))
    }

    /// What one finished wait of `wait_ms` costs the player: beyond the per-move time
    /// under a per-move pace, all of it under N moves in D.
    pub fn charge(&self, wait_ms: u64) -> u64 {
        match self.pace {
            Pace::PerMove(free) => wait_ms.saturating_sub(free),
            Pace::Period { .. } => wait_ms,
        }
    }

    /// How long the wait in progress may last for a player who has made `moves` moves
    /// and been charged `charged_ms` by his finished waits: the per-move time and what
    /// is left of the leave, or, under N moves in D, what is left of the time his next
    /// move must be made within (`(moves / N + 1) × D`) and of his leave.
    pub fn allowance(&self, moves: u64, charged_ms: u64) -> u64 {
        match self.pace {
            Pace::PerMove(free) => free.saturating_add(self.leave_ms.saturating_sub(charged_ms)),
            Pace::Period {
                moves: n,
                period_ms,
            } => (moves / u64::from(n))
                .saturating_add(1)
                .saturating_mul(period_ms)
                .saturating_add(self.leave_ms)
                .saturating_sub(charged_ms),
        }
    }

    /// [`TimeControl::allowance`] for a wait that continues a move of the player's own
    /// whose earlier waits took `spent_ms` (a game that counts moves by its own rules,
    /// spec/PROTOCOL.md §17.7 from draft 10): the per-move time is the move's, once,
    /// whatever number of waits the move takes, and what the move spent beyond it comes
    /// out of the leave. `charged_ms` is what the player's other waits were charged.
    /// With nothing spent, the same as [`TimeControl::allowance`].
    pub fn allowance_within(&self, moves: u64, charged_ms: u64, spent_ms: u64) -> u64 {
        match self.pace {
            Pace::PerMove(free) => {
                let over = spent_ms.saturating_sub(free);
                free.saturating_sub(spent_ms).saturating_add(
                    self.leave_ms
                        .saturating_sub(charged_ms.saturating_add(over)),
                )
            }
            Pace::Period { .. } => self.allowance(moves, charged_ms.saturating_add(spent_ms)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Name;
    use crate::keys::SecretKey;
    use crate::proposal::tests::two_player;

    fn proposal(options: &[(&str, &str)]) -> Proposal {
        let keys = [
            SecretKey::from_seed(&[1; 32]),
            SecretKey::from_seed(&[2; 32]),
        ];
        let mut p = two_player("duel", &[&keys[0], &keys[1]]);
        p.options = options
            .iter()
            .map(|(k, v)| (Name::new(k).unwrap(), (*v).to_owned()))
            .collect();
        p
    }

    #[test]
    fn time_options_are_read_or_refused_with_the_reason() {
        let tc = |o: &[(&str, &str)]| TimeControl::of(&proposal(o));
        assert_eq!(tc(&[]), Ok(None));
        assert_eq!(
            tc(&[("time-leave", "2d"), ("time-per-move", "1h")]),
            Ok(Some(TimeControl {
                pace: Pace::PerMove(3_600_000),
                leave_ms: 2 * 86_400_000
            }))
        );
        assert_eq!(
            tc(&[("time-per-move", "bogus")]),
            Err(TimeError::NoNumber("bogus".into()))
        );
        assert_eq!(
            tc(&[("time-foo", "1s")]),
            Err(TimeError::Unknown("time-foo".into()))
        );
        assert_eq!(tc(&[("time-leave", "10m")]), Err(TimeError::LeaveAlone));
        assert_eq!(tc(&[("time-per-move", "0s")]), Err(TimeError::ZeroPerMove));
        assert_eq!(
            tc(&[("time-per-move", "367d")]),
            Err(TimeError::TooLong("367d".into()))
        );
        assert_eq!(
            tc(&[("time-per-move", "366d")]).map(|t| t.map(|t| t.pace)),
            Ok(Some(Pace::PerMove(MAX_DURATION_MS)))
        );
        // N moves in D days is a version 2 option.
        assert_eq!(
            tc(&[("time-moves", "10"), ("time-period", "50d")]),
            Err(TimeError::Unknown("time-moves".into()))
        );
        // Options that are not time controls are the rules' business.
        assert_eq!(tc(&[("cards", "whatever")]), Ok(None));
    }

    #[test]
    fn n_moves_in_d_days_is_read_in_version_2_or_refused_with_the_reason() {
        let tc = |o: &[(&str, &str)]| {
            let mut p = proposal(o);
            p.version = 2;
            TimeControl::of(&p)
        };
        assert_eq!(
            tc(&[
                ("time-moves", "10"),
                ("time-period", "50d"),
                ("time-leave", "30d")
            ]),
            Ok(Some(TimeControl {
                pace: Pace::Period {
                    moves: 10,
                    period_ms: 50 * 86_400_000
                },
                leave_ms: 30 * 86_400_000
            }))
        );
        for bad in ["0", "1001", "05", "+5", "ten", ""] {
            assert_eq!(
                tc(&[("time-moves", bad), ("time-period", "1d")]),
                Err(TimeError::Moves(bad.into())),
                "{bad:?}"
            );
        }
        assert_eq!(tc(&[("time-moves", "10")]), Err(TimeError::PeriodAlone));
        assert_eq!(tc(&[("time-period", "5d")]), Err(TimeError::PeriodAlone));
        assert_eq!(
            tc(&[("time-per-move", "1d"), ("time-period", "5d")]),
            Err(TimeError::PeriodAlone)
        );
        assert_eq!(
            tc(&[
                ("time-per-move", "1d"),
                ("time-moves", "5"),
                ("time-period", "5d")
            ]),
            Err(TimeError::TwoPaces)
        );
        assert_eq!(
            tc(&[("time-moves", "5"), ("time-period", "0d")]),
            Err(TimeError::ZeroPeriod)
        );
    }

    #[test]
    fn a_clock_charges_and_allows_by_the_pace() {
        let per_move = TimeControl {
            pace: Pace::PerMove(100),
            leave_ms: 50,
        };
        assert_eq!((per_move.charge(80), per_move.charge(130)), (0, 30));
        assert_eq!(per_move.allowance(7, 0), 150);
        assert_eq!(per_move.allowance(7, 30), 120);
        assert_eq!(
            per_move.allowance(7, 80),
            100,
            "the leave spent, the per-move time stays"
        );
        let period = TimeControl {
            pace: Pace::Period {
                moves: 10,
                period_ms: 1000,
            },
            leave_ms: 200,
        };
        assert_eq!(period.charge(80), 80);
        // Before the 10th move: 1000 + leave, less what was spent.
        assert_eq!(period.allowance(0, 0), 1200);
        assert_eq!(period.allowance(9, 900), 300);
        // The 10th move made: the next ten moves have another 1000.
        assert_eq!(period.allowance(10, 900), 1300);
        assert_eq!(period.allowance(10, 5000), 0);
        // A move of many waits (draft 10): its per-move time once, then the leave.
        for (spent, left) in [(0, 150), (60, 90), (100, 50), (130, 20), (150, 0), (400, 0)] {
            assert_eq!(
                per_move.allowance_within(7, 0, spent),
                left,
                "spent {spent}"
            );
        }
        assert_eq!(per_move.allowance_within(7, 30, 110), 10);
        assert_eq!(
            period.allowance_within(9, 600, 300),
            period.allowance(9, 900)
        );
        let huge = TimeControl {
            pace: Pace::Period {
                moves: 1,
                period_ms: MAX_DURATION_MS,
            },
            leave_ms: MAX_DURATION_MS,
        };
        assert_eq!(
            huge.allowance(u64::MAX, 0),
            u64::MAX,
            "saturates, never wraps"
        );
    }
}
