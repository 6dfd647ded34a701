//! Tempête with the physical deck (spec/GAMES.md §4.20): cards whose effects their
//! players state as board edits, accepted causally by the opponent's next act or
//! disputed, settled by agreement or by the arbiter's signed ruling. A whole game that
//! verifies, and every cheat of the issue: an effect accepted then denied, a ruling not
//! signed by the arbiter, edits that do not parse, a citation of an ended effect, an
//! unentitled card, a ruling after its deadline, and a loser who disputes the decisive
//! claim with no arbiter (no draw).

// The table tests' PGN reader (tests/tests/table/pgn_read.rs and pgn_replay.rs); this
// test uses one variant's part of it.
#[path = "table/pgn_read.rs"]
mod pgn_read;
#[allow(dead_code)]
#[path = "table/pgn_replay.rs"]
mod pgn_replay;

use sealed_conformance::physical_kit::{Physical, arbiter_key, impostor_key, scripted_game};
use sealed_games::tempete::Tempete;
use sealed_games::tempete::act::{Act, CardRef, Claim};
use sealed_games::tempete::physical::Edit;
use sealed_games::tempete::physical::ruling::sign_ruling;
use sealed_games::tempete::rules::deck_name;
use sealed_protocol::fault::FaultKind;
use sealed_protocol::ids::Seat;
use sealed_protocol::outcome::SeatResult;
use sealed_protocol::session::Command;
use sealed_protocol::transcript::{TranscriptFile, check_with_terms};
use sealed_protocol::verdict::{ClaimAbout, Status, Verdict};

const WHITE: Seat = Seat(0);
const BLACK: Seat = Seat(1);

/// The offline check of `seat`'s transcript: the verdict and the exit code.
fn offline(g: &Physical, seat: Seat) -> (Verdict, i32) {
    let bytes = g.pair.transcript(seat);
    let file = TranscriptFile::from_bytes(&bytes).expect("readable");
    let terms = sealed_protocol::proposal::Terms::parse(&file.proposal).expect("terms");
    let (_, checked) = check_with_terms::<Tempete>(&file, terms).expect("checks");
    let code = checked.exit_code();
    (checked.verdict, code)
}

fn sq(name: &str) -> u8 {
    name.parse::<sealed_games::chess::Square>()
        .expect("square")
        .index()
}

fn mv(from: &str, to: &str) -> Edit {
    Edit::Move {
        from: sq(from),
        to: sq(to),
        promotion: None,
    }
}

/// `seat` resigns; both seats close and reveal.
fn resign(g: &mut Physical, seat: Seat) {
    let now = g.pair.now;
    g.pair.sessions[seat.index()]
        .handle_command(Command::Resign, now)
        .expect("resign");
    g.pair.collect();
    g.settle();
}

/// `cheater` lost by a proven fault of `kind`, and nobody else is at fault.
fn assert_caught(g: &Physical, cheater: Seat, kind: FaultKind) {
    for seat in [WHITE, BLACK] {
        let v = g.verdict(seat);
        assert_eq!(v.status, Status::ProvenFault, "{v:#?}");
        assert!(
            v.faults.iter().any(|f| f.seat == cheater && f.kind == kind),
            "no {kind}: {v:#?}"
        );
        assert!(v.faults.iter().all(|f| f.seat == cheater), "{v:#?}");
        let o = v.outcome.as_ref().expect("adjudicated");
        assert_eq!(o.results[cheater.index()], SeatResult::Loss, "{v:#?}");
    }
}

