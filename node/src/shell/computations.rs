//! The messages of a game's computations (Secret Stallmate without a referee,
//! spec/GAMES.md §5.15; spec/PROTOCOL.md §16.7) on a stream protocol of their own,
//! `/sealed/computations/1`, over the node's libp2p connection to the other player (a
//! relayed one too): one stream per message, a header — the game id (32 bytes), the
//! message's position (8 bytes, little-endian), its length (4 bytes, little-endian) —
//! then the message, then the sender closes its side. The receiver's next signed act
//! says it took the message, and the sender sends again while it has not (`sealed_core`
//! `messages.rs`). On the stream the receiver answers only one byte, [`READ_WHOLE`],
//! once it has read the message whole: a stream it dropped unread (over a cap below, or
//! by libp2p-stream, which drops an inbound stream when the acceptor has not yet taken
//! the one before) ends without it, and the sender tells the core
//! (`Input::MessageLost`), which sends the message again at once rather than after its
//! periodic wait. One copy of a game's message is on its way to a peer at a time: a copy
//! asked for while one is still being sent is not made (on a slow link the first is
//! let finish), and a newer message stops the older one's.
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
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
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

/// The receiver's answer on a message's stream once it has read the message whole
/// (spec/PROTOCOL.md §16.7).
pub const READ_WHOLE: u8 = 0x01;

/// Reports of messages lost waiting for the shell; past this, a report is dropped (the
/// core's periodic resend still covers the message).
const LOST_WAITING: usize = 64;

/// A send in flight.
struct Sending {
    /// The message's position.
    index: u64,
    /// Set by the send as it ends, before it reports anything, so that a copy the core
    /// asks for on its report is made.
    over: Arc<AtomicBool>,
    /// To stop it when a newer message of the game goes.
    task: tokio::task::AbortHandle,
}

impl Sending {
    fn live(&self) -> bool {
        !self.over.load(Ordering::Acquire) && !self.task.is_finished()
    }
}

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
    /// Messages this node sent whose stream ended without [`READ_WHOLE`], for the
    /// shell: the peer, the game and the position.
    pub(super) lost: mpsc::Receiver<(PeerId, [u8; 32], u64)>,
    lost_tx: mpsc::Sender<(PeerId, [u8; 32], u64)>,
    /// The send in flight to each peer for each game, by the message's position (see
    /// [`Sending`]): a receiver who holds streams open unanswered makes this node hold
    /// one copy of a game's message, not one per copy asked for.
    sending: HashMap<(PeerId, [u8; 32]), Sending>,
    /// The bytes the sends in flight hold.
    sending_bytes: Arc<AtomicUsize>,
    held: Arc<AtomicUsize>,
    /// Each peer's streams being read now.
    reading: Arc<std::sync::Mutex<HashMap<PeerId, usize>>>,
}

