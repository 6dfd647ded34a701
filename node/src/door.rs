//! The door: inbound connections still being set up (TCP accepted, the Noise and yamux
//! handshakes not yet done). Each costs a socket and a task, and the node takes only
//! [`MAX_PENDING`] at once, so a stranger who opens connections and never speaks would,
//! with a fixed cap, shut the door for everyone (issue 52: 16 silent connections from
//! each of 8 addresses, reopened as each timed out, let no honest handshake through).
//!
//! Keys are free and addresses are not, so the door counts by origin: each waiting
//! connection belongs to its address (an IPv4 address, an IPv6 /64) and to the address's
//! group (an IPv4 /24, an IPv6 /48: what one network, one carrier-grade NAT, one
//! hosting customer usually holds), as Bitcoin Core's eviction counts by netgroup. When
//! every place is taken, a newcomer from a group that holds fewer than the group
//! holding most takes the place of that group's oldest waiting connection (of its
//! address holding most): whoever fills the door from a few networks only ever fights
//! himself, and a player from any other network walks in. A newcomer from the group
//! that holds most is refused, as with a fixed cap.
//!
//! What a place costs, and for how long: one socket and one handshake task, from the
//! TCP accept until the handshake ends, fails, is evicted, or times out (10 s,
//! [`HANDSHAKE_TIMEOUT`]). Owner: the connection's address and group.
//!
//! The swarm cannot abort a connection that is still being set up (libp2p's
//! `close_connection` knows only established ones), so the door has two halves: the
//! transport ([`Evictable`]) hands every inbound handshake a cancel handle, filed under
//! the connection's remote address, and the behaviour (`origin.rs` `Gate`) decides,
//! from the same address, which one to cancel. A cancelled handshake ends with
//! [`DoorError::Evicted`], which the swarm reports as a failed incoming connection.
//! Relayed connections do not pass through here: they arrive over a connection to the
//! relay that is already established, and the relay's own budgets count their sources.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use futures::channel::oneshot;
use libp2p::Multiaddr;
use libp2p::core::Transport;
use libp2p::core::transport::{DialOpts, ListenerId, TransportError, TransportEvent};

/// Connections being set up from outside at once.
pub const MAX_PENDING: usize = 128;

/// How long an inbound connection may take to finish its handshakes.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The cancel handles of the handshakes under way, by remote address (address and port:
/// one live socket each), shared by the transport and the gate.
#[derive(Clone, Debug, Default)]
pub struct Handles(Arc<Mutex<HashMap<Multiaddr, oneshot::Sender<()>>>>);

impl Handles {
    /// Ends the handshake of the connection from `remote`, if it is still under way;
    /// whether there was one.
    pub fn evict(&self, remote: &Multiaddr) -> bool {
        let sender = self.lock().remove(remote);
        sender.is_some_and(|s| s.send(()).is_ok())
    }

    /// Handshakes under way with a handle (for tests and status).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether none is under way.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Multiaddr, oneshot::Sender<()>>> {
        // A poisoned map is still a map of senders: nothing in it is half-written.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Why an inbound handshake ended without a connection.
#[derive(Debug, thiserror::Error)]
pub enum DoorError<E> {
    /// The transport's own error.
    #[error(transparent)]
    Inner(E),
    /// Its place was given to a newcomer from a network that held fewer places.
    #[error("the handshake took too long while the node was full, and gave its place up")]
    Evicted,
}

/// A transport whose inbound handshakes can be cancelled by their remote address.
pub struct Evictable<T> {
    inner: T,
    handles: Handles,
}

impl<T> Evictable<T> {
    /// Wraps `inner`, filing each inbound handshake's handle in `handles`.
    pub fn new(inner: T, handles: Handles) -> Self {
        Evictable { inner, handles }
    }
}

/// An inbound handshake that ends early when its handle fires.
pub struct Cancellable<F> {
    inner: Pin<Box<F>>,
    cancel: oneshot::Receiver<()>,
    remote: Multiaddr,
    handles: Handles,
}

impl<F> Drop for Cancellable<F> {
    fn drop(&mut self) {
        // Done, failed or dropped: its handle goes, unless a later socket from the same
        // port filed its own meanwhile (that one's receiver is still open).
        self.cancel.close();
        let mut map = self.handles.lock();
        if map
            .get(&self.remote)
            .is_some_and(oneshot::Sender::is_canceled)
        {
            map.remove(&self.remote);
        }
    }
}

impl<F, O, E> Future for Cancellable<F>
where
    F: Future<Output = Result<O, E>>,
{
    type Output = Result<O, DoorError<E>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // A handle dropped unfired (the map cleared) is no eviction.
        if let Poll::Ready(Ok(())) = Pin::new(&mut self.cancel).poll(cx) {
            return Poll::Ready(Err(DoorError::Evicted));
        }
        self.inner.as_mut().poll(cx).map_err(DoorError::Inner)
    }
}

