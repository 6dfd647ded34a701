//! Honest and dishonest Duel games, built deterministically: shared by the cheat tests
//! and by the conformance-vector generator, so that every reject vector is a scenario
//! a test also runs live.

use sealed_games::duel::{self, Act, Duel};
use sealed_protocol::body::{Commit, Deal, Item, Open, Purpose};
use sealed_protocol::commit::{CommitKey, card_value, commitment};
use sealed_protocol::envelope::{Ack, Envelope, Signed};
use sealed_protocol::fault::FaultKind;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, EnvRef, Seat};
use sealed_protocol::outcome::SeatResult;
use sealed_protocol::session::Session;
use sealed_protocol::wire;

use crate::duel_kit::{duel_terms, play};
use crate::pair::{Decide, Pair};

/// Seat 0.
pub const A: Seat = Seat(0);
/// Seat 1.
pub const B: Seat = Seat(1);

/// Plays the first card in hand when it is this seat's turn.
pub fn honest() -> Decide<Duel> {
    Box::new(|s: &Session<Duel>| {
        if s.engine().to_act() != Some(s.seat()) {
            return None;
        }
        s.hand(&duel::deck()).first().map(|(slot, _)| play(*slot))
    })
}

/// Two honest deciders.
pub fn honest_pair() -> [Decide<Duel>; 2] {
    [honest(), honest()]
}

/// A fresh default Duel between the test keys.
pub fn new_pair(seed: u64) -> Pair<Duel> {
    Pair::new(duel_terms(&Duel::default(), 5), seed)
}

/// Runs until the game has started, `rounds` rounds are done and `seat` is to act.
pub fn until_turn(p: &mut Pair<Duel>, seat: Seat, rounds: u32) {
    let mut d = honest_pair();
    p.run_until(&mut d, |p| {
        let e = p.sessions[seat.index()].engine();
        e.to_act() == Some(seat) && e.state().is_some_and(|s| s.round >= rounds)
    });
    assert_eq!(
        p.sessions[seat.index()].engine().to_act(),
        Some(seat),
        "never became {seat}'s turn"
    );
}

/// Lets the game run out, reveals and closes included.
pub fn finish(p: &mut Pair<Duel>) {
    let mut d = honest_pair();
    p.run(&mut d);
}

/// An envelope opening `slot` with `card` (whatever was committed) and playing it.
pub fn forged_play(p: &Pair<Duel>, seat: Seat, slot: u32, card: u32) -> Signed {
    let s = &p.sessions[seat.index()];
    let key = CommitKey {
        seat,
        purpose: Purpose::Deck(duel::deck()),
        index: slot,
    };
    let nonce = s.secrets().nonce(&key);
    let open = Item::Open(Open {
        purpose: key.purpose,
        index: slot,
        nonce,
        value: card_value(card).to_vec(),
    });
    p.forge(seat, vec![open, Item::Act(duel::play_bytes(slot))])
}

/// A true play of `slot` (its committed card), whether or not the seat may play it.
pub fn true_play(p: &Pair<Duel>, seat: Seat, slot: u32) -> Signed {
    let open = p.opening(seat, Purpose::Deck(duel::deck()), slot);
    p.forge(seat, vec![open, Item::Act(duel::play_bytes(slot))])
}

/// Seat B's first envelope with its true commitments, except that the commitments for
/// `replace` are the given hashes.
pub fn b_join<R: sealed_protocol::rules::Rules>(
    p: &Pair<R>,
    replace: &[(Purpose, Vec<Hash>)],
) -> Signed {
    let s = &p.sessions[B.index()];
    let secrets = s.secrets();
    let game = s.engine().terms().game();
    let decks = s.engine().decks();
    let mut body = vec![Item::Accept];
    for (purpose, indices) in sealed_protocol::session::start_keys(B, &decks, &[], &[]) {
        let hashes = match replace.iter().find(|(p, _)| *p == purpose) {
            Some((_, h)) => h.clone(),
            None => indices
                .iter()
                .map(|i| {
                    let key = CommitKey {
                        seat: B,
                        purpose: purpose.clone(),
                        index: *i,
                    };
                    secrets.commitment(game, &key, &decks).expect("value")
                })
                .collect(),
        };
        body.push(Item::Commit(Commit {
            purpose,
            first: indices[0],
            hashes,
        }));
    }
    p.forge(B, body)
}

