//! Hostile inputs and outputs, one test a row of issue 32's table: damaged pictures, folders
//! holding what is not a picture, links that loop, FIFOs, output files named as inputs, full
//! disks, two runs on one file, names that would split a record, huge `-j`. Each asserts what
//! a user is told, on the pure-Rust backend.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

mod common;
use common::run_within;

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata").join(name)
}

/// A fresh folder for one test.
fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("img2fen-hostile-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The reading command on tract, run in `dir`.
fn img2fen(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_img2fen"));
    c.current_dir(dir).args(["--backend", "tract"]);
    c
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_truncated_jpeg_is_an_error_not_a_wrong_position() {
    let d = temp("truncated-jpeg");
    let bytes = std::fs::read(testdata("green_arrows.jpg")).unwrap();
    std::fs::write(d.join("cut.jpg"), &bytes[..bytes.len() * 3 / 4]).unwrap();
    let r = img2fen(&d).arg("cut.jpg").output().unwrap();
    assert_eq!(r.status.code(), Some(1));
    assert!(r.stdout.is_empty(), "no FEN for a picture cut off");
    assert!(stderr(&r).contains("cut.jpg: truncated JPEG"), "{}", stderr(&r));
}

#[cfg(unix)]
#[test]
fn a_folder_of_broken_files_links_and_a_fifo_is_read_once_and_nothing_is_silent() {
    let d = temp("folder");
    let f = d.join("shots");
    std::fs::create_dir(&f).unwrap();
    std::fs::copy(testdata("small_board_article.png"), f.join("a.png")).unwrap();
    std::fs::write(f.join("empty.png"), b"").unwrap();
    std::fs::write(f.join("random.jpg"), [0x13u8, 0x37, 0x42, 0x00, 0xff, 0x10, 0x20, 0x30]).unwrap();
    std::fs::write(f.join("text.png"), b"not a picture\n").unwrap();
    // A HEIC photo's header with nothing behind it: corrupt with the decoder, named without.
    std::fs::write(f.join("photo.heic"), b"\0\0\0\x18ftypheic\0\0\0\0mif1heic").unwrap();
    std::os::unix::fs::symlink(".", f.join("me")).unwrap();
    std::os::unix::fs::symlink(".", f.join("again")).unwrap();
    let fifo = Command::new("mkfifo").arg(f.join("x.png")).status().is_ok_and(|s| s.success());
    let r = run_within(
        {
            let mut c = img2fen(&d);
            c.arg("shots");
            c
        },
        Duration::from_secs(60),
    );
    assert_eq!(r.status.code(), Some(1), "{}", stderr(&r));
    let out = stdout(&r);
    assert_eq!(out.lines().count(), 1, "a.png once, not once per link: {out}");
    assert!(out.starts_with("shots/a.png\t6k1/5ppp/8/8/8/8/5PPP/3R2K1 w"), "{out}");
    let err = stderr(&r);
    for (file, why) in [
        ("empty.png", "empty file"),
        ("random.jpg", "not an image"),
        ("text.png", "not an image"),
        ("photo.heic", "HEIC picture"),
    ] {
        assert!(err.contains(&format!("shots/{file}: ")) && err.contains(why), "{file}: {err}");
    }
    assert!(err.contains("2 links to folders already read"), "{err}");
    if fifo {
        assert!(err.contains("1 entry that is not a regular file"), "{err}");
    }
}

#[test]
fn an_output_file_that_is_an_input_is_refused_before_it_is_touched() {
    let d = temp("output-input");
    std::fs::copy(testdata("small_board_article.png"), d.join("a.png")).unwrap();
    let before = std::fs::read(d.join("a.png")).unwrap();
    let r = img2fen(&d).args(["a.png", "-o", "./a.png", "--force"]).output().unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(stderr(&r).contains("the output file is also an input"), "{}", stderr(&r));
    assert_eq!(std::fs::read(d.join("a.png")).unwrap(), before);
}

#[test]
fn a_full_disk_on_standard_output_is_a_write_error() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else { return };
    let d = temp("full");
    let r = img2fen(&d).arg(testdata("small_board_article.png")).stdout(full).output().unwrap();
    assert_eq!(r.status.code(), Some(2), "{}", stderr(&r));
    assert!(stderr(&r).contains("standard output: write error"), "{}", stderr(&r));
}

#[test]
fn a_second_run_on_an_output_file_in_use_is_refused() {
    let d = temp("lock");
    std::fs::copy(testdata("small_board_article.png"), d.join("a.png")).unwrap();
    std::fs::write(d.join("out.fen"), "").unwrap();
    // Another run holds the file.
    let held = std::fs::OpenOptions::new().append(true).open(d.join("out.fen")).unwrap();
    held.lock().unwrap();
    let r = img2fen(&d).args(["a.png", "-o", "out.fen", "--resume"]).output().unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(stderr(&r).contains("another img2fen run is writing this file"), "{}", stderr(&r));
    drop(held);
    let r = img2fen(&d).args(["a.png", "-o", "out.fen", "--resume"]).output().unwrap();
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
}

/// A picture holding two diagrams side by side: a book diagram from Black's side and a web board.
fn two_boards(path: &Path) {
    let a = image::open(testdata("book_black_side_coords.png")).unwrap().to_rgb8();
    let b = image::open(testdata("cm_chessboard_frame.png")).unwrap().to_rgb8();
    let mut page = image::RgbImage::from_pixel(1300, 560, image::Rgb([255, 255, 255]));
    image::imageops::replace(&mut page, &a, 20, 20);
    image::imageops::replace(&mut page, &b, 570, 50);
    page.save(path).unwrap();
}

#[test]
fn a_record_cut_between_its_boards_is_read_again_on_resume() {
    let d = temp("cut-between-boards");
    two_boards(&d.join("two.png"));
    std::fs::copy(testdata("small_board_article.png"), d.join("one.png")).unwrap();
    for (format, out) in [("csv", "out.csv"), ("fen", "out.fen")] {
        let r = img2fen(&d).args(["one.png", "two.png", "--format", format, "-o", out]).output().unwrap();
        assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
        let whole = std::fs::read_to_string(d.join(out)).unwrap();
        let two: Vec<&str> = whole.lines().filter(|l| l.starts_with("two.png")).collect();
        assert_eq!(two.len(), 2, "two boards: {whole}");
        // A kill between the two lines of two.png's record: its first board alone is on disk.
        let cut = &whole[..whole.find(two[1]).unwrap()];
        std::fs::write(d.join(out), cut).unwrap();
        let r = img2fen(&d).args(["one.png", "two.png", "--format", format, "-o", out, "--resume"]).output().unwrap();
        assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
        assert_eq!(std::fs::read_to_string(d.join(out)).unwrap(), whole, "{format}: both boards, once each");
    }
}

#[test]
fn resume_knows_a_file_named_another_way() {
    let d = temp("resume-canonical");
    std::fs::create_dir(d.join("dir")).unwrap();
    std::fs::copy(testdata("small_board_article.png"), d.join("dir/a.png")).unwrap();
    // b.png, recorded last, is read again (its record might lack boards); a.png is skipped.
    std::fs::copy(testdata("small_board_article.png"), d.join("dir/b.png")).unwrap();
    assert_eq!(img2fen(&d).args(["dir", "-o", "out.fen"]).output().unwrap().status.code(), Some(0));
    let before = std::fs::read_to_string(d.join("out.fen")).unwrap();
    let again = img2fen(&d).args(["./dir", "-o", "out.fen", "--resume"]).output().unwrap();
    assert_eq!(again.status.code(), Some(0));
    assert!(stderr(&again).contains("1 skipped: already in the output file"), "{}", stderr(&again));
    let after = std::fs::read_to_string(d.join("out.fen")).unwrap();
    assert_eq!(
        after.lines().collect::<Vec<_>>(),
        [before.lines().next().unwrap(), &before.lines().nth(1).unwrap().replace("dir/", "./dir/")]
    );
}

#[cfg(unix)]
#[test]
fn a_newline_in_a_file_name_neither_splits_its_record_nor_stops_resume() {
    let d = temp("newline");
    std::fs::create_dir(d.join("dir")).unwrap();
    std::fs::copy(testdata("small_board_article.png"), d.join("dir/new\nline.png")).unwrap();
    std::fs::copy(testdata("small_board_article.png"), d.join("dir/plain.png")).unwrap();
    let r = img2fen(&d).args(["dir", "-o", "out.fen"]).output().unwrap();
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let text = std::fs::read_to_string(d.join("out.fen")).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.starts_with("dir/new\\nline.png\t6k1/"), "{text}");
    let again = img2fen(&d).args(["dir", "-o", "out.fen", "--resume"]).output().unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    // plain.png, recorded last, is read again; the name with a newline is known and skipped.
    assert!(stderr(&again).contains("1 skipped: already in the output file"), "{}", stderr(&again));
    assert_eq!(std::fs::read_to_string(d.join("out.fen")).unwrap(), text);
}

