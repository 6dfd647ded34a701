//! The libp2p side: one swarm per node, TCP and QUIC with Noise and Yamux, identify,
//! ping, mDNS on the LAN, relay v2 (client always, server when asked) with DCUtR hole
//! punching, the lookup of a peer by its peer id (`lookup.rs`: client always, server on
//! mailboxes and relays), AutoNAT, and the sync protocol — each within a budget
//! (ARCHITECTURE.md, *Budgets*): connections in all, pending, per peer and per address
//! (`origin.rs`), none new while the process holds too much memory, streams per
//! connection, sync streams and requests per peer, bytes read (`sync/codec.rs`, one
//! budget for both sync protocols), and the relay's reservations and circuits.
//!
//! The sync protocol has two carriers: one long-lived stream per peer and direction
//! (`/sealed/sync-stream/1`, libp2p's `stream` behaviour, driven by
//! `shell/streams.rs`), which the node uses, and request-response (`/sealed/sync/1`,
//! a substream per request), which it answers for every peer and uses towards peers
//! that refuse the stream's protocol (nodes of before it).
//!
//! The figures: 128 connections being set up from outside, 4096 inbound, 4608 in all, 8
//! per peer; 128 streams per connection (yamux), 32 sync requests and 8 lookups at
//! once; on the sync streams, one of ours and at most 4 of theirs per peer, 32 requests
//! in flight each way per peer, each timed out after `NetConfig::request_timeout`; our
//! answers waiting to be written, 16 MiB and 32 answers per peer and 64 MiB in all
//! beyond 64 KiB per peer, each for at most `request_timeout` (`sync/owed.rs`). The
//! memory limit (no new connection while the process holds more than half the
//! machine's memory) is a last resort: the other budgets keep a node under attack under
//! 60 MiB. The relay reserves for peers registered at this node's lookup only, 512 in
//! all and 2 per peer, within libp2p's rates per peer and address; it carries 128
//! circuits, 4 per peer, an hour and 64 MiB each, and a source address opens 32 at once
//! and one more per 15 s (players behind one NAT share an address: two of them
//! restarting together must not wait, `cli/tests/netns.rs`
//! `restart_latency_across_the_router`). AutoNAT (peers dial back) tells the shell when
//! no peer can dial this node (`shell/reach.rs` `nat_changed`).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use libp2p::core::Transport as _;
use libp2p::core::muxing::StreamMuxerBox;
use libp2p::identity::{Keypair, PublicKey, ed25519};
use libp2p::swarm::NetworkBehaviour;
use libp2p::swarm::behaviour::toggle::Toggle;
use libp2p::{
    Multiaddr, PeerId, Swarm, autonat, connection_limits, dcutr, identify, mdns,
    memory_connection_limits, noise, ping, relay, request_response, tcp, yamux,
};

use crate::limit::{Limits, RateLimiter};
use crate::lookup::{self, LookupCodec, Registry};
use crate::origin::{Gate, GateLimits};
use crate::sync::{
    Budget, FREE_PER_CONNECTION, MAX_HELD, MAX_HELD_PER_CONNECTION, PROTOCOL, SyncCodec,
};

pub use behaviour::{Behaviour, BehaviourEvent};

mod behaviour {
    // The derive macro writes an event enum whose variants cannot carry doc comments.
    #![allow(missing_docs)]
    use super::*;

