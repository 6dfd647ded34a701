//! Time controls (spec/PROTOCOL.md §5.4): the `time-` options of a proposal, read once.
//!
//! They are not rules of any game, but they are part of the terms, so a proposal whose
//! time options a node would refuse is not a valid proposal (§5.1): a node refuses it and a
//! verifier finds its file unreadable, and both read it with this one function.

use crate::proposal::Proposal;

/// A time control as the proposal agrees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Milliseconds each act may take before it draws on the reserve.
    pub per_move_ms: u64,
    /// Each player's reserve for the whole game, milliseconds.
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
    /// A `time-` key that is no time control.
    #[error("no time option {0} (there are time-per-move and time-leave)")]
    Unknown(String),
    /// `time-per-move` of zero.
    #[error("time-per-move must be more than 0s")]
    ZeroPerMove,
    /// `time-leave` without `time-per-move`.
    #[error("time-leave needs time-per-move")]
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

impl TimeControl {
    /// The time control a proposal agrees, if any: `Ok(None)` when it sets no `time-`
    /// option, an error naming what is wrong when one is malformed or unknown.
    pub fn of(p: &Proposal) -> Result<Option<TimeControl>, TimeError> {
        let (mut per_move, mut leave) = (None, 0);
        for (k, v) in p.time_options() {
            match k {
                "time-per-move" => per_move = Some(parse_duration(v)?),
                "time-leave" => leave = parse_duration(v)?,
                other => return Err(TimeError::Unknown(other.to_owned())),
            }
        }
        match per_move {
            Some(0) => Err(TimeError::ZeroPerMove),
            Some(per_move_ms) => Ok(Some(TimeControl {
                per_move_ms,
                leave_ms: leave,
            })),
            None if leave > 0 => Err(TimeError::LeaveAlone),
            None => Ok(None),
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
                per_move_ms: 3_600_000,
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
            tc(&[("time-per-move", "366d")]).map(|t| t.map(|t| t.per_move_ms)),
            Ok(Some(MAX_DURATION_MS))
        );
        // Options that are not time controls are the rules' business.
        assert_eq!(tc(&[("cards", "whatever")]), Ok(None));
    }
}
