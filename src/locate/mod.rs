//! Step 1: find the board. Returns the four outer corners of every chessboard in an image.
//!
//! The method looks for what every 2D chessboard has and little else has: a lattice of
//! *X-corners*, the points where two light and two dark squares meet diagonally. Pieces sit in
//! the middle of their squares, so most of the 49 interior corners stay visible even on a full
//! board.
//!
//! 1. On a working copy no larger than [`WORK_MAX_SIDE`] pixels and two coarser ones (plus the
//!    full picture when it was halved and is still large, [`FULL_LEVEL_MIN_SIDE`], or the picture
//!    at half the working reduction when it was reduced more), an X-corner
//!    score is computed at every pixel from four box means around it (integral image): the two
//!    diagonal boxes must both be lighter (or both darker) than both off-diagonal boxes.
//!    Straight edges, single corners and text score zero.
//! 2. Peaks are linked to their nearest peak of opposite polarity to the right, left, above and
//!    below; mutual links of locally consistent length form lattices, whose nodes get integer
//!    coordinates by a breadth-first walk.
//! 3. Each lattice with enough nodes is cut to a 7x7 window of interior corners: the window
//!    (and its neighbours up to three steps away) whose 64 squares most clearly alternate light
//!    and dark, measured along the squares' borders. Its corners are refined to sub-pixel
//!    positions at full resolution, and a homography from board coordinates to pixels is fitted
//!    to them; the refined grid checks the choice again a step either way (two steps when that
//!    window is clearly better), refitting from itself when it moves. The outer corners are
//!    that homography at the board's corners, so frames, margins and coordinates drawn outside
//!    the board are never taken for the board.
//! 4. When no lattice makes a board, boards drawn inside an upright square ink frame are looked
//!    for instead (a faint hatch in a PDF viewer gives X-corners too weak to link): the frame's
//!    inner edges, placed at full resolution, are the board's, if its 64 squares alternate.

use std::borrow::Cow;
use std::collections::{BTreeMap, VecDeque};

use image::GrayImage;

use crate::geometry::{Homography, Point, Quad};
use crate::imageops::{box_downscale, halve_smooth, min_downscale, Integral};

/// The working copy's longest side, in pixels. Larger images are box-downscaled by an integer
/// factor before the search; corners are then refined at full resolution.
pub const WORK_MAX_SIDE: u32 = 1024;

/// Largest RMS distance of the refined corners from the fitted grid, in squares.
const MAX_RMS_SQUARES: f64 = 0.07;

/// A picture halved for the working copy is also searched at full resolution when its short
/// side is longer than this (photos and page scans, not 1920x1080 screenshots); one reduced
/// more, at half its reduction.
pub const FULL_LEVEL_MIN_SIDE: u32 = 1100;

/// Pyramid levels searched at least (each half the size of the one before), while the last
/// one's short side is at least [`MIN_HALVED_SIDE`].
const SCALES: usize = 3;
const MIN_HALVED_SIDE: u32 = 96;
/// Beyond [`SCALES`], the pyramid is halved again while a board filling the picture keeps
/// squares of at least 10 pixels: a large board whose squares are hatched or textured needs a
/// level where they are about a dozen pixels, whatever the picture's size (a diagram cropped
/// tight from a 600 dpi scan), and where the hatching is gone (on the low-passed levels,
/// [`on_smoothed_levels`]). When this was 14, 2x2 means alone, a turned 16x16 grid aliased
/// into a lattice of its own at 10 px squares; the found-board checks turn such lattices down.
const MIN_COARSE_SQUARE: u32 = 10;

/// In the search on low-passed levels ([`on_smoothed_levels`]), the levels reduced this many
/// times or more: they are there for large boards, whose hatched or textured squares must come
/// out plain, not as a moire. Finer levels keep 2x2 means, whose sharper corners a faint board
/// needs (a faint hatch shown at 3x lost its corners at 4x to the low-pass).
const SMOOTH_FROM_K: usize = 8;

/// Smallest board accepted, in pixels per side: squares of 7 px, so that a board of about 8 px
/// squares (the smallest issue 31 asks for) is kept when it is found a little small or turned
/// in a photo.
pub const MIN_BOARD_PX: f64 = 56.0;

/// With `IMG2FEN_TRACE_LOCATE` set, the finder says on stderr what it saw and rejected.
macro_rules! trace {
    ($($arg:tt)*) => {
        if *TRACE.get_or_init(|| std::env::var_os("IMG2FEN_TRACE_LOCATE").is_some()) {
            eprintln!($($arg)*);
        }
    };
}
static TRACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

// Declared after `trace!`, which they use.
mod checker;
mod frames;
mod lattice;
mod refine;
mod slots;
#[cfg(test)]
mod tests;
mod tilted;
mod window;
mod xcorners;

use checker::*;
use frames::*;
use lattice::*;
use refine::*;
pub use slots::empty_slots;
use tilted::*;
pub use window::window_contrast;
use window::*;
use xcorners::*;

/// A lattice spanning more than this many steps reaches beyond one board and its edge (a board
/// spans 6 steps, 8 with its edge).
const MAX_SPAN: i32 = 9;

/// Least [`checker_contrast`] of a board (1: every square clearly its colour), on the working
/// level and then on the refined grid at full resolution.
const MIN_CHECKER_CONTRAST: f64 = 0.4;
const MIN_REFINED_CONTRAST: f64 = 0.6;

/// How much more clearly a window two steps from the refined grid must alternate than the best
/// window within one step before the board is moved there: text beside a board can line up with
/// its squares for two files, but so can a second board beside it.
const FAR_SHIFT_MARGIN: f64 = 0.05;
/// On a real board the window that fits alternates more clearly than the same window a rank or
/// a file over, which takes in a row of background. Blurred text or a faint lined board gives
/// windows that all alternate about as well: when the best one alternates less than
/// `CLEAR_CONTRAST` and beats every other by less than `MIN_SHIFT_MARGIN`, the position is a
/// guess and the window is not taken (a finer level or another lattice may place the board).
const CLEAR_CONTRAST: f64 = 0.8;
const MIN_SHIFT_MARGIN: f64 = 0.03;

/// Tunable thresholds of the board finder.
#[derive(Debug, Clone, Copy)]
pub struct LocateOptions {
    /// Minimum X-corner contrast (grey levels, 0-255) for a peak.
    pub min_contrast: f32,
    /// Minimum number of the 49 interior corners that must be found for a board.
    pub min_corners: usize,
    /// Whether a picture where nothing else finds a board is searched again turned by
    /// [`TURNS_DEGREES`] ([`turned`]): a photo taken from a corner of the board shows it as a
    /// diamond, whose X-corners the upright box score does not see. Off for PDF pages, whose
    /// diagrams are printed upright.
    pub turned: bool,
}

