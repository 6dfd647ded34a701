//! Robustness: hostile bytes never panic a decoder or the verifier, damaged transcripts
//! are judged for what is left of them, and nothing a seat did not sign can be held
//! against it.
//!
//! Every property starts from one real, finished and verified game of Duel, built once.
//! Three facts drive the expectations below:
//! - a validly signed envelope is exactly one an honest seat signed (signatures are
//!   unforgeable and strict), so damaging bytes can only *remove* envelopes;
//! - missing envelopes prove nothing: a transcript with envelopes removed is at worst
//!   unconfirmed, never a proven fault;
//! - the verdict depends only on the acknowledgement graph, never on arrival order.

use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::sample::{Index, select};
use proptest::test_runner::Config;

use sealed_conformance::duel_kit::{duel_terms, random_bot};
use sealed_conformance::sim::{NetConfig, Sim, test_key};
use sealed_games::duel::{self, Duel};
use sealed_games::variant::{CheckError, check_transcript};
use sealed_protocol::body::{Claim, ClaimKind, Item};
use sealed_protocol::engine::{Engine, InsertError};
use sealed_protocol::envelope::{Envelope, Signed, Unsigned};
use sealed_protocol::fault::FaultKind;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::Seat;
use sealed_protocol::proposal::Terms;
use sealed_protocol::transcript::{
    Checked, Evidence, FraudProof, MAGIC, TranscriptError, TranscriptFile,
};
use sealed_protocol::verdict::{Status, Verdict, verdict};
use sealed_protocol::wire::{self, MAX_MESSAGE};

/// The finished game every property starts from.
struct Fixture {
    rules: Duel,
    terms: Terms,
    /// The transcript file as exported by seat 0.
    bytes: Vec<u8>,
    file: TranscriptFile,
    /// The same envelopes, decoded.
    envs: Vec<Envelope>,
    checked: Checked,
    /// The score text of the game.
    score: String,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        // Small enough that a check costs about a millisecond, big enough to hold deals,
        // refills, plays, reveals and the two-step close.
        let rules = Duel { cards: 4, hand: 2 };
        let terms = duel_terms(&rules, 1);
        let mut sim = Sim::new(
            terms.clone(),
            vec![random_bot(), random_bot()],
            NetConfig::perfect(),
            1,
        );
        sim.run(10_000_000);
        assert!(sim.quiet(), "the fixture game did not finish");
        let bytes = sim.transcripts().swap_remove(0);
        let file = TranscriptFile::from_bytes(&bytes).expect("readable");
        assert!(file.evidence.is_empty());
        let envs = file
            .envelopes
            .iter()
            .map(|b| wire::decode::<Envelope>(b, MAX_MESSAGE).expect("envelope"))
            .collect();
        let checked = check_transcript(&bytes).expect("checkable");
        assert_eq!(checked.exit_code(), 0, "{:#?}", checked.verdict);
        assert_eq!(checked.verdict.status, Status::Verified);
        assert!(checked.verdict.faults.is_empty());
        let engine = sim.sessions[0].engine();
        let leader = Duel::first_leader(engine.coin().expect("coin"));
        let score = duel::score_text(&rules, leader, engine.state().expect("state"));
        Fixture {
            rules,
            terms,
            bytes,
            file,
            envs,
            checked,
            score,
        }
    })
}

fn fresh_engine() -> Engine<Duel> {
    Engine::new(fixture().terms.clone()).expect("duel terms")
}

/// Proptest settings: `n` cases (or `PROPTEST_CASES` for a longer soak), and no
/// regression files written into the source tree (a failure prints its minimal input;
/// pin it as a unit test).
fn cases(n: u32) -> Config {
    let n = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(n);
    Config {
        cases: n,
        failure_persistence: None,
        ..Config::default()
    }
}

fn with_envelopes(envelopes: Vec<Vec<u8>>) -> Vec<u8> {
    TranscriptFile {
        proposal: fixture().file.proposal.clone(),
        envelopes,
        evidence: vec![],
    }
    .to_bytes()
}

