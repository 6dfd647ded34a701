//! The board's routes: the login, the page and its assets, the JSON API and the live
//! stream. Every game request is a control request answered as the control socket
//! answers it (`sealed_node::control::answer`).

use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Json, Response};
use axum::routing::{get, post};
use futures::Stream;
use serde::{Deserialize, Serialize};

use sealed_games::registry::{GAMES, TIME_SETTINGS};
use sealed_games::table::{Generic, Setting};
use sealed_node::NodeHandle;
use sealed_node::checked::FileReport;
use sealed_node::control::{Answered, ControlRequest, Proposal, Reply, answer, json_text};
use sealed_node::core::{Fault, GameState, GameSummary, GameView, ShowFormat};
use sealed_node::shell::Info;

use crate::Limits;
use crate::gate::Gate;
use crate::guard;

/// What every handler shares.
#[derive(Clone)]
pub(crate) struct App {
    pub(crate) node: NodeHandle,
    pub(crate) gate: Arc<Mutex<Gate>>,
    /// Where the sessions are kept across restarts, if anywhere.
    pub(crate) sessions: Option<Arc<PathBuf>>,
    /// What to run for a new login address.
    pub(crate) again: Arc<String>,
    pub(crate) limits: Limits,
}

impl App {
    /// Saves the gate's sessions where they are kept (a failure costs only a sign-in
    /// after the next restart: said in the log). A small file written rarely — at a
    /// sign-in, a sign-out, or once a session's last use moved on by ten minutes —
    /// under the gate's lock, so that two saves never cross.
    pub(crate) fn save(&self, gate: &mut Gate) {
        if let Some(path) = &self.sessions
            && let Err(e) = crate::keep::save(path, &gate.kept())
        {
            tracing::warn!(
                "the board's sessions are not kept in {}: {e}",
                path.display()
            );
        }
    }
}

pub(crate) fn router(app: App) -> Router {
    Router::new()
        .route("/login", get(login))
        .route("/", get(crate::assets::page))
        .route("/{file}", get(crate::assets::file))
        .route("/api/me", get(me))
        .route("/api/signout", post(signout))
        .route("/api/games", get(games))
        .route("/api/games/{game}", get(show))
        .route("/api/games/{game}/move", post(make_move))
        .route("/api/games/{game}/generic", post(generic))
        .route("/api/games/{game}/accept", post(accept))
        .route("/api/games/{game}/decline", post(decline))
        .route("/api/games/{game}/withdraw", post(withdraw))
        .route("/api/games/{game}/verify", get(verify))
        .route("/api/games/{game}/download/{what}", get(download))
        .route("/api/variants", get(variants))
        .route("/api/cards", get(cards))
        .route("/api/peers", get(peers))
        .route("/api/new", post(new))
        .route("/api/events", get(events))
        .layer(DefaultBodyLimit::max(guard::MAX_BODY))
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            guard::body,
        ))
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            guard::door,
        ))
        .layer(axum::middleware::map_response(guard::headers))
        .with_state(app)
}

/// An answer of the control path as HTTP: its value, or its error with the status of
/// whose fault it is (400 only for the request's own).
fn reply(r: Reply) -> Response {
    match r {
        Reply::Ok { ok } => json(&ok),
        Reply::Refused { error, fault } => refused(&error, fault),
    }
}

/// A typed document as the page reads it: JSON with every object's keys in order, as
/// the control socket writes it (`json_text`; the golden records fix the bytes).
fn json(value: &impl Serialize) -> Response {
    match json_text(value) {
        Ok(text) => ([(header::CONTENT_TYPE, "application/json")], text).into_response(),
        Err(e) => refused(
            &format!("the answer could not be written: {e}"),
            Fault::Node,
        ),
    }
}

/// A refusal's body: `{"error": …}`.
#[derive(Serialize)]
struct Refused<'a> {
    error: &'a str,
}

/// A refusal as HTTP: `{"error": …}` with the status of whose fault it is.
fn refused(error: &str, fault: Fault) -> Response {
    (status_of(fault), Json(Refused { error })).into_response()
}

