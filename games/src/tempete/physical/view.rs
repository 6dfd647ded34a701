//! What a player sees of claims in the physical deck: the opponent's acts he has not yet
//! accepted (his next act accepts them), the disputes and where they stand, and the
//! continuing effects that later moves may cite — in words for the terminal, typed for
//! the view the web board reads.

use crate::table::hand::{Answerable, Claims, Dispute, Lasting, MyClaim};

use sealed_protocol::engine::Engine;
use sealed_protocol::session::Session;

use crate::chess::Color;

use super::super::act::{Act, Answer};
use super::super::rules::Tempete;
use super::super::state::{State, color};
use super::super::table::scored_acts;
use super::claims::DisputeState;

/// How many of one's own claims the view lists (the latest): the board shows where
/// the recent ones stand; the score keeps them all.
pub const MINE_SHOWN: usize = 8;

fn side(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// A side as people know it: the name its seat signed, with the colour.
fn who(e: &Engine<Tempete>, c: Color) -> String {
    match e
        .signed_name(super::super::state::seat(c))
        .map(sealed_protocol::text::name)
        .filter(|n| !n.is_empty())
    {
        Some(n) => format!("{n} ({})", side(c)),
        None => side(c).to_owned(),
    }
}

/// Every accepted act in the typed words, by act number.
pub fn act_words(e: &Engine<Tempete>) -> Vec<String> {
    words_of(&scored_acts(e))
}

fn words_of(acts: &[super::super::score::ScoredAct]) -> Vec<String> {
    acts.iter()
        .map(|sa| {
            let number = |r| match r {
                super::super::act::CardRef::Slot(x) => {
                    sa.cards.iter().find(|(y, _)| *y == x).map(|(_, n)| *n)
                }
                super::super::act::CardRef::Taken(n) => Some(n),
                super::super::act::CardRef::Again => None,
            };
            super::super::command::write(&sa.act, &number, None)
                .unwrap_or_else(|| "(an act that cannot be written)".into())
        })
        .collect()
}

/// The claims part of a physical game's view, `null` in the open deck:
/// `{"answerable": [{"act", "by", "who", "words"}], "disputes": [{"dispute", "act",
/// "claimant", "who", "note", "state", "until"}], "lasting": [{"act", "by", "who", "card",
/// "until", "note"}],
/// "mine": [{"act", "words", "state"}], "arbiter": bool}`. `answerable` lists the acts `me`'s opponent made that `me` may
/// still dispute (every unanswered act when `me` is nobody: the arbiter's view); `state` is `open`, `offered` (a settlement awaits acceptance), `settled`,
/// `ruled` or `lapsed`; `until` is the ply by which a ruling must come (arbiter games);
/// `by` and `claimant` are colours, `who` the seat's signed name with its colour.
/// `mine` is what `me` stated (a card's claim, a citation, a settlement; the last
/// [`MINE_SHOWN`]) and where each stands for him: `waiting` for the opponent's next
/// act, `accepted` by it, or `disputed` — so that his board can say which.
pub fn claims(e: &Engine<Tempete>, me: Option<Color>, st: &State) -> Option<Claims> {
    let rules = e.rules();
    let physical = rules.physical.as_ref()?;
    let acts = scored_acts(e);
    let words = words_of(&acts);
    // What the opponent wrote is shown escaped, whatever the rules let through (a
    // note is at most 280 bytes, an act's words a few more).
    let shown = |t: &str| -> String {
        t.chars()
            .map(|c| match sealed_protocol::text::is_hidden(c) {
                true => c.escape_unicode().to_string(),
                false => c.to_string(),
            })
            .collect()
    };
    let word = |act: u32| shown(words.get(act as usize).map_or("", String::as_str));
    let mine: Vec<MyClaim> = acts
        .iter()
        .enumerate()
        .filter(|(_, sa)| me.is_some_and(|c| super::super::state::seat(c) == sa.seat))
        .filter(|(_, sa)| {
            matches!(
                sa.act,
                Act::Claim(_) | Act::Answer(Answer::Claimed(_)) | Act::Settle { .. }
            )
        })
        .map(|(i, _)| {
            let act = i as u32;
            let state = if st.claims.unanswered.iter().any(|r| r.act == act) {
                "waiting"
            } else if st.claims.disputes.iter().any(|d| d.act == act) {
                "disputed"
            } else {
                "accepted"
            };
            MyClaim {
                act,
                words: word(act),
                state: state.to_owned(),
            }
        })
        .collect();
    let mine = mine[mine.len().saturating_sub(MINE_SHOWN)..].to_vec();
    let answerable = st
        .claims
        .unanswered
        .iter()
        .filter(|r| Some(r.side) != me)
        .map(|r| Answerable {
            act: r.act,
            by: side(r.side).to_owned(),
            who: who(e, r.side),
            words: word(r.act),
        })
        .collect();
    let disputes = st
        .claims
        .disputes
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let state = match d.state {
                DisputeState::Open | DisputeState::Settling { .. } if rules.lapsed(st, d) => {
                    "lapsed"
                }
                DisputeState::Open => "open",
                DisputeState::Settling { .. } => "offered",
                DisputeState::Settled { .. } => "settled",
                DisputeState::Ruled { .. } => "ruled",
            };
            Dispute {
                dispute: i,
                act: d.act,
                claimant: side(d.claimant).to_owned(),
                who: who(e, d.claimant),
                words: word(d.act),
                note: shown(&d.note),
                state: state.to_owned(),
                until: physical
                    .arbiter
                    .map(|_| d.ply.saturating_add(physical.ruling_plies)),
            }
        })
        .collect();
    let lasting = st
        .claims
        .lasting
        .iter()
        .filter(|l| st.plies < l.until)
        .map(|l| Lasting {
            act: l.act,
            by: side(l.side).to_owned(),
            who: who(e, l.side),
            card: l.card,
            until: l.until,
            note: shown(&l.note),
        })
        .collect();
    Some(Claims {
        answerable,
        disputes,
        lasting,
        mine,
        arbiter: physical.arbiter.is_some(),
    })
}