impl Default for LocateOptions {
    fn default() -> Self {
        LocateOptions { min_contrast: 4.0, min_corners: 20, turned: true }
    }
}

/// A board found in an image.
#[derive(Debug, Clone)]
pub struct Located {
    /// Outer corners in image pixels: top-left, top-right, bottom-right, bottom-left as displayed.
    pub quad: Quad,
    /// How many of the 49 interior corners were seen (0-49).
    pub corners_found: usize,
    /// Root-mean-square distance in pixels between the refined corners and the fitted grid.
    pub rms_error: f64,
}

impl Located {
    /// Mean square size in pixels.
    pub fn square_size(&self) -> f64 {
        self.quad.mean_side() / 8.0
    }
}

/// Two overlapping boards whose sides differ by less than this ratio are one board found twice.
const SAME_BOARD_SIZE: f64 = 0.8;

/// Finds every board in `img`, best first (most interior corners seen, then largest).
pub fn locate_all(img: &GrayImage, opts: &LocateOptions) -> Vec<Located> {
    let (w, h) = img.dimensions();
    if w < 24 || h < 24 {
        return Vec::new();
    }
    let mut found = slots::add_boards_in_slots(img, lattices_and_frames(img, opts), opts);
    best_first(&mut found);
    found
}

/// The boards of `img` fitted to its X-corner lattices and found in frames beside them (or,
/// with none, frames anywhere), kept as [`kept_boards`] keeps them.
fn lattices_and_frames(img: &GrayImage, opts: &LocateOptions) -> Vec<Located> {
    let levels = pyramid(img, false);
    let found = lattice_boards(&levels, opts);
    let found = add_framed_boards(img, &levels, found, opts);
    kept_boards(img, found)
}

/// The boards of `found` that are one each, whole 8x8 boards, and whose squares' centres are
/// their shade, best first (most interior corners seen, then largest).
fn kept_boards(img: &GrayImage, found: Vec<Located>) -> Vec<Located> {
    let mut kept = only_whole_boards(img, one_per_board(img, found));
    kept.retain(|b| centres_agree(img, &b.quad) >= MIN_CENTRES_AGREE_UPRIGHT);
    best_first(&mut kept);
    kept
}

/// Sorts boards best first: most interior corners seen, then largest.
fn best_first(boards: &mut [Located]) {
    boards
        .sort_by(|a, b| b.corners_found.cmp(&a.corners_found).then(b.quad.mean_side().total_cmp(&a.quad.mean_side())));
}

/// The boards of `img` searched again on its coarse levels low-passed before each halving
/// ([`halve_smooth`], from [`SMOOTH_FROM_K`] on): the lattice search alone, for pictures where
/// nothing else found a board. 2x2 means pass a fine hatch on as a moire: a diagram cropped
/// tight from a scan and shown at 3x, its hatching's period of 15 pixels two at 8x, gives a
/// lattice askew of its squares there, and none finer holds enough of its corners past the
/// hatch and the pieces. The low-pass is not the first search: it costs a faint board at those
/// levels its corners (a faint hatch at 6x, found on means, was lost).
fn on_smoothed_levels(img: &GrayImage, opts: &LocateOptions) -> Vec<Located> {
    let levels: Vec<Level> = pyramid(img, true).into_iter().filter(|l| l.k >= SMOOTH_FROM_K).collect();
    if levels.is_empty() {
        return Vec::new();
    }
    let found = kept_boards(img, lattice_boards(&levels, opts));
    if !found.is_empty() {
        trace!("found on the low-passed levels");
    }
    found
}

/// One level of the search: the picture reduced `k` times, beside the full picture it came
/// from (where corners are refined and squares measured).
pub(super) struct Level<'a> {
    /// The picture at full resolution.
    pub(super) full: &'a GrayImage,
    small: Cow<'a, GrayImage>,
    /// How many full-resolution pixels a pixel of the reduced picture spans, each way.
    pub(super) k: usize,
}

impl<'a> Level<'a> {
    /// `full` reduced by block means (itself when `k` is 1).
    pub(super) fn means(full: &'a GrayImage, k: usize) -> Self {
        let small = if k == 1 { Cow::Borrowed(full) } else { Cow::Owned(box_downscale(full, k as u32)) };
        Level { full, small, k }
    }

    /// `full` reduced to each block's darkest pixel: a frame line stays ink at any reduction.
    pub(super) fn darkest(full: &'a GrayImage, k: usize) -> Self {
        Level { full, small: Cow::Owned(min_downscale(full, k)), k }
    }

    /// This level halved again: by 2x2 means, or with `smooth` low-passed first
    /// ([`halve_smooth`]) from [`SMOOTH_FROM_K`] on.
    fn halved(&self, smooth: bool) -> Level<'a> {
        let k = self.k * 2;
        let small =
            if smooth && k >= SMOOTH_FROM_K { halve_smooth(&self.small) } else { box_downscale(&self.small, 2) };
        Level { full: self.full, small: Cow::Owned(small), k }
    }

    /// The same level, borrowed.
    fn borrowed(&self) -> Level<'_> {
        Level { full: self.full, small: Cow::Borrowed(&self.small), k: self.k }
    }

    /// The reduced picture.
    pub(super) fn small(&self) -> &GrayImage {
        &self.small
    }
}

/// How many times the working copy is reduced: its longest side at most [`WORK_MAX_SIDE`].
fn work_reduction(img: &GrayImage) -> usize {
    img.width().max(img.height()).div_ceil(WORK_MAX_SIDE).max(1) as usize
}

/// The levels searched for lattices, finest first ([`SCALES`], [`MIN_COARSE_SQUARE`]): the
/// finest finds small boards; coarser ones average away hatching and texture that breaks the
/// lattice of large boards.
fn pyramid(img: &GrayImage, smooth: bool) -> Vec<Level<'_>> {
    let k0 = work_reduction(img);
    let mut levels = vec![Level::means(img, k0)];
    loop {
        let last = levels.last().expect("one level");
        let short = last.small.width().min(last.small.height());
        let more = if levels.len() < SCALES { short >= MIN_HALVED_SIDE } else { short / 2 >= 8 * MIN_COARSE_SQUARE };
        if !more {
            break;
        }
        levels.push(last.halved(smooth));
    }
    // A picture reduced for the working copy whose short side is still large is a photo or a
    // page scan, where a board can be small in the frame and blurred: it is searched at half the
    // working reduction too, last (at full resolution when it was halved; a 1920x1080
    // screenshot is not: its boards are large). A 300 dpi page is reduced four or five times,
    // and its diagrams' 50-65 px squares shrink to 10-16 px on the working copy, where their
    // pieces hide too many corners for a lattice. The low-passed pyramid is searched only from
    // SMOOTH_FROM_K on (`on_smoothed_levels`): that finer level would be reduced for nothing.
    if !smooth && k0 >= 2 && img.width().min(img.height()) > FULL_LEVEL_MIN_SIDE {
        levels.insert(0, Level::means(img, k0 / 2));
    }
    levels
}

