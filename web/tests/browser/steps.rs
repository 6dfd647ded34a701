//! Stepping through the moves and the pieces lost in the games the page cannot replay
//! itself (issue 55): Chex, whose board grows and renames its squares, and Cardmate,
//! whose pieces are cards. Their positions come with the node's view; the page steps
//! back to the position before a capture (the piece still there, nothing lost yet),
//! forward to the capture (the piece lost, beside the board), and returns, no move
//! possible meanwhile. And the verdict's faults and claims name the players, as the
//! rest of the board does, never `seat N`.
//!
//! The moves are made at the nodes (each picked from the seat's own choices, a capture
//! first), so that a capture comes soon and on a known square; the pages only look.

use std::time::Duration;

use fantoccini::key::Key;
use sealed_games::table::TableView;

use crate::axe::{axe_source, check};
use crate::view::shots;
use crate::{Seat, propose, screenshot, seat, with_driver};

/// The words that are no act of the game's own.
const GENERIC: &[&str] = &[
    "accept",
    "decline",
    "withdraw",
    "resign",
    "offer draw",
    "accept draw",
];

/// A capture made in the game: the score's act that made it (from 1), as written, the
/// square it took on as the board named it before, and the piece taken.
struct Capture {
    act: usize,
    text: String,
    square: String,
    piece: String,
}

async fn view(s: &Seat, game: &str) -> TableView {
    s.node
        .show(game)
        .await
        .expect("the node shows its game")
        .table
}

/// The score's acts: Chex writes a draw with its placement, so a draw is no act.
fn score_act(variant: &str, text: &str) -> bool {
    !(variant == "chex" && text == "draw")
}

