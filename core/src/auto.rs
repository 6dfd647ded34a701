//! What a core does by itself: bots, duties, repair rounds, timeout claims, and the
//! retries after a failed write.
//!
//! Every repair round redials the peers of unfinished games and the standing mailboxes
//! and rendezvous points (`book.rs`), and sends each connected peer its `Heads`
//! (`sync.rs` `heads_for`). Duties are applied on every change, when their time comes
//! (`timeout.rs`) and on every repair round (`run_duties`: a referee's answers, seals
//! and period closes never wait for a person). Timeouts are only claimed
//! (`claim_timeouts`), as soon as the opponent's time runs out (`game/slot/time.rs` `Slot::timeout_at`). A bot's
//! choice that its session refuses is logged and another pick tried, and a bot whose
//! every pick was refused looks again on the next repair round (`bot_turn`);
//! `tests/tests/table/` plays the demo games of every variant for many seeds and fails
//! on any refused bot choice.

use std::collections::BTreeSet;

use sealed_games::table::Refusal;
use sealed_protocol::body::{Claim, ClaimKind};
use sealed_protocol::ids::Seat;
use sealed_protocol::session::Command as SessionCommand;

use super::seats::game_peers;
use super::{Core, Durable, GameId, NodeError, PeerKey};
use crate::message::Request;
use crate::record::GameStatus;

/// Picks a bot tries before it waits for the next repair round.
const BOT_TRIES: usize = 8;

/// Acts a bot or the duties of one game may take in one go.
const MAX_ACTS: usize = 64;

impl Core {
    /// Applies a decision to a game's session and stages what it asks. The step's reply
    /// (if any) goes out once it is durable.
    pub(super) fn apply(
        &mut self,
        id: GameId,
        cmd: SessionCommand,
        reply: Option<super::CmdId>,
        store: &dyn Durable,
    ) -> Result<(), NodeError> {
        let mut step = self.command_step(id, cmd)?;
        if let Some(r) = reply {
            step.replies.push((r, Ok(super::Answer::Done)));
        }
        self.stage(id, step, store);
        Ok(())
    }

    /// Gives a decision to a game's session: the step it asks, not staged yet.
    pub(super) fn command_step(
        &mut self,
        id: GameId,
        cmd: SessionCommand,
    ) -> Result<super::game::queue::Step, NodeError> {
        let p = self.games.played_mut(&id).ok_or(NodeError::OnlyRelayed)?;
        p.use_at(self.now);
        p.table_mut()
            .session_mut()
            .handle_command(cmd, self.now)
            .map_err(|e| NodeError::Refused(Refusal::Session(e)))?;
        let actions = super::game::queue::drain(&mut *p.table_mut());
        Ok(self.step_of(id, actions))
    }

    /// Lets the bots act in the games that changed since they last looked (a bot's own
    /// act changes its game, so a bot that can go on does, up to [`MAX_ACTS`] a call).
    pub(super) fn run_bots(&mut self, store: &dyn Durable) {
        let dirty: Vec<GameId> = self.games.for_bots();
        // What changed is stamped at once (a game with a witness and private logs).
        self.stamp_round_for(&dirty, store);
        self.lacked_round(Some(&dirty));
        self.run_duties(dirty, store);
        for _ in 0..MAX_ACTS {
            let ids: Vec<GameId> = self
                .games
                .take_for_bots()
                .into_iter()
                .filter(|id| {
                    self.bot_decides(id)
                        && self
                            .games
                            .played(id)
                            .is_some_and(|p| p.table().turn().my_turn)
                })
                .collect();
            if ids.is_empty() {
                break;
            }
            for id in ids {
                self.bot_turn(id, store);
            }
        }
    }

    /// Whether a bot decides game `id`: every game's bots are on, or this one's.
    fn bot_decides(&self, id: &GameId) -> bool {
        self.bots.all || self.games.slot(id).is_some_and(|s| s.bot())
    }

    /// Lets a bot decide game `id`, or stops it.
    pub(super) fn bot_on(&mut self, id: GameId, on: bool) {
        if let Some(s) = self.games.slot_mut(&id) {
            s.set_bot(on);
        }
    }

    /// Game `id` changed: the bots look at it again.
    pub(super) fn bot_dirty(&mut self, id: GameId) {
        self.games.mark_for_bots(id);
    }

