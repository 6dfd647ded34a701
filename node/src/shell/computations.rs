//! The messages of a game's computations (Secret Stallmate without a referee,
//! spec/GAMES.md §5.15; spec/PROTOCOL.md §16.7) on a stream protocol of their own,
//! `/sealed/computations/1`, over the node's libp2p connection to the other player (a
//! relayed one too): one stream per message, a header — the game id (32 bytes), the
//! message's position (8 bytes, little-endian), its length (4 bytes, little-endian) —
//! then the message, then the stream is closed. Nothing is answered on it: the
//! receiver's next signed act says it had the message, and the sender sends again
//! while it has not (`sealed_core` `messages.rs`).
//!
//! A message takes up to [`MAX_MESSAGE`] bytes, so what a stranger can make the node
//! hold is bounded apart from the sync protocol's budget: a length over the cap closes
//! the stream before anything is read; at most [`PER_PEER`] of a peer's streams are read
//! at once, the rest dropped unread; all the bytes being read or waiting for the core,
//! from every peer, stay under [`HELD`] (a stream that would pass it is dropped unread);
//! and a stream must deliver its message within [`READ_TIMEOUT`]. The core charges each
//! message to the peer's budgets and takes it only from the game's other player.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::{AsyncReadExt as _, AsyncWriteExt as _, StreamExt as _};
use libp2p::{PeerId, Stream, StreamProtocol};
use libp2p_stream::Control;
use sealed_games::stallmate::duo::player::MAX_MESSAGE;
use tokio::sync::mpsc;

/// The protocol's name.
pub const PROTOCOL: StreamProtocol = StreamProtocol::new("/sealed/computations/1");

/// A peer's message streams read at once: one is all an honest peer sends at a time
/// (it makes the next message only after the answer to this one); two allow for one
/// sent again while the first is still read.
pub const PER_PEER: usize = 2;

/// Bytes held by every message being read or waiting for the core, from all peers.
pub const HELD: usize = 4 * MAX_MESSAGE;

/// How long a stream may take to deliver its message (a 7 MiB message on a slow link
/// takes a while; a stream that trickles is dropped).
pub const READ_TIMEOUT: Duration = Duration::from_secs(120);

/// How long sending one message may take.
const SEND_TIMEOUT: Duration = Duration::from_secs(120);

/// Messages read and waiting for the shell; past this, readers wait.
const WAITING: usize = 8;

/// A message read: from whom, for which game, at what position.
pub(super) struct Arrived {
    pub(super) peer: PeerId,
    pub(super) game: [u8; 32],
    pub(super) index: u64,
    pub(super) bytes: Vec<u8>,
    /// Its share of [`HELD`], given back when the core has it.
    held: Held,
}

/// A share of [`HELD`], given back when dropped.
struct Held {
    bytes: usize,
    of: Arc<AtomicUsize>,
}

