//! The signed proposal that creates a game, and the validated terms read from it.
//!
//! The game id is the hash of the *unsigned* proposal bytes. The signature is left out
//! on purpose: a signer can produce many valid signatures for the same bytes, and a
//! game's identity must not depend on which one travelled.
//!
//! A little over 600 lines: the proposal's two encodings (version 1, and version 2 with
//! its witness and drafts), its validation, and the terms read from it belong together;
//! about a third is tests.

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

/// The witness a version 2 game names (spec/PROTOCOL.md §17): the node both players
/// trust for time. It holds no seat and signs nothing in the game's chains; it signs
/// statements about when it held what (`crate::witness`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WitnessSpec {
    /// The witness node's Ed25519 public key.
    pub key: [u8; 32],
    /// Where to reach it (multiaddr text), at most 8 of at most 256 bytes.
    pub addrs: Vec<String>,
}

/// Options whose key begins with this are time controls: read by the nodes that keep
/// the clocks, never by a game's rules.
pub const TIME_OPTION_PREFIX: &str = "time-";

/// The unsigned proposal. Its canonical bytes are hashed into the game id.
///
/// Version 1 encodes the first eight fields; version 2 appends `witness` (§17), so every
/// version 1 proposal keeps its bytes and its game id.
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// The witness (version 2 only; always `None` in version 1).
    pub witness: Option<WitnessSpec>,
}

/// Protocol version 2 as the `version` byte writes it: the low four bits say 2, the
/// high four what were its drafts' numbers (spec/PROTOCOL.md §17.1). `0xB2` is version 2
/// final: its meaning will not change, and a change of what a transcript means is
/// version 3.
pub const VERSION_2: u8 = 0xB2;

/// The `version` bytes of earlier drafts of version 2, each with its draft number: a
/// game made under one is refused, saying so (`ProposalError::EarlierDraft`). Draft 1
/// was written 2, draft 2 0x22, draft 3 0x32, draft 4 0x42, draft 5 0x52, draft 6 0x62,
/// draft 7 0x72, draft 8 0x82, draft 9 0x92, draft 10 0xA2.
pub const EARLIER_DRAFTS: [(u8, u8); 10] = [
    (0x02, 1),
    (0x22, 2),
    (0x32, 3),
    (0x42, 4),
    (0x52, 5),
    (0x62, 6),
    (0x72, 7),
    (0x82, 8),
    (0x92, 9),
    (0xA2, 10),
];

/// Whether a `version` byte is one of version 2's, any draft: such a proposal encodes
/// the witness field.
pub fn is_version_2(version: u8) -> bool {
    version & 0x0f == 2
}

impl Serialize for Proposal {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let v2 = is_version_2(self.version);
        let mut st = s.serialize_struct("Proposal", if v2 { 9 } else { 8 })?;
        st.serialize_field("version", &self.version)?;
        st.serialize_field("variant", &self.variant)?;
        st.serialize_field("options", &self.options)?;
        st.serialize_field("seats", &self.seats)?;
        st.serialize_field("mailboxes", &self.mailboxes)?;
        st.serialize_field("proposer", &self.proposer)?;
        st.serialize_field("clock", &self.clock)?;
        st.serialize_field("nonce", &self.nonce)?;
        if v2 {
            st.serialize_field("witness", &self.witness)?;
        }
        st.end()
    }
}

