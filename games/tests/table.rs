//! The game-agnostic table, for every variant: two tables wired directly play whole
//! games by bot and by typed notation; bad input is refused with a reason and changes
//! nothing; a table restored from its secrets and envelopes finishes the game exactly
//! as the original would; sync sends exactly what the other side lacks; every view
//! works in every phase; and the score each table writes replays to its final board.

use std::collections::BTreeSet;

use sealed_games::cardmate::{self, Cardmate};
use sealed_games::chex::{self, engine as chex_engine};
use sealed_games::table::{self, Table, TableError};
use sealed_games::variant::{Variant, check_transcript};
use sealed_protocol::ids::{ChainId, Name, Seat};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::outcome::SeatResult;
use sealed_protocol::proposal::{Proposal, Role, SeatSpec, Terms, VERSION};
use sealed_protocol::rules::Rules;
use sealed_protocol::session::{Action, Command, SessionError};
use sealed_protocol::verdict::Status;
use sealed_protocol::wire;

fn key(seat: usize) -> SecretKey {
    SecretKey::from_seed(&[seat as u8 + 1; 32])
}

/// Options that make every bot game end: Duel ends after its cards, the others by a
/// ply limit. Cardmate's are given out of order on purpose: `propose` sorts them.
fn options(variant: &str) -> Vec<(String, String)> {
    let pairs: &[(&str, &str)] = match variant {
        "duel" => &[("hand", "2"), ("cards", "6")],
        "cardmate" => &[("setup", "random"), ("ply-limit", "60")],
        "chex" => &[("ply-limit", "40")],
        "tempete" => &[("ply-limit", "40")],
        other => panic!("no options for {other}"),
    };
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn terms(variant: &str, nonce: u8) -> Terms {
    let signed = table::propose(
        variant,
        &options(variant),
        &key(0),
        table::Invitees {
            opponent: key(1).public().to_bytes(),
            ..Default::default()
        },
        1_000,
        [nonce; 32],
    )
    .expect("a valid proposal");
    Terms::from_signed(signed).expect("valid terms")
}

fn entropy(seat: usize, nonce: u8) -> [u8; 32] {
    let mut e = [nonce; 32];
    e[0] = 0xE0 + seat as u8;
    e
}

/// A deterministic pick for a step and a seat (splitmix64).
fn pick(step: u64, seat: usize) -> u64 {
    let mut z = step
        .wrapping_mul(2)
        .wrapping_add(seat as u64)
        .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// How a seat's decision reaches its table.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The bot's command as it is.
    Bot,
    /// The bot's command written in the game's notation and parsed back, with bad
    /// input tried first at every step.
    Typed,
}

/// Two tables delivering to each other at once.
struct Net {
    variant: &'static str,
    terms: Terms,
    tables: Vec<Box<dyn Table>>,
    now: u64,
    step: u64,
    /// Seats whose incoming envelopes are held back.
    deaf: [bool; 2],
    held: Vec<(usize, Vec<u8>)>,
    phases: BTreeSet<&'static str>,
}

impl Net {
    fn new(variant: &'static str, nonce: u8) -> Net {
        Net::with_terms(variant, terms(variant, nonce), nonce)
    }

    fn with_terms(variant: &'static str, terms: Terms, nonce: u8) -> Net {
        let tables = (0..2)
            .map(|i| table::open(terms.clone(), key(i), entropy(i, nonce), 0).expect("open"))
            .collect();
        let mut net = Net {
            variant,
            terms,
            tables,
            now: 0,
            step: 0,
            deaf: [false; 2],
            held: vec![],
            phases: BTreeSet::new(),
        };
        net.pump();
        net
    }

    /// Delivers every envelope sent until nothing more is sent.
    fn pump(&mut self) {
        loop {
            let mut out = vec![];
            for i in 0..2 {
                while let Some(a) = self.tables[i].poll_action() {
                    if let Action::Send { env, to } = a {
                        assert_eq!(to, vec![Seat(1 - i as u8)], "a public envelope");
                        out.push((1 - i, env.bytes.clone()));
                    }
                }
            }
            if out.is_empty() {
                return;
            }
            for (to, bytes) in out {
                if self.deaf[to] {
                    self.held.push((to, bytes));
                } else {
                    self.tables[to]
                        .handle_envelope(&bytes, self.now)
                        .expect("an honest envelope is taken");
                }
            }
        }
    }

    /// One round: each seat does what its bot would, then everything is delivered.
    /// Returns whether anything moved.
    fn step(&mut self, mode: Mode) -> bool {
        self.now += 1;
        self.step += 1;
        let mut moved = false;
        for i in 0..2 {
            check_views(self.tables[i].as_ref(), self.variant);
            self.phases.insert(self.tables[i].phase());
            if mode == Mode::Typed {
                refuses_bad_input(self.tables[i].as_ref());
            }
            let p = pick(self.step, i);
            let Some(cmd) = self.tables[i].bot_action(p) else {
                continue;
            };
            assert!(self.tables[i].my_turn(), "the bot acts only on its turn");
            let cmd = match mode {
                Mode::Bot => cmd,
                Mode::Typed => self.typed(i, cmd),
            };
            self.tables[i]
                .handle_command(cmd, self.now)
                .expect("an honest decision is taken");
            moved = true;
            self.pump();
        }
        moved
    }

    /// Writes the bot's command in the game's notation, checks every way of writing it
    /// parses back to it, and that bad input is refused first.
    fn typed(&self, i: usize, cmd: Command) -> Command {
        let t = self.tables[i].as_ref();
        if let Some(other) = self.tables.get(1 - i)
            && other.phase() == "play"
            && other.to_act() == Some(t.seat())
            && cmd != Command::Accept
        {
            // What this seat may play now is out of turn for the other.
            for text in written(t, &cmd) {
                let err = refused(other.as_ref(), &text);
                assert!(err.contains("not your turn"), "{text}: {err}");
            }
        }
        let texts = if cmd == Command::Accept {
            vec!["accept".to_owned(), "  ACCEPT ".to_owned()]
        } else {
            written(t, &cmd)
        };
        for text in &texts {
            assert_eq!(
                t.parse_action(text).as_ref(),
                Ok(&cmd),
                "{text:?} in\n{}",
                t.show_text()
            );
        }
        t.parse_action(&texts[0]).expect("parsed")
    }

    fn run(&mut self, mode: Mode) {
        for _ in 0..20_000 {
            if !self.step(mode) {
                break;
            }
        }
        for t in &self.tables {
            assert!(t.is_done(), "not done:\n{}", t.show_text());
            check_views(t.as_ref(), self.variant);
        }
    }

    fn run_until(&mut self, mode: Mode, stop: impl Fn(&Net) -> bool) {
        for _ in 0..20_000 {
            if stop(self) {
                return;
            }
            assert!(self.step(mode), "settled before the condition held");
        }
        panic!("the condition never held");
    }
}

/// Every view works, agrees with the accessors and keeps its documented shape.
fn check_views(t: &dyn Table, variant: &str) {
    let text = t.show_text();
    assert!(text.starts_with(variant), "{text}");
    assert!(text.contains(&t.waiting_for()), "{text}");
    let j = t.show_json();
    assert_eq!(j["variant"], variant);
    assert_eq!(j["game"], t.game().0.to_hex());
    assert_eq!(j["seat"], t.seat().0);
    assert_eq!(j["phase"], t.phase());
    assert_eq!(j["ply"], t.ply());
    assert_eq!(j["to_act"], serde_json::json!(t.to_act().map(|s| s.0)));
    assert_eq!(j["my_turn"], t.my_turn());
    assert_eq!(j["waiting_for"], t.waiting_for());
    assert!(j["actions"].is_array());
    assert!(j["draw_offered"].is_boolean());
    assert!(j["board"].is_string());
    assert!(j["verdict"]["status"].is_string(), "{j}");
    match variant {
        "duel" => {
            assert!(j["side"].is_null());
            assert!(j["hand"]["cards"].is_array());
            assert_eq!(t.svg(), None);
        }
        "cardmate" => {
            assert_eq!(j["side"], ["Forehand", "Rearhand"][t.seat().index()]);
            assert!(j["hand"].is_null());
        }
        _ => {
            assert_eq!(j["side"], ["White", "Black"][t.seat().index()]);
        }
    }
    if variant != "duel" && t.score().is_some() {
        assert!(t.svg().expect("a board once started").starts_with("<svg"));
        if variant == "chex" {
            assert!(j["hand"]["stacks"]["white"]["text"].is_string(), "{j}");
        }
    }
    // A bot acts exactly when the seat must decide.
    assert_eq!(t.my_turn(), t.bot_action(3).is_some(), "{text}");
    if t.my_turn() {
        assert!(t.waiting_for().starts_with("you:"), "{}", t.waiting_for());
    } else if t.phase() == "play"
        && let Some(other) = t.to_act().filter(|s| *s != t.seat())
    {
        let w = t.waiting_for();
        assert!(w.contains(&format!("{other} is to act")), "{w}");
    }
    if let Some(score) = t.score() {
        Variant::parse(variant)
            .unwrap()
            .replay(&score)
            .unwrap_or_else(|e| panic!("{e}\n{score}"));
    }
}

/// Every way the game's own writers put the command `cmd` of table `t`.
fn written(t: &dyn Table, cmd: &Command) -> Vec<String> {
    let Command::Act {
        act,
        open_slots,
        commit_values,
        ..
    } = cmd
    else {
        panic!("not an act: {cmd:?}");
    };
    let score = t.score().expect("started");
    match t.variant() {
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
            let opts = Cardmate::from_terms(t.terms()).unwrap().options;
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
fn refused(t: &dyn Table, text: &str) -> String {
    let (ply, envelopes, counts) = (t.ply(), t.envelopes(), t.chain_counts());
    let err = match t.parse_action(text) {
        Ok(cmd) => panic!("{text:?} was taken as {cmd:?}\n{}", t.show_text()),
        Err(e) => e,
    };
    assert!(!err.is_empty());
    assert_eq!(t.ply(), ply);
    assert_eq!(t.envelopes(), envelopes);
    assert_eq!(t.chain_counts(), counts);
    err
}

/// Garbage, illegal moves and words out of place are refused, each with a reason.
fn refuses_bad_input(t: &dyn Table) {
    for text in [
        "", "   ", "xyzzy", "@@", "play", "9Z:q", "a1-", "-", "=A", "place", "♞",
    ] {
        refused(t, text);
    }
    match t.phase() {
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
        "play" => {
            assert!(refused(t, "accept").contains("no proposal"));
            assert!(refused(t, "decline").contains("no proposal"));
            if !t.show_json()["draw_offered"].as_bool().unwrap() {
                assert!(refused(t, "accept draw").contains("no draw offer"));
            }
            assert_eq!(t.parse_action("resign"), Ok(Command::Resign));
            assert_eq!(t.parse_action("offer   draw"), Ok(Command::OfferDraw));
            assert_eq!(t.parse_action("Draw Offer"), Ok(Command::OfferDraw));
        }
        _ => {}
    }
    if t.phase() == "play" && t.my_turn() {
        for text in illegal_moves(t) {
            refused(t, &text);
        }
    }
}

/// Well-formed acts the rules refuse in the current position.
fn illegal_moves(t: &dyn Table) -> Vec<String> {
    let score = t.score().expect("started");
    match t.variant() {
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
                let err = t.parse_action(text).unwrap_err();
                assert!(err.contains("hand") || err.contains("not a card"), "{err}");
            }
            v
        }
        "cardmate" => {
            let opts = Cardmate::from_terms(t.terms()).unwrap().options;
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
                let err = t.parse_action(&format!("{letter}@{near}")).unwrap_err();
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

/// Both tables done, the same transcript, verified offline, and the score replays to
/// the board both show.
fn check_finished(net: &Net) -> Vec<u8> {
    check_ended(net, true)
}

/// [`check_finished`] for a game that may have ended off the board (a resignation,
/// an agreed draw), whose score has no result.
fn check_ended(net: &Net, played_out: bool) -> Vec<u8> {
    let [a, b] = [net.tables[0].as_ref(), net.tables[1].as_ref()];
    assert!(a.is_done() && b.is_done());
    let file = a.transcript();
    assert_eq!(file, b.transcript(), "transcripts differ");
    let checked = check_transcript(&file).expect("readable");
    assert_eq!(checked.exit_code(), 0, "{:#?}", checked.verdict);
    assert_eq!(checked.verdict, a.verdict());
    assert_eq!(a.verdict().status, Status::Verified);
    for t in [a, b] {
        assert_eq!(t.waiting_for(), "nothing: the game is complete");
        assert!(t.bot_action(0).is_none());
        assert!(refused(t, "resign").contains("over"));
    }
    let score = a.score().expect("a score");
    assert_eq!(Some(&score), b.score().as_ref());
    let replayed = Variant::parse(net.variant)
        .unwrap()
        .replay(&score)
        .unwrap_or_else(|e| panic!("{e}\n{score}"));
    let board = a.show_json()["board"].as_str().unwrap().to_owned();
    let verdict = a.verdict();
    match net.variant {
        "duel" => {
            assert_eq!(replayed.plies, a.ply());
            if played_out {
                assert_eq!(replayed.result, verdict.board.map(|o| o.to_string()));
            } else {
                assert_eq!(replayed.result, None);
            }
        }
        "cardmate" => {
            let (pos, plies) = cardmate::replay_score(&score).unwrap();
            assert_eq!(plies, a.ply());
            assert_eq!(pos.end.is_some(), played_out);
            assert_eq!(cardmate::text(&pos), board);
        }
        "tempete" => {
            let (_, state, plies) = sealed_games::tempete::score::replay_state(&score).unwrap();
            assert_eq!(plies, a.ply());
            assert_eq!(state.end.is_some(), played_out);
            assert!(board.starts_with(&sealed_games::tempete::render::text(&state, None)[..40]));
        }
        _ => {
            let (pos, plies) = chex_engine::replay_score(&score).unwrap();
            assert!(plies.len() <= a.ply());
            assert_eq!(pos.end.is_some(), played_out);
            if played_out {
                assert_eq!(chex_engine::text(&pos), board);
            }
        }
    }
    file
}

#[test]
fn variants_are_the_four_games() {
    assert_eq!(table::variants(), ["duel", "cardmate", "chex", "tempete"]);
    for v in table::variants() {
        assert!(Variant::parse(v).is_some());
    }
}

#[test]
fn bots_play_every_variant_to_a_verified_end() {
    for (n, &variant) in table::variants().iter().enumerate() {
        let mut net = Net::new(variant, 40 + n as u8);
        assert_eq!(net.tables[0].phase(), "commit");
        assert_eq!(net.tables[1].phase(), "terms");
        net.run(Mode::Bot);
        check_finished(&net);
        for phase in ["terms", "commit", "play", "done"] {
            assert!(net.phases.contains(phase), "{variant}: {:?}", net.phases);
        }
    }
}

#[test]
fn games_typed_in_notation_play_to_the_end_and_bad_input_is_refused() {
    for (n, &variant) in table::variants().iter().enumerate() {
        for nonce in [1u8, 2] {
            let mut net = Net::new(variant, 10 * nonce + n as u8);
            net.run(Mode::Typed);
            check_finished(&net);
        }
    }
}

#[test]
fn a_restored_table_finishes_the_game_as_the_original_would() {
    for (n, &variant) in table::variants().iter().enumerate() {
        let nonce = 60 + n as u8;
        let mut straight = Net::new(variant, nonce);
        straight.run(Mode::Bot);
        let expected = check_finished(&straight);

        let mut net = Net::new(variant, nonce);
        // Seat 1 restarts before it has accepted: its entropy is already a secret.
        restart(&mut net, 1);
        assert_eq!(net.tables[1].phase(), "terms");
        net.run_until(Mode::Bot, |n| {
            n.tables[0].ply() >= 5 || n.tables[0].is_done()
        });
        restart(&mut net, 0);
        restart(&mut net, 1);
        net.run_until(Mode::Bot, |n| {
            n.tables[1].ply() >= 9 || n.tables[1].is_done()
        });
        restart(&mut net, 1);
        net.run(Mode::Bot);
        assert_eq!(check_finished(&net), expected, "{variant}");

        // A finished game restores as finished.
        restart(&mut net, 0);
        assert!(net.tables[0].is_done());
        assert_eq!(net.tables[0].transcript(), expected);
    }
}

/// Replaces a table by one restored from its secrets and its envelopes, fed in reverse
/// order; the restored one must hold and show exactly what the old one did.
fn restart(net: &mut Net, seat: usize) {
    let old = &net.tables[seat];
    let secrets = old.secrets().expect("secrets from the start");
    let mut envelopes = old.envelopes();
    envelopes.reverse();
    let restored = table::restore(net.terms.clone(), key(seat), secrets, &envelopes, net.now)
        .expect("restore");
    assert_eq!(restored.chain_counts(), old.chain_counts());
    assert_eq!(restored.transcript(), old.transcript());
    assert_eq!(restored.phase(), old.phase());
    assert_eq!(restored.show_json(), old.show_json());
    assert_eq!(restored.score(), old.score());
    net.tables[seat] = restored;
    net.pump();
}

#[test]
fn envelopes_after_sends_exactly_what_the_other_side_lacks() {
    for (n, &variant) in table::variants().iter().enumerate() {
        let mut net = Net::new(variant, 80 + n as u8);
        // Nothing counted: every chain from its start.
        let all = net.tables[0].envelopes();
        assert_eq!(net.tables[0].envelopes_after(&[], Seat(1)), all);
        net.run_until(Mode::Bot, |n| {
            n.tables[0].ply() >= 5 && n.tables[0].my_turn()
        });
        assert!(in_sync(&net));

        // Seat 1 hears nothing while seat 0 goes on as far as it can alone.
        net.deaf[1] = true;
        while net.step(Mode::Bot) {}
        let (a, b) = (net.tables[0].as_ref(), net.tables[1].as_ref());
        let theirs: BTreeSet<Vec<u8>> = b.envelopes().into_iter().collect();
        let lacking: Vec<Vec<u8>> = a
            .envelopes()
            .into_iter()
            .filter(|e| !theirs.contains(e))
            .collect();
        assert!(!lacking.is_empty());
        let got = a.envelopes_after(&b.chain_counts(), b.seat());
        assert_eq!(got, lacking);
        let held: BTreeSet<Vec<u8>> = net.held.iter().map(|(_, e)| e.clone()).collect();
        assert_eq!(got.iter().cloned().collect::<BTreeSet<_>>(), held);
        // The other way there is nothing to send.
        assert!(b.envelopes_after(&a.chain_counts(), a.seat()).is_empty());

        // Counts that undersell a chain get that chain's tail again.
        let mut less = b.chain_counts();
        less[0].1 -= 2;
        let more = a.envelopes_after(&less, b.seat());
        assert_eq!(more.len(), got.len() + 2);

        // Delivering exactly that catches seat 1 up; the game goes on to its end.
        net.deaf[1] = false;
        net.held.clear();
        for e in got {
            net.tables[1].handle_envelope(&e, net.now).expect("taken");
        }
        net.pump();
        assert!(in_sync(&net));
        net.run(Mode::Bot);
        check_finished(&net);
        assert!(in_sync(&net));
    }
}

fn in_sync(net: &Net) -> bool {
    let (a, b) = (net.tables[0].as_ref(), net.tables[1].as_ref());
    a.chain_counts() == b.chain_counts()
        && a.envelopes_after(&b.chain_counts(), b.seat()).is_empty()
        && b.envelopes_after(&a.chain_counts(), a.seat()).is_empty()
}

#[test]
fn resignation_draw_agreement_and_decline_by_the_generic_words() {
    for (n, &variant) in table::variants().iter().enumerate() {
        // Resignation.
        let mut net = Net::new(variant, 100 + n as u8);
        net.run_until(Mode::Bot, |n| n.tables[0].ply() >= 3);
        let cmd = net.tables[1].parse_action("Resign").unwrap();
        net.tables[1].handle_command(cmd, net.now).unwrap();
        net.pump();
        net.run(Mode::Bot);
        check_ended(&net, false);
        let outcome = net.tables[0].verdict().outcome.unwrap();
        assert_eq!(outcome.results, [SeatResult::Win, SeatResult::Loss]);

        // A draw offered and accepted.
        let mut net = Net::new(variant, 110 + n as u8);
        net.run_until(Mode::Bot, |n| n.tables[0].ply() >= 2);
        let cmd = net.tables[0].parse_action("offer draw").unwrap();
        net.tables[0].handle_command(cmd, net.now).unwrap();
        net.pump();
        let b = net.tables[1].as_ref();
        assert_eq!(b.show_json()["draw_offered"], true);
        assert!(b.show_text().contains("accept draw"));
        assert!(
            b.waiting_for().contains("draw offer"),
            "{}",
            b.waiting_for()
        );
        assert!(
            refused(net.tables[0].as_ref(), "accept draw").contains("no draw offer"),
            "the offer stands for the other side only"
        );
        let cmd = b.parse_action("draw  accept").unwrap();
        assert_eq!(cmd, Command::AcceptDraw);
        net.tables[1].handle_command(cmd, net.now).unwrap();
        net.pump();
        net.run(Mode::Bot);
        check_ended(&net, false);
        let outcome = net.tables[0].verdict().outcome.unwrap();
        assert_eq!(outcome.results, [SeatResult::Draw, SeatResult::Draw]);

        // A declined proposal.
        let mut net = Net::new(variant, 120 + n as u8);
        assert!(net.tables[1].my_turn());
        assert!(net.tables[1].waiting_for().contains("accept or decline"));
        let cmd = net.tables[1].parse_action("DECLINE").unwrap();
        assert_eq!(cmd, Command::Decline);
        net.tables[1].handle_command(cmd, net.now).unwrap();
        net.pump();
        net.run(Mode::Bot);
        for t in &net.tables {
            assert!(t.is_done());
            assert!(t.verdict().declined);
            assert_eq!(t.waiting_for(), "nothing: the proposal was declined");
            assert_eq!(t.svg(), None);
            assert_eq!(t.score(), None);
            check_views(t.as_ref(), variant);
        }
        let file = net.tables[0].transcript();
        assert_eq!(check_transcript(&file).unwrap().exit_code(), 0);
    }
}

#[test]
fn chex_draw_is_the_game_act_and_draw_offer_the_generic_word() {
    let mut net = Net::new("chex", 130);
    net.run_until(Mode::Bot, |n| {
        n.tables[0].my_turn() && n.tables[0].show_json()["hand"]["drawn"].is_null()
    });
    let t = net.tables[0].as_ref();
    assert_eq!(
        t.parse_action("draw"),
        Ok(Command::act(chex::Act::Draw.bytes()))
    );
    assert_eq!(t.parse_action("offer draw"), Ok(Command::OfferDraw));
    assert!(refused(t, "place b2").contains("nothing is drawn"));

    // After the declaration, the placement waits for seat 1's value: not yet a turn.
    let cmd = t.parse_action("draw").unwrap();
    net.deaf[1] = true;
    net.tables[0].handle_command(cmd, net.now).unwrap();
    net.pump();
    let t = net.tables[0].as_ref();
    assert_eq!(t.to_act(), Some(Seat(0)));
    assert!(!t.my_turn());
    assert!(t.bot_action(0).is_none());
    assert!(refused(t, "place b2").starts_with("not yet"));
    assert!(
        t.waiting_for().contains("seat 1 owes the value"),
        "{}",
        t.waiting_for()
    );

    // Once it arrives, the drawn piece is shown and must be placed.
    net.deaf[1] = false;
    for (to, e) in std::mem::take(&mut net.held) {
        net.tables[to].handle_envelope(&e, net.now).unwrap();
    }
    net.pump();
    let t = net.tables[0].as_ref();
    assert!(t.my_turn());
    let drawn = t.show_json()["hand"]["drawn"].as_str().unwrap().to_owned();
    assert!(t.show_text().contains(&format!("you drew a {drawn}")));
    assert!(t.waiting_for().contains(&drawn));
    refused(t, "Nf3");
    refused(t, "draw");
    net.run(Mode::Typed);
    check_finished(&net);
}

#[test]
fn duel_waits_for_the_deal_before_it_is_a_turn() {
    // One card in hand: after each round the next leader waits for its refill.
    let signed = table::propose(
        "duel",
        &[("cards".into(), "4".into()), ("hand".into(), "1".into())],
        &key(0),
        table::Invitees {
            opponent: key(1).public().to_bytes(),
            ..Default::default()
        },
        0,
        [5; 32],
    )
    .unwrap();
    let mut net = Net::with_terms("duel", Terms::from_signed(signed).unwrap(), 5);
    net.run_until(Mode::Bot, |n| n.tables.iter().all(|t| t.phase() == "play"));
    // Envelopes now travel one at a time, so every state in between is seen.
    net.deaf = [true, true];
    let mut windows = 0;
    while !net.held.is_empty() || net.step(Mode::Bot) {
        while net.step(Mode::Bot) {}
        if net.held.is_empty() {
            break;
        }
        let (to, e) = net.held.remove(0);
        net.tables[to].handle_envelope(&e, net.now).unwrap();
        net.pump();
        for t in &net.tables {
            if t.phase() == "play" && t.to_act() == Some(t.seat()) && !t.my_turn() {
                windows += 1;
                assert_eq!(t.show_json()["hand"]["cards"], serde_json::json!([]));
                let w = t.waiting_for();
                assert!(w.contains("owes 1 slot"), "{w}");
                assert!(refused(t.as_ref(), "play 1").starts_with("not yet"));
                assert!(t.bot_action(0).is_none());
            }
        }
    }
    assert!(windows > 0, "the leader never waited for its card");
    net.deaf = [false, false];
    net.run(Mode::Bot);
    check_finished(&net);
}

#[test]
fn propose_checks_the_options_with_the_games_own_words() {
    let opp = key(1).public().to_bytes();
    let propose = |variant: &str, opts: &[(&str, &str)]| {
        let opts: Vec<(String, String)> = opts
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        table::propose(
            variant,
            &opts,
            &key(0),
            table::Invitees {
                opponent: opp,
                ..Default::default()
            },
            7,
            [9; 32],
        )
    };
    let err = propose("go", &[]).unwrap_err();
    assert!(err.contains("unknown variant \"go\""), "{err}");
    assert!(err.contains("duel, cardmate, chex"), "{err}");
    assert_eq!(
        propose("duel", &[("colour", "1")]).unwrap_err(),
        "duel has no option colour"
    );
    assert_eq!(
        propose("duel", &[("cards", "1")]).unwrap_err(),
        "cards must be 2 to 64"
    );
    assert_eq!(
        propose("cardmate", &[("setup", "shuffled")]).unwrap_err(),
        "cardmate: option setup cannot be \"shuffled\""
    );
    assert_eq!(
        propose("chex", &[("ply-limit", "x")]).unwrap_err(),
        "chex: ply-limit cannot be \"x\""
    );
    assert!(propose("chex", &[("Bad Key", "1")]).is_err());
    assert!(
        propose("chex", &[("ply-limit", "3"), ("ply-limit", "4")])
            .unwrap_err()
            .contains("given twice")
    );
    let same = table::propose(
        "duel",
        &[],
        &key(0),
        table::Invitees {
            opponent: key(0).public().to_bytes(),
            ..Default::default()
        },
        7,
        [9; 32],
    );
    assert!(same.unwrap_err().contains("share a key"));

    let signed = propose("cardmate", &[("setup", "random"), ("no-move", "draw")]).unwrap();
    let p = &signed.proposal;
    assert_eq!(p.variant.as_str(), "cardmate");
    let keys: Vec<&str> = p.options.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["no-move", "setup"]);
    assert_eq!(p.proposer, Seat(0));
    assert_eq!(p.clock, 7);
    assert_eq!(p.seats[0].key, key(0).public().to_bytes());
    assert_eq!(p.seats[1].key, opp);
    assert!(p.seats.iter().all(|s| s.role == Role::Player));
    Terms::from_signed(signed).expect("it verifies");
}

#[test]
fn open_refuses_unknown_variants_and_strangers() {
    let p = Proposal {
        version: VERSION,
        variant: Name::new("go").unwrap(),
        options: vec![],
        seats: (0..2)
            .map(|i| SeatSpec {
                role: Role::Player,
                key: key(i).public().to_bytes(),
                name: String::new(),
            })
            .collect(),
        mailboxes: vec![],
        proposer: Seat(0),
        clock: 0,
        nonce: [0; 32],
    };
    let terms = Terms::from_signed(p.sign(&key(0))).unwrap();
    match table::open(terms.clone(), key(0), [0; 32], 0) {
        Err(TableError::UnknownVariant(v)) => assert_eq!(v, "go"),
        other => panic!("{:?}", other.map(|t| t.phase())),
    }
    let secrets = sealed_protocol::session::Secrets::new([0; 32]);
    assert!(matches!(
        table::restore(terms, key(0), secrets, &[], 0),
        Err(TableError::UnknownVariant(_))
    ));
    let duel = self::terms("duel", 3);
    match table::open(duel.clone(), key(5), [0; 32], 0) {
        Err(TableError::Session(SessionError::NotASeat)) => {}
        other => panic!("{:?}", other.map(|t| t.phase())),
    }
    // Envelopes of another game are refused on restore.
    let other = Net::new("duel", 4);
    let secrets = other.tables[0].secrets().unwrap();
    let envelopes = other.tables[0].envelopes();
    assert!(matches!(
        table::restore(duel, key(0), secrets, &envelopes, 0),
        Err(TableError::Session(SessionError::Insert(_)))
    ));
}

#[test]
fn chain_counts_name_each_chain_once() {
    let mut net = Net::new("duel", 140);
    net.run_until(Mode::Bot, |n| n.tables[0].ply() >= 4);
    let counts = net.tables[0].chain_counts();
    let chains: BTreeSet<ChainId> = counts.iter().map(|(c, _)| *c).collect();
    assert_eq!(chains.len(), counts.len());
    assert_eq!(
        chains,
        [ChainId::public(Seat(0)), ChainId::public(Seat(1))].into()
    );
    let total: u64 = counts.iter().map(|(_, n)| n).sum();
    assert_eq!(total as usize, net.tables[0].envelopes().len());
}

/// Typed text of any shape — the games' own words mixed with garbage — never panics a
/// table mid-game, and a refusal changes nothing.
#[test]
fn any_typed_text_is_parsed_or_refused_without_panic() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let words = prop::sample::select(vec![
        "card",
        "then",
        "at",
        "as",
        "trap",
        "discard",
        "take",
        "pick",
        "with",
        ";",
        "intercept",
        "answer",
        "cancel",
        "again",
        "yield",
        "e2e4",
        "e7e8q",
        "e1h1",
        "Nf3",
        "O-O",
        "exd5",
        "18",
        "66",
        "0",
        "4294967296",
        "-1",
        "z9",
        "e9",
        "€e2e4",
        "é",
        "play",
        "draw",
        "place",
        "4Ci3",
        "=Q",
        "@",
        "",
        "  ",
    ]);
    let text = prop::collection::vec(prop_oneof![words.prop_map(str::to_owned), ".{0,8}"], 0..7)
        .prop_map(|w| w.join(" "));
    let nets: Vec<Net> = table::variants()
        .iter()
        .enumerate()
        .map(|(n, &variant)| {
            let mut net = Net::new(variant, 150 + n as u8);
            net.run_until(Mode::Bot, |n| {
                n.tables[0].ply() >= 6 || n.tables[0].is_done()
            });
            net
        })
        .collect();
    let mut runner = TestRunner::new(Config {
        cases: 256,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&text, |text| {
            for net in &nets {
                for t in &net.tables {
                    let (ply, counts) = (t.ply(), t.chain_counts());
                    let _ = t.parse_action(&text);
                    prop_assert_eq!(t.ply(), ply);
                    prop_assert_eq!(t.chain_counts(), counts);
                }
            }
            Ok(())
        })
        .unwrap();
}
