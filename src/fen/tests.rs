//! Tests of writing, checking and repairing the FEN.

use super::*;

fn board(fen: &str) -> Board {
    fen.parse::<Fen>().unwrap().into_setup().board
}

#[test]
fn start_position_with_defaults_and_auto_castling() {
    let b = board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR");
    let a = assemble(&b, &FenOptions::default());
    assert_eq!(a.fen, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1");
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);
    let a = assemble(&b, &FenOptions { castling: Castling::Auto, ..Default::default() });
    assert_eq!(a.fen, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
}

#[test]
fn impossible_castling_rights_are_dropped_with_a_reason() {
    let b = board("r3k2r/8/8/8/8/8/8/4K1R1");
    let opts = FenOptions { castling: "KQkq".parse().unwrap(), ..Default::default() };
    let a = assemble(&b, &opts);
    assert_eq!(a.fen, "r3k2r/8/8/8/8/8/8/4K1R1 w kq - 0 1");
    assert_eq!(a.warnings.len(), 2, "{:?}", a.warnings);
    assert!(a.warnings[0].contains("'K' dropped: no white rook is on h1"), "{:?}", a.warnings);
    let auto = assemble(&b, &FenOptions { castling: Castling::Auto, ..Default::default() });
    assert_eq!(auto.fen, "r3k2r/8/8/8/8/8/8/4K1R1 w kq - 0 1");
    assert!(auto.warnings.is_empty());
}

#[test]
fn en_passant_square_is_checked() {
    // 1.e4: Black to move, e3 is the en passant square.
    let b = board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR");
    let ok = FenOptions { turn: Color::Black, en_passant: Some(Square::E3), ..Default::default() };
    assert_eq!(assemble(&b, &ok).fen, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - e3 0 1");
    let wrong_side = FenOptions { turn: Color::White, en_passant: Some(Square::E3), ..Default::default() };
    let a = assemble(&b, &wrong_side);
    assert!(a.fen.contains(" w - - 0 1"));
    assert!(a.warnings.iter().any(|w| w.contains("rank 6")), "{:?}", a.warnings);
    let no_pawn = FenOptions { turn: Color::Black, en_passant: Some(Square::D3), ..Default::default() };
    assert!(assemble(&b, &no_pawn).warnings.iter().any(|w| w.contains("no white pawn on d4")));
}

#[test]
fn broken_rules_are_reported() {
    let w = check_board(&board("k7/8/8/8/8/8/8/KK5P"), Color::White);
    assert!(w.contains(&"white has 2 kings".to_string()), "{w:?}");
    assert!(w.iter().any(|m| m.contains("white pawn on h1")), "{w:?}");
    let w = check_board(&board("8/8/8/8/8/8/8/K7"), Color::White);
    assert!(w.contains(&"black has no king".to_string()), "{w:?}");
    // White to move while the black king is attacked by the rook.
    let w = check_board(&board("k7/8/8/8/8/8/8/R3K3"), Color::White);
    assert!(w.iter().any(|m| m.starts_with("black is in check (from a1)")), "{w:?}");
    assert!(check_board(&board("k7/8/8/8/8/8/8/R3K3"), Color::Black).is_empty());
    let w = check_board(&board("k7/PPPPPPPP/QQ6/8/8/8/8/4K3"), Color::White);
    assert!(w.iter().any(|m| m.contains("more pieces than promotions allow")), "{w:?}");
}

#[test]
fn suspects_are_the_least_sure_squares_of_each_broken_count() {
    // Three white bishops with eight pawns: one of the bishops is misread.
    let b = board("r1bq1rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2QBRK1");
    let p = |sq: Square| {
        if sq == Square::E1 {
            0.93
        } else if sq == Square::A2 {
            0.95
        } else {
            0.99
        }
    };
    let s = suspects(&b, p);
    assert_eq!(s.iter().map(|x| x.0).collect::<Vec<_>>(), [Square::E1, Square::B5, Square::G5], "{s:?}");
    assert!(s[0].1.contains("white has 8 pawns and 1 pieces beyond"), "{}", s[0].1);
    // A legal position has none.
    assert!(suspects(&board("r1bq1rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2Q1RK1"), p).is_empty());
    // Two black kings and a pawn on rank 8; nine black pawns: the least sure pawn.
    let s = suspects(&board("k1k4P/pppppppp/p7/8/8/8/8/4K3"), |sq| if sq == Square::C7 { 0.5 } else { 0.99 });
    assert_eq!(s.iter().map(|x| x.0).collect::<Vec<_>>(), [Square::H8, Square::A8, Square::C8, Square::C7], "{s:?}");
    // A board editor's layout: sixteen kings a side flag nothing.
    assert!(suspects(&board("kkkkkkkk/kkkkkkkk/8/8/8/8/KKKKKKKK/KKKKKKKK"), |_| 0.99).is_empty());
}

#[test]
fn a_sure_second_king_alone_is_told_from_other_broken_rules() {
    let two = board("r1b2rk1/ppp2ppp/8/8/8/8/PPP2PPP/R1K2RK1");
    let sure = |_: Square| 0.99;
    assert!(sure_second_king_only(&two, &suspects(&two, sure), sure, 0.95));
    // One of them read at 90%: a misread, likely.
    let unsure = |sq: Square| if sq == Square::C1 { 0.9 } else { 0.99 };
    assert!(!sure_second_king_only(&two, &suspects(&two, unsure), unsure, 0.95));
    // A pawn on rank 8 besides.
    let more = board("r1b2rkP/ppp2ppp/8/8/8/8/PPP2PP1/R1K2RK1");
    assert!(!sure_second_king_only(&more, &suspects(&more, sure), sure, 0.95));
    // The other side without its king: a king read as the wrong colour.
    let colour = board("r1b2r2/ppp2ppp/8/8/8/8/PPP2PPP/R1K2RK1");
    assert!(!sure_second_king_only(&colour, &suspects(&colour, sure), sure, 0.95));
}

#[test]
fn a_side_without_a_king_is_named_when_the_other_has_one() {
    assert_eq!(kingless_side(&board("8/8/6r1/8/2n5/4q3/8/3k4")), Some(Color::White));
    assert_eq!(kingless_side(&board("8/8/8/8/8/8/8/KK6")), Some(Color::Black));
    assert_eq!(kingless_side(&board("8/8/8/3N4/8/8/8/8")), None);
    assert_eq!(kingless_side(&board("k7/8/8/8/8/8/8/K7")), None);
}

#[test]
fn five_kings_of_a_side_make_a_deliberate_layout() {
    assert!(deliberate_layout(&board("kkkkkkkk/kkkkkkkk/8/8/8/8/KKKKKKKK/KKKKKKKK")));
    assert!(deliberate_layout(&board("k7/8/8/8/8/8/8/KKKKK3")));
    // Four kings, or a misread or two: two kings, a pawn on rank 1, three bishops with eight
    // pawns.
    assert!(!deliberate_layout(&board("k7/8/8/8/8/8/8/KKKK4")));
    assert!(!deliberate_layout(&board("k7/8/8/8/8/8/8/KK5P")));
    assert!(!deliberate_layout(&board("r1bq1rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2QBRK1")));
    // A rendered photo whose white back rank and pawns were read as Black's: five black
    // knights, but a misread, not a layout.
    assert!(!deliberate_layout(&board("1nbqqrnr/p3pppp/8/4p2B/8/5p2/B1R1R1BR/nnbq1rnk")));
}

#[test]
fn repair_fixes_unsure_kings_and_pawns_but_keeps_confident_squares() {
    use crate::classify::class_index;
    let sq = [Square::A1, Square::B1, Square::C8, Square::D4];
    let one_hot = |c: usize, p: f32, alt: usize, q: f32| {
        let mut v = [0.0f32; 13];
        v[c] = p;
        v[alt] += q;
        v[0] += 1.0 - p - q;
        v
    };
    let (k, bk) = (
        class_index(Some(Piece { color: Color::White, role: Role::King })),
        class_index(Some(Piece { color: Color::Black, role: Role::King })),
    );
    let (wp, wq) = (
        class_index(Some(Piece { color: Color::White, role: Role::Pawn })),
        class_index(Some(Piece { color: Color::White, role: Role::Queen })),
    );
    // a1: a sure black king; b1: an unsure black king that may be White's; c8: an unsure
    // white pawn on rank 8 that may be a queen; d4: empty.
    let probs =
        [one_hot(bk, 0.99, 0, 0.0), one_hot(bk, 0.55, k, 0.40), one_hot(wp, 0.6, wq, 0.35), one_hot(0, 1.0, 0, 0.0)];
    let mut classes = vec![bk, bk, wp, 0];
    let changes = repair(&probs, &sq, &mut classes);
    assert_eq!(classes, vec![bk, k, wq, 0]);
    assert_eq!(changes.len(), 2, "{changes:?}");
    assert!(changes[0].starts_with("b1 read as k (55%), taken as K (40%)"), "{changes:?}");
    // A white king read as a second black king, while White has none: the unsure one turns.
    let probs = [one_hot(bk, 0.7, k, 0.25), one_hot(bk, 0.6, k, 0.3), one_hot(0, 0.6, k, 0.3), one_hot(0, 1.0, 0, 0.0)];
    let mut classes = vec![bk, bk, 0, 0];
    repair(&probs, &sq, &mut classes);
    assert_eq!(classes, vec![bk, k, 0, 0]);
    // The same squares, all sure: nothing changes (a board editor may show anything).
    let sure =
        [one_hot(bk, 0.99, 0, 0.0), one_hot(bk, 0.95, k, 0.04), one_hot(wp, 0.97, wq, 0.02), one_hot(0, 1.0, 0, 0.0)];
    let mut classes = vec![bk, bk, wp, 0];
    assert!(repair(&sure, &sq, &mut classes).is_empty());
    assert_eq!(classes, vec![bk, bk, wp, 0]);
}

#[test]
fn repair_picks_the_most_probable_material_and_needs_plausible_classes() {
    // Black shows three queens with eight pawns: f8 is Black's bishop, d1 White's queen; a
    // change at a time would have made f8 White's queen first.
    let read = "r1b1kq1r/pp1n1ppp/2p1pn2/q2p2B1/2PP4/2N1PN2/PP3PPP/R2qKB1R";
    let (probs, sq, mut classes) = sure_board_but(
        read,
        &[
            (Square::F8, &[('q', 0.40), ('b', 0.30), ('Q', 0.28), ('.', 0.02)]),
            (Square::D1, &[('q', 0.66), ('Q', 0.28), ('.', 0.06)]),
        ],
    );
    let changes = repair(&probs, &sq, &mut classes);
    assert_eq!(
        placement_of(&sq, &classes),
        "r1b1kb1r/pp1n1ppp/2p1pn2/q2p2B1/2PP4/2N1PN2/PP3PPP/R2QKB1R",
        "{changes:?}"
    );
    assert_eq!(changes.len(), 2);
    // A second black queen read at 46% against 41% for White's, and White has none.
    let (probs, sq, mut classes) =
        sure_board_but("4r2r/p1pb1ppk/8/1q6/8/4q3/8/6K1", &[(Square::E3, &[('q', 0.46), ('Q', 0.41), ('.', 0.13)])]);
    repair(&probs, &sq, &mut classes);
    assert_eq!(placement_of(&sq, &classes), "4r2r/p1pb1ppk/8/1q6/8/4Q3/8/6K1");
    // Nine black pawns and a sure extra queen: the unsure pawn turns White's; a sure square
    // never changes, nor does one whose other classes are implausible.
    let (probs, sq, mut classes) = sure_board_but(
        "rnbqkbnr/pppp1ppp/8/4p3/2P5/8/PP1pPPPP/RNBqKBNR",
        &[
            (Square::D2, &[('p', 0.53), ('P', 0.40), ('.', 0.07)]),
            (Square::B7, &[('p', 0.84), ('Q', 0.04), ('.', 0.04), ('n', 0.04), ('b', 0.04)]),
        ],
    );
    repair(&probs, &sq, &mut classes);
    assert_eq!(placement_of(&sq, &classes), "rnbqkbnr/pppp1ppp/8/4p3/2P5/8/PP1PPPPP/RNBqKBNR");
    // A board editor's nine sure queens a side stay as drawn; so does a single unsure extra.
    let (probs, sq, mut classes) =
        sure_board_but("qqqqqqqq/q3k3/8/8/8/8/Q3K3/QQQQQQQQ", &[(Square::A7, &[('q', 0.6), ('Q', 0.4)])]);
    assert!(repair(&probs, &sq, &mut classes).is_empty());
}

#[test]
fn castling_argument_parses() {
    assert_eq!("-".parse::<Castling>().unwrap(), Castling::None);
    assert_eq!("auto".parse::<Castling>().unwrap(), Castling::Auto);
    assert!("KX".parse::<Castling>().is_err());
    assert!(parse_en_passant("e9").is_err());
    assert_eq!(parse_en_passant("e3").unwrap(), Some(Square::E3));
}

/// A board from a FEN placement with every square sure (probability 1), then the squares in
/// `unsure` given the probabilities listed; squares in a1..h8 order, classes the most probable.
fn sure_board_but(fen: &str, unsure: &[(Square, &[(char, f32)])]) -> (Vec<crate::ClassProbs>, Vec<Square>, Vec<usize>) {
    use crate::classify::{class_index, CLASS_CHARS};
    let board = board(fen);
    let squares: Vec<Square> = Square::ALL.into_iter().collect();
    let mut probs: Vec<crate::ClassProbs> = squares
        .iter()
        .map(|&sq| std::array::from_fn(|c| if c == class_index(board.piece_at(sq)) { 1.0 } else { 0.0 }))
        .collect();
    for &(sq, ps) in unsure {
        probs[sq as usize] = [0.0; 13];
        for &(ch, p) in ps {
            probs[sq as usize][CLASS_CHARS.iter().position(|&c| c == ch).expect("class char")] = p;
        }
    }
    let classes = probs.iter().map(|p| (0..13).max_by(|&a, &b| p[a].total_cmp(&p[b])).expect("13 classes")).collect();
    (probs, squares, classes)
}

fn placement_of(squares: &[Square], classes: &[usize]) -> String {
    let mut b = Board::empty();
    for (&sq, &c) in squares.iter().zip(classes) {
        if let Some(p) = crate::classify::CLASSES[c] {
            b.set_piece_at(sq, p);
        }
    }
    placement(&b)
}

#[test]
fn the_square_prior_knows_where_pieces_stand() {
    use crate::classify::CLASS_CHARS;
    let prior = SquarePrior::built_in();
    let c = |ch: char| CLASS_CHARS.iter().position(|&x| x == ch).unwrap();
    // Over all groups, weighed by their shares.
    let p = |sq: Square, ch: char| {
        (0..prior.groups()).map(|g| (prior.log_share(g) + prior.log_p(g, sq, c(ch))).exp()).sum::<f32>()
    };
    assert!(prior.groups() > 1);
    assert!(p(Square::E2, 'P') > p(Square::E2, 'p'));
    assert!(p(Square::G1, 'K') > p(Square::G8, 'K'));
    assert!(p(Square::G8, 'k') > p(Square::E4, 'k'));
    // Shares sum to one, and so do the probabilities of the 13 classes on a square in a group.
    let shares: f32 = (0..prior.groups()).map(|g| prior.log_share(g).exp()).sum();
    assert!((shares - 1.0).abs() < 1e-4, "{shares}");
    let total: f32 = (0..13).map(|k| prior.log_p(0, Square::D5, k).exp()).sum();
    assert!((total - 1.0).abs() < 1e-4, "{total}");
    let bad = [
        r#"{"classes": ".PNBRQKpnbrqk", "components": [{"positions": 3, "counts": [[1, 2]]}]}"#,
        r#"{"classes": ".PNBRQKpnbrqk", "components": []}"#,
        r#"{"classes": "PNBRQK", "components": [{"positions": 3, "counts": []}]}"#,
    ];
    for text in bad {
        assert!(SquarePrior::from_json(text).is_err(), "{text}");
    }
}

#[test]
fn a_whole_board_decoding_obeys_the_material_and_keeps_sure_squares() {
    let prior = SquarePrior::built_in();
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
    // Read square by square, the start position has a white pawn on c1 (no pawn stands on rank
    // 1), a third white knight on f1 (beside two sure ones) and no black king (e8 read as a
    // second queen): each takes the class that gives the board its material.
    let (probs, sq, mut classes) = sure_board_but(
        start,
        &[
            (Square::C1, &[('P', 0.5), ('B', 0.45), ('.', 0.05)]),
            (Square::F1, &[('N', 0.5), ('B', 0.45), ('.', 0.05)]),
            (Square::E8, &[('q', 0.6), ('k', 0.35), ('.', 0.05)]),
        ],
    );
    assert_eq!(placement_of(&sq, &classes), "rnbqqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNPQKNNR");
    let changes = decode_whole_board(&probs, &sq, &mut classes, prior);
    assert_eq!(placement_of(&sq, &classes), start, "{changes:?}");
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert!(changes[0].contains("c1 B (45%, read P 50%)"), "{changes:?}");
    // Two white bishops on light squares (b1, d1), where a knight is the other reading of each:
    // one stays a bishop, the other is the knight.
    let (probs, sq, mut classes) = sure_board_but(
        "4k3/8/8/8/8/8/8/4K3",
        &[
            (Square::B1, &[('B', 0.6), ('N', 0.399), ('.', 0.001)]),
            (Square::D1, &[('B', 0.9), ('N', 0.099), ('.', 0.001)]),
        ],
    );
    decode_whole_board(&probs, &sq, &mut classes, prior);
    let read = placement_of(&sq, &classes);
    assert!(read == "4k3/8/8/8/8/8/8/1N1BK3" || read == "4k3/8/8/8/8/8/8/1B1NK3", "{read}");
    // A board read surely and legally comes out as read, even where the prior would not put
    // its pieces (kings in the middle, a promoted queen).
    let odd = "8/8/3k4/8/3Q4/4K3/8/7Q";
    let (probs, sq, mut classes) = sure_board_but(odd, &[]);
    assert!(decode_whole_board(&probs, &sq, &mut classes, prior).is_empty());
    assert_eq!(placement_of(&sq, &classes), odd);
}

#[test]
fn a_promoted_piece_needs_a_missing_pawn() {
    let prior = SquarePrior::built_in();
    // White has seven pawns and a second queen on d5 read at 99.9% (else empty): a pawn promoted.
    // (Read at 99%, the promotion's cost and where queens stand would take it off the board.)
    let promoted = "4k3/pppppppp/8/3Q4/8/8/1PPPPPPP/3QK3";
    let (probs, sq, mut classes) = sure_board_but(promoted, &[(Square::D5, &[('Q', 0.999), ('.', 0.001)])]);
    decode_whole_board(&probs, &sq, &mut classes, prior);
    assert_eq!(placement_of(&sq, &classes), promoted);
    // With all eight pawns on the board no pawn can have promoted: the same reading is empty.
    let (probs, sq, mut classes) =
        sure_board_but("4k3/pppppppp/8/3Q4/8/8/PPPPPPPP/3QK3", &[(Square::D5, &[('Q', 0.999), ('.', 0.001)])]);
    let changes = decode_whole_board(&probs, &sq, &mut classes, prior);
    assert_eq!(placement_of(&sq, &classes), "4k3/pppppppp/8/8/8/8/PPPPPPPP/3QK3", "{changes:?}");
}
