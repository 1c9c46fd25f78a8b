//! Step 2: cut the warped board into 64 cells, the classifier's input.
//!
//! This module is the single source of truth for the classifier's geometry and normalisation:
//! inference calls [`extract`], and the training data is cut by the same function through the
//! `img2fen dataset` subcommand, so the model never sees cells cut any other way.

use image::{DynamicImage, GrayImage};
use ndarray::Array4;

use crate::geometry::{least_squares, Quad};
use crate::warp::Warper;

mod tall;
pub use tall::{tall_bytes, tall_cells, tall_cells_reaching, Camera, CellFrame, PIECE_HEIGHT, TALL_H, TALL_W};

/// Side of one cell in pixels.
pub const CELL_PX: u32 = 32;
/// Side of the warped board in pixels.
pub const BOARD_PX: u32 = 8 * CELL_PX;

/// Converts a decoded picture to grey levels (Rec. 709 weights, integer arithmetic; pixels with
/// alpha are shown over white). Every step works on this, for training data as for inference.
pub fn grey(img: &DynamicImage) -> GrayImage {
    // The weights sum to 256, so the sum fits u16 (at most 65408).
    fn luma(p: &[u8]) -> u16 {
        (54 * p[0] as u16 + 183 * p[1] as u16 + 19 * p[2] as u16 + 128) >> 8
    }
    let (w, h) = (img.width(), img.height());
    // Written into a zeroed buffer in a plain loop (a map-collect over chunks was twice as slow).
    let rgb = |src: &[u8]| -> GrayImage {
        let mut out = vec![0u8; src.len() / 3];
        for (o, p) in out.iter_mut().zip(src.chunks_exact(3)) {
            *o = luma(p) as u8;
        }
        GrayImage::from_raw(w, h, out).expect("buffer size matches")
    };
    // Transparent pixels are shown over white, as a browser or viewer shows them on a page;
    // their stored colour (often black) means nothing.
    let rgba = |src: &[u8]| -> GrayImage {
        let mut out = vec![0u8; src.len() / 4];
        for (o, p) in out.iter_mut().zip(src.chunks_exact(4)) {
            *o = if p[3] == 255 {
                luma(p) as u8
            } else {
                ((luma(p) as u32 * p[3] as u32 + 255 * (255 - p[3] as u32) + 127) / 255) as u8
            };
        }
        GrayImage::from_raw(w, h, out).expect("buffer size matches")
    };
    let grey = match img {
        DynamicImage::ImageLuma8(g) => g.clone(),
        DynamicImage::ImageRgb8(c) => rgb(c.as_raw()),
        DynamicImage::ImageRgba8(c) => rgba(c.as_raw()),
        other if other.color().has_alpha() => rgba(other.to_rgba8().as_raw()),
        other => rgb(other.to_rgb8().as_raw()),
    };
    softened_if_bilevel(grey)
}

/// A bilevel picture (a fax or CCITT scan, a 1-bit TIFF: at most [`BILEVEL_GREY_SHARE`] of its
/// pixels neither black nor white) low-passed by a Gaussian of [`BILEVEL_SIGMA`] pixels; any
/// other picture as it is. Thresholding leaves a dark square's hatch or dithered grey as
/// scattered dots and strokes, which the classifier, trained on grey levels, takes for parts of
/// pieces (a dithered page read a pawn on most dark squares); low-passed they are grey again.
fn softened_if_bilevel(grey: GrayImage) -> GrayImage {
    let raw = grey.as_raw();
    // Counted only until the share is passed: a photo passes it in its first rows.
    let most = (BILEVEL_GREY_SHARE * raw.len() as f64) as usize;
    if raw.is_empty() || raw.iter().filter(|&&v| v != 0 && v != 255).take(most + 1).count() > most {
        return grey;
    }
    imageproc::filter::gaussian_blur_f32(&grey, BILEVEL_SIGMA)
}

/// See [`softened_if_bilevel`].
const BILEVEL_GREY_SHARE: f64 = 0.001;
/// See [`softened_if_bilevel`]: measured on the PDF books' CCITT pages read as pictures
/// (`docs/experiments/2026-12-07-bilevel-scans-and-diagram-slots.md`), sigma 0.7 / 1.0 / 1.3 / 1.6.
const BILEVEL_SIGMA: f32 = 1.0;

