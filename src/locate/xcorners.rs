//! X-corners: the points where two light and two dark squares meet diagonally, scored from
//! four box sums around each pixel, and their local peaks.

use super::*;

impl Integral {
    /// X-corner score at the pixel boundary point `(x, y)` with boxes of side `r` kept `g`
    /// pixels away from the two lines through the point. Positive: top-left and bottom-right
    /// lighter; negative: darker. Zero unless both diagonal boxes beat both off-diagonal ones.
    #[inline]
    pub(super) fn xscore(&self, x: usize, y: usize, r: usize, g: usize) -> f32 {
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
pub(super) fn x_corner(tl: i32, tr: i32, br: i32, bl: i32) -> i32 {
    let pos = tl.min(br) - tr.max(bl);
    let neg = tr.min(bl) - tl.max(br);
    // At most one of the two is positive.
    pos.max(0) - neg.max(0)
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Peak {
    pub(super) x: f64,
    pub(super) y: f64,
    pub(super) score: f32,
    pub(super) positive: bool,
}

/// Sums of every `r`x`r` box: `out[y * (w + 1) + x]` is the sum over `[x - r, x) x [y - r, y)`
/// for `x, y >= r` (zero elsewhere), from running row and column sums.
pub(super) fn box_sums(img: &GrayImage, r: usize) -> Vec<i32> {
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
pub(super) fn find_peaks(img: &GrayImage, r: usize, g: usize, min: f32) -> Vec<Peak> {
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
