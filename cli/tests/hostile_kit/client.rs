//! The stranger: a libp2p client of its own (not a `sealed node`) that speaks the sync
//! protocol, and the rest of what a node exposes to the internet (rendezvous, the
//! relay), as anyone could write it. Each has its own key: keys cost nothing.

use std::io;
use std::time::Duration;

use futures::{AsyncWriteExt, StreamExt};
use libp2p::request_response::{self, Codec, OutboundRequestId, ProtocolSupport};
use libp2p::swarm::{NetworkBehaviour, SwarmEvent};
use libp2p::{Multiaddr, PeerId, StreamProtocol, Swarm, noise, rendezvous, tcp, yamux};
use sealed_node::lookup::{self, LookupCodec};
use sealed_node::sync::{PROTOCOL, Request, Response, SyncCodec};

/// A request that is only a promise: a length prefix (and perhaps the start of a body)
/// and then nothing, the stream held open.
#[derive(Clone, Copy, Debug)]
pub struct Promise {
    /// The length the prefix claims.
    pub claimed: u32,
    /// How many bytes of the body are really sent.
    pub sent: u32,
}

/// Writes [`Promise`]s on the sync protocol and waits for ever.
#[derive(Clone, Copy, Debug, Default)]
pub struct PromiseCodec;

impl Codec for PromiseCodec {
    type Protocol = StreamProtocol;
    type Request = Promise;
    type Response = ();

    async fn read_request<T>(&mut self, _: &StreamProtocol, _: &mut T) -> io::Result<Promise>
    where
        T: futures::AsyncRead + Unpin + Send,
    {
        Err(io::ErrorKind::Unsupported.into())
    }

    async fn read_response<T>(&mut self, _: &StreamProtocol, _: &mut T) -> io::Result<()>
    where
        T: futures::AsyncRead + Unpin + Send,
    {
        futures::future::pending().await
    }

    async fn write_request<T>(
        &mut self,
        _: &StreamProtocol,
        io: &mut T,
        p: Promise,
    ) -> io::Result<()>
    where
        T: futures::AsyncWrite + Unpin + Send,
    {
        io.write_all(&p.claimed.to_le_bytes()).await?;
        let chunk = vec![0u8; 64 * 1024];
        let mut left = p.sent as usize;
        while left > 0 {
            let n = left.min(chunk.len());
            io.write_all(&chunk[..n]).await?;
            left -= n;
        }
        io.flush().await?;
        futures::future::pending().await
    }

    async fn write_response<T>(&mut self, _: &StreamProtocol, _: &mut T, _: ()) -> io::Result<()>
    where
        T: futures::AsyncWrite + Unpin + Send,
    {
        Ok(())
    }
}

mod behaviour {
    #![allow(missing_docs)]
    use super::*;

    /// What a stranger runs.
    #[derive(NetworkBehaviour)]
    pub struct Stranger {
        pub sync: request_response::Behaviour<SyncCodec>,
        pub promise: request_response::Behaviour<PromiseCodec>,
        pub rendezvous: rendezvous::client::Behaviour,
        pub lookup: request_response::Behaviour<LookupCodec>,
        pub relay: libp2p::relay::client::Behaviour,
        pub identify: libp2p::identify::Behaviour,
        /// The sync protocol's long-lived streams (`/sealed/sync-stream/1`), as real
        /// nodes speak it; a stranger that accepts none is sent requests by
        /// request-response, as an older node is.
        pub stream: libp2p_stream::Behaviour,
    }
}

pub use behaviour::{Stranger as Behaviour, StrangerEvent as Event};

/// A stranger on the network.
pub struct Stranger {
    pub swarm: Swarm<Behaviour>,
    /// Its Ed25519 seed (the seat key it signs with).
    pub seed: [u8; 32],
    /// Connections it has established so far.
    pub established: usize,
    /// Of which through a relay.
    pub circuits: usize,
}

/// TCP dials from a source address of our choosing: libp2p's own TCP transport binds
/// its dials to the unspecified address (the kernel then picks 127.0.0.1 on loopback),
/// and a stranger must come from an address of its own for the budgets kept per
/// address to see it as one. It only dials; listening is libp2p's.
pub struct Bound(pub std::net::Ipv4Addr);

impl libp2p::core::Transport for Bound {
    type Output = libp2p::tcp::tokio::TcpStream;
    type Error = io::Error;
    type ListenerUpgrade = futures::future::Pending<Result<Self::Output, Self::Error>>;
    type Dial = futures::future::BoxFuture<'static, Result<Self::Output, Self::Error>>;

