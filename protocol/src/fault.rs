//! Proven faults: a signed envelope that breaks a rule, with whose fault it is.
//!
//! Each way a seat can lie is its own variant, because the verdict is computed from
//! these and a reader must be able to tell a card played from nowhere from a chain
//! that forks. A bad signature is *not* here: unsigned bytes prove nothing about anyone.

use core::fmt;

use serde::{Deserialize, Serialize};

use crate::ids::{EnvRef, Seat};
use crate::proposal::Role;

/// The rule a signed envelope broke.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum FaultKind {
    /// Two different envelopes signed at one position of one chain.
    Equivocation,
    /// `prev` does not name the seat's own previous envelope (or is not zero at seq 0).
    #[serde(rename = "wrong-previous-hash")]
    WrongPrevious,
    /// An acknowledgement of the sender's own chain, out of order, or across logs.
    MalformedAck,
    /// An acknowledgement earlier than one the same chain already gave.
    BackwardAck,
    /// A body over the size limits.
    OverLimits,
    /// A seat posting to a log outside its audience.
    NotInAudience,
    /// An item where the protocol does not allow it (e.g. an acceptance mid-game).
    OutOfPhase,
    /// The first envelope does not hold exactly the commitments the game requires.
    WrongStartCommitments,
    /// A second commitment for a purpose and index already committed.
    DuplicateCommitment,
    /// A commitment made after seeing what depends on it (void).
    CommitmentAfterDependent,
    /// A coin reveal or a deal sent before acknowledging the commitments it depends on.
    PrematureReveal,
    /// A seed or setup opened before the game ended.
    EarlyReveal,
    /// An opening that does not match its commitment.
    OpeningMismatch,
    /// An opening of something never committed.
    OpeningWithoutCommitment,
    /// A deck slot opened in play that was never dealt to its owner.
    SlotNeverDealt,
    /// A deck slot opened twice in play.
    SlotUsedTwice,
    /// One card number opened from two slots: the deck is not a permutation.
    CardFromTwoSlots,
    /// A card number that is not on the agreed list.
    CardNotOnList,
    /// A slot number outside the deck.
    SlotOutOfRange,
    /// A slot dealt twice by the same dealer.
    IndexRepeated,
    /// More slots dealt than the game owes at that point.
    OverDealt,
    /// Dealt slots that the dealer's revealed seed does not produce.
    DealNotFromSeed,
    /// A deal made before the owner's deck commitment was acknowledged.
    DealBeforeCommitment,
    /// A game act by a seat that was not to act in its own view.
    OutOfTurn,
    /// A game act the rules refuse.
    IllegalAct,
    /// Act bytes the game cannot decode.
    UndecodableAct,
    /// A non-close item after the seat's close.
    AfterClose,
    /// A close before the game ended in the sender's view.
    CloseBeforeEnd,
    /// A check the game's own rules make at the end (e.g. a referee's false answer).
    GameRule,
    /// Evidence posted in an envelope that does not prove what it claims.
    FalseEvidence,
    /// A draw value sent before the draw it is for was declared (in the sender's view).
    DrawValueEarly,
    /// A draw chain value that does not hash to the value before it.
    DrawChainBroken,
    /// A time forfeit (version 2) whose statements do not prove the accused out of
    /// time, or whose accused owed nothing in the sender's view.
    FalseForfeit,
    /// A statements item (version 2) holding something other than statements signed
    /// by the game's witness for this game, in shape.
    FalseStatement,
}

impl FaultKind {
    /// A stable kebab-case name, used in JSON output and reject vectors.
    pub fn name(&self) -> &'static str {
        use FaultKind::*;
        match self {
            Equivocation => "equivocation",
            WrongPrevious => "wrong-previous-hash",
            MalformedAck => "malformed-ack",
            BackwardAck => "backward-ack",
            OverLimits => "over-limits",
            NotInAudience => "not-in-audience",
            OutOfPhase => "out-of-phase",
            WrongStartCommitments => "wrong-start-commitments",
            DuplicateCommitment => "duplicate-commitment",
            CommitmentAfterDependent => "commitment-after-dependent",
            PrematureReveal => "premature-reveal",
            EarlyReveal => "early-reveal",
            OpeningMismatch => "opening-mismatch",
            OpeningWithoutCommitment => "opening-without-commitment",
            SlotNeverDealt => "slot-never-dealt",
            SlotUsedTwice => "slot-used-twice",
            CardFromTwoSlots => "card-from-two-slots",
            CardNotOnList => "card-not-on-list",
            SlotOutOfRange => "slot-out-of-range",
            IndexRepeated => "index-repeated",
            OverDealt => "over-dealt",
            DealNotFromSeed => "deal-not-from-seed",
            DealBeforeCommitment => "deal-before-commitment",
            OutOfTurn => "out-of-turn",
            IllegalAct => "illegal-act",
            UndecodableAct => "undecodable-act",
            AfterClose => "after-close",
            CloseBeforeEnd => "close-before-end",
            GameRule => "game-rule",
            FalseEvidence => "false-evidence",
            DrawValueEarly => "draw-value-early",
            DrawChainBroken => "draw-chain-broken",
            FalseForfeit => "false-forfeit",
            FalseStatement => "false-statement",
        }
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A proven fault: the seat that signed, its role, the envelope, the rule, and why.
/// A referee's fault is told apart by its role: it never turns into a player's loss by
/// itself (see `Rules::adjudicate`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Fault {
    /// Whose fault it is.
    pub seat: Seat,
    /// That seat's role.
    pub role: Role,
    /// The envelope that proves it.
    pub at: EnvRef,
    /// The rule broken.
    pub kind: FaultKind,
    /// A sentence for people.
    pub detail: String,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at {}: {} ({})",
            self.seat, self.at, self.kind, self.detail
        )
    }
}

#[cfg(test)]
mod tests {
    use super::FaultKind::{self, *};

    const ALL: &[FaultKind] = &[
        Equivocation,
        WrongPrevious,
        MalformedAck,
        BackwardAck,
        OverLimits,
        NotInAudience,
        OutOfPhase,
        WrongStartCommitments,
        DuplicateCommitment,
        CommitmentAfterDependent,
        PrematureReveal,
        EarlyReveal,
        OpeningMismatch,
        OpeningWithoutCommitment,
        SlotNeverDealt,
        SlotUsedTwice,
        CardFromTwoSlots,
        CardNotOnList,
        SlotOutOfRange,
        IndexRepeated,
        OverDealt,
        DealNotFromSeed,
        DealBeforeCommitment,
        OutOfTurn,
        IllegalAct,
        UndecodableAct,
        AfterClose,
        CloseBeforeEnd,
        GameRule,
        FalseEvidence,
        DrawValueEarly,
        DrawChainBroken,
        FalseForfeit,
        FalseStatement,
    ];

    #[test]
    fn json_names_are_the_documented_names() {
        for k in ALL {
            assert_eq!(
                serde_json::to_value(k).unwrap(),
                serde_json::Value::String(k.name().into())
            );
        }
    }

    #[test]
    fn wire_numbers_follow_declaration_order() {
        // The spec numbers fault kinds in declaration order: new kinds go at the end.
        for (i, k) in ALL.iter().enumerate() {
            assert_eq!(crate::wire::encode(k), vec![i as u8]);
        }
    }
}
