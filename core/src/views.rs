//! The typed answers every face reads (ARCHITECTURE.md, *Names*): a game's view, the
//! line `sealed games` prints of each game and where it stands, the peer book, and where
//! a move or an invitation is. On the control socket and the web board they are their
//! JSON; the sentences of `Delivery` and `Invitation` are written and read here only, so
//! that no face tests another's words.

/// A game as every face shows it (`sealed show --json`, the web board): the table's
/// view (`sealed_games::table::TableView`, whose keys `sealed_games::table` lists) and
/// what the node adds beside it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GameView {
    /// The table's view.
    #[serde(flatten)]
    pub table: sealed_games::table::TableView,
    /// The clocks, when the game has a time control.
    pub clock: Option<ClockView>,
    /// Every seat.
    pub players: Vec<crate::players::PlayerView>,
    /// The options, as `key=value`.
    pub options: Vec<String>,
    /// Where this seat's latest messages are.
    pub delivery: Option<Delivery>,
    /// Why the game's witness refused this seat's last envelopes, until it takes them:
    /// it has not dated them, so a wait they answer is not over in its record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness_refused: Option<String>,
    /// The witness and mailboxes the proposal names.
    pub helpers: Vec<crate::players::HelperView>,
}

/// A game's clocks, and the line that says them.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ClockView {
    /// The clocks.
    #[serde(flatten)]
    pub clocks: crate::clock::Clocks,
    /// In one line.
    pub text: String,
}

/// The peer book, as every face reads it (`sealed peers`, the board's names): what the
/// core knows of each peer, and what the shell adds of those connected.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PeersView {
    /// The core's time when it answered, ms since the Unix epoch.
    pub now_ms: u64,
    /// How long this node keeps a game it holds for a stranger with nothing new in it
    /// (`held.rs`): what it announces to those who leave games here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held: Option<crate::held::Lifetime>,
    /// What strangers hold here, by network (an IPv4 /24, an IPv6 /48), those holding
    /// most first, at most [`STRANGERS_SHOWN`] of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub strangers: Vec<NetworkView>,
    /// What this node refused its peers since it started, by reason (numbers in the
    /// reason read `N`), most first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<(String, u64)>,
    /// Every peer in the book.
    pub peers: Vec<PeerView>,
}

/// Networks [`PeersView::strangers`] shows.
pub const STRANGERS_SHOWN: usize = 16;

/// What the strangers of one network hold at this node.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NetworkView {
    /// The network (`ip4/1.2.3/24`, `ip6/2a01:4f8:1/48`, a relay's key, or `unknown`).
    pub network: String,
    /// Games held open for it now (relayed, witnessed, refereed, invitations).
    pub open: usize,
    /// What it stored today (games, envelopes, bytes) against its day's share.
    pub today: crate::record::Usage,
}

/// One peer of the book.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PeerView {
    /// Its key, hex.
    pub key: String,
    /// Its peer id, when the key is one: the shell adds it, with what the peer runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer: Option<String>,
    /// Connected now.
    pub connected: bool,
    /// Kept connected (a mailbox or rendezvous point).
    pub standing: bool,
    /// What it is to this node's games, in memory or asleep: `witness`, `mailbox` (a
    /// witness is its games' mailbox too, and named only as the witness there), each
    /// once. Empty for a peer kept connected for no game (a rendezvous point).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<String>,
    /// Why the last dial failed, until a connection opens.
    pub unreachable: Option<String>,
    /// Where it was seen and reached.
    pub addrs: Vec<AddrView>,
    /// What it runs (identify's agent version), while connected: the shell adds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The name it announces in its agent version: the shell adds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// How its sync messages came since it connected: the shell adds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync: Option<SyncCounts>,
}

/// The sync messages taken from one connected peer (its requests and its answers to
/// ours), by the way they came (spec/PROTOCOL.md §16.1): on the long-lived stream, or
/// by request-response, which only a node of before the stream uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SyncCounts {
    /// On `/sealed/sync-stream/1`.
    pub stream: u64,
    /// On `/sealed/sync/1`.
    pub request_response: u64,
}

/// One address of a peer.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AddrView {
    /// The address.
    pub addr: String,
    /// When it was last seen, ms since the Unix epoch.
    pub seen_ms: u64,
    /// When a dial to it last worked (0: never).
    pub worked_ms: u64,
    /// Dials that failed since it last worked.
    pub failures: u32,
}

/// Where a game stands for this node's player, as `sealed games` says it (in JSON, the
/// same lower-case word).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameState {
    /// This node proposed it; the opponent has not joined yet.
    Proposed,
    /// This node was invited; its player has not answered.
    Invited,
    /// Being played.
    Active,
    /// Over.
    Finished,
    /// A seat declined it.
    Declined,
    /// Its proposer took it back before it was accepted.
    Withdrawn,
    /// This node keeps it for others (a mailbox or witness).
    Relayed,
    /// Set aside after a failed write, until the store works again.
    Halted,
    /// Set aside: what the store holds of it does not read.
    Unreadable,
    /// Set aside: the node stopped while restoring it at a start.
    Crashed,
}

