//! What the table tests check of every table: its views, its choices, and a finished
//! game (the same transcript everywhere, verified, the score replaying to the board).

use sealed_conformance::view_json::ViewJson as _;
use sealed_games::cardmate::{self};
use sealed_games::chex::engine as chex_engine;
use sealed_games::stallmate::peer::Stallmate;
use sealed_games::table::{Ask, Asked, Document, Table};
use sealed_games::variant::{Variant, check_transcript};
use sealed_protocol::ids::{LogId, Seat};
use sealed_protocol::proposal::Terms;
use sealed_protocol::rules::Rules;
use sealed_protocol::session::Command;
use sealed_protocol::verdict::Status;
use sealed_protocol::wire;

use crate::net::*;
use crate::typing::*;
use sealed_conformance::peer::Read as _;

/// Every choice a board would offer is an act the table takes: its text parses (a
/// choice that asks one more thing has its blank), the generic words are among them,
/// and what the bot would do is one of them (unless it needs an answer the list leaves
/// to the player: a Tempête trap square, discards, a start card's play).
pub(crate) fn check_choices(t: &dyn Table, bot: Option<&Command>) {
    let choices = t.view().choices;
    let show = t.show_json();
    assert_eq!(serde_json::to_value(&choices).unwrap(), show["choices"]);
    // The view reads back as the view it was (the CLI decodes what the node sends):
    // each hand finds its own shape, nothing is lost or added on the way.
    let back: sealed_games::table::TableView =
        serde_json::from_value(show.clone()).expect("the view reads back");
    assert_eq!(serde_json::to_value(&back).unwrap(), show);
    // A board asks what tells choices apart one question at a time (the web board's
    // question): acts on the same squares in the same words must differ in what they
    // name, or a person could not choose between them; a square named, and each square
    // of the last move, is a square of the board.
    let squares: std::collections::BTreeSet<String> = show["grid"]["cells"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["square"].as_str().map(str::to_owned))
        .collect();
    let mut groups = std::collections::BTreeMap::new();
    for c in &choices {
        let named: Vec<String> = c
            .names
            .iter()
            .map(|n| format!("{}: {}", n.what, n.words))
            .collect();
        for sq in c.names.iter().filter_map(|n| n.square.as_ref()) {
            assert!(squares.contains(sq), "{c:?} names {sq}, not on the board");
        }
        groups
            .entry((
                c.from.clone(),
                c.to.clone(),
                c.words.clone(),
                c.ask.is_some(),
            ))
            .or_insert_with(Vec::new)
            .push(named);
    }
    for (key, named) in groups {
        let distinct: std::collections::BTreeSet<&Vec<String>> = named.iter().collect();
        assert_eq!(
            distinct.len(),
            named.len(),
            "choices {key:?} cannot be told apart: {named:?}\n{}",
            t.text()
        );
    }
    for sq in show["last"].as_array().expect("`last` is a list") {
        assert!(
            squares.contains(sq.as_str().unwrap_or_default()),
            "the last move's {sq} is not on the board"
        );
    }
    let mut parsed = vec![];
    // A plain move, to follow a start card.
    let play = choices
        .iter()
        .find(|c| c.ask.is_none() && c.from.is_some() && !c.words.contains("card"))
        .map(|c| c.text.clone());
    for c in &choices {
        if let Some(ask) = &c.ask {
            assert!(c.text.contains("{}"), "{c:?}");
            let answer = match ask {
                Ask::Square { .. } => Some("e4".to_owned()),
                Ask::Play => play.clone(),
                Ask::Cards { count, .. } => {
                    // Other cards of the hand than the one played (`card N …`).
                    let played = c.text.split_whitespace().nth(1).unwrap_or_default();
                    let others: Vec<String> = show["hand"]["cards"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|c| c["card"].to_string())
                        .filter(|n| n != played)
                        .take(usize::from(*count))
                        .collect();
                    Some(others.join(" "))
                }
            };
            if let Some(a) = answer {
                let text = c.text.replace("{}", &a);
                if let Err(e) = t.command(Asked::Words(&text)) {
                    panic!("{text:?} ({c:?}) is refused: {e}\n{}", t.text());
                }
            }
            continue;
        }
        match t.command(Asked::Words(&c.text)) {
            Ok(cmd) => parsed.push(cmd),
            Err(e) => panic!("{c:?} is refused: {e}\n{}", t.text()),
        }
    }
    let actions = &show["actions"];
    for word in ["resign", "offer draw", "accept draw", "accept", "decline"] {
        if actions.as_array().unwrap().iter().any(|a| a == word) {
            assert!(choices.iter().any(|c| c.text == word), "{word}");
        }
    }
    let Some(cmd) = bot else { return };
    let asks = match cmd {
        Command::Act {
            act,
            open_slots,
            commit_values,
            ..
        } if t.session().terms().variant() == "tempete" => {
            use sealed_games::tempete::act::{Act, CardRef};
            let act: Act = wire::decode(act, 256).expect("the bot's act");
            // The typed notation names a card by its number: a card taken from the
            // opponent that one also holds is written as the one held.
            let taken = matches!(&act, Act::Turn { card: Some(u), .. } if matches!(u.card, CardRef::Taken(_)));
            let asked = matches!(&act, Act::Turn { discard, start, .. } if !discard.is_empty() || start.is_some());
            taken || asked || !commit_values.is_empty() || open_slots.len() > 1
        }
        _ => false,
    };
    if !asks {
        assert!(
            parsed.contains(cmd),
            "the bot's {cmd:?} is not among the choices {choices:?}\n{}",
            t.text()
        );
    }
}

