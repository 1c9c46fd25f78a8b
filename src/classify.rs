//! Step 3: classify the 64 cells into 13 classes with the ONNX piece model, run through `ort`.
//!
//! Two interchangeable backends sit behind `ort`'s API: `tract` (pure Rust, compiled in, always
//! available) and ONNX Runtime, loaded at run time from a `libonnxruntime` shared library.
//! `ort` holds one global API table, so one process uses one backend.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use ndarray::{Array2, Array4, Axis, Ix2};
use ort::session::builder::GraphOptimizationLevel;
use ort::session::Session;
use ort::value::TensorRef;
use shakmaty::{Color, Piece, Role};

use crate::cells::{CELL_PX, KIND_PX, TALL_H, TALL_W};
use crate::learn::{LearnedSet, SetModel};
use crate::orient::{LabelProbs, LABEL_PX};
use crate::Error;

/// The model's 13 output classes, in output order: empty, then White's and Black's pieces.
pub const CLASSES: [Option<Piece>; 13] = [
    None,
    Some(Piece { color: Color::White, role: Role::Pawn }),
    Some(Piece { color: Color::White, role: Role::Knight }),
    Some(Piece { color: Color::White, role: Role::Bishop }),
    Some(Piece { color: Color::White, role: Role::Rook }),
    Some(Piece { color: Color::White, role: Role::Queen }),
    Some(Piece { color: Color::White, role: Role::King }),
    Some(Piece { color: Color::Black, role: Role::Pawn }),
    Some(Piece { color: Color::Black, role: Role::Knight }),
    Some(Piece { color: Color::Black, role: Role::Bishop }),
    Some(Piece { color: Color::Black, role: Role::Rook }),
    Some(Piece { color: Color::Black, role: Role::Queen }),
    Some(Piece { color: Color::Black, role: Role::King }),
];

/// The class labels as FEN characters, `.` for an empty square.
pub const CLASS_CHARS: [char; 13] = ['.', 'P', 'N', 'B', 'R', 'Q', 'K', 'p', 'n', 'b', 'r', 'q', 'k'];

/// Index of a piece (or empty square) in [`CLASSES`].
pub fn class_index(p: Option<Piece>) -> usize {
    CLASSES.iter().position(|&c| c == p).expect("every piece has a class")
}

/// The piece model shipped with img2fen, embedded at build time (absent only in a checkout whose
/// `models/piece_classifier.onnx` was removed to retrain from scratch).
#[cfg(img2fen_embedded_model)]
pub const EMBEDDED_MODEL: Option<&[u8]> = Some(include_bytes!("../models/piece_classifier.onnx"));
#[cfg(not(img2fen_embedded_model))]
pub const EMBEDDED_MODEL: Option<&[u8]> = None;

/// The coordinate model ([`crate::orient`]), embedded the same way from
/// `models/coords_classifier.onnx`; without it orientation comes from the pieces alone.
#[cfg(img2fen_embedded_label_model)]
pub const EMBEDDED_LABEL_MODEL: Option<&[u8]> = Some(include_bytes!("../models/coords_classifier.onnx"));
#[cfg(not(img2fen_embedded_label_model))]
pub const EMBEDDED_LABEL_MODEL: Option<&[u8]> = None;

/// The physical-board model ([`crate::cells::tall_cells`]), embedded the same way from
/// `models/physical_classifier.onnx`; without it every board is read as a flat one.
#[cfg(img2fen_embedded_physical_model)]
pub const EMBEDDED_PHYSICAL_MODEL: Option<&[u8]> = Some(include_bytes!("../models/physical_classifier.onnx"));
/// No physical-board model is embedded in this build.
#[cfg(not(img2fen_embedded_physical_model))]
pub const EMBEDDED_PHYSICAL_MODEL: Option<&[u8]> = None;

/// The occupancy model of physical boards, embedded the same way from
/// `models/physical_occupancy.onnx`: a small network over the same tall cells whose surely
/// empty squares ([`SURE_EMPTY`]) the physical-board model, larger, does not read again.
#[cfg(img2fen_embedded_occupancy_model)]
pub const EMBEDDED_OCCUPANCY_MODEL: Option<&[u8]> = Some(include_bytes!("../models/physical_occupancy.onnx"));
/// No occupancy model is embedded in this build.
#[cfg(not(img2fen_embedded_occupancy_model))]
pub const EMBEDDED_OCCUPANCY_MODEL: Option<&[u8]> = None;

