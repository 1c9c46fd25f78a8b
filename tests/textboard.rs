//! Text boards in a terminal (testdata/terminal/, rendered by
//! scripts/img2fen_training/render/terminal.py --testdata): found, read exactly and the right way
//! up, through the library and the `img2fen` command, with the pure-Rust backend.

use std::path::{Path, PathBuf};
use std::process::Command;

use img2fen::{Backend, ClassifierOptions, Error, Options, Orientation, OrientationSource, ReadingSource, Recognizer};

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/terminal").join(name)
}

/// (file, placement from White, flipped) from testdata/terminal/expected.csv.
fn expected() -> Vec<(String, String, bool)> {
    let text = std::fs::read_to_string(testdata("expected.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].to_string(), f[1].to_string(), f[2] == "1")
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

#[test]
fn every_text_board_is_read_exactly_and_the_right_way_up() {
    let rec = tract();
    for (file, placement, flipped) in expected() {
        let boards = rec.read_file(&testdata(&file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(boards.len(), 1, "{file}");
        let b = &boards[0];
        assert_eq!(b.source, ReadingSource::Text, "{file}");
        assert_eq!(b.placement, placement, "{file}");
        assert_eq!(b.orientation, if flipped { Orientation::Black } else { Orientation::White }, "{file}");
        assert!(b.warnings.is_empty(), "{file}: {:?}", b.warnings);
        assert!(b.uncertain().is_empty(), "{file}: {:?}", b.uncertain());
    }
}

#[test]
fn printed_coordinates_decide_the_orientation() {
    let rec = tract();
    // python-chess printed the board from Black's side with its coordinates; Stockfish prints
    // them from White's.
    for (file, want) in [("unicode_black_side.png", Orientation::Black), ("stockfish_light.png", Orientation::White)] {
        let b = &rec.read_file(&testdata(file)).unwrap()[0];
        assert_eq!(b.orientation_source, OrientationSource::Coordinates, "{file}");
        assert_eq!(b.orientation, want, "{file}");
    }
    // str(board) prints none: the pieces decide.
    let b = &rec.read_file(&testdata("python_chess_str.jpg")).unwrap()[0];
    assert_eq!(b.orientation_source, OrientationSource::Pieces);
}

#[test]
fn the_board_corners_enclose_the_printed_grid() {
    // The Unicode board's eight rows are printed every second line from about y = 78 to 428
    // (18 px font, 1.15 line spacing), its files from x = 49 to 207.
    let b = &tract().read_file(&testdata("unicode_black_side.png")).unwrap()[0];
    let [tl, _, br, _] = b.corners.0;
    assert!((tl.x - 42.0).abs() < 6.0 && (tl.y - 53.0).abs() < 10.0, "{tl:?}");
    assert!((br.x - 214.0).abs() < 6.0 && (br.y - 453.0).abs() < 10.0, "{br:?}");
}

#[test]
fn text_without_a_board_is_no_board() {
    // The first five rows of the str(board) picture: a text board cut short is not read.
    let img = image::open(testdata("python_chess_str.jpg")).unwrap();
    let cut = img.crop_imm(0, 0, img.width(), img.height() * 11 / 20);
    match tract().recognize(&cut) {
        Err(Error::NoBoard { nearest, .. }) => assert!(nearest.contains("text board"), "{nearest}"),
        other => panic!("expected no board, got {other:?}"),
    }
}

#[test]
fn the_command_prints_the_fen_of_a_text_board() {
    let out = Command::new(env!("CARGO_BIN_EXE_img2fen"))
        .args(["--backend", "tract", "--format", "json"])
        .arg(testdata("stockfish_light.png"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let board = &json["boards"][0];
    assert_eq!(board["fen"], "r2q1rk1/ppp2ppp/2np1n2/2b1p1B1/2B1P1b1/2NP1N2/PPP2PPP/R2Q1RK1 w - - 0 1");
    assert_eq!(board["source"], "text");
}
