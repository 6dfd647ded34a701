//! Cardmate's rule options. Every rule the seed does not settle is one of these, named
//! in the proposal and so inside the signed transcript.

use sealed_protocol::ids::Name;
use sealed_protocol::rules::OptionError;

/// How the cards are placed at the start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setup {
    /// The seed's diagram.
    Predefined,
    /// Suit-shuffled from the joint coin: ranks keep their squares, suits are dealt.
    Random,
}

/// How far a Nine retreats quietly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NineRetreat {
    /// One square straight back (default).
    One,
    /// Any distance straight back over empty squares.
    Any,
}

/// What happens to a player with no legal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoMove {
    /// He loses (default).
    Loses,
    /// The game is drawn.
    Draw,
}

/// The options of one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// `setup`: `predefined` (default) or `random`.
    pub setup: Setup,
    /// `random-kings`: in the random setup, whether the Kings' suits are dealt too
    /// (`no`, default: the Kings keep their predefined squares and suits).
    pub random_kings: bool,
    /// `palace`: `both-squares` (default): your cards on both squares of the enemy
    /// palace at the end of your move win; `off`: no palace victory.
    pub palace: bool,
    /// `nine-retreat`: `one` (default) or `any`.
    pub nine_retreat: NineRetreat,
    /// `no-move`: `loses` (default) or `draw`.
    pub no_move: NoMove,
    /// `ply-limit`: after this many moves the game is drawn; 0 (default) for none.
    pub ply_limit: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            setup: Setup::Predefined,
            random_kings: false,
            palace: true,
            nine_retreat: NineRetreat::One,
            no_move: NoMove::Loses,
            ply_limit: 0,
        }
    }
}

fn bad(key: &str, value: &str) -> OptionError {
    OptionError(format!("cardmate: option {key} cannot be {value:?}"))
}

impl Options {
    /// Reads proposal options; an unknown key or value is an error.
    pub fn parse(options: &[(Name, String)]) -> Result<Self, OptionError> {
        let mut o = Options::default();
        for (k, v) in options {
            let (k, v) = (k.as_str(), v.as_str());
            match (k, v) {
                ("setup", "predefined") => o.setup = Setup::Predefined,
                ("setup", "random") => o.setup = Setup::Random,
                ("random-kings", "no") => o.random_kings = false,
                ("random-kings", "yes") => o.random_kings = true,
                ("palace", "both-squares") => o.palace = true,
                ("palace", "off") => o.palace = false,
                ("nine-retreat", "one") => o.nine_retreat = NineRetreat::One,
                ("nine-retreat", "any") => o.nine_retreat = NineRetreat::Any,
                ("no-move", "loses") => o.no_move = NoMove::Loses,
                ("no-move", "draw") => o.no_move = NoMove::Draw,
                ("ply-limit", n) => o.ply_limit = n.parse().map_err(|_| bad(k, v))?,
                ("setup" | "random-kings" | "palace" | "nine-retreat" | "no-move", _) => {
                    return Err(bad(k, v));
                }
                _ => return Err(OptionError(format!("cardmate has no option {k}"))),
            }
        }
        Ok(o)
    }

    /// The options as proposal text (every key, so the transcript says all).
    pub fn to_proposal(&self) -> Vec<(Name, String)> {
        let n = |s: &str| Name::new(s).expect("static option names are valid");
        let mut v = vec![
            (
                n("nine-retreat"),
                if self.nine_retreat == NineRetreat::One {
                    "one"
                } else {
                    "any"
                }
                .to_owned(),
            ),
            (
                n("no-move"),
                if self.no_move == NoMove::Loses {
                    "loses"
                } else {
                    "draw"
                }
                .to_owned(),
            ),
            (
                n("palace"),
                if self.palace { "both-squares" } else { "off" }.to_owned(),
            ),
            (n("ply-limit"), self.ply_limit.to_string()),
            (
                n("random-kings"),
                if self.random_kings { "yes" } else { "no" }.to_owned(),
            ),
            (
                n("setup"),
                if self.setup == Setup::Predefined {
                    "predefined"
                } else {
                    "random"
                }
                .to_owned(),
            ),
        ];
        v.sort();
        v
    }
}
