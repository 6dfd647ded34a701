//! Time made provable (protocol version 2, spec/PROTOCOL.md §17), on both sides.
//!
//! **As a witness** (`sealed node --witness`), a node is the mailbox of the games that
//! name it their witness, and more: when it first stores a public envelope of such a
//! game it writes a receipt time for it in the same write (durable before the envelope
//! is acknowledged or served, §11.2), and on request it signs its statements about the
//! game: the receipt of the last envelope it holds of each public chain, and a view of
//! every public chain at that moment.
//!
//! **As a seat**, a node whose opponent has let the agreed time pass asks the game's
//! witness for those statements on each tick, and posts them as a forfeit. Its own
//! session judges the forfeit exactly as every verifier will (the engine's rule), so an
//! answer that does not prove the opponent late yet is simply not posted; the node
//! asks again on the next tick. While the witness answers, a game with a witness files
//! no timeout claim (time is proven, not claimed); after 10 minutes of its silence it
//! does, as without one. The claim is idle, so it puts off no later forfeit.

use std::collections::BTreeMap;

use sealed_protocol::body::Forfeit;
use sealed_protocol::engine::WitnessWait;
use sealed_protocol::envelope::Signed;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, Seat};
use sealed_protocol::session::Command as SessionCommand;
use sealed_protocol::witness::{Head, Receipt, Statement, View};

use super::{Core, Durable, GameId, PeerKey};
use crate::sync::{Request, Response};

/// Most receipts in one answer: with a view they fit one sync message (a signed receipt
/// is about 140 bytes) and one forfeit (`MAX_FORFEIT_STATEMENTS`).
const MAX_RECEIPTS: usize = 240;

/// The wait in progress by a witness's answer, and the state it was counted in.
#[derive(Clone, Copy, Debug)]
pub(super) struct WitnessTimes {
    /// Envelopes processed when it was counted: stale once more are.
    held: u64,
    /// The seat to act then.
    seat: Seat,
    /// Its wait by the witness's times.
    wait: WitnessWait,
}

impl WitnessTimes {
    /// When the wait started, by the witness's clock.
    pub(super) fn since(&self) -> u64 {
        self.wait.since
    }

    /// When it runs out, by the witness's clock.
    pub(super) fn deadline(&self) -> u64 {
        self.wait.deadline()
    }
}

/// How often a seat asks the witness while its clock by the witness is stale (a move
/// was made since its last answer): often enough that the clock shown catches up
/// within seconds, seldom enough for a witness that does not answer.
const ASK_STALE_MS: u64 = 5_000;

/// How often a seat whose opponent owes a step asks the witness even when the
/// opponent's own clock readings say he is on time.
const ASK_EVERY_MS: u64 = 10 * 60 * 1000;

/// The store's key of a receipt: the game and the envelope hash, both hex.
pub(super) fn receipt_key(game: &GameId, envelope: &Hash) -> String {
    format!(
        "{RECEIPT_PREFIX}{}/{}",
        hex::encode(game),
        hex::encode(envelope.0)
    )
}

/// The time this witness's store holds for an envelope of `game` (a receipt or a
/// stamp), if any.
pub(super) fn stored_time(store: &dyn Durable, game: &GameId, envelope: &Hash) -> Option<u64> {
    let bytes = store.meta(&receipt_key(game, envelope)).ok()??;
    <[u8; 8]>::try_from(bytes.as_slice())
        .ok()
        .map(u64::from_le_bytes)
}

/// How every receipt's store key begins.
pub(super) const RECEIPT_PREFIX: &str = "receipt/";

impl Core {
    /// Whether this node is the witness of a game with these terms.
    pub(super) fn witnesses(&self, terms: &sealed_protocol::proposal::Terms) -> bool {
        self.cfg.witness && terms.witness().is_some_and(|w| w.key == self.key())
    }

    /// The receipt writes for envelopes first stored now, if this node witnesses the
    /// game: they go in the same write as the envelopes. An envelope a seat had the
    /// witness stamp before it arrived keeps its stamp's time (`stamps.rs`): one
    /// envelope, one time.
    pub(super) fn receipts(
        &mut self,
        game: GameId,
        fresh: &[Vec<u8>],
        store: &dyn Durable,
    ) -> Vec<(String, Vec<u8>)> {
        let Some(terms) = self.games.terms(&game).cloned() else {
            return vec![];
        };
        if !self.witnesses(&terms) {
            return vec![];
        }
        let mut out = vec![];
        for s in fresh.iter().filter_map(|b| Signed::parse(&terms, b).ok()) {
            if self.stamp_time(&game, &s.hash, store).is_some() {
                continue;
            }
            let key = receipt_key(&game, &s.hash);
            self.remember_stamp(key.clone(), self.now);
            out.push((key, self.now.to_le_bytes().to_vec()));
        }
        out
    }

