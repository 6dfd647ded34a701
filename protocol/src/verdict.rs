//! The verdict: one deterministic function of what the engine replayed, used live and
//! offline alike.
//!
//! Proofs and claims are kept apart. A proven fault is a signed envelope that breaks a
//! rule; the signer answers for it whatever else happened. A claim (a timeout, a reveal
//! or close never sent, envelopes someone acknowledged but the file lacks) is recorded
//! with its evidence and leaves the result unconfirmed.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::body::ClaimKind;
use crate::engine::Engine;
use crate::fault::Fault;
use crate::ids::{ChainId, GameId, Seat};
use crate::outcome::Outcome;
use crate::rules::Rules;

/// Where the verdict stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Complete, closed, and nothing still hidden could change the result.
    Verified,
    /// No proven fault, but unfinished, unclosed, missing reveals or open claims.
    Unconfirmed,
    /// At least one seat signed something that breaks a rule.
    ProvenFault,
}

/// What a claim is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClaimAbout {
    /// A claimant says the accused let the agreed time pass.
    Timeout,
    /// A claimant says the accused stopped answering.
    Abandoned,
    /// The game is not over; the accused owes the next step.
    Unfinished,
    /// The game is over and the accused has not opened all its commitments.
    WithheldReveal,
    /// The accused has not closed.
    WithheldClose,
    /// Envelopes of the accused are acknowledged (or follow a gap) but absent.
    MissingEnvelopes,
    /// The game's end-of-game audit lacks something the accused should have posted or
    /// published (a private log, its seal).
    Unaudited,
    /// A claim the game's own rules leave open against the accused (Tempête's physical
    /// deck: a stated effect disputed and never settled): the result stands, unconfirmed.
    Disputed,
    /// Version 2: a time forfeit against the accused stood, but the witness's posted
    /// statements contradict each other, so no time result stands (spec/PROTOCOL.md
    /// §17): the game ended with no result, and the witness is the one proven to lie.
    WitnessLied,
}

/// A claim with its evidence.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ClaimView {
    /// The claimant, or `None` when the verifier derived it from the transcript.
    pub by: Option<Seat>,
    /// Against whom.
    pub against: Seat,
    /// What about.
    pub about: ClaimAbout,
    /// The evidence, in words.
    pub evidence: String,
    /// Still open (a claimant who later received from the accused and went on has
    /// dropped the claim).
    pub open: bool,
}

/// The verdict on one game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// The game.
    pub game: GameId,
    /// Its variant.
    pub variant: String,
    /// The standing.
    pub status: Status,
    /// The result after faults are weighed.
    pub outcome: Option<Outcome>,
    /// The result on the board (endings only), before faults are weighed.
    pub board: Option<Outcome>,
    /// The proposal was declined: there was no game.
    pub declined: bool,
    /// The proposer withdrew the proposal (version 2): there was no game.
    pub withdrawn: bool,
    /// Every proven fault, sorted.
    pub faults: Vec<Fault>,
    /// Every claim, open or not.
    pub claims: Vec<ClaimView>,
    /// Every seat closed after seeing the others close, and nothing is missing.
    pub complete: bool,
    /// Nothing in the reveals still missing could change the result.
    pub verified: bool,
    /// Seats that have not opened every commitment although the game is over.
    pub missing_reveals: Vec<Seat>,
    /// Envelopes processed.
    pub envelopes: u64,
    /// Things ignored without blame.
    pub notes: Vec<String>,
    /// Whether anything still to be signed could change the result (spec §10.5). Not in
    /// the verdict's JSON, whose keys the vectors fix: `sealed verify` says it beside.
    #[serde(skip, default = "Finality::unknown")]
    pub finality: Finality,
}

/// Whether the result can still change (spec/PROTOCOL.md §10.5): could an envelope that
/// is not in the file, signed by any seat now or later, change it to its signer's gain
/// or to another seat's loss?
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Finality {
    /// No: there was no game (declined, withdrawn), or every seat that had to close did
    /// so after seeing the others close, with no loss on time in the result. An envelope
    /// past a seat's close is a fault of that seat's, never a gain of its own.
    Final,
    /// As [`Finality::Final`], but the result holds a loss on time: it gives way only if
    /// the witness is shown to have contradicted itself (§17.5), by statements of its
    /// own that this file need not hold.
    UnlessWitness,
    /// Yes: the status is unconfirmed, or the file is not complete. What is missing may
    /// still come, and a verifier cannot tell what it would say.
    Open,
}

impl Finality {
    /// What a verdict read back from its JSON says of its finality, which the JSON does
    /// not hold: open, the one that claims nothing.
    fn unknown() -> Finality {
        Finality::Open
    }
}