/// A tall cell that the occupancy model finds empty with at least this probability keeps that
/// reading, and the physical-board model reads only the others (about 40% of a board's cells).
/// Measured with the physical model v0.3 as the occupancy model: at 0.9 and above it passed no
/// occupied square as empty among the 5,612 occupied cells of the held-out renders and of
/// realdata-physical at true corners; 0.95 leaves a margin for sets and cameras not seen.
pub const SURE_EMPTY: f32 = 0.95;

/// A tall cell the physical-board model reads at under this top probability, after the
/// occupancy model, is read again mirrored left to right (the model trained on mirrored cells
/// too), and the two readings averaged. Measured with v0.4 at true corners: 20% of the cells of
/// realdata-physical and 15% of the held-out renders are read again, which takes their squares
/// from 87.13% to 87.68% and from 93.57% to 93.90%
/// (docs/experiments/2026-12-07-physical-fixed-batch-cascade.md).
pub const MIRROR_BELOW: f32 = 0.8;

/// The kind classifier (flat or physical board, [`crate::cells::kind_view`]), embedded the same
/// way from `models/kind_classifier.onnx`; without it `--kind auto` reads every board as flat.
#[cfg(img2fen_embedded_kind_model)]
pub const EMBEDDED_KIND_MODEL: Option<&[u8]> = Some(include_bytes!("../models/kind_classifier.onnx"));
/// No kind classifier is embedded in this build.
#[cfg(not(img2fen_embedded_kind_model))]
pub const EMBEDDED_KIND_MODEL: Option<&[u8]> = None;

/// The glyph classifier of text boards ([`crate::textboard`]), embedded the same way from
/// `models/glyph_classifier.onnx`; without it text boards are not read.
#[cfg(img2fen_embedded_glyph_model)]
pub const EMBEDDED_GLYPH_MODEL: Option<&[u8]> = Some(include_bytes!("../models/glyph_classifier.onnx"));
/// No glyph classifier is embedded in this build.
#[cfg(not(img2fen_embedded_glyph_model))]
pub const EMBEDDED_GLYPH_MODEL: Option<&[u8]> = None;

/// The piece model for boards shown small ([`SMALL_SQUARE_PX`]), embedded the same way from
/// `models/piece_classifier_small.onnx`; without it the piece model reads every board.
#[cfg(img2fen_embedded_small_model)]
pub const EMBEDDED_SMALL_MODEL: Option<&[u8]> = Some(include_bytes!("../models/piece_classifier_small.onnx"));
/// No small-board model is embedded in this build.
#[cfg(not(img2fen_embedded_small_model))]
pub const EMBEDDED_SMALL_MODEL: Option<&[u8]> = None;

/// Boards whose squares are narrower than this, in the picture's pixels, are read by the
/// small-board model when there is one: the piece model saw squares of about 10 px and more,
/// the small-board model 8-16 px ones as well (15% of its boards). On the scale sweep, 14 left
/// the diagrams at 14.7 px squares to the piece model, which misread them; 18 changed which
/// boards read exactly at their own size, for no gain.
pub const SMALL_SQUARE_PX: f64 = 16.0;

/// The version of the embedded piece model, as its model card (`models/piece_classifier.md`)
/// names it; `None` when this build embeds none.
pub const PIECE_MODEL_VERSION: Option<&str> = if EMBEDDED_MODEL.is_some() { Some("v0.4") } else { None };
/// The version of the embedded small-board model (`models/piece_classifier.md`); `None` when this
/// build embeds none.
pub const SMALL_MODEL_VERSION: Option<&str> = if EMBEDDED_SMALL_MODEL.is_some() { Some("v0.2-small") } else { None };
/// The version of the embedded coordinate model (`models/coords_classifier.md`); `None` when this
/// build embeds none.
pub const COORDS_MODEL_VERSION: Option<&str> = if EMBEDDED_LABEL_MODEL.is_some() { Some("v0.2") } else { None };
/// The version of the embedded physical-board model (`models/physical_classifier.md`); `None`
/// when this build embeds none.
pub const PHYSICAL_MODEL_VERSION: Option<&str> = if EMBEDDED_PHYSICAL_MODEL.is_some() { Some("v0.4") } else { None };
/// The version of the embedded occupancy model (`models/physical_classifier.md`: the physical
/// model v0.3); `None` when this build embeds none.
pub const OCCUPANCY_MODEL_VERSION: Option<&str> = if EMBEDDED_OCCUPANCY_MODEL.is_some() { Some("v0.3") } else { None };
/// The version of the embedded kind classifier (`models/physical_classifier.md`); `None` when
/// this build embeds none.
pub const KIND_MODEL_VERSION: Option<&str> = if EMBEDDED_KIND_MODEL.is_some() { Some("v0.1") } else { None };
/// The version of the embedded glyph classifier (`models/glyph_classifier.md`); `None` when this
/// build embeds none.
pub const GLYPH_MODEL_VERSION: Option<&str> = if EMBEDDED_GLYPH_MODEL.is_some() { Some("v0.1") } else { None };

