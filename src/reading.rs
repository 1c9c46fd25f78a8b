//! What a read board is: its squares, orientation, warnings and the checks a person should make.

use image::GrayImage;
use shakmaty::{Piece, Square};

use crate::classify::{ClassProbs, CLASSES};
use crate::geometry::{Point, Quad};
use crate::locate::Located;
use crate::orient::{self, Orientation, OrientationSource};
use crate::to_move::{self, Highlight, SideToMove};
use crate::{fen, Options};

/// Default for [`Options::min_confidence`]: squares whose best class has a lower probability are
/// reported as uncertain. Chosen from measurement (`img2fen eval --sweep`,
/// docs/experiments/2026-12-07-flag-threshold-0.6.md): with piece model v0.4, realdata-dev has
/// no misread left and 0.24 needless reports per exactly read board at 0.6 (0.34 at 0.65, over
/// the 0.3 allowed); on the sets derived from it (turned, shaded, cropped) 0.6 still flags every
/// misread, and on the rendered scenes and UI screenshots it flags as many as 0.65 (their
/// unflagged misreads are read at 0.68 or more). 0.65 was the default until then
/// (docs/experiments/2026-11-30-threshold.md).
pub const DEFAULT_MIN_CONFIDENCE: f32 = 0.6;

/// A board is to be checked square by square ([`BoardReading::check_whole_board`]) when at least
/// this many of its squares are read at under [`WHOLE_BOARD_UNSURE_P`]: more likely misread than
/// not. On realdata-dev's legal pictures (and the turned, shaded and cropped sets made from them)
/// no board read exactly has more than two, while rendered photos and screens with confident
/// misreads mostly have three or more (docs/experiments/2026-12-01-whole-board-check.md).
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

/// A physical board whose orientation comes from the pieces with less confidence than this is
/// sent back whole ([`BoardReading::check_whole_board`]): read a quarter or a half turn off,
/// every square is named wrong however surely each was read. On 240 rendered held-out scenes
/// one board shot from beside it was read so, at 66%, with no square uncertain.
pub const PHYSICAL_TURN_SURE: f32 = 0.9;

/// A board whose orientation the pieces (or faint coordinates with them) decide with less
/// confidence than this gets a warning that its side at the bottom is uncertain
/// ([`orientation_uncertain`]). On 400 held-out UI screenshots
/// (docs/experiments/2026-12-03-side-to-move.md) the pieces were right on 144 of 144 boards at
/// 0.95 or more and on 14 of 19 below; on realdata-dev 7 of 66 pictures fall below (all right,
/// sparse or editor-made positions).
pub const ORIENTATION_SURE: f32 = 0.95;

/// Whether an orientation decided by `source` at `confidence`, with what the coordinates said,
/// is uncertain: a guess from the pieces under [`ORIENTATION_SURE`], or a side that coordinates
/// too faint to decide alone ([`orient::COORDINATE_EVIDENCE`]) tipped, whatever the sum of the
/// evidence says. Boards without coordinates show such faint evidence too (text, a piece at the
/// edge): on 1,000 held-out UI screenshots, two boards without labels came out the wrong way up
/// at 96-97% from it (docs/experiments/2026-12-07-ui-boards-orientation.md). Such a board gets a
/// warning; the user's `--orientation` never does.
pub fn orientation_uncertain(
    source: OrientationSource,
    confidence: f32,
    coords: Option<&orient::CoordinateReading>,
) -> bool {
    match source {
        OrientationSource::Flag => false,
        OrientationSource::Pieces => confidence < ORIENTATION_SURE,
        OrientationSource::Coordinates => {
            confidence < ORIENTATION_SURE || coords.is_none_or(|c| c.orientation().is_none())
        }
    }
}

