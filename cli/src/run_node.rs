//! `sealed node`: runs a node until interrupted, serving the control socket (and the
//! web board, `ui.rs`).

use std::time::Duration;

use sealed_node::{Home, NodeConfig};

use crate::output;

/// Options of `sealed node`.
pub struct NodeArgs {
    /// Listen addresses.
    pub listen: Vec<String>,
    /// Mailbox role.
    pub mailbox: bool,
    /// Witness role (and so a mailbox).
    pub witness: bool,
    /// Relay server role.
    pub relay: bool,
    /// mDNS off.
    pub no_mdns: bool,
    /// Listen through these relays too.
    pub via: Vec<String>,
    /// Bots decide.
    pub bots: bool,
    /// Accept every game that seats this node as referee.
    pub referee: bool,
    /// Register our addresses at the mailboxes and relays we keep connected.
    pub announce: bool,
    /// Take invitations from peers this node has not played.
    pub strangers: bool,
    /// Serve the web board from the start and print its login address (opened in a
    /// browser too when `true`); without, the board starts on the first `sealed ui`.
    pub ui: Option<bool>,
    /// Games held open for strangers in all, and how long one nobody accepted and one
    /// idle are kept, in ms (`sealed node --open-total --keep-open --keep-idle`); the
    /// defaults when `None`.
    pub held: Option<(usize, u64, u64)>,
}

impl NodeArgs {
    /// A player's node listening at `listen`, with everything else as `sealed node`
    /// has it by default.
    pub fn plain(listen: Vec<String>) -> NodeArgs {
        NodeArgs {
            listen,
            mailbox: false,
            witness: false,
            relay: false,
            no_mdns: false,
            via: vec![],
            bots: false,
            referee: false,
            announce: true,
            strangers: true,
            ui: None,
            held: None,
        }
    }
}

/// How long `--via` waits for each relay to grant a reservation.
const RESERVE_WAIT: Duration = Duration::from_secs(10);

/// Runs the node; returns an exit code only on failure to start.
pub fn run(home: &Home, args: NodeArgs) -> i32 {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SEALED_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .try_init();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            output::error(&e.to_string());
            return 2;
        }
    };
    runtime.block_on(async move {
        let mut cfg = NodeConfig::default();
        cfg.net.mdns = !args.no_mdns;
        cfg.net.relay_server = args.relay;
        cfg.net.announce = args.announce;
        cfg.core.strangers = args.strangers;
        cfg.core.mailbox = args.mailbox;
        cfg.core.witness = args.witness;
        cfg.core.bots = args.bots;
        cfg.core.referee = args.referee;
        if let Some((open_total, open_ms, idle_ms)) = args.held {
            cfg.core.quotas.open_total = open_total;
            cfg.core.lifetime.open_ms = open_ms;
            cfg.core.lifetime.idle_ms = idle_ms;
        }
        cfg.store_wait = crate::play::store_wait();
        // A relay we listen "via" is a listen address ending in /p2p-circuit: the
        // relay client reserves a slot there and others reach us through it.
        let listen = args.listen.iter().cloned();
        let via = args.via.iter().map(|r| format!("{r}/p2p-circuit"));
        let kept = home.ports();
        for l in listen.chain(via) {
            match l.parse() {
                Ok(a) => cfg.listen.push(crate::ports::stable(a, &kept)),
                Err(e) => {
                    output::error(&format!("{l:?}: {e}"));
                    return 2;
                }
            }
        }
        let (node, task) = match sealed_node::start(home, cfg).await {
            Ok(n) => n,
            Err(e) => {
                output::error(&e.to_string());
                return 2;
            }
        };
        // The control socket is bound before the node says where it is, so a command
        // run as soon as the address is printed finds it.
        let socket = home.socket_path();
        let listener = match sealed_node::control::listen(&socket) {
            Ok(l) => l,
            Err(e) => {
                output::error(&format!("{}: {e}", socket.display()));
                return 2;
            }
        };
        // The home's default mailbox: kept connected, and where the node registers.
        if let Some(m) = home.mailbox() {
            let r = match sealed_node::shell::read_point("mailbox", &m) {
                Ok(a) => node.stand(a).await,
                Err(e) => Err(e),
            };
            if let Err(e) = r {
                // Set before `sealed mailbox` checked what it keeps, or written by hand.
                output::error(&format!(
                    "the default mailbox ({}): {e}; set another with `{}` or forget it \
                     with `{}`",
                    home.mailbox_path().display(),
                    home.command("mailbox ADDR"),
                    home.command("mailbox --clear"),
                ));
                return 2;
            }
        }
        // Give the listeners a moment to bind, then say where we are.
        tokio::time::sleep(Duration::from_millis(300)).await;
        if let Err(e) = reserved(&node, &args.via).await {
            output::error(&e);
            let _ = node.shutdown().await;
            return 2;
        }
        if let Ok(info) = node.info().await {
            // Kept before the address is printed: whoever reads it may stop the node.
            let mut now = kept.clone();
            now.extend(crate::ports::listening(&info.addrs));
            if now != kept
                && let Err(e) = home.save_ports(&now)
            {
                output::error(&format!("the ports are not kept for the next start: {e}"));
            }
            let mut s = format!("peer id   {}\n", info.peer);
            for a in &info.addrs {
                s.push_str(&format!("listening {a}\n"));
            }
            let serves: Vec<&str> = info.serves.iter().map(String::as_str).collect();
            s.push_str(&format!(
                "serves    {}\n",
                crate::reach::serves_words(&serves)
            ));
            s.push_str(&format!("control   {}\n", home.socket_path().display()));
            output::stdout(&s);
        }
        let (board, back) = crate::ui::hook(node.clone(), home.clone()).await;
        if let Some(at) = back {
            output::stdout(&format!(
                "board     {at} (served again: browsers signed in before go on)\n"
            ));
        }
        if let Some(open) = args.ui {
            match board().await {
                Ok(url) => crate::ui::announce(home, &url, open),
                Err(e) => {
                    output::error(&format!("the web board: {e}"));
                    let _ = node.shutdown().await;
                    return 2;
                }
            }
        }
        let serve = sealed_node::control::serve(listener, node.clone(), Some(board));
        tokio::select! {
            r = serve => {
                if let Err(e) = r {
                    output::error(&format!("{}: {e}", socket.display()));
                    return 2;
                }
                0
            }
            _ = task => 0,
            _ = tokio::signal::ctrl_c() => {
                let _ = node.shutdown().await;
                0
            }
        }
    })
}

/// Waits until every relay of `--via` has granted a reservation (a relayed listen
/// address appears); a relay that refuses, cannot be reached or is not a relay is an
/// error with its cause.
async fn reserved(node: &sealed_node::NodeHandle, via: &[String]) -> Result<(), String> {
    let deadline = tokio::time::Instant::now() + RESERVE_WAIT;
    for relay in via {
        loop {
            let info = node.info().await.map_err(|e| e.to_string())?;
            if info
                .addrs
                .iter()
                .any(|a| a.starts_with(relay.as_str()) && a.contains("/p2p-circuit"))
            {
                break;
            }
            if let Some(why) = info.failed.iter().find(|f| f.contains(relay.as_str())) {
                return Err(format!("no relayed address through {relay}: {why}"));
            }
            if tokio::time::Instant::now() >= deadline {
                let why = info.failed.join("; ");
                return Err(format!(
                    "no relayed address through {relay} after {} s{}",
                    RESERVE_WAIT.as_secs(),
                    if why.is_empty() {
                        String::new()
                    } else {
                        format!(": {why}")
                    }
                ));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    Ok(())
}
