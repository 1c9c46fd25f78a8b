//! Small plane-geometry helpers shared by the pipeline steps: points, board quadrilaterals and
//! homographies.

/// A point in image pixels; `(0, 0)` is the top-left corner of the top-left pixel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Pixels to the right.
    pub x: f64,
    /// Pixels down.
    pub y: f64,
}

impl Point {
    /// The point at `(x, y)`.
    pub const fn new(x: f64, y: f64) -> Self {
        Point { x, y }
    }

    /// The distance to `other`.
    pub fn dist(self, other: Point) -> f64 {
        ((self.x - other.x).powi(2) + (self.y - other.y).powi(2)).sqrt()
    }
}

/// The four corners of a board as displayed in the image: top-left, top-right, bottom-right,
/// bottom-left (clockwise, starting at the top-left square's outer corner).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quad(pub [Point; 4]);

impl Quad {
    /// An axis-aligned square or rectangle.
    pub fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Self {
        Quad([Point::new(x0, y0), Point::new(x1, y0), Point::new(x1, y1), Point::new(x0, y1)])
    }

    /// Mean side length in pixels.
    /// The mean of the four corners.
    pub fn centre(&self) -> Point {
        let p = &self.0;
        Point::new((p[0].x + p[1].x + p[2].x + p[3].x) / 4.0, (p[0].y + p[1].y + p[2].y + p[3].y) / 4.0)
    }

    /// Whether `p` lies inside the (convex) quad or on its border.
    pub fn contains(&self, p: Point) -> bool {
        let v = &self.0;
        let mut sign = 0.0f64;
        for i in 0..4 {
            let (a, b) = (v[i], v[(i + 1) % 4]);
            let cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
            if cross != 0.0 {
                if sign != 0.0 && cross.signum() != sign {
                    return false;
                }
                sign = cross.signum();
            }
        }
        true
    }

    /// The largest angle, in radians, between a side and the horizontal or vertical it runs
    /// along.
    pub fn tilt(&self) -> f64 {
        let p = &self.0;
        (0..4)
            .map(|i| {
                let (a, b) = (p[i], p[(i + 1) % 4]);
                let (dx, dy) = ((b.x - a.x).abs(), (b.y - a.y).abs());
                dy.atan2(dx).min(dx.atan2(dy))
            })
            .fold(0.0, f64::max)
    }

    /// The quad with each corner moved by up to `jitter` squares (an eighth of
    /// [`Quad::mean_side`]) in x and y, the same for the same `seed`: the corner noise training
    /// cuts and a learned set's extra cuts are made with.
    pub fn jittered(&self, jitter: f64, seed: u64) -> Quad {
        let mut rng = SplitMix64(seed);
        let sq = self.mean_side() / 8.0;
        Quad(self.0.map(|p| Point::new(p.x + rng.symmetric() * jitter * sq, p.y + rng.symmetric() * jitter * sq)))
    }

    /// The mean length of the four sides.
    pub fn mean_side(&self) -> f64 {
        let p = &self.0;
        (p[0].dist(p[1]) + p[1].dist(p[2]) + p[2].dist(p[3]) + p[3].dist(p[0])) / 4.0
    }

    /// The homography that maps board coordinates (`0..=8` on both axes, x to the right, y down,
    /// in squares) to image pixels.
    pub fn board_to_image(&self) -> Homography {
        let src = [Point::new(0.0, 0.0), Point::new(8.0, 0.0), Point::new(8.0, 8.0), Point::new(0.0, 8.0)];
        Homography::fit(&src, &self.0).expect("a board quadrilateral is never degenerate")
    }

    /// Scales every coordinate by `f` (to move between pyramid levels).
    pub fn scaled(&self, f: f64) -> Quad {
        Quad(self.0.map(|p| Point::new(p.x * f, p.y * f)))
    }

    /// Moves every corner by `(dx, dy)`.
    pub fn translated(&self, dx: f64, dy: f64) -> Quad {
        Quad(self.0.map(|p| Point::new(p.x + dx, p.y + dy)))
    }

