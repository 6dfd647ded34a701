// The referee's function for one attempt, from the two players' private inputs. The
// program generator (src/program.rs) writes around this file the input types with their
// sizes, the message layouts of the commitments, the replay of the moves so far and
// `main`; what is the same for every shape of game is here.

// What the mover is told (games/src/stallmate/answer.rs), and the silence of the attempt
// for his opponent (games/src/stallmate/suppress.rs).
struct Answer {
    // 0 illegal, 1 yes, 2 no (to "Any?"), 3 try, 4 pawn capture first.
    code: u8,
    capture: bool,
    at: u8,
    en_passant: bool,
    by_pawn: bool,
    rank: u8,
    file: u8,
    long: u8,
    short: u8,
    knight: u8,
    // 0 none, 1 checkmate, 2 stalemate, 3 bare kings, 4 repetition, 5 ply limit.
    end: u8,
    // With a stalemate: the pieces left on the board.
    pieces: u8,
    // 0 heard, 1 not his piece, 2 never moves so, 3 repeated, 4 no pawns, 5 asked again,
    // 6 too early.
    silence: u8,
}

fn mask_answer(a: Answer, pad: Answer) -> Answer {
    Answer {
        code: a.code ^ pad.code,
        capture: a.capture ^ pad.capture,
        at: a.at ^ pad.at,
        en_passant: a.en_passant ^ pad.en_passant,
        by_pawn: a.by_pawn ^ pad.by_pawn,
        rank: a.rank ^ pad.rank,
        file: a.file ^ pad.file,
        long: a.long ^ pad.long,
        short: a.short ^ pad.short,
        knight: a.knight ^ pad.knight,
        end: a.end ^ pad.end,
        pieces: a.pieces ^ pad.pieces,
        silence: a.silence ^ pad.silence,
    }
}

// What the opponent hears of the attempt (games/src/stallmate/announce.rs): nothing, an
// "illegal", "Any?" with its answer, or the announcements of the move made — the same
// fields as the mover's answer, with the code and silence saying which.
fn heard(a: Answer) -> Answer {
    let silent = (a.silence != 0u8) | (a.code == 4u8);
    let told = !silent;
    let made = told & (a.code == 1u8);
    Answer {
        code: if told { a.code } else { 4u8 },
        capture: a.capture & made,
        at: if made & a.capture { a.at } else { 0u8 },
        en_passant: a.en_passant & made,
        by_pawn: a.by_pawn & made,
        rank: if made { a.rank } else { 0u8 },
        file: if made { a.file } else { 0u8 },
        long: if made { a.long } else { 0u8 },
        short: if made { a.short } else { 0u8 },
        knight: if made { a.knight } else { 0u8 },
        end: if made { a.end } else { 0u8 },
        pieces: if made { a.pieces } else { 0u8 },
        silence: 0u8,
    }
}

fn item_any(item: u16) -> bool { item == 65535u16 }
fn item_from(item: u16) -> u8 { (item & 63u16) as u8 }
fn item_to(item: u16) -> u8 { ((item >> 6u8) & 63u16) as u8 }
fn item_promo(item: u16) -> u8 { ((item >> 12u8) & 7u16) as u8 }

// Whether a move attempt is a pawn capture in a form that could be legal (games'
// `is_pawn_capture`): the mover's pawn, one square diagonally forward, the promotion named
// exactly on the last rank. What meets the must-try obligation.
fn pawn_capture_form(p: Pos, item: u16, white: bool, home: u8) -> bool {
    let from = item_from(item);
    let to = item_to(item);
    let pawn = nz(onehot(from) & p.k[0] & side(p, white));
    let kind = [true, false, false, false, false, false];
    !item_any(item) & pawn & ((from & 7u8) != (to & 7u8))
        & !never_moves_so(kind, white, from, to, item_promo(item), home)
}

// The position as repetition reads it, less its en passant chance: each square's class
// in three bitboards (empty 000, pawn 001, knight 010, bishop 011, rook 100, queen 101,
// king 110, read bit by bit from `a`, `b`, `c`), the white men, and the castling rights,
// which only ever stand on the first and last ranks. The kinds' boards are disjoint, so
// each class bit is an XOR of boards: no AND gate, 273 bits in all (with the en passant
// flag) rather than the 513 of the boards themselves. `Key` and `key` (the exact key, or
// its fingerprint) are the program's: src/garble/exact_key.garble.rs, src/fingerprint.rs.
struct Exact {
    a: u64,
    b: u64,
    c: u64,
    w: u64,
    cr: u16,
}

fn exact(p: Pos) -> Exact {
    Exact {
        a: p.k[0] ^ p.k[2] ^ p.k[4],
        b: p.k[1] ^ p.k[2] ^ p.k[5],
        c: p.k[3] ^ p.k[4] ^ p.k[5],
        w: p.w,
        cr: ((p.cr & 255u64) as u16) ^ (((p.cr >> 48u8) & 65280u64) as u16),
    }
}

