//! Tests of both witnesses and of turning the displayed grid into a board.

use super::*;
use shakmaty::fen::Fen;

fn displayed_from(fen: &str, o: Orientation) -> [Option<Piece>; 64] {
    let board = fen.parse::<Fen>().unwrap().into_setup().board;
    std::array::from_fn(|i| board.piece_at(square_at(i, o)))
}

#[test]
fn squares_map_both_ways() {
    assert_eq!(square_at(0, Orientation::White), Square::A8);
    assert_eq!(square_at(63, Orientation::White), Square::H1);
    assert_eq!(square_at(0, Orientation::Black), Square::H1);
    assert_eq!(square_at(56, Orientation::Black), Square::H8);
}

#[test]
fn label_sites_touch_the_edge_and_are_distinct() {
    let sites = label_sites();
    assert_eq!(sites.len(), INNER_SITES + 2 * OUTER_SITES);
    assert!(sites[..INNER_SITES].iter().all(|s| s.row.is_some() && s.col.is_some()));
    for (i, a) in sites.iter().enumerate() {
        assert!(sites[i + 1..].iter().all(|b| (a.x, a.y) != (b.x, b.y)), "{a:?} twice");
        // Every site lies within the label picture (one square around the board; two for the
        // far band).
        let reach = if i < FAR_SITES { 1.0 } else { 2.0 };
        assert!(a.x >= -reach && a.y >= -reach && a.x + a.side <= 8.0 + reach && a.y + a.side <= 8.0 + reach, "{a:?}");
        let inside = a.x >= 0.0 && a.x + a.side <= 8.0 && a.y >= 0.0 && a.y + a.side <= 8.0;
        assert_eq!(inside, a.row.is_some() && a.col.is_some(), "{a:?}");
        if inside {
            let touches = a.x == 0.0 || a.y == 0.0 || a.x + a.side == 8.0 || a.y + a.side == 8.0;
            assert!(touches, "{a:?} is not at the board's edge");
        }
    }
}

/// Label probabilities for a board whose coordinates are drawn as a board shown from
/// `ranks_from`'s side for the digits and `files_from`'s side for the letters, read with
/// probability `p` (the rest spread over the other classes).
fn drawn(ranks_from: Orientation, files_from: Orientation, p: f32) -> Vec<LabelProbs> {
    drawn_off(ranks_from, files_from, p, 0)
}

/// The same on a board found `dr` rows off: found row `r` shows the label of true row `r + dr`.
fn drawn_off(ranks_from: Orientation, files_from: Orientation, p: f32, dr: i32) -> Vec<LabelProbs> {
    label_sites()
        .iter()
        .map(|s| {
            let mut probs = [(1.0 - p) / 16.0; 17];
            // chess.com style: digits top left of the left file, letters bottom right of the bottom rank.
            let class = match (s.row, s.col) {
                (Some(r), Some(0)) if s.x == 0.0 && s.y.fract() == 0.0 && (0..8).contains(&(r as i32 + dr)) => {
                    let r = (r as i32 + dr) as usize;
                    Some(if ranks_from == Orientation::White { 8 - r } else { r + 1 })
                }
                (Some(7), Some(c)) if s.y > 7.5 && s.x.fract() > 0.5 => {
                    let c = c as usize;
                    Some(if files_from == Orientation::White { 9 + c } else { 16 - c })
                }
                _ => None,
            };
            probs[class.unwrap_or(0)] = p;
            probs
        })
        .collect()
}

