//! The Cardmate rules, one at a time, on small hand-built positions: how each rank moves
//! and captures for both sides, the capture rules and the same-suit compulsion,
//! promotion, Kings, the palace, having no move, the ply limit, the notation, the score
//! format, the suit-shuffled setup and the game's face on the protocol
//! (spec/GAMES.md §2).
//!
//! Long on purpose: one small test per rule of §2, each on its own position, read in the
//! order of the spec; split, the rules would lose their one place.
//!
//! Expected square sets are written out by hand from the rules, never computed with the
//! engine's own direction tables.

use sealed_games::cardmate::{
    self, Act, Board, Card, Cardmate, End, Mark, Move, NineRetreat, NoMove, Options, Piece,
    Position, Rank, Setup, Side, Square, Suit,
};
use sealed_games::replay::ReplayError;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, EnvRef, Name, Seat};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::outcome::SeatResult;
use sealed_protocol::proposal::{Proposal, Role, SeatSpec, Terms, VERSION};
use sealed_protocol::rules::{ActCtx, OpenedSlot, Rules};

const F: Side = Side::Forehand;
const R: Side = Side::Rearhand;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

fn sq(s: &str) -> Square {
    Square::parse(s).unwrap_or_else(|| panic!("no square {s:?}"))
}

fn card(s: &str) -> Card {
    Card::parse(s).unwrap_or_else(|| panic!("no card {s:?}"))
}

/// A position with exactly these cards, `to_move` to move.
fn position(to_move: Side, cards: &[(Side, &str, &str)]) -> Position {
    let mut b = Board::empty();
    for &(side, c, at) in cards {
        assert!(b.get(sq(at)).is_none(), "{at} given twice");
        b.set(
            sq(at),
            Some(Piece {
                card: card(c),
                side,
            }),
        );
    }
    let mut pos = Position::start(b);
    pos.to_move = to_move;
    pos
}

/// A space-separated list of squares or moves, sorted.
fn sorted(list: &str) -> Vec<String> {
    let mut v: Vec<String> = list.split_whitespace().map(str::to_owned).collect();
    v.sort();
    let n = v.len();
    v.dedup();
    assert_eq!(n, v.len(), "a square written twice in {list:?}");
    v
}

