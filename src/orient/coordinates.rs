//! The first witness: the coordinates drawn at the board's edge, cut as small patches, read by
//! the coordinate model and weighed against the two ways the board can face.

use super::*;

/// Side of one label patch in pixels, the coordinate model's input.
pub const LABEL_PX: usize = 24;
/// Label patches inside the board: this fraction of a square (64 px a square), in a corner of an
/// edge square.
pub(super) const INNER: f64 = 0.375;
/// Label patches outside the board: this much of a square (32 px a square).
pub(super) const OUTER: f64 = 0.75;
/// Gap between the board's edge and an outside patch, in squares.
pub(super) const OUTER_GAP: f64 = 0.0625;
/// How many label sites lie in the band just outside the board (8 a side); as many again lie in
/// the far band beyond it ([`label_sites`]).
pub const OUTER_SITES: usize = 32;
/// The index of the far band's first site in [`label_sites`].
pub const FAR_SITES: usize = INNER_SITES + OUTER_SITES;

/// The coordinate model's classes: nothing, the rank digits, the file letters.
pub const LABEL_CLASSES: [char; 17] =
    ['.', '1', '2', '3', '4', '5', '6', '7', '8', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];

/// Where a label patch is cut, in squares from the board's top-left corner as displayed (x right,
/// y down): its top-left corner and side. `row` and `col` are the display row and column a label
/// read there belongs to (an outside patch beside the board has only a row, one below or above it
/// only a column).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LabelSite {
    /// Left edge, in squares.
    pub x: f64,
    /// Top edge, in squares.
    pub y: f64,
    /// Side, in squares.
    pub side: f64,
    /// The display row a label here belongs to.
    pub row: Option<u8>,
    /// The display column a label here belongs to.
    pub col: Option<u8>,
}

/// How many of [`label_sites`] lie inside the board (they come first).
pub const INNER_SITES: usize = 60;

/// The label sites, always in this order: the corners of the edge squares that touch the board's
/// edge ([`INNER_SITES`]), then the outside band left, right, above and below (4 x 8,
/// [`OUTER_SITES`], from [`OUTER_GAP`] to 0.81 squares out), then a far band the same way (0.81
/// to 1.56 squares out: a word processor's diagram sets its labels beyond a border of glyphs a
/// square wide).
pub fn label_sites() -> Vec<LabelSite> {
    let mut sites = Vec::with_capacity(INNER_SITES + 2 * OUTER_SITES);
    for row in 0..8u8 {
        for col in 0..8u8 {
            for (right, bottom) in [(false, false), (true, false), (false, true), (true, true)] {
                let on_edge =
                    (col == 0 && !right) || (col == 7 && right) || (row == 0 && !bottom) || (row == 7 && bottom);
                if on_edge {
                    sites.push(LabelSite {
                        x: col as f64 + if right { 1.0 - INNER } else { 0.0 },
                        y: row as f64 + if bottom { 1.0 - INNER } else { 0.0 },
                        side: INNER,
                        row: Some(row),
                        col: Some(col),
                    });
                }
            }
        }
    }
    let across = (1.0 - OUTER) / 2.0;
    for gap in [OUTER_GAP, OUTER_GAP + OUTER] {
        for k in 0..8u8 {
            let along = k as f64 + across;
            sites.push(LabelSite { x: -gap - OUTER, y: along, side: OUTER, row: Some(k), col: None });
            sites.push(LabelSite { x: 8.0 + gap, y: along, side: OUTER, row: Some(k), col: None });
            sites.push(LabelSite { x: along, y: -gap - OUTER, side: OUTER, row: None, col: Some(k) });
            sites.push(LabelSite { x: along, y: 8.0 + gap, side: OUTER, row: None, col: Some(k) });
        }
    }
    sites
}

/// The label patches of one board.
pub struct LabelPatches {
    /// `[N, 1, LABEL_PX, LABEL_PX]` in `[0, 1]`, one patch per [`label_sites`] entry.
    pub patches: Array4<f32>,
    /// Each patch's grey-level range before stretching, inside a small border.
    pub contrast: Vec<f32>,
}

