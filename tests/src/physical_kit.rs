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
use sealed_protocol::session::{Command, Phase, Session};
use sealed_protocol::verdict::Verdict;

use crate::pair::{Decide, Pair};
use crate::sim::test_key;
use crate::tempete_kit::tempete_terms;

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

/// Seats that accept the proposal and otherwise only do the automatic steps.
fn accepting() -> [Decide<Tempete>; 2] {
    let d = || -> Decide<Tempete> {
        Box::new(|s: &Session<Tempete>| {
            matches!(s.phase(), Phase::Decide(_)).then_some(Command::Accept)
        })
    };
    [d(), d()]
}

impl Physical {
    /// The game under `deck=physical` (and `arbiter` when `arbiter`), run to White's
    /// first turn with both hands dealt.
    pub fn new(arbiter: bool, nonce: u8) -> Physical {
        let key = arbiter_option();
        let mut options = vec![("deck", "physical")];
        if arbiter {
            options.push(("arbiter", key.as_str()));
            options.push(("ruling-plies", "6"));
        }
        let pair = Pair::<Tempete>::new(tempete_terms(&options, nonce), 90 + u64::from(nonce));
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
    pub fn parse(&self, seat: Seat, text: &str) -> Result<Command, String> {
        sealed_games::tempete::table::typed(self.session(seat), text)
    }

    /// `seat` types `text`; it is signed, sent and delivered.
    pub fn typed(&mut self, seat: Seat, text: &str) {
        let cmd = self
            .parse(seat, text)
            .unwrap_or_else(|e| panic!("seat {} types {text:?}: {e}", seat.0));
        let now = self.pair.now;
        self.pair.sessions[seat.index()]
            .handle_command(cmd, now)
            .unwrap_or_else(|e| panic!("seat {} types {text:?}: {e}", seat.0));
        self.pair.collect();
        self.settle();
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
