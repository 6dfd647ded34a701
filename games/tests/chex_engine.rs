//! The Chex rules engine, one rule at a time, on small hand-built positions: the seed's
//! example, how every piece moves, the rule that the board must stay one group, pawns,
//! placements, the turn obligations, every ending, the notation with its ambiguities and
//! multi-letter files, display coordinates, rendering and the score format
//! (spec/chex-notes.md).
//!
//! Expected square sets are written out by hand from the rules, never computed with the
//! engine's own direction tables. Absolute squares are (x, y) with y growing towards
//! Black (White's pawns go +y).

use sealed_games::chex::engine;

use std::collections::BTreeSet;

use engine::Kind::{Bishop, King, Knight, Pawn, Queen, Rook};
use engine::{
    Color, DisplaySquare, End, Frame, Kind, Move, Phase, Piece, Ply, Position, Reading, Square,
    Stack, Written,
};
use sealed_games::replay::ReplayError;

const W: Color = Color::White;
const B: Color = Color::Black;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

fn sq(x: i32, y: i32) -> Square {
    Square::new(x, y)
}

/// A position with exactly these pieces, `to_move` to move.
fn position(to_move: Color, pieces: &[(Color, Kind, i32, i32)]) -> Position {
    let list: Vec<(Color, Kind, Square)> = pieces
        .iter()
        .map(|&(c, k, x, y)| (c, k, sq(x, y)))
        .collect();
    Position::setup(to_move, &list).expect("a valid setup")
}

/// A position given in display names, for boards whose pieces reach file b and rank 2
/// (so that display a1 is (-1, -1) and b2 is the origin); checked.
fn display_position(to_move: Color, pieces: &[(Color, Kind, &str)]) -> Position {
    let a1 = Frame {
        a1: sq(-1, -1),
        files: 0,
        ranks: 0,
    };
    let list: Vec<(Color, Kind, Square)> = pieces
        .iter()
        .map(|&(c, k, name)| (c, k, a1.square(name).expect("a square name")))
        .collect();
    let p = Position::setup(to_move, &list).expect("a valid setup");
    assert_eq!(
        Frame::of(&p.board).a1,
        sq(-1, -1),
        "the pieces must reach b and 2"
    );
    assert!(p.board.is_connected(), "hand-built positions are connected");
    p
}

fn set(squares: &[(i32, i32)]) -> BTreeSet<(i32, i32)> {
    squares.iter().copied().collect()
}

/// Where the piece on (x, y) may legally go.
fn targets(p: &Position, x: i32, y: i32) -> BTreeSet<(i32, i32)> {
    p.legal_moves()
        .into_iter()
        .filter(|m| m.from == sq(x, y))
        .map(|m| (m.to.x, m.to.y))
        .collect()
}

/// Where the piece on (x, y) may go by movement alone.
fn pseudo(p: &Position, x: i32, y: i32) -> BTreeSet<(i32, i32)> {
    engine::pseudo_moves_from(&p.board, sq(x, y))
        .into_iter()
        .map(|m| (m.to.x, m.to.y))
        .collect()
}

fn names(p: &Position, squares: impl IntoIterator<Item = Square>) -> BTreeSet<String> {
    let f = Frame::of(&p.board);
    squares
        .into_iter()
        .map(|s| f.name(s).expect("nameable"))
        .collect()
}

fn at(p: &Position, name: &str) -> Square {
    Frame::of(&p.board).square(name).expect("a square name")
}

fn mv(p: &Position, token: &str) -> Move {
    engine::parse_move(p, token).unwrap_or_else(|e| panic!("{token}: {e}"))
}

fn err(p: &Position, token: &str) -> String {
    match engine::parse_ply(p, token) {
        Ok(ply) => panic!("{token} was accepted as {ply:?}"),
        Err(e) => e.to_string(),
    }
}

fn play(p: &mut Position, token: &str) {
    let ply = engine::parse_ply(p, token).unwrap_or_else(|e| panic!("{token}: {e}"));
    p.play_ply(&ply).unwrap_or_else(|e| panic!("{token}: {e}"));
}

/// The seed's diagram: White Knight b3 and Bishop c3, Black pawns b2 and d2. The Knight
/// is put on the origin, so display a1 is (-1, -2).
fn seed_example(to_move: Color) -> Position {
    position(
        to_move,
        &[
            (W, Knight, 0, 0),
            (W, Bishop, 1, 0),
            (B, Pawn, 0, -1),
            (B, Pawn, 2, -1),
        ],
    )
}

/// Two far pieces that make the box of "other pieces" run from (-4, -2) to (4, 2), so
/// destinations up to x = ±5 and y = ±3 are generated; neither stands on a line through
/// the origin.
const BOX: [(Color, Kind, i32, i32); 2] = [(B, Pawn, 4, 2), (B, Pawn, -4, -2)];

fn with_box(extra: &[(Color, Kind, i32, i32)]) -> Position {
    let mut all = BOX.to_vec();
    all.extend_from_slice(extra);
    position(W, &all)
}

// ---------------------------------------------------------------------------------------
// The seed's example
// ---------------------------------------------------------------------------------------

#[test]
fn seed_example_frame_matches_the_diagram() {
    let p = seed_example(W);
    let f = Frame::of(&p.board);
    assert_eq!((f.a1, f.files, f.ranks), (sq(-1, -2), 5, 4));
    assert_eq!(at(&p, "b3"), sq(0, 0));
    assert_eq!(at(&p, "c3"), sq(1, 0));
    assert_eq!(at(&p, "b2"), sq(0, -1));
    assert_eq!(at(&p, "d2"), sq(2, -1));
    assert_eq!(at(&p, "a1"), sq(-1, -2));
    assert_eq!(at(&p, "e4"), sq(3, 1));
}

#[test]
fn seed_example_bishop_is_tagged() {
    let p = seed_example(W);
    // By movement alone it could go somewhere, including both captures...
    let by_movement = pseudo(&p, 1, 0);
    assert!(by_movement.contains(&(0, -1)) && by_movement.contains(&(2, -1)));
    assert!(by_movement.contains(&(2, 1)));
    // ...but every move leaves a piece alone.
    assert!(targets(&p, 1, 0).is_empty());
    assert!(err(&p, "c3-d4").contains("break the board"));
    assert!(err(&p, "Bxd2").contains("break the board"));
}

#[test]
fn seed_example_knight_goes_to_d4_d2_c1_a1_only() {
    let p = seed_example(W);
    let to: Vec<Square> = targets(&p, 0, 0)
        .into_iter()
        .map(|(x, y)| sq(x, y))
        .collect();
    assert_eq!(
        names(&p, to),
        ["a1", "c1", "d2", "d4"].map(String::from).into()
    );
    assert_eq!(mv(&p, "Nd4"), Move::new(sq(0, 0), sq(2, 1)));
    assert_eq!(mv(&p, "Nxd2"), Move::new(sq(0, 0), sq(2, -1)));
    assert_eq!(mv(&p, "Nd2"), Move::new(sq(0, 0), sq(2, -1)));
    assert_eq!(mv(&p, "Nc1"), Move::new(sq(0, 0), sq(1, -2)));
    assert_eq!(mv(&p, "Na1"), Move::new(sq(0, 0), sq(-1, -2)));
    // The Knight's other squares touch nothing once it has left.
    for t in ["Nc5", "Na5", "Na4"] {
        assert!(engine::parse_ply(&p, t).is_err(), "{t}");
    }
    assert_eq!(p.legal_moves().len(), 4);
}

