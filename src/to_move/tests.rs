use super::*;
use shakmaty::fen::Fen;

fn board(placement: &str) -> Board {
    placement.parse::<Fen>().unwrap().into_setup().board
}

/// Class probabilities that say exactly what `board` holds.
fn sure(board: &Board) -> impl Fn(Square) -> ClassProbs + '_ {
    |sq| {
        let mut p = [0.0; 13];
        let i = crate::classify::CLASSES.iter().position(|&c| c == board.piece_at(sq)).unwrap();
        p[i] = 1.0;
        p
    }
}

#[test]
fn a_move_is_one_the_piece_on_its_square_could_make() {
    // After 1. e4 Nf6 2. Bc4 (White's bishop, Black's knight, both pawns moved).
    let b = board("rnbqkb1r/pppppppp/5n2/8/2B1P3/8/PPPP1PPP/RNBQK1NR");
    assert_eq!(mover(&b, Square::F1, Square::C4), Some(Color::White), "a bishop's clear diagonal");
    assert_eq!(mover(&b, Square::C4, Square::F1), None, "f1 is empty: nothing moved there");
    assert_eq!(mover(&b, Square::G8, Square::F6), Some(Color::Black), "a knight's jump");
    assert_eq!(mover(&b, Square::E2, Square::E4), Some(Color::White), "a two-square advance");
    assert_eq!(mover(&b, Square::E3, Square::E4), Some(Color::White), "a push");
    assert_eq!(mover(&b, Square::D3, Square::E4), Some(Color::White), "a capture");
    assert_eq!(mover(&b, Square::E5, Square::E4), None, "white pawns do not move down");
    assert_eq!(mover(&b, Square::E3, Square::F6), None, "no knight jump");
    assert_eq!(mover(&b, Square::H3, Square::C4), None, "not a line from c4");
    // A line blocked by a piece is no path: the bishop on c8 cannot have come from h3 past d7.
    assert_eq!(mover(&b, Square::H3, Square::C8), None, "d7 blocks the diagonal");
    // Castling and promotion.
    let castled = board("r4rk1/8/8/8/8/8/8/2KR3Q");
    assert_eq!(mover(&castled, Square::E1, Square::C1), Some(Color::White));
    assert_eq!(mover(&castled, Square::E8, Square::G8), Some(Color::Black));
    assert_eq!(mover(&castled, Square::G7, Square::H1), None, "the queen came from nowhere on the line");
    let promoted = board("3Q3k/8/8/8/8/8/8/K7");
    assert_eq!(mover(&promoted, Square::E7, Square::D8), Some(Color::White), "a capture promoting");
    assert_eq!(mover(&promoted, Square::D7, Square::D8), Some(Color::White), "a push promoting");
}

#[test]
fn a_king_in_check_is_the_side_to_move() {
    let b = board("4k3/8/8/8/8/8/4r3/4K3");
    assert_eq!(check_witness(&b, sure(&b)), Some((Color::White, 1.0)));
    let quiet = board("4k3/8/8/8/8/8/3r4/4K3");
    assert_eq!(check_witness(&quiet, sure(&quiet)), None);
    let both = board("4k3/4R3/8/8/8/8/4r3/4K3");
    assert_eq!(check_witness(&both, sure(&both)), None, "both in check: no legal position, no witness");
}

#[test]
fn the_last_move_decides_and_the_flag_wins() {
    // 1. e4: the pawn on e4 came from e2, so Black is to move.
    let b = board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR");
    let auto = FenOptions { turn_from_picture: true, ..Default::default() };
    let shown = [([Square::E4, Square::E2], 3.0)];
    let side = decide(&b, &shown, sure(&b), &auto);
    assert_eq!(
        (side.color, side.source, side.last_move),
        (Color::Black, TurnSource::LastMove, Some((Square::E2, Square::E4)))
    );
    assert!(side.confidence > 0.95, "{}", side.confidence);
    // A highlight no move explains says nothing; the strongest pair a move explains is the move.
    let side = decide(&b, &[([Square::E4, Square::A5], 3.0)], sure(&b), &auto);
    assert_eq!((side.color, side.source, side.confidence), (Color::White, TurnSource::Default, DEFAULT_CONFIDENCE));
    let side = decide(&b, &[([Square::E4, Square::A5], 5.0), ([Square::E2, Square::E4], 3.0)], sure(&b), &auto);
    assert_eq!((side.color, side.last_move), (Color::Black, Some((Square::E2, Square::E4))));
    // Castling drawn king to rook (e1 and h1 tinted, both now empty): White moved.
    let castled = board("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1");
    let side = decide(&castled, &[([Square::H1, Square::E1], 3.0)], sure(&castled), &auto);
    assert_eq!((side.color, side.last_move), (Color::Black, Some((Square::E1, Square::H1))));
    assert!(side.confidence > 0.95, "{}", side.confidence);
    // Not when the rook is not beside the king.
    let apart = board("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQR1K1");
    assert_eq!(decide(&apart, &[([Square::H1, Square::E1], 3.0)], sure(&apart), &auto).source, TurnSource::Default);
    // Another pair a move explains, nearly as strong, makes the reading less sure.
    let rival = [([Square::E2, Square::E4], 3.0), ([Square::G1, Square::F3], 2.5)];
    assert!(decide(&b, &rival, sure(&b), &auto).confidence < 0.6);
    // A rival nearly as strong whose move the other side made: the picture does not say.
    let both = [([Square::G1, Square::F3], 3.0), ([Square::B8, Square::C6], 2.5)];
    let cross = board("r1bqkbnr/pppppppp/2n5/8/8/5N2/PPPPPPPP/RNBQKB1R");
    assert_eq!(decide(&cross, &both, sure(&cross), &auto).source, TurnSource::Default);
    // The same rival much weaker than the move does not count.
    let weak = [([Square::G1, Square::F3], 3.0), ([Square::B8, Square::C6], 1.0)];
    assert_eq!(decide(&cross, &weak, sure(&cross), &auto).color, Color::Black);
    // The flag wins; without auto the picture is not asked.
    let told = FenOptions { turn_given: true, ..auto.clone() };
    assert_eq!(decide(&b, &shown, sure(&b), &told).source, TurnSource::Flag);
    assert_eq!(decide(&b, &shown, sure(&b), &FenOptions::default()).source, TurnSource::Default);
}