/// Which inference engine runs the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// ONNX Runtime when its library is found, otherwise tract.
    Auto,
    /// tract, the pure-Rust engine built into img2fen.
    Tract,
    /// ONNX Runtime, loaded from `libonnxruntime`.
    Onnxruntime,
}

impl Backend {
    /// The backend's name, as `--backend` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Tract => "tract",
            Backend::Onnxruntime => "onnxruntime",
        }
    }
}

/// Options for building a [`Classifier`].
#[derive(Debug, Clone)]
pub struct ClassifierOptions {
    /// The inference engine.
    pub backend: Backend,
    /// Path to `libonnxruntime`; otherwise `IMG2FEN_ORT_LIB`, `ORT_DYLIB_PATH`, then the
    /// executable's folder (and its `onnxruntime/` subfolder) are searched.
    pub ort_lib: Option<PathBuf>,
    /// Model file; the embedded model when `None`.
    pub model: Option<PathBuf>,
    /// Model file for boards whose squares are under [`SMALL_SQUARE_PX`]; when `None`, the
    /// embedded one, unless `model` names a file (then that model reads every board).
    pub small_model: Option<PathBuf>,
    /// Coordinate model file; the embedded one when `None`.
    pub label_model: Option<PathBuf>,
    /// Physical-board model file; the embedded one when `None`.
    pub physical_model: Option<PathBuf>,
    /// Occupancy model file for physical boards ([`SURE_EMPTY`]); when `None`, the embedded one,
    /// unless `physical_model` names a file (then that model reads every tall cell).
    pub occupancy_model: Option<PathBuf>,
    /// Kind classifier file; the embedded one when `None`.
    pub kind_model: Option<PathBuf>,
    /// Glyph classifier file (text boards); the embedded one when `None`.
    pub glyph_model: Option<PathBuf>,
    /// Threads for one inference (ONNX Runtime only).
    pub threads: usize,
    /// A learned piece set ([`crate::learn`]): its head replaces the model's own for the model
    /// it was learned with, which must be the one loaded.
    pub set: Option<LearnedSet>,
}

impl Default for ClassifierOptions {
    fn default() -> Self {
        ClassifierOptions {
            backend: Backend::Auto,
            ort_lib: None,
            model: None,
            small_model: None,
            label_model: None,
            physical_model: None,
            occupancy_model: None,
            kind_model: None,
            glyph_model: None,
            threads: 1,
            set: None,
        }
    }
}

/// Probabilities of the 13 classes for one cell, summing to 1.
pub type ClassProbs = [f32; 13];

/// The most probable class of `p` (the last of equals), with its probability.
pub fn most_probable<const K: usize>(p: &[f32; K]) -> (usize, f32) {
    p.iter().copied().enumerate().max_by(|a, b| a.1.total_cmp(&b.1)).expect("a class")
}

/// One ONNX model loaded once into its inference engine's `Session`, shareable between threads.
struct Model {
    session: Mutex<Session>,
    /// [`fingerprint`] of its bytes: what a learned set is matched against.
    fingerprint: u64,
    /// The batch size the model was exported with, when it is fixed rather than `n`: tract
    /// optimises a graph only for the shapes it knows when loading it, and its fast depthwise
    /// convolution needs every dimension known (on EfficientNet-Lite0 three times faster), so
    /// such networks are exported with a fixed batch and fed in chunks of it.
    batch: Option<usize>,
}