#[test]
fn seed_example_black_pawns_cannot_move_so_black_must_draw() {
    let p = seed_example(B);
    assert!(targets(&p, 0, -1).is_empty());
    assert!(targets(&p, 2, -1).is_empty());
    assert!(p.legal_moves().is_empty());
    assert!(p.can_draw());
    assert!(p.must_draw());
    assert!(err(&p, "b1").contains("break the board"));
    let mut q = p.clone();
    q.declare_draw(B).unwrap();
    assert_eq!(q.phase, Phase::Placing);
}

#[test]
fn seed_example_renders_like_the_seed() {
    let expected = "          a   b   c   d   e
        +---+---+---+---+---+     Black
      4 |:::|   |:::|   |:::|  4
        +---+---+---+---+---+
      3 |   |:N:| B |:::|   |  3
        +---+---+---+---+---+
      2 |:::|*P*|:::|*P*|:::|  2
        +---+---+---+---+---+
      1 |   |:::|   |:::|   |  1
        +---+---+---+---+---+     White
          a   b   c   d   e
White stack: K Q R2 B N P8
Black stack: K Q R2 B2 N2 P6
White to play, move 1
";
    assert_eq!(engine::text(&seed_example(W)), expected);
    let svg = engine::svg(&seed_example(W));
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    // 5 × 4 squares plus the background.
    assert_eq!(svg.matches("<rect").count(), 21);
    assert_eq!(svg.matches("<circle").count(), 4);
}

// ---------------------------------------------------------------------------------------
// How the pieces move (movement alone, before the connectivity rule)
// ---------------------------------------------------------------------------------------

#[test]
fn rook_open_and_blocked() {
    let p = with_box(&[(W, Rook, 0, 0)]);
    assert_eq!(
        pseudo(&p, 0, 0),
        set(&[
            (-5, 0),
            (-4, 0),
            (-3, 0),
            (-2, 0),
            (-1, 0),
            (1, 0),
            (2, 0),
            (3, 0),
            (4, 0),
            (5, 0),
            (0, -3),
            (0, -2),
            (0, -1),
            (0, 1),
            (0, 2),
            (0, 3),
        ])
    );
    // An own piece stops the ray before it, an enemy piece is taken and stops it.
    let p = with_box(&[(W, Rook, 0, 0), (W, Pawn, 0, 2), (B, Knight, 3, 0)]);
    assert_eq!(
        pseudo(&p, 0, 0),
        set(&[
            (-5, 0),
            (-4, 0),
            (-3, 0),
            (-2, 0),
            (-1, 0),
            (1, 0),
            (2, 0),
            (3, 0),
            (0, -3),
            (0, -2),
            (0, -1),
            (0, 1),
        ])
    );
}

#[test]
fn bishop_open_and_blocked() {
    let p = with_box(&[(W, Bishop, 0, 0)]);
    assert_eq!(
        pseudo(&p, 0, 0),
        set(&[
            (1, 1),
            (2, 2),
            (3, 3),
            (1, -1),
            (2, -2),
            (3, -3),
            (-1, 1),
            (-2, 2),
            (-3, 3),
            (-1, -1),
            (-2, -2),
            (-3, -3),
        ])
    );
    let p = with_box(&[(W, Bishop, 0, 0), (W, Knight, 1, 1), (B, Rook, -2, 2)]);
    assert_eq!(
        pseudo(&p, 0, 0),
        set(&[
            (1, -1),
            (2, -2),
            (3, -3),
            (-1, 1),
            (-2, 2),
            (-1, -1),
            (-2, -2),
            (-3, -3),
        ])
    );
}

#[test]
fn queen_open_and_blocked() {
    let p = with_box(&[(W, Queen, 0, 0)]);
    let q = pseudo(&p, 0, 0);
    assert_eq!(q.len(), 28);
    for s in [
        (5, 0),
        (-5, 0),
        (0, 3),
        (0, -3),
        (3, 3),
        (-3, -3),
        (3, -3),
        (-3, 3),
    ] {
        assert!(q.contains(&s), "{s:?}");
    }
    let p = with_box(&[
        (W, Queen, 0, 0),
        (W, Pawn, 1, 0),
        (B, Pawn, 0, 1),
        (B, Pawn, -1, -1),
    ]);
    assert_eq!(
        pseudo(&p, 0, 0),
        set(&[
            (-5, 0),
            (-4, 0),
            (-3, 0),
            (-2, 0),
            (-1, 0),
            (0, 1),
            (0, -1),
            (0, -2),
            (0, -3),
            (1, 1),
            (2, 2),
            (3, 3),
            (1, -1),
            (2, -2),
            (3, -3),
            (-1, 1),
            (-2, 2),
            (-3, 3),
            (-1, -1),
        ])
    );
}

#[test]
fn knight_open_and_blocked() {
    let p = with_box(&[(W, Knight, 0, 0)]);
    assert_eq!(
        pseudo(&p, 0, 0),
        set(&[
            (1, 2),
            (2, 1),
            (2, -1),
            (1, -2),
            (-1, -2),
            (-2, -1),
            (-2, 1),
            (-1, 2),
        ])
    );
    // Jumps over pieces; own piece on a target excludes it, an enemy is taken.
    let p = with_box(&[
        (W, Knight, 0, 0),
        (W, Pawn, 0, 1),
        (B, Pawn, 1, 1),
        (W, Rook, 1, 2),
        (B, Rook, 2, 1),
    ]);
    assert_eq!(
        pseudo(&p, 0, 0),
        set(&[
            (2, 1),
            (2, -1),
            (1, -2),
            (-1, -2),
            (-2, -1),
            (-2, 1),
            (-1, 2),
        ])
    );
}

#[test]
fn king_open_and_blocked() {
    let p = with_box(&[(W, King, 0, 0)]);
    assert_eq!(
        pseudo(&p, 0, 0),
        set(&[
            (-1, -1),
            (0, -1),
            (1, -1),
            (-1, 0),
            (1, 0),
            (-1, 1),
            (0, 1),
            (1, 1),
        ])
    );
    let p = with_box(&[(W, King, 0, 0), (W, Pawn, 1, 0), (B, Knight, 0, 1)]);
    assert_eq!(
        pseudo(&p, 0, 0),
        set(&[(-1, -1), (0, -1), (1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1),])
    );
}

