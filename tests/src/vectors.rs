//! The conformance vectors of spec/vectors/: how each file is built. Only the explicit
//! generator (`cargo run -p sealed-conformance --bin gen-vectors`) writes them; the
//! tests read them and recompute, never rewrite.
//!
//! Over 800 lines on purpose: one function per file of spec/PROTOCOL.md §13.2, in the
//! table's order, so that a reader checks the spec's list against one file; the games'
//! and the witness's own builders are in their kits (`*_kit.rs`, `witness_vectors.rs`).

use curve25519_dalek::constants::{ED25519_BASEPOINT_POINT, EIGHT_TORSION};
use curve25519_dalek::edwards::CompressedEdwardsY;
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::IsIdentity;
use serde_json::{Value, json};
use sha2::{Digest, Sha512};

use sealed_games::duel::Duel;
use sealed_protocol::body::{Item, Purpose};
use sealed_protocol::commit::{CommitKey, card_value, commitment};
use sealed_protocol::derive::{self, DealStream};
use sealed_protocol::envelope::{Envelope, Signed};
use sealed_protocol::hash::{Framed, Hash};
use sealed_protocol::ids::{GameId, Name, Seat};
use sealed_protocol::keys::Signature;
use sealed_protocol::proposal::{Role, SeatSpec};
use sealed_protocol::random::Stream;
use sealed_protocol::transcript::TranscriptFile;
use sealed_protocol::wire;

use crate::duel_kit::duel_proposal;
use crate::pair::Pair;
use crate::scenarios::{self, A, B, honest_pair, new_pair};
use crate::sim::test_key;

/// Pinned 32 bytes derived from a label, so every input is reproducible.
pub fn pinned(label: &str) -> [u8; 32] {
    Framed::new("sealed/test/vector-input")
        .field(label.as_bytes())
        .finish()
        .0
}

fn h(b: &[u8]) -> String {
    hex::encode(b)
}

/// Readable form of a purpose, for people reading the vectors.
pub fn purpose_text(p: &Purpose) -> String {
    match p {
        Purpose::Coin => "coin".into(),
        Purpose::Deck(n) => format!("deck:{n}"),
        Purpose::DealSeed(n) => format!("deal-seed:{n}"),
        Purpose::Setup(n) => format!("setup:{n}"),
        Purpose::Value(n) => format!("value:{n}"),
        Purpose::DrawChain(n) => format!("draw-chain:{n}"),
    }
}

fn name(s: &str) -> Name {
    Name::new(s).expect("valid name")
}

/// commitments.json
pub fn commitments() -> Value {
    let game = GameId(Hash(pinned("game")));
    let cases: Vec<(u8, Purpose, u32, Vec<u8>)> = vec![
        (0, Purpose::Coin, 0, pinned("coin seed").to_vec()),
        (1, Purpose::Deck(name("cards")), 0, card_value(7).to_vec()),
        (1, Purpose::Deck(name("cards")), 67, card_value(72).to_vec()),
        (
            0,
            Purpose::DealSeed(name("cards")),
            1,
            pinned("deal seed").to_vec(),
        ),
        (
            1,
            Purpose::Setup(name("army")),
            0,
            pinned("setup seed").to_vec(),
        ),
        (0, Purpose::Value(name("square")), 3, vec![0x1c]),
        (0, Purpose::Value(name("empty")), 0, vec![]),
    ];
    let out: Vec<Value> = cases
        .into_iter()
        .enumerate()
        .map(|(i, (seat, purpose, index, value))| {
            let key = CommitKey {
                seat: Seat(seat),
                purpose: purpose.clone(),
                index,
            };
            let nonce = pinned(&format!("nonce {i}"));
            json!({
                "game": h(game.0.as_bytes()),
                "seat": seat,
                "purpose": purpose_text(&purpose),
                "purpose_bytes": h(&wire::encode(&purpose)),
                "index": index,
                "nonce": h(&nonce),
                "value": h(&value),
                "commitment": h(commitment(game, &key, &nonce, &value).as_bytes()),
            })
        })
        .collect();
    json!({
        "description": "C = H(\"sealed/v1/commit\", game id, [seat], postcard(purpose), index u32 LE, nonce, value), every field framed by its u32 LE length",
        "cases": out,
    })
}

/// random.json
pub fn random() -> Value {
    let keys = [
        Hash::ZERO,
        Hash(pinned("stream a")),
        Hash(pinned("stream b")),
    ];
    let streams: Vec<Value> = keys
        .iter()
        .map(|k| {
            let mut s = Stream::new(k);
            let words: Vec<u32> = (0..20).map(|_| s.next_u32()).collect();
            json!({ "key": h(k.as_bytes()), "words": words })
        })
        .collect();
    let below: Vec<Value> = [1u32, 2, 3, 7, 68, 960, 1 << 31, u32::MAX]
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let k = Hash(pinned(&format!("below {i}")));
            let mut s = Stream::new(&k);
            let values: Vec<u32> = (0..12).map(|_| s.below(*n)).collect();
            json!({ "key": h(k.as_bytes()), "n": n, "values": values })
        })
        .collect();
    let permutations: Vec<Value> = [1u32, 2, 9, 68]
        .iter()
        .map(|n| {
            let k = Hash(pinned(&format!("permutation {n}")));
            json!({ "key": h(k.as_bytes()), "n": n, "result": Stream::new(&k).permutation(*n) })
        })
        .collect();
    json!({
        "description": "RFC 8439 ChaCha20, key = the 32 bytes, nonce all zero, counter from 0, key stream as little-endian u32 words; below(n) by rejection; permutation(n) = Fisher-Yates from the top over 0..n",
        "streams": streams,
        "below": below,
        "permutations": permutations,
    })
}

