//! Which 7x7 window of a lattice is the board: windows ranked by how clearly their squares
//! alternate, the board fitted, refined at full resolution and checked again a step either way.

use super::*;

/// Chooses the 7x7 window of interior corners, refines it at full resolution and fits the board.
///
/// A lattice may reach beyond its board into text or a pattern beside it: the windows with the
/// most nodes are tried in turn. In a lattice wider than a board, a window with a checkered
/// texture all around it is passed over ([`texture_around`]). `taken` are the boards found
/// already: a window of the refined grid that reaches into one of them is not this board
/// ([`on_other_board`]).
pub(super) fn fit_board(level: &Level, lat: &Lattice, opts: &LocateOptions, taken: &[Located]) -> Option<Located> {
    let wide = core_span(&lat.nodes) > MAX_SPAN;
    for (nodes, i0, j0) in ranked_windows(lat).into_iter().take(4) {
        if nodes < 9 {
            break;
        }
        if wide && texture_around(&lat.nodes, i0, j0) {
            trace!("  window {i0},{j0}: {nodes} nodes, a checkered texture around it");
            continue;
        }
        let Some(shifts) = lattice_shifts(level.small(), lat, i0, j0) else { continue };
        trace!("  windows by checker contrast: {:?}", &shifts[..3]);
        for &Shift { contrast, di, dj, .. } in shifts.iter().take(3) {
            // Text, hatching and textures line up in lattices too, but their "squares" do not
            // alternate: not worth refining.
            if contrast < MIN_CHECKER_CONTRAST {
                break;
            }
            let window = Window { lat, a: i0 + di, b: j0 + dj, nodes, wide };
            if let Some(board) = refine_board(level, opts, taken, &window) {
                return Some(board);
            }
        }
    }
    None
}

/// The 7x7 windows of a lattice's nodes, as `(nodes inside, i0, j0)` with `(i0, j0)` the window's
/// first node, most nodes first. Ties: the window with the fewest nodes on its edge first (in a
/// lattice that runs on into a second board beside it, the window flush with the lattice's end),
/// then the window centred on the lattice.
fn ranked_windows(lat: &Lattice) -> Vec<(usize, i32, i32)> {
    let (imin, imax) = minmax(lat.nodes.iter().map(|n| n.0));
    let (jmin, jmax) = minmax(lat.nodes.iter().map(|n| n.1));
    let windows = |lo: i32, hi: i32| -> Vec<i32> {
        if hi - lo >= 6 {
            (lo..=hi - 6).collect()
        } else {
            (hi - 6..=lo).collect()
        }
    };
    let mut candidates = Vec::new();
    for i0 in windows(imin, imax) {
        for j0 in windows(jmin, jmax) {
            let n = lat.nodes.iter().filter(|&&(i, j, _)| around_window(i0, j0, 0, i, j)).count();
            let edge = edge_ring(&lat.nodes, i0, j0);
            let off = ((imin + imax) - (2 * i0 + 6)).abs() + ((jmin + jmax) - (2 * j0 + 6)).abs();
            candidates.push((n, edge, off, i0, j0));
        }
    }
    candidates.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    candidates.into_iter().map(|(n, _, _, i0, j0)| (n, i0, j0)).collect()
}

/// The window at `(i0, j0)` and its neighbours up to three steps away, ranked by how clearly
/// their 64 squares alternate light and dark on the level the lattice was found at (cheaper, and
/// its squares are at least a few pixels). Counting corners cannot tell a window from one a rank
/// or a file beside it when rows of corners are hidden by pieces or the board's edge shows
/// corner-like marks; a shifted window takes in a row of background and loses a row of squares.
fn lattice_shifts(work: &GrayImage, lat: &Lattice, i0: i32, j0: i32) -> Option<Vec<Shift>> {
    let near = |&&(i, j, _): &&(i32, i32, Point)| (i0 - 2..=i0 + 8).contains(&i) && (j0 - 2..=j0 + 8).contains(&j);
    let src: Vec<Point> = lat.nodes.iter().filter(near).map(|&(i, j, _)| Point::new(i as f64, j as f64)).collect();
    let dst: Vec<Point> = lat.nodes.iter().filter(near).map(|&(_, _, p)| p).collect();
    let lattice = robust_fit(&src, &dst)?;
    Some(ranked_shifts(work, 3, |x, y| lattice.apply(Point::new(x + (i0 - 1) as f64, y + (j0 - 1) as f64))))
}

