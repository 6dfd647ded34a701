//! The messages of a game's computations (Secret Stallmate without a referee,
//! spec/GAMES.md §5.15; spec/PROTOCOL.md §16.7) on a stream protocol of their own,
//! `/sealed/computations/1`, over the node's libp2p connection to the other player (a
//! relayed one too): one stream per message, a header — the game id (32 bytes), the
//! message's position (8 bytes, little-endian), its length (4 bytes, little-endian) —
//! then the message, then the sender closes its side. The receiver's next signed act
//! says it took the message, and the sender sends again while it has not (`sealed_core`
//! `computations.rs`). On the stream the receiver answers only one byte, [`READ_WHOLE`],
//! once it has read the message whole: a stream it dropped unread (from a peer it does
//! not read, over a cap below, or by libp2p-stream, which drops an inbound stream when
//! the acceptor has not yet taken the one before) ends without it, and the sender tells
//! the core (`Input::MessageLost`), which sends the message again at once rather than
//! after its periodic wait. One copy of a game's message is on its way to a peer at a
//! time: a copy asked for while one is still being sent is not made (on a slow link the
//! first is let finish), and a newer message stops the older one's.
//!
//! # What a peer can make the node hold
//!
//! A message takes up to its game's largest (7 MiB in Secret Stallmate without a
//! referee: the variant says, through the games' registry), and its header claims its
//! length before any of it comes. A budget taken on that claim would let anyone hold
//! it: four streams from two fresh peer ids, each a 44-byte header claiming 7 MiB, once
//! took all of a shared 28 MiB, and a real opponent's message was then dropped unread
//! for two minutes. So the budget is taken as bytes arrive, and only a game's other
//! player holds any of it. Each byte the reader holds, with its owner, size and
//! lifetime:
//!
//! - **A header**: 44 bytes a stream, from anyone, at most [`PER_PEER`] of a peer's
//!   streams at once (the rest dropped unread), for at most [`READ_TIMEOUT`].
//! - **A message's body**: only for a pair the core allows — the other player of a game
//!   played here whose computations are under way (`Core::computing`, which the shell
//!   hands over after every input, [`Computations::allow`]). A stream from anyone else,
//!   or for any other game, is closed right after its header, holding nothing. The
//!   pair's bytes are charged to its own account ([`Account`]): at most one of its
//!   game's largest messages across all its streams, set aside [`CHUNK`] at a time just
//!   before that chunk is read (a stream that stalls holds what it sent and one chunk,
//!   for at most [`READ_TIMEOUT`]), and given back when the core has taken the message
//!   ([`Arrived::take`]), or when the stream ends short, breaks a cap or times out. A
//!   chunk past the account is refused and the stream dropped unread: an honest sender
//!   has one copy of a game's message on its way at a time, so only a copy sent again
//!   while the first is still held meets it, and it goes again after its wait.
//! - **A message read whole, waiting for the core** (at most [`WAITING`] of them): still
//!   on its pair's account until the core takes it.
//!
//! So no account is shared: nobody but a game's other player can take any of his, a
//! real opponent's message always has its full message's worth, and the most the reader
//! holds is 7 MiB for each game computing here, games this node's person or bots
//! accepted, plus 88 bytes for each connected peer. The core charges each message to
//! the peer's budgets and takes it only if it is the next one signed.
//!
//! A pair the core stops allowing (the game over, set aside or unloaded) gets no further
//! chunk; its account stays until what it holds is given back, so that the same pair
//! allowed again never holds two messages' worth.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures::{AsyncReadExt as _, AsyncWriteExt as _, StreamExt as _};
use libp2p::{PeerId, Stream, StreamProtocol};
use libp2p_stream::Control;
use tokio::sync::mpsc;

/// The protocol's name.
pub const PROTOCOL: StreamProtocol = StreamProtocol::new("/sealed/computations/1");

/// A peer's message streams read at once: one is all an honest peer sends at a time
/// (it makes the next message only after the answer to this one); two allow for one
/// sent again while the first is still read.
pub const PER_PEER: usize = 2;

/// The bytes set aside at a time as a message's body is read: a stream that stalls
/// holds what it sent and at most this beyond, and a message of 7 MiB (Secret
/// Stallmate's largest) takes 112 reservations at most.
pub const CHUNK: usize = 64 << 10;

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

/// A game's other player's key and the game: who owns an account ([`Account`]).
type Pair = (crate::core::PeerKey, [u8; 32]);

/// The bytes one pair holds, and whether its messages are read at all.
#[derive(Debug, Default)]
struct Account {
    /// The core allows the pair now: its game computes here, and he is its other player.
    allowed: bool,
    /// The most bytes the pair may hold at once, in all his streams for the game and his
    /// messages waiting for the core: one message of the game, the largest its variant
    /// sends (`Core::computing`, from the game's registry entry). Only a copy sent again
    /// while the first is still held needs more, and waits for its resend.
    cap: usize,
    /// The bytes its streams and waiting messages hold.
    held: usize,
}

/// The accounts of the pairs allowed, and of those no longer allowed that still hold
/// bytes; shared by the shell, which sets them ([`Computations::allow`]), and the
/// readers.
type Accounts = Arc<Mutex<HashMap<Pair, Account>>>;

fn lock(accounts: &Accounts) -> MutexGuard<'_, HashMap<Pair, Account>> {
    // A reader that panicked holding the lock left the counts whole (each change is one
    // statement), so they are used as they are.
    accounts.lock().unwrap_or_else(|e| e.into_inner())
}

/// A message read: from whom, for which game, at what position.
pub(super) struct Arrived {
    pub(super) peer: PeerId,
    pub(super) game: [u8; 32],
    pub(super) index: u64,
    pub(super) bytes: Vec<u8>,
    /// Its charge to its pair's account, given back when the core has it.
    held: Charge,
}

