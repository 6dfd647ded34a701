//! Where a transcript's bytes go: per envelope, signatures, hashes, acknowledgements,
//! item bodies and framing, with the set-up apart from the play (issue 34's
//! "transcript size" figure; the tool is `bin/transcript-size.rs`, the figures are in
//! docs/PERFORMANCE.md).
//!
//! Every byte is attributed by re-encoding the decoded part alone with
//! `sealed_protocol::wire::encode` (postcard, spec/PROTOCOL.md §1), never by taking a
//! remainder, so the parts are checked to add up to the envelope's length and the
//! file's: an accounting off by one byte is an error, not a figure.
//!
//! **Set-up and play.** A ply of play is an accepted game act: one entry of the
//! engine's main line (`Engine::main_line`), found by replaying the file under its
//! variant's rules. Let `E₁` be the envelope carrying the first accepted act. The
//! **set-up** is the signed proposal and every envelope in the causal past of `E₁`
//! (spec/PROTOCOL.md §7.6: its chain's earlier envelopes and, transitively, what they
//! acknowledge) other than `E₁` itself: the acceptance, the commitments, the coin and
//! the opening deals that the first act was made on. Every other envelope is **play**,
//! the end-of-game reveals and closes included, since every game pays for them. A file
//! with no accepted act is all set-up.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;

use sealed_games::cardmate::Cardmate;
use sealed_games::chex::Chex;
use sealed_games::duel::Duel;
use sealed_games::stallmate::peer::Stallmate;
use sealed_games::tempete::rules::Tempete;
use sealed_protocol::body::Item;
use sealed_protocol::envelope::Envelope;
use sealed_protocol::ids::{ChainId, EnvRef, GameId};
use sealed_protocol::proposal::{Terms, is_version_2};
use sealed_protocol::rules::Rules;
use sealed_protocol::transcript::{MAGIC, TranscriptFile, check_with_terms};
use sealed_protocol::wire;

/// The goal of issue 34 for Tempête and Cardmate: bytes of play per ply.
pub const GOAL_BYTES_PER_PLY: f64 = 200.0;

/// The variants the goal is set for.
pub const GOAL_VARIANTS: [&str; 2] = [
    sealed_games::tempete::VARIANT,
    sealed_games::cardmate::VARIANT,
];

/// The reference transcripts of spec/vectors, one per variant and mode.
pub const VECTORS: [&str; 10] = [
    "duel-game.sealed",
    "cardmate-game.sealed",
    "cardmate-v2-game.sealed",
    "chex-game.sealed",
    "tempete-game.sealed",
    "tempete-v2-game.sealed",
    "tempete-physical-game.sealed",
    "tempete-show-game.sealed",
    "stallmate-game.sealed",
    "forfeit-game.sealed",
];

/// Bytes of one or more envelopes, by what they carry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Split {
    /// The 64-byte signatures.
    pub signatures: usize,
    /// The `prev` hashes.
    pub prev_hashes: usize,
    /// The acknowledged envelopes' hashes.
    pub ack_hashes: usize,
    /// The hashes of `Commit` items (commitments and draw-chain heads).
    pub commit_hashes: usize,
    /// The acknowledgement entries without their hashes: chain and seq.
    pub acks: usize,
    /// The items without the commitment hashes they carry: acts, openings, deals…
    pub bodies: usize,
    /// The game id every envelope repeats.
    pub game_id: usize,
    /// The signer's clock.
    pub clock: usize,
    /// Version, log, seat, seq and the lengths of the ack and item lists.
    pub framing: usize,
}

impl Split {
    /// Every 32-byte hash field: prev, acknowledged and committed.
    pub fn hashes(&self) -> usize {
        self.prev_hashes + self.ack_hashes + self.commit_hashes
    }

    /// Everything neither signature, hash, acknowledgement nor body.
    pub fn rest(&self) -> usize {
        self.game_id + self.clock + self.framing
    }

    /// The sum of the parts.
    pub fn total(&self) -> usize {
        self.signatures + self.hashes() + self.acks + self.bodies + self.rest()
    }

    fn add(&mut self, o: &Split) {
        self.signatures += o.signatures;
        self.prev_hashes += o.prev_hashes;
        self.ack_hashes += o.ack_hashes;
        self.commit_hashes += o.commit_hashes;
        self.acks += o.acks;
        self.bodies += o.bodies;
        self.game_id += o.game_id;
        self.clock += o.clock;
        self.framing += o.framing;
    }
}

/// Envelopes taken together: how many, their split, and their body bytes by item kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Part {
    /// Number of envelopes.
    pub envelopes: usize,
    /// Their bytes, by what they carry.
    pub split: Split,
    /// Their body bytes (as in [`Split::bodies`]) by item kind.
    pub items: BTreeMap<&'static str, usize>,
}