// The ending a made move brings on the position after it (games/src/stallmate/referee.rs
// `make`): checkmate, stalemate, bare kings, threefold repetition, the ply limit, first
// match wins. `repeated` says the position stood twice before.
struct Ending {
    end: u8,
    pieces: u8,
}

fn ending(after: Pos, mover_white: bool, gives_check: bool, repeated: bool, limit: bool) -> Ending {
    let e = exists(after, !mover_white);
    let occ = occupied(after);
    let mate = gives_check & !e.any;
    let stale = !gives_check & !e.any;
    let bare = occ == after.k[5];
    let rep = repeated;
    let end = if mate {
        1u8
    } else if stale {
        2u8
    } else if bare {
        3u8
    } else if rep {
        4u8
    } else if limit {
        5u8
    } else {
        0u8
    };
    Ending { end: end, pieces: if stale { count(occ) } else { 0u8 } }
}

// One attempt judged on `p` (the mover `white` to move): `earlier` are the attempts he
// made before it this period, `home` his king's first square, `turn` says whether it is
// his first turn, `seen_after` the earlier positions the position after a move may
// repeat (those with the same side to move), `hk` what `key` needs besides the position
// (the fingerprint's key, or nothing for the exact key), `ep_last` the en passant square
// just after the last irreversible move. The options come as constants. It gives the
// answer, the move as made, and the key of the position after it (computed once: a
// fingerprint is about 1,800 AND gates to compile).
fn attempt(p: Pos, item: u16, earlier: [u16; EARLIER], white: bool, home: u8, first_turn: bool, must_try: bool, name_capturer: bool, limit: bool, seen_after: [Key; SEEN], hk: HASH_KEY, ep_last: u64) -> (Answer, Made, Key) {
    let g = guard(p, white);
    let now = exists(p, white);
    let castling = castles(p, white, g);
    let us = side(p, white);
    let has_pawns = nz(p.k[0] & us);
    // The earlier attempts: which were judged illegal (not refused for must-try), whether
    // "Any?" was asked, and whether a "try" still obliges a pawn capture.
    let mut pending = false;
    let mut asked = false;
    let mut repeated = false;
    for e in earlier {
        let any = item_any(e);
        let form = pawn_capture_form(p, e, white, home);
        let refused = must_try & pending & !any & !form;
        repeated = repeated | (!any & !refused & (e == item));
        asked = asked | any;
        pending = (any & now.pawn_capture) | (pending & !(!refused & form));
    }
    let any = item_any(item);
    let form = pawn_capture_form(p, item, white, home);
    let refused = must_try & pending & !any & !form;
    let from = item_from(item);
    let to = item_to(item);
    let promo = item_promo(item);
    let j = judge_move(p, g, castling, from, to, promo, white);
    let after = j.made.pos;
    let c = checks(after, white);
    // How often the position after the move stood already: the same placement, castling
    // rights and side to move; an earlier position just after a double step differs from
    // it only if taking en passant was legal there (the chance counts in the key), and
    // such a position can only be the one after the last irreversible move.
    let ka = key(after, hk);
    let probe = Pos { k: after.k, w: after.w, b: after.b, ep: ep_last, cr: after.cr };
    let ep_chance = nz(en_passant(probe, !white));
    // Only "twice or more" matters (the third occurrence ends the game): two flags, not
    // a count.
    let mut once = false;
    let mut twice = false;
    for s in seen_after {
        let same = same_key(s, ka) & !(s.ep & ep_chance);
        twice = twice | (once & same);
        once = once | same;
    }
    let ends = ending(after, white, c.any, twice, limit);
    let yes = !any & !refused & j.legal;
    let code = if any {
        if now.pawn_capture { 3u8 } else { 2u8 }
    } else if refused {
        4u8
    } else if yes {
        1u8
    } else {
        0u8
    };
    let never = never_moves_so(j.kind, white, from, to, promo, home);
    let silence = if any {
        if !has_pawns { 4u8 } else if asked { 5u8 } else if first_turn { 6u8 } else { 0u8 }
    } else if refused | yes {
        0u8
    } else if !j.own {
        1u8
    } else if never {
        2u8
    } else if repeated {
        3u8
    } else {
        0u8
    };
    let answer = Answer {
        code: code,
        capture: yes & j.made.capture,
        at: if yes & j.made.capture { to } else { 0u8 },
        en_passant: yes & j.made.en_passant,
        by_pawn: yes & j.made.capture & name_capturer & j.kind[0],
        rank: if yes { c.rank } else { 0u8 },
        file: if yes { c.file } else { 0u8 },
        long: if yes { c.long } else { 0u8 },
        short: if yes { c.short } else { 0u8 },
        knight: if yes { c.knight } else { 0u8 },
        end: if yes { ends.end } else { 0u8 },
        pieces: if yes { ends.pieces } else { 0u8 },
        silence: silence,
    };
    (answer, j.made, ka)
}
