//! The sync protocol's messages: what two nodes say to each other about a game
//! (`/sealed/sync/1`; the shell frames them on libp2p, `sealed_node::sync`).
//!
//! Envelopes are facts signed by seats; nodes only move them around. A node offers
//! what it has (`Push`), asks for what it lacks (`Pull`, with the counts it holds of
//! each chain), and hands over a new game's signed proposal (`Propose`). Every message
//! is idempotent: a duplicate changes nothing, so delivery may repeat or reorder freely.

use serde::{Deserialize, Serialize};

use sealed_protocol::ids::{ChainId, GameId};

/// Most items (envelopes, games, heads entries, addresses, hashes, statements) one
/// message may hold (counted before decoding by `sealed_node::sync`).
pub const MAX_ITEMS: usize = 65_536;

/// Largest request or response on the wire. A push carries at most what a game needs
/// to catch up; 8 MiB is far above any game and bounds what a peer can make us buffer.
pub const MAX_SYNC_MESSAGE: usize = 8 * 1024 * 1024;

/// What a node holds of one game: its id and the envelopes held per chain.
pub type GameHeads = (GameId, Vec<(ChainId, u64)>);

/// A request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Request {
    /// A new game: the signed proposal's bytes.
    Propose {
        /// The signed proposal.
        proposal: Vec<u8>,
    },
    /// Envelopes of a game, exact bytes, in chain order.
    Push {
        /// The game id.
        game: GameId,
        /// The envelopes.
        envelopes: Vec<Vec<u8>>,
    },
    /// What the asker holds of a game; the answer is what it lacks and may see.
    Pull {
        /// The game id.
        game: GameId,
        /// Envelopes held per chain (a chain not listed: none).
        have: Vec<(ChainId, u64)>,
    },
    /// What the asker holds of every unfinished game it shares with the peer, in one
    /// request: the anti-entropy round that repairs whatever a lost push left behind.
    /// The answer is [`Response::Behind`].
    Heads {
        /// Per game, envelopes held per chain.
        games: Vec<GameHeads>,
    },
    /// Envelopes of several games at once: what a node sends when moves in many games
    /// are waiting to go to the same peer.
    PushMany {
        /// Per game, the envelopes.
        games: Vec<(GameId, Vec<Vec<u8>>)>,
    },
    /// A game's signed proposal with its envelopes, in one message: a peer that did not
    /// know the game cannot refuse the envelopes as those of an unknown game.
    Offer {
        /// The signed proposal.
        proposal: Vec<u8>,
        /// The envelopes.
        envelopes: Vec<Vec<u8>>,
    },
    /// Where the other seats of a game can be reached, as the sender knows them:
    /// multiaddrs ending in `/p2p/<peer id>`. A game of three seats (Secret Stallmate's
    /// referee) needs it: the proposer knows every address, the others only the
    /// proposer's.
    Introduce {
        /// The game.
        game: GameId,
        /// At most [`MAX_INTRODUCED`] addresses.
        addrs: Vec<String>,
    },
    /// To a game's witness (protocol version 2), from a seat: its ledgers of the game
    /// now, with every public envelope's time (spec/PROTOCOL.md §17). The answer is
    /// [`Response::Statements`].
    Witness {
        /// The game.
        game: GameId,
    },
    /// To a game's witness (protocol version 2), from a seat of a game with private
    /// logs: deposits to keep for the other seat of each one's log — stamped, durably,
    /// with the time first held (spec/PROTOCOL.md §17, deposits). The answer is
    /// [`Response::Statements`]: a stamp per deposit, in order, then a ledger of counts.
    Deposit {
        /// The game.
        game: GameId,
        /// At most [`MAX_DEPOSITS`] deposits, each the bytes `sealed_protocol::deposit`
        /// makes.
        deposits: Vec<Vec<u8>>,
    },
    /// To a game's witness, from a seat: the game's deposits from number `from` on. The
    /// answer is [`Response::Deposits`].
    Deposits {
        /// The game.
        game: GameId,
        /// The number of the first deposit wanted (deposits are numbered from 0 in the
        /// order the witness first held them).
        from: u64,
    },
    /// A ruling from outside the seats, for a seat's node to post as its next act
    /// (spec/PROTOCOL.md §16.3): the act's bytes, signed inside by the one the terms name
    /// to rule (Tempête's arbiter, spec/GAMES.md §4.20). A game's mailbox sends it to
    /// each seat; the answer is `Ok` (kept, to be posted) or `Refused` with why.
    Ruling {
        /// The game.
        game: GameId,
        /// The game act, at most [`MAX_RULING`] bytes.
        act: Vec<u8>,
    },
    /// An [`Request::Offer`] from a mailbox of the game to a seat, saying where the
    /// proposal came from (spec/PROTOCOL.md §16.4, *Strangers' invitations*): the seat
    /// counts the invitation at that origin, not at the mailbox's own address. Unsigned
    /// and only a mailbox's word; sent to a peer only on `/sealed/sync/1`, where a node
    /// of before that does not read it fails that one request (the mailbox then sends
    /// it a plain `Offer`).
    OfferFrom {
        /// The signed proposal.
        proposal: Vec<u8>,
        /// The envelopes.
        envelopes: Vec<Vec<u8>>,
        /// The origin's key, as the budgets count an address (`ip4/<address>`,
        /// `ip6/<first 64 bits>`, `relay/<id>`), at most [`crate::held::MAX_ORIGIN`]
        /// bytes; the receiver reads its network from it.
        origin: String,
    },
}

