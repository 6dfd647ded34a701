//! What a person types for the physical deck's acts (spec/GAMES.md §4.20.6), and the
//! same words written back from an act.
//!
//! ```text
//! claim    = { clause } [ "note" TEXT ]          ; TEXT: the rest of the line
//! clause   = "then" MOVE { MOVE }                ; stated moves (Edit::Move)
//!          | "remove" SQ { SQ }
//!          | "place" PIECE SQ                     ; PIECE: FEN letter, white upper case (Q, n)
//!          | "exchange" SQ SQ
//!          | "again" | "skip" | "show"            ; another move; the opponent skips his turn;
//!                                                 ; the opponent shows his hand
//!          | "for" PLIES                          ; a continuing effect, in turns and answers
//!          | "trap" SQ                            ; a trap card's secret square (12, 28)
//!          | "cite" ACT                           ; a continuing effect stated in act ACT
//!          | "sig" HEX                            ; a ruling's signature (128 hex digits)
//! turn     = "card" N claim | "cite" ACT claim | "sprung" claim
//! answer   = "answer" ( "card" N | "again" ) claim
//! others   = "dispute" ACT [ "note" TEXT ] | "settle" D claim | "ruling" D claim
//! ```
//!
//! Moves are coordinates (`g1h4`, `e7e8q`) or SAN read on the position before the act;
//! a stated move is carried out as written, so coordinates say best what the card did.
//! Why words do not read: [`WordsError`] (and [`MoveError`] for a move, which the open
//! deck's commands share).

use crate::chess::{Color, Kind, Malformed, MoveText, Position, SanError, Square};

use super::super::act::{Act, Answer, CardRef, Claim};
use super::edit::Edit;

/// A claim's words, read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Words {
    /// The stated edits, in order.
    pub edits: Vec<Edit>,
    /// Turns and answers the effect lasts (`for`).
    pub lasting: u32,
    /// The note (`note`).
    pub note: String,
    /// The secret square of a trap card (`trap`).
    pub trap: Option<Square>,
    /// The act cited (`cite`).
    pub cite: Option<u32>,
    /// A ruling's signature (`sig`).
    pub signature: Option<Vec<u8>>,
}

/// A clause or act that takes one number, as its usage is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numbered {
    /// `for PLIES`.
    For,
    /// `cite ACT`.
    Cite,
    /// `dispute ACT`.
    Dispute,
    /// `settle DISPUTE` or `ruling DISPUTE`.
    Settle,
}

impl std::fmt::Display for Numbered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Numbered::For => "for PLIES",
            Numbered::Cite => "cite ACT",
            Numbered::Dispute => "dispute ACT",
            Numbered::Settle => "settle or ruling DISPUTE",
        })
    }
}

/// Why a move as typed does not read: not move text, or SAN that names no move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MoveError {
    /// Not move text at all.
    #[error("{text:?} is not a move: {why}")]
    Malformed {
        /// The words.
        text: String,
        /// Why.
        why: Malformed,
    },
    /// SAN that names no move of the position.
    #[error("{text}: {why}")]
    San {
        /// The words.
        text: String,
        /// Why.
        why: SanError,
    },
}

/// Why a claim's words do not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WordsError {
    /// `place` without a piece and a square.
    #[error("place PIECE SQUARE: a FEN letter, white in upper case (place n e5)")]
    PlaceUsage,
    /// A piece letter that is none.
    #[error("{0:?} is not a piece letter")]
    NotAPiece(String),
    /// `exchange` without two squares.
    #[error("exchange SQUARE SQUARE")]
    ExchangeUsage,
    /// `trap` without one square.
    #[error("trap SQUARE: the secret square")]
    TrapUsage,
    /// `sig` without one word.
    #[error("sig HEX: the arbiter's signature")]
    SigUsage,
    /// A signature that is not 128 hexadecimal digits.
    #[error("sig: 128 hexadecimal digits")]
    SigHex,
    /// A clause that takes one number was given none, or several.
    #[error("{0}")]
    OneNumber(Numbered),
    /// A clause's number is none.
    #[error("{clause}: {word:?} is not a number")]
    NotANumber {
        /// The clause.
        clause: Numbered,
        /// The word given.
        word: String,
    },
    /// A word that begins no clause.
    #[error(
        "{0:?}: expected then, remove, place, exchange, again, skip, show, for, trap, cite, sig or note"
    )]
    UnknownClause(String),
    /// A square that is none.
    #[error("{0:?} is not a square")]
    NotASquare(String),
    /// A stated move that does not read.
    #[error(transparent)]
    Move(#[from] MoveError),
}

