//! The conformance suite as a runner: every transcript case of spec/vectors/ put to any
//! verifier's command line (spec/PROTOCOL.md §13.3). The command line is the binary
//! `conformance` (`src/bin/conformance.rs`); `cli/tests/conformance.rs` puts `sealed
//! verify` through it like any other verifier.
//!
//! Each case's file is written as `<case>.sealed` and the command is run with its path in
//! place of an argument `{}`, or after the last argument when no argument is `{}`. The
//! verifier's exit code is compared with the case's. With `sealed_json` the verifier is
//! taken to print the file object of `sealed verify --json` (cli/JSON.md) on stdout, and
//! the proven faults (seat and kind, as a set: every fault the file proves) and the
//! adjudicated results are compared too, wherever the case states them.
//!
//! The cases: each complete game of a `transcript-*.json` (its `bytes` and `verdict`, no
//! fault), each twin in its `rejects`, and each vector of `reject.json`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long a verifier may take on one case before it is killed, unless told otherwise.
pub const CASE_TIMEOUT: Duration = Duration::from_secs(120);

/// What of a verifier's output is read: a verdict's JSON is far smaller.
const MAX_OUTPUT: u64 = 16 << 20;

/// One case: a whole transcript file and what a verifier must say of it.
pub struct Case {
    /// `<stem>` of a complete game, `<stem>/<twin>`, or `reject/<name>`.
    pub name: String,
    /// The whole file.
    pub bytes: Vec<u8>,
    /// The exit code a verifier must give.
    pub exit: i64,
    /// Every expected fault as (seat, kind), when the case states them.
    pub faults: Option<BTreeSet<(u64, String)>>,
    /// The expected result of each seat, when the case states one.
    pub results: Option<Vec<String>>,
}

/// What the verifier said of one case.
pub struct Said {
    /// Its exit code; none when it was killed by a signal.
    pub exit: Option<i32>,
    /// The faults its JSON names, when read.
    pub faults: Option<BTreeSet<(u64, String)>>,
    /// The results its JSON gives, when read.
    pub results: Option<Vec<String>>,
}

/// A result as one word: `win`, `loss`, `draw`, or a score with its sign (`+0`, `-10`),
/// from a vector's text or from `sealed verify --json`'s `{"score": n}`.
fn result_word(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => {
            let n = o.get("score")?.as_i64()?;
            Some(if n < 0 {
                n.to_string()
            } else {
                format!("+{n}")
            })
        }
        _ => None,
    }
}

fn faults_of(v: &Value) -> Option<BTreeSet<(u64, String)>> {
    v.as_array()?
        .iter()
        .map(|f| Some((f["seat"].as_u64()?, f["kind"].as_str()?.to_owned())))
        .collect()
}

fn results_of(v: &Value) -> Option<Vec<String>> {
    v.as_array()?.iter().map(result_word).collect()
}

fn case(name: String, v: &Value, hex_key: &str) -> Result<Case, String> {
    let bytes = v[hex_key]
        .as_str()
        .and_then(|h| hex::decode(h).ok())
        .ok_or_else(|| format!("{name}: no `{hex_key}` of hexadecimal bytes"))?;
    let exit = v["exit"]
        .as_i64()
        .ok_or_else(|| format!("{name}: no `exit`"))?;
    Ok(Case {
        name,
        bytes,
        exit,
        faults: faults_of(&v["faults"]),
        results: results_of(&v["results"]),
    })
}

/// Every case of the vectors folder, in a stable order.
pub fn cases(dir: &Path) -> Result<Vec<Case>, String> {
    let read = |f: &Path| -> Result<Value, String> {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", f.display()))
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("transcript-") && n.ends_with(".json"))
        })
        .collect();
    files.sort();
    let mut out = vec![];
    for f in &files {
        let stem = f
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .trim_start_matches("transcript-")
            .to_owned();
        let v = read(f)?;
        // The complete game: its verdict, and no fault.
        let mut whole = v["verdict"].clone();
        whole["bytes"] = v["bytes"].clone();
        whole["faults"] = Value::Array(vec![]);
        out.push(case(stem.clone(), &whole, "bytes")?);
        for r in v["rejects"].as_array().into_iter().flatten() {
            let name = format!("{stem}/{}", r["name"].as_str().unwrap_or("?"));
            out.push(case(name, r, "transcript")?);
        }
    }
    let rejects = read(&dir.join("reject.json"))?;
    for r in rejects["vectors"].as_array().into_iter().flatten() {
        let name = format!("reject/{}", r["name"].as_str().unwrap_or("?"));
        out.push(case(name, r, "transcript")?);
    }
    Ok(out)
}

