// The exact repetition key, which the one-shot program of the first study
// (src/program.rs) compares, 273 bits: `hk` is unused there (always false). The
// computation with the state kept compares 64-bit fingerprints of the same `Exact`
// instead (src/fingerprint.rs, `kept.rs`).
struct Key {
    x: Exact,
    ep: bool,
}

fn key(p: Pos, hk: bool) -> Key {
    Key { x: exact(p), ep: nz(p.ep) }
}

// Whether two keys are of the same position, en passant aside: one AND gate a bit.
fn same_key(s: Key, k: Key) -> bool {
    (s.x.a == k.x.a) & (s.x.b == k.x.b) & (s.x.c == k.x.c) & (s.x.w == k.x.w) & (s.x.cr == k.x.cr)
}
