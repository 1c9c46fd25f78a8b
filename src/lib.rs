//! img2fen reads a chess position out of a picture and writes it as FEN.
//!
//! The pipeline has five steps, one module each, every one usable alone:
//! [`locate`] (find the board's corners) and [`warp`] (to an upright square), [`cells`] (cut 64
//! cells), [`classify`] (13 classes per cell with an ONNX model), [`orient`] (which side is at the
//! bottom) and [`fen`] (assemble and check the FEN). [`Recognizer`] runs them all.
//!
//! ```no_run
//! let rec = img2fen::Recognizer::new(img2fen::Options::default())?;
//! for board in rec.read_file("screenshot.png".as_ref())? {
//!     println!("{}", board.fen);
//! }
//! # Ok::<(), img2fen::Error>(())
//! ```

pub mod batch;
pub mod cells;
pub mod classify;
pub mod dataset;
pub mod debug;
pub mod eval;
pub mod fen;
pub mod geometry;
pub mod locate;
pub mod orient;
pub mod review;
pub mod scenes;
pub mod warp;

use std::path::Path;

use image::{DynamicImage, GrayImage};
use serde_json::json;
use shakmaty::{Piece, Square};

pub use classify::{Backend, ClassProbs, Classifier, ClassifierOptions, CLASSES, CLASS_CHARS};
pub use fen::{Castling, FenOptions};
pub use geometry::{Point, Quad};
pub use locate::{LocateOptions, Located};
pub use orient::{Orientation, OrientationSource};

/// What can go wrong reading a picture.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be read or decoded.
    #[error("{0}")]
    Input(String),
    /// No chessboard was found in the picture.
    #[error("no board found")]
    NoBoard,
    /// The model could not be loaded or run.
    #[error("{0}")]
    Model(String),
}

/// Default for [`Options::min_confidence`]: squares whose best class has a lower probability are
/// reported as uncertain. Chosen from measurement (`img2fen eval --sweep`, README "Choosing the
/// threshold"): on realdata-dev's legal pictures, and on each of five sets derived from them
/// (turned, shaded, cropped), 0.65 flags every misread with 0.26-0.31 needless reports per
/// exactly read board; 0.7 flags no more and reports 0.38-0.48; 0.6 misses one.
pub const DEFAULT_MIN_CONFIDENCE: f32 = 0.65;

/// A board is to be checked square by square ([`BoardReading::check_whole_board`]) when at least
/// this many of its squares are read at under [`WHOLE_BOARD_UNSURE_P`]: more likely misread than
/// not. On realdata-dev's legal pictures (and the turned, shaded and cropped sets made from them)
/// no board read exactly has more than two, while rendered photos and screens with confident
/// misreads mostly have three or more (README "Checking the whole board").
pub const WHOLE_BOARD_UNSURE: usize = 3;
/// See [`WHOLE_BOARD_UNSURE`]: a square read at under this probability is more likely misread
/// than not.
pub const WHOLE_BOARD_UNSURE_P: f32 = 0.5;

/// Why a person should check every square of a board, not only its uncertain ones, or `None`:
/// - the reading breaks a counting rule (`rule`: [`BoardReading::rule_broken`]), unless the
///   layout is a board editor's, drawn on purpose ([`fen::deliberate_layout`]): two kings of a
///   side, a pawn on rank 8 or one side without a king most often come from a design whose
///   colours or pieces the model confuses, and then other squares are misread too, surely;
/// - or `unsure` squares, at least [`WHOLE_BOARD_UNSURE`], are read at under
///   [`WHOLE_BOARD_UNSURE_P`] (again not on a deliberate layout): a design or a picture the
///   model does not know well, where its sure squares are less sure than they look.
///
/// Neither depends on `--min-confidence`.
pub fn whole_board_reason(unsure: usize, rule: Option<&str>, deliberate: bool) -> Option<String> {
    if deliberate {
        return None;
    }
    match rule {
        Some(rule) => Some(format!("the reading breaks a counting rule ({rule})")),
        None if unsure >= WHOLE_BOARD_UNSURE => {
            Some(format!("{unsure} squares read at under {:.0}%", WHOLE_BOARD_UNSURE_P * 100.0))
        }
        None => None,
    }
}

/// A second king of one side, both read at least this surely, on a board that breaks no other
/// counting rule and shows the other side's king, is more likely drawn so than misread: its two
/// kings are flagged, but the board is not sent back as a whole
/// ([`fen::sure_second_king_only`]). On realdata-dev such a photo is read exactly; no legal
/// picture of any measured set misreads a piece as a king this surely with nothing else broken
/// (README "Checking the whole board").
pub const SURE_SECOND_KING: f32 = 0.95;