/// A check that must succeed: the container and the proposal are intact.
fn must_check(bytes: &[u8]) -> Checked {
    match check_transcript(bytes) {
        Ok(c) => c,
        Err(e) => panic!("an intact container was refused: {e}"),
    }
}

/// The verdict of inserting envelope bytes into a fresh engine in exactly this order.
fn verdict_in_order<'a>(order: impl IntoIterator<Item = &'a [u8]>) -> Verdict {
    let mut engine = fresh_engine();
    for bytes in order {
        // Refusals (bad signatures, far-ahead envelopes) leave the engine unchanged.
        let _ = engine.insert(bytes);
    }
    verdict(&engine)
}

/// Indices `0..n` in the order a proptest shuffle picks.
fn permutation(n: usize) -> impl Strategy<Value = Vec<usize>> {
    Just((0..n).collect::<Vec<_>>()).prop_shuffle()
}

fn envelope_count() -> usize {
    fixture().file.envelopes.len()
}

// ----- 1. random bytes -----

proptest! {
    #![proptest_config(cases(512))]

    #[test]
    fn random_bytes_never_panic_a_decoder(bytes in prop::collection::vec(any::<u8>(), 0..700)) {
        let fx = fixture();
        // Decoding may succeed on a lucky input; it must not panic, and whatever it
        // accepts must be canonical.
        if let Ok(env) = wire::decode::<Envelope>(&bytes, MAX_MESSAGE) {
            prop_assert_eq!(wire::encode(&env), bytes.clone());
        }
        // Read as a version 2 envelope would be (its game id put back), the same.
        if let Ok(env) = Envelope::decode(&bytes, fx.terms.game()) {
            prop_assert_eq!(env.to_travelling(), bytes.clone());
        }
        // Nobody can produce a signature by chance.
        prop_assert!(Terms::parse(&bytes).is_err());
        prop_assert!(Signed::parse(&fx.terms, &bytes).is_err());
        prop_assert!(matches!(
            fresh_engine().insert(&bytes),
            Err(InsertError::Envelope(_))
        ));
        if !bytes.starts_with(MAGIC) {
            prop_assert!(matches!(TranscriptFile::from_bytes(&bytes), Err(TranscriptError::Magic | TranscriptError::Text)));
            prop_assert!(matches!(
                check_transcript(&bytes),
                Err(CheckError::Transcript(TranscriptError::Magic | TranscriptError::Text))
            ));
        }
        // Past the magic, the container decoder and the checker see the random bytes.
        let mut file = MAGIC.to_vec();
        file.extend_from_slice(&bytes);
        let _ = TranscriptFile::from_bytes(&file);
        if let Ok(c) = check_transcript(&file) {
            // The proposal cannot be validly signed, so no file gets this far.
            prop_assert!(false, "random bytes checked as a transcript: {:?}", c.verdict);
        }
    }

    #[test]
    fn random_envelopes_in_a_real_container_never_panic(
        picks in prop::collection::vec((any::<Index>(), prop::collection::vec(any::<u8>(), 0..300), any::<bool>()), 0..12),
    ) {
        // Real proposal, a mix of real envelopes and random bytes.
        let fx = fixture();
        let mut envelopes = vec![];
        let mut garbage = 0;
        for (i, junk, real) in picks {
            if real {
                envelopes.push(fx.file.envelopes[i.index(envelope_count())].clone());
            } else {
                envelopes.push(junk);
                garbage += 1;
            }
        }
        let c = must_check(&with_envelopes(envelopes));
        prop_assert_eq!(c.unsigned.len(), garbage);
        prop_assert!(c.verdict.faults.is_empty(), "{:#?}", c.verdict.faults);
        prop_assert_eq!(c.exit_code(), if garbage > 0 { 2 } else { c.verdict.exit_code() });
    }

    #[test]
    fn random_text_never_panics_the_duel_replay(text in any::<String>()) {
        let _ = duel::replay(&text);
    }

    #[test]
    fn score_like_text_never_panics_the_duel_replay(
        text in "(\\[(Cards|Hand|Leader|Event) \"?[0-9]{0,11}\"?\\]?\n){0,4}\
                 ([0-9]{0,11}\\.? {0,2}[0-9]{0,3} [0-9]{0,11} ?){0,12}\
                 (\\{[^}]{0,5}\\}?)?(1-0|0-1|1/2-1/2|\\*)?",
    ) {
        if let Err(e) = duel::replay(&text) {
            prop_assert!(matches!(e.exit_code(), 1 | 2));
        }
    }
}