/// A stream's charge to its pair's account, given back when dropped.
struct Charge {
    pair: Pair,
    bytes: usize,
    of: Accounts,
}

impl Charge {
    /// An empty charge to `pair`'s account, if the core allows the pair, with the
    /// largest message its game sends.
    fn open(pair: Pair, of: &Accounts) -> Option<(Charge, usize)> {
        let cap = lock(of).get(&pair).filter(|a| a.allowed)?.cap;
        let held = Charge {
            pair,
            bytes: 0,
            of: of.clone(),
        };
        Some((held, cap))
    }

    /// Charges `n` more bytes, if the pair is still allowed and its account has room.
    fn grow(&mut self, n: usize) -> bool {
        let mut accounts = lock(&self.of);
        let Some(a) = accounts.get_mut(&self.pair) else {
            return false;
        };
        if !a.allowed || a.held.saturating_add(n) > a.cap {
            return false;
        }
        a.held += n;
        self.bytes += n;
        true
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        let mut accounts = lock(&self.of);
        if let Some(a) = accounts.get_mut(&self.pair) {
            a.held = a.held.saturating_sub(self.bytes);
            if !a.allowed && a.held == 0 {
                accounts.remove(&self.pair);
            }
        }
    }
}

/// A share of the bytes the sends hold, given back when dropped.
struct Sent {
    bytes: usize,
    of: Arc<AtomicUsize>,
}

impl Drop for Sent {
    fn drop(&mut self) {
        self.of.fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

impl Arrived {
    /// The message, its charge given back.
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
    /// The pairs whose messages are read, and what each holds.
    accounts: Accounts,
    /// The pairs allowed with their caps, as last handed over, sorted: the accounts
    /// change only when these do.
    allowed: Vec<(Pair, usize)>,
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
            accounts: Arc::default(),
            allowed: vec![],
            reading: Arc::default(),
        }
    }

    /// Starts taking inbound streams (on the runtime).
    pub(super) fn start(&mut self) {
        let Some(mut incoming) = self.incoming.take() else {
            return;
        };
        let (tx, accounts, reading) = (
            self.arrived_tx.clone(),
            self.accounts.clone(),
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
                let (tx, accounts, reading) = (tx.clone(), accounts.clone(), reading.clone());
                tokio::spawn(async move {
                    let read =
                        tokio::time::timeout(READ_TIMEOUT, read(peer, stream, &accounts)).await;
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

    /// The pairs whose messages are read from now on: the other player of each game
    /// whose computations are under way here, by key, with the game and the largest
    /// message its variant sends (`Core::computing`). Cheap when they did not change,
    /// as after most inputs.
    pub(super) fn allow(&mut self, pairs: impl Iterator<Item = (Pair, usize)>) {
        let mut now: Vec<(Pair, usize)> = pairs.collect();
        now.sort_unstable();
        now.dedup();
        if now == self.allowed {
            return;
        }
        let mut accounts = lock(&self.accounts);
        for a in accounts.values_mut() {
            a.allowed = false;
        }
        for (p, cap) in &now {
            let a = accounts.entry(*p).or_default();
            a.allowed = true;
            a.cap = *cap;
        }
        accounts.retain(|_, a| a.allowed || a.held > 0);
        drop(accounts);
        self.allowed = now;
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
        let held = Sent {
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

/// Why a message was not delivered (logged; the periodic resend stays).
#[derive(Debug, thiserror::Error)]
enum Undelivered {
    /// The stream failed, or ended without the receiver's answer.
    #[error(transparent)]
    Stream(#[from] std::io::Error),
    /// No answer within [`SEND_TIMEOUT`].
    #[error("not answered in time")]
    Late,
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
) -> Result<(), Undelivered> {
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
        Ok(Err(e)) => Err(Undelivered::Stream(e)),
        Err(_) => Err(Undelivered::Late),
    }
}

/// Reads one message from `stream`, within the caps; `None` if it breaks one. Its body
/// only if the core allows the pair (the sender's key, the game named), charged to the
/// pair's account a chunk at a time as it comes.
async fn read(peer: PeerId, mut stream: Stream, accounts: &Accounts) -> Option<Arrived> {
    let mut header = [0u8; 44];
    stream.read_exact(&mut header).await.ok()?;
    let mut game = [0u8; 32];
    game.copy_from_slice(&header[..32]);
    let index = u64::from_le_bytes(header[32..40].try_into().ok()?);
    let len = u32::from_le_bytes(header[40..44].try_into().ok()?) as usize;
    let Some((mut held, cap)) =
        super::key_of(&peer).and_then(|k| Charge::open((k, game), accounts))
    else {
        tracing::debug!(%peer, "a message from a peer who is not the other player of a game computing here: dropped unread");
        return None;
    };
    if len > cap {
        tracing::debug!(%peer, len, "a message over its game's cap: dropped unread");
        return None;
    }
    // Grown as the bytes come, a chunk charged before it is read, never set aside on
    // the length's word alone.
    let mut bytes = Vec::new();
    while bytes.len() < len {
        let chunk = CHUNK.min(len - bytes.len());
        if !held.grow(chunk) {
            tracing::debug!(%peer, index, "the game's other player holds a message's worth already: dropped");
            return None;
        }
        bytes.reserve_exact(chunk);
        let got = (&mut stream)
            .take(chunk as u64)
            .read_to_end(&mut bytes)
            .await
            .ok()?;
        if got < chunk {
            return None;
        }
    }
    // Then the sender's side must have closed.
    let mut more = [0u8; 1];
    if stream.read(&mut more).await.ok()? != 0 {
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
mod tests;
