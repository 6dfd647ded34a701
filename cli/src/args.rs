//! The command line's grammar.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// Hidden-information chess variants between two people who need no referee: a node
/// plays them over the network or by mail, and `verify` checks any game offline.
#[derive(Debug, Parser)]
#[command(name = "sealed", version)]
pub struct Cli {
    /// The home folder (key, store, control socket). Default: `SEALED_HOME`, else the
    /// platform data folder.
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check a transcript file, or every transcript in a directory.
    ///
    /// Exit codes: 0 complete and verified; 1 a proven fault; 2 unreadable input, or
    /// content that does not check (bytes not validly signed, evidence the replay does
    /// not confirm); 3 unconfirmed (unfinished, unclosed, a reveal withheld, open
    /// claims). For a directory, the worst of its files, in the
    /// order 1, 2, 3, 0; 2 when it holds no transcript (nothing was checked).
    Verify {
        /// A transcript file, or a directory of them (not searched recursively;
        /// hidden files are skipped).
        path: PathBuf,
        /// Print one JSON document on stdout instead of the report (see cli/JSON.md).
        #[arg(long)]
        json: bool,
    },
    /// Replay a score file and check that every move is legal.
    ///
    /// Exit codes: 0 every move legal; 1 an illegal ply; 2 unreadable input or an
    /// unknown variant.
    Replay {
        /// The variant's name (e.g. `duel`).
        variant: String,
        /// The score file.
        file: PathBuf,
        /// Also draw the final position as SVG into this file (games with a board).
        #[arg(long, value_name = "OUT")]
        svg: Option<PathBuf>,
    },
    /// Create this player's key and name in the home folder.
    Init {
        /// Display name.
        #[arg(long, default_value = "")]
        name: String,
    },
    /// Run the node: listen, sync games, answer the other commands.
    ///
    /// Prints the peer id, the addresses to give a friend, and what it serves others
    /// (mailbox, witness, relay).
    Node {
        /// Where to listen (repeatable).
        #[arg(long, value_name = "MULTIADDR", default_values_t = ["/ip4/0.0.0.0/tcp/0".to_string(), "/ip4/0.0.0.0/udp/0/quic-v1".to_string()])]
        listen: Vec<String>,
        /// Store and forward the public envelopes of games that name this node as mailbox.
        #[arg(long)]
        mailbox: bool,
        /// Be the witness of games that name this node so: keep their public envelopes
        /// (as a mailbox), sign when each first arrived, and sign what is held on a
        /// player's request. Both players trust a witness for time: it makes a player
        /// who lets the agreed time pass lose on time (protocol version 2).
        #[arg(long)]
        witness: bool,
        /// Relay connections for peers behind NAT.
        #[arg(long)]
        relay: bool,
        /// Do not look for peers on the LAN.
        #[arg(long)]
        no_mdns: bool,
        /// Listen through a relay too (its address, ending in /p2p/<relay id>).
        #[arg(long, value_name = "MULTIADDR")]
        via: Vec<String>,
        /// Let bots decide in every game (for testing). Another's invitation is
        /// accepted only while fewer than 64 such games are in play (8 a proposer),
        /// friends' included: bots vouch for nobody.
        #[arg(long)]
        bots: bool,
        /// Do not register this node's addresses at its mailboxes and relays (whoever
        /// can ask them learns where a peer id is); peers then need an address.
        #[arg(long)]
        no_announce: bool,
        /// Take invitations only from peers this node has played. By default anyone's
        /// are taken, at most 8 waiting per peer and 64 in all from such strangers.
        #[arg(long)]
        only_known: bool,
        /// Serve the web board on 127.0.0.1 from the start, and print its login address
        /// (`sealed ui` prints a new one at any time).
        #[arg(long)]
        ui: bool,
        /// How many games this node holds open for strangers at once (relayed as a
        /// mailbox or witness): when full, a game from the network holding most yields
        /// its place to a newcomer's from another.
        #[arg(long, value_name = "N", default_value_t = sealed_node::core::Quotas::default().open_total)]
        open_total: usize,
        /// How long a game held for a stranger that nobody accepted is kept with
        /// nothing new in it (e.g. 7d, 12h, 30s): then it expires and its bytes go.
        #[arg(long, value_name = "DURATION", default_value = "7d", value_parser = duration)]
        keep_open: u64,
        /// How long an accepted or finished game held for a stranger, with no time
        /// control, is kept with no envelope in it.
        #[arg(long, value_name = "DURATION", default_value = "30d", value_parser = duration)]
        keep_idle: u64,
    },
    /// The board in a browser: open the running node's web board.
    ///
    /// Prints a login address of the node's web board (on 127.0.0.1, started now if it
    /// was not) and opens it. With no node running for this home, runs one (as `sealed
    /// node --ui`) until interrupted. Each address signs one browser in, once, within 10
    /// minutes.
    Ui {
        /// Print the address only; do not open a browser.
        #[arg(long)]
        no_open: bool,
        /// Where the node listens, when this command runs one (repeatable).
        #[arg(long, value_name = "MULTIADDR", default_values_t = ["/ip4/0.0.0.0/tcp/0".to_string(), "/ip4/0.0.0.0/udp/0/quic-v1".to_string()])]
        listen: Vec<String>,
    },
    /// Run a referee node for Secret Stallmate.
    ///
    /// A node that accepts every game that names it as referee and answers for it by
    /// itself. Prints its address: both players give it to `sealed new --referee`.
    Referee {
        /// Where to listen (repeatable).
        #[arg(long, value_name = "MULTIADDR", default_values_t = ["/ip4/0.0.0.0/tcp/0".to_string(), "/ip4/0.0.0.0/udp/0/quic-v1".to_string()])]
        listen: Vec<String>,
        /// Do not look for peers on the LAN.
        #[arg(long)]
        no_mdns: bool,
        /// Listen through a relay too (its address, ending in /p2p/<relay id>).
        #[arg(long, value_name = "MULTIADDR")]
        via: Vec<String>,
    },
    /// Dial a peer.
    ///
    /// `dial`, `peers` and `new` need a running node; `mailbox` and the game commands
    /// (`games`, `show`, `move`, `accept`, `export`, `mail`…) work with it stopped too,
    /// on its store: what they change goes out when the node starts.
    ///
    /// Exit codes: 0 connected; 2 not (a dead address, a wrong peer id, this node).
    Dial {
        /// Its address.
        addr: String,
    },
    /// How peers reach this node, what it serves, and where each peer can be reached.
    ///
    /// First how peers reach this node (directly, or at its relayed addresses) and what
    /// it serves others and what strangers hold there; then the peer book, best address
    /// first, and what each connected peer runs.
    Peers {
        /// One JSON document.
        #[arg(long)]
        json: bool,
    },
    /// Set this home's default mailbox, or show the one set.
    ///
    /// The node keeps connected to it, so invitations sent through it arrive by
    /// themselves, and registers its addresses there so that friends find it by peer id.
    /// Without an address, shows the one set.
    Mailbox {
        /// The mailbox's address: where it is, ending in /p2p/<peer id> (as its node
        /// prints it). Refused at once without the peer id.
        addr: Option<String>,
        /// Forget the default mailbox.
        #[arg(long, conflicts_with = "addr")]
        clear: bool,
    },
    /// Propose a game to a peer, and say whether the invitation reached it.
    ///
    /// It says whether the invitation reached the peer, or only its mailbox.
    ///
    /// Exit codes: 0 delivered; 2 refused; 3 made but not delivered within `--wait`
    /// (why is printed; the node keeps trying).
    New {
        /// Variant: duel, cardmate, chex, tempete, stallmate (stallmate-duo: stallmate
        /// with --no-referee).
        variant: String,
        /// The peer's address ending in /p2p/<peer id>, or its peer id alone (found
        /// through the mailbox or a rendezvous point both use).
        #[arg(long)]
        peer: String,
        /// How long to wait for the invitation to reach the peer or the mailbox, in
        /// seconds.
        #[arg(long, default_value_t = 10)]
        wait: u64,
        /// A mailbox node both of you trust, ending in /p2p/<peer id>.
        #[arg(long)]
        mailbox: Option<String>,
        /// The referee both of you chose, ending in /p2p/<peer id> (stallmate needs one).
        #[arg(long)]
        referee: Option<String>,
        /// Secret Stallmate with no referee (variant `stallmate-duo`): your two nodes
        /// answer every attempt together, by garbled computation, and the transcript
        /// proves at the end that both computed honestly. Needs --witness and a time
        /// control (`-o time-per-move=1d`); both nodes online while an attempt is
        /// computed.
        #[arg(long, conflicts_with = "referee")]
        no_referee: bool,
        /// The arbiter both of you chose for Tempête's physical deck (`-o deck=physical`):
        /// his node (a `sealed node --mailbox`), ending in /p2p/<peer id>. It is named in
        /// the terms as the one whose signed ruling settles a dispute, and is the game's
        /// mailbox: it holds the public envelopes he rules from (`sealed rule GAME`) and
        /// sends his rulings to your nodes. Not with --mailbox.
        #[arg(long, conflicts_with = "mailbox")]
        arbiter: Option<String>,
        /// A witness both of you trust for time (a `sealed node --witness`), ending in
        /// /p2p/<peer id>: with a time control (`-o time-per-move=1d`), a player who lets
        /// it pass then loses on time instead of leaving the game open. Every variant,
        /// stallmate too (beside its referee).
        #[arg(long)]
        witness: Option<String>,
        /// A rule option `key=value` (repeatable), e.g. `setup=random`.
        #[arg(long = "option", short = 'o', value_name = "KEY=VALUE")]
        options: Vec<String>,
    },
    /// Accept an invitation.
    Accept {
        /// Game id (or a unique prefix).
        game: String,
    },
    /// Decline an invitation.
    Decline {
        /// Game id (or a unique prefix).
        game: String,
    },
    /// Take up again a game set aside because the node stopped while restoring it.
    ///
    /// `sealed games` lists such a game as crashed, with why.
    Resume {
        /// Game id (or a unique prefix).
        game: String,
    },
    /// Take back a game you proposed, before anyone accepted it.
    ///
    /// The withdrawal is signed, so every seat shows the game withdrawn (games of
    /// protocol version 2).
    Withdraw {
        /// Game id (or a unique prefix).
        game: String,
    },
    /// List the games: whose turn, what each waits for.
    Games {
        /// One JSON document.
        #[arg(long)]
        json: bool,
    },
    /// Show a game: board, hand, actions open now.
    Show {
        /// Game id (or a unique prefix).
        game: String,
        /// One JSON document.
        #[arg(long)]
        json: bool,
        /// Draw the board as SVG into this file.
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
    },
    /// Make one action in the game's notation (a move, a draw, a placement…).
    Move {
        /// Game id (or a unique prefix).
        game: String,
        /// The action, e.g. `4Ci3`, `Nf3`, `draw`, `place c4`, `play 7`.
        action: Vec<String>,
        /// Refuse unless the game is at this ply: the number of acts played, as `show`,
        /// `games` and every answer print it. Guards against a stale command.
        #[arg(long)]
        expect: Option<usize>,
    },
    /// Resign a game.
    Resign {
        /// Game id (or a unique prefix).
        game: String,
    },
    /// Offer or accept a draw.
    Draw {
        /// `offer` or `accept`.
        what: String,
        /// Game id (or a unique prefix).
        game: String,
    },
    /// Write a game's transcript, score and PGN.
    ///
    /// Each file written is said on a line. A file the game does not have (a Cardmate
    /// has no PGN) is said on stderr and the others are written all the same. Exit 0:
    /// all written; 1: some not, said why; 2: none.
    Export {
        /// Game id (or a unique prefix).
        game: String,
        /// The transcript file (for `sealed verify`).
        #[arg(long, value_name = "FILE")]
        transcript: Option<PathBuf>,
        /// The score text (for `sealed replay`).
        #[arg(long, value_name = "FILE")]
        score: Option<PathBuf>,
        /// The game as PGN, card plays as comments (games on a chess board).
        #[arg(long, value_name = "FILE")]
        pgn: Option<PathBuf>,
    },
    /// Play by e-mail: export a game as armored text, or import such text.
    ///
    /// Import reads at most 32 MiB of text and 8 MiB of decoded mail, refusing more at
    /// once. It prints each game the mail touched, and each envelope it carried that was
    /// not taken, with why. Exit 0: all taken; 1: taken but for the envelopes listed;
    /// 2: nothing taken.
    Mail {
        /// `export` or `import`.
        what: String,
        /// For export: the game; for import: the file holding the text (`-` for stdin).
        arg: String,
        /// For export: write here instead of stdout.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Print the completion script for a shell.
    ///
    /// For example `sealed completions bash >
    /// ~/.local/share/bash-completion/completions/sealed`.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff).
    ///
    /// For example `sealed man > sealed.1; man ./sealed.1`.
    Man,
    /// As the arbiter of a physical-deck Tempête game: list its disputes, or sign a ruling.
    ///
    /// GAME is a game your node relays as its arbiter (the players named it
    /// with `--arbiter`; run it as `sealed node --mailbox`), or a transcript FILE a
    /// player exported (`sealed export GAME --transcript FILE`) and sent; with neither,
    /// every game your node relays that names you lists its open disputes. With DISPUTE,
    /// the rest is the ruling as board edits and a note (`then e5e2 remove d4 place n e5
    /// exchange a1 h1 note …`; nothing: the claim stands); it is signed with this home's
    /// key, which the terms must name, and printed as the line a player posts with
    /// `sealed move`; for a GAME your node also sends it to the players' nodes, which
    /// post it themselves. Exit 0: listed or signed; 2: unreadable, not this game's
    /// arbiter, or no such open dispute.
    Rule {
        /// The game (id or prefix) or its transcript's file.
        game: Option<String>,
        /// The dispute to rule on (its number, as listed).
        dispute: Option<u32>,
        /// The ruling: board edits, then `note` and the words.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        ruling: Vec<String>,
    },
    /// Two nodes on 127.0.0.1 play a whole game between bots, verified and saved to a file.
    ///
    /// The transcript is written to `sealed-demo-VARIANT.sealed` in the current folder (or
    /// `sealed-demo-VARIANT-2.sealed`, `-3`, …: a file you did not name is never
    /// overwritten), or to `--out FILE`; the last line printed names it and the command
    /// that checks it, `sealed verify FILE`.
    Demo {
        /// Variant: duel, cardmate, chex, tempete, stallmate.
        variant: String,
        /// Seed of the bots' choices (secrets always come from the OS).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Write the transcript to FILE (replacing it), not to sealed-demo-VARIANT.sealed.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// The second player's node stops a few moves in, with a 2 s move time: a
        /// witness (a third node) makes that a proven loss on time, exit 0.
        #[arg(long)]
        walk_away: bool,
        /// With --walk-away, no witness: the walk-away stays a timeout claim, exit 3.
        #[arg(long, requires = "walk_away")]
        no_witness: bool,
        /// Secret Stallmate with no referee (variant `stallmate-duo`): the two players'
        /// nodes compute every answer together; a third node is the witness.
        #[arg(long)]
        no_referee: bool,
        /// Tempête only: `physical` plays with the cards the players own — each card's
        /// effect stated by its player and accepted by the other (the bots accept all).
        #[arg(long, value_name = "DECK", value_parser = ["open", "physical"])]
        deck: Option<String>,
        /// A rule option `key=value` (repeatable) over the demo's own, e.g.
        /// `-o cards=1-9,73` for a Tempête whose short list deals the show-hand card 73.
        #[arg(long = "option", short = 'o', value_name = "KEY=VALUE")]
        options: Vec<String>,
    },
}

/// A duration as the time options read it (`30s`, `10m`, `12h`, `7d`), in ms.
fn duration(text: &str) -> Result<u64, String> {
    sealed_protocol::time::parse_duration(text).map_err(|e| e.to_string())
}
