//! The rule options of a Stallmate game: every rule the seed does not fix is one of
//! these, named in the signed proposal, with a default.
//!
//! | key | values | default | meaning |
//! |---|---|---|---|
//! | `must-try` | `on`, `off` | `on` | after "try", a pawn capture must be attempted before any other move |
//! | `name-capturer` | `on`, `off` | `off` | a capture announcement says whether a pawn or a piece took |
//! | `ply-limit` | a number ≥ 1, or `none` | `none` | the game ends after this many moves (plies), 0 points each |
//! | `period` | a [`Period`] like `24h`, `90s`, `500ms` | `24h` | the move period (held here, enforced by the node) |
//!
//! `name-capturer` is off by default because the seed does not announce it and it tells
//! the opponent more. `ply-limit` exists for bots, which can wander forever (the seed
//! has no fifty-move rule and insufficient material does not end the game).

use serde::{Deserialize, Serialize};

use sealed_protocol::ids::Name;
use sealed_protocol::rules::OptionError;

use super::period::Period;

/// The options of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    /// `must-try`: after a "try" answer the mover must attempt a pawn capture before any
    /// other move.
    pub must_try: bool,
    /// `name-capturer`: capture announcements say "by pawn" or "by piece".
    pub name_capturer: bool,
    /// `ply-limit`: the game ends after this many moves, scoring 0 for each player.
    pub ply_limit: Option<u32>,
    /// `period`: the length of a move period.
    pub period: Period,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            must_try: true,
            name_capturer: false,
            ply_limit: None,
            period: Period::DEFAULT,
        }
    }
}

/// The option keys, in ascending order (as a proposal lists them).
pub const OPTION_KEYS: [&str; 4] = ["must-try", "name-capturer", "period", "ply-limit"];

fn on_off(key: &str, value: &str) -> Result<bool, OptionError> {
    match value {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(OptionError(format!(
            "stallmate: option {key} is on or off, not {value:?}"
        ))),
    }
}

impl Options {
    /// Reads `(key, value)` pairs; keys left out keep their defaults. An unknown key, a
    /// key given twice or a value that does not fit is an error.
    pub fn parse<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Options, OptionError> {
        let mut o = Options::default();
        let mut seen: Vec<&str> = Vec::new();
        for (key, value) in pairs {
            if seen.contains(&key) {
                return Err(OptionError(format!("stallmate: option {key} given twice")));
            }
            match key {
                "must-try" => o.must_try = on_off(key, value)?,
                "name-capturer" => o.name_capturer = on_off(key, value)?,
                "ply-limit" => {
                    o.ply_limit = match value {
                        "none" => None,
                        n => Some(n.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                            OptionError(format!(
                                "stallmate: ply-limit is a number of moves above 0 or none, not {value:?}"
                            ))
                        })?),
                    }
                }
                "period" => {
                    o.period = value
                        .parse()
                        .map_err(|e| OptionError(format!("stallmate: period: {e}")))?
                }
                _ => return Err(OptionError(format!("stallmate has no option {key:?}"))),
            }
            seen.push(key);
        }
        Ok(o)
    }

    /// Reads the options of a proposal ([`Terms::rule_options`](sealed_protocol::proposal)).
    pub fn from_proposal(options: &[(Name, String)]) -> Result<Options, OptionError> {
        Options::parse(options.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }

    /// Every option as `(key, value)` text, keys ascending: what a proposal or a score
    /// writes, so the record says everything and [`Options::parse`] reads it back.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let word = |b: bool| if b { "on" } else { "off" }.to_owned();
        vec![
            ("must-try", word(self.must_try)),
            ("name-capturer", word(self.name_capturer)),
            ("period", self.period.to_string()),
            (
                "ply-limit",
                self.ply_limit
                    .map_or_else(|| "none".to_owned(), |n| n.to_string()),
            ),
        ]
    }

    /// [`Options::to_pairs`] as proposal options.
    pub fn to_proposal(&self) -> Vec<(Name, String)> {
        self.to_pairs()
            .into_iter()
            .filter_map(|(k, v)| Some((Name::new(k).ok()?, v)))
            .collect()
    }
}
