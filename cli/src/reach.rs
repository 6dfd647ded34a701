//! `sealed peers` and `sealed mailbox`: where peers are, and the home's default mailbox.

use sealed_node::Home;
use sealed_node::control::{ControlRequest, call};
use serde_json::Value;

use crate::output;

/// `sealed peers`: the peer book, best address first.
pub fn peers(home: &Home, json: bool) -> i32 {
    let doc = match call(&home.socket_path(), &ControlRequest::Peers) {
        Ok(v) => v,
        Err(e) => {
            output::error(&e.to_string());
            return 2;
        }
    };
    let info = call(&home.socket_path(), &ControlRequest::Info).unwrap_or_default();
    let text = if json {
        // The book as the node gives it, and this node beside it (a key added).
        let mut doc = doc;
        if let Some(o) = doc.as_object_mut() {
            o.insert("this_node".into(), this_node(&info));
        }
        format!("{doc}\n")
    } else {
        format!(
            "{}{}{}",
            this_node_text(&info),
            strangers_text(&doc),
            book_text(&doc, home.mailbox().as_deref().and_then(peer_of_addr))
        )
    };
    if output::stdout(&text) { 0 } else { 2 }
}

/// This node as `peers --json` gives it: its peer id, whether peers can dial it, the
/// addresses it is reached at through relays, and what it serves others.
fn this_node(info: &Value) -> Value {
    serde_json::json!({
        "peer": info["peer"],
        "reachability": info["reachability"].as_str().unwrap_or("unknown"),
        "relayed": relayed(info),
        "serves": info["serves"].as_array().cloned().unwrap_or_default(),
        "games": {
            "in_memory": info["games_in_memory"],
            "asleep": info["games_asleep"],
            "woken": info["games_woken"],
        },
        "door": info["door"],
        "inbound": info["inbound"],
    })
}

