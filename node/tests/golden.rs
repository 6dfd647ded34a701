//! Golden replies of the control socket: for a game of each variant, played in the
//! deterministic simulation of node cores (`sim/`: one virtual clock, entropy from a
//! fixed seed, so every game id, deal and time is the same on every run), the exact
//! line the control socket sends back for each request a face makes — `new`, `games`,
//! `show` (json, text, svg), `accept`, `move` (and a refused one), `score`, `pgn`,
//! `peers` — compared byte for byte with the files checked in under
//! `node/tests/golden/control/`. A key renamed, a value's shape or words changed: the
//! test fails and shows the first line that differs.
//!
//! Each request goes the way the control socket takes it: `ControlRequest` (as the
//! CLI serialises it, recorded too) → the core command → the core's answer → the
//! JSON line (as `control::answer` makes it). The proposal is made by the simulated world with
//! the same arguments a `new` request yields.
//!
//! After a deliberate change of what the faces read, regenerate with
//! `SEALED_GOLDEN_WRITE=1 cargo test -p sealed-node --test golden`, read the diff, and
//! commit it with every reader changed together.

use std::fmt::Write as _;
use std::path::PathBuf;

use sealed_node::control::{Answered, ControlRequest, Proposal, Reply, core_command};
use sealed_node::core::ShowFormat;
use sealed_node::core::{Answer, CoreConfig, NodeError};
use sealed_sim::{Faults, World};
use serde_json::Value;

const VARIANTS: [&str; 5] = ["duel", "cardmate", "chex", "tempete", "stallmate"];

fn options(variant: &str) -> Vec<(&'static str, &'static str)> {
    match variant {
        "cardmate" => vec![("setup", "random")],
        "stallmate" => vec![("period", "60s")],
        _ => vec![],
    }
}

/// The transcript of one game's requests and replies, as the files hold it.
struct Log {
    text: String,
}

impl Log {
    fn note(&mut self, who: &str, req: &ControlRequest, line: &str) {
        let req = serde_json::to_string(req).unwrap();
        writeln!(self.text, "{who} → {req}\n← {line}").unwrap();
    }
}

/// A core's reply as the control socket writes it (`control::answer`).
fn reply_line(r: Result<Answer, NodeError>) -> String {
    match r {
        Ok(a) => Reply::Ok {
            ok: Answered::from(a),
        }
        .line(),
        // The records were written before a refusal said whose fault it is.
        Err(e) => serde_json::json!({ "error": e.to_string() }).to_string(),
    }
}

/// Runs one control request at node `i` to its reply, as the socket would send it.
fn control(w: &mut World, i: usize, req: &ControlRequest) -> String {
    let cmd = core_command(req).expect("a core command");
    let id = w.command(i, cmd);
    assert!(
        w.run(120_000, &|w: &World| w.replies.contains_key(&id)),
        "no reply to {req:?}"
    );
    let r: Result<Answer, NodeError> = w.replies.remove(&id).unwrap();
    reply_line(r)
}

/// Lets the world run `ms` of virtual time with nothing asked.
fn settle(w: &mut World, ms: u64) {
    let until = w.now + ms;
    w.run(ms, &|w: &World| w.now >= until);
}

fn show(game: &str, format: ShowFormat) -> ControlRequest {
    ControlRequest::Show {
        game: game.into(),
        format,
    }
}

/// The game's document at node `i`, parsed.
fn doc(w: &mut World, i: usize, game: &str) -> Value {
    let line = control(w, i, &show(game, ShowFormat::Json));
    let v: Value = serde_json::from_str(&line).unwrap();
    v["ok"].clone()
}

