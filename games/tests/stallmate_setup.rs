//! Secret Stallmate's setups (the seed mapping), options, and the text and wire forms
//! of its values: round trips, refusals, and no panic on any input.

use proptest::prelude::*;
use sealed_games::chess::{Color, Kind, Position, Square};
use sealed_games::stallmate::{
    Answer, Attempt, BoardEnd, Capture, Capturer, CheckKind, Ending, Entry, Heard, OPTION_KEYS,
    Options, Period, Report, SETUPS, Setup, Silence, Turn,
};

fn seed(i: u64, side: u8) -> [u8; 32] {
    let mut s = [0u8; 32];
    s[..8].copy_from_slice(&i.to_le_bytes());
    s[31] = side;
    s
}

#[test]
fn the_mapping_is_pinned_to_the_chacha20_stream() {
    // RFC 8439's first key-stream word for the zero key is 0xade0b876 = 2917185654,
    // accepted by the rejection zone, and 2917185654 mod 960 = 54.
    assert_eq!(Setup::from_seed(&[0; 32]).number(), 54);
}

#[test]
fn setups_from_seeds_look_uniform() {
    let n = 96_000u64;
    let mut counts = [0u32; SETUPS as usize];
    for i in 0..n {
        counts[usize::from(Setup::from_seed(&seed(i, 0)).number())] += 1;
    }
    let expected = n as f64 / f64::from(SETUPS);
    let chi2: f64 = counts
        .iter()
        .map(|&c| (f64::from(c) - expected).powi(2) / expected)
        .sum();
    // 959 degrees of freedom: mean 959, standard deviation about 44.
    assert!(chi2 < 959.0 + 6.0 * 44.0, "chi-square {chi2}");
    assert!(chi2 > 959.0 - 6.0 * 44.0, "too even to be random: {chi2}");
    assert!(counts.iter().all(|&c| c > 0), "every setup can come up");
}

#[test]
fn the_two_sides_draw_independently() {
    let n = 96_000u64;
    let mut cells = [[0u32; 8]; 8];
    let mut same = 0;
    for i in 0..n {
        let w = Setup::from_seed(&seed(i, 0)).number();
        let b = Setup::from_seed(&seed(i, 1)).number();
        cells[usize::from(w / 120)][usize::from(b / 120)] += 1;
        same += u32::from(w == b);
    }
    let expected = n as f64 / 64.0;
    let chi2: f64 = cells
        .iter()
        .flatten()
        .map(|&c| (f64::from(c) - expected).powi(2) / expected)
        .sum();
    // 63 degrees of freedom: mean 63, standard deviation about 11.
    assert!(chi2 < 63.0 + 6.0 * 11.3, "chi-square {chi2}");
    // The same setup for both about once in 960 games.
    assert!((40..=160).contains(&same), "{same} equal pairs");
}

#[test]
fn number_518_is_the_standard_army() {
    assert_eq!(Setup::STANDARD.number(), 518);
    assert_eq!(Setup::STANDARD.letters(), "RNBQKBNR");
    assert_eq!(
        Setup::start(Setup::STANDARD, Setup::STANDARD),
        Position::startpos()
    );
    assert_eq!(Setup::new(0).unwrap().letters(), "BBQNNRKR");
    assert_eq!(Setup::new(959).unwrap().letters(), "RKRNNQBB");
}

#[test]
fn every_number_is_a_distinct_chess960_army() {
    let mut seen = std::collections::BTreeSet::new();
    for n in 0..SETUPS {
        let s = Setup::new(n).unwrap();
        let rank = s.back_rank();
        let files = |k: Kind| (0..8).filter(move |&i| rank[i] == k);
        let bishops: Vec<usize> = files(Kind::Bishop).collect();
        assert_eq!(bishops.len(), 2);
        assert_ne!(
            bishops[0] % 2,
            bishops[1] % 2,
            "{n}: bishops on both colours"
        );
        let rooks: Vec<usize> = files(Kind::Rook).collect();
        let king: Vec<usize> = files(Kind::King).collect();
        assert!(
            rooks[0] < king[0] && king[0] < rooks[1],
            "{n}: king between rooks"
        );
        assert_eq!(s.king_home(Color::Black).file().index() as usize, king[0]);
        assert!(seen.insert(s.letters()));
    }
    assert_eq!(Setup::new(960), None);
    assert_eq!(Setup::new(u16::MAX), None);
}