impl<T> Transport for Evictable<T>
where
    T: Transport + Unpin,
    T::Error: 'static,
{
    type Output = T::Output;
    type Error = DoorError<T::Error>;
    type ListenerUpgrade = Cancellable<T::ListenerUpgrade>;
    type Dial = futures::future::MapErr<T::Dial, fn(T::Error) -> DoorError<T::Error>>;

    fn listen_on(
        &mut self,
        id: ListenerId,
        addr: Multiaddr,
    ) -> Result<(), TransportError<Self::Error>> {
        self.inner
            .listen_on(id, addr)
            .map_err(|e| e.map(DoorError::Inner))
    }

    fn remove_listener(&mut self, id: ListenerId) -> bool {
        self.inner.remove_listener(id)
    }

    fn dial(
        &mut self,
        addr: Multiaddr,
        opts: DialOpts,
    ) -> Result<Self::Dial, TransportError<Self::Error>> {
        use futures::TryFutureExt as _;
        let dial = self
            .inner
            .dial(addr, opts)
            .map_err(|e| e.map(DoorError::Inner))?;
        Ok(dial.map_err(DoorError::Inner as fn(T::Error) -> DoorError<T::Error>))
    }

    fn poll(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<TransportEvent<Self::ListenerUpgrade, Self::Error>> {
        let handles = self.handles.clone();
        Pin::new(&mut self.inner).poll(cx).map(|event| {
            // Only an `Incoming` event has a handshake, and a remote address.
            let remote = match &event {
                TransportEvent::Incoming { send_back_addr, .. } => send_back_addr.clone(),
                _ => Multiaddr::empty(),
            };
            event.map_err(DoorError::Inner).map_upgrade(|inner| {
                let (tx, cancel) = oneshot::channel();
                handles.lock().insert(remote.clone(), tx);
                Cancellable {
                    inner: Box::pin(inner),
                    cancel,
                    remote,
                    handles,
                }
            })
        })
    }
}

/// Where a waiting connection comes from, as the door counts it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Waiting {
    /// Its remote address and port: the handle's name.
    remote: Multiaddr,
    /// Its address (`Origin::key`) and group (`Origin::group`).
    address: String,
    group: String,
    /// When it came, in arrival order.
    order: u64,
}

/// The waiting connections, by connection, and the choice of whom to evict.
#[derive(Debug)]
pub struct Waitlist<Id> {
    waiting: HashMap<Id, Waiting>,
    next: u64,
    /// Evicted so far (for status and the swarm's table).
    pub evicted: u64,
    /// Refused because the newcomer's group held most already.
    pub refused: u64,
}

impl<Id> Default for Waitlist<Id> {
    fn default() -> Self {
        Waitlist {
            waiting: HashMap::new(),
            next: 0,
            evicted: 0,
            refused: 0,
        }
    }
}

/// What the door does with a newcomer.
#[derive(Debug, PartialEq, Eq)]
pub enum Admit<Id> {
    /// It waits with the others; a place was free.
    Free,
    /// It takes the place of this connection (at this remote address), whose
    /// handshake is to be cancelled.
    Evict(Id, Multiaddr),
    /// Every place is taken and its group holds most: refused.
    Full,
}

impl<Id: Copy + Eq + std::hash::Hash + Ord> Waitlist<Id> {
    /// How many wait now.
    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    /// Whether none waits.
    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// A newcomer `id` from `remote` (address `address`, group `group`), with `max`
    /// places in all: let in, in place of whom, or refused.
    pub fn admit(
        &mut self,
        id: Id,
        remote: &Multiaddr,
        address: &str,
        group: &str,
        max: usize,
    ) -> Admit<Id> {
        let mut outcome = Admit::Free;
        if self.waiting.len() >= max {
            match self.victim(group) {
                Some((victim, at)) => {
                    self.waiting.remove(&victim);
                    self.evicted += 1;
                    outcome = Admit::Evict(victim, at);
                }
                None => {
                    self.refused += 1;
                    return Admit::Full;
                }
            }
        }
        self.next += 1;
        self.waiting.insert(
            id,
            Waiting {
                remote: remote.clone(),
                address: address.to_owned(),
                group: group.to_owned(),
                order: self.next,
            },
        );
        outcome
    }

    /// `id` no longer waits (its handshake ended, one way or another).
    pub fn done(&mut self, id: Id) {
        self.waiting.remove(&id);
    }