/// Seat B's deck commitments with `card` in every slot.
fn deck_of(p: &Pair<Duel>, card: u32) -> Vec<Hash> {
    let s = &p.sessions[B.index()];
    let secrets = s.secrets();
    let game = s.engine().terms().game();
    (0..9)
        .map(|i| {
            let key = CommitKey {
                seat: B,
                purpose: Purpose::Deck(duel::deck()),
                index: i,
            };
            commitment(game, &key, &secrets.nonce(&key), &card_value(card))
        })
        .collect()
}

/// Runs with B forging its plays of a forged deck (its own session could not open it).
fn b_forges_plays(p: &mut Pair<Duel>, card: u32, plays: usize) {
    let mut d: [Decide<Duel>; 2] = [honest(), Box::new(|_| None)];
    for done in 0..plays {
        p.run_until(&mut d, |p| p.sessions[1].engine().to_act() == Some(B));
        if p.sessions[1].engine().to_act() != Some(B) {
            return;
        }
        let slot = p.sessions[1].engine().dealt(B, &duel::deck())[done];
        let env = forged_play(p, B, slot, card);
        p.inject(&env);
    }
}

/// Plays honest games (seed by seed from `first`) until one ends with `pick` true of
/// (board results, the seat that learned of the end last); stops there, with that
/// seat's reveal not yet delivered, and returns the pair and that seat.
pub fn ended_with(first: u64, pick: impl Fn(&[SeatResult], Seat) -> bool) -> (Pair<Duel>, Seat) {
    for seed in first..first + 200 {
        let mut p = new_pair(seed);
        let mut d = honest_pair();
        p.run_until(&mut d, |p| p.sessions.iter().all(|s| s.engine().is_over()));
        let e = p.sessions[0].engine();
        let (_, last_actor) = *e.main_line().last().expect("acts");
        // The seat that made the last act revealed at once, in the same step; the other
        // learns of the end from that act, so its reveal is still waiting to go out.
        let last_to_know = duel::other(last_actor);
        let board = e.board_outcome().expect("over");
        if pick(&board.results, last_to_know) {
            return (p, last_to_know);
        }
    }
    panic!("no seed gives the wanted ending");
}

/// Drops everything `seat` has waiting for delivery and silences it.
pub fn hold_back(p: &mut Pair<Duel>, seat: Seat) {
    let game = p.sessions[0].engine().terms().game();
    p.pending
        .retain(|(_, b)| Envelope::decode(b, game).map_or(true, |e| e.unsigned.seat != seat));
    p.silent.push(seat);
}

/// A cheat, played out: the pair after the game ran to its end.
pub struct Cheat {
    /// The sessions.
    pub pair: Pair<Duel>,
    /// Who cheated.
    pub cheater: Seat,
    /// The fault the verdict must name.
    pub kind: FaultKind,
}

impl Cheat {
    /// The seat that did not cheat.
    pub fn honest(&self) -> Seat {
        duel::other(self.cheater)
    }
}

fn done(mut pair: Pair<Duel>, cheater: Seat, kind: FaultKind) -> Cheat {
    finish(&mut pair);
    Cheat {
        pair,
        cheater,
        kind,
    }
}

/// B plays a slot never dealt to it.
pub fn slot_never_dealt() -> Cheat {
    let mut p = new_pair(1);
    until_turn(&mut p, B, 1);
    let dealt = p.sessions[1].engine().dealt(B, &duel::deck());
    let slot = (0..9)
        .find(|s| !dealt.contains(s))
        .expect("an undealt slot");
    let env = true_play(&p, B, slot);
    p.inject(&env);
    done(p, B, FaultKind::SlotNeverDealt)
}

/// A plays a slot, and later plays it again.
pub fn slot_used_twice() -> Cheat {
    let mut p = new_pair(2);
    until_turn(&mut p, A, 0);
    let slot = p.sessions[0].hand(&duel::deck())[0].0;
    let env = true_play(&p, A, slot);
    p.inject(&env);
    until_turn(&mut p, A, 1);
    let env = true_play(&p, A, slot);
    p.inject(&env);
    done(p, A, FaultKind::SlotUsedTwice)
}

/// B commits a deck holding card 4 in every slot and plays two of them.
pub fn card_from_two_slots() -> Cheat {
    let mut p = new_pair(3);
    let env = b_join(&p, &[(Purpose::Deck(duel::deck()), deck_of(&p, 4))]);
    p.inject(&env);
    b_forges_plays(&mut p, 4, 2);
    done(p, B, FaultKind::CardFromTwoSlots)
}

