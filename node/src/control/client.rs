//! The face's end of the control socket: one request out, one line back, decoded as
//! the type the face expects of that request ([`FromAnswer`]). A refusal comes back
//! with whose fault it is; a line that is neither an answer of that type nor a refusal
//! is an error of its own, never a panic.

use std::path::Path;

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::ControlRequest;
use super::answered::FromAnswer;
use crate::core::Fault;

/// Whether a node listens on the control socket now (a command about to run on the
/// store alone says so to its player).
pub fn answers(socket: &Path) -> bool {
    std::os::unix::net::UnixStream::connect(socket).is_ok()
}

/// Why a request got no answer.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// No node listens on the home's socket (none runs, or one was killed): the commands
    /// that need no network can open the store instead ([`crate::offline`]).
    #[error(
        "no node running for this home ({socket}): {error}; start one with `{}`",
        crate::home::command_at(Path::new(socket).parent().unwrap_or(Path::new(".")), "node")
    )]
    NoNode {
        /// The socket's path.
        socket: String,
        /// What connecting said.
        error: std::io::Error,
    },
    /// The node refused the request: nothing was signed or sent.
    #[error("{error}")]
    Refused {
        /// Why, in words for the person.
        error: String,
        /// Whose fault.
        fault: Fault,
    },
    /// The socket failed while the request went out or its answer came back.
    #[error("the control socket failed: {0}")]
    Socket(#[source] std::io::Error),
    /// The node died between taking the request and answering: what it did is in its
    /// store, durable before anything was sent (spec/PROTOCOL.md §11.2).
    #[error(
        "the node stopped before it answered: what you asked may have been done. \
         Start it again (`{}`) and look with `{}`",
        crate::home::command_at(Path::new(socket).parent().unwrap_or(Path::new(".")), "node"),
        crate::home::command_at(Path::new(socket).parent().unwrap_or(Path::new(".")), "games"),
    )]
    Stopped {
        /// The socket's path.
        socket: String,
    },
    /// The answer is not one of the type asked for, nor a refusal (a node of another
    /// version, or a bug).
    #[error("the node answered {answer:?}: {error}")]
    Malformed {
        /// The line, as it came.
        answer: String,
        /// Why it does not read.
        #[source]
        error: serde_json::Error,
    },
    /// The answer is of another kind than the one the request asks for (a bug of the
    /// face's: it named the wrong type).
    #[error("the answer to {request} is not of the kind asked for")]
    Unexpected {
        /// The request's name.
        request: &'static str,
    },
    /// The request could not be written as JSON (it always can: no floats, string keys).
    #[error("the request could not be written: {0}")]
    Request(#[source] serde_json::Error),
}

/// An answer line: `{"ok": …}`.
#[derive(Deserialize)]
struct Given<T> {
    ok: T,
}

/// A refusal line: `{"error": …, "fault": …}`.
#[derive(Deserialize)]
struct Refusal {
    error: String,
    fault: Fault,
}

/// Sends one request to the node of a home folder and returns its answer, as the type
/// asked for.
pub fn call<T: FromAnswer>(socket: &Path, req: &ControlRequest) -> Result<T, CallError> {
    use std::io::{BufRead, Write};
    let mut stream =
        std::os::unix::net::UnixStream::connect(socket).map_err(|error| CallError::NoNode {
            socket: socket.display().to_string(),
            error,
        })?;
    let line = serde_json::to_string(req).map_err(CallError::Request)?;
    stream
        .write_all(format!("{line}\n").as_bytes())
        .map_err(CallError::Socket)?;
    let mut answer = String::new();
    std::io::BufReader::new(stream)
        .read_line(&mut answer)
        .map_err(CallError::Socket)?;
    if answer.is_empty() {
        return Err(CallError::Stopped {
            socket: socket.display().to_string(),
        });
    }
    decode(&answer)
}

/// One answer line as the type asked for, or the refusal it is.
pub fn decode<T: DeserializeOwned>(answer: &str) -> Result<T, CallError> {
    match serde_json::from_str::<Given<T>>(answer) {
        Ok(Given { ok }) => Ok(ok),
        Err(error) => match serde_json::from_str::<Refusal>(answer) {
            Ok(Refusal { error, fault }) => Err(CallError::Refused { error, fault }),
            Err(_) => Err(CallError::Malformed {
                answer: answer.trim_end().to_owned(),
                error,
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::GameView;

    #[test]
    fn a_line_reads_as_the_type_asked_or_as_its_refusal_or_as_malformed() {
        assert_eq!(decode::<String>("{\"ok\":\"3f2a\"}\n").unwrap(), "3f2a");
        decode::<()>("{\"ok\":null}").unwrap();
        assert_eq!(decode::<Option<String>>("{\"ok\":null}").unwrap(), None);
        let refused = decode::<()>(r#"{"error":"no such game","fault":"no-game"}"#);
        assert!(matches!(
            refused,
            Err(CallError::Refused { ref error, fault: Fault::NoGame }) if error == "no such game"
        ));
        for bad in [
            "",
            "null",
            "{\"ok\":3}",
            "{\"error\":1}",
            "{\"ok\":{\"variant\":1}}",
        ] {
            let e = decode::<GameView>(bad).expect_err(bad);
            assert!(matches!(e, CallError::Malformed { .. }), "{bad}: {e}");
        }
    }
}