    /// What a node runs. The limits come first: a connection they refuse costs the
    /// others nothing.
    #[derive(NetworkBehaviour)]
    pub struct Behaviour {
        /// Connections established, in all, inbound and per peer (those being set up
        /// are the gate's: `door.rs`).
        pub limits: connection_limits::Behaviour,
        /// No new connection while the process holds more than [`MAX_MEMORY_SHARE`] of
        /// the machine's memory.
        pub memory: memory_connection_limits::Behaviour,
        /// Inbound connections per address.
        pub gate: Gate,
        /// The game sync protocol, one request per substream: answered for every
        /// peer, used towards peers that do not speak the stream protocol.
        pub sync: request_response::Behaviour<SyncCodec>,
        /// The game sync protocol on one long-lived stream per peer and direction
        /// (`shell/streams.rs`).
        pub stream: libp2p_stream::Behaviour,
        /// Finding peers by peer id: asking always, answering on mailboxes and relays.
        pub lookup: request_response::Behaviour<LookupCodec>,
        /// Tells peers our addresses and protocols.
        pub identify: identify::Behaviour,
        /// Keeps idle connections measured and alive.
        pub ping: ping::Behaviour,
        /// Finds peers on the LAN (off in tests, where it would find every test node).
        pub mdns: Toggle<mdns::tokio::Behaviour>,
        /// Reaches peers behind NAT through a relay.
        pub relay_client: relay::client::Behaviour,
        /// Acts as a relay for others (a mailbox or relay node).
        pub relay_server: Toggle<relay::Behaviour>,
        /// Upgrades relayed connections to direct ones by hole punching.
        pub dcutr: dcutr::Behaviour,
        /// Asks peers to dial back: whether this node can be reached (if not, it
        /// reserves a slot at a relay it keeps connected).
        pub autonat: autonat::Behaviour,
    }
}

/// The share of the machine's memory past which no new connection is taken: a last
/// resort before the system runs out. The budgets below keep a node under attack far
/// lower (docs/RELIABILITY.md: under 60 MiB); a fixed bound of a few hundred MiB would
/// shut out peers of a node that legitimately holds hundreds of live games in memory.
pub const MAX_MEMORY_SHARE: f64 = 0.5;

/// Inbound connections at once: a public mailbox's players all keep theirs open. The
/// gate shares them between networks (`origin.rs` `Gate`): when all are taken, a
/// newcomer from a network holding fewer closes the oldest of the network holding most.
pub const MAX_INCOMING: u32 = 4096;
/// Above [`MAX_INCOMING`], the places of connections the gate closed for a newcomer and
/// that are still closing (libp2p's limit counts them until they are gone).
pub const CLOSING_INCOMING: u32 = 64;
/// Connections at once, both ways.
pub const MAX_CONNECTIONS: u32 = 4608;
/// Connections to one peer at once (direct, relayed, a hole punch, a dial race).
pub const MAX_PER_PEER: u32 = 8;
/// Streams a connection may have open at once (every protocol together).
pub const MAX_STREAMS: usize = 128;
/// Sync requests in flight at once each way: per connection by request-response, per
/// peer on the sync streams (`shell/streams.rs`). A peer keeps 8 in flight
/// (`core/src/peers.rs`), so do we.
pub const MAX_SYNC_STREAMS: usize = 32;
/// A peer's sync streams to us at once (`shell/streams.rs`): one is all an honest peer
/// keeps; more allow for a stream it opened again before we saw its last one end.
pub const MAX_INBOUND_SYNC_STREAMS: usize = 4;

/// Bytes of our answers waiting to be written to one peer, on all its sync streams and
/// request-response substreams together (`sync/owed.rs`): two messages of the largest
/// size, so that a peer reading a large answer slowly still has the next one queued.
/// An answer past it is not queued: a "busy" refusal (the asker's fault) goes in its
/// place; and the peer's streams are not read while there is no room for one more of
/// the largest. Symmetric with what its messages may hold being read
/// (`sync::MAX_HELD_PER_CONNECTION`).
pub const MAX_OWED_PER_PEER: usize = 16 << 20;
/// Bytes of our answers waiting to be written to every peer together, beyond each
/// peer's free share: two peers' worth, as for what messages read may hold
/// (`sync::MAX_HELD`; both are parts of the memory plan, `memory.rs`). Past it a large
/// answer is refused as busy (this node's fault): strangers who ask and never read hold
/// at most this of the node's memory, for at most `NetConfig::request_timeout` per
/// answer.
pub const MAX_OWED: usize = 32 << 20;
/// What each peer's answers may hold outside [`MAX_OWED`]: small answers (heads,
/// acknowledgements, refusals) to the peers that read them are never refused for the
/// strangers who do not.
pub const FREE_OWED_PER_PEER: usize = 64 << 10;
/// Answers waiting to be written to one peer past which its streams are not read: as
/// many as it may have requests in flight (an honest peer keeps 8,
/// `core/src/peers.rs`), so the refusals queued in place of answers stay few.
pub const MAX_OWED_ANSWERS: usize = MAX_SYNC_STREAMS;