#[test]
fn a_whole_game_with_stated_effects_a_citation_a_ruling_and_a_lapsed_dispute_verifies() {
    let mut g = scripted_game();
    let late = g.ruling_text(&arbiter_key(), 1, &[], "too late");
    let err = g.parse(WHITE, &late).unwrap_err().to_string();
    assert!(err.contains("deadline"), "{err}");
    resign(&mut g, BLACK);
    let v = g.verdict(WHITE);
    assert_eq!(v, g.verdict(BLACK));
    assert!(v.faults.is_empty(), "{v:#?}");
    assert!(
        v.claims.iter().all(|c| c.about != ClaimAbout::Disputed),
        "ruled and lapsed disputes are closed: {v:#?}"
    );
    assert_eq!(v.status, Status::Verified, "{v:#?}");
    let (off, code) = offline(&g, BLACK);
    assert_eq!(off, v);
    assert_eq!(code, 0);
    // The score is for reading: every act is written, with its note, and a replay says
    // why it does not read it rather than failing on a word.
    let e = g.session(WHITE).engine();
    let score = sealed_games::tempete::score::score_text_ending(
        e.rules(),
        e.coin().expect("the coin"),
        &sealed_games::tempete::table::scored_acts(e),
        v.outcome.as_ref(),
    );
    assert!(score.contains("knights move as camels"), "{score}");
    assert!(score.contains("[Deck \"physical\"]"), "{score}");
    // The arbiter's ruling is signed over the game's coin: written with it, every act
    // stands, and nobody reading the score is told the arbiter did not sign (issue 55).
    assert!(!score.contains("is refused"), "{score}");
    assert!(score.trim_end().ends_with("1-0"), "{score}");
    let pgn = sealed_games::tempete::pgn::pgn(
        e.rules(),
        e.coin().expect("the coin"),
        &sealed_games::tempete::table::scored_acts(e),
        &[],
        Some(sealed_games::tempete::score::result_token(
            v.outcome.as_ref(),
        )),
    );
    assert!(!pgn.contains("is refused"), "{pgn}");
    assert!(pgn.contains("[Result \"1-0\"]"), "{pgn}");
    // Read back by a strict PGN reader: every play that stood, the stated ones as `--`,
    // each card after its move, the verdict's result (issue 55).
    let read = pgn_read::read(&pgn).unwrap_or_else(|e| panic!("{e}\n{pgn}"));
    assert_eq!(read.result, pgn_replay::token(v.outcome.as_ref()), "{pgn}");
    pgn_replay::check_tempete(
        &read,
        e.rules(),
        e.coin().expect("the coin"),
        &sealed_games::tempete::table::scored_acts(e),
    )
    .unwrap_or_else(|err| panic!("{err}\n{pgn}"));
    assert!(
        read.moves.iter().any(|m| m.san == "--"),
        "a stated play\n{pgn}"
    );
    // The dispute follows the play it disputes (the third, White's citation), and the
    // arbiter's ruling comes after the move it was posted after (Black's Nc6).
    let said = |ply: usize, words: &str| read.moves[ply].comments.iter().any(|c| c.contains(words));
    assert!(said(2, "camels do not take"), "{pgn}");
    assert_eq!(read.moves[3].san, "Nc6", "{pgn}");
    assert!(said(3, "the card lets the camel take"), "{pgn}");
    let err = sealed_games::tempete::score::replay(&score)
        .unwrap_err()
        .to_string();
    assert!(err.contains("physical deck"), "{err}");
}

#[test]
fn a_claim_accepted_by_the_next_act_cannot_be_disputed_after() {
    let mut g = Physical::new(false, 2);
    let (_, card) = g.stated_card(WHITE);
    g.typed(
        WHITE,
        &format!("card {card} then b1b5 note the knight flies"),
    );
    g.typed(BLACK, "e5"); // accepts act 0
    g.typed(WHITE, "d4");
    // The honest face refuses to say it.
    let err = g.parse(BLACK, "dispute 0").unwrap_err().to_string();
    assert!(err.contains("cannot be disputed"), "{err}");
    // Signed anyway: Black's fault, and his loss.
    g.forge(
        BLACK,
        &Act::Dispute {
            act: 0,
            note: "I never agreed".into(),
        },
        None,
    );
    assert_caught(&g, BLACK, FaultKind::IllegalAct);
}