/// derive.json
pub fn derive() -> Value {
    let game = GameId(Hash(pinned("game")));
    let seeds = [pinned("seed 0"), pinned("seed 1")];
    let coin = derive::coin(game, &seeds);
    let labels = ["duel/leader", "cardmate/setup"];
    let streams: Vec<Value> = labels
        .iter()
        .map(|l| {
            let mut s = derive::stream(&coin, l);
            json!({ "coin": h(coin.as_bytes()), "label": l, "words": (0..8).map(|_| s.next_u32()).collect::<Vec<_>>() })
        })
        .collect();
    let setup = derive::setup(
        game,
        Seat(1),
        &name("army"),
        &pinned("owner seed"),
        &seeds[0],
    );
    let deck = name("cards");
    let seed = pinned("dealer seed");
    let key = derive::deal_key(game, Seat(0), Seat(1), &deck, &seed);
    let mut stream = DealStream::new(&key, 68);
    let mut draws = vec![];
    let mut out: Vec<u32> = vec![];
    // Five opening slots, then refills, one of them skipping two slots granted away.
    for (count, excluded) in [
        (5usize, vec![]),
        (2, vec![]),
        (3, vec![40u32, 41]),
        (1, vec![40, 41]),
    ] {
        let got = stream.next(count, |s| excluded.contains(&s));
        out.extend(&got);
        draws.push(json!({ "count": count, "excluded": excluded, "slots": got }));
    }
    let pool = name("stack");
    let last = pinned("draw chain last");
    let chain: Vec<String> = (0..=3)
        .map(|i| {
            h(&derive::draw_chain_value(
                game,
                Seat(0),
                &pool,
                16,
                &last,
                i,
            ))
        })
        .collect();
    let v1 = derive::draw_chain_value(game, Seat(0), &pool, 16, &last, 1);
    let contribution = pinned("draw contribution");
    let pick = derive::draw_pick(game, Seat(0), &pool, 1, &v1, &contribution);
    json!({
        "description": "joint coin, named streams drawn from it, private seeded setup, a dealer's index stream with exclusions, and a public pool's draw chain and pick",
        "draw": [{
            "game": h(game.0.as_bytes()), "owner": 0, "pool": "stack", "draws": 16,
            "last": h(&last), "chain": chain,
            "contribution": h(&contribution), "pick_of_draw_1": h(pick.as_bytes()),
        }],
        "coin": [{ "game": h(game.0.as_bytes()), "seeds": seeds.iter().map(|s| h(s)).collect::<Vec<_>>(), "coin": h(coin.as_bytes()) }],
        "streams": streams,
        "setup": [{
            "game": h(game.0.as_bytes()), "owner": 1, "name": "army",
            "owner_seed": h(&pinned("owner seed")), "contribution": h(&seeds[0]), "setup": h(setup.as_bytes()),
        }],
        "deal": [{
            "game": h(game.0.as_bytes()), "dealer": 0, "owner": 1, "deck": "cards", "seed": h(&seed), "slots": 68,
            "key": h(key.as_bytes()), "draws": draws,
        }],
    })
}

/// A signature whose R carries a torsion component: the cofactored equation accepts it
/// (and a batch verifier may, when its random multiplier kills the torsion), the strict
/// single check does not.
pub fn torsion_signature(seat: u8, message: &[u8]) -> Signature {
    let sk = ed25519_dalek::SigningKey::from_bytes(&[seat + 1; 32]);
    let a = sk.to_scalar();
    let big_a = sk.verifying_key().to_bytes();
    let r = Scalar::from_bytes_mod_order(pinned("torsion nonce"));
    let big_r = (ED25519_BASEPOINT_POINT * r + EIGHT_TORSION[4]).compress();
    let mut hk = Sha512::new();
    hk.update(big_r.as_bytes());
    hk.update(big_a);
    hk.update(message);
    let k = Scalar::from_bytes_mod_order_wide(&hk.finalize().into());
    let s = r + k * a;
    let mut sig = [0u8; 64];
    sig[..32].copy_from_slice(big_r.as_bytes());
    sig[32..].copy_from_slice(s.as_bytes());
    Signature(sig)
}

/// Whether the cofactored equation `[8]([S]B − [k]A − R) = 0` holds.
pub fn cofactored_accepts(public: &[u8; 32], message: &[u8], sig: &Signature) -> bool {
    let (Some(big_a), Some(big_r)) = (
        CompressedEdwardsY(*public).decompress(),
        CompressedEdwardsY(sig.0[..32].try_into().expect("32")).decompress(),
    ) else {
        return false;
    };
    let Some(s) = Option::<Scalar>::from(Scalar::from_canonical_bytes(
        sig.0[32..].try_into().expect("32"),
    )) else {
        return false;
    };
    let mut hk = Sha512::new();
    hk.update(&sig.0[..32]);
    hk.update(public);
    hk.update(message);
    let k = Scalar::from_bytes_mod_order_wide(&hk.finalize().into());
    (ED25519_BASEPOINT_POINT * s - big_a * k - big_r)
        .mul_by_cofactor()
        .is_identity()
}

