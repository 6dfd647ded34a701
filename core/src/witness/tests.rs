//! A witness's answer to `Deposits` reads only what it carries, and is paid for before
//! anything is read: a core witnessing a stranger's game with ten deposits, served from
//! a store in memory that counts the deposit bytes each read gives (a double of the
//! store, for this pure code only).

use std::cell::Cell;

use sealed_games::table::{self, Invitees};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::{MailboxSpec, Terms, WitnessSpec};

use crate::io::{Input, Output};
use crate::memory::MemoryStore;
use crate::message::{Request, Response};
use crate::record::{GameRecord, GameRow, ReadError};
use crate::test_kit::peer_key;
use crate::{Core, CoreConfig, Durable, GameId, PeerKey};

const T0: u64 = 1_700_000_000_000;
/// Each deposit's size: ten of them are 1 MB, one answer of the first ones.
const DEPOSIT: usize = 100_000;

/// The store in memory, counting the bytes of deposits it has given.
struct Counting {
    inner: MemoryStore,
    deposit_bytes: Cell<usize>,
}

impl Counting {
    fn count(&self, rows: &[(String, Vec<u8>)]) {
        let n: usize = rows
            .iter()
            .filter(|(k, _)| k.starts_with(super::DEPOSIT_PREFIX))
            .map(|(_, v)| v.len())
            .sum();
        self.deposit_bytes.set(self.deposit_bytes.get() + n);
    }
}

