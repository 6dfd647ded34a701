//! Tempête with the physical deck, by clicks on two boards (two nodes): White states a
//! card's effect on the board — a knight dragged, a pawn clicked away, a note — after
//! the node refused a placement that breaks the board in words shown on the page and
//! the placement was undone; Black's board shows the claim, Black accepts it with one
//! click (nothing is sent) and moves by dragging a pawn, and White's board shows the
//! claim accepted; White states another card, Black disputes it with one click (a
//! reason typed), and both boards list the open dispute; Black offers a settlement from
//! the keyboard alone (the knight put back), and White's next move settles it; White
//! then moves under his first card's continuing effect (a citation), which Black's
//! board shows. The edit mode and the claim panel pass axe-core.
//! `SEALED_SCREENSHOTS` saves docs/screens/tempete-physical.png (the edit mode, its
//! edits listed) and tempete-physical-claim.png (the other board's claim panel).
use std::time::Duration;

use fantoccini::Locator;
use fantoccini::actions::{InputSource, MOUSE_BUTTON_LEFT, MouseActions, PointerAction};

use fantoccini::key::Key;

use crate::asks::{arrows_to, focused, tab_until};
use crate::driver::Browser;
use crate::{axe, play, propose, screenshot, seat, with_driver};

const WAIT: Duration = Duration::from_secs(30);

/// Drags the piece on `from` to `to` with the mouse, as a person does: pressed on one
/// square, moved, let go on the other.
async fn drag(b: &Browser, from: &str, to: &str) {
    let at = |sq: &str| format!("#board button.sq[data-square='{sq}']");
    let a = b.c.find(Locator::Css(&at(from))).await.unwrap();
    let z = b.c.find(Locator::Css(&at(to))).await.unwrap();
    let moves = MouseActions::new("mouse".into())
        .then(PointerAction::MoveToElement {
            element: a,
            duration: None,
            x: 0.0,
            y: 0.0,
        })
        .then(PointerAction::Down {
            button: MOUSE_BUTTON_LEFT,
        })
        .then(PointerAction::MoveToElement {
            element: z,
            duration: Some(Duration::from_millis(150)),
            x: 0.0,
            y: 0.0,
        })
        .then(PointerAction::Up {
            button: MOUSE_BUTTON_LEFT,
        });
    b.c.perform_actions(moves).await.unwrap();
    b.c.release_actions().await.unwrap();
}

/// Clicks a square of the board.
async fn square(b: &Browser, sq: &str) {
    assert!(
        b.click(&format!("#board button.sq[data-square='{sq}']"), WAIT)
            .await,
        "no square {sq}"
    );
}

/// Waits until this page's board says it is its move and offers a stated card; clicks
/// the first one, and returns its number.
async fn state_a_card(b: &Browser) -> u64 {
    assert!(
        b.until(
            "const g = document.getElementById('game'); return !!g && g.dataset.myTurn === 'yes' && !!document.querySelector('button.state-card:not([disabled])');",
            Duration::from_secs(60)
        )
        .await,
        "no stated card to play: {}",
        b.js("return document.getElementById('main').textContent")
            .await
    );
    let card = b
        .js("return parseInt(document.querySelector('button.state-card').dataset.card)")
        .await
        .as_u64()
        .unwrap();
    assert!(b.click("button.state-card", WAIT).await);
    assert!(
        b.until("return !!document.getElementById('phys-edit')", WAIT)
            .await
    );
    card
}

/// Shift+Tab: the keyboard one element back.
async fn shift_tab(b: &Browser) {
    use fantoccini::actions::{KeyAction, KeyActions};
    let keys = KeyActions::new("keyboard".into())
        .then(KeyAction::Down {
            value: Key::Shift.into(),
        })
        .then(KeyAction::Down {
            value: Key::Tab.into(),
        })
        .then(KeyAction::Up {
            value: Key::Tab.into(),
        })
        .then(KeyAction::Up {
            value: Key::Shift.into(),
        });
    b.c.perform_actions(keys).await.unwrap();
}

/// Drags a piece as this page's move, and waits until the page shows it made.
async fn drag_move(b: &Browser, from: &str, to: &str) {
    let at = ply(b).await;
    drag(b, from, to).await;
    assert!(
        b.until(
            &format!("return parseInt(document.getElementById('game').dataset.ply) > {at}"),
            WAIT
        )
        .await,
        "dragging {from} to {to} made no move: {}",
        b.text("#main").await
    );
}