#[test]
fn pawns_step_forward_and_take_diagonally_forward() {
    // White: north, one step; no double step; diagonal captures only of enemies.
    let p = with_box(&[(W, Pawn, 0, 0), (B, Knight, 1, 1), (W, Knight, -1, 1)]);
    assert_eq!(pseudo(&p, 0, 0), set(&[(0, 1), (1, 1)]));
    // Blocked straight ahead by any piece; never takes straight or backwards.
    let p = with_box(&[(W, Pawn, 0, 0), (B, Knight, 0, 1), (B, Rook, 1, -1)]);
    assert!(pseudo(&p, 0, 0).is_empty());
    // Black: south.
    let mut p = with_box(&[(B, Pawn, 0, 0), (W, Knight, -1, -1), (W, Rook, 1, 1)]);
    p.to_move = B;
    assert_eq!(pseudo(&p, 0, 0), set(&[(0, -1), (-1, -1)]));
}

#[test]
fn pawn_moves_with_the_connectivity_rule() {
    // White pawn beside a Black King: one step north only, never two.
    let p = position(W, &[(W, Pawn, 0, 0), (B, King, 1, 0)]);
    assert_eq!(targets(&p, 0, 0), set(&[(0, 1)]));
    // A diagonal capture.
    let p = position(W, &[(W, Pawn, 0, 0), (B, Knight, 1, 1), (B, King, 1, 0)]);
    assert_eq!(targets(&p, 0, 0), set(&[(0, 1), (1, 1)]));
    // Black goes south, and takes south-east here.
    let p = position(B, &[(B, Pawn, 0, 0), (W, King, 1, 0), (W, Knight, 1, -1)]);
    assert_eq!(targets(&p, 0, 0), set(&[(0, -1), (1, -1)]));
}

#[test]
fn no_promotion_a_pawn_just_keeps_going() {
    // A column of White pieces the pawn climbs along, far past any eighth rank (own
    // pieces, so that there is nothing to take).
    let column = [
        King, Queen, Rook, Rook, Bishop, Bishop, Knight, Knight, Pawn, Pawn,
    ];
    let mut pieces = vec![(W, Pawn, 0, 0)];
    for (y, k) in column.into_iter().enumerate() {
        pieces.push((W, k, 1, y as i32));
    }
    let mut p = position(W, &pieces);
    for y in 0..9 {
        assert_eq!(targets(&p, 0, y), set(&[(0, y + 1)]), "from y = {y}");
        p.play_move(&Move::new(sq(0, y), sq(0, y + 1))).unwrap();
        assert_eq!(p.board.get(sq(0, y + 1)), Some(Piece::new(W, Pawn)));
        p.to_move = W;
    }
    // Stepping onto the frame's top (border) rank is allowed too: the frame grows.
    assert_eq!(targets(&p, 0, 9), set(&[(0, 10)]));
}

#[test]
fn no_en_passant() {
    let mut p = position(B, &[(W, Pawn, 0, 0), (B, Pawn, 1, 1), (B, King, 2, 1)]);
    // Black's pawn steps south, passing beside the White pawn (no double step anyway).
    p.play_move(&Move::new(sq(1, 1), sq(1, 0))).unwrap();
    // White's pawn may step north, but not take "in passing" on (1, 1) or sideways.
    assert_eq!(targets(&p, 0, 0), set(&[(0, 1)]));
}

// ---------------------------------------------------------------------------------------
// The board must stay one group
// ---------------------------------------------------------------------------------------

#[test]
fn a_move_that_breaks_the_group_is_illegal() {
    let p = position(W, &[(W, King, 0, 0), (W, Rook, 1, 0), (B, King, 2, 0)]);
    assert_eq!(pseudo(&p, 1, 0), set(&[(1, 1), (1, -1), (2, 0)]));
    // Taking the King would leave the White King alone: not even that is allowed.
    assert_eq!(targets(&p, 1, 0), set(&[(1, 1), (1, -1)]));
    assert!(!engine::keeps_connected(
        &p.board,
        &Move::new(sq(1, 0), sq(2, 0))
    ));
}

#[test]
fn a_capture_that_isolates_a_piece_is_illegal() {
    // N - R - P - K in a row: the Rook taking the pawn leaves the Knight alone.
    let p = position(
        W,
        &[
            (B, Knight, -1, 0),
            (W, Rook, 0, 0),
            (B, Pawn, 1, 0),
            (W, King, 2, 0),
        ],
    );
    assert_eq!(pseudo(&p, 0, 0), set(&[(-1, 0), (1, 0), (0, 1), (0, -1)]));
    assert_eq!(targets(&p, 0, 0), set(&[(0, 1), (0, -1)]));
}

#[test]
fn a_slider_may_go_far_but_must_end_touching() {
    // A row of seven White pawns and a Queen above its left end.
    let mut pieces: Vec<(Color, Kind, i32, i32)> = (0..7).map(|x| (W, Pawn, x, 0)).collect();
    pieces.push((W, Queen, 0, 1));
    pieces.push((B, King, 3, -1));
    let p = position(W, &pieces);
    assert_eq!(
        targets(&p, 0, 1),
        set(&[
            (-1, 1),
            (-1, 0),
            (1, 1),
            (2, 1),
            (3, 1),
            (4, 1),
            (5, 1),
            (6, 1),
            (7, 1),
        ])
    );
    // Farther out nothing could touch it: such squares are not even generated.
    let by_movement = pseudo(&p, 0, 1);
    assert!(!by_movement.contains(&(8, 1)));
    assert!(!by_movement.contains(&(0, 2)));
}

#[test]
fn diagonal_contact_counts() {
    // A Rook diagonally next to a pawn: (0, 2) and (2, 0) touch it only at a corner.
    let p = position(W, &[(W, Rook, 0, 0), (B, Pawn, 1, 1)]);
    assert!(p.board.is_connected());
    assert_eq!(targets(&p, 0, 0), set(&[(0, 1), (0, 2), (1, 0), (2, 0)]));
}

// ---------------------------------------------------------------------------------------
// Draws and placements
// ---------------------------------------------------------------------------------------

#[test]
fn the_first_piece_goes_on_the_origin() {
    let mut p = Position::new(0);
    assert_eq!(p.placement_squares(), vec![Square::ORIGIN]);
    assert!(p.legal_moves().is_empty());
    assert!(p.declare_draw(B).is_err());
    assert!(p.place(Knight, Square::ORIGIN).is_err(), "no draw declared");
    p.declare_draw(W).unwrap();
    assert!(p.declare_draw(W).is_err(), "already drawn");
    assert!(p.play_move(&Move::new(sq(0, 0), sq(0, 1))).is_err());
    assert!(p.place(Knight, sq(1, 0)).is_err());
    p.place(Knight, Square::ORIGIN).unwrap();
    assert_eq!(p.board.get(Square::ORIGIN), Some(Piece::new(W, Knight)));
    assert_eq!(p.stack(W).count(Knight), 1);
    assert_eq!((p.to_move, p.phase, p.ply), (B, Phase::Turn, 1));
}

