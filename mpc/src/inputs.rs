//! The two players' inputs as the circuit reads them, the commitments they are checked
//! against (computed here in the clear, as each player computes his own), and the answer
//! read back.
//!
//! Encodings (spec/GAMES.md §5.13): a back rank is its kinds from the a-file, 1 knight,
//! 2 bishop, 3 rook, 4 queen, 5 king; a move or attempt is one `u16`, `from | to << 6 |
//! promotion << 12` (squares `rank * 8 + file`, promotion 0 none, 1 knight, 2 bishop,
//! 3 rook, 4 queen, and 5 king or 6 pawn, never legal but named so that such an attempt is
//! judged as asked), "Any?" `0xFFFF`. A committed message is the seat, the 32-byte game
//! id, a 15-byte salt and the items, two bytes each, least significant first; a back rank
//! is committed as two items (three bits a square).

use std::fmt::Write as _;

use sha2_010::{Digest, Sha256};

/// "Any?" as an item.
pub const ANY: u16 = 0xFFFF;

/// A move or attempt as an item.
pub fn item(from: u8, to: u8, promotion: u8) -> u16 {
    u16::from(from & 63) | u16::from(to & 63) << 6 | u16::from(promotion & 7) << 12
}

/// A back rank's two committed items.
pub fn pack(rank: &[u8; 8]) -> [u16; 2] {
    let a = (0..5).fold(0u16, |acc, i| acc | u16::from(rank[i]) << (3 * i));
    let b = (5..8).fold(0u16, |acc, i| acc | u16::from(rank[i]) << (3 * (i - 5)));
    [a, b]
}

/// The SHA-256 of a committed message.
pub fn digest(seat: u8, game: &[u8; 32], salt: &[u8; 15], items: &[u16]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update([seat]);
    h.update(game);
    h.update(salt);
    for i in items {
        h.update(i.to_le_bytes());
    }
    h.finalize().into()
}

/// What both players hold in public: the game id and the commitments (each player's
/// setup, each player's log of moves, the mover's earlier attempts this period, and the
/// attempt he committed to before this computation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Public {
    /// The game id.
    pub game: [u8; 32],
    /// White's and Black's setup commitments.
    pub setup: [[u8; 32]; 2],
    /// White's and Black's move-log digests.
    pub log: [[u8; 32]; 2],
    /// The mover's digest of his earlier attempts this period.
    pub period: [u8; 32],
    /// The mover's commitment to this attempt.
    pub attempt: [u8; 32],
    /// Option `must-try`.
    pub must_try: bool,
    /// Option `name-capturer`.
    pub name_capturer: bool,
    /// Whether a move made now reaches the ply limit.
    pub limit: bool,
}

/// One player's own secrets, as each attempt's computation takes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Secrets {
    /// His back rank (kinds 1..=5 from the a-file).
    pub rank: [u8; 8],
    /// The salt of his setup commitment.
    pub setup_salt: [u8; 15],
    /// His moves so far.
    pub moves: Vec<u16>,
    /// The salt of his move log's digest.
    pub log_salt: [u8; 15],
}

/// What only the mover adds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempting {
    /// His attempts before this one, this period.
    pub earlier: Vec<u16>,
    /// The salt of their digest.
    pub period_salt: [u8; 15],
    /// The attempt.
    pub attempt: u16,
    /// The salt of its commitment.
    pub attempt_salt: [u8; 15],
    /// Salts for the digests the computation gives back (the log with this move, the
    /// period with this attempt).
    pub next_log_salt: [u8; 15],
    /// See `next_log_salt`.
    pub next_period_salt: [u8; 15],
}

/// The answer's fields, as the circuit's `Answer` has them (also the pad masking them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Answer {
    /// 0 illegal, 1 yes, 2 no, 3 try, 4 pawn capture first (in a heard answer, 4 is
    /// "nothing heard").
    pub code: u8,
    /// A capture.
    pub capture: bool,
    /// Where.
    pub at: u8,
    /// En passant.
    pub en_passant: bool,
    /// By a pawn (option `name-capturer`).
    pub by_pawn: bool,
    /// Checks by kind.
    pub rank: u8,
    /// See `rank`.
    pub file: u8,
    /// See `rank`.
    pub long: u8,
    /// See `rank`.
    pub short: u8,
    /// See `rank`.
    pub knight: u8,
    /// 0 none, 1 checkmate, 2 stalemate, 3 bare kings, 4 repetition, 5 ply limit.
    pub end: u8,
    /// Pieces on the board, with a stalemate.
    pub pieces: u8,
    /// 0 heard, 1 not his piece, 2 never moves so, 3 repeated, 4 no pawns, 5 asked again,
    /// 6 too early.
    pub silence: u8,
}

impl Answer {
    /// The fields from 13 bytes, one each in field order (a flag from its lowest bit):
    /// a pad drawn from a stream of bytes.
    pub fn from_bytes(b: [u8; 13]) -> Answer {
        Answer {
            code: b[0],
            capture: b[1] & 1 == 1,
            at: b[2],
            en_passant: b[3] & 1 == 1,
            by_pawn: b[4] & 1 == 1,
            rank: b[5],
            file: b[6],
            long: b[7],
            short: b[8],
            knight: b[9],
            end: b[10],
            pieces: b[11],
            silence: b[12],
        }
    }

