//! A netlist as a hostile file could make it (`sealed-mpc`'s `bristol.rs`; the
//! no-referee circuits as data, docs/design/circuits-as-data.md): any bytes read as
//! Bristol Fashion text are a circuit or a typed refusal, never a panic; a circuit read
//! is written and read back to the same gates.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sealed_mpc::bristol::{read, write};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(c) = read(text) {
        let back = read(&write(&c)).expect("a circuit read is written so that it reads");
        assert_eq!(back.gates, c.gates);
        assert_eq!(back.output_gates, c.output_gates);
    }
});