/// How much less clearly a board moved where its coordinates put it may alternate light and dark
/// than the board the finder found ([`locate::window_contrast`], from -1 to 1) and still be read
/// there. Taking in a file of page beside the board costs about an eighth.
pub const MOVE_CONTRAST_SLACK: f64 = 0.05;

/// Cells whose best class is less probable than this get the recognizer's second look
/// ([`Options::second_look`]). Measured with `img2fen eval --no-second-look` against the default
/// (README "The second look").
pub const SECOND_LOOK_BELOW: f32 = 0.9;
/// How far the second look moves the board along each diagonal, in pixels of the warped board
/// (a thirty-second of a square; training cuts move each corner by up to 6% of a square).
pub const SECOND_LOOK_SHIFT: f64 = 1.0;

/// Largest image accepted, in pixels per side and in decoded bytes (decompression-bomb guard).
pub const MAX_IMAGE_SIDE: u32 = 20_000;
pub const MAX_IMAGE_BYTES: u64 = 1 << 30;

/// Everything the recognizer can be told; `Default` gives the CLI's defaults.
#[derive(Debug, Clone)]
pub struct Options {
    pub classifier: ClassifierOptions,
    pub locate: LocateOptions,
    /// `None`: decide from the picture.
    pub orientation: Option<Orientation>,
    pub fen: FenOptions,
    pub min_confidence: f32,
    /// Classify the unsure cells again from slightly moved boards and average (on by default).
    pub second_look: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            classifier: ClassifierOptions::default(),
            locate: LocateOptions::default(),
            orientation: None,
            fen: FenOptions::default(),
            min_confidence: DEFAULT_MIN_CONFIDENCE,
            second_look: true,
        }
    }
}

/// One square as read.
#[derive(Debug, Clone)]
pub struct SquareReading {
    pub square: Square,
    /// The most probable class.
    pub piece: Option<Piece>,
    /// Its probability.
    pub p: f32,
    /// All 13 class probabilities, in [`CLASSES`] order.
    pub probs: ClassProbs,
    /// The counting rule this square most likely breaks, however sure it looks
    /// ([`fen::suspects`]); none on a board editor's layout ([`fen::deliberate_layout`]).
    pub suspect: Option<String>,
}

impl SquareReading {
    /// The other classes, most probable first, with their probabilities (at least `min`).
    pub fn alternatives(&self, min: f32) -> Vec<(Option<Piece>, f32)> {
        let mut v: Vec<(Option<Piece>, f32)> = CLASSES
            .iter()
            .zip(self.probs)
            .filter(|&(&c, p)| c != self.piece && p >= min)
            .map(|(&c, p)| (c, p))
            .collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1));
        v
    }
}

/// A board read from a picture.
#[derive(Debug, Clone)]
pub struct BoardReading {
    /// All six FEN fields.
    pub fen: String,
    /// FEN field 1.
    pub placement: String,
    pub orientation: Orientation,
    pub orientation_source: OrientationSource,
    /// How sure the orientation is, in `[0.5, 1]` (1 when the user said so).
    pub orientation_confidence: f32,
    /// The coordinates show the files reversed against the ranks (a mirrored diagram).
    pub files_reversed: bool,
    /// What the coordinates said (`None` with `--orientation` or without a coordinate model).
    pub coordinates: Option<orient::CoordinateReading>,
    /// Outer corners in image pixels (top-left, top-right, bottom-right, bottom-left as displayed).
    pub corners: Quad,
    /// How many of the 49 interior grid corners the board finder saw (how sure it is of the board).
    pub corners_found: usize,
    /// The 64 squares from a8 to h1 (rank 8 first, files a to h).
    pub squares: Vec<SquareReading>,
    /// The threshold under which a square is uncertain.
    pub min_confidence: f32,
    /// Broken rules and dropped flags.
    pub warnings: Vec<String>,
    /// The position shows more than four kings of a side: a board editor's layout
    /// ([`fen::deliberate_layout`]), on which the counting rules flag no square.
    pub deliberate_layout: bool,
    /// The first counting rule the position breaks that a misread explains: a suspect's
    /// ([`fen::suspects`]), or one side without a king ([`fen::kingless_side`]); not a second
    /// king read surely with nothing else broken ([`SURE_SECOND_KING`]).
    pub rule_broken: Option<String>,
    /// The warped board the classifier saw ([`cells::BOARD_PX`] square).
    pub warped: GrayImage,
}

