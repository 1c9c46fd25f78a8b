//! Frames at an angle: a page photographed or scanned turned, traced as ink outlines.

use super::*;

/// Boards inside a frame at any angle: a page photographed or scanned a little turned, whose
/// frame lines are not the upright ones [`framed_boards`] finds. Ink (darker than the mean of
/// its neighbourhood by `margin`) is found on `small`, the image reduced `k` times (each
/// block's darkest pixel, or on a halftone page its mean); the outer border of each ink region
/// that a polygon of four corners fits is a candidate frame.
/// Its board is refined at full resolution from the frame's outline (the frame is thin against
/// a square), or kept as the outline when the squares alternate clearly inside it.
///
/// Frames at the place of a board in `known` give a board only where that board sticks out of
/// the frame ([`sticks_out`]) and the frame's board is refined from its corners: the caller
/// replaces the board found with it.
pub(super) fn tilted_frames(level: &Level, margin: u32, opts: &LocateOptions, known: &[Quad]) -> Vec<Located> {
    let (img, small, k) = (level.full, level.small(), level.k);
    use imageproc::contours::{find_contours_with_threshold, BorderType};
    let (w, h) = (small.width() as usize, small.height() as usize);
    if w < 16 || h < 16 {
        return Vec::new();
    }
    let ink = ink_mask(small, margin);
    let min_side = MIN_BOARD_PX / k as f64;
    // A reduced pixel's centre at full resolution.
    let to_full =
        |p: &imageproc::point::Point<i32>| Point::new((p.x as f64 + 0.5) * k as f64, (p.y as f64 + 0.5) * k as f64);
    let mut out: Vec<Located> = Vec::new();
    for c in find_contours_with_threshold::<i32>(&ink, 0) {
        if c.border_type != BorderType::Outer || (c.points.len() as f64) < 3.0 * min_side {
            continue;
        }
        let Some(polys) = frame_corners(&c.points) else { continue };
        let border: Vec<Point> = c.points.iter().map(to_full).collect();
        for poly in polys {
            let pts: Vec<Point> = poly.iter().map(to_full).collect();
            let Some(rough) = upright_order(&pts) else { continue };
            // A board found at the frame's place already is the frame's board, unless it
            // sticks out of the frame: then the lattice placed it a rank or a file off, and the
            // frame's board replaces it (see locate_all).
            if known.iter().any(|b| same_place(b, &rough) && !sticks_out(b, &rough))
                || out.iter().any(|o| same_place(&o.quad, &rough))
            {
                break;
            }
            // In place of a board found already (which says there is a board here), a frame's
            // board needs to alternate only as clearly as a faint board told by its edges.
            let replacing = known.iter().any(|b| same_place(b, &rough));
            let min_contrast = if replacing { MIN_BOUNDED_CONTRAST } else { TILTED_FRAME_CONTRAST };
            if let Some(board) = board_in_outline(img, &rough, &border, k, min_contrast, opts) {
                // There, only a board refined from its corners, which the board found sticks
                // out of.
                let replaces = known.iter().filter(|b| same_place(b, &board.quad)).collect::<Vec<_>>();
                if replaces.is_empty()
                    || (board.corners_found > 0 && replaces.iter().all(|b| sticks_out(b, &board.quad)))
                {
                    out.push(board);
                }
                break;
            }
        }
    }
    out
}

/// Ink on `small`: pixels darker than the mean of the 13x13 pixels around them by `margin`, in
/// integers (255 ink, 0 not).
fn ink_mask(small: &GrayImage, margin: u32) -> GrayImage {
    let (w, h) = (small.width() as usize, small.height() as usize);
    let px = small.as_raw();
    let integral = Integral::new(px, w, h);
    let r = 6usize;
    let mut ink = vec![0u8; w * h];
    let stride = w + 1;
    for (y, (ink_row, px_row)) in ink.chunks_exact_mut(w).zip(px.chunks_exact(w)).enumerate() {
        let (y0, y1) = (y.saturating_sub(r), (y + r + 1).min(h));
        let (top, bottom) = (&integral.data[y0 * stride..][..stride], &integral.data[y1 * stride..][..stride]);
        for (x, (i, &g)) in ink_row.iter_mut().zip(px_row).enumerate() {
            let (x0, x1) = (x.saturating_sub(r), (x + r + 1).min(w));
            let area = ((x1 - x0) * (y1 - y0)) as u32;
            let sum = bottom[x1] + top[x0] - top[x1] - bottom[x0];
            if (g as u32 + margin) * area < sum {
                *i = 255;
            }
        }
    }
    GrayImage::from_raw(w as u32, h as u32, ink).expect("w * h pixels")
}

