//! What a side keeps between two computations, in bytes, so that a node need not keep
//! every message of the game to go on after a restart (spec/GAMES.md §5.15, "What a
//! seat keeps"). Between computations a side is its seed (which its owner has anyway),
//! the other side's base-OT message (its OT keys are made again from it), what both know
//! ([`Public`]) and the state's labels ([`State`]): nothing else of the messages before
//! is read again, since the next computation starts from these alone.
//!
//! The bytes are this seat's own, read back only by it: a store that does not hold them
//! whole is no attack surface, but reading never panics and refuses what does not parse
//! to the end.
//!
//! Layout: `le64(run) ‖ le32(plies) ‖ u8(white_to_move) ‖ le64(windows[0]) ‖
//! le64(windows[1]) ‖ le64(earlier) ‖ le32(moves[0]) ‖ le32(moves[1]) ‖ u8(started) ‖
//! labels(fixed) ‖ groups(windows[0]) ‖ groups(windows[1]) ‖ groups(earlier)`, where
//! `labels` is `le32(n)` then `n` labels of 16 bytes (little-endian) and `groups` is
//! `le32(n)` then `n` `labels`.

use super::{Black, PlayError, Public, Side, State, White};
use crate::gc::Block;

/// Why bytes are no side's state: this seat's own store does not hold what it wrote.
fn unreadable() -> PlayError {
    PlayError::OutOfTurn("a kept state that does not read")
}

fn labels(out: &mut Vec<u8>, l: &[Block]) {
    out.extend_from_slice(&(l.len() as u32).to_le_bytes());
    for b in l {
        out.extend_from_slice(&b.to_le_bytes());
    }
}

fn groups(out: &mut Vec<u8>, g: &[Vec<Block>]) {
    out.extend_from_slice(&(g.len() as u32).to_le_bytes());
    for l in g {
        labels(out, l);
    }
}

/// Reads the layout above, never past its end.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], PlayError> {
        let (head, rest) = self.0.split_first_chunk::<N>().ok_or_else(unreadable)?;
        self.0 = rest;
        Ok(*head)
    }
    fn u8(&mut self) -> Result<u8, PlayError> {
        Ok(self.take::<1>()?[0])
    }
    fn u32(&mut self) -> Result<u32, PlayError> {
        Ok(u32::from_le_bytes(self.take()?))
    }
    fn u64(&mut self) -> Result<u64, PlayError> {
        Ok(u64::from_le_bytes(self.take()?))
    }
    fn usize(&mut self) -> Result<usize, PlayError> {
        usize::try_from(self.u64()?).map_err(|_| unreadable())
    }
    fn bool(&mut self) -> Result<bool, PlayError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(unreadable()),
        }
    }
    fn labels(&mut self) -> Result<Vec<Block>, PlayError> {
        let n = self.u32()? as usize;
        // Each label takes 16 bytes: a count past what is left is refused before any
        // room is set aside for it.
        if n > self.0.len() / 16 {
            return Err(unreadable());
        }
        (0..n)
            .map(|_| Ok(u128::from_le_bytes(self.take()?)))
            .collect()
    }
    fn groups(&mut self) -> Result<Vec<Vec<Block>>, PlayError> {
        let n = self.u32()? as usize;
        if n > self.0.len() / 4 {
            return Err(unreadable());
        }
        (0..n).map(|_| self.labels()).collect()
    }
}

impl Side {
    /// Its state between computations, as bytes.
    fn kept(&self) -> Vec<u8> {
        let p = &self.public;
        let mut out = Vec::new();
        out.extend_from_slice(&p.run.to_le_bytes());
        out.extend_from_slice(&p.plies.to_le_bytes());
        out.push(u8::from(p.white_to_move));
        for n in [p.windows[0], p.windows[1], p.earlier] {
            out.extend_from_slice(&(n as u64).to_le_bytes());
        }
        out.extend_from_slice(&p.moves[0].to_le_bytes());
        out.extend_from_slice(&p.moves[1].to_le_bytes());
        out.push(u8::from(self.started));
        labels(&mut out, &self.state.fixed);
        groups(&mut out, &self.state.windows[0]);
        groups(&mut out, &self.state.windows[1]);
        groups(&mut out, &self.state.earlier);
        out
    }

    /// Takes back the state [`Side::kept`] wrote.
    fn restore(&mut self, bytes: &[u8]) -> Result<(), PlayError> {
        let mut r = Reader(bytes);
        let public = Public {
            options: self.public.options,
            run: r.u64()?,
            plies: r.u32()?,
            white_to_move: r.bool()?,
            windows: [r.usize()?, r.usize()?],
            earlier: r.usize()?,
            moves: [r.u32()?, r.u32()?],
        };
        let started = r.bool()?;
        let state = State {
            fixed: r.labels()?,
            windows: [r.groups()?, r.groups()?],
            earlier: r.groups()?,
        };
        if !r.0.is_empty() {
            return Err(unreadable());
        }
        self.public = public;
        self.started = started;
        self.state = state;
        Ok(())
    }
}

impl White {
    /// His state as the last computation he concluded left it (one under way changes
    /// it only when it concludes, in [`White::decode`]), for [`White::resume`]; `None`
    /// before the base transfers.
    pub fn kept(&self) -> Option<Vec<u8>> {
        self.ot.as_ref().map(|_| self.side.kept())
    }

    /// White as he was when he wrote `kept`, from Black's base-OT message `a` (his OT
    /// keys are made again from it and his seed).
    pub fn resume(&mut self, a: &[u8], kept: &[u8]) -> Result<(), PlayError> {
        self.base(a)?;
        self.answered = None;
        self.side.restore(kept)
    }
}

impl Black {
    /// His state as the last computation he concluded left it (one under way changes
    /// it only when it concludes, in [`Black::finish`]), for [`Black::resume`]; `None`
    /// before the base transfers.
    pub fn kept(&self) -> Option<Vec<u8>> {
        self.ot.as_ref().map(|_| self.side.kept())
    }

    /// Black as he was when he wrote `kept`, from White's base-OT reply (his OT keys are
    /// made again from it and his seed).
    pub fn resume(&mut self, reply: &[u8], kept: &[u8]) -> Result<(), PlayError> {
        self.base_keys(reply)?;
        self.asking = None;
        self.evaluated = None;
        self.side.restore(kept)
    }
}
