//! Cells for pieces standing on a physical board: a crop per square that reaches from the
//! square up along the camera's vertical to where a piece's head is.
//!
//! A flat cell of the warped board holds only a piece's base once the camera looks at the board
//! from an angle; the rest of the piece stands over the squares behind it. From the board's four
//! corners the camera is recovered (focal length and pose from the homography, the principal
//! point taken at the picture's centre), each square's centre is lifted by [`PIECE_HEIGHT`]
//! squares, and the crop is the rectangle, turned along the lifted line, that holds the square's
//! base and everything up to that height. Overhead, that is the square and a margin; at 45
//! degrees, about two squares tall. Training data is cut by this same function
//! (`img2fen dataset --tall`).

use std::borrow::Cow;

use image::GrayImage;
use ndarray::Array4;

use super::Stretch;
use crate::geometry::{Homography, Point, Quad};
use crate::imageops::{bilinear, box_downscale};

/// Width of a tall cell in pixels.
pub const TALL_W: u32 = 32;
/// Height of a tall cell in pixels (the piece's head at the top).
pub const TALL_H: u32 = 64;
/// How far above the board a tall cell reaches, in squares: a tall king of a club set stands
/// about 2.2 squares high; its head may be cut a little, its base never.
pub const PIECE_HEIGHT: f64 = 2.0;
/// Extra room around the square, in squares.
const MARGIN: f64 = 0.12;
/// Half the width of the room kept for a piece's head, in squares.
const HEAD: f64 = 0.45;

/// The camera that sees the board: board coordinates (`u`, `v` in squares as in
/// [`Quad::board_to_image`], `z` up from the board in squares) to image pixels.
#[derive(Debug, Clone, Copy)]
pub struct Camera {
    f: f64,
    c: Point,
    /// Columns of the rotation (board axes in camera coordinates) and the translation.
    r: [[f64; 3]; 3],
    t: [f64; 3],
}

impl Camera {
    /// Recovers the camera from the board's corners in a picture of `width` x `height` pixels.
    /// The focal length is the one that makes the board a square seen by a pinhole camera; when
    /// the view is too close to overhead to tell, a phone's (0.9 of the picture's long side).
    pub fn from_quad(quad: &Quad, width: u32, height: u32) -> Camera {
        let c = Point::new(width as f64 / 2.0, height as f64 / 2.0);
        let shift = Homography([1.0, 0.0, -c.x, 0.0, 1.0, -c.y, 0.0, 0.0, 1.0]);
        let h = shift.compose(&quad.board_to_image()).0;
        let col = |j: usize| [h[j], h[3 + j], h[6 + j]];
        let (h1, h2, h3) = (col(0), col(1), col(2));
        let long = width.max(height) as f64;
        let f = best_focal(h1, h2, long);
        let back = |v: [f64; 3]| [v[0] / f, v[1] / f, v[2]];
        let (mut r1, mut r2, mut t) = (back(h1), back(h2), back(h3));
        let mut s = 1.0 / norm(r1);
        if t[2] < 0.0 {
            s = -s; // the board lies in front of the camera
        }
        for v in [&mut r1, &mut r2, &mut t] {
            *v = v.map(|x| x * s);
        }
        let mut r3 = cross(r1, r2);
        let n3 = norm(r3);
        r3 = r3.map(|x| x / n3);
        // "Up" points from the board towards the camera, whose centre is -R^T t.
        if dot(r3, t) > 0.0 {
            r3 = r3.map(|x| -x);
        }
        Camera { f, c, r: [r1, r2, r3], t }
    }

    /// The focal length in pixels.
    pub fn focal(&self) -> f64 {
        self.f
    }

