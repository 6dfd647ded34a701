//! Frames of the stream protocol `/sealed/sync-stream/1` (spec/PROTOCOL.md §16.2): on
//! one long-lived stream, each message is a request id (8 bytes, little-endian), one
//! byte saying request (0) or response (1), and then the message framed exactly as on
//! `/sealed/sync/1` (`codec.rs`: a 4-byte length and the postcard bytes), read under the
//! same budget of held bytes. The id is the opener's: a response carries the id of the
//! request it answers.

use std::io;

use super::codec::{encode_framed, read_framed, write_all};
use super::shape::{request_items, response_items};
use super::{Budgeted, MAX_SYNC_MESSAGE, Request, Response, SyncCodec};

/// The id of a request on a stream, chosen by the side that opened it.
pub type StreamRequestId = u64;

const REQUEST: u8 = 0;
const RESPONSE: u8 = 1;

/// One message on a stream.
#[derive(Debug)]
pub enum Frame {
    /// A request, with its id.
    Request(StreamRequestId, Budgeted<Request>),
    /// The response to the request of this id.
    Response(StreamRequestId, Budgeted<Response>),
}

/// Reads one frame; what it holds of `codec`'s budget is held until the message is
/// dropped. An unknown kind, a length past [`MAX_SYNC_MESSAGE`] or bytes that do not
/// decode are an error: the stream is then closed.
pub async fn read_frame<T>(io: &mut T, codec: &SyncCodec) -> io::Result<Frame>
where
    T: futures::AsyncRead + Unpin + Send,
{
    use futures::AsyncReadExt;
    let mut head = [0u8; 9];
    io.read_exact(&mut head).await?;
    let id = u64::from_le_bytes(head[..8].try_into().expect("8 bytes"));
    let mut hold = codec.hold();
    match head[8] {
        REQUEST => {
            let msg = read_framed(io, MAX_SYNC_MESSAGE, &mut hold, request_items).await?;
            Ok(Frame::Request(id, Budgeted::holding(msg, hold)))
        }
        RESPONSE => {
            let msg = read_framed(io, MAX_SYNC_MESSAGE, &mut hold, response_items).await?;
            Ok(Frame::Response(id, Budgeted::holding(msg, hold)))
        }
        k => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a frame of kind {k}"),
        )),
    }
}

/// A frame's bytes before the message's own: the id, the kind and the length.
pub(crate) const FRAME_HEAD: usize = 8 + 1 + 4;

/// One request frame's bytes, as written.
pub(crate) fn request_frame(id: StreamRequestId, req: &Request) -> io::Result<Vec<u8>> {
    encode_framed(&head(id, REQUEST), req, MAX_SYNC_MESSAGE)
}

/// One response frame's bytes, as written.
pub(crate) fn response_frame(id: StreamRequestId, resp: &Response) -> io::Result<Vec<u8>> {
    encode_framed(&head(id, RESPONSE), resp, MAX_SYNC_MESSAGE)
}

/// Writes one request frame.
pub async fn write_request<T>(io: &mut T, id: StreamRequestId, req: &Request) -> io::Result<()>
where
    T: futures::AsyncWrite + Unpin + Send,
{
    write_all(io, &request_frame(id, req)?).await
}

/// Writes one response frame.
pub async fn write_response<T>(io: &mut T, id: StreamRequestId, resp: &Response) -> io::Result<()>
where
    T: futures::AsyncWrite + Unpin + Send,
{
    write_all(io, &response_frame(id, resp)?).await
}

fn head(id: StreamRequestId, kind: u8) -> [u8; 9] {
    let mut h = [0u8; 9];
    h[..8].copy_from_slice(&id.to_le_bytes());
    h[8] = kind;
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::Budget;
    use futures::io::Cursor;

    #[test]
    fn frames_round_trip_and_hold_until_dropped() {
        let budget = Budget::new(1 << 20, 1 << 20, 0);
        let codec = SyncCodec::new(budget.clone()).clone();
        futures::executor::block_on(async {
            let req = Request::Push {
                game: [1; 32].into(),
                envelopes: vec![vec![7; 1000]; 10],
            };
            let mut io = Cursor::new(Vec::new());
            write_request(&mut io, 5, &req).await.unwrap();
            write_response(&mut io, 5, &Response::Ok { new: 1 })
                .await
                .unwrap();
            io.set_position(0);
            let Frame::Request(5, got) = read_frame(&mut io, &codec).await.unwrap() else {
                panic!("a request of id 5")
            };
            assert_eq!(got.get(), &req);
            assert!(budget.held() >= 10_000);
            drop(got);
            assert_eq!(budget.held(), 0);
            let Frame::Response(5, got) = read_frame(&mut io, &codec).await.unwrap() else {
                panic!("a response of id 5")
            };
            assert_eq!(got.get(), &Response::Ok { new: 1 });
        });
    }

    #[test]
    fn a_bad_kind_or_an_oversized_length_is_refused_holding_nothing() {
        let budget = Budget::new(1 << 20, 1 << 20, 0);
        let codec = SyncCodec::new(budget.clone()).clone();
        futures::executor::block_on(async {
            let mut bad = head(1, 7).to_vec();
            bad.extend(4u32.to_le_bytes());
            assert!(read_frame(&mut Cursor::new(bad), &codec).await.is_err());
            let mut big = head(1, REQUEST).to_vec();
            big.extend(((MAX_SYNC_MESSAGE + 1) as u32).to_le_bytes());
            big.extend(vec![0u8; 4096]);
            assert!(read_frame(&mut Cursor::new(big), &codec).await.is_err());
            assert_eq!(budget.held(), 0);
        });
    }
}
