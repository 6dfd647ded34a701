//! The commands that talk to a running node through its control socket.

use sealed_games::table::Generic;
use std::path::{Path, PathBuf};

use sealed_node::control::{CallError, ControlRequest, FromAnswer, Proposal, Transcript, call};
use sealed_node::core::{GameSummary, GameView, Imported, ShowFormat};
use sealed_node::handover::StoreWait;
use sealed_node::offline::Answerer;
use sealed_node::{Home, core::players};
use serde::de::IgnoredAny;

use crate::{json, output};

/// Runs one request against the home's node, or, with no node running, against its
/// store directly (the commands that need no network; `sealed_node::offline`), as the
/// type the request answers ([`FromAnswer`]; `IgnoredAny` when only success matters);
/// prints the error and returns 2 on failure.
pub fn ask<T: FromAnswer>(home: &Home, req: ControlRequest) -> Result<T, i32> {
    let fail = |e: String| {
        output::error(&e);
        2
    };
    match call(&home.socket_path(), &req) {
        Ok(v) => Ok(v),
        Err(CallError::NoNode { .. }) if sealed_node::control::core_command(&req).is_some() => {
            let (v, by) = sealed_node::offline::answer(home, &req, store_wait())
                .map_err(|e| fail(e.to_string()))?;
            if by == Answerer::Store && changes(&req) {
                output::note(&format!(
                    "the node is not running: done in its store; it goes out when `{}` starts",
                    home.command("node")
                ));
            }
            Ok(v)
        }
        Err(e) => Err(fail(e.to_string())),
    }
}

/// How long a command waits for a store held by a starting node or another command,
/// saying so on stderr.
pub fn store_wait() -> StoreWait {
    StoreWait {
        say: output::note,
        ..StoreWait::default()
    }
}

/// Whether a request changes a game (so that, with the node stopped, its player is told
/// that nothing left yet; `move`, `accept` and `decline` say it in their own line).
fn changes(req: &ControlRequest) -> bool {
    matches!(req, ControlRequest::MailImport { .. })
}

fn done<T>(r: Result<T, i32>, then: impl FnOnce(T) -> String) -> i32 {
    match r {
        Ok(v) => {
            if output::stdout(&then(v)) {
                0
            } else {
                2
            }
        }
        Err(code) => code,
    }
}

/// `sealed init`.
pub fn init(home: &Home, name: &str) -> i32 {
    match home.init(name) {
        Ok(key) => {
            let peer = sealed_node::net::keypair(&key.seed()).public().to_peer_id();
            let text = format!("home      {}\npeer id   {peer}\n", home.dir.display());
            if output::stdout(&text) { 0 } else { 2 }
        }
        Err(e) => {
            output::error(&e.to_string());
            2
        }
    }
}

/// `sealed dial`.
pub fn dial(home: &Home, addr: &str) -> i32 {
    done(
        ask::<()>(home, ControlRequest::Dial { addr: addr.into() }),
        |()| "connected\n".into(),
    )
}

/// The other nodes a proposal names besides the opponent, by address.
pub struct Helpers<'a> {
    /// A mailbox both players trust.
    pub mailbox: Option<&'a str>,
    /// The referee (Secret Stallmate).
    pub referee: Option<&'a str>,
    /// A witness for time (protocol version 2).
    pub witness: Option<&'a str>,
    /// The arbiter (Tempête's physical deck), also the game's mailbox.
    pub arbiter: Option<&'a str>,
}