impl GameState {
    /// The word.
    pub fn word(self) -> &'static str {
        match self {
            GameState::Proposed => "proposed",
            GameState::Invited => "invited",
            GameState::Active => "active",
            GameState::Finished => "finished",
            GameState::Declined => "declined",
            GameState::Withdrawn => "withdrawn",
            GameState::Relayed => "relayed",
            GameState::Halted => "halted",
            GameState::Unreadable => "unreadable",
            GameState::Crashed => "crashed",
        }
    }
}

impl std::fmt::Display for GameState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.word())
    }
}

/// One line of `sealed games`, as the faces read it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GameSummary {
    /// Game id, hex.
    pub game: String,
    /// Variant.
    pub variant: String,
    /// Where it stands.
    pub status: GameState,
    /// Our seat, if we play.
    pub seat: Option<u8>,
    /// Whether we must decide something now.
    pub my_turn: bool,
    /// Accepted acts.
    pub ply: usize,
    /// What the game waits for.
    pub waiting_for: String,
    /// The result in one line, once there is one.
    pub result: Option<String>,
    /// Who sits where (empty for a game whose terms do not read).
    pub players: Vec<super::PlayerView>,
    /// The rule options agreed, `key=value`.
    pub options: Vec<String>,
    /// Where this seat's latest messages are ("delivered to bob"), for a game it plays.
    pub delivery: Option<Delivery>,
    /// Why the game's witness refused this seat's last envelopes (as [`GameView`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witness_refused: Option<String>,
    /// Envelopes this node holds for the game.
    pub held: usize,
    /// The clocks in one line, when the game has a time control.
    pub clock: Option<String>,
    /// For an invitation this node made and that is not accepted yet: whether it reached
    /// the peer, its mailbox, or not yet and why.
    pub invitation: Option<Invitation>,
    /// The witness and mailboxes the proposal names: whom its players trust.
    #[serde(default)]
    pub helpers: Vec<crate::players::HelperView>,
    /// For a game held here for a stranger (relayed, refereed, an invitation): when it
    /// expires unless an envelope renews it, ms since the Unix epoch (`held.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_ms: Option<u64>,
}

/// Where this seat's latest messages are for one other seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reached {
    /// Acknowledged by that seat (durable there), or said held in its repair round.
    Seat,
    /// Held for it by a mailbox of the game (public envelopes only).
    Mailbox,
    /// Held for it by the game's witness, which is a mailbox of the game too and is
    /// named as what the players chose it for.
    Witness,
    /// Not confirmed yet (since the node started: a stopped node knows nothing).
    NotYet,
}

/// Where this seat's latest messages are for one other seat, named as a line names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatDelivery {
    /// The seat: its name, else its role (`the opponent`, `the referee`).
    pub to: String,
    /// How far the messages got.
    pub reached: Reached,
}

/// The line `show`, `games` and `move` print while the witness refuses this seat's
/// envelopes ([`GameView::witness_refused`]).
pub fn witness_refused_line(why: &str) -> String {
    format!(
        "the witness refused your last envelopes ({why}): it has not dated them, so a wait \
         they end is not over in its record"
    )
}

/// Where this seat's latest messages are, per other seat: what `sealed move` and the
/// board say after a move. On the control socket it is the sentence (`delivered to
/// bob; not yet confirmed by the referee`), written and read here only, so that no face
/// tests the words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery(pub Vec<SeatDelivery>);

impl Delivery {
    /// Whether some seat has not confirmed them yet.
    pub fn pending(&self) -> bool {
        self.0.iter().any(|d| d.reached == Reached::NotYet)
    }
}

const TO_MAILBOX: &str = "delivered to the mailbox, for ";
const TO_WITNESS: &str = "delivered to the witness, for ";
const TO_SEAT: &str = "delivered to ";
const NOT_YET: &str = "not yet confirmed by ";