/// Who sees a Stallmate log while the game is on.
pub(crate) fn audience(terms: &Terms, log: LogId) -> Vec<Seat> {
    Stallmate::from_terms(terms)
        .expect("stallmate terms")
        .audience(log)
        .unwrap_or_default()
}

/// Stallmate's referee seat.
pub(crate) fn is_referee(t: &dyn Table) -> bool {
    t.session().terms().variant() == STALLMATE && t.session().seat() == Seat(2)
}

/// Every view works, agrees with the accessors and keeps its documented shape.
pub(crate) fn check_views(t: &dyn Table, variant: &str) {
    let text = t.text();
    assert!(text.starts_with(variant), "{text}");
    assert!(text.contains(&t.waiting_for()), "{text}");
    let j = t.show_json();
    assert_eq!(j["variant"], variant);
    assert_eq!(j["game"], t.session().terms().game().0.to_hex());
    assert_eq!(j["seat"], t.session().seat().0);
    assert_eq!(j["phase"], t.session().phase().name());
    assert_eq!(j["ply"], t.turn().ply);
    assert_eq!(j["to_act"], serde_json::json!(t.turn().to_act.map(|s| s.0)));
    assert_eq!(j["my_turn"], t.turn().my_turn);
    assert_eq!(j["waiting_for"], t.waiting_for());
    assert!(j["actions"].is_array());
    assert!(j["draw_offered"].is_boolean());
    assert!(j["board"].is_string());
    assert!(j["verdict"]["status"].is_string(), "{j}");
    match variant {
        "duel" => {
            assert!(j["side"].is_null());
            assert!(j["hand"]["cards"].is_array());
            assert_eq!(t.document(Document::Svg), None);
        }
        "cardmate" => {
            assert_eq!(
                j["side"],
                ["Forehand", "Rearhand"][t.session().seat().index()]
            );
            assert!(j["hand"].is_null());
        }
        STALLMATE => check_stallmate_views(t, &j),
        _ => {
            assert_eq!(j["side"], ["White", "Black"][t.session().seat().index()]);
        }
    }
    if variant != "duel" && variant != STALLMATE && t.document(Document::Score).is_some() {
        assert!(
            t.document(Document::Svg)
                .expect("a board once started")
                .starts_with("<svg")
        );
        if variant == "chex" {
            assert!(j["hand"]["stacks"]["white"]["text"].is_string(), "{j}");
        }
    }
    // A bot acts exactly when the seat must decide.
    assert_eq!(t.turn().my_turn, t.bot_action(3).is_some(), "{text}");
    if t.turn().my_turn {
        assert!(t.waiting_for().starts_with("you:"), "{}", t.waiting_for());
    } else if t.session().phase().name() == "play"
        && let Some(other) = t.turn().to_act.filter(|s| *s != t.session().seat())
    {
        let w = t.waiting_for();
        if variant == STALLMATE {
            // Not checked for Stallmate: its waiting line names the public actor, the
            // referee, even on a player's table while the other player's period runs
            // and on the referee's own, where `to_act` and the header name the mover
            // (reported as a view inconsistency).
            assert!(w.starts_with("waiting for "), "{w}");
        } else {
            // The other seat by its role, never a seat number; its move, or a share
            // its node (or this one) owes first.
            assert!(
                w.contains("your opponent to move") || w.contains(" node to "),
                "{other}: {w}"
            );
            assert!(!w.contains("seat "), "{w}");
        }
    }
    if let Some(score) = t.document(Document::Score) {
        Variant::parse(variant)
            .unwrap()
            .replay(&score)
            .unwrap_or_else(|e| panic!("{e}\n{score}"));
    }
}

