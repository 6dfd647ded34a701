//! Attacks on a time forfeit (protocol version 2, spec/PROTOCOL.md §17), as whole games
//! between the test keys: each scenario plays the attack to the end and gives the pair,
//! for the tests (`tests/witness_attacks.rs`) and the vectors (transcript-forfeit.json's
//! twins) alike. Duel, `time-per-move=1h`, Black (seat 1) to answer in round 2.

use sealed_games::duel::Duel;
use sealed_protocol::body::{Forfeit, Item};
use sealed_protocol::envelope::{Ack, Unsigned};
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, LogId};
use sealed_protocol::session::Command;
use sealed_protocol::witness::{Stamp, Statement};

use crate::forfeit_kit::{
    HOUR, dated, game, known, proof, receipts, signed, stalled, view, witness,
};
use crate::pair::Pair;
use crate::scenarios::{A, B, honest_pair};

const MINUTE: u64 = 60_000;

/// Attack 1: White had the witness stamp his last envelope's hash at 1 s and delivered
/// it only two hours later, then posts a forfeit carrying the stamp and a ledger five
/// minutes after the move's true time. His honest session refuses it; forged, it is
/// his `false-forfeit`: the stamp dates nothing public.
pub fn prestamped() -> Pair<Duel> {
    let mut p = stalled();
    let k = known(&p, A);
    let moved = k[0].head;
    let moved_seq = k[0].count - 1;
    // The witness first holds the move two hours on, and so whatever has seen it no
    // earlier (Black's deal that answers the move's refill, since deals ride in the
    // act's envelope): an honest ledger never dates an envelope before what it saw.
    let seen_move = |e: &sealed_protocol::envelope::Signed| {
        e.hash == moved
            || e.unsigned()
                .acks
                .iter()
                .any(|a| a.chain == k[0].chain && a.seq >= moved_seq)
    };
    let st = [
        Statement::Stamp(Stamp {
            game: game(&p),
            deposit: moved,
            at: 1_000,
        }),
        receipts(&p, A, |e| if seen_move(e) { 2 * HOUR } else { 1_000 }),
        view(game(&p), 2 * HOUR + 5 * MINUTE, k),
    ];
    forged(&mut p, signed(&st, &witness()));
    p
}

/// Attack 2: Black, silent at his turn, sends `noop` (an envelope that discharges
/// nothing he owes) a minute before his deadline; the witness holds it. White's
/// forfeit an hour and a millisecond after the step Black owed an answer to stands.
pub fn noop_before_the_deadline(noop: Vec<Item>) -> Pair<Duel> {
    let mut p = stalled();
    let env = p.forge(B, noop);
    p.deliver_to(A, &env);
    let st = [
        receipts(&p, A, |e| {
            if e.hash == env.hash {
                1_000 + HOUR - MINUTE
            } else {
                1_000
            }
        }),
        view(game(&p), 1_000 + HOUR + 1, known(&p, A)),
    ];
    posted(&mut p, signed(&st, &witness()));
    p
}

/// Attack 3: Black, in time, sends an envelope that acknowledges an envelope of White's
/// that does not exist. Nobody can process it, so the witness never holds it with its
/// past: its ledgers still show Black silent, and White's forfeit stands.
pub fn dangling_acknowledgement() -> Pair<Duel> {
    let mut p = stalled();
    let e = p.sessions[B.index()].engine();
    let chain = ChainId::public(B);
    let (seq, prev) = e.chain_tip(chain);
    let white = ChainId::public(A);
    let unsigned = Unsigned {
        version: e.terms().version(),
        game: e.terms().game(),
        log: LogId::PUBLIC,
        seat: B,
        seq,
        prev,
        acks: vec![Ack {
            chain: white,
            seq: e.processed(white) + 3,
            hash: Hash([0xda; 32]),
        }],
        clock: p.now,
        body: vec![Item::OfferDraw],
    };
    let env = Pair::<Duel>::sign(B, unsigned);
    p.deliver_to(A, &env);
    assert_eq!(
        p.sessions[A.index()].engine().stuck().len(),
        1,
        "White holds it and cannot process it"
    );
    let k = known(&p, A);
    let st = [
        dated(game(&p), 1_000, k.clone()),
        view(game(&p), 1_000 + HOUR + 1, k),
    ];
    posted(&mut p, signed(&st, &witness()));
    p
}