/// The signed message of an envelope: `tag ‖ 0x00 ‖ unsigned bytes`.
pub fn envelope_message(bytes: &[u8]) -> Vec<u8> {
    let mut m = b"sealed/v1/sign/envelope\x00".to_vec();
    m.extend_from_slice(&bytes[..bytes.len() - 64]);
    m
}

/// The honest finished Duel every transcript vector starts from.
pub fn honest_duel() -> Pair<Duel> {
    let mut p = new_pair(42);
    let mut d = honest_pair();
    p.run(&mut d);
    p
}

/// envelopes.json
pub fn envelopes(game: &Pair<Duel>) -> Value {
    let keys: Vec<Value> = (0..3u8)
        .map(|i| json!({ "seat": i, "secret_seed": h(&[i + 1; 32]), "public": h(&test_key(i).public().to_bytes()) }))
        .collect();
    let terms = game.sessions[0].engine().terms();
    let unsigned = wire::encode(terms.proposal());
    let (chains, _) = game.sessions[0].engine().stored();
    let envs: Vec<Value> = chains
        .iter()
        .take(6)
        .map(|e: &&Signed| {
            let u = e.unsigned();
            json!({
                "seat": u.seat.0, "seq": u.seq,
                "items": u.body.iter().map(item_text).collect::<Vec<_>>(),
                "unsigned_bytes": h(&e.bytes[..e.bytes.len() - 64]),
                "hash": h(e.hash.as_bytes()),
                "signature": h(&e.env.sig.0),
                "bytes": h(&e.bytes),
            })
        })
        .collect();
    let msg = b"sealed signature vector".to_vec();
    let good = test_key(1).sign(&msg);
    let mut small = [0u8; 32];
    small[0] = 1; // the identity point: order 1
    let mut identity_sig = [0u8; 64];
    identity_sig[0] = 1; // R = identity, S = 0: [0]B − [k]·identity = identity = R
    let torsion = torsion_signature(1, &msg);
    // S + L is the same scalar, not reduced: strict verification refuses it.
    let mut big_s = good.0;
    let s: [u8; 32] = big_s[32..].try_into().expect("32");
    big_s[32..].copy_from_slice(&add_l(&s));
    let public1 = test_key(1).public().to_bytes();
    let signatures = vec![
        json!({ "public": h(&public1), "message": h(&msg), "signature": h(&good.0), "valid": true, "reason": "valid" }),
        json!({ "public": h(&small), "message": h(&msg), "signature": h(&identity_sig), "valid": false, "reason": "small-order-key",
                "cofactored_accepts": cofactored_accepts(&small, &msg, &Signature(identity_sig)) }),
        json!({ "public": h(&public1), "message": h(&msg), "signature": h(&torsion.0), "valid": false, "reason": "r-with-torsion",
                "cofactored_accepts": cofactored_accepts(&public1, &msg, &torsion) }),
        json!({ "public": h(&public1), "message": h(&msg), "signature": h(&big_s), "valid": false, "reason": "s-not-reduced" }),
    ];
    json!({
        "description": "test keys, the proposal, the first envelopes of the duel transcript, and signature acceptance cases",
        "keys": keys,
        "proposal": {
            "signed_bytes": h(terms.bytes()),
            "unsigned_bytes": h(&unsigned),
            "signature": h(&terms.signed().sig.0),
            "game_id": h(terms.game().0.as_bytes()),
        },
        "envelopes": envs,
        "signatures": signatures,
    })
}

/// `s + L` as 32 little-endian bytes (fits: s < L < 2^253).
fn add_l(s: &[u8; 32]) -> [u8; 32] {
    const L: [u8; 32] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde,
        0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];
    let mut out = [0u8; 32];
    let mut carry = 0u16;
    for i in 0..32 {
        let v = u16::from(s[i]) + u16::from(L[i]) + carry;
        out[i] = v as u8;
        carry = v >> 8;
    }
    out
}

/// A short text for an item.
pub fn item_text(i: &Item) -> String {
    match i {
        Item::Accept => "accept".into(),
        Item::Decline => "decline".into(),
        Item::Commit(c) => format!(
            "commit {} x{} from {}",
            purpose_text(&c.purpose),
            c.hashes.len(),
            c.first
        ),
        Item::Open(o) => format!("open {}[{}]", purpose_text(&o.purpose), o.index),
        Item::Deal(d) => format!("deal {}:{} {:?}", d.owner.0, d.deck, d.slots),
        Item::Act(a) => format!("act {}", h(a)),
        Item::Resign => "resign".into(),
        Item::OfferDraw => "offer-draw".into(),
        Item::AcceptDraw => "accept-draw".into(),
        Item::Claim(c) => format!("claim {:?} against {}", c.kind, c.against.0),
        Item::Close => "close".into(),
        Item::Evidence(_) => "evidence".into(),
        Item::DrawContribute(c) => format!("draw-value {}:{} #{}", c.owner.0, c.pool, c.index),
        Item::DrawOpen(o) => format!("draw-open {} #{}", o.pool, o.index),
        Item::Forfeit(f) => format!(
            "forfeit against {} ({} statements)",
            f.against.0,
            f.statements.len()
        ),
        Item::Statements(st) => format!("statements ({})", st.len()),
        Item::Withdraw => "withdraw".into(),
        Item::Named(n) => format!("named {n:?}"),
        Item::Show(o) => format!(
            "show {}[{}] to {}",
            purpose_text(&o.purpose),
            o.index,
            o.to.map_or("all".into(), |t| t.0.to_string())
        ),
        Item::OpenDeck(o) => format!("open-deck {}", o.deck),
    }
}

