//! The accessibility check: axe-core (from npm, at the version `.ci/run` installs,
//! `SEALED_AXE` to use another copy) run in the page by the browser tests, every rule
//! on, on the games list with an invitation, the new game form, an invitation's page,
//! each variant's board (with a piece selected where it has one) and a finished game.
//! A serious or critical violation fails the test, each one listed with where it is.

use std::time::Duration;

use crate::driver::{self, Browser};
use crate::{cfg, invite, node, propose, seat, with_driver};

/// The pinned axe-core `.ci/run` installs (`npm install --prefix target/axe
/// axe-core@4.10.3`).
const AXE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../target/axe/node_modules/axe-core/axe.min.js"
);

/// axe-core's source; `None` (the test skipped, saying what to install) when it is
/// missing, unless a missing part must fail (`SEALED_REQUIRE=all`, as in CI).
pub(crate) fn axe_source() -> Option<String> {
    let path = std::env::var("SEALED_AXE").unwrap_or_else(|_| AXE.to_owned());
    match std::fs::read_to_string(&path) {
        Ok(s) => Some(s),
        Err(e) => {
            let why = format!(
                "axe-core is missing at {path} ({e}): `npm install --prefix target/axe \
                 --no-save axe-core@4.10.3` (.ci/run does), or SEALED_AXE=<axe.min.js>"
            );
            assert!(!driver::required(), "{why}");
            driver::skipped_line(&format!("skipped: {why}"));
            None
        }
    }
}

/// Runs axe on the page as it is now; the serious and critical violations, in words.
async fn violations(b: &Browser, axe: &str) -> Vec<String> {
    b.c.execute(axe, vec![]).await.expect("axe loads");
    let found = b
        .c
        .execute_async(
            "const done = arguments[arguments.length - 1];\
             axe.run(document, { resultTypes: ['violations'] })\
               .then(r => done(r.violations\
                 .filter(v => v.impact === 'serious' || v.impact === 'critical')\
                 .map(v => v.impact + ' ' + v.id + ': ' + v.help + ' — ' + v.nodes.slice(0, 5)\
                   .map(n => n.target.join(' ') + ' (' + (n.failureSummary || '').replace(/\\s+/g, ' ') + ')').join('; '))))\
               .catch(e => done(['axe failed: ' + e]));",
            vec![],
        )
        .await
        .expect("axe runs");
    serde_json::from_value(found).unwrap_or_default()
}

/// Checks the page once `ready` (a script) is true; collects what fails under `name`.
pub(crate) async fn check(
    b: &Browser,
    axe: &str,
    name: &str,
    ready: &str,
    failed: &mut Vec<String>,
) {
    assert!(
        b.until(ready, Duration::from_secs(30)).await,
        "{name} never showed"
    );
    // The passing notice belongs to no page.
    b.js("document.getElementById('toast').className = ''; return true;")
        .await;
    for v in violations(b, axe).await {
        failed.push(format!("{name}: {v}"));
    }
}

#[test]
fn no_page_has_a_serious_accessibility_violation() {
    if driver::skipped() {
        return;
    }
    let Some(axe) = axe_source() else {
        return;
    };
    with_driver(|d| async move {
        let mut rc = cfg();
        rc.core.referee = true;
        let (_referee, raddr, _rdir) = node("referee", 49, rc).await;
        // The inviter calls himself "alice (you)": on alice's page only her own seat
        // says "you", and his shows his peer id.
        let (a, b) = (
            seat(&d, "alice", 41).await,
            seat(&d, "alice (you)", 42).await,
        );
        let mut failed = vec![];
        let ab = a.board.addr();
        // An invitation on the games list, and its own page.
        let invited = invite(&b.node, "tempete", &[], &a.addr, None).await;
        a.b.goto(&format!("http://{ab}/#/")).await;
        // The check itself can fail: a button with no name, put in the page (outside
        // what the page redraws), is found.
        assert!(
            a.b.until(
                "return !!document.querySelector('button[data-act=accept]')",
                Duration::from_secs(30)
            )
            .await
        );
        a.b.js("const p = document.createElement('button'); p.id = 'axe-probe'; document.body.append(p); return true;")
            .await;
        let probe = violations(&a.b, &axe).await;
        assert!(
            probe
                .iter()
                .any(|v| v.contains("button-name") && v.contains("#axe-probe")),
            "axe did not find the nameless button: {probe:?}"
        );
        a.b.js("document.getElementById('axe-probe').remove(); return true;")
            .await;
        check(
            &a.b,
            &axe,
            "games list",
            "return !!document.querySelector('button[data-act=accept]')",
            &mut failed,
        )
        .await;
        let row = a
            .b
            .js(&format!(
                "const r = document.querySelector(\"tr[data-game='{invited}']\"); \
                 return [r.querySelectorAll('td[data-label=players] .you').length, r.querySelectorAll('td[data-label=players] .peer').length]"
            ))
            .await;
        assert_eq!(
            row,
            serde_json::json!([1, 1]),
            "one `you`, and the stranger's peer id"
        );
        a.b.goto(&format!("http://{ab}/#/game/{invited}")).await;
        check(&a.b, &axe, "an invitation", "return !!document.querySelector('#buttons button[data-text=accept]') && !!document.querySelector('.invitation')", &mut failed).await;
        // Nothing dealt yet: no empty hand on show, the side and the terms instead.
        let page =
            a.b.js("return document.getElementById('main').textContent")
                .await;
        let page = page.as_str().unwrap();
        assert!(
            !page.contains("Your hand")
                && page.contains("you would play Black")
                && page.contains("(default)"),
            "{page}"
        );
        a.b.goto(&format!("http://{ab}/#/new")).await;
        check(
            &a.b,
            &axe,
            "new game form",
            "return !!document.getElementById('propose')",
            &mut failed,
        )
        .await;
        // Each variant's board, with a piece selected where there is one to select.
        let games = [
            ("duel", None),
            ("cardmate", None),
            ("chex", None),
            ("tempete", None),
            ("stallmate", Some(&raddr)),
        ];
        if let Some(r) = games[4].1 {
            a.node.dial(r.clone()).await.unwrap();
            b.node.dial(r.clone()).await.unwrap();
        }
        for (variant, referee) in games {
            let game = propose(&a, &b, variant, &[], referee).await;
            let ready = "const g = document.getElementById('game'); return !!g && g.dataset.phase === 'play'";
            for (s, who) in [(&a, "proposer"), (&b, "invitee")] {
                s.b.goto(&format!("http://{}/#/game/{game}", s.board.addr()))
                    .await;
                assert!(
                    s.b.until(ready, Duration::from_secs(60)).await,
                    "{variant} started"
                );
                if s.b.count("#board .sq.movable").await > 0 {
                    s.b.click_nth("#board .sq.movable", 0).await;
                }
                check(
                    &s.b,
                    &axe,
                    &format!("{variant} ({who})"),
                    ready,
                    &mut failed,
                )
                .await;
            }
            if variant == "tempete" {
                // A finished game: the result on top, the verdict, the downloads.
                let resign = "#buttons button[data-text=resign]";
                assert!(b.b.click(resign, Duration::from_secs(10)).await);
                assert!(b.b.click(resign, Duration::from_secs(5)).await);
                check(&b.b, &axe, "a finished game", "return !!document.getElementById('verdict') && !!document.getElementById('result')", &mut failed).await;
            }
        }
        assert!(failed.is_empty(), "accessibility:\n{}", failed.join("\n"));
    });
}
