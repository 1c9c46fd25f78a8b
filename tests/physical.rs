//! Photos of physical sets (testdata/physical/, rendered by the 3D data engine with sets and
//! materials the physical-board model never saw): the board is found, read as a physical one,
//! never mirrored, and a board not read exactly has its misreads flagged. The pure-Rust backend.

use std::path::{Path, PathBuf};

use img2fen::classify::{most_probable, MIRROR_BELOW, SURE_EMPTY};
use img2fen::{Backend, BoardKind, BoardReading, Classifier, ClassifierOptions, Options, Point, Quad, Recognizer};
use ndarray::Axis;
use shakmaty::fen::Fen;
use shakmaty::{Board, Square};

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata").join(name)
}

struct Scene {
    file: String,
    board: Board,
    side: String,
    corners: Quad,
}

/// testdata/physical/expected.csv.
fn scenes() -> Vec<Scene> {
    std::fs::read_to_string(testdata("physical/expected.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let pts: Vec<Point> = f[4]
                .split(' ')
                .map(|p| {
                    let (x, y) = p.split_once(':').unwrap();
                    Point::new(x.parse().unwrap(), y.parse().unwrap())
                })
                .collect();
            Scene {
                file: format!("physical/{}", f[0]),
                board: f[1].parse::<Fen>().unwrap().into_setup().board,
                side: f[2].to_string(),
                corners: Quad([pts[0], pts[1], pts[2], pts[3]]),
            }
        })
        .collect()
}

fn tract() -> Recognizer {
    Recognizer::new(Options {
        classifier: ClassifierOptions { backend: Backend::Tract, ..Default::default() },
        ..Default::default()
    })
    .unwrap()
}

/// The first board read from a scene's photo, and its placement as a board.
fn read_scene(rec: &Recognizer, s: &Scene) -> (BoardReading, Board) {
    let b = rec.read_file(&testdata(&s.file)).unwrap().remove(0);
    let read = b.placement.parse::<Fen>().unwrap().into_setup().board;
    (b, read)
}