/// What only Stallmate's views promise: the referee never has a turn; a player's
/// `to_act` is the mover of the open period; only a seat that knows both armies (the
/// referee, or anyone once the game is over and everything is published) writes a
/// score or PGN; there is no SVG.
pub(crate) fn check_stallmate_views(t: &dyn Table, j: &serde_json::Value) {
    let text = t.text();
    assert_eq!(
        j["side"],
        ["White", "Black", "Referee"][t.session().seat().index()]
    );
    assert_eq!(t.document(Document::Svg), None);
    assert_eq!(
        t.document(Document::Pgn).is_some(),
        t.document(Document::Score).is_some(),
        "{text}"
    );
    if let Some(pgn) = t.document(Document::Pgn) {
        assert!(pgn.starts_with("[Event \"sealed game\"]"), "{pgn}");
    }
    let army = &j["hand"]["army"];
    if t.session().phase().name() == "play" {
        // The referee starts the clock (the first public act); from then on the
        // mover of the open period is to act, though in public only the referee acts.
        let mover = if t.turn().ply == 0 {
            2
        } else {
            (t.turn().ply - 1) % 2
        };
        assert_eq!(t.turn().to_act, Some(Seat(mover as u8)), "{text}");
        // The opponent's army is hidden from a player until the game is over. Only the
        // referee's work comes due with time alone: once it has started the clock, the
        // end of the open period; a player waits for no time of his own.
        if is_referee(t) {
            assert_eq!(t.turn().due_at.is_some(), t.turn().ply > 0, "{text}");
            assert!(army.is_null(), "{j}");
            assert_eq!(
                t.document(Document::Score).is_some(),
                t.turn().ply > 0,
                "{text}"
            );
        } else {
            assert_eq!(t.turn().due_at, None, "{text}");
            assert_eq!(t.document(Document::Score), None, "{text}");
            if t.turn().my_turn {
                assert!(army.is_string(), "{j}");
            }
        }
    }
    if is_referee(t) && t.session().phase().name() != "terms" {
        assert!(!t.turn().my_turn, "{text}");
    }
    if t.session().phase().is_done() && !t.session().verdict().declined {
        assert!(t.document(Document::Score).is_some(), "{text}");
    }
}

/// Both tables done, the same transcript, verified offline, and the score replays to
/// the board both show.
pub(crate) fn check_finished(net: &Net) -> Vec<u8> {
    check_ended(net, true)
}

