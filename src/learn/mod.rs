//! Learned piece sets: a set's own head over a model's embeddings, fitted in Rust from pictures
//! whose position is known (`img2fen learn-set`), so that a design the models never saw (a
//! book's font, an app's theme, the physical set on a club's tables) reads as well as those
//! they did.
//!
//! A model's logits are `W e + b` over its embedding `e`, the input of its final linear layer
//! (the models' second output, `embedding`). A set adds `ΔW e + Δb`
//! ([`fit::fit_head`]): class-balanced softmax regression on every labelled cell of the given
//! pictures, each cut several times with its corners jittered
//! ([`crate::geometry::Quad::jittered`]), with an L2 penalty that keeps what the pictures do not
//! show as the model reads it. Cells are cut by the same code as at reading time.
//!
//! The set file is JSON (`img2fen-set`, version [`SET_VERSION`]); `docs/learned-sets.md`
//! describes it. It names the model it was fitted on by a fingerprint of the model file
//! ([`crate::classify::fingerprint`]), and is refused with any other.

pub mod fit;

use std::path::{Path, PathBuf};
use std::str::FromStr;

use image::DynamicImage;
use ndarray::{concatenate, s, Array1, Array2, Axis};
use serde_json::{json, Value};
use shakmaty::{Board, File, Piece, Rank, Square};

use crate::classify::{class_index, ModelOutputs, CLASS_CHARS};
use crate::locate::Located;
use crate::reading::BoardKind;
use crate::{cells, Error, Recognizer};
pub use fit::{fit_head, FitOptions, Head};

/// The set file's `format`.
pub const SET_FORMAT: &str = "img2fen-set";
/// The set file's `version`: a reader refuses others.
pub const SET_VERSION: u64 = 1;

/// A picture must agree with its given position on at least this many squares, read by the
/// model alone at its best turn, to be learned from. A wrong FEN (another position, or one
/// written from Black's side) agrees on far fewer; a set the model reads badly still agrees on
/// most squares (realdata-physical's photos: 44-62).
pub const MIN_AGREED: usize = 40;

/// The lowest temperature a set's head gets ([`SetQuality::temperature`]): a head fitted with a
/// penalty is less sure than it is right, but a fit to 64 held-out squares read almost all right
/// would sharpen it without bound.
pub const MIN_TEMPERATURE: f32 = 0.5;

/// Which model a set's head is fitted over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetModel {
    /// The piece model: flat boards.
    Pieces,
    /// The physical-board model: tall cells of a set on a table.
    Physical,
}

impl SetModel {
    /// The model that reads boards of `kind`.
    pub fn of(kind: BoardKind) -> Self {
        match kind {
            BoardKind::Flat => SetModel::Pieces,
            BoardKind::Physical => SetModel::Physical,
        }
    }

    /// The kind of board it reads.
    pub fn kind(self) -> BoardKind {
        match self {
            SetModel::Pieces => BoardKind::Flat,
            SetModel::Physical => BoardKind::Physical,
        }
    }

    /// `pieces` or `physical`, as the set file says.
    pub fn name(self) -> &'static str {
        match self {
            SetModel::Pieces => "pieces",
            SetModel::Physical => "physical",
        }
    }
}

/// One picture a set was learned from.
#[derive(Debug, Clone, PartialEq)]
pub struct SetSource {
    /// The picture's file name.
    pub file: String,
    /// The position it was given (FEN field 1, as seen from White).
    pub placement: String,
    /// Where White sat in the picture: `bottom`, `top`, `left` or `right`.
    pub white_at: String,
    /// On how many of the 64 squares the model alone read the given position.
    pub agreed: usize,
}

