//! The board in a real browser: Debian's headless Chromium, driven over WebDriver, plays
//! whole games by clicks against real nodes on loopback — each player a node with its
//! board and a browser of its own, a referee node for Secret Stallmate. A game is
//! proposed through the New game form, accepted with the invitation's button, played by
//! clicking squares and buttons only (no move is typed), and must end at both seats with
//! the verdict `sealed verify` gives: verified.
//!
//! `SEALED_SCREENSHOTS=<dir>` (an absolute path: tests run in web/) saves a PNG of each
//! variant's game page there, and of a few others (the ones in docs/screens were made
//! so). `SEALED_BROWSER=skip` skips these tests; so does a machine without Chromium,
//! saying what to install, unless `SEALED_REQUIRE=all` (`.ci/run`), when they fail.
//!
//! Beside the games played here: the session against other pages and other local
//! servers, two boards in one browser and node restarts (`door.rs`); the questions a
//! card asks, the last move, the result, long names, narrow windows and a game played
//! from the keyboard alone (`asks.rs`); the accessibility check with axe-core
//! (`axe.rs`); the physical deck of Tempête: a card stated by clicks, a claim accepted
//! and one disputed on the other board (`physical.rs`); check, the board turned, stepping
//! through the moves, the pieces lost, the keyboard kept after a move and the opponent's
//! move told to a screen reader (`view.rs`); both players' clocks ticking by the board,
//! a loss on time as the result, Secret Stallmate's period closing and its forfeit
//! (`clocks.rs`); Secret Stallmate's check marked from the words heard (`heard.rs`);
//! stepping and the pieces lost in Chex and Cardmate, and the verdict's claims naming
//! the players (`steps.rs`).

mod asks;
mod axe;
mod clocks;
#[path = "../common/mod.rs"]
mod common;
mod door;
mod driver;
mod heard;
mod physical;
mod play;
mod steps;
mod view;

use std::time::Duration;

use sealed_node::{Home, Multiaddr, NodeConfig, NodeHandle};
use sealed_web::Board;

use driver::{Browser, Driver};

/// A player: a node on loopback, its board, and a browser signed in to it.
pub struct Seat {
    /// The node.
    pub node: NodeHandle,
    /// Its board.
    pub board: Board,
    /// The browser.
    pub b: Browser,
    /// Its address, with its peer id.
    pub addr: Multiaddr,
    /// Its home.
    pub dir: tempfile::TempDir,
}

/// The nodes' configuration: loopback TCP, no mDNS, quick polls.
pub fn cfg() -> NodeConfig {
    let mut c = NodeConfig::default();
    c.net.mdns = false;
    c.listen = vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()];
    c.core.repair_every_ms = 150;
    c
}

/// Starts a node in a new home.
pub async fn node(
    name: &str,
    seed: u8,
    cfg: NodeConfig,
) -> (NodeHandle, Multiaddr, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::at(dir.path());
    home.init_with(&[seed; 32], name).unwrap();
    let (node, addr) = start_in(&home, cfg).await;
    (node, addr, dir)
}

