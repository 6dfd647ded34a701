//! How many items a sync message holds, read from its bytes before it is decoded: a
//! message of 8 MiB may hold millions of tiny items (empty envelopes, heads entries),
//! and decoded each costs tens of bytes, so what a peer could make us allocate is
//! known, and refused past [`MAX_ITEMS`], before any of it is allocated.
//!
//! The walk follows the postcard encoding of [`Request`](super::Request) and
//! [`Response`](super::Response) (spec/PROTOCOL.md §1, §16.3): varint enum tags and
//! lengths, 32 raw bytes for an id. A variant this walk does not know (a newer
//! protocol's) is counted pessimistically, one item per 16 bytes.

pub use sealed_core::message::MAX_ITEMS;

/// What decoding costs per item beyond its bytes (a `Vec` header and an allocation),
/// for the read budget.
pub const ITEM_COST: usize = 48;

/// Why a peer's message is refused before it is decoded: the sender's fault, always
/// (an honest node never sends one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadShape {
    /// It ends before what it announces.
    #[error("a message cut short")]
    Short,
    /// A number's encoding runs past ten bytes.
    #[error("a varint too long")]
    LongVarint,
    /// A length beyond what this machine can address.
    #[error("a length too large")]
    LongLength,
    /// A sequence announces more elements than the bytes left could hold.
    #[error("a sequence longer than the message")]
    LongSequence,
    /// More than [`MAX_ITEMS`] items.
    #[error("more than {MAX_ITEMS} items in one message")]
    TooManyItems,
}

/// A message's items, or why it is refused (more than [`MAX_ITEMS`], or a shape that
/// cannot be a message).
pub fn request_items(bytes: &[u8]) -> Result<usize, BadShape> {
    let mut w = Walk::new(bytes);
    match w.varint()? {
        // Propose: the proposal.
        0 => w.bytes()?,
        // Push: a game, envelopes.
        1 => {
            w.skip(32)?;
            w.vec(|w| w.bytes())?;
        }
        // Pull: a game, heads.
        2 => {
            w.skip(32)?;
            w.vec(Walk::head)?;
        }
        // Heads: per game, heads.
        3 => w.vec(|w| {
            w.skip(32)?;
            w.vec(Walk::head)
        })?,
        // PushMany: per game, envelopes.
        4 => w.vec(|w| {
            w.skip(32)?;
            w.vec(|w| w.bytes())
        })?,
        // Offer: the proposal, envelopes.
        5 => {
            w.bytes()?;
            w.vec(|w| w.bytes())?;
        }
        // Introduce: a game, addresses.
        6 => {
            w.skip(32)?;
            w.vec(|w| w.bytes())?;
        }
        // Witness: a game.
        7 => w.skip(32)?,
        // Deposit: a game, deposits.
        8 => {
            w.skip(32)?;
            w.vec(|w| w.bytes())?;
        }
        // Deposits: a game, a number.
        9 => {
            w.skip(32)?;
            w.varint()?;
        }
        // Ruling: a game, an act.
        10 => {
            w.skip(32)?;
            w.bytes()?;
        }
        // OfferFrom: the proposal, envelopes, an origin.
        11 => {
            w.bytes()?;
            w.vec(|w| w.bytes())?;
            w.bytes()?;
        }
        _ => return w.unknown(),
    }
    Ok(w.items)
}

/// As [`request_items`], for a response.
pub fn response_items(bytes: &[u8]) -> Result<usize, BadShape> {
    let mut w = Walk::new(bytes);
    match w.varint()? {
        // Ok: a count.
        0 => {
            w.varint()?;
        }
        // Envelopes.
        1 => w.vec(|w| w.bytes())?,
        // Refused: a reason.
        2 => w.bytes()?,
        // Behind: per game envelopes, unknown games.
        3 => {
            w.vec(|w| {
                w.skip(32)?;
                w.vec(|w| w.bytes())
            })?;
            w.vec(|w| w.skip(32))?;
        }
        // Statements.
        4 => w.vec(|w| w.bytes())?,
        // Deposits: deposits, the next number.
        5 => {
            w.vec(|w| w.bytes())?;
            w.varint()?;
        }
        _ => return w.unknown(),
    }
    Ok(w.items)
}

struct Walk<'a> {
    bytes: &'a [u8],
    at: usize,
    items: usize,
}

