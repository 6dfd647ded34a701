//! Who may use the board, decided without IO: the one-time tokens printed in login
//! addresses, the sessions they turn into, and the Host and Origin a request must carry.
//!
//! A session is a secret the page keeps in its own origin's storage (`localStorage`,
//! which is per scheme, host **and port**) and sends in an `Authorization: Bearer`
//! header with every request, the live stream included. It is never a cookie: cookies
//! ignore ports, so a cookie of `127.0.0.1:<board>` would also go to every other server
//! on 127.0.0.1 — which could then replay it — and two boards in one browser would
//! share (and overwrite) one cookie. A header is sent only by the board's own script:
//! another page cannot read the secret (another origin's storage), cannot make the
//! browser attach it, cannot post to the board under its own Origin, and cannot reach
//! the board through a DNS name it controls that resolves to 127.0.0.1 (the Host must
//! be the board's own).
//!
//! A login token is good once and for [`TOKEN_LIFE_MS`]: a printed address seen later,
//! in a terminal's scrollback or a browser's history, opens nothing. A session ends
//! after [`IDLE_MS`] unused. The board keeps only the SHA-256 of each session secret,
//! and these [`Kept`] records can be saved so that a node restart does not sign its
//! browsers out (`keep.rs`): a copy of the file opens nothing.
//!
//! Today [`TOKEN_LIFE_MS`] is 10 minutes and [`IDLE_MS`] 12 hours. `guard.rs` applies
//! the door to every request, and the command line keeps the login address off every
//! command line (`cli/src/ui.rs`). Tested by `web/tests/security.rs` (raw HTTP),
//! `web/tests/browser/door.rs` (a hostile page; another local server replaying what the
//! browser sent it on every route; two boards in one browser) and `cli/tests/ui.rs`
//! (every process's command line read while `sealed ui` opens Chromium).

use std::collections::VecDeque;

use sha2::{Digest, Sha256};

/// How long a login address stays good, in milliseconds.
pub const TOKEN_LIFE_MS: u64 = 10 * 60 * 1000;

/// How long a session lasts unused, in milliseconds: an open page reads the games at
/// least every few seconds, so this ends only the sessions of browsers left closed.
pub const IDLE_MS: u64 = 12 * 60 * 60 * 1000;

/// How stale a saved session's last use may be: its record is saved again once its
/// last use moved on by this much (a request does not write a file each time).
pub const SAVE_EVERY_MS: u64 = 10 * 60 * 1000;

/// Login tokens waiting to be used, at most: minting more forgets the oldest.
const MAX_TOKENS: usize = 16;

/// Sessions kept, at most: a new one forgets the least recently used (that browser
/// signs in again).
const MAX_SESSIONS: usize = 32;

/// Why a request is refused: said to whoever sent it, never naming a secret. The door
/// adds what to run to get back in (`sealed ui`, with the node's home).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The Host header is not the board's own address (a DNS rebinding page, or a
    /// proxy).
    #[error("this board answers only at its own address (127.0.0.1 or localhost on its port)")]
    ForeignHost,
    /// The Origin header names another site, or a change came with none.
    #[error("requests from other sites are refused")]
    ForeignOrigin,
    /// No session header (a cookie is no session).
    #[error("not signed in")]
    NoSession,
    /// A session header this board does not know: made up, ended, or forgotten.
    #[error(
        "not signed in: this browser's session is not known to the node (it ended, or was forgotten)"
    )]
    UnknownSession,
    /// The session was unused for longer than [`IDLE_MS`].
    #[error("not signed in: the session ended after 12 hours unused")]
    IdleSession,
    /// The login token was never minted, or was forgotten.
    #[error("this login address is not valid")]
    UnknownToken,
    /// The login token was already used.
    #[error("this login address was already used")]
    UsedToken,
    /// The login token is older than [`TOKEN_LIFE_MS`].
    #[error("this login address has expired")]
    ExpiredToken,
}

impl Refusal {
    /// Whether the answer is "sign in again" (401) rather than "never" (403).
    pub fn signs_out(self) -> bool {
        matches!(
            self,
            Refusal::NoSession | Refusal::UnknownSession | Refusal::IdleSession
        )
    }
}

/// A login token: the secret, when it stops being good, whether it was used.
struct Token {
    secret: String,
    until: u64,
    used: bool,
}

/// A session as the board keeps it (in memory and on disk): the SHA-256 of its
/// secret, when it was made and last used (ms since the Unix epoch).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kept {
    /// SHA-256 of the secret.
    pub hash: [u8; 32],
    /// When the login made it.
    pub made: u64,
    /// When a request last carried it.
    pub used: u64,
}