/// A window of a lattice tried as the board: its first node `(a, b)`, how many of the lattice's
/// nodes lie in the window it was ranked from, and whether the lattice reaches beyond one board.
struct Window<'a> {
    lat: &'a Lattice,
    a: i32,
    b: i32,
    nodes: usize,
    wide: bool,
}

/// Fits `w` at full resolution and checks the choice again on the refined grid, a step either
/// way (two when clearly better): the board, or `None` when the window is not one.
fn refine_board(level: &Level, opts: &LocateOptions, taken: &[Located], w: &Window) -> Option<Located> {
    let img = level.full;
    let (located, grid) = fit_window(img, w.lat, level.k as f64, w.a, w.b, opts)?;
    // At full resolution, text and patterns that looked like squares on the working level show
    // what they are: the window or one a step over must alternate clearly. The board then lies
    // at the best window within a step, or two steps over when that one is clearly better (see
    // FAR_SHIFT_MARGIN).
    let mut ranked = ranked_shifts(img, 2, |x, y| grid.apply(Point::new(x, y)));
    // A board beside one found already (two boards on a photo, a fraction of a square apart and
    // in step) alternates alike in the windows that reach into its neighbour: those are not this
    // board.
    let centre = grid.apply(Point::new(4.0, 4.0));
    let others: Vec<&Quad> = taken.iter().map(|b| &b.quad).filter(|q| !q.contains(centre)).collect();
    ranked.retain(|s| !on_other_board(&grid, s, &others));
    if ranked.len() < 3 {
        return None;
    }
    trace!("  refined grid: {:?}", &ranked[..3]);
    // A faint board (a small diagram on a defocused photo) may alternate too faintly for that, or
    // alike in neighbouring windows; it is still told by its edges, when the lattice is a
    // board's and holds enough of its corners (text and textures alternate faintly too, but
    // around and beyond any window).
    let faint = || {
        if w.wide || w.nodes < MIN_BOUNDED_CORNERS {
            return None;
        }
        bounded_shift(&shifts_measured(img, 2, true, |x, y| grid.apply(Point::new(x, y))))
    };
    let chosen = choose_shift(&ranked).or_else(faint)?;
    // Windows that alternate alike (two boards side by side, in step across a gap of a fraction
    // of a square: a window straddling the gap alternates as well as either board's own) are
    // told apart by what lies beyond them.
    let shift = if ranked[0].contrast - ranked[1].contrast < MIN_SHIFT_MARGIN {
        untie(&shifts_measured(img, 2, true, |x, y| grid.apply(Point::new(x, y))), chosen)
    } else {
        chosen
    };
    if shift == (0, 0) {
        return Some(located);
    }
    trace!("  refined grid prefers a shift of {},{}", shift.0, shift.1);
    Some(moved_board(level, opts, w, &ranked, &grid, located, shift))
}

/// The board `shift` windows from `located` on the refined `grid`: first fitted from the
/// lattice; where it holds too few nodes on the row or column the window gains, from the refined
/// grid itself; where neither refines (the corners it gains are hidden), the refined grid's own
/// window there. A window that would leave the picture replaces the unmoved one only when it
/// alternates clearly better (a board photographed partly out of frame): a faint tie is no
/// reason to move off the picture.
fn moved_board(
    level: &Level,
    opts: &LocateOptions,
    w: &Window,
    ranked: &[Shift],
    grid: &Homography,
    located: Located,
    (di, dj): (i32, i32),
) -> Located {
    let img = level.full;
    let positive11 = w.lat.positive0 == ((w.a + w.b).rem_euclid(2) == 0);
    let contrast_at = |shift: (i32, i32)| ranked.iter().find(|s| (s.di, s.dj) == shift).map_or(0.0, |s| s.contrast);
    let clearly = contrast_at((di, dj)) >= contrast_at((0, 0)) + MIN_SHIFT_MARGIN;
    let shifted = window_of(grid, di, dj);
    let moved =
        if clearly || plausible(&shifted, img.width() as f64, img.height() as f64) { shifted } else { located.quad };
    fit_window(img, w.lat, level.k as f64, w.a + di, w.b + dj, opts)
        .or_else(|| fit_shifted(img, grid, positive11, di, dj, opts))
        .map(|(l, _)| l)
        .unwrap_or(Located { quad: moved, ..located })
}

/// Whether the window `s` of `grid` reaches into one of `others`, boards found already: the
/// centre of one of its edge squares (the middle of its first or last file or rank) lies inside
/// one.
pub(super) fn on_other_board(grid: &Homography, s: &Shift, others: &[&Quad]) -> bool {
    [(0.5, 4.0), (7.5, 4.0), (4.0, 0.5), (4.0, 7.5)].iter().any(|&(x, y)| {
        let c = grid.apply(Point::new(x + s.di as f64, y + s.dj as f64));
        others.iter().any(|q| q.contains(c))
    })
}