/// Reads a claim's clauses from `text` (after the card or the act named), on `pos`.
pub fn read(pos: &Position, text: &str) -> Result<Words, WordsError> {
    let (clauses, note) = match split_note(text) {
        Some((c, n)) => (c, n.trim().to_owned()),
        None => (text, String::new()),
    };
    let words: Vec<&str> = clauses.split_whitespace().collect();
    let mut out = Words {
        note,
        ..Words::default()
    };
    let mut i = 0;
    let is_clause = |w: &str| {
        matches!(
            w,
            "then"
                | "remove"
                | "place"
                | "exchange"
                | "again"
                | "skip"
                | "show"
                | "for"
                | "trap"
                | "cite"
                | "sig"
        )
    };
    while i < words.len() {
        let word = words[i];
        i += 1;
        let start = i;
        while i < words.len() && !is_clause(words[i]) {
            i += 1;
        }
        let args = &words[start..i];
        match word {
            "then" if !args.is_empty() => {
                for m in args {
                    out.edits.push(read_move(pos, m)?);
                }
            }
            "remove" if !args.is_empty() => {
                for sq in args {
                    out.edits.push(Edit::Remove {
                        square: square(sq)?.index(),
                    });
                }
            }
            "place" => {
                let [piece, sq] = args else {
                    return Err(WordsError::PlaceUsage);
                };
                let c = piece.chars().next().filter(|_| piece.len() == 1);
                let kind = c
                    .and_then(Kind::from_char)
                    .ok_or_else(|| WordsError::NotAPiece((*piece).to_owned()))?;
                out.edits.push(Edit::Place {
                    square: square(sq)?.index(),
                    black: c.is_some_and(|c| c.is_ascii_lowercase()),
                    kind: kind.idx() as u8,
                });
            }
            "exchange" => {
                let [a, b] = args else {
                    return Err(WordsError::ExchangeUsage);
                };
                out.edits.push(Edit::Exchange {
                    a: square(a)?.index(),
                    b: square(b)?.index(),
                });
            }
            "again" if args.is_empty() => out.edits.push(Edit::ExtraMove),
            "skip" if args.is_empty() => out.edits.push(Edit::SkipTurn),
            "show" if args.is_empty() => out.edits.push(Edit::ShowHand),
            "for" => out.lasting = one_number(args, Numbered::For)?,
            "trap" => {
                let [sq] = args else {
                    return Err(WordsError::TrapUsage);
                };
                out.trap = Some(square(sq)?);
            }
            "cite" => out.cite = Some(one_number(args, Numbered::Cite)?),
            "sig" => {
                let [hex] = args else {
                    return Err(WordsError::SigUsage);
                };
                out.signature = Some(
                    sealed_protocol::hash::from_hex(hex)
                        .filter(|b| b.len() == 64)
                        .ok_or(WordsError::SigHex)?,
                );
            }
            other => {
                return Err(WordsError::UnknownClause(other.to_owned()));
            }
        }
    }
    Ok(out)
}