#[test]
fn later_pieces_go_next_to_any_piece_on_an_empty_square() {
    let mut p = Position::new(0);
    play(&mut p, "Q@a1");
    assert_eq!(
        p.placement_squares(),
        vec![
            sq(-1, -1),
            sq(-1, 0),
            sq(-1, 1),
            sq(0, -1),
            sq(0, 1),
            sq(1, -1),
            sq(1, 0),
            sq(1, 1),
        ]
    );
    p.declare_draw(B).unwrap();
    assert!(
        p.place(Pawn, sq(2, 0))
            .unwrap_err()
            .to_string()
            .contains("touches no piece")
    );
    assert!(
        p.place(Pawn, sq(0, 0))
            .unwrap_err()
            .to_string()
            .contains("occupied")
    );
    p.place(Pawn, sq(1, 0)).unwrap();
    // White may now place next to the Black pawn only: ANY piece counts.
    let squares = p.placement_squares();
    assert_eq!(squares.len(), 10);
    assert!(squares.contains(&sq(2, 0)));
    assert!(!squares.contains(&sq(1, 0)));
}

#[test]
fn the_draw_pool_is_public_and_sorted() {
    let mut p = Position::new(0);
    assert_eq!(
        p.draw_pool(W),
        vec![
            King, Queen, Rook, Rook, Bishop, Bishop, Knight, Knight, Pawn, Pawn, Pawn, Pawn, Pawn,
            Pawn, Pawn, Pawn
        ]
    );
    play(&mut p, "R@a1");
    assert_eq!(
        p.draw_pool(W),
        vec![
            King, Queen, Rook, Bishop, Bishop, Knight, Knight, Pawn, Pawn, Pawn, Pawn, Pawn, Pawn,
            Pawn, Pawn
        ]
    );
    assert_eq!(p.draw_pool(B).len(), 16);
    assert_eq!(p.stack(W).to_string(), "K Q R B2 N2 P8");
    assert_eq!(Stack::empty().to_string(), "empty");
    // A kind that is not left cannot be placed.
    p.stacks[B.index()] = Stack::from_counts([0, 0, 0, 0, 0, 1]);
    p.declare_draw(B).unwrap();
    assert!(
        p.place(Knight, sq(1, 0))
            .unwrap_err()
            .to_string()
            .contains("no Knight")
    );
    p.place(Pawn, sq(1, 0)).unwrap();
    assert!(p.stack(B).is_empty());
}

#[test]
fn a_refused_placement_ply_changes_nothing() {
    let mut p = Position::new(0);
    let before = p.clone();
    assert!(
        p.play_ply(&Ply::Place {
            kind: Queen,
            at: sq(3, 3)
        })
        .is_err()
    );
    assert_eq!(p, before);
}

// ---------------------------------------------------------------------------------------
// Turn obligations and endings
// ---------------------------------------------------------------------------------------

#[test]
fn with_an_empty_stack_a_player_must_move() {
    let mut p = seed_example(W);
    p.stacks[W.index()] = Stack::empty();
    assert!(!p.can_draw());
    assert!(!p.must_draw());
    assert!(
        p.declare_draw(W)
            .unwrap_err()
            .to_string()
            .contains("must move")
    );
    assert!(err(&p, "N@a2").contains("must move"));
    assert_eq!(p.legal_moves().len(), 4);
}

#[test]
fn empty_stack_and_no_move_is_a_stalemate() {
    let mut p = seed_example(W);
    p.stacks[B.index()] = Stack::empty();
    play(&mut p, "Nd4");
    assert_eq!(p.end, Some(End::NoMove { color: B }));
    assert!(p.end.unwrap().is_draw());
    assert_eq!(engine::result_token(p.end), "1/2-1/2");
    assert!(p.legal_moves().is_empty() && !p.can_draw());
    // With pieces left to draw the same position is no stalemate: Black must draw.
    let mut q = seed_example(W);
    play(&mut q, "Nd4");
    assert_eq!(q.end, None);
    assert!(q.must_draw());
}

#[test]
fn taking_the_king_wins() {
    let mut p = position(W, &[(W, Rook, 0, 0), (B, King, 1, 0), (W, Pawn, 2, 0)]);
    play(&mut p, "Rxc2");
    assert_eq!(p.end, Some(End::KingCaptured { winner: W }));
    assert_eq!(p.end.unwrap().winner(), Some(W));
    assert_eq!(engine::result_token(p.end), "1-0");
    assert!(p.legal_moves().is_empty() && !p.can_draw());
    assert!(p.declare_draw(B).unwrap_err().to_string().contains("over"));
    assert!(p.play_move(&Move::new(sq(2, 0), sq(2, 1))).is_err());

    let mut p = position(B, &[(B, Knight, 0, 0), (W, King, 2, 1), (W, Pawn, 1, 0)]);
    p.play_move(&Move::new(sq(0, 0), sq(2, 1))).unwrap();
    assert_eq!(p.end, Some(End::KingCaptured { winner: B }));
    assert_eq!(engine::result_token(p.end), "0-1");
}

#[test]
fn a_king_with_no_safe_square_is_a_stalemate() {
    // A lone Queen reaches every square next to her, and taking there keeps the board
    // (one piece) together.
    let mut p = Position::new(0);
    play(&mut p, "Q@a1");
    p.declare_draw(B).unwrap();
    assert!(p.safe_king_squares().is_empty());
    p.place(King, sq(1, 0)).unwrap();
    assert_eq!(p.end, Some(End::KingUnplaceable { color: B }));
    assert!(p.end.unwrap().is_draw());
    // The King still went where it was put.
    assert_eq!(p.board.get(sq(1, 0)), Some(Piece::new(B, King)));
}

#[test]
fn a_king_with_a_safe_square_may_still_be_put_en_prise() {
    // Next to a Knight every square is safe.
    let mut p = Position::new(0);
    play(&mut p, "N@a1");
    assert_eq!(p.safe_king_squares().len(), 8);
    // Next to a Rook only the diagonal squares are.
    let mut p = Position::new(0);
    play(&mut p, "R@a1");
    assert_eq!(
        p.safe_king_squares(),
        vec![sq(-1, -1), sq(-1, 1), sq(1, -1), sq(1, 1)]
    );
    play(&mut p, "K@c2");
    assert_eq!(p.end, None);
    assert!(p.king_capturable(B));
    play(&mut p, "Rxc2");
    assert_eq!(p.end, Some(End::KingCaptured { winner: W }));
}

#[test]
fn king_safety_counts_the_connectivity_rule() {
    // White Queen on the origin, Black Knight west of her; Black places his King. The
    // Queen may only take where she still touches the Knight afterwards.
    let mut p = position(B, &[(W, Queen, 0, 0), (B, Knight, -1, 0)]);
    p.declare_draw(B).unwrap();
    assert_eq!(
        p.safe_king_squares(),
        vec![
            sq(-2, -1),
            sq(-2, 0),
            sq(-2, 1),
            sq(1, -1),
            sq(1, 0),
            sq(1, 1)
        ]
    );
}

#[test]
fn white_s_first_king_is_safe() {
    let mut p = Position::new(0);
    p.declare_draw(W).unwrap();
    assert_eq!(p.safe_king_squares(), vec![Square::ORIGIN]);
    p.place(King, Square::ORIGIN).unwrap();
    assert_eq!(p.end, None);
}

