//! The options every reading command shares: which inference engine, which models, the second
//! look; and the version line that names the models.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use img2fen::classify::{
    COORDS_MODEL_VERSION, GLYPH_MODEL_VERSION, KIND_MODEL_VERSION, OCCUPANCY_MODEL_VERSION, PHYSICAL_MODEL_VERSION,
    PIECE_MODEL_VERSION, SMALL_MODEL_VERSION,
};
use img2fen::{Backend, ClassifierOptions, LearnedSet};

/// `--version`: the tool's version and the embedded models' versions.
pub fn version() -> &'static str {
    let model = |v: Option<&str>| v.unwrap_or("none embedded").to_string();
    let line = format!(
        "{} (piece model {}, small-board model {}, coordinate model {}, physical-board model {}, occupancy model {}, kind model {}, glyph model {})",
        env!("CARGO_PKG_VERSION"),
        model(PIECE_MODEL_VERSION),
        model(SMALL_MODEL_VERSION),
        model(COORDS_MODEL_VERSION),
        model(PHYSICAL_MODEL_VERSION),
        model(OCCUPANCY_MODEL_VERSION),
        model(KIND_MODEL_VERSION),
        model(GLYPH_MODEL_VERSION)
    );
    Box::leak(line.into_boxed_str())
}

/// `--backend`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// ONNX Runtime when its library is found, otherwise tract
    Auto,
    /// tract, the pure-Rust engine built into img2fen
    Tract,
    /// ONNX Runtime, loaded from libonnxruntime
    Onnxruntime,
}

/// Inference options.
#[derive(Args)]
#[command(next_help_heading = "Inference")]
pub struct EngineArgs {
    /// Inference engine: auto = ONNX Runtime when its library is found, else tract
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub backend: BackendArg,
    /// Path to libonnxruntime (else $IMG2FEN_ORT_LIB, $ORT_DYLIB_PATH, or next to the executable)
    #[arg(long, value_name = "PATH")]
    pub ort_lib: Option<PathBuf>,
    /// Piece model (ONNX) to use instead of the built-in one
    #[arg(long, value_name = "PATH")]
    pub model: Option<PathBuf>,
    /// Piece model (ONNX) for boards whose squares are under 16 px, instead of the built-in one
    /// (with --model and without this, --model reads every board)
    #[arg(long, value_name = "PATH")]
    pub small_model: Option<PathBuf>,
    /// Coordinate model (ONNX) to use instead of the built-in one
    #[arg(long, value_name = "PATH")]
    pub coords_model: Option<PathBuf>,
    /// Physical-board model (ONNX) to use instead of the built-in one
    #[arg(long, value_name = "PATH")]
    pub physical_model: Option<PathBuf>,
    /// Occupancy model (ONNX) of physical boards: the physical model skips the squares it finds
    /// surely empty (with --physical-model and without this, --physical-model reads every square)
    #[arg(long, value_name = "PATH")]
    pub occupancy_model: Option<PathBuf>,
    /// Kind classifier (ONNX, flat or physical board) to use instead of the built-in one
    #[arg(long, value_name = "PATH")]
    pub kind_model: Option<PathBuf>,
    /// Glyph classifier (ONNX, the characters of text boards) to use instead of the built-in one
    #[arg(long, value_name = "PATH")]
    pub glyph_model: Option<PathBuf>,
    /// A learned piece set (img2fen learn-set): read with its head, and its kind of board
    #[arg(long, value_name = "SET")]
    pub set: Option<PathBuf>,
    /// Classify each cell once: no second look at the unsure ones from slightly moved boards
    #[arg(long)]
    pub no_second_look: bool,
    /// Decode a large JPEG whole from the start: by default it is read at 1/2, 1/4 or 1/8 of its
    /// size first (at least 720 pixels on its shorter side), and whole only when a board found is
    /// small or none is
    #[arg(long)]
    pub full_resolution: bool,
}

impl EngineArgs {
    /// The classifier these options ask for (it reads the set file, if any).
    pub fn classifier(&self) -> Result<ClassifierOptions, img2fen::Error> {
        Ok(ClassifierOptions {
            backend: match self.backend {
                BackendArg::Auto => Backend::Auto,
                BackendArg::Tract => Backend::Tract,
                BackendArg::Onnxruntime => Backend::Onnxruntime,
            },
            ort_lib: self.ort_lib.clone(),
            model: self.model.clone(),
            small_model: self.small_model.clone(),
            label_model: self.coords_model.clone(),
            physical_model: self.physical_model.clone(),
            occupancy_model: self.occupancy_model.clone(),
            kind_model: self.kind_model.clone(),
            glyph_model: self.glyph_model.clone(),
            threads: 1,
            set: self.set.as_deref().map(LearnedSet::load).transpose()?,
        })
    }
}
