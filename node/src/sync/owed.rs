//! The answers a node owes its peers while they wait to be written: what `codec.rs`
//! bounds of the bytes read, bounded here of the bytes answered. A peer that asks and
//! never reads would otherwise make the node hold every answer (a witness's answer to
//! `Deposits` is up to 7 MiB: 32 of them on one connection took a node from 181 to
//! 532 MB).
//!
//! The bounds, each with its owner, size and lifetime:
//! - **an answer** is owned by the stream's task that writes it (`shell/link.rs`) or,
//!   for a peer on request-response, by libp2p's substream; it holds its framed size
//!   ([`Debt`]) from the moment the shell queues it until it is written, or dropped
//!   unwritten: on a stream, when its request's deadline (`NetConfig::request_timeout`
//!   after it was read) passes before it is written whole, which closes the stream;
//!   on request-response, when libp2p's substream times out (the same timeout);
//! - **a peer's answers** ([`Share`], kept by `shell/streams.rs` per peer while any
//!   wait) hold at most `net::MAX_OWED_PER_PEER` (16 MiB) on all its streams and
//!   substreams together; an answer that would take it past that is not queued, and a
//!   refusal of a few dozen bytes ("busy", the asker's fault) goes in its place;
//! - **everyone's** ([`Owed`], one per node, for its life) at most `net::MAX_OWED`
//!   (64 MiB) beyond each peer's first `net::FREE_OWED_PER_PEER` (64 KiB): past it an
//!   answer is refused as busy (this node's), but a peer's small answers — heads,
//!   acknowledgements, refusals — within its free share never are, so strangers who do
//!   not read cannot silence the peers who do;
//! - **reading**: a peer's streams are not read while its answers leave no room for one
//!   of the largest message, or `net::MAX_OWED_ANSWERS` wait ([`Share::room`]): its
//!   next requests wait in its own muxer window, and the refusals put in place of
//!   answers are as many at most as the requests read before that.
//!
//! A refusal is queued behind the answers the peer has not read, on the same stream:
//! what bounds them is that the stream is then no longer read, not that they jump the
//! queue (a stream's frames go in order).

use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::Notify;

use super::Response;
use crate::core::refusal::PeerRefusal;

/// The budget of every answer waiting to be written, per peer and in all.
#[derive(Debug)]
pub struct Owed {
    max: usize,
    per_peer: usize,
    free: usize,
    /// Bytes waiting beyond the peers' free shares.
    all: Mutex<usize>,
}

/// One peer's answers waiting to be written: their bytes and how many, and a wake for
/// the readers of its streams when one is written or dropped.
#[derive(Debug, Default)]
pub struct Share {
    /// (bytes, answers).
    state: Mutex<(usize, usize)>,
    drained: Notify,
}

/// Whose bound an answer would pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Full {
    /// The peer's: this many bytes of answers to it wait already.
    Peer(usize),
    /// Everyone's.
    All,
}

/// What one answer holds of the budget, from when it is queued until it is dropped
/// (written, or not).
#[derive(Debug)]
pub struct Debt {
    owed: Arc<Owed>,
    share: Arc<Share>,
    n: usize,
}

impl Owed {
    /// A budget of `max` bytes in all and `per_peer` per peer, of which `free` outside
    /// `max`.
    pub fn new(max: usize, per_peer: usize, free: usize) -> Arc<Owed> {
        Arc::new(Owed {
            max,
            per_peer,
            free,
            all: Mutex::new(0),
        })
    }

    /// Bytes waiting now beyond the peers' free shares.
    pub fn owed(&self) -> usize {
        *self.all.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes `n` bytes for an answer to the peer of `share`, or says whose bound it
    /// would pass (and takes nothing).
    pub fn take(self: &Arc<Self>, share: &Arc<Share>, n: usize) -> Result<Debt, Full> {
        self.add(share, n, true)?;
        Ok(self.debt(share, n))
    }

    /// Takes `n` bytes whatever the bounds: for the refusal of a few dozen bytes that
    /// goes in place of an answer that did not fit (as many as the requests read
    /// before the peer's streams stopped being read, [`Share::room`]).
    pub fn force(self: &Arc<Self>, share: &Arc<Share>, n: usize) -> Debt {
        let _ = self.add(share, n, false);
        self.debt(share, n)
    }

    fn debt(self: &Arc<Self>, share: &Arc<Share>, n: usize) -> Debt {
        Debt {
            owed: self.clone(),
            share: share.clone(),
            n,
        }
    }

    fn add(&self, share: &Share, n: usize, check: bool) -> Result<(), Full> {
        let mut s = share.state.lock().unwrap_or_else(PoisonError::into_inner);
        let after = s.0.saturating_add(n);
        if check && after > self.per_peer {
            return Err(Full::Peer(s.0));
        }
        let charged = after.saturating_sub(self.free) - s.0.saturating_sub(self.free);
        let mut all = self.all.lock().unwrap_or_else(PoisonError::into_inner);
        if check && all.saturating_add(charged) > self.max {
            return Err(Full::All);
        }
        *all = all.saturating_add(charged);
        *s = (after, s.1 + 1);
        Ok(())
    }
}

impl Share {
    /// Bytes and answers waiting now.
    pub fn waiting(&self) -> (usize, usize) {
        *self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.waiting() == (0, 0)
    }