#[test]
fn the_combined_start_is_cozy_chess_double_chess960() {
    for (w, b) in [(518, 0), (0, 959), (359, 518), (123, 777)] {
        let pos = Setup::start(Setup::new(w).unwrap(), Setup::new(b).unwrap());
        let board = cozy_chess::Board::double_chess960_startpos(u32::from(w), u32::from(b));
        assert_eq!(pos.shredder_fen(), format!("{board:#}"), "{w}/{b}");
    }
}

#[test]
fn setups_on_the_wire_refuse_numbers_out_of_range() {
    let s = Setup::new(777).unwrap();
    let bytes = postcard::to_allocvec(&s).unwrap();
    assert_eq!(postcard::from_bytes::<Setup>(&bytes), Ok(s));
    let too_big = postcard::to_allocvec(&960u16).unwrap();
    assert!(postcard::from_bytes::<Setup>(&too_big).is_err());
}

#[test]
fn options_have_their_defaults() {
    let o = Options::default();
    assert!(o.must_try);
    assert!(!o.name_capturer);
    assert_eq!(o.ply_limit, None);
    assert_eq!(o.period.millis(), 24 * 3_600_000);
    assert_eq!(Options::parse([]), Ok(o));
    let keys: Vec<&str> = o.to_pairs().iter().map(|(k, _)| *k).collect();
    assert_eq!(keys, OPTION_KEYS);
}

#[test]
fn options_are_read_from_key_value_text() {
    let o = Options::parse([
        ("must-try", "off"),
        ("name-capturer", "on"),
        ("ply-limit", "300"),
        ("period", "90s"),
    ])
    .unwrap();
    assert_eq!(
        o,
        Options {
            must_try: false,
            name_capturer: true,
            ply_limit: Some(300),
            period: Period::from_millis(90_000).unwrap(),
        }
    );
    let pairs = o.to_pairs();
    let back = Options::parse(pairs.iter().map(|(k, v)| (*k, v.as_str()))).unwrap();
    assert_eq!(back, o);
    let proposal = o.to_proposal();
    assert_eq!(proposal.len(), 4);
    assert_eq!(Options::from_proposal(&proposal), Ok(o));
    assert_eq!(
        Options::parse([("ply-limit", "none")]).unwrap().ply_limit,
        None
    );
}

#[test]
fn bad_options_are_refused() {
    for pairs in [
        vec![("colour", "red")],
        vec![("must-try", "yes")],
        vec![("must-try", "on"), ("must-try", "on")],
        vec![("name-capturer", "")],
        vec![("ply-limit", "0")],
        vec![("ply-limit", "-5")],
        vec![("ply-limit", "many")],
        vec![("period", "0s")],
        vec![("period", "24")],
    ] {
        assert!(Options::parse(pairs.clone()).is_err(), "{pairs:?}");
    }
}

#[test]
fn periods_are_a_number_and_a_unit() {
    for (text, ms, shown) in [
        ("24h", 86_400_000, "24h"),
        ("90s", 90_000, "90s"),
        ("500ms", 500, "500ms"),
        ("15m", 900_000, "15m"),
        ("3d", 259_200_000, "72h"),
        ("3600s", 3_600_000, "1h"),
    ] {
        let p: Period = text.parse().unwrap();
        assert_eq!(p.millis(), ms, "{text}");
        assert_eq!(p.to_string(), shown);
        assert_eq!(shown.parse::<Period>(), Ok(p));
    }
    for bad in [
        "",
        "h",
        "24",
        "24H",
        "-1s",
        "1.5h",
        "0ms",
        "24 h",
        "99999999999999999999d",
        "1y",
        "٣h",
    ] {
        assert!(bad.parse::<Period>().is_err(), "{bad:?}");
    }
    assert_eq!(Period::default(), Period::DEFAULT);
}

