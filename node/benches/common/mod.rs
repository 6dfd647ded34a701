//! What the node's benches share: games played out between tables in memory.

use sealed_games::table::Table;
use sealed_protocol::session::Action;

/// Plays a game out between its seats' tables: every envelope one sends is delivered to
/// the other at once, and each table's bot decides whenever it may (`pick` seeds its
/// choices). Stops when nothing moves and every table is done, or after `steps`.
pub fn play_out(tables: &mut [Box<dyn Table>], pick: u64, steps: u64) {
    let mut pick = pick;
    for step in 0..steps {
        let mut moved = false;
        for i in 0..tables.len() {
            let out: Vec<_> =
                std::iter::from_fn(|| tables[i].session_mut().poll_action()).collect();
            for a in out {
                if let Action::Send { env, .. } = a {
                    for (j, t) in tables.iter_mut().enumerate() {
                        if j != i {
                            let _ = sealed_protocol::session::take_bytes(
                                t.session_mut(),
                                &env.bytes,
                                step,
                            );
                        }
                    }
                    moved = true;
                }
            }
            pick = pick.wrapping_mul(6364136223846793005).wrapping_add(1);
            if let Some(cmd) = tables[i].bot_action(pick >> 33) {
                moved |= tables[i].session_mut().handle_command(cmd, step).is_ok();
            }
        }
        if !moved && tables.iter().all(|t| t.session().phase().is_done()) {
            break;
        }
    }
}
