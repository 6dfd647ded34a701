//! Writes spec/vectors/. Run it on purpose, after a change the vectors must follow:
//! `cargo run -p sealed-conformance --bin gen-vectors`. Tests never write vectors.

use std::path::PathBuf;

use sealed_conformance::vectors;

fn main() -> std::io::Result<()> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec/vectors");
    std::fs::create_dir_all(&dir)?;
    let write = |name: &str, v: serde_json::Value| -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(&v).map_err(std::io::Error::other)? + "\n";
        std::fs::write(dir.join(name), text)?;
        println!("wrote spec/vectors/{name}");
        Ok(())
    };
    write("commitments.json", vectors::commitments())?;
    write("random.json", vectors::random())?;
    write("derive.json", vectors::derive())?;
    let game = vectors::honest_duel();
    write("envelopes.json", vectors::envelopes(&game))?;
    let (t, bytes) = vectors::transcript(&game);
    write("transcript-duel.json", t)?;
    std::fs::write(dir.join("duel-game.sealed"), bytes)?;
    println!("wrote spec/vectors/duel-game.sealed");
    write("reject.json", vectors::rejects(&game))?;
    write(
        "witness.json",
        sealed_conformance::witness_vectors::witness(
            &game.transcript(sealed_protocol::ids::Seat(0)),
        ),
    )?;
    let (t, bytes) = sealed_conformance::witness_vectors::forfeit_transcript();
    write("transcript-forfeit.json", t)?;
    std::fs::write(dir.join("forfeit-game.sealed"), bytes)?;
    println!("wrote spec/vectors/forfeit-game.sealed");
    let (t, bytes) = sealed_conformance::witness_vectors::stallmate_forfeit_transcript();
    write("transcript-stallmate-forfeit.json", t)?;
    std::fs::write(dir.join("stallmate-forfeit-game.sealed"), bytes)?;
    println!("wrote spec/vectors/stallmate-forfeit-game.sealed");
    write("cardmate-perft.json", vectors::cardmate_perft())?;
    let (t, bytes) = vectors::cardmate_transcript();
    write("transcript-cardmate.json", t)?;
    std::fs::write(dir.join("cardmate-game.sealed"), bytes)?;
    println!("wrote spec/vectors/cardmate-game.sealed");
    let (t, bytes) = vectors::cardmate_v2_transcript();
    write("transcript-cardmate-v2.json", t)?;
    std::fs::write(dir.join("cardmate-v2-game.sealed"), bytes)?;
    println!("wrote spec/vectors/cardmate-v2-game.sealed");
    let (t, bytes) = vectors::chex_transcript();
    write("transcript-chex.json", t)?;
    std::fs::write(dir.join("chex-game.sealed"), bytes)?;
    println!("wrote spec/vectors/chex-game.sealed");
    let (t, bytes) = vectors::tempete_transcript();
    write("transcript-tempete.json", t)?;
    std::fs::write(dir.join("tempete-game.sealed"), bytes)?;
    println!("wrote spec/vectors/tempete-game.sealed");
    let (t, bytes) = vectors::tempete_v2_transcript();
    write("transcript-tempete-v2.json", t)?;
    std::fs::write(dir.join("tempete-v2-game.sealed"), bytes)?;
    println!("wrote spec/vectors/tempete-v2-game.sealed");
    let (t, bytes) = vectors::tempete_show_transcript();
    write("transcript-tempete-show.json", t)?;
    std::fs::write(dir.join("tempete-show-game.sealed"), bytes)?;
    println!("wrote spec/vectors/tempete-show-game.sealed");
    let (t, bytes) = sealed_conformance::physical_kit::physical_transcript();
    write("transcript-tempete-physical.json", t)?;
    std::fs::write(dir.join("tempete-physical-game.sealed"), bytes)?;
    println!("wrote spec/vectors/tempete-physical-game.sealed");
    let (t, bytes) = vectors::stallmate_transcript();
    write("transcript-stallmate.json", t)?;
    std::fs::write(dir.join("stallmate-game.sealed"), bytes)?;
    println!("wrote spec/vectors/stallmate-game.sealed");
    let (t, bytes) = sealed_conformance::duo_kit::duo_transcript();
    write("transcript-stallmate-duo.json", t)?;
    std::fs::write(dir.join("stallmate-duo-game.sealed"), bytes)?;
    println!("wrote spec/vectors/stallmate-duo-game.sealed");
    Ok(())
}