    /// One act of a bot's. A choice its session refuses is logged and another pick is
    /// tried: a bot must never leave a game waiting for ever (a Tempête bot once kept
    /// offering a refused yield). The next repair round tries again if none is taken.
    fn bot_turn(&mut self, id: GameId, store: &dyn Durable) {
        for _ in 0..BOT_TRIES {
            self.bots.counter = self
                .bots
                .counter
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let pick = self.bots.counter >> 33;
            let Some(cmd) = self
                .games
                .played(&id)
                .and_then(|p| p.table().bot_action(pick))
            else {
                return;
            };
            let accept = cmd == SessionCommand::Accept;
            // A stranger's invitation within the hosted games' bounds only (`hosted.rs`);
            // else it waits, and the next repair round looks again.
            if accept && !self.may_host(&id, store) {
                return;
            }
            match self.apply(id, cmd, None, store) {
                Ok(()) => {
                    if accept {
                        self.set_status(id, GameStatus::Active, store);
                        self.accepted_game(&id);
                    }
                    return;
                }
                Err(e) => {
                    tracing::warn!(game = %hex::encode(&id.bytes()[..4]), "bot's choice refused: {e}");
                }
            }
        }
    }

    /// Records a game's status (for `sealed games`), with the game's next write.
    pub(super) fn set_status(&mut self, id: GameId, status: GameStatus, store: &dyn Durable) {
        if let Some(p) = self.games.played_mut(&id)
            && p.change_status(status)
        {
            let mut step = super::game::queue::Step::default();
            step.writes.statuses.push((id, status));
            // Kept beside the game, so that `sealed games` says how a finished game
            // ended without replaying it (`listed.rs`).
            if status == GameStatus::Finished {
                let line = super::listed::Listed::of(p.table());
                step.writes
                    .meta
                    .push((super::listed::listed_key(&id), line.to_bytes()));
                step.writes.meta.extend(self.owe(id));
            }
            self.stage(id, step, store);
        }
    }

    /// Applies the duties the games give this node's seats (a referee's answers and
    /// period closes, a player's setup shown to the referee), whoever decides the seat's
    /// moves: a duty is never a choice.
    pub(super) fn run_duties(&mut self, ids: Vec<GameId>, store: &dyn Durable) {
        for id in ids {
            for _ in 0..MAX_ACTS {
                let now = self.now;
                let Some(cmd) = self.games.played(&id).and_then(|p| p.table().duty(now)) else {
                    break;
                };
                if let Err(e) = self.apply(id, cmd, None, store) {
                    tracing::warn!(game = %hex::encode(&id.bytes()[..4]), "duty refused: {e}");
                    break;
                }
                self.bot_dirty(id);
            }
        }
    }

    /// The repair round, every [`crate::CoreConfig::repair_every_ms`]: what is a retry
    /// by nature (a dial, a pull from a mailbox, heads, a message or a write sent again,
    /// a sweep of idle and expired games) and a look at every game's duties and clocks
    /// besides their own deadlines (`timeout.rs`).
    pub(super) fn repair(&mut self, store: &dyn Durable) {
        self.budgets.prune(self.now);
        self.recover_if_halted();
        self.save_settings();
        self.unload_idle();
        self.expire_held(store);
        self.sleep_idle();
        self.resend_messages(None);
        // A bot whose every pick was refused looks again.
        let waiting: Vec<GameId> = self
            .games
            .all_played()
            .filter(|(id, p)| self.bot_decides(id) && p.table().turn().my_turn)
            .map(|(id, _)| *id)
            .collect();
        for id in waiting {
            self.bot_dirty(id);
        }
        // Reach every peer of every unfinished game we are not connected to, and send
        // each connected one the heads of every unfinished game we share: one request
        // per peer that repairs whatever a lost or refused push left behind, and pulls
        // from mailboxes (they cannot reach us while we are offline).
        // Not for an invitation not accepted (its proposer reaches us), and a referee
        // reaches the seats, not the mailboxes its games name.
        let me = self.key();
        let mut want: BTreeSet<PeerKey> = BTreeSet::new();
        for p in self.games.all_played().map(|(_, g)| g) {
            if (p.settled() && p.record().status != GameStatus::Proposed) || !p.accepted() {
                continue;
            }
            let terms = p.table().session().terms();
            let peers = if super::seats::referees(terms, &me) {
                let seats = crate::seats::seat_keys(terms);
                seats.chain(super::seats::witness_key(terms)).collect()
            } else {
                game_peers(terms, &me)
            };
            for peer in peers {
                if peer != me && !self.peers.connected.contains(&peer) {
                    want.insert(peer);
                }
            }
        }
        // A game asleep is unfinished: its peers are reached as any (`sleep.rs`).
        for (_, a) in self.games.all_asleep() {
            want.extend(
                a.peers()
                    .filter(|p| **p != me && !self.peers.connected.contains(*p)),
            );
        }
        // Mailboxes and rendezvous points stay connected: an invitation through one
        // reaches this node with no `dial`, and lookups need one.
        let standing: Vec<PeerKey> = self.peers.book.standing().copied().collect();
        want.extend(
            standing
                .into_iter()
                .filter(|p| !self.peers.connected.contains(p) && *p != me),
        );
        for peer in want {
            self.dial(peer);
        }
        let peers = heads_share(sorted(self.peers.connected.iter().copied()), self.rounds);
        self.rounds += 1;
        let mut heads = self.heads_for_each(&peers);
        for peer in peers {
            for games in heads.remove(&peer).unwrap_or_default() {
                self.request(peer, Request::Heads { games });
            }
            self.reintroduce(peer);
        }
        self.deliver_finals(store);
        self.offer_owed(None, store);
        self.claim_timeouts(store);
        // Duties can come due with time alone (a move period ends): every game is
        // looked at on each round too, besides its own deadline.
        let ids: Vec<GameId> = sorted(
            self.games
                .all_played()
                .filter(|(_, p)| !p.table().session().phase().is_done())
                .map(|(id, _)| *id),
        );
        self.run_duties(ids, store);
        self.run_bots(store);
    }