    /// Answers a seat's [`Request::Witness`]: the receipts of the envelopes held of each
    /// public chain (the latest [`MAX_RECEIPTS`], oldest first) and a view signed now,
    /// from what is durable.
    pub(super) fn statements(
        &mut self,
        peer: &PeerKey,
        game: GameId,
        store: &dyn Durable,
    ) -> Response {
        match self.held_now(peer, game, store) {
            Ok((mut receipts, view)) => {
                // Oldest first, and no more than one answer carries: the latest ones.
                receipts.sort_by_key(|r| r.at);
                let cut = receipts.len().saturating_sub(MAX_RECEIPTS);
                let mut statements: Vec<Statement> =
                    receipts.drain(cut..).map(Statement::Receipt).collect();
                statements.push(Statement::View(view));
                Response::Statements(
                    statements
                        .into_iter()
                        .map(|s| s.sign(&self.key).to_bytes())
                        .collect(),
                )
            }
            Err(why) => Response::Refused(why.into()),
        }
    }

    /// What this witness durably holds of `game` now, for a seat `peer` of it: the
    /// receipt of every envelope held of each public chain, and a view at this moment.
    pub(super) fn held_now(
        &mut self,
        peer: &PeerKey,
        game: GameId,
        store: &dyn Durable,
    ) -> Result<(Vec<Receipt>, View), &'static str> {
        let r = self
            .games
            .relayed
            .get(&game)
            .ok_or("this node witnesses no such game")?;
        let terms = r.terms.clone();
        if !self.witnesses(&terms) {
            return Err("this node is not that game's witness");
        }
        if terms.seat_of(peer).is_none() {
            return Err("only the game's seats ask its witness");
        }
        // Everything stated is read from the store: an envelope whose write is still in
        // flight is neither counted nor receipted (durable before visible, §11.2).
        let stored = store
            .envelopes(&game)
            .map_err(|_| "the store could not be read")?;
        // The first envelope stored at each place (a second one there would be the
        // other half of an equivocation, which the chain's head does not follow).
        let mut held: BTreeMap<(ChainId, u64), Hash> = BTreeMap::new();
        for s in stored.iter().filter_map(|b| Signed::parse(&terms, b).ok()) {
            held.entry((s.at().chain, s.at().seq)).or_insert(s.hash);
        }
        let mut heads = vec![];
        let mut receipts = vec![];
        for seat in terms.seats() {
            let chain = ChainId::public(seat);
            // Held from seq 0 without a gap.
            let count = (0u64..)
                .take_while(|q| held.contains_key(&(chain, *q)))
                .count() as u64;
            // The receipt of every envelope held: the last of each chain starts a
            // wait, the earlier ones measure what each wait cost (§17).
            for q in 0..count {
                if let Some(h) = held.get(&(chain, q))
                    && let Some(at) = stored_time(store, &game, h)
                {
                    receipts.push(Receipt {
                        game: terms.game(),
                        envelope: *h,
                        at,
                    });
                }
            }
            let last = count
                .checked_sub(1)
                .and_then(|q| held.get(&(chain, q)).copied());
            heads.push(Head {
                chain,
                count,
                head: last.unwrap_or(Hash::ZERO),
            });
        }
        heads.sort_by_key(|h| h.chain);
        // Never a view earlier than one already signed: a clock that ran backwards
        // would let two views contradict each other.
        let at = self.now.max(self.last_view);
        self.last_view = at;
        Ok((
            receipts,
            View {
                game: terms.game(),
                at,
                heads,
            },
        ))
    }

    /// The games worth asking the witness about: those whose clock by the witness is
    /// stale (a move since its last answer; at most every [`ASK_STALE_MS`]), and those
    /// in which another seat owes a step (a move, or a deal, a draw value, a coin seed
    /// while this seat waits to move) and is past the witness's deadline or overdue by
    /// the players' readings, or was last asked about [`ASK_EVERY_MS`] ago. Only a
    /// trigger: whether the opponent is late is the witness's times against the
    /// engine's rule, which the session applies before posting.
    pub(super) fn witness_due(&self) -> Vec<GameId> {
        let mut out = vec![];
        for (id, p) in &self.games.played {
            let terms = p.table.terms();
            if terms.witness().is_none() || p.table.is_done() {
                continue;
            }
            let Ok(Some(tc)) = sealed_protocol::time::TimeControl::of(terms.proposal()) else {
                continue;
            };
            let me = p.table.seat();
            let asked = self.witness_asked.get(id).copied().unwrap_or(0);
            let times = self.witness_times(p);
            // The clock shown follows the witness: ask again after each move.
            if times.is_none()
                && p.table.to_act().is_some()
                && self.now >= asked.saturating_add(ASK_STALE_MS)
            {
                out.push(*id);
                continue;
            }
            let owed_by_other = p.table.verdict().claims.iter().any(|c| {
                c.open
                    && c.against != me
                    && c.about == sealed_protocol::verdict::ClaimAbout::Unfinished
            });
            if !owed_by_other {
                continue;
            }
            // Past the deadline by the witness's own times, or overdue by the players'
            // readings: worth asking. An opponent can sign his readings late to look
            // on time, so the witness is also asked now and then whatever they say.
            let line = p.table.timeline();
            let overdue = terms.player_seats().filter(|s| *s != me).any(|s| {
                crate::clock::Clocks::compute(&tc, terms.players(), &line, Some(s), self.now)
                    .overdue
            }) || times.is_some_and(|t| t.seat != me && self.now > t.wait.deadline());
            if overdue || self.now >= asked.saturating_add(ASK_EVERY_MS) {
                out.push(*id);
            }
        }
        out
    }

    /// Whether the game's witness has left this seat's asks unanswered for
    /// [`ASK_EVERY_MS`]: then an overdue opponent gets a timeout claim, as in a game
    /// without a witness. A dead witness leaves the claim, never less.
    pub(super) fn witness_silent(&self, id: &GameId) -> bool {
        self.witness_waiting
            .get(id)
            .is_some_and(|since| self.now >= since.saturating_add(ASK_EVERY_MS))
    }

    /// The wait in progress by the witness's last answer, if it was counted in the
    /// state the game is in now.
    pub(super) fn witness_times(&self, p: &super::games::Played) -> Option<WitnessTimes> {
        let t = self.witness_times.get(&p.table.game().0.0)?;
        (t.held == processed(p) && p.table.to_act() == Some(t.seat)).then_some(*t)
    }

    /// Asks the witness of each game whose opponent is past its time for statements.
    pub(super) fn ask_witnesses(&mut self, due: &[GameId]) {
        for id in due {
            let Some(p) = self.games.played.get(id) else {
                continue;
            };
            let Some(w) = p.table.terms().witness().map(|w| w.key) else {
                continue;
            };
            self.witness_asked.insert(*id, self.now);
            self.witness_waiting.entry(*id).or_insert(self.now);
            self.request(w, Request::Witness { game: *id });
        }
    }

    /// The witness's statements came: posted as a forfeit against the opponent if they
    /// prove it late (the session refuses them otherwise, and nothing is sent).
    pub(super) fn witnessed(
        &mut self,
        game: GameId,
        statements: Vec<Vec<u8>>,
        store: &dyn Durable,
    ) {
        self.witness_waiting.remove(&game);
        let Some(p) = self.games.played.get(&game) else {
            return;
        };
        if p.table.is_done() {
            self.witness_times.remove(&game);
            return;
        }
        // A witness answers with at most what one forfeit carries; more is not from an
        // honest witness, and would only cost this node time to judge.
        if statements.len() > sealed_protocol::body::MAX_FORFEIT_STATEMENTS {
            tracing::debug!(
                game = %hex::encode(game),
                n = statements.len(),
                "the witness's answer has too many statements: ignored"
            );
            return;
        }
        if let Some(seat) = p.table.to_act()
            && let Some(wait) = p.table.witness_wait(&statements, seat)
        {
            let t = WitnessTimes {
                held: processed(p),
                seat,
                wait,
            };
            self.witness_times.insert(game, t);
        }
        let me = p.table.seat();
        let others: Vec<Seat> = p
            .table
            .terms()
            .player_seats()
            .filter(|s| *s != me)
            .collect();
        for against in others {
            let cmd = SessionCommand::Forfeit(Forfeit {
                against,
                statements: statements.clone(),
            });
            match self.apply(game, cmd, None, store) {
                Ok(()) => {
                    tracing::info!(game = %hex::encode(game), %against, "posted a time forfeit");
                    self.run_bots(store);
                    return;
                }
                Err(e) => {
                    tracing::debug!(game = %hex::encode(game), %against, "no forfeit yet: {e}")
                }
            }
        }
    }
}

/// Envelopes a seat has processed, over all its chains.
fn processed(p: &super::games::Played) -> u64 {
    p.table.chain_counts().iter().map(|(_, n)| n).sum()
}