/// The ways to take the corners of an ink region's outer border `points` as a frame's, in the
/// order to try them; `None` when no polygon of four corners fits it.
fn frame_corners(points: &[imageproc::point::Point<i32>]) -> Option<Vec<Vec<imageproc::point::Point<i32>>>> {
    use imageproc::geometry::{approximate_polygon_dp, arc_length, convex_hull};
    let length = arc_length(points, true);
    let poly = approximate_polygon_dp(points, 0.02 * length, true);
    if poly.len() == 4 {
        return Some(vec![poly]);
    }
    // A frame line broken by blur, or met from inside by pieces standing at the edge, is traced
    // around its ends and round the pieces: its convex hull is still the frame. Its corners are
    // tried first as the hull's points furthest along the diagonals (a frame leans far less
    // than 45 degrees), then as its simplification's (which may stop a few points short of a
    // corner, or take the right one where something beyond the frame touches it). A turned
    // frame's hull can keep a fifth point in its simplification, where a side steps by a
    // reduced pixel: then only the diagonals' corners are tried.
    let hull = convex_hull(points.to_vec());
    let poly = approximate_polygon_dp(&hull, 0.02 * arc_length(&hull, true), true);
    if !(4..=5).contains(&poly.len()) {
        return None;
    }
    let extreme = |key: fn(&imageproc::point::Point<i32>) -> i32| *hull.iter().max_by_key(|p| key(p)).expect("a hull");
    let corners = vec![extreme(|p| -p.x - p.y), extreme(|p| p.x - p.y), extreme(|p| p.x + p.y), extreme(|p| p.y - p.x)];
    Some(if poly.len() == 4 { vec![corners, poly] } else { vec![corners] })
}

/// Whether a board found at `quad` reaches out of the frame outline `frame` by more than half
/// a square: one of its corners lies outside the outline grown by half a square on each side.
pub(super) fn sticks_out(quad: &Quad, frame: &Quad) -> bool {
    let c = frame.centre();
    let grown = Quad(frame.0.map(|p| Point::new(c.x + (p.x - c.x) * 9.0 / 8.0, c.y + (p.y - c.y) * 9.0 / 8.0)));
    quad.0.iter().any(|&p| !grown.contains(p))
}

/// The board inside a frame whose outer border, traced on the image reduced `k` times, is
/// `border` (in full-resolution pixels), with `rough` its four corners ([`tilted_frames`]):
/// the sides refitted, moved in to the frame line's inner edge, checked by how clearly the
/// squares alternate, and refined from the corners where they can be.
pub(super) fn board_in_outline(
    img: &GrayImage,
    rough: &Quad,
    border: &[Point],
    k: usize,
    min_contrast: f64,
    opts: &LocateOptions,
) -> Option<Located> {
    let Some(outline) = fit_sides(rough, border, k as f64) else {
        trace!(" tilted outline {:?}: its sides do not fit", rough);
        return None;
    };
    let Some(quad) = inside_frame(img, &outline, k) else {
        trace!(" tilted outline {:?}: no inner edge", rough);
        return None;
    };
    if quad.mean_side() < MIN_BOARD_PX || !plausible(&quad, img.width() as f64, img.height() as f64) {
        return None;
    }
    let contrast = board_contrast(img, &quad);
    trace!(" tilted frame {:?} contrast {contrast:.3}", quad);
    if contrast < min_contrast {
        return None;
    }
    // Corner (1, 1) is positive when the top-left square is the lighter.
    let grid = quad.board_to_image();
    let at = |x: f64, y: f64| grid.apply(Point::new(x, y));
    let positive11 = square_value(img, at, 0.0, 0.0) > square_value(img, at, 1.0, 0.0);
    let refined = refine_window(img, &grid, positive11, opts)
        .map(|(l, _)| l)
        .filter(|l| l.quad.0.iter().zip(&quad.0).all(|(a, b)| a.dist(*b) < 0.3 * quad.mean_side() / 8.0));
    trace!("  refined {:?}", refined.as_ref().map(|l| l.corners_found));
    refined.or(Some(Located { quad, corners_found: 0, rms_error: 0.0 }))
}

