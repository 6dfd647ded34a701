//! The audit of a game without a referee (spec/GAMES.md §5.15): both setups revealed —
//! each army and each engine seed — every attempt is opened from its commitment, every
//! message of the computations is made again from the seeds, back ranks and attempts and
//! its hash compared with the one its sender signed, and every `Done` is held against
//! what its computation, made again, told White. (The computation is the rules: its
//! repetition compares fingerprints, spec/GAMES.md §5.13.6, so on a collision it ends a
//! game the rules in the clear would not, and then White's honest `Done` says what the
//! computation told. The differential test holds the computation to the rules.)
//!
//! The first false act in the order of the computations is the finding, against its
//! signer: a commitment that opens to no attempt (before its computation), a message
//! hash that is not the honest message's (at that message; every message before it was
//! honest, so what the other side sent after it is never blamed), a `Done` that says
//! another move, capture or ending than its computation told (after the computation's
//! last message), a deposit of a lacked message that is not that message sealed to its
//! receiver (after the message). From there on the game is not the one the protocol
//! made, and nothing later is judged.

use sealed_mpc::play::Party;
use sealed_mpc::play::audit::{Finding as MpcFinding, Opened, audit_told};
use sealed_mpc::play::game::PlayError;
use sealed_mpc::play::record;
use sealed_protocol::deposit::seal;
use sealed_protocol::hidden::{Audit, Finding, Gap, Revealed};

use super::clear::{self, Open, Unopened};
use super::item::{mpc_options, rank};
use super::player::claims;
use super::posted::Posted;
use super::{BASE_MESSAGES, COMPUTATION_MESSAGES, Duo, engine_name};
use crate::chess::Color;
use crate::stallmate::peer::{seat, setup_name};

/// Where in the order of the computations a finding falls: a message at its place, a
/// `Done`'s claims just after its computation's last message, a message's deposit after
/// both, a commitment just before its computation's first message.
fn at_message(m: u64) -> u64 {
    4 * m
}
fn after_run(run: u64) -> u64 {
    at_message(BASE_MESSAGES + COMPUTATION_MESSAGES * run + COMPUTATION_MESSAGES - 1) + 1
}
fn deposit_of(m: u64) -> u64 {
    at_message(m) + 2
}
fn before_run(run: u64) -> u64 {
    at_message(BASE_MESSAGES + COMPUTATION_MESSAGES * run) - 1
}

/// Audits a revealed game. A verdict is asked for at every look at a finished game
/// (each `show` of a node's board), and making every message again takes seconds: the
/// audit is a function of the rules, the game, the setups and the public acts alone, so
/// its result is kept for the process under a hash of them ([`remembered`]).
pub fn audit(rules: &Duo, r: &Revealed<'_>) -> Audit {
    kept(rules, r).0
}

/// The attempts the commitments open to, in order, as the audit opened them (kept with
/// it: opening one tries up to 65,536 items).
pub fn attempts(rules: &Duo, r: &Revealed<'_>) -> Vec<u16> {
    kept(rules, r).1
}

/// The audit and the attempts of a revealed game, made once.
fn kept(rules: &Duo, r: &Revealed<'_>) -> (Audit, Vec<u16>) {
    remembered(key(rules, r), || audit_all(rules, r))
}

/// How many audits are kept: the games a node has over at once, and a verifier's one.
const KEPT: usize = 64;

/// Audits kept, each under its key with its attempts, oldest first.
type Kept = std::sync::Mutex<std::collections::VecDeque<([u8; 32], (Audit, Vec<u16>))>>;

/// The audit under `key`, made by `make` if not kept; the oldest goes past [`KEPT`].
fn remembered(key: [u8; 32], make: impl FnOnce() -> (Audit, Vec<u16>)) -> (Audit, Vec<u16>) {
    use std::sync::{OnceLock, PoisonError};
    static KEPT_AUDITS: OnceLock<Kept> = OnceLock::new();
    let kept = KEPT_AUDITS.get_or_init(Kept::default);
    let found = kept
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, a)| a.clone());
    if let Some(a) = found {
        return a;
    }
    // Made outside the lock: two games' audits do not wait for each other here.
    let a = make();
    let mut k = kept.lock().unwrap_or_else(PoisonError::into_inner);
    if k.len() >= KEPT {
        k.pop_front();
    }
    k.push_back((key, a.clone()));
    a
}

/// Everything the audit reads, hashed: the rules' options, the game, the setups opened
/// and every public act with its signer and place.
fn key(rules: &Duo, r: &Revealed<'_>) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"sealed/duo-audit-key");
    h.update(sealed_protocol::wire::encode(&rules.options));
    h.update(r.game.0.0);
    for c in [Color::White, Color::Black] {
        for name in [setup_name(), engine_name()] {
            match r.setup(seat(c), name.as_str()) {
                Some(v) => {
                    h.update([1]);
                    h.update(v.0);
                }
                None => h.update([0]),
            }
        }
    }
    for p in &r.public {
        h.update(sealed_protocol::wire::encode(&(p.seat, p.at)));
        h.update((p.bytes.len() as u64).to_le_bytes());
        h.update(&p.bytes);
    }
    h.finalize().into()
}