#[test]
fn coordinates_tell_the_side_at_the_bottom() {
    for o in [Orientation::White, Orientation::Black] {
        let reading = from_coordinates(&drawn(o, o, 0.9));
        let (got, conf) = reading.orientation().expect("clear coordinates decide");
        assert_eq!(got, o);
        assert!(conf > 0.99);
        assert!(!reading.files_reversed());
    }
    for o in [Orientation::White, Orientation::Black] {
        assert_eq!(from_coordinates(&drawn(o, o, 0.9)).shift, (0, 0));
    }
    // A board found one row too low (its labels one row up) or too high.
    for dr in [-1, 1] {
        for o in [Orientation::White, Orientation::Black] {
            assert_eq!(from_coordinates(&drawn_off(o, o, 0.9, dr)).shift, (0, dr as i8), "{o:?} {dr}");
        }
    }
    let mirrored = from_coordinates(&drawn(Orientation::White, Orientation::Black, 0.9));
    assert!(mirrored.files_reversed());
    assert_eq!(mirrored.orientation().map(|o| o.0), Some(Orientation::White));
    // Ranks that lean the other way by a few misread labels do not make a mirror.
    let unsure = CoordinateReading { ranks: -6.0, files: 9.0, shift: (0, 0) };
    assert!(!unsure.files_reversed());
    assert_eq!(unsure.orientation(), None);
}

/// Label probabilities with nothing read anywhere except `reads`: (site, class) read at 0.9.
fn read_at(reads: &[(usize, usize)]) -> Vec<LabelProbs> {
    let mut probs = vec![[0.0; 17]; label_sites().len()];
    probs.iter_mut().for_each(|p| p[0] = 1.0);
    for &(site, class) in reads {
        probs[site] = [0.1 / 16.0; 17];
        probs[site][class] = 0.9;
    }
    probs
}

#[test]
fn text_beside_the_board_is_not_coordinates() {
    // The band right of the board (site INNER_SITES + 4k + 1 at row k) holds the first letters
    // of lines of text: g, h, a, 7, 7, 8. Rows 6 and 7 happen to read as Black's labels 7 and 8.
    let right = |k: usize| INNER_SITES + 4 * k + 1;
    let text = [(right(0), 15), (right(1), 16), (right(3), 9), (right(5), 7), (right(6), 7), (right(7), 8)];
    let reading = from_coordinates(&read_at(&text));
    assert_eq!(reading.orientation(), None, "{reading:?}");
    // Ranks 8 to 1 down the left band (sites INNER_SITES + 4k), two of them misread as
    // letters, still decide.
    let left = |k: usize| INNER_SITES + 4 * k;
    let mut labels: Vec<(usize, usize)> = (0..8).map(|k| (left(k), 8 - k)).collect();
    labels[2].1 = 10;
    labels[5].1 = 12;
    let reading = from_coordinates(&read_at(&labels));
    assert_eq!(reading.orientation().map(|o| o.0), Some(Orientation::White), "{reading:?}");
    // Faint digits misread as other digits (a green 3, 5 and 6 read as 8, as on a
    // cm-chessboard screenshot from Black's side) stay coordinates.
    let faint = [(left(0), 1), (left(2), 8), (left(3), 4), (left(4), 8), (left(5), 8), (left(6), 7), (left(7), 8)];
    let reading = from_coordinates(&read_at(&faint));
    assert_eq!(reading.orientation().map(|o| o.0), Some(Orientation::Black), "{reading:?}");
    // The same labels one row off (a board found a row too low) are not taken for text.
    let off: Vec<(usize, usize)> = (1..8).map(|k| (left(k), 9 - k)).collect();
    assert_eq!(from_coordinates(&read_at(&off)).shift, (0, -1));
}

#[test]
fn a_paragraph_under_the_board_is_text() {
    // The band below the board (site INNER_SITES + 4k + 3 at column k) holds a line of prose
    // ("Now plan with weak..."): letters under every file in no order. Three of them happen to
    // be Black's files there (h, f, c under a, c, f) and one White's (e under e): no side.
    let below = |k: usize| INNER_SITES + 4 * k + 3;
    let prose =
        [(below(0), 16), (below(1), 12), (below(2), 14), (below(3), 9), (below(4), 13), (below(5), 11), (below(6), 13)];
    let reading = from_coordinates(&read_at(&prose));
    assert_eq!((reading.ranks, reading.files), (0.0, 0.0), "{reading:?}");
    // Files a to h there, two misread, are labels.
    let mut files: Vec<(usize, usize)> = (0..8).map(|k| (below(k), 9 + k)).collect();
    files[2].1 = 15;
    files[6].1 = 10;
    let reading = from_coordinates(&read_at(&files));
    assert_eq!(reading.orientation().map(|o| o.0), Some(Orientation::White), "{reading:?}");
}

