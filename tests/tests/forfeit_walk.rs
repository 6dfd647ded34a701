//! What each envelope changed (spec/PROTOCOL.md §17.6), which a time forfeit reads to
//! start the wait and to charge the accused's earlier waits (§17.7), is computed by one
//! replay per chain that grows along it (protocol/src/engine/walk.rs). The rule as
//! written replays each envelope's own causal past, once per envelope: the reference
//! (`Engine::reference_effects_by_replay`). Both must give the same verdict — outcome,
//! faults, the forfeit's times (its deadline is since plus the allowance, so what was
//! charged) — the same steps, and the same wait for a clock, on every vector and on
//! random forfeits.
//!
//! A random forfeit: a Duel of random size and time control, played with random
//! deafness (so that envelopes cross unseen, and causal pasts are not prefixes of one
//! order), Black silent from a random round, and White's forfeit posted with random
//! witness ledgers (random times, random ranges of receipts, sometimes fewer envelopes
//! held) and a view at a random delay — posted by White's honest session when it
//! stands, forged otherwise so that false forfeits are judged too. `SEALED_FORFEITS`
//! sets how many (300 by default; docs/RELIABILITY.md gives the 10,000 run).

use std::collections::BTreeSet;

use sealed_conformance::forfeit_kit::{HOUR, game, known, pair, proposal_for, signed, witness};
use sealed_conformance::pair::{Pace, Pair};
use sealed_conformance::scenarios::{A, B, honest_pair};
use sealed_games::duel::Duel;
use sealed_protocol::body::{Forfeit, Item};
use sealed_protocol::engine::Engine;
use sealed_protocol::envelope::Signed;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, EnvRef, Seat};
use sealed_protocol::proposal::Terms;
use sealed_protocol::rules::Rules;
use sealed_protocol::session::Command;
use sealed_protocol::transcript::TranscriptFile;
use sealed_protocol::verdict::verdict;
use sealed_protocol::witness::{Held, Ledger, Statement};

const MINUTE: u64 = 60_000;

