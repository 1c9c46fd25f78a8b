//! The glyphs of a picture of text: ink apart from the background, its connected pieces joined
//! into characters, and one patch per character for the glyph classifier.

use image::{GrayImage, Luma};
use imageproc::region_labelling::{connected_components, Connectivity};
use ndarray::Array4;

use crate::imageops::bilinear;

/// Side of a glyph patch, in pixels.
pub const GLYPH_PX: usize = 24;

/// A patch spans this many text heights ([`Glyphs::text_height`]) around its glyph's centre.
pub const PATCH_HEIGHTS: f64 = 1.4;

/// One character: the bounding box of its ink, in pixels of the picture (inclusive).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Glyph {
    /// Left, top, right and bottom edges.
    pub x0: u32,
    /// Top edge.
    pub y0: u32,
    /// Right edge.
    pub x1: u32,
    /// Bottom edge.
    pub y1: u32,
}

impl Glyph {
    /// The centre of its box.
    pub fn centre(&self) -> (f64, f64) {
        ((self.x0 + self.x1) as f64 / 2.0 + 0.5, (self.y0 + self.y1) as f64 / 2.0 + 0.5)
    }

    /// Its height in pixels.
    pub fn height(&self) -> u32 {
        self.y1 - self.y0 + 1
    }

    /// Its width in pixels.
    pub fn width(&self) -> u32 {
        self.x1 - self.x0 + 1
    }

    fn union(&self, o: &Glyph) -> Glyph {
        Glyph { x0: self.x0.min(o.x0), y0: self.y0.min(o.y0), x1: self.x1.max(o.x1), y1: self.y1.max(o.y1) }
    }
}

/// The characters of a picture of text.
#[derive(Debug, Clone)]
pub struct Glyphs {
    /// Each character's box, sorted by top edge.
    pub glyphs: Vec<Glyph>,
    /// The height of a capital letter, as the tall characters show it, in pixels.
    pub text_height: f64,
    /// The width of a character cell, when the text is monospaced and shows it ([`advance`]).
    pub advance: Option<f64>,
    /// Whether the ink is lighter than the background (a dark terminal).
    pub light_on_dark: bool,
    /// Where the ink is (255) in the picture.
    pub ink: GrayImage,
}

/// Ink pieces taller than this many text heights are no character: boxes, title bars, pictures
/// (wider ones are cut into cells, [`SPLIT_CELLS`]).
const MAX_HEIGHTS: f64 = 3.0;

/// Finds the characters of `gray`: the pixels on the minority side of Otsu's threshold are ink;
/// its 8-connected pieces whose boxes overlap across (at least half the narrower one's width)
/// and nearly touch down the page, or of which one box lies mostly inside the other, join into
/// one character (the dot of an `i`, a symbol drawn in several strokes). `None` when there is no ink or too little of it to be text.
pub fn find(gray: &GrayImage) -> Option<Glyphs> {
    let level = imageproc::contrast::otsu_level(gray);
    let above = gray.pixels().filter(|p| p.0[0] > level).count();
    let light_on_dark = above * 2 < gray.pixels().len();
    let ink = GrayImage::from_fn(gray.width(), gray.height(), |x, y| {
        let v = gray.get_pixel(x, y).0[0];
        Luma([if (v > level) == light_on_dark { 255 } else { 0 }])
    });
    let labels = connected_components(&ink, Connectivity::Eight, Luma([0u8]));
    let mut boxes: Vec<Option<(Glyph, u32)>> = Vec::new();
    for (x, y, l) in labels.enumerate_pixels() {
        let l = l.0[0] as usize;
        if l == 0 {
            continue;
        }
        if boxes.len() < l {
            boxes.resize(l, None);
        }
        let g = Glyph { x0: x, y0: y, x1: x, y1: y };
        boxes[l - 1] = Some(boxes[l - 1].map_or((g, 1), |(b, n)| (b.union(&g), n + 1)));
    }
    // Solid blocks (a title bar, a cursor, a filled panel) are no characters.
    let solid =
        |g: &Glyph, n: u32| n as f64 >= 0.85 * (g.width() * g.height()) as f64 && g.width().min(g.height()) >= 6;
    let mut pieces: Vec<Glyph> = boxes.into_iter().flatten().filter(|(g, n)| !solid(g, *n)).map(|(g, _)| g).collect();
    if pieces.len() < 8 {
        return None;
    }
    let text_height = text_height(&pieces)?;
    let limit = (MAX_HEIGHTS * text_height) as u32;
    pieces.retain(|g| g.height() <= limit);
    let advance = advance(&pieces, text_height);
    let mut glyphs = join(pieces, text_height);
    if let Some(a) = advance {
        glyphs = merge_cells(split_wide(glyphs, &ink, a, text_height), a, text_height);
    }
    Some(Glyphs { glyphs, text_height, advance, light_on_dark, ink })
}

