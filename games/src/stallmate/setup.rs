//! A player's secret setup: one Chess960 back rank, by its standard number.
//!
//! Each side draws its own number, so the two armies usually stand differently; the
//! combined start position is [`Position::chess960_pair`]. The number comes from the
//! 32-byte private setup hash the protocol derives (PROTOCOL.md §4.5: the owner's
//! committed seed mixed with the opponent's later contribution), never from the owner's
//! wish: [`Setup::from_seed`] is the only way a game gets one.

use std::fmt;

use serde::{Deserialize, Serialize};

use sealed_protocol::hash::Hash;
use sealed_protocol::random::Stream;

use crate::chess::{Color, File, Kind, Position, Square, chess960_back_rank};

/// How many Chess960 setups there are.
pub const SETUPS: u16 = 960;

/// A Chess960 setup by its standard (Scharnagl) number, 0..960; 518 is the usual
/// chess army. Always in range: every constructor checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u16", into = "u16")]
pub struct Setup(u16);

/// A number that is not a Chess960 setup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0} is not a Chess960 setup number (0 to 959)")]
pub struct BadSetup(pub u16);

impl Setup {
    /// The standard chess army, `RNBQKBNR`.
    pub const STANDARD: Setup = Setup(518);

    /// The setup with this number, if it is below 960.
    pub const fn new(number: u16) -> Option<Setup> {
        if number < SETUPS {
            Some(Setup(number))
        } else {
            None
        }
    }

    /// The setup a private setup hash gives: the first draw of
    /// [`Stream::below`]`(960)` from the ChaCha20 stream keyed by the 32 bytes.
    ///
    /// Rejection sampling makes every number equally likely, and since the bytes mix the
    /// owner's committed seed with a contribution the owner had not seen, he can neither
    /// pick nor steer his army.
    pub fn from_seed(bytes: &[u8; 32]) -> Setup {
        let n = Stream::new(&Hash(*bytes)).below(u32::from(SETUPS));
        // below(960) < 960, so the conversion cannot fail; STANDARD is never reached.
        Setup(u16::try_from(n).unwrap_or(Setup::STANDARD.0))
    }

    /// The number, 0..960.
    pub const fn number(self) -> u16 {
        self.0
    }

    /// The back rank from the a-file to the h-file.
    pub fn back_rank(self) -> [Kind; 8] {
        // In range by construction, so the fallback is never used.
        chess960_back_rank(self.0).unwrap_or([Kind::Pawn; 8])
    }

    /// The back rank as upper-case letters, `RNBQKBNR` for 518.
    pub fn letters(self) -> String {
        self.back_rank().iter().map(|k| k.upper()).collect()
    }

    /// The start position with `white`'s army against `black`'s, White to move, every
    /// castling right held.
    pub fn start(white: Setup, black: Setup) -> Position {
        Position::chess960_pair(white.0, black.0).unwrap_or_else(Position::empty)
    }

    /// The square the king of `color` starts on with this setup: the only square from
    /// which it may ever castle.
    pub fn king_home(self, color: Color) -> Square {
        let file = self
            .back_rank()
            .iter()
            .position(|&k| k == Kind::King)
            .and_then(|i| File::new(i as u8))
            .unwrap_or(File::E);
        Square::new(file, color.back_rank())
    }
}

impl TryFrom<u16> for Setup {
    type Error = BadSetup;

    fn try_from(n: u16) -> Result<Setup, BadSetup> {
        Setup::new(n).ok_or(BadSetup(n))
    }
}

impl From<Setup> for u16 {
    fn from(s: Setup) -> u16 {
        s.0
    }
}

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
