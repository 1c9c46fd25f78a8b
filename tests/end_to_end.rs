//! End-to-end tests on the screenshots in testdata/ (rendered by scripts/img2fen_training/render/testdata.py),
//! through the library and through the `img2fen` command. They use the pure-Rust backend.

use std::path::{Path, PathBuf};
use std::process::Command;

use img2fen::{
    orient, Backend, ClassifierOptions, FenOptions, Options, Orientation, OrientationSource, Recognizer, TurnSource,
};

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata").join(name)
}

/// The rows of a CSV file below testdata/ (no quoted fields), header left out.
fn csv_rows(name: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(testdata(name)).unwrap();
    text.lines().skip(1).map(|l| l.split(',').map(str::to_string).collect()).collect()
}

/// (file, placement from White, flipped) from testdata/expected.csv.
fn expected() -> Vec<(String, String, bool)> {
    csv_rows("expected.csv").into_iter().map(|f| (f[0].clone(), f[1].clone(), f[2] == "1")).collect()
}

fn tract(orientation: Option<Orientation>) -> Recognizer {
    Recognizer::new(Options {
        classifier: ClassifierOptions { backend: Backend::Tract, ..Default::default() },
        orientation,
        ..Default::default()
    })
    .unwrap()
}

fn img2fen() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_img2fen"));
    c.args(["--backend", "tract"]);
    c
}

