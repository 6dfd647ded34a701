//! Duel's score format, read by `sealed replay duel` and written by `export`.
//!
//! ```text
//! [Cards "9"]
//! [Hand "3"]
//! [Leader "0"]
//! 1. 7 3  2. 2 9  3. …  1-0
//! ```
//!
//! Tag lines first; then rounds, each a number with a dot, the leader's card and the
//! follower's card; an optional result token (`1-0`, `0-1`, `1/2-1/2`) last. Text in
//! braces is a comment.

use sealed_protocol::ids::{Name, Seat};

use super::{Duel, State};
use crate::replay::{ReplayError, Replayed};

/// Writes a finished or unfinished game as score text.
pub fn score_text(rules: &Duel, first_leader: Seat, state: &State) -> String {
    score_text_ended(rules, first_leader, state, None)
}

/// [`score_text`], for a game that may have ended off the cards (a resignation, an
/// agreed draw, a loss on time): when the cards leave the game on, `ending`'s reason
/// (a result token, the words) is written as a comment and its token as the result, as
/// a PGN reader needs it (issue 55: a resigned game's score had no result).
pub fn score_text_ended(
    rules: &Duel,
    first_leader: Seat,
    state: &State,
    ending: Option<(&str, &str)>,
) -> String {
    let mut s = format!(
        "[Cards \"{}\"]\n[Hand \"{}\"]\n[Leader \"{}\"]\n",
        rules.cards, rules.hand, first_leader.0
    );
    for (i, (_, a, b)) in state.history.iter().enumerate() {
        s.push_str(&format!("{}. {a} {b} ", i + 1));
    }
    if let Some(led) = state.led {
        s.push_str(&format!("{}. {led} ", state.history.len() + 1));
    }
    match (rules.result(state), ending) {
        (Some(o), _) => s.push_str(result_token(&o.results)),
        (None, Some((token, reason))) => {
            let reason = reason.replace('}', ")").replace('{', "(");
            s.push_str(&format!("{{{reason}}} {token}"));
        }
        (None, None) => {}
    }
    s.trim_end().to_owned() + "\n"
}

fn result_token(r: &[sealed_protocol::outcome::SeatResult]) -> &'static str {
    use sealed_protocol::outcome::SeatResult::*;
    match r {
        [Win, _] => "1-0",
        [_, Win] => "0-1",
        _ => "1/2-1/2",
    }
}