impl Kept {
    /// One line of the sessions file: `<hash hex> <made> <used>`.
    pub fn line(&self) -> String {
        format!("{} {} {}", hex::encode(self.hash), self.made, self.used)
    }

    /// Reads one line of the sessions file; `None` for anything else.
    pub fn parse(line: &str) -> Option<Kept> {
        let mut w = line.split_ascii_whitespace();
        let mut hash = [0u8; 32];
        hex::decode_to_slice(w.next()?, &mut hash).ok()?;
        let made = w.next()?.parse().ok()?;
        let used = w.next()?.parse().ok()?;
        w.next().is_none().then_some(Kept { hash, made, used })
    }
}

/// What letting a request in asks of the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Save {
    /// Nothing to save.
    No,
    /// The sessions changed (one made, one ended, a last use moved on by
    /// [`SAVE_EVERY_MS`]): save [`Gate::kept`].
    Yes,
}

/// The board's door: its port, the tokens and the sessions.
pub struct Gate {
    port: u16,
    tokens: VecDeque<Token>,
    /// Least recently used first.
    sessions: VecDeque<Kept>,
    /// Each session's last use as last saved (by hash), to save only now and then.
    saved: Vec<([u8; 32], u64)>,
}

/// Equal byte strings, compared in a time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

fn digest(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// The secret of an `Authorization: Bearer <secret>` header, if it is one.
fn bearer(header: Option<&str>) -> Option<&str> {
    let (scheme, secret) = header?.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| secret.trim())
        .filter(|s| !s.is_empty())
}

impl Gate {
    /// A gate for a board listening on 127.0.0.1 at `port`.
    pub fn new(port: u16) -> Gate {
        Gate {
            port,
            tokens: VecDeque::new(),
            sessions: VecDeque::new(),
            saved: vec![],
        }
    }

    /// Takes back the sessions a previous run saved, those still live at `now` (at most
    /// the [`MAX_SESSIONS`] most recently used).
    pub fn restore(&mut self, kept: impl IntoIterator<Item = Kept>, now: u64) {
        let mut live: Vec<Kept> = kept
            .into_iter()
            .filter(|k| now.saturating_sub(k.used) <= IDLE_MS && k.used <= now)
            .collect();
        live.sort_by_key(|k| k.used);
        live.dedup_by_key(|k| k.hash);
        let skip = live.len().saturating_sub(MAX_SESSIONS);
        self.sessions = live.into_iter().skip(skip).collect();
        self.saved = self.sessions.iter().map(|k| (k.hash, k.used)).collect();
    }

    /// The sessions to save, least recently used first; saving them marks them saved.
    pub fn kept(&mut self) -> Vec<Kept> {
        self.saved = self.sessions.iter().map(|k| (k.hash, k.used)).collect();
        self.sessions.iter().cloned().collect()
    }

    /// A new login token from 32 random bytes, good once until `now` +
    /// [`TOKEN_LIFE_MS`].
    pub fn mint(&mut self, now: u64, random: [u8; 32]) -> String {
        let secret = hex::encode(random);
        if self.tokens.len() >= MAX_TOKENS {
            self.tokens.pop_front();
        }
        self.tokens.push_back(Token {
            secret: secret.clone(),
            until: now.saturating_add(TOKEN_LIFE_MS),
            used: false,
        });
        secret
    }

    /// Uses a login token: a new session secret from 32 random bytes, or why not. A
    /// used token is remembered as used (until forgotten among the oldest), so a replay
    /// is told so. The sessions changed: save them.
    pub fn redeem(&mut self, token: &str, now: u64, random: [u8; 32]) -> Result<String, Refusal> {
        let t = self
            .tokens
            .iter_mut()
            .find(|t| same(t.secret.as_bytes(), token.as_bytes()))
            .ok_or(Refusal::UnknownToken)?;
        if t.used {
            return Err(Refusal::UsedToken);
        }
        if now > t.until {
            return Err(Refusal::ExpiredToken);
        }
        t.used = true;
        let secret = hex::encode(random);
        if self.sessions.len() >= MAX_SESSIONS {
            self.sessions.pop_front();
        }
        self.sessions.push_back(Kept {
            hash: digest(&secret),
            made: now,
            used: now,
        });
        Ok(secret)
    }

