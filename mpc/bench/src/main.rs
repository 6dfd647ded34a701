//! Secret Stallmate's referee, one attempt, computed by two processes under polytune
//! (maliciously secure MPC by authenticated garbling) over loopback TCP: the figures of
//! issue 20 (spec/GAMES.md §5.13).
//!
//! `cargo run --release` (in mpc/bench) measures plies 1, 40 and 100 of the reference game
//! (`game.txt`): for each, it starts party 0 (the evaluator) and party 1 as processes of
//! their own, each compiles the circuit, and they compute the attempt of the next move of
//! the game. It prints, per ply, the AND gates, the time of the computation, the bytes
//! each party sent, and the answer each unmasked. `--plies 1,20` picks others,
//! `--earlier N` makes it the (N+1)-th attempt of the period.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use garble_lang::register_circuit::Circuit;
use sealed_mpc::circuit::compile_shape;
use sealed_mpc::inputs::{
    Answer, Attempting, Rules, Secrets, commitments, mover_literal, other_literal,
};
use sealed_mpc::outputs::read;
use sealed_mpc::program::Shape;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};

/// The largest message taken from the other party (the bench's own cap: polytune's
/// messages at ply 100 stay far below it).
const MAX_MESSAGE: u64 = 1 << 32;

/// A two-party channel over one TCP stream: each message a little-endian u64 length and
/// its bytes. Counts what it sends.
struct Tcp {
    read: tokio::sync::Mutex<OwnedReadHalf>,
    write: tokio::sync::Mutex<OwnedWriteHalf>,
    sent: AtomicU64,
    messages: AtomicU64,
}

impl polytune::channel::Channel for Tcp {
    type SendError = std::io::Error;
    type RecvError = std::io::Error;

    async fn send_bytes_to(
        &self,
        _party: usize,
        data: Vec<u8>,
        _phase: &str,
    ) -> Result<(), std::io::Error> {
        let mut w = self.write.lock().await;
        w.write_all(&(data.len() as u64).to_le_bytes()).await?;
        w.write_all(&data).await?;
        w.flush().await?;
        self.sent
            .fetch_add(data.len() as u64 + 8, Ordering::Relaxed);
        self.messages.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    async fn recv_bytes_from(
        &self,
        _party: usize,
        _phase: &str,
    ) -> Result<Vec<u8>, std::io::Error> {
        let mut r = self.read.lock().await;
        let mut len = [0u8; 8];
        r.read_exact(&mut len).await?;
        let len = u64::from_le_bytes(len);
        if len > MAX_MESSAGE {
            return Err(std::io::Error::other(format!("a message of {len} bytes")));
        }
        let mut buf = vec![0u8; len as usize];
        r.read_exact(&mut buf).await?;
        Ok(buf)
    }
}

/// The reference game: both back ranks and its moves as items.
struct Reference {
    ranks: [[u8; 8]; 2],
    moves: Vec<u16>,
}

fn reference() -> Reference {
    let text = include_str!("../game.txt");
    let mut ranks = [[0u8; 8]; 2];
    let mut moves = vec![];
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut words = line.split_whitespace();
        match words.next() {
            Some(side @ ("white" | "black")) => {
                let r: Vec<u8> = words.map(|w| w.parse().expect("a kind code")).collect();
                ranks[usize::from(side == "black")] = r.try_into().expect("eight kinds");
            }
            Some("moves") => moves = words.map(|w| w.parse().expect("an item")).collect(),
            _ => {}
        }
    }
    Reference { ranks, moves }
}

/// Deterministic bytes, so that both parties derive the same public values (in a game,
/// each receives the other's commitments; here both know the seeds).
fn bytes<const N: usize>(tag: u64) -> [u8; N] {
    let mut x = tag.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    std::array::from_fn(|_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as u8
    })
}

