//! Whether a move costs the same at ply 20,000 as at ply 1,000 (issue 34, "flat").
//!
//! Two Tempête seats (version 2, seeded random bots, `ply-limit` raised) play in
//! lock-step, with no network and no store: what is timed is the protocol and the rules
//! alone — the mover's session signing its act (and checking it against its engine
//! first), and the other seat's session taking it. Every envelope is also handed, in the
//! order it was delivered, to a bare verifier engine whose rules are wrapped to time
//! `Rules::apply`: the rules' share. The bench prints, per window of plies, the median
//! cost of a ply for the two sessions and for the verifier, the rules' share of the
//! verifier's, and the process's memory per ply held; then the ratio of the late window
//! to the early one (goal: at most 1.1).
//!
//! `cargo bench -p sealed-conformance --bench long_game` runs to ply 21,000; set
//! `SEALED_LONG_PLIES` for another length (CI runs it with 2,400 through `cargo test
//! --benches`, which only checks that it runs).

use std::cell::Cell;
use std::time::Instant;

use sealed_conformance::show_kit::{tempete_bots, tempete_terms_v2};
use sealed_games::tempete::Tempete;
use sealed_protocol::engine::Engine;
use sealed_protocol::hash::Hash;
use sealed_protocol::hidden::{Audit, Revealed};
use sealed_protocol::ids::{LogId, Seat};
use sealed_protocol::outcome::Outcome;
use sealed_protocol::proposal::Terms;
use sealed_protocol::rules::{
    ActCtx, Applied, DeckSpec, OptionError, Owe, PoolSpec, Rules, SetupSpec, Violation,
};

use sealed_conformance::pair::Pair;

thread_local! {
    /// Nanoseconds spent in `Rules::apply` of the timed verifier.
    static IN_RULES: Cell<u128> = const { Cell::new(0) };
}

/// Tempête with `apply` timed: the verifier's rules.
#[derive(Clone)]
struct Timed(Tempete);

impl Rules for Timed {
    type State = <Tempete as Rules>::State;
    type Act = <Tempete as Rules>::Act;

    fn from_terms(terms: &Terms) -> Result<Self, OptionError> {
        Tempete::from_terms(terms).map(Timed)
    }
    fn decks(&self) -> Vec<DeckSpec> {
        self.0.decks()
    }
    fn setups(&self) -> Vec<SetupSpec> {
        self.0.setups()
    }
    fn pools(&self) -> Vec<PoolSpec> {
        self.0.pools()
    }
    fn opening_deals(&self) -> Vec<Owe> {
        self.0.opening_deals()
    }
    fn start(&self, coin: &Hash) -> Self::State {
        self.0.start(coin)
    }
    fn decode_act(&self, bytes: &[u8]) -> Result<Self::Act, Violation> {
        self.0.decode_act(bytes)
    }
    fn to_act(&self, state: &Self::State) -> Option<Seat> {
        self.0.to_act(state)
    }
    fn apply(
        &self,
        state: &Self::State,
        seat: Seat,
        act: &Self::Act,
        ctx: &ActCtx<'_>,
    ) -> Result<Applied<Self::State>, Violation> {
        let t = Instant::now();
        let r = self.0.apply(state, seat, act, ctx);
        IN_RULES.with(|c| c.set(c.get() + t.elapsed().as_nanos()));
        r
    }
    fn audience(&self, log: LogId) -> Option<Vec<Seat>> {
        self.0.audience(log)
    }
    fn audit(&self, revealed: &Revealed<'_>) -> Audit {
        self.0.audit(revealed)
    }
    fn open_claims(&self, state: &Self::State) -> Vec<sealed_protocol::hidden::Gap> {
        self.0.open_claims(state)
    }
    fn combine(&self, players: u8, endings: &[Outcome]) -> Outcome {
        self.0.combine(players, endings)
    }
    fn on_time(&self, players: u8, late: Seat) -> Outcome {
        self.0.on_time(players, late)
    }
}

/// One ply's costs, in nanoseconds.
#[derive(Clone, Copy, Default)]
struct Cost {
    sessions: u128,
    verifier: u128,
    rules: u128,
}

fn rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}

fn median(mut v: Vec<u128>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_unstable();
    v[v.len() / 2] as f64 / 1000.0
}

