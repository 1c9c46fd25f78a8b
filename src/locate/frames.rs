//! Boards inside upright ink frames (a faint hatch gives X-corners too weak to link) and
//! boards on a plain ground (textured squares), with the helpers that compare found boards.

use super::*;

/// Darker than this (grey level) is ink of a frame line.
pub(super) const FRAME_INK: u8 = 110;

/// A straight dark band in an image: `[a0, a1)` is its extent along the line, `[c0, c1]` the
/// rows (or columns) it covers across it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Band {
    pub(super) a0: usize,
    pub(super) a1: usize,
    pub(super) c0: usize,
    pub(super) c1: usize,
}

/// Gaps of up to this many pixels are bridged within an ink line (anti-aliasing, a hatch line
/// meeting the frame).
pub(super) const INK_GAP: usize = 3;

/// The ink lines of `img` at least `min_len` pixels long, horizontal ones and vertical ones:
/// runs of pixels darker than `ink` along rows (or columns) merged over neighbouring rows (columns)
/// whose runs start and end within 2 pixels of each other. A band thicker than a sixteenth of
/// its length is a filled area, not a line. Both in one row-major pass.
pub(super) fn ink_lines(img: &GrayImage, min_len: usize, ink: u8) -> (Vec<Band>, Vec<Band>) {
    let w = img.width() as usize;
    // Runs as (line, start, end): rows along x, columns along y.
    let (mut rows, mut cols) = (Vec::new(), Vec::new());
    let (mut col_start, mut col_last) = (vec![usize::MAX; w], vec![0usize; w]);
    for (y, row) in img.as_raw().chunks_exact(w.max(1)).enumerate() {
        let mut start = usize::MAX;
        let mut last = 0;
        for (x, &g) in row.iter().enumerate() {
            if g >= ink {
                continue;
            }
            if start == usize::MAX || x > last + INK_GAP {
                if start != usize::MAX && last + 1 - start >= min_len {
                    rows.push((y, start, last + 1));
                }
                start = x;
            }
            last = x;
            if col_start[x] == usize::MAX || y > col_last[x] + INK_GAP {
                if col_start[x] != usize::MAX && col_last[x] + 1 - col_start[x] >= min_len {
                    cols.push((x, col_start[x], col_last[x] + 1));
                }
                col_start[x] = y;
            }
            col_last[x] = y;
        }
        if start != usize::MAX && last + 1 - start >= min_len {
            rows.push((y, start, last + 1));
        }
    }
    for x in 0..w {
        if col_start[x] != usize::MAX && col_last[x] + 1 - col_start[x] >= min_len {
            cols.push((x, col_start[x], col_last[x] + 1));
        }
    }
    cols.sort_unstable();
    (bands(&rows), bands(&cols))
}

/// Merges runs `(line, start, end)`, sorted by line, into bands (see [`ink_lines`]).
pub(super) fn bands(runs: &[(usize, usize, usize)]) -> Vec<Band> {
    let (mut open, mut done): (Vec<Band>, Vec<Band>) = (Vec::new(), Vec::new());
    for &(line, a0, a1) in runs {
        let mut i = 0;
        while i < open.len() {
            if open[i].c1 + 1 < line {
                done.push(open.swap_remove(i));
            } else {
                i += 1;
            }
        }
        match open.iter_mut().find(|b| b.c1 + 1 == line && b.a0.abs_diff(a0) <= 2 && b.a1.abs_diff(a1) <= 2) {
            Some(b) => {
                b.c1 = line;
                b.a0 = b.a0.min(a0);
                b.a1 = b.a1.max(a1);
            }
            None => open.push(Band { a0, a1, c0: line, c1: line }),
        }
    }
    done.extend(open);
    done.retain(|b| b.c1 - b.c0 < ((b.a1 - b.a0) / 16).max(2));
    done
}

/// Along a profile of grey levels running from outside a frame line to inside the board: the
/// index of the first pixel inside, past the line's darkest pixel, lighter than halfway between
/// it and the lightest, with that halfway level.
pub(super) fn inner_edge(profile: &[f64]) -> Option<(usize, f64)> {
    let (dark_at, dark) = profile.iter().copied().enumerate().min_by(|a, b| a.1.total_cmp(&b.1))?;
    let light = profile.iter().copied().fold(f64::MIN, f64::max);
    if light - dark < 40.0 {
        return None;
    }
    let mid = (light + dark) / 2.0;
    (dark_at..profile.len()).find(|&i| profile[i] > mid).map(|i| (i, mid))
}

/// How much darker than the paper outside it and the squares inside it a blurred frame line
/// must be in [`first_dip_edge`] (grey levels).
pub(super) const MIN_BLURRED_LINE_DEPTH: f64 = 24.0;

