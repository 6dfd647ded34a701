//! The positions a view carries for a page that steps back through a game it cannot
//! replay (Chex, Cardmate, Tempête, Secret Stallmate; games/src/table/steps.rs): one per
//! ply of the score and the start. Each is read back as the page reads it (web/assets/steps.js) and compared with
//! the position the score's own text gives after as many plies, replayed by the game's
//! notation, not by its acts: every piece on its square, named as the score names
//! squares at that moment (Chex's box moves), and the pieces each ply took. They are
//! small too: the view of a game 200 plies long is measured with them and without
//! (`--nocapture` prints the figures).
//!
//! Secret Stallmate's player has no score while the game goes on: his steps are his own
//! army after each period, and are checked against the whole game's once it is over
//! (each of his positions is the revealed game's at the same move, his pieces alone).

use std::collections::BTreeMap;

use sealed_conformance::pair::Pace;

use sealed_games::cardmate::{self, Side};
use sealed_games::chex::engine::{self as chex_engine, Position as ChexPosition};
use sealed_games::table::steps::{ALPHABET, Steps};
use sealed_games::table::{Grid, TableView};
use sealed_games::tempete::score as tempete_score;

use crate::net::*;
use crate::pgn_read::{Pgn, read_score};
use crate::pgn_scores::cardmate_line;

/// At most this many bytes of JSON a position, on average, in a game 200 acts long:
/// a move is its changed cells and squares, a whole board (the start, Chex's box
/// moved) about a character a piece, its labels only when they change.
const BOUND: usize = 80;

/// A position: each piece's name by the name of its square.
type Pieces = BTreeMap<String, String>;

/// One position as the page reads it back: its pieces, what its ply took (names, in
/// order) and the squares it marks as moved.
#[derive(Debug)]
struct Read {
    pieces: Pieces,
    took: Vec<String>,
    last: Vec<String>,
}

/// Reads the steps back as steps.js does: a whole board's cells row by row (a run of
/// empty cells as its length), or the cells changed on the board before, named by the
/// labels in force.
fn read_back(steps: &Steps) -> Result<Vec<Read>, String> {
    let name = |b: u8| -> Result<String, String> {
        let k = ALPHABET
            .iter()
            .position(|x| *x == b)
            .ok_or(format!("{:?} is no piece letter", char::from(b)))?;
        let t = steps.tokens.get(k).ok_or(format!("no token {k}"))?;
        Ok(t.name.clone())
    };
    let (mut files, mut ranks) = (Vec::<String>::new(), Vec::<String>::new());
    let mut cells: Vec<Option<u8>> = vec![];
    let mut out = vec![];
    for (n, p) in steps.positions.iter().enumerate() {
        files = p.files.clone().unwrap_or(files);
        ranks = p.ranks.clone().unwrap_or(ranks);
        match &p.pieces {
            Some(full) => {
                cells.clear();
                let mut run = String::new();
                for b in full.bytes() {
                    if b.is_ascii_digit() {
                        run.push(char::from(b));
                        continue;
                    }
                    cells.extend(std::iter::repeat_n(None, run.parse().unwrap_or(0)));
                    run.clear();
                    cells.push(Some(b));
                }
                cells.extend(std::iter::repeat_n(None, run.parse().unwrap_or(0)));
            }
            None => {
                let mut at = String::new();
                for b in p.changed.bytes() {
                    if b.is_ascii_digit() {
                        at.push(char::from(b));
                        continue;
                    }
                    let i: usize = at.parse().map_err(|_| format!("position {n}: no cell"))?;
                    let cell = cells
                        .get_mut(i)
                        .ok_or(format!("position {n}: cell {i} off the board"))?;
                    *cell = (b != b'.').then_some(b);
                    at.clear();
                }
            }
        }
        let width = files.len();
        if width == 0 || cells.len() != width * ranks.len() {
            return Err(format!(
                "position {n}: {} cells on {width}×{}",
                cells.len(),
                ranks.len()
            ));
        }
        let mut pieces = Pieces::new();
        for (i, c) in cells.iter().enumerate() {
            if let Some(b) = c {
                pieces.insert(
                    format!("{}{}", files[i % width], ranks[i / width]),
                    name(*b)?,
                );
            }
        }
        let took = p.took.bytes().map(name).collect::<Result<_, _>>()?;
        out.push(Read {
            pieces,
            took,
            last: p.last.clone(),
        });
    }
    Ok(out)
}

