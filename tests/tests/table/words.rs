//! What a table says to its player before the game starts and on a Tempête turn, in a
//! player's words (issue 32): no protocol phase names, no "nobody is to act" above "you:
//! accept or decline", no interception offered without a card that can make one, and a
//! card move explained with an example rather than a grammar.

use std::collections::BTreeSet;

use sealed_conformance::view_json::ViewJson as _;
use sealed_games::table::{Asked, Table};

use crate::net::*;
use sealed_conformance::peer::Read as _;

fn header(t: &dyn Table) -> String {
    let text = t.text();
    text.lines().nth(1).unwrap_or_default().to_owned()
}

#[test]
fn before_acceptance_each_side_reads_what_it_waits_for() {
    for variant in ["duel", "tempete", "chex", "cardmate"] {
        let net = Net::new(variant, 3);
        // Nothing delivered yet: the invitee decides, the proposer waits.
        let invitee = &net.sessions[1];
        let h = header(invitee.as_ref());
        assert!(
            h.starts_with("invitation · ply 0 · you are to accept or decline"),
            "{variant}: {h}"
        );
        let proposer = &net.sessions[0];
        let h = header(proposer.as_ref());
        assert!(
            h.starts_with("not started · ply 0 · no moves until it starts"),
            "{variant}: {h}"
        );
        for t in [invitee, proposer] {
            let text = t.text();
            for jargon in ["phase ", "nobody is to act", "terms ·", "commit ·"] {
                assert!(!text.contains(jargon), "{variant}: {jargon:?} in {text}");
            }
        }
        // A move before the game started: what it waits for, not "(phase commit)".
        let err = crate::typing::refused(proposer.as_ref(), "e4");
        assert!(!err.contains("phase"), "{variant}: {err}");
    }
    let net = Net::new("chex", 3);
    let err = crate::typing::refused(net.sessions[0].as_ref(), "e4");
    assert!(
        err.starts_with("the game has not started yet: it waits for your opponent"),
        "{err}"
    );
    assert!(err.contains("to accept"), "{err}");
    assert!(!err.contains("phase"), "{err}");
}

fn tempete(cards: &str, nonce: u8) -> Net {
    let options: Vec<(String, String)> = [("cards", cards), ("hand", "1"), ("ply-limit", "8")]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    Net::with_terms("tempete", terms_with("tempete", &options, nonce), nonce)
}

#[test]
fn tempete_offers_an_interception_only_with_a_card_that_makes_one() {
    // Hoarfrost and Chill (29, 46) freeze a piece: neither intercepts; card 66 replaces
    // a move, so with it in hand the opponent's turn may be intercepted.
    let mut seen = BTreeSet::new();
    for nonce in 0..12 {
        let mut net = tempete("29,46,66", nonce);
        net.run_until(Mode::Bot, |n| {
            n.sessions
                .iter()
                .any(|t| t.turn().ply >= 1 && t.turn().my_turn)
        });
        let t = net
            .sessions
            .iter()
            .find(|t| t.turn().my_turn)
            .expect("to move");
        let hand = t.show_json()["hand"]["cards"].to_string();
        let holds_66 = hand.contains("\"card\":66");
        let expected = if holds_66 {
            "you: your move, or intercept the opponent's turn with a card"
        } else {
            "you: your move"
        };
        assert_eq!(t.waiting_for(), expected, "{hand}\n{}", t.text());
        seen.insert(holds_66);
    }
    assert_eq!(seen.len(), 2, "both hands came up: {seen:?}");
}

#[test]
fn a_card_move_is_explained_with_an_example_that_is_taken() {
    let mut net = tempete("29,46", 0);
    net.run_until(Mode::Bot, |n| n.sessions[0].turn().my_turn);
    let t = &net.sessions[0];
    let view = t.show_json();
    let hint = view["actions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a.as_str())
        .find(|a| a.starts_with("card "))
        .unwrap_or_else(|| panic!("no card hint in {}", view["actions"]));
    assert!(!hint.contains('['), "a grammar: {hint}");
    assert!(!hint.contains("<moves>"), "a grammar: {hint}");
    assert!(hint.contains("type \"card "), "{hint}");
    assert!(hint.contains("\"at\" and the squares it acts on"), "{hint}");
    assert!(hint.contains("\"then\" and the moves it allows"), "{hint}");
    // The example is a command the table takes as it is written.
    let example = hint.split("e.g. ").nth(1).expect("an example");
    t.command(Asked::Words(example))
        .unwrap_or_else(|e| panic!("{example:?} is refused: {e}"));
}

/// Tempête's `show` says the last act as its score writes it, and whose it was (issue
/// 55: the terminal never said what the opponent just did, a card's effect included):
/// after every round of a bot game, at both seats, the line names the opponent or "you"
/// and its act is the last one the score holds.
#[test]
fn tempete_show_says_the_last_act_and_whose() {
    let mut net = Net::new("tempete", 5);
    let mut theirs = 0;
    for _ in 0..400 {
        let moved = net.step(Mode::Bot);
        for (i, t) in net.sessions.iter().enumerate() {
            let view = t.view();
            let Some(score) = view.score.as_deref() else {
                continue;
            };
            let text = t.text();
            let Some(line) = text.lines().find(|l| l.starts_with("last act (")) else {
                assert!(
                    view.ply < 3,
                    "seat {i}: no last act at ply {}\n{text}",
                    view.ply
                );
                continue;
            };
            let (who, act) = line["last act (".len()..]
                .split_once("): ")
                .unwrap_or_else(|| panic!("{line}"));
            // The act as the score writes it (its card comment aside; the score marks
            // a check after the last move, and wraps its lines).
            let plain = |t: &str| -> String {
                let t = t.replace(['+', '#'], "");
                t.split_whitespace().collect::<Vec<_>>().join(" ")
            };
            let written = plain(act.split(" {").next().unwrap_or(act));
            assert!(
                plain(score).contains(&written),
                "seat {i}: {written:?} not in\n{score}"
            );
            match who {
                "you" => {}
                w if w.starts_with("your opponent") => theirs += 1,
                other => panic!("seat {i}: the last act by {other:?}"),
            }
        }
        if !moved || net.all_done() {
            break;
        }
    }
    assert!(theirs > 10, "{theirs} of the opponent's acts said");
}

/// Every Tempête act that plays a card says which (`card`), and no plain move does, so
/// that a board marks apart the squares only a card reaches (issue 55: the hints mixed
/// them in): over a bot game, at both seats.
#[test]
fn tempete_choices_say_the_card_they_play() {
    let mut net = Net::new("tempete", 7);
    let (mut carded, mut plain) = (0, 0);
    for _ in 0..300 {
        let moved = net.step(Mode::Bot);
        for t in &net.sessions {
            for c in t.view().choices.iter().filter(|c| c.generic.is_none()) {
                match c.card {
                    Some(n) => {
                        assert!(
                            c.words.starts_with(&format!("card {n} ")),
                            "{c:?} plays card {n}"
                        );
                        carded += 1;
                    }
                    None => {
                        assert!(!c.words.starts_with("card "), "{c:?} plays a card");
                        plain += usize::from(c.to.is_some());
                    }
                }
            }
        }
        if !moved || net.all_done() {
            break;
        }
    }
    assert!(
        carded > 10 && plain > 10,
        "{carded} card plays, {plain} plain moves"
    );
}
