//! The batch path through the CLI: every format, every bad input, output files and --resume.
//! Runs on the pure-Rust backend.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata").join(name)
}

fn img2fen() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_img2fen"));
    c.args(["--backend", "tract"]);
    c
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("img2fen-batch-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// testdata/expected.csv as file -> placement.
fn expected() -> BTreeMap<String, String> {
    std::fs::read_to_string(testdata("expected.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].to_string(), f[1].to_string())
        })
        .collect()
}

#[test]
fn every_format_is_read_and_every_bad_input_reported_without_stopping_the_batch() {
    let d = temp("bad");
    copy_dir(&testdata("formats"), &d.join("formats"));
    copy_dir(&testdata("bad"), &d.join("bad"));
    let bad = d.join("bad");
    std::fs::write(bad.join("zero_bytes.png"), b"").unwrap();
    std::fs::create_dir_all(d.join("no_images/sub")).unwrap();
    std::fs::write(d.join("no_images/sub/readme.txt"), "no pictures here").unwrap();
    std::os::unix::fs::symlink(d.join("gone.png"), bad.join("dangling_link.png")).unwrap();
    let locked = bad.join("locked.png");
    std::fs::copy(testdata("formats/rgb.png"), &locked).unwrap();
    std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    // Root reads any file: then the locked file is a good picture and must be read as one.
    let locked_readable = std::fs::read(&locked).is_ok();

    let bad_names = [
        "truncated.png",
        "bad_crc.png",
        "not_an_image.png",
        "bomb_60000x60000.png",
        "tiny_12x9.png",
        "zero_bytes.png",
        "dangling_link.png",
        "locked.png",
    ];
    let mut list: Vec<String> = vec![d.join("formats").display().to_string()];
    list.extend(bad_names.iter().map(|n| bad.join(n).display().to_string()));
    list.push(d.join("no_images").display().to_string());
    std::fs::write(d.join("list.txt"), list.join("\n") + "\n").unwrap();

    let out_path = d.join("out.jsonl");
    let out = img2fen()
        .arg("--files-from")
        .arg(d.join("list.txt"))
        .args(["--format", "json", "-j", "2", "--output"])
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let records: Vec<serde_json::Value> =
        std::fs::read_to_string(&out_path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let by_name: BTreeMap<String, &serde_json::Value> =
        records.iter().map(|r| (r["file"].as_str().unwrap().to_string(), r)).collect();
    assert_eq!(by_name.len(), records.len(), "one record per input");

    let want = expected();
    let formats: Vec<&String> = want.keys().filter(|k| k.starts_with("formats/")).collect();
    assert_eq!(formats.len(), 10);
    for f in formats {
        let r = by_name[&d.join(f).display().to_string()];
        assert!(r["error"].is_null(), "{f}: {r}");
        assert_eq!(r["boards"][0]["placement"].as_str().unwrap(), want[f], "{f}");
    }
    let error_of = |name: &str| -> String {
        let key = bad.join(name).display().to_string();
        let r = by_name.get(&key).unwrap_or_else(|| panic!("no record for {key}"));
        let e = r["error"].as_str().map(str::to_string).unwrap_or_default();
        // The same words, naming the file, on stderr.
        if !e.is_empty() {
            assert!(stderr.lines().any(|l| l == format!("img2fen: {key}: {e}")), "{key}: {e}\n{stderr}");
        }
        e
    };
    assert!(error_of("truncated.png").starts_with("corrupt image"));
    assert!(error_of("bad_crc.png").starts_with("corrupt image"));
    assert_eq!(error_of("not_an_image.png"), "not an image (unrecognised format)");
    assert!(error_of("bomb_60000x60000.png").starts_with("image too large: 60000x60000 pixels"));
    assert!(error_of("tiny_12x9.png").starts_with("image too small: 12x9 pixels"));
    assert_eq!(error_of("zero_bytes.png"), "empty file");
    assert!(error_of("dangling_link.png").starts_with("cannot read"));
    if locked_readable {
        assert_eq!(error_of("locked.png"), "");
    } else {
        assert!(error_of("locked.png").starts_with("cannot read"));
    }
    let no_images = by_name[&d.join("no_images").display().to_string()];
    assert_eq!(no_images["error"], "no images in this folder");
    let failed = records.iter().filter(|r| !r["error"].is_null()).count();
    assert_eq!(failed, if locked_readable { 8 } else { 9 });
    let summary = stderr.lines().last().unwrap();
    assert!(summary.starts_with(&format!("img2fen: {} inputs in ", records.len())), "{summary}");
    assert!(summary.ends_with(&format!("{failed} failed")), "{summary}");
}

/// Runs img2fen over `dir` into `out`, killing it once `kill_after` records are written.
fn run_into(dir: &Path, out: &Path, format: &str, resume: bool, kill_after: Option<usize>) -> String {
    let mut cmd = img2fen();
    cmd.arg(dir).args(["--format", format, "-j", "2", "--output"]).arg(out);
    if resume {
        cmd.arg("--resume");
    }
    let mut child = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    if let Some(n) = kill_after {
        let start = Instant::now();
        loop {
            let lines = std::fs::read_to_string(out).map(|s| s.lines().count()).unwrap_or(0);
            if lines >= n || start.elapsed() > Duration::from_secs(60) || child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let _ = child.kill();
    }
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn a_killed_run_resumed_ends_with_the_same_output_file() {
    let d = temp("resume");
    let pics = d.join("pictures");
    std::fs::create_dir_all(&pics).unwrap();
    // 30 inputs: the small pictures several times over, and two that fail.
    let sources = [
        "formats/rgb.png",
        "formats/progressive.jpg",
        "formats/lossy.webp",
        "green_arrows.jpg",
        "small_board_article.png",
    ];
    for i in 0..28 {
        std::fs::copy(
            testdata(sources[i % sources.len()]),
            pics.join(format!("{i:02}_{}", sources[i % sources.len()].replace('/', "_"))),
        )
        .unwrap();
    }
    std::fs::copy(testdata("bad/truncated.png"), pics.join("13_truncated.png")).unwrap();
    std::fs::copy(testdata("bad/tiny_12x9.png"), pics.join("27_tiny.png")).unwrap();
    for format in ["csv", "json", "fen"] {
        let whole = d.join(format!("whole.{format}"));
        run_into(&pics, &whole, format, false, None);
        let expected = std::fs::read_to_string(&whole).unwrap();
        assert_eq!(expected.lines().filter(|l| l.contains("13_truncated")).count(), usize::from(format != "fen"));

        let part = d.join(format!("part.{format}"));
        run_into(&pics, &part, format, false, Some(8));
        let before = std::fs::read_to_string(&part).unwrap();
        assert!(before.lines().count() < expected.lines().count(), "{format}: the run was not stopped midway");
        // As if the machine had died in the middle of a line.
        std::fs::write(&part, format!("{before}{}", &expected.lines().nth(20).unwrap()[..15])).unwrap();
        let stderr = run_into(&pics, &part, format, true, None);
        assert_eq!(std::fs::read_to_string(&part).unwrap(), expected, "{format}\n{stderr}");
        assert!(stderr.contains("skipped: already in the output file"), "{stderr}");
    }
}

#[test]
fn review_writes_a_picture_per_board_and_one_page() {
    let d = temp("review");
    let out = img2fen()
        .arg(testdata("black_side_blue.png"))
        .arg(testdata("bad/truncated.png"))
        .args(["--min-confidence", "0.999", "--review"])
        .arg(d.join("review"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let pic = image::open(d.join("review/00001_black_side_blue_1.png")).unwrap().to_rgb8();
    assert_eq!(pic.dimensions(), (12 + 384 + 36 + 384 + 12, 12 + 384 + 20 + 6));
    // The redrawn board's top-left square as displayed (h1 from Black's side) holds a white
    // rook: a white letter outlined in dark ink on a light square.
    let square: Vec<[u8; 3]> = (0..48)
        .flat_map(|y| (0..48).map(move |x| (x, y)))
        .map(|(x, y)| pic.get_pixel(12 + 384 + 36 + x, 12 + y).0)
        .collect();
    assert!(square.contains(&[255, 255, 255]) && square.contains(&[25, 25, 25]) && square.contains(&[240, 217, 181]));
    let page = std::fs::read_to_string(d.join("review/index.html")).unwrap();
    let fen = "r1bqkb1r/pp1ppppp/2n2n2/2p5/4P3/2N2N2/PPPP1PPP/R1BQKB1R w - - 0 1";
    assert!(page.contains(&format!("<code>{fen}</code>")), "{page}");
    assert!(page.contains(&format!("https://lichess.org/editor/{}", fen.replace(' ', "_"))));
    assert!(page.contains("<img src=\"00001_black_side_blue_1.png\""));
    assert!(page.contains("corrupt image"));
    // With a threshold of 0.999 some squares are uncertain: outlined in red on the page.
    assert!(page.contains("class=\"board unsure\""));
    assert!(pic.pixels().any(|p| p.0 == [220, 20, 20]));
}
