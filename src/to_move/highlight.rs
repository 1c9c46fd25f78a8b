//! Finding the last move's two highlighted squares on a flat board's picture.
//!
//! Board UIs tint the two squares of the last move: a translucent colour over the square
//! (lichess, chessground), an opaque pair of yellows (chess.com) or a faint shade
//! (cm-chessboard). Each square's background is read on a ring inside its edges, where pieces
//! rarely reach, as the median of its samples (a label, an arrow or a piece's foot covers less
//! than half the ring). A square is tinted when its background stands out from what its shade
//! looks like there (a smooth surface fitted over the board, [`shade_backgrounds`], so that the
//! uneven light of a photographed screen tints no corner) by much more than the shade's squares
//! vary among themselves, and not merely brighter towards white (glare, [`whitened`]); the last
//! move is the pair of tinted squares whose colours one overlay explains.

use image::{DynamicImage, GenericImageView};

use crate::geometry::{Point, Quad};

/// Where a square's background is sampled: rings this far inside its edges, as fractions of
/// its side.
pub const RING_INSETS: [f64; 2] = [0.06, 0.12];
/// Samples along each side of each ring.
const RING_STEPS: usize = 8;

/// A tinted square stands out from its shade's surface ([`shade_backgrounds`]) by at least this
/// much (Euclidean distance in 8-bit RGB): cm-chessboard's faint shade (black at 11%) stands out
/// by 20-30.
pub const MIN_TINT: f32 = 14.0;
/// ... and by at least this many times the distance most squares of its shade stand out by
/// ([`NOISE_QUANTILE`]): a textured board's squares differ among themselves.
pub const TINT_OVER_NOISE: f32 = 4.0;
/// The share of a shade's squares whose distance from its surface is taken as the noise: its
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

/// Each display cell's background colour (RGB, 0-255) in `img`, of the board inside `quad`:
/// the per-channel median of `RING_STEPS` samples a side on each of the [`RING_INSETS`] rings
/// (black for a cell wholly outside the picture).
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
                    if x >= 0.0 && y >= 0.0 && x < w as f64 && y < hgt as f64 {
                        let px = img.get_pixel(x as u32, y as u32).0;
                        for (channel, value) in samples.iter_mut().zip(px) {
                            channel.push(value);
                        }
                    }
                }
            }
        }
        samples.map(|mut v| {
            v.sort_unstable();
            v.get(v.len() / 2).map_or(0.0, |&m| m as f32)
        })
    })
}

/// Which shade a display cell is: 0 for the top-left square's, 1 for the other.
fn shade(cell: usize) -> usize {
    (cell % 8 + cell / 8) % 2
}

/// Whether `tint` is `base` lit brighter, towards white, as glare on a photographed screen
/// lights it, rather than tinted by a colour: every channel rises, in proportion to the room
/// it has left ([`GLARE_COSINE`]). UIs tint the last move with a colour, or darken it.
fn whitened(tint: [f32; 3], base: [f32; 3]) -> bool {
    let d: [f32; 3] = std::array::from_fn(|c| tint[c] - base[c]);
    let room: [f32; 3] = std::array::from_fn(|c| 255.0 - base[c]);
    let norm = dist(d, [0.0; 3]) * dist(room, [0.0; 3]);
    d.iter().all(|&x| x >= 0.0)
        && norm > 0.0
        && d.iter().zip(room).map(|(a, b)| a * b).sum::<f32>() / norm > GLARE_COSINE
}

/// See `whitened`: the cosine between a tint's change and a shade's room towards white above
/// which the tint is taken for glare.
pub const GLARE_COSINE: f32 = 0.95;

/// Squares of a shade left out of the second fit of [`shade_backgrounds`]: the move's two, a
/// check and a selection.
const LEFT_OUT: usize = 4;

/// What each cell's background would be without a tint: per shade and channel, a quadratic
/// surface over the board fitted to that shade's squares, then fitted again without the
/// `LEFT_OUT` squares farthest from it. A photo of a screen lights the board unevenly
/// (vignetting, a gradient, glare), so one colour per shade would leave a whole corner tinted.
pub fn shade_backgrounds(bg: &[[f32; 3]; 64]) -> [[f32; 3]; 64] {
    let terms = |cell: usize| {
        let (x, y) = ((cell % 8) as f64 / 3.5 - 1.0, (cell / 8) as f64 / 3.5 - 1.0);
        [1.0, x, y, x * x, y * y, x * y]
    };
    let fit = |cells: &[usize]| -> [[f64; 6]; 3] {
        std::array::from_fn(|ch| {
            crate::geometry::least_squares(cells.iter().map(|&c| (terms(c), bg[c][ch] as f64))).unwrap_or([0.0; 6])
        })
    };
    let at = |coef: &[[f64; 6]; 3], cell: usize| -> [f32; 3] {
        let t = terms(cell);
        std::array::from_fn(|ch| coef[ch].iter().zip(t).map(|(a, b)| a * b).sum::<f64>() as f32)
    };
    let second: [[[f64; 6]; 3]; 2] = std::array::from_fn(|s| {
        let mut cells: Vec<usize> = (0..64).filter(|&c| shade(c) == s).collect();
        let first = fit(&cells);
        cells.sort_by(|&a, &b| dist(bg[a], at(&first, a)).total_cmp(&dist(bg[b], at(&first, b))));
        fit(&cells[..cells.len() - LEFT_OUT])
    });
    std::array::from_fn(|c| at(&second[shade(c)], c))
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

/// [`find_highlights`] on the squares' background colours ([`square_backgrounds`]).
pub fn from_backgrounds(bg: &[[f32; 3]; 64]) -> Vec<Highlight> {
    let base = shade_backgrounds(bg);
    let apart: [f32; 64] = std::array::from_fn(|c| dist(bg[c], base[c]));
    let threshold: [f32; 2] = std::array::from_fn(|s| {
        let mut d: Vec<f32> = (0..64).filter(|&c| shade(c) == s).map(|c| apart[c]).collect();
        d.sort_by(f32::total_cmp);
        let noise = d[((d.len() - 1) as f32 * NOISE_QUANTILE) as usize];
        MIN_TINT.max(TINT_OVER_NOISE * noise)
    });
    // How far each tinted square stands out, over its shade's threshold.
    let tinted: Vec<(usize, f32)> = (0..64)
        .map(|c| (c, apart[c] / threshold[shade(c)]))
        .filter(|&(c, r)| r >= 1.0 && !whitened(bg[c], base[c]))
        .collect();
    let mut pairs: Vec<Highlight> = Vec::new();
    for (i, &(a, ra)) in tinted.iter().enumerate() {
        for &(b, rb) in &tinted[i + 1..] {
            if one_overlay(bg[a], bg[b], base[a], base[b]) {
                pairs.push(Highlight { cells: [a, b], strength: ra.min(rb) });
            }
        }
    }
    pairs.sort_by(|x, y| y.strength.total_cmp(&x.strength));
    pairs
}