/// A patch whose grey levels span less than this holds no label: the coordinate model need not
/// look at it (flat corners of a screenshot's squares, a plain margin). Low, because the model
/// reads labels printed only 6 grey levels off their background; 10 lost 3 of 251 rendered
/// boards with outside coordinates.
pub const MIN_LABEL_CONTRAST: f32 = 5.0;
/// Pixels at each side of a patch left out when its contrast is judged.
pub(super) const CONTRAST_BORDER: usize = 2;

impl LabelPatches {
    /// The indices of the patches with [`MIN_LABEL_CONTRAST`], and those patches as one batch.
    pub fn readable(&self) -> (Vec<usize>, Array4<f32>) {
        let keep: Vec<usize> = (0..self.contrast.len()).filter(|&i| self.contrast[i] >= MIN_LABEL_CONTRAST).collect();
        (keep.clone(), self.patches.select(ndarray::Axis(0), &keep))
    }
}

/// Cuts the patches of [`label_sites`] from the picture of the board inside `quad`, each
/// stretched to its own grey range (labels are drawn in the opposite square colour, often at low
/// contrast) with a gain of at most 255 / 32. They are sampled from the warp of the board and one
/// square around it (two for the far band; at 64 pixels a square inside the board, 32 outside),
/// only where the patches lie; a patch centred outside the picture is left flat (mid grey,
/// contrast 0).
pub fn label_patches(img: &GrayImage, quad: &Quad) -> LabelPatches {
    let (near, beyond) =
        (label_patches_of(img, quad, 0..FAR_SITES), label_patches_of(img, quad, FAR_SITES..label_sites().len()));
    LabelPatches {
        patches: ndarray::concatenate(ndarray::Axis(0), &[near.patches.view(), beyond.patches.view()])
            .expect("patches of one size"),
        contrast: [near.contrast, beyond.contrast].concat(),
    }
}

