//! Armored mail: a game's envelopes out as text (read from the store, like everything a
//! node serves), and back in (taken as pushes from the game's seats).

use super::game::queue::Waiter;
use super::io::{Answer, CmdId, GameRef, Imported};
use super::{Core, Durable, NodeError};
use crate::armor::{self as mail, Mail};
use crate::message::Response;
use sealed_protocol::envelope::Signed;

impl Core {
    /// A game as mail for the other player: only what that seat may see (a private log
    /// outside its audience never leaves). With several other seats the mail could reach
    /// any of them, so only the public logs go.
    pub(super) fn mail_export(
        &mut self,
        g: &GameRef,
        store: &dyn Durable,
    ) -> Result<String, NodeError> {
        let id = self.games.find(g)?;
        if let Some(a) = self.games.aside(&id) {
            return Err(NodeError::SetAside(a.halt.clone()));
        }
        let terms = self
            .games
            .terms(&id)
            .cloned()
            .ok_or_else(|| NodeError::NoGame(g.as_str().to_owned()))?;
        let reader = self.games.played(&id).and_then(|p| {
            let me = p.table().session().seat();
            let mut others = terms.seats().filter(|s| *s != me);
            match (others.next(), others.next()) {
                (Some(one), None) => Some(one),
                _ => None,
            }
        });
        let envelopes = self
            .served(&id, reader, &[], store)
            .map_err(|e| NodeError::Store(e.to_string()))?;
        Ok(mail::armor(
            &id,
            &Mail {
                proposal: terms.bytes().to_vec(),
                envelopes,
            },
        ))
    }

    /// Mail taken as if its envelopes were pushed by a seat of each game in it; the
    /// answer (the games it touched) once all of it is durable.
    pub(super) fn mail_import(
        &mut self,
        cmd: CmdId,
        text: &str,
        store: &dyn Durable,
    ) -> Result<(), NodeError> {
        let mails = mail::dearmor(text).map_err(|e| NodeError::Mail(e.to_string()))?;
        let me = self.key();
        let mut games = vec![];
        for m in &mails {
            let terms = sealed_protocol::proposal::Terms::parse(&m.proposal)
                .map_err(|e| NodeError::Mail(format!("mail: {e}")))?;
            let id = terms.game();
            // A game asleep wakes for the mail that names it (`sleep.rs`).
            let _ = self.rouse(&id, store);
            if let Some(a) = self.games.aside(&id) {
                return Err(NodeError::Mail(format!(
                    "game {}: {}",
                    hex::encode(id),
                    a.halt
                )));
            }
            games.push(id);
        }
        // Every envelope that is not one of its game's, validly signed, is said: a changed
        // byte must not vanish without a word. The rest is taken as a push.
        // Each envelope is verified here, once, and what is valid is taken as parsed.
        let mut refused = vec![];
        let mut valid: Vec<Vec<Signed>> = vec![];
        for (m, id) in mails.iter().zip(&games) {
            let mut good = vec![];
            if let Ok(terms) = sealed_protocol::proposal::Terms::parse(&m.proposal) {
                for (i, bytes) in m.envelopes.iter().enumerate() {
                    match Signed::parse(&terms, bytes) {
                        Ok(s) => good.push(s),
                        Err(e) => refused.push(format!(
                            "game {}: envelope {} of {} not taken: {e}",
                            &hex::encode(id)[..8],
                            i + 1,
                            m.envelopes.len()
                        )),
                    }
                }
            }
            valid.push(good);
        }
        let w = Waiter::Command(cmd);
        let touched = games.iter().map(hex::encode).collect();
        let imported = Imported {
            games: touched,
            refused,
        };
        self.hold(w, Some(Answer::Imported(imported)));
        for ((m, id), good) in mails.into_iter().zip(games).zip(valid) {
            if let Some(Response::Refused(why)) =
                self.take_proposal(me, &m.proposal, None, Some(w), store)
            {
                self.fail_waiter(w, NodeError::Mail(why));
                continue;
            }
            if let Some(terms) = self.known_terms(&id, store) {
                self.take_signed(me, id, &terms, good, Some(w), store);
            }
        }
        self.let_go(w);
        Ok(())
    }
}
