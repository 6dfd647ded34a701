//! The messages of a game's computations, beside its transcript (Secret Stallmate
//! without a referee, spec/GAMES.md §5.15): each player's node makes its messages as
//! duties (`auto.rs`), signs each one's hash in an act, and sends the bytes to the other
//! player on the message stream once that act is durable (`durable.rs` `Step::messages`);
//! the other takes them ([`Core::message`]) and stores each before anything it does next
//! can depend on it.
//!
//! A message lost on the way (a closed stream, a restart of either side) is sent again:
//! when the other player connects, and on a tick while he has not answered and
//! [`RESEND_MS`] have passed since it last went. The receiver takes only the next
//! message, only from the game's other player, and only if it is the one signed (the
//! table checks, `Table::take_message`): anything else is dropped and changes nothing.

use sealed_protocol::ids::Seat;
use sealed_protocol::proposal::Terms;

use super::slot::Life;
use super::{Core, Durable, GameId, PeerKey};
use crate::io::{Output, Writes};

/// How long a message waits for its answer before it is sent again.
pub const RESEND_MS: u64 = 30_000;

/// The key of the game's other player, seen from seat `me`.
pub(super) fn other_player(terms: &Terms, me: Seat) -> Option<PeerKey> {
    let other = terms.player_seats().find(|s| *s != me)?;
    terms.key(other).map(|k| k.to_bytes())
}

impl Core {
    /// A message from `peer` for `game`, at `index`.
    pub(super) fn message(
        &mut self,
        peer: PeerKey,
        game: GameId,
        index: u64,
        bytes: Vec<u8>,
        store: &dyn Durable,
    ) {
        // What it costs to look at: a hash of its bytes, more for a large one.
        if self
            .spend(&peer, 1.0 + bytes.len() as f64 / 65_536.0)
            .is_err()
        {
            return;
        }
        // A game asleep is rebuilt first, its stored messages with it: only for its
        // other player, so that nobody else can make this node rebuild a game.
        let asleep_with = self.games.asleep(&game).map(|a| a.other.0);
        if let Some(other) = asleep_with
            && (other != peer || self.rouse(&game, store).is_err())
        {
            return;
        }
        let Some(p) = self.games.played_mut(&game) else {
            tracing::debug!(peer = %hex::encode(&peer[..4]), "a message for a game not here");
            return;
        };
        if other_player(p.table.terms(), p.table.seat()) != Some(peer) {
            tracing::info!(peer = %hex::encode(&peer[..4]), "a message from a peer who is not the other player");
            return;
        }
        match p.table.take_message(index, bytes.clone()) {
            Ok(true) => self.store_message(game, index, bytes, store),
            Ok(false) => {}
            Err(e) => {
                tracing::info!(game = %hex::encode(&game.bytes()[..4]), "a message refused: {e}");
            }
        }
    }

    /// A message the table took: stored in the game's write queue ahead of any act that
    /// follows it (durable before anything signed can depend on it), then the duties.
    pub(super) fn store_message(
        &mut self,
        game: GameId,
        index: u64,
        bytes: Vec<u8>,
        store: &dyn Durable,
    ) {
        if let Some(p) = self.games.played_mut(&game) {
            p.used = self.now;
        }
        let step = super::durable::Step {
            writes: Writes {
                messages: vec![(game, index, bytes)],
                ..Writes::default()
            },
            ..Default::default()
        };
        self.stage(game, step, store);
        self.bot_dirty(game);
        self.run_bots(store);
    }

    /// Sends a message to `peer` if connected (else it goes again when it connects).
    pub(super) fn send_message(&mut self, peer: PeerKey, game: GameId, index: u64, bytes: Vec<u8>) {
        if !self.peers.connected.contains(&peer) {
            return;
        }
        if let Some(s) = self.games.slot_mut(&game) {
            s.message_sent = self.now;
        }
        self.out.push_back(Output::Message {
            peer,
            game,
            index,
            bytes,
        });
    }

    /// Sends again each game's last message its other player has not answered: to
    /// `peer` alone when it has just connected, else to each whose wait is over.
    pub(super) fn resend_messages(&mut self, peer: Option<PeerKey>) {
        let now = self.now;
        let mut due = vec![];
        for (id, s) in self.games.slots_mut() {
            // Only what is durable: nothing of the game is being written.
            if s.queue.in_flight.is_some() || s.queue.next.is_some() {
                continue;
            }
            if peer.is_none() && now.saturating_sub(s.message_sent) < RESEND_MS {
                continue;
            }
            let Life::Played(p) = &mut s.life else {
                continue;
            };
            let Some(to) = other_player(p.table.terms(), p.table.seat()) else {
                continue;
            };
            if peer.is_some_and(|k| k != to) {
                continue;
            }
            if let Some((index, bytes)) = p.table.message_out(true) {
                due.push((to, *id, index, bytes));
            }
        }
        for (to, id, index, bytes) in due {
            self.send_message(to, id, index, bytes);
        }
    }
}
