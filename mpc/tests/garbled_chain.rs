//! The chain garbled (`sealed_mpc::chain::garbled`; docs/design/circuits-as-data.md, step
//! 3) from the circuit files: one player garbles an attempt's whole chain, the other
//! evaluates it on his labels, and the labels decode to the bits the chain gives in the
//! clear, for every shape of plan at a block's edges (earlier attempts 0, 1, 4, 5, 9 with
//! windows 0, 1, 8, 9, 17), both movers, random flags and inputs. Garbling is the seed's
//! alone (what the audit garbles again), and rows or public labels of the wrong count are
//! refused, nothing decoded.

use sealed_mpc::chain::garbled::{evaluate_chain, garble_chain, runs};
use sealed_mpc::chain::{Chain, ChainError, FRESH_BITS, Flags, Inputs};
use sealed_mpc::gc::Block;
use sealed_mpc::gc::seed::Stream;
use sealed_mpc::kept::{FIXED_BITS, ITEM_BITS, KEY_BITS};

/// Random bits from a small xorshift: the inputs need no secrecy, only variety.
struct Rng(u64);

impl Rng {
    fn bit(&mut self) -> bool {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 & 1 == 1
    }

    fn bits(&mut self, n: usize) -> Vec<bool> {
        (0..n).map(|_| self.bit()).collect()
    }
}

/// An attempt's bits, random, of the given sizes.
struct Bits {
    mover_white: bool,
    flags: Flags,
    fixed: Vec<bool>,
    window: Vec<Vec<bool>>,
    earlier: Vec<Vec<bool>>,
    white: Vec<bool>,
    black: Vec<bool>,
}

impl Bits {
    fn random(rng: &mut Rng, mover_white: bool, earlier: usize, window: usize) -> Bits {
        Bits {
            mover_white,
            flags: Flags {
                first_turn: rng.bit(),
                must_try: rng.bit(),
                name_capturer: rng.bit(),
                limit: rng.bit(),
            },
            fixed: rng.bits(FIXED_BITS),
            window: (0..window).map(|_| rng.bits(KEY_BITS)).collect(),
            earlier: (0..earlier).map(|_| rng.bits(ITEM_BITS)).collect(),
            white: rng.bits(FRESH_BITS),
            black: rng.bits(FRESH_BITS),
        }
    }

    fn inputs(&self) -> Inputs<'_> {
        Inputs {
            mover_white: self.mover_white,
            flags: self.flags,
            fixed: &self.fixed,
            window: &self.window,
            earlier: &self.earlier,
            white: &self.white,
            black: &self.black,
        }
    }
}

/// The same attempt's wires as labels: the garbler's zero labels (drawn from run 0 of
/// the stream, as a caller's transfers would give them) and the evaluator's labels of
/// the bits.
struct Labels {
    zeros: Vec<Vec<Block>>,
    held: Vec<Vec<Block>>,
}

impl Labels {
    fn new(stream: &Stream, b: &Bits) -> Labels {
        let delta = stream.delta();
        let mut n = 0u64;
        let mut zeros = vec![];
        let mut held = vec![];
        let groups = [&b.fixed, &b.white, &b.black]
            .into_iter()
            .chain(&b.window)
            .chain(&b.earlier);
        for bits in groups {
            let z: Vec<Block> = bits
                .iter()
                .map(|_| {
                    n += 1;
                    stream.input_zero(0, n)
                })
                .collect();
            held.push(
                z.iter()
                    .zip(bits)
                    .map(|(&z, &bit)| if bit { z ^ delta } else { z })
                    .collect(),
            );
            zeros.push(z);
        }
        Labels { zeros, held }
    }

    fn inputs<'a>(b: &Bits, w: &'a [Vec<Block>]) -> Inputs<'a, Block> {
        let window = b.window.len();
        Inputs {
            mover_white: b.mover_white,
            flags: b.flags,
            fixed: &w[0],
            white: &w[1],
            black: &w[2],
            window: &w[3..3 + window],
            earlier: &w[3 + window..],
        }
    }
}