#[test]
fn the_fixture_score_replays() {
    let fx = fixture();
    let r = duel::replay(&fx.score).expect("the game's own score replays");
    assert_eq!(r.plies, 2 * fx.rules.cards as usize);
    let outcome = fx.checked.verdict.outcome.as_ref().expect("finished");
    assert_eq!(r.result.as_deref(), Some(outcome.to_string().as_str()));
}

// ----- 2. mutated transcripts -----

/// One change to the bytes of a file.
#[derive(Clone, Debug)]
enum ByteEdit {
    Flip(Index, u8),
    Truncate(Index),
    Insert(Index, Vec<u8>),
    Remove(Index, u8),
}

fn byte_edit() -> impl Strategy<Value = ByteEdit> {
    prop_oneof![
        4 => (any::<Index>(), 0u8..8).prop_map(|(i, b)| ByteEdit::Flip(i, b)),
        1 => any::<Index>().prop_map(ByteEdit::Truncate),
        2 => (any::<Index>(), prop::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(i, v)| ByteEdit::Insert(i, v)),
        2 => (any::<Index>(), 1u8..8).prop_map(|(i, n)| ByteEdit::Remove(i, n)),
    ]
}

fn apply(bytes: &mut Vec<u8>, edit: &ByteEdit) {
    match edit {
        ByteEdit::Flip(i, bit) => {
            let i = i.index(bytes.len());
            bytes[i] ^= 1 << bit;
        }
        ByteEdit::Truncate(i) => bytes.truncate(i.index(bytes.len())),
        ByteEdit::Insert(i, v) => {
            let i = i.index(bytes.len() + 1);
            bytes.splice(i..i, v.iter().copied());
        }
        ByteEdit::Remove(i, n) => {
            let i = i.index(bytes.len());
            let end = (i + usize::from(*n)).min(bytes.len());
            bytes.drain(i..end);
        }
    }
}