/// A second king of one side, both read at least this surely, on a board that breaks no other
/// counting rule and shows the other side's king, is more likely drawn so than misread: its two
/// kings are flagged, but the board is not sent back as a whole
/// ([`fen::sure_second_king_only`]). On realdata-dev such a photo is read exactly; no legal
/// picture of any measured set misreads a piece as a king this surely with nothing else broken
/// (docs/experiments/2026-12-01-whole-board-check.md).
pub const SURE_SECOND_KING: f32 = 0.95;

/// A square of which at least this share lies beyond the picture's edge is outside
/// ([`BoardReading::mark_outside`]; measured on 8x8 points a square, so two rows of them: 3/16
/// of the square). A board whose corners a tight crop leaves to be extrapolated may be placed a
/// few pixels past the edge (5 px of a 96 px square, testdata's page cut at its board's top)
/// and keeps its squares.
pub const OUTSIDE_SHARE: f64 = 0.15;

/// One square as read.
#[derive(Debug, Clone)]
pub struct SquareReading {
    /// The square, named as the orientation says.
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

/// What kind of board a picture shows: it decides how the cells are cut and which model reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardKind {
    /// A diagram, a screen or a print: pieces drawn inside their squares (flat cells).
    Flat,
    /// A real set on a table: pieces standing up (tall cells, [`crate::cells::tall_cells`]).
    Physical,
}

impl BoardKind {
    /// The name the CLI and JSON use: `flat` or `physical`.
    pub fn name(self) -> &'static str {
        match self {
            BoardKind::Flat => "flat",
            BoardKind::Physical => "physical",
        }
    }
}

/// What read a board's pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadingSource {
    /// The classifier, from the picture.
    Picture,
    /// A PDF's text layer: the glyphs of a chess diagram font ([`crate::pdf::text_layer`]).
    TextLayer,
    /// A text board in the picture (letters or chess symbols in a terminal), read character by
    /// character by the glyph classifier ([`crate::textboard`]).
    Text,
}

impl ReadingSource {
    /// The name the CLI and JSON use: `picture`, `text_layer` or `text`.
    pub fn name(self) -> &'static str {
        match self {
            ReadingSource::Picture => "picture",
            ReadingSource::TextLayer => "text_layer",
            ReadingSource::Text => "text",
        }
    }
}

/// A board read from a picture.
#[derive(Debug, Clone)]
pub struct BoardReading {
    /// What read its pieces: the picture, or a PDF's text layer.
    pub source: ReadingSource,
    /// On a board read from a PDF's text layer, the squares on which the classifier reads
    /// something else in the page's picture (none where the two agree); empty otherwise.
    pub picture_differs: Vec<Square>,
    /// Flat or physical, as the recognizer decided (or was told).
    pub kind: BoardKind,
    /// The probability of that kind, in [0.5, 1] (1 when `--kind` said so or there is no kind
    /// classifier).
    pub kind_confidence: f32,
    /// The learned piece set ([`crate::learn`]) it was read with, by name; `None`: the model's own
    /// reading.
    pub set: Option<String>,
    /// All six FEN fields.
    pub fen: String,
    /// What decided field 2 (and field 4 when it came from the picture), and how surely.
    pub side_to_move: SideToMove,
    /// FEN field 1.
    pub placement: String,
    /// Which side is at the bottom of the picture.
    pub orientation: Orientation,
    /// What decided it.
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
    /// The squares that lie partly outside the picture ([`BoardReading::mark_outside`]): the
    /// board runs off the picture's edge, and what stands on them may be cut off. Each is
    /// uncertain.
    pub outside: Vec<Square>,
    /// The position shows more than four kings of a side: a board editor's layout
    /// ([`fen::deliberate_layout`]), on which the counting rules flag no square.
    pub deliberate_layout: bool,
    /// The first counting rule the position breaks that a misread explains: a suspect's
    /// ([`fen::suspects`]), or one side without a king ([`fen::kingless_side`]); not a second
    /// king read surely with nothing else broken ([`SURE_SECOND_KING`]).
    pub rule_broken: Option<String>,
    /// The warped board the classifier saw ([`crate::cells::BOARD_PX`] square).
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

