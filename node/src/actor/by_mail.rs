//! Armored mail: a game's envelopes out as text, and back in.

use super::*;

impl Actor {
    /// A game as mail, from the store like everything the node serves (§16.4).
    pub(super) fn mail_export(&self, g: &str) -> Result<String, String> {
        let id = self.game_id(g)?;
        if let Some(a) = self.aside.get(&id) {
            return Err(a.halt.why());
        }
        let terms = self.terms(&id).ok_or("no such game")?;
        // Mail goes to the other player: only what that seat may see (a private log
        // outside its audience never leaves). With several other seats the mail could
        // reach any of them, so only the public logs go.
        let reader = self.played.get(&id).and_then(|p| {
            let me = p.table.seat();
            let mut others = terms.seats().filter(|s| *s != me);
            match (others.next(), others.next()) {
                (Some(one), None) => Some(one),
                _ => None,
            }
        });
        let envelopes = self.served(&id, reader, &[])?;
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
            if let Some(a) = self.aside.get(&id) {
                return Err(format!("game {}: {}", hex::encode(id), a.halt.why()));
            }
            if let Response::Refused(why) = self.take_proposal(me, &m.proposal) {
                return Err(why);
            }
            self.take_envelopes(me, Some(id), m.envelopes);
            touched.push(hex::encode(id));
        }
        Ok(touched)
    }
}