/// The patches of the sites `which` (indices into [`label_sites`]) alone, cut as
/// [`label_patches`] cuts them: the inside ones ([`INNER_SITES`]) can be read first, and the
/// outside band only when they do not decide.
pub fn label_patches_of(img: &GrayImage, quad: &Quad, which: std::ops::Range<usize>) -> LabelPatches {
    let h = quad.board_to_image();
    // The warp reaches a square beyond the board, or two for the far band. (Under a steep
    // perspective the far band's ring can reach the horizon when the near one does not.)
    let reach = if which.end > FAR_SITES { 2.0 } else { 1.0 };
    let ring = [(-reach, -reach), (8.0 + reach, -reach), (8.0 + reach, 8.0 + reach), (-reach, 8.0 + reach)];
    let n = LABEL_PX;
    let count = which.len();
    // Under a perspective so steep that the square around the board reaches the horizon, the
    // ring has no picture: nothing can be cut there.
    let hm = &h.0;
    if ring.iter().any(|&(x, y)| hm[6] * x + hm[7] * y + hm[8] <= 1e-9) {
        return LabelPatches { patches: Array4::from_elem((count, 1, n, n), 0.5), contrast: vec![0.0; count] };
    }
    let around = Quad(ring.map(|(x, y)| h.apply(Point::new(x, y))));
    // One warp of the board and a square around it per patch scale (64 px a square inside the
    // board, 32 outside), made when first needed.
    let mut warpers: Vec<(usize, Warper)> = Vec::new();
    let sites = &label_sites()[which];
    let mut data = Vec::with_capacity(sites.len() * n * n);
    let mut contrast = Vec::with_capacity(sites.len());
    let (w, hgt) = (img.width() as f64, img.height() as f64);
    // A site's patch, or `None` when it holds nothing to read.
    let mut cut = |site: &LabelSite| -> Option<Vec<f32>> {
        let c = h.apply(Point::new(site.x + site.side / 2.0, site.y + site.side / 2.0));
        // Outside the board, a site whose centre lies beyond the picture's edge can still hold a
        // label: a narrow margin (python-chess's SVG boards: labels 0.17 squares out, the picture
        // ending at 0.33) shows its label in the part inside, and the picture's edge smeared
        // outwards (the warp clamps) is flat there. Inside the board, or with too little of the
        // patch in the picture, there is nothing to read.
        let beyond = if in_picture(c, w, hgt) {
            None
        } else if site.row.is_some() && site.col.is_some() {
            return None;
        } else {
            let mask = beyond_picture(&h, site, w, hgt);
            let inside = mask.iter().filter(|&&b| !b).count();
            if (inside as f64) < MIN_INSIDE * mask.len() as f64 {
                return None;
            }
            Some(mask)
        };
        let per_square = (n as f64 / site.side).round() as usize;
        let k = match warpers.iter().position(|(s, _)| *s == per_square) {
            Some(k) => k,
            None => {
                let side = ((8.0 + 2.0 * reach) as usize * per_square) as u32;
                warpers.push((per_square, Warper::new(img, &around, side)));
                warpers.len() - 1
            }
        };
        let x0 = ((site.x + reach) * per_square as f64).round() as u32;
        let y0 = ((site.y + reach) * per_square as f64).round() as u32;
        let patch: Vec<f32> = warpers[k].1.block(x0, y0, n as u32, n as u32).into_iter().map(f32::from).collect();
        // A label cut by the picture's edge (or pieces of a board that fills a cropped
        // screenshot) would be smeared into stripes: the part beyond the edge must be flat.
        if beyond.is_some_and(|mask| range_where(&patch, &mask) >= MIN_LABEL_CONTRAST) {
            return None;
        }
        Some(patch)
    };
    for site in sites {
        let Some(patch) = cut(site) else {
            data.extend(std::iter::repeat_n(0.5, n * n));
            contrast.push(0.0);
            continue;
        };
        // Centred on the patch's mid grey: a flat patch is uniform 0.5, a faint one stays faint.
        let lo = patch.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = patch.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let (mid, range) = ((lo + hi) / 2.0, (hi - lo).max(32.0));
        data.extend(patch.iter().map(|&v| (v - mid) / range + 0.5));
        // Contrast is judged inside a 2-pixel border: a patch at the board's edge often catches
        // a sliver of the frame or page there, and no label sits that close to the edge.
        let inner = (CONTRAST_BORDER..n - CONTRAST_BORDER)
            .flat_map(|y| patch[y * n + CONTRAST_BORDER..(y + 1) * n - CONTRAST_BORDER].iter());
        let (lo, hi) = inner.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        contrast.push(hi - lo);
    }
    LabelPatches {
        patches: Array4::from_shape_vec((sites.len(), 1, n, n), data).expect("patch count matches"),
        contrast,
    }
}

/// Whether label site `s` ([`label_sites`]) of the board inside `quad` lies within the label
/// sites of one of `others` (up to 1.56 squares beyond its edge, in its own squares).
pub fn near_another_board(quad: &Quad, s: &LabelSite, others: &[Quad]) -> bool {
    let c = quad.board_to_image().apply(Point::new(s.x + s.side / 2.0, s.y + s.side / 2.0));
    let reach = OUTER_GAP + 2.0 * OUTER;
    others.iter().any(|o| {
        o.board_to_image().inverse().is_some_and(|h| {
            let p = h.apply(c);
            (-reach..8.0 + reach).contains(&p.x) && (-reach..8.0 + reach).contains(&p.y)
        })
    })
}

/// A band with at least this many labels read surely, fewer than half of them where one side
/// puts its labels (in place or a row or column off), is text ([`text_bands`]): a paragraph
/// set under a board puts letters under every file, in no order. (At 4, the printed
/// coordinates of two real photos of a wooden set, read at an angle, counted as text.)
const TEXT_SURE: u32 = 6;

/// The least share of an outside patch, whose centre lies beyond the picture's edge, that must lie
/// inside the picture for it to be read.
pub(super) const MIN_INSIDE: f64 = 0.25;

fn in_picture(p: Point, w: f64, hgt: f64) -> bool {
    (0.0..w).contains(&p.x) && (0.0..hgt).contains(&p.y)
}