impl Verdict {
    /// The exit code `sealed verify` uses: 1 proven fault, 3 unconfirmed, 0 verified
    /// (2, unreadable input, is decided before there is a verdict).
    pub fn exit_code(&self) -> i32 {
        match self.status {
            Status::ProvenFault => 1,
            Status::Unconfirmed => 3,
            Status::Verified => 0,
        }
    }
}

/// Computes the verdict on everything the engine has processed.
pub fn verdict<R: Rules>(engine: &Engine<R>) -> Verdict {
    let terms = engine.terms();
    let players = terms.players();
    let (faults, audit) = engine.faults_and_audit();
    let declined = engine.declined();
    let withdrawn = engine.withdrawn();
    // Declined or withdrawn: there was no game, and nothing is owed.
    let called_off = engine.called_off();
    let over = engine.is_over();
    // A period the audit proves passed without a move in witness time (Secret
    // Stallmate, §17.8) is a loss on time, whatever the referee's close called it.
    let audited_late = audit.out_of_time;
    let board = match &audited_late {
        Some(late) => Some(engine.rules().on_time(players, late.seat)),
        None => engine.board_outcome(),
    };
    let faulty: BTreeSet<Seat> = faults.iter().map(|f| f.seat).collect();
    // A player lost on time (version 2) counts as at fault beside a proven fault: the
    // seed's "a cheat and a loss on time make a draw" (spec/PROTOCOL.md §17). Alone, the
    // ending already says he lost.
    // When the witness is proven to have lied, no time result stands (§17).
    let lied = engine.witness_lied();
    let mut on_time: Vec<Seat> = if lied.is_some() {
        vec![]
    } else {
        engine.forfeits().iter().map(|f| f.1).collect()
    };
    on_time.extend(audited_late.as_ref().map(|l| l.seat));
    let judged = |set: &BTreeSet<Seat>| -> Vec<Seat> {
        let mut all = set.clone();
        if !all.is_empty() {
            all.extend(on_time.iter().copied());
        }
        all.into_iter().collect()
    };
    let faulty_v = judged(&faulty);
    let outcome = engine
        .rules()
        .adjudicate(players, board.as_ref(), &faulty_v);

    let mut claims = explicit_claims(engine, &on_time);
    let mut suspects: BTreeSet<Seat> = BTreeSet::new();
    if let Some(c) = &lied {
        for (_, against, _) in engine.forfeits() {
            claims.push(ClaimView {
                by: None,
                against: *against,
                about: ClaimAbout::WitnessLied,
                evidence: format!("no time result stands: the witness contradicted itself ({c})"),
                open: true,
            });
        }
    }
    let mut missing_reveals = vec![];
    // The claims the verifier derives are each recorded once; a set, not a search of
    // the list, so that a transcript of many envelopes nothing can judge (an opponent
    // who signs past a gap without end) costs time in proportion to them, not to
    // their square.
    let mut unique = Unique(claims.iter().cloned().collect());

    for at in engine.stuck() {
        let missing = first_missing(engine, at);
        // An envelope of a player lost on time that nothing can process was not held by
        // the witness with its past before the deadline: it answered nothing, and what
        // it acknowledges accuses nobody (§17, dangling acknowledgements).
        let answers = !on_time.contains(&at.chain.seat);
        if answers {
            suspects.insert(missing.chain.seat);
        }
        unique.push(
            &mut claims,
            ClaimView {
                by: None,
                against: missing.chain.seat,
                about: ClaimAbout::MissingEnvelopes,
                evidence: format!("{at} cannot be judged: {missing} is not in the transcript"),
                open: answers,
            },
        );
    }

    if !called_off {
        for gap in audit.gaps {
            suspects.insert(gap.against);
            unique.push(
                &mut claims,
                ClaimView {
                    by: None,
                    against: gap.against,
                    about: ClaimAbout::Unaudited,
                    evidence: gap.what,
                    open: true,
                },
            );
        }
        if let Some(state) = engine.state() {
            for open in engine.rules().open_claims(state) {
                unique.push(
                    &mut claims,
                    ClaimView {
                        by: None,
                        against: open.against,
                        about: ClaimAbout::Disputed,
                        evidence: open.what,
                        open: true,
                    },
                );
            }
        }
        if over {
            // A player proven out of time (version 2) has lost; what it withholds after
            // that is recorded but blocks nobody's result (spec/PROTOCOL.md §17).
            let blocks = |seat: Seat| !on_time.contains(&seat);
            for seat in terms.seats() {
                let unopened = engine.unopened_count(seat);
                if unopened > 0 {
                    missing_reveals.push(seat);
                    suspects.insert(seat);
                    claims.push(ClaimView {
                        by: None,
                        against: seat,
                        about: ClaimAbout::WithheldReveal,
                        evidence: format!("{unopened} commitments never opened"),
                        open: blocks(seat),
                    });
                }
            }
            for seat in terms.seats().filter(|s| engine.has_joined(*s)) {
                let evidence = if !engine.has_closed(seat) {
                    "no close"
                } else if engine.close_due_but(seat, &on_time) {
                    "its last close does not acknowledge every other seat's close (second step missing)"
                } else {
                    continue;
                };
                claims.push(ClaimView {
                    by: None,
                    against: seat,
                    about: ClaimAbout::WithheldClose,
                    evidence: evidence.into(),
                    open: blocks(seat),
                });
            }
        } else {
            for (against, what) in awaited(engine) {
                claims.push(ClaimView {
                    by: None,
                    against,
                    about: ClaimAbout::Unfinished,
                    evidence: what.describe(against),
                    open: true,
                });
            }
        }
    }

    let verified = outcome.as_ref().is_some_and(|o| {
        suspects.iter().all(|s| {
            let mut with = faulty.clone();
            with.insert(*s);
            let more = judged(&with);
            engine
                .rules()
                .adjudicate(players, board.as_ref(), &more)
                .is_some_and(|h| h.same_results(o))
        })
    });
    let unjudged = engine
        .stuck()
        .iter()
        .any(|at| !on_time.contains(&at.chain.seat));
    let complete = called_off || (over && !unjudged && closed_both_ways(engine, &on_time));
    let open_claims = claims.iter().any(|c| c.open);
    let status = if !faults.is_empty() {
        Status::ProvenFault
    } else if called_off || (complete && verified && !open_claims) {
        Status::Verified
    } else {
        Status::Unconfirmed
    };
    let finality = if called_off {
        Finality::Final
    } else if !complete || status == Status::Unconfirmed {
        Finality::Open
    } else if on_time.is_empty() {
        Finality::Final
    } else {
        Finality::UnlessWitness
    };
    Verdict {
        game: terms.game(),
        variant: terms.variant().to_owned(),
        status,
        finality,
        outcome,
        board,
        declined,
        withdrawn,
        faults,
        claims,
        complete,
        verified,
        missing_reveals,
        envelopes: engine.processed_total(),
        // Sorted: the engine notes in the order it judged, which differs between seats
        // for envelopes that did not see each other; the verdict must not.
        notes: {
            let mut notes: Vec<String> = engine
                .notes()
                .iter()
                .map(|n| format!("{}: {}", n.at, n.text))
                .collect();
            notes.sort();
            notes.dedup();
            notes
        },
    }
}

