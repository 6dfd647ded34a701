//! The sessions file: the board's sessions (the SHA-256 of each secret, when it was
//! made and last used; `gate::Kept`) saved in the node's home, so that a node restart
//! does not sign its browsers out. Owner-only, replaced whole by a rename, so a crash
//! leaves the old file or the new one; a file that does not read is no session at all
//! (those browsers sign in again), never an error that stops the board.
//!
//! The board takes the file back as it starts; `web/tests/browser/door.rs` restarts a
//! node under an open game page.

use std::io::Write;
use std::path::Path;

use crate::gate::Kept;

/// At most this many bytes are read: far more than the gate's sessions ever take.
const MAX_FILE: u64 = 64 * 1024;

/// The sessions a file holds; none when it is missing, too large or unreadable, and
/// only its well-formed lines.
pub(crate) fn load(path: &Path) -> Vec<Kept> {
    let Ok(meta) = std::fs::metadata(path) else {
        return vec![];
    };
    if meta.len() > MAX_FILE {
        tracing::warn!("{} is too large to be the board's sessions", path.display());
        return vec![];
    }
    std::fs::read_to_string(path)
        .map(|text| text.lines().filter_map(Kept::parse).collect())
        .unwrap_or_default()
}

/// Writes the sessions: a temporary file beside it, owner-only, synced, then renamed
/// over the old one.
pub(crate) fn save(path: &Path, kept: &[Kept]) -> std::io::Result<()> {
    let mut text = String::new();
    for k in kept {
        text.push_str(&k.line());
        text.push('\n');
    }
    let tmp = path.with_extension("tmp");
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(&tmp)?;
    f.write_all(text.as_bytes())?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path)
}

/// Whether a sessions file holds a session still live at `now` (ms since the Unix
/// epoch): then `sealed node` serves the board from the start, for the browsers signed
/// in before it restarted.
pub fn live(path: &Path, now: u64) -> bool {
    load(path)
        .iter()
        .any(|k| k.used <= now && now - k.used <= crate::gate::IDLE_MS)
}