/// Runs the verifier `command` on `file`, killed after `timeout`.
pub fn run(
    command: &[String],
    file: &Path,
    sealed_json: bool,
    timeout: Duration,
) -> Result<Said, String> {
    let path = file.to_string_lossy().into_owned();
    let mut args: Vec<String> = command.to_vec();
    match args.iter_mut().find(|a| *a == "{}") {
        Some(a) => *a = path,
        None => args.push(path),
    }
    let mut cmd = Command::new(&args[0]);
    cmd.args(&args[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // Its own process group, so that a verifier that hangs is killed with whatever it
    // started (a script's children would otherwise hold its output open).
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("could not run {}: {e}", args[0]))?;
    // Read on a thread, so that a verifier that writes more than a pipe holds is not
    // stopped by it; what it writes past MAX_OUTPUT is not read.
    let mut pipe = child.stdout.take().ok_or("no stdout")?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut out = vec![];
        let _ =
            std::io::Read::read_to_end(&mut std::io::Read::take(&mut pipe, MAX_OUTPUT), &mut out);
        let _ = tx.send(out);
    });
    // A verifier that hangs is killed: no exit code, so it disagrees with every case.
    let started = Instant::now();
    let status = loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(status) => break Some(status),
            None if started.elapsed() > timeout => {
                kill_group(&mut child);
                let _ = child.wait();
                break None;
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    // Whatever it wrote; a descendant that escaped its group and keeps the pipe open
    // leaves its reader behind, not the runner.
    let stdout = rx.recv_timeout(Duration::from_secs(5)).unwrap_or_default();
    let mut said = Said {
        exit: status.and_then(|s| s.code()),
        faults: None,
        results: None,
    };
    if sealed_json && let Ok(doc) = serde_json::from_slice::<Value>(&stdout) {
        let v = &doc["verdict"];
        // An unreadable file has no verdict, so nothing is proven in it.
        said.faults = if v.is_null() {
            Some(BTreeSet::new())
        } else {
            faults_of(&v["faults"])
        };
        said.results = match &v["outcome"] {
            Value::Null => v.is_object().then(Vec::new),
            o => results_of(&o["results"]),
        };
    }
    Ok(said)
}

/// Kills a verifier and its process group (by `kill`, the workspace having no unsafe
/// code for `killpg`); where there are no groups, the process alone.
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        let group = format!("-{}", child.id());
        let _ = Command::new("kill")
            .args(["-KILL", "--", &group])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.kill();
}

/// Where the verifier and the case part ways, if they do.
pub fn disagreement(c: &Case, s: &Said, sealed_json: bool) -> Option<String> {
    let mut why = vec![];
    if s.exit != Some(c.exit as i32) {
        why.push(format!(
            "exit {} (expected {})",
            s.exit.map_or("none (killed)".into(), |e| e.to_string()),
            c.exit
        ));
    }
    if sealed_json {
        if let Some(want) = &c.faults
            && s.faults.as_ref() != Some(want)
        {
            why.push(format!("faults {:?} (expected {want:?})", s.faults));
        }
        if let Some(want) = &c.results
            && s.results.as_ref() != Some(want)
        {
            why.push(format!("results {:?} (expected {want:?})", s.results));
        }
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// The folder of the vectors in this repository.
pub fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/vectors")
}

/// One line of the agreement table.
pub struct Row {
    /// The case's name.
    pub name: String,
    /// The exit code the case expects.
    pub expected: i64,
    /// What the verifier said.
    pub said: Said,
    /// Where they part ways; none when they agree.
    pub differs: Option<String>,
}

/// Puts every case of `dir` to `command`, each file written in `scratch`, each run
/// killed after `timeout`.
pub fn run_all(
    dir: &Path,
    command: &[String],
    sealed_json: bool,
    scratch: &Path,
    timeout: Duration,
) -> Result<Vec<Row>, String> {
    std::fs::create_dir_all(scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    cases(dir)?
        .into_iter()
        .map(|c| {
            let file = scratch.join(format!("{}.sealed", c.name.replace('/', "--")));
            std::fs::write(&file, &c.bytes).map_err(|e| format!("{}: {e}", file.display()))?;
            let said = run(command, &file, sealed_json, timeout)?;
            Ok(Row {
                differs: disagreement(&c, &said, sealed_json),
                name: c.name,
                expected: c.exit,
                said,
            })
        })
        .collect()
}