/// The advance of a monospace font, the width of one character cell: the longest spacing in
/// 0.3-2.5 text heights of which the distances between neighbouring narrow pieces (at most a
/// text height wide, on one line) are nearly all whole multiples. `None` when too few pieces
/// stand side by side to tell.
fn advance(pieces: &[Glyph], h: f64) -> Option<f64> {
    let mut narrow: Vec<(f64, f64)> = pieces
        .iter()
        .filter(|g| (g.width() as f64) <= h && (g.height() as f64) >= 0.3 * h)
        .map(|g| g.centre())
        .collect();
    narrow.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.total_cmp(&b.0)));
    // Distances to the next piece on the right on the same line, up to five text heights.
    let mut gaps = Vec::new();
    for (i, &(x, y)) in narrow.iter().enumerate() {
        let next = narrow[i + 1..]
            .iter()
            .take_while(|&&(_, y2)| y2 - y <= 0.5 * h)
            .filter(|&&(x2, y2)| (y2 - y).abs() <= 0.25 * h && x2 > x)
            .map(|&(x2, _)| x2 - x)
            .fold(f64::INFINITY, f64::min);
        if next <= 5.0 * h {
            gaps.push(next);
        }
    }
    if gaps.len() < 8 {
        return None;
    }
    // At most 500 gaps, spread over the picture, score the candidates.
    let every = gaps.len().div_ceil(500);
    let sample: Vec<f64> = gaps.iter().copied().step_by(every).collect();
    let score =
        |a: f64| sample.iter().map(|&d| (std::f64::consts::TAU * d / a).cos()).sum::<f64>() / sample.len() as f64;
    // Steps of 0.7%: a gap of five text heights is at most six cells, so its phase is off by
    // under 5% of a cycle between candidates.
    let (lo, hi) = (0.3 * h, 2.5 * h);
    let steps = 300;
    let candidates: Vec<(f64, f64)> = (0..=steps)
        .map(|k| {
            let a = lo * (hi / lo).powf(k as f64 / steps as f64);
            (a, score(a))
        })
        .collect();
    let best = candidates.iter().map(|c| c.1).fold(f64::NEG_INFINITY, f64::max);
    // Text on a character grid scores 0.9 and more; the blobs of a photo do not line up.
    if best < MIN_GRID_SCORE {
        return None;
    }
    let coarse = candidates.iter().rev().find(|c| c.1 >= 0.85 * best)?.0;
    // Least squares on the gaps that are near whole multiples of it.
    let (mut num, mut den) = (0.0, 0.0);
    for &d in &gaps {
        let k = (d / coarse).round();
        if k >= 1.0 && (d - k * coarse).abs() <= 0.2 * coarse {
            num += d * k;
            den += k * k;
        }
    }
    (den > 0.0).then(|| num / den)
}

