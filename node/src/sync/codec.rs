//! Framing (spec/PROTOCOL.md §16.2) under a budget of memory. A length prefix is a
//! promise, not bytes: nothing is reserved for a message before its bytes arrive, and
//! what messages hold — while being read, and once read until the node has handled
//! them — is counted against [`MAX_HELD`] in all and [`MAX_HELD_PER_CONNECTION`] per
//! connection. A stream that would go beyond either is refused (reset), its bytes
//! dropped; its sender's request fails and is repaired by a later round. Each
//! connection's first [`FREE_PER_CONNECTION`] bytes are outside the total, so that one
//! stranger holding the total does not stop every other peer's small messages.
//!
//! Decoding costs more than the bytes (each envelope is a `Vec`), so the items are
//! counted from the bytes first (`shape.rs`) and their cost added to the hold before
//! anything is decoded.

use std::io;
use std::sync::{Arc, Mutex, PoisonError};

use futures::{AsyncReadExt, AsyncWriteExt};
use libp2p::StreamProtocol;
use libp2p::request_response::Codec;
use serde::Serialize;

use super::owed::Debt;
use super::shape::{BadShape, ITEM_COST, request_items, response_items};
use super::{MAX_SYNC_MESSAGE, Request, Response};

/// What messages being read or waiting to be handled may hold in all, beyond each
/// connection's free share: two connections' worth of the largest messages (a part of
/// the memory plan, `memory.rs`).
pub const MAX_HELD: usize = 32 << 20;

/// What one connection's messages may hold at once: one message of the largest size
/// and its decoding.
pub const MAX_HELD_PER_CONNECTION: usize = 16 << 20;

/// What each connection may hold outside [`MAX_HELD`].
pub const FREE_PER_CONNECTION: usize = 64 << 10;

/// The read buffer of one stream: what a stream that sends nothing costs.
const CHUNK: usize = 4096;

/// The budget every connection's streams draw from.
#[derive(Debug)]
pub struct Budget {
    max: usize,
    per_connection: usize,
    free: usize,
    held: Mutex<usize>,
}

impl Budget {
    /// A budget of `max` bytes in all and `per_connection` per connection, of which
    /// `free` outside `max`.
    pub fn new(max: usize, per_connection: usize, free: usize) -> Arc<Budget> {
        Arc::new(Budget {
            max,
            per_connection,
            free,
            held: Mutex::new(0),
        })
    }

    /// Bytes held now beyond the connections' free shares.
    pub fn held(&self) -> usize {
        *self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// What one stream's message holds of the budget; given back when dropped.
#[derive(Debug)]
pub struct Hold {
    budget: Arc<Budget>,
    connection: Arc<Mutex<usize>>,
    n: usize,
}

impl Hold {
    fn new(budget: Arc<Budget>, connection: Arc<Mutex<usize>>) -> Hold {
        Hold {
            budget,
            connection,
            n: 0,
        }
    }

    /// Holds `to` bytes in all (more than now), or refuses.
    fn grow(&mut self, to: usize) -> io::Result<()> {
        if to <= self.n {
            return Ok(());
        }
        let more = to - self.n;
        let mut conn = self
            .connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let after = *conn + more;
        if after > self.budget.per_connection {
            return Err(busy("the connection's"));
        }
        let charged =
            after.saturating_sub(self.budget.free) - conn.saturating_sub(self.budget.free);
        let mut all = self
            .budget
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if *all + charged > self.budget.max {
            return Err(busy("every connection's"));
        }
        *all += charged;
        *conn = after;
        self.n = to;
        Ok(())
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        let mut conn = self
            .connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let after = conn.saturating_sub(self.n);
        let charged =
            conn.saturating_sub(self.budget.free) - after.saturating_sub(self.budget.free);
        let mut all = self
            .budget
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *all = all.saturating_sub(charged);
        *conn = after;
    }
}

fn busy(whose: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::OutOfMemory,
        format!("{whose} read budget is spent: stream refused"),
    )
}

/// A message with the budget it holds: the hold is given back when the message is
/// dropped, so a message read but not yet handled still counts. An answer made here to
/// be sent holds its bytes of the answers' budget (`owed.rs`) until it is written or
/// dropped; other messages made here hold nothing.
#[derive(Debug)]
pub struct Budgeted<T> {
    msg: T,
    hold: Option<Hold>,
    owed: Option<Debt>,
}

impl<T> Budgeted<T> {
    /// A message read under `hold`.
    pub(super) fn holding(msg: T, hold: Hold) -> Budgeted<T> {
        Budgeted {
            msg,
            hold: Some(hold),
            owed: None,
        }
    }