/// Where [`inner_edge`] finds no edge along a turned frame's profile, the line blurred on a
/// photo (too faint for it, or with a piece standing by the edge inside that is darker than
/// the line): the line is the first dip of [`MIN_BLURRED_LINE_DEPTH`] below the lightest level
/// before it. Returns the index
/// of the first pixel past it lighter than halfway between its darkest pixel and the lightest
/// level inside, and that halfway level.
pub(super) fn first_dip_edge(profile: &[f64]) -> Option<(usize, f64)> {
    let mut lightest = f64::MIN;
    let mut dark_at = profile.iter().position(|&v| {
        lightest = lightest.max(v);
        v < lightest - MIN_BLURRED_LINE_DEPTH
    })?;
    while dark_at + 1 < profile.len() && profile[dark_at + 1] <= profile[dark_at] {
        dark_at += 1;
    }
    let dark = profile[dark_at];
    let light = profile[dark_at..].iter().copied().fold(f64::MIN, f64::max);
    if light - dark < MIN_BLURRED_LINE_DEPTH {
        return None;
    }
    let mid = (light + dark) / 2.0;
    (dark_at..profile.len()).find(|&i| profile[i] > mid).map(|i| (i, mid))
}

/// Boards drawn inside a square ink frame, as PDF viewers and books show diagrams (the fallback
/// of [`locate_all`] when no lattice made a board): found whatever the squares look like (a
/// faint hatch gives X-corners too weak to link), then checked by how clearly the 64 squares
/// inside alternate, in grey level as every board is, or in texture (a hatch that barely
/// darkens its squares).
///
/// Lines are found on `small`, the image reduced `k` times, as pixels darker than `ink`: each
/// block's darkest pixel ([`min_downscale`]), where a one-pixel frame line stays ink at any `k`
/// and `ink` is [`FRAME_INK`]; or block means on a halftone page ([`paper_ink`]). The four inner
/// edges of the frame are then placed at full resolution from grey profiles across each line,
/// averaged along its middle half. Only upright frames: a tilted photo's board is left to the
/// lattice.
pub(super) fn framed_boards(level: &Level, ink: u8) -> Vec<Located> {
    let (img, small, k) = (level.full, level.small(), level.k);
    let min_len = (MIN_BOARD_PX / k as f64).ceil() as usize;
    let (hs, vs) = ink_lines(small, min_len, ink);
    let (w, h) = (img.width() as usize, img.height() as usize);
    let mut out = Vec::new();
    for t in &hs {
        for b in hs.iter().filter(|b| b.c0 > t.c1 + min_len / 2) {
            let tol = 2 + (t.a1 - t.a0) / 40;
            let (width, height) = (t.a1 - t.a0, b.c1 + 1 - t.c0);
            if t.a0.abs_diff(b.a0) > tol || t.a1.abs_diff(b.a1) > tol || width.abs_diff(height) > width / 25 + tol {
                continue;
            }
            // The two sides: vertical lines at the ends of the top line, spanning top to bottom.
            let side = |x: usize| {
                vs.iter().find(|v| v.c0 <= x + tol && x <= v.c1 + tol && v.a0 <= t.c1 + tol && v.a1 + tol >= b.c0)
            };
            let (Some(l), Some(r)) = (side(t.a0), side(t.a1 - 1)) else { continue };
            // Inner edges at full resolution: profiles from the outer side of each line to
            // three reduced pixels inside it.
            let (x0, x1, y0, y1) = ((l.c1 + 1) * k, r.c0 * k, (t.c1 + 1) * k, b.c0 * k);
            if x1 <= x0 + 8 || y1 <= y0 + 8 {
                continue;
            }
            let (mx, my) = ((x1 - x0) / 4, (y1 - y0) / 4);
            let column = |x: usize| {
                (y0 + my..y1 - my).map(|y| img.get_pixel(x as u32, y as u32)[0] as f64).sum::<f64>()
                    / (y1 - y0 - 2 * my) as f64
            };
            let row = |y: usize| {
                (x0 + mx..x1 - mx).map(|x| img.get_pixel(x as u32, y as u32)[0] as f64).sum::<f64>()
                    / (x1 - x0 - 2 * mx) as f64
            };
            let reach = 3 * k;
            let (outer_right, outer_bottom) = (((r.c1 + 1) * k).min(w), ((b.c1 + 1) * k).min(h));
            let left = (l.c0 * k..(x0 + reach).min(w)).map(column).collect::<Vec<_>>();
            let right = (x1.saturating_sub(reach)..outer_right).rev().map(column).collect::<Vec<_>>();
            let top = (t.c0 * k..(y0 + reach).min(h)).map(row).collect::<Vec<_>>();
            let bottom = (y1.saturating_sub(reach)..outer_bottom).rev().map(row).collect::<Vec<_>>();
            let edge = |profile: &[f64]| inner_edge(profile).map(|(i, _)| i);
            let (Some(el), Some(er), Some(et), Some(eb)) = (edge(&left), edge(&right), edge(&top), edge(&bottom))
            else {
                continue;
            };
            let (bx0, bx1) = ((l.c0 * k + el) as f64, (outer_right - er) as f64);
            let (by0, by1) = ((t.c0 * k + et) as f64, (outer_bottom - eb) as f64);
            let quad = Quad::rect(bx0, by0, bx1, by1);
            if quad.mean_side() < MIN_BOARD_PX || !plausible(&quad, w as f64, h as f64) {
                continue;
            }
            let contrast = board_contrast(img, &quad);
            trace!(" frame {:?} contrast {contrast:.3}", quad);
            if contrast >= MIN_REFINED_CONTRAST && !out.iter().any(|o: &Located| o.quad.contains(quad.centre())) {
                out.push(Located { quad, corners_found: 0, rms_error: 0.0 });
            }
        }
    }
    out
}

