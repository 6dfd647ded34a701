//! The messages of a game's computations, beside its transcript (Secret Stallmate without a
//! referee, spec/GAMES.md §5.15): each player's node makes its messages as duties
//! (`auto.rs`), signs each one's hash in an act, and sends the bytes to the other player on
//! the message stream once that act is durable (`game/queue.rs` `Step::messages`); the
//! other takes them ([`Core::message`]) and stores each before anything it does next can
//! depend on it, until its computation is finished: the seat's state then takes the place
//! of every message before it ([`Core::keep_state`]), so that what a seat keeps of a game
//! does not grow with its attempts.
//!
//! A message lost on the way (a closed stream, a restart of either side) is sent again:
//! when the other player connects, and on a repair round while he has not answered and
//! its wait is over; a stream that ended without the receiver's answer byte
//! (spec/PROTOCOL.md §16.7; the shell says so with [`crate::Input::MessageLost`]) makes it
//! go again sooner. The waits are the game's (`game/sending.rs`). The receiver takes only
//! the next message, only from the game's other player, and only if it is the one signed
//! (the table checks, `Computing::handle`): anything else is dropped and changes nothing.

use sealed_games::table::Given;

use super::seats::other_player;
use super::{Core, Durable, GameId, PeerKey};
use crate::io::{KEPT_AT, Output, Writes};

impl Core {
    /// The games played here whose computations are under way (a game with computations,
    /// not over), each
    /// with its other player: the only pairs whose messages the shell reads
    /// (spec/PROTOCOL.md §16.7), so that nobody else can make it hold a message's bytes.
    /// A game asleep is none of them: a game with computations has a witness and a time
    /// control, and such a game never sleeps (`sleep.rs`). One pass over the games
    /// played here, as `Core::due_at` is.
    pub fn computing(&self) -> impl Iterator<Item = (PeerKey, GameId, usize)> + '_ {
        self.games.with_computations().filter_map(|(id, p)| {
            // From the proposal to the end: nothing before the end is too early for a
            // message. (Every game of the set has computations: `Games::put`.)
            if p.table().session().phase().is_done() {
                return None;
            }
            let terms = p.table().session().terms();
            let cap = sealed_games::registry::computations(terms.variant())?.max_message;
            let other = other_player(terms, p.table().session().seat())?;
            Some((other, *id, cap))
        })
    }

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
        let asleep_with = self.games.asleep(&game).map(|a| a.is_seat(&peer));
        if let Some(seat) = asleep_with
            && (!seat || self.rouse(&game, store).is_err())
        {
            return;
        }
        let Some(p) = self.games.played_mut(&game) else {
            tracing::debug!(peer = %peer.short(), "a message for a game not here");
            return;
        };
        if other_player(p.table().session().terms(), p.table().session().seat()) != Some(peer) {
            tracing::info!(peer = %peer.short(), "a message from a peer who is not the other player");
            return;
        }
        let mut table = p.table_mut();
        let Some(c) = table.computing() else {
            return;
        };
        let taken = c.handle(Given::Message {
            index,
            bytes: bytes.clone(),
        });
        drop(table);
        match taken {
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
            p.use_at(self.now);
        }
        let mut step = super::game::queue::Step {
            writes: Writes {
                messages: vec![(game, index, bytes)],
                ..Writes::default()
            },
            ..Default::default()
        };
        // The message may finish a computation here (Black's G2): the seat's state then
        // takes the place of every message before, this one too.
        self.keep_state(game, &mut step.writes);
        self.stage(game, step, store);
        self.bot_dirty(game);
        self.run_bots(store);
    }

    /// The seat's state of the game's computations, if its table has a newer one
    /// (`Computing::kept_out`): stored at [`KEPT_AT`] with `writes`, and the other player's
    /// messages before it forgotten in the same write (after this write's own), so that
    /// what the seat keeps of a game does not grow with its attempts (spec/GAMES.md
    /// §5.15, "What a seat keeps"). The table hands it out only once the act ending its
    /// computation is accepted, which is written with `writes` or before.
    pub(super) fn keep_state(&mut self, game: GameId, writes: &mut Writes) {
        if let Some(p) = self.games.played_mut(&game)
            && let Some(c) = p.table_mut().computing()
            && let Some((before, kept)) = c.kept_out()
        {
            writes.messages.push((game, KEPT_AT, kept));
            writes.forget_messages_before.push((game, before));
        }
    }

    /// Sends a message to `peer` if connected (else it goes again when it connects).
    pub(super) fn send_message(&mut self, peer: PeerKey, game: GameId, index: u64, bytes: Vec<u8>) {
        if !self.peers.connected.contains(&peer) {
            return;
        }
        if let Some(s) = self.games.slot_mut(&game) {
            s.message_went(index, self.now);
        }
        self.out.push_back(Output::Message {
            peer,
            game,
            index,
            bytes,
        });
    }

    /// The stream of the message at `index` to `peer` ended without the receiver's answer
    /// byte. Counted only for the message this seat last sent and still owes that peer (the
    /// game's other player, the message unanswered): the first loss sends it again at once,
    /// later copies go on a repair round after their wait (`game/sending.rs`). It went once
    /// already, so the act that signs it is durable, whatever of the game is being written
    /// now. Anything else changes nothing: the report is the shell's, but what it names
    /// comes from a stream a peer may have cut at will.
    pub(super) fn message_lost(&mut self, peer: PeerKey, game: GameId, index: u64) {
        if let Some(bytes) = self
            .games
            .slot_mut(&game)
            .and_then(|s| s.message_lost(peer, index))
        {
            self.send_message(peer, game, index, bytes);
        }
    }

    /// Sends again each game's last message its other player has not answered: to
    /// `peer` alone when it has just connected, else to each whose wait is over.
    pub(super) fn resend_messages(&mut self, peer: Option<PeerKey>) {
        let now = self.now;
        let mut due = vec![];
        // Only a game with computations has messages: a pass over those, not every game.
        let ids: Vec<GameId> = self.games.with_computations().map(|(id, _)| *id).collect();
        for id in ids {
            if let Some((to, index, bytes)) = self
                .games
                .slot_mut(&id)
                .and_then(|s| s.message_again(peer, now))
            {
                due.push((to, id, index, bytes));
            }
        }
        for (to, id, index, bytes) in due {
            self.send_message(to, id, index, bytes);
        }
    }
}