    /// Each field XORed with the pad's.
    pub fn unmask(self, pad: &Answer) -> Answer {
        Answer {
            code: self.code ^ pad.code,
            capture: self.capture ^ pad.capture,
            at: self.at ^ pad.at,
            en_passant: self.en_passant ^ pad.en_passant,
            by_pawn: self.by_pawn ^ pad.by_pawn,
            rank: self.rank ^ pad.rank,
            file: self.file ^ pad.file,
            long: self.long ^ pad.long,
            short: self.short ^ pad.short,
            knight: self.knight ^ pad.knight,
            end: self.end ^ pad.end,
            pieces: self.pieces ^ pad.pieces,
            silence: self.silence ^ pad.silence,
        }
    }

    fn literal(&self) -> String {
        format!(
            "Answer {{ code: {}u8, capture: {}, at: {}u8, en_passant: {}, by_pawn: {}, rank: {}u8, file: {}u8, long: {}u8, short: {}u8, knight: {}u8, end: {}u8, pieces: {}u8, silence: {}u8 }}",
            self.code,
            self.capture,
            self.at,
            self.en_passant,
            self.by_pawn,
            self.rank,
            self.file,
            self.long,
            self.short,
            self.knight,
            self.end,
            self.pieces,
            self.silence
        )
    }
}

fn bytes(v: &[u8]) -> String {
    let items: Vec<String> = v.iter().map(|b| format!("{b}u8")).collect();
    format!("[{}]", items.join(", "))
}

fn items(v: &[u16]) -> String {
    let mut items: Vec<String> = v.iter().map(|b| format!("{b}u16")).collect();
    if items.is_empty() {
        items.push("0u16".into());
    }
    format!("[{}]", items.join(", "))
}

fn words(d: &[u8; 32]) -> String {
    let w: Vec<String> = d
        .chunks(4)
        .map(|c| format!("{}u32", u32::from_be_bytes([c[0], c[1], c[2], c[3]])))
        .collect();
    format!("[{}]", w.join(", "))
}

fn public(p: &Public) -> String {
    format!(
        "Public {{ game: {}, setup: [{}, {}], log: [{}, {}], period: {}, attempt: {}, must_try: {}, name_capturer: {}, limit: {} }}",
        bytes(&p.game),
        words(&p.setup[0]),
        words(&p.setup[1]),
        words(&p.log[0]),
        words(&p.log[1]),
        words(&p.period),
        words(&p.attempt),
        p.must_try,
        p.name_capturer,
        p.limit
    )
}

/// The mover's input, as a Garble literal.
pub fn mover_literal(s: &Secrets, a: &Attempting, pad: &Answer, p: &Public) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "Mover {{ rank: {}, setup_salt: {}, moves: {}, log_salt: {}, next_log_salt: {}, earlier: {}, period_salt: {}, next_period_salt: {}, attempt: {}u16, attempt_salt: {}, pad: {}, public: {} }}",
        bytes(&s.rank),
        bytes(&s.setup_salt),
        items(&s.moves),
        bytes(&s.log_salt),
        bytes(&a.next_log_salt),
        items(&a.earlier),
        bytes(&a.period_salt),
        bytes(&a.next_period_salt),
        a.attempt,
        bytes(&a.attempt_salt),
        pad.literal(),
        public(p)
    );
    out
}

/// The other player's input, as a Garble literal.
pub fn other_literal(s: &Secrets, pad: &Answer, p: &Public) -> String {
    format!(
        "Other {{ rank: {}, setup_salt: {}, moves: {}, log_salt: {}, pad: {}, public: {} }}",
        bytes(&s.rank),
        bytes(&s.setup_salt),
        items(&s.moves),
        bytes(&s.log_salt),
        pad.literal(),
        public(p)
    )
}

/// One player's fresh input to an attempt's computation with the state kept
/// (`kept.rs`), as a Garble literal: the attempt (0 from the player not moving) and his
/// pad.
pub fn fresh_literal(attempt: u16, pad: &Answer) -> String {
    format!("Fresh {{ attempt: {attempt}u16, pad: {} }}", pad.literal())
}

/// Items as a Garble array literal (one zero item for none: Garble has no empty array).
pub fn items_literal(v: &[u16]) -> String {
    items(v)
}

/// A back rank as a Garble literal.
pub fn rank_literal(r: &[u8; 8]) -> String {
    bytes(r)
}

/// The options as the computation takes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Option `must-try`.
    pub must_try: bool,
    /// Option `name-capturer`.
    pub name_capturer: bool,
    /// Whether a move made now reaches the ply limit.
    pub limit: bool,
}

/// The commitments both players hold for this attempt, from both players' secrets (in a
/// real game each computes his own and signs it; the other only ever sees the digest).
pub fn commitments(
    game: [u8; 32],
    white: &Secrets,
    black: &Secrets,
    mover_seat: u8,
    a: &Attempting,
    rules: Rules,
) -> Public {
    Public {
        must_try: rules.must_try,
        name_capturer: rules.name_capturer,
        limit: rules.limit,
        game,
        setup: [
            digest(0, &game, &white.setup_salt, &pack(&white.rank)),
            digest(1, &game, &black.setup_salt, &pack(&black.rank)),
        ],
        log: [
            digest(0, &game, &white.log_salt, &white.moves),
            digest(1, &game, &black.log_salt, &black.moves),
        ],
        period: digest(mover_seat, &game, &a.period_salt, &a.earlier),
        attempt: digest(mover_seat, &game, &a.attempt_salt, &[a.attempt]),
    }
}
