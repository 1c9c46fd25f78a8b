//! Image helpers that more than one step uses: block reductions (mean and darkest pixel),
//! summed-area tables and bilinear sampling.

use image::GrayImage;

/// Mean of each `k`x`k` block (the last partial blocks are dropped).
pub(crate) fn box_downscale(img: &GrayImage, k: u32) -> GrayImage {
    box_downscale_region(img, 0, 0, img.width(), img.height(), k)
}

/// The darkest pixel of each `k`x`k` block of `img` (partial blocks dropped).
pub(crate) fn min_downscale(img: &GrayImage, k: usize) -> GrayImage {
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

/// `img` halved after a binomial low-pass (taps 1 5 10 10 5 1 each way, centred on each 2x2
/// block, so a pixel keeps the block's place as in [`box_downscale`]; partial blocks dropped).
/// A 2x2 mean lets a fine pattern through as a coarser one: the hatching of a large book
/// diagram, a period of a few pixels, comes out of halved means as a moire that breaks its
/// squares' corners. This filter passes a sixth of a pattern at two thirds of the new Nyquist
/// frequency, where a mean passes two thirds.
pub(crate) fn halve_smooth(img: &GrayImage) -> GrayImage {
    const TAPS: [u32; 6] = [1, 5, 10, 10, 5, 1];
    let (w, h) = (img.width() as usize, img.height() as usize);
    let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
    let src = img.as_raw();
    // Source index of tap t for output i, clamped to the picture.
    let tap = |i: usize, t: usize, n: usize| (2 * i + t).saturating_sub(2).min(n - 1);
    // Rows filtered and halved across first, then down the columns.
    let mut across = vec![0u16; nw * h];
    for y in 0..h {
        let row = &src[y * w..][..w];
        for (x, out) in across[y * nw..][..nw].iter_mut().enumerate() {
            *out = TAPS.iter().enumerate().map(|(t, &c)| c * row[tap(x, t, w)] as u32).sum::<u32>() as u16;
        }
    }
    let mut out = Vec::with_capacity(nw * nh);
    for y in 0..nh {
        let rows: [&[u16]; 6] = std::array::from_fn(|t| &across[tap(y, t, h) * nw..][..nw]);
        out.extend((0..nw).map(|x| {
            let sum: u32 = TAPS.iter().zip(&rows).map(|(&c, r)| c * r[x] as u32).sum();
            ((sum + 512) >> 10) as u8
        }));
    }
    GrayImage::from_raw(nw as u32, nh as u32, out).expect("nw * nh pixels")
}

/// Summed-area table with a zero row and column in front.
pub(crate) struct Integral {
    pub(crate) w: usize,
    pub(crate) data: Vec<u32>,
}

impl Integral {
    pub(crate) fn new(px: &[u8], w: usize, h: usize) -> Self {
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
    pub(crate) fn sum(&self, x0: usize, y0: usize, x1: usize, y1: usize) -> u32 {
        let s = self.w + 1;
        self.data[y1 * s + x1] + self.data[y0 * s + x0] - self.data[y0 * s + x1] - self.data[y1 * s + x0]
    }
}

/// The grey level at continuous picture point `(x, y)` (pixel centres at +0.5), with points
/// outside the picture taking the nearest edge pixel.
pub(crate) fn bilinear(img: &GrayImage, x: f64, y: f64) -> u8 {
    let (iw, ih) = (img.width() as i64, img.height() as i64);
    let (fx, fy) = (x - 0.5, y - 0.5);
    let (ix, iy) = (fx.floor(), fy.floor());
    let (ax, ay) = ((fx - ix) as f32, (fy - iy) as f32);
    let (ix, iy) = (ix as i64, iy as i64);
    let src = img.as_raw();
    let (x0, x1) = (ix.clamp(0, iw - 1) as usize, (ix + 1).clamp(0, iw - 1) as usize);
    let (y0, y1) = ((iy.clamp(0, ih - 1) * iw) as usize, ((iy + 1).clamp(0, ih - 1) * iw) as usize);
    let top = src[y0 + x0] as f32 * (1.0 - ax) + src[y0 + x1] as f32 * ax;
    let bot = src[y1 + x0] as f32 * (1.0 - ax) + src[y1 + x1] as f32 * ax;
    (top * (1.0 - ay) + bot * ay + 0.5) as u8
}
