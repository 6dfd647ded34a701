//! The witness's statements (protocol version 2, docs/design/witness.md): what a node
//! both players chose signs about time. A [`Receipt`] says when it first held an
//! envelope; a [`View`] says what it held of every public chain at a time. Together
//! they make a timeout a proof; two of them that cannot both be true are a proof
//! against the witness ([`contradiction`]), and then no time result stands.
//!
//! Pure: statements in, verdicts out; no clock, the times are the witness's own.

use serde::{Deserialize, Serialize};

use crate::hash::Hash;
use crate::ids::{ChainId, GameId};
use crate::keys::{PublicKey, SecretKey, Signature};
use crate::proposal::signing_input;
use crate::wire::{self, WireError};

/// Signature context of a witness statement (spec/PROTOCOL.md §3.2).
pub const SIGN_WITNESS: &str = "sealed/v2/sign/witness";

/// Most bytes of one signed statement: a view lists every public chain of a game, a few
/// dozen bytes each.
pub const MAX_STATEMENT: usize = 16 * 1024;

/// The witness first held envelope `envelope` of `game` at `at` (ms since the Unix
/// epoch, the witness's clock).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    /// The game.
    pub game: GameId,
    /// The envelope's hash (spec/PROTOCOL.md §2.3).
    pub envelope: Hash,
    /// When.
    pub at: u64,
}

/// What the witness held of one public chain: `count` envelopes, the last `head`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    /// The chain.
    pub chain: ChainId,
    /// How many envelopes of it.
    pub count: u64,
    /// The hash of the last (zero when `count` is 0).
    pub head: Hash,
}

/// What the witness held of every public chain of `game` at `at`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// The game.
    pub game: GameId,
    /// When.
    pub at: u64,
    /// Per chain, in chain order, each chain once.
    pub heads: Vec<Head>,
}

/// A witness statement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Statement {
    /// A receipt.
    Receipt(Receipt),
    /// A view.
    View(View),
}

impl Statement {
    /// The game it is about.
    pub fn game(&self) -> GameId {
        match self {
            Statement::Receipt(r) => r.game,
            Statement::View(v) => v.game,
        }
    }

    /// Signs it with the witness's key.
    pub fn sign(self, key: &SecretKey) -> SignedStatement {
        let body = wire::encode(&self);
        let sig = key.sign(&signing_input(SIGN_WITNESS, &body));
        SignedStatement {
            statement: self,
            sig,
        }
    }
}

/// A statement with the witness's signature over `SIGN_WITNESS ‖ 0x00 ‖ enc(statement)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedStatement {
    /// What is stated.
    pub statement: Statement,
    /// The witness's signature.
    pub sig: Signature,
}

/// Why bytes are not a statement of this game's witness.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StatementError {
    /// Not a canonical encoding, or too large.
    #[error("not a witness statement: {0}")]
    Wire(#[from] WireError),
    /// Another game's.
    #[error("a witness statement of another game")]
    OtherGame,
    /// Not signed by the witness the proposal names.
    #[error("a witness statement not signed by the game's witness")]
    BadSignature,
    /// A view naming a chain twice, or out of order.
    #[error("a witness view lists its chains out of order or twice")]
    Unordered,
}

impl SignedStatement {
    /// The bytes that travel and go in a transcript.
    pub fn to_bytes(&self) -> Vec<u8> {
        wire::encode(self)
    }

    /// Reads a statement about `game` signed by `witness`, refusing anything else.
    pub fn from_bytes(
        bytes: &[u8],
        game: GameId,
        witness: &PublicKey,
    ) -> Result<SignedStatement, StatementError> {
        let s: SignedStatement = wire::decode(bytes, MAX_STATEMENT)?;
        if s.statement.game() != game {
            return Err(StatementError::OtherGame);
        }
        let body = wire::encode(&s.statement);
        if !witness.verify(&signing_input(SIGN_WITNESS, &body), &s.sig) {
            return Err(StatementError::BadSignature);
        }
        if let Statement::View(v) = &s.statement
            && !v.heads.windows(2).all(|w| w[0].chain < w[1].chain)
        {
            return Err(StatementError::Unordered);
        }
        Ok(s)
    }
}

/// Where an envelope stands in its chain, as a transcript holds it: what the witness's
/// statements are checked against.
pub trait Chains {
    /// The chain and sequence number of the envelope with this hash, if the file holds
    /// it.
    fn place(&self, envelope: &Hash) -> Option<(ChainId, u64)>;
    /// The hash of the envelope at `seq` of `chain`, if the file holds it.
    fn hash_at(&self, chain: ChainId, seq: u64) -> Option<Hash>;
}

