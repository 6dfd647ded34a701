//! A position's fingerprint for threefold repetition, in the computation with the state
//! kept (`kept.rs`): 64 bits that stand for the 273 bits of its exact key, so that
//! comparing a position with each earlier one in the mover's window costs 63 AND gates
//! rather than 273.
//!
//! Why a keyed hash and not a shorter exact encoding: comparing two positions exactly
//! costs about one AND gate per bit compared, and a key cannot be much shorter than the
//! position; the window grows by one position a move until a capture empties it (pawn
//! moves are secret, so nothing public shortens it), and with it the cost of a move
//! (issue 35: ply 100 must cost at most 1.2× ply 1). A fingerprint is computed once per
//! attempt (three multiplications in GF(2⁶⁴), about 1,800 AND gates) and each comparison
//! is then a quarter of what it was.
//!
//! The hash is the pseudo-dot product over GF(2⁶⁴) (the field mod
//! `x⁶⁴ + x⁴ + x³ + x + 1`): with the key `k₀..k₄` and the key's five blocks
//! `x₀..x₄` (the class bitboards `a`, `b`, `c`, the white men `w`, the castling rights),
//! `H = (x₀ ⊕ k₀)(x₁ ⊕ k₁) ⊕ (x₂ ⊕ k₂)(x₃ ⊕ k₃) ⊕ x₄·k₄`. For two different keys,
//! `H(x) ⊕ H(x')` is an affine function of `k` whose linear part is not zero (the
//! coefficient of `k₁` is `x₀ ⊕ x₀'`, and so on), so over a uniform `k` two positions
//! collide with probability 2⁻⁶⁴: universal hashing (the pseudo-dot product of Winograd,
//! as in NMH/NH, over a field).
//!
//! The key is uniform and unknown to both players until the end: each player's seed gives
//! his share (`gc::seed::Stream::hash_share`), the start computation XORs the two shares
//! inside the circuit, and the key stays in the garbled state. A player chooses his moves
//! without knowing it, and learns nothing of it during play but whether a threefold
//! repetition ended the game; the audit opens both seeds, so it computes the same
//! fingerprints. A false repetition needs two different positions of one window to
//! collide: 2⁻⁶⁴ a pair, about 2⁻⁵² for a game's few thousand pairs.
//!
//! The multiplication is written out for the circuit as Karatsuba's down to single bits
//! (729 AND gates for 64 × 64 bits; the castling rights' 16 bits cost fewer, the zeros
//! being folded), generated here rather than written by hand.

use std::fmt::Write as _;

/// The field's reduction: `x⁶⁴ = x⁴ + x³ + x + 1`.
const REDUCE: [usize; 4] = [0, 1, 3, 4];

/// Product of `a` and `b` in GF(2⁶⁴), in the clear.
pub fn gf_mul(a: u64, b: u64) -> u64 {
    let mut wide = 0u128;
    for i in 0..64 {
        if (b >> i) & 1 == 1 {
            wide ^= u128::from(a) << i;
        }
    }
    let mut c = [false; 127];
    for (i, bit) in c.iter_mut().enumerate() {
        *bit = (wide >> i) & 1 == 1;
    }
    reduction(|from, to| c[to] ^= c[from]);
    (0..64).fold(0u64, |acc, i| acc | u64::from(c[i]) << i)
}

/// The reduction of a product's 127 coefficients: `fold(from, to)` adds coefficient
/// `from` (64 and up) into `to`, highest first (a high coefficient may land above 63
/// again, and is then folded in its turn). The clear product folds bits, the circuit's
/// lists of terms.
fn reduction(mut fold: impl FnMut(usize, usize)) {
    for from in (64..127).rev() {
        for r in REDUCE {
            fold(from, from - 64 + r);
        }
    }
}

/// A position's exact key, as the fingerprint reads it: the three class bitboards, the
/// white men and the castling rights (the en passant chance is compared apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exact {
    /// The classes' first bit.
    pub a: u64,
    /// Their second.
    pub b: u64,
    /// Their third.
    pub c: u64,
    /// The white men.
    pub w: u64,
    /// The castling rights.
    pub cr: u16,
}

/// The fingerprint of `x` under `key`, in the clear: what the circuit's `fingerprint`
/// computes.
pub fn fingerprint(x: &Exact, key: &[u64; 5]) -> u64 {
    gf_mul(x.a ^ key[0], x.b ^ key[1])
        ^ gf_mul(x.c ^ key[2], x.w ^ key[3])
        ^ gf_mul(u64::from(x.cr), key[4])
}