/// What a model gives for a batch: its logits and, when it has that output, the embedding its
/// final linear layer reads (`embedding`, written by the training scripts' `export_onnx`).
pub struct ModelOutputs {
    /// `[N, classes]`.
    pub logits: Array2<f32>,
    /// `[N, D]`, or `None` for a model without the output.
    pub embedding: Option<Array2<f32>>,
}

/// FNV-1a, 64 bits, of a model file's bytes: names the exact model a learned set was fitted on.
pub fn fingerprint(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

impl Model {
    fn load(bytes: &[u8], backend: Backend, threads: usize) -> Result<Self, Error> {
        let env = environment()?;
        let mut builder = Session::builder(env)
            .map_err(load_err)?
            .with_optimization_level(GraphOptimizationLevel::Level3)
            .map_err(|e| load_err(e.into()))?;
        if backend == Backend::Onnxruntime {
            builder = builder.with_intra_threads(threads.max(1)).map_err(|e| load_err(e.into()))?;
        }
        let session = builder.commit_from_memory(bytes).map_err(load_err)?;
        let batch = session
            .inputs()
            .first()
            .and_then(|input| input.dtype().tensor_shape())
            .and_then(|shape| shape.first().copied())
            .filter(|&n| n > 0)
            .map(|n| n as usize);
        Ok(Model { session: Mutex::new(session), fingerprint: fingerprint(bytes), batch })
    }

    /// Runs the model on a `[N, 1, height, width]` batch, in chunks of the model's own batch size
    /// when it has a fixed one (the last chunk padded with blank inputs whose outputs are dropped).
    fn run(&self, input: &Array4<f32>) -> Result<ModelOutputs, Error> {
        let n = input.shape()[0];
        let Some(batch) = self.batch.filter(|&b| b != n) else { return self.run_exact(input) };
        let (h, w) = (input.shape()[2], input.shape()[3]);
        let (mut logits, mut embedding) = (Vec::new(), Vec::new());
        // An empty batch still runs once, so that the outputs keep their widths.
        for start in (0..n.max(1)).step_by(batch) {
            let mut chunk = Array4::<f32>::zeros((batch, 1, h, w));
            let end = (start + batch).min(n);
            let rows = input.slice(ndarray::s![start..end, .., .., ..]);
            chunk.slice_mut(ndarray::s![..end - start, .., .., ..]).assign(&rows);
            let out = self.run_exact(&chunk)?;
            logits.push(out.logits.slice(ndarray::s![..end - start, ..]).to_owned());
            embedding.push(out.embedding.map(|e| e.slice(ndarray::s![..end - start, ..]).to_owned()));
        }
        let stack = |parts: &[Array2<f32>]| -> Result<Array2<f32>, Error> {
            let views: Vec<_> = parts.iter().map(|p| p.view()).collect();
            ndarray::concatenate(Axis(0), &views).map_err(|e| Error::ModelRun(e.to_string()))
        };
        let embedding = embedding.into_iter().collect::<Option<Vec<_>>>().map(|parts| stack(&parts)).transpose()?;
        Ok(ModelOutputs { logits: stack(&logits)?, embedding })
    }

    /// Runs the model on exactly the batch it is given.
    fn run_exact(&self, input: &Array4<f32>) -> Result<ModelOutputs, Error> {
        let tensor = TensorRef::from_array_view(input.view()).map_err(ort_err)?;
        let mut session = self.session.lock().unwrap_or_else(|p| p.into_inner());
        let outputs = session.run(ort::inputs![tensor]).map_err(ort_err)?;
        let matrix = |v: &ort::value::DynValue| -> Result<Array2<f32>, Error> {
            let a = v.try_extract_array::<f32>().map_err(ort_err)?;
            let shape = a.shape().to_vec();
            a.into_dimensionality::<Ix2>()
                .map(|a| a.to_owned())
                .map_err(|_| Error::ModelRun(format!("model output has shape {shape:?}, expected [N, K]")))
        };
        let logits = matrix(&outputs[0])?;
        let embedding = outputs.get("embedding").map(matrix).transpose()?;
        if logits.nrows() != input.shape()[0] || embedding.as_ref().is_some_and(|e| e.nrows() != logits.nrows()) {
            return Err(Error::ModelRun("model output has another batch size than its input".into()));
        }
        Ok(ModelOutputs { logits, embedding })
    }

    /// Runs the model on a `[N, 1, height, width]` batch; one softmax row of `K` classes per item,
    /// through `set`'s head when one is given.
    fn probabilities<const K: usize>(
        &self,
        input: &Array4<f32>,
        set: Option<&LearnedSet>,
    ) -> Result<Vec<[f32; K]>, Error> {
        let out = self.run(input)?;
        if out.logits.ncols() != K {
            return Err(Error::ModelRun(format!("model gives {} classes, expected {K}", out.logits.ncols())));
        }
        let logits = match set {
            Some(set) => set.logits(&out)?,
            None => out.logits,
        };
        Ok(logits.outer_iter().map(|row| softmax(row.iter().copied())).collect())
    }
}

fn read_model(
    path: &Option<PathBuf>,
    embedded: Option<&'static [u8]>,
    what: &str,
) -> Result<Option<std::borrow::Cow<'static, [u8]>>, Error> {
    Ok(match path {
        Some(p) => {
            Some(std::fs::read(p).map_err(|e| Error::model_load(Some(p), format!("cannot read {what}: {e}")))?.into())
        }
        None => embedded.map(Into::into),
    })
}