/// Whether the board window whose board coordinates `to_image` maps to pixels lies in `img`:
/// at most [`MAX_SQUARES_OFF_PICTURE`] of its 64 square centres outside it.
pub(super) fn in_picture(img: &GrayImage, to_image: impl Fn(f64, f64) -> Point) -> bool {
    let (w, h) = (img.width() as f64, img.height() as f64);
    let off = (0..64)
        .map(|i| to_image((i % 8) as f64 + 0.5, (i / 8) as f64 + 0.5))
        .filter(|p| p.x < 0.0 || p.y < 0.0 || p.x > w || p.y > h)
        .count();
    off <= MAX_SQUARES_OFF_PICTURE
}

/// See [`in_picture`]: a photo may cut off a corner of its board, not a rank.
pub(super) const MAX_SQUARES_OFF_PICTURE: usize = 4;

/// How clearly the board window `quad` alternates light and dark, as the finder ranks windows
/// (`checker_contrast` of its squares less a gradient of light; 0 when it leaves the picture).
/// A window that takes in a file or rank of page beside the board scores about an eighth less
/// than the board's own.
pub fn window_contrast(img: &GrayImage, quad: &Quad) -> f64 {
    let h = quad.board_to_image();
    let to_image = |x: f64, y: f64| h.apply(Point::new(x, y));
    if !in_picture(img, to_image) {
        return 0.0;
    }
    let values: Vec<f64> = (0..64).map(|i| square_value(img, to_image, (i % 8) as f64, (i / 8) as f64)).collect();
    checker_contrast(&without_gradient(&values))
}

/// Where the board lies, from the windows around a refined grid ranked by [`ranked_shifts`] with
/// a reach of two: the best window within one step, or the best one two steps over when it
/// alternates [`FAR_SHIFT_MARGIN`] more clearly. None when no window within one step alternates
/// clearly enough for a board ([`MIN_REFINED_CONTRAST`]).
pub(super) fn choose_shift(ranked: &[Shift]) -> Option<(i32, i32)> {
    let near = *ranked.iter().find(|s| s.di.abs() <= 1 && s.dj.abs() <= 1)?;
    if near.contrast < MIN_REFINED_CONTRAST {
        return None;
    }
    let best = if ranked[0].contrast >= near.contrast + FAR_SHIFT_MARGIN { ranked[0] } else { near };
    let runner_up =
        ranked.iter().filter(|s| (s.di, s.dj) != (best.di, best.dj)).map(|s| s.contrast).fold(0.0, f64::max);
    if best.contrast < CLEAR_CONTRAST && best.contrast - runner_up < MIN_SHIFT_MARGIN {
        return None;
    }
    Some((best.di, best.dj))
}

/// Where [`choose_shift`] finds no board, the window whose squares alternate inside and stop at
/// its four edges: ranked by checker contrast less [`BEYOND_WEIGHT`] times how far the checker
/// goes on beyond it ([`checkered_beyond`]). Kept when it alternates at least
/// [`MIN_BOUNDED_CONTRAST`], nothing beyond it goes on in step ([`MAX_BOUNDED_BEYOND`]), and it
/// leads every other window by [`BOUNDED_MARGIN`]. A window a rank inside a faint board has a
/// rank of squares beyond it; a window over text or a texture has more of it all round.
pub(super) fn bounded_shift(ranked: &[Shift]) -> Option<(i32, i32)> {
    let score = |s: &Shift| s.contrast - BEYOND_WEIGHT * s.beyond.max(0.0);
    let mut by_score: Vec<&Shift> = ranked.iter().collect();
    by_score.sort_by(|a, b| score(b).total_cmp(&score(a)));
    let (top, second) = (by_score[0], by_score.get(1)?);
    trace!("  bounded by its edges: {top:?}, then {second:?}");
    (top.contrast >= MIN_BOUNDED_CONTRAST
        && top.beyond <= MAX_BOUNDED_BEYOND
        && score(top) - score(second) >= BOUNDED_MARGIN)
        .then_some((top.di, top.dj))
}