/// transcript-duel.json (and the bytes of duel-game.sealed).
pub fn transcript(game: &Pair<Duel>) -> (Value, Vec<u8>) {
    let bytes = game.transcript(A);
    let v = sealed_games::variant::check_transcript(&bytes).expect("readable");
    let o = v.verdict.outcome.clone().expect("finished");
    let value = json!({
        "description": "a complete Duel (cards 9, hand 3) between the test keys, closed both ways; the same bytes as duel-game.sealed",
        "file": "duel-game.sealed",
        "bytes": h(&bytes),
        "verdict": {
            "exit": v.exit_code(),
            "status": v.verdict.status,
            "results": o.results.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
            "reason": o.reason,
            "envelopes": v.verdict.envelopes,
        },
    });
    (value, bytes)
}

fn reject(
    name: &str,
    reason: &str,
    exit: i32,
    faults: Vec<(Seat, &str)>,
    results: Option<Vec<String>>,
    bytes: &[u8],
) -> Value {
    json!({
        "name": name,
        "reason": reason,
        "exit": exit,
        "faults": faults.iter().map(|(s, k)| json!({ "seat": s.0, "kind": k })).collect::<Vec<_>>(),
        "results": results,
        "transcript": h(bytes),
    })
}

fn with_envelopes(base: &TranscriptFile, f: impl FnOnce(&mut Vec<Vec<u8>>)) -> Vec<u8> {
    let mut file = base.clone();
    f(&mut file.envelopes);
    file.to_bytes()
}

