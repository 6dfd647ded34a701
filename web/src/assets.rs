//! The page, its scripts and its style: files of `assets/`, compiled into the binary, so
//! the board fetches nothing from anywhere but itself. The scripts are written by hand,
//! ES modules with no framework and no build step (`app.js` lists what each does).

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

const PAGE: &str = include_str!("../assets/index.html");

/// Every file served besides the page, by name: its type and its bytes.
const FILES: &[(&str, &str, &str)] = &[
    ("app.js", JS, include_str!("../assets/app.js")),
    ("session.js", JS, include_str!("../assets/session.js")),
    ("ui.js", JS, include_str!("../assets/ui.js")),
    ("lists.js", JS, include_str!("../assets/lists.js")),
    ("game.js", JS, include_str!("../assets/game.js")),
    ("board.js", JS, include_str!("../assets/board.js")),
    ("moves.js", JS, include_str!("../assets/moves.js")),
    ("steps.js", JS, include_str!("../assets/steps.js")),
    ("chess.js", JS, include_str!("../assets/chess.js")),
    ("physical.js", JS, include_str!("../assets/physical.js")),
    ("clocks.js", JS, include_str!("../assets/clocks.js")),
    ("signin.js", JS, include_str!("../assets/signin.js")),
    ("app.css", CSS, include_str!("../assets/app.css")),
];

const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";

pub(crate) async fn page() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], PAGE)
}

pub(crate) async fn file(Path(name): Path<String>) -> Response {
    match FILES.iter().find(|(n, _, _)| *n == name) {
        Some((_, kind, body)) => ([(header::CONTENT_TYPE, *kind)], *body).into_response(),
        None => (StatusCode::NOT_FOUND, "no such file").into_response(),
    }
}

/// Text for an HTML attribute value: the five characters that could end it or start
/// markup, escaped.
fn attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('\'', "&#39;")
}

/// The page a login answers with: the session for the board's script to keep in this
/// origin's storage (never a cookie, never in an address), and what to run for a new
/// login address; its script then goes to the games.
pub(crate) fn signin(session: &str, again: &str) -> Response {
    let html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"sealed-session\" content=\"{}\">\
         <meta name=\"sealed-again\" content=\"{}\">\
         <title>Signing in — sealed</title></head>\
         <body><main><p>Signing in…</p></main><script type=\"module\" src=\"/signin.js\"></script></body></html>\n",
        attr(session),
        attr(again)
    );
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_attribute_cannot_be_broken_out_of() {
        assert_eq!(super::attr(r#"a"b'<c>&"#), "a&quot;b&#39;&lt;c&gt;&amp;");
    }
}
