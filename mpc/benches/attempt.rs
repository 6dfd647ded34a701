//! One attempt of Secret Stallmate computed by the two players alone (issue 35), over
//! libp2p on loopback as two nodes would run it, beside the referee mode in the same run.
//!
//! Two swarms (TCP, Noise, Yamux: the node's stack), one stream between them (libp2p's
//! `stream` behaviour). White garbles, Black evaluates. Once: the 128 base OTs. Then per
//! attempt, timed from Black's first message to his reading of White's last:
//!
//! 1. Black asks for the labels of his fresh input (his attempt and his pad, 115 bits)
//!    by the OT extension (`u`);
//! 2. White garbles the attempt's circuit (the chain of the circuit files composed, as
//!    play garbles it: `chain::compose`) and sends the transfers' answer
//!    (`y`), the labels of his own fresh input and the rows;
//! 3. Black evaluates and returns the labels of every output but the state (which stays
//!    with him as labels for the next computation);
//! 4. White decodes them, refusing any that is no label, and answers with one byte.
//!
//! The state's input labels are handed over before the clock starts: in a game they are
//! those Black kept from the computation before. Composing the circuit from the files is
//! timed apart (play composes once a computation at each side; nothing is compiled).
//!
//! The referee mode's attempt, measured in the same run: `Referee::attempt` in the clear
//! plus one round trip of 300 bytes on the same stream (the attempt to the referee, his
//! answer back).
//!
//! Cases: ply 1 (White's first move: nothing to repeat yet), ply 40 and ply 100 of a
//! game with no capture so far (the mover's window then holds 20 and 50 positions: a
//! capture, announced, empties it). `SEALED_ATTEMPT_ROUNDS` (default 20) rounds of each,
//! in turn; medians.
//!
//! `cargo bench -p sealed-mpc --bench attempt`

use std::time::{Duration, Instant};

use futures::{AsyncReadExt, AsyncWriteExt, StreamExt};
use libp2p::swarm::SwarmEvent;
use libp2p::{Stream, StreamProtocol, Swarm, identity, noise, tcp, yamux};
use sealed_games::stallmate::{Attempt, Options, Referee, Setup};
use sealed_mpc::chain::bits::fresh_bits;
use sealed_mpc::chain::compose::compose;
use sealed_mpc::chain::{Chain, Flags};
use sealed_mpc::gc::seed::Stream as SeedStream;
use sealed_mpc::gc::{
    Block, Circuit, blocks_from_bytes as blocks, blocks_to_bytes, evaluate, garble,
};
use sealed_mpc::inputs::Answer;
use sealed_mpc::kept::{FIXED_BITS, KEY_BITS};
use sealed_mpc::ot::{base, extension};

const PROTOCOL: StreamProtocol = StreamProtocol::new("/sealed-bench/gc/1");
/// No message of an attempt comes near this; a longer one is refused.
const MAX_MESSAGE: usize = 64 << 20;

fn swarm() -> Swarm<libp2p_stream::Behaviour> {
    libp2p::SwarmBuilder::with_existing_identity(identity::Keypair::generate_ed25519())
        .with_tokio()
        .with_tcp(
            tcp::Config::default().nodelay(true),
            noise::Config::new,
            yamux::Config::default,
        )
        .unwrap()
        .with_behaviour(|_| libp2p_stream::Behaviour::new())
        .unwrap()
        .with_swarm_config(|c| c.with_idle_connection_timeout(Duration::from_secs(3600)))
        .build()
}

/// One stream between two swarms, each driven by a task of its own: (White's end,
/// Black's end).
async fn pair() -> (Stream, Stream) {
    let mut black = swarm();
    let mut incoming = black.behaviour().new_control().accept(PROTOCOL).unwrap();
    black
        .listen_on("/ip4/127.0.0.1/tcp/0".parse().unwrap())
        .unwrap();
    let addr = loop {
        if let SwarmEvent::NewListenAddr { address, .. } = black.select_next_some().await {
            break address;
        }
    };
    let black_id = *black.local_peer_id();
    tokio::spawn(async move {
        loop {
            black.select_next_some().await;
        }
    });
    let mut white = swarm();
    let mut control = white.behaviour().new_control();
    white.dial(addr).unwrap();
    loop {
        if let SwarmEvent::ConnectionEstablished { .. } = white.select_next_some().await {
            break;
        }
    }
    tokio::spawn(async move {
        loop {
            white.select_next_some().await;
        }
    });
    let w = control.open_stream(black_id, PROTOCOL).await.unwrap();
    let (_, b) = incoming.next().await.unwrap();
    (w, b)
}

