//! ONNX Runtime and tract must give the same classes. `ort` holds one backend per process, so
//! each runs in its own `img2fen` process. Runs when IMG2FEN_ORT_LIB names a libonnxruntime
//! (scripts/test.sh fetches one from PyPI); without it there is nothing to compare against.

use std::path::Path;
use std::process::Command;

fn read(backend: &str, lib: &str, files: &[String]) -> Vec<serde_json::Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_img2fen"))
        .args(["--backend", backend, "--ort-lib", lib, "--format", "json"])
        .args(files)
        .output()
        .unwrap();
    assert!(out.status.success(), "{backend}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn onnxruntime_and_tract_agree() {
    let Ok(lib) = std::env::var("IMG2FEN_ORT_LIB") else {
        eprintln!("IMG2FEN_ORT_LIB not set: no ONNX Runtime to compare with tract");
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    // The flat pictures and the rendered photos of physical sets.
    let mut files: Vec<String> = [dir.clone(), dir.join("physical")]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap().flatten())
        .map(|e| e.path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("png" | "jpg")))
        .map(|p| p.display().to_string())
        .collect();
    files.sort();
    let a = read("tract", &lib, &files);
    let b = read("onnxruntime", &lib, &files);
    assert_eq!(a.len(), files.len());
    for (x, y) in a.iter().zip(&b) {
        let (sx, sy) = (&x["boards"][0]["squares"], &y["boards"][0]["squares"]);
        for (p, q) in sx.as_array().unwrap().iter().zip(sy.as_array().unwrap()) {
            assert_eq!(p["piece"], q["piece"], "{} {}", x["file"], p["square"]);
            let d = (p["p"].as_f64().unwrap() - q["p"].as_f64().unwrap()).abs();
            assert!(d < 1e-3, "{} {}: p differs by {d}", x["file"], p["square"]);
        }
        assert_eq!(x["boards"][0]["fen"], y["boards"][0]["fen"]);
    }
}
