//! Time forfeits (protocol version 2) for tests and vectors: a version 2 Duel naming the
//! witness of spec/vectors/witness.json, a game stalled at Black's turn, and the
//! witness's statements about it.

use sealed_games::duel::Duel;
use sealed_protocol::envelope::Signed;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, EnvRef, GameId, Name, Seat};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::{Proposal, Terms, VERSION_2, WitnessSpec};
use sealed_protocol::rules::Rules;
use sealed_protocol::witness::{Head, Held, Ledger, Statement};

use crate::duel_kit::duel_proposal;
use crate::pair::Pair;
use crate::scenarios::{B, until_turn};
use crate::sim::test_key;
use crate::witness_vectors::WITNESS_SEED;

/// An hour, in ms.
pub const HOUR: u64 = 3_600_000;

/// The witness's key.
pub fn witness() -> SecretKey {
    SecretKey::from_seed(&WITNESS_SEED)
}

/// A version 2 Duel naming the witness, with `options` added (a time control, say).
pub fn proposal(options: &[(&str, &str)]) -> Proposal {
    proposal_for(&Duel::default(), options)
}

/// As [`proposal`], with other rules.
pub fn proposal_for(rules: &Duel, options: &[(&str, &str)]) -> Proposal {
    let mut p = duel_proposal(rules, 41);
    p.version = VERSION_2;
    p.witness = Some(WitnessSpec {
        key: witness().public().to_bytes(),
        addrs: vec![],
    });
    for (k, v) in options {
        p.options
            .push((Name::new(k).expect("a name"), (*v).to_owned()));
    }
    p.options.sort();
    p
}

/// The pair playing a proposal signed by seat 0; seat 1 signs the name `p1`.
pub fn pair(p: Proposal) -> Pair<Duel> {
    let mut pair = Pair::new(
        Terms::from_signed(p.sign(&test_key(0))).expect("valid terms"),
        8,
    );
    // Black signs its own name into its acceptance (version 2, §17.15).
    pair.sessions[1].set_name("p1");
    pair
}

/// A game with `time-per-move=1h` in which Black is to act in its second round, Black's
/// envelopes from now on lost.
pub fn stalled() -> Pair<Duel> {
    let mut p = pair(proposal(&[("time-per-move", "1h")]));
    until_turn(&mut p, B, 2);
    p.deliver_all();
    p.silence(B);
    p
}

/// What `seat` holds of every public chain: what its next envelope acknowledges (and
/// what a witness that holds the same would list in a view).
pub fn known<R: Rules>(p: &Pair<R>, seat: Seat) -> Vec<Head> {
    let e = p.sessions[seat.index()].engine();
    e.terms()
        .seats()
        .map(|s| {
            let chain = ChainId::public(s);
            let count = e.processed(chain);
            let head = count
                .checked_sub(1)
                .and_then(|q| e.envelope(EnvRef { chain, seq: q }).map(|x| x.hash))
                .unwrap_or(Hash::ZERO);
            Head { chain, count, head }
        })
        .collect()
}

/// The game's id.
pub fn game<R: Rules>(p: &Pair<R>) -> GameId {
    p.sessions[0].engine().terms().game()
}

/// A ledger at `at` holding `heads` and dating nothing (it tells counts alone).
pub fn view(game: GameId, at: u64, heads: Vec<Head>) -> Statement {
    ledger(game, at, heads, false)
}

/// A ledger at `at` holding `heads`, every envelope of them first held at `at`.
pub fn dated(game: GameId, at: u64, heads: Vec<Head>) -> Statement {
    ledger(game, at, heads, true)
}

/// A ledger at `at` holding `heads`, dating every envelope at `at` when `dates`.
fn ledger(game: GameId, at: u64, heads: Vec<Head>, dates: bool) -> Statement {
    Statement::Ledger(Ledger {
        game,
        at,
        chains: heads
            .into_iter()
            .map(|h| Held {
                chain: h.chain,
                count: h.count,
                head: h.head,
                first: if dates { 0 } else { h.count },
                times: if dates {
                    vec![at; h.count as usize]
                } else {
                    vec![]
                },
            })
            .collect(),
    })
}

/// Statements signed with `key`, as a forfeit carries them.
pub fn signed(statements: &[Statement], key: &SecretKey) -> Vec<Vec<u8>> {
    statements
        .iter()
        .map(|s| s.clone().sign(key).to_bytes())
        .collect()
}

/// The proof an honest witness gives when it holds what `seat` holds: a ledger at 1 s
/// dating every envelope at 1 s, and one `after` ms later showing nothing new.
pub fn proof<R: Rules>(p: &Pair<R>, seat: Seat, after: u64) -> Vec<Statement> {
    let k = known(p, seat);
    vec![
        receipts(p, seat, |_| 1_000),
        view(game(p), 1_000 + after, k),
    ]
}

/// A ledger of every public envelope `seat` holds, each dated `time(envelope)`, at the
/// latest of those times.
pub fn receipts<R: Rules>(p: &Pair<R>, seat: Seat, time: impl Fn(&Signed) -> u64) -> Statement {
    let e = p.sessions[seat.index()].engine();
    let mut at = 0;
    let chains = known(p, seat)
        .into_iter()
        .map(|h| {
            let times: Vec<u64> = (0..h.count)
                .filter_map(|seq| {
                    e.envelope(EnvRef {
                        chain: h.chain,
                        seq,
                    })
                })
                .map(&time)
                .collect();
            at = times.iter().copied().fold(at, u64::max);
            Held {
                chain: h.chain,
                count: h.count,
                head: h.head,
                first: 0,
                times,
            }
        })
        .collect();
    Statement::Ledger(Ledger {
        game: game(p),
        at,
        chains,
    })
}

/// The time of a ledger (or stamp).
pub fn at(s: &Statement) -> u64 {
    match s {
        Statement::Ledger(l) => l.at,
        Statement::Stamp(st) => st.at,
    }
}