fn sq(i: u8) -> Square {
    Square::from_index(i % 64).unwrap()
}

fn any_attempt() -> impl Strategy<Value = Attempt> {
    prop_oneof![
        Just(Attempt::Any),
        (0u8..64, 0u8..64, proptest::option::of(0usize..6)).prop_map(|(f, t, p)| {
            Attempt::Move {
                from: sq(f),
                to: sq(t),
                promotion: p.map(|i| Kind::ALL[i]),
            }
        })
    ]
}

fn any_end() -> impl Strategy<Value = BoardEnd> {
    prop_oneof![
        Just(BoardEnd::Checkmate),
        any::<u8>().prop_map(|pieces| BoardEnd::Stalemate { pieces }),
        Just(BoardEnd::Repetition),
        Just(BoardEnd::BareKings),
        Just(BoardEnd::PlyLimit),
    ]
}

fn any_report() -> impl Strategy<Value = Report> {
    let capture = (0u8..64, any::<bool>(), 0u8..3).prop_map(|(at, ep, by)| Capture {
        at: sq(at),
        en_passant: ep,
        by: [None, Some(Capturer::Pawn), Some(Capturer::Piece)][usize::from(by)],
    });
    let check = prop_oneof![
        Just(CheckKind::Rank),
        Just(CheckKind::File),
        Just(CheckKind::LongDiagonal),
        Just(CheckKind::ShortDiagonal),
        Just(CheckKind::Knight),
    ];
    (
        proptest::option::of(capture),
        proptest::collection::vec(check, 0..3),
        proptest::option::of(any_end()),
    )
        .prop_map(|(capture, mut checks, end)| {
            checks.sort();
            Report {
                capture,
                checks,
                end,
            }
        })
}

fn any_answer() -> impl Strategy<Value = Answer> {
    prop_oneof![
        Just(Answer::Illegal),
        Just(Answer::No),
        Just(Answer::Try),
        Just(Answer::PawnCaptureFirst),
        any_report().prop_map(Answer::Yes),
    ]
}

proptest! {
    #[test]
    fn attempts_read_back_what_they_write(a in any_attempt()) {
        prop_assert_eq!(a.to_string().parse::<Attempt>(), Ok(a));
        let bytes = postcard::to_allocvec(&a).unwrap();
        prop_assert_eq!(postcard::from_bytes::<Attempt>(&bytes), Ok(a));
    }

    #[test]
    fn answers_read_back_what_they_write(a in any_answer()) {
        prop_assert_eq!(a.to_string().parse::<Answer>(), Ok(a.clone()));
        let bytes = postcard::to_allocvec(&a).unwrap();
        prop_assert_eq!(postcard::from_bytes::<Answer>(&bytes), Ok(a));
    }

    #[test]
    fn endings_read_back_what_they_write(e in any_end(), forfeit in any::<Option<bool>>()) {
        let ending = match forfeit {
            None => Ending::Board(e),
            Some(w) => Ending::Forfeit { by: if w { Color::White } else { Color::Black } },
        };
        prop_assert_eq!(ending.to_string().parse::<Ending>(), Ok(ending));
        let bytes = postcard::to_allocvec(&ending).unwrap();
        prop_assert_eq!(postcard::from_bytes::<Ending>(&bytes), Ok(ending));
    }

    #[test]
    fn turns_cross_the_wire(a in any_attempt(), answer in any_answer(), black in any::<bool>()) {
        let turn = Turn {
            mover: if black { Color::Black } else { Color::White },
            number: 7,
            entries: vec![Entry { attempt: a, answer, silence: Some(Silence::Repeated) }],
        };
        let bytes = postcard::to_allocvec(&turn).unwrap();
        prop_assert_eq!(postcard::from_bytes::<Turn>(&bytes), Ok(turn));
    }

    #[test]
    fn any_text_is_read_or_refused_without_panic(s in "\\PC{0,24}") {
        let _ = s.parse::<Attempt>();
        let _ = s.parse::<Answer>();
        let _ = s.parse::<Ending>();
        let _ = s.parse::<Period>();
        let _ = Options::parse([("period", s.as_str())]);
        let _ = Options::parse([("ply-limit", s.as_str())]);
    }

    #[test]
    fn kriegspiel_words_with_noise_never_panic(
        words in proptest::collection::vec(
            prop_oneof![
                Just("yes"), Just("illegal"), Just("capture"), Just("at"), Just("e5"),
                Just("en"), Just("passant"), Just("by"), Just("pawn"), Just("check"),
                Just("on"), Just("long"), Just("diagonal"), Just(","), Just("stalemate"),
                Just("with"), Just("99999"), Just("pieces"), Just("=Q"), Just("any?"),
            ],
            0..12,
        )
    ) {
        let text = words.join(" ");
        let _ = text.parse::<Answer>();
        let _ = text.parse::<Attempt>();
    }

    #[test]
    fn garbage_bytes_decode_or_fail_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let _ = postcard::from_bytes::<Attempt>(&bytes);
        let _ = postcard::from_bytes::<Answer>(&bytes);
        let _ = postcard::from_bytes::<Heard>(&bytes);
        let _ = postcard::from_bytes::<Turn>(&bytes);
        let _ = postcard::from_bytes::<Options>(&bytes);
        let _ = postcard::from_bytes::<Ending>(&bytes);
    }

    #[test]
    fn any_seed_gives_a_setup(bytes in any::<[u8; 32]>()) {
        prop_assert!(Setup::from_seed(&bytes).number() < SETUPS);
    }
}