/// Pieces wider than [`SPLIT_CELLS`] character cells (symbols drawn wider than their cells
/// touch their neighbours, and a ring its bars) become one glyph per cell they cover, at the
/// cell boundaries the nearest narrow pieces place (characters sit centred in their cells): each
/// spans its cell across and the ink inside it down the page, so that it is centred on its
/// cell. A cell between two symbols holds only their edges; it lies between the squares of any
/// board, where no square glyph is looked for.
fn split_wide(glyphs: Vec<Glyph>, ink: &GrayImage, a: f64, h: f64) -> Vec<Glyph> {
    let narrow: Vec<f64> = glyphs
        .iter()
        .filter(|g| (g.width() as f64) <= 0.9 * a && (g.height() as f64) >= 0.3 * h)
        .map(|g| g.centre().0)
        .collect();
    if narrow.is_empty() {
        return glyphs;
    }
    let mut out = Vec::with_capacity(glyphs.len());
    for g in glyphs {
        if (g.width() as f64) <= SPLIT_CELLS * a {
            out.push(g);
            continue;
        }
        let (cx, _) = g.centre();
        // The cell phase from the five nearest narrow pieces (a circular mean).
        let mut near: Vec<f64> = narrow.clone();
        near.sort_by(|p, q| (p - cx).abs().total_cmp(&(q - cx).abs()));
        let (mut sx, mut sy) = (0.0, 0.0);
        for &x in near.iter().take(5) {
            let t = std::f64::consts::TAU * x / a;
            sx += t.cos();
            sy += t.sin();
        }
        let phase = sy.atan2(sx) / std::f64::consts::TAU * a;
        // Cell k spans phase + (k - 0.5) a .. phase + (k + 0.5) a, its centre at phase + k a.
        let first = ((g.x0 as f64 + 0.5 - phase) / a).round() as i64;
        let last = ((g.x1 as f64 + 0.5 - phase) / a).round() as i64;
        for k in first..=last {
            let (left, right) = (phase + (k as f64 - 0.5) * a, phase + (k as f64 + 0.5) * a);
            let (l, r) = (left.max(g.x0 as f64).round() as u32, (right.round() as u32).min(g.x1 + 1));
            if r <= l {
                continue;
            }
            if let Some(part) = ink_box(ink, l, r - 1, g.y0, g.y1) {
                // Across, the cell itself (within the picture), so that the glyph is centred on it.
                let x0 = left.round().max(0.0) as u32;
                let x1 = ((right.round() as u32).saturating_sub(1)).min(ink.width() - 1).max(x0);
                out.push(Glyph { x0, x1, ..part });
            }
        }
    }
    out.sort_by_key(|g| (g.y0, g.x0));
    out
}

/// Glyphs that together are no wider than a cell and no taller than a character, and lie
/// within a quarter cell across and half a text height down the page of each other, are one
/// character (pieces of a faint outline symbol): in a monospace grid no two characters fit in
/// one cell.
fn merge_cells(mut glyphs: Vec<Glyph>, a: f64, h: f64) -> Vec<Glyph> {
    glyphs.sort_by_key(|g| g.x0);
    let mut out: Vec<Glyph> = Vec::with_capacity(glyphs.len());
    for g in glyphs {
        let same = out.iter_mut().rev().take_while(|o| (g.x0 as f64) - (o.x0 as f64) <= 2.0 * a).find(|o| {
            let u = o.union(&g);
            let gap_x = g.x0.max(o.x0) as i64 - g.x1.min(o.x1) as i64 - 1;
            let gap_y = g.y0.max(o.y0) as i64 - g.y1.min(o.y1) as i64 - 1;
            u.width() as f64 <= 1.05 * a
                && u.height() as f64 <= 1.6 * h
                && gap_x as f64 <= 0.25 * a
                && gap_y as f64 <= 0.5 * h
        });
        match same {
            Some(o) => *o = o.union(&g),
            None => out.push(g),
        }
    }
    out.sort_by_key(|g| (g.y0, g.x0));
    out
}

/// How well the gaps between narrow neighbours must fit whole multiples of one advance (the mean
/// cosine of their phases) for the picture to count as monospaced text ([`advance`]).
pub const MIN_GRID_SCORE: f64 = 0.6;

/// A piece wider than this many character cells is cut at the cell boundaries.
pub const SPLIT_CELLS: f64 = 1.5;

/// The tight box of the ink in columns x0..=x1 and rows y0..=y1.
fn ink_box(ink: &GrayImage, x0: u32, x1: u32, y0: u32, y1: u32) -> Option<Glyph> {
    let mut b: Option<Glyph> = None;
    for y in y0..=y1 {
        for x in x0..=x1 {
            if ink.get_pixel(x, y).0[0] > 0 {
                let g = Glyph { x0: x, y0: y, x1: x, y1: y };
                b = Some(b.map_or(g, |o| o.union(&g)));
            }
        }
    }
    b
}

/// The height of the tall characters: the median height of the pieces at least half as tall as
/// the ninetieth percentile (so that neither dots and dashes nor a few boxes decide it).
fn text_height(pieces: &[Glyph]) -> Option<f64> {
    let mut heights: Vec<u32> = pieces.iter().map(|g| g.height()).filter(|&h| h >= 3).collect();
    if heights.len() < 8 {
        return None;
    }
    heights.sort_unstable();
    let p90 = heights[heights.len() * 9 / 10];
    let tall: Vec<u32> = heights.into_iter().filter(|&h| 2 * h >= p90).collect();
    Some(tall[tall.len() / 2] as f64)
}

