//! What counting the accused's clock from receipts costs a verifier (spec/PROTOCOL.md
//! §17): a Duel of 48 rounds in which Black stops answering in round 40 and White posts
//! a forfeit. The same game is checked twice, end to end by `check_transcript`:
//!
//! - **receipts**: the forfeit carries the receipt of every envelope (as the reference
//!   witness serves them), so every earlier answer of Black's is charged — one replay
//!   of the causal past per answer;
//! - **views**: the forfeit carries two views only (the least that proves the lateness),
//!   so nothing is charged and nothing is replayed but the forfeit's own past.
//!
//! Both are measured in alternation in one run and the ratio printed, with the figures
//! the docs quote (docs/PERFORMANCE.md). `cargo bench -p sealed-conformance --bench
//! forfeit` runs it; `-- --quick` fewer rounds.

use std::hint::black_box;

mod common {
    pub mod alternate;
    pub mod raw;
}

use sealed_conformance::forfeit_kit::{
    HOUR, game, known, pair, proof, proposal_for, receipts, signed, view, witness,
};
use sealed_conformance::pair::Pair;
use sealed_conformance::scenarios::{A, B, honest_pair, until_turn};
use sealed_games::duel::Duel;
use sealed_games::variant::check_transcript;
use sealed_protocol::body::Forfeit;
use sealed_protocol::session::Command;
use sealed_protocol::witness::Statement;

const RULES: Duel = Duel { cards: 48, hand: 1 };
const ROUNDS: u32 = 40;

/// The stalled game, Black silent at its turn in round [`ROUNDS`].
fn stalled() -> Pair<Duel> {
    let mut p = pair(proposal_for(
        &RULES,
        &[("time-leave", "1h"), ("time-per-move", "1h")],
    ));
    until_turn(&mut p, B, ROUNDS);
    p.deliver_all();
    p.silence(B);
    p
}

/// The transcript after White posts `statements` and the game runs out.
fn forfeited(statements: impl Fn(&Pair<Duel>) -> Vec<Statement>) -> (Vec<u8>, usize) {
    let mut p = stalled();
    let st = statements(&p);
    let n = st.len();
    p.sessions[0]
        .handle_command(
            Command::Forfeit(Forfeit {
                against: B,
                statements: signed(&st, &witness()),
            }),
            p.now,
        )
        .expect("the forfeit stands");
    p.deliver_all();
    p.run(&mut honest_pair());
    let bytes = p.transcript(A);
    let c = check_transcript(&bytes).expect("readable");
    assert_eq!(c.exit_code(), 0, "{:#?}", c.verdict);
    assert_eq!(
        c.verdict.outcome.expect("a result").reason,
        "seat 1 lost on time"
    );
    (bytes, n)
}

/// Every envelope dated at its reading in seconds, and a silent ledger 2 h later.
fn with_receipts(p: &Pair<Duel>) -> Vec<Statement> {
    let dated = receipts(p, A, |e| e.env.unsigned.clock * 1_000);
    let last = sealed_conformance::forfeit_kit::at(&dated);
    vec![dated, view(game(p), last + 2 * HOUR + 1, known(p, A))]
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (full, n_full) = forfeited(with_receipts);
    let (bare, n_bare) = forfeited(|p| proof(p, A, 2 * HOUR + 1));
    let envelopes = sealed_protocol::transcript::TranscriptFile::from_bytes(&full)
        .expect("readable")
        .envelopes
        .len();
    println!(
        "workload: Duel {{ cards: {}, hand: {} }}, Black silent in round {ROUNDS}, \
         {envelopes} envelopes; the forfeit carries {n_full} statements ({} bytes of \
         transcript) or {n_bare} ({} bytes)",
        RULES.cards,
        RULES.hand,
        full.len(),
        bare.len()
    );
    let check = |b: &[u8]| {
        black_box(check_transcript(black_box(b)).expect("readable"));
    };
    let rounds = if quick { 10 } else { 60 };
    let m = common::alternate::alternate(rounds, || check(&full), || check(&bare));
    println!(
        "verify forfeited game, receipts of every envelope / two views only = {:.2}: \
         means {:.2} ms / {:.2} ms over {rounds} alternating rounds, median per-round \
         ratio {:.2}",
        m.ratio(),
        m.a.as_secs_f64() * 1e3,
        m.b.as_secs_f64() * 1e3,
        m.median,
    );
    // The goal of issue 34: the whole check against one strict verification of each of
    // the same file's envelope signatures.
    let file = sealed_protocol::transcript::TranscriptFile::from_bytes(&full).expect("readable");
    let raw = common::raw::checks(&file);
    let r = common::alternate::alternate(rounds, || check(&full), || common::raw::verify_all(&raw));
    println!(
        "verify forfeited game with every receipt / raw verify_strict of its {envelopes} \
         envelopes = {:.2} (goal <= 1.25): medians {:.2} ms / {:.2} ms, median per-round \
         ratio {:.2}",
        r.median_a() / r.median_b(),
        r.median_a() * 1e3,
        r.median_b() * 1e3,
        r.median,
    );
}