/// One party: compiles, connects, computes, prints one `result` line.
async fn party(me: usize, port: u16, ply: usize, earlier: usize) {
    let game = reference();
    let shape = Shape {
        white_moves: ply.div_ceil(2),
        black_moves: ply / 2,
        earlier,
        commitments: true,
    };
    let mover = usize::from(!shape.mover_white());
    let secrets: Vec<Secrets> = (0..2)
        .map(|s| Secrets {
            rank: game.ranks[s],
            setup_salt: bytes(10 + s as u64),
            moves: game.moves[..ply]
                .iter()
                .skip(s)
                .step_by(2)
                .copied()
                .collect(),
            log_salt: bytes(20 + s as u64),
        })
        .collect();
    let attempting = Attempting {
        // Earlier attempts of the period: "Any?" then moves onto a square of its own army's
        // first rank, all answered before this one.
        earlier: (0..earlier)
            .map(|i| if i == 0 { 0xFFFF } else { i as u16 })
            .collect(),
        period_salt: bytes(30),
        attempt: game.moves[ply],
        attempt_salt: bytes(31),
        next_log_salt: bytes(32),
        next_period_salt: bytes(33),
    };
    let rules = Rules {
        must_try: true,
        name_capturer: false,
        limit: false,
    };
    let public = commitments(
        bytes(1),
        &secrets[0],
        &secrets[1],
        mover as u8,
        &attempting,
        rules,
    );
    let pad = Answer {
        code: bytes::<1>(40 + me as u64)[0],
        at: bytes::<1>(50 + me as u64)[0],
        ..Answer::default()
    };
    let literal = if me == mover {
        mover_literal(&secrets[me], &attempting, &pad, &public)
    } else {
        other_literal(&secrets[me], &pad, &public)
    };

    let t = Instant::now();
    let prg = compile_shape(&shape, true).expect("the circuit compiles");
    let compile = t.elapsed();
    let ands = prg.circuit.ands();
    let circuit: Circuit = prg.circuit.unwrap_ssa_ref().into();
    let inputs = prg
        .parse_arg(me, &literal)
        .expect("my input reads")
        .as_bits();

    let stream = if me == 0 {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("listen");
        listener.accept().await.expect("accept").0
    } else {
        loop {
            match tokio::net::TcpStream::connect(("127.0.0.1", port)).await {
                Ok(s) => break s,
                Err(_) => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
            }
        }
    };
    stream.set_nodelay(true).expect("nodelay");
    let (r, w) = stream.into_split();
    let channel = Tcp {
        read: tokio::sync::Mutex::new(r),
        write: tokio::sync::Mutex::new(w),
        sent: AtomicU64::new(0),
        messages: AtomicU64::new(0),
    };
    let t = Instant::now();
    let bits = polytune::mpc(&channel, &circuit, &inputs, 0, me, &[0, 1], None)
        .await
        .expect("the computation runs");
    let mpc = t.elapsed();
    let out =
        read(&prg.parse_output(&bits).expect("the output reads")).expect("the output decodes");
    let mine = if me == mover {
        out.mover.unmask(&pad)
    } else {
        out.other.unmask(&pad)
    };
    println!(
        "result party={me} ply={ply} earlier={earlier} ands={ands} compile_ms={} mpc_ms={} sent={} messages={} checked={} made={} code={} silence={}",
        compile.as_millis(),
        mpc.as_millis(),
        channel.sent.load(Ordering::Relaxed),
        channel.messages.load(Ordering::Relaxed),
        out.inputs_white && out.inputs_black && out.same_public && out.mover_commitments,
        out.made,
        mine.code,
        mine.silence,
    );
}

fn field<'a>(line: &'a str, key: &str) -> &'a str {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{key}=")))
        .unwrap_or("?")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("party") {
        let n = |i: usize| args[i].parse::<usize>().expect("a number");
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        rt.block_on(party(n(2), n(3) as u16, n(4), n(5)));
        return;
    }
    let mut plies = vec![1usize, 40, 100];
    let mut earlier = 0usize;
    let mut i = 1;
    while i < args.len() {
        match args[i].as_str() {
            "--plies" => {
                plies = args[i + 1]
                    .split(',')
                    .map(|p| p.parse().expect("a ply"))
                    .collect();
                i += 1;
            }
            "--earlier" => {
                earlier = args[i + 1].parse().expect("a count");
                i += 1;
            }
            other => panic!("unknown argument {other}"),
        }
        i += 1;
    }
    let exe = std::env::current_exe().expect("this program");
    println!(
        "| ply | AND gates | compile | computation | party 0 sent | party 1 sent | total | answer |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for ply in plies {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let spawn = |me: usize| {
            Command::new(&exe)
                .args([
                    "party",
                    &me.to_string(),
                    &port.to_string(),
                    &ply.to_string(),
                    &earlier.to_string(),
                ])
                .stdout(Stdio::piped())
                .spawn()
                .expect("a party starts")
        };
        let children = [spawn(0), spawn(1)];
        let mut lines = vec![];
        for mut c in children {
            let out = c.stdout.take().expect("piped");
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                if l.starts_with("result ") {
                    lines.push(l);
                }
            }
            let status = c.wait().expect("the party ends");
            assert!(status.success(), "a party failed at ply {ply}");
        }
        for l in &lines {
            eprintln!("{l}");
        }
        let (a, b) = (&lines[0], &lines[1]);
        let sent = |l: &str| field(l, "sent").parse::<u64>().unwrap_or(0);
        let mb = |n: u64| format!("{:.1} MB", n as f64 / 1e6);
        println!(
            "| {ply} | {} | {} ms | {} ms | {} | {} | {} | code {} (checked {}) |",
            field(a, "ands"),
            field(a, "compile_ms"),
            field(a, "mpc_ms"),
            mb(sent(a)),
            mb(sent(b)),
            mb(sent(a) + sent(b)),
            field(if field(a, "party") == "0" { a } else { b }, "code"),
            field(a, "checked"),
        );
    }
}