/// The models: the piece classifier and, when there are, the coordinate reader and the
/// physical-board classifier.
pub struct Classifier {
    pieces: Model,
    /// The small-board model's bytes, loaded into `small` when a small board is first read.
    small_bytes: Option<std::borrow::Cow<'static, [u8]>>,
    small: OnceLock<Model>,
    threads: usize,
    labels: Option<Model>,
    physical: Option<Model>,
    occupancy: Option<Model>,
    kind: Option<Model>,
    glyphs: Option<Model>,
    set: Option<LearnedSet>,
    backend: Backend,
}

static API: OnceLock<Backend> = OnceLock::new();

/// The process's one `ort` environment (backends allow only one), shared by every classifier.
fn environment() -> Result<&'static ort::environment::Environment, Error> {
    static ENV: OnceLock<Result<ort::environment::Environment, String>> = OnceLock::new();
    ENV.get_or_init(|| ort::init().with_name("img2fen").build().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| Error::model_load(None, format!("inference: {e}")))
}

impl Classifier {
    /// Loads the models (the embedded ones unless `opts` names files) on the backend `opts`
    /// asks for.
    pub fn new(opts: &ClassifierOptions) -> Result<Self, Error> {
        let backend = init_api(opts.backend, opts.ort_lib.as_deref())?;
        let pieces = read_model(&opts.model, EMBEDDED_MODEL, "model")?
            .ok_or_else(|| Error::model_load(None, "this build has no embedded model: pass --model PATH"))?;
        let pieces = Model::load(&pieces, backend, opts.threads)?;
        let optional = |path: &Option<PathBuf>, embedded, what| -> Result<Option<Model>, Error> {
            match read_model(path, embedded, what)? {
                Some(bytes) => Ok(Some(Model::load(&bytes, backend, opts.threads)?)),
                None => Ok(None),
            }
        };
        let labels = optional(&opts.label_model, EMBEDDED_LABEL_MODEL, "coordinate model")?;
        let physical = optional(&opts.physical_model, EMBEDDED_PHYSICAL_MODEL, "physical-board model")?;
        // A physical model given as a file reads every cell unless an occupancy model is given too.
        let occupancy_embedded = if opts.physical_model.is_some() { None } else { EMBEDDED_OCCUPANCY_MODEL };
        let occupancy = optional(&opts.occupancy_model, occupancy_embedded, "occupancy model")?;
        let kind = optional(&opts.kind_model, EMBEDDED_KIND_MODEL, "kind model")?;
        let glyphs = optional(&opts.glyph_model, EMBEDDED_GLYPH_MODEL, "glyph model")?;
        // A piece model given as a file reads every board unless a small-board model is given too.
        let small_embedded = if opts.model.is_some() { None } else { EMBEDDED_SMALL_MODEL };
        let small_bytes = read_model(&opts.small_model, small_embedded, "small-board model")?;
        let mut classifier = Classifier {
            pieces,
            small_bytes,
            small: OnceLock::new(),
            threads: opts.threads,
            labels,
            physical,
            occupancy,
            kind,
            glyphs,
            set: None,
            backend,
        };
        if let Some(set) = &opts.set {
            let fingerprint = classifier.model(set.model).map(|m| m.fingerprint);
            set.check_model(fingerprint)?;
            classifier.set = Some(set.clone());
        }
        Ok(classifier)
    }