/// How clearly the squares inside a turned frame must alternate for a board
/// ([`board_in_outline`]; [`board_contrast`]). Lower than a lattice's windows need: the frame
/// already says where the board is, and a small diagram on a defocused photo alternates at
/// 0.55-0.8, while the outlines of photos, tables and text blocks traced as frames on the
/// rendered scenes and the pictures without a board stay under 0.14. In place of a board
/// found already, [`MIN_BOUNDED_CONTRAST`] (scenes 00194: a light hatch, its middle ranks
/// empty, alternates at 0.49 inside its frame, and the lattice had placed it a rank low).
pub(super) const TILTED_FRAME_CONTRAST: f64 = 0.5;

/// The quadrilateral whose sides are lines fitted (total least squares) to the border points
/// near each side of `rough`, away from its corners: a polygon's vertices are border points and
/// cut the corners of a frame traced on a reduced image.
pub(super) fn fit_sides(rough: &Quad, border: &[Point], k: f64) -> Option<Quad> {
    let v = &rough.0;
    let mut lines = Vec::with_capacity(4);
    for i in 0..4 {
        let (a, b) = (v[i], v[(i + 1) % 4]);
        let len = a.dist(b);
        let (dx, dy) = ((b.x - a.x) / len, (b.y - a.y) / len);
        let near: Vec<Point> = border
            .iter()
            .copied()
            .filter(|p| {
                let t = ((p.x - a.x) * dx + (p.y - a.y) * dy) / len;
                let d = ((p.x - a.x) * dy - (p.y - a.y) * dx).abs();
                (0.1..=0.9).contains(&t) && d <= 2.0 * k
            })
            .collect();
        if near.len() < 8 {
            return None;
        }
        let n = near.len() as f64;
        let (mx, my) = (near.iter().map(|p| p.x).sum::<f64>() / n, near.iter().map(|p| p.y).sum::<f64>() / n);
        let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
        for p in &near {
            sxx += (p.x - mx) * (p.x - mx);
            sxy += (p.x - mx) * (p.y - my);
            syy += (p.y - my) * (p.y - my);
        }
        // The principal direction, kept pointing from a to b.
        let angle = 0.5 * (2.0 * sxy).atan2(sxx - syy);
        let (mut ex, mut ey) = (angle.cos(), angle.sin());
        if ex * dx + ey * dy < 0.0 {
            (ex, ey) = (-ex, -ey);
        }
        lines.push((Point::new(mx, my), (ex, ey)));
    }
    quad_of_sides(&lines)
}

/// The quadrilateral of four sides, each a point and a direction, in board order: corner i is
/// where side i-1 (ending there) meets side i (starting there).
pub(super) fn quad_of_sides(sides: &[(Point, (f64, f64))]) -> Option<Quad> {
    let c: Vec<Point> = (0..4).map(|i| meet(sides[(i + 3) % 4], sides[i])).collect::<Option<_>>()?;
    Some(Quad([c[0], c[1], c[2], c[3]]))
}

/// Where two lines, each a point and a direction, meet.
pub(super) fn meet((p, d): (Point, (f64, f64)), (q, e): (Point, (f64, f64))) -> Option<Point> {
    let den = d.0 * e.1 - d.1 * e.0;
    if den.abs() < 1e-9 {
        return None;
    }
    let t = ((q.x - p.x) * e.1 - (q.y - p.y) * e.0) / den;
    Some(Point::new(p.x + t * d.0, p.y + t * d.1))
}

