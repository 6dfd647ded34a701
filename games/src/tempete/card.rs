//! The card vocabulary: when a card may be played ([`Timing`]), what it does
//! ([`Effect`], written in a small keyword grammar), and the card itself ([`Card`]).
//!
//! An effect is either a *board effect*, which [`crate::tempete::Board::apply`] checks and
//! carries out, or a *flow effect* ([`FlowEffect`]) about hands, cards and sealed values,
//! which the protocol flow carries out; the board treats a flow card played with a move
//! as a plain move.

use core::fmt;

use crate::chess::Kind;

/// When a card may be played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Timing {
    /// On your turn, before your chess move (`before`).
    Before,
    /// On your turn, as your whole move (`instead`).
    Instead,
    /// On your turn, after your chess move (`after`).
    After,
    /// During the opponent's move, as an interception (`intercept`).
    Interception,
    /// In response to a card the opponent plays (`response`).
    Response,
    /// At the start of your turn, before anything else (`turn-start`).
    TurnStart,
    /// After a turn in which you lost a piece other than a pawn (`after-loss`).
    AfterLoss,
}

impl Timing {
    /// Every timing, in the order above.
    pub const ALL: [Timing; 7] = [
        Timing::Before,
        Timing::Instead,
        Timing::After,
        Timing::Interception,
        Timing::Response,
        Timing::TurnStart,
        Timing::AfterLoss,
    ];

    /// The keyword the deck format writes.
    pub fn keyword(self) -> &'static str {
        match self {
            Timing::Before => "before",
            Timing::Instead => "instead",
            Timing::After => "after",
            Timing::Interception => "intercept",
            Timing::Response => "response",
            Timing::TurnStart => "turn-start",
            Timing::AfterLoss => "after-loss",
        }
    }

    /// The timing a keyword names.
    pub fn from_keyword(word: &str) -> Option<Timing> {
        Timing::ALL.into_iter().find(|t| t.keyword() == word)
    }

    /// Whether a card of this timing goes with the player's own chess move, and so
    /// through [`crate::tempete::Board::apply`].
    pub fn is_own_move(self) -> bool {
        matches!(self, Timing::Before | Timing::Instead | Timing::After)
    }

    /// Whether a card of this timing may be played at `moment`.
    pub fn fits(self, moment: Moment) -> bool {
        match moment {
            Moment::OwnMove => self.is_own_move(),
            Moment::OpponentMove => self == Timing::Interception,
            Moment::OpponentCard => self == Timing::Response,
            Moment::TurnStart => self == Timing::TurnStart,
            Moment::AfterLoss => self == Timing::AfterLoss,
        }
    }
}

impl fmt::Display for Timing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.keyword())
    }
}

/// Where in the game the flow wants to play a card: what [`Timing::fits`] is asked about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Moment {
    /// With one's own chess move (before, instead of or after it).
    OwnMove,
    /// Just after the opponent's move, intercepting it.
    OpponentMove,
    /// Just after the opponent played a card.
    OpponentCard,
    /// At the start of one's turn.
    TurnStart,
    /// After a turn, as the one who lost a piece.
    AfterLoss,
}

impl fmt::Display for Moment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Moment::OwnMove => "with your own move",
            Moment::OpponentMove => "during the opponent's move",
            Moment::OpponentCard => "in response to a card",
            Moment::TurnStart => "at the start of your turn",
            Moment::AfterLoss => "after losing a piece",
        })
    }
}

/// A move pattern a piece may gain for good ([`Effect::Augment`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// One step left or right onto an empty square (`sidestep`).
    Sidestep,
    /// The moves and captures of a kind, castling excepted (`knight`, `king`, …).
    As(Kind),
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pattern::Sidestep => f.write_str("sidestep"),
            Pattern::As(kind) => f.write_str(kind_word(*kind)),
        }
    }
}

/// What a secret trap square does to an enemy piece that ends its move on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TrapEffect {
    /// The piece is removed (a king is immune) (`remove`).
    Remove,
    /// The piece may not move for its owner's next `turns` turns (`freeze N`).
    Freeze {
        /// How many of its owner's turns.
        turns: u8,
    },
}

impl fmt::Display for TrapEffect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrapEffect::Remove => f.write_str("remove"),
            TrapEffect::Freeze { turns } => write!(f, "freeze {turns}"),
        }
    }
}

