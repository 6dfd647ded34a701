//! Stable ports: a node asked to listen on any port (`/tcp/0`, `/udp/0/quic-v1`) takes
//! the port it had last time, kept in the home, so that peers who remember its address
//! still find it after a restart. A port now taken by another program is left alone
//! (probed first, as a busy `--listen` port is) and any port is taken.

use std::collections::BTreeMap;
use std::net::IpAddr;

use sealed_node::Multiaddr;
use sealed_node::multiaddr::Protocol;

/// `addr` with its port 0 replaced by the one kept for its transport, if that port is
/// free now.
pub fn stable(addr: Multiaddr, kept: &BTreeMap<String, u16>) -> Multiaddr {
    let mut ip: Option<IpAddr> = None;
    addr.iter()
        .map(|p| match p {
            Protocol::Ip4(a) => {
                ip = Some(a.into());
                p
            }
            Protocol::Ip6(a) => {
                ip = Some(a.into());
                p
            }
            Protocol::Tcp(0) => match (ip, kept.get("tcp")) {
                (Some(ip), Some(&port)) if free(ip, Protocol::Tcp(port)) => Protocol::Tcp(port),
                _ => p,
            },
            Protocol::Udp(0) => match (ip, kept.get("udp")) {
                (Some(ip), Some(&port)) if free(ip, Protocol::Udp(port)) => Protocol::Udp(port),
                _ => p,
            },
            other => other,
        })
        .collect()
}

/// Whether the port is free now, by the node's own probe (the one that refuses a busy
/// `--listen` port).
fn free(ip: IpAddr, port: Protocol<'static>) -> bool {
    sealed_node::shell::probe(&Multiaddr::from(ip).with(port)).is_ok()
}

/// The ports a node listens on, by transport, from the addresses it reports (relayed
/// addresses are the relay's, not ours).
pub fn listening(addrs: &[String]) -> BTreeMap<String, u16> {
    let mut out = BTreeMap::new();
    for a in addrs.iter().filter_map(|a| a.parse::<Multiaddr>().ok()) {
        if a.iter().any(|p| matches!(p, Protocol::P2pCircuit)) {
            continue;
        }
        for p in a.iter() {
            match p {
                Protocol::Tcp(port) => {
                    out.entry("tcp".to_owned()).or_insert(port);
                }
                Protocol::Udp(port) => {
                    out.entry("udp".to_owned()).or_insert(port);
                }
                _ => {}
            }
        }
    }
    out
}