#[test]
fn the_ply_limit_draws() {
    let mut p = Position::new(3);
    play(&mut p, "N@a1");
    play(&mut p, "N@c2");
    p.declare_draw(W).unwrap();
    assert_eq!(p.end, None, "a declaration is not a ply");
    p.place(Pawn, sq(-1, 0)).unwrap();
    assert_eq!(p.ply, 3);
    assert_eq!(p.end, Some(End::PlyLimit));
    assert!(p.end.unwrap().reason().contains("ply limit"));
    // No limit: nothing ends.
    let mut p = Position::new(0);
    for t in ["N@a1", "N@c2", "P@a2", "P@e2"] {
        play(&mut p, t);
    }
    assert_eq!(p.end, None);
    // Taking the King on the last ply is a win, not a draw.
    let mut p = position(W, &[(W, Rook, 0, 0), (B, King, 1, 0), (W, Pawn, 2, 0)]);
    p.ply_limit = 1;
    play(&mut p, "Rxc2");
    assert_eq!(p.end, Some(End::KingCaptured { winner: W }));
}

#[test]
fn leaving_the_king_capturable_is_legal_but_flagged() {
    // K R . r with a pawn bridging to the Black Rook.
    let p = position(
        W,
        &[
            (W, King, 0, 0),
            (W, Rook, 1, 0),
            (W, Pawn, 2, 1),
            (B, Rook, 3, 0),
        ],
    );
    assert!(!p.king_capturable(W));
    let rook_up = Move::new(sq(1, 0), sq(1, 1));
    assert!(p.legal_moves().contains(&rook_up));
    assert!(p.leaves_king_capturable(&rook_up));
    let king_up = Move::new(sq(0, 0), sq(0, 1));
    assert!(p.legal_moves().contains(&king_up));
    assert!(!p.leaves_king_capturable(&king_up));
    let mut q = p.clone();
    q.play_move(&rook_up).unwrap();
    assert!(q.king_capturable(W));
}

// ---------------------------------------------------------------------------------------
// Notation
// ---------------------------------------------------------------------------------------

/// White B e6 and P b3 can both take the Black Knight on c4.
fn bc4_both() -> Position {
    display_position(
        W,
        &[
            (W, Rook, "c2"),
            (W, King, "c3"),
            (W, Pawn, "b3"),
            (B, Knight, "c4"),
            (B, Pawn, "c5"),
            (B, Pawn, "d6"),
            (W, Bishop, "e6"),
        ],
    )
}

#[test]
fn bc4_is_read_both_ways() {
    // Both fit: rejected.
    let p = bc4_both();
    let e = err(&p, "Bc4");
    assert!(
        e.contains("ambiguous") && e.contains("e6-c4") && e.contains("b3-c4"),
        "{e}"
    );
    assert!(err(&p, "Bxc4").contains("ambiguous"));
    assert!(
        err(&p, "bxc4").contains("ambiguous"),
        "the case does not tell them apart"
    );
    assert_eq!(mv(&p, "Bexc4"), Move::new(at(&p, "e6"), at(&p, "c4")));
    assert_eq!(mv(&p, "b3xc4"), Move::new(at(&p, "b3"), at(&p, "c4")));
    assert_eq!(engine::write_move(&p, &mv(&p, "e6-c4")), "Bexc4");
    assert_eq!(engine::write_move(&p, &mv(&p, "b3-c4")), "b3xc4");

    // Only the Bishop can get there: a Bishop move.
    let p = display_position(
        W,
        &[
            (W, Rook, "c2"),
            (W, Pawn, "b2"),
            (W, King, "c3"),
            (B, Knight, "c4"),
            (B, Pawn, "c5"),
            (B, Pawn, "d6"),
            (W, Bishop, "e6"),
        ],
    );
    let bishop = Move::new(at(&p, "e6"), at(&p, "c4"));
    assert_eq!(mv(&p, "Bc4"), bishop);
    assert_eq!(mv(&p, "Bxc4"), bishop);
    assert_eq!(engine::write_move(&p, &bishop), "Bxc4");

    // Only the pawn from file b can: a pawn capture.
    let p = display_position(
        W,
        &[
            (W, Rook, "c2"),
            (W, King, "c3"),
            (W, Pawn, "b3"),
            (B, Knight, "c4"),
            (B, Pawn, "c5"),
            (B, Pawn, "d6"),
            (W, Bishop, "e7"),
        ],
    );
    let pawn = Move::new(at(&p, "b3"), at(&p, "c4"));
    assert_eq!(mv(&p, "Bc4"), pawn);
    assert_eq!(mv(&p, "bc4"), pawn);
    assert_eq!(mv(&p, "bxc4"), pawn);
    assert_eq!(engine::write_move(&p, &pawn), "bxc4");
    // `P` may be written.
    assert_eq!(mv(&p, "Pbxc4"), pawn);
    assert_eq!(mv(&p, "PBC4"), pawn);
    // A pawn capture must name the pawn's file.
    assert!(err(&p, "c4").contains("pawn capture must name"));
    assert!(err(&p, "xc4").contains("pawn capture must name"));
}

/// Knights on d4 and g5 can both go to f3.
fn two_knights() -> Position {
    display_position(
        W,
        &[
            (W, Pawn, "b2"),
            (W, Pawn, "c2"),
            (W, Pawn, "d3"),
            (W, Pawn, "e4"),
            (W, Pawn, "f4"),
            (W, Knight, "d4"),
            (W, Knight, "g5"),
        ],
    )
}

#[test]
fn knights_are_told_apart_by_file_or_rank() {
    let p = two_knights();
    let (from_d4, from_g5) = (
        Move::new(at(&p, "d4"), at(&p, "f3")),
        Move::new(at(&p, "g5"), at(&p, "f3")),
    );
    let e = err(&p, "Nf3");
    assert!(
        e.contains("ambiguous") && e.contains("d4-f3") && e.contains("g5-f3"),
        "{e}"
    );
    assert_eq!(mv(&p, "Ngf3"), from_g5);
    assert_eq!(mv(&p, "Ndf3"), from_d4);
    assert_eq!(mv(&p, "N5f3"), from_g5);
    assert_eq!(mv(&p, "N4f3"), from_d4);
    assert_eq!(mv(&p, "Ng5f3"), from_g5);
    assert_eq!(mv(&p, "d4-f3"), from_d4);
    // Rank 1 is the border and never holds a piece: the seed's N1f3 names nothing here.
    assert!(err(&p, "N1f3").contains("no legal move"));
    assert_eq!(engine::write_move(&p, &from_g5), "Ngf3");
    assert_eq!(engine::write_move(&p, &from_d4), "Ndf3");
    // `x` is checked.
    assert!(err(&p, "Nxf3").contains("written as a capture"));
    assert!(err(&p, "Ngxf3").contains("written as a capture"));
}