/// Boards drawn on a plain ground (a screen's page of one colour) whose squares are textured
/// inside, which breaks their lattice (the fallback of [`locate_all`] when nothing else found a
/// board): upright square regions that differ from the ground, found on `small`, the image
/// reduced `k` times (block means). The ground is the commonest grey level, when it covers at
/// least [`PLAIN_GROUND_SHARE`] of the picture; a region is what differs from it by more than
/// [`PLAIN_GROUND_MARGIN`], and counts when its outer border runs along its bounding box (a
/// filled square, not a paragraph of text) and the 64 squares inside alternate clearly. Its
/// edges are then placed at full resolution.
pub(super) fn boards_on_plain_ground(level: &Level) -> Vec<Located> {
    let (img, small, k) = (level.full, level.small(), level.k);
    use imageproc::contours::{find_contours_with_threshold, BorderType};
    let px = small.as_raw();
    let mut bins = [0usize; 32];
    px.iter().for_each(|&g| bins[g as usize / 8] += 1);
    let (bin, &count) = bins.iter().enumerate().max_by_key(|(_, &c)| c).expect("32 bins");
    if (count as f64) < PLAIN_GROUND_SHARE * px.len() as f64 {
        return Vec::new();
    }
    let ground = px.iter().filter(|&&g| g as usize / 8 == bin).map(|&g| g as f64).sum::<f64>() / count as f64;
    let off = |g: u8| (g as f64 - ground).abs() > PLAIN_GROUND_MARGIN;
    let mask =
        GrayImage::from_raw(small.width(), small.height(), px.iter().map(|&g| if off(g) { 255 } else { 0 }).collect())
            .expect("same size");
    let min_side = (MIN_BOARD_PX / k as f64) as i32;
    let (w, h) = (img.width() as usize, img.height() as usize);
    let mut out: Vec<Located> = Vec::new();
    for c in find_contours_with_threshold::<i32>(&mask, 0) {
        if c.border_type != BorderType::Outer || (c.points.len() as i32) < 4 * min_side {
            continue;
        }
        let (x0, x1) = minmax(c.points.iter().map(|p| p.x));
        let (y0, y1) = minmax(c.points.iter().map(|p| p.y));
        let (bw, bh) = (x1 - x0 + 1, y1 - y0 + 1);
        if bw.min(bh) < min_side || (bw - bh).abs() > 2.max(bw / 25) {
            continue;
        }
        let along =
            c.points.iter().filter(|p| p.x <= x0 + 1 || p.x >= x1 - 1 || p.y <= y0 + 1 || p.y >= y1 - 1).count();
        if (along as f64) < 0.9 * c.points.len() as f64 {
            continue;
        }
        // Each edge at full resolution: across the reduced pixel on either side of it, the
        // first line (column or row, over the middle half of the side) off the ground.
        let (fx0, fx1, fy0, fy1) = ((x0 as usize) * k, (x1 as usize + 1) * k, (y0 as usize) * k, (y1 as usize + 1) * k);
        let (mx, my) = ((fx1 - fx0) / 4, (fy1 - fy0) / 4);
        let column_off = |x: usize| {
            (fy0 + my..fy1 - my).filter(|&y| off(img.get_pixel(x as u32, y as u32)[0])).count() * 2 > fy1 - fy0 - 2 * my
        };
        let row_off = |y: usize| {
            (fx0 + mx..fx1 - mx).filter(|&x| off(img.get_pixel(x as u32, y as u32)[0])).count() * 2 > fx1 - fx0 - 2 * mx
        };
        let left = (fx0.saturating_sub(k)..(fx0 + k).min(w)).find(|&x| column_off(x)).unwrap_or(fx0);
        let right = (fx1.saturating_sub(k)..(fx1 + k).min(w)).rev().find(|&x| column_off(x)).map_or(fx1, |x| x + 1);
        let top = (fy0.saturating_sub(k)..(fy0 + k).min(h)).find(|&y| row_off(y)).unwrap_or(fy0);
        let bottom = (fy1.saturating_sub(k)..(fy1 + k).min(h)).rev().find(|&y| row_off(y)).map_or(fy1, |y| y + 1);
        let quad = Quad::rect(left as f64, top as f64, right as f64, bottom as f64);
        if quad.mean_side() < MIN_BOARD_PX || !plausible(&quad, w as f64, h as f64) {
            continue;
        }
        let contrast = board_contrast(img, &quad);
        trace!(" region on the plain ground {:?} contrast {contrast:.3}", quad);
        if contrast < MIN_REFINED_CONTRAST {
            continue;
        }
        // Not refined from its corners: the texture that broke the lattice would pull them
        // off, and an upright region's edges are exact to the pixel.
        out.push(Located { quad, corners_found: 0, rms_error: 0.0 });
    }
    out
}

