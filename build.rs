// Embeds models/piece_classifier.onnx (and models/coords_classifier.onnx) when they exist, so
// `img2fen` runs from any folder. A checkout without the piece model (retraining from scratch)
// still builds; it then needs `--model PATH`. Without the coordinate model, orientation comes
// from the pieces alone; without the physical-board and kind models
// (models/physical_classifier.onnx, models/kind_classifier.onnx), boards are read as flat ones
// unless --kind physical says otherwise; without the occupancy model
// (models/physical_occupancy.onnx), the physical-board model reads every tall cell; without the small-board model
// (models/piece_classifier_small.onnx), the piece model reads boards of every size; without the
// glyph classifier (models/glyph_classifier.onnx), text boards are not read.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(img2fen_embedded_model)");
    println!("cargo::rustc-check-cfg=cfg(img2fen_embedded_label_model)");
    println!("cargo::rustc-check-cfg=cfg(img2fen_embedded_physical_model)");
    println!("cargo::rustc-check-cfg=cfg(img2fen_embedded_occupancy_model)");
    println!("cargo::rustc-check-cfg=cfg(img2fen_embedded_kind_model)");
    println!("cargo::rustc-check-cfg=cfg(img2fen_embedded_small_model)");
    println!("cargo::rustc-check-cfg=cfg(img2fen_embedded_glyph_model)");
    // Set by cargo fuzz, which builds the CLI's output module without clap.
    println!("cargo::rustc-check-cfg=cfg(fuzzing)");
    for (file, cfg) in [
        ("models/piece_classifier.onnx", "img2fen_embedded_model"),
        ("models/coords_classifier.onnx", "img2fen_embedded_label_model"),
        ("models/physical_classifier.onnx", "img2fen_embedded_physical_model"),
        ("models/physical_occupancy.onnx", "img2fen_embedded_occupancy_model"),
        ("models/kind_classifier.onnx", "img2fen_embedded_kind_model"),
        ("models/piece_classifier_small.onnx", "img2fen_embedded_small_model"),
        ("models/glyph_classifier.onnx", "img2fen_embedded_glyph_model"),
    ] {
        println!("cargo::rerun-if-changed={file}");
        if std::path::Path::new(file).exists() {
            println!("cargo::rustc-cfg={cfg}");
        }
    }
}
