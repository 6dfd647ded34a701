//! Tempête with the physical deck (spec/GAMES.md §4.20) for tests and vectors: two
//! seats, optionally an arbiter's key in the terms, driven by what a person types
//! (`Game::parse`, the same words `sealed move` takes), with a hand for forged acts.

use sealed_games::tempete::Tempete;
use sealed_games::tempete::act::Act;
use sealed_games::tempete::physical::Edit;
use sealed_games::tempete::physical::ruling::sign_ruling;
use sealed_games::tempete::rules::deck_name;
use sealed_protocol::body::{Item, Purpose};
use sealed_protocol::ids::Seat;
use sealed_protocol::keys::SecretKey;
use sealed_protocol::session::{Command, Session};
use sealed_protocol::verdict::Verdict;

use crate::pair::Pair;
use crate::sim::test_key;
use crate::tempete_kit::{accepting, tempete_terms};

/// The arbiter's test key (no seat of the game holds it).
pub fn arbiter_key() -> SecretKey {
    test_key(7)
}

/// Someone else's key, for a forged ruling.
pub fn impostor_key() -> SecretKey {
    test_key(8)
}

/// The `arbiter` option for [`arbiter_key`].
pub fn arbiter_option() -> String {
    sealed_protocol::hash::to_hex(&arbiter_key().public().to_bytes())
}

/// A game of Tempête with the physical deck between the test keys.
pub struct Physical {
    /// The two seats.
    pub pair: Pair<Tempete>,
}

impl Physical {
    /// The game under `deck=physical` (and `arbiter` when `arbiter`), run to White's
    /// first turn with both hands dealt.
    pub fn new(arbiter: bool, nonce: u8) -> Physical {
        Physical::of_version(arbiter, nonce, tempete_terms)
    }

    /// As [`Physical::new`], a game of protocol version 2.
    pub fn new_v2(arbiter: bool, nonce: u8) -> Physical {
        Physical::of_version(arbiter, nonce, crate::show_kit::tempete_terms_v2)
    }

    fn of_version(
        arbiter: bool,
        nonce: u8,
        terms: fn(&[(&str, &str)], u8) -> sealed_protocol::proposal::Terms,
    ) -> Physical {
        let key = arbiter_option();
        let mut options = vec![("deck", "physical")];
        if arbiter {
            options.push(("arbiter", key.as_str()));
            options.push(("ruling-plies", "6"));
        }
        let pair = Pair::<Tempete>::new(terms(&options, nonce), 90 + u64::from(nonce));
        let mut g = Physical { pair };
        g.settle();
        assert!(
            g.pair.sessions[0].hand(&deck_name()).len() == 5,
            "White's hand is not dealt"
        );
        g
    }

    /// Delivers until nothing moves (seats do only their automatic steps).
    pub fn settle(&mut self) {
        self.pair.run(&mut accepting());
    }

    /// The session of `seat`.
    pub fn session(&self, seat: Seat) -> &Session<Tempete> {
        &self.pair.sessions[seat.index()]
    }

    /// What `seat` types, read and checked as `sealed move` reads it.
    pub fn parse(&self, seat: Seat, text: &str) -> Result<Command, sealed_games::table::Refusal> {
        sealed_games::tempete::table::typed(self.session(seat), text)
    }

    /// `seat` types `text`; it is signed, sent and delivered.
    pub fn typed(&mut self, seat: Seat, text: &str) {
        crate::tempete_kit::typed(&mut self.pair, seat, text);
    }

    /// A card of `seat`'s hand whose effect is stated (none of the ten procedure
    /// numbers), with its slot.
    pub fn stated_card(&self, seat: Seat) -> (u32, u32) {
        self.session(seat)
            .hand(&deck_name())
            .into_iter()
            .find(|(_, n)| !sealed_games::tempete::physical::PROCEDURE_NUMBERS.contains(n))
            .expect("a stated card in hand")
    }

    /// White states a card (act 0: the knight vaults to f5), Black disputes it (dispute
    /// 0) and plays on: White is to act, with dispute 0 open.
    pub fn claim_disputed(&mut self) {
        let (_, card) = self.stated_card(WHITE);
        self.typed(
            WHITE,
            &format!("card {card} then g1f5 note the knight vaults"),
        );
        self.typed(BLACK, "dispute 0 note no knight vaults");
        self.typed(BLACK, "e5");
    }

    /// The number the next accepted act gets.
    pub fn next_act(&self) -> u32 {
        self.session(Seat(0))
            .engine()
            .state()
            .expect("started")
            .claims
            .acts
    }

    /// `seat` signs an act as it stands (opening `slot` first, if any), whether or not
    /// the rules allow it, and everyone receives it.
    pub fn forge(&mut self, seat: Seat, act: &Act, slot: Option<u32>) {
        let mut body = vec![];
        if let Some(slot) = slot {
            body.push(self.pair.opening(seat, Purpose::Deck(deck_name()), slot));
        }
        body.push(Item::Act(sealed_protocol::wire::encode(act)));
        let env = self.pair.forge(seat, body);
        self.pair.inject(&env);
        self.settle();
    }

