//! One sync stream's IO, in a task of its own: it reads frames (under the read budget,
//! `sync/frame.rs`) and hands them to the shell, and writes what the shell gives it.
//! The shell's queue of events is bounded: while it is full, a stream's task reads
//! nothing more, and its peer waits on the muxer's window. So does a peer's stream to
//! us while our answers to it wait unwritten past its room (`sync/owed.rs`): a peer
//! that does not read is not read. An answer is written by its request's deadline or
//! not at all: one whose asker has given up is dropped unwritten, and a write still
//! going at the deadline closes the stream (the peer does not read it).

use std::time::Instant;

use futures::AsyncReadExt as _;
use libp2p::{PeerId, Stream};
use libp2p_stream::OpenStreamError;
use tokio::sync::mpsc;

use crate::net::{MAX_OWED_ANSWERS, MAX_OWED_PER_PEER};
use crate::sync::owed::{Debt, Share};
use crate::sync::{FRAME_HEAD, Frame, MAX_SYNC_MESSAGE, SyncCodec, read_frame, write_all};

/// A stream's number in the shell.
pub(super) type LinkId = u64;

/// What the streams' tasks tell the shell.
pub(super) enum Event {
    /// A stream we asked for opened, or did not (a timeout is an IO error).
    Opened {
        /// To whom.
        peer: PeerId,
        /// The stream, or why not.
        result: Result<Stream, OpenStreamError>,
    },
    /// A frame read on a stream; it holds its bytes of the budget until dropped.
    Frame {
        /// The stream.
        link: LinkId,
        /// What was read.
        frame: Frame,
    },
    /// A stream ended or failed (what it read last was bad, or its peer left).
    Closed {
        /// The stream.
        link: LinkId,
    },
}

/// What the shell writes on a stream.
pub(super) enum Out {
    /// One of our requests: its frame's bytes (kept by the shell while the stream is
    /// fresh, `fresh.rs`).
    Request(std::sync::Arc<[u8]>),
    /// Our response to one of the peer's: its frame's bytes, what they hold of the
    /// answers' budget, and its request's deadline.
    Response {
        /// The frame, as written.
        bytes: Vec<u8>,
        /// Given back once written or dropped.
        debt: Debt,
        /// When its asker gives up waiting.
        deadline: Instant,
    },
}

/// Bytes of a peer's answers waiting past which its streams are not read: no room for
/// one more of the largest message.
const READ_UNTIL: usize = MAX_OWED_PER_PEER - MAX_SYNC_MESSAGE - FRAME_HEAD;

/// Runs one stream until it ends, fails, or the shell aborts the task: reads frames
/// into `events`, writes what comes from `out`. Says `Closed` when it ends on its own.
/// A stream of the peer's (`owed`: its answers' share) is read only while the answers
/// waiting for the peer leave room.
pub(super) fn spawn(
    link: LinkId,
    stream: Stream,
    codec: SyncCodec,
    events: mpsc::Sender<Event>,
    mut out: mpsc::UnboundedReceiver<Out>,
    owed: Option<std::sync::Arc<Share>>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let (mut r, mut w) = stream.split();
        let read = async {
            loop {
                if let Some(share) = &owed {
                    share.room(READ_UNTIL, MAX_OWED_ANSWERS).await;
                }
                match read_frame(&mut r, &codec).await {
                    Ok(frame) => {
                        if events.send(Event::Frame { link, frame }).await.is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        tracing::debug!(link, "sync stream read: {e}");
                        return;
                    }
                }
            }
        };
        let write = async {
            while let Some(o) = out.recv().await {
                let done = match o {
                    Out::Request(frame) => write_all(&mut w, &frame).await,
                    Out::Response {
                        bytes,
                        debt,
                        deadline,
                    } => {
                        if Instant::now() >= deadline {
                            // Its asker has given up: not written, and given back.
                            continue;
                        }
                        let deadline = tokio::time::Instant::from_std(deadline);
                        let written = tokio::time::timeout_at(deadline, write_all(&mut w, &bytes));
                        let done = written.await.unwrap_or_else(|_| {
                            Err(std::io::Error::new(
                                std::io::ErrorKind::TimedOut,
                                "an answer not read by its request's deadline",
                            ))
                        });
                        drop(debt);
                        done
                    }
                };
                if let Err(e) = done {
                    tracing::debug!(link, "sync stream write: {e}");
                    return;
                }
            }
        };
        tokio::select! {
            () = read => {}
            () = write => {}
        }
        let _ = events.send(Event::Closed { link }).await;
    })
}
