//! A node core driven with any sequence of inputs (`sealed_drive`): proposals of
//! every variant, chained and equivocating envelopes, `Heads`, `Pull`, `Introduce` of
//! any address, connections, failed writes, answers, ticks and restarts, as a player,
//! a mailbox, a witness or a referee (the first byte says which). The driver panics
//! if a bound breaks: a dial to an address an introduction may not give, a quota passed
//! in memory or in the store, a third envelope at one position, writes piling up.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = sealed_drive::run(data);
});