/// Splits off `note …`: the first word `note` and the raw rest of the line.
fn split_note(text: &str) -> Option<(&str, &str)> {
    let mut at = 0;
    for w in text.split_whitespace() {
        let i = text[at..].find(w)? + at;
        if w == "note" {
            return Some((&text[..i], &text[i + 4..]));
        }
        at = i + w.len();
    }
    None
}

fn one_number(args: &[&str], clause: Numbered) -> Result<u32, WordsError> {
    match args {
        [n] => number(n, clause),
        _ => Err(WordsError::OneNumber(clause)),
    }
}

/// The number `word`, given to `clause`.
pub fn number(word: &str, clause: Numbered) -> Result<u32, WordsError> {
    word.parse().map_err(|_| WordsError::NotANumber {
        clause,
        word: word.to_owned(),
    })
}

fn square(text: &str) -> Result<Square, WordsError> {
    text.parse()
        .map_err(|_| WordsError::NotASquare(text.to_owned()))
}

/// Move text, as the chess crate's one grammar reads it.
pub fn move_text(text: &str) -> Result<MoveText, MoveError> {
    MoveText::read(text).map_err(|why| MoveError::Malformed {
        text: text.to_owned(),
        why,
    })
}

/// SAN among the legal moves of `pos`.
pub fn san(pos: &Position, text: &str) -> Result<crate::chess::Move, MoveError> {
    pos.parse_san(text).map_err(|why| MoveError::San {
        text: text.to_owned(),
        why,
    })
}

/// A stated move: coordinates as written, or SAN among the legal moves of `pos`.
fn read_move(pos: &Position, text: &str) -> Result<Edit, MoveError> {
    let written = move_text(text)?;
    let (from, to, promotion) = match (written.letter(), written.squares()) {
        (None, Some(sq)) => sq,
        _ => {
            let m = san(pos, text)?;
            (m.from, m.to, m.promotion)
        }
    };
    Ok(Edit::Move {
        from: from.index(),
        to: to.index(),
        promotion: promotion.map(|k| k.idx() as u8),
    })
}

/// Writes a claim's clauses (the inverse of [`read`], moves as coordinates).
pub fn write_claim(c: &Claim, trap: Option<Square>) -> Option<String> {
    let mut w: Vec<String> = vec![];
    if let Some(a) = c.cite {
        w.push(format!("cite {a}"));
    }
    w.extend(write_edits(&c.edits)?);
    if c.lasting > 0 {
        w.push(format!("for {}", c.lasting));
    }
    if let Some(sq) = trap {
        w.push(format!("trap {sq}"));
    }
    push_note(&mut w, &c.note);
    Some(w.join(" "))
}

fn push_note(w: &mut Vec<String>, note: &str) {
    if !note.is_empty() {
        w.push(format!("note {note}"));
    }
}

/// The edits as clauses.
pub fn write_edits(edits: &[Edit]) -> Option<Vec<String>> {
    let sq = |i: u8| Square::from_index(i).map(|s| s.to_string());
    edits
        .iter()
        .map(|e| {
            Some(match *e {
                Edit::Move {
                    from,
                    to,
                    promotion,
                } => {
                    let p = match promotion {
                        Some(k) => Kind::ALL
                            .get(usize::from(k))?
                            .upper()
                            .to_ascii_lowercase()
                            .to_string(),
                        None => String::new(),
                    };
                    format!("then {}{}{p}", sq(from)?, sq(to)?)
                }
                Edit::Remove { square } => format!("remove {}", sq(square)?),
                Edit::Place {
                    square,
                    black,
                    kind,
                } => {
                    let k = Kind::ALL.get(usize::from(kind))?;
                    let color = if black { Color::Black } else { Color::White };
                    let letter = match color {
                        Color::White => k.upper(),
                        Color::Black => k.upper().to_ascii_lowercase(),
                    };
                    format!("place {letter} {}", sq(square)?)
                }
                Edit::Exchange { a, b } => format!("exchange {} {}", sq(a)?, sq(b)?),
                Edit::ExtraMove => "again".into(),
                Edit::SkipTurn => "skip".into(),
                Edit::ShowHand => "show".into(),
            })
        })
        .collect()
}

