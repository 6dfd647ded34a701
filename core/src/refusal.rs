//! Why this node refuses what a peer asks, typed by whose doing it is: the asker's (it is
//! not entitled to what it asks, or asks beyond a bound) or this node's (its rates,
//! quotas and store). On the wire a refusal travels as its words (`Response::Refused`,
//! spec/PROTOCOL.md), which peers log and people read: the texts below are those words.

use crate::record::{ReadError, Usage};

/// Why a peer's request is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PeerRefusal {
    /// The asker's: it holds no seat of the game and is not its mailbox.
    #[error("only the game's seats and mailboxes may post to it")]
    NotPoster,
    /// The asker's: it may not read the game.
    #[error("only the game's seats and mailboxes may read it")]
    NotReader,
    /// The asker's: it may not introduce the game's seats.
    #[error("only the game's seats and mailboxes introduce")]
    NotIntroducer,
    /// The asker's: only the game's seats ask its witness.
    #[error("only the game's seats ask its witness")]
    NotWitnessAsker,
    /// The asker's: no such game here.
    #[error("unknown game")]
    UnknownGame,
    /// The asker's: this node witnesses no such game.
    #[error("this node witnesses no such game")]
    NotWitnessed,
    /// The asker's: this node is not the game's witness.
    #[error("this node is not that game's witness")]
    NotTheWitness,
    /// The asker's: the game names this node neither as a seat nor as a mailbox.
    #[error("this node holds no seat of that game and is not its mailbox")]
    NotOurs,
    /// The asker's: more addresses than one introduction carries.
    #[error("too many addresses")]
    TooManyAddresses,
    /// The asker's: more or larger deposits than one request carries.
    #[error("too many or too large deposits in one request")]
    TooManyDeposits,
    /// The asker's: a ruling longer than any game act.
    #[error("a ruling of more than {} bytes", crate::message::MAX_RULING)]
    RulingTooLarge,
    /// The asker's: this node plays no such game now (it is unknown here, only relayed,
    /// or over).
    #[error("this node plays no such game now")]
    NotPlayedHere,
    /// The asker's: the introductions are the shell's to take.
    #[error("introductions go through the shell")]
    IntroductionHere,
    /// The asker's: the proposal does not read.
    #[error("proposal: {0}")]
    Proposal(sealed_protocol::proposal::ProposalError),
    /// The asker's: no game can be opened from the proposal (its variant or options).
    #[error(transparent)]
    Table(sealed_games::table::TableError),
    /// The asker's: the game refuses the ruling (no ruling, not signed by the one the
    /// terms name, about nothing open any more, or the game over).
    #[error(transparent)]
    Ruling(sealed_games::table::Refusal),
    /// This node's: the named budget is spent (`limit.rs`).
    #[error("rate limit: {0} budget is spent: slow down")]
    RateLimit(&'static str),
    /// This node's: too many writes wait.
    #[error("busy: the store has too many writes waiting")]
    Busy,
    /// The asker's: this many bytes of answers to it wait unwritten (it does not read
    /// them), and this one would pass its share (the node's shell says so in place of
    /// the answer).
    #[error("busy: {0} bytes of answers to you wait unread: read them, then ask again")]
    AnswersUnread(usize),
    /// This node's: its answers to every peer wait unwritten, past what it holds.
    #[error("busy: this node's answers to its peers wait unwritten: ask again later")]
    AnswersWaiting,
    /// This node's: its store cannot be read now.
    #[error("the store cannot be read: {0}")]
    StoreUnreadable(ReadError),
    /// This node's: the proposer's quota is used (`quota.rs`).
    #[error(
        "quota: this node keeps at most {} games, {} envelopes and {} bytes a day for one proposer",
        .0.games, .0.envelopes, .0.bytes
    )]
    ProposerQuota(Usage),
    /// This node's: the share of the proposer's network is used for today.
    #[error(
        "quota: this node keeps at most {} games, {} envelopes and {} bytes a day for one network",
        .0.games, .0.envelopes, .0.bytes
    )]
    NetworkQuota(Usage),
    /// This node's: the strangers' quota is used for today.
    #[error("quota: this node keeps no more for strangers today")]
    StrangersQuota,
    /// This node's: this many games of the proposer are open here.
    #[error("quota: {0} games of this proposer are open here already")]
    OpenForProposer(usize),
    /// This node's: it holds all the open games it may for others.
    #[error("quota: this node holds all the open games it may for others")]
    OpenForAll,
    /// This node's: the game stores this many bytes of envelopes at most, and has them
    /// (`take.rs` `GAME_BYTES`, `INVITATION_BYTES`).
    #[error("this game holds all the {0} bytes of envelopes this node keeps for it")]
    GameFull(u64),
    /// This node's: the signer of the envelopes has this many places in the game's
    /// public chains here, its share (`places.rs`).
    #[error("this game's seat has all the {0} envelopes this node keeps of one seat")]
    SeatFull(u64),
    /// This node's: the games of the asker's network hold their share of what this node
    /// keeps in memory for strangers, and the total is reached (`resident.rs`).
    #[error(
        "busy: the games of your network hold their share of this node's memory for strangers: ask again later"
    )]
    MemoryShare,
    /// This node's: the game has all the deposits it may have.
    #[error("this game has all the deposits it may have")]
    DepositsFull,
    /// This node's: it takes invitations from peers it has played only.
    #[error("this node takes invitations only from peers it has played")]
    OnlyFriends,
    /// This node's: this many invitations of the peer wait here.
    #[error("{0} invitations from this peer already wait here: answer those first")]
    InvitationsFromPeer(usize),
    /// This node's: too many invitations from the address wait here.
    #[error("too many invitations from this address wait here")]
    InvitationsFromAddress,
    /// This node's: too many invitations from unknown peers wait here.
    #[error("too many invitations from unknown peers wait here")]
    InvitationsFromStrangers,
    /// This node's: it held the game for a stranger and dropped it (its lifetime ran
    /// out, or a newcomer from a smaller network took its place); the same proposal is
    /// not taken anew for a while (`held.rs`).
    #[error("{}", match .0 {
        crate::held::Gone::Expired => "expired: this node held that game past its lifetime and dropped it; propose a new game",
        crate::held::Gone::Evicted => "evicted: this node was full and dropped that game for a newcomer; propose a new game",
    })]
    Gone(crate::held::Gone),
    /// The player's: a seat the game was relayed to refused it, saying why (a mailbox
    /// tells the proposer).
    #[error("the player's node refused it: {0}")]
    SeatRefused(String),
}