/// What a card does. The deck format writes each as a keyword and its parameters
/// (`extra-move knight`, `pawn-rush 3`, `trap freeze 2`); [`fmt::Display`] writes that
/// form and [`Effect::parse`] reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Effect {
    /// Two moves in a row, each by a piece of `kind` (the same one or another)
    /// (`extra-move KIND`).
    ExtraMove {
        /// The kind that moves twice.
        kind: Kind,
    },
    /// A pawn advances straight up to `squares` empty squares (`pawn-rush N`).
    PawnRush {
        /// The longest advance.
        squares: u8,
    },
    /// One piece other than a king moves as a `kind` this turn (`move-as KIND`).
    MoveAs {
        /// The pattern it moves by.
        kind: Kind,
    },
    /// One piece other than a king gains a move pattern for good (`augment PATTERN`).
    Augment {
        /// The pattern gained.
        pattern: Pattern,
    },
    /// Two of your pieces change places (`swap-own`).
    SwapOwn,
    /// One of your pieces changes places with an adjacent enemy piece, kings excepted
    /// (`swap-enemy`).
    SwapEnemy,
    /// A pawn steps straight back onto an empty square or captures diagonally backwards
    /// (`pawn-back`).
    PawnBack,
    /// You remove one of your own pawns (`sacrifice-pawn`).
    SacrificePawn,
    /// A pawn standing on its `rank`-th rank or further promotes at once
    /// (`early-promote N`).
    EarlyPromote {
        /// The lowest rank, counted from the owner's side (1..=7).
        rank: u8,
    },
    /// A piece of yours the opponent took returns to an empty starting square of its
    /// kind (`revive`).
    Revive,
    /// No piece may end a move on a square during the next `plies` plies
    /// (`forbid-square N`).
    ForbidSquare {
        /// How many plies after this one.
        plies: u8,
    },
    /// Nobody may capture until a king is attacked (`truce`).
    Truce,
    /// After your move, another piece of yours makes a move that captures nothing
    /// (`second-move`).
    SecondMove,
    /// Your king moves two squares in a straight line over an empty square onto an empty
    /// one (`king-leap`).
    KingLeap,
    /// A piece other than a king jumps to any empty square of the colour of the square it
    /// stands on (`jump-color`).
    JumpColor,
    /// An enemy piece other than a king may not move for its owner's next `turns` turns
    /// (`freeze N`).
    Freeze {
        /// How many of its owner's turns.
        turns: u8,
    },
    /// You name a secret square (a sealed value); an enemy piece ending its move there
    /// suffers `effect` (`trap remove`, `trap freeze N`).
    Trap {
        /// What the square does.
        effect: TrapEffect,
    },
    /// Cancels the card the opponent just played (`cancel`).
    Cancel,
    /// Take into your hand a card the opponent played during your last turn or his
    /// (`take-played`).
    TakePlayed,
    /// Choose any card not yet played and add it to your hand (`pick-unplayed`).
    PickUnplayed,
    /// The opponent must replace the move he just made (`replace-move`).
    ReplaceMove,
    /// Discard `cards` cards and draw as many (`redraw N`).
    Redraw {
        /// How many cards.
        cards: u8,
    },
    /// The opponent shows you his hand (`show-hand`).
    ShowHand,
    /// What the card does is stated by its player when he plays it, as board edits and
    /// a note (`stated`): the physical deck's cards, whose texts the program never holds.
    Stated,
}

/// The part of an effect the protocol flow carries out, not the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlowEffect {
    /// Commit to a secret square now; its owner opens it in his next turn after an enemy
    /// piece lands there, and it springs ([`crate::tempete::Board::spring_trap`]).
    SealTrapSquare(TrapEffect),
    /// Cancel the opponent's card just played.
    CancelCard,
    /// Take a card the opponent played into one's hand.
    TakePlayed,
    /// Choose an unplayed card (its list number is then excluded from future indices).
    PickUnplayed,
    /// The opponent replaces the move just made.
    ReplaceMove,
    /// Discard and redraw this many cards.
    Redraw(u8),
    /// The opponent opens his hand to the player.
    ShowHand,
}