/// Chex's positions after each ply of its score, its squares named in the box of the
/// moment, as its notation reads and plays them from the empty board.
fn chex_replayed(score: &Pgn) -> Vec<Pieces> {
    let limit = score
        .tag("PlyLimit")
        .map(|v| v.parse().expect("a ply limit"))
        .unwrap_or(0);
    let mut pos = ChexPosition::new(limit);
    let named = |pos: &ChexPosition| -> Pieces {
        let frame = chex_engine::Frame::of(&pos.board);
        pos.board
            .iter()
            .map(|(sq, p)| {
                (
                    frame.name(sq).expect("a square in its box"),
                    format!("{} {}", p.color, p.kind.name()),
                )
            })
            .collect()
    };
    let mut out = vec![named(&pos)];
    for ply in &score.moves {
        let w = chex_engine::read(&ply.san).expect("a ply in Chex's notation");
        let p = chex_engine::resolve(&pos, &w).expect("a ply of this position");
        pos.play_ply(&p).expect("a legal ply");
        out.push(named(&pos));
    }
    out
}

/// Cardmate's positions after each move of its score, each replayed from the start its
/// tags give by Cardmate's own score reader.
fn cardmate_replayed(score: &Pgn) -> Vec<Pieces> {
    (0..=score.moves.len())
        .map(|n| {
            let (pos, _) = cardmate::replay_score(&cardmate_line(score, n))
                .unwrap_or_else(|e| panic!("the first {n} moves replay: {e}"));
            cardmate::grid(&pos, Side::Forehand)
                .cells
                .into_iter()
                .filter_map(|c| Some((c.square, c.piece?.name)))
                .collect()
        })
        .collect()
}

/// Tempête's positions after each act of its score: the first n acts of the score,
/// written again alone, each replayed by Tempête's own score reader from its text (so
/// what a card did to the board is the reader's, not the view's); with each act's text.
fn tempete_replayed(text: &str) -> (Vec<Pieces>, Vec<String>) {
    let (rules, _, acts) =
        tempete_score::replay_acts(text).unwrap_or_else(|e| panic!("the score replays: {e}"));
    let positions = (0..=acts.len())
        .map(|n| {
            let prefix = tempete_score::score_text(&rules, &acts[..n]);
            let (_, state, _) = tempete_score::replay_state(&prefix)
                .unwrap_or_else(|e| panic!("the first {n} acts replay: {e}\n{prefix}"));
            Grid::chess(
                state.board.position(),
                sealed_games::chess::Color::White,
                |_| vec![],
            )
            .cells
            .into_iter()
            .filter_map(|c| Some((c.square, c.piece?.name)))
            .collect()
        })
        .collect();
    let names = (1..=acts.len()).map(|n| format!("act {n}")).collect();
    (positions, names)
}

/// Who `view` is (for messages), and its steps read back.
fn read_view(view: &TableView) -> (String, Vec<Read>) {
    let who = format!("{} seat {}", view.variant, view.seat);
    let steps = view
        .steps
        .as_ref()
        .unwrap_or_else(|| panic!("{who}: steps"));
    let read = read_back(steps).unwrap_or_else(|e| panic!("{who}: {e}"));
    (who, read)
}

/// The pieces of the board `view` shows, by square.
fn shown(view: &TableView, who: &str) -> Pieces {
    let grid = view
        .grid
        .as_ref()
        .unwrap_or_else(|| panic!("{who}: a board"));
    grid.cells
        .iter()
        .filter_map(|c| Some((c.square.clone(), c.piece.as_ref()?.name.clone())))
        .collect()
}

/// The pieces `before` has that `after` has not, by name (a multiset difference).
fn lost(before: &Pieces, after: &Pieces) -> Vec<String> {
    let mut left: Vec<&String> = after.values().collect();
    let mut out = vec![];
    for name in before.values() {
        match left.iter().position(|x| *x == name) {
            Some(i) => {
                left.swap_remove(i);
            }
            None => out.push(name.clone()),
        }
    }
    out.sort();
    out
}