impl Part {
    fn add(&mut self, s: &Split, items: &BTreeMap<&'static str, usize>) {
        self.envelopes += 1;
        self.split.add(s);
        for (k, v) in items {
            *self.items.entry(k).or_default() += v;
        }
    }
}

/// Where one transcript file's bytes go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileSize {
    /// The variant its proposal names.
    pub variant: String,
    /// The protocol version of its terms.
    pub version: u8,
    /// The file's length.
    pub total: usize,
    /// The magic.
    pub magic: usize,
    /// The container's lengths: of the proposal, of the envelope list and of each
    /// envelope, and the evidence list's.
    pub container: usize,
    /// The signed proposal.
    pub proposal: usize,
    /// Evidence entries (none in an honest game).
    pub evidence: usize,
    /// Plies of play: accepted game acts.
    pub plies: usize,
    /// The envelope carrying the first accepted act.
    pub first_act: Option<EnvRef>,
    /// Envelopes of the set-up.
    pub setup: Part,
    /// Envelopes of play.
    pub play: Part,
}

impl FileSize {
    /// Bytes of play (envelopes as they travel) per ply, if there was a ply.
    pub fn per_ply(&self) -> Option<f64> {
        (self.plies > 0).then(|| self.play.split.total() as f64 / self.plies as f64)
    }

    /// The sum of the parts.
    pub fn sum(&self) -> usize {
        self.magic
            + self.container
            + self.proposal
            + self.evidence
            + self.setup.split.total()
            + self.play.split.total()
    }
}

/// Why a file could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum SizeError {
    /// Not a readable transcript.
    #[error("not a readable transcript: {0}")]
    Transcript(String),
    /// A variant this tool does not replay.
    #[error("unknown variant {0:?}")]
    Variant(String),
    /// An envelope that does not decode.
    #[error("envelope {0}: {1}")]
    Envelope(usize, wire::WireError),
    /// The parts do not add up to the whole: the accounting is wrong.
    #[error("{what}: the parts add up to {parts} bytes, the whole is {whole}")]
    Accounting {
        /// Which whole.
        what: String,
        /// The sum of the parts.
        parts: usize,
        /// The whole's length.
        whole: usize,
    },
}

fn len<T: serde::Serialize>(value: &T) -> usize {
    wire::encode(value).len()
}

/// The name of an item's kind.
pub fn item_kind(item: &Item) -> &'static str {
    match item {
        Item::Accept => "accept",
        Item::Decline => "decline",
        Item::Commit(_) => "commit",
        Item::Open(_) => "open",
        Item::Deal(_) => "deal",
        Item::Act(_) => "act",
        Item::Resign => "resign",
        Item::OfferDraw => "offer-draw",
        Item::AcceptDraw => "accept-draw",
        Item::Claim(_) => "claim",
        Item::Close => "close",
        Item::Evidence(_) => "evidence",
        Item::DrawContribute(_) => "draw-contribute",
        Item::DrawOpen(_) => "draw-open",
        Item::Forfeit(_) => "forfeit",
        Item::Statements(_) => "statements",
        Item::Withdraw => "withdraw",
        Item::Named(_) => "named",
        Item::Show(_) => "show",
        // A whole deck's opening counts with the slot openings it stands for.
        Item::OpenDeck(_) => "open",
    }
}

/// One envelope's bytes by what they carry, each part re-encoded on its own; an error
/// unless they add up to `bytes.len()`.
pub fn split_envelope(
    bytes: &[u8],
    game: GameId,
) -> Result<(Envelope, Split, BTreeMap<&'static str, usize>), SizeError> {
    let env = Envelope::decode(bytes, game).map_err(|e| SizeError::Envelope(0, e))?;
    let u = &env.unsigned;
    let mut s = Split {
        signatures: len(&env.sig),
        prev_hashes: len(&u.prev),
        // A version 2 envelope travels without its game id (spec/PROTOCOL.md §1.6).
        game_id: if is_version_2(u.version) {
            0
        } else {
            len(&u.game)
        },
        clock: len(&u.clock),
        framing: len(&u.version)
            + len(&u.log)
            + len(&u.seat)
            + len(&u.seq)
            + len(&u.acks.len())
            + len(&u.body.len()),
        ..Split::default()
    };
    for a in &u.acks {
        s.ack_hashes += len(&a.hash);
        s.acks += len(&a.chain) + len(&a.seq);
    }
    let mut items: BTreeMap<&'static str, usize> = BTreeMap::new();
    for item in &u.body {
        let hashes = match item {
            Item::Commit(c) => c.hashes.iter().map(len).sum(),
            _ => 0,
        };
        let body = len(item) - hashes;
        s.commit_hashes += hashes;
        s.bodies += body;
        *items.entry(item_kind(item)).or_default() += body;
    }
    if s.total() != bytes.len() {
        return Err(SizeError::Accounting {
            what: format!("envelope {}", u.at()),
            parts: s.total(),
            whole: bytes.len(),
        });
    }
    Ok((env, s, items))
}