/// How to build a swarm.
#[derive(Clone, Debug)]
pub struct NetConfig {
    /// Discover peers on the LAN with mDNS.
    pub mdns: bool,
    /// Relay other peers' connections.
    pub relay_server: bool,
    /// Answer lookups by peer id and keep the records peers register (always on for a
    /// mailbox or relay).
    pub lookup_server: bool,
    /// Register our addresses at the lookup points we keep connected (a mailbox or
    /// relay), so that peers who know only our peer id find us. Whoever can ask that
    /// point learns them.
    pub announce: bool,
    /// How long a sync request may take.
    pub request_timeout: Duration,
    /// How long an idle connection stays open.
    pub idle_timeout: Duration,
    /// The player's display name, announced to peers (identify) so that a proposal to
    /// this node can name its seat; empty: none announced.
    pub name: String,
    /// Inbound connections per address and per relay.
    pub gate: GateLimits,
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            mdns: true,
            relay_server: false,
            lookup_server: false,
            announce: true,
            request_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(600),
            name: String::new(),
            gate: GateLimits::default(),
        }
    }
}

/// The libp2p keypair of a seat's Ed25519 secret. `ed25519_from_bytes` zeroizes its
/// argument, so it gets a copy.
pub fn keypair(seed: &[u8; 32]) -> Keypair {
    let mut copy = *seed;
    Keypair::ed25519_from_bytes(&mut copy).expect("any 32 bytes are an Ed25519 secret")
}

/// The peer id of a seat's public key (as the proposal lists it).
pub fn peer_id(key: &[u8; 32]) -> Option<PeerId> {
    let pk = ed25519::PublicKey::try_from_bytes(key).ok()?;
    Some(PublicKey::from(pk).to_peer_id())
}

/// Whether an address (as text) ends in `/p2p/<the peer id of key>`.
pub fn names(addr: &str, key: &[u8; 32]) -> bool {
    let Ok(a) = addr.parse::<Multiaddr>() else {
        return false;
    };
    matches!(
        (a.iter().last(), peer_id(key)),
        (Some(libp2p::multiaddr::Protocol::P2p(p)), Some(k)) if p == k
    )
}

/// AutoNAT: a first probe soon after start (a player behind a router should be
/// reachable through its relay within seconds, not minutes), one peer's dial-back enough
/// to decide, and private addresses allowed (a LAN, or a test's namespaces, is as real a
/// network as the internet here).
fn autonat_config() -> autonat::Config {
    autonat::Config {
        boot_delay: Duration::from_secs(2),
        retry_interval: Duration::from_secs(30),
        confidence_max: 1,
        only_global_ips: false,
        ..autonat::Config::default()
    }
}

/// What identify tells peers this node runs, this process's boot (random at each
/// start), and the player's name if it has one: `sealed/<version>; boot=<16 hex>` then
/// `; name=<name>` (spec/PROTOCOL.md §16.5).
pub fn agent_version(name: &str, boot: u64) -> String {
    let v = format!("sealed/{}; boot={boot:016x}", env!("CARGO_PKG_VERSION"));
    if name.is_empty() {
        v
    } else {
        format!("{v}; name={name}")
    }
}

