//! The table tests' typing: every act written in the game's notation and read back, and
//! bad input refused with a reason.

use sealed_conformance::view_json::ViewJson as _;
use sealed_games::cardmate::{self, Cardmate};
use sealed_games::chex::{self, engine as chex_engine};
use sealed_games::stallmate::acts::{self as stallmate_acts, Private};
use sealed_games::table::{Asked, Document, Table};
use sealed_protocol::rules::Rules;
use sealed_protocol::session::Command;
use sealed_protocol::wire;

use crate::net::*;
use sealed_conformance::peer::Read as _;

/// What seat `t` may play now is out of turn for the others (for a referee too: he
/// acts in public, but the move is the mover's).
pub(crate) fn refused_by_the_others(tables: &[Checked], t: &dyn Table, cmd: &Command) {
    if *cmd == Command::Accept {
        return;
    }
    for other in tables
        .iter()
        .filter(|o| o.session().seat() != t.session().seat())
    {
        if other.session().phase().name() == "play"
            && other.turn().to_act == Some(t.session().seat())
        {
            for text in written(t, cmd) {
                let err = refused(other.as_ref(), &text);
                assert!(err.contains("not your turn"), "{text}: {err}");
            }
        }
    }
}

/// Writes the bot's command in the game's notation, checks every way of writing it
/// parses back to it, and takes the first.
pub(crate) fn typed(t: &dyn Table, cmd: Command) -> Command {
    let texts = if cmd == Command::Accept {
        vec!["accept".to_owned(), "  ACCEPT ".to_owned()]
    } else {
        written(t, &cmd)
    };
    for text in &texts {
        assert_eq!(
            t.command(Asked::Words(text)).as_ref(),
            Ok(&cmd),
            "{text:?} in\n{}",
            t.text()
        );
    }
    t.command(Asked::Words(&texts[0])).expect("parsed")
}

/// Every way the game's own writers put the command `cmd` of table `t`.
pub(crate) fn written(t: &dyn Table, cmd: &Command) -> Vec<String> {
    if t.session().terms().variant() == STALLMATE {
        // An attempt goes to the period's private log, written as `Attempt` shows it
        // (`e2-e4`, `e7-e8=Q`, `e1-h1`, `any?`), or in the reader's looser forms.
        let Command::PrivateAct { act, .. } = cmd else {
            panic!("not an attempt: {cmd:?}");
        };
        let Ok(Private::Attempt(attempt)) = stallmate_acts::decode::<Private>(act) else {
            panic!("not an attempt: {cmd:?}");
        };
        let text = attempt.to_string();
        let squeezed = text.replace(['-', '='], "").replace('?', "");
        return vec![text.clone(), text.to_uppercase(), format!("  {squeezed} ")];
    }
    let Command::Act {
        act,
        open_slots,
        commit_values,
        ..
    } = cmd
    else {
        panic!("not an act: {cmd:?}");
    };
    let score = t.document(Document::Score).expect("started");
    match t.session().terms().variant() {
        "tempete" => {
            use sealed_games::tempete::act::{Act, CardRef};
            let hand = t.show_json()["hand"]["cards"].clone();
            let number = |r: CardRef| match r {
                CardRef::Slot(slot) => hand.as_array()?.iter().find(|c| c["slot"] == slot)?["card"]
                    .as_u64()
                    .map(|n| n as u32),
                CardRef::Taken(n) => Some(n),
                CardRef::Again => None,
            };
            let trap = commit_values
                .first()
                .and_then(|(_, _, v)| sealed_games::chess::Square::from_index(v[0]));
            let act: Act = wire::decode(act, 256).unwrap();
            let text = sealed_games::tempete::command::write(&act, &number, trap)
                .unwrap_or_else(|| panic!("{act:?} cannot be written"));
            vec![text.clone(), format!("  {text} ")]
        }
        "duel" => {
            let slot = open_slots[0].1;
            let j = t.show_json();
            let card = j["hand"]["cards"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["slot"] == slot)
                .expect("the slot is in hand")["card"]
                .clone();
            vec![
                format!("play {card}"),
                card.to_string(),
                format!("PLAY  {card} "),
            ]
        }
        "cardmate" => {
            let opts = Cardmate::from_terms(t.session().terms()).unwrap().options;
            let (pos, _) = cardmate::replay_score(&score).unwrap();
            let act: cardmate::Act = wire::decode(act, 16).unwrap();
            let m = pos
                .legal_moves(&opts)
                .into_iter()
                .find(|m| cardmate::Act::of(m) == act)
                .expect("a legal move");
            let mut next = pos.clone();
            let mark = next.play_unchecked(&m, &opts);
            let text = cardmate::write_move(&m, mark);
            // As a player reading Rearhand's lower-case cards off the board may type it.
            vec![text.clone(), text.to_lowercase()]
        }
        _ => {
            // The score replays the whole plies: a drawn piece is not on it yet, so
            // its frame is the one the placement is written in.
            let (pos, _) = chex_engine::replay_score(&score).unwrap();
            let frame = chex_engine::Frame::of(&pos.board);
            match wire::decode::<chex::Act>(act, 32).unwrap() {
                chex::Act::Draw => vec!["draw".into(), " Draw ".into()],
                chex::Act::Move { from, to } => {
                    let m = chex_engine::Move::new(
                        chex_engine::Square::new(from.0, from.1),
                        chex_engine::Square::new(to.0, to.1),
                    );
                    let name = |s| frame.name(s).unwrap();
                    vec![
                        chex_engine::write_move(&pos, &m),
                        format!("{}-{}", name(m.from), name(m.to)),
                    ]
                }
                chex::Act::Place { kind, x, y } => {
                    let at = chex_engine::Square::new(x, y);
                    let kind = chex_engine::Kind::from_index(kind.into()).unwrap();
                    let name = frame.name(at).unwrap();
                    vec![
                        format!("place {name}"),
                        name.to_uppercase(),
                        chex_engine::write_place(&pos, kind, at),
                    ]
                }
            }
        }
    }
}

