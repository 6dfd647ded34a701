//! A player's home folder: the key, the name, the store, the control socket.
//!
//! The key file holds the Ed25519 secret that signs envelopes and is also the node's
//! libp2p identity; like the store, it is readable by its owner only.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sealed_protocol::keys::SecretKey;

/// The files of a home folder.
#[derive(Clone, Debug)]
pub struct Home {
    /// The folder.
    pub dir: PathBuf,
}

/// Why a home folder cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum HomeError {
    /// An I/O error, with the path.
    #[error("{path}: {err}")]
    Io {
        /// Where.
        path: PathBuf,
        /// What.
        err: std::io::Error,
    },
    /// `init` was not run.
    #[error("{} holds no key: run `{}` first", .0.display(), command_at(.0, "init --name NAME"))]
    NoKey(PathBuf),
    /// The key file is not 64 hex digits.
    #[error("{0}: not a key file")]
    BadKey(PathBuf),
    /// `init` would overwrite a key.
    #[error("{0} already holds a key")]
    Exists(PathBuf),
    /// The OS random source failed.
    #[error("no randomness from the operating system: {0}")]
    Random(String),
    /// The home path is a file.
    #[error("{0} is a file: a home is a folder (give another --home)")]
    NotAFolder(PathBuf),
    /// A name that cannot go in a proposal or be shown as it is.
    #[error("the name {shown}: {why}")]
    BadName {
        /// The name, escaped and shortened for showing.
        shown: String,
        /// What is wrong with it.
        why: &'static str,
    },
}

/// Most bytes of a seat's name (spec/PROTOCOL.md §5.1 step 6).
pub const MAX_NAME: usize = 64;

/// Checks a player's name before it goes into a proposal: at most [`MAX_NAME`] bytes,
/// and nothing a terminal would act on or a reader could be fooled by (control
/// characters such as ESC or BEL, and the marks that reorder text, such as U+202E).
pub fn check_name(name: &str) -> Result<(), HomeError> {
    let bad = |why| HomeError::BadName {
        shown: crate::text::shown(name, 40),
        why,
    };
    if name.len() > MAX_NAME {
        return Err(bad("longer than 64 bytes"));
    }
    if name.chars().any(crate::text::is_hidden) {
        return Err(bad("holds a control or direction character"));
    }
    Ok(())
}

/// [`Home::command`] for the home at `dir`.
pub fn command_at(dir: &Path, rest: &str) -> String {
    if Home::locate(None).dir == dir {
        return format!("sealed {rest}");
    }
    format!(
        "sealed --home {} {rest}",
        shell_word(&dir.to_string_lossy())
    )
}

/// `text` as one word for a POSIX shell: as it is when it holds nothing a shell acts
/// on, else in single quotes.
pub fn shell_word(text: &str) -> String {
    let plain = text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%".contains(c));
    if plain && !text.is_empty() {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> HomeError + '_ {
    move |err| HomeError::Io {
        path: path.to_owned(),
        err,
    }
}

/// 32 bytes from the operating system's CSPRNG.
pub fn random32() -> Result<[u8; 32], HomeError> {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).map_err(|e| HomeError::Random(e.to_string()))?;
    Ok(b)
}

impl Home {
    /// The home folder: `--home`, else `SEALED_HOME`, else the platform data folder.
    pub fn locate(explicit: Option<&Path>) -> Home {
        let dir = explicit
            .map(Path::to_owned)
            .or_else(|| std::env::var_os("SEALED_HOME").map(PathBuf::from))
            .or_else(|| {
                directories::ProjectDirs::from("", "", "sealed").map(|d| d.data_dir().to_owned())
            })
            .unwrap_or_else(|| PathBuf::from(".sealed"));
        Home { dir }
    }

    /// `sealed REST` as this home's player must type it for it to reach this home:
    /// with `--home DIR` unless the home is the one found without it (`SEALED_HOME`, or
    /// the platform's data folder). Hints printed with a command use this, so that they
    /// work as printed on a machine with two homes.
    pub fn command(&self, rest: &str) -> String {
        command_at(&self.dir, rest)
    }

    /// A home at this folder.
    pub fn at(dir: impl Into<PathBuf>) -> Home {
        Home { dir: dir.into() }
    }

    /// The key file.
    pub fn key_path(&self) -> PathBuf {
        self.dir.join("key")
    }

    /// The store.
    pub fn store_path(&self) -> PathBuf {
        self.dir.join("store.redb")
    }

    /// The node's start journal (`journal.rs`).
    pub fn journal_path(&self) -> PathBuf {
        self.dir.join("start.journal")
    }

    /// The control socket of a running node.
    pub fn socket_path(&self) -> PathBuf {
        self.dir.join("node.sock")
    }

    /// The ports the node last listened on.
    pub fn ports_path(&self) -> PathBuf {
        self.dir.join("ports")
    }

    /// The ports the node last listened on, by transport (`tcp`, `udp`, and `ui` for its
    /// web board): a node asked for any port takes these again, so that peers find it
    /// where it was (and a browser its board). Empty when none is kept or the file does
    /// not read (it is only a preference).
    pub fn ports(&self) -> BTreeMap<String, u16> {
        std::fs::read_to_string(self.ports_path())
            .unwrap_or_default()
            .lines()
            .filter_map(|l| {
                let (t, p) = l.split_once(' ')?;
                let p: u16 = p.trim().parse().ok().filter(|p| *p != 0)?;
                matches!(t, "tcp" | "udp" | "ui").then(|| (t.to_owned(), p))
            })
            .collect()
    }