#[test]
fn the_far_band_counts_a_row_of_labels_and_not_a_caption() {
    // The far band below the board (site FAR_SITES + 4k + 3 at column k): a
    // word processor's file letters from Black's side, h to a, one misread, decide.
    let below = |k: usize| FAR_SITES + 4 * k + 3;
    let mut files: Vec<(usize, usize)> = (0..8).map(|k| (below(k), 16 - k)).collect();
    files[3].1 = 9;
    let reading = from_coordinates(&read_at(&files));
    assert_eq!(reading.orientation().map(|o| o.0), Some(Orientation::Black), "{reading:?}");
    // A caption there ("6. Black to move"): a few letters, two of which happen to fit White's
    // files, say nothing.
    let caption = [(below(1), 10), (below(2), 13), (below(3), 11), (below(4), 12), (below(6), 15)];
    let reading = from_coordinates(&read_at(&caption));
    assert_eq!((reading.ranks, reading.files), (0.0, 0.0), "{reading:?}");
}

#[test]
fn a_far_site_within_another_boards_labels_is_that_boards() {
    // Two boards of 80 px squares, one above the other, 1.2 squares apart.
    let upper = Quad::rect(0.0, 0.0, 640.0, 640.0);
    let lower = Quad::rect(0.0, 736.0, 640.0, 1376.0);
    let sites = label_sites();
    let far_above = sites[FAR_SITES..].iter().find(|s| s.y < -0.8).unwrap();
    let far_below = sites[FAR_SITES..].iter().find(|s| s.y > 8.8).unwrap();
    assert!(near_another_board(&lower, far_above, &[upper]));
    assert!(!near_another_board(&lower, far_below, &[upper]));
    assert!(!near_another_board(&lower, far_above, &[]));
}

#[test]
fn patches_with_nothing_readable_do_not_decide() {
    // Every patch unsure among all classes: no evidence either way.
    let flat = vec![[1.0 / 17.0; 17]; label_sites().len()];
    let reading = from_coordinates(&flat);
    assert_eq!(reading.total(), 0.0);
    assert_eq!(reading.orientation(), None);
    // One confident misread label is capped and cannot decide alone.
    let mut one = flat.clone();
    one[0] = [0.0; 17];
    one[0][1] = 1.0; // "1" at a8's corner: Black at the bottom
    assert!(from_coordinates(&one).orientation().is_none());
}

#[test]
fn a_ring_past_the_horizon_gives_flat_patches() {
    // The top edge is 10 px wide, the bottom 200: the sides meet just above the board, and a
    // square beyond the top edge lies past the horizon.
    let img = GrayImage::from_pixel(300, 300, image::Luma([128]));
    let quad =
        Quad([Point::new(95.0, 100.0), Point::new(105.0, 100.0), Point::new(200.0, 200.0), Point::new(0.0, 200.0)]);
    let cut = label_patches(&img, &quad);
    assert_eq!(cut.patches.shape(), &[INNER_SITES + 2 * OUTER_SITES, 1, LABEL_PX, LABEL_PX]);
    assert!(cut.contrast.iter().all(|&c| c == 0.0));
    assert!(cut.readable().0.is_empty());
}

