//! Slots shown without being spent (protocol version 2 draft 5, spec/PROTOCOL.md
//! §17.16) for tests and vectors: the true `Show` of a slot, Duel cheats that show what
//! the seat does not hold, and Tempête's card 73 (`show-hand`) with White's hand shown,
//! forged or hidden.

use sealed_games::duel::{self, Duel};
use sealed_games::tempete::Tempete;
use sealed_games::tempete::act::{Act, CardRef, CardUse, WireMove};
use sealed_games::tempete::rules::deck_name;
use sealed_games::tempete::{Board, Params};
use sealed_protocol::body::{Item, Open, Purpose, Show};
use sealed_protocol::envelope::Signed;
use sealed_protocol::fault::FaultKind;
use sealed_protocol::ids::Seat;
use sealed_protocol::proposal::{Role, Terms, VERSION_2};
use sealed_protocol::rules::Rules;
use sealed_protocol::session::{Command, Phase, Session};

use crate::pair::{Decide, Pair};
use crate::scenarios::{A, B, Cheat, finish, true_play, until_turn};
use crate::sim::{test_key, test_proposal};

/// The true showing of `seat`'s slot `slot` of `deck` to `to` (`None`: to all).
pub fn show<R: Rules>(
    p: &Pair<R>,
    seat: Seat,
    deck: sealed_protocol::ids::Name,
    slot: u32,
    to: Option<Seat>,
) -> Item {
    let Item::Open(Open {
        purpose,
        index,
        nonce,
        value,
    }) = p.opening(seat, Purpose::Deck(deck), slot)
    else {
        unreachable!("an opening is an Open")
    };
    Item::Show(Show {
        to,
        purpose,
        index,
        nonce,
        value,
    })
}

/// A version 2 Duel between the test keys (`crate::withdraw_kit::pair`), run until `seat`
/// is to act in round `rounds`.
pub fn duel_at(seed: u64, seat: Seat, rounds: u32) -> Pair<Duel> {
    let mut p = crate::withdraw_kit::pair(seed);
    until_turn(&mut p, seat, rounds);
    p
}

/// B shows a slot never dealt to it (a true opening of its commitment): B's
/// `slot-never-dealt`.
pub fn show_never_dealt() -> Cheat {
    let mut p = duel_at(11, B, 1);
    let dealt = p.sessions[1].engine().dealt(B, &duel::deck());
    let slot = (0..9)
        .find(|s| !dealt.contains(s))
        .expect("an undealt slot");
    let env = p.forge(B, vec![show(&p, B, duel::deck(), slot, Some(A))]);
    p.inject(&env);
    finish(&mut p);
    Cheat {
        pair: p,
        cheater: B,
        kind: FaultKind::SlotNeverDealt,
    }
}

/// A plays a slot, and on its next turn shows it as if it still held it: A's
/// `slot-used-twice`.
pub fn show_used_slot() -> Cheat {
    let mut p = duel_at(12, A, 0);
    let slot = p.sessions[0].hand(&duel::deck())[0].0;
    let env = true_play(&p, A, slot);
    p.inject(&env);
    until_turn(&mut p, A, 1);
    let env = p.forge(A, vec![show(&p, A, duel::deck(), slot, None)]);
    p.inject(&env);
    finish(&mut p);
    Cheat {
        pair: p,
        cheater: A,
        kind: FaultKind::SlotUsedTwice,
    }
}

/// The options of the show-hand games: a short list holding card 73, so that a hand of 5
/// often holds it.
pub const SHOW_OPTIONS: [(&str, &str); 2] = [("cards", "1-9,73"), ("ply-limit", "40")];

/// Version 2 Tempête terms between the test keys, White (seat 0) proposing.
pub fn tempete_terms_v2(options: &[(&str, &str)], nonce: u8) -> Terms {
    let mut p = test_proposal(
        sealed_games::tempete::VARIANT,
        options,
        &[Role::Player, Role::Player],
        nonce,
    );
    p.version = VERSION_2;
    Terms::from_signed(p.sign(&test_key(0))).expect("valid terms")
}

