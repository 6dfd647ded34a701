//! Tempête at a table: what the node and the command line need of the game — the
//! typed notation, the bot, hints, the board and hand for people, the score. Why typed
//! words or an arbiter's ruling are refused is in `refused.rs`.

use sealed_protocol::body::{Item, Purpose};
use sealed_protocol::commit::CommitKey;
use sealed_protocol::engine::Engine;
use sealed_protocol::ids::{ChainId, EnvRef, Name, Seat};
use sealed_protocol::rules::{ActCtx, OpenedSlot, Rules};
use sealed_protocol::session::{AnySession, Command, Session};

use crate::table::hand::{ShownCard, TempeteCard, TempeteHand};
use crate::table::{Automation, Choice, Face, Game, Grid, Hand, Refusal};

use super::act::{Act, Answer, CardRef};
use super::bot;
use super::card::{Effect, FlowEffect, Moment};
use super::command;
use super::holding;
use super::holding::NotInHand;
use super::refused::{CheckError, RulingError, TempeteError};
use super::rules::{Tempete, VARIANT, deck_name, trap_name};
use super::score::ScoredAct;
use super::state::{Pending, State, color};

/// The squares an act's own moves left and reached (both moves of a double move), for
/// a board to mark; none for an act that moves nothing of its own (an interception, a
/// dispute, a cancel).
fn moved(act: &Act) -> Vec<String> {
    let claimed;
    let moves = match act {
        Act::Claim(c) | Act::Answer(Answer::Claimed(c)) => {
            claimed = c
                .moves()
                .iter()
                .map(super::act::WireMove::of)
                .collect::<Vec<_>>();
            &claimed
        }
        Act::Turn { moves, .. }
        | Act::Answer(Answer::Replay { moves, .. } | Answer::Keep { moves }) => moves,
        _ => return vec![],
    };
    moves
        .iter()
        .filter_map(|w| w.to_move().ok())
        .flat_map(|m| [m.from.to_string(), m.to.to_string()])
        .collect()
}

/// Every accepted act with what its envelope opened and sealed, for the score.
pub fn scored_acts(e: &Engine<Tempete>) -> Vec<ScoredAct> {
    let deck = deck_name();
    let trap = trap_name();
    e.main_line()
        .iter()
        .filter_map(|(at, seat)| {
            let env = e.envelope(*at)?;
            let mut act = None;
            let mut cards = vec![];
            let mut sealed_trap = false;
            let mut sprung = vec![];
            for item in &env.unsigned().body {
                match item {
                    Item::Act(bytes) => {
                        act = sealed_protocol::wire::decode(bytes, e.rules().act_cap()).ok();
                    }
                    Item::Open(o) if o.purpose == Purpose::Deck(deck.clone()) => {
                        if let Some(card) = sealed_protocol::commit::card_from_value(&o.value) {
                            cards.push((o.index, card));
                        }
                    }
                    Item::Open(o) if o.purpose == Purpose::Value(trap.clone()) => {
                        if let [sq] = o.value.as_slice() {
                            sprung.push((o.index, *sq));
                        }
                    }
                    Item::Commit(c) if c.purpose == Purpose::Value(trap.clone()) => {
                        sealed_trap = true;
                    }
                    _ => {}
                }
            }
            Some(ScoredAct {
                seat: *seat,
                act: act?,
                cards,
                sealed_trap,
                sprung,
            })
        })
        .collect()
}

/// What a person types, read and judged as the node reads `sealed move`: for tests
/// and tools outside the node.
pub fn typed(s: &Session<Tempete>, text: &str) -> Result<Command, Refusal> {
    let state = s.engine().state().ok_or(Refusal::Unstarted)?;
    <Tempete as Face>::parse(s, state, text).map_err(Refusal::game)
}

