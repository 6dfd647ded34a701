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
    /// Each round's times, (a, b).
    pub rounds: Vec<(Duration, Duration)>,
}

impl Alternated {
    /// The ratio of the means.
    #[allow(dead_code)] // not every bench reads the means
    pub fn ratio(&self) -> f64 {
        self.a.as_secs_f64() / self.b.as_secs_f64()
    }

    /// The median time of one call of the first workload, in seconds.
    #[allow(dead_code)] // not every bench reads medians
    pub fn median_a(&self) -> f64 {
        median(self.rounds.iter().map(|r| r.0.as_secs_f64()).collect())
    }

    /// The median time of one call of the second workload, in seconds.
    #[allow(dead_code)] // not every bench reads medians
    pub fn median_b(&self) -> f64 {
        median(self.rounds.iter().map(|r| r.1.as_secs_f64()).collect())
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
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
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let x = time(&mut a);
        let y = time(&mut b);
        sum_a += x;
        sum_b += y;
        times.push((x, y));
    }
    let n = rounds.max(1) as u32;
    Alternated {
        a: sum_a / n,
        b: sum_b / n,
        median: median(
            times
                .iter()
                .map(|(x, y)| x.as_secs_f64() / y.as_secs_f64())
                .collect(),
        ),
        rounds: times,
    }
}