/// The boards fitted to the X-corner lattices of every level, coarsest level first, so that a
/// board already fitted is not fitted again from a finer level (nor a pattern inside its
/// squares).
fn lattice_boards(levels: &[Level], opts: &LocateOptions) -> Vec<Located> {
    let mut found: Vec<Located> = Vec::new();
    // The nodes of the lattice each board in `found` was fitted from.
    let mut sources: Vec<usize> = Vec::new();
    for level in levels.iter().rev() {
        let (ww, wh) = level.small.dimensions();
        if ww.min(wh) < 48 {
            continue;
        }
        let k = level.k as f64;
        let peaks = find_peaks(&level.small, 3, 1, opts.min_contrast);
        trace!("level k={} {}x{} peaks={}", level.k, ww, wh, peaks.len());
        for lat in merge_fragments(link_lattices(&peaks)) {
            trace_lattice(&lat, k);
            if lat.len() < opts.min_corners.min(49) {
                continue;
            }
            if found_already(&found, &sources, lattice_centre(&lat, k), lat.len()) {
                continue;
            }
            let Some(board) = fit_board(level, &lat, opts, &found) else { continue };
            let rest = beyond_board(&lat, &board, k).filter(|rest| rest.len() >= opts.min_corners.min(49));
            found.push(board);
            sources.push(lat.len());
            if let Some(rest) = rest {
                trace!(" the rest of the lattice: {} nodes", rest.len());
                let c = lattice_centre(&rest, k);
                if !found.iter().any(|b| b.quad.contains(c)) {
                    if let Some(b) = fit_board(level, &rest, opts, &found) {
                        found.push(b);
                        sources.push(rest.len());
                    }
                }
            }
        }
    }
    found
}

/// With `IMG2FEN_TRACE_LOCATE` set: a lattice's size, span and centre.
fn trace_lattice(lat: &Lattice, k: f64) {
    // The span is measured only when tracing is on.
    let span = |f: fn(&(i32, i32, Point)) -> i32| {
        let (lo, hi) = minmax(lat.nodes.iter().map(f));
        hi - lo
    };
    trace!(
        " lattice n={} span {}x{} centre {:?}",
        lat.nodes.len(),
        span(|n| n.0),
        span(|n| n.1),
        lattice_centre(lat, k)
    );
}

/// A lattice wider than a board may run on into a second board beside it (two boards a gap of
/// less than a square apart, in one rhythm): what is left of it once `board` is taken out.
fn beyond_board(lat: &Lattice, board: &Located, k: f64) -> Option<Lattice> {
    let to_board = board.quad.board_to_image().inverse().filter(|_| core_span(&lat.nodes) > MAX_SPAN)?;
    let on_board = |p: Point| (-0.5..=8.5).contains(&p.x) && (-0.5..=8.5).contains(&p.y);
    let nodes =
        lat.nodes.iter().copied().filter(|n| !on_board(to_board.apply(Point::new(n.2.x * k, n.2.y * k)))).collect();
    Some(Lattice { nodes, positive0: lat.positive0 })
}

/// The boards drawn inside frames, added to the lattices' `found`: upright frames (beside the
/// boards found, or in their place when there are none) and frames at an angle.
fn add_framed_boards(img: &GrayImage, levels: &[Level], mut found: Vec<Located>, opts: &LocateOptions) -> Vec<Located> {
    let k0 = work_reduction(img);
    // Frames beside the boards found are searched on a copy reduced twice as much as the
    // working one, which halves the cost.
    let framing = Level::darkest(img, 2 * k0);
    // On a halftone page the paper's dots put ink in most blocks of that reduction, and a
    // frame line is lost among them; there frames are also searched on block means (the
    // working levels' own), where the dots average out to paper and a frame of a few pixels
    // stays darker. A dark screen is ink in both.
    let means = |k: usize| levels.iter().find(|l| l.k == k).map_or_else(|| Level::means(img, k), Level::borrowed);
    let ink = ink_share(framing.small());
    let boxed = (ink > HALFTONE_INK).then(|| means(framing.k)).filter(|m| ink_share(m.small()) < HALFTONE_MEAN_INK);
    if boxed.is_some() {
        trace!(" halftone: {ink:.2} of the darkest-pixel reduction is ink");
    }
    if found.is_empty() {
        // No lattice made a board: perhaps boards inside frames whose squares are too faint
        // for X-corners (a light hatch in a PDF viewer), searched at the working reduction.
        found = framed_boards(&Level::darkest(img, k0), FRAME_INK);
        if boxed.is_some() && found.is_empty() {
            let means = means(k0);
            found = framed_boards(&means, paper_ink(means.small()));
        }
        if found.is_empty() {
            // On the coarsest level: the search is for regions a board wide, and text
            // there runs together into a few blocks.
            found = boards_on_plain_ground(levels.last().expect("one level"));
        }
    } else {
        add_frames_beside(&mut found, &framing, boxed.as_ref());
    }
    // And frames at an angle: a page photographed or scanned turned. Boards on one page or
    // screen share its angle, so a picture whose boards found are all upright is not searched.
    // On a halftone page the paper's dots join every frame to its surroundings in the
    // darkest-pixel reduction, so frames are traced on the block means as well.
    if found.is_empty() || found.iter().any(|b| b.quad.tilt() > MAX_UPRIGHT_TILT) {
        let mut known: Vec<Quad> = found.iter().map(|b| b.quad).collect();
        let mut tilted = tilted_frames(&framing, TILTED_INK_MARGIN, opts, &known);
        known.extend(tilted.iter().map(|b| b.quad));
        if let Some(means) = &boxed {
            tilted.extend(tilted_frames(means, TILTED_MEAN_INK_MARGIN, opts, &known));
        }
        // A frame's board at the place of one found already replaces it: tilted_frames gives
        // one there only when the board found sticks out of the frame.
        for t in tilted {
            if found.iter().any(|b| same_place(&b.quad, &t.quad)) {
                trace!(" tilted frame {:?} replaces the board that sticks out of it", t.quad);
                found.retain(|b| !same_place(&b.quad, &t.quad));
            }
            found.push(t);
        }
    }
    found
}

/// The share of a picture's pixels that are ink ([`FRAME_INK`]).
fn ink_share(im: &GrayImage) -> f64 {
    im.as_raw().iter().filter(|&&g| g < FRAME_INK).count() as f64 / im.as_raw().len().max(1) as f64
}