/// Plays at the nodes until `acts` acts of the score are made and a piece was taken
/// (or the game ends): each seat's act its first capture of a piece that is not a king,
/// else (Chex) a draw while its side has fewer than five pieces out, else the `pick`-th
/// of its acts. The first capture.
async fn play_to_a_capture(seats: [&Seat; 2], game: &str, acts: usize) -> Capture {
    let mut made = 0usize;
    let mut capture: Option<Capture> = None;
    let mut pick = 7u64;
    for _ in 0..2000 {
        if made >= acts && capture.is_some() {
            break;
        }
        let views = [view(seats[0], game).await, view(seats[1], game).await];
        if views[0].ply != views[1].ply {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        }
        if views[0].result.is_some() {
            break;
        }
        let Some(m) = (0..2).find(|&i| views[i].my_turn) else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let v = &views[m];
        let grid = v.grid.as_ref().expect("a board");
        let own = |sq: &str| grid.cell(sq).and_then(|c| c.piece.as_ref());
        let ours: usize = grid
            .cells
            .iter()
            .filter(|c| c.piece.as_ref().is_some_and(|p| p.side == v.seat))
            .count();
        let acts_open: Vec<_> = v
            .choices
            .iter()
            .filter(|c| !(c.from.is_none() && c.to.is_none() && GENERIC.contains(&c.text.as_str())))
            .collect();
        let takes = acts_open.iter().find(|c| {
            c.from.is_some()
                && c.to
                    .as_deref()
                    .and_then(own)
                    .is_some_and(|p| p.side != v.seat && !p.name.to_lowercase().contains("king"))
        });
        let chosen = match takes {
            Some(c) => *c,
            _ => {
                let draw = acts_open.iter().find(|c| c.text == "draw");
                match draw {
                    Some(d) if ours < 5 => *d,
                    _ => {
                        // Not a capture, that the first capture is the one seen.
                        let quiet: Vec<_> = acts_open
                            .iter()
                            .filter(|c| {
                                capture.is_some() || c.to.as_deref().and_then(own).is_none()
                            })
                            .collect();
                        pick = pick
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        let list = if quiet.is_empty() {
                            acts_open.iter().collect()
                        } else {
                            quiet
                        };
                        *list[(pick >> 33) as usize % list.len()]
                    }
                }
            }
        };
        if score_act(&v.variant, &chosen.text) {
            made += 1;
        }
        if capture.is_none()
            && chosen.from.is_some()
            && let Some(p) = chosen.to.as_deref().and_then(own)
        {
            capture = Some(Capture {
                act: made,
                text: chosen.text.clone(),
                square: chosen.to.clone().unwrap_or_default(),
                piece: p.name.clone(),
            });
        }
        seats[m]
            .node
            .act(game, &chosen.text, Some(v.ply))
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", chosen.text));
    }
    // Both nodes at the last act, which the pages then show.
    for _ in 0..200 {
        if view(seats[0], game).await.ply == view(seats[1], game).await.ply {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    capture.expect("a piece was taken")
}

/// Waits until the page shows step `at` (`None`: the game as it stands).
pub(crate) async fn viewing(b: &crate::driver::Browser, at: Option<usize>, what: &str) {
    let test = match at {
        Some(n) => format!("return document.getElementById('game').dataset.viewing === '{n}'"),
        None => "const g = document.getElementById('game'); return !!g && !g.dataset.viewing && !document.getElementById('viewing')".to_owned(),
    };
    assert!(b.until(&test, Duration::from_secs(10)).await, "{what}");
}

/// Steps through a game of `variant` on alice's page: before the first capture, at it,
/// Home, Right, End; the pieces lost each time; no move meanwhile; axe-core clean.
fn steps_through(variant: &str, options: &[(&str, &str)], seeds: [u8; 2], sides: [&str; 2]) {
    with_driver(|d| async move {
        let (a, b) = (
            seat(&d, "alice", seeds[0]).await,
            seat(&d, "bob", seeds[1]).await,
        );
        let game = propose(&a, &b, variant, options, None).await;
        let p = &a.b;
        assert!(
            p.until(
                "const g = document.getElementById('game'); return !!g && g.dataset.phase === 'play'",
                Duration::from_secs(60)
            )
            .await
        );
        let capture = play_to_a_capture([&a, &b], &game, 12).await;
        let now = view(&a, &game).await;
        assert!(
            p.until(
                &format!(
                    "const g = document.getElementById('game'); return !!g && g.dataset.ply === '{}'",
                    now.ply
                ),
                Duration::from_secs(60)
            )
            .await,
            "alice's page at ply {}",
            now.ply
        );
        assert_eq!(
            p.count("#step-off").await,
            0,
            "stepping on: {}",
            p.text("#step-off").await
        );
        // The rows of what each side has taken, by the board.
        let row = |side: &str| format!("#taken-{} .sr-only", side.to_lowercase());
        let both = || async { (p.text(&row(sides[0])).await, p.text(&row(sides[1])).await) };
        let (t0, t1) = both().await;
        assert!(
            t0.contains(&capture.piece) || t1.contains(&capture.piece),
            "the piece taken ({}) is shown as lost now: {t0:?} / {t1:?}",
            capture.piece
        );

        // The move list's act of that number is the capture (the acts counted as the
        // score counts them: a Chex draw is none).
        let written = p
            .text(&format!("#score button.act[data-ply='{}']", capture.act))
            .await;
        let bare = |t: &str| t.trim().trim_end_matches(['+', '#']).to_owned();
        assert_eq!(
            bare(&written),
            bare(&capture.text),
            "act {} of the move list is the capture",
            capture.act
        );

        // Back to the position before the capture: the piece still stands on its
        // square, and nothing of the sort is lost yet.
        let before = capture.act - 1;
        if before == 0 {
            assert!(p.click("#step-first", Duration::from_secs(5)).await);
        } else {
            assert!(
                p.click(
                    &format!("#score button.act[data-ply='{before}']"),
                    Duration::from_secs(5)
                )
                .await,
                "the move list's act {before} is a button"
            );
        }
        viewing(p, Some(before), "the act before the capture").await;
        let label = p.square_label(&capture.square).await;
        assert!(
            label.contains(&capture.piece),
            "{} on {} before it was taken: {label}",
            capture.piece,
            capture.square
        );
        let (b0, b1) = both().await;
        assert!(
            !b0.contains(&capture.piece) && !b1.contains(&capture.piece),
            "nothing lost yet: {b0:?} / {b1:?}"
        );
        assert_eq!(
            p.count("#board .sq.movable").await,
            0,
            "no move while looking back"
        );
        assert!(p.text("#viewing").await.contains("press End to return"));
        let mut failed = vec![];
        if let Some(axe) = axe_source() {
            check(
                p,
                &axe,
                &format!("{variant}: stepping back"),
                "return !!document.getElementById('viewing')",
                &mut failed,
            )
            .await;
        }
        assert!(failed.is_empty(), "axe-core: {failed:#?}");

        // Forward one (the button): the capture, its piece lost beside the board.
        assert!(p.click("#step-next", Duration::from_secs(5)).await);
        viewing(p, Some(capture.act), "the capture").await;
        let (c0, c1) = both().await;
        assert!(
            c0.contains(&capture.piece) || c1.contains(&capture.piece),
            "lost at the capture: {c0:?} / {c1:?}"
        );
        shots(p, &format!("{variant}-stepping")).await;
        // Home: the start, nothing lost; Right: the first act.
        p.js("document.activeElement && document.activeElement.blur(); return true;")
            .await;
        p.press(Key::Home.into()).await;
        viewing(p, Some(0), "Home").await;
        let (h0, h1) = both().await;
        assert!(
            h0.ends_with("has taken: nothing") && h1.ends_with("has taken: nothing"),
            "{h0:?} / {h1:?}"
        );
        if variant == "chex" {
            assert_eq!(
                p.text("#stacks").await,
                "White: K Q R2 B2 N2 P8Black: K Q R2 B2 N2 P8",
                "the stacks at the start"
            );
        }
        p.press(Key::Right.into()).await;
        viewing(p, Some(1), "Right").await;
        p.press(Key::End.into()).await;
        viewing(p, None, "End").await;
    });
}

#[test]
fn chex_steps_back_and_forward_and_shows_the_pieces_lost() {
    steps_through("chex", &[("ply-limit", "60")], [81, 82], ["White", "Black"]);
}

#[test]
fn cardmate_steps_back_and_forward_and_shows_the_pieces_lost() {
    steps_through(
        "cardmate",
        &[("ply-limit", "60"), ("setup", "random")],
        [83, 84],
        ["Forehand", "Rearhand"],
    );
}

#[test]
fn the_verdicts_claims_and_faults_name_the_players() {
    with_driver(|d| async move {
        let (a, b) = (seat(&d, "alice", 85).await, seat(&d, "bob", 86).await);
        let game = propose(&a, &b, "chex", &[], None).await;
        for s in [&a, &b] {
            assert!(
                s.b.until(
                    "const g = document.getElementById('game'); return !!g && g.dataset.phase === 'play'",
                    Duration::from_secs(60)
                )
                .await
            );
        }
        // Bob's node goes away; alice resigns. Bob owes his close, which never comes:
        // an open claim against him in the verdict alice's page shows.
        b.node.shutdown().await.ok();
        a.node.act(&game, "resign", None).await.expect("resign");
        assert!(
            a.b.until(
                "const v = document.getElementById('verdict'); return !!v && /open claims|faults/.test(v.textContent)",
                Duration::from_secs(60)
            )
            .await,
            "a claim or a fault in the verdict: {}",
            a.b.js("const v = document.getElementById('verdict'); return v ? v.textContent : document.getElementById('main').textContent").await
        );
        let v = a
            .b
            .js("const v = document.getElementById('verdict'); return [...v.querySelectorAll('dt')].filter(d => /open claims|faults/.test(d.textContent)).map(d => d.nextElementSibling.textContent).join(' | ')")
            .await;
        let lines = v.as_str().unwrap_or_default().to_owned();
        assert!(lines.contains("bob"), "bob named: {lines}");
        assert!(!regex_seat(&lines), "no bare seat number left: {lines}");
        // The verdict is below the fold on a narrow window: each shot scrolled to it.
        if std::env::var("SEALED_SCREENSHOTS").is_ok() {
            for (width, name) in [(1280, "verdict-claims"), (400, "verdict-claims-narrow")] {
                a.b.size(width, 1000).await;
                a.b.js("document.getElementById('verdict').scrollIntoView({ block: 'center' }); return true;")
                    .await;
                screenshot(&a.b, name).await;
            }
            a.b.size(1280, 1000).await;
        }
    });
}

/// Whether `text` says `seat` and a digit.
fn regex_seat(text: &str) -> bool {
    text.match_indices("seat ").any(|(i, _)| {
        text[i + 5..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    })
}