/// B commits a deck of card 99, which is not on the list, and plays one.
pub fn card_not_on_list() -> Cheat {
    let mut p = new_pair(4);
    let env = b_join(&p, &[(Purpose::Deck(duel::deck()), deck_of(&p, 99))]);
    p.inject(&env);
    b_forges_plays(&mut p, 99, 1);
    done(p, B, FaultKind::CardNotOnList)
}

/// B deals A a slot it already dealt.
pub fn index_repeated() -> Cheat {
    let mut p = new_pair(5);
    until_turn(&mut p, A, 1);
    let dealt = p.sessions[1].engine().dealt(A, &duel::deck());
    let env = p.forge(
        B,
        vec![Item::Deal(Deal {
            owner: A,
            deck: duel::deck(),
            slots: vec![dealt[0]],
        })],
    );
    p.inject(&env);
    done(p, B, FaultKind::IndexRepeated)
}

/// B deals A a fresh slot nothing made due.
pub fn over_dealt() -> Cheat {
    let mut p = new_pair(6);
    until_turn(&mut p, A, 1);
    let dealt = p.sessions[1].engine().dealt(A, &duel::deck());
    let fresh = (0..9).find(|s| !dealt.contains(s)).expect("a fresh slot");
    let env = p.forge(
        B,
        vec![Item::Deal(Deal {
            owner: A,
            deck: duel::deck(),
            slots: vec![fresh],
        })],
    );
    p.inject(&env);
    done(p, B, FaultKind::OverDealt)
}

/// B commits to one dealer seed, deals from another, and opens the committed one at the
/// end: the lie only shows then.
pub fn deal_not_from_seed() -> Cheat {
    let mut p = new_pair(7);
    let s = &p.sessions[1];
    let game = s.engine().terms().game();
    let other_seed = [0x5a; 32];
    let seed_key = CommitKey {
        seat: B,
        purpose: Purpose::DealSeed(duel::deck()),
        index: 0,
    };
    let seed_nonce = s.secrets().nonce(&seed_key);
    let forged = commitment(game, &seed_key, &seed_nonce, &other_seed);
    let env = b_join(&p, &[(seed_key.purpose.clone(), vec![forged])]);
    p.inject(&env);
    let mut d = honest_pair();
    p.run_until(&mut d, |p| p.sessions[1].engine().is_over());
    // B's own session cannot open the seed it committed to: it skips that opening and
    // closes. B holds that back and sends A a reveal that opens the committed seed.
    hold_back(&mut p, B);
    let mut reveal = vec![];
    for key in p.sessions[0].engine().unopened(B) {
        if key == seed_key {
            reveal.push(Item::Open(Open {
                purpose: key.purpose.clone(),
                index: 0,
                nonce: seed_nonce,
                value: other_seed.to_vec(),
            }));
        } else {
            reveal.push(p.opening(B, key.purpose.clone(), key.index));
        }
    }
    let env = p.forge_after(B, A, reveal);
    p.deliver_to(A, &env);
    done(p, B, FaultKind::DealNotFromSeed)
}

/// The seat that won on the board opens its last commitment with a changed value.
pub fn changed_reveal() -> Cheat {
    let (mut p, cheater) = ended_with(100, |r, s| r[s.index()] == SeatResult::Win);
    let reveal_env = p.sessions[cheater.index()]
        .engine()
        .stored()
        .0
        .into_iter()
        .filter(|e| e.at().chain == ChainId::public(cheater))
        .filter(|e| !e.unsigned().body.iter().any(|i| matches!(i, Item::Act(_))))
        .find(|e| {
            e.unsigned()
                .body
                .iter()
                .any(|i| matches!(i, Item::Open(o) if o.purpose != Purpose::Coin))
        })
        .expect("the cheater revealed")
        .clone();
    hold_back(&mut p, cheater);
    let mut unsigned = reveal_env.env.unsigned.clone();
    if let Some(Item::Open(o)) = unsigned
        .body
        .iter_mut()
        .find(|i| matches!(i, Item::Open(_)))
    {
        o.value[0] ^= 1;
    }
    let forged = Pair::<Duel>::sign(cheater, unsigned);
    p.deliver_to(duel::other(cheater), &forged);
    done(p, cheater, FaultKind::OpeningMismatch)
}