fn count() -> u64 {
    std::env::var("SEALED_FORFEITS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}

/// SplitMix64: a small deterministic generator, so a failing case is named by its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Engines of both computations over the same envelopes, inserted in the order a
/// transcript check takes them.
fn both<R: Rules>(terms: &Terms, envelopes: &[Signed]) -> (Engine<R>, Engine<R>) {
    let mut fast: Engine<R> = Engine::new(terms.clone()).expect("terms");
    let mut slow: Engine<R> = Engine::new(terms.clone()).expect("terms");
    fast.unbounded_ahead();
    slow.unbounded_ahead();
    slow.reference_effects_by_replay();
    let mut sorted: Vec<&Signed> = envelopes.iter().collect();
    sorted.sort_by_key(|s| s.unsigned().seq);
    for s in sorted {
        let _ = fast.insert_signed(s.clone());
        let _ = slow.insert_signed(s.clone());
    }
    (fast, slow)
}

/// Asserts the two computations agree on `envelopes`: verdict, faults, forfeits, every
/// processed envelope's being a step (asked from each chain's end, as `starts` asks),
/// and each seat's wait by `statements`. Returns whether a forfeit stood.
fn agree<R: Rules>(
    terms: &Terms,
    envelopes: &[Signed],
    statements: &[Vec<u8>],
    case: &str,
) -> bool {
    let (fast, slow) = both::<R>(terms, envelopes);
    assert_eq!(verdict(&fast), verdict(&slow), "{case}: verdict");
    assert_eq!(fast.all_faults(), slow.all_faults(), "{case}: faults");
    assert_eq!(fast.forfeits(), slow.forfeits(), "{case}: forfeits");
    let chains: BTreeSet<ChainId> = envelopes.iter().map(|s| s.at().chain).collect();
    for chain in chains {
        for seq in (0..fast.processed(chain)).rev() {
            let at = EnvRef { chain, seq };
            assert_eq!(fast.is_step(at), slow.is_step(at), "{case}: step {at:?}");
        }
    }
    for seat in terms.seats() {
        assert_eq!(
            fast.witness_wait(statements, seat),
            slow.witness_wait(statements, seat),
            "{case}: the wait of {seat}"
        );
    }
    !fast.forfeits().is_empty()
}

/// Plays until Black is to act in round `stall` (in Black's view), seats deaf at
/// random for a few rounds so that envelopes cross; then everything held is
/// delivered.
fn play(p: &mut Pair<Duel>, rng: &mut Rng, stall: u32) {
    let mut d = honest_pair();
    for _ in 0..20_000 {
        let e = p.sessions[B.index()].engine();
        if e.to_act() == Some(B) && e.state().is_some_and(|s| s.round >= stall) {
            break;
        }
        if rng.chance(15) {
            let seat = Seat(rng.below(2) as u8);
            if p.deaf.contains(&seat) {
                hear(p, seat);
            } else {
                p.deaf.push(seat);
            }
        }
        let moved = p.round(2, |i, s, _| d.get_mut(i).and_then(|f| f(s)), Pace::Once);
        if !moved && p.held.is_empty() {
            break;
        }
        if !moved {
            hear(p, A);
            hear(p, B);
        }
    }
    hear(p, A);
    hear(p, B);
    p.deliver_all();
}

/// `seat` hears again, and gets what it missed.
fn hear(p: &mut Pair<Duel>, seat: Seat) {
    p.deaf.retain(|s| *s != seat);
    let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut p.held)
        .into_iter()
        .partition(|(to, _)| *to == seat);
    p.held = rest;
    for (_, bytes) in mine {
        p.deliver_bytes(seat, &bytes);
    }
}

/// Witness times for every public envelope White holds: a causal order (by the size
/// of the envelope's clock), each a random number of minutes after the one before.
fn times(p: &Pair<Duel>, rng: &mut Rng) -> std::collections::BTreeMap<EnvRef, u64> {
    let e = p.sessions[A.index()].engine();
    let mut order = vec![];
    for h in known(p, A) {
        for seq in 0..h.count {
            let at = EnvRef {
                chain: h.chain,
                seq,
            };
            let size: u64 = e
                .envelope(at)
                .map(|x| x.unsigned().acks.iter().map(|a| a.seq + 1).sum())
                .unwrap_or(0);
            order.push((size + seq, at));
        }
    }
    order.sort();
    let mut t = 0;
    order
        .into_iter()
        .map(|(_, at)| {
            t += match rng.below(4) {
                0 => 0,
                1 => rng.below(5) * MINUTE,
                2 => rng.below(90) * MINUTE,
                _ => rng.below(3 * HOUR),
            };
            (at, t)
        })
        .collect()
}

/// Random ledgers and a view: each ledger holds every chain White holds (or, now and
/// then, fewer of one) and dates a random range of each (most often to its end); the view comes a random delay
/// after the last time.
fn statements(p: &Pair<Duel>, rng: &mut Rng) -> Vec<Statement> {
    let e = p.sessions[A.index()].engine();
    let times = times(p, rng);
    let heads = known(p, A);
    let mut out = vec![];
    for _ in 0..=rng.below(3) {
        let mut at = 0;
        let chains = heads
            .iter()
            .map(|h| {
                let count = if rng.chance(4) {
                    rng.below(h.count + 1)
                } else {
                    h.count
                };
                let head = count
                    .checked_sub(1)
                    .and_then(|q| {
                        e.envelope(EnvRef {
                            chain: h.chain,
                            seq: q,
                        })
                    })
                    .map_or(Hash::ZERO, |x| x.hash);
                let first = rng.below(count + 1);
                let end = if rng.chance(75) {
                    count
                } else {
                    first + rng.below(count - first + 1)
                };
                let dates: Vec<u64> = (first..end)
                    .map(|seq| {
                        times[&EnvRef {
                            chain: h.chain,
                            seq,
                        }]
                    })
                    .collect();
                at = (0..count)
                    .map(|seq| {
                        times[&EnvRef {
                            chain: h.chain,
                            seq,
                        }]
                    })
                    .fold(at, u64::max);
                Held {
                    chain: h.chain,
                    count,
                    head,
                    first,
                    times: dates,
                }
            })
            .collect();
        out.push(Statement::Ledger(Ledger {
            game: game(p),
            at,
            chains,
        }));
    }
    let last = times.values().copied().max().unwrap_or(0);
    let after = match rng.below(4) {
        0 => HOUR - 1 + rng.below(3),
        1 => rng.below(3 * HOUR),
        2 => 2 * HOUR + rng.below(2 * HOUR),
        _ => rng.below(6 * HOUR),
    };
    out.push(sealed_conformance::forfeit_kit::view(
        game(p),
        last + after,
        heads,
    ));
    out
}

/// One random forfeit, built from `seed`; returns whether it stood.
fn random_forfeit(seed: u64) -> bool {
    let mut rng = Rng(seed);
    let cards = [4, 6, 8, 10, 12][rng.below(5) as usize];
    let rules = Duel {
        cards,
        hand: 1 + rng.below(2) as u32,
    };
    let options: &[(&str, &str)] = match rng.below(4) {
        0 => &[("time-per-move", "1h")],
        1 => &[("time-leave", "1h"), ("time-per-move", "1h")],
        2 => &[("time-leave", "2h"), ("time-per-move", "30m")],
        _ => &[("time-moves", "3"), ("time-period", "3h")],
    };
    let mut p = pair(proposal_for(&rules, options));
    let stall = 1 + rng.below(u64::from(cards - 1)) as u32;
    play(&mut p, &mut rng, stall);
    p.silence(B);
    let st = signed(&statements(&p, &mut rng), &witness());
    let forfeit = Forfeit {
        against: B,
        statements: st.clone(),
    };
    let honest = p.sessions[A.index()].handle_command(Command::Forfeit(forfeit.clone()), p.now);
    if honest.is_err() {
        // Posted anyway: its sender's false forfeit, judged by both.
        let env = p.forge(A, vec![Item::Forfeit(forfeit)]);
        p.inject(&env);
    }
    p.deliver_all();
    let e = p.sessions[A.index()].engine();
    let envelopes: Vec<Signed> = e.stored().0.into_iter().cloned().collect();
    let stood = agree::<Duel>(e.terms(), &envelopes, &st, &format!("seed {seed}"));
    assert_eq!(
        stood,
        honest.is_ok(),
        "seed {seed}: White's session and the verdict"
    );
    stood
}

#[test]
fn the_walk_gives_the_rule_s_verdict_on_random_forfeits() {
    let n = count();
    let stood = (0..n).filter(|seed| random_forfeit(*seed)).count() as u64;
    println!("{n} random forfeits: {stood} stood, {} false", n - stood);
    // Both kinds are drawn, so both paths of the rule are compared.
    assert!(stood > 0 && stood < n, "{stood} of {n} stood");
}

/// Every transcript vector, under both computations.
#[test]
fn the_walk_gives_the_rule_s_verdict_on_every_vector() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/vectors");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).expect("spec/vectors") {
        let path = entry.expect("an entry").path();
        if path.extension().is_none_or(|x| x != "sealed") {
            continue;
        }
        let bytes = std::fs::read(&path).expect("readable");
        let file = TranscriptFile::from_bytes(&bytes).expect("a transcript");
        let Ok(terms) = Terms::parse(&file.proposal) else {
            continue; // an earlier draft's file, refused before any replay
        };
        let envelopes: Vec<Signed> = file
            .envelopes
            .iter()
            .filter_map(|b| Signed::parse(&terms, b).ok())
            .collect();
        let case = path.display().to_string();
        match terms.variant() {
            sealed_games::duel::VARIANT => agree::<Duel>(&terms, &envelopes, &[], &case),
            sealed_games::cardmate::VARIANT => {
                agree::<sealed_games::cardmate::Cardmate>(&terms, &envelopes, &[], &case)
            }
            sealed_games::chex::VARIANT => {
                agree::<sealed_games::chex::Chex>(&terms, &envelopes, &[], &case)
            }
            sealed_games::tempete::VARIANT => {
                agree::<sealed_games::tempete::Tempete>(&terms, &envelopes, &[], &case)
            }
            sealed_games::stallmate::VARIANT => {
                agree::<sealed_games::stallmate::peer::Stallmate>(&terms, &envelopes, &[], &case)
            }
            sealed_games::stallmate::duo::VARIANT => {
                agree::<sealed_games::stallmate::duo::Duo>(&terms, &envelopes, &[], &case)
            }
            other => panic!("{case}: variant {other}"),
        };
        checked += 1;
    }
    assert!(checked >= 8, "{checked} vectors");
}