/// The boot a peer announced in its agent version, if any (a node of before it gives
/// none): a connection identified under another boot of the same peer id than a newer
/// one is to a process that is gone (`shell/restarts.rs`).
pub fn announced_boot(agent: &str) -> Option<u64> {
    let (_, rest) = agent.split_once("; boot=")?;
    let hex = rest.split(';').next()?;
    (hex.len() == 16)
        .then(|| u64::from_str_radix(hex, 16).ok())
        .flatten()
}

/// An agent version as a person reads it: without the boot, a number that changes at
/// every start of the peer and means nothing to him.
pub fn shown_agent(agent: &str) -> String {
    let name_at = agent.find("; name=").unwrap_or(agent.len());
    match agent[..name_at].split_once("; boot=") {
        Some((head, rest)) => {
            let tail = rest.find(';').map_or("", |i| &rest[i..]);
            format!("{head}{tail}{}", &agent[name_at..])
        }
        None => agent.to_owned(),
    }
}

/// The name a peer announced in its agent version, if it is one a proposal may carry
/// (at most 64 bytes, nothing a terminal acts on); a bad one is ignored, never shown.
pub fn announced_name(agent: &str) -> Option<String> {
    let (_, name) = agent.split_once("; name=")?;
    (!name.is_empty() && crate::home::check_name(name).is_ok()).then(|| name.to_owned())
}

/// A relay for game traffic, on our terms: it reserves only for peers registered at
/// this node's lookup (so a stranger cannot take the slots of the players it serves),
/// each address and network within its share of the places (`reservations.rs`); circuits last an hour and
/// carry 64 MiB (players whose routers defeat hole punching play whole games through
/// it), at most 4 per source peer, 128 in all, and each source address opens at most
/// [`CIRCUITS_PER_ADDRESS`] at once and one more each [`CIRCUIT_REFILL`].
fn relay_config(registry: Arc<Mutex<Registry>>) -> relay::Config {
    let mut c = relay::Config {
        max_reservations: crate::reservations::MAX,
        max_reservations_per_peer: 2,
        reservation_duration: crate::reservations::LIFETIME,
        max_circuits: 128,
        max_circuits_per_peer: 4,
        max_circuit_duration: Duration::from_secs(3600),
        max_circuit_bytes: 64 << 20,
        ..relay::Config::default()
    };
    let mut shares = crate::reservations::Reservations::default();
    c.reservation_rate_limiters.push(Box::new(
        move |peer: PeerId, addr: &Multiaddr, now: Instant| {
            registry
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .holds(&peer, crate::shell::now_ms())
                && shares.admit(peer, addr, now)
        },
    ));
    let start = Instant::now();
    let mut per_address = RateLimiter::new(Limits {
        burst: CIRCUITS_PER_ADDRESS,
        per_second: 1.0 / CIRCUIT_REFILL.as_secs_f64(),
    });
    c.circuit_src_rate_limiters.push(Box::new(
        move |_: PeerId, addr: &Multiaddr, now: Instant| {
            let ms = now.saturating_duration_since(start).as_millis() as u64;
            per_address.prune(ms);
            per_address.spend(&crate::origin::of(addr).key, 1.0, ms)
        },
    ));
    c
}

/// Circuits one source address may open at once. Players behind one NAT share an
/// address, and each restart of a player behind it opens circuits again (to every peer
/// it plays, and theirs to it): a household of two players restarting together must
/// not wait for the refill.
pub const CIRCUITS_PER_ADDRESS: f64 = 32.0;
/// And one more each this long: a stranger from one address holds at most a quarter of
/// the relay's 128 circuits at once, plus four a minute (each lives an hour at most).
pub const CIRCUIT_REFILL: Duration = Duration::from_secs(15);

/// The read budget of a node's sync messages, both protocols together.
pub fn sync_budget() -> Arc<Budget> {
    Budget::new(MAX_HELD, MAX_HELD_PER_CONNECTION, FREE_PER_CONNECTION)
}

