//! The command line as a new user meets it: output files that must not be destroyed, quiet and
//! verbose runs, usage errors, exit codes, the output formats against fixtures, the version
//! line, completions and the man page, "no board found", and review pages. Runs on tract.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata").join(name)
}

/// The command, run from the project's root, without arguments (for the subcommands).
fn bare() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_img2fen"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// The reading command on the pure-Rust backend.
fn img2fen() -> Command {
    let mut c = bare();
    c.args(["--backend", "tract"]);
    c
}

/// A fresh folder for one test.
fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("img2fen-cli-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A grey picture with a 6x6 checkerboard in it: a checkered region, but no board.
fn six_by_six(path: &Path) {
    let img = image::GrayImage::from_fn(400, 400, |x, y| {
        let (c, r) = (x.wrapping_sub(40) / 36, y.wrapping_sub(40) / 36);
        image::Luma([if c >= 6 || r >= 6 {
            200
        } else if (c + r) % 2 == 0 {
            235
        } else {
            60
        }])
    });
    img.save(path).unwrap();
}

const LICHESS: &str = "testdata/lichess_page_1920x1080.png";

#[test]
fn an_existing_output_file_is_kept_unless_resume_or_force_is_given() {
    let d = temp("output");
    let out = d.join("out.txt");
    std::fs::write(&out, "keep me\n").unwrap();
    let r = img2fen().args([LICHESS, "-o"]).arg(&out).output().unwrap();
    assert_eq!(r.status.code(), Some(2));
    let e = stderr(&r);
    assert!(e.contains("--resume") && e.contains("--force") && e.contains("out.txt"), "{e}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep me\n");
    // --force replaces it.
    let r = img2fen().args([LICHESS, "--force", "-o"]).arg(&out).output().unwrap();
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("testdata/lichess_page_1920x1080.png\tr1bq1rk1/"), "{text}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn an_output_file_that_is_also_an_input_is_refused() {
    let d = temp("self");
    let input = d.join("board.png");
    std::fs::copy(testdata("lichess_page_1920x1080.png"), &input).unwrap();
    let before = std::fs::read(&input).unwrap();
    for extra in [&[][..], &["--force"][..], &["--resume"][..]] {
        let r = img2fen().arg(&input).args(extra).arg("-o").arg(&input).output().unwrap();
        assert_eq!(r.status.code(), Some(2));
        assert!(stderr(&r).contains("also an input"), "{}", stderr(&r));
        assert_eq!(std::fs::read(&input).unwrap(), before, "the input was changed");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn quiet_prints_records_and_errors_only() {
    let args = [LICHESS, "testdata/bad/not_an_image.png", "--min-confidence", "0.98", "--progress", "always"];
    let loud = img2fen().args(args).output().unwrap();
    assert!(stderr(&loud).lines().count() > 2, "{}", stderr(&loud));
    let quiet = img2fen().args(args).arg("-q").output().unwrap();
    assert_eq!(quiet.status.code(), Some(1));
    assert_eq!(stderr(&quiet), "img2fen: testdata/bad/not_an_image.png: not an image (unrecognised format)\n");
    assert_eq!(quiet.stdout, loud.stdout);
    // -v says where each board was found and what decided its orientation.
    let verbose = img2fen().args([LICHESS, "-v"]).output().unwrap();
    let e = stderr(&verbose);
    assert!(e.contains("49 grid corners seen") || e.contains("/49 grid corners seen"), "{e}");
    assert!(e.contains("from the coordinates"), "{e}");
}

#[test]
fn usage_errors_exit_2_and_say_what_is_wrong() {
    for p in ["1.5", "-0.1", "NaN", "nan", "x"] {
        let r = img2fen().arg(LICHESS).arg(format!("--min-confidence={p}")).output().unwrap();
        assert_eq!(r.status.code(), Some(2), "--min-confidence {p}");
        assert!(stderr(&r).contains("not a probability"), "{}", stderr(&r));
    }
    let d = temp("empty-list");
    let list = d.join("list.txt");
    std::fs::write(&list, "\n").unwrap();
    let r = img2fen().arg("--files-from").arg(&list).output().unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(stderr(&r).contains("the list of files is empty"), "{}", stderr(&r));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn exit_codes_tell_read_failed_and_to_check_apart() {
    let status = |args: &[&str]| img2fen().args(args).output().unwrap().status.code();
    assert_eq!(status(&[LICHESS]), Some(0));
    assert_eq!(status(&[LICHESS, "--strict"]), Some(0));
    // Every square under 99.9% is one to check.
    assert_eq!(status(&[LICHESS, "--min-confidence", "0.999"]), Some(0));
    assert_eq!(status(&[LICHESS, "--min-confidence", "0.999", "--strict"]), Some(3));
    assert_eq!(status(&[LICHESS, "testdata/bad/truncated.png", "--strict"]), Some(1));
    assert_eq!(status(&["--no-such-flag", LICHESS]), Some(2));
    // A sparse ending without coordinates: every square sure, the side at the bottom a guess
    // from the pieces. It is one to check, unless the user says which side it is.
    let ending = "testdata/orientation/sparse_ending.png";
    assert_eq!(status(&[ending, "--strict"]), Some(3));
    assert_eq!(status(&[ending, "--strict", "--orientation", "white"]), Some(0));
    let r = img2fen().args([ending]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&r.stdout).trim(), "8/8/8/6pK/8/8/3b1QN1/7k w - - 0 1");
    assert!(stderr(&r).contains("which side is at the bottom is uncertain"), "{}", stderr(&r));
}

#[test]
fn every_output_format_matches_its_fixture() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for (format, file) in [("fen", "lichess_page.fen"), ("json", "lichess_page.jsonl"), ("csv", "lichess_page.csv")] {
        let r = img2fen()
            .args([LICHESS, "testdata/bad/not_an_image.png", "--min-confidence", "0.98", "--format", format])
            .output()
            .unwrap();
        assert_eq!(r.status.code(), Some(1));
        let want = std::fs::read_to_string(fixtures.join(file)).unwrap();
        assert_eq!(String::from_utf8(r.stdout).unwrap(), want, "--format {format} differs from {file}");
    }
    // Every key of the documented JSON schema (GUIDE.md) is there.
    let line = std::fs::read_to_string(fixtures.join("lichess_page.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    let board = &first["boards"][0];
    for key in [
        "kind",
        "kind_confidence",
        "set",
        "fen",
        "placement",
        "side_to_move",
        "orientation",
        "orientation_source",
        "orientation_confidence",
        "files_reversed",
        "coordinates",
        "corners",
        "min_confidence",
        "min_p",
        "squares",
        "uncertain",
        "outside",
        "check_whole_board",
        "warnings",
    ] {
        assert!(board.get(key).is_some(), "no {key} in {board}");
    }
    assert_eq!(board["min_p"], 0.9633);
    assert_eq!(board["uncertain"][0]["square"], "b2");
}

#[test]
fn version_names_the_models_and_completions_and_man_page_are_generated() {
    let v = bare().arg("--version").output().unwrap();
    let v = String::from_utf8(v.stdout).unwrap();
    assert!(
        v.starts_with("img2fen ")
            && v.contains("piece model v0.4")
            && v.contains("coordinate model v0.2")
            && v.contains("physical-board model v0.4")
            && v.contains("occupancy model v0.3"),
        "{v}"
    );
    let bash = bare().args(["completions", "bash"]).output().unwrap();
    let bash = String::from_utf8(bash.stdout).unwrap();
    assert!(bash.contains("--min-confidence") && bash.contains("eval-locate"), "{bash}");
    let man = bare().arg("manpage").output().unwrap();
    let man = String::from_utf8(man.stdout).unwrap();
    assert!(man.contains(".TH img2fen 1") && man.contains("min\\-confidence"), "{}", &man[..200.min(man.len())]);
    assert!(man.contains("img2fen\\-eval") && man.contains("Examples:"), "{man}");
    // User options come before the developer commands in --help.
    let help = String::from_utf8(bare().arg("--help").output().unwrap().stdout).unwrap();
    let (user, dev) = (help.find("--white-to-move").unwrap(), help.find("Developer commands").unwrap());
    assert!(user < dev, "{help}");
    assert!(help.contains("Examples:"));
}

#[test]
fn no_board_found_says_what_came_nearest_and_debug_shows_it() {
    let d = temp("nearest");
    let pic = d.join("six.png");
    six_by_six(&pic);
    let blank = d.join("blank.png");
    image::GrayImage::from_pixel(300, 300, image::Luma([200])).save(&blank).unwrap();
    let r = img2fen().arg(&pic).arg(&blank).arg("--debug").arg(d.join("debug")).output().unwrap();
    assert_eq!(r.status.code(), Some(1));
    let e = stderr(&r);
    assert!(
        e.contains("six.png: no board found: the largest checkered region found is 6x6 squares (25 corners seen); a chess board is 8x8"),
        "{e}"
    );
    assert!(e.contains("blank.png: no board found: no grid of alternating squares"), "{e}");
    assert!(d.join("debug/six.corners.png").exists());
    assert!(d.join("debug/blank.corners.png").exists());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_review_folder_never_shows_an_earlier_runs_boards() {
    let d = temp("review");
    let review = d.join("review");
    let run = |inputs: &[&str]| {
        let r = img2fen().args(inputs).arg("--review").arg(&review).output().unwrap();
        assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    };
    run(&[LICHESS, "testdata/chessground_black_side.png"]);
    let pngs = || {
        let mut v: Vec<String> = std::fs::read_dir(&review)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".png"))
            .collect();
        v.sort();
        v
    };
    assert_eq!(pngs().len(), 2);
    run(&["testdata/chessground_black_side.png"]);
    assert_eq!(pngs(), ["00001_chessground_black_side_1.png"]);
    let page = std::fs::read_to_string(review.join("index.html")).unwrap();
    assert!(!page.contains("lichess_page"), "stale board on the page");
    assert!(page.contains("Show only the boards to check") && page.contains("Upper-case letters are White"));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn learn_set_writes_a_set_that_set_reads_with_and_refuses_what_it_cannot_use() {
    let d = temp("learn-set");
    let set = d.join("skulls.set.json");
    let start = "testdata/learn/pychess-skulls_start.png";
    let game = "testdata/learn/pychess-skulls_game.png";
    let r = bare().args(["learn-set", "--backend", "tract", "-o"]).arg(&set).arg(start).output().unwrap();
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    assert!(stderr(&r).contains("set 'skulls' (flat boards) learned"), "{}", stderr(&r));
    // Not overwritten without --force.
    let again = bare().args(["learn-set", "--backend", "tract", "-o"]).arg(&set).arg(start).output().unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(stderr(&again).contains("exists; pass --force"), "{}", stderr(&again));

    let r = img2fen().arg("--set").arg(&set).args(["--format", "json", game]).output().unwrap();
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    let board = &v["boards"][0];
    assert_eq!(board["set"], "skulls", "{v}");
    assert_eq!(board["placement"], "r2q1rk1/pp1nbppp/2p1pn2/3p1b2/2PP4/1QN1PN2/PP2BPPP/R1B2RK1");

    // A picture that does not show the position given: refused, naming the picture.
    let wrong = format!("{start}=8/8/8/4k3/8/8/8/4K3");
    let r = bare().args(["learn-set", "--backend", "tract", "--force", "-o"]).arg(&set).arg(&wrong).output().unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(stderr(&r).contains(&format!("{start}: cannot learn from this picture")), "{}", stderr(&r));

    // A batch of one game: learned from its first picture, every picture read with the set.
    let r = img2fen().args(["--learn-first", start, game]).output().unwrap();
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    assert!(stderr(&r).contains("img2fen: learned the set 'pychess-skulls_start'"), "{}", stderr(&r));
    let out = String::from_utf8(r.stdout).unwrap();
    assert!(out.contains(&format!("{game}\tr2q1rk1/pp1nbppp/2p1pn2/3p1b2/2PP4/1QN1PN2/PP2BPPP/R1B2RK1 w")), "{out}");

    // A set file that is not one: refused, naming the file.
    let bad = d.join("bad.set.json");
    std::fs::write(&bad, "{\"format\": \"something else\"}").unwrap();
    let r = img2fen().arg("--set").arg(&bad).arg(game).output().unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(stderr(&r).contains(&format!("{}: not a learned piece set", bad.display())), "{}", stderr(&r));
}