    fn listen_on(
        &mut self,
        _: libp2p::core::transport::ListenerId,
        addr: Multiaddr,
    ) -> Result<(), libp2p::core::transport::TransportError<io::Error>> {
        Err(libp2p::core::transport::TransportError::MultiaddrNotSupported(addr))
    }

    fn remove_listener(&mut self, _: libp2p::core::transport::ListenerId) -> bool {
        false
    }

    fn dial(
        &mut self,
        addr: Multiaddr,
        _: libp2p::core::transport::DialOpts,
    ) -> Result<Self::Dial, libp2p::core::transport::TransportError<io::Error>> {
        use futures::FutureExt;
        use libp2p::multiaddr::Protocol;
        let mut parts = addr.iter();
        let (Some(Protocol::Ip4(ip)), Some(Protocol::Tcp(port))) = (parts.next(), parts.next())
        else {
            return Err(libp2p::core::transport::TransportError::MultiaddrNotSupported(addr));
        };
        if parts.any(|p| !matches!(p, Protocol::P2p(_))) {
            return Err(libp2p::core::transport::TransportError::MultiaddrNotSupported(addr));
        }
        let src = self.0;
        Ok(async move {
            let s = tokio::net::TcpSocket::new_v4()?;
            s.bind((src, 0).into())?;
            let stream = s.connect((ip, port).into()).await?;
            stream.set_nodelay(true)?;
            Ok(libp2p::tcp::tokio::TcpStream(stream))
        }
        .boxed())
    }

    fn poll(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<libp2p::core::transport::TransportEvent<Self::ListenerUpgrade, Self::Error>>
    {
        std::task::Poll::Pending
    }
}

/// Builds a stranger with this seed, dialling from and listening on `ip`.
pub fn stranger(seed: [u8; 32], ip: &str) -> Stranger {
    use libp2p::core::Transport as _;
    let key = sealed_node::net::keypair(&seed);
    let source: std::net::Ipv4Addr = ip.parse().expect("an IPv4 address");
    let mut swarm = libp2p::SwarmBuilder::with_existing_identity(key)
        .with_tokio()
        .with_other_transport(|key| {
            Ok::<_, Box<dyn std::error::Error + Send + Sync>>(
                libp2p::core::transport::OrTransport::new(
                    Bound(source),
                    tcp::tokio::Transport::new(tcp::Config::default().nodelay(true)),
                )
                .upgrade(libp2p::core::upgrade::Version::V1)
                .authenticate(noise::Config::new(key)?)
                .multiplex(yamux::Config::default()),
            )
        })
        .expect("tcp from the stranger's address")
        .with_relay_client(noise::Config::new, yamux::Config::default)
        .expect("relay client")
        .with_behaviour(|key, relay| Behaviour {
            sync: request_response::Behaviour::with_codec(
                SyncCodec::default(),
                [(PROTOCOL, ProtocolSupport::Full)],
                request_response::Config::default()
                    .with_request_timeout(Duration::from_secs(60))
                    .with_max_concurrent_streams(10_000),
            ),
            promise: request_response::Behaviour::with_codec(
                PromiseCodec,
                [(PROTOCOL, ProtocolSupport::Outbound)],
                request_response::Config::default()
                    .with_request_timeout(Duration::from_secs(600))
                    .with_max_concurrent_streams(10_000),
            ),
            rendezvous: rendezvous::client::Behaviour::new(key.clone()),
            lookup: request_response::Behaviour::with_codec(
                LookupCodec,
                [(lookup::PROTOCOL, ProtocolSupport::Outbound)],
                request_response::Config::default(),
            ),
            relay,
            identify: libp2p::identify::Behaviour::new(libp2p::identify::Config::new(
                "/sealed/1".into(),
                key.public(),
            )),
            stream: libp2p_stream::Behaviour::new(),
        })
        .expect("behaviour")
        .with_swarm_config(|c| c.with_idle_connection_timeout(Duration::from_secs(600)))
        .build();
    swarm
        .listen_on(format!("/ip4/{ip}/tcp/0").parse().expect("an address"))
        .expect("listens");
    Stranger {
        swarm,
        seed,
        established: 0,
        circuits: 0,
    }
}

/// A member of a crowd: a libp2p client from `ip` that only holds connections (Noise
/// and yamux, no protocol of its own), for attacks that count connections, not requests.
/// Each [`dial_again`] opens one more connection to the same peer.
pub fn bare(seed: [u8; 32], ip: &str) -> Swarm<libp2p::swarm::dummy::Behaviour> {
    use libp2p::core::Transport as _;
    let source: std::net::Ipv4Addr = ip.parse().expect("an IPv4 address");
    libp2p::SwarmBuilder::with_existing_identity(sealed_node::net::keypair(&seed))
        .with_tokio()
        .with_other_transport(|key| {
            Ok::<_, Box<dyn std::error::Error + Send + Sync>>(
                Bound(source)
                    .upgrade(libp2p::core::upgrade::Version::V1)
                    .authenticate(noise::Config::new(key)?)
                    .multiplex(yamux::Config::default()),
            )
        })
        .expect("tcp from the member's address")
        .with_behaviour(|_| libp2p::swarm::dummy::Behaviour)
        .expect("behaviour")
        .with_swarm_config(|c| c.with_idle_connection_timeout(Duration::from_secs(600)))
        .build()
}

/// Dials `addr` (ending in `/p2p/<peer id>`) once more, connected or not.
pub fn dial_again<B: NetworkBehaviour>(swarm: &mut Swarm<B>, addr: &Multiaddr) {
    use libp2p::swarm::dial_opts::{DialOpts, PeerCondition};
    let _ = swarm.dial(
        DialOpts::peer_id(peer_of(addr))
            .addresses(vec![addr.clone()])
            .condition(PeerCondition::Always)
            .build(),
    );
}

/// The peer id at the end of an address.
pub fn peer_of(addr: &Multiaddr) -> PeerId {
    addr.iter()
        .filter_map(|p| match p {
            libp2p::multiaddr::Protocol::P2p(id) => Some(id),
            _ => None,
        })
        .last()
        .expect("an address that ends in /p2p/<peer id>")
}

impl Stranger {
    /// The stranger's peer id.
    pub fn id(&self) -> PeerId {
        *self.swarm.local_peer_id()
    }