impl Drop for Held {
    fn drop(&mut self) {
        self.of.fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

impl Arrived {
    /// The message, its share of the budget given back.
    pub(super) fn take(self) -> (PeerId, [u8; 32], u64, Vec<u8>) {
        let Arrived {
            peer,
            game,
            index,
            bytes,
            held,
        } = self;
        drop(held);
        (peer, game, index, bytes)
    }
}

/// The message streams of the node.
pub(super) struct Computations {
    control: Control,
    incoming: Option<libp2p_stream::IncomingStreams>,
    /// Messages read, for the shell.
    pub(super) arrived: mpsc::Receiver<Arrived>,
    arrived_tx: mpsc::Sender<Arrived>,
    held: Arc<AtomicUsize>,
    /// Each peer's streams being read now.
    reading: Arc<std::sync::Mutex<HashMap<PeerId, usize>>>,
}

impl Computations {
    /// The message streams on a swarm's stream behaviour.
    pub(super) fn new(mut control: Control) -> Computations {
        let incoming = control.accept(PROTOCOL).ok();
        let (arrived_tx, arrived) = mpsc::channel(WAITING);
        Computations {
            control,
            incoming,
            arrived,
            arrived_tx,
            held: Arc::new(AtomicUsize::new(0)),
            reading: Arc::default(),
        }
    }

    /// Starts taking inbound streams (on the runtime).
    pub(super) fn start(&mut self) {
        let Some(mut incoming) = self.incoming.take() else {
            return;
        };
        let (tx, held, reading) = (
            self.arrived_tx.clone(),
            self.held.clone(),
            self.reading.clone(),
        );
        tokio::spawn(async move {
            while let Some((peer, stream)) = incoming.next().await {
                if tx.is_closed() {
                    return;
                }
                {
                    let mut r = reading.lock().unwrap_or_else(|e| e.into_inner());
                    let n = r.entry(peer).or_default();
                    if *n >= PER_PEER {
                        continue; // dropped unread
                    }
                    *n += 1;
                }
                let (tx, held, reading) = (tx.clone(), held.clone(), reading.clone());
                tokio::spawn(async move {
                    let read = tokio::time::timeout(READ_TIMEOUT, read(peer, stream, held)).await;
                    if let Ok(Some(arrived)) = read {
                        let _ = tx.send(arrived).await;
                    }
                    let mut r = reading.lock().unwrap_or_else(|e| e.into_inner());
                    if let Some(n) = r.get_mut(&peer) {
                        *n -= 1;
                        if *n == 0 {
                            r.remove(&peer);
                        }
                    }
                });
            }
        });
    }

    /// Sends a message to `peer` on a stream of its own, in a task; a failure is only
    /// logged (the core sends it again).
    pub(super) fn send(&self, peer: PeerId, game: [u8; 32], index: u64, bytes: Vec<u8>) {
        if crate::faults::withholds(index) {
            tracing::warn!(index, "withholding a computation's message (fault point)");
            return;
        }
        let mut control = self.control.clone();
        tokio::spawn(async move {
            let sent = tokio::time::timeout(SEND_TIMEOUT, async {
                let mut s = control
                    .open_stream(peer, PROTOCOL)
                    .await
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                let len = u32::try_from(bytes.len()).map_err(std::io::Error::other)?;
                let mut header = Vec::with_capacity(44);
                header.extend_from_slice(&game);
                header.extend_from_slice(&index.to_le_bytes());
                header.extend_from_slice(&len.to_le_bytes());
                s.write_all(&header).await?;
                s.write_all(&bytes).await?;
                s.close().await
            })
            .await;
            match sent {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::debug!(%peer, index, "a message not sent: {e}"),
                Err(_) => tracing::debug!(%peer, index, "a message not sent in time"),
            }
        });
    }
}

/// Reads one message from `stream`, within the caps; `None` if it breaks one.
async fn read(peer: PeerId, mut stream: Stream, held: Arc<AtomicUsize>) -> Option<Arrived> {
    let mut header = [0u8; 44];
    stream.read_exact(&mut header).await.ok()?;
    let mut game = [0u8; 32];
    game.copy_from_slice(&header[..32]);
    let index = u64::from_le_bytes(header[32..40].try_into().ok()?);
    let len = u32::from_le_bytes(header[40..44].try_into().ok()?) as usize;
    if len > MAX_MESSAGE {
        tracing::debug!(%peer, len, "a message over the cap: dropped unread");
        return None;
    }
    // The bytes are counted before they are set aside, so a flood of headers claiming
    // large messages holds nothing beyond the cap.
    if held.fetch_add(len, Ordering::AcqRel) + len > HELD {
        held.fetch_sub(len, Ordering::AcqRel);
        tracing::debug!(%peer, "messages held at the cap: one dropped unread");
        return None;
    }
    let held = Held {
        bytes: len,
        of: held,
    };
    // Grown as the bytes come, never set aside on the length's word alone; one byte
    // more than the length is read to see that the sender closed after it.
    let mut bytes = Vec::new();
    (&mut stream)
        .take(len as u64 + 1)
        .read_to_end(&mut bytes)
        .await
        .ok()?;
    if bytes.len() != len {
        return None;
    }
    Some(Arrived {
        peer,
        game,
        index,
        bytes,
        held,
    })
}
