//! What the world does with its randomness, and what it counts.

use std::collections::BTreeMap;

/// What the world does with its randomness, per mille unless said otherwise.
#[derive(Clone, Copy, Debug)]
pub struct Faults {
    /// A message lost.
    pub drop: u32,
    /// A message delivered twice.
    pub dup: u32,
    /// After each event of a node, that node crashes.
    pub crash: u32,
    /// Of those crashes, both players crash at once.
    pub both: u32,
    /// After each event, a node's disk fills for a while.
    pub full: u32,
    /// After each event, two nodes are cut apart for a while.
    pub partition: u32,
}

impl Faults {
    /// Nothing goes wrong.
    pub fn none() -> Faults {
        Faults {
            drop: 0,
            dup: 0,
            crash: 0,
            both: 0,
            full: 0,
            partition: 0,
        }
    }

    /// Everything on.
    pub fn hostile() -> Faults {
        Faults {
            drop: 20,
            dup: 20,
            crash: 15,
            both: 200,
            full: 3,
            partition: 3,
        }
    }
}

/// Where a crash hit: the classes of action boundary the issue names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CrashPoint {
    /// A write handed to the store, not committed: it is lost.
    WriteBegun,
    /// A write committed, its result not back: nothing it allows was sent.
    CommittedNotSent,
    /// Writes of two or more games in flight at once.
    ManyGames,
    /// Nothing in flight.
    Idle,
}

/// What the world counts.
#[derive(Debug, Default)]
pub struct Tally {
    /// Crashes, by where they struck.
    pub crashes: BTreeMap<CrashPoint, u64>,
    /// Crashes of both players at once.
    pub both_at_once: u64,
    /// Disks filled.
    pub disk_full: u64,
    /// Partitions made.
    pub partitions: u64,
    /// Writes that failed.
    pub failed_writes: u64,
    /// Messages carried.
    pub messages: u64,
    /// Messages dropped.
    pub dropped: u64,
    /// Events run.
    pub events: u64,
    /// Timeouts at which a node held a game asleep, out of memory (core `sleep.rs`).
    pub asleep: u64,
    /// Each computation's message a node put out: (time, node, game, position).
    pub computation_sends: Vec<(u64, usize, sealed_core::GameId, u64)>,
    /// Each one that did not arrive whole: (time, sender, game, position).
    pub computation_losses: Vec<(u64, usize, sealed_core::GameId, u64)>,
}

impl Tally {
    /// Adds another world's counts.
    pub fn add(&mut self, o: &Tally) {
        for (k, v) in &o.crashes {
            *self.crashes.entry(*k).or_default() += v;
        }
        self.both_at_once += o.both_at_once;
        self.disk_full += o.disk_full;
        self.partitions += o.partitions;
        self.failed_writes += o.failed_writes;
        self.messages += o.messages;
        self.dropped += o.dropped;
        self.events += o.events;
        self.asleep += o.asleep;
        self.computation_sends.extend(&o.computation_sends);
        self.computation_losses.extend(&o.computation_losses);
    }
}