/// Judges a command with the game's own rules on the current state, as the envelope
/// carrying it would be judged: a person hears at once why a move is refused.
fn check(s: &Session<Tempete>, state: &State, cmd: &Command) -> Result<(), CheckError> {
    let Command::Act {
        act,
        show_slots,
        open_slots,
        commit_values,
        open_values,
        ..
    } = cmd
    else {
        return Ok(());
    };
    let act: Act = sealed_protocol::wire::decode(act, s.engine().rules().act_cap())?;
    let hand = s.hand(&deck_name());
    let opened: Vec<OpenedSlot> = open_slots
        .iter()
        .map(|(deck, slot)| {
            let card = hand
                .iter()
                .find(|(x, _)| x == slot)
                .map(|(_, c)| *c)
                .ok_or(NotInHand(*slot))?;
            Ok(OpenedSlot {
                deck: deck.clone(),
                slot: *slot,
                card,
            })
        })
        .collect::<Result<_, NotInHand>>()?;
    let (shown, held) = holding::shown_and_held(&hand, show_slots)?;
    let secrets = s.secrets();
    let decks = s.engine().decks();
    let values: Vec<(Name, u32, Vec<u8>)> = open_values
        .iter()
        .filter_map(|(name, index)| {
            let key = CommitKey {
                seat: s.seat(),
                purpose: Purpose::Value(name.clone()),
                index: *index,
            };
            Some((name.clone(), *index, secrets.value(&key, &decks)?))
        })
        .collect();
    let committed: Vec<(Name, u32)> = commit_values
        .iter()
        .map(|(n, i, _)| (n.clone(), *i))
        .collect();
    let coin = s.engine().coin().copied().unwrap_or_default();
    let ctx = ActCtx {
        at: EnvRef {
            chain: ChainId::public(s.seat()),
            seq: 0,
        },
        clock: 0,
        coin: &coin,
        opened_slots: &opened,
        shown_slots: &shown,
        held_slots: &held,
        opened_values: &values,
        opened_setups: &[],
        committed_values: &committed,
        draws: &[],
    };
    s.engine()
        .rules()
        .apply(state, s.seat(), &act, &ctx)
        .map(drop)
        .map_err(CheckError::Rules)
}

fn command_seat<'a>(
    s: &Session<Tempete>,
    state: &'a State,
    hand: &'a [(CardRef, super::Card)],
) -> command::Seat<'a> {
    command::Seat {
        hand,
        traps: state.hand(color(s.seat())).traps.len() as u32,
        pos: state.board.position(),
        physical: s.engine().rules().physical.is_some(),
    }
}

impl Game for Tempete {
    const VARIANT: &'static str = VARIANT;

    fn ready(_s: &Session<Self>, _state: &State) -> bool {
        true
    }
}

/// The cards of `hand` that may intercept now, `last` being the opponent's turn just
/// made: one that replaces a move intercepts any turn, one that cancels a card only a
/// turn that played a card.
fn interceptors<'a>(
    hand: &'a [(CardRef, super::card::Card)],
    last: Option<&'a super::state::TurnMade>,
) -> impl Iterator<Item = &'a super::card::Card> {
    hand.iter()
        .map(|(_, c)| c)
        .filter(move |c| match c.effect() {
            Effect::ReplaceMove => last.is_some(),
            Effect::Cancel => last.is_some_and(|t| t.card.is_some()),
            _ => false,
        })
}

/// How to play a card on one's own move, in words, with an example the board allows
/// now (the first legal play with it), e.g. `card 18 (Twin Leap): type "card 18", "then"
/// and the moves it allows, as from-to squares; e.g. card 18 then g1f3 f3g5`; without
/// `full`, the card and its example alone (the words were said for an earlier card).
fn card_hint(r: &CardRef, c: &super::card::Card, state: &State, full: bool) -> String {
    let example = state.board.legal_plays(Some(c)).into_iter().find_map(|p| {
        let act = Act::Turn {
            start: None,
            card: Some(super::act::CardUse::new(*r, &p.params)),
            moves: p.moves.iter().map(super::act::WireMove::of).collect(),
            discard: vec![],
        };
        command::write(&act, &|_| Some(c.number()), None)
    });
    let Some(example) = example else {
        return format!("card {} ({}): not playable now", c.number(), c.name());
    };
    if !full {
        return format!("card {} ({}): e.g. {example}", c.number(), c.name());
    }
    let mut parts = vec![format!("type \"card {}\"", c.number())];
    if example.contains(" at ") {
        parts.push("\"at\" and the squares it acts on".into());
    }
    if example.contains(" as ") {
        parts.push("\"as\" and the piece it makes (P N B R Q K)".into());
    }
    if example.contains(" then ") {
        parts.push("\"then\" and the moves it allows, as from-to squares".into());
    }
    format!(
        "card {} ({}): {}; e.g. {example}",
        c.number(),
        c.name(),
        parts.join(", ")
    )
}

impl Face for Tempete {
    fn side(seat: Seat) -> Option<String> {
        Some(
            match color(seat) {
                crate::chess::Color::White => "White",
                crate::chess::Color::Black => "Black",
            }
            .to_owned(),
        )
    }