impl std::fmt::Display for Delivery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            let words = match d.reached {
                Reached::Seat => TO_SEAT,
                Reached::Mailbox => TO_MAILBOX,
                Reached::Witness => TO_WITNESS,
                Reached::NotYet => NOT_YET,
            };
            let sep = if i == 0 { "" } else { "; " };
            write!(f, "{sep}{words}{}", d.to)?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Delivery {
    type Err = std::convert::Infallible;

    /// Reads the sentence back. A name may hold `; ` itself: a part that starts with
    /// none of the words belongs to the name before it, so the sentence written again
    /// is the one read.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut out: Vec<SeatDelivery> = vec![];
        for part in s.split("; ") {
            let read = [
                (TO_MAILBOX, Reached::Mailbox),
                (TO_WITNESS, Reached::Witness),
                (TO_SEAT, Reached::Seat),
                (NOT_YET, Reached::NotYet),
            ]
            .into_iter()
            .find_map(|(w, r)| part.strip_prefix(w).map(|to| (to, r)));
            match (read, out.last_mut()) {
                (Some((to, reached)), _) => out.push(SeatDelivery {
                    to: to.to_owned(),
                    reached,
                }),
                (None, Some(last)) => {
                    last.to.push_str("; ");
                    last.to.push_str(part);
                }
                (None, None) => out.push(SeatDelivery {
                    to: part.to_owned(),
                    reached: Reached::NotYet,
                }),
            }
        }
        Ok(Delivery(out))
    }
}

/// Where this node's invitation is, for a game it proposed that is not accepted yet.
/// On the control socket it is the sentence, written and read here only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invitation {
    /// Every other seat holds it.
    Peer,
    /// A mailbox of the game holds it, and no seat has said it holds it: left at the
    /// mailbox, not delivered (the player's node may yet refuse it).
    Mailbox,
    /// A seat refused it, saying why.
    Refused(String),
    /// Not delivered yet: the last dial's error, or that the peer has not answered.
    NotYet(String),
}

impl Invitation {
    /// Whether it got there (to the peer, or to a mailbox that keeps it for the peer):
    /// nothing more for `sealed new` to wait for.
    pub fn delivered(&self) -> bool {
        matches!(self, Invitation::Peer | Invitation::Mailbox)
    }
}

impl std::fmt::Display for Invitation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Invitation::Peer => f.write_str("delivered to the peer"),
            Invitation::Mailbox => f.write_str("left at the mailbox"),
            Invitation::Refused(why) => write!(f, "not delivered: refused: {why}"),
            Invitation::NotYet(why) => write!(f, "not delivered: {why}"),
        }
    }
}

impl std::str::FromStr for Invitation {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "delivered to the peer" => Invitation::Peer,
            // The words of nodes of before, which said delivered.
            "left at the mailbox" | "delivered to the mailbox" => Invitation::Mailbox,
            _ => match s.strip_prefix("not delivered: ") {
                Some(why) => match why.strip_prefix("refused: ") {
                    Some(why) => Invitation::Refused(why.to_owned()),
                    None => Invitation::NotYet(why.to_owned()),
                },
                None => Invitation::NotYet(s.to_owned()),
            },
        })
    }
}

/// Serialises a state as its sentence and reads it back ([`Delivery`], [`Invitation`]).
macro_rules! as_sentence {
    ($t:ty) => {
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                Ok(s.parse()
                    .unwrap_or_else(|e: std::convert::Infallible| match e {}))
            }
        }
    };
}
as_sentence!(Delivery);
as_sentence!(Invitation);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::ShowFormat;

    #[test]
    fn delivery_and_invitation_read_back_the_sentences_they_write() {
        let d = Delivery(vec![
            SeatDelivery {
                to: "bob".into(),
                reached: Reached::Seat,
            },
            SeatDelivery {
                to: "the referee".into(),
                reached: Reached::Mailbox,
            },
            SeatDelivery {
                to: "carol".into(),
                reached: Reached::NotYet,
            },
            SeatDelivery {
                to: "dave".into(),
                reached: Reached::Witness,
            },
        ]);
        let s = d.to_string();
        assert_eq!(
            s,
            "delivered to bob; delivered to the mailbox, for the referee; not yet confirmed by carol; \
             delivered to the witness, for dave"
        );
        assert_eq!(s.parse::<Delivery>().unwrap(), d);
        assert!(d.pending());
        // A name holding `; ` is read into the name before it.
        let odd = Delivery(vec![SeatDelivery {
            to: "a; b".into(),
            reached: Reached::Seat,
        }]);
        assert_eq!(odd.to_string().parse::<Delivery>().unwrap(), odd);
        assert!(!odd.pending());
        for i in [
            Invitation::Peer,
            Invitation::Mailbox,
            Invitation::Refused("full".into()),
            Invitation::NotYet("the peer has not answered yet".into()),
        ] {
            assert_eq!(i.to_string().parse::<Invitation>().unwrap(), i);
            let json = serde_json::to_string(&i).unwrap();
            assert_eq!(json, format!("{:?}", i.to_string()));
            assert_eq!(serde_json::from_str::<Invitation>(&json).unwrap(), i);
        }
        for (f, w) in [
            (ShowFormat::Json, "\"json\""),
            (ShowFormat::Svg, "\"svg\""),
            (ShowFormat::Other("yaml".into()), "\"yaml\""),
        ] {
            assert_eq!(serde_json::to_string(&f).unwrap(), w);
            assert_eq!(serde_json::from_str::<ShowFormat>(w).unwrap(), f);
        }
    }
}
