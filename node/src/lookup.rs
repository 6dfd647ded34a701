//! Finding a peer by its peer id (spec/PROTOCOL.md §16.5): `/sealed/lookup/1`, served
//! by mailboxes and relays. A node registers there its own signed peer record (libp2p's
//! `PeerRecord` in a `SignedEnvelope`: its addresses, dated by the record's `seq`, Unix
//! seconds); anyone asks for a peer id and gets that peer's newest record, or none.
//!
//! It replaces libp2p's rendezvous, which cannot be made safe here: its namespaces are
//! not bound to the registrant (anyone can register under `sealed/peer/<victim>` and
//! crowd the victim's own record out of a lookup), it keeps 10,000 registrations in
//! all and 32 per peer for up to 72 hours, with no budget per address, and has no hook
//! to add one. Here a record is keyed by the peer id that signed it and registered only
//! over a connection from that peer, so no one can register for another; the newest
//! record of a peer replaces the last; every record expires after [`TTL_MS`]; and one
//! address may hold [`RegistryLimits::per_origin`] registrations at once, all addresses
//! together [`RegistryLimits::total`]. A relay reserves only for peers registered here
//! (`net.rs`).
//!
//! The registry is pure (the caller gives the time); the codec frames as the sync
//! protocol does, with a smaller cap.

use std::collections::HashMap;
use std::io;

use libp2p::core::{PeerRecord, SignedEnvelope};
use libp2p::identity::Keypair;
use libp2p::request_response::Codec;
use libp2p::{Multiaddr, PeerId, StreamProtocol};
use serde::{Deserialize, Serialize};

/// The protocol name.
pub const PROTOCOL: StreamProtocol = StreamProtocol::new("/sealed/lookup/1");

/// Largest request or response.
pub const MAX_LOOKUP_MESSAGE: usize = 8 * 1024;

/// Largest signed record.
pub const MAX_RECORD: usize = 4 * 1024;

/// Most addresses one record may carry.
pub const MAX_RECORD_ADDRS: usize = 16;

/// How long a registration lives (a node renews every hour).
pub const TTL_MS: u64 = 2 * 3600 * 1000;

/// A request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Request {
    /// Keep my record: the bytes of a `SignedEnvelope` holding a `PeerRecord` signed by
    /// the connection's own peer.
    Register {
        /// The signed record.
        record: Vec<u8>,
    },
    /// The newest record of a peer id (its bytes, as libp2p writes a peer id).
    Lookup {
        /// The peer id.
        peer: Vec<u8>,
    },
}

/// A response.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Response {
    /// Kept, for this long (ms).
    Registered {
        /// How long the record lives here.
        ttl_ms: u64,
    },
    /// The record held for the peer asked about, if any.
    Found(Option<Vec<u8>>),
    /// Not taken, with why.
    Refused(String),
}

/// A record read and checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Who signed it.
    pub peer: PeerId,
    /// When it was made, Unix seconds (libp2p's `seq`).
    pub seq: u64,
    /// Where the peer said it was.
    pub addrs: Vec<Multiaddr>,
}

/// Why a lookup point refuses a registration: the registering peer's doing (a bad or
/// stale record), or the point's bounds. On the wire, its words (`Response::Refused`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordRefused {
    /// Longer than [`MAX_RECORD`].
    #[error("a record of {0} bytes")]
    TooLong(usize),
    /// Not a signed record, or its signature does not hold.
    #[error("{0}")]
    Unreadable(String),
    /// More than [`MAX_RECORD_ADDRS`] addresses.
    #[error("{0} addresses in a record")]
    TooManyAddresses(usize),
    /// Another peer's record.
    #[error("a peer registers its own record only")]
    NotOwn,
    /// Older than the one held.
    #[error("an older record than the one held")]
    Older,
    /// The point holds all the records it may.
    #[error("this point holds all the records it may")]
    Full,
    /// This many records came from the address already.
    #[error("{0} records registered from this address already")]
    FromAddress(usize),
}

/// Reads and checks a signed record: it decodes, its signature holds, it is small.
pub fn read_record(bytes: &[u8]) -> Result<Record, RecordRefused> {
    if bytes.len() > MAX_RECORD {
        return Err(RecordRefused::TooLong(bytes.len()));
    }
    let unreadable = |e: &dyn std::fmt::Display| RecordRefused::Unreadable(e.to_string());
    let env = SignedEnvelope::from_protobuf_encoding(bytes).map_err(|e| unreadable(&e))?;
    let rec = PeerRecord::from_signed_envelope(env).map_err(|e| unreadable(&e))?;
    if rec.addresses().len() > MAX_RECORD_ADDRS {
        return Err(RecordRefused::TooManyAddresses(rec.addresses().len()));
    }
    Ok(Record {
        peer: rec.peer_id(),
        seq: rec.seq(),
        addrs: rec.addresses().to_vec(),
    })
}

/// This node's record: its addresses (none for a node that does not announce itself,
/// which still registers so that relays reserve for it), signed now.
pub fn make_record(key: &Keypair, addrs: Vec<Multiaddr>) -> Option<Vec<u8>> {
    let addrs = addrs.into_iter().take(MAX_RECORD_ADDRS).collect();
    let rec = PeerRecord::new(key, addrs).ok()?;
    Some(rec.into_signed_envelope().into_protobuf_encoding())
}