/// reject.json
pub fn rejects(game: &Pair<Duel>) -> Value {
    let mut out = vec![];
    for (name, build) in scenarios::all_cheats() {
        let c = build();
        let kind = c.kind.name();
        let results = vec!["loss".to_string(), "win".to_string()];
        let results = if c.cheater == A {
            results
        } else {
            results.into_iter().rev().collect()
        };
        // Every fault the file proves: the forged envelope of `wrong-previous-hash`
        // takes the place the cheater's own next envelope also holds, which is an
        // equivocation too (§8).
        let mut faults = vec![(c.cheater, kind)];
        if name == "wrong-previous-hash" {
            faults.push((c.cheater, "equivocation"));
        }
        out.push(reject(
            name,
            kind,
            1,
            faults,
            Some(results),
            &c.pair.transcript(c.honest()),
        ));
    }
    for (name, build) in [
        (
            "draw-chain-broken",
            crate::chex_kit::draw_chain_broken as fn() -> crate::chex_kit::ChexCheat,
        ),
        ("draw-value-early", crate::chex_kit::draw_value_early),
        ("wrong-piece-placed", crate::chex_kit::wrong_piece_placed),
    ] {
        let c = build();
        let kind = c.kind.name();
        let honest = Seat(1 - c.cheater.0);
        let results = if c.cheater == A {
            vec!["loss".to_string(), "win".into()]
        } else {
            vec!["win".to_string(), "loss".into()]
        };
        out.push(reject(
            name,
            kind,
            1,
            vec![(c.cheater, kind)],
            Some(results),
            &c.pair.transcript(honest),
        ));
    }
    let (p, q) = scenarios::premature_reveal();
    out.push(reject(
        "reveal-without-acknowledging-commitments",
        "premature-reveal",
        1,
        vec![(A, "premature-reveal")],
        Some(vec!["loss".into(), "win".into()]),
        &p.transcript(B),
    ));
    out.push(reject(
        "commitment-after-dependent",
        "commitment-after-dependent",
        1,
        vec![(A, "premature-reveal"), (B, "commitment-after-dependent")],
        Some(vec!["draw".into(), "draw".into()]),
        &q.transcript(A),
    ));

    let base = TranscriptFile::from_bytes(&game.transcript(A)).expect("own file");
    let flip_sig = with_envelopes(&base, |e| {
        let last = e[3].len() - 1;
        e[3][last] ^= 1;
    });
    out.push(reject(
        "bad-signature",
        "bad-signature",
        2,
        vec![],
        None,
        &flip_sig,
    ));
    let torsion = with_envelopes(&base, |e| {
        let env: Envelope = wire::decode(&e[3], wire::MAX_MESSAGE).expect("envelope");
        let sig = torsion_signature(env.unsigned.seat.0, &envelope_message(&e[3]));
        let n = e[3].len();
        e[3][n - 64..].copy_from_slice(&sig.0);
    });
    out.push(reject(
        "r-with-torsion",
        "non-strict-signature",
        2,
        vec![],
        None,
        &torsion,
    ));
    let trailing = with_envelopes(&base, |e| e[3].push(0));
    out.push(reject(
        "trailing-bytes",
        "trailing-bytes",
        2,
        vec![],
        None,
        &trailing,
    ));
    let oversize = with_envelopes(&base, |e| e.push(vec![0; wire::MAX_MESSAGE + 1]));
    out.push(reject("oversize", "oversize", 2, vec![], None, &oversize));
    let mut cut = base.clone();
    cut.envelopes.retain(|b| {
        let env: Envelope = wire::decode(b, wire::MAX_MESSAGE).expect("envelope");
        !env.unsigned.body.contains(&Item::Close)
    });
    out.push(reject(
        "cut-before-close",
        "incomplete",
        3,
        vec![],
        None,
        &cut.to_bytes(),
    ));
    // A proposal naming a small-order key: no game, the file is unreadable.
    let mut prop = duel_proposal(&Duel::default(), 5);
    let mut small = [0u8; 32];
    small[0] = 1;
    prop.seats[1] = SeatSpec {
        role: Role::Player,
        key: small,
        name: "weak".into(),
    };
    let mut weak = base.clone();
    weak.proposal = wire::encode(&prop.sign(&test_key(0)));
    out.push(reject(
        "small-order-key",
        "small-order-key",
        2,
        vec![],
        None,
        &weak.to_bytes(),
    ));
    // Terms whose time controls a node refuses (§5.4): a verifier refuses them too, as
    // invalid proposals (§5.1), so the file is unreadable.
    for (name, key, value) in [
        ("time-option-malformed", "time-per-move", "bogus"),
        ("time-option-unknown", "time-foo", "1s"),
        ("time-leave-alone", "time-leave", "10m"),
    ] {
        let mut prop = duel_proposal(&Duel::default(), 5);
        prop.options.push((
            sealed_protocol::ids::Name::new(key).expect("a name"),
            value.into(),
        ));
        prop.options.sort();
        let mut bad = base.clone();
        bad.proposal = wire::encode(&prop.sign(&test_key(0)));
        out.push(reject(
            name,
            "bad-time-option",
            2,
            vec![],
            None,
            &bad.to_bytes(),
        ));
    }
    // A game of version 2's first draft (its forfeit vector as that draft's generator
    // wrote it, kept in spec/vectors/draft1-forfeit-game.sealed): refused, by name.
    out.push(reject(
        "version-2-draft-1",
        "earlier-draft",
        2,
        vec![],
        None,
        include_bytes!("../../spec/vectors/draft1-forfeit-game.sealed"),
    ));
    // And of its second draft (the forfeit vector as draft 2's generator wrote it, kept
    // in spec/vectors/draft2-forfeit-game.sealed).
    out.push(reject(
        "version-2-draft-2",
        "earlier-draft",
        2,
        vec![],
        None,
        include_bytes!("../../spec/vectors/draft2-forfeit-game.sealed"),
    ));
    // And of its third (kept in spec/vectors/draft3-forfeit-game.sealed).
    out.push(reject(
        "version-2-draft-3",
        "earlier-draft",
        2,
        vec![],
        None,
        include_bytes!("../../spec/vectors/draft3-forfeit-game.sealed"),
    ));
    // And of its fourth (kept in spec/vectors/draft4-forfeit-game.sealed).
    out.push(reject(
        "version-2-draft-4",
        "earlier-draft",
        2,
        vec![],
        None,
        include_bytes!("../../spec/vectors/draft4-forfeit-game.sealed"),
    ));
    // And of its fifth (kept in spec/vectors/draft5-forfeit-game.sealed).
    out.push(reject(
        "version-2-draft-5",
        "earlier-draft",
        2,
        vec![],
        None,
        include_bytes!("../../spec/vectors/draft5-forfeit-game.sealed"),
    ));
    // And of its sixth (kept in spec/vectors/draft6-forfeit-game.sealed).
    out.push(reject(
        "version-2-draft-6",
        "earlier-draft",
        2,
        vec![],
        None,
        include_bytes!("../../spec/vectors/draft6-forfeit-game.sealed"),
    ));
    // And of its seventh (kept in spec/vectors/draft7-forfeit-game.sealed).
    out.push(reject(
        "version-2-draft-7",
        "earlier-draft",
        2,
        vec![],
        None,
        include_bytes!("../../spec/vectors/draft7-forfeit-game.sealed"),
    ));
    // And of its eighth (kept in spec/vectors/draft8-forfeit-game.sealed).
    out.push(reject(
        "version-2-draft-8",
        "earlier-draft",
        2,
        vec![],
        None,
        include_bytes!("../../spec/vectors/draft8-forfeit-game.sealed"),
    ));
    // And of its ninth (kept in spec/vectors/draft9-forfeit-game.sealed).
    out.push(reject(
        "version-2-draft-9",
        "earlier-draft",
        2,
        vec![],
        None,
        include_bytes!("../../spec/vectors/draft9-forfeit-game.sealed"),
    ));
    // And of its tenth, the last (kept in spec/vectors/draft10-forfeit-game.sealed).
    out.push(reject(
        "version-2-draft-10",
        "earlier-draft",
        2,
        vec![],
        None,
        include_bytes!("../../spec/vectors/draft10-forfeit-game.sealed"),
    ));
    // Shown slots (version 2, §17.16): a show of a slot never dealt, a show of a
    // slot already played (version 2 Duels), and Tempête's card 73 played hiding a
    // card the hand keeps.
    for c in [
        ("show-slot-never-dealt", crate::show_kit::show_never_dealt()),
        ("show-slot-used", crate::show_kit::show_used_slot()),
    ] {
        let (name, c) = c;
        let kind = c.kind.name();
        let results = match c.cheater {
            A => vec!["loss".into(), "win".into()],
            _ => vec!["win".into(), "loss".into()],
        };
        out.push(reject(
            name,
            kind,
            1,
            vec![(c.cheater, kind)],
            Some(results),
            &c.pair.transcript(c.honest()),
        ));
    }
    let (hidden, kind) = crate::show_kit::show_hand_hides_a_card();
    out.push(reject(
        "show-hand-hides-a-card",
        kind.name(),
        1,
        vec![(B, kind.name())],
        Some(vec!["win".into(), "loss".into()]),
        &hidden.transcript(A),
    ));
    // Withdrawals (version 2, §17.14): one an acceptance crossed, which stands (no game,
    // exit 0); one signed after the acceptance it acknowledges, the proposer's fault.
    out.push(reject(
        "withdrawn-crossed",
        "withdrawn",
        0,
        vec![],
        None,
        &crate::withdraw_kit::crossed().transcript(B),
    ));
    out.push(reject(
        "withdrawn-after-acceptance",
        "withdrawn-after-acceptance",
        1,
        vec![(A, "out-of-phase")],
        Some(vec!["loss".into(), "win".into()]),
        &crate::withdraw_kit::withdrawn_after_acceptance().transcript(B),
    ));
    // §10.6 step 2: the checker holds every envelope of the file before it processes
    // any, so the twin the file lists is followed, not the one A's earlier proof brings.
    let (twins, _) = crate::twin_kit::proof_before_its_twin();
    out.push(reject(
        "proof-before-its-twin",
        "undecodable-act",
        1,
        vec![(B, "equivocation"), (B, "undecodable-act")],
        Some(vec!["win".into(), "loss".into()]),
        &twins.transcript(A),
    ));
    json!({
        "description": "transcripts that must be refused, each tagged with its reason, the exit code of `sealed verify`, the proven faults it must name and the adjudicated results",
        "vectors": out,
    })
}