/// [`boards_on_plain_ground`]: the share of a picture its commonest grey level (in steps of 8)
/// must cover to be a plain ground, and how far from it a pixel is off the ground.
pub(super) const PLAIN_GROUND_SHARE: f64 = 0.3;
pub(super) const PLAIN_GROUND_MARGIN: f64 = 16.0;

/// Four corners in board order (top-left, top-right, bottom-right, bottom-left) when they make
/// a convex quadrilateral: sorted by angle around their centre, starting from the one nearest
/// the top-left.
pub(super) fn upright_order(pts: &[Point]) -> Option<Quad> {
    let (cx, cy) = (pts.iter().map(|p| p.x).sum::<f64>() / 4.0, pts.iter().map(|p| p.y).sum::<f64>() / 4.0);
    let mut v: Vec<Point> = pts.to_vec();
    v.sort_by(|a, b| (a.y - cy).atan2(a.x - cx).total_cmp(&(b.y - cy).atan2(b.x - cx)));
    let first = (0..4).min_by(|&i, &j| (v[i].x + v[i].y).total_cmp(&(v[j].x + v[j].y)))?;
    v.rotate_left(first);
    let q = Quad([v[0], v[1], v[2], v[3]]);
    let cross = |o: Point, a: Point, b: Point| (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
    (0..4).all(|i| cross(v[i], v[(i + 1) % 4], v[(i + 2) % 4]) > 0.0).then_some(q)
}

/// How clearly the 64 squares of the board at `quad` alternate, in grey level or in texture
/// (a hatch that barely darkens its squares): the larger [`checker_contrast`].
pub(super) fn board_contrast(img: &GrayImage, quad: &Quad) -> f64 {
    let grid = quad.board_to_image();
    let at = |x: f64, y: f64| grid.apply(Point::new(x, y));
    let values: Vec<f64> = (0..64).map(|i| square_value(img, at, (i % 8) as f64, (i / 8) as f64)).collect();
    let texture: Vec<f64> = (0..64).map(|i| square_texture(img, at, (i % 8) as f64, (i / 8) as f64)).collect();
    checker_contrast(&values).max(checker_contrast(&texture))
}

/// Whether two quads are one board found twice: either's centre lies inside the other.
pub(super) fn same_place(a: &Quad, b: &Quad) -> bool {
    a.contains(b.centre()) || b.contains(a.centre())
}

/// How much more clearly the squares inside a frame must alternate than those of the board a
/// lattice found there for the frame's board to replace it.
pub(super) const FRAME_PREFERENCE_MARGIN: f64 = 0.05;

/// A board seen on a screen, a page or at a moderate angle: convex, inside the picture (up to a
/// few percent of its side), no side shorter than 0.6 or longer than 1.6 times the mean side,
/// width and height within a factor 1.43 of each other.
pub(super) fn plausible(q: &Quad, w: f64, h: f64) -> bool {
    let side = q.mean_side();
    let m = 0.03 * side;
    let inside = q.0.iter().all(|p| p.x >= -m && p.y >= -m && p.x <= w + m && p.y <= h + m);
    let sides_ok = (0..4).all(|i| {
        let l = q.0[i].dist(q.0[(i + 1) % 4]);
        (0.6 * side..=1.6 * side).contains(&l)
    });
    let convex = (0..4).all(|i| {
        let (a, b, c) = (q.0[i], q.0[(i + 1) % 4], q.0[(i + 2) % 4]);
        (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x) > 0.0
    });
    let p = &q.0;
    let width = (p[0].dist(p[1]) + p[3].dist(p[2])) / 2.0;
    let height = (p[0].dist(p[3]) + p[1].dist(p[2])) / 2.0;
    let aspect_ok = (0.7..=1.43).contains(&(width / height));
    inside && sides_ok && convex && aspect_ok
}
