//! One sync stream's IO, in a task of its own: it reads frames (under the read budget,
//! `sync/frame.rs`) and hands them to the shell, and writes what the shell gives it.
//! The shell's queue of events is bounded: while it is full, a stream's task reads
//! nothing more, and its peer waits on the muxer's window.

use futures::AsyncReadExt as _;
use libp2p::{PeerId, Stream};
use libp2p_stream::OpenStreamError;
use tokio::sync::mpsc;

use crate::sync::{
    Frame, Request, Response, StreamRequestId, SyncCodec, read_frame, write_request, write_response,
};

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
    /// One of our requests.
    Request(StreamRequestId, Request),
    /// Our response to one of the peer's.
    Response(StreamRequestId, Response),
}

/// Runs one stream until it ends, fails, or the shell aborts the task: reads frames
/// into `events`, writes what comes from `out`. Says `Closed` when it ends on its own.
pub(super) fn spawn(
    link: LinkId,
    stream: Stream,
    codec: SyncCodec,
    events: mpsc::Sender<Event>,
    mut out: mpsc::UnboundedReceiver<Out>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let (mut r, mut w) = stream.split();
        let read = async {
            loop {
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
                let done = match &o {
                    Out::Request(id, req) => write_request(&mut w, *id, req).await,
                    Out::Response(id, resp) => write_response(&mut w, *id, resp).await,
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