/// The accepted acts of a file, replayed under its variant's rules.
fn main_line(file: &TranscriptFile) -> Result<Vec<EnvRef>, SizeError> {
    let terms = Terms::parse(&file.proposal).map_err(|e| SizeError::Transcript(e.to_string()))?;
    fn acts<R: Rules>(file: &TranscriptFile, terms: Terms) -> Result<Vec<EnvRef>, SizeError> {
        let (engine, _) =
            check_with_terms::<R>(file, terms).map_err(|e| SizeError::Transcript(e.to_string()))?;
        Ok(engine.main_line().iter().map(|(at, _)| *at).collect())
    }
    match terms.variant() {
        sealed_games::duel::VARIANT => acts::<Duel>(file, terms),
        sealed_games::cardmate::VARIANT => acts::<Cardmate>(file, terms),
        sealed_games::chex::VARIANT => acts::<Chex>(file, terms),
        sealed_games::tempete::VARIANT => acts::<Tempete>(file, terms),
        sealed_games::stallmate::VARIANT => acts::<Stallmate>(file, terms),
        other => Err(SizeError::Variant(other.to_owned())),
    }
}

/// The causal past of the envelope at `from` (spec/PROTOCOL.md §7.6), as indices into
/// `envs`: the envelope, its chain's earlier envelopes, and what any of them
/// acknowledges, transitively.
pub fn causal_past(envs: &[Envelope], from: EnvRef) -> HashSet<usize> {
    let at: HashMap<EnvRef, usize> = envs
        .iter()
        .enumerate()
        .map(|(i, e)| (e.unsigned.at(), i))
        .rev() // the first envelope at a position wins
        .collect();
    let mut past = HashSet::new();
    let mut todo = vec![from];
    while let Some(r) = todo.pop() {
        let Some(&i) = at.get(&r) else { continue };
        if !past.insert(i) {
            continue;
        }
        if r.seq > 0 {
            todo.push(EnvRef {
                chain: r.chain,
                seq: r.seq - 1,
            });
        }
        todo.extend(envs[i].unsigned.acks.iter().map(|a| a.target()));
    }
    past
}

/// Measures transcript file bytes; an error unless every part adds up.
pub fn measure(bytes: &[u8]) -> Result<FileSize, SizeError> {
    let file =
        TranscriptFile::from_bytes(bytes).map_err(|e| SizeError::Transcript(e.to_string()))?;
    let terms = Terms::parse(&file.proposal).map_err(|e| SizeError::Transcript(e.to_string()))?;
    let mut envs = Vec::with_capacity(file.envelopes.len());
    let mut splits = Vec::with_capacity(file.envelopes.len());
    for (i, e) in file.envelopes.iter().enumerate() {
        let (env, s, items) = split_envelope(e, terms.game()).map_err(|err| match err {
            SizeError::Envelope(_, w) => SizeError::Envelope(i, w),
            other => other,
        })?;
        envs.push(env);
        splits.push((s, items));
    }
    let acts = main_line(&file)?;
    let first_act = acts.first().copied();
    let setup_set = match first_act {
        Some(r) => {
            let mut past = causal_past(&envs, r);
            if let Some(i) = envs.iter().position(|e| e.unsigned.at() == r) {
                past.remove(&i);
            }
            past
        }
        None => (0..envs.len()).collect(),
    };
    let (mut setup, mut play) = (Part::default(), Part::default());
    for (i, (s, items)) in splits.iter().enumerate() {
        if setup_set.contains(&i) {
            setup.add(s, items);
        } else {
            play.add(s, items);
        }
    }
    let container = len(&file.proposal.len())
        + len(&file.envelopes.len())
        + file.envelopes.iter().map(|e| len(&e.len())).sum::<usize>()
        + len(&file.evidence.len());
    let size = FileSize {
        variant: terms.variant().to_owned(),
        version: terms.version(),
        total: bytes.len(),
        magic: MAGIC.len(),
        container,
        proposal: file.proposal.len(),
        evidence: file.evidence.iter().map(len).sum(),
        plies: acts.len(),
        first_act,
        setup,
        play,
    };
    if size.sum() != size.total {
        return Err(SizeError::Accounting {
            what: "the file".into(),
            parts: size.sum(),
            whole: size.total,
        });
    }
    Ok(size)
}