#[test]
fn attempt_text_takes_the_usual_spellings() {
    let e2e4 = Attempt::go("e2".parse().unwrap(), "e4".parse().unwrap());
    for t in ["e2-e4", "e2e4", "E2-E4", " e2e4 "] {
        assert_eq!(t.parse::<Attempt>(), Ok(e2e4), "{t}");
    }
    let promo = Attempt::Move {
        from: "e7".parse().unwrap(),
        to: "e8".parse().unwrap(),
        promotion: Some(Kind::Queen),
    };
    for t in ["e7-e8=Q", "e7e8q", "e7-e8q", "e7e8=Q"] {
        assert_eq!(t.parse::<Attempt>(), Ok(promo), "{t}");
    }
    assert_eq!("any?".parse::<Attempt>(), Ok(Attempt::Any));
    assert_eq!("Any".parse::<Attempt>(), Ok(Attempt::Any));
    for bad in [
        "", "e2", "e2-e9", "e2-e4=", "e2-e4=X", "i2-e4", "e2--e4", "e2-e4 q", "O-O",
    ] {
        assert!(bad.parse::<Attempt>().is_err(), "{bad:?}");
    }
}

#[test]
fn an_attempt_sends_its_move_as_every_game_does() {
    use sealed_games::chess::wire::WireMove;
    let e2 = "e2".parse().unwrap();
    let e4 = "e4".parse().unwrap();
    let attempt = postcard::to_allocvec(&Attempt::go(e2, e4)).unwrap();
    let wire = postcard::to_allocvec(&WireMove::new(e2, e4, None)).unwrap();
    // Variant 0 (a move), then the one wire form of a chess move (spec/GAMES.md §5).
    assert_eq!(attempt, [0x00, 0x0c, 0x1c, 0x00]);
    assert_eq!(attempt[1..], wire[..]);
    // A square index of 64 or a kind of 6 does not decode as an attempt.
    for bad in [[0x00, 0x40, 0x1c, 0x00], [0x00, 0x0c, 0x1c, 0x01]] {
        let mut bytes = bad.to_vec();
        if bad[3] == 0x01 {
            bytes.push(0x06);
        }
        assert!(
            postcard::from_bytes::<Attempt>(&bytes).is_err(),
            "{bytes:?}"
        );
    }
}