    /// Returns once at most `bytes` bytes and fewer than `answers` answers wait: what
    /// the reader of one of the peer's streams waits for before reading a request.
    pub async fn room(&self, bytes: usize, answers: usize) {
        loop {
            // Registered before the check: a debt dropped in between still wakes it.
            let drained = self.drained.notified();
            let (b, n) = self.waiting();
            if b <= bytes && n < answers {
                return;
            }
            drained.await;
        }
    }
}

impl Drop for Debt {
    fn drop(&mut self) {
        {
            let mut s = self
                .share
                .state
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let after = s.0.saturating_sub(self.n);
            let charged = s.0.saturating_sub(self.owed.free) - after.saturating_sub(self.owed.free);
            let mut all = self.owed.all.lock().unwrap_or_else(PoisonError::into_inner);
            *all = all.saturating_sub(charged);
            *s = (after, s.1.saturating_sub(1));
        }
        self.share.drained.notify_waiters();
    }
}

/// An answer to the peer of `share`, of `framing` bytes more than its encoding, to wait
/// until written: with what it holds of the budget, or past the peer's share or
/// everyone's a refusal in its place (a few dozen bytes, taken whatever the bounds: the
/// peer's streams are not read meanwhile, so they stay few).
pub fn owe(
    owed: &Arc<Owed>,
    share: &Arc<Share>,
    resp: Response,
    framing: usize,
) -> (Response, Debt) {
    match owed.take(share, encoded_len(&resp) + framing) {
        Ok(debt) => (resp, debt),
        Err(full) => {
            let why = match full {
                Full::Peer(waiting) => PeerRefusal::AnswersUnread(waiting),
                Full::All => PeerRefusal::AnswersWaiting,
            };
            tracing::debug!("an answer refused: {why}");
            let resp = Response::from(why);
            let debt = owed.force(share, encoded_len(&resp) + framing);
            (resp, debt)
        }
    }
}

/// The bytes of a response's encoding (postcard's, as written), counted without
/// writing them.
pub fn encoded_len(resp: &Response) -> usize {
    postcard::serialize_with_flavor(resp, postcard::ser_flavors::Size::default()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peer_past_its_share_or_everyone_past_the_total_is_refused_until_answers_drain() {
        let owed = Owed::new(300, 200, 10);
        let (a, b) = (Arc::new(Share::default()), Arc::new(Share::default()));
        let first = owed.take(&a, 150).expect("within the peer's share");
        assert_eq!(owed.take(&a, 60).map(drop), Err(Full::Peer(150)));
        let second = owed.take(&b, 160).expect("another peer");
        // 140 + 150 beyond the free shares: no room for 20 more in all...
        assert_eq!(owed.take(&b, 20).map(drop), Err(Full::All));
        // ...but a small answer within a peer's free share is never refused for others.
        let c = Arc::new(Share::default());
        let small = owed.take(&c, 10).expect("within the free share");
        // A refusal in place of an answer is taken whatever the bounds.
        let refusal = owed.force(&a, 40);
        assert_eq!(a.waiting(), (190, 2));
        drop((first, refusal));
        assert!(a.is_empty());
        assert!(owed.take(&b, 20).is_ok(), "room again once drained");
        drop((second, small));
        assert_eq!(owed.owed(), 0);
        // An answer past the peer's share goes as a refusal that says whose fault.
        let big = Response::Deposits {
            deposits: vec![vec![0; 500]],
            next: 1,
        };
        let (r, debt) = owe(&owed, &a, big, 13);
        assert!(
            matches!(&r, Response::Refused(why) if why.contains("wait unread")),
            "{r:?}"
        );
        assert_eq!(a.waiting(), (encoded_len(&r) + 13, 1));
        drop(debt);
    }

    #[test]
    fn a_reader_waits_for_room_and_is_woken_when_an_answer_is_written() {
        let owed = Owed::new(1 << 20, 1 << 20, 0);
        let share = Arc::new(Share::default());
        let big = owed.take(&share, 900).unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(async {
            let waiting = share.room(500, 8);
            tokio::pin!(waiting);
            assert!(
                futures::poll!(waiting.as_mut()).is_pending(),
                "no room while 900 bytes wait"
            );
            drop(big);
            waiting.await;
            // Too many answers, however small, are no room either.
            let many: Vec<Debt> = (0..8).map(|_| owed.take(&share, 1).unwrap()).collect();
            let waiting = share.room(500, 8);
            tokio::pin!(waiting);
            assert!(futures::poll!(waiting.as_mut()).is_pending());
            drop(many);
            waiting.await;
        });
    }
}