    /// The lowest probability of any square's class: how sure the least sure square is.
    pub fn min_p(&self) -> f32 {
        self.squares.iter().map(|s| s.p).fold(1.0, f32::min)
    }

    /// Whether a person should check this square: under [`BoardReading::min_confidence`], or the
    /// likeliest misread of a broken counting rule.
    pub fn is_uncertain(&self, s: &SquareReading) -> bool {
        s.p < self.min_confidence || s.suspect.is_some() || self.outside.contains(&s.square)
    }

    /// Finds the squares of which at least [`OUTSIDE_SHARE`] lies beyond the edge of a picture
    /// `width` x `height` pixels large ([`BoardReading::outside`]), and says so in a warning: a
    /// board the picture cuts is reported as cut, its cut squares to be checked, never read
    /// as if it were whole.
    pub fn mark_outside(&mut self, width: u32, height: u32) {
        const N: usize = 8;
        let (w, h) = (width as f64, height as f64);
        let off = |p: &Point| p.x < 0.0 || p.y < 0.0 || p.x > w || p.y > h;
        // A board whose four corners are in the picture lies in it whole (it is convex): the
        // common case is not sampled.
        if !self.corners.0.iter().any(off) {
            self.outside.clear();
            return;
        }
        let to_image = self.corners.board_to_image();
        let share_out = |i: usize| {
            let (col, row) = ((i % 8) as f64, (i / 8) as f64);
            let out = (0..N * N)
                .filter(|k| {
                    let (u, v) = (((k % N) as f64 + 0.5) / N as f64, ((k / N) as f64 + 0.5) / N as f64);
                    off(&to_image.apply(Point::new(col + u, row + v)))
                })
                .count();
            out as f64 / (N * N) as f64
        };
        self.outside = (0..64)
            .filter(|&i| share_out(i) >= OUTSIDE_SHARE)
            .map(|i| orient::square_shown(i, self.orientation, self.files_reversed))
            .collect();
        if self.outside.is_empty() {
            return;
        }
        let n = self.outside.len();
        let names: Vec<String> = self.outside.iter().map(|s| s.to_string()).collect();
        self.warnings.insert(
            0,
            format!(
                "the board runs off the picture's edge: {n} square{} partly outside it ({}); what stands there may be cut off",
                if n == 1 { " lies" } else { "s lie" },
                names.join(" ")
            ),
        );
    }

    /// Whether the side at the bottom is uncertain ([`orientation_uncertain`]): the board then
    /// carries a warning that says so.
    pub fn orientation_uncertain(&self) -> bool {
        orientation_uncertain(self.orientation_source, self.orientation_confidence, self.coordinates.as_ref())
    }

    /// Whether the board is one to check: uncertain squares, a reason to check every square
    /// ([`BoardReading::check_whole_board`]), or an uncertain side at the bottom. What `--strict`
    /// and the review page count.
    pub fn needs_checking(&self) -> bool {
        self.squares.iter().any(|s| self.is_uncertain(s))
            || self.check_whole_board().is_some()
            || self.orientation_uncertain()
    }

    /// The squares to check ([`BoardReading::is_uncertain`]), least confident first.
    pub fn uncertain(&self) -> Vec<&SquareReading> {
        let mut v: Vec<&SquareReading> = self.squares.iter().filter(|s| self.is_uncertain(s)).collect();
        v.sort_by(|a, b| a.p.total_cmp(&b.p));
        v
    }