    fn prompt(s: &Session<Self>, state: &State) -> String {
        match &state.pending {
            Pending::Answer { by, second, .. } => match by {
                FlowEffect::CancelCard => {
                    "your turn was intercepted: your card is cancelled, make a plain move".into()
                }
                _ if *second => {
                    "the second move of your double move was intercepted: make another one".into()
                }
                _ => "your turn was intercepted: make another move".into(),
            },
            // Offered only when this hand holds a card that may intercept now.
            Pending::Turn(last)
                if interceptors(&holding::hand(s), last.as_ref())
                    .next()
                    .is_some() =>
            {
                "your move, or intercept the opponent's turn with a card".into()
            }
            Pending::Turn(_) => "your move".into(),
        }
    }

    type Error = TempeteError;

    fn parse(s: &Session<Self>, state: &State, text: &str) -> Result<Command, TempeteError> {
        let hand = holding::hand(s);
        let mut cmd = command::parse(&command_seat(s, state, &hand), text)?;
        // With a turn, the traps this seat sealed that an enemy piece landed on spring
        // first, whatever the person typed: opened later they would lose their effect,
        // and the node knows the squares.
        if let Command::Act {
            act, open_values, ..
        } = &mut cmd
            && matches!(
                sealed_protocol::wire::decode::<Act>(act, s.engine().rules().act_cap()),
                Ok(Act::Turn { .. } | Act::Claim(_))
            )
        {
            *open_values = holding::traps_to_open(s, &state.board);
        }
        holding::add_shows(s, &mut cmd);
        check(s, state, &cmd).map_err(|why| TempeteError::Refused {
            text: text.to_owned(),
            why,
        })?;
        Ok(cmd)
    }

    fn hints(s: &Session<Self>, state: &State) -> Vec<String> {
        let hand = holding::hand(s);
        let side = color(s.seat());
        let mut v = vec![];
        let plain = state.board.legal_plays(None);
        match &state.pending {
            Pending::Answer { turn, by, second } => {
                let rules = s.engine().rules();
                let others = if *second {
                    rules.other_second_moves(turn)
                } else {
                    vec![]
                };
                // The rules take any answer only when no other second move exists.
                if let (Some(first), Some(other)) = (turn.moves.first(), others.first()) {
                    v.push(format!(
                        "answer again then {first} <another second move>, e.g. answer again then {first} {other}"
                    ));
                } else {
                    if let Some(p) = plain.first() {
                        v.push(format!("answer <move>, e.g. answer {}", p.moves[0]));
                    }
                    if *by == FlowEffect::ReplaceMove {
                        v.push("answer again then <move> [<move>]".into());
                        if let Some(c) = rules.double_move_card(turn) {
                            v.push(format!(
                                "answer keep <move>: one plain move, card {} back to your hand (shown)",
                                c.number()
                            ));
                        }
                    }
                }
                if hand.iter().any(|(_, c)| c.effect() == Effect::Cancel) {
                    v.push("answer cancel <card>".into());
                }
                return v;
            }
            Pending::Turn(last) => {
                for c in interceptors(&hand, last.as_ref()) {
                    v.push(format!("intercept {}", c.number()));
                    let double = last
                        .as_ref()
                        .is_some_and(|t| s.engine().rules().double_move_card(t).is_some());
                    if c.effect() == Effect::ReplaceMove && double {
                        v.push(format!(
                            "intercept second {}: only the second move of the double move",
                            c.number()
                        ));
                    }
                }
            }
        }
        if let Some(p) = plain.first() {
            let san = state
                .board
                .position()
                .san(&p.moves[0])
                .unwrap_or_else(|_| p.moves[0].to_string());
            v.push(format!("<move>, e.g. {san} ({} legal)", plain.len()));
        } else {
            v.push("yield (no legal move)".into());
        }
        if s.engine().rules().physical.is_some() {
            v.extend(super::physical::view::hints(s, state, &hand));
            return v;
        }
        for (r, c) in &hand {
            if c.timing().is_own_move() && !state.board.legal_plays(Some(c)).is_empty() {
                let how = match c.effect().flow() {
                    // Playable where a card can be shown without being played (version 2).
                    Some(FlowEffect::ShowHand) if !s.engine().rules().version_2 => continue,
                    Some(FlowEffect::SealTrapSquare(_)) => "trap <square> then <move>".to_owned(),
                    Some(FlowEffect::Redraw(n)) => format!("discard <{n} cards> then <move>"),
                    _ => {
                        // Said in full once; the next cards by their example alone.
                        let full = !v.iter().any(|h: &String| h.contains(": type \"card "));
                        v.push(card_hint(r, c, state, full));
                        continue;
                    }
                };
                v.push(format!("card {} {how}: {}", c.number(), c.name()));
            } else if state.board.check_timing(side, c, Moment::TurnStart).is_ok() {
                v.push(format!("take <number> with {}; <turn>", c.number()));
            } else if state.board.check_timing(side, c, Moment::AfterLoss).is_ok() {
                v.push(format!("pick <slot> with {}; <turn>", c.number()));
            }
        }
        v
    }

