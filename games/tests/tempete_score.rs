//! Tempête's score format: famous chess games replay as plain SAN, the card syntax
//! round-trips (written, then replayed to the same state) on hand-made and random games,
//! illegal acts are refused at their ply, garbage is unreadable and never panics; PGN
//! export and rendering.
//!
//! Over 800 lines on purpose: the score format of spec/GAMES.md §4.16 is one grammar, and
//! its writer, reader and replay are tested together on the same games.
//!
//! Final positions are FEN strings checked by hand against the games' published final
//! positions.

use proptest::prelude::*;
use sealed_games::replay::ReplayError;
use sealed_games::tempete::act::{Act, Answer, CardRef, CardUse, StartCard, WireMove};
use sealed_games::tempete::card::FlowEffect;
use sealed_games::tempete::pgn::pgn;
use sealed_games::tempete::render;
use sealed_games::tempete::rules::{deck_name, trap_name};
use sealed_games::tempete::score::{ScoredAct, replay, replay_acts, replay_state, score_text};
use sealed_games::tempete::state::{Pending, State, seat};
use sealed_games::tempete::{Board, Deck, Tempete, Trap, TrapEffect};
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, EnvRef, Name};
use sealed_protocol::rules::{ActCtx, OpenedSlot, Rules};

fn file(name: &str) -> String {
    let path = format!("{}/scores/tempete/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn fen_of(text: &str) -> (String, usize) {
    let (_, s, n) = replay_state(text).unwrap_or_else(|e| panic!("{e}"));
    (s.board.position().fen(), n)
}

// ---- plain chess ---------------------------------------------------------------------

#[test]
fn famous_games_replay() {
    let cases = [
        (
            "opera_1858.pgn",
            33,
            "1n1Rkb1r/p4ppp/4q3/4p1B1/4P3/8/PPP2PPP/2K5 b k - 1 17",
        ),
        (
            "immortal_1851.pgn",
            45,
            "r1bk3r/p2pBpNp/n4n2/1p1NP2P/6P1/3P4/P1P1K3/q5b1 b - - 1 23",
        ),
        (
            "evergreen_1852.pgn",
            47,
            "1r3kr1/pbpBBp1p/1b3P2/8/8/2P2q2/P4PPP/3R2K1 b - - 0 24",
        ),
    ];
    for (name, plies, fen) in cases {
        assert_eq!(fen_of(&file(name)), (fen.to_owned(), plies), "{name}");
        let r = replay(&file(name)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.plies, plies);
        // Mate is on the board, but nobody yielded: the game has not ended in the flow.
        assert_eq!(r.result, None);
        assert!(r.svg.is_some_and(|s| s.starts_with("<svg")));
    }
}

#[test]
fn castling_en_passant_promotion_and_underpromotion() {
    let text = file("special_moves.pgn");
    assert_eq!(
        fen_of(&text),
        (
            "3k1bn1/pppq3p/2n5/1B1p1b2/8/3P4/PPP2P1P/RNBQ1K2 w - - 0 13".to_owned(),
            24
        )
    );
    // Each special move, one at a time.
    let cases = [
        (
            "1. e4 a6 2. e5 d5 3. exd6",
            "rnbqkbnr/1pp1pppp/p2P4/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3",
        ),
        (
            "1. e4 d5 2. e5 f5 3. exf6 e.p.",
            "rnbqkbnr/ppp1p1pp/5P2/3p4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3",
        ),
        (
            "1. Nf3 Nf6 2. g3 g6 3. Bg2 Bg7 4. O-O O-O",
            "rnbq1rk1/ppppppbp/5np1/8/8/5NP1/PPPPPPBP/RNBQ1RK1 w - - 4 5",
        ),
        (
            "1. d4 d5 2. Nc3 Nc6 3. Bf4 Bf5 4. Qd2 Qd7 5. O-O-O O-O-O",
            "2kr1bnr/pppqpppp/2n5/3p1b2/3P1B2/2N5/PPPQPPPP/2KR1BNR w - - 8 6",
        ),
        (
            "1. h4 g5 2. hxg5 h6 3. gxh6 Nf6 4. h7 Ng8 5. hxg8=Q",
            "rnbqkbQr/pppppp2/8/8/8/8/PPPPPPP1/RNBQKBNR b KQkq - 0 5",
        ),
        (
            "1. h4 g5 2. hxg5 h6 3. gxh6 Nf6 4. h7 Ng8 5. hxg8=N",
            "rnbqkbNr/pppppp2/8/8/8/8/PPPPPPP1/RNBQKBNR b KQkq - 0 5",
        ),
        (
            "1. h4 g5 2. hxg5 h6 3. gxh6 Nf6 4. h7 Ng8 5. hxg8R",
            "rnbqkbRr/pppppp2/8/8/8/8/PPPPPPP1/RNBQKBNR b KQkq - 0 5",
        ),
    ];
    for (text, fen) in cases {
        assert_eq!(fen_of(text).0, fen, "{text}");
    }
}

#[test]
fn pgn_habits_are_read() {
    // No space after the number, NAGs, annotations, `;` comments, side lines, `1...`.
    let text = "[Event \"x\"]\n\n1.e4 $1 e5!? ; a comment\n2.Nf3 (2.f4 exf4) 2...Nc6 3.Bb5 a6 *";
    assert_eq!(fen_of(text).1, 6);
    // Long algebraic and UCI forms of plain moves, and castling written as a king move.
    let lan = "1. e2-e4 e7e5 2. Ng1-f3 Nb8-c6 3. Bf1-c4 Bf8-c5 4. Ke1-g1";
    let san = "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O";
    assert_eq!(fen_of(lan), fen_of(san));
}

#[test]
fn an_illegal_move_is_refused_at_its_ply() {
    let cases = [
        ("1. e4 e5 2. Ke3", 3),
        (
            "1. e4 e5 2. Nf3 Nf6 3. Nxe5 Nxe4 4. Qe2 Qe7 5. Qxe4 d6 6. Nf3 Nd7 7. Nc3 O-O-O",
            14,
        ),
        ("1. e4 e5 2. e5", 3),
        // `e8` names no promotion kind: four moves fit.
        ("1. h4 g5 2. hxg5 h6 3. gxh6 Nf6 4. h7 Ng8 5. hxg8", 9),
        // The score claims a result the game contradicts.
        ("1. f3 e5 2. g4 Qh4# 3. <yield> 1-0", 5),
    ];
    for (text, ply) in cases {
        match replay(text) {
            Err(ReplayError::Illegal { ply: p, .. }) => assert_eq!(p, ply, "{text}"),
            other => panic!("{text}: {other:?}"),
        }
    }
    // The refusal names the move it could not read as legal.
    let why = replay("1. e4 e5 2. e5").unwrap_err().to_string();
    assert!(why.contains("e5 names no legal move"), "{why}");
}

#[test]
fn garbage_is_unreadable() {
    for text in [
        "1. e4 {unclosed",
        "1. e4 }",
        "1. e4 <18 Ng1-f3",
        "1. e4 e5 2. Zz9",
        "1. e4 1-0 e5",
        "[Cards \"1-3\"]\n1. e4",
        "[Hand 5]\n1. e4",
        "1. e4 <18@z9 Ng1-f3>",
        "1. e4 <answer cancel>",
        "1. e4 <intercept>",
        "1. e4 <34 takes x e5>",
        "1. e4 <57 picks 3 e5>",
        "2. e4",
        "1... e4",
        "1. e4 <intercept 66> 2. <answer d4>",
        "[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/K1k5 w - - 0 1\"]\n1. Kb1",
        "1. e4 e5 2. <18 Nf3 Ng5>",
    ] {
        match replay(text) {
            Err(ReplayError::Unreadable(_)) => {}
            other => panic!("{text:?}: {other:?}"),
        }
    }
}

proptest! {
    #[test]
    fn random_text_never_panics(text in "\\PC{0,120}") {
        let _ = replay(&text);
    }

    #[test]
    fn random_score_like_text_never_panics(
        words in prop::collection::vec(
            prop::sample::select(vec![
                "1.", "2...", "e4", "e5", "Nf3", "<", ">", "{", "}", "(", ")", "<18", "Ng1-f3",
                "Nf3-g5>", "<intercept", "66>", "<answer", "cancel", "32>", "again", "t18",
                "takes", "picks", "slot", "discard", "sprung", "0", "f6", "yield", "1-0", "*",
                "12@e4=Q", "[Hand \"5\"]", "O-O", "exd6", "e8=N", "$1", ";", "\n",
            ]),
            0..40,
        )
    ) {
        let _ = replay(&words.join(" "));
    }
}

// ---- cards ----------------------------------------------------------------------------

/// Which variant of `Act` an act is, finely.
fn variant(a: &Act) -> &'static str {
    match a {
        Act::Turn {
            start: Some(StartCard::Take { .. }),
            ..
        } => "turn+take",
        Act::Turn {
            start: Some(StartCard::Pick { .. }),
            ..
        } => "turn+pick",
        Act::Turn { discard, .. } if !discard.is_empty() => "turn+discard",
        Act::Turn {
            card:
                Some(CardUse {
                    card: CardRef::Taken(_),
                    ..
                }),
            ..
        } => "turn+taken",
        Act::Turn { card: Some(u), .. } if !u.squares.is_empty() => "turn+params",
        Act::Turn { card: Some(_), .. } => "turn+card",
        Act::Turn { .. } => "turn",
        Act::Intercept { .. } => "intercept",
        Act::InterceptSecond { .. } => "intercept-second",
        Act::Answer(Answer::Cancel { .. }) => "answer-cancel",
        Act::Answer(Answer::Keep { .. }) => "answer-keep",
        Act::Answer(Answer::Replay { card: None, .. }) => "answer-plain",
        Act::Answer(Answer::Replay {
            card:
                Some(CardUse {
                    card: CardRef::Again,
                    ..
                }),
            ..
        }) => "answer-again",
        Act::Answer(Answer::Replay { card: Some(_), .. }) => "answer-card",
        Act::Yield => "yield",
        Act::Claim(_)
        | Act::Answer(Answer::Claimed(_))
        | Act::Dispute { .. }
        | Act::Settle { .. }
        | Act::Ruling { .. } => "physical",
    }
}

