//! A seat's words for what its game waits for: "you", or the other seat by its role
//! and the name its proposal gives, never a seat number or the spec's terms ("close",
//! "commitment"). `sealed verify` keeps the spec's words: it speaks to whoever checks
//! a transcript, this speaks to the player.

use sealed_protocol::ids::Seat;
use sealed_protocol::outcome::Outcome;
use sealed_protocol::proposal::{Role, Terms};
use sealed_protocol::session::AnySession;
use sealed_protocol::verdict::{Awaited, ClaimAbout, ClaimView, Status};

/// Seat `s` as this seat's player reads it: "you", "your opponent bob", "the referee".
pub(crate) fn who(terms: &Terms, me: Seat, s: Seat) -> String {
    if s == me {
        return "you".into();
    }
    let role = match terms.role(s) {
        Some(Role::Referee) => "the referee",
        Some(Role::Witness) => "the witness",
        _ => "your opponent",
    };
    match terms.display_name(s) {
        Some(n) => format!("{role} {n}"),
        None => role.into(),
    }
}

/// "your" for "you", else "bob's".
fn whose(who: &str) -> String {
    if who == "you" {
        "your".into()
    } else {
        format!("{who}'s")
    }
}

/// One step the game waits for, said to this seat's player.
pub(super) fn step(who: &str, a: &Awaited) -> String {
    let node = format!("{} node", whose(who));
    match a {
        Awaited::Acceptance => format!("{who} to accept the proposal"),
        Awaited::CoinSeed => format!("{node} to reveal its share of the coin"),
        Awaited::Deal { due: 1, .. } => format!("{node} to deal a card"),
        Awaited::Deal { due, .. } => format!("{node} to deal {due} cards"),
        Awaited::DrawValue { .. } => format!("{node} to send its share of a draw"),
        Awaited::Act => format!("{who} to move"),
    }
}

/// A claim the verdict derived once the game is over, said to this seat's player; `None`
/// for unfinished games' claims ([`step`] says those) and claims a seat made (timeouts:
/// accusations, not steps anyone awaits).
pub(super) fn after_the_end(who: &str, c: &ClaimView) -> Option<String> {
    if c.by.is_some() {
        return None;
    }
    let node = format!("{} node", whose(who));
    Some(match c.about {
        ClaimAbout::WithheldReveal => {
            format!("{node} to show the secrets it kept sealed (it does so by itself)")
        }
        ClaimAbout::WithheldClose => {
            format!("{node} to sign the end of the game (it does so by itself when it runs)")
        }
        ClaimAbout::MissingEnvelopes => {
            format!("messages of {who} that were acknowledged but never arrived")
        }
        ClaimAbout::Unaudited => {
            format!(
                "{node} to publish what the end-of-game check needs ({})",
                c.evidence
            )
        }
        ClaimAbout::Disputed => format!(
            "an agreement or the arbiter's ruling on what {who} stated ({})",
            c.evidence
        ),
        ClaimAbout::WitnessLied => {
            "nothing: the witness contradicted itself, so the loss on time does not stand and the game has no result".into()
        }
        ClaimAbout::Unfinished | ClaimAbout::Timeout | ClaimAbout::Abandoned => return None,
    })
}

/// The PGN roster's `White` and `Black` tags from the names the proposal gives seats 0
/// and 1 (escaped: a name comes from whoever signed the proposal); none for a seat
/// without a name, which PGN then writes as `?`.
pub(crate) fn player_tags(terms: &Terms) -> Vec<(&'static str, String)> {
    ["White", "Black"]
        .into_iter()
        .zip(terms.seats())
        .filter_map(|(tag, seat)| Some((tag, terms.display_name(seat)?)))
        .collect()
}

/// Each seat's name as the faces show it, escaped ([`sealed_protocol::text::name`]): the
/// one the seat signed for itself (spec/PROTOCOL.md §17.15), else the one the proposal
/// gives it; `None` when neither names it. `signed` is the session's
/// (`Envelopes::signed_name`), or nothing when only the terms are at hand.
pub fn seat_names(terms: &Terms, signed: impl Fn(Seat) -> Option<String>) -> Vec<Option<String>> {
    terms
        .seats()
        .map(|s| {
            signed(s)
                .map(|n| sealed_protocol::text::name(&n))
                .filter(|n| !n.is_empty())
                .or_else(|| terms.display_name(s))
        })
        .collect()
}

/// A result in the players' names (`names`, as [`seat_names`] gives them: `alice
/// loss, bob win (alice resigned)`), a seat without one by its role (`the referee`),
/// else as the verdict says it (`seat 1 loss`).
pub(crate) fn outcome(terms: &Terms, names: &[Option<String>], o: &Outcome) -> String {
    let seats = terms.seat_count();
    let called = |i: usize| {
        names
            .get(i)
            .cloned()
            .flatten()
            .or_else(|| {
                let s = Seat(u8::try_from(i).ok()?);
                (terms.role(s) == Some(Role::Referee)).then(|| "the referee".to_owned())
            })
            .unwrap_or_else(|| format!("seat {i}"))
    };
    let results: Vec<String> = o
        .results
        .iter()
        .enumerate()
        .map(|(i, r)| format!("{} {r}", called(i)))
        .collect();
    // The reason names seats as "seat N" (fewer than ten seats in any game).
    let mut reason = o.reason.clone();
    for i in 0..seats.min(10) {
        reason = reason.replace(&format!("seat {i}"), &called(i));
    }
    format!("{} ({reason})", results.join(", "))
}

/// A game's result in one line, in the players' names (`alice loss, bob win (alice
/// resigned) [verified]`), once the seat's verdict has one. Every game's the same way:
/// the verdict and the names are the protocol's, so it asks no game.
pub fn result_line(session: &dyn AnySession) -> Option<String> {
    let v = session.verdict();
    let status = match v.status {
        Status::Verified => "verified",
        Status::Unconfirmed => "unconfirmed",
        Status::ProvenFault => "proven fault",
    };
    let terms = session.terms();
    v.outcome.map(|o| {
        let held = session.envelopes();
        let names = seat_names(terms, |s| held.signed_name(s).map(str::to_owned));
        format!("{} [{status}]", outcome(terms, &names, &o))
    })
}