/// The node's listen addresses that go through a relay (`…/p2p-circuit/p2p/<us>`): the
/// ones a peer behind no NAT of ours dials when this node is private.
fn relayed(info: &Value) -> Vec<String> {
    info["addrs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|a| a.contains("/p2p-circuit"))
        .map(str::to_owned)
        .collect()
}

/// This node in words, for the top of `peers`: how peers reach it, and what it serves.
fn this_node_text(info: &Value) -> String {
    let relayed = relayed(info);
    let reach = info["reachability"].as_str().unwrap_or("unknown");
    let mut s = match reach.split_once(' ') {
        Some(("public", at)) => format!("this node: public: peers dial it at {at}\n"),
        _ if reach == "private" && relayed.is_empty() => "this node: private: peers cannot \
            dial it, and it has no relayed address yet (a mailbox that relays gives one: \
            `sealed mailbox ADDR`)\n"
            .to_owned(),
        _ if reach == "private" => {
            "this node: private: peers reach it through its relays\n".to_owned()
        }
        _ => {
            "this node: reachability not known yet (it is asked of the peers it meets)\n".to_owned()
        }
    };
    for a in &relayed {
        s.push_str(&format!("    relayed  {a}\n"));
    }
    let serves: Vec<&str> = info["serves"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    s.push_str(&format!("    serves   {}\n", serves_words(&serves)));
    let count = |k: &str| info[k].as_u64().unwrap_or(0);
    s.push_str(&format!(
        "    games    {} in memory, {} asleep (in the store until something happens in \
         them; {} woken since the node started)\n",
        count("games_in_memory"),
        count("games_asleep"),
        count("games_woken"),
    ));
    let door = |k: &str| info["door"][k].as_u64().unwrap_or(0);
    s.push_str(&format!(
        "    door     {} of {} connections being set up; since the start {} gave their \
         place to a newcomer from a network holding fewer, {} refused (their network held \
         most)\n",
        door("waiting"),
        door("places"),
        door("evicted"),
        door("refused"),
    ));
    let inbound = |k: &str| info["inbound"][k].as_u64().unwrap_or(0);
    s.push_str(&format!(
        "    inbound  {} of {} connections from others; since the start {} closed for a \
         newcomer from a network holding fewer, {} refused (their network held most)\n",
        inbound("waiting"),
        inbound("places"),
        inbound("evicted"),
        inbound("refused"),
    ));
    s
}

/// What a node serves others, in words (`sealed node`'s start lines and `peers`).
pub fn serves_words(serves: &[&str]) -> String {
    if serves.is_empty() {
        return "its own player's games only (not a mailbox, relay or witness)".into();
    }
    serves
        .iter()
        .map(|role| match *role {
            "mailbox" => "a mailbox: keeps and forwards the public envelopes of games that \
                          name it, and finds its users by peer id"
                .to_owned(),
            "witness" => "a witness: dates the envelopes of games that name it, for their \
                          time control, and keeps them as their mailbox"
                .to_owned(),
            "relay" => "a relay: carries live connections for peers behind NAT".to_owned(),
            "referee" => "a referee: accepts and answers every game that names it".to_owned(),
            other => other.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The book as lines: each peer, then its addresses with how long ago each was seen and
/// reached.
/// What strangers hold here and what was refused, in words: how long a game held for a
/// stranger lives (the policy this node announces), the networks holding most, and the
/// refusals since the start by reason.
fn strangers_text(doc: &Value) -> String {
    let mut s = String::new();
    let held = &doc["held"];
    if let (Some(open), Some(idle), Some(grace)) = (
        held["open_ms"].as_u64(),
        held["idle_ms"].as_u64(),
        held["grace_ms"].as_u64(),
    ) {
        s.push_str(&format!(
            "    keeps    a game held for a stranger {} if nobody accepts it, {} idle without \
             a time control, or {} past its longest wait; any envelope renews it\n",
            span(open),
            span(idle),
            span(grace)
        ));
    }
    for n in doc["strangers"].as_array().into_iter().flatten() {
        let today = &n["today"];
        s.push_str(&format!(
            "    network  {}: {} games open; today {} games, {} envelopes, {} KiB\n",
            n["network"].as_str().unwrap_or("?"),
            n["open"].as_u64().unwrap_or(0),
            today["games"].as_u64().unwrap_or(0),
            today["envelopes"].as_u64().unwrap_or(0),
            today["bytes"].as_u64().unwrap_or(0) / 1024,
        ));
    }
    for r in doc["refused"].as_array().into_iter().flatten() {
        s.push_str(&format!(
            "    refused  {} × {}\n",
            r[1].as_u64().unwrap_or(0),
            r[0].as_str().unwrap_or("?")
        ));
    }
    s
}

/// A duration in ms as a person reads it: days, hours, minutes or seconds.
fn span(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        s if s >= 86_400 && s % 86_400 == 0 => format!("{} days", s / 86_400),
        s if s >= 3600 && s % 3600 == 0 => format!("{} hours", s / 3600),
        s if s >= 60 && s % 60 == 0 => format!("{} minutes", s / 60),
        s => format!("{s} s"),
    }
}

/// The peer id an address ends with (`…/p2p/<id>`).
fn peer_of_addr(addr: &str) -> Option<&str> {
    addr.rsplit_once("/p2p/").map(|(_, id)| id)
}

/// The book in lines: each peer with what it is to this node (`default` is the peer id
/// of the home's default mailbox), then its addresses.
fn book_text(doc: &Value, default: Option<&str>) -> String {
    let now = doc["now_ms"].as_u64().unwrap_or(0);
    let ago = |ms: &Value| match ms.as_u64() {
        Some(0) | None => "never".to_owned(),
        Some(t) => format!("{} s ago", now.saturating_sub(t) / 1000),
    };
    let mut s = String::new();
    for p in doc["peers"].as_array().into_iter().flatten() {
        let mut tags = vec![];
        if p["connected"] == Value::Bool(true) {
            tags.push("connected".to_owned());
        }
        // What the peer is to this node: its default mailbox, and to its games a
        // witness or a mailbox; a peer kept connected for none of those was named by
        // the player as a rendezvous point.
        let mut roles: Vec<&str> = vec![];
        if default.is_some() && p["peer"].as_str() == default {
            roles.push("default mailbox");
        }
        roles.extend(
            p["roles"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(|r| match r {
                    "witness" => "witness of a game",
                    "mailbox" => "mailbox of a game",
                    other => other,
                }),
        );
        if !roles.is_empty() {
            tags.push(roles.join(" and "));
        } else if p["standing"] == Value::Bool(true) {
            tags.push("kept connected".to_owned());
        }
        if let Some(a) = p["agent"].as_str() {
            tags.push(a.to_owned());
        }
        s.push_str(&format!(
            "{}  {}\n",
            p["peer"].as_str().unwrap_or_default(),
            tags.join(", ")
        ));
        if let Some(why) = p["unreachable"].as_str() {
            s.push_str(&format!("    unreachable: {why}\n"));
        }
        let sync = &p["sync"];
        if let (Some(stream), Some(rr)) =
            (sync["stream"].as_u64(), sync["request_response"].as_u64())
        {
            s.push_str(&format!(
                "    sync messages since it connected: {stream} on the stream{}\n",
                if rr > 0 {
                    format!(", {rr} by request-response (a node of before the stream)")
                } else {
                    String::new()
                }
            ));
        }
        for a in p["addrs"].as_array().into_iter().flatten() {
            s.push_str(&format!(
                "    {}  seen {}, reached {}{}\n",
                a["addr"].as_str().unwrap_or_default(),
                ago(&a["seen_ms"]),
                ago(&a["worked_ms"]),
                match a["failures"].as_u64() {
                    Some(0) | None => String::new(),
                    Some(n) => format!(", {n} failed since"),
                }
            ));
        }
    }
    if s.is_empty() {
        "no peers known\n".into()
    } else {
        s
    }
}

/// `sealed mailbox [ADDR] [--clear]`.
pub fn mailbox(home: &Home, addr: Option<&str>, clear: bool) -> i32 {
    let running = sealed_node::control::answers(&home.socket_path());
    match (addr, clear) {
        (None, false) => {
            let text = home
                .mailbox()
                .map_or_else(|| "no default mailbox\n".into(), |m| format!("{m}\n"));
            if output::stdout(&text) { 0 } else { 2 }
        }
        (None, true) => match home.set_mailbox(None) {
            Ok(()) => i32::from(!output::stdout("no default mailbox now\n")) * 2,
            Err(e) => {
                output::error(&e.to_string());
                2
            }
        },
        (Some(a), _) => {
            // Checked by the running node (it dials it now) before it is kept; without
            // a node, the address is read here and the node takes it at its start.
            if running {
                let req = ControlRequest::Mailbox { addr: a.into() };
                if let Err(e) = call(&home.socket_path(), &req) {
                    output::error(&e.to_string());
                    return 2;
                }
            } else if let Err(e) = sealed_node::shell::read_point("mailbox", a) {
                // Read as the node will read it when it starts: refused now, not then.
                output::error(&e.to_string());
                return 2;
            }
            match home.set_mailbox(Some(a)) {
                // One line, as after every command that changes something.
                Ok(()) => {
                    let said = if running {
                        format!("default mailbox {a}: the node keeps connected to it\n")
                    } else {
                        format!("default mailbox {a}: the node connects to it when it starts\n")
                    };
                    i32::from(!output::stdout(&said)) * 2
                }
                Err(e) => {
                    output::error(&e.to_string());
                    2
                }
            }
        }
    }
}