/// How well a set separates the classes on the squares it was learned from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SetQuality {
    /// Labelled squares (64 a picture).
    pub squares: usize,
    /// Read right by the model alone.
    pub model_right: usize,
    /// Read right by a head fitted without them ([`SetQuality::folds`]-fold cross-validation,
    /// whole squares held out with all their cuts): what to expect on new pictures.
    pub cross_validated_right: usize,
    /// The folds of that cross-validation.
    pub folds: usize,
    /// The L2 penalty the cross-validation chose ([`LearnOptions::penalties`]); `None` when no
    /// head read the held-out squares better than the model alone, and the set keeps the model's
    /// reading (its head is zero).
    pub l2: Option<f32>,
    /// The temperature the set's logits are divided by, fitted to the held-out squares' readings
    /// (lowest log loss): the set's probabilities then say how often it is right, so that
    /// `--min-confidence` flags the squares to check as it does for the model.
    pub temperature: f32,
}

/// A learned piece set: a head for one model ([`SetModel`]), and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct LearnedSet {
    /// A name for people (the set file's stem unless given).
    pub name: String,
    /// The model it was fitted over.
    pub model: SetModel,
    /// [`crate::classify::fingerprint`] of that model's file.
    pub model_fingerprint: u64,
    /// The head added to the model's logits.
    pub head: Head,
    /// The pictures it was learned from.
    pub sources: Vec<SetSource>,
    /// How well it separates the classes there.
    pub quality: SetQuality,
}

fn set_err(path: Option<&Path>, reason: impl Into<String>) -> Error {
    Error::Set { path: path.map(Path::to_path_buf), reason: reason.into() }
}

impl LearnedSet {
    /// The model's logits with this set's head ([`Head::apply`]).
    pub fn logits(&self, out: &ModelOutputs) -> Result<Array2<f32>, Error> {
        let e = out.embedding.as_ref().ok_or_else(|| {
            Error::ModelRun("the model has no embedding output, so a learned set cannot be used with it".into())
        })?;
        if e.ncols() != self.head.weights.ncols() || out.logits.ncols() != self.head.weights.nrows() {
            return Err(Error::ModelRun(format!(
                "the learned set expects {} embedding values and {} classes, the model gives {} and {}",
                self.head.weights.ncols(),
                self.head.weights.nrows(),
                e.ncols(),
                out.logits.ncols()
            )));
        }
        let t = self.quality.temperature;
        Ok(self.head.apply(out.logits.view(), e.view()).mapv(|z| z / t))
    }

    /// Checks that the set was learned with the model whose fingerprint is `loaded` (`None`: no
    /// such model is loaded).
    pub fn check_model(&self, loaded: Option<u64>) -> Result<(), Error> {
        match loaded {
            None => Err(set_err(
                None,
                format!("the learned set '{}' is for the {} model, which this build does not have", self.name, self.model.name()),
            )),
            Some(f) if f != self.model_fingerprint => Err(set_err(
                None,
                format!(
                    "the learned set '{}' was learned with another {} model (fingerprint {:016x}; this one is {f:016x}): learn it again with this model",
                    self.name,
                    self.model.name(),
                    self.model_fingerprint
                ),
            )),
            Some(_) => Ok(()),
        }
    }

    /// The set file's JSON.
    pub fn to_json(&self) -> Value {
        let round = |v: f32| (v as f64 * 1e6).round() / 1e6;
        json!({
            "format": SET_FORMAT,
            "version": SET_VERSION,
            "name": self.name,
            "model": self.model.name(),
            "model_fingerprint": format!("{:016x}", self.model_fingerprint),
            "classes": CLASS_CHARS.iter().collect::<String>(),
            "embedding_dim": self.head.weights.ncols(),
            "learned_from": self.sources.iter().map(|s| json!({
                "file": s.file, "placement": s.placement, "white_at": s.white_at, "agreed": s.agreed,
            })).collect::<Vec<_>>(),
            "quality": {
                "squares": self.quality.squares,
                "model_right": self.quality.model_right,
                "cross_validated_right": self.quality.cross_validated_right,
                "folds": self.quality.folds,
                "l2": self.quality.l2,
                "temperature": self.quality.temperature,
            },
            "bias": self.head.bias.iter().map(|&v| round(v)).collect::<Vec<_>>(),
            "weights": self.head.weights.rows().into_iter()
                .map(|r| r.iter().map(|&v| round(v)).collect::<Vec<_>>()).collect::<Vec<_>>(),
        })
    }

