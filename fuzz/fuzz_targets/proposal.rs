//! Signed proposal bytes: decode and every check of the terms.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sealed_protocol::proposal::Terms;

fuzz_target!(|data: &[u8]| {
    let _ = Terms::parse(data);
});