/// Beside the boards found, a framed diagram whose pieces hide too many corners for a lattice
/// (a dense position on a book page). A frame around a board found is the same board: it
/// replaces the lattice's only when its squares alternate clearly better (a lattice that placed
/// a faint board askew).
fn add_frames_beside(found: &mut Vec<Located>, framing: &Level, boxed: Option<&Level>) {
    let img = framing.full;
    let mut frames = framed_boards(framing, FRAME_INK);
    if let Some(means) = boxed {
        for f in framed_boards(means, paper_ink(means.small())) {
            if !frames.iter().any(|o| same_place(&o.quad, &f.quad)) {
                frames.push(f);
            }
        }
    }
    for f in frames {
        let overlaps = |b: &Located| same_place(&b.quad, &f.quad);
        if !found.iter().any(overlaps) {
            found.push(f);
            continue;
        }
        let clearer = board_contrast(img, &f.quad) - FRAME_PREFERENCE_MARGIN;
        if found.iter().filter(|b| overlaps(b)).all(|b| board_contrast(img, &b.quad) < clearer) {
            trace!(" frame {:?} replaces the lattice's board", f.quad);
            found.retain(|b| !overlaps(b));
            found.push(f);
        }
    }
}

/// A picture is searched as a halftone page ([`locate_all`]) when more than this share of its
/// darkest-pixel reduction is ink, and less than [`HALFTONE_MEAN_INK`] of its block means.
const HALFTONE_INK: f64 = 0.4;
const HALFTONE_MEAN_INK: f64 = 0.1;

/// Ink on a halftone page's block means: darker than [`HALFTONE_FRAME_LEVEL`] of the median
/// block (the paper, dots averaged in).
fn paper_ink(means: &GrayImage) -> u8 {
    let mut levels = means.as_raw().clone();
    let mid = levels.len() / 2;
    let (_, &mut paper, _) = levels.select_nth_unstable(mid);
    (paper as f64 * HALFTONE_FRAME_LEVEL) as u8
}

/// See [`paper_ink`]: a frame line a few pixels wide, averaged with the dots beside it in a
/// block, is at most this share of the paper's level.
const HALFTONE_FRAME_LEVEL: f64 = 0.7;

/// Whether a lattice of `nodes` nodes centred at `c` is a board in `found` again (or a pattern
/// in its squares), each fitted from a lattice of `sources` nodes: it lies inside one, unless
/// that board came from a lattice of fewer than [`REFIT_BELOW`] nodes and this one is larger. A
/// fragment of a few rows on a coarse level can place its board a file off, which a finer
/// level's fuller lattice places right ([`one_per_board`] keeps the clearer of the two).
fn found_already(found: &[Located], sources: &[usize], c: Point, nodes: usize) -> bool {
    found.iter().zip(sources).any(|(b, &n)| b.quad.contains(c) && !(n < REFIT_BELOW && nodes > n))
}

/// Boards fitted from lattices of fewer nodes than this are fitted again from a larger lattice
/// of a finer level ([`locate_all`]).
const REFIT_BELOW: usize = 40;

/// The candidates less those that are a board already kept. Largest first; a candidate whose
/// centre lies inside a kept board is the same board found again, or a pattern inside one of
/// its squares (hatching). Found again at about its size (by another level's lattice, which
/// may place it a rank or two off), the one whose squares alternate clearly better is kept.
fn one_per_board(img: &GrayImage, mut found: Vec<Located>) -> Vec<Located> {
    found.sort_by(|a, b| b.quad.mean_side().total_cmp(&a.quad.mean_side()));
    let mut kept: Vec<Located> = Vec::new();
    for b in found {
        let c = b.quad.centre();
        match kept.iter().position(|o| o.quad.contains(c)) {
            None => kept.push(b),
            Some(i) if b.quad.mean_side() >= SAME_BOARD_SIZE * kept[i].quad.mean_side() => {
                if board_contrast(img, &b.quad) >= board_contrast(img, &kept[i].quad) + FRAME_PREFERENCE_MARGIN {
                    trace!(" {:?} replaces {:?}, which it overlaps", b.quad, kept[i].quad);
                    kept[i] = b;
                }
            }
            Some(_) => {}
        }
    }
    kept
}

/// The boards that are whole 8x8 chess boards: a grid of alternating squares is one only when
/// its checker ends one square beyond its 7x7 inner corners on every side ([`Wholeness`]).
/// - An 8x8 window of a draughts board, a tiled floor or a tablecloth goes on beyond at least one
///   side, by more than [`MAX_CHECKER_BEYOND`]. A side whose row beyond lies on another board
///   found, a gap of at least [`MIN_BOARD_GAP`] away (two diagrams in step, a fraction of a
///   square apart), does not count; two windows that abut are one grid.
/// - A window laid over a grid smaller than 8x8 has an edge rank or file of background: it does
///   not alternate ([`MIN_EDGE_LINE`]), or alternates faintly and looks like what lies beyond it
///   ([`FAINT_EDGE_LINE`], [`MAX_EDGE_VS_BEYOND`]).
///
/// A board left out can no longer excuse its neighbours: the test runs again on what is kept
/// until nothing more is left out (two windows of one floor do not vouch for each other).
fn only_whole_boards(img: &GrayImage, boards: Vec<Located>) -> Vec<Located> {
    let measured: Vec<Option<Wholeness>> = boards.iter().map(|b| wholeness(img, &b.quad)).collect();
    for (b, w) in boards.iter().zip(&measured) {
        if let Some(w) = w {
            trace!(
                " {:?}: weakest line {:.2}, beyond {:.2?}, edge lines {:.2?}, edge vs beyond {:.2?}",
                b.quad,
                w.weakest_line,
                w.beyond,
                w.edge_line,
                w.edge_vs_beyond
            );
        }
    }
    let quads: Vec<Quad> = boards.iter().map(|b| b.quad).collect();
    let mut kept = vec![true; boards.len()];
    loop {
        let next: Vec<bool> = (0..boards.len())
            .map(|i| kept[i] && measured[i].as_ref().is_none_or(|w| is_whole(w, i, &quads, &kept)))
            .collect();
        if next == kept {
            break;
        }
        kept = next;
    }
    boards.into_iter().zip(kept).filter(|&(_, k)| k).map(|(b, _)| b).collect()
}