/// The board inside a frame whose outer outline is `outline`: each side moved in to the frame
/// line's inner edge, found on a grey profile across the line averaged along the side's middle
/// half ([`inner_edge`]), and the corners put where the moved sides meet.
pub(super) fn inside_frame(img: &GrayImage, outline: &Quad, k: usize) -> Option<Quad> {
    let v = &outline.0;
    // The outline was traced on the reduced image: its sides lie within a reduced pixel or two
    // of the frame line's outer edge.
    let before = 2.0 * k as f64 + 2.0;
    let reach = (outline.mean_side() / 8.0 * 0.35).max(4.0) + before;
    // Bilinear, with pixel centres at half-integers.
    let sample = |p: Point| -> Option<f64> {
        let (x, y) = (p.x - 0.5, p.y - 0.5);
        if x < 0.0 || y < 0.0 || x + 1.0 >= img.width() as f64 || y + 1.0 >= img.height() as f64 {
            return None;
        }
        let (x0, y0) = (x.floor(), y.floor());
        let (fx, fy) = (x - x0, y - y0);
        let g = |dx: u32, dy: u32| img.get_pixel(x0 as u32 + dx, y0 as u32 + dy)[0] as f64;
        Some((g(0, 0) * (1.0 - fx) + g(1, 0) * fx) * (1.0 - fy) + (g(0, 1) * (1.0 - fx) + g(1, 1) * fx) * fy)
    };
    // Each side as a point and a direction, moved in.
    let mut lines = Vec::with_capacity(4);
    for i in 0..4 {
        let (a, b) = (v[i], v[(i + 1) % 4]);
        let len = a.dist(b);
        let (dx, dy) = ((b.x - a.x) / len, (b.y - a.y) / len);
        // Inward normal, for corners clockwise on screen (y down).
        let (nx, ny) = (-dy, dx);
        let steps = reach.ceil() as usize;
        let mut profile = vec![0.0; steps];
        let mut n = 0.0;
        for t in (0..=16).map(|s| 0.25 + 0.5 * s as f64 / 16.0) {
            let base = Point::new(a.x + (b.x - a.x) * t - before * nx, a.y + (b.y - a.y) * t - before * ny);
            let column: Option<Vec<f64>> =
                (0..steps).map(|s| sample(Point::new(base.x + s as f64 * nx, base.y + s as f64 * ny))).collect();
            if let Some(column) = column {
                profile.iter_mut().zip(&column).for_each(|(p, c)| *p += c);
                n += 1.0;
            }
        }
        if n < 8.0 {
            return None;
        }
        profile.iter_mut().for_each(|p| *p /= n);
        // To a fraction of a pixel: where the profile crosses the halfway level found with
        // the edge.
        let (i, mid) = inner_edge(&profile).or_else(|| first_dip_edge(&profile))?;
        let edge = if i > 0 && profile[i] > profile[i - 1] {
            i as f64 - 1.0 + (mid - profile[i - 1]) / (profile[i] - profile[i - 1])
        } else {
            i as f64
        };
        let inset = edge - before;
        lines.push((Point::new(a.x + inset * nx, a.y + inset * ny), (dx, dy)));
    }
    quad_of_sides(&lines)
}

/// The largest angle, in radians, by which a board's sides may lean for it to count as upright
/// (half a degree).
pub(super) const MAX_UPRIGHT_TILT: f64 = 0.5 * std::f64::consts::PI / 180.0;

/// How much darker than the mean of its neighbourhood a pixel must be to count as ink in
/// [`tilted_frames`], on the darkest-pixel reduction.
pub(super) const TILTED_INK_MARGIN: u32 = 24;

/// The same on a halftone page's block means, where a frame line of a pixel or two is averaged
/// with the paper of its block (and the dots average out). At 12 and more, the steps of a
/// turned line break its outline apart.
pub(super) const TILTED_MEAN_INK_MARGIN: u32 = 8;