/// The positions of cardmate-perft.json: a name and the score text that reaches it.
pub fn cardmate_perft_positions() -> Vec<(&'static str, String)> {
    let coin = hex::encode(pinned("cardmate perft coin"));
    vec![
        ("predefined start", String::new()),
        (
            "sample game 1 before 18. 8D:j7",
            "1. 4Ci3 4Db6 2. 8Dj2 8Ca7 3. 8Dh3 8Cc6 4. 7Cb1 7Di8 5. 3Cd3 3Di6 6. 8Hc2 4Dc5 7. JSf3 9Sa7 \
             8. 9H:c5 9S:c5 9. 2Sa3 9S:a3 10. 1D:a3 8Sh7 11. 3Cd4 8C:d4 12. 8H:d4 8Sg5 13. JS:g5 3Hc6 \
             14. JS:g7 6H:g7 15. 8H:c6 JH:c6 16. 1Da4 QSh8 17. 8Di5 QS:h2"
                .into(),
        ),
        (
            "sample game 2 before 24. 8Hd4",
            "1. 4Ci3 4Db6 2. 3Sg3 8Ca7 3. 8Dh2 8Cc6 4. 7Cb1 7Di8 5. 3Cc3 4Sf6 6. 8Hc2 4Dc5 7. 4He3 9Sa7 \
             8. 8Df3 4Se5 9. 3Sf4 4S:f4 10. 4H:f4 7Hb8 11. 3Cd4 8C:d4 12. 8D:d4 4Dc6 13. 8D:c6 2C:c6 \
             14. 6Sd2 3Hb6 15. JSe3 5Cf7 16. JDf3 1Sd6 17. 9Ce2 1Sd5 18. JS:d5 2C:d5 19. 9H:b6 JH:b6 \
             20. QDg1 KSe8 21. 7Si1 2Ce4 22. XC:j7 2C:f3 23. 9C:f3 8S:j7"
                .into(),
        ),
        ("random setup", format!("[Setup \"random\"]\n[Coin \"{coin}\"]\n")),
    ]
}

/// cardmate-perft.json: move-path counts of a few positions, depths 1 to 3.
pub fn cardmate_perft() -> Value {
    let opts = sealed_games::cardmate::Options::default();
    let cases: Vec<Value> = cardmate_perft_positions()
        .into_iter()
        .map(|(name, score)| {
            let (pos, _) =
                sealed_games::cardmate::replay_score(&score).expect("the position replays");
            let counts: Vec<u64> = (1..=3).map(|d| pos.perft(d, &opts)).collect();
            json!({ "name": name, "score": score, "counts": counts })
        })
        .collect();
    json!({
        "description": "Cardmate perft: the number of legal move sequences of each depth from positions reached by score text (spec/GAMES.md section 2), default options",
        "positions": cases,
    })
}

/// The expected verdict of a complete-transcript vector.
pub(crate) fn verdict_json(
    checked: &sealed_protocol::transcript::Checked,
    o: &sealed_protocol::outcome::Outcome,
) -> Value {
    json!({
        "exit": checked.exit_code(),
        "status": checked.verdict.status,
        "results": o.results.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
        "reason": o.reason,
        "envelopes": checked.verdict.envelopes,
    })
}

