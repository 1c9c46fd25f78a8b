//! How clearly a window's 64 squares alternate light and dark: square values along their
//! borders, in grey level or texture, with a gradient across the board taken out.

use super::*;

/// The grey of the board square whose top-left corner is at board coordinates (x, y): the
/// median of eight small patches along its border (pieces stand in the middle); NaN when too
/// few patches lie inside the picture.
pub(super) fn square_value(img: &GrayImage, to_image: impl Fn(f64, f64) -> Point, x: f64, y: f64) -> f64 {
    const C: f64 = 0.12;
    const E: f64 = 0.08;
    const POINTS: [(f64, f64); 8] =
        [(C, C), (0.5, E), (1.0 - C, C), (1.0 - E, 0.5), (1.0 - C, 1.0 - C), (0.5, 1.0 - E), (C, 1.0 - C), (E, 0.5)];
    let (w, h) = (img.width() as i64, img.height() as i64);
    let side = to_image(x, y).dist(to_image(x + 1.0, y));
    let rho = ((side * 0.05).round() as i64).max(1);
    let (raw, stride) = (img.as_raw(), img.width() as usize);
    let mut v = [0.0f64; 8];
    let mut len = 0;
    for &(dx, dy) in &POINTS {
        let p = to_image(x + dx, y + dy);
        let (cx, cy) = (p.x.round() as i64, p.y.round() as i64);
        if cx - rho < 0 || cy - rho < 0 || cx + rho >= w || cy + rho >= h {
            continue;
        }
        let mut sum = 0u32;
        for yy in (cy - rho) as usize..=(cy + rho) as usize {
            let row = &raw[yy * stride + (cx - rho) as usize..=yy * stride + (cx + rho) as usize];
            sum += row.iter().map(|&g| g as u32).sum::<u32>();
        }
        v[len] = sum as f64 / ((2 * rho + 1) * (2 * rho + 1)) as f64;
        len += 1;
    }
    if len < 5 {
        return f64::NAN;
    }
    let v = &mut v[..len];
    v.sort_by(f64::total_cmp);
    (v[(len - 1) / 2] + v[len / 2]) / 2.0
}

