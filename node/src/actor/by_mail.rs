//! Armored mail: a game's envelopes out as text, and back in.

use super::*;

impl Actor {
    pub(super) fn mail_export(&self, g: &str) -> Result<String, String> {
        let id = self.game_id(g)?;
        let terms = self.terms(&id).ok_or("no such game")?;
        // Mail goes to the other player: only what that seat may see (a private log
        // outside its audience never leaves). With several other seats the mail could
        // reach any of them, so only the public logs go.
        let envelopes = match self.played.get(&id) {
            Some(p) => {
                let me = p.table.seat();
                let others: Vec<Seat> = (0..terms.proposal().seats.len() as u8)
                    .map(Seat)
                    .filter(|s| *s != me)
                    .collect();
                match others.as_slice() {
                    [one] => p.table.envelopes_after(&[], *one),
                    _ => p
                        .table
                        .envelopes()
                        .into_iter()
                        .filter(|e| is_public(e))
                        .collect(),
                }
            }
            None => self.store.envelopes(&id).map_err(|e| e.to_string())?,
        };
        Ok(mail::armor(
            &id,
            &Mail {
                proposal: terms.bytes().to_vec(),
                envelopes,
            },
        ))
    }

    pub(super) fn mail_import(&mut self, text: &str) -> Result<Vec<String>, String> {
        let mails = mail::dearmor(text)?;
        let mut touched = vec![];
        let me = *self.swarm.local_peer_id();
        for m in mails {
            let terms = Terms::parse(&m.proposal).map_err(|e| format!("mail: {e}"))?;
            let id = terms.game().0.0;
            if let Response::Refused(why) = self.take_proposal(me, &m.proposal) {
                return Err(why);
            }
            self.take_envelopes(me, Some(id), m.envelopes);
            touched.push(hex::encode(id));
        }
        Ok(touched)
    }
}