/// Replays score text.
pub fn replay(text: &str) -> Result<Replayed, ReplayError> {
    let text = strip_comments(text).map_err(|e| ReplayError::Unreadable(e.to_string()))?;
    let mut options: Vec<(Name, String)> = vec![];
    let mut leader = Seat(0);
    let mut moves = String::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(tag) = t.strip_prefix('[') {
            let tag = tag
                .strip_suffix(']')
                .ok_or_else(|| ReplayError::Unreadable(format!("bad tag line {t:?}")))?;
            let (k, v) = tag
                .split_once(' ')
                .ok_or_else(|| ReplayError::Unreadable(format!("bad tag line {t:?}")))?;
            let v = v.trim().trim_matches('"').to_owned();
            match k {
                "Cards" => options.push((Name::new("cards").expect("valid"), v)),
                "Hand" => options.push((Name::new("hand").expect("valid"), v)),
                "Leader" => {
                    leader = match v.as_str() {
                        "0" => Seat(0),
                        "1" => Seat(1),
                        _ => {
                            return Err(ReplayError::Unreadable(format!(
                                "Leader must be 0 or 1, not {v:?}"
                            )));
                        }
                    }
                }
                _ => {}
            }
        } else {
            moves.push_str(t);
            moves.push(' ');
        }
    }
    let rules = Duel::from_options(&options).map_err(|e| ReplayError::Unreadable(e.0))?;
    let mut state = State {
        leader,
        round: 0,
        led: None,
        taken: [0, 0],
        history: vec![],
    };
    let mut played: [Vec<u32>; 2] = [vec![], vec![]];
    let mut ply = 0;
    let mut claimed_result = None;
    for tok in moves.split_whitespace() {
        if matches!(tok, "1-0" | "0-1" | "1/2-1/2" | "*") {
            claimed_result = Some(tok);
            continue;
        }
        if let Some(n) = tok.strip_suffix('.') {
            let n: u32 = n
                .parse()
                .map_err(|_| ReplayError::Unreadable(format!("bad round number {tok:?}")))?;
            if n != state.round + 1 || state.led.is_some() {
                return Err(ReplayError::Unreadable(format!(
                    "round number {n} out of place"
                )));
            }
            continue;
        }
        ply += 1;
        let card: u32 = tok
            .parse()
            .map_err(|_| ReplayError::Unreadable(format!("{tok:?} is not a card")))?;
        let Some(seat) = rules.next(&state) else {
            return Err(ReplayError::Illegal {
                ply,
                reason: "the game is already over".into(),
            });
        };
        if played[seat.index()].contains(&card) {
            return Err(ReplayError::Illegal {
                ply,
                reason: format!("{seat} already played card {card}"),
            });
        }
        let (next, _) = rules
            .play(&state, seat, card)
            .map_err(|v| ReplayError::Illegal { ply, reason: v.0 })?;
        played[seat.index()].push(card);
        state = next;
    }
    let result = rules.result(&state);
    if let (Some(claim), Some(o)) = (claimed_result, &result)
        && claim != result_token(&o.results)
    {
        return Err(ReplayError::Illegal {
            ply,
            reason: format!(
                "the score says {claim}, the cards say {}",
                result_token(&o.results)
            ),
        });
    }
    Ok(Replayed {
        plies: ply,
        position: format!(
            "round {} of {}, rounds taken {}-{}",
            state.round, rules.cards, state.taken[0], state.taken[1]
        ),
        result: result.map(|o| o.to_string()),
        svg: None,
    })
}

/// Why a score's comments do not close.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommentError {
    /// A `}` closes no comment.
    #[error("unmatched '}}'")]
    Unmatched,
    /// A `{` is never closed.
    #[error("unclosed '{{'")]
    Unclosed,
}

fn strip_comments(text: &str) -> Result<String, CommentError> {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return Err(CommentError::Unmatched),
            '}' => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    if depth > 0 {
        Err(CommentError::Unclosed)
    } else {
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replays_a_short_game() {
        let r =
            replay("[Cards \"2\"]\n[Hand \"1\"]\n[Leader \"0\"]\n1. 2 1 2. 1 2 1/2-1/2\n").unwrap();
        assert_eq!(r.plies, 4);
        assert!(r.result.unwrap().contains("draw"));
    }

    #[test]
    fn the_example_in_games_md_replays() {
        let r = replay("[Cards \"3\"]\n[Hand \"1\"]\n[Leader \"1\"]\n1. 2 3 2. 1 3 3. 1 2 1-0\n")
            .unwrap();
        assert_eq!(r.plies, 6);
        assert_eq!(
            r.result.as_deref(),
            Some("seat 0 win, seat 1 loss (rounds taken 2-1)")
        );
    }

    #[test]
    fn a_card_played_twice_is_illegal_at_its_ply() {
        let e = replay("[Cards \"3\"]\n1. 2 1 2. 2 3\n").unwrap_err();
        assert_eq!(
            e,
            ReplayError::Illegal {
                ply: 3,
                reason: "seat 0 already played card 2".into()
            }
        );
    }

    #[test]
    fn wrong_result_is_illegal() {
        assert!(matches!(
            replay("[Cards \"2\"]\n[Hand \"1\"]\n1. 2 1 2. 1 2 1-0\n"),
            Err(ReplayError::Illegal { .. })
        ));
    }

    #[test]
    fn garbage_is_unreadable() {
        assert!(matches!(replay("1. x y"), Err(ReplayError::Unreadable(_))));
        assert!(matches!(
            replay("{ never closed"),
            Err(ReplayError::Unreadable(_))
        ));
    }
}