/// Two statements (or one against the file) that cannot both be true: the proof that
/// the witness lied, which voids every time result of the game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Contradiction {
    /// A view at or after a receipt does not cover the envelope receipted.
    #[error("a view at {view} ms lacks the envelope receipted at {receipt} ms")]
    ViewLacksReceipted {
        /// The receipt's time.
        receipt: u64,
        /// The view's time.
        view: u64,
    },
    /// A view before a receipt already covers the envelope: time ran backwards.
    #[error("a view at {view} ms holds an envelope first held at {receipt} ms")]
    Backwards {
        /// The receipt's time.
        receipt: u64,
        /// The view's time.
        view: u64,
    },
    /// A later view holds less of a chain than an earlier one.
    #[error("the view at {later} ms holds less of {chain} than the view at {earlier} ms")]
    Shrank {
        /// The chain.
        chain: ChainId,
        /// The earlier view's time.
        earlier: u64,
        /// The later view's time.
        later: u64,
    },
    /// One envelope receipted at two times.
    #[error("one envelope receipted at {0} ms and at {1} ms")]
    TwoReceipts(u64, u64),
    /// A view's head is not the envelope the file holds at that place.
    #[error("the view at {view} ms names a head of {chain} the transcript does not hold there")]
    ForeignHead {
        /// The chain.
        chain: ChainId,
        /// The view's time.
        view: u64,
    },
}

impl Contradiction {
    /// Its name in spec/vectors/witness.json.
    pub fn name(&self) -> &'static str {
        match self {
            Contradiction::ViewLacksReceipted { .. } => "view-lacks-receipted",
            Contradiction::Backwards { .. } => "backwards",
            Contradiction::Shrank { .. } => "shrank",
            Contradiction::TwoReceipts(..) => "two-receipts",
            Contradiction::ForeignHead { .. } => "foreign-head",
        }
    }
}

impl StatementError {
    /// Its name in spec/vectors/witness.json.
    pub fn name(&self) -> &'static str {
        match self {
            StatementError::Wire(WireError::TooLarge { .. }) => "too-large",
            StatementError::Wire(_) => "malformed",
            StatementError::OtherGame => "other-game",
            StatementError::BadSignature => "bad-signature",
            StatementError::Unordered => "unordered",
        }
    }
}

/// Whether `view` covers the envelope at `(chain, seq)`.
fn covers(view: &View, chain: ChainId, seq: u64) -> bool {
    view.heads.iter().any(|h| h.chain == chain && h.count > seq)
}

