//! `sealed rule`: the arbiter of a Tempête game with the physical deck (spec/GAMES.md
//! §4.20). He sees only public envelopes: those his node holds as the game's mailbox
//! (the players named it with `--arbiter`), or a transcript a player exported and sent
//! him. With no dispute named, the command lists the disputes and what they are about;
//! with one, it signs his ruling with his home's key and prints the line a player pastes
//! into `sealed move`. For a game his node holds, the node also keeps the ruling and
//! sends it to the players' nodes, which post it themselves (`sealed_node::core`
//! `rulings.rs`).

use std::path::Path;

use sealed_games::tempete::Tempete;
use sealed_games::tempete::physical::notation;
use sealed_games::tempete::physical::ruling::sign_ruling;
use sealed_games::tempete::physical::view::claims_text;
use sealed_node::Home;
use sealed_node::control::ControlRequest;
use sealed_node::core::GameSummary;
use sealed_protocol::proposal::Terms;
use sealed_protocol::transcript::{TranscriptFile, check_with_terms};
use sealed_protocol::wire::MAX_TRANSCRIPT;

use crate::exit;
use crate::input::read_capped;
use crate::output;
use crate::play::ask;

/// Runs the command; returns the exit code.
pub fn run(home: &Home, game: Option<&str>, dispute: Option<u32>, words: &[String]) -> i32 {
    let said = match game {
        None => inbox(home),
        Some(g) if Path::new(g).is_file() => {
            read_file(Path::new(g)).and_then(|f| Ok(rule(home, &f, dispute, &words.join(" "))?.0))
        }
        Some(g) => held(home, g, dispute, &words.join(" ")),
    };
    match said {
        Ok(text) => {
            output::stdout(&text);
            0
        }
        Err(Why::Text(e)) => {
            output::error(&e);
            exit::UNREADABLE
        }
        Err(Why::Said) => exit::UNREADABLE,
    }
}

type Said = Result<String, Why>;

/// Why the command failed: in words to print, or said already by the node's request.
enum Why {
    Text(String),
    Said,
}

impl From<String> for Why {
    fn from(s: String) -> Why {
        Why::Text(s)
    }
}

impl From<&str> for Why {
    fn from(s: &str) -> Why {
        Why::Text(s.into())
    }
}

fn read_file(path: &Path) -> Result<TranscriptFile, Why> {
    let bytes =
        read_capped(path, MAX_TRANSCRIPT).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(TranscriptFile::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))?)
}

/// The public envelopes this home's node holds of a game, as a transcript.
fn from_node(home: &Home, game: &str) -> Result<TranscriptFile, Why> {
    let text: String =
        ask(home, ControlRequest::MailExport { game: game.into() }).map_err(|_| Why::Said)?;
    let mut mails = sealed_node::mail::dearmor(&text)
        .map_err(|e| format!("the node's copy of game {game}: {e}"))?;
    let m = mails
        .pop()
        .ok_or_else(|| format!("the node holds nothing of game {game}"))?;
    Ok(TranscriptFile {
        proposal: m.proposal,
        envelopes: m.envelopes,
        evidence: vec![],
    })
}

/// A game this home's node relays: its disputes, or a ruling kept and sent.
fn held(home: &Home, game: &str, dispute: Option<u32>, words: &str) -> Said {
    let file = from_node(home, game)?;
    let (said, act) = rule(home, &file, dispute, words)?;
    let (Some(d), Some(act)) = (dispute, act) else {
        return Ok(said);
    };
    let sent: Option<String> = ask(
        home,
        ControlRequest::Ruling {
            game: game.into(),
            dispute: d,
            act,
        },
    )
    .map_err(|_| Why::Said)?;
    Ok(format!(
        "{said}your node has it: {}\n",
        sent.as_deref().unwrap_or("kept")
    ))
}

