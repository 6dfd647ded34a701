//! Two workloads timed in alternation, one call each per round, so that drift in the
//! machine's speed (other processes, frequency changes) hits both alike.

use std::time::{Duration, Instant};

/// What [`alternate`] measured.
pub struct Alternated {
    /// Mean time of one call of the first workload.
    pub a: Duration,
    /// Mean time of one call of the second.
    pub b: Duration,
    /// The median of the per-round ratios a / b: a check on noise.
    pub median: f64,
}

impl Alternated {
    /// The ratio of the means.
    pub fn ratio(&self) -> f64 {
        self.a.as_secs_f64() / self.b.as_secs_f64()
    }
}

/// Runs `a` and `b` once each per round, `rounds` times (after a few warm-up calls).
pub fn alternate(rounds: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> Alternated {
    for _ in 0..3 {
        a();
        b();
    }
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        start.elapsed()
    };
    let (mut sum_a, mut sum_b) = (Duration::ZERO, Duration::ZERO);
    let mut per_round = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let x = time(&mut a);
        let y = time(&mut b);
        sum_a += x;
        sum_b += y;
        per_round.push(x.as_secs_f64() / y.as_secs_f64());
    }
    per_round.sort_by(f64::total_cmp);
    let n = rounds.max(1) as u32;
    Alternated {
        a: sum_a / n,
        b: sum_b / n,
        median: per_round.get(rounds / 2).copied().unwrap_or(f64::NAN),
    }
}
