//! `sealed`: the command line of sealed.
//!
//! `sealed verify` checks transcript files and `sealed replay` checks score files; both
//! work without a node or a network. `sealed node` runs a node; the game commands talk
//! to it through its control socket, and `sealed ui` opens its board in a browser;
//! `sealed demo` runs two nodes and a whole game. Every outcome is an exit code a script can act on
//! (see `cli/JSON.md` for the codes and the `--json` document), and no input, however
//! malformed, makes the program panic.
//!
//! Commands: `verify`, `replay`, `init`, `node`, `ui` (`ui.rs`: the board started on
//! the node's runtime on first use, its port kept), `referee`, `dial`, `peers`,
//! `mailbox`, `new`, `accept` (whom it means trusting: `trusted.rs`), `decline`,
//! `withdraw`, `games`, `show`, `move`, `resign`, `draw`, `export`, `mail`,
//! `completions`, `man`, `demo`; a node's ports are kept from one start to the next
//! (`ports.rs`).

#![forbid(unsafe_code)]

mod args;
mod demo;
mod docs;
mod exit;
mod input;
mod json;
mod output;
mod play;
mod ports;
mod reach;
mod replay;
mod report;
mod rule;
mod run_node;
mod trusted;
mod ui;
mod verify;

use clap::Parser;

use crate::args::{Cli, Command};
use sealed_games::table::Generic;

fn main() {
    // Fault points from `FAILPOINTS`, in a build made for the crash tests only.
    let _faults = sealed_node::faults::setup();
    let cli = Cli::parse();
    let home = sealed_node::Home::locate(cli.home.as_deref());
    // Every command that reads the home checks its key first; `verify`, `replay` and
    // `demo` use none.
    if !matches!(
        cli.command,
        Command::Verify { .. }
            | Command::Replay { .. }
            | Command::Demo { .. }
            | Command::Completions { .. }
            | Command::Man
    ) {
        match home.protect_key() {
            Ok(Some(warning)) => output::error(&warning),
            Ok(None) => {}
            Err(e) => output::error(&format!("warning: {e}")),
        }
    }
    let code = match cli.command {
        Command::Verify { path, json } => verify::run(&path, json),
        Command::Replay { variant, file, svg } => replay::run(&variant, &file, svg.as_deref()),
        Command::Init { name } => play::init(&home, &name),
        Command::Rule {
            game,
            dispute,
            ruling,
        } => rule::run(&home, game.as_deref(), dispute, &ruling),
        Command::Node {
            listen,
            mailbox,
            relay,
            no_mdns,
            via,
            bots,
            no_announce,
            only_known,
            witness,
            ui,
            open_total,
            keep_open,
            keep_idle,
        } => run_node::run(
            &home,
            run_node::NodeArgs {
                listen,
                mailbox,
                witness,
                relay,
                no_mdns,
                via,
                bots,
                referee: false,
                announce: !no_announce,
                strangers: !only_known,
                ui: ui.then_some(false),
                held: Some((open_total, keep_open, keep_idle)),
            },
        ),
        Command::Ui { no_open, listen } => match ui::ask_running(&home, !no_open) {
            Some(code) => code,
            None => run_node::run(
                &home,
                run_node::NodeArgs {
                    ui: Some(!no_open),
                    ..run_node::NodeArgs::plain(listen)
                },
            ),
        },
        Command::Referee {
            listen,
            no_mdns,
            via,
        } => run_node::run(
            &home,
            run_node::NodeArgs {
                no_mdns,
                via,
                referee: true,
                ..run_node::NodeArgs::plain(listen)
            },
        ),
        Command::Dial { addr } => play::dial(&home, &addr),
        Command::Peers { json } => reach::peers(&home, json),
        Command::Mailbox { addr, clear } => reach::mailbox(&home, addr.as_deref(), clear),
        Command::New {
            variant,
            peer,
            wait,
            mailbox,
            referee,
            no_referee,
            witness,
            arbiter,
            options,
        } => match without_referee(&variant, no_referee) {
            Err(code) => code,
            Ok(variant) => play::new(
                &home,
                &variant,
                &peer,
                play::Helpers {
                    mailbox: mailbox.as_deref(),
                    referee: referee.as_deref(),
                    witness: witness.as_deref(),
                    arbiter: arbiter.as_deref(),
                },
                &options,
                std::time::Duration::from_secs(wait),
            ),
        },
        Command::Accept { game } => play::decide(&home, &game, true),
        Command::Decline { game } => play::decide(&home, &game, false),
        Command::Withdraw { game } => play::withdraw(&home, &game),
        Command::Resume { game } => play::resume(&home, &game),
        Command::Games { json } => play::games(&home, json),
        Command::Show { game, json, svg } => play::show(&home, &game, json, svg.as_deref()),
        Command::Move {
            game,
            action,
            expect,
        } => play::act(&home, &game, &action.join(" "), expect),
        Command::Resign { game } => play::generic(&home, &game, Generic::Resign),
        Command::Draw { what, game } => match what.as_str() {
            "offer" => play::generic(&home, &game, Generic::OfferDraw),
            "accept" => play::generic(&home, &game, Generic::AcceptDraw),
            other => {
                output::error(&format!("draw {other:?}: say offer or accept"));
                2
            }
        },
        Command::Export {
            game,
            transcript,
            score,
            pgn,
        } => play::export(
            &home,
            &game,
            &play::ExportTo {
                transcript: transcript.as_deref(),
                score: score.as_deref(),
                pgn: pgn.as_deref(),
            },
        ),
        Command::Mail { what, arg, out } => play::mail(&home, &what, &arg, out.as_ref()),
        Command::Demo {
            variant,
            seed,
            out,
            walk_away,
            no_witness,
            no_referee,
            deck,
            options,
        } => {
            let variant = match without_referee(&variant, no_referee) {
                Ok(v) => v,
                Err(code) => std::process::exit(code),
            };
            let walk = match (walk_away, no_witness) {
                (false, _) => demo::Walk::Stay,
                (true, false) => demo::Walk::AwayWitnessed,
                (true, true) => demo::Walk::AwayUnwitnessed,
            };
            demo::run(
                &variant,
                seed,
                walk,
                deck.as_deref(),
                &options,
                out.as_deref(),
            )
        }
        Command::Completions { shell } => docs::completions(shell),
        Command::Man => docs::man(),
    };
    std::process::exit(code);
}

/// A few random bytes to name temporary folders.
fn random_tag() -> [u8; 4] {
    let r = sealed_node::home::random32().unwrap_or_default();
    [r[0], r[1], r[2], r[3]]
}

/// The variant a command plays: `stallmate` with `--no-referee` is `stallmate-duo`
/// (spec/GAMES.md §5.15). Exit code 2 for `--no-referee` with another game.
fn without_referee(variant: &str, no_referee: bool) -> Result<String, i32> {
    if !no_referee {
        return Ok(variant.to_owned());
    }
    match variant {
        sealed_games::stallmate::VARIANT | sealed_games::stallmate::duo::VARIANT => {
            Ok(sealed_games::stallmate::duo::VARIANT.to_owned())
        }
        other => {
            output::error(&format!(
                "--no-referee is for stallmate (every other game has no referee): not {other}"
            ));
            Err(2)
        }
    }
}