/// The witness in league with White: Black answered (the witness dated his answer at
/// 2 s and told him so), yet it signs White a ledger ten hours on that lacks the answer,
/// and White posts it. Black's node posts the ledger it holds in its defence: the
/// witness contradicted itself, so no time result stands.
pub fn future_dated_ledger() -> Pair<Duel> {
    let mut p = stalled();
    let k = known(&p, A);
    let now = p.now;
    let cmd = honest_pair()[1](&p.sessions[1]).expect("Black has a move");
    p.sessions[1]
        .handle_command(cmd, now)
        .expect("Black answers");
    let answered = k[1].count;
    let ledger = receipts(&p, B, |e| {
        if e.at().chain.seat == B && e.at().seq == answered {
            2_000
        } else {
            1_000
        }
    });
    p.sessions[B.index()].note_witness(&signed(&[ledger], &witness()), now);
    let future = [
        dated(game(&p), 1_000, k.clone()),
        view(game(&p), 10 * HOUR, k),
    ];
    p.sessions[A.index()]
        .handle_command(
            Command::Forfeit(Forfeit {
                against: B,
                statements: signed(&future, &witness()),
            }),
            now,
        )
        .expect("White's session cannot tell");
    p.silent.clear();
    p.deliver_all();
    p.run(&mut honest_pair());
    p
}

/// Attack 5 (issue 53): a loss on time turned into a draw. White offers a draw, which
/// Black sees and leaves standing while his time runs out; White's forfeit stands. Black,
/// his node stopped (so never having seen the forfeit), then accepts the draw. Both
/// endings are in the record, concurrent; before draft 9 they combined to a draw.
/// Now the acceptance, which holds an envelope of Black's that the forfeit's past did not
/// (signed after the silent ledger), is left out (§8.14): Black lost on time.
pub fn late_acceptance() -> Pair<Duel> {
    let mut p = stalled();
    let now = p.now;
    p.sessions[A.index()]
        .handle_command(Command::OfferDraw, now)
        .expect("White offers a draw");
    p.deliver_all();
    // Black's node is stopped: it hears nothing more, and signs its acceptance offline.
    p.deaf.push(B);
    p.sessions[B.index()]
        .handle_command(Command::AcceptDraw, now)
        .expect("Black accepts the standing offer");
    p.collect();
    let e = p.sessions[B.index()].engine();
    let accept = e
        .stored()
        .0
        .into_iter()
        .find(|s| s.at().chain.seat == B && s.unsigned().body.contains(&Item::AcceptDraw))
        .expect("Black's acceptance")
        .clone();
    let statements = signed(&proof(&p, A, HOUR + 1), &witness());
    post(&mut p, statements);
    p.deliver_all();
    // Black's node comes back: the acceptance reaches White, the forfeit Black.
    p.deliver_to(A, &accept);
    p.deaf.clear();
    p.silent.clear();
    for (to, bytes) in std::mem::take(&mut p.held) {
        p.deliver_bytes(to, &bytes);
    }
    p.deliver_all();
    p.run(&mut honest_pair());
    p
}

/// White posts a forfeit his honest session signs; the game runs out.
fn posted(p: &mut Pair<Duel>, statements: Vec<Vec<u8>>) {
    post(p, statements);
    p.deliver_all();
    p.run(&mut honest_pair());
}

/// White posts a forfeit his honest session refuses, forged; the game runs out.
fn forged(p: &mut Pair<Duel>, statements: Vec<Vec<u8>>) {
    let f = Forfeit {
        against: B,
        statements,
    };
    let now = p.now;
    assert!(
        p.sessions[A.index()]
            .handle_command(Command::Forfeit(f.clone()), now)
            .is_err(),
        "an honest session refuses it"
    );
    let env = p.forge(A, vec![Item::Forfeit(f)]);
    p.inject(&env);
    p.deliver_all();
    p.run(&mut honest_pair());
}

/// White's honest session signs a forfeit against Black with `statements`.
fn post(p: &mut Pair<Duel>, statements: Vec<Vec<u8>>) {
    let now = p.now;
    p.sessions[A.index()]
        .handle_command(
            Command::Forfeit(Forfeit {
                against: B,
                statements,
            }),
            now,
        )
        .expect("White's forfeit stands");
}