/// Seeded random Tempête bots that accept the proposal.
pub fn tempete_bots() -> [Decide<Tempete>; 2] {
    let bot = |seed: u64| -> Decide<Tempete> {
        let mut n = seed;
        Box::new(move |s: &Session<Tempete>| {
            n = n
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if matches!(s.phase(), Phase::Decide(_)) {
                return Some(Command::Accept);
            }
            sealed_games::tempete::bot::choice(s, n >> 33)
        })
    };
    [bot(3), bot(9)]
}

/// A Tempête (`SHOW_OPTIONS`, version 2 unless `v1`) at White's first turn with card 73
/// in White's hand of 5: the first nonce from 1 that deals it. Returns the pair and
/// 73's slot.
pub fn white_holds_73(v1: bool) -> (Pair<Tempete>, u32) {
    for nonce in 1..60u8 {
        let terms = match v1 {
            true => crate::tempete_kit::tempete_terms(&SHOW_OPTIONS, nonce),
            false => tempete_terms_v2(&SHOW_OPTIONS, nonce),
        };
        let mut p = Pair::<Tempete>::new(terms, u64::from(nonce));
        let mut d = tempete_bots();
        p.run_until(&mut d, |p| {
            let s = &p.sessions[0];
            s.engine().to_act() == Some(A) && s.hand(&deck_name()).len() == 5
        });
        let slot = p.sessions[0]
            .hand(&deck_name())
            .into_iter()
            .find(|(_, c)| *c == 73)
            .map(|(s, _)| s);
        if let Some(slot) = slot {
            return (p, slot);
        }
    }
    panic!("no nonce deals card 73 to White");
}

/// How Black's envelope that owes his hand lies, if it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShowLie {
    /// Every kept card shown truly.
    None,
    /// One kept card left out.
    Hidden,
    /// One kept card shown with a wrong nonce.
    WrongNonce,
}

/// White plays card 73 (`after`, "the opponent shows you his hand") with its first
/// plain legal move, as a person types it; Black now owes his hand.
pub fn white_plays_73(p: &mut Pair<Tempete>, slot73: u32) {
    let board: &Board = &p.sessions[0].engine().state().expect("started").board;
    let mv = WireMove::of(&board.legal_plays(None)[0].moves[0]);
    let act = Act::Turn {
        start: None,
        card: Some(CardUse::new(CardRef::Slot(slot73), &Params::none())),
        moves: vec![mv],
        discard: vec![],
    };
    let cmd = sealed_games::tempete::holding::command(&act, vec![(deck_name(), slot73)]);
    let now = p.now;
    p.sessions[0]
        .handle_command(cmd, now)
        .expect("card 73 played");
    p.collect();
    p.deliver_all();
}

/// Black's next act: his first plain legal move, showing White every card he keeps —
/// or lying as `lie` says.
pub fn black_shows_hand(p: &Pair<Tempete>, lie: ShowLie) -> Signed {
    let board: &Board = &p.sessions[1].engine().state().expect("started").board;
    let mv = WireMove::of(&board.legal_plays(None)[0].moves[0]);
    let act = Act::Turn {
        start: None,
        card: None,
        moves: vec![mv],
        discard: vec![],
    };
    let kept: Vec<u32> = p.sessions[1]
        .hand(&deck_name())
        .into_iter()
        .map(|(s, _)| s)
        .collect();
    let mut body = vec![];
    for (i, slot) in kept.iter().enumerate() {
        let mut item = show(p, B, deck_name(), *slot, Some(A));
        match (lie, i) {
            (ShowLie::Hidden, 0) => continue,
            (ShowLie::WrongNonce, 0) => {
                if let Item::Show(sh) = &mut item {
                    sh.nonce[0] ^= 1;
                }
            }
            _ => {}
        }
        body.push(item);
    }
    body.push(Item::Act(sealed_protocol::wire::encode(&act)));
    p.forge(B, body)
}

/// White plays card 73; Black's next act hides one kept card, and the game runs out:
/// Black's `illegal-act`.
pub fn show_hand_hides_a_card() -> (Pair<Tempete>, FaultKind) {
    let (mut p, slot73) = white_holds_73(false);
    white_plays_73(&mut p, slot73);
    let env = black_shows_hand(&p, ShowLie::Hidden);
    p.inject(&env);
    let mut d = tempete_bots();
    p.run(&mut d);
    (p, FaultKind::IllegalAct)
}
