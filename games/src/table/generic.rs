//! The commands every game has, whatever its rules: accept or decline a proposal,
//! withdraw one, resign, offer or accept a draw. A face sends one as this value
//! (`"resign"`, `"offer-draw"` in JSON), never as words for the game to read; a person
//! may still type the words (`sealed move <game> resign`), which read as the same value.

use serde::{Deserialize, Serialize};

/// One generic command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Generic {
    /// Accept the proposal.
    Accept,
    /// Decline the proposal.
    Decline,
    /// Take back a proposal no other seat accepted (protocol version 2).
    Withdraw,
    /// Resign the game.
    Resign,
    /// Offer a draw.
    OfferDraw,
    /// Accept the draw the other player offered.
    AcceptDraw,
}

impl Generic {
    /// Every generic command, in the order a board shows its buttons.
    pub const ALL: [Generic; 6] = [
        Generic::Accept,
        Generic::Decline,
        Generic::Withdraw,
        Generic::Resign,
        Generic::OfferDraw,
        Generic::AcceptDraw,
    ];

    /// The words a person types for it, and a button's label.
    pub fn words(self) -> &'static str {
        match self {
            Generic::Accept => "accept",
            Generic::Decline => "decline",
            Generic::Withdraw => "withdraw",
            Generic::Resign => "resign",
            Generic::OfferDraw => "offer draw",
            Generic::AcceptDraw => "accept draw",
        }
    }

    /// The command a person's words name (spaces normalised, lower case), if any:
    /// `draw offer` and `draw accept` read too.
    pub fn from_words(words: &str) -> Option<Generic> {
        match words {
            "draw offer" => Some(Generic::OfferDraw),
            "draw accept" => Some(Generic::AcceptDraw),
            _ => Generic::ALL.into_iter().find(|g| g.words() == words),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reads_back_from_its_words_and_its_json() {
        for g in Generic::ALL {
            assert_eq!(Generic::from_words(g.words()), Some(g));
            let json = serde_json::to_string(&g).unwrap();
            assert_eq!(serde_json::from_str::<Generic>(&json).unwrap(), g);
        }
        assert_eq!(
            serde_json::to_string(&Generic::OfferDraw).unwrap(),
            r#""offer-draw""#
        );
        assert_eq!(Generic::from_words("draw offer"), Some(Generic::OfferDraw));
        assert_eq!(Generic::from_words("resign now"), None);
        // A face cannot send words in its place: only the values read.
        assert!(serde_json::from_str::<Generic>(r#""offer draw""#).is_err());
        assert!(serde_json::from_str::<Generic>(r#""fly""#).is_err());
    }
}
