//! The connections: accepted one by one, each served by hyper's HTTP/1.1 with a
//! deadline on every request head (which also ends an idle kept-alive connection), at
//! most [`Limits::connections`] at once. `axum::serve` sets no deadline at all: a
//! thousand connections that never finish their headers were all still held minutes
//! later. The body's deadline is a middleware (`guard::body`), since hyper reads a body
//! only as the handler asks for it.
//!
//! A newcomer past the cap is closed at once. `web/tests/bounds.rs` sends slow heads, a
//! body that never finishes, and one connection past the cap.

use std::sync::Arc;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};

use crate::Limits;

/// How long the loop rests after `accept` fails (out of file descriptors, say), so as
/// not to spin.
const ACCEPT_PAUSE: std::time::Duration = std::time::Duration::from_millis(50);

/// Serves every connection of `listener` until `stop` says so.
pub(crate) async fn connections(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    mut stop: watch::Receiver<bool>,
) {
    let slots = Arc::new(Semaphore::new(limits.connections));
    loop {
        let accepted = tokio::select! {
            _ = stop.wait_for(|s| *s) => return,
            a = listener.accept() => a,
        };
        let socket = match accepted {
            Ok((socket, _)) => socket,
            Err(e) => {
                tracing::warn!("the board could not accept a connection: {e}");
                tokio::time::sleep(ACCEPT_PAUSE).await;
                continue;
            }
        };
        // Past the cap, the newcomer is closed at once rather than left waiting in the
        // kernel's queue, which would hold it without bound.
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            tracing::warn!(
                "the board holds {} connections: one more is closed",
                limits.connections
            );
            drop(socket);
            continue;
        };
        let service = TowerToHyperService::new(app.clone());
        let mut stop = stop.clone();
        tokio::spawn(async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header)
                .serve_connection(TokioIo::new(socket), service);
            tokio::select! {
                r = conn => {
                    if let Err(e) = r {
                        tracing::debug!("a board connection ended: {e}");
                    }
                }
                _ = stop.wait_for(|s| *s) => {}
            }
            drop(slot);
        });
    }
}