impl Computations {
    /// The message streams on a swarm's stream behaviour.
    pub(super) fn new(mut control: Control) -> Computations {
        let incoming = control.accept(PROTOCOL).ok();
        let (arrived_tx, arrived) = mpsc::channel(WAITING);
        let (lost_tx, lost) = mpsc::channel(LOST_WAITING);
        Computations {
            control,
            incoming,
            arrived,
            arrived_tx,
            lost,
            lost_tx,
            sending: HashMap::new(),
            sending_bytes: Arc::default(),
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

    /// Sends a message to `peer` on a stream of its own, in a task; when the stream ends
    /// without the receiver's [`READ_WHOLE`], says so on [`Computations::lost`]. Not
    /// while the same message is still on its way to that peer; a send of an older
    /// message of the game is stopped.
    pub(super) fn send(&mut self, peer: PeerId, game: [u8; 32], index: u64, bytes: Vec<u8>) {
        if crate::faults::withholds(index) {
            tracing::warn!(index, "withholding a computation's message (fault point)");
            return;
        }
        self.sending.retain(|_, s| s.live());
        if let Some(before) = self.sending.get(&(peer, game)) {
            if before.index == index {
                tracing::debug!(%peer, index, "a message still on its way: no second copy");
                return;
            }
            before.task.abort();
        }
        let over = Arc::new(AtomicBool::new(false));
        let control = self.control.clone();
        let lost = self.lost_tx.clone();
        self.sending_bytes.fetch_add(bytes.len(), Ordering::AcqRel);
        let held = Held {
            bytes: bytes.len(),
            of: self.sending_bytes.clone(),
        };
        let ended = over.clone();
        let task = tokio::spawn(async move {
            // Given back when the send ends or is stopped.
            let _held = held;
            let delivered = deliver(control, peer, game, index, &bytes).await;
            ended.store(true, Ordering::Release);
            if let Err(why) = delivered {
                tracing::debug!(%peer, index, "a message not delivered: {why}");
                // A report that finds the queue full is dropped: the periodic resend stays.
                let _ = lost.try_send((peer, game, index));
            }
        });
        self.sending.insert(
            (peer, game),
            Sending {
                index,
                over,
                task: task.abort_handle(),
            },
        );
    }

    /// The bytes the sends not yet over hold.
    #[cfg(test)]
    fn sending_bytes(&self) -> usize {
        self.sending_bytes.load(Ordering::Acquire)
    }
}

/// Sends one message on a stream of its own and waits for the receiver's
/// [`READ_WHOLE`]: `Ok` once it came, else why not (the stream failed or ended without
/// it, or [`SEND_TIMEOUT`] passed).
async fn deliver(
    mut control: Control,
    peer: PeerId,
    game: [u8; 32],
    index: u64,
    bytes: &[u8],
) -> Result<(), String> {
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
        s.write_all(bytes).await?;
        s.close().await?;
        // Our side closed; the receiver answers once it has read it all.
        let mut answer = [0u8; 1];
        s.read_exact(&mut answer).await?;
        if answer[0] != READ_WHOLE {
            return Err(std::io::Error::other("an answer that is not READ_WHOLE"));
        }
        Ok(())
    })
    .await;
    match sent {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("not answered in time".to_owned()),
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
    // Read whole: said to the sender, whatever the core makes of it. A sender gone by
    // now changes nothing (the message is taken all the same).
    let _ = stream.write_all(&[READ_WHOLE]).await;
    let _ = stream.close().await;
    Some(Arrived {
        peer,
        game,
        index,
        bytes,
        held,
    })
}

#[cfg(test)]
mod tests {
    //! The message stream between two real libp2p swarms on loopback: the receiver's
    //! answer byte, and the sender's report when it does not come.
    use super::*;
    use libp2p::swarm::SwarmEvent;
    use libp2p::{Multiaddr, Swarm};

    fn swarm(seed: u8) -> Swarm<libp2p_stream::Behaviour> {
        use libp2p::{noise, tcp, yamux};
        libp2p::SwarmBuilder::with_existing_identity(crate::net::keypair(&[seed; 32]))
            .with_tokio()
            .with_tcp(
                tcp::Config::default().nodelay(true),
                noise::Config::new,
                yamux::Config::default,
            )
            .expect("tcp")
            .with_behaviour(|_| libp2p_stream::Behaviour::new())
            .expect("behaviour")
            .with_swarm_config(|c| c.with_idle_connection_timeout(Duration::from_secs(600)))
            .build()
    }