fn main() {
    // `cargo test --benches` passes `--bench`-less flags; a short game then.
    let testing = std::env::args().any(|a| a == "--test" || a == "--list")
        || !std::env::args().any(|a| a == "--bench");
    let plies: u32 = std::env::var("SEALED_LONG_PLIES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if testing { 2_400 } else { 21_000 });
    let limit = (plies + 10).to_string();
    let terms = tempete_terms_v2(&[("ply-limit", limit.as_str())], 1);
    let mut pair = Pair::<Tempete>::new(terms.clone(), 7);
    let mut verifier = Engine::<Timed>::new(terms).expect("terms");
    let mut bots = tempete_bots();
    // Per ply (by the first seat's main line), the costs of the rounds that made it.
    let mut costs: Vec<Cost> = vec![Cost::default(); plies as usize + 2];
    let mut rss_at: Vec<(u32, u64)> = vec![];
    let started = Instant::now();
    let mut rounds = 0u64;
    loop {
        let ply = pair.sessions[0].engine().main_line().len();
        if ply as u32 >= plies || pair.sessions[0].engine().is_over() {
            break;
        }
        if [1000, 2000, plies / 2, plies - 1].contains(&(ply as u32))
            && rss_at.last().is_none_or(|r| r.0 != ply as u32)
        {
            rss_at.push((ply as u32, rss_bytes()));
        }
        rounds += 1;
        assert!(
            rounds < 20 * u64::from(plies) + 1000,
            "the game stalled at ply {ply}"
        );
        pair.now += 1;
        let now = pair.now;
        let t = Instant::now();
        let mut moved = false;
        for (i, bot) in bots.iter_mut().enumerate() {
            let s = &mut pair.sessions[i];
            if let Some(cmd) = bot(s) {
                s.handle_command(cmd.clone(), now)
                    .unwrap_or_else(|e| panic!("seat {i} {cmd:?}: {e}"));
                moved = true;
            }
        }
        pair.collect();
        let mut delivered = vec![];
        while !pair.pending.is_empty() {
            delivered.extend(pair.pending.iter().map(|(_, b)| b.clone()));
            pair.deliver();
            moved = true;
        }
        let sessions = t.elapsed().as_nanos();
        let before = IN_RULES.with(Cell::get);
        let t = Instant::now();
        for b in &delivered {
            verifier
                .insert(b)
                .expect("the verifier takes what the seats sent");
        }
        let verifier_ns = t.elapsed().as_nanos();
        let rules = IN_RULES.with(Cell::get) - before;
        let last = costs.len() - 1;
        let c = &mut costs[ply.min(last)];
        c.sessions += sessions;
        c.verifier += verifier_ns;
        c.rules += rules;
        if !moved {
            // Nothing to decide: a bot with no pick would stall the game.
            break;
        }
    }
    let reached = pair.sessions[0].engine().main_line().len() as u32;
    println!(
        "long game: Tempête (version 2, seeded bots), {reached} plies in {:.1} s, {rounds} rounds, {} envelopes processed",
        started.elapsed().as_secs_f64(),
        verifier.processed_total()
    );
    assert_eq!(
        verifier.main_line().len(),
        reached as usize,
        "the verifier replayed every ply"
    );
    let window = |from: u32, to: u32| {
        let range = &costs[from.min(reached) as usize..to.min(reached) as usize];
        (
            median(range.iter().map(|c| c.sessions).collect()),
            median(range.iter().map(|c| c.verifier).collect()),
            median(range.iter().map(|c| c.rules).collect()),
        )
    };
    let early = (100, 2_100.min(reached / 2));
    let late = (reached.saturating_sub(2_000), reached);
    println!("| plies | sessions µs/ply | verifier µs/ply | of which rules µs/ply |");
    println!("|---|---|---|---|");
    let step = (reached / 10).max(1);
    let mut from = 0;
    while from < reached {
        let (s, v, r) = window(from, from + step);
        println!("| {from}–{} | {s:.1} | {v:.1} | {r:.1} |", from + step);
        from += step;
    }
    let (s0, v0, r0) = window(early.0, early.1);
    let (s1, v1, r1) = window(late.0, late.1);
    println!(
        "plies {}–{} against {}–{}: sessions {:.2}×, verifier {:.2}×, rules {:.2}× (goal ≤ 1.1×)",
        late.0,
        late.1,
        early.0,
        early.1,
        s1 / s0,
        v1 / v0,
        r1 / r0
    );
    for w in rss_at.windows(2) {
        let (p0, m0) = w[0];
        let (p1, m1) = w[1];
        if p1 > p0 {
            println!(
                "memory from ply {p0} to {p1}: {:.0} bytes per ply held (process RSS {:.1} → {:.1} MiB)",
                (m1 as f64 - m0 as f64) / f64::from(p1 - p0),
                m0 as f64 / 1048576.0,
                m1 as f64 / 1048576.0
            );
        }
    }
}
