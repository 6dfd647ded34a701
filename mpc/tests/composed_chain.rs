//! One attempt's chain composed into one circuit (`sealed_mpc::chain::compose`;
//! docs/design/circuits-as-data.md, step 3) from the circuit files: in the clear it gives
//! the bits the chain gives circuit by circuit, and garbled by one player on one run and
//! evaluated by the other on his labels, its labels decode to them too, for every shape
//! of plan at a block's edges (earlier attempts 0, 1, 4, 5, 9 with windows 0, 1, 8, 9,
//! 17), both movers, random flags and inputs. Its gates are the plan's circuits' in
//! order, constants aside, and composing is the public facts' alone. Random states seldom
//! hold a legal move, so the wiring of the constants (flags, padding) is proven on real
//! game states by `tests/chain.rs`, which composes at every attempt: with false and true
//! swapped, it fails there and not here.

use sealed_mpc::chain::compose::compose;
use sealed_mpc::chain::{Chain, FRESH_BITS, Flags, Inputs, Part, plan};
use sealed_mpc::gc::seed::Stream;
use sealed_mpc::gc::{Gate, evaluate, garble, input_count};
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

impl Bits {
    /// The composed circuit's input bits, party by party.
    fn parties(&self) -> Vec<Vec<bool>> {
        vec![
            self.fixed.clone(),
            self.window.concat(),
            self.earlier.concat(),
            self.white.clone(),
            self.black.clone(),
        ]
    }
}

fn ands(gates: &[Gate]) -> usize {
    gates.iter().filter(|g| matches!(g, Gate::And(..))).count()
}

#[test]
fn the_composed_chain_in_the_clear_and_garbled_gives_what_the_chain_gives() {
    let mut chain = Chain::from_files().expect("the embedded circuit files");
    let mut rng = Rng(0x5eed_9a4b_1ed0);
    let stream = Stream::new(&[7; 32]);
    let mut checked = 0;
    for mover_white in [true, false] {
        for (earlier, window) in [(0, 0), (1, 1), (4, 8), (5, 9), (9, 17)] {
            let b = Bits::random(&mut rng, mover_white, earlier, window);
            let what = format!("mover white {mover_white}, earlier {earlier}, window {window}");
            let clear = chain.evaluate(&b.inputs()).expect("in the clear");
            let c = compose(&chain, mover_white, window, earlier, b.flags).expect("composes");
            let parties = b.parties();
            assert_eq!(c.eval(&parties), clear, "{what}: composed, in the clear");

            let run = 3;
            let g = garble(&c, &stream, run, &[]);
            let labels: Vec<_> = parties
                .iter()
                .flatten()
                .enumerate()
                .filter_map(|(w, &bit)| g.input(w, bit))
                .collect();
            assert_eq!(labels.len(), input_count(&c));
            let out = evaluate(&c, &g.rows, run, &labels).expect("evaluates");
            assert_eq!(g.decode(&out).expect("labels"), clear, "{what}: garbled");

            let parts = plan(b.inputs().facts());
            let want: usize = parts
                .iter()
                .map(|p| ands(&chain.circuit(*p).expect("a circuit").gates))
                .sum();
            assert_eq!(
                ands(&c.gates),
                want,
                "{what}: the plan's AND gates, no more"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 10);
}

#[test]
fn composing_is_the_public_facts_alone() {
    let mut chain = Chain::from_files().expect("the embedded circuit files");
    let flags = Flags {
        first_turn: false,
        must_try: true,
        name_capturer: false,
        limit: true,
    };
    let once = compose(&chain, false, 9, 5, flags).expect("composes");
    let again = compose(&chain, false, 9, 5, flags).expect("composes");
    assert_eq!(once.gates, again.gates);
    assert_eq!(once.output_gates, again.output_gates);
    assert_eq!(
        once.input_gates,
        vec![
            FIXED_BITS,
            9 * KEY_BITS,
            5 * ITEM_BITS,
            FRESH_BITS,
            FRESH_BITS
        ]
    );
    let other = compose(
        &chain,
        false,
        9,
        5,
        Flags {
            limit: false,
            ..flags
        },
    )
    .expect("composes");
    assert_ne!(
        once.gates, other.gates,
        "the flags are constants of the circuit"
    );
    let first = Part::Earlier4 { white: false };
    let c = chain.circuit(first).expect("a circuit");
    assert_eq!(
        ands(&once.gates[2..2 + c.gates.len()]),
        ands(&c.gates),
        "the first circuit's gates come first, after the two constants"
    );
}
