//! scratch
use sealed_conformance::sim::{FnBot, NetConfig, Sim};
use sealed_conformance::tempete_kit::{tempete_choice, tempete_terms};
use sealed_games::tempete::Tempete;
use sealed_protocol::session::{Command, Phase, Session};

fn watch(s: &Session<Tempete>, pick: u64) -> Option<Command> {
    let c = tempete_choice(s, pick);
    if c.is_none() && matches!(s.phase(), Phase::Play(_)) && s.engine().to_act() == Some(s.seat()) {
        let st = s.engine().state();
        eprintln!(
            "NONE at seat {:?} pending {:?}",
            s.seat(),
            st.map(|x| format!("{:?}", x.pending))
        );
    }
    c
}

#[test]
#[ignore]
fn scratch_find_stalls() {
    let n: u64 = std::env::var("N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let mut stalled = 0;
    for seed in 0..n {
        let mut sim = Sim::new(
            tempete_terms(&[("ply-limit", "300")], seed as u8),
            vec![Box::new(FnBot(watch)), Box::new(FnBot(watch))],
            NetConfig::perfect(),
            seed * 7919 + 17,
        );
        sim.run(200_000_000);
        if !sim.quiet() || !sim.refused.is_empty() {
            stalled += 1;
            eprintln!(
                "seed {seed}: quiet {} refused {:?}",
                sim.quiet(),
                sim.refused
            );
        }
    }
    eprintln!("stalled {stalled} of {n}");
}