/// One board's test in [`only_whole_boards`]: the `i`th of `quads`, measured `w`, with the
/// boards still `kept` as its possible neighbours.
fn is_whole(w: &Wholeness, i: usize, quads: &[Quad], kept: &[bool]) -> bool {
    let quad = &quads[i];
    let excused = |side: usize| beside_another_board(quad, side, quads, |j| j != i && kept[j]);
    let goes_on = (0..4).find(|&s| w.beyond[s] > MAX_CHECKER_BEYOND && !excused(s));
    let background = (0..4).find(|&s| {
        w.edge_line[s] < MIN_EDGE_LINE || (w.edge_line[s] < FAINT_EDGE_LINE && w.edge_vs_beyond[s] < MAX_EDGE_VS_BEYOND)
    });
    let name = |side: usize| ["top", "bottom", "left", "right"][side];
    if let Some(side) = goes_on {
        trace!(" {:?}: the checker goes on beyond its {} side: not a chess board", quad, name(side));
    } else if let Some(side) = background {
        trace!(" {:?}: its {} line is background: not a chess board", quad, name(side));
    }
    goes_on.is_none() && background.is_none()
}

/// Whether the row of squares beyond `side` (top, bottom, left, right) of the board at `quad`
/// lies on another of `quads` (those whose index `other` accepts), with a gap of at least
/// [`MIN_BOARD_GAP`] squares between the two boards.
fn beside_another_board(quad: &Quad, side: usize, quads: &[Quad], other: impl Fn(usize) -> bool) -> bool {
    let h = quad.board_to_image();
    let [(bx, by), (ex, ey)] =
        [[(4.0, -0.5), (4.0, 0.0)], [(4.0, 8.5), (4.0, 8.0)], [(-0.5, 4.0), (0.0, 4.0)], [(8.5, 4.0), (8.0, 4.0)]]
            [side];
    let (beyond, edge) = (h.apply(Point::new(bx, by)), h.apply(Point::new(ex, ey)));
    quads.iter().enumerate().filter(|&(j, q)| other(j) && q.contains(beyond)).any(|(_, q)| {
        // This board's edge, in the other board's squares: its distance from the other's edge.
        let Some(to_other) = q.board_to_image().inverse() else { return false };
        let p = to_other.apply(edge);
        let gap = [p.x, 8.0 - p.x, p.y, 8.0 - p.y].into_iter().map(f64::abs).fold(f64::INFINITY, f64::min);
        gap >= MIN_BOARD_GAP
    })
}

/// How clearly the checker may go on beyond a side of a chess board ([`Wholeness::beyond`]):
/// real boards stay under 0.25 on every side with nothing in step beside them (realdata-dev,
/// realdata-physical, rendered scenes); an 8x8 window of a larger grid reaches 0.7 to 1.
const MAX_CHECKER_BEYOND: f64 = 0.5;
/// Two boards found side by side are two diagrams only with a gap of at least this many squares
/// between them; windows that abut are one larger grid.
const MIN_BOARD_GAP: f64 = 0.08;
/// An edge rank or file of a chess board alternates: the weakest measured on real and rendered
/// boards was 0.14 (a busy, faint diagram), windows over smaller grids give 0 to 0.01.
const MIN_EDGE_LINE: f64 = 0.1;
/// An edge line under this that differs from the row beyond it by less than
/// [`MAX_EDGE_VS_BEYOND`] of the checker's contrast is background too.
const FAINT_EDGE_LINE: f64 = 0.2;
const MAX_EDGE_VS_BEYOND: f64 = 0.25;

/// Finds every board in a decoded picture whose grey levels are `grey` ([`crate::cells::grey`]):
/// on the grey levels first; when no board is found there, on each colour channel of an RGB
/// picture in turn (a board whose two square colours differ in hue more than in brightness,
/// light blue and cream squares photographed, can alternate too faintly in grey and clearly in
/// one channel); then on the grey coarse levels low-passed (`on_smoothed_levels`); then, for a
/// small picture, at twice its size (`enlarged`); then on the grey levels set on a white margin
/// (`on_a_margin`); then a square picture as the board itself (`whole_picture`); and then, with
/// [`LocateOptions::turned`], on the grey levels turned ([`turned`]). Only pictures without a
/// board found pay for the extra searches; the cells are still cut from the grey levels.
pub fn locate_all_colour(img: &image::DynamicImage, grey: &GrayImage, opts: &LocateOptions) -> Vec<Located> {
    let found = locate_all(grey, opts);
    if !found.is_empty() {
        return found;
    }
    if let image::DynamicImage::ImageRgb8(rgb) = img {
        for c in 0..3 {
            let channel = GrayImage::from_raw(
                rgb.width(),
                rgb.height(),
                rgb.as_raw().iter().skip(c).step_by(3).copied().collect(),
            )
            .expect("one byte a pixel");
            let found = locate_all(&channel, opts);
            if !found.is_empty() {
                trace!("found on colour channel {c}");
                return found;
            }
        }
    }
    let found = on_smoothed_levels(grey, opts);
    if !found.is_empty() {
        return found;
    }
    let found = enlarged(grey, opts);
    if !found.is_empty() {
        return found;
    }
    let found = on_a_margin(grey, opts);
    if !found.is_empty() {
        return found;
    }
    let found = whole_picture(grey);
    if !found.is_empty() || !opts.turned {
        return found;
    }
    // An upright grid larger than a board's (its 49 inner corners and the ring where its squares
    // meet the frame) is a floor, a draughts board, a crossword: turned, it gives only lattices
    // of the wrong pitch. Boards a photo shows turned leave upright lattices of at most 38 nodes
    // on rendered scenes; such grids, 184 to 283.
    if nearest_grid(grey, opts).is_some_and(|g| g.corners.len() > MAX_BOARD_GRID) {
        return found;
    }
    turned(grey, opts)
}

/// The turns, in degrees, at which [`turned`] searches a picture again. The upright search finds
/// boards turned up to about 15 degrees in the picture (a board turned 15-30 degrees was found in
/// 22 of 72 rendered photos, one turned 30-45 degrees in 5 of 41); with copies turned by 30 and 60
/// degrees every board lies within 15 degrees of upright in one of the three.
pub const TURNS_DEGREES: [f32; 2] = [30.0, 60.0];

/// The stretches along the picture's height at which [`turned`] searches it again, upright and
/// turned by each of [`TURNS_DEGREES`], after the turns alone. A camera 40-60 degrees from
/// vertical shows a board's squares about half as high as wide, and its X-corners as narrow
/// crosses that the box score, which wants a cross's arms near the picture's axes or
/// diagonals, misses; stretched, the board looks as from overhead, turned. On 240 rendered
/// held-out photos, 207 boards found -> 225 with 1.7 (227 with 1.5 and 2.0, at twice the cost
/// to a picture without a board; docs/experiments/2026-12-07-stretched-search.md).
pub const STRETCHES: [f32; 1] = [1.7];

/// The longest side of a stretched copy ([`STRETCHES`]): a photo's board, the only kind seen
/// so steeply, still has squares of 30 pixels or more there, and a picture without a board
/// pays about 60% more than without this search (90% more at 1,536, 160% more unbounded).
const STRETCHED_MAX_SIDE: u32 = 1024;

