// The legal moves of the side to move, as sets: what checks and pins allow (a legal-move
// generator in the manner of chess engines, on bitboards), so that "is there a legal move"
// and "is there a legal pawn capture" cost a few dozen fills, not one test per move. The
// rules are sealed-chess's (chess/src/movegen.rs): a move is legal if no king of the
// mover is attacked after it; castling as in Chess960, the king not in check and not
// crossing or landing on an attacked square, every square between king and target and
// between king and rook empty, and the rook's target too.

struct Guard {
    check: bool,
    // Where a move of a piece other than the king must end: anywhere, on a checker or
    // between it and the king, or nowhere (double check).
    evasion: u64,
    pinned: u64,
    // Per direction from the king: the pinned piece, and the line it may move on (the
    // squares between the king and the pinner, and the pinner).
    pins: [u64; 8],
    lines: [u64; 8],
    // Every square the opponent attacks with the king lifted off the board.
    danger: u64,
}

fn guard(p: Pos, white: bool) -> Guard {
    let us = side(p, white);
    let them = side(p, !white);
    let occ = occupied(p);
    let kb = p.k[5] & us;
    let rq = (p.k[3] | p.k[4]) & them;
    let bq = (p.k[2] | p.k[4]) & them;
    let mut checkers = (knight_att(kb) & p.k[1] & them) | (pawn_att(kb, white) & p.k[0] & them);
    let mut block = 0u64;
    let mut pinned = 0u64;
    let mut pins = [0u64; 8];
    let mut lines = [0u64; 8];
    let mut d = 0u8;
    let mut i = 0usize;
    for _dir in 0u8..8u8 {
        let sl = if d < 4u8 { rq } else { bq };
        let r = ray(kb, occ, d);
        let first = r & occ;
        let chk = first & sl;
        checkers = checkers | chk;
        block = block | (r & mask(nz(chk)));
        let cand = first & us;
        let r2 = ray(cand, occ, d);
        let pin = nz(r2 & occ & sl);
        pins[i] = cand & mask(pin);
        pinned = pinned | pins[i];
        lines[i] = ((r ^ cand) ^ r2) & mask(pin);
        d = d + 1u8;
        i = i + 1usize;
    }
    let check = nz(checkers);
    let evasion = if several(checkers) {
        0u64
    } else {
        if check { block | checkers } else { all() }
    };
    Guard {
        check: check,
        evasion: evasion,
        pinned: pinned,
        pins: pins,
        lines: lines,
        danger: attacked(p, !white, occ ^ kb),
    }
}

// The pawns of the side to move that may take en passant, each tested by making the
// capture: the only move whose legality a pin mask cannot tell (two pawns leave a rank).
fn en_passant(p: Pos, white: bool) -> u64 {
    let us = side(p, white);
    let them = side(p, !white);
    let occ = occupied(p);
    let kb = p.k[5] & us;
    let ours = p.k[0] & us;
    let taken = if white { s1(p.ep) } else { n1(p.ep) };
    let left = (if white { sw1(p.ep) } else { nw1(p.ep) }) & ours;
    let right = (if white { se1(p.ep) } else { ne1(p.ep) }) & ours;
    let rq = (p.k[3] | p.k[4]) & them;
    let bq = (p.k[2] | p.k[4]) & them;
    let near = (knight_att(kb) & p.k[1] & them) | (pawn_att(kb, white) & p.k[0] & them & !taken);
    let mut out = 0u64;
    for c in [left, right] {
        let occ2 = occ ^ c ^ p.ep ^ taken;
        let hit = (rook_att(kb, occ2) & rq) | (bishop_att(kb, occ2) & bq) | near;
        out = out | (c & mask(!nz(hit)));
    }
    out
}