/// [`check_finished`] for a game that may have ended off the board (a resignation,
/// an agreed draw), whose score has no result.
pub(crate) fn check_ended(net: &Net, played_out: bool) -> Vec<u8> {
    let a = net.sessions[0].as_ref();
    assert!(net.all_done());
    let file = a.transcript();
    for t in &net.sessions[1..] {
        assert_eq!(file, t.transcript(), "transcripts differ");
    }
    let checked = check_transcript(&file).expect("readable");
    assert_eq!(checked.exit_code(), 0, "{:#?}", checked.verdict);
    assert_eq!(checked.verdict, a.session().verdict());
    assert_eq!(a.session().verdict().status, Status::Verified);
    for t in &net.sessions {
        assert_eq!(t.waiting_for(), "nothing: the game is complete");
        assert!(t.bot_action(0).is_none());
        assert!(t.duty(u64::MAX).is_none());
        assert!(refused(t.as_ref(), "resign").contains("over"));
    }
    let score = a.document(Document::Score).expect("a score");
    for t in &net.sessions[1..] {
        assert_eq!(Some(&score), t.document(Document::Score).as_ref());
        assert_eq!(a.document(Document::Pgn), t.document(Document::Pgn));
    }
    let replayed = Variant::parse(net.variant)
        .unwrap()
        .replay(&score)
        .unwrap_or_else(|e| panic!("{e}\n{score}"));
    let board = a.show_json()["board"].as_str().unwrap().to_owned();
    let verdict = a.session().verdict();
    match net.variant {
        "duel" => {
            assert_eq!(replayed.plies, a.turn().ply);
            if played_out {
                assert_eq!(replayed.result, verdict.board.map(|o| o.to_string()));
            } else {
                assert_eq!(replayed.result, None);
            }
        }
        "cardmate" => {
            let (pos, plies) = cardmate::replay_score(&score).unwrap();
            assert_eq!(plies, a.turn().ply);
            assert_eq!(pos.end.is_some(), played_out);
            assert_eq!(cardmate::text(&pos), board);
        }
        "tempete" => {
            let (_, state, plies) = sealed_games::tempete::score::replay_state(&score).unwrap();
            assert_eq!(plies, a.turn().ply);
            assert_eq!(state.end.is_some(), played_out);
            // The board's first lines (a hand follows only in the seat's own view).
            let drawn: String = sealed_games::tempete::render::text(&state, None)
                .chars()
                .take(40)
                .collect();
            assert!(board.starts_with(&drawn), "{board}");
        }
        STALLMATE => {
            // In public the referee's Begin, then one close per period, each a move
            // (the bots never let a period pass without one); a game ended off the
            // board may have a move answered in the period it ended in.
            if played_out {
                assert_eq!(replayed.plies + 1, a.turn().ply, "{score}");
                assert!(verdict.board.is_some());
            } else {
                assert!(
                    replayed.plies + 1 == a.turn().ply || replayed.plies == a.turn().ply,
                    "{} plies, {} acts\n{score}",
                    replayed.plies,
                    a.turn().ply
                );
            }
            assert_eq!(replayed.result.is_some(), played_out, "{score}");
            // Only the referee's board is the whole game.
            let position = sealed_games::chess::Position::from_fen(&replayed.position).unwrap();
            let whole = net.sessions[2].show_json()["board"]
                .as_str()
                .unwrap()
                .to_owned();
            assert!(
                whole.starts_with(&sealed_games::stallmate::table::diagram(&position)),
                "{whole}\n{score}"
            );
        }
        _ => {
            let (pos, plies) = chex_engine::replay_score(&score).unwrap();
            assert!(plies.len() <= a.turn().ply);
            assert_eq!(pos.end.is_some(), played_out);
            if played_out {
                assert_eq!(chex_engine::text(&pos), board);
            }
        }
    }
    check_result_written(net, &score, played_out);
    check_pgn_reads_back(net, &score, played_out);
    file
}

/// A score and PGN say the game's result whether the board ended it or the players did
/// (a resignation, a draw agreed), and a PGN says the day the game started (issue 55).
fn check_result_written(net: &Net, score: &str, played_out: bool) {
    let a = net.sessions[0].as_ref();
    let Some(o) = a.session().verdict().outcome else {
        return;
    };
    use sealed_protocol::outcome::SeatResult::*;
    let token = match (&o.results[0], &o.results[1]) {
        (Win, _) | (_, Loss) => "1-0",
        (Loss, _) | (_, Win) => "0-1",
        (Score(w), Score(b)) if w > b => "1-0",
        (Score(w), Score(b)) if w < b => "0-1",
        _ => "1/2-1/2",
    };
    if net.variant == "chex" && !played_out {
        assert!(score.trim_end().ends_with(token), "{token}\n{score}");
        assert!(score.contains(&format!("{{{}}}", o.reason)), "{score}");
    }
    if let Some(pgn) = a.document(Document::Pgn) {
        assert!(
            pgn.contains(&format!("[Result \"{token}\"]")),
            "{token}\n{pgn}"
        );
        assert!(pgn.trim_end().ends_with(token), "{token}\n{pgn}");
        assert!(!pgn.contains("????.??.??"), "{pgn}");
        if net.variant == STALLMATE && a.session().terms().referee().is_none() {
            assert!(!pgn.contains("[Period "), "{pgn}");
        }
    }
}

