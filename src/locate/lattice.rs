//! Lattices of X-corners: peaks linked to their neighbours of opposite polarity, grown from
//! strong seeds and joined where pieces hid a row, with integer board coordinates per node.

use super::*;

/// Centroid of a lattice's nodes in full-resolution pixels.
pub(super) fn lattice_centre(lat: &Lattice, k: f64) -> Point {
    let n = lat.nodes.len() as f64;
    let (sx, sy) = lat.nodes.iter().fold((0.0, 0.0), |(x, y), &(_, _, p)| (x + p.x, y + p.y));
    Point::new(sx / n * k, sy / n * k)
}

/// A lattice: nodes with integer coordinates `(i, j)` (i to the right, j down) and positions in
/// working-image pixels, plus the polarity of the node at `(0, 0)`.
#[derive(Clone)]
pub(super) struct Lattice {
    pub(super) nodes: Vec<(i32, i32, Point)>,
    /// Polarity of the node at lattice coordinates (0, 0).
    pub(super) positive0: bool,
}

impl Lattice {
    pub(super) fn len(&self) -> usize {
        self.nodes.len()
    }
}

/// Peaks bucketed on a grid for neighbourhood queries.
pub(super) struct PeakGrid<'a> {
    pub(super) peaks: &'a [Peak],
    pub(super) cell: f64,
    pub(super) cols: i64,
    pub(super) rows: i64,
    pub(super) buckets: Vec<Vec<usize>>,
}

impl<'a> PeakGrid<'a> {
    pub(super) fn new(peaks: &'a [Peak], cell: f64) -> Self {
        let cols = (peaks.iter().map(|p| p.x).fold(0.0, f64::max) / cell).floor() as i64 + 1;
        let rows = (peaks.iter().map(|p| p.y).fold(0.0, f64::max) / cell).floor() as i64 + 1;
        let mut buckets = vec![Vec::new(); (cols * rows) as usize];
        for (i, p) in peaks.iter().enumerate() {
            buckets[((p.y / cell) as i64 * cols + (p.x / cell) as i64) as usize].push(i);
        }
        PeakGrid { peaks, cell, cols, rows, buckets }
    }

    /// Peaks within `radius` of `(x, y)`.
    pub(super) fn near(&self, x: f64, y: f64, radius: f64) -> impl Iterator<Item = usize> + '_ {
        let x0 = (((x - radius) / self.cell).floor() as i64).max(0);
        let x1 = (((x + radius) / self.cell).floor() as i64).min(self.cols - 1);
        let y0 = (((y - radius) / self.cell).floor() as i64).max(0);
        let y1 = (((y + radius) / self.cell).floor() as i64).min(self.rows - 1);
        let r2 = radius * radius;
        (y0..=y1)
            .flat_map(move |gy| (x0..=x1).map(move |gx| (gy * self.cols + gx) as usize))
            .flat_map(|k| self.buckets[k].iter().copied())
            .filter(move |&i| (self.peaks[i].x - x).powi(2) + (self.peaks[i].y - y).powi(2) <= r2)
    }

    /// The peak of the given polarity nearest to `(x, y)` within `radius` (the first of equals
    /// in bucket order). Plain loops: this runs for every predicted lattice node.
    pub(super) fn nearest(&self, x: f64, y: f64, radius: f64, positive: bool) -> Option<usize> {
        let x0 = (((x - radius) / self.cell).floor() as i64).max(0);
        let x1 = (((x + radius) / self.cell).floor() as i64).min(self.cols - 1);
        let y0 = (((y - radius) / self.cell).floor() as i64).max(0);
        let y1 = (((y + radius) / self.cell).floor() as i64).min(self.rows - 1);
        let mut best: Option<(f64, usize)> = None;
        for gy in y0..=y1 {
            for gx in x0..=x1 {
                for &i in &self.buckets[(gy * self.cols + gx) as usize] {
                    let p = &self.peaks[i];
                    if p.positive != positive {
                        continue;
                    }
                    let d2 = (p.x - x).powi(2) + (p.y - y).powi(2);
                    if d2 <= radius * radius && best.is_none_or(|(b, _)| d2 < b) {
                        best = Some((d2, i));
                    }
                }
            }
        }
        best.map(|(_, i)| i)
    }
}