/// The same in lines for the terminal (`sealed show`), empty in the open deck.
pub fn claims_text(e: &Engine<Tempete>, me: Option<Color>, st: &State) -> String {
    let Some(v) = claims(e, me, st) else {
        return String::new();
    };
    let mut out = String::new();
    if !v.answerable.is_empty() {
        out.push_str(
            "claims waiting for your answer (your next act accepts them; `dispute ACT note WHY` first to dispute one):\n",
        );
        for a in &v.answerable {
            out.push_str(&format!("  act {}: {} plays {}\n", a.act, a.who, a.words));
        }
    }
    for l in &v.lasting {
        // A citation names no card when none was stated: said `null`, as the JSON has it.
        let card = l.card.map_or_else(|| "null".to_owned(), |c| c.to_string());
        out.push_str(&format!(
            "continuing effect of act {} ({}, card {card}) until ply {}: {} — cite it with `cite {} then <move>`\n",
            l.act, l.who, l.until, l.note, l.act,
        ));
    }
    for d in &v.disputes {
        if !matches!(d.state.as_str(), "open" | "offered") {
            continue;
        }
        let until = match d.until {
            Some(p) => format!(", the arbiter may rule until ply {p}"),
            None => String::new(),
        };
        out.push_str(&format!(
            "dispute {} of act {} ({}: {}) is {}{until}: {} — `settle {} <edits> note …` offers a settlement\n",
            d.dispute, d.act, d.who, d.words, d.state, d.note, d.dispute,
        ));
    }
    out
}

/// The physical deck's hints: how to state a card, cite an effect, dispute, settle.
pub fn hints(
    s: &Session<Tempete>,
    st: &State,
    hand: &[(super::super::act::CardRef, super::super::card::Card)],
) -> Vec<String> {
    use super::super::card::{Effect, FlowEffect, Moment};
    let me = color(s.seat());
    let mut v = vec![];
    for r in st.claims.unanswered.iter().filter(|r| r.side != me) {
        v.push(format!(
            "dispute {} note <why>: before your act, which accepts it otherwise",
            r.act
        ));
    }
    let mut stated = false;
    for (_, c) in hand {
        match c.effect() {
            Effect::Stated if !stated => {
                stated = true;
                v.push(format!(
                    "card {} then <move>… [remove <sq>] [place <piece> <sq>] [exchange <sq> <sq>] [again] [for <plies>] note <what it does>",
                    c.number()
                ));
            }
            Effect::Stated => {}
            e if matches!(e.flow(), Some(FlowEffect::SealTrapSquare(_))) => v.push(format!(
                "card {} trap <square> then <move> note <what it does>",
                c.number()
            )),
            Effect::ExtraMove { .. } => v.push(format!(
                "card {} then <move> <move>: the double move (it may be intercepted part by part)",
                c.number()
            )),
            _ if st.board.check_timing(me, c, Moment::TurnStart).is_ok() => {
                v.push(format!("take <number> with {}; <turn>", c.number()));
            }
            _ if st.board.check_timing(me, c, Moment::AfterLoss).is_ok() => {
                v.push(format!("pick <slot> with {}; <turn>", c.number()));
            }
            _ => {}
        }
    }
    for l in st.claims.lasting.iter().filter(|l| st.plies < l.until) {
        v.push(format!(
            "cite {} then <move> note <how the effect allows it>",
            l.act
        ));
    }
    for (i, _) in st.claims.open() {
        v.push(format!("settle {i} [<edits>] note <what you agree>"));
    }
    v
}