    /// Writes the set file.
    pub fn save(&self, path: &Path) -> Result<(), Error> {
        let text = serde_json::to_string(&self.to_json()).expect("JSON of numbers and strings");
        std::fs::write(path, text + "\n").map_err(|e| set_err(Some(path), format!("cannot write the set: {e}")))
    }

    /// Reads a set file.
    pub fn load(path: &Path) -> Result<Self, Error> {
        let text =
            std::fs::read_to_string(path).map_err(|e| set_err(Some(path), format!("cannot read the set: {e}")))?;
        Self::from_json_str(&text, Some(path))
    }

    /// Parses a set file's text; `path` names it in errors.
    pub fn from_json_str(text: &str, path: Option<&Path>) -> Result<Self, Error> {
        let bad = |why: &str| set_err(path, format!("not a learned piece set: {why}"));
        let v: Value = serde_json::from_str(text).map_err(|e| bad(&format!("not JSON ({e})")))?;
        if v["format"] != SET_FORMAT {
            return Err(bad(&format!("its format is not \"{SET_FORMAT}\"")));
        }
        match v["version"].as_u64() {
            Some(SET_VERSION) => {}
            Some(other) => {
                return Err(set_err(
                    path,
                    format!("set file version {other}; this img2fen reads version {SET_VERSION}: learn the set again"),
                ))
            }
            None => return Err(bad("no version")),
        }
        let model = match v["model"].as_str() {
            Some("pieces") => SetModel::Pieces,
            Some("physical") => SetModel::Physical,
            _ => return Err(bad("\"model\" is neither \"pieces\" nor \"physical\"")),
        };
        if v["classes"].as_str() != Some(&CLASS_CHARS.iter().collect::<String>()) {
            return Err(bad("its classes are not img2fen's 13"));
        }
        let model_fingerprint = v["model_fingerprint"]
            .as_str()
            .and_then(|s| u64::from_str_radix(s, 16).ok())
            .ok_or_else(|| bad("no model_fingerprint"))?;
        let floats =
            |a: &Value| -> Option<Vec<f32>> { a.as_array()?.iter().map(|x| x.as_f64().map(|f| f as f32)).collect() };
        let bias =
            floats(&v["bias"]).filter(|b| b.len() == CLASS_CHARS.len()).ok_or_else(|| bad("no bias of 13 values"))?;
        let dim = v["embedding_dim"].as_u64().ok_or_else(|| bad("no embedding_dim"))? as usize;
        let rows =
            v["weights"].as_array().filter(|r| r.len() == CLASS_CHARS.len()).ok_or_else(|| bad("no 13 weight rows"))?;
        let mut flat = Vec::with_capacity(dim * rows.len());
        for r in rows {
            let r = floats(r).filter(|r| r.len() == dim).ok_or_else(|| bad("a weight row of another length"))?;
            flat.extend(r);
        }
        if flat.iter().chain(&bias).any(|x| !x.is_finite()) {
            return Err(bad("a weight that is not a finite number"));
        }
        let weights = Array2::from_shape_vec((rows.len(), dim), flat).expect("checked shape");
        let count = |k: &str| v["quality"][k].as_u64().unwrap_or(0) as usize;
        let sources = v["learned_from"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|s| SetSource {
                        file: s["file"].as_str().unwrap_or_default().to_string(),
                        placement: s["placement"].as_str().unwrap_or_default().to_string(),
                        white_at: s["white_at"].as_str().unwrap_or_default().to_string(),
                        agreed: s["agreed"].as_u64().unwrap_or(0) as usize,
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(LearnedSet {
            name: v["name"].as_str().unwrap_or_default().to_string(),
            model,
            model_fingerprint,
            head: Head { weights, bias: Array1::from(bias) },
            sources,
            quality: SetQuality {
                squares: count("squares"),
                model_right: count("model_right"),
                cross_validated_right: count("cross_validated_right"),
                folds: count("folds"),
                l2: v["quality"]["l2"].as_f64().map(|x| x as f32),
                temperature: v["quality"]["temperature"]
                    .as_f64()
                    .map(|x| x as f32)
                    .filter(|t| t.is_finite() && *t > 0.0)
                    .ok_or_else(|| bad("no positive temperature"))?,
            },
        })
    }
}

/// A picture to learn from: the board it shows and the position on it.
pub struct LearnPicture<'a> {
    /// Its file, for messages and the set's record.
    pub path: PathBuf,
    /// The decoded picture.
    pub image: &'a DynamicImage,
    /// FEN field 1 as seen from White; `None` for the starting position.
    pub placement: Option<String>,
}

/// How a set is learned.
#[derive(Debug, Clone)]
pub struct LearnOptions {
    /// Cuts of each board: as found, then with corners jittered.
    pub copies: usize,
    /// How far the extra cuts move each corner, in squares ([`crate::geometry::Quad::jittered`]).
    pub jitter: f64,
    /// The fit; its `l2` is chosen from [`LearnOptions::penalties`].
    pub fit: FitOptions,
    /// The L2 penalties cross-validation chooses from, strongest first; on a tie the stronger
    /// wins, and the model alone wins over any head it does not beat.
    pub penalties: Vec<f32>,
    /// Folds of the cross-validation that measures the set ([`SetQuality`]).
    pub folds: usize,
}

impl Default for LearnOptions {
    fn default() -> Self {
        LearnOptions {
            copies: 5,
            jitter: 0.04,
            fit: FitOptions::default(),
            penalties: vec![1e-2, 1e-3, 1e-4],
            folds: 4,
        }
    }
}

/// The starting position's FEN field 1.
pub const START_PLACEMENT: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

/// The pieces of FEN field 1, a8 to h1.
pub fn placement_squares(placement: &str) -> Result<[Option<Piece>; 64], String> {
    let board = Board::from_str(placement.trim()).map_err(|e| format!("'{placement}' is not a FEN placement: {e}"))?;
    Ok(std::array::from_fn(|i| {
        board.piece_at(Square::from_coords(File::new((i % 8) as u32), Rank::new(7 - (i / 8) as u32)))
    }))
}

/// The display position (0 = top left, row by row) of board cell `i` after `turns` quarter turns
/// of the picture (clockwise): where a square sits when White is not at the bottom.
fn turned_index(i: usize, turns: usize) -> usize {
    (0..turns % 4).fold(i, |j, _| (j % 8) * 8 + (7 - j / 8))
}

/// Where White sits after `turns` quarter turns.
fn white_at(turns: usize) -> &'static str {
    ["bottom", "left", "top", "right"][turns % 4]
}

