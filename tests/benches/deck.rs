//! The cost of a secret deck (issue 34): a 68-card secret deck committed, 5 cards dealt
//! blind, opened, verified, signatures included — with the envelopes the nodes really
//! send, printed as a multiple of one strict Ed25519 verification measured in the same
//! run (goal <= 12x).
//!
//! The envelopes are what two `Session<Tempete>` seats in lock-step emit (`pair.rs`)
//! for a Tempête with the default options (the open deck of 68 cards, hands of 5) in
//! which White resigns as soon as he is to act: each player commits his own 68-card
//! deck and the seed with which he deals the other's, each deals the other 5 slots
//! blind, and once the game is over each opens every slot of his deck (the 5 dealt and
//! the 63 others: that is what proves the deck a permutation of the list,
//! spec/PROTOCOL.md §8.5.2) — in version 2 with one `OpenDeck` from the seed of the
//! deck's salts and order (§17.17) — and his dealing seed (which proves the deal blind,
//! §8.7.3).
//! So the file holds two decks, and beside them only the coin, the resignation and the
//! closes; the bench prints every envelope's items so that the claim can be read.
//!
//! Measured in alternation, one call each per round, medians over the rounds:
//! - **verify**: `check_transcript` (decode, strict signatures, chains, commitments,
//!   deal-stream replay, verdict) of the file without its closes (the envelopes that
//!   carry the decks, and the resignation the end-of-game openings need) and of the
//!   whole file, each against one `PublicKey::verify`, with the share of reading and
//!   signatures apart;
//! - **produce**: the whole lock-step game (both seats derive, commit, build, sign,
//!   check against their engine, send, receive and verify) against one
//!   `SecretKey::sign` and one verify;
//! - **mental poker** for the same deck and deal (`common/poker.rs`, the `ziffle`
//!   crate): verifying and producing one 68-card deck shuffled by both players with
//!   proofs and 5 cards read by each.
//!
//! `cargo bench -p sealed-conformance --bench deck` runs it (`-- --quick`: fewer
//! rounds); `cargo test --benches` runs the workload once as a check, without timing.

use std::hint::black_box;

mod common {
    pub mod alternate;
    pub mod poker;
}

use common::alternate::alternate;

use sealed_conformance::pair::{Decide, Pair};
use sealed_conformance::show_kit::tempete_terms_v2;
use sealed_conformance::sim::test_key;
use sealed_conformance::transcript_size::item_kind;
use sealed_games::tempete::rules::Tempete;
use sealed_games::variant::check_transcript;
use sealed_protocol::body::{Item, Purpose};
use sealed_protocol::envelope::{Envelope, Signed};
use sealed_protocol::ids::Seat;
use sealed_protocol::keys::Signature;
use sealed_protocol::proposal::Terms;
use sealed_protocol::session::{Command, Session};
use sealed_protocol::transcript::TranscriptFile;

/// Cards in the default deck, and the hand.
const CARDS: usize = 68;
const HAND: usize = 5;

/// The lock-step game: White resigns at his first turn; both seats then reveal and close.
fn game() -> Pair<Tempete> {
    // Version 2, as every node makes a game now: each deck opened whole after it.
    let mut p: Pair<Tempete> = Pair::new(tempete_terms_v2(&[], 1), 7);
    let white: Decide<Tempete> = Box::new(|s: &Session<Tempete>| {
        (s.engine().to_act() == Some(Seat(0))).then_some(Command::Resign)
    });
    let black: Decide<Tempete> = Box::new(|_: &Session<Tempete>| None);
    p.run(&mut [white, black]);
    p
}