// The rooks the side to move may castle with now (0, 1 or 2 of them).
fn castles(p: Pos, white: bool, g: Guard) -> u64 {
    let us = side(p, white);
    let them = side(p, !white);
    let occ = occupied(p);
    let kb = p.k[5] & us;
    let back = back_rank(white);
    let rights = p.cr & p.k[3] & us & back;
    let home = nz(kb & back);
    let east = e1(fill_e(kb, all()));
    let west = w1(fill_w(kb, all()));
    let rq = (p.k[3] | p.k[4]) & them;
    let bq = (p.k[2] | p.k[4]) & them;
    let mut out = 0u64;
    let mut short = true;
    for _side in 0u8..2u8 {
        let rook = rights & (if short { east } else { west });
        let king_to = back & (if short { 4629771061636907072u64 } else { 289360691352306692u64 });
        let rook_to = back & (if short { 2314885530818453536u64 } else { 578721382704613384u64 });
        // Squares strictly between two squares of the back rank.
        let to_east = e1(fill_e(king_to, all()));
        let to_west = w1(fill_w(king_to, all()));
        let r_east = e1(fill_e(rook, all()));
        let r_west = w1(fill_w(rook, all()));
        let king_path = (east & to_west) | (west & to_east) | king_to;
        let king_rook = (east & r_west) | (west & r_east);
        let others = occ & !kb & !rook;
        let free = !nz((king_path | king_rook | rook_to) & others);
        let safe_path = !g.check & !nz(king_path & g.danger);
        let occ2 = others | king_to | rook_to;
        let hit = (rook_att(king_to, occ2) & rq) | (bishop_att(king_to, occ2) & bq)
            | (knight_att(king_to) & p.k[1] & them) | (pawn_att(king_to, white) & p.k[0] & them)
            | (king_att(king_to) & p.k[5] & them);
        out = out | (rook & mask(home & free & safe_path & !nz(hit)));
        short = false;
    }
    out
}

// Whether the side to move has a legal move, and whether it has a legal pawn capture (en
// passant included): the checkmate and stalemate test, and the answer to "Any?".
struct Exists {
    any: bool,
    pawn_capture: bool,
}

fn exists(p: Pos, white: bool) -> Exists {
    let g = guard(p, white);
    let us = side(p, white);
    let them = side(p, !white);
    let occ = occupied(p);
    let empty = !occ;
    let kb = p.k[5] & us;
    let free = us & !g.pinned;
    let land = !us & g.evasion;
    let knights = knight_att(free & p.k[1]) & land;
    let diag = bishop_att(free & (p.k[2] | p.k[4]), occ) & land;
    let orth = rook_att(free & (p.k[3] | p.k[4]), occ) & land;
    let fp = free & p.k[0];
    let third = if white { rank_3() } else { rank_6() };
    let push1 = forward(fp, white) & empty;
    let push2 = forward(push1 & third, white) & empty;
    let caps = pawn_att(fp, white) & them & g.evasion;
    let mut pinned_moves = 0u64;
    let mut pinned_caps = 0u64;
    let mut d = 0u8;
    let mut i = 0usize;
    for _dir in 0u8..8u8 {
        let pd = g.pins[i];
        let line = g.lines[i];
        let slider = if d < 4u8 { p.k[3] | p.k[4] } else { p.k[2] | p.k[4] };
        let along = line & mask(nz(pd & slider));
        let pp = pd & p.k[0];
        let pushes = if d < 2u8 {
            let one = forward(pp, white) & empty & line;
            one | (forward(one & third, white) & empty & line)
        } else {
            0u64
        };
        let takes = if d >= 4u8 { pawn_att(pp, white) & them & line } else { 0u64 };
        pinned_moves = pinned_moves | ((along | pushes | takes) & g.evasion);
        pinned_caps = pinned_caps | (takes & g.evasion);
        d = d + 1u8;
        i = i + 1usize;
    }
    let king = king_att(kb) & !us & !g.danger;
    let ep = en_passant(p, white);
    let others = knights | diag | orth | ((push1 | push2) & g.evasion) | caps | pinned_moves;
    Exists {
        any: nz(others | king | ep | castles(p, white, g)),
        pawn_capture: nz(caps | pinned_caps | ep),
    }
}
