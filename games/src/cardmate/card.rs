//! Cards: fourteen ranks in four suits, each card unique, written rank then suit
//! (`4C`, `XD`, `AS`).

use core::fmt;

/// A suit. Only "same" or "different" matters to the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Suit {
    /// Clubs.
    Clubs,
    /// Diamonds.
    Diamonds,
    /// Hearts.
    Hearts,
    /// Spades.
    Spades,
}

impl Suit {
    /// All suits, in index order.
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    /// The suit's letter.
    pub fn letter(self) -> char {
        ['C', 'D', 'H', 'S'][self as usize]
    }

    /// Reads a suit letter (upper case, as the seed writes them).
    pub fn from_letter(c: char) -> Option<Suit> {
        Suit::ALL.into_iter().find(|s| s.letter() == c)
    }

    /// Red suits (drawn in red).
    pub fn is_red(self) -> bool {
        matches!(self, Suit::Diamonds | Suit::Hearts)
    }
}

/// A rank, lowest to highest: One … Ten, Jack, Queen, King, Ace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rank {
    /// One (promotes to the Ace of its suit).
    One = 1,
    /// Deuce.
    Two,
    /// Trey.
    Three,
    /// Four.
    Four,
    /// Five.
    Five,
    /// Six.
    Six,
    /// Seven.
    Seven,
    /// Eight.
    Eight,
    /// Nine.
    Nine,
    /// Ten.
    Ten,
    /// Jack.
    Jack,
    /// Queen.
    Queen,
    /// King (royal: both Kings captured loses).
    King,
    /// Ace (set aside at the start; a promoted One).
    Ace,
}

impl Rank {
    /// All ranks, lowest first.
    pub const ALL: [Rank; 14] = [
        Rank::One,
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];

    /// The rank's character: `1`–`9`, `X`, `J`, `Q`, `K`, `A`.
    pub fn letter(self) -> char {
        [
            '1', '2', '3', '4', '5', '6', '7', '8', '9', 'X', 'J', 'Q', 'K', 'A',
        ][self as usize - 1]
    }

    /// Reads a rank character.
    pub fn from_letter(c: char) -> Option<Rank> {
        Rank::ALL.into_iter().find(|r| r.letter() == c)
    }
}

/// One of the 56 cards.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card {
    /// Its rank.
    pub rank: Rank,
    /// Its suit.
    pub suit: Suit,
}

impl Card {
    /// A card.
    pub const fn new(rank: Rank, suit: Suit) -> Self {
        Card { rank, suit }
    }

    /// A number from 0 to 55: `(rank − 1) · 4 + suit`.
    pub fn index(self) -> u8 {
        (self.rank as u8 - 1) * 4 + self.suit as u8
    }

    /// The card with that number.
    pub fn from_index(i: u8) -> Option<Card> {
        let rank = *Rank::ALL.get(usize::from(i / 4))?;
        Some(Card {
            rank,
            suit: Suit::ALL[usize::from(i % 4)],
        })
    }

    /// Reads `4C`, `XD`, …
    pub fn parse(s: &str) -> Option<Card> {
        let mut c = s.chars();
        let rank = Rank::from_letter(c.next()?)?;
        let suit = Suit::from_letter(c.next()?)?;
        c.next().is_none().then_some(Card { rank, suit })
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank.letter(), self.suit.letter())
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_card_round_trips() {
        for i in 0..56 {
            let c = Card::from_index(i).unwrap();
            assert_eq!(c.index(), i);
            assert_eq!(Card::parse(&c.to_string()), Some(c));
        }
        assert_eq!(Card::from_index(56), None);
        assert_eq!(Card::parse("1Z"), None);
        assert_eq!(Card::parse("10C"), None);
    }
}
