//! Showing a deck slot without spending it (protocol version 2 draft 5, spec/PROTOCOL.md
//! §17.16): a shown slot stays in the hand and is played later; a show passes the
//! checks of an opening of its slot (binding, dealt in view, not used, on the list, from
//! one slot only), is out of phase for anything but a deck slot or to the sender itself,
//! and is ignored once the game is over; a version 1 envelope cannot carry one and a
//! draft 3 game is refused by name. Then Tempête's card 73 (`show-hand`): White shows
//! Black his hand and plays a shown card later, Black's view lists the shown cards, a
//! forged show is White's fault, and a hidden card makes the play illegal.

use sealed_conformance::pair::Pair;
use sealed_conformance::scenarios::{
    A, B, Cheat, assert_caught, b_join, finish, forged_play, honest_pair, judged,
};
use sealed_conformance::show_kit::{
    ShowLie, black_shows_hand, duel_at, show, show_hand_hides_a_card, show_never_dealt,
    show_used_slot, tempete_bots, white_holds_73, white_plays_73,
};
use sealed_conformance::sim::test_key;
use sealed_games::duel::{self, Duel};
use sealed_games::tempete::Tempete;
use sealed_games::tempete::rules::deck_name;
use sealed_protocol::body::{Item, Purpose};
use sealed_protocol::commit::{CommitKey, card_value, commitment};
use sealed_protocol::envelope::{EnvelopeError, Signed};
use sealed_protocol::fault::FaultKind;
use sealed_protocol::ids::Seat;
use sealed_protocol::outcome::SeatResult;
use sealed_protocol::proposal::{ProposalError, Terms, VERSION_2};
use sealed_protocol::session::{Command, Refusal, SessionError};
use sealed_protocol::verdict::Status;

fn caught(c: Cheat) {
    assert_caught(&c.pair, c.cheater, c.kind);
}

/// A Duel play of `play` that also shows `shows`, built by the session.
fn play_showing(play: u32, shows: Vec<(sealed_protocol::ids::Name, u32, Option<Seat>)>) -> Command {
    Command::Act {
        show_slots: shows,
        act: duel::play_bytes(play),
        open_slots: vec![(duel::deck(), play)],
        commit_values: vec![],
        open_values: vec![],
        open_draw: None,
    }
}

