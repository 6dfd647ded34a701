//! Where a connection comes from, as the budgets see it (ARCHITECTURE.md, *Budgets*),
//! and which addresses reach the internet. The shell reads a connection's remote
//! address into an [`Origin`] (`sealed_node::origin`); the core reads addresses as text,
//! the way peers and proposals give them.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Where a peer's connection comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Origin {
    /// What the budgets count by: `ip4/<address>`, `ip6/<first 64 bits>`,
    /// `relay/<relay peer id>`, or the address itself for anything else.
    pub key: String,
    /// Whether the address is on the internet (not loopback, private, link-local, …).
    pub global: bool,
}

impl Origin {
    /// Whether connections from here all come through a relay.
    pub fn relayed(&self) -> bool {
        self.key.starts_with("relay/")
    }

    /// The network the address is in, as the eviction of games held for strangers counts
    /// it (`held.rs`): an IPv4 /24 (`ip4/1.2.3/24`), an IPv6 /48 (`ip6/2a01:4f8:1/48`), or
    /// the key itself for anything else (a relay, an address that does not read). One
    /// operator rarely holds many of these, where keys and even addresses come cheap.
    pub fn group(&self) -> String {
        group_of(&self.key)
    }
}

/// [`Origin::group`] of an origin's key.
pub fn group_of(key: &str) -> String {
    if let Some(a) = key.strip_prefix("ip4/")
        && let Ok(a) = a.parse::<Ipv4Addr>()
    {
        let o = a.octets();
        return format!("ip4/{}.{}.{}/24", o[0], o[1], o[2]);
    }
    if let Some(a) = key.strip_prefix("ip6/") {
        let parts: Vec<Option<u16>> = a
            .split(':')
            .map(|p| u16::from_str_radix(p, 16).ok())
            .collect();
        if let [Some(a), Some(b), Some(c), Some(_)] = parts[..] {
            return format!("ip6/{a:x}:{b:x}:{c:x}/48");
        }
    }
    key.to_owned()
}

/// Whether an address, as text, reaches the internet: its first IP (a relayed
/// address's relay) is global; a DNS name counts as global; an address with neither, or
/// whose first IP does not read, does not. Only the address's parts that say where it
/// goes are read: one the shell cannot dial is refused there.
pub fn is_global_text(addr: &str) -> bool {
    let mut parts = addr.split('/');
    if parts.next() != Some("") {
        return false;
    }
    while let Some(name) = parts.next() {
        match name {
            "ip4" => {
                return parts
                    .next()
                    .and_then(|v| v.parse().ok())
                    .is_some_and(global_v4);
            }
            "ip6" => {
                return parts
                    .next()
                    .and_then(|v| v.parse().ok())
                    .is_some_and(global_v6);
            }
            "dns" | "dns4" | "dns6" | "dnsaddr" => {
                return parts.next().is_some_and(|v| !v.is_empty());
            }
            _ => {}
        }
    }
    false
}

/// Whether an IPv4 address is global.
pub fn global_v4(a: Ipv4Addr) -> bool {
    let o = a.octets();
    !(a.is_private()
        || a.is_loopback()
        || a.is_link_local()
        || a.is_unspecified()
        || a.is_broadcast()
        || a.is_documentation()
        || a.is_multicast()
        // 100.64.0.0/10, carrier-grade NAT; 0.0.0.0/8; 192.0.0.0/24; 198.18.0.0/15;
        // 240.0.0.0/4.
        || (o[0] == 100 && (o[1] & 0xc0) == 64)
        || o[0] == 0
        || (o[0] == 192 && o[1] == 0 && o[2] == 0)
        || (o[0] == 198 && (o[1] & 0xfe) == 18)
        || o[0] >= 240)
}

/// Whether an IPv6 address is global (an IPv4-mapped one as its IPv4 address).
pub fn global_v6(a: Ipv6Addr) -> bool {
    if let Some(v4) = a.to_ipv4_mapped() {
        return global_v4(v4);
    }
    let s = a.segments();
    !(a.is_loopback()
        || a.is_unspecified()
        || a.is_multicast()
        // fc00::/7 unique local, fe80::/10 link-local, 2001:db8::/32 documentation.
        || (s[0] & 0xfe00) == 0xfc00
        || (s[0] & 0xffc0) == 0xfe80
        || (s[0] == 0x2001 && s[1] == 0x0db8))
}

/// Whether an IP address is global (for the relay's budgets, which see IPs).
pub fn ip_is_global(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(a) => global_v4(a),
        IpAddr::V6(a) => global_v6(a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_is_a_slash_24_or_a_slash_48() {
        let o = |key: &str| Origin {
            key: key.into(),
            global: true,
        };
        assert_eq!(o("ip4/1.2.3.4").group(), "ip4/1.2.3/24");
        assert_eq!(o("ip4/1.2.3.4").group(), o("ip4/1.2.3.200").group());
        assert_ne!(o("ip4/1.2.3.4").group(), o("ip4/1.2.4.4").group());
        assert_eq!(
            o("ip6/2a01:4f8:1:2").group(),
            o("ip6/2a01:4f8:1:ff").group()
        );
        assert_eq!(o("ip6/2a01:4f8:1:2").group(), "ip6/2a01:4f8:1/48");
        assert_eq!(o("relay/12D3KooW").group(), "relay/12D3KooW");
        assert_eq!(o("ip4/1.2.3").group(), "ip4/1.2.3");
        assert_eq!(o("ip6/2a01:4f8:1").group(), "ip6/2a01:4f8:1");
        assert_eq!(o("/unix/x").group(), "/unix/x");
    }

    #[test]
    fn an_address_is_global_by_its_first_ip_or_a_name() {
        assert!(is_global_text("/ip4/1.2.3.4/tcp/5"));
        assert!(is_global_text("/dns4/example.org/tcp/1"));
        assert!(is_global_text("/ip6/2a01:4f8:1:2::1/udp/1/quic-v1"));
        assert!(!is_global_text("/ip4/127.0.0.2/tcp/1"));
        assert!(!is_global_text("/ip4/10.1.0.2/tcp/1"));
        assert!(!is_global_text("/ip4/100.64.1.1/tcp/1"));
        assert!(!is_global_text("/ip6/fd00::1/tcp/1"));
        assert!(!is_global_text("/ip4/999.1.1.1/tcp/1"));
        assert!(!is_global_text("/sim/00"));
        assert!(!is_global_text("not an address"));
        assert!(!is_global_text(""));
    }
}