fn chain_name(c: ChainId) -> String {
    if c.log.is_public() {
        format!("{}'s public chain", c.seat)
    } else {
        format!("{}'s chain in log {}", c.seat, c.log.0)
    }
}

/// The report of one file, as the tool prints it.
pub fn report(name: &str, f: &FileSize) -> String {
    let mut out = String::new();
    let version = if f.version == 1 { 1 } else { 2 };
    let _ = writeln!(
        out,
        "== {name} ({}, protocol version {version}): {} bytes, {} envelopes, {} plies of play",
        f.variant,
        f.total,
        f.setup.envelopes + f.play.envelopes,
        f.plies
    );
    match f.first_act {
        Some(r) => {
            let _ = writeln!(
                out,
                "   set-up = the signed proposal and the {} envelopes in the causal past of \
                 the envelope carrying the first accepted act ({} seq {}), that envelope \
                 excluded; play = every other envelope, end-of-game reveals and closes included",
                f.setup.envelopes,
                chain_name(r.chain),
                r.seq
            );
        }
        None => {
            let _ = writeln!(out, "   no accepted act: every envelope is set-up");
        }
    }
    let _ = writeln!(
        out,
        "   {:<14} {:>9} {:>9} {:>10} {:>8} {:>8} {:>8} {:>8}",
        "", "envelopes", "bytes", "signatures", "hashes", "acks", "bodies", "rest"
    );
    let _ = writeln!(
        out,
        "   {:<14} {:>9} {:>9}   (magic {}, container lengths {}, evidence {})",
        "file framing",
        "",
        f.magic + f.container + f.evidence,
        f.magic,
        f.container,
        f.evidence
    );
    let _ = writeln!(out, "   {:<14} {:>9} {:>9}", "proposal", "", f.proposal);
    for (label, p) in [("set-up", &f.setup), ("play", &f.play)] {
        let s = &p.split;
        let _ = writeln!(
            out,
            "   {label:<14} {:>9} {:>9} {:>10} {:>8} {:>8} {:>8} {:>8}",
            p.envelopes,
            s.total(),
            s.signatures,
            s.hashes(),
            s.acks,
            s.bodies,
            s.rest()
        );
    }
    if f.plies > 0 {
        let s = &f.play.split;
        let n = f.plies as f64;
        let per = |x: usize| x as f64 / n;
        let _ = writeln!(
            out,
            "   {:<14} {:>9.2} {:>9.1} {:>10.1} {:>8.1} {:>8.1} {:>8.1} {:>8.1}",
            "play per ply",
            f.play.envelopes as f64 / n,
            per(s.total()),
            per(s.signatures),
            per(s.hashes()),
            per(s.acks),
            per(s.bodies),
            per(s.rest())
        );
        let _ = writeln!(
            out,
            "   per ply, hashes: prev {:.1}, acknowledged {:.1}, commitments {:.1}; rest: \
             game id {:.1}, clock {:.1}, version/log/seat/seq/list lengths {:.1}",
            per(s.prev_hashes),
            per(s.ack_hashes),
            per(s.commit_hashes),
            per(s.game_id),
            per(s.clock),
            per(s.framing)
        );
        let items: Vec<String> = f
            .play
            .items
            .iter()
            .map(|(k, v)| format!("{k} {:.1}", per(*v)))
            .collect();
        let _ = writeln!(out, "   per ply, bodies by item: {}", items.join(", "));
    }
    let _ = writeln!(out, "{}", verdict_line(name, f));
    out
}

/// The last line of a file's report: bytes per ply of play against the goal.
pub fn verdict_line(name: &str, f: &FileSize) -> String {
    let Some(per) = f.per_ply() else {
        return format!("{name}: no ply of play");
    };
    let goal = if GOAL_VARIANTS.contains(&f.variant.as_str())
        && f.version == sealed_protocol::proposal::VERSION
    {
        // Version 1's bytes never change; the wire compaction is version 2's.
        format!(
            "version 1, whose bytes stay as they are: the goal of {GOAL_BYTES_PER_PLY:.0} \
             B/ply is for version 2 ({:.2}x here)",
            per / GOAL_BYTES_PER_PLY
        )
    } else if GOAL_VARIANTS.contains(&f.variant.as_str()) {
        let x = per / GOAL_BYTES_PER_PLY;
        let met = if per <= GOAL_BYTES_PER_PLY {
            "met"
        } else {
            "not met"
        };
        format!(
            "goal <= {GOAL_BYTES_PER_PLY:.0} B/ply (Tempête and Cardmate): {met}, {x:.2}x the goal"
        )
    } else {
        format!("(the goal of {GOAL_BYTES_PER_PLY:.0} B/ply is set for Tempête and Cardmate only)")
    };
    format!("{name}: {per:.1} B per ply of play; {goal}")
}