/// How many registrations the registry holds.
#[derive(Clone, Copy, Debug)]
pub struct RegistryLimits {
    /// Registered from one address (`crate::origin`) at once.
    pub per_origin: usize,
    /// In all.
    pub total: usize,
}

impl Default for RegistryLimits {
    fn default() -> Self {
        RegistryLimits {
            per_origin: 16,
            total: 10_000,
        }
    }
}

#[derive(Debug)]
struct Entry {
    record: Vec<u8>,
    seq: u64,
    origin: String,
    expires: u64,
}

/// The records a lookup point keeps.
#[derive(Debug, Default)]
pub struct Registry {
    limits: RegistryLimits,
    entries: HashMap<PeerId, Entry>,
    per_origin: HashMap<String, usize>,
}

impl Registry {
    /// An empty registry with these limits.
    pub fn new(limits: RegistryLimits) -> Registry {
        Registry {
            limits,
            ..Registry::default()
        }
    }

    /// Takes `from`'s record, sent over a connection from `origin`: kept until
    /// [`TTL_MS`] from `now`, unless it is older than the one held or the budgets are
    /// spent. Returns how long it is kept.
    pub fn register(
        &mut self,
        from: &PeerId,
        origin: &str,
        bytes: &[u8],
        now: u64,
    ) -> Result<u64, RecordRefused> {
        self.prune(now);
        let rec = read_record(bytes)?;
        if rec.peer != *from {
            return Err(RecordRefused::NotOwn);
        }
        let moves = match self.entries.get(&rec.peer) {
            Some(e) if rec.seq < e.seq => return Err(RecordRefused::Older),
            Some(e) => e.origin != origin,
            None => true,
        };
        if moves && self.per_origin.get(origin).copied().unwrap_or(0) >= self.limits.per_origin {
            return Err(RecordRefused::FromAddress(self.limits.per_origin));
        }
        if !self.entries.contains_key(&rec.peer) && self.entries.len() >= self.limits.total {
            self.evict_for(origin)?;
        }
        if let Some(old) = self.entries.remove(&rec.peer) {
            self.uncount(&old.origin);
        }
        *self.per_origin.entry(origin.to_owned()).or_default() += 1;
        self.entries.insert(
            rec.peer,
            Entry {
                record: bytes.to_vec(),
                seq: rec.seq,
                origin: origin.to_owned(),
                expires: now.saturating_add(TTL_MS),
            },
        );
        Ok(TTL_MS)
    }

    /// The record held for `peer`, if it has not expired.
    pub fn lookup(&self, peer: &PeerId, now: u64) -> Option<Vec<u8>> {
        self.entries
            .get(peer)
            .filter(|e| e.expires > now)
            .map(|e| e.record.clone())
    }

    /// Whether `peer` is registered now (a relay reserves for it).
    pub fn holds(&self, peer: &PeerId, now: u64) -> bool {
        self.entries.get(peer).is_some_and(|e| e.expires > now)
    }

    /// How many records are held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forgets expired records.
    pub fn prune(&mut self, now: u64) {
        let gone: Vec<PeerId> = self
            .entries
            .iter()
            .filter(|(_, e)| e.expires <= now)
            .map(|(p, _)| *p)
            .collect();
        for p in gone {
            if let Some(e) = self.entries.remove(&p) {
                self.uncount(&e.origin);
            }
        }
    }

    /// Makes room for a record from `origin` when every place is taken: the oldest
    /// record of the network holding most goes, if `origin`'s network holds fewer (as the
    /// door shares its places, `door.rs`): whoever fills the registry from a few
    /// networks only ever displaces himself. Only when full, so a pass over the records.
    fn evict_for(&mut self, origin: &str) -> Result<(), RecordRefused> {
        let group = sealed_core::origin::group_of;
        let mut groups: HashMap<String, usize> = HashMap::new();
        for e in self.entries.values() {
            *groups.entry(group(&e.origin)).or_default() += 1;
        }
        let mine = groups.get(&group(origin)).copied().unwrap_or(0);
        let Some((most, held)) = groups.into_iter().max_by_key(|(_, n)| *n) else {
            return Err(RecordRefused::Full);
        };
        if mine >= held {
            return Err(RecordRefused::Full);
        }
        let oldest = self
            .entries
            .iter()
            .filter(|(_, e)| group(&e.origin) == most)
            .min_by_key(|(_, e)| e.expires)
            .map(|(p, _)| *p);
        if let Some(e) = oldest.and_then(|p| self.entries.remove(&p)) {
            self.uncount(&e.origin);
        }
        Ok(())
    }

    fn uncount(&mut self, origin: &str) {
        if let Some(n) = self.per_origin.get_mut(origin) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.per_origin.remove(origin);
            }
        }
    }
}

/// Length-prefixed postcard, at most [`MAX_LOOKUP_MESSAGE`] bytes.
#[derive(Clone, Copy, Debug, Default)]
pub struct LookupCodec;

