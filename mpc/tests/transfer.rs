//! The evaluator's input labels by oblivious transfer (src/ot): 128 base OTs, then the
//! extension for each computation; a whole two-party evaluation of a circuit with it;
//! and the audit that, seeds opened at the end, makes every message again and finds a
//! party that sent another.

mod common;

use common::bits;
use sealed_mpc::gc::seed::Stream;
use sealed_mpc::gc::{Block, evaluate, garble};
use sealed_mpc::ot::{KAPPA, OtError, base, extension};

const GARBLER: [u8; 32] = [11; 32];
const EVALUATOR: [u8; 32] = [22; 32];

/// The base OTs between the two, as the wire carries them: the garbler's extension
/// sender and the evaluator's extension receiver, and the two base messages.
fn setup(
    garbler: &[u8; 32],
    evaluator: &[u8; 32],
) -> (extension::Sender, extension::Receiver, Vec<u8>) {
    let s = Stream::new(garbler).ot_secret();
    let base_sender = base::Sender::new(evaluator);
    let base_receiver = base::Receiver::new(garbler, extension::Sender::choices(s));
    let (reply, chosen) = base_receiver
        .reply(&base_sender.message())
        .expect("a point");
    let keys = base_sender.keys(&reply).expect("points");
    (
        extension::Sender::new(s, chosen),
        extension::Receiver::new(keys),
        reply,
    )
}

#[test]
fn the_receiver_gets_the_label_of_each_choice() {
    let (sender, receiver, _) = setup(&GARBLER, &EVALUATOR);
    for (run, m) in [(0u64, 1usize), (1, 115), (2, 128), (3, 129), (7, 700)] {
        let choices = bits(m, run + 5);
        let pairs: Vec<(Block, Block)> = (0..m)
            .map(|j| (j as u128 * 7 + 1, (j as u128 * 7 + 1) ^ (0xabc << 64)))
            .collect();
        let (u, pending) = receiver.request(run, &choices);
        let y = sender.respond(run, &u, &pairs).expect("lengths");
        let got = receiver.finish(&pending, &y).expect("lengths");
        for j in 0..m {
            let want = if choices[j] { pairs[j].1 } else { pairs[j].0 };
            assert_eq!(got[j], want, "run {run}, transfer {j}");
        }
    }
}

/// One computation between the two: the garbler (White) garbles and sends his own input
/// labels; the evaluator (Black) gets his by oblivious transfer, evaluates and returns
/// the output labels, which the garbler decodes. The answer is the clear one.
#[test]
fn a_computation_between_two_parties() {
    let prg = garble_lang::compile(
        "pub fn main(white: [u8; 4], black: [u8; 4]) -> u8 { (white[0] * black[1]) ^ (white[2] + black[3]) }",
    )
    .expect("compiles");
    let c = prg.circuit.unwrap_ssa_ref();
    let (sender, receiver, _) = setup(&GARBLER, &EVALUATOR);
    let stream = Stream::new(&GARBLER);
    for run in 0..4u64 {
        let w = prg
            .parse_arg(0, &format!("[{}u8, 2u8, {}u8, 4u8]", run + 3, run * 9))
            .expect("literal")
            .as_bits();
        let b = prg
            .parse_arg(1, &format!("[1u8, {}u8, 3u8, {}u8]", run + 7, run * 5))
            .expect("literal")
            .as_bits();
        let g = garble(c, &stream, run, &[]);
        let own: Vec<Block> = w
            .iter()
            .enumerate()
            .map(|(k, &v)| g.input(k, v).expect("wire"))
            .collect();
        let offset = w.len();
        let pairs: Vec<(Block, Block)> = (0..b.len())
            .map(|k| {
                (
                    g.input(offset + k, false).expect("wire"),
                    g.input(offset + k, true).expect("wire"),
                )
            })
            .collect();
        let (u, pending) = receiver.request(run, &b);
        let y = sender.respond(run, &u, &pairs).expect("lengths");
        let theirs = receiver.finish(&pending, &y).expect("lengths");
        let labels: Vec<Block> = own.into_iter().chain(theirs).collect();
        let out = evaluate(c, &g.rows, run, &labels).expect("shapes");
        let decoded = g.decode(&out).expect("labels");
        assert_eq!(decoded, c.eval(&[w, b]), "run {run}");
    }
}

