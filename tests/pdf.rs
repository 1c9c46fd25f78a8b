//! PDF and multi-page TIFF input through the command, on the pure-Rust backend: the project's
//! own PDFs (testdata/pdf/, made by `python3 -m img2fen_training.render.pdfbooks --testdata`)
//! read page by page with every diagram exact and in reading order, broken PDFs
//! (testdata/bad/*.pdf) each one record that names it while the rest of the batch is read, and
//! a scanner's multi-page TIFF read page by page.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

mod common;
use common::run_within;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn img2fen() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_img2fen"));
    c.current_dir(root()).args(["--backend", "tract", "--progress", "never"]);
    c
}

fn records(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8(out.stdout.clone()).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn placements(record: &serde_json::Value) -> Vec<String> {
    record["boards"].as_array().unwrap().iter().map(|b| b["placement"].as_str().unwrap().to_string()).collect()
}

fn expected() -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(root().join("testdata/pdf/expected.json")).unwrap()).unwrap()
}

#[test]
fn every_page_of_a_two_column_book_and_a_scan_reads_exactly_and_in_order() {
    let out = img2fen().args(["testdata/pdf/book.pdf", "testdata/pdf/scan.pdf", "--format", "json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let got = records(&out);
    let want = expected();
    let mut n = 0;
    for (file, pages) in [("testdata/pdf/book.pdf", &want["book.pdf"]), ("testdata/pdf/scan.pdf", &want["scan.pdf"])] {
        for page in pages.as_array().unwrap() {
            let r = &got[n];
            n += 1;
            assert_eq!(r["file"], file);
            assert_eq!(r["page"], page["page"]);
            assert!(r["error"].is_null(), "{r}");
            let boards: Vec<String> =
                page["boards"].as_array().unwrap().iter().map(|b| b.as_str().unwrap().into()).collect();
            // The book's first page has its left column's diagram lower than the right one's:
            // reading order is the left column first.
            assert_eq!(placements(r), boards, "{file} page {}", page["page"]);
        }
    }
    assert_eq!(n, got.len());
    // The scan is read at its own resolution, 200 dpi; the book's pages, whose diagrams have
    // squares under 48 pixels at 150 dpi, sharper, so that they have 48.
    assert_eq!(got[2]["dpi"], 200.0);
    for r in &got[..2] {
        assert!(r["dpi"].as_f64().unwrap() > 150.0, "{}", r["dpi"]);
        for b in r["boards"].as_array().unwrap() {
            let c = &b["corners"];
            let side = c[1][0].as_f64().unwrap() - c[0][0].as_f64().unwrap();
            assert!(side / 8.0 > 47.0, "squares of {} px", side / 8.0);
        }
    }
}

#[test]
fn a_typeset_book_is_read_from_its_text_layer_and_the_pixels_agree() {
    // book.pdf is typeset with the skak font, diagram_font.pdf typed in TrueType diagram fonts
    // as a word processor does: their diagrams are glyphs in the text layer, which is read as it
    // is; the scan has no text layer and is read from its pixels.
    let args = ["testdata/pdf/book.pdf", "testdata/pdf/diagram_font.pdf", "testdata/pdf/scan.pdf", "--format", "json"];
    let text = records(&img2fen().args(args).output().unwrap());
    let pixels = records(&img2fen().args(args).arg("--no-text-layer").output().unwrap());
    assert_eq!(text.len(), pixels.len());
    for (t, p) in text.iter().zip(&pixels) {
        // Both ways read the same positions, in the same order.
        assert_eq!(placements(t), placements(p), "{} page {}", t["file"], t["page"]);
        let from_text = t["file"] != "testdata/pdf/scan.pdf";
        for (bt, bp) in t["boards"].as_array().unwrap().iter().zip(p["boards"].as_array().unwrap()) {
            assert_eq!(bt["source"], if from_text { "text_layer" } else { "picture" });
            assert_eq!(bp["source"], "picture");
            // The picture of each typeset diagram shows what its text says.
            assert_eq!(bt["picture_differs"], serde_json::json!([]), "{bt}");
            if from_text {
                assert_eq!(bt["min_p"], 1.0);
            }
        }
    }
    // The word processor's page: a framed Merida diagram whose labels say Black is at the
    // bottom, and a Berlin one whose glyphs read as another position in Merida's layout, which
    // the picture rules out.
    let page = text.iter().find(|r| r["file"] == "testdata/pdf/diagram_font.pdf").unwrap();
    let want = &expected()["diagram_font.pdf"][0]["boards"];
    assert_eq!(placements(page), want.as_array().unwrap().iter().map(|b| b.as_str().unwrap()).collect::<Vec<_>>());
    assert_eq!(page["boards"][0]["orientation"], "black");
    assert_eq!(page["boards"][0]["orientation_source"], "coordinates");
    assert_eq!(page["boards"][1]["orientation"], "white");
    // From pixels too, the Merida diagram's labels, set beyond its border glyphs (a square and
    // a half out), decide that Black is at the bottom.
    let page = pixels.iter().find(|r| r["file"] == "testdata/pdf/diagram_font.pdf").unwrap();
    assert_eq!(page["boards"][0]["orientation"], "black");
    assert_eq!(page["boards"][0]["orientation_source"], "coordinates");
}

#[test]
fn a_neighbours_labels_between_two_diagrams_are_outvoted_by_the_boards_own() {
    // The right diagram is seen from Black's side; its rank labels (1 at the top) stand between
    // the two, nearer the left diagram's border than its own. Read for the left diagram they
    // say Black, which its own labels (8 at the top, a to h below) overrule.
    let args = ["testdata/pdf/side_by_side.pdf", "--format", "json", "--no-text-layer"];
    let out = img2fen().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let page = &records(&out)[0];
    let want = &expected()["side_by_side.pdf"][0]["boards"];
    assert_eq!(placements(page), want.as_array().unwrap().iter().map(|b| b.as_str().unwrap()).collect::<Vec<_>>());
    for (board, side) in page["boards"].as_array().unwrap().iter().zip(["white", "black"]) {
        assert_eq!(board["orientation"], side, "{board}");
        assert_eq!(board["orientation_source"], "coordinates", "{board}");
    }
}

#[test]
fn debug_pictures_are_written_for_each_page_with_boards() {
    let d = std::env::temp_dir().join(format!("img2fen-pdf-debug-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let out = img2fen().arg("testdata/pdf/book.pdf").args(["--format", "json", "--debug"]).arg(&d).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"), "{}", String::from_utf8_lossy(&out.stderr));
    let mut names: Vec<String> =
        std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "book.page1.board.2.png",
            "book.page1.board.png",
            "book.page1.corners.png",
            "book.page2.board.png",
            "book.page2.corners.png"
        ]
    );
    // The page is drawn at the resolution its record gives the corners at, and the grid is red
    // where the first board's top-left corner is.
    let first = &records(&out)[0];
    let page = image::open(d.join("book.page1.corners.png")).unwrap().to_rgb8();
    let dpi = first["dpi"].as_f64().unwrap();
    assert!((page.width() as f64 - 595.0 * dpi / 72.0).abs() < 2.0, "{} px at {dpi} dpi", page.width());
    let c = &first["boards"][0]["corners"][0];
    let (x, y) = (c[0].as_f64().unwrap() as u32, c[1].as_f64().unwrap() as u32);
    let red = (x - 1..=x + 1).flat_map(|x| (y - 1..=y + 1).map(move |y| (x, y))).any(|(x, y)| {
        let p = page.get_pixel(x, y);
        p[0] > 200 && p[1] < 60
    });
    assert!(red, "no grid at the first corner ({x}, {y})");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn pages_are_chosen_named_and_resumed_one_by_one() {
    let d = std::env::temp_dir().join(format!("img2fen-pdf-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let book = root().join("testdata/pdf/book.pdf");
    let out = img2fen().arg(&book).args(["--pages", "2"]).output().unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "8/P1K5/8/8/8/8/5kp1/8 w - - 0 1\n");
    let out = img2fen().arg(&book).args(["--pages", "3-"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("book.pdf: --pages chooses none of its 2 pages"));
    // FEN lines name the page; CSV has a page column; resume skips pages already written.
    let out = img2fen().arg(&book).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with(&format!("{}#page=1\tr1bqkb1r/", book.display())), "{text}");
    assert_eq!(text.lines().filter(|l| l.contains("#page=2\t")).count(), 1, "{text}");
    let csv = d.join("out.csv");
    let first = img2fen().arg(&book).args(["--pages", "1", "--format", "csv", "-o"]).arg(&csv).output().unwrap();
    assert_eq!(first.status.code(), Some(0));
    let again = img2fen().arg(&book).args(["--format", "csv", "--resume", "-o"]).arg(&csv).output().unwrap();
    assert_eq!(again.status.code(), Some(0));
    let rows = std::fs::read_to_string(&csv).unwrap();
    let pages: Vec<&str> = rows.lines().skip(1).map(|l| l.rsplit(',').next().unwrap()).collect();
    assert_eq!(pages, ["1", "1", "2"], "{rows}");
    // A PDF on standard input is read the same way.
    let mut child = img2fen().arg("-").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), &std::fs::read(&book).unwrap()).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("-#page=1\tr1bqkb1r/") && text.contains("-#page=2\t8/P1K5/"), "{text}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn broken_pdfs_are_one_error_each_and_the_batch_goes_on() {
    let bad = |f: &str| PathBuf::from("testdata/bad").join(f);
    let mut cmd = img2fen();
    cmd.args(["--format", "json", "-j", "2"]);
    for f in ["truncated.pdf", "encrypted.pdf", "no_pages.pdf", "huge_page.pdf", "deep_nesting.pdf", "bad_xref.pdf"] {
        cmd.arg(bad(f));
    }
    cmd.arg("testdata/small_board_article.png");
    let out = run_within(cmd, Duration::from_secs(120));
    assert_eq!(out.status.code(), Some(1));
    let got = records(&out);
    let error = |i: usize| got[i]["error"].as_str().unwrap_or_default().to_string();
    assert!(error(0).contains("corrupt PDF"), "{}", got[0]);
    assert!(error(1).contains("encrypted PDF") && error(1).contains("password"), "{}", got[1]);
    assert!(error(2).contains("a PDF without pages"), "{}", got[2]);
    assert_eq!(got[3]["page"], 1);
    assert!(error(3).contains("too large to render"), "{}", got[3]);
    // 200,000 nested graphics states render, as a page without boards; the page whose
    // dictionary nests 10,000 arrays deep is dropped by the parser.
    assert_eq!(got[4]["page"], 1);
    assert!(got[4]["error"].is_null() && placements(&got[4]).is_empty(), "{}", got[4]);
    // A cross-reference offset that is off is rebuilt: the book reads as it should.
    assert_eq!(placements(&got[5]).len(), 2, "{}", got[5]);
    assert_eq!(placements(&got[6]), ["8/P1K5/8/8/8/8/5kp1/8"]);
    assert_eq!(placements(&got[7]), ["6k1/5ppp/8/8/8/8/5PPP/3R2K1"]);
    assert_eq!(got.len(), 8);
}

