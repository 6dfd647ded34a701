//! What the command line tests share: running the real binary (and its long-running
//! nodes), temporary folders, and transcripts made by simulating real games.

// Each test file is its own crate and uses only part of this module.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use sealed_conformance::duel_kit::{duel_proposal, duel_terms, random_bot};
use sealed_conformance::sim::{NetConfig, Sim, test_key};
use sealed_games::duel::Duel;
use sealed_protocol::envelope::Envelope;
use sealed_protocol::fault::FaultKind;
use sealed_protocol::ids::Name;
use sealed_protocol::proof::Proof;
use sealed_protocol::transcript::{Evidence, FraudProof, TranscriptFile};
use sealed_protocol::wire;
use serde_json::Value;

/// Runs `sealed` with these arguments.
pub fn sealed(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sealed"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// The exit code; a panic shows as 101 and a signal as -1, both failures of the tests.
pub fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

/// Stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `sealed --home HOME …`.
pub fn at_home(home: &Path, rest: &[&str]) -> Output {
    let mut args = vec!["--home", home.to_str().expect("temporary paths are UTF-8")];
    args.extend_from_slice(rest);
    sealed(&args)
}

/// Asserts a refusal: exit 2, `says` in the message on stderr, nothing on stdout.
pub fn refused(out: &Output, says: &str) {
    assert_eq!(code(out), 2, "{}", stderr(out));
    assert!(
        stderr(out).contains(says),
        "{:?} lacks {says:?}",
        stderr(out)
    );
    assert!(stdout(out).is_empty(), "{}", stdout(out));
}

/// A long-running `sealed node` or `sealed referee` on loopback, killed when dropped.
pub struct Node {
    child: Child,
    /// The address it printed, ending in `/p2p/<peer id>`.
    pub addr: String,
    /// Every line it printed as it started, up to its `control` line.
    pub said: String,
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `sealed --home HOME <command>` (`node` or `referee`) listening on loopback
/// TCP without mDNS, and reads the address it prints.
pub fn start_node(home: &Path, command: &str) -> Node {
    start_node_with(home, command, "/ip4/127.0.0.1/tcp/0", &[], &[])
}

/// Starts `sealed --home HOME <command> --listen LISTEN --no-mdns EXTRA…` with the
/// environment `env` added (`FAILPOINTS`, say), and reads the address it prints.
pub fn start_node_with(
    home: &Path,
    command: &str,
    listen: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Node {
    let node = spawn_node(home, command, listen, extra, env);
    assert!(!node.addr.is_empty(), "the node prints its address");
    node
}

/// As [`start_node_with`], for a node that may die before it prints its address (a
/// crash at a fault point): then its `addr` is empty.
pub fn spawn_node(
    home: &Path,
    command: &str,
    listen: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Node {
    spawn_node_in(None, home, command, listen, extra, env)
}

/// As [`spawn_node`], inside the network namespace `ns` if one is given
/// (`ip netns exec`, which runs the binary in its own place: killing the child kills
/// the node).
pub fn spawn_node_in(
    ns: Option<&str>,
    home: &Path,
    command: &str,
    listen: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Node {
    let bin = env!("CARGO_BIN_EXE_sealed");
    let mut cmd = match ns {
        Some(ns) => {
            let mut c = Command::new("ip");
            c.args(["netns", "exec", ns, bin]);
            c
        }
        None => Command::new(bin),
    };
    let mut child = cmd
        .args(["--home", home.to_str().expect("temporary paths are UTF-8")])
        .args([command, "--listen", listen, "--no-mdns"])
        .args(extra)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        // Kept beside the home (not in it: some tests read the home's files), for a
        // failing test to show.
        .stderr(
            std::fs::File::create(home.with_extension("err"))
                .map_or_else(|_| Stdio::null(), Stdio::from),
        )
        .spawn()
        .expect("the node starts");
    let mut lines = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
    let mut addr = None;
    let mut said = String::new();
    for line in lines.by_ref() {
        let line = line.expect("the node's stdout reads");
        said.push_str(&line);
        said.push('\n');
        if let Some(a) = line.strip_prefix("listening ") {
            addr = Some(a.trim().to_owned());
        }
        if line.starts_with("control") {
            break;
        }
    }
    // Keep draining stdout so the node never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    Node {
        child,
        addr: addr.unwrap_or_default(),
        said,
    }
}

impl Node {
    /// Whether the process has ended (crashed, say), without waiting.
    pub fn exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// Waits for the process to end by itself, up to `secs`; whether it did.
    pub fn wait_exit(&mut self, secs: u64) -> bool {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(secs) {
            if self.exited() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

/// Makes a home with `sealed init` and returns the peer id it prints.
pub fn init_peer_id(home: &Path, name: &str) -> String {
    let init = stdout(&at_home(home, &["init", "--name", name]));
    init.split_whitespace()
        .find(|w| w.starts_with("12D3"))
        .expect("init prints the peer id")
        .to_owned()
}

/// The peer id an address ends in.
pub fn peer_of(addr: &str) -> &str {
    addr.rsplit("/p2p/")
        .next()
        .expect("an address with its peer id")
}

/// A TCP port on 127.0.0.1 that was free a moment ago, for a node that must come back
/// on the same address after a restart.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// One raw request to the node of `home` on its control socket (what `sealed` sends),
/// with the node's answer.
pub fn control(home: &Path, request: &Value) -> Value {
    use std::io::Write;
    let mut stream = std::os::unix::net::UnixStream::connect(home.join("node.sock"))
        .expect("the node's control socket");
    stream
        .write_all(format!("{request}\n").as_bytes())
        .expect("the request is written");
    let mut answer = String::new();
    BufReader::new(stream)
        .read_line(&mut answer)
        .expect("the answer reads");
    serde_json::from_str(&answer).expect("the answer is JSON")
}

/// Sets a fault point of the running node of `home` (`sealed_node::faults`).
pub fn failpoint(home: &Path, name: &str, actions: &str) {
    let a = control(
        home,
        &serde_json::json!({"cmd": "failpoint", "name": name, "actions": actions}),
    );
    assert_eq!(
        a,
        serde_json::json!({"ok": null}),
        "failpoint {name}={actions}"
    );
}

/// `sealed show GAME --json` on this home, if its node answers.
pub fn show_json(home: &Path, game: &str) -> Option<Value> {
    let out = at_home(home, &["show", game, "--json"]);
    (code(&out) == 0).then(|| serde_json::from_str(&stdout(&out)).expect("show --json is JSON"))
}

/// Polls `show --json` until `cond` holds (nodes sync in the background); fails after
/// a minute, naming `what` it waited for and the last view.
pub fn wait_for(home: &Path, game: &str, what: &str, cond: impl Fn(&Value) -> bool) -> Value {
    wait_for_within(home, game, what, 60, cond)
}

/// As [`wait_for`], for up to `secs` seconds (a wait the protocol itself times).
pub fn wait_for_within(
    home: &Path,
    game: &str,
    what: &str,
    secs: u64,
    cond: impl Fn(&Value) -> bool,
) -> Value {
    let start = Instant::now();
    loop {
        if let Some(v) = show_json(home, game)
            && cond(&v)
        {
            return v;
        }
        assert!(
            start.elapsed() < Duration::from_secs(secs),
            "{} never got to {what}: {:?}",
            home.display(),
            show_json(home, game)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A fresh folder under the system's temporary folder, removed when dropped. Unique
/// per process and call, so tests running in parallel never share one.
pub struct TempDir(PathBuf);

impl TempDir {
    /// Creates the folder.
    pub fn new(label: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "sealed-cli-test-{}-{label}-{n}",
            std::process::id()
        ));
        // A leftover from a crashed run with a reused process id would mix in old files.
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create temporary folder");
        TempDir(path)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Writes a file into the folder and returns its path as text.
    pub fn write(&self, name: &str, bytes: &[u8]) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, bytes).expect("write test file");
        p.to_str().expect("temporary paths are UTF-8").to_owned()
    }

    /// The folder's path as text.
    pub fn arg(&self) -> &str {
        self.0.to_str().expect("temporary paths are UTF-8")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
        // A node's stderr, kept beside its home.
        let _ = std::fs::remove_file(self.0.with_extension("err"));
    }
}

/// The transcript of a whole Duel between two honest random players: it verifies.
pub fn verified() -> &'static [u8] {
    static FILE: OnceLock<Vec<u8>> = OnceLock::new();
    FILE.get_or_init(|| {
        let mut sim = Sim::new(
            duel_terms(&Duel::default(), 1),
            vec![random_bot(), random_bot()],
            NetConfig::perfect(),
            1,
        );
        sim.run(10_000_000);
        assert!(sim.quiet(), "the simulated game did not finish");
        sim.transcripts().swap_remove(0)
    })
}

/// The verified transcript, decoded.
pub fn verified_file() -> TranscriptFile {
    TranscriptFile::from_bytes(verified()).expect("the simulated transcript reads")
}

/// The verified transcript without its last envelope: readable, but no longer closed
/// both ways, so unconfirmed.
pub fn unfinished() -> Vec<u8> {
    let mut f = verified_file();
    f.envelopes.pop();
    f.to_bytes()
}

/// The verified transcript with one signature byte changed: those bytes are not
/// validly signed.
pub fn badly_signed() -> Vec<u8> {
    let mut f = verified_file();
    let last = f.envelopes[3].len() - 1;
    f.envelopes[3][last] ^= 0x40;
    f.to_bytes()
}

/// The verified transcript with an equivocation proof made of junk bytes.
pub fn forged_evidence() -> Vec<u8> {
    let mut f = verified_file();
    f.evidence.push(Evidence::Chain(Proof::Equivocation {
        first: b"not an envelope".to_vec(),
        second: b"nor is this".to_vec(),
    }));
    f.to_bytes()
}

/// The verified transcript with a fraud proof accusing an honest envelope of an
/// illegal act.
pub fn false_accusation() -> Vec<u8> {
    let mut f = verified_file();
    let envelope = f.envelopes[5].clone();
    f.evidence.push(Evidence::Fraud(FraudProof {
        envelope,
        kind: FaultKind::IllegalAct,
    }));
    f.to_bytes()
}

/// The verified transcript plus a second envelope that seat 0 signed at the position
/// of one it already signed (same content, another clock reading): an equivocation.
pub fn equivocating() -> Vec<u8> {
    let mut f = verified_file();
    let game = sealed_protocol::proposal::Terms::parse(&f.proposal)
        .expect("terms")
        .game();
    let (i, mut env) = f
        .envelopes
        .iter()
        .enumerate()
        .find_map(|(i, b)| {
            let env = Envelope::decode(b, game).ok()?;
            (env.unsigned.seat.0 == 0 && env.unsigned.seq == 2).then_some((i, env))
        })
        .expect("seat 0 signed at least three envelopes");
    env.unsigned.clock += 1;
    let twin = env.unsigned.sign(&test_key(0)).bytes;
    assert_ne!(twin, f.envelopes[i]);
    f.envelopes.push(twin);
    f.to_bytes()
}

/// A validly signed proposal of a variant no build knows, with no envelopes.
pub fn unknown_variant() -> Vec<u8> {
    let mut p = duel_proposal(&Duel::default(), 9);
    p.variant = Name::new("chess-of-the-future").expect("valid name");
    TranscriptFile {
        proposal: wire::encode(&p.sign(&test_key(0))),
        envelopes: vec![],
        evidence: vec![],
    }
    .to_bytes()
}

/// A legal move for the seat to move, from the hint `show` gives (`<move>, e.g. 9Sb1`).
pub fn example_move(v: &Value) -> String {
    v["actions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .find_map(|a| a.split("e.g. ").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no example move in {v}"))
        .to_owned()
}