/// Builds the swarm; `registry` is this node's lookup registry (a relay reserves for
/// the peers registered there).
pub fn swarm(
    key: &Keypair,
    cfg: &NetConfig,
    registry: Arc<Mutex<Registry>>,
) -> Result<Swarm<Behaviour>, Box<dyn std::error::Error + Send + Sync>> {
    swarm_with_budget(key, cfg, registry, sync_budget())
}

/// Builds the swarm, its request-response sync messages read under `budget` (which
/// the shell's streams share).
pub fn swarm_with_budget(
    key: &Keypair,
    cfg: &NetConfig,
    registry: Arc<Mutex<Registry>>,
    budget: Arc<Budget>,
) -> Result<Swarm<Behaviour>, Box<dyn std::error::Error + Send + Sync>> {
    let cfg = cfg.clone();
    let yamux = || {
        let mut y = yamux::Config::default();
        y.set_max_num_streams(MAX_STREAMS);
        y
    };
    // The door (`door.rs`): direct inbound handshakes, each cancellable by the gate.
    let handles = crate::door::Handles::default();
    let door = handles.clone();
    // This process's boot: a peer that sees it change knows this node restarted.
    let boot = {
        let mut b = [0u8; 8];
        getrandom::fill(&mut b).map_err(|e| std::io::Error::other(e.to_string()))?;
        u64::from_le_bytes(b)
    };
    let swarm = libp2p::SwarmBuilder::with_existing_identity(key.clone())
        .with_tokio()
        .with_other_transport(|key| {
            // What `with_tcp` and `with_quic` would build, behind the door.
            // A dial from the listening port falls back to a fresh one (`fresh_port.rs`).
            let tcp = crate::fresh_port::FreshPort(tcp::tokio::Transport::new(
                tcp::Config::default().nodelay(true),
            ))
            .upgrade(libp2p::core::upgrade::Version::V1Lazy)
            .authenticate(noise::Config::new(key)?)
            .multiplex(yamux())
            .map(|(p, c), _| (p, StreamMuxerBox::new(c)));
            let quic = libp2p::quic::tokio::Transport::new(libp2p::quic::Config::new(key))
                .map(|(p, c), _| (p, StreamMuxerBox::new(c)));
            let both = tcp.or_transport(quic).map(|either, _| either.into_inner());
            Ok::<_, Box<dyn std::error::Error + Send + Sync>>(crate::door::Evictable::new(
                both, door,
            ))
        })?
        .with_dns()?
        .with_relay_client(noise::Config::new, yamux)?
        .with_behaviour(|key, relay_client| {
            let peer = key.public().to_peer_id();
            let mdns = if cfg.mdns {
                mdns::tokio::Behaviour::new(mdns::Config::default(), peer).ok()
            } else {
                None
            };
            let lookup_support = if cfg.lookup_server {
                request_response::ProtocolSupport::Full
            } else {
                request_response::ProtocolSupport::Outbound
            };
            Behaviour {
                limits: connection_limits::Behaviour::new(
                    connection_limits::ConnectionLimits::default()
                        .with_max_established_incoming(Some(MAX_INCOMING + CLOSING_INCOMING))
                        .with_max_established(Some(MAX_CONNECTIONS))
                        .with_max_established_per_peer(Some(MAX_PER_PEER)),
                ),
                memory: memory_connection_limits::Behaviour::with_max_percentage(MAX_MEMORY_SHARE),
                gate: Gate::new(cfg.gate, handles.clone()),
                sync: request_response::Behaviour::with_codec(
                    SyncCodec::new(budget.clone()),
                    [(PROTOCOL, request_response::ProtocolSupport::Full)],
                    request_response::Config::default()
                        .with_request_timeout(cfg.request_timeout)
                        .with_max_concurrent_streams(MAX_SYNC_STREAMS),
                ),
                stream: libp2p_stream::Behaviour::new(),
                lookup: request_response::Behaviour::with_codec(
                    LookupCodec,
                    [(lookup::PROTOCOL, lookup_support)],
                    request_response::Config::default()
                        .with_request_timeout(Duration::from_secs(20))
                        .with_max_concurrent_streams(8),
                ),
                identify: identify::Behaviour::new(
                    identify::Config::new("/sealed/1".into(), key.public())
                        .with_agent_version(agent_version(&cfg.name, boot)),
                ),
                ping: ping::Behaviour::new(ping::Config::new()),
                mdns: mdns.into(),
                relay_client,
                relay_server: cfg
                    .relay_server
                    .then(|| relay::Behaviour::new(peer, relay_config(registry.clone())))
                    .into(),
                dcutr: dcutr::Behaviour::new(peer),
                autonat: autonat::Behaviour::new(peer, autonat_config()),
            }
        })?
        .with_swarm_config(|c| c.with_idle_connection_timeout(cfg.idle_timeout))
        .with_connection_timeout(crate::door::HANDSHAKE_TIMEOUT)
        .build();
    Ok(swarm)
}