/// Why an effect's text cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EffectError {
    /// No effect has this keyword.
    #[error("unknown effect {0:?}")]
    Unknown(String),
    /// The effect's parameters are wrong.
    #[error("bad parameter for {effect}: {reason}")]
    BadParameter {
        /// The effect's keyword.
        effect: &'static str,
        /// What is wrong.
        reason: String,
    },
}

/// Every effect keyword, for counting kinds and for error messages.
pub const EFFECT_KEYWORDS: [&str; 24] = [
    "extra-move",
    "pawn-rush",
    "move-as",
    "augment",
    "swap-own",
    "swap-enemy",
    "pawn-back",
    "sacrifice-pawn",
    "early-promote",
    "revive",
    "forbid-square",
    "truce",
    "second-move",
    "king-leap",
    "jump-color",
    "freeze",
    "trap",
    "cancel",
    "take-played",
    "pick-unplayed",
    "replace-move",
    "redraw",
    "show-hand",
    "stated",
];

impl Effect {
    /// The effect's keyword, the first word of its written form.
    pub fn keyword(&self) -> &'static str {
        match self {
            Effect::ExtraMove { .. } => "extra-move",
            Effect::PawnRush { .. } => "pawn-rush",
            Effect::MoveAs { .. } => "move-as",
            Effect::Augment { .. } => "augment",
            Effect::SwapOwn => "swap-own",
            Effect::SwapEnemy => "swap-enemy",
            Effect::PawnBack => "pawn-back",
            Effect::SacrificePawn => "sacrifice-pawn",
            Effect::EarlyPromote { .. } => "early-promote",
            Effect::Revive => "revive",
            Effect::ForbidSquare { .. } => "forbid-square",
            Effect::Truce => "truce",
            Effect::SecondMove => "second-move",
            Effect::KingLeap => "king-leap",
            Effect::JumpColor => "jump-color",
            Effect::Freeze { .. } => "freeze",
            Effect::Trap { .. } => "trap",
            Effect::Cancel => "cancel",
            Effect::TakePlayed => "take-played",
            Effect::PickUnplayed => "pick-unplayed",
            Effect::ReplaceMove => "replace-move",
            Effect::Redraw { .. } => "redraw",
            Effect::ShowHand => "show-hand",
            Effect::Stated => "stated",
        }
    }

    /// The timings a card with this effect may have. The deck parser refuses any other,
    /// so that every card in a deck can be carried out: a double move cannot happen
    /// "after your move", a cancel only answers a card.
    pub fn timings(&self) -> &'static [Timing] {
        use Timing::*;
        match self {
            Effect::ExtraMove { .. }
            | Effect::PawnRush { .. }
            | Effect::MoveAs { .. }
            | Effect::SwapEnemy
            | Effect::PawnBack
            | Effect::EarlyPromote { .. }
            | Effect::KingLeap
            | Effect::JumpColor => &[Instead],
            Effect::Augment { .. }
            | Effect::SwapOwn
            | Effect::SacrificePawn
            | Effect::Revive
            | Effect::ForbidSquare { .. }
            | Effect::Truce
            | Effect::Freeze { .. }
            | Effect::Trap { .. } => &[Before, Instead, After],
            Effect::SecondMove => &[After],
            Effect::Redraw { .. } | Effect::ShowHand => &[Before, After],
            Effect::Stated => &[Instead],
            Effect::Cancel => &[Response],
            Effect::TakePlayed => &[TurnStart],
            Effect::PickUnplayed => &[AfterLoss],
            Effect::ReplaceMove => &[Interception],
        }
    }

    /// What the protocol flow must do for this effect, if anything.
    pub fn flow(&self) -> Option<FlowEffect> {
        match *self {
            Effect::Trap { effect } => Some(FlowEffect::SealTrapSquare(effect)),
            Effect::Cancel => Some(FlowEffect::CancelCard),
            Effect::TakePlayed => Some(FlowEffect::TakePlayed),
            Effect::PickUnplayed => Some(FlowEffect::PickUnplayed),
            Effect::ReplaceMove => Some(FlowEffect::ReplaceMove),
            Effect::Redraw { cards } => Some(FlowEffect::Redraw(cards)),
            Effect::ShowHand => Some(FlowEffect::ShowHand),
            _ => None,
        }
    }

    /// Reads the written form: a keyword, then its parameters separated by spaces.
    pub fn parse(text: &str) -> Result<Effect, EffectError> {
        let mut words = text.split_whitespace();
        let keyword = words.next().unwrap_or("");
        let args: Vec<&str> = words.collect();
        let effect = match keyword {
            "extra-move" => Effect::ExtraMove {
                kind: kind_arg("extra-move", &args)?,
            },
            "pawn-rush" => Effect::PawnRush {
                squares: number_arg("pawn-rush", &args, 1, 6)?,
            },
            "move-as" => Effect::MoveAs {
                kind: kind_arg("move-as", &args)?,
            },
            "augment" => Effect::Augment {
                pattern: match args.as_slice() {
                    ["sidestep"] => Pattern::Sidestep,
                    _ => Pattern::As(kind_arg("augment", &args)?),
                },
            },
            "swap-own" => no_args(Effect::SwapOwn, &args)?,
            "swap-enemy" => no_args(Effect::SwapEnemy, &args)?,
            "pawn-back" => no_args(Effect::PawnBack, &args)?,
            "sacrifice-pawn" => no_args(Effect::SacrificePawn, &args)?,
            "early-promote" => Effect::EarlyPromote {
                rank: number_arg("early-promote", &args, 2, 7)?,
            },
            "revive" => no_args(Effect::Revive, &args)?,
            "forbid-square" => Effect::ForbidSquare {
                plies: number_arg("forbid-square", &args, 1, 100)?,
            },
            "truce" => no_args(Effect::Truce, &args)?,
            "second-move" => no_args(Effect::SecondMove, &args)?,
            "king-leap" => no_args(Effect::KingLeap, &args)?,
            "jump-color" => no_args(Effect::JumpColor, &args)?,
            "freeze" => Effect::Freeze {
                turns: number_arg("freeze", &args, 1, 50)?,
            },
            "trap" => Effect::Trap {
                effect: match args.as_slice() {
                    ["remove"] => TrapEffect::Remove,
                    ["freeze", rest @ ..] => TrapEffect::Freeze {
                        turns: number_arg("trap", rest, 1, 50)?,
                    },
                    _ => {
                        return Err(bad("trap", "expected `remove` or `freeze N`"));
                    }
                },
            },
            "cancel" => no_args(Effect::Cancel, &args)?,
            "take-played" => no_args(Effect::TakePlayed, &args)?,
            "pick-unplayed" => no_args(Effect::PickUnplayed, &args)?,
            "replace-move" => no_args(Effect::ReplaceMove, &args)?,
            "redraw" => Effect::Redraw {
                cards: number_arg("redraw", &args, 1, 5)?,
            },
            "show-hand" => no_args(Effect::ShowHand, &args)?,
            "stated" => no_args(Effect::Stated, &args)?,
            _ => return Err(EffectError::Unknown(keyword.to_owned())),
        };
        Ok(effect)
    }
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.keyword())?;
        match self {
            Effect::ExtraMove { kind } | Effect::MoveAs { kind } => {
                write!(f, " {}", kind_word(*kind))
            }
            Effect::PawnRush { squares: n }
            | Effect::EarlyPromote { rank: n }
            | Effect::ForbidSquare { plies: n }
            | Effect::Freeze { turns: n }
            | Effect::Redraw { cards: n } => write!(f, " {n}"),
            Effect::Augment { pattern } => write!(f, " {pattern}"),
            Effect::Trap { effect } => write!(f, " {effect}"),
            _ => Ok(()),
        }
    }
}

