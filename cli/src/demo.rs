//! `sealed demo <variant>`: two nodes on 127.0.0.1 — real sockets, real libp2p, separate
//! stores — let bots play a whole game, then the transcript is verified like any file.
//! Secret Stallmate takes a third node, the referee, which answers by itself; without a
//! referee (`--no-referee`, variant `stallmate-duo`) the two players' nodes compute
//! every answer together and a third node is the witness their time control needs.
//!
//! `--walk-away`: the second player's node stops a few moves in. With a witness (a third
//! node, `--witness` mode, named in a version 2 proposal with a 2-second move time) the
//! first player's node proves him out of time and the game ends with a verified loss on
//! time; with `--no-witness` it can only claim a timeout, and the result stays open.
//! In Secret Stallmate (a fourth node is the witness) the walker's period passes
//! without a move: with a witness the stamps prove it and he forfeits (−10 / 0); without
//! one the referee's close says so, a claim with no result.
//!
//! The transcript is written to a file, for `sealed verify`: `--out FILE`, or else
//! `sealed-demo-<variant>.sealed` in the current folder, or the first of
//! `sealed-demo-<variant>-2.sealed`, `-3`, … that does not exist (a file the user did not
//! name is never overwritten). The last line printed names the file and the command
//! that checks it.

use std::time::{Duration, Instant};

use sealed_node::core::Stage;
use sealed_node::{Home, NodeConfig, ProposeArgs};

use crate::output;

/// Whether one player walks away, and whether a witness watches the time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Walk {
    /// Both play to the end.
    Stay,
    /// The second player's node stops; a witness proves him late.
    AwayWitnessed,
    /// The second player's node stops; nobody can prove it.
    AwayUnwitnessed,
}

/// The move time of a walk-away demo.
const WALK_PER_MOVE: &str = "2s";

/// How long a demo waits for a game in which no seat's phase or count of acts changes:
/// far longer than any one step of a game takes, even in a debug build on a loaded
/// machine.
const STALL: Duration = Duration::from_secs(120);

/// Runs the demo; exit 0 when the game finished and verified.
pub fn run(
    variant: &str,
    seed: u64,
    walk: Walk,
    deck: Option<&str>,
    options: &[String],
    out: Option<&std::path::Path>,
) -> i32 {
    if !sealed_games::table::variants().contains(&variant) {
        output::error(&format!(
            "unknown variant {variant:?} (known: {})",
            sealed_games::table::variants().join(", ")
        ));
        return 2;
    }
    if deck.is_some() && variant != sealed_games::tempete::VARIANT {
        output::error("--deck is an option of tempete only");
        return 2;
    }
    let mut given: Vec<(String, String)> = vec![];
    for o in options {
        match o.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                given.push((k.trim().to_owned(), v.trim().to_owned()));
            }
            _ => {
                output::error(&format!("{o:?}: an option is key=value"));
                return 2;
            }
        }
    }
    if let Some(deck) = deck {
        given.push(("deck".into(), deck.into()));
    }
    // Quiet unless asked (SEALED_LOG=info shows what the nodes do).
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SEALED_LOG")
                .unwrap_or_else(|_| "error".into()),
        )
        .with_writer(std::io::stderr)
        .try_init();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            output::error(&e.to_string());
            return 2;
        }
    };
    // Where the transcript goes is checked before a game is played for nothing.
    let (path, file) = match out {
        Some(path) => match std::fs::File::create(path) {
            Ok(f) => (path.to_path_buf(), f),
            Err(e) => {
                output::error(&format!("{}: {e}", path.display()));
                return 2;
            }
        },
        None => match free_file(variant) {
            Ok(found) => found,
            Err(e) => {
                output::error(&format!("{e}; --out FILE writes the transcript elsewhere"));
                return 2;
            }
        },
    };
    let code = runtime.block_on(async move {
        match demo(variant, seed, walk, &given, file).await {
            Ok(code) => Some(code),
            Err(e) => {
                output::error(&e);
                None
            }
        }
    });
    match code {
        Some(code) => {
            let shown = path.display().to_string();
            output::stdout(&format!(
                "saved     {shown}; check it with: sealed verify {}\n",
                quoted(&shown)
            ));
            code
        }
        None => {
            // No game to keep: a file the demo chose goes again (one named with `--out`
            // stays, as `File::create` left it).
            if out.is_none() {
                let _ = std::fs::remove_file(&path);
            }
            2
        }
    }
}

