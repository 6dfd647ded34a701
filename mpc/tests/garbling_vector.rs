//! spec/vectors/garbling.json checked from the formulas of spec/GAMES.md §5.13.6, not
//! from the garbler's code: the fixed key and the stream's key are SHA-256 prefixes, a
//! stream block and `π` are AES-128 straight from the `aes` crate, and the AND gate's
//! `T_G`, `T_E` and output zero label are computed here from `a0`, `b0`, `Δ` and the
//! tweaks. The whole circuit is `spec/circuits/window8.bristol`, read as text and garbled
//! and evaluated by `sealed_mpc::gc`, its rows hashed. The vector is written only by
//! `cargo run -p sealed-mpc --bin circuits`; this test never writes.

use aes::Aes128;
use aes::cipher::generic_array::GenericArray;
use aes::cipher::{BlockEncrypt, KeyInit};
use serde_json::Value;
use sha2_010::{Digest, Sha256};

use sealed_mpc::bristol;
use sealed_mpc::gc::garble::rows_bytes;
use sealed_mpc::gc::seed::Stream;
use sealed_mpc::gc::{evaluate, garble, input_count};

fn load() -> Value {
    let path = format!(
        "{}/../spec/vectors/garbling.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).expect("the vector")).expect("json")
}

fn bytes(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().expect("hex")).expect("hex")
}

fn block(v: &Value) -> u128 {
    u128::from_le_bytes(bytes(v).try_into().expect("16 bytes"))
}

fn num(v: &Value) -> u64 {
    v.as_u64().expect("a number")
}

fn aes(key: &[u8], x: u128) -> u128 {
    let cipher = Aes128::new(GenericArray::from_slice(key));
    let mut b = GenericArray::from(x.to_le_bytes());
    cipher.encrypt_block(&mut b);
    u128::from_le_bytes(b.into())
}

#[test]
fn the_keys_the_stream_and_the_and_gate_follow_the_formulas() {
    let v = load();
    let fixed = &Sha256::digest(b"sealed/v2/garble/fixed-key")[..16];
    assert_eq!(bytes(&v["fixed_key"]), fixed);
    let seed = bytes(&v["seed"]);
    let mut h = Sha256::new();
    h.update(b"sealed/v2/garble/seed");
    h.update(&seed);
    let key = h.finalize()[..16].to_vec();
    assert_eq!(bytes(&v["stream_key"]), key);
    let delta = aes(&key, u128::MAX) | 1;
    assert_eq!(block(&v["delta"]), delta);
    for z in v["input_zero"].as_array().expect("a list") {
        let n = (u128::from(num(&z["run"])) << 64) | u128::from(num(&z["wire"]));
        assert_eq!(block(&z["label"]), aes(&key, n), "{z}");
    }

    let g = &v["and_gate"];
    let (a0, b0) = (block(&g["a0"]), block(&g["b0"]));
    let run = u128::from(num(&g["run"]));
    assert_eq!(a0, aes(&key, run << 64), "a0 is input wire 0's zero label");
    assert_eq!(b0, aes(&key, (run << 64) | 1), "b0 is input wire 1's");
    let j = (run << 64) | (2 * u128::from(num(&g["k"])));
    assert_eq!(block(&g["tweak_g"]), j);
    assert_eq!(block(&g["tweak_e"]), j + 1);
    let pi = |x: u128| aes(fixed, x);
    let hash = |x: u128, i: u128| pi(pi(x) ^ i) ^ pi(x);
    let lsb = |x: u128| x & 1 == 1;
    let tg = hash(a0, j) ^ hash(a0 ^ delta, j) ^ if lsb(b0) { delta } else { 0 };
    let wg = hash(a0, j) ^ if lsb(a0) { tg } else { 0 };
    let te = hash(b0, j + 1) ^ hash(b0 ^ delta, j + 1) ^ a0;
    let we = hash(b0, j + 1) ^ if lsb(b0) { te ^ a0 } else { 0 };
    assert_eq!(block(&g["t_g"]), tg);
    assert_eq!(block(&g["t_e"]), te);
    assert_eq!(block(&g["out0"]), wg ^ we);
}

#[test]
fn window8_garbled_whole_from_the_seed_is_the_vectors() {
    let v = load();
    let c = &v["circuit"];
    let path = format!(
        "{}/../spec/circuits/{}",
        env!("CARGO_MANIFEST_DIR"),
        c["file"].as_str().expect("a name")
    );
    let circuit = bristol::read(&std::fs::read_to_string(path).expect("the file")).expect("reads");
    let stream = Stream::new(&bytes(&v["seed"]).try_into().expect("32 bytes"));
    let run = num(&c["run"]);
    let g = garble(&circuit, &stream, run, &[]);
    assert_eq!(g.rows.len() as u64, num(&c["rows"]));
    let digest: String = Sha256::digest(rows_bytes(&g.rows))
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(c["rows_sha256"].as_str(), Some(digest.as_str()));
    let first: Vec<u128> = c["first_row"]
        .as_array()
        .expect("a row")
        .iter()
        .map(block)
        .collect();
    assert_eq!(first, g.rows[0].to_vec());
    let zeros: Vec<u128> = c["output_zero"]
        .as_array()
        .expect("labels")
        .iter()
        .map(block)
        .collect();
    let ours: Vec<u128> = (0..zeros.len()).filter_map(|k| g.output_zero(k)).collect();
    assert_eq!(zeros, ours);
    let labels: Vec<u128> = (0..input_count(&circuit))
        .filter_map(|w| g.input(w, w % 3 == 1))
        .collect();
    let out = evaluate(&circuit, &g.rows, run, &labels).expect("evaluates");
    let evaluated: Vec<u128> = c["evaluated"]
        .as_array()
        .expect("labels")
        .iter()
        .map(block)
        .collect();
    assert_eq!(out, evaluated);
    let decoded: String = g
        .decode(&out)
        .expect("labels")
        .iter()
        .map(|b| if *b { '1' } else { '0' })
        .collect();
    assert_eq!(c["decoded"].as_str(), Some(decoded.as_str()));
    let bits: Vec<Vec<bool>> = {
        let mut w = 0;
        circuit
            .input_gates
            .iter()
            .map(|n| {
                (0..*n)
                    .map(|_| {
                        w += 1;
                        (w - 1) % 3 == 1
                    })
                    .collect()
            })
            .collect()
    };
    let clear: String = circuit
        .eval(&bits)
        .iter()
        .map(|b| if *b { '1' } else { '0' })
        .collect();
    assert_eq!(
        decoded, clear,
        "the garbled evaluation is the circuit's in the clear"
    );
}