/// For each pixel of `site`'s patch (row by row), whether it lies beyond the edge of a `w` x
/// `hgt` picture, through the board-to-image homography `h`.
fn beyond_picture(h: &Homography, site: &LabelSite, w: f64, hgt: f64) -> Vec<bool> {
    let (n, step) = (LABEL_PX, site.side / LABEL_PX as f64);
    (0..n * n)
        .map(|k| {
            let (i, j) = ((k % n) as f64 + 0.5, (k / n) as f64 + 0.5);
            !in_picture(h.apply(Point::new(site.x + i * step, site.y + j * step)), w, hgt)
        })
        .collect()
}

/// The grey-level range of the pixels of `patch` where `mask` is true, or 0 where it is nowhere.
fn range_where(patch: &[f32], mask: &[bool]) -> f32 {
    let (lo, hi) = patch
        .iter()
        .zip(mask)
        .filter(|(_, &m)| m)
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), (&v, _)| (lo.min(v), hi.max(v)));
    if hi >= lo {
        hi - lo
    } else {
        0.0
    }
}

/// Probabilities of [`LABEL_CLASSES`] for one label patch.
pub type LabelProbs = [f32; 17];

/// What the coordinates say.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoordinateReading {
    /// Log-likelihood ratio for White at the bottom from the rank digits (negative: Black).
    pub ranks: f32,
    /// The same from the file letters.
    pub files: f32,
    /// `(dc, dr)`: the labels say that display column `c` of the found board is column `c + dc`
    /// of the true one and row `r` is row `r + dr` (each -1, 0 or 1; non-zero only beyond doubt,
    /// [`SHIFT_EVIDENCE`]). The true board's top-left corner is then at `(-dc, -dr)` in the found
    /// board's squares: a board found a row or column off, as a lattice cut by a hidden row can be.
    pub shift: (i8, i8),
}

/// Evidence needed from the coordinates, in natural-log units, before they decide. Boards without
/// coordinates reached at most 2.3 on 168 rendered boards and 3.0 on realdata-dev's books (text
/// beside a diagram); one clearly read label gives up to 4.
pub const COORDINATE_EVIDENCE: f32 = 5.0;
/// The most one patch can add, so that one confident misread cannot outvote the rest.
pub(super) const PATCH_CAP: f32 = 4.0;
/// The chance that a site shows a label other than the one a side predicts (a misread, or text
/// beside the board), so that no single patch rules a side out.
pub(super) const STRAY: f32 = 0.02;
impl CoordinateReading {
    /// The total evidence for White at the bottom.
    pub fn total(&self) -> f32 {
        self.ranks + self.files
    }

    /// The orientation the coordinates show with its confidence, or `None` when they are too
    /// faint to tell (or absent). On a board with reversed files the ranks decide.
    pub fn orientation(&self) -> Option<(Orientation, f32)> {
        let t = if self.files_reversed() { self.ranks } else { self.total() };
        if t.abs() < COORDINATE_EVIDENCE {
            return None;
        }
        let o = if t > 0.0 { Orientation::White } else { Orientation::Black };
        Some((o, 1.0 / (1.0 + (-t.abs()).exp())))
    }

    /// True when ranks and files each say a different side, both beyond doubt: a board drawn with
    /// its files reversed (a mirrored diagram). Mirrored diagrams are rare and a few misread
    /// small labels can pull one way, so this needs three times the evidence that decides a side.
    pub fn files_reversed(&self) -> bool {
        let sure = 3.0 * COORDINATE_EVIDENCE;
        self.ranks.abs() >= sure && self.files.abs() >= sure && (self.ranks > 0.0) != (self.files > 0.0)
    }
}

/// Class of the label side `o` (0: White at the bottom, 1: Black) puts at true row `r` (a digit),
/// if the row is on the board.
pub(super) fn digit(o: usize, r: i32) -> Option<usize> {
    (0..8).contains(&r).then(|| if o == 0 { 8 - r as usize } else { r as usize + 1 })
}

/// The same for true column `c` (a letter).
pub(super) fn letter(o: usize, c: i32) -> Option<usize> {
    (0..8).contains(&c).then(|| if o == 0 { 9 + c as usize } else { 16 - c as usize })
}