    /// Why every square of this board should be checked, not only the uncertain ones
    /// ([`whole_board_reason`]), e.g. `3 squares read at under 50%`.
    ///
    /// A physical board with any uncertain square is sent back as a whole too: the physical-board
    /// model is young, and on realdata-physical a board with two squares under 50% and four
    /// more under the threshold had a third misread at 81%
    /// (docs/experiments/2026-12-03-physical-boards.md).
    pub fn check_whole_board(&self) -> Option<String> {
        let unsure = self.squares.iter().filter(|s| s.p < WHOLE_BOARD_UNSURE_P).count();
        whole_board_reason(unsure, self.rule_broken.as_deref(), self.deliberate_layout).or_else(|| {
            if self.kind != BoardKind::Physical {
                return None;
            }
            let n = self.uncertain().len();
            if n > 0 {
                return Some(format!("a physical board with {n} uncertain square{}", if n == 1 { "" } else { "s" }));
            }
            (self.orientation_source == OrientationSource::Pieces && self.orientation_confidence < PHYSICAL_TURN_SURE)
                .then(|| {
                    format!(
                        "a physical board whose side at the bottom is a guess ({:.0}% from the pieces)",
                        self.orientation_confidence * 100.0
                    )
                })
        })
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
}

/// Step 4 on a board's most probable classes `best` (class, probability per cell): the flag,
/// else the coordinates when they decide, else the pieces with faint coordinates added.
fn decide_orientation(
    best: &[(usize, f32)],
    coords: Option<&orient::CoordinateReading>,
    opts: &Options,
    decoding: Decoding,
) -> (Orientation, OrientationSource, f32) {
    if let Some(o) = opts.orientation {
        return (o, OrientationSource::Flag, 1.0);
    }
    if let Some((o, conf)) = coords.and_then(|c| c.orientation()) {
        return (o, OrientationSource::Coordinates, conf);
    }
    if let Decoding::WholeBoard(Some((o, conf))) = decoding {
        return (o, OrientationSource::Pieces, conf);
    }
    let argmax: [Option<Piece>; 64] = std::array::from_fn(|i| CLASSES[best[i].0]);
    let sure: [bool; 64] = std::array::from_fn(|i| best[i].1 >= orient::SURE_ODDITY);
    orient::from_pieces_and_coordinates(&argmax, &sure, coords, opts.white_convention)
}

/// How step 5 turns the classifier's probabilities into classes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Decoding {
    /// Each square its most probable class, then the unsure ones repaired where the board breaks
    /// a counting rule ([`fen::repair`]): pictures of flat boards, read with little doubt.
    SquareBySquare,
    /// The most probable whole position under the material a game allows and where pieces
    /// usually stand ([`fen::decode_whole_board`]): photos of real sets, whose pieces' types are
    /// often in doubt. With the orientation and its probability when the whole-board scores
    /// of the board's turns decided it ([`whole_board_orientation`]); else step 4 decides as
    /// for any board.
    WholeBoard(Option<(Orientation, f32)>),
}

/// How much more probable (in nats) the best of a physical board's four turns must make the
/// whole board than any other turn for that to decide its orientation ([`whole_board_orientation`]).
/// Chosen on rendered held-out scenes (docs/experiments/2026-12-06-physical-whole-board.md).
pub const WHOLE_BOARD_ORIENTATION_MARGIN: f32 = 5.0;

/// Which of a physical board's four turns makes its whole board most probable
/// ([`fen::most_probable_board`]): the cells as found (`probs`) or quarter-turned (`turned`),
/// each with White or Black at the bottom. Returns whether it is the quarter-turned one, the
/// orientation and its probability (the logistic of the margin), when its score beats every
/// other turn's by [`WHOLE_BOARD_ORIENTATION_MARGIN`]; else `None`.
pub fn whole_board_orientation(probs: &[ClassProbs], turned: &[ClassProbs]) -> Option<(bool, Orientation, f32)> {
    let prior = fen::SquarePrior::built_in();
    let mut scores: Vec<(f32, bool, Orientation)> = Vec::with_capacity(4);
    for (is_turned, p) in [(false, probs), (true, turned)] {
        for o in [Orientation::White, Orientation::Black] {
            let on: Vec<Square> = (0..p.len()).map(|i| orient::square_shown(i, o, false)).collect();
            scores.push((fen::most_probable_board(p, &on, prior).1, is_turned, o));
        }
    }
    scores.sort_by(|a, b| b.0.total_cmp(&a.0));
    let margin = scores[0].0 - scores[1].0;
    (margin >= WHOLE_BOARD_ORIENTATION_MARGIN).then(|| (scores[0].1, scores[0].2, 1.0 / (1.0 + (-margin).exp())))
}

