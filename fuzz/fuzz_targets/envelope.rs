//! Envelope bytes against fixed Duel terms: decode, version, game, seat, strict signature.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use sealed_conformance::duel_kit::duel_terms;
use sealed_games::duel::Duel;
use sealed_protocol::envelope::Signed;
use sealed_protocol::proposal::Terms;

fn terms() -> &'static Terms {
    static TERMS: OnceLock<Terms> = OnceLock::new();
    TERMS.get_or_init(|| duel_terms(&Duel::default(), 1))
}

fuzz_target!(|data: &[u8]| {
    let _ = Signed::parse(terms(), data);
});
