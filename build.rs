// Embeds models/piece_classifier.onnx when it exists, so `img2fen` runs from any folder.
// A checkout without it (retraining from scratch) still builds; it then needs `--model PATH`.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(img2fen_embedded_model)");
    println!("cargo::rerun-if-changed=models/piece_classifier.onnx");
    if std::path::Path::new("models/piece_classifier.onnx").exists() {
        println!("cargo::rustc-cfg=img2fen_embedded_model");
    }
}