/// One picture's labelled cells, all cuts, with the model's outputs.
struct Labelled {
    source: SetSource,
    logits: Array2<f32>,
    embedding: Array2<f32>,
    labels: Vec<usize>,
    /// Which of the picture's 64 squares each row is (display order).
    square: Vec<usize>,
    /// Whether the row is the as-found cut (copy 0).
    first_cut: Vec<bool>,
}

/// The board in a picture a set is learned from: the one the finder is surest of, then the
/// largest.
fn primary(found: &[Located]) -> Option<&Located> {
    found
        .iter()
        .max_by(|a, b| a.corners_found.cmp(&b.corners_found).then(a.quad.mean_side().total_cmp(&b.quad.mean_side())))
}

fn label_picture(rec: &Recognizer, pic: &LearnPicture, opts: &LearnOptions) -> Result<(SetModel, Labelled), Error> {
    let mismatch = |reason: String| Error::Mismatch { path: Some(pic.path.clone()), reason };
    let placement = pic.placement.clone().unwrap_or_else(|| START_PLACEMENT.to_string());
    let pieces = placement_squares(&placement).map_err(mismatch)?;
    let gray = cells::grey(pic.image);
    let found = rec.locate(pic.image, &gray);
    let located = primary(&found).ok_or_else(|| mismatch("no board found".into()))?;
    let (kind, _) = rec.kind_of(&cells::extract(&gray, &located.quad), &located.quad)?;
    let which = SetModel::of(kind);
    let cuts: Vec<_> = (0..opts.copies.max(1))
        .map(|c| {
            let q = if c == 0 { located.quad } else { located.quad.jittered(opts.jitter, c as u64) };
            match which {
                SetModel::Pieces => cells::to_tensor(&cells::Cut::new(&gray, &q).board),
                SetModel::Physical => cells::tall_cells(&gray, &q),
            }
        })
        .collect();
    let views: Vec<_> = cuts.iter().map(|c| c.view()).collect();
    let out = rec.classifier().embed(which, &concatenate(Axis(0), &views).expect("cells of one shape"))?;
    let embedding = out.embedding.ok_or_else(|| {
        Error::model_load(
            None,
            format!("the {} model has no embedding output: a set cannot be learned with it", which.name()),
        )
    })?;
    // The turn that explains the picture best: flat boards are shown with White or Black at the
    // bottom; a photo of a table may be taken from any side.
    let turns: &[usize] = if which == SetModel::Physical { &[0, 1, 2, 3] } else { &[0, 2] };
    // The as-found cut's log-probabilities and readings, once for every turn tried.
    let first = out.logits.slice(s![0..64, ..]);
    let read = fit::argmax_rows(first);
    let log_p: Vec<Vec<f32>> = first
        .rows()
        .into_iter()
        .map(|row| {
            let m = row.fold(f32::NEG_INFINITY, |a, &b| a.max(b));
            let lse = m + row.iter().map(|v| (v - m).exp()).sum::<f32>().ln();
            row.iter().map(|v| v - lse).collect()
        })
        .collect();
    let mut best = (f32::NEG_INFINITY, 0, 0);
    for &t in turns {
        let (mut score, mut agreed) = (0.0, 0);
        for (i, p) in pieces.iter().enumerate() {
            let (cell, y) = (turned_index(i, t), class_index(*p));
            score += log_p[cell][y];
            agreed += usize::from(read[cell] == y);
        }
        if score > best.0 {
            best = (score, t, agreed);
        }
    }
    let (_, turn, agreed) = best;
    if agreed < MIN_AGREED {
        return Err(mismatch(format!(
            "the board found agrees with the position given on only {agreed} of 64 squares (at best, with White at the {}); \
             a set is learned only from pictures that agree on {MIN_AGREED}: check the FEN (field 1, as seen from White, rank 8 first)",
            white_at(turn)
        )));
    }
    let mut display = [0usize; 64];
    for (i, p) in pieces.iter().enumerate() {
        display[turned_index(i, turn)] = class_index(*p);
    }
    let n = out.logits.nrows();
    let file =
        pic.path.file_name().map_or_else(|| pic.path.display().to_string(), |f| f.to_string_lossy().into_owned());
    Ok((
        which,
        Labelled {
            source: SetSource { file, placement, white_at: white_at(turn).into(), agreed },
            logits: out.logits,
            embedding,
            labels: (0..n).map(|r| display[r % 64]).collect(),
            square: (0..n).map(|r| r % 64).collect(),
            first_cut: (0..n).map(|r| r < 64).collect(),
        },
    ))
}