/// Every position of `view`'s steps is its score's after as many plies, replayed, with
/// what its ply took and a moved piece on the last square it marks; the last is the
/// board the view shows.
fn each_step_is_the_scores(view: &TableView) {
    let (who, read) = read_view(view);
    let text = view
        .score
        .as_deref()
        .unwrap_or_else(|| panic!("{who}: a score"));
    let pgn = || read_score(text).unwrap_or_else(|e| panic!("{who}: {e}\n{text}"));
    let sans = |score: &Pgn| score.moves.iter().map(|p| p.san.clone()).collect();
    let (want, plies): (Vec<Pieces>, Vec<String>) = match view.variant.as_str() {
        "chex" => (chex_replayed(&pgn()), sans(&pgn())),
        "cardmate" => (cardmate_replayed(&pgn()), sans(&pgn())),
        "tempete" => tempete_replayed(text),
        other => panic!("{other}: no replay here"),
    };
    // A Tempête act may move nothing of its own (an interception), and a piece may be
    // lost on the square it reached (a trap): its marks are only checked to be squares.
    let marks_a_piece = view.variant != "tempete";
    assert_eq!(
        read.len(),
        want.len(),
        "{who}: a position for the start and each of the score's {} plies",
        plies.len()
    );
    for (n, (got, want)) in read.iter().zip(&want).enumerate() {
        let ply = n
            .checked_sub(1)
            .and_then(|i| plies.get(i))
            .map_or("the start", |p| p.as_str());
        assert_eq!(got.pieces, *want, "{who}: position {n}, after {ply}");
        let mut took = got.took.clone();
        took.sort();
        let before = n.checked_sub(1).map(|i| &read[i].pieces);
        assert_eq!(
            took,
            before.map(|b| lost(b, want)).unwrap_or_default(),
            "{who}: what {ply} took"
        );
        match got.last.last() {
            None if marks_a_piece => assert_eq!(n, 0, "{who}: {ply} marks no square"),
            None => {}
            Some(to) if marks_a_piece => assert!(
                got.pieces.contains_key(to),
                "{who}: {ply} marks {:?}, and {to} holds no piece",
                got.last
            ),
            Some(_) => assert!(
                got.last.iter().all(|sq| sq.len() == 2),
                "{who}: {ply} marks {:?}",
                got.last
            ),
        }
    }
    let shown = shown(view, &who);
    assert_eq!(
        read.last().map(|r| &r.pieces),
        Some(&shown),
        "{who}: the last position is the board shown"
    );
}

/// A game of `variant` played by the bots until its score has 200 acts, or `None` when
/// it ended before (a king taken).
fn at_200(variant: &'static str, options: &[(&str, &str)], nonce: u8) -> Option<Net> {
    let opts: Vec<(String, String)> = options
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let mut net = Net::with_terms(variant, terms_with(variant, &opts, nonce), nonce);
    let long = |n: &Net| {
        n.sessions[0]
            .view()
            .steps
            .is_some_and(|s| s.positions.len() > 200)
    };
    net.run_until(Mode::Bot, |n| long(n) || n.all_done());
    long(&net).then_some(net)
}

/// A long game's steps, checked at both seats and measured.
fn measured(variant: &'static str, options: &[(&str, &str)]) {
    let net = (1..40)
        .find_map(|nonce| at_200(variant, options, nonce))
        .unwrap_or_else(|| panic!("{variant}: no bot game reached 200 acts"));
    for s in &net.sessions {
        each_step_is_the_scores(&s.view());
    }
    let view = net.sessions[0].view();
    let steps = view.steps.clone().expect("steps");
    let with = serde_json::to_string(&view).expect("json").len();
    let mut bare = view.clone();
    bare.steps = None;
    let without = serde_json::to_string(&bare).expect("json").len();
    let part = serde_json::to_string(&steps).expect("json").len();
    let acts = steps.positions.len() - 1;
    println!(
        "{variant}: {acts} acts; the view {without} bytes without steps, {with} with (steps {part} bytes, {} a position)",
        part / steps.positions.len()
    );
    assert!(
        part <= BOUND * steps.positions.len(),
        "{variant}: steps of {part} bytes for {acts} acts"
    );
}

/// Games of `variant` played to their end by the bots (the tests' ply limits), each
/// seat's steps checked after every round of acts and at the end: a game under way, a
/// capture, the box moving, an ended game's score with its result.
fn played_through(variant: &'static str) {
    for nonce in 1..4 {
        let mut net = Net::new(variant, nonce);
        let mut checked = 0;
        for _ in 0..20_000 {
            let moved = net.step(Mode::Bot);
            let views: Vec<TableView> = net.sessions.iter().map(|s| s.view()).collect();
            for v in views.iter().filter(|v| v.steps.is_some()) {
                each_step_is_the_scores(v);
                checked += 1;
            }
            if !moved && (net.pace == Pace::Once || net.all_done()) {
                break;
            }
        }
        for s in &net.sessions {
            each_step_is_the_scores(&s.view());
        }
        assert!(
            checked > 10,
            "{variant} nonce {nonce}: {checked} views checked"
        );
    }
}

#[test]
fn chex_views_carry_each_acts_position_compactly() {
    measured("chex", &[]);
}

#[test]
fn cardmate_views_carry_each_acts_position_compactly() {
    measured("cardmate", &[("setup", "random")]);
}

#[test]
fn tempete_views_carry_each_acts_position_compactly() {
    measured("tempete", &[]);
}

#[test]
fn tempete_steps_are_the_positions_of_its_score() {
    played_through("tempete");
}

#[test]
fn chex_steps_are_the_positions_of_its_score() {
    played_through("chex");
}

#[test]
fn cardmate_steps_are_the_positions_of_its_score() {
    played_through("cardmate");
}

