//! The signed proposal that creates a game, and the validated terms read from it.
//!
//! The game id is the hash of the *unsigned* proposal bytes. The signature is left out
//! on purpose: a signer can produce many valid signatures for the same bytes, and a
//! game's identity must not depend on which one travelled.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::hash::{Framed, tag};
use crate::ids::{GameId, Name, Seat};
use crate::keys::{KeyError, PublicKey, SecretKey, Signature};
use crate::wire::{self, MAX_MESSAGE, WireError};

/// Protocol version carried in proposals and envelopes.
pub const VERSION: u8 = 1;

/// What a seat does in the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// Plays the game.
    Player,
    /// Sees hidden information and answers for it (Secret Stallmate's referee).
    Referee,
    /// Countersigns envelopes with its clock, turning clock claims into proofs.
    Witness,
}

/// One seat of the proposal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatSpec {
    /// The seat's role.
    pub role: Role,
    /// Its Ed25519 public key (also its libp2p identity).
    pub key: [u8; 32],
    /// A display name, at most 64 bytes; not part of any rule.
    pub name: String,
}

/// A node both players trust to store and forward public envelopes. It holds no seat:
/// it signs nothing in the game and can only relay what seats signed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MailboxSpec {
    /// The mailbox node's Ed25519 public key.
    pub key: [u8; 32],
    /// Where to reach it (multiaddr text), at most 8 of at most 256 bytes.
    pub addrs: Vec<String>,
}

/// Options whose key begins with this are time controls: read by the nodes that keep
/// the clocks, never by a game's rules.
pub const TIME_OPTION_PREFIX: &str = "time-";

/// The unsigned proposal. Its canonical bytes are hashed into the game id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    /// [`VERSION`].
    pub version: u8,
    /// The game variant, e.g. `cardmate`.
    pub variant: Name,
    /// Rule options as `(key, value)`, keys strictly ascending.
    pub options: Vec<(Name, String)>,
    /// Every seat; players first.
    pub seats: Vec<SeatSpec>,
    /// Mailbox nodes, possibly none.
    pub mailboxes: Vec<MailboxSpec>,
    /// The player who proposes and signs.
    pub proposer: Seat,
    /// The proposer's clock, milliseconds since the Unix epoch.
    pub clock: u64,
    /// Fresh randomness so that two otherwise equal proposals name two games.
    pub nonce: [u8; 32],
}

/// A proposal with the proposer's signature; the form that travels.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedProposal {
    /// The proposal.
    pub proposal: Proposal,
    /// Proposer's signature over `"sealed/v1/sign/proposal" ‖ 0x00 ‖ proposal bytes`.
    pub sig: Signature,
}