/// Piece letter, or `empty`, for messages.
pub fn piece_name(p: Option<Piece>) -> String {
    p.map(|p| p.char().to_string()).unwrap_or_else(|| "empty".into())
}

impl BoardReading {
    /// The board a picture with one labelled position most likely shows: the one the finder is
    /// surest of (most grid corners seen), then the largest.
    pub fn primary(boards: &[BoardReading]) -> Option<&BoardReading> {
        boards.iter().max_by(|a, b| {
            a.corners_found.cmp(&b.corners_found).then(a.corners.mean_side().total_cmp(&b.corners.mean_side()))
        })
    }

    /// Whether a person should check this square: under [`BoardReading::min_confidence`], or the
    /// likeliest misread of a broken counting rule.
    pub fn is_uncertain(&self, s: &SquareReading) -> bool {
        s.p < self.min_confidence || s.suspect.is_some()
    }

    /// The squares to check ([`BoardReading::is_uncertain`]), least confident first.
    pub fn uncertain(&self) -> Vec<&SquareReading> {
        let mut v: Vec<&SquareReading> = self.squares.iter().filter(|s| self.is_uncertain(s)).collect();
        v.sort_by(|a, b| a.p.total_cmp(&b.p));
        v
    }

    /// Why every square of this board should be checked, not only the uncertain ones
    /// ([`whole_board_reason`]), e.g. `3 squares read at under 50%`.
    pub fn check_whole_board(&self) -> Option<String> {
        let unsure = self.squares.iter().filter(|s| s.p < WHOLE_BOARD_UNSURE_P).count();
        whole_board_reason(unsure, self.rule_broken.as_deref(), self.deliberate_layout)
    }

    /// The line printed on stderr for a board with uncertain squares, e.g.
    /// `2 uncertain squares: e4 P 61% (B 30%), h7 empty 55% (p 44%)`; `None` when all are sure.
    pub fn uncertain_summary(&self) -> Option<String> {
        let u = self.uncertain();
        if u.is_empty() {
            return None;
        }
        let items: Vec<String> = u
            .iter()
            .map(|s| {
                let alts: Vec<String> = s
                    .alternatives(0.05)
                    .iter()
                    .take(2)
                    .map(|(p, q)| format!("{} {:.0}%", piece_name(*p), q * 100.0))
                    .collect();
                let alts = if alts.is_empty() { String::new() } else { format!(" ({})", alts.join(", ")) };
                let rule = s.suspect.as_ref().map(|r| format!(" [{r}]")).unwrap_or_default();
                format!("{} {} {:.0}%{}{}", s.square, piece_name(s.piece), s.p * 100.0, alts, rule)
            })
            .collect();
        let n = u.len();
        Some(format!("{n} uncertain square{}: {}", if n == 1 { "" } else { "s" }, items.join(", ")))
    }

    /// The board as a JSON object of the documented `--format json` contract.
    pub fn to_json(&self) -> serde_json::Value {
        let pc = |p: Option<Piece>| p.map(|p| p.char().to_string()).unwrap_or_else(|| ".".into());
        let round = |v: f32| (v as f64 * 10_000.0).round() / 10_000.0;
        json!({
            "fen": self.fen,
            "placement": self.placement,
            "orientation": self.orientation.name(),
            "orientation_source": self.orientation_source.name(),
            "orientation_confidence": round(self.orientation_confidence),
            "files_reversed": self.files_reversed,
            "coordinates": self.coordinates.map(|c| json!({"ranks": round(c.ranks), "files": round(c.files)})),
            "corners": self.corners.0.iter().map(|p| [(p.x * 10.0).round() / 10.0, (p.y * 10.0).round() / 10.0]).collect::<Vec<_>>(),
            "min_confidence": round(self.min_confidence),
            "squares": self.squares.iter().map(|s| json!({"square": s.square.to_string(), "piece": pc(s.piece), "p": round(s.p)})).collect::<Vec<_>>(),
            "uncertain": self.uncertain().iter().map(|s| json!({
                "square": s.square.to_string(),
                "piece": pc(s.piece),
                "p": round(s.p),
                "alternatives": s.alternatives(0.01).iter().take(3).map(|(p, q)| json!({"piece": pc(*p), "p": round(*q)})).collect::<Vec<_>>(),
                "rule": s.suspect,
            })).collect::<Vec<_>>(),
            "check_whole_board": self.check_whole_board(),
            "warnings": self.warnings,
        })
    }
}

