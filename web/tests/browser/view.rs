//! The board as a lichess player expects it (issue 55 items 7, 9, 10), in a real
//! browser: the king in check marked and said; the board turned by a button and by the
//! key f, kept per game in the tab; stepping back and forward through the moves by
//! buttons, keys and the move list, with no move possible meanwhile and the opponent's
//! move said, not shown; the pieces each side has lost with the lead in material; the
//! keyboard kept on the board after a move; the opponent's move told to a screen
//! reader. Played in Tempête, whose board shows every piece to both sides.

use std::time::Duration;

use fantoccini::key::Key;

use crate::asks::{arrows_to, focused};
use crate::axe::{axe_source, check};
use crate::driver::Browser;
use crate::{propose, screenshot, seat, with_driver};

/// Waits for this seat's turn with `from` movable.
async fn my_move_from(b: &Browser, from: &str) {
    assert!(
        b.until(
            &format!(
                "const g = document.getElementById('game'); return !!g && g.dataset.myTurn === 'yes' \
                 && !!document.querySelector('.sq.movable[data-square={from}]')"
            ),
            Duration::from_secs(60)
        )
        .await,
        "{from} never movable: {}",
        b.js("const s = document.getElementById('status'); return s ? s.textContent : ''")
            .await
    );
}

/// The plain move, when the page asks which act (a card could go with it).
async fn plain_if_asked(b: &Browser) {
    if b.until(
        "return !!document.querySelector('#question[data-kind=words]')",
        Duration::from_millis(700),
    )
    .await
    {
        let i = b
            .js("return [...document.querySelectorAll('#question button.answer')].findIndex(e => !/Hoarfrost|Chill/.test(e.textContent))")
            .await
            .as_i64()
            .unwrap_or(0);
        assert!(
            b.click_nth("#question button.answer", i.max(0) as usize)
                .await
        );
    }
}

/// Waits until the page shows ply `ply`.
async fn at_ply(b: &Browser, ply: u64) {
    assert!(
        b.until(
            &format!(
                "const g = document.getElementById('game'); return !!g && g.dataset.ply === '{ply}'"
            ),
            Duration::from_secs(60)
        )
        .await,
        "ply {ply} never shown"
    );
}

/// A move by two clicks, as a person makes it.
async fn click_move(b: &Browser, from: &str, to: &str) {
    my_move_from(b, from).await;
    assert!(
        b.click(&format!(".sq[data-square={from}]"), Duration::from_secs(5))
            .await
    );
    assert!(
        b.click(
            &format!(".sq.target[data-square={to}]"),
            Duration::from_secs(5)
        )
        .await,
        "{to} is not a target of {from}"
    );
    plain_if_asked(b).await;
}

/// A move from the keyboard alone: Enter on `from`, the arrows to `to`, Enter.
async fn key_move(b: &Browser, from: &str, to: &str) {
    my_move_from(b, from).await;
    b.js(&format!(
        "document.querySelector('.sq[data-square={from}]').focus(); return true;"
    ))
    .await;
    b.press(Key::Enter.into()).await;
    arrows_to(b, to).await;
    b.press(Key::Enter.into()).await;
    plain_if_asked(b).await;
}

/// Both widths the screenshots are made at.
pub(crate) async fn shots(b: &Browser, name: &str) {
    if std::env::var("SEALED_SCREENSHOTS").is_err() {
        return;
    }
    b.size(1280, 1000).await;
    screenshot(b, name).await;
    b.size(400, 1000).await;
    screenshot(b, &format!("{name}-narrow")).await;
    b.size(1280, 1000).await;
}