    /// Files a timeout claim against each opponent whose time has passed, once per
    /// wait: a claim whose clock is later than the wait's start already covers it.
    pub(super) fn claim_timeouts(&mut self, store: &dyn Durable) {
        let due: Vec<(GameId, Seat)> = self
            .games
            .slots()
            .filter_map(|(id, slot)| {
                let (owing, at) = slot.timeout_at(self.now)?;
                (at <= self.now).then_some((*id, owing))
            })
            .collect();
        let mut due = due;
        due.sort();
        // With a witness, time is proven, not claimed — unless the witness is silent
        // (`witness.rs`).
        due.retain(|(id, _)| {
            self.games
                .played(id)
                .is_some_and(|p| p.table().session().terms().witness().is_none())
                || self.witness_silent(id)
        });
        let asks = self.witness_due();
        self.ask_witnesses(&asks);
        self.stamp_round(store);
        self.lacked_round(None);
        for (id, against) in due {
            tracing::info!(game = %hex::encode(id), %against, "claiming a timeout");
            let claim = SessionCommand::Claim(Claim {
                against,
                kind: ClaimKind::Timeout,
            });
            if let Err(e) = self.apply(id, claim, None, store) {
                tracing::warn!(game = %hex::encode(id), "timeout claim refused: {e}");
            }
        }
    }
}

/// The most connected peers one repair round sends its heads to. A public mailbox
/// with a thousand players connected sent a thousand requests at once every round,
/// and their answers, each about every game shared, queued ahead of the moves: the
/// relay's p99 rose from about 40 ms to 210-380 ms in that second (docs/PERFORMANCE.md,
/// "The repair round's heads"). Past this many, each round takes its turn's share, so
/// that every peer still has them every `ceil(n / HEADS_AT_ONCE)` rounds; each peer's own
/// node sends its heads every round besides, and either side's heads repair both ways
/// (`sync.rs`, `Request::Heads`). The round's introductions for games of more than two
/// seats (`reintroduce`) go with its heads, in the same turns; a new connection has
/// both at once (`peers.rs`).
pub(crate) const HEADS_AT_ONCE: usize = 64;

/// The share of `peers` (sorted) whose heads round `round` sends: all of them when they
/// are at most [`HEADS_AT_ONCE`], else every `shares`-th one from the round's turn, where
/// `shares` is as many as makes each share at most [`HEADS_AT_ONCE`].
fn heads_share<T>(peers: Vec<T>, round: u64) -> Vec<T> {
    let shares = peers.len().div_ceil(HEADS_AT_ONCE).max(1);
    let turn = (round % shares as u64) as usize;
    peers
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % shares == turn)
        .map(|(_, p)| p)
        .collect()
}

/// Ids in a stable order: the simulation replays from its seed, so nothing the core
/// does may depend on a hash map's order.
fn sorted<T: Ord>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = items.collect();
    v.sort();
    v
}

#[cfg(test)]
mod tests {
    use super::{HEADS_AT_ONCE, heads_share};

    #[test]
    fn a_round_sends_its_heads_to_every_peer_when_they_are_few() {
        let peers: Vec<usize> = (0..HEADS_AT_ONCE).collect();
        for round in 0..3 {
            assert_eq!(heads_share(peers.clone(), round), peers);
        }
    }

    #[test]
    fn many_peers_have_their_heads_in_turns_each_once() {
        let n = 10 * HEADS_AT_ONCE + 1;
        let peers: Vec<usize> = (0..n).collect();
        let shares = 11;
        let mut seen = vec![0; n];
        for round in 0..shares {
            let share = heads_share(peers.clone(), round);
            assert!(
                share.len() <= HEADS_AT_ONCE,
                "round {round}: {}",
                share.len()
            );
            for p in share {
                seen[p] += 1;
            }
        }
        assert!(
            seen.iter().all(|&c| c == 1),
            "each peer once in {shares} rounds"
        );
        // The turns begin again.
        assert_eq!(heads_share(peers.clone(), shares), heads_share(peers, 0));
    }
}