    /// Polls the swarm for `d`, answering nothing.
    pub async fn idle(&mut self, d: Duration) {
        let end = tokio::time::Instant::now() + d;
        while let Ok(ev) = tokio::time::timeout_at(end, self.swarm.select_next_some()).await {
            self.other(ev);
        }
    }

    /// Connects to `addr`; the peer id, or why not.
    pub async fn connect(&mut self, addr: &str) -> Result<PeerId, String> {
        let addr: Multiaddr = addr.parse().map_err(|e| format!("{e}"))?;
        let peer = peer_of(&addr);
        if self.swarm.is_connected(&peer) {
            return Ok(peer);
        }
        self.swarm.add_peer_address(peer, addr.clone());
        self.swarm.dial(addr).map_err(|e| e.to_string())?;
        let end = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            match tokio::time::timeout_at(end, self.swarm.select_next_some()).await {
                Err(_) => return Err("no connection within 20 s".into()),
                Ok(SwarmEvent::ConnectionEstablished { peer_id, .. }) if peer_id == peer => {
                    return Ok(peer);
                }
                Ok(SwarmEvent::OutgoingConnectionError { peer_id, error, .. })
                    if peer_id == Some(peer) =>
                {
                    return Err(error.to_string());
                }
                Ok(ev) => self.other(ev),
            }
        }
    }

    /// Sends requests to `peer` at once and waits for every answer (or failure).
    pub async fn ask_all(
        &mut self,
        peer: PeerId,
        reqs: Vec<Request>,
    ) -> Vec<Result<Response, String>> {
        let ids: Vec<OutboundRequestId> = reqs
            .into_iter()
            .map(|r| {
                self.swarm
                    .behaviour_mut()
                    .sync
                    .send_request(&peer, r.into())
            })
            .collect();
        let mut out: Vec<Option<Result<Response, String>>> = vec![None; ids.len()];
        let end = tokio::time::Instant::now() + Duration::from_secs(120);
        while out.iter().any(Option::is_none) {
            let ev = match tokio::time::timeout_at(end, self.swarm.select_next_some()).await {
                Ok(ev) => ev,
                Err(_) => break,
            };
            match ev {
                SwarmEvent::Behaviour(Event::Sync(request_response::Event::Message {
                    message:
                        request_response::Message::Response {
                            request_id,
                            response,
                        },
                    ..
                })) => {
                    if let Some(i) = ids.iter().position(|id| *id == request_id) {
                        out[i] = Some(Ok(response.into_inner()));
                    }
                }
                SwarmEvent::Behaviour(Event::Sync(request_response::Event::OutboundFailure {
                    request_id,
                    error,
                    ..
                })) => {
                    if let Some(i) = ids.iter().position(|id| *id == request_id) {
                        out[i] = Some(Err(error.to_string()));
                    }
                }
                ev => self.other(ev),
            }
        }
        out.into_iter()
            .map(|o| o.unwrap_or_else(|| Err("no answer within 120 s".into())))
            .collect()
    }