/// Warps the board inside `quad` to [`BOARD_PX`] pixels and stretches its contrast.
/// The result is the board exactly as the classifier sees it.
pub fn extract(img: &GrayImage, quad: &Quad) -> GrayImage {
    Cut::new(img, quad).board
}

/// A board cut for the classifier: the warped, contrast-stretched board of [`extract`], and what
/// it takes to cut some of its cells again from the board moved by a fraction of a pixel (the
/// recognizer's second look at the cells it is unsure of), with the same warp and stretch.
pub struct Cut<'a> {
    warper: Warper<'a>,
    shade: Option<Shade>,
    stretch: Stretch,
    /// The board as [`extract`] gives it.
    pub board: GrayImage,
    /// The mean side of a square in the picture, in its pixels: how small the board is shown.
    pub square_px: f64,
}

impl<'a> Cut<'a> {
    /// Cuts the board inside `quad` out of `img`.
    pub fn new(img: &'a GrayImage, quad: &Quad) -> Self {
        let warper = Warper::new(img, quad, BOARD_PX);
        let raw = warper.block(0, 0, BOARD_PX, BOARD_PX);
        let mut board = GrayImage::from_raw(BOARD_PX, BOARD_PX, raw).expect("buffer size matches");
        let shade = Shade::of(&board);
        if let Some(s) = &shade {
            s.lift(&mut board, BOARD_PX, 0.0, 0.0);
        }
        let stretch = Stretch::of(&board);
        stretch.apply(board.iter_mut());
        Cut { warper, shade, stretch, board, square_px: quad.mean_side() / 8.0 }
    }

    /// The cells `which` (display order, as in [`to_tensor`]) of the board moved by `(dx, dy)`
    /// pixels of the warped board, as a `[which.len(), 1, CELL_PX, CELL_PX]` tensor.
    pub fn moved_cells(&self, dx: f64, dy: f64, which: &[usize]) -> Array4<f32> {
        let c = CELL_PX as usize;
        let mut data = Vec::with_capacity(which.len() * c * c);
        for &i in which {
            let (row, col) = ((i / 8) as u32, (i % 8) as u32);
            let (x0, y0) = ((col * CELL_PX) as f64 + dx, (row * CELL_PX) as f64 + dy);
            let mut block = self.warper.block_from(x0, y0, CELL_PX, CELL_PX);
            if let Some(s) = &self.shade {
                s.lift(&mut block, CELL_PX, x0, y0);
            }
            self.stretch.apply(block.iter_mut());
            data.extend(block.iter().map(|&v| v as f32 / 255.0));
        }
        Array4::from_shape_vec((which.len(), 1, c, c), data).expect("whole cells")
    }
}

/// Light that falls off across the board, as on a phone photo with vignetting or a page lit from
/// one side: a smooth surface (quadratic in the board's coordinates, in log grey level) fitted to
/// the squares' own levels. Under such light a white piece in the dark corner is as grey as a
/// black one in the light, which no global contrast stretch can undo. Boards lit within
/// [`Shade::MIN_RATIO`] (screenshots, rendered boards, most photos) are left alone, so that the
/// classifier sees them as before.
struct Shade {
    /// Coefficients of `1, u, v, u², v², uv` (u, v in -1..1 across the board), log grey level.
    coef: [f64; 6],
    /// The surface's mean over the square centres: every part is brought to it, the dark parts
    /// lifted and the bright ones (glare) lowered, so that little is pushed past white.
    mid: f64,
}

impl Shade {
    /// Light and dark ends of the fitted surface further apart than this ratio are evened out.
    const MIN_RATIO: f64 = 1.5;
    /// The light and dark squares' surfaces must have this correlation over the board.
    const MIN_AGREEMENT: f64 = 0.8;
    /// The largest gain (and the smallest, its inverse) given to any part of the board.
    const MAX_GAIN: f64 = 3.0;

    fn terms(u: f64, v: f64) -> [f64; 6] {
        [1.0, u, v, u * u, v * v, u * v]
    }