#[test]
fn label_patches_are_cut_where_the_sites_are() {
    // A white 8-square board of 40 px squares at (60, 60) with one black mark at the centre of
    // the a8 square's top-left label patch and one left of rank 8 outside.
    let sq = 40.0;
    let mut img = GrayImage::from_pixel(440, 440, image::Luma([255]));
    let sites = label_sites();
    let outside_left = sites.iter().position(|s| s.row == Some(0) && s.col.is_none() && s.x < 0.0).unwrap();
    for s in [sites[0], sites[outside_left]] {
        let (cx, cy) = (60.0 + (s.x + s.side / 2.0) * sq, 60.0 + (s.y + s.side / 2.0) * sq);
        for y in (cy - 3.0) as u32..(cy + 3.0) as u32 {
            for x in (cx - 3.0) as u32..(cx + 3.0) as u32 {
                img.put_pixel(x, y, image::Luma([0]));
            }
        }
    }
    let cut = label_patches(&img, &Quad::rect(60.0, 60.0, 380.0, 380.0));
    let patches = &cut.patches;
    assert_eq!(patches.shape(), &[INNER_SITES + 2 * OUTER_SITES, 1, LABEL_PX, LABEL_PX]);
    // Only the two marked patches are worth the model's time.
    let (readable, batch) = cut.readable();
    assert_eq!(readable, [0, outside_left]);
    assert_eq!(batch.shape(), &[2, 1, LABEL_PX, LABEL_PX]);
    let c = LABEL_PX / 2;
    for i in 0..sites.len() {
        let marked = i == 0 || i == outside_left;
        let centre = patches[[i, 0, c, c]];
        assert_eq!(centre < 0.5, marked, "patch {i}");
    }
}

#[test]
fn a_narrow_margin_is_read_where_the_picture_ends_flat() {
    // A 40 px-square board with a 13 px margin (a third of a square, python-chess's frame): the
    // picture ends inside the outside patches' far half. A mark 7 px out, left of rank 8, as a
    // label stands there.
    let sq = 40.0;
    let mut img = GrayImage::from_pixel(346, 346, image::Luma([40]));
    for y in 13..333 {
        for x in 13..333 {
            img.put_pixel(x, y, image::Luma([200]));
        }
    }
    for y in 30..36 {
        for x in 4..9 {
            img.put_pixel(x, y, image::Luma([230]));
        }
    }
    let quad = Quad::rect(13.0, 13.0, 13.0 + 8.0 * sq, 13.0 + 8.0 * sq);
    let sites = label_sites();
    let left8 = sites.iter().position(|s| s.row == Some(0) && s.col.is_none() && s.x < 0.0).unwrap();
    let cut = label_patches(&img, &quad);
    assert_eq!(cut.readable().0, [left8], "only the marked patch holds anything");

    // The same mark cut by the picture's edge: smeared beyond it, it would be a stroke.
    for y in 30..36 {
        img.put_pixel(0, y, image::Luma([230]));
    }
    assert!(label_patches(&img, &quad).readable().0.is_empty());

    // A margin of 2 px leaves too little of the patch in the picture to read.
    let tight = image::imageops::crop_imm(&img, 11, 11, 324, 324).to_image();
    let quad = Quad::rect(2.0, 2.0, 2.0 + 8.0 * sq, 2.0 + 8.0 * sq);
    assert!(label_patches(&tight, &quad).contrast[INNER_SITES..].iter().all(|&c| c == 0.0));
}

#[test]
fn a_board_editors_layout_gets_the_prior() {
    // Sixteen kings a side, Black's at the bottom: no game, so no piece evidence.
    let d = displayed_from("KKKKKKKK/KKKKKKKK/8/8/8/8/kkkkkkkk/kkkkkkkk w - - 0 1", Orientation::White);
    assert!(!game_like(&d, &[true; 64]));
    let prior = piece_weights().1;
    assert_eq!(from_pieces(&d), (Orientation::White, 1.0 / (1.0 + (-prior).exp())));
    // A game with one misread king is still a game.
    let misread = displayed_from("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKK1R w - - 0 1", Orientation::Black);
    assert!(game_like(&misread, &[true; 64]));
    assert_eq!(from_pieces(&misread).0, Orientation::Black);
    // So is one with a pawn misread on the back rank, but two such oddities make a layout.
    let pawn = displayed_from("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKBPR w - - 0 1", Orientation::Black);
    assert!(game_like(&pawn, &[true; 64]));
    let both = displayed_from("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKKPR w - - 0 1", Orientation::Black);
    assert!(!game_like(&both, &[true; 64]));
    // Unless one of them was read unsure: a rook half read as a pawn is a misread.
    let pawn_at = (0..64).find(|&i| both[i].is_some_and(|p| p.role == Role::Pawn) && !(8..56).contains(&i)).unwrap();
    let mut sure = [true; 64];
    sure[pawn_at] = false;
    assert!(game_like(&both, &sure));
    // A random layout with a few pieces of each kind, as an editor makes them: two white
    // kings and white pawns on the bottom row.
    let layout = displayed_from("1PP1KNq1/1K5b/2Q4B/5PqP/2Q1rPrp/P4pp1/4Q2k/2Q4r w - - 0 1", Orientation::White);
    assert!(!game_like(&layout, &[true; 64]));
    assert_eq!(from_pieces(&layout), (Orientation::White, 1.0 / (1.0 + (-prior).exp())));
}

