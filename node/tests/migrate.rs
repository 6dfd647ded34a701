//! Homes written by an older store layout open with today's node and go on: the two
//! homes in `fixtures/home-v1` were made by the last release of layout version 1 (their
//! README says how). Each is copied, opened (the store migrates in one transaction), and
//! every game is there: the finished one verifies, the invitation can be accepted and
//! played, and the active game plays on to a verified end between the two nodes.

mod common;

use std::path::{Path, PathBuf};

use common::{addr, cfg, done, verified, wait};
use sealed_node::store::{GameStatus, Store};
use sealed_node::{Home, start};

const CARDMATE: &str = "9d1afdbb3ee70f58ae6a7b79dbc2155bea9dfd67add29d14f1376902afb28ae2";
const TEMPETE: &str = "804249f001374c36a8d82a61389ca07fcf14bea3274fa426bbecc11a71337cff";
const DUEL: &str = "3af3acf3b5c502206bed4860f49bbc097e1a57db7dda69e0bc073997d28994c1";

/// A copy of a fixture home, so the fixture itself is never written.
fn copy_home(name: &str, into: &Path) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/home-v1")
        .join(name);
    let to = into.join(name);
    std::fs::create_dir_all(&to).unwrap();
    for file in ["key", "name", "store.redb"] {
        std::fs::copy(from.join(file), to.join(file)).unwrap();
    }
    to
}

fn id(hex_id: &str) -> sealed_node::core::GameId {
    <[u8; 32]>::try_from(hex::decode(hex_id).unwrap())
        .unwrap()
        .into()
}

#[test]
fn a_version_1_store_migrates_in_place_and_keeps_every_game() {
    let dir = tempfile::tempdir().unwrap();
    let alice = copy_home("alice", dir.path());
    let store = Store::open(&alice.join("store.redb")).unwrap();
    let games = store.games().unwrap();
    assert_eq!(games.len(), 3);
    let status = |g: &str| games.iter().find(|r| r.id == id(g)).unwrap().status;
    assert_eq!(status(CARDMATE), GameStatus::Proposed);
    assert_eq!(status(TEMPETE), GameStatus::Finished);
    assert_eq!(status(DUEL), GameStatus::Proposed);
    // The chain index was built from the envelopes: served chain by chain, they are
    // every envelope the game holds.
    for g in [CARDMATE, TEMPETE, DUEL] {
        let all = store.envelopes(&id(g)).unwrap();
        let mut served = store.chain_envelopes(&id(g), |_, _| Some(0)).unwrap();
        assert_eq!(served.len(), all.len(), "game {g}");
        served.sort();
        let mut all = all;
        all.sort();
        assert_eq!(served, all, "game {g}");
    }
    drop(store);
    // Opened again, nothing changes: the migration ran once.
    let store = Store::open(&alice.join("store.redb")).unwrap();
    assert_eq!(store.games().unwrap(), games);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn version_1_homes_play_on_with_todays_node() {
    let dir = tempfile::tempdir().unwrap();
    let (alice, bob) = (copy_home("alice", dir.path()), copy_home("bob", dir.path()));
    let (a, _ta) = start(&Home::at(&alice), cfg(false)).await.unwrap();
    let (b, _tb) = start(&Home::at(&bob), cfg(false)).await.unwrap();
    // The fixture's addresses are gone with the nodes that made them.
    a.dial(addr(&b).await).await.unwrap();

    // The finished game: the same verified transcript on both sides.
    let t = a.transcript(TEMPETE).await.unwrap();
    verified(&t);
    assert_eq!(t, b.transcript(TEMPETE).await.unwrap());

    // The invitation bob never answered: accepted now, and bots play it out.
    wait(&b, DUEL, 20, |v| v["my_turn"] == true).await;
    b.accept(DUEL).await.unwrap();
    a.bot(Some(DUEL), true).await.unwrap();
    b.bot(Some(DUEL), true).await.unwrap();
    done(&a, DUEL).await;
    done(&b, DUEL).await;
    verified(&a.transcript(DUEL).await.unwrap());

    // The game in progress: alice was to move at ply 2; she moves, bob resigns.
    let v = wait(&a, CARDMATE, 20, |v| v["my_turn"] == true).await;
    assert_eq!(v["ply"], 2, "{v}");
    let hint = v["actions"][0].as_str().unwrap().to_owned();
    let mv = hint
        .split("e.g. ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    a.act(CARDMATE, mv, Some(2)).await.unwrap();
    wait(&b, CARDMATE, 20, |v| v["ply"] == 3).await;
    b.act(CARDMATE, "resign", None).await.unwrap();
    done(&a, CARDMATE).await;
    let v = done(&b, CARDMATE).await;
    assert_eq!(v["verdict"]["outcome"]["results"][0], "win", "{v}");
    let t = a.transcript(CARDMATE).await.unwrap();
    verified(&t);
    assert_eq!(t, b.transcript(CARDMATE).await.unwrap());
}

/// Layout 3 counts what every game held for someone else already uses: bob's store of
/// layout 1 holds alice's invitation, never answered, charged to her (one game, its
/// envelopes and bytes); the games bob accepted are his own and charged to no one.
#[test]
fn a_version_1_store_gets_the_ledger_of_what_strangers_stored() {
    let dir = tempfile::tempdir().unwrap();
    let bob = copy_home("bob", dir.path());
    let store = Store::open(&bob.join("store.redb")).unwrap();
    let rows = store.quotas().unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    let terms =
        sealed_protocol::proposal::Terms::parse(&store.game(&id(DUEL)).unwrap().unwrap().terms)
            .unwrap();
    let alice = terms.key(terms.proposal().proposer).unwrap().to_bytes();
    let envelopes = store.envelopes(&id(DUEL)).unwrap();
    let (who, used) = rows[0];
    assert_eq!(who, alice);
    assert_eq!(used.games, 1);
    assert_eq!(used.envelopes, envelopes.len() as u64);
    assert_eq!(
        used.bytes,
        envelopes.iter().map(|e| e.len() as u64).sum::<u64>()
    );
    drop(store);
    // Built once: opened again, the same.
    let store = Store::open(&bob.join("store.redb")).unwrap();
    assert_eq!(store.quotas().unwrap(), rows);
}