impl Codec for LookupCodec {
    type Protocol = StreamProtocol;
    type Request = Request;
    type Response = Response;

    async fn read_request<T>(&mut self, _: &StreamProtocol, io: &mut T) -> io::Result<Request>
    where
        T: futures::AsyncRead + Unpin + Send,
    {
        crate::sync::read_small(io, MAX_LOOKUP_MESSAGE).await
    }

    async fn read_response<T>(&mut self, _: &StreamProtocol, io: &mut T) -> io::Result<Response>
    where
        T: futures::AsyncRead + Unpin + Send,
    {
        crate::sync::read_small(io, MAX_LOOKUP_MESSAGE).await
    }

    async fn write_request<T>(
        &mut self,
        _: &StreamProtocol,
        io: &mut T,
        r: Request,
    ) -> io::Result<()>
    where
        T: futures::AsyncWrite + Unpin + Send,
    {
        crate::sync::write_framed(io, &r, MAX_LOOKUP_MESSAGE).await
    }

    async fn write_response<T>(
        &mut self,
        _: &StreamProtocol,
        io: &mut T,
        r: Response,
    ) -> io::Result<()>
    where
        T: futures::AsyncWrite + Unpin + Send,
    {
        crate::sync::write_framed(io, &r, MAX_LOOKUP_MESSAGE).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u8) -> Keypair {
        crate::net::keypair(&[n; 32])
    }

    fn record(k: &Keypair, addr: &str) -> Vec<u8> {
        make_record(k, vec![addr.parse().expect("an address")]).expect("signs")
    }

    #[test]
    fn a_peer_registers_itself_only_and_the_newest_record_wins() {
        let mut r = Registry::default();
        let (a, b) = (key(1), key(2));
        let (pa, pb) = (a.public().to_peer_id(), b.public().to_peer_id());
        let rec = record(&a, "/ip4/1.2.3.4/tcp/1");
        // B cannot register A's record, nor anything in A's name.
        assert!(r.register(&pb, "ip4/9.9.9.9", &rec, 0).is_err());
        assert!(r.lookup(&pa, 0).is_none());
        assert_eq!(r.register(&pa, "ip4/1.2.3.4", &rec, 0), Ok(TTL_MS));
        assert_eq!(r.lookup(&pa, 1).as_deref(), Some(rec.as_slice()));
        let rec2 = record(&a, "/ip4/1.2.3.5/tcp/1");
        assert!(r.register(&pa, "ip4/1.2.3.5", &rec2, 5).is_ok());
        assert_eq!(r.lookup(&pa, 6).as_deref(), Some(rec2.as_slice()));
        assert_eq!(r.len(), 1);
        // Expired: gone.
        assert!(r.lookup(&pa, 5 + TTL_MS).is_none());
        r.prune(5 + TTL_MS);
        assert!(r.is_empty());
        assert!(r.register(&pa, "x", b"not a record", 0).is_err());
    }

    #[test]
    fn one_address_holds_its_share_and_all_together_the_total() {
        let mut r = Registry::new(RegistryLimits {
            per_origin: 3,
            total: 5,
        });
        for n in 0..3 {
            let k = key(10 + n);
            let p = k.public().to_peer_id();
            assert!(
                r.register(&p, "ip4/6.6.6.6", &record(&k, "/ip4/6.6.6.6/tcp/1"), 0)
                    .is_ok()
            );
        }
        let k = key(20);
        let p = k.public().to_peer_id();
        let refused = r.register(&p, "ip4/6.6.6.6", &record(&k, "/ip4/6.6.6.6/tcp/1"), 0);
        assert!(refused.is_err(), "{refused:?}");
        assert!(
            r.register(&p, "ip4/7.7.7.7", &record(&k, "/ip4/7.7.7.7/tcp/1"), 0)
                .is_ok()
        );
        let k = key(21);
        let p = k.public().to_peer_id();
        assert!(
            r.register(&p, "ip4/8.8.8.8", &record(&k, "/ip4/8.8.8.8/tcp/1"), 0)
                .is_ok()
        );
        // Full: a newcomer from a network holding fewer displaces the oldest record of
        // the network holding most (6.6.6.0/24, 3 of 5)…
        let k = key(22);
        let p = k.public().to_peer_id();
        assert!(
            r.register(&p, "ip4/8.8.8.9", &record(&k, "/ip4/8.8.8.9/tcp/1"), 1)
                .is_ok()
        );
        assert_eq!(r.len(), 5);
        assert!(r.lookup(&p, 2).is_some());
        let left_of_six = (10..13)
            .filter(|n| r.lookup(&key(*n).public().to_peer_id(), 2).is_some())
            .count();
        assert_eq!(left_of_six, 2, "one of the crowd's records gave its place");
        // …but a network that holds as many as any other is refused (now 2, 1, 2).
        let k = key(23);
        let p = k.public().to_peer_id();
        let full = r.register(&p, "ip4/6.6.6.7", &record(&k, "/ip4/6.6.6.7/tcp/1"), 2);
        assert_eq!(full, Err(RecordRefused::Full));
    }
}
