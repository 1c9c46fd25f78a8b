//! Step 4: decide which side is at the bottom of the picture and turn the displayed grid into
//! a board seen from White.
//!
//! The first witness is the coordinates drawn at the board's edge. [`label_patches`] cuts small
//! patches where boards put them: the corners of the 28 edge squares next to the board's edge
//! (lichess, chess.com and most apps draw them there) and a band one square wide around the board
//! (books, ChessBase). A small ONNX model reads each patch as a rank digit, a file letter or
//! nothing ([`LABEL_CLASSES`]), and [`from_coordinates`] weighs every reading against the two
//! ways the board can face. A digit `d` read in display row `r` says White is at the bottom when
//! `r == 8 - d` and Black when `r == d - 1`; a letter in display column `c` says White when it is
//! the `c`-th letter and Black when it is the `(7 - c)`-th. No position is both, so every read
//! label is evidence, wherever it sits. The training patches are cut by the same functions
//! (`img2fen dataset --labels`).
//!
//! Without readable coordinates, [`from_pieces`] decides from where the pieces stand.

use std::sync::OnceLock;

use image::GrayImage;
use ndarray::Array4;
use shakmaty::{Board, Color, File, Piece, Rank, Role, Square};

use crate::geometry::{Point, Quad};
use crate::warp::Warper;

/// Which side's pieces start at the bottom of the picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Orientation {
    /// White at the bottom: the bottom-left square is a1.
    White,
    /// Black at the bottom: the bottom-left square is h8.
    Black,
}

impl Orientation {
    /// The name the CLI and JSON use: `white` or `black`.
    pub fn name(self) -> &'static str {
        match self {
            Orientation::White => "white",
            Orientation::Black => "black",
        }
    }
}

/// What decided the orientation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrientationSource {
    /// Rank and file labels drawn at the board's edge.
    Coordinates,
    /// Where the pieces stand (pawn direction, kings, development).
    Pieces,
    /// The user said so (`--orientation`).
    Flag,
}

impl OrientationSource {
    /// The name the CLI and JSON use.
    pub fn name(self) -> &'static str {
        match self {
            OrientationSource::Coordinates => "coordinates",
            OrientationSource::Pieces => "pieces",
            OrientationSource::Flag => "flag",
        }
    }
}

