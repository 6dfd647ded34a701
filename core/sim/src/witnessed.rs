//! Games with a witness in the simulation, for the witness's simulations
//! (`witness_sim.rs`, `adversary_sim.rs`): a world of two players with bots, a referee
//! when the game needs one, and the witness; the game proposed and played until it is on;
//! what a node answers; the transcript checked; every time posted held against the
//! witness's store; Bob's next envelope forged, for the cheaters (`adversary_sim.rs`,
//! `adversary_late.rs`).

use sealed_core::{Answer, Cmd, CoreConfig, GameId, ProposeArgs};
use sealed_protocol::body::Item;
use sealed_protocol::envelope::{Ack, Signed, Unsigned};
use sealed_protocol::ids::{ChainId, LogId, Seat};
use sealed_protocol::keys::PublicKey;
use sealed_protocol::proposal::Terms;
use sealed_protocol::transcript::TranscriptFile;
use sealed_protocol::witness::{SignedStatement, Statement};

use super::{Faults, World, addr_of};

/// Alice, the player who proposes.
pub const ALICE: usize = 0;
/// Bob, the other player.
pub const BOB: usize = 1;

/// Bob leaves `junk` at the witness as a deposit of `game`: bytes it cannot tell from an
/// envelope sealed to Alice.
pub fn leave_junk(w: &mut World, witness: usize, game: GameId, junk: Vec<u8>) {
    w.inject(
        BOB,
        witness,
        sealed_core::message::Request::Deposit {
            game,
            deposits: vec![junk],
        },
    );
}

/// What a node answers to a command, once it has.
pub fn answer(w: &mut World, node: usize, cmd: Cmd) -> Option<Answer> {
    answer_any(w, node, cmd).and_then(Result::ok)
}

/// The answer to a command, refusal included.
fn answer_any(
    w: &mut World,
    node: usize,
    cmd: Cmd,
) -> Option<Result<Answer, sealed_core::NodeError>> {
    let id = w.command(node, cmd);
    w.run(60_000, &|w: &World| w.replies.contains_key(&id));
    w.replies.remove(&id)
}

/// Alice's view of the game as `sealed show` gives it.
pub fn shown(w: &mut World, game: &GameId) -> serde_json::Value {
    shown_to(w, ALICE, &hex::encode(game))
}

/// `node`'s view of the game `id` (hex) as `sealed show` gives it; null when it answers
/// nothing (stopped, or the game unknown to it).
pub fn shown_to(w: &mut World, node: usize, id: &str) -> serde_json::Value {
    match answer(
        w,
        node,
        Cmd::Show(id.to_owned().into(), sealed_core::ShowFormat::Json),
    ) {
        Some(Answer::Show(v)) => serde_json::to_value(v).unwrap(),
        _ => serde_json::Value::Null,
    }
}

/// A world of the two players with bots (Alice 0, Bob 1), a referee (2) when `refereed`,
/// and the witness (last); `variant` with these options proposed by Alice naming the
/// witness (and the referee), played until `plies` public acts are made (within
/// `limit` ms). The world, the game, and its id in hex.
pub fn started(
    seed: u64,
    variant: &str,
    options: Vec<(String, String)>,
    refereed: bool,
    plies: u64,
    limit: u64,
) -> Result<(World, GameId, String), String> {
    let mut w = world(seed, refereed);
    let (game, id) = start(&mut w, variant, options, refereed, plies, limit)?;
    Ok((w, game, id))
}

/// The world of [`started`] before anything is proposed: Alice and Bob with bots, the
/// referee when `refereed`, the witness last.
pub fn world(seed: u64, refereed: bool) -> World {
    world_with(seed, refereed, |_| {})
}

/// [`world`], with the witness's configuration changed by `tune` first (smaller quotas,
/// so that a simulation spends them in seconds).
pub fn world_with(seed: u64, refereed: bool, tune: impl FnOnce(&mut CoreConfig)) -> World {
    let player = CoreConfig {
        bots: true,
        bot_seed: seed,
        idle_unload_ms: u64::MAX / 2,
        ..CoreConfig::default()
    };
    let referee = CoreConfig {
        bots: false,
        referee: true,
        ..player.clone()
    };
    let mut witness = CoreConfig {
        bots: false,
        mailbox: true,
        witness: true,
        ..player.clone()
    };
    tune(&mut witness);
    let mut nodes = vec![("alice", 1, player.clone()), ("bob", 2, player)];
    if refereed {
        nodes.push(("referee", 3, referee));
    }
    nodes.push(("witness", 5, witness));
    let mut w = World::new(seed, Faults::none(), nodes);
    w.players = vec![ALICE, BOB];
    w
}

