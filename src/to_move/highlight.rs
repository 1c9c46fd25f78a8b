//! Finding the last move's two highlighted squares on a flat board's picture.
//!
//! Board UIs tint the two squares of the last move: a translucent colour over the square
//! (lichess, chessground), an opaque pair of yellows (chess.com) or a faint shade
//! (cm-chessboard). Each square's background is read on a ring inside its edges, where pieces
//! rarely reach, as the median of its samples (a label, an arrow or a piece's foot covers less
//! than half the ring). A square is tinted when its background stands out from the median of the
//! squares of its shade by much more than those squares vary among themselves; the last move is
//! the pair of tinted squares whose colours one overlay explains.

use image::{DynamicImage, GenericImageView};

use crate::geometry::{Point, Quad};

/// Where a square's background is sampled: rings this far inside its edges, as fractions of
/// its side.
pub const RING_INSETS: [f64; 2] = [0.06, 0.12];
/// Samples along each side of each ring.
const RING_STEPS: usize = 8;

/// A tinted square stands out from its shade's median by at least this much (Euclidean distance
/// in 8-bit RGB): cm-chessboard's faint shade (black at 11%) stands out by 20-30.
pub const MIN_TINT: f32 = 14.0;
/// ... and by at least this many times the distance most squares of its shade stand out by
/// ([`NOISE_QUANTILE`]): a textured board's squares differ among themselves.
pub const TINT_OVER_NOISE: f32 = 4.0;
/// The share of a shade's squares whose distance from its median is taken as the noise: its
/// 32 squares hold at most the move's two, a check and a selection.
pub const NOISE_QUANTILE: f32 = 0.75;
/// Two squares are tinted by one overlay when their colours differ by at most this much from
/// what one colour laid over both squares' shades at one opacity gives.
pub const OVERLAY_TOLERANCE: f32 = 18.0;

/// Two tinted squares that one overlay explains: perhaps the last move's, as a board shows them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Highlight {
    /// The two squares, as display cells (0 = top left, row by row).
    pub cells: [usize; 2],
    /// How far the fainter of the two stands out, over the threshold its shade sets (1 = at the
    /// threshold).
    pub strength: f32,
}

/// Each display cell's background colour (RGB, 0-255) in `img`, of the board inside `quad`.
pub fn square_backgrounds(img: &DynamicImage, quad: &Quad) -> [[f32; 3]; 64] {
    let h = quad.board_to_image();
    let (w, hgt) = img.dimensions();
    std::array::from_fn(|cell| {
        let (col, row) = ((cell % 8) as f64, (cell / 8) as f64);
        let mut samples: [Vec<u8>; 3] = Default::default();
        for inset in RING_INSETS {
            let side = 1.0 - 2.0 * inset;
            for k in 0..RING_STEPS {
                let t = inset + side * k as f64 / RING_STEPS as f64;
                // Around the ring: top, right, bottom, left.
                for (u, v) in [(t, inset), (1.0 - inset, t), (1.0 - t, 1.0 - inset), (inset, 1.0 - t)] {
                    let p = h.apply(Point::new(col + u, row + v));
                    let (x, y) = (p.x.round(), p.y.round());
                    if x < 0.0 || y < 0.0 || x >= w as f64 || y >= hgt as f64 {
                        continue;
                    }
                    let px = img.get_pixel(x as u32, y as u32).0;
                    for c in 0..3 {
                        samples[c].push(px[c]);
                    }
                }
            }
        }
        std::array::from_fn(|c| median_u8(&mut samples[c]))
    })
}

fn median_u8(v: &mut [u8]) -> f32 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_unstable();
    v[v.len() / 2] as f32
}

fn median_f32(v: &mut [f32]) -> f32 {
    v.sort_by(f32::total_cmp);
    v[v.len() / 2]
}

fn dist(a: [f32; 3], b: [f32; 3]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f32>().sqrt()
}

/// Whether one colour laid over `base_a` and `base_b` at one opacity gives `a` and `b`:
/// `a - b = (1 - alpha) (base_a - base_b)` for some opacity in [0, 1].
pub fn one_overlay(a: [f32; 3], b: [f32; 3], base_a: [f32; 3], base_b: [f32; 3]) -> bool {
    let d: [f32; 3] = std::array::from_fn(|c| a[c] - b[c]);
    let e: [f32; 3] = std::array::from_fn(|c| base_a[c] - base_b[c]);
    let ee: f32 = e.iter().map(|x| x * x).sum();
    let k = if ee < 1.0 { 0.0 } else { (d.iter().zip(e).map(|(x, y)| x * y).sum::<f32>() / ee).clamp(0.0, 1.0) };
    let residual: [f32; 3] = std::array::from_fn(|c| d[c] - k * e[c]);
    dist(residual, [0.0; 3]) <= OVERLAY_TOLERANCE
}

/// Every pair of tinted squares that one overlay explains on the flat board inside `quad`,
/// strongest first: the last move's, when the picture shows it, and any a circle, an arrow or
/// a selection happens to make ([`crate::to_move::decide`] keeps the one a move explains).
pub fn find_highlights(img: &DynamicImage, quad: &Quad) -> Vec<Highlight> {
    from_backgrounds(&square_backgrounds(img, quad))
}

/// [`find_highlights`] on the squares' background colours.
pub fn from_backgrounds(bg: &[[f32; 3]; 64]) -> Vec<Highlight> {
    let shade = |cell: usize| (cell % 8 + cell / 8) % 2;
    let mut base = [[0.0f32; 3]; 2];
    let mut threshold = [0.0f32; 2];
    for (s, (b, t)) in base.iter_mut().zip(threshold.iter_mut()).enumerate() {
        let cells: Vec<usize> = (0..64).filter(|&c| shade(c) == s).collect();
        *b = std::array::from_fn(|c| median_f32(&mut cells.iter().map(|&i| bg[i][c]).collect::<Vec<_>>()));
        let mut d: Vec<f32> = cells.iter().map(|&i| dist(bg[i], *b)).collect();
        d.sort_by(f32::total_cmp);
        let noise = d[((d.len() - 1) as f32 * NOISE_QUANTILE) as usize];
        *t = MIN_TINT.max(TINT_OVER_NOISE * noise);
    }
    // How far each tinted square stands out, over its shade's threshold.
    let tinted: Vec<(usize, f32)> =
        (0..64).map(|c| (c, dist(bg[c], base[shade(c)]) / threshold[shade(c)])).filter(|&(_, r)| r >= 1.0).collect();
    let mut pairs: Vec<Highlight> = Vec::new();
    for (i, &(a, ra)) in tinted.iter().enumerate() {
        for &(b, rb) in &tinted[i + 1..] {
            if one_overlay(bg[a], bg[b], base[shade(a)], base[shade(b)]) {
                pairs.push(Highlight { cells: [a, b], strength: ra.min(rb) });
            }
        }
    }
    pairs.sort_by(|x, y| y.strength.total_cmp(&x.strength));
    pairs
}