/// `sealed new`.
pub fn new(
    home: &Home,
    variant: &str,
    peer: &str,
    helpers: Helpers<'_>,
    options: &[String],
    wait: std::time::Duration,
) -> i32 {
    let mut opts = vec![];
    for o in options {
        let Some((k, v)) = o.split_once('=') else {
            output::error(&format!("option {o:?} is not key=value"));
            return 2;
        };
        opts.push((k.trim().to_owned(), v.trim().to_owned()));
    }
    let req = ControlRequest::New(Proposal {
        variant: variant.into(),
        options: opts,
        peer: peer.into(),
        mailbox: helpers.mailbox.map(str::to_owned),
        referee: helpers.referee.map(str::to_owned),
        witness: helpers.witness.map(str::to_owned),
        arbiter: helpers.arbiter.map(str::to_owned),
    });
    let game: String = match ask(home, req) {
        Ok(id) => id,
        Err(code) => return code,
    };
    // The id first: the game exists (durable) whatever becomes of its delivery.
    if !output::stdout(&format!("{game}\n")) {
        return 2;
    }
    let deadline = std::time::Instant::now() + wait;
    let mut said = String::new();
    // Quick at first (a peer on the LAN answers in milliseconds), then gentler.
    let mut pause = std::time::Duration::from_millis(5);
    loop {
        if let Ok(games) = ask::<Vec<GameSummary>>(home, ControlRequest::Games) {
            let state = games
                .into_iter()
                .find(|g| g.game == game)
                .and_then(|g| g.invitation);
            match state {
                Some(s) if s.delivered() => {
                    output::note(&format!("invitation {s}"));
                    return 0;
                }
                Some(s) => said = s.to_string(),
                // Accepted already (or no longer an invitation): it got there.
                None => return 0,
            }
        }
        if std::time::Instant::now() >= deadline {
            output::error(&format!(
                "invitation {said} (after {} s; the node keeps trying)",
                wait.as_secs()
            ));
            return 3;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(std::time::Duration::from_millis(200));
    }
}

/// `sealed accept` / `decline`.
pub fn decide(home: &Home, game: &str, accept: bool) -> i32 {
    let req = if accept {
        ControlRequest::Accept { game: game.into() }
    } else {
        ControlRequest::Decline { game: game.into() }
    };
    // One line saying what was done, as after every command that changes a game.
    let what = if accept { "accepted" } else { "declined" };
    let asked = ask::<IgnoredAny>(home, req);
    // Looked at after: a node that started while the command waited was asked, or
    // offers what the store holds now.
    let running = sealed_node::control::answers(&home.socket_path());
    done(asked, |_| {
        let mut s = if running {
            format!("{game}: {what}; your node tells the other seats\n")
        } else {
            format!(
                "{game}: {what}, in the store; it goes out when `{}` starts\n",
                home.command("node")
            )
        };
        if accept && let Some(t) = crate::trusted::line(home, game) {
            s.push_str(&t);
        }
        s
    })
}

/// `sealed withdraw`.
pub fn withdraw(home: &Home, game: &str) -> i32 {
    let asked = ask::<IgnoredAny>(home, ControlRequest::Withdraw { game: game.into() });
    // Looked at after, as in `decide`.
    let running = sealed_node::control::answers(&home.socket_path());
    done(asked, |_| {
        if running {
            format!("{game}: withdrawn; your node tells the other seats\n")
        } else {
            format!(
                "{game}: withdrawn, in the store; it goes out when `{}` starts\n",
                home.command("node")
            )
        }
    })
}

/// `sealed resume`.
pub fn resume(home: &Home, game: &str) -> i32 {
    done(
        ask::<IgnoredAny>(home, ControlRequest::Resume { game: game.into() }),
        |_| format!("{game}: taken up again\n"),
    )
}

/// `sealed games`.
pub fn games(home: &Home, json: bool) -> i32 {
    done(
        ask::<Vec<GameSummary>>(home, ControlRequest::Games),
        |list| {
            if json {
                return json::line(&list);
            }
            let mut s = String::new();
            for g in list {
                let id = g.game.as_str();
                // The ply unpadded, as it has always been printed.
                s.push_str(&format!(
                    "{}  {:<9} {:<9} {} ply {} {}\n",
                    &id[..id.len().min(12)],
                    g.variant,
                    g.status,
                    if g.my_turn { "*" } else { " " },
                    g.ply,
                    g.waiting_for,
                ));
                let indent =
                    |s: &mut String, line: String| s.push_str(&format!("{:14}{line}\n", ""));
                let players = &g.players;
                if !players.is_empty() {
                    indent(&mut s, players::line(players));
                }
                let options = &g.options;
                if g.status == sealed_node::core::GameState::Invited {
                    // Who asks, and on what terms, before the player accepts.
                    let from = players
                        .iter()
                        .find(|p| p.seat == 0)
                        .map(|p| players::line(std::slice::from_ref(p)))
                        .unwrap_or_default();
                    indent(
                        &mut s,
                        format!(
                            "invitation from {from}: `{}` or `{}`",
                            home.command(&format!("accept {}", &id[..id.len().min(12)])),
                            home.command(&format!("decline {}", &id[..id.len().min(12)])),
                        ),
                    );
                }
                if g.status == sealed_node::core::GameState::Invited && !g.helpers.is_empty() {
                    // Whom accepting means trusting, besides the other player.
                    let list: Vec<String> = g
                        .helpers
                        .iter()
                        .map(|h| format!("{} {}", h.role, h.peer))
                        .collect();
                    indent(&mut s, format!("you would trust: {}", list.join(", ")));
                }
                let invited = g.status == sealed_node::core::GameState::Invited;
                if !options.is_empty() {
                    indent(&mut s, format!("options: {}", options.join(" ")));
                } else if invited {
                    // Every term is said before the player accepts, the defaults too.
                    indent(&mut s, "options: none (the variant's own rules)".into());
                }
                if let Some(r) = &g.result {
                    indent(&mut s, format!("result: {r}"));
                }
                if let Some(clock) = &g.clock {
                    indent(&mut s, format!("clock: {clock}"));
                } else if invited {
                    indent(
                        &mut s,
                        "clock: none (no time control: nobody loses on time)".into(),
                    );
                }
                if let Some(inv) = &g.invitation {
                    indent(&mut s, format!("invitation {inv}"));
                }
                if let Some(why) = &g.witness_refused {
                    indent(&mut s, sealed_node::core::witness_refused_line(why));
                }
            }
            if s.is_empty() { "no games\n".into() } else { s }
        },
    )
}

/// `sealed show`.
pub fn show(home: &Home, game: &str, json: bool, svg: Option<&Path>) -> i32 {
    if let Some(path) = svg {
        let r = ask::<Option<String>>(
            home,
            ControlRequest::Show {
                game: game.into(),
                format: ShowFormat::Svg,
            },
        );
        match r {
            Ok(Some(s)) => {
                if let Err(e) = std::fs::write(path, s) {
                    output::error(&format!("{}: {e}", path.display()));
                    return 2;
                }
            }
            Ok(None) => {
                output::error("this game has no board to draw");
                return 2;
            }
            Err(code) => return code,
        }
    }
    let req = |format| ControlRequest::Show {
        game: game.into(),
        format,
    };
    if json {
        done(ask::<GameView>(home, req(ShowFormat::Json)), |view| {
            json::line(&view)
        })
    } else {
        done(ask::<String>(home, req(ShowFormat::Text)), |text| text)
    }
}

/// Longest action text sent to the node: longer than any move, card play or attempt.
const MAX_ACTION: usize = 512;

/// `sealed move`, `resign`, `draw offer|accept`: on success, one line saying what was done
/// and where the game stands.
pub fn act(home: &Home, game: &str, text: &str, expect: Option<usize>) -> i32 {
    if text.len() > MAX_ACTION {
        output::error(&format!(
            "{}: longer than any move ({} bytes; at most {MAX_ACTION})",
            sealed_node::text::shown(text, 40),
            text.len()
        ));
        return 2;
    }
    made(
        home,
        game,
        text,
        ControlRequest::Move {
            game: game.into(),
            text: text.into(),
            expect,
        },
    )
}

/// Sends a generic command (resign, offer or accept a draw) as a value, and says where
/// it is as [`act`] does.
pub fn generic(home: &Home, game: &str, generic: Generic) -> i32 {
    made(
        home,
        game,
        generic.words(),
        ControlRequest::Generic {
            game: game.into(),
            generic,
            expect: None,
        },
    )
}

/// Sends a player's act, then says where it is (`text`: the act as the person reads it).
fn made(home: &Home, game: &str, text: &str, req: ControlRequest) -> i32 {
    if let Err(code) = ask::<IgnoredAny>(home, req) {
        return code;
    }
    // Made and stored; a running node sends it on to the other seats: wait a little for
    // them (or a mailbox) to say it is durable there, and say where it is.
    let running = sealed_node::control::answers(&home.socket_path());
    let deadline = std::time::Instant::now() + DELIVERY_WAIT;
    let mut pause = std::time::Duration::from_millis(5);
    let now = loop {
        let v = ask::<GameView>(
            home,
            ControlRequest::Show {
                game: game.into(),
                format: ShowFormat::Json,
            },
        )
        .ok();
        let delivered = v
            .as_ref()
            .and_then(|v| v.delivery.as_ref())
            .is_none_or(|d| !d.pending());
        if !running || delivered || std::time::Instant::now() >= deadline {
            break v;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(std::time::Duration::from_millis(100));
    };
    let at = now
        .as_ref()
        .map(|v| format!(" (ply {})", v.table.ply))
        .unwrap_or_default();
    let delivery = match (running, now.as_ref().and_then(|v| v.delivery.as_ref())) {
        (false, _) => format!(
            ", kept in the store: it goes out when `{}` starts",
            home.command("node")
        ),
        (true, Some(d)) if d.pending() => format!(", {d}: the node keeps trying"),
        (true, Some(d)) => format!(", {d}"),
        (true, None) => String::new(),
    };
    let next = now
        .as_ref()
        .map(|v| &v.table.waiting_for)
        .map(|w| format!("; {}", w.strip_prefix("nothing: ").unwrap_or(w)))
        .unwrap_or_default();
    let refused = now
        .as_ref()
        .and_then(|v| v.witness_refused.as_deref())
        .map(|why| format!("; {}", sealed_node::core::witness_refused_line(why)))
        .unwrap_or_default();
    let verb = if running { "sent" } else { "made" };
    i32::from(!output::stdout(&format!(
        "{text}: {verb}{at}{delivery}{refused}{next}\n"
    ))) * 2
}

/// How long `sealed move` waits for the other seats (or a mailbox) to say they hold the
/// move before it says so: a peer on the LAN answers in milliseconds; one that is away
/// gets it later, and the command says that instead.
const DELIVERY_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// Where `sealed export` writes each part.
pub struct ExportTo<'a> {
    /// The transcript file.
    pub transcript: Option<&'a Path>,
    /// The score text.
    pub score: Option<&'a Path>,
    /// The PGN.
    pub pgn: Option<&'a Path>,
}

/// `sealed export`: fetches every part asked for, writes those the game has, and says
/// each written and each missing.
pub fn export(home: &Home, game: &str, to: &ExportTo<'_>) -> i32 {
    if to.transcript.is_none() && to.score.is_none() && to.pgn.is_none() {
        output::error("say --transcript FILE, --score FILE and/or --pgn FILE");
        return 2;
    }
    let mut files: Vec<(&Path, Vec<u8>)> = vec![];
    if let Some(path) = to.transcript {
        match ask::<Transcript>(home, ControlRequest::Transcript { game: game.into() }) {
            Ok(Transcript(b)) => files.push((path, b)),
            Err(code) => return code,
        }
    }
    let texts = [
        (
            to.score,
            ControlRequest::Score { game: game.into() },
            "score",
        ),
        (to.pgn, ControlRequest::Pgn { game: game.into() }, "PGN"),
    ];
    // What the game has is written even when one of the files asked for does not
    // exist (a Cardmate has no PGN): each missing one is said.
    let mut missing = 0;
    for (path, req, what) in texts {
        let Some(path) = path else { continue };
        match ask::<Option<String>>(home, req) {
            Ok(Some(s)) => files.push((path, s.into_bytes())),
            Ok(None) => {
                missing += 1;
                output::error(&format!(
                    "{}: not written: this game has no {what} (PGN is for games on a chess board; a score exists once the game has started)",
                    path.display()
                ));
            }
            Err(code) => return code,
        }
    }
    let mut said = String::new();
    for (path, bytes) in &files {
        if let Err(e) = std::fs::write(path, bytes) {
            output::error(&format!("{}: {e}", path.display()));
            return 2;
        }
        said.push_str(&format!(
            "{} written ({} bytes)\n",
            path.display(),
            bytes.len()
        ));
    }
    if !output::stdout(&said) {
        return 2;
    }
    match (files.is_empty(), missing) {
        (true, _) => 2,
        (false, 0) => 0,
        // Written, but not all that was asked: said above.
        (false, _) => 1,
    }
}

/// `sealed mail export|import`.
pub fn mail(home: &Home, what: &str, arg: &str, out: Option<&PathBuf>) -> i32 {
    match what {
        "export" => match ask::<String>(home, ControlRequest::MailExport { game: arg.into() }) {
            Ok(text) => {
                match out {
                    Some(path) => match std::fs::write(path, &text) {
                        // Said like every other file the command line writes.
                        Ok(()) => {
                            let said =
                                format!("{} written ({} bytes)\n", path.display(), text.len());
                            i32::from(!output::stdout(&said)) * 2
                        }
                        Err(e) => {
                            output::error(&format!("{}: {e}", path.display()));
                            2
                        }
                    },
                    None if output::stdout(&text) => 0,
                    None => 2,
                }
            }
            Err(code) => code,
        },
        "import" => {
            // Mail comes from the opponent: read as a stream, capped, before the node
            // sees a byte of it; what the node gets is the mails armored again.
            let read = if arg == "-" {
                sealed_node::mail::read_mail(std::io::stdin().lock())
            } else {
                match std::fs::File::open(arg) {
                    Ok(f) => sealed_node::mail::read_mail(f),
                    Err(e) => {
                        output::error(&format!("{arg}: {e}"));
                        return 2;
                    }
                }
            };
            let mails = match read {
                Ok(m) => m,
                Err(e) => {
                    output::error(&format!("{arg}: {e}"));
                    return 2;
                }
            };
            let text: String = mails
                .iter()
                .map(|m| sealed_node::mail::armor(&[0; 32].into(), m))
                .collect();
            match ask::<Imported>(home, ControlRequest::MailImport { text }) {
                Ok(Imported { games, refused }) => {
                    let games: String = games.iter().map(|g| format!("{g} imported\n")).collect();
                    for r in &refused {
                        output::error(r);
                    }
                    match (output::stdout(&games), refused.is_empty()) {
                        (false, _) => 2,
                        (true, true) => 0,
                        // Taken, but not all of it: said above, envelope by envelope.
                        (true, false) => 1,
                    }
                }
                Err(code) => code,
            }
        }
        other => {
            output::error(&format!("mail {other:?}: say export or import"));
            2
        }
    }
}
