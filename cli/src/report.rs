//! The human-readable reports of `sealed verify`.

use sealed_node::core::PlayerView;
use sealed_protocol::fault::Fault;
use sealed_protocol::ids::Seat;
use sealed_protocol::transcript::Checked;
use sealed_protocol::verdict::{ClaimAbout, ClaimView, Finality, Status, Verdict};

use crate::exit;
use sealed_node::checked::FileReport;

/// The report on one file that could be checked.
pub fn file(r: &FileReport) -> String {
    let Ok(c) = &r.checked else {
        return String::new();
    };
    let v = &c.verdict;
    let mut out = vec![
        format!("file        {}", one_line(&r.file)),
        format!("variant     {}", v.variant),
        format!("game        {}", v.game),
    ];
    for p in &r.players {
        let name = if p.name.is_empty() {
            "(no name)"
        } else {
            &p.name
        };
        out.push(format!("seat {:<6} {name}, {} {}", p.seat, p.role, p.peer));
    }
    out.extend([format!("status      {}", r.status())]);
    for why in invalid_because(c).into_iter().chain(unconfirmed_because(v)) {
        out.push(format!("            {why}"));
    }
    out.push(format!("result      {}", one_line(&result(v))));
    if let Some(w) = &r.witness {
        out.push(format!("witness     {w}: its times decide a loss on time"));
    }
    if let (Some(board), Some(outcome)) = (&v.board, &v.outcome)
        && board != outcome
    {
        out.push(format!("on board    {}", one_line(&board.to_string())));
    }
    out.push(format!("complete    {}", yes_no(v.complete)));
    out.push(format!("final       {}", finality(v.finality)));
    out.push(format!("verified    {}", yes_no(v.verified)));
    out.push(format!("envelopes   {}", v.envelopes));
    if !v.missing_reveals.is_empty() {
        let seats: Vec<String> = v.missing_reveals.iter().map(|s| s.to_string()).collect();
        out.push(format!("unrevealed  {}", seats.join(", ")));
    }
    section(&mut out, "proven faults", v.faults.iter().map(fault));
    let (open, dropped): (Vec<&ClaimView>, Vec<&ClaimView>) = v.claims.iter().partition(|c| c.open);
    let words = Words {
        players: &r.players,
        witness: r.witness.as_deref(),
    };
    section(
        &mut out,
        "open claims",
        open.into_iter().map(|c| words.claim(c)),
    );
    section(
        &mut out,
        "after the end, not changing the result",
        dropped.into_iter().map(|c| words.claim(c)),
    );
    section(&mut out, "notes", v.notes.iter().cloned());
    section(&mut out, "not validly signed", c.unsigned.iter().cloned());
    section(
        &mut out,
        "unconfirmed evidence",
        c.unconfirmed_evidence.iter().cloned(),
    );
    out.push(format!(
        "exit        {} ({})",
        r.exit,
        exit::meaning(r.exit)
    ));
    out.join("\n") + "\n"
}

/// The summary table of a directory, then a count by standing.
pub fn table(code: i32, reports: &[FileReport]) -> String {
    let header = ["FILE", "VARIANT", "STATUS", "RESULT", "EXIT"].map(str::to_owned);
    let rows: Vec<[String; 5]> = reports
        .iter()
        .map(|r| {
            let (variant, result) = match &r.checked {
                Ok(c) => (c.verdict.variant.clone(), result(&c.verdict)),
                Err(e) => ("-".to_owned(), e.to_string()),
            };
            [
                r.file.clone(),
                variant,
                r.status().to_owned(),
                result,
                r.exit.to_string(),
            ]
            .map(|cell| one_line(&cell))
        })
        .collect();
    let mut widths = header.clone().map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out: Vec<String> = std::iter::once(&header)
        .chain(&rows)
        .map(|row| {
            let cells: Vec<String> = row
                .iter()
                .zip(widths)
                .map(|(cell, w)| format!("{cell:<w$}"))
                .collect();
            cells.join("  ").trim_end().to_owned()
        })
        .collect();
    let count = |code: i32| reports.iter().filter(|r| r.exit == code).count();
    out.push(format!(
        "checked {}: {} verified, {} proven fault, {} unreadable or invalid, \
         {} unconfirmed; exit {code} ({})",
        reports.len(),
        count(exit::VERIFIED),
        count(exit::FAULT),
        count(exit::UNREADABLE),
        count(exit::UNCONFIRMED),
        exit::meaning(code),
    ));
    out.join("\n") + "\n"
}

/// Why a file that could be checked still counts as holding bad bytes.
fn invalid_because(c: &Checked) -> Vec<String> {
    let mut why = vec![];
    if !c.unsigned.is_empty() {
        why.push(format!(
            "{} byte strings are not validly signed envelopes of this game",
            c.unsigned.len()
        ));
    }
    if !c.unconfirmed_evidence.is_empty() {
        why.push(format!(
            "{} evidence entries do not check",
            c.unconfirmed_evidence.len()
        ));
    }
    why
}

/// Whether the result can still change (spec/PROTOCOL.md §10.5), in a line.
fn finality(f: Finality) -> &'static str {
    match f {
        Finality::Final => "yes: nothing a seat can still sign changes the result",
        Finality::UnlessWitness => {
            "yes, unless the witness is shown to have contradicted itself: its times decide \
             the loss on time"
        }
        Finality::Open => "no: what the file lacks may still come and change the result",
    }
}

