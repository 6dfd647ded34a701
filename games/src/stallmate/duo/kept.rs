//! What a player's node keeps of the computations finished so far, in place of their
//! messages (spec/GAMES.md §5.15, "What a seat keeps"): a side's state after a
//! computation, enough to make the next one and everything after it, and to answer a
//! restart. The messages of a finished computation are then forgotten: the audit makes
//! every message again from the seeds and reads only their hashes, which the transcript
//! holds, so nothing but this seat's going on ever read them again.
//!
//! What it holds, each part's size and why:
//!
//! - the position of the next message, 8 bytes;
//! - the other side's base-OT message (White keeps Black's message 0, Black White's
//!   message 1), about 4 KiB: the side's OT keys are made again from it and its seed;
//! - White's G2, the last message he made (a few hundred bytes, the output labels'
//!   decoding bits): he sends it again, or leaves it with the witness, while Black has
//!   not answered it, and E2, from which he made it, is forgotten;
//! - what each computation told this side, 15 bytes a computation
//!   (mpc `Outcome`): his view of the board (his answers, what he heard) is made again
//!   from them, in order, as it was made the first time;
//! - the side's state's labels and what both know (mpc `White::kept`, `Black::kept`),
//!   16 bytes a label: the state carried into the next computation — the kept outputs,
//!   each side's window of positions (64 labels a position), the period's earlier
//!   attempts (16 labels an attempt).
//!
//! Layout: `le64(next) ‖ bytes(other's base) ‖ u8(0, or 1 ‖ le64(index) ‖ bytes(G2)) ‖
//! le32(n) ‖ n outcomes ‖ the side's state`, `bytes` being `le32(length) ‖ bytes`, an
//! outcome 15 bytes: `0 ‖ u8(white) ‖ u8(black)` and zeros (the start), or `1 ‖
//! u8(made) ‖` the answer's 13 fields in their order, one byte each.

use sealed_mpc::inputs::Answer;
use sealed_mpc::play::game::Outcome;

/// A seat's kept state, read from its bytes.
pub struct Kept {
    /// The position of the next message.
    pub next: u64,
    /// The other side's base-OT message.
    pub base: Vec<u8>,
    /// White's last message (his G2), with its position.
    pub made: Option<(u64, Vec<u8>)>,
    /// What each computation told this side, in order.
    pub outcomes: Vec<Outcome>,
    /// The side's state (mpc `White::kept`, `Black::kept`).
    pub side: Vec<u8>,
}

/// The bytes of one outcome.
const OUTCOME: usize = 15;

fn bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

fn outcome(o: &Outcome) -> [u8; OUTCOME] {
    let mut b = [0u8; OUTCOME];
    match o {
        Outcome::Started { white, black } => {
            b[1] = u8::from(*white);
            b[2] = u8::from(*black);
        }
        Outcome::Attempt { made, answer: a } => {
            b[0] = 1;
            b[1] = u8::from(*made);
            b[2..].copy_from_slice(&[
                a.code,
                u8::from(a.capture),
                a.at,
                u8::from(a.en_passant),
                u8::from(a.by_pawn),
                a.rank,
                a.file,
                a.long,
                a.short,
                a.knight,
                a.end,
                a.pieces,
                a.silence,
            ]);
        }
    }
    b
}

impl Kept {
    /// Its bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&self.next.to_le_bytes());
        bytes(&mut out, &self.base);
        match &self.made {
            None => out.push(0),
            Some((i, b)) => {
                out.push(1);
                out.extend_from_slice(&i.to_le_bytes());
                bytes(&mut out, b);
            }
        }
        out.extend_from_slice(&(self.outcomes.len() as u32).to_le_bytes());
        for o in &self.outcomes {
            out.extend_from_slice(&outcome(o));
        }
        out.extend_from_slice(&self.side);
        out
    }

    /// Reads [`Kept::encode`]'s bytes; `None` if they do not read (this seat's own
    /// store does not hold what it wrote). Never panics.
    pub fn decode(b: &[u8]) -> Option<Kept> {
        let mut r = b;
        let mut take = |n: usize| -> Option<&[u8]> {
            let (head, rest) = r.split_at_checked(n)?;
            r = rest;
            Some(head)
        };
        let next = u64::from_le_bytes(take(8)?.try_into().ok()?);
        let len = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
        let base = take(len)?.to_vec();
        let made = match take(1)?[0] {
            0 => None,
            1 => {
                let i = u64::from_le_bytes(take(8)?.try_into().ok()?);
                let len = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
                Some((i, take(len)?.to_vec()))
            }
            _ => return None,
        };
        let n = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
        let mut outcomes = Vec::new();
        for _ in 0..n {
            let o = take(OUTCOME)?;
            let bit = |x: u8| match x {
                0 => Some(false),
                1 => Some(true),
                _ => None,
            };
            outcomes.push(match o[0] {
                0 => Outcome::Started {
                    white: bit(o[1])?,
                    black: bit(o[2])?,
                },
                1 => Outcome::Attempt {
                    made: bit(o[1])?,
                    answer: Answer {
                        code: o[2],
                        capture: bit(o[3])?,
                        at: o[4],
                        en_passant: bit(o[5])?,
                        by_pawn: bit(o[6])?,
                        rank: o[7],
                        file: o[8],
                        long: o[9],
                        short: o[10],
                        knight: o[11],
                        end: o[12],
                        pieces: o[13],
                        silence: o[14],
                    },
                },
                _ => return None,
            });
        }
        Some(Kept {
            next,
            base,
            made,
            outcomes,
            side: r.to_vec(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_bytes_read_back_and_short_ones_do_not() {
        let k = Kept {
            next: 10,
            base: vec![1, 2, 3],
            made: Some((9, vec![4; 40])),
            outcomes: vec![
                Outcome::Started {
                    white: true,
                    black: false,
                },
                Outcome::Attempt {
                    made: true,
                    answer: Answer {
                        code: 1,
                        capture: true,
                        at: 12,
                        silence: 6,
                        pieces: 9,
                        ..Answer::default()
                    },
                },
            ],
            side: vec![7; 33],
        };
        let b = k.encode();
        let back = Kept::decode(&b).expect("reads");
        assert_eq!(back.encode(), b);
        assert_eq!(back.outcomes, k.outcomes);
        for cut in 0..b.len() - 33 {
            assert!(Kept::decode(&b[..cut]).is_none(), "{cut}");
        }
    }
}
