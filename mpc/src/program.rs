//! The program for one attempt of one game: the Garble library (`src/garble/`) with the
//! parts that depend on the game's shape written out — the sizes of the players' inputs,
//! the layouts of the messages each commitment hashes, the replay of the moves made so far
//! and `main`. Both players build the same text from public facts (how many moves each
//! has made, how many attempts the mover made before this one this period, the options),
//! so they compile the same circuit.

use std::fmt::Write as _;

/// An exact key no position has (class 111 on every square, which no man has): it
/// repeats nothing.
const NEVER_EXACT: &str = "Key { x: Exact { a: 18446744073709551615u64, b: 18446744073709551615u64, c: 18446744073709551615u64, w: 0u64, cr: 0u16 }, ep: false }";

/// The public shape of one attempt's computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Moves White has made.
    pub white_moves: usize,
    /// Moves Black has made.
    pub black_moves: usize,
    /// Attempts the mover made before this one in the current period (or more: the
    /// list may be padded with zero items, which change nothing).
    pub earlier: usize,
    /// Whether the inputs are checked against the commitments (SHA-256 in the circuit).
    /// Always, in a game; the differential test also runs the chess alone, whose text is
    /// the same, because hashing dominates the time a circuit takes to compile.
    pub commitments: bool,
}

impl Shape {
    /// Whether White is the mover (the side with as many moves as the other).
    pub fn mover_white(&self) -> bool {
        self.white_moves == self.black_moves
    }

    /// Plies made so far.
    pub fn plies(&self) -> usize {
        self.white_moves + self.black_moves
    }

    /// The mover's turn number, from 1.
    pub fn turn(&self) -> usize {
        if self.mover_white() {
            self.white_moves + 1
        } else {
            self.black_moves + 1
        }
    }
}

/// The length in bytes of a committed message of `items` two-byte items: a header (the
/// seat, the game id, a 15-byte salt) and the items.
pub fn message_len(items: usize) -> usize {
    48 + 2 * items
}

/// SHA-256 blocks of a message of `len` bytes.
pub fn blocks(len: usize) -> usize {
    (len + 9).div_ceil(64)
}

/// A Garble function hashing the header and `n` items into its SHA-256 digest, the
/// message laid out byte by byte with constant indices (no gate but the hash's own).
fn digest_fn(name: &str, n: usize) -> String {
    let len = message_len(n);
    let total = blocks(len) * 64;
    let byte = |i: usize| -> String {
        if i == 0 {
            "seat".into()
        } else if i < 33 {
            format!("game[{}usize]", i - 1)
        } else if i < 48 {
            format!("salt[{}usize]", i - 33)
        } else if i < len {
            let t = (i - 48) / 2;
            if (i - 48).is_multiple_of(2) {
                format!("((items[{t}usize] & 255u16) as u8)")
            } else {
                format!("((items[{t}usize] >> 8u8) as u8)")
            }
        } else if i == len {
            "128u8".into()
        } else if i + 8 >= total {
            let bits = (len as u64) * 8;
            let shift = 8 * (total - 1 - i);
            format!("{}u8", (bits >> shift) & 255)
        } else {
            "0u8".into()
        }
    };
    let mut s = format!(
        "fn {name}(seat: u8, game: [u8; 32], salt: [u8; 15], items: [u16; {}]) -> [u32; 8] {{\n    let h = initial_hash();\n",
        n.max(1)
    );
    for b in 0..total / 64 {
        let mut words = vec![];
        for w in 0..16 {
            let i = b * 64 + w * 4;
            words.push(format!(
                "(({} as u32) << 24u8) ^ (({} as u32) << 16u8) ^ (({} as u32) << 8u8) ^ ({} as u32)",
                byte(i),
                byte(i + 1),
                byte(i + 2),
                byte(i + 3)
            ));
        }
        let _ = writeln!(
            s,
            "    let h = compress(h, [\n        {}\n    ]);",
            words.join(",\n        ")
        );
    }
    s.push_str("    h\n}\n");
    s
}