    fn model(&self, which: SetModel) -> Option<&Model> {
        match which {
            SetModel::Pieces => Some(&self.pieces),
            SetModel::Physical => self.physical.as_ref(),
        }
    }

    /// The learned set in use, if any.
    pub fn set(&self) -> Option<&LearnedSet> {
        self.set.as_ref()
    }

    /// The set's head when it was learned for `which`.
    fn head_for(&self, which: SetModel) -> Option<&LearnedSet> {
        self.set.as_ref().filter(|s| s.model == which)
    }

    /// The [`fingerprint`] of the piece or physical-board model loaded; `None` without one.
    pub fn fingerprint(&self, which: SetModel) -> Option<u64> {
        self.model(which).map(|m| m.fingerprint)
    }

    /// Runs the piece or physical-board model on cells ([`crate::cells::to_tensor`] or
    /// [`crate::cells::tall_cells`]) and gives its own logits and embeddings, whatever set is
    /// in use: what a set is learned from.
    pub fn embed(&self, which: SetModel, cells: &Array4<f32>) -> Result<ModelOutputs, Error> {
        let model = self.model(which).ok_or_else(|| {
            Error::model_load(None, "this build has no physical-board model: pass --physical-model PATH")
        })?;
        model.run(cells)
    }

    /// The backend actually in use (never `Auto`).
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Classifies a `[N, 1, CELL_PX, CELL_PX]` batch of cells with the piece model; one
    /// probability row per cell.
    pub fn classify(&self, cells: &Array4<f32>) -> Result<Vec<ClassProbs>, Error> {
        self.classify_sized(cells, f64::INFINITY)
    }

    /// [`Classifier::classify`] for cells of a board whose squares are `square_px` pixels wide
    /// in its picture: under [`SMALL_SQUARE_PX`] the small-board model reads them, when there is
    /// one and no learned set is in use (a set's head belongs to the piece model).
    pub fn classify_sized(&self, cells: &Array4<f32>, square_px: f64) -> Result<Vec<ClassProbs>, Error> {
        let c = CELL_PX as usize;
        assert_eq!(&cells.shape()[1..], &[1, c, c], "cells must be [N, 1, {c}, {c}]");
        match self.small_model(square_px)? {
            Some(model) => model.probabilities(cells, None),
            None => self.pieces.probabilities(cells, self.head_for(SetModel::Pieces)),
        }
    }

    /// Whether [`Classifier::classify_sized`] reads a board of `square_px` squares with the
    /// small-board model.
    pub fn reads_small(&self, square_px: f64) -> bool {
        square_px < SMALL_SQUARE_PX && self.small_bytes.is_some() && self.head_for(SetModel::Pieces).is_none()
    }

    /// The small-board model for a board of `square_px` squares, loaded on first use.
    fn small_model(&self, square_px: f64) -> Result<Option<&Model>, Error> {
        if !self.reads_small(square_px) {
            return Ok(None);
        }
        if let Some(m) = self.small.get() {
            return Ok(Some(m));
        }
        let bytes = self.small_bytes.as_ref().expect("reads_small checked it");
        let model = Model::load(bytes, self.backend, self.threads)?;
        // Two threads may load it at once; the first one kept serves both.
        let _ = self.small.set(model);
        Ok(self.small.get())
    }

    /// Whether a physical-board model is loaded.
    pub fn reads_physical(&self) -> bool {
        self.physical.is_some()
    }

