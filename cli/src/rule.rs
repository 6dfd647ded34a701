//! `sealed rule`: the arbiter of a Tempête game with the physical deck (spec/GAMES.md
//! §4.20). He sees only public envelopes — a transcript a player exported and sent
//! him — and needs no node: with no dispute named, the command lists the disputes and
//! what they are about; with one, it signs his ruling with his home's key and prints the
//! line a player pastes into `sealed move`.

use std::path::Path;

use sealed_games::tempete::Tempete;
use sealed_games::tempete::physical::notation;
use sealed_games::tempete::physical::ruling::sign_ruling;
use sealed_games::tempete::physical::view::claims_text;
use sealed_node::Home;
use sealed_protocol::proposal::Terms;
use sealed_protocol::transcript::{TranscriptFile, check_with_terms};
use sealed_protocol::wire::MAX_TRANSCRIPT;

use crate::exit;
use crate::input::read_capped;
use crate::output;

/// Runs the command; returns the exit code.
pub fn run(home: &Home, file: &Path, dispute: Option<u32>, words: &[String]) -> i32 {
    match rule(home, file, dispute, &words.join(" ")) {
        Ok(text) => {
            output::stdout(&text);
            0
        }
        Err(e) => {
            output::error(&e);
            exit::UNREADABLE
        }
    }
}

fn rule(home: &Home, path: &Path, dispute: Option<u32>, words: &str) -> Result<String, String> {
    let bytes =
        read_capped(path, MAX_TRANSCRIPT).map_err(|e| format!("{}: {e}", path.display()))?;
    let file =
        TranscriptFile::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let terms = Terms::parse(&file.proposal).map_err(|e| e.to_string())?;
    if terms.variant() != sealed_games::tempete::VARIANT {
        return Err(format!("a {} game has no arbiter", terms.variant()));
    }
    let (engine, _) = check_with_terms::<Tempete>(&file, terms).map_err(|e| e.to_string())?;
    let physical = engine
        .rules()
        .physical
        .as_ref()
        .ok_or("this game plays the open deck: there is nothing to rule on")?;
    let key = home.key().map_err(|e| e.to_string())?;
    if physical.arbiter.map(|a| a.to_bytes()) != Some(key.public().to_bytes()) {
        return Err("you are not this game's arbiter: its terms name another key".into());
    }
    let state = engine.state().ok_or("the game has not started")?;
    let Some(d) = dispute else {
        let text = claims_text(&engine, None, state);
        return Ok(if text.is_empty() {
            "nothing to rule on: no act is disputed\n".into()
        } else {
            text
        });
    };
    let open = state
        .claims
        .disputes
        .get(d as usize)
        .filter(|x| x.is_open() && !engine.rules().lapsed(state, x))
        .ok_or_else(|| format!("dispute {d} is not open (or its time to rule has passed)"))?;
    let read = notation::read(state.board.position(), words)?;
    if read.lasting > 0 || read.trap.is_some() || read.cite.is_some() || read.signature.is_some() {
        return Err("a ruling is board edits and a note only".into());
    }
    let coin = *engine.coin().ok_or("the game has not started")?;
    let signature = sign_ruling(&key, &coin, d, &read.edits, &read.note);
    let act = sealed_games::tempete::act::Act::Ruling {
        dispute: d,
        edits: read.edits,
        note: read.note,
        signature,
    };
    let line = sealed_games::tempete::command::write(&act, &|_| None, None)
        .ok_or("the ruling cannot be written")?;
    Ok(format!(
        "your ruling on dispute {d} (act {}, by {:?}); a player posts it with\n  sealed move <game> '{line}'\n",
        open.act, open.claimant
    ))
}