/// Decodes an image file, guessing the format from its content, within size limits, turned
/// upright as its EXIF orientation says.
pub fn load_image(path: &Path) -> Result<DynamicImage, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::Input(format!("cannot read: {e}")))?;
    decode_image(&bytes)
}

/// Decodes an image held in memory (format guessed from the content), within size limits,
/// turned upright as its EXIF orientation says.
pub fn decode_image(bytes: &[u8]) -> Result<DynamicImage, Error> {
    if bytes.is_empty() {
        return Err(Error::Input("empty file".into()));
    }
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| Error::Input(format!("cannot read: {e}")))?;
    if reader.format().is_none() {
        return Err(Error::Input("not an image (unrecognised format)".into()));
    }
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    limits.max_alloc = Some(MAX_IMAGE_BYTES);
    reader.limits(limits);
    let why = |e: image::ImageError| match e {
        image::ImageError::Limits(l) => Error::Input(format!("image too large: {l}")),
        image::ImageError::Unsupported(u) => Error::Input(format!("unsupported image: {u}")),
        other => Error::Input(format!("corrupt image: {other}")),
    };
    // The header alone says how large the picture claims to be: refuse a decompression bomb
    // with its size before anything is allocated for it.
    let header = image::ImageReader::new(std::io::Cursor::new(bytes)).with_guessed_format();
    if let Ok((w, h)) = header.map_err(image::ImageError::IoError).and_then(|r| r.into_dimensions()) {
        if w > MAX_IMAGE_SIDE || h > MAX_IMAGE_SIDE || w as u64 * h as u64 * 4 > MAX_IMAGE_BYTES {
            return Err(Error::Input(format!(
                "image too large: {w}x{h} pixels; the limits are {MAX_IMAGE_SIDE} pixels a side and {} megapixels",
                MAX_IMAGE_BYTES / 4 / 1_000_000
            )));
        }
    }
    let mut decoder = reader.into_decoder().map_err(why)?;
    // Phone photos are often stored sideways with an EXIF orientation tag; a missing or
    // unreadable tag means "as stored".
    let orientation =
        image::ImageDecoder::orientation(&mut decoder).unwrap_or(image::metadata::Orientation::NoTransforms);
    let mut img = DynamicImage::from_decoder(decoder).map_err(why)?;
    img.apply_orientation(orientation);
    Ok(img)
}

/// The whole pipeline, built once and shared (it is `Sync`).
pub struct Recognizer {
    classifier: Classifier,
    opts: Options,
}

impl Recognizer {
    pub fn new(opts: Options) -> Result<Self, Error> {
        let classifier = Classifier::new(&opts.classifier)?;
        Ok(Recognizer { classifier, opts })
    }

    pub fn options(&self) -> &Options {
        &self.opts
    }

    pub fn classifier(&self) -> &Classifier {
        &self.classifier
    }

    /// Reads every board in the file at `path`, in reading order.
    pub fn read_file(&self, path: &Path) -> Result<Vec<BoardReading>, Error> {
        let img = load_image(path)?;
        self.recognize(&img)
    }

    /// Finds every board in a decoded picture and reads them, in reading order.
    pub fn recognize(&self, img: &DynamicImage) -> Result<Vec<BoardReading>, Error> {
        if img.width().min(img.height()) < locate::MIN_BOARD_PX as u32 {
            return Err(Error::Input(format!(
                "image too small: {}x{} pixels; a board must be at least {} pixels across",
                img.width(),
                img.height(),
                locate::MIN_BOARD_PX
            )));
        }
        let gray = cells::grey(img);
        let mut found = locate::locate_all_colour(img, &gray, &self.opts.locate);
        if found.is_empty() {
            return Err(Error::NoBoard);
        }
        locate::reading_order(&mut found);
        found.iter().map(|b| self.read_board(&gray, b)).collect()
    }