#[test]
fn a_huge_job_count_starts_no_more_threads_than_inputs() {
    let d = temp("jobs");
    let r = run_within(
        {
            let mut c = img2fen(&d);
            c.args(["-j", "20000"]).arg(testdata("small_board_article.png")).arg(testdata("green_arrows.jpg"));
            c
        },
        Duration::from_secs(20),
    );
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    assert_eq!(stdout(&r).lines().count(), 2);
}

#[cfg(target_os = "linux")]
#[test]
fn names_that_are_not_utf8_get_records_of_their_own_and_resume_knows_them() {
    use std::os::unix::ffi::OsStrExt;
    let d = temp("not-utf8");
    std::fs::create_dir(d.join("dir")).unwrap();
    for name in [&b"caf\xe9.png"[..], &b"caf\xe8.png"[..]] {
        let p = d.join("dir").join(std::ffi::OsStr::from_bytes(name));
        std::fs::copy(testdata("small_board_article.png"), p).unwrap();
    }
    let r = img2fen(&d).args(["dir", "--format", "json", "-o", "out.jsonl"]).output().unwrap();
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let text = std::fs::read_to_string(d.join("out.jsonl")).unwrap();
    let files: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["file"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(files, ["dir/caf\\xe8.png", "dir/caf\\xe9.png"]);
    let again = img2fen(&d).args(["dir", "--format", "json", "-o", "out.jsonl", "--resume"]).output().unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    // JSON records are one line each: both are whole and skipped.
    assert!(stderr(&again).contains("2 skipped: already in the output file"), "{}", stderr(&again));
    assert_eq!(std::fs::read_to_string(d.join("out.jsonl")).unwrap(), text);
}