/// B signs two different envelopes at one position.
pub fn equivocation() -> Cheat {
    let mut p = new_pair(9);
    until_turn(&mut p, A, 1);
    let one = p.forge(B, vec![Item::OfferDraw]);
    let claim = sealed_protocol::body::Claim {
        against: A,
        kind: sealed_protocol::body::ClaimKind::Timeout,
    };
    let two = p.forge(B, vec![Item::Claim(claim)]);
    p.inject(&one);
    p.inject(&two);
    done(p, B, FaultKind::Equivocation)
}

/// B plays when A is to act.
pub fn out_of_turn() -> Cheat {
    let mut p = new_pair(10);
    until_turn(&mut p, A, 1);
    let slot = p.sessions[1].hand(&duel::deck())[0].0;
    let env = true_play(&p, B, slot);
    p.inject(&env);
    done(p, B, FaultKind::OutOfTurn)
}

/// B acknowledges less of A's chain than it already had.
pub fn backward_ack() -> Cheat {
    let mut p = new_pair(11);
    until_turn(&mut p, A, 2);
    let mut env = p.forge(B, vec![Item::OfferDraw]).env.unsigned;
    let first = p.sessions[1]
        .engine()
        .envelope(EnvRef {
            chain: ChainId::public(A),
            seq: 0,
        })
        .expect("A#0")
        .hash;
    if let Some(ack) = env.acks.iter_mut().find(|a| a.chain == ChainId::public(A)) {
        *ack = Ack {
            chain: ChainId::public(A),
            seq: 0,
            hash: first,
        };
    }
    let env = Pair::<Duel>::sign(B, env);
    p.inject(&env);
    done(p, B, FaultKind::BackwardAck)
}

/// B signs an envelope whose prev names no envelope of its chain.
pub fn wrong_previous() -> Cheat {
    let mut p = new_pair(12);
    until_turn(&mut p, A, 1);
    let mut env = p.forge(B, vec![Item::OfferDraw]).env.unsigned;
    env.prev = Hash([0xee; 32]);
    let env = Pair::<Duel>::sign(B, env);
    p.inject(&env);
    done(p, B, FaultKind::WrongPrevious)
}

/// B opens its dealer seed in the middle of the game.
pub fn early_reveal() -> Cheat {
    let mut p = new_pair(13);
    until_turn(&mut p, A, 1);
    let env = p.forge(B, vec![p.opening(B, Purpose::DealSeed(duel::deck()), 0)]);
    p.inject(&env);
    done(p, B, FaultKind::EarlyReveal)
}

/// B closes while the game is on.
pub fn close_before_end() -> Cheat {
    let mut p = new_pair(14);
    until_turn(&mut p, A, 1);
    let env = p.forge(B, vec![Item::Close]);
    p.inject(&env);
    done(p, B, FaultKind::CloseBeforeEnd)
}

/// A opens one slot and plays another.
pub fn illegal_act() -> Cheat {
    let mut p = new_pair(15);
    until_turn(&mut p, A, 0);
    let hand = p.sessions[0].hand(&duel::deck());
    let open = p.opening(A, Purpose::Deck(duel::deck()), hand[0].0);
    let env = p.forge(
        A,
        vec![
            open,
            Item::Act(wire::encode(&Act::Play { slot: hand[1].0 })),
        ],
    );
    p.inject(&env);
    done(p, A, FaultKind::IllegalAct)
}

/// A's act bytes decode as nothing.
pub fn undecodable_act() -> Cheat {
    let mut p = new_pair(16);
    until_turn(&mut p, A, 0);
    let env = p.forge(A, vec![Item::Act(vec![9, 9, 9])]);
    p.inject(&env);
    done(p, A, FaultKind::UndecodableAct)
}