/// The HTTP status of a refusal: 400 for the request's own fault only; a game the node
/// does not know 404, a game not where the request took it 409, a store or a node that
/// cannot work now 503, a bug 500.
fn status_of(fault: Fault) -> StatusCode {
    match fault {
        Fault::Request => StatusCode::BAD_REQUEST,
        Fault::NoGame => StatusCode::NOT_FOUND,
        Fault::Conflict => StatusCode::CONFLICT,
        Fault::Store | Fault::Stopped => StatusCode::SERVICE_UNAVAILABLE,
        Fault::Node => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

async fn ask(app: &App, req: ControlRequest) -> Response {
    reply(answer(&app.node, req).await)
}

#[derive(Deserialize)]
struct LoginQuery {
    token: String,
}

/// Trades a login token for a session, once: a page that keeps the session in its
/// origin's storage and goes to the games (`assets/signin.js`). The session is saved
/// before the page that carries it is sent.
async fn login(State(app): State<App>, Query(q): Query<LoginQuery>) -> Response {
    let r = match crate::random() {
        Ok(r) => r,
        Err(e) => return (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    };
    let session = {
        let mut gate = app.gate.lock().unwrap_or_else(|p| p.into_inner());
        let s = gate.redeem(&q.token, crate::now_ms(), r);
        if s.is_ok() {
            app.save(&mut gate);
        }
        s
    };
    match session {
        Ok(s) => crate::assets::signin(&s, &app.again),
        Err(refusal) => guard::refuse(&app, refusal),
    }
}

/// `/api/me`: this node, what to run for a new login address, and how long a session
/// lasts unused.
#[derive(Serialize)]
struct Me<'a> {
    #[serde(flatten)]
    info: &'a Info,
    again: &'a str,
    idle_ms: u64,
}

/// Who this node is, and what to run for a new login address.
async fn me(State(app): State<App>) -> Response {
    match answer(&app.node, ControlRequest::Info).await {
        Reply::Ok {
            ok: Answered::Info(info),
        } => json(&Me {
            info: &info,
            again: &app.again,
            idle_ms: crate::gate::IDLE_MS,
        }),
        other => reply(other),
    }
}

/// Ends this browser's session.
async fn signout(State(app): State<App>, headers: HeaderMap) -> Response {
    let auth = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    let mut gate = app.gate.lock().unwrap_or_else(|p| p.into_inner());
    if gate.end(auth) {
        app.save(&mut gate);
    }
    Json(()).into_response()
}

/// Every game, as `sealed games` lists them; an invitation to this seat also says the
/// side it would play and the other nodes the game names (from its show document), so
/// that the invitee decides knowing them.
async fn games(State(app): State<App>) -> Response {
    let list = match answer(&app.node, ControlRequest::Games).await {
        Reply::Ok {
            ok: Answered::Summaries(list),
        } => list,
        other => return reply(other),
    };
    let facts = crate::people::facts(&app.node).await;
    let mut entries = Vec::with_capacity(list.len());
    for summary in list {
        let mut entry = Listed {
            summary,
            side: None,
        };
        if entry.summary.status == GameState::Invited
            && let Some(view) = show_view(&app, entry.summary.game.clone()).await
        {
            entry.side = Some(view.table.side);
            entry.summary.helpers = view.helpers;
        }
        let g = &mut entry.summary;
        crate::people::enrich(&mut g.players, &mut g.helpers, &facts);
        entries.push(entry);
    }
    json(&entries)
}

/// One game of `/api/games`: its line as `sealed games` has it, and for an invitation
/// the side this seat would play (`null` when the game has none).
#[derive(Serialize)]
struct Listed {
    #[serde(flatten)]
    summary: GameSummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    side: Option<Option<String>>,
}

/// A game's view, if the node shows it.
async fn show_view(app: &App, game: String) -> Option<GameView> {
    let req = ControlRequest::Show {
        game,
        format: ShowFormat::Json,
    };
    match answer(&app.node, req).await {
        Reply::Ok {
            ok: Answered::Show(view),
        } => Some(*view),
        _ => None,
    }
}

/// One game as `sealed show --json` gives it, each seat and node it names said to be
/// connected now or not, and a Secret Stallmate period's close (`period.rs`).
async fn show(State(app): State<App>, Path(game): Path<String>) -> Response {
    let req = ControlRequest::Show {
        game,
        format: ShowFormat::Json,
    };
    match answer(&app.node, req).await {
        Reply::Ok {
            ok: Answered::Show(mut view),
        } => {
            let facts = crate::people::facts(&app.node).await;
            crate::people::enrich(&mut view.players, &mut view.helpers, &facts);
            crate::period::stamp_now(&mut view.table.hand);
            json(&view)
        }
        other => reply(other),
    }
}

#[derive(Deserialize)]
struct MoveBody {
    text: String,
    expect: Option<usize>,
}

/// Makes a move in the game's notation: the text of a choice the page was given.
async fn make_move(
    State(app): State<App>,
    Path(game): Path<String>,
    Json(body): Json<MoveBody>,
) -> Response {
    ask(
        &app,
        ControlRequest::Move {
            game,
            text: body.text,
            expect: body.expect,
        },
    )
    .await
}

#[derive(Deserialize)]
struct GenericBody {
    generic: Generic,
    expect: Option<usize>,
}

/// A generic command (resign, offer or accept a draw, …), as the value a button of the
/// page carries, never as its words.
async fn generic(
    State(app): State<App>,
    Path(game): Path<String>,
    Json(body): Json<GenericBody>,
) -> Response {
    ask(
        &app,
        ControlRequest::Generic {
            game,
            generic: body.generic,
            expect: body.expect,
        },
    )
    .await
}

async fn accept(State(app): State<App>, Path(game): Path<String>) -> Response {
    ask(&app, ControlRequest::Accept { game }).await
}

async fn decline(State(app): State<App>, Path(game): Path<String>) -> Response {
    ask(&app, ControlRequest::Decline { game }).await
}

async fn withdraw(State(app): State<App>, Path(game): Path<String>) -> Response {
    ask(&app, ControlRequest::Withdraw { game }).await
}

/// The game's transcript as this node holds it, checked as `sealed verify` checks a
/// file: the same document `sealed verify --json` prints (cli/JSON.md).
async fn verify(State(app): State<App>, Path(game): Path<String>) -> Response {
    let bytes = match app.node.transcript(&game).await {
        Ok(b) => b,
        Err(e) => return refused(&e.to_string(), e.fault()),
    };
    let name = format!("{}.sealed", file_stem(&game));
    let report = FileReport::of_bytes(name, Ok(bytes));
    json(&report.json())
}

/// A file's name for a game: the id's first hex digits as typed, nothing else (it goes
/// into a header).
fn file_stem(game: &str) -> String {
    game.chars()
        .filter(char::is_ascii_hexdigit)
        .take(12)
        .collect()
}

/// The transcript, score, PGN or board of a game, as a file to save.
async fn download(State(app): State<App>, Path((game, what)): Path<(String, String)>) -> Response {
    let short = file_stem(&game);
    let node = &app.node;
    let (body, kind, ext): (Result<Option<Vec<u8>>, _>, &str, &str) = match what.as_str() {
        "transcript" => (
            node.transcript(&game).await.map(Some),
            "application/octet-stream",
            "sealed",
        ),
        "score" => (
            node.score(&game).await.map(|t| t.map(String::into_bytes)),
            "text/plain; charset=utf-8",
            "txt",
        ),
        "pgn" => (
            node.pgn(&game).await.map(|t| t.map(String::into_bytes)),
            "application/x-chess-pgn",
            "pgn",
        ),
        "svg" => (
            node.svg(&game).await.map(|t| t.map(String::into_bytes)),
            "image/svg+xml",
            "svg",
        ),
        _ => return (StatusCode::NOT_FOUND, "no such download").into_response(),
    };
    match body {
        Ok(Some(bytes)) => (
            [
                (header::CONTENT_TYPE, kind.to_owned()),
                // Saved, never shown in the board's origin.
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"{short}.{ext}\""),
                ),
            ],
            bytes,
        )
            .into_response(),
        Ok(None) => (
            StatusCode::NOT_FOUND,
            format!("this game has no {what} (yet)"),
        )
            .into_response(),
        Err(e) => (status_of(e.fault()), e.to_string()).into_response(),
    }
}