    fn choices(s: &Session<Self>, state: &State) -> Vec<Choice> {
        super::choices::choices(s, state)
    }

    fn board(s: &Session<Self>, state: &State) -> String {
        let hand: Vec<(u32, String)> = holding::hand(s)
            .into_iter()
            .map(|(_, c)| {
                (
                    c.number(),
                    format!("{} ({}): {}", c.name(), c.timing(), c.text()),
                )
            })
            .collect();
        let mut text = super::render::text(state, Some(&hand));
        // Known to this seat alone until it opens them; the page's board marks them too.
        for (_, t) in holding::sealed_traps(s) {
            text.push_str(&format!(
                "your sealed trap on {} ({})\n",
                t.square, t.effect
            ));
        }
        for (_, c) in holding::shown_to_me(s) {
            text.push_str(&format!(
                "the opponent showed you card {} ({})\n",
                c.number(),
                c.name()
            ));
        }
        text.push_str(&super::physical::view::claims_text(
            s.engine(),
            Some(color(s.seat())),
            state,
        ));
        text
    }

    fn hand(s: &Session<Self>) -> (Option<String>, Hand) {
        let cards = holding::hand(s)
            .iter()
            .map(|(r, c)| TempeteCard {
                card: c.number(),
                slot: match r {
                    CardRef::Slot(x) => Some(*x),
                    _ => None,
                },
                taken: matches!(r, CardRef::Taken(_)),
                name: c.name().to_owned(),
                timing: c.timing().keyword().to_owned(),
                effect: c.effect().to_string(),
                text: c.text().to_owned(),
            })
            .collect();
        let state = s.engine().state();
        let sizes = state.map(|st| [st.hands[0].size, st.hands[1].size]);
        let claims = state
            .and_then(|st| super::physical::view::claims(s.engine(), Some(color(s.seat())), st));
        // The opponent's cards shown to this seat (show-hand) and still in his hand.
        let opponent_shown = holding::shown_to_me(s)
            .iter()
            .map(|(_, c)| ShownCard {
                card: c.number(),
                name: c.name().to_owned(),
                text: c.text().to_owned(),
            })
            .collect();
        (
            None,
            Hand::Tempete(TempeteHand {
                cards,
                sizes,
                claims,
                opponent_shown,
            }),
        )
    }

    fn svg(state: &State) -> Option<String> {
        Some(super::render::svg(state))
    }

    fn grid(s: &Session<Self>, state: &State) -> Option<Grid> {
        let own: Vec<_> = holding::sealed_traps(s)
            .into_iter()
            .map(|(_, t)| t)
            .collect();
        let pos = state.board.position();
        Some(Grid::chess(pos, color(s.seat()), |sq| {
            super::render::marks(state, sq, &own)
        }))
    }

    fn pgn(s: &Session<Self>, state: &State) -> Option<String> {
        let mut tags: Vec<(String, String)> =
            crate::table::pgn_tags::game_tags(s.engine().terms(), s.timeline().started)
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect();
        let outcome = s.verdict().outcome;
        // A game ended off the board (a resignation, an agreed draw, a loss on time)
        // says how, as Stallmate's does: its result alone does not (issue 55).
        if let Some(o) = outcome.as_ref().filter(|_| state.end.is_none()) {
            tags.push(("Termination".to_owned(), o.reason.clone()));
        }
        let result = super::score::result_token(outcome.as_ref());
        Some(super::pgn::pgn(
            s.engine().rules(),
            &s.engine().coin().copied().unwrap_or_default(),
            &scored_acts(s.engine()),
            &tags,
            Some(result),
        ))
    }