    /// Reads one located board (steps 2-5). When its coordinates say beyond doubt that the board
    /// lies a row or column off, fit in place once it is moved, and the moved board alternates
    /// light and dark as clearly as the found one ([`MOVE_CONTRAST_SLACK`]), the moved board is
    /// read.
    pub fn read_board(&self, gray: &GrayImage, located: &Located) -> Result<BoardReading, Error> {
        let coords = self.read_coordinates(gray, &located.quad)?;
        if let Some(shift) = coords.map(|c| c.shift).filter(|&s| s != (0, 0)) {
            let moved = Located { quad: orient::shifted(&located.quad, shift), ..located.clone() };
            // Labels a page misplaces (chessground's stock stylesheet sets its file letters 24
            // pixels right of their files) must not pull a clean board onto the page.
            let checkered = locate::window_contrast(gray, &moved.quad)
                >= locate::window_contrast(gray, &located.quad) - MOVE_CONTRAST_SLACK;
            let again = if checkered { self.read_coordinates(gray, &moved.quad)? } else { None };
            if let Some(c) = again.filter(|c| c.shift == (0, 0) && c.orientation().is_some()) {
                let mut reading = self.read_at(gray, &moved, Some(c))?;
                let (dc, dr) = shift;
                let what = match (dc, dr) {
                    (0, _) => format!("one row {}", if dr > 0 { "lower" } else { "higher" }),
                    (_, 0) => format!("one column {}", if dc > 0 { "further right" } else { "further left" }),
                    _ => "one row and one column off".to_string(),
                };
                reading
                    .warnings
                    .insert(0, format!("the board was found {what} than its coordinates say; read where they put it"));
                return Ok(reading);
            }
        }
        self.read_at(gray, located, coords)
    }

    fn read_at(
        &self,
        gray: &GrayImage,
        located: &Located,
        coords: Option<orient::CoordinateReading>,
    ) -> Result<BoardReading, Error> {
        let cut = cells::Cut::new(gray, &located.quad);
        let mut probs = self.classifier.classify(&cells::to_tensor(&cut.board))?;
        self.second_look(&cut, &mut probs)?;
        Ok(self.assemble(probs, coords, located, cut.board))
    }

    /// The second look: the cells whose best class is under [`SECOND_LOOK_BELOW`] are cut again
    /// from the board moved by [`SECOND_LOOK_SHIFT`] pixels along each diagonal, and each gets the
    /// normalised geometric mean of its five readings. A cell that looked unsure because of where
    /// the grid cut it settles; one that is truly ambiguous stays unsure.
    pub fn second_look(&self, cut: &cells::Cut, probs: &mut [ClassProbs]) -> Result<(), Error> {
        if !self.opts.second_look {
            return Ok(());
        }
        let top = |p: &ClassProbs| p.iter().copied().fold(0.0f32, f32::max);
        let unsure: Vec<usize> = (0..probs.len()).filter(|&i| top(&probs[i]) < SECOND_LOOK_BELOW).collect();
        if unsure.is_empty() {
            return Ok(());
        }
        let d = SECOND_LOOK_SHIFT;
        let moves = [(d, d), (-d, d), (d, -d), (-d, -d)];
        // One batch for all four moved boards.
        let parts: Vec<_> = moves.iter().map(|&(dx, dy)| cut.moved_cells(dx, dy, &unsure)).collect();
        let views: Vec<_> = parts.iter().map(|t| t.view()).collect();
        let batch = ndarray::concatenate(ndarray::Axis(0), &views).expect("cells of one shape");
        let again = self.classifier.classify(&batch)?;
        let n = unsure.len();
        for (k, &i) in unsure.iter().enumerate() {
            let mut log = probs[i].map(|p| p.max(1e-7).ln());
            for m in 0..moves.len() {
                for (l, p) in log.iter_mut().zip(again[m * n + k]) {
                    *l += p.max(1e-7).ln();
                }
            }
            let mean = log.map(|l| (l / (moves.len() + 1) as f32).exp());
            let z: f32 = mean.iter().sum();
            probs[i] = mean.map(|p| p / z);
        }
        Ok(())
    }

    /// What the coordinates drawn around the board inside `quad` say of its orientation; `None`
    /// when `--orientation` decides or there is no coordinate model.
    pub fn read_coordinates(&self, gray: &GrayImage, quad: &Quad) -> Result<Option<orient::CoordinateReading>, Error> {
        if self.opts.orientation.is_some() || !self.classifier.reads_coordinates() {
            return Ok(None);
        }
        let n = orient::label_sites().len();
        // Patches too flat to hold a label read as nothing without running the model.
        let mut probs = vec![[0.0; 17]; n];
        probs.iter_mut().for_each(|p| p[0] = 1.0);
        // The labels inside the board first (screens); the band outside (books) only when those
        // do not settle it beyond doubt.
        for part in [0..orient::INNER_SITES, orient::INNER_SITES..n] {
            let start = part.start;
            let cut = orient::label_patches_of(gray, quad, part);
            let (readable, batch) = cut.readable();
            if !readable.is_empty() {
                let Some(read) = self.classifier.read_labels(&batch)? else { return Ok(None) };
                for (i, p) in readable.into_iter().zip(read) {
                    probs[start + i] = p;
                }
            }
            let reading = orient::from_coordinates(&probs);
            if reading.total().abs() >= 2.0 * orient::COORDINATE_EVIDENCE
                && reading.shift == (0, 0)
                && !reading.files_reversed()
            {
                break;
            }
        }
        Ok(Some(orient::from_coordinates(&probs)))
    }

