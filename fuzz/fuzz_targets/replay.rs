//! Score text of any variant, as `sealed replay <variant>` reads it: the first byte
//! picks the variant, the rest is the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sealed_games::variant::Variant;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let all: Vec<Variant> = Variant::all().collect();
    let variant = all[usize::from(which) % all.len()];
    if let Ok(text) = std::str::from_utf8(rest) {
        let _ = variant.replay(text);
    }
});