/// Every variant with what it is and its options, and the time controls.
async fn variants() -> Response {
    let variants = GAMES
        .iter()
        .map(|g| Variant {
            name: g.name,
            about: g.about,
            settings: g.settings,
        })
        .collect();
    json(&Variants {
        variants,
        time: TIME_SETTINGS,
    })
}

/// `/api/variants`: every variant, and the time controls.
#[derive(Serialize)]
struct Variants<'a> {
    variants: Vec<Variant<'a>>,
    time: &'a [Setting],
}

/// One variant: its name, what it is, and its options.
#[derive(Serialize)]
struct Variant<'a> {
    name: &'a str,
    about: &'a str,
    settings: &'a [Setting],
}

/// The open deck's cards by number and name, for a Tempête move list that names the
/// cards played (a game's view names only the cards in this seat's hand).
async fn cards() -> Response {
    let deck = sealed_games::tempete::Deck::open_shared();
    let cards: Vec<Card<'_>> = deck
        .cards()
        .map(|c| Card {
            card: c.number(),
            name: c.name(),
        })
        .collect();
    json(&cards)
}

/// A card of the open deck, by number and name.
#[derive(Serialize)]
struct Card<'a> {
    card: u32,
    name: &'a str,
}

/// The player's peers. What strangers hold here and what was refused are the
/// operator's figures (`sealed peers`), not the board's: a count that moves with every
/// refusal is left out.
async fn peers(State(app): State<App>) -> Response {
    match answer(&app.node, ControlRequest::Peers).await {
        Reply::Ok {
            ok: Answered::Peers(mut book),
        } => {
            // Empty, they are not written at all.
            book.refused.clear();
            book.strangers.clear();
            json(&book)
        }
        other => reply(other),
    }
}

/// Proposes a game, as `sealed new` does (without waiting for delivery: the games list
/// says whether the invitation reached the peer).
async fn new(State(app): State<App>, Json(p): Json<Proposal>) -> Response {
    ask(&app, ControlRequest::New(p.tidy())).await
}

/// How often a quiet stream says it is alive, so that a dead connection is noticed.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Server-sent events: `change` once at the start and then each time the node's store
/// commits, so the page reads what it shows again.
async fn events(State(app): State<App>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let rx = app.node.changes();
    let first = futures::stream::once(async { Ok(Event::default().event("change").data("0")) });
    let later = futures::stream::unfold(rx, |mut rx| async move {
        rx.changed().await.ok()?;
        let n = *rx.borrow_and_update();
        Some((Ok(Event::default().event("change").data(n.to_string())), rx))
    });
    Sse::new(futures::StreamExt::chain(first, later))
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
}