#[test]
fn the_garbled_chain_decodes_to_what_the_chain_gives_in_the_clear() {
    let mut chain = Chain::from_files().expect("the embedded circuit files");
    let mut rng = Rng(0x5eed_9a4b_1ed0);
    let stream = Stream::new(&[7; 32]);
    let mut checked = 0;
    for mover_white in [true, false] {
        for (earlier, window) in [(0, 0), (1, 1), (4, 8), (5, 9), (9, 17)] {
            let b = Bits::random(&mut rng, mover_white, earlier, window);
            let clear = chain.evaluate(&b.inputs()).expect("in the clear");
            let l = Labels::new(&stream, &b);
            let run = 1;
            let g = garble_chain(&mut chain, &stream, run, &Labels::inputs(&b, &l.zeros))
                .expect("garbles");
            assert_eq!(g.rows.len() as u64 + 1, runs(b.inputs().facts()));
            let out = evaluate_chain(
                &mut chain,
                run,
                &g.rows,
                &g.public,
                &Labels::inputs(&b, &l.held),
            )
            .expect("evaluates");
            assert_eq!(
                g.decode(&out).expect("every output a label"),
                clear,
                "mover white {mover_white}, earlier {earlier}, window {window}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 10);
}

#[test]
fn garbling_is_the_seeds_alone() {
    let mut chain = Chain::from_files().expect("the embedded circuit files");
    let mut rng = Rng(0x0dd5_eed5);
    let b = Bits::random(&mut rng, false, 5, 9);
    let stream = Stream::new(&[9; 32]);
    let l = Labels::new(&stream, &b);
    let once =
        garble_chain(&mut chain, &stream, 40, &Labels::inputs(&b, &l.zeros)).expect("garbles");
    let again =
        garble_chain(&mut chain, &stream, 40, &Labels::inputs(&b, &l.zeros)).expect("garbles");
    assert_eq!(once.rows, again.rows);
    assert_eq!(once.public, again.public);
    let other = garble_chain(
        &mut chain,
        &Stream::new(&[8; 32]),
        40,
        &Labels::inputs(&b, &l.zeros),
    )
    .expect("garbles");
    assert_ne!(once.rows, other.rows, "another seed, other rows");
}

#[test]
fn rows_or_public_labels_of_the_wrong_count_are_refused() {
    let mut chain = Chain::from_files().expect("the embedded circuit files");
    let mut rng = Rng(0xbad_c0de);
    let b = Bits::random(&mut rng, true, 4, 8);
    let stream = Stream::new(&[3; 32]);
    let l = Labels::new(&stream, &b);
    let g = garble_chain(&mut chain, &stream, 1, &Labels::inputs(&b, &l.zeros)).expect("garbles");
    let held = Labels::inputs(&b, &l.held);
    let mut eval =
        |rows: &[Vec<_>], public: &[Block]| evaluate_chain(&mut chain, 1, rows, public, &held);

    let mut one_short = g.rows.clone();
    one_short[1].pop();
    assert!(matches!(
        eval(&one_short, &g.public),
        Err(ChainError::Garbled {
            circuit: "attempt-white",
            ..
        })
    ));
    let mut a_circuit_more = g.rows.clone();
    a_circuit_more.push(vec![]);
    assert!(matches!(
        eval(&a_circuit_more, &g.public),
        Err(ChainError::Circuits {
            expected: 4,
            got: 5
        })
    ));
    assert!(matches!(
        eval(&g.rows[1..], &g.public),
        Err(ChainError::Circuits { .. })
    ));
    let short = &g.public[..g.public.len() - 1];
    assert!(matches!(
        eval(&g.rows, short),
        Err(ChainError::PublicLabels { .. })
    ));
    let mut long = g.public.clone();
    long.push(0);
    assert!(matches!(
        eval(&g.rows, &long),
        Err(ChainError::PublicLabels { .. })
    ));
    assert!(eval(&g.rows, &g.public).is_ok());
}
