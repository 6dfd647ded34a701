//! `sealed ui` and `sealed node --ui` through the real binary: the login address each
//! prints signs one browser in, once; the board keeps its port across a restart; and
//! with no node running, `sealed ui` runs one.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{TempDir, at_home as run, code, start_node, stderr, stdout};

/// `GET path` at the board of a login address, with the board's own Host; the status
/// and the whole answer.
fn get(url: &str, path: &str) -> (u16, String) {
    let host = url
        .strip_prefix("http://")
        .and_then(|r| r.split('/').next())
        .expect("an http address");
    let mut s = TcpStream::connect(host).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, answer)
}

/// The path of a login address (`/login?token=…`).
fn login_path(url: &str) -> String {
    url.split_once("/login")
        .map(|(_, t)| format!("/login{t}"))
        .unwrap()
}

/// The login address a `ui` line carries.
fn ui_line(text: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.strip_prefix("ui "))
        .map(|u| u.trim().to_owned())
}

/// A foreground `sealed` that prints a `ui` line (`node --ui`, or `ui` with no node);
/// killed when dropped.
struct Foreground {
    child: Child,
    url: String,
}

impl Drop for Foreground {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn foreground(home: &Path, args: &[&str]) -> Foreground {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sealed"))
        .args(["--home", home.to_str().unwrap()])
        .args(args)
        .args(["--listen", "/ip4/127.0.0.1/tcp/0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut url = None;
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(u) = ui_line(&line) {
            url = Some(u);
            break;
        }
    }
    std::thread::spawn(move || for _ in lines {});
    Foreground {
        child,
        url: url.expect("a ui line"),
    }
}

#[test]
fn a_login_address_signs_in_once_and_the_board_keeps_its_port() {
    let dir = TempDir::new("ui");
    let home = dir.path().join("alice");
    assert_eq!(code(&run(&home, &["init", "--name", "alice"])), 0);

    // A node started without --ui serves its board from the first `sealed ui`.
    let node = start_node(&home, "node");
    let out = run(&home, &["ui", "--no-open"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let first = ui_line(&stdout(&out)).expect("a login address");
    assert!(first.starts_with("http://127.0.0.1:"), "{first}");
    let (status, answer) = get(&first, &login_path(&first));
    assert_eq!(status, 303, "{answer}");
    assert!(answer.contains("HttpOnly; SameSite=Strict"), "{answer}");
    let (status, answer) = get(&first, &login_path(&first));
    assert_eq!(status, 403, "a login address is good once: {answer}");
    // Another `sealed ui`: another address, at the same board.
    let second = ui_line(&stdout(&run(&home, &["ui", "--no-open"]))).unwrap();
    assert_ne!(second, first);
    let port = |u: &str| u.split('/').nth(2).unwrap().to_owned();
    assert_eq!(port(&second), port(&first));
    assert_eq!(get(&second, &login_path(&second)).0, 303);
    drop(node);

    // `sealed node --ui` after a restart: the same port, a new address.
    let again = foreground(&home, &["node", "--no-mdns", "--ui"]);
    assert_eq!(port(&again.url), port(&first), "the board keeps its port");
    assert_eq!(get(&again.url, &login_path(&again.url)).0, 303);
    // The old addresses open nothing on the new run.
    assert_eq!(get(&second, &login_path(&second)).0, 403);
    drop(again);

    // No node running: `sealed ui` runs one, and its board answers.
    let own = foreground(&home, &["ui", "--no-open"]);
    assert_eq!(get(&own.url, &login_path(&own.url)).0, 303);
    assert_eq!(get(&own.url, "/api/games").0, 401, "no cookie, no games");
}
