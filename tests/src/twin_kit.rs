//! An equivocation that a seat proves before it can follow either twin: the file it
//! writes carries the proof in an envelope of a lower seq than the twin it followed
//! (spec/PROTOCOL.md §10.6 step 2: the checker holds every envelope of the file before
//! it processes any, so it follows the file's twin). Used by the test in
//! `tests/equivocation_order.rs` and the reject vector `proof-before-its-twin`.

use sealed_games::duel::Duel;
use sealed_protocol::body::Item;
use sealed_protocol::envelope::Signed;

use crate::forfeit_kit::{pair, proposal};
use crate::pair::Pair;
use crate::scenarios::{A, B, until_turn};

/// B's key signs two envelopes at one place, `X` (an act that does not decode) and `Y`
/// (an idle envelope whose hash sorts before `X`'s), both linking. A receives them
/// before the five envelopes of B's chain they follow, holds the equivocation, and
/// posts its proof at once; then the late envelopes come and A follows `X`, the one in
/// the place, and finds its act undecodable. B's session signs nothing after the start
/// (its key signs only these). Returns the pair and `X`.
pub fn proof_before_its_twin() -> (Pair<Duel>, Signed) {
    let mut p = pair(proposal(&[]));
    until_turn(&mut p, B, 2);
    p.deliver_all();
    p.silence(B);
    let next = |after: &Signed, body: Vec<Item>, clock: u64| -> Signed {
        let mut u = after.unsigned().clone();
        u.seq += 1;
        u.prev = after.hash;
        u.clock = clock;
        u.body = body;
        Pair::<Duel>::sign(B, u)
    };
    let mut late = vec![p.forge(B, vec![Item::OfferDraw])];
    for _ in 0..4 {
        let e = next(late.last().expect("one"), vec![], p.now);
        late.push(e);
    }
    let last = late.last().expect("one").clone();
    let x = next(&last, vec![Item::Act(vec![0xff; 9])], p.now);
    let y = (1..)
        .map(|c| next(&last, vec![], p.now + c))
        .find(|y| y.hash.0 < x.hash.0)
        .expect("some clock sorts first");
    p.deliver_to(A, &x);
    p.deliver_to(A, &y);
    p.deliver_all();
    for e in &late {
        p.deliver_to(A, e);
    }
    p.deliver_all();
    (p, x)
}