impl<'a> Walk<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Walk {
            bytes,
            at: 0,
            items: 0,
        }
    }

    fn varint(&mut self) -> Result<u64, BadShape> {
        let mut v: u64 = 0;
        for shift in (0..70).step_by(7) {
            let b = *self.bytes.get(self.at).ok_or(BadShape::Short)?;
            self.at += 1;
            v |= u64::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(BadShape::LongVarint)
    }

    fn skip(&mut self, n: usize) -> Result<(), BadShape> {
        if self.bytes.len() - self.at < n {
            return Err(BadShape::Short);
        }
        self.at += n;
        Ok(())
    }

    /// A byte string (or a UTF-8 one): its length, then its bytes.
    fn bytes(&mut self) -> Result<(), BadShape> {
        let n = self.varint()?;
        self.skip(usize::try_from(n).map_err(|_| BadShape::LongLength)?)
    }

    /// A heads entry: a chain (log, seat) and a count.
    fn head(&mut self) -> Result<(), BadShape> {
        self.varint()?;
        self.skip(1)?;
        self.varint().map(drop)
    }

    /// A sequence: its length, then each element; every element is an item.
    fn vec(
        &mut self,
        mut each: impl FnMut(&mut Self) -> Result<(), BadShape>,
    ) -> Result<(), BadShape> {
        let n = self.varint()?;
        // Each element takes at least one byte: a length beyond what is left is a lie.
        if n > (self.bytes.len() - self.at) as u64 {
            return Err(BadShape::LongSequence);
        }
        self.items += n as usize;
        if self.items > MAX_ITEMS {
            return Err(BadShape::TooManyItems);
        }
        for _ in 0..n {
            each(self)?;
        }
        Ok(())
    }

    fn unknown(&self) -> Result<usize, BadShape> {
        let items = self.bytes.len() / 16;
        if items > MAX_ITEMS {
            return Err(BadShape::TooManyItems);
        }
        Ok(items)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Request, Response};
    use super::*;
    use sealed_protocol::ids::{ChainId, LogId, Seat};
    use sealed_protocol::wire::encode;

    fn chain(log: u32) -> ChainId {
        ChainId {
            log: LogId(log),
            seat: Seat(1),
        }
    }

    #[test]
    fn every_variant_is_walked_to_its_end_and_counted() {
        let reqs = [
            (
                Request::Propose {
                    proposal: vec![1; 300],
                },
                0,
            ),
            (
                Request::Push {
                    game: [1; 32].into(),
                    envelopes: vec![vec![2; 200]; 3],
                },
                3,
            ),
            (
                Request::Pull {
                    game: [1; 32].into(),
                    have: vec![(chain(300), 70_000), (chain(1), 0)],
                },
                2,
            ),
            (
                Request::Heads {
                    games: vec![
                        ([3; 32].into(), vec![(chain(5), 5)]),
                        ([4; 32].into(), vec![]),
                    ],
                },
                3,
            ),
            (
                Request::PushMany {
                    games: vec![
                        ([3; 32].into(), vec![vec![1], vec![]]),
                        ([4; 32].into(), vec![]),
                    ],
                },
                4,
            ),
            (
                Request::Offer {
                    proposal: vec![9; 10],
                    envelopes: vec![vec![1; 129]],
                },
                1,
            ),
            (
                Request::OfferFrom {
                    proposal: vec![9; 10],
                    envelopes: vec![vec![1; 129], vec![]],
                    origin: "ip4/1.2.3.4".into(),
                },
                2,
            ),
            (
                Request::Introduce {
                    game: [1; 32].into(),
                    addrs: vec!["/ip4/1.2.3.4/tcp/1".into(); 4],
                },
                4,
            ),
            (
                Request::Witness {
                    game: [1; 32].into(),
                },
                0,
            ),
            (
                Request::Deposit {
                    game: [1; 32].into(),
                    deposits: vec![vec![5; 80]; 7],
                },
                7,
            ),
            (
                Request::Deposits {
                    game: [1; 32].into(),
                    from: 300,
                },
                0,
            ),
            (
                Request::Ruling {
                    game: [1; 32].into(),
                    act: vec![8; 300],
                },
                0,
            ),
        ];
        for (r, items) in reqs {
            assert_eq!(request_items(&encode(&r)), Ok(items), "{r:?}");
        }
        let resps = [
            (Response::Ok { new: 70_000 }, 0),
            (Response::Envelopes(vec![vec![1; 3]; 2]), 2),
            (Response::Refused("no".into()), 0),
            (
                Response::Behind {
                    envelopes: vec![([1; 32].into(), vec![vec![1], vec![2]])],
                    unknown: vec![[2; 32].into(), [3; 32].into()],
                },
                5,
            ),
            (Response::Statements(vec![vec![1; 140]; 3]), 3),
            (
                Response::Deposits {
                    deposits: vec![vec![1; 90]; 4],
                    next: 70_000,
                },
                4,
            ),
        ];
        for (r, items) in resps {
            assert_eq!(response_items(&encode(&r)), Ok(items), "{r:?}");
        }
    }

    #[test]
    fn millions_of_tiny_items_are_refused_unread() {
        let r = Request::Push {
            game: [1; 32].into(),
            envelopes: vec![vec![]; MAX_ITEMS + 1],
        };
        assert!(request_items(&encode(&r)).is_err());
        let heads = Request::Heads {
            games: vec![(
                [1; 32].into(),
                (0..MAX_ITEMS as u32).map(|i| (chain(i), 1)).collect(),
            )],
        };
        assert!(request_items(&encode(&heads)).is_err());
        // A length that the bytes cannot hold.
        let mut lie = encode(&Request::Push {
            game: [1; 32].into(),
            envelopes: vec![],
        });
        lie.pop();
        lie.extend([0xff, 0xff, 0xff, 0x7f]);
        assert!(request_items(&lie).is_err());
    }

    proptest::proptest! {
        /// Any bytes are walked without a panic, and what decodes is never refused for
        /// its shape unless it holds too many items.
        #[test]
        fn any_bytes_walk(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..512)) {
            let walked = request_items(&bytes);
            if sealed_protocol::wire::decode::<Request>(&bytes, 1 << 20).is_ok() {
                proptest::prop_assert!(walked.is_ok(), "{walked:?}");
            }
            let _ = response_items(&bytes);
        }
    }
}