/// The first contradiction among a game's statements, checked against the envelopes
/// the transcript holds; `None` when they can all be true. Statements about envelopes
/// the file does not hold are judged elsewhere (a receipt of no envelope in the file
/// proves nothing here).
pub fn contradiction(statements: &[Statement], file: &impl Chains) -> Option<Contradiction> {
    let receipts: Vec<&Receipt> = statements
        .iter()
        .filter_map(|s| match s {
            Statement::Receipt(r) => Some(r),
            Statement::View(_) => None,
        })
        .collect();
    let mut views: Vec<&View> = statements
        .iter()
        .filter_map(|s| match s {
            Statement::View(v) => Some(v),
            Statement::Receipt(_) => None,
        })
        .collect();
    views.sort_by_key(|v| v.at);
    for (i, a) in receipts.iter().enumerate() {
        if let Some(b) = receipts[i + 1..]
            .iter()
            .find(|b| b.envelope == a.envelope && b.at != a.at)
        {
            return Some(Contradiction::TwoReceipts(a.at.min(b.at), a.at.max(b.at)));
        }
    }
    for v in &views {
        for h in v.heads.iter().filter(|h| h.count > 0) {
            let held = file.hash_at(h.chain, h.count - 1);
            if held.is_some_and(|held| held != h.head) {
                return Some(Contradiction::ForeignHead {
                    chain: h.chain,
                    view: v.at,
                });
            }
        }
    }
    for r in &receipts {
        let Some((chain, seq)) = file.place(&r.envelope) else {
            continue;
        };
        for v in &views {
            let covered = covers(v, chain, seq);
            if v.at >= r.at && !covered {
                return Some(Contradiction::ViewLacksReceipted {
                    receipt: r.at,
                    view: v.at,
                });
            }
            if v.at < r.at && covered {
                return Some(Contradiction::Backwards {
                    receipt: r.at,
                    view: v.at,
                });
            }
        }
    }
    for w in views.windows(2) {
        for h in &w[0].heads {
            let later = w[1]
                .heads
                .iter()
                .find(|k| k.chain == h.chain)
                .map_or(0, |k| k.count);
            if later < h.count {
                return Some(Contradiction::Shrank {
                    chain: h.chain,
                    earlier: w[0].at,
                    later: w[1].at,
                });
            }
        }
    }
    None
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::ids::Seat;

    /// A file of one public chain per seat, envelope `i` of seat `s` hashed `[s*16+i]`.
    pub(crate) struct File(BTreeMap<Hash, (ChainId, u64)>);

    pub(crate) fn h(seat: u8, seq: u64) -> Hash {
        Hash([seat * 16 + seq as u8; 32])
    }

    pub(crate) fn file() -> File {
        let mut m = BTreeMap::new();
        for s in 0..2u8 {
            for i in 0..4 {
                m.insert(h(s, i), (ChainId::public(Seat(s)), i));
            }
        }
        File(m)
    }

    impl Chains for File {
        fn place(&self, envelope: &Hash) -> Option<(ChainId, u64)> {
            self.0.get(envelope).copied()
        }
        fn hash_at(&self, chain: ChainId, seq: u64) -> Option<Hash> {
            self.0
                .iter()
                .find(|(_, p)| **p == (chain, seq))
                .map(|(k, _)| *k)
        }
    }

    fn game() -> GameId {
        GameId(Hash([7; 32]))
    }

    pub(crate) fn view(at: u64, counts: [u64; 2]) -> Statement {
        Statement::View(View {
            game: game(),
            at,
            heads: (0..2u8)
                .map(|s| Head {
                    chain: ChainId::public(Seat(s)),
                    count: counts[usize::from(s)],
                    head: if counts[usize::from(s)] == 0 {
                        Hash::ZERO
                    } else {
                        h(s, counts[usize::from(s)] - 1)
                    },
                })
                .collect(),
        })
    }

    pub(crate) fn receipt(seat: u8, seq: u64, at: u64) -> Statement {
        Statement::Receipt(Receipt {
            game: game(),
            envelope: h(seat, seq),
            at,
        })
    }

    #[test]
    fn consistent_statements_prove_nothing_against_the_witness() {
        let s = [
            receipt(0, 0, 10),
            receipt(1, 0, 20),
            view(25, [1, 1]),
            receipt(0, 1, 30),
            view(40, [2, 1]),
        ];
        assert_eq!(contradiction(&s, &file()), None);
    }

    #[test]
    fn each_kind_of_lie_is_caught() {
        let f = file();
        let lacks = [receipt(0, 1, 30), view(40, [1, 0])];
        assert!(matches!(
            contradiction(&lacks, &f),
            Some(Contradiction::ViewLacksReceipted {
                receipt: 30,
                view: 40
            })
        ));
        let backwards = [receipt(0, 1, 30), view(20, [2, 0])];
        assert!(matches!(
            contradiction(&backwards, &f),
            Some(Contradiction::Backwards {
                receipt: 30,
                view: 20
            })
        ));
        let shrank = [view(20, [2, 1]), view(30, [1, 1])];
        assert!(matches!(
            contradiction(&shrank, &f),
            Some(Contradiction::Shrank {
                earlier: 20,
                later: 30,
                ..
            })
        ));
        let twice = [receipt(1, 2, 5), receipt(1, 2, 6)];
        assert_eq!(
            contradiction(&twice, &f),
            Some(Contradiction::TwoReceipts(5, 6))
        );
        let mut foreign = view(50, [2, 0]);
        if let Statement::View(v) = &mut foreign {
            v.heads[0].head = Hash([0xee; 32]);
        }
        assert!(matches!(
            contradiction(&[foreign], &f),
            Some(Contradiction::ForeignHead { view: 50, .. })
        ));
    }

    #[test]
    fn statements_read_back_only_for_their_game_and_witness() {
        let key = SecretKey::from_seed(&[3; 32]);
        let other = SecretKey::from_seed(&[4; 32]);
        let signed = view(25, [1, 1]).sign(&key);
        let bytes = signed.to_bytes();
        assert_eq!(
            SignedStatement::from_bytes(&bytes, game(), &key.public()),
            Ok(signed)
        );
        assert_eq!(
            SignedStatement::from_bytes(&bytes, game(), &other.public()),
            Err(StatementError::BadSignature)
        );
        assert_eq!(
            SignedStatement::from_bytes(&bytes, GameId(Hash([8; 32])), &key.public()),
            Err(StatementError::OtherGame)
        );
        // Every flipped byte is refused, never accepted as another statement.
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 1;
            assert!(
                SignedStatement::from_bytes(&b, game(), &key.public()).is_err(),
                "byte {i}"
            );
        }
        let big = vec![0u8; MAX_STATEMENT + 1];
        assert!(matches!(
            SignedStatement::from_bytes(&big, game(), &key.public()),
            Err(StatementError::Wire(WireError::TooLarge { .. }))
        ));
        // A view listing a chain twice is refused.
        let mut twice = view(25, [1, 1]);
        if let Statement::View(v) = &mut twice {
            v.heads[1] = v.heads[0];
        }
        let bytes = twice.sign(&key).to_bytes();
        assert_eq!(
            SignedStatement::from_bytes(&bytes, game(), &key.public()),
            Err(StatementError::Unordered)
        );
    }
}