    /// One request, one answer.
    pub async fn ask(&mut self, peer: PeerId, req: Request) -> Result<Response, String> {
        self.ask_all(peer, vec![req])
            .await
            .pop()
            .expect("one answer")
    }

    /// Opens `n` streams to `peer`, each carrying only `p`, and polls until they are
    /// all written (or `d` passed).
    pub async fn promise(&mut self, peer: PeerId, p: Promise, n: usize, d: Duration) {
        for _ in 0..n {
            self.swarm.behaviour_mut().promise.send_request(&peer, p);
        }
        self.idle(d).await;
    }

    /// Registers its own record at a node's lookup (as any peer may).
    pub async fn register_lookup(&mut self, point: PeerId) -> Result<(), String> {
        let addrs: Vec<Multiaddr> = self
            .swarm
            .listeners()
            .map(|a| a.clone().with(libp2p::multiaddr::Protocol::P2p(self.id())))
            .collect();
        let key = sealed_node::net::keypair(&self.seed);
        let record = lookup::make_record(&key, addrs).ok_or("no record")?;
        let id = self
            .swarm
            .behaviour_mut()
            .lookup
            .send_request(&point, lookup::Request::Register { record });
        let end = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            match tokio::time::timeout_at(end, self.swarm.select_next_some()).await {
                Err(_) => return Err("no answer within 10 s".into()),
                Ok(SwarmEvent::Behaviour(Event::Lookup(request_response::Event::Message {
                    message:
                        request_response::Message::Response {
                            request_id,
                            response,
                        },
                    ..
                }))) if request_id == id => {
                    return match response {
                        lookup::Response::Registered { .. } => Ok(()),
                        other => Err(format!("{other:?}")),
                    };
                }
                Ok(SwarmEvent::Behaviour(Event::Lookup(
                    request_response::Event::OutboundFailure {
                        request_id, error, ..
                    },
                ))) if request_id == id => return Err(error.to_string()),
                Ok(ev) => self.other(ev),
            }
        }
    }

    /// Registers at a rendezvous point under someone else's namespace.
    pub async fn register_as(&mut self, point: PeerId, namespace: &str) -> Result<(), String> {
        let ns = rendezvous::Namespace::new(namespace.to_owned()).map_err(|e| e.to_string())?;
        let listening: Vec<Multiaddr> = self.swarm.listeners().cloned().collect();
        for a in listening {
            self.swarm.add_external_address(a);
        }
        self.swarm
            .behaviour_mut()
            .rendezvous
            .register(ns, point, None)
            .map_err(|e| e.to_string())?;
        let end = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            match tokio::time::timeout_at(end, self.swarm.select_next_some()).await {
                Err(_) => return Err("no answer within 10 s".into()),
                Ok(SwarmEvent::Behaviour(Event::Rendezvous(
                    rendezvous::client::Event::Registered { .. },
                ))) => return Ok(()),
                Ok(SwarmEvent::Behaviour(Event::Rendezvous(
                    rendezvous::client::Event::RegisterFailed { error, .. },
                ))) => return Err(format!("{error:?}")),
                Ok(ev) => self.other(ev),
            }
        }
    }

    /// Whatever else happens: a stranger answers requests with a refusal (a mailbox
    /// of its own is `mailbox.rs`).
    fn other(&mut self, ev: SwarmEvent<Event>) {
        if let SwarmEvent::ConnectionEstablished { endpoint, .. } = &ev {
            self.established += 1;
            let relayed = endpoint
                .get_remote_address()
                .iter()
                .any(|p| matches!(p, libp2p::multiaddr::Protocol::P2pCircuit));
            if relayed {
                self.circuits += 1;
            }
        }
        if let SwarmEvent::Behaviour(Event::Sync(request_response::Event::Message {
            message: request_response::Message::Request { channel, .. },
            ..
        })) = ev
        {
            let _ = self
                .swarm
                .behaviour_mut()
                .sync
                .send_response(channel, Response::Refused("a stranger".into()).into());
        }
    }

    /// Keeps the swarm running (its streams and connections held) until aborted.
    pub fn run(mut self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                let ev = self.swarm.select_next_some().await;
                self.other(ev);
            }
        })
    }
}
