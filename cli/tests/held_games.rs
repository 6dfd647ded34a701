//! Games held for strangers (issue 52, attacks 3 and 5), with real `sealed` nodes on
//! loopback and strangers of their own (libp2p clients with fresh keys, from other
//! loopback addresses: 127.1.0.2 and 127.2.0.2 are other /24 networks than 127.0.0.1):
//!
//! - fresh keys from two networks fill a public mailbox's open games, yet an honest
//!   newcomer from a third still has his game taken (the network holding most yields),
//!   and once the lifetime the mailbox announces is over the slots come back with no
//!   operator action;
//! - another sender fills, through a player's own mailbox, what the player takes from
//!   one address, yet an honest stranger's invitation through that mailbox still
//!   arrives (it is counted at his address, not the mailbox's), and `sealed new` says
//!   "left at the mailbox", never "delivered", for what only the mailbox holds.

mod hostile_kit;

use std::path::PathBuf;

use hostile_kit::client::stranger;
use hostile_kit::{Proc, init, invite, sealed, seed, start, text, until};
use sealed_games::table::{self, Invitees};
use sealed_node::sync::{Request, Response};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::{MailboxSpec, Terms};

struct Dir(PathBuf);

impl Dir {
    fn new(label: &str) -> Dir {
        let p = std::env::temp_dir().join(format!("sealed-held-{}-{label}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("a temporary folder");
        Dir(p)
    }

    fn home(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// When the test's proposals are made: one time for all, so that a proposal made
/// again is the same game.
fn made() -> u64 {
    static AT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *AT.get_or_init(sealed_node::shell::now_ms)
}

/// A duel `me` proposes to `opponent` through the mailbox `mailbox` (key, address).
fn duel(me: &SecretKey, opponent: [u8; 32], mailbox: ([u8; 32], &str), nonce: u64) -> Terms {
    let mut n = [0x4b; 32];
    n[..8].copy_from_slice(&nonce.to_le_bytes());
    let signed = table::propose(
        "duel",
        &[],
        me,
        Invitees {
            opponent,
            mailboxes: vec![MailboxSpec {
                key: mailbox.0,
                addrs: vec![mailbox.1.to_owned()],
            }],
            ..Invitees::default()
        },
        made(),
        n,
    )
    .expect("a valid proposal");
    Terms::from_signed(signed).expect("valid terms")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// Proposes `games` duels, each from a fresh key, from `ip`, to the mailbox `m`;
/// how many it took.
fn flood(
    rt: &tokio::runtime::Runtime,
    m: &Proc,
    m_key: [u8; 32],
    opponent: [u8; 32],
    ip: &str,
    tag: u8,
    games: u64,
) -> usize {
    let mut s = stranger(seed(tag, 0), ip);
    let mp = rt.block_on(s.connect(&m.addr)).expect("connects");
    let reqs = (0..games)
        .map(|i| Request::Propose {
            proposal: duel(
                &SecretKey::from_seed(&seed(tag, 1 + i)),
                opponent,
                (m_key, &m.addr),
                u64::from(tag) << 32 | i,
            )
            .bytes()
            .to_vec(),
        })
        .collect();
    rt.block_on(s.ask_all(mp, reqs))
        .iter()
        .filter(|r| matches!(r, Ok(Response::Ok { .. })))
        .count()
}

/// One proposal from a fresh key from `ip` to the mailbox: its answer.
fn one(
    rt: &tokio::runtime::Runtime,
    m: &Proc,
    m_key: [u8; 32],
    opponent: [u8; 32],
    ip: &str,
    tag: u8,
) -> Result<Response, String> {
    again(rt, m, m_key, opponent, ip, tag, 0)
}

/// The `i`-th proposal [`flood`] made with `tag`, from `ip` again: its answer.
fn again(
    rt: &tokio::runtime::Runtime,
    m: &Proc,
    m_key: [u8; 32],
    opponent: [u8; 32],
    ip: &str,
    tag: u8,
    i: u64,
) -> Result<Response, String> {
    let mut s = stranger(seed(tag, 100), ip);
    let mp = rt.block_on(s.connect(&m.addr)).expect("connects");
    let t = duel(
        &SecretKey::from_seed(&seed(tag, 1 + i)),
        opponent,
        (m_key, &m.addr),
        u64::from(tag) << 32 | i,
    );
    rt.block_on(s.ask(
        mp,
        Request::Propose {
            proposal: t.bytes().to_vec(),
        },
    ))
}

#[test]
fn a_public_mailbox_full_of_fresh_keys_takes_an_honest_newcomer_and_frees_its_slots() {
    let dir = Dir::new("mailbox");
    let rt = runtime();
    let _entered = rt.enter();
    let m_home = dir.home("mailbox");
    let m_key = init(&m_home, "mailbox").public().to_bytes();
    // A small public mailbox: 16 open games for strangers, kept 20 s unaccepted.
    let m = start(
        &m_home,
        "node",
        "/ip4/127.0.0.1/tcp/0",
        &["--mailbox", "--open-total", "16", "--keep-open", "20s"],
    );
    let peers: serde_json::Value =
        serde_json::from_str(&text(&sealed(&m_home, &["peers", "--json"]))).expect("json");
    assert_eq!(
        peers["held"]["open_ms"], 20_000,
        "the lifetime announced: {peers}"
    );
    let opponent = SecretKey::from_seed(&seed(9, 9)).public().to_bytes();
    // Fresh keys from two networks: 12 games from 127.1.0/24, 4 from 127.2.0/24.
    let a = flood(&rt, &m, m_key, opponent, "127.1.0.2", 1, 12);
    let b = flood(&rt, &m, m_key, opponent, "127.2.0.2", 2, 4);
    assert_eq!((a, b), (12, 4), "the mailbox is full");
    // More from the network holding most: refused.
    let r = one(&rt, &m, m_key, opponent, "127.1.0.3", 3);
    assert!(
        matches!(&r, Ok(Response::Refused(why)) if why.contains("open games")),
        "{r:?}"
    );
    // An honest newcomer from a clean network: taken, in place of the oldest game of
    // the busiest address of the network holding most.
    let r = one(&rt, &m, m_key, opponent, "127.3.0.2", 4);
    assert!(matches!(r, Ok(Response::Ok { .. })), "{r:?}");
    let relayed = || {
        m.games()
            .iter()
            .filter(|g| g["status"] == "relayed")
            .count()
    };
    assert_eq!(relayed(), 16);
    // Every game shows when it expires.
    assert!(m.games().iter().all(|g| g["expires_ms"].is_u64()));
    // After the lifetime, with no operator action, the slots come back: the network
    // that held most has its games taken again.
    assert!(
        until(60, || relayed() == 0),
        "the games expired: {} left",
        relayed()
    );
    let r = one(&rt, &m, m_key, opponent, "127.1.0.4", 5);
    assert!(matches!(r, Ok(Response::Ok { .. })), "{r:?}");
    // A game dropped is refused as such if offered again, not taken anew: the one
    // evicted for the newcomer, and one that expired.
    let said: Vec<String> = (0..12)
        .map(
            |i| match again(&rt, &m, m_key, opponent, "127.1.0.2", 1, i) {
                Ok(Response::Refused(why)) => why.split(':').next().unwrap_or("").to_owned(),
                other => format!("{other:?}"),
            },
        )
        .collect();
    let count = |w: &str| said.iter().filter(|s| *s == w).count();
    assert_eq!((count("evicted"), count("expired")), (1, 11), "{said:?}");
}

#[test]
fn an_invitation_through_the_players_mailbox_counts_at_its_sender() {
    let dir = Dir::new("relayed");
    let rt = runtime();
    let _entered = rt.enter();
    let m_home = dir.home("mailbox");
    let m_key = init(&m_home, "mailbox").public().to_bytes();
    let m = start(&m_home, "node", "/ip4/127.0.0.1/tcp/0", &["--mailbox"]);
    // The player, whose default mailbox is `m`, and who gives nobody its address: an
    // invitation reaches it through the mailbox only.
    let v_home = dir.home("victim");
    let v_key = init(&v_home, "victim").public().to_bytes();
    assert!(sealed(&v_home, &["mailbox", &m.addr]).status.success());
    let v = start(&v_home, "node", "/ip4/127.0.0.1/tcp/0", &["--no-announce"]);
    let invited = || {
        v.games()
            .iter()
            .filter(|g| g["status"] == "invited")
            .count()
    };
    // Another sender fills, through the mailbox, the 16 invitations the player takes
    // from one address: 2 fresh keys × 8 from 127.1.0.2, and 4 more.
    let mut s = stranger(seed(6, 0), "127.1.0.2");
    let mp = rt.block_on(s.connect(&m.addr)).expect("connects");
    let reqs = (0..20u64)
        .map(|i| Request::Propose {
            proposal: duel(
                &SecretKey::from_seed(&seed(6, 1 + i / 8)),
                v_key,
                (m_key, &m.addr),
                600 + i,
            )
            .bytes()
            .to_vec(),
        })
        .collect();
    let taken = rt
        .block_on(s.ask_all(mp, reqs))
        .iter()
        .filter(|r| matches!(r, Ok(Response::Ok { .. })))
        .count();
    assert!(taken >= 16, "the mailbox took {taken}");
    assert!(until(60, || invited() >= 16), "{} invitations", invited());
    // An honest stranger invites the player through the same mailbox: it arrives.
    let c_home = dir.home("carol");
    init(&c_home, "carol");
    let c = start(&c_home, "node", "/ip4/127.0.0.1/tcp/0", &[]);
    let v_peer = v.addr.rsplit("/p2p/").next().expect("a peer id").to_owned();
    let (code, _, said) = invite(
        &c.home,
        &[
            "duel",
            "--peer",
            &v_peer,
            "--mailbox",
            &m.addr,
            "--wait",
            "30",
        ],
    );
    assert_eq!(code, 0, "{said}");
    assert!(
        !said.contains("delivered"),
        "only the mailbox holds it: {said}"
    );
    assert!(said.contains("left at the mailbox"), "{said}");
    let from_carol = || {
        v.games().iter().any(|g| {
            g["status"] == "invited"
                && g["players"]
                    .as_array()
                    .is_some_and(|p| p.iter().any(|p| p["name"] == "carol"))
        })
    };
    assert!(
        until(60, from_carol),
        "carol's invitation reached the player: {:?}",
        v.games()
    );
    drop(c);
}

#[test]
fn a_strangers_invitation_left_unanswered_is_declined_dropped_and_its_proposer_told() {
    let dir = Dir::new("declined");
    // The player keeps a stranger's invitation unanswered for 3 s.
    let v_home = dir.home("victim");
    init(&v_home, "victim");
    let v = start(
        &v_home,
        "node",
        "/ip4/127.0.0.1/tcp/0",
        &["--keep-open", "3s"],
    );
    let c_home = dir.home("carol");
    init(&c_home, "carol");
    let c = start(&c_home, "node", "/ip4/127.0.0.1/tcp/0", &[]);
    let (code, _, said) = invite(&c.home, &["duel", "--peer", &v.addr, "--wait", "30"]);
    assert_eq!(code, 0, "{said}");
    assert!(until(30, || v.games().len() == 1), "{:?}", v.games());
    // Its week (here 3 s) over, the player's node declines it and keeps nothing of
    // it: no line in `sealed games`, no game in the store.
    assert!(until(60, || v.games().is_empty()), "{:?}", v.games());
    // The proposer has the signed decline: his game is over, declined.
    let carols = || c.games().into_iter().next().unwrap_or_default();
    assert!(
        until(60, || carols()["waiting_for"]
            .as_str()
            .is_some_and(|r| r.contains("declined"))),
        "{}",
        carols()
    );
    assert!(carols()["delivery"].is_null(), "owed nothing: {}", carols());
    // And settled: a seat that declined is owed nothing, so nothing is offered again
    // to a node that dropped the game (it would refuse every offer, for a week).
    let refused = || {
        let out = sealed(&v.home, &["peers", "--json"]);
        let peers: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        let all = peers["refused"].as_array().cloned().unwrap_or_default();
        all.iter()
            .filter(|r| r[0].as_str().is_some_and(|w| w.starts_with("expired")))
            .map(|r| r[1].as_u64().unwrap_or(0))
            .sum::<u64>()
    };
    let before = refused();
    std::thread::sleep(std::time::Duration::from_secs(15));
    assert!(refused() <= before.max(1), "offered again: {}", refused());
    drop(c);
    drop(v);
}