    /// Whom a newcomer from `group` would evict: the oldest of the address holding most
    /// within the group holding most, if the newcomer's group holds fewer (ties between
    /// groups go to the one whose oldest connection is oldest).
    fn victim(&self, group: &str) -> Option<(Id, Multiaddr)> {
        let mut groups: HashMap<&str, (usize, u64)> = HashMap::new();
        for w in self.waiting.values() {
            let g = groups.entry(&w.group).or_insert((0, u64::MAX));
            g.0 += 1;
            g.1 = g.1.min(w.order);
        }
        let mine = groups.get(group).map_or(0, |g| g.0);
        let (&most, &(held, _)) = groups
            .iter()
            .max_by(|a, b| a.1.0.cmp(&b.1.0).then(b.1.1.cmp(&a.1.1)))?;
        if mine >= held {
            return None;
        }
        let mut addresses: HashMap<&str, (usize, u64)> = HashMap::new();
        for w in self.waiting.values().filter(|w| w.group == most) {
            let a = addresses.entry(&w.address).or_insert((0, u64::MAX));
            a.0 += 1;
            a.1 = a.1.min(w.order);
        }
        let (&address, _) = addresses
            .iter()
            .max_by(|a, b| a.1.0.cmp(&b.1.0).then(b.1.1.cmp(&a.1.1)))?;
        self.waiting
            .iter()
            .filter(|(_, w)| w.group == most && w.address == address)
            .min_by_key(|(_, w)| w.order)
            .map(|(id, w)| (*id, w.remote.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(ip: &str, port: u16) -> (Multiaddr, String, String) {
        let remote: Multiaddr = format!("/ip4/{ip}/tcp/{port}").parse().expect("an address");
        let o = crate::origin::of(&remote);
        let group = o.group();
        (remote, o.key, group)
    }

    fn admit(w: &mut Waitlist<u32>, id: u32, ip: &str, max: usize) -> Admit<u32> {
        let (remote, address, group) = from(ip, 1000 + id as u16);
        w.admit(id, &remote, &address, &group, max)
    }

    #[test]
    fn a_newcomer_from_another_network_takes_the_place_of_the_crowd() {
        let mut w = Waitlist::default();
        // 8 places, filled from two /24s: 5 from 10.0.1.x, 3 from 10.0.2.x.
        for id in 0..5 {
            assert_eq!(
                admit(&mut w, id, &format!("10.0.1.{}", id % 2 + 1), 8),
                Admit::Free
            );
        }
        for id in 5..8 {
            assert_eq!(admit(&mut w, id, "10.0.2.1", 8), Admit::Free);
        }
        // Another network: the oldest of 10.0.1.1 (which holds 3 of its group's 5) goes.
        match admit(&mut w, 8, "10.9.9.9", 8) {
            Admit::Evict(0, at) => assert_eq!(at, from("10.0.1.1", 1000).0),
            other => panic!("{other:?}"),
        }
        // The crowd's group refused outright; the smaller group evicts from the crowd.
        assert_eq!(admit(&mut w, 9, "10.0.1.7", 8), Admit::Full);
        assert!(matches!(
            admit(&mut w, 10, "10.0.2.9", 8),
            Admit::Evict(_, _)
        ));
        assert_eq!(w.len(), 8);
        assert_eq!((w.evicted, w.refused), (2, 1));
    }

    #[test]
    fn equal_groups_refuse_and_a_finished_handshake_frees_its_place() {
        let mut w = Waitlist::default();
        assert_eq!(admit(&mut w, 0, "10.0.1.1", 2), Admit::Free);
        assert_eq!(admit(&mut w, 1, "10.0.2.1", 2), Admit::Free);
        // A third group holds 0 < 1: it evicts the older of the two.
        assert!(matches!(
            admit(&mut w, 2, "10.0.3.1", 2),
            Admit::Evict(0, _)
        ));
        // Every group holds one: nobody holds more than a newcomer of them would.
        assert_eq!(admit(&mut w, 3, "10.0.2.2", 2), Admit::Full);
        w.done(1);
        assert_eq!(admit(&mut w, 3, "10.0.2.2", 2), Admit::Free);
    }

    #[test]
    fn an_evicted_handle_fires_once_and_unknown_ones_do_not() {
        let handles = Handles::default();
        let remote: Multiaddr = "/ip4/10.0.0.1/tcp/5".parse().expect("an address");
        let (tx, mut rx) = oneshot::channel();
        handles.lock().insert(remote.clone(), tx);
        assert!(handles.evict(&remote));
        assert_eq!(rx.try_recv(), Ok(Some(())));
        assert!(!handles.evict(&remote));
        assert!(handles.is_empty());
    }
}