/// Secret Stallmate's positions after each move of its score (GAMES §5.7), read by the
/// game's own score reader (which replays every attempt through a referee) and each
/// move played on a board of its own.
fn stallmate_replayed(text: &str) -> Vec<Pieces> {
    let r = sealed_games::stallmate::record::read(text)
        .unwrap_or_else(|e| panic!("the score reads: {e}\n{text}"));
    let named = |pos: &sealed_games::chess::Position| -> Pieces {
        Grid::chess(pos, sealed_games::chess::Color::White, |_| vec![])
            .cells
            .into_iter()
            .filter_map(|c| Some((c.square, c.piece?.name)))
            .collect()
    };
    let mut pos = r.start_position();
    let mut out = vec![named(&pos)];
    for turn in r.history().iter().chain(r.current()) {
        let Some((from, to, promotion)) = turn.moved().and_then(|a| a.squares()) else {
            continue;
        };
        let mv = pos
            .find_legal(from, to, promotion)
            .unwrap_or_else(|| panic!("{from}-{to} is legal where the score says yes"));
        pos = pos.play_unchecked(&mv);
        out.push(named(&pos));
    }
    out
}

/// A Stallmate view's steps: with a score (the referee, or the game over), each is the
/// score's position after as many moves; without (a player while the game goes on), they
/// hold his own army alone, one a period, his own moves marking the two squares they
/// moved. The last is the board shown either way. Returns the positions read.
fn stallmate_steps_hold(view: &TableView) -> Vec<Pieces> {
    let (who, read) = read_view(view);
    let positions: Vec<Pieces> = read.iter().map(|r| r.pieces.clone()).collect();
    if let Some(text) = view.score.as_deref() {
        assert_eq!(
            positions,
            stallmate_replayed(text),
            "{who}: the score's positions"
        );
    } else {
        let side = view.side.clone().unwrap_or_else(|| panic!("{who}: a side"));
        for (n, r) in read.iter().enumerate() {
            assert!(
                r.pieces.values().all(|name| name.starts_with(&side)),
                "{who}: position {n} shows only {side}'s pieces: {:?}",
                r.pieces
            );
            // White moves in odd periods: a player's own period marks his move's
            // squares, the other's at most the square where he lost a piece.
            let own = n > 0 && (n % 2 == 1) == (side == "White");
            if own {
                assert_eq!(r.last.len(), 2, "{who}: his move {n} marks its squares");
                // A piece of his where it went, or his king castled (written king onto
                // rook, the king and the rook then elsewhere, as in Chess960).
                let king = format!("{side} king");
                let castled = read[n - 1].pieces.get(&r.last[0]) == Some(&king);
                assert!(
                    r.pieces.contains_key(&r.last[1]) || castled,
                    "{who}: {n} {:?}",
                    r.last
                );
            } else {
                assert!(
                    r.last.len() <= 1,
                    "{who}: the opponent's period {n}: {:?}",
                    r.last
                );
            }
        }
    }
    let shown = shown(view, &who);
    assert_eq!(
        positions.last(),
        Some(&shown),
        "{who}: the last position is the board shown"
    );
    positions
}

#[test]
fn stallmate_steps_are_each_seats_positions() {
    let mut whole_checked = 0;
    for nonce in 1..4 {
        let mut net = Net::new("stallmate", nonce);
        // What each player saw of his own army while the game went on, by seat.
        let mut own: [Vec<Pieces>; 2] = [vec![], vec![]];
        for _ in 0..20_000 {
            let moved = net.step(Mode::Bot);
            for s in &net.sessions {
                let v = s.view();
                if v.steps.is_none() {
                    continue;
                }
                let positions = stallmate_steps_hold(&v);
                if v.score.is_none() && v.seat < 2 {
                    own[v.seat as usize] = positions;
                } else {
                    whole_checked += 1;
                }
            }
            if !moved && (net.pace == Pace::Once || net.all_done()) {
                break;
            }
        }
        assert!(net.all_done(), "nonce {nonce}: the game ended");
        // Once over, every seat sees the whole game; each player's own positions of
        // before are the whole game's, his pieces alone.
        let whole = stallmate_steps_hold(&net.sessions[2].view());
        for (seat, side) in [(0, "White"), (1, "Black")] {
            let mine = &own[seat];
            assert!(
                mine.len() > 2,
                "nonce {nonce}: seat {seat} stepped {}",
                mine.len()
            );
            for (n, pieces) in mine.iter().enumerate() {
                let want: Pieces = whole[n]
                    .iter()
                    .filter(|(_, name)| name.starts_with(side))
                    .map(|(sq, name)| (sq.clone(), name.clone()))
                    .collect();
                assert_eq!(*pieces, want, "nonce {nonce}: {side}'s position {n}");
            }
            assert_eq!(
                stallmate_steps_hold(&net.sessions[seat].view()),
                whole,
                "nonce {nonce}: seat {seat} sees the whole game once it is over"
            );
        }
    }
    assert!(
        whole_checked > 10,
        "{whole_checked} referee's views checked"
    );
}