#[test]
fn every_page_of_a_multi_page_tiff_is_read() {
    // A scanner's multi-page TIFF: two diagrams with a blank page between them.
    let path = std::env::temp_dir().join(format!("img2fen-tiff-{}.tif", std::process::id()));
    {
        let file = std::fs::File::create(&path).unwrap();
        let mut enc = tiff::encoder::TiffEncoder::new(std::io::BufWriter::new(file)).unwrap();
        let blank = image::RgbImage::from_pixel(600, 400, image::Rgb([250, 250, 250]));
        for page in [
            image::open(root().join("testdata/small_board_article.png")).unwrap().to_rgb8(),
            blank,
            image::open(root().join("testdata/book_black_side_coords.png")).unwrap().to_rgb8(),
        ] {
            enc.write_image::<tiff::encoder::colortype::RGB8>(page.width(), page.height(), page.as_raw()).unwrap();
        }
    }
    let out = img2fen().arg(&path).args(["--format", "json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let got = records(&out);
    let pages: Vec<u64> = got.iter().map(|r| r["page"].as_u64().unwrap()).collect();
    assert_eq!(pages, [1, 2, 3]);
    assert_eq!(placements(&got[0]), ["6k1/5ppp/8/8/8/8/5PPP/3R2K1"]);
    assert!(placements(&got[1]).is_empty() && got[1]["error"].is_null(), "{}", got[1]);
    assert_eq!(placements(&got[2]), ["1K6/1P6/8/8/8/8/6p1/6k1"]);
    assert!(got[0]["dpi"].is_null());
    let out = img2fen().arg(&path).args(["--pages", "3"]).output().unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "1K6/1P6/8/8/8/8/6p1/6k1 w - - 0 1\n");
    std::fs::remove_file(&path).unwrap();
}