/// The claims recorded so far, to record each derived one once.
struct Unique(std::collections::HashSet<ClaimView>);

impl Unique {
    /// Records `c` unless it is recorded already.
    fn push(&mut self, claims: &mut Vec<ClaimView>, c: ClaimView) {
        if self.0.insert(c.clone()) {
            claims.push(c);
        }
    }
}

/// Claims made in the transcript, open unless the claimant later went on after
/// receiving more from the accused.
fn explicit_claims<R: Rules>(engine: &Engine<R>, lost_on_time: &[Seat]) -> Vec<ClaimView> {
    // A player proven out of time has lost: a timeout or abandonment claimed against
    // it is settled, and one it claimed is moot (the witness proved it was the one who
    // owed the step).
    engine
        .claims()
        .iter()
        .map(|c| {
            let mine = ChainId::public(c.by);
            let later = engine.processed(mine).checked_sub(1).and_then(|last| {
                engine
                    .store()
                    .clock_of(crate::ids::EnvRef {
                        chain: mine,
                        seq: last,
                    })
                    .map(|clk| engine.store().seen_count(clk, ChainId::public(c.against)))
            });
            let answered = later.is_some_and(|n| n > c.seen_of_accused);
            ClaimView {
                by: Some(c.by),
                against: c.against,
                about: match c.kind {
                    ClaimKind::Timeout => ClaimAbout::Timeout,
                    ClaimKind::Abandoned => ClaimAbout::Abandoned,
                },
                evidence: format!(
                    "claimed at {} (claimant's clock {} ms), having seen {} envelopes of {}",
                    c.at, c.clock, c.seen_of_accused, c.against
                ),
                open: !answered
                    && !lost_on_time.contains(&c.against)
                    && !lost_on_time.contains(&c.by),
            }
        })
        .collect()
}

