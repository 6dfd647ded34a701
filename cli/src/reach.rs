//! `sealed peers` and `sealed mailbox`: where peers are, and the home's default mailbox.

use serde::Serialize;

use sealed_node::Home;
use sealed_node::control::{ControlRequest, call};
use sealed_node::core::{PeerView, PeersView};
use sealed_node::shell::{Door, Info};

use crate::{json, output};

/// `sealed peers`: the peer book, best address first.
pub fn peers(home: &Home, json: bool) -> i32 {
    let book = match call::<PeersView>(&home.socket_path(), &ControlRequest::Peers) {
        Ok(v) => v,
        Err(e) => {
            output::error(&e.to_string());
            return 2;
        }
    };
    // This node's own facts are a line above the book: the book is said without them.
    let info = call::<Info>(&home.socket_path(), &ControlRequest::Info).ok();
    let text = if json {
        json::line(&PeersJson {
            this_node: this_node(info.as_ref()),
            book,
        })
    } else {
        format!(
            "{}{}{}",
            this_node_text(info.as_ref()),
            strangers_text(&book),
            book_text(&book, home.mailbox().as_deref().and_then(peer_of_addr))
        )
    };
    if output::stdout(&text) { 0 } else { 2 }
}

/// `peers --json`: the book as the node gives it, and this node beside it.
#[derive(Serialize)]
struct PeersJson<'a> {
    #[serde(flatten)]
    book: PeersView,
    this_node: ThisNode<'a>,
}

/// This node as `peers --json` gives it: its peer id, whether peers can dial it, the
/// addresses it is reached at through relays, and what it serves others. `null` fields
/// (and `unknown`) when the node did not say.
#[derive(Serialize)]
struct ThisNode<'a> {
    peer: Option<&'a str>,
    reachability: &'a str,
    relayed: Vec<&'a str>,
    serves: &'a [String],
    games: GameCounts,
    door: Option<&'a Door>,
    inbound: Option<&'a Door>,
}

/// How many games the node holds, in memory and asleep, and how many it woke.
#[derive(Serialize)]
struct GameCounts {
    in_memory: Option<usize>,
    asleep: Option<usize>,
    woken: Option<u64>,
}

fn this_node(info: Option<&Info>) -> ThisNode<'_> {
    ThisNode {
        peer: info.map(|i| i.peer.as_str()),
        reachability: reachability(info),
        relayed: relayed(info),
        serves: info.map_or(&[], |i| i.serves.as_slice()),
        games: GameCounts {
            in_memory: info.map(|i| i.games_in_memory),
            asleep: info.map(|i| i.games_asleep),
            woken: info.map(|i| i.games_woken),
        },
        door: info.map(|i| &i.door),
        inbound: info.map(|i| &i.inbound),
    }
}

/// How peers reach this node, `unknown` when it did not say.
fn reachability(info: Option<&Info>) -> &str {
    info.map_or("unknown", |i| i.reachability.as_str())
}

/// The node's listen addresses that go through a relay (`…/p2p-circuit/p2p/<us>`): the
/// ones a peer behind no NAT of ours dials when this node is private.
fn relayed(info: Option<&Info>) -> Vec<&str> {
    info.into_iter()
        .flat_map(|i| &i.addrs)
        .map(String::as_str)
        .filter(|a| a.contains("/p2p-circuit"))
        .collect()
}