/// The audit: with both seeds and the evaluator's choices opened, every message is made
/// again and compared with what was signed. A garbler who corrupted the label for a
/// choice of 1 (to watch whether the evaluation fails, a selective failure) and an
/// evaluator who sent another `u` than his seed and choices give are both found.
#[test]
fn the_audit_finds_a_deviation_in_a_transfer() {
    let (sender, receiver, base_reply) = setup(&GARBLER, &EVALUATOR);
    let m = 40;
    let choices = bits(m, 99);
    let pairs: Vec<(Block, Block)> = (0..m)
        .map(|j| (j as u128, j as u128 ^ (1 << 100)))
        .collect();
    let (u, pending) = receiver.request(9, &choices);
    let honest_y = sender.respond(9, &u, &pairs).expect("lengths");

    // The garbler corrupts transfer 3's label for a 1.
    let mut y = honest_y.clone();
    y[3 * 32 + 16] ^= 1;
    let got = receiver.finish(&pending, &y).expect("lengths");
    let corrupted = got[3] != if choices[3] { pairs[3].1 } else { pairs[3].0 };
    assert_eq!(
        corrupted, choices[3],
        "the corruption hits only a choice of 1"
    );
    // Audit: the garbler's seed gives his side again; its `y` is not the one he sent.
    let (again_sender, again_receiver, again_reply) = setup(&GARBLER, &EVALUATOR);
    assert_eq!(again_reply, base_reply, "the base OTs are the seeds' alone");
    let (again_u, _) = again_receiver.request(9, &choices);
    assert_eq!(again_u, u, "the evaluator's `u` is his seed's and choices'");
    let again_y = again_sender.respond(9, &again_u, &pairs).expect("lengths");
    assert_eq!(again_y, honest_y);
    assert_ne!(again_y, y, "the corrupted `y` is found");

    // The evaluator sends another `u` (say, for other choices than he will open).
    let mut other = choices.clone();
    other[0] = !other[0];
    let (u2, _) = receiver.request(9, &other);
    assert_ne!(u2, again_u, "found against the choices he opens");
}

#[test]
fn messages_of_the_wrong_length_are_refused() {
    let (sender, receiver, _) = setup(&GARBLER, &EVALUATOR);
    let (u, pending) = receiver.request(0, &[true; 10]);
    let pairs = vec![(1u128, 2u128); 10];
    assert!(matches!(
        sender.respond(0, &u[1..], &pairs),
        Err(OtError::Length { .. })
    ));
    // `u` for 10 transfers answers 10 pairs, not 200 (another block count).
    assert!(matches!(
        sender.respond(0, &u, &vec![(1u128, 2u128); 200]),
        Err(OtError::Length { .. })
    ));
    let y = sender.respond(0, &u, &pairs).expect("lengths");
    assert!(matches!(
        receiver.finish(&pending, &y[..32]),
        Err(OtError::Length { .. })
    ));
    assert_eq!(KAPPA, 128);
}

/// A request whose columns do not carry one choice vector (a bit of `u` changed), or
/// whose check values are changed, is refused before any label is sent: the receiver
/// cannot probe the sender's secret column by column.
#[test]
fn an_inconsistent_request_is_refused() {
    let (sender, receiver, _) = setup(&GARBLER, &EVALUATOR);
    let choices = bits(115, 3);
    let pairs = vec![(5u128, 6u128); 115];
    let (request, _) = receiver.request(4, &choices);
    assert!(
        sender.respond(4, &request, &pairs).is_ok(),
        "an honest request passes"
    );
    let mut rng = common::Rng(77);
    for _ in 0..40 {
        let mut bad = request.clone();
        let at = rng.below(bad.len());
        bad[at] ^= 1 << rng.below(8);
        assert_eq!(
            sender.respond(4, &bad, &pairs),
            Err(OtError::Inconsistent),
            "byte {at} changed"
        );
    }
}