/// The band outside the board (0 left, 1 right, 2 above, 3 below) that [`label_sites`] entry `i`
/// lies in, or `None` for a site inside the board.
pub(super) fn outer_band(i: usize) -> Option<usize> {
    (i >= INNER_SITES).then(|| (i - INNER_SITES) % 4)
}

/// A patch read as a label at least this surely counts in [`text_bands`].
pub(super) const SURE_LABEL: f32 = 0.5;

/// The label class (1-16) a patch is surely read as ([`SURE_LABEL`]), if any.
fn sure_label(p: &LabelProbs) -> Option<usize> {
    let (class, surely) = p.iter().enumerate().skip(1).fold((0, 0.0), |a, (k, &v)| if v > a.1 { (k, v) } else { a });
    (surely >= SURE_LABEL).then_some(class)
}

/// The label an outside `site` holds on a board shown from side `o` (0 White, 1 Black) and
/// found `d` rows or columns off; `None` for a site inside the board or beyond its 8 rows.
fn label_there(site: &LabelSite, o: usize, d: i32) -> Option<usize> {
    match (site.row, site.col) {
        (Some(r), None) => digit(o, r as i32 + d),
        (None, Some(c)) => letter(o, c as i32 + d),
        _ => None,
    }
}

/// Which sides of the far band ([`label_sites`], left, right, above, below) hold a row of labels.
/// Further out than a board's own coordinates usually stand lies what a page sets beside its
/// diagram (a caption below it, "6. Black to move", whose letters would read as files): a far
/// side counts only when at least [`FAR_MIN_LABELS`] of its patches are surely read as the labels
/// one side puts there, in place, and those are at least three quarters of its sure readings.
pub(super) fn far_label_bands(sites: &[LabelSite], probs: &[LabelProbs]) -> [bool; 4] {
    let (mut sure, mut fit) = ([0u32; 4], [[0u32; 2]; 4]);
    for (i, (site, p)) in sites.iter().zip(probs).enumerate().skip(FAR_SITES) {
        let band = (i - INNER_SITES) % 4;
        let Some(class) = sure_label(p) else { continue };
        sure[band] += 1;
        for (o, fits) in fit[band].iter_mut().enumerate() {
            *fits += u32::from(label_there(site, o, 0) == Some(class));
        }
    }
    std::array::from_fn(|b| {
        let best = fit[b][0].max(fit[b][1]);
        best >= FAR_MIN_LABELS && 4 * best >= 3 * sure[b]
    })
}

/// See [`far_label_bands`].
pub(super) const FAR_MIN_LABELS: u32 = 4;

/// Which of the four bands outside the board (left, right, above, below, in [`label_sites`]'
/// order) hold text rather than coordinates. Text set beside a board (a move list, a paragraph, a
/// caption) puts letters and digits where the bands look for labels, and the few that happen to
/// read as one side's labels would decide the board's orientation. Coordinates never put a letter
/// beside a rank nor a digit beside a file: a band is text when two or more of its patches are
/// surely read as the wrong kind of label, and no more of them are the labels one side puts
/// there, in place or one row or column off (a board found a row off). The coordinate model
/// confuses digits with digits far more often than with letters (a faint 3, 5 or 6 read as 8), so
/// a band of misread digits stays coordinates. A band is text too when it holds [`TEXT_SURE`]
/// labels read surely or more and fewer than half of them are where one side puts them (a line
/// of prose under the board: letters under the files, in no order).
pub(super) fn text_bands(sites: &[LabelSite], probs: &[LabelProbs]) -> [bool; 4] {
    let mut wrong_kind = [0u32; 4];
    let mut sure = [0u32; 4];
    // Per band, readings that fit each (side, offset).
    let mut fit = [[[0u32; 3]; 2]; 4];
    for (i, (site, p)) in sites.iter().zip(probs).enumerate() {
        let Some(band) = outer_band(i) else { continue };
        let Some(class) = sure_label(p) else { continue };
        sure[band] += 1;
        let is_digit = (1..=8).contains(&class);
        if site.row.is_some() != is_digit {
            wrong_kind[band] += 1;
        }
        for (o, d) in (0..2).flat_map(|o| (-1..=1).map(move |d| (o, d))) {
            if label_there(site, o, d) == Some(class) {
                fit[band][o][(d + 1) as usize] += 1;
            }
        }
    }
    std::array::from_fn(|b| {
        let best = fit[b].iter().flatten().copied().max().unwrap_or(0);
        (wrong_kind[b] >= 2 && wrong_kind[b] >= best) || (sure[b] >= TEXT_SURE && 2 * best < sure[b])
    })
}