/// The word the deck format uses for a kind.
pub fn kind_word(kind: Kind) -> &'static str {
    match kind {
        Kind::Pawn => "pawn",
        Kind::Knight => "knight",
        Kind::Bishop => "bishop",
        Kind::Rook => "rook",
        Kind::Queen => "queen",
        Kind::King => "king",
    }
}

fn bad(effect: &'static str, reason: impl Into<String>) -> EffectError {
    EffectError::BadParameter {
        effect,
        reason: reason.into(),
    }
}

fn no_args(effect: Effect, args: &[&str]) -> Result<Effect, EffectError> {
    if args.is_empty() {
        Ok(effect)
    } else {
        Err(bad(
            effect.keyword(),
            format!("takes no parameter, got {:?}", args.join(" ")),
        ))
    }
}

fn kind_arg(effect: &'static str, args: &[&str]) -> Result<Kind, EffectError> {
    let [word] = args else {
        return Err(bad(
            effect,
            format!("expected one piece kind, got {args:?}"),
        ));
    };
    [
        Kind::Pawn,
        Kind::Knight,
        Kind::Bishop,
        Kind::Rook,
        Kind::Queen,
        Kind::King,
    ]
    .into_iter()
    .find(|k| kind_word(*k) == *word)
    .ok_or_else(|| {
        bad(
            effect,
            format!("{word:?} is not a piece kind (pawn, knight, bishop, rook, queen, king)"),
        )
    })
}

