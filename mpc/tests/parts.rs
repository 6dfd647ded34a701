//! Gate counts of the circuit's parts (printed; `--nocapture`).

fn ands(src: &str) -> (usize, std::time::Duration) {
    let t = std::time::Instant::now();
    let p = garble_lang::compile(src).unwrap_or_else(|e| panic!("{}", e.prettify(src)));
    (p.circuit.ands(), t.elapsed())
}

#[test]
fn parts() {
    let sha = include_str!("../src/garble/sha256.garble.rs");
    println!(
        "sha256 block: {:?}",
        ands(&format!(
            "{sha}\npub fn main(a: [u32; 16], b: [u32; 8]) -> [u32; 8] {{ compress(initial_hash(), a) }}"
        ))
    );
}