proptest! {
    #![proptest_config(cases(384))]

    #[test]
    fn damaged_file_bytes_never_prove_a_fault(
        edits in prop::collection::vec(byte_edit(), 1..4),
    ) {
        let mut bytes = fixture().bytes.clone();
        for e in &edits {
            if !bytes.is_empty() {
                apply(&mut bytes, e);
            }
        }
        // Damage can only remove validly signed envelopes, and a missing envelope
        // proves nothing: whatever is left may be unconfirmed, never a proven fault.
        if let Ok(c) = check_transcript(&bytes) {
            prop_assert!(c.verdict.faults.is_empty(), "{:#?}", c.verdict.faults);
            prop_assert_ne!(c.exit_code(), 1);
        }
    }

    #[test]
    fn reordering_and_duplicating_envelopes_changes_nothing(
        order in permutation(envelope_count()),
        dups in prop::collection::vec((any::<Index>(), any::<Index>()), 0..6),
    ) {
        let fx = fixture();
        let mut envelopes: Vec<Vec<u8>> =
            order.iter().map(|&i| fx.file.envelopes[i].clone()).collect();
        for (from, to) in dups {
            let e = envelopes[from.index(envelopes.len())].clone();
            envelopes.insert(to.index(envelopes.len() + 1), e);
        }
        let c = must_check(&with_envelopes(envelopes));
        prop_assert!(c.unsigned.is_empty(), "{:?}", c.unsigned);
        prop_assert_eq!(&c.verdict, &fx.checked.verdict);
        prop_assert_eq!(c.exit_code(), fx.checked.exit_code());
    }

    #[test]
    fn the_engine_is_order_independent(
        order in permutation(envelope_count()),
        dups in prop::collection::vec(any::<Index>(), 0..6),
    ) {
        // `check` inserts in sequence order; straight into the engine, any order at all
        // (an envelope long before its predecessors) must give the same verdict.
        let fx = fixture();
        let mut order: Vec<&[u8]> = order.iter().map(|&i| fx.file.envelopes[i].as_slice()).collect();
        for d in dups {
            order.push(order[d.index(order.len())]);
        }
        prop_assert_eq!(&verdict_in_order(order), &fx.checked.verdict);
    }

    #[test]
    fn a_flipped_bit_in_one_envelope_only_unsigns_it(
        which in any::<Index>(),
        at in any::<Index>(),
        bit in 0u8..8,
        order in permutation(envelope_count()),
    ) {
        let fx = fixture();
        let which = which.index(envelope_count());
        let mut envelopes = fx.file.envelopes.clone();
        let e = &mut envelopes[which];
        let at = at.index(e.len());
        e[at] ^= 1 << bit;
        let envelopes: Vec<Vec<u8>> = order.iter().map(|&i| envelopes[i].clone()).collect();
        let c = must_check(&with_envelopes(envelopes));
        prop_assert_eq!(c.unsigned.len(), 1, "{:?}", c.unsigned);
        // 1 only if a proven fault remains; the original has none and losing an
        // envelope cannot create one.
        let expected = if fx.checked.verdict.faults.is_empty() { 2 } else { 1 };
        prop_assert_eq!(c.exit_code(), expected, "{:#?}", c.verdict);
        prop_assert_eq!(&c.verdict.faults, &fx.checked.verdict.faults);
    }

    #[test]
    fn deleting_envelopes_never_proves_a_fault(
        delete in prop::collection::btree_set(0..envelope_count(), 1..4),
        order in permutation(envelope_count()),
    ) {
        let fx = fixture();
        let envelopes: Vec<Vec<u8>> = order
            .iter()
            .filter(|i| !delete.contains(i))
            .map(|&i| fx.file.envelopes[i].clone())
            .collect();
        let c = must_check(&with_envelopes(envelopes));
        prop_assert!(c.unsigned.is_empty(), "{:?}", c.unsigned);
        prop_assert!(c.verdict.faults.is_empty(), "deleted {:?}: {:#?}", delete, c.verdict.faults);
        prop_assert!(matches!(c.exit_code(), 0 | 3), "deleted {:?}: {:#?}", delete, c.verdict);
        prop_assert!(c.verdict.envelopes < fx.checked.verdict.envelopes);
    }

    #[test]
    fn false_evidence_changes_no_verdict(
        frauds in prop::collection::vec((any::<Index>(), select(fault_kinds())), 1..4),
    ) {
        // Evidence naming honest envelopes confirms nothing and blames nobody.
        let fx = fixture();
        let pick = |i: &Index| fx.file.envelopes[i.index(envelope_count())].clone();
        let mut file = fx.file.clone();
        for (i, kind) in &frauds {
            file.evidence.push(Evidence::Fraud(FraudProof { envelope: pick(i), kind: kind.clone() }));
        }
        let c = must_check(&file.to_bytes());
        prop_assert_eq!(&c.verdict, &fx.checked.verdict);
        prop_assert_eq!(c.unconfirmed_evidence.len(), frauds.len());
        prop_assert!(c.unsigned.is_empty());
    }
}

fn fault_kinds() -> Vec<FaultKind> {
    use FaultKind::*;
    vec![
        Equivocation,
        WrongPrevious,
        MalformedAck,
        BackwardAck,
        OutOfPhase,
        OpeningMismatch,
        SlotNeverDealt,
        SlotUsedTwice,
        OverDealt,
        DealNotFromSeed,
        OutOfTurn,
        IllegalAct,
        AfterClose,
        CloseBeforeEnd,
    ]
}

// ----- 2b. one seat signs tampered envelopes -----

