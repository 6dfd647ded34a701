//! What the attempt's circuit costs when its shape's flags are inputs rather than
//! constants compiled in (docs/design/circuits-as-data.md: a bounded set of circuits
//! needs who moves, the first turn, `must-try`, `name-capturer` and the ply limit as
//! public input bits). For a few shapes, the AND gates of the circuit compiled today
//! (`kept::source`) against the same computation with the five flags read from an input,
//! one mover's fresh bits chosen by `white`; and with the mover compiled in and the
//! other four read. Gates only: the choice of one file or one per mover rests on these.
//!
//! `cargo run --release -p sealed-mpc --example flags`

use sealed_mpc::kept::{self, KeptShape};

/// The attempt's program of `shape` with its flags as an input: the library and the
/// state as `kept::source` writes them, then a `main` of its own.
fn with_flag_inputs(shape: &KeptShape, mover_input: bool) -> String {
    let src = kept::source(shape);
    let cut = src
        .find("\nstruct Fresh")
        .expect("the attempt's main follows the library");
    let w = shape.window.max(1);
    let e = shape.earlier.max(1);
    // The mover compiled in, or read from the flags like the other four.
    let white = if mover_input {
        "flags.white".to_owned()
    } else {
        shape.mover_white.to_string()
    };
    format!(
        "{}
struct Fresh {{
    attempt: u16,
    pad: Answer,
}}

struct Flags {{
    white: bool,
    first_turn: bool,
    must_try: bool,
    name_capturer: bool,
    limit: bool,
}}

pub fn main(fixed: Fixed, window: [Key; {w}], earlier: [u16; {e}], white: Fresh, black: Fresh, flags: Flags) -> (bool, Answer, Answer, Key, Fixed) {{
    let p = fixed.pos;
    let mover = if {white} {{ white }} else {{ black }};
    let other = if {white} {{ black }} else {{ white }};
    let home = if {white} {{ fixed.homes[0usize] }} else {{ fixed.homes[1usize] }};
    let (answer, made, ka) = attempt(p, mover.attempt, earlier, {white}, home, flags.first_turn, flags.must_try, flags.name_capturer, flags.limit, window, fixed.hk, fixed.ep_last);
    let yes = answer.code == 1u8;
    let after = made.pos;
    let next = Fixed {{
        pos: if yes {{ after }} else {{ p }},
        ep_last: if yes & made.irreversible {{ after.ep }} else {{ fixed.ep_last }},
        homes: fixed.homes,
        hk: fixed.hk,
    }};
    (yes, mask_answer(answer, mover.pad), mask_answer(heard(answer), other.pad), ka, next)
}}
",
        &src[..cut]
    )
}

fn main() {
    println!(
        "| shape | AND gates, flags compiled in | the mover compiled in, four flags as inputs | ratio | all five flags as inputs | ratio |"
    );
    println!("|---|---|---|---|---|---|");
    for (window, earlier, mover_white) in [(8, 4, true), (8, 4, false), (24, 8, true)] {
        let shape = KeptShape {
            mover_white,
            window,
            earlier,
            first_turn: false,
            must_try: true,
            name_capturer: true,
            limit: false,
        };
        let fixed = kept::compile(&shape).expect("the shape compiles");
        let four = kept::compile_source(&with_flag_inputs(&shape, false)).expect("compiles");
        let five = kept::compile_source(&with_flag_inputs(&shape, true)).expect("compiles");
        let (a, b, c) = (
            fixed.circuit.ands(),
            four.circuit.ands(),
            five.circuit.ands(),
        );
        println!(
            "| window {window}, earlier {earlier}, {} moves | {a} | {b} | {:.3} | {c} | {:.3} |",
            if mover_white { "White" } else { "Black" },
            b as f64 / a as f64,
            c as f64 / a as f64
        );
    }
}
