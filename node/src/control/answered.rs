//! What the control path answers, typed: [`Answered`] is what a node sends back to a
//! request, and [`FromAnswer`] is how a face names the type it expects of one, so that a
//! command reads fields, not JSON paths.
//!
//! On the socket an answer is its value alone (`#[serde(untagged)]`): a game id or a
//! text is a string, nothing is `null`, a game is its view. Which type a line holds is
//! known from the request that asked it, so the face decodes it as that type
//! ([`super::call`]); the JSON is the one the faces have always read (cli/JSON.md, the
//! board's scripts).

use base64::Engine as _;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::core::{Answer, GameSummary, GameView, Imported, PeersView};
use crate::shell::Info;

/// A node's answer to one request.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Answered {
    /// Done, with nothing to say: `null`.
    Done,
    /// A text: a game id (hex), a game as text, armored mail, a ruling's words, a login
    /// address of the web board.
    Text(String),
    /// A text that may not exist (a score before the game starts, a board without an
    /// SVG): the text or `null`.
    MaybeText(Option<String>),
    /// Game ids (hex).
    Games(Vec<String>),
    /// What a mail import did.
    Imported(Imported),
    /// The game list.
    Summaries(Vec<GameSummary>),
    /// One game as every face shows it.
    Show(Box<GameView>),
    /// The peer book.
    Peers(PeersView),
    /// This node: its peer id, addresses and reachability.
    Info(Box<Info>),
    /// A transcript file, base64 on the wire.
    Transcript(Transcript),
}

impl From<Answer> for Answered {
    fn from(a: Answer) -> Answered {
        match a {
            Answer::Done => Answered::Done,
            Answer::Game(id) => Answered::Text(id),
            Answer::Games(ids) => Answered::Games(ids),
            Answer::Imported(i) => Answered::Imported(i),
            Answer::Summaries(g) => Answered::Summaries(g),
            Answer::Show(v) => Answered::Show(v),
            Answer::Peers(p) => Answered::Peers(p),
            Answer::Text(t) => Answered::Text(t),
            Answer::MaybeText(t) => Answered::MaybeText(t),
            Answer::Bytes(b) => Answered::Transcript(Transcript(b)),
        }
    }
}

/// A transcript file's bytes, written as base64 text (JSON has no bytes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Transcript(pub Vec<u8>);

impl Serialize for Transcript {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for Transcript {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Transcript, D::Error> {
        let text = String::deserialize(d)?;
        base64::engine::general_purpose::STANDARD
            .decode(text)
            .map(Transcript)
            .map_err(serde::de::Error::custom)
    }
}

/// A type a face expects of an answer: read from the socket's JSON, or taken from the
/// [`Answered`] of a core run on the store with the node stopped (`crate::offline`).
/// `None` when the answer is of another kind, which the face reports as a bug of its
/// own (it asked for one thing and named another).
pub trait FromAnswer: DeserializeOwned {
    /// This answer, if it is of this type.
    fn from_answer(a: Answered) -> Option<Self>;
}

impl FromAnswer for () {
    fn from_answer(a: Answered) -> Option<()> {
        matches!(a, Answered::Done).then_some(())
    }
}

impl FromAnswer for String {
    fn from_answer(a: Answered) -> Option<String> {
        match a {
            Answered::Text(t) | Answered::MaybeText(Some(t)) => Some(t),
            _ => None,
        }
    }
}

impl FromAnswer for Option<String> {
    fn from_answer(a: Answered) -> Option<Option<String>> {
        match a {
            Answered::Text(t) => Some(Some(t)),
            Answered::MaybeText(t) => Some(t),
            Answered::Done => Some(None),
            _ => None,
        }
    }
}

impl FromAnswer for GameView {
    fn from_answer(a: Answered) -> Option<GameView> {
        match a {
            Answered::Show(v) => Some(*v),
            _ => None,
        }
    }
}

impl FromAnswer for Info {
    fn from_answer(a: Answered) -> Option<Info> {
        match a {
            Answered::Info(i) => Some(*i),
            _ => None,
        }
    }
}

/// Any answer, for a face that needs only to know the request was done (a move, an
/// acceptance): what the node says beside is not read.
impl FromAnswer for serde::de::IgnoredAny {
    fn from_answer(_: Answered) -> Option<serde::de::IgnoredAny> {
        Some(serde::de::IgnoredAny)
    }
}

/// The answers that are one variant holding the type as it is.
macro_rules! held_as {
    ($t:ty, $variant:ident) => {
        impl FromAnswer for $t {
            fn from_answer(a: Answered) -> Option<$t> {
                match a {
                    Answered::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}
held_as!(Vec<String>, Games);
held_as!(Imported, Imported);
held_as!(Vec<GameSummary>, Summaries);
held_as!(PeersView, Peers);
held_as!(Transcript, Transcript);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_their_values_on_the_wire_and_read_back_as_the_type_asked() {
        let line = |a: &Answered| serde_json::to_string(a).unwrap();
        assert_eq!(line(&Answered::Done), "null");
        assert_eq!(line(&Answered::Text("3f2a".into())), "\"3f2a\"");
        assert_eq!(line(&Answered::MaybeText(None)), "null");
        let t = Answered::Transcript(Transcript(vec![1, 2, 3]));
        assert_eq!(line(&t), "\"AQID\"");
        let back: Transcript = serde_json::from_str(&line(&t)).unwrap();
        assert_eq!(back.0, vec![1, 2, 3]);
        assert!(serde_json::from_str::<Transcript>("\"not base64!\"").is_err());
        assert_eq!(
            String::from_answer(Answered::Text("x".into())),
            Some("x".into())
        );
        assert_eq!(<()>::from_answer(Answered::Text("x".into())), None);
        assert_eq!(Option::<String>::from_answer(Answered::Done), Some(None));
    }
}