    /// The arbiter's ruling text (what his `sealed rule` prints), signed by `key`.
    pub fn ruling_text(&self, key: &SecretKey, dispute: u32, edits: &[Edit], note: &str) -> String {
        let coin = *self.session(Seat(0)).engine().coin().expect("started");
        let sig = sign_ruling(key, &coin, dispute, edits, note);
        let act = Act::Ruling {
            dispute,
            edits: edits.to_vec(),
            note: note.to_owned(),
            signature: sig,
        };
        sealed_games::tempete::command::write(&act, &|_| None, None).expect("written")
    }

    /// The verdict of `seat`.
    pub fn verdict(&self, seat: Seat) -> Verdict {
        self.session(seat).verdict()
    }
}

/// Black is White's opponent; White proposes.
const WHITE: Seat = Seat(0);
const BLACK: Seat = Seat(1);

/// The scripted game of the tests and the vectors (spec/GAMES.md §4.20), with an
/// arbiter: act 0 White states a continuing effect, act 1 Black's move accepts it, act 2
/// White cites it, act 3 Black disputes act 2 and plays on (act 4), act 5 White posts
/// the arbiter's ruling (the claim stands), act 6 White's move, act 7 Black states a
/// card, act 8 White disputes it, and six plies later that dispute has lapsed. The game
/// is left on, Black to move at ply 12; every step is checked as it is made.
pub fn scripted_game() -> Physical {
    let mut g = Physical::new_v2(true, 1);
    // Act 0: White states a continuing effect with a card outside the seed's ten.
    let (_, card) = g.stated_card(WHITE);
    g.typed(
        WHITE,
        &format!("card {card} then g1h4 for 6 note knights move as camels for three turns"),
    );
    let st = g.session(BLACK).engine().state().unwrap().clone();
    assert_eq!(st.claims.lasting.len(), 1, "the effect is on record");
    assert_eq!(
        st.claims.unanswered.len(),
        1,
        "Black has not answered it yet"
    );
    // Act 1: Black's next act accepts it.
    g.typed(BLACK, "e5");
    let st = g.session(WHITE).engine().state().unwrap().clone();
    assert!(
        st.claims
            .unanswered
            .iter()
            .all(|r| r.side == sealed_games::chess::Color::Black)
    );
    // Act 2: a move no chess rule allows, citing the effect.
    g.typed(WHITE, "cite 0 then h4e5 note the camel takes on e5");
    // Act 3: Black disputes it, then plays on (act 4): the capture stands meanwhile.
    g.typed(BLACK, "dispute 2 note camels do not take");
    assert!(
        g.parse(BLACK, "dispute 2").is_err(),
        "an act is disputed once"
    );
    g.typed(BLACK, "Nc6");
    // Act 5: White posts the arbiter's ruling: the capture stands.
    let ruling = g.ruling_text(&arbiter_key(), 0, &[], "the card lets the camel take");
    g.typed(WHITE, &ruling);
    let st = g.session(BLACK).engine().state().unwrap().clone();
    assert!(
        matches!(
            st.claims.disputes[0].state,
            sealed_games::tempete::physical::DisputeState::Ruled { .. }
        ),
        "{:?}",
        st.claims.disputes
    );
    // Act 6: White's own move. Then Black states a card; White disputes it and nobody
    // rules: after six plies the dispute lapses and the claim stands.
    g.typed(WHITE, "d4");
    let (_, card) = g.stated_card(BLACK);
    g.typed(
        BLACK,
        &format!("card {card} then d7d5 remove d4 note the pawn's charge clears d4"),
    );
    let disputed = g.next_act() - 1;
    g.typed(
        WHITE,
        &format!("dispute {disputed} note nothing on this card removes a pawn"),
    );
    for (w, b) in [("a3", "a6"), ("b3", "b6"), ("c3", "h6")] {
        let v = g.verdict(WHITE);
        assert!(
            v.claims.iter().any(
                |c| c.about == sealed_protocol::verdict::ClaimAbout::Disputed && c.against == BLACK
            ),
            "open while the arbiter may rule: {v:#?}"
        );
        g.typed(WHITE, w);
        g.typed(BLACK, b);
    }
    g
}

/// transcript-tempete-physical.json (and tempete-physical-game.sealed): the scripted
/// game of [`scripted_game`] with Black resigning at the end — stated cards, a continuing
/// effect cited, a dispute ruled by the arbiter, a dispute lapsed — checked offline.
pub fn physical_transcript() -> (serde_json::Value, Vec<u8>) {
    let mut g = scripted_game();
    let now = g.pair.now;
    g.pair.sessions[BLACK.index()]
        .handle_command(Command::Resign, now)
        .expect("resign");
    g.pair.collect();
    g.settle();
    let bytes = g.pair.transcript(WHITE);
    let checked = sealed_games::variant::check_transcript(&bytes).expect("readable");
    let o = checked.verdict.outcome.clone().expect("finished");
    let st = g.session(WHITE).engine().state().expect("started");
    let value = serde_json::json!({
        "description": "a complete Tempête with the physical deck (version 2, an arbiter named by the key of test seed 8) between the test keys: stated cards, a continuing effect cited, a dispute the arbiter ruled, a dispute that lapsed, Black resigning; the same bytes as tempete-physical-game.sealed",
        "file": "tempete-physical-game.sealed",
        "acts": st.claims.acts,
        "disputes": st.claims.disputes.len(),
        "bytes": sealed_protocol::hash::to_hex(&bytes),
        "verdict": crate::vectors::verdict_json(&checked, &o),
    });
    (value, bytes)
}
