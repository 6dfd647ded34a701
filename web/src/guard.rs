//! The door of `gate.rs` on every request, the deadline and cap on every body, and the
//! headers on every answer.
//!
//! What needs no session: the page, its scripts and its style (the same bytes for
//! everyone, inside the binary, holding no secret and no game) and the login itself
//! (which needs its token). Everything under `/api/` — every game, every change, the
//! live stream — needs the session header, and a change needs the board's own Origin.
//!
//! The live stream is read with fetch, so it carries the header like every other
//! request; every answer gets the content security policy.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::api::App;
use crate::gate::{Refusal, Save};

/// The page may run only its own scripts and style, load only from the board, and be
/// framed by nobody; nothing it shows comes from elsewhere.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The largest request body taken: a move's text, a proposal's terms.
pub(crate) const MAX_BODY: usize = 64 * 1024;

/// Lets a request through only with the board's own Host and, for the API, no foreign
/// Origin and a live session.
pub(crate) async fn door(State(app): State<App>, req: Request, next: Next) -> Response {
    let h = req.headers();
    let get = |name: header::HeaderName| h.get(name).and_then(|v| v.to_str().ok());
    let changes = !matches!(*req.method(), Method::GET | Method::HEAD);
    let api = req.uri().path().starts_with("/api/");
    let check = {
        let mut gate = app.gate.lock().unwrap_or_else(|p| p.into_inner());
        // One Host, ours: a request naming two (browsers never send one) is not ours
        // because its first is; it is judged as naming none, and refused.
        let one = h.get_all(header::HOST).iter().count() == 1;
        let host = one.then(|| get(header::HOST)).flatten();
        let r = gate.host(host).and_then(|()| {
            if !api {
                return Ok(Save::No);
            }
            gate.origin(get(header::ORIGIN), changes)?;
            gate.admits(get(header::AUTHORIZATION), crate::now_ms())
        });
        // A session that ended is forgotten on disk too.
        if matches!(r, Ok(Save::Yes) | Err(Refusal::IdleSession)) {
            app.save(&mut gate);
        }
        r
    };
    match check {
        Ok(_) => {
            // A live session came on this connection: the player's, never ended to
            // make room (`serve.rs`).
            if api && let Some(conn) = req.extensions().get::<crate::serve::Conn>() {
                conn.trust();
            }
            next.run(req).await
        }
        Err(r) => refuse(&app, r),
    }
}

/// A refusal as an answer: 401 when signing in again helps, 403 otherwise, saying why
/// and, where it helps, exactly what to run.
pub(crate) fn refuse(app: &App, r: Refusal) -> Response {
    let (status, text) = match r {
        Refusal::ForeignHost | Refusal::ForeignOrigin => (StatusCode::FORBIDDEN, r.to_string()),
        _ => (
            if r.signs_out() {
                StatusCode::UNAUTHORIZED
            } else {
                StatusCode::FORBIDDEN
            },
            format!("{r}: run `{}` for a new login address", app.again),
        ),
    };
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        text,
    )
        .into_response()
}

/// Reads the whole body, at most [`MAX_BODY`] bytes and within the body's deadline,
/// before the handler runs: a client that sends its body a byte a minute is answered
/// 408 and closed, not held.
pub(crate) async fn body(State(app): State<App>, req: Request, next: Next) -> Response {
    let said = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if said.is_some_and(|n| n > MAX_BODY as u64) {
        return too(
            StatusCode::PAYLOAD_TOO_LARGE,
            "the request's body is too large",
        );
    }
    let (parts, body) = req.into_parts();
    let read = tokio::time::timeout(app.limits.body, axum::body::to_bytes(body, MAX_BODY)).await;
    match read {
        Ok(Ok(bytes)) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Ok(Err(_)) => too(
            StatusCode::PAYLOAD_TOO_LARGE,
            "the request's body is too large, or broke off",
        ),
        Err(_) => too(
            StatusCode::REQUEST_TIMEOUT,
            "the request's body did not arrive in time",
        ),
    }
}

/// An answer that also closes the connection (what is left of the body is not read).
fn too(status: StatusCode, why: &'static str) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::CONNECTION, "close"),
        ],
        why,
    )
        .into_response()
}

/// The headers every answer carries: the content policy, no sniffing, no referrer (the
/// login address must not travel), no framing, and nothing cached but the assets.
pub(crate) async fn headers(mut res: Response) -> Response {
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    res
}