/// Learns a set named `name` from `pictures`, all of one kind of board, with `rec`'s models
/// (its own set, if any, plays no part). Each picture is refused ([`Error::Mismatch`]) when no
/// board is found in it or the board does not show its position.
pub fn learn(
    rec: &Recognizer,
    pictures: &[LearnPicture],
    name: &str,
    opts: &LearnOptions,
) -> Result<LearnedSet, Error> {
    let mut model = None;
    let mut parts = vec![];
    for pic in pictures {
        let (which, labelled) = label_picture(rec, pic, opts)?;
        if model.is_some_and(|m| m != which) {
            return Err(Error::Mismatch {
                path: Some(pic.path.clone()),
                reason: format!(
                    "it shows a {} board and the pictures before it a {} one: a set is for one kind (pass --kind)",
                    which.kind().name(),
                    model.map_or("", |m: SetModel| m.kind().name())
                ),
            });
        }
        model = Some(which);
        parts.push(labelled);
    }
    let model = model.ok_or_else(|| Error::Mismatch { path: None, reason: "no pictures given".into() })?;
    let cat = |f: &dyn Fn(&Labelled) -> ndarray::ArrayView2<f32>| {
        concatenate(Axis(0), &parts.iter().map(f).collect::<Vec<_>>()).expect("rows of one width")
    };
    let logits = cat(&|p| p.logits.view());
    let embedding = cat(&|p| p.embedding.view());
    let labels: Vec<usize> = parts.iter().flat_map(|p| p.labels.iter().copied()).collect();
    let first_cut: Vec<bool> = parts.iter().flat_map(|p| p.first_cut.iter().copied()).collect();
    // A square's identity across pictures, so that cross-validation holds out all its cuts.
    let group: Vec<usize> =
        parts.iter().enumerate().flat_map(|(k, p)| p.square.iter().map(move |&s| k * 64 + s)).collect();
    let quality = cross_validate(&logits, &embedding, &labels, &first_cut, &group, opts);
    let head = match quality.l2 {
        Some(l2) => fit_head(logits.view(), embedding.view(), &labels, &FitOptions { l2, ..opts.fit }),
        None => {
            Head { weights: Array2::zeros((logits.ncols(), embedding.ncols())), bias: Array1::zeros(logits.ncols()) }
        }
    };
    let fingerprint = rec.classifier().fingerprint(model).expect("the model that embedded the cells");
    Ok(LearnedSet {
        name: name.to_string(),
        model,
        model_fingerprint: fingerprint,
        head,
        sources: parts.into_iter().map(|p| p.source).collect(),
        quality,
    })
}

