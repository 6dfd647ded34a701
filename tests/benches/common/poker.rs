//! Mental poker for the same deck and deal, with the `ziffle` crate (Bayer–Groth 2012
//! shuffle proofs over ElGamal on secp256k1; MIT/Apache-2.0; the only mental-poker
//! crate found in the registry under a licence we may use): two players, one shared
//! deck of 68 cards that both shuffle with a proof, 5 cards dealt to each (a card is
//! read by its owner with the other player's reveal token, whose proof he checks).
//!
//! Its messages carry no signature; a game would sign them as ours are signed, on top
//! of what is measured here.

use ark_std::rand::SeedableRng;
use ark_std::rand::rngs::StdRng;
use ziffle::{
    AggregatePublicKey, AggregateRevealToken, MaskedDeck, OwnershipProof, PublicKey, RevealToken,
    RevealTokenProof, Shuffle, ShuffleProof,
};

/// Cards in the deck, and the hand.
pub const CARDS: usize = 68;
pub const HAND: usize = 5;

const CTX: &[u8] = b"sealed deck bench";

/// Everything the players sent: what a verifier of the deal checks.
pub struct Dealt {
    shuffle: Shuffle<CARDS>,
    keys: [(PublicKey, OwnershipProof); 2],
    decks: [(MaskedDeck<CARDS>, ShuffleProof<CARDS>); 2],
    /// Per card dealt (cards 0..5 to player 0, 5..10 to player 1): both players' reveal
    /// tokens with their proofs.
    tokens: Vec<[(RevealToken, RevealTokenProof); 2]>,
}

/// The players' work: keys, two proven shuffles, a token and its proof per player and
/// card dealt.
pub fn produce(seed: u64) -> Dealt {
    let mut rng = StdRng::seed_from_u64(seed);
    let shuffle = Shuffle::<CARDS>::default();
    let (sk0, pk0, own0) = shuffle.keygen(&mut rng, CTX);
    let (sk1, pk1, own1) = shuffle.keygen(&mut rng, CTX);
    let vpk = [
        own0.verify(pk0, CTX).expect("own key"),
        own1.verify(pk1, CTX).expect("own key"),
    ];
    let apk = AggregatePublicKey::new(&vpk);
    let (deck0, proof0) = shuffle.shuffle_initial_deck(&mut rng, apk, CTX);
    let v0 = shuffle
        .verify_initial_shuffle(apk, deck0, proof0, CTX)
        .expect("a valid shuffle");
    let (deck1, proof1) = shuffle.shuffle_deck(&mut rng, apk, &v0, CTX);
    let v1 = shuffle
        .verify_shuffle(apk, &v0, deck1, proof1, CTX)
        .expect("a valid shuffle");
    let tokens = (0..2 * HAND)
        .map(|i| {
            let card = v1.get(i).expect("in the deck");
            [
                card.reveal_token(&mut rng, &sk0, pk0, CTX),
                card.reveal_token(&mut rng, &sk1, pk1, CTX),
            ]
        })
        .collect();
    Dealt {
        shuffle,
        keys: [(pk0, own0), (pk1, own1)],
        decks: [(deck0, proof0), (deck1, proof1)],
        tokens,
    }
}

/// What a verifier of the whole deal checks: both key proofs, both shuffle proofs,
/// every token's proof; then it reads the 10 cards. Returns them.
pub fn verify(d: &Dealt) -> Vec<usize> {
    let s = &d.shuffle;
    let vpk = d
        .keys
        .map(|(pk, own)| own.verify(pk, CTX).expect("key proof"));
    let apk = AggregatePublicKey::new(&vpk);
    let v0 = s
        .verify_initial_shuffle(apk, d.decks[0].0, d.decks[0].1, CTX)
        .expect("first shuffle");
    let v1 = s
        .verify_shuffle(apk, &v0, d.decks[1].0, d.decks[1].1, CTX)
        .expect("second shuffle");
    d.tokens
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let card = v1.get(i).expect("in the deck");
            let verified = [0, 1].map(|p| t[p].1.verify(vpk[p], t[p].0, card, CTX).expect("token"));
            s.reveal_card(AggregateRevealToken::new(&verified), card)
                .expect("a card of the deck")
        })
        .collect()
}