impl PeerRefusal {
    /// Whether a refusal's words (as `Response::Refused` carries them) are a seat's
    /// refusal of an invitation by its bounds on strangers' invitations — not a passing
    /// one (busy, a rate, its store): what a mailbox keeps to tell the proposer.
    pub fn refuses_invitation(words: &str) -> bool {
        [
            PeerRefusal::OnlyFriends,
            PeerRefusal::InvitationsFromAddress,
            PeerRefusal::InvitationsFromStrangers,
        ]
        .iter()
        .any(|r| r.to_string() == words)
            || words.split_once(' ').is_some_and(|(n, rest)| {
                n.parse::<usize>().is_ok_and(|n| {
                    PeerRefusal::InvitationsFromPeer(n).to_string() == format!("{n} {rest}")
                })
            })
    }
}

impl From<PeerRefusal> for crate::message::Response {
    fn from(r: PeerRefusal) -> Self {
        crate::message::Response::Refused(r.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invitations_refusal_is_told_from_a_passing_one() {
        for r in [
            PeerRefusal::OnlyFriends,
            PeerRefusal::InvitationsFromPeer(8),
            PeerRefusal::InvitationsFromAddress,
            PeerRefusal::InvitationsFromStrangers,
        ] {
            assert!(PeerRefusal::refuses_invitation(&r.to_string()), "{r}");
        }
        for r in [
            PeerRefusal::Busy,
            PeerRefusal::RateLimit("the peer's"),
            PeerRefusal::UnknownGame,
        ] {
            assert!(!PeerRefusal::refuses_invitation(&r.to_string()), "{r}");
        }
        assert!(!PeerRefusal::refuses_invitation("8"));
        assert!(!PeerRefusal::refuses_invitation(""));
    }
}
