//! What the harnesses drive: one seat that takes envelopes and commands and gives
//! actions. A protocol [`Session`] is one (the conformance tests drive the protocol
//! alone); a game's [`Table`] is another (the table tests drive what the node drives,
//! typed words, bots and duties included). The lock-step harness
//! ([`crate::pair::Lockstep`]) drives either through this.

use sealed_games::table::{Document, Table};
use sealed_protocol::rules::Rules;
use sealed_protocol::session::{Action, Command, Phase, Session, SessionError};

/// One seat, as a harness sees it.
pub trait Peer {
    /// An envelope arrives; a refusal changes nothing.
    fn handle_envelope(&mut self, bytes: &[u8], now: u64) -> Result<(), SessionError>;
    /// A decision of this seat; a refusal changes nothing.
    fn handle_command(&mut self, cmd: Command, now: u64) -> Result<(), SessionError>;
    /// The next thing to do (send, persist, report).
    fn poll_action(&mut self) -> Option<Action>;
    /// Whether the seat is being asked to accept the proposal and leaves that to the
    /// harness (a bare session); a table's own bot answers it.
    fn asked_to_accept(&self) -> bool;
}

impl<R: Rules> Peer for Session<R> {
    fn handle_envelope(&mut self, bytes: &[u8], now: u64) -> Result<(), SessionError> {
        Session::handle_envelope(self, bytes, now).map(|_| ())
    }

    fn handle_command(&mut self, cmd: Command, now: u64) -> Result<(), SessionError> {
        Session::handle_command(self, cmd, now)
    }

    fn poll_action(&mut self) -> Option<Action> {
        Session::poll_action(self)
    }

    fn asked_to_accept(&self) -> bool {
        matches!(self.phase(), Phase::Decide(_))
    }
}

impl Peer for Box<dyn Table> {
    fn handle_envelope(&mut self, bytes: &[u8], now: u64) -> Result<(), SessionError> {
        sealed_protocol::session::take_bytes(self.session_mut(), bytes, now).map(|_| ())
    }

    fn handle_command(&mut self, cmd: Command, now: u64) -> Result<(), SessionError> {
        self.session_mut().handle_command(cmd, now)
    }

    fn poll_action(&mut self) -> Option<Action> {
        self.session_mut().poll_action()
    }

    fn asked_to_accept(&self) -> bool {
        false
    }
}

/// What a test reads of a table the way a face does.
pub trait Read {
    /// The transcript file, as the node exports it.
    fn transcript(&self) -> Vec<u8>;
    /// The text a person reads, as `sealed show` prints it.
    fn text(&self) -> String;
}

impl<T: Table + ?Sized> Read for T {
    fn transcript(&self) -> Vec<u8> {
        self.session().envelopes().transcript().to_bytes()
    }

    fn text(&self) -> String {
        self.document(Document::Text).unwrap_or_default()
    }
}
