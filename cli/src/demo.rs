//! `sealed demo <variant>`: two nodes on 127.0.0.1 — real sockets, real libp2p, separate
//! stores — let bots play a whole game, then the transcript is verified like any file.

use std::time::{Duration, Instant};

use sealed_node::{ActorConfig, Home, ProposeArgs};

use crate::output;

fn options(variant: &str) -> Vec<(String, String)> {
    let o = |k: &str, v: &str| (k.to_owned(), v.to_owned());
    match variant {
        "cardmate" => vec![o("setup", "random"), o("ply-limit", "400")],
        "chex" => vec![o("ply-limit", "300")],
        "tempete" => vec![o("ply-limit", "300")],
        _ => vec![],
    }
}

/// Runs the demo; exit 0 when the game finished and verified.
pub fn run(variant: &str, seed: u64, out: Option<&std::path::Path>) -> i32 {
    if !sealed_games::table::variants().contains(&variant) {
        output::error(&format!(
            "unknown variant {variant:?} (known: {})",
            sealed_games::table::variants().join(", ")
        ));
        return 2;
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            output::error(&e.to_string());
            return 2;
        }
    };
    runtime.block_on(async move {
        match demo(variant, seed, out).await {
            Ok(code) => code,
            Err(e) => {
                output::error(&e);
                2
            }
        }
    })
}

async fn demo(variant: &str, seed: u64, out: Option<&std::path::Path>) -> Result<i32, String> {
    let dirs = [tempdir()?, tempdir()?];
    let mut nodes = vec![];
    for (i, dir) in dirs.iter().enumerate() {
        let home = Home::at(dir.join("home"));
        home.init(&format!("bot {}", i + 1))
            .map_err(|e| e.to_string())?;
        let mut cfg = ActorConfig::default();
        cfg.net.mdns = false;
        cfg.listen = vec!["/ip4/127.0.0.1/tcp/0".parse().map_err(|e| format!("{e}"))?];
        cfg.poll_every = Duration::from_millis(250);
        cfg.bots = true;
        cfg.bot_seed = seed.wrapping_mul(2).wrapping_add(i as u64);
        let (node, _task) = sealed_node::start(&home, cfg).await?;
        nodes.push(node);
    }
    let started = Instant::now();
    let peer = loop {
        if let Some(a) = nodes[1].info().await?.addrs.first() {
            break a.parse().map_err(|e| format!("{e}"))?;
        }
        if started.elapsed() > Duration::from_secs(10) {
            return Err("the second node did not start listening".into());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let game = nodes[0]
        .propose(ProposeArgs {
            variant: variant.into(),
            options: options(variant),
            peer,
            mailbox: None,
            referee: None,
        })
        .await?;
    output::stdout(&format!("game      {game}\nvariant   {variant}\n"));
    loop {
        // The second node knows the game once the proposal has reached it.
        let a = nodes[0].show(&game).await?;
        let b = nodes[1].show(&game).await.unwrap_or_default();
        if a["phase"] == "done" && b["phase"] == "done" {
            break;
        }
        if started.elapsed() > Duration::from_secs(300) {
            return Err(format!(
                "the game did not finish: {}",
                nodes[0].show_text(&game).await?
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let bytes = nodes[0].transcript(&game).await?;
    if bytes != nodes[1].transcript(&game).await? {
        return Err("the two nodes hold different transcripts".into());
    }
    let board = nodes[0].show_text(&game).await?;
    for n in &nodes {
        let _ = n.shutdown().await;
    }
    if let Some(path) = out {
        std::fs::write(path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let checked = sealed_games::variant::check_transcript(&bytes).map_err(|e| e.to_string())?;
    let v = &checked.verdict;
    let result = v
        .outcome
        .as_ref()
        .map_or("none".to_string(), ToString::to_string);
    output::stdout(&format!(
        "{board}\nresult    {result}\nstatus    {:?}\nenvelopes {}\ntime      {:.1} s over libp2p on 127.0.0.1\nverify    exit {}\n",
        v.status,
        v.envelopes,
        started.elapsed().as_secs_f64(),
        checked.exit_code()
    ));
    for d in &dirs {
        let _ = std::fs::remove_dir_all(d);
    }
    Ok(checked.exit_code())
}

fn tempdir() -> Result<std::path::PathBuf, String> {
    let name = format!(
        "sealed-demo-{}-{}",
        std::process::id(),
        hex(crate::random_tag())
    );
    let dir = std::env::temp_dir().join(name);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

fn hex(b: [u8; 4]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
