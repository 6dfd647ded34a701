//! Whom accepting a game means trusting besides the other player, said by `sealed
//! accept`: the referee, the witness and the mailboxes the proposal names, each by peer
//! id with the name it announces when the node knows it.

use sealed_node::Home;
use sealed_node::control::{CallError, ControlRequest, FromAnswer, call};
use sealed_node::core::{GameView, PeersView, ShowFormat};

use crate::play::store_wait;

/// Whom a game's players trust besides each other, one line: its referee, witness and
/// mailboxes, each by peer id with the name it announces when the node knows it (a
/// name is the peer's own word; the peer id is what identifies it). `None` when the
/// game names none.
pub fn line(home: &Home, game: &str) -> Option<String> {
    let req = ControlRequest::Show {
        game: game.into(),
        format: ShowFormat::Json,
    };
    let view: GameView = ask_quiet(home, req)?;
    // The names the peers announce, from the node's peer book (none with it stopped).
    let names: std::collections::HashMap<String, String> =
        call::<PeersView>(&home.socket_path(), &ControlRequest::Peers)
            .ok()
            .map(|p| {
                p.peers
                    .into_iter()
                    .filter_map(|p| Some((p.peer?, p.name?)))
                    .collect()
            })
            .unwrap_or_default();
    let named = |peer: &str, name: Option<&str>| match name.filter(|n| !n.is_empty()) {
        Some(n) => format!("{} ({peer})", sealed_protocol::text::name(n)),
        None => peer.to_owned(),
    };
    let mut parts = vec![];
    for p in view.players.iter().filter(|p| p.role == "referee") {
        parts.push(format!("referee {}", named(&p.peer, Some(&p.name))));
    }
    for h in &view.helpers {
        parts.push(format!(
            "{} {}",
            h.role,
            named(&h.peer, names.get(&h.peer).map(String::as_str))
        ));
    }
    (!parts.is_empty()).then(|| format!("you trust: {}\n", parts.join(", ")))
}

/// A request for a line that adds to an answer already given (`play::ask`'s way: the
/// node, else the store): nothing printed on failure.
fn ask_quiet<T: FromAnswer>(home: &Home, req: ControlRequest) -> Option<T> {
    match call(&home.socket_path(), &req) {
        Ok(v) => Some(v),
        Err(CallError::NoNode { .. }) => sealed_node::offline::answer(home, &req, store_wait())
            .ok()
            .map(|(v, _)| v),
        Err(_) => None,
    }
}