    /// An answer to be written, holding `debt` of the answers' budget until it is.
    pub fn owing(msg: T, debt: Debt) -> Budgeted<T> {
        Budgeted {
            msg,
            hold: None,
            owed: Some(debt),
        }
    }

    /// The message.
    pub fn get(&self) -> &T {
        &self.msg
    }

    /// The message, and its hold (drop it once the message is handled).
    pub fn into_parts(self) -> (T, Option<Hold>) {
        (self.msg, self.hold)
    }

    /// The message, its hold given back.
    pub fn into_inner(self) -> T {
        self.msg
    }
}

impl<T> From<T> for Budgeted<T> {
    fn from(msg: T) -> Self {
        Budgeted {
            msg,
            hold: None,
            owed: None,
        }
    }
}

/// Length-prefixed postcard under the budget. The codec a behaviour is built with
/// stands for no connection; its clone for each connection gets a connection's
/// count, which the clones for that connection's streams share.
#[derive(Debug)]
pub struct SyncCodec {
    budget: Arc<Budget>,
    connection: Option<Arc<Mutex<usize>>>,
}

impl SyncCodec {
    /// A codec drawing from `budget`.
    pub fn new(budget: Arc<Budget>) -> SyncCodec {
        SyncCodec {
            budget,
            connection: None,
        }
    }

    /// A hold for one message read on this codec's connection (or, for the stream
    /// protocol, its peer: `frame.rs`).
    pub(super) fn hold(&self) -> Hold {
        let connection = self.connection.clone().unwrap_or_default();
        Hold::new(self.budget.clone(), connection)
    }
}

impl Default for SyncCodec {
    fn default() -> Self {
        SyncCodec::new(Budget::new(
            MAX_HELD,
            MAX_HELD_PER_CONNECTION,
            FREE_PER_CONNECTION,
        ))
    }
}

impl Clone for SyncCodec {
    fn clone(&self) -> Self {
        SyncCodec {
            budget: self.budget.clone(),
            // libp2p clones the behaviour's codec once per connection, and that one
            // once per stream.
            connection: Some(self.connection.clone().unwrap_or_default()),
        }
    }
}

/// Reads one framed message of at most `max` bytes, growing the buffer only as bytes
/// arrive, each growth held in `hold` first; `items` counts what decoding will cost.
pub(super) async fn read_framed<T, M>(
    io: &mut T,
    max: usize,
    hold: &mut Hold,
    items: fn(&[u8]) -> Result<usize, BadShape>,
) -> io::Result<M>
where
    T: futures::AsyncRead + Unpin + Send,
    M: serde::de::DeserializeOwned + Serialize,
{
    let mut len = [0u8; 4];
    io.read_exact(&mut len).await?;
    let len = u32::from_le_bytes(len) as usize;
    if len > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a message of {len} bytes"),
        ));
    }
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = [0u8; CHUNK];
    while buf.len() < len {
        let want = (len - buf.len()).min(CHUNK);
        let n = io.read(&mut chunk[..want]).await?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        if buf.capacity() < buf.len() + n {
            let cap = (buf.capacity() * 2).max(buf.len() + n).max(CHUNK).min(len);
            hold.grow(cap)?;
            buf.reserve_exact(cap - buf.len());
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let items = items(&buf).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    hold.grow(buf.len() + items * ITEM_COST)?;
    sealed_protocol::wire::decode(&buf, max)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Reads one small framed message (at most `max` bytes, a few KiB) with no budget:
/// the lookup protocol's.
pub(crate) async fn read_small<T, M>(io: &mut T, max: usize) -> io::Result<M>
where
    T: futures::AsyncRead + Unpin + Send,
    M: serde::de::DeserializeOwned + Serialize,
{
    let budget = Budget::new(max * 2, max * 2, 0);
    let mut hold = Hold::new(budget, Arc::default());
    read_framed(io, max, &mut hold, |b| Ok(b.len() / 64)).await
}

/// Writes one framed message of at most `max` bytes.
pub(crate) async fn write_framed<T, M>(io: &mut T, m: &M, max: usize) -> io::Result<()>
where
    T: futures::AsyncWrite + Unpin + Send,
    M: Serialize,
{
    write_all(io, &encode_framed(&[], m, max)?).await
}

/// `prefix`, then one framed message of at most `max` bytes, in one buffer: written
/// with one write, a message leaves in one muxer frame and one TCP segment.
pub(super) fn encode_framed<M: Serialize>(prefix: &[u8], m: &M, max: usize) -> io::Result<Vec<u8>> {
    let bytes = sealed_protocol::wire::encode(m);
    if bytes.len() > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "message too large",
        ));
    }
    let mut out = Vec::with_capacity(prefix.len() + 4 + bytes.len());
    out.extend_from_slice(prefix);
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(&bytes);
    Ok(out)
}