/// The most X-corners a board's own upright lattice holds (9 x 9).
const MAX_BOARD_GRID: usize = 81;

/// How clearly the checker may go on beyond a side of a board found on a turned or stretched
/// copy ([`Wholeness::beyond`], [`MAX_CHECKER_BEYOND`] for any board): real boards stay under
/// 0.25; lattices of the wrong pitch over a tilted 8x6 or 12x12 checker or a go board's lines,
/// found on such copies, reach 0.39-0.46.
const TURNED_MAX_BEYOND: f64 = 0.3;

/// The longest side of the copy [`turned`] turns: a larger picture is box-reduced first (its
/// boards' corners are then refined at that resolution, still several pixels a square).
const TURNED_MAX_SIDE: u32 = 2048;

/// The boards of `grey` searched on copies turned by each of [`TURNS_DEGREES`] in turn, then on
/// copies stretched along its height by [`STRETCHES`], upright and turned ([`in_view`]), their
/// corners taken back into the picture's own pixels and named from the one nearest the top
/// left, clockwise. The first view that finds a board gives them.
pub fn turned(grey: &GrayImage, opts: &LocateOptions) -> Vec<Located> {
    let factor = grey.width().max(grey.height()).div_ceil(TURNED_MAX_SIDE).max(1);
    let small = if factor > 1 { Cow::Owned(box_downscale(grey, factor)) } else { Cow::Borrowed(grey) };
    let mean = mean_grey(&small);
    let inner = LocateOptions { turned: false, ..*opts };
    // The picture upright was searched before this.
    let turned_only = TURNS_DEGREES.iter().map(|&d| (1.0, d));
    let stretched = STRETCHES.iter().flat_map(|&s| std::iter::once(0.0).chain(TURNS_DEGREES).map(move |d| (s, d)));
    for (stretch, degrees) in turned_only.chain(stretched) {
        let found = in_view(&small, &inner, mean, stretch, degrees);
        if !found.is_empty() {
            trace!("found on the picture stretched {stretch}x and turned by {degrees} degrees");
            return found.into_iter().map(|b| Located { quad: b.quad.scaled(factor as f64), ..b }).collect();
        }
    }
    Vec::new()
}

/// The mean grey level of a picture (0 for an empty one).
fn mean_grey(img: &GrayImage) -> u8 {
    (img.as_raw().iter().map(|&v| v as u64).sum::<u64>() / (img.as_raw().len() as u64).max(1)) as u8
}

/// The boards of `small` searched with `inner` (no turned search of its own) on a copy
/// stretched `stretch` times along its height and then turned by `degrees` (on a canvas that
/// holds the whole copy, the rest filled with `mean`, the picture's mean grey), their corners
/// taken back into `small`'s pixels and named from the one nearest the top left, clockwise.
fn in_view(small: &GrayImage, inner: &LocateOptions, mean: u8, stretch: f32, degrees: f32) -> Vec<Located> {
    use imageproc::geometric_transformations::{warp_into, Border, Interpolation, Projection};
    let (w, h) = small.dimensions();
    let most = STRETCHED_MAX_SIDE as f32;
    let k = if stretch != 1.0 { (most / (w as f32).max(h as f32 * stretch)).min(1.0) } else { 1.0 };
    let view = Projection::rotate(degrees.to_radians()) * Projection::scale(k, k * stretch);
    let outline = [(0.0, 0.0), (w as f32, 0.0), (w as f32, h as f32), (0.0, h as f32)].map(|p| view * p);
    let (x0, y0) = outline.iter().fold((f32::INFINITY, f32::INFINITY), |(x, y), p| (x.min(p.0), y.min(p.1)));
    let (x1, y1) = outline.iter().fold((f32::NEG_INFINITY, f32::NEG_INFINITY), |(x, y), p| (x.max(p.0), y.max(p.1)));
    let forward = Projection::translate(-x0, -y0) * view;
    let mut copy = GrayImage::new((x1 - x0).ceil() as u32, (y1 - y0).ceil() as u32);
    warp_into(small, forward, Interpolation::Bilinear, Border::Constant(image::Luma([mean])), &mut copy);
    let back = forward.invert();
    let to_small = |p: Point| {
        let (x, y) = back * (p.x as f32, p.y as f32);
        Point::new(x as f64, y as f64)
    };
    let on_small: Vec<Located> = locate_all(&copy, inner)
        .into_iter()
        .map(|b| Located { quad: top_left_first(Quad(b.quad.0.map(to_small))), ..b })
        .collect();
    // A board photographed turned lies wholly in the picture; a lattice of the wrong pitch
    // laid over a turned grid runs off it.
    let (sw, sh) = (w as f64, h as f64);
    let inside = |b: &Located| {
        let slack = 0.25 * b.square_size();
        b.quad.0.iter().all(|p| p.x >= -slack && p.y >= -slack && p.x <= sw + slack && p.y <= sh + slack)
    };
    let plain = |b: &Located| centres_agree(small, &b.quad) >= MIN_CENTRES_AGREE;
    // A lattice of the wrong pitch over a larger checker or a grid of lines leaves a checker
    // beyond its sides, fainter than the 8x8 window's but clearer than beside a board.
    let ends_there = |b: &Located| {
        checker::wholeness(small, &b.quad).is_none_or(|w| w.beyond.iter().all(|&v| v <= TURNED_MAX_BEYOND))
    };
    let kept = on_small.into_iter().filter(|b| inside(b) && plain(b) && ends_there(b)).collect();
    // Tested whole again in the picture itself: in the copy, a larger checker that runs off
    // the picture's edge seems to end there, against the canvas's grey.
    only_whole_boards(small, kept)
}

/// The least share of square centres [`centres_agree`] must find of their square's shade for a
/// board found turned. Boards photographed turned and found so give 0.64 and more (77 rendered
/// scenes, two real photos); a lattice laid over a larger checker at the wrong pitch, none.
const MIN_CENTRES_AGREE: f64 = 0.5;