    /// The image point of board point `(u, v)` lifted by `z` squares.
    pub fn project(&self, u: f64, v: f64, z: f64) -> Point {
        let [r1, r2, r3] = self.r;
        let p: [f64; 3] = std::array::from_fn(|i| u * r1[i] + v * r2[i] + z * r3[i] + self.t[i]);
        let w = p[2].max(1e-9);
        Point::new(self.c.x + self.f * p[0] / w, self.c.y + self.f * p[1] / w)
    }

    /// The angle in degrees between the board's normal and the ray from the camera to the
    /// board's centre: 0 overhead.
    pub fn tilt_degrees(&self) -> f64 {
        let [r1, r2, r3] = self.r;
        let centre: [f64; 3] = std::array::from_fn(|i| 4.0 * r1[i] + 4.0 * r2[i] + self.t[i]);
        (-dot(centre, r3) / norm(centre)).clamp(-1.0, 1.0).acos().to_degrees()
    }
}

/// The focal length (pixels) under which the board's two axes come out perpendicular and of
/// equal length, searched on a log scale from 0.3 to 6 times the picture's long side, with a
/// weak pull towards 0.9 times it that decides when the view is nearly overhead.
fn best_focal(h1: [f64; 3], h2: [f64; 3], long: f64) -> f64 {
    let f0 = 0.9 * long;
    let cost = |f: f64| {
        let a = [h1[0] / f, h1[1] / f, h1[2]];
        let b = [h2[0] / f, h2[1] / f, h2[2]];
        let (na, nb) = (norm(a), norm(b));
        let ortho = dot(a, b) / (na * nb);
        let equal = (na - nb) / (na + nb);
        ortho * ortho + equal * equal + 2e-4 * (f / f0).ln().powi(2)
    };
    let steps = 240;
    (0..=steps)
        .map(|i| long * 0.3 * 20f64.powf(i as f64 / steps as f64))
        .min_by(|&a, &b| cost(a).total_cmp(&cost(b)))
        .expect("steps > 0")
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// Where one tall cell lies in the picture: its top-left output pixel's corner, and the picture
/// step of one output pixel across (to the right) and down.
#[derive(Debug, Clone, Copy)]
pub struct CellFrame {
    origin: Point,
    across: Point,
    down: Point,
}

impl CellFrame {
    /// The picture point of output position `(x, y)` (in output pixels, continuous).
    pub fn at(&self, x: f64, y: f64) -> Point {
        Point::new(
            self.origin.x + x * self.across.x + y * self.down.x,
            self.origin.y + x * self.across.y + y * self.down.y,
        )
    }
}

/// The frames of the 64 tall cells of the board inside `quad`, in display order (row by row
/// from the quad's first corner), reaching up to `piece_height` squares above the board
/// ([`PIECE_HEIGHT`] for the shipped model).
pub fn frames(camera: &Camera, quad_side: f64, piece_height: f64) -> Vec<CellFrame> {
    let sq = quad_side / 8.0;
    (0..64)
        .map(|i| {
            let (u, v) = ((i % 8) as f64, (i / 8) as f64);
            let base = camera.project(u + 0.5, v + 0.5, 0.0);
            let head = camera.project(u + 0.5, v + 0.5, piece_height);
            // Up the picture along the lifted line, pulled towards straight up by half a square,
            // so that a piece the camera looks straight down on is cut upright.
            let (mut ax, mut ay) = (head.x - base.x, head.y - base.y - 0.5 * sq);
            let n = ax.hypot(ay).max(1e-9);
            (ax, ay) = (ax / n, ay / n);
            let (nx, ny) = (-ay, ax);
            let (mut lo_a, mut hi_a, mut lo_n, mut hi_n) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
            // The square with a margin at the board, a piece's head (a disc of HEAD squares'
            // radius) at the piece's height.
            for (r, z) in [(0.5 + MARGIN, 0.0), (HEAD, piece_height)] {
                for (su, sv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                    let p = camera.project(u + 0.5 + su * r, v + 0.5 + sv * r, z);
                    let (dx, dy) = (p.x - base.x, p.y - base.y);
                    let (a, b) = (dx * ax + dy * ay, dx * nx + dy * ny);
                    (lo_a, hi_a, lo_n, hi_n) = (lo_a.min(a), hi_a.max(a), lo_n.min(b), hi_n.max(b));
                }
            }
            let (w, h) = (TALL_W as f64, TALL_H as f64);
            let across = Point::new(nx * (hi_n - lo_n) / w, ny * (hi_n - lo_n) / w);
            let down = Point::new(-ax * (hi_a - lo_a) / h, -ay * (hi_a - lo_a) / h);
            let origin = Point::new(base.x + ax * hi_a + nx * lo_n, base.y + ay * hi_a + ny * lo_n);
            CellFrame { origin, across, down }
        })
        .collect()
}

/// The 64 tall cells of the board inside `quad` (display order) as a `[64, 1, TALL_H, TALL_W]`
/// tensor of grey levels / 255, contrast-stretched over the whole board as the flat cells are.
pub fn tall_cells(img: &GrayImage, quad: &Quad) -> Array4<f32> {
    tall_cells_reaching(img, quad, PIECE_HEIGHT)
}

/// The cells of [`tall_cells`], reaching up to `piece_height` squares instead of
/// [`PIECE_HEIGHT`] (for measuring how the cut's height moves a model's readings).
pub fn tall_cells_reaching(img: &GrayImage, quad: &Quad, piece_height: f64) -> Array4<f32> {
    let bytes = tall_bytes_reaching(img, quad, piece_height);
    let data = bytes.iter().map(|&v| v as f32 / 255.0).collect();
    Array4::from_shape_vec((64, 1, TALL_H as usize, TALL_W as usize), data).expect("64 cells")
}

/// The cells of [`tall_cells`] as raw grey levels (`64 * TALL_H * TALL_W` bytes).
pub fn tall_bytes(img: &GrayImage, quad: &Quad) -> Vec<u8> {
    tall_bytes_reaching(img, quad, PIECE_HEIGHT)
}

/// The cells of [`tall_bytes`], reaching up to `piece_height` squares.
fn tall_bytes_reaching(img: &GrayImage, quad: &Quad, piece_height: f64) -> Vec<u8> {
    let camera = Camera::from_quad(quad, img.width(), img.height());
    // A large picture is box-filtered first, so that a cell samples it at about its own scale.
    let factor = (quad.mean_side() / 8.0 / TALL_W as f64 / 1.5).floor().max(1.0) as u32;
    let (src, scale) =
        if factor >= 2 { (Cow::Owned(box_downscale(img, factor)), factor as f64) } else { (Cow::Borrowed(img), 1.0) };
    let mut out = Vec::with_capacity((64 * TALL_W * TALL_H) as usize);
    for frame in frames(&camera, quad.mean_side(), piece_height) {
        for y in 0..TALL_H {
            for x in 0..TALL_W {
                let p = frame.at(x as f64 + 0.5, y as f64 + 0.5);
                out.push(bilinear(&src, p.x / scale, p.y / scale));
            }
        }
    }
    let stretch = Stretch::of_values(&out);
    stretch.apply(out.iter_mut());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pinhole camera's picture of the board: f = 800 px, 1000x800 picture, looking down at
    /// `tilt` degrees from vertical from White's side.
    fn seen_board(tilt: f64) -> (Quad, [f64; 3]) {
        let (f, cx, cy) = (800.0, 500.0, 400.0);
        let a = tilt.to_radians();
        // Camera frame: x right, y down the picture, z forward. Board: u right, v towards White.
        let r1 = [1.0, 0.0, 0.0];
        let r2 = [0.0, a.cos(), -a.sin()];
        let t = [-4.0, -4.0 * a.cos(), 14.0 + 4.0 * a.sin()];
        let proj = |u: f64, v: f64| {
            let p: [f64; 3] = std::array::from_fn(|i| u * r1[i] + v * r2[i] + t[i]);
            Point::new(cx + f * p[0] / p[2], cy + f * p[1] / p[2])
        };
        let quad = Quad([proj(0.0, 0.0), proj(8.0, 0.0), proj(8.0, 8.0), proj(0.0, 8.0)]);
        (quad, [f, cx, cy])
    }

    #[test]
    fn the_camera_is_recovered_from_the_corners() {
        for tilt in [25.0, 40.0, 55.0] {
            let (quad, [f, ..]) = seen_board(tilt);
            let cam = Camera::from_quad(&quad, 1000, 800);
            assert!((cam.focal() / f - 1.0).abs() < 0.03, "tilt {tilt}: focal {} not {f}", cam.focal());
            assert!((cam.tilt_degrees() - tilt).abs() < 2.5, "tilt {tilt}: got {}", cam.tilt_degrees());
            // The board's corners come back where they are.
            let back = cam.project(8.0, 8.0, 0.0);
            assert!(back.dist(quad.0[2]) < 0.5);
            // A lifted point moves up the picture, towards the far side.
            let (base, head) = (cam.project(4.5, 7.5, 0.0), cam.project(4.5, 7.5, 2.0));
            assert!(head.y < base.y - 20.0, "tilt {tilt}: head {head:?} base {base:?}");
        }
    }

    #[test]
    fn tall_cells_reach_up_by_the_tilt() {
        let overhead = {
            let q = Quad::rect(100.0, 100.0, 900.0, 900.0);
            let cam = Camera::from_quad(&q, 1000, 1000);
            let fr = frames(&cam, q.mean_side(), PIECE_HEIGHT);
            let f = fr[36]; // next to the centre: hardly any lean
            let h = f.at(0.0, 0.0).dist(f.at(0.0, TALL_H as f64));
            (h, cam.tilt_degrees())
        };
        assert!(overhead.1 < 1.0);
        // A square and its margins, and the head's room lifted a little by perspective: 1.24 to
        // 2 squares.
        assert!(overhead.0 > 124.0 && overhead.0 < 200.0, "overhead cell {} px tall", overhead.0);
        let (quad, _) = seen_board(45.0);
        let cam = Camera::from_quad(&quad, 1000, 800);
        let f = frames(&cam, quad.mean_side(), PIECE_HEIGHT)[60];
        let sq = quad.0[2].dist(quad.0[3]) / 8.0;
        let h = f.at(0.0, 0.0).dist(f.at(0.0, TALL_H as f64));
        // At 45 degrees: about the square's depth plus 2 x sin 45 squares of height.
        assert!(h > 1.6 * sq && h < 2.6 * sq, "cell {h} px for squares of {sq}");
        // Its bottom edge lies below the square's near edge, its top above the far one.
        let bottom = f.at(TALL_W as f64 / 2.0, TALL_H as f64);
        assert!(bottom.y > cam.project(4.5, 8.0, 0.0).y);
    }

    #[test]
    fn a_lower_piece_height_cuts_shorter_cells_from_the_same_base() {
        let (quad, _) = seen_board(45.0);
        let cam = Camera::from_quad(&quad, 1000, 800);
        let span = |height: f64| {
            let f = frames(&cam, quad.mean_side(), height)[60];
            (f.at(0.0, 0.0).dist(f.at(0.0, TALL_H as f64)), f.at(TALL_W as f64 / 2.0, TALL_H as f64))
        };
        let ((low, low_bottom), (high, high_bottom)) = (span(1.2), span(PIECE_HEIGHT));
        assert!(low < 0.85 * high, "1.2 squares: {low} px; {PIECE_HEIGHT}: {high} px");
        // Both stand on the square with its margin: the bottom edge moves by under a pixel.
        assert!(low_bottom.dist(high_bottom) < 1.0, "{low_bottom:?} against {high_bottom:?}");
    }
}