impl Durable for Counting {
    fn game_rows(&self) -> Result<Vec<GameRow>, ReadError> {
        self.inner.game_rows()
    }
    fn game(&self, id: &GameId) -> Result<Option<GameRecord>, ReadError> {
        self.inner.game(id)
    }
    fn knows(&self, id: &GameId) -> Result<bool, ReadError> {
        self.inner.knows(id)
    }
    fn secrets(&self, id: &GameId) -> Result<Option<Vec<u8>>, ReadError> {
        self.inner.secrets(id)
    }
    fn envelopes(&self, id: &GameId) -> Result<Vec<Vec<u8>>, ReadError> {
        self.inner.envelopes(id)
    }
    fn chain_envelopes(
        &self,
        id: &GameId,
        from: &mut dyn FnMut(u32, u8) -> Option<u64>,
    ) -> Result<Vec<Vec<u8>>, ReadError> {
        self.inner.chain_envelopes(id, from)
    }
    fn meta(&self, key: &str) -> Result<Option<Vec<u8>>, ReadError> {
        let v = self.inner.meta(key)?;
        if let Some(v) = &v {
            self.count(&[(key.to_owned(), v.clone())]);
        }
        Ok(v)
    }
    fn metas(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, ReadError> {
        let rows = self.inner.metas(prefix)?;
        self.count(&rows);
        Ok(rows)
    }
    fn metas_from(
        &self,
        prefix: &str,
        from: &str,
        max_entries: usize,
        max_bytes: usize,
    ) -> Result<Vec<(String, Vec<u8>)>, ReadError> {
        let rows = self
            .inner
            .metas_from(prefix, from, max_entries, max_bytes)?;
        self.count(&rows);
        Ok(rows)
    }
}

fn key(n: u8) -> SecretKey {
    SecretKey::from_seed(&[n; 32])
}

/// Carries out the core's outputs: writes committed and reported; the answers given.
fn settle(c: &mut Core, s: &mut Counting) -> Vec<(crate::InId, Response)> {
    let mut answers = vec![];
    while let Some(out) = c.poll_output() {
        match out {
            Output::Write { write, writes } => commit(c, s, write, &writes),
            Output::Respond { id, resp } => answers.push((id, resp)),
            _ => {}
        }
    }
    answers
}

/// Commits a write the core asked for, and tells it.
fn commit(c: &mut Core, s: &mut Counting, write: crate::WriteId, writes: &crate::Writes) {
    let n = s.inner.commit(writes);
    c.handle(
        T0,
        Input::Written {
            write,
            result: Ok(n),
        },
        s,
    );
}

/// Asks `req` of the core as `peer`; its answer.
fn ask(c: &mut Core, s: &mut Counting, peer: PeerKey, id: u64, req: Request) -> Response {
    c.handle(
        T0,
        Input::Request {
            peer,
            id: crate::InId(id),
            req,
        },
        s,
    );
    settle(c, s)
        .into_iter()
        .find(|(i, _)| *i == crate::InId(id))
        .map(|(_, r)| r)
        .expect("answered")
}

/// A witness's core, and the game a stranger proposed naming it (both seats his own
/// keys) with ten deposits of [`DEPOSIT`] bytes, numbered 0 to 9.
fn witnessed_game() -> (Core, Counting, PeerKey, GameId) {
    witnessed_game_with(crate::Quotas::default())
}

/// [`witnessed_game`] at a witness with these quotas.
fn witnessed_game_with(quotas: crate::Quotas) -> (Core, Counting, PeerKey, GameId) {
    witnessed_variant(quotas, COMPUTING)
}

/// The variant of the games witnessed here: one whose players compute together, so a
/// deposit alone may be one of its messages, larger than an envelope.
const COMPUTING: &str = "stallmate-duo";

/// A game of `variant` whose proposer has left ten deposits of [`DEPOSIT`] bytes each
/// (one a request) with its witness, if the variant takes them.
fn witnessed_variant(quotas: crate::Quotas, variant: &str) -> (Core, Counting, PeerKey, GameId) {
    let mut s = Counting {
        inner: MemoryStore::default(),
        deposit_bytes: Cell::new(0),
    };
    let witness = key(1);
    let w = peer_key(&witness);
    let cfg = CoreConfig {
        witness: true,
        mailbox: true,
        quotas,
        ..CoreConfig::default()
    };
    let mut c = Core::start(witness, cfg, [0; 32], T0, &s).unwrap();
    settle(&mut c, &mut s);
    let (stranger, other) = (key(2), key(3));
    let addr = format!(
        "/ip4/1.2.3.4/tcp/1/p2p/{}",
        crate::peer_id::text(w.as_bytes()).unwrap()
    );
    let invitees = Invitees {
        opponent: other.public().to_bytes(),
        mailboxes: vec![MailboxSpec {
            key: w.to_bytes(),
            addrs: vec![addr.clone()],
        }],
        witness: Some(WitnessSpec {
            key: w.to_bytes(),
            addrs: vec![addr],
        }),
        ..Default::default()
    };
    let computes = table::computations(variant).is_some();
    // A game that computes needs a time control (spec/GAMES.md §5.15).
    let options: Vec<(String, String)> = computes
        .then(|| ("time-per-move".to_owned(), "1d".to_owned()))
        .into_iter()
        .collect();
    let signed = table::propose(variant, &options, &stranger, invitees, T0, [9; 32]).unwrap();
    let terms = Terms::from_signed(signed).unwrap();
    let game = terms.game();
    let p = peer_key(&stranger);
    let proposal = terms.bytes().to_vec();
    let r = ask(&mut c, &mut s, p, 1, Request::Propose { proposal });
    assert!(matches!(r, Response::Ok { .. }), "{r:?}");
    for i in (0..10u8).filter(|_| computes) {
        let deposits = vec![vec![i; DEPOSIT]];
        let r = ask(
            &mut c,
            &mut s,
            p,
            10 + u64::from(i),
            Request::Deposit { game, deposits },
        );
        assert!(matches!(r, Response::Statements(_)), "{r:?}");
    }
    s.deposit_bytes.set(0);
    (c, s, p, game)
}

#[test]
fn a_deposit_alone_is_as_large_as_its_games_messages_and_no_larger() {
    // A game without computations: a deposit alone is an envelope's at most, so a
    // stranger who proposes such a game naming the witness cannot leave 7 MiB at a time.
    let (mut c, mut s, p, game) = witnessed_variant(crate::Quotas::default(), "duel");
    let envelope = sealed_protocol::deposit::MAX_DEPOSIT;
    let r = ask(
        &mut c,
        &mut s,
        p,
        50,
        Request::Deposit {
            game,
            deposits: vec![vec![1; envelope + 1]],
        },
    );
    assert!(matches!(r, Response::Refused(_)), "{r:?}");
    assert_eq!(s.deposit_bytes.get(), 0);
    let r = ask(
        &mut c,
        &mut s,
        p,
        51,
        Request::Deposit {
            game,
            deposits: vec![vec![1; envelope]],
        },
    );
    assert!(matches!(r, Response::Statements(_)), "{r:?}");
    // A game whose players compute: one of its messages, as large as the variant
    // says (the registry's entry), and not a byte more.
    let (mut c, mut s, p, game) = witnessed_game();
    let most = table::computations(COMPUTING).unwrap().max_deposit();
    let r = ask(
        &mut c,
        &mut s,
        p,
        52,
        Request::Deposit {
            game,
            deposits: vec![vec![2; most + 1]],
        },
    );
    assert!(matches!(r, Response::Refused(_)), "{r:?}");
    let r = ask(
        &mut c,
        &mut s,
        p,
        53,
        Request::Deposit {
            game,
            deposits: vec![vec![2; most]],
        },
    );
    assert!(matches!(r, Response::Statements(_)), "{r:?}");
}

#[test]
fn a_fetch_from_a_late_number_reads_only_the_deposits_it_carries() {
    let (mut c, mut s, p, game) = witnessed_game();
    let r = ask(&mut c, &mut s, p, 100, Request::Deposits { game, from: 9 });
    let Response::Deposits { deposits, next } = r else {
        panic!("{r:?}")
    };
    assert_eq!((deposits, next), (vec![vec![9u8; DEPOSIT]], 10));
    assert_eq!(
        s.deposit_bytes.get(),
        DEPOSIT,
        "the deposits before the 9th were read too"
    );
    // From the start: as many as one answer carries (1 MiB), and no more read.
    s.deposit_bytes.set(0);
    let r = ask(&mut c, &mut s, p, 101, Request::Deposits { game, from: 0 });
    let Response::Deposits { deposits, next } = r else {
        panic!("{r:?}")
    };
    assert_eq!((deposits.len(), next), (10, 10));
    assert_eq!(s.deposit_bytes.get(), 10 * DEPOSIT);
    // Past the last: nothing read, an empty answer.
    s.deposit_bytes.set(0);
    let r = ask(&mut c, &mut s, p, 102, Request::Deposits { game, from: 10 });
    assert_eq!(
        r,
        Response::Deposits {
            deposits: vec![],
            next: 10
        }
    );
    assert_eq!(s.deposit_bytes.get(), 0);
}

#[test]
fn a_fetch_is_paid_for_before_anything_is_read() {
    let (mut c, mut s, p, game) = witnessed_game();
    // The clock stands still: nothing refills. Each answer of 1 MB costs about 1,000
    // tokens of the 20,000; past some twenty, the asker cannot pay the most an answer
    // may cost (a computation's message, 7 MiB) and is refused.
    let mut answered = 0;
    let mut refused = None;
    for id in 200..300 {
        let read = s.deposit_bytes.get();
        match ask(&mut c, &mut s, p, id, Request::Deposits { game, from: 0 }) {
            Response::Deposits { deposits, .. } => {
                assert_eq!(deposits.len(), 10);
                answered += 1;
            }
            Response::Refused(why) => {
                assert_eq!(s.deposit_bytes.get(), read, "read before it was paid for");
                refused = Some(why);
                break;
            }
            r => panic!("{r:?}"),
        }
    }
    let why = refused.expect("refused once its budget is spent");
    assert!(why.contains("rate limit"), "{why}");
    // What it paid: about a token per KiB answered, the unread rest given back (at the
    // most an answer could cost, 7 MiB, it would have been refused after two).
    assert!((12..=20).contains(&answered), "{answered} answered");
    // An empty answer (nothing new) reads nothing and costs no more than a request.
    let r = ask(&mut c, &mut s, p, 400, Request::Deposits { game, from: 10 });
    assert!(matches!(r, Response::Deposits { .. }), "{r:?}");
}

#[test]
fn deposits_waiting_for_the_store_are_bounded_in_bytes() {
    let (mut c, mut s, p, game) = witnessed_game();
    // The store is slow: nothing staged is written yet. Deposits of 7 MiB (a
    // computation's message) pile up behind the first write.
    let big = table::computations(COMPUTING).unwrap().max_message;
    let mut held = vec![];
    let mut busy = None;
    for i in 0..16u64 {
        let deposits = vec![vec![i as u8; big]];
        c.handle(
            T0,
            Input::Request {
                peer: p,
                id: crate::InId(200 + i),
                req: Request::Deposit { game, deposits },
            },
            &s,
        );
        while let Some(out) = c.poll_output() {
            match out {
                Output::Write { write, writes } => held.push((write, writes)),
                Output::Respond { resp, .. } => {
                    assert_eq!(resp, crate::refusal::PeerRefusal::Busy.into());
                    busy.get_or_insert(i);
                }
                _ => {}
            }
        }
    }
    // `MAX_QUEUED_BYTES` wait at most, and the one deposit that passed it: with 24 MiB
    // and 7 MiB deposits, the fifth is refused.
    let limit = crate::sync::MAX_QUEUED_BYTES;
    assert_eq!(
        busy,
        Some(limit / big as u64 + 1),
        "refused from the fifth on"
    );
    // Once the store has caught up, deposits are taken again.
    for (write, writes) in held {
        commit(&mut c, &mut s, write, &writes);
    }
    settle(&mut c, &mut s);
    let deposits = vec![vec![99; big]];
    let r = ask(&mut c, &mut s, p, 300, Request::Deposit { game, deposits });
    assert!(matches!(r, Response::Statements(_)), "{r:?}");
}

/// `who` deposits `deposits` a second after `t` (the token buckets refill): the answer.
fn deposit_at(
    c: &mut Core,
    s: &mut Counting,
    who: PeerKey,
    game: GameId,
    deposits: Vec<Vec<u8>>,
    t: &mut u64,
) -> Response {
    *t += 1000;
    let id = crate::InId(1_000_000 + *t);
    c.handle(
        *t,
        Input::Request {
            peer: who,
            id,
            req: Request::Deposit { game, deposits },
        },
        s,
    );
    settle(c, s)
        .into_iter()
        .find(|(i, _)| *i == id)
        .map(|(_, r)| r)
        .expect("answered")
}

/// Deposits `n` small distinct deposits for `seat_key`, `per` a request, the clock
/// moving a second a request (the token buckets refill); the first refusal, if any, and
/// how many were taken before it.
fn deposit_many(
    c: &mut Core,
    s: &mut Counting,
    who: PeerKey,
    game: GameId,
    tag: u8,
    n: usize,
    t: &mut u64,
) -> (usize, Option<Response>) {
    let per = crate::message::MAX_DEPOSITS;
    let mut taken = 0;
    while taken < n {
        let deposits: Vec<Vec<u8>> = (taken..(taken + per).min(n))
            .map(|i| [&[tag][..], &(i as u64).to_le_bytes()[..]].concat())
            .collect();
        let k = deposits.len();
        let r = deposit_at(c, s, who, game, deposits, t);
        if !matches!(r, Response::Statements(_)) {
            return (taken, Some(r));
        }
        taken += k;
    }
    (taken, None)
}

#[test]
fn a_seat_that_fills_its_deposits_leaves_the_other_seat_its_own() {
    let (mut c, mut s, p, game) = witnessed_game();
    let other = peer_key(&key(3));
    let mut t = T0;
    // The proposer's seat left ten already: it fills its half of the game's deposits.
    let half = (super::MAX_DEPOSITS_PER_GAME / 2) as usize;
    let (taken, refused) = deposit_many(&mut c, &mut s, p, game, 1, half - 10, &mut t);
    assert_eq!(
        (taken, refused),
        (half - 10, None),
        "its half, less the ten before"
    );
    let (taken, refused) = deposit_many(&mut c, &mut s, p, game, 5, 1, &mut t);
    assert_eq!(taken, 0);
    assert_eq!(
        refused,
        Some(crate::refusal::PeerRefusal::DepositsFull.into()),
        "refused past its half"
    );
    // The other seat's deposits are still taken: its half is its own.
    let (taken, refused) = deposit_many(&mut c, &mut s, other, game, 2, 100, &mut t);
    assert_eq!((taken, refused), (100, None));
    // And after a restart, each seat's count is read back from the store.
    let witness = key(1);
    let cfg = CoreConfig {
        witness: true,
        mailbox: true,
        ..CoreConfig::default()
    };
    let mut c = Core::start(witness, cfg, [0; 32], t, &s).unwrap();
    settle(&mut c, &mut s);
    let (taken, refused) = deposit_many(&mut c, &mut s, p, game, 3, 1, &mut t);
    assert_eq!(taken, 0);
    assert_eq!(
        refused,
        Some(crate::refusal::PeerRefusal::DepositsFull.into()),
        "still full after a restart"
    );
    let (taken, refused) = deposit_many(&mut c, &mut s, other, game, 4, 64, &mut t);
    assert_eq!((taken, refused), (64, None));
}

#[test]
fn a_seat_past_the_quotas_has_small_deposits_taken_from_its_reserve_and_no_more() {
    use crate::reserve::{RESERVE_ENVELOPE, RESERVE_PER_SEAT};
    // The proposer's share is the 10 deposits of 100,000 bytes it left already.
    let mut quotas = crate::Quotas::default();
    quotas.per_proposer.bytes = 10 * DEPOSIT as u64;
    let (mut c, mut s, p, game) = witnessed_game_with(quotas);
    let mut t = T0;
    let ask_at = |c: &mut Core, s: &mut Counting, t: &mut u64, deposits: Vec<Vec<u8>>| {
        deposit_at(c, s, p, game, deposits, t)
    };
    // Too big for the reserve: refused by the quota, as before.
    let big = vec![vec![7; RESERVE_ENVELOPE as usize + 1]];
    assert!(matches!(
        ask_at(&mut c, &mut s, &mut t, big),
        Response::Refused(_)
    ));
    // Small ones are taken from the reserve, up to its bytes, then refused.
    let each = RESERVE_ENVELOPE as usize / 2;
    let mut taken = 0;
    for i in 0..64u8 {
        match ask_at(&mut c, &mut s, &mut t, vec![vec![i; each]]) {
            Response::Statements(_) => taken += 1,
            _ => break,
        }
    }
    assert_eq!(taken, RESERVE_PER_SEAT as usize / each);
}