/// Weighs the label readings of [`label_sites`] (one row per site, same order) for White or Black
/// at the bottom.
///
/// Under each side, a site shows either nothing or the label that side puts there, so its
/// likelihood is `P(nothing) + P(that label) + STRAY`. A patch the model reads as nothing, or as
/// some third label, then weighs the same under both sides: what the model half-sees in a piece or
/// in text cannot add up to evidence over many patches. A band outside the board that reads as
/// text (`text_bands`) is left out: there, a third label read surely leaves the ratio to the
/// two sides' small probabilities, which then decides by chance.
pub fn from_coordinates(probs: &[LabelProbs]) -> CoordinateReading {
    let llr = |p: &LabelProbs, w: usize, b: usize| {
        ((p[0] + p[w] + STRAY) / (p[0] + p[b] + STRAY)).ln().clamp(-PATCH_CAP, PATCH_CAP)
    };
    let (mut ranks, mut files) = (0.0, 0.0);
    // Log-likelihood of every (side, offset) for the ranks and for the files: [side][offset + 1].
    let (mut row_ll, mut col_ll) = ([[0f32; 3]; 2], [[0f32; 3]; 2]);
    let ll = |p: &LabelProbs, class: Option<usize>| (p[0] + class.map_or(0.0, |k| p[k]) + STRAY).ln();
    let sites = label_sites();
    let text = text_bands(&sites, probs);
    let far_labels = far_label_bands(&sites, probs);
    for (i, (site, p)) in sites.iter().zip(probs).enumerate() {
        if outer_band(i).is_some_and(|b| text[b] || (i >= FAR_SITES && !far_labels[b])) {
            continue;
        }
        if let Some(r) = site.row {
            ranks += llr(p, 8 - r as usize, r as usize + 1);
            for (o, d) in (0..2).flat_map(|o| (-1..=1).map(move |d| (o, d))) {
                row_ll[o][(d + 1) as usize] += ll(p, digit(o, r as i32 + d));
            }
        }
        if let Some(c) = site.col {
            files += llr(p, 9 + c as usize, 16 - c as usize);
            for (o, d) in (0..2).flat_map(|o| (-1..=1).map(move |d| (o, d))) {
                col_ll[o][(d + 1) as usize] += ll(p, letter(o, c as i32 + d));
            }
        }
    }
    // An offset counts when its best side beats the best side in place by SHIFT_EVIDENCE.
    let offset = |t: [[f32; 3]; 2]| {
        let in_place = t[0][1].max(t[1][1]);
        [-1i8, 1]
            .into_iter()
            .map(|d| (d, t[0][(d + 1) as usize].max(t[1][(d + 1) as usize])))
            .filter(|&(_, v)| v - in_place >= SHIFT_EVIDENCE)
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map_or(0, |(d, _)| d)
    };
    CoordinateReading { ranks, files, shift: (offset(col_ll), offset(row_ll)) }
}

/// The board `shift` ([`CoordinateReading::shift`]) says lies beside the one inside `quad`.
pub fn shifted(quad: &Quad, shift: (i8, i8)) -> Quad {
    let h = quad.board_to_image();
    let (x, y) = (-shift.0 as f64, -shift.1 as f64);
    Quad([(x, y), (x + 8.0, y), (x + 8.0, y + 8.0), (x, y + 8.0)].map(|(u, v)| h.apply(Point::new(u, v))))
}

/// How much better the labels must fit a board one row or column off than the found one before
/// the board is moved: about three clearly read labels.
pub const SHIFT_EVIDENCE: f32 = 10.0;