/// Most bytes of a ruling's act: above any game act a ruling can be (a Tempête act of
/// the physical deck is at most 1024 bytes).
pub const MAX_RULING: usize = 4096;

/// Most deposits one request may carry: the answer's stamps fit one statements item.
pub const MAX_DEPOSITS: usize = 64;

/// The most addresses one introduction may carry.
pub const MAX_INTRODUCED: usize = 16;

/// A response.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Response {
    /// Taken (for `Propose` and `Push`: how many envelopes were new).
    Ok {
        /// New envelopes stored.
        new: u32,
    },
    /// What the asker lacks.
    Envelopes(Vec<Vec<u8>>),
    /// Refused, with why (an outsider, an unknown game, malformed bytes).
    Refused(String),
    /// The answer to [`Request::Heads`]: what the asker lacks, per game, and the games
    /// the answerer does not know (the asker then offers them).
    Behind {
        /// Per game, the envelopes the asker lacks and may see.
        envelopes: Vec<(GameId, Vec<Vec<u8>>)>,
        /// Games the answerer has never heard of.
        unknown: Vec<GameId>,
    },
    /// The answer to [`Request::Witness`] and [`Request::Deposit`]: signed statements,
    /// each the bytes of a `SignedStatement` (spec/PROTOCOL.md §17).
    Statements(Vec<Vec<u8>>),
    /// The answer to [`Request::Deposits`]: deposits in order, and the number to ask
    /// from next.
    Deposits {
        /// The deposits' bytes.
        deposits: Vec<Vec<u8>>,
        /// One past the last number given.
        next: u64,
    },
}

/// An envelope's header, if its bytes decode (its signature is checked elsewhere). A
/// version 2 envelope travels without its game id: the caller knows the game from the
/// message, and only the header is read here.
fn envelope(bytes: &[u8]) -> Option<sealed_protocol::envelope::Envelope> {
    crate::record::envelope_header(bytes)
}

/// The (chain, seq) of every envelope of a batch that decodes.
pub(crate) fn places(envelopes: &[Vec<u8>]) -> Vec<(ChainId, u64)> {
    envelopes
        .iter()
        .filter_map(|b| envelope(b))
        .map(|e| (e.unsigned.at().chain, e.unsigned.seq))
        .collect()
}

/// The game a signed proposal's bytes name (its signature is checked elsewhere): what
/// an offer's envelopes belong to.
pub(crate) fn proposal_game(proposal: &[u8]) -> Option<GameId> {
    let signed: sealed_protocol::proposal::SignedProposal =
        sealed_protocol::wire::decode(proposal, sealed_protocol::wire::MAX_MESSAGE).ok()?;
    Some(signed.proposal.game_id())
}