/// In a world of [`world`], the game of [`started`] proposed and played until it is on.
pub fn start(
    w: &mut World,
    variant: &str,
    options: Vec<(String, String)>,
    refereed: bool,
    plies: u64,
    limit: u64,
) -> Result<(GameId, String), String> {
    let last = w.nodes.len() - 1;
    let args = ProposeArgs {
        variant: variant.into(),
        options,
        opponent: (w.key(BOB), Some(addr_of(&w.key(BOB)))),
        mailbox: None,
        referee: refereed.then(|| (w.key(2), Some(addr_of(&w.key(2))))),
        witness: Some((w.key(last), addr_of(&w.key(last)))),
        names: ["alice".into(), "bob".into()],
    };
    let Some(Answer::Game(id)) = answer(w, ALICE, Cmd::Propose(Box::new(args))) else {
        return Err("no game proposed".into());
    };
    let game: GameId = hex::decode(&id)
        .ok()
        .and_then(|b| <[u8; 32]>::try_from(b).ok())
        .map(GameId::from)
        .ok_or("a game id")?;
    let on = |v: &serde_json::Value| v["phase"] == "play" && v["ply"].as_u64() >= Some(plies);
    let start = w.now;
    while !on(&shown(w, &game)) {
        if w.now > start + limit {
            return Err(format!("never got going: {}", shown(w, &game)));
        }
    }
    Ok((game, id))
}

/// Alice's transcript, checked.
pub fn checked(
    w: &mut World,
    id: &str,
) -> Result<(Vec<u8>, sealed_protocol::transcript::Checked), String> {
    // A game set aside after a failed write (the chaos fills disks) comes back once the
    // store is reopened: asked again each second of the world's time, for ten minutes.
    let until = w.now + 600_000;
    let bytes = loop {
        match answer_any(w, ALICE, Cmd::Transcript(id.to_owned().into())) {
            Some(Ok(Answer::Bytes(b))) => break b,
            Some(Err(sealed_core::NodeError::SetAside(_))) if w.now < until => {
                let t = w.now + 1000;
                w.run(1000, &|w: &World| w.now >= t);
            }
            other => return Err(format!("no transcript: {other:?}")),
        }
    };
    let c = sealed_games::variant::check_transcript(&bytes).map_err(|e| e.to_string())?;
    Ok((bytes, c))
}

/// The chaos on everyone left once a player walks away: crashes after 2.5 % of a
/// node's events, 2 % of the messages dropped and 2 % duplicated, disks filling now
/// and then.
pub const CHAOS: Faults = Faults {
    drop: 20,
    dup: 20,
    crash: 25,
    both: 0,
    full: 5,
    partition: 0,
};

/// Whether every one of `nodes` has settled `game` with no write in flight.
pub fn settled(w: &World, nodes: &[usize], game: &GameId) -> bool {
    nodes.iter().all(|n| {
        w.nodes[*n]
            .core
            .as_ref()
            .is_some_and(|c| c.finished(game) && c.writes_in_flight() == 0)
    })
}

