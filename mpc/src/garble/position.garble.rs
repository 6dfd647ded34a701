// A position and a move made on it, as the sealed-chess crate makes it (chess/src/play.rs):
// castling is the king onto its own rook and lands on the standard squares (king g/c,
// rook f/d); a double step opens en passant on the square it crossed; a king that moves
// gives up its castling rights, a rook that moves or is taken gives up its own.
//
// Kinds, as indices of `k` and as codes of a back rank and a promotion: 0 pawn, 1 knight,
// 2 bishop, 3 rook, 4 queen, 5 king.

struct Pos {
    k: [u64; 6],
    w: u64,
    b: u64,
    ep: u64,
    cr: u64,
}

fn side(p: Pos, white: bool) -> u64 {
    if white { p.w } else { p.b }
}

fn occupied(p: Pos) -> u64 {
    p.w ^ p.b
}

fn back_rank(white: bool) -> u64 {
    if white { rank_1() } else { rank_8() }
}

// The start position: White's back rank `wr` and Black's `br` (the kinds from the a-file
// to the h-file), pawns on ranks 2 and 7, every rook keeping its castling right.
fn start(wr: [u8; 8], br: [u8; 8]) -> Pos {
    let mut k = [0u64; 6];
    k[0] = 71776119061282560u64;
    let mut j = 1usize;
    let mut code = 1u8;
    for _kind in 1u8..6u8 {
        let mut bb = 0u64;
        let mut f = 0usize;
        let mut at = 0u8;
        for _file in 0u8..8u8 {
            bb = bb ^ (((wr[f] == code) as u64) << at);
            bb = bb ^ (((br[f] == code) as u64) << (at + 56u8));
            f = f + 1usize;
            at = at + 1u8;
        }
        k[j] = bb;
        j = j + 1usize;
        code = code + 1u8;
    }
    Pos { k: k, w: 65535u64, b: 18446462598732840960u64, ep: 0u64, cr: k[3] }
}

// The square a back rank's king starts on, for the side `white`.
fn king_home(rank: [u8; 8], white: bool) -> u8 {
    let mut home = 0u8;
    let mut f = 0usize;
    let mut at = if white { 0u8 } else { 56u8 };
    for _file in 0u8..8u8 {
        home = home ^ (if rank[f] == 5u8 { at } else { 0u8 });
        f = f + 1usize;
        at = at + 1u8;
    }
    home
}

// Whether a back rank is one of Chess960's: two rooks with the king between them, two
// bishops on squares of both colours, two knights, one queen.
fn valid_rank(r: [u8; 8]) -> bool {
    let mut n = [0u8; 6];
    let mut kings_seen = 0u8;
    let mut rooks_before_king = 0u8;
    let mut light = 0u8;
    let mut ok = true;
    let mut f = 0usize;
    for _file in 0u8..8u8 {
        let c = r[f];
        ok = ok & (c >= 1u8) & (c <= 5u8);
        let mut j = 1usize;
        let mut code = 1u8;
        for _kind in 1u8..6u8 {
            n[j] = add8(n[j], (c == code) as u8);
            j = j + 1usize;
            code = code + 1u8;
        }
        let rook = c == 3u8;
        rooks_before_king = add8(rooks_before_king, (rook & (kings_seen == 0u8)) as u8);
        kings_seen = add8(kings_seen, (c == 5u8) as u8);
        // a1 is dark: the files b, d, f, h are light on the first rank.
        light = add8(light, ((c == 2u8) & ((f & 1usize) == 1usize)) as u8);
        f = f + 1usize;
    }
    ok & (n[1] == 2u8) & (n[2] == 2u8) & (n[3] == 2u8) & (n[4] == 1u8) & (n[5] == 1u8)
        & (rooks_before_king == 1u8) & (light == 1u8)
}

// What a move changed besides the board: whether it can never be undone (a pawn moved, a
// piece was taken), so no earlier position can come back.
struct Made {
    pos: Pos,
    irreversible: bool,
    capture: bool,
    en_passant: bool,
    pawn: bool,
    castle: bool,
}