    /// Bounding box `(x0, y0, x1, y1)`.
    pub fn bounds(&self) -> (f64, f64, f64, f64) {
        let xs = self.0.map(|p| p.x);
        let ys = self.0.map(|p| p.y);
        let min = |v: [f64; 4]| v.iter().copied().fold(f64::INFINITY, f64::min);
        let max = |v: [f64; 4]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (min(xs), min(ys), max(xs), max(ys))
    }
}

/// A plane projective transform, row-major 3x3 with `h[8] == 1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Homography(pub [f64; 9]);

impl Homography {
    /// Least-squares fit (direct linear transform with `h33 = 1`) of the homography taking each
    /// `src[i]` to `dst[i]`. Needs at least 4 point pairs in general position; with exactly 4 it
    /// is exact. Returns `None` for degenerate input.
    pub fn fit(src: &[Point], dst: &[Point]) -> Option<Homography> {
        assert_eq!(src.len(), dst.len());
        if src.len() < 4 {
            return None;
        }
        // Normalise both point sets (Hartley) for numerical stability.
        let (ts, src_n) = normalise(src);
        let (td, dst_n) = normalise(dst);
        let rows = src_n.iter().zip(&dst_n).flat_map(|(s, d)| {
            [
                ([s.x, s.y, 1.0, 0.0, 0.0, 0.0, -s.x * d.x, -s.y * d.x], d.x),
                ([0.0, 0.0, 0.0, s.x, s.y, 1.0, -s.x * d.y, -s.y * d.y], d.y),
            ]
        });
        let h = least_squares(rows)?;
        let hn = Homography([h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], 1.0]);
        // H = Td^-1 * Hn * Ts
        let full = td.inverse()?.compose(&hn).compose(&ts);
        full.normalised()
    }

    /// Maps `p`.
    pub fn apply(&self, p: Point) -> Point {
        let h = &self.0;
        let w = h[6] * p.x + h[7] * p.y + h[8];
        Point::new((h[0] * p.x + h[1] * p.y + h[2]) / w, (h[3] * p.x + h[4] * p.y + h[5]) / w)
    }

    /// `self ∘ other`: apply `other` first, then `self`.
    pub fn compose(&self, other: &Homography) -> Homography {
        let a = &self.0;
        let b = &other.0;
        let mut m = [0.0; 9];
        for r in 0..3 {
            for c in 0..3 {
                m[r * 3 + c] = (0..3).map(|k| a[r * 3 + k] * b[k * 3 + c]).sum();
            }
        }
        Homography(m)
    }

    /// The inverse mapping, or `None` when the matrix is singular.
    pub fn inverse(&self) -> Option<Homography> {
        let m = &self.0;
        let det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6])
            + m[2] * (m[3] * m[7] - m[4] * m[6]);
        if det.abs() < 1e-12 {
            return None;
        }
        let inv = [
            (m[4] * m[8] - m[5] * m[7]) / det,
            (m[2] * m[7] - m[1] * m[8]) / det,
            (m[1] * m[5] - m[2] * m[4]) / det,
            (m[5] * m[6] - m[3] * m[8]) / det,
            (m[0] * m[8] - m[2] * m[6]) / det,
            (m[2] * m[3] - m[0] * m[5]) / det,
            (m[3] * m[7] - m[4] * m[6]) / det,
            (m[1] * m[6] - m[0] * m[7]) / det,
            (m[0] * m[4] - m[1] * m[3]) / det,
        ];
        Homography(inv).normalised()
    }

    fn normalised(self) -> Option<Homography> {
        let s = self.0[8];
        if s.abs() < 1e-12 || self.0.iter().any(|v| !v.is_finite()) {
            return None;
        }
        Some(Homography(self.0.map(|v| v / s)))
    }
}