/// Parses `text` expecting a refusal; checks nothing changed and returns the reason.
pub(crate) fn refused(t: &dyn Table, text: &str) -> String {
    let (ply, envelopes, counts) = (
        t.turn().ply,
        t.session().envelopes().all(),
        t.session().envelopes().counts(),
    );
    let err = match t.command(Asked::Words(text)) {
        Ok(cmd) => panic!("{text:?} was taken as {cmd:?}\n{}", t.text()),
        Err(e) => e.to_string(),
    };
    assert!(!err.is_empty());
    assert_eq!(t.turn().ply, ply);
    assert_eq!(t.session().envelopes().all(), envelopes);
    assert_eq!(t.session().envelopes().counts(), counts);
    err
}

/// Garbage, illegal moves and words out of place are refused, each with a reason.
pub(crate) fn refuses_bad_input(t: &dyn Table) {
    for text in [
        "", "   ", "xyzzy", "@@", "play", "9Z:q", "a1-", "-", "=A", "place", "♞",
    ] {
        refused(t, text);
    }
    match t.session().phase().name() {
        "terms" => {
            for text in [
                "resign",
                "offer draw",
                "accept draw",
                "4Ci3",
                "play 1",
                "Nf3",
            ] {
                refused(t, text);
            }
        }
        "play" if !t.session().terms().is_player(t.session().seat()) => {
            // A referee neither resigns nor draws; he is offered none of it.
            for text in ["resign", "offer draw", "accept draw"] {
                assert!(refused(t, text).contains("only players"), "{text}");
            }
            assert!(!t.show_json()["draw_offered"].as_bool().unwrap());
        }
        "play" => {
            assert!(refused(t, "accept").contains("no proposal"));
            assert!(refused(t, "decline").contains("no proposal"));
            if !t.show_json()["draw_offered"].as_bool().unwrap() {
                assert!(refused(t, "accept draw").contains("no draw offer"));
            }
            assert_eq!(t.command(Asked::Words("resign")), Ok(Command::Resign));
            assert_eq!(
                t.command(Asked::Words("offer   draw")),
                Ok(Command::OfferDraw)
            );
            assert_eq!(
                t.command(Asked::Words("Draw Offer")),
                Ok(Command::OfferDraw)
            );
        }
        _ => {}
    }
    if t.session().terms().variant() == STALLMATE {
        refuses_bad_attempts(t);
    } else if t.session().phase().name() == "play" && t.turn().my_turn {
        for text in illegal_moves(t) {
            refused(t, &text);
        }
    }
}

/// Stallmate has no illegal moves to refuse: trying one is what Kriegspiel is played
/// by, and the referee answers it. Only malformed text is refused, and any attempt
/// outside this seat's own open period.
pub(crate) fn refuses_bad_attempts(t: &dyn Table) {
    for text in [
        "e2-e9", "i2-i4", "e2--e4", "e2-e4=", "e7-e8=X", "e2-e4-e6", "any??", "e2",
    ] {
        let err = refused(t, text);
        if t.session().phase().name() == "play" && t.turn().my_turn {
            assert!(err.contains("not an attempt"), "{text}: {err}");
        }
    }
    if t.session().phase().name() != "play" {
        return;
    }
    for text in ["e2-e4", "any?", "b1-c3", "e1-h1"] {
        if t.turn().my_turn {
            let cmd = t
                .command(Asked::Words(text))
                .expect("any well-formed attempt may be tried");
            assert!(matches!(cmd, Command::PrivateAct { .. }), "{cmd:?}");
            continue;
        }
        let err = refused(t, text);
        if t.turn().to_act == Some(t.session().seat()) {
            // The mover's attempt waits for its answer, or his move is made.
            assert!(err.starts_with("not yet"), "{text}: {err}");
        } else {
            assert!(err.contains("not your turn"), "{text}: {err}");
        }
    }
}