#[test]
fn card_scores_replay_and_cover_every_act() {
    let a = file("cards_interceptions.txt");
    let b = file("cards_edits.txt");
    assert_eq!(
        fen_of(&a),
        (
            "r3kb1N/1pp1q1pp/pB1p1n2/4p2b/P1B1P3/3P4/1PP2PPP/RN1QK2R w KQq - 1 9".to_owned(),
            24
        )
    );
    let rb = replay(&b).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rb.plies, 5);
    assert!(
        rb.result.as_deref().is_some_and(|r| r.starts_with("0-1")),
        "{:?}",
        rb.result
    );

    let mut seen = std::collections::BTreeSet::new();
    let mut sealed = false;
    let mut sprung = false;
    for text in [&a, &b] {
        let (rules, state, acts) = replay_acts(text).unwrap_or_else(|e| panic!("{e}"));
        for sa in &acts {
            seen.insert(variant(&sa.act));
            sealed |= sa.sealed_trap;
            sprung |= !sa.sprung.is_empty();
        }
        // Written again, the score replays to the same state.
        let written = score_text(&rules, &acts);
        let (_, again, n) = replay_state(&written).unwrap_or_else(|e| panic!("{e}\n{written}"));
        assert_eq!(n, acts.len());
        assert_eq!(again, state, "{written}");
    }
    let all = [
        "turn",
        "turn+card",
        "turn+params",
        "turn+take",
        "turn+pick",
        "turn+discard",
        "turn+taken",
        "intercept",
        "answer-cancel",
        "answer-plain",
        "answer-card",
        "answer-again",
        "yield",
    ];
    for v in all {
        assert!(seen.contains(v), "no {v} in the sample scores");
    }
    assert!(sealed && sprung);
}