/// One game of `variant`, from the proposal to two moves, every reply logged.
fn play(variant: &str) -> String {
    let cfg = |referee: bool| CoreConfig {
        referee,
        idle_unload_ms: u64::MAX / 2,
        ..CoreConfig::default()
    };
    let mut nodes = vec![("alice", 1u8, cfg(false)), ("bob", 2, cfg(false))];
    let refereed = variant == "stallmate";
    if refereed {
        nodes.push(("referee", 3, cfg(true)));
    }
    let mut w = World::new(31, Faults::none(), nodes);
    w.players = vec![0, 1];
    let names = ["alice", "bob", "referee"];
    let mut log = Log {
        text: String::new(),
    };
    let opts = options(variant);
    // The request `sealed new` sends, and the proposal the world makes of it.
    let new = ControlRequest::New(Proposal {
        variant: variant.into(),
        options: opts
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect(),
        peer: sealed_sim::addr_of(&w.key(1)),
        mailbox: None,
        referee: refereed.then(|| sealed_sim::addr_of(&w.key(2))),
        witness: None,
        arbiter: None,
    });
    let id = w.propose(0, 1, variant, &opts, refereed.then_some(2), None);
    assert!(w.run(60_000, &|w: &World| w.replies.contains_key(&id)));
    let line = reply_line(w.replies.remove(&id).unwrap());
    log.note("alice", &new, &line);
    let game = serde_json::from_str::<Value>(&line).unwrap()["ok"]
        .as_str()
        .unwrap()
        .to_owned();
    settle(&mut w, 5_000);
    for (i, who) in [(0, "alice"), (1, "bob")] {
        let line = control(&mut w, i, &ControlRequest::Games);
        log.note(who, &ControlRequest::Games, &line);
        let req = show(&game, ShowFormat::Json);
        let line = control(&mut w, i, &req);
        log.note(who, &req, &line);
    }
    // The proposer cannot accept its own proposal.
    let req = ControlRequest::Accept { game: game.clone() };
    let line = control(&mut w, 0, &req);
    log.note("alice", &req, &line);
    let line = control(&mut w, 1, &req);
    log.note("bob", &req, &line);
    settle(&mut w, 10_000);
    // Two moves, each by the seat whose turn it is, its first choice that asks nothing
    // more; then a move at a ply that has passed.
    for _ in 0..2 {
        let seats = w.nodes.len();
        let mut mover = None;
        // A Secret Stallmate period closes at its end (60 s): wait for it.
        for _ in 0..10 {
            mover = (0..seats).find_map(|i| {
                let d = doc(&mut w, i, &game);
                if d["my_turn"] != Value::Bool(true) {
                    return None;
                }
                let text = d["choices"]
                    .as_array()?
                    .iter()
                    .find(|c| c["ask"].is_null())?["text"]
                    .as_str()?
                    .to_owned();
                Some((i, text, d["ply"].as_u64()? as usize))
            });
            if mover.is_some() {
                break;
            }
            settle(&mut w, 15_000);
        }
        let (i, text, ply) = mover.unwrap_or_else(|| panic!("{variant}: no seat to move"));
        let req = ControlRequest::Move {
            game: game.clone(),
            text,
            expect: Some(ply),
        };
        let line = control(&mut w, i, &req);
        log.note(names[i], &req, &line);
        settle(&mut w, 10_000);
        for (i, who) in [(0, "alice"), (1, "bob")] {
            let req = show(&game, ShowFormat::Json);
            let line = control(&mut w, i, &req);
            log.note(who, &req, &line);
        }
    }
    let stale = ControlRequest::Move {
        game: game.clone(),
        text: "resign".into(),
        expect: Some(0),
    };
    let line = control(&mut w, 0, &stale);
    log.note("alice", &stale, &line);
    let unknown = ControlRequest::Move {
        game: "ffffffff".into(),
        text: "resign".into(),
        expect: None,
    };
    let line = control(&mut w, 0, &unknown);
    log.note("alice", &unknown, &line);
    for (i, who) in [(0, "alice"), (1, "bob")] {
        for req in [
            ControlRequest::Games,
            show(&game, ShowFormat::Text),
            show(&game, ShowFormat::Svg),
            ControlRequest::Score { game: game.clone() },
            ControlRequest::Pgn { game: game.clone() },
            ControlRequest::Peers,
        ] {
            let line = control(&mut w, i, &req);
            log.note(who, &req, &line);
        }
    }
    // A format no face asks for is refused, with its name.
    let bad = show(&game, ShowFormat::Other("yaml".into()));
    let line = control(&mut w, 0, &bad);
    assert_eq!(line, r#"{"error":"no format \"yaml\""}"#);
    let read: ControlRequest = serde_json::from_str(&serde_json::to_string(&bad).unwrap()).unwrap();
    assert!(
        matches!(read, ControlRequest::Show { format: ShowFormat::Other(f), .. } if f == "yaml")
    );
    log.text
}

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/control")
        .join(format!("{name}.txt"))
}

/// Compares `got` with the golden file `name` (or writes it, with
/// `SEALED_GOLDEN_WRITE=1`).
pub fn check(name: &str, got: &str) {
    let path = golden(name);
    if std::env::var_os("SEALED_GOLDEN_WRITE").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; write it with SEALED_GOLDEN_WRITE=1",
            path.display()
        )
    });
    if want != got {
        let (n, (w, g)) = want
            .lines()
            .zip(got.lines())
            .enumerate()
            .find(|(_, (w, g))| w != g)
            .unwrap_or((0, ("(lengths differ)", "")));
        panic!(
            "{}: line {} differs\nwant: {w}\n got: {g}",
            path.display(),
            n + 1
        );
    }
}

#[test]
fn the_control_socket_answers_as_recorded_for_each_variant() {
    for variant in VARIANTS {
        check(variant, &play(variant));
    }
}
