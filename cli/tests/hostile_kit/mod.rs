//! The hostile-peer harness's parts: real `sealed` processes (a release build when
//! `SEALED_BIN` names one), what is measured of them (/proc, the store file, dials to a
//! port), and the strangers that attack them (`client.rs`, `mailbox.rs`).

#![allow(dead_code)]

pub mod client;
pub mod flood;
pub mod mailbox;

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The binary under attack: `SEALED_BIN` (a release build, say; a relative path is
/// from the workspace's root), else the tests' own.
pub fn bin() -> PathBuf {
    match std::env::var_os("SEALED_BIN").map(PathBuf::from) {
        Some(p) if p.is_relative() => Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(p),
        Some(p) => p,
        None => PathBuf::from(env!("CARGO_BIN_EXE_sealed")),
    }
}

/// Runs `sealed --home HOME …`.
pub fn sealed(home: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .arg("--home")
        .arg(home)
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Stdout as text.
pub fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A home made with `sealed init`; its seat key.
pub fn init(home: &Path, name: &str) -> sealed_protocol::keys::SecretKey {
    let out = sealed(home, &["init", "--name", name]);
    assert!(out.status.success(), "{out:?}");
    sealed_node::Home::at(home).key().expect("the home's key")
}

/// A signed two-player proposal from `me` to `opponent`.
pub fn proposal(
    variant: &str,
    me: &sealed_protocol::keys::SecretKey,
    opponent: [u8; 32],
    referee: Option<[u8; 32]>,
    mailboxes: Vec<sealed_protocol::proposal::MailboxSpec>,
    nonce: u64,
) -> sealed_protocol::proposal::Terms {
    let mut n = [0x5a; 32];
    n[..8].copy_from_slice(&nonce.to_le_bytes());
    proposed(
        variant,
        me,
        sealed_games::table::Invitees {
            opponent,
            referee,
            mailboxes,
            ..sealed_games::table::Invitees::default()
        },
        n,
    )
}

/// The terms of a proposal of `variant` that `me` signs now for `invitees`; `nonce`
/// makes it a game of its own.
pub fn proposed(
    variant: &str,
    me: &sealed_protocol::keys::SecretKey,
    invitees: sealed_games::table::Invitees,
    nonce: [u8; 32],
) -> sealed_protocol::proposal::Terms {
    // A game whose players compute needs a time control (spec/GAMES.md §5.15).
    let options: Vec<(String, String)> = sealed_games::table::computations(variant)
        .map(|_| ("time-per-move".to_owned(), "1d".to_owned()))
        .into_iter()
        .collect();
    let signed = sealed_games::table::propose(
        variant,
        &options,
        me,
        invitees,
        sealed_node::shell::now_ms(),
        nonce,
    )
    .expect("a valid proposal");
    sealed_protocol::proposal::Terms::from_signed(signed).expect("valid terms")
}

/// A folder of homes for one test, removed at its end unless it failed.
pub struct Dir(pub PathBuf);

impl Dir {
    pub fn new(label: &str) -> Dir {
        let p = std::env::temp_dir().join(format!("sealed-hostile-{}-{label}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("a temporary folder");
        Dir(p)
    }

    pub fn home(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        // Kept when the test fails, or when asked (`SEALED_HOSTILE_KEEP=1`), to read
        // the nodes' logs.
        if !std::thread::panicking() && std::env::var_os("SEALED_HOSTILE_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// A running `sealed` node, killed when dropped.
pub struct Proc {
    child: Child,
    pub home: PathBuf,
    /// Its printed address (ending in `/p2p/<peer id>`).
    pub addr: String,
    /// Every address it printed.
    pub addrs: Vec<String>,
    command: String,
    listen: String,
    extra: Vec<String>,
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `sealed --home HOME COMMAND --listen LISTEN --no-mdns EXTRA…` and reads the
/// addresses it prints.
pub fn start(home: &Path, command: &str, listen: &str, extra: &[&str]) -> Proc {
    let mut child = Command::new(bin())
        .arg("--home")
        .arg(home)
        .args([command, "--listen", listen, "--no-mdns"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(home.with_extension("err"))
                .map_or_else(|_| Stdio::null(), Stdio::from),
        )
        .spawn()
        .expect("the node starts");
    let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
    let mut addrs = vec![];
    for line in lines.by_ref() {
        let line = line.expect("stdout reads");
        if let Some(a) = line.strip_prefix("listening ") {
            addrs.push(a.trim().to_owned());
        }
        if line.starts_with("control") {
            break;
        }
    }
    std::thread::spawn(move || for _ in lines {});
    assert!(!addrs.is_empty(), "{} prints its address", home.display());
    Proc {
        child,
        home: home.to_path_buf(),
        addr: addrs[0].clone(),
        addrs,
        command: command.into(),
        listen: listen.into(),
        extra: extra.iter().map(|s| (*s).to_owned()).collect(),
    }
}

impl Proc {
    /// Whether the process still runs (it has not exited, crashed or aborted).
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Its resident set now, in KiB.
    pub fn rss_kib(&self) -> u64 {
        status_kib(self.pid(), "VmRSS")
    }

    /// Its peak resident set so far, in KiB.
    pub fn peak_kib(&self) -> u64 {
        status_kib(self.pid(), "VmHWM")
    }

    /// Its store file's size.
    pub fn store_bytes(&self) -> u64 {
        std::fs::metadata(self.home.join("store.redb")).map_or(0, |m| m.len())
    }

    /// Stops it and starts it again with the same arguments, on the same address; its
    /// peak RSS so far is kept in `peaks` under its home's name.
    pub fn restart(self, peaks: &mut Peaks) -> Proc {
        let extra = self.extra.clone();
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        self.restart_with(&extra, peaks)
    }

    /// As [`Proc::restart`], with other extra arguments.
    pub fn restart_with(self, extra: &[&str], peaks: &mut Peaks) -> Proc {
        peaks.note(&self);
        let home = self.home.clone();
        let command = self.command.clone();
        // The same port: peers that knew it still reach it.
        let listen = self
            .addr
            .rsplit_once("/p2p/")
            .map_or(self.listen.clone(), |(a, _)| a.to_owned());
        drop(self);
        start(&home, &command, &listen, extra)
    }

    /// `sealed games --json`.
    pub fn games(&self) -> Vec<Value> {
        let out = sealed(&self.home, &["games", "--json"]);
        serde_json::from_slice::<Value>(&out.stdout)
            .ok()
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
    }

    /// `sealed peers --json`: the peer book's entries.
    pub fn peers(&self) -> Vec<Value> {
        let out = sealed(&self.home, &["peers", "--json"]);
        serde_json::from_slice::<Value>(&out.stdout)
            .ok()
            .and_then(|v| v["peers"].as_array().cloned())
            .unwrap_or_default()
    }
}

/// The peak RSS of each node over its processes (a restart starts a new one).
#[derive(Debug, Default)]
pub struct Peaks(std::collections::BTreeMap<PathBuf, u64>);

impl Peaks {
    /// Notes a process's peak so far.
    pub fn note(&mut self, p: &Proc) {
        let e = self.0.entry(p.home.clone()).or_default();
        *e = (*e).max(p.peak_kib());
    }

    /// The highest peak of the node, its running process included.
    pub fn of(&mut self, p: &Proc) -> u64 {
        self.note(p);
        self.0[&p.home]
    }
}

/// A field of /proc/PID/status, in KiB.
pub fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// The CPU time a process has used, user and system, in seconds (/proc/PID/stat, in
/// clock ticks of 1/100 s on Linux); "self" for this process.
pub fn cpu_seconds(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command's name (which may hold spaces) in parentheses.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = rest
        .split_whitespace()
        .map(|v| v.parse().unwrap_or(0))
        .collect();
    // utime and stime are fields 14 and 15, 12 and 13 after the name.
    (f.get(11).copied().unwrap_or(0) + f.get(12).copied().unwrap_or(0)) as f64 / 100.0
}

/// What an attack cost its victim and its attacker, from one moment to another.
#[derive(Clone, Copy, Debug)]
pub struct Spent {
    victim_cpu: f64,
    attacker_cpu: f64,
    store: u64,
}

impl Spent {
    /// The counters now, of `victim` and of this process (the attacker).
    pub fn now(victim: &Proc) -> Spent {
        Spent {
            victim_cpu: cpu_seconds(&victim.pid().to_string()),
            attacker_cpu: cpu_seconds("self"),
            store: victim.store_bytes(),
        }
    }

    /// Since `self`, in words: the victim's CPU seconds per attacker CPU second, and
    /// what its store grew.
    pub fn since(&self, victim: &Proc) -> String {
        let now = Spent::now(victim);
        let v = now.victim_cpu - self.victim_cpu;
        let a = (now.attacker_cpu - self.attacker_cpu).max(0.01);
        format!(
            "victim CPU {v:.2} s for the attacker's {a:.2} s ({:.2} per attacker second), \
             store +{} KiB, peak RSS {}",
            v / a,
            now.store.saturating_sub(self.store) >> 10,
            mib(victim.peak_kib())
        )
    }
}

/// A TCP port that counts every connection made to it (and closes each): where a node
/// that dials on a stranger's word would be seen dialling.
pub struct Trap {
    pub port: u16,
    pub hits: Arc<AtomicUsize>,
}

impl Trap {
    pub fn new(ip: &str) -> Trap {
        let l = TcpListener::bind((ip, 0)).expect("a port");
        let port = l.local_addr().expect("bound").port();
        let hits = Arc::new(AtomicUsize::new(0));
        let h = hits.clone();
        std::thread::spawn(move || {
            for c in l.incoming() {
                if c.is_ok() {
                    h.fetch_add(1, Ordering::SeqCst);
                }
            }
        });
        Trap { port, hits }
    }

    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

/// A peer id of a fresh random key, as text.
pub fn random_peer_id(n: u64) -> String {
    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&n.to_le_bytes());
    seed[8] = 0xa7;
    sealed_node::net::keypair(&seed)
        .public()
        .to_peer_id()
        .to_string()
}

/// A seed for a stranger's key.
pub fn seed(tag: u8, n: u64) -> [u8; 32] {
    let mut s = [tag; 32];
    s[..8].copy_from_slice(&n.to_le_bytes());
    s
}

/// Runs `sealed new …` from `home`; the exit code, how long it took, and what it said
/// on stderr.
pub fn invite(home: &Path, args: &[&str]) -> (i32, Duration, String) {
    let start = Instant::now();
    let mut all = vec!["new"];
    all.extend_from_slice(args);
    let out = sealed(home, &all);
    (
        out.status.code().unwrap_or(-1),
        start.elapsed(),
        String::from_utf8_lossy(&out.stderr).trim().to_owned(),
    )
}

/// One line of the report: an attack, what was measured, and whether the node held.
#[derive(Debug)]
pub struct Row {
    pub attack: String,
    pub figure: String,
    pub held: bool,
}

/// The figures of a run.
#[derive(Debug, Default)]
pub struct Report {
    pub rows: Vec<Row>,
}

impl Report {
    pub fn row(&mut self, attack: &str, figure: String, held: bool) {
        eprintln!(
            "[{}] {attack}: {figure}",
            if held { "held" } else { "FAILED" }
        );
        self.rows.push(Row {
            attack: attack.into(),
            figure,
            held,
        });
    }

    pub fn print(&self) {
        eprintln!("\n| attack | figure | held |\n|---|---|---|");
        for r in &self.rows {
            eprintln!(
                "| {} | {} | {} |",
                r.attack,
                r.figure,
                if r.held { "yes" } else { "NO" }
            );
        }
    }

    pub fn failed(&self) -> Vec<&Row> {
        self.rows.iter().filter(|r| !r.held).collect()
    }
}

/// Polls `f` every 100 ms until it holds or `secs` pass; whether it held.
pub fn until(secs: u64, mut f: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + Duration::from_secs(secs);
    loop {
        if f() {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// MiB from KiB, for the report.
pub fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}