#[test]
fn every_testdata_screenshot_is_read_exactly_with_the_orientation_flag() {
    for (file, placement, flipped) in expected() {
        let o = if flipped { Orientation::Black } else { Orientation::White };
        let rec = tract(Some(o));
        let boards = rec.read_file(&testdata(&file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(boards.len(), 1);
        let b = &boards[0];
        assert_eq!(b.placement, placement, "{file}");
        assert_eq!(b.fen, format!("{placement} w - - 0 1"), "{file}");
        assert_eq!(b.orientation_source, OrientationSource::Flag);
    }
}

#[test]
fn orientation_comes_from_the_coordinates_and_else_from_the_pieces() {
    let rec = tract(None);
    for (file, placement, flipped) in expected() {
        let b = &rec.read_file(&testdata(&file)).unwrap()[0];
        assert_eq!(b.placement, placement, "{file}");
        assert_eq!(b.orientation, if flipped { Orientation::Black } else { Orientation::White }, "{file}");
        assert!(!b.files_reversed, "{file}");
        // scripts/img2fen_training/render/testdata.py draws coordinates on every board but the
        // article's and the fax scan's; the thumbnail's are shrunk to 2 px, too small to read.
        let by_pieces = ["small_board_article.png", "game_list_thumbnail.jpg", "dithered_fax_scan.png"];
        let want =
            if by_pieces.contains(&file.as_str()) { OrientationSource::Pieces } else { OrientationSource::Coordinates };
        assert_eq!(b.orientation_source, want, "{file}");
        assert!(b.orientation_confidence > 0.9, "{file}: {}", b.orientation_confidence);
    }
}

#[test]
fn the_second_look_reads_only_the_unsure_cells_again() {
    let read = |second_look: bool| {
        let rec = Recognizer::new(Options {
            classifier: ClassifierOptions { backend: Backend::Tract, ..Default::default() },
            second_look,
            ..Default::default()
        })
        .unwrap();
        rec.read_file(&testdata("game_list_thumbnail.jpg")).unwrap().remove(0)
    };
    let (once, twice) = (read(false), read(true));
    assert_eq!(once.placement, "2r2rk1/pp1qbppp/2n1pn2/3p4/3P1B2/2PBPN2/PP1N1PPP/R2Q1RK1");
    assert_eq!(twice.placement, once.placement);
    // The thumbnail's 11 px squares leave two cells under the second look's bar; every sure
    // cell is read once.
    let unsure: Vec<_> = once.squares.iter().filter(|s| s.p < img2fen::SECOND_LOOK_BELOW).map(|s| s.square).collect();
    assert_eq!(unsure.len(), 2);
    for (a, b) in once.squares.iter().zip(&twice.squares) {
        if unsure.contains(&a.square) {
            assert_ne!(a.probs, b.probs, "{}", a.square);
            assert!((b.probs.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        } else {
            assert_eq!(a.probs, b.probs, "{}", a.square);
        }
    }
}

#[test]
fn coordinates_overrule_pieces_that_point_the_wrong_way() {
    // Promotion races shown from Black's side: each side's king and pawn stand in the other's
    // half, so the pieces alone (and the prior for White) say White is at the bottom.
    let rec = tract(None);
    for file in ["race_black_side_coords.png", "book_black_side_coords.png"] {
        let b = &rec.read_file(&testdata(file)).unwrap()[0];
        let displayed: [Option<shakmaty::Piece>; 64] = std::array::from_fn(|i| {
            b.squares.iter().find(|s| s.square == orient::square_at(i, Orientation::Black)).unwrap().piece
        });
        assert_eq!(orient::from_pieces(&displayed).0, Orientation::White, "{file}: the pieces should mislead");
        assert_eq!(b.orientation, Orientation::Black, "{file}");
        assert_eq!(b.orientation_source, OrientationSource::Coordinates, "{file}");
    }
}

#[test]
fn a_board_found_a_square_off_is_moved_where_its_coordinates_put_it() {
    // The boards of two pictures with coordinates, as if the finder had placed them a row or a
    // column off: the labels then fit a board one square over, which is read instead.
    let rec = tract(None);
    for (file, placement) in [
        ("race_black_side_coords.png", "8/P1K5/8/8/8/8/5kp1/8"),
        ("book_black_side_coords.png", "1K6/1P6/8/8/8/8/6p1/6k1"),
    ] {
        let img = img2fen::load_image(&testdata(file)).unwrap();
        let gray = img2fen::cells::grey(&img);
        let found = img2fen::locate::locate(&gray, &Default::default()).unwrap();
        assert_eq!(rec.read_board(&gray, &found).unwrap().placement, placement, "{file}");
        for shift in [(0, 1), (0, -1), (1, 0), (-1, 0)] {
            let off = img2fen::Located { quad: orient::shifted(&found.quad, shift), ..found.clone() };
            let b = rec.read_board(&gray, &off).unwrap();
            assert_eq!(b.placement, placement, "{file} {shift:?}");
            assert!(b.warnings[0].starts_with("the board was found one"), "{file} {shift:?}: {:?}", b.warnings);
            for (p, q) in b.corners.0.iter().zip(found.quad.0.iter()) {
                assert!((p.x - q.x).abs() < 2.0 && (p.y - q.y).abs() < 2.0, "{file} {shift:?}: {:?}", b.corners);
            }
        }
    }
}

#[test]
fn the_board_inside_a_full_page_is_located_to_a_pixel() {
    // scripts/img2fen_training/render/testdata.py pastes a 768 px board at (420, 120).
    let b = &tract(None).read_file(&testdata("lichess_page_1920x1080.png")).unwrap()[0];
    let want = [(420.0, 120.0), (1188.0, 120.0), (1188.0, 888.0), (420.0, 888.0)];
    for (p, (x, y)) in b.corners.0.iter().zip(want) {
        assert!((p.x - x).abs() < 1.0 && (p.y - y).abs() < 1.0, "{:?}", b.corners);
    }
}

#[test]
fn a_board_the_picture_cuts_is_reported_cut_and_its_cut_squares_are_checked() {
    // The page's 96 px squares start at y = 120: cropping at y = 168 leaves half of rank 8.
    let page = image::open(testdata("lichess_page_1920x1080.png")).unwrap();
    let rec = tract(Some(Orientation::White));
    let read = |y0: u32, x0: u32| {
        let cut = page.crop_imm(x0, y0, page.width() - x0, page.height() - y0);
        rec.recognize(&cut).unwrap().remove(0)
    };
    let b = read(168, 0);
    let rank8: Vec<String> = "abcdefgh".chars().map(|f| format!("{f}8")).collect();
    assert_eq!(b.outside.iter().map(|s| s.to_string()).collect::<Vec<_>>(), rank8);
    assert!(b.warnings[0].starts_with("the board runs off the picture's edge: 8 squares"), "{:?}", b.warnings);
    let uncertain: Vec<String> = b.uncertain().iter().map(|s| s.square.to_string()).collect();
    assert!(rank8.iter().all(|sq| uncertain.contains(sq)), "{uncertain:?}");
    // The seven whole ranks are read as on the whole page.
    let ranks: Vec<&str> = b.placement.split('/').collect();
    assert_eq!(ranks[1..].join("/"), "ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2Q1RK1");
    // A few pixels past a tight crop's edge is not cut; half of the a-file is.
    assert!(read(125, 0).outside.is_empty());
    assert_eq!(read(0, 468).outside.len(), 8);
}

#[test]
fn cli_prints_the_fen_for_one_file() {
    let out = img2fen()
        .arg(testdata("black_side_blue.png"))
        .args(["--orientation", "black", "-b", "--castling", "auto"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "r1bqkb1r/pp1ppppp/2n2n2/2p5/4P3/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 0 1\n"
    );
}

#[test]
fn cli_bad_inputs_are_reported_and_the_rest_is_still_read() {
    let dir = std::env::temp_dir().join(format!("img2fen-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let corrupt = dir.join("truncated.png");
    let good = std::fs::read(testdata("small_board_article.png")).unwrap();
    std::fs::write(&corrupt, &good[..good.len() / 3]).unwrap();
    let text = dir.join("notes.txt");
    std::fs::write(&text, "not an image").unwrap();
    let blank = dir.join("blank.png");
    image::GrayImage::from_pixel(300, 200, image::Luma([200])).save(&blank).unwrap();

    let out = img2fen().arg(&corrupt).arg(testdata("small_board_article.png")).arg(&text).arg(&blank).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        stdout,
        format!("{}\t6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1\n", testdata("small_board_article.png").display())
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(lines.iter().any(|l| l.starts_with(&format!("img2fen: {}: corrupt image", corrupt.display()))), "{stderr}");
    assert!(
        lines.iter().any(|l| *l == format!("img2fen: {}: not an image (unrecognised format)", text.display())),
        "{stderr}"
    );
    let no_board = format!("img2fen: {}: no board found: no grid of alternating squares", blank.display());
    assert!(lines.contains(&no_board.as_str()), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cli_json_follows_the_contract() {
    let out = img2fen()
        .arg(testdata("green_arrows.jpg"))
        .arg("/nonexistent/x.png")
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    let ok = &lines[0];
    assert!(ok["error"].is_null());
    let keys: Vec<&str> = ok.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["boards", "error", "file"]);
    let b = &ok["boards"][0];
    assert_eq!(b["placement"], "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R");
    assert_eq!(b["fen"], "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w - - 0 1");
    assert_eq!(b["orientation"], "white");
    assert_eq!(b["orientation_source"], "coordinates");
    assert!(b["orientation_confidence"].as_f64().unwrap() > 0.9);
    assert_eq!(b["files_reversed"], false);
    assert_eq!(b["corners"].as_array().unwrap().len(), 4);
    let squares = b["squares"].as_array().unwrap();
    assert_eq!(squares.len(), 64);
    assert_eq!(squares[0]["square"], "a8");
    assert_eq!(squares[0]["piece"], "r");
    assert_eq!(squares[63]["square"], "h1");
    assert_eq!(squares[63]["piece"], "R");
    assert!(b["uncertain"].is_array() && b["warnings"].is_array());
    assert!(b["check_whole_board"].is_null());
    let bad = &lines[1];
    assert_eq!(bad["file"], "/nonexistent/x.png");
    assert!(bad["error"].as_str().unwrap().starts_with("cannot read"));
    assert_eq!(bad["boards"].as_array().unwrap().len(), 0);
}

#[test]
fn cli_warns_about_impossible_flags_and_positions() {
    let out = img2fen()
        .arg(testdata("small_board_article.png"))
        .args(["--castling", "KQ", "--en-passant", "e6"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1\n");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("warning: castling right 'K' dropped: the white king is not on e1"), "{stderr}");
    assert!(stderr.contains("warning: en passant square e6 dropped: no black pawn on e5"), "{stderr}");
}

#[test]
fn cli_usage_errors_exit_2() {
    let out = img2fen().output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = img2fen().args(["x.png", "--castling", "KX"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn cli_reads_in_parallel_and_prints_in_input_order() {
    let cases = expected();
    // Twice each, so that several workers finish out of order: the second time named through
    // `./` (a name given twice is read once).
    let again = |f: &str| testdata(".").join(f);
    let args: Vec<PathBuf> =
        cases.iter().map(|(f, _, _)| testdata(f)).chain(cases.iter().map(|(f, _, _)| again(f))).collect();
    let out = img2fen().args(["-j", "4", "--orientation", "auto"]).args(&args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let want: Vec<String> = cases
        .iter()
        .map(|(f, placement, _)| format!("{}\t{placement} w - - 0 1", testdata(f).display()))
        .chain(cases.iter().map(|(f, placement, _)| format!("{}\t{placement} w - - 0 1", again(f).display())))
        .collect();
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().collect::<Vec<_>>(), want);
}

#[test]
fn cli_board_picks_one_board_and_says_when_there_is_none() {
    let page = testdata("lichess_page_1920x1080.png");
    let out = img2fen().arg(&page).args(["--board", "1"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "r1bq1rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2Q1RK1 w - - 0 1\n"
    );
    let out = img2fen().arg(&page).args(["--board", "2"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8(out.stderr).unwrap(), format!("img2fen: {}: no board 2: 1 found\n", page.display()));
    assert_eq!(img2fen().arg(&page).args(["--board", "0"]).output().unwrap().status.code(), Some(2));
}

#[test]
fn cli_reads_folders_by_content_and_standard_input() {
    let dir = std::env::temp_dir().join(format!("img2fen-dir-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    std::fs::copy(testdata("small_board_article.png"), dir.join("a.png")).unwrap();
    // An image without an extension, one level down, and a text file that is skipped.
    std::fs::copy(testdata("green_arrows.jpg"), dir.join("sub").join("scan")).unwrap();
    std::fs::write(dir.join("notes.txt"), "not an image").unwrap();

    let out = img2fen().arg(&dir).arg(dir.join("empty")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!(
            "{}\t6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1\n{}\trnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w - - 0 1\n",
            dir.join("a.png").display(),
            dir.join("sub").join("scan").display()
        )
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(&format!("img2fen: {}: no images in this folder", dir.join("empty").display())),
        "{stderr}"
    );

    let mut child =
        img2fen().arg("-").stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).spawn().unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&std::fs::read(testdata("small_board_article.png")).unwrap()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cli_csv_on_stdout_starts_with_its_header() {
    let out = img2fen()
        .arg(testdata("green_arrows.jpg"))
        .arg("/nonexistent/x.png")
        .args(["--format", "csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "file,board,fen,orientation,orientation_source,min_p,uncertain,check_whole_board,error,page");
    assert!(
        lines[1].starts_with(&format!(
            "{},1,rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w - - 0 1,white,coordinates,",
            testdata("green_arrows.jpg").display()
        )),
        "{stdout}"
    );
    assert!(lines[1].ends_with(",,"), "{stdout}");
    assert!(lines[2].starts_with("/nonexistent/x.png,,,,,,,,cannot read"), "{stdout}");
    assert_eq!(lines.len(), 3);
}

#[test]
fn the_recognizers_steps_run_one_by_one_give_what_recognize_gives() {
    let rec = tract(None);
    let img = img2fen::load_image(&testdata("book_black_side_coords.png")).unwrap();
    let whole = rec.recognize(&img).unwrap();
    let gray = img2fen::cells::grey(&img);
    let found = rec.locate(&img, &gray);
    assert_eq!(found.len(), whole.len());
    let located = &found[0];
    let cut = img2fen::cells::Cut::new(&gray, &located.quad);
    let probs = rec.classify(&cut).unwrap();
    let coords = rec.read_coordinates(&gray, &located.quad).unwrap();
    let board = rec.assemble(probs, coords, located, cut.board);
    assert_eq!(board.fen, whole[0].fen);
    assert_eq!(board.orientation, Orientation::Black);
}

/// (file, whole FEN, what decides the side to move) from testdata/to_move/expected.csv.
fn to_move_expected() -> Vec<(String, String, String)> {
    csv_rows("to_move/expected.csv").into_iter().map(|f| (f[0].clone(), f[1].clone(), f[2].clone())).collect()
}

#[test]
fn the_side_to_move_comes_from_the_picture_only_when_asked() {
    let auto = Recognizer::new(Options {
        classifier: ClassifierOptions { backend: Backend::Tract, ..Default::default() },
        fen: FenOptions { turn_from_picture: true, en_passant_from_picture: true, ..Default::default() },
        ..Default::default()
    })
    .unwrap();
    let plain = tract(None);
    for (file, fen, source) in to_move_expected() {
        let path = testdata(&format!("to_move/{file}"));
        let b = &auto.read_file(&path).unwrap()[0];
        assert_eq!(b.fen, fen, "{file}");
        assert_eq!(b.side_to_move.source.name(), source, "{file}");
        assert!(b.side_to_move.confidence > 0.9, "{file}: {:?}", b.side_to_move);
        // Not asked: White, by default, whatever the picture shows.
        let b = &plain.read_file(&path).unwrap()[0];
        let placement = fen.split(' ').next().unwrap();
        assert_eq!(b.fen, format!("{placement} w - - 0 1"), "{file}");
        assert_eq!(b.side_to_move.source, TurnSource::Default, "{file}");
    }
    // A board with no move shown and no check: the default, said to be one.
    let b = &auto.read_file(&testdata("lichess_page_1920x1080.png")).unwrap()[0];
    assert_eq!((b.side_to_move.source, b.side_to_move.confidence), (TurnSource::Default, 0.5));
    // A move highlighted that no piece could have made (c2-c4 past a knight on c3) is no witness.
    let b = &auto.read_file(&testdata("chessground_black_side.png")).unwrap()[0];
    assert_eq!(b.side_to_move.source, TurnSource::Default);
}

#[test]
fn cli_flags_win_over_the_picture() {
    let file = testdata("to_move/cm_chessboard_check.png");
    let run = |args: &[&str]| {
        let out = img2fen().arg(&file).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap().trim().split(' ').nth(1).unwrap().to_string()
    };
    assert_eq!(run(&["--to-move", "auto"]), "b");
    assert_eq!(run(&["--to-move", "auto", "-w"]), "w");
    assert_eq!(run(&["--to-move", "w"]), "w");
    assert_eq!(run(&[]), "w");
    let json = img2fen().arg(&file).args(["--to-move", "auto", "--format", "json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let side = &v["boards"][0]["side_to_move"];
    assert_eq!((side["color"].as_str(), side["source"].as_str()), (Some("b"), Some("last_move")));
    assert_eq!(side["last_move"], serde_json::json!(["h5", "f7"]));
}

#[test]
fn boards_shown_small_are_read_by_the_small_board_model() {
    let rec = tract(None);
    assert!(rec.classifier().reads_small(10.0));
    assert!(!rec.classifier().reads_small(img2fen::classify::SMALL_SQUARE_PX));
    assert!(!rec.classifier().reads_small(40.0));
    // A piece model given as a file reads every board, unless a small-board model is given too.
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let own = |small: Option<PathBuf>| {
        Recognizer::new(Options {
            classifier: ClassifierOptions {
                backend: Backend::Tract,
                model: Some(models.join("piece_classifier.onnx")),
                small_model: small,
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap()
    };
    assert!(!own(None).classifier().reads_small(10.0));
    assert!(own(Some(models.join("piece_classifier_small.onnx"))).classifier().reads_small(10.0));
}

#[test]
fn a_board_too_small_to_read_reduced_is_read_from_the_whole_picture() {
    // The article's 160-pixel board on a page three times its picture's size, as a JPEG: reduced
    // to half, the board would have 10-pixel squares, so the whole picture is read.
    let article = img2fen::load_image(&testdata("small_board_article.png")).unwrap().to_rgb8();
    let mut page = image::RgbImage::from_pixel(2700, 1800, image::Rgb([255, 255, 255]));
    image::imageops::overlay(&mut page, &article, 1200, 700);
    let mut bytes = Vec::new();
    page.write_with_encoder(image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 95)).unwrap();
    let alone = tract(None).read_file(&testdata("small_board_article.png")).unwrap().remove(0);
    let read = tract(None).read_picture(&bytes).unwrap();
    assert_eq!(read.reduction, 1);
    assert_eq!(tract(None).decode_for_reading(&bytes).unwrap().1, 1);
    let b = read.boards.unwrap().remove(0);
    assert_eq!(b.placement, "6k1/5ppp/8/8/8/8/5PPP/3R2K1");
    for (p, q) in b.corners.0.iter().zip(alone.corners.0.iter()) {
        assert!((p.x - q.x - 1200.0).abs() < 1.0 && (p.y - q.y - 700.0).abs() < 1.0, "{:?}", b.corners);
    }
}