    fn last_words(s: &Session<Self>, _state: &State, _acts: &[Act]) -> Option<String> {
        // What the board alone does not say: a card's effect, a dispute, a ruling.
        let e = s.engine();
        let coin = e.coin().copied().unwrap_or_default();
        let (seat, text) = super::score::last_act(e.rules(), &coin, &scored_acts(e))?;
        let who = crate::table::words::who(e.terms(), s.seat(), seat);
        Some(format!("last act ({who}): {text}"))
    }

    fn last(_s: &Session<Self>, _state: &State, acts: &[Act]) -> Vec<String> {
        // A turn whose interception was cancelled stands: the turn before both is it.
        // A turn just intercepted is not on the board any more: nothing is marked.
        let mut at = acts.len();
        while at > 0 {
            at -= 1;
            match &acts[at] {
                Act::Answer(Answer::Cancel { .. }) => at = at.saturating_sub(1),
                // A dispute, a settlement or a ruling moves nothing of its own: the
                // last play is still the one before it.
                Act::Dispute { .. } | Act::Settle { .. } | Act::Ruling { .. } => {}
                act => return moved(act),
            }
        }
        vec![]
    }

    fn boards(s: &Session<Self>, _acts: &[Act]) -> Vec<(Grid, Vec<String>)> {
        // Each act of the score on the rules, as the score writer runs them (with the
        // game's coin, which an arbiter's ruling is signed over): what a card did to the
        // board is in these positions, which the page could not replay itself, a
        // physical card's stated effect included (issue 55).
        let rules = s.engine().rules();
        let coin = s.engine().coin().copied().unwrap_or_default();
        let scored = scored_acts(s.engine());
        let states = super::score::states(rules, &coin, &scored);
        // A score that ends on an act the rules refuse has no positions past it; the
        // page steps through none rather than some.
        if states.len() != scored.len() {
            return vec![];
        }
        let from = color(s.seat());
        let grid = |st: &State| Grid::chess(st.board.position(), from, |_| vec![]);
        let start = rules.start(&sealed_protocol::hash::Hash([0; 32]));
        let mut out = vec![(grid(&start), vec![])];
        for ((_, applied), sa) in states.iter().zip(&scored) {
            out.push((grid(&applied.state), moved(&sa.act)));
        }
        out
    }

    fn score(s: &Session<Self>, _state: &State, _acts: &[Act]) -> Option<String> {
        Some(super::score::score_text_ending(
            s.engine().rules(),
            &s.engine().coin().copied().unwrap_or_default(),
            &scored_acts(s.engine()),
            s.verdict().outcome.as_ref(),
        ))
    }
}

impl Automation for Tempete {
    fn bot(s: &Session<Self>, _state: &State, pick: u64) -> Option<Command> {
        bot::choice(s, pick)
    }

    /// The arbiter's ruling, as his node sends it (spec/GAMES.md §4.20): checked as the
    /// rules will check it, and posted when this seat is to act.
    fn ruling(s: &Session<Self>, state: &State, act: &Act) -> Result<Option<Command>, Refusal> {
        let Act::Ruling {
            dispute,
            edits,
            note,
            signature,
        } = act
        else {
            return Err(Refusal::game(RulingError::NotARuling));
        };
        let rules = s.engine().rules();
        let arbiter = rules
            .physical
            .as_ref()
            .and_then(|p| p.arbiter.as_ref())
            .ok_or_else(|| Refusal::game(RulingError::NoArbiter))?;
        // Under version 1 a posted ruling accepts the claims before it: a node must
        // not post one for a person there.
        if !rules.version_2 {
            return Err(Refusal::game(RulingError::Version1));
        }
        let coin = s.engine().coin().ok_or(Refusal::Unstarted)?;
        if !super::physical::ruling::ruling_is_signed(
            arbiter, coin, *dispute, edits, note, signature,
        ) {
            return Err(Refusal::game(RulingError::NotSigned(*dispute)));
        }
        state
            .claims
            .disputes
            .get(*dispute as usize)
            .filter(|d| d.is_open() && !rules.lapsed(state, d))
            .ok_or_else(|| Refusal::game(RulingError::NotOpen(*dispute)))?;
        if s.engine().to_act() != Some(s.seat()) {
            return Ok(None);
        }
        let mut cmd = holding::command(act, vec![]);
        holding::add_shows(s, &mut cmd);
        // Refused now (another act is owed first): kept for the next chance.
        Ok(check(s, state, &cmd).ok().map(|()| cmd))
    }
}
