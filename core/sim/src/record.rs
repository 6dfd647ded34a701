//! What the nodes of a world put on the wire and hand to their stores, byte for byte and
//! in order, folded into one SHA-256 with a count of each: the golden tests' witness
//! that a change which promises no change in behaviour (issue 31's refactors) changed no
//! byte a peer or a disk sees. Requests and responses are taken in the encoding the
//! sync protocol's codec writes (postcard, `node/src/sync/codec.rs`); writes as the
//! store keeps them (`GameRecord` in postcard, `node/src/store/record.rs`; secrets,
//! envelopes and settings as the bytes given). Command replies are not here: they are
//! the faces' and have golden tests of their own.

use sha2::{Digest, Sha256};

use sealed_core::Writes;
use sealed_core::message::{Request, Response};

/// The running record.
#[derive(Clone)]
pub struct Record {
    hash: Sha256,
    /// Requests sent.
    pub requests: u64,
    /// Responses sent.
    pub responses: u64,
    /// Writes handed to stores.
    pub writes: u64,
    /// Bytes of everything recorded.
    pub bytes: u64,
}

impl Default for Record {
    fn default() -> Self {
        Record {
            hash: Sha256::new(),
            requests: 0,
            responses: 0,
            writes: 0,
            bytes: 0,
        }
    }
}

impl Record {
    fn frame(&mut self, tag: &[u8], node: usize, bytes: &[u8]) {
        self.hash.update((tag.len() as u64).to_le_bytes());
        self.hash.update(tag);
        self.hash.update((node as u64).to_le_bytes());
        self.hash.update((bytes.len() as u64).to_le_bytes());
        self.hash.update(bytes);
        self.bytes += bytes.len() as u64;
    }

    /// Node `node` sent `req`.
    pub fn request(&mut self, node: usize, req: &Request) {
        self.requests += 1;
        let bytes = postcard::to_allocvec(req).expect("a request encodes");
        self.frame(b"request", node, &bytes);
    }

    /// Node `node` answered `resp`.
    pub fn response(&mut self, node: usize, resp: &Response) {
        self.responses += 1;
        let bytes = postcard::to_allocvec(resp).expect("a response encodes");
        self.frame(b"response", node, &bytes);
    }

    /// Node `node` handed `w` to its store.
    pub fn write(&mut self, node: usize, w: &Writes) {
        self.writes += 1;
        for g in &w.games {
            let bytes = postcard::to_allocvec(g).expect("a record encodes");
            self.frame(b"game", node, &bytes);
        }
        for (id, status) in &w.statuses {
            let bytes = postcard::to_allocvec(status).expect("a status encodes");
            self.frame(b"status", node, &[&id.bytes()[..], &bytes].concat());
        }
        for (id, s) in &w.secrets {
            self.frame(b"secrets", node, &[&id.bytes()[..], s].concat());
        }
        for (id, e) in &w.envelopes {
            self.frame(b"envelope", node, &[&id.bytes()[..], e].concat());
        }
        for (k, v) in &w.meta {
            self.frame(b"meta", node, &[k.as_bytes(), b"=", v].concat());
        }
        for k in &w.forget {
            self.frame(b"forget", node, k.as_bytes());
        }
        for (peer, u) in &w.charges {
            let mut bytes = peer.as_bytes().to_vec();
            for n in [u.games, u.envelopes, u.bytes] {
                bytes.extend_from_slice(&n.to_le_bytes());
            }
            self.frame(b"charge", node, &bytes);
        }
        for id in &w.drop_games {
            self.frame(b"drop", node, &id.bytes()[..]);
        }
        for prefix in &w.forget_under {
            self.frame(b"forget-under", node, prefix.as_bytes());
        }
    }

    /// One line: the counts and the digest so far.
    pub fn line(&self) -> String {
        format!(
            "requests {} responses {} writes {} bytes {} sha256 {}",
            self.requests,
            self.responses,
            self.writes,
            self.bytes,
            hex::encode(self.hash.clone().finalize())
        )
    }
}

/// The outcome of each seed as it was before a change that promised none (issue 31):
/// `core/sim/tests/golden/<name>.txt`, one line per seed — every byte the nodes sent and
/// wrote ([`Record`]), and what the test makes of the run. A seed that has a line must
/// give it again; `SEALED_GOLDEN_WRITE=1` writes the lines of the seeds run instead (for
/// a change that means to change behaviour, which says so in its commit).
pub struct Golden {
    path: std::path::PathBuf,
    lines: std::collections::BTreeMap<u64, String>,
    write: bool,
}

impl Golden {
    /// The golden file `name`, as it is on disk (none yet: no line).
    pub fn read(name: &str) -> Golden {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden")
            .join(format!("{name}.txt"));
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let lines = text
            .lines()
            .filter_map(|l| {
                let (seed, rest) = l.strip_prefix("seed ")?.split_once(": ")?;
                Some((seed.parse().ok()?, rest.to_owned()))
            })
            .collect();
        Golden {
            path,
            lines,
            write: std::env::var("SEALED_GOLDEN_WRITE").is_ok_and(|v| v == "1"),
        }
    }

    /// Seed `seed` gave `line`: the same as the file's, or written.
    pub fn check(&mut self, seed: u64, line: &str) -> Result<(), String> {
        if self.write {
            self.lines.insert(seed, line.to_owned());
            return Ok(());
        }
        match self.lines.get(&seed) {
            Some(want) if want != line => Err(format!(
                "the outcome differs from the golden file:\n  was {want}\n  now {line}"
            )),
            _ => Ok(()),
        }
    }

    /// Writes the file, when asked to.
    pub fn write(&self) {
        if self.write {
            let text: String = self
                .lines
                .iter()
                .map(|(seed, l)| format!("seed {seed}: {l}\n"))
                .collect();
            if let Some(dir) = self.path.parent() {
                std::fs::create_dir_all(dir).expect("the golden folder");
            }
            std::fs::write(&self.path, text).expect("the golden file");
        }
    }
}