#[test]
fn a_ruling_signed_by_anyone_but_the_arbiter_loses() {
    let mut g = Physical::new(true, 3);
    let (_, card) = g.stated_card(WHITE);
    g.typed(WHITE, &format!("card {card} then e2e5 note a pawn leaps"));
    g.typed(BLACK, "dispute 0 note pawns do not leap");
    let forged = g.ruling_text(&impostor_key(), 0, &[mv("e5", "e2")], "undo");
    assert!(
        g.parse(BLACK, &forged)
            .unwrap_err()
            .to_string()
            .contains("not signed by the arbiter")
    );
    let coin = *g.session(WHITE).engine().coin().unwrap();
    let edits = vec![mv("e5", "e2")];
    let act = Act::Ruling {
        dispute: 0,
        signature: sign_ruling(&impostor_key(), &coin, 0, &edits, "undo"),
        edits,
        note: "undo".into(),
    };
    g.forge(BLACK, &act, None);
    assert_caught(&g, BLACK, FaultKind::IllegalAct);
}

#[test]
fn a_ruling_in_a_game_without_an_arbiter_loses() {
    let mut g = Physical::new(false, 4);
    let (_, card) = g.stated_card(WHITE);
    g.typed(WHITE, &format!("card {card} then e2e5"));
    g.typed(BLACK, "dispute 0");
    let coin = *g.session(WHITE).engine().coin().unwrap();
    let act = Act::Ruling {
        dispute: 0,
        signature: sign_ruling(&arbiter_key(), &coin, 0, &[], ""),
        edits: vec![],
        note: String::new(),
    };
    g.forge(BLACK, &act, None);
    assert_caught(&g, BLACK, FaultKind::IllegalAct);
}

