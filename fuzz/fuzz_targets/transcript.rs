//! Transcript file bytes: the whole offline check, replay and verdict included.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = sealed_games::variant::check_transcript(data);
});
