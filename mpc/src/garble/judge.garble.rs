// One move attempt judged as Secret Stallmate's referee judges it
// (games/src/stallmate/referee.rs): legal or not, and for a legal one what it announces —
// the capture, one check per checking piece by its line, and the ending it brings.

// Long diagonal squares: those whose rising (a1-h8 direction) diagonal is longer than the
// falling one (games/src/stallmate/checks.rs: never equal on 8×8).
fn rising_is_long() -> u64 { 17361641477348724495u64 }

struct Judged {
    legal: bool,
    made: Made,
    // The kind of the mover's own piece on the from-square (index as in `Pos::k`), and
    // whether he has one there.
    own: bool,
    kind: [bool; 6],
}

fn last_rank(white: bool) -> u64 {
    if white { rank_8() } else { rank_1() }
}

// Whether the move from-to (promoting to `promo`) is legal for the side `white`, and
// the position after it.
fn judge_move(p: Pos, g: Guard, castling: u64, from: u8, to: u8, promo: u8, white: bool) -> Judged {
    let fb = onehot(from);
    let tb = onehot(to);
    let us = side(p, white);
    let them = side(p, !white);
    let occ = occupied(p);
    let empty = !occ;
    let mut kind = [false; 6];
    let mut j = 0usize;
    for _kind in 0u8..6u8 {
        kind[j] = nz(fb & p.k[j] & us);
        j = j + 1usize;
    }
    let own = nz(fb & us);
    let reach = (knight_att(fb) & mask(kind[1]))
        | (bishop_att(fb, occ) & mask(kind[2] | kind[4]))
        | (rook_att(fb, occ) & mask(kind[3] | kind[4]))
        | (king_att(fb) & mask(kind[5]));
    let none = promo == 0u8;
    let piece_ok = nz(reach & tb & !us) & none;
    let one = forward(fb, white) & empty;
    let two = forward(one & (if white { rank_3() } else { rank_6() }), white) & empty;
    let hits = pawn_att(fb, white) & (them | p.ep);
    let last = nz(tb & last_rank(white));
    let promo_fits = if last { (promo >= 1u8) & (promo <= 4u8) } else { none };
    let pawn_ok = kind[0] & nz((one | two | hits) & tb) & promo_fits;
    let castle_ok = kind[5] & nz(tb & castling) & none;
    let made = make(p, from, to, promo, white);
    let after = made.pos;
    let king = after.k[5] & side(after, white);
    let safe = !nz(attackers(after, king, !white, occupied(after)));
    Judged {
        legal: ((piece_ok | pawn_ok) & safe) | castle_ok,
        made: made,
        own: own,
        kind: kind,
    }
}

// The checks a move gives, by kind, and whether it gives any: the pieces of the mover
// (`white`) that attack the other king after it, each named by its line from that king.
struct Checks {
    rank: u8,
    file: u8,
    long: u8,
    short: u8,
    knight: u8,
    any: bool,
}

fn checks(p: Pos, white: bool) -> Checks {
    let us = side(p, white);
    let occ = occupied(p);
    let ek = p.k[5] & side(p, !white);
    let rq = (p.k[3] | p.k[4]) & us;
    let bq = (p.k[2] | p.k[4]) & us;
    let pawns = p.k[0] & us;
    let mut on = [false; 8];
    let mut d = 0u8;
    let mut i = 0usize;
    for _dir in 0u8..8u8 {
        let sl = if d < 4u8 { rq } else { bq };
        on[i] = nz(ray(ek, occ, d) & occ & sl);
        d = d + 1u8;
        i = i + 1usize;
    }
    // A pawn checks along a diagonal, from one step below the king it attacks.
    if white {
        on[6] = on[6] | nz(se1(ek) & pawns);
        on[7] = on[7] | nz(sw1(ek) & pawns);
    } else {
        on[4] = on[4] | nz(ne1(ek) & pawns);
        on[5] = on[5] | nz(nw1(ek) & pawns);
    }
    let lr = nz(ek & rising_is_long());
    let rising = add8(on[4] as u8, on[7] as u8);
    let falling = add8(on[5] as u8, on[6] as u8);
    let knights = knight_att(ek) & p.k[1] & us;
    let knight = add8(nz(knights) as u8, several(knights) as u8);
    let rank = add8(on[2] as u8, on[3] as u8);
    let file = add8(on[0] as u8, on[1] as u8);
    let long = if lr { rising } else { falling };
    let short = if lr { falling } else { rising };
    Checks {
        rank: rank,
        file: file,
        long: long,
        short: short,
        knight: knight,
        any: (rank != 0u8) | (file != 0u8) | (rising != 0u8) | (falling != 0u8) | (knight != 0u8),
    }
}

// Whether a piece of that kind (and colour `white`) could never move from-to on any board
// (games/src/stallmate/suppress.rs `never_moves_so`); `home` is where its king starts.
fn never_moves_so(kind: [bool; 6], white: bool, from: u8, to: u8, promo: u8, home: u8) -> bool {
    let ff = from & 7u8;
    let fr = from >> 3u8;
    let tf = to & 7u8;
    let tr = to >> 3u8;
    let adf = if ff > tf { sub8(ff, tf) } else { sub8(tf, ff) };
    let adr = if fr > tr { sub8(fr, tr) } else { sub8(tr, fr) };
    let same = from == to;
    let knight = ((adf == 1u8) & (adr == 2u8)) | ((adf == 2u8) & (adr == 1u8));
    let bishop = adf == adr;
    let rook = (adf == 0u8) | (adr == 0u8);
    let king = ((adf <= 1u8) & (adr <= 1u8)) | ((from == home) & (adr == 0u8));
    let piece_fits = (kind[1] & knight) | (kind[2] & bishop) | (kind[3] & rook)
        | (kind[4] & (bishop | rook)) | (kind[5] & king);
    let ahead = if white { tr > fr } else { tr < fr };
    let start = if white { fr == 1u8 } else { fr == 6u8 };
    let shape = ahead & (((adr == 1u8) & (adf <= 1u8)) | ((adr == 2u8) & (adf == 0u8) & start));
    let last = if white { tr == 7u8 } else { tr == 0u8 };
    let promo_fits = if last { (promo >= 1u8) & (promo <= 4u8) } else { promo == 0u8 };
    let pawn_fits = shape & promo_fits;
    let fits = (!kind[0] & piece_fits & (promo == 0u8)) | (kind[0] & pawn_fits);
    same | !fits
}
