//! The transport's floor on this machine, measured in the same run as the load: what
//! libp2p itself (TCP on loopback, noise, yamux, one long-lived `libp2p-stream` stream,
//! as the sync protocol uses) costs to carry one frame in and one frame out, with
//! nothing of sealed's above it. Two swarms in this process, one asking and one
//! echoing, one frame in flight at a time as a player's moves are; the CPU of both ends
//! together per round trip, halved, is one end's.
//!
//! A public node carries three such round trips for each envelope it relays and dates
//! (the seat's push and its answer, the seat's ask of its witness and the ledger, the
//! relay to the other seat and its answer), so three of these beside the signatures'
//! floor say how much of the node's CPU per envelope no work of sealed's can remove
//! while each message is a frame of its own on its player's connection.

use std::time::Duration;

use futures::{AsyncReadExt as _, AsyncWriteExt as _, StreamExt as _};
use libp2p::swarm::SwarmEvent;
use libp2p::{Multiaddr, StreamProtocol, Swarm};

const ECHO: StreamProtocol = StreamProtocol::new("/sealed-load/echo/1");

fn swarm(seed: u8) -> Swarm<libp2p_stream::Behaviour> {
    use libp2p::{noise, tcp, yamux};
    libp2p::SwarmBuilder::with_existing_identity(sealed_node::net::keypair(&[seed; 32]))
        .with_tokio()
        .with_tcp(
            tcp::Config::default().nodelay(true),
            noise::Config::new,
            yamux::Config::default,
        )
        .expect("tcp")
        .with_behaviour(|_| libp2p_stream::Behaviour::new())
        .expect("behaviour")
        .with_swarm_config(|c| c.with_idle_connection_timeout(Duration::from_secs(60)))
        .build()
}

/// This process's CPU seconds (user and system), from `/proc/self/stat`.
fn own_cpu() -> f64 {
    crate::hostile_kit::cpu_seconds("self")
}

/// One end's CPU for a frame of `size` bytes in and one out, over `trips` round trips
/// (after a few hundred to warm up), on a runtime of two threads as the node's.
pub fn floor(trips: u32, size: usize) -> Duration {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let cpu = rt.block_on(async {
        let mut a = swarm(0x71);
        a.listen_on("/ip4/127.0.0.1/tcp/0".parse().expect("an address"))
            .expect("listen");
        let at: Multiaddr = loop {
            if let SwarmEvent::NewListenAddr { address, .. } = a.select_next_some().await {
                break address;
            }
        };
        let mut incoming = a
            .behaviour()
            .new_control()
            .accept(ECHO)
            .expect("echo accepted once");
        let a_id = *a.local_peer_id();
        let mut b = swarm(0x72);
        b.dial(at).expect("dial");
        let mut control = b.behaviour().new_control();
        tokio::spawn(async move { while a.next().await.is_some() {} });
        tokio::spawn(async move { while b.next().await.is_some() {} });
        tokio::spawn(async move {
            while let Some((_, mut s)) = incoming.next().await {
                tokio::spawn(async move {
                    let mut buf = vec![0u8; size];
                    while s.read_exact(&mut buf).await.is_ok() {
                        if s.write_all(&buf).await.is_err() || s.flush().await.is_err() {
                            break;
                        }
                    }
                });
            }
        });
        let mut s = loop {
            match control.open_stream(a_id, ECHO).await {
                Ok(s) => break s,
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        };
        let mut frame = vec![0x5au8; size];
        let mut cpu0 = 0.0;
        for i in 0..300 + trips {
            if i == 300 {
                cpu0 = own_cpu();
            }
            s.write_all(&frame).await.expect("written");
            s.flush().await.expect("flushed");
            s.read_exact(&mut frame).await.expect("echoed");
        }
        own_cpu() - cpu0
    });
    rt.shutdown_timeout(Duration::from_secs(1));
    Duration::from_secs_f64(cpu / trips.max(1) as f64 / 2.0)
}