impl<'de> Deserialize<'de> for Proposal {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// Reads the fields in order; the ninth only when `version` says it is there.
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = Proposal;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a proposal")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Proposal, A::Error> {
                use serde::de::Error;
                // Each field in turn; a missing one is a short encoding.
                macro_rules! next {
                    ($i:expr) => {
                        a.next_element()?
                            .ok_or_else(|| A::Error::invalid_length($i, &"a proposal's fields"))?
                    };
                }
                let version: u8 = next!(0);
                let variant = next!(1);
                let options = next!(2);
                let seats = next!(3);
                let mailboxes = next!(4);
                let proposer = next!(5);
                let clock = next!(6);
                let nonce = next!(7);
                let witness = if is_version_2(version) {
                    next!(8)
                } else {
                    None
                };
                Ok(Proposal {
                    version,
                    variant,
                    options,
                    seats,
                    mailboxes,
                    proposer,
                    clock,
                    nonce,
                    witness,
                })
            }
        }
        const FIELDS: &[&str] = &[
            "version",
            "variant",
            "options",
            "seats",
            "mailboxes",
            "proposer",
            "clock",
            "nonce",
            "witness",
        ];
        d.deserialize_struct("Proposal", FIELDS, Fields)
    }
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
    #[error("protocol version {0} is not supported (this reads versions 1 and 2)")]
    Version(u8),
    /// Made under an earlier draft of version 2, which changed before it was final.
    #[error(
        "made under draft {draft} of protocol version 2, which changed before it was final; \
         this implementation reads version 1 and version 2, final (spec/PROTOCOL.md §17)"
    )]
    EarlierDraft {
        /// The draft.
        draft: u8,
    },
    /// A witness named wrongly: in a version 1 proposal, as a seat in version 2, or with
    /// a key or addresses a node could not use.
    #[error("witness: {0}")]
    Witness(&'static str),
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

/// The witness rules of §17: none in version 1; in version 2 not a seat, a usable key
/// no seat holds, and addresses within the mailboxes' caps.
fn witness_fits(p: &Proposal) -> Result<(), ProposalError> {
    let bad = |why| Err(ProposalError::Witness(why));
    if !is_version_2(p.version) {
        return match p.witness {
            Some(_) => bad("a version 1 proposal names none"),
            None => Ok(()),
        };
    }
    if p.seats.iter().any(|s| s.role == Role::Witness) {
        return bad("in version 2 the witness is no seat");
    }
    let Some(w) = &p.witness else {
        return Ok(());
    };
    if PublicKey::from_bytes(&w.key).is_err() {
        return bad("its key is not a valid public key");
    }
    if p.seats.iter().any(|s| s.key == w.key) {
        return bad("a seat holds its key");
    }
    if w.addrs.len() > 8 || w.addrs.iter().any(|a| a.len() > 256) {
        return bad("at most 8 addresses of at most 256 bytes");
    }
    Ok(())
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
        if let Some((_, draft)) = EARLIER_DRAFTS.iter().find(|(v, _)| *v == p.version) {
            return Err(ProposalError::EarlierDraft { draft: *draft });
        }
        if p.version != VERSION && p.version != VERSION_2 {
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
        witness_fits(p)?;
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

    /// The protocol version byte the terms were proposed under ([`VERSION`] or
    /// [`VERSION_2`]); every envelope of the game carries it.
    pub fn version(&self) -> u8 {
        self.signed.proposal.version
    }

    /// The display name the proposal gives a seat, escaped for showing
    /// ([`crate::text::name`]); `None` when it gives none. Every view that names a seat
    /// reads it here.
    pub fn display_name(&self, seat: Seat) -> Option<String> {
        let spec = self.signed.proposal.seats.get(seat.index())?;
        Some(crate::text::name(&spec.name)).filter(|n| !n.is_empty())
    }

    /// The witness, if the game names one (version 2).
    pub fn witness(&self) -> Option<&WitnessSpec> {
        self.signed.proposal.witness.as_ref()
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
            witness: None,
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
    fn version_2_carries_a_witness_and_version_1_keeps_its_bytes() {
        let a = SecretKey::from_seed(&[1; 32]);
        let b = SecretKey::from_seed(&[2; 32]);
        let w = SecretKey::from_seed(&[3; 32]);
        let v1 = two_player("duel", &[&a, &b]);
        // Version 1 encodes eight fields, exactly as before version 2 existed.
        let mut v2 = v1.clone();
        v2.version = VERSION_2;
        assert_eq!(
            wire::encode(&v2).len(),
            wire::encode(&v1).len() + 1,
            "one byte: None"
        );
        v2.witness = Some(WitnessSpec {
            key: w.public().to_bytes(),
            addrs: vec!["/ip4/192.0.2.1/tcp/4001".into()],
        });
        let terms = Terms::parse(&wire::encode(&v2.clone().sign(&a))).unwrap();
        assert_eq!(terms.version(), VERSION_2);
        assert_eq!(terms.witness(), v2.witness.as_ref());
        assert_ne!(terms.game(), v1.game_id());
        // A version 2 proposal cut before its witness does not decode.
        let bytes = wire::encode(&v2);
        let cut: Result<Proposal, _> = wire::decode(&bytes[..wire::encode(&v1).len()], MAX_MESSAGE);
        assert!(cut.is_err());
        // A witness in version 1, a witness seat in version 2, a seat's key as the
        // witness's: refused, each with why.
        let mut bad = v1.clone();
        bad.witness = v2.witness.clone();
        assert!(matches!(
            Terms::from_signed(bad.sign(&a)),
            Err(ProposalError::Witness(_))
        ));
        let mut seat = v2.clone();
        seat.seats.push(SeatSpec {
            role: Role::Witness,
            key: SecretKey::from_seed(&[4; 32]).public().to_bytes(),
            name: String::new(),
        });
        assert!(matches!(
            Terms::from_signed(seat.sign(&a)),
            Err(ProposalError::Witness(
                "in version 2 the witness is no seat"
            ))
        ));
        let mut shared = v2.clone();
        shared.witness.as_mut().unwrap().key = b.public().to_bytes();
        assert!(matches!(
            Terms::from_signed(shared.sign(&a)),
            Err(ProposalError::Witness("a seat holds its key"))
        ));
        let mut v3 = v1.clone();
        v3.version = 3;
        assert!(matches!(
            Terms::from_signed(v3.sign(&a)),
            Err(ProposalError::Version(3))
        ));
        // A game of version 2's first draft is refused as that, by name.
        let mut draft1 = v2.clone();
        draft1.version = 0x02;
        let e = Terms::from_signed(draft1.sign(&a)).unwrap_err();
        assert_eq!(e, ProposalError::EarlierDraft { draft: 1 });
        assert!(
            e.to_string().contains("draft 1 of protocol version 2"),
            "{e}"
        );
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