/// This node in words, for the top of `peers`: how peers reach it, and what it serves.
fn this_node_text(info: Option<&Info>) -> String {
    let relayed = relayed(info);
    let reach = reachability(info);
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
    let serves: Vec<&str> = info
        .into_iter()
        .flat_map(|i| &i.serves)
        .map(String::as_str)
        .collect();
    s.push_str(&format!("    serves   {}\n", serves_words(&serves)));
    let count = |k: fn(&Info) -> u64| info.map_or(0, k);
    s.push_str(&format!(
        "    games    {} in memory, {} asleep (in the store until something happens in \
         them; {} woken since the node started)\n",
        count(|i| i.games_in_memory as u64),
        count(|i| i.games_asleep as u64),
        count(|i| i.games_woken),
    ));
    // A node that did not say counts nothing at its door.
    let none = Door::default();
    let door = info.map_or(&none, |i| &i.door);
    s.push_str(&format!(
        "    door     {} of {} connections being set up; since the start {} gave their \
         place to a newcomer from a network holding fewer, {} refused (their network held \
         most)\n",
        door.waiting, door.places, door.evicted, door.refused,
    ));
    let inbound = info.map_or(&none, |i| &i.inbound);
    s.push_str(&format!(
        "    inbound  {} of {} connections from others; since the start {} closed for a \
         newcomer from a network holding fewer, {} refused (their network held most)\n",
        inbound.waiting, inbound.places, inbound.evicted, inbound.refused,
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
fn strangers_text(book: &PeersView) -> String {
    let mut s = String::new();
    if let Some(held) = &book.held {
        let (open, idle, grace) = (held.open_ms, held.idle_ms, held.grace_ms);
        s.push_str(&format!(
            "    keeps    a game held for a stranger {} if nobody accepts it, {} idle without \
             a time control, or {} past its longest wait; any envelope renews it\n",
            span(open),
            span(idle),
            span(grace)
        ));
    }
    for n in &book.strangers {
        s.push_str(&format!(
            "    network  {}: {} games open; today {} games, {} envelopes, {} KiB\n",
            n.network,
            n.open,
            n.today.games,
            n.today.envelopes,
            n.today.bytes / 1024,
        ));
    }
    for (why, count) in &book.refused {
        s.push_str(&format!("    refused  {count} × {why}\n"));
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
fn book_text(book: &PeersView, default: Option<&str>) -> String {
    let now = book.now_ms;
    let ago = |ms: u64| match ms {
        0 => "never".to_owned(),
        t => format!("{} s ago", now.saturating_sub(t) / 1000),
    };
    let mut s = String::new();
    for p in &book.peers {
        s.push_str(&peer_text(p, default, ago));
    }
    if s.is_empty() {
        "no peers known\n".into()
    } else {
        s
    }
}

/// One peer of the book in lines: what it is to this node, then its addresses.
fn peer_text(p: &PeerView, default: Option<&str>, ago: impl Fn(u64) -> String) -> String {
    let mut s = String::new();
    let mut tags = vec![];
    if p.connected {
        tags.push("connected".to_owned());
    }
    // What the peer is to this node: its default mailbox, and to its games a
    // witness or a mailbox; a peer kept connected for none of those was named by
    // the player as a rendezvous point.
    let mut roles: Vec<&str> = vec![];
    if default.is_some() && p.peer.as_deref() == default {
        roles.push("default mailbox");
    }
    roles.extend(p.roles.iter().map(|r| match r.as_str() {
        "witness" => "witness of a game",
        "mailbox" => "mailbox of a game",
        other => other,
    }));
    if !roles.is_empty() {
        tags.push(roles.join(" and "));
    } else if p.standing {
        tags.push("kept connected".to_owned());
    }
    if let Some(a) = &p.agent {
        tags.push(a.clone());
    }
    s.push_str(&format!(
        "{}  {}\n",
        p.peer.as_deref().unwrap_or_default(),
        tags.join(", ")
    ));
    if let Some(why) = &p.unreachable {
        s.push_str(&format!("    unreachable: {why}\n"));
    }
    if let Some(sync) = p.sync {
        let (stream, rr) = (sync.stream, sync.request_response);
        s.push_str(&format!(
            "    sync messages since it connected: {stream} on the stream{}\n",
            if rr > 0 {
                format!(", {rr} by request-response (a node of before the stream)")
            } else {
                String::new()
            }
        ));
    }
    for a in &p.addrs {
        s.push_str(&format!(
            "    {}  seen {}, reached {}{}\n",
            a.addr,
            ago(a.seen_ms),
            ago(a.worked_ms),
            match a.failures {
                0 => String::new(),
                n => format!(", {n} failed since"),
            }
        ));
    }
    s
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
                if let Err(e) = call::<()>(&home.socket_path(), &req) {
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
