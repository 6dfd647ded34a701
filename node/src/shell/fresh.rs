//! Our sync stream to a peer until its first answer: the frames written on it, kept so
//! that a stream the peer's node dropped as it came in goes once more on a new one.
//!
//! Why a stream is dropped although both nodes are honest: libp2p's stream behaviour
//! hands inbound streams to the node through one queue of a single place, shared by
//! every connection, and drops a stream that finds it taken (its defence against a
//! node that does not keep up). When many peers open their streams within a moment — a
//! public node's players at the start of a round, every peer of a node that has just
//! restarted — the node's task that empties the queue may not run between two of them,
//! and the second is reset. Its opener saw the stream open, wrote its requests, and
//! reads an end or a failed write (`connection is closed`) with no answer: measured by
//! the load bench (cli/tests/load), 1 player of 20 in about one run in five on this
//! machine; its requests then waited for the core's next repair round.
//!
//! So a stream of ours that ends before any answer came on it sends its requests again,
//! once, on a new stream: a peer that took nothing of them loses nothing, and one that
//! took some gets them twice, which the sync protocol's requests allow (envelopes are
//! taken by hash, heads and pulls are questions). The new stream is not fresh: if it
//! ends too, its requests fail as before and the core's repair round takes over.
//!
//! What it holds: the frames written on a stream of ours before its first answer, at
//! most [`FRESH_BYTES`] (frames past it are not kept, and fail with the stream as
//! before); owner: the node (they are its own requests); lifetime: until the stream's
//! first answer, its end, or the requests' deadline.

use std::sync::Arc;

use crate::sync::StreamRequestId;

/// Most bytes of frames kept for one fresh stream.
pub(super) const FRESH_BYTES: usize = 1 << 20;

/// The frames written on a stream of ours that has had no answer yet.
#[derive(Default)]
pub(super) struct Fresh {
    frames: Vec<(StreamRequestId, Arc<[u8]>)>,
    bytes: usize,
}

impl Fresh {
    /// `frame`, request `rid`'s, was written: kept if it fits.
    pub(super) fn keep(&mut self, rid: StreamRequestId, frame: &Arc<[u8]>) {
        if self.bytes + frame.len() <= FRESH_BYTES {
            self.bytes += frame.len();
            self.frames.push((rid, frame.clone()));
        }
    }

    /// The frames kept, in the order written.
    pub(super) fn into_frames(self) -> Vec<(StreamRequestId, Arc<[u8]>)> {
        self.frames
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_kept_in_order_up_to_the_bound_and_none_past_it() {
        let mut f = Fresh::default();
        let small: Arc<[u8]> = vec![1u8; 100].into();
        let big: Arc<[u8]> = vec![2u8; FRESH_BYTES].into();
        f.keep(1, &small);
        f.keep(2, &big);
        f.keep(3, &small);
        let kept: Vec<StreamRequestId> = f.into_frames().iter().map(|(r, _)| *r).collect();
        assert_eq!(
            kept,
            [1, 3],
            "the frame past the bound is not kept, later small ones are"
        );
    }
}
