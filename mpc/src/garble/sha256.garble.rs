// SHA-256 (FIPS 180-4), for the commitments the circuit checks its inputs against. The
// additions wrap (a ripple-carry adder, 31 AND gates); rotations are wiring. The messages
// are laid out into blocks by functions the program generator writes (src/program.rs).

fn add32(a: u32, b: u32) -> u32 {
    let mut out = 0u32;
    let mut carry = false;
    let mut i = 0u8;
    for _bit in 0u8..32u8 {
        let x = ((a >> i) & 1u32) == 1u32;
        let y = ((b >> i) & 1u32) == 1u32;
        out = out ^ ((((x ^ y) ^ carry) as u32) << i);
        carry = carry ^ ((x ^ carry) & (y ^ carry));
        i = i + 1u8;
    }
    out
}

fn rotr(x: u32, n: u8) -> u32 {
    (x >> n) ^ (x << (32u8 - n))
}

fn round_constants() -> [u32; 64] {
    [
        1116352408u32, 1899447441u32, 3049323471u32, 3921009573u32, 961987163u32, 1508970993u32,
        2453635748u32, 2870763221u32, 3624381080u32, 310598401u32, 607225278u32, 1426881987u32,
        1925078388u32, 2162078206u32, 2614888103u32, 3248222580u32, 3835390401u32, 4022224774u32,
        264347078u32, 604807628u32, 770255983u32, 1249150122u32, 1555081692u32, 1996064986u32,
        2554220882u32, 2821834349u32, 2952996808u32, 3210313671u32, 3336571891u32, 3584528711u32,
        113926993u32, 338241895u32, 666307205u32, 773529912u32, 1294757372u32, 1396182291u32,
        1695183700u32, 1986661051u32, 2177026350u32, 2456956037u32, 2730485921u32, 2820302411u32,
        3259730800u32, 3345764771u32, 3516065817u32, 3600352804u32, 4094571909u32, 275423344u32,
        430227734u32, 506948616u32, 659060556u32, 883997877u32, 958139571u32, 1322822218u32,
        1537002063u32, 1747873779u32, 1955562222u32, 2024104815u32, 2227730452u32, 2361852424u32,
        2428436474u32, 2756734187u32, 3204031479u32, 3329325298u32,
    ]
}

fn initial_hash() -> [u32; 8] {
    [
        1779033703u32, 3144134277u32, 1013904242u32, 2773480762u32, 1359893119u32, 2600822924u32,
        528734635u32, 1541459225u32,
    ]
}

fn compress(h: [u32; 8], block: [u32; 16]) -> [u32; 8] {
    let k = round_constants();
    let mut w = [0u32; 64];
    let mut t = 0usize;
    for _t in 0u8..64u8 {
        if t < 16usize {
            w[t] = block[t];
        } else {
            let a = w[t - 15usize];
            let b = w[t - 2usize];
            let s0 = rotr(a, 7u8) ^ rotr(a, 18u8) ^ (a >> 3u8);
            let s1 = rotr(b, 17u8) ^ rotr(b, 19u8) ^ (b >> 10u8);
            w[t] = add32(add32(w[t - 16usize], s0), add32(w[t - 7usize], s1));
        }
        t = t + 1usize;
    }
    let mut a = h[0];
    let mut b = h[1];
    let mut c = h[2];
    let mut d = h[3];
    let mut e = h[4];
    let mut f = h[5];
    let mut g = h[6];
    let mut hh = h[7];
    t = 0usize;
    for _t in 0u8..64u8 {
        let s1 = rotr(e, 6u8) ^ rotr(e, 11u8) ^ rotr(e, 25u8);
        let ch = g ^ (e & (f ^ g));
        let t1 = add32(add32(hh, s1), add32(add32(ch, k[t]), w[t]));
        let s0 = rotr(a, 2u8) ^ rotr(a, 13u8) ^ rotr(a, 22u8);
        let maj = (a & (b ^ c)) ^ (b & c);
        let t2 = add32(s0, maj);
        hh = g;
        g = f;
        f = e;
        e = add32(d, t1);
        d = c;
        c = b;
        b = a;
        a = add32(t1, t2);
        t = t + 1usize;
    }
    [
        add32(h[0], a), add32(h[1], b), add32(h[2], c), add32(h[3], d),
        add32(h[4], e), add32(h[5], f), add32(h[6], g), add32(h[7], hh),
    ]
}
