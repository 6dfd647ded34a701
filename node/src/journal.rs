//! The start journal (issue 52): what the node was restoring when it stopped. A stack
//! overflow or an abort cannot be caught, and a game whose restore kills the process
//! would do it again at every start, taking every other game with it. So while the
//! core restores the store's games, this file names the game being restored; it is
//! emptied once the start is over. A start that finds a game named there marks it in
//! the store as stopped (`sealed_core::crashed`), and the core sets it aside, whole,
//! and starts without it; `sealed resume <game>` takes it up again, journalled the
//! same way.
//!
//! Written without fsync: it must outlive the process, not the machine (the kernel
//! keeps what was written when the process dies), and a start writes it once per game.
//! The file holds one line, `restoring <game id hex>`, or nothing. Anything else in it
//! (a torn line after a power cut) names no game: the start goes on as usual.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::PathBuf;

use sealed_core::GameId;

/// The journal file of a home.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: Option<File>,
}

/// The line's fixed length: `restoring ` and 64 hex digits and a newline.
const LINE: usize = 10 + 64 + 1;

impl Journal {
    /// The journal at `path` (created when first written).
    pub fn at(path: PathBuf) -> Journal {
        Journal { path, file: None }
    }

    /// The game the last run was restoring when it stopped, if it named one.
    pub fn left(&self) -> Option<GameId> {
        let text = std::fs::read(&self.path).ok()?;
        let line = std::str::from_utf8(text.get(..LINE)?).ok()?;
        let hex = line.strip_prefix("restoring ")?.strip_suffix('\n')?;
        let bytes = <[u8; 32]>::try_from(hex::decode(hex).ok()?).ok()?;
        Some(GameId::from(bytes))
    }

    /// Notes that `id`'s restore starts. A journal that cannot be written is said once
    /// and skipped: the node starts as it would have without it.
    pub fn restoring(&mut self, id: &GameId) {
        let line = format!("restoring {}\n", hex::encode(id));
        if self.file.is_none() {
            match File::create(&self.path) {
                Ok(f) => self.file = Some(f),
                Err(e) => {
                    tracing::warn!("the start journal {}: {e}", self.path.display());
                    return;
                }
            }
        }
        if let Some(f) = &mut self.file {
            let written = f
                .seek(SeekFrom::Start(0))
                .and_then(|_| f.write_all(line.as_bytes()));
            if let Err(e) = written {
                tracing::warn!("the start journal {}: {e}", self.path.display());
                self.file = None;
            }
        }
    }

    /// The restores are over: the journal names no game.
    pub fn done(&mut self) {
        if let Some(f) = &mut self.file {
            let _ = f.set_len(0);
        } else if self.path.exists() {
            let _ = File::create(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_restore_that_never_ended_is_named_and_a_finished_start_names_none() {
        let dir = std::env::temp_dir().join(format!("sealed-journal-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("start.journal");
        let _ = std::fs::remove_file(&path);
        let mut j = Journal::at(path.clone());
        assert_eq!(j.left(), None, "no file: nothing left");
        let (a, b) = (GameId::from([1; 32]), GameId::from([2; 32]));
        j.restoring(&a);
        j.restoring(&b);
        // A process that dies here leaves the last game it began.
        assert_eq!(Journal::at(path.clone()).left(), Some(b));
        j.done();
        assert_eq!(Journal::at(path.clone()).left(), None);
        // A torn or foreign line names nothing.
        std::fs::write(&path, b"restoring 0102").expect("writes");
        assert_eq!(Journal::at(path.clone()).left(), None);
        std::fs::write(&path, [0xff; LINE]).expect("writes");
        assert_eq!(Journal::at(path).left(), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