/// Why a verdict without faults is not verified, in the terms a reader can act on.
/// The verdict's claims do not always say it: a file that lacks only the last close
/// has no claim against anyone, yet it is not complete.
fn unconfirmed_because(v: &Verdict) -> Vec<String> {
    if v.status != Status::Unconfirmed {
        return vec![];
    }
    let mut why = vec![];
    if v.outcome.is_none() && !v.declined && !v.withdrawn {
        why.push("the game is not over".to_owned());
    }
    if !v.complete {
        why.push("the file does not hold a two-step close by every seat".to_owned());
    }
    if !v.verified {
        why.push("a reveal still missing could change the result".to_owned());
    }
    let open = v.claims.iter().filter(|c| c.open).count();
    if open > 0 {
        why.push(format!("{open} claims are open"));
    }
    why
}

fn result(v: &Verdict) -> String {
    match &v.outcome {
        Some(o) => o.to_string(),
        None if v.declined => "declined: there was no game".to_owned(),
        None if v.withdrawn => "withdrawn by its proposer: there was no game".to_owned(),
        None => "none yet".to_owned(),
    }
}

fn fault(f: &Fault) -> String {
    format!(
        "{} ({}), chain {} of log {}, seq {}: {}: {}",
        f.seat,
        kebab(&f.role),
        f.at.chain.seat,
        f.at.chain.log.0,
        f.at.seq,
        f.kind.name(),
        one_line(&f.detail)
    )
}

/// What the report knows to say a claim in a player's words: who sat where, and the
/// witness. The JSON keeps the verdict's own terms (`about`, `evidence`).
struct Words<'a> {
    players: &'a [PlayerView],
    witness: Option<&'a str>,
}

impl Words<'_> {
    /// A seat as the report names it: `seat 1 (bob)`, or `seat 1` without a name.
    fn who(&self, seat: Seat) -> String {
        match self.players.iter().find(|p| p.seat == seat.0) {
            Some(p) if !p.name.is_empty() => format!("{seat} ({})", p.name),
            _ => seat.to_string(),
        }
    }

    /// One claim: what happened, whose doing, and what it means for the result.
    fn claim(&self, c: &ClaimView) -> String {
        let who = self.who(c.against);
        let by = c.by.map(|s| self.who(s));
        let evidence = one_line(&c.evidence);
        // What it hid, counted: the verifier says "N commitments never opened".
        let sealed = match evidence
            .strip_suffix(" commitments never opened")
            .and_then(|n| n.parse::<usize>().ok())
        {
            Some(1) => "the 1 value it sealed (a card, a setup or a secret)".to_owned(),
            Some(n) => format!("the {n} values it sealed (cards, a setup or secrets)"),
            None => format!("what it sealed ({evidence})"),
        };
        // A claim dropped at the end is one against a player the witness proved out of
        // time, or one the claimant let go by playing on.
        let decided = match self.witness {
            Some(w) => {
                format!("the witness {w} proved {who} out of time, so it cannot change the result")
            }
            None => "it cannot change the result".to_owned(),
        };
        match (c.about, c.open) {
            (ClaimAbout::WithheldReveal, false) => {
                format!("{who} never opened {sealed}: it stopped playing; {decided}")
            }
            (ClaimAbout::WithheldClose, false) => {
                format!("{who} never signed the end of the game: it stopped playing; {decided}")
            }
            (ClaimAbout::WithheldReveal, true) => {
                format!("{who} has not opened {sealed}: until it does, the result is not confirmed")
            }
            (ClaimAbout::WithheldClose, true) => format!(
                "{who} has not signed the end of the game ({evidence}): until it does, the \
                 file is not complete"
            ),
            (ClaimAbout::Timeout, open) => {
                let said = format!(
                    "{} says {who} let the agreed time pass ({evidence})",
                    by.unwrap_or_else(|| "the verifier".into())
                );
                match (open, self.witness) {
                    (false, _) => format!("{said}; dropped: play went on after it"),
                    (true, Some(w)) => {
                        format!("{said}; the witness {w} decides it by its times, and has not yet")
                    }
                    (true, None) => format!(
                        "{said}. No witness was agreed, so it stays a claim: nobody can prove \
                         when a message was not sent. With a witness both trust (`sealed new \
                         --witness ADDR`) it would be a loss on time"
                    ),
                }
            }
            (ClaimAbout::Abandoned, _) => format!(
                "{} says {who} stopped answering ({evidence})",
                by.unwrap_or_else(|| "the verifier".into())
            ),
            (ClaimAbout::Unfinished, _) => format!("{who} owes the next step: {evidence}"),
            (ClaimAbout::MissingEnvelopes, _) => {
                format!("messages of {who} are missing from the file: {evidence}")
            }
            (ClaimAbout::Disputed, _) => {
                format!("a stated effect of {who} is disputed and was never settled: {evidence}")
            }
            (ClaimAbout::Unaudited, _) => {
                format!("{who} left out part of the end-of-game check: {evidence}")
            }
            (ClaimAbout::WitnessLied, _) => format!(
                "the witness{} contradicted itself, against {who}: {evidence}",
                self.witness.map(|w| format!(" {w}")).unwrap_or_default()
            ),
        }
    }
}

/// The kebab-case name serde gives a unit variant (a claim's subject, a seat's role), so
/// the report and the JSON use the same words and cannot drift apart.
fn kebab(value: &impl serde::Serialize) -> String {
    // A unit variant is written as a JSON string: its name is what the quotes hold.
    match serde_json::to_string(value) {
        Ok(s) => match s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
            Some(name) => name.to_owned(),
            None => s,
        },
        Err(e) => format!("{e:?}"),
    }
}

fn section(out: &mut Vec<String>, title: &str, lines: impl Iterator<Item = String>) {
    let lines: Vec<String> = lines.map(|l| format!("  {}", one_line(&l))).collect();
    if !lines.is_empty() {
        out.push(format!("{title} ({})", lines.len()));
        out.extend(lines);
    }
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// Text from a transcript may hold newlines or control characters; keep each finding
/// on its own line and the terminal's state untouched.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}