/// Among the windows that alternate within [`MIN_SHIFT_MARGIN`] of the best (`measured` by
/// [`shifts_measured`] with what lies beyond), the one with the least checker beyond its sides,
/// when it has [`UNTIE_LEAD`] less than the window `chosen`; otherwise `chosen`.
pub(super) fn untie(measured: &[Shift], chosen: (i32, i32)) -> (i32, i32) {
    let Some(best) = measured.first() else { return chosen };
    let Some(at_chosen) = measured.iter().find(|s| (s.di, s.dj) == chosen) else { return chosen };
    let tied = measured.iter().filter(|s| best.contrast - s.contrast < MIN_SHIFT_MARGIN);
    let Some(clear) = tied.min_by(|a, b| a.beyond.total_cmp(&b.beyond)) else { return chosen };
    trace!("  tied windows: {:?} has the least beyond it, {:?} was chosen", clear, at_chosen);
    if clear.beyond + UNTIE_LEAD <= at_chosen.beyond {
        (clear.di, clear.dj)
    } else {
        chosen
    }
}

/// See [`untie`].
pub(super) const UNTIE_LEAD: f64 = 0.3;

/// [`bounded_shift`]'s weight of the checker beyond a window against the one inside it.
pub(super) const BEYOND_WEIGHT: f64 = 0.6;
/// [`bounded_shift`]'s least contrast inside a window (a board window needs
/// [`MIN_REFINED_CONTRAST`] otherwise).
pub(super) const MIN_BOUNDED_CONTRAST: f64 = 0.45;
/// [`bounded_shift`]'s most checker beyond the window's sides.
pub(super) const MAX_BOUNDED_BEYOND: f64 = 0.15;
/// [`bounded_shift`]'s least lead of the window over the next.
pub(super) const BOUNDED_MARGIN: f64 = 0.1;
/// The lattice corners a window must hold for [`bounded_shift`] (of its 49 inner ones, with
/// those on its edge).
pub(super) const MIN_BOUNDED_CORNERS: usize = 20;

/// A board window shifted by (`di`, `dj`) squares ([`ranked_shifts`]): how clearly its squares
/// alternate ([`checker_contrast`]), and how clearly the checker goes on beyond its sides
/// ([`checkered_beyond`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Shift {
    pub(super) contrast: f64,
    pub(super) beyond: f64,
    pub(super) di: i32,
    pub(super) dj: i32,
}

/// The board windows shifted by up to `reach` squares either way, ranked by how clearly their
/// 64 squares alternate light and dark once a gentle gradient of light is taken out
/// ([`without_gradient`], [`checker_contrast`]), best first. `to_image` maps the unshifted
/// window's board coordinates to pixels. Each square is measured once, for every window that
/// holds it.
pub(super) fn ranked_shifts(img: &GrayImage, reach: i32, to_image: impl Fn(f64, f64) -> Point) -> Vec<Shift> {
    shifts_measured(img, reach, false, to_image)
}

/// [`ranked_shifts`], and with `beyond` also what lies beyond each window (otherwise 0), for
/// which one square more is measured all round.
pub(super) fn shifts_measured(
    img: &GrayImage,
    reach: i32,
    beyond: bool,
    to_image: impl Fn(f64, f64) -> Point,
) -> Vec<Shift> {
    let ext = if beyond { reach + 1 } else { reach };
    let n = 8 + 2 * ext;
    let values: Vec<f64> =
        (0..n * n).map(|i| square_value(img, &to_image, (i % n - ext) as f64, (i / n - ext) as f64)).collect();
    let at = |x: i32, y: i32| values[((y + ext) * n + x + ext) as usize];
    let mut shifts = Vec::with_capacity(((2 * reach + 1) * (2 * reach + 1)) as usize);
    for di in -reach..=reach {
        for dj in -reach..=reach {
            let window: Vec<f64> = (0..64).map(|i| at(i % 8 + di, i / 8 + dj)).collect();
            // A window that leaves the picture by more than a corner is not the board, however
            // well it alternates: in a tight crop under uneven light, a window a rank off the
            // picture (background there) can outscore the board, whose shaded rank alternates
            // faintly.
            let inside = in_picture(img, |x, y| to_image(x + di as f64, y + dj as f64));
            let contrast = if inside { checker_contrast(&without_gradient(&window)) } else { 0.0 };
            let beyond = if beyond { checkered_beyond(&window, |x, y| at(x + di, y + dj)) } else { 0.0 };
            shifts.push(Shift { contrast, beyond, di, dj });
        }
    }
    shifts.sort_by(|x, y| {
        y.contrast.total_cmp(&x.contrast).then((x.di.abs() + x.dj.abs()).cmp(&(y.di.abs() + y.dj.abs())))
    });
    shifts
}