    /// Classifies a `[N, 1, TALL_H, TALL_W]` batch of tall cells ([`crate::cells::tall_cells`])
    /// with the physical-board model; `None` without one. With an occupancy model and no
    /// learned set (a set's head belongs to the physical model), the cells it finds surely empty
    /// ([`SURE_EMPTY`]) keep its reading and the physical model reads the others, and those it
    /// reads at under [`MIRROR_BELOW`] again mirrored left to right: their reading is the mean of
    /// the two.
    pub fn classify_tall(&self, cells: &Array4<f32>) -> Result<Option<Vec<ClassProbs>>, Error> {
        let (h, w) = (TALL_H as usize, TALL_W as usize);
        assert_eq!(&cells.shape()[1..], &[1, h, w], "tall cells must be [N, 1, {h}, {w}]");
        let set = self.head_for(SetModel::Physical);
        let Some(physical) = self.physical.as_ref() else { return Ok(None) };
        let Some(occupancy) = self.occupancy.as_ref().filter(|_| set.is_none()) else {
            return physical.probabilities(cells, set).map(Some);
        };
        let mut probs: Vec<ClassProbs> = occupancy.probabilities(cells, None)?;
        let doubtful: Vec<usize> = (0..probs.len()).filter(|&i| probs[i][0] < SURE_EMPTY).collect();
        if doubtful.is_empty() {
            return Ok(Some(probs));
        }
        let read = physical.probabilities(&cells.select(Axis(0), &doubtful), None)?;
        for (&i, p) in doubtful.iter().zip(read) {
            probs[i] = p;
        }
        let unsure: Vec<usize> = doubtful.into_iter().filter(|&i| most_probable(&probs[i]).1 < MIRROR_BELOW).collect();
        if !unsure.is_empty() {
            let mut mirrored = cells.select(Axis(0), &unsure);
            mirrored.invert_axis(Axis(3));
            let read: Vec<ClassProbs> = physical.probabilities(&mirrored.as_standard_layout().into_owned(), None)?;
            for (&i, p) in unsure.iter().zip(read) {
                for (a, b) in probs[i].iter_mut().zip(p) {
                    *a = (*a + b) / 2.0;
                }
            }
        }
        Ok(Some(probs))
    }

    /// The probability that the board seen in `view` ([`crate::cells::kind_view`]) is a physical
    /// one; `None` without a kind classifier.
    pub fn physical_probability(&self, view: &Array4<f32>) -> Result<Option<f32>, Error> {
        let k = KIND_PX as usize;
        assert_eq!(view.shape(), &[1, 1, k, k], "a kind view must be [1, 1, {k}, {k}]");
        Ok(self.kind.as_ref().map(|m| m.probabilities::<2>(view, None)).transpose()?.map(|p| p[0][1]))
    }

    /// Whether a coordinate model is loaded.
    pub fn reads_coordinates(&self) -> bool {
        self.labels.is_some()
    }

    /// Reads a `[N, 1, LABEL_PX, LABEL_PX]` batch of label patches ([`crate::orient::label_patches`]);
    /// `None` without a coordinate model.
    pub fn read_labels(&self, patches: &Array4<f32>) -> Result<Option<Vec<LabelProbs>>, Error> {
        let n = LABEL_PX;
        assert_eq!(&patches.shape()[1..], &[1, n, n], "label patches must be [N, 1, {n}, {n}]");
        self.labels.as_ref().map(|m| m.probabilities(patches, None)).transpose()
    }

    /// Whether a glyph classifier is loaded, so that text boards can be read.
    pub fn reads_text(&self) -> bool {
        self.glyphs.is_some()
    }

    /// Names a `[N, 1, GLYPH_PX, GLYPH_PX]` batch of glyph patches
    /// ([`crate::textboard::Glyphs::patches`]); `None` without a glyph classifier.
    pub fn read_glyphs(&self, patches: &Array4<f32>) -> Result<Option<Vec<crate::textboard::GlyphProbs>>, Error> {
        let n = crate::textboard::GLYPH_PX;
        assert_eq!(&patches.shape()[1..], &[1, n, n], "glyph patches must be [N, 1, {n}, {n}]");
        if patches.shape()[0] == 0 {
            return Ok(self.glyphs.as_ref().map(|_| Vec::new()));
        }
        self.glyphs.as_ref().map(|m| m.probabilities(patches, None)).transpose()
    }
}

fn softmax<const K: usize>(logits: impl Iterator<Item = f32>) -> [f32; K] {
    let mut out = [0f32; K];
    for (o, v) in out.iter_mut().zip(logits) {
        *o = v;
    }
    let m = out.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in out.iter_mut() {
        *v = (*v - m).exp();
        sum += *v;
    }
    out.iter_mut().for_each(|v| *v /= sum);
    out
}

fn ort_err(e: ort::Error) -> Error {
    Error::ModelRun(e.to_string())
}

fn load_err(e: ort::Error) -> Error {
    Error::model_load(None, format!("inference: {e}"))
}