#[test]
fn rooks_are_told_apart_by_file_in_upper_case() {
    let p = display_position(
        W,
        &[
            (W, Rook, "b3"),
            (W, Rook, "h3"),
            (W, Pawn, "c2"),
            (W, Pawn, "d2"),
            (W, Pawn, "e2"),
            (W, Pawn, "f2"),
            (W, Pawn, "g2"),
        ],
    );
    let (left, right) = (
        Move::new(at(&p, "b3"), at(&p, "e3")),
        Move::new(at(&p, "h3"), at(&p, "e3")),
    );
    assert!(err(&p, "Re3").contains("ambiguous"));
    assert!(err(&p, "R3e3").contains("ambiguous"), "same rank");
    // The seed's `RA`: piece and origin file, here in upper case.
    assert_eq!(mv(&p, "RBE3"), left);
    assert_eq!(mv(&p, "RHE3"), right);
    assert_eq!(mv(&p, "rhe3"), right);
    assert_eq!(mv(&p, "Rb3e3"), left);
    assert_eq!(engine::write_move(&p, &left), "Rbe3");
}

#[test]
fn from_to_and_case() {
    let p = seed_example(W);
    let knight = Move::new(sq(0, 0), sq(2, 1));
    assert_eq!(mv(&p, "b3-d4"), knight);
    assert_eq!(mv(&p, "B3-D4"), knight);
    assert_eq!(mv(&p, "nD4"), knight);
    assert_eq!(mv(&p, "ND4"), knight);
    assert!(err(&p, "c3-d4").contains("break the board"));
    assert!(err(&p, "c3-c4").contains("cannot go"));
    assert!(err(&p, "a1-a2").contains("no piece of White"));
    assert!(
        err(&p, "b2-b1").contains("no piece of White"),
        "a Black pawn"
    );
    let mut q = Position::new(0);
    assert_eq!(
        engine::parse_ply(&q, "n@A1"),
        Ok(Ply::Place {
            kind: Knight,
            at: Square::ORIGIN
        })
    );
    play(&mut q, "k@a1");
    assert_eq!(q.board.get(Square::ORIGIN), Some(Piece::new(W, King)));
}

#[test]
fn unreadable_tokens() {
    for t in [
        "", "hello", "N@", "Z@a1", "NN@a1", "K@a0", "Nf03", "Nf0", "b3-", "-d4", "N-f3", "Nf3+",
        "Ñf3",
    ] {
        assert!(engine::read(t).is_err(), "{t:?}");
    }
}

#[test]
fn every_reading_is_listed() {
    let Ok(Written::Short(r)) = engine::read("Nab3") else {
        panic!("Nab3 is a short move");
    };
    let ab3 = DisplaySquare { file: 28, rank: 3 };
    let b3 = DisplaySquare { file: 2, rank: 3 };
    let reading = |kind, file, capture, to| Reading {
        kind,
        file,
        rank: None,
        capture,
        to,
    };
    // Knight to ab3; Knight from file a to b3; pawn from file n to ab3; pawn from file
    // na to b3; pawn to nab3.
    assert!(r.contains(&reading(Knight, None, false, ab3)));
    assert!(r.contains(&reading(Knight, Some(1), false, b3)));
    assert!(r.contains(&reading(Pawn, Some(14), false, ab3)));
    assert!(r.contains(&reading(Pawn, Some(14 * 26 + 1), false, b3)));
    assert!(r.contains(&reading(
        Pawn,
        None,
        false,
        DisplaySquare {
            file: 14 * 26 * 26 + 28,
            rank: 3
        }
    )));
    assert_eq!(r.len(), 5);
    // `x` is a file letter as well as the capture mark.
    let Ok(Written::Short(r)) = engine::read("Rxb4") else {
        panic!("Rxb4 is a short move");
    };
    let b4 = DisplaySquare { file: 2, rank: 4 };
    assert!(r.contains(&reading(Rook, None, true, b4)));
    assert!(r.contains(&reading(Rook, Some(24), false, b4)));
    assert!(r.contains(&reading(
        Rook,
        None,
        false,
        DisplaySquare {
            file: 24 * 26 + 2,
            rank: 4
        }
    )));
}

/// A row of 29 pieces on y = 0 from x = 0 to 28 (files b to ad) with a White Knight at
/// its east end and a White Rook above x = 20: 31 files, `a` to `ae`.
fn wide_row() -> Position {
    let mut pieces = vec![];
    let black = [
        King, Queen, Rook, Rook, Bishop, Bishop, Knight, Knight, Pawn, Pawn, Pawn, Pawn, Pawn,
        Pawn, Pawn, Pawn,
    ];
    let white = [
        King, Queen, Rook, Bishop, Bishop, Knight, Pawn, Pawn, Pawn, Pawn, Pawn, Pawn,
    ];
    for (x, k) in black.iter().enumerate() {
        pieces.push((B, *k, x as i32, 0));
    }
    for (i, k) in white.iter().enumerate() {
        pieces.push((W, *k, 16 + i as i32, 0));
    }
    pieces.push((W, Knight, 28, 0));
    pieces.push((W, Rook, 20, 1));
    position(W, &pieces)
}

#[test]
fn files_past_z() {
    let p = wide_row();
    let f = Frame::of(&p.board);
    assert_eq!((f.a1, f.files, f.ranks), (sq(-1, -1), 31, 4));
    assert_eq!(f.name(sq(24, 1)).unwrap(), "z3");
    assert_eq!(f.name(sq(25, 1)).unwrap(), "aa3");
    assert_eq!(f.name(sq(26, 1)).unwrap(), "ab3");
    assert_eq!(f.name(sq(29, 1)).unwrap(), "ae3");
    assert_eq!(f.name(sq(20, 1)).unwrap(), "v3");
    assert_eq!(mv(&p, "Rz3"), Move::new(sq(20, 1), sq(24, 1)));
    assert_eq!(mv(&p, "Raa3"), Move::new(sq(20, 1), sq(25, 1)));
    assert_eq!(mv(&p, "RAB3"), Move::new(sq(20, 1), sq(26, 1)));
    assert_eq!(mv(&p, "Rae3"), Move::new(sq(20, 1), sq(29, 1)));
    assert_eq!(mv(&p, "v3-ab3"), Move::new(sq(20, 1), sq(26, 1)));
    assert!(
        engine::parse_ply(&p, "Raf3").is_err(),
        "beyond the border + 1"
    );
    // Nab3: the Knight from ad2 to ab3 (the reading "Knight from file a" finds none).
    let knight = Move::new(sq(28, 0), sq(26, 1));
    assert_eq!(mv(&p, "Nab3"), knight);
    assert_eq!(mv(&p, "Nadab3"), knight);
    assert_eq!(engine::write_move(&p, &knight), "Nab3");
    assert_eq!(
        engine::write_move(&p, &Move::new(sq(20, 1), sq(25, 1))),
        "Raa3"
    );
    // The diagram labels the files.
    let text = engine::text(&p);
    let header = text.lines().next().unwrap();
    assert!(
        header.ends_with("x   y   z  aa  ab  ac  ad  ae"),
        "{header:?}"
    );
}

