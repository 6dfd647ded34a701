//! Who sits where, as `sealed games` and `show` name them: each seat's role, the name
//! its proposal gives it (escaped: the proposal is signed by the proposer, whoever that
//! is), its peer id, and whether it is this node's. Of the terms and the names alone:
//! where a game's messages are is the game's (`game/delivery.rs`).

use sealed_protocol::ids::Seat;
use sealed_protocol::proposal::{Role, Terms};

/// One seat of a game.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlayerView {
    /// The seat number.
    pub seat: u8,
    /// `player`, `referee` or `witness`.
    pub role: String,
    /// The name its proposal gives it, escaped; empty when none.
    pub name: String,
    /// Its libp2p peer id.
    pub peer: String,
    /// Whether it is this node's seat.
    pub you: bool,
    /// Whether its node is connected to this one now: the web board adds it for every
    /// seat but this node's (`web/src/people.rs`); absent elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connected: Option<bool>,
}

pub use sealed_games::table::seat_names;

/// Every seat of a game, this node's marked, each named as [`seat_names`] gives.
pub fn players(terms: &Terms, names: &[Option<String>], me: Option<Seat>) -> Vec<PlayerView> {
    terms
        .proposal()
        .seats
        .iter()
        .enumerate()
        .map(|(i, s)| PlayerView {
            seat: u8::try_from(i).unwrap_or(u8::MAX),
            role: match s.role {
                Role::Player => "player",
                Role::Referee => "referee",
                Role::Witness => "witness",
            }
            .into(),
            name: names.get(i).cloned().flatten().unwrap_or_default(),
            peer: terms
                .key(Seat(u8::try_from(i).unwrap_or(u8::MAX)))
                .map_or_else(|| crate::peer_id::name(&s.key), crate::peer_id::of),
            you: me.is_some_and(|m| usize::from(m.0) == i),
            connected: None,
        })
        .collect()
}

/// A node a game names besides its seats: its witness and its mailboxes, which a person
/// accepting an invitation should know of (the witness keeps time; a mailbox keeps the
/// public envelopes).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HelperView {
    /// `witness`, `mailbox` (a witness is the game's mailbox too, listed once) or
    /// `arbiter` (a physical-deck Tempête game's, who rules on disputes).
    pub role: String,
    /// Its libp2p peer id.
    pub peer: String,
    /// What the node knows of it now: the web board adds it (`web/src/people.rs`);
    /// absent elsewhere.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub seen: Option<Seen>,
}

/// What the node knows now of a witness, mailbox or arbiter a game names, as the web
/// board shows it beside its peer id.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Seen {
    /// The name it announces, if the node has heard one (the peer's own word).
    pub name: Option<String>,
    /// Connected to this node now.
    pub connected: bool,
}

/// The option that names a physical-deck Tempête game's arbiter (spec/GAMES.md §4.20):
/// his key, in hex in the terms, typed and shown as a peer id.
pub const ARBITER: &str = "arbiter";

/// The arbiter's key a game's options name, if they name one that reads.
pub fn arbiter(terms: &Terms) -> Option<[u8; 32]> {
    let (_, v) = terms
        .proposal()
        .options
        .iter()
        .find(|(k, _)| k.as_str() == ARBITER)?;
    let mut key = [0u8; 32];
    hex::decode_to_slice(v, &mut key).ok()?;
    Some(key)
}

/// The witness, then every other mailbox, then the arbiter, of a game's proposal:
/// everyone a player trusts besides the other player (and the referee, a seat).
pub fn helpers(terms: &Terms) -> Vec<HelperView> {
    let proposal = terms.proposal();
    let peer = |key: &[u8; 32]| crate::peer_id::name(key);
    let witness = proposal.witness.as_ref().map(|w| w.key);
    witness
        .iter()
        .map(|k| HelperView {
            role: "witness".into(),
            peer: peer(k),
            seen: None,
        })
        .chain(
            proposal
                .mailboxes
                .iter()
                .filter(|m| Some(m.key) != witness)
                .map(|m| HelperView {
                    role: "mailbox".into(),
                    peer: peer(&m.key),
                    seen: None,
                }),
        )
        .chain(arbiter(terms).map(|k| HelperView {
            role: ARBITER.into(),
            peer: peer(&k),
            seen: None,
        }))
        .collect()
}

