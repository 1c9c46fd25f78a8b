//! Step 1b: warp the located board to an upright square through the board's homography.

use std::borrow::Cow;

use image::GrayImage;

use crate::geometry::{Homography, Point, Quad};
use crate::imageops::box_downscale_region;

/// Warps the board inside `quad` (image pixels) to a `size`x`size` image, top-left square at the
/// top left as displayed. Bilinear sampling; when the board is more than twice as large as the
/// output it is first box-filtered by an integer factor, so thin lines and hatching average out
/// instead of aliasing. Points outside the image take the nearest edge pixel.
pub fn warp(img: &GrayImage, quad: &Quad, size: u32) -> GrayImage {
    let w = Warper::new(img, quad, size);
    GrayImage::from_raw(size, size, w.block(0, 0, size, size)).expect("buffer size matches")
}

/// The warp of [`warp`], prepared once so that parts of its output can be sampled alone: the
/// coordinate reader needs 92 small patches of a large picture, not the whole of it.
pub struct Warper<'a> {
    src: Cow<'a, GrayImage>,
    h: Homography,
    scale: f64,
}

impl<'a> Warper<'a> {
    /// A warper from the board inside `quad` of `img` to an upright `size` x `size` square.
    pub fn new(img: &'a GrayImage, quad: &Quad, size: u32) -> Self {
        let scale = 8.0 / size as f64;
        let factor = (quad.mean_side() / size as f64).floor() as u32;
        if factor >= 2 {
            // Crop the board's bounding box (with a margin) and downscale it by `factor`.
            let (x0, y0, x1, y1) = quad.bounds();
            let m = 2.0 * factor as f64;
            let cx0 = ((x0 - m).floor().max(0.0) as u32).min(img.width() - 1);
            let cy0 = ((y0 - m).floor().max(0.0) as u32).min(img.height() - 1);
            let cx1 = ((x1 + m).ceil().max(0.0) as u32).clamp(cx0 + 1, img.width());
            let cy1 = ((y1 + m).ceil().max(0.0) as u32).clamp(cy0 + 1, img.height());
            if cx1 - cx0 >= factor && cy1 - cy0 >= factor {
                let small = box_downscale_region(img, cx0, cy0, cx1, cy1, factor);
                let f = factor as f64;
                let q = Quad(quad.0.map(|p| Point::new((p.x - cx0 as f64) / f, (p.y - cy0 as f64) / f)));
                return Warper { src: Cow::Owned(small), h: q.board_to_image(), scale };
            }
        }
        Warper { src: Cow::Borrowed(img), h: quad.board_to_image(), scale }
    }

    /// The output pixels `x0..x0 + w` by `y0..y0 + h`, row by row, exactly as [`warp`] gives them.
    pub fn block(&self, x0: u32, y0: u32, w: u32, h: u32) -> Vec<u8> {
        self.block_from(x0 as f64, y0 as f64, w, h)
    }

    /// A `w`x`h` block of output pixels whose top-left pixel lies at `(x0, y0)`, which may be
    /// fractional (and outside the output): the warp of a board moved by a fraction of a pixel.
    pub fn block_from(&self, x0: f64, y0: f64, w: u32, h: u32) -> Vec<u8> {
        let img = &*self.src;
        let (iw, ih) = (img.width() as i64, img.height() as i64);
        let src = img.as_raw();
        let mut out = vec![0u8; (w * h) as usize];
        let mut k = 0;
        for j in 0..h {
            let py = (y0 + j as f64 + 0.5) * self.scale;
            for i in 0..w {
                let p = self.h.apply(Point::new((x0 + i as f64 + 0.5) * self.scale, py));
                // Continuous pixel coordinates have pixel centres at +0.5.
                let (fx, fy) = (p.x - 0.5, p.y - 0.5);
                let (ix, iy) = (fx.floor(), fy.floor());
                let (ax, ay) = ((fx - ix) as f32, (fy - iy) as f32);
                let (ix, iy) = (ix as i64, iy as i64);
                let (x0, x1) = (ix.clamp(0, iw - 1) as usize, (ix + 1).clamp(0, iw - 1) as usize);
                let (y0, y1) = ((iy.clamp(0, ih - 1) * iw) as usize, ((iy + 1).clamp(0, ih - 1) * iw) as usize);
                let top = src[y0 + x0] as f32 * (1.0 - ax) + src[y0 + x1] as f32 * ax;
                let bot = src[y1 + x0] as f32 * (1.0 - ax) + src[y1 + x1] as f32 * ax;
                // A blend of grey levels stays within 0..=255, where rounding half away from zero
                // is adding 0.5 and truncating (the cast saturates).
                out[k] = (top * (1.0 - ay) + bot * ay + 0.5) as u8;
                k += 1;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Luma;

    #[test]
    fn warping_an_exact_board_keeps_its_squares() {
        // A 400 px board at (50, 30): squares of 50 px.
        let img = GrayImage::from_fn(500, 460, |x, y| {
            if (50..450).contains(&x) && (30..430).contains(&y) {
                let (c, r) = ((x - 50) / 50, (y - 30) / 50);
                Luma([if (c + r) % 2 == 0 { 200 } else { 50 }])
            } else {
                Luma([0])
            }
        });
        let quad = Quad::rect(50.0, 30.0, 450.0, 430.0);
        let out = warp(&img, &quad, 256);
        assert_eq!(out.dimensions(), (256, 256));
        // A block sampled alone equals that part of the whole warp.
        let block = Warper::new(&img, &quad, 256).block(40, 72, 24, 16);
        for (k, v) in block.iter().enumerate() {
            assert_eq!(*v, out.get_pixel(40 + k as u32 % 24, 72 + k as u32 / 24)[0]);
        }
        // A block moved by half an output pixel: its first pixel is centred on the edge between
        // squares 0 and 1 (output x 32), where 200 and 50 blend to 125; the next is in square 1.
        let moved = Warper::new(&img, &quad, 256).block_from(31.5, 8.0, 2, 1);
        assert_eq!(moved, vec![125, 50]);
        for r in 0..8 {
            for c in 0..8 {
                let v = out.get_pixel(c * 32 + 16, r * 32 + 16)[0];
                assert_eq!(v, if (c + r) % 2 == 0 { 200 } else { 50 });
            }
        }
    }
}