/// Joins pieces that overlap across and nearly touch down the page into characters.
fn join(mut pieces: Vec<Glyph>, text_height: f64) -> Vec<Glyph> {
    pieces.sort_by_key(|g| (g.y0, g.x0));
    let gap = (0.3 * text_height).ceil() as i64;
    let mut out: Vec<Glyph> = Vec::with_capacity(pieces.len());
    for g in pieces {
        let reach = g.y0 as f64 - 2.0 * MAX_HEIGHTS * text_height;
        let joined = out.iter_mut().rev().take_while(|o| o.y0 as f64 >= reach).find(|o| {
            let overlap = g.x1.min(o.x1) as i64 - g.x0.max(o.x0) as i64 + 1;
            let narrower = g.width().min(o.width()) as i64;
            let vertical_gap = g.y0 as i64 - o.y1 as i64 - 1;
            let stacked = 2 * overlap >= narrower && vertical_gap <= gap;
            // Or one box lies mostly inside the other (the strokes of one symbol).
            let across = (g.y1.min(o.y1) as i64 - g.y0.max(o.y0) as i64 + 1).max(0);
            let smaller = (g.width() * g.height()).min(o.width() * o.height()) as i64;
            stacked || 2 * overlap.max(0) * across >= smaller
        });
        match joined {
            Some(o) => *o = o.union(&g),
            None => out.push(g),
        }
    }
    out.sort_by_key(|g| (g.y0, g.x0));
    out
}

impl Glyphs {
    /// One `[N, 1, GLYPH_PX, GLYPH_PX]` patch per glyph of `which`: a square of
    /// [`PATCH_HEIGHTS`] text heights centred on the glyph's box, sampled bilinearly from `gray`,
    /// dark ink on a light ground whatever the picture's polarity, and stretched to span 0-1.
    pub fn patches(&self, gray: &GrayImage, which: &[usize]) -> Array4<f32> {
        let n = GLYPH_PX;
        let side = PATCH_HEIGHTS * self.text_height;
        let step = side / n as f64;
        let mut out = Array4::<f32>::zeros((which.len(), 1, n, n));
        for (k, &i) in which.iter().enumerate() {
            let (cx, cy) = self.glyphs[i].centre();
            let (x0, y0) = (cx - side / 2.0, cy - side / 2.0);
            let mut patch = [0f32; GLYPH_PX * GLYPH_PX];
            for (j, v) in patch.iter_mut().enumerate() {
                let x = x0 + ((j % n) as f64 + 0.5) * step;
                let y = y0 + ((j / n) as f64 + 0.5) * step;
                let s = bilinear(gray, x, y) as f32 / 255.0;
                *v = if self.light_on_dark { 1.0 - s } else { s };
            }
            let lo = patch.iter().copied().fold(f32::INFINITY, f32::min);
            let hi = patch.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let span = (hi - lo).max(0.1);
            for (j, v) in patch.iter().enumerate() {
                out[[k, 0, j / n, j % n]] = (v - lo) / span;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Light text on a dark ground: three bars and a dotted `i`.
    fn picture() -> GrayImage {
        let mut img = GrayImage::from_pixel(120, 40, Luma([20]));
        let mut fill = |x0: u32, y0: u32, x1: u32, y1: u32| {
            for y in y0..=y1 {
                for x in x0..=x1 {
                    img.put_pixel(x, y, Luma([230]));
                }
            }
        };
        for k in 0..8 {
            fill(5 + 12 * k, 10, 9 + 12 * k, 24);
        }
        // An `i`: a stem and a dot above it.
        fill(104, 14, 106, 24);
        fill(104, 10, 106, 11);
        img
    }

    #[test]
    fn pieces_that_touch_down_the_page_join_into_one_character() {
        let g = find(&picture()).expect("text");
        assert!(g.light_on_dark);
        assert_eq!(g.text_height, 15.0);
        assert_eq!(g.glyphs.len(), 9, "{:?}", g.glyphs);
        assert_eq!(g.glyphs[8], Glyph { x0: 104, y0: 10, x1: 106, y1: 24 });
        let p = g.patches(&picture(), &[0]);
        // Dark ink on a light ground: the centre is ink.
        assert!(p[[0, 0, 12, 12]] < 0.2 && p[[0, 0, 0, 0]] > 0.8);
    }
}
