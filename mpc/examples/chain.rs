//! What the chain of circuits costs (docs/design/circuits-as-data.md, step 2): the gates
//! of each circuit of `sealed_mpc::chain`, the time to compile the whole set once, and an
//! attempt's gates chained against today's one-shot circuit of the same shape, and the
//! time to evaluate each in the clear (the time does not depend on the bits: every gate
//! is evaluated, so the inputs are zeros but for the attempt, "Any?"), and to garble and
//! evaluate each on one seed (step 3: the chain read from `spec/circuits/` and composed
//! into one circuit; the one-shot circuit garbled whole, as play garbles it today).
//!
//! `cargo run --release -p sealed-mpc --example chain`

use std::time::Instant;

use sealed_mpc::chain::compose::compose;
use sealed_mpc::chain::{Chain, FRESH_BITS, Facts, Flags, Inputs, Part, item_bits, plan};
use sealed_mpc::gc::seed::Stream;
use sealed_mpc::gc::{Block, evaluate, garble, input_count};
use sealed_mpc::gc::{Circuit, Gate};
use sealed_mpc::kept::{self, FIXED_BITS, ITEM_BITS, KEY_BITS, KeptShape};

/// Evaluations timed per attempt.
const RUNS: u32 = 20;

fn ands(c: &Circuit) -> usize {
    c.gates
        .iter()
        .filter(|g| matches!(g, Gate::And(..)))
        .count()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut chain = Chain::new();
    let t = Instant::now();
    chain.compile_all()?;
    println!(
        "compiled the {} circuits in {:.2?}\n",
        Part::ALL.len(),
        t.elapsed()
    );
    let t = Instant::now();
    Chain::from_files()?;
    println!(
        "read them from spec/circuits/ (hashes checked) in {:.2?}\n",
        t.elapsed()
    );
    println!("| circuit | AND gates | all gates | input bits | output bits |");
    println!("|---|---|---|---|---|");
    for part in Part::ALL {
        let c = chain.circuit(part)?;
        println!(
            "| `{}` | {} | {} | {} | {} |",
            part.name(),
            ands(c),
            c.gates.len(),
            c.input_gates.iter().sum::<usize>(),
            c.output_gates.len()
        );
    }
    println!(
        "\n| attempt | chained AND | chained gates | one-shot AND | one-shot gates | chained, clear | one-shot, clear | composing the chain | composed, garbled and evaluated | one-shot, garbled and evaluated |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (window, earlier, mover_white) in [(8, 4, true), (8, 4, false), (24, 8, true)] {
        let facts = Facts {
            mover_white,
            window,
            earlier,
        };
        let (mut a, mut g) = (0, 0);
        for part in plan(facts) {
            let c = chain.circuit(part)?;
            a += ands(c);
            g += c.gates.len();
        }
        let shape = KeptShape {
            mover_white,
            window,
            earlier,
            first_turn: false,
            must_try: true,
            name_capturer: true,
            limit: false,
        };
        let one = kept::compile(&shape)?;
        let c = one.circuit.unwrap_ssa_ref();
        let (chained, once) = times(&mut chain, c, shape)?;
        let (composing, gchained, gonce) = garbled_times(&mut chain, c, shape)?;
        println!(
            "| window {window}, earlier {earlier}, {} moves | {a} | {g} | {} | {} | {chained:.2?} | {once:.2?} | {composing:.2?} | {gchained:.2?} | {gonce:.2?} |",
            if mover_white { "White" } else { "Black" },
            ands(c),
            c.gates.len()
        );
    }
    Ok(())
}

/// The mean time of one attempt evaluated in the clear, chained and one-shot.
fn times(
    chain: &mut Chain,
    one: &Circuit,
    s: KeptShape,
) -> Result<(std::time::Duration, std::time::Duration), Box<dyn std::error::Error>> {
    let mut fresh = item_bits(0xFFFF);
    fresh.resize(FRESH_BITS, false);
    let fixed = vec![false; FIXED_BITS];
    let window = vec![vec![false; KEY_BITS]; s.window];
    let earlier = vec![vec![false; ITEM_BITS]; s.earlier];
    let inputs = Inputs {
        mover_white: s.mover_white,
        flags: Flags::default(),
        fixed: &fixed,
        window: &window,
        earlier: &earlier,
        white: &fresh,
        black: &fresh,
    };
    chain.evaluate(&inputs)?;
    let t = Instant::now();
    for _ in 0..RUNS {
        chain.evaluate(&inputs)?;
    }
    let chained = t.elapsed() / RUNS;
    let parties: Vec<Vec<bool>> = one.input_gates.iter().map(|n| vec![false; *n]).collect();
    let t = Instant::now();
    for _ in 0..RUNS {
        std::hint::black_box(one.eval(&parties));
    }
    Ok((chained, t.elapsed() / RUNS))
}

/// The mean time of composing an attempt's chain, and of one attempt garbled, evaluated
/// and decoded (inputs all zero bits: the cost does not depend on them), composed and
/// one-shot, on one seed.
fn garbled_times(
    chain: &mut Chain,
    one: &Circuit,
    s: KeptShape,
) -> Result<
    (
        std::time::Duration,
        std::time::Duration,
        std::time::Duration,
    ),
    Box<dyn std::error::Error>,
> {
    let stream = Stream::new(&[5; 32]);
    let labels =
        |bits: usize| -> Vec<Block> { (0..bits as u64).map(|w| stream.input_zero(1, w)).collect() };
    let t = Instant::now();
    for _ in 0..RUNS {
        std::hint::black_box(compose(
            chain,
            s.mover_white,
            s.window,
            s.earlier,
            Flags::default(),
        )?);
    }
    let composing = t.elapsed() / RUNS;
    let c = compose(chain, s.mover_white, s.window, s.earlier, Flags::default())?;
    let zeros = labels(input_count(&c));
    let t = Instant::now();
    for _ in 0..RUNS {
        let g = garble(&c, &stream, 1, &[]);
        let out = evaluate(&c, &g.rows, 1, &zeros).map_err(|e| format!("{e:?}"))?;
        std::hint::black_box(g.decode(&out).map_err(|e| format!("{e:?}"))?);
    }
    let chained = t.elapsed() / RUNS;
    let all = labels(input_count(one));
    let t = Instant::now();
    for _ in 0..RUNS {
        let g = garble(one, &stream, 1, &[]);
        let out = evaluate(one, &g.rows, 1, &all).map_err(|e| format!("{e:?}"))?;
        std::hint::black_box(g.decode(&out).map_err(|e| format!("{e:?}"))?);
    }
    Ok((composing, chained, t.elapsed() / RUNS))
}