/// How many of the 64 squares of the board at `quad` are, at their centre, of the shade their
/// corners give their colour (light or dark): most, on a board, where the empty squares agree
/// and the pieces on the rest go either way. A lattice of the wrong pitch over a larger turned
/// checker (steps of two squares along and one across make a checker of larger squares, turned)
/// has a square of the other shade at the centre of every square it makes.
fn centres_agree(img: &GrayImage, quad: &Quad) -> f64 {
    let grid = quad.board_to_image();
    let (w, h) = (img.width() as i64, img.height() as i64);
    let grey = |u: f64, v: f64| {
        let p = grid.apply(Point::new(u, v));
        let (x, y) = (p.x.floor() as i64, p.y.floor() as i64);
        let mut sum = 0.0;
        for (dx, dy) in [(-1, -1), (0, -1), (1, -1), (-1, 0), (0, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
            sum += img.get_pixel((x + dx).clamp(0, w - 1) as u32, (y + dy).clamp(0, h - 1) as u32)[0] as f64;
        }
        sum / 9.0
    };
    // Each parity's shade from the squares' corners, which pieces standing in the middle leave
    // uncovered.
    let mut corner_mean = [0.0f64; 2];
    let mut centres = Vec::with_capacity(64);
    for i in 0..64 {
        let (u, v) = ((i % 8) as f64, (i / 8) as f64);
        let parity = (i % 8 + i / 8) % 2;
        for (a, b) in [(0.15, 0.15), (0.85, 0.15), (0.85, 0.85), (0.15, 0.85)] {
            corner_mean[parity] += grey(u + a, v + b) / 128.0;
        }
        centres.push((parity, grey(u + 0.5, v + 0.5)));
    }
    let mid = (corner_mean[0] + corner_mean[1]) / 2.0;
    let light_even = corner_mean[0] > corner_mean[1];
    let agree = centres.iter().filter(|&&(parity, g)| ((g > mid) == (parity == 0)) == light_even).count();
    agree as f64 / 64.0
}

/// The least share of square centres [`centres_agree`] must find of their square's shade for
/// any board: the boards of realdata-dev, realdata-physical, 460 rendered scenes and 60 PDF books
/// give 0.41 and more (pieces on crowded diagrams go either way); a lattice of steps two squares
/// along and one across a larger checker turned 30-40 degrees (which lies near upright), none.
const MIN_CENTRES_AGREE_UPRIGHT: f64 = 0.2;

/// The same corners in the same (clockwise) order, starting from the one whose edge to the next
/// runs most nearly rightwards: top-left, top-right, bottom-right, bottom-left as displayed.
fn top_left_first(q: Quad) -> Quad {
    let rightwards = |i: usize| {
        let (a, b) = (q.0[i], q.0[(i + 1) % 4]);
        (b.x - a.x) / a.dist(b).max(1e-9)
    };
    let first = (0..4).max_by(|&i, &j| rightwards(i).total_cmp(&rightwards(j))).expect("four corners");
    Quad(std::array::from_fn(|i| q.0[(first + i) % 4]))
}

/// A picture no longer than this on its longer side in which nothing else found a board is
/// searched again at twice its size ([`enlarged`]).
const ENLARGE_MAX_SIDE: u32 = 512;

/// The boards of a small picture (at most [`ENLARGE_MAX_SIDE`]) searched again at twice its size
/// (bilinear), their corners given in the picture's own pixels. At squares of 7-9 px the corner
/// score's boxes reach from one corner to the next and a piece's outline scores as high as
/// the corners it sits between: a board cropped small from a page or a thumbnail gives no
/// lattice. Boards smaller than [`MIN_BOARD_PX`] in the picture itself are dropped.
fn enlarged(grey: &GrayImage, opts: &LocateOptions) -> Vec<Located> {
    let (w, h) = grey.dimensions();
    if w.max(h) > ENLARGE_MAX_SIDE {
        return Vec::new();
    }
    let big = image::imageops::resize(grey, 2 * w, 2 * h, image::imageops::FilterType::Triangle);
    let found: Vec<Located> = locate_all(&big, opts)
        .into_iter()
        .map(|b| Located { quad: b.quad.scaled(0.5), rms_error: b.rms_error / 2.0, ..b })
        .filter(|b| b.quad.mean_side() >= MIN_BOARD_PX)
        .collect();
    if !found.is_empty() {
        trace!("found at twice the picture's size");
    }
    found
}

/// The boards of `grey` searched again with the picture set on a white margin of
/// [`MARGIN_SHARE`] of its longer side, their corners given in the picture's own pixels. A
/// diagram cropped tight to its squares from a large scan has no edge around it: its coarse
/// levels lose the board's outline, which a margin gives back (on the scale sweep, 16 of 30
/// tight crops at 2x-5x that gave no board were found on a margin).
fn on_a_margin(grey: &GrayImage, opts: &LocateOptions) -> Vec<Located> {
    let pad = ((grey.width().max(grey.height()) as f64 * MARGIN_SHARE).round() as u32).max(8);
    let mut padded = GrayImage::from_pixel(grey.width() + 2 * pad, grey.height() + 2 * pad, image::Luma([255]));
    image::imageops::replace(&mut padded, grey, pad as i64, pad as i64);
    let back = |p: Point| Point::new(p.x - pad as f64, p.y - pad as f64);
    let found: Vec<Located> =
        locate_all(&padded, opts).into_iter().map(|b| Located { quad: Quad(b.quad.0.map(back)), ..b }).collect();
    if !found.is_empty() {
        trace!("found on a white margin of {pad} px");
    }
    found
}

/// A picture is taken for the board itself ([`whole_picture`]) only when it is this close to
/// square (width over height, or height over width)...
const WHOLE_PICTURE_ASPECT: f64 = 1.1;
/// ...and its squares, the picture cut 8x8 (or inset by up to [`WHOLE_PICTURE_INSETS`] per cent
/// of its side), alternate at least this clearly ([`window_contrast`]). Measured: diagrams cropped
/// tight whose faint hatch and 30 pieces leave no lattice, 0.74 to 0.93; the 324 pictures of
/// the no-board set, 0.35 at most.
const WHOLE_PICTURE_CONTRAST: f64 = 0.6;
const WHOLE_PICTURE_INSETS: usize = 5;

/// A board cropped tight to its squares (a diagram cut from a scan, a board-only screenshot) is
/// found by its lattice, and else on a margin; a faintly hatched one crowded with pieces shows
/// too few corners for either. A nearly square picture whose 64 squares, cut as the picture
/// itself (inset by 0-5% of a side, the best), alternate clearly is such a board: found with no
/// corners seen.
fn whole_picture(grey: &GrayImage) -> Vec<Located> {
    let (w, h) = (grey.width() as f64, grey.height() as f64);
    if w.min(h) < MIN_BOARD_PX || w.max(h) / w.min(h) > WHOLE_PICTURE_ASPECT {
        return Vec::new();
    }
    let best = (0..=WHOLE_PICTURE_INSETS)
        .map(|pc| {
            let (dx, dy) = (w * pc as f64 / 100.0, h * pc as f64 / 100.0);
            let quad = Quad::rect(dx, dy, w - dx, h - dy);
            (window_contrast(grey, &quad), quad)
        })
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match best {
        Some((contrast, quad)) if contrast >= WHOLE_PICTURE_CONTRAST => {
            trace!("the picture is the board: its squares alternate at {contrast:.2}");
            vec![Located { quad, corners_found: 0, rms_error: 0.0 }]
        }
        _ => Vec::new(),
    }
}

/// The white margin [`on_a_margin`] sets a picture on, as a share of its longer side.
const MARGIN_SHARE: f64 = 0.03;

/// Sorts boards in reading order. Boards in columns (a two-column book page: columns with a
/// gutter no board crosses, and some board without a neighbour in another column whose top and
/// bottom are level with its own, within a tenth of its height) are read column by column, left to right,
/// each from top to bottom. Otherwise, and within a column, in rows from top to bottom (a board
/// whose centre lies within the height of a row's first board joins that row), each row from
/// left to right: so are boards set out as a table, level in rows.
pub fn reading_order(boards: &mut [Located]) {
    let columns = columns(boards);
    // Level as a table sets them: tops and bottoms within a tenth of a board's height (a table's
    // diagrams are one size). Diagrams of two columns of text stand level only by chance, and
    // rarely that closely at both edges.
    let level = |a: &Located, b: &Located| {
        let ((_, ta, _, ba), (_, tb, _, bb)) = (a.quad.bounds(), b.quad.bounds());
        let tenth = 0.1 * (ba - ta).min(bb - tb);
        (ta - tb).abs() <= tenth && (ba - bb).abs() <= tenth
    };
    let table =
        boards.iter().zip(&columns).all(|(a, ca)| boards.iter().zip(&columns).any(|(b, cb)| ca != cb && level(a, b)));
    if columns.iter().any(|&c| c != columns[0]) && !table {
        let mut keyed: Vec<(usize, Located)> = columns.into_iter().zip(boards.iter().cloned()).collect();
        keyed.sort_by_key(|(c, _)| *c);
        let mut start = 0;
        while start < keyed.len() {
            let end = start + keyed[start..].iter().take_while(|(c, _)| *c == keyed[start].0).count();
            let mut column: Vec<Located> = keyed[start..end].iter().map(|(_, b)| b.clone()).collect();
            rows(&mut column);
            boards[start..end].clone_from_slice(&column);
            start = end;
        }
        return;
    }
    rows(boards);
}

/// Sorts boards in rows from top to bottom, each from left to right.
fn rows(boards: &mut [Located]) {
    boards.sort_by(|a, b| a.quad.bounds().1.total_cmp(&b.quad.bounds().1));
    let mut start = 0;
    while start < boards.len() {
        let (_, top, _, bottom) = boards[start].quad.bounds();
        let mut end = start + 1;
        while end < boards.len() && (top..=bottom).contains(&boards[end].quad.centre().y) {
            end += 1;
        }
        boards[start..end].sort_by(|a, b| a.quad.bounds().0.total_cmp(&b.quad.bounds().0));
        start = end;
    }
}

/// Each board's column, numbered from the left: boards whose horizontal extents overlap, or
/// are joined by boards that overlap both, share one.
fn columns(boards: &[Located]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..boards.len()).collect();
    order.sort_by(|&a, &b| boards[a].quad.bounds().0.total_cmp(&boards[b].quad.bounds().0));
    let mut column = vec![0; boards.len()];
    let (mut current, mut reach) = (0, f64::NEG_INFINITY);
    for (n, &i) in order.iter().enumerate() {
        let (left, _, right, _) = boards[i].quad.bounds();
        if n > 0 && left >= reach {
            current += 1;
        }
        reach = reach.max(right);
        column[i] = current;
    }
    column
}

