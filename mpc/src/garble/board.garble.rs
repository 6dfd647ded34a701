// Bitboards: bit i of a u64 is square i = rank * 8 + file (a1 = 0, h1 = 7, h8 = 63), as
// in the sealed-chess crate. A shift by a constant costs no gate, `^` and `!` none, `&`
// one AND gate a bit and `|` one (a | b = a ^ b ^ (a & b)): the fills below are written
// to spend as few `&` and `|` as the job allows.

fn not_a() -> u64 { 18374403900871474942u64 }
fn not_h() -> u64 { 9187201950435737471u64 }
fn not_ab() -> u64 { 18229723555195321596u64 }
fn not_gh() -> u64 { 4557430888798830399u64 }
fn rank_1() -> u64 { 255u64 }
fn rank_3() -> u64 { 16711680u64 }
fn rank_6() -> u64 { 280375465082880u64 }
fn rank_8() -> u64 { 18374686479671623680u64 }
fn all() -> u64 { 18446744073709551615u64 }

fn n1(x: u64) -> u64 { x << 8u8 }
fn s1(x: u64) -> u64 { x >> 8u8 }
fn e1(x: u64) -> u64 { (x << 1u8) & not_a() }
fn w1(x: u64) -> u64 { (x >> 1u8) & not_h() }
fn ne1(x: u64) -> u64 { (x << 9u8) & not_a() }
fn nw1(x: u64) -> u64 { (x << 7u8) & not_h() }
fn se1(x: u64) -> u64 { (x >> 7u8) & not_a() }
fn sw1(x: u64) -> u64 { (x >> 9u8) & not_h() }

// Occluded fills (Kogge-Stone): `g` spread through the squares of `p` in one direction,
// `g` included. The ray a slider attacks is the fill shifted one step on.
fn fill_n(g: u64, p: u64) -> u64 {
    let g = g | (p & (g << 8u8));
    let p = p & (p << 8u8);
    let g = g | (p & (g << 16u8));
    let p = p & (p << 16u8);
    g | (p & (g << 32u8))
}
fn fill_s(g: u64, p: u64) -> u64 {
    let g = g | (p & (g >> 8u8));
    let p = p & (p >> 8u8);
    let g = g | (p & (g >> 16u8));
    let p = p & (p >> 16u8);
    g | (p & (g >> 32u8))
}
fn fill_e(g: u64, p: u64) -> u64 {
    let p = p & not_a();
    let g = g | (p & (g << 1u8));
    let p = p & (p << 1u8);
    let g = g | (p & (g << 2u8));
    let p = p & (p << 2u8);
    g | (p & (g << 4u8))
}
fn fill_w(g: u64, p: u64) -> u64 {
    let p = p & not_h();
    let g = g | (p & (g >> 1u8));
    let p = p & (p >> 1u8);
    let g = g | (p & (g >> 2u8));
    let p = p & (p >> 2u8);
    g | (p & (g >> 4u8))
}
fn fill_ne(g: u64, p: u64) -> u64 {
    let p = p & not_a();
    let g = g | (p & (g << 9u8));
    let p = p & (p << 9u8);
    let g = g | (p & (g << 18u8));
    let p = p & (p << 18u8);
    g | (p & (g << 36u8))
}
fn fill_nw(g: u64, p: u64) -> u64 {
    let p = p & not_h();
    let g = g | (p & (g << 7u8));
    let p = p & (p << 7u8);
    let g = g | (p & (g << 14u8));
    let p = p & (p << 14u8);
    g | (p & (g << 28u8))
}
fn fill_se(g: u64, p: u64) -> u64 {
    let p = p & not_a();
    let g = g | (p & (g >> 7u8));
    let p = p & (p >> 7u8);
    let g = g | (p & (g >> 14u8));
    let p = p & (p >> 14u8);
    g | (p & (g >> 28u8))
}
fn fill_sw(g: u64, p: u64) -> u64 {
    let p = p & not_h();
    let g = g | (p & (g >> 9u8));
    let p = p & (p >> 9u8);
    let g = g | (p & (g >> 18u8));
    let p = p & (p >> 18u8);
    g | (p & (g >> 36u8))
}

// The squares a slider on `s` reaches in direction `d` over the occupancy `occ`, up to
// and including the first occupied one. Directions: 0 N, 1 S, 2 E, 3 W (orthogonal),
// 4 NE, 5 NW, 6 SE, 7 SW (diagonal); `d` is always a constant.
fn ray(s: u64, occ: u64, d: u8) -> u64 {
    let empty = !occ;
    match d {
        0u8 => n1(fill_n(s, empty)),
        1u8 => s1(fill_s(s, empty)),
        2u8 => e1(fill_e(s, empty)),
        3u8 => w1(fill_w(s, empty)),
        4u8 => ne1(fill_ne(s, empty)),
        5u8 => nw1(fill_nw(s, empty)),
        6u8 => se1(fill_se(s, empty)),
        _ => sw1(fill_sw(s, empty)),
    }
}