#[test]
fn faint_coordinates_decide_only_what_the_pieces_leave_open() {
    let faint = |total: f32| CoordinateReading { ranks: total, files: 0.0, shift: (0, 0) };
    assert!(faint(-4.0).orientation().is_none(), "too faint to decide alone");
    // Kings and a knight: a game, but almost no piece evidence. Alone it gets the prior;
    // faint labels for Black turn it round.
    let d = displayed_from("8/8/8/8/8/2k5/8/K1N5 w - - 0 1", Orientation::Black);
    assert!(game_like(&d, &[true; 64]));
    let (o, _, alone) = from_pieces_and_coordinates(&d, &[true; 64], None, 0.0);
    assert_eq!(o, Orientation::White);
    let pieces = (alone / (1.0 - alone)).ln();
    assert!(pieces < 2.0, "{pieces}");
    // The labels' evidence adds to the pieces' log-odds.
    let (o, source, conf) = from_pieces_and_coordinates(&d, &[true; 64], Some(&faint(-4.0)), 0.0);
    assert_eq!((o, source), (Orientation::Black, OrientationSource::Coordinates));
    let want = 1.0 / (1.0 + (-(4.0 * FAINT_COORDINATE_WEIGHT - pieces)).exp());
    assert!((conf - want).abs() < 1e-4, "{conf} {want}");
    // A trace of evidence does not overturn the prior, nor is it named the witness when it
    // agrees with it.
    assert_eq!(from_pieces_and_coordinates(&d, &[true; 64], Some(&faint(-0.3)), 0.0).0, Orientation::White);
    assert_eq!(from_pieces_and_coordinates(&d, &[true; 64], Some(&faint(0.1)), 0.0).1, OrientationSource::Pieces);
    // A middlegame shown from White: its pawns outweigh faint labels for Black.
    let game =
        displayed_from("r1bq1rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2Q1RK1 w - - 0 1", Orientation::White);
    let (o, source, _) = from_pieces_and_coordinates(&game, &[true; 64], Some(&faint(-4.0)), 0.0);
    assert_eq!((o, source), (Orientation::White, OrientationSource::Pieces));
}

#[test]
fn piece_features_match_the_fitting_script() {
    let json: serde_json::Value = serde_json::from_str(include_str!("../../models/orientation_weights.json")).unwrap();
    let checks = json["checks"].as_array().unwrap();
    assert!(!checks.is_empty());
    for check in checks {
        let placement = check["placement"].as_str().unwrap();
        let d = displayed_from(&format!("{placement} w - - 0 1"), Orientation::White);
        let want: Vec<f32> = check["features"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
        let got = piece_features(&d);
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!((g - w).abs() < 1e-4, "{placement}: {} is {g}, the script says {w}", PIECE_FEATURES[k]);
        }
        // Turned round, every feature changes sign.
        let turned = displayed_from(&format!("{placement} w - - 0 1"), Orientation::Black);
        for (a, b) in got.iter().zip(piece_features(&turned)) {
            assert!((a + b).abs() < 1e-4);
        }
    }
}

#[test]
fn pieces_tell_the_side_at_the_bottom() {
    let fen = "r1bq1rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2Q1RK1 w - - 0 1";
    for o in [Orientation::White, Orientation::Black] {
        let d = displayed_from(fen, o);
        let (got, conf) = from_pieces(&d);
        assert_eq!(got, o);
        assert!(conf > 0.9);
        assert_eq!(to_board(&d, o, false), fen.parse::<Fen>().unwrap().into_setup().board);
    }
}