/// The PGN, read by a strict PGN reader and replayed on the variant's rules, has every
/// move of the game in order, each comment after its move, and the verdict's result as
/// its result tag and termination marker (issue 55).
pub(crate) fn check_pgn_reads_back(net: &Net, score: &str, played_out: bool) {
    let a = net.sessions[0].as_ref();
    let Some(text) = a.document(Document::Pgn) else {
        // Only Tempête and Secret Stallmate write PGN (see pgn_replay.rs); the others'
        // scores are read in the PGN reader's score dialect (pgn_scores.rs).
        assert!(!matches!(
            net.variant,
            "tempete" | STALLMATE | "stallmate-duo"
        ));
        let token = crate::pgn_replay::token(a.session().verdict().outcome.as_ref());
        score_reads_back(net.variant, score, token, a.turn().ply)
            .unwrap_or_else(|e| panic!("{e}\n{score}"));
        return;
    };
    let verdict = a.session().verdict();
    let token = crate::pgn_replay::token(verdict.outcome.as_ref());
    pgn_reads_back(net.variant, &text, score, token)
        .unwrap_or_else(|e| panic!("{e}\n{text}\n{score}"));
    // A game ended off the board says how in its Termination tag, which a reader shows
    // beside the result (the board alone cannot say it was a resignation).
    if !played_out && verdict.outcome.is_some() {
        let pgn = crate::pgn_read::read(&text).unwrap_or_default();
        assert!(pgn.tag("Termination").is_some(), "no Termination\n{text}");
    }
}

/// [`check_pgn_reads_back`]'s reading of one PGN `text` of a game of `variant` with
/// this `score`, whose verdict's result is `token`.
pub(crate) fn pgn_reads_back(
    variant: &str,
    text: &str,
    score: &str,
    token: &str,
) -> Result<(), String> {
    let pgn = crate::pgn_read::read(text)?;
    if pgn.result != token {
        return Err(format!(
            "the result {} is not the verdict's {token}",
            pgn.result
        ));
    }
    match variant {
        "tempete" => {
            let (rules, _, acts) =
                sealed_games::tempete::score::replay_acts(score).map_err(|e| e.to_string())?;
            crate::pgn_replay::check_tempete(&pgn, &rules, &Default::default(), &acts)
        }
        _ => {
            let record = sealed_games::stallmate::record::read(score).map_err(|e| e.to_string())?;
            crate::pgn_replay::check_stallmate(&pgn, &record)
        }
    }
}

/// A score of a game that writes no PGN, read by the PGN reader's score dialect: its
/// result is the verdict's `token`, and its moves replay on the game's rules, no more
/// than the game's `acts` (Chex's draws and Duel's deal are acts with no move).
pub(crate) fn score_reads_back(
    variant: &str,
    score: &str,
    token: &str,
    acts: usize,
) -> Result<(), String> {
    let pgn = crate::pgn_read::read_score(score)?;
    if pgn.result != token {
        return Err(format!(
            "the result {} is not the verdict's {token}",
            pgn.result
        ));
    }
    let moves = match variant {
        "chex" => crate::pgn_scores::check_chex(&pgn)?,
        "cardmate" => crate::pgn_scores::check_cardmate(&pgn)?,
        _ => pgn.moves.len(),
    };
    if moves > acts {
        return Err(format!("{moves} moves, {acts} acts"));
    }
    Ok(())
}