fn rook_att(s: u64, occ: u64) -> u64 {
    ray(s, occ, 0u8) | ray(s, occ, 1u8) | ray(s, occ, 2u8) | ray(s, occ, 3u8)
}
fn bishop_att(s: u64, occ: u64) -> u64 {
    ray(s, occ, 4u8) | ray(s, occ, 5u8) | ray(s, occ, 6u8) | ray(s, occ, 7u8)
}
fn knight_att(s: u64) -> u64 {
    let h1 = ((s >> 1u8) & not_h()) | ((s << 1u8) & not_a());
    let h2 = ((s >> 2u8) & not_gh()) | ((s << 2u8) & not_ab());
    (h1 << 16u8) | (h1 >> 16u8) | (h2 << 8u8) | (h2 >> 8u8)
}
fn king_att(s: u64) -> u64 {
    let side = e1(s) | w1(s);
    let row = s | side;
    side | n1(row) | s1(row)
}
// The squares pawns of that colour on `s` attack.
fn pawn_att(s: u64, white: bool) -> u64 {
    if white { ne1(s) | nw1(s) } else { se1(s) | sw1(s) }
}
fn forward(s: u64, white: bool) -> u64 {
    if white { n1(s) } else { s1(s) }
}

fn nz(x: u64) -> bool { x != 0u64 }
fn mask(b: bool) -> u64 { if b { all() } else { 0u64 } }

// Whether `x` has two bits or more.
fn several(x: u64) -> bool {
    let mut one = false;
    let mut two = false;
    let mut i = 0u8;
    for _ in 0u8..64u8 {
        let bit = ((x >> i) & 1u64) == 1u64;
        two = two | (one & bit);
        one = one | bit;
        i = i + 1u8;
    }
    two
}

// How many bits `x` has (0..=64).
fn count(x: u64) -> u8 {
    let mut n = 0u8;
    let mut i = 0u8;
    for _ in 0u8..64u8 {
        n = add8(n, ((x >> i) & 1u64) as u8);
        i = i + 1u8;
    }
    n
}

// Addition that wraps (a ripple-carry adder, one AND gate a bit): Garble's own `+`
// checks for overflow and would add panic bits to the output.
fn add8(a: u8, b: u8) -> u8 {
    let mut out = 0u8;
    let mut carry = false;
    let mut i = 0u8;
    for _ in 0u8..8u8 {
        let x = ((a >> i) & 1u8) == 1u8;
        let y = ((b >> i) & 1u8) == 1u8;
        out = out ^ ((((x ^ y) ^ carry) as u8) << i);
        carry = carry ^ ((x ^ carry) & (y ^ carry));
        i = i + 1u8;
    }
    out
}

fn sub8(a: u8, b: u8) -> u8 {
    add8(add8(a, !b), 1u8)
}

// The one-hot bitboard of a square index (a 6-bit decoder: 64 + 24 AND gates); 0 when
// the index is 64 or more.
fn onehot(sq: u8) -> u64 {
    let mut lo = [false; 8];
    let mut hi = [false; 8];
    let b0 = (sq & 1u8) == 1u8;
    let b1 = (sq & 2u8) == 2u8;
    let b2 = (sq & 4u8) == 4u8;
    let b3 = (sq & 8u8) == 8u8;
    let b4 = (sq & 16u8) == 16u8;
    let b5 = (sq & 32u8) == 32u8;
    let ok = (sq & 192u8) == 0u8;
    let p0 = [!b0 & !b1, b0 & !b1, !b0 & b1, b0 & b1];
    let q0 = [!b3 & !b4, b3 & !b4, !b3 & b4, b3 & b4];
    let mut j = 0usize;
    for _ in 0u8..4u8 {
        lo[j] = p0[j] & !b2;
        lo[j + 4usize] = p0[j] & b2;
        hi[j] = q0[j] & !b5 & ok;
        hi[j + 4usize] = q0[j] & b5 & ok;
        j = j + 1usize;
    }
    let mut out = 0u64;
    let mut r = 0usize;
    let mut shift = 0u8;
    for _ in 0u8..8u8 {
        let mut f = 0usize;
        for _ in 0u8..8u8 {
            out = out ^ (((hi[r] & lo[f]) as u64) << shift);
            shift = shift + 1u8;
            f = f + 1usize;
        }
        r = r + 1usize;
    }
    out
}