#[test]
fn a_shown_slot_stays_in_the_hand_and_is_played_later() {
    let mut p = duel_at(21, A, 0);
    let hand = p.sessions[0].hand(&duel::deck());
    let (played, shown, card) = (hand[0].0, hand[1].0, hand[1].1);
    let now = p.now;
    p.sessions[0]
        .handle_command(
            play_showing(played, vec![(duel::deck(), shown, Some(B))]),
            now,
        )
        .expect("the session shows and plays");
    p.collect();
    p.deliver_all();
    // The session put the show before the opening and the act.
    let e = p.sessions[1].engine();
    let env = e
        .main_line()
        .iter()
        .find(|(_, s)| *s == A)
        .and_then(|(at, _)| e.envelope(*at))
        .expect("A's act");
    let kinds: Vec<&str> = env
        .unsigned()
        .body
        .iter()
        .filter_map(|i| match i {
            Item::Show(_) => Some("show"),
            Item::Open(_) => Some("open"),
            Item::Act(_) => Some("act"),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["show", "open", "act"]);
    assert_eq!(
        e.shown_slots(A, &duel::deck()).get(&shown),
        Some(&(card, Some(B)))
    );
    assert!(
        !e.used(A, &duel::deck()).contains_key(&shown),
        "kept, not used"
    );
    assert!(
        p.sessions[0]
            .hand(&duel::deck())
            .iter()
            .any(|(s, _)| *s == shown)
    );
    // Played later by the honest bots (which play their first card): accepted.
    finish(&mut p);
    let v = judged(&p, B);
    assert_eq!(v.status, Status::Verified, "{v:#?}");
    assert!(v.faults.is_empty(), "{v:#?}");
    assert_eq!(
        p.sessions[1].engine().used(A, &duel::deck()).get(&shown),
        Some(&card),
        "the shown card was played"
    );
}

#[test]
fn a_show_of_a_slot_never_dealt_loses() {
    caught(show_never_dealt());
}

#[test]
fn a_show_of_a_slot_already_played_loses() {
    caught(show_used_slot());
}

/// A forges one envelope on its turn in round 0 and the game runs out.
fn forged_at_a(seed: u64, body: impl FnOnce(&Pair<Duel>, u32) -> Vec<Item>) -> Pair<Duel> {
    let mut p = duel_at(seed, A, 0);
    let slot = p.sessions[0].hand(&duel::deck())[0].0;
    let env = p.forge(A, body(&p, slot));
    p.inject(&env);
    finish(&mut p);
    p
}

#[test]
fn a_show_with_a_wrong_nonce_is_an_opening_mismatch() {
    let p = forged_at_a(22, |p, slot| {
        let mut item = show(p, A, duel::deck(), slot, Some(B));
        if let Item::Show(sh) = &mut item {
            sh.nonce[31] ^= 0x80;
        }
        vec![item]
    });
    assert_caught(&p, A, FaultKind::OpeningMismatch);
}

#[test]
fn a_show_to_another_card_than_committed_is_an_opening_mismatch() {
    let p = forged_at_a(23, |p, slot| {
        let mut item = show(p, A, duel::deck(), slot, None);
        if let Item::Show(sh) = &mut item {
            let card = u32::from_le_bytes(sh.value[..4].try_into().expect("4 bytes"));
            sh.value = card_value(card % 9 + 1).to_vec();
        }
        vec![item]
    });
    assert_caught(&p, A, FaultKind::OpeningMismatch);
}

#[test]
fn a_show_of_anything_but_a_deck_slot_is_out_of_phase() {
    let p = forged_at_a(24, |p, _| {
        let Item::Open(o) = p.opening(A, Purpose::Coin, 0) else {
            unreachable!()
        };
        vec![Item::Show(sealed_protocol::body::Show {
            to: None,
            purpose: o.purpose,
            index: o.index,
            nonce: o.nonce,
            value: o.value,
        })]
    });
    assert_caught(&p, A, FaultKind::OutOfPhase);
}

#[test]
fn a_show_to_oneself_or_to_no_seat_is_out_of_phase() {
    for (seed, to) in [(25, A), (26, Seat(7))] {
        let p = forged_at_a(seed, |p, slot| {
            vec![show(p, A, duel::deck(), slot, Some(to))]
        });
        assert_caught(&p, A, FaultKind::OutOfPhase);
    }
}

#[test]
fn a_show_repeated_is_ignored_and_the_slot_still_plays() {
    let mut p = forged_at_a(27, |p, slot| {
        let other = p.sessions[0].hand(&duel::deck())[1].0;
        let item = show(p, A, duel::deck(), other, Some(B));
        vec![
            item.clone(),
            item,
            p.opening(A, Purpose::Deck(duel::deck()), slot),
            Item::Act(duel::play_bytes(slot)),
        ]
    });
    let v = judged(&p, B);
    assert_eq!(v.status, Status::Verified, "{v:#?}");
    assert!(v.faults.is_empty(), "{v:#?}");
    assert!(
        v.notes.iter().any(|n| n.contains("shown again")),
        "{:?}",
        v.notes
    );
    finish(&mut p);
}

#[test]
fn a_shown_slot_opened_later_to_another_card_is_an_opening_mismatch() {
    let mut p = duel_at(28, A, 0);
    let hand = p.sessions[0].hand(&duel::deck());
    let (first, kept, card) = (hand[0].0, hand[1].0, hand[1].1);
    let now = p.now;
    p.sessions[0]
        .handle_command(play_showing(first, vec![(duel::deck(), kept, None)]), now)
        .expect("shows");
    p.collect();
    sealed_conformance::scenarios::until_turn(&mut p, A, 1);
    let env = forged_play(&p, A, kept, card % 9 + 1);
    p.inject(&env);
    finish(&mut p);
    assert_caught(&p, A, FaultKind::OpeningMismatch);
}

/// B joins with `card` committed in every slot of its deck, then, when it is to act,
/// shows two of its dealt slots: the second show's fault is `kind`.
fn b_shows_a_forged_deck(seed: u64, card: u32, kind: FaultKind) {
    let mut p = sealed_conformance::withdraw_kit::pair(seed);
    let game = p.sessions[1].engine().terms().game();
    let secrets = p.sessions[1].secrets().clone();
    let key = |i| CommitKey {
        seat: B,
        purpose: Purpose::Deck(duel::deck()),
        index: i,
    };
    let forged: Vec<_> = (0..9)
        .map(|i| commitment(game, &key(i), &secrets.nonce(&key(i)), &card_value(card)))
        .collect();
    let env = b_join(&p, &[(Purpose::Deck(duel::deck()), forged)]);
    p.inject(&env);
    let mut d: [sealed_conformance::pair::Decide<Duel>; 2] =
        [sealed_conformance::scenarios::honest(), Box::new(|_| None)];
    p.run_until(&mut d, |p| p.sessions[1].engine().to_act() == Some(B));
    let dealt = p.sessions[1].engine().dealt(B, &duel::deck());
    let shows: Vec<Item> = dealt[..2]
        .iter()
        .map(|slot| {
            Item::Show(sealed_protocol::body::Show {
                to: Some(A),
                purpose: Purpose::Deck(duel::deck()),
                index: *slot,
                nonce: secrets.nonce(&key(*slot)),
                value: card_value(card).to_vec(),
            })
        })
        .collect();
    let env = p.forge(B, shows);
    p.inject(&env);
    let mut d = honest_pair();
    p.run(&mut d);
    assert_caught(&p, B, kind);
}

#[test]
fn one_card_shown_from_two_slots_loses() {
    b_shows_a_forged_deck(29, 4, FaultKind::CardFromTwoSlots);
}

#[test]
fn a_shown_card_off_the_list_loses() {
    b_shows_a_forged_deck(30, 99, FaultKind::CardNotOnList);
}

#[test]
fn a_show_after_the_game_is_over_in_view_is_ignored() {
    let mut p = forged_at_a(31, |p, slot| {
        vec![Item::Resign, show(p, A, duel::deck(), slot, Some(B))]
    });
    finish(&mut p);
    let v = judged(&p, B);
    assert!(v.faults.is_empty(), "{v:#?}");
    assert_eq!(v.outcome.expect("over").results[0], SeatResult::Loss);
    assert!(
        v.notes.iter().any(|n| n.contains("show after the game")),
        "{:?}",
        v.notes
    );
    assert!(
        p.sessions[1]
            .engine()
            .shown_slots(A, &duel::deck())
            .is_empty()
    );
}

#[test]
fn version_1_carries_no_show_and_its_session_refuses_one() {
    // A version 1 Duel: the session refuses to show, in words.
    let mut p = sealed_conformance::scenarios::new_pair(32);
    sealed_conformance::scenarios::until_turn(&mut p, A, 0);
    let hand = p.sessions[0].hand(&duel::deck());
    let now = p.now;
    let e = p.sessions[0]
        .handle_command(
            play_showing(hand[0].0, vec![(duel::deck(), hand[1].0, Some(B))]),
            now,
        )
        .expect_err("refused");
    assert_eq!(e, SessionError::Refused(Refusal::NoShow));
    assert!(e.to_string().contains("version 1"), "{e}");
    // A version 1 envelope carrying a show is no envelope of the game.
    let env = p.forge(A, vec![show(&p, A, duel::deck(), hand[1].0, Some(B))]);
    let terms = p.sessions[1].engine().terms().clone();
    assert_eq!(
        Signed::parse(&terms, &env.bytes).expect_err("refused"),
        EnvelopeError::Version2Item
    );
}

#[test]
fn a_game_of_draft_3_is_refused_by_name() {
    let mut prop = sealed_conformance::duel_kit::duel_proposal(&Duel::default(), 7);
    prop.version = 0x32;
    let e = Terms::from_signed(prop.sign(&test_key(0))).expect_err("refused");
    assert_eq!(e, ProposalError::EarlierDraft { draft: 3 });
    assert!(
        e.to_string().contains("draft 3 of protocol version 2"),
        "{e}"
    );
    assert_eq!(VERSION_2, 0xB2);
}

// Tempête's card 73.

#[test]
fn card_73_makes_black_show_his_hand_and_he_plays_a_shown_card_later() {
    let (mut p, slot73) = white_holds_73(false);
    let state = p.sessions[0].engine().state().expect("started").clone();
    // Typed as a person would: White's own play shows nothing.
    let mv = state.board.legal_plays(None)[0].moves[0].to_string();
    let cmd = typed(&p, 0, &format!("card 73 then {mv}"));
    let Command::Act { show_slots, .. } = &cmd else {
        panic!("an act")
    };
    assert!(show_slots.is_empty(), "{show_slots:?}");
    let now = p.now;
    p.sessions[0].handle_command(cmd, now).expect("sent");
    p.collect();
    p.deliver_all();
    let _ = slot73;
    // Black owes his hand: whatever he types next carries it, whole, to White.
    let black_hand: Vec<(u32, u32)> = p.sessions[1].hand(&deck_name());
    let board = p.sessions[1].engine().state().expect("on").board.clone();
    let mv = board.legal_plays(None)[0].moves[0].to_string();
    let cmd = typed(&p, 1, &mv);
    let Command::Act { show_slots, .. } = &cmd else {
        panic!("an act")
    };
    assert_eq!(show_slots.len(), black_hand.len(), "{show_slots:?}");
    let now = p.now;
    p.sessions[1].handle_command(cmd, now).expect("sent");
    p.collect();
    p.deliver_all();
    // White's view lists Black's cards, by number; Black's own view nothing of the kind.
    let mut seen: Vec<u32> = sealed_games::tempete::holding::shown_to_me(&p.sessions[0])
        .iter()
        .map(|(_, c)| c.number())
        .collect();
    seen.sort();
    let mut want: Vec<u32> = black_hand.iter().map(|(_, c)| *c).collect();
    want.sort();
    assert_eq!(seen, want);
    assert!(sealed_games::tempete::holding::shown_to_me(&p.sessions[1]).is_empty());
    // The bots play on until Black plays one of the shown cards.
    let shown: Vec<u32> = black_hand.iter().map(|(s, _)| *s).collect();
    let mut d = tempete_bots();
    p.run_until(&mut d, |p| {
        let used = p.sessions[0].engine().used(B, &deck_name());
        shown.iter().any(|s| used.contains_key(s)) || p.sessions[0].engine().is_over()
    });
    let used = p.sessions[0].engine().used(B, &deck_name());
    if let Some(played) = shown.iter().find(|s| used.contains_key(s)) {
        // Played, it is no longer listed as shown and held.
        assert!(
            !sealed_games::tempete::holding::shown_to_me(&p.sessions[0])
                .iter()
                .any(|(s, _)| s == played)
        );
    }
    p.run(&mut d);
    let v = judged(&p, A);
    assert_eq!(v.status, Status::Verified, "{v:#?}");
    assert!(v.faults.is_empty(), "{v:#?}");
    assert!(p.refused.is_empty(), "{:?}", p.refused);
}

#[test]
fn a_forged_show_of_the_hand_owed_is_the_showers_fault() {
    let (mut p, slot73) = white_holds_73(false);
    white_plays_73(&mut p, slot73);
    let env = black_shows_hand(&p, ShowLie::WrongNonce);
    p.inject(&env);
    let mut d = tempete_bots();
    p.run(&mut d);
    assert_caught(&p, B, FaultKind::OpeningMismatch);
}

#[test]
fn a_hidden_card_makes_the_act_that_owes_the_hand_illegal() {
    let (p, kind) = show_hand_hides_a_card();
    let v = assert_caught(&p, B, kind);
    assert!(
        v.faults
            .iter()
            .any(|f| f.detail.contains("kept and not shown")),
        "{v:#?}"
    );
}

#[test]
fn the_whole_hand_shown_truly_is_no_fault() {
    let (mut p, slot73) = white_holds_73(false);
    white_plays_73(&mut p, slot73);
    let env = black_shows_hand(&p, ShowLie::None);
    p.inject(&env);
    let mut d = tempete_bots();
    p.run(&mut d);
    let v = judged(&p, A);
    assert!(v.faults.is_empty(), "{v:#?}");
}

#[test]
fn a_show_outside_a_show_hand_play_is_illegal() {
    let (mut p, slot73) = white_holds_73(false);
    let other = p.sessions[0]
        .hand(&deck_name())
        .into_iter()
        .find(|(s, _)| *s != slot73)
        .expect("another card")
        .0;
    let board = &p.sessions[0].engine().state().expect("on").board;
    let mv = sealed_games::tempete::act::WireMove::of(&board.legal_plays(None)[0].moves[0]);
    let act = sealed_games::tempete::act::Act::Turn {
        start: None,
        card: None,
        moves: vec![mv],
        discard: vec![],
    };
    let env = p.forge(
        A,
        vec![
            show(&p, A, deck_name(), other, Some(B)),
            Item::Act(sealed_protocol::wire::encode(&act)),
        ],
    );
    p.inject(&env);
    let mut d = tempete_bots();
    p.run(&mut d);
    let v = assert_caught(&p, A, FaultKind::IllegalAct);
    assert!(
        v.faults
            .iter()
            .any(|f| f.detail.contains("only when a show-hand card asked")),
        "{v:#?}"
    );
}

#[test]
fn card_73_stays_refused_under_version_1() {
    let (mut p, slot73) = white_holds_73(true);
    let state = p.sessions[0].engine().state().expect("started").clone();
    let mv = state.board.legal_plays(None)[0].moves[0].to_string();
    // Typed, the session judges it as the rules do: refused...
    let cmd = typed(&p, 0, &format!("card 73 then {mv}"));
    let now = p.now;
    assert!(p.sessions[0].handle_command(cmd, now).is_err());
    // ... and signed anyway, it is White's fault.
    let act = sealed_games::tempete::act::Act::Turn {
        start: None,
        card: Some(sealed_games::tempete::act::CardUse::new(
            sealed_games::tempete::act::CardRef::Slot(slot73),
            &sealed_games::tempete::Params::none(),
        )),
        moves: vec![sealed_games::tempete::act::WireMove::of(
            &state.board.legal_plays(None)[0].moves[0],
        )],
        discard: vec![],
    };
    let env = p.forge(
        A,
        vec![
            p.opening(A, Purpose::Deck(deck_name()), slot73),
            Item::Act(sealed_protocol::wire::encode(&act)),
        ],
    );
    p.inject(&env);
    let mut d = tempete_bots();
    p.run(&mut d);
    let v = assert_caught(&p, A, FaultKind::IllegalAct);
    assert!(
        v.faults
            .iter()
            .any(|f| f.detail.contains("protocol version 1")),
        "{v:#?}"
    );
}

/// A seat's typed command, with the shows the table adds when the seat owes its hand.
fn typed(p: &Pair<Tempete>, seat: usize, text: &str) -> Command {
    use sealed_games::tempete::{command, holding};
    let s = &p.sessions[seat];
    let state = s.engine().state().expect("started");
    let hand = holding::hand(s);
    let me = command::Seat {
        hand: &hand,
        traps: 0,
        pos: state.board.position(),
        physical: false,
    };
    let mut cmd = command::parse(&me, text).expect("parses");
    holding::add_shows(s, &mut cmd);
    cmd
}

// No input decoded or judged as a show panics.

fn any_show() -> impl proptest::strategy::Strategy<Value = sealed_protocol::body::Show> {
    use proptest::prelude::*;
    let purpose = prop_oneof![
        Just(Purpose::Coin),
        Just(Purpose::Deck(duel::deck())),
        Just(Purpose::Setup(duel::deck())),
        Just(Purpose::DrawChain(duel::deck())),
    ];
    (
        proptest::option::of(any::<u8>()),
        purpose,
        prop_oneof![0u32..12, any::<u32>()],
        any::<[u8; 32]>(),
        proptest::collection::vec(any::<u8>(), 0..8),
    )
        .prop_map(
            |(to, purpose, index, nonce, value)| sealed_protocol::body::Show {
                to: to.map(Seat),
                purpose,
                index,
                nonce,
                value,
            },
        )
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config { cases: 64, ..Default::default() })]

    #[test]
    fn no_bytes_decoded_as_a_show_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..120)) {
        use sealed_protocol::wire::{MAX_MESSAGE, decode, encode};
        if let Ok(sh) = decode::<sealed_protocol::body::Show>(&bytes, MAX_MESSAGE) {
            // Accepted only in its one canonical form.
            proptest::prop_assert_eq!(encode(&sh), bytes.clone());
        }
        let mut item = vec![18u8];
        item.extend(&bytes);
        if let Ok(i) = decode::<Item>(&item, MAX_MESSAGE) {
            proptest::prop_assert!(matches!(i, Item::Show(_)));
            proptest::prop_assert_eq!(encode(&i), item);
        }
    }

    #[test]
    fn no_show_judged_panics(sh in any_show(), true_nonce in proptest::prelude::any::<bool>(), seed in 40u64..44) {
        let mut p = duel_at(seed, A, 0);
        let mut sh = sh;
        if true_nonce && let Item::Show(t) = show(&p, A, duel::deck(), sh.index % 9, sh.to) {
            sh = t;
        }
        let env = p.forge(A, vec![Item::Show(sh)]);
        p.inject(&env);
        finish(&mut p);
        let v = judged(&p, B);
        // Whatever it was, B is never blamed.
        proptest::prop_assert!(v.faults.iter().all(|f| f.seat == A), "{:#?}", v);
    }
}