    /// Two swarms, the second connected to the first, both driven in tasks: their
    /// controls and peer ids.
    async fn pair() -> ((Control, PeerId), (Control, PeerId)) {
        let mut a = swarm(1);
        a.listen_on("/ip4/127.0.0.1/tcp/0".parse().expect("addr"))
            .expect("listen");
        let at: Multiaddr = loop {
            if let SwarmEvent::NewListenAddr { address, .. } = a.select_next_some().await {
                break address;
            }
        };
        let mut b = swarm(2);
        b.dial(at).expect("dial");
        let (ca, ia) = (a.behaviour().new_control(), *a.local_peer_id());
        let (cb, ib) = (b.behaviour().new_control(), *b.local_peer_id());
        // Each side connected in its own view before either opens a stream (a stream
        // to a peer not yet connected would be a dial, with no address to dial).
        let (up, a_up) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            let mut up = Some(up);
            loop {
                if let SwarmEvent::ConnectionEstablished { .. } = a.select_next_some().await
                    && let Some(up) = up.take()
                {
                    let _ = up.send(());
                }
            }
        });
        loop {
            if let SwarmEvent::ConnectionEstablished { .. } = b.select_next_some().await {
                break;
            }
        }
        tokio::spawn(async move {
            loop {
                b.select_next_some().await;
            }
        });
        a_up.await.expect("A connected");
        ((ca, ia), (cb, ib))
    }

    /// The next message the sender reports lost. The wait is bounded so that a sender
    /// that never reports fails the test instead of hanging it; it is no measure of speed.
    async fn reported(c: &mut Computations) -> (PeerId, [u8; 32], u64) {
        tokio::time::timeout(Duration::from_secs(60), c.lost.recv())
            .await
            .expect("a report within a minute")
            .expect("the channel open")
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_message_read_whole_is_answered_and_one_dropped_is_reported_lost() {
        let ((ca, ia), (mut cb, ib)) = pair().await;
        // A receives with the node's reader.
        let mut a = Computations::new(ca);
        a.start();
        // Read whole: answered, and handed on.
        deliver(cb.clone(), ia, [5; 32], 3, b"hello")
            .await
            .expect("answered");
        let got = a.arrived.recv().await.expect("arrived").take();
        assert_eq!(got, (ib, [5; 32], 3, b"hello".to_vec()));
        // Past the cap: closed before its bytes are read, and not answered.
        let why = deliver(cb.clone(), ia, [5; 32], 4, &vec![0; MAX_MESSAGE + 1])
            .await
            .expect_err("a message past the cap is not answered");
        assert!(!why.is_empty());
        // The next one is still taken, and nothing of the one refused came through.
        deliver(cb.clone(), ia, [5; 32], 6, b"again")
            .await
            .expect("answered");
        let got = a.arrived.recv().await.expect("arrived").take();
        assert_eq!((got.2, got.3), (6, b"again".to_vec()));

        // B reads A's message whole and answers nothing (as a node of document 2.8
        // does): A's sender reports it lost, its side having closed without error.
        let mut incoming = cb.accept(PROTOCOL).expect("accept");
        let mut sender = Computations::new(a.control.clone());
        sender.send(ib, [7; 32], 9, b"unanswered".to_vec());
        let (_, mut stream) = incoming.next().await.expect("a stream");
        let mut all = Vec::new();
        stream.read_to_end(&mut all).await.expect("read whole");
        assert_eq!(&all[44..], b"unanswered");
        stream.close().await.expect("closed");
        assert_eq!(reported(&mut sender).await, (ib, [7; 32], 9));
        // Answered by hand: no report.
        sender.send(ib, [7; 32], 10, b"kept".to_vec());
        let (_, mut stream) = incoming.next().await.expect("a stream");
        let mut header = [0u8; 44];
        stream.read_exact(&mut header).await.expect("header");
        let mut body = Vec::new();
        stream.read_to_end(&mut body).await.expect("body");
        assert_eq!(body, b"kept");
        stream.write_all(&[READ_WHOLE]).await.expect("answer");
        stream.close().await.expect("closed");
        // A third, dropped unread (as libp2p-stream does when its acceptor is busy):
        // the next report names it, not the one answered.
        sender.send(ib, [7; 32], 11, b"dropped".to_vec());
        let (_, stream) = incoming.next().await.expect("a stream");
        drop(stream);
        assert_eq!(reported(&mut sender).await, (ib, [7; 32], 11));
        // The copy the core asks for on that report goes (the lost send is over).
        sender.send(ib, [7; 32], 11, b"again".to_vec());
        let (_, mut stream) = incoming.next().await.expect("a stream");
        let mut all = Vec::new();
        stream.read_to_end(&mut all).await.expect("read whole");
        assert_eq!(&all[44..], b"again");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn one_copy_of_a_games_message_is_on_its_way_at_a_time() {
        let ((ca, _), (mut cb, ib)) = pair().await;
        let mut incoming = cb.accept(PROTOCOL).expect("accept");
        let mut sender = Computations::new(ca);
        // B reads each stream whole and holds it open, answering nothing; the
        // position in its header says which send opened it.
        let mut held = vec![];
        let mut next = async || {
            let (_, mut stream) = incoming.next().await.expect("a stream");
            let mut all = Vec::new();
            stream.read_to_end(&mut all).await.expect("read whole");
            let index = u64::from_le_bytes(all[32..40].try_into().expect("8 bytes"));
            held.push(stream);
            index
        };
        sender.send(ib, [8; 32], 5, vec![1; 1000]);
        assert_eq!(next().await, 5);
        // The same message again while the first copy waits: no second stream (the
        // next one B sees is message 6's), and the first copy is left to finish.
        sender.send(ib, [8; 32], 5, vec![1; 1000]);
        assert_eq!(sender.sending_bytes(), 1000);
        // A newer message of the game stops the older one's send.
        sender.send(ib, [8; 32], 6, vec![2; 700]);
        assert_eq!(next().await, 6);
        // Another game's send is its own.
        sender.send(ib, [9; 32], 0, vec![3; 10]);
        assert_eq!(next().await, 0);
        // What the sends hold: message 6 and game 9's. The bound only keeps a broken
        // build from hanging the test; it measures nothing.
        tokio::time::timeout(Duration::from_secs(30), async {
            while sender.sending_bytes() != 700 + 10 {
                tokio::task::yield_now().await;
            }
        })
        .await
        .expect("the older message's send is stopped");
        // A stopped send reports nothing.
        assert!(sender.lost.try_recv().is_err());
    }
}