/// B copies A's coin commitment, and when A reveals, "opens" it with A's opening: the
/// commitment is bound to A's seat, so it cannot be B's.
pub fn copied_commitment() -> Cheat {
    let mut p = new_pair(17);
    p.deliver();
    let a_first = p.sessions[1]
        .engine()
        .envelope(EnvRef {
            chain: ChainId::public(A),
            seq: 0,
        })
        .expect("A#0")
        .clone();
    let a_coin = a_first
        .unsigned()
        .body
        .iter()
        .find_map(|i| match i {
            Item::Commit(c) if c.purpose == Purpose::Coin => Some(c.hashes.clone()),
            _ => None,
        })
        .expect("A's coin commitment");
    let env = b_join(&p, &[(Purpose::Coin, a_coin)]);
    p.inject(&env);
    // A reveals (its session does so itself once it sees B's commitments).
    let mut d: [Decide<Duel>; 2] = [honest(), Box::new(|_| None)];
    p.run_until(&mut d, |p| p.sessions[1].engine().coin_revealed(A));
    let Some(Item::Open(a_open)) = ({
        let e = p.sessions[1].engine();
        let at = (0..e.processed(ChainId::public(A)))
            .map(|seq| EnvRef {
                chain: ChainId::public(A),
                seq,
            })
            .find(|at| {
                e.envelope(*at).is_some_and(|x| {
                    x.unsigned()
                        .body
                        .iter()
                        .any(|i| matches!(i, Item::Open(o) if o.purpose == Purpose::Coin))
                })
            })
            .expect("A's coin reveal");
        e.envelope(at)
            .expect("held")
            .unsigned()
            .body
            .iter()
            .find(|i| matches!(i, Item::Open(_)))
            .cloned()
    }) else {
        panic!("no opening")
    };
    let env = p.forge(B, vec![Item::Open(a_open)]);
    p.inject(&env);
    done(p, B, FaultKind::OpeningMismatch)
}

/// A reveals its coin seed before B committed. Returns the pair where an honest B
/// refuses to join, and the pair where B joins anyway (committing after seeing it).
pub fn premature_reveal() -> (Pair<Duel>, Pair<Duel>) {
    let build = || {
        let mut p = new_pair(17);
        p.deliver();
        let env = p.forge(A, vec![p.opening(A, Purpose::Coin, 0)]);
        p.inject(&env);
        p
    };
    let mut honest_b = build();
    finish(&mut honest_b);
    let mut joining = build();
    let env = b_join(&joining, &[]);
    joining.inject(&env);
    finish(&mut joining);
    (honest_b, joining)
}

/// Builds a cheat scenario.
pub type Build = fn() -> Cheat;

/// Every cheat scenario by name, for tests and vectors.
pub fn all_cheats() -> Vec<(&'static str, Build)> {
    vec![
        ("slot-never-dealt", slot_never_dealt),
        ("slot-used-twice", slot_used_twice),
        ("card-from-two-slots", card_from_two_slots),
        ("card-not-on-list", card_not_on_list),
        ("index-repeated", index_repeated),
        ("over-dealt", over_dealt),
        ("deal-not-from-seed", deal_not_from_seed),
        ("changed-reveal", changed_reveal),
        ("equivocation", equivocation),
        ("out-of-turn", out_of_turn),
        ("backward-ack", backward_ack),
        ("wrong-previous-hash", wrong_previous),
        ("early-reveal", early_reveal),
        ("close-before-end", close_before_end),
        ("illegal-act", illegal_act),
        ("undecodable-act", undecodable_act),
        ("copied-commitment", copied_commitment),
    ]
}

/// The seat's live verdict, after checking that the offline check of its transcript says
/// the same.
pub fn judged<R: sealed_protocol::rules::Rules>(
    p: &Pair<R>,
    seat: Seat,
) -> sealed_protocol::verdict::Verdict {
    let live = p.sessions[seat.index()].verdict();
    let offline = sealed_games::variant::check_transcript(&p.transcript(seat)).expect("readable");
    assert_eq!(
        offline.verdict, live,
        "offline verdict differs from the live one"
    );
    live
}

/// `kind` against `cheater` and nobody else, in the other seat's verdict (live and
/// offline alike); the cheater loses, the other wins.
pub fn assert_caught<R: sealed_protocol::rules::Rules>(
    p: &Pair<R>,
    cheater: Seat,
    kind: FaultKind,
) -> sealed_protocol::verdict::Verdict {
    use sealed_protocol::verdict::Status;
    let honest = Seat(1 - cheater.0);
    let v = judged(p, honest);
    assert_eq!(v.status, Status::ProvenFault, "{v:#?}");
    assert!(
        v.faults.iter().any(|f| f.seat == cheater && f.kind == kind),
        "no {kind} against {cheater}: {v:#?}"
    );
    assert!(v.faults.iter().all(|f| f.seat == cheater), "{v:#?}");
    let o = v.outcome.as_ref().expect("adjudicated");
    assert_eq!(o.results[cheater.index()], SeatResult::Loss);
    assert_eq!(o.results[honest.index()], SeatResult::Win);
    v
}
