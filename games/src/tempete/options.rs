//! Tempête's options (spec/GAMES.md §4.1, §4.20): the card list, the hand, the ply
//! limit, and the physical deck with its arbiter — read once, when the terms are; why a
//! card list does not read ([`ListError`]).

use std::sync::Arc;

use sealed_protocol::ids::Name;
use sealed_protocol::rules::OptionError;

use super::physical::{self, MAX_PHYSICAL, Physical};
use super::rules::Tempete;

/// Why a card list does not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ListError {
    /// A part that is no number and no range `a-b` (of fewer than 1000 cards).
    #[error("{0:?} is not a number or a range a-b")]
    NotARange(String),
    /// A card listed twice.
    #[error("a card is listed twice")]
    Twice,
}

/// Parses a card list such as `1-10,12-21,23-70`.
pub fn parse_list(text: &str) -> Result<Vec<u32>, ListError> {
    let mut out = vec![];
    for part in text.split(',').map(str::trim) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b): (u32, u32) = match (a.trim().parse(), b.trim().parse()) {
            (Ok(a), Ok(b)) if a <= b && b - a < 1000 => (a, b),
            _ => return Err(ListError::NotARange(part.to_owned())),
        };
        out.extend(a..=b);
    }
    out.sort_unstable();
    if out.windows(2).any(|w| w[0] == w[1]) {
        return Err(ListError::Twice);
    }
    Ok(out)
}

impl Tempete {
    /// Reads the options `cards`, `hand` and `ply-limit`.
    pub fn from_options(options: &[(Name, String)]) -> Result<Tempete, OptionError> {
        let mut t = Tempete::default();
        let mut physical: Option<Physical> = None;
        let (mut arbiter, mut ruling_plies) = (None, None);
        for (k, v) in options {
            let bad = |why: String| OptionError(format!("tempete: {k}: {why}"));
            match k.as_str() {
                "cards" => t.list = parse_list(v).map_err(|e| bad(e.to_string()))?,
                "deck" => match v.as_str() {
                    "open" => physical = None,
                    "physical" => physical = Some(Physical::default()),
                    _ => return Err(bad(format!("{v:?} is neither open nor physical"))),
                },
                "arbiter" => {
                    arbiter = Some(physical::parse_arbiter(v).map_err(|e| bad(e.to_string()))?);
                }
                "ruling-plies" => {
                    ruling_plies = Some(
                        v.parse::<u32>()
                            .ok()
                            .filter(|n| (1..=1000).contains(n))
                            .ok_or_else(|| bad(format!("{v:?} is not a number from 1 to 1000")))?,
                    );
                }
                "hand" => {
                    t.hand = v
                        .parse()
                        .map_err(|_| bad(format!("{v:?} is not a number")))?
                }
                "ply-limit" => {
                    t.ply_limit = v
                        .parse()
                        .map_err(|_| bad(format!("{v:?} is not a number")))?;
                }
                other => return Err(OptionError(format!("tempete has no option {other}"))),
            }
        }
        match physical.as_mut() {
            Some(p) => {
                p.arbiter = arbiter;
                if let Some(n) = ruling_plies {
                    if p.arbiter.is_none() {
                        return Err(OptionError("tempete: ruling-plies needs an arbiter".into()));
                    }
                    p.ruling_plies = n;
                }
                if let Some(n) = t.list.iter().find(|n| !(1..=MAX_PHYSICAL).contains(*n)) {
                    return Err(OptionError(format!(
                        "tempete: the physical deck has no card {n} (1 to {MAX_PHYSICAL})"
                    )));
                }
                t.deck = Arc::new(physical::deck());
            }
            None => {
                if arbiter.is_some() || ruling_plies.is_some() {
                    return Err(OptionError(
                        "tempete: an arbiter rules on stated effects: only with deck=physical"
                            .into(),
                    ));
                }
                if let Some(n) = t.list.iter().find(|n| t.deck.card(**n).is_none()) {
                    return Err(OptionError(format!("tempete: the deck has no card {n}")));
                }
            }
        }
        t.physical = physical;
        if !(1..=8).contains(&t.hand) || t.list.len() < 2 * t.hand as usize {
            return Err(OptionError(
                "tempete: hand must be 1 to 8 and the list at least two hands long".into(),
            ));
        }
        Ok(t)
    }
}