// The move `from`-`to` (promoting to `promo`, 0 for none) of the side `white` says, made
// on `p` as a legal move is made. Castling is the king onto its own rook.
fn make(p: Pos, from: u8, to: u8, promo: u8, white: bool) -> Made {
    let fb = onehot(from);
    let tb = onehot(to);
    let us = side(p, white);
    let them = side(p, !white);
    let mut moved = [false; 6];
    let mut j = 0usize;
    for _kind in 0u8..6u8 {
        moved[j] = nz(p.k[j] & fb);
        j = j + 1usize;
    }
    let pawn = moved[0];
    let king = moved[5];
    let castle = king & nz(tb & p.k[3] & us);
    let en_passant = pawn & nz(tb & p.ep);
    let capture = (nz(tb & them) & !castle) | en_passant;
    let double = pawn & nz(tb & forward(forward(fb, white), white));
    let mut landed = [false; 6];
    landed[0] = pawn & (promo == 0u8);
    landed[1] = moved[1] | (pawn & (promo == 1u8));
    landed[2] = moved[2] | (pawn & (promo == 2u8));
    landed[3] = moved[3] | (pawn & (promo == 3u8));
    landed[4] = moved[4] | (pawn & (promo == 4u8));
    landed[5] = moved[5];
    let taken_ep = (if white { s1(tb) } else { n1(tb) }) & mask(en_passant);
    let both = fb ^ tb;
    let mut k = [0u64; 6];
    j = 0usize;
    for _kind in 0u8..6u8 {
        k[j] = (p.k[j] & !both) ^ (tb & mask(landed[j]));
        j = j + 1usize;
    }
    k[0] = k[0] & !taken_ep;
    let mut us2 = us ^ both;
    let them2 = them & !tb & !taken_ep;
    // Castling: the king to g or c, the rook to f or d, on its own back rank.
    let short = (to & 7u8) > (from & 7u8);
    let king_to = if white {
        if short { 64u64 } else { 4u64 }
    } else {
        if short { 4611686018427387904u64 } else { 288230376151711744u64 }
    };
    let rook_to = if white {
        if short { 32u64 } else { 8u64 }
    } else {
        if short { 2305843009213693952u64 } else { 576460752303423488u64 }
    };
    let kings_c = (p.k[5] & !fb) ^ king_to;
    let rooks_c = (p.k[3] & !tb) ^ rook_to;
    let us_c = (us & !fb & !tb) ^ king_to ^ rook_to;
    k[5] = if castle { kings_c } else { k[5] };
    k[3] = if castle { rooks_c } else { k[3] };
    us2 = if castle { us_c } else { us2 };
    let lost = (if king { back_rank(white) & us } else { 0u64 }) | both;
    let pos = Pos {
        k: k,
        w: if white { us2 } else { them2 },
        b: if white { them2 } else { us2 },
        ep: forward(fb, white) & mask(double),
        cr: p.cr & !lost,
    };
    Made { pos: pos, irreversible: pawn | capture, capture: capture, en_passant: en_passant, pawn: pawn, castle: castle }
}

// The pieces of the side `by_white` that attack a square of `s`, over the occupancy `occ`.
fn attackers(p: Pos, s: u64, by_white: bool, occ: u64) -> u64 {
    let by = side(p, by_white);
    let diag = bishop_att(s, occ) & (p.k[2] | p.k[4]);
    let orth = rook_att(s, occ) & (p.k[3] | p.k[4]);
    let near = (knight_att(s) & p.k[1]) | (pawn_att(s, !by_white) & p.k[0]) | (king_att(s) & p.k[5]);
    (diag | orth | near) & by
}

// Every square the side `by_white` attacks over the occupancy `occ`.
fn attacked(p: Pos, by_white: bool, occ: u64) -> u64 {
    let by = side(p, by_white);
    let diag = bishop_att((p.k[2] | p.k[4]) & by, occ);
    let orth = rook_att((p.k[3] | p.k[4]) & by, occ);
    diag | orth | pawn_att(p.k[0] & by, by_white) | knight_att(p.k[1] & by) | king_att(p.k[5] & by)
}