    /// Whether an `Authorization` header carries a live session at `now`; a live one
    /// counts as used now, an idle one ends. Says whether the sessions are to be saved.
    pub fn admits(&mut self, authorization: Option<&str>, now: u64) -> Result<Save, Refusal> {
        let secret = bearer(authorization).ok_or(Refusal::NoSession)?;
        let hash = digest(secret);
        let at = self
            .sessions
            .iter()
            .position(|k| same(&k.hash, &hash))
            .ok_or(Refusal::UnknownSession)?;
        let Some(mut k) = self.sessions.remove(at) else {
            return Err(Refusal::UnknownSession);
        };
        if now.saturating_sub(k.used) > IDLE_MS {
            return Err(Refusal::IdleSession);
        }
        k.used = k.used.max(now);
        let saved = self
            .saved
            .iter()
            .find(|(h, _)| *h == k.hash)
            .map(|(_, u)| *u);
        let stale = saved.is_none_or(|u| k.used.saturating_sub(u) >= SAVE_EVERY_MS);
        self.sessions.push_back(k);
        Ok(if stale { Save::Yes } else { Save::No })
    }

    /// Ends the session an `Authorization` header carries (signing out); whether there
    /// was one.
    pub fn end(&mut self, authorization: Option<&str>) -> bool {
        let Some(secret) = bearer(authorization) else {
            return false;
        };
        let hash = digest(secret);
        let before = self.sessions.len();
        self.sessions.retain(|k| !same(&k.hash, &hash));
        self.sessions.len() != before
    }

    /// Whether the Host header is the board's own: `127.0.0.1:<port>` or
    /// `localhost:<port>`.
    pub fn host(&self, host: Option<&str>) -> Result<(), Refusal> {
        let host = host.ok_or(Refusal::ForeignHost)?;
        let ours = [
            format!("127.0.0.1:{}", self.port),
            format!("localhost:{}", self.port),
        ];
        if ours.iter().any(|o| o.eq_ignore_ascii_case(host)) {
            Ok(())
        } else {
            Err(Refusal::ForeignHost)
        }
    }