/// [`SetQuality`] by `opts.folds`-fold cross-validation: each square (all its cuts) is held out
/// once; within each class, squares are dealt to the folds in turn. Every penalty of
/// `opts.penalties` is tried, and the one that reads the held-out squares best is chosen.
fn cross_validate(
    logits: &Array2<f32>,
    embedding: &Array2<f32>,
    labels: &[usize],
    first_cut: &[bool],
    group: &[usize],
    opts: &LearnOptions,
) -> SetQuality {
    let folds = opts.folds.max(2);
    let groups = group.iter().max().map_or(0, |g| g + 1);
    let mut fold_of = vec![0usize; groups];
    let mut dealt = [0usize; 13];
    for (r, &g) in group.iter().enumerate() {
        if first_cut[r] {
            fold_of[g] = dealt[labels[r]] % folds;
            dealt[labels[r]] += 1;
        }
    }
    let model_pred = fit::argmax_rows(logits.view());
    let first: Vec<usize> = (0..labels.len()).filter(|&r| first_cut[r]).collect();
    let model_right = first.iter().filter(|&&r| model_pred[r] == labels[r]).count();
    let mut right = vec![0usize; opts.penalties.len()];
    // Each penalty's held-out logits and labels, to fit the temperature of the one chosen.
    let mut held: Vec<Vec<(Vec<f32>, usize)>> = vec![vec![]; opts.penalties.len()];
    for f in 0..folds {
        let train: Vec<usize> = (0..labels.len()).filter(|&r| fold_of[group[r]] != f).collect();
        let test: Vec<usize> = first.iter().copied().filter(|&r| fold_of[group[r]] == f).collect();
        if test.is_empty() {
            continue;
        }
        let train_labels: Vec<usize> = train.iter().map(|&r| labels[r]).collect();
        let (tl, te) = (logits.select(Axis(0), &train), embedding.select(Axis(0), &train));
        let (xl, xe) = (logits.select(Axis(0), &test), embedding.select(Axis(0), &test));
        for (k, &l2) in opts.penalties.iter().enumerate() {
            let head = fit_head(tl.view(), te.view(), &train_labels, &FitOptions { l2, ..opts.fit });
            let z = head.apply(xl.view(), xe.view());
            right[k] += fit::argmax_rows(z.view()).iter().zip(&test).filter(|&(&p, &r)| p == labels[r]).count();
            held[k].extend(z.rows().into_iter().zip(&test).map(|(row, &r)| (row.to_vec(), labels[r])));
        }
    }
    let (mut best, mut l2) = (model_right, None);
    for (k, &r) in right.iter().enumerate() {
        if r > best {
            (best, l2) = (r, Some(opts.penalties[k]));
        }
    }
    // The model's own reading keeps its own calibration: squares it reads all right would
    // sharpen it without bound, and a reading too sure of itself skips the second look and the
    // rules' repairs.
    let temperature = match l2 {
        Some(l2) => fit::fit_temperature(&held[opts.penalties.iter().position(|&p| p == l2).expect("chosen")])
            .max(MIN_TEMPERATURE),
        None => 1.0,
    };
    SetQuality { squares: first.len(), model_right, cross_validated_right: best, folds, l2, temperature }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_move_squares_as_a_photo_from_beside_the_board_shows_them() {
        // White on the left: a1 (index 56) shows at the top left, h1 (63) at the bottom left.
        assert_eq!(turned_index(56, 1), 0);
        assert_eq!(turned_index(63, 1), 56);
        // Black at the bottom: a8 shows at the bottom right.
        assert_eq!(turned_index(0, 2), 63);
        for t in 0..4 {
            let mut seen = [false; 64];
            (0..64).for_each(|i| seen[turned_index(i, t)] = true);
            assert!(seen.iter().all(|&s| s), "turn {t} is a permutation");
        }
    }

    #[test]
    fn a_set_file_reads_back_and_refuses_what_it_should() {
        let set = LearnedSet {
            name: "club".into(),
            model: SetModel::Physical,
            model_fingerprint: 0x0123_4567_89ab_cdef,
            head: Head {
                weights: Array2::from_shape_fn((13, 3), |(i, j)| (i * 3 + j) as f32 * 0.25),
                bias: Array1::from(vec![0.5; 13]),
            },
            sources: vec![SetSource {
                file: "a.jpg".into(),
                placement: START_PLACEMENT.into(),
                white_at: "left".into(),
                agreed: 50,
            }],
            quality: SetQuality {
                squares: 64,
                model_right: 50,
                cross_validated_right: 63,
                folds: 4,
                l2: Some(0.01),
                temperature: 0.5,
            },
        };
        let text = serde_json::to_string(&set.to_json()).unwrap();
        assert_eq!(LearnedSet::from_json_str(&text, None).unwrap(), set);
        assert!(set.check_model(Some(0x0123_4567_89ab_cdef)).is_ok());
        let other = set.check_model(Some(7)).unwrap_err().to_string();
        assert!(other.contains("learned with another physical model"), "{other}");
        let newer = text.replace("\"version\":1", "\"version\":2");
        let e = LearnedSet::from_json_str(&newer, Some(Path::new("club.set.json"))).unwrap_err().to_string();
        assert!(e.starts_with("club.set.json: set file version 2"), "{e}");
        let e = LearnedSet::from_json_str("{\"format\":\"x\"}", None).unwrap_err().to_string();
        assert!(e.contains("not a learned piece set"), "{e}");
    }

    #[test]
    fn placements_parse_and_refuse() {
        let start = placement_squares(START_PLACEMENT).unwrap();
        assert_eq!(start[4].map(|p| p.char()), Some('k'));
        assert_eq!(start[60].map(|p| p.char()), Some('K'));
        assert!(start[27].is_none());
        assert!(placement_squares("rnbqkbnr/pppppppp/9/8").is_err());
    }
}