/// Mean corner distance in squares, whichever corner the finder calls first.
fn corner_error(truth: &Quad, found: &Quad) -> f64 {
    let sq = truth.mean_side() / 8.0;
    (0..4)
        .map(|k| (0..4).map(|i| truth.0[i].dist(found.0[(i + k) % 4])).sum::<f64>() / 4.0 / sq)
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn a_physical_board_is_found_and_read_as_one() {
    let rec = tract();
    for s in scenes() {
        let boards = rec.read_file(&testdata(&s.file)).unwrap_or_else(|e| panic!("{}: {e}", s.file));
        assert_eq!(boards.len(), 1, "{}", s.file);
        let b = &boards[0];
        assert_eq!(b.kind, BoardKind::Physical, "{}", s.file);
        assert!(b.kind_confidence >= 0.5, "{}", s.file);
        let err = corner_error(&s.corners, &b.corners);
        assert!(err < 0.1, "{}: corners {err:.3} squares off", s.file);
    }
}

#[test]
fn every_misread_square_of_a_physical_board_is_flagged() {
    let rec = tract();
    for s in scenes() {
        let (b, read) = read_scene(&rec, &s);
        if read == s.board {
            continue;
        }
        // Read wrong: the whole board is sent back, or each wrong square is uncertain.
        if b.check_whole_board().is_some() {
            continue;
        }
        for sq in Square::ALL {
            if read.piece_at(sq) != s.board.piece_at(sq) {
                let r = b.squares.iter().find(|r| r.square == sq).unwrap();
                assert!(b.is_uncertain(r), "{}: {sq} misread as {:?} at {:.2} and not flagged", s.file, r.piece, r.p);
            }
        }
    }
}

#[test]
fn a_board_seen_from_black_or_from_beside_it_is_never_mirrored() {
    // Whatever the turn chosen, the reading is a rotation of the true board, never its mirror
    // image: count the squares each of the four turns and the four mirrored turns get right.
    let rec = tract();
    for s in scenes() {
        let (_, read) = read_scene(&rec, &s);
        let same = |t: &Board| Square::ALL.iter().filter(|&&q| t.piece_at(q) == s.board.piece_at(q)).count();
        let turns = |mut t: Board| {
            (0..4)
                .map(|_| {
                    t.rotate_90();
                    same(&t)
                })
                .max()
                .unwrap()
        };
        let mut mirrored = read.clone();
        mirrored.flip_horizontal();
        assert!(
            turns(read) > turns(mirrored),
            "{} (camera at {}'s side) reads closer to its mirror image",
            s.file,
            s.side
        );
    }
}

#[test]
fn each_photo_is_read_the_right_way_up_with_at_most_three_squares_wrong() {
    // The whole board decides the turn: from White's side, from Black's and from beside the
    // board (the h-file photo came out a quarter turn off when the pieces alone decided).
    let rec = tract();
    for s in scenes() {
        let (_, read) = read_scene(&rec, &s);
        let wrong: Vec<Square> = Square::ALL.into_iter().filter(|&q| read.piece_at(q) != s.board.piece_at(q)).collect();
        assert!(wrong.len() <= 3, "{} (camera at {}'s side): {} squares wrong: {wrong:?}", s.file, s.side, wrong.len());
    }
}

#[test]
fn kind_flat_reads_a_physical_photo_with_the_flat_model() {
    let rec = Recognizer::new(Options {
        classifier: ClassifierOptions { backend: Backend::Tract, ..Default::default() },
        kind: Some(BoardKind::Flat),
        ..Default::default()
    })
    .unwrap();
    let b = rec.read_file(&testdata("physical/opening_white_side.jpg")).unwrap().remove(0);
    assert_eq!(b.kind, BoardKind::Flat);
    assert_eq!(b.kind_confidence, 1.0);
}

#[test]
fn the_physical_model_reads_only_the_squares_the_occupancy_model_is_unsure_of() {
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let classifier = |physical: Option<&str>| {
        Classifier::new(&ClassifierOptions {
            backend: Backend::Tract,
            physical_model: physical.map(|m| models.join(m)),
            ..Default::default()
        })
        .unwrap()
    };
    // Built in: the two models in turn. A model given as a file reads every cell alone, once.
    let (cascade, physical, occupancy) =
        (classifier(None), classifier(Some("physical_classifier.onnx")), classifier(Some("physical_occupancy.onnx")));
    let (mut kept, mut read, mut mirrored) = (0, 0, 0);
    for s in scenes() {
        let grey = img2fen::cells::grey(&img2fen::load_image(&testdata(&s.file)).unwrap());
        let cells = img2fen::cells::tall_cells(&grey, &s.corners);
        let mut flipped = cells.clone();
        flipped.invert_axis(Axis(3));
        let flipped = flipped.as_standard_layout().into_owned();
        let [both, big, small] = [&cascade, &physical, &occupancy].map(|c| c.classify_tall(&cells).unwrap().unwrap());
        let big_flipped = physical.classify_tall(&flipped).unwrap().unwrap();
        for i in 0..64 {
            // The same reading, up to the rounding of a model fed another batch.
            let same = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5);
            if small[i][0] >= SURE_EMPTY {
                assert!(same(&both[i], &small[i]), "{}: cell {i}", s.file);
                kept += 1;
            } else if most_probable(&big[i]).1 >= MIRROR_BELOW {
                assert!(same(&both[i], &big[i]), "{}: cell {i}", s.file);
                read += 1;
            } else {
                let mean: Vec<f32> = big[i].iter().zip(&big_flipped[i]).map(|(a, b)| (a + b) / 2.0).collect();
                assert!(same(&both[i], &mean), "{}: cell {i}", s.file);
                mirrored += 1;
            }
        }
    }
    // Every way is taken: surely empty squares are not read again, the others are, and those
    // read unsurely are read mirrored too.
    assert!(kept > 0 && read > 0 && mirrored > 0, "{kept} kept, {read} read, {mirrored} mirrored");
}

/// `img` encoded as a JPEG of quality 92.
fn jpeg(img: &image::DynamicImage) -> Vec<u8> {
    let mut out = Vec::new();
    img.to_rgb8().write_with_encoder(image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 92)).unwrap();
    out
}

#[test]
fn a_large_jpeg_is_read_reduced_with_its_corners_in_its_own_pixels() {
    // A phone photo has several times the pixels its board needs: a scene's photo enlarged four
    // times (2560x1920) is decoded at half size, read as it is read whole, and its corners given
    // in the large picture's pixels.
    let s = &scenes()[0];
    let big = image::open(testdata(&s.file)).unwrap().resize_exact(2560, 1920, image::imageops::FilterType::Triangle);
    let bytes = jpeg(&big);
    let reduced = tract().read_picture(&bytes).unwrap();
    assert_eq!(reduced.reduction, 2);
    assert_eq!((reduced.image.width(), reduced.image.height()), (1280, 960));
    // A set is learned from the picture as it is read.
    let (decoded, reduction) = tract().decode_for_reading(&bytes).unwrap();
    assert_eq!((decoded.width(), reduction), (1280, 2));
    let whole = Recognizer::new(Options {
        classifier: ClassifierOptions { backend: Backend::Tract, ..Default::default() },
        reduce_large_jpegs: false,
        ..Default::default()
    })
    .unwrap()
    .read_picture(&bytes)
    .unwrap();
    assert_eq!(whole.reduction, 1);
    let (b, w) = (&reduced.boards.unwrap()[0], &whole.boards.unwrap()[0]);
    assert_eq!(b.placement, w.placement);
    let err = corner_error(&s.corners.scaled(4.0), &b.corners);
    assert!(err < 0.1, "corners {err:.3} squares off: {:?}", b.corners);
}