#[test]
fn check_flip_stepping_captures_focus_and_announcements_on_a_tempete_board() {
    with_driver(|d| async move {
        let (a, b) = (seat(&d, "alice", 61).await, seat(&d, "bob", 62).await);
        // Hoarfrost and Chill, a hand of one: a card may go with any move, so the page
        // asks which act; the plain move is chosen.
        propose(
            &a,
            &b,
            "tempete",
            &[("cards", "29,46"), ("hand", "1"), ("ply-limit", "40")],
            None,
        )
        .await;
        let (p, q) = (&a.b, &b.b);

        // 1. e4 by clicks: the keyboard stays on the square moved to.
        click_move(p, "e2", "e4").await;
        at_ply(p, 1).await;
        assert_eq!(
            focused(p).await.0.as_deref(),
            Some("e4"),
            "after a move by clicks the keyboard stays on the board"
        );
        // 1... f6 from the keyboard alone: the keyboard stays there too; alice's screen
        // reader is told.
        key_move(q, "f7", "f6").await;
        at_ply(q, 2).await;
        assert_eq!(
            focused(q).await.0.as_deref(),
            Some("f6"),
            "after a move by keys the keyboard stays on the board"
        );
        assert!(
            p.until(
                "const e = document.getElementById('announce'); return e.getAttribute('aria-live') === 'polite' && e.textContent === 'Opponent played f6'",
                Duration::from_secs(30)
            )
            .await,
            "the opponent's move announced: {:?}",
            p.text("#announce").await
        );

        // 2. Qh5+: Black's king on e8 is in check, marked and said at both boards.
        click_move(p, "d1", "h5").await;
        at_ply(q, 3).await;
        for (who, page, words) in [
            ("bob", q, "You are in check"),
            ("alice", p, "Black is in check"),
        ] {
            assert!(
                page.until(
                    "return !!document.querySelector('#board .sq.check[data-square=e8]')",
                    Duration::from_secs(30)
                )
                .await,
                "{who}: e8 marked"
            );
            assert_eq!(
                page.count("#board .sq.check").await,
                1,
                "{who}: one king in check"
            );
            assert!(
                page.square_label("e8").await.contains("check"),
                "{who}: {}",
                page.square_label("e8").await
            );
            assert!(
                page.text("#status").await.contains(words),
                "{who}: {}",
                page.text("#status").await
            );
        }
        assert!(
            q.text("#announce").await.starts_with("Opponent played Qh5"),
            "{}",
            q.text("#announce").await
        );
        shots(q, "tempete-check").await;
        let axe = axe_source();
        let mut failed = vec![];
        if let Some(axe) = &axe {
            check(
                q,
                axe,
                "a king in check",
                "return !!document.querySelector('.sq.check')",
                &mut failed,
            )
            .await;
        }

        // Alice looks back one move (the button), while bob answers 2... g6: her page stays
        // where she looks and says the move arrived.
        assert!(p.click("#step-back", Duration::from_secs(5)).await);
        assert!(
            p.until(
                "return document.getElementById('game').dataset.viewing === '2'",
                Duration::from_secs(5)
            )
            .await
        );
        let viewing = p.text("#viewing").await;
        assert!(
            viewing.contains("viewing move 1... f6 — press End to return"),
            "{viewing}"
        );
        assert!(
            p.square_label("d1").await.contains("White queen"),
            "the queen is home before 2. Qh5"
        );
        assert!(p.square_label("h5").await.contains("empty"));
        assert_eq!(p.count("#board .sq.check").await, 0, "no check before Qh5");
        assert_eq!(
            p.count("#board .sq.movable").await,
            0,
            "no move while looking back"
        );
        assert_eq!(
            p.text("#score .act.current").await,
            "f6",
            "the move shown is marked in the list"
        );
        key_move(q, "g7", "g6").await;
        at_ply(q, 4).await;
        assert!(
            p.until(
                "return document.getElementById('game').dataset.ply === '4'",
                Duration::from_secs(30)
            )
            .await,
            "alice's page read the new move"
        );
        assert_eq!(
            p.game_attr("viewing").await.as_deref(),
            Some("2"),
            "not yanked to the new move"
        );
        assert!(
            p.text("#arrived").await.contains("g6"),
            "{}",
            p.text("#arrived").await
        );
        shots(p, "tempete-stepping").await;
        // Home, Right (the keyboard on a step button, not the board), a move of the list.
        p.press(Key::Home.into()).await;
        assert!(
            p.until(
                "return document.getElementById('game').dataset.viewing === '0'",
                Duration::from_secs(5)
            )
            .await,
            "Home"
        );
        assert!(p.square_label("e2").await.contains("White pawn"));
        p.press(Key::Right.into()).await;
        assert!(
            p.until(
                "return document.getElementById('game').dataset.viewing === '1'",
                Duration::from_secs(5)
            )
            .await,
            "Right"
        );
        p.press(Key::Left.into()).await;
        assert!(
            p.until(
                "return document.getElementById('game').dataset.viewing === '0'",
                Duration::from_secs(5)
            )
            .await,
            "Left"
        );
        assert!(
            p.click("#score button.act[data-ply='3']", Duration::from_secs(5))
                .await
        );
        assert!(
            p.until(
                "return document.getElementById('game').dataset.viewing === '3'",
                Duration::from_secs(5)
            )
            .await,
            "a click in the list"
        );
        assert!(p.square_label("h5").await.contains("White queen"));
        assert_eq!(
            p.count("#board .sq.check").await,
            1,
            "the check after Qh5, shown while stepping"
        );
        if let Some(axe) = &axe {
            check(
                p,
                axe,
                "stepping back",
                "return !!document.getElementById('viewing')",
                &mut failed,
            )
            .await;
        }
        // End: back to the game as it stands, its moves open again.
        p.press(Key::End.into()).await;
        assert!(p.until("return !document.getElementById('game').dataset.viewing && !document.getElementById('viewing')", Duration::from_secs(5)).await, "End");
        assert!(p.square_label("g6").await.contains("Black pawn"));

        // 3. Qxg6+ hxg6: each side's losses and Black's lead of 8.
        click_move(p, "h5", "g6").await;
        at_ply(q, 5).await;
        key_move(q, "h7", "g6").await;
        at_ply(p, 6).await;
        let took = |side: &str| format!("#taken-{side} .sr-only");
        assert!(
            p.until("return document.querySelector('#taken-black') && document.querySelector('#taken-black').dataset.lead === '8'", Duration::from_secs(10)).await,
            "{}", p.text(&took("black")).await
        );
        assert_eq!(
            p.text(&took("black")).await,
            "Black has taken: queen; Black leads by 8"
        );
        assert_eq!(p.text(&took("white")).await, "White has taken: pawn");
        // White's row is below White's board, Black's above.
        let order = p
            .js("const t = document.getElementById('taken-white'), b = document.getElementById('board'); return !!(b.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING)")
            .await;
        assert_eq!(
            order,
            serde_json::json!(true),
            "White's losses row below the board"
        );

        // The flip: the button turns the board, a reload keeps it, f turns it back.
        let first = "return document.querySelector('#board .sq').dataset.square";
        assert_eq!(p.js(first).await, "a8", "White at the bottom by default");
        assert!(p.click("#flip", Duration::from_secs(5)).await);
        assert!(
            p.until(
                "return document.getElementById('board').dataset.flipped === 'yes'",
                Duration::from_secs(5)
            )
            .await
        );
        assert_eq!(p.js(first).await, "h1");
        if let Some(axe) = &axe {
            check(
                p,
                axe,
                "the board turned",
                "return document.getElementById('board').dataset.flipped === 'yes'",
                &mut failed,
            )
            .await;
        }
        assert!(failed.is_empty(), "axe-core: {failed:#?}");
        assert!(p.text("#taken-white").await.is_empty() || p.js("const t = document.getElementById('taken-white'), b = document.getElementById('board'); return !!(b.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_PRECEDING)").await == serde_json::json!(true));
        shots(p, "tempete-flip").await;
        p.c.refresh().await.unwrap();
        assert!(p.until("return !!document.getElementById('board') && document.getElementById('board').dataset.flipped === 'yes'", Duration::from_secs(30)).await, "the flip kept in this tab");
        p.js("document.activeElement && document.activeElement.blur(); return true;")
            .await;
        p.press('f').await;
        assert!(
            p.until(
                "return document.getElementById('board').dataset.flipped === 'no'",
                Duration::from_secs(5)
            )
            .await,
            "f turns it back"
        );
        assert_eq!(p.js(first).await, "a8");
        // Black's own side is at the bottom of bob's board.
        assert_eq!(q.js(first).await, "h1");
    });
}