#[test]
fn en_passant_only_when_a_capture_is_possible() {
    // 1. e4 ... 2. e5 d5: the d-pawn passed d6 beside White's e5 pawn.
    let b = board("rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR");
    assert_eq!(en_passant_after(&b, Square::D7, Square::D5, Color::White), Some(Square::D6));
    let opts = FenOptions { turn_from_picture: true, en_passant_from_picture: true, ..Default::default() };
    let side = decide(&b, &[([Square::D7, Square::D5], 3.0)], sure(&b), &opts);
    assert_eq!((side.color, side.en_passant), (Color::White, Some(Square::D6)));
    // 1. e4: no black pawn beside e4, so no en passant square.
    let e4 = board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR");
    assert_eq!(en_passant_after(&e4, Square::E2, Square::E4, Color::Black), None);
}

/// A board's square backgrounds: light and dark shades with some texture, and `tinted` squares
/// laid over by `overlay` at `alpha`.
fn backgrounds(tinted: &[usize], overlay: [f32; 3], alpha: f32, texture: f32) -> [[f32; 3]; 64] {
    let (light, dark) = ([240.0, 217.0, 181.0], [181.0, 136.0, 99.0]);
    std::array::from_fn(|c| {
        let base = if (c % 8 + c / 8) % 2 == 0 { light } else { dark };
        let wobble = texture * (((c * 37) % 11) as f32 / 10.0 - 0.5);
        let b: [f32; 3] = std::array::from_fn(|k| base[k] + wobble);
        if tinted.contains(&c) {
            std::array::from_fn(|k| (1.0 - alpha) * b[k] + alpha * overlay[k])
        } else {
            b
        }
    })
}

#[test]
fn two_squares_under_one_tint_are_the_last_move() {
    // lichess's tint on a light and a dark square.
    let lichess = [155.0, 199.0, 0.0];
    let h = from_backgrounds(&backgrounds(&[12, 28], lichess, 0.41, 4.0));
    assert_eq!(h.len(), 1);
    assert!(h[0].cells == [12, 28] && h[0].strength > 2.0, "{h:?}");
    // cm-chessboard's faint shade (black at 11%) on a light and a dark square.
    let h = from_backgrounds(&backgrounds(&[0, 8], [0.0; 3], 0.11, 2.0));
    assert_eq!(h.iter().map(|h| h.cells).collect::<Vec<_>>(), [[0, 8]]);
    // A selected square in another tint makes no pair with them.
    let mut bg = backgrounds(&[12, 28], lichess, 0.41, 4.0);
    bg[40] = backgrounds(&[40], [20.0, 85.0, 30.0], 0.5, 4.0)[40];
    assert_eq!(from_backgrounds(&bg).iter().map(|h| h.cells).collect::<Vec<_>>(), [[12, 28]]);
}

#[test]
fn no_tint_no_last_move() {
    assert_eq!(from_backgrounds(&backgrounds(&[], [0.0; 3], 0.0, 4.0)), []);
    // A strongly textured board (wood) varies more than a faint shade stands out.
    assert_eq!(from_backgrounds(&backgrounds(&[3, 17], [0.0; 3], 0.11, 40.0)), []);
    // One tinted square (a check, a selection) is no move.
    assert_eq!(from_backgrounds(&backgrounds(&[9], [200.0, 0.0, 0.0], 0.6, 4.0)), []);
}

#[test]
fn glare_is_no_tint() {
    // Two neighbouring squares lit towards white (glare on a photographed screen) stand out as
    // much as a highlight, but no colour tints them.
    let bg = backgrounds(&[6, 14], [255.0, 255.0, 255.0], 0.5, 2.0);
    assert_eq!(from_backgrounds(&bg), []);
    // A yellow tint as bright is one.
    let bg = backgrounds(&[6, 14], [255.0, 255.0, 60.0], 0.5, 2.0);
    assert_eq!(from_backgrounds(&bg).iter().map(|h| h.cells).collect::<Vec<_>>(), [[6, 14]]);
}
