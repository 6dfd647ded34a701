//! spec/vectors/garbling.json: the garbling conventions of spec/GAMES.md §5.13.6 in
//! bytes, for a second implementation to check its own against. A block is written as
//! the hex of its 16 little-endian bytes. The vector holds the fixed key, one seed's
//! stream (its key, `Δ`, input zero labels), one AND gate garbled with every value on the
//! way (the tweaks, `T_G`, `T_E`, the output zero label), and `window8.bristol` garbled
//! whole from the seed (every input wire's zero label the stream's), with the hash of its
//! rows, its first row, its output zero labels, and one evaluation decoded. Written by
//! `cargo run -p sealed-mpc --bin circuits`, checked by `mpc/tests/garbling_vector.rs`,
//! which recomputes each value from the formulas, not from this code.

use std::fmt::Write as _;

use super::{ChainError, files};
use crate::gc::garble::rows_bytes;
use crate::gc::seed::Stream;
use crate::gc::{Block, Circuit, Gate, evaluate, garble, hash, input_count};

/// The seed of the vector: bytes 0, 1, …, 31.
pub fn seed() -> [u8; 32] {
    std::array::from_fn(|i| i as u8)
}

/// A block as the vector writes it.
pub fn hex(b: Block) -> String {
    files::hex(&b.to_le_bytes())
}

/// The input bits of the whole circuit's evaluation: wire `w` carries `w mod 3 == 1`.
pub fn circuit_bit(w: usize) -> bool {
    w % 3 == 1
}

/// The run the AND gate is garbled in, and the whole circuit's.
pub const GATE_RUN: u64 = 1;
/// See [`GATE_RUN`].
pub const CIRCUIT_RUN: u64 = 2;

/// The vector's text, `window8` the circuit of `window8.bristol` (`files::part`).
pub fn garbling(window8: &Circuit) -> Result<String, ChainError> {
    let seed = seed();
    let stream = Stream::new(&seed);
    let delta = stream.delta();
    let mut s = String::new();
    let fixed_key = files::hex(&hash::fixed_key());
    let seed_hex = files::hex(&seed);
    let _ = writeln!(s, "{{");
    let _ = writeln!(
        s,
        "  \"description\": \"spec/GAMES.md 5.13.6 in bytes: a block is the hex of its 16 little-endian bytes; stream_key = SHA-256(\\\"sealed/v2/garble/seed\\\" || seed)[0..16]; fixed_key = SHA-256(\\\"sealed/v2/garble/fixed-key\\\")[0..16]; stream block n = AES-128 under stream_key of n as 16 little-endian bytes; delta = block 2^128-1 with its lowest bit set; the zero label of input wire w of run r = block r*2^64+w; H(x, i) = pi(pi(x) xor i) xor pi(x), pi = AES-128 under fixed_key; the k-th AND gate of run r uses tweaks r*2^64+2k and r*2^64+2k+1\","
    );
    let _ = writeln!(s, "  \"fixed_key\": \"{fixed_key}\",");
    let _ = writeln!(s, "  \"seed\": \"{seed_hex}\",");
    let key = {
        use sha2_010::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(b"sealed/v2/garble/seed");
        h.update(seed);
        h.finalize()
    };
    let key = files::hex(&key[..16]);
    let _ = writeln!(s, "  \"stream_key\": \"{key}\",");
    let _ = writeln!(s, "  \"delta\": \"{}\",", hex(delta));
    let _ = writeln!(s, "  \"input_zero\": [");
    let picks = [(0u64, 0u64), (1, 0), (1, 1), (2, 596), (u64::MAX >> 1, 7)];
    for (i, (run, wire)) in picks.iter().enumerate() {
        let comma = if i + 1 < picks.len() { "," } else { "" };
        let _ = writeln!(
            s,
            "    {{ \"run\": {run}, \"wire\": {wire}, \"label\": \"{}\" }}{comma}",
            hex(stream.input_zero(*run, *wire))
        );
    }
    let _ = writeln!(s, "  ],");
    let and = Circuit {
        input_gates: vec![1, 1],
        gates: vec![Gate::And(0, 1)],
        output_gates: vec![2],
    };
    let g = garble(&and, &stream, GATE_RUN, &[]);
    let (a0, b0) = (
        g.input(0, false).unwrap_or_default(),
        g.input(1, false).unwrap_or_default(),
    );
    let j = u128::from(GATE_RUN) << 64;
    let row = g.rows.first().copied().unwrap_or_default();
    let _ = writeln!(
        s,
        "  \"and_gate\": {{ \"run\": {GATE_RUN}, \"k\": 0, \"a0\": \"{}\", \"b0\": \"{}\", \"tweak_g\": \"{}\", \"tweak_e\": \"{}\", \"t_g\": \"{}\", \"t_e\": \"{}\", \"out0\": \"{}\" }},",
        hex(a0),
        hex(b0),
        hex(j),
        hex(j | 1),
        hex(row[0]),
        hex(row[1]),
        hex(g.output_zero(0).unwrap_or_default())
    );
    let c = window8;
    let g = garble(c, &stream, CIRCUIT_RUN, &[]);
    let rows = rows_bytes(&g.rows);
    let first = g.rows.first().copied().unwrap_or_default();
    let labels: Vec<Block> = (0..input_count(c))
        .filter_map(|w| g.input(w, circuit_bit(w)))
        .collect();
    let out = evaluate(c, &g.rows, CIRCUIT_RUN, &labels).map_err(|_| ChainError::Source {
        what: "window8 does not evaluate its own garbling",
    })?;
    let bits = g.decode(&out).map_err(|_| ChainError::Source {
        what: "window8's own evaluation does not decode",
    })?;
    let list = |xs: &[Block]| {
        xs.iter()
            .map(|x| format!("\"{}\"", hex(*x)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let zeros: Vec<Block> = (0..c.output_gates.len())
        .filter_map(|k| g.output_zero(k))
        .collect();
    let _ = writeln!(s, "  \"circuit\": {{");
    let _ = writeln!(s, "    \"file\": \"window8.bristol\",");
    let _ = writeln!(s, "    \"run\": {CIRCUIT_RUN},");
    let _ = writeln!(
        s,
        "    \"note\": \"every input wire w's zero label is the stream's input zero label of (run, w); the evaluation's input bit of wire w is w mod 3 == 1\","
    );
    let _ = writeln!(s, "    \"rows\": {},", g.rows.len());
    let _ = writeln!(s, "    \"rows_sha256\": \"{}\",", files::sha256_hex(&rows));
    let _ = writeln!(s, "    \"first_row\": [{}],", list(&first));
    let _ = writeln!(s, "    \"output_zero\": [{}],", list(&zeros));
    let _ = writeln!(s, "    \"evaluated\": [{}],", list(&out));
    let decoded: String = bits.iter().map(|b| if *b { '1' } else { '0' }).collect();
    let _ = writeln!(s, "    \"decoded\": \"{decoded}\"");
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "}}");
    Ok(s)
}