    /// Whether the Origin header lets the request through: when present it must be the
    /// board's own; a request that changes something (`changes`) must carry it
    /// (browsers send it on every such request of a page).
    pub fn origin(&self, origin: Option<&str>, changes: bool) -> Result<(), Refusal> {
        match origin {
            None if changes => Err(Refusal::ForeignOrigin),
            None => Ok(()),
            Some(o) => {
                let ours = [
                    format!("http://127.0.0.1:{}", self.port),
                    format!("http://localhost:{}", self.port),
                ];
                if ours.iter().any(|x| x.eq_ignore_ascii_case(o)) {
                    Ok(())
                } else {
                    Err(Refusal::ForeignOrigin)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: u8) -> [u8; 32] {
        [n; 32]
    }

    fn auth(s: &str) -> String {
        format!("Bearer {s}")
    }

    #[test]
    fn a_token_opens_one_session_once() {
        let mut g = Gate::new(8080);
        let t = g.mint(1000, r(1));
        assert_eq!(t.len(), 64);
        let s = g.redeem(&t, 2000, r(2)).unwrap();
        assert_eq!(g.redeem(&t, 2001, r(3)), Err(Refusal::UsedToken));
        g.admits(Some(&auth(&s)), 2002).unwrap();
        g.admits(Some(&format!("bearer  {s} ")), 2002).unwrap();
        assert_eq!(
            g.admits(Some(&auth(&hex::encode(r(3)))), 2003),
            Err(Refusal::UnknownSession)
        );
        assert_eq!(g.admits(None, 2003), Err(Refusal::NoSession));
        // The secret as anything but a bearer header (a cookie, a basic header) is none.
        for other in [
            s.clone(),
            format!("sealed_session={s}"),
            format!("Basic {s}"),
        ] {
            assert_eq!(g.admits(Some(&other), 2003), Err(Refusal::NoSession));
        }
    }

    #[test]
    fn tokens_expire_and_unknown_ones_are_refused() {
        let mut g = Gate::new(1);
        let t = g.mint(0, r(1));
        assert_eq!(
            g.redeem(&t, TOKEN_LIFE_MS + 1, r(2)),
            Err(Refusal::ExpiredToken)
        );
        assert_eq!(g.redeem("00", 0, r(2)), Err(Refusal::UnknownToken));
        assert_eq!(g.redeem("", 0, r(2)), Err(Refusal::UnknownToken));
    }

    #[test]
    fn a_session_ends_after_its_idle_time_and_lives_while_used() {
        let mut g = Gate::new(1);
        let t = g.mint(0, r(1));
        let s = g.redeem(&t, 0, r(2)).unwrap();
        // Used every 11 hours: alive for days.
        let mut now = 0;
        for _ in 0..10 {
            now += IDLE_MS - 3_600_000;
            g.admits(Some(&auth(&s)), now).unwrap();
        }
        assert_eq!(
            g.admits(Some(&auth(&s)), now + IDLE_MS + 1),
            Err(Refusal::IdleSession)
        );
        // Ended: not known any more.
        assert_eq!(
            g.admits(Some(&auth(&s)), now + IDLE_MS + 2),
            Err(Refusal::UnknownSession)
        );
    }

    #[test]
    fn sessions_are_saved_now_and_then_and_restored_without_their_secrets() {
        let mut g = Gate::new(1);
        let t = g.mint(0, r(1));
        let s = g.redeem(&t, 0, r(2)).unwrap();
        let kept = g.kept();
        assert_eq!(kept.len(), 1);
        // What is kept is no secret: the line does not hold it.
        let line = kept[0].line();
        assert!(!line.contains(&s), "{line}");
        assert_eq!(Kept::parse(&line), Some(kept[0].clone()));
        assert_eq!(g.admits(Some(&auth(&s)), 1000), Ok(Save::No));
        assert_eq!(g.admits(Some(&auth(&s)), SAVE_EVERY_MS), Ok(Save::Yes));
        let kept = g.kept();
        assert_eq!(g.admits(Some(&auth(&s)), SAVE_EVERY_MS + 1), Ok(Save::No));
        // A restart: the sessions come back from their records, the idle ones do not.
        let mut again = Gate::new(1);
        let mut old = kept[0].clone();
        old.hash = [9; 32];
        old.used = 0;
        again.restore([kept[0].clone(), old], IDLE_MS + 1);
        assert_eq!(again.kept().len(), 1);
        again.admits(Some(&auth(&s)), IDLE_MS + 1).unwrap();
        for bad in ["", "zz 1 2", "00 1", &format!("{} 1 2 3", "00".repeat(32))] {
            assert_eq!(Kept::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn signing_out_ends_the_session() {
        let mut g = Gate::new(1);
        let t = g.mint(0, r(1));
        let s = g.redeem(&t, 0, r(2)).unwrap();
        assert!(g.end(Some(&auth(&s))));
        assert!(!g.end(Some(&auth(&s))));
        assert_eq!(g.admits(Some(&auth(&s)), 1), Err(Refusal::UnknownSession));
    }

    #[test]
    fn the_oldest_tokens_and_least_used_sessions_are_forgotten() {
        let mut g = Gate::new(1);
        let first = g.mint(0, r(0));
        for n in 1..=MAX_TOKENS as u8 {
            g.mint(0, r(n));
        }
        assert_eq!(g.redeem(&first, 0, r(9)), Err(Refusal::UnknownToken));
        let mut sessions = vec![];
        for n in 0..MAX_SESSIONS as u8 {
            let t = g.mint(0, r(100 + n));
            sessions.push(g.redeem(&t, 0, r(200 - n)).unwrap());
        }
        // The first is used again: the second is now the least recently used.
        g.admits(Some(&auth(&sessions[0])), 1).unwrap();
        let t = g.mint(0, r(99));
        let last = g.redeem(&t, 2, r(1)).unwrap();
        assert_eq!(
            g.admits(Some(&auth(&sessions[1])), 3),
            Err(Refusal::UnknownSession)
        );
        g.admits(Some(&auth(&sessions[0])), 3).unwrap();
        g.admits(Some(&auth(&last)), 3).unwrap();
    }

    #[test]
    fn host_and_origin_must_be_the_boards_own() {
        let g = Gate::new(4000);
        g.host(Some("127.0.0.1:4000")).unwrap();
        g.host(Some("LOCALHOST:4000")).unwrap();
        for bad in ["127.0.0.1:4001", "evil.example:4000", "127.0.0.1", ""] {
            assert_eq!(g.host(Some(bad)), Err(Refusal::ForeignHost), "{bad}");
        }
        assert_eq!(g.host(None), Err(Refusal::ForeignHost));
        g.origin(Some("http://127.0.0.1:4000"), true).unwrap();
        g.origin(None, false).unwrap();
        assert_eq!(g.origin(None, true), Err(Refusal::ForeignOrigin));
        for bad in [
            "http://evil.example",
            "null",
            "https://127.0.0.1:4000",
            "http://127.0.0.1:40000",
        ] {
            assert_eq!(g.origin(Some(bad), false), Err(Refusal::ForeignOrigin));
        }
    }
}