/// Well-formed acts the rules refuse in the current position.
pub(crate) fn illegal_moves(t: &dyn Table) -> Vec<String> {
    let score = t.document(Document::Score).expect("started");
    match t.session().terms().variant() {
        "duel" => {
            let j = t.show_json();
            let hand: Vec<u64> = j["hand"]["cards"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["card"].as_u64().unwrap())
                .collect();
            let mut v: Vec<String> = (1..=6u64)
                .filter(|c| !hand.contains(c))
                .map(|c| format!("play {c}"))
                .collect();
            v.extend(["play 0".into(), "99".into(), "play -1".into()]);
            for text in &v {
                let err = t.command(Asked::Words(text)).unwrap_err().to_string();
                assert!(err.contains("hand") || err.contains("not a card"), "{err}");
            }
            v
        }
        "cardmate" => {
            let opts = Cardmate::from_terms(t.session().terms()).unwrap().options;
            let (pos, _) = cardmate::replay_score(&score).unwrap();
            let legal = pos.legal_moves(&opts);
            let mut v = vec![];
            for (_, piece) in pos.board.pieces().filter(|(_, p)| p.side == pos.to_move) {
                if let Some(to) = cardmate::Square::all()
                    .find(|sq| !legal.iter().any(|m| m.card == piece.card && m.to == *sq))
                {
                    v.push(format!("{}{to}", piece.card));
                }
                if v.len() >= 3 {
                    break;
                }
            }
            // A card of the opponent.
            if let Some((sq, p)) = pos.board.pieces().find(|(_, p)| p.side != pos.to_move) {
                v.push(format!("{}{sq}", p.card));
            }
            v
        }
        "tempete" => {
            let (_, state, _) = sealed_games::tempete::score::replay_state(&score).unwrap();
            let pos = state.board.position();
            // A piece of the side to move sent to its own king's square, a move of the
            // opponent's piece, a card not in hand, a square that is not one.
            let own = pos
                .color_squares(pos.turn())
                .into_iter()
                .find(|sq| {
                    pos.piece_at(*sq)
                        .is_some_and(|p| p.kind != sealed_games::chess::Kind::King)
                })
                .unwrap();
            let king = pos.kings(pos.turn()).into_iter().next().unwrap();
            let theirs = pos.color_squares(!pos.turn()).into_iter().next().unwrap();
            let hand: Vec<u64> = t.show_json()["hand"]["cards"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["card"].as_u64().unwrap())
                .collect();
            let missing = (1..=70).find(|n| !hand.contains(n)).unwrap();
            vec![
                format!("{own}{king}"),
                format!("{theirs}{own}"),
                format!("card {missing} then e2e4"),
                "card 999".into(),
                "intercept x".into(),
                "e9e4".into(),
            ]
        }
        _ => {
            let (pos, _) = chex_engine::replay_score(&score).unwrap();
            let frame = chex_engine::Frame::of(&pos.board);
            let far = format!("{}{}", chex_engine::file_name(frame.files + 5), 1);
            let json = t.show_json();
            if let Some(drawn) = json["hand"]["drawn"].as_str() {
                let other = ["King", "Queen", "Rook", "Bishop", "Knight", "Pawn"]
                    .into_iter()
                    .position(|k| k != drawn)
                    .unwrap();
                let letter = chex_engine::Kind::from_index(other).unwrap().letter();
                let near = frame.name(pos.placement_squares()[0]).unwrap();
                let err = t
                    .command(Asked::Words(&format!("{letter}@{near}")))
                    .unwrap_err()
                    .to_string();
                assert!(err.contains("you drew"), "{err}");
                return vec![
                    format!("place {far}"),
                    far,
                    format!("{letter}@{near}"),
                    "draw".into(),
                    "Nf3".into(),
                ];
            }
            // Each own piece to a square in the frame it cannot reach.
            let legal = pos.legal_moves();
            let mut v = vec![format!("a1-{far}"), "place a1".into()];
            for (from, _) in pos.board.iter().filter(|(_, p)| p.color == pos.to_move) {
                let to = (1..=frame.files)
                    .flat_map(|f| (1..=frame.ranks).map(move |r| (f, r)))
                    .filter_map(|(f, r)| {
                        frame.to_absolute(chex_engine::DisplaySquare { file: f, rank: r })
                    })
                    .find(|sq| *sq != from && !legal.contains(&chex_engine::Move::new(from, *sq)));
                if let Some(to) = to {
                    v.push(format!(
                        "{}-{}",
                        frame.name(from).unwrap(),
                        frame.name(to).unwrap()
                    ));
                }
            }
            v
        }
    }
}