/// Far wider than any real game (needs 135 pieces, so built by hand): file `ba` exists,
/// and `Qbab28` reads as "Queen from file b to ab28" and "Queen from file ba to b28",
/// both legal.
fn very_wide() -> Position {
    let mut p = Position::new(0);
    let mut put = |x, y, piece| {
        assert!(p.board.put(sq(x, y), piece).is_none());
    };
    let filler = Piece::new(B, Pawn);
    for x in 0..=53 {
        put(x, 27, filler);
    }
    for y in 1..=26 {
        put(53, y, filler);
    }
    for x in 1..=53 {
        put(x, 0, filler);
    }
    put(0, 0, Piece::new(W, Queen));
    put(51, 26, Piece::new(W, Queen));
    assert!(p.board.is_connected());
    p
}

#[test]
fn a_two_letter_file_against_file_and_disambiguation() {
    let p = very_wide();
    let f = Frame::of(&p.board);
    assert_eq!(f.a1, sq(-1, -1));
    assert_eq!(f.name(sq(51, 26)).unwrap(), "ba28");
    assert_eq!(f.name(sq(26, 26)).unwrap(), "ab28");
    let q1 = Move::new(sq(0, 0), sq(26, 26));
    let q2 = Move::new(sq(51, 26), sq(0, 26));
    assert!(p.legal_moves().contains(&q1) && p.legal_moves().contains(&q2));
    let e = err(&p, "Qbab28");
    assert!(
        e.contains("ambiguous") && e.contains("b2-ab28") && e.contains("ba28-b28"),
        "{e}"
    );
    assert_eq!(mv(&p, "Qb2ab28"), q1);
    assert_eq!(mv(&p, "ba28-b28"), q2);
    // Both Queens reach ab28, and Qbab28 is ambiguous, so the writer names the rank.
    assert_eq!(engine::write_move(&p, &q1), "Q2ab28");
    // Qb28 fits the first Queen too (up the b file), Qbab28 is ambiguous: the rank.
    assert_eq!(engine::write_move(&p, &q2), "Q28b28");
}

// ---------------------------------------------------------------------------------------
// Display coordinates
// ---------------------------------------------------------------------------------------

#[test]
fn file_names_are_bijective_base_26() {
    for (n, s) in [
        (1, "a"),
        (2, "b"),
        (26, "z"),
        (27, "aa"),
        (28, "ab"),
        (52, "az"),
        (53, "ba"),
        (702, "zz"),
        (703, "aaa"),
    ] {
        assert_eq!(engine::file_name(n), s);
        assert_eq!(engine::parse_file(s), Some(n));
        assert_eq!(engine::parse_file(&s.to_uppercase()), Some(n));
    }
    for n in 1..5000 {
        assert_eq!(engine::parse_file(&engine::file_name(n)), Some(n));
    }
    assert_eq!(engine::parse_file(""), None);
    assert_eq!(engine::parse_file("a1"), None);
    assert_eq!(engine::file_name(0), "");
}

#[test]
fn display_and_absolute_round_trip() {
    let empty = Frame::of(&Position::new(0).board);
    assert_eq!((empty.a1, empty.files, empty.ranks), (Square::ORIGIN, 1, 1));
    assert_eq!(empty.name(Square::ORIGIN).unwrap(), "a1");
    for p in [seed_example(W), wide_row(), two_knights()] {
        let f = Frame::of(&p.board);
        for file in 1..=f.files {
            for rank in 1..=f.ranks {
                let d = DisplaySquare { file, rank };
                let s = f.to_absolute(d).unwrap();
                assert!(f.contains(s));
                assert_eq!(f.to_display(s), Some(d));
                assert_eq!(f.square(&d.to_string()), Some(s));
                assert_eq!(f.name(s), Some(d.to_string()));
            }
        }
        // Left of file a and below rank 1 have no name.
        assert_eq!(f.to_display(sq(f.a1.x - 1, f.a1.y)), None);
        assert_eq!(f.to_display(sq(f.a1.x, f.a1.y - 1)), None);
        assert!(!f.contains(sq(f.a1.x + f.files as i32, f.a1.y)));
    }
    assert_eq!(
        DisplaySquare::parse("AB12"),
        Some(DisplaySquare { file: 28, rank: 12 })
    );
    for bad in ["a0", "a01", "1a", "a", "12", "a-1"] {
        assert_eq!(DisplaySquare::parse(bad), None, "{bad}");
    }
}

#[test]
fn names_shift_as_the_board_grows() {
    let mut p = Position::new(0);
    play(&mut p, "N@a1");
    assert_eq!(at(&p, "b2"), Square::ORIGIN);
    play(&mut p, "P@a1");
    // The Black pawn at (-1, -1) moved the frame one square down and left.
    assert_eq!(at(&p, "c3"), Square::ORIGIN);
    assert_eq!(at(&p, "b2"), sq(-1, -1));
}

// ---------------------------------------------------------------------------------------
// Scores
// ---------------------------------------------------------------------------------------

