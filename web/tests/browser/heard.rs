//! Secret Stallmate's check on the board (issue 55): a player sees only his own army, so
//! his king is marked in check from the referee's words heard after the opponent's move
//! ("check on long diagonal", …), not from the board. A game between real nodes with a
//! referee is steered to a check: the test reads both armies from the referee's board
//! (which the players never see) and makes each player's attempts through his node,
//! White aiming at a check and Black letting him; the page of the player in check must
//! mark his king and say so, and stop once he has moved. On the way, the player in
//! check steps back through his own army's positions.

use std::time::{Duration, Instant};

use sealed_games::chess::{Color, MoveKind, Position};
use sealed_games::table::TableView;

use crate::driver::Browser;
use crate::view::shots;
use crate::{Seat, propose, refereed_seats, with_driver};

/// Both armies as the referee's board shows them (`8 r n b q k b n r` … `  a b c d e f
/// g h`), with `turn` to move; `None` before the game's board exists.
fn position(referee: &TableView, turn: char) -> Option<Position> {
    let ranks: Vec<String> = referee
        .board
        .lines()
        .filter(|l| l.len() == 17 && l.as_bytes()[0].is_ascii_digit())
        .map(|l| {
            let mut out = String::new();
            let mut empty = 0;
            for c in l[2..].split(' ').filter_map(|t| t.chars().next()) {
                if c == '.' {
                    empty += 1;
                    continue;
                }
                if empty > 0 {
                    out.push_str(&empty.to_string());
                    empty = 0;
                }
                out.push(c);
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
            out
        })
        .collect();
    if ranks.len() != 8 {
        return None;
    }
    Position::from_fen(&format!("{} {turn} - - 0 1", ranks.join("/"))).ok()
}

/// The moves the test plays: no castling and no promotion, whose attempts are written
/// otherwise.
fn plain(pos: &Position) -> Vec<sealed_games::chess::Move> {
    pos.legal_moves()
        .into_iter()
        .filter(|m| !matches!(m.kind, MoveKind::Castle(_)) && m.promotion.is_none())
        .collect()
}

/// A move of the side to move that checks without ending the game.
fn checking(pos: &Position) -> Option<sealed_games::chess::Move> {
    plain(pos).into_iter().find(|m| {
        pos.play(m)
            .is_ok_and(|p| p.is_check() && !p.legal_moves().is_empty())
    })
}

/// The move the side to move makes: White checks when he can, else makes a move after
/// which a reply of Black's lets him check; Black, not in check, makes a move after which
/// White can check, giving none himself. Else the first move.
fn choose(pos: &Position, white: bool) -> Option<sealed_games::chess::Move> {
    let moves = plain(pos);
    let quiet = |m: &&sealed_games::chess::Move| pos.play(m).is_ok_and(|p| !p.is_check());
    if white {
        if let Some(m) = checking(pos) {
            return Some(m);
        }
        let opens = moves.iter().filter(quiet).find(|m| {
            pos.play(m).is_ok_and(|after| {
                plain(&after)
                    .iter()
                    .filter_map(|b| after.play(b).ok())
                    .any(|p| !p.is_check() && checking(&p).is_some())
            })
        });
        return opens.or(moves.first()).cloned();
    }
    if pos.is_check() {
        return moves.first().cloned();
    }
    let lets = moves
        .iter()
        .filter(quiet)
        .find(|m| pos.play(m).is_ok_and(|p| checking(&p).is_some()));
    lets.or(moves.iter().find(quiet)).or(moves.first()).cloned()
}

/// The check the page shows: its marked squares and its words.
async fn shown_check(b: &Browser) -> (Vec<String>, String) {
    let v = b
        .js("return [[...document.querySelectorAll('#board .sq.check')].map(s => s.dataset.square), (document.getElementById('check-status') || {}).textContent || '']")
        .await;
    let squares = v[0]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    (squares, v[1].as_str().unwrap_or_default().to_owned())
}

#[test]
fn a_stallmate_check_heard_marks_the_players_king() {
    with_driver(|d| async move {
        let (referee, raddr, _rdir, a, b) = refereed_seats(&d, [81, 82, 83]).await;
        let game = propose(&a, &b, "stallmate", &[("period", "15s")], Some(&raddr)).await;
        let side = |s: &Seat| {
            let game = game.clone();
            let node = s.node.clone();
            async move { node.show(&game).await.ok().and_then(|v| v.table.side) }
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        let (white, black): (&Seat, &Seat) = loop {
            match side(&a).await.as_deref() {
                Some("White") => break (&a, &b),
                Some("Black") => break (&b, &a),
                _ => {}
            }
            assert!(Instant::now() < deadline, "no side for alice");
            tokio::time::sleep(Duration::from_millis(200)).await;
        };

        // Each player moves when his node says it is his turn, until Black's turn
        // comes with his king in check.
        let deadline = Instant::now() + Duration::from_secs(300);
        let king = loop {
            assert!(Instant::now() < deadline, "no check was reached");
            let r = referee.show(&game).await.unwrap().table;
            let to_move = black.node.show(&game).await.unwrap().table;
            if to_move.my_turn
                && let Some(pos) = position(&r, 'b')
                && pos.is_check()
            {
                break pos
                    .kings(Color::Black)
                    .next()
                    .expect("Black's king")
                    .to_string();
            }
            let mut moved = false;
            for (s, white_moves) in [(white, true), (black, false)] {
                if !s.node.show(&game).await.unwrap().table.my_turn {
                    continue;
                }
                let Some(pos) = position(&r, if white_moves { 'w' } else { 'b' }) else {
                    continue;
                };
                let m = choose(&pos, white_moves).expect("a legal move");
                let text = format!("{}-{}", m.from, m.to);
                s.node
                    .act(&game, &text, None)
                    .await
                    .unwrap_or_else(|e| panic!("{text}: {e}"));
                moved = true;
            }
            if !moved {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        };

        // Black's page marks his king and says it, from the words heard; White's shows
        // no check (his own king is not in it).
        let q = &black.b;
        assert!(
            q.until(
                &format!("return !!document.querySelector('#board .sq.check[data-square={king}]')"),
                Duration::from_secs(30)
            )
            .await,
            "Black's king on {king} marked in check: {:?}; heard: {}",
            shown_check(q).await,
            q.text("#heard").await
        );
        let (squares, words) = shown_check(q).await;
        assert_eq!(squares, vec![king.clone()], "one king marked");
        assert!(
            words.contains(&format!("You are in check (king on {king})")),
            "{words}"
        );
        assert!(
            q.square_label(&king).await.contains("check"),
            "{}",
            q.square_label(&king).await
        );
        assert!(
            q.text("#heard li").await.contains("check"),
            "the words heard"
        );
        assert_eq!(
            shown_check(&white.b).await.0,
            Vec::<String>::new(),
            "White's page marks no check"
        );
        shots(q, "stallmate-check").await;

        // Black steps back through his own army (issue 55): one act a period in his
        // move list (White's unseen, his own by their squares), the start his whole
        // army, a move of his own marked, and End back to the game.
        assert_eq!(
            q.count("#step-off").await,
            0,
            "stepping on: {}",
            q.text("#step-off").await
        );
        let periods = q.count("#score button.act").await;
        assert!(periods >= 3, "{periods} periods in Black's move list");
        assert!(
            q.text("#score button.act[data-ply='1']")
                .await
                .contains("unseen"),
            "White's first move is unseen: {}",
            q.text("#score").await
        );
        let pieces = "return document.querySelectorAll('#board .sq .piece').length";
        assert!(q.click("#step-first", Duration::from_secs(5)).await);
        crate::steps::viewing(q, Some(0), "Black's start").await;
        assert_eq!(q.js(pieces).await, 16, "his whole army at the start");
        assert!(
            q.click("#score button.act[data-ply='2']", Duration::from_secs(5))
                .await
        );
        crate::steps::viewing(q, Some(2), "Black's first move").await;
        let own = q.text("#score button.act[data-ply='2']").await;
        let to = own.trim().rsplit('-').next().unwrap_or_default().to_owned();
        assert!(
            q.square_label(&to).await.contains("Black"),
            "his first move {own} put a piece of his on {to}: {}",
            q.square_label(&to).await
        );
        assert!(q.click("#step-last", Duration::from_secs(5)).await);
        crate::steps::viewing(q, None, "Black back at the game").await;

        // Black moves out of check: the mark goes with his turn.
        let r = referee.show(&game).await.unwrap().table;
        let pos = position(&r, 'b').expect("the referee's board");
        let m = choose(&pos, false).expect("a way out of check");
        let text = format!("{}-{}", m.from, m.to);
        black
            .node
            .act(&game, &text, None)
            .await
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(
            q.until(
                "return document.querySelectorAll('#board .sq.check').length === 0 && !document.getElementById('check-status')",
                Duration::from_secs(30)
            )
            .await,
            "no check once Black has moved: {:?}",
            shown_check(q).await
        );
    });
}
