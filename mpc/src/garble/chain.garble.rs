// The referee's attempt (`attempt` in referee.garble.rs) cut into the parts the chain of
// circuits runs one after another (docs/design/circuits-as-data.md, src/chain/): the fold
// over the period's earlier attempts four at a time, the move judged, the fold over the
// mover's window eight at a time, and the answer finished. Each part computes what
// `attempt` computes, in the same order, so that the chain answers as today's one-shot
// circuit does; what changes is only where a value crosses from one circuit to the next.
// `attempt` stays as it is while the one-shot circuit is played (the protocol's draft
// depends on its exact gates).

// The earlier attempts folded so far. Whether one of them is refused under `must-try`
// depends on whether a legal pawn capture exists now (`exists(p, white).pawn_capture`,
// thousands of AND gates of move generation): rather than compute it in every block, the
// fold runs as if one exists, and keeps beside it what a capture-free position gives
// (there no "try" is ever owed, so nothing is refused and `pending` stays false). The
// attempt's circuit, which computes `exists` anyway, picks one.
struct Fold {
    // Whether a "try" still obliges a pawn capture, a legal one existing.
    pending: bool,
    // Whether "Any?" was asked.
    asked: bool,
    // Whether this attempt repeats one judged illegal, a legal pawn capture existing.
    repeated_owed: bool,
    // The same, none existing.
    repeated: bool,
}

// Four (or any number of) earlier attempts folded on: `item` is this attempt, `home` the
// mover's king's first square.
fn fold_earlier(f: Fold, p: Pos, item: u16, earlier: [u16; 4], white: bool, home: u8, must_try: bool) -> Fold {
    let mut pending = f.pending;
    let mut asked = f.asked;
    let mut repeated_owed = f.repeated_owed;
    let mut repeated = f.repeated;
    for e in earlier {
        let any = item_any(e);
        let form = pawn_capture_form(p, e, white, home);
        let refused = must_try & pending & !any & !form;
        let same = !any & (e == item);
        repeated_owed = repeated_owed | (same & !refused);
        repeated = repeated | same;
        asked = asked | any;
        pending = any | (pending & !(!refused & form));
    }
    Fold { pending: pending, asked: asked, repeated_owed: repeated_owed, repeated: repeated }
}

// The attempt `item` judged on `p` after the earlier ones folded into `f`, as `attempt`
// judges it, but for the repetition of the position after it, which the window's blocks
// fold next, and the two endings that depend on that fold (repetition, the ply limit),
// which `finish_answer` adds. It gives whether a move is made, the answer so far, the
// move as made, the key of the position after it and whether taking en passant was a
// chance there (what the window's blocks compare).
fn judge_attempt(p: Pos, item: u16, f: Fold, white: bool, home: u8, first_turn: bool, must_try: bool, name_capturer: bool, hk: [u64; 5], ep_last: u64) -> (bool, Answer, Made, Key, bool) {
    let g = guard(p, white);
    let now = exists(p, white);
    let castling = castles(p, white, g);
    let us = side(p, white);
    let has_pawns = nz(p.k[0] & us);
    let pending = now.pawn_capture & f.pending;
    let repeated = if now.pawn_capture { f.repeated_owed } else { f.repeated };
    let asked = f.asked;
    let any = item_any(item);
    let form = pawn_capture_form(p, item, white, home);
    let refused = must_try & pending & !any & !form;
    let from = item_from(item);
    let to = item_to(item);
    let promo = item_promo(item);
    let j = judge_move(p, g, castling, from, to, promo, white);
    let after = j.made.pos;
    let c = checks(after, white);
    let ka = key(after, hk);
    let probe = Pos { k: after.k, w: after.w, b: after.b, ep: ep_last, cr: after.cr };
    let ep_chance = nz(en_passant(probe, !white));
    // The endings the position after decides alone; repetition and the ply limit come
    // after them (`ending`'s order), in `finish_answer`.
    let e = exists(after, !white);
    let occ = occupied(after);
    let mate = c.any & !e.any;
    let stale = !c.any & !e.any;
    let bare = occ == after.k[5];
    let end = if mate { 1u8 } else if stale { 2u8 } else if bare { 3u8 } else { 0u8 };
    let pieces = if stale { count(occ) } else { 0u8 };
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
        end: if yes { end } else { 0u8 },
        pieces: if yes { pieces } else { 0u8 },
        silence: silence,
    };
    (yes, answer, j.made, ka, ep_chance)
}

// Eight (or any number of) keys of the mover's window folded on: `pair` is whether the
// position after the move stood once, and twice or more, among the keys folded so far.
fn fold_window(pair: [bool; 2], ka: Key, ep_chance: bool, keys: [Key; 8]) -> [bool; 2] {
    let mut once = pair[0usize];
    let mut twice = pair[1usize];
    for s in keys {
        let same = same_key(s, ka) & !(s.ep & ep_chance);
        twice = twice | (once & same);
        once = once | same;
    }
    [once, twice]
}

// The answer with the endings the window decides: a move made that ends nothing else
// ends the game by repetition if its position stood twice before, else by the ply limit
// if it reaches it.
fn finish_answer(yes: bool, a: Answer, twice: bool, limit: bool) -> Answer {
    let open = yes & (a.end == 0u8);
    Answer {
        code: a.code,
        capture: a.capture,
        at: a.at,
        en_passant: a.en_passant,
        by_pawn: a.by_pawn,
        rank: a.rank,
        file: a.file,
        long: a.long,
        short: a.short,
        knight: a.knight,
        end: if open & twice { 4u8 } else if open & limit { 5u8 } else { a.end },
        pieces: a.pieces,
        silence: a.silence,
    }
}