/// The first of `sealed-demo-<variant>.sealed`, `sealed-demo-<variant>-2.sealed`, … in
/// the current folder that does not exist, created (`create_new`, so a file that
/// appears meanwhile is never overwritten either).
fn free_file(variant: &str) -> Result<(std::path::PathBuf, std::fs::File), String> {
    for n in 1..=1000u32 {
        let name = if n == 1 {
            format!("sealed-demo-{variant}.sealed")
        } else {
            format!("sealed-demo-{variant}-{n}.sealed")
        };
        let path = std::path::PathBuf::from(name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => return Ok((path, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(format!("{}: {e}", path.display())),
        }
    }
    Err(format!(
        "sealed-demo-{variant}.sealed and the next 999 names are taken"
    ))
}

/// A path as a shell reads it: as it is when it has only plain characters, else in
/// single quotes.
fn quoted(path: &str) -> String {
    let plain = !path.is_empty()
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./+,:@%".contains(c));
    if plain {
        path.to_owned()
    } else {
        format!("'{}'", path.replace('\'', "'\\''"))
    }
}

/// The demo's temporary homes (keys included), removed however the demo ends.
struct Homes(Vec<std::path::PathBuf>);

impl Drop for Homes {
    fn drop(&mut self) {
        for d in &self.0 {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

async fn demo(
    variant: &str,
    seed: u64,
    walk: Walk,
    given: &[(String, String)],
    out: std::fs::File,
) -> Result<i32, String> {
    let refereed = variant == sealed_games::stallmate::VARIANT;
    // Without a referee, Secret Stallmate always needs a witness: whoever owes the
    // next message of a computation and lets the time pass loses on time.
    let duo = variant == sealed_games::stallmate::duo::VARIANT;
    let witnessed = walk == Walk::AwayWitnessed || duo;
    let count = 2 + usize::from(refereed) + usize::from(witnessed);
    // The nodes that hold a seat (the witness, last, holds none).
    let seated = count - usize::from(witnessed);
    let mut dirs = Homes(vec![]);
    for _ in 0..count {
        dirs.0.push(tempdir()?);
    }
    let dirs = &dirs.0;
    let mut nodes = vec![];
    for (i, dir) in dirs.iter().enumerate() {
        let home = Home::at(dir.join("home"));
        home.init(&format!("bot {}", i + 1))
            .map_err(|e| e.to_string())?;
        let mut cfg = NodeConfig::default();
        cfg.net.mdns = false;
        cfg.listen = vec!["/ip4/127.0.0.1/tcp/0".parse().map_err(|e| format!("{e}"))?];
        // A referee's duties come due with time: look often.
        cfg.core.repair_every_ms = if refereed { 25 } else { 250 };
        cfg.core.bots = true;
        cfg.core.bot_seed = seed.wrapping_mul(2).wrapping_add(i as u64);
        // The last node of a walk-away (or of a game without a referee) is the witness.
        cfg.core.witness = witnessed && i == count - 1;
        let (node, _task) = sealed_node::start(&home, cfg)
            .await
            .map_err(|e| e.to_string())?;
        nodes.push(node);
    }
    let started = Instant::now();
    let mut addrs = vec![];
    for n in &nodes[1..] {
        let a: sealed_node::Multiaddr = loop {
            if let Some(a) = n.info().await.map_err(|e| e.to_string())?.addrs.first() {
                break a.parse().map_err(|e| format!("{e}"))?;
            }
            if started.elapsed() > Duration::from_secs(10) {
                return Err("a node did not start listening".into());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        addrs.push(a);
    }
    let peer = addrs[0].clone();
    let referee = if refereed {
        addrs.get(1).cloned()
    } else {
        None
    };
    let witness = if witnessed {
        addrs.last().cloned()
    } else {
        None
    };
    let mut options = sealed_games::table::demo_options(variant);
    // The options given replace the demo's own of the same key. The demo's Tempête list
    // holds the open deck's card 73, which the physical deck has not: a physical demo
    // plays the default list unless one is given.
    let physical = given.iter().any(|(k, v)| k == "deck" && v == "physical");
    if physical && !given.iter().any(|(k, _)| k == "cards") {
        options.retain(|(key, _)| key != "cards");
    }
    for (k, v) in given {
        options.retain(|(key, _)| key != k);
        options.push((k.clone(), v.clone()));
    }
    if walk != Walk::Stay {
        // Secret Stallmate's time is its move period; the others take a move time.
        let key = if refereed { "period" } else { "time-per-move" };
        options.retain(|(k, _)| k != key);
        options.push((key.into(), WALK_PER_MOVE.into()));
    }
    let game = nodes[0]
        .propose(ProposeArgs {
            variant: variant.into(),
            options,
            peer,
            mailbox: None,
            referee,
            witness,
        })
        .await
        .map_err(|e| e.to_string())?;
    output::stdout(&format!("game      {game}\nvariant   {variant}\n"));
    if walk != Walk::Stay {
        return walk_away(&nodes, &game, witnessed, refereed, started, out).await;
    }
    // The demo gives up on a game that stopped moving, not on a long one: a game that
    // moves on a slow machine is played to its end, and one that stalls (as a bot once
    // stalled the physical deck) is reported after `STALL`, not after minutes. What
    // moves is any seat's phase or count of accepted acts.
    let mut seen = vec![];
    let mut moved = Instant::now();
    loop {
        // The second node knows the game once the proposal has reached it.
        let mut done = true;
        let mut now = vec![];
        for n in &nodes[..seated] {
            let view = n
                .show(&game)
                .await
                .ok()
                .map(|v| (v.table.phase, v.table.ply));
            done &= view.is_some_and(|(phase, _)| phase == Stage::Done);
            now.push(view);
        }
        if done {
            break;
        }
        if now != seen {
            seen = now;
            moved = Instant::now();
        }
        if moved.elapsed() > STALL {
            let mut views = String::new();
            for n in &nodes {
                views.push_str(&n.show_text(&game).await.unwrap_or_default());
                views.push('\n');
            }
            return Err(format!("the game did not finish:\n{views}"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let bytes = nodes[0]
        .transcript(&game)
        .await
        .map_err(|e| e.to_string())?;
    for n in &nodes[1..seated] {
        if bytes != n.transcript(&game).await.map_err(|e| e.to_string())? {
            return Err("the nodes hold different transcripts".into());
        }
    }
    let board = nodes[0].show_text(&game).await.map_err(|e| e.to_string())?;
    for n in &nodes {
        let _ = n.shutdown().await;
    }
    write(out, &bytes)?;
    let checked = sealed_games::variant::check_transcript(&bytes).map_err(|e| e.to_string())?;
    Ok(report(&board, &checked, "none", started))
}

/// The walk-away: once a few moves are made, the second player's node stops; then the
/// first's node either proves him late (with a witness: the game ends) or claims a
/// timeout (without: the demo stops at the claim; in Secret Stallmate at the referee's
/// close of the walker's period). The first player's transcript is verified either way.
async fn walk_away(
    nodes: &[sealed_node::NodeHandle],
    game: &str,
    witnessed: bool,
    refereed: bool,
    started: Instant,
    out: std::fs::File,
) -> Result<i32, String> {
    let limit = Duration::from_secs(120);
    loop {
        let v = nodes[0].show(game).await.ok();
        let (phase, ply) = v.map_or((None, 0), |v| (Some(v.table.phase), v.table.ply));
        if phase == Some(Stage::Play) && ply >= 2 {
            break;
        }
        if phase == Some(Stage::Done) || started.elapsed() > limit {
            return Err("the game ended before anyone could walk away".into());
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let _ = nodes[1].shutdown().await;
    let at = nodes[0].show(game).await.map_or(0, |v| v.table.ply);
    output::stdout(&format!(
        "bot 2 walks away at ply {} ({} s per move agreed{})\n",
        at,
        WALK_PER_MOVE.trim_end_matches('s'),
        if witnessed {
            ", a witness watches"
        } else {
            ", no witness"
        }
    ));
    let bytes = loop {
        // The phase first, then the transcript: read the other way round, a game that
        // ended in between was reported from the envelopes before its last (exit 3).
        let done = nodes[0]
            .show(game)
            .await
            .is_ok_and(|v| v.table.phase == Stage::Done);
        let bytes = nodes[0].transcript(game).await.map_err(|e| e.to_string())?;
        let checked = sealed_games::variant::check_transcript(&bytes).map_err(|e| e.to_string())?;
        let claimed = checked
            .verdict
            .claims
            .iter()
            .any(|c| c.about == sealed_protocol::verdict::ClaimAbout::Timeout);
        let closed = refereed && checked.verdict.board.is_some();
        let complete = done && checked.verdict.complete;
        if (witnessed && complete) || (!witnessed && (claimed || closed)) {
            break bytes;
        }
        if started.elapsed() > limit {
            return Err("nothing came of the walk-away in time".into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    for (i, n) in nodes.iter().enumerate() {
        if i != 1 {
            let _ = n.shutdown().await;
        }
    }
    write(out, &bytes)?;
    let checked = sealed_games::variant::check_transcript(&bytes).map_err(|e| e.to_string())?;
    let none = if refereed {
        "none (the referee's word on time is a claim)"
    } else {
        "none (a timeout is only claimed)"
    };
    Ok(report("", &checked, none, started))
}

/// Prints what the demo's transcript verifies to, after the board (if any); the exit
/// code `sealed verify` would give it.
fn report(
    board: &str,
    checked: &sealed_protocol::transcript::Checked,
    no_result: &str,
    started: Instant,
) -> i32 {
    let v = &checked.verdict;
    let result = v
        .outcome
        .as_ref()
        .map_or(no_result.to_string(), ToString::to_string);
    let board = if board.is_empty() {
        String::new()
    } else {
        format!("{board}\n")
    };
    output::stdout(&format!(
        "{board}result    {result}\nstatus    {:?}\nenvelopes {}\ntime      {:.1} s over libp2p on 127.0.0.1\nverify    exit {}\n",
        v.status,
        v.envelopes,
        started.elapsed().as_secs_f64(),
        checked.exit_code()
    ));
    checked.exit_code()
}

/// Writes the transcript to its file, to the disk (`sync_all`) before the file is named.
fn write(mut file: std::fs::File, bytes: &[u8]) -> Result<(), String> {
    std::io::Write::write_all(&mut file, bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("the transcript: {e}"))
}

fn tempdir() -> Result<std::path::PathBuf, String> {
    let name = format!(
        "sealed-demo-{}-{}",
        std::process::id(),
        hex(crate::random_tag())
    );
    let dir = std::env::temp_dir().join(name);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

fn hex(b: [u8; 4]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