/// Counts what one side wrote.
struct Link {
    stream: Stream,
    sent: usize,
}

impl Link {
    async fn send(&mut self, parts: &[&[u8]]) {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        self.stream
            .write_all(&(len as u32).to_le_bytes())
            .await
            .unwrap();
        for p in parts {
            self.stream.write_all(p).await.unwrap();
        }
        self.stream.flush().await.unwrap();
        self.sent += 4 + len;
    }

    async fn recv(&mut self) -> Vec<u8> {
        let mut len = [0u8; 4];
        self.stream.read_exact(&mut len).await.unwrap();
        let len = u32::from_le_bytes(len) as usize;
        assert!(len <= MAX_MESSAGE, "a message over the cap");
        let mut buf = vec![0u8; len];
        self.stream.read_exact(&mut buf).await.unwrap();
        buf
    }
}

/// The circuit of one case and its input layout.
struct Case {
    name: &'static str,
    window: usize,
    circuit: Circuit,
    /// White's and Black's fresh input bits.
    white: Vec<bool>,
    black: Vec<bool>,
    /// Outputs returned to the garbler: all but the key and `Fixed` at the end.
    returned: usize,
    compose: Duration,
}

fn case(chain: &Chain, name: &'static str, window: usize, mover_white: bool) -> Case {
    let flags = Flags {
        first_turn: window == 0,
        must_try: true,
        name_capturer: true,
        limit: false,
    };
    let t = Instant::now();
    let circuit = compose(chain, mover_white, window, 0, flags).unwrap();
    let compose = t.elapsed();
    let pad = Answer {
        code: 5,
        at: 9,
        ..Answer::default()
    };
    let (wa, ba) = if mover_white { (796, 0) } else { (0, 3452) };
    let (white, black) = (fresh_bits(wa, &pad), fresh_bits(ba, &pad));
    let returned = circuit.output_gates.len() - KEY_BITS - FIXED_BITS;
    Case {
        name,
        window,
        circuit,
        white,
        black,
        returned,
        compose,
    }
}

