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

/// The working copy's longest side, in pixels. Larger images are box-downscaled by an integer
/// factor before the search; corners are then refined at full resolution.
pub const WORK_MAX_SIDE: u32 = 1024;

/// Largest RMS distance of the refined corners from the fitted grid, in squares.
const MAX_RMS_SQUARES: f64 = 0.07;

/// A picture halved for the working copy is also searched at full resolution when its short
/// side is longer than this (photos and page scans, not 1920x1080 screenshots); one reduced
/// more, at half its reduction.
pub const FULL_LEVEL_MIN_SIDE: u32 = 1100;

/// Pyramid levels searched (each half the size of the one before).
const SCALES: usize = 3;

/// Smallest board accepted, in pixels per side.
pub const MIN_BOARD_PX: f64 = 96.0;

/// With `IMG2FEN_TRACE_LOCATE` set, the finder says on stderr what it saw and rejected.
macro_rules! trace {
    ($($arg:tt)*) => {
        if *TRACE.get_or_init(|| std::env::var_os("IMG2FEN_TRACE_LOCATE").is_some()) {
            eprintln!($($arg)*);
        }
    };
}
static TRACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

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
#[derive(Debug, Clone)]
pub struct LocateOptions {
    /// Minimum X-corner contrast (grey levels, 0-255) for a peak.
    pub min_contrast: f32,
    /// Minimum number of the 49 interior corners that must be found for a board.
    pub min_corners: usize,
}