/// How textured the board square whose top-left corner is at board coordinates (x, y) is: the
/// median, over eight patches along its border, of the grey levels' standard deviation in a
/// patch a fifth of a square wide. A hatch too faint to darken a square still textures it.
pub(super) fn square_texture(img: &GrayImage, to_image: impl Fn(f64, f64) -> Point, x: f64, y: f64) -> f64 {
    const C: f64 = 0.15;
    const POINTS: [(f64, f64); 8] =
        [(C, C), (0.5, C), (1.0 - C, C), (1.0 - C, 0.5), (1.0 - C, 1.0 - C), (0.5, 1.0 - C), (C, 1.0 - C), (C, 0.5)];
    let (w, h) = (img.width() as i64, img.height() as i64);
    let side = to_image(x, y).dist(to_image(x + 1.0, y));
    let rho = ((side * 0.1).round() as i64).max(1);
    let mut v = Vec::with_capacity(8);
    for &(dx, dy) in &POINTS {
        let p = to_image(x + dx, y + dy);
        let (cx, cy) = (p.x.round() as i64, p.y.round() as i64);
        if cx - rho < 0 || cy - rho < 0 || cx + rho >= w || cy + rho >= h {
            continue;
        }
        let (mut sum, mut sq, mut n) = (0.0, 0.0, 0.0);
        for yy in cy - rho..=cy + rho {
            for xx in cx - rho..=cx + rho {
                let g = img.get_pixel(xx as u32, yy as u32)[0] as f64;
                sum += g;
                sq += g * g;
                n += 1.0;
            }
        }
        v.push((sq / n - (sum / n).powi(2)).max(0.0).sqrt());
    }
    if v.len() < 5 {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    (v[(v.len() - 1) / 2] + v[v.len() / 2]) / 2.0
}

/// How clearly 64 square values (a8 to h1 order; NaN for unknown) alternate light and dark,
/// from -1 to 1: the mean over the squares of how far each lies on its colour's side of the
/// midpoint between the two colours' medians, in units of half their difference, clamped to
/// [-1, 1]. A square of background scores about 0, so a window shifted off the board by a
/// rank loses an eighth.
pub(super) fn checker_contrast(values: &[f64]) -> f64 {
    let Some((mid, half)) = checker_levels(values) else { return 0.0 };
    let mut sum = 0.0;
    for (i, v) in values.iter().enumerate() {
        if !v.is_nan() {
            sum += in_step(*v, mid, half, (i / 8 + i % 8) % 2 == 0);
        }
    }
    sum / 64.0
}

/// How far the square value `v` lies on its colour's side of the checker's midpoint `mid`, in
/// units of the half contrast `half` ([`checker_levels`]), clamped to [-1, 1]; `a8_colour` when
/// the square has a8's colour.
pub(super) fn in_step(v: f64, mid: f64, half: f64, a8_colour: bool) -> f64 {
    let s = if a8_colour { 1.0 } else { -1.0 };
    ((v - mid) * s / half).clamp(-1.0, 1.0)
}

/// The midpoint between the medians of a window's two square colours (64 values, a8 to h1
/// order, NaN for unknown) and half their difference, signed: positive when the squares of
/// a8's colour are the lighter. None when the two differ by less than 6 grey levels.
pub(super) fn checker_levels(values: &[f64]) -> Option<(f64, f64)> {
    let median = |parity: usize| {
        let mut v: Vec<f64> =
            (0..64).filter(|i| (i / 8 + i % 8) % 2 == parity).map(|i| values[i]).filter(|v| !v.is_nan()).collect();
        if v.is_empty() {
            return f64::NAN;
        }
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (light, dark) = (median(0), median(1));
    let half = (light - dark) / 2.0;
    (half.abs() >= 3.0).then_some(((light + dark) / 2.0, half))
}

/// How clearly a line of 8 square values (NaN for unknown) alternates against its own
/// neighbours, whatever its level: for each known square with a known neighbour, how far it
/// lies from its neighbours' mean on its colour's side, in units of the checker's contrast
/// (`2 * half`, [`checker_levels`]), clamped to [-1, 1]; `a8_first` when the line's first square
/// has a8's colour. The mean when at least [`MIN_IN_STEP_SHARE`] of at least 6 such squares are
/// in step, else 0: a line of background, flat or busy, scores about 0 and rarely keeps its
/// signs in step.
pub(super) fn alternation_along(values: &[f64; 8], half: f64, a8_first: bool) -> f64 {
    let mut steps = Vec::with_capacity(8);
    for k in 0..8 {
        let v = values[k];
        let neighbours: Vec<f64> = [k.checked_sub(1), (k < 7).then_some(k + 1)]
            .into_iter()
            .flatten()
            .map(|j| values[j])
            .filter(|n| !n.is_nan())
            .collect();
        if v.is_nan() || neighbours.is_empty() {
            continue;
        }
        let nb = neighbours.iter().sum::<f64>() / neighbours.len() as f64;
        let s = if (k % 2 == 0) == a8_first { 1.0 } else { -1.0 };
        steps.push(((v - nb) * s / (2.0 * half)).clamp(-1.0, 1.0));
    }
    let in_step = steps.iter().filter(|&&d| d > 0.0).count();
    if steps.len() < 6 || (in_step as f64) < MIN_IN_STEP_SHARE * steps.len() as f64 {
        return 0.0;
    }
    steps.iter().sum::<f64>() / steps.len() as f64
}

/// See [`alternation_along`]: 7 of 8 squares.
const MIN_IN_STEP_SHARE: f64 = 0.85;

/// How clearly the checker of a window (its 64 square values, a8 to h1 order) goes on beyond
/// it: for each side, the mean over the 8 squares just outside of how far each lies on the
/// side of the window's midpoint that its colour would have, in units of the window's half
/// contrast (as [`checker_contrast`] measures inside), summed over the sides where it is
/// positive. A board's own window has background beyond each side, uniform or not in step with
/// the squares, about 0 (and one side's worth with a second board in step beside it); a window
/// a rank or a file inside the board has a rank or file of squares beyond one side, about as
/// much as inside, and one straddling two boards side by side has squares beyond two.
/// `beyond(x, y)` is the value of the square at window coordinates (x, y), x and y from -1 to 8.
pub(super) fn checkered_beyond(window: &[f64], beyond: impl Fn(i32, i32) -> f64) -> f64 {
    let Some((mid, half)) = checker_levels(window) else { return 0.0 };
    let side = |squares: &mut dyn Iterator<Item = (i32, i32)>| line_in_step(squares, &beyond, mid, half).unwrap_or(0.0);
    [
        side(&mut (0..8).map(|x| (x, -1))),
        side(&mut (0..8).map(|x| (x, 8))),
        side(&mut (0..8).map(|y| (-1, y))),
        side(&mut (0..8).map(|y| (8, y))),
    ]
    .into_iter()
    .map(|v| v.max(0.0))
    .sum()
}

/// How clearly a line of squares (window coordinates; `value(x, y)` the square's value, NaN for
/// unknown) alternates in step with the checker of midpoint `mid` and half contrast `half`
/// ([`checker_levels`]): the mean [`in_step`] of its known squares, `None` when fewer than 4 are
/// known.
fn line_in_step(
    squares: &mut dyn Iterator<Item = (i32, i32)>,
    value: &dyn Fn(i32, i32) -> f64,
    mid: f64,
    half: f64,
) -> Option<f64> {
    let (mut sum, mut known) = (0.0, 0);
    for (x, y) in squares {
        let v = value(x, y);
        if !v.is_nan() {
            sum += in_step(v, mid, half, (x + y).rem_euclid(2) == 0);
            known += 1;
        }
    }
    (known >= 4).then(|| sum / known as f64)
}

/// The steepest gradient [`without_gradient`] removes, per square, as a share of the checker's
/// half-contrast.
pub(super) const MAX_GRADIENT: f64 = 0.15;

/// 64 square values (a8 to h1 order; NaN for unknown) less the linear gradient across the
/// board that a least-squares fit of level, gradient and checker finds: the uneven light of a
/// photo (vignetting, a lamp to one side) can make the light squares on one side darker than
/// the dark squares on the other.
pub(super) fn without_gradient(values: &[f64]) -> Vec<f64> {
    // Least squares for v = a + b x + c y + d s (x, y centred; s = +1 light, -1 dark); a singular
    // system leaves the values as they are.
    let rows = values.iter().enumerate().filter(|(_, v)| !v.is_nan()).map(|(i, &v)| {
        let (x, y) = ((i % 8) as f64 - 3.5, (i / 8) as f64 - 3.5);
        let s = if (i / 8 + i % 8) % 2 == 0 { 1.0 } else { -1.0 };
        ([1.0, x, y, s], v)
    });
    let Some([_, gx, gy, d]) = crate::geometry::least_squares(rows) else {
        return values.to_vec();
    };
    // A gradient steeper than MAX_GRADIENT of the checker's half-contrast a square is not light
    // but the edge of the board: a window shifted onto a margin must not be levelled.
    let limit = MAX_GRADIENT * d.abs();
    let (b, c) = (gx.clamp(-limit, limit), gy.clamp(-limit, limit));
    values.iter().enumerate().map(|(i, &v)| v - b * ((i % 8) as f64 - 3.5) - c * ((i / 8) as f64 - 3.5)).collect()
}

/// How a found board's checker stands as a whole: the weakest of its 16 lines (8 ranks and 8
/// files, each the mean of its squares' [`in_step`]), and for each side (top, bottom, left,
/// right) how clearly the checker goes on in the row of squares just beyond it (as
/// [`checkered_beyond`] measures one side; NaN where fewer than 4 of those squares are in the
/// picture). A chess board alternates in every line and ends one square beyond its 7x7 inner
/// corners on every side; an 8x8 window of a larger grid goes on beyond, and a window over a
/// smaller one has lines of background.
pub(super) struct Wholeness {
    /// The weakest rank or file, from -1 to 1.
    pub(super) weakest_line: f64,
    /// The checker beyond each side: top, bottom, left, right.
    pub(super) beyond: [f64; 4],
    /// How well each edge line (top rank, bottom rank, left file, right file) alternates: about
    /// the checker's midpoint, or against its own neighbours ([`alternation_along`]) where that
    /// is clearer (an edge in deep shadow).
    pub(super) edge_line: [f64; 4],
    /// How different each edge line is from the row just beyond it: the mean absolute difference
    /// of their squares, in units of the checker's contrast (NaN where unknown). A window laid
    /// over a grid smaller than 8x8 has edge lines of background, like what lies beyond them.
    pub(super) edge_vs_beyond: [f64; 4],
}

/// [`Wholeness`] of the board at `quad`, measured on its own grey levels (a gradient across the
/// board taken out); `None` when its two colours do not differ.
pub(super) fn wholeness(img: &GrayImage, quad: &Quad) -> Option<Wholeness> {
    let h = quad.board_to_image();
    let to_image = |x: f64, y: f64| h.apply(Point::new(x, y));
    let values: Vec<f64> = (0..64).map(|i| square_value(img, to_image, (i % 8) as f64, (i / 8) as f64)).collect();
    let values = without_gradient(&values);
    let (mid, half) = checker_levels(&values)?;
    let line = |squares: &mut dyn Iterator<Item = (i32, i32)>, value: &dyn Fn(i32, i32) -> f64| {
        line_in_step(squares, value, mid, half).unwrap_or(f64::NAN)
    };
    let inside = |x: i32, y: i32| values[(y * 8 + x) as usize];
    let ranks: [f64; 8] = std::array::from_fn(|y| line(&mut (0..8).map(|x| (x, y as i32)), &inside));
    let files: [f64; 8] = std::array::from_fn(|x| line(&mut (0..8).map(|y| (x as i32, y)), &inside));
    let weakest_line = ranks.iter().chain(&files).filter(|v| !v.is_nan()).fold(1.0, |m, &v| f64::min(m, v));
    // Side by side, along each side (top, bottom, left, right): the square on the board's edge
    // and the square just beyond it, in window coordinates; the squares beyond sampled once.
    let at = |side: usize, k: i32| -> ((i32, i32), (i32, i32)) {
        match side {
            0 => ((k, 0), (k, -1)),
            1 => ((k, 7), (k, 8)),
            2 => ((0, k), (-1, k)),
            _ => ((7, k), (8, k)),
        }
    };
    // Light that falls off steeply towards one side (more than `without_gradient` levels) can
    // sink a whole edge line below the midpoint; it still alternates against its own neighbours.
    // (`max` takes the local measure where the line about the midpoint is unknown, NaN.)
    let global = [ranks[0], ranks[7], files[0], files[7]];
    let edge_line: [f64; 4] = std::array::from_fn(|side| {
        let edge: [f64; 8] = std::array::from_fn(|k| {
            let ((x, y), _) = at(side, k as i32);
            inside(x, y)
        });
        let ((x0, y0), _) = at(side, 0);
        global[side].max(alternation_along(&edge, half, (x0 + y0) % 2 == 0))
    });
    let outside: [[f64; 8]; 4] = std::array::from_fn(|side| {
        std::array::from_fn(|k| {
            let (_, (x, y)) = at(side, k as i32);
            square_value(img, to_image, x as f64, y as f64)
        })
    });
    let beyond: [f64; 4] = std::array::from_fn(|side| {
        let row = |x: i32, y: i32| outside[side][if side < 2 { x } else { y } as usize];
        line(&mut (0..8).map(|k| at(side, k).1), &row)
    });
    let edge_vs_beyond: [f64; 4] = std::array::from_fn(|side| {
        let diffs: Vec<f64> = (0..8)
            .map(|k| {
                let ((ex, ey), _) = at(side, k);
                (inside(ex, ey) - outside[side][k as usize]).abs()
            })
            .filter(|d| !d.is_nan())
            .collect();
        if diffs.len() >= 4 {
            diffs.iter().sum::<f64>() / diffs.len() as f64 / (2.0 * half.abs())
        } else {
            f64::NAN
        }
    });
    Some(Wholeness { weakest_line, beyond, edge_line, edge_vs_beyond })
}