/// One attempt between the two over the stream: (time, bytes White sent, bytes Black
/// sent).
async fn attempt(
    c: &Case,
    run: u64,
    white: &mut Link,
    black: &mut Link,
    sender: &extension::Sender,
    receiver: &extension::Receiver,
    stream: &SeedStream,
) -> (Duration, usize, usize) {
    let g = garble(&c.circuit, stream, run, &[]);
    let gi = &c.circuit.input_gates;
    let state_len: usize = gi[..3].iter().sum();
    let white_at = state_len;
    let black_at = state_len + gi[3];
    // The state's labels, as Black holds them from the computation before (all zero bits
    // here: the bench measures cost, the tests check values).
    let state: Vec<Block> = (0..state_len).map(|k| g.input(k, false).unwrap()).collect();
    let (w0, b0) = (white.sent, black.sent);
    let start = Instant::now();
    let evaluator = async {
        let (u, pending) = receiver.request(run, &c.black);
        black.send(&[&u]).await;
        let msg = black.recv().await;
        let (y, rest) = msg.split_at(c.black.len() * 32);
        let (own, rows) = rest.split_at(c.white.len() * 16);
        let theirs = receiver.finish(&pending, y).unwrap();
        let rows = sealed_mpc::gc::garble::rows_from_bytes(rows).unwrap();
        let mut labels = state.clone();
        labels.extend(blocks(own));
        labels.extend(theirs);
        let out = evaluate(&c.circuit, &rows, run, &labels).unwrap();
        black.send(&[&blocks_to_bytes(&out[..c.returned])]).await;
        let ack = black.recv().await;
        assert_eq!(ack, [1]);
        out
    };
    let garbler = async {
        let u = white.recv().await;
        let pairs: Vec<(Block, Block)> = (0..c.black.len())
            .map(|k| {
                (
                    g.input(black_at + k, false).unwrap(),
                    g.input(black_at + k, true).unwrap(),
                )
            })
            .collect();
        let y = sender.respond(run, &u, &pairs).unwrap();
        let own: Vec<Block> = c
            .white
            .iter()
            .enumerate()
            .map(|(k, &b)| g.input(white_at + k, b).unwrap())
            .collect();
        white
            .send(&[&y, &blocks_to_bytes(&own), &g.wire_bytes()])
            .await;
        let back = blocks(&white.recv().await);
        // The garbler checks every returned label: `decode` wants all outputs, so the
        // state's are filled with their zero labels (they stay with Black).
        let mut all = back;
        all.extend((c.returned..c.circuit.output_gates.len()).map(|k| g.output_zero(k).unwrap()));
        g.decode(&all).expect("every returned label is one");
        white.send(&[&[1]]).await;
    };
    let (out, ()) = futures::join!(evaluator, garbler);
    let took = start.elapsed();
    assert_eq!(out.len(), c.circuit.output_gates.len());
    (took, white.sent - w0, black.sent - b0)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::var("SEALED_ATTEMPT_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20)
        .max(1);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let chain = Chain::from_files().expect("the embedded circuit files");
    let cases = [
        case(&chain, "ply 1", 0, true),
        case(&chain, "ply 40, no capture yet", 20, true),
        case(&chain, "ply 100, no capture yet", 50, false),
    ];
    rt.block_on(async {
        let (w, b) = pair().await;
        let (mut white, mut black) = (Link { stream: w, sent: 0 }, Link { stream: b, sent: 0 });
        // The base OTs, once per game.
        let white_seed = [31u8; 32];
        let black_seed = [32u8; 32];
        let seed = SeedStream::new(&white_seed);
        let t = Instant::now();
        let base_sender = base::Sender::new(&black_seed);
        black.send(&[&base_sender.message()]).await;
        let a = white.recv().await;
        let base_receiver =
            base::Receiver::new(&white_seed, extension::Sender::choices(seed.ot_secret()));
        let (reply, chosen) = base_receiver.reply(&a).unwrap();
        white.send(&[&reply]).await;
        let keys = base_sender.keys(&black.recv().await).unwrap();
        let base_time = t.elapsed();
        let sender = extension::Sender::new(seed.ot_secret(), chosen);
        let receiver = extension::Receiver::new(keys);

        // The referee mode's attempt: the referee's judgement in the clear, and one
        // round trip of 300 bytes.
        let referee = Referee::new(
            Setup::new(518).unwrap(),
            Setup::new(518).unwrap(),
            Options::default(),
        );
        let e2e4: Attempt = "e2-e4".parse().unwrap();
        let mut times: Vec<Vec<Duration>> = vec![vec![]; cases.len()];
        let mut bytes = vec![(0, 0); cases.len()];
        let mut referee_times = vec![];
        let mut run = 0u64;
        for _ in 0..rounds {
            for (i, c) in cases.iter().enumerate() {
                let (d, ws, bs) = attempt(c, run, &mut white, &mut black, &sender, &receiver, &seed).await;
                run += 1;
                times[i].push(d);
                bytes[i] = (ws, bs);
            }
            let t = Instant::now();
            let mut r = referee.clone();
            r.attempt(e2e4).unwrap();
            black.send(&[&[0xa5; 300]]).await;
            let m = white.recv().await;
            white.send(&[&m]).await;
            let _ = black.recv().await;
            referee_times.push(t.elapsed());
        }
        let referee = median(referee_times);
        println!("base OTs (once per game): {:.1} ms", base_time.as_secs_f64() * 1e3);
        println!("referee mode, one attempt (judged in the clear + one round trip of 300 bytes): {:.3} ms\n", referee.as_secs_f64() * 1e3);
        println!("| case | window | AND gates | compose | attempt | against ply 1 | against the referee mode | White sent | Black sent | traffic |");
        println!("|---|---|---|---|---|---|---|---|---|---|");
        let first = median(times[0].clone());
        for (i, c) in cases.iter().enumerate() {
            let m = median(times[i].clone());
            let (ws, bs) = bytes[i];
            println!(
                "| {} | {} | {} | {:.2} ms | {:.1} ms | {:.2} | {:.0} | {:.2} MB | {:.1} KB | {:.2} MB |",
                c.name,
                c.window,
                c.circuit.and_gates(),
                c.compose.as_secs_f64() * 1e3,
                m.as_secs_f64() * 1e3,
                m.as_secs_f64() / first.as_secs_f64(),
                m.as_secs_f64() / referee.as_secs_f64(),
                ws as f64 / 1e6,
                bs as f64 / 1e3,
                (ws + bs) as f64 / 1e6,
            );
        }
    });
}
