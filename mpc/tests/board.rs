//! The bitboard primitives of the circuit against a plain ray walk, on random boards.

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn walk(sq: u8, occ: u64, dirs: &[(i8, i8)], slide: bool) -> u64 {
    let (f, r) = ((sq % 8) as i8, (sq / 8) as i8);
    let mut out = 0u64;
    for (df, dr) in dirs {
        let (mut x, mut y) = (f + df, r + dr);
        while (0..8).contains(&x) && (0..8).contains(&y) {
            let s = (y * 8 + x) as u64;
            out |= 1 << s;
            if !slide || occ >> s & 1 == 1 {
                break;
            }
            x += df;
            y += dr;
        }
    }
    out
}

const ORTH: [(i8, i8); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
const DIAG: [(i8, i8); 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];
const KNIGHT: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (-1, 2),
    (-2, 1),
    (1, -2),
    (2, -1),
    (-1, -2),
    (-2, -1),
];

#[test]
fn attacks_and_decoder_match_a_ray_walk() {
    let main = "pub fn main(a: (u64, u8), b: u8) -> (u64, u64, u64, u64, u64, bool, u8) {
        let (occ, sq) = a;
        let s = onehot(sq);
        // Garble refuses a function nobody calls: the rest of the library, used once.
        let rest = (rank_1() ^ rank_3() ^ rank_6() ^ rank_8()) & pawn_att(s, true) & forward(s, false)
            & mask(nz(s)) & (sub8(b, 1u8) as u64);
        (rook_att(s, occ), bishop_att(s, occ), knight_att(s), king_att(s) ^ (rest & 0u64), s, several(occ), count(occ ^ (b as u64)))
    }";
    let src = format!("{}\n{main}", include_str!("../src/garble/board.garble.rs"));
    let prg = garble_lang::compile(&src).unwrap_or_else(|e| panic!("{}", e.prettify(&src)));
    println!("ANDs {}", prg.circuit.ands());
    let mut rng = Rng(99);
    for _ in 0..300 {
        let occ = rng.next() & rng.next();
        let sq = (rng.next() % 66) as u8;
        let b = (rng.next() % 256) as u8;
        let mut ev = prg.evaluator();
        ev.parse_literal(&format!("({occ}u64, {sq}u8)")).unwrap();
        ev.parse_literal(&format!("{b}u8")).unwrap();
        let out = ev.run().unwrap().into_literal().unwrap();
        let text = out.to_string();
        let s = if sq < 64 { 1u64 << sq } else { 0 };
        let (r, bi, n, k) = if sq < 64 {
            (
                walk(sq, occ, &ORTH, true),
                walk(sq, occ, &DIAG, true),
                walk(sq, occ, &KNIGHT, false),
                walk(
                    sq,
                    occ,
                    &[
                        (0, 1),
                        (0, -1),
                        (1, 0),
                        (-1, 0),
                        (1, 1),
                        (1, -1),
                        (-1, 1),
                        (-1, -1),
                    ],
                    false,
                ),
            )
        } else {
            (0, 0, 0, 0)
        };
        let want = format!(
            "({r}, {bi}, {n}, {k}, {s}, {}, {})",
            occ.count_ones() >= 2,
            (occ ^ u64::from(b)).count_ones()
        );
        assert_eq!(text, want, "occ {occ} sq {sq}");
    }
}