/// Why a proposal is not acceptable.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ProposalError {
    /// The bytes are not a proposal.
    #[error("proposal bytes: {0}")]
    Wire(#[from] WireError),
    /// Unknown protocol version.
    #[error("protocol version {0} is not supported (this is version {VERSION})")]
    Version(u8),
    /// Seat list does not fit the rules of §2 of the spec.
    #[error("seats: {0}")]
    Seats(&'static str),
    /// A seat's key is unusable.
    #[error("seat {seat}: {err}")]
    Key {
        /// Which seat.
        seat: u8,
        /// What is wrong.
        err: KeyError,
    },
    /// Options are not sorted, repeat a key, or are too long.
    #[error("options: {0}")]
    Options(&'static str),
    /// Mailbox list too long or addresses too long.
    #[error("mailboxes: {0}")]
    Mailboxes(&'static str),
    /// The proposer is not a player.
    #[error("the proposer must be a player")]
    Proposer,
    /// The signature does not verify under the proposer's key.
    #[error("proposal signature does not verify")]
    Signature,
    /// A `time-` option is malformed or unknown (§5.4).
    #[error("time control: {0}")]
    Time(#[from] crate::time::TimeError),
}

/// Most seats a game may have (two players, a referee, a witness, room to spare).
pub const MAX_SEATS: usize = 8;

/// The signed message for a proposal or an envelope: `tag ‖ 0x00 ‖ bytes`.
pub(crate) fn signing_input(tag: &str, bytes: &[u8]) -> Vec<u8> {
    let mut m = Vec::with_capacity(tag.len() + 1 + bytes.len());
    m.extend_from_slice(tag.as_bytes());
    m.push(0);
    m.extend_from_slice(bytes);
    m
}

impl Proposal {
    /// The game id these exact terms name.
    pub fn game_id(&self) -> GameId {
        GameId(
            Framed::new(tag::GAME_ID)
                .field(&wire::encode(self))
                .finish(),
        )
    }

    /// Signs as the proposer.
    pub fn sign(self, key: &SecretKey) -> SignedProposal {
        let sig = key.sign(&signing_input(tag::SIGN_PROPOSAL, &wire::encode(&self)));
        SignedProposal {
            proposal: self,
            sig,
        }
    }

    /// The options the game's rules read: every option but the time controls. Rules
    /// refuse options they do not know, and a clock is the nodes' business, not a rule
    /// of any game (spec/PROTOCOL.md §2.4).
    pub fn rule_options(&self) -> Vec<(Name, String)> {
        self.options
            .iter()
            .filter(|(k, _)| !k.as_str().starts_with(TIME_OPTION_PREFIX))
            .cloned()
            .collect()
    }

    /// The time-control options (keys beginning `time-`), for the nodes' clocks.
    pub fn time_options(&self) -> impl Iterator<Item = (&str, &str)> {
        self.options
            .iter()
            .filter(|(k, _)| k.as_str().starts_with(TIME_OPTION_PREFIX))
            .map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Looks up an option value.
    pub fn option(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(k, _)| k.as_str() == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Validated terms: a signed proposal whose every field has been checked, with its keys
/// parsed and its game id computed. The only way to get one is [`Terms::parse`] or
/// [`Terms::from_signed`].
#[derive(Clone, Debug)]
pub struct Terms {
    signed: SignedProposal,
    bytes: Vec<u8>,
    game: GameId,
    keys: Vec<PublicKey>,
    players: u8,
}

impl Terms {
    /// Parses and checks the travelling bytes of a signed proposal.
    pub fn parse(bytes: &[u8]) -> Result<Self, ProposalError> {
        let signed: SignedProposal = wire::decode(bytes, MAX_MESSAGE)?;
        Self::from_signed(signed)
    }

    /// Checks a signed proposal.
    pub fn from_signed(signed: SignedProposal) -> Result<Self, ProposalError> {
        let p = &signed.proposal;
        if p.version != VERSION {
            return Err(ProposalError::Version(p.version));
        }
        if p.seats.len() < 2 || p.seats.len() > MAX_SEATS {
            return Err(ProposalError::Seats("a game has 2 to 8 seats"));
        }
        let players = p
            .seats
            .iter()
            .take_while(|s| s.role == Role::Player)
            .count();
        if players < 2 {
            return Err(ProposalError::Seats("seats 0 and 1 must be players"));
        }
        let rest = &p.seats[players..];
        if rest.iter().any(|s| s.role == Role::Player) {
            return Err(ProposalError::Seats("players must come before other seats"));
        }
        for role in [Role::Referee, Role::Witness] {
            if rest.iter().filter(|s| s.role == role).count() > 1 {
                return Err(ProposalError::Seats("at most one referee and one witness"));
            }
        }
        if p.seats.iter().any(|s| s.name.len() > 64) {
            return Err(ProposalError::Seats("a seat name is longer than 64 bytes"));
        }
        let mut keys = Vec::with_capacity(p.seats.len());
        for (i, s) in p.seats.iter().enumerate() {
            let key = PublicKey::from_bytes(&s.key)
                .map_err(|err| ProposalError::Key { seat: i as u8, err })?;
            if keys.iter().any(|k: &PublicKey| k.to_bytes() == s.key) {
                return Err(ProposalError::Seats("two seats share a key"));
            }
            keys.push(key);
        }
        if p.options.len() > 64 {
            return Err(ProposalError::Options("more than 64 options"));
        }
        if p.options.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(ProposalError::Options("keys must be strictly ascending"));
        }
        if p.options.iter().any(|(_, v)| v.len() > 256) {
            return Err(ProposalError::Options("a value is longer than 256 bytes"));
        }
        // Time controls are part of the terms: what a node would refuse, a verifier must.
        crate::time::TimeControl::of(p)?;
        if p.mailboxes.len() > 4 {
            return Err(ProposalError::Mailboxes("more than 4 mailboxes"));
        }
        // A mailbox signs nothing in the game, but its key is its network identity: a key
        // that could never authenticate a node is a mistake to refuse now.
        if p.mailboxes
            .iter()
            .any(|m| PublicKey::from_bytes(&m.key).is_err())
        {
            return Err(ProposalError::Mailboxes(
                "a mailbox key is not a valid public key",
            ));
        }
        if p.mailboxes
            .iter()
            .any(|m| m.addrs.len() > 8 || m.addrs.iter().any(|a| a.len() > 256))
        {
            return Err(ProposalError::Mailboxes(
                "at most 8 addresses of at most 256 bytes",
            ));
        }
        if p.proposer.index() >= players {
            return Err(ProposalError::Proposer);
        }
        let bytes = wire::encode(p);
        let input = signing_input(tag::SIGN_PROPOSAL, &bytes);
        if !keys[p.proposer.index()].verify(&input, &signed.sig) {
            return Err(ProposalError::Signature);
        }
        let game = p.game_id();
        Ok(Terms {
            bytes: wire::encode(&signed),
            signed,
            game,
            keys,
            players: players as u8,
        })
    }

    /// The proposal.
    pub fn proposal(&self) -> &Proposal {
        &self.signed.proposal
    }

    /// The signed proposal.
    pub fn signed(&self) -> &SignedProposal {
        &self.signed
    }

    /// The travelling bytes of the signed proposal.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The game id.
    pub fn game(&self) -> GameId {
        self.game
    }

    /// The variant name.
    pub fn variant(&self) -> &str {
        self.signed.proposal.variant.as_str()
    }

    /// Number of seats.
    pub fn seat_count(&self) -> usize {
        self.keys.len()
    }

    /// Every seat, in order.
    pub fn seats(&self) -> impl Iterator<Item = Seat> + '_ {
        (0..self.keys.len() as u8).map(Seat)
    }

    /// Number of players (seats `0..players`).
    pub fn players(&self) -> u8 {
        self.players
    }

    /// The player seats.
    pub fn player_seats(&self) -> impl Iterator<Item = Seat> {
        (0..self.players).map(Seat)
    }

    /// Whether a seat is a player.
    pub fn is_player(&self, seat: Seat) -> bool {
        seat.0 < self.players
    }

    /// A seat's role, if the seat exists.
    pub fn role(&self, seat: Seat) -> Option<Role> {
        self.signed.proposal.seats.get(seat.index()).map(|s| s.role)
    }

    /// A seat's key, if the seat exists.
    pub fn key(&self, seat: Seat) -> Option<&PublicKey> {
        self.keys.get(seat.index())
    }

    /// The seat a key holds, if any.
    pub fn seat_of(&self, key: &[u8; 32]) -> Option<Seat> {
        self.keys
            .iter()
            .position(|k| &k.to_bytes() == key)
            .map(|i| Seat(i as u8))
    }

    /// The seat of the referee, if the game has one.
    pub fn referee(&self) -> Option<Seat> {
        self.seats().find(|s| self.role(*s) == Some(Role::Referee))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn two_player(variant: &str, keys: &[&SecretKey]) -> Proposal {
        Proposal {
            version: VERSION,
            variant: Name::new(variant).unwrap(),
            options: vec![],
            seats: keys
                .iter()
                .map(|k| SeatSpec {
                    role: Role::Player,
                    key: k.public().to_bytes(),
                    name: String::new(),
                })
                .collect(),
            mailboxes: vec![],
            proposer: Seat(0),
            clock: 0,
            nonce: [0; 32],
        }
    }

    #[test]
    fn signed_proposal_parses_and_names_a_game() {
        let a = SecretKey::from_seed(&[1; 32]);
        let b = SecretKey::from_seed(&[2; 32]);
        let signed = two_player("duel", &[&a, &b]).sign(&a);
        let terms = Terms::parse(&wire::encode(&signed)).unwrap();
        assert_eq!(terms.players(), 2);
        assert_eq!(terms.game(), signed.proposal.game_id());
    }

    #[test]
    fn wrong_signer_is_refused() {
        let a = SecretKey::from_seed(&[1; 32]);
        let b = SecretKey::from_seed(&[2; 32]);
        let signed = two_player("duel", &[&a, &b]).sign(&b);
        assert_eq!(
            Terms::from_signed(signed).unwrap_err(),
            ProposalError::Signature
        );
    }

    #[test]
    fn unsorted_options_are_refused() {
        let a = SecretKey::from_seed(&[1; 32]);
        let b = SecretKey::from_seed(&[2; 32]);
        let mut p = two_player("duel", &[&a, &b]);
        p.options = vec![
            (Name::new("z").unwrap(), "1".into()),
            (Name::new("a").unwrap(), "2".into()),
        ];
        assert!(matches!(
            Terms::from_signed(p.sign(&a)),
            Err(ProposalError::Options(_))
        ));
    }
}