fn sample(name: &str) -> String {
    let path = format!("{}/scores/chex/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn sample_game_1_ends_by_taking_the_king() {
    let r = engine::replay(&sample("game1.txt")).unwrap();
    assert_eq!(r.plies, 5);
    assert_eq!(r.result.as_deref(), Some("1-0 (White captured the King)"));
    assert!(r.svg.unwrap().starts_with("<svg"));
    assert!(r.position.contains("game over"));
}

#[test]
fn sample_game_2_draws_places_and_moves() {
    let (pos, plies) = engine::replay_score(&sample("game2.txt")).unwrap();
    assert_eq!(plies.len(), 20);
    assert_eq!(pos.end, Some(End::PlyLimit));
    let placed = plies
        .iter()
        .filter(|p| matches!(p, Ply::Place { .. }))
        .count();
    assert_eq!((placed, plies.len() - placed), (8, 12));
    let r = engine::replay(&sample("game2.txt")).unwrap();
    assert_eq!(
        r.result.as_deref(),
        Some("1/2-1/2 (ply limit reached: draw)")
    );
}

#[test]
fn sample_game_3_is_a_king_stalemate() {
    let (pos, plies) = engine::replay_score(&sample("game3.txt")).unwrap();
    assert_eq!(plies.len(), 4);
    assert_eq!(pos.end, Some(End::KingUnplaceable { color: B }));
}

#[test]
fn samples_write_back_and_replay() {
    for (name, limit) in [("game1.txt", 0), ("game2.txt", 20), ("game3.txt", 30)] {
        let (pos, plies) = engine::replay_score(&sample(name)).unwrap();
        let text = engine::write_score(limit, &plies).unwrap();
        let (again, plies_again) = engine::replay_score(&text).unwrap();
        assert_eq!((again, plies_again), (pos, plies), "{name}:\n{text}");
    }
    let (_, plies) = engine::replay_score(&sample("game1.txt")).unwrap();
    assert_eq!(
        engine::write_score(0, &plies).unwrap(),
        "1. N@a1 K@c2 2. Q@d3 B@c1 3. Qxc3 1-0\n"
    );
    assert_eq!(
        engine::write_score(7, &plies[..2]).unwrap(),
        "[PlyLimit \"7\"]\n\n1. N@a1 K@c2 *\n"
    );
}

#[test]
fn write_score_refuses_an_illegal_ply() {
    let plies = [
        Ply::Place {
            kind: Knight,
            at: Square::ORIGIN,
        },
        Ply::Place {
            kind: Knight,
            at: sq(5, 5),
        },
    ];
    assert!(
        engine::write_score(0, &plies)
            .unwrap_err()
            .to_string()
            .starts_with("ply 2")
    );
}

fn unreadable(text: &str) -> String {
    match engine::replay(text) {
        Err(ReplayError::Unreadable(why)) => why,
        other => panic!("{text:?}: {other:?}"),
    }
}

fn illegal(text: &str) -> (usize, String) {
    match engine::replay(text) {
        Err(ReplayError::Illegal { ply, reason }) => (ply, reason),
        other => panic!("{text:?}: {other:?}"),
    }
}

#[test]
fn scores_that_are_not_scores() {
    assert!(unreadable("[PlyLimit \"x\"]\n1. N@a1").contains("PlyLimit"));
    assert!(unreadable("[PlyLimit 20]\n1. N@a1").contains("quoted"));
    assert!(unreadable("[PlyLimit \"2\"]\n[PlyLimit \"3\"]\n").contains("twice"));
    assert!(unreadable("[PlyLimit \"2\"\n").contains("tag"));
    assert!(unreadable("1. N@a1 { open").contains("unclosed"));
    assert!(unreadable("1. N@a1 }").contains("unmatched"));
    assert!(unreadable("1. hello").contains("not a move"));
    assert!(unreadable("1. Z@a1").contains("piece letter"));
    assert!(unreadable("1. N@a1 1-0 K@c2").contains("last"));
    assert!(unreadable("2. N@a1").contains("out of place"));
    assert!(unreadable("1. N@a1 1. K@c2").contains("out of place"));
    assert!(unreadable("1. N@a1 2... K@c2").contains("out of place"));
    assert!(unreadable("... N@a1").contains("'...'"));
    assert_eq!(ReplayError::Unreadable(String::new()).exit_code(), 2);
}

#[test]
fn scores_with_an_illegal_ply_name_it() {
    let (ply, why) = illegal("1. N@b2");
    assert_eq!(ply, 1);
    assert!(why.contains("a1"), "{why}");
    let (ply, why) = illegal("1. N@a1 K@d4");
    assert_eq!(ply, 2);
    assert!(why.contains("next to a piece"), "{why}");
    let (ply, why) = illegal("1. K@a1 P@c2 2. K@d2");
    assert_eq!(ply, 3);
    assert!(why.contains("no King"), "{why}");
    let (ply, why) = illegal("1. N@a1 K@c2 2. Nd4");
    assert_eq!(ply, 3);
    assert!(why.contains("Nd4"), "{why}");
    // Two Knights reach d2.
    let (ply, why) = illegal("1. N@a1 P@c2 2. N@c3 P@c1 3. Nd2");
    assert_eq!(ply, 5);
    assert!(why.contains("ambiguous"), "{why}");
    assert_eq!(
        engine::replay("1. N@a1 P@c2 2. N@c3 P@c1 3. Nbd2")
            .unwrap()
            .plies,
        5
    );
    // After the end.
    let (ply, why) = illegal("1. N@a1 K@c2 2. Q@d3 B@c1 3. Qxc3 N@c1");
    assert_eq!(ply, 6);
    assert!(why.contains("over"), "{why}");
    // A result that the position contradicts.
    let (ply, why) = illegal("1. N@a1 K@c2 2. Q@d3 B@c1 3. Qxc3 0-1");
    assert_eq!(ply, 5);
    assert!(why.contains("1-0"), "{why}");
    assert_eq!(ReplayError::Illegal { ply, reason: why }.exit_code(), 1);
}

#[test]
fn score_details() {
    // `7. ...` as two tokens, `*`, other tags ignored, comments anywhere.
    let r =
        engine::replay("[Event \"x\"]\n[Site \"y\"]\n\n1. N@a1 {a}{b} 1. ... K@c2 2.{c}Q@d3 *\n")
            .unwrap();
    assert_eq!(r.plies, 3);
    assert_eq!(r.result, None);
    // No numbers at all, and an unfinished game claimed as won (a resignation).
    let r = engine::replay("N@a1 K@c2 Q@d3 1-0").unwrap();
    assert_eq!((r.plies, r.result), (3, None));
    // An empty score.
    assert_eq!(engine::replay("").unwrap().plies, 0);
    // The ply limit from the tag.
    let r = engine::replay("[PlyLimit \"2\"]\n1. N@a1 K@c2 1/2-1/2").unwrap();
    assert_eq!(
        r.result.as_deref(),
        Some("1/2-1/2 (ply limit reached: draw)")
    );
    let (ply, _) = illegal("[PlyLimit \"2\"]\n1. N@a1 K@c2 2. Q@d3");
    assert_eq!(ply, 3);
}

// ---------------------------------------------------------------------------------------
// Seeded random games: invariants, and export/replay round trips
// ---------------------------------------------------------------------------------------

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn random_game(seed: u64, limit: u32) -> (Position, Vec<Ply>) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut p = Position::new(limit);
    let mut plies = vec![];
    while p.end.is_none() {
        let moves = p.legal_moves();
        assert!(
            p.can_draw() || !moves.is_empty(),
            "someone must be able to act"
        );
        let ply = if p.can_draw() && (moves.is_empty() || rng.below(3) == 0) {
            let pool = p.draw_pool(p.to_move);
            let squares = p.placement_squares();
            Ply::Place {
                kind: pool[rng.below(pool.len())],
                at: squares[rng.below(squares.len())],
            }
        } else {
            Ply::Move(moves[rng.below(moves.len())])
        };
        // Every written form reads back to the very same ply.
        assert_eq!(
            engine::parse_ply(&p, &engine::write_ply(&p, &ply)),
            Ok(ply),
            "{}",
            engine::text(&p)
        );
        p.play_ply(&ply).unwrap();
        plies.push(ply);
        assert!(p.board.is_connected());
        for c in Color::BOTH {
            for k in Kind::ALL {
                let on_board = p
                    .board
                    .iter()
                    .filter(|(_, x)| *x == Piece::new(c, k))
                    .count();
                assert!(
                    on_board + usize::from(p.stack(c).count(k))
                        <= usize::from(engine::ARMY[k.index()])
                );
            }
        }
    }
    (p, plies)
}

#[test]
fn random_games_keep_the_invariants_and_replay() {
    let mut ends = BTreeSet::new();
    for seed in 1..=40 {
        let (pos, plies) = random_game(seed, 150);
        ends.insert(
            format!("{:?}", pos.end.unwrap())
                .split(' ')
                .next()
                .unwrap()
                .to_owned(),
        );
        let text = engine::write_score(150, &plies).unwrap();
        let (again, replayed) = engine::replay_score(&text).unwrap();
        assert_eq!(replayed, plies, "seed {seed}");
        assert_eq!(again, pos, "seed {seed}");
    }
    assert!(ends.contains("KingCaptured"), "{ends:?}");
}