/// The array literal of `name`'s first `n` items, and then `extra` if given.
fn items(name: &str, n: usize, extra: Option<&str>) -> String {
    let mut v: Vec<String> = (0..n).map(|i| format!("{name}[{i}usize]")).collect();
    v.extend(extra.map(str::to_owned));
    if v.is_empty() {
        // Garble has no empty array; a one-item array the digest function never reads.
        v.push("0u16".into());
    }
    format!("[{}]", v.join(", "))
}

/// A back rank as the two items its commitment hashes (three bits a square).
const PACK: &str = "fn pack(rank: [u8; 8]) -> [u16; 2] {
    [
        (rank[0] as u16) ^ ((rank[1] as u16) << 3u8) ^ ((rank[2] as u16) << 6u8) ^ ((rank[3] as u16) << 9u8) ^ ((rank[4] as u16) << 12u8),
        (rank[5] as u16) ^ ((rank[6] as u16) << 3u8) ^ ((rank[7] as u16) << 6u8),
    ]
}

";

/// The Garble source of the computation for `shape`.
pub fn source(shape: &Shape) -> String {
    let mover_white = shape.mover_white();
    let (wm, bm, e) = (shape.white_moves, shape.black_moves, shape.earlier);
    let mm = if mover_white { wm } else { bm };
    let om = if mover_white { bm } else { wm };
    let seat = if mover_white { 0 } else { 1 };
    // Positions with the mover's opponent to move: those the position after a move made
    // now may repeat (the start, then every second ply).
    let plies = shape.plies();
    let after_parity = (plies + 1) % 2;
    let seen: Vec<usize> = (0..=plies).filter(|j| j % 2 == after_parity).collect();
    let lib = crate::circuit::LIBRARY
        .iter()
        .filter(|part| shape.commitments || !part.contains("fn compress("))
        .copied()
        .collect::<Vec<_>>()
        .join("\n")
        .replace("EARLIER", &e.max(1).to_string())
        .replace("SEEN", &seen.len().max(1).to_string())
        .replace("HASH_KEY", "bool");
    let mut s = lib;
    s.push('\n');
    s.push_str(crate::circuit::EXACT_KEY);
    s.push('\n');
    let _ = write!(
        s,
        "
struct Public {{
    game: [u8; 32],
    setup: [[u32; 8]; 2],
    log: [[u32; 8]; 2],
    period: [u32; 8],
    attempt: [u32; 8],
    must_try: bool,
    name_capturer: bool,
    // Whether a move made now reaches the ply limit (the limit and the plies are public).
    limit: bool,
}}

struct Mover {{
    rank: [u8; 8],
    setup_salt: [u8; 15],
    moves: [u16; {mmx}],
    log_salt: [u8; 15],
    next_log_salt: [u8; 15],
    earlier: [u16; {ex}],
    period_salt: [u8; 15],
    next_period_salt: [u8; 15],
    attempt: u16,
    attempt_salt: [u8; 15],
    pad: Answer,
    public: Public,
}}

struct Other {{
    rank: [u8; 8],
    setup_salt: [u8; 15],
    moves: [u16; {omx}],
    log_salt: [u8; 15],
    pad: Answer,
    public: Public,
}}

struct Out {{
    inputs_white: bool,
    inputs_black: bool,
    same_public: bool,
    mover_commitments: bool,
    made: bool,
    mover: Answer,
    other: Answer,
    next_log: [u32; 8],
    next_period: [u32; 8],
}}

",
        mmx = mm.max(1),
        omx = om.max(1),
        ex = e.max(1),
    );
    if shape.commitments {
        s.push_str(PACK);
        s.push_str(&digest_fn("digest_setup", 2));
        s.push_str(&digest_fn("digest_log_white", wm));
        s.push_str(&digest_fn("digest_log_black", bm));
        s.push_str(&digest_fn("digest_log_next", mm + 1));
        s.push_str(&digest_fn("digest_period", e));
        s.push_str(&digest_fn("digest_period_next", e + 1));
        s.push_str(&digest_fn("digest_attempt", 1));
    }
    let (wp, bp) = if mover_white {
        ("white: Mover", "black: Other")
    } else {
        ("white: Other", "black: Mover")
    };
    let (m, o) = if mover_white {
        ("white", "black")
    } else {
        ("black", "white")
    };
    let _ = write!(
        s,
        "
pub fn main({wp}, {bp}) -> Out {{
    let pb = {m}.public;
    let same_public = {m}.public == {o}.public;
    let inputs_white = valid_rank(white.rank){check_white};
    let inputs_black = valid_rank(black.rank){check_black};
    let mover_ok = {check_mover};
    let p0 = start(white.rank, black.rank);
    let ep0 = 0u64;
",
        check_white = if shape.commitments {
            "
        & (digest_setup(0u8, pb.game, white.setup_salt, pack(white.rank)) == pb.setup[0usize])
        & (digest_log_white(0u8, pb.game, white.log_salt, white.moves) == pb.log[0usize])"
        } else {
            ""
        },
        check_black = if shape.commitments {
            "
        & (digest_setup(1u8, pb.game, black.setup_salt, pack(black.rank)) == pb.setup[1usize])
        & (digest_log_black(1u8, pb.game, black.log_salt, black.moves) == pb.log[1usize])"
        } else {
            ""
        },
        check_mover = if shape.commitments {
            format!(
                "(digest_period({seat}u8, pb.game, {m}.period_salt, {m}.earlier) == pb.period)
        & (digest_attempt({seat}u8, pb.game, {m}.attempt_salt, [{m}.attempt]) == pb.attempt)"
            )
        } else {
            "true".to_owned()
        },
    );
    // The replay: White's and Black's moves in turn, each side's colour a constant.
    let (mut wi, mut bi) = (0, 0);
    for j in 1..=plies {
        let white = !j.is_multiple_of(2);
        let mv = if white {
            wi += 1;
            format!("white.moves[{}usize]", wi - 1)
        } else {
            bi += 1;
            format!("black.moves[{}usize]", bi - 1)
        };
        let _ = write!(
            s,
            "    let r{j} = make(p{i}, item_from({mv}), item_to({mv}), item_promo({mv}), {white});
    let p{j} = r{j}.pos;
    let ep{j} = if r{j}.irreversible {{ p{j}.ep }} else {{ ep{i} }};
",
            i = j - 1
        );
    }
    let keys: Vec<String> = seen.iter().map(|j| format!("key(p{j}, false)")).collect();
    let keys = if keys.is_empty() {
        format!("[{NEVER_EXACT}]")
    } else {
        format!("[{}]", keys.join(", "))
    };
    let earlier = items(&format!("{m}.earlier"), e, None);
    let _ = write!(
        s,
        "    let (answer, _made, _key) = attempt(p{plies}, {m}.attempt, {earlier}, {mover_white}, king_home({m}.rank, {mover_white}), {first}, pb.must_try, pb.name_capturer, pb.limit, {keys}, false, ep{plies});
    let ok = inputs_white & inputs_black & same_public & mover_ok;
    Out {{
        inputs_white: inputs_white,
        inputs_black: inputs_black,
        same_public: same_public,
        mover_commitments: mover_ok,
        made: ok & (answer.code == 1u8),
        mover: mask_answer(answer, {m}.pad),
        other: mask_answer(heard(answer), {o}.pad),
        next_log: {next_log},
        next_period: {next_period},
    }}
}}
",
        first = shape.turn() < 2,
        next_log = if shape.commitments {
            format!(
                "digest_log_next({seat}u8, pb.game, {m}.next_log_salt, {})",
                items(&format!("{m}.moves"), mm, Some(&format!("{m}.attempt")))
            )
        } else {
            "[0u32; 8]".to_owned()
        },
        next_period = if shape.commitments {
            format!(
                "digest_period_next({seat}u8, pb.game, {m}.next_period_salt, {})",
                items(&format!("{m}.earlier"), e, Some(&format!("{m}.attempt")))
            )
        } else {
            "[0u32; 8]".to_owned()
        },
    );
    s
}