/// Every game this home's node relays whose terms name this home's key as arbiter,
/// with its open disputes.
fn inbox(home: &Home) -> Said {
    let games: Vec<GameSummary> = ask(home, ControlRequest::Games).map_err(|_| Why::Said)?;
    let mut out = String::new();
    for g in games
        .iter()
        .filter(|g| g.variant == sealed_games::tempete::VARIANT && g.seat.is_none())
    {
        let Ok(file) = from_node(home, &g.game) else {
            continue;
        };
        // Games that name another arbiter, or none, are not listed.
        if let Ok((text, _)) = rule(home, &file, None, "") {
            out.push_str(&format!("game {}:\n{text}", g.game));
        }
    }
    if out.is_empty() {
        out = "no game your node relays names you as its arbiter (the players name your node with `sealed new tempete -o deck=physical --arbiter <its address>`; it keeps their games when it runs as `sealed node --mailbox`)\n".into();
    }
    Ok(out)
}

/// The game checked, this home its arbiter: the disputes listed, or the ruling's line
/// with the ruling as the game act's bytes.
fn rule(
    home: &Home,
    file: &TranscriptFile,
    dispute: Option<u32>,
    words: &str,
) -> Result<(String, Option<Vec<u8>>), Why> {
    let (engine, key) = checked(home, file)?;
    let state = engine.state().ok_or("the game has not started")?;
    let Some(d) = dispute else {
        let text = claims_text(&engine, None, state);
        let text = if text.is_empty() {
            "nothing to rule on: no act is disputed\n".into()
        } else {
            text
        };
        return Ok((text, None));
    };
    let open = state
        .claims
        .disputes
        .get(d as usize)
        .filter(|x| x.is_open() && !engine.rules().lapsed(state, x))
        .ok_or_else(|| format!("dispute {d} is not open (or its time to rule has passed)"))?;
    let act = ruling(&engine, &key, d, words)?;
    let line = sealed_games::tempete::command::write(&act, &|_| None, None)
        .ok_or("the ruling cannot be written")?;
    let text = format!(
        "your ruling on dispute {d} (act {}, by {:?}); a player posts it with\n  sealed move <game> '{line}'\n",
        open.act, open.claimant
    );
    Ok((text, Some(sealed_protocol::wire::encode(&act))))
}

type Checked = (
    sealed_protocol::engine::Engine<Tempete>,
    sealed_protocol::keys::SecretKey,
);

/// The game replayed from its public envelopes, and this home's key, which its terms
/// must name as arbiter.
fn checked(home: &Home, file: &TranscriptFile) -> Result<Checked, Why> {
    let terms = Terms::parse(&file.proposal).map_err(|e| e.to_string())?;
    if terms.variant() != sealed_games::tempete::VARIANT {
        return Err(format!("a {} game has no arbiter", terms.variant()).into());
    }
    let (engine, _) = check_with_terms::<Tempete>(file, terms).map_err(|e| e.to_string())?;
    let physical = engine
        .rules()
        .physical
        .as_ref()
        .ok_or("this game plays the open deck: there is nothing to rule on")?;
    let key = home.key().map_err(|e| e.to_string())?;
    if physical.arbiter.map(|a| a.to_bytes()) != Some(key.public().to_bytes()) {
        return Err("you are not this game's arbiter: its terms name another key".into());
    }
    Ok((engine, key))
}

/// The ruling act: `words` read as board edits and a note, signed over the game's coin.
fn ruling(
    engine: &sealed_protocol::engine::Engine<Tempete>,
    key: &sealed_protocol::keys::SecretKey,
    d: u32,
    words: &str,
) -> Result<sealed_games::tempete::act::Act, String> {
    let state = engine.state().ok_or("the game has not started")?;
    let read = notation::read(state.board.position(), words).map_err(|e| e.to_string())?;
    if read.lasting > 0 || read.trap.is_some() || read.cite.is_some() || read.signature.is_some() {
        return Err("a ruling is board edits and a note only".into());
    }
    let coin = *engine.coin().ok_or("the game has not started")?;
    let signature = sign_ruling(key, &coin, d, &read.edits, &read.note);
    Ok(sealed_games::tempete::act::Act::Ruling {
        dispute: d,
        edits: read.edits,
        note: read.note,
        signature,
    })
}