#[test]
fn edits_that_do_not_fit_the_board_lose() {
    let mut g = Physical::new(false, 5);
    let (slot, card) = g.stated_card(WHITE);
    // The face refuses them in words.
    let err = g
        .parse(WHITE, &format!("card {card} remove e4"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("no piece on e4"), "{err}");
    assert!(g.parse(WHITE, &format!("card {card} fly e4")).is_err());
    // Signed anyway: a king removed.
    let act = Act::Claim(Claim {
        card: Some(CardRef::Slot(slot)),
        edits: vec![Edit::Remove { square: sq("e8") }],
        note: "the king is gone".into(),
        ..Claim::default()
    });
    g.forge(WHITE, &act, Some(slot));
    assert_caught(&g, WHITE, FaultKind::IllegalAct);
}

#[test]
fn act_bytes_that_are_no_edit_are_undecodable() {
    let mut g = Physical::new(false, 6);
    // Claim { start: None, card: None, cite: None, edits: [variant 9], … }
    let bytes = vec![5, 0, 0, 0, 1, 9, 0, 0];
    let env = g
        .pair
        .forge(WHITE, vec![sealed_protocol::body::Item::Act(bytes)]);
    g.pair.inject(&env);
    g.settle();
    assert_caught(&g, WHITE, FaultKind::UndecodableAct);
}

#[test]
fn a_citation_of_an_ended_effect_loses() {
    let mut g = Physical::new(false, 7);
    let (_, card) = g.stated_card(WHITE);
    g.typed(
        WHITE,
        &format!("card {card} then e2e4 for 1 note pawns may step sideways next ply"),
    );
    g.typed(BLACK, "e5");
    // The effect held through ply 1 only; White's next turn is ply 2.
    let err = g.parse(WHITE, "cite 0 then e4f4").unwrap_err().to_string();
    assert!(err.contains("ended"), "{err}");
    let act = Act::Claim(Claim {
        cite: Some(0),
        edits: vec![mv("e4", "f4")],
        ..Claim::default()
    });
    g.forge(WHITE, &act, None);
    assert_caught(&g, WHITE, FaultKind::IllegalAct);
}

#[test]
fn an_unentitled_card_in_the_physical_deck_loses() {
    let mut g = Physical::new(false, 8);
    let dealt = g.session(WHITE).engine().dealt(WHITE, &deck_name());
    let slot = (0..68)
        .find(|x| !dealt.contains(x))
        .expect("an undealt slot");
    let act = Act::Claim(Claim {
        card: Some(CardRef::Slot(slot)),
        edits: vec![mv("e2", "e4")],
        ..Claim::default()
    });
    g.forge(WHITE, &act, Some(slot));
    assert_caught(&g, WHITE, FaultKind::SlotNeverDealt);
}

#[test]
fn a_loser_who_disputes_the_decisive_claim_without_an_arbiter_gets_no_draw() {
    let mut g = Physical::new(false, 9);
    let (_, card) = g.stated_card(WHITE);
    // White states a card that builds a mate out of nothing.
    g.typed(
        WHITE,
        &format!("card {card} remove f7 place B c4 place Q f7 note reinforcements arrive"),
    );
    let disputed = g.next_act() - 1;
    g.typed(BLACK, &format!("dispute {disputed} note no card does that"));
    // Black is mated all the same: he yields, and the game is White's.
    g.typed(BLACK, "yield");
    let v = g.verdict(BLACK);
    assert_eq!(v, g.verdict(WHITE));
    let o = v.outcome.as_ref().expect("an outcome");
    assert_eq!(o.results[0], SeatResult::Win, "{v:#?}");
    assert_eq!(o.results[1], SeatResult::Loss, "{v:#?}");
    assert!(v.faults.is_empty(), "{v:#?}");
    assert!(
        v.claims
            .iter()
            .any(|c| c.about == ClaimAbout::Disputed && c.against == WHITE && c.open),
        "{v:#?}"
    );
    assert_eq!(v.status, Status::Unconfirmed, "unconfirmed, not reversed");
    let (off, code) = offline(&g, WHITE);
    assert_eq!(off, v);
    assert_eq!(code, 3);
}

/// A dispute awaiting the arbiter's ruling while the game goes on says until when he may
/// rule, not that no ruling came before the game ended (issue 55).
#[test]
fn an_open_dispute_says_the_arbiter_may_still_rule_while_the_game_goes_on() {
    let mut g = Physical::new(true, 12);
    let (_, card) = g.stated_card(WHITE);
    g.typed(WHITE, &format!("card {card} then e2e5 note a long step"));
    g.typed(BLACK, "dispute 0 note too long");
    let v = g.verdict(WHITE);
    let open: Vec<&str> = v
        .claims
        .iter()
        .filter(|c| c.about == ClaimAbout::Disputed)
        .map(|c| c.evidence.as_str())
        .collect();
    assert_eq!(open.len(), 1, "{v:#?}");
    assert!(
        open[0].contains("the arbiter may rule until ply"),
        "{open:?}"
    );
    assert!(!open[0].contains("before the game ended"), "{open:?}");
}

#[test]
fn a_settlement_accepted_closes_the_dispute_and_a_disputed_one_does_not() {
    let mut g = Physical::new(false, 10);
    let (_, card) = g.stated_card(WHITE);
    g.typed(
        WHITE,
        &format!("card {card} then e2e5 note a long step; two squares"),
    );
    g.typed(BLACK, "dispute 0 note too long");
    // Black offers to settle: the pawn goes back one square. White disputes the offer.
    g.typed(BLACK, "settle 0 then e5e4 note one square less");
    g.typed(BLACK, "e6");
    let offer = g.next_act() - 2;
    g.typed(WHITE, &format!("dispute {offer} note I keep e5"));
    let v = g.verdict(WHITE);
    assert_eq!(
        v.claims
            .iter()
            .filter(|c| c.about == ClaimAbout::Disputed)
            .count(),
        2,
        "the first dispute is open again, and the offer is disputed: {v:#?}"
    );
    // White offers the same; Black's next act accepts it.
    g.typed(WHITE, "settle 0 then e4e3 note agreed, and one more back");
    g.typed(WHITE, "d4");
    g.typed(BLACK, "d5");
    let st = g.session(WHITE).engine().state().unwrap().clone();
    assert!(matches!(
        st.claims.disputes[0].state,
        sealed_games::tempete::physical::DisputeState::Settled { .. }
    ));
    let board = st.board.position().piece_at("e3".parse().unwrap());
    assert!(board.is_some(), "the settlement moved the pawn to e3");
}

#[test]
fn each_deck_refuses_the_others_acts() {
    // The physical deck refuses a card played with the open deck's parameters.
    let mut g = Physical::new(false, 11);
    let (slot, _) = g.stated_card(WHITE);
    let act = Act::Turn {
        start: None,
        card: Some(sealed_games::tempete::act::CardUse {
            card: CardRef::Slot(slot),
            squares: vec![],
            kind: None,
        }),
        moves: vec![sealed_games::tempete::act::WireMove {
            from: sq("e2"),
            to: sq("e4"),
            promotion: None,
        }],
        discard: vec![],
    };
    g.forge(WHITE, &act, Some(slot));
    assert_caught(&g, WHITE, FaultKind::IllegalAct);
}

#[test]
fn a_note_with_hidden_characters_loses() {
    let mut g = Physical::new(false, 12);
    let (slot, _) = g.stated_card(WHITE);
    let act = Act::Claim(Claim {
        card: Some(CardRef::Slot(slot)),
        edits: vec![mv("e2", "e4")],
        note: "fine\u{202E}enif".into(),
        ..Claim::default()
    });
    g.forge(WHITE, &act, Some(slot));
    assert_caught(&g, WHITE, FaultKind::IllegalAct);
}

#[test]
fn the_open_deck_refuses_the_physical_decks_acts() {
    use sealed_conformance::pair::Pair;
    use sealed_conformance::tempete_kit::tempete_terms;
    let mut p = Pair::<Tempete>::new(tempete_terms(&[], 13), 7);
    p.run(&mut [
        Box::new(|s: &sealed_protocol::session::Session<Tempete>| {
            matches!(s.phase(), sealed_protocol::session::Phase::Decide(_))
                .then_some(Command::Accept)
        }),
        Box::new(|s: &sealed_protocol::session::Session<Tempete>| {
            matches!(s.phase(), sealed_protocol::session::Phase::Decide(_))
                .then_some(Command::Accept)
        }),
    ]);
    let act = Act::Claim(Claim {
        cite: Some(0),
        edits: vec![mv("e2", "e4")],
        ..Claim::default()
    });
    let env = p.forge(
        WHITE,
        vec![sealed_protocol::body::Item::Act(
            sealed_protocol::wire::encode(&act),
        )],
    );
    p.inject(&env);
    let v = p.sessions[1].verdict();
    assert!(
        v.faults.iter().any(|f| f.seat == WHITE
            && f.kind == FaultKind::IllegalAct
            && f.detail.contains("physical deck")),
        "{v:#?}"
    );
}

/// A ruling carries the arbiter's word, which a player's node posts by itself: under
/// version 2 (draft 5) it answers nothing, so the claims before it still wait for that
/// player's own answer. Under version 1 it accepts them, as it always did there.
#[test]
fn a_ruling_posted_accepts_nothing() {
    let (mut g, act) = ruling_after_a_claim(Physical::new_v2(true, 9));
    let st = g.session(WHITE).engine().state().unwrap().clone();
    assert!(
        st.claims.unanswered.iter().any(|r| r.act == act),
        "the ruling accepted act {act}: {:?}",
        st.claims.unanswered
    );
    g.typed(BLACK, &format!("dispute {act} note that one neither"));
    let v = g.verdict(WHITE);
    assert!(v.faults.is_empty(), "{v:#?}");
}

#[test]
fn under_version_1_a_ruling_posted_accepts_as_before() {
    let (g, act) = ruling_after_a_claim(Physical::new(true, 9));
    let st = g.session(WHITE).engine().state().unwrap().clone();
    assert!(!st.claims.unanswered.iter().any(|r| r.act == act));
    assert!(g.parse(BLACK, &format!("dispute {act}")).is_err());
    let v = g.verdict(WHITE);
    assert!(v.faults.is_empty(), "{v:#?}");
}

/// White states a card, Black disputes it and plays on, White states another card, and
/// Black posts the arbiter's ruling on the first; the number of White's second claim.
fn ruling_after_a_claim(mut g: Physical) -> (Physical, u32) {
    g.claim_disputed();
    let (_, card) = g.stated_card(WHITE);
    g.typed(
        WHITE,
        &format!("card {card} then b1b5 note and the other one"),
    );
    let act = g.next_act() - 1;
    let ruling = g.ruling_text(&arbiter_key(), 0, &[mv("f5", "g1")], "it does not vault");
    g.typed(BLACK, &ruling);
    (g, act)
}