/// transcript-cardmate.json (and the bytes of cardmate-game.sealed): a whole Cardmate
/// with the suit-shuffled setup the coin deals, played by seeded random bots.
pub fn cardmate_transcript() -> (Value, Vec<u8>) {
    cardmate_transcript_of(sealed_protocol::proposal::VERSION)
}

/// The same game under protocol version 2 (transcript-cardmate-v2.json,
/// cardmate-v2-game.sealed): the reference for its size per ply (issue 34).
pub fn cardmate_v2_transcript() -> (Value, Vec<u8>) {
    cardmate_transcript_of(sealed_protocol::proposal::VERSION_2)
}

fn cardmate_transcript_of(version: u8) -> (Value, Vec<u8>) {
    use crate::cardmate_kit::{cardmate_bot, cardmate_terms_of, random_setup};
    use crate::sim::{NetConfig, Sim};
    let v2 = version != sealed_protocol::proposal::VERSION;
    let mut sim = Sim::new(
        cardmate_terms_of(&random_setup(400), 6, version),
        vec![cardmate_bot(), cardmate_bot()],
        NetConfig::perfect(),
        6,
    );
    sim.run(100_000_000);
    let bytes = sim.transcripts().remove(0);
    let checked = sealed_games::variant::check_transcript(&bytes).expect("readable");
    let o = checked.verdict.outcome.clone().expect("finished");
    let coin = *sim.sessions[0].engine().coin().expect("coin");
    let value = json!({
        "description": if v2 {
            "version 2: a complete Cardmate (setup random, ply-limit 400) between the test keys, played by seeded random bots; the same bytes as cardmate-v2-game.sealed"
        } else {
            "a complete Cardmate (setup random, ply-limit 400) between the test keys, played by seeded random bots; the same bytes as cardmate-game.sealed"
        },
        "file": if v2 { "cardmate-v2-game.sealed" } else { "cardmate-game.sealed" },
        "coin": h(coin.as_bytes()),
        "bytes": h(&bytes),
        "verdict": verdict_json(&checked, &o),
    });
    (value, bytes)
}

/// transcript-chex.json (and the bytes of chex-game.sealed): a whole Chex, every piece
/// drawn through the protocol's public pool, played by seeded random bots.
pub fn chex_transcript() -> (Value, Vec<u8>) {
    use crate::chex_kit::{chex_bot, chex_terms};
    use crate::sim::{NetConfig, Sim};
    let mut sim = Sim::new(
        chex_terms(200, 2),
        vec![chex_bot(), chex_bot()],
        NetConfig::perfect(),
        2,
    );
    sim.run(100_000_000);
    let bytes = sim.transcripts().remove(0);
    let checked = sealed_games::variant::check_transcript(&bytes).expect("readable");
    let o = checked.verdict.outcome.clone().expect("finished");
    let value = json!({
        "description": "a complete Chex (ply-limit 200) between the test keys, every piece drawn from the public pool, played by seeded random bots; the same bytes as chex-game.sealed",
        "file": "chex-game.sealed",
        "bytes": h(&bytes),
        "verdict": verdict_json(&checked, &o),
    });
    (value, bytes)
}

/// transcript-tempete.json (and the bytes of tempete-game.sealed): a whole Tempête with
/// hands dealt blindly from the open deck, cards played by opening their slots,
/// interceptions, answers and sealed trap squares, played by seeded random bots.
pub fn tempete_transcript() -> (Value, Vec<u8>) {
    tempete_transcript_of(sealed_protocol::proposal::VERSION)
}

/// The same game under protocol version 2 (transcript-tempete-v2.json,
/// tempete-v2-game.sealed): decks opened whole after the game (§17.17), deals riding
/// with acts; the reference for its size per ply (issue 34).
pub fn tempete_v2_transcript() -> (Value, Vec<u8>) {
    tempete_transcript_of(sealed_protocol::proposal::VERSION_2)
}

fn tempete_transcript_of(version: u8) -> (Value, Vec<u8>) {
    use crate::sim::{NetConfig, Sim};
    use crate::tempete_kit::tempete_bot;
    let v2 = version != sealed_protocol::proposal::VERSION;
    let terms = if v2 {
        crate::show_kit::tempete_terms_v2(&[("ply-limit", "120")], 4)
    } else {
        crate::tempete_kit::tempete_terms(&[("ply-limit", "120")], 4)
    };
    let mut sim = Sim::new(
        terms,
        vec![tempete_bot(), tempete_bot()],
        NetConfig::perfect(),
        4,
    );
    sim.run(200_000_000);
    let bytes = sim.transcripts().remove(0);
    let checked = sealed_games::variant::check_transcript(&bytes).expect("readable");
    let o = checked.verdict.outcome.clone().expect("finished");
    let e = sim.sessions[0].engine();
    let deck = sealed_games::tempete::rules::deck_name();
    let played: usize = (0..2u8)
        .map(|p| e.used(sealed_protocol::ids::Seat(p), &deck).len())
        .sum();
    let value = json!({
        "description": if v2 {
            "version 2: a complete Tempête (the open deck, hands of 5, ply-limit 120) between the test keys, played by seeded random bots, each deck opened whole after the game; the same bytes as tempete-v2-game.sealed"
        } else {
            "a complete Tempête (the open deck, hands of 5, ply-limit 120) between the test keys, played by seeded random bots; the same bytes as tempete-game.sealed"
        },
        "file": if v2 { "tempete-v2-game.sealed" } else { "tempete-game.sealed" },
        "cards_played": played,
        "bytes": h(&bytes),
        "verdict": verdict_json(&checked, &o),
    });
    (value, bytes)
}