/// The seats in one line: `alice (you; 12D3…) vs bob (12D3…), referee carol (12D3…)`.
pub fn line(players: &[PlayerView]) -> String {
    let one = |p: &PlayerView| {
        let name = if p.name.is_empty() {
            format!("seat {}", p.seat)
        } else {
            p.name.clone()
        };
        let you = if p.you { "you; " } else { "" };
        format!("{name} ({you}{})", p.peer)
    };
    let sides: Vec<String> = players
        .iter()
        .filter(|p| p.role == "player")
        .map(one)
        .collect();
    let mut s = sides.join(" vs ");
    for p in players.iter().filter(|p| p.role != "player") {
        s.push_str(&format!(", {} {}", p.role, one(p)));
    }
    s
}

/// Each seat as a clock line names it: `you`, its name, else `seat N`.
pub(super) fn namer(names: &[Option<String>], me: Seat) -> impl Fn(u8) -> String + '_ {
    move |s| {
        if s == me.0 {
            return "you".into();
        }
        names
            .get(usize::from(s))
            .cloned()
            .flatten()
            .unwrap_or_else(|| format!("seat {s}"))
    }
}

/// A seat as a line about delivery names it: its name, else its role.
pub(super) fn called(terms: &Terms, names: &[Option<String>], s: Seat) -> String {
    match names.get(s.index()).cloned().flatten() {
        Some(n) => n,
        None if terms.role(s) == Some(Role::Referee) => "the referee".into(),
        None => "the opponent".into(),
    }
}

/// A game's rule options as `key=value` words (names and values are the proposal's,
/// escaped); an arbiter who reads is with the others trusted (`players.rs` `helpers`),
/// by peer id, not here as a key in hex.
pub(super) fn options_words(terms: &Terms) -> Vec<String> {
    let arbiter = arbiter(terms).is_some();
    terms
        .proposal()
        .options
        .iter()
        .filter(|(k, _)| !(arbiter && k.as_str() == ARBITER))
        .map(|(k, v)| format!("{k}={}", sealed_protocol::text::name(v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use sealed_games::table::{self, Invitees};
    use sealed_protocol::keys::SecretKey;
    use sealed_protocol::proposal::{MailboxSpec, Terms, WitnessSpec};

    use super::*;

    fn key(n: u8) -> [u8; 32] {
        SecretKey::from_seed(&[n; 32]).public().to_bytes()
    }

    fn terms(mailboxes: &[u8], witness: Option<u8>) -> Terms {
        let spec = |n: u8| MailboxSpec {
            key: key(n),
            addrs: vec![format!("/ip4/127.0.0.1/tcp/{n}")],
        };
        let mut mailboxes: Vec<MailboxSpec> = mailboxes.iter().map(|n| spec(*n)).collect();
        let witness = witness.map(|n| {
            // A proposal names its witness among its mailboxes too (as `sealed new`
            // makes it): it is listed once.
            mailboxes.push(spec(n));
            WitnessSpec {
                key: key(n),
                addrs: vec![format!("/ip4/127.0.0.1/tcp/{n}")],
            }
        });
        let signed = table::propose(
            "duel",
            &[],
            &SecretKey::from_seed(&[1; 32]),
            Invitees {
                opponent: key(2),
                referee: None,
                mailboxes,
                witness,
                names: ["alice".into(), "bob".into()],
            },
            1_000,
            [7; 32],
        )
        .unwrap();
        Terms::from_signed(signed).unwrap()
    }

    /// Issue 55: the arbiter of a physical deck is among those the invitee would trust,
    /// by peer id, and not an option in hex.
    #[test]
    fn the_arbiter_is_trusted_by_peer_id() {
        let arbiter = key(8);
        let options = [
            ("arbiter".to_owned(), hex::encode(arbiter)),
            ("deck".to_owned(), "physical".to_owned()),
        ];
        let signed = table::propose(
            "tempete",
            &options,
            &SecretKey::from_seed(&[1; 32]),
            Invitees {
                opponent: key(2),
                ..Invitees::default()
            },
            1_000,
            [7; 32],
        )
        .unwrap();
        let t = Terms::from_signed(signed).unwrap();
        assert_eq!(
            helpers(&t),
            vec![HelperView {
                role: "arbiter".into(),
                peer: crate::peer_id::text(&arbiter).unwrap(),
                seen: None,
            }]
        );
        assert_eq!(options_words(&t), vec!["deck=physical"]);
    }

    #[test]
    fn the_witness_and_the_mailboxes_are_named_by_peer_id_once_each() {
        let peer = |n: u8| crate::peer_id::text(&key(n)).unwrap();
        assert_eq!(helpers(&terms(&[], None)), vec![]);
        let h = helpers(&terms(&[5], Some(6)));
        assert_eq!(
            h,
            vec![
                HelperView {
                    role: "witness".into(),
                    peer: peer(6),
                    seen: None,
                },
                HelperView {
                    role: "mailbox".into(),
                    peer: peer(5),
                    seen: None,
                },
            ]
        );
    }
}