/// One change a cheating seat makes to one of its own envelopes before re-signing it.
#[derive(Clone, Debug)]
enum Tamper {
    Seq(i8),
    PrevOf(Index),
    PrevZero,
    DropAck(Index),
    AckSeq(Index, i8),
    AckHashOf(Index, Index),
    Clock(u64),
    BodyOf(Index),
    ItemOf(Index, Index),
    DropItem(Index),
    Push(Item),
    /// Flips a bit in the first opened value, nonce, dealt slot or act of the body.
    Twiddle(Index, u8),
}

fn simple_item() -> impl Strategy<Value = Item> {
    prop_oneof![
        Just(Item::Accept),
        Just(Item::Decline),
        Just(Item::Resign),
        Just(Item::OfferDraw),
        Just(Item::AcceptDraw),
        Just(Item::Close),
        (
            0u8..3,
            prop_oneof![Just(ClaimKind::Timeout), Just(ClaimKind::Abandoned)]
        )
            .prop_map(|(s, kind)| Item::Claim(Claim {
                against: Seat(s),
                kind
            })),
        (0u32..6).prop_map(|slot| Item::Act(duel::play_bytes(slot))),
        prop::collection::vec(any::<u8>(), 0..6).prop_map(Item::Act),
    ]
}

fn tamper() -> impl Strategy<Value = Tamper> {
    prop_oneof![
        (-2i8..=2).prop_map(Tamper::Seq),
        any::<Index>().prop_map(Tamper::PrevOf),
        Just(Tamper::PrevZero),
        any::<Index>().prop_map(Tamper::DropAck),
        (any::<Index>(), -2i8..=2).prop_map(|(i, d)| Tamper::AckSeq(i, d)),
        (any::<Index>(), any::<Index>()).prop_map(|(i, j)| Tamper::AckHashOf(i, j)),
        any::<u64>().prop_map(Tamper::Clock),
        any::<Index>().prop_map(Tamper::BodyOf),
        (any::<Index>(), any::<Index>()).prop_map(|(i, j)| Tamper::ItemOf(i, j)),
        any::<Index>().prop_map(Tamper::DropItem),
        simple_item().prop_map(Tamper::Push),
        (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Tamper::Twiddle(i, b)),
    ]
}