impl Default for LocateOptions {
    fn default() -> Self {
        LocateOptions { min_contrast: 4.0, min_corners: 20 }
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
    let k0 = w.max(h).div_ceil(WORK_MAX_SIDE).max(1);
    // Several scales: the finest finds small boards; coarser ones average away hatching and
    // texture that breaks the lattice of large boards. Coarsest first, so that a board already
    // fitted is not fitted again from a finer level (nor a pattern inside its squares).
    let mut levels = vec![(k0, if k0 > 1 { box_downscale(img, k0) } else { img.clone() })];
    while levels.len() < SCALES {
        let (k, last) = levels.last().expect("one level");
        if last.width().min(last.height()) < 96 {
            break;
        }
        levels.push((k * 2, box_downscale(last, 2)));
    }
    // A picture reduced for the working copy whose short side is still large is a photo or a
    // page scan, where a board can be small in the frame and blurred: it is searched at half the
    // working reduction too, last (at full resolution when it was halved; a 1920x1080
    // screenshot is not: its boards are large). A 300 dpi page is reduced four or five times,
    // and its diagrams' 50-65 px squares shrink to 10-16 px on the working copy, where their
    // pieces hide too many corners for a lattice.
    if k0 >= 2 && w.min(h) > FULL_LEVEL_MIN_SIDE {
        let k = k0 / 2;
        levels.insert(0, (k, if k == 1 { img.clone() } else { box_downscale(img, k) }));
    }
    let mut found: Vec<Located> = Vec::new();
    // The nodes of the lattice each board in `found` was fitted from.
    let mut sources: Vec<usize> = Vec::new();
    for (k, work) in levels.iter().rev() {
        let (ww, wh) = work.dimensions();
        if ww.min(wh) < 48 {
            continue;
        }
        let peaks = find_peaks(work, 3, 1, opts.min_contrast);
        trace!("level k={k} {}x{} peaks={}", ww, wh, peaks.len());
        for lat in merge_fragments(link_lattices(&peaks)) {
            // The trace line measures the span only when tracing is on.
            let span = |f: fn(&(i32, i32, Point)) -> i32| {
                let (lo, hi) = minmax(lat.nodes.iter().map(f));
                hi - lo
            };
            trace!(
                " lattice n={} span {}x{} centre {:?}",
                lat.nodes.len(),
                span(|n| n.0),
                span(|n| n.1),
                lattice_centre(&lat, *k as f64)
            );
            if lat.len() < opts.min_corners.min(49) {
                continue;
            }
            if found_already(&found, &sources, lattice_centre(&lat, *k as f64), lat.len()) {
                continue;
            }
            let Some(board) = fit_board(img, work, &lat, *k as f64, opts, &found) else { continue };
            // A lattice wider than a board may run on into a second board beside it (two
            // boards a gap of less than a square apart, in one rhythm): what is left of it
            // once the board found is taken out is tried again.
            let rest: Vec<(i32, i32, Point)> = match board.quad.board_to_image().inverse() {
                Some(to_board) if core_span(&lat.nodes) > MAX_SPAN => {
                    let on_board = |p: Point| (-0.5..=8.5).contains(&p.x) && (-0.5..=8.5).contains(&p.y);
                    lat.nodes
                        .iter()
                        .copied()
                        .filter(|n| !on_board(to_board.apply(Point::new(n.2.x * *k as f64, n.2.y * *k as f64))))
                        .collect()
                }
                _ => Vec::new(),
            };
            found.push(board);
            sources.push(lat.len());
            if rest.len() >= opts.min_corners.min(49) {
                let rest = Lattice { nodes: rest, positive0: lat.positive0 };
                trace!(" the rest of the lattice: {} nodes", rest.len());
                let c = lattice_centre(&rest, *k as f64);
                if !found.iter().any(|b| b.quad.contains(c)) {
                    if let Some(b) = fit_board(img, work, &rest, *k as f64, opts, &found) {
                        found.push(b);
                        sources.push(rest.len());
                    }
                }
            }
        }
    }
    // Frames beside the boards found are searched on a copy reduced twice as much as the
    // working one (each block's darkest pixel: a frame line stays ink at any reduction), which
    // halves the cost.
    let kf = 2 * k0 as usize;
    let framing = min_downscale(img, kf);
    // On a halftone page the paper's dots put ink in most blocks of that reduction, and a
    // frame line is lost among them; there frames are also searched on block means (the
    // working levels' own), where the dots average out to paper and a frame of a few pixels
    // stays darker. A dark screen is ink in both.
    let ink_share = |im: &GrayImage| {
        im.as_raw().iter().filter(|&&g| g < FRAME_INK).count() as f64 / im.as_raw().len().max(1) as f64
    };
    let means = |k: usize| -> Cow<GrayImage> {
        levels
            .iter()
            .find(|(l, _)| *l as usize == k)
            .map_or_else(|| Cow::Owned(box_downscale(img, k as u32)), |(_, im)| Cow::Borrowed(im))
    };
    let ink = ink_share(&framing);
    let boxed = (ink > HALFTONE_INK).then(|| means(kf)).filter(|m| ink_share(m) < HALFTONE_MEAN_INK);
    let halftone = boxed.is_some();
    if halftone {
        trace!(" halftone: {ink:.2} of the darkest-pixel reduction is ink");
    }
    if found.is_empty() {
        // No lattice made a board: perhaps boards inside frames whose squares are too faint
        // for X-corners (a light hatch in a PDF viewer), searched at the working reduction.
        found = framed_boards(img, &min_downscale(img, k0 as usize), k0 as usize, FRAME_INK);
        if halftone && found.is_empty() {
            let means = means(k0 as usize);
            found = framed_boards(img, &means, k0 as usize, paper_ink(&means));
        }
        if found.is_empty() {
            // On the coarsest level: the search is for regions a board wide, and text
            // there runs together into a few blocks.
            let (kc, coarsest) = levels.last().expect("one level");
            found = boards_on_plain_ground(img, coarsest, *kc as usize);
        }
    } else {
        // Beside the boards found, a framed diagram whose pieces hide too many corners for a
        // lattice (a dense position on a book page). A frame around a board found is the same
        // board: it replaces the lattice's only when its squares alternate clearly better (a
        // lattice that placed a faint board askew).
        let mut frames = framed_boards(img, &framing, kf, FRAME_INK);
        if let Some(means) = &boxed {
            for f in framed_boards(img, means, kf, paper_ink(means)) {
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
    // And frames at an angle: a page photographed or scanned turned. Boards on one page or
    // screen share its angle, so a picture whose boards found are all upright is not searched.
    // On a halftone page the paper's dots join every frame to its surroundings in the
    // darkest-pixel reduction, so frames are traced on the block means as well.
    if found.is_empty() || found.iter().any(|b| b.quad.tilt() > MAX_UPRIGHT_TILT) {
        let mut known: Vec<Quad> = found.iter().map(|b| b.quad).collect();
        let mut tilted = tilted_frames(img, &framing, kf, TILTED_INK_MARGIN, opts, &known);
        known.extend(tilted.iter().map(|b| b.quad));
        if let Some(means) = &boxed {
            tilted.extend(tilted_frames(img, means, kf, TILTED_MEAN_INK_MARGIN, opts, &known));
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
    let mut kept = one_per_board(img, found);
    kept.sort_by(|a, b| b.corners_found.cmp(&a.corners_found).then(b.quad.mean_side().total_cmp(&a.quad.mean_side())));
    kept
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

/// Finds every board in a decoded picture whose grey levels are `grey` ([`crate::cells::grey`]):
/// on the grey levels first, and when no board is found there, on each colour channel of an RGB
/// picture in turn. A board whose two square colours differ in hue more than in brightness
/// (light blue and cream squares, photographed) can alternate too faintly in grey and clearly in
/// one channel. Only pictures without a board found pay for the extra searches; the cells are
/// still cut from the grey levels.
pub fn locate_all_colour(img: &image::DynamicImage, grey: &GrayImage, opts: &LocateOptions) -> Vec<Located> {
    let found = locate_all(grey, opts);
    let image::DynamicImage::ImageRgb8(rgb) = img else { return found };
    if !found.is_empty() {
        return found;
    }
    for c in 0..3 {
        let channel =
            GrayImage::from_raw(rgb.width(), rgb.height(), rgb.as_raw().iter().skip(c).step_by(3).copied().collect())
                .expect("one byte a pixel");
        let found = locate_all(&channel, opts);
        if !found.is_empty() {
            trace!("found on colour channel {c}");
            return found;
        }
    }
    Vec::new()
}

/// Sorts boards in reading order: rows from top to bottom (a board whose centre lies within the
/// height of a row's first board joins that row), each row from left to right.
pub fn reading_order(boards: &mut [Located]) {
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

/// Finds the best board in `img`, if there is one.
pub fn locate(img: &GrayImage, opts: &LocateOptions) -> Option<Located> {
    locate_all(img, opts).into_iter().next()
}

/// Centroid of a lattice's nodes in full-resolution pixels.
fn lattice_centre(lat: &Lattice, k: f64) -> Point {
    let n = lat.nodes.len() as f64;
    let (sx, sy) = lat.nodes.iter().fold((0.0, 0.0), |(x, y), &(_, _, p)| (x + p.x, y + p.y));
    Point::new(sx / n * k, sy / n * k)
}

/// Mean of each `k`x`k` block (the last partial blocks are dropped).
pub(crate) fn box_downscale(img: &GrayImage, k: u32) -> GrayImage {
    box_downscale_region(img, 0, 0, img.width(), img.height(), k)
}

/// The darkest pixel of each `k`x`k` block of `img` (partial blocks dropped).
fn min_downscale(img: &GrayImage, k: usize) -> GrayImage {
    let w = img.width() as usize;
    let (nw, nh) = ((w / k).max(1), (img.height() as usize / k).max(1));
    // The minimum over a block row's k rows first, element by element (it vectorises), then
    // over each block's k columns.
    let mut rows_min = vec![255u8; nw * k];
    let mut out = Vec::with_capacity(nw * nh);
    for block_row in img.as_raw().chunks_exact(w * k).take(nh) {
        rows_min.copy_from_slice(&block_row[..nw * k]);
        for row in block_row.chunks_exact(w).skip(1) {
            for (m, &g) in rows_min.iter_mut().zip(&row[..nw * k]) {
                *m = (*m).min(g);
            }
        }
        out.extend(rows_min.chunks_exact(k).map(|block| block.iter().fold(255u8, |m, &g| m.min(g))));
    }
    GrayImage::from_raw(nw as u32, nh as u32, out).expect("nw * nh pixels")
}

/// Mean of each `k`x`k` block of the region `[x0, x1) x [y0, y1)` (partial blocks dropped).
pub(crate) fn box_downscale_region(img: &GrayImage, x0: u32, y0: u32, x1: u32, y1: u32, k: u32) -> GrayImage {
    let w = img.width() as usize;
    let (nw, nh) = (((x1 - x0) / k).max(1) as usize, ((y1 - y0) / k).max(1) as usize);
    let (k, x0, y0) = (k as usize, x0 as usize, y0 as usize);
    let src = img.as_raw();
    let mut out = Vec::with_capacity(nw * nh);
    if k == 2 {
        for by in 0..nh {
            let r0 = &src[(y0 + 2 * by) * w + x0..][..2 * nw];
            let r1 = &src[(y0 + 2 * by + 1) * w + x0..][..2 * nw];
            out.extend(
                r0.chunks_exact(2)
                    .zip(r1.chunks_exact(2))
                    .map(|(a, b)| ((a[0] as u16 + a[1] as u16 + b[0] as u16 + b[1] as u16 + 2) / 4) as u8),
            );
        }
    } else {
        // Column sums over the k rows of a block row first (a plain vectorised add), then the
        // k columns of each block.
        let area = (k * k) as u32;
        let mut cols = vec![0u32; nw * k];
        for by in 0..nh {
            cols.fill(0);
            for y in y0 + by * k..y0 + by * k + k {
                let row = &src[y * w + x0..][..nw * k];
                for (c, &v) in cols.iter_mut().zip(row) {
                    *c += v as u32;
                }
            }
            out.extend(cols.chunks_exact(k).map(|c| ((c.iter().sum::<u32>() + area / 2) / area) as u8));
        }
    }
    GrayImage::from_raw(nw as u32, nh as u32, out).expect("buffer size matches")
}

/// Summed-area table with a zero row and column in front.
struct Integral {
    w: usize,
    data: Vec<u32>,
}

impl Integral {
    fn new(px: &[u8], w: usize, h: usize) -> Self {
        let mut data = vec![0u32; (w + 1) * (h + 1)];
        for y in 0..h {
            let mut row = 0u32;
            for x in 0..w {
                row += px[y * w + x] as u32;
                data[(y + 1) * (w + 1) + x + 1] = data[y * (w + 1) + x + 1] + row;
            }
        }
        Integral { w, data }
    }

    /// Sum over `[x0, x1) x [y0, y1)`.
    #[inline]
    fn sum(&self, x0: usize, y0: usize, x1: usize, y1: usize) -> u32 {
        let s = self.w + 1;
        self.data[y1 * s + x1] + self.data[y0 * s + x0] - self.data[y0 * s + x1] - self.data[y1 * s + x0]
    }

    /// X-corner score at the pixel boundary point `(x, y)` with boxes of side `r` kept `g`
    /// pixels away from the two lines through the point. Positive: top-left and bottom-right
    /// lighter; negative: darker. Zero unless both diagonal boxes beat both off-diagonal ones.
    #[inline]
    fn xscore(&self, x: usize, y: usize, r: usize, g: usize) -> f32 {
        let (a0, a1, b0, b1) = (x - g - r, x - g, x + g, x + g + r);
        let (c0, c1, d0, d1) = (y - g - r, y - g, y + g, y + g + r);
        let box_sum = |x0, y0, x1, y1| self.sum(x0, y0, x1, y1) as i32;
        let v = x_corner(
            box_sum(a0, c0, a1, c1),
            box_sum(b0, c0, b1, c1),
            box_sum(b0, d0, b1, d1),
            box_sum(a0, d0, a1, d1),
        );
        v as f32 / (r * r) as f32
    }
}

/// The X-corner rule on the sums of four equal boxes around a point (top-left, top-right,
/// bottom-right, bottom-left): how much both diagonal boxes are lighter (positive) or darker
/// (negative) than both off-diagonal ones; zero when they are not.
#[inline(always)]
fn x_corner(tl: i32, tr: i32, br: i32, bl: i32) -> i32 {
    let pos = tl.min(br) - tr.max(bl);
    let neg = tr.min(bl) - tl.max(br);
    // At most one of the two is positive.
    pos.max(0) - neg.max(0)
}

#[derive(Debug, Clone, Copy)]
struct Peak {
    x: f64,
    y: f64,
    score: f32,
    positive: bool,
}

/// Sums of every `r`x`r` box: `out[y * (w + 1) + x]` is the sum over `[x - r, x) x [y - r, y)`
/// for `x, y >= r` (zero elsewhere), from running row and column sums.
fn box_sums(img: &GrayImage, r: usize) -> Vec<i32> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let s = w + 1;
    let px = img.as_raw();
    let mut out = vec![0i32; s * (h + 1)];
    // rows[y][x]: sum of the r pixels of row y ending before x.
    let mut rows = vec![0i32; s * h];
    for y in 0..h {
        let src = &px[y * w..(y + 1) * w];
        let dst = &mut rows[y * s..(y + 1) * s];
        let mut acc = 0i32;
        for x in 0..w {
            acc += src[x] as i32;
            if x >= r {
                acc -= src[x - r] as i32;
            }
            dst[x + 1] = acc;
        }
    }
    let mut col = vec![0i32; s];
    for y in 0..h {
        for x in 0..s {
            col[x] += rows[y * s + x];
        }
        if y >= r {
            for x in 0..s {
                col[x] -= rows[(y - r) * s + x];
            }
        }
        if y + 1 >= r {
            out[(y + 1) * s..(y + 2) * s].copy_from_slice(&col);
        }
    }
    out
}

/// Local maxima (5x5) of the absolute X-corner score above `min`.
fn find_peaks(img: &GrayImage, r: usize, g: usize, min: f32) -> Vec<Peak> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let m = r + g;
    if w <= 2 * m + 4 || h <= 2 * m + 4 {
        return Vec::new();
    }
    // Each X-score reads four precomputed box sums. Scores are kept as box-sum differences
    // (integers); the loop over a row is branch-free so that it vectorises.
    let s = w + 1;
    let box_sum = box_sums(img, r);
    let n = (r * r) as f32;
    let mut score = vec![0i32; w * h];
    // x and y run over m..=w-m and m..=h-m: the boxes reach the last row and column.
    let (x0, x1) = (m, w - m + 1);
    for y in m..=h - m {
        let (top, bot) = ((y - g) * s, (y + g + r) * s);
        let tl = &box_sum[top + x0 - g..top + x1 - g];
        let tr = &box_sum[top + x0 + g + r..top + x1 + g + r];
        let br = &box_sum[bot + x0 + g + r..bot + x1 + g + r];
        let bl = &box_sum[bot + x0 - g..bot + x1 - g];
        let out = &mut score[y * w + x0..y * w + x1];
        for ((((o, &tl), &tr), &br), &bl) in out.iter_mut().zip(tl).zip(tr).zip(br).zip(bl) {
            *o = x_corner(tl, tr, br, bl);
        }
    }
    let score: Vec<f32> = score.into_iter().map(|v| v as f32 / n).collect();
    let mut peaks = Vec::new();
    const R: usize = 2;
    for y in m + R..h.saturating_sub(m + R) {
        for x in m + R..w.saturating_sub(m + R) {
            let v = score[y * w + x];
            let a = v.abs();
            if a < min
                || score[y * w + x - 1].abs() > a
                || score[y * w + x + 1].abs() > a
                || score[(y - 1) * w + x].abs() > a
                || score[(y + 1) * w + x].abs() > a
            {
                continue;
            }
            let mut is_max = true;
            'nb: for yy in y - R..=y + R {
                for xx in x - R..=x + R {
                    let o = score[yy * w + xx].abs();
                    // Ties go to the first in scan order.
                    if o > a || (o == a && (yy, xx) < (y, x)) {
                        is_max = false;
                        break 'nb;
                    }
                }
            }
            if is_max {
                peaks.push(Peak { x: x as f64, y: y as f64, score: a, positive: v > 0.0 });
            }
        }
    }
    // Keep the strongest few thousand on very busy images.
    const MAX_PEAKS: usize = 4000;
    if peaks.len() > MAX_PEAKS {
        peaks.sort_by(|a, b| b.score.total_cmp(&a.score));
        peaks.truncate(MAX_PEAKS);
    }
    peaks
}

/// A lattice: nodes with integer coordinates `(i, j)` (i to the right, j down) and positions in
/// working-image pixels, plus the polarity of the node at `(0, 0)`.
#[derive(Clone)]
struct Lattice {
    nodes: Vec<(i32, i32, Point)>,
    /// Polarity of the node at lattice coordinates (0, 0).
    positive0: bool,
}

impl Lattice {
    fn len(&self) -> usize {
        self.nodes.len()
    }
}

/// Peaks bucketed on a grid for neighbourhood queries.
struct PeakGrid<'a> {
    peaks: &'a [Peak],
    cell: f64,
    cols: i64,
    rows: i64,
    buckets: Vec<Vec<usize>>,
}

impl<'a> PeakGrid<'a> {
    fn new(peaks: &'a [Peak], cell: f64) -> Self {
        let cols = (peaks.iter().map(|p| p.x).fold(0.0, f64::max) / cell).floor() as i64 + 1;
        let rows = (peaks.iter().map(|p| p.y).fold(0.0, f64::max) / cell).floor() as i64 + 1;
        let mut buckets = vec![Vec::new(); (cols * rows) as usize];
        for (i, p) in peaks.iter().enumerate() {
            buckets[((p.y / cell) as i64 * cols + (p.x / cell) as i64) as usize].push(i);
        }
        PeakGrid { peaks, cell, cols, rows, buckets }
    }

    /// Peaks within `radius` of `(x, y)`.
    fn near(&self, x: f64, y: f64, radius: f64) -> impl Iterator<Item = usize> + '_ {
        let x0 = (((x - radius) / self.cell).floor() as i64).max(0);
        let x1 = (((x + radius) / self.cell).floor() as i64).min(self.cols - 1);
        let y0 = (((y - radius) / self.cell).floor() as i64).max(0);
        let y1 = (((y + radius) / self.cell).floor() as i64).min(self.rows - 1);
        let r2 = radius * radius;
        (y0..=y1)
            .flat_map(move |gy| (x0..=x1).map(move |gx| (gy * self.cols + gx) as usize))
            .flat_map(|k| self.buckets[k].iter().copied())
            .filter(move |&i| (self.peaks[i].x - x).powi(2) + (self.peaks[i].y - y).powi(2) <= r2)
    }

    /// The peak of the given polarity nearest to `(x, y)` within `radius` (the first of equals
    /// in bucket order). Plain loops: this runs for every predicted lattice node.
    fn nearest(&self, x: f64, y: f64, radius: f64, positive: bool) -> Option<usize> {
        let x0 = (((x - radius) / self.cell).floor() as i64).max(0);
        let x1 = (((x + radius) / self.cell).floor() as i64).min(self.cols - 1);
        let y0 = (((y - radius) / self.cell).floor() as i64).max(0);
        let y1 = (((y + radius) / self.cell).floor() as i64).min(self.rows - 1);
        let mut best: Option<(f64, usize)> = None;
        for gy in y0..=y1 {
            for gx in x0..=x1 {
                for &i in &self.buckets[(gy * self.cols + gx) as usize] {
                    let p = &self.peaks[i];
                    if p.positive != positive {
                        continue;
                    }
                    let d2 = (p.x - x).powi(2) + (p.y - y).powi(2);
                    if d2 <= radius * radius && best.is_none_or(|(b, _)| d2 < b) {
                        best = Some((d2, i));
                    }
                }
            }
        }
        best.map(|(_, i)| i)
    }
}

/// Longest and shortest lattice step searched, in working-image pixels.
const MAX_STEP: f64 = 160.0;
const MIN_STEP: f64 = 6.0;

/// Grows lattices from the strongest peaks (see the module documentation).
///
/// A seed's right and down neighbours are its nearest peaks of opposite polarity roughly to the
/// right and below; they give the local lattice vectors. Growth then predicts where each
/// neighbour must be (one step, or two steps over a hidden corner) and takes only a peak of the
/// expected polarity within a quarter step of the prediction, updating the vectors as it goes,
/// so gentle perspective is followed and peaks on pieces are ignored.
fn link_lattices(peaks: &[Peak]) -> Vec<Lattice> {
    let grid = PeakGrid::new(peaks, 32.0);
    let mut order: Vec<usize> = (0..peaks.len()).collect();
    order.sort_by(|&a, &b| peaks[b].score.total_cmp(&peaks[a].score));
    let mut used = vec![false; peaks.len()];
    let mut tried = vec![false; peaks.len()];
    let (mut stamp, mut grown) = (vec![0u32; peaks.len()], 0u32);
    let mut out = Vec::new();
    for seed in order.into_iter().take(MAX_SEEDS) {
        if used[seed] || tried[seed] {
            continue;
        }
        tried[seed] = true;
        let Some((ex, ey)) = seed_frame(&grid, seed) else { continue };
        grown += 1;
        let taken = grow(&grid, seed, ex, ey, &used, &mut stamp, grown);
        // A board shows at least three rows and three columns of corners; text lines grow
        // into long thin lattices, not worth fitting.
        let span = |f: fn(&((i32, i32), usize)) -> i32| {
            let (lo, hi) = minmax(taken.iter().map(f));
            hi - lo
        };
        if taken.len() < 9 || span(|t| t.0 .0) < 2 || span(|t| t.0 .1) < 2 {
            continue;
        }
        let nodes: Vec<(i32, i32, Point)> =
            taken.iter().map(|&((i, j), n)| (i, j, Point::new(peaks[n].x, peaks[n].y))).collect();
        let Some(nodes) = resnap(&nodes).and_then(|n| resnap(&n)) else { continue };
        if nodes.len() < 9 || !regular(&nodes) {
            continue;
        }
        for &(_, n) in &taken {
            used[n] = true;
            tried[n] = true;
        }
        out.push(Lattice { nodes, positive0: peaks[seed].positive });
    }
    out
}

/// Seeds tried per image, strongest first.
const MAX_SEEDS: usize = 400;

/// Joins lattices that are pieces of one board. Growth stops where pieces hide more than one
/// corner in a row, so a crowded board can come out as two or three lattices, each too small to
/// be fitted alone. Two lattices join when either one's grid, extrapolated, puts at least 80% of
/// the other's nodes within a quarter step of its corners, all at one offset and of the right
/// polarity, and the two together span no more than a board's 9x9 corners, its edge included:
/// a fragment often holds corners on the board's edge, where the squares meet the frame or the
/// paper (two boards side by side span more).
fn merge_fragments(mut lats: Vec<Lattice>) -> Vec<Lattice> {
    let mut grids: Vec<Option<Homography>> = lats.iter().map(grid_of).collect();
    let mut a = 0;
    while a < lats.len() {
        let mut b = a + 1;
        while b < lats.len() {
            // Either grid may extrapolate: a fragment of two rows says little about the rows
            // beyond it, while its partner's grid may place it well.
            let both = grids[a]
                .as_ref()
                .and_then(|g| joined(&lats[a], g, &lats[b]))
                .or_else(|| grids[b].as_ref().and_then(|g| joined(&lats[b], g, &lats[a])));
            match both {
                Some(both) => {
                    grids[a] = grid_of(&both);
                    lats[a] = both;
                    lats.remove(b);
                    grids.remove(b);
                    b = a + 1;
                }
                None => b += 1,
            }
        }
        a += 1;
    }
    lats
}

/// The map from image points to a lattice's coordinates (a robust fit of its nodes).
fn grid_of(lat: &Lattice) -> Option<Homography> {
    let src: Vec<Point> = lat.nodes.iter().map(|&(i, j, _)| Point::new(i as f64, j as f64)).collect();
    let dst: Vec<Point> = lat.nodes.iter().map(|&(_, _, p)| p).collect();
    robust_fit(&src, &dst)?.inverse()
}

/// `b`'s nodes added to `a`'s, in `a`'s lattice coordinates, when they are one board's
/// ([`merge_fragments`]); `grid` maps image points to `a`'s lattice coordinates.
fn joined(a: &Lattice, grid: &Homography, b: &Lattice) -> Option<Lattice> {
    let on_a: Vec<Point> = b.nodes.iter().map(|&(_, _, p)| grid.apply(p)).collect();
    let near = |u: &Point, (ci, cj): (i32, i32)| (u.x - ci as f64).hypot(u.y - cj as f64) <= 0.25;
    let mut offsets: BTreeMap<(i32, i32), usize> = BTreeMap::new();
    for (&(i, j, _), u) in b.nodes.iter().zip(&on_a) {
        let (ci, cj) = (u.x.round() as i32, u.y.round() as i32);
        if near(u, (ci, cj)) {
            *offsets.entry((ci - i, cj - j)).or_default() += 1;
        }
    }
    let (&(di, dj), &agree) = offsets.iter().max_by_key(|&(_, &n)| n)?;
    // Node (i, j) of a lattice has its (0, 0) node's polarity when i + j is even.
    let polarity_fits = (a.positive0 == b.positive0) == ((di + dj).rem_euclid(2) == 0);
    if 5 * agree < 4 * b.len() || !polarity_fits {
        return None;
    }
    // Only b's nodes that lie on a's grid at that offset: a stray peak taken in growth must not
    // stretch the pair beyond a board.
    let mut nodes = a.nodes.clone();
    for (&(i, j, p), u) in b.nodes.iter().zip(&on_a) {
        let at = (i + di, j + dj);
        if near(u, at) && !nodes.iter().any(|&(ni, nj, _)| (ni, nj) == at) {
            nodes.push((at.0, at.1, p));
        }
    }
    let (ilo, ihi) = minmax(nodes.iter().map(|n| n.0));
    let (jlo, jhi) = minmax(nodes.iter().map(|n| n.1));
    if ihi - ilo > 8 || jhi - jlo > 8 {
        return None;
    }
    let nodes = resnap(&nodes)?;
    (nodes.len() > a.len() && regular(&nodes)).then_some(Lattice { nodes, positive0: a.positive0 })
}

/// Breadth-first growth from `seed` with lattice vectors `ex`, `ey` (see [`link_lattices`]):
/// the lattice nodes as ((i, j), peak). `stamp` marks the peaks taken by this growth (it holds
/// a number per peak; `id` is this growth's).
fn grow(
    grid: &PeakGrid,
    seed: usize,
    ex: (f64, f64),
    ey: (f64, f64),
    used: &[bool],
    stamp: &mut [u32],
    id: u32,
) -> Vec<((i32, i32), usize)> {
    const REACH: i32 = 12;
    const SIDE: usize = (2 * REACH + 1) as usize;
    let slot = |i: i32, j: i32| ((j + REACH) as usize) * SIDE + (i + REACH) as usize;
    let peaks = grid.peaks;
    let mut at = [u32::MAX; SIDE * SIDE];
    let mut taken = vec![((0, 0), seed)];
    at[slot(0, 0)] = seed as u32;
    stamp[seed] = id;
    let mut queue = VecDeque::from([(seed, 0i32, 0i32, ex, ey)]);
    while let Some((u, i, j, ex, ey)) = queue.pop_front() {
        let pu = peaks[u];
        for &(di, dj) in &[(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let e = if di != 0 { ex } else { ey };
            let sign = (di + dj) as f64;
            let unit = e.0.hypot(e.1);
            for step in [1i32, 2] {
                let (ni, nj) = (i + di * step, j + dj * step);
                if ni.abs() > REACH || nj.abs() > REACH || at[slot(ni, nj)] != u32::MAX {
                    break;
                }
                let k = sign * step as f64;
                let (qx, qy) = (pu.x + k * e.0, pu.y + k * e.1);
                // Polarity alternates with each step.
                let want = if step == 1 { !pu.positive } else { pu.positive };
                let Some(v) = grid.nearest(qx, qy, 0.2 * unit, want) else { continue };
                if used[v] || stamp[v] == id {
                    break;
                }
                let pv = peaks[v];
                let m = ((pv.x - pu.x) / k, (pv.y - pu.y) / k);
                let e2 = (0.75 * e.0 + 0.25 * m.0, 0.75 * e.1 + 0.25 * m.1);
                let (nex, ney) = if di != 0 { (e2, ey) } else { (ex, e2) };
                at[slot(ni, nj)] = v as u32;
                taken.push(((ni, nj), v));
                stamp[v] = id;
                queue.push_back((v, ni, nj, nex, ney));
                break;
            }
        }
    }
    taken
}

/// Re-derives each node's lattice coordinates from a robust homography fit of all nodes: a node
/// is kept at the lattice point nearest to it (within a quarter step, same polarity), so a few
/// peaks taken by mistake during growth cannot bend the lattice.
fn resnap(nodes: &[(i32, i32, Point)]) -> Option<Vec<(i32, i32, Point)>> {
    let src: Vec<Point> = nodes.iter().map(|&(i, j, _)| Point::new(i as f64, j as f64)).collect();
    let dst: Vec<Point> = nodes.iter().map(|&(_, _, p)| p).collect();
    let inv = robust_fit(&src, &dst)?.inverse()?;
    let mut best: BTreeMap<(i32, i32), (f64, Point)> = BTreeMap::new();
    for &(i, j, p) in nodes {
        let u = inv.apply(p);
        let (ci, cj) = (u.x.round() as i32, u.y.round() as i32);
        let err = (u.x - ci as f64).hypot(u.y - cj as f64);
        if err > 0.25 || (ci + cj - i - j).rem_euclid(2) != 0 {
            continue;
        }
        if best.get(&(ci, cj)).is_none_or(|&(e, _)| err < e) {
            best.insert((ci, cj), (err, p));
        }
    }
    Some(best.into_iter().map(|((i, j), (_, p))| (i, j, p)).collect())
}

/// Whether lattice nodes lie on one projective grid: the RMS residual of a homography fit is
/// under a tenth of a step.
fn regular(nodes: &[(i32, i32, Point)]) -> bool {
    let src: Vec<Point> = nodes.iter().map(|&(i, j, _)| Point::new(i as f64, j as f64)).collect();
    let dst: Vec<Point> = nodes.iter().map(|&(_, _, p)| p).collect();
    let Some(h) = Homography::fit(&src, &dst) else { return false };
    let rms = (src.iter().zip(&dst).map(|(s, d)| h.apply(*s).dist(*d).powi(2)).sum::<f64>() / src.len() as f64).sqrt();
    let (ci, cj) = (
        src.iter().map(|p| p.x).sum::<f64>() / src.len() as f64,
        src.iter().map(|p| p.y).sum::<f64>() / src.len() as f64,
    );
    let c = Point::new(ci.round(), cj.round());
    let step = h.apply(c).dist(h.apply(Point::new(c.x + 1.0, c.y)));
    rms < 0.1 * step
}

/// The lattice vectors at a seed: the offsets to its nearest opposite-polarity peaks roughly to
/// the right and below, which must be of similar length ([`SEED_STEP_RATIO`]).
fn seed_frame(grid: &PeakGrid, seed: usize) -> Option<((f64, f64), (f64, f64))> {
    let p = grid.peaks[seed];
    let mut best: [Option<(f64, f64, f64)>; 2] = [None, None];
    // Widen the search until both neighbours are found: none nearer can lie outside it.
    let mut radius = 24.0f64;
    loop {
        let radius_now = radius.min(MAX_STEP);
        for v in grid.near(p.x, p.y, radius_now) {
            let q = grid.peaks[v];
            if q.positive == p.positive {
                continue;
            }
            let (dx, dy) = (q.x - p.x, q.y - p.y);
            let d = dx.hypot(dy);
            if d < MIN_STEP {
                continue;
            }
            for (k, (along, across)) in [(dx, dy.abs()), (dy, dx.abs())].into_iter().enumerate() {
                if along > 0.0 && across <= 0.45 * along && best[k].is_none_or(|(_, _, bd)| d < bd) {
                    best[k] = Some((dx, dy, d));
                }
            }
        }
        if best.iter().all(Option::is_some) || radius_now >= MAX_STEP {
            break;
        }
        radius *= 2.0;
    }
    let (rx, ry, rd) = best[0]?;
    let (dx, dy, dd) = best[1]?;
    if (rd - dd).abs() > SEED_STEP_RATIO * rd.max(dd) {
        return None;
    }
    Some(((rx, ry), (dx, dy)))
}

/// How much the two lattice vectors at a seed may differ in length, as a share of the longer
/// ([`seed_frame`]). Squares are square, and a board seen at an angle changes them little from
/// one corner to the next; a hatched diagram turned by 10 degrees or more puts peaks of the
/// opposite polarity at two thirds of a square along its hatch, and at 0.3 a seed took one
/// of them for its neighbour and grew a lattice of the wrong pitch (realdata-dev turned by 10
/// degrees: 59/62 boards found at 0.3, 61/62 at 0.2).
const SEED_STEP_RATIO: f64 = 0.2;

/// Lattice points on the board's edge (the ring of 32 just outside a window of interior
/// corners) that a board's surroundings may hold.
const EDGE_RING_MAX: usize = 8;

/// Whether the lattice continues all around the 7x7 window of interior corners at (i0, j0), as
/// on a checkered texture, rather than only on some sides (text or a pattern beside a board).
/// Both rings must be crowded: the board's edge (more than [`EDGE_RING_MAX`] points), which
/// alone can show corners all round where a frame line or the paper meets the squares, and the
/// ring of 40 beyond it, on three sides or four (at least 3 of a side's 11 points): a window one
/// step in from a texture's edge has it on three.
fn texture_around(nodes: &[(i32, i32, Point)], i0: i32, j0: i32) -> bool {
    let edge = edge_ring(nodes, i0, j0);
    let side = |on: &dyn Fn(i32, i32) -> bool| {
        nodes.iter().filter(|&&(i, j, _)| around_window(i0, j0, 2, i, j) && on(i, j)).count() >= 3
    };
    let sides =
        [side(&|i, _| i == i0 - 2), side(&|i, _| i == i0 + 8), side(&|_, j| j == j0 - 2), side(&|_, j| j == j0 + 8)];
    edge > EDGE_RING_MAX && sides.iter().filter(|&&s| s).count() >= 3
}

/// The lattice nodes on the board's edge around the 7x7 window of interior corners at (i0, j0):
/// the ring of 32 points just outside it.
fn edge_ring(nodes: &[(i32, i32, Point)], i0: i32, j0: i32) -> usize {
    nodes.iter().filter(|&&(i, j, _)| around_window(i0, j0, 1, i, j) && !around_window(i0, j0, 0, i, j)).count()
}

/// Whether lattice point (i, j) lies within `r` steps of the 7x7 window of interior corners at
/// (i0, j0) (on it for `r` = 0).
fn around_window(i0: i32, j0: i32, r: i32, i: i32, j: i32) -> bool {
    (i0 - r..=i0 + 6 + r).contains(&i) && (j0 - r..=j0 + 6 + r).contains(&j)
}

/// Chooses the 7x7 window of interior corners, refines it at full resolution and fits the board.
///
/// A lattice may reach beyond its board into text or a pattern beside it: the windows with the
/// most nodes are tried in turn. In a lattice wider than a board, a window with a checkered
/// texture all around it is passed over ([`texture_around`]). `taken` are the boards found
/// already: a window of the refined grid that reaches into one of them is not this board
/// ([`on_other_board`]).
fn fit_board(
    img: &GrayImage,
    work: &GrayImage,
    lat: &Lattice,
    k: f64,
    opts: &LocateOptions,
    taken: &[Located],
) -> Option<Located> {
    let (imin, imax) = minmax(lat.nodes.iter().map(|n| n.0));
    let (jmin, jmax) = minmax(lat.nodes.iter().map(|n| n.1));
    let windows = |lo: i32, hi: i32| -> Vec<i32> {
        if hi - lo >= 6 {
            (lo..=hi - 6).collect()
        } else {
            (hi - 6..=lo).collect()
        }
    };
    let mut candidates = Vec::new();
    for i0 in windows(imin, imax) {
        for j0 in windows(jmin, jmax) {
            let n = lat.nodes.iter().filter(|&&(i, j, _)| around_window(i0, j0, 0, i, j)).count();
            // Ties: prefer the window with the fewest nodes on its edge (in a lattice that runs
            // on into a second board beside it, the window flush with the lattice's end), then
            // the window centred on the lattice.
            let edge = edge_ring(&lat.nodes, i0, j0);
            let off = ((imin + imax) - (2 * i0 + 6)).abs() + ((jmin + jmax) - (2 * j0 + 6)).abs();
            candidates.push((n, edge, off, i0, j0));
        }
    }
    candidates.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let wide = core_span(&lat.nodes) > MAX_SPAN;
    for &(n, _, _, i0, j0) in candidates.iter().take(4) {
        if n < 9 {
            break;
        }
        if wide && texture_around(&lat.nodes, i0, j0) {
            trace!("  window {i0},{j0}: {n} nodes, a checkered texture around it");
            continue;
        }
        // Counting corners cannot tell a window from one a rank or a file beside it when rows
        // of corners are hidden by pieces or the board's edge shows corner-like marks. The
        // window and its neighbours up to three steps away are ranked by how clearly their 64
        // squares alternate light and dark (a shifted window takes in a row of background and
        // loses a row of squares), first on the lattice around the window, then again, a step
        // either way (two when clearly better), on the refined grid.
        let near = |&&(i, j, _): &&(i32, i32, Point)| (i0 - 2..=i0 + 8).contains(&i) && (j0 - 2..=j0 + 8).contains(&j);
        let src: Vec<Point> = lat.nodes.iter().filter(near).map(|&(i, j, _)| Point::new(i as f64, j as f64)).collect();
        let dst: Vec<Point> = lat.nodes.iter().filter(near).map(|&(_, _, p)| p).collect();
        let Some(lattice) = robust_fit(&src, &dst) else { continue };
        // On the level the lattice was found at: cheaper, and its squares are at least a few
        // pixels.
        let shifts = ranked_shifts(work, 3, |x, y| lattice.apply(Point::new(x + (i0 - 1) as f64, y + (j0 - 1) as f64)));
        trace!("  windows by checker contrast: {:?}", &shifts[..3]);
        for &Shift { contrast, di, dj, .. } in shifts.iter().take(3) {
            // Text, hatching and textures line up in lattices too, but their "squares" do not
            // alternate: not worth refining.
            if contrast < MIN_CHECKER_CONTRAST {
                break;
            }
            let (a, b) = (i0 + di, j0 + dj);
            let Some((located, grid)) = fit_window(img, lat, k, a, b, opts) else { continue };
            // At full resolution, text and patterns that looked like squares on the working
            // level show what they are: the window or one a step over must alternate clearly.
            // The board then lies at the best window within a step, or two steps over when
            // that one is clearly better (see FAR_SHIFT_MARGIN).
            let mut ranked = ranked_shifts(img, 2, |x, y| grid.apply(Point::new(x, y)));
            // A board beside one found already (two boards on a photo, a fraction of a square
            // apart and in step) alternates alike in the windows that reach into its
            // neighbour: those are not this board.
            let centre = grid.apply(Point::new(4.0, 4.0));
            let others: Vec<&Quad> = taken.iter().map(|b| &b.quad).filter(|q| !q.contains(centre)).collect();
            ranked.retain(|s| !on_other_board(&grid, s, &others));
            if ranked.len() < 3 {
                continue;
            }
            trace!("  refined grid: {:?}", &ranked[..3]);
            // A faint board (a small diagram on a defocused photo) may alternate too faintly
            // for that, or alike in neighbouring windows; it is still told by its edges, when
            // the lattice is a board's and holds enough of its corners (text and textures
            // alternate faintly too, but around and beyond any window).
            let faint = || {
                if wide || n < MIN_BOUNDED_CORNERS {
                    return None;
                }
                bounded_shift(&shifts_measured(img, 2, true, |x, y| grid.apply(Point::new(x, y))))
            };
            let Some((di, dj)) = choose_shift(&ranked).or_else(faint) else { continue };
            // Windows that alternate alike (two boards side by side, in step across a gap of a
            // fraction of a square: a window straddling the gap alternates as well as either
            // board's own) are told apart by what lies beyond them.
            let (di, dj) = if ranked[0].contrast - ranked[1].contrast < MIN_SHIFT_MARGIN {
                untie(&shifts_measured(img, 2, true, |x, y| grid.apply(Point::new(x, y))), (di, dj))
            } else {
                (di, dj)
            };
            if (di, dj) == (0, 0) {
                return Some(located);
            }
            trace!("  refined grid prefers a shift of {di},{dj}");
            // First from the lattice; where it holds too few nodes on the row or column the
            // window gains, from the refined grid itself; where neither refines (the corners it
            // gains are hidden), the refined grid's own window there. A window that would leave
            // the picture replaces the unmoved one only when it alternates clearly better (a
            // board photographed partly out of frame): a faint tie is no reason to move off
            // the picture.
            let positive11 = lat.positive0 == ((a + b).rem_euclid(2) == 0);
            let contrast_at =
                |shift: (i32, i32)| ranked.iter().find(|s| (s.di, s.dj) == shift).map_or(0.0, |s| s.contrast);
            let clearly = contrast_at((di, dj)) >= contrast_at((0, 0)) + MIN_SHIFT_MARGIN;
            let shifted = window_of(&grid, di, dj);
            let moved = if clearly || plausible(&shifted, img.width() as f64, img.height() as f64) {
                shifted
            } else {
                located.quad
            };
            return fit_window(img, lat, k, a + di, b + dj, opts)
                .or_else(|| fit_shifted(img, &grid, positive11, di, dj, opts))
                .map(|(l, _)| l)
                .or(Some(Located { quad: moved, ..located }));
        }
    }
    None
}

/// Whether the window `s` of `grid` reaches into one of `others`, boards found already: the
/// centre of one of its edge squares (the middle of its first or last file or rank) lies inside
/// one.
fn on_other_board(grid: &Homography, s: &Shift, others: &[&Quad]) -> bool {
    [(0.5, 4.0), (7.5, 4.0), (4.0, 0.5), (4.0, 7.5)].iter().any(|&(x, y)| {
        let c = grid.apply(Point::new(x + s.di as f64, y + s.dj as f64));
        others.iter().any(|q| q.contains(c))
    })
}

/// Whether the board window whose board coordinates `to_image` maps to pixels lies in `img`:
/// at most [`MAX_SQUARES_OFF_PICTURE`] of its 64 square centres outside it.
fn in_picture(img: &GrayImage, to_image: impl Fn(f64, f64) -> Point) -> bool {
    let (w, h) = (img.width() as f64, img.height() as f64);
    let off = (0..64)
        .map(|i| to_image((i % 8) as f64 + 0.5, (i / 8) as f64 + 0.5))
        .filter(|p| p.x < 0.0 || p.y < 0.0 || p.x > w || p.y > h)
        .count();
    off <= MAX_SQUARES_OFF_PICTURE
}

/// See [`in_picture`]: a photo may cut off a corner of its board, not a rank.
const MAX_SQUARES_OFF_PICTURE: usize = 4;

/// How clearly the board window `quad` alternates light and dark, as the finder ranks windows
/// ([`checker_contrast`] of its squares less a gradient of light; 0 when it leaves the picture).
/// A window that takes in a file or rank of page beside the board scores about an eighth less
/// than the board's own.
pub fn window_contrast(img: &GrayImage, quad: &Quad) -> f64 {
    let h = quad.board_to_image();
    let to_image = |x: f64, y: f64| h.apply(Point::new(x, y));
    if !in_picture(img, to_image) {
        return 0.0;
    }
    let values: Vec<f64> = (0..64).map(|i| square_value(img, to_image, (i % 8) as f64, (i / 8) as f64)).collect();
    checker_contrast(&without_gradient(&values))
}

/// Where the board lies, from the windows around a refined grid ranked by [`ranked_shifts`] with
/// a reach of two: the best window within one step, or the best one two steps over when it
/// alternates [`FAR_SHIFT_MARGIN`] more clearly. None when no window within one step alternates
/// clearly enough for a board ([`MIN_REFINED_CONTRAST`]).
fn choose_shift(ranked: &[Shift]) -> Option<(i32, i32)> {
    let near = *ranked.iter().find(|s| s.di.abs() <= 1 && s.dj.abs() <= 1)?;
    if near.contrast < MIN_REFINED_CONTRAST {
        return None;
    }
    let best = if ranked[0].contrast >= near.contrast + FAR_SHIFT_MARGIN { ranked[0] } else { near };
    let runner_up =
        ranked.iter().filter(|s| (s.di, s.dj) != (best.di, best.dj)).map(|s| s.contrast).fold(0.0, f64::max);
    if best.contrast < CLEAR_CONTRAST && best.contrast - runner_up < MIN_SHIFT_MARGIN {
        return None;
    }
    Some((best.di, best.dj))
}

/// Where [`choose_shift`] finds no board, the window whose squares alternate inside and stop at
/// its four edges: ranked by checker contrast less [`BEYOND_WEIGHT`] times how far the checker
/// goes on beyond it ([`checkered_beyond`]). Kept when it alternates at least
/// [`MIN_BOUNDED_CONTRAST`], nothing beyond it goes on in step ([`MAX_BOUNDED_BEYOND`]), and it
/// leads every other window by [`BOUNDED_MARGIN`]. A window a rank inside a faint board has a
/// rank of squares beyond it; a window over text or a texture has more of it all round.
fn bounded_shift(ranked: &[Shift]) -> Option<(i32, i32)> {
    let score = |s: &Shift| s.contrast - BEYOND_WEIGHT * s.beyond.max(0.0);
    let mut by_score: Vec<&Shift> = ranked.iter().collect();
    by_score.sort_by(|a, b| score(b).total_cmp(&score(a)));
    let (top, second) = (by_score[0], by_score.get(1)?);
    trace!("  bounded by its edges: {top:?}, then {second:?}");
    (top.contrast >= MIN_BOUNDED_CONTRAST
        && top.beyond <= MAX_BOUNDED_BEYOND
        && score(top) - score(second) >= BOUNDED_MARGIN)
        .then_some((top.di, top.dj))
}

/// Among the windows that alternate within [`MIN_SHIFT_MARGIN`] of the best (`measured` by
/// [`shifts_measured`] with what lies beyond), the one with the least checker beyond its sides,
/// when it has [`UNTIE_LEAD`] less than the window `chosen`; otherwise `chosen`.
fn untie(measured: &[Shift], chosen: (i32, i32)) -> (i32, i32) {
    let Some(best) = measured.first() else { return chosen };
    let Some(at_chosen) = measured.iter().find(|s| (s.di, s.dj) == chosen) else { return chosen };
    let tied = measured.iter().filter(|s| best.contrast - s.contrast < MIN_SHIFT_MARGIN);
    let Some(clear) = tied.min_by(|a, b| a.beyond.total_cmp(&b.beyond)) else { return chosen };
    trace!("  tied windows: {:?} has the least beyond it, {:?} was chosen", clear, at_chosen);
    if clear.beyond + UNTIE_LEAD <= at_chosen.beyond {
        (clear.di, clear.dj)
    } else {
        chosen
    }
}

/// See [`untie`].
const UNTIE_LEAD: f64 = 0.3;

/// [`bounded_shift`]'s weight of the checker beyond a window against the one inside it.
const BEYOND_WEIGHT: f64 = 0.6;
/// [`bounded_shift`]'s least contrast inside a window (a board window needs
/// [`MIN_REFINED_CONTRAST`] otherwise).
const MIN_BOUNDED_CONTRAST: f64 = 0.45;
/// [`bounded_shift`]'s most checker beyond the window's sides.
const MAX_BOUNDED_BEYOND: f64 = 0.15;
/// [`bounded_shift`]'s least lead of the window over the next.
const BOUNDED_MARGIN: f64 = 0.1;
/// The lattice corners a window must hold for [`bounded_shift`] (of its 49 inner ones, with
/// those on its edge).
const MIN_BOUNDED_CORNERS: usize = 20;

/// A board window shifted by (`di`, `dj`) squares ([`ranked_shifts`]): how clearly its squares
/// alternate ([`checker_contrast`]), and how clearly the checker goes on beyond its sides
/// ([`checkered_beyond`]).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Shift {
    contrast: f64,
    beyond: f64,
    di: i32,
    dj: i32,
}

/// The board windows shifted by up to `reach` squares either way, ranked by how clearly their
/// 64 squares alternate light and dark once a gentle gradient of light is taken out
/// ([`without_gradient`], [`checker_contrast`]), best first. `to_image` maps the unshifted
/// window's board coordinates to pixels. Each square is measured once, for every window that
/// holds it.
fn ranked_shifts(img: &GrayImage, reach: i32, to_image: impl Fn(f64, f64) -> Point) -> Vec<Shift> {
    shifts_measured(img, reach, false, to_image)
}

/// [`ranked_shifts`], and with `beyond` also what lies beyond each window (otherwise 0), for
/// which one square more is measured all round.
fn shifts_measured(img: &GrayImage, reach: i32, beyond: bool, to_image: impl Fn(f64, f64) -> Point) -> Vec<Shift> {
    let ext = if beyond { reach + 1 } else { reach };
    let n = 8 + 2 * ext;
    let values: Vec<f64> =
        (0..n * n).map(|i| square_value(img, &to_image, (i % n - ext) as f64, (i / n - ext) as f64)).collect();
    let at = |x: i32, y: i32| values[((y + ext) * n + x + ext) as usize];
    let mut shifts = Vec::with_capacity(((2 * reach + 1) * (2 * reach + 1)) as usize);
    for di in -reach..=reach {
        for dj in -reach..=reach {
            let window: Vec<f64> = (0..64).map(|i| at(i % 8 + di, i / 8 + dj)).collect();
            // A window that leaves the picture by more than a corner is not the board, however
            // well it alternates: in a tight crop under uneven light, a window a rank off the
            // picture (background there) can outscore the board, whose shaded rank alternates
            // faintly.
            let inside = in_picture(img, |x, y| to_image(x + di as f64, y + dj as f64));
            let contrast = if inside { checker_contrast(&without_gradient(&window)) } else { 0.0 };
            let beyond = if beyond { checkered_beyond(&window, |x, y| at(x + di, y + dj)) } else { 0.0 };
            shifts.push(Shift { contrast, beyond, di, dj });
        }
    }
    shifts.sort_by(|x, y| {
        y.contrast.total_cmp(&x.contrast).then((x.di.abs() + x.dj.abs()).cmp(&(y.di.abs() + y.dj.abs())))
    });
    shifts
}

/// The grey of the board square whose top-left corner is at board coordinates (x, y): the
/// median of eight small patches along its border (pieces stand in the middle); NaN when too
/// few patches lie inside the picture.
fn square_value(img: &GrayImage, to_image: impl Fn(f64, f64) -> Point, x: f64, y: f64) -> f64 {
    const C: f64 = 0.12;
    const E: f64 = 0.08;
    const POINTS: [(f64, f64); 8] =
        [(C, C), (0.5, E), (1.0 - C, C), (1.0 - E, 0.5), (1.0 - C, 1.0 - C), (0.5, 1.0 - E), (C, 1.0 - C), (E, 0.5)];
    let (w, h) = (img.width() as i64, img.height() as i64);
    let side = to_image(x, y).dist(to_image(x + 1.0, y));
    let rho = ((side * 0.05).round() as i64).max(1);
    let (raw, stride) = (img.as_raw(), img.width() as usize);
    let mut v = [0.0f64; 8];
    let mut len = 0;
    for &(dx, dy) in &POINTS {
        let p = to_image(x + dx, y + dy);
        let (cx, cy) = (p.x.round() as i64, p.y.round() as i64);
        if cx - rho < 0 || cy - rho < 0 || cx + rho >= w || cy + rho >= h {
            continue;
        }
        let mut sum = 0u32;
        for yy in (cy - rho) as usize..=(cy + rho) as usize {
            let row = &raw[yy * stride + (cx - rho) as usize..=yy * stride + (cx + rho) as usize];
            sum += row.iter().map(|&g| g as u32).sum::<u32>();
        }
        v[len] = sum as f64 / ((2 * rho + 1) * (2 * rho + 1)) as f64;
        len += 1;
    }
    if len < 5 {
        return f64::NAN;
    }
    let v = &mut v[..len];
    v.sort_by(f64::total_cmp);
    (v[(len - 1) / 2] + v[len / 2]) / 2.0
}

/// How textured the board square whose top-left corner is at board coordinates (x, y) is: the
/// median, over eight patches along its border, of the grey levels' standard deviation in a
/// patch a fifth of a square wide. A hatch too faint to darken a square still textures it.
fn square_texture(img: &GrayImage, to_image: impl Fn(f64, f64) -> Point, x: f64, y: f64) -> f64 {
    const C: f64 = 0.15;
    const POINTS: [(f64, f64); 8] =
        [(C, C), (0.5, C), (1.0 - C, C), (1.0 - C, 0.5), (1.0 - C, 1.0 - C), (0.5, 1.0 - C), (C, 1.0 - C), (C, 0.5)];
    let (w, h) = (img.width() as i64, img.height() as i64);
    let side = to_image(x, y).dist(to_image(x + 1.0, y));
    let rho = ((side * 0.1).round() as i64).max(1);
    let mut v = Vec::with_capacity(8);
    for &(dx, dy) in &POINTS {
        let p = to_image(x + dx, y + dy);
        let (cx, cy) = (p.x.round() as i64, p.y.round() as i64);
        if cx - rho < 0 || cy - rho < 0 || cx + rho >= w || cy + rho >= h {
            continue;
        }
        let (mut sum, mut sq, mut n) = (0.0, 0.0, 0.0);
        for yy in cy - rho..=cy + rho {
            for xx in cx - rho..=cx + rho {
                let g = img.get_pixel(xx as u32, yy as u32)[0] as f64;
                sum += g;
                sq += g * g;
                n += 1.0;
            }
        }
        v.push((sq / n - (sum / n).powi(2)).max(0.0).sqrt());
    }
    if v.len() < 5 {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    (v[(v.len() - 1) / 2] + v[v.len() / 2]) / 2.0
}

/// How clearly 64 square values (a8 to h1 order; NaN for unknown) alternate light and dark,
/// from -1 to 1: the mean over the squares of how far each lies on its colour's side of the
/// midpoint between the two colours' medians, in units of half their difference, clamped to
/// [-1, 1]. A square of background scores about 0, so a window shifted off the board by a
/// rank loses an eighth.
fn checker_contrast(values: &[f64]) -> f64 {
    let Some((mid, half)) = checker_levels(values) else { return 0.0 };
    let mut sum = 0.0;
    for (i, v) in values.iter().enumerate() {
        if !v.is_nan() {
            sum += in_step(*v, mid, half, (i / 8 + i % 8) % 2 == 0);
        }
    }
    sum / 64.0
}

/// How far the square value `v` lies on its colour's side of the checker's midpoint `mid`, in
/// units of the half contrast `half` ([`checker_levels`]), clamped to [-1, 1]; `a8_colour` when
/// the square has a8's colour.
fn in_step(v: f64, mid: f64, half: f64, a8_colour: bool) -> f64 {
    let s = if a8_colour { 1.0 } else { -1.0 };
    ((v - mid) * s / half).clamp(-1.0, 1.0)
}

/// The midpoint between the medians of a window's two square colours (64 values, a8 to h1
/// order, NaN for unknown) and half their difference, signed: positive when the squares of
/// a8's colour are the lighter. None when the two differ by less than 6 grey levels.
fn checker_levels(values: &[f64]) -> Option<(f64, f64)> {
    let median = |parity: usize| {
        let mut v: Vec<f64> =
            (0..64).filter(|i| (i / 8 + i % 8) % 2 == parity).map(|i| values[i]).filter(|v| !v.is_nan()).collect();
        if v.is_empty() {
            return f64::NAN;
        }
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (light, dark) = (median(0), median(1));
    let half = (light - dark) / 2.0;
    (half.abs() >= 3.0).then_some(((light + dark) / 2.0, half))
}

/// How clearly the checker of a window (its 64 square values, a8 to h1 order) goes on beyond
/// it: for each side, the mean over the 8 squares just outside of how far each lies on the
/// side of the window's midpoint that its colour would have, in units of the window's half
/// contrast (as [`checker_contrast`] measures inside), summed over the sides where it is
/// positive. A board's own window has background beyond each side, uniform or not in step with
/// the squares, about 0 (and one side's worth with a second board in step beside it); a window
/// a rank or a file inside the board has a rank or file of squares beyond one side, about as
/// much as inside, and one straddling two boards side by side has squares beyond two.
/// `beyond(x, y)` is the value of the square at window coordinates (x, y), x and y from -1 to 8.
fn checkered_beyond(window: &[f64], beyond: impl Fn(i32, i32) -> f64) -> f64 {
    let Some((mid, half)) = checker_levels(window) else { return 0.0 };
    let side = |squares: &mut dyn Iterator<Item = (i32, i32)>| {
        let (mut sum, mut known) = (0.0, 0);
        for (x, y) in squares {
            let v = beyond(x, y);
            if !v.is_nan() {
                sum += in_step(v, mid, half, (x + y).rem_euclid(2) == 0);
                known += 1;
            }
        }
        if known >= 4 {
            sum / known as f64
        } else {
            0.0
        }
    };
    [
        side(&mut (0..8).map(|x| (x, -1))),
        side(&mut (0..8).map(|x| (x, 8))),
        side(&mut (0..8).map(|y| (-1, y))),
        side(&mut (0..8).map(|y| (8, y))),
    ]
    .into_iter()
    .map(|v| v.max(0.0))
    .sum()
}

/// The steepest gradient [`without_gradient`] removes, per square, as a share of the checker's
/// half-contrast.
const MAX_GRADIENT: f64 = 0.15;

/// 64 square values (a8 to h1 order; NaN for unknown) less the linear gradient across the
/// board that a least-squares fit of level, gradient and checker finds: the uneven light of a
/// photo (vignetting, a lamp to one side) can make the light squares on one side darker than
/// the dark squares on the other.
fn without_gradient(values: &[f64]) -> Vec<f64> {
    // Least squares for v = a + b x + c y + d s (x, y centred; s = +1 light, -1 dark); a singular
    // system leaves the values as they are.
    let rows = values.iter().enumerate().filter(|(_, v)| !v.is_nan()).map(|(i, &v)| {
        let (x, y) = ((i % 8) as f64 - 3.5, (i / 8) as f64 - 3.5);
        let s = if (i / 8 + i % 8) % 2 == 0 { 1.0 } else { -1.0 };
        ([1.0, x, y, s], v)
    });
    let Some([_, gx, gy, d]) = crate::geometry::least_squares(rows) else {
        return values.to_vec();
    };
    // A gradient steeper than MAX_GRADIENT of the checker's half-contrast a square is not light
    // but the edge of the board: a window shifted onto a margin must not be levelled.
    let limit = MAX_GRADIENT * d.abs();
    let (b, c) = (gx.clamp(-limit, limit), gy.clamp(-limit, limit));
    values.iter().enumerate().map(|(i, &v)| v - b * ((i % 8) as f64 - 3.5) - c * ((i / 8) as f64 - 3.5)).collect()
}

/// Fits the board whose interior corners are the lattice window starting at (i0, j0).
/// Returns the board and its grid (board coordinates 0..8 to pixels).
fn fit_window(
    img: &GrayImage,
    lat: &Lattice,
    k: f64,
    i0: i32,
    j0: i32,
    opts: &LocateOptions,
) -> Option<(Located, Homography)> {
    // Board coordinates of an interior corner: (i - i0 + 1, j - j0 + 1), in 1..=7.
    let mut src = Vec::new();
    let mut dst = Vec::new();
    for &(i, j, p) in &lat.nodes {
        if around_window(i0, j0, 0, i, j) {
            src.push(Point::new((i - i0 + 1) as f64, (j - j0 + 1) as f64));
            dst.push(Point::new(p.x * k, p.y * k));
        }
    }
    let coarse = robust_fit(&src, &dst)?;
    // Polarity of the corner at board coordinates (1, 1).
    let parity = |i: i32, j: i32| (i + j).rem_euclid(2) == 0;
    let positive11 = lat.positive0 == parity(i0, j0);
    refine_window(img, &coarse, positive11, opts)
}

/// The board's outline `di` squares right and `dj` down from the window of `grid` (board
/// coordinates 0..8 to pixels).
fn window_of(grid: &Homography, di: i32, dj: i32) -> Quad {
    let (x, y) = (di as f64, dj as f64);
    Quad([(x, y), (x + 8.0, y), (x + 8.0, y + 8.0), (x, y + 8.0)].map(|(u, v)| grid.apply(Point::new(u, v))))
}

/// The board one window over from a fitted `grid`: `di` squares right and `dj` down, refined
/// from that grid's prediction (the lattice may hold few nodes on the row or column it gains).
fn fit_shifted(
    img: &GrayImage,
    grid: &Homography,
    positive11: bool,
    di: i32,
    dj: i32,
    opts: &LocateOptions,
) -> Option<(Located, Homography)> {
    let src: Vec<Point> = (0..=8).flat_map(|y| (0..=8).map(move |x| Point::new(x as f64, y as f64))).collect();
    let dst: Vec<Point> = src.iter().map(|p| grid.apply(Point::new(p.x + di as f64, p.y + dj as f64))).collect();
    let coarse = Homography::fit(&src, &dst)?;
    refine_window(img, &coarse, positive11 == ((di + dj) % 2 == 0), opts)
}

/// Refines the 49 interior corners predicted by `coarse` (board coordinates 0..8 to pixels) at
/// full resolution, fits the board's grid to them and checks it. `positive11` is the polarity of
/// the corner at board coordinates (1, 1). Returns the board and its grid.
fn refine_window(
    img: &GrayImage,
    coarse: &Homography,
    positive11: bool,
    opts: &LocateOptions,
) -> Option<(Located, Homography)> {
    // A grid extrapolated from a fragment (the bottom ranks of a small photographed diagram) can
    // miss the far ranks' corners by more than the search reaches, and the fit from the near
    // ones carries its perspective error on: the corners are searched again around the refined
    // grid while that finds more of them.
    let mut best = refine_once(img, coarse, positive11, opts)?;
    for _ in 0..REFINE_AGAIN {
        if best.0.corners_found >= REFINE_AGAIN_BELOW {
            break;
        }
        match refine_once(img, &best.1, positive11, opts) {
            Some(next) if next.0.corners_found > best.0.corners_found => best = next,
            _ => break,
        }
    }
    Some(best)
}

/// [`refine_window`] searches the corners again up to this many times, while fewer than
/// [`REFINE_AGAIN_BELOW`] of the 49 were found.
const REFINE_AGAIN: usize = 2;
const REFINE_AGAIN_BELOW: usize = 45;

/// One pass of [`refine_window`]: the 49 interior corners searched around `coarse`'s
/// predictions and a homography fitted to them.
fn refine_once(
    img: &GrayImage,
    coarse: &Homography,
    positive11: bool,
    opts: &LocateOptions,
) -> Option<(Located, Homography)> {
    let parity = |i: i32, j: i32| (i + j).rem_euclid(2) == 0;
    // Refine all 49 interior corners at full resolution around their predicted positions.
    let at = |x: f64, y: f64| coarse.apply(Point::new(x, y));
    let square = (at(1.0, 4.0).dist(at(7.0, 4.0)) + at(4.0, 1.0).dist(at(4.0, 7.0))) / 12.0;
    // No gap at full resolution: a gap would make the score flat over 2g+1 positions.
    let r = ((square / 6.0).round() as usize).clamp(2, 12);
    let g = 0;
    let search = ((square * 0.18).round() as usize).max(2);
    let mut src = Vec::new();
    let mut dst = Vec::new();
    for bj in 1..=7 {
        for bi in 1..=7 {
            let want_positive = positive11 == parity(bi - 1, bj - 1);
            let guess = coarse.apply(Point::new(bi as f64, bj as f64));
            if let Some(p) = refine_corner(img, guess, r, g, search, want_positive, opts.min_contrast) {
                src.push(Point::new(bi as f64, bj as f64));
                dst.push(p);
            }
        }
    }
    if src.len() < opts.min_corners {
        trace!("  refined only {}", src.len());
        return None;
    }
    let h = robust_fit(&src, &dst)?;
    let corners = [(0.0, 0.0), (8.0, 0.0), (8.0, 8.0), (0.0, 8.0)].map(|(x, y)| h.apply(Point::new(x, y)));
    let quad = Quad(corners);
    let side = quad.mean_side();
    if !side.is_finite() || side < MIN_BOARD_PX || !plausible(&quad, img.width() as f64, img.height() as f64) {
        trace!("  implausible {:?}", quad);
        return None;
    }
    // Corners of a real board sit on the fitted grid; text and texture do not. A few corners
    // refined onto a piece's edge are outliers: the grid must hold for the others.
    let res: Vec<f64> = src.iter().zip(&dst).map(|(s, d)| h.apply(*s).dist(*d)).collect();
    let mut sorted = res.clone();
    sorted.sort_by(f64::total_cmp);
    let limit = (3.0 * sorted[sorted.len() / 2]).max(0.1 * side / 8.0);
    let inliers: Vec<f64> = res.into_iter().filter(|&r| r <= limit).collect();
    let rms = (inliers.iter().map(|r| r * r).sum::<f64>() / inliers.len() as f64).sqrt();
    if inliers.len() < opts.min_corners || rms > MAX_RMS_SQUARES * side / 8.0 {
        trace!("  rms {rms} side {side} inliers {}", inliers.len());
        return None;
    }
    Some((Located { quad, corners_found: inliers.len(), rms_error: rms }, h))
}

/// Darker than this (grey level) is ink of a frame line.
const FRAME_INK: u8 = 110;

/// A straight dark band in an image: `[a0, a1)` is its extent along the line, `[c0, c1]` the
/// rows (or columns) it covers across it.
#[derive(Debug, Clone, Copy)]
struct Band {
    a0: usize,
    a1: usize,
    c0: usize,
    c1: usize,
}

/// Gaps of up to this many pixels are bridged within an ink line (anti-aliasing, a hatch line
/// meeting the frame).
const INK_GAP: usize = 3;

/// The ink lines of `img` at least `min_len` pixels long, horizontal ones and vertical ones:
/// runs of pixels darker than `ink` along rows (or columns) merged over neighbouring rows (columns)
/// whose runs start and end within 2 pixels of each other. A band thicker than a sixteenth of
/// its length is a filled area, not a line. Both in one row-major pass.
fn ink_lines(img: &GrayImage, min_len: usize, ink: u8) -> (Vec<Band>, Vec<Band>) {
    let w = img.width() as usize;
    // Runs as (line, start, end): rows along x, columns along y.
    let (mut rows, mut cols) = (Vec::new(), Vec::new());
    let (mut col_start, mut col_last) = (vec![usize::MAX; w], vec![0usize; w]);
    for (y, row) in img.as_raw().chunks_exact(w.max(1)).enumerate() {
        let mut start = usize::MAX;
        let mut last = 0;
        for (x, &g) in row.iter().enumerate() {
            if g >= ink {
                continue;
            }
            if start == usize::MAX || x > last + INK_GAP {
                if start != usize::MAX && last + 1 - start >= min_len {
                    rows.push((y, start, last + 1));
                }
                start = x;
            }
            last = x;
            if col_start[x] == usize::MAX || y > col_last[x] + INK_GAP {
                if col_start[x] != usize::MAX && col_last[x] + 1 - col_start[x] >= min_len {
                    cols.push((x, col_start[x], col_last[x] + 1));
                }
                col_start[x] = y;
            }
            col_last[x] = y;
        }
        if start != usize::MAX && last + 1 - start >= min_len {
            rows.push((y, start, last + 1));
        }
    }
    for x in 0..w {
        if col_start[x] != usize::MAX && col_last[x] + 1 - col_start[x] >= min_len {
            cols.push((x, col_start[x], col_last[x] + 1));
        }
    }
    cols.sort_unstable();
    (bands(&rows), bands(&cols))
}

/// Merges runs `(line, start, end)`, sorted by line, into bands (see [`ink_lines`]).
fn bands(runs: &[(usize, usize, usize)]) -> Vec<Band> {
    let (mut open, mut done): (Vec<Band>, Vec<Band>) = (Vec::new(), Vec::new());
    for &(line, a0, a1) in runs {
        let mut i = 0;
        while i < open.len() {
            if open[i].c1 + 1 < line {
                done.push(open.swap_remove(i));
            } else {
                i += 1;
            }
        }
        match open.iter_mut().find(|b| b.c1 + 1 == line && b.a0.abs_diff(a0) <= 2 && b.a1.abs_diff(a1) <= 2) {
            Some(b) => {
                b.c1 = line;
                b.a0 = b.a0.min(a0);
                b.a1 = b.a1.max(a1);
            }
            None => open.push(Band { a0, a1, c0: line, c1: line }),
        }
    }
    done.extend(open);
    done.retain(|b| b.c1 - b.c0 < ((b.a1 - b.a0) / 16).max(2));
    done
}

/// Along a profile of grey levels running from outside a frame line to inside the board: the
/// index of the first pixel inside, past the line's darkest pixel, lighter than halfway between
/// it and the lightest, with that halfway level.
fn inner_edge(profile: &[f64]) -> Option<(usize, f64)> {
    let (dark_at, dark) = profile.iter().copied().enumerate().min_by(|a, b| a.1.total_cmp(&b.1))?;
    let light = profile.iter().copied().fold(f64::MIN, f64::max);
    if light - dark < 40.0 {
        return None;
    }
    let mid = (light + dark) / 2.0;
    (dark_at..profile.len()).find(|&i| profile[i] > mid).map(|i| (i, mid))
}

/// How much darker than the paper outside it and the squares inside it a blurred frame line
/// must be in [`first_dip_edge`] (grey levels).
const MIN_BLURRED_LINE_DEPTH: f64 = 24.0;

/// Where [`inner_edge`] finds no edge along a turned frame's profile, the line blurred on a
/// photo (too faint for it, or with a piece standing by the edge inside that is darker than
/// the line): the line is the first dip of [`MIN_BLURRED_LINE_DEPTH`] below the lightest level
/// before it. Returns the index
/// of the first pixel past it lighter than halfway between its darkest pixel and the lightest
/// level inside, and that halfway level.
fn first_dip_edge(profile: &[f64]) -> Option<(usize, f64)> {
    let mut lightest = f64::MIN;
    let mut dark_at = profile.iter().position(|&v| {
        lightest = lightest.max(v);
        v < lightest - MIN_BLURRED_LINE_DEPTH
    })?;
    while dark_at + 1 < profile.len() && profile[dark_at + 1] <= profile[dark_at] {
        dark_at += 1;
    }
    let dark = profile[dark_at];
    let light = profile[dark_at..].iter().copied().fold(f64::MIN, f64::max);
    if light - dark < MIN_BLURRED_LINE_DEPTH {
        return None;
    }
    let mid = (light + dark) / 2.0;
    (dark_at..profile.len()).find(|&i| profile[i] > mid).map(|i| (i, mid))
}

/// Boards drawn inside a square ink frame, as PDF viewers and books show diagrams (the fallback
/// of [`locate_all`] when no lattice made a board): found whatever the squares look like (a
/// faint hatch gives X-corners too weak to link), then checked by how clearly the 64 squares
/// inside alternate, in grey level as every board is, or in texture (a hatch that barely
/// darkens its squares).
///
/// Lines are found on `small`, the image reduced `k` times, as pixels darker than `ink`: each
/// block's darkest pixel ([`min_downscale`]), where a one-pixel frame line stays ink at any `k`
/// and `ink` is [`FRAME_INK`]; or block means on a halftone page ([`paper_ink`]). The four inner
/// edges of the frame are then placed at full resolution from grey profiles across each line,
/// averaged along its middle half. Only upright frames: a tilted photo's board is left to the
/// lattice.
fn framed_boards(img: &GrayImage, small: &GrayImage, k: usize, ink: u8) -> Vec<Located> {
    let min_len = (MIN_BOARD_PX / k as f64).ceil() as usize;
    let (hs, vs) = ink_lines(small, min_len, ink);
    let (w, h) = (img.width() as usize, img.height() as usize);
    let mut out = Vec::new();
    for t in &hs {
        for b in hs.iter().filter(|b| b.c0 > t.c1 + min_len / 2) {
            let tol = 2 + (t.a1 - t.a0) / 40;
            let (width, height) = (t.a1 - t.a0, b.c1 + 1 - t.c0);
            if t.a0.abs_diff(b.a0) > tol || t.a1.abs_diff(b.a1) > tol || width.abs_diff(height) > width / 25 + tol {
                continue;
            }
            // The two sides: vertical lines at the ends of the top line, spanning top to bottom.
            let side = |x: usize| {
                vs.iter().find(|v| v.c0 <= x + tol && x <= v.c1 + tol && v.a0 <= t.c1 + tol && v.a1 + tol >= b.c0)
            };
            let (Some(l), Some(r)) = (side(t.a0), side(t.a1 - 1)) else { continue };
            // Inner edges at full resolution: profiles from the outer side of each line to
            // three reduced pixels inside it.
            let (x0, x1, y0, y1) = ((l.c1 + 1) * k, r.c0 * k, (t.c1 + 1) * k, b.c0 * k);
            if x1 <= x0 + 8 || y1 <= y0 + 8 {
                continue;
            }
            let (mx, my) = ((x1 - x0) / 4, (y1 - y0) / 4);
            let column = |x: usize| {
                (y0 + my..y1 - my).map(|y| img.get_pixel(x as u32, y as u32)[0] as f64).sum::<f64>()
                    / (y1 - y0 - 2 * my) as f64
            };
            let row = |y: usize| {
                (x0 + mx..x1 - mx).map(|x| img.get_pixel(x as u32, y as u32)[0] as f64).sum::<f64>()
                    / (x1 - x0 - 2 * mx) as f64
            };
            let reach = 3 * k;
            let (outer_right, outer_bottom) = (((r.c1 + 1) * k).min(w), ((b.c1 + 1) * k).min(h));
            let left = (l.c0 * k..(x0 + reach).min(w)).map(column).collect::<Vec<_>>();
            let right = (x1.saturating_sub(reach)..outer_right).rev().map(column).collect::<Vec<_>>();
            let top = (t.c0 * k..(y0 + reach).min(h)).map(row).collect::<Vec<_>>();
            let bottom = (y1.saturating_sub(reach)..outer_bottom).rev().map(row).collect::<Vec<_>>();
            let edge = |profile: &[f64]| inner_edge(profile).map(|(i, _)| i);
            let (Some(el), Some(er), Some(et), Some(eb)) = (edge(&left), edge(&right), edge(&top), edge(&bottom))
            else {
                continue;
            };
            let (bx0, bx1) = ((l.c0 * k + el) as f64, (outer_right - er) as f64);
            let (by0, by1) = ((t.c0 * k + et) as f64, (outer_bottom - eb) as f64);
            let quad = Quad::rect(bx0, by0, bx1, by1);
            if quad.mean_side() < MIN_BOARD_PX || !plausible(&quad, w as f64, h as f64) {
                continue;
            }
            let contrast = board_contrast(img, &quad);
            trace!(" frame {:?} contrast {contrast:.3}", quad);
            if contrast >= MIN_REFINED_CONTRAST && !out.iter().any(|o: &Located| o.quad.contains(quad.centre())) {
                out.push(Located { quad, corners_found: 0, rms_error: 0.0 });
            }
        }
    }
    out
}

/// Boards drawn on a plain ground (a screen's page of one colour) whose squares are textured
/// inside, which breaks their lattice (the fallback of [`locate_all`] when nothing else found a
/// board): upright square regions that differ from the ground, found on `small`, the image
/// reduced `k` times (block means). The ground is the commonest grey level, when it covers at
/// least [`PLAIN_GROUND_SHARE`] of the picture; a region is what differs from it by more than
/// [`PLAIN_GROUND_MARGIN`], and counts when its outer border runs along its bounding box (a
/// filled square, not a paragraph of text) and the 64 squares inside alternate clearly. Its
/// edges are then placed at full resolution.
fn boards_on_plain_ground(img: &GrayImage, small: &GrayImage, k: usize) -> Vec<Located> {
    use imageproc::contours::{find_contours_with_threshold, BorderType};
    let px = small.as_raw();
    let mut bins = [0usize; 32];
    px.iter().for_each(|&g| bins[g as usize / 8] += 1);
    let (bin, &count) = bins.iter().enumerate().max_by_key(|(_, &c)| c).expect("32 bins");
    if (count as f64) < PLAIN_GROUND_SHARE * px.len() as f64 {
        return Vec::new();
    }
    let ground = px.iter().filter(|&&g| g as usize / 8 == bin).map(|&g| g as f64).sum::<f64>() / count as f64;
    let off = |g: u8| (g as f64 - ground).abs() > PLAIN_GROUND_MARGIN;
    let mask =
        GrayImage::from_raw(small.width(), small.height(), px.iter().map(|&g| if off(g) { 255 } else { 0 }).collect())
            .expect("same size");
    let min_side = (MIN_BOARD_PX / k as f64) as i32;
    let (w, h) = (img.width() as usize, img.height() as usize);
    let mut out: Vec<Located> = Vec::new();
    for c in find_contours_with_threshold::<i32>(&mask, 0) {
        if c.border_type != BorderType::Outer || (c.points.len() as i32) < 4 * min_side {
            continue;
        }
        let (x0, x1) = minmax(c.points.iter().map(|p| p.x));
        let (y0, y1) = minmax(c.points.iter().map(|p| p.y));
        let (bw, bh) = (x1 - x0 + 1, y1 - y0 + 1);
        if bw.min(bh) < min_side || (bw - bh).abs() > 2.max(bw / 25) {
            continue;
        }
        let along =
            c.points.iter().filter(|p| p.x <= x0 + 1 || p.x >= x1 - 1 || p.y <= y0 + 1 || p.y >= y1 - 1).count();
        if (along as f64) < 0.9 * c.points.len() as f64 {
            continue;
        }
        // Each edge at full resolution: across the reduced pixel on either side of it, the
        // first line (column or row, over the middle half of the side) off the ground.
        let (fx0, fx1, fy0, fy1) = ((x0 as usize) * k, (x1 as usize + 1) * k, (y0 as usize) * k, (y1 as usize + 1) * k);
        let (mx, my) = ((fx1 - fx0) / 4, (fy1 - fy0) / 4);
        let column_off = |x: usize| {
            (fy0 + my..fy1 - my).filter(|&y| off(img.get_pixel(x as u32, y as u32)[0])).count() * 2 > fy1 - fy0 - 2 * my
        };
        let row_off = |y: usize| {
            (fx0 + mx..fx1 - mx).filter(|&x| off(img.get_pixel(x as u32, y as u32)[0])).count() * 2 > fx1 - fx0 - 2 * mx
        };
        let left = (fx0.saturating_sub(k)..(fx0 + k).min(w)).find(|&x| column_off(x)).unwrap_or(fx0);
        let right = (fx1.saturating_sub(k)..(fx1 + k).min(w)).rev().find(|&x| column_off(x)).map_or(fx1, |x| x + 1);
        let top = (fy0.saturating_sub(k)..(fy0 + k).min(h)).find(|&y| row_off(y)).unwrap_or(fy0);
        let bottom = (fy1.saturating_sub(k)..(fy1 + k).min(h)).rev().find(|&y| row_off(y)).map_or(fy1, |y| y + 1);
        let quad = Quad::rect(left as f64, top as f64, right as f64, bottom as f64);
        if quad.mean_side() < MIN_BOARD_PX || !plausible(&quad, w as f64, h as f64) {
            continue;
        }
        let contrast = board_contrast(img, &quad);
        trace!(" region on the plain ground {:?} contrast {contrast:.3}", quad);
        if contrast < MIN_REFINED_CONTRAST {
            continue;
        }
        // Not refined from its corners: the texture that broke the lattice would pull them
        // off, and an upright region's edges are exact to the pixel.
        out.push(Located { quad, corners_found: 0, rms_error: 0.0 });
    }
    out
}

/// [`boards_on_plain_ground`]: the share of a picture its commonest grey level (in steps of 8)
/// must cover to be a plain ground, and how far from it a pixel is off the ground.
const PLAIN_GROUND_SHARE: f64 = 0.3;
const PLAIN_GROUND_MARGIN: f64 = 16.0;

/// Boards inside a frame at any angle: a page photographed or scanned a little turned, whose
/// frame lines are not the upright ones [`framed_boards`] finds. Ink (darker than the mean of
/// its neighbourhood by `margin`) is found on `small`, the image reduced `k` times (each
/// block's darkest pixel, or on a halftone page its mean); the outer border of each ink region
/// that a polygon of four corners fits is a candidate frame.
/// Its board is refined at full resolution from the frame's outline (the frame is thin against
/// a square), or kept as the outline when the squares alternate clearly inside it.
///
/// Frames at the place of a board in `known` give a board only where that board sticks out of
/// the frame ([`sticks_out`]) and the frame's board is refined from its corners: the caller
/// replaces the board found with it.
fn tilted_frames(
    img: &GrayImage,
    small: &GrayImage,
    k: usize,
    margin: u32,
    opts: &LocateOptions,
    known: &[Quad],
) -> Vec<Located> {
    use imageproc::contours::{find_contours_with_threshold, BorderType};
    use imageproc::geometry::{approximate_polygon_dp, arc_length, convex_hull};
    let (w, h) = (small.width() as usize, small.height() as usize);
    if w < 16 || h < 16 {
        return Vec::new();
    }
    // Ink: darker than the mean of the 13x13 pixels around by `margin`, in integers.
    let px = small.as_raw();
    let integral = Integral::new(px, w, h);
    let r = 6usize;
    let mut ink = vec![0u8; w * h];
    let stride = w + 1;
    for (y, (ink_row, px_row)) in ink.chunks_exact_mut(w).zip(px.chunks_exact(w)).enumerate() {
        let (y0, y1) = (y.saturating_sub(r), (y + r + 1).min(h));
        let (top, bottom) = (&integral.data[y0 * stride..][..stride], &integral.data[y1 * stride..][..stride]);
        for (x, (i, &g)) in ink_row.iter_mut().zip(px_row).enumerate() {
            let (x0, x1) = (x.saturating_sub(r), (x + r + 1).min(w));
            let area = ((x1 - x0) * (y1 - y0)) as u32;
            let sum = bottom[x1] + top[x0] - top[x1] - bottom[x0];
            if (g as u32 + margin) * area < sum {
                *i = 255;
            }
        }
    }
    let ink = GrayImage::from_raw(w as u32, h as u32, ink).expect("w * h pixels");
    let min_side = MIN_BOARD_PX / k as f64;
    // A reduced pixel's centre at full resolution.
    let to_full =
        |p: &imageproc::point::Point<i32>| Point::new((p.x as f64 + 0.5) * k as f64, (p.y as f64 + 0.5) * k as f64);
    let mut out: Vec<Located> = Vec::new();
    for c in find_contours_with_threshold::<i32>(&ink, 0) {
        if c.border_type != BorderType::Outer || (c.points.len() as f64) < 3.0 * min_side {
            continue;
        }
        let length = arc_length(&c.points, true);
        let poly = approximate_polygon_dp(&c.points, 0.02 * length, true);
        let polys = if poly.len() == 4 {
            vec![poly]
        } else {
            // A frame line broken by blur, or met from inside by pieces standing at the edge, is
            // traced around its ends and round the pieces: its convex hull is still the frame.
            // Its corners are tried first as the hull's points furthest along the diagonals (a
            // frame leans far less than 45 degrees), then as its simplification's (which may
            // stop a few points short of a corner, or take the right one where something
            // beyond the frame touches it). A turned frame's hull can keep a fifth point in
            // its simplification, where a side steps by a reduced pixel: then only the
            // diagonals' corners are tried.
            let hull = convex_hull(c.points.clone());
            let poly = approximate_polygon_dp(&hull, 0.02 * arc_length(&hull, true), true);
            if !(4..=5).contains(&poly.len()) {
                continue;
            }
            let extreme =
                |key: fn(&imageproc::point::Point<i32>) -> i32| *hull.iter().max_by_key(|p| key(p)).expect("a hull");
            let corners =
                vec![extreme(|p| -p.x - p.y), extreme(|p| p.x - p.y), extreme(|p| p.x + p.y), extreme(|p| p.y - p.x)];
            if poly.len() == 4 {
                vec![corners, poly]
            } else {
                vec![corners]
            }
        };
        let border: Vec<Point> = c.points.iter().map(to_full).collect();
        for poly in polys {
            let pts: Vec<Point> = poly.iter().map(to_full).collect();
            let Some(rough) = upright_order(&pts) else { continue };
            // A board found at the frame's place already is the frame's board, unless it
            // sticks out of the frame: then the lattice placed it a rank or a file off, and the
            // frame's board replaces it (see locate_all).
            if known.iter().any(|b| same_place(b, &rough) && !sticks_out(b, &rough))
                || out.iter().any(|o| same_place(&o.quad, &rough))
            {
                break;
            }
            // In place of a board found already (which says there is a board here), a frame's
            // board needs to alternate only as clearly as a faint board told by its edges.
            let replacing = known.iter().any(|b| same_place(b, &rough));
            let min_contrast = if replacing { MIN_BOUNDED_CONTRAST } else { TILTED_FRAME_CONTRAST };
            if let Some(board) = board_in_outline(img, &rough, &border, k, min_contrast, opts) {
                // There, only a board refined from its corners, which the board found sticks
                // out of.
                let replaces = known.iter().filter(|b| same_place(b, &board.quad)).collect::<Vec<_>>();
                if replaces.is_empty()
                    || (board.corners_found > 0 && replaces.iter().all(|b| sticks_out(b, &board.quad)))
                {
                    out.push(board);
                }
                break;
            }
        }
    }
    out
}

/// Whether a board found at `quad` reaches out of the frame outline `frame` by more than half
/// a square: one of its corners lies outside the outline grown by half a square on each side.
fn sticks_out(quad: &Quad, frame: &Quad) -> bool {
    let c = frame.centre();
    let grown = Quad(frame.0.map(|p| Point::new(c.x + (p.x - c.x) * 9.0 / 8.0, c.y + (p.y - c.y) * 9.0 / 8.0)));
    quad.0.iter().any(|&p| !grown.contains(p))
}

/// The board inside a frame whose outer border, traced on the image reduced `k` times, is
/// `border` (in full-resolution pixels), with `rough` its four corners ([`tilted_frames`]):
/// the sides refitted, moved in to the frame line's inner edge, checked by how clearly the
/// squares alternate, and refined from the corners where they can be.
fn board_in_outline(
    img: &GrayImage,
    rough: &Quad,
    border: &[Point],
    k: usize,
    min_contrast: f64,
    opts: &LocateOptions,
) -> Option<Located> {
    let Some(outline) = fit_sides(rough, border, k as f64) else {
        trace!(" tilted outline {:?}: its sides do not fit", rough);
        return None;
    };
    let Some(quad) = inside_frame(img, &outline, k) else {
        trace!(" tilted outline {:?}: no inner edge", rough);
        return None;
    };
    if quad.mean_side() < MIN_BOARD_PX || !plausible(&quad, img.width() as f64, img.height() as f64) {
        return None;
    }
    let contrast = board_contrast(img, &quad);
    trace!(" tilted frame {:?} contrast {contrast:.3}", quad);
    if contrast < min_contrast {
        return None;
    }
    // Corner (1, 1) is positive when the top-left square is the lighter.
    let grid = quad.board_to_image();
    let at = |x: f64, y: f64| grid.apply(Point::new(x, y));
    let positive11 = square_value(img, at, 0.0, 0.0) > square_value(img, at, 1.0, 0.0);
    let refined = refine_window(img, &grid, positive11, opts)
        .map(|(l, _)| l)
        .filter(|l| l.quad.0.iter().zip(&quad.0).all(|(a, b)| a.dist(*b) < 0.3 * quad.mean_side() / 8.0));
    trace!("  refined {:?}", refined.as_ref().map(|l| l.corners_found));
    refined.or(Some(Located { quad, corners_found: 0, rms_error: 0.0 }))
}

/// How clearly the squares inside a turned frame must alternate for a board
/// ([`board_in_outline`]; [`board_contrast`]). Lower than a lattice's windows need: the frame
/// already says where the board is, and a small diagram on a defocused photo alternates at
/// 0.55-0.8, while the outlines of photos, tables and text blocks traced as frames on the
/// rendered scenes and the pictures without a board stay under 0.14. In place of a board
/// found already, [`MIN_BOUNDED_CONTRAST`] (scenes 00194: a light hatch, its middle ranks
/// empty, alternates at 0.49 inside its frame, and the lattice had placed it a rank low).
const TILTED_FRAME_CONTRAST: f64 = 0.5;

/// The quadrilateral whose sides are lines fitted (total least squares) to the border points
/// near each side of `rough`, away from its corners: a polygon's vertices are border points and
/// cut the corners of a frame traced on a reduced image.
fn fit_sides(rough: &Quad, border: &[Point], k: f64) -> Option<Quad> {
    let v = &rough.0;
    let mut lines = Vec::with_capacity(4);
    for i in 0..4 {
        let (a, b) = (v[i], v[(i + 1) % 4]);
        let len = a.dist(b);
        let (dx, dy) = ((b.x - a.x) / len, (b.y - a.y) / len);
        let near: Vec<Point> = border
            .iter()
            .copied()
            .filter(|p| {
                let t = ((p.x - a.x) * dx + (p.y - a.y) * dy) / len;
                let d = ((p.x - a.x) * dy - (p.y - a.y) * dx).abs();
                (0.1..=0.9).contains(&t) && d <= 2.0 * k
            })
            .collect();
        if near.len() < 8 {
            return None;
        }
        let n = near.len() as f64;
        let (mx, my) = (near.iter().map(|p| p.x).sum::<f64>() / n, near.iter().map(|p| p.y).sum::<f64>() / n);
        let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
        for p in &near {
            sxx += (p.x - mx) * (p.x - mx);
            sxy += (p.x - mx) * (p.y - my);
            syy += (p.y - my) * (p.y - my);
        }
        // The principal direction, kept pointing from a to b.
        let angle = 0.5 * (2.0 * sxy).atan2(sxx - syy);
        let (mut ex, mut ey) = (angle.cos(), angle.sin());
        if ex * dx + ey * dy < 0.0 {
            (ex, ey) = (-ex, -ey);
        }
        lines.push((Point::new(mx, my), (ex, ey)));
    }
    quad_of_sides(&lines)
}

/// The quadrilateral of four sides, each a point and a direction, in board order: corner i is
/// where side i-1 (ending there) meets side i (starting there).
fn quad_of_sides(sides: &[(Point, (f64, f64))]) -> Option<Quad> {
    let c: Vec<Point> = (0..4).map(|i| meet(sides[(i + 3) % 4], sides[i])).collect::<Option<_>>()?;
    Some(Quad([c[0], c[1], c[2], c[3]]))
}

/// Where two lines, each a point and a direction, meet.
fn meet((p, d): (Point, (f64, f64)), (q, e): (Point, (f64, f64))) -> Option<Point> {
    let den = d.0 * e.1 - d.1 * e.0;
    if den.abs() < 1e-9 {
        return None;
    }
    let t = ((q.x - p.x) * e.1 - (q.y - p.y) * e.0) / den;
    Some(Point::new(p.x + t * d.0, p.y + t * d.1))
}

/// The board inside a frame whose outer outline is `outline`: each side moved in to the frame
/// line's inner edge, found on a grey profile across the line averaged along the side's middle
/// half ([`inner_edge`]), and the corners put where the moved sides meet.
fn inside_frame(img: &GrayImage, outline: &Quad, k: usize) -> Option<Quad> {
    let v = &outline.0;
    // The outline was traced on the reduced image: its sides lie within a reduced pixel or two
    // of the frame line's outer edge.
    let before = 2.0 * k as f64 + 2.0;
    let reach = (outline.mean_side() / 8.0 * 0.35).max(4.0) + before;
    // Bilinear, with pixel centres at half-integers.
    let sample = |p: Point| -> Option<f64> {
        let (x, y) = (p.x - 0.5, p.y - 0.5);
        if x < 0.0 || y < 0.0 || x + 1.0 >= img.width() as f64 || y + 1.0 >= img.height() as f64 {
            return None;
        }
        let (x0, y0) = (x.floor(), y.floor());
        let (fx, fy) = (x - x0, y - y0);
        let g = |dx: u32, dy: u32| img.get_pixel(x0 as u32 + dx, y0 as u32 + dy)[0] as f64;
        Some((g(0, 0) * (1.0 - fx) + g(1, 0) * fx) * (1.0 - fy) + (g(0, 1) * (1.0 - fx) + g(1, 1) * fx) * fy)
    };
    // Each side as a point and a direction, moved in.
    let mut lines = Vec::with_capacity(4);
    for i in 0..4 {
        let (a, b) = (v[i], v[(i + 1) % 4]);
        let len = a.dist(b);
        let (dx, dy) = ((b.x - a.x) / len, (b.y - a.y) / len);
        // Inward normal, for corners clockwise on screen (y down).
        let (nx, ny) = (-dy, dx);
        let steps = reach.ceil() as usize;
        let mut profile = vec![0.0; steps];
        let mut n = 0.0;
        for t in (0..=16).map(|s| 0.25 + 0.5 * s as f64 / 16.0) {
            let base = Point::new(a.x + (b.x - a.x) * t - before * nx, a.y + (b.y - a.y) * t - before * ny);
            let column: Option<Vec<f64>> =
                (0..steps).map(|s| sample(Point::new(base.x + s as f64 * nx, base.y + s as f64 * ny))).collect();
            if let Some(column) = column {
                profile.iter_mut().zip(&column).for_each(|(p, c)| *p += c);
                n += 1.0;
            }
        }
        if n < 8.0 {
            return None;
        }
        profile.iter_mut().for_each(|p| *p /= n);
        // To a fraction of a pixel: where the profile crosses the halfway level found with
        // the edge.
        let (i, mid) = inner_edge(&profile).or_else(|| first_dip_edge(&profile))?;
        let edge = if i > 0 && profile[i] > profile[i - 1] {
            i as f64 - 1.0 + (mid - profile[i - 1]) / (profile[i] - profile[i - 1])
        } else {
            i as f64
        };
        let inset = edge - before;
        lines.push((Point::new(a.x + inset * nx, a.y + inset * ny), (dx, dy)));
    }
    quad_of_sides(&lines)
}

/// The largest angle, in radians, by which a board's sides may lean for it to count as upright
/// (half a degree).
const MAX_UPRIGHT_TILT: f64 = 0.5 * std::f64::consts::PI / 180.0;

/// How much darker than the mean of its neighbourhood a pixel must be to count as ink in
/// [`tilted_frames`], on the darkest-pixel reduction.
const TILTED_INK_MARGIN: u32 = 24;

/// The same on a halftone page's block means, where a frame line of a pixel or two is averaged
/// with the paper of its block (and the dots average out). At 12 and more, the steps of a
/// turned line break its outline apart.
const TILTED_MEAN_INK_MARGIN: u32 = 8;

/// Four corners in board order (top-left, top-right, bottom-right, bottom-left) when they make
/// a convex quadrilateral: sorted by angle around their centre, starting from the one nearest
/// the top-left.
fn upright_order(pts: &[Point]) -> Option<Quad> {
    let (cx, cy) = (pts.iter().map(|p| p.x).sum::<f64>() / 4.0, pts.iter().map(|p| p.y).sum::<f64>() / 4.0);
    let mut v: Vec<Point> = pts.to_vec();
    v.sort_by(|a, b| (a.y - cy).atan2(a.x - cx).total_cmp(&(b.y - cy).atan2(b.x - cx)));
    let first = (0..4).min_by(|&i, &j| (v[i].x + v[i].y).total_cmp(&(v[j].x + v[j].y)))?;
    v.rotate_left(first);
    let q = Quad([v[0], v[1], v[2], v[3]]);
    let cross = |o: Point, a: Point, b: Point| (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
    (0..4).all(|i| cross(v[i], v[(i + 1) % 4], v[(i + 2) % 4]) > 0.0).then_some(q)
}

/// How clearly the 64 squares of the board at `quad` alternate, in grey level or in texture
/// (a hatch that barely darkens its squares): the larger [`checker_contrast`].
fn board_contrast(img: &GrayImage, quad: &Quad) -> f64 {
    let grid = quad.board_to_image();
    let at = |x: f64, y: f64| grid.apply(Point::new(x, y));
    let values: Vec<f64> = (0..64).map(|i| square_value(img, at, (i % 8) as f64, (i / 8) as f64)).collect();
    let texture: Vec<f64> = (0..64).map(|i| square_texture(img, at, (i % 8) as f64, (i / 8) as f64)).collect();
    checker_contrast(&values).max(checker_contrast(&texture))
}

/// Whether two quads are one board found twice: either's centre lies inside the other.
fn same_place(a: &Quad, b: &Quad) -> bool {
    a.contains(b.centre()) || b.contains(a.centre())
}

/// How much more clearly the squares inside a frame must alternate than those of the board a
/// lattice found there for the frame's board to replace it.
const FRAME_PREFERENCE_MARGIN: f64 = 0.05;

/// A board seen on a screen, a page or at a moderate angle: convex, inside the picture (up to a
/// few percent of its side), no side shorter than 0.6 or longer than 1.6 times the mean side,
/// width and height within a factor 1.43 of each other.
fn plausible(q: &Quad, w: f64, h: f64) -> bool {
    let side = q.mean_side();
    let m = 0.03 * side;
    let inside = q.0.iter().all(|p| p.x >= -m && p.y >= -m && p.x <= w + m && p.y <= h + m);
    let sides_ok = (0..4).all(|i| {
        let l = q.0[i].dist(q.0[(i + 1) % 4]);
        (0.6 * side..=1.6 * side).contains(&l)
    });
    let convex = (0..4).all(|i| {
        let (a, b, c) = (q.0[i], q.0[(i + 1) % 4], q.0[(i + 2) % 4]);
        (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x) > 0.0
    });
    let p = &q.0;
    let width = (p[0].dist(p[1]) + p[3].dist(p[2])) / 2.0;
    let height = (p[0].dist(p[3]) + p[1].dist(p[2])) / 2.0;
    let aspect_ok = (0.7..=1.43).contains(&(width / height));
    inside && sides_ok && convex && aspect_ok
}

/// The lattice's larger extent in steps, over the columns and rows that hold more than half as
/// many nodes as the fullest one (and at least three): a few stray peaks beyond a board (labels,
/// text, specks of hatching) do not make a checkered texture, whose every row is full.
fn core_span(nodes: &[(i32, i32, Point)]) -> i32 {
    let extent = |axis: &dyn Fn(&(i32, i32, Point)) -> i32| {
        let mut counts: BTreeMap<i32, usize> = BTreeMap::new();
        for n in nodes {
            *counts.entry(axis(n)).or_default() += 1;
        }
        let most = counts.values().copied().max().unwrap_or(0);
        let dense: Vec<i32> = counts.into_iter().filter(|&(_, c)| c >= 3 && 2 * c > most).map(|(v, _)| v).collect();
        dense.last().zip(dense.first()).map_or(0, |(hi, lo)| hi - lo)
    };
    extent(&|n| n.0).max(extent(&|n| n.1))
}

fn minmax(it: impl Iterator<Item = i32>) -> (i32, i32) {
    it.fold((i32::MAX, i32::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

/// Homography fit that drops points lying far from the first fit and fits again.
fn robust_fit(src: &[Point], dst: &[Point]) -> Option<Homography> {
    let h = Homography::fit(src, dst)?;
    let res: Vec<f64> = src.iter().zip(dst).map(|(s, d)| h.apply(*s).dist(*d)).collect();
    let mut sorted = res.clone();
    sorted.sort_by(f64::total_cmp);
    let med = sorted[sorted.len() / 2];
    let unit = h.apply(Point::new(1.0, 1.0)).dist(h.apply(Point::new(2.0, 1.0)));
    let limit = (3.0 * med).max(0.08 * unit).max(0.75);
    let (s2, d2): (Vec<Point>, Vec<Point>) =
        src.iter().zip(dst).zip(&res).filter(|(_, &e)| e <= limit).map(|((s, d), _)| (*s, *d)).unzip();
    if s2.len() < 4 || s2.len() == src.len() {
        return Some(h);
    }
    Homography::fit(&s2, &d2)
}

/// Finds the strongest X-corner of the wanted polarity within `search` pixels of `guess` at full
/// resolution, to sub-pixel precision.
fn refine_corner(
    img: &GrayImage,
    guess: Point,
    r: usize,
    g: usize,
    search: usize,
    want_positive: bool,
    min: f32,
) -> Option<Point> {
    let (w, h) = (img.width() as i64, img.height() as i64);
    let m = (r + g + search + 1) as i64;
    let (cx, cy) = (guess.x.round() as i64, guess.y.round() as i64);
    let (x0, y0, x1, y1) = (cx - m, cy - m, cx + m + 1, cy + m + 1);
    if x0 < 0 || y0 < 0 || x1 > w || y1 > h {
        return None;
    }
    let (pw, ph) = ((x1 - x0) as usize, (y1 - y0) as usize);
    let mut patch = Vec::with_capacity(pw * ph);
    for y in y0..y1 {
        let row = (y * w) as usize;
        patch.extend_from_slice(&img.as_raw()[row + x0 as usize..row + x1 as usize]);
    }
    let ii = Integral::new(&patch, pw, ph);
    let c = (m as usize, m as usize);
    let n = 2 * search + 1;
    let mut scores = vec![0f32; n * n];
    let mut best = (0usize, 0usize, 0f32);
    for dy in 0..n {
        for dx in 0..n {
            let (x, y) = (c.0 + dx - search, c.1 + dy - search);
            let s = ii.xscore(x, y, r, g);
            let s = if want_positive { s } else { -s };
            scores[dy * n + dx] = s;
            if s > best.2 {
                best = (dx, dy, s);
            }
        }
    }
    if best.2 < min {
        return None;
    }
    let (bx, by) = (best.0, best.1);
    let at = |x: usize, y: usize| scores[y * n + x];
    let sub = |l: f32, m: f32, r: f32| {
        let den = l - 2.0 * m + r;
        if den.abs() < 1e-6 {
            0.0
        } else {
            (0.5 * (l - r) / den).clamp(-0.5, 0.5) as f64
        }
    };
    let fx = if bx > 0 && bx + 1 < n { sub(at(bx - 1, by), at(bx, by), at(bx + 1, by)) } else { 0.0 };
    let fy = if by > 0 && by + 1 < n { sub(at(bx, by - 1), at(bx, by), at(bx, by + 1)) } else { 0.0 };
    Some(Point::new((x0 + (c.0 + bx - search) as i64) as f64 + fx, (y0 + (c.1 + by - search) as i64) as f64 + fy))
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Luma;

    /// An axis-aligned board of `sq`-pixel squares at `(ox, oy)` on a mid-grey page.
    fn synthetic(w: u32, h: u32, ox: u32, oy: u32, sq: u32) -> GrayImage {
        GrayImage::from_fn(w, h, |x, y| {
            if x >= ox && y >= oy && x < ox + 8 * sq && y < oy + 8 * sq {
                let (c, r) = ((x - ox) / sq, (y - oy) / sq);
                Luma([if (c + r) % 2 == 0 { 235 } else { 120 }])
            } else {
                Luma([60])
            }
        })
    }

    /// Every corner of `quad` within a pixel of `want`.
    fn assert_corners_at(quad: &Quad, want: Quad) {
        for (p, q) in quad.0.iter().zip(want.0.iter()) {
            assert!(p.dist(*q) < 1.0, "{p:?} vs {q:?}");
        }
    }

    /// Every corner of the found board within a pixel of `want`, and all 49 interior corners
    /// refined.
    fn assert_found_at(b: &Located, want: Quad) {
        assert_corners_at(&b.quad, want);
        assert_eq!(b.corners_found, 49);
    }

    /// Lattice nodes for interior corners `cols` x `rows` of a board of 20 px steps, numbered
    /// from `(i0, j0)` in the lattice's own coordinates.
    fn fragment(
        cols: std::ops::Range<i32>,
        rows: std::ops::Range<i32>,
        (i0, j0): (i32, i32),
        positive0: bool,
    ) -> Lattice {
        let nodes = cols
            .flat_map(|c| rows.clone().map(move |r| (c, r)))
            .map(|(c, r)| (c - i0, r - j0, Point::new(100.0 + 20.0 * c as f64, 50.0 + 20.0 * r as f64)))
            .collect();
        Lattice { nodes, positive0 }
    }

    #[test]
    fn fragments_of_one_board_join_and_neighbouring_boards_do_not() {
        // One board's corners split where pieces hid a column; the right part numbered from its
        // own seed, whose polarity is that of corner (4, 2) of the left part's grid.
        let left = fragment(0..3, 0..7, (0, 0), true);
        let right = fragment(4..7, 0..7, (4, 2), true);
        let grid = grid_of(&left).unwrap();
        let both = joined(&left, &grid, &right).expect("one board");
        assert_eq!(both.len(), 42);
        assert!(both
            .nodes
            .iter()
            .all(|&(i, j, p)| p.dist(Point::new(100.0 + 20.0 * i as f64, 50.0 + 20.0 * j as f64)) < 1e-6));
        assert_eq!(merge_fragments(vec![left.clone(), right.clone()]).len(), 1);
        // Its seed of the other polarity cannot be on this grid.
        assert!(joined(&left, &grid, &fragment(4..7, 0..7, (4, 2), false)).is_none());
        // A fragment reaching the board's edge joins; a board beside it in the same rhythm
        // would span more than a board's 9 corners.
        assert!(joined(&left, &grid, &fragment(6..9, 0..7, (6, 0), true)).is_some());
        assert!(joined(&left, &grid, &fragment(9..12, 0..7, (9, 0), false)).is_none());
    }

    #[test]
    fn finds_an_axis_aligned_board_to_a_pixel() {
        let img = synthetic(900, 700, 123, 87, 61);
        let b = locate(&img, &LocateOptions::default()).expect("board found");
        assert_found_at(&b, Quad::rect(123.0, 87.0, 123.0 + 488.0, 87.0 + 488.0));
    }

    #[test]
    fn finds_a_small_board_in_a_large_image() {
        let img = synthetic(1920, 1080, 1500, 300, 20);
        let b = locate(&img, &LocateOptions::default()).expect("board found");
        assert!(b.quad.0[0].dist(Point::new(1500.0, 300.0)) < 1.5, "{:?}", b.quad);
        assert!(b.quad.0[2].dist(Point::new(1660.0, 460.0)) < 1.5, "{:?}", b.quad);
    }

    #[test]
    fn no_board_in_a_flat_or_striped_image() {
        let flat = GrayImage::from_pixel(400, 300, Luma([128]));
        assert!(locate(&flat, &LocateOptions::default()).is_none());
        let stripes = GrayImage::from_fn(400, 300, |x, _| Luma([if (x / 20) % 2 == 0 { 30 } else { 220 }]));
        assert!(locate(&stripes, &LocateOptions::default()).is_none());
    }

    #[test]
    fn two_boards_a_fifth_of_a_square_apart_are_both_found() {
        // Two boards of 30-pixel squares side by side, 6 pixels apart on a light page: one
        // lattice runs across both. Each board must be found where it is, not a window
        // straddling the gap.
        let (sq, gap, x0, y0) = (30u32, 6u32, 60u32, 60u32);
        let img = GrayImage::from_fn(2 * 8 * sq + gap + 2 * x0, 8 * sq + 2 * y0, |x, y| {
            let second = x >= x0 + 8 * sq + gap;
            let left = if second { x0 + 8 * sq + gap } else { x0 };
            if x >= left && x < left + 8 * sq && y >= y0 && y < y0 + 8 * sq {
                Luma([if ((x - left) / sq + (y - y0) / sq) % 2 == 0 { 235 } else { 90 }])
            } else {
                Luma([235])
            }
        });
        let mut boards = locate_all(&img, &LocateOptions::default());
        reading_order(&mut boards);
        assert_eq!(boards.len(), 2, "{boards:?}");
        let side = (8 * sq) as f64;
        let second = (x0 + 8 * sq + gap) as f64;
        assert_corners_at(&boards[0].quad, Quad::rect(x0 as f64, y0 as f64, x0 as f64 + side, y0 as f64 + side));
        assert_corners_at(&boards[1].quad, Quad::rect(second, y0 as f64, second + side, y0 as f64 + side));
    }

    #[test]
    fn a_board_found_twice_is_kept_where_its_squares_are() {
        // The board at (100, 200) with 40-pixel squares, and the same board found again two
        // ranks too high and a little larger (a finer level's lattice reaching into the page
        // above it): the larger no longer wins.
        let img = synthetic(600, 700, 100, 200, 40);
        let at = |x: f64, y: f64, side: f64| Located {
            quad: Quad::rect(x, y, x + side, y + side),
            corners_found: 30,
            rms_error: 0.5,
        };
        let kept = one_per_board(&img, vec![at(100.0, 200.0, 320.0), at(99.0, 119.0, 322.0)]);
        assert_eq!(kept.len(), 1);
        assert_corners_at(&kept[0].quad, Quad::rect(100.0, 200.0, 420.0, 520.0));
        // A pattern inside one of its squares is not a board.
        let kept = one_per_board(&img, vec![at(100.0, 200.0, 320.0), at(105.0, 205.0, 30.0)]);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].quad.mean_side(), 320.0);
    }

    #[test]
    fn boards_come_in_reading_order() {
        let b = |x: f64, y: f64, side: f64| Located {
            quad: Quad::rect(x, y, x + side, y + side),
            corners_found: 49,
            rms_error: 0.0,
        };
        // Two rows: a tall board on the left with a shorter one beside it, then one below.
        let mut v = vec![b(0.0, 500.0, 200.0), b(300.0, 40.0, 150.0), b(10.0, 0.0, 300.0)];
        reading_order(&mut v);
        let tops: Vec<(f64, f64)> = v.iter().map(|l| (l.quad.0[0].x, l.quad.0[0].y)).collect();
        assert_eq!(tops, vec![(10.0, 0.0), (300.0, 40.0), (0.0, 500.0)]);
    }

    #[test]
    fn a_faintly_hatched_board_is_found_by_its_frame() {
        // A PDF viewer's diagram: white page, a 3-pixel black frame, 33-pixel squares whose dark
        // ones carry a faint diagonal hatch (one grey line in four), as found in realdata-dev.
        let (ox, oy, sq) = (301u32, 157u32, 33u32);
        let side = 8 * sq;
        let page = |hatched: bool| {
            GrayImage::from_fn(1600, 1000, |x, y| {
                let inside = |m: u32| x + m >= ox && y + m >= oy && x < ox + side + m && y < oy + side + m;
                if inside(0) {
                    let dark = ((x - ox) / sq + (y - oy) / sq) % 2 == 1;
                    Luma([if hatched && dark && (x + y) % 4 == 0 { 200 } else { 250 }])
                } else if inside(3) {
                    Luma([10])
                } else {
                    Luma([250])
                }
            })
        };
        let img = page(true);
        let found = framed_boards(&img, &min_downscale(&img, 2), 2, FRAME_INK);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_corners_at(&found[0].quad, Quad::rect(ox as f64, oy as f64, (ox + side) as f64, (oy + side) as f64));
        // The same frame around blank paper is not a board.
        let blank = page(false);
        assert!(framed_boards(&blank, &min_downscale(&blank, 2), 2, FRAME_INK).is_empty());
    }

    #[test]
    fn a_framed_board_beside_a_lattice_board_is_found_too() {
        // A page with two diagrams: a plain checkered board at (1000, 300), found by its
        // lattice, and a framed one whose dark squares are a hatch as light on average as the
        // light squares (one pixel in four at 235, the rest at 255): no X-corners at any level,
        // only texture.
        let (ox, oy, sq) = (301u32, 157u32, 33u32);
        let side = 8 * sq;
        let img = GrayImage::from_fn(1600, 1000, |x, y| {
            let inside = |m: u32| x + m >= ox && y + m >= oy && x < ox + side + m && y < oy + side + m;
            if (1000..1320).contains(&x) && (300..620).contains(&y) {
                Luma([if ((x - 1000) / 40 + (y - 300) / 40) % 2 == 0 { 235 } else { 120 }])
            } else if inside(0) {
                let dark = ((x - ox) / sq + (y - oy) / sq) % 2 == 1;
                Luma(match (dark, (x + y) % 4 == 0) {
                    (false, _) => [250],
                    (true, true) => [235],
                    (true, false) => [255],
                })
            } else if inside(3) {
                Luma([10])
            } else {
                Luma([250])
            }
        });
        let mut found = locate_all(&img, &LocateOptions::default());
        reading_order(&mut found);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_corners_at(&found[0].quad, Quad::rect(ox as f64, oy as f64, (ox + side) as f64, (oy + side) as f64));
        assert_found_at(&found[1], Quad::rect(1000.0, 300.0, 1320.0, 620.0));
    }

    /// How [`tilted_framed_board`] draws the frame.
    #[derive(PartialEq)]
    enum Frame {
        Clean,
        /// The bottom line has a gap of a square and a half, and two dark pieces stand against
        /// its inside.
        Broken,
        /// A grey line (as blurred on a photo), with a dark piece on every square of the
        /// bottom rank against it: darker than the line itself.
        FaintBehindPieces,
    }

    /// A page scanned turned by 7 degrees: a 3-pixel frame around a board of 30-pixel squares
    /// whose dark squares are only texture (one pixel in four at 235, the rest 255; light
    /// squares 250), so that no lattice and no upright frame finds it. Returns the picture and
    /// the board's true corners.
    fn tilted_framed_board(style: Frame) -> (GrayImage, [Point; 4]) {
        let broken = style == Frame::Broken;
        let faint = style == Frame::FaintBehindPieces;
        let t = Turned { cx: 500.0, cy: 420.0, sq: 30.0, turn: 7f64.to_radians() };
        let (sq, half) = (t.sq, 4.0 * t.sq);
        let img = GrayImage::from_fn(1000, 800, |x, y| {
            let (u, v) = t.uv(x, y);
            let board = (0.0..2.0 * half).contains(&u) && (0.0..2.0 * half).contains(&v);
            let frame = (-3.0..2.0 * half + 3.0).contains(&u) && (-3.0..2.0 * half + 3.0).contains(&v);
            let gap = broken && v > 2.0 * half && (100.0..145.0).contains(&u);
            let piece = broken
                && (((u - 45.0).powi(2) + (v - 2.0 * half + 10.0).powi(2) < 110.0)
                    || ((u - 200.0).powi(2) + (v - 2.0 * half + 10.0).powi(2) < 110.0))
                || faint
                    && (0.0..2.0 * half).contains(&u)
                    && ((u % sq) - sq / 2.0).powi(2) + (v - 2.0 * half + 12.0).powi(2) < 144.0;
            Luma(if piece {
                [20]
            } else if board {
                let dark = ((u / sq) as i32 + (v / sq) as i32) % 2 == 1;
                match (dark, (x + y) % 4 == 0) {
                    (false, _) => [250],
                    (true, true) => [235],
                    (true, false) => [255],
                }
            } else if frame && !gap {
                [if faint { 120 } else { 10 }]
            } else {
                [250]
            })
        });
        (img, t.corners())
    }

    /// A board of `sq`-pixel squares centred at `(cx, cy)` and turned by `turn` radians, as a
    /// picture shows it.
    struct Turned {
        cx: f64,
        cy: f64,
        sq: f64,
        turn: f64,
    }

    impl Turned {
        /// Board coordinates, in pixels from the board's top-left corner, of the picture's pixel
        /// `(x, y)`: the picture turned back.
        fn uv(&self, x: u32, y: u32) -> (f64, f64) {
            let (dx, dy, half) = (x as f64 + 0.5 - self.cx, y as f64 + 0.5 - self.cy, 4.0 * self.sq);
            (dx * self.turn.cos() + dy * self.turn.sin() + half, -dx * self.turn.sin() + dy * self.turn.cos() + half)
        }

        /// The board's corners in the picture, top-left first, clockwise.
        fn corners(&self) -> [Point; 4] {
            let half = 4.0 * self.sq;
            [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(su, sv)| {
                let (du, dv) = (su * half, sv * half);
                Point::new(
                    self.cx + du * self.turn.cos() - dv * self.turn.sin(),
                    self.cy + du * self.turn.sin() + dv * self.turn.cos(),
                )
            })
        }
    }

    /// One board found in the picture, each corner within `tolerance` pixels of the true one.
    fn assert_one_board_at((img, want): (GrayImage, [Point; 4]), tolerance: f64) {
        let found = locate_all(&img, &LocateOptions::default());
        assert_eq!(found.len(), 1, "{found:?}");
        for (p, q) in found[0].quad.0.iter().zip(&want) {
            assert!(p.dist(*q) < tolerance, "{p:?} vs {q:?}");
        }
    }

    #[test]
    fn a_tilted_frame_is_found_at_its_inner_edge() {
        assert_one_board_at(tilted_framed_board(Frame::Clean), 0.3);
    }

    #[test]
    fn a_tilted_frame_broken_and_touched_by_pieces_is_found() {
        // Traced, the broken frame is no four-cornered outline; its convex hull is.
        assert_one_board_at(tilted_framed_board(Frame::Broken), 0.3);
    }

    #[test]
    fn a_faint_tilted_frame_is_found_past_the_pieces_against_it() {
        // Across the bottom line, the darkest pixels are the pieces inside, not the line.
        assert_one_board_at(tilted_framed_board(Frame::FaintBehindPieces), 0.5);
    }

    #[test]
    fn a_turned_frame_on_a_halftone_page_is_traced_on_block_means() {
        // A page printed in a screen of dots (every other pixel of every other row) whose ink
        // varies from dot to dot, scanned turned by 1.5 degrees: a 2-pixel frame around a
        // board of 40-pixel squares whose dark squares are printed in a denser screen.
        let shade = |x: u32, y: u32| {
            20 + ((x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(2_246_822_519)).wrapping_mul(3_266_489_917) >> 16)
                % 160
        };
        let t = Turned { cx: 500.0, cy: 500.0, sq: 40.0, turn: 1.5f64.to_radians() };
        let (sq, half) = (t.sq, 4.0 * t.sq);
        let img = GrayImage::from_fn(1000, 1000, |x, y| {
            let (u, v) = t.uv(x, y);
            let board = (0.0..2.0 * half).contains(&u) && (0.0..2.0 * half).contains(&v);
            let frame = (-2.0..2.0 * half + 2.0).contains(&u) && (-2.0..2.0 * half + 2.0).contains(&v);
            let dark = board && ((u / sq) as i32 + (v / sq) as i32) % 2 == 1;
            Luma(if frame && !board {
                [20]
            } else if (dark && (x + y) % 2 == 0) || (x % 2 == 0 && y % 2 == 0) {
                [shade(x, y) as u8]
            } else {
                [250]
            })
        });
        let want = t.corners();
        let opts = LocateOptions::default();
        // The darkest dot of each block joins the frame to the page around it.
        assert!(tilted_frames(&img, &min_downscale(&img, 4), 4, TILTED_INK_MARGIN, &opts, &[]).is_empty());
        let found = tilted_frames(&img, &box_downscale(&img, 4), 4, TILTED_MEAN_INK_MARGIN, &opts, &[]);
        assert_eq!(found.len(), 1, "{found:?}");
        for (p, q) in found[0].quad.0.iter().zip(&want) {
            assert!(p.dist(*q) < 1.0, "{p:?} vs {q:?}");
        }
    }

    #[test]
    fn a_board_in_hues_of_one_brightness_is_found_on_a_colour_channel() {
        // Squares of (230, 200, 200) and (150, 222, 200): the same grey level within one step
        // (Rec. 709), 80 levels apart in red. The page is grey 120.
        let rgb = image::RgbImage::from_fn(600, 600, |x, y| {
            if (100..420).contains(&x) && (100..420).contains(&y) {
                image::Rgb(if ((x - 100) / 40 + (y - 100) / 40) % 2 == 0 { [230, 200, 200] } else { [150, 222, 200] })
            } else {
                image::Rgb([120, 120, 120])
            }
        });
        let img = image::DynamicImage::ImageRgb8(rgb);
        let grey = crate::cells::grey(&img);
        assert!(locate_all(&grey, &LocateOptions::default()).is_empty());
        let found = locate_all_colour(&img, &grey, &LocateOptions::default());
        assert_eq!(found.len(), 1, "{found:?}");
        assert_found_at(&found[0], Quad::rect(100.0, 100.0, 420.0, 420.0));
    }

    #[test]
    fn a_gentle_gradient_of_light_is_levelled_but_a_margin_is_not() {
        let checker = |i: usize| if (i / 8 + i % 8).is_multiple_of(2) { 20.0 } else { -20.0 };
        // A photo's vignette: 4 grey levels darker every square to the right (a fifth of the
        // checker's half-contrast, over the 15% levelled).
        let lit: Vec<f64> = (0..64).map(|i| 150.0 + checker(i) - 4.0 * (i % 8) as f64).collect();
        let raw = checker_contrast(&lit);
        let level = checker_contrast(&without_gradient(&lit));
        assert!(raw < 0.85 && level > 0.94, "raw {raw} level {level}");
        // A window one file off a board onto white paper: the paper file must keep costing.
        let shifted: Vec<f64> = (0..64).map(|i| if i % 8 == 7 { 250.0 } else { 150.0 + checker(i) }).collect();
        assert!(
            checker_contrast(&without_gradient(&shifted)) < 0.88,
            "{}",
            checker_contrast(&without_gradient(&shifted))
        );
    }

    #[test]
    fn box_downscale_averages_blocks() {
        let img = GrayImage::from_fn(4, 2, |x, _| Luma([if x < 2 { 10 } else { 30 }]));
        let d = box_downscale(&img, 2);
        assert_eq!(d.as_raw(), &vec![10, 30]);
    }

    #[test]
    fn stray_peaks_do_not_widen_a_lattice_but_a_texture_is_wide() {
        let node = |i: i32, j: i32| (i, j, Point::new(i as f64, j as f64));
        // A board's 7x7 interior corners and its edge (9x9 less the corners), plus a few peaks
        // two and four steps beyond it, in text above and a label to the right.
        let mut board: Vec<_> = (-1..=7)
            .flat_map(|i| (-1..=7).map(move |j| (i, j)))
            .filter(|&(i, j)| !((i == -1 || i == 7) && (j == -1 || j == 7)))
            .map(|(i, j)| node(i, j))
            .collect();
        board.extend([node(2, -3), node(3, -3), node(5, -3), node(1, -5), node(9, 2), node(9, 4)]);
        assert_eq!(core_span(&board), 8);
        let texture: Vec<_> = (0..14).flat_map(|i| (0..14).map(move |j| node(i, j))).collect();
        assert_eq!(core_span(&texture), 13);
    }

    #[test]
    fn a_board_beside_text_lines_is_not_a_texture() {
        let node = |i: i32, j: i32| (i, j, Point::new(i as f64, j as f64));
        // A board's 7x7 interior corners with corners all round its edge (a frame line), joined
        // to lines of text three rows and more below it that happen to keep its rhythm.
        let mut board: Vec<_> = (-1..=7).flat_map(|i| (-1..=7).map(move |j| node(i, j))).collect();
        board.extend((-1..=7).flat_map(|i| (10..=14).map(move |j| node(i, j))));
        assert!(core_span(&board) > MAX_SPAN);
        assert!(!texture_around(&board, 0, 0));
        // The same with the text continuing right up to the board's edge: the ring beyond the
        // edge then holds a row below it and nothing on its other sides.
        board.extend((-1..=7).map(|i| node(i, 8)));
        assert!(!texture_around(&board, 0, 0));
        // Text beside it as well, to the right: two sides.
        board.extend((9..=12).flat_map(|i| (-1..=7).map(move |j| node(i, j))));
        assert!(!texture_around(&board, 0, 0));
        // A checkered texture continues all round; the windows tried first in one of 11x11
        // corners, the centred one and those a step beside it, are all texture.
        let texture: Vec<_> = (0..11).flat_map(|i| (0..11).map(move |j| node(i, j))).collect();
        assert!(core_span(&texture) > MAX_SPAN);
        for (i0, j0) in [(2, 2), (1, 2), (3, 2), (2, 1), (2, 3)] {
            assert!(texture_around(&texture, i0, j0), "window {i0},{j0}");
        }
    }

    #[test]
    fn a_window_over_follows_the_grid() {
        // A board at (100, 80) with 40-pixel squares: its grid's window a file left and a rank
        // down lies one square over, perspective or not.
        let grid = Quad::rect(100.0, 80.0, 420.0, 400.0).board_to_image();
        assert_corners_at(&window_of(&grid, -1, 1), Quad::rect(60.0, 120.0, 380.0, 440.0));
        let turned = Quad([
            Point::new(100.0, 80.0),
            Point::new(420.0, 100.0),
            Point::new(400.0, 420.0),
            Point::new(90.0, 390.0),
        ]);
        let grid = turned.board_to_image();
        assert_corners_at(&window_of(&grid, 0, 0), turned);
        let right = window_of(&grid, 1, 0);
        assert!(
            right.0[0].dist(grid.apply(Point::new(1.0, 0.0))) < 1e-9
                && right.0[2].dist(grid.apply(Point::new(9.0, 8.0))) < 1e-9
        );
    }

    #[test]
    fn a_grid_one_square_off_is_refitted_in_place() {
        // The grid of a board at (100, 80) with 40-pixel squares, placed one rank too high: its
        // top row is page, its bottom rank is missing. Shifted down from that grid, the refit
        // finds the board itself.
        let img = synthetic(600, 560, 100, 80, 40);
        let board = |x: f64, y: f64| Point::new(100.0 + 40.0 * x, 80.0 + 40.0 * y);
        let src: Vec<Point> = (0..=8).flat_map(|y| (0..=8).map(move |x| Point::new(x as f64, y as f64))).collect();
        let high: Vec<Point> = src.iter().map(|p| board(p.x, p.y - 1.0)).collect();
        let grid = Homography::fit(&src, &high).unwrap();
        // The corner at board coordinates (1, 1) of the high window is the board's (1, 0): an
        // edge, whose polarity is that of the board's (1, 2), opposite to its (1, 1).
        let (found, _) = fit_shifted(&img, &grid, false, 0, 1, &LocateOptions::default()).expect("refitted");
        assert_found_at(&found, Quad::rect(100.0, 80.0, 420.0, 400.0));
    }

    #[test]
    fn corners_beyond_the_search_are_found_again_around_the_refined_grid() {
        // A grid predicted with its error growing towards the top (as extrapolated from a
        // fragment of the bottom ranks): 16 pixels off at the top edge, 6 at the third rank's
        // corners, more than the search reaches (a fifth of a 40-pixel square) above that.
        let img = synthetic(600, 560, 100, 80, 40);
        let src: Vec<Point> = (0..=8).flat_map(|y| (0..=8).map(move |x| Point::new(x as f64, y as f64))).collect();
        let off: Vec<Point> = src
            .iter()
            .map(|p| Point::new(100.0 + 40.0 * p.x, 80.0 + 40.0 * p.y - 0.25 * (8.0 - p.y).powi(2)))
            .collect();
        let coarse = Homography::fit(&src, &off).unwrap();
        let opts = LocateOptions::default();
        let (once, grid) = refine_once(&img, &coarse, true, &opts).expect("the near ranks refine");
        assert!(once.corners_found < REFINE_AGAIN_BELOW, "{once:?}");
        let (again, _) = refine_window(&img, &coarse, true, &opts).expect("refined");
        assert_found_at(&again, Quad::rect(100.0, 80.0, 420.0, 400.0));
        // Searched again around the grid from the first pass alone, every corner is found.
        assert_eq!(refine_once(&img, &grid, true, &opts).expect("refined").0.corners_found, 49);
    }

    #[test]
    fn a_board_from_a_small_lattice_is_fitted_again_from_a_larger_one() {
        let board =
            |x0: f64| Located { quad: Quad::rect(x0, 100.0, x0 + 320.0, 420.0), corners_found: 49, rms_error: 0.0 };
        let found = [board(100.0), board(600.0)];
        // The first board came from a fragment of 24 nodes, the second from a full lattice.
        let sources = [24, 49];
        let inside_first = Point::new(260.0, 260.0);
        assert!(!found_already(&found, &sources, inside_first, 45));
        assert!(found_already(&found, &sources, inside_first, 20));
        let inside_second = Point::new(760.0, 260.0);
        assert!(found_already(&found, &sources, inside_second, 64));
        assert!(!found_already(&found, &sources, Point::new(1000.0, 260.0), 30));
    }

    #[test]
    fn a_textured_board_on_a_plain_screen_is_found_as_a_square_region() {
        // A dark page (34) with a board of 50-pixel squares at (120, 60) whose squares are
        // textured with diagonal stripes (light 170, dark 110, each +-40 in stripes a sixth of
        // a square wide), and beside it a square picture of the same size that does not
        // alternate (a smooth gradient).
        let img = GrayImage::from_fn(1000, 520, |x, y| {
            let (bx, by) = (x as i32 - 120, y as i32 - 60);
            let stripe = if ((x + y) / 8) % 2 == 0 { 40 } else { -40 };
            if (0..400).contains(&bx) && (0..400).contains(&by) {
                let base = if (bx / 50 + by / 50) % 2 == 0 { 170 } else { 110 };
                Luma([(base + stripe) as u8])
            } else if (560..960).contains(&(x as i32)) && (0..400).contains(&by) {
                Luma([(90 + (x - 560) / 4) as u8])
            } else {
                Luma([34])
            }
        });
        let found = boards_on_plain_ground(&img, &box_downscale(&img, 2), 2);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_corners_at(&found[0].quad, Quad::rect(120.0, 60.0, 520.0, 460.0));
        // No ground covers a third of a busy picture: nothing is searched.
        let busy = GrayImage::from_fn(600, 600, |x, y| Luma([((x * 7 + y * 13) % 256) as u8]));
        assert!(boards_on_plain_ground(&busy, &box_downscale(&busy, 2), 2).is_empty());
    }

    #[test]
    fn a_seed_takes_neighbours_a_square_apart_both_ways_not_a_hatch_peak_nearer() {
        // A corner at (100, 100) of a board of 59-pixel squares turned by 10 degrees: its
        // neighbours of the other polarity to the right and below, and a peak of a hatch line
        // two thirds of a square to the right (or three quarters), nearer than the true one.
        let peak = |x: f64, y: f64, positive: bool| Peak { x, y, score: 1.0, positive };
        let (right, below) = ((58.1, 10.2), (-10.2, 58.1));
        let frame = |extra: Option<(f64, f64)>| {
            let mut peaks = vec![
                peak(100.0, 100.0, true),
                peak(100.0 + right.0, 100.0 + right.1, false),
                peak(100.0 + below.0, 100.0 + below.1, false),
            ];
            peaks.extend(extra.map(|(dx, dy)| peak(100.0 + dx, 100.0 + dy, false)));
            let grid = PeakGrid::new(&peaks, 32.0);
            seed_frame(&grid, 0)
        };
        let ((rx, ry), (dx, dy)) = frame(None).expect("both neighbours");
        assert!(
            (rx - right.0).abs() < 1e-9
                && (ry - right.1).abs() < 1e-9
                && (dx - below.0).abs() < 1e-9
                && (dy - below.1).abs() < 1e-9
        );
        // The hatch peak is the nearest to the right: the two steps differ by a third or a
        // quarter of a square, and the seed is no seed.
        assert_eq!(frame(Some((39.0, 6.9))), None);
        assert_eq!(frame(Some((44.0, 7.8))), None);
    }

    #[test]
    fn windows_reaching_into_a_board_found_already_are_not_this_board() {
        // A board at (100, 80) with 40-pixel squares, and its neighbour found already, a fifth
        // of a square to the right.
        let grid = Quad::rect(100.0, 80.0, 420.0, 400.0).board_to_image();
        let right = Quad::rect(428.0, 80.0, 748.0, 400.0);
        let at = |di, dj| Shift { contrast: 0.8, beyond: 0.0, di, dj };
        assert!(!on_other_board(&grid, &at(0, 0), &[&right]));
        assert!(!on_other_board(&grid, &at(-1, 0), &[&right]));
        assert!(!on_other_board(&grid, &at(0, 1), &[&right]));
        assert!(on_other_board(&grid, &at(1, 0), &[&right]));
        assert!(on_other_board(&grid, &at(2, -1), &[&right]));
    }

    #[test]
    fn a_window_a_rank_off_the_picture_goes_last_and_one_with_a_corner_cut_off_stays() {
        // A picture that is all board (a tight crop): 40-pixel squares from (0, 0). Every window
        // shifted a rank or a file off the picture gets no contrast; the board's own is first.
        let img = synthetic(320, 320, 0, 0, 40);
        let ranked = ranked_shifts(&img, 2, |x, y| Point::new(40.0 * x, 40.0 * y));
        assert_eq!((ranked[0].di, ranked[0].dj), (0, 0));
        assert!(ranked[0].contrast > 0.9, "{:?}", ranked[0]);
        assert!(ranked[1..].iter().all(|s| s.contrast == 0.0), "{:?}", &ranked[1..4]);
        let img = GrayImage::new(320, 320);
        // A board photographed with a corner out of frame (three quarters of a square): one
        // square's centre off the picture. A window a file to the left has eight.
        let corner =
            Quad([Point::new(0.0, 0.0), Point::new(320.0, 0.0), Point::new(350.0, 350.0), Point::new(0.0, 320.0)]);
        let tilted = corner.board_to_image();
        assert!(in_picture(&img, |x, y| tilted.apply(Point::new(x, y))));
        assert!(!in_picture(&img, |x, y| tilted.apply(Point::new(x - 1.0, y))));
    }

    #[test]
    fn a_window_that_takes_in_a_file_of_page_alternates_less_clearly_than_the_board() {
        // A board of 40-pixel squares at (60, 60) on a plain page: its own window is the clearest;
        // one a file either way loses about an eighth, more than the recognizer's slack for
        // moving a board where its coordinates put it.
        let img = synthetic(440, 440, 60, 60, 40);
        let board = Quad::rect(60.0, 60.0, 380.0, 380.0);
        let own = window_contrast(&img, &board);
        assert!(own > 0.9, "{own}");
        for moved in [Quad::rect(100.0, 60.0, 420.0, 380.0), Quad::rect(20.0, 60.0, 340.0, 380.0)] {
            let c = window_contrast(&img, &moved);
            assert!(c < own - 2.0 * crate::MOVE_CONTRAST_SLACK, "{c} against {own}");
        }
        // A window off the picture by a file has none.
        assert_eq!(window_contrast(&img, &Quad::rect(-40.0, 60.0, 280.0, 380.0)), 0.0);
    }

    #[test]
    fn a_board_a_rank_out_of_its_frame_sticks_out_and_one_a_few_pixels_off_does_not() {
        // The board inside a frame at (100, 100), 40-pixel squares.
        let frame = Quad::rect(100.0, 100.0, 420.0, 420.0);
        assert!(sticks_out(&Quad::rect(100.0, 140.0, 420.0, 460.0), &frame));
        assert!(sticks_out(&Quad::rect(70.0, 100.0, 390.0, 420.0), &frame));
        assert!(!sticks_out(&Quad::rect(104.0, 96.0, 424.0, 416.0), &frame));
        assert!(!sticks_out(&Quad::rect(140.0, 140.0, 380.0, 380.0), &frame));
    }

    #[test]
    fn windows_that_alternate_alike_are_told_apart_by_what_lies_beyond() {
        // Two boards side by side in step: the window straddling the gap alternates as well
        // as the right board's own, but has squares beyond two sides, the board's own beyond
        // one (its neighbour's last file).
        let w = |contrast, beyond, di, dj| Shift { contrast, beyond, di, dj };
        let measured = [w(0.81, 1.7, 1, 0), w(0.80, 0.9, 0, 0), w(0.79, 1.8, 2, 0), w(0.6, 1.0, 0, 1)];
        assert_eq!(untie(&measured, (1, 0)), (0, 0));
        // A lead under UNTIE_LEAD, or a clearer window alternating less, changes nothing.
        let close = [w(0.81, 1.1, 1, 0), w(0.80, 0.9, 0, 0)];
        assert_eq!(untie(&close, (1, 0)), (1, 0));
        let apart = [w(0.81, 1.7, 1, 0), w(0.70, 0.0, 0, 0)];
        assert_eq!(untie(&apart, (1, 0)), (1, 0));
    }

    #[test]
    fn a_frame_on_a_halftone_page_is_found_on_block_means() {
        // Paper printed in dots (one pixel in nine), dark squares in a denser screen, and a
        // frame three pixels wide around the board at (80, 80) with 30-pixel squares.
        let img = GrayImage::from_fn(400, 400, |x, y| {
            let (bx, by) = (x as i32 - 80, y as i32 - 80);
            let inside = |m: i32| (-m..240 + m).contains(&bx) && (-m..240 + m).contains(&by);
            Luma(if inside(0) && (bx / 30 + by / 30) % 2 == 1 {
                if (x + y) % 2 == 0 {
                    [60]
                } else {
                    [225]
                }
            } else if inside(3) && !inside(0) {
                [20]
            } else if x % 3 == 0 && y % 3 == 0 {
                [60]
            } else {
                [225]
            })
        });
        // Each block's darkest pixel is a dot: ink everywhere, no line.
        let darkest = min_downscale(&img, 4);
        assert!(
            darkest.as_raw().iter().filter(|&&g| g < FRAME_INK).count() as f64
                > HALFTONE_INK * darkest.as_raw().len() as f64
        );
        assert!(framed_boards(&img, &darkest, 4, FRAME_INK).is_empty());
        let means = box_downscale(&img, 4);
        let found = framed_boards(&img, &means, 4, paper_ink(&means));
        assert_eq!(found.len(), 1);
        assert_corners_at(&found[0].quad, Quad::rect(80.0, 80.0, 320.0, 320.0));
    }

    #[test]
    fn a_faint_board_is_told_by_where_its_squares_stop() {
        // Dark squares 20 levels under a paper the colour of the light squares: beyond the
        // board's own window there is only paper, beyond a window a file over there is a file
        // of squares, in step with the checker inside.
        let img = GrayImage::from_fn(500, 440, |x, y| {
            let (bx, by) = (x as i32 - 90, y as i32 - 60);
            let on_board = (0..240).contains(&bx) && (0..240).contains(&by);
            Luma([if on_board && (bx / 30 + by / 30) % 2 == 1 { 180 } else { 200 }])
        });
        let ranked = shifts_measured(&img, 2, true, |x, y| Point::new(90.0 + 30.0 * x, 60.0 + 30.0 * y));
        let at = |di, dj| *ranked.iter().find(|s| (s.di, s.dj) == (di, dj)).expect("reach 2");
        assert!(at(0, 0).beyond < 0.05, "{:?}", at(0, 0));
        for (di, dj) in [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1)] {
            assert!(at(di, dj).beyond > 0.8, "{:?}", at(di, dj));
        }
        assert_eq!(bounded_shift(&ranked), Some((0, 0)));
        // A checkered texture goes on beyond every window: no board by its edges.
        let cloth = GrayImage::from_fn(500, 440, |x, y| Luma([if (x / 30 + y / 30) % 2 == 1 { 180 } else { 200 }]));
        let ranked = shifts_measured(&cloth, 2, true, |x, y| Point::new(90.0 + 30.0 * x, 60.0 + 30.0 * y));
        assert!(ranked.iter().all(|s| s.beyond > 0.8));
        assert_eq!(bounded_shift(&ranked), None);
        // Faint windows that alternate alike, as choose_shift sees them: decided by what lies
        // beyond, when the window alternates enough and leads clearly.
        let faint = |c0: f64| {
            vec![
                Shift { contrast: c0, beyond: 0.02, di: 0, dj: 0 },
                Shift { contrast: 0.55, beyond: 0.3, di: 0, dj: 1 },
                Shift { contrast: 0.53, beyond: 0.35, di: 1, dj: 0 },
            ]
        };
        assert_eq!(choose_shift(&faint(0.56)), None);
        assert_eq!(bounded_shift(&faint(0.56)), Some((0, 0)));
        assert_eq!(bounded_shift(&faint(0.40)), None);
        let mut in_step = faint(0.56);
        in_step[0].beyond = 0.25;
        assert_eq!(bounded_shift(&in_step), None);
    }

    /// Windows with these (contrast, di, dj) and nothing in step beyond them.
    fn windows(ranked: &[(f64, i32, i32)]) -> Vec<Shift> {
        ranked.iter().map(|&(contrast, di, dj)| Shift { contrast, beyond: 0.0, di, dj }).collect()
    }

    #[test]
    fn a_grid_two_files_off_is_moved_onto_the_board() {
        // The board at (100, 80) with 40-pixel squares; the grid placed two files to the right
        // takes in two files of page. The window two files left alternates clearly better.
        let img = synthetic(700, 560, 100, 80, 40);
        let off = |x: f64, y: f64| Point::new(100.0 + 40.0 * (x + 2.0), 80.0 + 40.0 * y);
        let ranked = ranked_shifts(&img, 2, off);
        assert_eq!(choose_shift(&ranked), Some((-2, 0)));
        // Within a step the best window wins; a window two steps over needs the margin.
        assert_eq!(choose_shift(&windows(&[(0.95, 2, 0), (0.93, 0, 0)])), Some((0, 0)));
        assert_eq!(choose_shift(&windows(&[(0.95, 2, 0), (0.80, 1, 0)])), Some((2, 0)));
        assert_eq!(choose_shift(&windows(&[(0.95, 2, 0), (0.5, 0, 0)])), None);
        // Windows that alternate faintly and all alike (blurred text, a faint lined board)
        // place no board; a clear board may have a close neighbour.
        assert_eq!(choose_shift(&windows(&[(0.74, 0, 1), (0.72, 0, 0), (0.66, -1, 1)])), None);
        assert_eq!(choose_shift(&windows(&[(0.74, 0, 1), (0.70, 0, 0), (0.66, -1, 1)])), Some((0, 1)));
        assert_eq!(choose_shift(&windows(&[(0.93, 0, 1), (0.92, 0, 0)])), Some((0, 1)));
    }
}