/// Longest and shortest lattice step searched, in working-image pixels.
pub(super) const MAX_STEP: f64 = 160.0;
pub(super) const MIN_STEP: f64 = 6.0;

/// Grows lattices from the strongest peaks (see the module documentation).
///
/// A seed's right and down neighbours are its nearest peaks of opposite polarity roughly to the
/// right and below; they give the local lattice vectors. Growth then predicts where each
/// neighbour must be (one step, or two steps over a hidden corner) and takes only a peak of the
/// expected polarity within a quarter step of the prediction, updating the vectors as it goes,
/// so gentle perspective is followed and peaks on pieces are ignored.
pub(super) fn link_lattices(peaks: &[Peak]) -> Vec<Lattice> {
    let grid = PeakGrid::new(peaks, 32.0);
    let mut order: Vec<usize> = (0..peaks.len()).collect();
    order.sort_by(|&a, &b| peaks[b].score.total_cmp(&peaks[a].score));
    let mut used = vec![false; peaks.len()];
    let mut tried = vec![false; peaks.len()];
    let (mut stamp, mut grown) = (vec![0u32; peaks.len()], 0u32);
    let mut out = Vec::new();
    for seed in order.into_iter().take(MAX_SEEDS) {
        if used[seed] || tried[seed] {
            continue;
        }
        tried[seed] = true;
        let Some((ex, ey)) = seed_frame(&grid, seed) else { continue };
        grown += 1;
        let taken = grow(&grid, seed, ex, ey, &used, &mut stamp, grown);
        // A board shows at least three rows and three columns of corners; text lines grow
        // into long thin lattices, not worth fitting.
        let span = |f: fn(&((i32, i32), usize)) -> i32| {
            let (lo, hi) = minmax(taken.iter().map(f));
            hi - lo
        };
        if taken.len() < 9 || span(|t| t.0 .0) < 2 || span(|t| t.0 .1) < 2 {
            continue;
        }
        let nodes: Vec<(i32, i32, Point)> =
            taken.iter().map(|&((i, j), n)| (i, j, Point::new(peaks[n].x, peaks[n].y))).collect();
        let Some(nodes) = resnap(&nodes).and_then(|n| resnap(&n)) else { continue };
        if nodes.len() < 9 || !regular(&nodes) {
            continue;
        }
        for &(_, n) in &taken {
            used[n] = true;
            tried[n] = true;
        }
        out.push(Lattice { nodes, positive0: peaks[seed].positive });
    }
    out
}

/// Seeds tried per image, strongest first.
pub(super) const MAX_SEEDS: usize = 400;

/// Joins lattices that are pieces of one board. Growth stops where pieces hide more than one
/// corner in a row, so a crowded board can come out as two or three lattices, each too small to
/// be fitted alone. Two lattices join when either one's grid, extrapolated, puts at least 80% of
/// the other's nodes within a quarter step of its corners, all at one offset and of the right
/// polarity, and the two together span no more than a board's 9x9 corners, its edge included:
/// a fragment often holds corners on the board's edge, where the squares meet the frame or the
/// paper (two boards side by side span more).
pub(super) fn merge_fragments(mut lats: Vec<Lattice>) -> Vec<Lattice> {
    let mut grids: Vec<Option<Homography>> = lats.iter().map(grid_of).collect();
    let mut a = 0;
    while a < lats.len() {
        let mut b = a + 1;
        while b < lats.len() {
            // Either grid may extrapolate: a fragment of two rows says little about the rows
            // beyond it, while its partner's grid may place it well.
            let both = grids[a]
                .as_ref()
                .and_then(|g| joined(&lats[a], g, &lats[b]))
                .or_else(|| grids[b].as_ref().and_then(|g| joined(&lats[b], g, &lats[a])));
            match both {
                Some(both) => {
                    grids[a] = grid_of(&both);
                    lats[a] = both;
                    lats.remove(b);
                    grids.remove(b);
                    b = a + 1;
                }
                None => b += 1,
            }
        }
        a += 1;
    }
    lats
}

/// The map from image points to a lattice's coordinates (a robust fit of its nodes).
pub(super) fn grid_of(lat: &Lattice) -> Option<Homography> {
    let src: Vec<Point> = lat.nodes.iter().map(|&(i, j, _)| Point::new(i as f64, j as f64)).collect();
    let dst: Vec<Point> = lat.nodes.iter().map(|&(_, _, p)| p).collect();
    robust_fit(&src, &dst)?.inverse()
}