#[test]
fn written_card_syntax_reads_as_documented() {
    let (_, _, acts) =
        replay_acts(&file("cards_interceptions.txt")).unwrap_or_else(|e| panic!("{e}"));
    let (rules, _, _) = replay_state("").unwrap_or_else(|e| panic!("{e}"));
    let text = score_text(&rules, &acts);
    for piece in [
        "<18 Ng1-f3 Nf3-g5>",
        "<intercept 32>",
        "<answer cancel 42>",
        "<34 takes 18 Nc6>",
        "<12 Bc4>",
        "{trap 0 sealed",
        "<t18 Ng8-f6 Nc6-d4>",
        "<sprung 0 d4 d3>",
        "<answer again Bc1-e3 Be3-b6>",
        "<57 picks slot 3 Bg4>",
        "<answer 25 a2-a4>",
    ] {
        assert!(text.contains(piece), "{piece} not in\n{text}");
    }
}

/// The seed's card 18 options, written and read: an interception of the second move
/// answered by another second move, a double move replaced whole with the card kept,
/// and the kept card played later as known.
#[test]
fn double_move_interceptions_round_trip() {
    let text = "1. e4 e5 2. <18 Ng1-f3 Nf3-g5> <intercept second 66> \
                <answer again Ng1-f3 Nf3-h4> 2... Nc6 3. <50 Bf1-c4 Bc4-b5> <intercept 66> \
                <answer keep d3> 3... Nf6 4. <t50 Bf1-e2 Be2-g4> d6 *";
    let (rules, state, acts) = replay_acts(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(acts.len(), 12);
    assert_eq!(
        state.board.position().fen(),
        "r1bqkb1r/ppp2ppp/2np1n2/4p3/4P1BN/3P4/PPP2PPP/RNBQK2R w KQkq - 0 5"
    );
    // Card 50 went back to White's hand and came out again: nothing known is left.
    assert!(
        state
            .hand(sealed_games::chess::Color::White)
            .taken
            .is_empty()
    );
    let kinds: Vec<&str> = acts.iter().map(|sa| variant(&sa.act)).collect();
    for k in [
        "intercept-second",
        "answer-again",
        "answer-keep",
        "turn+taken",
    ] {
        assert!(kinds.contains(&k), "no {k} in {kinds:?}");
    }
    let written = score_text(&rules, &acts);
    for piece in [
        "<intercept second 66>",
        "<answer again Ng1-f3 Nf3-h4>",
        "<answer keep d3>",
        "<t50 Bf1-e2 Be2-g4>",
    ] {
        assert!(written.contains(piece), "{piece} not in\n{written}");
    }
    let (_, again, n) = replay_state(&written).unwrap_or_else(|e| panic!("{e}\n{written}"));
    assert_eq!((n, again), (acts.len(), state), "{written}");
    let p = pgn(&rules, &Hash([0; 32]), &acts, &[], None);
    assert!(p.contains("intercepts the second move with card 66"), "{p}");
    assert!(p.contains("keeps card 50"), "{p}");
}

#[test]
fn an_illegal_card_play_is_refused_at_its_ply() {
    let cases = [
        // Card 18 moves knights, not pawns.
        ("1. e4 e5 2. <18 d2-d4 d4-d5>", 3),
        // A cancel intercepts a card: this turn played none.
        ("1. e4 <intercept 32>", 2),
        // The intercepted move must be replaced, not made again.
        ("1. e4 <intercept 66> <answer e4>", 3),
        // A trap opened where no enemy piece landed.
        ("1. <12 e4> e5 2. <sprung 0 d5 d4>", 3),
        // A freeze names an enemy piece, not an empty square.
        ("1. e4 <17@e3 e5>", 2),
        // A card never taken cannot be played as taken.
        ("1. e4 <t18 Ng8-f6 Nf6-e4>", 2),
        // Not mated, so no yield.
        ("1. e4 <yield>", 2),
        // A card named twice in one act.
        ("1. <19 e4 discard 19 20>", 1),
        // A card off the agreed list.
        ("[Cards \"1-10,12-21,23-69\"]\n1. <70 e2-e4 e4-e5>", 1),
        // Only a double move's second move can be intercepted on its own.
        ("1. e4 <intercept second 66>", 2),
        ("1. <24@b1 Nc3> <intercept second 66>", 2),
        // A cancel voids the card whole: it picks no part.
        ("1. e4 e5 2. <18 Ng1-f3 Nf3-g5> <intercept second 32>", 4),
        // The second move hit: the first stands and the second changes, with the card.
        (
            "1. e4 e5 2. <18 Ng1-f3 Nf3-g5> <intercept second 66> <answer Nc3>",
            5,
        ),
        (
            "1. e4 e5 2. <18 Ng1-f3 Nf3-g5> <intercept second 66> <answer again Nb1-c3 Nc3-d5>",
            5,
        ),
        (
            "1. e4 e5 2. <18 Ng1-f3 Nf3-g5> <intercept second 66> <answer again Ng1-f3 Nf3-g5>",
            5,
        ),
        (
            "1. e4 e5 2. <18 Ng1-f3 Nf3-g5> <intercept second 66> <answer keep Nc3>",
            5,
        ),
        // The first move hit: a double move played again starts elsewhere.
        (
            "1. e4 e5 2. <18 Ng1-f3 Nf3-g5> <intercept 66> <answer again Ng1-f3 Nf3-h4>",
            5,
        ),
        // Only a double-move card is kept, and only after a replace-move interception.
        ("1. e4 <intercept 66> <answer keep d4>", 3),
        (
            "1. e4 e5 2. <18 Ng1-f3 Nf3-g5> <intercept 32> <answer keep d4>",
            5,
        ),
        // A kept card is played once.
        (
            "1. e4 e5 2. <18 Ng1-f3 Nf3-g5> <intercept 66> <answer keep d4> 2... d6 \
             3. <t18 Ng1-f3 Nf3-g5> d5 4. <t18 Nb1-c3 Nc3-b5>",
            9,
        ),
    ];
    for (text, ply) in cases {
        match replay(text) {
            Err(ReplayError::Illegal { ply: p, .. }) => assert_eq!(p, ply, "{text}"),
            other => panic!("{text}: {other:?}"),
        }
    }
}

// ---- random games: written, then replayed ----------------------------------------------

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Judges an act with the protocol's rules; the new state if accepted.
fn judge(rules: &Tempete, s: &State, sa: &ScoredAct) -> Option<State> {
    let coin = Hash([0; 32]);
    let opened: Vec<OpenedSlot> = sa
        .cards
        .iter()
        .map(|(slot, card)| OpenedSlot {
            deck: deck_name(),
            slot: *slot,
            card: *card,
        })
        .collect();
    let committed: Vec<(Name, u32)> = if sa.sealed_trap {
        vec![(trap_name(), s.hand(s.to_act).traps.len() as u32)]
    } else {
        vec![]
    };
    let values: Vec<(Name, u32, Vec<u8>)> = sa
        .sprung
        .iter()
        .map(|(i, q)| (trap_name(), *i, vec![*q]))
        .collect();
    let ctx = ActCtx {
        shown_slots: &[],
        held_slots: &[],
        at: EnvRef {
            chain: ChainId::public(sa.seat),
            seq: 0,
        },
        clock: 0,
        coin: &coin,
        opened_slots: &opened,
        opened_values: &values,
        opened_setups: &[],
        committed_values: &committed,
        draws: &[],
    };
    rules.apply(s, sa.seat, &sa.act, &ctx).ok().map(|a| a.state)
}

/// A random game played through the flow, with cards from the open deck.
fn random_game(seed: u64, max_acts: usize) -> (Tempete, Vec<ScoredAct>, State) {
    let rules = Tempete::default();
    let deck = Deck::open();
    let own_move: Vec<u32> = deck
        .cards()
        .filter(|c| c.timing().is_own_move() && c.effect().flow() != Some(FlowEffect::ShowHand))
        .map(|c| c.number())
        .collect();
    let mut rng = Rng(seed | 1);
    let mut s = rules.start(&Hash([0; 32]));
    let mut acts = vec![];
    // Secret trap squares by owner: (index, square, effect, sprung).
    let mut traps: [Vec<(u32, u8, TrapEffect, bool)>; 2] = [vec![], vec![]];
    let mut next_slot = 100u32;
    let mut slot_for = |n: u32, cards: &mut Vec<(u32, u32)>| {
        next_slot += 1;
        cards.push((next_slot, n));
        CardRef::Slot(next_slot)
    };
    for _ in 0..max_acts {
        if s.end.is_some() {
            break;
        }
        let side = s.to_act;
        let who = seat(side);
        let mut board: Board = s.board.clone();
        let mut sprung = vec![];
        for t in traps[side.idx()].iter_mut().filter(|t| !t.3) {
            let Some(square) = sealed_games::chess::Square::from_index(t.1) else {
                continue;
            };
            if let Ok(b) = board.spring_trap(Trap {
                owner: side,
                square,
                effect: t.2,
            }) {
                board = b;
                sprung.push((t.0, t.1));
                t.3 = true;
            }
        }
        let mut tries: Vec<ScoredAct> = vec![];
        let mut cards = vec![];
        let plain = board.plain_moves();
        let pick_plain = |rng: &mut Rng, avoid: Option<&Vec<sealed_games::chess::Move>>| {
            let ok: Vec<_> = plain
                .iter()
                .filter(|m| avoid.is_none_or(|a| a.as_slice() != [**m]))
                .collect();
            ok.get(rng.below(ok.len())).map(|m| WireMove::of(m))
        };
        let mut sealed = false;
        // A double move just made draws interceptions, so the seed's card 18 options
        // come up often.
        let double_last = match &s.pending {
            Pending::Turn(Some(t)) => rules.double_move_card(t).is_some(),
            _ => false,
        };
        let act = match &s.pending {
            Pending::Answer { turn, by, second } => {
                let others = if *second {
                    rules.other_second_moves(turn)
                } else {
                    vec![]
                };
                let keep = *by == FlowEffect::ReplaceMove && rules.double_move_card(turn).is_some();
                if let (Some(first), Some(other), true) = (
                    turn.moves.first(),
                    others.get(rng.below(others.len())),
                    rng.below(4) != 0,
                ) {
                    Act::Answer(Answer::Replay {
                        card: Some(CardUse {
                            card: CardRef::Again,
                            squares: vec![],
                            kind: None,
                        }),
                        moves: vec![WireMove::of(first), WireMove::of(other)],
                    })
                } else if keep && rng.below(2) == 0 {
                    match pick_plain(&mut rng, None) {
                        Some(m) => Act::Answer(Answer::Keep { moves: vec![m] }),
                        None => Act::Yield,
                    }
                } else if rng.below(4) == 0 {
                    Act::Answer(Answer::Cancel {
                        card: CardUse {
                            card: slot_for(42, &mut cards),
                            squares: vec![],
                            kind: None,
                        },
                    })
                } else {
                    match pick_plain(&mut rng, Some(&turn.moves)) {
                        Some(m) => Act::Answer(Answer::Replay {
                            card: None,
                            moves: vec![m],
                        }),
                        None => Act::Answer(Answer::Cancel {
                            card: CardUse {
                                card: slot_for(52, &mut cards),
                                squares: vec![],
                                kind: None,
                            },
                        }),
                    }
                }
            }
            Pending::Turn(last)
                if last.is_some() && rng.below(if double_last { 2 } else { 8 }) == 0 =>
            {
                let n = if last.as_ref().is_some_and(|t| t.card.is_some()) && rng.below(2) == 0 {
                    32
                } else {
                    66
                };
                let card = CardUse {
                    card: slot_for(n, &mut cards),
                    squares: vec![],
                    kind: None,
                };
                if n == 66 && double_last && rng.below(2) == 0 {
                    Act::InterceptSecond { card }
                } else {
                    Act::Intercept { card }
                }
            }
            Pending::Turn(_) if plain.is_empty() => Act::Yield,
            Pending::Turn(_) => {
                let mut start = None;
                let takeable = &s.hand(side).takeable;
                if !takeable.is_empty() && rng.below(3) == 0 {
                    let number = takeable[rng.below(takeable.len())];
                    start = Some(StartCard::Take {
                        card: slot_for(34, &mut cards),
                        number,
                    });
                } else if board.lost_non_pawn(side) && rng.below(2) == 0 {
                    start = Some(StartCard::Pick {
                        card: slot_for(57, &mut cards),
                        slot: rng.below(rules.list.len()) as u32,
                    });
                }
                let mut card = None;
                let mut moves = pick_plain(&mut rng, None).into_iter().collect::<Vec<_>>();
                let mut discard = vec![];
                if rng.below(3) == 0 {
                    let taken = &s.hand(side).taken;
                    let (number, r) = if !taken.is_empty() && rng.below(2) == 0 {
                        let n = taken[rng.below(taken.len())];
                        (n, None)
                    } else if rng.below(4) == 0 {
                        // The double-move cards, whose interceptions have options.
                        ([18, 50, 70][rng.below(3)], Some(()))
                    } else {
                        (own_move[rng.below(own_move.len())], Some(()))
                    };
                    let c = deck.card(number).cloned();
                    let plays = c
                        .as_ref()
                        .map(|c| board.legal_plays(Some(c)))
                        .unwrap_or_default();
                    if let (Some(c), false) = (c, plays.is_empty()) {
                        let p = &plays[rng.below(plays.len())];
                        let cref = match r {
                            Some(()) => slot_for(number, &mut cards),
                            None => CardRef::Taken(number),
                        };
                        card = Some(CardUse::new(cref, &p.params));
                        moves = p.moves.iter().map(WireMove::of).collect();
                        match c.effect().flow() {
                            Some(FlowEffect::SealTrapSquare(effect)) => {
                                sealed = true;
                                let index = s.hand(side).traps.len() as u32;
                                let sq = rng.below(64) as u8;
                                traps[side.idx()].push((index, sq, effect, false));
                            }
                            Some(FlowEffect::Redraw(k)) => {
                                let mut d = 0;
                                while discard.len() < usize::from(k) && d < 100 {
                                    d += 1;
                                    let n = rules.list[rng.below(rules.list.len())];
                                    if n != number && !cards.iter().any(|(_, c)| *c == n) {
                                        discard.push(slot_for(n, &mut cards));
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
                Act::Turn {
                    start,
                    card,
                    moves,
                    discard: discard
                        .into_iter()
                        .filter_map(|r| match r {
                            CardRef::Slot(s) => Some(s),
                            _ => None,
                        })
                        .collect(),
                }
            }
        };
        tries.push(ScoredAct {
            seat: who,
            act,
            cards,
            sealed_trap: sealed,
            sprung: sprung.clone(),
        });
        // A fallback the rules always take: a plain move (or a yield).
        let fallback = match (&s.pending, pick_plain(&mut rng, None)) {
            (Pending::Answer { turn, .. }, _) => pick_plain(&mut rng, Some(&turn.moves)).map(|m| {
                Act::Answer(Answer::Replay {
                    card: None,
                    moves: vec![m],
                })
            }),
            (_, Some(m)) => Some(Act::Turn {
                start: None,
                card: None,
                moves: vec![m],
                discard: vec![],
            }),
            (_, None) => Some(Act::Yield),
        };
        if let Some(act) = fallback {
            tries.push(ScoredAct {
                seat: who,
                act,
                cards: vec![],
                sealed_trap: false,
                sprung,
            });
        }
        let mut done = false;
        for sa in tries {
            if let Some(next) = judge(&rules, &s, &sa) {
                s = next;
                acts.push(sa);
                done = true;
                break;
            }
        }
        // A trap pushed for a refused act is forgotten.
        let n = s.hand(side).traps.len() as u32;
        traps[side.idx()].retain(|t| t.0 < n);
        if !done {
            break;
        }
    }
    (rules, acts, s)
}

#[test]
fn random_games_round_trip() {
    let mut kinds = std::collections::BTreeSet::new();
    for seed in 1..=40u64 {
        let (rules, acts, state) = random_game(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15), 80);
        for sa in &acts {
            kinds.insert(variant(&sa.act));
        }
        let text = score_text(&rules, &acts);
        let (_, again, n) =
            replay_state(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(n, acts.len(), "seed {seed}\n{text}");
        assert_eq!(again.board, state.board, "seed {seed}\n{text}");
        assert_eq!(again, state, "seed {seed}\n{text}");
        // PGN and rendering never fail.
        let p = pgn(&rules, &Hash([0; 32]), &acts, &[], None);
        assert!(p.starts_with("[Event \"?\"]"));
        assert!(render::text(&state, None).contains("a  b  c"));
        assert!(render::svg(&state).ends_with("</svg>\n"));
    }
    for v in [
        "turn",
        "turn+card",
        "turn+params",
        "turn+taken",
        "intercept",
        "intercept-second",
        "answer-plain",
        "answer-again",
        "answer-keep",
    ] {
        assert!(
            kinds.contains(v),
            "random games never made a {v}: {kinds:?}"
        );
    }
}

// ---- PGN and rendering ------------------------------------------------------------------

#[test]
fn pgn_of_a_plain_game_replays_as_plain_san() {
    for name in ["opera_1858.pgn", "immortal_1851.pgn", "special_moves.pgn"] {
        let (rules, state, acts) = replay_acts(&file(name)).unwrap_or_else(|e| panic!("{e}"));
        let tags = vec![
            ("White".to_owned(), "Paul \"the\" Morphy".to_owned()),
            ("Annotator".to_owned(), "sealed".to_owned()),
        ];
        let p = pgn(&rules, &Hash([0; 32]), &acts, &tags, Some("1-0"));
        for roster in [
            "[Event \"?\"]",
            "[Site \"?\"]",
            "[Date \"????.??.??\"]",
            "[Round \"?\"]",
            "[White \"Paul \\\"the\\\" Morphy\"]",
            "[Black \"?\"]",
            "[Result \"1-0\"]",
            "[Annotator \"sealed\"]",
        ] {
            assert!(p.contains(roster), "{roster} missing:\n{p}");
        }
        assert!(!p.contains('{') && !p.contains('<'), "{p}");
        let (_, again, n) = replay_state(&p).unwrap_or_else(|e| panic!("{e}\n{p}"));
        assert_eq!((n, again.board), (acts.len(), state.board), "{p}");
    }
    let p = pgn(
        &Tempete::default(),
        &Hash([0; 32]),
        &replay_acts(&file("opera_1858.pgn")).unwrap().2,
        &[],
        None,
    );
    assert!(
        p.contains("12. O-O-O Rd8") && p.contains("17. Rd8# *"),
        "{p}"
    );
}

#[test]
fn pgn_of_a_card_game_explains_the_cards() {
    let (rules, _, acts) =
        replay_acts(&file("cards_interceptions.txt")).unwrap_or_else(|e| panic!("{e}"));
    let p = pgn(&rules, &Hash([0; 32]), &acts, &[], None);
    assert!(p.contains("card 18 Twin Leap (extra-move knight)"), "{p}");
    assert!(p.contains("then f3-g5"), "{p}");
    assert!(p.contains("intercepts with card 32"), "{p}");
    assert!(p.contains("opens trap 0 on d4"), "{p}");
    assert!(p.contains("2. Nf3 "), "{p}");
    let (rules, _, acts) = replay_acts(&file("cards_edits.txt")).unwrap_or_else(|e| panic!("{e}"));
    let p = pgn(&rules, &Hash([0; 32]), &acts, &[], None);
    assert!(
        p.contains("[Result \"0-1\"]") && p.trim_end().ends_with("0-1"),
        "{p}"
    );
    assert!(p.contains("White has no legal move"), "{p}");
}

/// The comments of a PGN's movetext, each with the move before it, as a PGN reader
/// (python-chess, SCID, lichess) attaches them: `None` for one before the first move.
fn attached(pgn: &str) -> Vec<(Option<String>, String)> {
    let text: String = pgn
        .lines()
        .filter(|l| !l.starts_with('['))
        .collect::<Vec<_>>()
        .join(" ");
    let mut out = vec![];
    let mut last: Option<String> = None;
    let mut rest = text.as_str();
    while let Some(c) = rest.chars().next() {
        if c == '{' {
            let end = rest.find('}').expect("a closed comment");
            out.push((last.clone(), rest[1..end].to_owned()));
            rest = &rest[end + 1..];
        } else if c.is_whitespace() {
            rest = &rest[c.len_utf8()..];
        } else {
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '{')
                .unwrap_or(rest.len());
            let token = &rest[..end];
            let number = token
                .trim_end_matches('.')
                .chars()
                .all(|c| c.is_ascii_digit());
            if !number {
                last = Some(token.to_owned());
            }
            rest = &rest[end..];
        }
    }
    out
}

/// Issue 55: a card's comment follows the move it was played with, so that a PGN
/// reader gives it to that move and not to the opponent's before it.
#[test]
fn pgn_comments_follow_the_move_they_belong_to() {
    let (rules, _, acts) =
        replay_acts(&file("cards_interceptions.txt")).unwrap_or_else(|e| panic!("{e}"));
    let p = pgn(&rules, &Hash([0; 32]), &acts, &[], None);
    let notes = attached(&p);
    let on = |needle: &str| {
        notes
            .iter()
            .find(|(_, c)| c.contains(needle))
            .unwrap_or_else(|| panic!("{needle} not in\n{p}"))
            .0
            .clone()
    };
    // White's second turn: card 18 with the knight, intercepted, the interception
    // cancelled: every word of it is on White's Nf3, none on Black's e5.
    assert_eq!(on("card 18 Twin Leap").as_deref(), Some("Nf3"), "{p}");
    assert_eq!(on("intercepts with card 32").as_deref(), Some("Nf3"), "{p}");
    assert_eq!(
        on("cancels the interception").as_deref(),
        Some("Nf3"),
        "{p}"
    );
    // Black's card 34 goes with his Nc6, and White's trap with his Bc4.
    assert_eq!(on("takes card 18").as_deref(), Some("Nc6"), "{p}");
    assert_eq!(on("a trap square is sealed").as_deref(), Some("Bc4"), "{p}");
    assert!(notes.iter().all(|(m, _)| m.is_some()), "{p}");
    // After a commented White move, Black's is numbered again (`2... Nc6`).
    assert!(p.contains("2... Nc6"), "{p}");
}

#[test]
fn rendering_shows_the_effects() {
    let text = "1. e4 e5 2. <10@d4 Nf3> <24@b8 Nc6> 3. <29@c6 Bc4>";
    let (_, s, _) = replay_state(text).unwrap_or_else(|e| panic!("{e}"));
    let t = render::text(&s, Some(&[(18, "Twin Leap".to_owned())]));
    assert!(t.contains(" 1  ♖ "), "{t}");
    assert!(t.contains(" 8  ♜ "), "{t}");
    assert!(t.contains("forbidden: d4"), "{t}");
    assert!(t.contains("augmented: c6 +king"), "{t}");
    assert!(t.contains("your hand: 18 Twin Leap"), "{t}");
    assert!(t.contains("frozen: c6"), "{t}");
    assert!(t.contains(" ♞* "), "{t}");
    assert!(t.contains("Black to play"), "{t}");
    let svg = render::svg(&s);
    assert!(svg.starts_with("<svg") && svg.contains("#c0392b") && svg.contains("#27ae60"));
    assert!(svg.contains("#2e86c1"));
}

/// The sample score of spec/GAMES.md §4.16 is a legal game: it replays to its end, every
/// card flow of it (a double move intercepted and answered, a trap sealed and sprung, a
/// card taken, a frozen piece) judged by the rules.
#[test]
fn the_spec_sample_score_replays() {
    let spec = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/GAMES.md"))
        .expect("spec/GAMES.md");
    let start = spec.find("[Event \"a sample\"]").expect("the sample");
    let end = start + spec[start..].find("```").expect("its end");
    let (_, state, plies) =
        replay_state(&spec[start..end]).unwrap_or_else(|e| panic!("the sample: {e}"));
    assert_eq!(plies, 10);
    assert!(state.end.is_none());
    // White's trap sprang at ply 7: it is no longer shown as waiting.
    let shown = render::text(&state, None);
    assert!(shown.contains("White: 5 cards, 1 sprung"), "{shown}");
    assert!(!shown.contains("trap sealed"), "{shown}");
}