/// Writes `bytes` and flushes.
pub(crate) async fn write_all<T>(io: &mut T, bytes: &[u8]) -> io::Result<()>
where
    T: futures::AsyncWrite + Unpin + Send,
{
    io.write_all(bytes).await?;
    io.flush().await
}

impl Codec for SyncCodec {
    type Protocol = StreamProtocol;
    type Request = Budgeted<Request>;
    type Response = Budgeted<Response>;

    async fn read_request<T>(&mut self, _: &StreamProtocol, io: &mut T) -> io::Result<Self::Request>
    where
        T: futures::AsyncRead + Unpin + Send,
    {
        let mut hold = self.hold();
        let msg = read_framed(io, MAX_SYNC_MESSAGE, &mut hold, request_items).await?;
        Ok(Budgeted::holding(msg, hold))
    }

    async fn read_response<T>(
        &mut self,
        _: &StreamProtocol,
        io: &mut T,
    ) -> io::Result<Self::Response>
    where
        T: futures::AsyncRead + Unpin + Send,
    {
        let mut hold = self.hold();
        let msg = read_framed(io, MAX_SYNC_MESSAGE, &mut hold, response_items).await?;
        Ok(Budgeted::holding(msg, hold))
    }

    async fn write_request<T>(
        &mut self,
        _: &StreamProtocol,
        io: &mut T,
        req: Self::Request,
    ) -> io::Result<()>
    where
        T: futures::AsyncWrite + Unpin + Send,
    {
        write_framed(io, &req.msg, MAX_SYNC_MESSAGE).await
    }

    async fn write_response<T>(
        &mut self,
        _: &StreamProtocol,
        io: &mut T,
        res: Self::Response,
    ) -> io::Result<()>
    where
        T: futures::AsyncWrite + Unpin + Send,
    {
        // The answer's bytes alone wait for the peer to read them: the message goes
        // once encoded, and its debt once written (or dropped with this future, when
        // libp2p's substream times out).
        let Budgeted { msg, owed, .. } = res;
        let bytes = encode_framed(&[], &msg, MAX_SYNC_MESSAGE)?;
        drop(msg);
        write_all(io, &bytes).await?;
        drop(owed);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::io::Cursor;

    fn framed(msg: &Request) -> Vec<u8> {
        let bytes = sealed_protocol::wire::encode(msg);
        let mut out = (bytes.len() as u32).to_le_bytes().to_vec();
        out.extend(bytes);
        out
    }

    #[test]
    fn a_length_alone_holds_nothing_and_a_message_holds_until_dropped() {
        let budget = Budget::new(1 << 20, 1 << 20, 0);
        let mut codec = SyncCodec::new(budget.clone()).clone();
        futures::executor::block_on(async {
            // A promise of 8 MiB and then nothing: an error, nothing held.
            let mut promise = Cursor::new((8u32 << 20).to_le_bytes().to_vec());
            assert!(
                codec
                    .read_request(&super::super::PROTOCOL, &mut promise)
                    .await
                    .is_err()
            );
            assert_eq!(budget.held(), 0);
            let req = Request::Push {
                game: [1; 32].into(),
                envelopes: vec![vec![7; 1000]; 10],
            };
            let mut io = Cursor::new(framed(&req));
            let got = codec
                .read_request(&super::super::PROTOCOL, &mut io)
                .await
                .expect("reads");
            assert_eq!(got.get(), &req);
            assert!(budget.held() >= 10_000);
            drop(got);
            assert_eq!(budget.held(), 0);
        });
    }

    #[test]
    fn past_the_budget_a_stream_is_refused_and_gives_back_what_it_held() {
        let budget = Budget::new(30_000, 20_000, 1_000);
        let conn = SyncCodec::new(budget.clone()).clone();
        let (mut a, mut b) = (conn.clone(), conn.clone());
        let other = SyncCodec::new(budget.clone()).clone();
        futures::executor::block_on(async {
            let req = Request::Propose {
                proposal: vec![1; 12_000],
            };
            let first = a
                .read_request(&super::super::PROTOCOL, &mut Cursor::new(framed(&req)))
                .await
                .expect("within the connection's share");
            // A second on the same connection goes past its share.
            let second = b
                .read_request(&super::super::PROTOCOL, &mut Cursor::new(framed(&req)))
                .await;
            assert_eq!(
                second.map(drop).map_err(|e| e.kind()),
                Err(io::ErrorKind::OutOfMemory)
            );
            // Another connection still has room in the total.
            let mut o = other.clone();
            let third = o
                .read_request(&super::super::PROTOCOL, &mut Cursor::new(framed(&req)))
                .await
                .expect("another connection");
            drop((first, third));
            assert_eq!(budget.held(), 0);
        });
    }
}