    /// Board pixel `(x, y)` (centre of pixel at +0.5) to the surface's `(u, v)`.
    fn uv(x: f64, y: f64) -> (f64, f64) {
        let half = BOARD_PX as f64 / 2.0;
        (x / half - 1.0, y / half - 1.0)
    }

    fn value(coef: &[f64; 6], u: f64, v: f64) -> f64 {
        Self::terms(u, v).iter().zip(coef).map(|(t, c)| t * c).sum()
    }

    fn at(&self, x: f64, y: f64) -> f64 {
        let (u, v) = Self::uv(x, y);
        Self::value(&self.coef, u, v)
    }

    /// The light on `board` (warped, not stretched): one surface fitted to the light squares and
    /// one to the dark, each twice by least squares, the second time without the squares it
    /// fitted worst (a highlight, a piece that fills its square); their mean is the light.
    /// `None` when the light is even or the two colours disagree on it.
    fn of(board: &GrayImage) -> Option<Shade> {
        let c = CELL_PX as usize;
        let raw = board.as_raw();
        // A square's own level: the median of a ring 2-5 px inside its edges, where the square
        // shows around a piece (pieces stand in the middle), away from its neighbours.
        let level = |i: usize| {
            let (row, col) = (i / 8, i % 8);
            let mut ring = Vec::with_capacity(c * c);
            for y in 2..c - 2 {
                let start = (row * c + y) * BOARD_PX as usize + col * c;
                for x in 2..c - 2 {
                    if x.min(y).min(c - 1 - x).min(c - 1 - y) < 6 {
                        ring.push(raw[start + x]);
                    }
                }
            }
            let mid = ring.len() / 2;
            (*ring.select_nth_unstable(mid).1).max(1) as f64
        };
        let levels: Vec<f64> = (0..64).map(level).collect();
        let centre = |i: usize| Self::uv(((i % 8) * c + c / 2) as f64, ((i / 8) * c + c / 2) as f64);
        // Each colour of square on its own: light that falls off darkens both alike, where a wood
        // texture's squares or the pieces of a crowded board vary each colour its own way.
        let fit = |parity: usize| -> Option<[f64; 6]> {
            let points: Vec<(f64, f64, f64)> = (0..64)
                .filter(|i| (i / 8 + i % 8) % 2 == parity)
                .map(|i| {
                    let (u, v) = centre(i);
                    (u, v, levels[i].ln())
                })
                .collect();
            let fit_points =
                |points: &[(f64, f64, f64)]| least_squares(points.iter().map(|&(u, v, z)| (Self::terms(u, v), z)));
            let coef = fit_points(&points)?;
            let res: Vec<f64> = points.iter().map(|&(u, v, z)| (z - Self::value(&coef, u, v)).abs()).collect();
            let mut sorted = res.clone();
            sorted.sort_by(f64::total_cmp);
            let limit = (3.0 * 1.4826 * sorted[sorted.len() / 2]).max(0.04);
            let kept: Vec<(f64, f64, f64)> =
                points.iter().zip(&res).filter(|&(_, &r)| r <= limit).map(|(&p, _)| p).collect();
            if kept.len() < 16 {
                return None;
            }
            fit_points(&kept)
        };
        let (a, b) = (fit(0)?, fit(1)?);
        // Each surface over the square centres, less its mean: the shape of the light it sees.
        let shape = |coef: &[f64; 6]| -> Vec<f64> {
            let v: Vec<f64> = (0..64).map(centre).map(|(u, v)| Self::value(coef, u, v)).collect();
            let m = v.iter().sum::<f64>() / 64.0;
            v.iter().map(|x| x - m).collect()
        };
        let (sa, sb) = (shape(&a), shape(&b));
        let dot = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f64>();
        let agree = dot(&sa, &sb) / (dot(&sa, &sa) * dot(&sb, &sb)).sqrt().max(1e-12);
        let coef: [f64; 6] = std::array::from_fn(|k| (a[k] + b[k]) / 2.0);
        let values: Vec<f64> = (0..64).map(centre).map(|(u, v)| Self::value(&coef, u, v)).collect();
        let top = values.iter().cloned().fold(f64::MIN, f64::max);
        let bottom = values.iter().cloned().fold(f64::MAX, f64::min);
        let mid = values.iter().sum::<f64>() / 64.0;
        (agree >= Self::MIN_AGREEMENT && top - bottom >= Self::MIN_RATIO.ln()).then_some(Shade { coef, mid })
    }