fn number_arg(effect: &'static str, args: &[&str], min: u8, max: u8) -> Result<u8, EffectError> {
    let [word] = args else {
        return Err(bad(effect, format!("expected one number, got {args:?}")));
    };
    match word.parse::<u8>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(bad(
            effect,
            format!("{word:?} is not a number from {min} to {max}"),
        )),
    }
}

/// Why a card cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CardError {
    /// Card numbers run from 1 to [`MAX_NUMBER`].
    #[error("card number {0} is out of range (1 to {MAX_NUMBER})")]
    NumberOutOfRange(u64),
    /// The name is empty or holds `|` or a line break.
    #[error("card name {0:?} must be non-empty, on one line and without `|`")]
    BadName(String),
    /// The text is empty or holds a line break.
    #[error("card text {0:?} must be non-empty and on one line")]
    BadText(String),
    /// The effect's parameters are out of range (the written form does not read back).
    #[error("effect {0:?} has a parameter out of range")]
    BadEffect(String),
    /// The effect cannot have this timing.
    #[error("{effect} cannot be played {timing} (allowed: {allowed})")]
    TimingNotAllowed {
        /// The effect's keyword.
        effect: &'static str,
        /// The timing asked for.
        timing: Timing,
        /// The timings allowed, as keywords.
        allowed: String,
    },
}

/// The highest card number a deck may use.
pub const MAX_NUMBER: u32 = 1000;

/// One card: its list number, our name, when it is played, what it does, and its text.
/// Built only through [`Card::new`], so a card's timing always suits its effect.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Card {
    number: u32,
    name: String,
    timing: Timing,
    effect: Effect,
    text: String,
}

impl Card {
    /// A card, checked: number 1..=[`MAX_NUMBER`], a one-line name without `|`, a
    /// one-line text, and a timing the effect allows ([`Effect::timings`]).
    pub fn new(
        number: u32,
        name: &str,
        timing: Timing,
        effect: Effect,
        text: &str,
    ) -> Result<Card, CardError> {
        if number == 0 || number > MAX_NUMBER {
            return Err(CardError::NumberOutOfRange(u64::from(number)));
        }
        let name = name.trim();
        if name.is_empty() || name.contains(['|', '\n', '\r']) {
            return Err(CardError::BadName(name.to_owned()));
        }
        let text = text.trim();
        if text.is_empty() || text.contains(['\n', '\r']) {
            return Err(CardError::BadText(text.to_owned()));
        }
        if Effect::parse(&effect.to_string()).as_ref() != Ok(&effect) {
            return Err(CardError::BadEffect(effect.to_string()));
        }
        if !effect.timings().contains(&timing) {
            let allowed: Vec<&str> = effect.timings().iter().map(|t| t.keyword()).collect();
            return Err(CardError::TimingNotAllowed {
                effect: effect.keyword(),
                timing,
                allowed: allowed.join(", "),
            });
        }
        Ok(Card {
            number,
            name: name.to_owned(),
            timing,
            effect,
            text: text.to_owned(),
        })
    }

    /// The list number.
    pub fn number(&self) -> u32 {
        self.number
    }

    /// Our name for it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// When it is played.
    pub fn timing(&self) -> Timing {
        self.timing
    }

    /// What it does.
    pub fn effect(&self) -> Effect {
        self.effect
    }

    /// Its text, for players.
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for Card {
    /// The card's line in the deck format.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} | {} | {} | {} | {}",
            self.number, self.name, self.timing, self.effect, self.text
        )
    }
}
