//! Who may use the board, decided without IO: the one-time tokens printed in login
//! addresses, the sessions they turn into, and the Host and Origin a request must carry.
//!
//! The board serves whoever holds a session cookie, and the cookie is the only way in:
//! a page on another site cannot read it (HttpOnly), cannot make the browser send it
//! (SameSite=Strict), cannot post to the board under its own Origin, and cannot reach
//! it through a DNS name it controls that resolves to 127.0.0.1 (the Host must be the
//! board's own). A login token is good once and for [`TOKEN_LIFE_MS`]: a printed
//! address seen later, in a terminal's scrollback or a browser's history, opens nothing.

use std::collections::VecDeque;

/// How long a login address stays good, in milliseconds.
pub const TOKEN_LIFE_MS: u64 = 10 * 60 * 1000;

/// Login tokens waiting to be used, at most: minting more forgets the oldest.
const MAX_TOKENS: usize = 16;

/// Sessions kept, at most: a new one forgets the oldest (that browser logs in again).
const MAX_SESSIONS: usize = 32;

/// The cookie's name.
pub const COOKIE: &str = "sealed_session";

/// Why a request is refused: said to whoever sent it, never naming a secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The Host header is not the board's own address (a DNS rebinding page, or a
    /// proxy).
    #[error("this board answers only at its own address (127.0.0.1 or localhost on its port)")]
    ForeignHost,
    /// The Origin header names another site, or a change came with none.
    #[error("requests from other sites are refused")]
    ForeignOrigin,
    /// No valid session cookie.
    #[error("not signed in: run `sealed ui` for a new login address")]
    NoSession,
    /// The login token was never minted, or was forgotten.
    #[error("this login address is not valid: run `sealed ui` for a new one")]
    UnknownToken,
    /// The login token was already used.
    #[error("this login address was already used: run `sealed ui` for a new one")]
    UsedToken,
    /// The login token is older than [`TOKEN_LIFE_MS`].
    #[error("this login address has expired: run `sealed ui` for a new one")]
    ExpiredToken,
}

/// A login token: the secret, when it stops being good, whether it was used.
struct Token {
    secret: String,
    until: u64,
    used: bool,
}

/// The board's door: its port, the tokens and the sessions.
pub struct Gate {
    port: u16,
    tokens: VecDeque<Token>,
    sessions: VecDeque<String>,
}

/// Equal strings, compared in a time that does not depend on where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

impl Gate {
    /// A gate for a board listening on 127.0.0.1 at `port`.
    pub fn new(port: u16) -> Gate {
        Gate {
            port,
            tokens: VecDeque::new(),
            sessions: VecDeque::new(),
        }
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

    /// Uses a login token: a new session from 32 random bytes, or why not. A used token
    /// is remembered as used (until forgotten among the oldest), so a replay is told so.
    pub fn redeem(&mut self, token: &str, now: u64, random: [u8; 32]) -> Result<String, Refusal> {
        let t = self
            .tokens
            .iter_mut()
            .find(|t| same(&t.secret, token))
            .ok_or(Refusal::UnknownToken)?;
        if t.used {
            return Err(Refusal::UsedToken);
        }
        if now > t.until {
            return Err(Refusal::ExpiredToken);
        }
        t.used = true;
        let session = hex::encode(random);
        if self.sessions.len() >= MAX_SESSIONS {
            self.sessions.pop_front();
        }
        self.sessions.push_back(session.clone());
        Ok(session)
    }

    /// Whether a `Cookie` header carries a live session.
    pub fn admits(&self, cookie_header: Option<&str>) -> Result<(), Refusal> {
        let value = cookie_header
            .into_iter()
            .flat_map(|h| h.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(name, _)| *name == COOKIE)
            .map(|(_, v)| v)
            .ok_or(Refusal::NoSession)?;
        if self.sessions.iter().any(|s| same(s, value)) {
            Ok(())
        } else {
            Err(Refusal::NoSession)
        }
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

    /// The `Set-Cookie` value for a session: HttpOnly, SameSite=Strict, the whole board.
    pub fn cookie(session: &str) -> String {
        format!("{COOKIE}={session}; HttpOnly; SameSite=Strict; Path=/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: u8) -> [u8; 32] {
        [n; 32]
    }

    #[test]
    fn a_token_opens_one_session_once() {
        let mut g = Gate::new(8080);
        let t = g.mint(1000, r(1));
        assert_eq!(t.len(), 64);
        let s = g.redeem(&t, 2000, r(2)).unwrap();
        assert_eq!(g.redeem(&t, 2001, r(3)), Err(Refusal::UsedToken));
        g.admits(Some(&format!("a=b; {COOKIE}={s}"))).unwrap();
        assert_eq!(
            g.admits(Some(&format!("{COOKIE}={}", hex::encode(r(3))))),
            Err(Refusal::NoSession)
        );
        assert_eq!(g.admits(None), Err(Refusal::NoSession));
        assert_eq!(g.admits(Some("other=1")), Err(Refusal::NoSession));
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
    fn the_oldest_tokens_and_sessions_are_forgotten() {
        let mut g = Gate::new(1);
        let first = g.mint(0, r(0));
        for n in 1..=MAX_TOKENS as u8 {
            g.mint(0, r(n));
        }
        assert_eq!(g.redeem(&first, 0, r(9)), Err(Refusal::UnknownToken));
        let mut sessions = vec![];
        for n in 0..=MAX_SESSIONS as u8 {
            let t = g.mint(0, r(100 + n));
            sessions.push(g.redeem(&t, 0, r(200 - n)).unwrap());
        }
        assert_eq!(
            g.admits(Some(&format!("{COOKIE}={}", sessions[0]))),
            Err(Refusal::NoSession)
        );
        g.admits(Some(&format!("{COOKIE}={}", sessions[MAX_SESSIONS])))
            .unwrap();
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