    /// Evens out the light on `pixels`, rows of `width` pixels of the warped board whose top-left
    /// pixel lies at board pixel `(x0, y0)`: each pixel times the gain that brings the surface
    /// to its mean.
    fn lift(&self, pixels: &mut [u8], width: u32, x0: f64, y0: f64) {
        for (k, p) in pixels.iter_mut().enumerate() {
            let (i, j) = ((k % width as usize) as f64, (k / width as usize) as f64);
            let s = self.at(x0 + i + 0.5, y0 + j + 0.5);
            let gain = (self.mid - s).exp().clamp(1.0 / Self::MAX_GAIN, Self::MAX_GAIN);
            *p = (*p as f64 * gain).round().min(255.0) as u8;
        }
    }
}

/// Maps the 1st and 99th grey-level percentiles of the board to 0 and 255 (gain at most 4).
/// Dull photos and faded scans then look like clean screenshots to the classifier.
pub fn stretch_contrast(board: &mut GrayImage) {
    Stretch::of(board).apply(board.iter_mut());
}

/// The grey-level map of [`stretch_contrast`]: `v` goes to `(v - lo) * 255 / range`.
struct Stretch {
    lo: f64,
    range: f64,
}

impl Stretch {
    fn of(board: &GrayImage) -> Self {
        Self::of_values(board.as_raw())
    }

    fn of_values(values: &[u8]) -> Self {
        let mut hist = [0u32; 256];
        for &v in values {
            hist[v as usize] += 1;
        }
        let n = values.len() as u32;
        let pct = |q: f64| {
            let target = (n as f64 * q) as u32;
            let mut acc = 0;
            for (v, &c) in hist.iter().enumerate() {
                acc += c;
                if acc > target {
                    return v as f64;
                }
            }
            255.0
        };
        let (lo, hi) = (pct(0.01), pct(0.99));
        let range = (hi - lo).max(64.0);
        let mid = (lo + hi) / 2.0;
        Stretch { lo: (mid - range / 2.0).max(0.0), range }
    }

    fn apply<'p>(&self, pixels: impl Iterator<Item = &'p mut u8>) {
        for v in pixels {
            *v = ((*v as f64 - self.lo) * 255.0 / self.range).round().clamp(0.0, 255.0) as u8;
        }
    }
}

/// Side of the kind classifier's view of a board ([`kind_view`]).
pub const KIND_PX: u32 = BOARD_PX / 4;

/// The warped board ([`extract`]) reduced 4x by box filtering, as a `[1, 1, KIND_PX, KIND_PX]`
/// tensor of grey levels / 255: what the kind classifier sees to tell a diagram or screen from a
/// photo of a real set. Its training data is cut by this function (`img2fen dataset --boards`).
pub fn kind_view(board: &GrayImage) -> Array4<f32> {
    assert_eq!(board.dimensions(), (BOARD_PX, BOARD_PX), "cells::kind_view needs a warped board");
    let small = crate::imageops::box_downscale(board, 4);
    let data = small.as_raw().iter().map(|&v| v as f32 / 255.0).collect();
    Array4::from_shape_vec((1, 1, KIND_PX as usize, KIND_PX as usize), data).expect("one view")
}

/// Cuts the warped board into 64 cells in display order (row by row from the top left),
/// as a `[64, 1, CELL_PX, CELL_PX]` tensor with values in `[0, 1]` (grey level / 255).
pub fn to_tensor(board: &GrayImage) -> Array4<f32> {
    assert_eq!(board.dimensions(), (BOARD_PX, BOARD_PX), "cells::to_tensor needs a warped board");
    let c = CELL_PX as usize;
    let raw = board.as_raw();
    let mut data = Vec::with_capacity(raw.len());
    for i in 0..64 {
        let (row, col) = (i / 8, i % 8);
        for y in 0..c {
            let start = (row * c + y) * BOARD_PX as usize + col * c;
            data.extend(raw[start..start + c].iter().map(|&v| v as f32 / 255.0));
        }
    }
    Array4::from_shape_vec((64, 1, c, c), data).expect("64 cells")
}

