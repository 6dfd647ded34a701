//! Live sessions of a real game, every seat played through its game's table (what a
//! node drives), the fuzz input choosing each step: deliver an envelope in flight (the
//! next, or any: reordered), deliver one already delivered again, repair a seat from
//! another (`Envelopes::after` its counts, as the nodes' sync does), deliver one mutated
//! and re-signed with the seat's test key (a forgery, so it gets past the signature),
//! deliver one with its bytes changed and not re-signed, a command of the person (a bot's
//! legal act, one of the game's choices, arbitrary text, resign, draws, withdraw,
//! decline, a claim, the game's duty), take one or all of a seat's actions (persist,
//! send), a crash and restore of a seat from what it stored (what it had not taken out
//! of its session is lost), a clock tick. The first byte picks the game: Duel, Tempête,
//! Cardmate, Chex or Secret Stallmate (with its referee). The driver lives in
//! `session_world.rs`; the checks are listed there.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "session_world.rs"]
mod session_world;

fuzz_target!(|data: &[u8]| {
    session_world::run(data);
});
