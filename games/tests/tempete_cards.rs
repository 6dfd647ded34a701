//! The Tempête card layer: the open deck and the deck format, each board effect (a legal
//! use carried out as its text says, an illegal one refused with its reason), timings,
//! continuing effects and their expiry, traps, mate, and random play with every card of
//! the open deck.
//!
//! Long on purpose: one test per effect and timing of spec/GAMES.md §4.8–§4.10, in its
//! order, over one kit of boards and plays built at the top.
//!
//! Expected positions are written out by hand as FEN, never computed with the engine.

use proptest::prelude::*;
use sealed_games::chess::{Color, Kind, Move, Position, Square};
use sealed_games::tempete::{
    Board, Card, Deck, DeckProblem, Effect, FlowEffect, Moment, Params, Pattern, PlayError,
    Refusal, Timing, Trap, TrapEffect,
};

const W: Color = Color::White;
const B: Color = Color::Black;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

fn sq(s: &str) -> Square {
    s.parse().unwrap_or_else(|e| panic!("{e}"))
}

fn board(fen: &str) -> Board {
    Board::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn card(n: u32) -> Card {
    Deck::open()
        .card(n)
        .cloned()
        .unwrap_or_else(|| panic!("no card {n} in the open deck"))
}

/// A move written in UCI: the board's own plain move if it has one (so double steps and
/// castling come out right), else a normal move as cards make them.
fn mv(b: &Board, uci: &str) -> Move {
    let from = sq(&uci[0..2]);
    let to = sq(&uci[2..4]);
    let promotion = uci[4..].chars().next().and_then(Kind::from_char);
    b.plain_moves()
        .into_iter()
        .find(|m| m.from == from && m.to == to && m.promotion == promotion)
        .unwrap_or(Move {
            promotion,
            ..Move::normal(from, to)
        })
}

fn moves(b: &Board, ucis: &[&str]) -> Vec<Move> {
    let mut out = Vec::new();
    for u in ucis {
        out.push(mv(b, u));
    }
    out
}

fn plain(b: &Board, uci: &str) -> Board {
    let side = b.turn();
    b.apply(side, None, &[mv(b, uci)])
        .unwrap_or_else(|e| panic!("{uci}: {e}"))
}

fn play(b: &Board, n: u32, params: Params, ucis: &[&str]) -> Result<Board, PlayError> {
    let c = card(n);
    b.apply(b.turn(), Some((&c, &params)), &moves(b, ucis))
}

fn ok(b: &Board, n: u32, params: Params, ucis: &[&str]) -> Board {
    play(b, n, params, ucis).unwrap_or_else(|e| panic!("card {n} {ucis:?}: {e}"))
}

fn fen(b: &Board) -> String {
    b.position().fen()
}

fn squares(list: &[&str]) -> Params {
    Params::squares(&list.iter().map(|s| sq(s)).collect::<Vec<_>>())
}

fn refused(result: Result<Board, PlayError>) -> Refusal {
    match result {
        Err(PlayError::Refused { reason, .. }) => reason,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn not_allowed(result: Result<Board, PlayError>) -> String {
    match result {
        Err(e @ PlayError::NotAllowed { .. }) => e.to_string(),
        other => panic!("expected NotAllowed, got {other:?}"),
    }
}

fn bad_params(result: Result<Board, PlayError>) -> String {
    match result {
        Err(e @ PlayError::BadParams { .. }) => e.to_string(),
        other => panic!("expected BadParams, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// The open deck and the format
// ---------------------------------------------------------------------------------------

#[test]
fn open_deck_has_the_seed_numbers_and_enough_kinds() {
    let deck = Deck::open();
    // The seed's numbers, and card 73 (ours, show-hand) past them.
    let mut expected: Vec<u32> = (1..=72).filter(|n| ![11, 22, 71, 72].contains(n)).collect();
    expected.push(73);
    assert_eq!(deck.numbers(), expected);
    assert_eq!(deck.len(), 69);
    let kinds = deck.effect_kinds();
    // Every kind of the vocabulary, show-hand (card 73, version 2) included.
    assert_eq!(kinds.len(), 23, "{kinds:?}");
    let shows: Vec<u32> = deck
        .cards()
        .filter(|c| c.effect().flow() == Some(FlowEffect::ShowHand))
        .map(|c| c.number())
        .collect();
    assert_eq!(shows, [73]);
    // The default list is the seed's numbers: card 73 is in play only when listed.
    let t = sealed_games::tempete::Tempete::from_options(&[]).expect("defaults");
    assert_eq!(t.list, expected[..68]);
    assert!(!t.version_2, "show-hand is playable only under version 2");
}

#[test]
fn open_deck_round_trips() {
    let deck = Deck::open();
    let text = deck.to_text();
    assert_eq!(Deck::parse(&text), Ok(deck.clone()));
    assert_eq!(Deck::parse(&text).map(|d| d.to_text()), Ok(text));
}

#[test]
fn open_deck_keeps_the_seed_numbers_behaviour() {
    let deck = Deck::open();
    let get = |n| deck.card(n).map(|c| (c.timing(), c.effect()));
    use Timing::*;
    assert_eq!(
        get(18),
        Some((Instead, Effect::ExtraMove { kind: Kind::Knight }))
    );
    assert_eq!(
        get(50),
        Some((Instead, Effect::ExtraMove { kind: Kind::Bishop }))
    );
    assert_eq!(
        get(12).map(|(_, e)| e),
        Some(Effect::Trap {
            effect: TrapEffect::Remove
        })
    );
    assert_eq!(
        get(28).map(|(_, e)| e),
        Some(Effect::Trap {
            effect: TrapEffect::Freeze { turns: 2 }
        })
    );
    for n in [32, 42, 52] {
        assert_eq!(get(n), Some((Response, Effect::Cancel)));
    }
    assert_eq!(get(34), Some((TurnStart, Effect::TakePlayed)));
    assert_eq!(get(57), Some((AfterLoss, Effect::PickUnplayed)));
    assert_eq!(get(66), Some((Interception, Effect::ReplaceMove)));
    for n in [11, 22, 71, 72] {
        assert_eq!(get(n), None);
    }
    assert_eq!(
        card(12).effect().flow(),
        Some(FlowEffect::SealTrapSquare(TrapEffect::Remove))
    );
    assert_eq!(card(32).effect().flow(), Some(FlowEffect::CancelCard));
    assert_eq!(card(34).effect().flow(), Some(FlowEffect::TakePlayed));
    assert_eq!(card(57).effect().flow(), Some(FlowEffect::PickUnplayed));
    assert_eq!(card(66).effect().flow(), Some(FlowEffect::ReplaceMove));
    assert_eq!(card(18).effect().flow(), None);
}

#[test]
fn deck_format_reads_comments_blank_lines_and_bars_in_the_text() {
    let deck = Deck::parse(
        "# a comment\n\n  7 | Seven | before | truce | No captures | really #7\n3 | Three | instead | pawn-rush 2 | Go.\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(deck.numbers(), vec![3, 7]);
    let seven = deck.card(7).cloned().unwrap_or_else(|| panic!("no 7"));
    assert_eq!(seven.name(), "Seven");
    assert_eq!(seven.text(), "No captures | really #7");
    assert_eq!(Deck::parse(&deck.to_text()), Ok(deck));
}

fn deck_error(text: &str) -> (usize, DeckProblem, String) {
    match Deck::parse(text) {
        Err(e) => (e.line, e.problem.clone(), e.to_string()),
        Ok(d) => panic!("parsed {text:?} as {d:?}"),
    }
}

#[test]
fn deck_errors_name_the_line_and_the_problem() {
    let good = "1 | One | instead | pawn-rush 3 | Go.\n";
    let cases: &[(&str, usize, &str)] = &[
        (
            "1 | One | instead | pawn-rush 3 | Go.\n# c\n1 | Again | before | truce | No.",
            3,
            "line 3: duplicate card number 1 (first defined on line 1)",
        ),
        (
            "5 | Five | sometimes | truce | No.",
            1,
            "line 1: unknown timing \"sometimes\" (expected before, instead, after, intercept, response, turn-start or after-loss)",
        ),
        (
            "5 | Five | before | teleport | No.",
            1,
            "line 1: unknown effect \"teleport\"",
        ),
        (
            "5 | Five | instead | pawn-rush 9 | No.",
            1,
            "line 1: bad parameter for pawn-rush: \"9\" is not a number from 1 to 6",
        ),
        (
            "5 | Five | instead | extra-move dragon | No.",
            1,
            "line 1: bad parameter for extra-move: \"dragon\" is not a piece kind (pawn, knight, bishop, rook, queen, king)",
        ),
        (
            "5 | Five | before | truce now | No.",
            1,
            "line 1: bad parameter for truce: takes no parameter, got \"now\"",
        ),
        (
            "5 | Five | before | truce",
            1,
            "line 1: missing field: text (expected `number | name | timing | effect | text`)",
        ),
        (
            "5 |  | before | truce | No.",
            1,
            "line 1: missing field: name (expected `number | name | timing | effect | text`)",
        ),
        (
            "0 | Zero | before | truce | No.",
            1,
            "line 1: card number 0 is out of range (1 to 1000)",
        ),
        (
            "1001 | Big | before | truce | No.",
            1,
            "line 1: card number 1001 is out of range (1 to 1000)",
        ),
        (
            "five | Five | before | truce | No.",
            1,
            "line 1: card number \"five\" is not a number",
        ),
        (
            "5 | Five | after | extra-move knight | No.",
            1,
            "line 1: extra-move cannot be played after (allowed: instead)",
        ),
    ];
    for (text, line, message) in cases {
        let (l, _, m) = deck_error(&format!("{good}{text}").replacen(good, "", 1));
        assert_eq!((l, m.as_str()), (*line, *message), "{text}");
    }
    // The line number counts comments and blank lines.
    let (line, problem, _) = deck_error("# head\n\n1 | One | before | nothing | x");
    assert_eq!(line, 3);
    assert!(matches!(problem, DeckProblem::Effect(_)));
}

#[test]
fn card_constructor_refuses_out_of_range_parameters() {
    assert!(
        Card::new(
            1,
            "X",
            Timing::Instead,
            Effect::PawnRush { squares: 0 },
            "x"
        )
        .is_err()
    );
    assert!(Card::new(1, "X", Timing::Before, Effect::Freeze { turns: 0 }, "x").is_err());
    assert!(Card::new(1, "X|Y", Timing::Before, Effect::Truce, "x").is_err());
    assert!(Card::new(1, "X", Timing::Before, Effect::Truce, "x").is_ok());
}

// ---------------------------------------------------------------------------------------
// Plain chess
// ---------------------------------------------------------------------------------------

#[test]
fn plain_moves_are_chess() {
    for f in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "rnbqkb1r/pp1p1ppp/5n2/2pPp3/8/8/PPP1PPPP/RNBQKBNR w KQkq c6 0 4",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    ] {
        let b = board(f);
        let mut ours: Vec<String> = b
            .legal_plays(None)
            .into_iter()
            .map(|p| p.moves[0].to_string())
            .collect();
        let mut chess: Vec<String> = b
            .position()
            .legal_moves()
            .into_iter()
            .map(|m| m.to_string())
            .collect();
        ours.sort();
        chess.sort();
        assert_eq!(ours, chess, "{f}");
        for m in b.position().legal_moves() {
            let after = b
                .apply(b.turn(), None, &[m])
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(after.position(), &b.position().play_unchecked(&m));
        }
    }
}

#[test]
fn plain_play_refuses_illegal_and_out_of_turn_moves() {
    let b = Board::default();
    assert_eq!(
        b.apply(B, None, &[mv(&b, "e7e5")]),
        Err(PlayError::NotYourTurn { side: B, turn: W })
    );
    assert_eq!(
        not_allowed(b.apply(W, None, &[mv(&b, "e2e5")])),
        "e2e5 is not a legal move here"
    );
    assert!(matches!(
        b.apply(W, None, &[]),
        Err(PlayError::MoveCount {
            expected: 1,
            got: 0,
            ..
        })
    ));
}

#[test]
fn mate_is_check_with_no_plain_move() {
    let mut b = Board::default();
    for m in ["f2f3", "e7e5", "g2g4", "d8h4"] {
        b = plain(&b, m);
    }
    assert!(b.is_mated(W));
    assert!(!b.is_mated(B));
    // Stalemate is not mate.
    let s = board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert!(s.plain_moves().is_empty() && !s.is_mated(B));
}

// ---------------------------------------------------------------------------------------
// Effects, one kind at a time
// ---------------------------------------------------------------------------------------

#[test]
fn extra_move_knight_checks_between_its_two_moves() {
    let b = board("4k3/8/8/7N/8/8/8/4K3 w - - 0 1");
    let after = ok(&b, 18, Params::none(), &["h5f6", "f6d7"]);
    assert_eq!(fen(&after), "4k3/3N4/8/8/8/8/8/4K3 b - - 2 1");
    // The first move gives check; the second may not take the king.
    assert_eq!(
        refused(play(&b, 18, Params::none(), &["h5f6", "f6e8"])),
        Refusal::KingCapture(sq("e8"))
    );
    let b2 = board("4k3/8/8/8/8/8/8/1N2K1N1 w - - 0 1");
    let both = ok(&b2, 18, Params::none(), &["b1c3", "g1f3"]);
    assert_eq!(fen(&both), "4k3/8/8/8/8/2N2N2/8/4K3 b - - 2 1");
    assert_eq!(
        not_allowed(play(&b2, 18, Params::none(), &["b1c3", "e1d1"])),
        "e1d1 is not a move of one of your knights"
    );
    assert!(matches!(
        play(&b2, 18, Params::none(), &["b1c3"]),
        Err(PlayError::MoveCount {
            expected: 2,
            got: 1,
            ..
        })
    ));
}

#[test]
fn extra_move_knight_mid_check_position_is_reachable() {
    // Between the two moves the side not to move is in check (play_keep_turn).
    let b = board("4k3/8/8/7N/8/8/8/4K3 w - - 0 1");
    let plays = b.legal_plays(Some(&card(18)));
    assert!(
        plays
            .iter()
            .any(|p| p.moves[0].to.to_string() == "f6" && p.moves[1].to.to_string() == "d7")
    );
    assert!(plays.iter().all(|p| p.moves[1].to.to_string() != "e8"));
}

#[test]
fn extra_move_bishop() {
    let b = board("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1");
    let after = ok(&b, 50, Params::none(), &["c1e3", "e3a7"]);
    assert_eq!(fen(&after), "4k3/B7/8/8/8/8/8/4K3 b - - 2 1");
    assert_eq!(
        not_allowed(play(&b, 50, Params::none(), &["c1e3", "e3e4"])),
        "e3e4 is not a legal move here"
    );
}

#[test]
fn pawn_rush() {
    let b = Board::default();
    let after = ok(&b, 1, Params::none(), &["e2e5"]);
    assert_eq!(
        fen(&after),
        "rnbqkbnr/pppppppp/8/4P3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    assert_eq!(
        not_allowed(play(&b, 1, Params::none(), &["e2e6"])),
        "e2e6 is not a pawn advance of up to 3 empty squares"
    );
    assert_eq!(
        not_allowed(play(&b, 25, Params::none(), &["e2e5"])),
        "e2e5 is not a pawn advance of up to 2 empty squares"
    );
    let blocked = board("4k3/8/8/4p3/8/8/4P3/4K3 w - - 0 1");
    assert!(play(&blocked, 1, Params::none(), &["e2e5"]).is_err());
    assert!(play(&blocked, 1, Params::none(), &["e2e4"]).is_ok());
    assert!(bad_params(play(&b, 1, squares(&["e2"]), &["e2e5"])).contains("takes no square"));
}

#[test]
fn move_as_another_kind() {
    let b = Board::default();
    let after = ok(&b, 2, Params::none(), &["a1b3"]);
    assert_eq!(
        fen(&after),
        "rnbqkbnr/pppppppp/8/8/8/1R6/PPPPPPPP/1NBQKBNR b Kkq - 1 1"
    );
    assert_eq!(
        not_allowed(play(&b, 2, Params::none(), &["e1f3"])),
        "e1f3 is not a move of a piece other than a king as a knight"
    );
    // A pawn moving as a queen onto its last rank promotes.
    let p = board("4k3/8/8/8/8/8/8/P3K3 w - - 0 1");
    let promoted = ok(&p, 33, Params::none(), &["a1a8q"]);
    assert_eq!(fen(&promoted), "Q3k3/8/8/8/8/8/8/4K3 b - - 0 1");
    assert!(play(&p, 33, Params::none(), &["a1a8"]).is_err());
}

#[test]
fn augment_follows_the_piece_for_good() {
    let b = board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    // Crab Step before the move: the pawn gains the sidestep and uses it at once.
    let after = ok(&b, 3, squares(&["e2"]), &["e2d2"]);
    assert_eq!(fen(&after), "4k3/8/8/8/8/8/3P4/4K3 b - - 0 1");
    assert_eq!(after.augments(sq("d2")), vec![Pattern::Sidestep]);
    let after = plain(&after, "e8f8");
    // Plain moves now include the sidestep, from the pawn's new square.
    let after = plain(&after, "d2c2");
    assert_eq!(fen(&after), "5k2/8/8/8/8/8/2P5/4K3 b - - 0 2");
    assert_eq!(after.augments(sq("c2")), vec![Pattern::Sidestep]);
    assert!(after.augments(sq("d2")).is_empty());
    assert_eq!(
        bad_params(play(&b, 3, squares(&["e1"]), &["e1d1"])),
        "card 3 (augment sidestep): e1 holds no piece of yours other than a king"
    );
    // Without the card a sidestep is no move.
    assert!(b.apply(W, None, &[mv(&b, "e2d2")]).is_err());
}

#[test]
fn augment_is_lost_when_the_piece_is_taken() {
    let b = board("4k3/8/8/8/3r4/8/3N4/4K3 w - - 0 1");
    let after = ok(&b, 35, squares(&["d2"]), &["d2f3"]);
    assert_eq!(after.augments(sq("f3")), vec![Pattern::As(Kind::Knight)]);
    let after = plain(&after, "d4f4");
    let after = plain(&after, "e1e2");
    let after = plain(&after, "f4f3");
    assert!(after.augments(sq("f3")).is_empty());
    assert_eq!(after.captured(W), &[Kind::Knight]);
}

#[test]
fn swap_own_pieces() {
    let b = board("4k3/8/8/8/8/8/4P3/1N2K2R w - - 0 1");
    let after = ok(&b, 4, squares(&["b1", "h1"]), &["e2e4"]);
    assert_eq!(fen(&after), "4k3/8/8/8/4P3/8/8/1R2K2N b - e3 0 1");
    assert!(
        bad_params(play(&b, 4, squares(&["e2", "e1"]), &["h1h2"]))
            .contains("pawn on the first or last rank")
    );
    assert!(
        bad_params(play(&b, 4, squares(&["b1", "e8"]), &["e2e4"]))
            .contains("e8 holds no other piece of yours")
    );
    // The Instead form moves nothing else.
    let rotated = ok(&b, 54, squares(&["b1", "h1"]), &[]);
    assert_eq!(fen(&rotated), "4k3/8/8/8/8/8/4P3/1R2K2N b - - 0 1");
    assert!(matches!(
        play(&b, 54, squares(&["b1", "h1"]), &["e2e4"]),
        Err(PlayError::MoveCount { expected: 0, .. })
    ));
}

#[test]
fn swap_with_an_adjacent_enemy() {
    let b = board("4k3/8/8/3n4/4N3/8/8/4K3 w - - 0 1");
    let after = ok(&b, 5, squares(&["e4", "d5"]), &[]);
    assert_eq!(fen(&after), "4k3/8/8/3N4/4n3/8/8/4K3 b - - 0 1");
    let far = board("4k3/8/3n4/8/4N3/8/8/4K3 w - - 0 1");
    assert_eq!(
        bad_params(play(&far, 5, squares(&["e4", "d6"]), &[])),
        "card 5 (swap-enemy): e4 and d6 are not adjacent"
    );
    let king = board("8/8/8/8/4N3/3k4/8/4K3 w - - 0 1");
    assert!(bad_params(play(&king, 5, squares(&["e4", "d3"]), &[])).contains("neither a king"));
}

#[test]
fn pawn_back() {
    let b = board("4k3/8/8/8/4P3/3p4/8/4K3 w - - 0 1");
    let back = ok(&b, 6, Params::none(), &["e4e3"]);
    assert_eq!(fen(&back), "4k3/8/8/8/8/3pP3/8/4K3 b - - 0 1");
    let take = board("4k3/8/8/8/4P3/5p2/8/4K3 w - - 0 1");
    let took = ok(&take, 31, Params::none(), &["e4f3"]);
    assert_eq!(fen(&took), "4k3/8/8/8/8/5P2/8/4K3 b - - 0 1");
    assert_eq!(took.captured(B), &[Kind::Pawn]);
    assert_eq!(
        not_allowed(play(&b, 6, Params::none(), &["e4e2"])),
        "e4e2 is not a pawn step or capture backwards"
    );
}

#[test]
fn sacrifice_pawn() {
    let b = Board::default();
    let after = ok(&b, 7, squares(&["a2"]), &["e2e4"]);
    assert_eq!(
        fen(&after),
        "rnbqkbnr/pppppppp/8/8/4P3/8/1PPP1PPP/RNBQKBNR b KQkq e3 0 1"
    );
    // A sacrifice is not a capture: nothing to bring back.
    assert!(after.captured(W).is_empty());
    assert_eq!(
        bad_params(play(&b, 7, squares(&["b1"]), &["e2e4"])),
        "card 7 (sacrifice-pawn): b1 holds no pawn of yours"
    );
    // After the move, removing the pawn that shields the king is refused.
    let pinned = board("4k3/4r3/8/8/8/8/4P3/4K3 w - - 0 1");
    assert_eq!(
        play(&pinned, 7, squares(&["e2"]), &["e1d1"])
            .ok()
            .map(|b| fen(&b)),
        Some("4k3/4r3/8/8/8/8/8/3K4 b - - 1 1".to_owned())
    );
    assert_eq!(
        play(&pinned, 7, squares(&["e2"]), &["e1f1"])
            .ok()
            .map(|b| fen(&b)),
        Some("4k3/4r3/8/8/8/8/8/5K2 b - - 1 1".to_owned())
    );
    let stuck = board("4k3/4r3/8/8/8/8/4P3/3RKR2 w - - 0 1");
    assert_eq!(
        play(&stuck, 7, squares(&["e2"]), &["d1d2"]),
        Err(PlayError::KingLeftAttacked(W))
    );
}

#[test]
fn early_promotion() {
    let b = board("4k3/8/4P3/8/8/8/8/4K3 w - - 0 1");
    let q = ok(&b, 27, Params::square_kind(sq("e6"), Kind::Queen), &[]);
    assert_eq!(fen(&q), "4k3/8/4Q3/8/8/8/8/4K3 b - - 0 1");
    assert_eq!(
        bad_params(play(&b, 8, Params::square_kind(sq("e6"), Kind::Queen), &[])),
        "card 8 (early-promote 7): e6 holds no pawn of yours on its rank 7 or further"
    );
    assert_eq!(
        bad_params(play(&b, 27, Params::square_kind(sq("e6"), Kind::King), &[])),
        "card 27 (early-promote 6): a pawn cannot promote to a king"
    );
    let black = board("4k3/8/8/8/8/3p4/8/4K3 b - - 0 1");
    assert!(play(&black, 27, Params::square_kind(sq("d3"), Kind::Knight), &[]).is_ok());
}

#[test]
fn revive_a_taken_piece() {
    let taken = board("4k3/8/8/8/8/8/7p/4K1N1 b - - 0 1");
    let taken = plain(&taken, "h2g1q");
    assert_eq!(taken.captured(W), &[Kind::Knight]);
    assert_eq!(taken.lost_last_ply(W), &[Kind::Knight]);
    let taken = plain(&taken, "e1d2");
    let taken = plain(&taken, "g1g2");
    let back = ok(
        &taken,
        9,
        Params::square_kind(sq("b1"), Kind::Knight),
        &["d2d3"],
    );
    assert_eq!(fen(&back), "4k3/8/8/8/8/3K4/6q1/1N6 b - - 3 3");
    assert!(back.captured(W).is_empty());
    assert_eq!(
        bad_params(play(
            &taken,
            9,
            Params::square_kind(sq("c1"), Kind::Knight),
            &["d2d3"]
        )),
        "card 9 (revive): c1 is not a starting square of a knight"
    );
    assert_eq!(
        bad_params(play(
            &taken,
            9,
            Params::square_kind(sq("a1"), Kind::Rook),
            &["d2d3"]
        )),
        "card 9 (revive): no rook of yours has been taken"
    );
}

#[test]
fn forbidden_square_and_its_expiry() {
    let b = Board::default();
    // Quicksand (4 plies) before the move: even one's own move may not enter it.
    assert_eq!(
        refused(play(&b, 10, squares(&["e4"]), &["e2e4"])),
        Refusal::Forbidden(sq("e4"))
    );
    let mut b = ok(&b, 10, squares(&["e4"]), &["d2d4"]);
    // Plies 1..=4 forbid e4; ply 5 is free again.
    for (i, m) in ["g8f6", "g1f3", "b8c6", "b1c3"].iter().enumerate() {
        assert!(b.is_forbidden(sq("e4")), "ply {}", i + 1);
        b = plain(&b, m);
    }
    assert!(!b.is_forbidden(sq("e4")));
    assert!(b.forbidden().is_empty());
    assert!(b.apply(B, None, &[mv(&b, "f6e4")]).is_ok());
}

#[test]
fn forbidden_square_refuses_castling_through_its_targets() {
    let b = board("4k3/8/8/8/8/8/8/4K2R w K - 0 1");
    let closed = ok(&b, 49, squares(&["f1"]), &[]);
    let closed = plain(&closed, "e8d8");
    let castle = closed
        .position()
        .legal_moves()
        .into_iter()
        .find(|m| m.castle_side().is_some())
        .unwrap_or_else(|| panic!("no castling"));
    assert_eq!(
        refused(closed.apply(W, None, &[castle])),
        Refusal::Forbidden(sq("f1"))
    );
}

#[test]
fn truce_forbids_captures_until_a_check() {
    let b = board("4k3/8/8/3p4/4P3/8/8/4K2Q w - - 0 1");
    assert_eq!(
        refused(play(&b, 13, Params::none(), &["e4d5"])),
        Refusal::Truce
    );
    let t = ok(&b, 13, Params::none(), &["h1h2"]);
    assert!(t.truce());
    assert_eq!(refused(t.apply(B, None, &[mv(&t, "d5e4")])), Refusal::Truce);
    let t = plain(&t, "e8d8");
    // A check ends the truce.
    let t = plain(&t, "h2h4");
    assert!(!t.truce());
    assert!(t.position().is_check());
}

#[test]
fn second_move_by_another_piece_without_capture() {
    let b = Board::default();
    let after = ok(&b, 14, Params::none(), &["e2e4", "g1f3"]);
    assert_eq!(
        fen(&after),
        "rnbqkbnr/pppppppp/8/8/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 1"
    );
    assert_eq!(
        not_allowed(play(&b, 14, Params::none(), &["e2e3", "e3e4"])),
        "e3e4 is not a move of another piece than the one that just moved"
    );
    let cap = board("4k3/8/8/3p4/8/8/4P3/3RK3 w - - 0 1");
    assert_eq!(
        refused(play(&cap, 14, Params::none(), &["e2e3", "d1d5"])),
        Refusal::NoCapture
    );
}

#[test]
fn king_leap() {
    let b = board("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    let after = ok(&b, 15, Params::none(), &["e1e3"]);
    assert_eq!(fen(&after), "4k3/8/8/8/8/4K3/8/8 b - - 1 1");
    let blocked = board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    assert_eq!(
        not_allowed(play(&blocked, 15, Params::none(), &["e1e3"])),
        "e1e3 is not a king's two-square leap onto an empty square"
    );
    let guarded = board("4kr2/8/8/8/8/8/8/3K4 w - - 0 1");
    assert_eq!(
        refused(play(&guarded, 15, Params::none(), &["d1f3"])),
        Refusal::LeavesKingAttacked
    );
}

#[test]
fn jump_to_a_square_of_the_same_colour() {
    let b = Board::default();
    let after = ok(&b, 16, Params::none(), &["b1d5"]);
    assert_eq!(
        fen(&after),
        "rnbqkbnr/pppppppp/8/3N4/8/8/PPPPPPPP/R1BQKBNR b KQkq - 1 1"
    );
    assert_eq!(
        not_allowed(play(&b, 16, Params::none(), &["b1e5"])),
        "b1e5 is not a jump of a piece other than a king to an empty square of its colour"
    );
    let k = board("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    assert!(play(&k, 16, Params::none(), &["e1c5"]).is_err());
}

#[test]
fn freeze_and_its_expiry() {
    let b = Board::default();
    let f = ok(&b, 17, squares(&["g8"]), &["e2e4"]);
    assert!(f.is_frozen(sq("g8")));
    assert_eq!(
        refused(f.apply(B, None, &[mv(&f, "g8f6")])),
        Refusal::Frozen(sq("g8"))
    );
    assert!(
        f.plain_moves().iter().all(|m| m.from != sq("g8")),
        "a frozen piece has no plain move"
    );
    let f = plain(&f, "e7e5");
    assert!(!f.is_frozen(sq("g8")));
    let f = plain(&f, "g1f3");
    assert!(f.apply(B, None, &[mv(&f, "g8f6")]).is_ok());
    assert_eq!(
        bad_params(play(&b, 17, squares(&["e8"]), &["e2e4"])),
        "card 17 (freeze 1): e8 holds no enemy piece other than a king"
    );
}

#[test]
fn freeze_for_three_turns_after_the_move() {
    let b = Board::default();
    let f = ok(&b, 62, squares(&["b8"]), &["e2e4"]);
    let f = plain(&f, "e7e5");
    let f = plain(&f, "d2d4");
    assert!(f.is_frozen(sq("b8")));
    let f = plain(&f, "d7d6");
    let f = plain(&f, "g1f3");
    assert!(f.is_frozen(sq("b8")));
    let f = plain(&f, "h7h6");
    let f = plain(&f, "f1c4");
    assert!(!f.is_frozen(sq("b8")));
    // Hoarfrost after the move: the piece named is looked at after the move.
    let g = ok(&Board::default(), 29, squares(&["g8"]), &["g1f3"]);
    assert!(g.is_frozen(sq("g8")));
    let g = plain(&g, "a7a6");
    let g = plain(&g, "a2a3");
    assert!(g.is_frozen(sq("g8")));
    let g = plain(&g, "a6a5");
    let g = plain(&g, "a3a4");
    assert!(!g.is_frozen(sq("g8")));
}

#[test]
fn trap_removes_an_enemy_piece_ending_its_move_there() {
    let b = Board::default();
    let trap = Trap {
        owner: W,
        square: sq("e5"),
        effect: TrapEffect::Remove,
    };
    // The card itself is a plain move on the board; the flow seals the square.
    let played = ok(&b, 12, Params::none(), &["d2d4"]);
    let mut owner = played.clone();
    owner.add_trap(trap);
    let after = owner
        .apply(B, None, &[mv(&owner, "e7e5")])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        fen(&after),
        "rnbqkbnr/pppp1ppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2"
    );
    assert!(after.traps().is_empty());
    assert_eq!(after.captured(B), &[Kind::Pawn]);
    // The victim's board learns of it after the fact and ends equal.
    let victim = played
        .apply(B, None, &[mv(&played, "e7e5")])
        .unwrap_or_else(|e| panic!("{e}"));
    let sprung = victim.spring_trap(trap).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sprung, after);
    // A square no piece ended on cannot be claimed.
    let wrong = Trap {
        square: sq("e6"),
        ..trap
    };
    assert_eq!(
        victim.spring_trap(wrong),
        Err(PlayError::NoTrapVictim {
            square: sq("e6"),
            victim: B
        })
    );
    // A King that ends its move on the square is not taken, and the refusal says so
    // rather than that nothing landed there.
    let king = plain(&plain(&plain(&played, "e7e6"), "g1f3"), "e8e7");
    let on_e7 = Trap {
        square: sq("e7"),
        ..trap
    };
    assert_eq!(
        king.spring_trap(on_e7),
        Err(PlayError::TrapOnKing {
            square: sq("e7"),
            victim: B
        })
    );
    assert!(
        king.spring_trap(on_e7)
            .unwrap_err()
            .to_string()
            .contains("never takes a King")
    );
    // The owner's own pieces do not trigger it.
    let mut own = Board::default();
    own.add_trap(Trap {
        owner: W,
        square: sq("e4"),
        effect: TrapEffect::Remove,
    });
    let own = plain(&own, "e2e4");
    assert_eq!(own.traps().len(), 1);
}

#[test]
fn trap_freezes_the_piece_for_two_turns() {
    let mut b = Board::default();
    b.add_trap(Trap {
        owner: B,
        square: sq("f3"),
        effect: TrapEffect::Freeze { turns: 2 },
    });
    let b = plain(&b, "g1f3");
    assert!(b.is_frozen(sq("f3")));
    let b = plain(&b, "e7e5");
    assert_eq!(
        refused(b.apply(W, None, &[mv(&b, "f3e5")])),
        Refusal::Frozen(sq("f3"))
    );
    let b = plain(&b, "a2a3");
    let b = plain(&b, "a7a6");
    assert!(b.is_frozen(sq("f3")));
    let b = plain(&b, "a3a4");
    let b = plain(&b, "a6a5");
    assert!(!b.is_frozen(sq("f3")));
    assert!(b.apply(W, None, &[mv(&b, "f3e5")]).is_ok());
}

#[test]
fn flow_cards_with_an_own_move_timing_are_a_plain_move_on_the_board() {
    let b = Board::default();
    assert_eq!(card(19).effect().flow(), Some(FlowEffect::Redraw(2)));
    for n in [19, 12, 28] {
        let after = ok(&b, n, Params::none(), &["e2e4"]);
        assert_eq!(after.position(), plain(&b, "e2e4").position());
        assert!(bad_params(play(&b, n, squares(&["e4"]), &["e2e4"])).contains("needs 0 square(s)"));
    }
}

// ---------------------------------------------------------------------------------------
// Timings
// ---------------------------------------------------------------------------------------

#[test]
fn each_timing_is_refused_at_the_wrong_moment() {
    let b = Board::default();
    // One card of each timing from the open deck.
    let of_timing = [
        (Timing::Before, 4),
        (Timing::Instead, 18),
        (Timing::After, 14),
        (Timing::Interception, 66),
        (Timing::Response, 32),
        (Timing::TurnStart, 34),
        (Timing::AfterLoss, 57),
    ];
    for (timing, n) in of_timing {
        let c = card(n);
        assert_eq!(c.timing(), timing);
        let wrong = if timing.is_own_move() {
            Moment::OpponentMove
        } else {
            Moment::OwnMove
        };
        assert_eq!(
            b.check_timing(W, &c, wrong),
            Err(PlayError::WrongTiming {
                number: n,
                timing,
                moment: wrong
            }),
            "{timing}"
        );
        if !timing.is_own_move() {
            // Played with a move on the board: refused the same way.
            assert_eq!(
                b.apply(W, Some((&c, &Params::none())), &[mv(&b, "e2e4")]),
                Err(PlayError::WrongTiming {
                    number: n,
                    timing,
                    moment: Moment::OwnMove
                })
            );
            assert!(b.legal_plays(Some(&c)).is_empty());
        }
    }
    assert_eq!(
        PlayError::WrongTiming {
            number: 66,
            timing: Timing::Interception,
            moment: Moment::OwnMove
        }
        .to_string(),
        "card 66 is played intercept, not with your own move"
    );
}

#[test]
fn after_loss_needs_a_lost_piece_other_than_a_pawn() {
    let c = card(57);
    let b = board("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1");
    let b = plain(&b, "e4d5");
    assert_eq!(b.lost_last_ply(B), &[Kind::Pawn]);
    assert!(!b.lost_non_pawn(B));
    assert_eq!(
        b.check_timing(B, &c, Moment::AfterLoss),
        Err(PlayError::NoLoss { number: 57 })
    );
    let n = board("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1");
    let n = plain(&n, "e4d5");
    assert!(n.lost_non_pawn(B));
    assert_eq!(n.check_timing(B, &c, Moment::AfterLoss), Ok(()));
    // The loss is for one ply only.
    let n = plain(&n, "e8e7");
    assert!(!n.lost_non_pawn(B));
}

#[test]
fn the_turn_start_and_response_moments_accept_their_cards() {
    let b = Board::default();
    assert_eq!(b.check_timing(W, &card(34), Moment::TurnStart), Ok(()));
    assert_eq!(b.check_timing(W, &card(32), Moment::OpponentCard), Ok(()));
    assert_eq!(b.check_timing(W, &card(66), Moment::OpponentMove), Ok(()));
    assert_eq!(b.check_timing(W, &card(4), Moment::OwnMove), Ok(()));
}

// ---------------------------------------------------------------------------------------
// Random play
// ---------------------------------------------------------------------------------------

/// A small deterministic generator so a failing case replays from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn kings(b: &Board, c: Color) -> u32 {
    b.position().kings(c).len()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn random_card_play_never_panics_and_every_listed_play_is_accepted(seed in 1u64..) {
        let deck = Deck::open();
        let own: Vec<Card> = deck.cards().filter(|c| c.timing().is_own_move()).cloned().collect();
        let mut rng = Rng(seed);
        let mut b = Board::default();
        for _ in 0..120 {
            let side = b.turn();
            let use_card = rng.below(2) == 0;
            let c = use_card.then(|| own[rng.below(own.len())].clone());
            let mut plays = b.legal_plays(c.as_ref());
            let mut c = c;
            if plays.is_empty() {
                c = None;
                plays = b.legal_plays(None);
            }
            if plays.is_empty() {
                break;
            }
            // Every listed play is accepted.
            for p in &plays {
                let r = b.apply(side, c.as_ref().map(|c| (c, &p.params)), &p.moves);
                prop_assert!(r.is_ok(), "{:?} {:?}: {:?} on {}", c.as_ref().map(|c| c.number()), p, r, b.position().fen());
            }
            let p = &plays[rng.below(plays.len())];
            let next = b.apply(side, c.as_ref().map(|c| (c, &p.params)), &p.moves);
            let Ok(mut next) = next else {
                return Err(TestCaseError::fail(format!("{next:?}")));
            };
            prop_assert_eq!(next.turn(), !side);
            prop_assert_eq!(next.ply(), b.ply() + 1);
            // A play never leaves the mover's king attacked — unless a trap the opponent
            // laid sprang on the piece that shielded it.
            let sprang = next.traps().len() < b.traps().len();
            prop_assert!(
                sprang || !next.position().king_attacked(side),
                "{:?} {:?} left {:?}'s king attacked: {}",
                c.as_ref().map(|c| c.number()),
                p,
                side,
                next.position().fen()
            );
            prop_assert_eq!(kings(&next, W), kings(&b, W));
            prop_assert_eq!(kings(&next, B), kings(&b, B));
            // Random junk is refused, never a panic.
            let empty = Params::none();
            let junk = Move::normal(sq("a1"), Square::all().nth(rng.below(64)).unwrap_or(sq("h8")));
            let _ = next.apply(!side, c.as_ref().map(|c| (c, &empty)), &[junk, junk]);
            if let Some(Effect::Trap { effect }) = c.as_ref().map(|c| c.effect()) {
                let square = Square::all().nth(rng.below(64)).unwrap_or(sq("e4"));
                next.add_trap(Trap { owner: side, square, effect });
            }
            b = next;
        }
    }
}

#[test]
fn every_listed_play_is_accepted_on_a_middlegame() {
    let b = board("r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5");
    let deck = Deck::open();
    for c in deck.cards() {
        let plays = b.legal_plays(Some(c));
        if c.timing().is_own_move() {
            let none_needed = matches!(
                c.effect(),
                Effect::Revive | Effect::EarlyPromote { .. } | Effect::PawnBack
            );
            assert!(
                none_needed || !plays.is_empty(),
                "card {} has no play",
                c.number()
            );
        }
        for p in plays {
            if let Err(e) = b.apply(W, Some((c, &p.params)), &p.moves) {
                panic!("card {} {:?}: {e}", c.number(), p);
            }
        }
    }
}

#[test]
fn starting_position_is_a_standard_board() {
    assert_eq!(Board::default().position(), &Position::startpos());
    assert_eq!(Board::default().ply(), 0);
}

// ---------------------------------------------------------------------------------------
// The flow: interceptions of a double move (the seed's card 18 options)
// ---------------------------------------------------------------------------------------

mod double_move_interceptions {
    use super::{B, W, board, sq};
    use sealed_games::chess::Color;
    use sealed_games::tempete::Tempete;
    use sealed_games::tempete::act::{Act, Answer, CardRef, CardUse, StartCard, WireMove};
    use sealed_games::tempete::rules::deck_name;
    use sealed_games::tempete::state::{Hand, Pending, State, seat};
    use sealed_protocol::hash::Hash;
    use sealed_protocol::ids::{ChainId, EnvRef};
    use sealed_protocol::rules::{ActCtx, Applied, OpenedSlot, Rules};

    /// Judges `act` by `who` with the protocol's rules, on an envelope that opens
    /// `cards` as (slot, card number).
    fn judge(
        s: &State,
        who: Color,
        act: &Act,
        cards: &[(u32, u32)],
    ) -> Result<Applied<State>, String> {
        let opened: Vec<OpenedSlot> = cards
            .iter()
            .map(|(slot, card)| OpenedSlot {
                deck: deck_name(),
                slot: *slot,
                card: *card,
            })
            .collect();
        let coin = Hash([0; 32]);
        let ctx = ActCtx {
            shown_slots: &[],
            held_slots: &[],
            at: EnvRef {
                chain: ChainId::public(seat(who)),
                seq: 0,
            },
            clock: 0,
            coin: &coin,
            opened_slots: &opened,
            opened_values: &[],
            opened_setups: &[],
            committed_values: &[],
            draws: &[],
        };
        Tempete::default()
            .apply(s, seat(who), act, &ctx)
            .map_err(|v| v.0)
    }

    fn ok(s: &State, who: Color, act: &Act, cards: &[(u32, u32)]) -> State {
        judge(s, who, act, cards)
            .unwrap_or_else(|e| panic!("{act:?}: {e}"))
            .state
    }

    fn refused(s: &State, who: Color, act: &Act, cards: &[(u32, u32)]) -> String {
        match judge(s, who, act, cards) {
            Ok(a) => panic!("{act:?} was accepted: {:?}", a.state.board.position().fen()),
            Err(e) => e,
        }
    }

    fn w(uci: &str) -> WireMove {
        WireMove {
            from: sq(&uci[0..2]).index(),
            to: sq(&uci[2..4]).index(),
            promotion: None,
        }
    }

    fn use_of(card: CardRef) -> CardUse {
        CardUse {
            card,
            squares: vec![],
            kind: None,
        }
    }

    /// A turn: a card from slot `slot` (if any) and the moves.
    fn turn(card: Option<CardRef>, moves: &[&str]) -> Act {
        Act::Turn {
            start: None,
            card: card.map(use_of),
            moves: moves.iter().map(|m| w(m)).collect(),
            discard: vec![],
        }
    }

    fn plain(m: &str) -> Act {
        turn(None, &[m])
    }

    fn again(moves: &[&str]) -> Act {
        Act::Answer(Answer::Replay {
            card: Some(use_of(CardRef::Again)),
            moves: moves.iter().map(|m| w(m)).collect(),
        })
    }

    fn keep(moves: &[&str]) -> Act {
        Act::Answer(Answer::Keep {
            moves: moves.iter().map(|m| w(m)).collect(),
        })
    }

    fn replay(m: &str) -> Act {
        Act::Answer(Answer::Replay {
            card: None,
            moves: vec![w(m)],
        })
    }

    fn intercept(second: bool, slot: u32) -> Act {
        let card = use_of(CardRef::Slot(slot));
        if second {
            Act::InterceptSecond { card }
        } else {
            Act::Intercept { card }
        }
    }

    /// 1. e4 e5 2. card 18 (in White's slot 0): Ng1-f3, Nf3-g5; Black to act.
    fn after_double_move() -> State {
        let mut s = Tempete::default().start(&Hash([0; 32]));
        s = ok(&s, W, &plain("e2e4"), &[]);
        s = ok(&s, B, &plain("e7e5"), &[]);
        ok(
            &s,
            W,
            &turn(Some(CardRef::Slot(0)), &["g1f3", "f3g5"]),
            &[(0, 18)],
        )
    }

    /// The new acts are appended to their enums: every earlier encoding stands
    /// (spec/GAMES.md §4.5).
    #[test]
    fn the_new_acts_encode_after_the_old_ones() {
        let hex = |a: &Act| -> String {
            sealed_protocol::wire::encode(a)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(hex(&intercept(true, 3)), "04 00 03 00 00");
        assert_eq!(hex(&keep(&["d2d4"])), "02 02 01 0b 1b 00");
        assert_eq!(hex(&intercept(false, 3)), "01 00 03 00 00");
        assert_eq!(hex(&replay("d2d4")), "02 01 00 01 0b 1b 00");
        assert_eq!(hex(&Act::Yield), "03");
        for a in [intercept(true, 3), keep(&["d2d4"])] {
            let back: Act = sealed_protocol::wire::decode(&sealed_protocol::wire::encode(&a), 256)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(back, a);
        }
    }

    /// The typed notation of the new acts reads into them and is written back as typed.
    #[test]
    fn typed_notation_of_the_new_acts_round_trips() {
        use sealed_games::tempete::command::{self, Seat};
        use sealed_protocol::session::Command;
        let deck = sealed_games::tempete::Deck::open();
        let card = |n: u32| deck.card(n).cloned().unwrap_or_else(|| panic!("{n}"));
        let hand = [(CardRef::Slot(3), card(66)), (CardRef::Taken(18), card(18))];
        let pos = sealed_games::chess::Position::startpos();
        let me = Seat {
            hand: &hand,
            traps: 0,
            pos: &pos,
            physical: false,
        };
        let number = |r: CardRef| match r {
            CardRef::Slot(3) => Some(66),
            CardRef::Taken(n) => Some(n),
            _ => None,
        };
        let cases = [
            (
                "intercept second 66",
                intercept(true, 3),
                "intercept second 66",
                vec![3],
            ),
            ("intercept 66", intercept(false, 3), "intercept 66", vec![3]),
            (
                "answer keep e4",
                keep(&["e2e4"]),
                "answer keep e2e4",
                vec![],
            ),
            (
                "answer keep  e2-e4",
                keep(&["e2e4"]),
                "answer keep e2e4",
                vec![],
            ),
            (
                "answer again then g1f3 f3h4",
                again(&["g1f3", "f3h4"]),
                "answer again then g1f3 f3h4",
                vec![],
            ),
            (
                "card 18 then g1f3 f3g5",
                turn(Some(CardRef::Taken(18)), &["g1f3", "f3g5"]),
                "card 18 then g1f3 f3g5",
                vec![],
            ),
        ];
        for (typed, act, written, slots) in cases {
            let Ok(Command::Act {
                act: bytes,
                open_slots,
                ..
            }) = command::parse(&me, typed)
            else {
                panic!("{typed:?} is not read as an act");
            };
            let read: Act = sealed_protocol::wire::decode(&bytes, 256)
                .unwrap_or_else(|e| panic!("{typed}: {e}"));
            assert_eq!(read, act, "{typed}");
            let opened: Vec<u32> = open_slots.iter().map(|(_, s)| *s).collect();
            assert_eq!(opened, slots, "{typed}");
            assert_eq!(
                command::write(&act, &number, None).as_deref(),
                Some(written)
            );
        }
        for bad in [
            "intercept second",
            "intercept second 18 66",
            "intercept second 42",
            "answer keep",
            "answer keep e4 d4",
            "answer keep z9",
        ] {
            assert!(command::parse(&me, bad).is_err(), "{bad:?} was read");
        }
    }

    #[test]
    fn the_second_move_intercepted_keeps_the_first_and_changes_the_second() {
        let s = ok(&after_double_move(), B, &intercept(true, 0), &[(0, 66)]);
        assert!(matches!(s.pending, Pending::Answer { second: true, .. }));
        assert_eq!(s.to_act, W);
        // Another second move with a knight: the same one, or the other.
        let a = ok(&s, W, &again(&["g1f3", "f3h4"]), &[]);
        assert_eq!(
            a.board.position().fen(),
            "rnbqkbnr/pppp1ppp/8/4p3/4P2N/8/PPPP1PPP/RNBQKB1R b KQkq - 2 2"
        );
        ok(&s, W, &again(&["g1f3", "b1c3"]), &[]);
        // The card is played again, not spent a second time.
        assert_eq!(a.hand(W).size, s.hand(W).size);
        // The interceptor's card may still be cancelled: the double move stands.
        let c = ok(
            &s,
            W,
            &Act::Answer(Answer::Cancel {
                card: use_of(CardRef::Slot(1)),
            }),
            &[(1, 42)],
        );
        assert_eq!(
            c.board.position().fen(),
            "rnbqkbnr/pppp1ppp/8/4p1N1/4P3/8/PPPP1PPP/RNBQKB1R b KQkq - 2 2"
        );
    }

    #[test]
    fn an_answer_to_the_second_move_that_is_not_another_second_move_is_refused() {
        let s = ok(&after_double_move(), B, &intercept(true, 0), &[(0, 66)]);
        let why = "the second move was intercepted";
        // The first move changed.
        assert!(refused(&s, W, &again(&["b1c3", "c3d5"]), &[]).contains(why));
        // The second move repeated.
        assert!(refused(&s, W, &again(&["g1f3", "f3g5"]), &[]).contains(why));
        // One move only, a plain move, another card, the card kept.
        assert!(refused(&s, W, &again(&["g1f3"]), &[]).contains(why));
        assert!(refused(&s, W, &replay("d2d4"), &[]).contains(why));
        assert!(refused(&s, W, &keep(&["d2d4"]), &[]).contains(why));
        let other = Act::Answer(Answer::Replay {
            card: Some(use_of(CardRef::Slot(1))),
            moves: vec![w("g1f3"), w("f3h4")],
        });
        assert!(refused(&s, W, &other, &[(1, 18)]).contains(why));
        // The second move must still be the card's: a knight's.
        assert!(refused(&s, W, &again(&["g1f3", "d2d4"]), &[]).contains("knight"));
    }

    #[test]
    fn only_a_replace_move_card_hits_the_second_move_of_a_double_move() {
        // A cancel voids the card whole.
        let e = refused(&after_double_move(), B, &intercept(true, 0), &[(0, 32)]);
        assert!(e.contains("only a replace-move card"), "{e}");
        // A turn that made no double move.
        let mut s = Tempete::default().start(&Hash([0; 32]));
        s = ok(&s, W, &plain("e2e4"), &[]);
        let e = refused(&s, B, &intercept(true, 0), &[(0, 66)]);
        assert!(e.contains("no double move"), "{e}");
        let rush = ok(&s, B, &turn(Some(CardRef::Slot(0)), &["d7d4"]), &[(0, 1)]);
        let e = refused(&rush, W, &intercept(true, 0), &[(0, 66)]);
        assert!(e.contains("no double move"), "{e}");
        // An interception names nothing.
        let named = Act::InterceptSecond {
            card: CardUse {
                card: CardRef::Slot(0),
                squares: vec![sq("e4").index()],
                kind: None,
            },
        };
        let e = refused(&after_double_move(), B, &named, &[(0, 66)]);
        assert!(e.contains("names nothing"), "{e}");
    }

    #[test]
    fn the_first_part_replayed_with_the_card_starts_with_another_move() {
        let s = ok(&after_double_move(), B, &intercept(false, 0), &[(0, 66)]);
        assert!(matches!(s.pending, Pending::Answer { second: false, .. }));
        let e = refused(&s, W, &again(&["g1f3", "f3h4"]), &[]);
        assert!(e.contains("starts with another move"), "{e}");
        // The same knight elsewhere, or the other knight.
        ok(&s, W, &again(&["g1h3", "h3g5"]), &[]);
        ok(&s, W, &again(&["b1c3", "c3d5"]), &[]);
        // One normal move, the card discarded.
        ok(&s, W, &replay("g1f3"), &[]);
    }

    #[test]
    fn a_kept_card_goes_back_to_the_hand_publicly_and_is_played_once_later() {
        let made = after_double_move();
        assert_eq!(made.hand(W).size, 4);
        assert_eq!(made.hand(B).takeable, vec![18]);
        let s = ok(&made, B, &intercept(false, 0), &[(0, 66)]);
        let kept = judge(&s, W, &keep(&["d2d4"]), &[]).unwrap_or_else(|e| panic!("{e}"));
        let k = kept.state;
        assert_eq!(
            k.board.position().fen(),
            "rnbqkbnr/pppp1ppp/8/4p3/3PP3/8/PPP2PPP/RNBQKBNR b KQkq d3 0 2"
        );
        assert_eq!(
            k.hand(W),
            &Hand {
                size: 5,
                taken: vec![18],
                // Black's card 66, which White's card 34 may take.
                takeable: vec![66],
                traps: vec![],
                sprung: 0,
                given: 5,
            }
        );
        // Not played after all: card 34 cannot take it.
        assert!(k.hand(B).takeable.is_empty());
        let take = Act::Turn {
            start: Some(StartCard::Take {
                card: CardRef::Slot(1),
                number: 18,
            }),
            card: None,
            moves: vec![w("d7d6")],
            discard: vec![],
        };
        let e = refused(&k, B, &take, &[(1, 34)]);
        assert!(e.contains("was not played by the opponent"), "{e}");
        // Black's turn refills no card of White's: the hand is full again.
        let b = judge(&k, B, &plain("d7d6"), &[]).unwrap_or_else(|e| panic!("{e}"));
        assert!(b.owe.is_empty(), "{:?}", b.owe);
        let k = b.state;
        // Played later by number, like a card taken with card 34.
        let played = ok(
            &k,
            W,
            &turn(Some(CardRef::Taken(18)), &["g1f3", "f3g5"]),
            &[],
        );
        assert_eq!(played.hand(W).size, 4);
        assert!(played.hand(W).taken.is_empty());
        assert_eq!(played.hand(B).takeable, vec![18]);
        // Once.
        let again = ok(&played, B, &plain("c8d7"), &[]);
        let e = refused(
            &again,
            W,
            &turn(Some(CardRef::Taken(18)), &["b1c3", "c3b5"]),
            &[],
        );
        assert!(e.contains("card 18 was never taken"), "{e}");
    }

    #[test]
    fn keep_is_refused_unless_a_double_move_was_replaced_whole() {
        // The card was not a double move: a pawn rush (card 1).
        let mut s = Tempete::default().start(&Hash([0; 32]));
        let rush = ok(&s, W, &turn(Some(CardRef::Slot(0)), &["e2e5"]), &[(0, 1)]);
        let hit = ok(&rush, B, &intercept(false, 0), &[(0, 66)]);
        let e = refused(&hit, W, &keep(&["d2d4"]), &[]);
        assert!(e.contains("only a double-move card"), "{e}");
        // No card at all.
        s = ok(&s, W, &plain("e2e4"), &[]);
        let hit = ok(&s, B, &intercept(false, 0), &[(0, 66)]);
        let e = refused(&hit, W, &keep(&["d2d4"]), &[]);
        assert!(e.contains("only a double-move card"), "{e}");
        // A cancel interception: the answer is a plain move, the card is gone.
        let cancelled = ok(&after_double_move(), B, &intercept(false, 0), &[(0, 32)]);
        let e = refused(&cancelled, W, &keep(&["d2d4"]), &[]);
        assert!(e.contains("only after a replace-move"), "{e}");
        // One plain move, exactly.
        let hit = ok(&after_double_move(), B, &intercept(false, 0), &[(0, 66)]);
        assert!(!refused(&hit, W, &keep(&["g1f3", "f3g5"]), &[]).is_empty());
        assert!(!refused(&hit, W, &keep(&[]), &[]).is_empty());
        assert!(!refused(&hit, W, &keep(&["d2d5"]), &[]).is_empty());
        // By the wrong player: the interceptor keeps nothing of White's.
        let e = refused(&hit, B, &keep(&["d7d5"]), &[]);
        assert!(e.contains("it is White's act"), "{e}");
        // No interception to answer.
        let e = refused(&after_double_move(), B, &keep(&["d7d5"]), &[]);
        assert!(e.contains("no interception"), "{e}");
    }

    #[test]
    fn with_no_other_second_move_the_second_move_interception_falls_to_the_first_part() {
        // The knight's only way on from a3 is back to b1: own pawns on b5, c2 and c4.
        let b = board("4k3/pppppppp/8/1P6/2P5/8/P1PPPPPP/1N2K3 w - - 0 1");
        let hand = Hand {
            size: 5,
            given: 5,
            ..Hand::default()
        };
        let start = State {
            board: b,
            to_act: W,
            pending: Pending::Turn(None),
            hands: [hand.clone(), hand],
            plies: 0,
            end: None,
            claims: Default::default(),
            owes_show: None,
        };
        let made = ok(
            &start,
            W,
            &turn(Some(CardRef::Slot(0)), &["b1a3", "a3b1"]),
            &[(0, 18)],
        );
        let s = ok(&made, B, &intercept(true, 0), &[(0, 66)]);
        let Pending::Answer { turn: t, .. } = &s.pending else {
            panic!("{:?}", s.pending);
        };
        assert!(Tempete::default().other_second_moves(t).is_empty());
        // Every answer to the first part will do.
        ok(&s, W, &replay("e2e4"), &[]);
        ok(&s, W, &keep(&["e2e4"]), &[]);
        ok(&s, W, &again(&["b1c3", "c3e4"]), &[]);
        assert!(!refused(&s, W, &again(&["b1a3", "a3b1"]), &[]).is_empty());
    }
}