/// Side of one label patch in pixels, the coordinate model's input.
pub const LABEL_PX: usize = 24;
/// Label patches inside the board: this fraction of a square (64 px a square), in a corner of an
/// edge square.
const INNER: f64 = 0.375;
/// Label patches outside the board: this much of a square (32 px a square).
const OUTER: f64 = 0.75;
/// Gap between the board's edge and an outside patch, in squares.
const OUTER_GAP: f64 = 0.0625;

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
/// edge ([`INNER_SITES`]), then the outside band left, right, above and below (4 x 8).
pub fn label_sites() -> Vec<LabelSite> {
    let mut sites = Vec::with_capacity(92);
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
    for k in 0..8u8 {
        let along = k as f64 + across;
        sites.push(LabelSite { x: -OUTER_GAP - OUTER, y: along, side: OUTER, row: Some(k), col: None });
        sites.push(LabelSite { x: 8.0 + OUTER_GAP, y: along, side: OUTER, row: Some(k), col: None });
        sites.push(LabelSite { x: along, y: -OUTER_GAP - OUTER, side: OUTER, row: None, col: Some(k) });
        sites.push(LabelSite { x: along, y: 8.0 + OUTER_GAP, side: OUTER, row: None, col: Some(k) });
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
const CONTRAST_BORDER: usize = 2;

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
/// square around it (at 64 pixels a square inside the board, 32 outside), only where the patches
/// lie; a patch centred outside the picture is left flat (mid grey, contrast 0).
pub fn label_patches(img: &GrayImage, quad: &Quad) -> LabelPatches {
    label_patches_of(img, quad, 0..label_sites().len())
}

/// The patches of the sites `which` (indices into [`label_sites`]) alone, cut as
/// [`label_patches`] cuts them: the inside ones ([`INNER_SITES`]) can be read first, and the
/// outside band only when they do not decide.
pub fn label_patches_of(img: &GrayImage, quad: &Quad, which: std::ops::Range<usize>) -> LabelPatches {
    let h = quad.board_to_image();
    let ring = [(-1.0, -1.0), (9.0, -1.0), (9.0, 9.0), (-1.0, 9.0)];
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
    for site in sites {
        // A site whose centre lies outside the picture (a board that fills a cropped screenshot)
        // shows only the picture's edge pixels smeared outwards: nothing to read, nothing to cut.
        let c = h.apply(Point::new(site.x + site.side / 2.0, site.y + site.side / 2.0));
        if !(0.0..w).contains(&c.x) || !(0.0..hgt).contains(&c.y) {
            data.extend(std::iter::repeat_n(0.5, n * n));
            contrast.push(0.0);
            continue;
        }
        let per_square = (n as f64 / site.side).round() as usize;
        let k = match warpers.iter().position(|(s, _)| *s == per_square) {
            Some(k) => k,
            None => {
                warpers.push((per_square, Warper::new(img, &around, (10 * per_square) as u32)));
                warpers.len() - 1
            }
        };
        let x0 = ((site.x + 1.0) * per_square as f64).round() as u32;
        let y0 = ((site.y + 1.0) * per_square as f64).round() as u32;
        let patch: Vec<f32> = warpers[k].1.block(x0, y0, n as u32, n as u32).into_iter().map(f32::from).collect();
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
const PATCH_CAP: f32 = 4.0;
/// The chance that a site shows a label other than the one a side predicts (a misread, or text
/// beside the board), so that no single patch rules a side out.
const STRAY: f32 = 0.02;
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
fn digit(o: usize, r: i32) -> Option<usize> {
    (0..8).contains(&r).then(|| if o == 0 { 8 - r as usize } else { r as usize + 1 })
}

/// The same for true column `c` (a letter).
fn letter(o: usize, c: i32) -> Option<usize> {
    (0..8).contains(&c).then(|| if o == 0 { 9 + c as usize } else { 16 - c as usize })
}

/// The band outside the board (0 left, 1 right, 2 above, 3 below) that [`label_sites`] entry `i`
/// lies in, or `None` for a site inside the board.
fn outer_band(i: usize) -> Option<usize> {
    (i >= INNER_SITES).then(|| (i - INNER_SITES) % 4)
}

/// A patch read as a label at least this surely counts in [`text_bands`].
const SURE_LABEL: f32 = 0.5;

/// Which of the four bands outside the board (left, right, above, below, in [`label_sites`]'
/// order) hold text rather than coordinates. Text set beside a board (a move list, a paragraph, a
/// caption) puts letters and digits where the bands look for labels, and the few that happen to
/// read as one side's labels would decide the board's orientation. Coordinates never put a letter
/// beside a rank nor a digit beside a file: a band is text when two or more of its patches are
/// surely read as the wrong kind of label, and no more of them are the labels one side puts
/// there, in place or one row or column off (a board found a row off). The coordinate model
/// confuses digits with digits far more often than with letters (a faint 3, 5 or 6 read as 8), so
/// a band of misread digits stays coordinates.
fn text_bands(sites: &[LabelSite], probs: &[LabelProbs]) -> [bool; 4] {
    let mut wrong_kind = [0u32; 4];
    // Per band, readings that fit each (side, offset).
    let mut fit = [[[0u32; 3]; 2]; 4];
    for (i, (site, p)) in sites.iter().zip(probs).enumerate() {
        let Some(band) = outer_band(i) else { continue };
        let (class, sure) = p.iter().enumerate().skip(1).fold((0, 0.0), |a, (k, &v)| if v > a.1 { (k, v) } else { a });
        if sure < SURE_LABEL {
            continue;
        }
        let is_digit = (1..=8).contains(&class);
        if site.row.is_some() != is_digit {
            wrong_kind[band] += 1;
        }
        for (o, d) in (0..2).flat_map(|o| (-1..=1).map(move |d| (o, d))) {
            let expected = match (site.row, site.col) {
                (Some(r), None) => digit(o, r as i32 + d),
                (None, Some(c)) => letter(o, c as i32 + d),
                _ => None,
            };
            if expected == Some(class) {
                fit[band][o][(d + 1) as usize] += 1;
            }
        }
    }
    std::array::from_fn(|b| {
        let best = fit[b].iter().flatten().copied().max().unwrap_or(0);
        wrong_kind[b] >= 2 && wrong_kind[b] >= best
    })
}

/// Weighs the label readings of [`label_sites`] (one row per site, same order) for White or Black
/// at the bottom.
///
/// Under each side, a site shows either nothing or the label that side puts there, so its
/// likelihood is `P(nothing) + P(that label) + STRAY`. A patch the model reads as nothing, or as
/// some third label, then weighs the same under both sides: what the model half-sees in a piece or
/// in text cannot add up to evidence over many patches. A band outside the board that reads as
/// text ([`text_bands`]) is left out: there, a third label read surely leaves the ratio to the
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
    for (i, (site, p)) in sites.iter().zip(probs).enumerate() {
        if outer_band(i).is_some_and(|b| text[b]) {
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

/// The square shown at display position `index` (row by row from the top left).
pub fn square_at(index: usize, orientation: Orientation) -> Square {
    let (row, col) = ((index / 8) as u32, (index % 8) as u32);
    match orientation {
        Orientation::White => Square::from_coords(File::new(col), Rank::new(7 - row)),
        Orientation::Black => Square::from_coords(File::new(7 - col), Rank::new(row)),
    }
}

/// The square shown at display position `index` on a board whose files run the other way than
/// its ranks say when `files_reversed` (a mirrored diagram: h to a under White's ranks).
pub fn square_shown(index: usize, orientation: Orientation, files_reversed: bool) -> Square {
    let sq = square_at(index, orientation);
    if files_reversed {
        sq.flip_horizontal()
    } else {
        sq
    }
}

/// The board seen from White, from the 64 displayed cells.
pub fn to_board(displayed: &[Option<Piece>; 64], orientation: Orientation, files_reversed: bool) -> Board {
    let mut board = Board::empty();
    for (i, p) in displayed.iter().enumerate() {
        if let Some(p) = p {
            board.set_piece_at(square_shown(i, orientation, files_reversed), *p);
        }
    }
    board
}

/// Whether the displayed pieces could come from a game, allowing for a misread square or two, by
/// counts that do not depend on the orientation: at most two kings, ten pawns and eighteen pieces
/// a side (a game has one, eight and sixteen), and no more than one of the oddities a game never
/// shows, a second king of a side or a pawn on the top or bottom row, among the squares the model
/// is `sure` of ([`SURE_ODDITY`]). A board editor's random layout is not, and where its pieces
/// stand says nothing of which side is at the bottom.
pub fn game_like(displayed: &[Option<Piece>; 64], sure: &[bool; 64]) -> bool {
    let count = |c: Color, role: Option<Role>, only_sure: bool| {
        (0..64)
            .filter(|&i| {
                displayed[i].is_some_and(|p| p.color == c && role.is_none_or(|r| p.role == r))
                    && (sure[i] || !only_sure)
            })
            .count()
    };
    let counts_fit = Color::ALL.iter().all(|&c| {
        count(c, Some(Role::King), false) <= 2 && count(c, Some(Role::Pawn), false) <= 10 && count(c, None, false) <= 18
    });
    let second_kings: usize = Color::ALL.iter().map(|&c| count(c, Some(Role::King), true).saturating_sub(1)).sum();
    let edge_pawns =
        (0..8).chain(56..64).filter(|&i| sure[i] && displayed[i].is_some_and(|p| p.role == Role::Pawn)).count();
    counts_fit && second_kings + edge_pawns <= 1
}

/// How sure the model must be of a square for [`game_like`] to count an oddity there: on a piece
/// design it has not seen, a rook read as a pawn on the back row is a misread (at 50-80%), not a
/// sign of a board editor's layout (read at 99%).
pub const SURE_ODDITY: f32 = 0.9;

/// The features [`from_pieces`] weighs, in the order of `models/orientation_weights.json`. Each is
/// a count over the displayed board that changes sign when the board is turned round, positive
/// when it says White is at the bottom.
pub const PIECE_FEATURES: [&str; 7] =
    ["pawn_height", "king_height", "piece_height", "pawns_facing", "pawns_diagonal", "pawns_home", "kings_home"];

/// Computes [`PIECE_FEATURES`] (as `scripts/fit_orientation.py` does, which fits their weights):
///
/// - `pawn_height`, `king_height`, `piece_height`: White's pawns (kings, other pieces) minus
///   Black's, each by its height from -1 on the top row to +1 on the bottom row;
/// - `pawns_facing`, `pawns_diagonal`: pairs of a White and a Black pawn on the same (adjacent)
///   file, +1 when White's stands lower, -1 when higher: pawns meet head on from their own sides;
/// - `pawns_home`: pawns on their own side's second row, White's second from the bottom and
///   Black's second from the top, minus pawns on the other side's;
/// - `kings_home`: kings on their own side's back row minus kings on the other's.
pub fn piece_features(displayed: &[Option<Piece>; 64]) -> [f32; 7] {
    let mut f = [0f32; 7];
    let height = |row: usize| (row as f32 - 3.5) / 3.5;
    let pawns = |c: Color| -> Vec<(usize, usize)> {
        (0..64)
            .filter(|&i| displayed[i] == Some(Piece { color: c, role: Role::Pawn }))
            .map(|i| (i / 8, i % 8))
            .collect()
    };
    let (white_pawns, black_pawns) = (pawns(Color::White), pawns(Color::Black));
    for (i, p) in displayed.iter().enumerate() {
        let Some(p) = p else { continue };
        let row = i / 8;
        let sign = if p.color == Color::White { 1.0 } else { -1.0 };
        let k = match p.role {
            Role::Pawn => 0,
            Role::King => 1,
            _ => 2,
        };
        f[k] += sign * height(row);
        if p.role == Role::King {
            let home = if p.color == Color::White { 7 } else { 0 };
            f[6] += f32::from(row == home) - f32::from(row == 7 - home);
        }
    }
    for &(wr, wc) in &white_pawns {
        for &(br, bc) in &black_pawns {
            let order = f32::from(wr > br) - f32::from(wr < br);
            match wc.abs_diff(bc) {
                0 => f[3] += order,
                1 => f[4] += order,
                _ => {}
            }
        }
    }
    let on_row = |pawns: &[(usize, usize)], row: usize| pawns.iter().filter(|&&(r, _)| r == row).count() as f32;
    f[5] = on_row(&white_pawns, 6) - on_row(&white_pawns, 1) + on_row(&black_pawns, 1) - on_row(&black_pawns, 6);
    f
}

/// The weights of [`PIECE_FEATURES`], fitted by `scripts/fit_orientation.py` on real positions, and
/// the prior log-odds for White at the bottom (books print diagrams from White's side and most
/// screens show the user's side as White), built in from `models/orientation_weights.json`.
fn piece_weights() -> &'static ([f32; 7], f32) {
    static WEIGHTS: OnceLock<([f32; 7], f32)> = OnceLock::new();
    WEIGHTS.get_or_init(|| {
        let json: serde_json::Value = serde_json::from_str(include_str!("../models/orientation_weights.json"))
            .expect("models/orientation_weights.json is valid JSON");
        let names: Vec<&str> =
            json["features"].as_array().expect("features").iter().filter_map(|v| v.as_str()).collect();
        assert_eq!(names, PIECE_FEATURES, "models/orientation_weights.json was fitted on other features");
        let w: Vec<f32> =
            json["weights"].as_array().expect("weights").iter().filter_map(|v| v.as_f64()).map(|v| v as f32).collect();
        let prior = json["white_prior"].as_f64().expect("white_prior") as f32;
        (w.try_into().expect("one weight per feature"), prior)
    })
}

/// How much coordinates too faint to decide alone (under [`COORDINATE_EVIDENCE`]) count beside
/// the pieces: their log-likelihood ratio is added to the pieces' log-odds as it is. Weights of
/// 0, 0.5, 0.7 and 1 were measured on two sets of rendered boards with coordinates (README
/// "Orientation on rendered boards"); 1 got the most right on both.
pub const FAINT_COORDINATE_WEIGHT: f32 = 1.0;

/// Guesses the orientation from where the pieces stand, with a confidence in `[0.5, 1]`
/// ([`from_pieces_and_coordinates`] without coordinates).
pub fn from_pieces(displayed: &[Option<Piece>; 64]) -> (Orientation, f32) {
    let (o, _, conf) = from_pieces_and_coordinates(displayed, &[true; 64], None);
    (o, conf)
}

/// Decides the orientation from the pieces and from coordinates too faint to decide alone, with
/// the witness that weighed most and a confidence in `[0.5, 1]`.
///
/// The log-odds of White at the bottom are the sum of:
/// - the prior (most pictures show White at the bottom);
/// - the weighted [`piece_features`], whose weights come from a logistic regression on real
///   positions shown both ways up. A layout that is not [`game_like`] (judged on the `sure`
///   squares) adds nothing: where a board editor's random pieces stand says nothing of the side
///   at the bottom;
/// - the coordinates' evidence times [`FAINT_COORDINATE_WEIGHT`].
///
/// On games the fit never saw, the pieces alone get 99.6% of positions from played games and 97.2%
/// of those with two pawns or more right; boards with fewer pawns carry little evidence and get
/// the prior, unless faint labels say otherwise.
pub fn from_pieces_and_coordinates(
    displayed: &[Option<Piece>; 64],
    sure: &[bool; 64],
    coords: Option<&CoordinateReading>,
) -> (Orientation, OrientationSource, f32) {
    let (weights, prior) = piece_weights();
    let pieces = if game_like(displayed, sure) {
        piece_features(displayed).iter().zip(weights).map(|(x, w)| x * w).sum::<f32>()
    } else {
        0.0
    };
    let labels = coords.map_or(0.0, |c| FAINT_COORDINATE_WEIGHT * c.total());
    let score = prior + pieces + labels;
    let orientation = if score < 0.0 { Orientation::Black } else { Orientation::White };
    // The labels are the witness when they point the chosen way and outweigh the prior and the
    // pieces together.
    let source = if labels != 0.0 && (labels < 0.0) == (score < 0.0) && labels.abs() > (prior + pieces).abs() {
        OrientationSource::Coordinates
    } else {
        OrientationSource::Pieces
    };
    (orientation, source, 1.0 / (1.0 + (-score.abs()).exp()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn displayed_from(fen: &str, o: Orientation) -> [Option<Piece>; 64] {
        let board = fen.parse::<Fen>().unwrap().into_setup().board;
        std::array::from_fn(|i| board.piece_at(square_at(i, o)))
    }

    #[test]
    fn squares_map_both_ways() {
        assert_eq!(square_at(0, Orientation::White), Square::A8);
        assert_eq!(square_at(63, Orientation::White), Square::H1);
        assert_eq!(square_at(0, Orientation::Black), Square::H1);
        assert_eq!(square_at(56, Orientation::Black), Square::H8);
    }

    #[test]
    fn label_sites_touch_the_edge_and_are_distinct() {
        let sites = label_sites();
        assert_eq!(sites.len(), INNER_SITES + 32);
        assert!(sites[..INNER_SITES].iter().all(|s| s.row.is_some() && s.col.is_some()));
        for (i, a) in sites.iter().enumerate() {
            assert!(sites[i + 1..].iter().all(|b| (a.x, a.y) != (b.x, b.y)), "{a:?} twice");
            // Every site lies within the label picture (one square around the board).
            assert!(a.x >= -1.0 && a.y >= -1.0 && a.x + a.side <= 9.0 && a.y + a.side <= 9.0, "{a:?}");
            let inside = a.x >= 0.0 && a.x + a.side <= 8.0 && a.y >= 0.0 && a.y + a.side <= 8.0;
            assert_eq!(inside, a.row.is_some() && a.col.is_some(), "{a:?}");
            if inside {
                let touches = a.x == 0.0 || a.y == 0.0 || a.x + a.side == 8.0 || a.y + a.side == 8.0;
                assert!(touches, "{a:?} is not at the board's edge");
            }
        }
    }

    /// Label probabilities for a board whose coordinates are drawn as a board shown from
    /// `ranks_from`'s side for the digits and `files_from`'s side for the letters, read with
    /// probability `p` (the rest spread over the other classes).
    fn drawn(ranks_from: Orientation, files_from: Orientation, p: f32) -> Vec<LabelProbs> {
        drawn_off(ranks_from, files_from, p, 0)
    }

    /// The same on a board found `dr` rows off: found row `r` shows the label of true row `r + dr`.
    fn drawn_off(ranks_from: Orientation, files_from: Orientation, p: f32, dr: i32) -> Vec<LabelProbs> {
        label_sites()
            .iter()
            .map(|s| {
                let mut probs = [(1.0 - p) / 16.0; 17];
                // chess.com style: digits top left of the left file, letters bottom right of the bottom rank.
                let class = match (s.row, s.col) {
                    (Some(r), Some(0)) if s.x == 0.0 && s.y.fract() == 0.0 && (0..8).contains(&(r as i32 + dr)) => {
                        let r = (r as i32 + dr) as usize;
                        Some(if ranks_from == Orientation::White { 8 - r } else { r + 1 })
                    }
                    (Some(7), Some(c)) if s.y > 7.5 && s.x.fract() > 0.5 => {
                        let c = c as usize;
                        Some(if files_from == Orientation::White { 9 + c } else { 16 - c })
                    }
                    _ => None,
                };
                probs[class.unwrap_or(0)] = p;
                probs
            })
            .collect()
    }

    #[test]
    fn coordinates_tell_the_side_at_the_bottom() {
        for o in [Orientation::White, Orientation::Black] {
            let reading = from_coordinates(&drawn(o, o, 0.9));
            let (got, conf) = reading.orientation().expect("clear coordinates decide");
            assert_eq!(got, o);
            assert!(conf > 0.99);
            assert!(!reading.files_reversed());
        }
        for o in [Orientation::White, Orientation::Black] {
            assert_eq!(from_coordinates(&drawn(o, o, 0.9)).shift, (0, 0));
        }
        // A board found one row too low (its labels one row up) or too high.
        for dr in [-1, 1] {
            for o in [Orientation::White, Orientation::Black] {
                assert_eq!(from_coordinates(&drawn_off(o, o, 0.9, dr)).shift, (0, dr as i8), "{o:?} {dr}");
            }
        }
        let mirrored = from_coordinates(&drawn(Orientation::White, Orientation::Black, 0.9));
        assert!(mirrored.files_reversed());
        assert_eq!(mirrored.orientation().map(|o| o.0), Some(Orientation::White));
        // Ranks that lean the other way by a few misread labels do not make a mirror.
        let unsure = CoordinateReading { ranks: -6.0, files: 9.0, shift: (0, 0) };
        assert!(!unsure.files_reversed());
        assert_eq!(unsure.orientation(), None);
    }

    /// Label probabilities with nothing read anywhere except `reads`: (site, class) read at 0.9.
    fn read_at(reads: &[(usize, usize)]) -> Vec<LabelProbs> {
        let mut probs = vec![[0.0; 17]; label_sites().len()];
        probs.iter_mut().for_each(|p| p[0] = 1.0);
        for &(site, class) in reads {
            probs[site] = [0.1 / 16.0; 17];
            probs[site][class] = 0.9;
        }
        probs
    }

    #[test]
    fn text_beside_the_board_is_not_coordinates() {
        // The band right of the board (site INNER_SITES + 4k + 1 at row k) holds the first letters
        // of lines of text: g, h, a, 7, 7, 8. Rows 6 and 7 happen to read as Black's labels 7 and 8.
        let right = |k: usize| INNER_SITES + 4 * k + 1;
        let text = [(right(0), 15), (right(1), 16), (right(3), 9), (right(5), 7), (right(6), 7), (right(7), 8)];
        let reading = from_coordinates(&read_at(&text));
        assert_eq!(reading.orientation(), None, "{reading:?}");
        // Ranks 8 to 1 down the left band (sites INNER_SITES + 4k), two of them misread as
        // letters, still decide.
        let left = |k: usize| INNER_SITES + 4 * k;
        let mut labels: Vec<(usize, usize)> = (0..8).map(|k| (left(k), 8 - k)).collect();
        labels[2].1 = 10;
        labels[5].1 = 12;
        let reading = from_coordinates(&read_at(&labels));
        assert_eq!(reading.orientation().map(|o| o.0), Some(Orientation::White), "{reading:?}");
        // Faint digits misread as other digits (a green 3, 5 and 6 read as 8, as on a
        // cm-chessboard screenshot from Black's side) stay coordinates.
        let faint = [(left(0), 1), (left(2), 8), (left(3), 4), (left(4), 8), (left(5), 8), (left(6), 7), (left(7), 8)];
        let reading = from_coordinates(&read_at(&faint));
        assert_eq!(reading.orientation().map(|o| o.0), Some(Orientation::Black), "{reading:?}");
        // The same labels one row off (a board found a row too low) are not taken for text.
        let off: Vec<(usize, usize)> = (1..8).map(|k| (left(k), 9 - k)).collect();
        assert_eq!(from_coordinates(&read_at(&off)).shift, (0, -1));
    }

    #[test]
    fn patches_with_nothing_readable_do_not_decide() {
        // Every patch unsure among all classes: no evidence either way.
        let flat = vec![[1.0 / 17.0; 17]; label_sites().len()];
        let reading = from_coordinates(&flat);
        assert_eq!(reading.total(), 0.0);
        assert_eq!(reading.orientation(), None);
        // One confident misread label is capped and cannot decide alone.
        let mut one = flat.clone();
        one[0] = [0.0; 17];
        one[0][1] = 1.0; // "1" at a8's corner: Black at the bottom
        assert!(from_coordinates(&one).orientation().is_none());
    }

    #[test]
    fn a_ring_past_the_horizon_gives_flat_patches() {
        // The top edge is 10 px wide, the bottom 200: the sides meet just above the board, and a
        // square beyond the top edge lies past the horizon.
        let img = GrayImage::from_pixel(300, 300, image::Luma([128]));
        let quad =
            Quad([Point::new(95.0, 100.0), Point::new(105.0, 100.0), Point::new(200.0, 200.0), Point::new(0.0, 200.0)]);
        let cut = label_patches(&img, &quad);
        assert_eq!(cut.patches.shape(), &[92, 1, LABEL_PX, LABEL_PX]);
        assert!(cut.contrast.iter().all(|&c| c == 0.0));
        assert!(cut.readable().0.is_empty());
    }

    #[test]
    fn label_patches_are_cut_where_the_sites_are() {
        // A white 8-square board of 40 px squares at (60, 60) with one black mark at the centre of
        // the a8 square's top-left label patch and one left of rank 8 outside.
        let sq = 40.0;
        let mut img = GrayImage::from_pixel(440, 440, image::Luma([255]));
        let sites = label_sites();
        let outside_left = sites.iter().position(|s| s.row == Some(0) && s.col.is_none() && s.x < 0.0).unwrap();
        for s in [sites[0], sites[outside_left]] {
            let (cx, cy) = (60.0 + (s.x + s.side / 2.0) * sq, 60.0 + (s.y + s.side / 2.0) * sq);
            for y in (cy - 3.0) as u32..(cy + 3.0) as u32 {
                for x in (cx - 3.0) as u32..(cx + 3.0) as u32 {
                    img.put_pixel(x, y, image::Luma([0]));
                }
            }
        }
        let cut = label_patches(&img, &Quad::rect(60.0, 60.0, 380.0, 380.0));
        let patches = &cut.patches;
        assert_eq!(patches.shape(), &[92, 1, LABEL_PX, LABEL_PX]);
        // Only the two marked patches are worth the model's time.
        let (readable, batch) = cut.readable();
        assert_eq!(readable, [0, outside_left]);
        assert_eq!(batch.shape(), &[2, 1, LABEL_PX, LABEL_PX]);
        let c = LABEL_PX / 2;
        for i in 0..sites.len() {
            let marked = i == 0 || i == outside_left;
            let centre = patches[[i, 0, c, c]];
            assert_eq!(centre < 0.5, marked, "patch {i}");
        }
    }

    #[test]
    fn a_board_editors_layout_gets_the_prior() {
        // Sixteen kings a side, Black's at the bottom: no game, so no piece evidence.
        let d = displayed_from("KKKKKKKK/KKKKKKKK/8/8/8/8/kkkkkkkk/kkkkkkkk w - - 0 1", Orientation::White);
        assert!(!game_like(&d, &[true; 64]));
        let prior = piece_weights().1;
        assert_eq!(from_pieces(&d), (Orientation::White, 1.0 / (1.0 + (-prior).exp())));
        // A game with one misread king is still a game.
        let misread =
            displayed_from("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKK1R w - - 0 1", Orientation::Black);
        assert!(game_like(&misread, &[true; 64]));
        assert_eq!(from_pieces(&misread).0, Orientation::Black);
        // So is one with a pawn misread on the back rank, but two such oddities make a layout.
        let pawn = displayed_from("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKBPR w - - 0 1", Orientation::Black);
        assert!(game_like(&pawn, &[true; 64]));
        let both = displayed_from("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKKPR w - - 0 1", Orientation::Black);
        assert!(!game_like(&both, &[true; 64]));
        // Unless one of them was read unsure: a rook half read as a pawn is a misread.
        let pawn_at =
            (0..64).find(|&i| both[i].is_some_and(|p| p.role == Role::Pawn) && !(8..56).contains(&i)).unwrap();
        let mut sure = [true; 64];
        sure[pawn_at] = false;
        assert!(game_like(&both, &sure));
        // A random layout with a few pieces of each kind, as an editor makes them: two white
        // kings and white pawns on the bottom row.
        let layout = displayed_from("1PP1KNq1/1K5b/2Q4B/5PqP/2Q1rPrp/P4pp1/4Q2k/2Q4r w - - 0 1", Orientation::White);
        assert!(!game_like(&layout, &[true; 64]));
        assert_eq!(from_pieces(&layout), (Orientation::White, 1.0 / (1.0 + (-prior).exp())));
    }

    #[test]
    fn faint_coordinates_decide_only_what_the_pieces_leave_open() {
        let faint = |total: f32| CoordinateReading { ranks: total, files: 0.0, shift: (0, 0) };
        assert!(faint(-4.0).orientation().is_none(), "too faint to decide alone");
        // Kings and a knight: a game, but almost no piece evidence. Alone it gets the prior;
        // faint labels for Black turn it round.
        let d = displayed_from("8/8/8/8/8/2k5/8/K1N5 w - - 0 1", Orientation::Black);
        assert!(game_like(&d, &[true; 64]));
        let (o, _, alone) = from_pieces_and_coordinates(&d, &[true; 64], None);
        assert_eq!(o, Orientation::White);
        let pieces = (alone / (1.0 - alone)).ln();
        assert!(pieces < 2.0, "{pieces}");
        // The labels' evidence adds to the pieces' log-odds.
        let (o, source, conf) = from_pieces_and_coordinates(&d, &[true; 64], Some(&faint(-4.0)));
        assert_eq!((o, source), (Orientation::Black, OrientationSource::Coordinates));
        let want = 1.0 / (1.0 + (-(4.0 * FAINT_COORDINATE_WEIGHT - pieces)).exp());
        assert!((conf - want).abs() < 1e-4, "{conf} {want}");
        // A trace of evidence does not overturn the prior, nor is it named the witness when it
        // agrees with it.
        assert_eq!(from_pieces_and_coordinates(&d, &[true; 64], Some(&faint(-0.3))).0, Orientation::White);
        assert_eq!(from_pieces_and_coordinates(&d, &[true; 64], Some(&faint(0.1))).1, OrientationSource::Pieces);
        // A middlegame shown from White: its pawns outweigh faint labels for Black.
        let game = displayed_from(
            "r1bq1rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2Q1RK1 w - - 0 1",
            Orientation::White,
        );
        let (o, source, _) = from_pieces_and_coordinates(&game, &[true; 64], Some(&faint(-4.0)));
        assert_eq!((o, source), (Orientation::White, OrientationSource::Pieces));
    }

    #[test]
    fn piece_features_match_the_fitting_script() {
        let json: serde_json::Value = serde_json::from_str(include_str!("../models/orientation_weights.json")).unwrap();
        let checks = json["checks"].as_array().unwrap();
        assert!(!checks.is_empty());
        for check in checks {
            let placement = check["placement"].as_str().unwrap();
            let d = displayed_from(&format!("{placement} w - - 0 1"), Orientation::White);
            let want: Vec<f32> =
                check["features"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
            let got = piece_features(&d);
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!((g - w).abs() < 1e-4, "{placement}: {} is {g}, the script says {w}", PIECE_FEATURES[k]);
            }
            // Turned round, every feature changes sign.
            let turned = displayed_from(&format!("{placement} w - - 0 1"), Orientation::Black);
            for (a, b) in got.iter().zip(piece_features(&turned)) {
                assert!((a + b).abs() < 1e-4);
            }
        }
    }

    #[test]
    fn pieces_tell_the_side_at_the_bottom() {
        let fen = "r1bq1rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2Q1RK1 w - - 0 1";
        for o in [Orientation::White, Orientation::Black] {
            let d = displayed_from(fen, o);
            let (got, conf) = from_pieces(&d);
            assert_eq!(got, o);
            assert!(conf > 0.9);
            assert_eq!(to_board(&d, o, false), fen.parse::<Fen>().unwrap().into_setup().board);
        }
    }
}
