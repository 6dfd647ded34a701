//! The door of `gate.rs` on every request, and the headers on every answer.

use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::api::App;
use crate::gate::Refusal;

/// The page may run only its own script and style, load only from the board, and be
/// framed by nobody; nothing it shows comes from elsewhere.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Lets a request through only with the board's own Host, no foreign Origin, and (but
/// for the login itself) a live session.
pub(crate) async fn door(State(app): State<App>, req: Request, next: Next) -> Response {
    let h = req.headers();
    let get = |name: header::HeaderName| h.get(name).and_then(|v| v.to_str().ok());
    let changes = !matches!(*req.method(), Method::GET | Method::HEAD);
    let login = req.uri().path() == "/login";
    let check = {
        let gate = app.gate.lock().unwrap_or_else(|p| p.into_inner());
        gate.host(get(header::HOST))
            .and_then(|()| gate.origin(get(header::ORIGIN), changes))
            .and_then(|()| {
                if login {
                    Ok(())
                } else {
                    gate.admits(get(header::COOKIE))
                }
            })
    };
    match check {
        Ok(()) => next.run(req).await,
        Err(r) => refuse(r),
    }
}

/// A refusal as an answer: 401 without a session, 403 otherwise, saying why.
pub(crate) fn refuse(r: Refusal) -> Response {
    let status = match r {
        Refusal::NoSession => StatusCode::UNAUTHORIZED,
        _ => StatusCode::FORBIDDEN,
    };
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        r.to_string(),
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
