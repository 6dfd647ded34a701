//! Addresses and peer ids as the shell reads them for the core (which knows keys, not
//! libp2p's types), the probe of a listen port, and errors with every cause.

use libp2p::multiaddr::Protocol;
use libp2p::{Multiaddr, PeerId};

use super::ProposeArgs;
use crate::core::NodeError;

/// The Ed25519 key a peer id names.
pub fn key_of(peer: &PeerId) -> Option<crate::core::PeerKey> {
    let mh: &libp2p::multihash::Multihash<64> = peer.as_ref();
    if mh.code() != 0 {
        return None;
    }
    let pk = libp2p::identity::PublicKey::try_decode_protobuf(mh.digest()).ok()?;
    Some(pk.try_into_ed25519().ok()?.to_bytes().into())
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

/// Reads what a person gave for a peer (`sealed new --peer`, `--referee`…): a peer id
/// alone, or an address. `what` names the part ("peer", "mailbox"…). A text that is
/// neither is refused with what a peer id and an address look like, and how far off it
/// is: the person mistyped it or copied it in part.
pub fn read_peer(what: &str, text: &str) -> Result<Multiaddr, NodeError> {
    if let Ok(id) = text.parse::<PeerId>() {
        return Ok(Multiaddr::empty().with(Protocol::P2p(id)));
    }
    text.parse::<Multiaddr>()
        .map_err(|e| NodeError::Address(unreadable(what, text, &e)))
}

/// Reads the address of a point kept connected (a mailbox, a rendezvous point, a
/// relay): it must say where the point is and end in the point's peer id. Refused with
/// the reason when it is set, not when the node starts.
pub fn read_point(what: &str, text: &str) -> Result<Multiaddr, NodeError> {
    let addr = text
        .parse::<Multiaddr>()
        .map_err(|e| NodeError::Address(unreadable(what, text, &e)))?;
    point(what, &addr)?;
    Ok(addr)
}

/// The key of a point's address, which must say where the point is and whose.
pub(crate) fn point(what: &str, addr: &Multiaddr) -> Result<crate::core::PeerKey, NodeError> {
    let bad = |why: String| NodeError::Address(format!("the {what} address {addr}: {why}"));
    let Some(peer) = peer_of(addr) else {
        return Err(bad(format!(
            "it says where the {what} is, not who: add /p2p/ and the {what}'s peer id, \
             as its node prints it on its `listening` lines"
        )));
    };
    let key = key_of(&peer)
        .ok_or_else(|| bad("its peer id holds no Ed25519 key: it is not a sealed node's".into()))?;
    if addr.iter().all(|p| matches!(p, Protocol::P2p(_))) {
        return Err(bad(format!(
            "it says who the {what} is, not where: give the whole `listening` line its \
             node prints (/ip4/…/tcp/…/p2p/…)"
        )));
    }
    Ok(key)
}

/// Why a text is neither a peer id nor an address, in words.
fn unreadable(what: &str, text: &str, e: &libp2p::multiaddr::Error) -> String {
    const SHAPE: &str = "a peer id is the 52 characters `sealed init` and `sealed node` \
                         print (12D3KooW…); an address starts with /ip4/, /ip6/ or /dns/ \
                         and ends in /p2p/ and a peer id";
    let shown = crate::text::shown(text, 80);
    if text.starts_with('/') {
        format!("the {what} address {shown} does not read ({e}): {SHAPE}")
    } else if text.chars().count() == 52 && text.starts_with("12D3KooW") {
        format!(
            "the {what} {shown} is not a valid peer id, though it has a peer id's 52 \
             characters: one is mistyped (copy it again from where `sealed init` or \
             `sealed node` printed it)"
        )
    } else if text.starts_with("12D3Koo") || text.starts_with("Qm") {
        format!(
            "the {what} {shown} is not a whole peer id: it has {} characters where a \
             peer id has 52 (cut short or mistyped?); {SHAPE}",
            text.chars().count()
        )
    } else {
        format!("the {what} {shown} is neither a peer id nor an address: {SHAPE}")
    }
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
    let key = |addr: &Multiaddr,
               what: &str|
     -> Result<(crate::core::PeerKey, Option<String>), NodeError> {
        let p = peer_of(addr).ok_or_else(|| {
            NodeError::Address(format!(
                "the {what} address {addr} says where, not who: add /p2p/ and the \
                 {what}'s peer id, as its node prints it on its `listening` lines"
            ))
        })?;
        let k = key_of(&p).ok_or_else(|| {
            NodeError::Address(format!(
                "the {what} peer id {p} holds no Ed25519 key: it is not a sealed node's"
            ))
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
            .map(|m| {
                let k = point(what, m)?;
                Ok((
                    k,
                    peer_of(m).map_or_else(|| m.to_string(), |p| with_peer(m, p)),
                ))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn id() -> String {
        libp2p::identity::Keypair::generate_ed25519()
            .public()
            .to_peer_id()
            .to_string()
    }

    fn refused(r: Result<Multiaddr, NodeError>) -> String {
        r.expect_err("refused").to_string()
    }

    #[test]
    fn a_peer_given_wrong_is_refused_with_what_it_should_look_like() {
        let cut = refused(read_peer("peer", "12D3KooWbogus"));
        assert!(
            cut.starts_with("the peer \"12D3KooWbogus\" is not a whole peer id: it has 13 characters where a peer id has 52"),
            "{cut}"
        );
        // '0' is not in base58: one character mistyped in an id of the right length.
        let mut typo = id();
        typo.replace_range(20..21, "0");
        let said = refused(read_peer("peer", &typo));
        assert!(said.contains("one is mistyped"), "{said}");
        let said = refused(read_peer("referee", "bob"));
        assert!(
            said.starts_with("the referee \"bob\" is neither a peer id nor an address"),
            "{said}"
        );
        let said = refused(read_peer("peer", "/ip4/1.2.3.4/tcp/x"));
        assert!(
            said.starts_with("the peer address \"/ip4/1.2.3.4/tcp/x\" does not read"),
            "{said}"
        );
        // Escaped, and cut: what a terminal would act on is not echoed.
        let said = refused(read_peer("peer", &format!("\u{1b}[2J{}", "x".repeat(500))));
        assert!(!said.contains('\u{1b}') && said.len() < 600, "{said}");
        assert!(read_peer("peer", &id()).is_ok());
    }

    #[test]
    fn a_mailbox_must_say_where_and_whose() {
        let said = refused(read_point("mailbox", "/ip4/127.0.0.1/tcp/1"));
        assert!(
            said.contains("it says where the mailbox is, not who: add /p2p/"),
            "{said}"
        );
        let said = refused(read_point("mailbox", &format!("/p2p/{}", id())));
        assert!(
            said.contains("it says who the mailbox is, not where"),
            "{said}"
        );
        assert!(read_point("mailbox", &format!("/ip4/127.0.0.1/tcp/1/p2p/{}", id())).is_ok());
    }
}