/// `b`'s nodes added to `a`'s, in `a`'s lattice coordinates, when they are one board's
/// ([`merge_fragments`]); `grid` maps image points to `a`'s lattice coordinates.
pub(super) fn joined(a: &Lattice, grid: &Homography, b: &Lattice) -> Option<Lattice> {
    let on_a: Vec<Point> = b.nodes.iter().map(|&(_, _, p)| grid.apply(p)).collect();
    let near = |u: &Point, (ci, cj): (i32, i32)| (u.x - ci as f64).hypot(u.y - cj as f64) <= 0.25;
    let mut offsets: BTreeMap<(i32, i32), usize> = BTreeMap::new();
    for (&(i, j, _), u) in b.nodes.iter().zip(&on_a) {
        let (ci, cj) = (u.x.round() as i32, u.y.round() as i32);
        if near(u, (ci, cj)) {
            *offsets.entry((ci - i, cj - j)).or_default() += 1;
        }
    }
    let (&(di, dj), &agree) = offsets.iter().max_by_key(|&(_, &n)| n)?;
    // Node (i, j) of a lattice has its (0, 0) node's polarity when i + j is even.
    let polarity_fits = (a.positive0 == b.positive0) == ((di + dj).rem_euclid(2) == 0);
    if 5 * agree < 4 * b.len() || !polarity_fits {
        return None;
    }
    // Only b's nodes that lie on a's grid at that offset: a stray peak taken in growth must not
    // stretch the pair beyond a board.
    let mut nodes = a.nodes.clone();
    for (&(i, j, p), u) in b.nodes.iter().zip(&on_a) {
        let at = (i + di, j + dj);
        if near(u, at) && !nodes.iter().any(|&(ni, nj, _)| (ni, nj) == at) {
            nodes.push((at.0, at.1, p));
        }
    }
    let (ilo, ihi) = minmax(nodes.iter().map(|n| n.0));
    let (jlo, jhi) = minmax(nodes.iter().map(|n| n.1));
    if ihi - ilo > 8 || jhi - jlo > 8 {
        return None;
    }
    let nodes = resnap(&nodes)?;
    (nodes.len() > a.len() && regular(&nodes)).then_some(Lattice { nodes, positive0: a.positive0 })
}

