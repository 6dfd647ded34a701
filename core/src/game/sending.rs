//! This seat's last message of a game's computations on its way to the other player
//! (spec/GAMES.md §5.15): when it last went and how often in a row its stream was lost,
//! and from those, when it goes again. The core's work (`computations.rs`) asks this
//! machine and does what it says; the wait's rules live here alone.
//!
//! A message goes again on a repair round once [`RESEND_MS`] passed since it last went.
//! A stream that ended without the receiver's answer byte (spec/PROTOCOL.md §16.7) makes
//! it go again sooner: at once the first time, then after [`lost_wait`].

/// How long a message waits for its answer before it is sent again.
pub(crate) const RESEND_MS: u64 = 30_000;

/// How long a lost message waits before it goes again, by its count: one more for each
/// report of a lost stream and for each copy the repair round sends after one. The first
/// loss sends it at once; then 2, 4, 8, 16 s, then [`RESEND_MS`]. A receiver that drops
/// every stream, holds them open unanswered, or answers no byte (an older node), costs a
/// few copies in the first half minute and then no more than before.
pub(crate) fn lost_wait(lost: u32) -> u64 {
    match lost {
        0 => RESEND_MS,
        n => (1_000u64 << n.min(5)).min(RESEND_MS),
    }
}

/// The last message sent of one game.
#[derive(Default, Debug, PartialEq, Eq)]
pub(crate) enum Sending {
    /// None went since the game came into memory.
    #[default]
    Nothing,
    /// The message at `index` went last at `at` (ms); its stream was reported lost
    /// `lost` times in a row since, counting the copies a repair round sent after one.
    Went { index: u64, at: u64, lost: u32 },
}

/// What a report of a lost stream asks for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum AfterLoss {
    /// Send it again now: the first loss of this message.
    SendNow,
    /// Counted; it goes on a repair round once its wait is over.
    Wait,
    /// Not the message that went last: nothing changes.
    NotOurs,
}

impl Sending {
    /// The message at `index` went at `now`. A new message starts its count of losses
    /// again; the same one sent again keeps it.
    pub(crate) fn went(&mut self, index: u64, now: u64) {
        let lost = match *self {
            Sending::Went {
                index: was, lost, ..
            } if was == index => lost,
            _ => 0,
        };
        *self = Sending::Went {
            index,
            at: now,
            lost,
        };
    }

    /// Whether a report that the stream of `index` was lost names the message that went
    /// last: anything else is a peer's word about a stream it may have cut at will.
    pub(crate) fn is_last(&self, index: u64) -> bool {
        matches!(*self, Sending::Went { index: i, .. } if i == index)
    }

    /// The stream of the message that went last was lost (the caller checked
    /// [`Sending::is_last`] and that the message is still owed).
    pub(crate) fn lost(&mut self) -> AfterLoss {
        let Sending::Went { lost, .. } = self else {
            return AfterLoss::NotOurs;
        };
        *lost = lost.saturating_add(1);
        if *lost == 1 {
            AfterLoss::SendNow
        } else {
            AfterLoss::Wait
        }
    }

    /// Whether a repair round at `now` sends the owed message again: its wait since it
    /// last went is over (a message never sent here goes at once).
    pub(crate) fn due(&self, now: u64) -> bool {
        match *self {
            Sending::Nothing => true,
            Sending::Went { at, lost, .. } => now.saturating_sub(at) >= lost_wait(lost),
        }
    }

    /// A repair round sends a copy of the message at `index`: a lost message's wait
    /// doubles with each copy, whether or not a report came back for the last one (a
    /// stream the receiver holds open unanswered reports only when it times out).
    pub(crate) fn copied(&mut self, index: u64) {
        if let Sending::Went { index: i, lost, .. } = self
            && *i == index
            && *lost > 0
        {
            *lost = lost.saturating_add(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_message_waits_two_four_eight_sixteen_seconds_then_the_periodic_wait() {
        let waits: Vec<u64> = (0..8).map(lost_wait).collect();
        assert_eq!(
            waits,
            [
                RESEND_MS, 2_000, 4_000, 8_000, 16_000, RESEND_MS, RESEND_MS, RESEND_MS
            ]
        );
        assert_eq!(lost_wait(u32::MAX), RESEND_MS, "no shift past the word");
    }

    #[test]
    fn the_first_loss_sends_at_once_then_each_copy_doubles_the_wait() {
        let mut s = Sending::default();
        assert!(
            !s.is_last(0),
            "nothing went: a report names nothing of ours"
        );
        assert_eq!(s.lost(), AfterLoss::NotOurs);
        s.went(3, 1_000);
        assert!(s.is_last(3) && !s.is_last(2));
        assert!(!s.due(1_000 + RESEND_MS - 1));
        assert!(s.due(1_000 + RESEND_MS));
        assert_eq!(s.lost(), AfterLoss::SendNow);
        s.went(3, 2_000);
        assert_eq!(
            s,
            Sending::Went {
                index: 3,
                at: 2_000,
                lost: 1
            },
            "the same one keeps its count"
        );
        assert!(!s.due(3_999) && s.due(4_000), "2 s after the first loss");
        s.copied(3);
        s.went(3, 4_000);
        assert!(!s.due(7_999) && s.due(8_000), "4 s after the next copy");
        assert_eq!(
            s.lost(),
            AfterLoss::Wait,
            "only the first loss sends at once"
        );
        s.copied(2);
        assert_eq!(
            s,
            Sending::Went {
                index: 3,
                at: 4_000,
                lost: 3
            },
            "another index's copy counts nothing"
        );
        s.went(4, 9_000);
        assert_eq!(
            s,
            Sending::Went {
                index: 4,
                at: 9_000,
                lost: 0
            },
            "a new message starts again"
        );
        s.copied(4);
        assert_eq!(
            s,
            Sending::Went {
                index: 4,
                at: 9_000,
                lost: 0
            },
            "a copy before any loss keeps the periodic wait"
        );
    }
}
