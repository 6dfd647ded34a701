//! A dial that does not fail for the port it borrowed.
//!
//! libp2p's TCP transport dials from the node's own listening port (`PortUse::Reuse`),
//! so that the peer sees an address it could dial back. When that port cannot be used
//! for this connection, it retries from a fresh port only for one error
//! (`AddrNotAvailable`, a connection with the same four addresses already open); any
//! other refusal of the borrowed port ends the dial. CI saw one: `sealed new --peer`
//! printed "Address already in use (os error 98)" for a peer that was up and listening
//! (`walk_away.rs`, one run in many), and the invitation waited for the next resend.
//! A borrowed port is a convenience, never a reason not to reach a peer, so this layer
//! dials again from a fresh port when the borrowed one is refused as in use.
//!
//! What it costs: a dial that borrows a port also makes a second socket, unconnected,
//! closed when the first attempt ends well (sockets are made at dial time, and the
//! transport cannot be reached from inside the dial's future).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::FutureExt as _;
use futures::future::BoxFuture;
use libp2p::Multiaddr;
use libp2p::core::Transport;
use libp2p::core::transport::{DialOpts, ListenerId, PortUse, TransportError, TransportEvent};

/// A TCP-like transport whose dials from a borrowed port fall back to a fresh port.
pub struct FreshPort<T>(pub T);

impl<T> Transport for FreshPort<T>
where
    T: Transport<Error = io::Error> + Unpin,
    T::Dial: Send + 'static,
    T::Output: Send + 'static,
{
    type Output = T::Output;
    type Error = io::Error;
    type ListenerUpgrade = T::ListenerUpgrade;
    type Dial = BoxFuture<'static, io::Result<T::Output>>;

    fn listen_on(
        &mut self,
        id: ListenerId,
        addr: Multiaddr,
    ) -> Result<(), TransportError<Self::Error>> {
        self.0.listen_on(id, addr)
    }

    fn remove_listener(&mut self, id: ListenerId) -> bool {
        self.0.remove_listener(id)
    }

    fn dial(
        &mut self,
        addr: Multiaddr,
        opts: DialOpts,
    ) -> Result<Self::Dial, TransportError<Self::Error>> {
        let first = self.0.dial(addr.clone(), opts)?;
        let fresh = DialOpts {
            port_use: PortUse::New,
            ..opts
        };
        // Only a dial that borrows a port has a fallback; if even the fresh socket
        // cannot be made, the first attempt stands alone.
        let second = (opts.port_use == PortUse::Reuse)
            .then(|| self.0.dial(addr, fresh).ok())
            .flatten();
        Ok(async move {
            match (first.await, second) {
                (Err(e), Some(second)) if e.kind() == io::ErrorKind::AddrInUse => {
                    tracing::debug!(
                        "the listening port was refused as in use; dialing from a fresh one"
                    );
                    second.await
                }
                (result, _) => result,
            }
        }
        .boxed())
    }

    fn poll(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<TransportEvent<Self::ListenerUpgrade, Self::Error>> {
        Pin::new(&mut self.0).poll(cx)
    }
}

#[cfg(test)]
mod tests {
    //! The fallback's decision, over a stand-in transport whose borrowed-port dials are
    //! refused as the kernel refused CI's (the real path runs in every node test).
    use super::*;
    use futures::future::{Ready, ready};
    use libp2p::core::Endpoint;

    /// Dials from a borrowed port fail with `error`; fresh ones succeed with `7`.
    struct Refusing {
        error: io::ErrorKind,
        dials: Vec<PortUse>,
    }

    impl Transport for Refusing {
        type Output = u8;
        type Error = io::Error;
        type ListenerUpgrade = Ready<io::Result<u8>>;
        type Dial = Ready<io::Result<u8>>;

        fn listen_on(
            &mut self,
            _: ListenerId,
            a: Multiaddr,
        ) -> Result<(), TransportError<io::Error>> {
            Err(TransportError::MultiaddrNotSupported(a))
        }
        fn remove_listener(&mut self, _: ListenerId) -> bool {
            false
        }
        fn dial(
            &mut self,
            _: Multiaddr,
            o: DialOpts,
        ) -> Result<Self::Dial, TransportError<io::Error>> {
            self.dials.push(o.port_use);
            Ok(ready(match o.port_use {
                PortUse::Reuse => Err(io::Error::from(self.error)),
                PortUse::New => Ok(7),
            }))
        }
        fn poll(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<TransportEvent<Self::ListenerUpgrade, io::Error>> {
            Poll::Pending
        }
    }

    fn dial(error: io::ErrorKind, port_use: PortUse) -> (io::Result<u8>, Vec<PortUse>) {
        let mut t = FreshPort(Refusing {
            error,
            dials: vec![],
        });
        let opts = DialOpts {
            role: Endpoint::Dialer,
            port_use,
        };
        let addr: Multiaddr = "/ip4/127.0.0.1/tcp/1".parse().expect("an address");
        let result = futures::executor::block_on(t.dial(addr, opts).expect("a dial"));
        (result, t.0.dials)
    }

    #[test]
    fn a_borrowed_port_refused_as_in_use_is_dialed_again_from_a_fresh_one() {
        let (result, dials) = dial(io::ErrorKind::AddrInUse, PortUse::Reuse);
        assert_eq!(result.expect("the fresh port connects"), 7);
        assert_eq!(dials, [PortUse::Reuse, PortUse::New]);
    }

    #[test]
    fn any_other_failure_is_the_dials_own() {
        let (result, _) = dial(io::ErrorKind::ConnectionRefused, PortUse::Reuse);
        assert_eq!(
            result.expect_err("refused").kind(),
            io::ErrorKind::ConnectionRefused
        );
    }

    #[test]
    fn a_dial_from_a_fresh_port_has_no_second_attempt() {
        let (result, dials) = dial(io::ErrorKind::AddrInUse, PortUse::New);
        assert_eq!(result.expect("connects"), 7);
        assert_eq!(dials, [PortUse::New]);
    }
}
