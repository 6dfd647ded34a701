//! The libp2p side: one swarm per node, TCP and QUIC with Noise and Yamux, identify,
//! ping, mDNS on the LAN, relay v2 (client always, server when asked) with DCUtR hole
//! punching, rendezvous (client always, server on mailboxes and relays: a peer is found
//! by its peer id alone), and the sync protocol.

use std::time::Duration;

use libp2p::identity::{Keypair, PublicKey, ed25519};
use libp2p::swarm::NetworkBehaviour;
use libp2p::swarm::behaviour::toggle::Toggle;
use libp2p::{
    PeerId, Swarm, autonat, dcutr, identify, mdns, noise, ping, relay, rendezvous,
    request_response, tcp, yamux,
};

use crate::sync::{PROTOCOL, SyncCodec};

pub use behaviour::{Behaviour, BehaviourEvent};

mod behaviour {
    // The derive macro writes an event enum whose variants cannot carry doc comments.
    #![allow(missing_docs)]
    use super::*;

    /// What a node runs.
    #[derive(NetworkBehaviour)]
    pub struct Behaviour {
        /// The game sync protocol.
        pub sync: request_response::Behaviour<SyncCodec>,
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
        /// Registers our addresses at rendezvous points and looks peers up there.
        pub rendezvous: rendezvous::client::Behaviour,
        /// Serves as a rendezvous point (a mailbox or relay node).
        pub rendezvous_server: Toggle<rendezvous::server::Behaviour>,
        /// Asks peers to dial back: whether this node can be reached (if not, it
        /// reserves a slot at a relay it keeps connected).
        pub autonat: autonat::Behaviour,
    }
}

/// How to build a swarm.
#[derive(Clone, Debug)]
pub struct NetConfig {
    /// Discover peers on the LAN with mDNS.
    pub mdns: bool,
    /// Relay other peers' connections.
    pub relay_server: bool,
    /// Serve as a rendezvous point: keep the addresses peers register and give them to
    /// whoever asks by peer id (always on for a mailbox or relay).
    pub rendezvous_server: bool,
    /// Register our addresses at the rendezvous points we keep connected (a mailbox or
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
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            mdns: true,
            relay_server: false,
            rendezvous_server: false,
            announce: true,
            request_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(600),
            name: String::new(),
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

/// What identify tells peers this node runs, and the player's name if it has one:
/// `sealed/<version>` or `sealed/<version>; name=<name>` (spec/PROTOCOL.md §16.5).
pub fn agent_version(name: &str) -> String {
    let v = format!("sealed/{}", env!("CARGO_PKG_VERSION"));
    if name.is_empty() {
        v
    } else {
        format!("{v}; name={name}")
    }
}

/// The name a peer announced in its agent version, if it is one a proposal may carry
/// (at most 64 bytes, nothing a terminal acts on); a bad one is ignored, never shown.
pub fn announced_name(agent: &str) -> Option<String> {
    let (_, name) = agent.split_once("; name=")?;
    (!name.is_empty() && crate::home::check_name(name).is_ok()).then(|| name.to_owned())
}

/// The rendezvous namespace a peer registers under: its own peer id, so that a lookup
/// by peer id returns that peer and nobody else.
pub fn namespace(peer: &PeerId) -> rendezvous::Namespace {
    rendezvous::Namespace::new(format!("sealed/peer/{peer}"))
        .expect("a peer id is far shorter than the 255 bytes a namespace may have")
}

/// A relay for game traffic: the defaults (two minutes, 128 KiB per circuit) are
/// sized for hole-punching handshakes, while players whose routers defeat hole
/// punching play whole games through the relay.
fn relay_config() -> relay::Config {
    relay::Config {
        max_circuit_duration: Duration::from_secs(3600),
        max_circuit_bytes: 64 << 20,
        ..relay::Config::default()
    }
}

/// Builds the swarm.
pub fn swarm(
    key: &Keypair,
    cfg: &NetConfig,
) -> Result<Swarm<Behaviour>, Box<dyn std::error::Error + Send + Sync>> {
    let cfg = cfg.clone();
    let swarm = libp2p::SwarmBuilder::with_existing_identity(key.clone())
        .with_tokio()
        .with_tcp(
            tcp::Config::default().nodelay(true),
            noise::Config::new,
            yamux::Config::default,
        )?
        .with_quic()
        .with_dns()?
        .with_relay_client(noise::Config::new, yamux::Config::default)?
        .with_behaviour(|key, relay_client| {
            let peer = key.public().to_peer_id();
            let mdns = if cfg.mdns {
                mdns::tokio::Behaviour::new(mdns::Config::default(), peer).ok()
            } else {
                None
            };
            Behaviour {
                sync: request_response::Behaviour::with_codec(
                    SyncCodec,
                    [(PROTOCOL, request_response::ProtocolSupport::Full)],
                    // The default of 100 streams per connection drops requests once
                    // a node pair plays more than a few dozen games at once.
                    request_response::Config::default()
                        .with_request_timeout(cfg.request_timeout)
                        .with_max_concurrent_streams(4096),
                ),
                identify: identify::Behaviour::new(
                    identify::Config::new("/sealed/1".into(), key.public())
                        .with_agent_version(agent_version(&cfg.name)),
                ),
                ping: ping::Behaviour::new(ping::Config::new()),
                mdns: mdns.into(),
                relay_client,
                relay_server: cfg
                    .relay_server
                    .then(|| relay::Behaviour::new(peer, relay_config()))
                    .into(),
                dcutr: dcutr::Behaviour::new(peer),
                rendezvous: rendezvous::client::Behaviour::new(key.clone()),
                autonat: autonat::Behaviour::new(peer, autonat_config()),
                rendezvous_server: cfg
                    .rendezvous_server
                    .then(|| {
                        rendezvous::server::Behaviour::new(rendezvous::server::Config::default())
                    })
                    .into(),
            }
        })?
        .with_swarm_config(|c| c.with_idle_connection_timeout(cfg.idle_timeout))
        .build();
    Ok(swarm)
}

#[cfg(test)]
mod tests {
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