/// Sets `ort`'s global API once per process and says which backend it is.
fn init_api(want: Backend, lib: Option<&Path>) -> Result<Backend, Error> {
    if let Some(&have) = API.get() {
        return if want == Backend::Auto || want == have {
            Ok(have)
        } else {
            Err(Error::model_load(
                None,
                format!(
                    "the {} backend is already in use in this process; {} cannot be used beside it",
                    have.name(),
                    want.name()
                ),
            ))
        };
    }
    let chosen = match want {
        Backend::Tract => {
            ort::set_api(ort_tract::api());
            Backend::Tract
        }
        Backend::Onnxruntime => {
            let path = find_ort_lib(lib).ok_or_else(|| {
                Error::model_load(
                    None,
                    "ONNX Runtime library not found: pass --ort-lib PATH or set IMG2FEN_ORT_LIB \
                     (the README's set-up fetches it), or use --backend tract",
                )
            })?;
            load_onnxruntime(&path)?;
            Backend::Onnxruntime
        }
        Backend::Auto => match find_ort_lib(lib).map(|p| load_onnxruntime(&p)) {
            Some(Ok(())) => Backend::Onnxruntime,
            _ => {
                ort::set_api(ort_tract::api());
                Backend::Tract
            }
        },
    };
    // Another thread may have raced us; ort keeps the first API, and so do we.
    Ok(*API.get_or_init(|| chosen))
}

/// Where `libonnxruntime` is looked for, in order.
pub fn find_ort_lib(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = explicit {
        return Some(p.to_path_buf());
    }
    for var in ["IMG2FEN_ORT_LIB", "ORT_DYLIB_PATH"] {
        if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            return Some(PathBuf::from(v));
        }
    }
    let exe_dir = std::env::current_exe().ok()?.parent()?.to_path_buf();
    [exe_dir.clone(), exe_dir.join("onnxruntime")].iter().find_map(|dir| {
        crate::dylib::libraries_in(dir, |n| {
            n.starts_with("libonnxruntime.so") || n == "libonnxruntime.dylib" || n == "onnxruntime.dll"
        })
        .into_iter()
        .next()
    })
}

/// Opens `libonnxruntime`, takes its API table and hands it to `ort`. The library stays loaded
/// for the life of the process.
fn load_onnxruntime(path: &Path) -> Result<(), Error> {
    let fail = |what: String| Error::model_load(Some(path), what);
    // SAFETY: loading a shared library runs its initialisers; libonnxruntime's are sound.
    let lib = unsafe { libloading::Library::new(path) }.map_err(|e| fail(format!("cannot load: {e}")))?;
    let lib: &'static libloading::Library = Box::leak(Box::new(lib));
    // SAFETY: the symbol's type is the one declared by ONNX Runtime's C API.
    let get_base = unsafe { lib.get::<unsafe extern "system" fn() -> *const ort::sys::OrtApiBase>(b"OrtGetApiBase") }
        .map_err(|e| fail(format!("not an ONNX Runtime library: {e}")))?;
    // SAFETY: OrtGetApiBase returns a pointer to a static table, valid while the library is loaded.
    let api = unsafe {
        let base = get_base();
        if base.is_null() {
            return Err(fail("OrtGetApiBase returned null".into()));
        }
        ((*base).GetApi)(ort::sys::ORT_API_VERSION)
    };
    if api.is_null() {
        return Err(fail(format!(
            "this ONNX Runtime is too old: API version {} is needed (onnxruntime >= 1.{})",
            ort::sys::ORT_API_VERSION,
            ort::sys::ORT_API_VERSION
        )));
    }
    // SAFETY: a non-null table of the requested version; `OrtApi` is plain function pointers,
    // so a bitwise copy is a valid value (the library it points into is never unloaded).
    ort::set_api(unsafe { std::ptr::read(api) });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softmax_sums_to_one_and_keeps_order() {
        let p: [f32; 13] = softmax((0..13).map(|i| i as f32));
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(p[12] > p[11]);
    }

    #[test]
    fn classes_and_chars_agree() {
        for (c, ch) in CLASSES.iter().zip(CLASS_CHARS) {
            assert_eq!(c.map(|p| p.char()).unwrap_or('.'), ch);
        }
        assert_eq!(class_index(None), 0);
    }
}