fn tamper_with(u: &mut Unsigned, t: &Tamper, envs: &[Envelope]) {
    let env = |i: &Index| &envs[i.index(envs.len())];
    match t {
        Tamper::Seq(d) => u.seq = u.seq.saturating_add_signed(i64::from(*d)),
        Tamper::PrevOf(i) => u.prev = env(i).unsigned.hash(),
        Tamper::PrevZero => u.prev = Hash::ZERO,
        Tamper::DropAck(i) if !u.acks.is_empty() => {
            u.acks.remove(i.index(u.acks.len()));
        }
        Tamper::AckSeq(i, d) if !u.acks.is_empty() => {
            let k = i.index(u.acks.len());
            let a = &mut u.acks[k];
            a.seq = a.seq.saturating_add_signed(i64::from(*d));
        }
        Tamper::AckHashOf(i, j) if !u.acks.is_empty() => {
            let k = i.index(u.acks.len());
            u.acks[k].hash = env(j).unsigned.hash();
        }
        Tamper::Clock(c) => u.clock = *c,
        Tamper::BodyOf(i) => u.body = env(i).unsigned.body.clone(),
        Tamper::ItemOf(i, j) => {
            let body = &env(i).unsigned.body;
            if !body.is_empty() {
                u.body.push(body[j.index(body.len())].clone());
            }
        }
        Tamper::DropItem(i) if !u.body.is_empty() => {
            u.body.remove(i.index(u.body.len()));
        }
        Tamper::Push(item) => u.body.push(item.clone()),
        Tamper::Twiddle(i, b) => {
            let bit = 1 << (b % 8);
            for item in &mut u.body {
                match item {
                    Item::Open(o) if !o.value.is_empty() && b % 2 == 0 => {
                        let k = i.index(o.value.len());
                        o.value[k] ^= bit;
                        return;
                    }
                    Item::Open(o) => {
                        o.nonce[i.index(32)] ^= bit;
                        return;
                    }
                    Item::Deal(d) if !d.slots.is_empty() => {
                        let k = i.index(d.slots.len());
                        d.slots[k] ^= u32::from(bit);
                        return;
                    }
                    Item::Act(a) if !a.is_empty() => {
                        let k = i.index(a.len());
                        a[k] ^= bit;
                        return;
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// The fixture's envelopes with one re-signed after `tampers`, beside its original or
/// in its place, in the given order; and the seat that signed the tampered one.
fn tampered_set(
    victim: usize,
    tampers: &[Tamper],
    replace: bool,
    order: &[usize],
) -> (Seat, Signed, Vec<Vec<u8>>) {
    let fx = fixture();
    let mut u = fx.envs[victim].unsigned.clone();
    for t in tampers {
        tamper_with(&mut u, t, &fx.envs);
    }
    let cheat = u.seat;
    let forged = u.sign(&test_key(cheat.0));
    let mut envelopes = fx.file.envelopes.clone();
    envelopes.push(forged.bytes.clone());
    if replace {
        envelopes[victim] = vec![];
    }
    let envelopes = order
        .iter()
        .map(|&i| envelopes[i].clone())
        .filter(|e| !e.is_empty())
        .collect();
    (cheat, forged, envelopes)
}

proptest! {
    #![proptest_config(cases(192))]

    #[test]
    fn only_the_signer_of_a_tampered_envelope_can_be_blamed(
        victim in any::<Index>(),
        tampers in prop::collection::vec(tamper(), 1..4),
        replace in any::<bool>(),
        order in permutation(envelope_count() + 1),
    ) {
        let fx = fixture();
        let (cheat, forged, envelopes) = tampered_set(victim.index(envelope_count()), &tampers, replace, &order);
        let c = must_check(&with_envelopes(envelopes.clone()));
        // Everything is signed; only a store refusal (too far ahead) is possible.
        prop_assert!(
            c.unsigned.iter().all(|u| u.contains("ahead")),
            "{:?}", c.unsigned
        );
        for f in &c.verdict.faults {
            prop_assert_eq!(f.seat, cheat, "an honest seat was blamed: {:#?}", c.verdict.faults);
        }
        // The same envelopes straight into the engine, in file order and reversed: one
        // verdict whatever the arrival order. Two envelopes at one position are left to
        // `an_equivocation_is_judged_the_same_in_any_order` (known to fail today).
        let replaced = |e: &Envelope| replace && e.unsigned == fx.envs[victim.index(envelope_count())].unsigned;
        let twin = fx.envs.iter().any(|e| {
            e.unsigned.at() == forged.at() && e.unsigned.hash() != forged.hash && !replaced(e)
        });
        // Fault details are compared apart: see `fault_details_do_not_depend_on_order`.
        if !twin {
            let forward = verdict_in_order(envelopes.iter().map(Vec::as_slice));
            let backward = verdict_in_order(envelopes.iter().rev().map(Vec::as_slice));
            prop_assert_eq!(&without_details(&forward), &without_details(&backward));
            prop_assert_eq!(&without_details(&forward), &without_details(&c.verdict));
        }
    }
}

/// A verdict with the words of each fault left out (seat, position and kind stay).
fn without_details(v: &Verdict) -> Verdict {
    let mut v = v.clone();
    for f in &mut v.faults {
        f.detail.clear();
    }
    v
}

#[test]
fn an_equivocation_is_judged_the_same_in_any_order() {
    // Seat 0 signs its first envelope twice, the second time with another clock reading:
    // both link (prev is zero). Which branch a receiver follows depends on which it
    // held first (spec/PROTOCOL.md §15, "branch after an equivocation"), so the board
    // and the claims may differ; what must not differ is the judgement: the same
    // equivocation against the same seat, nobody else blamed, the same adjudicated result.
    let fx = fixture();
    let victim = fx
        .envs
        .iter()
        .position(|e| e.unsigned.seat == Seat(0) && e.unsigned.seq == 0)
        .expect("seat 0 #0");
    let order: Vec<usize> = (0..=envelope_count()).collect();
    let (_, _, envelopes) = tampered_set(victim, &[Tamper::Clock(1)], false, &order);
    let forward = verdict_in_order(envelopes.iter().map(Vec::as_slice));
    let backward = verdict_in_order(envelopes.iter().rev().map(Vec::as_slice));
    for v in [&forward, &backward] {
        assert!(v.faults.iter().all(|f| f.seat == Seat(0)), "{v:#?}");
        assert!(
            v.faults
                .iter()
                .any(|f| f.kind == sealed_protocol::fault::FaultKind::Equivocation),
            "{v:#?}"
        );
    }
    let results =
        |v: &sealed_protocol::verdict::Verdict| v.outcome.as_ref().map(|o| o.results.clone());
    assert_eq!(results(&forward), results(&backward));
    assert_eq!(forward.status, backward.status);
}

// ----- 3. envelope bytes are canonical and sealed -----

#[test]
fn every_envelope_reencodes_to_its_bytes() {
    let fx = fixture();
    for (i, bytes) in fx.file.envelopes.iter().enumerate() {
        let s = Signed::parse(&fx.terms, bytes).unwrap_or_else(|e| panic!("envelope {i}: {e}"));
        assert_eq!(&s.bytes, bytes, "envelope {i}");
        assert_eq!(&s.env.to_travelling(), bytes, "envelope {i}");
        assert_eq!(s.hash, s.env.unsigned.hash(), "envelope {i}");
        assert_eq!(s.env, fx.envs[i], "envelope {i}");
    }
    // The file too: decode and encode give back the exported bytes.
    assert_eq!(fx.file.to_bytes(), fx.bytes);
}

#[test]
fn every_single_bit_flip_unsigns_an_envelope() {
    let fx = fixture();
    for (i, bytes) in fx.file.envelopes.iter().enumerate() {
        for at in 0..bytes.len() {
            for bit in [0, 7] {
                let mut b = bytes.clone();
                b[at] ^= 1 << bit;
                assert!(
                    Signed::parse(&fx.terms, &b).is_err(),
                    "envelope {i}, byte {at}, bit {bit} still parses"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(cases(512))]

    #[test]
    fn any_changed_byte_unsigns_an_envelope(
        which in any::<Index>(),
        at in any::<Index>(),
        xor in 1u8..=255,
    ) {
        let fx = fixture();
        let mut bytes = fx.file.envelopes[which.index(envelope_count())].clone();
        let at = at.index(bytes.len());
        bytes[at] ^= xor;
        prop_assert!(Signed::parse(&fx.terms, &bytes).is_err());
    }
}

#[test]
fn fault_details_do_not_depend_on_order() {
    // Seat 0 re-signs its #3 (a refill deal) with the body of its #6 (a play) in place
    // of the original. Its act is out of turn in any order, but the words differ:
    // "did not see the act at seat 1 #4" in file order, "seat 0 is not to act" in
    // reverse, because the judge reads the last act accepted so far, not the last one
    // the envelope saw.
    let fx = fixture();
    let at = |seat: u8, seq: u64| {
        fx.envs
            .iter()
            .position(|e| e.unsigned.seat == Seat(seat) && e.unsigned.seq == seq)
            .expect("in the fixture")
    };
    let mut u = fx.envs[at(0, 3)].unsigned.clone();
    u.body = fx.envs[at(0, 6)].unsigned.body.clone();
    let forged = u.sign(&test_key(0));
    let mut envelopes = fx.file.envelopes.clone();
    envelopes[at(0, 3)] = forged.bytes;
    let forward = verdict_in_order(envelopes.iter().map(Vec::as_slice));
    let backward = verdict_in_order(envelopes.iter().rev().map(Vec::as_slice));
    assert_eq!(without_details(&forward), without_details(&backward));
    assert_eq!(forward.faults, backward.faults);
}