/// Breadth-first growth from `seed` with lattice vectors `ex`, `ey` (see [`link_lattices`]):
/// the lattice nodes as ((i, j), peak). `stamp` marks the peaks taken by this growth (it holds
/// a number per peak; `id` is this growth's).
pub(super) fn grow(
    grid: &PeakGrid,
    seed: usize,
    ex: (f64, f64),
    ey: (f64, f64),
    used: &[bool],
    stamp: &mut [u32],
    id: u32,
) -> Vec<((i32, i32), usize)> {
    const REACH: i32 = 12;
    const SIDE: usize = (2 * REACH + 1) as usize;
    let slot = |i: i32, j: i32| ((j + REACH) as usize) * SIDE + (i + REACH) as usize;
    let peaks = grid.peaks;
    let mut at = [u32::MAX; SIDE * SIDE];
    let mut taken = vec![((0, 0), seed)];
    at[slot(0, 0)] = seed as u32;
    stamp[seed] = id;
    let mut queue = VecDeque::from([(seed, 0i32, 0i32, ex, ey)]);
    while let Some((u, i, j, ex, ey)) = queue.pop_front() {
        let pu = peaks[u];
        for &(di, dj) in &[(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let e = if di != 0 { ex } else { ey };
            let sign = (di + dj) as f64;
            let unit = e.0.hypot(e.1);
            for step in [1i32, 2] {
                let (ni, nj) = (i + di * step, j + dj * step);
                if ni.abs() > REACH || nj.abs() > REACH || at[slot(ni, nj)] != u32::MAX {
                    break;
                }
                let k = sign * step as f64;
                let (qx, qy) = (pu.x + k * e.0, pu.y + k * e.1);
                // Polarity alternates with each step.
                let want = if step == 1 { !pu.positive } else { pu.positive };
                let Some(v) = grid.nearest(qx, qy, 0.2 * unit, want) else { continue };
                if used[v] || stamp[v] == id {
                    break;
                }
                let pv = peaks[v];
                let m = ((pv.x - pu.x) / k, (pv.y - pu.y) / k);
                let e2 = (0.75 * e.0 + 0.25 * m.0, 0.75 * e.1 + 0.25 * m.1);
                let (nex, ney) = if di != 0 { (e2, ey) } else { (ex, e2) };
                at[slot(ni, nj)] = v as u32;
                taken.push(((ni, nj), v));
                stamp[v] = id;
                queue.push_back((v, ni, nj, nex, ney));
                break;
            }
        }
    }
    taken
}

/// Re-derives each node's lattice coordinates from a robust homography fit of all nodes: a node
/// is kept at the lattice point nearest to it (within a quarter step, same polarity), so a few
/// peaks taken by mistake during growth cannot bend the lattice.
pub(super) fn resnap(nodes: &[(i32, i32, Point)]) -> Option<Vec<(i32, i32, Point)>> {
    let src: Vec<Point> = nodes.iter().map(|&(i, j, _)| Point::new(i as f64, j as f64)).collect();
    let dst: Vec<Point> = nodes.iter().map(|&(_, _, p)| p).collect();
    let inv = robust_fit(&src, &dst)?.inverse()?;
    let mut best: BTreeMap<(i32, i32), (f64, Point)> = BTreeMap::new();
    for &(i, j, p) in nodes {
        let u = inv.apply(p);
        let (ci, cj) = (u.x.round() as i32, u.y.round() as i32);
        let err = (u.x - ci as f64).hypot(u.y - cj as f64);
        if err > 0.25 || (ci + cj - i - j).rem_euclid(2) != 0 {
            continue;
        }
        if best.get(&(ci, cj)).is_none_or(|&(e, _)| err < e) {
            best.insert((ci, cj), (err, p));
        }
    }
    Some(best.into_iter().map(|((i, j), (_, p))| (i, j, p)).collect())
}

/// Whether lattice nodes lie on one projective grid: the RMS residual of a homography fit is
/// under a tenth of a step.
pub(super) fn regular(nodes: &[(i32, i32, Point)]) -> bool {
    let src: Vec<Point> = nodes.iter().map(|&(i, j, _)| Point::new(i as f64, j as f64)).collect();
    let dst: Vec<Point> = nodes.iter().map(|&(_, _, p)| p).collect();
    let Some(h) = Homography::fit(&src, &dst) else { return false };
    let rms = (src.iter().zip(&dst).map(|(s, d)| h.apply(*s).dist(*d).powi(2)).sum::<f64>() / src.len() as f64).sqrt();
    let (ci, cj) = (
        src.iter().map(|p| p.x).sum::<f64>() / src.len() as f64,
        src.iter().map(|p| p.y).sum::<f64>() / src.len() as f64,
    );
    let c = Point::new(ci.round(), cj.round());
    let step = h.apply(c).dist(h.apply(Point::new(c.x + 1.0, c.y)));
    rms < 0.1 * step
}

/// The lattice vectors at a seed: the offsets to its nearest opposite-polarity peaks roughly to
/// the right and below, which must be of similar length ([`SEED_STEP_RATIO`]).
pub(super) fn seed_frame(grid: &PeakGrid, seed: usize) -> Option<((f64, f64), (f64, f64))> {
    let p = grid.peaks[seed];
    let mut best: [Option<(f64, f64, f64)>; 2] = [None, None];
    // Widen the search until both neighbours are found: none nearer can lie outside it.
    let mut radius = 24.0f64;
    loop {
        let radius_now = radius.min(MAX_STEP);
        for v in grid.near(p.x, p.y, radius_now) {
            let q = grid.peaks[v];
            if q.positive == p.positive {
                continue;
            }
            let (dx, dy) = (q.x - p.x, q.y - p.y);
            let d = dx.hypot(dy);
            if d < MIN_STEP {
                continue;
            }
            for (k, (along, across)) in [(dx, dy.abs()), (dy, dx.abs())].into_iter().enumerate() {
                if along > 0.0 && across <= 0.45 * along && best[k].is_none_or(|(_, _, bd)| d < bd) {
                    best[k] = Some((dx, dy, d));
                }
            }
        }
        if best.iter().all(Option::is_some) || radius_now >= MAX_STEP {
            break;
        }
        radius *= 2.0;
    }
    let (rx, ry, rd) = best[0]?;
    let (dx, dy, dd) = best[1]?;
    if (rd - dd).abs() > SEED_STEP_RATIO * rd.max(dd) {
        return None;
    }
    Some(((rx, ry), (dx, dy)))
}

/// How much the two lattice vectors at a seed may differ in length, as a share of the longer
/// ([`seed_frame`]). Squares are square, and a board seen at an angle changes them little from
/// one corner to the next; a hatched diagram turned by 10 degrees or more puts peaks of the
/// opposite polarity at two thirds of a square along its hatch, and at 0.3 a seed took one
/// of them for its neighbour and grew a lattice of the wrong pitch (realdata-dev turned by 10
/// degrees: 59/62 boards found at 0.3, 61/62 at 0.2).
pub(super) const SEED_STEP_RATIO: f64 = 0.2;

/// Lattice points on the board's edge (the ring of 32 just outside a window of interior
/// corners) that a board's surroundings may hold.
pub(super) const EDGE_RING_MAX: usize = 8;

/// Whether the lattice continues all around the 7x7 window of interior corners at (i0, j0), as
/// on a checkered texture, rather than only on some sides (text or a pattern beside a board).
/// Both rings must be crowded: the board's edge (more than [`EDGE_RING_MAX`] points), which
/// alone can show corners all round where a frame line or the paper meets the squares, and the
/// ring of 40 beyond it, on three sides or four (at least 3 of a side's 11 points): a window one
/// step in from a texture's edge has it on three.
pub(super) fn texture_around(nodes: &[(i32, i32, Point)], i0: i32, j0: i32) -> bool {
    let edge = edge_ring(nodes, i0, j0);
    let side = |on: &dyn Fn(i32, i32) -> bool| {
        nodes.iter().filter(|&&(i, j, _)| around_window(i0, j0, 2, i, j) && on(i, j)).count() >= 3
    };
    let sides =
        [side(&|i, _| i == i0 - 2), side(&|i, _| i == i0 + 8), side(&|_, j| j == j0 - 2), side(&|_, j| j == j0 + 8)];
    edge > EDGE_RING_MAX && sides.iter().filter(|&&s| s).count() >= 3
}

/// The lattice nodes on the board's edge around the 7x7 window of interior corners at (i0, j0):
/// the ring of 32 points just outside it.
pub(super) fn edge_ring(nodes: &[(i32, i32, Point)], i0: i32, j0: i32) -> usize {
    nodes.iter().filter(|&&(i, j, _)| around_window(i0, j0, 1, i, j) && !around_window(i0, j0, 0, i, j)).count()
}

/// Whether lattice point (i, j) lies within `r` steps of the 7x7 window of interior corners at
/// (i0, j0) (on it for `r` = 0).
pub(super) fn around_window(i0: i32, j0: i32, r: i32, i: i32, j: i32) -> bool {
    (i0 - r..=i0 + 6 + r).contains(&i) && (j0 - r..=j0 + 6 + r).contains(&j)
}

/// The lattice's larger extent in steps, over the columns and rows that hold more than half as
/// many nodes as the fullest one (and at least three): a few stray peaks beyond a board (labels,
/// text, specks of hatching) do not make a checkered texture, whose every row is full.
pub(super) fn core_span(nodes: &[(i32, i32, Point)]) -> i32 {
    let extent = |axis: &dyn Fn(&(i32, i32, Point)) -> i32| {
        let mut counts: BTreeMap<i32, usize> = BTreeMap::new();
        for n in nodes {
            *counts.entry(axis(n)).or_default() += 1;
        }
        let most = counts.values().copied().max().unwrap_or(0);
        let dense: Vec<i32> = counts.into_iter().filter(|&(_, c)| c >= 3 && 2 * c > most).map(|(v, _)| v).collect();
        dense.last().zip(dense.first()).map_or(0, |(hi, lo)| hi - lo)
    };
    extent(&|n| n.0).max(extent(&|n| n.1))
}

pub(super) fn minmax(it: impl Iterator<Item = i32>) -> (i32, i32) {
    it.fold((i32::MAX, i32::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)))
}