/// Translates the centroid to the origin and scales the mean distance to sqrt(2).
fn normalise(pts: &[Point]) -> (Homography, Vec<Point>) {
    let n = pts.len() as f64;
    let cx = pts.iter().map(|p| p.x).sum::<f64>() / n;
    let cy = pts.iter().map(|p| p.y).sum::<f64>() / n;
    let md = pts.iter().map(|p| (p.x - cx).hypot(p.y - cy)).sum::<f64>() / n;
    let s = if md > 1e-12 { std::f64::consts::SQRT_2 / md } else { 1.0 };
    let t = Homography([s, 0.0, -s * cx, 0.0, s, -s * cy, 0.0, 0.0, 1.0]);
    let out = pts.iter().map(|&p| t.apply(p)).collect();
    (t, out)
}

/// The least-squares solution `x` of the rows `(f, z)`, minimising the sum of `(f · x - z)²`,
/// through the normal equations; `None` when the rows do not determine it.
pub(crate) fn least_squares<const N: usize>(rows: impl IntoIterator<Item = ([f64; N], f64)>) -> Option<[f64; N]> {
    let mut ata = [[0.0f64; N]; N];
    let mut atb = [0.0f64; N];
    for (f, z) in rows {
        for i in 0..N {
            atb[i] += f[i] * z;
            for j in 0..N {
                ata[i][j] += f[i] * f[j];
            }
        }
    }
    solve(ata, atb)
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting; `None` when `a` is singular.
pub(crate) fn solve<const N: usize>(mut a: [[f64; N]; N], mut b: [f64; N]) -> Option<[f64; N]> {
    for col in 0..N {
        let piv = (col..N).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[piv][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, piv);
        b.swap(col, piv);
        for row in col + 1..N {
            let f = a[row][col] / a[col][col];
            let pivot_row = a[col];
            for (x, p) in a[row].iter_mut().zip(pivot_row).skip(col) {
                *x -= f * p;
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = [0.0; N];
    for row in (0..N).rev() {
        let s: f64 = (row + 1..N).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - s) / a[row][row];
    }
    Some(x)
}

/// SplitMix64: a tiny, well-mixed generator, so that jittered cuts are reproducible from a seed.
pub(crate) struct SplitMix64(pub(crate) u64);

impl SplitMix64 {
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[-1, 1)`.
    pub(crate) fn symmetric(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tilt_is_the_largest_lean_of_a_side() {
        assert_eq!(Quad::rect(10.0, 20.0, 110.0, 120.0).tilt(), 0.0);
        let (c, s) = (5f64.to_radians().cos(), 5f64.to_radians().sin());
        let turned = Quad::rect(-1.0, -1.0, 1.0, 1.0)
            .0
            .map(|p| Point::new(100.0 * (p.x * c - p.y * s), 100.0 * (p.x * s + p.y * c)));
        assert!((Quad(turned).tilt().to_degrees() - 5.0).abs() < 1e-9);
    }

    #[test]
    fn four_point_fit_is_exact_and_inverts() {
        let src = [Point::new(0.0, 0.0), Point::new(8.0, 0.0), Point::new(8.0, 8.0), Point::new(0.0, 8.0)];
        let dst = [Point::new(10.0, 20.0), Point::new(300.0, 35.0), Point::new(280.0, 330.0), Point::new(5.0, 300.0)];
        let h = Homography::fit(&src, &dst).unwrap();
        for (s, d) in src.iter().zip(&dst) {
            assert!(h.apply(*s).dist(*d) < 1e-6);
        }
        let inv = h.inverse().unwrap();
        let p = Point::new(3.3, 4.7);
        assert!(inv.apply(h.apply(p)).dist(p) < 1e-6);
    }

    #[test]
    fn least_squares_fit_recovers_a_grid() {
        let truth = Homography([30.0, 2.0, 100.0, -1.0, 29.0, 50.0, 0.0005, 0.0002, 1.0]);
        let mut src = vec![];
        let mut dst = vec![];
        for i in 1..8 {
            for j in 1..8 {
                let p = Point::new(i as f64, j as f64);
                src.push(p);
                dst.push(truth.apply(p));
            }
        }
        let h = Homography::fit(&src, &dst).unwrap();
        let q = Point::new(8.0, 0.0);
        assert!(h.apply(q).dist(truth.apply(q)) < 1e-6);
    }
}
