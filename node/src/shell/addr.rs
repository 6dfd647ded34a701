//! Addresses and peer ids as the shell reads them for the core (which knows keys, not
//! libp2p's types), the probe of a listen port, and errors with every cause.

use libp2p::multiaddr::Protocol;
use libp2p::{Multiaddr, PeerId};

use super::ProposeArgs;
use crate::core::NodeError;

/// The Ed25519 key a peer id names.
pub fn key_of(peer: &PeerId) -> Option<[u8; 32]> {
    let mh: &libp2p::multihash::Multihash<64> = peer.as_ref();
    if mh.code() != 0 {
        return None;
    }
    let pk = libp2p::identity::PublicKey::try_decode_protobuf(mh.digest()).ok()?;
    Some(pk.try_into_ed25519().ok()?.to_bytes())
}

/// The peer id at the end of an address.
pub fn peer_of(addr: &Multiaddr) -> Option<PeerId> {
    addr.iter()
        .filter_map(|p| match p {
            Protocol::P2p(id) => Some(id),
            _ => None,
        })
        .last()
}

/// The relay of a relayed listen address (`…/p2p/<relay>/p2p-circuit`).
pub(super) fn relay_of(addr: &Multiaddr) -> Option<PeerId> {
    let mut relay = None;
    for p in addr.iter() {
        match p {
            Protocol::P2p(id) => relay = Some(id),
            Protocol::P2pCircuit => return relay,
            _ => {}
        }
    }
    None
}

/// An address with the peer id at its end, as the core keeps them.
pub(super) fn with_peer(addr: &Multiaddr, peer: PeerId) -> String {
    if matches!(addr.iter().last(), Some(Protocol::P2p(_))) {
        addr.to_string()
    } else {
        addr.clone().with(Protocol::P2p(peer)).to_string()
    }
}

/// The addresses of an introduction with the keys they end in (`None` for one that
/// names no key); the core judges how many there are.
pub(super) fn introduced(addrs: Vec<String>) -> Vec<Option<(crate::core::PeerKey, String)>> {
    addrs
        .into_iter()
        .map(|text| {
            let addr: Multiaddr = text.parse().ok()?;
            let key = key_of(&peer_of(&addr)?)?;
            Some((key, text))
        })
        .collect()
}

/// TCP or UDP, as a refused port is named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// TCP.
    Tcp,
    /// UDP (QUIC).
    Udp,
}

impl std::fmt::Display for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Transport::Tcp => "TCP",
            Transport::Udp => "UDP",
        })
    }
}

/// Why a listen address cannot be used: this machine's (another program holds the
/// port) or the address's (the system refuses it: not one of its own, a port kept for
/// root).
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// Another program listens there.
    #[error("{proto} port {port} is in use by another program (another sealed node?)")]
    InUse {
        /// TCP or UDP.
        proto: Transport,
        /// The port.
        port: u16,
    },
    /// The system refused to bind it, for another reason it gives.
    #[error("{proto} port {port}: {source}")]
    Refused {
        /// TCP or UDP.
        proto: Transport,
        /// The port.
        port: u16,
        /// What the system said.
        source: std::io::Error,
    },
}

/// Refuses a listen address whose port another program holds. libp2p listens with
/// SO_REUSEPORT (dials from the listening port are what hole punching needs), so a
/// second node on a busy port would start and take half the first one's connections;
/// a plain bind, without SO_REUSEPORT, fails on such a port.
pub fn probe(addr: &Multiaddr) -> Result<(), ProbeError> {
    if relay_of(addr).is_some() {
        return Ok(());
    }
    let mut ip: Option<std::net::IpAddr> = None;
    for p in addr.iter() {
        let busy = match (p, ip) {
            (Protocol::Ip4(a), _) => {
                ip = Some(a.into());
                None
            }
            (Protocol::Ip6(a), _) => {
                ip = Some(a.into());
                None
            }
            (Protocol::Tcp(port), Some(ip)) if port != 0 => std::net::TcpListener::bind((ip, port))
                .err()
                .map(|e| (Transport::Tcp, port, e)),
            (Protocol::Udp(port), Some(ip)) if port != 0 => std::net::UdpSocket::bind((ip, port))
                .err()
                .map(|e| (Transport::Udp, port, e)),
            _ => None,
        };
        if let Some((proto, port, source)) = busy {
            return Err(if source.kind() == std::io::ErrorKind::AddrInUse {
                ProbeError::InUse { proto, port }
            } else {
                ProbeError::Refused {
                    proto,
                    port,
                    source,
                }
            });
        }
    }
    Ok(())
}

/// An error with every cause under it: libp2p's transport errors say nothing
/// themselves (an address the system does not have is only in the cause).
pub(super) fn causes(e: &dyn std::error::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut next = e.source();
    while let Some(cause) = next {
        parts.push(cause.to_string());
        next = cause.source();
    }
    // libp2p nests its dial errors as lists ("Multiple dial errors occurred:\n - …")
    // that repeat at each level: one line, each reason once.
    let mut segments: Vec<String> = vec![];
    for p in parts {
        let flat = p
            .replace("Multiple dial errors occurred:", "")
            .replace("\n - ", " ")
            .replace('\n', " ");
        for seg in flat.split(": ").map(str::trim).filter(|s| !s.is_empty()) {
            if !segments.iter().any(|s| s == seg) {
                segments.push(seg.to_owned());
            }
        }
    }
    segments.join(": ")
}

/// A proposal's addresses read into keys and address strings.
pub(super) fn propose_args(args: ProposeArgs) -> Result<crate::core::ProposeArgs, NodeError> {
    let key = |addr: &Multiaddr, what: &str| -> Result<([u8; 32], Option<String>), NodeError> {
        let p = peer_of(addr).ok_or_else(|| {
            NodeError::Address(format!("the {what} address must end in /p2p/<peer id>"))
        })?;
        let k = key_of(&p).ok_or_else(|| {
            NodeError::Address(format!("the {what} peer id does not hold an Ed25519 key"))
        })?;
        // An address that is only `/p2p/<id>` says who, not where: the game then goes
        // through the mailbox alone.
        let at = addr
            .iter()
            .any(|x| !matches!(x, Protocol::P2p(_)))
            .then(|| with_peer(addr, p));
        Ok((k, at))
    };
    let opponent = key(&args.peer, "peer")?;
    // A mailbox or a witness is dialled by the seats: its address must say where.
    let located = |a: &Option<Multiaddr>, what: &str| -> Result<_, NodeError> {
        a.as_ref()
            .map(|m| match key(m, what)? {
                (k, Some(at)) => Ok((k, at)),
                (_, None) => Err(NodeError::Address(format!(
                    "the {what} address must say where it is"
                ))),
            })
            .transpose()
    };
    let mailbox = located(&args.mailbox, "mailbox")?;
    let referee = args
        .referee
        .as_ref()
        .map(|r| key(r, "referee"))
        .transpose()?;
    let witness = located(&args.witness, "witness")?;
    Ok(crate::core::ProposeArgs {
        variant: args.variant,
        options: args.options,
        opponent,
        mailbox,
        referee,
        witness,
        names: Default::default(),
    })
}
