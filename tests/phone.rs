//! The pictures phones write, HEIC and AVIF (testdata/phone/, made by
//! `python3 -m img2fen_training.render.testdata`): the green-arrows screenshot as it is and stored
//! sideways with its turn to upright in the container. Their decoders are native libraries
//! loaded at run time (`scripts/fetch_codecs.sh`; `scripts/test.sh` fetches them and sets
//! IMG2FEN_CODECS): with IMG2FEN_CODECS set, each must read the position its JPEG reads, upright;
//! without, each must read so or say which format it is and how to get its decoder.

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

const PLACEMENT: &str = "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R";

#[test]
fn heic_and_avif_photos_read_as_their_jpeg_does_and_upright() {
    let required = std::env::var_os("IMG2FEN_CODECS").is_some_and(|v| !v.is_empty());
    let jpeg = img2fen::load_image(&root().join("testdata/green_arrows.jpg")).unwrap();
    for name in ["green_arrows.heic", "green_arrows_turned.heic", "green_arrows.avif", "green_arrows_turned.avif"] {
        let path = root().join("testdata/phone").join(name);
        let kind = if name.ends_with("heic") { "HEIC" } else { "AVIF" };
        match img2fen::load_image(&path) {
            Ok(img) => {
                // Upright: the stored-sideways files come out as wide as the JPEG.
                assert_eq!((img.width(), img.height()), (jpeg.width(), jpeg.height()), "{name}");
                let out = Command::new(env!("CARGO_BIN_EXE_img2fen"))
                    .current_dir(root())
                    .args(["--backend", "tract", "--format", "json"])
                    .arg(&path)
                    .output()
                    .unwrap();
                assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
                let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
                assert_eq!(r["boards"][0]["placement"], PLACEMENT, "{name}");
            }
            Err(e) => {
                let e = e.to_string();
                assert!(!required, "{name}: IMG2FEN_CODECS is set, yet: {e}");
                assert!(e.contains(&format!("picture, and no {kind} decoder was found")), "{e}");
                assert!(e.contains("scripts/fetch_codecs.sh"), "{e}");
            }
        }
    }
}

#[test]
fn a_folder_of_phone_photos_gives_a_record_for_each() {
    // Never skipped in silence, whatever the codecs: one record per file.
    let out = Command::new(env!("CARGO_BIN_EXE_img2fen"))
        .current_dir(root())
        .args(["--backend", "tract", "--format", "json", "--progress", "never", "testdata/phone"])
        .output()
        .unwrap();
    let records: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut files: Vec<&str> = records.iter().map(|r| r["file"].as_str().unwrap()).collect();
    files.sort();
    assert_eq!(
        files,
        [
            "testdata/phone/green_arrows.avif",
            "testdata/phone/green_arrows.heic",
            "testdata/phone/green_arrows_turned.avif",
            "testdata/phone/green_arrows_turned.heic"
        ]
    );
    for r in &records {
        let read = r["boards"].get(0).is_some_and(|b| b["placement"] == PLACEMENT);
        let named = r["error"].as_str().is_some_and(|e| e.contains("decoder was found"));
        assert!(read || named, "{r}");
    }
}