/// Writes a physical-deck act as a person types it; `None` for any other act.
pub fn write(
    act: &Act,
    number: &dyn Fn(CardRef) -> Option<u32>,
    trap: Option<Square>,
) -> Option<String> {
    let head = |r: Option<CardRef>, answer: bool| -> Option<String> {
        Some(match r {
            Some(CardRef::Again) => "again".into(),
            Some(r) => format!("card {}", number(r)?),
            None if answer => String::new(),
            None => "sprung".into(),
        })
    };
    let join = |a: String, b: String| match (a.is_empty(), b.is_empty()) {
        (_, true) => a,
        (true, _) => b,
        _ => format!("{a} {b}"),
    };
    Some(match act {
        Act::Claim(c) => {
            let start = match &c.start {
                None => String::new(),
                Some(super::super::act::StartCard::Take { card, number: n }) => {
                    format!("take {n} with {}; ", number(*card)?)
                }
                Some(super::super::act::StartCard::Pick { card, slot }) => {
                    format!("pick {slot} with {}; ", number(*card)?)
                }
            };
            let head = match (c.card, c.cite) {
                (None, Some(_)) => String::new(),
                (r, _) => head(r, false)?,
            };
            format!("{start}{}", join(head, write_claim(c, trap)?))
        }
        Act::Answer(Answer::Claimed(c)) => {
            format!(
                "answer {}",
                join(head(c.card, true)?, write_claim(c, None)?)
            )
        }
        Act::Dispute { act, note } => {
            let mut w = vec![format!("dispute {act}")];
            push_note(&mut w, note);
            w.join(" ")
        }
        Act::Settle {
            dispute,
            edits,
            note,
        } => {
            let mut w = vec![format!("settle {dispute}")];
            w.extend(write_edits(edits)?);
            push_note(&mut w, note);
            w.join(" ")
        }
        Act::Ruling {
            dispute,
            edits,
            note,
            signature,
        } => {
            let mut w = vec![
                format!("ruling {dispute}"),
                format!("sig {}", sealed_protocol::hash::to_hex(signature)),
            ];
            w.extend(write_edits(edits)?);
            push_note(&mut w, note);
            w.join(" ")
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clauses_read_back_as_written() {
        let pos = Position::startpos();
        let w = read(
            &pos,
            "then g1h3 h3f4 remove e7 place n e5 exchange a1 h1 again for 6 note knights move as camels; then more",
        )
        .unwrap();
        assert_eq!(w.lasting, 6);
        assert_eq!(w.note, "knights move as camels; then more");
        assert_eq!(w.edits.len(), 6);
        let c = Claim {
            card: Some(CardRef::Slot(3)),
            edits: w.edits.clone(),
            lasting: w.lasting,
            note: w.note.clone(),
            ..Claim::default()
        };
        let text = write(&Act::Claim(c.clone()), &|_| Some(37), None).unwrap();
        assert!(text.starts_with("card 37 then g1h3"), "{text}");
        let again = read(&pos, text.strip_prefix("card 37").unwrap()).unwrap();
        assert_eq!(again.edits, c.edits);
        assert_eq!(again.note, c.note);
    }

    #[test]
    fn san_is_read_on_the_position_and_bad_words_are_refused() {
        let pos = Position::startpos();
        assert_eq!(
            read(&pos, "then Nf3").unwrap().edits,
            vec![Edit::Move {
                from: 6,
                to: 21,
                promotion: None
            }]
        );
        assert!(read(&pos, "fly e4").is_err());
        assert!(read(&pos, "place x e5").is_err());
        assert!(read(&pos, "remove z9").is_err());
        assert!(read(&pos, "for many").is_err());
        assert!(read(&pos, "sig 00ff").is_err());
    }
}