/// The Garble source of `fn gf_mul(a: u64, b: u64) -> u64` (the product in GF(2⁶⁴)) and
/// of `fn fingerprint(x: Exact, k: [u64; 5]) -> u64` (`Exact` is the library's,
/// src/garble/referee.garble.rs).
pub fn garble_source() -> String {
    let mut g = Gen::default();
    let a: Vec<Bit> = (0..64).map(|i| g.bit_of("a", i)).collect();
    let b: Vec<Bit> = (0..64).map(|i| g.bit_of("b", i)).collect();
    let mut c = g.mul(&a, &b);
    c.resize(127, Bit::Zero);
    let mut folded: Vec<Vec<Bit>> = c.iter().map(|&x| vec![x]).collect();
    // The reduction is linear: each low coefficient is an XOR of product coefficients.
    reduction(|from, to| {
        let v = folded[from].clone();
        folded[to].extend(v);
    });
    let out: Vec<Bit> = folded
        .iter()
        .take(64)
        .map(|terms| g.xor_all(terms))
        .collect();
    let mut s = String::from("fn gf_mul(a: u64, b: u64) -> u64 {\n");
    s.push_str(&g.body);
    s.push_str("    let mut r = 0u64;\n");
    for (i, bit) in out.iter().enumerate() {
        if let Bit::Var(v) = bit {
            let _ = writeln!(s, "    r = r ^ ((t{v} as u64) << {i}u8);");
        }
    }
    s.push_str("    r\n}\n");
    s.push_str(
        "
fn fingerprint(x: Exact, k: [u64; 5]) -> u64 {
    (gf_mul(x.a ^ k[0usize], x.b ^ k[1usize]) ^ gf_mul(x.c ^ k[2usize], x.w ^ k[3usize]) ^ gf_mul(x.cr as u64, k[4usize]))
}
",
    );
    s
}

/// A bit of the generated function: known zero, or a variable `tN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bit {
    Zero,
    Var(usize),
}

/// The straight-line body being written, one `let` a gate.
#[derive(Default)]
struct Gen {
    body: String,
    next: usize,
}

impl Gen {
    fn fresh(&mut self, expr: &str) -> Bit {
        let v = self.next;
        self.next += 1;
        let _ = writeln!(self.body, "    let t{v} = {expr};");
        Bit::Var(v)
    }

    fn bit_of(&mut self, word: &str, i: usize) -> Bit {
        self.fresh(&format!("(({word} >> {i}u8) & 1u64) != 0u64"))
    }

    fn xor(&mut self, x: Bit, y: Bit) -> Bit {
        match (x, y) {
            (Bit::Zero, o) | (o, Bit::Zero) => o,
            (Bit::Var(p), Bit::Var(q)) => self.fresh(&format!("t{p} ^ t{q}")),
        }
    }

    fn and(&mut self, x: Bit, y: Bit) -> Bit {
        match (x, y) {
            (Bit::Zero, _) | (_, Bit::Zero) => Bit::Zero,
            (Bit::Var(p), Bit::Var(q)) => self.fresh(&format!("t{p} & t{q}")),
        }
    }

    fn xor_all(&mut self, terms: &[Bit]) -> Bit {
        terms.iter().fold(Bit::Zero, |acc, &t| self.xor(acc, t))
    }