/// The same cells as [`to_tensor`], as raw grey levels (`64 * CELL_PX * CELL_PX` bytes), for
/// writing training data.
pub fn to_bytes(board: &GrayImage) -> Vec<u8> {
    to_tensor(board).iter().map(|&v| (v * 255.0).round() as u8).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Luma;

    #[test]
    fn a_bilevel_picture_is_low_passed_and_a_grey_one_kept() {
        // A dithered grey: every other pixel black, as a fax scan prints a mid-grey square.
        let dots = GrayImage::from_fn(40, 40, |x, y| Luma([if (x + y) % 2 == 0 { 0 } else { 255 }]));
        let soft = grey(&DynamicImage::ImageLuma8(dots));
        let centre = soft.get_pixel(20, 20)[0];
        assert!((100..=155).contains(&centre), "a dithered grey reads {centre}");
        // The same pattern with one grey level in every row is a picture, not a scan.
        let picture = GrayImage::from_fn(40, 40, |x, y| {
            Luma([if x == 0 {
                128
            } else if (x + y) % 2 == 0 {
                0
            } else {
                255
            }])
        });
        assert_eq!(grey(&DynamicImage::ImageLuma8(picture.clone())), picture);
    }

    #[test]
    fn cells_are_in_display_order() {
        // Mark the cell at row 2, column 5 with a bright pixel at its top-left.
        let mut board = GrayImage::from_pixel(BOARD_PX, BOARD_PX, Luma([0]));
        board.put_pixel(5 * CELL_PX, 2 * CELL_PX, Luma([255]));
        let t = to_tensor(&board);
        assert_eq!(t.shape(), &[64, 1, 32, 32]);
        assert_eq!(t[[2 * 8 + 5, 0, 0, 0]], 1.0);
        assert_eq!(t.iter().filter(|&&v| v > 0.0).count(), 1);
        assert_eq!(to_bytes(&board).iter().filter(|&&v| v == 255).count(), 1);
    }

    #[test]
    fn moved_cells_are_cut_by_the_same_warp_and_stretch() {
        // A 400 px board of 50 px squares at (50, 30), grey 60 and 200 (stretched to 0 and 255).
        let img = GrayImage::from_fn(500, 460, |x, y| {
            let (c, r) = ((x as i32 - 50).div_euclid(50), (y as i32 - 30).div_euclid(50));
            Luma([if (c + r) % 2 == 0 { 200 } else { 60 }])
        });
        let cut = Cut::new(&img, &Quad::rect(50.0, 30.0, 450.0, 430.0));
        let whole = to_tensor(&cut.board);
        assert_eq!((whole[[0, 0, 5, 5]], whole[[1, 0, 5, 5]]), (1.0, 0.0));
        // Not moved, a cell is the same as in the whole board's tensor.
        let same = cut.moved_cells(0.0, 0.0, &[9, 63]);
        assert_eq!(same.shape(), &[2, 1, 32, 32]);
        for (k, &i) in [9, 63].iter().enumerate() {
            assert_eq!(same.index_axis(ndarray::Axis(0), k), whole.index_axis(ndarray::Axis(0), i));
        }
        // Moved 4 px to the right, cell 0's last 4 columns come from cell 1 (the darker square).
        let moved = cut.moved_cells(4.0, 0.0, &[0]);
        assert_eq!((moved[[0, 0, 10, 27]], moved[[0, 0, 10, 28]]), (1.0, 0.0));
    }

    /// A 400 px board of 50 px squares at (50, 30), light 200 and dark 90, with a white disc
    /// (245) on a1 and b2 and a black one (20) on h8 and g7, under the light `light(x, y)`.
    fn lit_board(light: impl Fn(u32, u32) -> f64) -> GrayImage {
        GrayImage::from_fn(500, 460, |x, y| {
            let (c, r) = ((x as i32 - 50).div_euclid(50), (y as i32 - 30).div_euclid(50));
            let (cx, cy) = (x as i32 - 50 - c * 50 - 25, y as i32 - 30 - r * 50 - 25);
            let square = if (c + r) % 2 == 0 { 200.0 } else { 90.0 };
            let disc = cx * cx + cy * cy < 14 * 14;
            let v = match (c, r) {
                (0, 7) | (1, 6) if disc => 245.0,
                (7, 0) | (6, 1) if disc => 20.0,
                _ => square,
            };
            Luma([(v * light(x, y)).round() as u8])
        })
    }

    #[test]
    fn light_falling_off_across_a_photo_is_evened_out() {
        // Full light at the top right, a third of it at the bottom left: the white disc on a1
        // gets darker than the light squares near h8.
        let falloff = |x: u32, y: u32| {
            let d = ((500.0 - x as f64).powi(2) + (y as f64).powi(2)).sqrt() / (500f64.powi(2) + 460f64.powi(2)).sqrt();
            1.0 - 0.65 * d * d
        };
        let quad = Quad::rect(50.0, 30.0, 450.0, 430.0);
        let img = lit_board(falloff);
        let mut plain = crate::warp::warp(&img, &quad, BOARD_PX);
        stretch_contrast(&mut plain);
        let board = extract(&img, &quad);
        // Centre of a square and a point of its ring (4 px inside its top-left corner).
        let centre = |b: &GrayImage, c: u32, r: u32| b.get_pixel(c * 32 + 16, r * 32 + 16)[0];
        let ring = |b: &GrayImage, c: u32, r: u32| b.get_pixel(c * 32 + 4, r * 32 + 4)[0];
        // Without the correction the white piece in the shade is darker than the lit light
        // square (h7 is light: row 1, column 7); with it, it is the brighter, as on the board.
        assert!(centre(&plain, 0, 7) < ring(&plain, 7, 1), "{} {}", centre(&plain, 0, 7), ring(&plain, 7, 1));
        assert!(centre(&board, 0, 7) > ring(&board, 7, 1), "{} {}", centre(&board, 0, 7), ring(&board, 7, 1));
        // Light squares in the two corners come out within a tenth of each other.
        let (shaded, lit) = (ring(&board, 1, 7) as f64, ring(&board, 7, 1) as f64);
        assert!((shaded - lit).abs() < 0.1 * lit, "{shaded} {lit}");
        // A cell cut again (the second look) gets the same correction.
        let cut = Cut::new(&img, &quad);
        let again = cut.moved_cells(0.0, 0.0, &[56, 7]);
        let whole = to_tensor(&cut.board);
        for (k, &i) in [56, 7].iter().enumerate() {
            assert_eq!(again.index_axis(ndarray::Axis(0), k), whole.index_axis(ndarray::Axis(0), i));
        }
    }

    #[test]
    fn even_light_and_squares_of_their_own_shade_are_left_alone() {
        let quad = Quad::rect(50.0, 30.0, 450.0, 430.0);
        // Even light, and a texture whose light squares alone grow lighter across the board
        // (the light surface alone would call for a correction: no light darkens one colour).
        let texture = |x: u32, y: u32| {
            let (c, r) = ((x as i32 - 50).div_euclid(50), (y as i32 - 30).div_euclid(50));
            if (c + r) % 2 == 0 {
                0.3 + 0.1 * c.clamp(0, 7) as f64
            } else {
                1.0
            }
        };
        for img in [lit_board(|_, _| 1.0), lit_board(texture)] {
            let mut plain = crate::warp::warp(&img, &quad, BOARD_PX);
            assert!(Shade::of(&plain).is_none());
            stretch_contrast(&mut plain);
            assert_eq!(extract(&img, &quad), plain);
        }
    }

    #[test]
    fn contrast_stretch_spans_the_range() {
        let mut board = GrayImage::from_fn(BOARD_PX, BOARD_PX, |x, _| Luma([if x < 128 { 90 } else { 170 }]));
        stretch_contrast(&mut board);
        assert_eq!(board.get_pixel(0, 0)[0], 0);
        assert_eq!(board.get_pixel(255, 0)[0], 255);
    }
}