/// The file the game leaves, checked: verified, both decks whole and opened, 5 dealt
/// to each player.
fn workload() -> Workload {
    let p = game();
    assert!(p.refused.is_empty(), "{:?}", p.refused);
    let bytes = p.transcript(Seat(0));
    assert_eq!(
        bytes,
        p.transcript(Seat(1)),
        "both seats hold the same file"
    );
    let checked = check_transcript(&bytes).expect("checkable");
    assert_eq!(checked.exit_code(), 0, "{:#?}", checked.verdict);
    let file = TranscriptFile::from_bytes(&bytes).expect("readable");
    let game = Terms::parse(&file.proposal).expect("terms").game();
    let (mut deck_hashes, mut deck_opens, mut dealt) = (0, 0, 0);
    println!(
        "workload: Tempête, default options ({CARDS}-card open deck, hands of {HAND}), White \
         resigns at his first turn: {} envelopes, {} bytes, outcome {:?}",
        file.envelopes.len(),
        bytes.len(),
        checked.verdict.outcome.as_ref().map(|o| &o.reason)
    );
    for e in &file.envelopes {
        let env = Envelope::decode(e, game).expect("envelope");
        let u = &env.unsigned;
        let mut said: Vec<String> = vec![];
        let mut opens = 0;
        for item in &u.body {
            match item {
                Item::Commit(c) => {
                    if matches!(c.purpose, Purpose::Deck(_)) {
                        deck_hashes += c.hashes.len();
                    }
                    said.push(format!("commit {:?} x{}", c.purpose, c.hashes.len()));
                }
                Item::Deal(d) => {
                    dealt += d.slots.len();
                    said.push(format!(
                        "deal {} slots of {}'s deck",
                        d.slots.len(),
                        d.owner
                    ));
                }
                Item::Open(o) if matches!(o.purpose, Purpose::Deck(_)) => {
                    deck_opens += 1;
                    opens += 1;
                }
                // Every slot not opened in play (here: all of them).
                Item::OpenDeck(_) => {
                    deck_opens += CARDS;
                    said.push("open the whole deck from its seed".into());
                }
                other => said.push(item_kind(other).to_owned()),
            }
        }
        if opens > 0 {
            said.push(format!("open {opens} deck slots"));
        }
        println!(
            "  {} seq {} ({} bytes, {} acks): {}",
            u.seat,
            u.seq,
            e.len(),
            u.acks.len(),
            said.join(", ")
        );
    }
    assert_eq!(deck_hashes, 2 * CARDS, "two decks committed");
    assert_eq!(deck_opens, 2 * CARDS, "every slot of both decks opened");
    assert_eq!(dealt, 2 * HAND, "a hand dealt to each player");
    // The same file without the closes: what carries the decks and nothing after them.
    let decks = TranscriptFile {
        envelopes: file
            .envelopes
            .iter()
            .filter(|e| {
                let env = Envelope::decode(e, game).expect("envelope");
                env.unsigned.body != [Item::Close]
            })
            .cloned()
            .collect(),
        ..file
    }
    .to_bytes();
    let c = check_transcript(&decks).expect("checkable");
    assert!(c.verdict.faults.is_empty() && c.unsigned.is_empty());
    println!(
        "without the closes: {} envelopes, {} bytes, exit code {} (no close: not a finished \
         transcript, every deck item judged)",
        TranscriptFile::from_bytes(&decks)
            .expect("readable")
            .envelopes
            .len(),
        decks.len(),
        c.exit_code()
    );
    Workload { game: bytes, decks }
}

/// The two files the bench verifies.
struct Workload {
    /// The whole game.
    game: Vec<u8>,
    /// The game without its closes.
    decks: Vec<u8>,
}

fn verify(bytes: &[u8]) {
    let checked = check_transcript(black_box(bytes)).expect("checkable");
    assert!(checked.verdict.faults.is_empty());
    black_box(checked);
}

/// What a check does before judging anything: read the file, verify the proposal and
/// every envelope (decode, strict signature, hash).
fn parse(bytes: &[u8]) {
    let file = TranscriptFile::from_bytes(black_box(bytes)).expect("readable");
    let terms = Terms::parse(&file.proposal).expect("terms");
    for e in &file.envelopes {
        black_box(Signed::parse(&terms, e).expect("signed"));
    }
}

/// Signatures a file holds: its envelopes' and the proposal's.
fn signatures(bytes: &[u8]) -> usize {
    TranscriptFile::from_bytes(bytes)
        .expect("readable")
        .envelopes
        .len()
        + 1
}

/// One strict signature check, over a real envelope's signed bytes.
struct OneSignature {
    key: sealed_protocol::keys::PublicKey,
    message: Vec<u8>,
    sig: Signature,
}

fn one_signature(bytes: &[u8]) -> OneSignature {
    let file = TranscriptFile::from_bytes(bytes).expect("readable");
    let game = Terms::parse(&file.proposal).expect("terms").game();
    let e = &*sealed_protocol::envelope::full_form(&file.envelopes[0], game);
    let env = Envelope::decode(&file.envelopes[0], game).expect("envelope");
    let mut message = b"sealed/v1/sign/envelope\x00".to_vec();
    message.extend_from_slice(&e[..e.len() - 64]);
    let key = test_key(env.unsigned.seat.0).public();
    assert!(key.verify(&message, &env.sig), "a valid signature");
    OneSignature {
        key,
        message,
        sig: env.sig,
    }
}