#[cfg(test)]
mod tests {
    use super::{agent_version, announced_boot, announced_name, shown_agent};

    /// The boot is read back from the agent version, before or without a name, and a
    /// name holding `; boot=` is still the name (everything after `; name=`).
    #[test]
    fn the_agent_version_carries_the_boot_and_the_name() {
        let v = env!("CARGO_PKG_VERSION");
        let a = agent_version("alice", 0x0123_4567_89ab_cdef);
        assert_eq!(a, format!("sealed/{v}; boot=0123456789abcdef; name=alice"));
        assert_eq!(announced_boot(&a), Some(0x0123_4567_89ab_cdef));
        assert_eq!(announced_name(&a).as_deref(), Some("alice"));
        assert_eq!(shown_agent(&a), format!("sealed/{v}; name=alice"));
        let plain = agent_version("", 7);
        assert_eq!(announced_boot(&plain), Some(7));
        assert_eq!(announced_name(&plain), None);
        // A node of before boots announces none; a malformed boot is none.
        assert_eq!(announced_boot("sealed/0.1.0; name=bob"), None);
        assert_eq!(announced_boot("sealed/0.1.0; boot=12; name=bob"), None);
        assert_eq!(announced_boot("sealed/0.1.0; boot=zzzzzzzzzzzzzzzz"), None);
        let odd = agent_version("x; boot=0000000000000001", 2);
        assert_eq!(announced_boot(&odd), Some(2));
        assert_eq!(
            announced_name(&odd).as_deref(),
            Some("x; boot=0000000000000001")
        );
        assert_eq!(
            shown_agent(&odd),
            format!("sealed/{v}; name=x; boot=0000000000000001")
        );
        assert_eq!(shown_agent(&plain), format!("sealed/{v}"));
    }

    /// The core writes peer ids without libp2p (`sealed_core::peer_id`): the same text
    /// as libp2p's, for keys and for bytes that are no key.
    #[test]
    fn the_cores_peer_ids_are_libp2ps() {
        for n in 0..64u8 {
            let key = sealed_protocol::keys::SecretKey::from_seed(&[n; 32])
                .public()
                .to_bytes();
            let ours = sealed_core::peer_id::text(&key);
            assert_eq!(ours, peer_id(&key).map(|p| p.to_string()));
            assert_eq!(sealed_core::peer_id::key_of(&ours.unwrap()), Some(key));
        }
        for b in 0..=255u8 {
            let bytes = [b; 32];
            let ours = sealed_core::peer_id::text(&bytes);
            assert_eq!(ours, peer_id(&bytes).map(|p| p.to_string()), "bytes {b}");
        }
    }

    use super::*;

    #[test]
    fn a_seat_key_is_its_peer_id() {
        let seed = [7u8; 32];
        let sk = sealed_protocol::keys::SecretKey::from_seed(&seed);
        assert_eq!(
            peer_id(&sk.public().to_bytes()),
            Some(keypair(&seed).public().to_peer_id())
        );
    }
}