/// Checks every statement posted in the transcript `bytes` (forfeits and statements
/// items) against what the witness `witness` durably holds: each time a ledger gives an
/// envelope and each stamp of a deposit is the one its store keeps — it never stated a
/// time it then lost, which would let it contradict itself. Returns how many times were
/// posted.
pub fn posted_times(
    w: &World,
    game: &GameId,
    bytes: &[u8],
    witness: usize,
) -> Result<usize, String> {
    let file = TranscriptFile::from_bytes(bytes).map_err(|e| e.to_string())?;
    let terms = Terms::parse(&file.proposal).map_err(|e| e.to_string())?;
    let key = PublicKey::from_bytes(w.key(witness).as_bytes()).map_err(|e| e.to_string())?;
    let envelopes: Vec<Signed> = file
        .envelopes
        .iter()
        .filter_map(|b| Signed::parse(&terms, b).ok())
        .collect();
    let stored = |kind: &str, h: &[u8; 32]| {
        w.nodes[witness]
            .store
            .committed_meta(&format!("{kind}/{}/{}", hex::encode(game), hex::encode(h)))
            .and_then(|v| <[u8; 8]>::try_from(v.as_slice()).ok())
            .map(u64::from_le_bytes)
    };
    let mut n = 0;
    for s in &envelopes {
        for item in &s.env.unsigned.body {
            let statements = match item {
                Item::Forfeit(f) => &f.statements,
                Item::Statements(st) => st,
                _ => continue,
            };
            for b in statements {
                let st = SignedStatement::from_bytes(b, terms.game(), &key, terms.seat_count())
                    .map_err(|e| e.to_string())?;
                match st.statement {
                    Statement::Stamp(stamp) => {
                        n += 1;
                        let held = stored("stamp", &stamp.deposit.0);
                        if held != Some(stamp.at) {
                            return Err(format!(
                                "a stamp at {} the witness holds as {held:?}, posted by {:?}",
                                stamp.at,
                                s.at()
                            ));
                        }
                    }
                    Statement::Ledger(l) => {
                        for h in &l.chains {
                            for (seq, t) in h.places() {
                                let Some(env) = envelopes
                                    .iter()
                                    .find(|e| e.at().chain == h.chain && e.at().seq == seq)
                                else {
                                    continue;
                                };
                                n += 1;
                                let held = stored("receipt", &env.hash.0);
                                if held != Some(t) {
                                    return Err(format!(
                                        "{:?} dated {t} by a ledger posted by {:?}; the witness holds {held:?}",
                                        env.at(),
                                        s.at()
                                    ));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(n)
}

/// The envelope of `terms`' game in `bytes`, if it is one, signed.
pub fn signed(terms: &Terms, bytes: &[u8]) -> Option<Signed> {
    Signed::parse(terms, bytes).ok()
}

/// The next envelope of Bob's public chain as his store holds it, with `body`; its
/// acknowledgement of Alice's chain is `ack` when given, else the last Alice envelope
/// Bob holds.
pub fn forge(w: &World, terms: &Terms, game: &GameId, body: Vec<Item>, ack: Option<Ack>) -> Signed {
    let held: Vec<Signed> = w.nodes[BOB]
        .store
        .all_envelopes(game)
        .iter()
        .filter_map(|b| signed(terms, b))
        .filter(|s| s.at().chain.log.is_public())
        .collect();
    let last = |seat: Seat| {
        let chain = ChainId::public(seat);
        let mut mine: Vec<&Signed> = held.iter().filter(|s| s.at().chain == chain).collect();
        mine.sort_by_key(|s| s.at().seq);
        // The gap-free prefix.
        let n = mine
            .iter()
            .enumerate()
            .take_while(|(i, s)| s.at().seq == *i as u64)
            .count();
        n.checked_sub(1).map(|i| mine[i].clone())
    };
    let bob = last(Seat(1)).expect("Bob has signed");
    forge_after(
        w,
        terms,
        &bob,
        body,
        ack.or_else(|| {
            last(Seat(0)).map(|a| Ack {
                chain: ChainId::public(Seat(0)),
                seq: a.at().seq,
                hash: a.hash,
            })
        }),
    )
}

/// The envelope of Bob's public chain after `bob`, with `body` and the acknowledgement
/// `ack` of Alice's chain (an adversary that keeps its own place in Bob's chain).
pub fn forge_after(
    w: &World,
    terms: &Terms,
    bob: &Signed,
    body: Vec<Item>,
    alice_ack: Option<Ack>,
) -> Signed {
    let unsigned = Unsigned {
        version: terms.version(),
        game: terms.game(),
        log: LogId::PUBLIC,
        seat: Seat(1),
        seq: bob.at().seq + 1,
        prev: bob.hash,
        acks: alice_ack.into_iter().collect(),
        clock: w.now,
        body,
    };
    unsigned.sign(&w.nodes[BOB].key)
}

/// The game's result as Alice's transcript gives it, the chaos over: an error when Alice
/// is at fault or there is no result (what no cheater may bring about).
pub fn alices_result(
    w: &mut World,
    id: &str,
) -> Result<
    (
        sealed_protocol::transcript::Checked,
        sealed_protocol::outcome::Outcome,
    ),
    String,
> {
    w.faults = Faults::none();
    let (_, c) = checked(w, id)?;
    let v = &c.verdict;
    if v.faults.iter().any(|f| f.seat == Seat(0)) {
        return Err(format!("Alice faulted: {:#?}", v.faults));
    }
    let Some(o) = v.outcome.clone() else {
        return Err(format!("no result: {v:#?}"));
    };
    Ok((c, o))
}

/// A number from the environment variable `name`, if set and a number.
pub fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|s| s.parse().ok())
}

/// What one seed of an attack came to, when it did not fail.
pub enum Ran {
    /// The attack took place and the honest side kept its result: the seed's line.
    Held(String),
    /// The game ended before the attack could take place (the cheater lost on time
    /// before his chance came, or play decided it first): the seed proves nothing and
    /// fails nothing. The line says why.
    Missed(String),
}

/// Runs `attack` on seeds `0..SEALED_SIM_SEEDS` (`default` when unset), or
/// `SEALED_SIM_SEED` alone, printing each seed's line; fails listing every seed that
/// returned an error, and when fewer than half the seeds carried the attack out (a
/// scenario whose attack seldom happens tests nothing, whatever its seeds say).
pub fn each_seed(default: u64, attack: impl Fn(u64) -> Result<Ran, String>) {
    let seeds = env_u64("SEALED_SIM_SEEDS").unwrap_or(default);
    let only = env_u64("SEALED_SIM_SEED");
    // `SEALED_SIM_FROM` starts later: a long range shared between two processes.
    let from = env_u64("SEALED_SIM_FROM").unwrap_or(0);
    let (mut failed, mut held, mut missed) = (vec![], 0u64, 0u64);
    for seed in (from..seeds).filter(|s| only.is_none_or(|o| o == *s)) {
        match attack(seed) {
            Ok(Ran::Held(line)) => {
                held += 1;
                eprintln!("{line}");
            }
            Ok(Ran::Missed(line)) => {
                missed += 1;
                eprintln!("seed {seed}, no attack: {line}");
            }
            Err(e) => {
                // Said at once: a long run read while it goes shows its failures.
                eprintln!("seed {seed} FAILED: {e}");
                failed.push((seed, e));
            }
        }
    }
    eprintln!(
        "{seeds} seeds: {held} held against the attack, {missed} without it, {} failed",
        failed.len()
    );
    assert!(failed.is_empty(), "{failed:#?}");
    assert!(
        held >= missed,
        "{missed} seeds ended before the attack, {held} carried it out"
    );
}