fn audit_all(rules: &Duo, r: &Revealed<'_>) -> (Audit, Vec<u16>) {
    let mut out = Audit::default();
    let Some(open) = Open::of(r) else {
        return (out, vec![]);
    };
    let game = r.game.0.0;
    let acts = Posted::of_revealed(r);
    let mut found: Vec<(u64, Finding)> = vec![];

    // The attempts, each from its commitment and its mover's seed.
    let (attempts, unopened) = clear::attempts(&open, &game, &acts);
    if let Some(Unopened { run, mover, at }) = unopened {
        found.push((
            before_run(run),
            Finding {
                seat: seat(mover),
                at,
                detail: format!(
                    "the commitment to the attempt of computation {run} opens to no attempt \
                     under his revealed seed"
                ),
            },
        ));
    }

    // Every message, made again and hashed.
    let opened = Opened {
        white: (open.seeds[0], rank(open.setups[0])),
        black: (open.seeds[1], rank(open.setups[1])),
        options: mpc_options(&rules.options),
        attempts: attempts.clone(),
    };
    let hashes: Vec<[u8; 32]> = acts.steps.iter().map(|s| s.0).collect();
    // A message left with the witness must be the message, sealed to its receiver: the
    // deposit is one fixed string of the message's bytes (PROTOCOL §17.10).
    let mut false_deposit = None;
    let replayed = super::circuits()
        .map_err(|e| PlayError::Files(e.0))
        .and_then(|circuits| {
            audit_told(&opened, circuits, hashes.len(), |at, want| {
                let same = record::step_hash(&game, at as u64, &want.bytes) == hashes[at];
                for &(i, d, env) in acts.deposits.iter().filter(|d| d.0 == at as u64) {
                    let to = &rules.keys[(!super::sender(i)).idx()];
                    if same && false_deposit.is_none() && seal(r.game, &want.bytes, to).hash.0 != d
                    {
                        false_deposit = Some((i, env));
                    }
                }
                same
            })
        });
    if let Some((i, at)) = false_deposit {
        found.push((
            deposit_of(i),
            Finding {
                seat: seat(super::sender(i)),
                at,
                detail: format!(
                    "left with the witness, for message {i} of the computations that the \
                     other player lacked, a deposit that is not that message sealed to him"
                ),
            },
        ));
    }
    let told = match &replayed {
        Ok((_, told)) => told.as_slice(),
        Err(_) => &[],
    };
    match &replayed {
        Ok((MpcFinding::Deviated { by, at }, _)) => {
            let (by, at) = (*by, *at);
            let who = match by {
                Party::Garbler => Color::White,
                Party::Evaluator => Color::Black,
            };
            found.push((
                at_message(at as u64),
                Finding {
                    seat: seat(who),
                    at: acts.steps[at].1,
                    detail: format!(
                        "signed the hash of message {at} of the computations, which is not \
                         the message the protocol makes from the revealed seeds and inputs"
                    ),
                },
            ));
        }
        // Fewer messages than the openings call for: the game stopped, and the time
        // rules name who owed the next one. More than they explain: a commitment did not
        // open, found above.
        Ok(_) => {}
        // The honest replay of revealed seeds and valid back ranks cannot fail but by a
        // fault of this verifier (circuit files of its build that do not read): the game
        // stays unaudited, a gap named against the garbler only because a gap names
        // someone.
        Err(e) => out.gaps.push(Gap {
            against: seat(Color::White),
            what: format!(
                "the computations could not be made again by this verifier ({e:?}): the game \
                 is not audited"
            ),
        }),
    }

    // Every `Done` against what its computation told White.
    for (run, done, at) in &acts.dones {
        let Some((made, capture, ending)) = usize::try_from(*run)
            .ok()
            .and_then(|r| told.get(r))
            .map(claims)
        else {
            break;
        };
        if (done.made, done.capture, done.ending) != (made, capture, ending) {
            found.push((
                after_run(*run),
                Finding {
                    seat: seat(Color::White),
                    at: *at,
                    detail: format!(
                        "computation {run} told: move made {made}, capture {capture}, ending \
                         {ending:?}; his Done says {}, {}, {:?}",
                        done.made, done.capture, done.ending
                    ),
                },
            ));
            break;
        }
    }

    match found.into_iter().min_by_key(|f| f.0) {
        Some((_, first)) => out.findings.push(first),
        // A halt with nothing false before it stopped an honest game.
        None => {
            if let Some((by, at)) = acts.halt {
                out.findings.push(Finding {
                    seat: seat(by),
                    at,
                    detail: "halted the game, but every message and claim before the halt \
                             is the one the protocol makes"
                        .into(),
                });
            }
        }
    }
    (out, attempts)
}