    /// Keeps the ports the node listens on for its next start.
    pub fn save_ports(&self, ports: &BTreeMap<String, u16>) -> Result<(), HomeError> {
        let text: String = ports.iter().map(|(t, p)| format!("{t} {p}\n")).collect();
        let path = self.ports_path();
        std::fs::write(&path, text).map_err(io(&path))
    }

    /// The home's default mailbox.
    pub fn mailbox_path(&self) -> PathBuf {
        self.dir.join("mailbox")
    }

    /// The home's default mailbox, if one is set: the node keeps connected to it, so an
    /// invitation through it arrives with no `dial`, and it is where the node registers
    /// its addresses and looks peers up by peer id.
    pub fn mailbox(&self) -> Option<String> {
        let text = std::fs::read_to_string(self.mailbox_path()).ok()?;
        let line = text.lines().next()?.trim();
        (!line.is_empty() && line.len() <= 1024).then(|| line.to_owned())
    }

    /// Sets (or with `None` clears) the home's default mailbox.
    pub fn set_mailbox(&self, addr: Option<&str>) -> Result<(), HomeError> {
        let path = self.mailbox_path();
        match addr {
            Some(a) => std::fs::write(&path, format!("{a}\n")).map_err(io(&path)),
            None => match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(&path)(e)),
                _ => Ok(()),
            },
        }
    }

    /// The player's display name.
    pub fn name_path(&self) -> PathBuf {
        self.dir.join("name")
    }

    /// Creates the folder (owner-only) and a fresh key; refuses to overwrite one.
    pub fn init(&self, name: &str) -> Result<SecretKey, HomeError> {
        check_name(name)?;
        if self.dir.is_file() {
            return Err(HomeError::NotAFolder(self.dir.clone()));
        }
        std::fs::create_dir_all(&self.dir).map_err(io(&self.dir))?;
        restrict(&self.dir, 0o700)?;
        let key_path = self.key_path();
        if key_path.exists() {
            return Err(HomeError::Exists(key_path));
        }
        let seed = random32()?;
        write_private(&key_path, hex::encode(seed).as_bytes())?;
        write_private(&self.name_path(), name.as_bytes())?;
        Ok(SecretKey::from_seed(&seed))
    }

    /// Creates a home with a given key (tests and the demo).
    pub fn init_with(&self, seed: &[u8; 32], name: &str) -> Result<SecretKey, HomeError> {
        std::fs::create_dir_all(&self.dir).map_err(io(&self.dir))?;
        restrict(&self.dir, 0o700)?;
        write_private(&self.key_path(), hex::encode(seed).as_bytes())?;
        write_private(&self.name_path(), name.as_bytes())?;
        Ok(SecretKey::from_seed(seed))
    }

    /// The key.
    pub fn key(&self) -> Result<SecretKey, HomeError> {
        let path = self.key_path();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(HomeError::NoKey(self.dir.clone()));
            }
            Err(e) => return Err(HomeError::Io { path, err: e }),
        };
        let bytes: [u8; 32] = hex::decode(text.trim())
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| HomeError::BadKey(path.clone()))?;
        Ok(SecretKey::from_seed(&bytes))
    }

    /// Makes the key file owner-only again if others may read it (a copy or an editor
    /// that kept a default mode), and says so: whoever read it can sign as this player.
    /// `None` when it was owner-only already, or there is no key.
    pub fn protect_key(&self) -> Result<Option<String>, HomeError> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let path = self.key_path();
            let Ok(meta) = std::fs::metadata(&path) else {
                return Ok(None);
            };
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                restrict(&path, 0o600)?;
                return Ok(Some(format!(
                    "warning: the key file {} could be read by others (mode {mode:04o}); it is \
                     owner-only now (0600). Anyone who read it can sign as you: if that may \
                     have happened, make a new home with `sealed init`",
                    path.display()
                )));
            }
        }
        Ok(None)
    }

    /// The key's 32 secret bytes (for the libp2p identity).
    pub fn seed(&self) -> Result<[u8; 32], HomeError> {
        Ok(self.key()?.seed())
    }

    /// The display name (empty if none).
    pub fn name(&self) -> String {
        std::fs::read_to_string(self.name_path())
            .map(|s| s.trim().to_owned())
            .unwrap_or_default()
    }
}

/// Writes a file readable by its owner only.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), HomeError> {
    std::fs::write(path, bytes).map_err(io(path))?;
    restrict(path, 0o600)
}

#[cfg(unix)]
fn restrict(path: &Path, mode: u32) -> Result<(), HomeError> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(io(path))
}

#[cfg(not(unix))]
fn restrict(_: &Path, _: u32) -> Result<(), HomeError> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_printed_command_names_a_home_that_is_not_the_default_as_a_shell_reads_it() {
        let home = Home::at("/nonexistent/sealed homes/it's");
        assert_eq!(
            home.command("accept 3fa9c1"),
            r"sealed --home '/nonexistent/sealed homes/it'\''s' accept 3fa9c1"
        );
        assert_eq!(
            Home::at("/tmp/bob").command("node"),
            "sealed --home /tmp/bob node"
        );
        assert_eq!(Home::locate(None).command("node"), "sealed node");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("a;b"), "'a;b'");
    }
}
