//! The length of a move period: how long the mover may talk to the referee before the
//! referee calls the opponent (the seed assumes 24 hours).
//!
//! The rules engine only holds it; the node's clock enforces it. Written as a whole
//! number and a unit — `500ms`, `90s`, `15m`, `24h`, `3d` — and kept in milliseconds.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A move period, in milliseconds; never zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u64", into = "u64")]
pub struct Period(u64);

/// Text or a number that is not a move period.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a move period (a whole number above 0 and a unit ms, s, m, h or d, like \"24h\")"
)]
pub struct BadPeriod(pub String);

/// Milliseconds per unit, longest unit first so the writer picks the shortest text;
/// days are read but written as hours (`24h`, as the seed says it).
const UNITS: [(&str, u64); 5] = [
    ("h", 3_600_000),
    ("d", 86_400_000),
    ("m", 60_000),
    ("s", 1_000),
    ("ms", 1),
];

impl Period {
    /// The seed's period: 24 hours.
    pub const DEFAULT: Period = Period(24 * 3_600_000);

    /// A period of this many milliseconds, if above zero.
    pub const fn from_millis(ms: u64) -> Option<Period> {
        if ms > 0 { Some(Period(ms)) } else { None }
    }

    /// The length in milliseconds.
    pub const fn millis(self) -> u64 {
        self.0
    }
}

impl Default for Period {
    fn default() -> Period {
        Period::DEFAULT
    }
}

impl TryFrom<u64> for Period {
    type Error = BadPeriod;

    fn try_from(ms: u64) -> Result<Period, BadPeriod> {
        Period::from_millis(ms).ok_or_else(|| BadPeriod(ms.to_string()))
    }
}

impl From<Period> for u64 {
    fn from(p: Period) -> u64 {
        p.0
    }
}

impl FromStr for Period {
    type Err = BadPeriod;

    fn from_str(s: &str) -> Result<Period, BadPeriod> {
        let bad = || BadPeriod(s.to_owned());
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        let (number, unit) = s.split_at(digits);
        if number.is_empty() || number.len() > 19 {
            return Err(bad());
        }
        let n: u64 = number.parse().map_err(|_| bad())?;
        let per = UNITS
            .iter()
            .find(|(u, _)| *u == unit)
            .map(|(_, per)| *per)
            .ok_or_else(bad)?;
        n.checked_mul(per)
            .and_then(Period::from_millis)
            .ok_or_else(bad)
    }
}

impl fmt::Display for Period {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (unit, per) = UNITS
            .iter()
            .filter(|(u, _)| *u != "d")
            .find(|(_, per)| self.0.is_multiple_of(*per))
            .copied()
            .unwrap_or(("ms", 1));
        write!(f, "{}{unit}", self.0 / per)
    }
}

/// When the running period of a game with a referee closes, from its transcript (the
/// bytes a node gives for `sealed export`): the referee's clock reading of the `Begin`
/// or of the last close, plus the period, in milliseconds since the Unix epoch; `None`
/// before the clock starts, once the game is over, or for bytes that are no such game.
///
/// The table's view carries the same figure (`hand.period_ends_ms`); this reads it from
/// the file alone, for a reader that holds no table (the board's tests check the view
/// against it).
pub fn running_ends_at(transcript: &[u8]) -> Option<u64> {
    let file = sealed_protocol::transcript::TranscriptFile::from_bytes(transcript).ok()?;
    let (engine, _) = sealed_protocol::transcript::check::<super::peer::Stallmate>(&file).ok()?;
    if engine.is_over() {
        return None;
    }
    engine.state()?.ends_at
}

#[cfg(test)]
mod tests {
    use sealed_protocol::transcript::TranscriptFile;

    /// A game in play has a deadline; a finished game, another variant's file and bytes
    /// that are no transcript have none, and none of them panics.
    #[test]
    fn only_a_game_in_play_has_a_deadline() {
        assert_eq!(super::running_ends_at(b""), None);
        assert_eq!(super::running_ends_at(b"not a transcript"), None);
        let vector = |f: &str| {
            std::fs::read(format!(
                "{}/../spec/vectors/{f}",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap_or_else(|e| panic!("{f}: {e}"))
        };
        assert_eq!(
            super::running_ends_at(&vector("stallmate-duo-game.sealed")),
            None
        );
        for f in ["stallmate-game.sealed", "stallmate-forfeit-game.sealed"] {
            let bytes = vector(f);
            assert_eq!(super::running_ends_at(&bytes), None, "{f} is over");
            // The same game cut short of its end: still in play, with a deadline.
            let file = TranscriptFile::from_bytes(&bytes).unwrap();
            let in_play = (1..file.envelopes.len()).rev().find_map(|n| {
                let cut = TranscriptFile {
                    envelopes: file.envelopes[..n].to_vec(),
                    ..file.clone()
                };
                super::running_ends_at(&cut.to_bytes())
            });
            assert!(in_play.is_some_and(|t| t > 0), "{f}: no deadline in play");
        }
    }
}