/// The squares a card can go to by its rank (pseudo-legal: before the compulsion),
/// sorted, a promoting twin counted once.
fn reach_with(pos: &Position, opts: &Options, c: &str) -> Vec<String> {
    let at = pos.board.find(card(c)).expect("the card is on the board");
    let side = pos.board.get(at).expect("occupied").side;
    let mut v: Vec<String> = cardmate::pseudo_moves(&pos.board, side, opts)
        .iter()
        .filter(|m| m.card == card(c))
        .map(|m| {
            assert_eq!(m.from, at, "moves start where the card stands");
            m.to.to_string()
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

fn reach(pos: &Position, c: &str) -> Vec<String> {
    reach_with(pos, &Options::default(), c)
}

/// The squares of a lone card on an empty board.
fn alone_with(side: Side, c: &str, at: &str, opts: &Options) -> Vec<String> {
    reach_with(&position(side, &[(side, c, at)]), opts, c)
}

fn alone(side: Side, c: &str, at: &str) -> Vec<String> {
    alone_with(side, c, at, &Options::default())
}

/// The legal moves of the side to move, written in the notation (no marks), sorted.
fn legal_with(pos: &Position, opts: &Options) -> Vec<String> {
    let mut v: Vec<String> = pos
        .legal_moves(opts)
        .iter()
        .map(|m| cardmate::write_move(m, Mark::None))
        .collect();
    v.sort();
    v
}

fn legal(pos: &Position) -> Vec<String> {
    legal_with(pos, &Options::default())
}

/// The legal moves of one card, written, sorted.
fn legal_of(pos: &Position, c: &str) -> Vec<String> {
    legal(pos)
        .into_iter()
        .filter(|m| m.starts_with(c))
        .collect()
}

/// Resolves a written move against a position.
fn resolve_with(
    pos: &Position,
    token: &str,
    opts: &Options,
) -> Result<Move, cardmate::NotationError> {
    let w = cardmate::parse_move(token)?;
    cardmate::resolve_move(pos, &w, opts)
}

fn resolve(pos: &Position, token: &str) -> Result<Move, cardmate::NotationError> {
    resolve_with(pos, token, &Options::default())
}

/// Plays a written move (which must be legal) and returns its mark.
fn play_with(pos: &mut Position, token: &str, opts: &Options) -> Mark {
    let m = resolve_with(pos, token, opts).unwrap_or_else(|e| panic!("{token}: {e}"));
    pos.play(&m, opts)
        .unwrap_or_else(|e| panic!("{token}: {e}"))
}

fn play(pos: &mut Position, token: &str) -> Mark {
    play_with(pos, token, &Options::default())
}

fn start() -> Position {
    Position::start(Board::predefined())
}

fn replay(text: &str) -> Result<(Position, usize), ReplayError> {
    cardmate::replay_score(text)
}

fn unreadable(text: &str) -> String {
    match replay(text) {
        Err(ReplayError::Unreadable(why)) => why,
        other => panic!("{text:?} should be unreadable, got {other:?}"),
    }
}

fn illegal(text: &str) -> (usize, String) {
    match replay(text) {
        Err(ReplayError::Illegal { ply, reason }) => (ply, reason),
        other => panic!("{text:?} should be illegal, got {other:?}"),
    }
}

fn score_file(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/scores/cardmate/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("score file")
}

fn flip_rank(s: Square) -> Square {
    Square::new(s.file(), 9 - s.rank()).expect("on board")
}

fn flip_file(s: Square) -> Square {
    Square::new(9 - s.file(), s.rank()).expect("on board")
}

/// Every move of a lone card: (destination, promotes), sorted.
fn lone_moves(side: Side, c: Card, at: Square, opts: &Options) -> Vec<(Square, bool)> {
    let mut b = Board::empty();
    b.set(at, Some(Piece { card: c, side }));
    let mut v: Vec<(Square, bool)> = cardmate::pseudo_moves(&b, side, opts)
        .iter()
        .map(|m| (m.to, m.promote))
        .collect();
    v.sort();
    v
}

const KNIGHT_E4: &str = "d6 f6 c5 g5 c3 g3 d2 f2";
const ROOK_E4: &str = "e5 e6 e7 e8 e9 e3 e2 e1 e0 a4 b4 c4 d4 f4 g4 h4 i4 j4";
const BISHOP_E4: &str = "f5 g6 h7 i8 j9 d5 c6 b7 a8 f3 g2 h1 i0 d3 c2 b1 a0";
const KING_E4: &str = "d3 e3 f3 d4 f4 d5 e5 f5";

fn join(parts: &[&str]) -> String {
    parts.join(" ")
}

// ---------------------------------------------------------------------------------------
// One to Seven: steps
// ---------------------------------------------------------------------------------------

#[test]
fn one_steps_straight_forward_and_quietly_back() {
    assert_eq!(alone(F, "1C", "e3"), sorted("e4 e2"));
    assert_eq!(alone(F, "1C", "e4"), sorted("e5 e3"));
    assert_eq!(alone(R, "1C", "e6"), sorted("e5 e7"));
    assert_eq!(alone(R, "1C", "e5"), sorted("e4 e6"));
}

#[test]
fn two_steps_diagonally_forward_and_quietly_back() {
    assert_eq!(alone(F, "2C", "e4"), sorted("d5 f5 e3"));
    assert_eq!(alone(R, "2C", "e5"), sorted("d4 f4 e6"));
}

#[test]
fn three_steps_diagonally_forward_forward_and_back() {
    assert_eq!(alone(F, "3C", "e4"), sorted("d5 e5 f5 e3"));
    assert_eq!(alone(R, "3C", "e5"), sorted("d4 e4 f4 e6"));
}

#[test]
fn four_steps_diagonally_forward_sideways_and_back() {
    assert_eq!(alone(F, "4C", "e4"), sorted("d5 f5 d4 f4 e3"));
    assert_eq!(alone(R, "4C", "e5"), sorted("d4 f4 d5 f5 e6"));
}

#[test]
fn five_steps_diagonally_forward_sideways_forward_and_back() {
    assert_eq!(alone(F, "5C", "e4"), sorted("d5 e5 f5 d4 f4 e3"));
    assert_eq!(alone(R, "5C", "e5"), sorted("d4 e4 f4 d5 f5 e6"));
}

#[test]
fn six_steps_diagonally_both_ways_sideways_and_back() {
    assert_eq!(alone(F, "6C", "e4"), sorted("d5 f5 d4 f4 d3 f3 e3"));
    assert_eq!(alone(R, "6C", "e5"), sorted("d4 f4 d5 f5 d6 f6 e6"));
}

#[test]
fn seven_steps_to_every_neighbour() {
    assert_eq!(alone(F, "7C", "e4"), sorted(KING_E4));
    assert_eq!(alone(R, "7C", "e5"), sorted("d4 e4 f4 d5 f5 d6 e6 f6"));
}

#[test]
fn steps_stop_at_the_edge_of_the_board() {
    // Forehand's far rank: nothing forwards.
    assert_eq!(alone(F, "1C", "c9"), sorted("c8"));
    assert_eq!(alone(F, "2C", "a9"), sorted("a8"));
    assert_eq!(alone(F, "7C", "a9"), sorted("b9 b8 a8"));
    assert_eq!(alone(F, "3C", "j0"), sorted("i1 j1"));
    // Rearhand's far rank is rank 0, and its back is rank 1.
    assert_eq!(alone(R, "1C", "c0"), sorted("c1"));
    assert_eq!(alone(R, "2C", "j9"), sorted("i8"));
    assert_eq!(alone(R, "7C", "a0"), sorted("b0 b1 a1"));
    assert_eq!(alone(R, "6C", "j5"), sorted("i4 i5 i6 j6"));
}

#[test]
fn low_cards_capture_only_in_their_own_directions() {
    // A Deuce surrounded by enemy cards of other suits takes only diagonally forwards.
    let pos = position(
        F,
        &[
            (F, "2C", "e4"),
            (R, "5D", "d5"),
            (R, "5H", "f5"),
            (R, "5S", "e5"),
            (R, "6D", "d4"),
            (R, "6H", "f4"),
            (R, "7D", "e3"),
            (R, "7H", "d3"),
            (R, "7S", "f3"),
        ],
    );
    assert_eq!(reach(&pos, "2C"), sorted("d5 f5"));
    assert_eq!(legal_of(&pos, "2C"), sorted("2C:d5 2C:f5"));
    // The same for Rearhand, whose forwards is down.
    let pos = position(
        R,
        &[
            (R, "3D", "e5"),
            (F, "8C", "d4"),
            (F, "8H", "e4"),
            (F, "8S", "f4"),
            (F, "9C", "d5"),
            (F, "9H", "e6"),
        ],
    );
    assert_eq!(legal_of(&pos, "3D"), sorted("3D:d4 3D:e4 3D:f4"));
    // A Six takes diagonally backwards but not straight back.
    let pos = position(F, &[(F, "6C", "e4"), (R, "9D", "d3"), (R, "9H", "e3")]);
    assert_eq!(reach(&pos, "6C"), sorted("d5 f5 d4 f4 d3 f3"));
    let pos = position(R, &[(R, "6C", "e5"), (F, "9D", "f6"), (F, "9H", "e6")]);
    assert_eq!(reach(&pos, "6C"), sorted("d4 f4 d5 f5 d6 f6"));
    // Fours and Fives take sideways.
    let pos = position(F, &[(F, "4C", "e4"), (R, "9D", "d4"), (R, "XH", "e5")]);
    assert_eq!(reach(&pos, "4C"), sorted("d5 f5 d4 f4 e3"));
    let pos = position(F, &[(F, "5C", "e4"), (R, "9D", "f4"), (R, "XH", "e5")]);
    assert_eq!(reach(&pos, "5C"), sorted("d5 e5 f5 d4 f4 e3"));
}

#[test]
fn one_takes_straight_forward_only() {
    let pos = position(F, &[(F, "1C", "e2"), (R, "5D", "e3"), (R, "5H", "d3")]);
    assert_eq!(legal_of(&pos, "1C"), sorted("1C:e3 1Ce1"));
    let pos = position(R, &[(R, "1C", "e7"), (F, "5D", "e6"), (F, "5H", "f6")]);
    assert_eq!(legal_of(&pos, "1C"), sorted("1C:e6 1Ce8"));
    // Blocked by its own card.
    let pos = position(F, &[(F, "1C", "e2"), (F, "5D", "e3")]);
    assert_eq!(reach(&pos, "1C"), sorted("e1"));
}

#[test]
fn the_quiet_step_back_never_captures() {
    for c in ["1C", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C"] {
        // Forehand: an enemy card of another suit straight behind cannot be taken.
        let pos = position(F, &[(F, c, "e4"), (R, "KD", "e3")]);
        assert!(!reach(&pos, c).contains(&"e3".into()), "{c} took back");
        // Rearhand: straight behind is up.
        let pos = position(R, &[(R, c, "e5"), (F, "KD", "e6")]);
        assert!(!reach(&pos, c).contains(&"e6".into()), "{c} took back");
        // Nor can it step back onto its own card.
        let pos = position(F, &[(F, c, "e4"), (F, "KD", "e3")]);
        assert!(!reach(&pos, c).contains(&"e3".into()), "{c} onto its own");
    }
    // Not even a same-suit lower card straight behind: no capture, no compulsion.
    let pos = position(F, &[(F, "2C", "e4"), (R, "1C", "e3")]);
    assert_eq!(legal(&pos), sorted("2Cd5 2Cf5"));
}

// ---------------------------------------------------------------------------------------
// Eight, Nine, Ten, Jack, Queen, King, Ace
// ---------------------------------------------------------------------------------------

#[test]
fn eight_leaps_as_a_knight_and_steps_quietly_back() {
    assert_eq!(alone(F, "8C", "e4"), sorted(&join(&[KNIGHT_E4, "e3"])));
    assert_eq!(alone(R, "8C", "e4"), sorted(&join(&[KNIGHT_E4, "e5"])));
    assert_eq!(alone(F, "8C", "a0"), sorted("b2 c1"));
    assert_eq!(alone(R, "8C", "a0"), sorted("b2 c1 a1"));
    assert_eq!(alone(R, "8C", "j9"), sorted("i7 h8"));
    assert_eq!(alone(F, "8C", "j9"), sorted("i7 h8 j8"));
}

#[test]
fn eight_jumps_over_cards_and_takes_on_its_leaps() {
    // Surrounded by its own cards, it still leaps.
    let mut cards = vec![(F, "8C", "e4")];
    let own = ["2D", "3D", "4D", "5D", "6D", "7D", "2H", "3H"];
    for (c, at) in own
        .iter()
        .zip(["d3", "e3", "f3", "d4", "f4", "d5", "e5", "f5"])
    {
        cards.push((F, *c, at));
    }
    cards.push((R, "QD", "d6"));
    cards.push((F, "QH", "f6"));
    let pos = position(F, &cards);
    assert_eq!(reach(&pos, "8C"), sorted("d6 c5 g5 c3 g3 d2 f2"));
}

#[test]
fn nine_slides_diagonally_and_steps_quietly_back() {
    assert_eq!(alone(F, "9C", "e4"), sorted(&join(&[BISHOP_E4, "e3"])));
    assert_eq!(alone(R, "9C", "e4"), sorted(&join(&[BISHOP_E4, "e5"])));
    assert_eq!(alone(F, "9C", "a0"), sorted("b1 c2 d3 e4 f5 g6 h7 i8 j9"));
    assert_eq!(
        alone(R, "9C", "a0"),
        sorted("b1 c2 d3 e4 f5 g6 h7 i8 j9 a1")
    );
}

#[test]
fn nine_stops_at_the_first_card() {
    let pos = position(
        F,
        &[
            (F, "9C", "e4"),
            (F, "2C", "g6"), // own: stops before
            (R, "5D", "c6"), // enemy of another suit: taken, stops
            (R, "XC", "g2"), // enemy of its suit, higher: stops before
            (R, "KH", "b1"), // beyond a nearer card
            (R, "2H", "c2"), // enemy: taken
            (R, "AD", "e3"), // straight behind: no quiet retreat
        ],
    );
    assert_eq!(reach(&pos, "9C"), sorted("f5 d5 c6 f3 d3 c2"));
}

#[test]
fn nine_long_retreat_is_an_option() {
    let any = Options {
        nine_retreat: NineRetreat::Any,
        ..Options::default()
    };
    assert_eq!(
        alone_with(F, "9C", "e4", &any),
        sorted(&join(&[BISHOP_E4, "e3 e2 e1 e0"]))
    );
    assert_eq!(
        alone_with(R, "9C", "e4", &any),
        sorted(&join(&[BISHOP_E4, "e5 e6 e7 e8 e9"]))
    );
    assert_eq!(
        alone_with(R, "9C", "e5", &any),
        sorted("d4 c3 b2 a1 f4 g3 h2 i1 j0 d6 c7 b8 a9 f6 g7 h8 i9 e6 e7 e8 e9")
    );
    // It stops before the first card, its own or the enemy's, and never takes.
    let pos = position(F, &[(F, "9C", "e4"), (F, "2C", "e1")]);
    assert_eq!(
        reach_with(&pos, &any, "9C"),
        sorted(&join(&[BISHOP_E4, "e3 e2"]))
    );
    let pos = position(F, &[(F, "9C", "e4"), (R, "2D", "e2")]);
    assert_eq!(
        reach_with(&pos, &any, "9C"),
        sorted(&join(&[BISHOP_E4, "e3"]))
    );
    let pos = position(R, &[(R, "9C", "e4"), (F, "KD", "e6")]);
    assert_eq!(
        reach_with(&pos, &any, "9C"),
        sorted(&join(&[BISHOP_E4, "e5"]))
    );
    // The default is one step.
    let pos = position(F, &[(F, "9C", "e4")]);
    assert_eq!(reach(&pos, "9C"), sorted(&join(&[BISHOP_E4, "e3"])));
}

#[test]
fn ten_slides_orthogonally_both_ways_for_both_sides() {
    assert_eq!(alone(F, "XC", "e4"), sorted(ROOK_E4));
    assert_eq!(alone(R, "XC", "e4"), sorted(ROOK_E4));
    assert_eq!(
        alone(F, "XC", "a0"),
        sorted("a1 a2 a3 a4 a5 a6 a7 a8 a9 b0 c0 d0 e0 f0 g0 h0 i0 j0")
    );
}

#[test]
fn ten_stops_at_the_first_card_and_takes_what_the_suits_allow() {
    let pos = position(
        F,
        &[
            (F, "XC", "e4"),
            (F, "2D", "e6"), // own card: stops before it
            (R, "5D", "c4"), // another suit: taken
            (R, "2H", "b4"), // behind c4: out of reach
            (R, "QC", "g4"), // own suit, higher: not taken
            (R, "3H", "e1"), // another suit: taken
        ],
    );
    assert_eq!(reach(&pos, "XC"), sorted("e5 e3 e2 e1 d4 c4 f4"));
}

#[test]
fn jack_leaps_or_goes_one_or_two_squares_in_eight_directions() {
    let slide = "e5 e6 e3 e2 d4 c4 f4 g4 f5 g6 d5 c6 f3 g2 d3 c2";
    assert_eq!(alone(F, "JC", "e4"), sorted(&join(&[KNIGHT_E4, slide])));
    assert_eq!(alone(R, "JC", "e4"), sorted(&join(&[KNIGHT_E4, slide])));
    assert_eq!(alone(F, "JC", "a0"), sorted("b2 c1 a1 a2 b0 c0 b1 c2"));
    assert_eq!(alone(R, "JC", "j9"), sorted("i7 h8 j8 j7 i9 h9 i8 h7"));
}

#[test]
fn jack_two_square_move_needs_the_square_between_empty() {
    // Hemmed in by its own cards, only the leaps remain.
    let mut cards = vec![(F, "JC", "e4")];
    let own = ["2D", "3D", "4D", "5D", "6D", "7D", "2H", "3H"];
    for (c, at) in own
        .iter()
        .zip(["d3", "e3", "f3", "d4", "f4", "d5", "e5", "f5"])
    {
        cards.push((F, *c, at));
    }
    assert_eq!(reach(&position(F, &cards), "JC"), sorted(KNIGHT_E4));
    // An enemy card one square away is taken, and blocks the second square.
    let pos = position(F, &[(F, "JC", "e4"), (R, "QD", "e5"), (R, "2H", "f5")]);
    let r = reach(&pos, "JC");
    assert!(r.contains(&"e5".into()) && r.contains(&"f5".into()));
    assert!(!r.contains(&"e6".into()) && !r.contains(&"g6".into()));
    // An enemy card two squares away is taken.
    let pos = position(F, &[(F, "JC", "e4"), (R, "QD", "e6")]);
    assert!(reach(&pos, "JC").contains(&"e6".into()));
    // Three squares away is too far.
    assert!(!alone(F, "JC", "e4").contains(&"e7".into()));
}

#[test]
fn queen_slides_in_eight_directions() {
    assert_eq!(alone(F, "QC", "e4"), sorted(&join(&[ROOK_E4, BISHOP_E4])));
    assert_eq!(alone(R, "QC", "e4"), sorted(&join(&[ROOK_E4, BISHOP_E4])));
    let pos = position(
        F,
        &[
            (F, "QC", "e4"),
            (R, "2D", "e7"),
            (F, "2H", "g6"),
            (R, "KC", "a4"),
            (R, "JC", "f4"),
        ],
    );
    let expect = "e5 e6 e7 e3 e2 e1 e0 b4 c4 d4 f4 f5 d5 c6 b7 a8 f3 g2 h1 i0 d3 c2 b1 a0";
    assert_eq!(reach(&pos, "QC"), sorted(expect));
}

#[test]
fn king_steps_one_square_in_eight_directions() {
    assert_eq!(alone(F, "KC", "e4"), sorted(KING_E4));
    assert_eq!(alone(R, "KC", "e4"), sorted(KING_E4));
    assert_eq!(alone(F, "KC", "e0"), sorted("d0 f0 d1 e1 f1"));
    assert_eq!(alone(R, "KC", "f9"), sorted("e9 g9 e8 f8 g8"));
    let pos = position(F, &[(F, "KC", "e4"), (F, "2D", "e5"), (R, "2H", "f5")]);
    assert_eq!(reach(&pos, "KC"), sorted("d3 e3 f3 d4 f4 d5 f5"));
}

#[test]
fn ace_moves_as_queen_and_knight() {
    assert_eq!(
        alone(F, "AC", "e4"),
        sorted(&join(&[ROOK_E4, BISHOP_E4, KNIGHT_E4]))
    );
    assert_eq!(
        alone(R, "AC", "e4"),
        sorted(&join(&[ROOK_E4, BISHOP_E4, KNIGHT_E4]))
    );
    assert_eq!(
        alone(F, "AC", "a0"),
        sorted(
            "a1 a2 a3 a4 a5 a6 a7 a8 a9 b0 c0 d0 e0 f0 g0 h0 i0 j0 b1 c2 d3 e4 f5 g6 h7 i8 j9 b2 c1"
        )
    );
}

#[test]
fn every_rank_moves_for_rearhand_as_for_forehand_mirrored() {
    // Rearhand's forwards is down: its moves from (f, 9 − r) are Forehand's from (f, r)
    // turned over; and every rank moves the same to the left and to the right.
    for opts in [
        Options::default(),
        Options {
            nine_retreat: NineRetreat::Any,
            ..Options::default()
        },
    ] {
        for rank in Rank::ALL {
            let c = Card::new(rank, Suit::Hearts);
            for at in Square::all() {
                let fore = lone_moves(F, c, at, &opts);
                let mut turned: Vec<(Square, bool)> = fore
                    .iter()
                    .map(|&(to, promote)| (flip_rank(to), promote))
                    .collect();
                turned.sort();
                assert_eq!(lone_moves(R, c, flip_rank(at), &opts), turned, "{c} {at}");
                let mut mirrored: Vec<(Square, bool)> = fore
                    .iter()
                    .map(|&(to, promote)| (flip_file(to), promote))
                    .collect();
                mirrored.sort();
                assert_eq!(lone_moves(F, c, flip_file(at), &opts), mirrored, "{c} {at}");
            }
        }
    }
}

#[test]
fn moves_depend_on_rank_not_suit() {
    for rank in Rank::ALL {
        for at in ["e4", "a0", "j5", "c8"] {
            let base = lone_moves(F, Card::new(rank, Suit::Clubs), sq(at), &Options::default());
            for suit in Suit::ALL {
                assert_eq!(
                    lone_moves(F, Card::new(rank, suit), sq(at), &Options::default()),
                    base
                );
            }
        }
    }
}

#[test]
fn the_start_position_has_38_moves_for_either_side() {
    assert_eq!(start().legal_moves(&Options::default()).len(), 38);
    let mut p = start();
    p.to_move = R;
    assert_eq!(p.legal_moves(&Options::default()).len(), 38);
    // A few cards, by hand: 4C can only go diagonally forwards to i3; the Deuce of
    // Spades diagonally forwards or quietly back onto the empty b1; the Nines out
    // through b1 and i1; the Tens, Eights, Queens and Kings are shut in.
    let p = start();
    assert_eq!(legal_of(&p, "4C"), sorted("4Ci3"));
    assert_eq!(legal_of(&p, "2S"), sorted("2Sa3 2Sc3 2Sb1"));
    assert_eq!(legal_of(&p, "1H"), sorted("1Hg3"));
    assert_eq!(legal_of(&p, "9C"), sorted("9Cb1"));
    assert_eq!(legal_of(&p, "9H"), sorted("9Hi1"));
    for shut in ["XS", "XC", "8H", "8D", "QH", "QD", "KC", "KH"] {
        assert_eq!(legal_of(&p, shut), Vec::<String>::new(), "{shut}");
    }
}

// ---------------------------------------------------------------------------------------
// Captures
// ---------------------------------------------------------------------------------------

fn order(r: Rank) -> usize {
    "123456789XJQKA".find(r.letter()).expect("a rank character")
}

#[test]
fn may_capture_other_suits_always_and_own_suit_only_lower() {
    for a in 0..56 {
        for b in 0..56 {
            let (x, y) = (Card::from_index(a).unwrap(), Card::from_index(b).unwrap());
            let expect = x.suit != y.suit || order(x.rank) > order(y.rank);
            assert_eq!(cardmate::may_capture(x, y), expect, "{x} takes {y}");
        }
    }
    assert!(cardmate::may_capture(card("2C"), card("KD")));
    assert!(cardmate::may_capture(card("1S"), card("AH")));
    assert!(!cardmate::may_capture(card("2C"), card("3C")));
    assert!(!cardmate::may_capture(card("QC"), card("KC")));
    assert!(cardmate::may_capture(card("KC"), card("QC")));
    assert!(cardmate::may_capture(card("AC"), card("KC")));
    assert!(cardmate::may_capture(card("XC"), card("9C")));
    assert!(!cardmate::may_capture(card("9C"), card("XC")));
    assert!(!cardmate::may_capture(card("JC"), card("QC")));
    for c in Suit::ALL {
        let one = Card::new(Rank::One, c);
        assert!(
            Rank::ALL
                .iter()
                .all(|&r| !cardmate::may_capture(one, Card::new(r, c)))
        );
    }
}

#[test]
fn captures_on_the_board_follow_the_suits() {
    // A Seven of Clubs among enemy cards: takes every other suit, and Clubs below it.
    let pos = position(
        F,
        &[
            (F, "7C", "e4"),
            (R, "KD", "d5"), // other suit: yes, even a King
            (R, "6C", "e5"), // own suit, lower: yes
            (R, "8C", "f5"), // own suit, higher: no
            (R, "7H", "d4"), // same rank, other suit: yes
            (R, "QC", "f4"), // own suit, higher: no
            (R, "2S", "d3"), // other suit: yes
        ],
    );
    assert_eq!(reach(&pos, "7C"), sorted("d5 e5 d4 d3 f3 e3"));
}

#[test]
fn a_card_never_takes_its_own_sides_cards() {
    let mut cards = vec![(F, "AC", "e4")];
    let own = ["2D", "3D", "4D", "5D", "6D", "7D", "2H", "3H"];
    for (c, at) in own
        .iter()
        .zip(["d3", "e3", "f3", "d4", "f4", "d5", "e5", "f5"])
    {
        cards.push((F, *c, at));
    }
    for (c, at) in ["4H", "5H", "6H", "7H", "8H", "9H", "XH", "JH"]
        .iter()
        .zip(KNIGHT_E4.split_whitespace())
    {
        cards.push((F, *c, at));
    }
    let pos = position(F, &cards);
    assert_eq!(reach(&pos, "AC"), Vec::<String>::new());
    // And for Rearhand.
    let pos = position(R, &[(R, "KS", "e4"), (R, "2S", "e5"), (R, "2D", "e3")]);
    assert_eq!(reach(&pos, "KS"), sorted("d3 f3 d4 f4 d5 f5"));
}

#[test]
fn a_capture_removes_the_taken_card() {
    let mut pos = position(F, &[(F, "XC", "e4"), (R, "5D", "e8"), (R, "KS", "a9")]);
    let m = resolve(&pos, "XC:e8").unwrap();
    assert_eq!(m.capture, Some(card("5D")));
    assert_eq!(pos.play(&m, &Options::default()), Ok(Mark::None));
    assert_eq!(
        pos.board.get(sq("e8")),
        Some(Piece {
            card: card("XC"),
            side: F
        })
    );
    assert_eq!(pos.board.get(sq("e4")), None);
    assert_eq!(pos.board.find(card("5D")), None);
    assert_eq!(pos.board.pieces().count(), 2);
    assert_eq!((pos.to_move, pos.ply), (R, 1));
}

// ---------------------------------------------------------------------------------------
// Same-suit compulsion
// ---------------------------------------------------------------------------------------

#[test]
fn a_same_suit_capture_is_compulsory_and_outranks_taking_a_king() {
    let pos = position(
        F,
        &[
            (F, "4C", "e4"),
            (F, "XH", "a0"),
            (R, "3C", "d5"),
            (R, "KD", "f5"),
            (R, "KS", "j9"),
        ],
    );
    assert_eq!(legal(&pos), sorted("4C:d5"));
    let err = resolve(&pos, "4C:f5").unwrap_err().to_string();
    assert!(err.contains("compulsory"), "{err}");
    let err = resolve(&pos, "XHa5").unwrap_err().to_string();
    assert!(err.contains("compulsory"), "{err}");
    // The same for Rearhand.
    let pos = position(
        R,
        &[
            (R, "4C", "e5"),
            (R, "XH", "a9"),
            (F, "3C", "f4"),
            (F, "KD", "d4"),
            (F, "KS", "j0"),
        ],
    );
    assert_eq!(legal(&pos), sorted("4C:f4"));
}

#[test]
fn the_player_chooses_among_same_suit_captures() {
    let pos = position(
        F,
        &[
            (F, "4C", "e4"),
            (F, "XD", "a0"),
            (F, "8H", "j0"),
            (R, "3C", "d5"),
            (R, "2C", "f5"),
            (R, "9D", "a7"),
            (R, "KS", "j9"),
            (R, "QS", "i2"), // 8H may take it, but another suit: not compulsory
        ],
    );
    assert_eq!(legal(&pos), sorted("4C:d5 4C:f5 XD:a7"));
}

#[test]
fn higher_same_suit_or_other_suit_targets_compel_nothing() {
    // Own suit, higher: not a capture at all.
    let pos = position(F, &[(F, "4C", "e4"), (R, "5C", "d5")]);
    assert_eq!(legal(&pos), sorted("4Cf5 4Cd4 4Cf4 4Ce3"));
    // Another suit: a capture the player may decline.
    let pos = position(F, &[(F, "4C", "e4"), (R, "5D", "d5")]);
    assert_eq!(legal(&pos), sorted("4C:d5 4Cf5 4Cd4 4Cf4 4Ce3"));
}

#[test]
fn only_the_movers_same_suit_captures_compel() {
    // Rearhand's 4C could take Forehand's 3C; that does not bind Forehand.
    let pos = position(F, &[(F, "3C", "d4"), (R, "4C", "e5"), (F, "XD", "a0")]);
    assert_eq!(
        pos.legal_moves(&Options::default()).len(),
        cardmate::pseudo_moves(&pos.board, F, &Options::default()).len()
    );
    assert_eq!(legal_of(&pos, "3C"), sorted("3Cc5 3Cd5 3Cd3"));
}

#[test]
fn a_king_may_have_to_take_and_may_step_into_attack() {
    // King of Clubs beside the Nine of Clubs: it must take.
    let pos = position(
        F,
        &[
            (F, "KC", "e4"),
            (F, "XH", "a0"),
            (R, "9C", "e5"),
            (R, "XD", "a6"),
        ],
    );
    assert_eq!(legal(&pos), sorted("KC:e5"));
    // No check: the King may step onto a square the enemy Ten attacks.
    let pos = position(
        F,
        &[
            (F, "KC", "e4"),
            (R, "XD", "a5"),
            (R, "KS", "a9"),
            (R, "KD", "j9"),
        ],
    );
    assert_eq!(
        legal_of(&pos, "KC"),
        sorted("KCd3 KCe3 KCf3 KCd4 KCf4 KCd5 KCe5 KCf5")
    );
}

#[test]
fn a_king_may_stand_attacked_when_the_enemy_must_capture_elsewhere() {
    // The seed's strategy note: a King may step next to an enemy card of another suit
    // when that enemy has a same-suit capture somewhere else.
    let mut pos = position(
        F,
        &[
            (F, "KC", "e4"),
            (F, "KH", "a0"),
            (F, "2S", "g6"),
            (R, "XD", "a5"),
            (R, "7S", "h7"),
            (R, "KS", "j9"),
            (R, "KD", "i9"),
        ],
    );
    assert_eq!(play(&mut pos, "KCe5"), Mark::None);
    assert_eq!(legal(&pos), sorted("7S:g6"));
    assert!(resolve(&pos, "XD:e5").is_err());
}

// ---------------------------------------------------------------------------------------
// Promotion
// ---------------------------------------------------------------------------------------

fn promotion_board(to_move: Side) -> Position {
    position(
        to_move,
        &[
            (F, "1C", "c4"),
            (F, "KC", "a0"),
            (F, "KH", "j0"),
            (R, "1D", "h5"),
            (R, "KS", "a9"),
            (R, "KD", "j9"),
        ],
    )
}

#[test]
fn a_one_entering_the_enemy_half_may_promote() {
    let pos = promotion_board(F);
    assert_eq!(legal_of(&pos, "1C"), sorted("1Cc5 1Cc5=A 1Cc3"));
    let pos = promotion_board(R);
    assert_eq!(legal_of(&pos, "1D"), sorted("1Dh4 1Dh4=A 1Dh6"));
}

#[test]
fn a_one_capturing_into_the_enemy_half_may_promote() {
    let pos = position(F, &[(F, "1C", "c4"), (R, "5D", "c5")]);
    assert_eq!(legal(&pos), sorted("1C:c5 1C:c5=A 1Cc3"));
    let pos = position(R, &[(R, "1D", "h5"), (F, "5C", "h4")]);
    assert_eq!(legal(&pos), sorted("1D:h4 1D:h4=A 1Dh6"));
}

#[test]
fn no_promotion_inside_the_enemy_half_in_the_own_half_or_retreating() {
    assert_eq!(legal(&position(F, &[(F, "1C", "c5")])), sorted("1Cc6 1Cc4"));
    assert_eq!(legal(&position(F, &[(F, "1C", "c3")])), sorted("1Cc4 1Cc2"));
    assert_eq!(legal(&position(F, &[(F, "1C", "c8")])), sorted("1Cc9 1Cc7"));
    assert_eq!(legal(&position(R, &[(R, "1D", "h4")])), sorted("1Dh3 1Dh5"));
    assert_eq!(legal(&position(R, &[(R, "1D", "h6")])), sorted("1Dh5 1Dh7"));
    assert_eq!(legal(&position(R, &[(R, "1D", "h1")])), sorted("1Dh0 1Dh2"));
}

#[test]
fn only_ones_promote() {
    for c in [
        "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "XC", "JC", "QC", "KC",
    ] {
        for (side, at) in [(F, "e4"), (F, "e3"), (R, "e5"), (R, "e6")] {
            let pos = position(side, &[(side, c, at)]);
            assert!(
                pos.legal_moves(&Options::default())
                    .iter()
                    .all(|m| !m.promote),
                "{c} at {at} promotes"
            );
        }
    }
}

#[test]
fn a_promoted_one_becomes_the_ace_of_its_suit_and_moves_as_an_ace() {
    let mut pos = promotion_board(F);
    let m = resolve(&pos, "1Cc5=A").unwrap();
    assert!(m.promote);
    assert_eq!(m.card, card("1C"), "the move names the One");
    assert_eq!(play(&mut pos, "1Cc5=A"), Mark::None);
    assert_eq!(
        pos.board.get(sq("c5")),
        Some(Piece {
            card: card("AC"),
            side: F
        })
    );
    assert_eq!(pos.board.find(card("1C")), None);
    play(&mut pos, "KDi9");
    let expect = "c6 c7 c8 c9 c4 c3 c2 c1 c0 a5 b5 d5 e5 f5 g5 h5 \
                  d6 e7 f8 g9 b6 a7 d4 e3 f2 g1 h0 b4 a3 \
                  b7 d7 a6 e6 a4 e4 b3 d3";
    assert_eq!(reach(&pos, "AC"), sorted(expect));
    assert!(legal(&pos).contains(&"AC:h5".to_owned()));
    // Rearhand's promotion.
    play(&mut pos, "ACc6");
    play(&mut pos, "1Dh4=A");
    assert_eq!(
        pos.board.get(sq("h4")),
        Some(Piece {
            card: card("AD"),
            side: R
        })
    );
}

#[test]
fn a_one_that_declined_may_promote_on_reentering() {
    let mut pos = promotion_board(F);
    play(&mut pos, "1Cc5");
    assert_eq!(pos.board.get(sq("c5")).unwrap().card, card("1C"));
    play(&mut pos, "KDi9");
    // Inside the enemy half: no promotion.
    assert_eq!(legal_of(&pos, "1C"), sorted("1Cc6 1Cc4"));
    play(&mut pos, "1Cc4");
    play(&mut pos, "KDj9");
    // Back in its own half, entering again offers it again.
    assert_eq!(legal_of(&pos, "1C"), sorted("1Cc5 1Cc5=A 1Cc3"));
    play(&mut pos, "1Cc5=A");
    assert_eq!(pos.board.get(sq("c5")).unwrap().card, card("AC"));
}

#[test]
fn promotion_is_written_with_equals_a() {
    let pos = promotion_board(F);
    let plain = resolve(&pos, "1Cc5").unwrap();
    let promoting = resolve(&pos, "1Cc5=A").unwrap();
    assert!(!plain.promote && promoting.promote);
    assert_eq!(cardmate::write_move(&plain, Mark::None), "1Cc5");
    assert_eq!(cardmate::write_move(&promoting, Mark::None), "1Cc5=A");
    // =A where no promotion exists is refused.
    assert!(resolve(&pos, "1Cc3=A").is_err());
    assert!(resolve(&start(), "4Ci3=A").is_err());
}

#[test]
fn a_wrong_equals_a_is_not_blamed_on_the_compulsion() {
    // Start position, no capture anywhere: "4Ci3=A" names a move that exists without
    // promotion. The error says the move does not promote, not that a same-suit capture
    // is compulsory.
    let err = resolve(&start(), "4Ci3=A").unwrap_err().to_string();
    assert!(
        !err.contains("compulsory") && err.contains("promote"),
        "{err}"
    );
    let pos = position(F, &[(F, "1C", "c5"), (R, "KS", "a9")]);
    let err = resolve(&pos, "1Cc6=A").unwrap_err().to_string();
    assert!(
        !err.contains("compulsory") && err.contains("promote"),
        "{err}"
    );
    // While a same-suit capture is compulsory, the promoting move is refused for that.
    let pos = position(F, &[(F, "1C", "c4"), (F, "4D", "h4"), (R, "3D", "g5")]);
    assert_eq!(legal(&pos), sorted("4D:g5"));
    let err = resolve(&pos, "1Cc5=A").unwrap_err().to_string();
    assert!(err.contains("compulsory"), "{err}");
}

// ---------------------------------------------------------------------------------------
// Kings
// ---------------------------------------------------------------------------------------

#[test]
fn forehand_takes_both_kings_and_wins() {
    let mut pos = position(
        F,
        &[
            (F, "QC", "e4"),
            (F, "KC", "a0"),
            (F, "KH", "j0"),
            (R, "KS", "e7"),
            (R, "KD", "h7"),
        ],
    );
    assert_eq!(play(&mut pos, "QC:e7+"), Mark::FirstKing);
    assert_eq!(pos.kings_lost, [0, 1]);
    assert_eq!(pos.end, None, "the first King does not end the game");
    // No check: the remaining King may step where the Queen attacks it.
    assert_eq!(play(&mut pos, "KDg7"), Mark::None);
    assert_eq!(play(&mut pos, "QC:g7×"), Mark::SecondKing);
    assert_eq!(pos.kings_lost, [0, 2]);
    assert_eq!(pos.end, Some(End::Kings { winner: F }));
    assert_eq!(pos.end.unwrap().winner(), Some(F));
    assert_eq!(pos.end.unwrap().reason(), "Forehand took both Kings");
    assert!(pos.legal_moves(&Options::default()).is_empty());
    let rules = Cardmate {
        options: Options::default(),
    };
    assert_eq!(rules.to_act(&pos), None);
}

#[test]
fn rearhand_takes_both_kings_and_wins() {
    let mut pos = position(
        R,
        &[
            (R, "XD", "e5"),
            (R, "KS", "a9"),
            (R, "KD", "j9"),
            (F, "KC", "e1"),
            (F, "KH", "a1"),
        ],
    );
    assert_eq!(play(&mut pos, "XD:e1+"), Mark::FirstKing);
    assert_eq!((pos.kings_lost, pos.end), ([1, 0], None));
    play(&mut pos, "KHb1");
    assert_eq!(play(&mut pos, "XD:b1x"), Mark::SecondKing);
    assert_eq!(pos.end, Some(End::Kings { winner: R }));
    assert_eq!(pos.end.unwrap().winner(), Some(R));
}

#[test]
fn kings_are_taken_by_a_same_suit_ace_only() {
    // A King is outranked only by the Ace of its suit (a promoted One).
    let pos = position(F, &[(F, "QC", "e4"), (R, "KC", "e5")]);
    assert!(!reach(&pos, "QC").contains(&"e5".into()));
    let pos = position(F, &[(F, "AC", "e4"), (R, "KC", "e5"), (R, "2D", "a9")]);
    assert_eq!(legal(&pos), sorted("AC:e5"));
}

// ---------------------------------------------------------------------------------------
// The palace
// ---------------------------------------------------------------------------------------

fn palace_board(extra: &[(Side, &'static str, &'static str)]) -> Position {
    let mut cards = vec![
        (F, "XC", "f5"),
        (F, "KC", "a0"),
        (F, "KH", "j0"),
        (R, "KD", "j9"),
    ];
    cards.extend_from_slice(extra);
    position(F, &cards)
}

#[test]
fn both_enemy_palace_squares_win() {
    let mut pos = palace_board(&[(F, "5H", "e9"), (R, "KS", "a9")]);
    assert_eq!(play(&mut pos, "XCf9#"), Mark::Palace);
    assert_eq!(pos.end, Some(End::Palace { winner: F }));
    assert_eq!(pos.end.unwrap().winner(), Some(F));
    assert_eq!(pos.end.unwrap().reason(), "Forehand conquered the palace");
    // Rearhand on Forehand's palace.
    let mut pos = position(
        R,
        &[
            (R, "XD", "e5"),
            (R, "5S", "f0"),
            (R, "KS", "a9"),
            (R, "KD", "j9"),
            (F, "KC", "a0"),
            (F, "KH", "j0"),
        ],
    );
    assert_eq!(play(&mut pos, "XDe0#"), Mark::Palace);
    assert_eq!(pos.end, Some(End::Palace { winner: R }));
}

#[test]
fn the_palace_can_be_conquered_by_a_capture() {
    let mut pos = palace_board(&[(F, "5H", "e9"), (R, "QS", "f9"), (R, "KS", "a9")]);
    assert_eq!(play(&mut pos, "XC:f9#"), Mark::Palace);
    assert_eq!(pos.end, Some(End::Palace { winner: F }));
}

#[test]
fn taking_the_first_king_on_the_palace_is_a_palace_win() {
    // spec/GAMES.md §2.9: a move that takes the first King and conquers the palace is `#`.
    let mut pos = palace_board(&[(F, "5H", "e9"), (R, "KS", "f9")]);
    assert!(resolve(&pos, "XC:f9+").is_err());
    assert_eq!(play(&mut pos, "XC:f9#"), Mark::Palace);
    assert_eq!(pos.kings_lost, [0, 1]);
    assert_eq!(pos.end, Some(End::Palace { winner: F }));
}

#[test]
fn the_second_king_on_the_palace_is_a_kings_win() {
    let mut pos = palace_board(&[(F, "5H", "e9"), (R, "KS", "f9")]);
    pos.kings_lost = [0, 1];
    assert_eq!(play(&mut pos, "XC:f9×"), Mark::SecondKing);
    assert_eq!(pos.end, Some(End::Kings { winner: F }));
}

#[test]
fn one_card_on_the_palace_is_not_a_conquest() {
    let mut pos = palace_board(&[(R, "KS", "a9")]);
    assert_eq!(play(&mut pos, "XCf9"), Mark::None);
    assert_eq!(pos.end, None);
    // Nor is one card of each side.
    let mut pos = palace_board(&[(R, "5S", "e9"), (R, "KS", "a9")]);
    assert!(resolve(&pos, "XCf9#").is_err());
    assert_eq!(play(&mut pos, "XCf9"), Mark::None);
    assert_eq!(pos.end, None);
}

#[test]
fn an_empty_palace_is_not_a_loss() {
    // Neither palace holds anything; moves go on.
    let mut pos = palace_board(&[(R, "KS", "a9")]);
    play(&mut pos, "XCf6");
    play(&mut pos, "KSa8");
    play(&mut pos, "XCf5");
    assert_eq!(pos.end, None);
    assert_eq!(pos.ply, 3);
}

#[test]
fn palace_off_does_not_end_the_game() {
    let off = Options {
        palace: false,
        ..Options::default()
    };
    let mut pos = palace_board(&[(F, "5H", "e9"), (R, "KS", "a9")]);
    assert!(resolve_with(&pos, "XCf9#", &off).is_err());
    assert_eq!(play_with(&mut pos, "XCf9", &off), Mark::None);
    assert_eq!(pos.end, None);
    assert_eq!(pos.to_move, R);
}

// ---------------------------------------------------------------------------------------
// No move, ply limit
// ---------------------------------------------------------------------------------------

fn stuck_rearhand() -> Position {
    // After 5Ca1 Rearhand's only card, a One on its far rank, has nowhere to go.
    position(F, &[(F, "5C", "b1"), (R, "1D", "a0")])
}

#[test]
fn no_legal_move_loses_by_default() {
    let mut pos = stuck_rearhand();
    assert_eq!(
        legal_of(&pos, "5C"),
        sorted("5Ca1 5Cc1 5Ca2 5Cb2 5Cc2 5Cb0")
    );
    assert_eq!(play(&mut pos, "5Ca1"), Mark::None);
    assert_eq!(
        pos.end,
        Some(End::NoMove {
            side: R,
            draw: false
        })
    );
    assert_eq!(pos.end.unwrap().winner(), Some(F));
    assert_eq!(pos.end.unwrap().reason(), "Rearhand had no legal move");
    assert!(cardmate::pseudo_moves(&pos.board, R, &Options::default()).is_empty());
    // Forehand stuck the same way.
    let mut pos = position(R, &[(R, "5D", "i8"), (F, "1C", "j9")]);
    play(&mut pos, "5Dj8");
    assert_eq!(
        pos.end,
        Some(End::NoMove {
            side: F,
            draw: false
        })
    );
    assert_eq!(pos.end.unwrap().winner(), Some(R));
}

#[test]
fn no_legal_move_draws_by_option() {
    let draw = Options {
        no_move: NoMove::Draw,
        ..Options::default()
    };
    let mut pos = stuck_rearhand();
    play_with(&mut pos, "5Ca1", &draw);
    assert_eq!(
        pos.end,
        Some(End::NoMove {
            side: R,
            draw: true
        })
    );
    assert_eq!(pos.end.unwrap().winner(), None);
}

#[test]
fn the_ply_limit_draws() {
    let opts = Options {
        ply_limit: 3,
        ..Options::default()
    };
    let mut pos = start();
    play_with(&mut pos, "4Ci3", &opts);
    play_with(&mut pos, "4Db6", &opts);
    assert_eq!(pos.end, None);
    play_with(&mut pos, "8Dj2", &opts);
    assert_eq!(pos.end, Some(End::PlyLimit));
    assert_eq!(pos.end.unwrap().winner(), None);
    assert_eq!(pos.end.unwrap().reason(), "ply limit reached");
    assert!(pos.legal_moves(&opts).is_empty());
    let m = Move {
        card: card("8C"),
        from: sq("b9"),
        to: sq("a7"),
        capture: None,
        promote: false,
    };
    assert!(pos.play(&m, &opts).is_err());
    // Without a limit the game goes on.
    let mut pos = start();
    for t in ["4Ci3", "4Db6", "8Dj2", "8Ca7"] {
        play(&mut pos, t);
    }
    assert_eq!(pos.end, None);
}

#[test]
fn no_move_and_the_palace_come_before_the_ply_limit() {
    let opts = Options {
        ply_limit: 1,
        ..Options::default()
    };
    let mut pos = stuck_rearhand();
    play_with(&mut pos, "5Ca1", &opts);
    assert_eq!(
        pos.end,
        Some(End::NoMove {
            side: R,
            draw: false
        })
    );
    let mut pos = palace_board(&[(F, "5H", "e9"), (R, "KS", "a9")]);
    play_with(&mut pos, "XCf9", &opts);
    assert_eq!(pos.end, Some(End::Palace { winner: F }));
}

#[test]
fn play_refuses_an_illegal_move_and_leaves_the_position() {
    let mut pos = start();
    let before = pos.clone();
    let m = Move {
        card: card("4C"),
        from: sq("j2"),
        to: sq("j3"),
        capture: None,
        promote: false,
    };
    assert!(pos.play(&m, &Options::default()).is_err());
    assert_eq!(pos, before);
    // A move of the side not to move.
    let m = Move {
        card: card("4D"),
        from: sq("a7"),
        to: sq("b6"),
        capture: None,
        promote: false,
    };
    assert!(pos.play(&m, &Options::default()).is_err());
    assert_eq!(pos, before);
}

// ---------------------------------------------------------------------------------------
// Notation
// ---------------------------------------------------------------------------------------

#[test]
fn parse_reads_every_part_of_a_move() {
    let w = cardmate::parse_move("8D:j7??").unwrap();
    assert_eq!(
        (w.card, w.capture, w.to, w.promote, w.mark),
        (card("8D"), true, Some(sq("j7")), false, None)
    );
    let w = cardmate::parse_move("7Dh8!").unwrap();
    assert_eq!((w.capture, w.to, w.mark), (false, Some(sq("h8")), None));
    let w = cardmate::parse_move("QS:f0+").unwrap();
    assert_eq!(w.mark, Some(Mark::FirstKing));
    for t in ["QS:e0×", "QS:e0x", "QS:e0×!?"] {
        assert_eq!(
            cardmate::parse_move(t).unwrap().mark,
            Some(Mark::SecondKing),
            "{t}"
        );
    }
    let w = cardmate::parse_move("XCf9#").unwrap();
    assert_eq!(w.mark, Some(Mark::Palace));
    let w = cardmate::parse_move("1Hg5=A").unwrap();
    assert!(w.promote && w.mark.is_none() && !w.capture);
    let w = cardmate::parse_move("1H:g5=A+").unwrap();
    assert!(w.promote && w.capture && w.mark == Some(Mark::FirstKing));
    let w = cardmate::parse_move("QS~").unwrap();
    assert_eq!((w.card, w.to), (card("QS"), None));
}

#[test]
fn parse_refuses_what_is_not_a_move() {
    for bad in [
        "", "Q", "QZ:e0", "qs:e0", "QSe10", "QS:k0", "QS::e0", "QS", "QS:", "10Ce4", "QSe0=Q",
        "QS e0", "ZZe0", "4C-i3", "e4", "QSa", "é4e4",
    ] {
        assert!(cardmate::parse_move(bad).is_err(), "{bad:?} was read");
    }
}

#[test]
fn write_and_resolve_round_trip() {
    let opts = Options::default();
    let mut positions = vec![start(), promotion_board(F), promotion_board(R)];
    positions.push(replay(GAME_1_TO_18).unwrap().0);
    // QC:c7 takes the first King (+); QC:f9 takes it on the palace (#).
    positions.push(position(
        F,
        &[
            (F, "QC", "f4"),
            (F, "5H", "e9"),
            (R, "KS", "c7"),
            (R, "KD", "f9"),
        ],
    ));
    let mut last_king = position(F, &[(F, "QC", "e4"), (R, "KS", "e7"), (R, "9D", "a9")]);
    last_king.kings_lost = [0, 1];
    positions.push(last_king);
    let mut seen = std::collections::BTreeSet::new();
    for pos in positions {
        let moves = pos.legal_moves(&opts);
        assert!(!moves.is_empty());
        for m in moves {
            let mark = pos.clone().play_unchecked(&m, &opts);
            let text = cardmate::write_move(&m, mark);
            let w = cardmate::parse_move(&text).unwrap();
            assert_eq!(w.card, m.card);
            assert_eq!(w.to, Some(m.to));
            assert_eq!(w.capture, m.capture.is_some(), "{text}");
            assert_eq!(w.promote, m.promote);
            assert_eq!(w.mark, (mark != Mark::None).then_some(mark));
            assert_eq!(cardmate::resolve_move(&pos, &w, &opts), Ok(m), "{text}");
            // The mark may be left out.
            let bare = cardmate::write_move(&m, Mark::None);
            assert_eq!(resolve(&pos, &bare), Ok(m), "{bare}");
            seen.insert(mark_name(mark));
        }
    }
    assert_eq!(seen.len(), 4, "every mark was written: {seen:?}");
}

fn mark_name(m: Mark) -> &'static str {
    match m {
        Mark::None => "none",
        Mark::FirstKing => "+",
        Mark::SecondKing => "×",
        Mark::Palace => "#",
    }
}

#[test]
fn write_uses_the_seeds_signs() {
    let m = Move {
        card: card("QS"),
        from: sq("h2"),
        to: sq("f0"),
        capture: Some(card("KH")),
        promote: false,
    };
    assert_eq!(cardmate::write_move(&m, Mark::FirstKing), "QS:f0+");
    assert_eq!(cardmate::write_move(&m, Mark::SecondKing), "QS:f0×");
    assert_eq!(cardmate::write_move(&m, Mark::Palace), "QS:f0#");
    assert_eq!(cardmate::write_move(&m, Mark::None), "QS:f0");
}

#[test]
fn the_colon_is_required_exactly_for_captures() {
    let pos = position(F, &[(F, "4C", "e4"), (R, "5D", "d5")]);
    let err = resolve(&pos, "4Cd5").unwrap_err().to_string();
    assert!(err.contains("':'"), "{err}");
    let err = resolve(&pos, "4C:f5").unwrap_err().to_string();
    assert!(err.contains("capture"), "{err}");
    assert!(resolve(&pos, "4C:d5").is_ok() && resolve(&pos, "4Cf5").is_ok());
    let err = resolve(&start(), "4C:i3").unwrap_err().to_string();
    assert!(err.contains("takes nothing"), "{err}");
}

#[test]
fn marks_are_checked() {
    let pos = position(
        F,
        &[
            (F, "XC", "e4"),
            (R, "5D", "e8"),
            (R, "KS", "a4"),
            (R, "KD", "j9"),
        ],
    );
    for bad in ["XC:e8+", "XC:e8×", "XC:e8#", "XC:a4×", "XC:a4#", "XCe5+"] {
        let err = resolve(&pos, bad).unwrap_err().to_string();
        assert!(err.contains("marked"), "{bad}: {err}");
    }
    assert!(resolve(&pos, "XC:a4+").is_ok());
    assert!(resolve(&pos, "XC:a4").is_ok());
    assert!(resolve(&pos, "XC:e8!").is_ok());
}

#[test]
fn resolve_says_why_a_move_is_refused() {
    let pos = start();
    // A card of the side not to move.
    let err = resolve(&pos, "4Db6").unwrap_err().to_string();
    assert!(err.contains("not a card of the side to move"), "{err}");
    // A card not on the board (the Aces are set aside).
    let err = resolve(&pos, "ACe5").unwrap_err().to_string();
    assert!(err.contains("not a card of the side to move"), "{err}");
    // A square the card cannot reach.
    let err = resolve(&pos, "4Ci5").unwrap_err().to_string();
    assert_eq!(err, "4C cannot go from j2 to i5");
    let err = resolve(&pos, "4Cj3").unwrap_err().to_string();
    assert!(err.contains("cannot go from j2 to j3"), "{err}");
    // `~` names no single move.
    let err = resolve(&pos, "4C~").unwrap_err().to_string();
    assert!(err.contains("no single move"), "{err}");
    // After the end.
    let (over, _) = replay(&score_file("game1.txt")).unwrap();
    let err = resolve(&over, "7Si1").unwrap_err().to_string();
    assert!(err.contains("over"), "{err}");
}

// ---------------------------------------------------------------------------------------
// Score replay
// ---------------------------------------------------------------------------------------

const GAME_1_TO_18: &str = "1. 4Ci3 4Db6 2. 8Dj2 8Ca7 3. 8Dh3 8Cc6 4. 7Cb1 7Di8 5. 3Cd3 3Di6 \
    6. 8Hc2 4Dc5 7. JSf3 9Sa7 8. 9H:c5 9S:c5 9. 2Sa3 9S:a3 10. 1D:a3 8Sh7 11. 3Cd4 8C:d4 \
    12. 8H:d4 8Sg5 13. JS:g5 3Hc6 14. JS:g7 6H:g7 15. 8H:c6 JH:c6 16. 1Da4 QSh8 17. 8Di5 QS:h2";

#[test]
fn the_specs_example_score_replays_five_plies() {
    let text = "[Event \"example\"]\n[Setup \"predefined\"]\n\n\
                1. 4Ci3 4Db6 2. 3Sg3 ( 2. 8Dj2 8C~ 3. 8Dh3 ) 2. ... 8Ca7 { Eights out early }\n\
                3. 8Dh2 *\n";
    let (pos, plies) = replay(text).unwrap();
    assert_eq!(plies, 5);
    assert_eq!(pos.ply, 5);
    assert_eq!(pos.board.find(card("8C")), Some(sq("a7")));
    assert_eq!(pos.board.find(card("8D")), Some(sq("h2")));
    assert_eq!(pos.board.find(card("3S")), Some(sq("g3")));
}

#[test]
fn an_illegal_ply_is_named_with_its_reason() {
    let err = replay("1. 4Ci3 4Db6 2. 4Ci2").unwrap_err();
    assert_eq!(err.to_string(), "ply 3: 4C cannot go from i3 to i2");
    assert_eq!(err.exit_code(), 1);
    let (ply, why) = illegal("1. 4Ci3 4Ci4");
    assert_eq!(ply, 2);
    assert!(why.contains("not a card of the side to move"), "{why}");
    let (ply, _) = illegal("1. 4Ci4");
    assert_eq!(ply, 1);
}

#[test]
fn unreadable_scores_are_told_apart_from_illegal_ones() {
    for text in [
        "1. 4Ci3 hello",
        "1. 4Ci3 4Db6 4",
        "1. 4Ci3 )",
        "( 1. 4Ci3 )",
        "1. 4Ci3 ( 1. 3Cc3",
        "1. 4Ci3 { a comment",
        "1. 4Ci3 } 4Db6",
        "1. 4Ci3 * 4Db6",
        "1. 4Ci3 1-0 *",
        "1. 4Ci3 ( 1. 3Cc3 1-0 )",
        "1.4Ci3",
    ] {
        let err = replay(text).unwrap_err();
        assert!(
            matches!(err, ReplayError::Unreadable(_)),
            "{text:?}: {err:?}"
        );
        assert_eq!(err.exit_code(), 2);
    }
}

#[test]
fn comments_and_annotations_are_ignored_and_move_numbers_checked() {
    let (a, _) = replay("1. 4Ci3 4Db6 2. 8Dj2").unwrap();
    let (b, n) = replay(
        "{ opening } 1. 4Ci3!? 1... 4Db6?? { a { nested } comment (with parentheses) } \
         2. 8Dj2!",
    )
    .unwrap();
    assert_eq!((&a, n), (&b, 3));
    // Numbers may be left out, and Rearhand's may be written `N. ...` or `N...`.
    for text in [
        "4Ci3 4Db6 8Dj2",
        "1. 4Ci3 1. ... 4Db6 2. 8Dj2",
        "1. 4Ci3 4Db6 8Dj2",
        "4Ci3 1... 4Db6 2. 8Dj2",
    ] {
        assert_eq!(replay(text).unwrap().0, a, "{text}");
    }
    // A number out of place is unreadable.
    for text in [
        "7. 4Ci3 4Db6",
        "1. 4Ci3 2. 4Db6",
        "1. ... 4Ci3",
        "1... 4Ci3",
        "1. 4Ci3 1. 4Db6",
        "1. 4Ci3 4Db6 2. ... 8Dj2",
        "4Ci3 ... 4Db6",
        "1. 4Ci3 1.. 4Db6",
        "0. 4Ci3",
    ] {
        let err = replay(text).unwrap_err();
        assert!(
            matches!(err, ReplayError::Unreadable(_)),
            "{text:?}: {err:?}"
        );
    }
    // Side lines number from their own position.
    assert!(replay("1. 4Ci3 4Db6 ( 1. ... 2Ca6 2. 8Dj2 ) 2. 8Dj2").is_ok());
    assert!(matches!(
        replay("1. 4Ci3 4Db6 ( 2. 2Ca6 ) 2. 8Dj2"),
        Err(ReplayError::Unreadable(_))
    ));
}

#[test]
fn side_lines_replay_from_before_the_move_and_leave_the_main_line() {
    let (main, plies) = replay("1. 4Ci3 4Db6 *").unwrap();
    let (with, n) = replay(
        "1. 4Ci3 ( 1. 3Cc3 4Db6 2. 3Cc4 ) ( 1. 2Sa3 ( 1. 2Sc3 ) 2Cc6 ) 1. ... 4Db6 ( 1. ... 2Ca6 ) *",
    )
    .unwrap();
    assert_eq!((with, n), (main, plies));
    assert_eq!(plies, 2);
    // An illegal move inside a side line is reported with its ply.
    let (ply, why) = illegal("1. 4Ci3 4Db6 ( 1. ... 4Ci4 ) *");
    assert_eq!(ply, 2);
    assert!(why.starts_with("in a side line:"), "{why}");
    let (ply, why) = illegal("1. 4Ci3 ( 1. 3Cc3 4Db6 2. 3Cc5 ) 4Db6");
    assert_eq!(ply, 3);
    assert!(why.contains("side line"), "{why}");
    // The side line does not see the move it replaces: 4Ci3 was not played there.
    let (ply, _) = illegal("1. 4Ci3 ( 1. 2Sa3 4Db6 2. 4Ch4 ) 4Db6");
    assert_eq!(ply, 3);
}

#[test]
fn the_tilde_takes_some_move_of_the_card_that_lets_the_line_go_on() {
    // The Deuce of Clubs (b7) may go to a6, c6 or back to b8; only c6 lets it reach d5
    // next, so that is the move taken.
    let (pos, plies) = replay("1. 4Ci3 4Db6 ( 1. ... 2C~ 2. 8Dj2 2Cd5 ) *").unwrap();
    assert_eq!((pos, plies), replay("1. 4Ci3 4Db6").unwrap());
    // From none of them can it reach e5.
    let (ply, why) = illegal("1. 4Ci3 4Db6 ( 1. ... 2C~ 2. 8Dj2 2Ce5 ) *");
    assert_eq!(ply, 2);
    assert!(why.contains("side line") && why.contains("2C"), "{why}");
    // A card with no legal move at all.
    let (ply, why) = illegal("1. 4Ci3 4Db6 ( 1. ... XD~ )");
    assert_eq!(ply, 2);
    assert!(why.contains("XD"), "{why}");
    // Only in side lines, and without a mark.
    for text in [
        "1. 4Ci3 2C~",
        "1. 4Ci3 2C~ 2. 8Dj2",
        "1. 4Ci3 4Db6 ( 1. ... 2C~+ )",
    ] {
        let err = replay(text).unwrap_err();
        assert!(
            matches!(err, ReplayError::Unreadable(_)),
            "{text:?}: {err:?}"
        );
    }
}

#[test]
fn a_tilde_move_written_with_equals_a_promotes() {
    // Main line: the One of Hearts walks to g5 without promoting. The side line replaces
    // 3. 1Hg5 by `1H~=A`, a promoting move of the One; after it there is no One of
    // Hearts left to play 4. 1Hg6, so the side line is illegal.
    let main = "1. 1Hg3 2Cc6 2. 1Hg4 2Cd5 3. 1Hg5";
    assert!(replay(main).is_ok());
    // (After 3. 1Hg5=A the new Ace must take the Deuce of Hearts on i7.)
    assert!(replay(&format!("{main} ( 3. 1Hg5=A 2Cc4 4. AH:i7 ) *")).is_ok());
    assert!(replay(&format!("{main} ( 3. 1Hg5 2Cc4 4. 1Hg6 ) *")).is_ok());
    let (ply, why) = illegal(&format!("{main} ( 3. 1H~=A 2Cc4 4. 1Hg6 ) *"));
    assert_eq!(ply, 5);
    assert!(why.contains("side line"), "{why}");
}

#[test]
fn a_side_line_may_follow_a_tilde_move() {
    // `2C~` is a move of its line, so a side line may replace it (spec/GAMES.md §2.9).
    let text = "1. 4Ci3 4Db6 ( 1. ... 2C~ ( 1. ... 2Ca6 ) ) *";
    assert_eq!(replay(text).map(|(_, n)| n), Ok(2));
}

#[test]
fn tags_set_the_options() {
    let (pos, _) = replay("[PlyLimit \"2\"]\n\n1. 4Ci3 4Db6 1/2-1/2").unwrap();
    assert_eq!(pos.end, Some(End::PlyLimit));
    let (ply, why) = illegal("[PlyLimit \"2\"]\n1. 4Ci3 4Db6 2. 8Dj2");
    assert_eq!(ply, 3);
    assert!(why.contains("over"), "{why}");
    // Unknown tags are ignored; the seed's own player tags included.
    let (pos, _) = replay("[Event \"x\"]\n[Forehand \"a\"]\n[Rearhand \"b\"]\n1. 4Ci3").unwrap();
    assert_eq!(pos.ply, 1);
    // A tag given twice is unreadable, even with the same value.
    for text in [
        "[PlyLimit \"2\"]\n[PlyLimit \"10\"]\n1. 4Ci3 4Db6",
        "[Setup \"predefined\"]\n[Setup \"predefined\"]\n1. 4Ci3",
        "[Event \"a\"]\n[Event \"b\"]\n1. 4Ci3",
    ] {
        let why = unreadable(text);
        assert!(why.contains("twice"), "{text:?}: {why}");
    }
    let coin = format!("[Coin \"{}\"]\n", "ab".repeat(32));
    let why = unreadable(&format!("[Setup \"random\"]\n{coin}{coin}1. 4Ci3"));
    assert!(why.contains("twice"), "{why}");
    assert!(replay("[NineRetreat \"any\"]\n[NoMove \"draw\"]\n[Palace \"off\"]\n1. 4Ci3").is_ok());
    assert!(replay("[RandomKings \"yes\"]\n[Setup \"predefined\"]\n1. 4Ci3").is_ok());
}

#[test]
fn bad_tags_are_unreadable() {
    for text in [
        "[Setup random]\n1. 4Ci3",
        "[Setup]\n1. 4Ci3",
        "[Setup \"shuffled\"]\n1. 4Ci3",
        "[Palace \"one-square\"]\n1. 4Ci3",
        "[NineRetreat \"two\"]\n",
        "[NoMove \"wins\"]\n",
        "[PlyLimit \"-1\"]\n",
        "[PlyLimit \"many\"]\n",
        "[RandomKings \"maybe\"]\n",
        "[Setup \"predefined\"\n1. 4Ci3",
        "[Setup \"random\"]\n1. 4Ci3",
        "[Setup \"random\"]\n[Coin \"00\"]\n",
        "[Setup \"predefined\"]\n[Coin \"xyz\"]\n1. 4Ci3",
    ] {
        let err = replay(text).unwrap_err();
        assert!(
            matches!(err, ReplayError::Unreadable(_)),
            "{text:?}: {err:?}"
        );
    }
    let why = unreadable("[Setup \"random\"]\n1. 4Ci3");
    assert!(why.contains("Coin"), "{why}");
    let why = unreadable(&format!("[Coin \"{}\"]\n", "0".repeat(63)));
    assert!(why.contains("Coin"), "{why}");
    let why = unreadable(&format!("[Coin \"{}g\"]\n", "0".repeat(63)));
    assert!(why.contains("Coin"), "{why}");
    let why = unreadable(&format!("[Coin \"{}\"]\n", "0".repeat(66)));
    assert!(why.contains("Coin"), "{why}");
}

#[test]
fn a_coin_with_plus_signs_is_not_hex() {
    let text = format!("[Setup \"random\"]\n[Coin \"{}\"]\n", "+0".repeat(32));
    let why = unreadable(&text);
    assert!(why.contains("Coin"), "{why}");
}

#[test]
fn a_random_setup_replays_from_its_coin() {
    let coin = Hash([0; 32]);
    let text = format!(
        "[Setup \"random\"]\n[Coin \"{}\"]\n\n1. 4Hi3 *",
        coin.to_hex()
    );
    let (pos, plies) = replay(&text).unwrap();
    assert_eq!(plies, 1);
    let mut expect = Position::start(cardmate::random_board(&coin, false));
    play(&mut expect, "4Hi3");
    assert_eq!(pos, expect);
    // Upper-case hex is the same coin.
    let upper = text.replace(&coin.to_hex(), &coin.to_hex().to_uppercase());
    assert_eq!(replay(&upper).unwrap().0, pos);
    // On that board the Four of Clubs is Rearhand's.
    let (ply, _) = illegal(&text.replace("4Hi3", "4Ci3"));
    assert_eq!(ply, 1);
    // With random Kings the Kings differ.
    let kings = text.replace("[Setup", "[RandomKings \"yes\"]\n[Setup");
    let (pos, _) = replay(&kings).unwrap();
    assert_eq!(pos.board.get(sq("e0")).unwrap().card, card("KH"));
}

#[test]
fn the_result_token_is_checked_against_the_board() {
    let game = score_file("game1.txt");
    assert!(game.trim_end().ends_with("0-1"));
    let (pos, plies) = replay(&game).unwrap();
    assert_eq!((plies, pos.end), (40, Some(End::Kings { winner: R })));
    for wrong in ["1-0", "1/2-1/2"] {
        let text = format!("{} {wrong}\n", game.trim_end().trim_end_matches("0-1"));
        let (ply, why) = illegal(&text);
        assert_eq!(ply, 40, "reported at the last ply");
        assert!(why.contains(wrong), "{why}");
    }
    for fine in ["*", ""] {
        let text = format!("{} {fine}\n", game.trim_end().trim_end_matches("0-1"));
        assert!(replay(&text).is_ok(), "{fine:?}");
    }
    // A game not ended on the board may carry any result (resignation, agreement).
    assert!(replay("1. 4Ci3 1-0").is_ok());
    assert!(replay("1. 4Ci3 0-1").is_ok());
    assert!(replay("1. 4Ci3 1/2-1/2").is_ok());
    // A drawn end wants 1/2-1/2.
    assert!(replay("[PlyLimit \"1\"]\n1. 4Ci3 1/2-1/2").is_ok());
    assert!(matches!(
        replay("[PlyLimit \"1\"]\n1. 4Ci3 1-0"),
        Err(ReplayError::Illegal { ply: 1, .. })
    ));
}

#[test]
fn moves_after_the_end_are_illegal() {
    let game = score_file("game1.txt");
    let text = format!("{} 21. 7Si1\n", game.trim_end().trim_end_matches("0-1"));
    let (ply, why) = illegal(&text);
    assert_eq!(ply, 41);
    assert!(why.contains("over"), "{why}");
}

#[test]
fn replay_reports_plies_position_and_result() {
    let r = cardmate::replay(&score_file("game1.txt")).unwrap();
    assert_eq!(r.plies, 40);
    assert_eq!(r.result.as_deref(), Some("0-1 (Rearhand took both Kings)"));
    assert!(r.svg.is_some());
    assert!(
        r.position.contains("game over: Rearhand took both Kings"),
        "{}",
        r.position
    );
    // The winning Queen of Spades, Rearhand's (lower case), on e0.
    let rank0: Vec<&str> = r
        .position
        .lines()
        .find(|l| l.starts_with("0 "))
        .expect("rank 0")
        .split_whitespace()
        .collect();
    assert_eq!(rank0.get(5), Some(&"qs"), "{rank0:?}");
    let r = cardmate::replay(&score_file("game2.txt")).unwrap();
    assert_eq!(r.result.as_deref(), Some("1-0 (Forehand took both Kings)"));
    let r = cardmate::replay("[PlyLimit \"1\"]\n1. 4Ci3").unwrap();
    assert_eq!(r.result.as_deref(), Some("1/2-1/2 (ply limit reached)"));
    let r = cardmate::replay("1. 4Ci3").unwrap();
    assert_eq!(r.result, None);
    assert!(matches!(
        cardmate::replay("1. 4Ci4"),
        Err(ReplayError::Illegal { ply: 1, .. })
    ));
}

#[test]
fn written_scores_replay_to_the_same_position() {
    for (k, opts) in [
        Options::default(),
        Options {
            setup: Setup::Random,
            ply_limit: 120,
            ..Options::default()
        },
        Options {
            setup: Setup::Random,
            random_kings: true,
            nine_retreat: NineRetreat::Any,
            no_move: NoMove::Draw,
            palace: false,
            ply_limit: 90,
        },
    ]
    .into_iter()
    .enumerate()
    {
        let coin = Hash([k as u8 + 3; 32]);
        let mut pos = Cardmate { options: opts }.start_position(&coin);
        let mut moves = vec![];
        let mut i = 0usize;
        while pos.end.is_none() && moves.len() < 200 {
            let legal = pos.legal_moves(&opts);
            let m = legal[(i * 7 + 3) % legal.len()];
            pos.play(&m, &opts).unwrap();
            moves.push(m);
            i += 1;
        }
        let text = cardmate::write_score(&opts, Some(&coin), &moves).unwrap();
        let (back, plies) = replay(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(plies, moves.len());
        assert_eq!(back, pos, "{text}");
    }
    // An illegal move is not written.
    let m = Move {
        card: card("4C"),
        from: sq("j2"),
        to: sq("j3"),
        capture: None,
        promote: false,
    };
    assert!(cardmate::write_score(&Options::default(), None, &[m]).is_err());
    let random = Options {
        setup: Setup::Random,
        ..Options::default()
    };
    assert!(cardmate::write_score(&random, None, &[]).is_err());
}

// ---------------------------------------------------------------------------------------
// The suit-shuffled setup
// ---------------------------------------------------------------------------------------

/// A board from the spec's diagram rows ("9  XC 8C …"), ranks 0–4 Forehand's.
fn diagram(rows: &[&str]) -> Board {
    let mut b = Board::empty();
    for row in rows {
        let mut cells = row.split_whitespace();
        let rank: i8 = cells.next().unwrap().parse().unwrap();
        let side = if rank <= 4 { F } else { R };
        for (file, cell) in cells.enumerate() {
            if let Some(c) = Card::parse(cell) {
                b.set(
                    Square::new(file as i8, rank).unwrap(),
                    Some(Piece { card: c, side }),
                );
            }
        }
    }
    b
}

#[test]
fn the_zero_coin_deals_the_specs_board() {
    let expect = diagram(&[
        "9  XC 8C 9S QD KS KD QS 9H 8H XH",
        "8  7D -- 6C JD 5S 5D JH 6S -- 7S",
        "7  4D 2D 3C 1D -- -- 4C 3S 2C 1S",
        "2  1H 2H 3D 4S -- -- 1C 3H 2S 4H",
        "1  7H -- 6D JS 5C 5H JC 6H -- 7C",
        "0  XS 8S 9D QH KC KH QC 9C 8D XD",
    ]);
    let zero = Hash([0; 32]);
    assert_eq!(cardmate::random_board(&zero, false), expect);
    let mut kings = expect.clone();
    for (at, c, side) in [
        ("e0", "KH", F),
        ("f0", "KD", F),
        ("e9", "KC", R),
        ("f9", "KS", R),
    ] {
        kings.set(
            sq(at),
            Some(Piece {
                card: card(c),
                side,
            }),
        );
    }
    assert_eq!(cardmate::random_board(&zero, true), kings);
}

#[test]
fn random_boards_keep_ranks_and_owners_and_deal_every_card_once() {
    let predefined = Board::predefined();
    for k in 0..6u8 {
        for random_kings in [false, true] {
            let coin = Hash([k.wrapping_mul(37).wrapping_add(1); 32]);
            let b = cardmate::random_board(&coin, random_kings);
            let mut seen = std::collections::BTreeSet::new();
            for s in Square::all() {
                match (b.get(s), predefined.get(s)) {
                    (None, None) => {}
                    (Some(p), Some(q)) => {
                        assert_eq!((p.card.rank, p.side), (q.card.rank, q.side), "{s}");
                        assert!(seen.insert(p.card), "{} twice", p.card);
                        if !random_kings && p.card.rank == Rank::King {
                            assert_eq!(p, q, "the Kings keep their suits");
                        }
                    }
                    (got, want) => panic!("{s}: {got:?} where the setup has {want:?}"),
                }
            }
            assert_eq!(seen.len(), 52);
            assert!(seen.iter().all(|c| c.rank != Rank::Ace));
            // Same coin, same board.
            assert_eq!(cardmate::random_board(&coin, random_kings), b);
        }
    }
}

#[test]
fn different_coins_deal_different_boards() {
    let boards: Vec<Board> = (0..8u8)
        .map(|k| cardmate::random_board(&Hash([k; 32]), false))
        .collect();
    for i in 0..boards.len() {
        for j in i + 1..boards.len() {
            assert_ne!(boards[i], boards[j], "coins {i} and {j}");
        }
        assert_ne!(boards[i], Board::predefined());
    }
    // Random Kings move Kings' suits for some coin.
    assert!((0..8u8).any(|k| {
        let b = cardmate::random_board(&Hash([k; 32]), true);
        b.get(sq("e0")) != Board::predefined().get(sq("e0"))
            || b.get(sq("e9")) != Board::predefined().get(sq("e9"))
    }));
    // random-kings changes only the Kings.
    for k in 0..8u8 {
        let (a, b) = (
            cardmate::random_board(&Hash([k; 32]), false),
            cardmate::random_board(&Hash([k; 32]), true),
        );
        for s in Square::all() {
            if a.get(s).is_some_and(|p| p.card.rank != Rank::King) {
                assert_eq!(a.get(s), b.get(s));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// On the protocol
// ---------------------------------------------------------------------------------------

fn key(i: u8) -> SecretKey {
    SecretKey::from_seed(&[i + 1; 32])
}

fn terms_with(options: &[(&str, &str)], players: u8) -> Terms {
    let mut options: Vec<(Name, String)> = options
        .iter()
        .map(|(k, v)| (Name::new(k).unwrap(), (*v).to_owned()))
        .collect();
    options.sort();
    let p = Proposal {
        version: VERSION,
        variant: Name::new(cardmate::VARIANT).unwrap(),
        options,
        seats: (0..players)
            .map(|i| SeatSpec {
                role: Role::Player,
                key: key(i).public().to_bytes(),
                name: format!("p{i}"),
            })
            .collect(),
        mailboxes: vec![],
        proposer: Seat(0),
        clock: 0,
        nonce: [9; 32],
        witness: None,
    };
    Terms::from_signed(p.sign(&key(0))).expect("valid terms")
}

fn terms(options: &[(&str, &str)]) -> Terms {
    terms_with(options, 2)
}

fn ctx(coin: &Hash) -> ActCtx<'_> {
    ActCtx {
        shown_slots: &[],
        held_slots: &[],
        at: EnvRef {
            chain: ChainId::public(Seat(0)),
            seq: 1,
        },
        clock: 0,
        coin,
        opened_slots: &[],
        opened_values: &[],
        opened_setups: &[],
        committed_values: &[],
        draws: &[],
    }
}

#[test]
fn from_terms_reads_every_option() {
    let game = Cardmate::from_terms(&terms(&[])).unwrap();
    assert_eq!(game.options, Options::default());
    let game = Cardmate::from_terms(&terms(&[
        ("setup", "random"),
        ("random-kings", "yes"),
        ("palace", "off"),
        ("nine-retreat", "any"),
        ("no-move", "draw"),
        ("ply-limit", "250"),
    ]))
    .unwrap();
    assert_eq!(
        game.options,
        Options {
            setup: Setup::Random,
            random_kings: true,
            palace: false,
            nine_retreat: NineRetreat::Any,
            no_move: NoMove::Draw,
            ply_limit: 250,
        }
    );
    let game = Cardmate::from_terms(&terms(&[
        ("setup", "predefined"),
        ("random-kings", "no"),
        ("palace", "both-squares"),
        ("nine-retreat", "one"),
        ("no-move", "loses"),
        ("ply-limit", "0"),
    ]))
    .unwrap();
    assert_eq!(game.options, Options::default());
    // The proposal text of any options reads back to them.
    let o = Options {
        setup: Setup::Random,
        ply_limit: 7,
        ..Options::default()
    };
    assert_eq!(Options::parse(&o.to_proposal()).unwrap(), o);
}

#[test]
fn from_terms_refuses_unknown_options_values_and_player_counts() {
    for bad in [
        ("castling", "no"),
        ("setup", "Random"),
        ("setup", "dealt"),
        ("random-kings", "true"),
        ("palace", "on"),
        ("nine-retreat", "two"),
        ("no-move", "win"),
        ("ply-limit", "-1"),
        ("ply-limit", "4294967296"),
        ("ply-limit", ""),
    ] {
        let err = Cardmate::from_terms(&terms(&[bad])).unwrap_err();
        assert!(err.0.contains(bad.0), "{bad:?}: {err}");
    }
    assert!(Cardmate::from_terms(&terms_with(&[], 3)).is_err());
}

#[test]
fn acts_encode_as_three_bytes() {
    let rules = Cardmate::from_terms(&terms(&[])).unwrap();
    let m = resolve(&start(), "4Ci3").unwrap();
    assert_eq!(Act::of(&m).bytes(), vec![0x0c, 0x26, 0x00]);
    let pos = position(F, &[(F, "1H", "g4")]);
    let m = resolve(&pos, "1Hg5=A").unwrap();
    assert_eq!(Act::of(&m).bytes(), vec![0x02, 0x38, 0x01]);
    assert_eq!(
        rules.decode_act(&[0x02, 0x38, 0x01]).unwrap(),
        Act {
            card: 2,
            to: 56,
            promote: true
        }
    );
}

#[test]
fn decode_act_refuses_garbage() {
    let rules = Cardmate::from_terms(&terms(&[])).unwrap();
    for bad in [
        vec![],
        vec![0x0c],
        vec![0x0c, 0x26],
        vec![0x0c, 0x26, 0x02],
        vec![0x0c, 0x26, 0xff],
        vec![0x0c, 0x26, 0x00, 0x00],
        vec![0xff; 17],
        vec![0xff; 64],
    ] {
        assert!(rules.decode_act(&bad).is_err(), "{bad:02x?}");
    }
}

#[test]
fn apply_plays_a_legal_move_and_refuses_others() {
    let rules = Cardmate::from_terms(&terms(&[])).unwrap();
    let coin = Hash([5; 32]);
    let pos = rules.start(&coin);
    assert_eq!(pos, start());
    assert_eq!(rules.to_act(&pos), Some(Seat(0)));
    let m = resolve(&pos, "4Ci3").unwrap();
    let applied = rules
        .apply(&pos, Seat(0), &Act::of(&m), &ctx(&coin))
        .unwrap();
    let mut expect = start();
    play(&mut expect, "4Ci3");
    assert_eq!(applied.state, expect);
    assert!(applied.outcome.is_none());
    assert!(applied.owe.is_empty() && applied.grant.is_empty());
    assert_eq!(rules.to_act(&applied.state), Some(Seat(1)));
    for (card, to, promote, why) in [
        (12, 36, false, "4C j2 → g3: too far"),
        (12, 39, false, "4C j2 → j3: straight forwards"),
        (12, 38, true, "4Ci3=A: a Four does not promote"),
        (13, 61, false, "4Db6: Rearhand's card"),
        (52, 44, false, "the Ace of Clubs is not on the board"),
        (56, 38, false, "no such card"),
        (12, 100, false, "no such square"),
        (255, 255, false, "no such card or square"),
    ] {
        let bad = Act { card, to, promote };
        let err = rules.apply(&pos, Seat(0), &bad, &ctx(&coin)).unwrap_err();
        assert!(!err.0.is_empty(), "{why}");
        if why.starts_with("no such") {
            assert!(err.0.contains("no such"), "{why}: {}", err.0);
        } else {
            assert!(err.0.contains("not a legal move"), "{why}: {}", err.0);
        }
    }
}

#[test]
fn apply_refuses_an_envelope_that_opens_or_commits() {
    let rules = Cardmate::from_terms(&terms(&[])).unwrap();
    let coin = Hash([5; 32]);
    let pos = rules.start(&coin);
    let act = Act::of(&resolve(&pos, "4Ci3").unwrap());
    let deck = Name::new("deck").unwrap();
    let slots = [OpenedSlot {
        deck: deck.clone(),
        slot: 0,
        card: 1,
    }];
    let values = [(deck.clone(), 0u32, vec![1u8])];
    let commits = [(deck, 0u32)];
    let mut c = ctx(&coin);
    c.opened_slots = &slots;
    assert!(rules.apply(&pos, Seat(0), &act, &c).is_err());
    let mut c = ctx(&coin);
    c.opened_values = &values;
    assert!(rules.apply(&pos, Seat(0), &act, &c).is_err());
    let mut c = ctx(&coin);
    c.committed_values = &commits;
    assert!(rules.apply(&pos, Seat(0), &act, &c).is_err());
    assert!(rules.apply(&pos, Seat(0), &act, &ctx(&coin)).is_ok());
}

#[test]
fn apply_reports_the_outcome_of_a_winning_move() {
    let rules = Cardmate::from_terms(&terms(&[])).unwrap();
    let coin = Hash::ZERO;
    let mut pos = position(
        R,
        &[
            (R, "XD", "e5"),
            (R, "KS", "a9"),
            (F, "KC", "e1"),
            (F, "KH", "a4"),
        ],
    );
    pos.kings_lost = [1, 0];
    let m = resolve(&pos, "XD:e1×").unwrap();
    let applied = rules
        .apply(&pos, Seat(1), &Act::of(&m), &ctx(&coin))
        .unwrap();
    let outcome = applied.outcome.expect("the game ended");
    assert_eq!(outcome.results, vec![SeatResult::Loss, SeatResult::Win]);
    assert_eq!(rules.to_act(&applied.state), None);
    // No move: the stuck player loses, or draws by option.
    let pos = stuck_rearhand();
    let m = resolve(&pos, "5Ca1").unwrap();
    let applied = rules
        .apply(&pos, Seat(0), &Act::of(&m), &ctx(&coin))
        .unwrap();
    assert_eq!(
        applied.outcome.unwrap().results,
        vec![SeatResult::Win, SeatResult::Loss]
    );
    let draw = Cardmate::from_terms(&terms(&[("no-move", "draw")])).unwrap();
    let applied = draw
        .apply(&pos, Seat(0), &Act::of(&m), &ctx(&coin))
        .unwrap();
    assert_eq!(
        applied.outcome.unwrap().results,
        vec![SeatResult::Draw, SeatResult::Draw]
    );
}

#[test]
fn the_random_setup_on_the_protocol_is_the_coins_board() {
    let coin = Hash([0x5a; 32]);
    let rules = Cardmate::from_terms(&terms(&[("setup", "random")])).unwrap();
    assert_eq!(
        rules.start(&coin),
        Position::start(cardmate::random_board(&coin, false))
    );
    let rules =
        Cardmate::from_terms(&terms(&[("setup", "random"), ("random-kings", "yes")])).unwrap();
    assert_eq!(
        rules.start(&coin),
        Position::start(cardmate::random_board(&coin, true))
    );
    // The predefined setup ignores the coin.
    let rules = Cardmate::from_terms(&terms(&[])).unwrap();
    assert_eq!(rules.start(&coin), start());
}

#[test]
fn outcomes_name_the_winner_by_seat() {
    assert_eq!(cardmate::seat(F), Seat(0));
    assert_eq!(cardmate::seat(R), Seat(1));
    let cases = [
        (
            End::Kings { winner: F },
            [SeatResult::Win, SeatResult::Loss],
        ),
        (
            End::Palace { winner: R },
            [SeatResult::Loss, SeatResult::Win],
        ),
        (
            End::NoMove {
                side: F,
                draw: false,
            },
            [SeatResult::Loss, SeatResult::Win],
        ),
        (
            End::NoMove {
                side: R,
                draw: true,
            },
            [SeatResult::Draw, SeatResult::Draw],
        ),
        (End::PlyLimit, [SeatResult::Draw, SeatResult::Draw]),
    ];
    for (end, results) in cases {
        let o = Cardmate::outcome(end);
        assert_eq!(o.results, results.to_vec(), "{end:?}");
        assert_eq!(o.reason, end.reason());
    }
}

// ---------------------------------------------------------------------------------------
// Whole games: invariants on every position of seeded random playouts
// ---------------------------------------------------------------------------------------

/// A small deterministic generator (SplitMix64), so the playouts are the same every run.
struct Mix(u64);

impl Mix {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// The position turned over: ranks flipped, sides swapped.
fn turned(pos: &Position) -> Position {
    let mut b = Board::empty();
    for (s, p) in pos.board.pieces() {
        b.set(
            flip_rank(s),
            Some(Piece {
                card: p.card,
                side: p.side.other(),
            }),
        );
    }
    Position {
        board: b,
        to_move: pos.to_move.other(),
        kings_lost: [pos.kings_lost[1], pos.kings_lost[0]],
        ply: pos.ply,
        end: pos.end.map(|e| match e {
            End::Kings { winner } => End::Kings {
                winner: winner.other(),
            },
            End::Palace { winner } => End::Palace {
                winner: winner.other(),
            },
            End::NoMove { side, draw } => End::NoMove {
                side: side.other(),
                draw,
            },
            End::PlyLimit => End::PlyLimit,
        }),
    }
}

/// The position seen in a mirror: files flipped.
fn mirrored(pos: &Position) -> Position {
    let mut b = Board::empty();
    for (s, p) in pos.board.pieces() {
        b.set(flip_file(s), Some(p));
    }
    Position {
        board: b,
        ..pos.clone()
    }
}

fn move_set(
    moves: &[Move],
    f: impl Fn(Square) -> Square,
) -> Vec<(Card, Square, Square, Option<Card>, bool)> {
    let mut v: Vec<_> = moves
        .iter()
        .map(|m| (m.card, f(m.from), f(m.to), m.capture, m.promote))
        .collect();
    v.sort();
    v
}

fn check_position(pos: &Position, opts: &Options) {
    let side = pos.to_move;
    let pseudo = cardmate::pseudo_moves(&pos.board, side, opts);
    let legal = pos.legal_moves(opts);
    // No move twice.
    let mut seen = std::collections::HashSet::new();
    for m in &pseudo {
        assert!(seen.insert(*m), "{m:?} generated twice");
    }
    for m in &pseudo {
        let mover = pos.board.get(m.from).expect("a card moves from its square");
        assert_eq!((mover.card, mover.side), (m.card, side));
        match pos.board.get(m.to) {
            None => assert_eq!(m.capture, None),
            Some(t) => {
                assert_ne!(t.side, side, "{m:?} takes its own card");
                assert_eq!(m.capture, Some(t.card));
                assert!(cardmate::may_capture(m.card, t.card), "{m:?}");
            }
        }
        if m.promote {
            assert_eq!(m.card.rank, Rank::One);
            assert!(side.own_half(m.from.rank()) && !side.own_half(m.to.rank()));
        }
    }
    // The compulsion.
    let same: Vec<Move> = pseudo
        .iter()
        .copied()
        .filter(|m| m.capture.is_some_and(|c| c.suit == m.card.suit))
        .collect();
    let expect = if same.is_empty() {
        pseudo.clone()
    } else {
        same
    };
    assert_eq!(move_set(&legal, |s| s), move_set(&expect, |s| s));
    // Symmetry: turned over and mirrored positions have the turned and mirrored moves.
    assert_eq!(
        move_set(&turned(pos).legal_moves(opts), |s| s),
        move_set(&legal, flip_rank)
    );
    assert_eq!(
        move_set(&mirrored(pos).legal_moves(opts), |s| s),
        move_set(&legal, flip_file)
    );
}

#[test]
fn random_playouts_keep_every_invariant() {
    let mut rng = Mix(2026);
    let mut ends = std::collections::BTreeMap::new();
    for game in 0..24u8 {
        let opts = Options {
            setup: Setup::Random,
            random_kings: game % 2 == 1,
            nine_retreat: if game % 3 == 0 {
                NineRetreat::Any
            } else {
                NineRetreat::One
            },
            palace: game % 4 != 3,
            ply_limit: 400,
            ..Options::default()
        };
        let coin = Hash([game; 32]);
        let mut pos = Cardmate { options: opts }.start_position(&coin);
        let mut moves = vec![];
        while pos.end.is_none() {
            check_position(&pos, &opts);
            let legal = pos.legal_moves(&opts);
            let m = legal[rng.below(legal.len())];
            // Every legal move is found again from its written form.
            let mark = pos.clone().play_unchecked(&m, &opts);
            let text = cardmate::write_move(&m, mark);
            assert_eq!(resolve_with(&pos, &text, &opts), Ok(m), "{text}");
            // The turned-over game ends the same way, with the sides swapped.
            let mut t = turned(&pos);
            let turned_move = Move {
                from: flip_rank(m.from),
                to: flip_rank(m.to),
                ..m
            };
            assert_eq!(t.play(&turned_move, &opts), Ok(mark));
            let before = pos.kings_lost;
            assert_eq!(pos.play(&m, &opts), Ok(mark));
            assert_eq!(t, turned(&pos));
            // The mark says what happened.
            match mark {
                Mark::FirstKing => assert_eq!(pos.kings_lost[pos.to_move.index()], 1),
                Mark::SecondKing => {
                    assert_eq!(
                        pos.end,
                        Some(End::Kings {
                            winner: pos.to_move.other()
                        })
                    )
                }
                Mark::Palace => {
                    assert_eq!(
                        pos.end,
                        Some(End::Palace {
                            winner: pos.to_move.other()
                        })
                    )
                }
                Mark::None => assert_eq!(pos.kings_lost, before),
            }
            moves.push(m);
        }
        assert!(pos.legal_moves(&opts).is_empty());
        *ends.entry(format!("{:?}", pos.end.unwrap())).or_insert(0) += 1;
        // The game written as a score replays to the same position.
        let text = cardmate::write_score(&opts, Some(&coin), &moves).unwrap();
        assert_eq!(replay(&text).unwrap(), (pos, moves.len()));
    }
    // The playouts reached more than one kind of end.
    assert!(ends.len() > 1, "{ends:?}");
}
