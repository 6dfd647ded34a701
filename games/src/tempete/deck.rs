//! The deck definition format: which card numbers a game uses and what each does.
//!
//! One card per line, five fields separated by `|`:
//!
//! ```text
//! # number | name | timing | effect and parameters | text
//! 18 | Twin Leap | instead | extra-move knight | A knight makes two moves in a row.
//! ```
//!
//! Blank lines and lines whose first non-blank character is `#` are skipped; a `#`
//! elsewhere is part of the field (a text may mention "#12"). The text is the rest of
//! the line, so it may itself hold `|`. The timing keywords are those of
//! [`Timing::keyword`]; the effect grammar is [`Effect::parse`]'s.
//!
//! A deck is whatever list the players agree; the seed's default is [`Deck::open`], our
//! original open deck of the 68 numbers 1..=72 without 11, 22, 71 and 72.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use super::card::{Card, CardError, Effect, EffectError, MAX_NUMBER, Timing};

/// The built-in open deck, in the deck format.
pub const OPEN_DECK: &str = include_str!("open_deck.txt");

/// A line of a deck definition that cannot be read, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct DeckError {
    /// The 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub problem: DeckProblem,
}

/// What is wrong with a deck line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DeckProblem {
    /// Fewer than five `|`-separated fields, or an empty one.
    #[error("missing field: {0} (expected `number | name | timing | effect | text`)")]
    MissingField(&'static str),
    /// The number field is not a number.
    #[error("card number {0:?} is not a number")]
    BadNumber(String),
    /// The number is 0 or above the maximum.
    #[error("card number {0} is out of range (1 to {MAX_NUMBER})")]
    NumberOutOfRange(u64),
    /// The number was already defined.
    #[error("duplicate card number {number} (first defined on line {first_line})")]
    Duplicate {
        /// The number.
        number: u32,
        /// Where it was first defined.
        first_line: usize,
    },
    /// The timing keyword is not one of ours.
    #[error(
        "unknown timing {0:?} (expected before, instead, after, intercept, response, turn-start or after-loss)"
    )]
    UnknownTiming(String),
    /// The effect cannot be read.
    #[error(transparent)]
    Effect(#[from] EffectError),
    /// The fields do not make a card (bad name, or a timing the effect does not allow).
    #[error(transparent)]
    Card(#[from] CardError),
}

/// A deck definition: card number → card.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Deck {
    cards: BTreeMap<u32, Card>,
}

impl Deck {
    /// Reads a deck definition. The first bad line is reported with its number.
    pub fn parse(text: &str) -> Result<Deck, DeckError> {
        let mut cards = BTreeMap::new();
        let mut first_lines: BTreeMap<u32, usize> = BTreeMap::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let trimmed = raw.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let card = parse_line(trimmed).map_err(|problem| DeckError { line, problem })?;
            if let Some(&first_line) = first_lines.get(&card.number()) {
                return Err(DeckError {
                    line,
                    problem: DeckProblem::Duplicate {
                        number: card.number(),
                        first_line,
                    },
                });
            }
            first_lines.insert(card.number(), line);
            cards.insert(card.number(), card);
        }
        Ok(Deck { cards })
    }

    /// Our original open deck ([`OPEN_DECK`]): the seed's 68 numbers, each with an
    /// effect from the vocabulary. The file is compiled in and checked by the tests; were
    /// it unreadable this would be the empty deck rather than a panic.
    pub fn open() -> Deck {
        Deck::parse(OPEN_DECK).unwrap_or_default()
    }

    /// [`Deck::open`], read once per process and shared: rules are built from the terms
    /// of every game a node opens or restores and every transcript a verifier checks,
    /// and reading the 68 lines cost more than judging a deck's commitments.
    pub fn open_shared() -> Arc<Deck> {
        static OPEN: OnceLock<Arc<Deck>> = OnceLock::new();
        Arc::clone(OPEN.get_or_init(|| Arc::new(Deck::open())))
    }

    /// A deck of these cards; a later card with the same number replaces an earlier one.
    pub fn from_cards(cards: impl IntoIterator<Item = Card>) -> Deck {
        Deck {
            cards: cards.into_iter().map(|c| (c.number(), c)).collect(),
        }
    }

    /// The card numbers, ascending.
    pub fn numbers(&self) -> Vec<u32> {
        self.cards.keys().copied().collect()
    }

    /// The card with this number.
    pub fn card(&self, number: u32) -> Option<&Card> {
        self.cards.get(&number)
    }

    /// The cards, by ascending number.
    pub fn cards(&self) -> impl Iterator<Item = &Card> {
        self.cards.values()
    }

    /// How many cards (the seed's N).
    pub fn len(&self) -> usize {
        self.cards.len()
    }

    /// Whether the deck has no card.
    pub fn is_empty(&self) -> bool {
        self.cards.is_empty()
    }

    /// The distinct effect keywords the deck uses, sorted.
    pub fn effect_kinds(&self) -> Vec<&'static str> {
        let mut kinds: Vec<&'static str> =
            self.cards.values().map(|c| c.effect().keyword()).collect();
        kinds.sort_unstable();
        kinds.dedup();
        kinds
    }

    /// The deck in the deck format, one line per card by ascending number;
    /// [`Deck::parse`] reads it back to an equal deck.
    pub fn to_text(&self) -> String {
        let mut out = String::from("# number | name | timing | effect | text\n");
        for card in self.cards.values() {
            out.push_str(&card.to_string());
            out.push('\n');
        }
        out
    }
}

fn parse_line(line: &str) -> Result<Card, DeckProblem> {
    let mut fields = line.splitn(5, '|').map(str::trim);
    let mut field = |name: &'static str| match fields.next() {
        Some(f) if !f.is_empty() => Ok(f),
        _ => Err(DeckProblem::MissingField(name)),
    };
    let number = field("number")?;
    let name = field("name")?;
    let timing = field("timing")?;
    let effect = field("effect")?;
    let text = field("text")?;
    let number: u64 = number
        .parse()
        .map_err(|_| DeckProblem::BadNumber(number.to_owned()))?;
    let number = match u32::try_from(number) {
        Ok(n) if (1..=MAX_NUMBER).contains(&n) => n,
        _ => return Err(DeckProblem::NumberOutOfRange(number)),
    };
    let timing = Timing::from_keyword(timing)
        .ok_or_else(|| DeckProblem::UnknownTiming(timing.to_owned()))?;
    let effect = Effect::parse(effect)?;
    Ok(Card::new(number, name, timing, effect, text)?)
}
