//! Debian's Chromium driven over WebDriver by its chromedriver: one driver process per
//! test, one headless browser (its own profile) per seat.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

/// Where the distribution puts them (`apt-get install chromium chromium-driver`;
/// `.ci/run` installs them when missing).
const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// A chromedriver process, killed when dropped.
pub struct Driver {
    child: Child,
    port: u16,
    profiles: tempfile::TempDir,
}

impl Drop for Driver {
    /// Kills chromedriver and every browser it started: they share its process group.
    fn drop(&mut self) {
        let group = nix::unistd::Pid::from_raw(self.child.id() as i32);
        let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether a missing system part fails a test instead of skipping it
/// (`SEALED_REQUIRE=all`, which `.ci/run` sets: CI never skips).
pub fn required() -> bool {
    std::env::var("SEALED_REQUIRE").as_deref() == Ok("all")
}

/// Whether the browser tests are skipped: on purpose (`SEALED_BROWSER=skip`), or on a
/// machine without Chromium, saying in one line what to install — unless
/// [`required`], when a missing Chromium fails them.
pub fn skipped() -> bool {
    static ONCE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ONCE.get_or_init(|| {
        if std::env::var("SEALED_BROWSER").as_deref() == Ok("skip") {
            return true;
        }
        let missing: Vec<&str> = [CHROMIUM, CHROMEDRIVER]
            .into_iter()
            .filter(|t| !std::path::Path::new(t).exists())
            .collect();
        if missing.is_empty() || required() {
            return false;
        }
        skipped_line(&format!(
            "skipped: the browser tests need {} (`apt-get install chromium chromium-driver`); \
             SEALED_REQUIRE=all makes this a failure",
            missing.join(" and ")
        ));
        true
    })
}

impl Driver {
    /// Starts chromedriver on a free port and waits until it answers.
    pub async fn start() -> Driver {
        for tool in [CHROMIUM, CHROMEDRIVER] {
            assert!(
                std::path::Path::new(tool).exists(),
                "{tool} is missing: `apt-get install chromium chromium-driver` (.ci/run does), \
                 or SEALED_BROWSER=skip to skip the browser tests"
            );
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .process_group(0)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "chromedriver did not listen"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Driver {
            child,
            port,
            profiles: tempfile::tempdir().unwrap(),
        }
    }

    /// A new headless browser with a profile of its own (its own cookies).
    pub async fn browser(&self, name: &str) -> Browser {
        let profile = self.profiles.path().join(name);
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": CHROMIUM,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", "--window-size=1280,1200",
                    format!("--user-data-dir={}", profile.display()),
                ],
            }),
        );
        self.session(caps).await
    }

    /// The browser already running with its DevTools at `address` (`127.0.0.1:<port>`),
    /// one that another program started: this driver reads its pages and leaves it
    /// running (`sealed ui`'s test, cli/tests/ui.rs, which includes this file).
    pub async fn attach(&self, address: &str) -> Browser {
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".into(),
            json!({ "debuggerAddress": address }),
        );
        self.session(caps).await
    }

    /// A WebDriver session with these capabilities.
    async fn session(&self, caps: serde_json::Map<String, Value>) -> Browser {
        let mut last = None;
        // A loaded machine may take a while to bring a browser up; try a few times.
        for _ in 0..3 {
            match ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
                .capabilities(caps.clone())
                .connect(&format!("http://127.0.0.1:{}", self.port))
                .await
            {
                Ok(c) => return Browser { c },
                Err(e) => last = Some(e),
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        panic!("no browser session: {last:?}");
    }
}

/// One browser.
pub struct Browser {
    /// The WebDriver client.
    pub c: Client,
}

impl Browser {
    /// Opens an address and waits for the page.
    pub async fn goto(&self, url: &str) {
        self.c.goto(url).await.unwrap();
    }

    /// Runs a script in the page and returns its value.
    pub async fn js(&self, script: &str) -> Value {
        self.c.execute(script, vec![]).await.unwrap_or(Value::Null)
    }

    /// The text of the first element `css` finds; empty when there is none.
    pub async fn text(&self, css: &str) -> String {
        let css = Value::String(css.to_owned());
        self.js(&format!(
            "const e = document.querySelector({css}); return e ? e.textContent : ''"
        ))
        .await
        .as_str()
        .unwrap_or_default()
        .to_owned()
    }

    /// What a screen reader says of the board's square `sq` (its accessible name);
    /// empty when there is no such square.
    pub async fn square_label(&self, sq: &str) -> String {
        self.js(&format!(
            "const e = document.querySelector(\"#board .sq[data-square='{sq}']\"); \
             return e ? e.getAttribute('aria-label') : ''"
        ))
        .await
        .as_str()
        .unwrap_or_default()
        .to_owned()
    }

    /// Clicks the first element `css` finds, waiting up to `wait` for it.
    pub async fn click(&self, css: &str, wait: Duration) -> bool {
        let start = Instant::now();
        loop {
            if let Ok(e) = self.c.find(Locator::Css(css)).await
                && e.click().await.is_ok()
            {
                return true;
            }
            if start.elapsed() > wait {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Clicks the `i`-th element of those `css` finds now; false when there is none
    /// or the page changed under it.
    pub async fn click_nth(&self, css: &str, i: usize) -> bool {
        match self.c.find_all(Locator::Css(css)).await {
            Ok(all) if !all.is_empty() => all[i % all.len()].click().await.is_ok(),
            _ => false,
        }
    }

    /// How many elements `css` finds now.
    pub async fn count(&self, css: &str) -> usize {
        self.c
            .find_all(Locator::Css(css))
            .await
            .map_or(0, |v| v.len())
    }

    /// An attribute of the game page (`data-ply`, `data-my-turn`, `data-phase`).
    pub async fn game_attr(&self, name: &str) -> Option<String> {
        let v = self
            .js(&format!(
                "const g = document.getElementById('game'); return g ? g.dataset.{name} : null;"
            ))
            .await;
        v.as_str().map(str::to_owned)
    }

    /// Waits until `script` returns true, up to `wait`.
    pub async fn until(&self, script: &str, wait: Duration) -> bool {
        let start = Instant::now();
        loop {
            if self.js(script).await == Value::Bool(true) {
                return true;
            }
            if start.elapsed() > wait {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
    }

    /// Presses one key (`'a'`, or a `fantoccini::key::Key` as a char) where the
    /// keyboard is, as a person does: no element is aimed at.
    pub async fn press(&self, key: char) {
        use fantoccini::actions::{InputSource, KeyAction, KeyActions};
        let keys = KeyActions::new("keyboard".into())
            .then(KeyAction::Down { value: key })
            .then(KeyAction::Up { value: key });
        self.c.perform_actions(keys).await.unwrap();
    }

    /// Types text where the keyboard is.
    pub async fn type_text(&self, text: &str) {
        for ch in text.chars() {
            self.press(ch).await;
        }
    }

    /// Sets the window's size (the page's layout width follows it).
    pub async fn size(&self, width: u32, height: u32) {
        self.c.set_window_size(width, height).await.unwrap();
    }

    /// A PNG of the window.
    pub async fn screenshot(&self) -> Vec<u8> {
        self.c.screenshot().await.unwrap()
    }
}

/// Says that a test is skipped, and why, on the terminal itself: past the test harness's
/// capture, so that a contributor sees it without `--nocapture`.
pub fn skipped_line(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}
