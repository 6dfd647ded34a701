//! Playing by clicks, as a person would: on this seat's turn, click a piece that can
//! move and one of the targets the board then shows (or a square to place on, or a
//! button the page offers), answer the page's follow-up questions (which of several
//! acts on those squares, which piece a card names — on the board —, which cards), and
//! let the page send it. No two answers offered may read the same. The choice among
//! what the page offers is random, from a seeded generator.

use std::time::{Duration, Instant};

use fantoccini::Locator;

use crate::driver::Browser;

/// A small deterministic generator (xorshift), so that a failing game can be replayed.
pub struct Rng(pub u64);

impl Rng {
    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        if n == 0 {
            0
        } else {
            (self.0 % n as u64) as usize
        }
    }
}

/// What a player prefers when the page offers it.
#[derive(Default)]
pub struct Prefs {
    /// Among acts on the same squares, one that plays a card.
    pub cards: bool,
    /// An interception, as soon as one is offered.
    pub intercept: bool,
}

/// Sets a form field as a person does: a list by clicking the option, a text field by
/// typing over what it holds.
pub async fn fill(b: &Browser, css: &str, value: &str) {
    let e = b.c.find(Locator::Css(css)).await.unwrap();
    if e.tag_name().await.unwrap() == "select" {
        let option = format!("{css} option[value='{value}']");
        assert!(
            b.click(&option, Duration::from_secs(2)).await,
            "no {option}"
        );
    } else {
        e.clear().await.unwrap();
        e.send_keys(value).await.unwrap();
    }
}

/// The buttons of game acts (not resign, draw offers or a decline: a game played to its
/// end by these tests ends by its rules).
pub const BUTTONS: &str = "#buttons button.choice:not([data-text='resign']):not([data-text='offer draw']):not([data-text='accept draw']):not([data-text='decline'])";

/// What one look at a page found.
enum Look {
    /// The game is over at this seat.
    Over,
    /// Not this seat's turn.
    Waiting,
    /// A click was made.
    Clicked,
    /// This seat's move, held back for a photograph.
    Held,
}

/// One click (or a few that belong together) if it is this seat's turn; none when the
/// turn comes at `hold` or a later ply.
async fn step(b: &Browser, rng: &mut Rng, prefs: &Prefs, hold: Option<u64>) -> Look {
    let phase = b.game_attr("phase").await;
    if phase.as_deref() == Some("done") {
        return Look::Over;
    }
    // The page asks something of an earlier click: answer it.
    if b.count("#question").await > 0 {
        let kind = b
            .js("return document.getElementById('question').dataset.kind")
            .await;
        let words = b
            .js("return [...document.querySelectorAll('#question button.answer')].map(e => e.textContent)")
            .await;
        let words: Vec<String> = serde_json::from_value(words).unwrap_or_default();
        let mut seen = std::collections::BTreeSet::new();
        for w in &words {
            assert!(
                seen.insert(w),
                "two answers read the same: {w:?} in {words:?}"
            );
        }
        match kind.as_str().unwrap_or_default() {
            "cards" => {
                // As many cards as the button counts, then send.
                let need = b
                    .js("const t = document.getElementById('send-cards').textContent; return parseInt(t.split(' of ')[1]);")
                    .await
                    .as_u64()
                    .unwrap_or(1) as usize;
                for _ in 0..need {
                    let left = b
                        .count("#question button.card-answer[aria-pressed=false]")
                        .await;
                    b.click_nth(
                        "#question button.card-answer[aria-pressed=false]",
                        rng.below(left),
                    )
                    .await;
                }
                b.click("#send-cards", Duration::from_secs(2)).await;
                return Look::Clicked;
            }
            "any-square" => {
                let n = b.count("#game .sq").await;
                b.click_nth("#game .sq", rng.below(n)).await;
                return Look::Clicked;
            }
            // A start card waits for its play: made on the board as any other.
            "play" => {}
            // A square is answered on the board itself.
            "square" => {
                let n = b.count("#game .sq.answer").await;
                assert!(n > 1, "a question of squares marks them on the board");
                b.click_nth("#game .sq.answer", rng.below(n)).await;
                return Look::Clicked;
            }
            _ => {
                let card = words.iter().position(|w| w.contains("card"));
                let i = match card {
                    Some(i) if prefs.cards => i,
                    _ => rng.below(words.len()),
                };
                b.click_nth("#question button.answer", i).await;
                return Look::Clicked;
            }
        }
    }
    if b.game_attr("myTurn").await.as_deref() != Some("yes") {
        return Look::Waiting;
    }
    let ply: u64 = b
        .game_attr("ply")
        .await
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    if hold.is_some_and(|h| ply >= h) {
        return Look::Held;
    }
    if prefs.intercept {
        let intercept = "#buttons button.choice[data-text^='intercept']";
        if b.count(intercept).await > 0 {
            b.click_nth(intercept, 0).await;
            return Look::Clicked;
        }
    }
    let movable = b.count("#game .sq.movable").await;
    let onto = b.count("#game .sq.target").await;
    let buttons = b.count(BUTTONS).await;
    if movable > 0 && (buttons == 0 || rng.below(5) > 0) {
        if b.click_nth("#game .sq.movable", rng.below(movable)).await {
            let targets = b.count("#game .sq.target").await;
            b.click_nth("#game .sq.target", rng.below(targets)).await;
        }
    } else if onto > 0 {
        b.click_nth("#game .sq.target", rng.below(onto)).await;
    } else if buttons > 0 {
        b.click_nth(BUTTONS, rng.below(buttons)).await;
    } else {
        return Look::Waiting;
    }
    Look::Clicked
}

/// Plays both pages by clicks until each says the game is over, or fails after `wait`
/// saying what each page showed. With `shot`, the first page is photographed once, the
/// first time it is its move at that ply or later, with a piece selected.
pub async fn until_over(
    pages: [&Browser; 2],
    rng: &mut Rng,
    prefs: &Prefs,
    wait: Duration,
    mut shot: Option<(&str, u64)>,
) {
    let start = Instant::now();
    let mut over = [false, false];
    while !(over[0] && over[1]) {
        let mut clicked = false;
        for (i, b) in pages.iter().enumerate() {
            let hold = shot.filter(|_| i == 0).map(|(_, ply)| ply);
            match step(b, rng, prefs, hold).await {
                Look::Over => over[i] = true,
                Look::Clicked => clicked = true,
                Look::Waiting => {}
                Look::Held => {
                    // A piece selected, its targets marked, then the photograph.
                    if b.count("#game .sq.movable").await > 0 {
                        b.click_nth("#game .sq.movable", rng.below(3)).await;
                    }
                    if let Some((name, _)) = shot.take() {
                        crate::screenshot(b, name).await;
                    }
                    clicked = true;
                }
            }
        }
        if start.elapsed() > wait {
            let mut said = vec![];
            for b in pages {
                said.push(
                    b.js("const s = document.getElementById('status'); return s ? s.textContent : document.getElementById('main').textContent;")
                        .await,
                );
            }
            panic!("the game did not end by clicks within {wait:?}: {said:?}");
        }
        if !clicked {
            tokio::time::sleep(Duration::from_millis(60)).await;
        }
    }
}
