//! Step 2: cut the warped board into 64 cells, the classifier's input.
//!
//! This module is the single source of truth for the classifier's geometry and normalisation:
//! inference calls [`extract`], and the training data is cut by the same function through the
//! `img2fen dataset` subcommand, so the model never sees cells cut any other way.

use image::{DynamicImage, GrayImage};
use ndarray::Array4;

use crate::geometry::Quad;
use crate::warp::Warper;

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
    match img {
        DynamicImage::ImageLuma8(g) => g.clone(),
        DynamicImage::ImageRgb8(c) => rgb(c.as_raw()),
        DynamicImage::ImageRgba8(c) => rgba(c.as_raw()),
        other if other.color().has_alpha() => rgba(other.to_rgba8().as_raw()),
        other => rgb(other.to_rgb8().as_raw()),
    }
}

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
    stretch: Stretch,
    /// The board as [`extract`] gives it.
    pub board: GrayImage,
}

impl<'a> Cut<'a> {
    pub fn new(img: &'a GrayImage, quad: &Quad) -> Self {
        let warper = Warper::new(img, quad, BOARD_PX);
        let raw = warper.block(0, 0, BOARD_PX, BOARD_PX);
        let mut board = GrayImage::from_raw(BOARD_PX, BOARD_PX, raw).expect("buffer size matches");
        let stretch = Stretch::of(&board);
        stretch.apply(board.iter_mut());
        Cut { warper, stretch, board }
    }

    /// The cells `which` (display order, as in [`to_tensor`]) of the board moved by `(dx, dy)`
    /// pixels of the warped board, as a `[which.len(), 1, CELL_PX, CELL_PX]` tensor.
    pub fn moved_cells(&self, dx: f64, dy: f64, which: &[usize]) -> Array4<f32> {
        let c = CELL_PX as usize;
        let mut data = Vec::with_capacity(which.len() * c * c);
        for &i in which {
            let (row, col) = ((i / 8) as u32, (i % 8) as u32);
            let mut block = self.warper.block_from((col * CELL_PX) as f64 + dx, (row * CELL_PX) as f64 + dy, CELL_PX, CELL_PX);
            self.stretch.apply(block.iter_mut());
            data.extend(block.iter().map(|&v| v as f32 / 255.0));
        }
        Array4::from_shape_vec((which.len(), 1, c, c), data).expect("whole cells")
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
        let mut hist = [0u32; 256];
        for &v in board.as_raw() {
            hist[v as usize] += 1;
        }
        let n = board.as_raw().len() as u32;
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

    #[test]
    fn contrast_stretch_spans_the_range() {
        let mut board = GrayImage::from_fn(BOARD_PX, BOARD_PX, |x, _| Luma([if x < 128 { 90 } else { 170 }]));
        stretch_contrast(&mut board);
        assert_eq!(board.get_pixel(0, 0)[0], 0);
        assert_eq!(board.get_pixel(255, 0)[0], 255);
    }
}