/// One step an unfinished game waits for (spec/PROTOCOL.md §10.2, unfinished claims), as
/// data: the verdict words it in the spec's terms, a player's view in its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Awaited {
    /// The seat has not accepted the proposal.
    Acceptance,
    /// The player has not revealed its coin seed.
    CoinSeed,
    /// The dealer owes `due` slots of `owner`'s deck `deck`.
    Deal {
        /// How many.
        due: u32,
        /// Whose deck.
        owner: Seat,
        /// Its name.
        deck: String,
    },
    /// The contributor owes the value of draw `draw` (from 1) of `owner`'s pool `pool`.
    DrawValue {
        /// Which draw.
        draw: usize,
        /// Whose pool.
        owner: Seat,
        /// Its name.
        pool: String,
    },
    /// The seat is to act.
    Act,
}

impl Awaited {
    /// The step in the spec's words, `seat` being the one that owes it.
    pub fn describe(&self, seat: Seat) -> String {
        match self {
            Awaited::Acceptance => format!("{seat} has not accepted"),
            Awaited::CoinSeed => format!("{seat} has not revealed its coin seed"),
            Awaited::Deal { due, owner, deck } => format!(
                "{seat} owes {due} slot{} of {owner}'s {deck}",
                if *due == 1 { "" } else { "s" },
            ),
            Awaited::DrawValue { draw, owner, pool } => {
                format!("{seat} owes the value of draw {draw} from {owner}'s {pool}")
            }
            Awaited::Act => format!("{seat} is to act"),
        }
    }
}

/// What an unfinished game waits for, and from whom: acceptances first (nothing else is
/// owed before them), then coin seeds, deals, draw values, and the seat to act.
pub fn awaited<R: Rules>(engine: &Engine<R>) -> Vec<(Seat, Awaited)> {
    let terms = engine.terms();
    let mut out: Vec<(Seat, Awaited)> = terms
        .seats()
        .filter(|s| !engine.has_joined(*s))
        .map(|s| (s, Awaited::Acceptance))
        .collect();
    if !out.is_empty() {
        return out;
    }
    for p in terms.player_seats() {
        if !engine.coin_revealed(p) {
            out.push((p, Awaited::CoinSeed));
        }
    }
    for d in engine.decks() {
        let due = engine.deal_due(d.owner, &d.name);
        if due > 0 {
            out.push((
                d.dealer,
                Awaited::Deal {
                    due,
                    owner: d.owner,
                    deck: d.name.to_string(),
                },
            ));
        }
    }
    for p in engine.pools() {
        if let Some((declared, contributed, _)) = engine.pool_counts(p.owner, &p.name)
            && declared > contributed
        {
            out.push((
                p.contributor,
                Awaited::DrawValue {
                    draw: contributed + 1,
                    owner: p.owner,
                    pool: p.name.to_string(),
                },
            ));
        }
    }
    if let Some(s) = engine.to_act() {
        out.push((s, Awaited::Act));
    }
    out
}

/// Every seat that joined has closed, and each one's last close saw every other
/// seat's first close: so each seat held the others' complete chains.
fn closed_both_ways<R: Rules>(engine: &Engine<R>, lost_on_time: &[Seat]) -> bool {
    let terms = engine.terms();
    // A player that lost on time need not close, nor be waited for (§17).
    let joined: Vec<Seat> = terms
        .seats()
        .filter(|s| engine.has_joined(*s) && !lost_on_time.contains(s))
        .collect();
    if terms
        .player_seats()
        .any(|p| !joined.contains(&p) && !lost_on_time.contains(&p))
    {
        return false;
    }
    joined.iter().all(|s| {
        let Some(t) = engine.seat_track(*s) else {
            return false;
        };
        let Some(last) = t.last_close else {
            return false;
        };
        let Some(clock) = engine.store().clock_of(last) else {
            return false;
        };
        joined.iter().filter(|o| *o != s).all(|o| {
            engine
                .seat_track(*o)
                .and_then(|t| t.close)
                .is_some_and(|c| engine.store().seen(clock, c))
        })
    })
}

/// The first thing a stuck envelope waits for.
fn first_missing<R: Rules>(engine: &Engine<R>, at: crate::ids::EnvRef) -> crate::ids::EnvRef {
    let processed = engine.processed(at.chain);
    if at.seq > processed {
        return crate::ids::EnvRef {
            chain: at.chain,
            seq: processed,
        };
    }
    let (chains, _) = engine.stored();
    let Some(env) = chains.into_iter().find(|e| e.at() == at) else {
        return at;
    };
    for ack in &env.unsigned().acks {
        let have = engine.envelope(ack.target()).map(|e| e.hash);
        if have != Some(ack.hash) {
            return ack.target();
        }
    }
    if engine.dangling().contains(&at) {
        at
    } else {
        crate::ids::EnvRef {
            chain: at.chain,
            seq: processed,
        }
    }
}
