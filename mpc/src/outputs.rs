//! The circuit's output read back.

use garble_lang::literal::Literal;

use crate::inputs::Answer;

/// What one attempt's computation gives both players.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    /// White's inputs match his commitments (setup and log) and form a Chess960 rank.
    pub inputs_white: bool,
    /// Black's, likewise.
    pub inputs_black: bool,
    /// Both players gave the same public values.
    pub same_public: bool,
    /// The mover's attempt and earlier attempts match his commitments.
    pub mover_commitments: bool,
    /// A legal move was made (and everything checked).
    pub made: bool,
    /// The mover's answer, masked with his pad.
    pub mover: Answer,
    /// What the opponent hears, masked with his pad.
    pub other: Answer,
    /// The mover's log digest with this attempt as his next move.
    pub next_log: [u8; 32],
    /// The mover's period digest with this attempt added.
    pub next_period: [u8; 32],
}

pub(crate) fn field<'a>(
    fields: &'a [(String, Literal)],
    name: &str,
) -> Result<&'a Literal, String> {
    fields
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, l)| l)
        .ok_or_else(|| format!("no field {name}"))
}

pub(crate) fn boolean(l: &Literal) -> Result<bool, String> {
    match l {
        Literal::True => Ok(true),
        Literal::False => Ok(false),
        other => Err(format!("not a bool: {other}")),
    }
}

fn number(l: &Literal) -> Result<u64, String> {
    match l {
        Literal::NumUnsigned(n, _) => Ok(*n),
        other => Err(format!("not a number: {other}")),
    }
}

pub(crate) fn answer(l: &Literal) -> Result<Answer, String> {
    let Literal::Struct(_, f) = l else {
        return Err(format!("not a struct: {l}"));
    };
    let u = |name: &str| number(field(f, name)?).map(|n| n as u8);
    let b = |name: &str| boolean(field(f, name)?);
    Ok(Answer {
        code: u("code")?,
        capture: b("capture")?,
        at: u("at")?,
        en_passant: b("en_passant")?,
        by_pawn: b("by_pawn")?,
        rank: u("rank")?,
        file: u("file")?,
        long: u("long")?,
        short: u("short")?,
        knight: u("knight")?,
        end: u("end")?,
        pieces: u("pieces")?,
        silence: u("silence")?,
    })
}

fn digest(l: &Literal) -> Result<[u8; 32], String> {
    let Literal::Array(words) = l else {
        return Err(format!("not an array: {l}"));
    };
    let mut out = [0u8; 32];
    for (i, w) in words.iter().enumerate().take(8) {
        out[4 * i..4 * i + 4].copy_from_slice(&(number(w)? as u32).to_be_bytes());
    }
    Ok(out)
}

/// Reads the output literal of `main`.
pub fn read(l: &Literal) -> Result<Out, String> {
    let Literal::Struct(_, f) = l else {
        return Err(format!("not a struct: {l}"));
    };
    Ok(Out {
        inputs_white: boolean(field(f, "inputs_white")?)?,
        inputs_black: boolean(field(f, "inputs_black")?)?,
        same_public: boolean(field(f, "same_public")?)?,
        mover_commitments: boolean(field(f, "mover_commitments")?)?,
        made: boolean(field(f, "made")?)?,
        mover: answer(field(f, "mover")?)?,
        other: answer(field(f, "other")?)?,
        next_log: digest(field(f, "next_log")?)?,
        next_period: digest(field(f, "next_period")?)?,
    })
}