/// Waits until `script` is true on both boards; says which did not show `what`.
async fn on_both(boards: [(&Browser, &str); 2], script: &str, what: &str) {
    for (p, who) in boards {
        assert!(
            p.until(script, Duration::from_secs(60)).await,
            "{who}'s board does not show {what}: {}",
            p.text("#claims").await
        );
    }
}

async fn ply(b: &Browser) -> u64 {
    b.game_attr("ply")
        .await
        .and_then(|p| p.parse().ok())
        .unwrap_or(0)
}

#[test]
fn a_physical_card_is_stated_by_clicks_and_accepted_or_disputed_on_the_other_board() {
    let axe_js = axe::axe_source();
    with_driver(|d| async move {
        let (a, b) = (seat(&d, "alice", 61).await, seat(&d, "bob", 62).await);
        // Every card stated: a hand of three from six numbers outside the seed's ten.
        propose(
            &a,
            &b,
            "tempete",
            &[("deck", "physical"), ("cards", "1-6"), ("hand", "3")],
            None,
        )
        .await;
        let (w, k) = (&a.b, &b.b);
        let mut failed = vec![];

        // White: card, a drag (the knight to h3), a click (the pawn on e7 removed).
        let card = state_a_card(w).await;
        drag(w, "g1", "h3").await;
        assert!(
            w.until(
                "return document.querySelectorAll('#phys-edits li').length === 1",
                WAIT
            )
            .await,
            "the drag made no edit: {}",
            w.text("#phys-edit").await
        );
        square(w, "e7").await;
        assert!(
            w.until(
                "return document.querySelectorAll('#phys-edits li').length === 2",
                WAIT
            )
            .await
        );
        // The board shows the position after the edits.
        assert!(w.square_label("h3").await.contains("White knight"));
        assert!(w.square_label("g1").await.contains("empty"));
        assert!(w.square_label("e7").await.contains("empty"));
        assert!(w.square_label("e7").await.contains("changed by your edits"));
        // A stated card needs its note.
        assert_eq!(
            w.js("return document.getElementById('phys-send').disabled")
                .await,
            serde_json::Value::Bool(true),
            "sent without a note"
        );
        play::fill(w, "#phys-note", "knights fly, a pawn falls").await;
        play::fill(w, "#phys-lasting", "10").await;
        // A white pawn placed on the first rank: the node refuses it, in words, and the
        // edits stay for the player to undo.
        assert!(w.click("button.tool[data-tool=place]", WAIT).await);
        assert!(w.click("button.piece-pick[data-piece=P]", WAIT).await);
        square(w, "g1").await;
        assert!(
            w.until(
                "return document.querySelectorAll('#phys-edits li').length === 3",
                WAIT
            )
            .await
        );
        let before = ply(w).await;
        assert!(w.click("#phys-send", WAIT).await);
        assert!(
            w.until(
                "return document.getElementById('phys-error').textContent.includes('first or last rank')",
                WAIT
            )
            .await,
            "the refusal is not shown: {}",
            w.text("#phys-edit").await
        );
        assert_eq!(ply(w).await, before, "nothing was sent");
        assert!(w.click("#phys-undo", WAIT).await);
        assert!(
            w.until(
                "return document.querySelectorAll('#phys-edits li').length === 2",
                WAIT
            )
            .await
        );
        let sends = w.text("#phys-text").await;
        assert_eq!(
            sends,
            format!("card {card} then g1h3 remove e7 for 10 note knights fly, a pawn falls")
        );
        screenshot(w, "tempete-physical").await;
        if let Some(src) = &axe_js {
            axe::check(
                w,
                src,
                "physical: the edit mode",
                "return !!document.getElementById('phys-edit')",
                &mut failed,
            )
            .await;
        }
        assert!(w.click("#phys-send", WAIT).await);
        assert!(
            w.until(
                "return !!document.querySelector('#my-claims li[data-state=waiting]')",
                WAIT
            )
            .await,
            "White's board does not list the claim waiting: {}",
            w.text("#main").await
        );
        let act = w
            .js("return parseInt(document.querySelector('#my-claims li[data-state=waiting]').dataset.act)")
            .await
            .as_u64()
            .unwrap();

        // Black: the claim, in words, with Accept and Dispute.
        let panel = format!(".claim[data-act='{act}'][data-state=answerable]");
        assert!(
            k.until(
                &format!("return !!document.querySelector(\"{panel}\")"),
                Duration::from_secs(60)
            )
            .await,
            "Black's board shows no claim: {}",
            k.text("#main").await
        );
        let words = k.text(&format!("{panel} .claim-words")).await;
        assert_eq!(
            words,
            format!("alice (White) plays card {card}: then g1h3 remove e7 for 10")
        );
        let note = k.text(&format!("{panel} .claim-note")).await;
        assert_eq!(note, "Note: knights fly, a pawn falls");
        screenshot(k, "tempete-physical-claim").await;
        if let Some(src) = &axe_js {
            axe::check(
                k,
                src,
                "physical: the claim panel",
                &format!("return !!document.querySelector(\"{panel}\")"),
                &mut failed,
            )
            .await;
        }
        // Accept sends nothing: the panel says so and folds away.
        let at = ply(k).await;
        assert!(
            k.click(&format!("{panel} button[data-claim-act=accept]"), WAIT)
                .await
        );
        assert!(
            k.until(
                &format!("return !!document.querySelector(\".claim.accepted[data-act='{act}']\")"),
                WAIT
            )
            .await
        );
        assert!(
            k.text(".claim.accepted")
                .await
                .contains("Your next move sends the acceptance")
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(ply(k).await, at, "Accept sent something");
        // Black's move, dragged: d7-d5.
        drag_move(k, "d7", "d5").await;
        assert_eq!(
            k.count(&panel).await,
            0,
            "still answerable after Black's move"
        );
        assert!(
            w.until(&format!("return !!document.querySelector(\"#my-claims li[data-act='{act}'][data-state=accepted]\")"), Duration::from_secs(60))
                .await,
            "White's board does not show the claim accepted: {}",
            w.text("#claims").await
        );
        // A physical card's stated effect is in the positions the node gives (the page
        // could not replay it, and said stepping was off): Black steps back to the start,
        // the knight on g1 and e7's pawn home, then returns.
        assert!(k.click("#step-back", WAIT).await, "stepping is off");
        k.press(Key::Home.into()).await;
        assert!(
            k.until(
                "return document.getElementById('game').dataset.viewing === '0'",
                WAIT
            )
            .await,
            "not at the start: {}",
            k.text("#viewing").await
        );
        assert!(k.square_label("g1").await.contains("White knight"));
        assert!(k.square_label("e7").await.contains("Black pawn"));
        k.press(Key::End.into()).await;
        assert!(
            k.until(
                "return !document.getElementById('game').dataset.viewing",
                WAIT
            )
            .await,
            "not back"
        );

        // White states another card (a knight dragged); Black disputes it, one click.
        let second = state_a_card(w).await;
        assert_ne!(second, card);
        drag(w, "b1", "c3").await;
        // A note is the opponent's words: shown as text, never as markup.
        play::fill(w, "#phys-note", "another <b>flight</b>").await;
        assert!(w.click("#phys-send", WAIT).await);
        let disputed =
            ".claim[data-state=answerable] button[data-claim-act=dispute]:not([disabled])";
        assert!(
            k.until(
                &format!("return !!document.querySelector(\"{disputed}\")"),
                Duration::from_secs(60)
            )
            .await,
            "the second claim is not on Black's board: {}",
            k.text("#main").await
        );
        let act2 = k
            .js("return parseInt(document.querySelector('.claim[data-state=answerable]').dataset.act)")
            .await
            .as_u64()
            .unwrap();
        assert!(act2 > act);
        assert_eq!(
            k.text(&format!(".claim[data-act='{act2}'] .claim-note"))
                .await,
            "Note: another <b>flight</b>"
        );
        assert_eq!(k.count(".claim b").await, 0, "the note became markup");
        play::fill(k, &format!("#why-{act2}"), "no card flies twice").await;
        assert!(k.click(disputed, WAIT).await);
        let boards = [(k, "Black"), (w, "White")];
        on_both(boards, &format!("return !!document.querySelector(\"#disputes li[data-state=open]\") && document.querySelector('#disputes li').textContent.includes('of act {act2}') && document.querySelector('#disputes li').textContent.includes(': no card flies twice')"), "the open dispute with its reason").await;
        assert!(
            w.until(&format!("return !!document.querySelector(\"#my-claims li[data-act='{act2}'][data-state=disputed]\")"), WAIT)
                .await
        );
        // A dispute does not pass the turn: Black still moves, and first offers a
        // settlement, from the keyboard alone: the knight back to b1.
        assert_eq!(k.game_attr("myTurn").await.as_deref(), Some("yes"));
        assert!(
            tab_until(k, "e.matches('button.settle')").await,
            "Tab reaches Settle"
        );
        k.press(Key::Enter.into()).await;
        assert!(
            k.until("const e = document.getElementById('phys-edit'); return !!e && e.dataset.mode === 'settle'", WAIT)
                .await
        );
        assert!(tab_until(k, "e.matches('button.tool[data-tool=move]')").await);
        k.press(Key::Enter.into()).await;
        assert!(k.until("return document.querySelector('button.tool[data-tool=move]').getAttribute('aria-pressed') === 'true'", WAIT).await);
        for _ in 0..10 {
            if focused(k).await.0.is_some() {
                break;
            }
            shift_tab(k).await;
        }
        arrows_to(k, "c3").await;
        k.press(Key::Enter.into()).await;
        assert!(k.square_label("c3").await.contains("selected"));
        arrows_to(k, "b1").await;
        k.press(Key::Enter.into()).await;
        assert!(
            k.until(
                "return document.querySelectorAll('#phys-edits li').length === 1",
                WAIT
            )
            .await,
            "no edit from the keyboard: {}",
            k.text("#phys-edit").await
        );
        assert!(tab_until(k, "e.id === 'phys-note'").await);
        k.type_text("the knight goes back").await;
        assert_eq!(
            k.text("#phys-text").await,
            "settle 0 then c3b1 note the knight goes back"
        );
        assert!(tab_until(k, "e.id === 'phys-send'").await);
        k.press(Key::Enter.into()).await;
        on_both(
            boards,
            "return !!document.querySelector('#disputes li[data-state=offered]')",
            "the settlement offered",
        )
        .await;
        on_both(boards, "const e = document.querySelector(\"#board button.sq[data-square='b1']\"); return !!e && e.getAttribute('aria-label').includes('White knight')", "the knight back on b1").await;
        // Black moves; White's next move accepts the settlement.
        drag_move(k, "a7", "a6").await;
        assert!(
            w.until(
                "return document.getElementById('game').dataset.myTurn === 'yes'",
                WAIT
            )
            .await
        );
        drag_move(w, "a2", "a3").await;
        on_both(
            boards,
            "return !!document.querySelector('#disputes li[data-state=settled]')",
            "the dispute settled",
        )
        .await;
        // The first card's effect continues: after Black's move, White moves under it
        // (the knight as the card lets it), and Black's board shows the citation.
        on_both(
            boards,
            &format!("return !!document.querySelector(\"#lasting li[data-act='{act}']\")"),
            "the continuing effect",
        )
        .await;
        drag_move(k, "h7", "h6").await;
        assert!(
            w.click(&format!("#lasting li[data-act='{act}'] button.cite"), WAIT)
                .await
        );
        assert!(
            w.until("const e = document.getElementById('phys-edit'); return !!e && e.dataset.mode === 'cite'", WAIT)
                .await
        );
        drag(w, "h3", "h5").await;
        play::fill(w, "#phys-note", "the knight flies again").await;
        assert_eq!(
            w.text("#phys-text").await,
            format!("cite {act} then h3h5 note the knight flies again")
        );
        assert!(w.click("#phys-send", WAIT).await);
        assert!(
            k.until(&format!("return [...document.querySelectorAll('.claim .claim-words')].some(e => e.textContent === 'alice (White) plays cite {act}: then h3h5')"), Duration::from_secs(60))
                .await,
            "Black's board does not show the citation: {}",
            k.text("#claims").await
        );
        assert!(failed.is_empty(), "accessibility:\n{}", failed.join("\n"));
    });
}