/// Finds the best board in `img`, if there is one.
pub fn locate(img: &GrayImage, opts: &LocateOptions) -> Option<Located> {
    locate_all(img, opts).into_iter().next()
}

/// What came nearest to a board in a picture where none was found: the largest lattice of
/// X-corners on any level, for the "no board found" message and `--debug`'s picture.
#[derive(Debug, Clone)]
pub struct NearestGrid {
    /// Its X-corners, in full-resolution pixels.
    pub corners: Vec<Point>,
    /// How many squares it spans across and down (a board spans 8x8).
    pub squares: (i32, i32),
    /// Whether it runs off the picture: its outermost corners lie less than three quarters of a
    /// square from an edge, where a whole board's lie a square in (a board the picture cuts).
    pub at_edge: bool,
}

impl NearestGrid {
    /// One line on what was found, for a person.
    pub fn describe(&self, opts: &LocateOptions) -> String {
        let (across, down) = self.squares;
        let n = self.corners.len();
        let mut line = format!("the largest checkered region found is {across}x{down} squares ({n} corners seen)");
        if n < opts.min_corners.min(49) {
            line += &format!("; a board needs {} of its 49 inner corners", opts.min_corners.min(49));
        } else if (across, down) != (8, 8) {
            line += "; a chess board is 8x8";
        }
        if self.at_edge {
            line += "; it runs off the picture's edge: a board cut by it cannot be read";
        }
        line
    }
}

/// The largest lattice of X-corners in `img` ([`NearestGrid`]), or `None` when there is no grid
/// of alternating squares at all. Costs a second search: call it only when no board was found.
pub fn nearest_grid(img: &GrayImage, opts: &LocateOptions) -> Option<NearestGrid> {
    if img.width() < 24 || img.height() < 24 {
        return None;
    }
    let mut best: Option<(usize, Lattice)> = None;
    for level in pyramid(img, false).iter().filter(|l| l.small.width().min(l.small.height()) >= 48) {
        let peaks = find_peaks(&level.small, 3, 1, opts.min_contrast);
        for lat in merge_fragments(link_lattices(&peaks)) {
            if best.as_ref().is_none_or(|(_, b)| lat.len() > b.len()) {
                best = Some((level.k, lat));
            }
        }
    }
    let (k, lat) = best.filter(|(_, lat)| lat.len() >= 4)?;
    let span = |f: fn(&(i32, i32, Point)) -> i32| {
        let (lo, hi) = minmax(lat.nodes.iter().map(f));
        hi - lo + 2
    };
    let k = k as f64;
    let corners: Vec<Point> = lat.nodes.iter().map(|n| Point::new(n.2.x * k, n.2.y * k)).collect();
    // A square's side: the median distance between nodes one step apart.
    let at: BTreeMap<(i32, i32), Point> = lat.nodes.iter().zip(&corners).map(|(n, &p)| ((n.0, n.1), p)).collect();
    let mut steps: Vec<f64> = at.iter().filter_map(|(&(i, j), p)| at.get(&(i + 1, j)).map(|q| p.dist(*q))).collect();
    steps.sort_by(f64::total_cmp);
    let at_edge = steps.get(steps.len() / 2).is_some_and(|&step| {
        let near = 0.75 * step;
        let (w, h) = (img.width() as f64, img.height() as f64);
        corners.iter().any(|p| p.x < near || p.y < near || p.x > w - near || p.y > h - near)
    });
    Some(NearestGrid { squares: (span(|n| n.0), span(|n| n.1)), corners, at_edge })
}