/// transcript-tempete-show.json (and the bytes of tempete-show-game.sealed): a whole
/// Tempête of protocol version 2 with card 73 on the list, played by seeded
/// random bots, in which a show-hand card is played and its envelope shows the hand
/// (spec/PROTOCOL.md §17.16, spec/GAMES.md §4.6.2): the first seed from 1 whose game
/// shows one.
pub fn tempete_show_transcript() -> (Value, Vec<u8>) {
    use crate::show_kit::{SHOW_OPTIONS, tempete_terms_v2};
    use crate::sim::{NetConfig, Sim};
    use crate::tempete_kit::tempete_bot;
    for seed in 1..100u64 {
        let mut sim = Sim::new(
            tempete_terms_v2(&SHOW_OPTIONS, seed as u8),
            vec![tempete_bot(), tempete_bot()],
            NetConfig::perfect(),
            seed,
        );
        sim.run(200_000_000);
        let bytes = sim.transcripts().remove(0);
        let e = sim.sessions[0].engine();
        let shows: usize = e
            .main_line()
            .iter()
            .filter_map(|(at, _)| e.envelope(*at))
            .flat_map(|env| env.unsigned().body.iter())
            .filter(|i| matches!(i, Item::Show(_)))
            .count();
        if shows == 0 {
            continue;
        }
        let checked = sealed_games::variant::check_transcript(&bytes).expect("readable");
        let o = checked.verdict.outcome.clone().expect("finished");
        let value = json!({
            "description": format!("version 2: a complete Tempête (cards 1-9,73, hands of 5, ply-limit 40) between the test keys, played by seeded random bots (seed {seed}), in which card 73 (show-hand) is played with Show items showing the opponent every card kept; the same bytes as tempete-show-game.sealed"),
            "file": "tempete-show-game.sealed",
            "shows": shows,
            "bytes": h(&bytes),
            "verdict": verdict_json(&checked, &o),
        });
        return (value, bytes);
    }
    panic!("no seed plays card 73");
}

/// transcript-stallmate.json (and the bytes of stallmate-game.sealed): a whole Secret
/// Stallmate between three in-memory seats — two seeded random players and an honest
/// referee — with its private logs published at the end; plus the first period's
/// private-log digest with its inputs (spec/PROTOCOL.md §2.3) and the revealed game's
/// score (spec/GAMES.md §5.7).
pub fn stallmate_transcript() -> (Value, Vec<u8>) {
    use crate::stallmate_kit::{REFEREE, play, quick};
    use sealed_games::stallmate::peer::period_log;
    use sealed_protocol::ids::{ChainId, EnvRef, Seat};
    let p = play(&quick(40), 5);
    let bytes = p.transcript(REFEREE);
    let checked = sealed_games::variant::check_transcript(&bytes).expect("readable");
    let o = checked.verdict.outcome.clone().expect("finished");
    let e = p.sessions[REFEREE.index()].engine();
    let log = period_log(0);
    let seal = e.seal(ChainId { log, seat: REFEREE }).expect("sealed");
    let seal_env = e.envelope(seal).expect("held");
    let mover_count = seal_env
        .unsigned()
        .acks
        .iter()
        .find(|a| a.chain == ChainId { log, seat: Seat(0) })
        .map_or(0, |a| a.seq + 1);
    let head = |seat: Seat, count: u64| {
        if count == 0 {
            sealed_protocol::hash::Hash::ZERO
        } else {
            e.envelope(EnvRef {
                chain: ChainId { log, seat },
                seq: count - 1,
            })
            .expect("held")
            .hash
        }
    };
    let heads = [
        (Seat(0), mover_count, head(Seat(0), mover_count)),
        (REFEREE, seal.seq, head(REFEREE, seal.seq)),
    ];
    let digest = sealed_protocol::hidden::digest(e.terms().game(), log, &heads);
    let score = sealed_games::stallmate::table::hidden_game(e)
        .map(|r| sealed_games::stallmate::record::write(&r))
        .expect("revealed");
    let value = json!({
        "description": "a complete Secret Stallmate (period 1s, ply-limit 40) between the test keys: White seat 0, Black seat 1, referee seat 2; seeded random players, an honest referee; every private log published at the end; the same bytes as stallmate-game.sealed",
        "file": "stallmate-game.sealed",
        "bytes": h(&bytes),
        "verdict": verdict_json(&checked, &o),
        "first_period_digest": {
            "game": e.terms().game().0.to_hex(),
            "log": log.0,
            "heads": heads.iter().map(|(s, n, hh)| json!({"seat": s.0, "count": n, "head": hh.to_hex()})).collect::<Vec<_>>(),
            "digest": digest.to_hex(),
        },
        "score": score,
    });
    (value, bytes)
}