/// Steps 4 and 5 from the classifier's output for the 64 displayed cells of `located` and
/// the coordinate reading, if any, under `opts` (orientation flag, FEN fields, threshold), with
/// the pairs of tinted squares found for the side to move ([`to_move::find_highlights`]),
/// decoded as `decoding` says once the orientation is known.
/// Needs no model: [`crate::Recognizer::assemble`] calls it with its own options.
pub fn assemble(
    probs: Vec<ClassProbs>,
    coords: Option<orient::CoordinateReading>,
    located: &Located,
    warped: GrayImage,
    tinted: &[Highlight],
    opts: &Options,
    decoding: Decoding,
) -> BoardReading {
    let best: Vec<(usize, f32)> = probs.iter().map(crate::classify::most_probable).collect();
    let mut classes: Vec<usize> = best.iter().map(|b| b.0).collect();
    let (orientation, source, orientation_confidence) = decide_orientation(&best, coords.as_ref(), opts, decoding);
    // A mirrored diagram is named by its own labels, when the ranks and files both say so.
    let files_reversed = source == OrientationSource::Coordinates && coords.is_some_and(|c| c.files_reversed());
    let on: Vec<Square> = (0..64).map(|i| orient::square_shown(i, orientation, files_reversed)).collect();
    let repairs = match decoding {
        Decoding::SquareBySquare => fen::repair(&probs, &on, &mut classes),
        Decoding::WholeBoard(_) => fen::decode_whole_board(&probs, &on, &mut classes, fen::SquarePrior::built_in()),
    };
    let displayed: [Option<Piece>; 64] = std::array::from_fn(|i| CLASSES[classes[i]]);
    let board = orient::to_board(&displayed, orientation, files_reversed);
    let probs_of = |sq: Square| on.iter().position(|&s| s == sq).map_or([0.0; 13], |i| probs[i]);
    let tinted: Vec<([Square; 2], f32)> = tinted.iter().map(|h| (h.cells.map(|c| on[c]), h.strength)).collect();
    let side_to_move = to_move::decide(&board, &tinted, probs_of, &opts.fen);
    let fen_opts = fen::FenOptions {
        turn: side_to_move.color,
        en_passant: if opts.fen.en_passant_from_picture { side_to_move.en_passant } else { opts.fen.en_passant },
        ..opts.fen.clone()
    };
    let mut assembled = fen::assemble(&board, &fen_opts);
    assembled.warnings.extend(side_to_move.warnings.iter().cloned());
    assembled.warnings.splice(0..0, repairs);
    if orientation_uncertain(source, orientation_confidence, coords.as_ref()) {
        let witness = match source {
            OrientationSource::Coordinates => "from coordinates too faint to read surely, with the pieces",
            _ => "from where the pieces stand, no coordinates to decide it",
        };
        assembled.warnings.insert(
            0,
            format!(
                "which side is at the bottom is uncertain ({} at {:.0}%, {witness}): pass --orientation if you know it",
                orientation.name(),
                orientation_confidence * 100.0
            ),
        );
    }
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
        source: ReadingSource::Picture,
        picture_differs: Vec::new(),
        kind: BoardKind::Flat,
        kind_confidence: 1.0,
        set: None,
        fen: assembled.fen,
        side_to_move,
        placement: assembled.placement,
        orientation,
        orientation_source: source,
        orientation_confidence,
        files_reversed,
        coordinates: coords,
        corners: located.quad,
        corners_found: located.corners_found,
        squares,
        min_confidence: opts.min_confidence,
        warnings: assembled.warnings,
        outside: Vec::new(),
        deliberate_layout,
        rule_broken,
        warped,
    }
}