/// Starts the node of a home (once the store is free: a node that was just shut down
/// may still be closing it), and waits for its address.
pub async fn start_in(home: &Home, cfg: NodeConfig) -> (NodeHandle, Multiaddr) {
    let mut started = None;
    for _ in 0..100 {
        match sealed_node::start(home, cfg.clone()).await {
            Ok((node, _task)) => {
                started = Some(node);
                break;
            }
            Err(e)
                if e.to_string().contains("already open")
                    || format!("{e:?}").contains("AlreadyOpen") =>
            {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("the node did not start: {e}"),
        }
    }
    let node = started.expect("the store came free");
    let mut addr = None;
    for _ in 0..200 {
        if let Some(a) = node.info().await.unwrap().addrs.first() {
            addr = Some(a.parse().unwrap());
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    (node, addr.expect("a listen address"))
}

/// The board's configuration for a home: its sessions kept there, and what to run
/// named as `sealed ui` names it.
pub fn board_cfg(home: &std::path::Path, at: std::net::SocketAddr) -> sealed_web::Config {
    sealed_web::Config {
        sessions: Some(home.join("ui-sessions")),
        again: format!("sealed --home {} ui", home.display()),
        ..sealed_web::Config::at(at)
    }
}

/// Signs a browser in with a new login address of `board`.
pub async fn sign_in(b: &Browser, board: &Board, name: &str) {
    b.goto(&board.login_url().unwrap()).await;
    assert!(
        b.until(
            "return document.getElementById('me').textContent.startsWith('you:')",
            Duration::from_secs(20)
        )
        .await,
        "{name}'s browser did not sign in: {}",
        b.js("return document.body.textContent").await
    );
}

/// A referee node and two players, alice and bob, each connected to it: the start of
/// every Secret Stallmate game with a referee. `seeds` are the referee's, alice's and
/// bob's keys' seeds.
pub async fn refereed_seats(
    driver: &Driver,
    seeds: [u8; 3],
) -> (NodeHandle, Multiaddr, tempfile::TempDir, Seat, Seat) {
    let mut rc = cfg();
    rc.core.referee = true;
    let (referee, raddr, rdir) = node("referee", seeds[0], rc).await;
    let (a, b) = (
        seat(driver, "alice", seeds[1]).await,
        seat(driver, "bob", seeds[2]).await,
    );
    a.node.dial(raddr.clone()).await.unwrap();
    b.node.dial(raddr.clone()).await.unwrap();
    (referee, raddr, rdir, a, b)
}

/// A player whose browser (a profile of its own) has signed in with its board's login
/// address.
pub async fn seat(driver: &Driver, name: &str, seed: u8) -> Seat {
    let (node, addr, dir) = node(name, seed, cfg()).await;
    let board = sealed_web::serve(
        node.clone(),
        board_cfg(dir.path(), "127.0.0.1:0".parse().unwrap()),
    )
    .await
    .unwrap();
    let b = driver.browser(name).await;
    sign_in(&b, &board, name).await;
    Seat {
        node,
        board,
        b,
        addr,
        dir,
    }
}

/// Fills the New game form of `from` and proposes; `to` accepts with its button. Both
/// browsers are left on the game's page; returns the game id.
pub async fn propose(
    from: &Seat,
    to: &Seat,
    variant: &str,
    options: &[(&str, &str)],
    referee: Option<&Multiaddr>,
) -> String {
    let referee = referee.map(ToString::to_string);
    let helpers: Vec<(&str, &str)> = referee.iter().map(|r| ("referee", r.as_str())).collect();
    propose_with(from, to, variant, options, &helpers).await
}

/// [`propose`], with the form's fields for the nodes a game names besides the players
/// (`referee`, `witness`, `mailbox`) filled with their addresses.
pub async fn propose_with(
    from: &Seat,
    to: &Seat,
    variant: &str,
    options: &[(&str, &str)],
    helpers: &[(&str, &str)],
) -> String {
    let b = &from.b;
    b.goto(&format!("http://{}/#/new", from.board.addr())).await;
    assert!(
        b.click(
            &format!("#variant option[value={variant}]"),
            Duration::from_secs(20)
        )
        .await
    );
    if variant == "tempete" {
        // Issue 55: the arbiter is asked once, in his own field, not also as the
        // rule's key in hex.
        assert!(
            b.until(
                "return document.querySelector('#opt-arbiter') === null \
                 && document.querySelector('#arbiter') !== null",
                Duration::from_secs(5)
            )
            .await,
            "one arbiter field"
        );
    }
    for (k, v) in options {
        play::fill(b, &format!("#opt-{k}"), v).await;
    }
    play::fill(b, "#peer", &to.addr.to_string()).await;
    for (field, addr) in helpers {
        play::fill(b, &format!("#{field}"), addr).await;
    }
    assert!(b.click("#propose", Duration::from_secs(5)).await);
    assert!(
        b.until(
            "return location.hash.startsWith('#/game/')",
            Duration::from_secs(30)
        )
        .await,
        "the proposal was not made: {}",
        b.js("return document.getElementById('toast').textContent")
            .await
    );
    let game = b
        .js("return location.hash.slice('#/game/'.length)")
        .await
        .as_str()
        .unwrap()
        .to_owned();
    // The invitee's games page shows the invitation with its buttons.
    to.b.goto(&format!("http://{}/#/", to.board.addr())).await;
    assert!(
        to.b.click(
            &format!("tr[data-game='{game}'] button[data-act=accept]"),
            Duration::from_secs(30)
        )
        .await,
        "the invitation never showed on the invitee's games page"
    );
    to.b.goto(&format!("http://{}/#/game/{game}", to.board.addr()))
        .await;
    game
}

/// Saves a screenshot of the game page when asked to (`SEALED_SCREENSHOTS`).
pub async fn screenshot(b: &Browser, name: &str) {
    if let Ok(dir) = std::env::var("SEALED_SCREENSHOTS") {
        std::fs::create_dir_all(&dir).unwrap();
        // The passing notice ("proposed", "accepted") would hide part of the page.
        b.js("document.getElementById('toast').className = ''; return true;")
            .await;
        std::fs::write(format!("{dir}/{name}.png"), b.screenshot().await).unwrap();
    }
}

/// Both seats' pages say the game is over, and show the verdict: verified.
pub async fn verified_at_both(seats: [&Seat; 2]) {
    for s in seats {
        assert!(
            s.b.until(
                "const v = document.getElementById('verdict'); return !!v && v.dataset.status === 'verified';",
                Duration::from_secs(60)
            )
            .await,
            "no verified verdict on the page: {}",
            s.b.js("const v = document.getElementById('verdict'); return v ? v.textContent : document.getElementById('main').textContent").await
        );
    }
}

/// One browser test at a time: each brings up two or three nodes and two browsers, and
/// the machine has two cores (a Stallmate mover must make his move within the period).
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The runtime of one test, holding the lock of [`ONE_AT_A_TIME`] (a test that failed
/// before leaves it poisoned, which is no reason to fail the next).
pub fn runtime() -> (std::sync::MutexGuard<'static, ()>, tokio::runtime::Runtime) {
    let lock = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    (lock, built())
}

fn built() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Runs one browser test, one at a time, with a chromedriver of its own; nothing when
/// the browser tests are skipped ([`driver::skipped`]).
pub fn with_driver<F: std::future::Future<Output = ()>>(test: impl FnOnce(Driver) -> F) {
    if driver::skipped() {
        return;
    }
    let (_one, rt) = runtime();
    rt.block_on(async { test(Driver::start().await).await });
}

/// Proposes a game from `from`'s node to the node at `peer` through the control path
/// (no form); the game's id.
pub async fn invite(
    from: &NodeHandle,
    variant: &str,
    options: &[(&str, &str)],
    peer: &Multiaddr,
    referee: Option<&Multiaddr>,
) -> String {
    let req = sealed_node::control::ControlRequest::New(sealed_node::control::Proposal {
        variant: variant.into(),
        options: options
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        peer: peer.to_string(),
        mailbox: None,
        referee: referee.map(ToString::to_string),
        witness: None,
        arbiter: None,
    });
    match sealed_node::control::answer(from, req).await {
        sealed_node::control::Reply::Ok {
            ok: sealed_node::control::Answered::Text(game),
        } => game,
        other => panic!("no game: {other:?}"),
    }
}

#[test]
fn cardmate_is_played_by_clicks_to_a_verified_end() {
    with_driver(|d| async move {
        let (a, b) = (seat(&d, "alice", 1).await, seat(&d, "bob", 2).await);
        let game = propose(
            &a,
            &b,
            "cardmate",
            &[("ply-limit", "12"), ("setup", "random")],
            None,
        )
        .await;
        let mut rng = play::Rng(7);
        play::until_over(
            [&a.b, &b.b],
            &mut rng,
            &play::Prefs::default(),
            Duration::from_secs(240),
            Some(("cardmate", 6)),
        )
        .await;
        verified_at_both([&a, &b]).await;
        screenshot(&a.b, "cardmate-end").await;
        let show = a.node.show(&game).await.unwrap();
        assert_eq!(show.table.ply, 12, "the game ends at its ply limit");
    });
}

#[test]
fn chex_draws_and_placements_are_clicked_to_a_verified_end() {
    with_driver(|d| async move {
        let (a, b) = (seat(&d, "alice", 3).await, seat(&d, "bob", 4).await);
        let game = propose(&a, &b, "chex", &[("ply-limit", "14")], None).await;
        let mut rng = play::Rng(11);
        play::until_over(
            [&a.b, &b.b],
            &mut rng,
            &play::Prefs::default(),
            Duration::from_secs(240),
            Some(("chex", 8)),
        )
        .await;
        verified_at_both([&a, &b]).await;
        screenshot(&a.b, "chex-end").await;
        let score = a.node.score(&game).await.unwrap().unwrap();
        assert!(score.contains('@'), "pieces were placed: {score}");
    });
}

#[test]
fn tempete_cards_an_interception_and_an_answer_are_clicked_to_a_verified_end() {
    with_driver(|d| async move {
        let (a, b) = (seat(&d, "alice", 5).await, seat(&d, "bob", 6).await);
        // Two hands of two from four cards: the one who holds 66 can intercept any move,
        // and every other card moves a piece as another kind, so a card is always
        // playable with some move.
        let game = propose(
            &a,
            &b,
            "tempete",
            &[("cards", "2,21,23,66"), ("hand", "2"), ("ply-limit", "14")],
            None,
        )
        .await;
        let mut rng = play::Rng(5);
        let prefs = play::Prefs {
            cards: true,
            intercept: true,
        };
        play::until_over(
            [&a.b, &b.b],
            &mut rng,
            &prefs,
            Duration::from_secs(300),
            Some(("tempete", 4)),
        )
        .await;
        verified_at_both([&a, &b]).await;
        screenshot(&a.b, "tempete-end").await;
        let score = a.node.score(&game).await.unwrap().unwrap();
        assert!(
            score.contains("<intercept 66>"),
            "card 66 intercepted a move: {score}"
        );
        assert!(
            score.contains("<answer"),
            "the interception was answered: {score}"
        );
        assert!(
            ["<2 ", "<21 ", "<23 "].iter().any(|c| score.contains(c)),
            "a card was played with a move: {score}"
        );
    });
}

#[test]
fn secret_stallmate_attempts_are_clicked_against_a_referee_node_to_a_verified_end() {
    with_driver(|d| async move {
        let (referee, raddr, _rdir, a, b) = refereed_seats(&d, [9, 7, 8]).await;
        let game = propose(
            &a,
            &b,
            "stallmate",
            &[("period", "8s"), ("ply-limit", "4")],
            Some(&raddr),
        )
        .await;
        let mut rng = play::Rng(3);
        play::until_over(
            [&a.b, &b.b],
            &mut rng,
            &play::Prefs::default(),
            Duration::from_secs(240),
            Some(("stallmate", 2)),
        )
        .await;
        verified_at_both([&a, &b]).await;
        screenshot(&a.b, "stallmate-end").await;
        let show = referee.show(&game).await.unwrap();
        assert_eq!(show.table.phase, sealed_node::core::Stage::Done);
        assert!(
            a.b.count("#heard li").await > 0,
            "the announcements heard are listed"
        );
    });
}

/// What one page's board shows: its ply, when it was drawn (the page's `Date.now()`),
/// and what asked for the drawing.
async fn drawn(b: &Browser) -> (i64, i64, String) {
    let v = b
        .js("const s = window.sealedBoard; return [s.ply, s.drawnAt, s.via || ''];")
        .await;
    (
        v[0].as_i64().unwrap_or(-1),
        v[1].as_i64().unwrap_or(0),
        v[2].as_str().unwrap_or_default().to_owned(),
    )
}

fn median(v: &mut [i64]) -> i64 {
    v.sort_unstable();
    v[v.len() / 2]
}

/// The opponent's move reaches his board by itself, pushed by his node (a server-sent
/// event, not the page's 10 s timer), and the figure docs/PERFORMANCE.md gives: from
/// the click to the opponent's board showing the move, against the same click to the
/// mover's own board showing it, measured in the same run (both pages read one clock,
/// this machine's). `SEALED_UI_MOVES` sets how many moves are timed (12 by default).
#[test]
fn the_opponents_move_appears_on_his_board_by_itself() {
    if driver::skipped() {
        return;
    }
    let moves: usize = std::env::var("SEALED_UI_MOVES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    with_driver(|d| async move {
        let (a, b) = (seat(&d, "alice", 11).await, seat(&d, "bob", 12).await);
        let cards = (moves / 2 + 2).clamp(4, 64).to_string();
        propose(&a, &b, "duel", &[("cards", &cards), ("hand", "2")], None).await;
        let pages = [&a.b, &b.b];
        let (mut own, mut theirs) = (vec![], vec![]);
        let deadline = std::time::Instant::now() + Duration::from_secs(60 + 5 * moves as u64);
        while own.len() < moves {
            assert!(
                std::time::Instant::now() < deadline,
                "the moves were not made"
            );
            // The page whose move it is, with the other's board drawn at the same ply.
            let mut mover = None;
            for (i, p) in pages.iter().enumerate() {
                if p.game_attr("myTurn").await.as_deref() == Some("yes")
                    && p.count(play::BUTTONS).await > 0
                {
                    mover = Some(i);
                }
            }
            let Some(i) = mover else {
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            };
            let (p, q) = (pages[i], pages[1 - i]);
            let (ply, _, _) = drawn(p).await;
            if drawn(q).await.0 != ply {
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
            let t0 = p.js("return Date.now()").await.as_i64().unwrap();
            assert!(p.click_nth(play::BUTTONS, 0).await);
            let moved = format!("return window.sealedBoard.ply > {ply}");
            assert!(
                p.until(&moved, Duration::from_secs(30)).await,
                "the mover's board"
            );
            assert!(
                q.until(&moved, Duration::from_secs(30)).await,
                "the opponent's board"
            );
            let (_, at_p, _) = drawn(p).await;
            let (_, at_q, via) = drawn(q).await;
            assert_eq!(
                via, "event",
                "the opponent's board was updated by {via}, not live"
            );
            own.push(at_p - t0);
            theirs.push(at_q - t0);
        }
        let (m_own, m_theirs) = (median(&mut own), median(&mut theirs));
        println!(
            "ui latency over {moves} moves: opponent's board {m_theirs} ms, mover's own board {m_own} ms \
             (medians; ratio {:.2})",
            m_theirs as f64 / m_own.max(1) as f64
        );
    });
}
