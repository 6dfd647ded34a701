//! The players' inputs and the attempt's answers as bits of the circuit files, written
//! and read without the compiler: what play needs once it garbles the files
//! (docs/design/circuits-as-data.md, step 3), where it now asks garble_lang to parse a
//! literal. The layout is garble_lang's, as spec/GAMES.md §5.15 states it: a number most
//! significant bit first, arrays and tuples in order, a structure's fields in the order
//! of their names. The tests hold each against garble_lang's own reading.

use super::{ANSWER_BITS, FRESH_BITS, item_bits};
use crate::inputs::Answer;

/// An answer's fields in the order of their names, each with its width in bits (a flag
/// is one bit, a number eight).
fn fields(a: &Answer) -> [(u8, usize); 13] {
    [
        (a.at, 8),
        (u8::from(a.by_pawn), 1),
        (u8::from(a.capture), 1),
        (a.code, 8),
        (u8::from(a.en_passant), 1),
        (a.end, 8),
        (a.file, 8),
        (a.knight, 8),
        (a.long, 8),
        (a.pieces, 8),
        (a.rank, 8),
        (a.short, 8),
        (a.silence, 8),
    ]
}

/// `n`'s `width` low bits, most significant first.
fn number(n: u64, width: usize) -> impl Iterator<Item = bool> {
    (0..width).rev().map(move |i| (n >> i) & 1 == 1)
}

/// The value of `bits`, most significant first.
fn value(bits: &[bool]) -> u64 {
    bits.iter().fold(0, |v, &b| (v << 1) | u64::from(b))
}

/// An answer's bits.
pub fn answer_bits(a: &Answer) -> Vec<bool> {
    fields(a)
        .into_iter()
        .flat_map(|(v, w)| number(u64::from(v), w))
        .collect()
}

/// An answer read from its [`ANSWER_BITS`] bits; `None` if there are not as many.
pub fn answer_from_bits(bits: &[bool]) -> Option<Answer> {
    if bits.len() != ANSWER_BITS {
        return None;
    }
    let mut at = 0;
    let mut next = |w: usize| {
        let v = value(&bits[at..at + w]) as u8;
        at += w;
        v
    };
    let flag = |v: u8| v == 1;
    Some(Answer {
        at: next(8),
        by_pawn: flag(next(1)),
        capture: flag(next(1)),
        code: next(8),
        en_passant: flag(next(1)),
        end: next(8),
        file: next(8),
        knight: next(8),
        long: next(8),
        pieces: next(8),
        rank: next(8),
        short: next(8),
        silence: next(8),
    })
}

/// A player's fresh input to an attempt (`Fresh`: his attempt, 0 when he does not move,
/// then his pad).
pub fn fresh_bits(attempt: u16, pad: &Answer) -> Vec<bool> {
    let mut b = item_bits(attempt);
    b.extend(answer_bits(pad));
    debug_assert_eq!(b.len(), FRESH_BITS);
    b
}

/// A player's input to the start (`Setup`: his back rank, then his share of the
/// fingerprints' key).
pub fn setup_bits(rank: &[u8; 8], share: &[u64; 5]) -> Vec<bool> {
    let rank = rank.iter().flat_map(|&r| number(u64::from(r), 8));
    rank.chain(share.iter().flat_map(|&s| number(s, 64)))
        .collect()
}

/// What an attempt's returned outputs say: whether a move was made, the mover's answer
/// and what the other hears, each under its pad. `None` unless `out` holds them.
pub fn read_attempt(out: &[bool]) -> Option<(bool, Answer, Answer)> {
    let made = *out.first()?;
    let mover = answer_from_bits(out.get(1..1 + ANSWER_BITS)?)?;
    let other = answer_from_bits(out.get(1 + ANSWER_BITS..1 + 2 * ANSWER_BITS)?)?;
    Some((made, mover, other))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::{Part, source};
    use crate::inputs::{fresh_literal, rank_literal};
    use crate::kept;

    /// A varied answer from a counter.
    fn answer(n: u64) -> Answer {
        let b = n.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes();
        let c = n.wrapping_mul(0xc2b2_ae3d_27d4_eb4f).to_le_bytes();
        Answer::from_bytes(std::array::from_fn(|i| if i < 8 { b[i] } else { c[i - 8] }))
    }

    #[test]
    fn a_fresh_input_is_the_bits_garble_lang_reads_from_its_literal() {
        let prg = source::compile(Part::Finish).expect("compiles");
        for n in 0..40u64 {
            let pad = answer(n);
            let attempt = (n.wrapping_mul(2654435761) & 0xffff) as u16;
            let lit = fresh_literal(attempt, &pad);
            let theirs = prg.parse_arg(3, &lit).expect("parses").as_bits();
            assert_eq!(fresh_bits(attempt, &pad), theirs, "{lit}");
        }
    }

    #[test]
    fn a_setup_is_the_bits_garble_lang_reads_from_its_literal() {
        let prg = kept::compile_source(&kept::start_source()).expect("compiles");
        for n in 0..10u64 {
            let rank: [u8; 8] =
                std::array::from_fn(|i| (n as u8).wrapping_mul(31).wrapping_add(i as u8 * 7));
            let share: [u64; 5] = std::array::from_fn(|i| {
                n.wrapping_mul(0x9e37_79b9_7f4a_7c15)
                    .rotate_left(i as u32 * 13)
            });
            let lit = kept::setup_literal(&rank, &share);
            let theirs = prg.parse_arg(0, &lit).expect("parses").as_bits();
            assert_eq!(
                setup_bits(&rank, &share),
                theirs,
                "{lit} ({})",
                rank_literal(&rank)
            );
        }
    }

    #[test]
    fn an_attempt_s_outputs_read_as_garble_lang_reads_them() {
        let prg = source::compile(Part::Finish).expect("compiles");
        let c = prg.circuit.unwrap_ssa_ref();
        let panic = garble_lang::circuit::PANIC_RESULT_SIZE_IN_BITS;
        // The panic bits as the circuit gives them (constants: garble_lang reads them
        // even when the first says no panic).
        let zeros: Vec<Vec<bool>> = c.input_gates.iter().map(|n| vec![false; *n]).collect();
        let given = c.eval(&zeros);
        for n in 0..40u64 {
            let (mover, other) = (answer(n), answer(n + 1000));
            let mut out = given.clone();
            out[panic] = n % 2 == 1;
            out[panic + 1..panic + 1 + ANSWER_BITS].copy_from_slice(&answer_bits(&mover));
            out[panic + 1 + ANSWER_BITS..panic + 1 + 2 * ANSWER_BITS]
                .copy_from_slice(&answer_bits(&other));
            let lit = prg.parse_output(&out).expect("parses");
            let theirs = kept::read(&lit).expect("an attempt's output");
            assert_eq!(read_attempt(&out[panic..]), Some(theirs));
            assert_eq!(theirs, (n % 2 == 1, mover, other));
        }
        assert_eq!(read_attempt(&[true; 10]), None);
        assert_eq!(answer_from_bits(&[false; ANSWER_BITS - 1]), None);
    }
}
