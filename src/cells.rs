//! Step 2: cut the warped board into 64 cells, the classifier's input.
//!
//! This module is the single source of truth for the classifier's geometry and normalisation:
//! inference calls [`extract`], and the training data is cut by the same function through the
//! `img2fen dataset` subcommand, so the model never sees cells cut any other way.

use image::{DynamicImage, GrayImage};
use ndarray::Array4;

use crate::geometry::Quad;
use crate::warp::warp;

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
    let mut board = warp(img, quad, BOARD_PX);
    stretch_contrast(&mut board);
    board
}

/// Maps the 1st and 99th grey-level percentiles of the board to 0 and 255 (gain at most 4).
/// Dull photos and faded scans then look like clean screenshots to the classifier.
pub fn stretch_contrast(board: &mut GrayImage) {
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
    let lo = (mid - range / 2.0).max(0.0);
    for v in board.iter_mut() {
        *v = ((*v as f64 - lo) * 255.0 / range).round().clamp(0.0, 255.0) as u8;
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
    fn contrast_stretch_spans_the_range() {
        let mut board = GrayImage::from_fn(BOARD_PX, BOARD_PX, |x, _| Luma([if x < 128 { 90 } else { 170 }]));
        stretch_contrast(&mut board);
        assert_eq!(board.get_pixel(0, 0)[0], 0);
        assert_eq!(board.get_pixel(255, 0)[0], 255);
    }
}