fn main() {
    let w = workload();
    // `cargo bench` passes `--bench`; `cargo test --benches` does not, and only checks
    // the workload.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let quick = std::env::args().any(|a| a == "--quick");
    let rounds = if quick { 100 } else { 1000 };
    let one = one_signature(&w.game);
    let verify_one = || {
        assert!(one.key.verify(black_box(&one.message), black_box(&one.sig)));
    };
    for (what, bytes) in [
        (
            "the envelopes that carry the two decks (closes left out)",
            &w.decks,
        ),
        ("the whole game (closes included)", &w.game),
    ] {
        let v = alternate(rounds, || verify(bytes), verify_one);
        let (check, sig) = (v.median_a(), v.median_b());
        println!(
            "verify {what}: two {CARDS}-card decks committed, {HAND} dealt blind to each \
             player, opened, verified, signatures included / one strict verify = {:.1}x \
             (goal <= 12x): medians {:.1} µs / {:.1} µs over {rounds} alternating rounds, \
             median per-round ratio {:.1}x; the file holds {} signatures (floor {}x)",
            check / sig,
            check * 1e6,
            sig * 1e6,
            v.median,
            signatures(bytes),
            signatures(bytes),
        );
        let s = alternate(rounds, || parse(bytes), verify_one);
        println!(
            "  of which reading and signatures (the file, Terms::parse and Signed::parse of \
             every envelope: decode, strict verify, hash) = {:.1}x, the rest (chains, \
             commitments, deal streams, rules, verdict) about {:.1}x",
            s.median_a() / s.median_b(),
            (check - s.median_a()) / sig,
        );
    }

    let key = test_key(0);
    let sign_one = || {
        black_box(key.sign(black_box(&one.message)));
    };
    let produce = || {
        black_box(game());
    };
    let prounds = rounds / 4;
    let p = alternate(prounds, produce, sign_one);
    let q = alternate(prounds, produce, verify_one);
    println!(
        "produce the whole game in lock-step (both seats derive, commit, build, sign, check \
         against their engine, receive and verify) / one sign = {:.1}x, / one strict verify \
         = {:.1}x: medians {:.1} µs, one sign {:.1} µs, one verify {:.1} µs over {prounds} \
         alternating rounds each; the game signs {} envelopes",
        p.median_a() / p.median_b(),
        q.median_a() / q.median_b(),
        p.median_a() * 1e6,
        p.median_b() * 1e6,
        q.median_b() * 1e6,
        signatures(&w.game) - 1,
    );

    // Mental poker, the same deck and deal: one shared 68-card deck shuffled by both
    // players with proofs, 5 cards read by each.
    let dealt = common::poker::produce(1);
    let mut cards = common::poker::verify(&dealt);
    cards.sort_unstable();
    cards.dedup();
    assert_eq!(cards.len(), 2 * common::poker::HAND);
    assert!(cards.iter().all(|c| *c < common::poker::CARDS));
    let ours = alternate(rounds / 10, || verify(&w.decks), verify_one).median_a();
    let mrounds = if quick { 5 } else { 30 };
    let m = alternate(
        mrounds,
        || {
            black_box(common::poker::verify(black_box(&dealt)));
        },
        verify_one,
    );
    println!(
        "mental poker (ziffle {}, Bayer-Groth shuffle proofs, secp256k1): verify one \
         {}-card deck shuffled by both players, {} cards read by each (2 key proofs, 2 \
         shuffle proofs, {} token proofs), no signatures / one strict verify = {:.0}x: median \
         {:.1} ms over {mrounds} alternating rounds; {:.0}x our verification of the two decks \
         ({:.1} µs, measured again here)",
        ZIFFLE,
        common::poker::CARDS,
        common::poker::HAND,
        4 * common::poker::HAND,
        m.median_a() / m.median_b(),
        m.median_a() * 1e3,
        m.median_a() / ours,
        ours * 1e6,
    );
    let mut seed = 1;
    let mp = alternate(
        mrounds / 3,
        || {
            seed += 1;
            black_box(common::poker::produce(seed));
        },
        sign_one,
    );
    println!(
        "mental poker, produce the same (keys, 2 proven shuffles, {} reveal tokens with \
         proofs; each player checks the other's key and shuffle proofs) / one sign = {:.0}x: median {:.1} ms over \
         {} alternating rounds",
        4 * common::poker::HAND,
        mp.median_a() / mp.median_b(),
        mp.median_a() * 1e3,
        mrounds / 3,
    );
}

/// The version of the mental-poker crate measured (tests/Cargo.toml).
const ZIFFLE: &str = "0.1";