    /// Steps 4 and 5 from the classifier's output for the 64 displayed cells of `located` and
    /// the coordinate reading, if any.
    pub fn assemble(
        &self,
        probs: Vec<ClassProbs>,
        coords: Option<orient::CoordinateReading>,
        located: &Located,
        warped: GrayImage,
    ) -> BoardReading {
        let best: Vec<(usize, f32)> = probs
            .iter()
            .map(|p| p.iter().copied().enumerate().max_by(|a, b| a.1.total_cmp(&b.1)).expect("13 classes"))
            .collect();
        let mut classes: Vec<usize> = best.iter().map(|b| b.0).collect();
        let argmax: [Option<Piece>; 64] = std::array::from_fn(|i| CLASSES[classes[i]]);
        let (orientation, source, orientation_confidence) = match self.opts.orientation {
            Some(o) => (o, OrientationSource::Flag, 1.0),
            None => match coords.and_then(|c| c.orientation()) {
                Some((o, conf)) => (o, OrientationSource::Coordinates, conf),
                None => {
                    let sure: [bool; 64] = std::array::from_fn(|i| best[i].1 >= orient::SURE_ODDITY);
                    orient::from_pieces_and_coordinates(&argmax, &sure, coords.as_ref())
                }
            },
        };
        // A mirrored diagram is named by its own labels, when the ranks and files both say so.
        let files_reversed = source == OrientationSource::Coordinates && coords.is_some_and(|c| c.files_reversed());
        let on: Vec<Square> = (0..64).map(|i| orient::square_shown(i, orientation, files_reversed)).collect();
        let repairs = fen::repair(&probs, &on, &mut classes);
        let displayed: [Option<Piece>; 64] = std::array::from_fn(|i| CLASSES[classes[i]]);
        let board = orient::to_board(&displayed, orientation, files_reversed);
        let mut assembled = fen::assemble(&board, &self.opts.fen);
        assembled.warnings.splice(0..0, repairs);
        if files_reversed {
            assembled.warnings.insert(
                0,
                "the board's files are drawn in reverse (a mirrored diagram); squares are named by its own coordinates"
                    .into(),
            );
        }
        // Squares from a8 to h1.
        let mut squares: Vec<SquareReading> = (0..64)
            .map(|i| SquareReading {
                square: on[i],
                piece: displayed[i],
                p: probs[i][classes[i]],
                probs: probs[i],
                suspect: None,
            })
            .collect();
        let p_of = |sq: Square| squares.iter().find(|s| s.square == sq).map_or(1.0, |s| s.p);
        // On a board editor's layout the counting rules flag nothing: the user drew it so.
        let deliberate_layout = fen::deliberate_layout(&board);
        let suspects = if deliberate_layout { Vec::new() } else { fen::suspects(&board, p_of) };
        let drawn_so = fen::sure_second_king_only(&board, &suspects, p_of, SURE_SECOND_KING);
        for (sq, why) in suspects {
            if let Some(s) = squares.iter_mut().find(|s| s.square == sq) {
                s.suspect = Some(why);
            }
        }
        squares.sort_by_key(|s| (7 - s.square.rank() as u32, s.square.file() as u32));
        let rule_broken = if drawn_so {
            None
        } else {
            squares
                .iter()
                .find_map(|s| s.suspect.clone())
                .or_else(|| fen::kingless_side(&board).map(|c| format!("{c} has no king")))
        };
        BoardReading {
            fen: assembled.fen,
            placement: assembled.placement,
            orientation,
            orientation_source: source,
            orientation_confidence,
            files_reversed,
            coordinates: coords,
            corners: located.quad,
            corners_found: located.corners_found,
            squares,
            min_confidence: self.opts.min_confidence,
            warnings: assembled.warnings,
            deliberate_layout,
            rule_broken,
            warped,
        }
    }
}
