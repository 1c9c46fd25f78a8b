//! A window's corners refined to sub-pixel positions at full resolution and a homography
//! fitted to them.

use super::*;

/// Fits the board whose interior corners are the lattice window starting at (i0, j0).
/// Returns the board and its grid (board coordinates 0..8 to pixels).
pub(super) fn fit_window(
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
pub(super) fn window_of(grid: &Homography, di: i32, dj: i32) -> Quad {
    let (x, y) = (di as f64, dj as f64);
    Quad([(x, y), (x + 8.0, y), (x + 8.0, y + 8.0), (x, y + 8.0)].map(|(u, v)| grid.apply(Point::new(u, v))))
}

/// The board one window over from a fitted `grid`: `di` squares right and `dj` down, refined
/// from that grid's prediction (the lattice may hold few nodes on the row or column it gains).
pub(super) fn fit_shifted(
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
pub(super) fn refine_window(
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
pub(super) const REFINE_AGAIN: usize = 2;
pub(super) const REFINE_AGAIN_BELOW: usize = 45;

/// One pass of [`refine_window`]: the 49 interior corners searched around `coarse`'s
/// predictions and a homography fitted to them.
pub(super) fn refine_once(
    img: &GrayImage,
    coarse: &Homography,
    positive11: bool,
    opts: &LocateOptions,
) -> Option<(Located, Homography)> {
    let parity = |i: i32, j: i32| (i + j).rem_euclid(2) == 0;
    // Refine all 49 interior corners around their predicted positions, at full resolution
    // unless the squares are larger than MAX_REFINE_SQUARE.
    let at = |x: f64, y: f64| coarse.apply(Point::new(x, y));
    let square = (at(1.0, 4.0).dist(at(7.0, 4.0)) + at(4.0, 1.0).dist(at(4.0, 7.0))) / 12.0;
    let view = RefineView::new(img, coarse, square);
    let square = square / view.f;
    // No gap at full resolution: a gap would make the score flat over 2g+1 positions.
    let r = ((square / 6.0).round() as usize).clamp(2, 12);
    let g = 0;
    let search = ((square * 0.18).round() as usize).max(2);
    let mut src = Vec::new();
    let mut dst = Vec::new();
    for bj in 1..=7 {
        for bi in 1..=7 {
            let want_positive = positive11 == parity(bi - 1, bj - 1);
            let guess = view.to_view(coarse.apply(Point::new(bi as f64, bj as f64)));
            if let Some(p) = refine_corner(view.img(), guess, r, g, search, want_positive, opts.min_contrast) {
                src.push(Point::new(bi as f64, bj as f64));
                dst.push(view.to_full(p));
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

/// Homography fit that drops points lying far from the first fit and fits again.
pub(super) fn robust_fit(src: &[Point], dst: &[Point]) -> Option<Homography> {
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
pub(super) fn refine_corner(
    img: &GrayImage,
    guess: Point,
    r: usize,
    g: usize,
    search: usize,
    want_positive: bool,
    min: f32,
) -> Option<Point> {
    let (w, h) = (img.width() as i64, img.height() as i64);
    // A guess from a near-degenerate grid can lie far outside (or be NaN), where rounding
    // saturates and the patch bounds below would overflow.
    if !(0.0..=w as f64).contains(&guess.x) || !(0.0..=h as f64).contains(&guess.y) {
        return None;
    }
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

/// Squares larger than this many pixels are refined on the board's region reduced by the
/// smallest whole factor that brings them under it: the corner search's boxes (at most 12
/// pixels) would otherwise see the hatching or texture of a square, not its corner (a diagram
/// cropped tight from a large scan, 200-pixel squares with hatched dark ones).
pub(super) const MAX_REFINE_SQUARE: f64 = 96.0;

/// The picture the corners are refined on: the full picture, or the board's region reduced by
/// `f` ([`MAX_REFINE_SQUARE`]), with the mapping between the two.
pub(super) struct RefineView<'a> {
    full: &'a GrayImage,
    reduced: Option<GrayImage>,
    /// The region's top-left corner in the full picture.
    origin: Point,
    /// The reduction factor (1: the full picture).
    pub(super) f: f64,
}

impl<'a> RefineView<'a> {
    pub(super) fn new(full: &'a GrayImage, grid: &Homography, square: f64) -> Self {
        let f = (square / MAX_REFINE_SQUARE).ceil().max(1.0) as u32;
        let whole = RefineView { full, reduced: None, origin: Point::new(0.0, 0.0), f: 1.0 };
        if f == 1 || !square.is_finite() {
            return whole;
        }
        // The board and a square around it, inside the picture.
        let pts = [(-1.0, -1.0), (9.0, -1.0), (9.0, 9.0), (-1.0, 9.0)].map(|(x, y)| grid.apply(Point::new(x, y)));
        let (w, h) = (full.width() as f64, full.height() as f64);
        let clamp = |v: f64, hi: f64| v.clamp(0.0, hi) as u32;
        let x0 = clamp(pts.iter().map(|p| p.x).fold(f64::INFINITY, f64::min), w);
        let y0 = clamp(pts.iter().map(|p| p.y).fold(f64::INFINITY, f64::min), h);
        let x1 = clamp(pts.iter().map(|p| p.x).fold(f64::NEG_INFINITY, f64::max), w);
        let y1 = clamp(pts.iter().map(|p| p.y).fold(f64::NEG_INFINITY, f64::max), h);
        if x1 < x0 + 4 * f || y1 < y0 + 4 * f {
            return whole;
        }
        let reduced = crate::imageops::box_downscale_region(full, x0, y0, x1, y1, f);
        RefineView { full, reduced: Some(reduced), origin: Point::new(x0 as f64, y0 as f64), f: f as f64 }
    }

    /// The picture to refine on.
    pub(super) fn img(&self) -> &GrayImage {
        self.reduced.as_ref().unwrap_or(self.full)
    }

    /// A full-resolution point in the view's pixels.
    pub(super) fn to_view(&self, p: Point) -> Point {
        Point::new((p.x - self.origin.x) / self.f, (p.y - self.origin.y) / self.f)
    }

    /// A point of the view in full-resolution pixels.
    pub(super) fn to_full(&self, p: Point) -> Point {
        Point::new(p.x * self.f + self.origin.x, p.y * self.f + self.origin.y)
    }
}
