//! Reading a score, last step: every act judged by the protocol's own judge, in order,
//! from the options the tags give.

use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, EnvRef, Name, Seat};
use sealed_protocol::outcome::Outcome;
use sealed_protocol::rules::{ActCtx, Applied, OpenedSlot, Rules, Violation};

use crate::chess::Color;
use crate::replay::{ReplayError, Replayed};

use crate::tempete::act::Act;
use crate::tempete::rules::{Tempete, trap_name};
use crate::tempete::state::{State, seat};

use super::grammar::{ActText, Line, read_group, read_move};
use super::resolve::build;
use super::tokens::{Tok, parse};
use super::{ScoredAct, illegal, unreadable};

/// Judges one act with the protocol's own rules, on a synthetic envelope.
#[allow(clippy::too_many_arguments)]
pub(super) fn judge(
    rules: &Tempete,
    coin: &Hash,
    s: &State,
    who: Seat,
    act: &Act,
    opened: &[OpenedSlot],
    committed: &[(Name, u32)],
    sprung: &[(u32, u8)],
    seq: u64,
) -> Result<Applied<State>, Violation> {
    let values: Vec<(Name, u32, Vec<u8>)> = sprung
        .iter()
        .map(|(i, sq)| (trap_name(), *i, vec![*sq]))
        .collect();
    let ctx = ActCtx {
        shown_slots: &[],
        held_slots: &[],
        at: EnvRef {
            chain: ChainId::public(who),
            seq,
        },
        clock: 0,
        coin,
        opened_slots: opened,
        opened_values: &values,
        opened_setups: &[],
        committed_values: committed,
        draws: &[],
    };
    rules.apply(s, who, act, &ctx)
}

/// The rules the tags name: `Cards`, `Hand`, `PlyLimit` (`Deck "physical"` is refused).
pub(super) fn rules_of(tags: &[(String, String)]) -> Result<Tempete, ReplayError> {
    let mut options = vec![];
    for (k, v) in tags {
        let key = match k.as_str() {
            "Cards" => "cards",
            "Hand" => "hand",
            "PlyLimit" => "ply-limit",
            "SetUp" if v.trim() != "0" => {
                return Err(unreadable("tempete starts from the standard position"));
            }
            "Deck" if v.trim() == "physical" => {
                return Err(unreadable(
                    "a game of the physical deck: its score is for reading, not replayed (spec/GAMES.md §4.20.6)",
                ));
            }
            _ => continue,
        };
        let name = Name::new(key).map_err(|e| unreadable(e.to_string()))?;
        options.push((name, v.clone()));
    }
    Tempete::from_options(&options).map_err(|e| unreadable(e.0))
}

/// The result token of an outcome: `1-0`, `0-1`, `1/2-1/2`, or `*` while unfinished
/// (`table/pgn_tags.rs`, as every variant's export reads a result).
pub fn result_token(end: Option<&Outcome>) -> &'static str {
    end.map_or("*", crate::table::pgn_tags::result)
}

/// Replays score text with the rules its tags name; returns the rules, the final state
/// and the number of acts.
pub fn replay_state(text: &str) -> Result<(Tempete, State, usize), ReplayError> {
    let (rules, s, acts) = replay_acts(text)?;
    Ok((rules, s, acts.len()))
}

/// Replays score text and returns the rules, the final state and every act as the
/// replay built it (each card in a slot numbered like the card), ready for
/// [`score_text`].
pub fn replay_acts(text: &str) -> Result<(Tempete, State, Vec<ScoredAct>), ReplayError> {
    let parsed = parse(text)?;
    let mut scored: Vec<ScoredAct> = vec![];
    let rules = rules_of(&parsed.tags)?;
    let mut s = rules.start(&Hash([0; 32]));
    let mut acts = 0usize;
    let mut turns = 0u32;
    let mut number: Option<(u32, Color)> = None;
    for tok in parsed.toks {
        let line = match tok {
            Tok::Number(n, c) => {
                if number.is_some() {
                    return Err(unreadable(format!("move number {n} follows another")));
                }
                number = Some((n, c));
                continue;
            }
            Tok::Word(w) => Line {
                sprung: vec![],
                act: ActText::Turn {
                    start: None,
                    card: None,
                    moves: vec![read_move(&w).map_err(unreadable)?],
                    discard: vec![],
                },
            },
            Tok::Group(words) => read_group(&words)?,
        };
        acts += 1;
        if let Some(end) = &s.end {
            return Err(illegal(acts, format!("the game is over: {}", end.reason)));
        }
        let want = match &line.act {
            ActText::Turn { .. } | ActText::Yield => Some((turns / 2 + 1, s.to_act)),
            ActText::Cancel(_) | ActText::Replay { .. } | ActText::Keep(_) => {
                Some((turns.saturating_sub(1) / 2 + 1, s.to_act))
            }
            ActText::Intercept(_) | ActText::InterceptSecond(_) => None,
        };
        if let Some((n, c)) = number.take()
            && want != Some((n, c))
        {
            let dots = |c: Color| if c == Color::White { "." } else { "..." };
            return Err(unreadable(match want {
                Some((wn, wc)) => format!(
                    "move number {n}{} out of place: this is {wn}{}",
                    dots(c),
                    dots(wc)
                ),
                None => format!("move number {n}{} before an interception", dots(c)),
            }));
        }
        let built = build(&rules, &s, &line, acts)?;
        let who = seat(s.to_act);
        // The coin decides only whether an arbiter signed a ruling, and a score of the
        // physical deck is not replayed (`rules_of`).
        let applied = judge(
            &rules,
            &Hash([0; 32]),
            &s,
            who,
            &built.act,
            &built.opened,
            &built.committed,
            &line.sprung,
            acts as u64,
        )
        .map_err(|e| illegal(acts, e.0))?;
        if matches!(built.act, Act::Turn { .. }) {
            turns += 1;
        }
        s = applied.state;
        scored.push(ScoredAct {
            seat: who,
            cards: built.opened.iter().map(|o| (o.slot, o.card)).collect(),
            sealed_trap: !built.committed.is_empty(),
            sprung: line.sprung,
            act: built.act,
        });
    }
    if number.is_some() {
        return Err(unreadable("a move number at the end names no act"));
    }
    if let (Some(claim), Some(end)) = (&parsed.result, &s.end)
        && claim != "*"
        && claim != result_token(Some(end))
    {
        return Err(illegal(
            acts,
            format!(
                "the score says {claim}, the game says {} ({})",
                result_token(Some(end)),
                end.reason
            ),
        ));
    }
    Ok((rules, s, scored))
}

/// Replays score text: every act is judged by [`Rules::apply`] of [`Tempete`].
pub fn replay(text: &str) -> Result<Replayed, ReplayError> {
    let (_, s, plies) = replay_state(text)?;
    Ok(Replayed {
        plies,
        position: crate::tempete::render::text(&s, None),
        result: s
            .end
            .as_ref()
            .map(|e| format!("{} ({})", result_token(Some(e)), e.reason)),
        svg: Some(crate::tempete::render::svg(&s)),
    })
}