    /// The carry-less product of two polynomials of equal length (a power of two), by
    /// Karatsuba's split: `a₀b₀ + ((a₀+a₁)(b₀+b₁) − a₀b₀ − a₁b₁)·xⁿ + a₁b₁·x²ⁿ`.
    fn mul(&mut self, a: &[Bit], b: &[Bit]) -> Vec<Bit> {
        let n = a.len();
        if a.iter().all(|&x| x == Bit::Zero) || b.iter().all(|&x| x == Bit::Zero) {
            return vec![Bit::Zero; 2 * n - 1];
        }
        if n == 1 {
            return vec![self.and(a[0], b[0])];
        }
        let h = n / 2;
        let (a0, a1) = a.split_at(h);
        let (b0, b1) = b.split_at(h);
        let low = self.mul(a0, b0);
        let high = self.mul(a1, b1);
        let sa: Vec<Bit> = (0..h).map(|i| self.xor(a0[i], a1[i])).collect();
        let sb: Vec<Bit> = (0..h).map(|i| self.xor(b0[i], b1[i])).collect();
        let mid = self.mul(&sa, &sb);
        let mut out = vec![Bit::Zero; 2 * n - 1];
        for i in 0..2 * h - 1 {
            out[i] = self.xor(out[i], low[i]);
            out[i + 2 * h] = self.xor(out[i + 2 * h], high[i]);
            let m = self.xor(mid[i], low[i]);
            let m = self.xor(m, high[i]);
            out[i + h] = self.xor(out[i + h], m);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference: the product bit by bit, reduced by long division.
    fn slow(a: u64, b: u64) -> u64 {
        let mut r = 0u64;
        let mut x = a;
        for i in 0..64 {
            if (b >> i) & 1 == 1 {
                r ^= x;
            }
            let carry = x >> 63;
            x <<= 1;
            if carry == 1 {
                x ^= 0b1_1011;
            }
        }
        r
    }

    #[test]
    fn the_product_is_the_fields() {
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..2000 {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let a = s;
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let b = s;
            assert_eq!(gf_mul(a, b), slow(a, b));
            assert_eq!(gf_mul(a, b), gf_mul(b, a));
        }
        assert_eq!(gf_mul(1 << 63, 2), 0b1_1011);
        assert_eq!(gf_mul(1, 0xDEAD_BEEF), 0xDEAD_BEEF);
    }

    fn compiled(main: &str) -> garble_lang::GarbleProgram {
        let src = format!("{}\n{main}", garble_source());
        crate::kept::compile_source(&src).expect("compiles")
    }

    fn eval(prg: &garble_lang::GarbleProgram, args: &[String]) -> String {
        let bits: Vec<Vec<bool>> = args
            .iter()
            .enumerate()
            .map(|(i, a)| prg.parse_arg(i, a).expect("an argument").as_bits())
            .collect();
        let out = prg.circuit.eval(&bits);
        prg.parse_output(&out).expect("an output").to_string()
    }

    /// The circuit's product and fingerprint are the clear ones, and cost what the
    /// module says: 729 AND gates a product, fewer for the castling rights' 16 bits.
    #[test]
    fn the_circuit_computes_the_clear_functions() {
        let prg = compiled("pub fn main(a: u64, b: u64) -> u64 { gf_mul(a, b) }");
        assert_eq!(prg.circuit.unwrap_ssa_ref().and_gates(), 729);
        let fp = compiled(
            "struct Exact {\n    a: u64,\n    b: u64,\n    c: u64,\n    w: u64,\n    cr: u16,\n}\n\npub fn main(x: [u64; 4], cr: u16, k: [u64; 5]) -> u64 { fingerprint(Exact { a: x[0usize], b: x[1usize], c: x[2usize], w: x[3usize], cr: cr }, k) }",
        );
        let ands = fp.circuit.unwrap_ssa_ref().and_gates();
        assert!(ands < 3 * 729, "{ands} AND gates");
        let mut s = 0x0123_4567_89AB_CDEFu64;
        let mut next = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s
        };
        for _ in 0..20 {
            let (a, b) = (next(), next());
            let got = eval(&prg, &[format!("{a}u64"), format!("{b}u64")]);
            assert_eq!(got, gf_mul(a, b).to_string());
            let x = Exact {
                a: next(),
                b: next(),
                c: next(),
                w: next(),
                cr: next() as u16,
            };
            let k = [next(), next(), next(), next(), next()];
            let got = eval(
                &fp,
                &[
                    format!("[{}u64, {}u64, {}u64, {}u64]", x.a, x.b, x.c, x.w),
                    format!("{}u16", x.cr),
                    format!(
                        "[{}u64, {}u64, {}u64, {}u64, {}u64]",
                        k[0], k[1], k[2], k[3], k[4]
                    ),
                ],
            );
            assert_eq!(got, fingerprint(&x, &k).to_string());
        }
    }

    /// Keys that differ in any one bit have different fingerprints under this hash key
    /// (each difference is a nonzero product: `δ·(x₁ ⊕ k₁)` for a bit of `x₀`, and so
    /// on).
    #[test]
    fn fingerprints_differ_and_are_never_padding() {
        let k = [3, 5, 7, 11, 13];
        let base = Exact {
            a: 1,
            b: 2,
            c: 4,
            w: 8,
            cr: 16,
        };
        let f = fingerprint(&base, &k);
        for bit in 0..64 {
            for which in 0..5 {
                let mut x = base;
                match which {
                    0 => x.a ^= 1 << bit,
                    1 => x.b ^= 1 << bit,
                    2 => x.c ^= 1 << bit,
                    3 => x.w ^= 1 << bit,
                    _ => x.cr ^= 1 << (bit % 16),
                }
                assert_ne!(fingerprint(&x, &k), f, "block {which} bit {bit}");
            }
        }
    }
}
